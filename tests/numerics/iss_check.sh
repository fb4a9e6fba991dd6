#!/bin/sh
# iss_check.sh KERNEL... - the iss-agree suite: for each kernel, `tilegen gen`
# into a temp dir (C, header and listing), the program from the listing
# (`tilegen asm k.s -o k.bin`; else the program embedded in k.c; else
# $BIN_DIR/k.bin), then the harness iss_agree.c runs the C simulation and the
# ISS on refs.py's seeded inputs and compares every output bit for bit, and
# `refs.py compare` checks the ISS outputs against numpy. One pass/fail per
# kernel; ends with "N passed, M failed". TIMING=1 adds best-of-5 times of
# both and the ISS instruction rate.
# Env: TILEGEN, PYTHON, CC, BUILD (scratch under $BUILD/iss-agree), SPECS
# (default specs/), GEN_DIR (take <k>.h/.c/.s from there instead of running
# tilegen gen), BIN_DIR (fallback programs), SEED (default 0).
TILEGEN=${TILEGEN:-bin/tilegen}
PYTHON=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
BUILD=${BUILD:-build}
SEED=${SEED:-0}
here=$(dirname "$0")
root=$here/../..
SPECS=${SPECS:-$root/specs}
work=$BUILD/iss-agree
. "$here/harness.sh"
build_rt $RT_ISS_SRCS

pass=0; fail=0
for k in "$@"; do
  d=$work/$k; ok=1; why=; prog=
  kernel_files "$k" "$d"
  if [ $ok = 1 ]; then
    if [ -f "$d/gen/$k.s" ]; then
      if "$TILEGEN" asm "$d/gen/$k.s" -o "$d/$k.bin" >>"$d/gen.log" 2>&1; then prog=$d/$k.bin
      else ok=0; why="tilegen asm failed"; fi
    elif grep -q "no ISS program yet" "$d/gen/$k.c"; then
      if [ -n "$BIN_DIR" ] && [ -f "$BIN_DIR/$k.bin" ]; then prog=$BIN_DIR/$k.bin
      else ok=0; why="no listing, no embedded program, no \$BIN_DIR/$k.bin"; fi
    fi
  fi
  if [ $ok = 1 ] && ! build_harness "$k" "$d" iss_agree.c agree; then ok=0; why="harness build failed"; fi
  if [ $ok = 1 ] && ! "$PYTHON" "$here/refs.py" inputs "$k" --seed "$SEED" --dir "$d" >>"$d/gen.log" 2>&1; then
    ok=0; why="refs.py inputs failed"; fi
  if [ $ok = 1 ]; then
    if "$d/agree" "$d" 1 $prog >"$d/agree.log" 2>&1; then :; else ok=0; why="ISS and C simulation disagree or failed"; fi
    sed "s/^/  /" "$d/agree.log"
  fi
  if [ $ok = 1 ]; then
    if "$PYTHON" "$here/refs.py" compare "$k" --dir "$d" >"$d/compare.log" 2>&1; then :; else ok=0; why="refs.py compare of the ISS outputs failed"; fi
    sed "s/^/  /" "$d/compare.log"
  fi
  verdict "$k" "$d"
  if [ $ok = 1 ] && [ -n "$TIMING" ]; then
    "$d/agree" "$d" 5 $prog | sed -n "s/^time_ms /  $k: /p"
  fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
