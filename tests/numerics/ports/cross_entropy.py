"""numpy reference for specs/cross_entropy.yaml, the port of the nki-library
cross-entropy forward pass (experimental/loss): per position the log-sum-exp of
its logits, by an online log-sum-exp over vocabulary chunks, and the loss
lse - logits[target]."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import reflib  # noqa: E402
from reflib import TINY, U32  # noqa: E402


def _inputs(p, r):
    n, v = p["N"], p["V"]
    # Logit-like rows: spread 3, a per-row offset in +-10, and the target's
    # logit raised on a third of the rows (a confident model); targets cover
    # both ends of the vocabulary.
    x = 3.0 * r.standard_normal((n, v)) + r.uniform(-10, 10, (n, 1))
    tg = r.integers(0, v, n)
    tg[:2] = [0, v - 1]
    hot = r.random(n) < 1 / 3
    x[hot, tg[hot]] += 8.0
    return {"logits": x, "targets": tg}


def _ref(p, x):
    lg = x["logits"]
    n, v, ch = p["N"], p["V"], p["CH"]
    tg = np.asarray(x["targets"], dtype=np.int64)
    m = lg.max(axis=1)
    d = np.exp(lg - m[:, None]).sum(axis=1)
    lse = m + np.log(d)
    loss = lse - lg[np.arange(n), tg]
    # Error of the kernel's d, followed chunk by chunk in the kernel's running
    # scale (d_k = sum of exp(x - m_k) over chunks 0..k, m_k the running max,
    # exact: maxima move values). One rounding u per fp32 op:
    #   each exp(x - m_k): its argument rounded (|x - m_k| u) and exp's 1 ulp
    #   (2u), relative; the chunk's sum S_k of positive terms: gamma_{len-1};
    #   the correction exp(m_{k-1} - m_k) likewise (2 + |dm|)u, its multiply u;
    #   the add d_{k-1} corr + S_k: u |d_k|. An error carried in d_{k-1} scales
    #   by corr (<= 1). 1.01 covers the second-order terms.
    m_k = np.full(n, -np.inf)
    d_k = np.zeros(n)
    err = np.zeros(n)
    for c0 in range(0, v, ch):
        xc = lg[:, c0:c0 + ch]
        m_new = np.maximum(m_k, xc.max(axis=1))
        dm = m_new - m_k                                      # inf on the first chunk
        corr = np.exp(-dm)
        dcorr = np.where(d_k > 0, d_k * corr, 0.0)
        arg = np.abs(xc - m_new[:, None])
        e = np.exp(-arg)
        s_k = e.sum(axis=1)
        d_new = dcorr + s_k
        err = (err * corr + np.where(d_k > 0, (3 + np.where(np.isfinite(dm), dm, 0)) * dcorr, 0) * U32
               + ((2 + arg) * e).sum(axis=1) * U32 + (xc.shape[1] - 1) * U32 * s_k + U32 * d_new)
        m_k, d_k = m_new, d_new
    rel_d = 1.01 * err / d_k
    # log(d): rel(d) absolute, plus its 1 ulp (2u |log d|); lse = m + log d:
    # u |lse|; loss = lse - target logit: u |loss| more.
    b_lse = rel_d + 2 * U32 * np.abs(np.log(d)) + U32 * np.abs(lse) + TINY
    b_loss = b_lse + U32 * np.abs(loss)
    return {"loss": (loss, b_loss), "lse": (lse, b_lse)}


def _emulate(p, x):
    """fp32 numpy: a one-pass log-sum-exp over the whole row (libm exp/log,
    numpy's pairwise sum) and a fancy-indexed target logit."""
    lg = x["logits"]
    tg = np.asarray(x["targets"], dtype=np.int64)
    m = lg.max(axis=1)
    lse = m + np.log(np.exp(lg - m[:, None]).sum(axis=1, dtype=np.float32))
    return {"lse": lse, "loss": lse - lg[np.arange(lg.shape[0]), tg]}


KERNELS = {
    "cross_entropy": reflib.kernel(
        {"N": 101, "V": 1000, "PB": 32, "CH": 256},
        [("logits", "float32", "N, V"), ("targets", "int32", "N")],
        [("loss", "float32", "N"), ("lse", "float32", "N")],
        _inputs, _ref, _emulate),
}
