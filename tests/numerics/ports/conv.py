"""numpy references for the nki-library convolution ports: specs/conv1d.yaml
(experimental/conv/conv1d.py) and specs/depthwise_conv1d.yaml
(experimental/conv/depthwise_conv1d.py). Both are sums of fp32 products in an
order SPEC.md §5 fixes (matmul: each product rounded to fp32, summed in fp32 in
increasing contraction index, i.e. partition order), modelled step by step:
every output is exact."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import reflib  # noqa: E402


def _inputs_conv1d(p, r):
    return {"x": r.standard_normal((p["B"], p["CI"], p["L"])),
            "filters": r.standard_normal((p["K"], p["CI"], p["CO"])) / np.sqrt(p["K"] * p["CI"]),
            "bias": r.standard_normal(p["CO"])}


def _ref_conv1d(p, x):
    # The kernel's contraction order: the stacked partitions are tap-major
    # (partition PS*r + c = tap ko*KR + r, channel c), the stacked matmuls run in
    # increasing ko, so the products are added in increasing tap k, then channel
    # c; padding columns contribute 0 * f. Then one fp32 add of the bias.
    f32 = np.float32
    k_, ci, lo = p["K"], p["CI"], p["L"] + p["PL"] + p["PR"] - p["K"] + 1
    xp = np.pad(np.asarray(x["x"], f32), ((0, 0), (0, 0), (p["PL"], p["PR"])))
    w = np.asarray(x["filters"], f32)
    acc = None
    for k in range(k_):
        for c in range(ci):
            prod = w[k, c][None, :, None] * xp[:, c, k:k + lo][:, None, :]   # [B, CO, LO] fp32
            acc = prod if acc is None else acc + prod
    y = acc + np.asarray(x["bias"], f32)[None, :, None]
    return {"y": (y.astype(np.float64), "exact")}


def _inputs_depthwise(p, r):
    return {"img": r.standard_normal((p["N"], p["C"], 1, p["W"])),
            "filter": r.standard_normal((p["C"], 1, 1, p["S"])) / np.sqrt(p["S"])}


def _ref_depthwise(p, x):
    # One [1, Q] matmul per channel over the S taps on partitions: products
    # rounded to fp32 and added in increasing tap s (padding reads 0).
    f32 = np.float32
    s_, q = p["S"], p["W"] + p["PL"] + p["PR"] - p["S"] + 1
    xp = np.pad(np.asarray(x["img"], f32)[:, :, 0, :], ((0, 0), (0, 0), (p["PL"], p["PR"])))
    w = np.asarray(x["filter"], f32)[:, 0, 0, :]                       # [C, S]
    acc = None
    for s in range(s_):
        prod = w[None, :, s, None] * xp[:, :, s:s + q]                 # [N, C, Q] fp32
        acc = prod if acc is None else acc + prod
    return {"out": (acc[:, :, None, :].astype(np.float64), "exact")}


KERNELS = {
    "conv1d": reflib.kernel(
        {"B": 2, "CI": 32, "CO": 96, "K": 5, "L": 600, "PL": 2, "PR": 2, "KR": 4, "PS": 32,
         "KO": 2, "LT": 512},
        [("x", "float32", "B, CI, L"), ("filters", "float32", "K, CI, CO"),
         ("bias", "float32", "CO")],
        [("y", "float32", "B, CO, L + PL + PR - K + 1")],
        _inputs_conv1d, _ref_conv1d),
    "depthwise_conv1d": reflib.kernel(
        {"N": 2, "C": 16, "W": 700, "S": 4, "PL": 2, "PR": 1, "QT": 512},
        [("img", "float32", "N, C, 1, W"), ("filter", "float32", "C, 1, 1, S")],
        [("out", "float32", "N, C, 1, W + PL + PR - S + 1")],
        _inputs_depthwise, _ref_depthwise),
}
