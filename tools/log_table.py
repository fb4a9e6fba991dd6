#!/usr/bin/env python3
"""log_table.py: writes runtime/tg_log_tab.h, the table of the AVX-512 log
row's fast path (runtime/tg_ops.c, "checked fast paths"). An fp64 argument
is split as x = 2^k * z with z in [0.6875, 1.375) (its bits less those of
0.6875; k their top 12 bits, arithmetic), and z's interval i is bits 47-51
of that difference: 20 intervals of width 1/64 below 1, 12 of width 1/32
above. Entry i holds invc = 1/c rounded to double, c the interval's centre,
and logc = -ln(invc) correctly rounded (Python's decimal at 60 digits, then
float(), which rounds to nearest). The two intervals next to 1 (i = 19 and
20) take c = 1, invc = 1 and logc = 0 exactly, so that a result near 0 is
log1p(z - 1) alone, with nothing to cancel. Prints each interval's largest
|z * invc - 1| to stderr. Usage: tools/log_table.py > runtime/tg_log_tab.h"""
import decimal
import math
import sys

N, OFF = 32, 0.6875


def bounds(i):
    """interval i of z: [lo, hi)"""
    if i < 20:
        return OFF + i / 64, OFF + (i + 1) / 64
    return 1 + (i - 20) / 32, 1 + (i - 19) / 32


def entry(i):
    if i in (19, 20):
        return 1.0, 0.0
    lo, hi = bounds(i)
    invc = 1 / ((lo + hi) / 2)
    decimal.getcontext().prec = 60
    logc = float(-decimal.Decimal(invc).ln())
    return invc, logc


def main():
    ents = [entry(i) for i in range(N)]
    for i, (invc, _) in enumerate(ents):
        lo, hi = bounds(i)
        rmax = max(abs(lo * invc - 1), abs(hi * invc - 1))
        print(f"i={i:2d} [{lo:.6f}, {hi:.6f}) |r| < 2^{math.log2(rmax):.2f}", file=sys.stderr)
    out = sys.stdout
    out.write("/* tg_log_tab.h: written by tools/log_table.py (its docstring says how);\n"
              " * do not edit. tg_log_tab[0][i] = 1/c_i rounded, tg_log_tab[1][i] =\n"
              " * -ln(tg_log_tab[0][i]) rounded, c_i the centre of z's interval i (1 for\n"
              " * i = 19, 20). */\n#ifndef TG_LOG_TAB_H\n#define TG_LOG_TAB_H\n"
              "static const double tg_log_tab[2][32] __attribute__((aligned(64))) = {\n")
    for col in range(2):
        vals = [e[col].hex() for e in ents]
        out.write("    {")
        for j in range(0, N, 4):
            out.write(("" if j == 0 else "     ") + ", ".join(vals[j:j + 4]) + ("},\n" if j + 4 >= N else ",\n"))
    out.write("};\n#endif\n")


main()
