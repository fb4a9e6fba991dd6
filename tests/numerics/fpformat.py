"""Exact conversions between float32 and the narrow float formats of SPEC.md §5.

encode() rounds float32 values to nearest-even into the raw bits of bfloat16,
float16, float8_e4m3 or float8_e5m2 (IEEE-style: overflow past the rounding
threshold gives +-inf, subnormals exact, NaN stays a quiet NaN with its sign
and top payload bits); decode() turns raw bits back into float32 (exact: every
narrow value is a float32). numpy only; used by refs.py and its selftest.
"""
import numpy as np


class Format:
    """An IEEE-style binary float format: sign, `ebits` exponent, `mbits` mantissa."""

    def __init__(self, name, ebits, mbits, storage):
        self.name = name          # SPEC.md dtype name
        self.ebits = ebits        # exponent field width
        self.mbits = mbits        # explicit mantissa bits
        self.storage = storage    # numpy dtype holding the raw bits (.npy storage)
        self.bias = (1 << (ebits - 1)) - 1
        self.emask = (1 << ebits) - 1

    @property
    def max_finite(self):
        return float(np.ldexp(2.0 - 2.0 ** -self.mbits, self.emask - 1 - self.bias))

    def __repr__(self):
        return "Format(%s)" % self.name


BF16 = Format("bfloat16", 8, 7, np.uint16)
FP16 = Format("float16", 5, 10, np.uint16)
FP8_E4M3 = Format("float8_e4m3", 4, 3, np.uint8)
FP8_E5M2 = Format("float8_e5m2", 5, 2, np.uint8)
FORMATS = {f.name: f for f in (BF16, FP16, FP8_E4M3, FP8_E5M2)}


def f32_bits(x):
    """Raw uint32 bits of float32 values."""
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32)).view(np.uint32)


def bits_f32(u):
    """float32 values from raw uint32 bits."""
    return np.ascontiguousarray(np.asarray(u, dtype=np.uint32)).view(np.float32)


def decode(bits, fmt):
    """Raw bits of `fmt` -> float32 (exact), in the shape of `bits`. bfloat16 by a
    shift (float32's top half; a NaN keeps its sign and payload, quieted, so no
    signalling NaN reaches numpy's casts); refs_selftest checks it against
    decode_general."""
    if fmt is BF16:
        b = np.asarray(bits).astype(np.uint32)
        nan = (b & 0x7F80) == 0x7F80
        nan &= (b & 0x7F) != 0
        u = np.where(nan, b | 0x40, b) << 16
        return bits_f32(u).reshape(b.shape)
    return decode_general(bits, fmt)


def decode_general(bits, fmt):
    """decode() for any format, from the fields by ldexp (NaN as numpy's NaN)."""
    b = np.asarray(bits).astype(np.int64)
    m, e = fmt.mbits, fmt.ebits
    sign = (b >> (e + m)) & 1
    expf = (b >> m) & fmt.emask
    man = b & ((1 << m) - 1)
    sub = np.ldexp(man.astype(np.float64), 1 - fmt.bias - m)
    norm = np.ldexp((man + (1 << m)).astype(np.float64), expf - fmt.bias - m)
    val = np.where(expf == 0, sub, norm)
    special = np.where(man == 0, np.inf, np.nan)
    val = np.where(expf == fmt.emask, special, val)
    val = np.where(sign == 1, -val, val)
    return val.astype(np.float32)


def encode(x, fmt):
    """float32 values -> raw bits of `fmt`, round to nearest even (IEEE overflow to inf).
    bfloat16 takes the integer path (bf16_encode_bittrick, ~10x encode_general's speed:
    the references' hot path); refs_selftest checks the two agree."""
    if fmt is BF16:
        return bf16_encode_bittrick(x)
    return encode_general(x, fmt)


def encode_general(x, fmt):
    """encode() for any format, by frexp/rint on float64 (no format-specific bit tricks)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _encode(x, fmt)


def _encode(x, fmt):
    x32 = np.asarray(x, dtype=np.float32)
    u = f32_bits(x32).astype(np.int64)
    m, e = fmt.mbits, fmt.ebits
    a = np.abs(x32.astype(np.float64))
    nan = np.isnan(a)
    inf = np.isinf(a)
    af = np.where(nan | inf, 0.0, a)
    _, e2 = np.frexp(af)                       # af = f * 2**e2, f in [0.5, 1)
    lead = np.maximum(e2 - 1, 1 - fmt.bias)    # exponent of the leading bit, clamped to subnormal
    r = np.rint(np.ldexp(af, -(lead - m)))     # quanta of size 2**(lead-m), ties to even (exact)
    carry = r >= (1 << (m + 1))                # rounding carried into the next binade
    lead = np.where(carry, lead + 1, lead)
    r = np.where(carry, r / 2, r).astype(np.int64)
    sub = r < (1 << m)
    expf = np.where(sub, 0, lead + fmt.bias)
    man = np.where(sub, r, r - (1 << m))
    over = inf | (expf >= fmt.emask)
    expf = np.where(over, fmt.emask, expf)
    man = np.where(over, 0, man)
    # NaN: quiet bit set, the top payload bits of the float32 NaN kept.
    payload = ((u >> (23 - m)) & ((1 << m) - 1)) | (1 << (m - 1))
    expf = np.where(nan, fmt.emask, expf)
    man = np.where(nan, payload, man)
    sign = (u >> 31) & 1
    out = (sign << (e + m)) | (expf << m) | man
    return out.astype(fmt.storage)


def bf16_encode_bittrick(x):
    """bfloat16 RNE by integer rounding of the float32 bits: bfloat16 is float32's top
    half (the same exponent), so add 0x7FFF plus the kept lsb, a carry moving into the
    exponent (up to inf); a NaN keeps its top half, quieted."""
    u = f32_bits(x)
    rounded = (u + (np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1)))) >> 16  # wraps for NaNs only
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    out = np.where(nan, (u >> 16) | np.uint32(0x40), rounded)
    return out.astype(np.uint16)


def round_to(x, fmt):
    """float32(x) rounded to `fmt` and back: the value a store into `fmt` keeps."""
    return decode(encode(np.asarray(x, dtype=np.float32), fmt), fmt)
