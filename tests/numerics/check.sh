#!/bin/sh
# check.sh KERNEL... - the gen-numerics suite: for each kernel, `tilegen gen`
# into a temp dir, compile the generated C strictly (gcc and clang when
# present: -std=c99 -ffreestanding -Wall -Wextra -Wpedantic -Werror -Wshadow
# -ffp-contract=off; `nm -u` within memcpy/memset/tg_*), link it with the host harness run_kernel.c, run it on
# refs.py's inputs and check with `refs.py compare`. One pass/fail per kernel;
# ends with "N passed, M failed". TIMING=1 (`make bench`) adds the kernel's
# best wall time next to numpy's (np_time.py) for the same math (TIMING_N runs
# each, default 20; best of them, so both sides are timed warm; numpy and its
# OpenBLAS on one thread), and a table: the kernel's HBM bytes and FLOPs (its
# `tilegen profile`), what the C simulation achieves and its fraction of the
# machine's limit measured in the same run by limits.c (the copy bandwidth at
# the kernel's working-set size, the better of a sample before its timings
# and one after, or the peak fp32 FLOP rate, whichever bounds
# the kernel's time), and OpenBLAS sgemm on the kernel's matrix products.
# Env: TILEGEN, PYTHON, CC, BUILD (scratch under $BUILD/gen-numerics); RTOBJS
# (runtime objects to link, harness.sh; default: built here);
# STRICT_CCS: the compilers of the strict -std=c99 freestanding build (default
# "gcc clang"; empty: none, the harness build only);
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

if [ -n "$TIMING" ]; then
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 # one thread, like the C simulation
  $CC -std=c11 -O2 -march=native -ffp-contract=fast "$here/limits.c" -o "$work/limits" ||
    { echo "cannot build limits.c"; echo "0 passed, 1 failed"; exit 1; }
  peak=$("$work/limits" flops)
fi

# Per kernel: its files, builds, inputs, run and compare, in phases so that
# one Python (refs.py batch) writes every kernel's inputs and one compares
# them all; a kernel's first failure is D/why, and later phases skip it.
failed() { echo "$2" >"$1/why"; }
for k in "$@"; do
  d=$work/$k; ok=1; why=
  kernel_files "$k" "$d"
  if [ $ok = 1 ]; then
    for cc in ${STRICT_CCS-gcc clang}; do
      command -v $cc >/dev/null 2>&1 || continue
      if ! $cc $STRICT -I$root/runtime -I"$d/gen" -c "$d/gen/$k.c" -o "$d/$k.$cc.o" >>"$d/gen.log" 2>&1; then
        ok=0; why="$cc -std=c99 strict build failed"; continue; fi
      # freestanding: nothing outside memcpy/memset and the runtime (tg_*)
      bad=$(nm -u "$d/$k.$cc.o" | awk '{print $NF}' | grep -v -x -e memcpy -e memset | grep -v '^tg_')
      if [ -n "$bad" ]; then ok=0; why="$cc object needs $(echo $bad)"; fi
    done
  fi
  if [ $ok = 1 ] && ! build_harness "$k" "$d" run_kernel.c run; then ok=0; why="harness build failed"; fi
  [ $ok = 1 ] || failed "$d" "$why"
done
for k in "$@"; do
  d=$work/$k; [ -f "$d/why" ] || echo "$d/gen.log $d/inputs.rc inputs $k --seed 0 --dir $d"
done | "$PYTHON" "$here/refs.py" batch
for k in "$@"; do
  d=$work/$k; [ -f "$d/why" ] && continue
  if [ "$(cat "$d/inputs.rc" 2>/dev/null)" != 0 ]; then failed "$d" "refs.py inputs failed"
  elif ! "$d/run" "$d" >>"$d/gen.log" 2>&1; then failed "$d" "kernel run failed"; fi
done
for k in "$@"; do
  d=$work/$k; [ -f "$d/why" ] || { : >"$d/compare.log"; echo "$d/compare.log $d/compare.rc compare $k --dir $d"; }
done | "$PYTHON" "$here/refs.py" batch

pass=0; fail=0
for k in "$@"; do
  d=$work/$k; ok=1; why=
  if [ -f "$d/why" ]; then ok=0; why=$(cat "$d/why")
  else
    [ "$(cat "$d/compare.rc" 2>/dev/null)" = 0 ] || { ok=0; why="refs.py compare failed"; }
    sed "s/^/  /" "$d/compare.log"
  fi
  verdict "$k" "$d"
  if [ $ok = 1 ] && [ -n "$TIMING" ]; then
    # the working set: the kernel's tensors (the .npy files of its inputs and
    # outputs). The copy limit is measured before the timings and after
    # them, the better kept: one sample of ~10 ms had come out at 76.6 GB/s
    # where the same size gave 163-198 in every other run (another tenant's
    # burst on a shared host), which doubled the kernel's "of limit".
    ws=$(cat "$d"/*.npy | wc -c)
    bw0=$("$work/limits" copy "$ws")
    c=$("$d/run" "$d" "$TIMING_N" | sed -n 's/^time_ms //p')
    n=$("$PYTHON" "$here/np_time.py" "$k" "$d" "$TIMING_N")
    echo "  $k: C simulation ${c} ms, numpy ${n} ms (best of $TIMING_N)"
    # HBM bytes and FLOPs as tilegen profile counts them
    bf=$("$TILEGEN" profile --json - "$SPECS/$k.yaml" 2>/dev/null |
         "$PYTHON" -c 'import json, sys; j = json.load(sys.stdin); print(j["dma"]["bytes"], j["flops"])') || bf="0 0"
    bw1=$("$work/limits" copy "$ws")
    bw=$(awk -v a="$bw0" -v b="$bw1" 'BEGIN { print (a + 0 > b + 0) ? a : b }')
    sg=$("$PYTHON" "$here/np_time.py" --sgemm "$k" "$d" "$TIMING_N")
    echo "$k $c $n $bf $bw $sg" >>"$work/timings"
  fi
done
if [ -n "$TIMING" ] && [ -s "$work/timings" ]; then
  echo "machine: peak fp32 $peak GFLOP/s (limits.c flops, one thread); copy bandwidth measured per kernel at its working set, the better of a sample before and after its timings"
  echo "kernel            C sim ms  numpy ms numpy/C     HBM MB   GFLOP bound      achieved    limit  of limit  sgemm ms sgemm/C"
  awk -v peak="$peak" '{
    c = $2; r = (c > 0 && $3 != "n/a") ? sprintf("%7.2f", $3 / c) : "    n/a";
    mb = $4 / 1e6; gf = $5 / 1e9; bw = $6;
    # the bound: the larger of the times the bytes need at the copy bandwidth
    # and the FLOPs at peak
    flop = (gf / peak > mb / 1e3 / bw);
    if (flop) { ach = gf / (c / 1e3); lim = peak; unit = "GFLOP/s" } else { ach = mb / 1e3 / (c / 1e3); lim = bw; unit = "GB/s" }
    sr = ($7 != "n/a" && c > 0) ? sprintf("%7.2f", $7 / c) : "    n/a";
    printf "%-16s %9s %9s %s %10.1f %7.2f %-6s %7.1f %-7s %7.1f %8.1f%% %9s %s\n", $1, c, $3, r, mb, gf,
           flop ? "flops" : "memory", ach, unit, lim, 100 * ach / lim, $7, sr }' "$work/timings"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
