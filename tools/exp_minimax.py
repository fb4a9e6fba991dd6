#!/usr/bin/env python3
"""exp_minimax.py: the coefficients of the exp rows' fast polynomial
(runtime/tg_act_fast.h tg__exp_rowv): p(r) = c0 + c1 r + c2 r^2 + c3 r^3 + c4 r^4,
minimax for the relative error |p(r) - e^r| / e^r on |r| <= A = (ln 2 / 32)(1 + 2^-20)
(the reduction's range, with room for its rounding), by the Remez exchange on a grid
of 20001 points. Prints the five coefficients as C hex literals and, for the
coefficients as rounded to doubles, the largest relative error over 200001 points
of the interval, each evaluated in 60-digit decimal arithmetic (the polynomial of
the exact doubles, e^r by Decimal.exp): about 2^-38.55. Between the points the
error moves by less than its derivative bound times the spacing (below 2^-60).
Usage: tools/exp_minimax.py"""
import math
from decimal import Decimal, getcontext

import numpy as np

DEG = 4
getcontext().prec = 60
A = math.log(2) / 32 * (1 + 2.0 ** -20)


def remez():
    grid = np.linspace(-A, A, 20001)
    ex = np.exp(grid)
    n = DEG + 1
    ref = [int(round(20000 * (1 - math.cos(math.pi * i / n)) / 2)) for i in range(n + 1)]
    for _ in range(20):
        m = np.zeros((n + 1, n + 1))
        for i, j in enumerate(ref):
            m[i, :n] = grid[j] ** np.arange(n)
            m[i, n] = -((-1) ** i) * ex[j]
        sol = np.linalg.solve(m, ex[ref])
        c = sol[:n]
        err = (np.polyval(c[::-1], grid) - ex) / ex
        # the largest error of each run of one sign, n + 1 of them alternating
        runs, start = [], 0
        for j in range(1, len(grid) + 1):
            if j == len(grid) or (err[j] >= 0) != (err[start] >= 0):
                runs.append(start + int(np.argmax(np.abs(err[start:j]))))
                start = j
        while len(runs) > n + 1:
            runs = runs[1:] if abs(err[runs[0]]) < abs(err[runs[-1]]) else runs[:-1]
        if len(runs) == n + 1:
            ref = runs
    return [float(x) for x in c]


def worst(c):
    cd = [Decimal(x) for x in c]  # exact: a double converts without rounding
    top = Decimal(0)
    for i in range(200001):
        r = Decimal(-A) + Decimal(2 * A) * i / 200000
        p = Decimal(0)
        for k in range(DEG, -1, -1):
            p = p * r + cd[k]
        e = r.exp()
        top = max(top, abs(p - e) / e)
    return top


def main():
    c = remez()
    for k, x in enumerate(c):
        print("c%d %s" % (k, x.hex()))
    print("max relative error 2^%.3f" % math.log2(worst(c)))


if __name__ == "__main__":
    main()
