/* cmocka tests for ctemplate's printf-free float32 formatter (c_float and
 * tpl_float32_repr): its output is compared with the snprintf + strtof
 * formatter it replaced (tpl_float32_repr_printf, still its fallback for tiny
 * values), over a stride of all float32 bit patterns and hand-picked edge
 * cases, and every output must read back. */
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
    tpl_float32_repr_printf(want, sizeof want, f);
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
