#!/bin/sh
# bench-check: wall time of `tilegen check` per spec, best of 20 runs (the
# process start-up included), in ms; fails if any spec takes 10 ms or more.
T=${TILEGEN:-bin/tilegen}
worst=0; fail=0
for s in "$@"; do
  best=999999999
  i=0
  while [ $i -lt 20 ]; do
    t0=$(date +%s%N); "$T" check "$s" >/dev/null 2>&1; t1=$(date +%s%N)
    d=$(( (t1 - t0) / 1000 )); [ $d -lt $best ] && best=$d
    i=$((i+1))
  done
  printf '%-32s %6d.%03d ms\n' "$s" $((best / 1000)) $((best % 1000))
  [ $best -gt $worst ] && worst=$best
  [ $best -ge 10000 ] && fail=1
done
printf 'check: worst %d.%03d ms per spec (bar < 10 ms)\n' $((worst / 1000)) $((worst % 1000))
exit $fail
