#!/bin/sh
# bench-check-worst: wall time of `tilegen check` on the front end's worst
# cases (tests/diag/slow: trip counts of 2048 x 2048 around one-element ops,
# affine and not) and on every spec of the fuzz corpus and the diag cases,
# one run each. Bar: under 1 s per spec (SPEC: check's work is bounded by one
# budget per spec, past which it stops with a located E057). Prints the
# slowest five.
T=${TILEGEN:-bin/tilegen}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for s in tests/diag/slow/*.yaml tests/fuzz/corpus_spec/* tests/diag/*.yaml specs/*.yaml; do
  t0=$(date +%s%N); "$T" check "$s" >/dev/null 2>&1; rc=$?; t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000 )) $rc $s" >> "$tmp"
done
n=$(wc -l < "$tmp")
printf '%-52s %10s %5s\n' "slowest of $n specs" "check ms" exit
sort -rn "$tmp" | head -5 | while read -r us rc s; do
  printf '%-52s %6d.%03d %5s\n' "$s" $((us / 1000)) $((us % 1000)) "$rc"
done
worst=$(sort -rn "$tmp" | head -1 | cut -d' ' -f1)
printf 'check: worst %d.%03d ms (bar < 1000 ms)\n' $((worst / 1000)) $((worst % 1000))
[ "$worst" -lt 1000000 ]
