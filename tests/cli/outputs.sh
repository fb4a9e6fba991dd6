#!/bin/sh
# Every command's outputs are transactional (docs/tilegen.1, FILES): a full
# disk (simulated by a file size limit, `ulimit -f`, which works as root and
# without), a failing second output, a planted link at the destination,
# duplicate kernels, an empty -o, a spec with errors among several: each
# leaves the previous files intact and no temporary behind. Depfiles escape
# what make needs escaped; gen --stamp lets make settle; a loop of kills
# mid-gen (tests/cli/kill_gen.py) leaves whole sets only.
# Env: TILEGEN, PYTHON, BUILD. Ends "N passed, M failed".
T=${TILEGEN:-bin/tilegen}
PY=${PYTHON:-/usr/bin/python3}
BUILD=${BUILD:-build}
case $T in /*) ;; *) T=$(pwd)/$T ;; esac
root=$(pwd)
pass=0; fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
mkdir -p "$BUILD/cli-outputs" || exit 2
w=$(cd "$BUILD/cli-outputs" && pwd)
rm -rf "$w"/*
# only NAMES... (and nothing hidden, e.g. a temporary) in directory $1
only() { d=$1; shift; [ "$(ls -A "$d" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ]; }
# in a subshell: no file may grow past 4 KiB (sh counts 512-byte blocks)
small() { (ulimit -f 8 && "$@"); }

# --- a full disk --------------------------------------------------------------
d=$w/full; mkdir -p "$d"
"$T" gen -o "$d" specs/softmax.yaml && cp "$d/softmax.c" "$d/keep.c" || ko "full: setup"
small "$T" gen -D N=256 -o "$d" specs/softmax.yaml 2>"$w/err"; rc=$?
if [ "$rc" -eq 2 ] && grep -q "^tilegen: error: cannot write '$d/softmax.c': File too large" "$w/err" &&
   cmp -s "$d/keep.c" "$d/softmax.c" && ! grep -q 'v_i < 2;' "$d/softmax.c" && only "$d" keep.c softmax.c softmax.h softmax.s
then ok; else ko "gen under a full disk (exit $rc): $(cat "$w/err") / $(ls -A "$d")"; fi
# asm: attention's program is over 4 KiB
"$T" gen -o "$d" specs/attention.yaml && "$T" asm "$d/attention.s" -o "$d/a.bin" && cp "$d/a.bin" "$d/a.keep" &&
  [ "$(wc -c <"$d/a.bin")" -gt 4096 ] || ko "full: asm setup"
printf 'old' >"$d/a.bin"
small "$T" asm "$d/attention.s" -o "$d/a.bin" 2>"$w/err"; rc=$?
if [ "$rc" -eq 2 ] && [ "$(cat "$d/a.bin")" = old ] && ! ls -A "$d" | grep -q '\.tmp$'; then ok
else ko "asm under a full disk (exit $rc): $(cat "$w/err")"; fi
printf 'old' >"$d/a.s"
small "$T" disasm "$d/a.keep" -o "$d/a.s" 2>"$w/err"; rc=$?
if [ "$rc" -eq 2 ] && [ "$(cat "$d/a.s")" = old ] && ! ls -A "$d" | grep -q '\.tmp$'; then ok
else ko "disasm under a full disk (exit $rc): $(cat "$w/err")"; fi
printf 'old' >"$d/y.npy"
small "$T" run specs/softmax.yaml --out y=$d/y.npy >/dev/null 2>"$w/err"; rc=$?
if [ "$rc" -eq 2 ] && [ "$(cat "$d/y.npy")" = old ] && ! ls -A "$d" | grep -q '\.tmp$'; then ok
else ko "run --out under a full disk (exit $rc): $(cat "$w/err")"; fi
printf 'old' >"$d/t.svg"
small "$T" profile specs/attention.yaml --svg "$d/t.svg" >/dev/null 2>"$w/err"; rc=$?
if [ "$rc" -eq 2 ] && [ "$(cat "$d/t.svg")" = old ] && ! ls -A "$d" | grep -q '\.tmp$'; then ok
else ko "profile --svg under a full disk (exit $rc): $(cat "$w/err")"; fi

# --- several outputs: all or none -----------------------------------------------
d=$w/multi; mkdir -p "$d"
printf 'old c' >"$d/c.npy"
"$T" run specs/tensor_add.yaml --out c="$d/c.npy" --out a="$d/no/such/dir/a.npy" >/dev/null 2>"$w/err"; rc=$?
if [ "$rc" -eq 2 ] && [ "$(cat "$d/c.npy")" = "old c" ] && only "$d" c.npy && grep -q "no/such/dir/a.npy" "$w/err"
then ok; else ko "run: a failing second --out (exit $rc): $(cat "$w/err") / $(ls -A "$d")"; fi
"$T" run specs/tensor_add.yaml --out c="$d/c.npy" --out a="$d/a.npy" >/dev/null &&
  $PY -c "import numpy as n; a = n.load('$d/a.npy'); c = n.load('$d/c.npy'); assert a.shape == c.shape" &&
  only "$d" a.npy c.npy && ok || ko "run: two --out written"
"$T" run specs/tensor_add.yaml --out c="$d/x.npy" --out c="$d/x.npy" >/dev/null 2>"$w/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "named twice" "$w/err" && only "$d" a.npy c.npy && ok || ko "run: one file named twice (exit $rc)"
printf 'old' >"$d/p.json"
"$T" profile specs/softmax.yaml --json "$d/p.json" --svg "$d/no/dir/p.svg" >/dev/null 2>"$w/err"; rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$d/p.json")" = old ] && only "$d" a.npy c.npy p.json && ok ||
  ko "profile: a failing second view (exit $rc): $(cat "$w/err")"

# --- gen: a run's set, whole or not at all ---------------------------------------
d=$w/gen; mkdir -p "$d"
"$T" gen -o "$d" specs/softmax.yaml || ko "gen: setup"
cp "$d/softmax.c" "$w/softmax.c.keep"
"$T" gen -D N=256 -o "$d" specs/softmax.yaml tests/diag/086-five-mistakes.yaml 2>/dev/null; rc=$?
[ "$rc" -eq 1 ] && cmp -s "$w/softmax.c.keep" "$d/softmax.c" && only "$d" softmax.c softmax.h softmax.s && ok ||
  ko "gen: a spec with errors among several writes none (exit $rc)"
cp specs/softmax.yaml "$w/other.yaml"
"$T" gen -o "$d/dup" specs/softmax.yaml "$w/other.yaml" 2>"$w/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "^tilegen: error: 'specs/softmax.yaml' and '$w/other.yaml' both define kernel 'softmax'" "$w/err" &&
  [ ! -e "$d/dup" ] && ok || ko "gen: duplicate kernels (exit $rc): $(cat "$w/err")"
"$T" gen -o "" specs/softmax.yaml 2>"$w/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "^tilegen: error: -o wants a directory, got an empty name" "$w/err" && [ ! -e /softmax.h ] &&
  ok || ko "gen -o '' (exit $rc)"
"$T" asm "$d/softmax.s" -o "" 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] && ok || ko "asm -o '' (exit $rc)"
# a link planted at the destination is replaced, its target untouched
printf 'precious' >"$w/victim"
rm -f "$d/softmax.h"; ln -s "$w/victim" "$d/softmax.h"
"$T" gen -o "$d" specs/softmax.yaml && [ "$(cat "$w/victim")" = precious ] && [ -f "$d/softmax.h" ] &&
  [ ! -L "$d/softmax.h" ] && ok || ko "gen: a link at the destination is replaced, not followed"
ln -s "$w/victim" "$d/x.bin"
"$T" asm "$d/softmax.s" -o "$d/x.bin" && [ "$(cat "$w/victim")" = precious ] && [ ! -L "$d/x.bin" ] &&
  ok || ko "asm: a link at the destination is replaced, not followed"
# a device is written directly (and stdout)
"$T" asm "$d/softmax.s" -o /dev/null && "$T" disasm "$d/x.bin" -o - | grep -q '^\.kernel softmax' && ok ||
  ko "asm -o /dev/null, disasm -o -"

# --- depfiles: spaces, '$' and '#' escaped as make reads them ---------------------------
d="$w/o u\$t#d"; mkdir -p "$w/s p\$c#"
cp specs/softmax.yaml "$w/s p\$c#/softmax.yaml"
(cd "$w" && "$T" gen -MD -o "o u\$t#d" "s p\$c#/softmax.yaml" && TILEGEN_TEMPLATES="$root/templates" true) || ko "depfile: gen"
# dep.mk: the depfile and a recipe for its first target (make -q then tells)
( cd "$w" && cp "o u\$t#d/softmax.d" dep.mk && printf 'o\\ u$$t\\#d/softmax.h: ; @echo remake\n' >>dep.mk &&
  make -s -q -f dep.mk ) && ok ||
  ko "depfile with special characters: make sees the outputs up to date ($(head -1 "$d/softmax.d"))"
touch "$w/s p\$c#/softmax.yaml"
( cd "$w" && make -s -q -f dep.mk ); rc=$?
[ "$rc" -eq 1 ] && ok || ko "depfile with special characters: a touched spec is out of date (make -q: $rc)"

# --- make settles with gen --stamp; unchanged outputs keep their time -----------------
m=$w/make; mkdir -p "$m/specs"
cp specs/softmax.yaml "$m/specs/"
cat >"$m/Makefile" <<EOF
all: st/softmax.stamp out.o
st/%.stamp: specs/%.yaml
	@echo gen >>log; TILEGEN_TEMPLATES=$root/templates $T gen -MD --stamp \$@ -o gen \$<
gen/%.c gen/%.h: st/%.stamp ;
out.o: gen/softmax.c gen/softmax.h
	@echo cc >>log; cat gen/softmax.c >\$@
-include gen/*.d
EOF
(cd "$m" && make -s && make -s -q); rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$m/log" | tr '\n' ' ')" = "gen cc " ] && ok || ko "make: first build settles (make -q: $rc, log: $(cat "$m/log"))"
(cd "$m" && make -s) && [ "$(cat "$m/log" | tr '\n' ' ')" = "gen cc " ] && ok || ko "make: nothing reruns"
# a lost witness: gen reruns and writes nothing new; the witness takes the
# newest input's time, so even out.o (built from gen/softmax.c) stays settled
rm "$m/st/softmax.stamp"
(cd "$m" && make -s && make -s -q); rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$m/log" | tr '\n' ' ')" = "gen cc gen " ] && ok ||
  ko "make: a lost witness is remade, nothing else (make -q: $rc, log: $(cat "$m/log"))"
touch -d '2000-01-01' "$m/gen/softmax.c"; cp "$m/gen/softmax.c" "$m/keep.c"; touch -r "$m/gen/softmax.c" "$m/keep.c"
touch "$m/specs/softmax.yaml"
(cd "$m" && make -s && make -s -q st/softmax.stamp); rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$m/log" | tr '\n' ' ')" = "gen cc gen gen " ] && [ ! "$m/gen/softmax.c" -nt "$m/keep.c" ] &&
  ok || ko "make: a touched spec reruns gen once, unchanged outputs keep their time (make -q: $rc, log: $(cat "$m/log"))"
(cd "$m" && make -s) && [ "$(cat "$m/log" | tr '\n' ' ')" = "gen cc gen gen " ] && ok || ko "make: settled after the rerun"

# --- kills mid-gen ------------------------------------------------------------------
"$PY" tests/cli/kill_gen.py "$T" "$w/kill" 150 >"$w/kill.log" 2>&1; rc=$?
tail -2 "$w/kill.log" | head -1
[ "$rc" -eq 0 ] && ok || { ko "kills mid-gen"; grep FAIL "$w/kill.log" | head -5; }

echo "$pass passed, $fail failed"
