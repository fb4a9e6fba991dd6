"""numpy references of the NKI library's normalization + quantization ports in specs/:
rmsnorm_quant (RMSNorm, then per-row fp8 e4m3 quantization with an fp32 dequant scale in
each row's last 4 bytes, written through a bitcast view)."""
import numpy as np

import fpformat as fp
import reflib
from reflib import U32, f32

E4M3 = fp.FP8_E4M3
FP8_MAX = 240.0          # largest finite float8_e4m3 (NKI's non-OCP e4m3 range)
MIN_DQ = 1e-6            # NKI's min_dequant_scale_value
EPS = 1e-6


def _inputs_rmsnorm_quant(p, r):
    b, s, h = p["B"], p["S"], p["H"]
    x = r.standard_normal((b, s, h)) * r.uniform(0.5, 4, (b, s, 1))
    x[1, 7, :] = 0.0     # a zero row: absmax 0, the dequant scale clamped to 1e-6
    return {"x": x, "g": r.uniform(0.5, 1.5, h)}


def _fp8_spacing(v):
    """Distance between neighbouring float8_e4m3 values at |v| (subnormals: 2^-9)."""
    a = np.maximum(np.abs(v), 2.0 ** -6)
    return 2.0 ** (np.floor(np.log2(a)) - 3)


def _pack(q, dq, rows, h):
    """y's bytes: each row's h fp8 codes of q, then the fp32 bytes of its scale dq."""
    y = np.zeros((rows, h + 4), dtype=np.uint8)
    y[:, :h] = fp.encode(np.asarray(q, np.float32), E4M3)
    y[:, h:] = np.asarray(dq, dtype="<f4").reshape(rows, 1).view(np.uint8)
    return y


def _ref_rmsnorm_quant(p, x):
    b, s, h = p["B"], p["S"], p["H"]
    rows = b * s
    v, g = x["x"].reshape(rows, h), x["g"]
    ms = (v * v).sum(axis=1, keepdims=True) * f32(1.0 / h) + f32(EPS)
    xn = v / np.sqrt(ms) * g
    # xn: sum of h positive squares (gamma_h), the scale and bias (2u), rsqrt (half
    # its argument's relative error plus its own few ulp), two multiplies: as
    # rmsnorm's (h/2 + 32) u. absmax inherits it; dq = absmax * fp32(1/240) (the
    # spec's scale, one fp32 rounding, exactly the constant used here) rounds once
    # more, the clamp is exact: (h/2 + 40) u relative.
    amax = np.abs(xn).max(axis=1, keepdims=True)
    dq = np.maximum(amax * f32(1.0 / FP8_MAX), f32(MIN_DQ))
    # q = xn * fp32(1/dq): relative error (h + 90) u before the cast, far below an
    # fp8 step (2^-4 relative), so the cast lands on the reference's fp8 value or a
    # neighbour: one fp8 spacing at the reference value. |q| <= 240 (1 + ~4u) rounds
    # to 240 at most: no overflow to inf.
    q = fp.round_to(np.asarray(xn / dq, np.float32), E4M3).astype(np.float64)
    qtol = _fp8_spacing(q)
    dtol = (h / 2 + 40) * U32 * dq
    storage = _pack(q, dq, rows, h).reshape(b, s, h + 4)

    def data(a):
        return fp.decode(np.asarray(a).reshape(rows, h + 4)[:, :h], E4M3).astype(np.float64)

    def scale(a):
        return np.ascontiguousarray(np.asarray(a).reshape(rows, h + 4)[:, h:]).view("<f4").astype(np.float64)

    def perturb(a):  # the largest scale 1% off: far outside dtol
        bad = np.asarray(a).reshape(rows, h + 4).copy()
        i = int(np.argmax(dq))
        bad[i, h:] = np.asarray([dq[i, 0] * 1.01], dtype="<f4").view(np.uint8)
        return bad.reshape(np.asarray(a).shape)

    packed = reflib.Packed(storage, [("data", data, q, qtol), ("scale", scale, dq, dtol)], perturb)
    return {"y": (fp.decode(storage, E4M3).astype(np.float64), packed)}


def _emulate_rmsnorm_quant(p, x):
    """fp32 numpy with its own (pairwise) summation order and libm sqrt."""
    f = np.float32
    b, s, h = p["B"], p["S"], p["H"]
    v, g = x["x"].reshape(b * s, h), x["g"]
    ms = (v * v).sum(axis=1, keepdims=True, dtype=f) * f(1.0 / h) + f(EPS)
    xn = (v * (f(1) / np.sqrt(ms))) * g
    dq = np.maximum(np.abs(xn).max(axis=1, keepdims=True) * f(1.0 / FP8_MAX), f(MIN_DQ))
    q = xn * (f(1) / dq)
    return {"y": _pack(q, dq, b * s, h).reshape(b, s, h + 4)}


KERNELS = {
    "rmsnorm_quant": reflib.kernel({"B": 2, "S": 96, "H": 256},
                                   [("x", "float32", "B, S, H"), ("g", "float32", "H")],
                                   [("y", "float8_e4m3", "B, S, H + 4")],
                                   _inputs_rmsnorm_quant, _ref_rmsnorm_quant, _emulate_rmsnorm_quant),
}
