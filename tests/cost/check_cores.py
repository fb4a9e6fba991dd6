#!/usr/bin/env python3
"""tests/cost/check_cores.py - `cores: 2` (SPEC.md section 2.1) in the timing
model, from first principles (no fitted constant): each spec of tests/cost/cores/
has a param C (its `cores:`) and is profiled with C = 2 and with -D C=1.

- both physical cores appear: two entries in the JSON `cores`, two trace
  processes with slices, rows labelled per core in the SVG;
- a compute-bound kernel (the Tensor engine busiest, DMA a small share):
  axis 0 split in two even halves, so the speedup is at most 2 (the two
  cores run the same work in parallel) and at least 1.8 (what they share,
  the HBM, is not what bounds it);
- a DMA-bound kernel (DMA busy through the whole one-core run): the two
  cores' bytes per latency never exceed the shared HBM figure the JSON
  reports (`hbm_gbps`), one core's never the 16 engines' peak, and since
  2 x one core's rate is above the HBM figure the speedup stays below 2;
- `tilegen run` gives the same output bytes with either count.

Usage: check_cores.py TILEGEN SPEC...   Prints "N passed, M failed"."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_profile as counts  # noqa: E402  (its check() and pass/fail counters)

check = counts.check


def profile(tilegen, spec, tmp, *extra):
    tr, svg = os.path.join(tmp, "t.json"), os.path.join(tmp, "t.svg")
    r = subprocess.run([tilegen, "profile", spec, "--json", "-", "--trace", tr, "--svg", svg, *extra],
                       capture_output=True, text=True)
    if r.returncode:
        return None, None, None
    with open(tr) as f:
        trace = json.load(f)
    with open(svg) as f:
        return json.loads(r.stdout), trace, f.read()


def main():
    tilegen, specs = sys.argv[1], sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix="tilegen_cores_")
    for spec in specs:
        name = os.path.basename(spec)
        two, trace, svg = profile(tilegen, spec, tmp)
        one, _, _ = profile(tilegen, spec, tmp, "-D", "C=1")
        if not check(two and one, f"{name}: profile failed"):
            continue
        l2, l1 = two["latency_ns"], one["latency_ns"]
        speedup = l1 / l2
        print(f"{name}: one core {l1 / 1000:.3f} us, two cores {l2 / 1000:.3f} us, speedup {speedup:.3f}")
        check(len(two["cores"]) == 2 and len(one["cores"]) == 1, f"{name}: cores in the JSON {len(two['cores'])}")
        pids = {e["pid"] for e in trace["traceEvents"] if e.get("ph") == "X"}
        check(pids == {1, 2}, f"{name}: trace slices on processes {sorted(pids)}, not one per core")
        check("core 0: " in svg and "core 1: " in svg, f"{name}: svg rows not labelled per core")
        busy1 = {e: v["busy_ns"] for e, v in one["engines"].items()}
        dma_bound = busy1["dma"] >= 0.99 * l1 and max(busy1, key=busy1.get) == "dma"
        pe_bound = max(busy1, key=busy1.get) == "pe" and busy1["dma"] < 0.5 * busy1["pe"]
        check(dma_bound or pe_bound, f"{name}: neither compute- nor DMA-bound on one core: {busy1}")
        if pe_bound:
            check(1.8 <= speedup <= 2.0 + 1e-9, f"{name}: compute-bound speedup {speedup} outside [1.8, 2]")
        if dma_bound:
            hbm = two["hbm_gbps"]
            peak1 = one["dma"]["peak_gbps"]
            bw1 = one["dma"]["bytes"] / l1  # B/ns = GB/s
            bw2 = two["dma"]["bytes"] / l2
            print(f"{name}: {bw1:.1f} GB/s on one core (peak {peak1}), {bw2:.1f} GB/s on two (HBM {hbm})")
            check(bw1 <= peak1 * (1 + 1e-9), f"{name}: one core moves {bw1} GB/s, above its DMA peak {peak1}")
            check(bw2 <= hbm * (1 + 1e-9), f"{name}: two cores move {bw2} GB/s, above the shared HBM's {hbm}")
            check(2 * peak1 > hbm and speedup < 2.0, f"{name}: DMA-bound speedup {speedup} not below 2")
            check(speedup > 1.0, f"{name}: two cores no faster ({speedup})")
        outs = []
        for extra in ([], ["-D", "C=1"]):
            d = os.path.join(tmp, "run%d" % len(outs))
            os.makedirs(d, exist_ok=True)
            r = subprocess.run([tilegen, "run", spec, "--seed", "7", *extra, "--out", f"y={d}/y.npy"],
                               capture_output=True, text=True)
            outs.append(open(f"{d}/y.npy", "rb").read() if r.returncode == 0 else None)
        check(outs[0] is not None and outs[0] == outs[1], f"{name}: outputs differ between cores: 2 and cores: 1")
    print(f"{counts.passed} passed, {counts.failed} failed")
    return 1 if counts.failed else 0


if __name__ == "__main__":
    sys.exit(main())
