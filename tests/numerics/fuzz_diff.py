#!/usr/bin/python3
"""Random valid tilegen specs for the differential fuzzer (fuzz_diff.sh).

A spec is one to three independent "blocks", each a small pipeline with its own
inputs, outputs and tiles, picked to stress what the C back end transforms
(docs/ir.md: HBM forwarding, transposing copies, partition-outer loops, chains
of elementwise statements) against
the ISS, which runs every instruction: Vector/Scalar/GpSimd pipelines, matmul
over carried K loops and PE transposes through PSUM, dma_copy, bn_stats/bn_aggr,
partition_reduce, running values across carried iterations, every dtype, ragged
row tiles, trn2, params overridden by -D; and the SPEC.md §2.1 shapes: ragged
last free-dim chunks, short loads/stores into whole fixed-shape tiles,
triangular loops, broadcasts of 1-D tensors and [1, D] rows, float-valued
fields written as expressions, SPMD grids of rank 1 to 3 (every block run
once per program, its outputs and maybe its inputs given a leading program
dimension; block_grid puts program_id in a ragged tile shape, regions, an
iota, an affine_select predicate and a loop range), indirect DMAs (row and
element gathers, scatters, by index columns of every integer dtype with
in-range values), HBM views (bitcasts and reshapes, in grids too, where they
take their base's program dimension), scratch tensors (rows staged through
HBM and read back, maybe through a view or after an HBM to HBM DMA), print
statements after some ops (DIR/features names those a spec uses). The same seed always gives the same
spec and the same inputs. CLI (run with /usr/bin/python3):
    fuzz_diff.py gen SEED DIR     write DIR/fz.yaml, DIR/<input>.npy,
                                  DIR/defines (the -D arguments, maybe empty)
                                  and DIR/features (the SPEC.md features used)
    fuzz_diff.py gen-batch DIR SEED...  the same for each seed into DIR/SEED
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

DTYPES = ("float32", "bfloat16", "int32")          # the common ones, picked most often
FLOATS = ("float32", "bfloat16", "float16", "float8_e4m3", "float8_e5m2")
INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32")
ALL = FLOATS + INTS
ARITH = ("add", "subtract", "multiply", "maximum", "minimum", "divide")
CMP = ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal")
LOGIC = ("logical_and", "logical_or", "logical_xor")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
REDUCE_OPS = ("add", "maximum", "minimum")  # activation reduce / tensor_scalar accumulate
FUNCS = ("copy", "exp", "log", "tanh", "sigmoid", "relu", "gelu", "gelu_apprx_tanh", "silu",
         "softplus", "square", "sqrt", "rsqrt", "reciprocal", "sin", "abs", "sign", "erf")
# Ragged tiles declared once (tile shapes over loop variables, SPEC.md §2.1)
RAGGED_DECL = True
# SPMD grids (SPEC.md §2.1): the share of specs that get one
GRID_P = 0.25
# FUZZ_DIFF_CORES=1: every spec on trn2 with a grid of two or more programs
# along axis 0, and cores: 2 wherever the spec keeps its grid (a run aimed at
# the two-core streams; another distribution of specs than the default's)
CORES_ONLY = os.environ.get("FUZZ_DIFF_CORES") == "1"
# Float-valued fields over loop variables (SPEC.md §2.1): evaluated per iteration
FLOAT_LOOPVARS = True
SCALARS = ("0.5", "-1.5", "2.0", "3.0", "1e-6", "-0.0", "0.0", "1.0", "-3.25", "1e30", "-7.0", "65504.0")


class Spec:
    """A spec being built: tensors, tiles and the body as nested statements."""

    def __init__(self, rnd):
        self.r = rnd            # random.Random of this spec
        self.params = {}        # name -> int
        self.inputs = []        # (name, dtype, shape list, tame: no NaN/inf/huge values)
        self.outputs = []       # (name, dtype, shape list)
        self.views = []         # (name, of, shape list, dtype or None): SPEC.md §2.1 views
        self.scratch = []       # (name, dtype, shape list): SPEC.md §2.1 scratch tensors
        self.tiles = []         # (name, buffer, dtype, shape list, bufs)
        self.body = []          # statements: ("op", name, [(field, value)]) or ("for", fields, body)
        self.n = 0              # counter for fresh names
        self.defines = {}       # param -> value given as `-D` (differs from the spec's default)
        self.target = None      # "trn2" or None (trn1)
        self.psum = 0           # PSUM banks taken (8 on the machine)
        self.feat = set()       # SPEC.md features the spec uses (reported as coverage)
        self.fp = None          # the param float-valued expressions use
        self.grid = None        # SPMD grid: the counts as written (ints or param names)
        self.grid_n = None      # their values

    def fresh(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def inp(self, dtype, shape, tame=0.0):
        """An input; with probability `tame` its values avoid NaN, infinities
        and huge magnitudes (so long sums such as matmul stay finite)."""
        name = self.fresh("x")
        self.inputs.append((name, dtype, shape, self.r.random() < tame))
        return name

    def index_inp(self, dtype, shape, bound):
        """An integer input whose values lie in [0, bound) (indices of an
        indirect DMA; bound an int or a param name)."""
        name = self.fresh("x")
        self.inputs.append((name, dtype, shape, ("index", bound)))
        return name

    def out(self, dtype, shape):
        name = self.fresh("y")
        self.outputs.append((name, dtype, shape, False))
        return name

    def scratch_t(self, dtype, shape):
        name = self.fresh("s")
        self.scratch.append((name, dtype, shape))
        return name

    def view(self, of, shape, dtype=None):
        name = self.fresh("v")
        self.views.append((name, of, shape, dtype))
        return name

    def tile(self, dtype, shape, bufs=1, buffer="sbuf"):
        name = self.fresh("t")
        self.tiles.append((name, buffer, dtype, shape, bufs))
        return name

    def bufs(self):
        return self.r.choice((1, 1, 2, 2, 3))

    def psum_tile(self, shape, banks=1):
        """A float32 PSUM tile (of `banks` banks per copy), double-buffered while banks last."""
        b = 2 if self.psum + 2 * banks <= 6 and self.r.random() < 0.5 else 1
        self.psum += b * banks
        return self.tile("float32", shape, b, buffer="psum")

    def param(self, value):
        """A param holding `value`: the spec's own default, or another default
        overridden by `-D`. Returns its name (to use in shapes and expressions)."""
        name = self.fresh("N")
        if self.r.random() < 0.5:
            self.params[name] = value
        else:
            self.params[name] = self.r.choice((128, 256, 64, 300, 1))
            self.defines[name] = value
        return name

    def param_fixed(self, value):
        """A param holding `value` as its default (never set by -D)."""
        name = self.fresh("G")
        self.params[name] = value
        return name

    def fparam(self):
        """The param float-valued fields are written over (a nonzero value,
        maybe set by -D)."""
        if self.fp is None:
            name = self.fresh("F")
            value = self.r.choice((3, 7, 100, 1000, 12, 1))
            if self.r.random() < 0.5:
                self.params[name] = value
            else:
                self.params[name] = self.r.choice((5, 64, 2))
                self.defines[name] = value
            self.fp = name
        return self.fp

    def fexpr(self, var=None):
        """A float-valued expression over a param (SPEC.md §2.1: evaluated in
        floating point, `/` true division, one fp32 rounding); over the loop
        variable `var` too when given."""
        p = self.fparam()
        self.feat.add("float-expr")
        forms = ["1/%s" % p, "1/(%s+1)" % p, "%s/3" % p, "-%s/2.0" % p, "%s*0.5 - 1" % p, "(%s + 0.25)/%s" % (p, p),
                 "1/(%s*%s)" % (p, p), "%s/7 - %s/11" % (p, p), "-1/%s" % p]
        if var is not None and FLOAT_LOOPVARS:
            self.feat.add("float-expr-loopvar")
            forms += ["1/(%s+1)" % var, "%s/%s" % (var, p), "(%s + 0.5)/3" % var, "-%s/2.0 + 1/%s" % (var, p),
                      "min(%s, 2.5) %% 0.7" % var, "max(%s*0.25, 0.5) - %s" % (var, p), "(%s %% 3) - 0.5" % var,
                      "-(%s + 1e-3)/(%s + 0.1)" % (var, p), "(1e20 * %s) %% 7" % var]
        return self.r.choice(forms)

    def scalar(self, var=None):
        """A number operand: a literal from SCALARS, or 30% of the time a
        float-valued expression."""
        return self.fexpr(var) if self.r.random() < 0.3 else self.r.choice(SCALARS)

    def dtype(self, pool=ALL):
        """A dtype from pool, the common DTYPES 60% of the time when it has one."""
        old = [d for d in pool if d in DTYPES]
        return self.r.choice(old if old and self.r.random() < 0.6 else pool)


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


def define_args(spec):
    """The `-D NAME=VALUE` arguments the spec is checked and generated with."""
    return " ".join("-D %s=%d" % kv for kv in spec.defines.items())


def render(spec, seed):
    out = ["# fuzz_diff.py seed %s%s" % (seed, "; tilegen ... " + define_args(spec) if spec.defines else ""),
           "tilegen: 1", "kernel: fz",
           "doc: \"Random differential-fuzz spec, seed %s.\"" % seed]
    if spec.target:
        out.append("target: " + spec.target)
    if spec.params:
        out.append("params:")
        out += ["  %s: %d" % kv for kv in spec.params.items()]
    if spec.grid:
        out.append("grid: %s" % scalar_text(spec.grid))
    if getattr(spec, "cores", 1) > 1:
        out.append("cores: %d" % spec.cores)
    for key, lst in (("inputs", spec.inputs), ("outputs", spec.outputs), ("scratch", spec.scratch)):
        if not lst and key == "scratch":
            continue
        out.append(key + ":")
        out += ["  %s: {dtype: %s, shape: [%s]}" % (n, d, ", ".join(map(str, s))) for n, d, s, *_ in lst]
    if spec.views:
        out.append("views:")
        out += ["  %s: {of: %s, shape: [%s]%s}" % (n, o, ", ".join(map(str, s)), ", dtype: " + d if d else "")
                for n, o, s, d in spec.views]
    if spec.tiles:
        out.append("tiles:")
        out += ["  %s: {buffer: %s, dtype: %s, shape: [%s]%s}" % (n, b, d, ", ".join(scalar_text(x) for x in s),
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

    def __init__(s, r, n, nx=None):
        nx = nx or str(n)       # n as written in the spec: a literal or a param
        s.n = n
        s.nx = nx
        s.ntiles = (n + 127) // 128
        s.ragged = n % 128 != 0
        s.var = None
        s.rng = None
        s.feat = None
        if s.ntiles == 1 and r.random() < 0.5:
            s.hbm = "0:%s" % nx
            s.til = "0:%s" % nx
            return
        s.var = "i%d" % r.randrange(1000)
        v = s.var
        kind = r.choice(("count", "count", "pair", "step"))
        if kind == "count":
            s.rng = "(%s + 127) / 128" % nx
        elif kind == "pair":
            s.rng = [r.randrange(0, s.ntiles), s.ntiles]
        else:
            s.rng = [r.randrange(0, min(2, s.ntiles)), s.ntiles, r.choice((1, 2))]
        if s.ragged:
            s.feat = "ragged-partition"
            s.hbm = "%s*128 : min(%s*128+128, %s)" % (v, v, nx)
            s.til = "0 : min(128, %s - %s*128)" % (nx, v)
        else:
            s.hbm = "%s*128 : %s*128+128" % (v, v)
            s.til = ":" if r.random() < 0.7 else "0:128"

    def dma_tile(s, sp, t):
        """The tile side of a load/store of these rows: its row region, or 40%
        of the time on ragged rows the whole fixed-shape tile (SPEC.md §2.1: a
        shorter HBM region moves that many leading partitions)."""
        if s.ragged and s.var is not None and sp.r.random() < 0.4:
            sp.feat.add("short-dma")
            return t
        return "%s[%s, :]" % (t, s.til)

    def wrap(s, body, carried=False, sp=None):
        if s.var is None:
            return body
        if sp is not None and s.feat:
            sp.feat.add(s.feat)
        return [loop(s.var, s.rng, body, carried)]

    def tile_rows(s):
        return 128 if s.var is not None else s.nx


def pick_n(r):
    return r.choice((128, 128, 256, 300, 200, 64, 37, 129, 1, 384))


def pick_f(r):
    return r.choice((1, 2, 3, 8, 16, 17, 32, 33, 64, 100))


def float_like(d):
    return d in FLOATS


def is_int(d):
    return d in INTS


def bias_ok(d):
    """activation bias dtypes"""
    return d in ("float32", "bfloat16", "float16")


def const_srcs(sp, src, shape, region):
    """A scan's sources a and b: src, or one of them on a constant tile (a fresh
    tile of `shape` set once by a memset at the top of the body, read at
    `region`), which the C simulation reads as the memset's number
    (gen/forward.c const_reads)."""
    r = sp.r
    if r.random() >= 0.25:
        return src, src
    kt = sp.tile(sp.dtype(), shape, 1)
    sp.body.insert(0, op("memset", dst=kt, value=r.choice(("1.0", "1.0", "0.0", "-0.0", "0.1", "-2.5", "-inf"))))
    sp.feat.add("const-scan")
    k = "%s[%s]" % (kt, region)
    return (k, src) if r.random() < 0.7 else (src, k)


def select_ok(d):
    """affine_select data dtypes"""
    return d in FLOATS or d in ("int8", "int16", "uint8", "uint16")


def broadcast_load(sp, f, fx, cols=None):
    """The src and broadcast fields of a load repeating one row of f elements
    (f as written: fx) on every partition: a 1-D tensor [f] or a [1, f] row
    (SPEC.md §2.1), whole or a column range `cols` of it (HBM free region)."""
    r = sp.r
    one = r.random() < 0.5
    g = sp.inp(sp.dtype(), [fx] if one else [1, fx])
    sp.feat.add("broadcast-1d" if one else "broadcast-row")
    if cols is None:
        src = r.choice((g, "%s[:]" % g, "%s[0:%s]" % (g, fx)) if one else (g, "%s[0:1, :]" % g, "%s[:, :]" % g))
    else:
        src = "%s[%s]" % (g, cols) if one else "%s[0:1, %s]" % (g, cols)
    return dict(src=src, broadcast=True)


# --- block: elementwise pipeline over row tiles -------------------------------

def row_setup(sp):
    """N rows of F columns walked by a Rows loop: (n as written, f, rows, hbm
    rows, tile rows, P). N is a param (maybe set by -D) 30% of the time."""
    n, f = pick_n(sp.r), pick_f(sp.r)
    nx = sp.param(n) if sp.r.random() < 0.3 else str(n)
    rows = Rows(sp.r, n, nx)
    return nx, f, rows, rows.hbm, rows.til, rows.tile_rows()


def block_pipeline(sp):
    r = sp.r
    n, f, rows, pr, tr, P = row_setup(sp)
    xd = sp.dtype()
    td = xd if r.random() < 0.6 else sp.dtype()
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
        body.append(op("load", dst=rows.dma_tile(sp, t), src="%s[%s, :]" % (x, pr)))
        if how == "twice":
            body.append(op("tensor_scalar", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (t, tr),
                           op0=r.choice(ARITH), operand0=sp.scalar()))
    cur, curd = t, td
    cols = []   # [P,1] tiles available as operands
    wides = []  # [P,8] tiles to store (max8, nc_find_index8)
    # a broadcast row
    if r.random() < 0.4:
        gt = sp.tile(sp.dtype(), [P, f])
        ld = broadcast_load(sp, f, str(f))
        if rows.var and r.random() < 0.5:     # per row tile, into its live partitions
            body.insert(0, op("load", dst="%s[%s, :]" % (gt, tr), **ld))
        else:
            sp.body.append(op("load", dst=gt, **ld))
        other = gt
    else:
        other = None
    for _ in range(r.randrange(1, 5)):
        k = r.choice(("ts", "ts", "tt", "act", "copy", "reduce", "recip", "inplace", "shift", "iota",
                      "select", "scan", "colop", "shift2", "bits", "where", "stt", "top8"))
        nd = sp.dtype()
        if k == "bits":
            nd = sp.dtype(INTS)
        nt = sp.tile(nd, [P, f], sp.bufs())
        src = "%s[%s, :]" % (cur, tr)
        dst = "%s[%s, :]" % (nt, tr)
        if k == "ts":
            ints = is_int(curd) and is_int(nd)
            opset = ARITH + CMP + (BITWISE if ints else ())
            a0 = r.choice(opset)
            if not ints and r.random() < 0.08:  # power: GpSimd's, the runtime's branch-free pow
                a0 = "power"
                sp.feat.add("power")
            o0 = (str(r.randrange(0, 5)) if a0 in BITWISE else
                  (r.choice(cols) + "[%s, :]" % tr if cols and r.random() < 0.5 else sp.scalar()))
            if a0 == "power" and r.random() < 0.5:  # a square: x·x unless a row has a flagged element
                o0 = "2.0"
                sp.feat.add("power-2")
            fl = dict(dst=dst, src=src, op0=a0, operand0=o0)
            if r.random() < 0.3:
                fl["reverse0"] = True
            if r.random() < 0.4:
                a1 = r.choice(ARITH + CMP + (BITWISE if ints else ()))
                fl["op1"] = a1
                fl["operand1"] = str(r.randrange(0, 5)) if a1 in BITWISE else sp.scalar()
                if r.random() < 0.3:
                    fl["reverse1"] = True
            if r.random() < 0.3 and not any(fl.get(a) in BITWISE for a in ("op0", "op1")):
                # NKI tensor_scalar_reduce: the fp32 results folded into a [P,1] column
                c = sp.tile(sp.dtype(), [P, 1], sp.bufs())
                fl["accumulate"] = {"op": r.choice(REDUCE_OPS), "dst": "%s[%s, :]" % (c, tr)}
                sp.feat.add("ts-accumulate-" + fl["accumulate"]["op"])
                cols.append(c)
            body.append(op("tensor_scalar", **fl))
        elif k == "tt":
            b = other if other is not None and r.random() < 0.5 else cur
            bd = u_dtype(sp, b)
            ints = is_int(curd) and is_int(bd) and is_int(nd)
            tto = r.choice(ARITH + CMP + LOGIC + (BITWISE if ints else ()))
            if not ints and r.random() < 0.08:
                tto = "power"
                sp.feat.add("power")
            body.append(op("tensor_tensor", dst=dst, a=src, b="%s[%s, :]" % (b, tr), op=tto))
        elif k == "act":
            fl = dict(dst=dst, src=src, func=r.choice(FUNCS))
            if r.random() < 0.4:
                fl["scale"] = sp.fexpr(rows.var) if r.random() < 0.4 else r.choice(("0.5", "-2.0", "1.0", "3.0"))
            fcols = [c for c in cols if bias_ok(u_dtype(sp, c))]
            if fcols and r.random() < 0.4:
                fl["bias"] = r.choice(fcols) + "[%s, :]" % tr
            if r.random() < 0.5:
                c = sp.tile(r.choice(("float32", "float32", "bfloat16")), [P, 1], sp.bufs())
                fl["reduce"] = {"op": r.choice(REDUCE_OPS), "dst": "%s[%s, :]" % (c, tr)}
                sp.feat.add("act-reduce-" + fl["reduce"]["op"])
                body.append(op("activation", **fl))
                cols.append(c)
            else:
                body.append(op("activation", **fl))
        elif k == "copy":
            body.append(op("tensor_copy", dst=dst, src=src))
        elif k == "reduce":
            c = sp.tile(sp.dtype(), [P, 1], sp.bufs())
            body.append(op("tensor_reduce", dst="%s[%s, :]" % (c, tr), src=src,
                           op=r.choice(("add", "maximum", "minimum")), negate=r.random() < 0.3))
            cols.append(c)
            body.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH),
                           operand0="%s[%s, :]" % (c, tr)))
        elif k == "recip":
            body.append(op("reciprocal", dst=dst, src=src))
        elif k == "inplace":
            body.append(op("tensor_copy", dst=dst, src=src))
            body.append(op("tensor_scalar", dst=dst, src=dst, op0=r.choice(ARITH), operand0=sp.scalar()))
        elif k == "shift" and f >= 2:
            body.append(op("tensor_copy", dst=dst, src=src))
            s = r.randrange(1, f)
            body.append(op("tensor_tensor", dst="%s[%s, %d:%d]" % (nt, tr, s, f),
                           a="%s[%s, 0:%d]" % (nt, tr, f - s), b="%s[%s, %d:%d]" % (nt, tr, s, f),
                           op=r.choice(("add", "maximum", "subtract"))))
        elif k == "select" and select_ok(curd):
            preds = ["p >= f", "f < 3", "p * 2 != f + 1", "p + f <= 40", "p % 3 == f % 2", "f - p > -5"]
            if rows.var:
                v = rows.var
                preds += ["%s*128 + p >= f" % v, "f + %s > 2" % v, "%s * 3 + p * 2 < f * 5" % v]
            fills = ("-inf", "0.0", "-2.5", "1e30") if float_like(curd) else ("0.0", "-3.0", "100.0")
            body.append(op("affine_select", dst=dst, src=src, pred=r.choice(preds),
                           fill=sp.fexpr(rows.var) if r.random() < 0.3 else r.choice(fills)))
        elif k == "scan":
            a, b = const_srcs(sp, src, [P, f], "%s, :" % tr)
            body.append(op("tensor_tensor_scan", dst=dst, a=a, b=b,
                           initial=(r.choice(cols) + "[%s, :]" % tr) if cols and r.random() < 0.5
                           else sp.fexpr(rows.var) if r.random() < 0.3 else r.choice(("0.0", "1.0", "-2.0")),
                           op0=r.choice(("multiply", "add", "maximum")), op1=r.choice(("add", "maximum", "subtract"))))
        elif k == "shift2" and f >= 2:
            # operands overlapping at a shift in either direction, on several engines
            body.append(op("tensor_copy", dst=dst, src=src))
            s = r.randrange(1, min(f, 4))
            lo, hi = "%s[%s, %d:%d]" % (nt, tr, 0, f - s), "%s[%s, %d:%d]" % (nt, tr, s, f)
            w, rd = (hi, lo) if r.random() < 0.7 else (lo, hi)
            kk = r.choice(("copy", "ts", "act", "tt"))
            if kk == "copy":
                body.append(op("tensor_copy", dst=w, src=rd))
            elif kk == "ts":
                body.append(op("tensor_scalar", dst=w, src=rd, op0=r.choice(ARITH), operand0=sp.scalar()))
            elif kk == "act":
                body.append(op("activation", dst=w, src=rd, func=r.choice(("copy", "relu", "square", "abs"))))
            else:
                body.append(op("tensor_tensor", dst=w, a=rd, b=w, op=r.choice(("add", "maximum", "multiply"))))
        elif k == "bits" and is_int(curd):
            # integer tiles: bitwise ALU ops, shifts, integer casts
            a0 = r.choice(BITWISE)
            body.append(op("tensor_scalar", dst=dst, src=src, op0=a0,
                           operand0=str(r.randrange(0, 9)) if "shift" in a0 else r.choice(("1", "255", "7", "-1", "65535"))))
            if r.random() < 0.5:
                body.append(op("tensor_tensor", dst=dst, a=dst, b=src, op=r.choice(BITWISE[:3])))
        elif k == "where":
            # select (nl.where): each operand the current tile, the other row tile, a column or a number
            def operand():
                c = r.random()
                if c < 0.4:
                    return src
                if c < 0.55 and other is not None:
                    return "%s[%s, :]" % (other, tr)
                if c < 0.75 and cols:
                    return r.choice(cols) + "[%s, :]" % tr
                return r.choice(("0.0", "1.0", "-2.5", "-inf", "3.0")) if r.random() < 0.7 else sp.scalar()
            body.append(op("select", dst=dst, pred=operand(), on_true=operand(), on_false=operand()))
        elif k == "stt":
            # scalar_tensor_tensor: (src op0 operand0) op1 b
            b = other if other is not None and r.random() < 0.5 else cur
            fl = dict(dst=dst, src=src, op0=r.choice(ARITH),
                      operand0=r.choice(cols) + "[%s, :]" % tr if cols and r.random() < 0.4 else sp.scalar(),
                      op1=r.choice(ARITH), b="%s[%s, :]" % (b, tr))
            if r.random() < 0.3:
                fl["reverse0"] = True
            body.append(op("scalar_tensor_tensor", **fl))
        elif k == "top8" and f >= 8:
            # max8, then where those values are (nc_find_index8) and/or the row
            # without them (nc_match_replace8); a narrower max8 dst may round
            # values away (not found: the all-ones index)
            mx = sp.tile(r.choice(("float32", curd, sp.dtype())), [P, 8], sp.bufs())
            body.append(op("max8", dst="%s[%s, :]" % (mx, tr), src=src))
            wides.append(mx)
            kk = r.choice(("find", "match", "both"))
            if kk != "match":
                ix = sp.tile(r.choice(("uint32", "uint16")), [P, 8], sp.bufs())
                body.append(op("nc_find_index8", dst="%s[%s, :]" % (ix, tr), src=src, values="%s[%s, :]" % (mx, tr)))
                wides.append(ix)
            if kk != "find":
                body.append(op("nc_match_replace8", dst=dst, src=src, values="%s[%s, :]" % (mx, tr),
                               imm=r.choice(("-inf", "0.0", "-1e30", "7.0")) if r.random() < 0.7 else sp.scalar()))
            else:
                body.append(op("tensor_copy", dst=dst, src=src))
        elif k == "colop":
            # one element per partition of the current tile as the [P,1] operand
            j = r.randrange(0, f)
            body.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH),
                           operand0="%s[%s, %d:%d]" % (cur, tr, j, j + 1)))
        else:
            body.append(op("iota", dst=dst, expr=r.choice(("p * 3 - f", "f", "p + f * 2 - 50", "p * 1000 - f * 300",
                                                           "%s * 7 + p" % rows.var if rows.var else "p"))))
            body.append(op("tensor_tensor", dst=dst, a=dst, b=src, op=r.choice(ARITH)))
        cur, curd = nt, nd
    # stores
    yd = sp.dtype()
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
        body.append(op("store", dst="%s[%s, :]" % (y, pr), src=rows.dma_tile(sp, cur)))
        if sk == "twoout":
            y2 = sp.out(curd, [n, f])
            body.append(op("store", dst="%s[%s, :]" % (y2, pr), src="%s[%s, :]" % (cur, tr)))
    for c in cols:
        if r.random() < 0.6:
            cd = u_dtype(sp, c)
            yc = sp.out(cd, [n, 1])
            body.append(op("store", dst="%s[%s, :]" % (yc, pr), src="%s[%s, :]" % (c, tr)))
    for c in wides:  # [P,8] results of max8 / nc_find_index8
        yc = sp.out(u_dtype(sp, c), [n, 8])
        body.append(op("store", dst="%s[%s, :]" % (yc, pr), src="%s[%s, :]" % (c, tr)))
    sp.body += rows.wrap(body, sp=sp)


# --- block: per-partition small matrices transposed by loops of copies --------

def block_transpose(sp):
    r = sp.r
    n = r.choice((128, 128, 256, 64, 200))
    rows = Rows(r, n)
    pr, tr = rows.hbm, rows.til
    P = rows.tile_rows()
    R, C = r.choice((1, 2, 3, 5, 8, 9, 12, 16, 17)), r.choice((1, 2, 4, 7, 8, 16, 20, 24))
    d = r.choice(("float32", "float32", "int32", "int32", "bfloat16"))
    td = d if r.random() < 0.8 else sp.dtype()
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
        body.append(op("memset", dst="%s[%s, :, :]" % (yt, tr),
                       value=sp.fexpr(rows.var) if r.random() < 0.3 else r.choice(("-1.5", "0.0", "7.0"))))
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
    sp.body += rows.wrap(body, sp=sp)


# --- block: carried accumulation over column chunks, read after the loop ------

def block_carried(sp):
    r = sp.r
    P = r.choice((128, 128, 64, 7))
    W = r.choice((1, 4, 16, 32))
    K = r.choice((1, 2, 3, 5))
    d = sp.dtype()
    x = sp.inp(d, [P, K * W])
    acc = sp.tile(r.choice(("float32", "float32", "bfloat16", "int32")), [P, W])
    xc = sp.tile(sp.dtype(), [P, W], sp.bufs())
    c = "c%d" % r.randrange(1000)
    sp.body.append(op("memset", dst=acc, value=sp.fexpr() if r.random() < 0.3 else r.choice(("0.0", "-inf", "1.0"))))
    inner = [op("load", dst=xc, src="%s[:, %s*%d : %s*%d+%d]" % (x, c, W, c, W, W)),
             op("tensor_tensor", dst=acc, a=acc, b=xc, op=r.choice(("add", "maximum", "minimum", "subtract")))]
    ys = None
    if r.random() < 0.4:
        ys = sp.out(d, [P, K * W])
        inner.append(op("store", dst="%s[:, %s*%d : %s*%d+%d]" % (ys, c, W, c, W, W), src=acc))
    sp.body.append(loop(c, K if r.random() < 0.7 else [0, K], inner, carried=True))
    o = sp.tile(sp.dtype(), [P, W])
    sp.body.append(op("tensor_scalar", dst=o, src=acc, op0=r.choice(ARITH), operand0=sp.scalar()))
    y = sp.out(sp.dtype(), [P, W])
    sp.body.append(op("store", dst=y, src=o))


# --- block: an output stored, loaded back, stored again -----------------------

def block_readback(sp):
    r = sp.r
    n, f, rows, pr, tr, P = row_setup(sp)
    d = sp.dtype()
    x = sp.inp(d, [n, f])
    a = sp.tile(sp.dtype(), [P, f], sp.bufs())
    b = sp.tile(sp.dtype(), [P, f], sp.bufs())
    y1 = sp.out(sp.dtype(), [n, f])
    y2 = sp.out(sp.dtype(), [n, f])
    body = [op("load", dst="%s[%s, :]" % (a, tr), src="%s[%s, :]" % (x, pr)),
            op("store", dst="%s[%s, :]" % (y1, pr), src="%s[%s, :]" % (a, tr)),
            op("load", dst="%s[%s, :]" % (b, tr), src="%s[%s, :]" % (y1, pr)),
            op("tensor_scalar", dst="%s[%s, :]" % (b, tr), src="%s[%s, :]" % (b, tr),
               op0=r.choice(ARITH), operand0=sp.scalar()),
            op("store", dst="%s[%s, :]" % (y2, pr), src="%s[%s, :]" % (b, tr))]
    sp.body += rows.wrap(body, sp=sp)


# --- block: ops reading every second element of a row ---------------------------
# (the C back end gathers such a source into a contiguous row first when the row
# has 16 or more of them: gen/emit.c operand's stage; from HBM when the load is
# read through, else from SBUF)

def block_strided(sp):
    r = sp.r
    n, _, rows, pr, tr, P = row_setup(sp)
    f = r.choice((20, 32, 33, 40, 64, 101, 202))
    xd = sp.dtype()
    x = sp.inp(xd, [n, f])
    t = sp.tile(xd if r.random() < 0.7 else sp.dtype(), [P, f], sp.bufs())
    body = [op("load", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (x, pr))]
    for _ in range(r.randrange(1, 3)):
        off = r.randrange(0, 2)
        fh = len(range(off, f, 2))
        hd = sp.dtype()
        ht = sp.tile(hd, [P, fh], sp.bufs())
        hs, hdst = "%s[%s, %d:%d:2]" % (t, tr, off, f), "%s[%s, :]" % (ht, tr)
        hb = "%s[%s, %d:%d:2]" % (t, tr, 1 - off, f) if f % 2 == 0 and r.random() < 0.5 else hs
        how = r.choice(("tt", "ts", "recip", "copy", "where", "stt"))
        if how == "tt":
            body.append(op("tensor_tensor", dst=hdst, a=hs, b=hb, op=r.choice(ARITH + CMP)))
        elif how == "ts":
            body.append(op("tensor_scalar", dst=hdst, src=hs, op0=r.choice(ARITH), operand0=sp.scalar()))
        elif how == "recip":
            body.append(op("reciprocal", dst=hdst, src=hs))
        elif how == "copy":
            body.append(op("tensor_copy", dst=hdst, src=hs))
        elif how == "where":
            body.append(op("select", dst=hdst, pred=hs, on_true=hb, on_false=sp.scalar()))
        else:
            body.append(op("scalar_tensor_tensor", dst=hdst, src=hs, op0=r.choice(ARITH), operand0=sp.scalar(),
                           op1=r.choice(ARITH), b=hb))
        yh = sp.out(hd, [n, fh])
        body.append(op("store", dst="%s[%s, :]" % (yh, pr), src=hdst))
    sp.feat.add("strided-source")
    sp.body += rows.wrap(body, sp=sp)


# --- block: consecutive elementwise statements ---------------------------------
# (the C back end runs them as one loop when every access of a later one meets
# an earlier one's at the same element or not at all: gen/emit.c chain_run;
# fp32 temporaries nothing else reads are kept as values, not stored. Shifted
# slices, overwrites of earlier temporaries and scalar operands from earlier
# results are the cases it must leave apart)

def block_chain(sp):
    r = sp.r
    n, f, rows, pr, tr, P = row_setup(sp)
    xd = sp.dtype()
    x = sp.inp(xd, [n, f])
    t = sp.tile(xd, [P, f], sp.bufs())
    body = [op("load", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (x, pr))]
    temps = [t]   # [P, f] tiles, every element written in the iteration
    reads = [t]   # and a broadcast row, loaded once before the loop (never written in it)
    if r.random() < 0.4:
        gt = sp.tile(sp.dtype(), [P, f])
        sp.body.append(op("load", dst=gt, **broadcast_load(sp, f, str(f))))
        reads.append(gt)

    def sl(tile, lo, w):
        return "%s[%s, %d:%d]" % (tile, tr, lo, lo + w)
    for _ in range(r.randrange(2, 7)):
        # the run's width: whole rows mostly, else one column short (a shift)
        w = f - 1 if f >= 3 and r.random() < 0.3 else f
        a = r.choice(reads)
        sa = sl(a, r.randrange(0, f - w + 1), w)
        how, nt = r.random(), None
        if how < 0.6 or w < f:       # a new temporary (whole), or over an earlier one (at a shift)
            if w == f:
                d = "float32" if r.random() < 0.85 else sp.dtype(FLOATS)
                nt = sp.tile(d, [P, f], sp.bufs())
                dst = sl(nt, 0, f)
            else:
                dst = sl(r.choice(temps), r.randrange(0, 2), w)
        else:                           # an earlier temporary overwritten whole (maybe in place)
            dst = sl(a if a in temps and r.random() < 0.5 else r.choice(temps), 0, f)
        if r.random() < 0.5:
            b = sl(r.choice(reads), r.randrange(0, f - w + 1), w)
            body.append(op("tensor_tensor", dst=dst, a=sa, b=b, op=r.choice(ARITH)))
        else:
            o0 = sl(r.choice(reads), r.randrange(0, f), 1) if r.random() < 0.3 else sp.scalar()
            fl = dict(dst=dst, src=sa, op0=r.choice(ARITH), operand0=o0)
            if r.random() < 0.4:
                fl["op1"] = r.choice(ARITH)
                fl["operand1"] = sp.scalar()
            body.append(op("tensor_scalar", **fl))
        if nt:
            temps.append(nt)   # after its sources were picked: nothing reads it before it is written
            reads.append(nt)
    for tt in r.sample(temps[1:], min(len(temps) - 1, r.randrange(1, 3))) or [temps[0]]:
        y = sp.out(u_dtype(sp, tt), [n, f])
        body.append(op("store", dst="%s[%s, :]" % (y, pr), src="%s[%s, :]" % (tt, tr)))
    sp.feat.add("chain")
    sp.body += rows.wrap(body, sp=sp)


# --- block: an activation's row sum into a narrow dst --------------------------

def block_actsum(sp):
    """An activation with a reduce (add mostly) whose dst is bf16, fp16, fp8 or
    fp32: rows of 1 to 512 elements (kept whole for the lanes' fold), longer
    ones of whole 64-element chunks (column blocks) and not, two free dims,
    the source a part of a wider tile (loops that do not merge), with or
    without a bias column (sometimes a column of the dst itself), the sum
    stored; 30 % of the time a
    tensor_scalar with an accumulate instead (its operand the bias column or a
    number)."""
    r = sp.r
    n, _, rows, pr, tr, P = row_setup(sp)
    kind = r.choice(("short", "short", "long", "two"))
    if kind == "short":
        shape = [r.choice((1, 16, 37, 64, 100, 256, 512))]
    elif kind == "long":
        shape = [r.choice((576, 640, 1024, 1000, 1088))]
    else:
        shape = [r.choice((2, 3)), r.choice((5, 37, 64))]
    free = ", ".join(":" for _ in shape)
    xd = r.choice(("float32", "float32", "bfloat16", "float16"))
    # a wider tile read in part: two free loops that do not merge
    wide = shape[:-1] + [shape[-1] + r.choice((0, 0, 3, 64))]
    part = ", ".join([":"] * (len(shape) - 1) + ["0:%d" % shape[-1]])
    x = sp.inp(xd, [n] + wide, 0.8)
    t = sp.tile(xd, [P] + wide, sp.bufs())
    body = [op("load", dst="%s[%s, %s]" % (t, tr, free), src="%s[%s, %s]" % (x, pr, free))]
    fields = {}
    if r.random() < 0.5:
        b = sp.inp("float32", [n, 1], 0.8)
        bt = sp.tile("float32", [P, 1], sp.bufs())
        body.append(op("load", dst="%s[%s, :]" % (bt, tr), src="%s[%s, :]" % (b, pr)))
        fields["bias"] = "%s[%s, :]" % (bt, tr)
    if r.random() < 0.5:
        fields["scale"] = r.choice(("0.5", "-1.0", "0.125", "2.0"))
    ed = r.choice(("bfloat16", "bfloat16", "float16", "float8_e4m3", "float8_e5m2", "float32"))
    e = sp.tile(ed, [P] + shape, sp.bufs())
    col = sp.tile("float32", [P, 1], sp.bufs())
    bias_on_dst = len(shape) == 1 and ed in ("float32", "bfloat16", "float16") and r.random() < 0.2
    if bias_on_dst:
        # the bias a column of the dst (written first)
        body.append(op("memset", dst="%s[%s, :]" % (e, tr), value=r.choice(("0.5", "-1.0"))))
        fields["bias"] = "%s[%s, 0:1]" % (e, tr)
    rop = r.choice(("add", "add", "add", "maximum"))
    ts = r.random() < 0.3  # tensor_scalar's accumulate instead
    if ts:
        # a quarter of the time a square by power 2 (kernel.c.j2 pow2_rows, and
        # pow2_cols over the long rows: flagged elements computed again)
        sq = r.random() < 0.25
        body.append(op("tensor_scalar", dst="%s[%s, %s]" % (e, tr, free), src="%s[%s, %s]" % (t, tr, part),
                       op0="power" if sq else r.choice(ARITH),
                       operand0="2.0" if sq else fields.get("bias", sp.scalar()),
                       accumulate={"op": rop, "dst": "%s[%s, :]" % (col, tr)}))
    else:
        body.append(op("activation", dst="%s[%s, %s]" % (e, tr, free), src="%s[%s, %s]" % (t, tr, part),
                       func=r.choice(("exp", "exp", "copy", "tanh", "sigmoid", "square", "silu", "abs")),
                       reduce={"op": rop, "dst": "%s[%s, :]" % (col, tr)}, **fields))
    # a third of the time only the sum is stored: the dst is discarded (an
    # activation on whole contiguous rows then folds staged blocks, kernel.c.j2
    # act_staged)
    keep = bias_on_dst or r.random() < 0.67
    if keep:
        ye = sp.out(ed, [n] + shape)
        body.append(op("store", dst="%s[%s, %s]" % (ye, pr, free), src="%s[%s, %s]" % (e, tr, free)))
    ys = sp.out("float32", [n, 1])
    body.append(op("store", dst="%s[%s, :]" % (ys, pr), src="%s[%s, :]" % (col, tr)))
    sp.feat.add(("ts" if ts else "act") + "-sum-" + ("f32" if ed == "float32" else "narrow") + "-" + kind +
                ("" if keep else "-discard"))
    sp.body += rows.wrap(body, sp=sp)


# --- block: per-chunk folds on few partitions (emit.c iter_lanes) -------------

def block_chunkfold(sp):
    """A loop over C chunks of a [P, C*W] input, P of 1 to 10: each chunk's
    tensor_reduce (add, subtract, multiply; sometimes max), activation
    reduce or tensor_scalar accumulate (its elementwise result stored or
    not) into column c of a partials tile, or every iteration into column 0; the chunk loaded in
    the loop (forwarded: the fold reads the input) or sliced from a tile
    loaded before it. Sometimes an op in the loop reads the partial back, or
    scales the loaded chunk in place after the fold (both keep the fold in the
    loop). The partials stored, and sometimes summed after the loop."""
    r = sp.r
    P, C, W = r.choice((1, 2, 3, 5, 8, 10)), r.choice((2, 3, 7, 16)), r.choice((1, 5, 33, 64, 200))
    d = r.choice(("float32", "float32", "bfloat16", "float16"))
    x = sp.inp(d, [P, C * W], 0.8)
    i = "c%d" % r.randrange(1000)
    chunk = "%s*%d : %s*%d+%d" % (i, W, i, W, W)
    part = sp.tile("float32", [P, C])
    col = "%s[:, %s : %s+1]" % (part, i, i)
    if r.random() < 0.15:  # every iteration into column 0; the others set before the loop
        col = "%s[:, 0:1]" % part
        sp.body.append(op("memset", dst=part, value="0.0"))
    body, pre = [], r.random() < 0.3
    if pre:
        xt = sp.tile(d, [P, C * W])
        sp.body.append(op("load", dst=xt, src=x))
        src = "%s[:, %s]" % (xt, chunk)
    else:
        xt = sp.tile(d, [P, W], sp.bufs())
        body.append(op("load", dst=xt, src="%s[:, %s]" % (x, chunk)))
        src = xt
    kind = r.choice(("reduce", "reduce", "act", "ts"))
    if kind == "reduce":
        body.append(op("tensor_reduce", dst=col, src=src, op=r.choice(("add", "add", "subtract", "multiply", "maximum"))))
    else:  # an activation's reduce or a tensor_scalar's accumulate, its elementwise dst stored or not
        e = sp.tile(r.choice(("float32", "bfloat16")), [P, W], sp.bufs())
        red = {"op": r.choice(("add", "add", "maximum")), "dst": col}
        if kind == "act":
            body.append(op("activation", dst=e, src=src, func=r.choice(("exp", "square", "copy", "tanh")),
                           scale=r.choice(("0.5", "1.0", "-0.25")), reduce=red))
        else:
            body.append(op("tensor_scalar", dst=e, src=src, op0=r.choice(("multiply", "add", "power")),
                           operand0=r.choice(("2.0", "0.5", "-1.5")), accumulate=red))
        if r.random() < 0.5:
            ye = sp.out(sp.tiles[-1][2], [P, C * W])
            body.append(op("store", dst="%s[:, %s]" % (ye, chunk), src=e))
    extra, back = r.random(), None
    if extra < 0.2:  # reads the partial back
        back = sp.tile("float32", [P, C])
        body.append(op("tensor_scalar", dst="%s[:, %s : %s+1]" % (back, i, i), src=col, op0="multiply", operand0="2.0"))
    elif extra < 0.3 and not pre:  # writes the fold's source
        body.append(op("tensor_scalar", dst=xt, src=xt, op0="multiply", operand0="0.5"))
    sp.body.append(loop(i, C, body))
    sp.body.append(op("store", dst=sp.out("float32", [P, C]), src=part))
    if back:
        sp.body.append(op("store", dst=sp.out("float32", [P, C]), src=back))
    if r.random() < 0.4:
        tot = sp.tile("float32", [P, 1])
        sp.body.append(op("tensor_reduce", dst=tot, src=part, op="add"))
        sp.body.append(op("store", dst=sp.out("float32", [P, 1]), src=tot))
    sp.feat.add("chunkfold")


# --- block: a load transposed by the DMA ---------------------------------------

def block_tload(sp):
    r = sp.r
    if r.random() < 0.3:
        return block_tload_sunk(sp)
    A, B = r.choice((1, 8, 33, 64, 128, 200)), r.choice((1, 4, 32, 100, 128))
    d = sp.dtype()
    x = sp.inp(d, [A, B])
    t = sp.tile(sp.dtype(), [B, A])
    sp.body.append(op("load", dst=t, src="%s[:, :]" % x, transpose=True))
    u = sp.tile(sp.dtype(), [B, A])
    sp.body.append(op("activation", dst=u, src=t, func=r.choice(FUNCS)))
    if r.random() < 0.5:
        y = sp.out(sp.dtype(), [B, A])
        sp.body.append(op("store", dst=y, src=u))
    else:  # and back: the transposed store
        sp.feat.add("store-transpose")
        y = sp.out(sp.dtype(), [A, B])
        sp.body.append(op("store", dst="%s[:, :]" % y, src=u, transpose=True))


def block_tload_sunk(sp):
    """Row blocks of 128 of an [A, B] input loaded transposed into a tile that
    only feeds a store: the store sinks and the load moves HBM to HBM, its
    sides' counts written differently (the tile region's min(128, A - i*128),
    the input's min(i*128+128, A) - i*128); the last block ragged when A is
    not a multiple of 128."""
    r = sp.r
    A, B = r.choice((130, 200, 256, 300)), r.choice((2, 33, 64, 100, 128))
    d = sp.dtype()
    sp.feat.add("tload-sunk")
    x = sp.inp(d, [A, B])
    y = sp.out(d, [B, A])
    t = sp.tile(d, [B, 128], r.choice((1, 2)))
    i = "i%d" % r.randrange(1000)
    tr = "%s[:, 0 : min(128, %d - %s*128)]" % (t, A, i)
    sp.body.append(loop(i, (A + 127) // 128, [
        op("load", dst=tr, src="%s[%s*128 : min(%s*128+128, %d), :]" % (x, i, i, A), transpose=True),
        op("store", dst="%s[:, %s*128 : min(%s*128+128, %d)]" % (y, i, i, A), src=tr)]))


# --- block: a tile read after the loop that wrote it --------------------------

def block_after(sp):
    r = sp.r
    f = pick_f(r)
    T = r.choice((1, 2, 3))
    d = sp.dtype()
    x = sp.inp(d, [128 * T, f])
    t = sp.tile(sp.dtype(), [128, f])
    i = "j%d" % r.randrange(1000)
    sp.body.append(loop(i, T, [op("load", dst=t, src="%s[%s*128 : %s*128+128, :]" % (x, i, i))]))
    u = sp.tile(sp.dtype(), [128, f])
    sp.body.append(op("tensor_scalar", dst=u, src=t, op0=r.choice(ARITH), operand0=sp.scalar()))
    y = sp.out(sp.dtype(), [128, f])
    sp.body.append(op("store", dst=y, src=u))


# --- block: partition and column sub-ranges, overlapping writers of a stored tile

def block_subpart(sp):
    r = sp.r
    f = pick_f(r)
    d = sp.dtype()
    x = sp.inp(d, [128, f])
    t = sp.tile(d, [128, f])
    sp.body.append(op("load", dst=t, src=x))
    u = sp.tile(sp.dtype(), [128, f])
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
        k = r.choice(("ts", "copy", "iota") + (("select",) if select_ok(d) else ()) + (("act",) if bias_ok(d) else ()))
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


# --- PSUM results taken out by the Vector or Scalar engine --------------------

def evacuate(sp, src, shape, extra=None):
    """Ops reading the PSUM region `src` of `shape` into a new SBUF tile;
    `extra` is an SBUF tile of the same shape a tensor_tensor may pair with.
    Returns (ops, tile)."""
    r = sp.r
    o = sp.tile(sp.dtype(FLOATS if r.random() < 0.8 else ALL), shape)
    k = r.choice(("copy", "copy", "act", "ts", "tt" if extra else "copy"))
    if k == "copy":
        return [op("tensor_copy", dst=o, src=src)], o
    if k == "act":
        fl = dict(dst=o, src=src, func=r.choice(FUNCS))
        if r.random() < 0.5:
            fl["scale"] = r.choice(("0.125", "-1.0", "0.08838834764831845"))
        return [op("activation", **fl)], o
    if k == "ts":
        return [op("tensor_scalar", dst=o, src=src, op0=r.choice(ARITH), operand0=sp.scalar())], o
    return [op("tensor_tensor", dst=o, a=src, b=extra, op=r.choice(ARITH))], o


def mm_dtypes(sp):
    """(stationary, moving) dtypes matmul accepts: fp32 pairs only with fp32."""
    r = sp.r
    if r.random() < 0.3:
        return "float32", "float32"
    lo = ("bfloat16", "bfloat16", "float16", "float8_e4m3", "float8_e5m2")
    a = r.choice(lo)
    return a, (a if r.random() < 0.6 else r.choice(lo))


# --- block: matmul over a carried K loop, stationary column blocks ------------

def block_matmul(sp):
    r = sp.r
    K = r.choice((128, 128, 64, 37, 1, 100))
    M = r.choice((128, 128, 64, 1, 17, 100))
    N = r.choice((512, 128, 256, 1, 33, 500, 64))
    KC = r.choice((1, 2, 3))
    MT = r.choice((1, 1, 2))
    da, db = mm_dtypes(sp)
    a = sp.inp(da if r.random() < 0.7 else sp.dtype(FLOATS), [KC * K, MT * M], 0.8)
    b = sp.inp(db if r.random() < 0.7 else sp.dtype(FLOATS), [KC * K, N], 0.8)
    off = r.choice((1, 7, 64)) if N + 64 <= 512 and r.random() < 0.3 else 0
    acc = sp.psum_tile([M, N + off])
    if off:     # the result in a column range of a wider PSUM tile
        acc = "%s[:, %d:%d]" % (acc, off, off + N)
    y = sp.out(sp.dtype(), [MT * M, N])
    m = "m%d" % r.randrange(1000)
    k = "k%d" % r.randrange(1000)
    stat = lambda t, kk: "%s[:, %s, %s*%d : %s*%d+%d]" % (t, kk, m, M, m, M, M)
    if r.random() < 0.5:
        # everything resident: [K, KC, *] tiles loaded by a loop, as specs/matmul.yaml
        at = sp.tile(da, [K, KC, MT * M])
        bt = sp.tile(db, [K, KC, N])
        sp.body.append(loop(k, KC, [op("load", dst="%s[:, %s, :]" % (at, k), src="%s[%s*%d : %s*%d+%d, :]" % (a, k, K, k, K, K)),
                                    op("load", dst="%s[:, %s, :]" % (bt, k), src="%s[%s*%d : %s*%d+%d, :]" % (b, k, K, k, K, K))]))
        body = [op("matmul", dst=acc, stationary=stat(at, 0), moving="%s[:, 0, :]" % bt, accumulate=False)]
        if KC > 1:
            body.append(loop(k, [1, KC], [op("matmul", dst=acc, stationary=stat(at, k), moving="%s[:, %s, :]" % (bt, k),
                                                accumulate=True)], carried=True))
    else:
        # streamed: each K slab loaded inside the carried loop
        at = sp.tile(da, [K, M], sp.bufs())
        bt = sp.tile(db, [K, N], sp.bufs())
        ld = lambda kk: [op("load", dst=at, src="%s[%s*%d : %s*%d+%d, %s*%d : %s*%d+%d]" % (a, kk, K, kk, K, K, m, M, m, M, M)),
                         op("load", dst=bt, src="%s[%s*%d : %s*%d+%d, :]" % (b, kk, K, kk, K, K))]
        body = ld(0) + [op("matmul", dst=acc, stationary=at, moving=bt, accumulate=False)]
        if KC > 1:
            body.append(loop(k, [1, KC], ld(k) + [op("matmul", dst=acc, stationary=at, moving=bt, accumulate=True)],
                             carried=True))
    extra = None
    if r.random() < 0.3:
        e = sp.inp(sp.dtype(), [MT * M, N])
        extra = sp.tile(sp.dtype(), [M, N])
        body.append(op("load", dst=extra, src="%s[%s*%d : %s*%d+%d, :]" % (e, m, M, m, M, M)))
    ops, o = evacuate(sp, acc, [M, N], extra)
    body += ops
    body.append(op("store", dst="%s[%s*%d : %s*%d+%d, :]" % (y, m, M, m, M, M), src=o))
    sp.body.append(loop(m, MT, body))


# --- block: ragged matmul (K or M varies between iterations) ------------------

def block_matmul_ragged(sp):
    """A ragged contraction: K = min(128, Kt - k*128) partitions per slab."""
    r = sp.r
    Kt = r.choice((200, 300, 129))
    M, N = r.choice((64, 128)), r.choice((32, 128))
    da, db = mm_dtypes(sp)
    a, b = sp.inp(da, [Kt, M], 0.8), sp.inp(db, [Kt, N], 0.8)
    at, bt = sp.tile(da, [128, M], 2), sp.tile(db, [128, N], 2)
    acc = sp.psum_tile([M, N])
    k = "k%d" % r.randrange(1000)
    kr = "0 : min(128, %d - %s*128)" % (Kt, k)
    sp.body.append(op("memset", dst=at, value="0.0"))
    sp.body.append(op("memset", dst=bt, value="0.0"))
    sp.body.append(loop(k, (Kt + 127) // 128, [
        op("load", dst="%s[%s, :]" % (at, kr), src="%s[%s*128 : min(%s*128+128, %d), :]" % (a, k, k, Kt)),
        op("load", dst="%s[%s, :]" % (bt, kr), src="%s[%s*128 : min(%s*128+128, %d), :]" % (b, k, k, Kt)),
        op("matmul", dst=acc, stationary="%s[%s, :]" % (at, kr), moving="%s[%s, :]" % (bt, kr), accumulate=True)],
        carried=True))
    ops, o = evacuate(sp, acc, [M, N])
    sp.body += ops
    y = sp.out(u_dtype(sp, o), [M, N])
    sp.body.append(op("store", dst=y, src=o))


def block_matmul_ragged_mn(sp):
    """Ragged output blocks: M = min(MW, Mt - m*MW) stationary columns and
    N = min(NW, Nt - n*NW) moving columns per block, over a K loop whose
    first slab overwrites PSUM; evacuated and stored by the same regions."""
    r = sp.r
    MW, NW = r.choice((128, 64, 16)), r.choice((512, 128, 33))
    Mt = MW * r.choice((0, 1)) + r.randrange(1, MW)
    Nt = NW * r.choice((0, 1)) + r.randrange(1, NW)
    K, KC = r.choice((128, 64, 5)), r.choice((1, 2))
    da, db = mm_dtypes(sp)
    a, b = sp.inp(da, [KC * K, Mt], 0.8), sp.inp(db, [KC * K, Nt], 0.8)
    at, bt = sp.tile(da, [K, MW], sp.bufs()), sp.tile(db, [K, NW], sp.bufs())
    acc = sp.psum_tile([MW, NW])
    o = sp.tile(sp.dtype(FLOATS if r.random() < 0.8 else ALL), [MW, NW], sp.bufs())
    y = sp.out(u_dtype(sp, o), [Mt, Nt])
    m, n, k = "m%d" % r.randrange(1000), "n%d" % r.randrange(1000), "k%d" % r.randrange(1000)
    mr, nr = "0 : min(%d, %d - %s*%d)" % (MW, Mt, m, MW), "0 : min(%d, %d - %s*%d)" % (NW, Nt, n, NW)
    mh, nh = "%s*%d : min(%s*%d+%d, %d)" % (m, MW, m, MW, MW, Mt), "%s*%d : min(%s*%d+%d, %d)" % (n, NW, n, NW, NW, Nt)
    sp.feat.add("ragged-free")
    sp.feat.add("ragged-partition")

    def slab(kk, first):
        return [op("load", dst="%s[:, %s]" % (at, mr), src="%s[%s*%d : %s*%d+%d, %s]" % (a, kk, K, kk, K, K, mh)),
                op("load", dst="%s[:, %s]" % (bt, nr), src="%s[%s*%d : %s*%d+%d, %s]" % (b, kk, K, kk, K, K, nh)),
                op("matmul", dst="%s[%s, %s]" % (acc, mr, nr), stationary="%s[:, %s]" % (at, mr),
                   moving="%s[:, %s]" % (bt, nr), accumulate=not first)]
    body = slab("0", True)
    if KC > 1:
        body.append(loop(k, [1, KC], slab(k, False), carried=True))
    ev = r.choice(("copy", "act", "ts"))
    src, dst = "%s[%s, %s]" % (acc, mr, nr), "%s[%s, %s]" % (o, mr, nr)
    if ev == "copy":
        body.append(op("tensor_copy", dst=dst, src=src))
    elif ev == "act":
        body.append(op("activation", dst=dst, src=src, func=r.choice(FUNCS), scale=sp.scalar()))
    else:
        body.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH), operand0=sp.scalar()))
    body.append(op("store", dst="%s[%s, %s]" % (y, mh, nh), src=dst))
    sp.body.append(loop(m, (Mt + MW - 1) // MW, [loop(n, (Nt + NW - 1) // NW, body)]))


# --- block: Tensor-engine transposes through PSUM -----------------------------

def block_pe_transpose(sp):
    r = sp.r
    P = r.choice((128, 64, 37, 1, 100))
    F = r.choice((128, 64, 1, 17, 100, 32))
    J = r.choice((1, 1, 2, 3))
    d = sp.dtype(FLOATS) if r.random() < 0.9 else sp.dtype(INTS)
    x = sp.inp(d if r.random() < 0.7 else sp.dtype(), [P, J * F], 0.5)
    t = sp.tile(d, [P, J * F])
    sp.body.append(op("load", dst=t, src=x))
    ps = sp.psum_tile([F, P])
    o = sp.tile(sp.dtype(), [F, J, P])
    j = "j%d" % r.randrange(1000)
    body = [op("transpose", dst=ps, src="%s[:, %s*%d : %s*%d+%d]" % (t, j, F, j, F, F))]
    k = r.choice(("copy", "copy", "act", "ts"))
    dst = "%s[:, %s, :]" % (o, j)
    if k == "copy":
        body.append(op("tensor_copy", dst=dst, src=ps))
    elif k == "act":
        body.append(op("activation", dst=dst, src=ps, func=r.choice(FUNCS)))
    else:
        body.append(op("tensor_scalar", dst=dst, src=ps, op0=r.choice(ARITH), operand0=sp.scalar()))
    sp.body.append(loop(j, J, body))
    y = sp.out(u_dtype(sp, o), [F, J, P])
    sp.body.append(op("store", dst=y, src=o))
    if J > 1 and sp.psum + J <= 6 and r.random() < 0.5:
        # the same transposes into one PSUM tile of J banks (SPEC.md §2.1),
        # each within its own bank, drained after the loop
        sp.feat.add("psum-banks")
        pw = sp.psum_tile([F, J * 512], J)
        o2 = sp.tile(sp.dtype(), [F, J, P])
        j2 = "j%d" % r.randrange(1000)
        sp.body.append(loop(j2, J, [op("transpose", dst="%s[:, %s*512 : %s*512+%d]" % (pw, j2, j2, P),
                                       src="%s[:, %s*%d : %s*%d+%d]" % (t, j2, F, j2, F, F))]))
        sp.body.append(loop(j2, J, [op("tensor_copy", dst="%s[:, %s, :]" % (o2, j2),
                                       src="%s[:, %s*512 : %s*512+%d]" % (pw, j2, j2, P))]))
        y2 = sp.out(u_dtype(sp, o2), [F, J, P])
        sp.body.append(op("store", dst=y2, src=o2))


# --- block: dma_copy between HBM and SBUF in every direction ------------------

def block_dma(sp):
    r = sp.r
    nx, f, rows, pr, tr, P = row_setup(sp)
    x = sp.inp(sp.dtype(), [nx, f])
    t = sp.tile(sp.dtype(), [P, f], sp.bufs())
    u = sp.tile(sp.dtype(), [P, f], sp.bufs())
    y = sp.out(sp.dtype(), [nx, f])
    body = [op("dma_copy", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (x, pr))]
    if r.random() < 0.5:
        body.append(op("tensor_scalar", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (t, tr),
                       op0=r.choice(ARITH), operand0=sp.scalar()))
    if f >= 2 and r.random() < 0.4:
        # SBUF -> SBUF in two column pieces swapped
        h = r.randrange(1, f)
        body.append(op("dma_copy", dst="%s[%s, 0:%d]" % (u, tr, f - h), src="%s[%s, %d:%d]" % (t, tr, h, f)))
        body.append(op("dma_copy", dst="%s[%s, %d:%d]" % (u, tr, f - h, f), src="%s[%s, 0:%d]" % (t, tr, h)))
    else:
        body.append(op("dma_copy", dst="%s[%s, :]" % (u, tr), src="%s[%s, :]" % (t, tr)))
    body.append(op("dma_copy", dst="%s[%s, :]" % (y, pr), src="%s[%s, :]" % (u, tr)))
    if r.random() < 0.4:
        y2 = sp.out(sp.dtype(), [nx, f])     # HBM -> HBM
        body.append(op("dma_copy", dst="%s[%s, :]" % (y2, pr), src="%s[%s, :]" % (x, pr)))
    sp.body += rows.wrap(body, sp=sp)
    if r.random() < 0.3:
        # the whole tensor HBM -> HBM in one copy: its rows (often more than 128)
        # are no partitions (the ISS and the timing model took only 128 once)
        y3 = sp.out(sp.dtype(), [nx, f])
        sp.body.append(op("dma_copy", dst=y3, src=x))


# --- block: HBM views (SPEC.md §2.1) ---------------------------------------------

SAME_SIZE = {4: ("float32", "int32", "uint32"), 2: ("bfloat16", "float16", "int16", "uint16"),
             1: ("float8_e4m3", "float8_e5m2", "int8", "uint8")}
SIZE = {d: k for k, ds in SAME_SIZE.items() for d in ds}


def block_view(sp):
    """An input read and an output written through views: a bitcast to a dtype of
    the same size and/or a reshape of the columns into [2, F/2] (3-D tiles); the
    data moves raw (maybe through a same-dtype op), so any bits may flow. Not in
    a grid, grid_prefix gives a view the program dimension of its base."""
    r = sp.r
    nx, f, rows, pr, tr, P = row_setup(sp)
    d = sp.dtype()
    vd = r.choice(SAME_SIZE[SIZE[d]])
    x = sp.inp(d, [nx, f])
    reshape = f % 2 == 0 and r.random() < 0.5
    vshape = [nx, 2, f // 2] if reshape else [nx, f]
    sel = ", :" * (len(vshape) - 1)
    xv = sp.view(x, vshape, vd if vd != d or not reshape else None)
    t = sp.tile(vd, [P] + vshape[1:], sp.bufs())
    body = [op("load", dst="%s[%s%s]" % (t, tr, sel), src="%s[%s%s]" % (xv, pr, sel))]
    if r.random() < 0.4:
        body.append(op("tensor_scalar", dst="%s[%s%s]" % (t, tr, sel), src="%s[%s%s]" % (t, tr, sel),
                       op0=r.choice(("add", "maximum", "minimum") if not float_like(vd) else ARITH),
                       operand0=sp.scalar() if float_like(vd) else r.randrange(0, 3)))
    yd = r.choice(SAME_SIZE[SIZE[d]])
    y = sp.out(yd, [nx, f])
    yv = sp.view(y, vshape, vd if vd != yd else None) if reshape or vd != yd else y
    body.append(op("store", dst="%s[%s%s]" % (yv, pr, sel), src="%s[%s%s]" % (t, tr, sel)))
    sp.feat.add("view-reshape" if reshape else "view-bitcast")
    sp.body += rows.wrap(body, sp=sp)


# --- block: HBM scratch (SPEC.md §2.1) -------------------------------------------

def block_scratch(sp):
    """Rows staged through a scratch tensor: stored to it, then read back (in
    the same loop, or in a second loop over the same rows once all are
    written), maybe through a bitcast or reshape view of it or by an HBM to HBM
    DMA, and stored to an output. Check refuses a read before a write (E078),
    so every read here follows the store of the same rows."""
    r = sp.r
    nx, f, rows, pr, tr, P = row_setup(sp)
    d = sp.dtype()
    x = sp.inp(d, [nx, f])
    s = sp.scratch_t(d, [nx, f])
    t = sp.tile(d, [P, f], sp.bufs())
    write = [op("load", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (x, pr))]
    if r.random() < 0.5 and float_like(d):
        write.append(op("tensor_scalar", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (t, tr),
                        op0=r.choice(ARITH), operand0=sp.scalar()))
    if r.random() < 0.25:
        write.append(op("dma_copy", dst="%s[%s, :]" % (s, pr), src="%s[%s, :]" % (x, pr)))
        sp.feat.add("scratch-hbm-copy")
    else:
        write.append(op("store", dst="%s[%s, :]" % (s, pr), src="%s[%s, :]" % (t, tr)))
    vd = r.choice(SAME_SIZE[SIZE[d]]) if r.random() < 0.4 else d
    reshape = f % 2 == 0 and r.random() < 0.4
    vshape = [nx, 2, f // 2] if reshape else [nx, f]
    src = s if vd == d and not reshape else sp.view(s, vshape, vd if vd != d else None)
    if src != s:
        sp.feat.add("scratch-view")
    sel = ", :" * (len(vshape) - 1)
    t2 = sp.tile(vd, [P] + vshape[1:], sp.bufs())
    y = sp.out(vd, vshape)
    read = [op("load", dst="%s[%s%s]" % (t2, tr, sel), src="%s[%s%s]" % (src, pr, sel)),
            op("store", dst="%s[%s%s]" % (y, pr, sel), src="%s[%s%s]" % (t2, tr, sel))]
    if rows.var is not None and r.random() < 0.5:
        sp.body += rows.wrap(write, sp=sp) + rows.wrap(read, sp=sp)
        sp.feat.add("scratch-two-loops")
    else:
        sp.body += rows.wrap(write + read, sp=sp)
    sp.feat.add("scratch")


# --- block: indirect DMA (gathers and scatters by an index column) -----------

IMAX = {"int8": 127, "uint8": 255, "int16": 32767, "uint16": 65535, "int32": 2 ** 31 - 1, "uint32": 2 ** 32 - 1}


def block_gather(sp):
    """Indirect DMA (SPEC.md §2.1): per row tile, an index column (any integer
    dtype, column c of a [P, k] tile, in-range values) selects rows of a table
    (rank 2 or 3, a column range, a cast), an element per partition from its
    own row (the cross-entropy target gather), or the rows a tile is scattered
    to (the walk then carried; duplicate indices: the later partition wins)."""
    r = sp.r
    nx, f, rows, pr, tr, P = row_setup(sp)
    idt = r.choice(INTS)
    V = r.choice([v for v in (1, 5, 64, 127, 200, 300) if v <= IMAX[idt]])
    k = r.choice((1, 1, 2, 3))
    c = r.randrange(k)
    td = idt if r.random() < 0.8 else r.choice([d for d in INTS if IMAX[d] >= V - 1])
    sp.feat.add("index-" + td)
    body, scatter = [], False
    for kind in r.sample(("row", "elem", "scatter"), r.randrange(1, 4)):
        bound = V if kind != "elem" else r.choice((1, 3, f + 5))
        bound = min(bound, IMAX[idt] + 1, IMAX[td] + 1)
        xi = sp.index_inp(idt, [nx, k], bound)
        ix = sp.tile(td, [P, k], sp.bufs())
        body.append(op("load", dst="%s[%s, :]" % (ix, tr), src="%s[%s, :]" % (xi, pr)))
        col = "%s[%s, %d]" % (ix, tr, c)
        d = sp.dtype()
        if kind == "row":
            sp.feat.add("gather-rows")
            three = f % 4 == 0 and f > 4 and r.random() < 0.4
            if three:
                sp.feat.add("gather-rank3")
                tb = sp.inp(d, [V, 4, f // 4])
                src = "%s[%s, :, :]" % (tb, col)
                w = f
            elif f > 1 and r.random() < 0.4:
                sp.feat.add("gather-cols")
                a = r.randrange(f)
                w = r.randrange(1, f - a + 1)
                tb = sp.inp(d, [V, f])
                src = "%s[%s, %d:%d]" % (tb, col, a, a + w)
            else:
                tb = sp.inp(d, [V, f])
                src = "%s[%s, :]" % (tb, col)
                w = f
            gd = d if r.random() < 0.7 else sp.dtype()
            if gd != d:
                sp.feat.add("gather-cast")
            g = sp.tile(gd, [P, w], sp.bufs())
            body.append(op("load", dst="%s[%s, :]" % (g, tr), src=src))
            if r.random() < 0.5:  # read by an op (the gather may be forwarded to it)
                sp.feat.add("gather-read")
                if r.random() < 0.3:  # ... unless its index column changes first
                    sp.feat.add("gather-column-rewritten")
                    body.append(op("memset", dst="%s[%s, :]" % (ix, tr), value=0))
                h = sp.tile(sp.dtype(), [P, w], sp.bufs())
                gs = "%s[%s, :]" % (g, tr)
                if r.random() < 0.5:
                    body.append(op("tensor_scalar", dst="%s[%s, :]" % (h, tr), src=gs, op0=r.choice(ARITH),
                                   operand0=sp.scalar()))
                else:
                    body.append(op("tensor_tensor", dst="%s[%s, :]" % (h, tr), a=gs, b=gs, op=r.choice(ARITH)))
                g = h
            y = sp.out(sp.dtype(), [nx, w])
            body.append(op("store", dst="%s[%s, :]" % (y, pr), src="%s[%s, :]" % (g, tr)))
        elif kind == "elem":
            sp.feat.add("gather-elem")
            lg = sp.inp(d, [nx, bound])
            e = sp.tile(d, [P, 1], sp.bufs())
            body.append(op("load", dst="%s[%s, :]" % (e, tr), src="%s[%s, %s]" % (lg, pr, col)))
            y = sp.out(d, [nx, 1])
            body.append(op("store", dst="%s[%s, :]" % (y, pr), src="%s[%s, :]" % (e, tr)))
        else:
            sp.feat.add("scatter-rows")
            scatter = True
            x = sp.inp(d, [nx, f])
            t = sp.tile(d, [P, f], sp.bufs())
            body.append(op("load", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (x, pr)))
            y = sp.out(sp.dtype(), [V, f])
            body.append(op("store", dst="%s[%s, :]" % (y, col), src="%s[%s, :]" % (t, tr)))
    sp.body += rows.wrap(body, carried=scatter, sp=sp)


# --- block: bn_stats over column chunks, bn_aggr ------------------------------

def block_bn(sp):
    r = sp.r
    n = pick_n(r)
    nx = sp.param(n) if r.random() < 0.3 else str(n)
    rows = Rows(r, n, nx)
    pr, tr, P = rows.hbm, rows.til, rows.tile_rows()
    w = r.choice((1, 2, 7, 64, 100, 512, 300))
    C = r.choice((1, 1, 2, 3))
    d = sp.dtype(FLOATS)
    x = sp.inp(d if r.random() < 0.7 else sp.dtype(), [nx, C * w], 0.6)
    xt = sp.tile(d, [P, C * w], sp.bufs())
    st = sp.tile(r.choice(("float32", "float32", "bfloat16")), [P, 6 * C], sp.bufs())
    mv = sp.tile(r.choice(("float32", "float32", "bfloat16", "float16")), [P, 2], sp.bufs())
    c = "c%d" % r.randrange(1000)
    body = [op("load", dst="%s[%s, :]" % (xt, tr), src="%s[%s, :]" % (x, pr)),
            loop(c, C, [op("bn_stats", dst="%s[%s, %s*6 : %s*6+6]" % (st, tr, c, c),
                           src="%s[%s, %s*%d : %s*%d+%d]" % (xt, tr, c, w, c, w, w))]),
            op("bn_aggr", dst="%s[%s, :]" % (mv, tr), src="%s[%s, :]" % (st, tr))]
    ym = sp.out(u_dtype(sp, mv), [nx, 2])
    body.append(op("store", dst="%s[%s, :]" % (ym, pr), src="%s[%s, :]" % (mv, tr)))
    if r.random() < 0.5:
        ys = sp.out(u_dtype(sp, st), [nx, 6 * C])
        body.append(op("store", dst="%s[%s, :]" % (ys, pr), src="%s[%s, :]" % (st, tr)))
    if r.random() < 0.4:
        # normalise with the statistics, layernorm style
        yn = sp.tile("float32", [P, C * w], sp.bufs())
        body.append(op("tensor_scalar", dst="%s[%s, :]" % (yn, tr), src="%s[%s, :]" % (xt, tr), op0="subtract",
                       operand0="%s[%s, 0:1]" % (mv, tr), op1="multiply", operand1="%s[%s, 1:2]" % (mv, tr)))
        yo = sp.out("float32", [nx, C * w])
        body.append(op("store", dst="%s[%s, :]" % (yo, pr), src="%s[%s, :]" % (yn, tr)))
    sp.body += rows.wrap(body, sp=sp)


# --- block: partition_reduce on GpSimd, per row tile --------------------------

def block_preduce(sp):
    r = sp.r
    n = r.choice((128, 100, 1, 37, 300, 256))
    rows = Rows(r, n)
    pr, tr, P = rows.hbm, rows.til, rows.tile_rows()
    F = pick_f(r)
    ints = r.random() < 0.4
    d = sp.dtype(INTS if ints else FLOATS)
    x = sp.inp(d if r.random() < 0.7 else sp.dtype(INTS if ints else ALL), [n, F], 0.5)
    t = sp.tile(d, [P, F], sp.bufs())
    T = rows.ntiles if rows.var else 1
    o = sp.tile(sp.dtype(INTS if ints else ALL), [1, T * F])
    opn = r.choice(("add", "maximum", "bitwise_or", "bitwise_and") if ints else ("add", "maximum"))
    v = rows.var or "0"
    dst = "%s[0:1, %s*%d : %s*%d+%d]" % (o, v, F, v, F, F) if rows.var else o
    if rows.var and rows.rng != "(%s + 127) / 128" % rows.nx:
        # a loop starting late or stepping leaves columns unwritten: whose
        # contents are not defined (an undiagnosed read of them disagrees,
        # fuzz_diff_cases/unwritten-tile-read)
        sp.body.append(op("memset", dst=o, value=r.choice(("0.0", "3.0"))))
    body = [op("load", dst="%s[%s, :]" % (t, tr), src="%s[%s, :]" % (x, pr)),
            op("partition_reduce", dst=dst, src="%s[%s, :]" % (t, tr), op=opn)]
    sp.body += rows.wrap(body, sp=sp)
    y = sp.out(u_dtype(sp, o), [1, T * F])
    sp.body.append(op("store", dst=y, src=o))


# --- block: carried loops beyond accumulation ---------------------------------

def block_running(sp):
    r = sp.r
    P = r.choice((128, 128, 64, 7, 100, 1))
    W = r.choice((1, 4, 16, 33))
    K = r.choice((2, 3, 5))
    d = sp.dtype(FLOATS if r.random() < 0.8 else ALL)
    x = sp.inp(d, [P, K * W], 0.6)
    xc = sp.tile(d, [P, W], sp.bufs())
    c = "c%d" % r.randrange(1000)
    chunk = "%s[:, %s*%d : %s*%d+%d]" % (x, c, W, c, W, W)
    y = sp.out(sp.dtype(), [P, K * W])
    ychunk = "%s[:, %s*%d : %s*%d+%d]" % (y, c, W, c, W, W)
    kind = r.choice(("runmax", "prev", "online"))
    if kind == "runmax":
        # running max / sum of row reductions across iterations, used in each one
        run = sp.tile(r.choice(("float32", "float32", "bfloat16")), [P, 1])
        col = sp.tile("float32", [P, 1], sp.bufs())
        o = sp.tile(sp.dtype(), [P, W], sp.bufs())
        rop = r.choice(("maximum", "add", "minimum"))
        sp.body.append(op("memset", dst=run, value=r.choice(("-inf", "0.0", "1.0"))))
        sp.body.append(loop(c, K, [op("load", dst=xc, src=chunk),
                                   op("tensor_reduce", dst=col, src=xc, op=r.choice(("maximum", "add", "minimum"))),
                                   op("tensor_tensor", dst=run, a=run, b=col, op=rop),
                                   op("tensor_scalar", dst=o, src=xc, op0=r.choice(ARITH), operand0=run),
                                   op("store", dst=ychunk, src=o)], carried=True))
        yr = sp.out(u_dtype(sp, run), [P, 1])
        sp.body.append(op("store", dst=yr, src=run))
    elif kind == "prev":
        # a tile written by iteration k and read by iteration k+1
        prev = sp.tile(sp.dtype(), [P, W])
        o = sp.tile(sp.dtype(), [P, W], sp.bufs())
        sp.body.append(op("load", dst=prev, src="%s[:, 0:%d]" % (x, W)))
        upd = (op("tensor_copy", dst=prev, src=xc) if r.random() < 0.5 else
               op("tensor_copy", dst=prev, src=o))
        sp.body.append(loop(c, [1, K], [op("load", dst=xc, src=chunk),
                                        op("tensor_tensor", dst=o, a=xc, b=prev, op=r.choice(ARITH)),
                                        op("store", dst=ychunk, src=o), upd], carried=True))
        yp = sp.out(u_dtype(sp, prev), [P, W])
        sp.body.append(op("store", dst=yp, src=prev))
    else:
        # online softmax: running max m, running sum s rescaled by exp(m_old - m_new)
        m = sp.tile("float32", [P, 1])
        s = sp.tile("float32", [P, 1])
        mn = sp.tile("float32", [P, 1], sp.bufs())
        cm = sp.tile("float32", [P, 1], sp.bufs())
        sc = sp.tile("float32", [P, 1], sp.bufs())
        nm = sp.tile("float32", [P, 1], sp.bufs())
        cs = sp.tile("float32", [P, 1], sp.bufs())
        e = sp.tile(r.choice(("float32", "bfloat16")), [P, W], sp.bufs())
        sp.body.append(op("memset", dst=m, value="-1e30"))
        sp.body.append(op("memset", dst=s, value="0.0"))
        sp.body.append(loop(c, K, [
            op("load", dst=xc, src=chunk),
            op("tensor_reduce", dst=cm, src=xc, op="maximum"),
            op("tensor_tensor", dst=mn, a=m, b=cm, op="maximum"),
            op("tensor_tensor", dst=sc, a=m, b=mn, op="subtract"),
            op("activation", dst=sc, src=sc, func="exp"),
            op("tensor_scalar", dst=nm, src=mn, op0="multiply", operand0="-1.0"),
            op("activation", dst=e, src=xc, func="exp", bias=nm, reduce={"op": "add", "dst": cs}),
            op("tensor_tensor", dst=s, a=s, b=sc, op="multiply"),
            op("tensor_tensor", dst=s, a=s, b=cs, op="add"),
            op("tensor_copy", dst=m, src=mn),
            op("store", dst=ychunk, src=e)], carried=True))
        for t in (m, s):
            yt = sp.out("float32", [P, 1])
            sp.body.append(op("store", dst=yt, src=t))


# --- block: ragged free dims: the last W-wide chunk of D columns is shorter ---

def block_ragged_free(sp):
    """D columns (not a multiple of W) in W-wide chunks, `0 : min(W, D - j*W)`
    in the tile, over row tiles that may be ragged too: loads (maybe short,
    into the whole tile), elementwise ops, a broadcast row, row reductions
    accumulated over the chunks (carried), stores."""
    r = sp.r
    W = r.choice((512, 512, 128, 100, 7))
    D = W * r.choice((0, 1, 1, 2)) + r.randrange(1, W) if W > 1 else 3
    dx = sp.param(D) if r.random() < 0.4 else str(D)
    n = r.choice((128, 64, 37, 200, 1, 129) if D <= 600 else (128, 37, 1, 129))
    rows = Rows(r, n, sp.param(n) if r.random() < 0.2 else str(n))
    pr, tr, P = rows.hbm, rows.til, rows.tile_rows()
    j = "j%d" % r.randrange(1000)
    fc = "0 : min(%d, %s - %s*%d)" % (W, dx, j, W)          # the chunk's columns in the tile
    fh = "%s*%d : min(%s*%d+%d, %s)" % (j, W, j, W, W, dx)  # and in HBM
    R = "%s, %s" % (tr, fc)
    sp.feat.add("ragged-free")
    xd = sp.dtype()
    x = sp.inp(xd, [rows.nx, dx])
    t = sp.tile(xd if r.random() < 0.6 else sp.dtype(), [P, W], sp.bufs())

    def whole_or(tile):
        # the whole fixed-shape tile as a DMA endpoint: the HBM region is shorter
        if r.random() < 0.4:
            sp.feat.add("short-dma")
            return tile
        return "%s[%s]" % (tile, R)
    inner = [op("load", dst=whole_or(t), src="%s[%s, %s]" % (x, pr, fh))]
    cur = t
    acc = None
    pre = []
    for _ in range(r.randrange(1, 4)):
        k = r.choice(("ts", "act", "tt", "bcast", "reduce", "copy", "memset", "select", "iota", "scan", "dma", "bn",
                      "shift", "where", "stt", "match8"))
        u = sp.tile(sp.dtype(), [P, W], sp.bufs())
        src, dst = "%s[%s]" % (cur, R), "%s[%s]" % (u, R)
        if k == "match8":
            # nc_match_replace8 on the ragged chunk (no size rule); values of the chunk's dtype
            vt = sp.tile(u_dtype(sp, cur), [P, 8], sp.bufs())
            vx = sp.inp(u_dtype(sp, cur), [rows.nx, 8])
            inner.append(op("load", dst="%s[%s, :]" % (vt, tr), src="%s[%s, :]" % (vx, pr)))
            inner.append(op("nc_match_replace8", dst=dst, src=src, values="%s[%s, :]" % (vt, tr), imm=sp.scalar(j)))
        elif k in ("where", "stt"):
            # select / scalar_tensor_tensor on the ragged chunk, with a fresh chunk as the other tile
            b = sp.tile(sp.dtype(), [P, W], sp.bufs())
            y2 = sp.inp(sp.dtype(), [rows.nx, dx])
            inner.append(op("load", dst=whole_or(b), src="%s[%s, %s]" % (y2, pr, fh)))
            bb = "%s[%s]" % (b, R)
            if k == "where":
                pick = [src, bb, sp.scalar(j)]
                r.shuffle(pick)
                inner.append(op("select", dst=dst, pred=pick[0], on_true=pick[1], on_false=pick[2]))
            else:
                inner.append(op("scalar_tensor_tensor", dst=dst, src=src, op0=r.choice(ARITH), operand0=sp.scalar(j),
                                op1=r.choice(ARITH), b=bb, reverse0=r.random() < 0.3))
        elif k == "select" and select_ok(u_dtype(sp, cur)):
            inner.append(op("affine_select", dst=dst, src=src, pred=r.choice(("p >= f", "f + %s*%d < 300" % (j, W),
                                                                                 "p * 2 != f + 1")),
                            fill=sp.fexpr(j) if r.random() < 0.3 else "-3.0"))
        elif k == "iota":
            inner.append(op("iota", dst=dst, expr=r.choice(("p * 3 - f", "%s * %d + f" % (j, W), "f - p"))))
            inner.append(op("tensor_tensor", dst=dst, a=dst, b=src, op=r.choice(ARITH)))
        elif k == "scan":
            a, b = const_srcs(sp, src, [P, W], R)
            inner.append(op("tensor_tensor_scan", dst=dst, a=a, b=b, initial=sp.scalar(j),
                            op0=r.choice(("multiply", "add", "maximum")), op1=r.choice(("add", "maximum", "subtract"))))
        elif k == "dma":
            inner.append(op("dma_copy", dst=dst, src=src))
        elif k == "bn" and W <= 512 and is_float_tile(sp, cur):
            st = sp.tile("float32", [P, 6], sp.bufs())
            mv = sp.tile("float32", [P, 2], sp.bufs())
            inner.append(op("bn_stats", dst="%s[%s, :]" % (st, tr), src=src))
            inner.append(op("bn_aggr", dst="%s[%s, :]" % (mv, tr), src="%s[%s, :]" % (st, tr)))
            inner.append(op("tensor_scalar", dst=dst, src=src, op0="subtract", operand0="%s[%s, 0:1]" % (mv, tr),
                            op1="multiply", operand1="%s[%s, 1:2]" % (mv, tr)))
        elif k == "shift" and (D % W or W) >= 2:
            # the chunk's columns shifted by one: reads and writes overlap on a ragged extent
            inner.append(op("tensor_copy", dst=dst, src=src))
            inner.append(op("tensor_tensor", dst="%s[%s, 1 : min(%d, %s - %s*%d)]" % (u, tr, W, dx, j, W),
                            a="%s[%s, 0 : min(%d, %s - %s*%d) - 1]" % (u, tr, W, dx, j, W),
                            b="%s[%s, 1 : min(%d, %s - %s*%d)]" % (u, tr, W, dx, j, W), op=r.choice(("add", "maximum"))))
        elif k == "ts":
            fl = dict(dst=dst, src=src, op0=r.choice(ARITH), operand0=sp.scalar(j))
            if r.random() < 0.4:
                fl.update(op1=r.choice(ARITH), operand1=sp.scalar(j))
            inner.append(op("tensor_scalar", **fl))
        elif k == "act":
            fl = dict(dst=dst, src=src, func=r.choice(FUNCS))
            if r.random() < 0.6:
                fl["scale"] = sp.fexpr(j)
            inner.append(op("activation", **fl))
        elif k in ("tt", "bcast"):
            b = sp.tile(sp.dtype(), [P, W], sp.bufs())
            if k == "bcast":
                inner.append(op("load", dst="%s[%s]" % (b, R), **broadcast_load(sp, D, dx, fh)))
            else:
                y2 = sp.inp(sp.dtype(), [rows.nx, dx])
                inner.append(op("load", dst=whole_or(b), src="%s[%s, %s]" % (y2, pr, fh)))
            inner.append(op("tensor_tensor", dst=dst, a=src, b="%s[%s]" % (b, R), op=r.choice(ARITH)))
        elif k == "reduce":
            # row reductions of each chunk, accumulated over the chunks
            col = sp.tile("float32", [P, 1], sp.bufs())
            if acc is None:
                acc = sp.tile(r.choice(("float32", "float32", "bfloat16")), [P, 1])
                pre.append(op("memset", dst="%s[%s, :]" % (acc, tr), value=r.choice(("0.0", "-inf")) if r.random() < 0.7
                              else sp.fexpr(rows.var)))
            rop = r.choice(REDUCE_OPS)
            how = r.choice(("tensor_reduce", "accumulate", "act"))
            if how == "tensor_reduce":
                inner.append(op("tensor_reduce", dst="%s[%s, :]" % (col, tr), src=src, op=rop))
            elif how == "accumulate":  # the chunk's row reduction fused into a tensor_scalar
                inner.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH), operand0=sp.scalar(j),
                                accumulate={"op": rop, "dst": "%s[%s, :]" % (col, tr)}))
                sp.feat.add("ts-accumulate-" + rop)
            else:
                inner.append(op("activation", dst=dst, src=src, func=r.choice(FUNCS),
                                reduce={"op": rop, "dst": "%s[%s, :]" % (col, tr)}))
                sp.feat.add("act-reduce-" + rop)
            inner.append(op("tensor_tensor", dst="%s[%s, :]" % (acc, tr), a="%s[%s, :]" % (acc, tr),
                            b="%s[%s, :]" % (col, tr), op=rop))
            if how == "tensor_reduce":
                inner.append(op("tensor_scalar", dst=dst, src=src, op0=r.choice(ARITH),
                                operand0="%s[%s, :]" % (col, tr)))
        elif k == "memset":
            inner.append(op("memset", dst=dst, value=sp.fexpr(j) if r.random() < 0.5 else r.choice(SCALARS)))
            inner.append(op("tensor_tensor", dst=dst, a=dst, b=src, op=r.choice(ARITH)))
        else:
            inner.append(op("tensor_copy", dst=dst, src=src))
        cur = u
    y = sp.out(sp.dtype(), [rows.nx, dx])
    inner.append(op("store", dst="%s[%s, %s]" % (y, pr, fh), src=whole_or(cur)))
    jr = "(%s + %d) / %d" % (dx, W - 1, W) if r.random() < 0.7 else [0, "(%s + %d) / %d" % (dx, W - 1, W)]
    body = pre + [loop(j, jr, inner, carried=acc is not None)]
    if acc is not None:
        ya = sp.out(u_dtype(sp, acc), [rows.nx, 1])
        body.append(op("store", dst="%s[%s, :]" % (ya, pr), src="%s[%s, :]" % (acc, tr)))
    sp.body += rows.wrap(body, sp=sp)


def block_ragged_2d(sp):
    """Blocks ragged in both dims (N rows, D columns in [128, W] blocks):
    a Tensor-engine transpose through PSUM, a DMA-transposed load, a 3-D
    tile with a ragged last dim, all by regions `0 : min(...)`."""
    r = sp.r
    W = r.choice((64, 128, 32, 5))
    N = r.choice((200, 129, 37, 128, 300))
    D = W * r.choice((0, 1, 2)) + r.randrange(1, W)
    nx = sp.param(N) if r.random() < 0.3 else str(N)
    dx = sp.param(D) if r.random() < 0.3 else str(D)
    i, j = "i%d" % r.randrange(1000), "j%d" % r.randrange(1000)
    pr, ph = "0 : min(128, %s - %s*128)" % (nx, i), "%s*128 : min(%s*128+128, %s)" % (i, i, nx)
    fr, fh = "0 : min(%d, %s - %s*%d)" % (W, dx, j, W), "%s*%d : min(%s*%d+%d, %s)" % (j, W, j, W, W, dx)
    sp.feat.update(("ragged-partition", "ragged-free"))
    kind = r.choice(("pe", "dma", "3d"))
    if kind == "pe":
        d = sp.dtype(FLOATS)
        x = sp.inp(d, [nx, dx], 0.5)
        t = sp.tile(d, [128, W], sp.bufs())
        ps = sp.psum_tile([W, 128])
        o = sp.tile(sp.dtype(), [W, 128], sp.bufs())
        y = sp.out(u_dtype(sp, o), [dx, nx])
        body = [op("load", dst="%s[%s, %s]" % (t, pr, fr), src="%s[%s, %s]" % (x, ph, fh)),
                op("transpose", dst="%s[%s, %s]" % (ps, fr, pr), src="%s[%s, %s]" % (t, pr, fr))]
        if r.random() < 0.5:
            body.append(op("tensor_copy", dst="%s[%s, %s]" % (o, fr, pr), src="%s[%s, %s]" % (ps, fr, pr)))
        else:
            body.append(op("activation", dst="%s[%s, %s]" % (o, fr, pr), src="%s[%s, %s]" % (ps, fr, pr),
                           func=r.choice(FUNCS), scale=sp.scalar(j)))
        body.append(op("store", dst="%s[%s, %s]" % (y, fh, ph), src="%s[%s, %s]" % (o, fr, pr)))
    elif kind == "dma":
        d = sp.dtype()
        x = sp.inp(d, [nx, dx])
        t = sp.tile(sp.dtype(), [W, 128], sp.bufs())
        back = r.random() < 0.5  # store it transposed back, or as it is
        y = sp.out(sp.dtype(), [nx, dx] if back else [dx, nx])
        body = [op("load", dst="%s[%s, %s]" % (t, fr, pr), src="%s[%s, %s]" % (x, ph, fh), transpose=True),
                op("tensor_scalar", dst="%s[%s, %s]" % (t, fr, pr), src="%s[%s, %s]" % (t, fr, pr),
                   op0=r.choice(ARITH), operand0=sp.scalar(j))]
        if back:
            sp.feat.add("store-transpose")
            body.append(op("store", dst="%s[%s, %s]" % (y, ph, fh), src="%s[%s, %s]" % (t, fr, pr), transpose=True))
        else:
            body.append(op("store", dst="%s[%s, %s]" % (y, fh, ph), src="%s[%s, %s]" % (t, fr, pr)))
    else:
        C = r.choice((2, 3))
        d = sp.dtype()
        x = sp.inp(d, [nx, C, dx])
        t = sp.tile(sp.dtype(), [128, C, W], sp.bufs())
        y = sp.out(sp.dtype(), [nx, C, dx])
        tr = "%s[%s, :, %s]" % (t, pr, fr)
        body = [op("load", dst=tr, src="%s[%s, :, %s]" % (x, ph, fh))]
        k = r.choice(("shift", "act", "ts"))
        if k == "shift":
            body.append(op("tensor_tensor", dst="%s[%s, 1:%d, %s]" % (t, pr, C, fr), a="%s[%s, 0:%d, %s]" % (t, pr, C - 1, fr),
                           b="%s[%s, 1:%d, %s]" % (t, pr, C, fr), op=r.choice(ARITH)))
        elif k == "act":
            body.append(op("activation", dst=tr, src=tr, func=r.choice(FUNCS), scale=sp.scalar(j)))
        else:
            body.append(op("tensor_scalar", dst=tr, src=tr, op0=r.choice(ARITH), operand0=sp.scalar(j)))
        body.append(op("store", dst="%s[%s, :, %s]" % (y, ph, fh), src=tr))
    sp.body.append(loop(i, "(%s + 127) / 128" % nx, [loop(j, "(%s + %d) / %d" % (dx, W - 1, W), body)]))


def block_ragged_decl(sp):
    """Ragged tiles declared once (SPEC.md §2.1): tile shapes over the loop
    variables, `["min(128, N - i*128)", "min(W, D - j*W)"]`; whole-tile
    references mean the current extent, undeclared tiles take their first
    writer's current shape; maybe under a triangular loop."""
    r = sp.r
    W = r.choice((512, 128, 100, 7))
    D = W * r.choice((0, 1, 2)) + r.randrange(1, W)
    n = r.choice((128, 200, 37, 300, 1) if D <= 600 else (128, 37, 129))
    nx = sp.param(n) if r.random() < 0.3 else str(n)
    dx = sp.param(D) if r.random() < 0.3 else str(D)
    i, j = "i%d" % r.randrange(1000), "j%d" % r.randrange(1000)
    pdim = "min(128, %s - %s*128)" % (nx, i) if n % 128 or r.random() < 0.3 else 128
    fdim = "min(%d, %s - %s*%d)" % (W, dx, j, W)
    ph, fh = "%s*128 : min(%s*128+128, %s)" % (i, i, nx), "%s*%d : min(%s*%d+%d, %s)" % (j, W, j, W, W, dx)
    sp.feat.add("ragged-declared")
    d = sp.dtype()
    x = sp.inp(d, [nx, dx])
    t = sp.tile(d if r.random() < 0.6 else sp.dtype(), [pdim, fdim], sp.bufs())
    body = [op("load", dst=t, src="%s[%s, %s]" % (x, ph, fh))]
    cur = t
    for _ in range(r.randrange(1, 4)):
        if r.random() < 0.5:
            u = sp.tile(sp.dtype(), [pdim, fdim], sp.bufs())
        else:
            u = sp.fresh("u")       # undeclared: the current shape of its writer
            sp.feat.add("ragged-inherited")
        k = r.choice(("ts", "act", "tt", "copy", "reduce"))
        if k == "ts":
            body.append(op("tensor_scalar", dst=u, src=cur, op0=r.choice(ARITH), operand0=sp.scalar()))
        elif k == "act":
            fl = dict(dst=u, src=cur, func=r.choice(FUNCS))
            if r.random() < 0.5:
                fl["scale"] = sp.fexpr()
            body.append(op("activation", **fl))
        elif k == "tt":
            b = sp.tile(sp.dtype(), [pdim, fdim], sp.bufs())
            if r.random() < 0.5:
                body.append(op("load", dst=b, **broadcast_load(sp, D, dx, fh)))
            else:
                body.append(op("load", dst=b, src="%s[%s, %s]" % (sp.inp(sp.dtype(), [nx, dx]), ph, fh)))
            body.append(op("tensor_tensor", dst=u, a=cur, b=b, op=r.choice(ARITH)))
        elif k == "reduce":
            c = sp.tile("float32", [pdim, 1], sp.bufs())
            body.append(op("tensor_reduce", dst=c, src=cur, op=r.choice(("add", "maximum"))))
            body.append(op("tensor_scalar", dst=u, src=cur, op0=r.choice(ARITH), operand0=c))
        else:
            body.append(op("tensor_copy", dst=u, src=cur))
        cur = u
    y = sp.out(sp.dtype(), [nx, dx])
    body.append(op("store", dst="%s[%s, %s]" % (y, ph, fh), src=cur))
    if r.random() < 0.3:
        # only the blocks on and below the diagonal (j <= i), as causal kernels
        # do; the output's other blocks are never written and stay zero
        jr = [0, "min(%s + 1, (%s + %d) / %d)" % (i, dx, W - 1, W)]
        sp.feat.add("triangular")
    else:
        jr = "(%s + %d) / %d" % (dx, W - 1, W)
    sp.body.append(loop(i, "(%s + 127) / 128" % nx, [loop(j, jr, body)]))


# --- block: triangular loops (ranges over an enclosing loop variable) ---------

TRI = (("[0, i + 1]", "lower"), ("[i, T]", "upper"), ("[i + 1, T]", "upper-strict"), ("[0, i]", "lower-strict"),
       ("[i, T, 2]", "upper-step"))


def tri_range(sp, i, tx, t):
    """A triangular range over loop variable i of [0, tx) (tx's value t;
    SPEC.md §2.1), maybe empty for some i but not for all (E053)."""
    form, name = sp.r.choice(TRI if t > 1 else TRI[:2])
    sp.feat.add("triangular")
    parts = form.strip("[]").split(", ")
    return [int(x) if x.isdigit() else x.replace("i", i).replace("T", tx) for x in parts]


def block_tri(sp):
    """Row chunks of x accumulated over a triangular inner loop (carried),
    and an independent triangular loop writing its own columns."""
    r = sp.r
    T = r.choice((1, 2, 3, 4, 5))
    tx = sp.param(T) if r.random() < 0.3 else str(T)
    W = r.choice((1, 8, 16, 33))
    P = r.choice((128, 64, 7, 1))
    d = sp.dtype(FLOATS if r.random() < 0.8 else ALL)
    x = sp.inp(d, [P, "%s*%d" % (tx, W)], 0.6)
    i, j = "i%d" % r.randrange(1000), "k%d" % r.randrange(1000)
    xc = sp.tile(d, [P, W], sp.bufs())
    chunk = "%s[:, %s*%d : %s*%d+%d]" % (x, j, W, j, W, W)
    if r.random() < 0.6:
        acc = sp.tile(r.choice(("float32", "float32", "bfloat16", d)), [P, W])
        body = [op("memset", dst=acc, value=sp.fexpr(i) if r.random() < 0.4 else r.choice(("0.0", "-inf", "1.0"))),
                loop(j, tri_range(sp, i, tx, T), [op("load", dst=xc, src=chunk),
                                               op("tensor_tensor", dst=acc, a=acc, b=xc,
                                                  op=r.choice(("add", "maximum", "minimum", "subtract")))],
                     carried=True)]
        y = sp.out(sp.dtype(), [P, "%s*%d" % (tx, W)])
        body.append(op("store", dst="%s[:, %s*%d : %s*%d+%d]" % (y, i, W, i, W, W), src=acc))
    else:
        # iteration j of the inner loop writes columns j of o (no value flows between them)
        o = sp.tile(sp.dtype(), [P, "%s*%d" % (tx, W)])
        body = [op("memset", dst=o, value=r.choice(("0.0", "2.5")) if r.random() < 0.6 else sp.fexpr(i)),
                loop(j, tri_range(sp, i, tx, T), [op("load", dst=xc, src=chunk),
                                               op("tensor_scalar", dst="%s[:, %s*%d : %s*%d+%d]" % (o, j, W, j, W, W),
                                                  src=xc, op0=r.choice(ARITH), operand0=sp.scalar(i))])]
        y = sp.out(u_dtype(sp, o), [tx, P, "%s*%d" % (tx, W)])
        body.append(op("store", dst="%s[%s, :, :]" % (y, i), src=o))
    sp.body.append(loop(i, tx, body))


def block_tri_matmul(sp):
    """Causal-style matmul: block i sums K slabs k in a triangular range of i
    into PSUM (the first slab overwrites, the rest accumulate)."""
    r = sp.r
    T = r.choice((1, 2, 3, 4))
    K = r.choice((128, 64, 32, 7))
    M = r.choice((128, 64, 16, 1))
    N = r.choice((128, 64, 8, 512))
    da, db = mm_dtypes(sp)
    a, b = sp.inp(da, [T * K, M], 0.8), sp.inp(db, [T * K, N], 0.8)
    at, bt = sp.tile(da, [K, T, M]), sp.tile(db, [K, T, N])
    i, k = "i%d" % r.randrange(1000), "k%d" % r.randrange(1000)
    sp.body.append(loop(k, T, [op("load", dst="%s[:, %s, :]" % (at, k), src="%s[%s*%d : %s*%d+%d, :]" % (a, k, K, k, K, K)),
                               op("load", dst="%s[:, %s, :]" % (bt, k), src="%s[%s*%d : %s*%d+%d, :]" % (b, k, K, k, K, K))]))
    acc = sp.psum_tile([M, N])
    lower = r.random() < 0.5
    first = "0" if lower else i
    rng = [1, "%s + 1" % i] if lower else ["%s + 1" % i, T]
    sp.feat.add("triangular")
    body = [op("matmul", dst=acc, stationary="%s[:, %s, :]" % (at, first), moving="%s[:, %s, :]" % (bt, first),
               accumulate=False),
            loop(k, rng, [op("matmul", dst=acc, stationary="%s[:, %s, :]" % (at, k), moving="%s[:, %s, :]" % (bt, k),
                             accumulate=True)], carried=True)][:2 if T > 1 else 1]
    ops, o = evacuate(sp, acc, [M, N])
    body += ops
    y = sp.out(u_dtype(sp, o), [T * M, N])
    body.append(op("store", dst="%s[%s*%d : %s*%d+%d, :]" % (y, i, M, i, M, M), src=o))
    sp.body.append(loop(i, T, body))


# --- SPMD grid (SPEC.md §2.1) ----------------------------------------------------

def block_grid(sp):
    """Rows walked by the programs of one grid axis instead of a loop: a tile
    ragged over program_id(a), regions over it, an iota and an affine_select
    predicate reading program ids and num_programs, a carried loop whose range
    reads program_id (the other axes only separate the programs' outputs)."""
    r = sp.r
    a = r.randrange(len(sp.grid))
    g, pid = sp.grid_n[a], "program_id(%d)" % a
    F = r.choice((1, 8, 33, 64))
    N = 128 * (g - 1) + r.choice((128, 1, 44, 100, 127))
    d = r.choice(("float32", "float32", "bfloat16", "float16"))
    x = sp.inp(d, [N, F])
    rows = "%s*128 : min(%s*128 + 128, %d)" % (pid, pid, N)
    P = "min(128, %d - %s*128)" % (N, pid)
    t = sp.tile(d, [P, F], sp.bufs())
    sp.feat.add("grid-pid-shape")
    body = [op("load", dst=t, src="%s[%s, :]" % (x, rows))]
    cur = t
    for _ in range(r.randrange(1, 4)):
        k = r.choice(("select", "iota", "loop", "ts"))
        nt = sp.tile(r.choice(("float32", d)), [P, F], sp.bufs())
        if k == "select":
            b = "program_id(%d)" % r.randrange(len(sp.grid))
            pred = r.choice(("%s*128 + p >= f + %s" % (pid, b), "f + %s * 3 < p + num_programs(0)" % b,
                             "p %% 4 != (f + %s) %% 3" % pid))
            body.append(op("affine_select", dst=nt, src=cur, pred=pred, fill=r.choice(("-inf", "0.0", "-2.5"))))
        elif k == "iota":
            io = sp.tile("float32", [128, F])
            body.append(op("iota", dst=io, expr="p + %s * f - num_programs(%d)" % (pid, r.randrange(len(sp.grid)))))
            body.append(op("tensor_tensor", dst=nt, a=cur, b="%s[0:%s, :]" % (io, P), op=r.choice(ARITH[:4])))
        elif k == "loop":
            j = "j%d" % r.randrange(1000)
            body.append(op("tensor_copy", dst=nt, src=cur))
            body.append(loop(j, [0, "%s + 1" % pid], [op("tensor_tensor", dst=nt, a=nt, b=cur,
                                                         op=r.choice(("add", "maximum", "subtract")))], carried=True))
        else:
            body.append(op("tensor_scalar", dst=nt, src=cur, op0=r.choice(ARITH[:4]),
                           operand0=r.choice(("1/num_programs(%d)" % a, "num_programs(%d) - 0.5" % a, "2.0",
                                              "1/(%s + 1)" % pid, "%s %% 0.75 - num_programs(%d)/3" % (pid, a)))))
        cur = nt
    y = sp.out(u_dtype(sp, cur), [N, F])
    body.append(op("store", dst="%s[%s, :]" % (y, rows), src=cur))
    sp.body += body


def grid_prefix(sp):
    """Give every output and scratch tensor (and about half the inputs) a
    leading program dimension: the grid's own axes (rank permitting), or one
    flat axis of all programs, and index every region of it by the program ids,
    so no two programs write the same element (E055). A view of a tensor so
    prefixed gets a prefix too (either form: both are row-major, so the flat
    index of a view meets the grid index of its base at the same bytes)."""
    flat = "%s" % " + ".join("program_id(%d)%s" % (a, "".join("*%s" % c for c in sp.grid[a + 1:]))
                             for a in range(len(sp.grid)))
    flat_n = "*".join(str(c) for c in sp.grid)
    full = ", ".join("program_id(%d)" % a for a in range(len(sp.grid)))
    pre = {}

    def prefix(name, shape, p, room):
        """The shape of `name` with its program dimension, or None."""
        if len(shape) >= room or sp.r.random() >= p:
            return None
        if len(shape) + len(sp.grid) <= room and sp.r.random() < 0.7:
            pre[name] = full
            return list(sp.grid) + list(shape)
        pre[name] = flat
        sp.feat.add("grid-flat-index")
        return [flat_n] + list(shape)

    for lst, p in ((sp.outputs, 1.0), (sp.scratch, 1.0), (sp.inputs, 0.5)):
        for i, (name, dtype, shape, *rest) in enumerate(lst):
            new = prefix(name, shape, p, 4 if lst is not sp.scratch else 5)
            if new is not None:
                lst[i] = (name, dtype, new, *rest)
    for i, (name, of, shape, dtype) in enumerate(sp.views):
        if of in pre:
            new = prefix(name, shape, 1.0, 5)
            assert new is not None      # views have rank 3 at most
            sp.views[i] = (name, of, new, dtype)
            sp.feat.add("grid-view")

    def fix(v):
        if not isinstance(v, str):
            return v
        name = v.split("[")[0]
        if name not in pre:
            return v
        return "%s[%s]" % (name, pre[name]) if v == name else "%s[%s, %s" % (name, pre[name], v[len(name) + 1:])

    def walk(stmts):
        out = []
        for st in stmts:
            if st[0] == "op":
                out.append(("op", st[1], [(k, fix(v)) for k, v in st[2]]))
            else:
                out.append(("for", st[1], walk(st[2])))
        return out

    sp.body = walk(sp.body)


def make_grid(seed, sp):
    """Maybe (25%) make sp a grid kernel of rank 1 to 3 with at most 8
    programs; its own random stream, so the specs without a grid stay what
    they were."""
    g = random.Random(seed * 7919 + 17)
    if g.random() >= GRID_P and not CORES_ONLY:
        return
    rank = g.choice((1, 1, 2, 2, 3))
    counts = [g.choice((1, 2, 3, 4)) for _ in range(rank)]
    while np.prod(counts) > 8:
        counts[g.randrange(rank)] = 1 if max(counts) <= 2 else max(1, max(counts) // 2)
    if CORES_ONLY and counts[0] < 2:
        counts[0] = 2
        while np.prod(counts) > 8:
            counts[1 + g.randrange(rank - 1)] = 1
    sp.grid_n = counts
    sp.grid = [c if g.random() < 0.7 else sp.param_fixed(c) for c in counts]
    sp.feat.add("grid-rank%d" % rank)


def is_float_tile(sp, name):
    return u_dtype(sp, name) in FLOATS


def u_dtype(sp, name):
    return [d for nm, _, d, _, _ in sp.tiles if nm == name][0]


BLOCKS = ((block_subpart, 2), (block_pipeline, 5), (block_transpose, 3), (block_carried, 2), (block_readback, 1),
          (block_tload, 1), (block_after, 1), (block_matmul, 3), (block_matmul_ragged, 1), (block_matmul_ragged_mn, 2), (block_ragged_2d, 2), (block_ragged_decl, 3 if RAGGED_DECL else 0), (block_pe_transpose, 2),
          (block_dma, 2), (block_bn, 2), (block_preduce, 2), (block_running, 2), (block_ragged_free, 4),
          (block_tri, 3), (block_tri_matmul, 2), (block_gather, 3), (block_view, 2), (block_scratch, 2),
          (block_strided, 2), (block_actsum, 2), (block_chunkfold, 1), (block_chain, 3))


def make_spec(seed):
    r = random.Random(seed)
    sp = Spec(r)
    if r.random() < 0.2 or CORES_ONLY:
        sp.target = "trn2"
    only = os.environ.get("FUZZ_DIFF_BLOCKS")     # e.g. "ragged_free,tri": those blocks alone
    fns = [f for f, w in BLOCKS for _ in range(w) if not only or f.__name__[6:] in only.split(",")]
    make_grid(seed, sp)
    for _ in range(r.randrange(1, 4)):
        r.choice(fns)(sp)
    if sp.grid and any(len(shape) >= 4 for _, _, shape, _ in sp.outputs):
        sp.grid = None      # no room for a program dimension: no grid
        sp.feat = {f for f in sp.feat if not f.startswith("grid")}
    if sp.grid:
        if (not only or "grid" in only.split(",")) and r.random() < 0.6:
            block_grid(sp)
        grid_prefix(sp)
    add_prints(seed, sp)
    add_cores(seed, sp)
    return sp


def add_cores(seed, sp):
    """cores: 2 (SPEC.md §2.1, NKI's nl.nc(2)) on half of the trn2 grid specs
    with at least two programs along axis 0: the listing then has one stream
    per physical core, each on its own SBUF/PSUM, and the C simulation and
    the ISS must still agree bit for bit. Its own random stream, so every
    other part of a seed's spec stays as it was."""
    r = random.Random("cores-%s" % seed)
    if sp.target == "trn2" and sp.grid and sp.grid_n[0] >= 2 and (r.random() < 0.5 or CORES_ONLY):
        sp.cores = 2
        sp.feat.add("cores2")


def add_prints(seed, sp):
    """print statements (NKI device_print) after some ops, each reading the
    region the op just wrote (a tile's: SBUF or PSUM), in a third of the specs.
    Its own random stream, so every other part of a seed's spec stays as it was.
    iss_agree.c holds the C simulation's print records to the ISS's."""
    r = random.Random("print-%s" % seed)
    if r.random() >= 1 / 3:
        return
    hbm = {t[0] for lst in (sp.inputs, sp.outputs, sp.scratch, sp.views) for t in lst}
    n = [0]

    def walk(stmts):
        out = []
        for st in stmts:
            if st[0] != "op":
                out.append((st[0], st[1], walk(st[2])))
                continue
            out.append(st)
            dst = dict(st[2]).get("dst")
            if isinstance(dst, str) and dst.split("[")[0].strip() not in hbm and r.random() < 0.3:
                out.append(op("print", src=dst, label="p%d" % n[0]))
                n[0] += 1
        return out
    sp.body = walk(sp.body)
    if n[0]:
        sp.feat.add("print")


# --- inputs: any values, including NaN, infinities and negative zero ----------

INT_NP = {"int8": "|i1", "uint8": "|u1", "int16": "<i2", "uint16": "<u2", "uint32": "<u4"}


def input_array(rng, dtype, shape, tame=False):
    n = int(np.prod(shape))
    if tame:
        # small exact values (k/4) and normals of magnitude ~1, rounded to dtype
        v = np.where(rng.integers(0, 2, n) == 0, rng.integers(-60, 61, n) / 4.0, rng.standard_normal(n))
        if dtype in INTS or dtype == "int32":
            info = np.iinfo(np.dtype(INT_NP.get(dtype, "<i4")))
            return np.clip(np.round(v * 2), info.min, info.max).astype(INT_NP.get(dtype, "<i4")).reshape(shape)
        if dtype.startswith("float8"):
            k = np.clip(np.round(v * 4), -60, 60).astype(np.int64)
            e4 = dtype == "float8_e4m3"
            return np.array([fp8_bits(x / 4.0, e4) for x in range(-60, 61)], dtype="|u1")[k + 60].reshape(shape)
        v = v.astype("<f4")
        if dtype == "float32":
            return v.reshape(shape)
        if dtype == "float16":
            return v.astype("<f2").view("<u2").reshape(shape)
        return (v.view("<u4") >> 16).astype("<u2").reshape(shape)    # bf16 by truncation
    if dtype in INT_NP:
        info = np.iinfo(np.dtype(INT_NP[dtype]))
        kind = rng.integers(0, 3, n)
        v = np.where(kind == 0, rng.integers(max(info.min, -8), 9, n),
                     np.where(kind == 1, rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64),
                              np.where(rng.integers(0, 2, n) == 0, info.min, info.max)))
        return v.astype(INT_NP[dtype]).reshape(shape)
    if dtype.startswith("float8"):
        # any byte (NaNs, infinities, subnormals) a third of the time, else
        # small exact values (multiples of 1/4 up to 15)
        raw = rng.integers(0, 256, n).astype("|u1")
        small = rng.integers(-60, 61, n)
        e4 = dtype == "float8_e4m3"
        sbits = np.array([fp8_bits(v / 4.0, e4) for v in range(-60, 61)], dtype="|u1")[small + 60]
        return np.where(rng.integers(0, 3, n) == 0, raw, sbits).astype("|u1").reshape(shape)
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
    if dtype == "float16":
        with np.errstate(over="ignore"):
            bits = v.astype("<f2").view("<u2")
    else:
        bits = (v.view("<u4") >> 16).astype("<u2")
    raw = rng.integers(0, 2 ** 16, n).astype("<u2")
    return np.where(kind == 3, raw, bits).astype("<u2").reshape(shape)


def fp8_bits(x, e4):
    """The float8 (e4m3: bias 7, 3 mantissa bits; e5m2: bias 15, 2) bits of a
    value exactly representable in it (here: k/4, |k| <= 60)."""
    mb, bias = (3, 7) if e4 else (2, 15)
    sign = 0x80 if x < 0 else 0
    x = abs(x)
    if x == 0:
        return sign
    e = int(np.floor(np.log2(x)))
    m = int(round((x / 2.0 ** e - 1) * (1 << mb)))
    return sign | ((e + bias) << mb) | m


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


def bake_defines(lines, d):
    """The spec lines with the `-D` values of d/defines written as the params'
    defaults, so the minimized spec needs no arguments."""
    path = os.path.join(d, "defines")
    defs = dict(a.split("=") for a in open(path).read().split() if a != "-D") if os.path.exists(path) else {}
    out = []
    for ln in lines:
        key = ln.strip().split(":")[0]
        if ln.startswith("  ") and key in defs and ln.strip().split(":")[1].strip().isdigit():
            ln = "  %s: %s" % (key, defs[key])
        out.append(ln)
    return out


def minimize(d):
    """Drop lines (with their more-indented children) of d/fz.yaml while the
    disagreement stays; writes d/min.yaml."""
    import tempfile
    work = tempfile.mkdtemp(prefix="fzmin")
    lines = bake_defines(open(os.path.join(d, "fz.yaml")).read().split("\n"), d)
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
    dtypes = {}     # output name -> spec dtype, from idir/fz.yaml
    if os.path.exists(os.path.join(idir, "fz.yaml")):
        for ln in open(os.path.join(idir, "fz.yaml")):
            if ln.startswith("  y") and "dtype:" in ln:
                dtypes[ln.split(":")[0].strip()] = ln.split("dtype:")[1].split(",")[0].strip()
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
        dt = dtypes.get(name[:-4], "bfloat16" if a.dtype == np.uint16 else "")
        nanbits = {"bfloat16": (0x7fff, 0x7f80), "float16": (0x7fff, 0x7c00), "float8_e4m3": (0x7f, 0x78),
                   "float8_e5m2": (0x7f, 0x7c)}
        if a.dtype == np.float32:
            nan = np.isnan(a.ravel()[diff]) & np.isnan(b.ravel()[diff])
        elif dt in nanbits:
            mask, inf = nanbits[dt]
            nan = ((ua[diff] & mask) > inf) & ((ub[diff] & mask) > inf)
        else:
            nan = np.zeros(len(diff), dtype=bool)
        kinds.add("nan-bits" if nan.all() else "values")
        j = diff[0]
        print("%s (%s): %d of %d differ, first flat %d: ISS %#x, C %#x" % (name[:-4], dt or a.dtype, len(diff), len(ua),
                                                                         j, ua[j], ub[j]))
    print("kind: " + ("values" if "values" in kinds else "nan-bits" if kinds else "none"))
    return 0


def write_spec(seed, d):
    """DIR/fz.yaml, DIR/<input>.npy, DIR/defines and DIR/features of seed."""
    os.makedirs(d, exist_ok=True)
    sp = make_spec(seed)
    with open(os.path.join(d, "fz.yaml"), "w") as f:
        f.write(render(sp, seed))
    with open(os.path.join(d, "defines"), "w") as f:
        f.write(define_args(sp))
    with open(os.path.join(d, "features"), "w") as f:
        f.write("".join(x + "\n" for x in sorted(sp.feat)))
    rng = np.random.default_rng(seed)
    env = dict(sp.params, **sp.defines)
    val = lambda x: int(x) if isinstance(x, int) else int(eval(x.replace("/", "//"), {"__builtins__": {}}, env))
    for name, dtype, shape, tame in sp.inputs:
        dims = [val(x) for x in shape]
        if isinstance(tame, tuple):  # ("index", bound): integers in [0, bound)
            a = rng.integers(0, val(tame[1]), dims, dtype=np.int64).astype(INT_NP.get(dtype, "<i4"))
        else:
            a = input_array(rng, dtype, dims, tame)
        np.save(os.path.join(d, name + ".npy"), a)


def main(argv):
    if len(argv) == 3 and argv[1] == "minimize":
        return minimize(argv[2])
    if len(argv) == 4 and argv[1] == "classify":
        return classify(argv[2], argv[3])
    if len(argv) >= 3 and argv[1] == "gen-batch":
        for seed in argv[3:]:
            write_spec(int(seed), os.path.join(argv[2], seed))
        return 0
    if len(argv) != 4 or argv[1] != "gen":
        sys.stderr.write(__doc__)
        return 2
    write_spec(int(argv[2]), argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
