#!/usr/bin/env python3
"""tests/cost/check_profile.py - `tilegen profile` on every bundled spec, read
back by machine, not by eye:

- the --json object has the fields SPEC.md section 6 fixes, with sane values;
- invariants of a schedule: latency >= every engine's busy time and <= their
  sum; the per-line critical-path times sum to at most the latency;
- the --trace file is valid Chrome trace-event JSON: known tracks, slices with
  non-negative durations inside [0, latency], spec lines inside the spec, every
  flow start with its finish, every async begin with its end;
- the --svg file is well-formed XML with one row label per track;
- `bufs: 2` is never slower than the same kernel with `bufs: 1`, and a
  double-buffered kernel shows a DMA in flight during compute in its trace;
- --execute gives the same times as the timing-only run.

Usage: check_profile.py TILEGEN SPEC...   Prints "N passed, M failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ENGINES = ("pe", "act", "dve", "pool", "dma")
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)
    return cond


def profile(tilegen, spec, *extra):
    r = subprocess.run([tilegen, "profile", spec, *extra], capture_output=True, text=True)
    return r


def check_json(name, js, nlines):
    ok = all(k in js for k in ("kernel", "target", "latency_ns", "engines", "flops", "hfu", "bottleneck", "lines"))
    if not check(ok, f"{name}: json lacks a SPEC.md section 6 field: {sorted(js)}"):
        return False
    check(set(js["engines"]) >= set(ENGINES), f"{name}: engines keys {sorted(js['engines'])}")
    for e in ENGINES:
        v = js["engines"][e]
        check(v["busy_ns"] >= 0 and isinstance(v["instructions"], int), f"{name}: engine {e} {v}")
    lat = js["latency_ns"]
    check(lat > 0, f"{name}: latency {lat}")
    check(0.0 <= js["hfu"] <= 1.0, f"{name}: hfu {js['hfu']}")
    check(js["bottleneck"] in ENGINES, f"{name}: bottleneck {js['bottleneck']}")
    busy = [js["engines"][e]["busy_ns"] for e in ENGINES]
    eps = 1e-3 * max(1.0, lat) * 1e-3
    # cores: 2 (SPEC.md section 2.1): each kind of engine is there once per
    # physical core, busy time sums them, the latency is the last core's
    cores = js.get("cores") or [{"latency_ns": lat}]
    n = len(cores)
    check(abs(max(c["latency_ns"] for c in cores) - lat) <= eps, f"{name}: latency {lat} is not the last core's {cores}")
    check(all(abs(sum(c["engines"][e]["busy_ns"] for c in cores) - js["engines"][e]["busy_ns"]) <= eps * 10
              for e in ENGINES) if n > 1 or "engines" in cores[0] else True,
          f"{name}: the cores' busy times do not sum to the engines'")
    check(all(b <= n * lat + eps for b in busy), f"{name}: an engine busier than the latency: {busy} > {lat}")
    check(lat <= sum(busy) + eps, f"{name}: latency {lat} above the sum of busy times {sum(busy)}")
    check(js["bottleneck"] == ENGINES[max(range(5), key=lambda i: (busy[i], -i))],
          f"{name}: bottleneck {js['bottleneck']} is not the busiest engine {busy}")
    crit = sum(l["ns"] for l in js["lines"])
    check(crit <= lat * (1 + 1e-9) + 1e-3, f"{name}: critical path by line {crit} > latency {lat}")
    check(all(1 <= l["line"] <= nlines for l in js["lines"]), f"{name}: a line outside the spec")
    check(all(l["engines"][e] <= n * lat + eps for l in js["lines"] for e in ENGINES),
          f"{name}: a line busier on one engine than the whole run")
    check(js["flops"] == 0 or js["engines"]["pe"]["instructions"] > 0, f"{name}: FLOPs without PE work")
    return True


def check_trace(name, path, lat_ns, nlines):
    with open(path) as f:
        tr = json.load(f)
    ev = tr.get("traceEvents")
    if not check(isinstance(ev, list) and ev, f"{name}: trace has no traceEvents"):
        return
    names = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
    ok_names = all(re.fullmatch(r"Tensor \(PE\)|Scalar \(ACT\)|Vector \(DVE\)|GpSimd \(POOL\)|DMA queue \d+|DMA-E\d+", n)
                   for n in names.values())
    check(ok_names and names, f"{name}: track names {sorted(names.values())}")
    end_max = 0.0
    bad = []
    begins, ends, flows_s, flows_f = {}, {}, set(), set()
    for e in ev:
        ph = e.get("ph")
        if ph == "X":
            if e["tid"] not in names or e["dur"] < 0 or e["ts"] < 0 or not (0 <= e["args"]["line"] <= nlines):
                bad.append(e)
            end_max = max(end_max, e["ts"] + e["dur"])
        elif ph == "b":
            begins[(e["tid"], e["id"])] = e["ts"]
        elif ph == "e":
            ends[(e["tid"], e["id"])] = e["ts"]
            end_max = max(end_max, e["ts"])
        elif ph == "s":
            flows_s.add(e["id"])
        elif ph == "f":
            flows_f.add(e["id"])
    check(not bad, f"{name}: {len(bad)} malformed slices, first {bad[:1]}")
    check(set(begins) == set(ends) and all(ends[k] >= begins[k] for k in begins), f"{name}: unbalanced async slices")
    check(flows_s == flows_f, f"{name}: flows without both ends")
    check(abs(end_max * 1000.0 - lat_ns) <= 1e-3 * lat_ns + 1.0,
          f"{name}: trace ends at {end_max * 1000.0} ns, latency {lat_ns} ns")


REFS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numerics", "refs.py")


def ref_inputs(spec, tmp):
    """`--in` arguments with the kernel's reference inputs (tests/numerics/refs.py)
    when it has them: `tilegen run`'s seeded random inputs need not be valid
    for a kernel, e.g. an index column out of range (TG_EBOUNDS)."""
    k = os.path.splitext(os.path.basename(spec))[0]
    d = os.path.join(tmp, "in_" + k)
    r = subprocess.run([sys.executable, REFS, "inputs", k, "--seed", "0", "--dir", d], capture_output=True)
    if r.returncode != 0:
        return []
    return [a for f in sorted(os.listdir(d)) for a in ("--in", "%s=%s" % (f[:-4], os.path.join(d, f)))]


def dma_overlaps_compute(path):
    """1 when some DMA in flight (a DMA-queue slice) overlaps a compute
    instruction (an engine's slice that is not a semaphore wait)."""
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
    begin = {}
    dma = []
    for e in ev:
        if e.get("ph") == "b" and e.get("name", "").startswith("dma."):
            begin[(e["tid"], e["id"])] = e["ts"]
        elif e.get("ph") == "e" and (e["tid"], e["id"]) in begin:
            dma.append((begin.pop((e["tid"], e["id"])), e["ts"]))
    comp = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                  if e.get("ph") == "X" and e.get("cat") == "instruction" and e["name"] not in ("wait", "signal")
                  and not names.get(e["tid"], "").startswith("DMA"))
    for a, b in dma:
        for c, d in comp:
            if c >= b:
                break
            if d > a and c < b:
                return True
    return False


def check_svg(name, path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        check(False, f"{name}: svg is not well-formed: {err}")
        return
    ns = "{http://www.w3.org/2000/svg}"
    rects = root.findall(f".//{ns}rect")
    titled = [r for r in rects if r.find(f"{ns}title") is not None]
    check(root.tag == f"{ns}svg" and titled, f"{name}: svg has no instruction slices")
    check(all(re.search(r":\d+", r.find(f"{ns}title").text or "") for r in titled), f"{name}: a slice without its spec line")


def main():
    tilegen, specs = sys.argv[1], sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix="tilegen_cost_")
    for spec in specs:
        name = os.path.basename(spec)
        with open(spec) as f:
            text = f.read()
        nlines = text.count("\n") + 1
        tr, svg = os.path.join(tmp, "t.json"), os.path.join(tmp, "t.svg")
        r = profile(tilegen, spec, "--json", "-", "--trace", tr, "--svg", svg)
        if not check(r.returncode == 0, f"{name}: profile failed: {r.stderr}"):
            continue
        js = json.loads(r.stdout)
        if not check_json(name, js, nlines):
            continue
        check_trace(name, tr, js["latency_ns"], nlines)
        check_svg(name, svg)
        # the model executes exactly the program the ISS executes: the same
        # instructions per engine as `tilegen run` counts (on the kernel's
        # reference inputs where refs.py has them)
        rr = subprocess.run([tilegen, "run", spec, *ref_inputs(spec, tmp)], capture_output=True, text=True)
        if check(rr.returncode == 0, f"{name}: tilegen run failed: {rr.stderr}"):
            iss = {m.group(1): int(m.group(2)) for m in re.finditer(r"^  (dma|pe|dve|act|pool)\s+(\d+)", rr.stdout, re.M)}
            check(all(js["engines"][e]["instructions"] == iss.get(e, 0) for e in ENGINES),
                  f"{name}: instructions per engine differ from the ISS: {iss} vs "
                  f"{ {e: js['engines'][e]['instructions'] for e in ENGINES} }")
        rx = profile(tilegen, spec, "--json", "-", "--execute")
        check(rx.returncode == 0 and json.loads(rx.stdout)["latency_ns"] == js["latency_ns"],
              f"{name}: --execute changes the times or fails: {rx.stderr}")
        if re.search(r"bufs:\s*[2-9]", text) and re.search(r"- (load|store):", text):
            check(dma_overlaps_compute(tr), f"{name}: double-buffered, yet no DMA overlaps compute in the trace")
        if re.search(r"bufs:\s*[2-9]", text):
            one = os.path.join(tmp, name)
            with open(one, "w") as f:
                f.write(re.sub(r"bufs:\s*[2-9]", "bufs: 1", text))
            r1 = profile(tilegen, one, "--json", "-")
            if check(r1.returncode == 0, f"{name} with bufs 1: {r1.stderr}"):
                l1 = json.loads(r1.stdout)["latency_ns"]
                check(js["latency_ns"] <= l1 * (1 + 1e-9),
                      f"{name}: bufs 2 ({js['latency_ns']} ns) slower than bufs 1 ({l1} ns)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
