#!/usr/bin/python3
"""np_probes.py - the numpy side of the probe kernels in bench/probes/ (README.md).

For every probe <name>.yaml a function <name>(**inputs) doing the same math in numpy,
one thread, the way a numpy user would write it: inputs arrive in their .npy storage
format (SPEC.md §3: bf16/fp16 as uint16 bits, fp8 as uint8 bits) and are decoded inside
the function, outputs are encoded back to storage inside it, so the timed call pays for
the dtype conversions as the C simulation does (tests/numerics/np_time.py does the same).
Each output carries the tolerance its C output must meet against numpy's (exact where
both sides make the same fp32 roundings), with its derivation next to it.

A probe's tensors (names, dtypes, shapes) come from `tilegen gen --dump=ctx` of its
spec, saved as DIR/ctx.json by run.sh, so no YAML parser is needed.

    np_probes.py list                     the probes this module covers
    np_probes.py inputs PROBE DIR [SEED]  write DIR/<input>.npy (seeded, deterministic)
    np_probes.py run PROBE DIR [RUNS]     time numpy best of RUNS (default 5), print
                                          "numpy_ms T", then check DIR/<output>.npy (the
                                          C outputs) against numpy's: one line per
                                          output; exit 0 all pass, 1 a mismatch, 2 error
"""
import json
import os
import sys
import time
import traceback
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "numerics"))
from np_time import dec as bf16_dec  # noqa: E402
from np_time import enc as bf16_enc  # noqa: E402
from reflib import TINY, U32, from_storage, to_storage  # noqa: E402


# --- storage codecs used inside the timed calls --------------------------------
# bf16 comes from np_time.py (bit shifts); fp16 is numpy's own float16 (its casts
# round to nearest even, as the runtime's). fpformat.encode is exact for every
# format but takes ~0.5 s for 2 M elements, which would time the encoder rather than
# the math; fp8_e4m3_enc is the bit-trick encoder a numpy user would write, and the
# exact check of r04 compares its output with the C simulation's bit for bit.

def f16_dec(a):
    return a.view(np.float16).astype(np.float32)


def f16_enc(x):
    return x.astype(np.float16).view(np.uint16)


def fp8_e4m3_enc(x):
    """fp32 -> float8_e4m3 bits (bias 7, IEEE-style: 240 max, >= 248 -> inf), round to
    nearest even; no NaN inputs."""
    u = x.view(np.uint32)
    mag = u & np.uint32(0x7FFFFFFF)
    # normal range: round the fp32 bits to 3 mantissa bits, then re-bias 127 -> 7
    # (a carry out of the mantissa lands in the exponent, as it should)
    normal = ((mag + np.uint32(0x7FFFF) + ((mag >> 20) & 1)) >> 20).astype(np.int32) - ((127 - 7) << 3)
    # below 2^-6 the quantum is 2^-9: rint counts quanta (8 of them is the first normal)
    sub = np.rint(np.abs(x) * np.float32(512)).astype(np.int32)
    bits = np.where(mag < np.uint32(0x3C800000), sub, np.minimum(normal, 0x78))
    return (bits | ((u >> 24) & 0x80).astype(np.int32)).astype(np.uint8)


# --- tolerances -------------------------------------------------------------------

class Tol:
    """What an output of the C simulation must meet against numpy's: bit equality
    (EXACT), or |c - numpy| <= bound(x, ref) + ulps * spacing(ref), with x the probe's
    inputs as fp64 and ref numpy's output as fp64, spacing the distance between
    adjacent values of the output's dtype at ref (one rounding of a value both sides
    computed slightly differently in fp32 can land on either neighbour)."""

    def __init__(self, ulps=0, bound=None, why=""):
        self.ulps, self.bound, self.why = ulps, bound, why

    @property
    def exact(self):
        return self.ulps == 0 and self.bound is None


EXACT = Tol()

# mantissa bits and least normal exponent of each float dtype, for spacing()
_FLOAT_FORMATS = {"float32": (23, -126), "bfloat16": (7, -126), "float16": (10, -14),
                  "float8_e4m3": (3, -6), "float8_e5m2": (2, -14)}


def spacing(v, dtype):
    """Distance between adjacent `dtype` values at |v| (the upper one at a power of two)."""
    mbits, emin = _FLOAT_FORMATS[dtype]
    _, e = np.frexp(np.abs(v))              # |v| = f * 2^e, f in [0.5, 1)
    return np.ldexp(1.0, np.maximum(e - 1, emin) - mbits)


def rel(k):
    """bound: k fp32 unit roundoffs of |ref| (k derived per probe)."""
    return lambda x, ref: k * U32 * np.abs(ref)


# numpy's SIMD float32 exp is within 2.52 ulp of the true value (the bound numpy 1.17's
# release notes give for its AVX2/AVX-512F exp; 2.45 seen over 25 M inputs here), the
# runtime's within 1 (docs/numerics.md): two fp32 results at most 3.52 ulp apart.
EXP_ULPS = 4


def matmul_bound(a, b):
    """|C - numpy| of the fp32-accumulated product a @ b over K = a's last dim: the C
    simulation sums in increasing k (gamma_K * sum|a||b|; products of <= 16-bit values
    are exact, fp32 ones rounded once), BLAS in its own blocked order, with or without
    FMA (also within gamma_K): together (2K + 2) u * (|a| @ |b|)."""
    k = a.shape[-1]
    return (2 * k + 2) * U32 * np.matmul(np.abs(a), np.abs(b))


def row_sum_bound(x):
    """|C - numpy| of fp32 row sums: the C simulation folds left to right (gamma_D),
    numpy sums pairwise (within gamma_D too): (2D + 2) u * sum|x|."""
    d = x.shape[1]
    return (2 * d + 2) * U32 * np.abs(x).sum(axis=1, keepdims=True)


def layernorm_bound(x, gamma, beta):
    """|C - numpy| of a layernorm before its bf16 rounding. refs.py's layernorm bound
    (C against the exact value: mean off by gamma_D mean|x|, bn_stats/bn_aggr's variance
    and rsqrt by ~gamma_D relative, propagated to y) is (2D + 64) u * mag; numpy's
    two-pass fp32 mean and variance are within the same, hence twice it."""
    d = x.shape[1]
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    mag = np.abs(gamma) * (np.abs(x - mean) * rstd + np.abs(x).mean(axis=1, keepdims=True) * rstd) + np.abs(beta)
    return 2 * (2 * d + 64) * U32 * mag


# a layernorm's bf16 output (inputs x, gamma, beta)
LAYERNORM_TOL = Tol(ulps=1, bound=lambda x, ref: layernorm_bound(x["x"], x["gamma"], x["beta"]),
                    why="mean and variance in another order")


def matmul_tol(a, b, a_transposed=False):
    """The fp32 output of inputs a @ b (a^T @ b with a_transposed)."""
    def bound(x, ref):
        return matmul_bound(x[a].T if a_transposed else x[a], x[b])
    return Tol(bound=bound, why="fp32 sums in another order")


def gelu_tanh_bound(x, ref):
    """numpy's x / (1 + exp(-2u)), u = c (x + 0.044715 x^3), in fp32: u carries ~7
    roundings (constants included; all its terms have x's sign), so exp's argument -2u
    is off by up to 14|u| u, a relative error of exp as large; exp adds 2.52 ulp, the
    add and the divide a rounding each; the runtime is within 1 ulp: (16|u| + 12) u."""
    u = 0.7978845608028654 * (x + 0.044715 * x ** 3)
    return (16 * np.abs(u) + 12) * U32 * np.abs(ref)


def gelu_erf_bound(x, ref):
    """numpy's x * Phi(x) by Numerical Recipes' erfc (fractional error < 1.2e-7, ~2 u):
    its exp argument -z^2 - 1.27 + t*poly(t), z^2 = x^2/2, is evaluated in fp32 with a
    few roundings of its own size (~8u * (x^2/2 + 2) absolute, i.e. relative in exp),
    the products add 3u; the runtime is within 1 ulp: (4x^2 + 32) u * |ref|."""
    return (4 * x * x + 32) * U32 * np.abs(ref)


# --- the probes -------------------------------------------------------------------

PROBES = {}


def probe(tols, make=None):
    """Register a probe: tols {output: Tol}; make(shapes, rng) -> {input: values} for the
    inputs that need more than standard normal floats (integer inputs always do)."""
    def reg(fn):
        PROBES[fn.__name__] = (fn, tols, make)
        return fn
    return reg


def _layernorm_inputs(shapes, r):
    # rows with their own offset and scale (refs.py's layernorm inputs): the mean
    # subtraction and the variance both matter
    n, d = shapes["x"]
    x = r.uniform(-1, 1, (n, 1)) + r.uniform(0.5, 2, (n, 1)) * r.standard_normal((n, d))
    return {"x": x, "gamma": r.uniform(0.5, 1.5, (1, d)), "beta": 0.5 * r.standard_normal((1, d))}


def _ids_inputs(shapes, r):
    # token ids anywhere in the table (a gather's index is one row of `table`)
    return {"ids": r.integers(0, shapes["table"][0], shapes["ids"])}


@probe({"c": matmul_tol("a", "b")})
def p1a_mm_dmaT(a, b):
    return {"c": bf16_dec(a) @ bf16_dec(b)}


@probe({"c": matmul_tol("a", "b")})
def p1b_mm_peT(a, b):
    # the Tensor-engine transpose of A moves bf16 values through fp32 PSUM: exact
    return {"c": bf16_dec(a) @ bf16_dec(b)}


@probe({"y": EXACT})
def p2_pe_transpose(x):
    return {"y": np.ascontiguousarray(x.T)}


@probe({"out": EXACT})
def p3_fma_mixed(a, b):
    # fp16 x bf16 has 19 significant bits: exact in fp32; the add rounds once in
    # fp32, then once to bf16, on both sides
    af = f16_dec(a)
    return {"out": bf16_enc(af * bf16_dec(b) + af)}


def _erfc(z):
    """erfc for z >= 0 in fp32 (Numerical Recipes' erfcc: fractional error < 1.2e-7):
    numpy has no erf, and 1 - erf would lose GELU's negative tail."""
    t = np.float32(1) / (np.float32(1) + np.float32(0.5) * z)
    poly = np.float32(0.17087277)
    for c in (-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
              1.00002368, -1.26551223):
        poly = poly * t + np.float32(c)
    return t * np.exp(-z * z + poly)


@probe({"y": Tol(ulps=1, bound=lambda x, ref: gelu_erf_bound(x["x"], ref), why="erf by a polynomial")})
def p4_gelu(x):
    # gelu(x) = x * Phi(x) = x * erfc(-x / sqrt 2) / 2, the tail of erfc kept relative
    v = bf16_dec(x)
    w = v * np.float32(-0.7071067811865476)
    e = _erfc(np.abs(w))
    phi = np.float32(0.5) * np.where(w >= 0, e, np.float32(2) - e)
    return {"y": bf16_enc(v * phi)}


def _gelu_tanh(v):
    # 0.5 x (1 + tanh(u)) = x * sigmoid(2u), written so that the negative tail does not
    # cancel (1 + tanh(u) is 0 in fp32 below u ~ -9, where the result is ~1e-8 x)
    u = np.float32(0.7978845608028654) * (v + np.float32(0.044715) * (v * v * v))
    return v / (np.float32(1) + np.exp(np.float32(-2) * u))


@probe({"y": Tol(ulps=1, bound=lambda x, ref: gelu_tanh_bound(x["x"], ref), why="fp32 tanh form")})
def p4b_gelu_tanh(x):
    return {"y": bf16_enc(_gelu_tanh(bf16_dec(x)))}


@probe({"rmax": EXACT, "rsum": Tol(bound=lambda x, ref: row_sum_bound(x["x"]), why="pairwise vs left fold")})
def p5_rowstats(x):
    return {"rmax": x.max(axis=1, keepdims=True), "rsum": x.sum(axis=1, keepdims=True)}


@probe({"y": EXACT})
def p6_cumsum(x):
    # the scan is r = 1 * r + x (1 * r exact), numpy's fp32 cumsum the same left fold
    return {"y": np.cumsum(x, axis=1, dtype=np.float32)}


@probe({"y": Tol(ulps=EXP_ULPS + 1, why="numpy's exp, then one multiply")})
def p7_exp_rowscale(x, s):
    return {"y": np.exp(x) * s}


def _layernorm_bf16(x, gamma, beta, gamma_first):
    """bf16 layernorm, eps 1e-5, fp32 in between: (x - mean) * rstd * gamma + beta, or
    with gamma_first ((x - mean) * gamma) * rstd + beta (each spec's own order)."""
    v = bf16_dec(x)
    xc = v - v.mean(axis=1, keepdims=True)
    rstd = np.float32(1) / np.sqrt(v.var(axis=1, keepdims=True) + np.float32(1e-5))
    y = xc * gamma * rstd if gamma_first else xc * rstd * gamma
    return {"y": bf16_enc(y + beta)}


@probe({"y": LAYERNORM_TOL}, make=_layernorm_inputs)
def p8_layernorm_bf16(x, gamma, beta):
    return _layernorm_bf16(x, gamma, beta, gamma_first=False)


def _softmax_inputs(shapes, r):
    # logit-like rows with their own offsets (refs.py's softmax inputs)
    n, d = shapes["x"]
    return {"x": 3.0 * r.standard_normal((n, d)) + r.uniform(-20, 20, (n, 1))}


@probe({"y": Tol(ulps=1, bound=lambda x, ref: (2 * x["x"].shape[1] + 16) * U32 * np.abs(ref),
                 why="exp and the row sum")}, make=_softmax_inputs)
def q01_softmax_bf16(x):
    # exp within 3.52 ulp of each other (7u), the row sum gamma_D each side, the
    # reciprocal and the product one rounding each: (2D + 16) u before the bf16 rounding
    v = bf16_dec(x)
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return {"y": bf16_enc(e * (np.float32(1) / e.sum(axis=1, keepdims=True)))}


def _rmsnorm_inputs(shapes, r):
    n, d = shapes["x"]
    return {"x": r.standard_normal((n, d)) * r.uniform(0.5, 4, (n, 1)), "w": r.uniform(0.5, 1.5, (1, d))}


@probe({"y": Tol(ulps=1, bound=lambda x, ref: (x["x"].shape[1] + 16) * U32 * np.abs(ref),
                 why="the sum of squares in another order")}, make=_rmsnorm_inputs)
def q02_rmsnorm_bf16(x, w):
    # sum of D squares gamma_D each side (2D u), mean and eps 2u each side; rsqrt
    # halves that and adds 1 ulp (numpy's 1/sqrt 2 roundings); two products: (D + 16) u
    v = bf16_dec(x)
    ms = (v * v).mean(axis=1, keepdims=True) + np.float32(1e-6)
    return {"y": bf16_enc(v * (np.float32(1) / np.sqrt(ms)) * bf16_dec(w))}


@probe({"y": EXACT})
def q03_bcast_affine(x, w, b):
    return {"y": x * w + b}


def _topk(x, k):
    # the k largest per row (argpartition), ordered descending; equal values keep
    # index order (nc_find_index8 pairs the k copies of a value with its first k
    # occurrences), hence indices sorted first and a stable sort by value
    top = np.sort(np.argpartition(x, -k, axis=1)[:, -k:], axis=1)
    vals = np.take_along_axis(x, top, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return {"vals": np.take_along_axis(vals, order, axis=1),
            "idx": np.take_along_axis(top, order, axis=1).astype(np.uint32)}


@probe({"vals": EXACT, "idx": EXACT})
def q04_top8(x):
    return _topk(x, 8)


@probe({"out": EXACT}, make=_ids_inputs)
def q05_embed_gather(table, ids):
    return {"out": table[ids] * np.float32(16)}


@probe({"out": Tol(ulps=1, bound=rel(16), why="numpy's exp in silu")})
def q06_swiglu_bf16(x, y):
    # silu = x / (1 + exp(-x)): exp 2.52 ulp, the add and the divide one rounding each,
    # the runtime 1 ulp, the product one rounding each side: within 16 u
    v = bf16_dec(x)
    return {"out": bf16_enc(v / (np.float32(1) + np.exp(-v)) * bf16_dec(y))}


@probe({"c": matmul_tol("aT", "b", a_transposed=True)})
def q07_mm_m128(aT, b):
    return {"c": bf16_dec(aT).T @ bf16_dec(b)}


@probe({"out": EXACT})
def q08_store_transpose(x):
    return {"out": np.ascontiguousarray(x.T)}


def _int_mask_inputs(shapes, r):
    # int32 values around the spec's THR (1000), so that the mask has both values;
    # their sums are exact in fp32 as the engines compute
    return {n: r.integers(-2000, 2001, shapes[n]) for n in ("a", "b")}


@probe({"s": EXACT, "mask": EXACT}, make=_int_mask_inputs)
def q09_int_mask(a, b):
    s = a + b
    return {"s": s, "mask": (s > 1000).astype(np.uint8)}  # 1000: the spec's THR


@probe({"y": EXACT})
def q10_ts_chain_f16(x, s, t):
    return {"y": f16_dec(x) * s + t}


@probe({"y": LAYERNORM_TOL}, make=_layernorm_inputs)
def r01_layernorm_bf16_d1000(x, gamma, beta):
    return _layernorm_bf16(x, gamma, beta, gamma_first=True)


def _rope_inputs(shapes, r):
    # cos/sin of the usual rotary angles (position times 10000^(-2j/D))
    s, h = shapes["cos"]
    ang = np.arange(s)[:, None] * 10000.0 ** (-np.arange(h) / h)[None, :]
    return {"cos": np.cos(ang), "sin": np.sin(ang)}


@probe({"y": EXACT}, make=_rope_inputs)
def r02_rope_interleaved(q, cos, sin):
    # each product and the sum or difference rounded in fp32 on both sides
    v = bf16_dec(q)
    xe, xo = v[:, 0::2], v[:, 1::2]
    y = np.empty_like(v)
    y[:, 0::2] = xe * cos - xo * sin
    y[:, 1::2] = xe * sin + xo * cos
    return {"y": bf16_enc(y)}


@probe({"p": Tol(ulps=EXP_ULPS, why="numpy's exp")})
def r03_causal_mask_exp(s):
    n = s.shape[0]
    keep = np.arange(n)[:, None] >= np.arange(n)[None, :]
    return {"p": np.exp(np.where(keep, s, np.float32(-np.inf)))}


@probe({"q": EXACT, "scale": EXACT})
def r04_quant_fp8(x):
    # absmax and 240 / absmax exact alike; x * scale rounded once in fp32, then to fp8
    sc = np.float32(240) / np.abs(x).max(axis=1, keepdims=True)
    return {"q": fp8_e4m3_enc(x * sc), "scale": sc}


@probe({"y": Tol(ulps=1, bound=lambda x, ref: gelu_tanh_bound(x["x"], ref), why="fp32 tanh form")})
def r05_gelu_tanh_f32(x):
    return {"y": _gelu_tanh(x)}


@probe({"c": matmul_tol("a", "w")})
def r06_bmm_grid(a, w):
    return {"c": np.matmul(bf16_dec(a), bf16_dec(w))}


@probe({"out": EXACT})
def r07_sub_mul_3in(a, b, c):
    return {"out": (a - b) * c}


@probe({"y": EXACT})
def r08_meanpool4(x):
    # the spec's order: ((x0 + x1) + x2) + x3, then * 0.25
    g = x.reshape(x.shape[0], -1, 4)
    return {"y": (((g[:, :, 0] + g[:, :, 1]) + g[:, :, 2]) + g[:, :, 3]) * np.float32(0.25)}


@probe({"y": EXACT})
def r09_colsum_preduce(x):
    # partition_reduce folds partitions 0, 1, ... in fp32; numpy's sum over an axis
    # that is not the innermost adds whole rows into the result in order, the same fold
    return {"y": x.reshape(-1, 128, x.shape[1]).sum(axis=1)}


@probe({"y": EXACT})
def r10_cumsum_bf16(x):
    return {"y": bf16_enc(np.cumsum(bf16_dec(x), axis=1, dtype=np.float32))}


@probe({"y": EXACT})
def r11_cumsum_bf16_out(x):
    return {"y": bf16_enc(np.cumsum(bf16_dec(x), axis=1, dtype=np.float32))}


@probe({"y": EXACT})
def r12_cumsum_f16_out(x):
    # numpy's fp16 casts round to nearest even, as the runtime's (f16_enc)
    return {"y": f16_enc(np.cumsum(f16_dec(x), axis=1, dtype=np.float32))}


@probe({"y": matmul_tol("x", "w")})
def s01_linear(x, w):
    return {"y": x @ w}


@probe({"out": EXACT}, make=_ids_inputs)
def s02_embed_lookup(table, ids):
    return {"out": table[ids]}


@probe({"y": EXACT})
def s03_ragged_affine(x):
    return {"y": x * np.float32(2) + np.float32(1)}


@probe({"y": EXACT})
def s04_colsum_ones_mm(x):
    # the Tensor engine sums the products (x * 1, exact) in increasing k from +0 in
    # fp32; numpy's sum over an axis that is not the innermost adds whole rows into the
    # result in order, the same fold (standard normal inputs: no -0 rows)
    return {"y": bf16_dec(x).reshape(-1, 128, x.shape[1]).sum(axis=1, dtype=np.float32)}


def _bf16_tiles_bound(x, ref):
    """s05's y = w^T . x per 128-row tile: matmul_bound on each tile's product."""
    w, xs = x["w"], x["x"].reshape(-1, 128, x["x"].shape[1])
    return np.concatenate([matmul_bound(w.T, t) for t in xs])


@probe({"y": Tol(bound=_bf16_tiles_bound, why="fp32 sums in another order")})
def s05_rows4_mm(x, w):
    wf, xf = bf16_dec(w), bf16_dec(x).reshape(-1, 128, x.shape[1])
    return {"y": np.matmul(wf.T, xf).reshape(-1, x.shape[1])}


def _instnorm_inputs(shapes, r):
    # rows with their own offset and scale (as the layernorm probes'), per-channel
    # gamma/beta columns
    b, c, hw = shapes["x"]
    x = r.uniform(-1, 1, (b, c, 1)) + r.uniform(0.5, 2, (b, c, 1)) * r.standard_normal((b, c, hw))
    return {"x": x, "gamma": r.uniform(0.5, 1.5, (c, 1)), "beta": 0.5 * r.standard_normal((c, 1))}


def _instnorm_bound(x, ref):
    """t01's y = x * sc + (beta - mean * sc), sc = rstd * gamma: the mean and variance
    in another order (bn_stats/bn_aggr against numpy's two passes, each within
    gamma_D relative, as layernorm_bound), and x * sc and mean * sc rounded apart
    before they cancel: 2 (2D + 64) u * (|gamma| rstd (|x - mean| + |x| + mean|x|) + |beta|)."""
    v, g, b = x["x"], x["gamma"], x["beta"]
    d = v.shape[-1]
    mean = v.mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(v.var(axis=-1, keepdims=True) + 1e-5)
    mag = np.abs(g) * rstd * (np.abs(v - mean) + np.abs(v) + np.abs(v).mean(axis=-1, keepdims=True)) + np.abs(b)
    return 2 * (2 * d + 64) * U32 * mag


@probe({"y": Tol(ulps=1, bound=_instnorm_bound, why="mean and variance in another order")},
       make=_instnorm_inputs)
def t01_instnorm_bf16(x, gamma, beta):
    # eps 1e-5; the spec's folded scale and shift, fp32 in between
    v = bf16_dec(x)
    mean = v.mean(axis=-1, keepdims=True)
    rstd = np.float32(1) / np.sqrt(v.var(axis=-1, keepdims=True) + np.float32(1e-5))
    sc = rstd * gamma
    sh = beta - mean * sc
    return {"y": bf16_enc(v * sc + sh)}


@probe({"rmax": EXACT, "rsum": Tol(bound=lambda x, ref: row_sum_bound(x["x"]), why="pairwise vs chunked left folds")})
def t02_rowstats_2p(x):
    return {"rmax": x.max(axis=1, keepdims=True), "rsum": x.sum(axis=1, keepdims=True)}


@probe({"y": Tol(bound=lambda x, ref: (2 * x["x"].shape[1] + 16) * U32 * np.abs(ref),
                 why="exp and the row sum")}, make=_softmax_inputs)
def t03_softmax_f32_p64(x):
    # q01's bound without the bf16 step: exp within 7u of each other, the row sum
    # gamma_D each side, the divide one rounding each
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


@probe({"y": EXACT})
def t04_maxpool1d_s2(x):
    o = (x.shape[1] - 3) // 2 + 1
    return {"y": np.maximum(np.maximum(x[:, 0:2 * o - 1:2], x[:, 1:2 * o:2]), x[:, 2:2 * o + 1:2])}


def _ts_accum_msq_bound(x, ref):
    """t05's mean square sum(x^2 * 1/D): power(x, 2) is the runtime's pow (within 1
    ulp, docs/numerics.md), numpy's square exact, the scale one rounding each, then
    the row sums: (2D + 6) u * sum(x^2 / D)."""
    v = x["x"]
    d = v.shape[1]
    return (2 * d + 6) * U32 * (v * v / d).sum(axis=1, keepdims=True)


@probe({"mean": Tol(bound=lambda x, ref: (2 * x["x"].shape[1] + 4) * U32 * (np.abs(x["x"]) / x["x"].shape[1]).sum(axis=1, keepdims=True),
                    why="pairwise vs left fold"),
        "msq": Tol(bound=_ts_accum_msq_bound, why="pow and the row sum"),
        "amax": EXACT})
def t05_ts_accum_rows(x):
    inv = np.float32(1 / x.shape[1])
    return {"mean": (x * inv).sum(axis=1, keepdims=True),
            "msq": (x * x * inv).sum(axis=1, keepdims=True),
            "amax": np.abs(x).max(axis=1, keepdims=True)}


@probe({"xT": EXACT, "yb": EXACT})
def t06_pe_transpose_d64(x):
    n, d = x.shape
    return {"xT": np.ascontiguousarray(x.T),
            "yb": np.ascontiguousarray(x.reshape(n // d, d, d).transpose(0, 2, 1)).reshape(n, d)}


def _groups_mm_bound(x, ref):
    """t07's o[g] = pT[g]^T . v[g]: matmul_bound per group."""
    return np.stack([matmul_bound(p.T, v) for p, v in zip(x["pT"], x["v"])])


@probe({"o": Tol(bound=_groups_mm_bound, why="fp32 sums in another order")})
def t07_mm_k64_pages(pT, v):
    return {"o": np.matmul(bf16_dec(pT).transpose(0, 2, 1), bf16_dec(v))}


def _dequant_inputs(shapes, r):
    # uint8 codes, zero points near the middle of the range, small per-row scales
    n, d = shapes["wq"]
    return {"wq": r.integers(0, 256, (n, d)), "zp": r.integers(100, 157, (n, 1)),
            "scale": r.uniform(0.001, 0.02, (n, 1))}


@probe({"y": EXACT}, make=_dequant_inputs)
def t08_dequant_u8(wq, scale, zp):
    # wq - zp exact in fp32, the product rounded once, then to bf16, on both sides
    return {"y": bf16_enc((wq.astype(np.float32) - zp.astype(np.float32)) * scale)}


def _scores_inputs(shapes, r):
    # the softmax probes' logit-like rows, for an input named s
    n, d = shapes["s"]
    return {"s": 3.0 * r.standard_normal((n, d)) + r.uniform(-20, 20, (n, 1))}


@probe({"p": Tol(bound=lambda x, ref: (2 * 256 + 16) * U32 * np.abs(ref), why="exp and the row sum")},
       make=_scores_inputs)
def t09_swa_softmax(s):
    # at most W = 256 (the spec's) nonzero terms per row sum, the masked ones exact
    # zeros on both sides: t03's bound with W for D
    n = s.shape[0]
    q, k = np.arange(n)[:, None], np.arange(n)[None, :]
    m = np.where((q >= k) & (k > q - 256), s, np.float32(-np.inf))
    e = np.exp(m - m.max(axis=1, keepdims=True))
    return {"p": e * (np.float32(1) / e.sum(axis=1, keepdims=True))}


@probe({"csum": Tol(bound=lambda x, ref: (2 * x["x"].shape[0] + 2) * U32 * np.abs(x["x"]).sum(axis=0, keepdims=True),
                    why="per-tile sums then PSUM adds vs a row fold"),
        "cmax": EXACT})
def t10_colstats_f32(x):
    return {"csum": x.sum(axis=0, keepdims=True), "cmax": x.max(axis=0, keepdims=True)}


# --- inputs, timing and the check ---------------------------------------------------

def tensors(directory):
    """[(name, spec dtype, shape, is_output)] of the probe's HBM tensors (DIR/ctx.json,
    `tilegen gen --dump=ctx`), scratch left out."""
    with open(os.path.join(directory, "ctx.json"), encoding="utf-8") as f:
        ctx = json.load(f)
    return [(t["name"], t["spec_dtype"], tuple(t["dims"]), t["is_output"])
            for t in ctx["tensors"] if not t["is_scratch"]]


def write_inputs(name, directory, seed):
    """Seeded inputs in storage format: the probe's own for the inputs it names,
    standard normal floats for the rest; an integer input needs the probe's rule
    (indices must be in range)."""
    _, _, make = PROBES[name]
    ins = [(n, dt, sh) for n, dt, sh, out in tensors(directory) if not out]
    r = np.random.default_rng([seed, zlib.crc32(name.encode())])
    vals = make({n: sh for n, _, sh in ins}, r) if make else {}
    for n, dt, sh in ins:
        if n not in vals:
            if dt not in _FLOAT_FORMATS and dt != "tfloat32":
                raise ValueError("%s: integer input %s has no generator" % (name, n))
            vals[n] = r.standard_normal(sh)
        v = np.asarray(vals[n])
        if v.shape != sh:
            raise ValueError("%s: input %s has shape %s, want %s" % (name, n, v.shape, sh))
        np.save(os.path.join(directory, n + ".npy"), to_storage(v.astype(np.float32) if v.dtype.kind == "f" else v, dt))


# Untimed calls before numpy's timed ones, stopped early by a call this slow
# (ms). numpy's first calls with large outputs pay the allocator settling:
# glibc hands a freed mmapped chunk back and raises its mmap threshold, then
# grows its heap (page faults) until the heap holds them; u01's tanh of
# [1024, 1024] fp32 ran 9.2, 7.6, 7.2, 6.6, then 0.74, 0.55, 0.51 ms. The C
# side's storage stays allocated across its runs, so its best is the steady
# state; numpy's is timed in its steady state too.
WARM_CALLS, WARM_STOP_MS = 5, 1000.0


def warm_up(call):
    for _ in range(WARM_CALLS):
        t0 = time.perf_counter()
        call()
        if (time.perf_counter() - t0) * 1e3 > WARM_STOP_MS:
            break


def best_of(fn, args, runs):
    """Best wall time (ms) of runs calls after warm_up, and the outputs of the last."""
    best, out = None, None
    warm_up(lambda: fn(**args))
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn(**args)
        dt = (time.perf_counter() - t0) * 1e3
        best = dt if best is None or dt < best else best
    return best, out


def compare(dtype, shape, tol, got, want, x):
    """(ok, detail) of the C output `got` against numpy's `want` (both storage)."""
    if want.shape != shape or want.dtype != got.dtype:
        return False, "numpy gave %s %s, the kernel %s %s" % (want.dtype, want.shape, got.dtype, got.shape)
    if tol.exact:  # bit patterns (a float's NaN and -0 included)
        bits = np.dtype("u%d" % got.itemsize)
        bad = int(np.sum(got.view(bits) != want.view(bits)))
        return bad == 0, "exact, %d of %d differ" % (bad, got.size)
    g, w = from_storage(got, dtype), from_storage(want, dtype)
    allowed = tol.ulps * spacing(w, dtype) + (tol.bound(x, w) if tol.bound else 0.0)
    diff = np.where(g == w, 0.0, np.abs(g - w))   # equal infinities give inf - inf
    diff = np.where(np.isnan(diff), np.inf, diff)
    ratio = diff / np.maximum(allowed, TINY * TINY)  # 0 / 0 where nothing is allowed and nothing differs
    worst = float(ratio.max())
    return worst <= 1.0, "max |diff| %.3g, worst diff/tol %.3g (%s)" % (float(diff.max()), worst, tol.why)


def run(name, directory, runs):
    fn, tols, _ = PROBES[name]
    ts = tensors(directory)
    args = {n: np.load(os.path.join(directory, n + ".npy")) for n, _, _, out in ts if not out}
    ms, outs = best_of(fn, args, runs)
    print("numpy_ms %.3f" % ms)
    x = {n: from_storage(args[n], dt) for n, dt, _, out in ts if not out}  # for the bounds
    ok = True
    for n, dt, sh, out in ts:
        if not out:
            continue
        got = np.load(os.path.join(directory, n + ".npy"))
        good, detail = compare(dt, sh, tols[n], got, np.asarray(outs[n]), x)
        ok = ok and good
        print("%s %s: %s" % ("ok" if good else "FAIL", n, detail))
    return 0 if ok else 1


# --- the u series: one fp32 activation and nothing else ----------------------------
# numpy's float32 loops here are SIMD approximations; measured against the fp64
# function over 4 M inputs of these distributions (numpy 1.24.2, AVX-512F): tanh
# within 1.37 ulp, log 3.34, sin 1.42, exp 2.39, 1/sqrt (two roundings) 1.47. The
# runtime rounds an fp64 evaluation once (within 1 ulp, docs/numerics.md): 4 ulp
# apart at most for log (3.34 + 0.5 + margin), less for the others.
U_ULPS = 4


def _positive_inputs(shapes, r):
    # log and rsqrt: positive arguments over three decades
    return {"x": r.uniform(0.01, 10.0, shapes["x"])}


@probe({"y": Tol(ulps=U_ULPS, why="numpy's float32 tanh")})
def u01_tanh_f32(x):
    return {"y": np.tanh(x)}


@probe({"y": Tol(ulps=U_ULPS, why="numpy's float32 log")}, make=_positive_inputs)
def u02_log_f32(x):
    return {"y": np.log(x)}


@probe({"y": Tol(ulps=U_ULPS, why="numpy's float32 sin")})
def u03_sin_f32(x):
    return {"y": np.sin(x)}


@probe({"y": Tol(ulps=U_ULPS, why="numpy's sqrt and a division")}, make=_positive_inputs)
def u04_rsqrt_f32(x):
    return {"y": np.float32(1) / np.sqrt(x)}


@probe({"y": Tol(ulps=EXP_ULPS, why="numpy's float32 exp")})
def u05_exp_f32(x):
    return {"y": np.exp(x)}


@probe({"y": Tol(ulps=1, bound=lambda x, ref: gelu_erf_bound(x["x"], ref), why="erf by a polynomial")})
def u06_gelu_f32(x):
    w = x * np.float32(-0.7071067811865476)
    e = _erfc(np.abs(w))
    phi = np.float32(0.5) * np.where(w >= 0, e, np.float32(2) - e)
    return {"y": x * phi}


# numpy's float32 logaddexp(0, x): max(0, x) + log1p(exp(-|x|)), each in float32
@probe({"y": Tol(ulps=U_ULPS, why="numpy's float32 logaddexp")})
def u07_softplus_f32(x):
    return {"y": np.logaddexp(np.float32(0), x)}


# --- the v series: ops, dtypes and shapes the probes above do not cover -----------

def _labels_inputs(shapes, r):
    # class labels in [0, C): C is the spec's (1000)
    return {"label": r.integers(0, 1000, shapes["label"])}


@probe({"y": EXACT}, make=_labels_inputs)
def v01_onehot_smooth(label):
    # 0.9 + fp32(0.1 / C) and fp32(0.1 / C) alone, each rounded once in fp32 and once
    # to bf16 on both sides (the spec's 1.0 * 0.9 and 0.0 * 0.9 are exact)
    n, c = label.shape[0], 1000
    e = np.float32(0.1 / c)
    y = np.full((n, c), e, dtype=np.float32)
    y[np.arange(n), label] = np.float32(0.9) + e
    return {"y": bf16_enc(y)}


def _int4_inputs(shapes, r):
    # any byte (two codes 0..15), small per-row scales
    n, _ = shapes["wp"]
    return {"wp": r.integers(0, 256, shapes["wp"]), "scale": r.uniform(0.001, 0.02, (n, 1))}


@probe({"y": EXACT}, make=_int4_inputs)
def v02_int4_unpack(wp, scale):
    # code - 8 exact in fp32, the product rounded once, then to bf16, on both sides
    n, h = wp.shape
    y = np.empty((n, 2 * h), dtype=np.float32)
    y[:, 0::2] = ((wp & 15).astype(np.float32) - np.float32(8)) * scale
    y[:, 1::2] = ((wp >> 4).astype(np.float32) - np.float32(8)) * scale
    return {"y": bf16_enc(y)}


def _resid_rmsnorm_inputs(shapes, r):
    n, d = shapes["x"]
    return {"x": r.standard_normal((n, d)) * r.uniform(0.5, 4, (n, 1)),
            "res": r.standard_normal((n, d)), "w": r.uniform(0.5, 1.5, (d,))}


@probe({"h": EXACT,
        "y": Tol(ulps=1, bound=lambda x, ref: (x["x"].shape[1] + 16) * U32 * np.abs(ref),
                 why="the sum of squares in another order")}, make=_resid_rmsnorm_inputs)
def v03_resid_rmsnorm_bf16(x, res, w):
    # h: one fp32 add of two bf16 values, then bf16, alike. y: q02's bound, derived the
    # same way (the squares of bf16 h are exact in fp32, their sum gamma_D each side:
    # 2D u on the sum of positive terms; the scale by fp32(1/D) and eps 2u each side;
    # rsqrt halves that, the runtime's rsqrt is one rounding, numpy's 1/sqrt two; two
    # products): (D + 16) u, then one bf16 step
    h = bf16_enc(bf16_dec(x) + bf16_dec(res))
    hf = bf16_dec(h)
    ms = (hf * hf).sum(axis=1, keepdims=True) * np.float32(1 / hf.shape[1]) + np.float32(1e-6)
    return {"h": h, "y": bf16_enc(hf * (np.float32(1) / np.sqrt(ms)) * bf16_dec(w))}


# float8_e4m3 bits -> fp32, the whole format (a numpy user's decode: one table lookup)
F8_E4M3 = from_storage(np.arange(256, dtype=np.uint8), "float8_e4m3").astype(np.float32)


def _fp8_mm_inputs(shapes, r):
    # fp8-range activations and weights (to_storage rounds them to e4m3), scales of a
    # typical size
    m, k = shapes["xq"]
    n = shapes["wq"][1]
    return {"xq": 4 * r.standard_normal((m, k)), "wq": r.standard_normal((k, n)),
            "sx": r.uniform(0.01, 0.1, (m, 1)), "sw": r.uniform(0.01, 0.1, (1, n))}


def _fp8_mm_bound(x, ref):
    """v04's (xq @ wq) * sx * sw: the products of e4m3 values are exact in fp32, the
    sums in another order (matmul_bound); the two scalings then round slightly
    different values, one fp32 rounding each (2u |ref| each)."""
    return matmul_bound(x["xq"], x["wq"]) * np.abs(x["sx"]) * np.abs(x["sw"]) * (1 + 4 * U32) + 4 * U32 * np.abs(ref)


@probe({"out": Tol(ulps=1, bound=_fp8_mm_bound, why="fp32 sums in another order")}, make=_fp8_mm_inputs)
def v04_mm_fp8_scaled(xq, wq, sx, sw):
    return {"out": bf16_enc((F8_E4M3[xq] @ F8_E4M3[wq]) * sx * sw)}


@probe({"q": EXACT, "scale": EXACT})
def v05_mx_blockquant(x):
    # r04's math per 32-element block: absmax and 240 / absmax exact alike, x * scale
    # rounded once in fp32, then to fp8
    n, d = x.shape
    x3 = x.reshape(n, d // 32, 32)
    sc = np.float32(240) / np.abs(x3).max(axis=2)
    return {"q": fp8_e4m3_enc((x3 * sc[:, :, None]).reshape(n, d)), "scale": sc}


def _hash_ids_inputs(shapes, r):
    # ids in [0, 2^24): the engines widen int32 operands to fp32 (SPEC.md section 5,
    # docs/numerics.md "ALU operators"), exact below 2^24 only; above it the runtime's
    # bit ops see the id rounded to fp32 where NKI's see its raw bits (reported with
    # the v probes, bench/probes/README.md)
    return {"ids": r.integers(0, 2 ** 24, shapes["ids"])}


@probe({"out": EXACT}, make=_hash_ids_inputs)
def v06_hash_gather(table, ids):
    # integer bit ops exact; the bf16 row widened exactly, the product rounded once
    rows = (ids ^ (ids >> 7)) & (table.shape[0] - 1)
    return {"out": bf16_dec(table[rows]) * np.float32(22.627417)}


def _huber_bound(x, ref):
    """v07's row sums of l: the C simulation folds left to right, numpy pairwise, each
    within gamma_D of sum|l| (l recomputed in fp64 from the inputs): (2D + 2) u."""
    d = np.abs(x["p"] - x["t"])
    lf = np.where(d <= 1, 0.5 * d * d, d - 0.5)
    return (2 * lf.shape[1] + 2) * U32 * lf.sum(axis=1, keepdims=True)


@probe({"l": EXACT, "lsum": Tol(bound=_huber_bound, why="pairwise vs left fold")})
def v07_huber_select(p, t):
    # d, |d|, (0.5 d) d and |d| - 0.5 are the same fp32 roundings on both sides
    d = p - t
    ad = np.abs(d)
    loss = np.where(ad <= np.float32(1), np.float32(0.5) * d * d, ad - np.float32(0.5))
    return {"l": loss, "lsum": loss.sum(axis=1, keepdims=True)}


def _gpool_avg_bound(x, ref):
    """v08's mean over H*W fp16 values: the sum within gamma_HW of sum|x| each side
    ((2 HW + 2) u), scaled by fp32(1/HW) alike; that product of slightly different
    sums rounded once in fp32 each side: the one-ulp allowance."""
    v = x["x"]
    hw = v.shape[2] * v.shape[3]
    return (2 * hw + 2) * U32 * np.abs(v).reshape(v.shape[0], v.shape[1], -1).sum(axis=2, keepdims=True) / hw


@probe({"avg": Tol(ulps=1, bound=_gpool_avg_bound, why="pairwise vs left fold"), "mx": EXACT})
def v08_gpool_f16(x):
    # the max of fp16 values is exact in either format
    v = x.view(np.float16).reshape(x.shape[0], x.shape[1], -1)
    s = v.sum(axis=2, dtype=np.float32, keepdims=True)
    return {"avg": s * np.float32(1 / v.shape[2]), "mx": v.max(axis=2, keepdims=True).astype(np.float32)}


@probe({"y": EXACT})
def v09_maxout_grid_f16(x, s):
    # the max exact, the product by s rounded once in fp32, then to fp16, alike
    v = x.view(np.float16)
    m = np.maximum(v[:, :, 0::2], v[:, :, 1::2]).astype(np.float32)
    return {"y": f16_enc(m * s)}


@probe({"vals": EXACT, "idx": EXACT})
def v10_top16_replace(x):
    # q04's top-8 with k = 16 (distinct random values: no ties to order)
    return _topk(x, 16)


# --- the w series: NKI patterns the probes above do not cover ----------------------

@probe({"y": Tol(bound=lambda x, ref: (2 * 128 + 16) * U32 * np.abs(ref), why="exp and the column sum")})
def w01_colsoftmax_mm(x):
    # the column max is exact alike, and so is its broadcast (1 * m summed from +0)
    # and x - m; exp within 3.52 ulp of each other (7u); the ones matmul sums the 128
    # exps in increasing partition, numpy's sum over a non-innermost axis adds whole
    # rows in the same order, each within gamma_127 of its own exact sum (254u) of
    # terms 7u apart; the divide one rounding each side (2u): 270u <= (2*128 + 16) u
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return {"y": e / e.sum(axis=1, keepdims=True)}


@probe({"y": EXACT})
def w02_maxpool2d_bf16(x):
    # the max of bf16 values is exact in any order
    v = bf16_dec(x)
    o = (v.shape[1] - 3) // 2 + 1
    m = v[:, 0:2 * o - 1:2, 0:2 * o - 1:2]
    for a in range(3):
        for e in range(3):
            m = np.maximum(m, v[:, a:a + 2 * o - 1:2, e:e + 2 * o - 1:2])
    return {"y": bf16_enc(m)}


def _im2col(x):
    """[B, C, H+2, W+2] -> [B*H*W, C*9], columns in (c, kh, kw) order (w's rows)."""
    b, c, hp, wp = x.shape
    win = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3))  # [B, C, H, W, 3, 3]
    return win.transpose(0, 2, 3, 1, 4, 5).reshape(b * (hp - 2) * (wp - 2), c * 9)


def _conv_bound(x, ref):
    """matmul_bound of the im2col matrix against w (K = 72), laid out as out."""
    b, _, hp, wp = x["x"].shape
    bd = matmul_bound(_im2col(x["x"]), x["w"])
    return bd.reshape(b, hp - 2, wp - 2, -1).transpose(0, 3, 1, 2)


@probe({"out": Tol(bound=_conv_bound, why="fp32 sums in another order")})
def w03_conv3x3_im2col(x, w):
    b, _, hp, wp = x.shape
    y = _im2col(x) @ w
    return {"out": np.ascontiguousarray(y.reshape(b, hp - 2, wp - 2, -1).transpose(0, 3, 1, 2))}


def _cumprod_inputs(shapes, r):
    # factors of either sign around magnitude 1: the products' logs random-walk with
    # a small drift (~ -1.7 +- 1.8 after 1000), far from overflow and underflow
    sh = shapes["x"]
    return {"x": r.choice([-1.0, 1.0], sh) * r.uniform(0.9, 1.1, sh)}


@probe({"y": EXACT}, make=_cumprod_inputs)
def w04_cumprod(x):
    # r = (x * r) * 1: one fp32 rounding a step, numpy's cumprod the same left fold
    return {"y": np.cumprod(x, axis=1, dtype=np.float32)}


def _clamp_cast_inputs(shapes, r):
    # counts, per-row scales and bounds: x * sc within +-30, bounds within it, so
    # both clamps act and everything stays inside fp16's and e4m3's normal range
    n, d = shapes["xi"]
    return {"xi": r.integers(-3000, 3001, (n, d)), "sc": r.uniform(0.001, 0.01, (n, 1)),
            "lo": r.uniform(-20, -5, (n, 1)), "hi": r.uniform(5, 20, (n, 1))}


@probe({"yb": EXACT, "yh": EXACT, "yq": EXACT}, make=_clamp_cast_inputs)
def w05_clamp_cast(xi, sc, lo, hi):
    # int32 -> fp32 exact (|xi| <= 3000), one fp32 product, max and min exact; bf16 ->
    # fp16 exact (8 significant bits, |y| >= 0.001 or 0); each cast one rounding, alike
    y = np.minimum(np.maximum(xi.astype(np.float32) * sc, lo), hi)
    yb = bf16_enc(y)
    return {"yb": yb, "yh": f16_enc(bf16_dec(yb)), "yq": fp8_e4m3_enc(y)}


def _dropout_inputs(shapes, r):
    # the random bytes of a host RNG
    return {"r": r.integers(0, 256, shapes["r"])}


@probe({"y": EXACT}, make=_dropout_inputs)
def w06_dropout_u8(x, r):
    # fp32(1 / 0.9) alike; one fp32 product, then bf16, on both sides
    y = np.where(r >= 26, bf16_dec(x) * np.float32(1 / (1 - 0.1)), np.float32(0))
    return {"y": bf16_enc(y)}


W07_G = 8  # w07's groups (C / CG)


def _groupnorm_inputs(shapes, r):
    # channels with their own offset and scale: the mean subtraction and the
    # variance both matter, the groups' E[x^2] up to ~4x their variance
    b, c, hw = shapes["x"]
    x = r.uniform(-1, 1, (b, c, 1)) + r.uniform(0.5, 2, (b, c, 1)) * r.standard_normal((b, c, hw))
    return {"x": x, "gamma": r.uniform(0.5, 1.5, (c, 1)), "beta": 0.5 * r.standard_normal((c, 1))}


def _groupnorm_bound(x, ref):
    """|C - numpy| of w07's y, from exact (fp64) group statistics. Sums: the C
    simulation folds each channel's 1024 values then the matmul adds 128 terms (16
    nonzero; the 2^-14 scale exact), within gamma_F, F = 1024 + 128 + 4, of the exact
    sum of |terms|; numpy's pairwise sums are within the same. Hence mean off by
    dm = 2F u mean|x|. C's var = E[x^2] - mean^2: F u E[x^2] + 2|mean| F u mean|x| +
    2u mean^2 + u var; numpy's two-pass var: F u var from its sum, (F + 3) u var from
    the squares of x - mean (its mean's error cancels to first order): together
    dv = (F + 4) u (E[x^2] + var) + 2F u |mean| mean|x| + 2u mean^2. rstd relative:
    dv / (2 (var + eps)) + 6u (eps add each side, the runtime's rsqrt within 1 ulp,
    numpy's sqrt and divide). Then y: C's x * a + b, a = rstd gamma, b = beta - mean
    a (5 roundings, two of them of |x a| and |mean a|, which do not cancel), numpy's
    ((x - mean) / sqrt) * gamma + beta (4 roundings): |gamma| rstd (|x - mean| (rel +
    4u) + dm + 3u (|x| + |mean|)) + 3u (|y| + |beta|)."""
    xx = x["x"]
    b, c, hw = xx.shape
    xg = xx.reshape(b, W07_G, -1)
    f = hw + 128 + 4
    mean = xg.mean(axis=2, keepdims=True)
    ex2 = (xg * xg).mean(axis=2, keepdims=True)
    var = xg.var(axis=2, keepdims=True)
    am = np.abs(xg).mean(axis=2, keepdims=True)
    dm = 2 * f * U32 * am
    dv = (f + 4) * U32 * (ex2 + var) + 2 * f * U32 * np.abs(mean) * am + 2 * U32 * mean * mean
    rstd = 1 / np.sqrt(var + 1e-5)
    relr = dv / (2 * (var + 1e-5)) + 6 * U32

    def per_channel(v):  # [B, G, 1] -> [B, C, 1]
        return np.repeat(v, c // W07_G, axis=1)
    mean_c, rstd_c, relr_c, dm_c = (per_channel(v) for v in (mean, rstd, relr, dm))
    g = np.abs(x["gamma"])[None]
    return (g * rstd_c * (np.abs(xx - mean_c) * (relr_c + 4 * U32) + dm_c + 3 * U32 * (np.abs(xx) + np.abs(mean_c)))
            + 3 * U32 * (np.abs(ref) + np.abs(x["beta"])[None]))


@probe({"y": Tol(bound=_groupnorm_bound, why="group statistics in another order and form")},
       make=_groupnorm_inputs)
def w07_groupnorm(x, gamma, beta):
    b, c, hw = x.shape
    xg = x.reshape(b, W07_G, -1)
    mean = xg.mean(axis=2, keepdims=True)
    var = xg.var(axis=2, keepdims=True)
    xn = ((xg - mean) / np.sqrt(var + np.float32(1e-5))).reshape(b, c, hw)
    return {"y": xn * gamma + beta}


@probe({"out": EXACT}, make=_ids_inputs)
def w08_embed_bag(table, ids):
    # ((r0 + r1) + r2) + ... in fp32 on both sides (the C simulation's 0 + r0 is r0:
    # no -0 in the table); numpy's table[ids].sum(axis=1) would build a [N, L, D]
    # temporary, the bag's L gathers added one by one is what a numpy user writes
    out = table[ids[:, 0]]
    for k in range(1, ids.shape[1]):
        out += table[ids[:, k]]
    return {"out": out}


@probe({"y": EXACT})
def w09_tiny_tiles(x, s, b):
    # one fp32 product and one add, then the max with 0, alike
    return {"y": np.maximum(x * s + b, np.float32(0))}


@probe({"out": Tol(ulps=1, bound=lambda x, ref: matmul_bound(x["a"], x["w"]), why="fp32 sums in another order")})
def w10_bmm_peT_grid(a, w):
    # the transpose through PSUM is exact (bf16 -> fp32 -> bf16); the products of
    # bf16 values exact, sums in another order, then one bf16 rounding each side
    return {"out": bf16_enc(np.matmul(bf16_dec(a), bf16_dec(w)))}


# --- the x series: NKI kernels and patterns the probes above do not cover ---------

def _adam_inputs(shapes, r):
    # parameters, gradients, first moments around the gradients' scale, second
    # moments >= 0 (sqrt of them), all fp32
    sh = shapes["p"]
    return {"p": r.standard_normal(sh), "g": r.standard_normal(sh), "m": 0.1 * r.standard_normal(sh),
            "v": 0.01 * np.abs(r.standard_normal(sh))}


@probe({"po": EXACT, "mo": EXACT, "vo": EXACT}, make=_adam_inputs)
def x01_adamw_step(p, g, m, v):
    # the same fp32 roundings in the same order on both sides: each product, sum,
    # the sqrt (correctly rounded on both: numpy's IEEE sqrt, the runtime's fp64
    # sqrt rounded once to fp32, which is the correctly rounded fp32 sqrt), the add
    # of eps, (m' lr) / den and p decay - upd; the constants fp32(1 - b) alike
    m1 = np.float32(0.9) * m + np.float32(1 - 0.9) * g
    v1 = np.float32(0.999) * v + np.float32(1 - 0.999) * g * g
    upd = np.float32(1e-3) * m1 / (np.sqrt(v1) + np.float32(1e-8))
    return {"po": p * np.float32(1 - 1e-5) - upd, "mo": m1, "vo": v1}


def _xent_inputs(shapes, r):
    # logit rows with their own offsets (the softmax probes'), labels in [0, C)
    n, c = shapes["x"]
    return {"x": 3.0 * r.standard_normal((n, c)) + r.uniform(-20, 20, (n, 1)),
            "label": r.integers(0, c, shapes["label"])}


def _xent_stats(x):
    """fp64 row max, softmax and log-sum-exp of x (for the bounds)."""
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    s = e.sum(axis=1, keepdims=True)
    return mx, e / s, np.log(s)


def _xent_dx_bound(x, ref):
    """x02's dx before the bf16 rounding. p = e * ((1/s) / N): exp within 7u of each
    other, the row sums (C's left fold, numpy's pairwise) each within gamma_C of the
    same positive terms, 2Cu + 2u, the reciprocal and the product one rounding each
    side: (2C + 20)u relative to p. The one-hot subtraction (at the label) cancels:
    the bound stays relative to p/N, not to the result, plus its own rounding (u|ref|
    each side)."""
    xx = x["x"]
    c = xx.shape[1]
    _, sm, _ = _xent_stats(xx)
    return (2 * c + 20) * U32 * sm / xx.shape[0] + 2 * U32 * np.abs(ref)


def _xent_loss_bound(x, ref):
    """x02's loss = (log s + max) - x[label]: s differs by (2C + 9)u relative (the row
    sums, exp's 7u), an absolute (2C + 9)u in log s; numpy's float32 log within 3.34
    ulp, the runtime's 1 (4.34 ulp <= 9u |log s|); the add and the subtract one
    rounding each side (2u (|log s| + |max|) + 2u |ref|)."""
    xx = x["x"]
    c = xx.shape[1]
    mx, _, ls = _xent_stats(xx)
    return (2 * c + 9) * U32 + 9 * U32 * np.abs(ls) + 2 * U32 * (np.abs(ls) + np.abs(mx)) + 2 * U32 * np.abs(ref)


@probe({"loss": Tol(bound=_xent_loss_bound, why="exp, the row sum and log"),
        "dx": Tol(ulps=1, bound=_xent_dx_bound, why="exp and the row sum")}, make=_xent_inputs)
def x02_xent_bwd(x, label):
    n = x.shape[0]
    rows = np.arange(n)
    mx = x.max(axis=1, keepdims=True)
    e = np.exp(x - mx)
    s = e.sum(axis=1, keepdims=True)
    loss = np.log(s) + mx - x[rows, label][:, None]
    g = e * ((np.float32(1) / s) * np.float32(1 / n))
    g[rows, label] -= np.float32(1 / n)
    return {"loss": loss, "dx": bf16_enc(g)}


def _alibi_inputs(shapes, r):
    # q, k standard normal (q.k / 8 ~ N(0, 1) for d_head 64); BLOOM's slopes
    # 2^(-8 (h + 1) / H)
    h = shapes["slopes"][0]
    return {"q": r.standard_normal(shapes["q"]), "k": r.standard_normal(shapes["k"]),
            "slopes": 2.0 ** (-8.0 * np.arange(1, h + 1) / h)}


def _alibi_bound(x, ref):
    """x03's p before the bf16 rounding. t = s/8 + slope (k - q): the bias is exact
    (integer distances times a power of two), s/8 exact, s off by matmul_bound; the
    add rounds once each side: dt = mb/8 + 2u|t|. t - m shifts by the row max (off
    by at most max dt of the row) and rounds once each side (2u |t - m|); exp within
    7u of each other. e's relative error is then dt + max dt + 2u|t - m| + 7u; the
    row sums add at most the row's largest of those and (2S + 2)u (left fold
    against pairwise); the reciprocal and the product 4u."""
    q, k, sl = x["q"], x["k"], x["slopes"]
    h, s, _ = q.shape
    mb = np.matmul(np.abs(q), np.abs(k).transpose(0, 2, 1)) * (2 * q.shape[2] + 2) * U32
    t = np.matmul(q, k.transpose(0, 2, 1)) * 0.125 + sl[:, None, None] * (np.arange(s)[None, :] - np.arange(s)[:, None])
    keep = np.arange(s)[:, None] >= np.arange(s)[None, :]
    t = np.where(keep, t, 0.0)
    m = np.max(np.where(keep, t, -np.inf), axis=2, keepdims=True)
    dt = np.where(keep, mb * 0.125 + 2 * U32 * np.abs(t), 0.0)
    dmax = dt.max(axis=2, keepdims=True)
    rel_e = np.where(keep, dt + dmax + 2 * U32 * np.abs(t - m) + 7 * U32, 0.0)
    rel_row = rel_e.max(axis=2, keepdims=True)
    return (rel_e + rel_row + (2 * s + 6) * U32) * np.abs(ref)


@probe({"p": Tol(ulps=1, bound=_alibi_bound, why="QK^T sums, exp and the row sum")}, make=_alibi_inputs)
def x03_alibi_attn(q, k, slopes):
    s = q.shape[1]
    sc = np.matmul(bf16_dec(q), bf16_dec(k).transpose(0, 2, 1))
    dist = (np.arange(s)[None, :] - np.arange(s)[:, None]).astype(np.float32)
    t = sc * np.float32(0.125) + slopes[:, None, None] * dist
    t = np.where(np.arange(s)[:, None] >= np.arange(s)[None, :], t, np.float32(-np.inf))
    e = np.exp(t - t.max(axis=2, keepdims=True))
    return {"p": bf16_enc(e * (np.float32(1) / e.sum(axis=2, keepdims=True)))}


@probe({"y": EXACT})
def x04_dwconv1d_shift(x, w, b):
    # bf16 x times fp32 w rounded once in fp32, added in tap order 0..6 (bias
    # with tap 0) on both sides, then bf16
    k = w.shape[1]
    to = x.shape[1] - k + 1
    xf = bf16_dec(x)
    acc = xf[:, 0:to] * w[:, 0:1] + b
    for j in range(1, k):
        acc = xf[:, j:j + to] * w[:, j:j + 1] + acc
    return {"y": bf16_enc(acc)}


def _random_walk_inputs(shapes, r):
    # series that drift and draw down: a cumulative sum of normal steps per row
    return {"x": np.cumsum(r.standard_normal(shapes["x"]), axis=1)}


@probe({"cm": EXACT, "mdd": EXACT}, make=_random_walk_inputs)
def x05_cummax_drawdown(x):
    # max is exact; x - cm one fp32 rounding alike
    cm = np.maximum.accumulate(x, axis=1)
    return {"cm": cm, "mdd": (x - cm).min(axis=1, keepdims=True)}


def _unit_inputs(shapes, r):
    # values in [0, 1) that stay below 1 in fp32
    return {"x": r.uniform(0.0, 0.9999, shapes["x"])}


@probe({"hist": EXACT}, make=_unit_inputs)
def x06_histogram_cmp(x):
    # x * 16 is exact (a power of two), so floor(16 x) >= b exactly when x >= b/16
    # (b/16 exact in fp32): numpy's bin indices and the kernel's compares agree;
    # counts <= 1024 are exact in fp32
    n, d = x.shape
    idx = (x * np.float32(16)).astype(np.int32) + (np.arange(n, dtype=np.int32) * 16)[:, None]
    return {"hist": np.bincount(idx.ravel(), minlength=n * 16).reshape(n, 16).astype(np.int32)}


def _unpermute_inputs(shapes, r):
    # a permutation of the tokens, router gates in (0, 1)
    t = shapes["dst"][0]
    return {"dst": r.permutation(t).astype(np.int32), "gate": r.uniform(0.05, 1.0, shapes["gate"])}


@probe({"out": EXACT}, make=_unpermute_inputs)
def x07_moe_unpermute(y, dst, gate):
    # one fp32 product of bf16 y and the gate, then bf16, alike; the scatter moves bits
    out = np.empty_like(y)
    out[dst] = bf16_enc(bf16_dec(y) * gate)
    return {"out": out}


def _ln_bwd_inputs(shapes, r):
    # rows with their own offset and scale; mean and rstd as the forward pass saved
    # them (eps 1e-5); upstream gradients; gamma around 1
    n, d = shapes["x"]
    x = (r.uniform(-1, 1, (n, 1)) + r.uniform(0.5, 2, (n, 1)) * r.standard_normal((n, d))).astype(np.float32)
    mean = x.mean(axis=1, keepdims=True)
    rstd = np.float32(1) / np.sqrt(x.var(axis=1, keepdims=True) + np.float32(1e-5))
    return {"x": x, "dy": r.standard_normal((n, d)), "mean": mean, "rstd": rstd,
            "gamma": r.uniform(0.5, 1.5, shapes["gamma"])}


def _ln_bwd_dx_bound(x, ref):
    """x08's dx. xh and g = dy gamma are the same fp32 values on both sides, and so are
    the products g xh. The row sums (left fold against pairwise; the scalings by
    1/D = 2^-9 exact) differ by (2D + 2)u mean|g| (c) and (2D + 2)u mean|g xh| (a).
    Then C's ((xh a - g) + c) (-rstd) and numpy's ((g - c) - xh a) rstd, four
    roundings each of values at most |xh a| + |g| + |c|, the last |ref|."""
    xx, dy, gamma, mean, rstd = x["x"], x["dy"], x["gamma"], x["mean"], x["rstd"]
    d = xx.shape[1]
    xh = (xx - mean) * rstd
    g = dy * gamma
    c = g.mean(axis=1, keepdims=True)
    a = (g * xh).mean(axis=1, keepdims=True)
    dc = (2 * d + 2) * U32 * np.abs(g).mean(axis=1, keepdims=True)
    da = (2 * d + 2) * U32 * np.abs(g * xh).mean(axis=1, keepdims=True)
    return rstd * (dc + np.abs(xh) * da + 6 * U32 * (np.abs(xh * a) + np.abs(g) + np.abs(c))) + 2 * U32 * np.abs(ref)


def _colsum_bound(terms):
    """fp32 column sums of N rows in two orders (128-row tile sums from +0 then added
    in tile order, against numpy's row by row fold): (2N + 2)u sum|terms|."""
    return (2 * terms.shape[0] + 2) * U32 * np.abs(terms).sum(axis=0, keepdims=True)


@probe({"dx": Tol(bound=_ln_bwd_dx_bound, why="row sums in another order, another form"),
        "dgamma": Tol(bound=lambda x, ref: _colsum_bound(x["dy"] * (x["x"] - x["mean"]) * x["rstd"]),
                      why="column sums in another order"),
        "dbeta": Tol(bound=lambda x, ref: _colsum_bound(x["dy"]), why="column sums in another order")},
       make=_ln_bwd_inputs)
def x08_layernorm_bwd(x, dy, mean, rstd, gamma):
    xh = (x - mean) * rstd
    g = dy * gamma
    dx = rstd * (g - g.mean(axis=1, keepdims=True) - xh * (g * xh).mean(axis=1, keepdims=True))
    return {"dx": dx, "dgamma": (dy * xh).sum(axis=0, keepdims=True), "dbeta": dy.sum(axis=0, keepdims=True)}


@probe({"y": Tol(bound=lambda x, ref: (x["x"].shape[1] + 6) * U32 * np.abs(ref),
                 why="the sum of squares in another order")})
def x09_l2norm_wide(x):
    # the squares are the same fp32 values; their sums (left fold against pairwise)
    # each within gamma_D of the same positive sum: (2D + 2)u relative, halved by the
    # sqrt, plus its rounding each side ((D + 3)u in the norm); C's reciprocal and
    # product against numpy's divide, three more roundings: (D + 6)u relative
    nrm = np.sqrt((x * x).sum(axis=1, keepdims=True))
    return {"y": x / np.maximum(nrm, np.float32(1e-12))}


def _xyz_inputs(shapes, r):
    # points within ~30 units, a random rotation (QR of a normal matrix), a shift
    q, rr = np.linalg.qr(r.standard_normal((3, 3)))
    return {"pts": 10.0 * r.standard_normal(shapes["pts"]), "R": q * np.sign(np.diag(rr)),
            "t": r.uniform(-10, 10, shapes["t"])}


@probe({"out": Tol(bound=lambda x, ref: 12 * U32 * (np.abs(x["pts"]) @ np.abs(x["R"]).T + np.abs(x["t"])),
                   why="another summation order")}, make=_xyz_inputs)
def x10_xyz_transform(pts, R, t):
    # C: ((x R0 + t) + y R1) + z R2, six roundings; numpy: BLAS's x R0 + y R1 + z R2
    # (with or without FMA, within gamma_3), then + t: each within gamma_6 of the
    # same sum of |terms|: 12u (|pts| |R|^T + |t|)
    return {"out": pts @ R.T + t}


# --- the y series -------------------------------------------------------------------

@probe({"q": EXACT, "s": EXACT, "xr": EXACT})
def y01_int8_rowquant(x):
    # the same fp32 roundings on both sides: amax exact, max with 1e-8 and the
    # product by fp32(1/127) (the spec's 1/127 rounded once) one rounding each,
    # the reciprocal correctly rounded on both, x * rs one rounding; the int8
    # cast rounds to nearest even (np.rint) and saturates (|x rs| <= 127 (1 + 3u)
    # rounds to at most 127, the clip is only the cast's rule); q * s then bf16
    amax = np.abs(x).max(axis=1, keepdims=True)
    s = np.maximum(amax, np.float32(1e-8)) * np.float32(1 / 127)
    rs = np.float32(1) / s
    q = np.clip(np.rint(x * rs), -128, 127).astype(np.int8)
    return {"q": q, "s": s, "xr": bf16_enc(q.astype(np.float32) * s)}


def _int4_codes_inputs(shapes, r):
    # signed 4-bit codes
    return {"w": r.integers(-8, 8, shapes["w"]).astype(np.int8)}


@probe({"p": EXACT, "sum": EXACT}, make=_int4_codes_inputs)
def y02_int4_pack(w):
    # bit operations on the two's-complement bytes; row sums of at most 2048
    # codes of magnitude <= 8 are exact in fp32 and int32 alike
    u = w.view(np.uint8)
    p = ((u[:, 1::2] & np.uint8(15)) << np.uint8(4)) | (u[:, 0::2] & np.uint8(15))
    return {"p": p, "sum": w.sum(axis=1, keepdims=True, dtype=np.int32)}


def _flash_stats(x):
    """fp64 scores, the causal mask, row max and softmax of y03 (for the bound)."""
    q, k = x["q"], x["k"]
    s = q.shape[1]
    sc = np.matmul(q, k.transpose(0, 2, 1)) * 0.125
    keep = np.arange(s)[:, None] >= np.arange(s)[None, :]
    m = np.max(np.where(keep, sc, -np.inf), axis=2, keepdims=True)
    e = np.where(keep, np.exp(sc - m), 0.0)
    return sc, keep, m, e / e.sum(axis=2, keepdims=True)


def _flash_bound(x, ref):
    """y03's o before the bf16 rounding. Scores: the bf16 products are exact, the
    sums differ by matmul_bound (K = 64), the scale by 1/8 is exact: d_k =
    mb_k / 8. exp's argument s_k - m is off by d_k + max_k d_k (the row max) plus
    one rounding each side (2u |s_k - m|); exp within 8u of each other (EXP_ULPS,
    an ulp <= 2u). The online form: per KV step (at most nb = S/128) the
    correction exp(m - m') (argument rounded, exp 1 ulp) and its products with l
    and o, ~4u a step, the arguments' roundings summing to at most 2u max|s|. So
    each term's relative error is at most E = max_k (d_k + 2u|s_k - m|) + max d +
    8u + 4 nb u + 2u max|s| (the row's worst, used for every term and for l). The
    row sum l (128-wide block sums then the carried adds, against numpy's
    pairwise) and P V (fp32 products of fp32 p and bf16 v rounded once, then the
    sums in another order) each add (2S + 4)u of sum_k p_k |v_k| resp. of |o|.
    |o_C - o_np| <= (2E + (4S + 8)u) (P|v| + |o|) + 4u|o| (the reciprocal and the
    product each side)."""
    q, k, v = x["q"], x["k"], x["v"]
    s = q.shape[1]
    nb = s // 128
    sc, keep, m, p = _flash_stats(x)
    mb = np.matmul(np.abs(q), np.abs(k).transpose(0, 2, 1)) * (2 * q.shape[2] + 2) * U32 * 0.125
    d = np.where(keep, mb, 0.0)
    dmax = d.max(axis=2, keepdims=True)
    arg = np.where(keep, d + 2 * U32 * np.abs(sc - m), 0.0).max(axis=2, keepdims=True)
    smax = np.where(keep, np.abs(sc), 0.0).max(axis=2, keepdims=True)
    e_row = arg + dmax + 8 * U32 + 4 * nb * U32 + 2 * U32 * smax
    o = np.matmul(p, v)
    return (2 * e_row + (4 * s + 8) * U32) * (np.matmul(p, np.abs(v)) + np.abs(o)) + 4 * U32 * np.abs(o)


@probe({"o": Tol(ulps=1, bound=_flash_bound, why="QK^T sums, exp, the online rescaling, P V sums")})
def y03_flash_causal_tri(q, k, v):
    s = q.shape[1]
    sc = np.matmul(bf16_dec(q), bf16_dec(k).transpose(0, 2, 1)) * np.float32(0.125)
    sc = np.where(np.tri(s, dtype=bool), sc, np.float32(-np.inf))
    e = np.exp(sc - sc.max(axis=2, keepdims=True))
    p = e * (np.float32(1) / e.sum(axis=2, keepdims=True))
    return {"o": bf16_enc(np.matmul(p, bf16_dec(v)))}


def _router_bound(x, ref):
    """y04's gates. Logits: bf16 products exact, the K = 256 sums in another order
    (matmul_bound), an absolute error d_e each, i.e. relative in exp; the row max
    moves by at most max d. p_e = exp(l_e - m) / sum: relative error at most
    eps = 2 max d + 2u max|l - m| (the subtraction each side) + 8u (exp, EXP_ULPS)
    + (2E + 2)u (the 10-term sums) + 4u (reciprocal and product each side).
    gate = p1 / (p1 + p2): 2 eps, plus the add, reciprocal and product each side
    (6u), relative to the gate."""
    xx, wg = x["x"], x["wg"]
    e = wg.shape[1]
    lg = xx @ wg
    d = matmul_bound(xx, wg).max(axis=1, keepdims=True)
    spread = (lg.max(axis=1, keepdims=True) - lg.min(axis=1, keepdims=True))
    eps = 2 * d + 2 * U32 * spread + 8 * U32 + (2 * e + 2) * U32 + 4 * U32
    return (2 * eps + 6 * U32) * np.abs(ref)


# idx exact: the two largest of ten probabilities are the same experts on both
# sides unless the 2nd and 3rd logits are within ~2 max d (~1e-5) of each other;
# with these inputs none is (a tie there would show as a FAIL to look at, not a
# bug, and is reported so)
@probe({"gate": Tol(bound=_router_bound, why="logit sums, exp, the 10-term sum"), "idx": EXACT})
def y04_moe_router_top2(x, wg):
    lg = bf16_dec(x) @ bf16_dec(wg)
    e = np.exp(lg - lg.max(axis=1, keepdims=True))
    pr = e * (np.float32(1) / e.sum(axis=1, keepdims=True))
    top = np.argsort(-pr, axis=1, kind="stable")[:, :2]
    tv = np.take_along_axis(pr, top, axis=1)
    return {"gate": tv * (np.float32(1) / (tv[:, 0:1] + tv[:, 1:2])), "idx": top.astype(np.uint32)}


@probe({"y": EXACT})
def y05_upsample2x_bf16(x):
    # 0.25 x exact (a power of two), 0.75 x and the add one fp32 rounding each on
    # both sides, then bf16; the edge columns are copies
    xf = bf16_dec(x)
    n, w = xf.shape
    t3 = xf * np.float32(0.75)
    y = np.empty((n, 2 * w), dtype=np.float32)
    y[:, 2::2] = xf[:, :-1] * np.float32(0.25) + t3[:, 1:]
    y[:, 1:-1:2] = xf[:, 1:] * np.float32(0.25) + t3[:, :-1]
    y[:, 0] = xf[:, 0]
    y[:, -1] = xf[:, -1]
    return {"y": bf16_enc(y)}


@probe({"po": EXACT, "mo": EXACT})
def y06_lion_step(p, g, m):
    # each product and sum one fp32 rounding in the same order on both sides
    # (the spec's constants rounded once to fp32, as np.float32 does); sign exact
    c = m * np.float32(0.9) + g * np.float32(0.1)
    po = np.sign(c) * np.float32(-1e-4) + p * np.float32(0.99999)
    mo = m * np.float32(0.99) + g * np.float32(0.01)
    return {"po": po, "mo": mo}


def _bn_inputs(shapes, r):
    # channels with their own offset and scale (the mean subtraction matters)
    nb, c, hh, ww = shapes["x"]
    x = r.uniform(-2, 2, (1, c, 1, 1)) + r.uniform(0.5, 2, (1, c, 1, 1)) * r.standard_normal((nb, c, hh, ww))
    return {"x": x, "gamma": r.uniform(0.5, 1.5, shapes["gamma"]), "beta": 0.5 * r.standard_normal(shapes["beta"])}


def _bn_parts(x):
    """fp64 per-channel count, mean, variance, mean|x| and mean x^2 of y07's x."""
    xx = x["x"]
    n = xx.shape[0] * xx.shape[2] * xx.shape[3]
    ax = (0, 2, 3)
    return (n, xx.mean(axis=ax)[:, None], xx.var(axis=ax)[:, None],
            np.abs(xx).mean(axis=ax)[:, None], (xx * xx).mean(axis=ax)[:, None])


def _bn_y_bound(x, ref):
    """y07's y. refs.py's layernorm derivation with D = n = N H W per channel
    (bn_stats/bn_aggr against the exact mean and variance: gamma_n of mean|x| and
    of mean x^2, rstd half of it plus rsqrt's ulps), numpy's two-pass within the
    same: 2 (2n + 64)u (|gamma| (|xn| + mean|x| rstd) + |beta|). The form
    x a - (mean a - beta) rounds x a, mean a, the subtraction of beta and the
    last one on each side: 2 * 2u (|x a| + |mean a| + |beta|)."""
    n, mean, var, amean, _ = _bn_parts(x)
    g, b = x["gamma"][None, :, :, None], x["beta"][None, :, :, None]
    rstd = (1.0 / np.sqrt(var + 1e-5))[None, :, :, None]
    mean4, amean4 = mean[None, :, :, None], amean[None, :, :, None]
    xx = x["x"]
    mag = np.abs(g) * (np.abs(xx - mean4) * rstd + amean4 * rstd) + np.abs(b)
    a = np.abs(rstd * g)
    return 2 * (2 * n + 64) * U32 * mag + 4 * U32 * (np.abs(xx) * a + np.abs(mean4) * a + np.abs(b))


@probe({"y": Tol(bound=_bn_y_bound, why="bn_stats/bn_aggr against two-pass, x a - nb"),
        "mean": Tol(bound=lambda x, ref: 2 * (2 * _bn_parts(x)[0] + 64) * U32 * _bn_parts(x)[3],
                    why="sums in another order (refs.py's bn bound, both sides)"),
        "var": Tol(bound=lambda x, ref: 2 * (2 * _bn_parts(x)[0] + 64) * U32 * _bn_parts(x)[4],
                   why="bn_stats/bn_aggr against two-pass (refs.py's bn bound, both sides)")},
       make=_bn_inputs)
def y07_batchnorm_nchw(x, gamma, beta):
    mean = x.mean(axis=(0, 2, 3))[:, None]
    var = x.var(axis=(0, 2, 3))[:, None]
    a = (np.float32(1) / np.sqrt(var + np.float32(1e-5))) * gamma
    nb = mean * a - beta
    return {"y": x * a[None, :, :, None] - nb[None, :, :, None], "mean": mean, "var": var}


def _conv1d_bound(x, ref):
    """y08: fp16 products exact in fp32; C adds the 300 products (5 taps x 60
    channels) in PSUM in tap order, numpy sums each tap's 60 by BLAS then adds the
    taps: both within gamma_300 of the same sum, (2K + 2)u sum |w||x| with
    K = 300; the bias add one rounding each side (2u |ref|)."""
    xx, w = x["x"], x["w"]
    kt = w.shape[0]
    t = xx.shape[2] - kt + 1
    mag = sum(np.matmul(np.abs(w[j]).T, np.abs(xx[:, :, j:j + t])) for j in range(kt))
    return (2 * kt * w.shape[1] + 2) * U32 * mag + 2 * U32 * np.abs(ref)


@probe({"out": Tol(bound=_conv1d_bound, why="fp32 sums in another order")})
def y08_conv1d_taps_f16(x, w, bias):
    xf, wf = f16_dec(x), f16_dec(w)
    kt = wf.shape[0]
    t = xf.shape[2] - kt + 1
    acc = np.matmul(wf[0].T, xf[:, :, 0:t])
    for j in range(1, kt):
        acc += np.matmul(wf[j].T, xf[:, :, j:j + t])
    return {"out": acc + bias[None]}


def fp8_e5m2_enc(x):
    """fp32 -> float8_e5m2 bits (bias 15, IEEE: 57344 max, inf above), round to
    nearest even; no NaN inputs (fp8_e4m3_enc's trick with 2 mantissa bits)."""
    u = x.view(np.uint32)
    mag = u & np.uint32(0x7FFFFFFF)
    normal = ((mag + np.uint32(0xFFFFF) + ((mag >> 21) & 1)) >> 21).astype(np.int32) - ((127 - 15) << 2)
    # below 2^-14 the quantum is 2^-16
    sub = np.rint(np.abs(x) * np.float32(65536)).astype(np.int32)
    bits = np.where(mag < np.uint32(0x38800000), sub, np.minimum(normal, 0x7C))
    return (bits | ((u >> 24) & 0x80).astype(np.int32)).astype(np.uint8)


@probe({"cache_out": EXACT})
def y09_kvcache_append_e5m2(cache_in, kn):
    # copies move bits; bf16 -> fp32 is exact, then one rounding to e5m2 alike
    out = cache_in.copy()
    pos, t = 1001, kn.shape[1]
    out[:, pos:pos + t, :] = fp8_e5m2_enc(bf16_dec(kn))
    return {"cache_out": out}


def _sampling_inputs(shapes, r):
    # logits with a spread (min-p keeps a few per row), most tokens unseen, a few
    # banned, temperatures 0.7-1.5
    sh = shapes["l"]
    return {"l": 3.0 * r.standard_normal(sh),
            "seen": np.where(r.random(sh) < 0.9, 0, r.integers(1, 4, sh)).astype(np.uint8),
            "bad": np.where(r.random(sh) < 0.02, r.integers(1, 8, sh), 0).astype(np.uint16),
            "it": 1.0 / r.uniform(0.7, 1.5, shapes["it"])}


@probe({"y": EXACT}, make=_sampling_inputs)
def y10_sampling_mask(l, seen, bad, it):
    # the divide and the products one fp32 rounding each alike (constants rounded
    # once to fp32), the max exact, the threshold one add; selects move values
    pen = np.where(l > 0, l / np.float32(1.2), l * np.float32(1.2))
    t = np.where(seen != 0, pen, l) * it
    thr = t.max(axis=1, keepdims=True) + np.float32(-2.995732273553991)
    return {"y": np.where((t < thr) | (bad != 0), np.float32(-np.inf), t)}


# --- the z series -------------------------------------------------------------------

def _gate_inputs(shapes, r):
    # per-row gate scales and biases: sigmoid's argument within ~[-12, 12]
    return {"s": r.uniform(0.5, 2.0, shapes["s"]), "b": r.uniform(-1.0, 1.0, shapes["b"])}


# sigmoid: z = g s + b is the same fp32 value on both sides (two roundings each);
# numpy's 1 / (1 + exp(-z)) has exp's 2.52 ulp (5.04u of exp(-z), at most that
# relative in 1 + exp(-z)), the add and the divide a rounding each: within 7.1u of
# sigmoid(z), the runtime's correctly rounded value within 0.5 ulp (1u): 8.1u apart,
# i.e. within 9 fp32 steps of numpy's (a step >= u |v|). gmin: the least of values
# each within that, within it too. y: x sg rounded once each side, 10.1u of |x sg|,
# then bf16 (one step where the two straddle a rounding boundary).
@probe({"y": Tol(ulps=1, bound=rel(11), why="numpy's exp in sigmoid"),
        "gmin": Tol(ulps=9, why="numpy's exp in sigmoid")}, make=_gate_inputs)
def z01_sigmoid_gate_bf16(x, g, s, b):
    sg = np.float32(1) / (np.float32(1) + np.exp(-(bf16_dec(g) * s + b)))
    return {"y": bf16_enc(bf16_dec(x) * sg), "gmin": sg.min(axis=1, keepdims=True)}


def _gelu_compose_bound(x, ref):
    """z02's ge = 0.5 x (1 + erf(x / sqrt 2)) before the fp16 rounding. The kernel:
    erf correctly rounded (within u |erf| <= u), 1 + erf one rounding (u phi2,
    phi2 = 1 + erf in [0, 2]), the product one (u |x phi2|), * 0.5 exact: within
    0.5 |x| (u + 2u phi2), the first term the absolute error of 1 + erf that the
    negative tail keeps (numpy's erfc keeps it relative). numpy: phi2 = erfc(-w)
    or 2 - erfc(w) with erfc <= phi2 within gelu_erf_bound's (4x^2 + 32)u relative,
    the subtraction u phi2, the product u |x phi2|: 0.5 |x| phi2 (4x^2 + 34)u.
    Together 0.5 u |x| + (4x^2 + 37)u |ge|, |ge| = 0.5 |x| phi2 (+1u for ref's
    fp16 rounding, 2^-11 relative, absorbed in the margin to 40)."""
    v = x["x"]
    return 0.5 * U32 * np.abs(v) + (4 * v * v + 40) * U32 * np.abs(ref)


# ss: |x| + 1 one rounding, its reciprocal correctly rounded on both sides (the
# runtime's reciprocal, numpy's IEEE divide), x r one rounding, then fp16: exact
@probe({"ge": Tol(ulps=1, bound=_gelu_compose_bound, why="erf by a polynomial, 1 + erf's tail"),
        "ss": EXACT})
def z02_gelu_erf_softsign_f16(x):
    v = f16_dec(x)
    w = v * np.float32(0.7071067811865476)
    e = _erfc(np.abs(w))
    phi2 = np.where(w >= 0, np.float32(2) - e, e)      # 1 + erf(w), its tail kept
    r = np.float32(1) / (np.abs(v) + np.float32(1))
    return {"ge": f16_enc(np.float32(0.5) * (phi2 * v)), "ss": f16_enc(v * r)}


@probe({"best": EXACT, "env": EXACT})
def z03_kadane_envelope_bf16(x):
    # both recurrences column by column over all rows at once (rows contiguous in
    # the transposed copy): each step's add or product and max are the kernel's fp32
    # roundings, in its order; the row max is exact
    xt = np.ascontiguousarray(bf16_dec(x).T)
    ax = np.abs(xt)
    d = np.float32(0.99)
    r = np.zeros(xt.shape[1], np.float32)
    e = np.zeros(xt.shape[1], np.float32)
    best = np.full(xt.shape[1], -np.inf, np.float32)
    env = np.empty_like(xt)
    for j in range(xt.shape[0]):
        r = np.maximum(xt[j] + r, xt[j])
        np.maximum(best, r, out=best)
        e = np.maximum(d * e, ax[j])
        env[j] = e
    return {"best": best[:, None], "env": bf16_enc(env.T)}


# p: exp's argument s/8 - max/8 the same fp32 value on both sides (the scale a power
# of two, one rounding of the add); exp within 3.52 ulp of each other (7.04u); the
# row sums of at most S positive terms in another order (2S + 2)u plus the terms'
# 7.04u; the reciprocal and the product one rounding each side (4u): (2S + 21)u,
# rounded up, then one fp16 step
@probe({"p": Tol(ulps=1, bound=lambda x, ref: (2 * x["s"].shape[2] + 24) * U32 * np.abs(ref),
                 why="numpy's exp, the row sums")})
def z04_causal_softmax_grid2_f16(s):
    v = f16_dec(s)
    m = np.where(np.tri(v.shape[1], dtype=bool), v, np.float32(-np.inf))
    e = np.exp(m * np.float32(0.125) + m.max(axis=2, keepdims=True) * np.float32(-0.125))
    return {"p": f16_enc(e * (np.float32(1) / e.sum(axis=2, keepdims=True)))}


def _img_inputs(shapes, r):
    # 8-bit pixels, ImageNet's channel means and deviations
    return {"img": r.integers(0, 256, shapes["img"]).astype(np.uint8),
            "mean": np.array([0.485, 0.456, 0.406]), "std": np.array([0.229, 0.224, 0.225])}


@probe({"out": EXACT}, make=_img_inputs)
def z05_img_normalize_u8(img, mean, std):
    # x / 255, - mean[c], / std[c]: the same three fp32 roundings on both sides, then bf16
    x = img.transpose(0, 3, 1, 2).astype(np.float32)
    return {"out": bf16_enc((x / np.float32(255) - mean[:, None, None]) / std[:, None, None])}


def _pcm_inputs(shapes, r):
    # speech-like levels (sd 9000 of 32767: a few samples of the mix saturate), gains
    sh = shapes["a"]
    return {"a": np.clip(r.normal(0, 9000, sh), -32768, 32767).astype(np.int16),
            "b": np.clip(r.normal(0, 9000, sh), -32768, 32767).astype(np.int16),
            "ga": r.uniform(0.3, 0.9, shapes["ga"]), "gb": r.uniform(0.3, 0.9, shapes["gb"])}


@probe({"mix": EXACT, "q12": EXACT, "peak": EXACT}, make=_pcm_inputs)
def z06_pcm_mix_i16(a, b, ga, gb):
    # int16 exact in fp32; a ga, b gb and their sum one rounding each alike; the
    # int16 cast rounds to nearest even and saturates (rint, clip); & -16 on the
    # two's-complement value; |mix| and its max exact
    mix = np.clip(np.rint(a.astype(np.float32) * ga + b.astype(np.float32) * gb), -32768, 32767).astype(np.int16)
    return {"mix": mix, "q12": mix & np.int16(-16),
            "peak": np.abs(mix.astype(np.float32)).max(axis=1, keepdims=True)}


def _bf16_flip(v, rel_err, dtype="bfloat16"):
    """One bf16 step where fp64 values v lie within rel_err |v| of a bf16 rounding
    boundary (two fp32 values each that close to v may round to neighbours), else 0
    (the same for another 16-bit float dtype)."""
    sp = spacing(v, dtype)
    frac = np.abs(v) / sp
    return np.where(np.abs(frac - np.floor(frac) - 0.5) * sp <= rel_err * np.abs(v) + 2 * U32 * np.abs(v), sp, 0.0)


def _softmax_pv_bound(s, d, v, pdt="bfloat16"):
    """The bound of _gqa_bound's derivation from the scores s (fp64) and their
    error d_k on: exp's argument, P in bf16 (_bf16_flip; P in pdt, another 16-bit
    float, alike), the P V sums, 1/sum."""
    m = s.max(axis=-1, keepdims=True)
    ee = d + d.max(axis=-1, keepdims=True) + 2 * U32 * np.abs(s - m) + 8 * U32
    e = np.exp(s - m)
    l = e.sum(axis=-1, keepdims=True)
    dp = ee * e + _bf16_flip(e, ee, pdt)
    n = s.shape[-1]
    o = np.matmul(e, v) / l
    return ((np.matmul(dp, np.abs(v)) + (2 * n + 2) * U32 * np.matmul(e, np.abs(v))) / l
            + ((2 * n + 2) * U32 + ee.max(axis=-1, keepdims=True) + 4 * U32) * np.abs(o))


def _gqa_bound(x, ref, pdt="bfloat16"):
    """z07's o before the bf16 rounding. Scores: bf16 products exact, the K = 128
    sums in another order (matmul_bound), the scale one rounding each side: d_k =
    scale mb_k + 2u|s_k|. exp's argument s_k - m off by d_k + max d (the max) plus
    its rounding each side (2u|s_k - m|), exp 7.04u apart: e_k relative E_k. P in
    bf16: where e_k is within E_k of a bf16 boundary the two may round apart by a
    step (_bf16_flip), elsewhere E_k e_k. P V: bf16 products exact, the S = 1024
    sums in another order, (2S + 2)u sum pb|v|. l = sum of fp32 e (2S + 2)u + max E
    relative; the reciprocal and the product 4u: |o_C - o_np| <= (sum_k (E_k pb_k +
    flip_k) |v_k| + (2S + 2)u sum pb|v|) / l + ((2S + 2)u + max E + 4u) |o|."""
    q, k, v = x["q"], x["k"], x["v"]
    sc = 1 / np.sqrt(q.shape[-1])
    s = np.matmul(q, k.swapaxes(-1, -2)) * sc
    d = sc * np.matmul(np.abs(q), np.abs(k).swapaxes(-1, -2)) * (2 * q.shape[-1] + 2) * U32 + 2 * U32 * np.abs(s)
    return _softmax_pv_bound(s, d, v, pdt)


@probe({"o": Tol(ulps=1, bound=_gqa_bound, why="QK^T sums, exp, P in bf16, the P V sums")})
def z07_gqa_decode_grid(q, k, v):
    return {"o": bf16_enc(_gqa_decode(q, k, v))}


def _gqa_decode(q, k, v):
    """z07's and d08's attention of bf16 q [..., G, DH] over k, v [..., L, DH] with
    scale 1/sqrt(128), P in bf16 for P V, fp32 out."""
    return _gqa_decode_f32(bf16_dec(q), bf16_dec(k), bf16_dec(v))


def _gqa_decode_f32(qf, kf, vf, scale=np.float32(0.08838834764831845), pcodec=None):
    """_gqa_decode's math on q, k, v already decoded to fp32 (f07: an fp8 cache);
    another scale and P's (encode, decode) for another 16-bit P (g06: fp16)."""
    enc, dec = pcodec or (bf16_enc, bf16_dec)
    s = np.matmul(qf, kf.swapaxes(-1, -2)) * scale
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    pv = np.matmul(dec(enc(e)), vf)
    return pv * (np.float32(1) / e.sum(axis=-1, keepdims=True))


# float8_e5m2 bits -> fp32 (F8_E4M3's table for the other format)
F8_E5M2 = from_storage(np.arange(256, dtype=np.uint8), "float8_e5m2").astype(np.float32)


def _conv_s2_bound(x, ref):
    """z08: fp8 products exact in fp32; C adds the 384 (3 taps x 128 channels) in
    PSUM in tap order, numpy each tap's 128 by BLAS then the taps: both within
    gamma_384 of the same sum, (2K + 2)u sum |w||x| with K = 384; the bias add one
    rounding each side (2u |ref|); relu is 1-Lipschitz."""
    xx, w = x["x"], x["w"]
    kt, lo = w.shape[0], ref.shape[2]
    mag = sum(np.matmul(np.abs(w[j]).T, np.abs(xx[:, :, j:j + 2 * lo:2])) for j in range(kt))
    return (2 * kt * w.shape[1] + 2) * U32 * mag + 2 * U32 * np.abs(ref)


@probe({"out": Tol(ulps=1, bound=_conv_s2_bound, why="fp32 sums in another order")})
def z08_conv1d_s2_fp8(x, w, bias):
    # each tap's stride-2 slice copied contiguous first: numpy's matmul takes BLAS
    # only for contiguous stacks (strided, its own loops: ~30x the time)
    xf, wf = F8_E5M2[x], F8_E4M3[w]
    lo = (xf.shape[2] - 1) // 2
    acc = np.matmul(wf[0].T, np.ascontiguousarray(xf[:, :, 0:2 * lo:2]))
    for j in range(1, wf.shape[0]):
        acc += np.matmul(wf[j].T, np.ascontiguousarray(xf[:, :, j:j + 2 * lo:2]))
    return {"out": bf16_enc(np.maximum(acc + bias, np.float32(0)))}


def _rmsnorm_qkv_bound(x, ref):
    """z09's qkv before the bf16 rounding. xn before its bf16 rounding: v03's (D +
    16)u relative (the sum of squares in another order, rsqrt against 1/sqrt, two
    products); in bf16 the two sides' xn differ by that or, within it of a bf16
    boundary, by a step (_bf16_flip). The K = 768 sums: matmul_bound of xn and W;
    the differing xn: sum_k dxn_k |w_k|."""
    xx, g, w = x["x"], x["gamma"], x["w"]
    d = xx.shape[1]
    xn = xx / np.sqrt((xx * xx).mean(axis=1, keepdims=True) + 1e-6) * g
    eps = (d + 16) * U32
    dxn = eps * np.abs(xn) + _bf16_flip(xn, eps)
    return np.matmul(dxn, np.abs(w)) + matmul_bound(xn, w)


@probe({"qkv": Tol(ulps=1, bound=_rmsnorm_qkv_bound, why="rmsnorm's sums and rsqrt, xn in bf16, K = 768 sums")})
def z09_rmsnorm_qkv_bf16(x, gamma, w):
    xf = bf16_dec(x)
    ms = (xf * xf).sum(axis=1, keepdims=True) * np.float32(1 / xf.shape[1]) + np.float32(1e-6)
    xn = bf16_dec(bf16_enc(xf * (np.float32(1) / np.sqrt(ms)) * bf16_dec(gamma)))
    return {"qkv": bf16_enc(xn @ bf16_dec(w))}


def _topk_ties(x, k):
    """The k largest per row, descending, equal values in index order (a stable
    descending sort's first k; max8 rounds with nc_find_index8 pair a value given j
    times with its first j occurrences): the k-th largest value t, every element
    above t and the first (k - count above) equal to t, then a stable sort by value."""
    n = x.shape[0]
    t = -np.partition(-x, k - 1, axis=1)[:, k - 1:k]
    gt, eq = x > t, x == t
    sel = gt | (eq & (np.cumsum(eq, axis=1) <= k - gt.sum(axis=1, keepdims=True)))
    top = np.nonzero(sel)[1].reshape(n, k)
    order = np.argsort(-np.take_along_axis(x, top, axis=1), axis=1, kind="stable")
    return np.take_along_axis(top, order, axis=1)


@probe({"vals": EXACT, "idx": EXACT})
def z10_topk32_loop_bf16(x):
    # max8 moves values: vals are x's bits at the indices
    top = _topk_ties(bf16_dec(x), 32)
    return {"vals": np.take_along_axis(x, top, axis=1), "idx": top.astype(np.uint32)}



# --- the a series: ports of NKI samples and tutorials ------------------------------

def _bf16_round(v):
    """fp32 values rounded to bf16 (as a DMA casting to a bf16 tile does)."""
    return bf16_dec(bf16_enc(v))


def _unit_rand_inputs(shapes, r):
    # the tutorials' np.random.rand: uniform in [0, 1)
    return {n: r.random(sh) for n, sh in shapes.items()}


def _sd_attn_bound(x, ref):
    """a01's out: z07's bound (scale 1/sqrt(DH) = 0.125 here, exact on Q) on the
    inputs both sides use, q, k and v rounded to bf16 by their loads."""
    return _gqa_bound({n: _bf16_round(x[n].astype(np.float32)).astype(np.float64) for n in "qkv"}, ref)


@probe({"out": Tol(ulps=1, bound=_sd_attn_bound, why="QK^T sums, exp, the row sum, P in bf16, P V sums")},
       make=_unit_rand_inputs)
def a01_sd_attention_f32(q, k, v):
    s = (_bf16_round(q) * np.float32(0.125)) @ _bf16_round(k).T
    e = np.exp(s - s.max(axis=1, keepdims=True))
    pv = _bf16_round(e) @ _bf16_round(v)
    return {"out": pv * (np.float32(1) / e.sum(axis=1, keepdims=True))}



def _blocked_mm(a, b, bk):
    """a02's result: per K block of bk rows an fp32 product added to the bf16
    block (fp32 add, then bf16), the blocks in order; also the list of each
    step's (fp32 value before the rounding, its K block) for the bound."""
    r = np.zeros((a.shape[1], b.shape[1]), np.float32)
    steps = []
    for k in range(0, a.shape[0], bk):
        v = r + a[k:k + bk].T @ b[k:k + bk]
        steps.append((v, k))
        r = _bf16_round(v)
    return r, steps


def _blocked_mm_bound(x, ref):
    """a02: per K block the two sides' fp32 products differ by matmul_bound (K =
    256); the add is the same fp32 rounding then bf16 on both. Where the values
    before the bf16 rounding (within err of numpy's) straddle a bf16 boundary the
    blocks differ by up to err + a step (_bf16_flip), else they are equal; err
    is the last block's difference plus this block's matmul_bound."""
    a, b = x["lhsT"], x["rhs"]
    bk = 256
    _, steps = _blocked_mm(a.astype(np.float32), b.astype(np.float32), bk)
    d = 0.0
    for v, k in steps:
        err = d + matmul_bound(a[k:k + bk].T, b[k:k + bk])
        v = v.astype(np.float64)
        flip = _bf16_flip(v, err / np.maximum(np.abs(v), TINY))
        d = np.where(flip > 0, err + spacing(v, "bfloat16"), 0.0)
    return d


@probe({"result": Tol(bound=_blocked_mm_bound, why="K-block sums in another order, each block's bf16 rounding")})
def a02_mm_blocked_bf16(lhsT, rhs):
    r, _ = _blocked_mm(bf16_dec(lhsT), bf16_dec(rhs), 256)
    return {"result": bf16_enc(r)}



def _int8_inputs(shapes, r):
    # every int8 value
    return {n: r.integers(-128, 128, sh).astype(np.int8) for n, sh in shapes.items()}


@probe({"y": EXACT}, make=_int8_inputs)
def a03_transpose2d_i8(x):
    # copies move bytes: each row's 24 x 40 matrix transposed (the tutorial's own check)
    n, f1, f2 = x.shape[0], 24, 40
    return {"y": np.ascontiguousarray(x.reshape(n, f1, f2).transpose(0, 2, 1)).reshape(n, f2 * f1)}



def _mamba_inputs(shapes, r):
    # Mamba's ranges: step sizes delta > 0 (softplus outputs, small), A = -exp(A_log)
    # negative, so exp(delta A) in (0, 1): the scan decays
    return {"delta": r.uniform(0.01, 0.2, shapes["delta"]), "u": r.standard_normal(shapes["u"]),
            "A": -r.uniform(0.5, 8.0, shapes["A"]), "B": r.standard_normal(shapes["B"]),
            "C": r.standard_normal(shapes["C"])}


def _scan_time_major(da, dbu):
    """h[t] = da[t] h[t-1] + dbu[t] (h[-1] = 0) along axis 0, each step's product and
    sum one fp32 rounding (the scan's order), vectors over the other axes."""
    out = np.empty_like(da)
    out[0] = dbu[0]                       # da[0] * 0 + dbu[0]
    for t in range(1, da.shape[0]):
        np.multiply(da[t], out[t - 1], out=out[t])
        np.add(out[t], dbu[t], out=out[t])
    return out


def _mamba_bound(x, ref):
    """a04: everything but exp is the same fp32 roundings in the same order on both
    sides; exp(delta A) differs by <= 8u relative (EXP_ULPS). Through the scan, with
    e the difference of h: e[t] <= dA (1 + 8u) e[t-1] + 10u dA |h[t-1]| (exp and the
    product's rounding on each side) + 2u (dA |h[t-1]| + |dBu|) (the add's); then
    C e + 2u |C h| per state and 2u |acc| per add of the state sum."""
    d, u, a, b, c = x["delta"], x["u"], x["A"], x["B"], x["C"]
    da = np.exp(d[:, :, None, :] * a[None, :, :, None]).transpose(3, 0, 1, 2)
    dbu = np.abs((d * u)[:, :, None, :] * b[:, None, :, :]).transpose(3, 0, 1, 2)
    h = np.zeros(da.shape[1:])
    e = np.zeros(da.shape[1:])
    eh = np.empty(da.shape)
    hh = np.empty(da.shape)
    for t in range(da.shape[0]):
        e = da[t] * (1 + 8 * U32) * e + 12 * U32 * da[t] * h + 2 * U32 * dbu[t]
        h = da[t] * h + dbu[t]
        eh[t], hh[t] = e, h
    eh, hh = eh.transpose(1, 2, 3, 0), hh.transpose(1, 2, 3, 0)
    cc = np.abs(c)[:, None, :, :]
    out = (cc * eh).sum(axis=2) + 2 * U32 * (cc * hh).sum(axis=2)
    return out + 2 * U32 * a.shape[1] * (cc * hh).sum(axis=2)


@probe({"out": Tol(bound=_mamba_bound, why="numpy's exp of delta A through the scan")}, make=_mamba_inputs)
def a04_mamba_v2_f32(delta, u, A, B, C):
    da = np.exp(delta[:, :, None, :] * A[None, :, :, None])           # [BS, CH, SS, SL]
    dbu = (delta * u)[:, :, None, :] * B[:, None, :, :]
    h = _scan_time_major(np.ascontiguousarray(da.transpose(3, 0, 1, 2)),
                         np.ascontiguousarray(dbu.transpose(3, 0, 1, 2))).transpose(1, 2, 3, 0)
    hc = h * C[:, None, :, :]
    acc = np.zeros(delta.shape, np.float32)
    for n in range(A.shape[1]):                                         # the kernel's order
        acc = acc + hc[:, :, n, :]
    return {"out": acc}



@probe({"y": EXACT})
def a05_bilinear2x_f16(x):
    # the fp16 products by 9/16, 3/16, 1/16, 3/4, 1/4 are exact in fp32; the sums
    # one rounding each in the kernel's order (a + b, + c, + d), then fp16
    v = f16_dec(x)
    h, w = v.shape[2], v.shape[3]
    y = np.empty(v.shape[:2] + (2 * h, 2 * w), np.float32)
    for hx in (0, 1):
        for wx in (0, 1):
            a, b = v[..., hx:hx + h - 1, wx:wx + w - 1], v[..., 1 - hx:h - hx, wx:wx + w - 1]
            c, d = v[..., hx:hx + h - 1, 1 - wx:w - wx], v[..., 1 - hx:h - hx, 1 - wx:w - wx]
            y[..., 1 + hx:2 * h - 1 + hx:2, 1 + wx:2 * w - 1 + wx:2] = (
                a * np.float32(0.5625) + b * np.float32(0.1875) + c * np.float32(0.1875) + d * np.float32(0.0625))
    for e in (0, 1):
        for k in (0, 1):
            y[..., e * (2 * h - 1), 1 + k:2 * w - 1 + k:2] = (v[..., e * (h - 1), k:k + w - 1] * np.float32(0.75)
                                                            + v[..., e * (h - 1), 1 - k:w - k] * np.float32(0.25))
            y[..., 1 + k:2 * h - 1 + k:2, e * (2 * w - 1)] = (v[..., k:k + h - 1, e * (w - 1)] * np.float32(0.75)
                                                            + v[..., 1 - k:h - k, e * (w - 1)] * np.float32(0.25))
            y[..., e * (2 * h - 1), k * (2 * w - 1)] = v[..., e * (h - 1), k * (w - 1)]
    return {"y": f16_enc(y)}



def _softmax_bwd_inputs(shapes, r):
    # y: softmax rows of logits with spread 2 (positive, each row summing to 1)
    s = 2.0 * r.standard_normal(shapes["y"])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


def _softmax_bwd_bound(x, ref):
    """a06's dx before its bf16 rounding. Di: fp32 products of bf16 values exact,
    the DH sums in another order (row_sum_bound of the products). dP: matmul_bound
    (K = DH) before its bf16 rounding, then the two may round a step apart where dP
    lies within that of a bf16 boundary (_bf16_flip). (dP - Di) y: |y| times both,
    plus the subtraction's and the product's roundings on each side (4u)."""
    dy, o, v, y = x["dy"], x["o"], x["v"], x["y"]
    ddi = row_sum_bound((dy * o).T)
    dp = dy.T @ v
    mb = matmul_bound(dy.T, v)
    ddp = mb + _bf16_flip(dp, mb / np.maximum(np.abs(dp), TINY))
    di = (dy * o).sum(axis=0)[:, None]
    return np.abs(y) * (ddp + ddi) + 4 * U32 * np.abs((dp - di) * y)


@probe({"dx": Tol(ulps=1, bound=_softmax_bwd_bound, why="Di and dP sums in another order, dP in bf16")},
       make=_softmax_bwd_inputs)
def a06_softmax_bwd_bf16(dy, o, v, y):
    dyf = bf16_dec(dy)
    di = (dyf * bf16_dec(o)).sum(axis=0)[:, None]
    dp = _bf16_round(dyf.T @ bf16_dec(v))
    return {"dx": bf16_enc((dp - di) * bf16_dec(y))}



def _varlen(b):
    """a07: sequence b's cached length."""
    return 200 + 250 * b


def _decode_varlen_bound(x, ref):
    """a07's o, per sequence: y03's terms (scores' sums in another order and their
    scale, exp's argument, exp within EXP_ULPS, 4u a KV block of the online
    rescaling) give each weight e_k = exp(s_k - m) a relative error E; the kernel
    also rounds P to bf16 (numpy keeps fp32): half a bf16 step of exp(s_k - m_j)
    against the running max m_j of its block, i.e. of e_k exp(m - m_j) <= ... scaled
    back by exp(m_j - m). The P V and l sums in another order (2L + 2)u; the
    reciprocal and the product 4u."""
    q, k, v = x["q"], x["k"], x["v"]
    sc = 1 / np.sqrt(q.shape[-1])
    out = np.zeros(ref.shape)
    for b in range(q.shape[0]):
        n = _varlen(b)
        kk, vv, qq = k[b, :n], v[b, :n], q[b]
        s = qq @ kk.T * sc
        d = sc * (np.abs(qq) @ np.abs(kk).T) * (2 * q.shape[-1] + 2) * U32 + 2 * U32 * np.abs(s)
        m = s.max(axis=1, keepdims=True)
        nb = (n + 127) // 128
        ee = (d + d.max(axis=1, keepdims=True) + 2 * U32 * np.abs(s - m) + 8 * U32 + 4 * nb * U32
              + 2 * U32 * np.abs(s).max(axis=1, keepdims=True))
        e = np.exp(s - m)
        mj = np.maximum.accumulate(np.stack([s[:, j:j + 128].max(axis=1) for j in range(0, n, 128)], axis=1), axis=1)
        mk = np.repeat(mj, 128, axis=1)[:, :n]                  # each key's running max
        ej = np.exp(s - mk)                                     # the value rounded to bf16
        dp = ee * e + 0.5 * spacing(ej, "bfloat16") * np.exp(mk - m)
        l = e.sum(axis=1, keepdims=True)
        o = (e @ vv) / l
        out[b] = ((dp @ np.abs(vv) + (2 * n + 2) * U32 * (e @ np.abs(vv))) / l
                  + ((2 * n + 2) * U32 + ee.max(axis=1, keepdims=True) + 4 * U32) * np.abs(o)
                  + np.abs(o) * (dp.sum(axis=1, keepdims=True) / l))
    return out


@probe({"o": Tol(ulps=1, bound=_decode_varlen_bound, why="QK^T sums, exp, online rescaling, P in bf16 (numpy fp32)")})
def a07_decode_varlen_grid(q, k, v):
    o = np.empty(q.shape, np.float32)
    qf = bf16_dec(q)
    for b in range(q.shape[0]):
        n = _varlen(b)
        s = (qf[b] @ bf16_dec(k[b, :n]).T) * np.float32(0.08838834764831845)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        o[b] = (e @ bf16_dec(v[b, :n])) * (np.float32(1) / e.sum(axis=1, keepdims=True))
    return {"o": o}



def _w8a8_inputs(shapes, r):
    # int8 codes over the whole range, positive scales around 1/127 of an absmax
    return {"x": r.integers(-128, 128, shapes["x"]).astype(np.int8),
            "w": r.integers(-128, 128, shapes["w"]).astype(np.int8),
            "sx": r.uniform(0.5, 2.0, shapes["sx"]) / 127, "sw": r.uniform(0.5, 2.0, shapes["sw"]) / 127}


@probe({"y": EXACT}, make=_w8a8_inputs)
def a08_int8_tokwise_mm(x, sx, w, sw):
    # the int8 products and every partial sum (|sum| <= 1024 * 128^2 = 2^24) are
    # exact in fp32 in any order, so BLAS gives the kernel's PSUM bits; then
    # (acc sx) sw one rounding each alike, then bf16
    acc = x.astype(np.float32) @ w.astype(np.float32)
    return {"y": bf16_enc(acc * sx * sw)}



def _rotary_tables_inputs(shapes, r):
    # the tutorial's generate_pos_embedding: positions 0..S-1 per batch, inv_freq
    # 10000^(-2i/D), both halves of the table equal
    b, n, d = shapes["cos"]
    inv = 1.0 / 10000 ** (np.arange(0, d, 2) / d)
    f = np.arange(n)[:, None] * inv[None, :]
    emb = np.broadcast_to(np.concatenate([f, f], axis=1), (b, n, d))
    return {"cos": np.cos(emb), "sin": np.sin(emb)}


@probe({"out": EXACT}, make=_rotary_tables_inputs)
def a09_rotary_grid_f32(q, k, cos, sin):
    # HF's x cos + rotate_half(x) sin: the kernel's products (-1 x2 exact) and one
    # add per element, the same fp32 roundings
    c, s = cos[:, None], sin[:, None]
    h = q.shape[-1] // 2

    def rot(x):
        return x * c + np.concatenate([-x[..., h:], x[..., :h]], axis=-1) * s
    return {"out": np.stack([rot(q), rot(k)])}



def _swiglu_mlp_bound(x, ref):
    """a10's y before its fp16 rounding. hg, hu: fp16 products exact, K = D sums
    in another order (matmul_bound). silu: numpy's g / (1 + exp(-g)) within ~7u
    (exp's 5.04u, the add and the divide), the runtime's within 1u, |silu'| <= 1.1:
    the two silu values differ by 1.1 dhg + 9u |silu|. h = silu hu (one rounding
    each side, 2u |h|) before fp16: dh = (1.1 dhg + 9u |silu|) |hu| + |silu| dhu +
    2u |h|, and where h lies within dh of an fp16 boundary a step more
    (_bf16_flip for fp16). y: matmul_bound (K = F) plus dh |wd|."""
    xx, wg, wu, wd = x["x"], x["wg"], x["wu"], x["wd"]
    hg, hu = xx @ wg, xx @ wu
    sl = hg / (1 + np.exp(-hg))
    h = sl * hu
    dh = ((1.1 * matmul_bound(xx, wg) + 9 * U32 * np.abs(sl)) * np.abs(hu) + np.abs(sl) * matmul_bound(xx, wu)
          + 2 * U32 * np.abs(h))
    dh = dh + _bf16_flip(h, dh / np.maximum(np.abs(h), TINY), "float16")
    return matmul_bound(h, wd) + dh @ np.abs(wd)


def _mlp_inputs(shapes, r):
    # weights scaled by 1/sqrt(fan-in), as initialised: pre-activations of order 1
    d, f = shapes["wg"]
    return {"wg": r.standard_normal((d, f)) / np.sqrt(d), "wu": r.standard_normal((d, f)) / np.sqrt(d),
            "wd": r.standard_normal((f, d)) / np.sqrt(f)}


@probe({"y": Tol(ulps=1, bound=_swiglu_mlp_bound, why="K sums in another order, silu, h in fp16")},
       make=_mlp_inputs)
def a10_swiglu_mlp_f16(x, wg, wu, wd):
    xf = f16_dec(x)
    hg, hu = xf @ f16_dec(wg), xf @ f16_dec(wu)
    h = f16_dec(f16_enc(hg / (np.float32(1) + np.exp(-hg)) * hu))
    return {"y": f16_enc(h @ f16_dec(wd))}


# --- the b series: vision, audio, recommender, quantised and delicate kernels -------

def _dwsep_hidden(xf, wd, bd):
    """b01's depthwise 3x3 (pad 1) + bias + ReLU6 in bf16: tap 0's product, then
    product + accumulator per tap in the kernel's order (two fp32 roundings a tap,
    as the scalar_tensor_tensor), the same on both sides."""
    b, c, h, w = xf.shape
    xp = np.zeros((b, c, h + 2, w + 2), np.float32)
    xp[:, :, 1:h + 1, 1:w + 1] = xf
    acc = xp[:, :, 0:h, 0:w] * wd[:, 0][None, :, None, None]
    for t in range(1, 9):
        acc = xp[:, :, t // 3:t // 3 + h, t % 3:t % 3 + w] * wd[:, t][None, :, None, None] + acc
    return _bf16_round(np.minimum(np.maximum(acc + bd[None, :, :, None], np.float32(0)), np.float32(6)))


def _dwsep_bound(x, ref):
    """b01's out before its bf16 rounding: the depthwise part is the same fp32
    roundings on both sides (exact), the pointwise K = 96 sums in another order
    (matmul_bound of wp^T and h)."""
    h = _dwsep_hidden(x["x"].astype(np.float32), x["wd"].astype(np.float32), x["bd"].astype(np.float32))
    b, c = h.shape[:2]
    return matmul_bound(x["wp"].T, h.reshape(b, c, -1).astype(np.float64)).reshape(ref.shape)


@probe({"out": Tol(ulps=1, bound=_dwsep_bound, why="pointwise K = 96 sums in another order")})
def b01_dwsep_conv_bf16(x, wd, bd, wp):
    h = _dwsep_hidden(bf16_dec(x), wd, bd)
    b, c, hh, ww = h.shape
    out = np.matmul(bf16_dec(wp).T, h.reshape(b, c, hh * ww))
    return {"out": bf16_enc(out.reshape(b, -1, hh, ww))}


def _conv2d_shift_bound(x, ref):
    """b02: bf16 products exact; C adds the 9 x 64 = 576 terms in tap order in PSUM,
    numpy each tap's 64 by BLAS then the taps: (2K + 2)u sum |w||x| with K = 576;
    the bias add one rounding each side (2u |ref|); relu 1-Lipschitz."""
    xx, w = x["x"], x["w"]
    oh = ref.shape[2]
    b, ci = xx.shape[:2]
    mag = sum(np.matmul(np.abs(w[t]).T, np.abs(xx[:, :, t // 3:t // 3 + oh, t % 3:t % 3 + oh]).reshape(b, ci, -1))
              for t in range(9))
    return (2 * 9 * ci + 2) * U32 * mag.reshape(ref.shape) + 2 * U32 * np.abs(ref)


@probe({"out": Tol(bound=_conv2d_shift_bound, why="fp32 sums in another order")})
def b02_conv2d_shift_mm(x, w, bias):
    # each tap's window copied contiguous first (numpy's matmul takes BLAS only
    # for contiguous stacks), nine [CO, CI] x [CI, 900] products summed
    xf, wf = bf16_dec(x), bf16_dec(w)
    b, ci, hp, _ = xf.shape
    oh = hp - 2
    acc = None
    for t in range(9):
        xs = np.ascontiguousarray(xf[:, :, t // 3:t // 3 + oh, t % 3:t % 3 + oh]).reshape(b, ci, oh * oh)
        p = np.matmul(wf[t].T, xs)
        acc = p if acc is None else acc + p
    out = np.maximum(acc + bias[None], np.float32(0))
    return {"out": out.reshape(b, -1, oh, oh)}


def _adapool_windows(hw, o):
    """PyTorch's adaptive pooling windows: [floor(i hw / o), ceil((i + 1) hw / o))."""
    return [((i * hw) // o, -(-((i + 1) * hw) // o)) for i in range(o)]


def _adapool_avg_bound(x, ref):
    """b03's avg before its fp16 rounding: the window sums (<= 49 fp16 values) in
    another order, (2n + 2)u sum |x| with n = 49, times 1/count (the same fp32
    number on both sides) and that product's rounding each side (2u |ref|)."""
    v = x["x"]
    o = ref.shape[1]
    out = np.empty(ref.shape)
    for i, (h0, h1) in enumerate(_adapool_windows(v.shape[1], o)):
        for j, (w0, w1) in enumerate(_adapool_windows(v.shape[2], o)):
            out[:, i, j] = np.abs(v[:, h0:h1, w0:w1, :]).sum(axis=(1, 2)) / ((h1 - h0) * (w1 - w0))
    return (2 * 49 + 2) * U32 * out + 2 * U32 * np.abs(ref)


@probe({"avg": Tol(ulps=1, bound=_adapool_avg_bound, why="window sums in another order"), "mx": EXACT})
def b03_adapool_nhwc_f16(x):
    v = f16_dec(x)
    n, hw, _, c = v.shape
    o = 5
    avg = np.empty((n, o, o, c), np.float32)
    mx = np.empty((n, o, o, c), np.float32)
    for i, (h0, h1) in enumerate(_adapool_windows(hw, o)):
        for j, (w0, w1) in enumerate(_adapool_windows(hw, o)):
            win = v[:, h0:h1, w0:w1, :]
            mx[:, i, j] = win.max(axis=(1, 2))
            avg[:, i, j] = win.sum(axis=(1, 2)) * np.float32(1 / ((h1 - h0) * (w1 - w0)))
    return {"avg": f16_enc(avg), "mx": f16_enc(mx)}


def _logmel_inputs(shapes, r):
    # a noisy signal, the periodic-Hann-windowed real DFT basis of n_fft = 400,
    # HTK-style triangular mel filters (80, 0 - 8 kHz at 16 kHz) over the 201 bins
    b, l = shapes["x"]
    n = shapes["fb"][1]
    nb, nm = shapes["melT"]
    j = np.arange(n)[:, None]
    k = np.arange(nb)[None, :]
    win = 0.5 - 0.5 * np.cos(2 * np.pi * j / n)
    fb = np.stack([win * np.cos(2 * np.pi * j * k / n), -win * np.sin(2 * np.pi * j * k / n)])
    mel = np.linspace(0, 2595 * np.log10(1 + 8000 / 700), nm + 2)
    hz = 700 * (10 ** (mel / 2595) - 1)
    f = np.arange(nb) * 16000 / n
    lo, ce, hi = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    tri = np.maximum(0, np.minimum((f - lo) / (ce - lo), (hi - f) / (hi - ce)))
    return {"x": 0.1 * r.standard_normal((b, l)), "fb": fb, "melT": np.ascontiguousarray(tri.T)}


def _frames(x, nf, hop, n):
    """The overlapping frames of a 1-D signal, a strided view (no copy)."""
    return np.lib.stride_tricks.as_strided(x, shape=(nf, n), strides=(hop * x.strides[0], x.strides[0]))


def _logmel_bound(x, ref):
    """b04's out = log(mel + 1e-10). re, im: K = 400 sums in another order
    (matmul_bound); the power's squares and add: 2|re| dre + dre^2 (and im) plus a
    rounding of each term each side (4u p); mel: melT^T of that plus its own sums
    in another order (C adds 402 terms, the cos and the sin parts, numpy 201):
    (2 * 402 + 2)u melT^T p; the + 1e-10 a rounding each side; log's argument off
    by dm relatively, log itself 4 ulp apart (Tol's ulps: numpy's float32 log within
    3.34 ulp, the runtime's within 1)."""
    xx, fb, mt = x["x"], x["fb"], x["melT"]
    hop = 100
    nf = ref.shape[2]
    out = np.empty(ref.shape)
    for b in range(xx.shape[0]):
        fr = _frames(np.ascontiguousarray(xx[b]), nf, hop, 4 * hop)
        re, im = fr @ fb[0], fr @ fb[1]
        dre, dim = matmul_bound(fr, fb[0]), matmul_bound(fr, fb[1])
        p = re * re + im * im
        dp = 2 * np.abs(re) * dre + dre * dre + 2 * np.abs(im) * dim + dim * dim + 4 * U32 * p
        m = p @ mt
        dm = dp @ mt + (2 * 402 + 2) * U32 * m + 2 * U32 * (m + 1e-10)
        out[b] = (dm / (m + 1e-10)).T
    return out


@probe({"out": Tol(ulps=4, bound=_logmel_bound, why="DFT and mel sums in another order, log")},
       make=_logmel_inputs)
def b04_logmel_frames(x, fb, melT):
    b, l = x.shape
    hop = 100
    nf = l // hop - 3
    out = np.empty((b, melT.shape[1], nf), np.float32)
    for i in range(b):
        # the frames copied contiguous (on the strided view numpy's matmul leaves
        # BLAS for its own loops: ~150 ms against ~6)
        fr = np.ascontiguousarray(_frames(x[i], nf, hop, 4 * hop))
        re, im = fr @ fb[0], fr @ fb[1]
        out[i] = np.log((re * re + im * im) @ melT + np.float32(1e-10)).T
    return {"out": out}


def _ctc_inputs(shapes, r):
    # per utterance 25 labels from 28 non-blank classes (adjacent repeats forced in
    # about one of six places), the extended sequence blank, l1, blank, ...;
    # emissions the log-softmax of random logits over 29 classes at those labels
    b, t, s = shapes["em"]
    nl = (s - 1) // 2
    lab = r.integers(1, 29, (b, nl))
    rep = r.random((b, nl)) < 1 / 6
    rep[:, 0] = False
    for i in range(1, nl):
        lab[:, i] = np.where(rep[:, i], lab[:, i - 1], lab[:, i])
    ext = np.zeros((b, s), np.int64)
    ext[:, 1::2] = lab
    z = 3 * r.standard_normal((b, t, 29))
    logp = z - z.max(axis=2, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=2, keepdims=True))
    em = np.take_along_axis(logp, np.broadcast_to(ext[:, None, :], (b, t, s)), axis=2)
    skip = np.zeros((b, s))
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    return {"em": em, "skip": skip}


def _ctc_alpha(em, skip, steps=None):
    """The recursion as the kernel runs it (fp32 in, fp32 ops); with steps a list,
    each step's alpha is appended."""
    b, t, s = em.shape
    a = np.full((b, s + 2), np.float32(-1e30), np.float32)
    a[:, 2:4] = em[:, 0, 0:2]
    pen = (skip - np.float32(1)) * np.float32(1e30)       # 0 or -1e30: the s - 2 term masked
    for k in range(1, t):
        a2 = a[:, 0:s] + pen
        m = np.maximum(np.maximum(a[:, 2:], a[:, 1:s + 1]), a2)
        e0, e1, e2 = np.exp(a[:, 2:] - m), np.exp(a[:, 1:s + 1] - m), np.exp(a2 - m)
        a[:, 2:] = (np.log((e0 + e1) + e2) + m) + em[:, k]
        if steps is not None:
            steps.append(a[:, 2:].copy())
    return a[:, 2:].copy()


def _ctc_bound(x, ref):
    """b05: the exact recursion's alpha_t is a softmax-weighted mean of its inputs
    plus a term, so a difference delta of alpha_{t-1} carries to at most delta (the
    max m's difference cancels to first order; the masked term a + pen is -1e30
    or below, or a itself, alike on both sides). Each step adds: exp 4 ulp apart on
    terms <= 1 and the subtracts' roundings (sum w_k 2u |d_k| <= 2.2u), the sum's
    two adds (4u on [1, 3]), log 4 ulp of a value below 1.1 (8u),
    the + m and + em roundings on each side (4u |alpha_t|): 32u + 4u |alpha_t|
    over the row's reached states (|alpha| < 1e29; the unreached ones stay
    -1e30 exactly on both sides)."""
    steps = []
    _ctc_alpha(x["em"].astype(np.float32), x["skip"].astype(np.float32), steps)
    tot = np.zeros((ref.shape[0], 1))
    for a in steps:
        a = np.abs(a.astype(np.float64))
        tot += 32 * U32 + 4 * U32 * np.where(a < 1e29, a, 0).max(axis=1, keepdims=True)
    return tot


@probe({"alpha": Tol(bound=_ctc_bound, why="exp and log through 127 steps")}, make=_ctc_inputs)
def b05_ctc_alpha(em, skip):
    return {"alpha": _ctc_alpha(em, skip)}


def _large_logit_inputs(shapes, r):
    # rows around +-10^4 with a spread of 30: exp(x - max) spans 0 .. 1
    n, d = shapes["x"]
    return {"x": r.uniform(-1e4, 1e4, (n, 1)) + 30 * r.standard_normal((n, d))}


def _lse_parts(x):
    """fp64: e = exp(x - max), its per-term difference bound between the two sides
    (EXP_ULPS fp32 steps at e, subnormal steps included) and the row max."""
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return e, EXP_ULPS * spacing(e, "float32"), m


def _lsm_bound(x, ref):
    """b06's lsm = (x - m) - log s: x - m the same rounding on both sides; s's terms
    differ by de (EXP_ULPS steps each, <= 8u e), its sums in another order (C folds
    in order, numpy pairwise: (2D + 2)u s); log s then differs by ds / s plus 4
    steps (numpy's float32 log within 3.34 ulp); the final subtract a step (ulps)."""
    e, de, _ = _lse_parts(x["x"])
    s = e.sum(axis=1, keepdims=True)
    ds = de.sum(axis=1, keepdims=True) + (2 * e.shape[1] + 2) * U32 * s
    return ds / s + 4 * spacing(np.log(s), "float32")


def _clse_bound(x, ref):
    """b06's clse = log(cs) + m, cs the prefix sums in the same (sequential) order on
    both sides: a difference grows by each term's de and by a step of the partial
    sum's rounding (spacing(cs_j)); log: dcs / cs plus 4 steps; + m a step (ulps).
    Where every term so far is 0 in fp32 on both sides both are -inf."""
    e, de, _ = _lse_parts(x["x"])
    cs = np.cumsum(e, axis=1)
    dcs = np.cumsum(de + spacing(cs, "float32"), axis=1)
    return dcs / cs + 4 * spacing(np.log(cs), "float32")


@probe({"lsm": Tol(ulps=1, bound=_lsm_bound, why="exp, the row sum's order, log"),
        "clse": Tol(ulps=1, bound=_clse_bound, why="exp (subnormals included), log")},
       make=_large_logit_inputs)
def b06_logsoftmax_cumlse(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    lse = np.log(e.sum(axis=1, keepdims=True))
    with np.errstate(divide="ignore"):
        lc = np.log(np.cumsum(e, axis=1))
    return {"lsm": (x - m) - lse, "clse": lc + m}


def _dlrm_inputs(shapes, r):
    # int64 ids as (low, high) int32 words, anywhere in the table; rows of a
    # typical embedding scale
    b, f, _ = shapes["ids"]
    v, d = shapes["table"]
    ids = np.zeros((b, f, 2), np.int32)
    ids[:, :, 0] = r.integers(0, v, (b, f))
    return {"ids": ids, "table": r.standard_normal((v, d)) / np.sqrt(d)}


def _dlrm_bound(x, ref):
    """b07: bf16 products exact in fp32, the D = 64 sums in another order:
    (2D + 2)u sum |e_i||e_j|."""
    ids = x["ids"][:, :, 0].astype(np.int64)
    e = np.abs(x["table"][ids])
    f = ids.shape[1]
    iu = np.triu_indices(f, 1)
    return ((2 * e.shape[2] + 2) * U32 * np.matmul(e, e.transpose(0, 2, 1)))[:, iu[0], iu[1]]


@probe({"z": Tol(bound=_dlrm_bound, why="D = 64 sums in another order")}, make=_dlrm_inputs)
def b07_dlrm_dot_i64ids(ids, table):
    # the int64 ids as numpy holds them (the words reinterpreted), one gather
    ix = ids.view(np.int64)[:, :, 0]
    e = bf16_dec(table[ix])
    z = np.matmul(e, e.transpose(0, 2, 1))
    iu = np.triu_indices(ix.shape[1], 1)
    return {"z": z[:, iu[0], iu[1]]}


def _w8_group_inputs(shapes, r):
    # uint8 codes over the whole range, zero points near the middle, scales of a
    # typical absmax / 128
    return {"wq": r.integers(0, 256, shapes["wq"]).astype(np.uint8),
            "zp": r.integers(100, 156, shapes["zp"]).astype(np.uint8),
            "sc": r.uniform(0.5, 2.0, shapes["sc"]) / 128}


def _w8_group_weight(wq, zp, sc):
    g = wq.shape[0] // zp.shape[0]
    return _bf16_round((wq.astype(np.float32) - np.repeat(zp, g, axis=0).astype(np.float32))
                       * np.repeat(sc.astype(np.float32), g, axis=0))


@probe({"y": Tol(ulps=1, bound=lambda x, ref: matmul_bound(
    x["x"], _w8_group_weight(x["wq"], x["zp"], x["sc"]).astype(np.float64)),
    why="K = 512 sums in another order")}, make=_w8_group_inputs)
def b08_w8a16_group_dequant(x, wq, zp, sc):
    # (wq - zp) exact, times the scale one rounding, then bf16: the kernel's weight
    return {"y": bf16_enc(bf16_dec(x) @ _w8_group_weight(wq, zp, sc))}


def _u8_zp_inputs(shapes, r):
    # uint8 activation codes, per-token zero points 90 .. 165 held as int16, int8
    # weights over the whole range, positive scales
    return {"xq": r.integers(0, 256, shapes["xq"]).astype(np.uint8),
            "zx": r.integers(90, 166, shapes["zx"]).astype(np.int16),
            "sx": r.uniform(0.5, 2.0, shapes["sx"]) / 128,
            "wq": r.integers(-128, 128, shapes["wq"]).astype(np.int8),
            "sw": r.uniform(0.5, 2.0, shapes["sw"]) / 127}


@probe({"y": EXACT}, make=_u8_zp_inputs)
def b09_u8_zp_i16_mm(xq, zx, sx, wq, sw):
    # (xq - zx) in [-255, 255] and the K = 256 integer sums (< 2^24) exact in fp32
    # in any order: BLAS gives the kernel's PSUM bits; then (acc sx) sw alike
    acc = (xq.astype(np.float32) - zx.astype(np.float32)) @ wq.astype(np.float32)
    return {"y": bf16_enc(acc * sx * sw)}


def _fp8_pertensor_inputs(shapes, r):
    # activations with a calibrated per-tensor scale a bit below amax / 240 (some
    # values clamp), e4m3 weights (to_storage rounds them), a weight scale
    x = 2 * r.standard_normal(shapes["x"])
    return {"x": x, "sx": np.array([0.8 * np.abs(x).max() / 240]),
            "w": r.standard_normal(shapes["w"]), "sw": np.array([0.02])}


def _fp8_quant(xf, sx):
    """b10's x^T codes: x (1 / sx), clamped to +-240, e4m3 (one rounding each)."""
    xs = np.maximum(np.minimum(xf * (np.float32(1) / sx), np.float32(240)), np.float32(-240))
    return F8_E4M3[fp8_e4m3_enc(xs)]


def _fp8_pertensor_bound(x, ref):
    """b10: e4m3 products exact in fp32, the K = 512 sums in another order
    (matmul_bound), then times sx sw (the same fp32 number) one rounding a side."""
    xq = _fp8_quant(x["x"].astype(np.float32), x["sx"].astype(np.float32)).astype(np.float64)
    return matmul_bound(xq, x["w"]) * float(x["sx"][0] * x["sw"][0]) + 2 * U32 * np.abs(ref)


@probe({"y": Tol(ulps=1, bound=_fp8_pertensor_bound, why="K = 512 sums in another order")},
       make=_fp8_pertensor_inputs)
def b10_fp8_pertensor_mm(x, sx, w, sw):
    acc = _fp8_quant(bf16_dec(x), sx) @ F8_E4M3[w]
    return {"y": bf16_enc(acc * (sx * sw))}


# --- the c series ------------------------------------------------------------------

def _resid_ln_inputs(shapes, r):
    # two bf16 streams whose sum has a per-row offset and scale (the mean subtraction
    # and the variance both matter), gamma around 1, beta small
    n, d = shapes["x"]
    x = r.uniform(-1, 1, (n, 1)) + r.uniform(0.5, 2, (n, 1)) * r.standard_normal((n, d))
    return {"x": x, "res": 0.5 * r.standard_normal((n, d)),
            "gamma": r.uniform(0.5, 1.5, (1, d)), "beta": 0.2 * r.standard_normal((1, d))}


def _resid_ln_parts(x):
    """c01's h (fp64 of the bf16 values both sides use), y's layernorm bound Ly (the
    C side's y against numpy's, before any rounding after it) and numpy's amax."""
    h = _bf16_round((x["x"] + x["res"]).astype(np.float32)).astype(np.float64)
    ly = layernorm_bound(h, x["gamma"], x["beta"])
    mean = h.mean(axis=1, keepdims=True)
    y = (h - mean) / np.sqrt(h.var(axis=1, keepdims=True) + 1e-5) * x["gamma"] + x["beta"]
    return ly, np.abs(y).max(axis=1, keepdims=True)


def _resid_ln_scale_bound(x, ref):
    """scale = amax * fp32(1/240): the two amax differ by at most the row's largest Ly
    (a max of values each within its Ly), then one multiply each side (2u)."""
    ly, _ = _resid_ln_parts(x)
    return ly.max(axis=1, keepdims=True) / 240 + 2 * U32 * np.abs(ref)


def _resid_ln_q_bound(x, ref):
    """q's value before the e4m3 rounding, v = (y * (1/amax)) * 240: y off by Ly, 1/amax
    relatively by max Ly / amax + 2u (the reciprocal each side), the two products 4u:
    |v_C - v_np| <= Ly 240 / amax + |v| (max Ly / amax + 8u), |v| <= |ref| + an e4m3
    step (ref is v rounded); ulps=1 covers the two roundings landing apart."""
    ly, amax = _resid_ln_parts(x)
    v = np.abs(ref) + spacing(ref, "float8_e4m3")
    return 1.01 * (ly * 240 / amax + v * (ly.max(axis=1, keepdims=True) / amax + 8 * U32))


@probe({"h": EXACT,
        "scale": Tol(ulps=1, bound=_resid_ln_scale_bound, why="amax of a layernorm in another order"),
        "q": Tol(ulps=1, bound=_resid_ln_q_bound, why="layernorm and amax in another order")},
       make=_resid_ln_inputs)
def c01_resid_ln_fp8_d4096(x, res, gamma, beta):
    # h: one fp32 add of two bf16 values rounded to bf16, alike (exact)
    hb = bf16_enc(bf16_dec(x) + bf16_dec(res))
    h = bf16_dec(hb)
    xc = h - h.mean(axis=1, keepdims=True)
    rstd = np.float32(1) / np.sqrt(h.var(axis=1, keepdims=True) + np.float32(1e-5))
    y = xc * rstd * gamma + beta
    amax = np.abs(y).max(axis=1, keepdims=True)
    q = fp8_e4m3_enc((y * (np.float32(1) / amax)) * np.float32(240))
    return {"h": hb, "q": q, "scale": amax * np.float32(1 / 240)}



def _rope_kv_inputs(shapes, r):
    # rotary tables of real angles (position x inverse frequency), distinct slot ids
    t, half = shapes["cos"]
    p = r.integers(0, 4096, (t, 1)) * (10000.0 ** (-np.arange(half) / half))
    return {"cos": np.cos(p), "sin": np.sin(p),
            "pos": r.permutation(shapes["kc_in"][0])[:t].astype(np.int32)}


@probe({"kc_out": EXACT, "vc_out": EXACT}, make=_rope_kv_inputs)
def c02_rope_kv_scatter(k, v, cos, sin, pos, kc_in, vc_in):
    # two fp32 products and one add or subtract per element, then bf16, alike (numpy
    # does not fuse); bf16 -> fp16 of N(0, 1) values is exact; the scatter moves bits
    t, half = cos.shape
    kf = bf16_dec(k).reshape(t, -1, 2, half)
    x1, x2 = kf[:, :, 0], kf[:, :, 1]
    c, s = cos[:, None, :], sin[:, None, :]
    kr = np.stack([x1 * c - x2 * s, x2 * c + x1 * s], axis=2).reshape(t, -1)
    kc = kc_in.copy()
    kc[pos] = bf16_enc(kr)
    vc = vc_in.copy()
    vc[pos] = f16_enc(bf16_dec(v))
    return {"kc_out": kc, "vc_out": vc}


def _causal_iota_bound(x, ref):
    """c03's p. Scores: bf16 products exact, the K = 64 sums in another order
    (matmul_bound), the 0.125 scale and the max's scale exact: exp's argument
    0.125 (s - m) off by d_k + max d plus its rounding each side (2u|a|); exp 7.04u
    apart: e_k relative E_k. The row sum l: (2S + 2)u in another order and max E;
    the reciprocal and the product 4u: |p_C - p_np| <= p (E_k + max E + (2S+2)u + 4u)."""
    q, k = x["q"].astype(np.float64), x["k"].astype(np.float64)
    n = k.shape[1]
    s = np.matmul(q, k.swapaxes(-1, -2))
    d = 0.125 * (2 * q.shape[-1] + 2) * U32 * np.matmul(np.abs(q), np.abs(k).swapaxes(-1, -2))
    keep = np.tril(np.ones((n, n), dtype=bool))
    s = np.where(keep, s, -np.inf)
    d = np.where(keep, d, 0.0)
    a = 0.125 * (s - s.max(axis=-1, keepdims=True))
    ee = d + d.max(axis=-1, keepdims=True) + 2 * U32 * np.abs(np.where(keep, a, 0.0)) + 8 * U32
    ee = np.where(keep, ee, 0.0)
    p = np.exp(a)
    p = p / p.sum(axis=-1, keepdims=True)
    return p * (ee + ee.max(axis=-1, keepdims=True) + (2 * n + 6) * U32)


@probe({"p": Tol(ulps=1, bound=_causal_iota_bound, why="QK^T sums, exp, the row sum")})
def c03_causal_iota_softmax(q, k):
    n = q.shape[1]
    s = np.matmul(bf16_dec(q), bf16_dec(k).swapaxes(-1, -2))
    s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, np.float32(-np.inf))
    e = np.exp(s * np.float32(0.125) - s.max(axis=-1, keepdims=True) * np.float32(0.125))
    return {"p": e * (np.float32(1) / e.sum(axis=-1, keepdims=True))}


def _rms_bwd_inputs(shapes, r):
    n, d = shapes["x"]
    return {"x": r.standard_normal((n, d)) * r.uniform(0.5, 4, (n, 1)),
            "dy": r.standard_normal((n, d)), "w": r.uniform(0.5, 1.5, (1, d))}


def _rms_bwd_parts(x):
    """fp64 xh, g, cm, t, rstd of c04 and R, rstd's relative difference between the
    sides: the D squares summed in another order (2(D+1)u between the sides), 1/D and
    + eps 4u, the square root halves it, rsqrt 1 ulp here and two roundings in numpy:
    (D + 16)u (q02's)."""
    v, dy, w = (x[n].astype(np.float64) for n in ("x", "dy", "w"))
    d = v.shape[1]
    rstd = 1 / np.sqrt((v * v).mean(axis=1, keepdims=True) + 1e-6)
    xh = v * rstd
    g = dy * w
    cm = (g * xh).mean(axis=1, keepdims=True)
    return xh, g, cm, xh * cm - g, rstd, (d + 16) * U32


def _rms_bwd_dx_bound(x, ref):
    """dx before its bf16 rounding. xh = x rstd: R + 2u relative; g exact (one
    rounding alike); sum g xh: the terms (R + 2u) and their product 2u relative, the
    D terms in another order (2D + 2)u: delta cm = (R + 2D + 6)u sum|g xh| / D + 2u|cm|;
    t = xh cm - g: |xh| delta cm + |cm xh| (R + 4u) + 2u |t|; dx = -t rstd:
    delta t rstd + |t| rstd (R + 2u) (each side's product 1u)."""
    xh, g, cm, t, rstd, rr = _rms_bwd_parts(x)
    d = xh.shape[1]
    dcm = (rr + (2 * d + 6) * U32) * np.abs(g * xh).sum(axis=1, keepdims=True) / d + 2 * U32 * np.abs(cm)
    dt = np.abs(xh) * dcm + np.abs(cm * xh) * (rr + 4 * U32) + 2 * U32 * np.abs(t)
    return 1.01 * (dt * rstd + np.abs(t) * rstd * (rr + 2 * U32))


def _rms_bwd_dw_bound(x, ref):
    """dw: each term dy xh off by (R + 2u) plus its product's rounding 2u relative, the
    N terms summed in another order (the PSUM accumulation in row order, numpy
    pairwise): (R + 2N + 8)u sum over rows |dy xh|."""
    xh, _, _, _, _, rr = _rms_bwd_parts(x)
    n = xh.shape[0]
    return 1.01 * (rr + (2 * n + 8) * U32) * np.abs(x["dy"].astype(np.float64) * xh).sum(axis=0, keepdims=True)


@probe({"dx": Tol(ulps=1, bound=_rms_bwd_dx_bound, why="sum of squares and of g xh in another order"),
        "dw": Tol(bound=_rms_bwd_dw_bound, why="rstd, the column sums in another order")},
       make=_rms_bwd_inputs)
def c04_rmsnorm_bwd_bf16(x, dy, w):
    v, dyf = bf16_dec(x), bf16_dec(dy)
    d = np.float32(1 / v.shape[1])
    rstd = np.float32(1) / np.sqrt((v * v).sum(axis=1, keepdims=True) * d + np.float32(1e-6))
    xh = v * rstd
    g = dyf * w
    cm = (g * xh).sum(axis=1, keepdims=True) * d
    dx = ((xh * cm - g) * rstd) * np.float32(-1)
    return {"dx": bf16_enc(dx), "dw": (dyf * xh).sum(axis=0, keepdims=True)}


def _top_p_inputs(shapes, r):
    # softmax rows of logits with spread 2, sorted descending; thresholds 0.5 .. 0.95
    n, v = shapes["p"]
    e = np.exp(2.0 * r.standard_normal((n, v)))
    return {"p": -np.sort(-(e / e.sum(axis=1, keepdims=True)), axis=1),
            "top_p": r.uniform(0.5, 0.95, (n, 1))}


@probe({"keep": EXACT,
        "y": Tol(ulps=1, bound=lambda x, ref: 1.01 * (2 * x["p"].shape[1] + 6) * U32 * np.abs(ref),
                 why="the kept sum in another order")},
       make=_top_p_inputs)
def c05_top_p_mask(p, top_p):
    # cs: the scan's 1 * r + p is numpy's fp32 left-fold cumsum (exact, p6), then one
    # subtract and the compare alike: keep exact. y: the kept row sum gamma_V each side
    # ((2V + 2)u apart), the reciprocal and the product 2u each side, then bf16
    keep = (np.cumsum(p, axis=1, dtype=np.float32) - p) < top_p
    ym = np.where(keep, p, np.float32(0))
    y = ym * (np.float32(1) / ym.sum(axis=1, keepdims=True))
    return {"keep": keep.view(np.uint8), "y": bf16_enc(y)}


def _gqa_prefill_bound(x, ref):
    """c06's o: z07's bound with the G heads' S query rows as G S rows sharing the KV
    head (the same scores, exp, bf16 P and P V steps; scale 1/sqrt(64) = 0.125)."""
    b, kvh, g, s, dh = x["q"].shape
    xs = {"q": x["q"].reshape(b, kvh, g * s, dh), "k": x["k"], "v": x["v"]}
    return _gqa_bound(xs, ref.reshape(b, kvh, g * s, dh)).reshape(ref.shape)


@probe({"o": Tol(ulps=1, bound=_gqa_prefill_bound, why="QK^T sums, exp, P in bf16, the P V sums")})
def c06_gqa_prefill_grid_bf16(q, k, v):
    s = np.matmul(bf16_dec(q), bf16_dec(k)[:, :, None].swapaxes(-1, -2)) * np.float32(0.125)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    pv = np.matmul(bf16_dec(bf16_enc(e)), bf16_dec(v)[:, :, None])
    return {"o": bf16_enc(pv * (np.float32(1) / e.sum(axis=-1, keepdims=True)))}


# --- the d series ---------------------------------------------------------------

@probe({"y": LAYERNORM_TOL}, make=_layernorm_inputs)
def d01_layernorm_f16_d100(x, gamma, beta):
    # numpy's two-pass mean and variance, a divide by the standard deviation (the
    # kernel: bn_stats/bn_aggr, rsqrt, a multiply): within LAYERNORM_TOL's bound
    v = f16_dec(x)
    xc = v - v.mean(axis=1, keepdims=True)
    sd = np.sqrt(np.square(xc).mean(axis=1, keepdims=True) + np.float32(1e-5))
    return {"y": f16_enc(xc / sd * f16_dec(gamma) + f16_dec(beta))}


@probe({"c": Tol(ulps=1, bound=lambda x, ref: matmul_bound(x["aT"].T, x["b"]),
                 why="fp32 sums in another order, then fp16")})
def d02_mm_f16_k320(aT, b):
    # fp16 products are exact in fp32 (11-bit significands); BLAS sums them in its
    # own order, the kernel over increasing k through PSUM; one fp16 rounding each
    return {"c": f16_enc(np.matmul(f16_dec(aT).T, f16_dec(b)))}


def _pool_windows(v, fill):
    """d03: the nine stride-2 slices of v [C, H, H] padded by one row and column of
    `fill` on each side, one per (row, column) offset of the 3x3 windows."""
    c, h, _ = v.shape
    o = (h - 1) // 2 + 1
    vp = np.full((c, h + 2, h + 2), fill, np.float32)
    vp[:, 1:h + 1, 1:h + 1] = v
    return [vp[:, a:a + 2 * o - 1:2, e:e + 2 * o - 1:2] for a in range(3) for e in range(3)]


def _pool_avg_bound(x, ref):
    """d03's av before its bf16 rounding: the kernel adds a window's rows (2 roundings)
    then its columns (2 more), numpy the nine padded terms in a row (8): 12u of the
    window's sum of |x| apart, over the count; 1/count and the product (kernel) and
    the divide (numpy) 3u of |ref|, taken as 20u and 4u."""
    a = np.abs(x["x"]).astype(np.float32)
    s = sum(_pool_windows(a, 0.0))
    n = sum(_pool_windows(np.ones_like(a[:1]), 0.0))
    return 20 * U32 * s / n + 4 * U32 * np.abs(ref)


@probe({"mx": EXACT, "av": Tol(ulps=1, bound=_pool_avg_bound, why="window sums in another order")})
def d03_pool3x3s2_pad_bf16(x):
    # max: -inf padding, the max of bf16 values exact in any order; avg: zero padding
    # and the count of real elements a window covers (count_include_pad=False)
    v = bf16_dec(x)
    wm, ws = _pool_windows(v, -np.inf), _pool_windows(v, 0.0)
    mx, av = wm[0].copy(), ws[0].copy()
    for t in wm[1:]:
        np.maximum(mx, t, out=mx)
    for t in ws[1:]:
        av += t
    av /= sum(_pool_windows(np.ones((1,) + v.shape[1:], np.float32), 0.0))
    return {"mx": bf16_enc(mx), "av": bf16_enc(av)}


def _fp8_logit_inputs(shapes, r):
    # logits with a spread of 3 around per-row offsets in +-20 (to_storage rounds
    # them to e4m3: steps of 2 past 16, 1 past 8, ...)
    n, d = shapes["x"]
    return {"x": 3.0 * r.standard_normal((n, d)) + r.uniform(-20, 20, (n, 1))}


def _lse_bound(x, ref):
    """d04's lse = log(s) + m. e4m3 values and x - m are exact in fp32; the exps 7u
    apart (EXP_ULPS), the D-term sums (2D + 2)u (another order): s within (2D + 9)u
    relative, log(s) that much absolute; log within 1 ulp (runtime) and 3.34
    (numpy's float32 log, the u series): 4 fp32 steps of log(s); the add 2u |ref|."""
    v = x["x"].astype(np.float64)
    d = v.shape[1]
    ls = np.log(np.exp(v - v.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True))
    return (2 * d + 9) * U32 + 4 * spacing(ls, "float32") + 2 * U32 * np.abs(ref)


@probe({"y": Tol(ulps=1, bound=lambda x, ref: (2 * x["x"].shape[1] + 16) * U32 * np.abs(ref),
                 why="exp and the row sum"),
        "lse": Tol(bound=_lse_bound, why="exp, the row sum and log")},
       make=_fp8_logit_inputs)
def d04_softmax_lse_fp8_d20(x):
    # q01's bound for y: exps 7u apart, the sums (2D + 2)u, the kernel's reciprocal
    # and product against numpy's divide
    v = F8_E4M3[x]
    m = v.max(axis=1, keepdims=True)
    e = np.exp(v - m)
    s = e.sum(axis=1, keepdims=True)
    return {"y": bf16_enc(e / s), "lse": np.log(s) + m}


def _weighted_bag_inputs(shapes, r):
    # ids anywhere in the table (repeats within a bag allowed), weights of either sign
    return {"ids": r.integers(0, shapes["table"][0], shapes["ids"]),
            "w": r.uniform(-1, 1, shapes["w"])}


@probe({"out": EXACT}, make=_weighted_bag_inputs)
def d05_embed_bag_weighted(table, ids, w):
    # each term w * row one fp32 product, added to the bag's sum bag column by bag
    # column from +0 (the kernel's memset): the same roundings in the same order
    # (buffers reused across the L columns: fresh ones fault their pages in, which
    # on this machine cost more than the math)
    n, d = ids.shape[0], table.shape[1]
    out = np.zeros((n, d), np.float32)
    rows, bits, term = np.empty((n, d), np.uint16), np.empty((n, d), np.uint32), np.empty((n, d), np.float32)
    for k in range(ids.shape[1]):
        np.take(table, ids[:, k], axis=0, out=rows)
        np.left_shift(rows, 16, out=bits, dtype=np.uint32)   # bf16 -> fp32 bits
        out += np.multiply(w[:, k:k + 1], bits.view(np.float32), out=term)
    return {"out": out}


def _ema_inputs(shapes, r):
    # a noisy signal around per-row levels, decays 0.8 .. 0.995 (time constants of
    # 5 to 200 steps: some rows near their level by t = 300, some still rising)
    n, t = shapes["x"]
    return {"x": r.uniform(-4, 4, (n, 1)) + r.standard_normal((n, t)), "a": r.uniform(0.8, 0.995, (n, 1))}


@probe({"y": EXACT}, make=_ema_inputs)
def d06_ema_scan_f16(x, a):
    # pandas' adjust=False recurrence step by step over time-major rows, from the
    # first sample: a * y, then + (1 - a) x, each rounded once in fp32 (the scan's
    # op0, then op1; 1 - a is -a + 1), the state carried in fp32 and rounded to fp16
    # on the way out, as the scan does
    xt = np.ascontiguousarray(f16_dec(x).T)
    u = xt * (np.float32(1) - a[:, 0])
    y = np.empty_like(u)
    r = y[0] = xt[0]
    ac = a[:, 0]
    for t in range(1, u.shape[0]):
        r = ac * r + u[t]
        y[t] = r
    return {"y": f16_enc(y.T)}


def _lens_inputs(shapes, r):
    # sequence lengths 2 .. S ([CLS] and at least one token), some full
    b, s, _ = shapes["x"]
    return {"lens": np.minimum(r.integers(2, s + 16, b), s).astype(np.int32)}


def _masked_mean_bound(x, ref):
    """d07's out before its bf16 rounding: the kept tokens' sums in another order,
    (2S + 2)u of the sum of their |x|, over the count; the kernel's reciprocal and
    product against numpy's divide 3u |ref| (4u)."""
    v = x["x"]
    n = x["lens"].astype(np.int64)[:, None]
    s = np.arange(v.shape[1])[None, :]
    keep = (s >= 1) & (s < n)
    return ((2 * v.shape[1] + 2) * U32 * np.einsum("bs,bsd->bd", keep, np.abs(v)) / (n - 1)
            + 4 * U32 * np.abs(ref))


@probe({"out": Tol(ulps=1, bound=_masked_mean_bound, why="the kept tokens' sums in another order")},
       make=_lens_inputs)
def d07_masked_meanpool(x, lens):
    # a numpy user's attention-mask pooling: a [B, S] 0/1 mask from the lengths with
    # token 0 left out, states times the mask summed over S, over the mask's count
    s = np.arange(x.shape[1])
    keep = ((s >= 1) & (s < lens[:, None])).astype(np.float32)
    pooled = (bf16_dec(x) * keep[:, :, None]).sum(axis=1)
    return {"out": bf16_enc(pooled / keep.sum(axis=1, keepdims=True))}


@probe({"o": Tol(ulps=1, bound=_gqa_bound, why="QK^T sums, exp, P in bf16, the P V sums")})
def d08_gqa_decode_l300_grid(q, k, v):
    # z07's math (its bound too) over 300 keys, fp32 out
    return {"o": _gqa_decode(q, k, v)}



# --- the e series ---------------------------------------------------------------

def _argmax_fp8_inputs(shapes, r):
    # logits with a spread of 4 (to_storage rounds them to e4m3: rows of 1000 hold
    # their maximum several times, so the first index matters)
    return {"x": 4.0 * r.standard_normal(shapes["x"])}


@probe({"mx": EXACT, "idx": EXACT}, make=_argmax_fp8_inputs)
def e01_argmax_fp8_v1000(x):
    # the max of e4m3 values is exact in any order; numpy's argmax gives the first
    # of tied maxima, as the kernel's min over the selected class indices
    v = F8_E4M3[x]
    return {"mx": v.max(axis=1, keepdims=True), "idx": v.argmax(axis=1).astype(np.int32)[:, None]}


def _gemv_inputs(shapes, r):
    # a layer's weights at 1/sqrt(K) (outputs of order 1), a small bias
    k, n = shapes["w"]
    return {"x": r.standard_normal(shapes["x"]), "w": r.standard_normal((k, n)) / np.sqrt(k),
            "b": 0.1 * r.standard_normal(shapes["b"])}


@probe({"y": Tol(ulps=1, bound=lambda x, ref: matmul_bound(x["x"], x["w"]),
                 why="K = 3000 sums in another order, then fp16")}, make=_gemv_inputs)
def e02_gemv_f16_k3000(x, w, b):
    # fp16 products exact in fp32; BLAS's sgemv sums in its own order, the kernel
    # in increasing k through PSUM; the bias one fp32 add each, then fp16
    return {"y": f16_enc(np.matmul(f16_dec(x), f16_dec(w)) + f16_dec(b))}


E03_SCALE = np.float32(0.17677669529663687)   # 1 / sqrt(32), as the spec's float field


def _win_attn_inputs(shapes, r):
    # q, k, v standard normal (scores of order 1 after the scale), a relative-
    # position bias of order 1 per head
    return {"bias": r.uniform(-2, 2, shapes["bias"])}


def _win_attn_bound(x, ref):
    """e03's o before the bf16 rounding, _gqa_bound's derivation with the bias: the
    scores' bf16 products exact, the DH = 32 sums in another order, the scale and the
    bias add one rounding each side: d_k = sc mb_k + 2u|qk sc| + 2u|s_k|; then exp's
    argument, P in bf16 (_bf16_flip), the T = 49 P V sums and 1/sum as there."""
    q, k, v = x["q"], x["k"], x["v"]
    sc = float(E03_SCALE)
    qk = np.matmul(q, k.swapaxes(-1, -2)) * sc
    s = qk + x["bias"][None]
    d = (sc * np.matmul(np.abs(q), np.abs(k).swapaxes(-1, -2)) * (2 * q.shape[-1] + 2) * U32
         + 2 * U32 * np.abs(qk) + 2 * U32 * np.abs(s))
    b = _softmax_pv_bound(s, d, v)
    nw, h, t, dh = b.shape
    return b.transpose(0, 2, 1, 3).reshape(nw, t, h * dh)


@probe({"o": Tol(ulps=1, bound=_win_attn_bound, why="QK^T sums, exp, P in bf16, the P V sums")},
       make=_win_attn_inputs)
def e03_swin_window_attn_bf16(q, k, v, bias):
    # per window and head: scores scaled then biased (two fp32 roundings, as the
    # scalar_tensor_tensor), softmax with P rounded to bf16 for P V, times 1/sum
    s = np.matmul(bf16_dec(q), bf16_dec(k).swapaxes(-1, -2)) * E03_SCALE + bias
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    pv = np.matmul(bf16_dec(bf16_enc(e)), bf16_dec(v))
    o = pv * (np.float32(1) / e.sum(axis=-1, keepdims=True))
    nw, h, t, dh = o.shape
    return {"o": bf16_enc(np.ascontiguousarray(o.transpose(0, 2, 1, 3)).reshape(nw, t, h * dh))}


def _rational_inputs(shapes, r):
    # x standard normal (|x| up to ~5: x^5 of order 3000, well inside fp32),
    # coefficients of either sign and order 1
    return {"a": r.uniform(-1, 1, shapes["a"]), "bc": r.uniform(-1, 1, shapes["bc"])}


@probe({"y": EXACT}, make=_rational_inputs)
def e04_grkan_rational_bf16(x, a, bc):
    # the kernel's Horner steps in its order, each operation one fp32 rounding (no
    # fused multiply-add on either side), the quotient IEEE, then bf16
    xf = bf16_dec(x)
    ac = [a[:, j][None, :, None] for j in range(6)]
    bk = [bc[:, j][None, :, None] for j in range(4)]
    r = xf * ac[5]
    for j in (4, 3, 2, 1):
        r = (r + ac[j]) * xf
    r += ac[0]
    t = xf * bk[3]
    for j in (2, 1, 0):
        t = (t + bk[j]) * xf
    t = np.abs(t) + np.float32(1)
    return {"y": bf16_enc(r / t)}


def _bn_fold_inputs(shapes, r):
    # a folded BatchNorm's scale and shift (gamma / sqrt(var + eps), beta - mean s)
    return {"s": r.uniform(0.5, 2.0, shapes["s"]), "t": 0.5 * r.standard_normal(shapes["t"])}


@probe({"y": EXACT}, make=_bn_fold_inputs)
def e05_nchw2nhwc_bnrelu_f16(x, s, t):
    # x s + t in fp32 (two roundings), ReLU, the permute to NHWC, fp16: the
    # transposes through PSUM move fp32 values unchanged
    xs = f16_dec(x) * s[None, :, None] + t[None, :, None]
    return {"y": f16_enc(np.ascontiguousarray(np.maximum(xs, np.float32(0)).transpose(0, 2, 1)))}


E06_S = 100   # e06's node count (the spec's S; outputs are [S, D])


def _segment_inputs(shapes, r):
    # destination node ids anywhere in [0, S) (about 100 edges a node, a few nodes
    # with none left out: the counts' clamp to 1 is exercised)
    e = shapes["dst"][0]
    ids = r.integers(0, E06_S, e)
    ids[np.isin(ids, (7, 42))] = 8
    return {"dst": ids.astype(np.int32), "msg": r.standard_normal(shapes["msg"])}


def _segment_agg_bound(x, ref):
    """e06's agg: node s sums its cnt_s messages (bf16 values exact in fp32; the
    one-hot's zeros add exactly) in edge order in C, in BLAS's order in numpy:
    (2 cnt_s + 2) u sum |msg| over its edges."""
    oh = (x["dst"][:, None] == np.arange(E06_S)[None, :]).astype(np.float64)
    cnt = oh.sum(axis=0)[:, None]
    return (2 * cnt + 2) * U32 * np.matmul(oh.T, np.abs(x["msg"]))


@probe({"agg": Tol(bound=_segment_agg_bound, why="each node's sum in another order"),
        "mean": Tol(ulps=1, bound=lambda x, ref: _segment_agg_bound(x, ref)[:, :] / np.maximum(
            (x["dst"][:, None] == np.arange(E06_S)[None, :]).sum(axis=0)[:, None], 1),
            why="the sums in another order, then bf16")},
       make=_segment_inputs)
def e06_gnn_segment_mean_bf16(msg, dst):
    # a numpy user's scatter-add: the one-hot incidence matrix times the messages
    # (BLAS; np.add.at is ~20x slower), the counts its column sums, the clamp, the
    # reciprocal and one multiply as the kernel
    oh = (dst[:, None] == np.arange(E06_S)[None, :]).astype(np.float32)
    agg = np.matmul(oh.T, bf16_dec(msg))
    rc = np.float32(1) / np.maximum(oh.sum(axis=0)[:, None], np.float32(1))
    return {"agg": agg, "mean": bf16_enc(agg * rc)}


def _topk_logit_inputs(shapes, r):
    # logits with a spread of 3 around per-row offsets (bf16: the 8th value ties
    # with the 9th in some rows, and the keep mask keeps both)
    b, v = shapes["x"]
    return {"x": 3.0 * r.standard_normal((b, v)) + r.uniform(-5, 5, (b, 1))}


def _topk_parts(v):
    """e07 in fp64: the 8 largest descending, the keep mask, -lse."""
    m8 = -np.sort(-np.partition(v, v.shape[1] - 8, axis=1)[:, v.shape[1] - 8:], axis=1)
    nl = -m8[:, :1] - np.log(np.exp(m8 - m8[:, :1]).sum(axis=1, keepdims=True))
    return m8, v >= m8[:, 7:8], nl


def _topk_probs_bound(x, ref):
    """e07's probs before the bf16 rounding, relative to the value: the 8 exps 3.52u
    apart (EXP_ULPS), their in-order sum 8u more; log within 1 ulp (runtime) and 3.34
    (numpy): 4 fp32 steps of log(s) plus s's relative difference; the subtract 2u|nl|
    (nl = -lse); exp's argument x + nl rounded in fp32 on one side at least, 2u|x +
    nl|; the final exps EXP_ULPS apart. ref is bf16: its value up to 2^-8 low."""
    v = x["x"]
    m8, keep, nl = _topk_parts(v)
    ls = np.log(np.exp(m8 - m8[:, :1]).sum(axis=1, keepdims=True))
    dnl = (EXP_ULPS + 8) * U32 + 4 * spacing(ls, "float32") + 2 * U32 * np.abs(nl)
    rel_err = dnl + 2 * U32 * np.abs(v + nl) + EXP_ULPS * U32
    return np.where(keep, rel_err * np.abs(ref) * (1 + 2.0 ** -7), 0.0)


@probe({"topv": EXACT, "probs": Tol(ulps=1, bound=_topk_probs_bound, why="exp, the 8-term sum, log")},
       make=_topk_logit_inputs)
def e07_topk_warp_bf16_v32k(x):
    # the 8 largest by np.partition then a sort of the 8 (the values are exact);
    # keep = x >= the 8th; lse from the 8 values, summed left to right as exp's
    # reduce; probs = exp(x + nl) where kept, else exp(-inf) = 0
    v = bf16_dec(x)
    n = v.shape[1]
    m8 = -np.sort(-np.partition(v, n - 8, axis=1)[:, n - 8:], axis=1)
    nm = -m8[:, :1]
    e8 = np.exp(m8 + nm)
    s = e8[:, :1].copy()
    for j in range(1, 8):
        s += e8[:, j:j + 1]
    nl = nm - np.log(s)
    p = np.exp(np.where(v >= m8[:, 7:8], v, np.float32(-np.inf)) + nl)
    return {"topv": m8, "probs": bf16_enc(p)}


E08_SCALE = np.float32(1 / 0.9)   # the spec's 1 / 0.9, rounded once to fp32


def _dropout_ln_inputs(shapes, r):
    # a residual stream with per-row offsets, a sublayer output, keep bits of
    # p = 0.1, layernorm's gamma and beta
    n, d = shapes["res"]
    return {"res": r.uniform(-1, 1, (n, 1)) + r.standard_normal((n, d)),
            "dx": r.standard_normal((n, d)),
            "keep": (r.uniform(0, 1, (n, d)) >= 0.1).astype(np.uint8),
            "gamma": r.uniform(0.5, 1.5, shapes["gamma"]), "beta": 0.5 * r.standard_normal(shapes["beta"])}


def _dropout_h(res, dx, keep):
    """h in fp32 as the kernel rounds it: (dx * 1/(1-p)) * keep, + res, bf16."""
    dd = (dx.astype(np.float32) * E08_SCALE) * keep.astype(np.float32)
    return bf16_dec(bf16_enc(res.astype(np.float32) + dd))


@probe({"h": EXACT,
        "y": Tol(ulps=1, bound=lambda x, ref: layernorm_bound(
            _dropout_h(x["res"], x["dx"], x["keep"]).astype(np.float64), x["gamma"], x["beta"]),
            why="mean and variance in another order")},
       make=_dropout_ln_inputs)
def e08_resid_dropout_ln_bf16_d1000(res, dx, keep, gamma, beta):
    # h: the same fp32 roundings as the kernel's scalar_tensor_tensor and add; y:
    # numpy's two-pass layernorm of h (d01's), within LAYERNORM_TOL's bound
    dd = (bf16_dec(dx) * E08_SCALE) * keep
    h = bf16_enc(bf16_dec(res) + dd)
    v = bf16_dec(h)
    xc = v - v.mean(axis=1, keepdims=True)
    sd = np.sqrt(np.square(xc).mean(axis=1, keepdims=True) + np.float32(1e-5))
    return {"h": h, "y": bf16_enc(xc / sd * bf16_dec(gamma) + bf16_dec(beta))}


# --- the f series ---------------------------------------------------------------

def _nli_head_inputs(shapes, r):
    # token states of spread 2 (to_storage rounds them to e5m2), head weights at
    # 1/sqrt(H) (logits of order 1-3), a small bias
    t, hd = shapes["h"]
    return {"h": 2.0 * r.standard_normal((t, hd)), "w": r.standard_normal(shapes["w"]) / np.sqrt(hd),
            "b": 0.5 * r.standard_normal(shapes["b"])}


def _nli_z_bound(x, ref):
    """f01's z: e5m2 products exact in fp32, the H sums in another order
    (matmul_bound); the bias add rounds slightly different sums (the ulp)."""
    return matmul_bound(x["h"], x["w"])


def _nli_y_bound(x, ref):
    """f01's y = z + (-m - log s) before the bf16 rounding: z within dz (above) and m
    with it, so each exp's argument within 2 dz and s within 2 dz + (EXP_ULPS + 2C + 2)u
    relative (exps, the C-term sum in another order); log within 1 ulp (runtime) and
    3.34 (numpy): 4 fp32 steps of log s; the subtract and the add 2u each of |off|
    and |ref|."""
    z = x["h"] @ x["w"] + x["b"]
    dz = _nli_z_bound(x, None).max(axis=1, keepdims=True)
    m = z.max(axis=1, keepdims=True)
    ls = np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    c = z.shape[1]
    return (3 * dz + 2 * dz + (EXP_ULPS + 2 * c + 2) * U32 + 4 * spacing(ls, "float32")
            + 2 * U32 * np.abs(m + ls) + 2 * U32 * np.abs(ref))


@probe({"z": Tol(ulps=1, bound=_nli_z_bound, why="H = 768 sums in another order"),
        "y": Tol(ulps=1, bound=_nli_y_bound, why="the logits' sums, exp, the 3-term sum, log")},
       make=_nli_head_inputs)
def f01_nli_head_e5m2_n3(h, w, b):
    # the kernel's order: z = (h W) + b; off = -m - log(sum exp(z - m)); y = z + off
    z = F8_E5M2[h] @ F8_E5M2[w] + b
    m = z.max(axis=1, keepdims=True)
    off = -m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    return {"z": z, "y": bf16_enc(z + off)}


def _cgemm_bound(x, ref):
    """f02's Re and Im C: each a 2K-term sum of exact bf16 products (Ar Br and -Ai Bi,
    or Ar Bi and Ai Br), summed by the kernel chunk by chunk through PSUM, by cgemm in
    its own order: matmul_bound over the two halves side by side (K' = 2K)."""
    a, b = x["a"], x["b"]
    ar, ai, br, bi = a[..., 0::2], a[..., 1::2], b[..., 0::2], b[..., 1::2]
    sw = lambda t: t.swapaxes(-1, -2)
    re = matmul_bound(np.concatenate([sw(ar), sw(ai)], -1), np.concatenate([br, bi], -2))
    im = matmul_bound(np.concatenate([sw(ar), sw(ai)], -1), np.concatenate([bi, br], -2))
    return np.stack([re, im], -1).reshape(ref.shape)


@probe({"c": Tol(ulps=1, bound=_cgemm_bound, why="2K-term sums in another order")})
def f02_cgemm_interleaved_bf16(a, b):
    # a numpy user's complex64 product (cgemm) of the interleaved views
    av, bv = bf16_dec(a), bf16_dec(b)
    ac = np.empty(av.shape[:-1] + (av.shape[-1] // 2,), np.complex64)
    bc = np.empty(bv.shape[:-1] + (bv.shape[-1] // 2,), np.complex64)
    ac.real, ac.imag = av[..., 0::2], av[..., 1::2]
    bc.real, bc.imag = bv[..., 0::2], bv[..., 1::2]
    cc = np.matmul(ac.swapaxes(-1, -2), bc)
    return {"c": cc.view(np.float32)}


def _requant_inputs(shapes, r):
    # int8 codes over the whole range, zero points near 0, fp16 scales that keep
    # |x - zp| s below e4m3's 240 (some results subnormal in e4m3)
    return {"x": r.integers(-128, 128, shapes["x"]).astype(np.int8),
            "zp": r.integers(-20, 21, shapes["zp"]).astype(np.int8),
            "s": r.uniform(0.004, 0.8, shapes["s"])}


@probe({"y": EXACT}, make=_requant_inputs)
def f03_i8_requant_fp8_chan(x, zp, s):
    # x - zp exact in fp32, times the fp16 scale one fp32 rounding, then e4m3 (RNE)
    # on both sides
    v = (x.astype(np.float32) - zp.astype(np.float32)[:, None]) * f16_dec(s)[:, None]
    return {"y": fp8_e4m3_enc(v)}


def _rglru_inputs(shapes, r):
    # decays in (0.5, 0.999) as RG-LRU's a = sigma(L)^(c r) gives them (some at bf16's
    # 0.99x steps, so the state holds ~100 steps), inputs standard normal
    return {"a": r.uniform(0.5, 0.999, shapes["a"])}


@probe({"h": EXACT}, make=_rglru_inputs)
def f04_rglru_scan_bf16(a, x):
    # a a exact in fp32 (bf16 squares), 1 - a^2 and sqrt (correctly rounded both
    # sides) and the product one fp32 rounding each, u rounded to bf16; the scan's
    # state in fp32, a r then + u rounded once each, h rounded to bf16 (d06's form)
    av, xv = bf16_dec(a), bf16_dec(x)
    u = bf16_dec(bf16_enc(np.sqrt(np.float32(1) - av * av) * xv))
    at = np.ascontiguousarray(np.moveaxis(av, -1, 0))
    ut = np.ascontiguousarray(np.moveaxis(u, -1, 0))
    hs = np.empty_like(ut)
    r = np.zeros(ut.shape[1:], np.float32)
    for t in range(ut.shape[0]):
        r = at[t] * r + ut[t]
        hs[t] = r
    return {"h": bf16_enc(np.moveaxis(hs, 0, -1))}


F05_INV_L = np.float32(1 / 77)   # the spec's 1 / L, rounded once to fp32


@probe({"mean": EXACT, "mx": EXACT})
def f05_tokpool_preduce_l77(x):
    # partition_reduce folds partitions 0, 1, ... in fp32; numpy's sum over the
    # middle axis adds whole rows in order, the same fold (r09); then one fp32
    # multiply; the max of bf16 values is exact in any order
    v = bf16_dec(x)
    return {"mean": v.sum(axis=1) * F05_INV_L, "mx": bf16_enc(v.max(axis=1))}


def _pq_inputs(shapes, r):
    # codes anywhere in 0..255, centroids of order 0.3 (unit-norm vectors' 8-dim
    # pieces), norms in [0.5, 20]
    return {"codes": r.integers(0, 256, shapes["codes"]).astype(np.uint8),
            "cb": 0.3 * r.standard_normal(shapes["cb"]), "nrm": r.uniform(0.5, 20, shapes["nrm"])}


@probe({"y": EXACT}, make=_pq_inputs)
def f06_pq_decode_u8_gather(codes, cb, nrm):
    # per subspace a fancy-index gather of the codebook (fp16 -> fp32 exact), the
    # product by the norm one fp32 rounding, then bf16
    n, m = codes.shape
    cbv = f16_dec(cb)
    g = cbv[np.arange(m)[None, :], codes]            # [N, M, DS]
    return {"y": bf16_enc(g.reshape(n, -1) * nrm[:, None])}


@probe({"o": Tol(ulps=1, bound=_gqa_bound, why="QK^T sums, exp, P in bf16, the P V sums")})
def f07_fp8_kv_decode_peT_l200(q, k, v):
    # z07's math (its bound too: bf16 x e4m3 and bf16 x e4m3 products are exact in
    # fp32 as bf16 x bf16 ones are) over an e4m3 cache of 200 keys; the PE transposes
    # and the copy back into e4m3 move e4m3 values unchanged
    return {"o": _gqa_decode_f32(bf16_dec(q), F8_E4M3[k], F8_E4M3[v])}


def _i16_embed_inputs(shapes, r):
    # ids anywhere in the table (int16: V = 30000 < 2^15), rows of spread 0.05 (an
    # embedding's init) and per-token scales that put |y| up to ~100 (e4m3's 240)
    return {"ids": r.integers(0, shapes["table"][0], shapes["ids"]).astype(np.int16),
            "table": 0.05 * r.standard_normal(shapes["table"]), "qs": r.uniform(1, 25, shapes["qs"])}


@probe({"y": EXACT}, make=_i16_embed_inputs)
def f08_embed_i16ids_fp8_out(ids, table, qs):
    # the gather moves bits; x 16 exact, x the bf16 scale one fp32 rounding, e4m3 RNE
    g = bf16_dec(table[ids])
    return {"y": fp8_e4m3_enc((g * np.float32(16)) * bf16_dec(qs)[:, None])}



# --- the g series -------------------------------------------------------------------

def _tokmlp_inputs(shapes, r):
    # LayerNorm'd token features (order 1), weights at 1/sqrt(49) (to_storage rounds
    # them to e4m3: about 1 in 8 lands below 2^-6, e4m3's subnormals), biases of
    # order 0.3: pre-activations of order 1, both sides of GELU's bend
    return {"w1": r.standard_normal(shapes["w1"]) / 7.0, "b1": 0.3 * r.standard_normal(shapes["b1"])}


def _tokmlp_bound(x, ref):
    """g01's h before the bf16 rounding. z = W1^T x + b1: the 49 e4m3 x bf16
    products exact in fp32, their sums in another order (matmul_bound), the bias add
    one rounding each side (2u|z|); gelu_tanh's slope lies in [-0.17, 1.13], so z's
    difference carries through at most 1.13 times; numpy's fp32 tanh form against
    the runtime's value, gelu_tanh_bound."""
    w, xx = x["w1"], x["x"]
    z = np.matmul(w.T, xx) + x["b1"]
    return 1.13 * (matmul_bound(w.T, xx) + 2 * U32 * np.abs(z)) + gelu_tanh_bound(z, ref)


@probe({"h": Tol(ulps=1, bound=_tokmlp_bound, why="the K = 49 sums, the fp32 tanh form")}, make=_tokmlp_inputs)
def g01_mixer_tokmlp_e4m3_k49(x, w1, b1):
    # one batched sgemm of the decoded weights' transpose against every image's
    # [49, 768] block, the bias column, GELU's tanh form in fp32 (p4b's), bf16
    z = np.matmul(F8_E4M3[w1].T, bf16_dec(x)) + b1
    return {"h": bf16_enc(_gelu_tanh(z))}


@probe({"y": EXACT}, make=lambda shapes, r: {"x": r.integers(0, 256, shapes["x"]).astype(np.uint8)})
def g02_frame_transpose_u8_peT(x):
    # the PE transpose moves uint8 values through fp32 PSUM and back unchanged
    return {"y": np.ascontiguousarray(x.transpose(0, 2, 1))}


G03_ALPHA = np.float32(1.702)   # the spec's scale, rounded once to fp32


# gpt-oss's pre-activations of spread 4: about 8 % of each half beyond the clamps.
# y: the clamps exact (7 is a bf16 value), sigmoid's argument g * 1.702 the same fp32
# value on both sides; sigmoid 8.1u apart (z01's derivation: numpy's exp within
# 2.52 ulp, the runtime's value correctly rounded); g sg, l + 1 and the product one
# rounding each side of slightly different values (+2u each): within 12.1u of each
# other, 14u of |ref| with ref's bf16 rounding; then one bf16 step
@probe({"y": Tol(ulps=1, bound=rel(14), why="numpy's exp in sigmoid")},
       make=lambda shapes, r: {"x": 4.0 * r.standard_normal(shapes["x"])})
def g03_gptoss_swiglu_s2_bf16(x):
    v = bf16_dec(x)
    g = np.minimum(v[:, 0::2], np.float32(7))
    sg = np.float32(1) / (np.float32(1) + np.exp(-(g * G03_ALPHA)))
    lp = np.clip(v[:, 1::2], np.float32(-7), np.float32(7)) + np.float32(1)
    return {"y": bf16_enc(lp * (g * sg))}


def _proj_inputs(shapes, r):
    # vision features of order 1 (to_storage rounds them to fp16), weights at
    # 1/sqrt(K), small biases
    return {"w": r.standard_normal(shapes["w"]) / np.sqrt(shapes["w"][0]),
            "b": 0.1 * r.standard_normal(shapes["b"])}


# y: fp16 x bf16 products exact in fp32 (19 significant bits), the K = 1152 sums in
# another order (matmul_bound), the bias add one rounding each side (3u |ref| with
# ref's bf16 rounding), then one bf16 step
@probe({"y": Tol(ulps=1, bound=lambda x, ref: matmul_bound(x["x"], x["w"]) + 3 * U32 * np.abs(ref),
                 why="fp32 sums in another order")}, make=_proj_inputs)
def g04_vlm_proj_f16xbf16(x, w, b):
    return {"y": bf16_enc(np.matmul(f16_dec(x), bf16_dec(w)) + bf16_dec(b))}


def _layerscale_inputs(shapes, r):
    # LayerScale gammas of a trained ViT (0.01 - 1), drop path per image of 257
    # tokens with p = 0.1: 0 or 1/0.9 (to_storage rounds it to fp16)
    t = shapes["x"][0]
    keep = r.random((t + 256) // 257) >= 0.1
    return {"gamma": r.uniform(0.01, 1.0, shapes["gamma"]),
            "dp": np.where(keep[np.arange(t) // 257], 1 / 0.9, 0.0)[:, None]}


@probe({"y": EXACT}, make=_layerscale_inputs)
def g05_layerscale_droppath_bf16_f16(x, res, gamma, dp):
    # x gamma exact in fp32 (bf16 x fp16: 19 significant bits), then times dp and
    # plus res one fp32 rounding each alike, then bf16
    xg = bf16_dec(x) * f16_dec(gamma)
    return {"y": bf16_enc(xg * f16_dec(dp) + bf16_dec(res))}


G06_SCALE = np.float32(0.11180339887498948)   # 1 / sqrt(80), as the spec's float field


@probe({"o": Tol(ulps=1, bound=lambda x, ref: _gqa_bound(x, ref, "float16"),
                 why="QK^T sums, exp, P in fp16, the P V sums")})
def g06_sd_xattn_f16_l77(q, k, v):
    # z07's math with DH = 80's scale and P in fp16 (its bound too, P's flips in fp16:
    # fp16 x fp16 products are exact in fp32 as bf16 x bf16 ones are); the transposes,
    # DMA and PE, move fp16 values unchanged
    return {"o": f16_enc(_gqa_decode_f32(f16_dec(q), f16_dec(k), f16_dec(v), G06_SCALE, (f16_enc, f16_dec)))}


G07_INV = np.float32(1 / 49)   # the spec's 1 / 49, rounded once to fp32


# avg: the 49 fp16 values (exact in fp32) summed left to right in C, pairwise by
# numpy: (2D + 2)u sum|x| with D = 49 (row_sum_bound), times 1/49, one rounding each
# side (3u |ref| with ref's fp16 rounding), then one fp16 step. mx: exact
@probe({"avg": Tol(ulps=1, bound=lambda x, ref: (100 * U32 * np.abs(x["x"]).sum(axis=(2, 3)) / 49
                                                + 3 * U32 * np.abs(ref)), why="the 49-term sums in another order"),
        "mx": EXACT},
       make=lambda shapes, r: {"x": np.maximum(1.5 * r.standard_normal(shapes["x"]) + 0.3, 0.0)})
def g07_gpool7x7_f16_d49(x):
    # post-ReLU features (a quarter of them 0)
    v = f16_dec(x).reshape(x.shape[0], x.shape[1], -1)
    return {"avg": f16_enc(v.sum(axis=2) * G07_INV), "mx": f16_enc(v.max(axis=2))}


def _router_inputs(shapes, r):
    # router logits of spread 2, rounded to fp16 here; rows whose 9 largest are not
    # all distinct are drawn again: with a tie there, nc_find_index8 gives the first
    # index twice where argpartition gives both (a duplicated expert), and the 8th
    # and 9th tied leave which of the two max8 keeps to the index order
    t, e = shapes["logits"]
    v = (2.0 * r.standard_normal((t, e))).astype(np.float16)
    while True:
        top = -np.sort(-v.astype(np.float32), axis=1)[:, :9]
        bad = np.nonzero((top[:, 1:] == top[:, :-1]).any(axis=1))[0]
        if bad.size == 0:
            return {"logits": v.astype(np.float64)}
        v[bad] = (2.0 * r.standard_normal((bad.size, e))).astype(np.float16)


# w: exp's argument v_j - v_0 the same fp32 value on both sides; the exps 3.52 ulp
# (7.04u) apart; the 8-term sums in the same order, 7 roundings each side of
# slightly different terms (14u): 21.04u; the reciprocal 2u more, the product 2u:
# within 32.1u of each other
@probe({"idx": EXACT, "w": Tol(bound=rel(33), why="numpy's exp, the 8-term sum")}, make=_router_inputs)
def g08_moe_router_top8_f16_e128(logits):
    # the 8 largest by argpartition, ordered by value (distinct: the inputs' rule), then
    # e07's softmax over the 8, the sum folded left to right as exp's reduce
    v = f16_dec(logits)
    n = v.shape[1]
    i8 = np.argpartition(v, n - 8, axis=1)[:, n - 8:]
    i8 = np.take_along_axis(i8, np.argsort(-np.take_along_axis(v, i8, axis=1), axis=1), axis=1)
    t8 = np.take_along_axis(v, i8, axis=1)
    e8 = np.exp(t8 - t8[:, :1])
    s = e8[:, :1].copy()
    for j in range(1, 8):
        s += e8[:, j:j + 1]
    return {"idx": i8.astype(np.uint32), "w": e8 * (np.float32(1) / s)}


# --- the h series -------------------------------------------------------------------

def _rmsnorm_f32_inputs(shapes, r):
    # hidden states whose rows have their own scale (0.1 - 10: the sum of squares
    # spans four decades), RMSNorm weights of a trained model (0.5 - 1.5)
    n, d = shapes["x"]
    return {"x": r.uniform(0.1, 10, (n, 1)) * r.standard_normal((n, d)),
            "gamma": r.uniform(0.5, 1.5, shapes["gamma"])}


# y: the squares one rounding each alike (the runtime's square in binary64 rounded
# once is the correctly rounded fp32 product, as numpy's x * x); their sums of D
# positive terms within gamma_(D-1) of the exact sum each (the C fold left to
# right, numpy pairwise): 2(D - 1)u relative apart; ss / D exact (a power of two),
# + eps one rounding each side (2u); rsqrt halves the argument's relative
# difference, then rounds (the runtime's rsqrt within 1u, numpy's sqrt and divide
# 2u): rstd within (D + 4)u relative; (x rstd) gamma two roundings each side (4u):
# (D + 8)u |y|, taken as (D + 16)u for the second-order terms. fp32 out: no step.
@probe({"y": Tol(bound=lambda x, ref: (x["x"].shape[1] + 16) * U32 * np.abs(ref),
                 why="the D = 4096 sums of squares in another order, rsqrt")},
       make=_rmsnorm_f32_inputs)
def h01_rmsnorm_f32_d4096(x, gamma):
    ss = (x * x).sum(axis=1, keepdims=True)
    rstd = np.float32(1) / np.sqrt(ss * np.float32(1 / x.shape[1]) + np.float32(1e-5))
    return {"y": (x * rstd) * gamma}


def _layernorm_1d_inputs(shapes, r):
    # _layernorm_inputs' rows (each its own offset and scale) with gamma and beta
    # as the 1-D [D] vectors the spec takes
    n, d = shapes["x"]
    x = r.uniform(-1, 1, (n, 1)) + r.uniform(0.5, 2, (n, 1)) * r.standard_normal((n, d))
    return {"x": x, "gamma": r.uniform(0.5, 1.5, d), "beta": 0.5 * r.standard_normal(d)}


# y: layernorm_bound (LAYERNORM_TOL) holds here as it does for bn_stats: the C
# simulation and numpy run the same two-pass algorithm (the row sum, -mean by the
# exact multiply by -1/D, the shifted squares each one rounding alike, their sum,
# rsqrt), so they differ only by the two sums' orders (gamma_D each) and rsqrt
# against numpy's sqrt and divide, within that bound's (2D + 64)u of the
# magnitude each; (x - mean) rstd, times gamma, plus beta in the same order on
# both sides; then one bf16 step
@probe({"y": LAYERNORM_TOL}, make=_layernorm_1d_inputs)
def h02_layernorm_2pass_bf16_d2048(x, gamma, beta):
    v = bf16_dec(x)
    nmu = v.sum(axis=1, keepdims=True) * np.float32(-1 / v.shape[1])
    t = v + nmu
    vs = (t * t).sum(axis=1, keepdims=True)
    rstd = np.float32(1) / np.sqrt(vs * np.float32(1 / v.shape[1]) + np.float32(1e-5))
    return {"y": bf16_enc((t * rstd) * bf16_dec(gamma) + bf16_dec(beta))}


def _paged_kv_inputs(shapes, r):
    # each sequence's MB blocks distinct physical blocks of the cache (S * MB =
    # 512 of NB = 1024), lengths 1 - L with one sequence full and one of a single
    # token
    s, mb = shapes["block_table"]
    nb = shapes["kc"][0] // 16
    lens = r.integers(1, mb * 16 + 1, s)
    lens[0], lens[1] = mb * 16, 1
    return {"block_table": r.permutation(nb)[:s * mb].reshape(s, mb).astype(np.int32),
            "seq_lens": lens.astype(np.int32)}


# k_out: slots by the same integer arithmetic, bf16 rows moved unchanged (select's
# fp32 round trip of a bf16 value is exact), +0 past the length: exact
@probe({"k_out": EXACT}, make=_paged_kv_inputs)
def h03_paged_kv_gather_i32(kc, block_table, seq_lens):
    pos = np.arange(block_table.shape[1] * 16)
    slot = block_table[:, pos >> 4] * 16 + (pos & 15)
    out = kc[slot]
    out[pos[None, :] >= seq_lens[:, None]] = 0
    return {"k_out": out}


def _tome_inputs(shapes, r):
    # raw q.k logits of a head of 64 (spread 16: after the 1/8 scale about N(0, 4),
    # peaked rows), token sizes 1 - 8 after merging, their logs (bf16 here)
    return {"s": 16.0 * r.standard_normal(shapes["s"]),
            "logsz": np.log(r.integers(1, 9, shapes["logsz"]))}


# p: s / 8 exact (a power of two) and + logsz one rounding alike, the max exact:
# exp's argument the same fp32 value on both sides; then z04's derivation with
# L = 197: exp 7.04u apart, the row sums (2L + 2)u plus the terms' 7.04u, the
# reciprocal and the product 4u: (2L + 21)u, rounded up; then one fp16 step
@probe({"p": Tol(ulps=1, bound=lambda x, ref: (2 * x["s"].shape[1] + 24) * U32 * np.abs(ref),
                 why="numpy's exp, the row sums")}, make=_tome_inputs)
def h04_tome_propattn_f16_l197(s, logsz):
    t = f16_dec(s) * np.float32(0.125) + bf16_dec(logsz)
    e = np.exp(t - t.max(axis=1, keepdims=True))
    return {"p": f16_enc(e * (np.float32(1) / e.sum(axis=1, keepdims=True)))}


# dbias: e5m2 values times 1 exact, the T = 4096 sums in another order (the C
# simulation 128 terms a matmul then PSUM adds, numpy adds rows in turn):
# matmul_bound of a ones row against dy. amax: abs, max and the widening exact
@probe({"dbias": Tol(bound=lambda x, ref: matmul_bound(np.ones((1, x["dy"].shape[0])), x["dy"]),
                     why="the T = 4096 sums in another order"),
        "amax": EXACT},
       make=lambda shapes, r: {"dy": 0.05 * r.standard_normal(shapes["dy"])})
def h05_dbias_amax_e5m2(dy):
    # gradients of spread 0.05: to_storage rounds them to e5m2, about 1 in 3000
    # below 2^-14 (e5m2's subnormals)
    v = F8_E5M2[dy]
    return {"dbias": v.sum(axis=0, keepdims=True), "amax": np.abs(v).max(axis=0, keepdims=True)}


def _lora_inputs(shapes, r):
    # activations of order 1, A at Kaiming's 1/sqrt(H), a trained B of spread 0.05,
    # the base layer's output of order 1
    return {"a": r.standard_normal(shapes["a"]) / np.sqrt(shapes["a"][0]),
            "b": 0.05 * r.standard_normal(shapes["b"])}


def _lora_bound(x, ref):
    """h06's y before the bf16 rounding. h = x A: bf16 products exact, the H = 2048
    sums in another order (matmul_bound); rounded to bf16 the two may land a step
    apart where h lies that close to a rounding boundary (_bf16_flip), else alike.
    h B: the flips times |B|, the K = 16 sums in another order; times 2 exact,
    + y0 one rounding each side (2u|y|)."""
    h = np.matmul(x["x"], x["a"])
    dh = _bf16_flip(h, matmul_bound(x["x"], x["a"]) / np.maximum(np.abs(h), TINY))
    hb = np.abs(h) * (1 + 2.0 ** -8)  # |bf16(h)| <= |h| (1 + 2^-8): the values multiplied
    return 2 * (np.matmul(dh, np.abs(x["b"])) + matmul_bound(hb, x["b"])) + 2 * U32 * np.abs(ref)


# y: _lora_bound, then one bf16 step
@probe({"y": Tol(ulps=1, bound=_lora_bound, why="the K = 2048 sums, h's bf16 rounding, the K = 16 sums")},
       make=_lora_inputs)
def h06_lora_r16_bf16(x, a, b, y0):
    # the transposes (DMA and PE) move bf16 values unchanged
    h = bf16_dec(bf16_enc(np.matmul(bf16_dec(x), bf16_dec(a))))
    return {"y": bf16_enc(np.matmul(h, bf16_dec(b)) * np.float32(2) + bf16_dec(y0))}


def _nms_inputs(shapes, r):
    # proposals around 40 objects of a 640 x 640 image (each 25 boxes jittered by
    # 10 % of its size, many pairs above IoU 0.5), sides 16 - 256 px
    b, n, _ = shapes["boxes"]
    obj = r.integers(0, 40, (b, n))
    cx, cy = r.uniform(0, 640, (b, 40)), r.uniform(0, 640, (b, 40))
    w, h = r.uniform(16, 256, (b, 40)), r.uniform(16, 256, (b, 40))
    pick = lambda v: np.take_along_axis(v, obj, axis=1)  # noqa: E731
    bw = pick(w) * r.uniform(0.9, 1.1, (b, n))
    bh = pick(h) * r.uniform(0.9, 1.1, (b, n))
    x0 = pick(cx) + 0.1 * pick(w) * r.standard_normal((b, n))
    y0 = pick(cy) + 0.1 * pick(h) * r.standard_normal((b, n))
    return {"boxes": np.stack([x0 - bw / 2, y0 - bh / 2, x0 + bw / 2, y0 + bh / 2], axis=2)}


# mask: every step one fp32 rounding in the same order on both sides (max, min,
# the subtractions, the clamps, the product, (area_j + area_i) - inter, IEEE divide,
# the compare): exact
@probe({"mask": EXACT}, make=_nms_inputs)
def h07_nms_iou_mask_f32_n1000(boxes):
    x1, y1, x2, y2 = (boxes[:, :, k] for k in range(4))
    area = (x2 - x1) * (y2 - y1)
    iw = np.minimum(x2[:, None, :], x2[:, :, None]) - np.maximum(x1[:, None, :], x1[:, :, None])
    ih = np.maximum(np.minimum(y2[:, None, :], y2[:, :, None]) - np.maximum(y1[:, None, :], y1[:, :, None]),
                    np.float32(0))
    inter = np.maximum(iw, np.float32(0)) * ih
    iou = inter / ((area[:, None, :] + area[:, :, None]) - inter)
    n = boxes.shape[1]
    return {"mask": ((iou > np.float32(0.5)) & np.triu(np.ones((n, n), dtype=bool), 1)).astype(np.uint8)}


# q, qT: bf16 x scale one fp32 rounding alike, then e4m3 rounding to nearest even
# (fp8_e4m3_enc, exact as r04 uses it); the transpose moves bytes. amax: exact
@probe({"q": EXACT, "qT": EXACT, "amax": EXACT},
       make=lambda shapes, r: {"scale": np.full(shapes["scale"], 32.0)})
def h08_fp8_cast_transpose_amax(x, scale):
    # activations N(0, 1) (|x| below 5.6 over 4 M), scale 32: |q| up to ~180, under
    # e4m3's 240; about 1 in 2500 below 2^-6 / 32 (e4m3's subnormals)
    v = bf16_dec(x)
    q = fp8_e4m3_enc(v * scale[0])
    return {"q": q, "qT": np.ascontiguousarray(q.T), "amax": np.abs(v).max().reshape(1, 1)}


def main(argv):
    if argv[:1] == ["list"]:
        print("\n".join(sorted(PROBES)))
        return 0
    if len(argv) < 3 or argv[0] not in ("inputs", "run"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] not in PROBES:
        print("np_probes.py: no numpy function for probe %s" % argv[1], file=sys.stderr)
        return 2
    try:
        if argv[0] == "inputs":
            write_inputs(argv[1], argv[2], int(argv[3]) if len(argv) > 3 else 0)
            return 0
        return run(argv[1], argv[2], int(argv[3]) if len(argv) > 3 else 5)
    except Exception:  # noqa: BLE001 - a crash is exit 2, never a mismatch (exit 1)
        traceback.print_exc()
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


