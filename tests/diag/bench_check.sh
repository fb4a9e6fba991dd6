#!/bin/sh
# bench-check: wall time of `tilegen check` and of `tilegen gen` (C, header
# and assembly written to an empty directory) per spec, best of 20 runs each,
# process start-up included, in ms. Fails if a check takes 10 ms or more or a
# generation 50 ms or more (the bars of the front end and the C back end).
T=${TILEGEN:-bin/tilegen}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
worst_c=0; worst_g=0; fail=0
best_of() { # best_of CMD...: best wall time in microseconds of 20 runs
  best=999999999; i=0
  while [ $i -lt 20 ]; do
    rm -rf "$out/g"; mkdir "$out/g"
    t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    d=$(( (t1 - t0) / 1000 )); [ $d -lt $best ] && best=$d
    i=$((i+1))
  done
  echo $best
}
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
printf '%-32s %10s %10s\n' spec "check ms" "gen ms"
for s in "$@"; do
  c=$(best_of "$T" check "$s")
  g=$(best_of "$T" gen -o "$out/g" "$s")
  printf '%-32s %10s %10s\n' "$s" "$(ms $c)" "$(ms $g)"
  [ $c -gt $worst_c ] && worst_c=$c
  [ $g -gt $worst_g ] && worst_g=$g
  [ $c -ge 10000 ] && fail=1
  [ $g -ge 50000 ] && fail=1
done
printf 'check: worst %s ms per spec (bar < 10 ms); gen: worst %s ms per spec (bar < 50 ms)\n' "$(ms $worst_c)" "$(ms $worst_g)"
exit $fail
