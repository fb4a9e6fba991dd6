#!/bin/sh
# run.sh - `make bench-probes`: each probe kernel of bench/probes/ (README.md) against
# numpy doing the same math (np_probes.py), both on one thread. Per probe: `tilegen
# gen`, the harness build of tests/numerics/run_kernel.c (harness.sh: its flags, gcc
# -O2), seeded inputs (np_probes.py inputs), the C simulation's best of BENCH_N runs
# (run_kernel.c's time_ms), numpy's best of BENCH_N (np_probes.py run), and the C
# outputs, from a run of their own, checked against numpy's. A probe passes when it
# builds, runs and its outputs match. Prints a row per probe, the median and the least
# numpy/C of the passing ones, and "N passed, M failed"; scratch and logs in
# $BUILD/bench-probes/<probe>.
# Env: TILEGEN, PYTHON, CC, BUILD; BENCH_N (runs, default 5); PROBES (names of
# bench/probes/*.yaml without .yaml, default all); BENCH_SIMD (1 or 2: every SIMD body
# of the C simulation at most that level, run_kernel.c's TG_HARNESS_SIMD; with numpy held
# to AVX2 too, NPY_DISABLE_CPU_FEATURES="AVX512F AVX512CD AVX512_SKX AVX512_CLX
# AVX512_CNL AVX512_ICL" and OPENBLAS_CORETYPE=Haswell, an AVX-512 machine imitates an
# AVX2 one).
TILEGEN=${TILEGEN:-bin/tilegen}
PYTHON=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
BUILD=${BUILD:-build}
BENCH_N=${BENCH_N:-5}; [ "$BENCH_N" -ge 2 ] || BENCH_N=2 # run_kernel.c times from 2 runs on
probes=$(dirname "$0")
root=$probes/../..
here=$root/tests/numerics # harness.sh: build_harness takes run_kernel.c from there
work=$BUILD/bench-probes
. "$here/harness.sh"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 # one thread, like the C simulation
mkdir -p "$work" || exit 2
build_rt tg_core tg_dtype tg_math tg_alu tg_ops host/tg_npy
[ -n "$BENCH_SIMD" ] && HOSTFLAGS="$HOSTFLAGS -DTG_HARNESS_SIMD=$BENCH_SIMD" # the harness only
[ -n "$PROBES" ] || PROBES=$(for f in "$probes"/*.yaml; do basename "$f" .yaml; done)

# bench_probe P: probe P built, timed and checked in $work/P. Sets ok (1/0), why,
# c and n (ms of the C simulation and of numpy, when they ran).
bench_probe() {
  d=$work/$1; spec=$probes/$1.yaml; ok=0; c=; n=
  rm -rf "$d"; mkdir -p "$d/gen" || exit 2
  [ -f "$spec" ] || { why="no $spec"; return; }
  why="tilegen gen failed"
  "$TILEGEN" gen -o "$d/gen" "$spec" >"$d/gen.log" 2>&1 || return
  "$TILEGEN" gen --dump=ctx "$spec" >"$d/ctx.json" 2>>"$d/gen.log" || return # tensors for np_probes.py
  k=$(basename "$d"/gen/*.h .h) # the spec's kernel name (not always the file's)
  why="harness build failed"
  build_harness "$k" "$d" run_kernel.c run || return
  why="np_probes.py inputs failed"
  "$PYTHON" "$probes/np_probes.py" inputs "$1" "$d" >>"$d/gen.log" 2>&1 || return
  # timed first: runs after the first reuse the core, so the outputs checked are
  # those of a run of their own (run_kernel.c)
  why="kernel run failed"
  c=$("$d/run" "$d" "$BENCH_N" 2>>"$d/gen.log" | sed -n 's/^time_ms //p')
  [ -n "$c" ] && "$d/run" "$d" >>"$d/gen.log" 2>&1 || return
  "$PYTHON" "$probes/np_probes.py" run "$1" "$d" "$BENCH_N" >"$d/numpy.log" 2>&1
  rc=$?
  n=$(sed -n 's/^numpy_ms //p' "$d/numpy.log")
  case $rc in
    0) ok=1 ;;
    1) why="outputs differ from numpy" ;;
    *) why="np_probes.py run failed" ;;
  esac
}

pass=0; fail=0
rm -f "$work/ratios"
echo "bench-probes: C simulation vs numpy, one thread, best of $BENCH_N (ms)"
printf '%-26s %9s %9s %8s  %s\n' probe "C ms" "numpy ms" numpy/C check
for p in $PROBES; do
  bench_probe "$p"
  r=$(awk -v c="$c" -v n="$n" 'BEGIN { if (c > 0 && n > 0) printf "%.2f", n / c }')
  [ $ok = 1 ] && [ -n "$r" ] && echo "$r" >>"$work/ratios" # of probes whose math was right
  printf '%-26s %9s %9s %8s  %s\n' "$p" "${c:--}" "${n:--}" "${r:--}" "$([ $ok = 1 ] && echo ok || echo FAIL)"
  if [ $ok = 1 ]; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "    $why (logs: $d)"
    if [ -f "$d/numpy.log" ]; then grep '^FAIL' "$d/numpy.log" || tail -5 "$d/numpy.log"; else tail -5 "$d/gen.log" 2>/dev/null; fi |
      sed 's/^/    /'
  fi
done
[ -s "$work/ratios" ] && sort -n "$work/ratios" | awk '{ v[NR] = $1 } END {
  m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "numpy/C: median %.2f, least %.2f (of %d passing probes)\n", m, v[1], NR }'
echo "$pass passed, $fail failed"
[ $fail = 0 ]
