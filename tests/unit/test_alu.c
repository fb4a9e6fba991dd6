/* test_alu.c — cmocka tests of runtime/tg_alu: names, the dispatcher against
 * the inline ops, IEEE arithmetic, max/min NaN and ±0 rules, comparisons and
 * logical ops on NaN/±0, power against libm (specials exact, others ≤ 1 ulp),
 * the bitvec ops on signed/unsigned integer values, and the int32 rows
 * (tg_tensor_tensor_i32, tg_tensor_scalar_i32) against the fp32 form. */
#include "tg_fp.h" /* first, as the runtime and kernels have it: max_min_rows vectorizes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "tg_alu.h"
#include "tg_dtype.h"

static const float INF = (float)INFINITY;

#define TEST_RNG_SEED 0x243f6a8885a308d3ull
#include "test_rng.h"

static int same_bits(float a, float b)
{
    return (isnan(a) && isnan(b)) || tg_f32_bits(a) == tg_f32_bits(b);
}

static void test_names(void **state)
{
    static const char *const names[TG_ALU_COUNT] = {
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "equal",
        "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
        "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
        "right_shift", "abs"};
    int i;
    (void)state;
    for (i = 0; i < TG_ALU_COUNT; i++) {
        assert_string_equal(tg_alu_name((tg_alu_op)i), names[i]);
        assert_int_equal(tg_alu_from_name(names[i], strlen(names[i])), i);
        assert_int_equal(tg_alu_is_bitvec((tg_alu_op)i), i >= TG_ALU_BITWISE_AND && i <= TG_ALU_RIGHT_SHIFT);
    }
    assert_string_equal(tg_alu_name(TG_ALU_COUNT), "?");
    assert_int_equal(tg_alu_from_name("less_", 5), -1);
    assert_true(isnan(tg_alu(TG_ALU_COUNT, 1.0f, 2.0f)));
}

/* Random operands, including specials, through the dispatcher vs C. */
static void test_arith_and_dispatch(void **state)
{
    static const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, -2.5f, 1e30f, -1e-40f, INFINITY, -INFINITY, NAN};
    int i, op;
    (void)state;
    for (i = 0; i < 400000; i++) {
        float a = i < 144 ? sp[i % 12] : tg_bits_f32(rnd32());
        float b = i < 144 ? sp[i / 12] : tg_bits_f32(rnd32());
        if (!same_bits(tg_alu(TG_ALU_ADD, a, b), a + b) || !same_bits(tg_alu(TG_ALU_SUBTRACT, a, b), a - b) ||
            !same_bits(tg_alu(TG_ALU_MULTIPLY, a, b), a * b) || !same_bits(tg_alu(TG_ALU_DIVIDE, a, b), a / b))
            fail_msg("arith on %a, %a", (double)a, (double)b);
        if (tg_alu(TG_ALU_EQUAL, a, b) != (a == b ? 1.0f : 0.0f) ||
            tg_alu(TG_ALU_NOT_EQUAL, a, b) != (a != b ? 1.0f : 0.0f) ||
            tg_alu(TG_ALU_GREATER, a, b) != (a > b ? 1.0f : 0.0f) ||
            tg_alu(TG_ALU_GREATER_EQUAL, a, b) != (a >= b ? 1.0f : 0.0f) ||
            tg_alu(TG_ALU_LESS, a, b) != (a < b ? 1.0f : 0.0f) ||
            tg_alu(TG_ALU_LESS_EQUAL, a, b) != (a <= b ? 1.0f : 0.0f))
            fail_msg("compare on %a, %a", (double)a, (double)b);
        {
            float mx = tg_alu(TG_ALU_MAXIMUM, a, b), mn = tg_alu(TG_ALU_MINIMUM, a, b);
            if (isnan(a) || isnan(b)) {
                assert_true(isnan(mx) && isnan(mn));
            } else {
                assert_true(mx == fmaxf(a, b) && mn == fminf(a, b));
                assert_true(mx >= a && mx >= b && mn <= a && mn <= b);
            }
        }
        for (op = 0; op < TG_ALU_COUNT; op++) {
            float d = tg_alu((tg_alu_op)op, a, b), want;
            switch (op) {
#define CASE(ID, id) case TG_ALU_##ID: want = tg_alu_##id(a, b); break;
                TG_ALU_OPS(CASE)
#undef CASE
            default: want = NAN; break;
            }
            if (!same_bits(d, want))
                fail_msg("dispatch %s(%a, %a)", tg_alu_name((tg_alu_op)op), (double)a, (double)b);
        }
    }
}

static void test_max_min_rules(void **state)
{
    (void)state;
    assert_true(isnan(tg_alu_maximum(NAN, 1.0f)) && isnan(tg_alu_maximum(1.0f, NAN)));
    assert_true(isnan(tg_alu_minimum(NAN, -INF)) && isnan(tg_alu_minimum(INF, NAN)));
    assert_int_equal(tg_f32_bits(tg_alu_maximum(-0.0f, 0.0f)), 0);
    assert_int_equal(tg_f32_bits(tg_alu_maximum(0.0f, -0.0f)), 0);
    assert_int_equal(tg_f32_bits(tg_alu_minimum(0.0f, -0.0f)), 0x80000000u);
    assert_int_equal(tg_f32_bits(tg_alu_minimum(-0.0f, 0.0f)), 0x80000000u);
    assert_true(tg_alu_maximum(-INF, -3.0f) == -3.0f && tg_alu_minimum(-INF, -3.0f) == -INF);
}

/* The select forms of tg_alu_raw_maximum and _minimum give the bits of the
 * branchy definition (NaN: a + b; equal: +0 of ±0 for maximum, −0 for
 * minimum; else the greater, the lesser), the raw NaN included: every pair
 * of specials (±0, ±inf, NaNs with payloads and signs, subnormals, ±1) and
 * 2 million random bit patterns, a quarter of them sharing the other
 * operand's magnitude, also through a loop of them (vectorized: this file
 * takes tg_fp.h's options, as kernels do; a NaN's payload aside there). */
static float ref_max(float a, float b)
{
    if (a != a || b != b)
        return a + b;
    if (a == b)
        return (tg_f32_bits(a) >> 31) ? b : a;
    return a > b ? a : b;
}
static float ref_min(float a, float b)
{
    if (a != a || b != b)
        return a + b;
    if (a == b)
        return (tg_f32_bits(a) >> 31) ? a : b;
    return a < b ? a : b;
}
__attribute__((noinline)) static void max_min_rows(float *ymax, float *ymin, const float *a, const float *b, int n)
{
    for (int j = 0; j < n; j++) {
        ymax[j] = tg_alu_raw_maximum(a[j], b[j]);
        ymin[j] = tg_alu_raw_minimum(a[j], b[j]);
    }
}
static void test_max_min_selects(void **state)
{
    static const uint32_t sp[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
                                  1, 0x80000001u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
    const int n = (int)(sizeof sp / sizeof sp[0]);
    uint64_t bad = 0;
    (void)state;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float a = tg_bits_f32(sp[i]), b = tg_bits_f32(sp[j]);
            bad += tg_f32_bits(tg_alu_raw_maximum(a, b)) != tg_f32_bits(ref_max(a, b));
            bad += tg_f32_bits(tg_alu_raw_minimum(a, b)) != tg_f32_bits(ref_min(a, b));
        }
    static float xa[4096], xb[4096], ymax[4096], ymin[4096];
    for (int i = 0; i < 2000000; i++) {
        uint32_t u = rnd32(), v = i % 4 == 0 ? (u ^ 0x80000000u) : i % 4 == 1 ? u : rnd32();
        float a = tg_bits_f32(u), b = tg_bits_f32(v);
        bad += tg_f32_bits(tg_alu_raw_maximum(a, b)) != tg_f32_bits(ref_max(a, b));
        bad += tg_f32_bits(tg_alu_raw_minimum(a, b)) != tg_f32_bits(ref_min(a, b));
        xa[i % 4096] = a;
        xb[i % 4096] = b;
        if (i % 4096 == 4095) { /* the same pairs through a loop the compiler vectorizes */
            max_min_rows(ymax, ymin, xa, xb, 4096);
            for (int j = 0; j < 4096; j++) {
                bad += !same_bits(ymax[j], ref_max(xa[j], xb[j]));
                bad += !same_bits(ymin[j], ref_min(xa[j], xb[j]));
            }
        }
    }
    assert_true(bad == 0);
}

/* Every NaN result of arithmetic is the canonical 0x7fc00000, whatever NaNs
 * (payload, sign, signalling) went in and in either operand order. */
static void test_nan_canonical(void **state)
{
    (void)state;
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0xffd20000u, 0x7f800001u, 0xff812345u};
    const float inf = tg_bits_f32(0x7f800000u);
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
        for (size_t j = 0; j < sizeof nans / sizeof nans[0]; j++) {
            float a = tg_bits_f32(nans[i]), b = tg_bits_f32(nans[j]);
            for (int op = 0; op < TG_ALU_COUNT; op++) {
                if (tg_alu_is_bitvec((tg_alu_op)op) || op == TG_ALU_ABS) /* abs is a move (below) */
                    continue;
                float r = tg_alu((tg_alu_op)op, a, b), q = tg_alu((tg_alu_op)op, 1.5f, b);
                if (r != r)
                    assert_int_equal(tg_f32_bits(r), 0x7fc00000u);
                if (q != q)
                    assert_int_equal(tg_f32_bits(q), 0x7fc00000u);
            }
            assert_int_equal(tg_f32_bits(tg_alu_add(a, b)), 0x7fc00000u);
            assert_int_equal(tg_f32_bits(tg_alu_maximum(b, a)), 0x7fc00000u);
            assert_int_equal(tg_f32_bits(tg_act_reciprocal(a)), 0x7fc00000u);
            assert_int_equal(tg_f32_bits(tg_act_relu(a)), 0x7fc00000u);
        }
    /* invalid operations: x86 would make the negative default NaN */
    assert_int_equal(tg_f32_bits(tg_alu_subtract(inf, inf)), 0x7fc00000u);
    assert_int_equal(tg_f32_bits(tg_alu_multiply(0.0f, inf)), 0x7fc00000u);
    assert_int_equal(tg_f32_bits(tg_alu_divide(0.0f, 0.0f)), 0x7fc00000u);
    assert_int_equal(tg_f32_bits(tg_alu_power(-2.0f, 0.5f)), 0x7fc00000u);
    /* moves keep the bits: abs clears the sign only */
    assert_int_equal(tg_f32_bits(tg_alu_abs(tg_bits_f32(0xffc12345u), 0.0f)), 0x7fc12345u);
}

/* The generated code reads the operands of the ops that make every NaN result
 * canonical (templates/kernel.c.j2 nan_in: add through logical_xor, and
 * reciprocal) with tg_rdn_bf16, which leaves a signalling NaN signalling. The
 * result must be the same bits as from the quieted operand: every bf16 NaN,
 * either side, against specials and random operands. */
static void test_nan_in_any(void **state)
{
    static const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, -2.5f, 1e30f, -1e-40f, INFINITY, -INFINITY, NAN};
    (void)state;
    assert_int_equal(TG_ALU_ADD, 0);
    assert_int_equal(TG_ALU_LOGICAL_XOR + 1, TG_ALU_BITWISE_AND);
    for (uint32_t h = 0; h < 0x10000u; h++) {
        if ((h & 0x7fffu) <= 0x7f80u)
            continue;
        const float s = tg_bf16_to_f32_any((uint16_t)h), q = tg_bf16_to_f32((uint16_t)h);
        assert_int_equal(tg_f32_bits(s), h << 16);
        assert_int_equal(tg_f32_bits(tg_act_reciprocal(s)), tg_f32_bits(tg_act_reciprocal(q)));
        for (int i = 0; i < 28; i++) {
            const float b = i < 12 ? sp[i] : i < 16 ? tg_bf16_to_f32_any((uint16_t)rnd32()) : tg_bits_f32(rnd32());
            for (int op = TG_ALU_ADD; op <= TG_ALU_LOGICAL_XOR; op++)
                if (tg_f32_bits(tg_alu((tg_alu_op)op, s, b)) != tg_f32_bits(tg_alu((tg_alu_op)op, q, b)) ||
                    tg_f32_bits(tg_alu((tg_alu_op)op, b, s)) != tg_f32_bits(tg_alu((tg_alu_op)op, b, q)))
                    fail_msg("%s with bf16 NaN 0x%04x and %a", tg_alu_name((tg_alu_op)op), (unsigned)h, (double)b);
        }
    }
}

static void test_logical(void **state)
{
    (void)state;
    assert_true(tg_alu_logical_and(2.0f, -0.5f) == 1.0f);
    assert_true(tg_alu_logical_and(2.0f, -0.0f) == 0.0f);
    assert_true(tg_alu_logical_and(NAN, 1.0f) == 1.0f); /* NaN is true */
    assert_true(tg_alu_logical_or(0.0f, -0.0f) == 0.0f);
    assert_true(tg_alu_logical_or(0.0f, NAN) == 1.0f);
    assert_true(tg_alu_logical_xor(3.0f, 0.0f) == 1.0f);
    assert_true(tg_alu_logical_xor(3.0f, -INF) == 0.0f);
    assert_true(tg_alu_equal(NAN, NAN) == 0.0f && tg_alu_not_equal(NAN, NAN) == 1.0f);
    assert_true(tg_alu_equal(0.0f, -0.0f) == 1.0f);
    assert_true(tg_alu_greater_equal(NAN, 1.0f) == 0.0f && tg_alu_less_equal(1.0f, NAN) == 0.0f);
    assert_true(tg_alu_abs(-3.5f, 99.0f) == 3.5f);
    assert_int_equal(tg_f32_bits(tg_alu_abs(-0.0f, 0.0f)), 0);
    assert_true(isnan(tg_alu_abs(NAN, 0.0f)));
}

static int64_t ulps(float a, float b)
{
    int64_t x = tg_f32_bits(a) >> 31 ? -(int64_t)(tg_f32_bits(a) & 0x7fffffffu) : tg_f32_bits(a);
    int64_t y = tg_f32_bits(b) >> 31 ? -(int64_t)(tg_f32_bits(b) & 0x7fffffffu) : tg_f32_bits(b);
    return x > y ? x - y : y - x;
}

static void test_power(void **state)
{
    static const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f,
                               2.5f, -2.5f, 1e30f, -1e30f, 0x1p24f, -0x1p25f, INFINITY, -INFINITY, NAN};
    const int n = (int)(sizeof sp / sizeof sp[0]);
    int i, j;
    (void)state;
    /* every pair of special operands: the same value as libm's pow */
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            float a = sp[i], b = sp[j], got = tg_alu_power(a, b);
            float want = (float)pow((double)a, (double)b);
            if (!(isnan(got) && isnan(want)) && (tg_f32_bits(got) != tg_f32_bits(want) && ulps(got, want) > 1))
                fail_msg("pow(%a, %a) = %a, libm %a", (double)a, (double)b, (double)got, (double)want);
        }
    }
    /* random finite operands with a finite, non-zero result: ≤ 1 ulp */
    for (i = 0; i < 300000; i++) {
        float a = (float)(rnd32() % 100000u) / 997.0f + 1e-3f;
        float b = ((float)(rnd32() % 20001u) - 10000.0f) / 313.0f;
        float got, want;
        if (i & 1)
            a = -floorf(a), b = floorf(b); /* negative base, integer exponent */
        got = tg_alu_power(a, b);
        want = (float)pow((double)a, (double)b);
        if (isnan(want) ? !isnan(got) : ulps(got, want) > 1)
            fail_msg("pow(%a, %a) = %a, libm %a", (double)a, (double)b, (double)got, (double)want);
    }
}

/* tg_alu_pow2_sq gives tg_alu_power(a, 2)'s bits wherever tg_alu_pow2_slow(a)
 * is clear (tg_alu.h; exhaustive over every fp32 when written): a sweep of
 * the fp32 patterns and the specials; squares near a halfway point where the
 * two differ are flagged. */
static void test_pow2_split(void **state)
{
    static const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 3.0f, 0x1p63f, 0x1p-63f, 0x1p64f, 0x1.fffffep127f,
                               -0x1.fffffep127f, INFINITY, -INFINITY, NAN, 1.5f, 0x1.fffffep63f, 0x1p-62f};
    /* squares within 2^5 units of a halfway point that tg_math_powv rounds
     * the other way, and exact ties: flagged, and not x·x rounded once */
    static const float near[] = {0x1.7ffffep-61f, 0x1.800002p+47f, -0x1.7ffffep-57f, 0x1.800002p+55f};
    static const float ties[] = {1.0f + 0x1p-12f, -4.0f * (1.0f + 0x1p-12f), 0x1.001p+40f};
    static const float subn[] = {1e-25f, -3e-20f, 0x1p-64f, 0x1p-149f};
    uint64_t checked = 0, flagged = 0;
    (void)state;
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        assert_int_equal(tg_alu_pow2_slow(sp[i]), 0);
        assert_int_equal(tg_f32_bits(tg_alu_pow2_sq(sp[i])), tg_f32_bits(tg_alu_power(sp[i], 2.0f)));
    }
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        assert_int_not_equal(tg_alu_pow2_slow(near[i]), 0);
        assert_int_not_equal(tg_f32_bits(tg_alu_pow2_sq(near[i])), tg_f32_bits(tg_alu_power(near[i], 2.0f)));
    }
    for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++)
        assert_int_not_equal(tg_alu_pow2_slow(ties[i]), 0);
    for (size_t i = 0; i < sizeof subn / sizeof subn[0]; i++)
        assert_int_not_equal(tg_alu_pow2_slow(subn[i]), 0);
    for (uint64_t u = 0; u < ((uint64_t)1 << 32); u += 1021) {
        const float a = tg_bits_f32((uint32_t)u);
        if (tg_alu_pow2_slow(a)) {
            flagged++;
            continue;
        }
        checked++;
        if (tg_f32_bits(tg_alu_pow2_sq(a)) != tg_f32_bits(tg_alu_power(a, 2.0f)))
            fail_msg("a = %a: x·x %a, power %a", (double)a, (double)tg_alu_pow2_sq(a), (double)tg_alu_power(a, 2.0f));
    }
    assert_true(checked > 2000000 && flagged > 500000); /* both sides of the split swept */
}

static void test_bitvec(void **state)
{
    int i;
    (void)state;
    assert_true(tg_alu_bitwise_and(12.0f, 10.0f) == 8.0f);
    assert_true(tg_alu_bitwise_or(12.0f, 10.0f) == 14.0f);
    assert_true(tg_alu_bitwise_xor(12.0f, 10.0f) == 6.0f);
    assert_true(tg_alu_bitwise_and(-1.0f, 255.0f) == 255.0f);
    assert_true(tg_alu_bitwise_xor(-1.0f, 0.0f) == -1.0f);
    assert_true(tg_alu_bitwise_or(-8.0f, 3.0f) == -5.0f);
    assert_true(tg_alu_bitwise_and(4294967040.0f, 65535.0f) == 65280.0f); /* uint32 0xffffff00 */
    assert_true(tg_alu_bitwise_or(4294967040.0f, 0.0f) == 4294967040.0f);
    assert_true(tg_alu_left_shift(1.0f, 4.0f) == 16.0f);
    assert_true(tg_alu_left_shift(-1.0f, 4.0f) == -16.0f);
    assert_true(tg_alu_right_shift(-16.0f, 28.0f) == 15.0f); /* logical */
    assert_true(tg_alu_right_shift(256.0f, 4.0f) == 16.0f);
    assert_true(tg_alu_left_shift(1.0f, 32.0f) == 0.0f);
    assert_true(tg_alu_right_shift(1.0f, -1.0f) == 0.0f);
    assert_true(tg_alu_bitwise_or(NAN, 5.0f) == 5.0f); /* NaN → 0 */
    assert_true(tg_alu_bitwise_and(2.5f, 3.0f) == 2.0f); /* 2.5 → 2 (RNE) */
    assert_true(tg_alu_bits(TG_ALU_BITWISE_XOR, 0xf0f0u, 0xffffu) == 0x0f0fu);
    assert_true(tg_alu_bits(TG_ALU_LEFT_SHIFT, 0x80000001u, 1) == 2u);
    assert_true(tg_alu_bits(TG_ALU_RIGHT_SHIFT, 0x80000000u, 31) == 1u);
    assert_true(tg_alu_bits(TG_ALU_RIGHT_SHIFT, 5u, 40) == 0u);
    assert_true(tg_alu_bits(TG_ALU_ADD, 5u, 4u) == 0u);
    /* int16-range operands vs integer arithmetic */
    for (i = 0; i < 200000; i++) {
        int32_t a = (int32_t)(rnd32() % 65536u) - 32768, b = (int32_t)(rnd32() % 65536u) - 32768;
        uint32_t s = rnd32() % 16u;
        float fa = (float)a, fb = (float)b;
        assert_true(tg_alu_bitwise_and(fa, fb) == (float)(a & b));
        assert_true(tg_alu_bitwise_or(fa, fb) == (float)(a | b));
        assert_true(tg_alu_bitwise_xor(fa, fb) == (float)(a ^ b));
        if (a >= 0) {
            assert_true(tg_alu_left_shift(fa, (float)s) == (float)((uint32_t)a << s));
            assert_true(tg_alu_right_shift(fa, (float)s) == (float)((uint32_t)a >> s));
        } else {
            int64_t l = (int64_t)((uint32_t)a << s), r = (int64_t)((uint32_t)a >> s);
            if (l >= ((int64_t)1 << 31)) l -= (int64_t)1 << 32;
            if (r >= ((int64_t)1 << 31)) r -= (int64_t)1 << 32;
            assert_true(tg_alu_left_shift(fa, (float)s) == (float)l);
            assert_true(tg_alu_right_shift(fa, (float)s) == (float)r);
        }
    }
}

/* ---- int32 rows: tg_tensor_tensor_i32 / tg_tensor_scalar_i32 against the
 * per-element fp32 form (tg_alu on the fp32 values, rounded to dst as
 * tg_store_f32 rounds) -------------------------------------------------------- */

/* A value of kind k: 0 small, 1 at the 2^23 range's edges, 2 at the 2^11
 * (multiply) edges, 3 any int32, 4 tiny (zeros against negatives). */
static int32_t i32_of_kind(int k)
{
    static const int32_t edge23[] = {(1 << 23) - 1, -(1 << 23), 1 << 23, -(1 << 23) - 1, (1 << 24) + 1,
                                     -(1 << 24) - 3, INT32_MAX, INT32_MIN, 0, -1};
    static const int32_t edge11[] = {(1 << 11) - 1, -(1 << 11), 1 << 11, -(1 << 11) - 1, 0, 1, -1};
    switch (k) {
    case 0: return (int32_t)(rnd32() % 6001) - 3000;
    case 1: return edge23[rnd32() % (sizeof edge23 / sizeof edge23[0])];
    case 2: return edge11[rnd32() % (sizeof edge11 / sizeof edge11[0])];
    case 3: return (int32_t)rnd32();
    default: return (int32_t)(rnd32() % 7) - 3;
    }
}

/* Fill n int32: mostly one kind per row, sometimes one odd element. */
static void fill_i32(int32_t *v, int n)
{
    int k = (int)(rnd32() % 5), odd = rnd32() % 3 == 0 ? (int)(rnd32() % (unsigned)n) : -1;
    if (rnd32() % 2)
        k = rnd32() % 2 ? 0 : 4; /* half the rows small: the whole-row int32 path */
    for (int j = 0; j < n; j++)
        v[j] = j == odd ? i32_of_kind(1 + (int)(rnd32() % 3)) : i32_of_kind(k);
}

static const int row_lens[] = {1, 5, 63, 64, 65, 128, 200, 512};

/* The source dtypes the rows take (tg_alu_i32_src). */
static const tg_dtype i32_srcs[] = {TG_INT32, TG_UINT8, TG_INT8, TG_UINT16, TG_INT16};

/* v[0..n) cut to dtype st's values (wrapped as a cast would), and their
 * storage at bytes p. */
static void narrow_to(int32_t *v, uint8_t *p, int n, tg_dtype st)
{
    for (int j = 0; j < n; j++) {
        switch (st) {
        case TG_UINT8: v[j] = (uint8_t)v[j]; p[j] = (uint8_t)v[j]; break;
        case TG_INT8: v[j] = (int8_t)v[j]; p[j] = (uint8_t)v[j]; break;
        case TG_UINT16: v[j] = (uint16_t)v[j]; { uint16_t h = (uint16_t)v[j]; memcpy(p + 2 * j, &h, 2); } break;
        case TG_INT16: v[j] = (int16_t)v[j]; { uint16_t h = (uint16_t)v[j]; memcpy(p + 2 * j, &h, 2); } break;
        default: memcpy(p + 4 * j, &v[j], 4); break;
        }
    }
}

static void i32_tensor_tensor_sweep(void)
{
    enum { NMAX = 512 };
    int32_t a[NMAX], b[NMAX];
    uint8_t got[NMAX * 4 + 8], want[NMAX * 4], pa[NMAX * 4], pb[NMAX * 4];
    for (int op = 0; op < TG_ALU_COUNT; op++) {
        if (op == TG_ALU_POWER)
            continue; /* exact through the same tg_alu either way; slow to sweep */
        for (int dt = 0; dt < TG_DTYPE_COUNT; dt++) {
            for (size_t li = 0; li < sizeof row_lens / sizeof row_lens[0]; li++) {
                for (int rep = 0; rep < 6; rep++) {
                    const int n = row_lens[li];
                    const tg_dtype st = rep < 2 ? TG_INT32 : i32_srcs[rnd32() % 5];
                    fill_i32(a, n);
                    fill_i32(b, n);
                    narrow_to(a, pa, n, st);
                    narrow_to(b, pb, n, st);
                    for (int j = 0; j < n; j++)
                        tg_store_f32(want, (tg_dtype)dt, (size_t)j, tg_alu((tg_alu_op)op, (float)a[j], (float)b[j]));
                    memset(got, 0xa5, sizeof got);
                    tg_tensor_tensor_i32((tg_alu_op)op, got, (tg_dtype)dt, pa, pb, st, n);
                    const size_t bytes = (size_t)n * tg_dtype_size((tg_dtype)dt);
                    assert_memory_equal(got, want, bytes);
                    assert_int_equal(got[bytes], 0xa5); /* nothing past the row */
                    if (dt == TG_INT32 && st == TG_INT32) { /* in place, dst = a */
                        int32_t w[NMAX];
                        memcpy(w, a, sizeof w);
                        tg_tensor_tensor_i32((tg_alu_op)op, (uint8_t *)w, TG_INT32, (const uint8_t *)w, pb, st, n);
                        assert_memory_equal(w, want, bytes);
                    }
                }
            }
        }
    }
}

/* fn at every SIMD body this CPU runs (tg_alu_isa), then back to the widest. */
static void every_body(void (*fn)(void))
{
    const int top = tg_alu_isa(0);
    assert_true(top >= 1 && top <= 2);
    for (int level = 1; level <= top; level++) {
        assert_int_equal(tg_alu_isa(level), level);
        fn();
    }
    assert_int_equal(tg_alu_isa(2), top);
}

static void test_i32_tensor_tensor(void **state)
{
    (void)state;
    every_body(i32_tensor_tensor_sweep);
    assert_int_equal(tg_alu_i32_exact(TG_ALU_ADD), 1);
    assert_int_equal(tg_alu_i32_exact(TG_ALU_BITWISE_XOR), 1);
    assert_int_equal(tg_alu_i32_exact(TG_ALU_DIVIDE), 0);
    assert_int_equal(tg_alu_i32_exact(TG_ALU_LEFT_SHIFT), 0);
    assert_int_equal(tg_alu_i32_scalar_op(TG_ALU_LEFT_SHIFT), 1);
    assert_int_equal(tg_alu_i32_scalar_op(TG_ALU_DIVIDE), 0);
    assert_int_equal(tg_alu_i32_src(TG_UINT8), 1);
    assert_int_equal(tg_alu_i32_src(TG_UINT32), 0);
    assert_int_equal(tg_alu_i32_src(TG_FLOAT32), 0);
}

static void i32_tensor_scalar_sweep(void)
{
    enum { NMAX = 512 };
    static const float consts[] = {0.0f,  1.0f,  -1.0f,  7.0f,  1000.0f, -2047.0f, 2048.0f, 8388607.0f, 8388608.0f,
                                   -8388608.0f, 2.5f, -0.0f, 3e9f, 4.0f, 15.0f, 23.0f, 24.0f, 31.0f, 32.0f};
    const int nc = (int)(sizeof consts / sizeof consts[0]);
    int32_t x[NMAX];
    uint8_t got[NMAX * 4 + 8], want[NMAX * 4], px[NMAX * 4];
    for (int rep = 0; rep < 6000; rep++) {
        const int n = row_lens[rnd32() % (sizeof row_lens / sizeof row_lens[0])];
        const int nst = 1 + (int)(rnd32() % 2);
        const tg_dtype dt = (tg_dtype)(rnd32() % TG_DTYPE_COUNT);
        tg_alu_op op[2];
        float c[2];
        int rev[2];
        for (int k = 0; k < 2; k++) {
            do
                op[k] = (tg_alu_op)(rnd32() % TG_ALU_COUNT);
            while (op[k] == TG_ALU_POWER);
            if (rnd32() % 4) /* mostly the ops with an int32 form */
                while (!tg_alu_i32_scalar_op(op[k]))
                    op[k] = (tg_alu_op)(rnd32() % TG_ALU_COUNT);
            c[k] = rnd32() % 2 ? consts[rnd32() % (unsigned)nc] : (float)((int)(rnd32() % 201) - 100);
            rev[k] = (int)(rnd32() % 2);
        }
        const tg_dtype st = i32_srcs[rnd32() % 5];
        fill_i32(x, n);
        if (rnd32() % 3 == 0) /* shift operands in range: not negative */
            for (int j = 0; j < n; j++)
                x[j] = x[j] < 0 ? -(x[j] + 1) : x[j];
        narrow_to(x, px, n, st);
        for (int j = 0; j < n; j++) {
            float v = (float)x[j];
            for (int k = 0; k < nst; k++)
                v = rev[k] ? tg_alu(op[k], c[k], v) : tg_alu(op[k], v, c[k]);
            tg_store_f32(want, dt, (size_t)j, v);
        }
        memset(got, 0xa5, sizeof got);
        tg_tensor_scalar_i32(got, dt, px, st, n, nst, op, c, rev);
        const size_t bytes = (size_t)n * tg_dtype_size(dt);
        assert_memory_equal(got, want, bytes);
        assert_int_equal(got[bytes], 0xa5);
    }
}

static void test_i32_tensor_scalar(void **state)
{
    (void)state;
    every_body(i32_tensor_scalar_sweep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_arith_and_dispatch),
        cmocka_unit_test(test_max_min_rules),
        cmocka_unit_test(test_max_min_selects),
        cmocka_unit_test(test_nan_canonical),
        cmocka_unit_test(test_nan_in_any),
        cmocka_unit_test(test_logical),
        cmocka_unit_test(test_power),
        cmocka_unit_test(test_pow2_split),
        cmocka_unit_test(test_bitvec),
        cmocka_unit_test(test_i32_tensor_tensor),
        cmocka_unit_test(test_i32_tensor_scalar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#include "tg_fp_end.h"
