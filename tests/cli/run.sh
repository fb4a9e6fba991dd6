#!/bin/sh
# CLI behaviour that does not depend on a spec: help, version, usage errors and
# their exit codes (SPEC.md §3).
T=${TILEGEN:-bin/tilegen}
pass=0; fail=0
expect() { # expect NAME WANT_RC CMD...
  name=$1; want=$2; shift 2
  "$@" >/dev/null 2>&1; rc=$?
  if [ "$rc" -eq "$want" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $name: exit $rc, want $want"; fi
}
expect help 0 "$T" --help
expect version 0 "$T" --version
expect no-args 2 "$T"
expect unknown-cmd 2 "$T" frobnicate
if "$T" --version | grep -qE '^tilegen [0-9]+\.[0-9]+\.[0-9]+$'; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL version-format"; fi
# gen runs the same front end as check: the same diagnostics, nothing written.
bad=tests/diag/086-five-mistakes.yaml
out=$(mktemp -d)
"$T" check "$bad" 2>"$out/check.err"
"$T" gen -o "$out" "$bad" 2>"$out/gen.err"; rc=$?
if [ "$rc" -eq 1 ] && cmp -s "$out/check.err" "$out/gen.err" && [ -z "$(ls "$out" | grep -v '\.err$')" ]; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL gen-same-diagnostics-as-check (exit $rc)"; fi
rm -rf "$out"
# --dump: the form after a phase on stdout, nothing written; the context dump
# rendered by `tilegen tpl` gives exactly the files `tilegen gen` writes.
out=$(mktemp -d)
expect dump-bad-phase 2 "$T" gen --dump=bogus specs/softmax.yaml
if "$T" gen -o "$out" --dump=ir specs/softmax.yaml | grep -q 'act.activation' && [ -z "$(ls "$out")" ]; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL dump-ir"; fi
if "$T" gen --dump=plan specs/softmax.yaml | grep -q 'SBUF peak'; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL dump-plan"; fi
# the pipeline stops after the plan: exit 0, nothing on stderr (it used to go
# on to a false "out of memory", exit 2)
"$T" gen -o "$out" --dump=plan specs/softmax.yaml >/dev/null 2>"$out.err"; rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$out.err" ] && [ -z "$(ls "$out")" ]; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL dump-plan-exit (exit $rc: $(cat "$out.err"))"; fi
rm -f "$out.err"
# an unreadable spec is named by the command that read it
"$T" run tests/no-such-spec.yaml >/dev/null 2>"$out.err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q "^tilegen run: cannot read 'tests/no-such-spec.yaml': " "$out.err"; then
  pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL run-unreadable (exit $rc: $(cat "$out.err"))"; fi
rm -f "$out.err"
for spec in specs/*.yaml; do
  k=$(basename "$spec" .yaml)
  if "$T" gen -o "$out" "$spec" && "$T" gen --dump=ctx "$spec" >"$out/$k.json" &&
     "$T" tpl templates/kernel.h.j2 --context "$out/$k.json" | cmp -s - "$out/$k.h" &&
     "$T" tpl templates/kernel.c.j2 --context "$out/$k.json" | cmp -s - "$out/$k.c"; then
    pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL dump-ctx-roundtrip $k"; fi
done
# <k>.c embeds exactly the program `tilegen asm` makes of <k>.s.
for spec in specs/*.yaml; do
  k=$(basename "$spec" .yaml)
  if "$T" asm "$out/$k.s" -o "$out/$k.bin" &&
     ${PYTHON:-/usr/bin/python3} -c "
import re, sys
src = open('$out/$k.c').read()
body = re.search(r'${k}_program\[(\d+)\] = \{(.*?)\};', src, re.S)
data = bytes(int(x, 16) for x in re.findall(r'0x([0-9a-f]{2})', body.group(2)))
sys.exit(0 if int(body.group(1)) == len(data) and data == open('$out/$k.bin', 'rb').read() else 1)"; then
    pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL embedded-program $k"; fi
done
rm -rf "$out"
echo "$pass passed, $fail failed"
