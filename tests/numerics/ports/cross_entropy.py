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
    # The kernel's running max m is exact (maxima move values), and the final m
    # is the row max. Relative error of its d = sum exp(x - m):
    #   each exp: 1 ulp (2u) + its argument x - m' rounded (R u, R = max - min
    #   of the row bounds every |x - m'|);
    #   each chunk's sum: gamma_{CH-1}; per chunk the correction exp(m - m'):
    #   (2 + R)u, its multiply and the add into d: 2u. So with C chunks
    #   rel(d) <= (2 + R)u + (CH - 1)u + C (R + 4)u, times 1.01 for gamma.
    # log(d): rel(d) + its 1 ulp (2u |log d|); lse = m + log d: u |lse|;
    # loss = lse - target logit: u |loss| more.
    chunks = (v + ch - 1) // ch
    big_r = m - lg.min(axis=1)
    rel_d = 1.01 * ((2 + big_r) + (ch - 1) + chunks * (big_r + 4)) * U32
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
