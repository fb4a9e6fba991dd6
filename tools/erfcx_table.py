#!/usr/bin/env python3
"""erfcx_table.py: writes runtime/tg_erfcx_tab.h, the coefficients of the
AVX-512 erf and gelu rows' fast path (runtime/tg_ops.c, "checked fast
paths"): erfcx(t) = e^(t^2) erfc(t) on [i, i + 1] for i = 0..10, each a
degree-15 polynomial in u = t - (i + 0.5), from Chebyshev interpolation at
16 nodes of the double-precision erfcx (math.erfc(t) * math.exp(t*t)).
Rows 11-15 repeat row 10 (a permute's index reads 4 bits). Prints the
largest relative error of each interval's polynomial (Horner in doubles)
against math's erfcx at 4001 points to stderr: its floor, about 2^-46, is
math's own (exp(t*t) of a rounded t*t). Usage: tools/erfcx_table.py >
runtime/tg_erfcx_tab.h"""
import math
import sys

import numpy as np
from numpy.polynomial import chebyshev as cheb

DEG, INTERVALS, LANES = 15, 11, 16


def erfcx(t):
    return math.exp(t * t) * math.erfc(t)


def fit(i):
    c, h = i + 0.5, 0.5
    n = DEG + 1
    nodes = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    ys = np.array([erfcx(c + h * x) for x in nodes])
    mono = cheb.cheb2poly(cheb.chebfit(nodes, ys, DEG))
    return [float(m) for m in mono / h ** np.arange(n)]


def horner(co, u):
    p = 0.0
    for k in range(len(co) - 1, -1, -1):
        p = p * u + co[k]
    return p


def main():
    rows = [fit(i) for i in range(INTERVALS)]
    for i, co in enumerate(rows):
        worst = max(abs(horner(co, t - i - 0.5) - erfcx(t)) / erfcx(t) for t in np.linspace(i, i + 1, 4001))
        print(f"[{i}, {i + 1}]: max relative error 2^{math.log2(worst):.2f}", file=sys.stderr)
    rows += [rows[-1]] * (LANES - INTERVALS)
    out = ["/* tg_erfcx_tab.h: written by tools/erfcx_table.py (its docstring says how);",
           " * do not edit. tg_erfcx_tab[k][i]: the coefficient of u^k of erfcx(t) =",
           " * e^(t^2) erfc(t) on [i, i + 1], u = t - (i + 0.5); rows past 10 repeat 10. */",
           "#ifndef TG_ERFCX_TAB_H", "#define TG_ERFCX_TAB_H",
           f"static const double tg_erfcx_tab[{DEG + 1}][{LANES}] __attribute__((aligned(64))) = {{"]
    for k in range(DEG + 1):
        vals = [rows[i][k].hex() for i in range(LANES)]
        out.append("    {" + ", ".join(vals[:4]) + ",")
        for j in range(4, LANES, 4):
            out.append("     " + ", ".join(vals[j:j + 4]) + ("," if j + 4 < LANES else "},"))
    out += ["};", "#endif /* TG_ERFCX_TAB_H */"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
