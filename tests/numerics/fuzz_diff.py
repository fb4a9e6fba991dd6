#!/usr/bin/python3
"""Random valid tilegen specs for the differential fuzzer (fuzz_diff.sh).

A spec is two to four independent "blocks", each a small pipeline with its own
inputs, outputs and tiles, picked to stress what the C back end transforms
(docs/ir.md: HBM forwarding, transposing copies, partition-outer loops) against
the ISS, which runs every instruction. The same seed always gives the same spec
and the same inputs. CLI (run with /usr/bin/python3):
    fuzz_diff.py gen SEED DIR     write DIR/fz.yaml and DIR/<input>.npy
    fuzz_diff.py classify IDIR CDIR  how the outputs IDIR/y*.npy (ISS) and
                                  CDIR/y*.npy (C simulation) differ
    fuzz_diff.py minimize DIR     shrink the failing DIR/fz.yaml (on the inputs
                                  in DIR) to DIR/min.yaml; env TILEGEN, CC,
                                  RTOBJS (runtime objects to link)
"""
import os
import random
import sys

import numpy as np

DTYPES = ("float32", "bfloat16", "int32")
ARITH = ("add", "subtract", "multiply", "maximum", "minimum", "divide")
CMP = ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal")
LOGIC = ("logical_and", "logical_or", "logical_xor")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
FUNCS = ("copy", "exp", "log", "tanh", "sigmoid", "relu", "gelu", "gelu_apprx_tanh", "silu",
         "softplus", "square", "sqrt", "rsqrt", "reciprocal", "sin", "abs", "sign", "erf")
SCALARS = ("0.5", "-1.5", "2.0", "3.0", "1e-6", "-0.0", "0.0", "1.0", "-3.25", "1e30", "-7.0", "65504.0")


class Spec:
    """A spec being built: tensors, tiles and the body as nested statements."""

    def __init__(self, rnd):
        self.r = rnd            # random.Random of this spec
        self.params = {}        # name -> int
        self.inputs = []        # (name, dtype, shape list)
        self.outputs = []       # (name, dtype, shape list)
        self.tiles = []         # (name, buffer, dtype, shape list, bufs)
        self.body = []          # statements: ("op", name, [(field, value)]) or ("for", fields, body)
        self.n = 0              # counter for fresh names

    def fresh(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def inp(self, dtype, shape):
        name = self.fresh("x")
        self.inputs.append((name, dtype, shape))
        return name

    def out(self, dtype, shape):
        name = self.fresh("y")
        self.outputs.append((name, dtype, shape))
        return name

    def tile(self, dtype, shape, bufs=1, buffer="sbuf"):
        name = self.fresh("t")
        self.tiles.append((name, buffer, dtype, shape, bufs))
        return name

    def bufs(self):
        return self.r.choice((1, 1, 2, 2, 3))


def op(name, **fields):
    return ("op", name, [(k.rstrip("_"), v) for k, v in fields.items()])


def loop(var, rng, body, carried=False):
    return ("for", [("var", var), ("range", rng)] + ([("carried", True)] if carried else []), body)


def scalar_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(scalar_text(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (k, scalar_text(x)) for k, x in v.items()) + "}"
    s = str(v)
    if any(c in s for c in "[]:, *+/()") or s[:1] == "-" and not s[1:2].isdigit():
        return '"%s"' % s
    return s


def render(spec, seed):
    out = ["# fuzz_diff.py seed %s" % seed, "tilegen: 1", "kernel: fz",
           "doc: \"Random differential-fuzz spec, seed %s.\"" % seed]
    if spec.params:
        out.append("params:")
        out += ["  %s: %d" % kv for kv in spec.params.items()]
    for key, lst in (("inputs", spec.inputs), ("outputs", spec.outputs)):
        out.append(key + ":")
        out += ["  %s: {dtype: %s, shape: [%s]}" % (n, d, ", ".join(map(str, s))) for n, d, s in lst]
    if spec.tiles:
        out.append("tiles:")
        out += ["  %s: {buffer: %s, dtype: %s, shape: [%s]%s}" % (n, b, d, ", ".join(map(str, s)),
                                                                ", bufs: %d" % k if k > 1 else "")
                for n, b, d, s, k in spec.tiles]
    out.append("body:")

    def emit(stmts, ind):
        for st in stmts:
            if st[0] == "op":
                out.append("%s- %s: {%s}" % (ind, st[1], ", ".join(
                    "%s: %s" % (k, scalar_text(v)) for k, v in st[2])))
            else:
                out.append("%s- for: {%s}" % (ind, ", ".join("%s: %s" % (k, scalar_text(v)) for k, v in st[1])))
                out.append("%s  body:" % ind)
                emit(st[2], ind + "    ")
    emit(spec.body, "  ")
    return "\n".join(out) + "\n"


# --- row loops: full, ragged, started late, stepped ----------------------------

class Rows:
    """How a block walks N rows in 128-row tiles: the loop header and the
    partition expressions of the HBM rows and of the tile rows."""

    def __init__(s, r, n):
        s.n = n
        s.ntiles = (n + 127) // 128
        s.ragged = n % 128 != 0
        s.var = None
        s.rng = None
        if s.ntiles == 1 and r.random() < 0.5:
            s.hbm = "0:%d" % n
            s.til = "0:%d" % n
            return
        s.var = "i%d" % r.randrange(1000)
        v = s.var
        kind = r.choice(("count", "count", "pair", "step"))
        if kind == "count":
            s.rng = "(%d + 127) / 128" % n
        elif kind == "pair":
            s.rng = [r.randrange(0, s.ntiles), s.ntiles]
        else:
            s.rng = [r.randrange(0, min(2, s.ntiles)), s.ntiles, r.choice((1, 2))]
        if s.ragged:
            s.hbm = "%s*128 : min(%s*128+128, %d)" % (v, v, n)
            s.til = "0 : min(128, %d - %s*128)" % (n, v)
        else:
            s.hbm = "%s*128 : %s*128+128" % (v, v)
            s.til = ":" if r.random() < 0.7 else "0:128"

    def wrap(s, body, carried=False):
        if s.var is None:
            return body
        return [loop(s.var, s.rng, body, carried)]

    def tile_rows(s):
        return 128 if s.var is not None else s.n


def pick_n(r):
    return r.choice((128, 128, 256, 300, 200, 64, 37, 129, 1, 384))


def pick_f(r):
    return r.choice((1, 2, 3, 8, 16, 17, 32, 33, 64, 100))


def float_like(d):
    return d in ("float32", "bfloat16")


# --- block: elementwise pipeline over row tiles -------------------------------

def row_setup(sp):
    """N rows of F columns walked by a Rows loop: (n, f, rows, hbm rows, tile rows, P)."""
    n, f = pick_n(sp.r), pick_f(sp.r)
    rows = Rows(sp.r, n)
    return n, f, rows, rows.hbm, rows.til, rows.tile_rows()


def block_pipeline(sp):
    r = sp.r
    n, f, rows, pr, tr, P = row_setup(sp)
    xd = r.choice(DTYPES)
    td = xd if r.random() < 0.6 else r.choice(DTYPES)
    x = sp.inp(xd, [n, f])
    t = sp.tile(td, [P, f], sp.bufs())
    body = []
    # how the first tile is written
    how = r.choice(("whole", "whole", "whole", "halves", "strided", "twice"))
    if how == "halves" and f >= 2:
        h = r.randrange(1, f)
        body.append(op("load", dst="%s[%s, 0:%d]" % (t, tr, h), src="%s[%s, 0:%d]" % (x, pr, h)))
        body.append(op("load", dst="%s[%s, %d:%d]" % (t, tr, h, f), src="%s[%s, %d:%d]" % (x, pr, h, f)))
    elif how == "strided" and f >= 2:
        ev = (f + 1) // 2
        body.append(op("load", dst="%s[%s, 0:%d:2]" % (t, tr, f), src="%s[%s, 0:%d]" % (x, pr, ev)))
        body.append(op("load", dst="%s[%s, 1:%d:2]" % (t, tr, f), src="%s[%s, %d:%d]" % (x, pr, ev, f)))
    else:
        body.append(op("load", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (x, pr)))
        if how == "twice":
            body.append(op("tensor_scalar", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (t, tr),
                           op0=r.choice(ARITH), operand0=r.choice(SCALARS)))
    cur, curd = t, td
    cols = []   # [P,1] tiles available as operands
    # a broadcast row
    if r.random() < 0.4:
        g = sp.inp(r.choice(DTYPES), [1, f])
        gt = sp.tile(r.choice(DTYPES), [P, f])
        sp.body.append(op("load", dst=gt, src="%s[0:1, :]" % g, broadcast=True))
        other = gt
    else:
        other = None
    for _ in range(r.randrange(1, 5)):
        k = r.choice(("ts", "ts", "tt", "act", "copy", "reduce", "recip", "inplace", "shift", "iota",
                      "select", "scan", "colop"))
        nd = r.choice(DTYPES)
        nt = sp.tile(nd, [P, f], sp.bufs())
        src = "%s[%s, :]" % (cur, tr)
        dst = "%s[%s, :]" % (nt, tr)
        if k == "ts":
            ints = curd == "int32" and nd == "int32"
            opset = ARITH + CMP + (BITWISE if ints else ())
            a0 = r.choice(opset)
            o0 = (str(r.randrange(0, 5)) if a0 in BITWISE else
                  (r.choice(cols) + "[%s, :]" % tr if cols and r.random() < 0.5 else r.choice(SCALARS)))
            fl = dict(dst=dst, src=src, op0=a0, operand0=o0)
            if r.random() < 0.3:
                fl["reverse0"] = True
            if r.random() < 0.4:
                a1 = r.choice(ARITH + CMP + (BITWISE if ints else ()))
                fl["op1"] = a1
                fl["operand1"] = str(r.randrange(0, 5)) if a1 in BITWISE else r.choice(SCALARS)
                if r.random() < 0.3:
                    fl["reverse1"] = True
            body.append(op("tensor_scalar", **fl))
        elif k == "tt":
            b = other if other is not None and r.random() < 0.5 else cur
            bd = u_dtype(sp, b)
            ints = curd == "int32" and bd == "int32" and nd == "int32"
            body.append(op("tensor_tensor", dst=dst, a=src, b="%s[%s, :]" % (b, tr),
                           op=r.choice(ARITH + CMP + LOGIC + (BITWISE if ints else ()))))
        elif k == "act":
            fl = dict(dst=dst, src=src, func=r.choice(FUNCS))
            if r.random() < 0.4:
                fl["scale"] = r.choice(("0.5", "-2.0", "1.0", "3.0"))
            fcols = [c for c in cols if float_like(u_dtype(sp, c))]
            if fcols and r.random() < 0.4:
                fl["bias"] = r.choice(fcols) + "[%s, :]" % tr
            if r.random() < 0.5:
                c = sp.tile(r.choice(("float32", "float32", "bfloat16")), [P, 1], sp.bufs())
                fl["reduce"] = {"op": "add", "dst": "%s[%s, :]" % (c, tr)}
                body.append(op("activation", **fl))
                cols.append(c)
            else:
                body.append(op("activation", **fl))
        elif k == "copy":
            body.append(op("tensor_copy", dst=dst, src=src))
        elif k == "reduce":
            c = sp.tile(r.choice(DTYPES), [P, 1], sp.bufs())
            body.append(op("tensor_reduce", dst="%s[%s, :]" % (c, tr), src=src,
                           op=r.choice(("add", "maximum", "minimum")), negate=r.random() < 0.3))
            cols.append(c)
            body.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH),
                           operand0="%s[%s, :]" % (c, tr)))
        elif k == "recip":
            body.append(op("reciprocal", dst=dst, src=src))
        elif k == "inplace":
            body.append(op("tensor_copy", dst=dst, src=src))
            body.append(op("tensor_scalar", dst=dst, src=dst, op0=r.choice(ARITH), operand0=r.choice(SCALARS)))
        elif k == "shift" and f >= 2:
            body.append(op("tensor_copy", dst=dst, src=src))
            s = r.randrange(1, f)
            body.append(op("tensor_tensor", dst="%s[%s, %d:%d]" % (nt, tr, s, f),
                           a="%s[%s, 0:%d]" % (nt, tr, f - s), b="%s[%s, %d:%d]" % (nt, tr, s, f),
                           op=r.choice(("add", "maximum", "subtract"))))
        elif k == "select" and float_like(curd):
            body.append(op("affine_select", dst=dst, src=src, pred=r.choice(("p >= f", "f < 3", "p * 2 != f + 1",
                                                                             "p + f <= 40")),
                           fill=r.choice(("-inf", "0.0", "-2.5", "1e30"))))
        elif k == "scan":
            body.append(op("tensor_tensor_scan", dst=dst, a=src, b=src,
                           initial=(r.choice(cols) + "[%s, :]" % tr) if cols and r.random() < 0.5
                           else r.choice(("0.0", "1.0", "-2.0")),
                           op0=r.choice(("multiply", "add", "maximum")), op1=r.choice(("add", "maximum", "subtract"))))
        elif k == "colop":
            # one element per partition of the current tile as the [P,1] operand
            j = r.randrange(0, f)
            body.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH),
                           operand0="%s[%s, %d:%d]" % (cur, tr, j, j + 1)))
        else:
            body.append(op("iota", dst=dst, expr=r.choice(("p * 3 - f", "f", "p + f * 2 - 50",
                                                           "%s * 7 + p" % rows.var if rows.var else "p"))))
            body.append(op("tensor_tensor", dst=dst, a=dst, b=src, op=r.choice(ARITH)))
        cur, curd = nt, nd
    # stores
    yd = r.choice(DTYPES)
    sk = r.choice(("whole", "whole", "halves", "strided", "twoout"))
    if sk == "halves" and f >= 2:
        y = sp.out(curd if r.random() < 0.7 else yd, [n, f])
        h = r.randrange(1, f)
        body.append(op("store", dst="%s[%s, 0:%d]" % (y, pr, h), src="%s[%s, 0:%d]" % (cur, tr, h)))
        body.append(op("store", dst="%s[%s, %d:%d]" % (y, pr, h, f), src="%s[%s, %d:%d]" % (cur, tr, h, f)))
    elif sk == "strided" and f >= 2:
        y = sp.out(curd, [n, (f + 1) // 2])
        body.append(op("store", dst="%s[%s, :]" % (y, pr), src="%s[%s, 0:%d:2]" % (cur, tr, f)))
    else:
        y = sp.out(curd if r.random() < 0.7 else yd, [n, f])
        body.append(op("store", dst="%s[%s, :]" % (y, pr), src="%s[%s, :]" % (cur, tr)))
        if sk == "twoout":
            y2 = sp.out(curd, [n, f])
            body.append(op("store", dst="%s[%s, :]" % (y2, pr), src="%s[%s, :]" % (cur, tr)))
    for c in cols:
        if r.random() < 0.6:
            cd = u_dtype(sp, c)
            yc = sp.out(cd, [n, 1])
            body.append(op("store", dst="%s[%s, :]" % (yc, pr), src="%s[%s, :]" % (c, tr)))
    sp.body += rows.wrap(body)


# --- block: per-partition small matrices transposed by loops of copies --------

def block_transpose(sp):
    r = sp.r
    n = r.choice((128, 128, 256, 64, 200))
    rows = Rows(r, n)
    pr, tr = rows.hbm, rows.til
    P = rows.tile_rows()
    R, C = r.choice((1, 2, 3, 5, 8, 9, 12, 16, 17)), r.choice((1, 2, 4, 7, 8, 16, 20, 24))
    d = r.choice(("float32", "float32", "int32", "int32", "bfloat16"))
    td = d if r.random() < 0.8 else r.choice(DTYPES)
    x = sp.inp(d, [n, R, C])
    xt = sp.tile(d, [P, R, C], sp.bufs())
    yt = sp.tile(td, [P, C, R], sp.bufs())
    body = [op("load", dst="%s[%s, :, :]" % (xt, tr), src="%s[%s, :, :]" % (x, pr))]
    # loop over rows of the source (dst by columns) or over its columns
    over_rows = r.random() < 0.6
    L = R if over_rows else C
    start = r.choice((0, 0, 0, 1)) if L > 1 else 0
    step = r.choice((1, 1, 1, 2)) if L > 2 else 1
    full = start == 0 and step == 1
    if not full or r.random() < 0.2:
        body.append(op("memset", dst="%s[%s, :, :]" % (yt, tr), value=r.choice(("-1.5", "0.0", "7.0"))))
    a = "a%d" % r.randrange(1000)
    rng = L if full and r.random() < 0.5 else ([start, L] if step == 1 else [start, L, step])
    # the other dim: whole, or a sub-range [o, o+m) (then yt needs the memset)
    M = C if over_rows else R
    o, m = 0, M
    if M > 2 and r.random() < 0.3:
        o = r.randrange(0, M - 1)
        m = r.randrange(1, M - o + 1)
        if body[-1][1] != "memset":
            body.append(op("memset", dst="%s[%s, :, :]" % (yt, tr), value="2.0"))
    sub = ":" if (o, m) == (0, M) else "%d:%d" % (o, o + m)
    if over_rows:
        cp = op("tensor_copy", dst="%s[%s, %s, %s]" % (yt, tr, sub, a), src="%s[%s, %s, %s]" % (xt, tr, a, sub))
    else:
        cp = op("tensor_copy", dst="%s[%s, %s, %s]" % (yt, tr, a, sub), src="%s[%s, %s, %s]" % (xt, tr, sub, a))
    body.append(loop(a, rng, [cp]))
    y = sp.out(td, [n, C, R])
    body.append(op("store", dst="%s[%s, :, :]" % (y, pr), src="%s[%s, :, :]" % (yt, tr)))
    if r.random() < 0.3:
        y2 = sp.out(td, [n, C, R])
        body.append(op("store", dst="%s[%s, :, :]" % (y2, pr), src="%s[%s, :, :]" % (yt, tr)))
    sp.body += rows.wrap(body)


# --- block: carried accumulation over column chunks, read after the loop ------

def block_carried(sp):
    r = sp.r
    P = r.choice((128, 128, 64, 7))
    W = r.choice((1, 4, 16, 32))
    K = r.choice((1, 2, 3, 5))
    d = r.choice(DTYPES)
    x = sp.inp(d, [P, K * W])
    acc = sp.tile(r.choice(("float32", "float32", "bfloat16", "int32")), [P, W])
    xc = sp.tile(r.choice(DTYPES), [P, W], sp.bufs())
    c = "c%d" % r.randrange(1000)
    sp.body.append(op("memset", dst=acc, value=r.choice(("0.0", "-inf", "1.0"))))
    inner = [op("load", dst=xc, src="%s[:, %s*%d : %s*%d+%d]" % (x, c, W, c, W, W)),
             op("tensor_tensor", dst=acc, a=acc, b=xc, op=r.choice(("add", "maximum", "minimum", "subtract")))]
    ys = None
    if r.random() < 0.4:
        ys = sp.out(d, [P, K * W])
        inner.append(op("store", dst="%s[:, %s*%d : %s*%d+%d]" % (ys, c, W, c, W, W), src=acc))
    sp.body.append(loop(c, K if r.random() < 0.7 else [0, K], inner, carried=True))
    o = sp.tile(r.choice(DTYPES), [P, W])
    sp.body.append(op("tensor_scalar", dst=o, src=acc, op0=r.choice(ARITH), operand0=r.choice(SCALARS)))
    y = sp.out(r.choice(DTYPES), [P, W])
    sp.body.append(op("store", dst=y, src=o))


# --- block: an output stored, loaded back, stored again -----------------------

def block_readback(sp):
    r = sp.r
    n, f, rows, pr, tr, P = row_setup(sp)
    d = r.choice(DTYPES)
    x = sp.inp(d, [n, f])
    a = sp.tile(r.choice(DTYPES), [P, f], sp.bufs())
    b = sp.tile(r.choice(DTYPES), [P, f], sp.bufs())
    y1 = sp.out(r.choice(DTYPES), [n, f])
    y2 = sp.out(r.choice(DTYPES), [n, f])
    body = [op("load", dst="%s[%s, :]" % (a, tr), src="%s[%s, :]" % (x, pr)),
            op("store", dst="%s[%s, :]" % (y1, pr), src="%s[%s, :]" % (a, tr)),
            op("load", dst="%s[%s, :]" % (b, tr), src="%s[%s, :]" % (y1, pr)),
            op("tensor_scalar", dst="%s[%s, :]" % (b, tr), src="%s[%s, :]" % (b, tr),
               op0=r.choice(ARITH), operand0=r.choice(SCALARS)),
            op("store", dst="%s[%s, :]" % (y2, pr), src="%s[%s, :]" % (b, tr))]
    sp.body += rows.wrap(body)


# --- block: a load transposed by the DMA ---------------------------------------

def block_tload(sp):
    r = sp.r
    A, B = r.choice((1, 8, 33, 64, 128, 200)), r.choice((1, 4, 32, 100, 128))
    d = r.choice(DTYPES)
    x = sp.inp(d, [A, B])
    t = sp.tile(r.choice(DTYPES), [B, A])
    sp.body.append(op("load", dst=t, src="%s[:, :]" % x, transpose=True))
    u = sp.tile(r.choice(DTYPES), [B, A])
    sp.body.append(op("activation", dst=u, src=t, func=r.choice(FUNCS)))
    y = sp.out(r.choice(DTYPES), [B, A])
    sp.body.append(op("store", dst=y, src=u))


# --- block: a tile read after the loop that wrote it --------------------------

def block_after(sp):
    r = sp.r
    f = pick_f(r)
    T = r.choice((1, 2, 3))
    d = r.choice(DTYPES)
    x = sp.inp(d, [128 * T, f])
    t = sp.tile(r.choice(DTYPES), [128, f])
    i = "j%d" % r.randrange(1000)
    sp.body.append(loop(i, T, [op("load", dst=t, src="%s[%s*128 : %s*128+128, :]" % (x, i, i))]))
    u = sp.tile(r.choice(DTYPES), [128, f])
    sp.body.append(op("tensor_scalar", dst=u, src=t, op0=r.choice(ARITH), operand0=r.choice(SCALARS)))
    y = sp.out(r.choice(DTYPES), [128, f])
    sp.body.append(op("store", dst=y, src=u))


# --- block: partition and column sub-ranges, overlapping writers of a stored tile

def block_subpart(sp):
    r = sp.r
    f = pick_f(r)
    d = r.choice(DTYPES)
    x = sp.inp(d, [128, f])
    t = sp.tile(d, [128, f])
    sp.body.append(op("load", dst=t, src=x))
    u = sp.tile(r.choice(DTYPES), [128, f])
    p0 = r.choice((0, 1, 32, 64, 96, 100))
    p1 = r.randrange(p0 + 1, 129)
    parts = "%d:%d" % (p0, p1)
    whole = r.random() < 0.5
    if whole:
        sp.body.append(op("memset", dst=u, value=r.choice(("0.0", "-1.0", "5.0"))))
    # writers over overlapping column ranges [0, h2) then [h1, f)
    h1 = r.randrange(0, f)
    h2 = r.randrange(h1, f) + 1
    for lo, hi in ((0, h2), (h1, f)):
        k = r.choice(("ts", "copy", "iota") + (("select", "act") if float_like(d) else ()))
        dst = "%s[%s, %d:%d]" % (u, parts, lo, hi)
        src = "%s[%s, %d:%d]" % (t, parts, lo, hi)
        if k == "ts":
            sp.body.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH),
                              operand0="%s[%s, %d:%d]" % (t, parts, hi - 1, hi)))
        elif k == "copy":
            sp.body.append(op("tensor_copy", dst=dst, src=src))
        elif k == "iota":
            sp.body.append(op("iota", dst=dst, expr=r.choice(("p", "p * 100 + f", "f - p"))))
        elif k == "select":
            sp.body.append(op("affine_select", dst=dst, src=src, pred=r.choice(("p >= f", "p < 70", "f == p")),
                              fill="-3.0"))
        else:
            sp.body.append(op("activation", dst=dst, src=src, func=r.choice(FUNCS), bias="%s[%s, 0:1]" % (t, parts)))
    if whole:
        y = sp.out(u_dtype(sp, u), [128, f])
        sp.body.append(op("store", dst=y, src=u))
    else:
        y = sp.out(u_dtype(sp, u), [128 + 3, f])
        sp.body.append(op("store", dst="%s[%d:%d, :]" % (y, p0 + 3, p1 + 3), src="%s[%s, :]" % (u, parts)))


def u_dtype(sp, name):
    return [d for nm, _, d, _, _ in sp.tiles if nm == name][0]


BLOCKS = ((block_subpart, 2), (block_pipeline, 5), (block_transpose, 4), (block_carried, 2), (block_readback, 2),
          (block_tload, 1), (block_after, 1))


def make_spec(seed):
    r = random.Random(seed)
    sp = Spec(r)
    fns = [f for f, w in BLOCKS for _ in range(w)]
    for _ in range(r.randrange(1, 4)):
        r.choice(fns)(sp)
    return sp


# --- inputs: any values, including NaN, infinities and negative zero ----------

def input_array(rng, dtype, shape):
    n = int(np.prod(shape))
    if dtype == "int32":
        kind = rng.integers(0, 3, n)
        v = np.where(kind == 0, rng.integers(-8, 9, n),
                     np.where(kind == 1, rng.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64),
                              rng.integers(-100000, 100000, n)))
        return v.astype("<i4").reshape(shape)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-45, 3.4e38, -3.4e38, 1.0, -1.0,
                        0.5, 88.7, -88.7, 1e-8], dtype=np.float32)
    kind = rng.integers(0, 10, n)
    v = rng.standard_normal(n).astype(np.float32) * np.float32(3)
    v = np.where(kind == 0, special[rng.integers(0, len(special), n)], v)
    v = np.where(kind == 1, rng.integers(-4, 5, n).astype(np.float32), v)
    v = np.where(kind == 2, (rng.standard_normal(n) * 1e6).astype(np.float32), v)
    v = v.astype("<f4")
    if dtype == "float32":
        bits = v.view("<u4")
        nanp = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32) | np.uint32(0x7f800001)
        bits = np.where(kind == 3, nanp & np.uint32(0xffffffff) if rng.random() < 0.5 else bits, bits)
        return bits.astype("<u4").view("<f4").reshape(shape)
    bits = (v.view("<u4") >> 16).astype("<u2")
    raw = rng.integers(0, 2 ** 16, n).astype("<u2")
    return np.where(kind == 3, raw, bits).astype("<u2").reshape(shape)


# --- minimizing a failing spec ------------------------------------------------

def disagrees(text, inputs, work):
    """1 if the spec `text` passes `tilegen check` and its C simulation and ISS
    disagree (or either fails) on the .npy inputs in dir `inputs`."""
    tg, cc, rt = os.environ.get("TILEGEN", "bin/tilegen"), os.environ.get("CC", "cc"), os.environ["RTOBJS"]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..", "..")
    os.makedirs(os.path.join(work, "gen"), exist_ok=True)
    spec = os.path.join(work, "fz.yaml")
    with open(spec, "w") as f:
        f.write(text)
    q = " >/dev/null 2>&1"
    # valid, and no warning but W002 (an output never written stays zero)
    if os.system("%s check %s >%s/check.log 2>&1" % (tg, spec, work)):
        return 0
    if any("warning[" in ln and "warning[W002]" not in ln for ln in open(os.path.join(work, "check.log"))):
        return 0
    if os.system("%s gen -o %s/gen %s%s && %s asm %s/gen/fz.s -o %s/fz.bin%s" % (tg, work, spec, q, tg, work, work, q)):
        return 1
    if os.system("%s -std=c11 -O2 -march=native -ffp-contract=off -I%s/runtime -I%s/runtime/host -I%s/gen '-DKERNEL_H=\"fz.h\"' "
                 "-DKERNEL_DESC=fz_kernel %s/iss_agree.c %s/gen/fz.c %s -o %s/agree%s"
                 % (cc, root, root, work, here, work, rt, work, q)):
        return 1
    return 1 if os.system("%s/agree %s 1 %s/fz.bin%s" % (work, inputs, work, q)) else 0


def minimize(d):
    """Drop lines (with their more-indented children) of d/fz.yaml while the
    disagreement stays; writes d/min.yaml."""
    import tempfile
    work = tempfile.mkdtemp(prefix="fzmin")
    lines = open(os.path.join(d, "fz.yaml")).read().split("\n")
    if not disagrees("\n".join(lines), d, work):
        sys.stderr.write("%s/fz.yaml does not fail here\n" % d)
        return 1
    changed = True
    while changed:
        changed = False
        i = len(lines) - 1
        while i >= 0:
            ln = lines[i]
            ind = len(ln) - len(ln.lstrip())
            if ind == 0 or not ln.strip():
                i -= 1
                continue
            j = i + 1
            while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) > ind:
                j += 1
            trial = lines[:i] + lines[j:]
            if disagrees("\n".join(trial), d, work):
                lines, changed = trial, True
            i -= 1
    with open(os.path.join(d, "min.yaml"), "w") as f:
        f.write("\n".join(lines))
    os.system("rm -rf " + work)
    print(os.path.join(d, "min.yaml"))
    return 0


def classify(idir, cdir):
    """Print how the ISS outputs (idir/y*.npy) differ from the C simulation's
    (cdir/y*.npy): "nan-bits" when every differing element is a NaN on both
    sides (payload or sign only), else "values"."""
    kinds = set()
    for name in sorted(os.listdir(cdir)):
        if not name.startswith("y") or not name.endswith(".npy") or \
                not os.path.exists(os.path.join(idir, name)):   # iss_agree stops at the first difference
            continue
        a, b = np.load(os.path.join(idir, name)), np.load(os.path.join(cdir, name))
        ua = a.view("<u%d" % a.itemsize).ravel()
        ub = b.view("<u%d" % b.itemsize).ravel()
        diff = np.nonzero(ua != ub)[0]
        if not len(diff):
            continue
        if a.dtype == np.float32:
            nan = np.isnan(a.ravel()[diff]) & np.isnan(b.ravel()[diff])
        elif a.dtype == np.uint16:   # bfloat16 bits
            nan = ((ua[diff] & 0x7fff) > 0x7f80) & ((ub[diff] & 0x7fff) > 0x7f80)
        else:
            nan = np.zeros(len(diff), dtype=bool)
        kinds.add("nan-bits" if nan.all() else "values")
        j = diff[0]
        print("%s: %d differ, first flat %d: ISS %#x, C %#x" % (name[:-4], len(diff), j, ua[j], ub[j]))
    print("kind: " + ("values" if "values" in kinds else "nan-bits" if kinds else "none"))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "minimize":
        return minimize(argv[2])
    if len(argv) == 4 and argv[1] == "classify":
        return classify(argv[2], argv[3])
    if len(argv) != 4 or argv[1] != "gen":
        sys.stderr.write(__doc__)
        return 2
    seed, d = int(argv[2]), argv[3]
    os.makedirs(d, exist_ok=True)
    sp = make_spec(seed)
    with open(os.path.join(d, "fz.yaml"), "w") as f:
        f.write(render(sp, seed))
    rng = np.random.default_rng(seed)
    for name, dtype, shape in sp.inputs:
        np.save(os.path.join(d, name + ".npy"), input_array(rng, dtype, shape))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
