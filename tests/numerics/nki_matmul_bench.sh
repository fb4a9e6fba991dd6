#!/bin/sh
# nki_matmul_bench.sh - `make bench`: the NKI matmul tutorial's benchmark,
# bf16 lhsT[8192, 4096]^T . rhs[8192, 8192] -> fp32 (550 GFLOP), through
# bench/specs/matmul_nki.yaml -D M=4096 K=8192 N=8192 (its default size is
# checked exactly against numpy by gen-cli). Times the C simulation
# (run_kernel.c, best of BENCH_N runs, default 2), numpy doing the same math
# (bf16 decode + fp32 matmul, np_time.py) and OpenBLAS sgemm alone on the same
# shapes, all on one thread, and the machine's peak fp32 rate (limits.c).
# Env: TILEGEN, PYTHON, CC, BUILD, BENCH_N; M K N to change the size.
TILEGEN=${TILEGEN:-bin/tilegen}
PYTHON=${PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
BUILD=${BUILD:-build}
BENCH_N=${BENCH_N:-2}; [ "$BENCH_N" -ge 2 ] || BENCH_N=2 # run_kernel.c times from 2 runs on
M=${M:-4096} K=${K:-8192} N=${N:-8192}
here=$(dirname "$0")
root=$here/../..
work=$BUILD/bench-nki-matmul
SPECS=$root/bench/specs
. "$here/harness.sh"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
rm -rf "$work"; mkdir -p "$work/gen" || exit 2
build_rt tg_core tg_dtype tg_math tg_alu tg_ops host/tg_npy
fail() { echo "nki-matmul: $*"; echo "0 passed, 1 failed"; exit 1; }
"$TILEGEN" gen -D M=$M -D K=$K -D N=$N -o "$work/gen" "$SPECS/matmul_nki.yaml" >"$work/gen.log" 2>&1 || fail "tilegen gen failed"
build_harness matmul_nki "$work" run_kernel.c run || fail "harness build failed (log: $work/gen.log)"
$CC -std=c11 -O2 -march=native -ffp-contract=fast "$here/limits.c" -o "$work/limits" || fail "cannot build limits.c"
"$PYTHON" - "$work" $M $K $N <<'PY' || fail "cannot write inputs"
import sys
import numpy as np
d, m, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
r = np.random.default_rng(0)
for name, shape in (("lhsT", (k, m)), ("rhs", (k, n))):
    u = r.uniform(-1, 1, shape).astype(np.float32).view(np.uint32)
    np.save("%s/%s.npy" % (d, name), ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16))
PY
c=$("$work/run" "$work" "$BENCH_N" | sed -n 's/^time_ms //p')
[ -n "$c" ] || fail "kernel run failed"
n=$("$PYTHON" "$here/np_time.py" matmul_nki "$work" "$BENCH_N")
s=$("$PYTHON" "$here/np_time.py" --sgemm matmul_nki "$work" "$BENCH_N")
peak=$("$work/limits" flops)
awk -v c="$c" -v n="$n" -v s="$s" -v peak="$peak" -v m=$M -v k=$K -v nn=$N 'BEGIN {
  gf = 2 * m * k * nn / 1e9
  printf "NKI matmul bf16 %dx%d @ %dx%d (%.1f GFLOP), one thread, best of '"$BENCH_N"':\n", m, k, k, nn, gf
  printf "  C simulation %9.1f ms  %6.1f GFLOP/s  %5.1f%% of peak (%.1f GFLOP/s, limits.c)\n", c, gf / (c / 1e3), 100 * gf / (c / 1e3) / peak, peak
  printf "  numpy        %9.1f ms  (bf16 decode + fp32 matmul)  numpy/C %.2f\n", n, n / c
  printf "  sgemm        %9.1f ms  %6.1f GFLOP/s (OpenBLAS, same shapes)  C at %.1f%% of sgemm\n", s, gf / (s / 1e3), 100 * s / c
}'
echo "1 passed, 0 failed"
