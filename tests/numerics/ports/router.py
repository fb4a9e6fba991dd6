"""numpy reference for specs/router_topk.yaml, the port of the nki-library MoE
router top-K (core/router_topk): logits = x^T.w + b, softmax over the experts,
top-K by max8 / nc_find_index8, the K weights renormalised and scattered."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import reflib  # noqa: E402
from reflib import TINY, U32, bf16, f32  # noqa: E402

# Smallest gap between consecutive values among a token's K+1 largest logits.
# The softmax is computed with our exp (1 ulp) and two fp32 roundings, so values
# that far apart (relative gap in p of ~e^-1e-3 - 1 ~ 1e-3 >> 2^-20) keep their
# order and stay distinct: the selected experts, and so the indices, are exact.
_MIN_GAP = 1e-3


def _logits_f32(x, w, b):
    """The kernel's logits bit for bit (SPEC.md §5): bf16 products are exact in
    fp32, summed in fp32 in increasing h (one PSUM accumulation over the H tiles,
    the first overwriting), then one fp32 add of the bias."""
    xs, ws = np.asarray(x, np.float32), np.asarray(w, np.float32)
    acc = np.outer(xs[0], ws[0]).astype(np.float32)
    for h in range(1, xs.shape[0]):
        acc += np.outer(xs[h], ws[h]).astype(np.float32)
    return (acc + np.asarray(b, np.float32)).astype(np.float32)


def _inputs(p, r):
    h, t, e, k = p["H"], p["T"], p["E"], p["K"]
    # Router weights ~ N(0, 1/H): logits O(1), as in a trained router.
    w = bf16(r.standard_normal((h, e)) / np.sqrt(h))
    b = bf16(0.1 * r.standard_normal((1, e)))
    x = bf16(r.standard_normal((h, t)))
    # Redraw a token whose top K+1 logits are closer than _MIN_GAP: the expected
    # indices are then unambiguous (see _MIN_GAP).
    for _ in range(100):
        top = -np.sort(-_logits_f32(x, w, b).astype(np.float64), axis=1)[:, :k + 1]
        bad = np.nonzero((np.diff(-top, axis=1) < _MIN_GAP).any(axis=1))[0]
        if bad.size == 0:
            break
        x[:, bad] = bf16(r.standard_normal((h, bad.size)))
    else:
        raise ValueError("router_topk: could not draw well separated logits")
    return {"x": x, "w": w, "w_bias": b}


def _ref(p, x):
    k, t = p["K"], p["T"]
    lg = _logits_f32(x["x"], x["w"], x["w_bias"]).astype(np.float64)
    order = np.argsort(-lg, axis=1, kind="stable")[:, :k]          # distinct (_inputs)
    arg = lg - lg.max(axis=1, keepdims=True)
    e = np.exp(arg)
    ek = np.take_along_axis(e, order, axis=1)
    aff_k = ek / ek.sum(axis=1, keepdims=True)
    aff = np.zeros_like(lg)
    np.put_along_axis(aff, order, aff_k, axis=1)
    # aff = e_i / sum_j e_j over the top K (the softmax's 1/sum cancels: one
    # reciprocal rs per token scales numerator and denominator alike, leaving its
    # multiply's rounding u on each p). Relative error of the kernel's value:
    #   e_i: exp's 1 ulp (2u) + the rounding of its argument lg - max (|arg| u)
    #   p_i = e_i*rs: u;  the K-term sum of p: (K-1)u plus the worst p_j's error
    #   1/sum: u;  final multiply: u
    # -> 2(2 + A)u + (K - 1)u + 3u with A the largest |arg| among the top K;
    # (2A + K + 8)u rounds up (gamma_{K-1} > (K-1)u). The zeros are exact (TINY
    # only keeps err/tol defined there: any weight written in their place is far larger).
    a = np.abs(np.take_along_axis(arg, order, axis=1)).max(axis=1, keepdims=True)
    bound = (2 * a + k + 8) * U32 * np.abs(aff) + TINY
    return {"router_logits": (lg, "exact"),
            "expert_index": (order.astype(np.float64).reshape(t, k), "exact"),
            "expert_affinities": (aff, bound)}


def _emulate(p, x):
    """fp32 numpy: the logits in SPEC.md §5's order (fixed by the spec), then a
    textbook softmax (libm exp, numpy's pairwise sums), argsort top-K and a
    division by the top-K sum."""
    k = p["K"]
    lg = _logits_f32(x["x"], x["w"], x["w_bias"])
    e = np.exp(lg - lg.max(axis=1, keepdims=True))
    prob = e / e.sum(axis=1, keepdims=True, dtype=np.float32)
    idx = np.argsort(-prob, axis=1, kind="stable")[:, :k]
    pk = np.take_along_axis(prob, idx, axis=1)
    aff = np.zeros_like(prob)
    np.put_along_axis(aff, idx, pk / pk.sum(axis=1, keepdims=True, dtype=np.float32), axis=1)
    return {"router_logits": lg, "expert_index": idx, "expert_affinities": aff}


KERNELS = {
    "router_topk": reflib.kernel(
        {"T": 200, "H": 256, "E": 64, "K": 4},
        [("x", "bfloat16", "H, T"), ("w", "bfloat16", "H, E"), ("w_bias", "bfloat16", "1, E")],
        [("router_logits", "float32", "T, E"), ("expert_index", "uint32", "T, K"),
         ("expert_affinities", "float32", "T, E")],
        _inputs, _ref, _emulate),
}
