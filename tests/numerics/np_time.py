#!/usr/bin/python3
"""np_time.py [--sgemm] KERNEL DIR [RUNS]: best-of-RUNS (default 5) wall time (ms) of
the kernel's math in numpy, fp32 (bf16 decoded from / encoded to the same uint16 bits inside the
timed call), on DIR's inputs; matmul through numpy's BLAS. A rough yardstick for the generated C
simulation (tests/numerics/check.sh). A kernel with no entry in MATH but an fp32 emulation in
refs.py (the NKI library ports, tests/numerics/ports/) is timed as that emulation, its inputs
decoded from their storage format inside the timed call. With --sgemm: only the kernel's matrix products, on fp32
operands prepared outside the timed call, i.e. the BLAS sgemm calls on the same shapes ("n/a" for a
kernel without products). Run it with OPENBLAS_NUM_THREADS=1 for a one-thread comparison."""
import os
import sys
import time

import numpy as np


def dec(a):
    """bf16 bits -> fp32."""
    return (a.astype(np.uint32) << 16).view(np.float32)


def enc(x):
    """fp32 -> bf16 bits, round to nearest even (NaN not special-cased)."""
    s = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    return ((s + 0x7FFF + ((s >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_add(a, b):
    return enc(dec(a) + dec(b))


def rmsnorm(x, g):
    ms = (x * x).sum(axis=1, keepdims=True) / np.float32(x.shape[1]) + np.float32(1e-6)
    return x * (1.0 / np.sqrt(ms)) * g


def layernorm(x, gamma, beta):
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return (x - mean) * (1.0 / np.sqrt(var + np.float32(1e-5))) * gamma + beta


def avgpool(x):
    return (x[:, 0::2, 0::2] + x[:, 0::2, 1::2] + x[:, 1::2, 0::2] + x[:, 1::2, 1::2]) / np.float32(4)


def rope(x, c, s):
    v = dec(x)
    h = v.shape[-1] // 2
    x1, x2 = v[..., :h], v[..., h:]
    return enc(np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1))


def mlp(x, wg, wu, wd):
    xx = dec(x)
    hg, hu = xx @ dec(wg), xx @ dec(wu)
    g = enc(hg / (1.0 + np.exp(-hg)) * hu)
    return enc(dec(g) @ dec(wd))


def attention(q, k, v):
    s = q.shape[0]
    sc = (dec(q) @ dec(k).T) * np.float32(0.08838834764831845)
    sc = np.where(np.tri(s, dtype=bool), sc, np.float32(-np.inf))
    pb = dec(enc(np.exp(sc - sc.max(axis=1, keepdims=True))))
    return enc((pb @ dec(v)) / pb.sum(axis=1, keepdims=True))


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e * (1.0 / e.sum(axis=1, keepdims=True))


MATH = {
    "tensor_add": (("a", "b"), lambda a, b: a + b),
    "tensor_add_bf16": (("a", "b"), bf16_add),
    "softmax": (("x",), softmax),
    "transpose2d": (("x",), lambda x: np.ascontiguousarray(x.transpose(0, 2, 1))),
    "matmul": (("lhsT", "rhs"), lambda a, b: dec(a).T @ dec(b)),
    "rmsnorm": (("x", "g"), rmsnorm),
    "layernorm": (("x", "gamma", "beta"), layernorm),
    "avgpool2d": (("x",), avgpool),
    "cumsum": (("x",), lambda x: np.cumsum(x, axis=1, dtype=np.float32)),
    "rope": (("x", "cos", "sin"), rope),
    "mlp": (("x", "wg", "wu", "wd"), mlp),
    "attention": (("q", "k", "v"), attention),
}


def _products_attention(q, k, v):
    s = q.shape[0]
    qf, kf, vf = dec(q), dec(k), dec(v)
    p = np.ones((s, s), dtype=np.float32)
    return [(qf, np.ascontiguousarray(kf.T)), (p, vf)]


def _products_mlp(x, wg, wu, wd):
    xf, gf, uf, df = dec(x), dec(wg), dec(wu), dec(wd)
    return [(xf, gf), (xf, uf), (np.ones((xf.shape[0], gf.shape[1]), dtype=np.float32), df)]


# The fp32 matrix products of each kernel's math (operands as numpy's BLAS takes them).
PRODUCTS = {
    "matmul": lambda a, b: [(np.ascontiguousarray(dec(a).T), dec(b))],
    "matmul_nki": lambda a, b: [(np.ascontiguousarray(dec(a).T), dec(b))],
    "mlp": _products_mlp,
    "attention": _products_attention,
}
MATH["matmul_nki"] = MATH["matmul"]


def _port(kernel):
    """(input names, timed function) of a kernel's fp32 emulation in refs.py, or None."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("refs", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                       "refs.py"))
    refs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(refs)
    rec = refs.KERNELS.get(kernel)
    if rec is None or rec.get("emulate") is None:
        return None
    ins = refs.tensors(kernel, "inputs")

    def run(*arrays):
        x = {n: refs.from_storage(a, dt) for (n, dt, _), a in zip(ins, arrays)}
        return rec["emulate"](rec["params"], x)
    return tuple(n for n, _, _ in ins), run


def _sgemm(prods):
    for a, b in prods:
        a @ b


def main():
    argv = sys.argv[1:]
    sgemm = bool(argv) and argv[0] == "--sgemm"
    if sgemm:
        argv = argv[1:]
    kernel, d = argv[0], argv[1]
    runs = int(argv[2]) if len(argv) > 2 else 5
    if not sgemm and kernel not in MATH:
        port = _port(kernel)
        if port is not None:
            MATH[kernel] = port
    if kernel not in (PRODUCTS if sgemm else MATH):
        print("n/a")
        return
    names, fn = MATH[kernel]
    args = [np.load(os.path.join(d, n + ".npy")) for n in names]
    if sgemm:
        args, fn = [PRODUCTS[kernel](*args)], _sgemm
    # untimed calls first, as bench/probes/np_probes.py warm_up (numpy's
    # first calls with large outputs pay the allocator settling: page faults)
    for _ in range(5):
        t0 = time.perf_counter()
        fn(*args)
        if time.perf_counter() - t0 > 1.0:
            break
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(*args)
        dt = (time.perf_counter() - t0) * 1e3
        best = dt if best is None or dt < best else best
    print("%.3f" % best)


if __name__ == "__main__":
    main()
