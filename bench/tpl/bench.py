"""Benchmark: render bench/tpl/kernel_table.j2 (a loop-heavy template, > 1 MB
of output) with ctemplate and with python3-jinja2 on the same JSON context.
The bar compares render times (template loaded, context in memory, best of N)
measured in-process on both sides (bench_tpl.c / jinja2's Template.render);
the whole `tilegen tpl` process time (context parse + load + render + write)
is printed beside it for information. Outputs must be byte-identical.
Target: render ratio >= 10."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "tpl"))
import run as tplrun  # the differential runner's env + host-filter twins

HERE = os.path.dirname(os.path.abspath(__file__))
tilegen, out_dir, bench_bin = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out_dir, exist_ok=True)

engines = ["ACT", "DVE", "PE", "POOL", "SP"]
kernels = []
for k in range(400):
    ops = [{"name": f"op{k}_{i}", "engine": engines[(k + i) % 5].lower(), "addr": (k * 4096 + i * 64),
            "bytes": 64 * (i + 1), "scale": 1.0 / (i + 1)} for i in range(40)]
    kernels.append({"name": f"kernel-{k}", "ops": ops, "tags": ["fused", "v2"] if k % 3 == 0 else []})
ctx = {"title": "bench", "kernels": kernels}
ctx_file = os.path.join(out_dir, "ctx.json")
with open(ctx_file, "w") as f:
    json.dump(ctx, f)

env = tplrun.make_env([HERE])
tmpl = env.get_template("kernel_table.j2")
runs = 5
best_j = float("inf")
for _ in range(runs):
    t0 = time.perf_counter()
    want = tmpl.render(ctx)
    best_j = min(best_j, time.perf_counter() - t0)
want = want.encode()

best_c = float("inf")
for _ in range(runs):
    t0 = time.perf_counter()
    got = subprocess.run([tilegen, "tpl", os.path.join(HERE, "kernel_table.j2"), "--context", ctx_file],
                         capture_output=True, check=True).stdout
    best_c = min(best_c, time.perf_counter() - t0)
if got != want:
    print("bench-tpl: ctemplate output differs from jinja2!")
    sys.exit(1)
ms, size = subprocess.run([bench_bin, os.path.join(HERE, "kernel_table.j2"), ctx_file, "20"],
                          capture_output=True, check=True, text=True).stdout.split()
render_c = float(ms) / 1e3
assert int(size) == len(got)
print(f"bench-tpl: {len(got) / 1e6:.2f} MB output")
print(f"  render only   ctemplate {render_c * 1e3:8.1f} ms   python3-jinja2 {best_j * 1e3:8.1f} ms"
      f"   ratio {best_j / render_c:5.1f}x  (target >= 10x)")
print(f"  whole process `tilegen tpl` (incl. reading the JSON context): {best_c * 1e3:.1f} ms"
      f"   ratio {best_j / best_c:.1f}x")
