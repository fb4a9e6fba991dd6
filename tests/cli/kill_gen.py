#!/usr/bin/env python3
"""Kill `tilegen gen` at random moments and check what it leaves.

One gen run writes three kernels (softmax, layernorm, rmsnorm: .h .c .s .d)
with -D N=128 or -D N=256 in turn, into a directory that holds a complete
set of the other size. Each run gets SIGTERM, SIGINT or SIGHUP after a random
delay within its usual duration. After every kill the directory must hold no
temporary and exactly one of the two reference sets, whole (every file of
every kernel from the same run). Prints "N passed, M failed".

Usage: kill_gen.py TILEGEN WORKDIR [KILLS]
"""
import os
import random
import signal
import subprocess
import sys
import time

SPECS = ["specs/softmax.yaml", "specs/layernorm.yaml", "specs/rmsnorm.yaml"]
SIGNALS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]


def gen_cmd(tilegen, outdir, n):
    return [tilegen, "gen", "-MD", "-o", outdir, "-D", "N=%d" % n] + SPECS


def snapshot(d):
    """Every file of d by name (the directory's own name in depfiles as DIR)."""
    return {f: open(os.path.join(d, f), "rb").read().replace(d.encode(), b"DIR") for f in sorted(os.listdir(d))}


def main():
    tilegen, work = sys.argv[1], sys.argv[2]
    kills = int(sys.argv[3]) if len(sys.argv) > 3 else 150
    rng = random.Random(20261124)
    os.makedirs(work, exist_ok=True)
    refs = {}
    for n in (128, 256):
        d = os.path.join(work, "ref%d" % n)
        subprocess.run(["rm", "-rf", d], check=True)
        os.makedirs(d)
        subprocess.run(gen_cmd(tilegen, d, n), check=True)
        refs[n] = snapshot(d)
    assert refs[128].keys() == refs[256].keys() and len(refs[128]) == 12, sorted(refs[128])
    assert all(refs[128][f] != refs[256][f] for f in refs[128] if not f.endswith(".d"))
    out = os.path.join(work, "out")
    subprocess.run(["rm", "-rf", out], check=True)
    os.makedirs(out)
    subprocess.run(gen_cmd(tilegen, out, 128), check=True)
    # the usual duration, timed as the kills are: from Popen's return (the
    # child started) to its exit, the fastest of five runs. Timing the whole
    # subprocess.run of one run (process start included, and a run slowed by
    # the suites beside it) let most kills land after the run had ended.
    subprocess.run(["rm", "-rf", os.path.join(work, "timing")], check=True)
    os.makedirs(os.path.join(work, "timing"))
    span = None
    for k in range(5):
        p = subprocess.Popen(gen_cmd(tilegen, os.path.join(work, "timing"), 256 if k % 2 else 128))
        t0 = time.monotonic()
        if p.wait() != 0:
            raise SystemExit("timing run failed")
        t = time.monotonic() - t0
        span = t if span is None else min(span, t)
    passed = failed = interrupted = completed = 0
    have = 128
    for i in range(kills):
        want = 256 if have == 128 else 128
        p = subprocess.Popen(gen_cmd(tilegen, out, want), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, span * 1.2))
        sig = SIGNALS[i % len(SIGNALS)]
        try:
            p.send_signal(sig)
        except ProcessLookupError:
            pass
        rc = p.wait()
        if rc == 0:
            completed += 1
        else:
            interrupted += 1
        got = snapshot(out)
        temps = [f for f in got if f not in refs[128]]
        which = [n for n in (128, 256) if got == refs[n]]
        if temps or not which:
            failed += 1
            mixed = sorted(f for f in refs[128] if f in got and got[f] not in (refs[128][f], refs[256][f]))
            print("FAIL kill %d (%s, exit %d): temporaries %s, whole set: %s, files of neither set: %s" %
                  (i, signal.Signals(sig).name, rc, temps, which, mixed))
            subprocess.run(["rm", "-rf", out], check=True)
            os.makedirs(out)
            subprocess.run(gen_cmd(tilegen, out, 128), check=True)
            have = 128
        else:
            passed += 1
            have = which[0]
    print("kills: %d interrupted a run, %d came after it completed (run takes %.0f ms)" %
          (interrupted, completed, span * 1e3))
    if interrupted < kills // 4:
        failed += 1
        print("FAIL too few kills landed inside a run: %d of %d" % (interrupted, kills))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
