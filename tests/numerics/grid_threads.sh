#!/bin/sh
# grid_threads.sh KERNEL... - the grid-threads suite: each grid kernel of
# $SPECS generated, linked with runtime/host/tg_threads.c and the harness
# grid_threads.c (-pthread), whose checks are counted here: 1, 2, 3 and more
# threads than programs write tg_kernel_run's bytes, failing programs give
# the lowest failing index's code on every thread count (grid_threads.c).
# Then the same harness of the first kernel under ThreadSanitizer (gcc
# -fsanitize=thread, the runtime built into it) on its checks, when the
# compiler can build and run it. Ends with "N passed, M failed".
# BENCH=R: instead, time each kernel on one and on two threads (best of R).
# Env: TILEGEN, CC, BUILD, SPECS (default tests/numerics/specs), TSAN=0 skips
# the ThreadSanitizer run.
TILEGEN=${TILEGEN:-bin/tilegen}
CC=${CC:-cc}
BUILD=${BUILD:-build}
here=$(dirname "$0")
root=$here/../..
SPECS=${SPECS:-$here/specs}
work=$BUILD/grid-threads${BENCH:+-bench}
. "$here/harness.sh"
CC="$CC -pthread"
build_rt tg_core tg_dtype tg_math tg_alu tg_ops host/tg_threads

pass=0; fail=0
# counted LOG: add the harness's "N passed, M failed" (one failure without one)
counted() {
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -1)
  if [ -n "$line" ]; then
    pass=$((pass + ${line%% *})); f=${line#*, }; fail=$((fail + ${f%% *}))
  else fail=$((fail+1)); fi
}
for k in "$@"; do
  d=$work/$k; ok=1; why=
  kernel_files "$k" "$d"
  if [ $ok = 1 ] && ! build_harness "$k" "$d" grid_threads.c run; then ok=0; why="harness build failed"; fi
  if [ $ok = 0 ]; then verdict "$k" "$d"; continue; fi
  if [ -n "$BENCH" ]; then
    "$d/run" bench "$BENCH" || { fail=$((fail+1)); echo "[  FAILED  ] $k: bench run failed"; }
    continue
  fi
  "$d/run" >"$d/run.log" 2>&1
  cat "$d/run.log"
  counted "$d/run.log"
done
[ -n "$BENCH" ] && exit $((fail != 0))

# ThreadSanitizer: the harness and every runtime source it needs in one build.
k=$1; d=$work/tsan
if [ "${TSAN:-1}" = 0 ] || ! command -v gcc >/dev/null 2>&1; then
  echo "[  SKIPPED ] ThreadSanitizer run (TSAN=0 or no gcc)"
elif mkdir -p "$d" && gcc -std=c11 -O1 -g -fsanitize=thread -pthread -ffp-contract=off -I"$root/runtime" \
     -I"$root/runtime/host" -I"$work/$k/gen" "-DKERNEL_H=\"$k.h\"" -DKERNEL_DESC="${k}_kernel" \
     "$here/grid_threads.c" "$work/$k/gen/$k.c" "$root"/runtime/tg_core.c "$root"/runtime/tg_dtype.c \
     "$root"/runtime/tg_math.c "$root"/runtime/tg_alu.c "$root"/runtime/tg_ops.c \
     "$root"/runtime/host/tg_threads.c -o "$d/run" >"$d/build.log" 2>&1; then
  if TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$d/run" >"$d/run.log" 2>&1 &&
     ! grep -q "ThreadSanitizer" "$d/run.log"; then
    pass=$((pass+1)); echo "[       OK ] $k under ThreadSanitizer: no data race"
  else
    fail=$((fail+1)); echo "[  FAILED  ] $k under ThreadSanitizer (log: $d/run.log)"; head -30 "$d/run.log"
  fi
else
  echo "[  SKIPPED ] ThreadSanitizer: gcc -fsanitize=thread does not build here (log: $d/build.log)"
fi
echo "$pass passed, $fail failed"
