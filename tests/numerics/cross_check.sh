#!/bin/sh
# cross_check.sh KERNEL... - suite cross-aarch64: each bundled kernel
# (generated/<k>.c) and the runtime built for aarch64 Linux
# (aarch64-linux-gnu-gcc -static, NEON) and run under qemu-aarch64 on refs.py's
# seeded inputs; every output must be bit-identical (cmp of the .npy files) to
# the x86-64 build with harness.sh's host flags. One pass/fail per kernel;
# ends with "N passed, M failed". Without the cross compiler or qemu-aarch64
# (tools/deps.sh installs both) it says so and counts nothing.
# Env: PYTHON, BUILD (scratch under $BUILD/cross-aarch64), GEN_DIR (generated/).
PYTHON=${PYTHON:-/usr/bin/python3}
BUILD=${BUILD:-build}
here=$(dirname "$0")
root=$here/../..
GEN_DIR=${GEN_DIR:-$root/generated}
work=$BUILD/cross-aarch64
CC=${CC_REF:-gcc}
XCC=${XCC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-qemu-aarch64}
RT_SRCS="tg_core tg_dtype tg_math tg_alu tg_ops host/tg_npy"
if ! command -v "$XCC" >/dev/null 2>&1 || ! command -v "$QEMU" >/dev/null 2>&1; then
  echo "[  SKIPPED ] $XCC or $QEMU not installed (make deps)"; echo "0 passed, 0 failed"; exit 0
fi
. "$here/harness.sh"
rm -rf "$work"; mkdir -p "$work/xrt" || exit 2
build_rt $RT_SRCS
xobjs=
for s in $RT_SRCS; do
  o=$work/xrt/$(basename $s).o
  $XCC $HOSTFLAGS -c "$root/runtime/$s.c" -o "$o" 2>>"$work/xrt.log" ||
    { echo "[  FAILED  ] runtime/$s.c does not build for aarch64"; cat "$work/xrt.log"; echo "0 passed, 1 failed"; exit 1; }
  xobjs="$xobjs $o"
done
pass=0; fail=0
for k in "$@"; do
  d=$work/$k; mkdir -p "$d/x86" "$d/a64"; why=
  if ! "$PYTHON" "$here/refs.py" inputs "$k" --seed 0 --dir "$d/in" >"$d/log" 2>&1; then why="no inputs"
  # shellcheck disable=SC2086
  elif ! $CC $HOSTFLAGS -I"$GEN_DIR" "-DKERNEL_H=\"$k.h\"" -DKERNEL_DESC="${k}_kernel" "$here/run_kernel.c" \
         "$GEN_DIR/$k.c" $rtobjs -o "$d/x86/run" >>"$d/log" 2>&1; then why="x86-64 build failed"
  # shellcheck disable=SC2086
  elif ! $XCC $HOSTFLAGS -static -I"$GEN_DIR" "-DKERNEL_H=\"$k.h\"" -DKERNEL_DESC="${k}_kernel" "$here/run_kernel.c" \
         "$GEN_DIR/$k.c" $xobjs -o "$d/a64/run" >>"$d/log" 2>&1; then why="aarch64 build failed"
  elif ! cp "$d"/in/*.npy "$d/x86/" || ! cp "$d"/in/*.npy "$d/a64/" ||
       ! "$d/x86/run" "$d/x86" >>"$d/log" 2>&1; then why="x86-64 run failed"
  elif ! "$QEMU" "$d/a64/run" "$d/a64" >>"$d/log" 2>&1; then why="qemu-aarch64 run failed"
  else
    n=0
    for f in "$d"/x86/*.npy; do
      b=$(basename "$f")
      [ -f "$d/in/$b" ] && continue
      n=$((n+1))
      cmp -s "$f" "$d/a64/$b" || why="${why:+$why, }$b differs from x86-64"
    done
    [ $n -gt 0 ] || why="no outputs"
  fi
  if [ -z "$why" ]; then pass=$((pass+1)); echo "[       OK ] $k: aarch64 (qemu) bit-identical to x86-64"; rm -rf "$d"
  else fail=$((fail+1)); echo "[  FAILED  ] $k: $why (log: $d/log)"; head -10 "$d/log" | sed 's/^/    /'; fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
