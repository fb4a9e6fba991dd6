"""test_ops_ref.py — cross-check of runtime/tg_ops against numpy through ctypes
on a shared build of the runtime's numerics (tg_ops, tg_alu, tg_math,
tg_dtype). Usage: test_ops_ref.py LIBTGOPS.so. Prints "N passed, M failed".

Tolerances (fp32 results vs a float64 numpy reference):
  matmul K=1024, |x| < 1: each fp32 product and add rounds once, so the error
    is below K·2^-24·Σ|products| ≈ 6e-5·Σ|p|; we assert 1e-4·Σ|p| elementwise.
  sum of n ≤ 4096 values in [-1, 1): |err| ≤ n·2^-24·Σ|x|; assert 2.5e-4·Σ|x|.
  bn_stats/bn_aggr mean and variance: relative 1e-4 (see test_ops.c).
  cumsum via tensor_tensor_scan: same bound as the sum, per prefix.
  max, transpose, partition max: exact.
"""
import ctypes as C
import sys

import numpy as np

lib = C.CDLL(sys.argv[1])
fp = C.POINTER(C.c_float)
lib.tg_matmul_f32.argtypes = [fp, C.c_ssize_t, fp, C.c_ssize_t, fp, C.c_ssize_t,
                              C.c_int, C.c_int, C.c_int, C.c_int]
lib.tg_transpose_f32.argtypes = [fp, C.c_ssize_t, fp, C.c_ssize_t, C.c_int, C.c_int]
lib.tg_bn_stats_f32.argtypes = [fp, fp, C.c_size_t]
lib.tg_bn_aggr_f32.argtypes = [fp, fp, C.c_size_t]
lib.tg_partition_reduce_f32.argtypes = [fp, fp, C.c_ssize_t, C.c_int, C.c_size_t, C.c_int]
# Out-of-line wrappers of the inline row helpers (tests/numerics only).
lib.tg_ops_test_reduce.argtypes = [fp, C.c_size_t, C.c_int, C.c_int]
lib.tg_ops_test_reduce.restype = C.c_float
lib.tg_ops_test_scan.argtypes = [fp, fp, fp, C.c_size_t, C.c_float, C.c_int, C.c_int]

ADD, MULTIPLY, MAXIMUM = 0, 2, 4  # tg_alu_op order (SPEC.md §2)

rng = np.random.default_rng(7)
passed = failed = 0


def ptr(a):
    return a.ctypes.data_as(fp)


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name} {detail}")


def f32(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


# matmul: dst[M,N] = stat[K,M]^T · mov[K,N]
for K, M, N in [(1024, 128, 512), (128, 128, 512), (77, 13, 300)]:
    st, mv = f32((K, M)), f32((K, N))
    dst = np.zeros((M, N), np.float32)
    lib.tg_matmul_f32(ptr(dst), N, ptr(st), M, ptr(mv), N, K, M, N, 0)
    ref = st.T.astype(np.float64) @ mv.astype(np.float64)
    bound = 1e-4 * (np.abs(st.T.astype(np.float64)) @ np.abs(mv.astype(np.float64)))
    err = np.abs(dst - ref)
    check(f"matmul {K}x{M}x{N}", np.all(err <= bound), f"max err {err.max():.3g}")
    # accumulate: twice the product
    lib.tg_matmul_f32(ptr(dst), N, ptr(st), M, ptr(mv), N, K, M, N, 1)
    check(f"matmul accumulate {K}x{M}x{N}", np.all(np.abs(dst - 2 * ref) <= 2 * bound))

# transpose: exact bits
src = f32((128, 96))
dst = np.zeros((96, 128), np.float32)
lib.tg_transpose_f32(ptr(dst), 128, ptr(src), 96, 128, 96)
check("transpose", np.array_equal(dst.view(np.uint32), src.T.view(np.uint32)))

# reductions
for n in [1, 7, 512, 4096]:
    x = f32(n)
    s = lib.tg_ops_test_reduce(ptr(x), n, ADD, 0)
    ref = np.sum(x.astype(np.float64))
    check(f"reduce add n={n}", abs(s - ref) <= 2.5e-4 * np.sum(np.abs(x)) + 1e-30)
    check(f"reduce max negate n={n}", lib.tg_ops_test_reduce(ptr(x), n, MAXIMUM, 1) == -np.max(x))

# cumsum via scan: r = (1·r) + x
for n in [5, 1000]:
    ones, x = np.ones(n, np.float32), f32(n)
    out = np.zeros(n, np.float32)
    lib.tg_ops_test_scan(ptr(out), ptr(ones), ptr(x), n, 0.0, MULTIPLY, ADD)
    ref = np.cumsum(x.astype(np.float64))
    bound = 2.5e-4 * np.cumsum(np.abs(x.astype(np.float64)))
    check(f"scan cumsum n={n}", np.all(np.abs(out - ref) <= bound))

# bn_stats per 512 chunk + bn_aggr vs np.mean / np.var (population)
for n, c in [(512, 0.0), (1000, 5.0), (4096, -30.0), (3, 1.0)]:
    x = (c + f32(n)).astype(np.float32)
    chunks = [x[i:i + 512] for i in range(0, n, 512)]
    rec = np.zeros(6 * len(chunks), np.float32)
    for i, ch in enumerate(chunks):
        r = np.zeros(6, np.float32)
        lib.tg_bn_stats_f32(ptr(r), ptr(np.ascontiguousarray(ch)), len(ch))
        rec[6 * i:6 * i + 6] = r
        ev, od = ch[0::2].astype(np.float64), ch[1::2].astype(np.float64)
        check(f"bn_stats counts n={len(ch)}", r[0] == len(ev) and r[3] == len(od))
        check(f"bn_stats even mean/M2 n={len(ch)}",
              abs(r[1] - ev.mean()) <= 1e-5 * (abs(ev.mean()) + 1)
              and abs(r[2] - ((ev - ev.mean()) ** 2).sum()) <= 1e-4 * ((ev - ev.mean()) ** 2).sum())
    out = np.zeros(2, np.float32)
    lib.tg_bn_aggr_f32(ptr(out), ptr(rec), rec.size)
    xd = x.astype(np.float64)
    check(f"bn_aggr n={n}", abs(out[0] - xd.mean()) <= 1e-4 * (abs(xd.mean()) + 1)
          and abs(out[1] - xd.var()) <= 1e-4 * xd.var())

# partition_reduce over 128 partitions
src = f32((128, 64))
dst = np.zeros(64, np.float32)
lib.tg_partition_reduce_f32(ptr(dst), ptr(src), 64, 128, 64, MAXIMUM)
check("partition_reduce max", np.array_equal(dst, src.max(axis=0)))
lib.tg_partition_reduce_f32(ptr(dst), ptr(src), 64, 128, 64, ADD)
ref = src.astype(np.float64).sum(axis=0)
check("partition_reduce add", np.all(np.abs(dst - ref) <= 2.5e-4 * np.abs(src).sum(axis=0)))

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
