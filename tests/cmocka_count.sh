#!/bin/sh
# Run cmocka test binaries and print their summed outcome as "N passed, M failed".
# Usage: cmocka_count.sh BINARY...
# Counts come from cmocka's closing summary ("[  PASSED  ] N test(s)." and
# "[  FAILED  ] N test(s), listed below:"); a binary that dies before its
# summary, or exits non-zero with no failure counted, counts as one failure.
tp=0; tf=0
for bin in "$@"; do
  out=$("$bin" 2>&1); rc=$?
  printf '%s\n' "$out"
  p=$(printf '%s\n' "$out" | sed -nE 's/^\[  PASSED  \] ([0-9]+) test\(s\)\..*/\1/p' | tail -n 1)
  f=$(printf '%s\n' "$out" | sed -nE 's/^\[  FAILED  \] ([0-9]+) test\(s\), listed below:.*/\1/p' | tail -n 1)
  [ -n "$f" ] || f=0
  if [ -z "$p" ]; then p=0; [ "$f" -eq 0 ] && f=1; fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  tp=$((tp + p)); tf=$((tf + f))
done
echo "$tp passed, $tf failed"
