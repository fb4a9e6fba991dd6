"""Self-test of refs.py and fpformat.py (run as `refs.py selftest`).

Checks the narrow-float encode/decode helpers exhaustively where the format is
small (all 2^16 float16/bfloat16 and 2^8 float8 encodings) and on every
rounding midpoint, against numpy's float16 and known bf16/fp8 bit patterns;
then, for every kernel, that the table matches its spec, that inputs are
deterministic, that the reference is finite and shaped right, and that the
tolerance accepts the reference itself and rejects a perturbed output.
"""
import numpy as np

import fpformat as fp
import refs

_results = []


def _check(name, ok, detail=""):
    _results.append(bool(ok))
    if not ok:
        print("FAIL %s %s" % (name, detail))


def _same_bits_or_nan(a16, b16, fmt):
    """Bitwise equal, or both NaN (NaN payloads may differ)."""
    da, db = fp.decode(a16, fmt), fp.decode(b16, fmt)
    return (a16 == b16) | (np.isnan(da) & np.isnan(db))


def _sweep_f32():
    """A strided sweep of all float32 bit patterns (every 4099th, ~1M values)."""
    return fp.bits_f32(np.arange(0, 2 ** 32, 4099, dtype=np.uint64).astype(np.uint32))


def _midpoints(fmt):
    """float32 midpoints between consecutive finite values of fmt, and their neighbours."""
    vals = fp.decode(np.arange(1 << (1 + fmt.ebits + fmt.mbits)), fmt).astype(np.float64)
    pos = np.unique(vals[np.isfinite(vals) & (vals >= 0)])
    mid = (pos[:-1] + pos[1:]) / 2                   # exact in fp32 for these formats
    mid32 = mid.astype(np.float32)
    up = np.nextafter(mid32, np.float32(np.inf))
    down = np.nextafter(mid32, np.float32(0))
    top = np.float32(fmt.max_finite + (fmt.max_finite - pos[-2]) / 2)   # overflow tie
    cand = np.concatenate([mid32, up, down, [top, np.nextafter(top, np.float32(0))]])
    return np.concatenate([cand, -cand]).astype(np.float32)


def test_fp16():
    allbits = np.arange(1 << 16, dtype=np.uint16)
    ref = allbits.view(np.float16).astype(np.float32)
    dec = fp.decode(allbits, fp.FP16)
    same = (fp.f32_bits(dec) == fp.f32_bits(ref)) | (np.isnan(dec) & np.isnan(ref))
    _check("fp16 decode all 65536", same.all())
    for label, xs in (("round-trip", ref), ("midpoints", _midpoints(fp.FP16)),
                      ("f32 sweep", _sweep_f32())):
        want = xs.astype(np.float16).view(np.uint16)
        got = fp.encode(xs, fp.FP16)
        ok = _same_bits_or_nan(got, want, fp.FP16)
        _check("fp16 encode %s vs numpy" % label, ok.all(), "%d bad" % (~ok).sum())


def test_bf16():
    known = {  # float32 bits -> bfloat16 bits
        0x3F800000: 0x3F80,   # 1.0
        0xC0000000: 0xC000,   # -2.0
        0x40490FDB: 0x4049,   # pi rounds down
        0x3F808000: 0x3F80,   # tie, even stays
        0x3F818000: 0x3F82,   # tie, odd rounds up
        0x3F808001: 0x3F81,   # just above a tie
        0x7F7FFFFF: 0x7F80,   # FLT_MAX overflows to inf
        0x7F7F7FFF: 0x7F7F,   # largest value that stays finite
        0x7F800000: 0x7F80,   # inf
        0xFF800000: 0xFF80,   # -inf
        0x00000001: 0x0000,   # smallest subnormal rounds to 0
        0x00008000: 0x0000,   # subnormal tie, even
        0x00018000: 0x0002,   # subnormal tie, odd rounds up
        0x80000000: 0x8000,   # -0
        0x7FC00000: 0x7FC0,   # quiet NaN
        0x7F800001: 0x7FC0,   # signalling NaN -> quiet NaN
        0xFFC00001: 0xFFC0,   # negative NaN keeps its sign
    }
    xs = fp.bits_f32(np.array(list(known), dtype=np.uint32))
    want = np.array(list(known.values()), dtype=np.uint16)
    for label, enc in (("encode", fp.encode), ("encode_general", fp.encode_general)):
        got = enc(xs, fp.BF16)
        _check("bf16 known patterns (%s)" % label, (got == want).all(),
               ["%08x->%04x want %04x" % (k, g, w) for k, g, w in zip(known, got, want) if g != w])
    allbits = np.arange(1 << 16, dtype=np.uint32)
    ref = fp.bits_f32(allbits << 16)
    for label, dec_fn in (("decode", fp.decode), ("decode_general", fp.decode_general)):
        dec = dec_fn(allbits.astype(np.uint16), fp.BF16)
        same = (fp.f32_bits(dec) == fp.f32_bits(ref)) | (np.isnan(dec) & np.isnan(ref))
        _check("bf16 %s all 65536" % label, same.all())
    # the shift's NaNs: sign and payload kept, quieted (no signalling NaN reaches
    # numpy's float64 casts); a 0-d input gives a 0-d result, as decode_general's
    snan = fp.f32_bits(fp.decode(np.array([0x7F81, 0xFFA5, 0x7FC1], dtype=np.uint16), fp.BF16))
    _check("bf16 decode NaNs quiet, payload kept", list(snan) == [0x7FC10000, 0xFFE50000, 0x7FC10000],
           ["%08x" % v for v in snan])
    _check("bf16 decode keeps a 0-d shape", fp.decode(np.uint16(0x3F80), fp.BF16).shape == ()
           and float(fp.decode(np.uint16(0x3F80), fp.BF16)) == 1.0)
    for label, v in (("round-trip", ref), ("midpoints", _midpoints(fp.BF16)),
                     ("f32 sweep", _sweep_f32())):
        ok = _same_bits_or_nan(fp.encode_general(v, fp.BF16), fp.bf16_encode_bittrick(v), fp.BF16)
        _check("bf16 encode_general %s vs bit-trick" % label, ok.all(), "%d bad" % (~ok).sum())


def test_fp8():
    e4, e5 = fp.FP8_E4M3, fp.FP8_E5M2
    table = [(e4, 0x38, 1.0), (e4, 0x77, 240.0), (e4, 0x78, np.inf), (e4, 0x01, 2.0 ** -9),
             (e4, 0x08, 2.0 ** -6), (e4, 0xB8, -1.0), (e5, 0x3C, 1.0), (e5, 0x7B, 57344.0),
             (e5, 0x7C, np.inf), (e5, 0x01, 2.0 ** -16), (e5, 0x04, 2.0 ** -14)]
    for fmt, bits, val in table:
        got = float(fp.decode(np.array([bits], dtype=np.uint8), fmt)[0])
        _check("%s decode %#04x" % (fmt.name, bits), got == val, "got %r want %r" % (got, val))
    for fmt in (e4, e5):
        _check("%s max_finite" % fmt.name, fmt.max_finite == (240.0 if fmt is e4 else 57344.0))
        allbits = np.arange(256, dtype=np.uint8)
        vals = fp.decode(allbits, fmt)
        ok = _same_bits_or_nan(fp.encode(vals, fmt), allbits, fmt)
        _check("%s round-trip all 256" % fmt.name, ok.all())
        _check("%s NaN patterns" % fmt.name,
               np.isnan(vals).sum() == 2 * ((1 << fmt.mbits) - 1))
        # Midpoints go to the even neighbour; one fp32 step either side goes to the nearer one.
        pos = np.unique(vals[np.isfinite(vals) & (vals >= 0)].astype(np.float64))
        lo, hi = pos[:-1], pos[1:]
        mid = ((lo + hi) / 2).astype(np.float32)
        enc_lo, enc_hi = fp.encode(lo, fmt), fp.encode(hi, fmt)
        even = np.where(enc_lo % 2 == 0, enc_lo, enc_hi)
        _check("%s midpoints to even" % fmt.name, (fp.encode(mid, fmt) == even).all())
        up = np.nextafter(mid, np.float32(np.inf))
        _check("%s above midpoint" % fmt.name, (fp.encode(up, fmt) == enc_hi).all())
        dn = np.nextafter(mid, np.float32(0))
        _check("%s below midpoint" % fmt.name, (fp.encode(dn, fmt) == enc_lo).all())
        # Overflow: the tie above max_finite rounds to inf (max has an odd mantissa).
        m = fmt.max_finite
        step = m - float(pos[-2])
        over = fp.decode(fp.encode(np.float32([m + step / 2, -(m + step / 2)]), fmt), fmt)
        under = fp.decode(fp.encode(np.nextafter(np.float32(m + step / 2), np.float32(0)), fmt), fmt)
        _check("%s overflow to inf" % fmt.name, np.isinf(over).all() and under == m)


def test_cumsum_is_sequential():
    r = np.random.default_rng(1)
    x = (r.standard_normal((4, 3000)) * 1e3).astype(np.float32)
    seq = np.empty_like(x)
    acc = np.zeros(4, dtype=np.float32)
    for j in range(x.shape[1]):
        acc = acc + x[:, j]
        seq[:, j] = acc
    _check("numpy fp32 cumsum is sequential", (np.cumsum(x, axis=1, dtype=np.float32) == seq).all())


def _perturb(dtype, arr, ref, exact):
    """A wrong output: one unit in the last place off for an exact output, else the
    element of largest magnitude 1% off (a tolerance must be tighter than that)."""
    bad = arr.copy()
    flat = bad.reshape(-1)
    i = int(np.argmax(np.abs(ref)))
    if exact:
        if dtype in fp.FORMATS or np.issubdtype(flat.dtype, np.integer):
            flat[i] = flat[i] + 1      # raw bits one step up; an integer one up
        else:
            flat[i] = np.nextafter(flat[i], np.float32(np.inf))
        return bad
    val = np.float32(ref.reshape(-1)[i] * 1.01)
    flat[i] = refs.to_storage(np.array([val]), dtype)[0]
    return bad


def test_kernel(kernel):
    try:
        errs = refs.spec_mismatches(kernel)
    except OSError as e:
        errs = [str(e)]
    _check("%s table matches specs/%s.yaml" % (kernel, kernel), not errs, "; ".join(errs))
    a, b, c = refs.make_inputs(kernel, 7), refs.make_inputs(kernel, 7), refs.make_inputs(kernel, 8)
    ok = all(np.array_equal(a[n], b[n]) for n in a)
    _check("%s inputs deterministic" % kernel, ok)
    _check("%s inputs depend on seed" % kernel, any(not np.array_equal(a[n], c[n]) for n in a))
    for n, dtype, shape in refs.tensors(kernel, "inputs"):
        arr = a[n]
        ok = arr.shape == shape and arr.dtype == refs.storage_dtype(dtype)
        _check("%s input %s shape/dtype" % (kernel, n), ok, "%s %s" % (arr.shape, arr.dtype))
        _check("%s input %s finite" % (kernel, n), np.isfinite(refs.from_storage(arr, dtype)).all())
    ref = refs.reference(kernel, a)
    res = refs._evaluate(kernel, a)
    outs = {}
    for n, dtype, shape in refs.tensors(kernel, "outputs"):
        _check("%s output %s shape" % (kernel, n), ref[n].shape == shape)
        packed = res[n][1] if isinstance(res[n][1], refs.Packed) else None
        if packed:  # its parts' values are finite (the bytes, decoded as one dtype, need not be)
            _check("%s output %s finite" % (kernel, n), all(np.isfinite(e).all() for _, _, e, _ in packed.parts))
            outs[n] = packed.storage
        else:
            _check("%s output %s finite" % (kernel, n), np.isfinite(ref[n]).all())
            outs[n] = refs.to_storage(ref[n].astype(np.float32), dtype)
    lines = refs.check(kernel, a, outs)
    _check("%s reference passes its own tolerance" % kernel, all(ok for _, ok, _ in lines),
           [t for _, _, t in lines])
    for n, dtype, _ in refs.tensors(kernel, "outputs"):
        bad = dict(outs)
        if isinstance(res[n][1], refs.Packed):
            bad[n] = res[n][1].perturb(outs[n])
        else:
            bad[n] = _perturb(dtype, outs[n], res[n][0], isinstance(res[n][1], str))
        lines = refs.check(kernel, a, bad)
        _check("%s perturbed %s fails" % (kernel, n), not all(ok for _, ok, _ in lines),
               [t for _, _, t in lines])


def _emulate(kernel, x):
    """A plausible fp32 implementation with its own summation orders (numpy/BLAS)
    and libm transcendentals: the tolerances must accept it."""
    f, r16 = np.float32, (lambda v: fp.round_to(np.asarray(v, np.float32), fp.BF16))
    if kernel == "softmax":
        v = x["x"]
        e = np.exp(v - v.max(1, keepdims=True))
        return {"y": e * (f(1) / e.sum(1, keepdims=True, dtype=f))}
    if kernel == "rmsnorm":
        v = x["x"]
        ms = (v * v).sum(1, keepdims=True, dtype=f) / f(v.shape[1]) + f(1e-6)
        return {"y": (v * (f(1) / np.sqrt(ms))) * x["g"]}
    if kernel == "layernorm":
        v = x["x"]
        m = v.mean(1, keepdims=True, dtype=f)
        rstd = f(1) / np.sqrt(((v - m) ** 2).mean(1, keepdims=True, dtype=f) + f(1e-5))
        return {"y": ((v - m) * rstd) * x["gamma"] + x["beta"]}
    if kernel == "mlp":
        hg, hu = x["x"] @ x["wg"], x["x"] @ x["wu"]
        return {"y": r16(r16(hg / (f(1) + np.exp(-hg)) * hu) @ x["wd"])}
    if kernel in ("attention", "attention_causal"):
        s = (x["q"] @ x["k"].T) * f(0.08838834764831845)
        n = s.shape[0]
        s = np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], s, -np.inf).astype(f)
        e = np.exp(s - s.max(1, keepdims=True))
        return {"o": r16((r16(e) @ x["v"]) * (f(1) / e.sum(1, keepdims=True, dtype=f)))}
    rec = refs.KERNELS.get(kernel, {})
    if rec.get("emulate"):
        return rec["emulate"](rec["params"], x)
    return None


def test_fp32_emulation(kernel):
    for seed in (0, 1):
        ins = refs.make_inputs(kernel, seed)
        x = {n: refs.from_storage(ins[n], dt).astype(np.float32)
             for n, dt, _ in refs.tensors(kernel, "inputs")}
        out = _emulate(kernel, x)
        if out is None:
            return
        outs = {n: refs.to_storage(out[n], dt) for n, dt, _ in refs.tensors(kernel, "outputs")}
        lines = refs.check(kernel, ins, outs)
        _check("%s fp32 emulation seed %d within tolerance" % (kernel, seed),
               all(ok for _, ok, _ in lines), [t for _, _, t in lines])


def test_spec_parser_vs_yaml():
    try:
        import yaml
    except ImportError:
        print("note: python3-yaml missing, mini parser not cross-checked")
        return
    for kernel in refs.KERNELS:
        path = "%s/%s.yaml" % (refs.SPECS_DIR, kernel)
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        params, ios = refs.parse_spec_header(path)
        ok = params == doc.get("params", {}) and doc["kernel"] == kernel
        for which in ("inputs", "outputs"):
            names = [(n, t["dtype"]) for n, t in doc[which].items()]
            ok = ok and names == [(n, dt) for n, dt, _ in ios[which]]
        _check("%s mini parser agrees with python3-yaml" % kernel, ok)


def run():
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        test_fp16()
        test_bf16()
        test_fp8()
        test_cumsum_is_sequential()
        test_spec_parser_vs_yaml()
        for kernel in refs.KERNELS:
            test_kernel(kernel)
            test_fp32_emulation(kernel)
    passed = sum(_results)
    failed = len(_results) - passed
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1
