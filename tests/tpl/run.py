"""Differential runner: every tests/tpl/cases/NAME.j2 (with NAME.json or
NAME.yaml as its context) is rendered by python3-jinja2 and by `tilegen tpl`;
the outputs must be the same bytes. Every tests/tpl/errors/NAME.j2 must fail
with exactly the stderr text in NAME.err. Expected outputs are computed by
jinja2 at test time, never stored. Prints "N passed, M failed"."""
import json
import math
import os
import subprocess
import sys

import jinja2
import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TILEGEN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bin/tilegen")

C_KEYWORDS = set(
    "auto break case char const continue default do double else enum extern float for "
    "goto if inline int long register restrict return short signed sizeof static struct "
    "switch typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool "
    "_Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local".split())


# Python twins of tilegen's host filters (gen/ctemplate/tpl_hostfilters.c).
def c_ident(s):
    out = "".join(c if (c.isascii() and (c.isalnum() or c == "_")) else "_" for c in s)
    if not s or s[0] in "0123456789":
        out = "_" + out
    if out in C_KEYWORDS:
        out += "_"
    return out


def hex_filter(v, width=0):
    return ("-" if v < 0 else "") + "0x" + format(abs(v), "x").zfill(width)


def c_float(v):
    v = float(v)
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "-INFINITY" if v < 0 else "INFINITY"
    with np.errstate(over="raise"):
        f = np.float32(v)
    return str(f) + "f"


def make_env(path):
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(path),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters.update(c_ident=c_ident, hex=hex_filter, c_float=c_float)
    return env


def load_context(base):
    for ext, load in ((".json", json.load), (".yaml", yaml.safe_load)):
        if os.path.exists(base + ext):
            with open(base + ext, encoding="utf-8") as f:
                return base + ext, load(f)
    return None, {}


def run_tilegen(tmpl, ctx_file, incs, cwd=None):
    cmd = [TILEGEN, "tpl", tmpl] + (["--context", ctx_file] if ctx_file else [])
    for d in incs:
        cmd += ["-I", d]
    return subprocess.run(cmd, capture_output=True, timeout=60, cwd=cwd)


def main():
    passed = failed = 0
    cases = os.path.join(HERE, "cases")
    env = make_env([cases, os.path.join(cases, "inc")])
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".j2"):
            continue
        base = os.path.join(cases, name[:-3])
        ctx_file, ctx = load_context(base)
        try:
            want = env.get_template(name).render(ctx).encode("utf-8")
        except Exception as e:  # a broken case is a failure, not a crash
            failed += 1
            print(f"FAIL {name}: jinja2 raised {type(e).__name__}: {e}")
            continue
        got = run_tilegen(os.path.join(cases, name), ctx_file, [os.path.join(cases, "inc")])
        if got.returncode == 0 and got.stdout == want:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {name}: exit {got.returncode}\n--- jinja2\n{want!r}\n--- ctemplate\n"
                  f"{got.stdout!r}\n{got.stderr.decode(errors='replace')}")
    errors = os.path.join(HERE, "errors")
    for name in sorted(os.listdir(errors)):
        if not name.endswith(".j2"):
            continue
        base = os.path.join(errors, name[:-3])
        ctx_file, _ = load_context(base)
        with open(base + ".err", "rb") as f:
            want = f.read()
        got = run_tilegen(name, ctx_file and os.path.basename(ctx_file), [], cwd=errors)
        if got.returncode == 1 and got.stderr == want and got.stdout == b"":
            passed += 1
        else:
            failed += 1
            print(f"FAIL error case {name}: exit {got.returncode}\n--- want\n"
                  f"{want.decode(errors='replace')}--- got\n{got.stderr.decode(errors='replace')}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
