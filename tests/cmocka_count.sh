#!/bin/sh
# Run one cmocka test binary and print its outcome as "N passed, M failed".
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
p=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
f=$(printf '%s\n' "$out" | grep -c '^\[  FAILED  \] [^0-9]')
e=$(printf '%s\n' "$out" | grep -c '^\[  ERROR   \]')
f=$((f + e))
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
echo "$p passed, $f failed"
