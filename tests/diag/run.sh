#!/bin/sh
# tests/diag runner: every NNN-name.yaml is checked with `tilegen check` (plus
# the options in NNN-name.args when there is one, e.g. `-D N=3`) and its
# stderr must equal NNN-name.expected byte for byte; the exit code must be 1 when
# the text has an error, else 0. Then docs/diagnostics.md must be what
# gen_docs.py makes of these cases (so the docs cannot drift), and list every
# code gen/ can raise (gen_docs.py --check-codes).
# Usage: TILEGEN=bin/tilegen tests/diag/run.sh [--update]
T=${TILEGEN:-bin/tilegen}
PY=${PYTHON:-/usr/bin/python3}
dir=tests/diag
pass=0; fail=0
tmp=$(mktemp)
for spec in $dir/[0-9][0-9][0-9]-*.yaml; do
  exp=${spec%.yaml}.expected
  args=; [ -f "${spec%.yaml}.args" ] && args=$(cat "${spec%.yaml}.args")
  # shellcheck disable=SC2086 # the .args file is a list of options
  "$T" check $args "$spec" 2>"$tmp" >/dev/null; rc=$?
  if [ "$1" = "--update" ]; then cp "$tmp" "$exp"; fi
  want=0; grep -q 'error\[E' "$exp" 2>/dev/null && want=1
  if [ ! -f "$exp" ]; then
    fail=$((fail+1)); echo "FAIL $spec: no $exp"
  elif ! cmp -s "$tmp" "$exp"; then
    fail=$((fail+1)); echo "FAIL $spec: stderr differs"; diff "$exp" "$tmp" | head -n 20
  elif [ "$rc" -ne "$want" ]; then
    fail=$((fail+1)); echo "FAIL $spec: exit $rc, want $want"
  else
    pass=$((pass+1))
  fi
done
if [ "$1" = "--update" ]; then "$PY" $dir/gen_docs.py >docs/diagnostics.md; fi
if "$PY" $dir/gen_docs.py | cmp -s - docs/diagnostics.md; then pass=$((pass+1));
else fail=$((fail+1)); echo "FAIL docs/diagnostics.md is stale: run tests/diag/run.sh --update"; fi
# docs/diagnostics.md lists every code gen/ can raise (E, W and the
# assembler's A codes) and no code nothing raises
if "$PY" $dir/gen_docs.py --check-codes >"$tmp"; then pass=$((pass+1));
else fail=$((fail+1)); grep '^FAIL' "$tmp"; fi
rm -f "$tmp"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
