#!/usr/bin/env python3
"""tests/cost/calibrate.py - the timing model against published on-device
figures (tests/cost/published.tsv, each row with its source):

- rows checked `order`/`within40` of the matmul tutorial: the model ranks the
  four variants as published (each pair more than 15 % apart);
- rows checked `within40`: the model's figure within 40 % of the published one.
  Kernel rows compare `latency_ns`; DMA rows (a transfer's duration as the
  profiler draws it) compare the median duration of the first DMA's per-engine
  transfers in the model's trace.

Usage: calibrate.py TILEGEN [--report]   Prints one line per row and
"N passed, M failed"; --report adds the error table docs/cost.md quotes."""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def rows():
    with open(os.path.join(ROOT, "tests", "cost", "published.tsv")) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def model_figure(tilegen, row, tmp):
    spec = os.path.join(ROOT, row["spec"])
    args = [tilegen, "profile", spec, "--target", row["target"], "--json", "-", "--top", "0"]
    if row["defines"] != "-":
        for d in row["defines"].split():
            args += ["-D", d]
    is_dma = row["case"].startswith("dma_")
    trace = os.path.join(tmp, row["case"] + ".trace.json")
    if is_dma:
        args += ["--trace", trace]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr.strip())
    js = json.loads(r.stdout)
    if not is_dma:
        return js["latency_ns"]
    with open(trace) as f:
        ev = json.load(f)["traceEvents"]
    xfers = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "dma-transfer"]
    first = min(e["args"]["pc"] for e in xfers)
    return statistics.median(e["dur"] * 1000.0 for e in xfers if e["args"]["pc"] == first)


def main():
    tilegen = sys.argv[1]
    report = "--report" in sys.argv[2:]
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="tilegen_cal_")
    got = {}
    table = []
    for row in rows():
        pub = float(row["published_ns"])
        try:
            m = model_figure(tilegen, row, tmp)
        except RuntimeError as err:
            print(f"FAIL: {row['case']}: {err}")
            failed += 1
            continue
        got[row["case"]] = m
        err = (m - pub) / pub
        table.append((row["case"], row["target"], pub, m, err, row["check"]))
        if row["check"] == "within40":
            ok = abs(err) <= 0.40
            print(f"{'ok' if ok else 'FAIL'}: {row['case']}: model {m:.0f} ns, published {pub:.0f} ns ({err:+.1%})")
            passed += ok
            failed += not ok
    # order: every pair of published matmul rows more than 15 % apart ranks the same in the model
    mm = [(r["case"], float(r["published_ns"])) for r in rows() if r["case"].startswith("matmul_") and r["case"] in got]
    for i in range(len(mm)):
        for j in range(i + 1, len(mm)):
            (a, pa), (b, pb) = mm[i], mm[j]
            if max(pa, pb) < 1.15 * min(pa, pb):
                continue
            ok = (pa > pb) == (got[a] > got[b])
            print(f"{'ok' if ok else 'FAIL'}: order {a} vs {b}: published {pa/1e6:.2f} / {pb/1e6:.2f} ms, "
                  f"model {got[a]/1e6:.2f} / {got[b]/1e6:.2f} ms")
            passed += ok
            failed += not ok
    if report:
        print("| case | target | published | model | error | checked |")
        print("| --- | --- | --- | --- | --- | --- |")
        for case, tgt, pub, m, err, chk in table:
            unit, s = ("ms", 1e6) if pub > 1e6 else ("ns", 1.0)
            print(f"| {case} | {tgt} | {pub/s:.2f} {unit} | {m/s:.2f} {unit} | {err:+.1%} | {chk} |")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
