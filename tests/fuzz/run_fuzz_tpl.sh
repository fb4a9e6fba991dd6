#!/bin/sh
# Smoke-run the ctemplate fuzzer for ~20 s over its corpus (new inputs go to a
# scratch dir, not the checked-in corpus). Prints "N passed, M failed".
# Usage: run_fuzz_tpl.sh FUZZER CORPUS_DIR   (FUZZ_SEED: mutation seed, default 1;
# 0 = random, for longer exploratory runs; FUZZ_TIME: seconds)
fuzzer=$1; corpus=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if "$fuzzer" -max_total_time="${FUZZ_TIME:-20}" -seed="${FUZZ_SEED:-1}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$scratch/" "$scratch" "$corpus" >"$scratch/log" 2>&1; then
  tail -n 3 "$scratch/log"
  echo "fuzz_tpl: no crash, leak or UB in the smoke run"
  echo "1 passed, 0 failed"
else
  tail -n 40 "$scratch/log"
  ls "$scratch" | grep -E '^(crash|leak|timeout|oom)-' | head
  echo "0 passed, 1 failed"
fi
