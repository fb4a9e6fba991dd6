#!/bin/sh
# flags_check.sh KERNEL... - the numerics-flags suite: each bundled kernel
# (generated/<k>.c) and the runtime it links, built under a matrix of compilers
# and flags a caller might use (gcc and clang, -O0..-O3, -std=gnu11, whose gcc
# default contracts a*b+c into an FMA, -march=native, -ffp-contract=fast; the
# baseline bodies, kernel's and runtime's, on a CPU with wider ones, and the AVX2
# ones on a CPU with AVX-512: run_kernel.c's TG_HARNESS_SIMD), run
# on refs.py's seeded inputs; every output must be bit-identical (cmp of the
# .npy files) to the reference build, harness.sh's host flags. One pass/fail
# per kernel and flag set; ends with "N passed, M failed".
# Env: PYTHON, BUILD (scratch under $BUILD/numerics-flags), GEN_DIR (default
# generated/), FLAG_SETS (one "compiler flags..." per line, default below).
PYTHON=${PYTHON:-/usr/bin/python3}
BUILD=${BUILD:-build}
here=$(dirname "$0")
root=$here/../..
GEN_DIR=${GEN_DIR:-$root/generated}
work=$BUILD/numerics-flags
CC=${CC_REF:-gcc}
# The matrix: each dimension (compiler, optimization level, language mode,
# contraction, target ISA) varies at least once against the reference.
FLAG_SETS=${FLAG_SETS:-"gcc -std=gnu11 -O0
gcc -std=gnu11 -O1
gcc -std=gnu11 -O2 -DTG_HARNESS_SIMD=1
gcc -std=gnu11 -O2 -DTG_HARNESS_SIMD=2
clang -std=gnu11 -O2
gcc -std=gnu11 -O2 -march=native
gcc -std=gnu11 -O3 -march=native -ffp-contract=fast
clang -std=gnu11 -O0
clang -std=gnu11 -O2 -march=native
clang -std=gnu11 -O3 -march=native -ffp-contract=fast
clang -std=c11 -O1 -march=native -ffp-contract=on"}
RT_SRCS="tg_core tg_dtype tg_math tg_alu tg_ops host/tg_npy"
. "$here/harness.sh"
rm -rf "$work"; mkdir -p "$work" || exit 2
: >"$work/kernels"; : >"$work/verdicts"

# build SET_DIR CC FLAGS...: the runtime objects of one flag set in SET_DIR/rt.
build_set_rt() {
  sd=$1; cc=$2; shift 2
  mkdir -p "$sd/rt"
  for s in $RT_SRCS; do
    $cc "$@" -I"$root/runtime" -I"$root/runtime/host" -c "$root/runtime/$s.c" \
      -o "$sd/rt/$(basename $s).o" >>"$sd/build.log" 2>&1 || return 1
  done
}

pass=0; fail=0
# The reference: harness.sh's host flags (what check.sh and iss-agree use).
build_rt $RT_SRCS
for k in "$@"; do
  d=$work/$k; mkdir -p "$d/ref"
  if ! "$PYTHON" "$here/refs.py" inputs "$k" --seed 0 --dir "$d/in" >"$d/ref.log" 2>&1 ||
     ! cp "$GEN_DIR/$k.h" "$GEN_DIR/$k.c" "$d/" >>"$d/ref.log" 2>&1 ||
     ! $CC $HOSTFLAGS -I"$d" "-DKERNEL_H=\"$k.h\"" -DKERNEL_DESC="${k}_kernel" \
         "$here/run_kernel.c" "$d/$k.c" $rtobjs -o "$d/ref/run" >>"$d/ref.log" 2>&1 ||
     ! cp "$d"/in/*.npy "$d/ref/" || ! "$d/ref/run" "$d/ref" >>"$d/ref.log" 2>&1; then
    fail=$((fail+1)); echo "[  FAILED  ] $k: reference build or run failed (log: $d/ref.log)"
    sed 's/^/    /' "$d/ref.log" | head -20
    continue
  fi
  outs=
  for f in "$d"/ref/*.npy; do
    [ -f "$d/in/$(basename "$f")" ] || outs="$outs $(basename "$f")"
  done
  echo "$k" >>"$work/kernels"
  [ -n "$outs" ] || { fail=$((fail+1)); echo "[  FAILED  ] $k: no outputs"; }
  echo "$outs" >"$d/outs"
done

n=0
echo "$FLAG_SETS" | while IFS= read -r set; do
  [ -n "$set" ] || continue
  n=$((n+1)); sd=$work/set$n; mkdir -p "$sd"
  # shellcheck disable=SC2086
  if ! command -v ${set%% *} >/dev/null 2>&1; then
    echo "[  FAILED  ] ($set): no such compiler"; echo F >>"$work/verdicts"; continue; fi
  # shellcheck disable=SC2086
  if ! build_set_rt "$sd" $set; then
    echo "[  FAILED  ] ($set): runtime does not build (log: $sd/build.log)"
    sed 's/^/    /' "$sd/build.log" | head -20; echo F >>"$work/verdicts"; continue
  fi
  while read -r k; do
    d=$work/$k; kd=$sd/$k; rm -rf "$kd"; mkdir -p "$kd"; why=
    # shellcheck disable=SC2086
    if ! ${set%% *} ${set#* } -I"$root/runtime" -I"$root/runtime/host" -I"$d" \
         "-DKERNEL_H=\"$k.h\"" -DKERNEL_DESC="${k}_kernel" "$here/run_kernel.c" "$d/$k.c" \
         "$sd"/rt/*.o -o "$kd/run" >"$kd/log" 2>&1; then why="build failed"
    elif ! cp "$d"/in/*.npy "$kd/" || ! "$kd/run" "$kd" >>"$kd/log" 2>&1; then why="run failed"
    else
      for o in $(cat "$d/outs"); do
        cmp -s "$d/ref/$o" "$kd/$o" || why="${why:+$why, }$o differs from the reference build"
      done
    fi
    if [ -z "$why" ]; then echo "[       OK ] $k ($set)"; echo P >>"$work/verdicts"
    else echo "[  FAILED  ] $k ($set): $why (log: $kd/log)"; sed 's/^/    /' "$kd/log" | head -10
      echo F >>"$work/verdicts"; fi
    [ -n "$why" ] || rm -f "$kd/run" "$kd"/*.npy
  done <"$work/kernels"
done
pass=$((pass + $(grep -c P "$work/verdicts")))
fail=$((fail + $(grep -c F "$work/verdicts")))
echo "$pass passed, $fail failed"
[ $fail = 0 ]
