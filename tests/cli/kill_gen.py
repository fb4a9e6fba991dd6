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
import select
import signal
import statistics
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


def ended_within(p, seconds):
    """Whether p exits within the given time, woken at its exit (a pidfd):
    Popen.wait's timeout polls in steps of up to 50 ms, coarse against a
    run of a few tens of milliseconds."""
    try:
        fd = os.pidfd_open(p.pid)
    except (AttributeError, OSError):
        try:
            p.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


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
    # A kill lands at a random moment within a run's usual duration. That
    # duration is the median of the latest runs seen to the end: five timing
    # runs first, then every kill run that ended before its signal. A single
    # timing taken up front went stale when the suites beside this one
    # finished and the runs sped up (in CI fewer than a quarter of the kills
    # then landed inside a run); following the observed runs keeps the kills
    # inside them whatever the machine's load does.
    subprocess.run(["rm", "-rf", os.path.join(work, "timing")], check=True)
    os.makedirs(os.path.join(work, "timing"))
    seen = []
    for k in range(5):
        p = subprocess.Popen(gen_cmd(tilegen, os.path.join(work, "timing"), 256 if k % 2 else 128),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        if p.wait() != 0:
            raise SystemExit("timing run failed")
        seen.append(time.monotonic() - t0)
    passed = failed = interrupted = completed = 0
    have = 128
    for i in range(kills):
        want = 256 if have == 128 else 128
        span = statistics.median(seen[-5:])
        p = subprocess.Popen(gen_cmd(tilegen, out, want), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        sig = SIGNALS[i % len(SIGNALS)]
        if ended_within(p, rng.uniform(0, span * 1.2)):
            seen.append(time.monotonic() - t0)  # ended before its signal
        else:
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
    print("kills: %d interrupted a run, %d came after it completed (runs took %.0f-%.0f ms)" %
          (interrupted, completed, min(seen) * 1e3, max(seen) * 1e3))
    if interrupted < kills // 4:
        failed += 1
        print("FAIL too few kills landed inside a run: %d of %d" % (interrupted, kills))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
