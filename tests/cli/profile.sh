#!/bin/sh
# `tilegen profile` at the command line (SPEC.md §3, §6): help, usage errors and
# their exit codes, spec errors reported as by check (exit 1, nothing written),
# --json - alone on stdout, views written atomically (no file on failure).
T=${TILEGEN:-bin/tilegen}
PY=${PYTHON:-/usr/bin/python3}
pass=0; fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
expect() { # expect NAME WANT_RC CMD...
  name=$1; want=$2; shift 2
  "$@" >/dev/null 2>&1; rc=$?
  if [ "$rc" -eq "$want" ]; then ok; else ko "$name: exit $rc, want $want"; fi
}
out=$(mktemp -d)
expect help 0 "$T" profile --help
expect no-spec 2 "$T" profile
expect unknown-option 2 "$T" profile --frobnicate specs/softmax.yaml
expect two-specs 2 "$T" profile specs/softmax.yaml specs/matmul.yaml
expect json-no-file 2 "$T" profile specs/softmax.yaml --json
expect top-bad 2 "$T" profile specs/softmax.yaml --top x
expect missing-file 2 "$T" profile "$out/nope.yaml"
expect bad-define 2 "$T" profile specs/softmax.yaml -D N=x
expect unwritable 2 "$T" profile specs/softmax.yaml --svg "$out/no/such/dir/t.svg"
[ -z "$(ls "$out")" ] && ok || ko "unwritable left a file: $(ls "$out")"
# a spec with errors: the check diagnostics, exit 1, no view written
bad=tests/diag/086-five-mistakes.yaml
"$T" check "$bad" 2>"$out/check.err"
"$T" profile "$bad" --svg "$out/bad.svg" 2>"$out/profile.err" >/dev/null; rc=$?
if [ "$rc" -eq 1 ] && cmp -s "$out/check.err" "$out/profile.err" && [ ! -e "$out/bad.svg" ]; then ok
else ko "spec-errors (exit $rc)"; fi
# --json - is the only thing on stdout and parses; -D and --target reach the model
"$T" profile specs/softmax.yaml --json - >"$out/a.json" &&
  "$T" profile specs/softmax.yaml --json - -D N=2048 >"$out/b.json" &&
  "$T" profile specs/softmax.yaml --json - --target trn2 >"$out/c.json" &&
  $PY -c "
import json, sys
a, b, c = (json.load(open('$out/' + n + '.json')) for n in 'abc')
assert a['kernel'] == 'softmax' and a['target'] == 'trn1' and c['target'] == 'trn2'
assert b['latency_ns'] > a['latency_ns'] * 1.5, (a['latency_ns'], b['latency_ns'])
assert b['engines']['dma']['instructions'] > a['engines']['dma']['instructions']
" && ok || ko "json-stdout"
# the summary names the bottleneck and the costliest spec line with its text
"$T" profile specs/softmax.yaml >"$out/s.txt" &&
  grep -q '^softmax on trn1: estimated [0-9.]* us' "$out/s.txt" &&
  grep -q 'bottleneck: ' "$out/s.txt" &&
  grep -qE 'specs/softmax.yaml:[0-9]+  - (load|store|activation|tensor_reduce|tensor_scalar|reciprocal):' "$out/s.txt" &&
  ok || ko "summary"
# same inputs, same bytes
"$T" profile specs/matmul.yaml --json "$out/m1.json" --trace "$out/m1.trace" --svg "$out/m1.svg" >/dev/null &&
  "$T" profile specs/matmul.yaml --json "$out/m2.json" --trace "$out/m2.trace" --svg "$out/m2.svg" >/dev/null &&
  cmp -s "$out/m1.json" "$out/m2.json" && cmp -s "$out/m1.trace" "$out/m2.trace" && cmp -s "$out/m1.svg" "$out/m2.svg" &&
  ok || ko "deterministic"
rm -rf "$out"
echo "$pass passed, $fail failed"
