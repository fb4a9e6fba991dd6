#!/bin/sh
# The `run` suite: `tilegen run` on every bundled spec with inputs written by
# numpy (refs.py's seeded inputs, SPEC.md §3 storage), its .npy outputs read
# back by numpy and compared with the reference (refs.py compare); then the
# ways a wrong .npy or argument is refused (exit 2, a message naming it).
T=${TILEGEN:-bin/tilegen}
PY=${PYTHON:-/usr/bin/python3}
refs=tests/numerics/refs.py
w=${BUILD:-build}/run-suite
rm -rf "$w"; mkdir -p "$w" || exit 2
pass=0; fail=0
ok() { pass=$((pass+1)); }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
for spec in specs/*.yaml; do
  k=$(basename "$spec" .yaml); d=$w/$k; mkdir -p "$d"
  "$PY" $refs inputs "$k" --seed 5 --dir "$d" >/dev/null 2>&1 || { ko "$k: refs.py inputs"; continue; }
  ins=$(for f in "$d"/*.npy; do n=$(basename "$f" .npy); printf -- '--in %s=%s ' "$n" "$f"; done)
  outs=$("$PY" - "$k" "$d" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location("refs", "tests/numerics/refs.py")
refs = importlib.util.module_from_spec(spec); spec.loader.exec_module(refs)
k, d = sys.argv[1], sys.argv[2]
print(" ".join(f"--out {n}={d}/{n}.npy" for n, _, _ in refs.tensors(k, "outputs")))
PY
) || { ko "$k: output names"; continue; }
  # shellcheck disable=SC2086
  if "$T" run "$spec" $ins $outs >"$d/run.log" 2>&1 && "$PY" $refs compare "$k" --dir "$d" >"$d/cmp.log" 2>&1; then
    ok
  else
    ko "$k: tilegen run vs numpy"; sed 's/^/    /' "$d/run.log" "$d/cmp.log" | head -20
  fi
done
# refused inputs
d=$w/bad; mkdir -p "$d"
"$PY" -c "
import numpy as np
np.save('$d/f64.npy', np.zeros((1024, 512)))
np.save('$d/shape.npy', np.zeros((512, 512), np.float32))
np.save('$d/fortran.npy', np.asfortranarray(np.zeros((1024, 512), np.float32)))
np.save('$d/big.npy', np.zeros((1024, 512), '>f4'))
"
for case in "f64:dtype" "shape:shape" "fortran:fortran" "big:endian"; do
  f=${case%%:*}; word=${case#*:}
  "$T" run specs/softmax.yaml --in x="$d/$f.npy" >/dev/null 2>"$d/$f.err"; rc=$?
  if [ $rc -eq 2 ] && grep -q "$word" "$d/$f.err" && grep -q "$f.npy" "$d/$f.err"; then ok; else ko "refuse $f.npy (exit $rc): $(cat "$d/$f.err")"; fi
done
"$T" run specs/softmax.yaml --in nosuch=x.npy >/dev/null 2>&1; [ $? -eq 2 ] && ok || ko "unknown --in name"
"$T" run specs/softmax.yaml --in y="$d/shape.npy" >/dev/null 2>&1; [ $? -eq 2 ] && ok || ko "--in of an output"
"$T" run specs/softmax.yaml --seed -1 >/dev/null 2>&1; [ $? -eq 2 ] && ok || ko "bad --seed"
"$T" run tests/diag/086-five-mistakes.yaml >/dev/null 2>&1; [ $? -eq 1 ] && ok || ko "spec errors exit 1"
# same seed, same outputs
"$T" run specs/softmax.yaml --seed 9 --out y="$d/y1.npy" >/dev/null && "$T" run specs/softmax.yaml --seed 9 --out y="$d/y2.npy" >/dev/null &&
  cmp -s "$d/y1.npy" "$d/y2.npy" && ok || ko "seeded run not reproducible"
# no --in: index inputs drawn in range (run_index.c), so every bundled kernel runs
for spec in specs/*.yaml; do
  "$T" run "$spec" >"$d/noin.log" 2>&1 && ok || ko "$spec without --in: $(tail -1 "$d/noin.log")"
done
"$T" run specs/cross_entropy.yaml >"$d/ce.log" 2>&1 && grep -q "^  targets: index values drawn in \[0, 1000)$" "$d/ce.log" &&
  ok || ko "cross_entropy targets not drawn in [0, 1000): $(head -3 "$d/ce.log")"
"$T" run tests/cli/run_index.yaml >"$d/ri.log" 2>&1 && grep -q "^  a: index values drawn in \[0, 3)$" "$d/ri.log" &&
  grep -q "^  b: index values drawn in \[0, 16)$" "$d/ri.log" &&
  grep -q "^  b: an index out of range; index values drawn again in \[0, 4)$" "$d/ri.log" &&
  ok || ko "run_index.yaml: $(cat "$d/ri.log")"
# given by --in, an index is not redrawn: out of range stays an error (exit 2)
"$PY" -c "import numpy as np; np.save('$d/a.npy', np.full((128, 1), 3, np.int32))"
"$T" run tests/cli/run_index.yaml --in a="$d/a.npy" >"$d/ria.log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "ISS error" "$d/ria.log" && ok || ko "an --in index out of range: exit $rc"
echo "$pass passed, $fail failed"
