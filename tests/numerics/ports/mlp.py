"""numpy references for the MLP-family ports in specs/ (NKI library kernels):
mlp_rmsnorm (gated MLP with a fused RMSNorm), qkv_rmsnorm (QKV projection with a
fused RMSNorm) and output_projection. Loaded by refs.py; tolerances derived below
(docs/numerics.md, SPEC.md §5; u = 2^-24, bf16 unit roundoff 2^-8)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fpformat as fp  # noqa: E402
import reflib  # noqa: E402
from reflib import TINY, U32, U_BF16, bf16, f32  # noqa: E402
from reflib import flip as _flip  # noqa: E402

EPS = float(f32(1e-6))     # the spec's eps, an fp32 constant


def _r16(v):
    return fp.round_to(np.asarray(v, np.float32), fp.BF16)


def _rmsnorm_ref(x, gamma):
    """The kernels' fused RMSNorm with tokens on partitions: the square and its row
    sum in fp32, rsqrt(sum * (1/DM) + eps) on the Scalar engine, x * rstd rounded to
    bf16 (xn), transposed (exact) and multiplied by gamma into bf16 (xg). Returns
    (xg, flips of xg): the reference's bf16 values and the bf16 step the kernel's
    may differ by."""
    dm = x.shape[1]
    # Squares of bf16 values are exact in fp32 and the activation's reduce folds them
    # left to right in fp32: numpy's fp32 cumsum is that sequence (refs selftest).
    ssq = np.cumsum(x * x, axis=1, dtype=np.float32)[:, -1:].astype(np.float64)
    arg = f32(f32(ssq * f32(1.0 / dm)) + EPS)          # scale, then bias: fp32 each
    rstd = 1.0 / np.sqrt(arg)
    # The kernel's rstd is within 16 u of this (our rsqrt's ulps, 16 u allowed; a
    # fused scale-and-bias would move arg by u, rstd by u/2); x * rstd one fp32
    # rounding: its fp32 value before the bf16 rounding is within 18 u of pre.
    pre = x * rstd
    xn = bf16(pre)
    fl_xn = _flip(pre, 18 * U32 * np.abs(pre))
    # gamma on the way out of PSUM: the product of two bf16 values is exact in fp32,
    # so the kernel's xg is bf16(xn * gamma) for its xn: it differs from the
    # reference's only through a flip of xn, by at most one step of xg then.
    pg = xn * gamma
    xg = bf16(pg)
    fl_xg = _flip(pg, np.abs(fl_xn * gamma))
    return xg, fl_xg


def _rmsnorm_emulate(x, gamma):
    f = np.float32
    rstd = f(1) / np.sqrt((x * x).mean(axis=1, keepdims=True, dtype=f) + f(1e-6))
    return _r16(_r16(x * rstd) * gamma)


# --- mlp_rmsnorm -------------------------------------------------------------------

def _inputs_mlp_rmsnorm(p, r):
    t, dm, f = p["T"], p["DM"], p["F"]
    # Rows of different scales (the norm must undo them), gamma around 1, weights
    # N(0, 1/fan_in) so activations stay O(1) as in a trained model.
    return {"x": r.standard_normal((t, dm)) * r.uniform(0.25, 4.0, (t, 1)),
            "gamma": r.uniform(0.5, 1.5, (1, dm)),
            "wg": r.standard_normal((dm, f)) / np.sqrt(dm),
            "wu": r.standard_normal((dm, f)) / np.sqrt(dm),
            "wd": r.standard_normal((f, dm)) / np.sqrt(f)}


def _gated(p, xg, fl_xg, wg, wu, wd):
    """silu(xg.wg) * (xg.wu) stored bf16, then . wd, with its tolerance (as refs.py's
    mlp, with the flips of xg carried into h)."""
    dm, f = p["DM"], p["F"]
    hg, hu = xg @ wg, xg @ wu
    # h: a flip of xg moves it by that step times |w|; the fp32 sum of DM exact
    # products, in any order, errs by gamma_DM |xg||w|.
    dhg = fl_xg @ np.abs(wg) + (dm + 2) * U32 * ((np.abs(xg) + fl_xg) @ np.abs(wg))
    dhu = fl_xg @ np.abs(wu) + (dm + 2) * U32 * ((np.abs(xg) + fl_xg) @ np.abs(wu))
    sg = hg / (1.0 + np.exp(-hg))
    pre = sg * hu
    g = bf16(pre)                   # the kernel stores g in bf16
    # silu' <= 1.1; silu (our implementation) and the product 16 u; g is one bf16
    # step off where a boundary lies within dpre (flip); the fp32 sum over F
    # (gamma_F); the output's bf16 rounding (half an ulp).
    dpre = 1.1 * np.abs(hu) * dhg + np.abs(sg) * dhu + 16 * U32 * np.abs(pre)
    ref = g @ wd
    err = _flip(pre, dpre) @ np.abs(wd) + (f + 8) * U32 * (np.abs(g) @ np.abs(wd))
    return ref, U_BF16 * np.abs(ref) + 1.01 * err + TINY


def _ref_mlp_rmsnorm(p, x):
    xg, fl_xg = _rmsnorm_ref(x["x"], x["gamma"])
    return {"y": _gated(p, xg, fl_xg, x["wg"], x["wu"], x["wd"])}


def _emulate_mlp_rmsnorm(p, x):
    f = np.float32
    xg = _rmsnorm_emulate(x["x"], x["gamma"])
    hg, hu = xg @ x["wg"], xg @ x["wu"]
    return {"y": _r16(_r16(hg / (f(1) + np.exp(-hg)) * hu) @ x["wd"])}


# --- qkv_rmsnorm -------------------------------------------------------------------

def _inputs_qkv(p, r):
    b, s, h, i = p["B"], p["S"], p["H"], p["I"]
    return {"x": r.standard_normal((b, s, h)) * r.uniform(0.25, 4.0, (b, s, 1)),
            "gamma": r.uniform(0.5, 1.5, (1, h)),
            "w": r.standard_normal((h, i)) / np.sqrt(h),
            "bias": 0.1 * r.standard_normal((1, i))}


def _ref_qkv(p, x):
    b, s, h, i = p["B"], p["S"], p["H"], p["I"]
    w = x["w"]
    xg, fl_xg = _rmsnorm_ref(x["x"].reshape(b * s, h), x["gamma"])
    ref = xg @ w + x["bias"]
    # A flip of xg moves the product by its step times |w|; the fp32 sum of H exact
    # products, in any order, gamma_H; the bias add one rounding; the output's bf16
    # rounding half an ulp.
    err = (fl_xg @ np.abs(w) + (h + 2) * U32 * ((np.abs(xg) + fl_xg) @ np.abs(w))
           + U32 * np.abs(ref))
    tol = U_BF16 * np.abs(ref) + 1.01 * err + TINY
    return {"qkv": (ref.reshape(b, s, i), tol.reshape(b, s, i))}


def _emulate_qkv(p, x):
    b, s, h, i = p["B"], p["S"], p["H"], p["I"]
    xg = _rmsnorm_emulate(x["x"].reshape(b * s, h), x["gamma"])
    return {"qkv": _r16(xg @ x["w"] + x["bias"]).reshape(b, s, i)}


# --- output_projection ---------------------------------------------------------------

def _inputs_oproj(p, r):
    b, n, d, s, h = p["B"], p["N"], p["D"], p["S"], p["H"]
    return {"attention": r.standard_normal((b, n, d, s)),
            "weight": r.standard_normal((n * d, h)) / np.sqrt(n * d),
            "bias": 0.1 * r.standard_normal((1, h))}


def _ref_oproj(p, x):
    # SPEC.md §5 fixes the matmul bit for bit: bf16 products exact in fp32, summed
    # in fp32 in increasing contraction index (head n, then d: the kernel's first
    # head overwrites PSUM, the others accumulate), then one fp32 add of the bias
    # and the bf16 rounding. Modelled that way -> exact. (There is no fp32
    # emulation with other summation orders: an exact output would reject it.)
    b, n, d, s, h = p["B"], p["N"], p["D"], p["S"], p["H"]
    a = x["attention"].transpose(0, 3, 1, 2).reshape(b * s, n * d).astype(np.float32)
    w = x["weight"].astype(np.float32)
    acc = np.zeros((b * s, h), np.float32)
    for k in range(n * d):
        acc += a[:, k:k + 1] * w[k:k + 1, :]
    out = bf16(acc + x["bias"].astype(np.float32))
    return {"out": (out.reshape(b, s, h), "exact")}


KERNELS = {
    "mlp_rmsnorm": reflib.kernel(
        {"T": 256, "DM": 256, "F": 512},
        [("x", "bfloat16", "T, DM"), ("gamma", "bfloat16", "1, DM"), ("wg", "bfloat16", "DM, F"),
         ("wu", "bfloat16", "DM, F"), ("wd", "bfloat16", "F, DM")],
        [("y", "bfloat16", "T, DM")], _inputs_mlp_rmsnorm, _ref_mlp_rmsnorm, _emulate_mlp_rmsnorm),
    "qkv_rmsnorm": reflib.kernel(
        {"B": 2, "S": 256, "H": 256, "I": 640},
        [("x", "bfloat16", "B, S, H"), ("gamma", "bfloat16", "1, H"), ("w", "bfloat16", "H, I"),
         ("bias", "bfloat16", "1, I")],
        [("qkv", "bfloat16", "B, S, I")], _inputs_qkv, _ref_qkv, _emulate_qkv),
    "output_projection": reflib.kernel(
        {"B": 2, "N": 4, "D": 64, "S": 256, "H": 768},
        [("attention", "bfloat16", "B, N, D, S"), ("weight", "bfloat16", "N * D, H"),
         ("bias", "bfloat16", "1, H")],
        [("out", "bfloat16", "B, S, H")], _inputs_oproj, _ref_oproj),
}
