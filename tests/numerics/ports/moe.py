"""numpy reference for the mixture-of-experts port in specs/ (NKI library kernel):
moe_tkg (selective-expert MoE for token generation, expert weights gathered by
index). Loaded by refs.py; tolerance derived below (docs/numerics.md, SPEC.md §5;
u = 2^-24, bf16 unit roundoff 2^-8)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fpformat as fp  # noqa: E402
import reflib  # noqa: E402
from reflib import TINY, U32, U_BF16, bf16  # noqa: E402
from reflib import flip as _flip  # noqa: E402


def _r16(v):
    return fp.round_to(np.asarray(v, np.float32), fp.BF16)


def _inputs_moe(p, r):
    t, k, e, h, i = p["T"], p["K"], p["E"], p["H"], p["I"]
    # Top-k routing: K distinct experts per token, their affinities a softmax over
    # router logits (as a router would give); weights N(0, 1/fan_in).
    idx = np.stack([r.choice(e, size=k, replace=False) for _ in range(t)])
    logits = r.standard_normal((t, e))
    aff = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return {"x": r.standard_normal((t, h)),
            "w_gate_up": r.standard_normal((e * h, 2 * i)) / np.sqrt(h),
            "w_down": r.standard_normal((e * i, h)) / np.sqrt(i),
            "affinities": aff.reshape(t * e, 1), "expert_index": idx}


def _experts(p, x):
    """(token, expert, affinity, gate weight, up weight, down weight) per selection."""
    e_, h, i = p["E"], p["H"], p["I"]
    aff = x["affinities"].reshape(p["T"], e_)
    for t in range(p["T"]):
        for k in range(p["K"]):
            e = int(x["expert_index"][t, k])
            wgu = x["w_gate_up"][e * h:(e + 1) * h]
            yield t, aff[t, e], wgu[:, :i], wgu[:, i:], x["w_down"][e * i:(e + 1) * i]


def _ref_moe(p, x):
    h, i = p["H"], p["I"]
    y = np.zeros((p["T"], h))
    err = np.zeros_like(y)
    mag = np.zeros_like(y)
    for t, a, wg, wu, wd in _experts(p, x):
        xt = x["x"][t:t + 1]
        hg, hu = xt @ wg, xt @ wu
        sg = hg / (1.0 + np.exp(-hg))
        pre = sg * hu
        g = bf16(pre)                      # the kernel stores g in bf16
        yk = g @ wd
        # h: fp32 sums of H exact products, gamma_H |x||w|; silu' <= 1.1, silu and the
        # product 16 u: g is one bf16 step off where a boundary lies within dpre
        # (flip); the down projection's fp32 sum over I, gamma_I |g||wd|.
        dhg = (h + 2) * U32 * (np.abs(xt) @ np.abs(wg))
        dhu = (h + 2) * U32 * (np.abs(xt) @ np.abs(wu))
        dpre = 1.1 * np.abs(hu) * dhg + np.abs(sg) * dhu + 16 * U32 * np.abs(pre)
        dyk = _flip(pre, dpre) @ np.abs(wd) + (i + 8) * U32 * (np.abs(g) @ np.abs(wd))
        y[t] += a * yk[0]
        err[t] += a * dyk[0]
        mag[t] += np.abs(a * yk[0])
    # The affinity product and the fp32 accumulation over the K experts (one
    # multiply and one add each, into a zeroed accumulator): (K + 2) u of the sum of
    # magnitudes; the output's bf16 rounding half an ulp.
    tol = U_BF16 * np.abs(y) + 1.01 * (err + (p["K"] + 2) * U32 * mag) + TINY
    return {"y": (y, tol)}


def _emulate_moe(p, x):
    f = np.float32
    y = np.zeros((p["T"], p["H"]), f)
    for t, a, wg, wu, wd in _experts(p, x):
        xt = x["x"][t:t + 1]
        hg, hu = xt @ wg, xt @ wu
        g = _r16(hg / (f(1) + np.exp(-hg)) * hu)
        y[t] += f(a) * (g @ wd)[0]
    return {"y": _r16(y)}


KERNELS = {
    "moe_tkg": reflib.kernel(
        {"T": 4, "K": 2, "E": 16, "H": 256, "I": 256},
        [("x", "bfloat16", "T, H"), ("w_gate_up", "bfloat16", "E * H, 2 * I"),
         ("w_down", "bfloat16", "E * I, H"), ("affinities", "float32", "T * E, 1"),
         ("expert_index", "uint32", "T, K")],
        [("y", "bfloat16", "T, H")], _inputs_moe, _ref_moe, _emulate_moe),
}
