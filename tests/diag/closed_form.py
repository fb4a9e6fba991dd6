#!/usr/bin/env python3
"""closed_form.py - the closed forms of `tilegen check` against enumeration.

sema decides bounds (E050/E051), shapes (E032) and overlapping stores of
independent loops (E055) in closed form when regions are affine in the loop
variables (gen/sema.c: affine_op; gen/sema_deps.c: apart_in_dim). This writes random specs of
affine (and some non-affine) regions in one or two loops, checks each with
`tilegen check` and with check_ref (the same front end built with
SEMA_CLOSED_FORM=0, so every check enumerates), and fails on any difference
in exit status or diagnostics. Ends with "N passed, M failed".

usage: closed_form.py TILEGEN CHECK_REF WORKDIR [N [SEED]]
"""
import os
import random
import subprocess
import sys


def affine(rng, loops, lim):
    """A start expression: sum of small multiples of loop variables + c."""
    terms = []
    for v in loops:
        k = rng.choice([0, 0, 1, 1, 2, 3, -1, 4])
        if k:
            terms.append(f"{k}*{v}" if k != 1 else v)
    c = rng.randrange(0, lim)
    if rng.random() < 0.08 and loops:  # non-affine: enumerated either way
        return f"({loops[0]} * 3) % 5 + {c}"
    if rng.random() < 0.05 and loops:
        return f"min({loops[-1]}, {c + 2})"
    return " + ".join(terms + [str(c)]) if terms else str(c)


def region(rng, name, loops, ext, lim):
    parts = []
    for e in ext:
        s = affine(rng, loops, lim)
        parts.append(f"{s} : {s} + {e}")
    return f"{name}[{', '.join(parts)}]"


def spec(rng):
    R, C = rng.randrange(4, 40), rng.randrange(4, 40)
    P, F = rng.randrange(1, 5), rng.randrange(1, 5)
    loops = []
    lines = []
    depth = rng.choice([1, 1, 2])
    ind = "  "
    for k in range(depth):
        v = "ij"[k]
        lo = rng.choice([0, 0, 1, 2])
        hi = lo + rng.randrange(1, 12)
        st = rng.choice([1, 1, 1, 2, 3])
        rng_txt = f"[{lo}, {hi}, {st}]" if st != 1 else f"[{lo}, {hi}]"
        carried = ", carried: true" if rng.random() < 0.1 else ""
        lines.append(f"{ind}- for: {{var: {v}, range: {rng_txt}{carried}}}")
        lines.append(f"{ind}  body:")
        ind += "    "
        loops.append(v)
    lines.append(f'{ind}- load: {{dst: t, src: "{region(rng, "x", loops, (P, F), 8)}"}}')
    for _ in range(rng.randrange(1, 4)):
        sub = loops[: rng.randrange(1, len(loops) + 1)] if rng.random() < 0.3 else loops
        lines.append(f'{ind}- store: {{dst: "{region(rng, "y", sub, (P, F), 10)}", src: t}}')
    return f"""tilegen: 1
kernel: k
inputs:
  x: {{dtype: float32, shape: [{R}, {C}]}}
outputs:
  y: {{dtype: float32, shape: [{R + 8}, {C + 8}]}}
tiles:
  t: {{buffer: sbuf, dtype: float32, shape: [{P}, {F}]}}
body:
""" + "\n".join(lines) + "\n"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stderr


def main():
    tilegen, ref, work = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    os.makedirs(work, exist_ok=True)
    passed = failed = 0
    codes = {}
    for k in range(n):
        rng = random.Random(seed * 1000003 + k)
        path = os.path.join(work, f"cf{k}.yaml")
        with open(path, "w") as f:
            f.write(spec(rng))
        got = run([tilegen, "check", path])
        want = run([ref, path])
        if got == want:
            passed += 1
            os.remove(path)
            for line in want[1].splitlines():
                if "error[" in line:
                    code = line.split("error[")[1][:4]
                    codes[code] = codes.get(code, 0) + 1
        else:
            failed += 1
            print(f"FAIL {path}: closed form exit {got[0]}, enumeration exit {want[0]}")
            print("--- closed form\n" + got[1] + "--- enumeration\n" + want[1])
    summary = ", ".join(f"{c} {codes[c]}" for c in sorted(codes)) or "none"
    print(f"closed forms agree with enumeration on {passed} of {n} specs (errors seen: {summary})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
