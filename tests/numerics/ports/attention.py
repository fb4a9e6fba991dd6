"""numpy references for the attention ports in specs/ (NKI library kernels):
flash_attention_cte (causal flash attention forward, online softmax over key
blocks, GQA through the grid) and attention_tkg (token generation: a few new
queries against a KV cache). Loaded by refs.py; tolerances derived below
(docs/numerics.md, SPEC.md §5; u = 2^-24, bf16 unit roundoff 2^-8)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fpformat as fp  # noqa: E402
import reflib  # noqa: E402
from reflib import TINY, U32, U_BF16, bf16, f32  # noqa: E402
from reflib import flip as _flip  # noqa: E402



def _r16(v):
    return fp.round_to(np.asarray(v, np.float32), fp.BF16)


# --- the online softmax, shared by both kernels --------------------------------
#
# A kernel walks the keys of each query row in blocks t = 0..T-1 (T may differ per
# row: `last` is the last block a row visits) and keeps, in fp32, the negated
# running max, alpha_t = exp(m_{t-1} - m_t), p_t = exp(s - m_t) stored in bf16, the
# running sum l_t = l_{t-1} alpha_t + sum(p_t) (the activation's reduce folds the
# fp32 values before their bf16 rounding, docs/numerics.md) and o_t = o_{t-1} alpha_t
# + p_t . v (fp32 PSUM, then one fp32 multiply-add on the Vector engine), and ends
# with o_T * (1 / l_T) rounded to bf16.
#
# In exact arithmetic the weight of block t in the result is W_t = exp(m_t - m_T),
# so the reference is  o = sum_t W_t bf16(exp(s_t - m_t)) . v / sum_t W_t sum exp(s_t - m_t),
# with the running maxima of the fp64 scores (the bf16 rounding happens at m_t, not
# at the final max, so this is not the plain softmax).

def _online_ref(sc, mask, vv, blk, last, dsc):
    """sc [R, K] fp64 scores, mask [R, K] visible keys, vv [K, D], blk: keys per block,
    last [R]: last block each row visits, dsc [R, K]: bound on the kernel's fp32 score
    error. Returns (reference [R, D], tolerance [R, D])."""
    r, kk = sc.shape
    nblk = kk // blk
    s = np.where(mask, sc, -np.inf)
    bmax = s.reshape(r, nblk, blk).max(axis=2)                 # block row maxima
    run = np.maximum.accumulate(bmax, axis=1)                  # running max m_t
    visited = np.arange(nblk)[None, :] <= last[:, None]
    mfin = run[np.arange(r), last][:, None]                    # m_T
    m_col = np.repeat(run, blk, axis=1)                        # m_t of each key's block
    vis = mask & np.repeat(visited, blk, axis=1)
    arg = np.where(vis, s - m_col, 0.0)
    pre = np.where(vis, np.exp(arg), 0.0)
    pb = bf16(pre)
    w = np.where(vis, np.exp(np.where(vis, m_col - mfin, 0.0)), 0.0)   # W_t per key
    num = (w * pb) @ vv
    den = (w * pre).sum(axis=1, keepdims=True)
    ref = num / den
    # Kernel scores err by dsc (fp32 sums of exact bf16 products, gamma_D), so each
    # running max by dm <= the largest dsc of the row's visible keys. p's argument
    # s - m_t: dsc + dm plus the fp32 rounding of the bias add (u|arg|); exp adds its
    # ulps (16 u allowed). That bounds the kernel's fp32 p (dpre); its bf16 value is
    # the reference's except where a rounding boundary lies within dpre (_flip).
    dm = np.where(vis, dsc, 0.0).max(axis=1, keepdims=True)
    dpre = np.where(vis, pre * (np.expm1(dsc + dm + U32 * np.abs(arg)) + 16 * U32), 0.0)
    fl = _flip(pre, dpre)
    # The kernel's weight is the product of its alphas: the arguments telescope to
    # m_t - m_T up to 2 dm and one rounding of each difference (u (m_T - m_t) in
    # all), each exp 16 u and each rescale of o and l one rounding (2 u): dw.
    dw = w * np.expm1(2 * dm + U32 * np.abs(np.log(np.where(w > 0, w, 1.0))) + 18 * U32 * nblk)
    # Sums: P.v over a block in fp32 (gamma_blk), the block sums and the running
    # update (2 roundings per block): (blk + 2 nblk + 8) u relative to the sums of
    # absolute values; the row sum likewise, of the fp32 p values (dpre).
    cu = (blk + 2 * nblk + 8) * U32
    av = np.abs(vv)
    err_num = (w * fl + dw * (pb + fl)) @ av + cu * ((w * pb) @ av)
    err_den = ((w * dpre + dw * (pre + dpre)).sum(axis=1, keepdims=True)
               + cu * den)
    # o * (1/l): the reciprocal and the multiply one rounding each (4 u with
    # margin), then the bf16 output rounding (half a bf16 ulp).
    err = (err_num + np.abs(ref) * err_den) / den
    return ref, U_BF16 * np.abs(ref) + 4 * U32 * np.abs(ref) + 1.01 * err + TINY


def _online_emulate(sc, mask, vv, blk, last):
    """The same algorithm in fp32 numpy (BLAS sums, libm exp), block by block."""
    f = np.float32
    r, kk = sc.shape
    nm = np.full((r, 1), -np.finfo(f).max, f)
    l_ = np.zeros((r, 1), f)
    o = np.zeros((r, vv.shape[1]), f)
    for t in range(kk // blk):
        act = (t <= last)[:, None]
        s = np.where(mask[:, t * blk:(t + 1) * blk], sc[:, t * blk:(t + 1) * blk], f(-np.inf))
        mn = np.maximum(nm, s.max(axis=1, keepdims=True))
        with np.errstate(invalid="ignore"):
            alpha = np.exp(nm - mn)
            p = np.exp(s - mn).astype(f)
        pr = _r16(p)
        l2 = l_ * alpha + p.sum(axis=1, keepdims=True, dtype=f)
        o2 = o * alpha + pr @ vv[t * blk:(t + 1) * blk]
        nm, l_, o = np.where(act, mn, nm), np.where(act, l2, l_), np.where(act, o2, o)
    return o * (f(1) / l_)


# --- flash_attention_cte ----------------------------------------------------------

def _inputs_flash(p, r):
    # Unit-variance q/k: with the 1/sqrt(d) scale the scores are O(1) as in a real model.
    b, h, kvh, s, d = p["B"], p["H"], p["KVH"], p["S"], p["D"]
    return {"q": r.standard_normal((b, h, d, s)), "k": r.standard_normal((b, kvh, d, s)),
            "v": r.standard_normal((b, kvh, s, d))}


def _flash_heads(p, x):
    """(batch, q head, kv head) triples and the per-row block data of the causal walk."""
    s, kt, g = p["S"], p["KT"], p["H"] // p["KVH"]
    rows = np.arange(s)
    mask = rows[None, :] <= rows[:, None]
    last = (rows // 128) * 128 // kt        # query block i visits key blocks 0..i*128/KT
    for b in range(p["B"]):
        for h in range(p["H"]):
            yield b, h, h // g, mask, last


def _ref_flash(p, x):
    scale = 0.125                            # the spec's exact 1/sqrt(64)
    out = np.zeros((p["B"], p["H"], p["S"], p["D"]))
    tol = np.zeros_like(out)
    for b, h, kh, mask, last in _flash_heads(p, x):
        qs = bf16(f32(x["q"][b, h].T * scale))   # q scaled into bf16 (exact here)
        k = x["k"][b, kh]
        sc = qs @ k
        # fp32 sum of D exact products in increasing d: gamma_D |q||k| (D + 2 for margin)
        dsc = (p["D"] + 2) * U32 * (np.abs(qs) @ np.abs(k))
        out[b, h], tol[b, h] = _online_ref(sc, mask, x["v"][b, kh], p["KT"], last, dsc)
    return {"o": (out, tol)}


def _emulate_flash(p, x):
    f = np.float32
    out = np.zeros((p["B"], p["H"], p["S"], p["D"]), f)
    for b, h, kh, mask, last in _flash_heads(p, x):
        qs = _r16(x["q"][b, h].T * f(0.125))
        sc = qs @ x["k"][b, kh]
        out[b, h] = _online_emulate(sc, mask, x["v"][b, kh], p["KT"], last)
    return {"o": _r16(out)}


# --- attention_tkg ----------------------------------------------------------------

def _inputs_tkg(p, r):
    b, h, sa, sp, d = p["B"], p["H"], p["SA"], p["SP"], p["D"]
    # q comes scaled by 1/sqrt(d) (the caller's job without fused RoPE): scores O(1).
    x = {"q": r.standard_normal((b, d, h * sa)) / np.sqrt(d),
         "k_active": r.standard_normal((b, d, sa)), "v_active": r.standard_normal((b, sa, d)),
         "k_prior": r.standard_normal((b, d, sp)), "v_prior": r.standard_normal((b, sp, d))}
    # The decode mask: each batch entry has its own cache length; the prior positions
    # before it are visible, those after it up to the active slots are not (stale),
    # and the active tokens see each other causally.
    mask = np.zeros((sp, b, h, sa))
    for bi in range(b):
        used = int(r.integers(sp // 4, sp - sa))
        mask[:used, bi] = 1
        for s in range(sa):
            mask[sp - sa: sp - sa + s + 1, bi, :, s] = 1
    x["mask"] = mask.reshape(sp, b, h * sa)
    return x


def _tkg_cache(p, x, bi):
    """The kernel's view of batch entry bi: k^T [D, SP] and v [SP, D] with the active
    tokens in the last SA slots, scores [H*SA, SP] visibility."""
    sa = p["SA"]
    k = x["k_prior"][bi].copy()
    k[:, -sa:] = x["k_active"][bi]
    v = x["v_prior"][bi].copy()
    v[-sa:] = x["v_active"][bi]
    return k, v, x["mask"][:, bi, :].T != 0


def _ref_tkg(p, x):
    b, h, sa, sp, d = p["B"], p["H"], p["SA"], p["SP"], p["D"]
    out = np.zeros((b, h, d, sa))
    tol = np.zeros_like(out)
    for bi in range(b):
        k, v, vis = _tkg_cache(p, x, bi)
        q = x["q"][bi].T                                  # [H*SA, D]
        sc = np.where(vis, q @ k, -np.inf)
        m = sc.max(axis=1, keepdims=True)
        arg = np.where(vis, sc - m, 0.0)
        pre = np.where(vis, np.exp(arg), 0.0)
        pb = bf16(pre)                                    # p is stored in bf16
        den = pb.sum(axis=1, keepdims=True)               # the ones-column matmul sums bf16 p
        ref = (pb @ v) / den
        # Scores: fp32 sums of D exact products (gamma_D |q||k|); the max moves by
        # as much; s - max one fp32 rounding; exp 16 u: the kernel's fp32 p is within
        # dpre, its bf16 p one step off where a boundary lies within dpre (_flip).
        # The sums over SP keys (PSUM, increasing key) gamma_SP; 1/sum and the product
        # one rounding each (4 u with margin); the bf16 output half a bf16 ulp.
        dsc = (d + 2) * U32 * (np.abs(q) @ np.abs(k))
        dm = np.where(vis, dsc, 0.0).max(axis=1, keepdims=True)
        dpre = np.where(vis, pre * (np.expm1(dsc + dm + U32 * np.abs(arg)) + 16 * U32), 0.0)
        fl = _flip(pre, dpre)
        cu = (sp + 8) * U32
        err_num = fl @ np.abs(v) + cu * (pb @ np.abs(v))
        err_den = fl.sum(axis=1, keepdims=True) + cu * den
        err = (err_num + np.abs(ref) * err_den) / den
        t = U_BF16 * np.abs(ref) + 4 * U32 * np.abs(ref) + 1.01 * err + TINY
        out[bi] = ref.reshape(h, sa, d).transpose(0, 2, 1)
        tol[bi] = t.reshape(h, sa, d).transpose(0, 2, 1)
    return {"out": (out, tol)}


def _emulate_tkg(p, x):
    f = np.float32
    b, h, sa, d = p["B"], p["H"], p["SA"], p["D"]
    out = np.zeros((b, h, d, sa), f)
    for bi in range(b):
        k, v, vis = _tkg_cache(p, x, bi)
        sc = np.where(vis, x["q"][bi].T @ k, f(-np.inf))
        pb = _r16(np.exp(sc - sc.max(axis=1, keepdims=True)))
        o = (pb @ v) * (f(1) / pb.sum(axis=1, keepdims=True, dtype=f))
        out[bi] = o.reshape(h, sa, d).transpose(0, 2, 1)
    return {"out": _r16(out)}


KERNELS = {
    "flash_attention_cte": reflib.kernel(
        {"B": 1, "H": 4, "KVH": 2, "S": 1024, "D": 64, "KT": 256},
        [("q", "bfloat16", "B, H, D, S"), ("k", "bfloat16", "B, KVH, D, S"),
         ("v", "bfloat16", "B, KVH, S, D")],
        [("o", "bfloat16", "B, H, S, D")], _inputs_flash, _ref_flash, _emulate_flash),
    "attention_tkg": reflib.kernel(
        {"B": 2, "H": 8, "SA": 4, "SP": 512, "D": 128},
        [("q", "bfloat16", "B, D, H * SA"), ("k_active", "bfloat16", "B, D, SA"),
         ("v_active", "bfloat16", "B, SA, D"), ("k_prior", "bfloat16", "B, D, SP"),
         ("v_prior", "bfloat16", "B, SP, D"), ("mask", "uint8", "SP, B, H * SA")],
        [("out", "bfloat16", "B, H, D, SA")], _inputs_tkg, _ref_tkg, _emulate_tkg),
}
