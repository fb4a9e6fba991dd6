#!/bin/sh
# Smoke run of the spec fuzzer: replay the corpus (past crashes + seeds), then
# fuzz for a few seconds. Prints "N passed, M failed" (1 check each).
# Usage: run_fuzz_spec.sh FUZZER CORPUS_DIR   (FUZZ_SEED: mutation seed, default 1;
# 0 = random, for longer exploratory runs; FUZZ_SECONDS: seconds)
fz=$1; corpus=$2; secs=${FUZZ_SECONDS:-10}
pass=0; fail=0
work=$(mktemp -d)
if "$fz" -runs=0 "$corpus" >"$work/replay.log" 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL replay"; tail -n 30 "$work/replay.log"; fi
cp "$corpus"/* "$work/" 2>/dev/null
mkdir -p "$work/new"
if "$fz" -max_total_time="$secs" -seed="${FUZZ_SEED:-1}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" "$work/new" "$corpus" >"$work/fuzz.log" 2>&1; then
  pass=$((pass+1))
else
  fail=$((fail+1)); echo "FAIL fuzz: crash input kept in $work (add it to $corpus)"; tail -n 30 "$work/fuzz.log"
fi
[ "$fail" -eq 0 ] && rm -rf "$work"
echo "$pass passed, $fail failed"
