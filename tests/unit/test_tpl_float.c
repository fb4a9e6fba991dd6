/* cmocka tests for ctemplate's printf-free float32 formatter (c_float and
 * tpl_float32_repr): its output is compared with the snprintf + strtof
 * reference it replaced (kept here verbatim), over a stride of all float32 bit
 * patterns and hand-picked edge cases, and every output must read back. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tpl_int.h"

/* ---- reference: the former snprintf/strtof implementation ----------------- */
/* Lay out the digits of a "%.*e" rendering the way Python's repr does:
 * positional for 1e-4 <= |x| < 1e16, else d.ddde+XX. */
static void ref_layout(char *out, size_t n, const char *sci)
{
    char digits[24];
    size_t nd = 0;
    const char *p = sci;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e' && nd + 1 < sizeof digits; p++)
        if (*p != '.')
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    int exp = atoi(p + 1);
    char *o = out;
    size_t left = n;
#define PUT(c) do { if (left > 1) { *o++ = (c); left--; } } while (0)
    if (neg)
        PUT('-');
    if (exp >= -4 && exp < 16) {
        if (exp >= 0) {
            for (int i = 0; i <= exp; i++)
                PUT(i < (int)nd ? digits[i] : '0');
            PUT('.');
            if ((int)nd > exp + 1)
                for (size_t i = (size_t)exp + 1; i < nd; i++)
                    PUT(digits[i]);
            else
                PUT('0');
        } else {
            PUT('0');
            PUT('.');
            for (int i = 0; i < -exp - 1; i++)
                PUT('0');
            for (size_t i = 0; i < nd; i++)
                PUT(digits[i]);
        }
    } else {
        PUT(digits[0]);
        if (nd > 1) {
            PUT('.');
            for (size_t i = 1; i < nd; i++)
                PUT(digits[i]);
        }
        PUT('e');
        PUT(exp < 0 ? '-' : '+');
        char e[16];
        snprintf(e, sizeof e, "%02d", exp < 0 ? -exp : exp);
        for (char *q = e; *q; q++)
            PUT(*q);
    }
#undef PUT
    *o = 0;
}

/* Shortest "%.*e"-style rendering of x that reads back as x (as a double, or
 * as a float when is_float). One printf gives maxp digits (always enough);
 * shorter candidates are made by rounding that digit string and checked with
 * strtod/strtof, binary-searching the length (round-tripping is monotonic).
 * A dropped tail of exactly "5000..." could be a double rounding, so that
 * length is re-printed by printf instead. */
static void ref_shortest_sci(char *sci, size_t n, double x, int maxp, int is_float)
{
    char full[48];
    snprintf(full, sizeof full, "%.*e", maxp - 1, x);
    const char *p = full;
    int neg = *p == '-';
    p += neg;
    char dig[24];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            dig[nd++] = *p;
    int exp = atoi(p + 1);
    int lo = 1, hi = maxp;
    char best[48];
    snprintf(best, sizeof best, "%s", full);
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        char cand[48];
        int tie = dig[mid] == '5';
        for (int i = mid + 1; i < nd && tie; i++)
            tie = dig[i] == '0';
        if (tie) {
            snprintf(cand, sizeof cand, "%.*e", mid - 1, x);
        } else {
            char d[24];
            memcpy(d, dig, (size_t)mid);
            int e = exp, carry = dig[mid] >= '5';
            for (int i = mid - 1; i >= 0 && carry; i--) {
                if (d[i] == '9') {
                    d[i] = '0';
                } else {
                    d[i]++;
                    carry = 0;
                }
            }
            if (carry) { /* 9.99 -> 10.0: one more power of ten */
                d[0] = '1';
                for (int i = 1; i < mid; i++)
                    d[i] = '0';
                e++;
            }
            char *c = cand;
            if (neg)
                *c++ = '-';
            *c++ = d[0];
            if (mid > 1) {
                *c++ = '.';
                memcpy(c, d + 1, (size_t)mid - 1);
                c += mid - 1;
            }
            snprintf(c, sizeof cand - (size_t)(c - cand), "e%+03d", e);
        }
        int ok = is_float ? strtof(cand, NULL) == (float)x : strtod(cand, NULL) == x;
        if (ok) {
            hi = mid;
            snprintf(best, sizeof best, "%s", cand);
        } else {
            lo = mid + 1;
        }
    }
    snprintf(sci, n, "%s", best);
}


static void ref_float32_repr(char *out, size_t n, float f)
{
    char sci[48];
    if (isnan(f))
        snprintf(out, n, "nan");
    else if (isinf(f))
        snprintf(out, n, f < 0 ? "-inf" : "inf");
    else {
        ref_shortest_sci(sci, sizeof sci, (double)f, 9, 1);
        ref_layout(out, n, sci);
    }
}

/* ---- tests ---------------------------------------------------------------- */
static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Same text as the reference, and (when finite) strtof reads it back to the
 * same bits. Returns the number of mismatches (reported once each). */
static int check_bits(uint32_t u)
{
    float f = from_bits(u);
    char got[64], want[64];
    tpl_float32_repr(got, sizeof got, f);
    ref_float32_repr(want, sizeof want, f);
    int bad = strcmp(got, want) != 0;
    if (isfinite(f)) {
        float back = strtof(got, NULL);
        uint32_t bb;
        memcpy(&bb, &back, sizeof bb);
        bad |= bb != u;
    }
    if (bad)
        print_error("bits 0x%08x: got '%s', reference '%s'\n", (unsigned)u, got, want);
    return bad;
}

static void test_stride_all_bits(void **state)
{
    (void)state;
    int bad = 0;
    uint32_t u = 0;
    do
        bad += check_bits(u);
    while ((u += 4099) >= 4099 && bad < 10); /* stops on wrap-around */
    assert_int_equal(bad, 0);
}

/* Every bit pattern next to the edges: powers of two (narrower gap below),
 * the fast path's range limit, subnormals, FLT_MAX, and both signs. */
static void test_edges(void **state)
{
    (void)state;
    int bad = 0;
    for (uint32_t be = 0; be < 256; be++)
        for (uint32_t d = 0; d < 8; d++)
            for (uint32_t s = 0; s < 2; s++) {
                bad += check_bits(s << 31 | be << 23 | d);
                bad += check_bits(s << 31 | be << 23 | (0x7fffffu - d));
            }
    float named[] = { 0.0f, -0.0f, 1.0f, 0.1f, 0.5f, 2.5f, 1e-4f, 1e16f, 9.999999e15f,
                      FLT_MAX, -FLT_MAX, FLT_MIN, FLT_TRUE_MIN, 16777216.0f, 16777215.0f,
                      3.0517578e-05f, 3.8146973e-06f, 3.8146968e-06f, 1.0f / 3, 2.0f / 3,
                      123456789.0f, 1e10f, 1.5e10f, 2.5e10f, 1e38f };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        uint32_t u;
        memcpy(&u, &named[i], sizeof u);
        bad += check_bits(u);
    }
    assert_int_equal(bad, 0);
}

/* Decimal ties: integers ending in 5 at every digit position round to even
 * when a shorter candidate is tried, and decimal values near halves. */
static void test_decimal_ties(void **state)
{
    (void)state;
    int bad = 0;
    for (double p = 1; p < 1e12; p *= 10)
        for (int k = 1; k < 200; k++) {
            float f = (float)(k * p + 0.5 * p);
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            bad += check_bits(u);
            f = (float)((k + 0.5) / p);
            memcpy(&u, &f, sizeof u);
            bad += check_bits(u);
        }
    assert_int_equal(bad, 0);
}

static void test_known_outputs(void **state)
{
    (void)state;
    struct { float f; const char *want; } cases[] = {
        { 0.1f, "0.1" }, { 1.0f, "1.0" }, { -0.0f, "-0.0" }, { 1e20f, "1e+20" },
        { 3.4028235e38f, "3.4028235e+38" }, { 1.0f / 3, "0.33333334" },
        { 123456789.0f, "123456790.0" }, { 1e-5f, "1e-05" }, { 0.0001f, "0.0001" },
        { 1e16f, "1e+16" }, { 1e15f, "1000000000000000.0" },
    };
    char out[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tpl_float32_repr(out, sizeof out, cases[i].f);
        assert_string_equal(out, cases[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_outputs),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_decimal_ties),
        cmocka_unit_test(test_stride_all_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
