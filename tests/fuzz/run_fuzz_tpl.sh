#!/bin/sh
# Smoke run of the ctemplate fuzzer over its corpus: a fixed number of runs
# with a fixed mutation seed, so the same tree gives the same verdict in CI
# (new inputs go to a scratch dir, not the checked-in corpus). Prints
# "N passed, M failed".
# Usage: run_fuzz_tpl.sh FUZZER CORPUS_DIR
# Env: FUZZ_RUNS (default 300000); FUZZ_SEED (default 1; 0 = random) and
# FUZZ_TIME (seconds, instead of FUZZ_RUNS) for exploratory runs. A crashing
# input is kept in $FUZZ_KEEP (default build/fuzz-crashes).
fuzzer=$1; corpus=$2; keep=${FUZZ_KEEP:-build/fuzz-crashes}
if [ -n "$FUZZ_TIME" ]; then budget="-max_total_time=$FUZZ_TIME"; else budget="-runs=${FUZZ_RUNS:-300000}"; fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if "$fuzzer" $budget -seed="${FUZZ_SEED:-1}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$scratch/" "$scratch" "$corpus" >"$scratch/log" 2>&1; then
  tail -n 3 "$scratch/log"
  echo "fuzz_tpl: no crash, leak or UB in the smoke run"
  echo "1 passed, 0 failed"
else
  tail -n 40 "$scratch/log"
  mkdir -p "$keep" && cp "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-* "$keep/" 2>/dev/null
  echo "fuzz_tpl: the input is kept in $keep (add it to $corpus with the fix)"
  echo "0 passed, 1 failed"
fi
