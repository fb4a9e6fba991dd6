#!/usr/bin/env python3
"""tools/bench_profile.py - `make bench-profile`: wall time of `tilegen profile`
(timing only, and with --trace/--svg) on the NKI matmul tutorial's kernels at
their published size (bf16 4096x8192 @ 8192x8192), best of 3. Bar: 1 s for the
timing-only run."""
import subprocess
import sys
import time

tilegen = sys.argv[1]
print("bench-profile: tilegen profile of the NKI tutorial matmuls (bf16 4096x8192 @ 8192x8192), best of 3")
print(f"  {'kernel':24} {'profile':>9} {'+svg':>9}  bar 1 s")
for v in ("tiled", "hoist_load", "block_free", "fully_blocked"):
    row = []
    for extra in ([], ["--svg", "/dev/null"]):
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([tilegen, "profile", f"examples/matmul_{v}.yaml", "--top", "0", *extra],
                           check=True, stdout=subprocess.DEVNULL)
            t = time.perf_counter() - t0
            best = t if best is None or t < best else best
        row.append(best)
    print(f"  matmul_{v:17} {row[0]:8.3f}s {row[1]:8.3f}s  {'ok' if row[0] < 1.0 else 'OVER'}")
