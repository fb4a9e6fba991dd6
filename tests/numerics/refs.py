#!/usr/bin/python3
"""numpy references for the bundled kernels in specs/ (run with /usr/bin/python3).

For each kernel: deterministic inputs in the .npy storage format of SPEC.md §3,
the expected outputs (fp64 math, or an fp32-faithful model where SPEC.md §5
fixes every rounding), and a per-output tolerance whose derivation is in the
comments and in README.md. CLI:
    refs.py inputs KERNEL --seed S --dir D     write D/<input>.npy
    refs.py compare KERNEL --dir D             check D/<output>.npy, exit 0/1
    refs.py expected KERNEL --dir D            write D/expected_<output>.npy
    refs.py prints KERNEL --dir D --prints P   check the prints tilegen run --print-dir P saved
    refs.py batch                              LOG RC ARGS... per stdin line: the above, one Python start
    refs.py list | selftest
"""
import argparse
import contextlib
import os
import re
import sys
import traceback
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fpformat as fp  # noqa: E402

from reflib import (TINY, U32, U_BF16, ULP_BF16, Packed, bf16, f32, from_storage,  # noqa: E402,F401
                    storage_dtype, to_storage)
from reflib import flip as _flip  # noqa: E402
from reflib import kernel as _k  # noqa: E402

SPECS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "specs")


# --- inputs -------------------------------------------------------------------

def _rng(kernel, seed):
    return np.random.default_rng([int(seed), zlib.crc32(kernel.encode())])


def _inputs_tensor_add(p, r):
    return {"a": r.standard_normal((p["N"], p["M"])), "b": r.standard_normal((p["N"], p["M"]))}


def _inputs_transpose2d(p, r):
    return {"x": r.standard_normal((p["N"], p["F1"], p["F2"]))}


def _inputs_matmul(p, r):
    return {"lhsT": r.uniform(-1, 1, (p["K"], p["M"])), "rhs": r.uniform(-1, 1, (p["K"], p["N"]))}


def _inputs_softmax(p, r):
    # Logit-like rows with per-row offsets: exercises the max subtraction.
    x = 3.0 * r.standard_normal((p["N"], p["D"])) + r.uniform(-20, 20, (p["N"], 1))
    return {"x": x}


def _inputs_rmsnorm(p, r):
    return {"x": r.standard_normal((p["N"], p["D"])) * r.uniform(0.5, 4, (p["N"], 1)),
            "g": r.uniform(0.5, 1.5, (1, p["D"]))}


def _inputs_layernorm(p, r):
    n, d = p["N"], p["D"]
    x = r.uniform(-1, 1, (n, 1)) + r.uniform(0.5, 2, (n, 1)) * r.standard_normal((n, d))
    return {"x": x, "gamma": r.uniform(0.5, 1.5, (1, d)), "beta": 0.5 * r.standard_normal((1, d))}


def _inputs_avgpool2d(p, r):
    return {"x": r.standard_normal((p["C"], p["H"], p["W"]))}


def _inputs_cumsum(p, r):
    return {"x": r.standard_normal((p["N"], p["H"]))}


def _inputs_rope(p, r):
    s, d = p["S"], p["D"]
    inv_freq = 10000.0 ** (-np.arange(0, d, 2) / d)          # the usual RoPE frequencies
    ang = np.arange(s)[:, None] * inv_freq[None, :]
    return {"x": r.standard_normal((p["H"], s, d)), "cos": np.cos(ang), "sin": np.sin(ang)}


def _inputs_mlp(p, r):
    t, dm, f = p["T"], p["DM"], p["F"]
    # Weights scaled by 1/sqrt(fan_in) so activations stay O(1), as in a trained model.
    return {"x": r.standard_normal((t, dm)),
            "wg": r.standard_normal((dm, f)) / np.sqrt(dm),
            "wu": r.standard_normal((dm, f)) / np.sqrt(dm),
            "wd": r.standard_normal((f, dm)) / np.sqrt(f)}


def _inputs_attention(p, r):
    # Unit-variance q/k: with the 1/sqrt(d) scale the scores are O(1) as in a real model.
    s, d = p["S"], p["D"]
    return {n: r.standard_normal((s, d)) for n in ("q", "k", "v")}


# --- references: each returns {output: (expected fp64, bound)} -----------------
# `bound` is either "exact" (the stored bits must equal those of `expected`) or
# an array of allowed |output - expected| per element.

def _ref_tensor_add(p, x):
    # Vector add in fp32: one correctly rounded add (fp64 add then fp32 rounding is
    # the same, 53 >= 2*24+2), so the output is exact.
    return {"c": (f32(x["a"] + x["b"]), "exact")}


def _ref_tensor_add_bf16(p, x):
    # Widened to fp32, one fp32 add, then RNE to bf16: modelled step by step -> exact.
    return {"c": (bf16(f32(x["a"] + x["b"])), "exact")}


def _ref_transpose2d(p, x):
    return {"y": (x["x"].transpose(0, 2, 1).copy(), "exact")}


def _ref_matmul(p, x):
    # SPEC.md §5 fixes matmul bit for bit: each bf16*bf16 product is exact in fp32,
    # the K products are summed in fp32 in increasing k, the first K tile
    # overwrites PSUM and the rest accumulate. Modelled that way -> exact. (Were the
    # order free, the bound would be gamma_K * sum|a*b|, ~1.5e-4 relative here.)
    a, b = x["lhsT"].astype(np.float32), x["rhs"].astype(np.float32)
    acc = np.outer(a[0], b[0]).astype(np.float32)
    for k in range(1, a.shape[0]):
        acc += np.outer(a[k], b[k]).astype(np.float32)
    return {"result": (acc.astype(np.float64), "exact")}


def _ref_softmax(p, x):
    v = x["x"]
    e = np.exp(v - v.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    # x - max: 1 rounding; exp: our implementation's few ulp plus the argument's
    # rounding (|t| u, t >= -50 here); sum of D positive terms: gamma_D; reciprocal
    # and multiply: 1 ulp each. (D + 64) u covers all of them.
    return {"y": (ref, (p["D"] + 64) * U32 * np.abs(ref) + TINY)}


def _ref_rmsnorm(p, x):
    v, g, d = x["x"], x["g"], p["D"]
    ms = (v * v).sum(axis=1, keepdims=True) / d + f32(1e-6)
    ref = v / np.sqrt(ms) * g
    # sum of D squares (all positive): relative gamma_D; /D, +eps: 2u; rsqrt halves
    # the relative error of its argument and adds its own few ulp; two multiplies.
    return {"y": (ref, (d / 2 + 32) * U32 * np.abs(ref) + TINY)}


def _ref_layernorm(p, x):
    v, gam, bet, d = x["x"], x["gamma"], x["beta"], p["D"]
    mean = v.mean(axis=1, keepdims=True)
    var = ((v - mean) ** 2).mean(axis=1, keepdims=True)      # population variance
    rstd = 1.0 / np.sqrt(var + f32(1e-5))
    xn = (v - mean) * rstd
    ref = xn * gam + bet
    # mean: fp32 sums err by gamma_D * mean|x|; variance (bn_stats per 512 chunk,
    # even/odd records, bn_aggr combine): relative ~ gamma_D; rstd: half of that +
    # rsqrt ulps. Propagated to y: (2D + 64) u * (|gamma| (|xn| + mean|x| rstd) + |beta|).
    mag = np.abs(gam) * (np.abs(xn) + np.abs(v).mean(axis=1, keepdims=True) * rstd) + np.abs(bet)
    return {"y": (ref, (2 * d + 64) * U32 * mag + TINY)}


def _ref_avgpool2d(p, x):
    # fp32 model of the spec's order: acc = 0, += window element (a, b) in
    # row-major order (carried loops), then / (K*K). Every step is one fp32 op.
    v, k = x["x"].astype(np.float32), p["K"]
    acc = np.zeros((p["C"], p["H"] // k, p["W"] // k), dtype=np.float32)
    for a in range(k):
        for b in range(k):
            acc = acc + v[:, a::k, b::k]
    return {"y": ((acc / np.float32(k * k)).astype(np.float64), "exact")}


def _ref_cumsum(p, x):
    # r[j] = (1 * r[j-1]) + x[j] in fp32, chunks seeded with the exact fp32 carry:
    # the same sequence of roundings as numpy's sequential fp32 accumulate.
    v = x["x"].astype(np.float32)
    return {"y": (np.cumsum(v, axis=1, dtype=np.float32).astype(np.float64), "exact")}


def _ref_rope(p, x):
    # Each tensor_tensor is one fp32 op on fp32-widened inputs; bf16 rounding once
    # at the end: modelled op by op -> exact.
    v, c, s, h = x["x"].astype(np.float32), x["cos"].astype(np.float32), \
        x["sin"].astype(np.float32), p["D"] // 2
    x1, x2 = v[..., :h], v[..., h:]
    y1 = x1 * c - x2 * s
    y2 = x2 * c + x1 * s
    return {"y": (bf16(np.concatenate([y1, y2], axis=-1)), "exact")}


def _ref_mlp(p, x):
    xx, wg, wu, wd = x["x"], x["wg"], x["wu"], x["wd"]
    dm, f = p["DM"], p["F"]
    hg, hu = xx @ wg, xx @ wu
    sg = hg / (1.0 + np.exp(-hg))
    pre = sg * hu
    g = bf16(pre)              # the kernel stores g in bf16: model that rounding
    ref = g @ wd
    # The kernel's fp32 g before its bf16 rounding is within dpre of `pre`:
    # h from fp32 sums of exact products errs by gamma_DM |x||w|, silu' <= 1.1,
    # silu and the product add their own ulps (16 u allowed). Its stored g then
    # equals the reference g except where a bf16 rounding boundary lies within
    # dpre, where it is one bf16 step away (_flip). Then fp32 accumulation over F
    # (gamma_F |g||wd|) and the final bf16 rounding (half an ulp).
    ax = np.abs(xx)
    dhg, dhu = (dm + 2) * U32 * (ax @ np.abs(wg)), (dm + 2) * U32 * (ax @ np.abs(wu))
    dpre = 1.1 * np.abs(hu) * dhg + np.abs(sg) * dhu + 16 * U32 * np.abs(pre)
    err = _flip(pre, dpre) @ np.abs(wd) + (f + 8) * U32 * (np.abs(g) @ np.abs(wd))
    return {"y": (ref, U_BF16 * np.abs(ref) + 1.01 * err + TINY)}


def _ref_attention(p, x):
    q, k, v, s, d = x["q"], x["k"], x["v"], p["S"], p["D"]
    scale = f32(0.08838834764831845)          # the spec's fp32 literal 1/sqrt(128)
    sc = (q @ k.T) * scale
    causal = np.arange(s)[None, :] <= np.arange(s)[:, None]
    sc = np.where(causal, sc, -np.inf)
    arg = sc - sc.max(axis=1, keepdims=True)
    pre = np.exp(arg)
    pb = bf16(pre)                            # probabilities are stored in bf16
    rsum = pb.sum(axis=1, keepdims=True)      # SPEC: the reduce sums dst (bf16 values)
    ref = (pb @ v) / rsum
    # Scores: fp32 dot of D exact products, gamma_D |q||k| scale, plus the scale's
    # rounding; the row max moves by as much, the subtraction rounds once; exp
    # adds our implementation's few ulp (16 u allowed). That bounds the kernel's
    # fp32 probability before bf16 rounding (dpre); where a bf16 boundary lies
    # within dpre it may store the neighbouring bf16 value (_flip).
    # Then fp32 accumulation over S keys of P.v and of the row sum (gamma_S),
    # the output's bf16 rounding (half an ulp) and another half ulp because SPEC
    # does not say whether the reduce sums dst before or after its bf16 rounding.
    dsc = (d + 2) * U32 * scale * (np.abs(q) @ np.abs(k).T)
    dmax = np.where(causal, dsc, 0).max(axis=1, keepdims=True)
    darg = np.where(causal, dsc + dmax + U32 * np.abs(np.where(causal, arg, 0)), 0)
    dpre = pre * (np.expm1(darg) + 16 * U32)
    fl = _flip(pre, dpre)
    err = (fl @ np.abs(v) + np.abs(ref) * fl.sum(axis=1, keepdims=True)
           + (s + 64) * U32 * (np.abs(pb) @ np.abs(v) + np.abs(ref) * rsum)) / rsum
    return {"o": (ref, 2 * U_BF16 * np.abs(ref) + 1.01 * err + TINY)}


def _inputs_preduce(p, r):
    # fp32 values of mixed magnitude (the add's rounding order shows) with a few
    # ±0 pairs; int32 bit patterns below 2^24 (exact through the fp32 ALU),
    # within a per-column mask (so OR is not all ones) and sharing per-column
    # bits over the first R partitions only (so AND over R is non-zero and
    # differs from AND over P).
    x = r.standard_normal((p["P"], p["F"])) * np.exp2(r.integers(-8, 9, (p["P"], p["F"])))
    x[:2, :4] = [[0.0, -0.0, 0.0, -0.0], [-0.0, 0.0, 0.0, -0.0]]
    mask = r.integers(0, 1 << 24, (1, p["F"]))
    xi = r.integers(0, 1 << 24, (p["P"], p["F"])) & mask
    xi[: p["R"]] |= r.integers(0, 1 << 24, (1, p["F"])) & mask
    return {"x": x, "xi": xi}


def _ref_preduce(p, x):
    # GpSimd partition_reduce: a left fold over partitions 0, 1, ... in fp32 (the
    # order tg_ops.h fixes), one fp32 rounding per add -> modelled step by step,
    # exact. maximum and the bitwise ops are exact on these values.
    v, n = x["x"], p["R"]
    acc = f32(v[0])
    for q in range(1, v.shape[0]):
        acc = f32(acc + v[q])
    xi = x["xi"].astype(np.int64)
    return {"sum": (acc.reshape(1, -1), "exact"),
            "mx": (v[:n].max(axis=0).reshape(1, -1), "exact"),
            "bor": (np.bitwise_or.reduce(xi, axis=0).astype(np.float64).reshape(1, -1), "exact"),
            "band": (np.bitwise_and.reduce(xi[:n], axis=0).astype(np.float64).reshape(1, -1), "exact")}


def _inputs_introws(p, r):
    n, d = p["N"], p["D"]
    half = n // 2

    def mixed(shape):
        # the second tile's rows: each row small, or with values at the 2^23
        # range's edges, past it, or anywhere in int32 (blocks of 64 differ)
        v = r.integers(-2000, 2001, shape)
        edges = np.array([2 ** 23 - 1, -2 ** 23, 2 ** 23, -2 ** 23 - 1, 2 ** 24 + 1, -2 ** 24 - 3,
                          2 ** 31 - 1, -2 ** 31, 2 ** 11, -2 ** 11 - 1, 0])
        for row in range(shape[0]):
            kind = row % 4
            if kind == 1:
                cols = r.integers(0, shape[1], 3)
                v[row, cols] = r.choice(edges, 3)
            elif kind == 2:
                v[row] = r.integers(-2 ** 31, 2 ** 31, shape[1])
        return v

    a = np.concatenate([r.integers(-2000, 2001, (half, d)), mixed((n - half, d))])
    b = np.concatenate([r.integers(-2000, 2001, (half, d)), mixed((n - half, d))])
    a[:half:7, ::5] = 0  # zeros to meet negative factors
    return {"a": a, "b": b, "m": r.integers(-5, 6, (n, d))}


def _bitwise_and32(fa, fb):
    # tg_alu.h: each operand RNE to an integer, as a 32-bit pattern; the result
    # pattern reads back signed when either operand was negative
    pa = fa.astype(np.int64) & 0xffffffff
    pb = fb.astype(np.int64) & 0xffffffff
    r = pa & pb
    neg = ((fa < 0) | (fb < 0)) & (r >= 2 ** 31)
    return f32(np.where(neg, r - 2 ** 32, r).astype(np.float64))


def _ref_introws(p, x):
    # the engines' int32 elementwise ops: operands to fp32 (RNE), one fp32
    # op, the result to dst's dtype (RNE, saturating) -> modelled op by op, exact
    fa, fb, fm = f32(x["a"]), f32(x["b"]), f32(x["m"])
    return {"ys": (stored(fa + fb, "int32"), "exact"),
            "yp": (stored(fa * fm, "float32"), "exact"),
            "ymx": (stored(np.maximum(fa, fb), "uint8"), "exact"),
            "ygt": ((fa > p["THR"]).astype(np.float64), "exact"),
            "yt2": (stored(f32(fa * 3.0) - 5.0, "int32"), "exact"),
            "yrv": (stored(7.0 - fa, "int16"), "exact"),
            "yband": (stored(_bitwise_and32(fa, fb), "int32"), "exact"),
            "ymin": (np.where(fm < 0, fm, -0.0), "exact"),
            "ystr": (stored(_bitwise_and32(fa[:, 0::2], fb[:, 1::2]), "int32"), "exact"),
            # & 15 of the pattern is in [0, 15] whatever the sign; << 4 keeps it below 256
            "ysh": (((fa[:, 1::2].astype(np.int64) & 15) * 16).astype(np.float64), "exact")}


def _inputs_keep(p, r):
    return {"x": r.standard_normal((p["T"] * 128, 128)), "w": r.standard_normal((p["G"], 128, p["N"]))}


def _ref_keep(p, x):
    # bf16 products are exact in fp32, summed in increasing k from +0 in fp32
    # (SPEC.md §5) -> modelled step by step, exact
    xs, ws = x["x"].astype(np.float32), x["w"].astype(np.float32)

    def mm(a, b):  # a [R, K] @ b [K, N]
        acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
        for k in range(a.shape[1]):
            acc = f32(acc + np.outer(a[:, k], b[k]).astype(np.float32))
        return acc.astype(np.float64)

    y0, y1w = mm(xs, ws[0]), mm(xs, ws[1])
    return {"y1": (y0, "exact"), "y2": (np.stack([mm(xs, ws[g]) for g in range(p["G"])]), "exact"),
            "y3": (y0[:128], "exact"), "y4": (y1w, "exact"), "y5": (y0, "exact")}


def _inputs_copysink(p, r):
    return {"x": r.standard_normal((p["T"] * 128, p["KT"] * 128)), "w": r.standard_normal((p["KT"] * 128, p["N"]))}


def _ref_copysink(p, x):
    # bf16 products are exact in fp32, summed in increasing k from the start
    # value in fp32 (SPEC.md §5) -> modelled step by step, exact
    xs, ws = x["x"].astype(np.float32), x["w"].astype(np.float32)

    def mm(a, b, acc):
        for k in range(a.shape[1]):
            acc = f32(acc + np.outer(a[:, k], b[k]).astype(np.float32))
        return acc

    t, n = p["T"], p["N"]
    zero = np.zeros((128, n))
    y1 = np.concatenate([mm(xs[i * 128:(i + 1) * 128, :128], ws[:128], zero) for i in range(t)])
    y2 = np.concatenate([mm(xs[i * 128:(i + 1) * 128], ws, zero) for i in range(t)])
    e = f32(np.exp(xs[:, :n].astype(np.float64)))  # one fp32 rounding of exp: within an ulp
    run, y3 = zero, []
    for i in range(t):
        run = mm(xs[i * 128:(i + 1) * 128, :128], ws[:128], run)
        y3.append(run)
    return {"y1": (y1, "exact"), "y2": (y2, "exact"), "y3": (np.concatenate(y3), "exact"),
            "y4": (bf16(y1), "exact"), "y5": (e, np.abs(e) * 2 * U32)}


def stored(v, dtype):
    """The value a Vector/Scalar op keeps when it writes fp32 values v into a
    `dtype` tile: float32 as is, narrow floats RNE (fpformat), integers RNE
    and saturating, NaN -> 0 (docs/numerics.md)."""
    v = f32(v)
    if dtype in ("float32", "tfloat32"):
        return v
    if dtype in fp.FORMATS:
        return fp.round_to(v, fp.FORMATS[dtype]).astype(np.float64)
    info = np.iinfo(np.dtype(dtype))
    return np.clip(np.rint(np.nan_to_num(v, nan=0.0)), info.min, info.max) + 0.0  # no -0 in integers


def fold(op, v):
    """Row reduction of fp32 values, left to right in fp32 (tg_ops.h); op is
    np.add, np.maximum or np.minimum (both propagate NaN, as tg_alu.h)."""
    acc = f32(v[:, 0])
    for j in range(1, v.shape[1]):
        acc = f32(op(acc, v[:, j]))
    return acc


def _inputs_reduce_ops(p, r):
    d = p["D"]
    xf = r.standard_normal((128, d)) * 4
    xf[5, 7], xf[6, 9] = np.inf, -np.inf  # infinities reach max and min
    return {"xf": xf, "xb": r.standard_normal((128, d)), "xh": r.standard_normal((128, d)),
            "xi": r.integers(-3000, 3000, (128, d)), "xu": r.integers(0, 256, (128, d)),
            "c": r.standard_normal((128, 1))}


def _ref_reduce_ops(p, x):
    # Every element is one or two fp32 ops (modelled), the reductions left folds
    # over those fp32 values before the cast to dst -> exact.
    c = f32(x["c"])
    ya = f32(f32(x["xf"] * 0.5) + c)
    yf = f32(f32(x["xf"] * c) + 0.0)
    ys = f32(c - x["xf"])
    yb = f32(f32(x["xb"] * 3.0) + c)
    yh = f32(x["xh"] + 0.125)
    y8 = f32(x["xf"] * 0.25)
    yi = f32(x["xi"] * 0.75)
    yu = f32(np.minimum(f32(x["xu"] + 7.0), 200.0))
    r = np.stack([fold(np.maximum, ya), fold(np.minimum, yf), fold(np.add, ys), fold(np.maximum, yb),
                  fold(np.minimum, yh), fold(np.maximum, y8), fold(np.minimum, yi), fold(np.add, yu)], axis=1)
    out = {"r": r, "ya": stored(ya, "bfloat16"), "yf": yf, "ys": ys, "yb": stored(yb, "bfloat16"),
           "yh": stored(yh, "float16"), "y8": stored(y8, "float8_e4m3"), "yi": stored(yi, "int16"),
           "yu": stored(yu, "uint8")}
    return {k: (v, "exact") for k, v in out.items()}


def _inputs_affsel_int(p, r):
    return {"a8": r.integers(-128, 128, (128, 40)), "u8": r.integers(0, 256, (128, 40)),
            "i16": r.integers(-32768, 32768, (96, 33)), "u16": r.integers(0, 65536, (96, 33))}


def _ref_affsel_int(p, x):
    # where the predicate holds the source as it is, else the fill as the
    # tile's dtype stores an fp32 value: exact
    pp, f40 = np.arange(128)[:, None], np.arange(40)[None, :]
    q, f33 = np.arange(96)[:, None], np.arange(33)[None, :]
    out = {"y8": np.where(f40 >= 1, x["a8"], stored(-1000.5, "int8")),
           "yu8": np.where(pp + f40 < 64, x["u8"], stored(300.0, "uint8")),
           "y16": np.where(2 * f33 != q, x["i16"], stored(2.5, "int16")),
           "yu16": np.where(f33 <= q, x["u16"], stored(-7.0, "uint16"))}
    return {k: (v.astype(np.float64), "exact") for k, v in out.items()}


def _inputs_select_ops(p, r):
    d = p["D"]
    xf = r.standard_normal((128, d))
    xf[:, ::7] = 0.0                      # pred false
    xf[2, 5], xf[3, 6] = np.nan, -0.0     # NaN counts as true, -0 as false
    xi = r.integers(-200, 200, (128, d))
    xi[:, ::5] = 0
    c = r.standard_normal((128, 1))
    c[3, 0] = c[90, 0] = 0.0
    return {"xf": xf, "xb": r.standard_normal((128, d)), "xh": r.standard_normal((128, d)) + 3.0, "xi": xi,
            "pu": r.integers(0, 3, (128, d)), "c": c}


def _ref_select_ops(p, x):
    # select moves one operand's fp32 value (pred != 0, NaN true) and casts it
    # once; scalar_tensor_tensor is two fp32 ops (modelled) and one cast -> exact
    xf, xb, xh, xi, pu, c = (f32(x[k]) for k in ("xf", "xb", "xh", "xi", "pu", "c"))
    out = {"s1": np.where(pu != 0, xf, xb), "s2": stored(np.where(xi != 0, c, -2.5), "bfloat16"),
           "s3": stored(np.where(xf != 0, xi, 7.0), "int16"), "s4": stored(np.where(c != 0, xh, xf), "float16"),
           "s5": pu, "t1": f32(f32(xf * c) + xb), "t2": stored(np.maximum(f32(0.5 - xb), xh), "bfloat16"),
           "t3": stored(f32(f32(xi + 3.0) * xi), "int16"),
           "t4": stored(f32(f32(xh / c) - xf), "float8_e4m3")}
    return {k: (v, "exact") for k, v in out.items()}


def _max8_key(v):
    """tg_max8_key: NaN above +inf, then by value, +0 above -0 (uint32 keys)."""
    b = np.asarray(v, dtype=np.float32).view(np.uint32).astype(np.uint64)
    k = np.where(b >> 31, 0xffffffff - b, b | 0x80000000)
    return np.where(np.isnan(v), 0xffffffff, k)


def _max8(x):
    """Per row the 8 largest by _max8_key, descending; NaN canonical."""
    out = np.empty((x.shape[0], 8))
    for p in range(x.shape[0]):
        row = f32(x[p])
        order = np.argsort(-_max8_key(row).astype(np.float64), kind="stable")
        out[p] = np.where(np.isnan(row[order[:8]]), np.nan, row[order[:8]])
    return out


def _claims(x, vals):
    """Element j (in order) claims the lowest unclaimed slot whose value
    equals it (fp32 ==): per row the claimed index per slot (-1: none)."""
    idx = -np.ones((x.shape[0], 8), np.int64)
    for p in range(x.shape[0]):
        for j, e in enumerate(x[p]):
            for i in range(8):
                if idx[p, i] < 0 and e == vals[p, i]:
                    idx[p, i] = j
                    break
    return idx


def _find8(x, vals, dtype):
    idx = _claims(x, vals)
    return np.where(idx < 0, np.iinfo(np.dtype(dtype)).max, idx).astype(np.float64)


def _match8(x, vals, imm):
    idx, y = _claims(x, vals), x.copy()
    for p in range(x.shape[0]):
        y[p, idx[p][idx[p] >= 0]] = imm
    return y


def _inputs_intsum(p, r):
    d = p["D"]
    a8 = r.integers(-128, 128, (128, d))
    a8[0] = 0                                  # a zero sum: +0, negated -0
    a8[1] = np.where(np.arange(d) % 2, 5, -5)  # a zero sum of nonzero terms
    a8[2] = -128
    u8 = r.integers(0, 256, (128, d))
    u8[3] = 255
    i16 = r.integers(-32768, 32768, (128, 512))
    i16[0], i16[1] = -32768, 32767             # -2^24: the bound, exact
    u16 = r.integers(0, 65536, (128, 256))
    u16[0] = 65535
    x = r.standard_normal((128, 1000))
    x[:, ::7] = 0.0
    x[4, 3] = np.nan                           # compares false, logical_and true
    c = r.standard_normal((128, 1))
    c[5] = 0.0                                 # logical_and all false: a count of +0
    return {"a8": a8, "u8": u8, "i16": i16, "u16": u16, "w16": r.integers(56000, 65536, (128, 300)), "x": x, "c": c}


def _ref_intsum(p, x):
    # The folds in the row's order in fp32, as the spec defines them: where
    # the terms are integers with every partial sum within 2^24 this is the
    # integer sum, which the C simulation computes so; w16's rows (300 of
    # 56000 to 65535: sums past 2^24, so the fp32 fold rounds) and the x3
    # accumulate keep the fp32 fold -> exact throughout.
    xf, c = f32(x["x"]), f32(x["c"])
    a8 = fold(np.add, f32(x["a8"]))
    i16 = fold(np.add, f32(x["i16"]))
    t3 = f32((xf > 0) * 3.0)
    r = np.stack([a8, f32(-a8), fold(np.add, f32(x["u8"])), i16, fold(np.add, f32(x["u16"])),
                  fold(np.add, f32(x["w16"])), fold(np.add, f32(x["a8"][:, 1::2])),
                  fold(np.add, f32(xf >= c)), fold(np.add, f32(f32(xf * 2.0) < 1.0)),
                  fold(np.add, f32((xf != 0) & (c != 0))), fold(np.add, t3), fold(np.add, t3)], axis=1)
    ri = np.stack([stored(i16, "int32"), f32(xf[:, 0] != 0)], axis=1)
    return {"r": (r, "exact"), "ri": (ri, "exact")}


def _inputs_trcast(p, r):
    b = r.standard_normal((130, 100)) * 100.0
    b[0, :10] = [500.0, -500.0, 1e-3, -1e-3, 1e-9, 448.0, 464.0, 0.0, -0.0, 2.0 ** -9]  # e4m3 edges
    d = r.standard_normal((90, 70)) * 20000.0
    d[0, :6] = [32767.5, -32768.5, 40000.0, -40000.0, 2.5, -0.5]                      # int16 rounding, saturation
    return {"a": r.integers(-128, 128, (200, 96)), "b": b, "c": r.standard_normal((77, 150)), "d": d}


def _ref_trcast(p, x):
    # Moves with one cast each, as a non-transposing DMA casts: exact.
    return {"ya": (stored(x["a"].T, "bfloat16"), "exact"), "yb": (stored(x["b"].T, "float8_e4m3"), "exact"),
            "yc": (f32(x["c"].T), "exact"), "yd": (stored(x["d"].T, "int16"), "exact")}


def _inputs_trsink(p, r):
    return {"x8": r.integers(0, 256, (p["H8"], 200)), "xb": r.standard_normal((p["HB"], 130)),
            "xf": r.standard_normal((p["HF"], 64))}


def _ref_trsink(p, x):
    # Moves without a cast: exact.
    return {"y8": (stored(x["x8"].T, "uint8"), "exact"), "yb": (stored(x["xb"].T, "bfloat16"), "exact"),
            "yf": (f32(x["xf"].T), "exact")}


def _inputs_shortrows(p, r):
    c = r.standard_normal((128, 17))
    c[:, ::3] = 0.0                            # select's false side
    c[5, 4] = np.nan                           # the row max is NaN
    c[6, :7] = -np.inf
    d = r.standard_normal((128, 63)) * 100.0
    d[7, 3:12] = np.inf                        # the row min is +inf, negated -inf
    return {"a": r.standard_normal((128, 39)), "b": r.standard_normal((128, 39)), "c": c, "d": d,
            "s": r.standard_normal((128, 1))}


def _ref_shortrows(p, x):
    # One or two fp32 ops an element, each rounded as the spec rounds: exact.
    a, b, c, d, sc = f32(x["a"]), f32(x["b"]), f32(x["c"]), f32(x["d"]), f32(x["s"])
    y2 = np.zeros((128, 78))
    y2[:, 1::2] = stored(f32(f32(b * 0.1875) + a), "float16")
    t7 = f32(a + 1.0)
    out = {"y1": f32(a * b), "y2": y2, "y3": stored(f32(f32(c * 0.5) + sc), "bfloat16"),
           "y4": np.where(c != 0, 2.5, c), "y5": stored(d, "float8_e4m3"), "y6": stored(d, "bfloat16"),
           "y7": f32(f32(b * 0.5625) + t7),
           "y8": np.stack([fold(np.maximum, c[:, 0:7]), -fold(np.minimum, d[:, 3:12])], axis=1)}
    return {k: (v, "exact") for k, v in out.items()}


def _inputs_top8_ops(p, r):
    d = p["D"]
    x = r.standard_normal((128, d))
    x[:, 10] = x[:, 3]                        # duplicates of a large value
    x[0, :20] = 9.0                           # a row whose top 8 are all ties
    x[1, 5], x[1, 6] = np.nan, np.inf         # NaN ranks first
    x[2, :] = -np.inf                         # nothing above -inf
    x[2, 7], x[2, 8] = -0.0, 0.0              # +0 ranks above -0
    v = np.stack([x[:, 3], x[:, 3], x[:, 0], np.full(128, 123.5), x[:, 299], x[:, 299], x[:, 299],
                  np.full(128, np.nan)], axis=1)  # twice, absent, three times (present once), NaN
    return {"x": x, "xb": r.standard_normal((128, d)), "xi": r.integers(-20, 20, (128, d)), "v": v}


def _ref_top8_ops(p, x):
    # orders, ties, NaN and index sentinels as tg_ops.h defines them: exact
    xf, vf = f32(x["x"]), f32(x["v"])
    m = _max8(xf)
    r = _match8(xf, m, -np.inf)
    mi = _max8(x["xi"])
    out = {"m": m, "m2": _max8(r), "ix": _find8(xf, m, "uint32"), "iv": _find8(xf, vf, "uint16"), "r": r,
           "mb": _max8(x["xb"]), "mi": mi, "ixi": _find8(x["xi"], mi, "uint32"), "ri": _match8(x["xi"], mi, 0.0)}
    xs = xf[:, 0:12]
    ms = _max8(xs)
    out.update({"ms": ms, "ixs": _find8(xs, ms, "uint32"), "ivs": _find8(xs, vf, "uint32"),
                "rs": _match8(xs, ms, -1.5), "m8": _max8(xf[:, 20:28]),
                "rb": _match8(f32(x["xb"]), out["mb"], 0.5)})
    return {k: (v, "exact") for k, v in out.items()}


def _inputs_loopnum_ops(p, r):
    x = r.standard_normal((128, 4 * p["D"]))
    x[:, ::9] = 0.0
    return {"x": x}


def _ref_loopnum_ops(p, x):
    # per iteration i the number fields are fp64 expressions rounded once to
    # fp32 (SPEC.md §2.1); each op as in select_ops / top8_ops -> exact
    d, v = p["D"], f32(x["x"])
    ys, yt, yr = v.copy(), v.copy(), v.copy()
    for i in range(4):
        c = slice(i * d, i * d + d)
        xc = v[:, c]
        ys[:, c] = np.where(xc != 0, f32(i * 0.5 + 0.25), xc)
        yt[:, c] = f32(f32(xc * f32(1.0 / (i + 1))) + xc)
        yr[:, c] = _match8(xc, _max8(xc), f32(-i - 0.5))
    return {"ys": (ys, "exact"), "yt": (yt, "exact"), "yr": (yr, "exact")}


# --- the kernel table (mirrors specs/*.yaml; selftest checks it) --------------

def _inputs_gather(p, r):
    n, v = p["N"], p["V"]
    ids = r.integers(0, v, (n, 2))
    ids[:3, 1] = [0, v - 1, 0]                      # both ends of the table, and a repeat
    return {"table": r.standard_normal((v, p["D"])), "tab3": r.standard_normal((v, 4, 8)), "ids": ids,
            "ids16": r.integers(0, v, (n, 1)), "ids8": r.integers(0, v, (n, 1)), "idsu": r.integers(0, v, (n, 1)),
            "logits": r.standard_normal((n, p["C"])), "tg": r.integers(0, p["C"], (n, 1)),
            "src": r.standard_normal((n, p["D"])), "perm": r.permutation(n).reshape(n, 1)}


def _ref_gather(p, x):
    # DMAs move values: every output is exact (rows3 is one fp32 -> bf16 rounding)
    t = f32(x["table"])
    idx = lambda a: np.asarray(a, dtype=np.int64)[:, -1]
    n = p["N"]
    scat = np.empty((n, p["D"]))
    scat[idx(x["perm"])] = f32(x["src"])
    lg = f32(x["logits"])
    return {"rows": (t[idx(x["ids"])], "exact"), "rows16": (t[idx(x["ids16"])], "exact"),
            "rows8": (t[idx(x["ids8"])], "exact"), "rowsu": (t[idx(x["idsu"])], "exact"),
            "rows3": (bf16(f32(x["tab3"])[np.asarray(x["ids"], dtype=np.int64)[:, 0]]), "exact"),
            "picked": (lg[np.arange(n), idx(x["tg"])].reshape(n, 1), "exact"), "scat": (scat, "exact")}


def _inputs_raggedfwd(p, r):
    n, d = p["N"], p["D"]
    return {"x": r.standard_normal((n, d)), "x3": r.standard_normal((n, d)),
            "table": r.standard_normal((p["V"], d)), "ids": r.integers(0, p["V"], (n, 1)),
            "x6": r.standard_normal((128, p["F"]))}


def _ref_raggedfwd(p, x):
    # one fp32 rounding per op (x*2 exact, +1 rounded once; *3 and *0.5 once): exact
    xs, g = f32(x["x"]), f32(x["table"])[np.asarray(x["ids"], dtype=np.int64)[:, 0]]
    y3 = np.zeros(xs.shape)
    y3[0::128] = f32(f32(x["x3"])[0::128] * 3)
    y6 = f32(f32(x["x6"]) * f32(x["x6"]))
    y6[:, 0::48] = 7
    return {"y1": (f32(f32(xs * 2) + 1), "exact"), "y3": (y3, "exact"), "y4": (g, "exact"),
            "y5": (f32(g * 0.5), "exact"), "y6": (y6, "exact"), "y7": (f32(g * 2), "exact")}


def _inputs_rowlocal(p, r):
    # small integers: every op and row sum is exact in fp32
    # xn: NaNs with payloads (quiet, either sign: they survive the fp64
    # round trip of make_inputs) among them; no result shows a payload
    xn = r.integers(-8, 9, (128, p["F"])).astype(np.float32)
    bits = np.array([0x7fc00001, 0xffc12345, 0x7fe00000, 0xffffffff], dtype=np.uint32).view(np.float32)
    xn[::5, 3] = bits[np.arange(0, 128, 5) % 4]
    xn[7, :] = bits[np.arange(p["F"]) % 4]
    return {"x": r.integers(-8, 9, (p["N"], p["F"])).astype(np.float64),
            "g": r.integers(-8, 9, (1, p["F"])).astype(np.float64),
            "z": r.integers(-8, 9, (128, p["W"])).astype(np.float64),
            "xn": xn.astype(np.float64)}


def _ref_rowlocal(p, x):
    v, h = x["x"], p["F"] // 2
    y2 = np.concatenate([v[:, :h] * 2, v[:, h:] * 3], axis=1) + 1
    out = {"y1": (v - x["g"]) * v, "y2": y2, "y3": 2 * v + 1, "y4": 2 * v[128:256] - 1,
           "y5": (3 * v).sum(axis=1, keepdims=True), "y7": (2 * v + v) * (2 * v), "y8": 2 * x["z"] + 1}
    xn, nan = x["xn"], np.isnan(x["xn"])
    for k, a in (("y9", xn * x["g"] - xn), ("y10", xn * x["g"] + xn), ("y11", xn * x["g"]), ("y12", (xn - 1) * 2),
                 ("y13", (xn + x["g"]) / 2)):
        out[k] = np.where(nan, np.nan, a)  # the canonical NaN, not xn's payload
    return {k: (a, "exact") for k, a in out.items()}


def _inputs_hbmcopy(p, r):
    return {"x": r.standard_normal((p["N"], p["F"]))}


def _ref_hbmcopy(p, x):
    v = x["x"]
    return {"y1": (v, "exact"), "y2": (v[50:250, ::2], "exact"), "y3": (v.reshape(p["N"] // 2, 2 * p["F"]), "exact")}


def _inputs_hbmwin(p, r):
    # small integers: every op is exact in fp32
    return {"x": r.integers(-8, 9, (p["N"], p["F"])).astype(np.float64)}


def _ref_hbmwin(p, x):
    v, h, n = x["x"], p["F"] // 2, p["N"]
    y3 = np.concatenate([v - 1, np.full((1, p["F"]), 7.0)])
    # y3b: each block of 128 rows reads the rows one further on after that
    # block's own write; its last row is the next block's before its write
    pre = np.concatenate([5 * v, np.full((1, p["F"]), 7.0)])
    y3b = np.empty_like(v)
    for i in range(0, n, 128):
        rows = np.concatenate([v[i + 1:i + 128] - 1, pre[i + 128:i + 129]])
        y3b[i:i + 128] = 3 * rows
    out = {"y1": np.concatenate([2 * v[:, :h] - v[:, h:], 3 * v[:, h:] + v[:, :h]], axis=1),
           "y2": v + 1, "y2c": v[:, -1:] + 1, "y3": y3, "y3b": y3b, "y4": v + 2, "y4b": 2 * (v + 2)}
    return {k: (a, "exact") for k, a in out.items()}


def _inputs_chains(p, r):
    # small integers: every op is exact in fp32 and bfloat16
    return {"x": r.integers(-8, 9, (p["N"], p["F"])).astype(np.float64),
            "g": r.integers(-8, 9, (1, p["F"])).astype(np.float64)}


def _ref_chains(p, x):
    v, n, f = x["x"], p["N"], p["F"]
    u = np.concatenate([v[:, :f - 1] - v[:, 1:], np.full((n, 1), 5.0)], axis=1)
    vv = np.concatenate([2 * v[:, :1], v[:, :f - 1] + 3], axis=1)
    out = {"y1": (v * 0.5 + 1) * v + x["g"], "y2": u[:, 1:] + v[:, :f - 1], "y3": 2 * v[:, :f - 1] * v[:, :f - 1],
           "y4": vv, "y5": v * (2 * v[:, 3:4]), "y6": 3 * v - v}
    return {k: (a, "exact") for k, a in out.items()}


def _inputs_stage2(p, r):
    # small integers: every op is exact in fp32 and bfloat16; x never 0 (reciprocal)
    w = p["W"]
    x = r.integers(1, 9, (128, w)) * r.choice([-1, 1], (128, w))
    return {"x": x.astype(np.float64), "xb": r.integers(-8, 9, (128, w)).astype(np.float64),
            "xu": r.integers(0, 3, (128, w)), "xi": r.integers(-1000, 1000, (128, 80)),
            "x3": r.integers(-8, 9, (128, 4, 50)).astype(np.float64),
            "xl": r.integers(-8, 9, (128, 2100)).astype(np.float64)}


def _ref_stage2(p, x):
    xf, xb, xu, x3 = (f32(x[k]) for k in ("x", "xb", "xu", "x3"))
    xi = x["xi"]
    out = {"y1": f32(xf[:, 0::2] + xf[:, 1::2]), "y2": f32(f32(xb[:, 1::2] * 3) - 1), "y3": xu[:, 1::2],
           "y4": xi[:, 0::2] - xi[:, 1::2], "y5": f32(np.float32(1) / xf[:, 0:32:2]),
           "y6": f32(xf[:, 0:30:2] + 1), "y7": f32(x3[:, :, 0:40:2] * 2),
           "y8": np.where(xu[:, 0::2] != 0, xb[:, 0::2], f32(-1.0)),
           "y9": stored(f32(xb[:, 0::2] * xb[:, 1::2]), "bfloat16"), "y10": f32(f32(x["xl"])[:, 1::2] * 2)}
    return {k: (v, "exact") for k, v in out.items()}


KERNELS = {
    "tensor_add": _k({"N": 512, "M": 2048},
                     [("a", "float32", "N, M"), ("b", "float32", "N, M")],
                     [("c", "float32", "N, M")], _inputs_tensor_add, _ref_tensor_add),
    "tensor_add_bf16": _k({"N": 512, "M": 2048},
                          [("a", "bfloat16", "N, M"), ("b", "bfloat16", "N, M")],
                          [("c", "bfloat16", "N, M")], _inputs_tensor_add, _ref_tensor_add_bf16),
    "transpose2d": _k({"N": 256, "F1": 32, "F2": 64},
                      [("x", "float32", "N, F1, F2")],
                      [("y", "float32", "N, F2, F1")], _inputs_transpose2d, _ref_transpose2d),
    "matmul": _k({"M": 512, "K": 1024, "N": 1024},
                 [("lhsT", "bfloat16", "K, M"), ("rhs", "bfloat16", "K, N")],
                 [("result", "float32", "M, N")], _inputs_matmul, _ref_matmul),
    "softmax": _k({"N": 1024, "D": 512},
                  [("x", "float32", "N, D")],
                  [("y", "float32", "N, D")], _inputs_softmax, _ref_softmax),
    "rmsnorm": _k({"N": 300, "D": 512},
                  [("x", "float32", "N, D"), ("g", "float32", "1, D")],
                  [("y", "float32", "N, D")], _inputs_rmsnorm, _ref_rmsnorm),
    "layernorm": _k({"N": 512, "D": 1024},
                    [("x", "float32", "N, D"), ("gamma", "float32", "1, D"),
                     ("beta", "float32", "1, D")],
                    [("y", "float32", "N, D")], _inputs_layernorm, _ref_layernorm),
    "avgpool2d": _k({"C": 256, "H": 64, "W": 64, "K": 2},
                    [("x", "float32", "C, H, W")],
                    [("y", "float32", "C, H / K, W / K")], _inputs_avgpool2d, _ref_avgpool2d),
    "cumsum": _k({"N": 256, "H": 2048},
                 [("x", "float32", "N, H")],
                 [("y", "float32", "N, H")], _inputs_cumsum, _ref_cumsum),
    "rope": _k({"H": 4, "S": 512, "D": 128},
               [("x", "bfloat16", "H, S, D"), ("cos", "float32", "S, D / 2"),
                ("sin", "float32", "S, D / 2")],
               [("y", "bfloat16", "H, S, D")], _inputs_rope, _ref_rope),
    "mlp": _k({"T": 256, "DM": 256, "F": 1024},
              [("x", "bfloat16", "T, DM"), ("wg", "bfloat16", "DM, F"),
               ("wu", "bfloat16", "DM, F"), ("wd", "bfloat16", "F, DM")],
              [("y", "bfloat16", "T, DM")], _inputs_mlp, _ref_mlp),
    "attention": _k({"S": 1024, "D": 128},
                    [("q", "bfloat16", "S, D"), ("k", "bfloat16", "S, D"),
                     ("v", "bfloat16", "S, D")],
                    [("o", "bfloat16", "S, D")], _inputs_attention, _ref_attention),
    # the same math with the fully masked key blocks skipped (they added exact zeros)
    "attention_causal": _k({"S": 1024, "D": 128},
                           [("q", "bfloat16", "S, D"), ("k", "bfloat16", "S, D"),
                            ("v", "bfloat16", "S, D")],
                           [("o", "bfloat16", "S, D")], _inputs_attention, _ref_attention),
}


def _inputs_shift(p, r):
    return {"x": r.standard_normal((p["P"], p["F"])) * np.exp2(r.integers(-6, 7, (p["P"], p["F"])))}


def _ref_shift(p, x):
    # Elements in order: column j adds the already updated column j-1, one fp32
    # rounding per add -> modelled column by column, exact.
    t = f32(x["x"]).copy()
    for j in range(1, t.shape[1]):
        t[:, j] = f32(t[:, j - 1] + t[:, j])
    z = np.repeat(f32(x["x"])[:, :1], x["x"].shape[1], axis=1)
    # the scan: step j reads v[:, j], which step j-1 wrote (r), so r doubles
    w = f32(x["x"]).copy()
    for j in range(1, 64):
        w[:, j] = w[:, 0] * 2.0 ** (j - 1)
    return {"y": (t, "exact"), "z": (z, "exact"), "w": (w, "exact")}


def _inputs_lanes(p, r):
    return {"x": r.uniform(-1.0, 1.0, (p["P"], p["A"], p["F"]))}


def _lanes_chains(v):
    # rows v: the scan r = v·r + v from 0.5, the add fold of v and the multiply
    # fold of the scan's results, each row's elements in order, one fp32 rounding
    # per operation
    y = np.empty_like(v)
    r = np.full(v.shape[0], 0.5)
    with np.errstate(invalid="ignore", over="ignore"):
        for j in range(v.shape[1]):
            r = f32(f32(v[:, j] * r) + v[:, j])
            y[:, j] = r
        s, m = v[:, 0].copy(), y[:, 0].copy()
        for j in range(1, v.shape[1]):
            s = f32(s + v[:, j])
            m = f32(m * y[:, j])
    return y, s[:, None], m[:, None]


def _ref_lanes(p, x):
    y, s, m = _lanes_chains(f32(x["x"]).reshape(p["P"], -1))
    return {"y": (y.reshape(x["x"].shape), "exact"), "s": (s, "exact"), "m": (m, "exact")}


def _inputs_lanes_bf16(p, r):
    # x: uniform in (-1, 1) with specials: +inf early in row 3, -inf as row 4's last
    # element (the block's tail), NaNs in row 5 and in row 97 (the last lane block),
    # -0 throughout row 6, subnormals across a group of 8 in row 7 (the bf16 values
    # the harness stores)
    x = r.uniform(-1.0, 1.0, (100, 300))
    x[3, 10] = np.inf
    x[4, 299] = -np.inf
    x[5, 150] = np.nan
    x[97, 200] = -np.nan
    x[6, :] = -0.0
    x[7, 40:48] = r.choice([-1.0, 1.0], 8) * 2.0 ** -133 * r.integers(1, 64, 8)
    z = r.uniform(-4.0, 4.0, (40, 3, 37))
    z[9, 2, 36] = np.nan
    w = r.standard_normal((40, 500)) * 3.0 + r.uniform(-2.0, 2.0, (40, 1))
    return {"x": x, "z": z, "w": w}


def _lanes_z_chains(w, rnd):
    # z rows w (fp32 values): the add fold and the scan r = (z + r) - h from 0,
    # h = z/2 rounded by rnd (the 16-bit tile it is written to), in order
    with np.errstate(invalid="ignore", over="ignore"):
        h = rnd(w * 0.5)
        zs = w[:, 0].copy()
        zy = np.empty_like(w)
        q = np.zeros(w.shape[0])
        for j in range(w.shape[1]):
            if j:
                zs = f32(zs + w[:, j])
            q = f32(f32(w[:, j] + q) - h[:, j])
            zy[:, j] = q
    return zs[:, None], zy


def _ref_lanes_bf16(p, x):
    # fp32 chains on the stored bf16 values (exact in fp32), each row's elements in
    # order, one fp32 rounding per operation
    y, s, m = _lanes_chains(f32(x["x"]))
    zs, zy = _lanes_z_chains(f32(x["z"]).reshape(40, -1), bf16)
    return {"y": (y, "exact"), "s": (s, "exact"), "m": (m, "exact"),
            "zs": (zs, "exact"), "zy": (zy.reshape(40, 3, 37), "exact"),
            "yb": (bf16(y), "exact"), "zb": (bf16(zy).reshape(40, 3, 37), "exact"),
            "mv": _bn_mean_var(x["w"])}


def _inputs_lanes_narrow(r, quantum, submax):
    # _inputs_lanes_bf16's x, z and w with a narrower x format's specials: its
    # subnormals (multiples of quantum) across a group of 8 in row 7; row 8 near 2
    # (the scan's r = x r + x grows past the format's largest finite value: inf in
    # the narrow tile, large finite in fp32), row 9 below submax (the format's
    # subnormals; r = x r + x stays near x: results in its subnormal range)
    v = _inputs_lanes_bf16(None, r)
    x = v["x"]
    x[7, 40:48] = r.choice([-1.0, 1.0], 8) * quantum * r.integers(1, round(submax / quantum), 8)
    x[8, :] = r.uniform(1.5, 2.0, 300)
    x[9, :] = r.uniform(-1.0, 1.0, 300) * submax
    return v


def _ref_lanes_narrow(x, fx, fz, ny, nz):
    # as _ref_lanes_bf16, on the stored values: x's scans into an fx tile (output
    # ny), z's scan and its halves in fz (output nz), bn_stats of w
    def rx(v):
        return stored(v, fx)

    def rz(v):
        return stored(v, fz)
    y, s, m = _lanes_chains(f32(x["x"]))
    zs, zy = _lanes_z_chains(f32(x["z"]).reshape(40, -1), rz)
    return {"y": (y, "exact"), "s": (s, "exact"), "m": (m, "exact"),
            "zs": (zs, "exact"), "zy": (zy.reshape(40, 3, 37), "exact"),
            ny: (rx(y), "exact"), nz: (rz(zy).reshape(40, 3, 37), "exact"),
            "mv": _bn_mean_var(x["w"])}


def _inputs_lanes_f16(p, r):
    return _inputs_lanes_narrow(r, 2.0 ** -24, 2.0 ** -15)


def _ref_lanes_f16(p, x):
    return _ref_lanes_narrow(x, "float16", "float16", "yh", "zh16")


def _inputs_actstage(p, r):
    # values whose scaled squares and halves are exact in fp32 (no overflow or
    # subnormal results), a few zeros and negative zeros
    x = {"xa": r.standard_normal((300, 100)), "xb": r.standard_normal((256, 200)) * 4,
         "xh": r.uniform(-8, 8, (130, 37)), "x8": r.uniform(-16, 16, (128, 64)),
         "xe": r.uniform(-4, 4, (40, 500)), "xw": r.standard_normal((200, 1088))}
    x["xa"][5, :7] = [0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.0]
    x["xw"][3, :4] = [0.0, -0.0, -0.0, 0.0]
    return x


def _actstage_sum(t):
    # the fp32 chain of each row, left to right (cumsum on float32 adds in order)
    return np.cumsum(f32(t), axis=1, dtype=np.float32)[:, -1:].astype(np.float64)


def _ref_actstage(p, x):
    # square(0.5 x), -0.5 x, square(2 x) and x are exact fp32 terms (fp32's
    # roundings of the scaled argument and of the square are exact here); exp's
    # terms are fp32 roundings, so its chain is within the sum's rounding of the
    # fp64 sum (n + 2 units of each partial sum's size, and a term's half ulp)
    xa, xb, xh = f32(x["xa"]), f32(x["xb"]), f32(x["xh"])
    e = np.exp(-f32(x["xe"]))
    tol = (500 + 2) * U32 * e.sum(axis=1, keepdims=True) + TINY
    return {"sa": (_actstage_sum((0.5 * xa) ** 2), "exact"), "sb": (_actstage_sum(-0.5 * xb), "exact"),
            "sh": (_actstage_sum((2 * xh) ** 2), "exact"), "s8": (_actstage_sum(x["x8"]), "exact"),
            "se": (e.sum(axis=1, keepdims=True), tol), "sw": (_actstage_sum(np.abs(f32(x["xw"]))), "exact")}


def _inputs_overwrite(p, r):
    x = r.standard_normal((p["N"], 64))
    x[7, :5] = [0.0, -0.0, 1.0, -1.0, -0.0]
    return {"x": x}


def _ref_overwrite(p, x):
    # every result one fp32 rounding of exact terms (the scales by 2, 0.5 and
    # -1 are exact; x + 1, x - m, 2x + 1 and 2x + x round once in float32 as
    # the simulation does; y8's sum is (0 + 0 + 2x) + x: +0 for x = -0); the square sum is the
    # fp32 chain left to right
    v = x["x"].astype(np.float32)
    one = np.float32(1.0)
    m = (v[:, :8] * np.float32(2.0)).max(axis=1, keepdims=True)
    y5 = np.full_like(v, 0.25)
    y5[:, :32] = v[:, :32]
    ex = lambda a: (a.astype(np.float64), "exact")  # noqa: E731
    return {"y1": ex(v + one), "s1": (_actstage_sum(f32(v) ** 2), "exact"), "y2": ex(v), "y3": ex(v - m),
            "y4": ex(v * np.float32(0.5)), "y5": ex(y5), "y6": ex(-v), "y7": ex(v * np.float32(2.0) + one),
            "y8": ex((np.float32(0.0) + v * np.float32(2.0)) + v)}


def _inputs_selraw(p, r):
    d, rows = p["D"], p["R"]
    x = {k: r.standard_normal((128, d)) * 4 for k in ("xf", "xb", "yb", "xh", "x8", "x5")}
    for k in ("xf", "xb", "xh"):  # NaN, infinities and signed zeros move as they are (quiet NaNs here)
        x[k][1, :4] = [np.nan, np.inf, -np.inf, -0.0]
    x["xi"] = r.integers(-30000, 30000, (128, d))
    x["xw"] = r.integers(0, 65536, (128, d))
    x["xa"] = r.integers(-128, 128, (128, d))
    x["xu"] = r.integers(0, 256, (128, d))
    x["xj"] = r.integers(-2 ** 24, 2 ** 24, (128, d))  # exact through fp32 (int32's control)
    x["pu"] = r.integers(0, 3, (128, d))
    pf = r.standard_normal((128, d))
    pf[:, ::5] = 0.0
    pf[0, :3] = [np.nan, -0.0, 0.0]  # NaN true, -0 false
    x["pf"] = pf
    c = r.standard_normal((128, 1))
    c[::3, 0] = 0.0
    x["c"] = c
    x["tbl"] = r.standard_normal((rows, d))
    x["idx"] = r.integers(0, rows, (128, 1))
    return x


def _ref_selraw(p, x):
    # pred != 0 (NaN true, -0 false) picks on_true's value, else on_false's
    # (a number rounded to the dst dtype once): both stored in the dst dtype,
    # so the result is exact; the gathered rows are tbl[idx]
    pu, pf, c = x["pu"] != 0, f32(x["pf"]) != 0, f32(x["c"]) != 0
    pf = pf | np.isnan(f32(x["pf"]))
    w = lambda pr, a, b, dt: (stored(np.where(pr, a, b), dt), "exact")  # noqa: E731
    g = x["tbl"][x["idx"][:, 0].astype(np.int64)]
    return {"sf": w(pu, x["xf"], 0.25, "float32"), "sb": w(pf, x["xb"], stored(0.1, "bfloat16"), "bfloat16"),
            "sb2": w(c, x["xb"], x["yb"], "bfloat16"), "sh": w(pu, x["xh"], -2.0, "float16"),
            "s8": w(pf, x["x8"], 0.5, "float8_e4m3"), "s5": w(c, x["x5"], -3.0, "float8_e5m2"),
            "si": w(pu, x["xi"], -7, "int16"), "sw": w(c, x["xw"], 60000, "uint16"),
            "sa": w(pf, x["xa"], -100, "int8"), "su": w(pu, x["xu"], 200, "uint8"),
            "sj": w(pu, x["xj"], 5, "int32"), "sg": w(c, g, 0.0, "bfloat16")}


def _inputs_lanes_f8(p, r):
    return _inputs_lanes_narrow(r, 2.0 ** -9, 2.0 ** -7)


def _ref_lanes_f8(p, x):
    return _ref_lanes_narrow(x, "float8_e4m3", "float8_e5m2", "y8", "z8")


def _bn_mean_var(v):
    # bn_stats over each row, bn_aggr: mean and population variance, each within
    # fp32 sums' error (gamma_D of the row's mean |x| and mean x^2, D its length)
    d = v.shape[1]
    mean = v.mean(axis=1)
    var = ((v - mean[:, None]) ** 2).mean(axis=1)
    tol = np.stack([np.abs(v).mean(axis=1), (v * v).mean(axis=1)], axis=1) * (2 * d + 64) * U32 + TINY
    return (np.stack([mean, var], axis=1), tol)


def _inputs_forward(p, r):
    # small integers: every op of the kernel (bf16 cast, adds, the matmul's
    # fp32 sums) is exact on them, so each output is exact
    return {"x": r.integers(-8, 9, (p["N"], p["F"])).astype(np.float64),
            "g": r.integers(-8, 9, (1, p["F"])).astype(np.float64),
            "w": r.integers(-4, 5, (128, 128)).astype(np.float64)}


def _ref_forward(p, x):
    # HBM forwarding changes no value: each case's plain meaning (see the
    # comments in tests/numerics/specs/forward.yaml)
    v, h = x["x"], p["F"] // 2
    y8 = v.copy()
    y8[128:256, 0:h] = v[128:256, h:]  # iteration 1's second load lands on [0:32]
    y8[128:256, h:] = v[0:128, h:]     # [32:64] still holds iteration 0's
    out = {"y1": v, "y2": 2 * v, "y3": v[128:256] + 1, "y4": v + x["g"], "y5": v, "y6": 3 * v,
           "y7": v - 0.5, "y8": y8, "y9": x["w"].T @ v[0:128], "y10": v[:, 0::2] - v[:, 1::2],
           "y11": v + 1, "y12": 2 * (v + 1), "y13": v - 3, "y14": -(v - 3), "y15": v + 5,
           "y16": 2 * (v[128:256] + 5)}
    return {k: (a, "exact") for k, a in out.items()}


def _inputs_fold(p, r):
    # int32 bit patterns over the whole range (a transposing copy moves bits);
    # fp32 values with a few NaN payloads and infinities
    xf = r.standard_normal((128, p["R"], p["C"]))
    xf[0, 0, :3] = [np.inf, -np.inf, np.nan]
    return {"xi": r.integers(-(1 << 31), 1 << 31, (128, p["R"], p["C"])), "xf": xf}


def _ref_fold(p, x):
    yi = np.ascontiguousarray(x["xi"].transpose(0, 2, 1)).astype(np.float64)
    yf = np.ascontiguousarray(f32(x["xf"]).transpose(0, 2, 1)).astype(np.float64)
    yf[:, :, 0] = -1.5
    return {"yi": (yi, "exact"), "yi2": (yi, "exact"), "yf": (yf, "exact")}


def _inputs_ragged_k(p, r):
    return {"a": r.standard_normal((300, 64)), "b": r.standard_normal((300, 96))}


def _ref_ragged_k(p, x):
    # bf16 products are exact in fp32; the Tensor engine sums them in fp32 in
    # increasing k from the memset's +0 (SPEC.md §5) -> modelled step by step, exact
    a, b = x["a"].astype(np.float32), x["b"].astype(np.float32)
    acc = np.zeros((64, 96), np.float32)
    for k in range(a.shape[0]):
        acc = f32(acc + np.outer(a[k], b[k]).astype(np.float32))
    return {"y": (acc.astype(np.float64), "exact")}


def _inputs_kfold(p, r):
    k = p["KT"] * 64
    return {"a": r.standard_normal((k, p["M"])), "b": r.standard_normal((k, p["N"]))}


def _ref_kfold(p, x):
    # bf16 products are exact in fp32; each output sums them in fp32 in its
    # blocks' order (64 rows each, rows in increasing k within a block) from
    # its start value (SPEC.md §5) -> modelled step by step, exact
    a, b = x["a"].astype(np.float32), x["b"].astype(np.float32)
    kt = p["KT"]

    def run(start, blocks):
        acc = np.full((p["M"], p["N"]), start, np.float32)
        for blk in blocks:
            for k in range(blk * 64, blk * 64 + 64):
                acc = f32(acc + np.outer(a[k], b[k]).astype(np.float32))
        return (acc.astype(np.float64), "exact")

    fwd = list(range(kt))
    return {"y1": run(0.0, fwd), "y2": run(0.5, fwd), "y3": run(0.0, fwd[::-1]), "y4": run(0.0, fwd),
            "y5": run(0.0, [2] + fwd[1:])}


def _inputs_cmprows(p, r):
    x = r.standard_normal((128, p["D"]))
    x[:, ::7] = 0.0  # zeros: false for the logical ops
    y = r.standard_normal((128, p["D"]))
    y[:, ::3] = x[:, ::3]  # a third equal to x
    return {"x": x, "y": y}


def _ref_cmprows(p, x):
    # Comparisons give 1.0 or 0.0; the logical ops take nonzero as true; abs
    # clears the sign. No rounding in those -> exact.
    v, w = f32(x["x"]), f32(x["y"])
    b = lambda c: (np.where(c, 1.0, 0.0), "exact")
    lt = ~(v >= f32(0.25))  # (x >= 0.25) xor 1
    return {"gt": b(v > w), "le": b((v == w) | (v < w)), "ne": b((v != w) & (v != 0)),
            "lx": b(lt != (w != 0)), "ab": b(np.where(np.abs(v) <= f32(0.5), 1.0, 0.0) <= w),
            # one fp32 rounding per op -> exact
            "sa": (f32(f32(v * f32(0.75)) + w).astype(np.float64), "exact"),
            "sd": (f32(f32(w.max(axis=1, keepdims=True) - v) / w).astype(np.float64), "exact")}


def _inputs_fscale(p, r):
    return {"x": r.standard_normal((128, p["D"]))}


def _ref_fscale(p, x):
    # Number fields in floating point, rounded once to fp32 (SPEC.md §2.1):
    # scale 1/D = f32(1/D), D/8, 1/3, D/3 and -D/2.0 likewise. Each op is one
    # fp32 rounding and the row sum a left fold (tg_ops.h) -> exact.
    d, v = p["D"], f32(x["x"])
    ys = f32(v * f32(1.0 / d))
    acc = ys[:, 0].copy()
    for j in range(1, d):
        acc = f32(acc + ys[:, j])
    yo = f32(f32(v + f32(d / 8)) * f32(1.0 / 3))
    pi, fi = np.meshgrid(np.arange(128), np.arange(d), indexing="ij")
    yc = np.where(fi < pi, f32(d / 3), f32(-d / 2.0))
    # over the loop variable j: Python's float arithmetic (true division,
    # floored %), rounded once to fp32 per iteration
    yl = np.empty_like(v)
    for j in range(4):
        c = slice(j * 25, j * 25 + 25)
        yl[:, c] = f32(f32(v[:, c] * f32(1 / (j + 1))) + f32(j % 0.75 - d / (j + 3)))
    return {"mean": (acc.reshape(128, 1).astype(np.float64), "exact"), "ys": (ys.astype(np.float64), "exact"),
            "yo": (yo.astype(np.float64), "exact"), "yc": (yc.astype(np.float64), "exact"),
            "yl": (yl.astype(np.float64), "exact")}


def _inputs_tstore(p, r):
    return {"x": r.standard_normal((p["N"], p["D"])), "xb": r.standard_normal((p["N"], p["D"]))}


def _ref_tstore(p, x):
    # one fp32 multiply, one fp32 add, then moved transposed -> exact; the
    # bf16 tile is stored as it was loaded
    y = f32(f32(f32(x["x"]) * 0.5) + 1.0).T
    return {"y": (y, "exact"), "yb": (bf16(x["xb"]).T, "exact")}


def _inputs_psum_banks(p, r):
    return {"x": r.standard_normal((p["R"], 1024))}


def _ref_psum_banks(p, x):
    # PE transposes move fp32 values: exact
    v, y = f32(x["x"]), np.empty((p["R"], 1024))
    for i in range(0, p["R"], 128):
        for j in range(0, 1024, 128):
            y[i:i + 128, j:j + 128] = v[i:i + 128, j:j + 128].T
    return {"y": (y, "exact")}


def _inputs_colacc(p, r):
    return {"x": r.standard_normal((128, p["N"]))}


def _ref_colacc(p, x):
    # one fp32 add, then one fp32 multiply per element -> exact
    return {"y": (f32(f32(f32(x["x"]) + 0.5) * 3.0), "exact")}


def _inputs_print_loops(p, r):
    return {"x": r.standard_normal((p["T"], p["K"], 32, 16)), "w": r.standard_normal((p["K"], 32, 24))}


def _print_loops(p, x):
    """What print_loops.yaml computes, with every print it makes: {file stem:
    (fp64 values, dtype)}. The matmul sums its bf16 products (exact in fp32)
    in increasing contraction index over the K loop from the memset's +0, in
    fp32, step by step (SPEC.md §5); * 2 and the copies are exact."""
    prints, y = {}, np.zeros((p["T"], 16, 24))
    for i in range(p["T"]):
        acc = np.zeros((16, 24), np.float32)
        for k in range(p["K"]):
            xt, wt = bf16(x["x"][i, k]), x["w"][k]
            prints["xt_head.%d.%d" % (i, k)] = (xt[0:4, :], "bfloat16")
            for c in range(32):
                acc = (acc + np.outer(xt[c], wt[c]).astype(np.float32)).astype(np.float32)
            prints["acc.%d.%d" % (i, k)] = (acc.astype(np.float64), "float32")
        yt = f32(acc.astype(np.float64) * 2)
        cube = yt.reshape(16, 4, 6)
        prints["cube_mid.%d" % i] = (cube[2:10, 1:3, :], "float32")
        prints["cube_col.%d" % i] = (cube[:, 3, 5].reshape(16, 1), "float32")
        y[i] = yt
    return prints, y


def _ref_print_loops(p, x):
    return {"y": (_print_loops(p, x)[1], "exact")}


def _inputs_ragged_tiles(p, r):
    return {"x": r.standard_normal((p["N"], p["D"])), "w": r.standard_normal((128, 96))}


def _ref_ragged_tiles(p, x):
    # y1: 2x exact, + x one rounding; y2: the matmul sums its 128 products in
    # increasing k in fp32 (SPEC.md §5), modelled step by step; y3: fp32 sums
    # in increasing chunk order from the memset's 0, step by step. All exact.
    v, w = f32(x["x"]), f32(x["w"])
    n, d = p["N"], p["D"]
    y2 = np.outer(w[0], v[0]).astype(np.float32)
    for k in range(1, 128):
        y2 = f32(y2 + np.outer(w[k], v[k]).astype(np.float32))
    y3 = np.zeros((n, 512), np.float32)
    for r in range((n + 127) // 128):
        rows = slice(r * 128, min(r * 128 + 128, n))
        for k in range(r + 1):
            cols = min(512, d - k * 512)
            y3[rows, :cols] = f32(y3[rows, :cols] + v[rows, k * 512:k * 512 + cols])
    return {"y1": (f32(2 * v + v).astype(np.float64), "exact"), "y2": (y2.astype(np.float64), "exact"),
            "y3": (y3.astype(np.float64), "exact")}


def _inputs_ragged_attn(p, r):
    return {"q": r.standard_normal((p["N"], p["D"])), "k": r.standard_normal((p["N"], p["D"]))}


def _ref_ragged_attn(p, x):
    # block (i, j <= i) scores q_i k_j^T summed over the D partitions in
    # increasing order in fp32 (SPEC.md §5), modelled step by step, then the
    # row maxima (exact); columns j > i stay at the memset's 0.
    q, k, n = f32(x["q"]), f32(x["k"]), p["N"]
    y = np.zeros((n, 3), np.float32)
    for i in range((n + 127) // 128):
        qi = q[i * 128:min(i * 128 + 128, n)]
        for j in range(i + 1):
            kj = k[j * 128:min(j * 128 + 128, n)]
            s = np.outer(qi[:, 0], kj[:, 0]).astype(np.float32)
            for d in range(1, q.shape[1]):
                s = f32(s + np.outer(qi[:, d], kj[:, d]).astype(np.float32))
            y[i * 128:i * 128 + len(qi), j] = s.max(axis=1)
    return {"y": (y.astype(np.float64), "exact")}


def _inputs_shapes(p, r):
    n, d = p["N"], p["D"]
    return {"g": r.standard_normal(d), "h": r.standard_normal((1, d)), "s": r.standard_normal((44, d)),
            "x": r.standard_normal((n, d)), "w": r.standard_normal((128, 96))}


def _ref_shapes(p, x):
    # copies and 2x are exact, 2x + x one rounding (of an exact 2x); the matmul
    # sums its 128 products in increasing k in fp32 (SPEC.md §5): modelled step
    # by step, exact. y6: chunks of 2 * (rest // 2) columns (D even: all of them).
    g, h, s, v, w = (f32(x[k]) for k in ("g", "h", "s", "x", "w"))
    d = p["D"]
    acc = np.outer(w[0], v[0]).astype(np.float32)
    for k in range(1, 128):
        acc = f32(acc + np.outer(w[k], v[k]).astype(np.float32))
    assert d % 2 == 0
    y6 = 2 * v[:128]
    out = {"y1": np.broadcast_to(g, (128, d)), "y2": np.broadcast_to(h, (128, d)), "y3": 2 * s,
           "y4": f32(2 * v + v), "y5": acc, "y6": y6}
    return {k: (np.asarray(a, np.float64), "exact") for k, a in out.items()}


def _inputs_grid_rows(p, r):
    return {"x": r.standard_normal((p["N"], p["D"]))}


def _ref_grid_rows(p, x):
    # 2x is exact, + 1 one fp32 rounding -> exact
    return {"y": (f32(2 * f32(x["x"]) + 1).astype(np.float64), "exact")}


def _inputs_grid_blocks(p, r):
    return {"x": r.standard_normal((2, p["N"], p["D"]))}


def _ref_grid_blocks(p, x):
    # program (b, c, r): rows r*128.. (ragged), columns c*32..c*32+32;
    # u = t where r*128 + p >= f + c*32 else -1, then c + 1 fp32 adds of t,
    # then + (p + c*f + 3) (small integers, exact in fp32): modelled step by step
    v, n = f32(x["x"]), p["N"]
    y = np.zeros_like(v)
    nr = (n + 127) // 128
    for b in range(2):
        for c in range(p["D"] // 32):
            for r in range(nr):
                rows = slice(r * 128, min(n, r * 128 + 128))
                t = v[b, rows, c * 32:c * 32 + 32]
                pp = np.arange(t.shape[0])[:, None]
                ff = np.arange(32)[None, :]
                u = np.where(r * 128 + pp >= ff + c * 32, t, np.float32(-1)).astype(np.float32)
                for _ in range(c + 1):
                    u = f32(u + t)
                y[b, rows, c * 32:c * 32 + 32] = f32(u + (pp + c * ff + nr).astype(np.float32))
    return {"y": (y.astype(np.float64), "exact")}


def _inputs_acttab(p, r):
    return {"x": 3.0 * r.standard_normal((p["N"], p["D"])), "xi": r.integers(-128, 128, (128, 300)),
            "xe": 2.0 * r.standard_normal((128, 300))}


def _ref_acttab(p, x):
    # Each table entry is the runtime's activation of that input (<= 1 ulp,
    # docs/numerics.md); 4 u relative allowed. Row sums: a left fold of D fp32
    # adds, (D + 4) u of sum|y|. bf16 results: one more rounding, 2^-8 relative.
    import math
    v = x["x"]
    erfc = np.vectorize(math.erfc)  # 1 + erf(z) = erfc(-z), without cancellation for z << 0
    g = 0.5 * v * erfc(-v / math.sqrt(2.0))
    t = 2.0 * v
    h = t / (1.0 + np.exp(-t))
    d = p["D"]
    rows = lambda a: np.sum(a, axis=1, keepdims=True)  # noqa: E731
    elem = lambda a: 4 * U32 * np.abs(a) + TINY  # noqa: E731  (TINY: results that underflow fp32)
    hb = fp.round_to(h, fp.BF16)
    y3, y4 = np.tanh(x["xi"]), np.exp(x["xe"])
    return {"y1": (g, elem(g)), "s1": (rows(g), (d + 4) * U32 * rows(np.abs(g)) + 1e-37),
            "y2": (hb, ULP_BF16 * np.abs(h) / 2 + elem(h)), "s2": (rows(h), (d + 4) * U32 * rows(np.abs(h)) + 1e-37),
            "y3": (y3, elem(y3)), "y4": (y4, elem(y4))}


def _inputs_iterlanes(p, r):
    # y near 1 so that 40-element products stay in range
    return {"x": r.standard_normal((2, 3840)), "y": 1.0 + 0.05 * r.standard_normal((3, 280)),
            "z": r.standard_normal((1, 200))}


def _ref_iterlanes(p, x):
    # Each fold in order in fp32: within (n + 4) u of the sum of magnitudes
    # (sums, differences) or n u relative (products); max exact. The bits
    # are the ISS's (iss_check.sh).
    v, w, z = f32(x["x"]).astype(np.float64), f32(x["y"]).astype(np.float64), f32(x["z"]).astype(np.float64)
    ch = v.reshape(2, 12, 320)
    s1, a1 = ch.sum(axis=2), np.abs(ch).sum(axis=2)
    tol1 = 324 * U32 * a1 + 1e-37
    t1 = s1.sum(axis=1, keepdims=True)
    p3 = -np.prod(w.reshape(3, 7, 40), axis=2)
    d = z[0, 160:200]
    d1 = np.array([[d[0] - d[1:].sum()]])
    # activations within 4 u of their fp64 values, sums as above
    e1 = np.exp(f32(0.5 * f32(x["x"][:, :576])).astype(np.float64))
    c1 = e1.reshape(2, 6, 96)
    w2 = np.stack([w[:, j * 48:j * 48 + 64] for j in range(5)], axis=1) ** 2
    x3 = f32(0.25 * f32(x["x"][:, :1280])).astype(np.float64).reshape(2, 2, 640)
    z4 = np.stack([z[:, q * 33:q * 33 + 100] for q in range(4)], axis=1) ** 2
    x6 = v[:, :576].reshape(2, 6, 96)
    e6 = np.exp(f32(x6 - x6[:, :, 0:1]).astype(np.float64))
    st = lambda a: (a.sum(axis=2), (a.shape[2] + 8) * U32 * np.abs(a).sum(axis=2) + 1e-37)  # noqa: E731
    q7 = f32(0.5 * v[:, :256]).astype(np.float64) ** 2  # square of x·scale, one rounding each
    return {"a7": st(q7.reshape(2, 4, 64)), "a7e": (q7[:, 192:256], 2 * U32 * q7[:, 192:256]),
            "a1e": (e1, 4 * U32 * e1), "a1": st(c1), "a2": st(w2), "a3": st(x3), "a4": st(z4), "a6": st(e6),
            "s1": (s1, tol1), "m1": (ch.max(axis=2), "exact"),
            "t1": (t1, tol1.sum(axis=1, keepdims=True) + 16 * U32 * np.abs(s1).sum(axis=1, keepdims=True)),
            "p3": (p3, 44 * U32 * np.abs(p3)), "d1": (d1, 44 * U32 * np.abs(d).sum() + 1e-37),
            "k1": (2 * s1, 2 * tol1), "k2": (0.5 * s1, 0.5 * tol1)}


def _inputs_consts(p, r):
    return {"x": r.standard_normal((128, 300)), "w": 0.5 * r.standard_normal((20, 200))}


def _ref_consts(p, x):
    # Each scan is the chain r = op1(op0(a[:, j], r), b[:, j]) in fp32, one
    # rounding per op: numpy's float32 arithmetic gives the same bits. The
    # constant tiles hold their memset's number in their dtype (0.1 in bf16).
    def scan(a, b, init, op0):
        a, b = np.broadcast_to(np.float32(a), b.shape), b.astype(np.float32)
        out, r = np.empty_like(b), np.full(b.shape[0], init, np.float32)
        for j in range(b.shape[1]):
            r = (a[:, j] * r if op0 == "multiply" else a[:, j] + r) + b[:, j]
            out[:, j] = r
        return out
    v, w = f32(x["x"]), f32(x["w"])
    c = np.float32(fp.round_to(np.float64(0.1), fp.BF16))
    tw = np.concatenate([w[:, :50], np.ones((20, 150), np.float32)], axis=1)  # ones, a copy over 50 columns
    return {"y1": (scan(1.0, v, 0.0, "multiply"), "exact"),
            "y2": (scan(w[0:3], np.full((3, 200), c), 1.0, "multiply"), "exact"),
            "y3": (scan(np.float32(-0.0), w, 0.0, "add"), "exact"), "y4": (scan(1.0, w, 0.0, "multiply"), "exact"),
            "y5": (scan(tw, w, 0.0, "multiply"), "exact"), "y6": (scan(0.5, w[:, :100], 0.0, "multiply"), "exact")}


def _inputs_consts_grid(p, r):
    return {"x": r.standard_normal((p["N"], p["D"]))}


def _ref_consts_grid(p, x):
    # the cumsum of each row in fp32, in order: numpy's float32 cumsum adds
    # left to right, one rounding per add
    return {"y": (np.cumsum(f32(x["x"]), axis=1, dtype=np.float32), "exact")}


def _inputs_preduce_keys(p, r):
    # Column 0: ±0 only (max +0); 1: -0 only; 2: a NaN of negative sign at row 50;
    # 3: a NaN at the last row; 4: +inf and -inf; 5: -inf only; 6: subnormals of
    # both signs; 7: equal values. bf16: ±0 in column 0, a NaN in column 1 at row
    # 33 (past the first 29 partitions), -inf only in column 2.
    x = r.standard_normal((128, 1100)) * np.exp2(r.integers(-20, 21, (128, 1100)))
    x[:, 0] = np.where(r.random(128) < 0.5, 0.0, -0.0)
    x[:, 1] = -0.0
    x[50, 2] = -np.nan
    x[127, 3] = np.nan
    x[7, 4], x[9, 4] = np.inf, -np.inf
    x[:, 5] = -np.inf
    x[:, 6] = r.choice([-1.0, 1.0], 128) * 2.0 ** -140 * r.integers(1, 64, 128)
    x[:, 7] = 3.5
    xb = r.standard_normal((37, 300))
    xb[:, 0] = np.where(r.random(37) < 0.5, 0.0, -0.0)
    xb[33, 1] = np.nan
    xb[:, 2] = -np.inf
    return {"x": x, "xb": xb}


def _ref_preduce_keys(p, x):
    # The fold of the ALU's maximum over the partitions, then canonical: a NaN
    # anywhere gives NaN; else the largest value, +0 over -0 (exact).
    def pmax(v):
        nan = np.isnan(v).any(axis=0)
        w = np.where(np.isnan(v), -np.inf, v)
        m = w.max(axis=0)
        pos0 = ((w == 0) & ~np.signbit(w)).any(axis=0)
        m = np.where(m == 0, np.where(pos0, 0.0, -0.0), m)
        return np.where(nan, np.nan, m)[None, :]
    v, b = f32(x["x"]), bf16(x["xb"])
    return {"mx": (pmax(v), "exact"), "mxb": (pmax(b), "exact"), "mxf": (pmax(b[:29]), "exact")}


def _inputs_sqdead(p, r):
    # Rows 3 and 70 of x and row 5 of xw hold squares exactly halfway between
    # two fp32 values (1 + 2^-12 squared is 1 + 2^-11 + 2^-24; times powers of
    # two), rows 9 and 71 of x, 6 of xw and 1 of xs fp32 subnormal squares
    # (|x| < 2^-63): those rows run tg_alu_power. Row 11 of x is zeros.
    t = 1.0 + 2.0 ** -12
    x, xw, xs = r.standard_normal((128, 96)), r.standard_normal((128, 1024)), r.standard_normal((3, 200))
    x[3, 7], x[3, 50], x[70, 95] = t, -4.0 * t, 0.25 * t
    x[9, 0], x[71, 13] = 3e-25, -1e-30
    x[11] = 0.0
    # row 5 of xw otherwise zeros: its sum is the tie's term alone, so the
    # side the tie's square takes shows in s2 (1.0324707 = 0x1.085p+0:
    # tg_alu_power rounds its square up, x·x to even down)
    xw[5] = 0.0
    xw[5, 700], xw[6, 3], xs[1, 150] = float.fromhex("0x1.085p+0"), 1e-22, -t
    return {"x": x, "xw": xw, "xs": xs}


def _ref_sqdead(p, x):
    # power 2: the square, correctly rounded except at a tie, where
    # tg_math_powv's own error picks the side: 1 u (or the subnormal quantum
    # 2^-149). The scale is exact (0.5), 1/1024 too; sums in order within
    # (n + 4) u of sum|y|. square is x·x rounded once. The bits are the ISS's
    # (iss_check.sh).
    rows = lambda a: np.sum(a, axis=1, keepdims=True)  # noqa: E731
    sum_tol = lambda a: (a.shape[1] + 4) * U32 * rows(np.abs(a)) + 2.0 ** -140  # noqa: E731
    sq = lambda a: np.square(f32(a).astype(np.float64))  # noqa: E731
    v, w, s = sq(x["x"]), sq(x["xw"]), sq(x["xs"])
    return {"y1": (f32(v) * 0.5, 2 * U32 * np.abs(v) * 0.5 + 2.0 ** -150),
            "s2": (rows(w) / 1024, sum_tol(w) / 1024 + 2.0 ** -149),
            "s3": (rows(w), sum_tol(w)), "s4": (rows(s), sum_tol(s)), "s5": (rows(s), sum_tol(s))}


def _inputs_lanesact(p, r):
    return {"x": r.standard_normal((128, 256)) * 3.0, "x3": r.standard_normal((p["P"], 3, 37)),
            "xb": r.standard_normal((128, 64)), "xl": r.standard_normal((128, 600)),
            "xs": r.standard_normal((3, 96)), "xw": r.standard_normal((128, 1024)) * 3.0,
            "xv": r.standard_normal((70, 576)), "x3w": r.standard_normal((128, 3, 128))}


def _ref_lanesact(p, x):
    # Each activation (of its fp32 argument, x * scale + bias rounded) within
    # 4 u of its fp64 value (the runtime's <= 1 ulp, docs/numerics.md), then
    # one rounding to the narrow dst: a value that close to a rounding
    # boundary may round either way, so one quantum of the dst format (relative
    # for normals; fp16 and fp8 subnormals' absolute quantum added).
    # Row sums and max: the fp32 results folded in order, (n + 4) u of sum|y|.
    # The exact bits are the ISS's (iss_check.sh).
    elem = lambda a: 4 * U32 * np.abs(a) + TINY  # noqa: E731
    rows = lambda a: np.sum(a.reshape(a.shape[0], -1), axis=1, keepdims=True)  # noqa: E731
    sum_tol = lambda a: (a[0].size + 4) * U32 * rows(np.abs(a)) + 1e-37  # noqa: E731

    def narrow(a, fmt, rel, quantum):
        return fp.round_to(a, fmt), rel * np.abs(a) + quantum + elem(a)

    v = f32(x["x"])
    nm = -v.max(axis=1, keepdims=True)
    e1 = np.exp(f32(v + nm))
    e2 = np.tanh(f32(0.5 * f32(x["x3"])))
    e3 = 1.0 / (1.0 + np.exp(-bf16(x["xb"])))
    e4 = np.exp(f32(0.25 * v))
    e5 = np.exp(f32(0.25 * f32(x["xl"])))
    e6 = np.exp(f32(0.25 * f32(x["xs"])))
    e7 = np.exp(f32(f32(0.25 * f32(x["xw"])) + nm))
    e8 = 1.0 / (1.0 + np.exp(-f32(x["xv"])))
    e9 = f32(f32(0.5 * v) + 1.0)
    e10 = f32(f32(x["x3"]) - 0.25)
    w = f32(x["x3w"])
    e11 = np.exp(f32(0.25 * w[:, :, 0:64]))
    e12 = f32(2.0 * w[:, :, 64:128])
    e13 = np.exp(f32(f32(0.25 * f32(x["xw"])) + 0.5))  # the bias: each row's column 0 before the row
    u14 = 2.0 ** (-100.0 + 6.0 * np.arange(33))[:, None]  # each row the row before's sum: 64 times it
    e15 = f32(f32(0.5 * f32(x["xw"])) - 0.75)
    bf = lambda a: narrow(a, fp.BF16, ULP_BF16, 0.0)  # noqa: E731
    return {"y1": bf(e1), "s1": (rows(e1), sum_tol(e1)), "r1": (1.0 / rows(e1), 2 * sum_tol(e1) / rows(e1) ** 2),
            "y2": narrow(e2, fp.FP16, 2.0 ** -10, 2.0 ** -24), "s2": (rows(e2), sum_tol(e2)),
            "y3": narrow(e3, fp.FP8_E4M3, 2.0 ** -3, 2.0 ** -9), "s3": (rows(e3), sum_tol(e3)),
            "y4": bf(e4), "s4": (e4.max(axis=1, keepdims=True), elem(e4.max(axis=1, keepdims=True))),
            "y5": bf(e5), "s5": (rows(e5), sum_tol(e5)), "y6": bf(e6), "s6": (rows(e6), sum_tol(e6)),
            "y7": bf(e7), "s7": (rows(e7), sum_tol(e7)),
            "y8": narrow(e8, fp.FP16, 2.0 ** -10, 2.0 ** -24), "s8": (rows(e8), sum_tol(e8)),
            "y9": (fp.round_to(e9, fp.BF16), "exact"), "s9": (rows(e9), sum_tol(e9)),
            "y10": (e10, "exact"), "s10": (rows(e10), sum_tol(e10)),
            "y11": bf(e11), "s11": (rows(e11), sum_tol(e11)), "y12": (e12, "exact"), "s12": (rows(e12), sum_tol(e12)),
            "y13": bf(e13), "s13": (rows(e13), sum_tol(e13)),
            "y14": (np.repeat(u14[:32], 64, axis=1), "exact"), "s14": (u14, "exact"),
            "y15": (e15, "exact"), "s15": (rows(e15), sum_tol(e15))}


def _inputs_actpack(p, r):
    x1 = r.standard_normal((128, 20)) * 4.0
    x1[0, :4] = [np.nan, -0.0, 1e-40, -200.0]           # NaN, -0, a subnormal, exp's underflow
    x2 = np.abs(r.standard_normal((100, 51))) * 10.0 + 1e-3
    x2[0, :4] = [np.nan, -1.0, 1e-40, 3e38]             # log of NaN and of a negative: NaN; subnormal, huge
    x2[99, 50] = 2.0                                      # log(1) = 0, in the last block
    x3 = r.standard_normal((37, 3, 17)) * 3.0
    x3[36, 2, 16], x3[0, 0, 0] = -0.0, np.nan
    b3 = r.standard_normal((37, 1)) * 0.1
    b3[36, 0] = -0.0                                      # tanh(-0 * 2 + -0) = -0
    x4 = r.standard_normal((128, 100)) * 6.0
    x4[5, :2] = [np.nan, 100.0]
    x5 = np.abs(r.standard_normal((128, 153))) + 0.1
    x5[3, 7] = 1e-40                                      # rsqrt of a subnormal argument
    return {"x1": x1, "b1": r.standard_normal((128, 1)), "x2": x2, "x3": x3, "b3": b3, "x4": x4,
            "b4": r.standard_normal((128, 1)), "x5": x5, "s5": r.uniform(0.5, 2.0, (128, 1)),
            "x6": r.standard_normal((128, 64)) * 4.0, "x7": r.standard_normal((128, 300)) * 2.0}


def _ref_actpack(p, x):
    # Each activation of its fp32 argument (x * scale, then + bias, each
    # rounded) within 4 u of its fp64 value (the runtime's <= 1 ulp,
    # docs/numerics.md), then one rounding to a narrow dst (one quantum of
    # the format, as lanesact). A NaN wants a NaN (its bound is infinite,
    # and any number's difference from NaN counts as infinite). The exact
    # bits are the ISS's (iss_check.sh).
    elem = lambda a: np.where(np.isnan(a), np.inf, 4 * U32 * np.abs(a) + TINY)  # noqa: E731

    def narrow(a, fmt, rel, quantum):
        return fp.round_to(a, fmt), np.where(np.isnan(a), np.inf, rel * np.abs(a) + quantum) + elem(a)

    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        t1 = f32(x["x1"])
        e1 = np.exp(f32(t1 + f32(x["b1"])))
        e2 = np.log(f32(0.5 * f32(x["x2"])))
        e3 = np.tanh(f32(f32(2.0 * f32(x["x3"])) + f32(x["b3"])[:, :, None]))
        e4 = 1.0 / (1.0 + np.exp(-f32(bf16(x["x4"]) + f32(x["b4"]))))
        e5 = 1.0 / np.sqrt(f32(f32(x["x5"]) * f32(x["s5"])))
        e6 = np.exp(f32(-f32(x["x6"])))
        e7 = np.tanh(f32(x["x7"]))
        e10 = np.exp(f32(f32(-0.25 * t1) + f32(x["b1"])))
    y9 = e1 * t1
    s10 = np.sum(e10, axis=1, keepdims=True)
    return {"y1": (e1, elem(e1)), "y9": (y9, np.where(np.isnan(y9), np.inf, 6 * U32 * np.abs(y9) + TINY)),
            "y2": narrow(e2, fp.BF16, ULP_BF16, 0.0), "y3": (e3, elem(e3)),
            "y4": narrow(e4, fp.FP16, 2.0 ** -10, 2.0 ** -24), "y5": (e5, elem(e5)), "y6": (e6, elem(e6)),
            "y7": (e7, elem(e7)), "y10": (e10, elem(e10)),
            "s10": (s10, np.where(np.isnan(s10), np.inf, 24 * U32 * np.sum(np.abs(e10), axis=1, keepdims=True)))}


# Test-only kernels: specs in tests/numerics/specs/, not bundled; checked by the
# gen-cli suite (check.sh with SPECS=tests/numerics/specs).
TEST_SPECS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs")
def _inputs_views(p, r):
    n, d = p["N"], p["D"]
    w = r.standard_normal((2 * n, d)).astype(np.float32).view(np.uint32)  # fp32 bit patterns
    return {"x": r.standard_normal((2, n, d)), "w": w.astype(np.float64)}


def _ref_views(p, x):
    # every step one fp32 op: the add, the row sum as a left fold (tensor_reduce's
    # order, docs/numerics.md), the doubling; o holds the bits of x * 2
    n, d = p["N"], p["D"]
    xr = x["x"].astype(np.float32).reshape(2 * n, d)
    wf = x["w"].astype(np.uint32).view(np.float32)
    st = xr + wf
    y = np.concatenate([st, np.cumsum(st, axis=1, dtype=np.float32)[:, -1:]], axis=1)
    o = (xr * np.float32(2)).view(np.int32).reshape(2, n, d)
    return {"y": (y.astype(np.float64), "exact"), "o": (o.astype(np.float64), "exact")}


def _inputs_scratch(p, r):
    return {"x": r.standard_normal((128, 64))}


def _ref_scratch(p, x):
    # x * 2 (one exact fp32 op) through scratch; row sums as a left fold (fp32)
    d = (x["x"].astype(np.float32) * np.float32(2)).reshape(64, 128)
    rs = np.cumsum(d.reshape(128, 64)[0:32], axis=1, dtype=np.float32)[:, -1:]
    return {"y": (d.astype(np.float64), "exact"), "r": (rs.astype(np.float64), "exact")}


def _inputs_rank5(p, r):
    return {"x": r.standard_normal((2, 4, 8, 2, 32)), "w": r.standard_normal((64, 64))}


def _ref_rank5(p, x):
    z = x["x"].astype(np.float32) * np.float32(3)
    u = x["w"].reshape(4, 4, 4, 4, 16)[1]
    return {"z": (z.astype(np.float64), "exact"), "u": (u, "exact")}


TEST_KERNELS = {
    "scratch": _k({}, [("x", "float32", "128, 64")], [("y", "float32", "64, 128"), ("r", "float32", "32, 1")],
                  _inputs_scratch, _ref_scratch),
    "rank5": _k({}, [("x", "float32", "2, 4, 8, 2, 32"), ("w", "float32", "64, 64")],
                [("z", "float32", "2, 4, 8, 2, 32"), ("u", "float32", "4, 4, 4, 16")], _inputs_rank5, _ref_rank5),
    "views": _k({"N": 160, "D": 64}, [("x", "float32", "2, N, D"), ("w", "uint32", "2 * N, D")],
                [("y", "float32", "2 * N, D + 1"), ("o", "int32", "2, N, D")], _inputs_views, _ref_views),
    # bench/specs/matmul_nki.yaml at its default (small) size
    "matmul_nki": _k({"M": 256, "K": 512, "N": 1024},
                     [("lhsT", "bfloat16", "K, M"), ("rhs", "bfloat16", "K, N")],
                     [("result", "float32", "M, N")], _inputs_matmul, _ref_matmul),
    "preduce": _k({"P": 128, "R": 100, "F": 96},
                  [("x", "float32", "P, F"), ("xi", "int32", "P, F")],
                  [("sum", "float32", "1, F"), ("mx", "float32", "1, F"),
                   ("bor", "int32", "1, F"), ("band", "int32", "1, F")], _inputs_preduce, _ref_preduce),
    "shift": _k({"P": 128, "F": 512}, [("x", "float32", "P, F")],
                [("y", "float32", "P, F"), ("z", "float32", "P, F"), ("w", "float32", "P, F")],
                _inputs_shift, _ref_shift),
    "lanes": _k({"P": 100, "A": 3, "F": 37}, [("x", "float32", "P, A, F")],
                [("y", "float32", "P, A, F"), ("s", "float32", "P, 1"), ("m", "float32", "P, 1")],
                _inputs_lanes, _ref_lanes),
    "lanes_bf16": _k({}, [("x", "bfloat16", "100, 300"), ("z", "bfloat16", "40, 3, 37"), ("w", "bfloat16", "40, 500")],
                     [("y", "float32", "100, 300"), ("s", "float32", "100, 1"), ("m", "float32", "100, 1"),
                      ("zs", "float32", "40, 1"), ("zy", "float32", "40, 3, 37"),
                      ("yb", "bfloat16", "100, 300"), ("zb", "bfloat16", "40, 3, 37"), ("mv", "float32", "40, 2")],
                     _inputs_lanes_bf16, _ref_lanes_bf16),
    "lanes_f16": _k({}, [("x", "float16", "100, 300"), ("z", "float16", "40, 3, 37"), ("w", "float16", "40, 500")],
                    [("y", "float32", "100, 300"), ("s", "float32", "100, 1"), ("m", "float32", "100, 1"),
                     ("zs", "float32", "40, 1"), ("zy", "float32", "40, 3, 37"),
                     ("yh", "float16", "100, 300"), ("zh16", "float16", "40, 3, 37"), ("mv", "float32", "40, 2")],
                    _inputs_lanes_f16, _ref_lanes_f16),
    "actstage": _k({}, [("xa", "float32", "300, 100"), ("xb", "bfloat16", "256, 200"), ("xh", "float16", "130, 37"),
                        ("x8", "float8_e4m3", "128, 64"), ("xe", "float8_e5m2", "40, 500"),
                        ("xw", "float32", "200, 1088")],
                   [("sa", "float32", "300, 1"), ("sb", "float32", "256, 1"), ("sh", "float32", "130, 1"),
                    ("s8", "float32", "128, 1"), ("se", "float32", "40, 1"), ("sw", "float32", "200, 1")],
                   _inputs_actstage, _ref_actstage),
    "lanes_f8": _k({}, [("x", "float8_e4m3", "100, 300"), ("z", "float8_e5m2", "40, 3, 37"),
                         ("w", "float8_e5m2", "40, 500")],
                   [("y", "float32", "100, 300"), ("s", "float32", "100, 1"), ("m", "float32", "100, 1"),
                    ("zs", "float32", "40, 1"), ("zy", "float32", "40, 3, 37"),
                    ("y8", "float8_e4m3", "100, 300"), ("z8", "float8_e5m2", "40, 3, 37"), ("mv", "float32", "40, 2")],
                   _inputs_lanes_f8, _ref_lanes_f8),
    "forward": _k({"N": 256, "F": 64},
                  [("x", "float32", "N, F"), ("g", "float32", "1, F"), ("w", "float32", "128, 128")],
                  [("y1", "float32", "N, F"), ("y2", "float32", "N, F"), ("y3", "float32", "128, F"),
                   ("y4", "float32", "N, F"), ("y5", "float32", "N, F"), ("y6", "float32", "N, F"),
                   ("y7", "float32", "N, F"), ("y8", "float32", "N, F"), ("y9", "float32", "128, F"),
                   ("y10", "float32", "N, F / 2"), ("y11", "float32", "N, F"), ("y12", "float32", "N, F"),
                   ("y13", "float32", "N, F"), ("y14", "float32", "N, F"), ("y15", "float32", "N, F"),
                   ("y16", "float32", "128, F")],
                  _inputs_forward, _ref_forward),
    "introws": _k({"N": 256, "D": 200, "THR": 100},
                  [("a", "int32", "N, D"), ("b", "int32", "N, D"), ("m", "int32", "N, D")],
                  [("ys", "int32", "N, D"), ("yp", "float32", "N, D"), ("ymx", "uint8", "N, D"),
                   ("ygt", "uint8", "N, D"), ("yt2", "int32", "N, D"), ("yrv", "int16", "N, D"),
                   ("yband", "int32", "N, D"), ("ymin", "float32", "N, D"), ("ystr", "int32", "N, D / 2"),
                   ("ysh", "uint8", "N, D / 2")], _inputs_introws, _ref_introws),
    "keep": _k({"T": 3, "G": 2, "N": 256}, [("x", "bfloat16", "T * 128, 128"), ("w", "bfloat16", "G, 128, N")],
               [("y1", "float32", "T * 128, N"), ("y2", "float32", "G, T * 128, N"), ("y3", "float32", "128, N"),
                ("y4", "float32", "T * 128, N"), ("y5", "float32", "T * 128, N")], _inputs_keep, _ref_keep),
    "copysink": _k({"T": 2, "KT": 3, "N": 256}, [("x", "bfloat16", "T * 128, KT * 128"), ("w", "bfloat16", "KT * 128, N")],
                   [("y1", "float32", "T * 128, N"), ("y2", "float32", "T * 128, N"), ("y3", "float32", "T * 128, N"),
                    ("y4", "bfloat16", "T * 128, N"), ("y5", "float32", "T * 128, N")], _inputs_copysink, _ref_copysink),
    "kfold": _k({"KT": 5, "M": 40, "N": 48}, [("a", "bfloat16", "KT * 64, M"), ("b", "bfloat16", "KT * 64, N")],
                [("y1", "float32", "M, N"), ("y2", "float32", "M, N"), ("y3", "float32", "M, N"),
                 ("y4", "float32", "M, N"), ("y5", "float32", "M, N")], _inputs_kfold, _ref_kfold),
    "ragged_k": _k({}, [("a", "bfloat16", "300, 64"), ("b", "bfloat16", "300, 96")],
                   [("y", "float32", "64, 96")], _inputs_ragged_k, _ref_ragged_k),
    "cmprows": _k({"D": 300}, [("x", "float32", "128, D"), ("y", "float32", "128, D")],
                  [("gt", "float32", "128, D"), ("le", "float32", "128, D"), ("ne", "float32", "128, D"),
                   ("lx", "float32", "128, D"), ("ab", "float32", "128, D"), ("sa", "float32", "128, D"),
                   ("sd", "float32", "128, D")], _inputs_cmprows, _ref_cmprows),
    "fscale": _k({"D": 100}, [("x", "float32", "128, D")],
                 [("mean", "float32", "128, 1"), ("ys", "float32", "128, D"), ("yo", "float32", "128, D"),
                  ("yc", "float32", "128, D"), ("yl", "float32", "128, D")], _inputs_fscale, _ref_fscale),
    "tstore": _k({"N": 300, "D": 96}, [("x", "float32", "N, D"), ("xb", "bfloat16", "N, D")],
                 [("y", "float32", "D, N"), ("yb", "bfloat16", "D, N")], _inputs_tstore, _ref_tstore),
    "gather": _k({"V": 50, "D": 40, "N": 300, "C": 70},
                 [("table", "float32", "V, D"), ("tab3", "float32", "V, 4, 8"), ("ids", "int32", "N, 2"),
                  ("ids16", "uint16", "N, 1"), ("ids8", "int8", "N, 1"), ("idsu", "uint32", "N, 1"),
                  ("logits", "float32", "N, C"), ("tg", "int32", "N, 1"), ("src", "float32", "N, D"),
                  ("perm", "int32", "N, 1")],
                 [("rows", "float32", "N, D"), ("rows16", "float32", "N, D"), ("rows8", "float32", "N, D"),
                  ("rowsu", "float32", "N, D"), ("rows3", "bfloat16", "N, 4, 8"), ("picked", "float32", "N, 1"),
                  ("scat", "float32", "N, D")], _inputs_gather, _ref_gather),
    "stage2": _k({"W": 202},
                 [("x", "float32", "128, W"), ("xb", "bfloat16", "128, W"), ("xu", "uint8", "128, W"),
                  ("xi", "int32", "128, 80"), ("x3", "float32", "128, 4, 50"), ("xl", "float32", "128, 2100")],
                 [("y1", "float32", "128, W / 2"), ("y2", "float32", "128, W / 2"),
                  ("y3", "float32", "128, W / 2"), ("y4", "int32", "128, 40"), ("y5", "float32", "128, 16"),
                  ("y6", "float32", "128, 15"), ("y7", "float32", "128, 4, 20"), ("y8", "float32", "128, W / 2"),
                  ("y9", "bfloat16", "128, W / 2"), ("y10", "float32", "128, 1050")],
                 _inputs_stage2, _ref_stage2),
    "hbmcopy": _k({"N": 300, "F": 64},
                  [("x", "float32", "N, F")],
                  [("y1", "float32", "N, F"), ("y2", "float32", "200, F / 2"), ("y3", "float32", "N / 2, 2 * F")],
                  _inputs_hbmcopy, _ref_hbmcopy),
    "hbmwin": _k({"N": 256, "F": 64},
                 [("x", "float32", "N, F")],
                 [("y1", "float32", "N, F"), ("y2", "float32", "N, F"), ("y2c", "float32", "N, 1"),
                  ("y3", "float32", "N + 1, F"), ("y3b", "float32", "N, F"), ("y4", "float32", "N, F"),
                  ("y4b", "float32", "N, F")],
                 _inputs_hbmwin, _ref_hbmwin),
    "chains": _k({"N": 256, "F": 64},
                 [("x", "float32", "N, F"), ("g", "float32", "1, F")],
                 [("y1", "float32", "N, F"), ("y2", "float32", "N, F - 1"), ("y3", "float32", "N, F - 1"),
                  ("y4", "float32", "N, F"), ("y5", "float32", "N, F"), ("y6", "bfloat16", "N, F")],
                 _inputs_chains, _ref_chains),
    "rowlocal": _k({"N": 256, "F": 64, "W": 2100},
                   [("x", "float32", "N, F"), ("g", "float32", "1, F"), ("z", "float32", "128, W"),
                    ("xn", "float32", "128, F")],
                   [("y1", "float32", "N, F"), ("y2", "float32", "N, F"), ("y3", "float32", "N, F"),
                    ("y4", "float32", "128, F"), ("y5", "float32", "N, 1"), ("y7", "float32", "N, F"),
                    ("y8", "float32", "128, W"), ("y9", "float32", "128, F"), ("y10", "float32", "128, F"),
                    ("y11", "float32", "128, F"), ("y12", "bfloat16", "128, F"),
                    ("y13", "float32", "128, F")],
                   _inputs_rowlocal, _ref_rowlocal),
    "raggedfwd": _k({"N": 300, "D": 40, "V": 50, "F": 100},
                    [("x", "float32", "N, D"), ("x3", "float32", "N, D"), ("table", "float32", "V, D"),
                     ("ids", "int32", "N, 1"), ("x6", "float32", "128, F")],
                    [("y1", "float32", "N, D"), ("y3", "float32", "N, D"), ("y4", "float32", "N, D"),
                     ("y5", "float32", "N, D"), ("y6", "float32", "128, F"), ("y7", "float32", "N, D")],
                    _inputs_raggedfwd, _ref_raggedfwd),
    "psum_banks": _k({"R": 256}, [("x", "float32", "R, 1024")], [("y", "float32", "R, 1024")],
                     _inputs_psum_banks, _ref_psum_banks),
    "colacc": _k({"N": 24}, [("x", "float32", "128, N")], [("y", "float32", "128, N")],
                 _inputs_colacc, _ref_colacc),
    "print_loops": _k({"T": 2, "K": 2}, [("x", "float32", "T, K, 32, 16"), ("w", "bfloat16", "K, 32, 24")],
                      [("y", "float32", "T, 16, 24")], _inputs_print_loops, _ref_print_loops),
    "shapes": _k({"N": 200, "D": 700},
                 [("g", "float32", "D"), ("h", "float32", "1, D"), ("s", "float32", "44, D"),
                  ("x", "float32", "N, D"), ("w", "float32", "128, 96")],
                 [("y1", "float32", "128, D"), ("y2", "float32", "128, D"), ("y3", "float32", "44, D"),
                  ("y4", "float32", "N, D"), ("y5", "float32", "96, D"), ("y6", "float32", "128, D")],
                 _inputs_shapes, _ref_shapes),
    "ragged_tiles": _k({"N": 300, "D": 1300}, [("x", "float32", "N, D"), ("w", "float32", "128, 96")],
                       [("y1", "float32", "N, D"), ("y2", "float32", "96, D"), ("y3", "float32", "N, 512")],
                       _inputs_ragged_tiles, _ref_ragged_tiles),
    "ragged_attn": _k({"N": 300, "D": 64}, [("q", "float32", "N, D"), ("k", "float32", "N, D")],
                      [("y", "float32", "N, 3")], _inputs_ragged_attn, _ref_ragged_attn),
    "grid_rows": _k({"N": 300, "D": 96}, [("x", "float32", "N, D")], [("y", "float32", "N, D")],
                    _inputs_grid_rows, _ref_grid_rows),
    "grid_mm": _k({"M": 256, "K": 256, "N": 1024},
                  [("lhsT", "bfloat16", "K, M"), ("rhs", "bfloat16", "K, N")],
                  [("result", "float32", "M, N")], _inputs_matmul, _ref_matmul),
    "grid_blocks": _k({"N": 300, "D": 96}, [("x", "float32", "2, N, D")], [("y", "float32", "2, N, D")],
                      _inputs_grid_blocks, _ref_grid_blocks),
    # cores: 2 changes where programs run, not what they compute: grid_mm's reference
    "grid_cores": _k({"M": 300, "K": 256, "N": 1024},
                     [("lhsT", "bfloat16", "K, M"), ("rhs", "bfloat16", "K, N")],
                     [("result", "float32", "M, N")], _inputs_matmul, _ref_matmul),
    "reduce_ops": _k({"D": 100},
                     [("xf", "float32", "128, D"), ("xb", "bfloat16", "128, D"), ("xh", "float16", "128, D"),
                      ("xi", "int16", "128, D"), ("xu", "uint8", "128, D"), ("c", "float32", "128, 1")],
                     [("r", "float32", "128, 8"), ("ya", "bfloat16", "128, D"), ("yf", "float32", "128, D"),
                      ("ys", "float32", "128, D"), ("yb", "bfloat16", "128, D"), ("yh", "float16", "128, D"),
                      ("y8", "float8_e4m3", "128, D"), ("yi", "int16", "128, D"), ("yu", "uint8", "128, D")],
                     _inputs_reduce_ops, _ref_reduce_ops),
    "select_ops": _k({"D": 100},
                     [("xf", "float32", "128, D"), ("xb", "bfloat16", "128, D"), ("xh", "float16", "128, D"),
                      ("xi", "int16", "128, D"), ("pu", "uint8", "128, D"), ("c", "float32", "128, 1")],
                     [("s1", "float32", "128, D"), ("s2", "bfloat16", "128, D"), ("s3", "int16", "128, D"),
                      ("s4", "float16", "128, D"), ("s5", "uint8", "128, D"), ("t1", "float32", "128, D"),
                      ("t2", "bfloat16", "128, D"), ("t3", "int16", "128, D"), ("t4", "float8_e4m3", "128, D")],
                     _inputs_select_ops, _ref_select_ops),
    "intsum": _k({"D": 2048},
                 [("a8", "int8", "128, D"), ("u8", "uint8", "128, D"), ("i16", "int16", "128, 512"),
                  ("u16", "uint16", "128, 256"), ("w16", "uint16", "128, 300"), ("x", "float32", "128, 1000"),
                  ("c", "float32", "128, 1")],
                 [("r", "float32", "128, 12"), ("ri", "int32", "128, 2")],
                 _inputs_intsum, _ref_intsum),
    "trcast": _k({},
                 [("a", "int8", "200, 96"), ("b", "float32", "130, 100"), ("c", "bfloat16", "77, 150"),
                  ("d", "float32", "90, 70")],
                 [("ya", "bfloat16", "96, 200"), ("yb", "float8_e4m3", "100, 130"), ("yc", "float32", "150, 77"),
                  ("yd", "int16", "70, 90")],
                 _inputs_trcast, _ref_trcast),
    "trsink": _k({"H8": 300, "HB": 256, "HF": 200},
                 [("x8", "uint8", "H8, 200"), ("xb", "bfloat16", "HB, 130"), ("xf", "float32", "HF, 64")],
                 [("y8", "uint8", "200, H8"), ("yb", "bfloat16", "130, HB"), ("yf", "float32", "64, HF")],
                 _inputs_trsink, _ref_trsink),
    "affsel_int": _k({},
                     [("a8", "int8", "128, 40"), ("u8", "uint8", "128, 40"), ("i16", "int16", "96, 33"),
                      ("u16", "uint16", "96, 33")],
                     [("y8", "int8", "128, 40"), ("yu8", "uint8", "128, 40"), ("y16", "int16", "96, 33"),
                      ("yu16", "uint16", "96, 33")],
                     _inputs_affsel_int, _ref_affsel_int),
    "shortrows": _k({},
                    [("a", "bfloat16", "128, 39"), ("b", "float16", "128, 39"), ("c", "float32", "128, 17"),
                     ("d", "float32", "128, 63"), ("s", "float32", "128, 1")],
                    [("y1", "float32", "128, 39"), ("y2", "float16", "128, 78"), ("y3", "bfloat16", "128, 17"),
                     ("y4", "float32", "128, 17"), ("y5", "float8_e4m3", "128, 63"), ("y6", "bfloat16", "128, 63"),
                     ("y7", "float32", "128, 39"), ("y8", "float32", "128, 2")],
                    _inputs_shortrows, _ref_shortrows),
    "top8_ops": _k({"D": 300},
                   [("x", "float32", "128, D"), ("xb", "bfloat16", "128, D"), ("xi", "int16", "128, D"),
                    ("v", "float32", "128, 8")],
                   [("m", "float32", "128, 8"), ("m2", "float32", "128, 8"), ("ix", "uint32", "128, 8"),
                    ("iv", "uint16", "128, 8"), ("r", "float32", "128, D"), ("mb", "bfloat16", "128, 8"),
                    ("mi", "int16", "128, 8"), ("ixi", "uint32", "128, 8"), ("ri", "int16", "128, D"),
                    ("ms", "float32", "128, 8"), ("ixs", "uint32", "128, 8"), ("ivs", "uint32", "128, 8"),
                    ("rs", "float32", "128, 12"), ("m8", "float32", "128, 8"), ("rb", "bfloat16", "128, D")],
                   _inputs_top8_ops, _ref_top8_ops),
    "loopnum_ops": _k({"D": 64}, [("x", "float32", "128, 4*D")],
                      [("ys", "float32", "128, 4*D"), ("yt", "float32", "128, 4*D"), ("yr", "float32", "128, 4*D")],
                      _inputs_loopnum_ops, _ref_loopnum_ops),
    "iterlanes": _k({}, [("x", "float32", "2, 3840"), ("y", "float32", "3, 280"), ("z", "float32", "1, 200")],
                    [("s1", "float32", "2, 12"), ("m1", "float32", "2, 12"), ("t1", "float32", "2, 1"),
                     ("p3", "float32", "3, 7"), ("d1", "float32", "1, 1"), ("k1", "float32", "2, 12"),
                     ("k2", "float32", "2, 12"), ("a1e", "float32", "2, 576"), ("a1", "float32", "2, 6"),
                     ("a2", "float32", "3, 5"), ("a3", "float32", "2, 2"), ("a4", "float32", "1, 4"),
                     ("a6", "float32", "2, 6"), ("a7", "float32", "2, 4"), ("a7e", "float32", "2, 64")],
                    _inputs_iterlanes, _ref_iterlanes),
    "consts": _k({}, [("x", "float32", "128, 300"), ("w", "float32", "20, 200")],
                 [("y1", "float32", "128, 300"), ("y2", "float32", "3, 200"), ("y3", "float32", "20, 200"),
                  ("y4", "float32", "20, 200"), ("y5", "float32", "20, 200"), ("y6", "float32", "20, 100")],
                 _inputs_consts, _ref_consts),
    "consts_grid": _k({"N": 300, "D": 160}, [("x", "float32", "N, D")], [("y", "float32", "N, D")],
                      _inputs_consts_grid, _ref_consts_grid),
    "preduce_keys": _k({}, [("x", "float32", "128, 1100"), ("xb", "bfloat16", "37, 300")],
                       [("mx", "float32", "1, 1100"), ("mxb", "bfloat16", "1, 300"), ("mxf", "float32", "1, 300")],
                       _inputs_preduce_keys, _ref_preduce_keys),
    "overwrite": _k({"N": 200}, [("x", "float32", "N, 64")],
                    [("y1", "float32", "N, 64"), ("s1", "float32", "N, 1"), ("y2", "float32", "N, 64"),
                     ("y3", "float32", "N, 64"), ("y4", "float32", "N, 64"), ("y5", "float32", "N, 64"),
                     ("y6", "float32", "N, 64"), ("y7", "float32", "N, 64"), ("y8", "float32", "N, 64")],
                    _inputs_overwrite, _ref_overwrite),
    "selraw": _k({"D": 96, "R": 300},
                 [("xf", "float32", "128, D"), ("xb", "bfloat16", "128, D"), ("yb", "bfloat16", "128, D"),
                  ("xh", "float16", "128, D"), ("x8", "float8_e4m3", "128, D"), ("x5", "float8_e5m2", "128, D"),
                  ("xi", "int16", "128, D"), ("xw", "uint16", "128, D"), ("xa", "int8", "128, D"),
                  ("xu", "uint8", "128, D"), ("xj", "int32", "128, D"), ("pu", "uint8", "128, D"),
                  ("pf", "float32", "128, D"), ("c", "float32", "128, 1"), ("tbl", "bfloat16", "R, D"),
                  ("idx", "int32", "128, 1")],
                 [("sf", "float32", "128, D"), ("sb", "bfloat16", "128, D"), ("sb2", "bfloat16", "128, D"),
                  ("sh", "float16", "128, D"), ("s8", "float8_e4m3", "128, D"), ("s5", "float8_e5m2", "128, D"),
                  ("si", "int16", "128, D"), ("sw", "uint16", "128, D"), ("sa", "int8", "128, D"),
                  ("su", "uint8", "128, D"), ("sj", "int32", "128, D"), ("sg", "bfloat16", "128, D")],
                 _inputs_selraw, _ref_selraw),
    "sqdead": _k({}, [("x", "float32", "128, 96"), ("xw", "float32", "128, 1024"), ("xs", "float32", "3, 200")],
                 [("y1", "float32", "128, 96"), ("s2", "float32", "128, 1"), ("s3", "float32", "128, 1"),
                  ("s4", "float32", "3, 1"), ("s5", "float32", "3, 1")],
                 _inputs_sqdead, _ref_sqdead),
    "actpack": _k({},
                  [("x1", "float32", "128, 20"), ("b1", "float32", "128, 1"), ("x2", "float32", "100, 51"),
                   ("x3", "float32", "37, 3, 17"), ("b3", "float32", "37, 1"), ("x4", "bfloat16", "128, 100"),
                   ("b4", "float32", "128, 1"), ("x5", "float32", "128, 153"), ("s5", "float32", "128, 1"),
                   ("x6", "float32", "128, 64"), ("x7", "float32", "128, 300")],
                  [("y1", "float32", "128, 20"), ("y9", "float32", "128, 20"), ("y2", "bfloat16", "100, 51"),
                   ("y3", "float32", "37, 3, 17"), ("y4", "float16", "128, 100"), ("y5", "float32", "128, 153"),
                   ("y6", "float32", "128, 64"), ("y7", "float32", "128, 300"), ("y10", "float32", "128, 20"),
                   ("s10", "float32", "128, 1")],
                  _inputs_actpack, _ref_actpack),
    "lanesact": _k({"P": 100},
                   [("x", "float32", "128, 256"), ("x3", "float32", "P, 3, 37"), ("xb", "bfloat16", "128, 64"),
                    ("xl", "float32", "128, 600"), ("xs", "float32", "3, 96"), ("xw", "float32", "128, 1024"),
                    ("xv", "float32", "70, 576"), ("x3w", "float32", "128, 3, 128")],
                   [("y1", "bfloat16", "128, 256"), ("s1", "float32", "128, 1"), ("r1", "float32", "128, 1"),
                    ("y2", "float16", "P, 3, 37"), ("s2", "float32", "P, 1"), ("y3", "float8_e4m3", "128, 64"),
                    ("s3", "float32", "128, 1"), ("y4", "bfloat16", "128, 256"), ("s4", "float32", "128, 1"),
                    ("y5", "bfloat16", "128, 600"), ("s5", "float32", "128, 1"), ("y6", "bfloat16", "3, 96"),
                    ("s6", "float32", "3, 1"), ("y7", "bfloat16", "128, 1024"), ("s7", "float32", "128, 1"),
                    ("y8", "float16", "70, 576"), ("s8", "float32", "70, 1"), ("y9", "bfloat16", "128, 256"),
                    ("s9", "float32", "128, 1"), ("y10", "float32", "P, 3, 37"), ("s10", "float32", "P, 1"),
                    ("y11", "bfloat16", "128, 3, 64"), ("s11", "float32", "128, 1"), ("y12", "float32", "128, 3, 64"),
                    ("s12", "float32", "128, 1"), ("y13", "bfloat16", "128, 1024"), ("s13", "float32", "128, 1"),
                    ("y14", "bfloat16", "32, 64"), ("s14", "float32", "33, 1"), ("y15", "float32", "128, 1024"),
                    ("s15", "float32", "128, 1")],
                   _inputs_lanesact, _ref_lanesact),
    "acttab": _k({"N": 256, "D": 512},
                 [("x", "bfloat16", "N, D"), ("xi", "int8", "128, 300"), ("xe", "float8_e4m3", "128, 300")],
                 [("y1", "float32", "N, D"), ("s1", "float32", "N, 1"), ("y2", "bfloat16", "N, D"),
                  ("s2", "float32", "N, 1"), ("y3", "float32", "128, 300"), ("y4", "float32", "128, 300")],
                 _inputs_acttab, _ref_acttab),
    "fold": _k({"R": 12, "C": 20},
               [("xi", "int32", "128, R, C"), ("xf", "float32", "128, R, C")],
               [("yi", "int32", "128, C, R"), ("yi2", "int32", "128, C, R"), ("yf", "float32", "128, C, R")],
               _inputs_fold, _ref_fold),
}


def _load_ports():
    """The NKI library ports (specs/ kernels whose references live in ports/<name>.py,
    one module per kernel family, each with a KERNELS dict of reflib.kernel records)."""
    import importlib.util
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ports")
    for fn in sorted(os.listdir(here)) if os.path.isdir(here) else []:
        if not fn.endswith(".py") or fn.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location("ports." + fn[:-3], os.path.join(here, fn))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for name, rec in mod.KERNELS.items():
            if name in KERNELS or name in TEST_KERNELS:
                raise ValueError("ports/%s: kernel %s is already registered" % (fn, name))
            KERNELS[name] = rec


_load_ports()


def _table(kernel):
    return KERNELS[kernel] if kernel in KERNELS else TEST_KERNELS[kernel]


def eval_dim(expr, params):
    """A shape expression of SPEC.md §2 (ints, params, + - * / % ( ), min, max)."""
    expr = expr.strip()
    if not re.fullmatch(r"[A-Za-z0-9_+\-*/%(), ]+", expr):
        raise ValueError("unsupported shape expression %r" % expr)
    env = dict(params, min=min, max=max)
    return int(eval(expr.replace("/", "//"), {"__builtins__": {}}, env))  # noqa: S307


def shape_of(kernel, dims):
    return tuple(eval_dim(d, _table(kernel)["params"]) for d in dims.split(","))


def tensors(kernel, which):
    """[(name, dtype, shape)] of a kernel's inputs or outputs."""
    return [(n, dt, shape_of(kernel, dims)) for n, dt, dims in _table(kernel)[which]]


# --- public API ----------------------------------------------------------------

def make_inputs(kernel, seed):
    """Deterministic inputs for `kernel` in .npy storage format."""
    k = _table(kernel)
    vals = k["make"](k["params"], _rng(kernel, seed))
    out = {}
    for name, dtype, shape in tensors(kernel, "inputs"):
        v = np.asarray(vals[name], dtype=np.float64)
        assert v.shape == shape, (kernel, name, v.shape, shape)
        out[name] = to_storage(v.astype(np.float32), dtype)
    return out


def _evaluate(kernel, inputs):
    k = _table(kernel)
    x = {}
    for name, dtype, shape in tensors(kernel, "inputs"):
        if name not in inputs:
            raise ValueError("%s: missing input %s" % (kernel, name))
        a = np.asarray(inputs[name])
        if a.shape != shape:
            raise ValueError("%s: input %s has shape %s, want %s" % (kernel, name, a.shape, shape))
        x[name] = from_storage(a, dtype)
    return k["ref"](k["params"], x)


def reference(kernel, inputs):
    """Expected outputs (fp64 arrays) for `inputs` in storage format."""
    return {name: ref for name, (ref, _) in _evaluate(kernel, inputs).items()}


def check(kernel, inputs, outputs):
    """Compare outputs (storage format) with the reference: [(name, ok, report line)]."""
    res = _evaluate(kernel, inputs)
    lines = []
    for name, dtype, shape in tensors(kernel, "outputs"):
        ref, bound = res[name]
        if name not in outputs:
            lines.append((name, False, "%-8s missing" % name))
            continue
        a = np.asarray(outputs[name])
        if a.shape != shape:
            lines.append((name, False, "%-8s shape %s, want %s" % (name, a.shape, shape)))
            continue
        if isinstance(bound, Packed):  # bytes of several dtypes: each part on its own
            for label, ok, text in bound.check(a):
                lines.append((name, ok, "%-8s %-9s %-18s %s  %s" % (name + "." + label, dtype, list(shape), text,
                                                                    "PASS" if ok else "FAIL")))
            continue
        got = from_storage(a, dtype)
        diff = np.abs(got - ref)
        diff = np.where(np.isnan(got) & np.isnan(ref), 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        maxabs = float(diff.max())
        maxrel = float((diff / np.maximum(np.abs(ref), TINY)).max())
        if isinstance(bound, str):
            same = (fp.f32_bits(got) == fp.f32_bits(ref)) | (np.isnan(got) & np.isnan(ref))
            bad = int(same.size - same.sum())
            ok = bad == 0
            tol = "exact (bit-identical), %d of %d differ" % (bad, same.size)
        else:
            ratio = diff / bound
            ok = bool(np.all(ratio <= 1.0))
            tol = "worst err/tol %.3g (max tol %.3g)" % (float(ratio.max()), float(bound.max()))
        lines.append((name, ok, "%-8s %-9s %-18s max_abs %.3e  max_rel %.3e  %s  %s"
                      % (name, dtype, list(shape), maxabs, maxrel, tol, "PASS" if ok else "FAIL")))
    return lines


# Kernels with print statements: kernel -> f(params, {input: fp64 values}) whose
# first result is {file stem: (expected fp64 values, dtype)} (refs.py prints).
PRINTS = {"print_loops": _print_loops}


def check_prints(kernel, inputs, directory):
    """The .npy files `tilegen run --print-dir` wrote into directory against the
    reference: exactly the expected files, each bit-identical. [(ok, line)]."""
    x = {name: from_storage(np.asarray(inputs[name]), dtype) for name, dtype, _ in tensors(kernel, "inputs")}
    want = PRINTS[kernel](_table(kernel)["params"], x)[0]
    have = sorted(f[:-4] for f in os.listdir(directory) if f.endswith(".npy"))
    lines = [(have == sorted(want), "files: %d written, %d expected" % (len(have), len(want)))]
    for stem in sorted(want):
        ref, dtype = want[stem]
        path = os.path.join(directory, stem + ".npy")
        if not os.path.exists(path):
            lines.append((False, "%-16s missing" % stem))
            continue
        a = np.load(path, allow_pickle=False)
        if a.dtype != storage_dtype(dtype) or a.shape != ref.shape:
            lines.append((False, "%-16s %s %s, want %s %s" % (stem, a.dtype, a.shape, storage_dtype(dtype), ref.shape)))
            continue
        got = from_storage(a, dtype)
        bad = int(np.sum(fp.f32_bits(got) != fp.f32_bits(ref)))
        lines.append((bad == 0, "%-16s %-9s %-12s exact (bit-identical), %d of %d differ  %s"
                      % (stem, dtype, list(ref.shape), bad, ref.size, "PASS" if bad == 0 else "FAIL")))
    return lines


# --- spec cross-check ------------------------------------------------------------

def parse_spec_header(path):
    """params/inputs/outputs of a spec file; a tiny parser for the blocks we write."""
    params, blocks, section = {}, {"inputs": [], "outputs": []}, None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = re.sub(r"\s+#.*$", "", raw.rstrip("\n"))
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line.startswith(" "):
                section = line.split(":", 1)[0].strip()
                continue
            m = re.match(r"\s+([A-Za-z_]\w*)\s*:\s*(.*)$", line)
            if not m:
                continue
            if section == "params":
                params[m.group(1)] = int(m.group(2))
            elif section in blocks:
                dt = re.search(r"dtype\s*:\s*(\w+)", m.group(2))
                sh = re.search(r"shape\s*:\s*\[([^\]]*)\]", m.group(2))
                blocks[section].append((m.group(1), dt.group(1), sh.group(1)))
    ev = [(which, [(n, dt, tuple(eval_dim(d, params) for d in dims.split(",")))
                   for n, dt, dims in blocks[which]]) for which in ("inputs", "outputs")]
    return params, dict(ev)


def spec_mismatches(kernel, specs_dir=SPECS_DIR):
    path = os.path.join(specs_dir, kernel + ".yaml")
    params, ios = parse_spec_header(path)
    errs = []
    if params != _table(kernel)["params"]:
        errs.append("params %s != spec %s" % (_table(kernel)["params"], params))
    for which in ("inputs", "outputs"):
        if tensors(kernel, which) != ios[which]:
            errs.append("%s %s != spec %s" % (which, tensors(kernel, which), ios[which]))
    return errs


# --- command line -----------------------------------------------------------------

def _load_dir(directory, names):
    out = {}
    for name in names:
        path = os.path.join(directory, name + ".npy")
        if os.path.exists(path):
            out[name] = np.load(path, allow_pickle=False)
    return out


def batch(lines):
    """Each line LOG RC ARGS...: main(ARGS) with its output appended to LOG and
    its exit status (2 for an exception) written to RC."""
    for line in lines:
        w = line.split()
        if len(w) < 3:
            continue
        with open(w[0], "a") as log, contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            try:
                rc = main(w[2:])
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 2
            except Exception:  # a failing kernel reference fails that kernel only
                traceback.print_exc()
                rc = 2
        with open(w[1], "w") as f:
            f.write("%d\n" % rc)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="refs.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for cmd in ("inputs", "compare", "expected", "prints"):
        s = sub.add_parser(cmd)
        s.add_argument("kernel", choices=sorted(KERNELS) + sorted(TEST_KERNELS))
        s.add_argument("--dir", required=True)
        if cmd == "inputs":
            s.add_argument("--seed", type=int, default=0)
        if cmd == "prints":
            s.add_argument("--prints", required=True, help="the --print-dir of tilegen run")
    sub.add_parser("list")
    sub.add_parser("selftest")
    sub.add_parser("batch", help="run the commands on stdin, one per line: LOG RC ARGS...; each "
                   "command's output is appended to LOG and its exit status written to RC "
                   "(check.sh: one Python start for every kernel)")
    args = ap.parse_args(argv)

    if args.cmd == "batch":
        return batch(sys.stdin)

    if args.cmd == "list":
        for name in KERNELS:
            print(name, " ".join("%s:%s%s" % (n, dt, list(sh)) for n, dt, sh in
                                 tensors(name, "inputs") + tensors(name, "outputs")))
        return 0
    if args.cmd == "selftest":
        import refs_selftest
        return refs_selftest.run()
    if args.cmd == "inputs":
        os.makedirs(args.dir, exist_ok=True)
        for name, arr in make_inputs(args.kernel, args.seed).items():
            np.save(os.path.join(args.dir, name + ".npy"), arr)
        return 0
    ins = _load_dir(args.dir, [n for n, _, _ in tensors(args.kernel, "inputs")])
    if args.cmd == "prints":
        if args.kernel not in PRINTS:
            print("refs.py: %s has no print reference" % args.kernel, file=sys.stderr)
            return 2
        try:
            plines = check_prints(args.kernel, ins, args.prints)
        except (ValueError, OSError) as e:
            print("refs.py: %s" % e, file=sys.stderr)
            return 2
        for _, text in plines:
            print("%s: print %s" % (args.kernel, text))
        return 0 if all(ok for ok, _ in plines) else 1
    try:
        if args.cmd == "expected":
            res = _evaluate(args.kernel, ins)
            for name, dtype, _ in tensors(args.kernel, "outputs"):
                ref, bound = res[name]
                np.save(os.path.join(args.dir, "expected_" + name + ".npy"),
                        bound.storage if isinstance(bound, Packed) else to_storage(ref.astype(np.float32), dtype))
            return 0
        outs = _load_dir(args.dir, [n for n, _, _ in tensors(args.kernel, "outputs")])
        lines = check(args.kernel, ins, outs)
    except (ValueError, OSError) as e:
        print("refs.py: %s" % e, file=sys.stderr)
        return 2
    for _, _, text in lines:
        print("%s: %s" % (args.kernel, text))
    return 0 if all(ok for _, ok, _ in lines) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
