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
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
expect help 0 "$T" --help
expect help-short 0 "$T" -h
expect version 0 "$T" --version
expect version-short 0 "$T" -V
expect no-args 2 "$T"
expect unknown-cmd 2 "$T" frobnicate
if "$T" --version | grep -qE '^tilegen [0-9]+\.[0-9]+\.[0-9]+$'; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL version-format"; fi
# GNU style: a second line (the build), the same for -V
[ "$("$T" --version | wc -l)" -eq 2 ] && "$T" --version | sed -n 2p | grep -q '^program format [0-9]*\.[0-9]*; targets trn1 and trn2; built with ' &&
  [ "$("$T" -V)" = "$("$T" --version)" ] && ok || ko "version second line: $("$T" --version)"
# every command: --help, -h and `tilegen help CMD` print its usage on stdout, exit 0
for c in check gen run profile asm disasm tpl; do
  out=$("$T" "$c" --help 2>&1); rc=$?
  [ "$rc" -eq 0 ] && printf '%s\n' "$out" | head -1 | grep -q "^usage: tilegen $c " &&
    [ "$("$T" "$c" -h)" = "$out" ] && [ "$("$T" help "$c")" = "$out" ] && ok || ko "$c --help (exit $rc)"
done
# one error prefix; the help hint names the command; did you mean ... for
# commands and options (getopt_long: unique abbreviations work)
err() { "$@" >/dev/null 2>"$tmp.err"; echo $?; }
tmp=$(mktemp)
[ "$(err "$T" genn specs/softmax.yaml)" = 2 ] && [ "$(cat "$tmp.err")" = "tilegen: error: unknown command 'genn'; did you mean 'gen'?
Try 'tilegen --help' for more information." ] && ok || ko "did you mean (command): $(cat "$tmp.err")"
[ "$(err "$T" gen --ouput x specs/softmax.yaml)" = 2 ] && [ "$(cat "$tmp.err")" = "tilegen: error: unknown option '--ouput'; did you mean '--output'?
Try 'tilegen gen --help' for more information." ] && ok || ko "did you mean (option): $(cat "$tmp.err")"
[ "$(err "$T" run specs/softmax.yaml --bugdet 5)" = 2 ] && grep -q "did you mean '--budget'" "$tmp.err" && ok || ko "did you mean --budget"
[ "$(err "$T" profile specs/softmax.yaml --jsno x)" = 2 ] && grep -q "did you mean '--json'" "$tmp.err" && ok || ko "did you mean --json"
[ "$(err "$T" --verison)" = 2 ] && grep -q "did you mean '--version'" "$tmp.err" && ok || ko "did you mean --version"
[ "$(err "$T" gen -MF x specs/softmax.yaml)" = 2 ] && grep -q "^tilegen: error: unknown option '-MF'; did you mean '-MD'?" "$tmp.err" && ok || ko "-MF"
[ "$(err "$T" gen --report=x specs/softmax.yaml)" = 2 ] && grep -q "^tilegen: error: option '--report' takes no argument" "$tmp.err" && ok || ko "--report=x"
[ "$(err "$T" gen -o)" = 2 ] && grep -q "^tilegen: error: option '-o' needs an argument" "$tmp.err" && ok || ko "-o without argument"
[ "$(err "$T" check --target)" = 2 ] && grep -q "^tilegen: error: option '--target' needs an argument" "$tmp.err" && ok || ko "--target without argument"
[ "$(err "$T" check --tar trn2 specs/softmax.yaml)" = 0 ] && ok || ko "--tar abbreviates --target"
[ "$(err "$T" check -x specs/softmax.yaml)" = 2 ] && grep -q "^tilegen: error: unknown option '-x'" "$tmp.err" && ok || ko "check -x"
# usage and I/O errors of every command carry the prefix
for a in "check" "gen" "run" "profile" "asm" "disasm" "tpl" "run specs/softmax.yaml --budget 0" \
         "check -D N=x specs/softmax.yaml" "gen --dump=bogus specs/softmax.yaml" "asm /no/such.s -o x" \
         "disasm /no/such.bin" "check /no/such.yaml" "run specs/softmax.yaml specs/matmul.yaml"; do
  # shellcheck disable=SC2086
  rc=$(err "$T" $a)
  [ "$rc" = 2 ] && head -1 "$tmp.err" | grep -q '^tilegen: error: ' && ok || ko "prefix of 'tilegen $a' (exit $rc): $(head -1 "$tmp.err")"
done
# gen -o creates the directory (mkdir -p)
d=$(mktemp -d)
"$T" gen -o "$d/a/b/c" specs/softmax.yaml && [ -f "$d/a/b/c/softmax.h" ] && ok || ko "gen -o creates the directory"
# templates not found: the error names where it looked
[ "$(TILEGEN_TEMPLATES=$d/none err "$T" gen -o "$d" specs/softmax.yaml)" = 2 ] &&
  grep -q "^tilegen: error: templates not found (kernel.c.j2); looked in \$TILEGEN_TEMPLATES=$d/none" "$tmp.err" &&
  ok || ko "templates not found names TILEGEN_TEMPLATES: $(cat "$tmp.err")"
cp "$T" "$d/tilegen"
spec=$(pwd)/specs/softmax.yaml
(cd "$d" && ./tilegen run "$spec" >/dev/null 2>"$tmp.err"); rc=$?
[ "$rc" = 2 ] && grep -q "^tilegen: error: templates not found (kernel.c.j2); looked in ./templates, ./../templates, " "$tmp.err" &&
  grep -q "set TILEGEN_TEMPLATES" "$tmp.err" && ok || ko "a copied binary names where it looked (exit $rc): $(cat "$tmp.err")"
rm -rf "$d"
# --budget: the default is the program's own work, exactly enough; a smaller
# one stops with TG_ELIMIT and says how to raise it; none lifts it
[ "$(err "$T" run specs/softmax.yaml --budget 1)" = 2 ] &&
  grep -q "^tilegen: error: the budget of 1 instructions and loop iterations ran out after 1 (a complete run takes up to [0-9]*); raise it with 'tilegen run --budget N' or lift it with '--budget none'" "$tmp.err" &&
  ok || ko "run --budget 1: $(cat "$tmp.err")"
work=$(sed -n 's/.*takes up to \([0-9]*\)).*/\1/p' "$tmp.err")
[ "$(err "$T" run specs/softmax.yaml --budget "$work")" = 0 ] && [ "$(err "$T" run specs/softmax.yaml --budget $((work - 1)))" = 2 ] &&
  grep -q "budget of $((work - 1)) " "$tmp.err" && [ "$(err "$T" run specs/softmax.yaml)" = 0 ] &&
  [ "$(err "$T" run specs/softmax.yaml --budget none)" = 0 ] && ok || ko "run: the default budget is the program's work ($work)"
[ "$(err "$T" profile specs/softmax.yaml --budget 1)" = 2 ] && grep -q "raise it with 'tilegen profile --budget N'" "$tmp.err" &&
  [ "$(err "$T" profile specs/softmax.yaml --budget "$work")" = 0 ] && [ "$(err "$T" profile specs/softmax.yaml --budget none)" = 0 ] &&
  ok || ko "profile --budget: $(cat "$tmp.err")"
for b in 0 -1 x 1e3 ""; do
  [ "$(err "$T" run specs/softmax.yaml --budget "$b")" = 2 ] && grep -q "^tilegen: error: --budget wants a positive count" "$tmp.err" &&
    ok || ko "run --budget '$b': $(cat "$tmp.err")"
done
# the man page: groff reads it without a warning; it names every command and
# every option the commands' --help name
man=$(dirname "$0")/../../docs/tilegen.1
if command -v groff >/dev/null 2>&1; then
  groff -man -ww -z "$man" 2>"$tmp.err" && [ ! -s "$tmp.err" ] && ok || ko "groff -man -ww: $(cat "$tmp.err")"
  groff -man -Tascii -P-cbou "$man" 2>/dev/null | grep -q '^OUTPUT FILES' && ok || ko "man page renders"
else echo "groff not installed: man page lint skipped"; fi
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man -l "$man" >/dev/null 2>"$tmp.err" && ok || ko "man -l: $(cat "$tmp.err")"
fi
plain=$(sed 's/\\-/-/g; s/\\f[BIR]//g' "$man")
nopts=0
for c in check gen run profile asm disasm tpl help; do
  printf '%s\n' "$plain" | grep -q "^\.SS .*$c\|^\.B tilegen $c" && ok || ko "man page: command $c"
  for o in $("$T" "$c" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u) $("$T" "$c" --help 2>/dev/null | grep -o -- ' -[A-Z][A-Z]*\b\| -[a-zA-Z]\b' | sort -u); do
    nopts=$((nopts+1))
    printf '%s\n' "$plain" | grep -q -- "$o" || ko "man page: $c option $o"
  done
done
[ "$nopts" -ge 40 ] && ok || ko "man page: only $nopts options of the commands' --help checked"
rm -f "$tmp" "$tmp.err"
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
if [ "$rc" -eq 2 ] && grep -q "^tilegen: error: cannot read 'tests/no-such-spec.yaml': " "$out.err"; then
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
