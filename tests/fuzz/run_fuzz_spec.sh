#!/bin/sh
# Smoke run of a libFuzzer target (the spec front end, the assembler/decoder):
# replay the corpus (past crashes + seeds), then fuzz a fixed number of runs
# with a fixed mutation seed, so the same tree gives the same verdict in CI.
# Prints "N passed, M failed" (1 check each).
# Usage: run_fuzz_spec.sh FUZZER CORPUS_DIR
# Env: FUZZ_RUNS (default 100000); FUZZ_SEED (default 1; 0 = random) and
# FUZZ_SECONDS (a time limit instead of FUZZ_RUNS) for exploratory runs;
# FUZZ_MAX_LEN (default 4096) for targets whose seeds are larger.
# A crashing input is kept in $FUZZ_KEEP (default build/fuzz-crashes).
fz=$1; corpus=$2; keep=${FUZZ_KEEP:-build/fuzz-crashes}
if [ -n "$FUZZ_SECONDS" ]; then budget="-max_total_time=$FUZZ_SECONDS"; else budget="-runs=${FUZZ_RUNS:-100000}"; fi
pass=0; fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if "$fz" -runs=0 "$corpus" >"$work/replay.log" 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL replay"; tail -n 30 "$work/replay.log"; fi
mkdir -p "$work/new"
if "$fz" $budget -seed="${FUZZ_SEED:-1}" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" "$work/new" "$corpus" >"$work/fuzz.log" 2>&1; then
  pass=$((pass+1))
else
  fail=$((fail+1)); tail -n 30 "$work/fuzz.log"
  mkdir -p "$keep" && cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$keep/" 2>/dev/null
  echo "FAIL fuzz: the input is kept in $keep (add it to $corpus with the fix)"
fi
echo "$pass passed, $fail failed"
