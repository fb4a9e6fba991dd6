#!/usr/bin/python3
"""What every numpy reference shares (refs.py and the NKI library ports in ports/):
the .npy storage format of SPEC.md §3, the fp32/bf16 rounding models, unit
roundoffs, and the record a kernel's reference is registered with."""
import numpy as np

import fpformat as fp

U32 = 2.0 ** -24        # unit roundoff of float32 (half an ulp at 1.0)
U_BF16 = 2.0 ** -8      # unit roundoff of bfloat16 (8 significant bits)
ULP_BF16 = 2.0 ** -7    # relative spacing of bfloat16 values (one ulp at 1.0)
TINY = 2.0 ** -126      # smallest normal float32: absorbs subnormal flushing


# --- storage format (SPEC.md §3) ----------------------------------------------

def to_storage(values, dtype):
    """float values -> the array a .npy of this dtype holds (raw bits for narrow floats).
    An array of a narrow float's storage dtype is taken as its raw bits already (an
    output whose bytes several views wrote: reflib.Packed)."""
    if dtype in fp.FORMATS and isinstance(values, np.ndarray) and values.dtype == fp.FORMATS[dtype].storage:
        return values
    if dtype in ("float32", "tfloat32"):
        return np.asarray(values, dtype="<f4")
    if dtype in fp.FORMATS:
        return fp.encode(np.asarray(values, dtype=np.float32), fp.FORMATS[dtype])
    return np.asarray(values).astype(np.dtype(dtype))


def from_storage(arr, dtype):
    """A stored array -> float64 values (exact)."""
    arr = np.asarray(arr)
    if dtype == "float16" and arr.dtype == np.float16:
        return arr.astype(np.float64)
    if dtype in fp.FORMATS:
        if arr.dtype != fp.FORMATS[dtype].storage:
            raise ValueError("%s must be stored as raw %s bits, got %s"
                             % (dtype, np.dtype(fp.FORMATS[dtype].storage), arr.dtype))
        return fp.decode(arr, fp.FORMATS[dtype]).astype(np.float64)
    return arr.astype(np.float64)


def storage_dtype(dtype):
    if dtype in ("float32", "tfloat32"):
        return np.dtype("<f4")
    if dtype in fp.FORMATS:
        return np.dtype(fp.FORMATS[dtype].storage)
    return np.dtype(dtype)


def f32(x):
    """Round fp64 values to float32 and back (one fp32 rounding)."""
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def bf16(x):
    """fp64 -> fp32 -> bf16: the value a Vector/Scalar op writing bf16 keeps."""
    return fp.round_to(np.asarray(x, dtype=np.float32), fp.BF16).astype(np.float64)


def flip(pre, dpre):
    """Largest |bf16(kernel value) - bf16(pre)| when the kernel's fp32 value is within
    dpre of pre: zero unless [pre - dpre, pre + dpre] straddles a bf16 rounding
    boundary, then one bf16 step (rounding is monotone)."""
    return bf16(pre + dpre) - bf16(pre - dpre)


def kernel(params, inputs, outputs, make, ref, emulate=None):
    """A kernel's record: params; [(name, dtype, "shape exprs")] inputs and outputs;
    make(params, rng) -> {input: float values}; ref(params, {input: fp64 values})
    -> {output: (expected fp64 values, per-element tolerance or "exact")}; optional
    emulate(params, {input: float32 values}) -> {output: values}, a plausible fp32
    implementation with its own summation orders that the tolerances must accept
    (refs_selftest.py)."""
    return {"params": params, "inputs": inputs, "outputs": outputs, "make": make, "ref": ref,
            "emulate": emulate}


class Packed:
    """The bound of an output whose bytes hold values of more than one dtype, written
    through bitcast views (SPEC.md §2.1), e.g. fp8 data with an fp32 scale in each row's
    last 4 bytes. `storage` is the expected array in the output's storage dtype (its
    exact bytes); `parts` is [(label, pick, expected fp64, bound)], pick(storage array)
    -> fp64 values of that part, bound "exact" or an array of allowed |got - expected|.
    The compare checks each part; perturb(storage) -> a copy that some part must
    reject (the selftest's wrong output)."""

    def __init__(self, storage, parts, perturb):
        self.storage, self.parts, self.perturb = storage, parts, perturb

    def check(self, got):
        """[(label, ok, detail)] of each part of the stored array got."""
        out = []
        for label, pick, exp, bound in self.parts:
            g = pick(got)
            diff = np.abs(g - exp)
            diff = np.where(np.isnan(g) & np.isnan(exp), 0.0, diff)
            diff = np.where(np.isnan(diff), np.inf, diff)
            if isinstance(bound, str):
                ok = bool(np.array_equal(np.asarray(g, np.float32).view(np.uint32),
                                         np.asarray(exp, np.float32).view(np.uint32)))
                tol = "exact"
            else:
                ratio = diff / bound
                ok = bool(np.all(ratio <= 1.0))
                tol = "worst err/tol %.3g (max tol %.3g)" % (float(ratio.max()), float(np.max(bound)))
            out.append((label, ok, "max_abs %.3e  %s" % (float(diff.max()), tol)))
        return out
