#!/usr/bin/python3
"""The cost-specs suite: the calibration and validation specs of the timing model
(examples/matmul_*.yaml, tests/cost/specs/*.yaml) and tests/cost/published.tsv.

Each spec must pass `tilegen check` and `tilegen gen` at its published size (the
SBUF plan of `gen --report` within the target's usable bytes), and `tilegen run`
at reduced sizes must match numpy. Every published.tsv row must name a spec that
checks with its defines. Prints one line per failure and "N passed, M failed".
Usage: run.py [WORKDIR]   (env TILEGEN, default bin/tilegen)
"""
import csv
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "numerics"))
import fpformat as fp  # noqa: E402

TILEGEN = os.environ.get("TILEGEN", os.path.join(ROOT, "bin", "tilegen"))
WORK = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("BUILD", "build"), "cost-specs")
BF16 = fp.FORMATS["bfloat16"]
U_BF16 = 2.0 ** -8      # unit roundoff of bfloat16 (half an ulp at 1.0)
ULP_BF16 = 2.0 ** -7    # one bfloat16 ulp at 1.0
U32 = 2.0 ** -24        # unit roundoff of float32
USABLE_SBUF = {"trn1": 180224, "trn2": 212984}   # SPEC.md §1

MATMULS = ["matmul_tiled", "matmul_hoist_load", "matmul_block_free", "matmul_fully_blocked"]
DMA_SPECS = ["dma_load_store_32kib", "dma_exp_4x4096", "dma_exp_128x128"]

# Reduced sizes run on the ISS: (spec, defines). Each keeps the kernel's loop
# structure (several iterations of every loop where the blocking allows it);
# fully_blocked runs once with the tutorial's blocking (16, 2, 8) and two K
# blocks, once with a smaller blocking and three K blocks.
RUNS = [
    ("matmul_tiled", {"K": 384, "M": 256, "N": 1024}),
    ("matmul_hoist_load", {"K": 384, "M": 256, "N": 1024}),
    ("matmul_block_free", {"K": 384, "M": 512, "N": 2048}),
    ("matmul_fully_blocked", {"K": 2048, "M": 2048, "N": 1024}),
    ("matmul_fully_blocked", {"K": 768, "M": 512, "N": 2048,
                              "TILES_IN_BLOCK_M": 2, "TILES_IN_BLOCK_K": 2}),
]

passed = 0
failed = 0


def ok():
    global passed
    passed += 1


def fail(what, detail=""):
    global failed
    failed += 1
    print("FAIL %s%s" % (what, (": " + detail) if detail else ""))


def spec_path(name):
    if name.startswith("matmul_"):
        return os.path.join(ROOT, "examples", name + ".yaml")
    return os.path.join(HERE, "specs", name + ".yaml")


def dflags(defines):
    out = []
    for k, v in defines.items():
        out += ["-D", "%s=%d" % (k, v)]
    return out


def tg(*args):
    return subprocess.run([TILEGEN] + list(args), capture_output=True, text=True)


def spec_target(path):
    m = re.search(r"^target:\s*(\w+)", open(path).read(), re.M)
    return m.group(1) if m else "trn1"


# --- inputs and references ------------------------------------------------------

def bf16_inputs(rng, shape):
    """Random bf16 values in [-1, 1): (raw bits for the .npy, float32 values)."""
    bits = fp.encode(rng.uniform(-1.0, 1.0, size=shape).astype(np.float32), BF16)
    return bits, fp.decode(bits, BF16).astype(np.float32)


def to_bf16(x32):
    return fp.decode(fp.encode(x32.astype(np.float32), BF16), BF16).astype(np.float32)


def psum_sum(a, b, k0, k1):
    """PSUM semantics of SPEC.md §5: products of bf16 values are exact in fp32;
    they are summed in fp32, from +0, in increasing k (one rounding per add)."""
    acc = np.zeros((a.shape[1], b.shape[1]), np.float32)
    for k in range(k0, k1):
        acc += np.outer(a[k], b[k]).astype(np.float32)
    return acc


def reference(name, a, b, d):
    """The result each kernel computes, with its roundings: (values, count of
    bf16 roundings applied to a partial sum)."""
    K = a.shape[0]
    if name != "matmul_fully_blocked":
        return to_bf16(psum_sum(a, b, 0, K)), 1
    # K blocks of 128*TILES_IN_BLOCK_K: each block's PSUM sum is added in fp32
    # to the bf16 SBUF result block and rounded to bf16 (tensor_tensor add).
    bk = 128 * d.get("TILES_IN_BLOCK_K", 8)
    acc = np.zeros((a.shape[1], b.shape[1]), np.float32)
    for k0 in range(0, K, bk):
        acc = to_bf16(acc + psum_sum(a, b, k0, k0 + bk))
    return acc, K // bk


def run_matmul(name, defines, seed):
    label = "%s %s" % (name, " ".join("%s=%d" % kv for kv in defines.items()))
    d = os.path.join(WORK, "%s-%d" % (name, seed))
    os.makedirs(d, exist_ok=True)
    K, M, N = defines["K"], defines["M"], defines["N"]
    rng = np.random.default_rng(seed)
    abits, a = bf16_inputs(rng, (K, M))
    bbits, b = bf16_inputs(rng, (K, N))
    np.save(os.path.join(d, "lhsT.npy"), abits)
    np.save(os.path.join(d, "rhs.npy"), bbits)
    out = os.path.join(d, "result.npy")
    r = tg("run", spec_path(name), *dflags(defines), "--in", "lhsT=" + os.path.join(d, "lhsT.npy"),
           "--in", "rhs=" + os.path.join(d, "rhs.npy"), "--out", "result=" + out)
    if r.returncode != 0:
        fail(label + ": tilegen run", r.stderr.strip()[:400])
        return
    y = fp.decode(np.load(out), BF16).astype(np.float64)
    want, nround = reference(name, a, b, defines)
    failed0 = failed
    # 1. Bit-exact against the rounding-faithful model: every rounding is fixed
    #    by SPEC.md §5, so there is nothing to tolerate.
    bad = np.argwhere(y != want.astype(np.float64))
    if len(bad):
        i, j = bad[0]
        fail(label + ": not bit-exact vs the fp32 sequential-k reference",
             "%d elements differ, first [%d,%d] %r vs %r" % (len(bad), i, j, y[i, j], want[i, j]))
    else:
        ok()
    # 2. Against lhsT.T @ rhs in fp64: |y - ref| <= (nround*u_bf16 + K*u_32) *
    #    sum_k |a_k||b_k|, the first-order bound of nround bf16 roundings of
    #    partial sums bounded by sum|a||b| and K fp32 additions; the factor 1.01
    #    covers second-order terms. A wrong tile index or a dropped k shows up
    #    as an error of the order of one product, far above this bound.
    ref = a.T.astype(np.float64) @ b.astype(np.float64)
    mag = np.abs(a.T.astype(np.float64)) @ np.abs(b.astype(np.float64))
    bound = 1.01 * (nround * U_BF16 + K * U32) * mag
    err = np.abs(y - ref)
    if np.all(err <= bound):
        ok()
    else:
        i, j = np.unravel_index(np.argmax(err - bound), err.shape)
        fail(label + ": outside the error bound vs fp64 lhsT.T @ rhs",
             "[%d,%d] %r vs %r, bound %g" % (i, j, y[i, j], ref[i, j], bound[i, j]))
    if failed == failed0:
        print("ok %s: bit-exact vs the fp32 sequential-k model; max |err| vs fp64 %.3g (%.3g of sum|a||b|)"
              % (label, err.max(), (err / np.maximum(mag, 1e-30)).max()))


def run_dma(name, seed):
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    src = open(spec_path(name)).read()
    m = re.search(r"in_tensor: \{dtype: (\w+), shape: \[(\d+), (\d+)\]\}", src)
    dtype, shape = m.group(1), (int(m.group(2)), int(m.group(3)))
    rng = np.random.default_rng(seed)
    x32 = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
    if dtype == "bfloat16":
        xin = fp.encode(x32, BF16)
        x32 = fp.decode(xin, BF16).astype(np.float32)
    else:
        xin = x32
    np.save(os.path.join(d, "in.npy"), xin)
    out = os.path.join(d, "out.npy")
    r = tg("run", spec_path(name), "--in", "in_tensor=" + os.path.join(d, "in.npy"), "--out", "out_tensor=" + out)
    if r.returncode != 0:
        fail(name + ": tilegen run", r.stderr.strip()[:400])
        return
    y = np.load(out)
    if "exp" not in src:
        # A load and a store: the bytes come back unchanged.
        if np.array_equal(y.view(np.uint32), xin.view(np.uint32)):
            ok()
        else:
            fail(name + ": load + store did not return the input bits")
        return
    # exp then a bf16 store: the fp32 exp (a few fp32 ulps, docs/numerics.md)
    # rounded to bf16 lies within one bf16 ulp (<= 2^-7 relative) of exp(x).
    yv = fp.decode(y, BF16).astype(np.float64)
    ref = np.exp(x32.astype(np.float64))
    err = np.abs(yv - ref) / ref
    if err.max() <= ULP_BF16:
        ok()
    else:
        fail(name + ": exp outside one bf16 ulp", "max rel err %g" % err.max())


# --- full size: check, gen, SBUF plan -------------------------------------------

def full_size(name):
    path = spec_path(name)
    r = tg("check", path)
    if r.returncode == 0:
        ok()
    else:
        fail(name + ": tilegen check", r.stderr.strip()[:400])
    gdir = os.path.join(WORK, "gen-" + name)
    os.makedirs(gdir, exist_ok=True)
    r = tg("gen", "--report", "-o", gdir, path)
    if r.returncode != 0:
        fail(name + ": tilegen gen", r.stderr.strip()[:400])
        return
    m = re.search(r"SBUF peak (\d+) of (\d+) bytes per partition", r.stdout)
    files = [os.path.join(gdir, name + e) for e in (".h", ".c", ".s")]
    cap = USABLE_SBUF[spec_target(path)]
    if m and int(m.group(1)) <= cap == int(m.group(2)) and all(os.path.getsize(f) > 0 for f in files):
        ok()
        print("ok %s: gen at full size, SBUF peak %s of %s bytes per partition" % (name, m.group(1), m.group(2)))
    else:
        fail(name + ": gen --report", "SBUF line %r, expected capacity %d" % (m and m.group(0), cap))


# --- published.tsv ----------------------------------------------------------------

def published():
    path = os.path.join(HERE, "published.tsv")
    rows = [ln for ln in open(path).read().splitlines() if ln and not ln.startswith("#")]
    header = rows[0].split("\t")
    want = ["case", "spec", "target", "defines", "published_ns", "check", "source"]
    if header != want:
        fail("published.tsv header", repr(header))
        return
    ok()
    mm = []
    for row in csv.reader(rows[1:], delimiter="\t", quoting=csv.QUOTE_NONE):
        case = row[0] if row else "?"
        if len(row) != 7 or not all(f.strip() for f in row):
            fail("published.tsv %s: expected 7 non-empty fields" % case, repr(row))
            continue
        case, spec, target, defines, ns, check, source = row
        problems = []
        spath = os.path.join(ROOT, spec)
        if not os.path.isfile(spath):
            problems.append("no spec " + spec)
        elif spec_target(spath) != target:
            problems.append("spec target %s != %s" % (spec_target(spath), target))
        if check not in ("order", "within40"):
            problems.append("check " + check)
        try:
            nsv = float(ns)
            if nsv <= 0:
                problems.append("published_ns <= 0")
        except ValueError:
            problems.append("published_ns " + ns)
        dl = [] if defines == "-" else defines.split()
        if any(not re.fullmatch(r"\w+=\d+", x) for x in dl):
            problems.append("defines " + defines)
        if not problems:
            r = tg("check", spath, *sum((["-D", x] for x in dl), []))
            if r.returncode != 0:
                problems.append("tilegen check: " + r.stderr.strip()[:300])
        if problems:
            fail("published.tsv " + case, "; ".join(problems))
        else:
            ok()
            if spec.startswith("examples/matmul_"):
                mm.append((nsv, os.path.basename(spec)[:-len(".yaml")]))
    # The tutorial's four variants, in its order, each faster than the last.
    values = [v for v, _ in mm]
    if [n for _, n in mm] == MATMULS and values == sorted(values, reverse=True):
        ok()
    else:
        fail("published.tsv matmul rows", "expected the four variants in the tutorial's order, slowest first: %r" % mm)


def main():
    os.makedirs(WORK, exist_ok=True)
    for name in MATMULS + DMA_SPECS:
        full_size(name)
    for i, (name, defines) in enumerate(RUNS):
        run_matmul(name, defines, 7 + i)
    for i, name in enumerate(DMA_SPECS):
        run_dma(name, 100 + i)
    published()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
