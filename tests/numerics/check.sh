#!/bin/sh
# check.sh KERNEL... - the gen-numerics suite: for each kernel, `tilegen gen`
# into a temp dir, compile the generated C strictly (gcc and clang when
# present: -std=c99 -ffreestanding -Wall -Wextra -Wpedantic -Werror -Wshadow
# -ffp-contract=off; `nm -u` within memcpy/memset/tg_*), link it with the host harness run_kernel.c, run it on
# refs.py's inputs and check with `refs.py compare`. One pass/fail per kernel;
# ends with "N passed, M failed". TIMING=1 adds the kernel's best wall time
# next to numpy's (np_time.py) for the same math (TIMING_N runs each, default
# 20; best of them, so both sides are timed warm) and a table with the ratio.
# Env: TILEGEN, PYTHON, CC, BUILD (scratch under $BUILD/gen-numerics);
# SPECS: the directory of the kernels' specs (default specs/);
# GEN_DIR: take the kernel's files from there (e.g. generated/) instead of
# running `tilegen gen` (what `make generate` uses to check its own output).
TILEGEN=${TILEGEN:-bin/tilegen}
PYTHON=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
BUILD=${BUILD:-build}
here=$(dirname "$0")
root=$here/../..
SPECS=${SPECS:-$root/specs}
TIMING_N=${TIMING_N:-20}
work=$BUILD/gen-numerics
. "$here/harness.sh"
mkdir -p "$work" || exit 2
rm -f "$work/timings"
STRICT="-std=c99 -ffreestanding -Wall -Wextra -Wpedantic -Werror -Wshadow -Wundef -ffp-contract=off -O2"
build_rt tg_core tg_dtype tg_math tg_alu tg_ops host/tg_npy

pass=0; fail=0
for k in "$@"; do
  d=$work/$k; ok=1; why=
  kernel_files "$k" "$d"
  if [ $ok = 1 ]; then
    for cc in gcc clang; do
      command -v $cc >/dev/null 2>&1 || continue
      if ! $cc $STRICT -I$root/runtime -I"$d/gen" -c "$d/gen/$k.c" -o "$d/$k.$cc.o" >>"$d/gen.log" 2>&1; then
        ok=0; why="$cc -std=c99 strict build failed"; continue; fi
      # freestanding: nothing outside memcpy/memset and the runtime (tg_*)
      bad=$(nm -u "$d/$k.$cc.o" | awk '{print $NF}' | grep -v -x -e memcpy -e memset | grep -v '^tg_')
      if [ -n "$bad" ]; then ok=0; why="$cc object needs $(echo $bad)"; fi
    done
  fi
  if [ $ok = 1 ] && ! build_harness "$k" "$d" run_kernel.c run; then ok=0; why="harness build failed"; fi
  if [ $ok = 1 ] && ! "$PYTHON" "$here/refs.py" inputs "$k" --seed 0 --dir "$d" >>"$d/gen.log" 2>&1; then
    ok=0; why="refs.py inputs failed"; fi
  if [ $ok = 1 ] && ! "$d/run" "$d" >>"$d/gen.log" 2>&1; then ok=0; why="kernel run failed"; fi
  if [ $ok = 1 ]; then
    if "$PYTHON" "$here/refs.py" compare "$k" --dir "$d" >"$d/compare.log" 2>&1; then :; else ok=0; why="refs.py compare failed"; fi
    sed "s/^/  /" "$d/compare.log"
  fi
  verdict "$k" "$d"
  if [ $ok = 1 ] && [ -n "$TIMING" ]; then
    c=$("$d/run" "$d" "$TIMING_N" | sed -n 's/^time_ms //p')
    n=$("$PYTHON" "$here/np_time.py" "$k" "$d" "$TIMING_N")
    echo "  $k: C simulation ${c} ms, numpy ${n} ms (best of $TIMING_N)"
    echo "$k $c $n" >>"$work/timings"
  fi
done
if [ -n "$TIMING" ] && [ -s "$work/timings" ]; then
  echo "kernel            C sim (ms)  numpy (ms)  numpy/C  (best of $TIMING_N each; >= 1: the C simulation is faster)"
  awk '{ r = ($2 > 0 && $3 != "n/a") ? sprintf("%7.2f", $3 / $2) : "    n/a";
         printf "%-16s %11s %11s  %s\n", $1, $2, $3, r }' "$work/timings"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
