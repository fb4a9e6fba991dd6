#!/bin/sh
# Run every test suite and sum their counts.
# Usage: run_suites.sh MAKE SUITE...   (each suite is the make target suite-NAME)
# A suite's output must contain a line "N passed, M failed" (its last such line
# counts); a suite that prints none, or exits non-zero with no failure counted,
# counts as one failure. Logs go to $BUILD/test-logs/NAME.log.
make=$1; shift
logs=${BUILD:-build}/test-logs
mkdir -p "$logs"
tp=0; tf=0
for s in "$@"; do
  log="$logs/$s.log"
  $make -s --no-print-directory "suite-$s" >"$log" 2>&1
  rc=$?
  line=$(grep -E '(^|[^0-9])[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  p=$(printf '%s\n' "$line" | sed -nE 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed.*/\2/p')
  f=$(printf '%s\n' "$line" | sed -nE 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed.*/\3/p')
  if [ -z "$p" ]; then p=0; f=1; fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$f" -ne 0 ]; then
    echo "---- $s: FAILED (log: $log) ----"
    grep -E 'FAIL|error|Error|ERROR|mismatch|differ' "$log" | head -n 40
  fi
  printf '%s: %d passed, %d failed\n' "$s" "$p" "$f"
  tp=$((tp + p)); tf=$((tf + f))
done
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
