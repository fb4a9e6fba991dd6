/* test_ops.c — cmocka tests of runtime/tg_ops: each op on small hand-checked
 * inputs with exact expected values, randomized bit-exact comparisons against
 * straightforward references written here (the documented orders), NaN/inf
 * propagation, and bn_stats/bn_aggr against a two-pass fp64 computation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "tg_ops.h"
#include "tg_sim.h"

static const float INF = (float)INFINITY;

#include "test_rng.h"
/* Uniform in [-1, 1) with 24 random bits. */
static float rndf(void) { return (float)((int32_t)(rnd32() >> 8) - (1 << 23)) / (float)(1 << 23); }
/* Values whose products and sums round: mixed magnitudes and signs. */
static float rndf_wide(void) { return rndf() * ldexpf(1.0f, (int)(rnd32() % 20) - 10); }

static int same_bits(float a, float b) { return tg_f32_bits(a) == tg_f32_bits(b); }

/* ---- element combinators ------------------------------------------------- */

static void test_inline_dispatch_matches_tables(void **state)
{
    static const float v[] = {0.0f, -0.0f, 1.0f, -1.5f, 3.0f, 0.25f, 1e30f, -7.0f, INFINITY, NAN};
    int op, f, i, j;
    (void)state;
    for (op = 0; op < TG_ALU_COUNT; op++)
        for (i = 0; i < 10; i++)
            for (j = 0; j < 10; j++) {
                float x = tg_op_alu((tg_alu_op)op, v[i], v[j]), y = tg_alu((tg_alu_op)op, v[i], v[j]);
                assert_true(same_bits(x, y) || (isnan(x) && isnan(y)));
            }
    for (f = 0; f < TG_ACT_COUNT; f++)
        for (i = 0; i < 10; i++) {
            float x = tg_op_act((tg_act_func)f, v[i]), y = tg_act((tg_act_func)f, v[i]);
            assert_true(same_bits(x, y) || (isnan(x) && isnan(y)));
        }
    assert_true(isnan(tg_op_alu(TG_ALU_COUNT, 1.0f, 1.0f)));
    assert_true(isnan(tg_op_act(TG_ACT_COUNT, 1.0f)));
}

/* x·scale + bias is two roundings: (1+2^-12)² = 1 + 2^-11 + 2^-24 rounds (tie
 * to even) to 1 + 2^-11, so minus 1 gives exactly 2^-11; an FMA would keep
 * the 2^-24. */
static void test_activation_no_fma(void **state)
{
    float x = 1.0f + ldexpf(1.0f, -12);
    float out[3], src[3] = {x, x, x};
    float sum = 0.0f;
    (void)state;
    assert_true(same_bits(tg_activation(TG_ACT_COPY, x, x, -1.0f), ldexpf(1.0f, -11)));
    assert_true(same_bits(tg_activation(TG_ACT_RELU, -2.0f, 3.0f, 1.0f), 0.0f));
    assert_true(same_bits(tg_activation(TG_ACT_SQUARE, 3.0f, 2.0f, 1.0f), 49.0f));
    assert_true(same_bits(tg_activation(TG_ACT_EXP, 0.0f, 5.0f, 0.0f), 1.0f));
    tg_activation_row(out, src, 3, TG_ACT_COPY, x, -1.0f, &sum);
    assert_true(same_bits(out[2], ldexpf(1.0f, -11)));
    assert_true(same_bits(sum, 3.0f * ldexpf(1.0f, -11)));
    tg_activation_row(out, src, 3, TG_ACT_COPY, 1.0f, 0.0f, NULL); /* no reduce: fine */
    assert_true(same_bits(out[0], x));
    /* NaN and inf propagate through scale/bias and the function. */
    assert_true(isnan(tg_activation(TG_ACT_EXP, NAN, 1.0f, 0.0f)));
    assert_true(isnan(tg_activation(TG_ACT_COPY, INF, 0.0f, 0.0f))); /* inf·0 */
    assert_true(same_bits(tg_activation(TG_ACT_EXP, -INF, 1.0f, 0.0f), 0.0f));
    assert_true(same_bits(tg_activation(TG_ACT_SIGMOID, 1.0f, 1.0f, INF), 1.0f));
}

static void test_tensor_scalar_and_tensor(void **state)
{
    float src[4] = {1.0f, 2.0f, 4.0f, -8.0f}, dst[4], b[4] = {3.0f, 3.0f, 3.0f, 3.0f};
    (void)state;
    assert_true(same_bits(tg_tensor_scalar1(TG_ALU_SUBTRACT, 5.0f, 2.0f, 0), 3.0f));
    assert_true(same_bits(tg_tensor_scalar1(TG_ALU_SUBTRACT, 5.0f, 2.0f, 1), -3.0f));
    assert_true(same_bits(tg_tensor_scalar1(TG_ALU_DIVIDE, 4.0f, 1.0f, 1), 0.25f));
    /* (x − 1) · 0.5, then 10 / x reversed. */
    assert_true(same_bits(tg_tensor_scalar2(5.0f, TG_ALU_SUBTRACT, 1.0f, 0, TG_ALU_MULTIPLY, 0.5f, 0), 2.0f));
    assert_true(same_bits(tg_tensor_scalar2(3.0f, TG_ALU_ADD, 2.0f, 0, TG_ALU_DIVIDE, 10.0f, 1), 2.0f));
    tg_tensor_scalar_row(dst, src, 4, TG_ALU_MULTIPLY, 3.0f, 0, TG_ALU_COUNT, 0.0f, 0);
    assert_true(same_bits(dst[3], -24.0f));
    tg_tensor_scalar_row(dst, src, 4, TG_ALU_MAXIMUM, 1.5f, 0, TG_ALU_SUBTRACT, 1.0f, 1);
    assert_true(same_bits(dst[0], -0.5f) && same_bits(dst[1], -1.0f) && same_bits(dst[3], -0.5f));
    tg_tensor_tensor_row(dst, src, b, 4, TG_ALU_GREATER);
    assert_true(dst[0] == 0.0f && dst[2] == 1.0f && dst[3] == 0.0f);
    tg_tensor_tensor_row(dst, src, b, 4, TG_ALU_POWER);
    assert_true(same_bits(dst[1], 8.0f) && same_bits(dst[3], -512.0f));
    assert_true(isnan(tg_tensor_tensor(TG_ALU_ADD, INF, -INF)));
    assert_true(isnan(tg_tensor_tensor(TG_ALU_MAXIMUM, NAN, 1.0f)));
}

static void test_select_cmp_iota(void **state)
{
    uint16_t bf[2];
    int8_t i8[1];
    int32_t i32[1];
    uint32_t u32[1];
    float f32[1];
    (void)state;
    assert_true(same_bits(tg_select(1, 2.5f, -INF), 2.5f));
    assert_true(same_bits(tg_select(0, 2.5f, -INF), -INF));
    assert_true(tg_cmp_eval(TG_CMP_GE, 5, 5) && !tg_cmp_eval(TG_CMP_GT, 5, 5));
    assert_true(tg_cmp_eval(TG_CMP_LT, -3, 2) && tg_cmp_eval(TG_CMP_LE, 2, 2));
    assert_true(tg_cmp_eval(TG_CMP_EQ, 7, 7) && tg_cmp_eval(TG_CMP_NE, 7, 8));
    assert_false(tg_cmp_eval(TG_CMP_COUNT, 1, 1));
    /* int32 wrap, then the dtype cast. */
    assert_int_equal(tg_iota_wrap(((int64_t)1 << 32) + 5), 5);
    assert_int_equal(tg_iota_wrap((int64_t)INT32_MAX + 1), INT32_MIN);
    assert_true(same_bits(tg_iota_f32(16777217), 16777216.0f)); /* int32 → fp32 RNE */
    assert_int_equal(tg_iota_cast(i32, TG_INT32, 0, 16777217), 0);
    assert_int_equal(i32[0], 16777217); /* int32 → int32 stays exact */
    assert_int_equal(tg_iota_cast(i8, TG_INT8, 0, 300), 0);
    assert_int_equal(i8[0], 127); /* saturates */
    assert_int_equal(tg_iota_cast(u32, TG_UINT32, 0, -1), 0);
    assert_int_equal(u32[0], 0); /* via fp32: negative → 0 */
    assert_int_equal(tg_iota_cast(bf, TG_BFLOAT16, 1, 257), 0);
    assert_int_equal(bf[1], 0x4380); /* 257 → 256 in bf16 (tie to even) */
    assert_int_equal(tg_iota_cast(f32, TG_FLOAT32, 0, -3), 0);
    assert_true(same_bits(f32[0], -3.0f));
    assert_int_equal(tg_iota_cast(f32, TG_DTYPE_COUNT, 0, 1), -1);
    assert_int_equal(tg_iota_cast(NULL, TG_FLOAT32, 0, 1), -1);
}

/* ---- reductions and scan --------------------------------------------------- */

/* iota into every dtype but int32 as the generated C writes it — the int32
 * value rounded to fp32, then stored by tg_wr_<dtype> (kernel.c.j2) — is
 * tg_iota_cast's (the ISS's) tensor_copy from int32, bit for bit: values
 * around every dtype's range and rounding points, and wrapped ones. */
static void test_iota_inline_forms(void **state)
{
    static const int64_t fixed[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535,
                                    65536, 16777217, -16777217, 2147483647, -2147483647 - 1, 4294967295LL,
                                    ((int64_t)1 << 32) + 5, 448, 449, 57344, 61440, 240, 241, -3, 1000003};
    (void)state;
    for (int k = 0; k < 20000; k++) {
        const int64_t v = k < (int)(sizeof fixed / sizeof fixed[0]) ? fixed[k]
                          : k % 3 ? (int64_t)(int32_t)rnd32() >> (rnd32() % 31)
                                  : (int64_t)(((uint64_t)rnd32() << 32) | rnd32());
        const float f = tg_iota_f32(v);
        for (int dt = 0; dt < TG_DTYPE_COUNT; dt++) {
            uint8_t want[8] = {0}, got[8] = {0};
            if (dt == TG_INT32)
                continue;
            assert_int_equal(tg_iota_cast(want, (tg_dtype)dt, 0, v), 0);
            switch ((tg_dtype)dt) {
            case TG_FLOAT32: tg_wr_f32(got, 0, f); break;
            case TG_TFLOAT32: tg_wr_tf32(got, 0, f); break;
            case TG_BFLOAT16: tg_wr_bf16(got, 0, f); break;
            case TG_FLOAT16: tg_wr_f16(got, 0, f); break;
            case TG_FLOAT8_E4M3: tg_wr_e4m3(got, 0, f); break;
            case TG_FLOAT8_E5M2: tg_wr_e5m2(got, 0, f); break;
            case TG_INT8: tg_wr_i8(got, 0, f); break;
            case TG_UINT8: tg_wr_u8(got, 0, f); break;
            case TG_INT16: tg_wr_i16(got, 0, f); break;
            case TG_UINT16: tg_wr_u16(got, 0, f); break;
            case TG_UINT32: tg_wr_u32(got, 0, f); break;
            default: fail_msg("dtype %d has no case", dt);
            }
            assert_memory_equal(got, want, sizeof got);
        }
    }
}

static void test_reduce_hand(void **state)
{
    float x[4] = {1e8f, 1.0f, -1e8f, 1.0f};
    float y[5] = {2.0f, -3.0f, 0.5f, 4.0f, -1.0f};
    float z[3] = {-0.0f, -0.0f, -0.0f};
    float w[3] = {1.0f, NAN, 2.0f};
    float l[3] = {1.0f, 0.0f, 5.0f};
    float bits[3] = {12.0f, 10.0f, 6.0f};
    (void)state;
    /* left to right: (1e8 + 1) rounds back to 1e8, − 1e8 = 0, + 1 = 1 */
    assert_true(same_bits(tg_reduce_row(x, 4, TG_ALU_ADD, 0), 1.0f));
    assert_true(same_bits(tg_reduce_row(x, 4, TG_ALU_ADD, 1), -1.0f));
    assert_true(same_bits(tg_reduce_row(y, 5, TG_ALU_ADD, 0), 2.5f));
    assert_true(same_bits(tg_reduce_row(y, 5, TG_ALU_SUBTRACT, 0), 2.0f + 3.0f - 0.5f - 4.0f + 1.0f));
    assert_true(same_bits(tg_reduce_row(y, 5, TG_ALU_MULTIPLY, 0), 12.0f));
    assert_true(same_bits(tg_reduce_row(y, 5, TG_ALU_MAXIMUM, 0), 4.0f));
    assert_true(same_bits(tg_reduce_row(y, 5, TG_ALU_MINIMUM, 1), 3.0f));
    assert_true(same_bits(tg_reduce_row(y, 1, TG_ALU_ADD, 0), 2.0f));
    assert_true(same_bits(tg_reduce_row(z, 3, TG_ALU_ADD, 0), -0.0f));
    assert_true(same_bits(tg_reduce_row(z, 3, TG_ALU_ADD, 1), 0.0f));
    assert_true(isnan(tg_reduce_row(y, 0, TG_ALU_ADD, 0)));
    assert_true(isnan(tg_reduce_row(w, 3, TG_ALU_ADD, 0)));
    assert_true(isnan(tg_reduce_row(w, 3, TG_ALU_MAXIMUM, 0)));
    assert_true(isnan(tg_reduce_row(w, 3, TG_ALU_MINIMUM, 1)));
    assert_true(same_bits(tg_reduce_row(l, 3, TG_ALU_LOGICAL_AND, 0), 0.0f));
    assert_true(same_bits(tg_reduce_row(l, 3, TG_ALU_LOGICAL_OR, 0), 1.0f));
    assert_true(same_bits(tg_reduce_row(l, 3, TG_ALU_LOGICAL_XOR, 0), 0.0f));
    assert_true(same_bits(tg_reduce_row(bits, 3, TG_ALU_BITWISE_AND, 0), 0.0f));
    assert_true(same_bits(tg_reduce_row(bits, 3, TG_ALU_BITWISE_OR, 0), 14.0f));
    assert_true(same_bits(tg_reduce_row(bits, 3, TG_ALU_BITWISE_XOR, 0), 0.0f));
    /* inf: max picks it, add of opposite infinities is NaN. */
    {
        float v[3] = {-INF, 5.0f, INF};
        assert_true(same_bits(tg_reduce_row(v, 3, TG_ALU_MAXIMUM, 0), INF));
        assert_true(same_bits(tg_reduce_row(v, 2, TG_ALU_ADD, 0), -INF));
        assert_true(isnan(tg_reduce_row(v, 3, TG_ALU_ADD, 0)));
    }
    assert_true(tg_reduce_legal(TG_ALU_ADD) && tg_reduce_legal(TG_ALU_BITWISE_XOR));
    assert_false(tg_reduce_legal(TG_ALU_DIVIDE) || tg_reduce_legal(TG_ALU_EQUAL) ||
                 tg_reduce_legal(TG_ALU_POWER) || tg_reduce_legal(TG_ALU_LEFT_SHIFT));
}

static void test_reduce_bits(void **state)
{
    uint32_t x[3] = {0xffff0000u, 0x0ff00ff0u, 0x80000001u};
    (void)state;
    assert_int_equal(tg_reduce_bits(x, 3, TG_ALU_BITWISE_OR), 0xffff0ff1u);
    assert_int_equal(tg_reduce_bits(x, 2, TG_ALU_BITWISE_AND), 0x0ff00000u);
    assert_int_equal(tg_reduce_bits(x, 3, TG_ALU_BITWISE_XOR), 0xffff0000u ^ 0x0ff00ff0u ^ 0x80000001u);
    assert_int_equal(tg_reduce_bits(x, 1, TG_ALU_BITWISE_AND), 0xffff0000u);
    assert_int_equal(tg_reduce_bits(x, 0, TG_ALU_BITWISE_OR), 0u);
}

/* Random rows: reductions bit-equal to a plain left fold written here. */
static void test_reduce_random(void **state)
{
    static float x[1000];
    int t, j;
    (void)state;
    for (t = 0; t < 200; t++) {
        int n = 1 + (int)(rnd32() % 1000);
        float s, m, p;
        for (j = 0; j < n; j++)
            x[j] = rndf_wide();
        s = x[0], m = x[0], p = x[0];
        for (j = 1; j < n; j++) {
            s += x[j];
            m = x[j] > m ? x[j] : m;
            p *= 1.0f + x[j] * 0.001f;
        }
        assert_true(same_bits(tg_reduce_row(x, (size_t)n, TG_ALU_ADD, 0), s));
        assert_true(same_bits(tg_reduce_row(x, (size_t)n, TG_ALU_MAXIMUM, 1), -m));
        for (j = 1; j < n; j++)
            x[j] = 1.0f + x[j] * 0.001f;
        assert_true(same_bits(tg_reduce_row(x, (size_t)n, TG_ALU_MULTIPLY, 0), p));
    }
}

static void test_scan(void **state)
{
    float a[5] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f}, b[5] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f}, d[5];
    float g[4] = {0.5f, 0.5f, 2.0f, 0.0f}, u[4] = {1.0f, 1.0f, 1.0f, 3.0f};
    static float ra[700], rb[700], rd[700];
    int t, j;
    (void)state;
    /* cumsum: (1 · r) + b */
    tg_scan_row(d, a, b, 5, 0.0f, TG_ALU_MULTIPLY, TG_ALU_ADD);
    assert_true(d[0] == 1.0f && d[1] == 3.0f && d[2] == 6.0f && d[3] == 10.0f && d[4] == 15.0f);
    /* a op0 r with the running value as the right operand: r = (r − a) ... */
    tg_scan_row(d, b, a, 5, 10.0f, TG_ALU_SUBTRACT, TG_ALU_ADD); /* r = (b − r) + 1 */
    assert_true(d[0] == -8.0f && d[1] == 11.0f && d[2] == -7.0f && d[3] == 12.0f && d[4] == -6.0f);
    /* linear recurrence r = g·r + u, initial 2 */
    tg_scan_row(d, g, u, 4, 2.0f, TG_ALU_MULTIPLY, TG_ALU_ADD);
    assert_true(d[0] == 2.0f && d[1] == 2.0f && d[2] == 5.0f && d[3] == 3.0f);
    /* running max; NaN enters and stays (max propagates NaN). */
    {
        float z[4] = {0}, v[4] = {1.0f, 3.0f, NAN, 2.0f};
        tg_scan_row(d, z, v, 4, -INF, TG_ALU_ADD, TG_ALU_MAXIMUM);
        assert_true(d[0] == 1.0f && d[1] == 3.0f && isnan(d[2]) && isnan(d[3]));
    }
    /* in place, and random against a plain loop */
    for (t = 0; t < 50; t++) {
        int n = 1 + (int)(rnd32() % 700);
        float r = rndf();
        for (j = 0; j < n; j++)
            ra[j] = rndf(), rb[j] = rndf_wide();
        tg_scan_row(rd, ra, rb, (size_t)n, r, TG_ALU_MULTIPLY, TG_ALU_ADD);
        for (j = 0; j < n; j++) {
            float q = ra[j] * r;
            r = q + rb[j];
            assert_true(same_bits(rd[j], r));
        }
        /* in place over a: r = (a[j] + r) − b[j] */
        r = 0.0f;
        for (j = 0; j < n; j++) {
            float q = ra[j] + r;
            r = q - rb[j];
            rd[j] = r;
        }
        tg_scan_row(ra, ra, rb, (size_t)n, 0.0f, TG_ALU_ADD, TG_ALU_SUBTRACT);
        assert_memory_equal(ra, rd, sizeof(float) * (size_t)n);
    }
}

/* ---- bn_stats / bn_aggr ---------------------------------------------------- */

static void test_bn_hand(void **state)
{
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, s[6], a[2], rec[12];
    (void)state;
    assert_int_equal(tg_bn_stats_f32(s, x, 8), 0);
    assert_true(s[0] == 4.0f && s[1] == 4.0f && s[2] == 20.0f);
    assert_true(s[3] == 4.0f && s[4] == 5.0f && s[5] == 20.0f);
    assert_int_equal(tg_bn_aggr_f32(a, s, 6), 0);
    assert_true(same_bits(a[0], 4.5f) && same_bits(a[1], 5.25f)); /* np.var(1..8) */
    /* odd length: 5 elements, even half {1,3,5}, odd half {2,4} */
    assert_int_equal(tg_bn_stats_f32(s, x, 5), 0);
    assert_true(s[0] == 3.0f && s[1] == 3.0f && s[2] == 8.0f && s[3] == 2.0f && s[4] == 3.0f && s[5] == 2.0f);
    assert_int_equal(tg_bn_aggr_f32(a, s, 6), 0);
    assert_true(same_bits(a[0], 3.0f) && same_bits(a[1], 2.0f));
    /* one element: the odd half is empty and skipped */
    assert_int_equal(tg_bn_stats_f32(s, x + 6, 1), 0);
    assert_true(s[0] == 1.0f && s[1] == 7.0f && s[2] == 0.0f && s[3] == 0.0f && s[4] == 0.0f && s[5] == 0.0f);
    assert_int_equal(tg_bn_aggr_f32(a, s, 6), 0);
    assert_true(same_bits(a[0], 7.0f) && same_bits(a[1], 0.0f));
    /* two records: x[0:4] and x[4:8] aggregate to the stats of all eight */
    assert_int_equal(tg_bn_stats_f32(rec, x, 4), 0);
    assert_int_equal(tg_bn_stats_f32(rec + 6, x + 4, 4), 0);
    assert_int_equal(tg_bn_aggr_f32(a, rec, 12), 0);
    assert_true(same_bits(a[0], 4.5f) && same_bits(a[1], 5.25f));
    /* errors leave out untouched */
    a[0] = 9.0f;
    assert_int_equal(tg_bn_stats_f32(s, x, 0), -1);
    assert_int_equal(tg_bn_stats_f32(s, x, TG_BN_STATS_FMAX + 1), -1);
    assert_int_equal(tg_bn_aggr_f32(a, rec, 0), -1);
    assert_int_equal(tg_bn_aggr_f32(a, rec, 7), -1);
    assert_true(a[0] == 9.0f);
    /* all-empty records: NaN */
    memset(rec, 0, sizeof rec);
    assert_int_equal(tg_bn_aggr_f32(a, rec, 12), 0);
    assert_true(isnan(a[0]) && isnan(a[1]));
    /* NaN / inf in the data propagate */
    x[3] = NAN;
    tg_bn_stats_f32(s, x, 8);
    assert_true(s[3] == 4.0f && isnan(s[4]) && isnan(s[5]) && s[1] == 4.0f);
    tg_bn_aggr_f32(a, s, 6);
    assert_true(isnan(a[0]) && isnan(a[1]));
    x[3] = INF;
    tg_bn_stats_f32(s, x, 8);
    assert_true(s[4] == INF && isnan(s[5]));
}

/* Two-pass mean and population variance in double (the reference). */
static void mean_var(const float *x, int n, double *mean, double *var)
{
    double m = 0.0, v = 0.0;
    int j;
    for (j = 0; j < n; j++)
        m += x[j];
    m /= n;
    for (j = 0; j < n; j++)
        v += (x[j] - m) * (x[j] - m);
    *mean = m;
    *var = v / n;
}

/* bn_stats over ≤ 512-element chunks of a row (n ≤ 4096), then bn_aggr. */
static void bn_row(float out[2], const float *x, int n)
{
    float rec[8 * 6];
    int off, nrec = 0;
    for (off = 0; off < n; off += 512, nrec++)
        assert_int_equal(tg_bn_stats_f32(rec + 6 * nrec, x + off, (size_t)(n - off < 512 ? n - off : 512)), 0);
    assert_int_equal(tg_bn_aggr_f32(out, rec, (size_t)(6 * nrec)), 0);
}

/* Random rows split into ≤ 512-element bn_stats records, aggregated, against
 * a two-pass mean/variance in double. Tolerance: fp32 two-pass with ≤ 512
 * terms per record plus a Chan fold, data of mean ~c and spread 1: relative
 * error of the mean ≲ n·2^-24 of max|x|, of the variance ≲ n·2^-23 — we
 * assert 1e-4·(|mean| + 1) and 1e-4·var (n ≤ 4096; observed ≪ that). Small
 * integer data with power-of-two counts is exact. */
static void test_bn_random(void **state)
{
    static float x[4096];
    int t, j;
    (void)state;
    for (t = 0; t < 300; t++) {
        int n = 1 + (int)(rnd32() % 4096);
        float c = (float)((int)(rnd32() % 200) - 100), a[2];
        double mean, var;
        for (j = 0; j < n; j++)
            x[j] = c + rndf();
        bn_row(a, x, n);
        mean_var(x, n, &mean, &var);
        assert_true(fabs(a[0] - mean) <= 1e-4 * (fabs(mean) + 1.0));
        assert_true(fabs(a[1] - var) <= 1e-4 * var + 1e-12);
    }
    /* Exact case: power-of-two n; inside each record, each half holds c ± r
     * pairs of small integers (mean c exactly, integer deviations). The two
     * halves get different c only for n ≤ 512 (one record: Chan's weight is
     * 1/2); beyond, one c per row (a fold over 3 halves has weight 1/3). So
     * every fp32 step is exact and the result equals the fp64 two-pass one. */
    for (t = 0; t < 100; t++) {
        int n = 1 << (2 + (int)(rnd32() % 11)), off;
        float a[2], c0 = (float)((int)(rnd32() % 33) - 16), c1 = (float)((int)(rnd32() % 33) - 16);
        double mean, var;
        for (off = 0; off < n; off += 512) {
            int len = n - off < 512 ? n - off : 512, h, q = len / 4;
            for (h = 0; h < 2; h++) {
                float c = h && n <= 512 ? c1 : c0;
                for (j = 0; j < q; j++) {
                    float r = (float)((int)(rnd32() % 17) - 8);
                    x[off + 2 * j + h] = c + r;
                    x[off + 2 * (j + q) + h] = c - r;
                }
            }
        }
        bn_row(a, x, n);
        mean_var(x, n, &mean, &var);
        assert_true((double)a[0] == mean);
        assert_true((double)a[1] == var);
    }
}

/* A value for the lane tests: mostly wide random floats, sometimes a
 * special (±0, ±inf, NaN of either sign) or, for a record count, 0. */
static float lane_value(void)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                       0x7fc00000u, 0xffc00001u, 0x00000001u};
    uint32_t r = rnd32() % 64;
    return r < 7 ? tg_bits_f32(special[r]) : rndf_wide();
}

/* The lane forms give every lane the bits of the one-row functions: random
 * rows with specials, every length up to 2 records past a few, bn_aggr
 * records with counts of 0 (skipped), negative and NaN (skipped), a first
 * record anywhere, and lanes with no record at all (NaN). */
static void test_bn_lanes(void **state)
{
    static float x[TG_BN_STATS_FMAX * TG_LANES], row[TG_BN_STATS_FMAX];
    float out[6 * TG_LANES], one[6];
    int t, l;
    size_t j, n;
    (void)state;
    for (t = 0; t < 400; t++) {
        n = t < 40 ? (size_t)t + 1 : 1 + rnd32() % TG_BN_STATS_FMAX;
        for (j = 0; j < n * TG_LANES; j++)
            x[j] = t % 2 ? lane_value() : (float)(rnd32() % 200) + rndf();
        assert_int_equal(tg_bn_stats_lanes_f32(out, x, n), 0);
        for (l = 0; l < TG_LANES; l++) {
            for (j = 0; j < n; j++)
                row[j] = x[j * TG_LANES + (size_t)l];
            assert_int_equal(tg_bn_stats_f32(one, row, n), 0);
            for (j = 0; j < 6; j++)
                assert_true(tg_f32_bits(out[l * 6 + (int)j]) == tg_f32_bits(one[j]));
        }
        /* bn_aggr: n/3 records, counts 0, 1..4, -1, NaN, or a bn_stats count */
        n = 3 * (1 + rnd32() % 12);
        for (j = 0; j < n * TG_LANES; j++) {
            uint32_t r = rnd32() % 8;
            int count = (j / TG_LANES) % 3 == 0;
            x[j] = !count ? lane_value() : r < 2 ? 0.0f : r == 2 ? -1.0f : r == 3 ? (float)NAN : (float)(r - 3);
        }
        assert_int_equal(tg_bn_aggr_lanes_f32(out, x, n), 0);
        for (l = 0; l < TG_LANES; l++) {
            for (j = 0; j < n; j++)
                row[j] = x[j * TG_LANES + (size_t)l];
            assert_int_equal(tg_bn_aggr_f32(one, row, n), 0);
            assert_true(tg_f32_bits(out[2 * l]) == tg_f32_bits(one[0]));
            assert_true(tg_f32_bits(out[2 * l + 1]) == tg_f32_bits(one[1]));
        }
    }
    out[0] = 9.0f;
    assert_int_equal(tg_bn_stats_lanes_f32(out, x, 0), -1);
    assert_int_equal(tg_bn_stats_lanes_f32(out, x, TG_BN_STATS_FMAX + 1), -1);
    assert_int_equal(tg_bn_aggr_lanes_f32(out, x, 0), -1);
    assert_int_equal(tg_bn_aggr_lanes_f32(out, x, 7), -1);
    assert_int_equal(tg_bn_aggr_lanes_f32(out, x, TG_BN_STATS_FMAX + 3), -1);
    assert_true(out[0] == 9.0f);
}

/* ---- partition_reduce ---------------------------------------------------------- */

static void test_partition_reduce(void **state)
{
    float src[3][4] = {{1, 5, -1, 0}, {2, -5, NAN, 1e8f}, {4, 3, 1, 1}}, d[4];
    uint32_t bs[3][2] = {{1u, 0xffu}, {2u, 0x0fu}, {0x80000000u, 0xf0u}}, bd[2];
    float col[130], big[130][3];
    int p;
    (void)state;
    tg_partition_reduce_f32(d, &src[0][0], 4, 3, 4, TG_ALU_ADD);
    assert_true(d[0] == 7.0f && d[1] == 3.0f && isnan(d[2]) && same_bits(d[3], 1e8f));
    tg_partition_reduce_f32(d, &src[0][0], 4, 3, 4, TG_ALU_MAXIMUM);
    assert_true(d[0] == 4.0f && d[1] == 5.0f && isnan(d[2]) && d[3] == 1e8f);
    tg_partition_reduce_f32(d, &src[0][0], 4, 2, 2, TG_ALU_BITWISE_OR);
    assert_true(d[0] == 3.0f && d[1] == -1.0f); /* 5 | -5 = -1 (int32 patterns) */
    tg_partition_reduce_f32(d, &src[0][0], 4, 1, 4, TG_ALU_ADD);
    assert_true(d[0] == 1.0f && d[1] == 5.0f);
    tg_partition_reduce_f32(d, &src[0][0], 4, 0, 4, TG_ALU_ADD);
    assert_true(isnan(d[0]) && isnan(d[3]));
    tg_partition_reduce_bits(bd, &bs[0][0], 2, 3, 2, TG_ALU_BITWISE_OR);
    assert_true(bd[0] == 0x80000003u && bd[1] == 0xffu);
    tg_partition_reduce_bits(bd, &bs[0][0], 2, 3, 2, TG_ALU_BITWISE_AND);
    assert_true(bd[0] == 0u && bd[1] == 0u);
    /* increasing partition order: 128 values summed left to right */
    for (p = 0; p < 130; p++)
        big[p][0] = rndf_wide(), big[p][1] = (float)p, big[p][2] = -rndf_wide();
    tg_partition_reduce_f32(col, &big[0][0], 3, 128, 3, TG_ALU_ADD);
    {
        float s = big[0][0];
        for (p = 1; p < 128; p++)
            s += big[p][0];
        assert_true(same_bits(col[0], s));
        assert_true(col[1] == 127.0f * 128.0f / 2.0f);
    }
    assert_true(tg_partition_reduce_legal(TG_ALU_ADD) && tg_partition_reduce_legal(TG_ALU_BITWISE_AND));
    assert_false(tg_partition_reduce_legal(TG_ALU_MINIMUM) || tg_partition_reduce_legal(TG_ALU_MULTIPLY));
}

/* ---- matmul and transpose ------------------------------------------------------- */

/* The documented order, written independently: for each (m, n), start from
 * dst or +0, add fl(s·b) for k = 0, 1, ... */
static void ref_matmul(float *dst, ptrdiff_t ds, const float *s, ptrdiff_t ss, const float *b,
                       ptrdiff_t bs, int K, int M, int N, int acc)
{
    int m, n, k;
    for (m = 0; m < M; m++)
        for (n = 0; n < N; n++) {
            float c = acc ? dst[m * ds + n] : 0.0f;
            for (k = 0; k < K; k++) {
                float p = s[k * ss + m] * b[k * bs + n];
                c = c + p;
            }
            dst[m * ds + n] = c;
        }
}

static void test_matmul_hand(void **state)
{
    /* stat [K=2, M=2] = [[1, 2], [3, 4]], mov [K=2, N=3] */
    float st[4] = {1, 2, 3, 4}, mv[6] = {1, 0, -1, 2, 1, 0.5f}, d[6];
    (void)state;
    tg_matmul_f32(d, 3, st, 2, mv, 3, 2, 2, 3, 0);
    /* d[m][n] = st[0][m]·mv[0][n] + st[1][m]·mv[1][n] */
    assert_true(d[0] == 7.0f && d[1] == 3.0f && d[2] == 0.5f);
    assert_true(d[3] == 10.0f && d[4] == 4.0f && d[5] == 0.0f);
    tg_matmul_f32(d, 3, st, 2, mv, 3, 2, 2, 3, 1); /* accumulate: doubles */
    assert_true(d[0] == 14.0f && d[4] == 8.0f);
    tg_matmul_f32(d, 3, st, 2, mv, 3, 0, 2, 3, 1); /* K = 0 accumulate: unchanged */
    assert_true(d[0] == 14.0f);
    tg_matmul_f32(d, 3, st, 2, mv, 3, 0, 2, 3, 0); /* K = 0: zeroes */
    assert_true(same_bits(d[0], 0.0f) && same_bits(d[5], 0.0f));
    /* order: 1e8·1 + 1·1 + (−1e8)·1 + 1·1 = 1 left to right */
    {
        float s4[4] = {1e8f, 1.0f, -1e8f, 1.0f}, one[4] = {1, 1, 1, 1}, r;
        tg_matmul_f32(&r, 1, s4, 1, one, 1, 4, 1, 1, 0);
        assert_true(same_bits(r, 1.0f));
        /* −0 products from +0 start give +0; accumulating onto −0 keeps −0 */
        s4[0] = -0.0f;
        tg_matmul_f32(&r, 1, s4, 1, one, 1, 1, 1, 1, 0);
        assert_true(same_bits(r, 0.0f));
        r = -0.0f;
        tg_matmul_f32(&r, 1, s4, 1, one, 1, 1, 1, 1, 1);
        assert_true(same_bits(r, -0.0f));
    }
    /* NaN and inf: inf·0 = NaN, inf + finite = inf, NaN stays NaN */
    {
        float s2[2] = {INF, 1.0f}, b2[4] = {0.0f, 1.0f, 1.0f, NAN}, r2[2];
        tg_matmul_f32(r2, 2, s2, 1, b2, 2, 2, 1, 2, 0);
        assert_true(isnan(r2[0]) && isnan(r2[1]));
        s2[1] = 0.0f, b2[0] = 2.0f, b2[3] = 5.0f;
        tg_matmul_f32(r2, 2, s2, 1, b2, 2, 2, 1, 2, 0);
        assert_true(r2[0] == INF && r2[1] == INF);
    }
}

/* NaN results of a matmul are the canonical NaN in every SIMD body and path
 * (packed, narrow N <= 4, accumulating into a dst of NaNs with payloads, the
 * reference): operands holding NaNs of either sign and several payloads and
 * infinities give 0x7fc00000 wherever the sum is NaN, and every body the same
 * bits as the reference (fuzz seed 860002: a body's payload leaked). fp32
 * operands, and bf16 ones with signalling NaNs too (the matmul's widening
 * leaves a quiet bit alone), against the reference on them widened as
 * tg_bf16_to_f32 does. */
static void test_matmul_nan_canonical(void **state)
{
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7fd00000u, 0xfff00000u, 0x7f800001u, 0xff812345u};
    static const uint16_t nans16[] = {0x7f81u, 0xff81u, 0x7fc0u, 0xffc1u, 0x7fa5u, 0x7f80u};
    static float st[20 * 37], mv[20 * 41], d[37 * 41], r[37 * 41];
    static uint16_t st16[20 * 37], mv16[20 * 41];
    static const int shapes[][3] = {{20, 37, 41}, {7, 37, 1}, {20, 13, 4}, {1, 5, 17}, {20, 1, 41}, {9, 3, 33}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int bf = 0; bf < 2; bf++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int K = shapes[s][0], M = shapes[s][1], N = shapes[s][2];
            for (int acc = 0; acc < 2; acc++) {
                for (int i = 0; i < K * M; i++) {
                    uint32_t u = rnd32();
                    st[i] = u % 7 == 0    ? tg_bits_f32(nans[u % 6])
                            : u % 11 == 0 ? tg_bits_f32(u % 2 ? 0xff800000u : 0x7f800000u)
                                          : rndf();
                    st16[i] = u % 7 == 0 ? nans16[u % 6] : (uint16_t)(tg_f32_bits(st[i]) >> 16);
                    if (bf)
                        st[i] = tg_bf16_to_f32(st16[i]);
                }
                for (int i = 0; i < K * N; i++) {
                    uint32_t u = rnd32();
                    mv[i] = u % 9 == 0 ? tg_bits_f32(nans[u % 6]) : rndf();
                    mv16[i] = u % 9 == 0 ? nans16[u % 6] : (uint16_t)(tg_f32_bits(mv[i]) >> 16);
                    if (bf)
                        mv[i] = tg_bf16_to_f32(mv16[i]);
                }
                for (int i = 0; i < M * N; i++)
                    r[i] = i % 5 == 0 ? tg_bits_f32(nans[i % 6]) : rndf();
                memcpy(d, r, sizeof d);
                tg_matmul_f32_ref(r, N, st, M, mv, N, K, M, N, acc);
                int nnan = 0;
                for (int i = 0; i < M * N; i++)
                    if (r[i] != r[i]) {
                        assert_int_equal(tg_f32_bits(r[i]), 0x7fc00000u);
                        nnan++;
                    }
                assert_true(nnan > 0);
                const tg_pe_src a16 = {st16, M * 2, 1, TG_BFLOAT16}, b16 = {mv16, N * 2, 1, TG_BFLOAT16};
                for (int level = top; level >= 1; level--) {
                    static float d2[37 * 41];
                    assert_int_equal(tg_matmul_isa(level), level);
                    memcpy(d2, d, sizeof d2);
                    if (bf)
                        tg_matmul(d2, N, a16, b16, K, M, N, acc, NULL, 0);
                    else
                        tg_matmul_f32(d2, N, st, M, mv, N, K, M, N, acc);
                    for (int i = 0; i < M * N; i++)
                        assert_int_equal(tg_f32_bits(d2[i]), tg_f32_bits(r[i]));
                }
            }
        }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* Random shapes around the micro-kernel and block edges (a last stationary
 * panel of every row count short of 4, 6 and 8), strided operands,
 * bit-exact against ref_matmul (with and without accumulate), with every SIMD
 * body this CPU runs (tg_matmul_isa: baseline, AVX2, AVX-512F on x86-64). */
static void test_matmul_random(void **state)
{
    static float st[300 * 160], mv[300 * 610], d1[150 * 610], d2[150 * 610];
    int top = tg_matmul_isa(0), level;
    static const int shapes[][3] = {{1, 1, 1},   {1, 6, 16},   {2, 7, 17},    {128, 128, 512},
                                    {129, 13, 33}, {300, 50, 100}, {5, 128, 64}, {257, 97, 200},
                                    {17, 48, 48}, {64, 64, 31}, {128, 1, 512}, {3, 150, 600},
                                    {20, 3, 64},  {40, 5, 96},  {9, 4, 32},    {12, 11, 160},
                                    /* a last block of one vector of columns (16 on AVX-512, 8 on AVX2), of
                                     * a whole panel of rows and of fewer; flat stationary packs (N up to 4
                                     * micro-kernel widths) with rows a multiple of 16 and not */
                                    {128, 16, 48}, {70, 13, 48}, {33, 128, 80}, {40, 24, 120}, {128, 18, 40},
                                    {65, 96, 24},
                                    /* N <= 4: the unpacked matrix-vector path, M past its 256-row chunks */
                                    {150, 300, 1}, {129, 17, 4}, {64, 257, 2}, {3, 520, 3}, {1, 1, 4},
                                    /* M <= 4, N > 4: the unpacked vector-matrix path, k in groups of 4 and a
                                     * last group of fewer, N with and without a part vector */
                                    {130, 2, 100}, {7, 4, 21}, {129, 1, 33}, {2, 3, 5}, {4, 1, 610}};
    size_t t;
    int i;
    (void)state;
    assert_true(top >= 1 && top <= 3);
    for (level = top; level >= 1; level--) {
    assert_int_equal(tg_matmul_isa(level), level);
    for (t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int K = shapes[t][0], M = shapes[t][1], N = shapes[t][2], acc;
        ptrdiff_t ss = M + (t % 3), ms = N + (t % 2) * 5, ds = N + 3;
        for (i = 0; i < K * (int)ss; i++)
            st[i] = rndf_wide();
        for (i = 0; i < K * (int)ms; i++)
            mv[i] = rndf_wide();
        for (acc = 0; acc < 2; acc++) {
            for (i = 0; i < M * (int)ds; i++)
                d1[i] = d2[i] = rndf();
            tg_matmul_f32(d1, ds, st, ss, mv, ms, K, M, N, acc);
            ref_matmul(d2, ds, st, ss, mv, ms, K, M, N, acc);
            assert_memory_equal(d1, d2, sizeof(float) * (size_t)(M * ds));
            tg_matmul_f32_ref(d1, ds, st, ss, mv, ms, K, M, N, acc);
            if (!acc)
                assert_memory_equal(d1, d2, sizeof(float) * (size_t)(M * ds));
        }
    }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* x with its mantissa cut to its first `bits` significant bits (truncated) */
static float cut_bits(float x, int bits)
{
    uint32_t u = tg_f32_bits(x);
    u &= ~((1u << (24 - bits)) - 1u);
    float r;
    memcpy(&r, &u, 4);
    return r;
}

/* Operands whose products are all exact (tg_mm_impl.h tg__mm_fusable) take
 * the packed kernels' fused multiply-add where the body has one; the bits
 * must be the reference's multiply, then add, everywhere. Cases, at every
 * SIMD level, with and without accumulate: values of 8 significant bits on
 * both sides (bf16's; fused), 12 and 12 (fused, 24 bits a product), 12 and 13
 * (not: products round), each with -0 and +0 operands and, accumulating,
 * onto -0 and +0 (a broadcast that made -0 +0 gave the wrong zero), 8 and 8
 * with one product below 2^-126 where
 * rounding it first changes a sum (not), and with one product past FLT_MAX
 * that a fused sum would bring back (not). */
static void test_matmul_fused(void **state)
{
    static float st[256 * 136], mv[256 * 520], d1[136 * 520], d2[136 * 520];
    /* the packed path, then K = 1 on it and on the unpacked ones (N <= 4, M <= 4), where a
     * zero operand's sign decides a sum of zeros */
    static const int shapes[][3] = {{128, 128, 512}, {256, 64, 64}, {130, 37, 100}, {2, 24, 48}, {64, 16, 40},
                                    {1, 64, 64}, {1, 70, 3}, {1, 3, 100}};
    static const int bits[][2] = {{8, 8}, {12, 12}, {12, 13}, {8, 8}, {8, 8}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
            for (size_t c = 0; c < sizeof bits / sizeof bits[0]; c++) {
                const int K = shapes[t][0], M = shapes[t][1], N = shapes[t][2];
                const ptrdiff_t ss = M + 1, ms = N, ds = N + 2;
                const int edge = K >= 2 && M > 7 && N > 9; /* room for the two cases below */
                for (int i = 0; i < K * (int)ss; i++) /* -0 and +0 among them */
                    st[i] = i % 7 == 1 ? -0.0f : i % 11 == 4 ? 0.0f : cut_bits(rndf_wide(), bits[c][0]);
                for (int i = 0; i < K * (int)ms; i++)
                    mv[i] = i % 5 == 2 ? -0.0f : cut_bits(rndf_wide(), bits[c][1]);
                if (c == 3 && edge) { /* dst (3, 5): 2^-124 + 2^-148 (1 + 2^-7): the second
                               * product rounds to 2^-148, half the sum's ulp (a tie,
                               * to 2^-124); exact, it moves the sum up an ulp */
                    for (int k = 0; k < K; k++)
                        st[k * ss + 3] = 0.0f;
                    st[0 * ss + 3] = 0x1p-62f;
                    mv[0 * ms + 5] = 0x1p-62f;
                    st[(K - 1) * ss + 3] = 0x1p-74f;
                    mv[(K - 1) * ms + 5] = 0x1.02p-74f;
                }
                if (c == 4 && edge) { /* dst (7, 9): -2^127, then 1.0078125 · 2^128, which
                               * overflows alone but not in a fused sum */
                    for (int k = 0; k < K; k++)
                        st[k * ss + 7] = 0.0f;
                    st[0 * ss + 7] = 0x1p127f;
                    mv[0 * ms + 9] = -1.0f;
                    st[(K - 1) * ss + 7] = 0x1.02p64f;
                    mv[(K - 1) * ms + 9] = 0x1p64f;
                }
                for (int acc = 0; acc < 2; acc++) {
                    for (int i = 0; i < M * (int)ds; i++)
                        d1[i] = d2[i] = !acc ? 0.0f : i % 3 == 0 ? -0.0f : i % 3 == 1 ? 0.0f : cut_bits(rndf(), 8);
                    if (c == 3 && edge && acc)
                        d1[3 * ds + 5] = d2[3 * ds + 5] = 0.0f;
                    tg_matmul_f32(d1, ds, st, ss, mv, ms, K, M, N, acc);
                    ref_matmul(d2, ds, st, ss, mv, ms, K, M, N, acc);
                    assert_memory_equal(d1, d2, sizeof(float) * (size_t)(M * ds));
                }
                if (c == 3 && edge)
                    assert_true(same_bits(d2[3 * ds + 5], 0x1p-124f));
                if (c == 4 && edge)
                    assert_true(isinf(d2[7 * ds + 9]));
            }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* PSUM accumulation over a K loop of PE-sized tiles gives the same bits as
 * one contraction over all of K (the order is increasing k either way). */
static void test_matmul_k_tiles(void **state)
{
    enum { K = 512, M = 128, N = 512 };
    static float st[K * M], mv[K * N], d1[M * N], d2[M * N];
    int i, k0;
    (void)state;
    for (i = 0; i < K * M; i++)
        st[i] = rndf_wide();
    for (i = 0; i < K * N; i++)
        mv[i] = rndf_wide();
    tg_matmul_f32(d1, N, st, M, mv, N, K, M, N, 0);
    for (k0 = 0; k0 < K; k0 += 128)
        tg_matmul_f32(d2, N, st + k0 * M, M, mv + k0 * N, N, 128, M, N, k0 > 0);
    assert_memory_equal(d1, d2, sizeof d1);
    for (k0 = 0; k0 < K; k0 += 96) /* ragged tiles too */
        tg_matmul_f32(d2, N, st + k0 * M, M, mv + k0 * N, N, K - k0 < 96 ? K - k0 : 96, M, N, k0 > 0);
    assert_memory_equal(d1, d2, sizeof d1);
}

/* Random raw bits of a dtype of 1, 2 or 4 bytes, specials included (bf16,
 * fp16, fp8 NaN payloads and infinities come up by chance; fp32 gets some). */
static void rnd_bits(uint8_t *p, size_t n, tg_dtype dt)
{
    size_t es = tg_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        if (dt == TG_FLOAT32) {
            float v = rnd32() % 97 == 0 ? tg_bits_f32(rnd32()) : rndf_wide();
            memcpy(p + i * 4, &v, 4);
        } else {
            uint32_t u = rnd32();
            memcpy(p + i * es, &u, es);
        }
    }
}

/* tg_matmul on operands in place — every float dtype, free strides 1..3,
 * partition strides wider than the rows, offsets at the block edges, with and
 * without scratch (M in blocks: the moving operand widened per block) —
 * bit-exact against ref_matmul on the tg_load_f32-widened panels (a NaN's
 * payload aside: matmul keeps the host's NaN, and which operand's survives
 * depends on the compiler's operand order), and the destination rows' gaps
 * untouched; with every SIMD body. */
static void test_matmul_direct(void **state)
{
    static uint8_t sa[130 * 3 * 150 * 4 + 64], sb[130 * 3 * 520 * 4 + 64];
    static float wa[130 * 150], wb[130 * 520], d1[150 * 530], d2[150 * 530], scratch[TG_MATMUL_SCRATCH_FLOATS(128, 150, 520)];
    static const tg_dtype dts[] = {TG_FLOAT32, TG_TFLOAT32, TG_BFLOAT16, TG_FLOAT16, TG_FLOAT8_E4M3, TG_FLOAT8_E5M2};
    /* with scratch of exactly TG_MATMUL_SCRATCH_FLOATS: flat stationary packs (N up to 4 micro-kernel
     * widths) at M = 9 and 17 (M + 15 just covers their rows and pad) and 128 */
    static const int shapes[][3] = {{128, 128, 512}, {1, 1, 1}, {7, 13, 17}, {128, 150, 33}, {64, 6, 16}, {3, 97, 200},
                                    {128, 150, 1}, {37, 100, 4}, {5, 3, 2}, {128, 9, 40}, {70, 17, 100},
                                    {128, 128, 48},
                                    /* M <= 4, N > 4 (unpacked; fp32 and bf16 rows of stride 1 widened in
                                     * registers, the rest staged as fp32 rows, N = 512 in two passes) */
                                    {128, 1, 512}, {37, 2, 100}, {5, 4, 17}, {1, 3, 40}, {127, 1, 7}, {66, 4, 33},
                                    /* N = 1, whole chunks of dst rows (bf16 rows of stride 1 at the last,
                                     * t = 19: loaded where the sums use them) */
                                    {129, 64, 1}, {130, 128, 1},
                                    /* whole chunks read in place with N = 2..4: tf32 rows of stride 1 at
                                     * t = 20, fp32 at t = 21 */
                                    {70, 128, 3}, {129, 64, 2}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
            for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
                int K = shapes[t][0], M = shapes[t][1], N = shapes[t][2];
                tg_dtype da = dts[di], db = dts[(di + t) % (sizeof dts / sizeof dts[0])];
                if ((da == TG_FLOAT32 || da == TG_TFLOAT32) != (db == TG_FLOAT32 || db == TG_TFLOAT32))
                    db = da; /* sema pairs fp32 only with fp32 */
                ptrdiff_t fa = 1 + (ptrdiff_t)((t + di) % 3), fb = 1 + (ptrdiff_t)(t % 2);
                size_t ea = tg_dtype_size(da), eb = tg_dtype_size(db);
                ptrdiff_t pa = (ptrdiff_t)((size_t)(M * fa + 5) * ea), pb = (ptrdiff_t)((size_t)(N * fb + 3) * eb);
                ptrdiff_t ds = N + 7;
                rnd_bits(sa, (size_t)(K * pa) / ea, da);
                rnd_bits(sb, (size_t)(K * pb) / eb, db);
                for (int k = 0; k < K; k++) {
                    for (int m = 0; m < M; m++)
                        wa[k * M + m] = tg_load_f32(sa + k * pa + m * fa * (ptrdiff_t)ea, da, 0);
                    for (int n = 0; n < N; n++)
                        wb[k * N + n] = tg_load_f32(sb + k * pb + n * fb * (ptrdiff_t)eb, db, 0);
                }
                tg_pe_src a = {sa, pa, fa, da}, b = {sb, pb, fb, db};
                for (int acc = 0; acc < 2; acc++)
                    for (int scr = 0; scr < 2; scr++) {
                        for (int i = 0; i < M * (int)ds; i++)
                            d1[i] = d2[i] = rndf();
                        tg_matmul(d1, ds, a, b, K, M, N, acc, scr ? scratch : NULL,
                                  scr ? TG_MATMUL_SCRATCH_FLOATS(K, M, N) : 0);
                        ref_matmul(d2, ds, wa, M, wb, N, K, M, N, acc);
                        for (int i = 0; i < M * (int)ds; i++) /* which NaN: the host's operand order */
                            if (!same_bits(d1[i], d2[i]))
                                assert_true(isnan(d1[i]) && isnan(d2[i]));
                    }
            }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* A short matmul's moving rows of fp16, e4m3 and e5m2 are widened by the
 * runtime's vector codec (tg_mm_impl.h tg__mm_widen_row): every encoding of
 * each as a moving element (rows of 512, K = 3 for a group and a rest, M =
 * 1..4), against tg_load_f32's values in the reference, at every SIMD level;
 * and with accumulate, from dst values that keep a product's sign of zero. */
static void test_matmul_widen_all(void **state)
{
    static uint8_t sb[3 * 512 * 2];
    static float wb[3 * 512], d1[4 * 512], d2[4 * 512];
    static const tg_dtype dts[] = {TG_FLOAT16, TG_FLOAT8_E4M3, TG_FLOAT8_E5M2};
    const float sa[3 * 4] = {1.0f, -3.0f, 0x1p-20f, 5.5f, 0.75f, 1.0f, -0x1p30f, 2.0f, -1.0f, 0.5f, 3.0f, -2.5f};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
            const tg_dtype db = dts[di];
            const size_t eb = tg_dtype_size(db);
            const uint32_t codes = eb == 1 ? 256u : 65536u;
            for (uint32_t c0 = 0; c0 < codes; c0 += 3 * 512) {
                for (int i = 0; i < 3 * 512; i++) {
                    const uint32_t c = (c0 + (uint32_t)i) % codes;
                    if (eb == 1)
                        sb[i] = (uint8_t)c;
                    else
                        memcpy(sb + 2 * i, &(uint16_t){(uint16_t)c}, 2);
                    wb[i] = tg_load_f32(sb + (size_t)i * eb, db, 0);
                }
                for (int M = 1; M <= 4; M++)
                    for (int acc = 0; acc < 2; acc++) {
                        tg_pe_src a = {(const uint8_t *)sa, 4 * 4, 1, TG_FLOAT32};
                        tg_pe_src b = {sb, (ptrdiff_t)(512 * eb), 1, db};
                        for (int i = 0; i < M * 512; i++)
                            d1[i] = d2[i] = (i & 1) ? -0.0f : 1.0f;
                        tg_matmul(d1, 512, a, b, 3, M, 512, acc, NULL, 0);
                        ref_matmul(d2, 512, sa, 4, wb, 512, 3, M, 512, acc);
                        for (int i = 0; i < M * 512; i++)
                            if (!same_bits(d1[i], d2[i]))
                                assert_true(isnan(d1[i]) && isnan(d2[i]));
                    }
            }
        }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* A stationary whose rows each hold one value along M (ones, a broadcast
 * scale; NaN and -0 rows among them) takes the runtime's one-row product and
 * copies (tg__matmul_uniform): the reference's bits at every m, with and
 * without accumulate (which takes the full product), fp32, bf16 and fp8,
 * tg_matmul and tg_matmul_blocks (two blocks of K rows side by side), every
 * SIMD body; and one element off (the last row's last, row 0's first, a
 * middle row's middle: the check goes by blocks of 16), the full product. */
static void test_matmul_uniform(void **state)
{
    enum { K = 96, M = 130, N = 70 };
    static uint8_t sa[2 * K * M * 4], sb[2 * K * N * 4];
    static float wa[2 * K * M], wb[2 * K * N], d1[M * (N + 3)], d2[M * (N + 3)];
    static float scratch[TG_MATMUL_SCRATCH_FLOATS(2 * K, M, N)];
    static const tg_dtype dts[] = {TG_FLOAT32, TG_BFLOAT16, TG_FLOAT8_E4M3};
    const ptrdiff_t ds = N + 3;
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t di = 0; di < 3; di++)
            for (int odd = 0; odd < 4; odd++) /* 0 uniform; 1-3 one element off */
                for (int nblk = 1; nblk <= 2; nblk++)
                    for (int acc = 0; acc < 2; acc++) {
                        const tg_dtype dt = dts[di];
                        const size_t es = tg_dtype_size(dt);
                        const ptrdiff_t pa = (ptrdiff_t)(M * es), pb = (ptrdiff_t)(N * es);
                        rnd_bits(sb, (size_t)(nblk * K * N), dt);
                        for (int k = 0; k < nblk * K; k++) {
                            uint8_t v[4];
                            rnd_bits(v, 1, dt);
                            if (k % 7 == 0) /* ones, as a column sum's */
                                tg_store_f32(v, dt, 0, 1.0f);
                            for (int m = 0; m < M; m++)
                                memcpy(sa + k * pa + m * (ptrdiff_t)es, v, es);
                        }
                        if (odd) { /* the last row's last element, row 0's first, a middle one */
                            const ptrdiff_t at = odd == 1   ? (nblk * K - 1) * pa + (M - 1) * (ptrdiff_t)es
                                                 : odd == 2 ? 0
                                                            : (nblk * K / 2) * pa + (M / 2) * (ptrdiff_t)es;
                            tg_store_f32(sa + at, dt, 0, 0.5f);
                        }
                        for (int k = 0; k < nblk * K; k++) {
                            for (int m = 0; m < M; m++)
                                wa[k * M + m] = tg_load_f32(sa + k * pa + m * (ptrdiff_t)es, dt, 0);
                            for (int n = 0; n < N; n++)
                                wb[k * N + n] = tg_load_f32(sb + k * pb + n * (ptrdiff_t)es, dt, 0);
                        }
                        for (int i = 0; i < M * (int)ds; i++)
                            d1[i] = d2[i] = rndf();
                        tg_pe_src a = {sa, pa, 1, dt}, b = {sb, pb, 1, dt};
                        if (nblk == 1)
                            tg_matmul(d1, ds, a, b, K, M, N, acc, scratch, TG_MATMUL_SCRATCH_FLOATS(K, M, N));
                        else
                            tg_matmul_blocks(d1, ds, a, b, K, M, N, 2, K * pa, K * pb, acc, scratch,
                                             TG_MATMUL_SCRATCH_FLOATS(2 * K, M, N));
                        ref_matmul(d2, ds, wa, M, wb, N, nblk * K, M, N, acc);
                        for (int i = 0; i < M * (int)ds; i++) /* which NaN: the host's operand order */
                            if (!same_bits(d1[i], d2[i]))
                                assert_true(isnan(d1[i]) && isnan(d2[i]));
                    }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* tg_matmul_blocks gives the bits of its loop of tg_matmul calls: blocks of
 * K rows lying side by side along the free dim of one buffer (the SBUF tile
 * of a carried K loop, `a[:, k, :]`), or a partition block apart, or in
 * reverse (a negative block stride); K rows not a multiple of the packing's
 * 128, and K·blocks past the packing's longest k block (512 rows); every
 * float dtype pair, with and without scratch and accumulate, with every SIMD
 * body. */
/* tg_matmul_keep: with a kept operand the runtime reuses its packed panels
 * where the layout keeps them (one K block, scratch for all of N): the same
 * bits as tg_matmul on the same operands, and, to show the pack really was
 * skipped, the old operand's product after its elements changed; where the
 * layout does not keep them (no scratch, too little) it packs again: the new
 * operand's product. Every SIMD body. */
static void test_matmul_keep(void **state)
{
    enum { KM = 128, MM = 130, NM = 520 };
    static float sa[KM * MM], sb[KM * NM], sa2[KM * MM], sb2[KM * NM];
    static float d1[MM * NM], d2[MM * NM], scratch[TG_MATMUL_SCRATCH_FLOATS(KM, MM, NM)];
    /* K, M, N */
    static const int cases[][3] = {{128, 128, 512}, {37, 13, 40}, {1, 6, 16}, {100, 130, 520}, {64, 7, 17},
                                   {128, 130, 1}, {50, 20, 3}, {128, 1, 512}, {37, 4, 40}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
            const int K = cases[t][0], M = cases[t][1], N = cases[t][2];
            const size_t full = TG_MATMUL_SCRATCH_FLOATS(K, M, N);
            for (int i = 0; i < K * M; i++)
                sa[i] = rndf(), sa2[i] = rndf();
            for (int i = 0; i < K * N; i++)
                sb[i] = rndf(), sb2[i] = rndf();
            tg_pe_src a = {sa, M * 4, 1, TG_FLOAT32}, b = {sb, N * 4, 1, TG_FLOAT32};
            for (int keep = 1; keep <= 3; keep++)
                for (int room = 0; room < 3; room++) { /* 0 none, 1 too little for any pack, 2 enough */
                    float *scr = room ? scratch : NULL;
                    const size_t n = room == 2 ? full : room ? 16u : 0;
                    /* the first call packs; the second keeps */
                    tg_matmul_keep(d1, N, a, b, K, M, N, 0, scr, n, 0);
                    tg_matmul_keep(d1, N, a, b, K, M, N, 1, scr, n, keep);
                    tg_matmul(d2, N, a, b, K, M, N, 0, NULL, 0);
                    tg_matmul(d2, N, a, b, K, M, N, 1, NULL, 0);
                    /* the kept operand's elements change: kept panels give the old product */
                    tg_pe_src a2 = {sa2, M * 4, 1, TG_FLOAT32}, b2 = {sb2, N * 4, 1, TG_FLOAT32};
                    tg_pe_src an = keep & TG_MATMUL_KEEP_STAT ? a2 : a, bn = keep & TG_MATMUL_KEEP_MOV ? b2 : b;
                    tg_matmul_keep(d1, N, an, bn, K, M, N, 0, scr, n, keep);
                    /* TG_MATMUL_SCRATCH_FLOATS keeps every panel; nothing is packed for narrow N or M */
                    const int kept = room == 2 && N > TG_MATMUL_NARROW && M > TG_MATMUL_NARROW;
                    tg_matmul(d2, N, kept ? a : an, kept ? b : bn, K, M, N, 0, NULL, 0);
                    assert_memory_equal(d1, d2, sizeof(float) * (size_t)(M * N));
                }
        }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

static void test_matmul_blocks(void **state)
{
    static uint8_t sa[64 * 6 * 150 * 4 + 64], sb[64 * 6 * 520 * 4 + 64];
    static float d1[150 * 530], d2[150 * 530], scratch[TG_MATMUL_SCRATCH_FLOATS(128, 150, 520)];
    static const tg_dtype dts[] = {TG_FLOAT32, TG_BFLOAT16, TG_FLOAT16, TG_FLOAT8_E4M3, TG_FLOAT8_E5M2};
    /* K, blocks, M, N, layout (0 side by side, 1 a partition block apart, 2 reversed) */
    static const int cases[][5] = {{64, 4, 128, 512}, {37, 5, 13, 40, 1}, {1, 7, 6, 16, 2}, {50, 3, 150, 33},
                                   {64, 6, 20, 64, 1}, {3, 2, 97, 200, 2}, {128, 5, 30, 48, 1}, {100, 7, 7, 17},
                                   {64, 3, 150, 1, 1}, {37, 5, 40, 4, 2}, {20, 2, 130, 2}, {100, 6, 30, 3},
                                   {90, 4, 20, 1, 2}, /* the last two: narrow, K·blocks past 256 */
                                   /* M <= 4, N > 4 (unpacked), K not a multiple of its groups of 4 */
                                   {64, 3, 1, 512}, {37, 5, 2, 40, 2}, {19, 4, 4, 64, 1}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++)
            for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
                int K = cases[t][0], nb = cases[t][1], M = cases[t][2], N = cases[t][3], lay = cases[t][4];
                tg_dtype da = dts[di], db = dts[(di + t) % (sizeof dts / sizeof dts[0])];
                if ((da == TG_FLOAT32) != (db == TG_FLOAT32))
                    db = da;
                ptrdiff_t ea = (ptrdiff_t)tg_dtype_size(da), eb = (ptrdiff_t)tg_dtype_size(db);
                ptrdiff_t fa = 1 + (ptrdiff_t)(t % 2), fb = 1;
                /* a partition row holds all blocks side by side (plus a gap) */
                ptrdiff_t pa = (nb * M * fa + 3) * ea, pb = (nb * N * fb + 5) * eb, ba, bb;
                const uint8_t *a0 = sa, *b0 = sb;
                if (lay == 0) {
                    ba = M * fa * ea;
                    bb = N * fb * eb;
                } else if (lay == 1) { /* blocks one after another down the partitions */
                    pa = (M * fa + 3) * ea;
                    pb = (N * fb + 5) * eb;
                    ba = K * pa;
                    bb = K * pb;
                } else { /* side by side, the loop walking them from the last */
                    ba = -M * fa * ea;
                    bb = -N * fb * eb;
                    a0 = sa + (nb - 1) * M * fa * ea;
                    b0 = sb + (nb - 1) * N * fb * eb;
                }
                int rows = lay == 1 ? nb * K : K; /* partition rows the operands span */
                assert_true((size_t)(rows * pa) <= sizeof sa && (size_t)(rows * pb) <= sizeof sb);
                rnd_bits(sa, (size_t)(rows * pa / ea), da);
                rnd_bits(sb, (size_t)(rows * pb / eb), db);
                tg_pe_src a = {a0, pa, fa, da}, b = {b0, pb, fb, db};
                ptrdiff_t ds = N + 7;
                for (int acc = 0; acc < 2; acc++)
                    for (int scr = 0; scr < 2; scr++) {
                        for (int i = 0; i < M * (int)ds; i++)
                            d1[i] = d2[i] = rndf();
                        tg_matmul_blocks(d1, ds, a, b, K, M, N, nb, ba, bb, acc, scr ? scratch : NULL,
                                         scr ? TG_MATMUL_SCRATCH_FLOATS(K, M, N) : 0);
                        for (int j = 0; j < nb; j++) {
                            tg_pe_src aj = {a0 + j * ba, pa, fa, da}, bj = {b0 + j * bb, pb, fb, db};
                            tg_matmul(d2, ds, aj, bj, K, M, N, acc || j > 0, scr ? scratch : NULL,
                                      scr ? TG_MATMUL_SCRATCH_FLOATS(K, M, N) : 0);
                        }
                        assert_memory_equal(d1, d2, sizeof(float) * (size_t)(M * ds));
                    }
            }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* v stored as dtype dt (tg_store_f32's rounding). */
static void put_narrow(uint8_t *p, tg_dtype dt, float v)
{
    tg_store_f32(p, dt, 0, v);
}

/* Narrow operands at fp32's range edges: every product near fp32's underflow
 * (bf16 subnormals too) or overflow, onto accumulators of the products' size,
 * where a product rounded once and then added differs from a fused
 * multiply-add; and an operand of zeros of both signs. Each case runs with
 * every SIMD body against ref_matmul on the widened values, with and without
 * scratch and accumulate. (A fused kernel for exact products was measured
 * and dropped: see tg_ops.h; these are the cases that would catch one used
 * where a product is not exact.) */
static void test_matmul_range_edges(void **state)
{
    enum { K = 130, M = 40, N = 70, DS = N + 3 };
    static uint8_t sa[K * M * 2], sb[K * N * 2];
    static float wa[K * M], wb[K * N], d1[M * DS], d2[M * DS];
    static float scratch[TG_MATMUL_SCRATCH_FLOATS(K, M, N)];
    static const tg_dtype pairs[][2] = {{TG_BFLOAT16, TG_BFLOAT16}, {TG_FLOAT16, TG_FLOAT16},
                                        {TG_FLOAT16, TG_BFLOAT16},  {TG_FLOAT8_E4M3, TG_BFLOAT16},
                                        {TG_FLOAT8_E5M2, TG_FLOAT8_E4M3}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (int c = 0; c < 6; c++)
            for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
                tg_dtype da = pairs[pi][0], db = pairs[pi][1];
                /* bf16 × bf16 only at fp32's range edges (the others cannot reach them) */
                if (c >= 2 && c <= 4 && !(da == TG_BFLOAT16 && db == TG_BFLOAT16))
                    continue;
                size_t ea = tg_dtype_size(da), eb = tg_dtype_size(db);
                for (int i = 0; i < K * M; i++) {
                    float v = rndf();
                    if (c == 2) /* products 2^-131 .. 2^-121: underflow for some */
                        v = ldexpf(v < 0 ? -1.0f - v : 1.0f - v, -60 - (int)(rnd32() % 6));
                    if (c == 3) /* products near 2^128: overflow for some */
                        v = ldexpf(1.0f + fabsf(v), 62 + (int)(rnd32() % 2)) * (v < 0 ? -1 : 1);
                    if (c == 4) /* subnormals: products 2^-145 .. 2^-137, rounded by a multiply */
                        v = ldexpf(v, -127);
                    put_narrow(sa + (size_t)i * ea, da, v);
                    wa[i] = tg_load_f32(sa + (size_t)i * ea, da, 0);
                }
                for (int i = 0; i < K * N; i++) {
                    float v = rndf();
                    if (c == 2)
                        v = ldexpf(v < 0 ? -1.0f - v : 1.0f - v, -66 - (int)(rnd32() % 6));
                    if (c == 3)
                        v = ldexpf(1.0f + fabsf(v), 62 + (int)(rnd32() % 2)) * (v < 0 ? -1 : 1);
                    if (c == 4)
                        v = ldexpf(v < 0 ? -1.0f - v : 1.0f - v, -11);
                    if (c == 5) /* all zeros, both signs: every product ±0 */
                        v = rnd32() & 1 ? -0.0f : 0.0f;
                    put_narrow(sb + (size_t)i * eb, db, v);
                    wb[i] = tg_load_f32(sb + (size_t)i * eb, db, 0);
                }
                tg_pe_src a = {sa, (ptrdiff_t)(M * ea), 1, da}, b = {sb, (ptrdiff_t)(N * eb), 1, db};
                for (int acc = 0; acc < 2; acc++)
                    for (int scr = 0; scr < 2; scr++) {
                        for (int i = 0; i < M * DS; i++) {
                            float v = rndf();
                            if (c == 2 || c == 4) /* accumulators of the products' size */
                                v = ldexpf(v, c == 2 ? -124 : -138);
                            if (c == 3) /* -FLT_MAX..FLT_MAX: an overflowed product's sum stays inf */
                                v = v * 3.4e38f;
                            if (c == 5 && i % 3 == 0)
                                v = -0.0f;
                            d1[i] = d2[i] = v;
                        }
                        tg_matmul(d1, DS, a, b, K, M, N, acc, scr ? scratch : NULL, scr ? sizeof scratch / 4 : 0);
                        ref_matmul(d2, DS, wa, M, wb, N, K, M, N, acc);
                        for (int i = 0; i < M * DS; i++)
                            if (!same_bits(d1[i], d2[i]))
                                assert_true(isnan(d1[i]) && isnan(d2[i]));
                    }
            }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* A narrow float format for the lanes staging tests: its element size,
 * exponent and mantissa bits, its staging pair and its element codec (as
 * uint32_t bits, whatever the element's size). */
typedef struct lanes_fmt {
    int es, eb, mb;
    void (*stage)(float *, const uint8_t *const[TG_LANES], int64_t, int64_t);
    void (*unstage)(uint8_t *const[TG_LANES], int64_t, const float *, int64_t, int64_t);
    float (*dec)(uint32_t);
    uint32_t (*enc)(float);
} lanes_fmt;
static float dec_bf16(uint32_t h) { return tg_bf16_to_f32((uint16_t)h); }
static float dec_f16(uint32_t h) { return tg_f16_to_f32((uint16_t)h); }
static float dec_e4m3(uint32_t h) { return tg_e4m3_to_f32((uint8_t)h); }
static float dec_e5m2(uint32_t h) { return tg_e5m2_to_f32((uint8_t)h); }
static uint32_t enc_bf16(float f) { return tg_f32_to_bf16(f); }
static uint32_t enc_f16(float f) { return tg_f32_to_f16(f); }
static uint32_t enc_e4m3(float f) { return tg_f32_to_e4m3(f); }
static uint32_t enc_e5m2(float f) { return tg_f32_to_e5m2(f); }
static const lanes_fmt lanes_fmts[] = {
    {2, 8, 7, tg_lanes_stage_bf16, tg_lanes_unstage_bf16, dec_bf16, enc_bf16},
    {2, 5, 10, tg_lanes_stage_f16, tg_lanes_unstage_f16, dec_f16, enc_f16},
    {1, 4, 3, tg_lanes_stage_e4m3, tg_lanes_unstage_e4m3, dec_e4m3, enc_e4m3},
    {1, 5, 2, tg_lanes_stage_e5m2, tg_lanes_unstage_e5m2, dec_e5m2, enc_e5m2},
};

/* The lanes staging of a narrow float format against its element-by-element
 * codec, every block length and lane count, in mem (random bits from
 * lanes_stage_at):
 *  - stage: one element in 8 with the exponent all ones (infinities, NaNs of
 *    either sign, signalling ones quieted), one in 8 subnormal; then every
 *    one of the format's encodings, a lane block at a time;
 *  - unstage: random bits (NaN payloads, signalling ones), halfway cases
 *    (the dropped bits 100..0), values around the largest finite one and
 *    the overflow to inf, and below bf16 the format's subnormal range (below
 *    its least normal, odd multiples of half its quantum among them: the ties
 *    of the fp32 add). */
static void lanes_stage_fmt_at(uint8_t mem[TG_LANES * 200 * 4], const lanes_fmt *f)
{
    const int es = f->es, sh = 23 - f->mb, bias = (1 << (f->eb - 1)) - 1;
    const uint32_t sgn = 1u << (f->eb + f->mb), mant = (1u << f->mb) - 1u;
    const uint32_t hexp = ((1u << f->eb) - 1u) << f->mb; /* the exponent field all ones */
    /* the largest finite value and the least normal, as fp32 bits */
    const uint32_t maxf = ((uint32_t)((1 << f->eb) - 2 - bias + 127) << 23) | (mant << sh);
    const uint32_t tiny = bias >= 127 ? 0u : (uint32_t)(128 - bias) << 23;
    float t[TG_LANE_BLOCK * TG_LANES];
    for (size_t i = 0; i + (size_t)es <= TG_LANES * 200 * 4; i += (size_t)es) {
        uint32_t k = rnd32() % 8, h = k == 0 ? hexp | (rnd32() & (sgn | mant)) : rnd32() & (sgn | mant);
        if (k < 2)
            memcpy(mem + i, &h, (size_t)es); /* little-endian: the low bytes */
    }
    for (int64_t n = 0; n <= TG_LANE_BLOCK; n++) {
        const uint8_t *rows[TG_LANES];
        int64_t off = n % 7;
        for (int l = 0; l < TG_LANES; l++)
            rows[l] = mem + (size_t)((l * 5 + n) % TG_LANES) * 200 * 4 + (size_t)(l % 3) * (size_t)es;
        f->stage(t, rows, off, n);
        for (int64_t j = 0; j < n; j++)
            for (int l = 0; l < TG_LANES; l++) {
                uint32_t h = 0;
                memcpy(&h, rows[l] + (off + j) * es, (size_t)es);
                float want = f->dec(h);
                assert_memory_equal(t + j * TG_LANES + l, &want, 4);
            }
    }
    for (uint32_t b0 = 0; b0 < (1u << (8 * es)); b0 += TG_LANES * TG_LANE_BLOCK) {
        static uint8_t all[TG_LANES * TG_LANE_BLOCK * 2];
        const uint8_t *rows[TG_LANES];
        for (uint32_t i = 0; i < TG_LANES * TG_LANE_BLOCK; i++) {
            uint32_t h = (b0 + i) & ((1u << (8 * es)) - 1u); /* fp8: every encoding four times */
            memcpy(all + i * (uint32_t)es, &h, (size_t)es);
        }
        for (int l = 0; l < TG_LANES; l++)
            rows[l] = all + (size_t)l * TG_LANE_BLOCK * (size_t)es;
        f->stage(t, rows, 0, TG_LANE_BLOCK);
        for (int64_t j = 0; j < TG_LANE_BLOCK; j++)
            for (int l = 0; l < TG_LANES; l++) {
                uint32_t h = 0;
                memcpy(&h, rows[l] + j * es, (size_t)es);
                float want = f->dec(h);
                assert_memory_equal(t + j * TG_LANES + l, &want, 4);
            }
    }
    for (int64_t n = 0; n <= TG_LANE_BLOCK; n++)
        for (int64_t lanes = 1; lanes <= TG_LANES; lanes++) {
            static uint8_t out1[TG_LANES * 200 * 2], out2[TG_LANES * 200 * 2];
            uint8_t *wrows[TG_LANES];
            int64_t off = (n * 3 + lanes) % 7;
            const uint32_t low = (1u << sh) - 1u;
            for (size_t i = 0; i < sizeof out1; i++)
                out1[i] = out2[i] = (uint8_t)rnd32();
            for (int64_t i = 0; i < n * TG_LANES; i++) {
                uint32_t u = rnd32(), k = rnd32() % 6, sg = u & 0x80000000u;
                float half = tg_bits_f32((uint32_t)(127 - bias - f->mb) << 23); /* half the subnormal quantum */
                t[i] = k == 0   ? tg_bits_f32(u)
                       : k == 1 ? tg_bits_f32((u & ~low) | (1u << (sh - 1)))
                       : k == 2 ? tg_bits_f32(sg | ((maxf + (u % (4u << sh))) & 0x7fffffffu))
                       : k == 3 && tiny ? tg_bits_f32(sg | (u % tiny))
                       : k == 4 && tiny ? (float)(2 * (u % (mant + 1u)) + 1) * half * (sg ? -1.0f : 1.0f)
                                        : rndf_wide();
            }
            for (int l = 0; l < TG_LANES; l++)
                wrows[l] = out1 + (size_t)((l * 5 + n) % TG_LANES) * 200 * 2 + (size_t)(l % 3) * (size_t)es;
            f->unstage(wrows, off, t, n, lanes);
            for (int64_t l = 0; l < lanes; l++)
                for (int64_t j = 0; j < n; j++) {
                    uint32_t h = f->enc(t[j * TG_LANES + l]);
                    memcpy(out2 + (wrows[l] - out1) + (off + j) * es, &h, (size_t)es);
                }
            assert_memory_equal(out1, out2, sizeof out1);
        }
}

/* tg_lanes_stage_f32 / tg_lanes_unstage_f32 at one SIMD level: every block
 * length 0..16 at odd offsets, rows anywhere (and one row repeated, as lanes
 * past the partition count read row tg_pb), every lane count, bits moved as
 * they are (NaN payloads, -0); unstage writes only the first `lanes` rows'
 * block. */
static void lanes_stage_at(void)
{
    static uint8_t mem[TG_LANES * 200 * 4];
    float t[TG_LANE_BLOCK * TG_LANES];
    for (size_t i = 0; i < sizeof mem; i++)
        mem[i] = (uint8_t)rnd32();
    for (int64_t n = 0; n <= TG_LANE_BLOCK; n++)
        for (int64_t lanes = 1; lanes <= TG_LANES; lanes++) {
            const uint8_t *rows[TG_LANES];
            uint8_t *wrows[TG_LANES];
            int64_t off = (n * 7 + lanes) % 5;
            for (int l = 0; l < TG_LANES; l++) {
                int r = l < lanes ? (int)((l * 5 + n) % TG_LANES) : (int)(n % TG_LANES); /* a permutation, then repeats */
                rows[l] = mem + (size_t)r * 200 * 4 + (size_t)(l % 3) * 4;
            }
            tg_lanes_stage_f32(t, rows, off, n);
            for (int64_t j = 0; j < n; j++)
                for (int l = 0; l < TG_LANES; l++)
                    assert_memory_equal(t + j * TG_LANES + l, rows[l] + (off + j) * 4, 4);
            /* back into distinct rows of a copy, against the same moves done one by one */
            static uint8_t out1[TG_LANES * 200 * 4], out2[TG_LANES * 200 * 4];
            for (size_t i = 0; i < sizeof out1; i++)
                out1[i] = out2[i] = (uint8_t)rnd32();
            for (int64_t j = 0; j < n; j++)
                for (int l = 0; l < TG_LANES; l++)
                    t[j * TG_LANES + l] = rndf_wide();
            for (int l = 0; l < TG_LANES; l++)
                wrows[l] = out1 + (size_t)((l * 5 + n) % TG_LANES) * 200 * 4 + 8;
            tg_lanes_unstage_f32(wrows, off, t, n, lanes);
            for (int64_t l = 0; l < lanes; l++)
                for (int64_t j = 0; j < n; j++)
                    memcpy(out2 + (wrows[l] - out1) + (off + j) * 4, t + j * TG_LANES + l, 4);
            assert_memory_equal(out1, out2, sizeof out1);
        }
    for (size_t k = 0; k < sizeof lanes_fmts / sizeof lanes_fmts[0]; k++)
        lanes_stage_fmt_at(mem, &lanes_fmts[k]);
}

/* fn at every SIMD level this CPU runs (tg_matmul_isa: on x86-64 the
 * baseline, AVX2 and AVX-512 bodies), then back at the widest. */
static void at_every_level(void (*fn)(void))
{
    int top = tg_matmul_isa(0);
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        fn();
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* ... in every body (the baseline's 4x4 blocks, AVX2's 8x8; bf16: the
 * baseline's vector or scalar body, AVX2's). */
static void test_lanes_stage(void **state)
{
    (void)state;
    at_every_level(lanes_stage_at);
}


/* tg_lanes_fold_f32 against the template's lane step (tg_alu_raw_<op> per
 * lane and element, in order): add, subtract and multiply over every block
 * length 0..TG_LANE_BLOCK from unaligned blocks, specials included. Every
 * bit matches, but a NaN's payload: C lets the compiler swap the operands of
 * + and *, and SSE's result is its first operand's NaN, so with two NaN
 * operands either build may keep either payload (an ASan -O1 build of this
 * test did). docs/numerics.md, "Lanes": the template makes a fold's NaN
 * canonical, so no payload reaches an output; a NaN must stay a NaN. */
static void test_lanes_fold(void **state)
{
    static const tg_alu_op ops[] = {TG_ALU_ADD, TG_ALU_SUBTRACT, TG_ALU_MULTIPLY};
    float buf[TG_LANE_BLOCK * TG_LANES + 1], r1[TG_LANES], r2[TG_LANES];
    (void)state;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int64_t n = 0; n <= TG_LANE_BLOCK; n++)
            for (int rep = 0; rep < 20; rep++) {
                float *t = buf + (rep & 1); /* 4-byte aligned only, at times */
                for (int64_t i = 0; i < n * TG_LANES; i++)
                    t[i] = rnd32() % 23 == 0 ? tg_bits_f32(rnd32()) : rep < 10 ? rndf() : rndf_wide();
                for (int l = 0; l < TG_LANES; l++)
                    r1[l] = r2[l] = rnd32() % 31 == 0 ? tg_bits_f32(rnd32()) : rndf_wide();
                tg_lanes_fold_f32(r1, t, n, ops[o]);
                for (int64_t j = 0; j < n; j++)
                    for (int l = 0; l < TG_LANES; l++) {
                        float x = t[j * TG_LANES + l];
                        r2[l] = ops[o] == TG_ALU_ADD        ? tg_alu_raw_add(r2[l], x)
                                : ops[o] == TG_ALU_SUBTRACT ? tg_alu_raw_subtract(r2[l], x)
                                                            : tg_alu_raw_multiply(r2[l], x);
                    }
                for (int l = 0; l < TG_LANES; l++)
                    if (!(isnan(r1[l]) && isnan(r2[l])))
                        assert_int_equal(tg_f32_bits(r1[l]), tg_f32_bits(r2[l]));
            }
    assert_false(tg_lanes_fold_legal(TG_ALU_MAXIMUM));
    assert_true(tg_lanes_fold_legal(TG_ALU_ADD) && tg_lanes_fold_legal(TG_ALU_MULTIPLY));
}

/* The template's lane step, r op y (tg_alu_raw_<op>), for add, subtract and
 * multiply. */
static float lane_step(tg_alu_op op, float r, float y)
{
    return op == TG_ALU_ADD ? tg_alu_raw_add(r, y) : op == TG_ALU_SUBTRACT ? tg_alu_raw_subtract(r, y) : tg_alu_raw_multiply(r, y);
}

/* r1 and r2 lane by lane: the same bits, or both NaN (payloads may differ,
 * as test_lanes_fold says). */
static void lanes_agree(const float *r1, const float *r2)
{
    for (int l = 0; l < TG_LANES; l++) {
        assert_int_equal(isnan(r1[l]), isnan(r2[l]));
        if (!isnan(r1[l]))
            assert_int_equal(tg_f32_bits(r1[l]), tg_f32_bits(r2[l]));
    }
}

/* r1 against the contract of a lanes activation fold that started from r2:
 * ref (n columns of TG_LANES lanes, the block's elements) through the row
 * tg_activation_f32_row (whose bits test_activation_rows checks against
 * tg_activation), then folded by the lane step element by element. */
static void lanes_act_fold_agree(const float *r1, float *r2, float *ref, int64_t n, tg_act_func f, float scale,
                                 float bias, tg_alu_op op)
{
    tg_activation_f32_row(f, ref, ref, (size_t)(n * TG_LANES), scale, bias);
    for (int64_t j = 0; j < n; j++)
        for (int l = 0; l < TG_LANES; l++)
            r2[l] = lane_step(op, r2[l], ref[j * TG_LANES + l]);
    lanes_agree(r1, r2);
}

/* tg_lanes_act_fold_f32 against its contract (lanes_act_fold_agree) at
 * every SIMD body. Every function (copy, square and abs fused, the others by
 * their row), add, subtract and multiply, block lengths 0..TG_LANE_BLOCK,
 * scales and biases that round, overflow and keep -0, specials in the
 * block. A NaN must stay a NaN (its payload may differ, as test_lanes_fold
 * says). The row, not the element form, is the reference: under valgrind
 * (suite ops-portable) the AVX2 sin row gives +0 for sin(-0), an artefact of
 * its FMA emulation. */
static void lanes_act_fold_at(void)
{
    static const tg_alu_op ops[] = {TG_ALU_ADD, TG_ALU_SUBTRACT, TG_ALU_MULTIPLY};
    static const float sb[][2] = {{1.0f, 0.0f},  {1.0f, -0.0f}, {1.0f, 0.5f},      {-0.5f, 3.0f},
                                  {0.088388346f, -1.5f}, {1e-3f, 1e30f}, {2.0f, -0.0f}};
    static const uint32_t special[] = {0x80000000u, 0, 0x7fc00000u, 0xffc12345u, 0x7f800000u, 0xff800000u, 1, 0x807fffffu};
    static float buf[TG_LANE_BLOCK * TG_LANES], x[TG_LANE_BLOCK * TG_LANES], ref[TG_LANE_BLOCK * TG_LANES];
    float r1[TG_LANES], r2[TG_LANES];
    for (int f = 0; f < TG_ACT_COUNT; f++)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (size_t k = 0; k < sizeof sb / sizeof sb[0]; k++)
                for (int64_t n = 0; n <= TG_LANE_BLOCK; n += n < 3 ? 1 : 7) {
                    for (int64_t i = 0; i < n * TG_LANES; i++)
                        x[i] = rnd32() % 7 == 0    ? tg_bits_f32(special[rnd32() % 8])
                               : rnd32() % 19 == 0 ? tg_bits_f32(rnd32())
                               : (rnd32() & 1)     ? rndf()
                                                   : rndf_wide();
                    for (int l = 0; l < TG_LANES; l++)
                        r1[l] = r2[l] = rnd32() % 31 == 0 ? tg_bits_f32(rnd32()) : rndf();
                    memcpy(buf, x, sizeof buf);
                    tg_lanes_act_fold_f32(r1, buf, n, (tg_act_func)f, sb[k][0], sb[k][1], ops[o]);
                    memcpy(ref, x, sizeof ref);
                    lanes_act_fold_agree(r1, r2, ref, n, (tg_act_func)f, sb[k][0], sb[k][1], ops[o]);
                }
}

static void test_lanes_act_fold(void **state)
{
    (void)state;
    at_every_level(lanes_act_fold_at);
}

/* tg_lanes_stage_act_fold_<sfx> against the row and the lane step (as
 * test_lanes_act_fold) on each staged format's elements (fp32, bf16, fp16,
 * e4m3, e5m2, widened by their codec), at every SIMD body: rows 512 and 2048
 * elements apart (fp32: 2 KiB, the fused form's registers for copy, square
 * and abs, and 8 KiB, one L1 set: the staged blocks; bf16 and fp16: 1 and
 * 4 KiB), 37 elements apart, repeated rows (a partial lane block), off 0..3,
 * n 0..150 (whole groups of 8 and the columns left), every function (the
 * narrow formats: copy, square, abs and exp), add, subtract and multiply,
 * scales and biases as test_lanes_act_fold's. */
typedef void (*lanes_saf_fn)(float *, const uint8_t *const[TG_LANES], int64_t, int64_t, tg_act_func, float, float,
                             tg_alu_op);
static float dec_f32(uint32_t u) { return tg_bits_f32(u); }
static void lanes_stage_act_fold_at(void)
{
    static const struct {
        int es;
        lanes_saf_fn saf;
        float (*dec)(uint32_t);
    } fmts[] = {{4, tg_lanes_stage_act_fold_f32, dec_f32},
                {2, tg_lanes_stage_act_fold_bf16, dec_bf16},
                {2, tg_lanes_stage_act_fold_f16, dec_f16},
                {1, tg_lanes_stage_act_fold_e4m3, dec_e4m3},
                {1, tg_lanes_stage_act_fold_e5m2, dec_e5m2}};
    static const tg_alu_op ops[] = {TG_ALU_ADD, TG_ALU_SUBTRACT, TG_ALU_MULTIPLY};
    static const float sb[][2] = {{1.0f, 0.0f}, {1.0f, -0.0f}, {1.0f, 0.5f}, {-0.5f, 3.0f}, {2.0f, -0.0f}};
    static const uint32_t special[] = {0x80000000u, 0, 0x7fc00000u, 0xffc12345u, 0x7f800000u, 0xff800000u, 1, 0x807fffffu};
    static const int64_t strides[] = {512, 2048, 37, 512};
    static float mem[16 * 2048 + 256], ref[151 * TG_LANES];
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) /* the narrow formats read these bytes */
        mem[i] = rnd32() % 7 == 0 ? tg_bits_f32(special[rnd32() % 8]) : (rnd32() & 1) ? rndf() : rndf_wide();
    for (size_t d = 0; d < sizeof fmts / sizeof fmts[0]; d++)
        for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++)
            for (int f = 0; f < TG_ACT_COUNT; f++)
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
                    for (int64_t n = 0; n <= 150; n += n < 20 ? 1 : 13) {
                        if (d > 0 && f != TG_ACT_COPY && f != TG_ACT_SQUARE && f != TG_ACT_ABS && f != TG_ACT_EXP)
                            break; /* the narrow formats' other functions: the fp32 path after staging */
                        const int es = fmts[d].es;
                        const uint8_t *rows[TG_LANES];
                        const int pn = k == 3 ? 1 + (int)(n % 15) : TG_LANES; /* k 3: rows past pn repeat row 0 */
                        const int64_t off = n % 4;
                        const size_t q = (size_t)(f + n) % (sizeof sb / sizeof sb[0]);
                        float r1[TG_LANES], r2[TG_LANES];
                        for (int l = 0; l < TG_LANES; l++) {
                            rows[l] = (const uint8_t *)mem + (l < pn ? l : 0) * strides[k] * es;
                            r1[l] = r2[l] = rndf();
                        }
                        fmts[d].saf(r1, rows, off, n, (tg_act_func)f, sb[q][0], sb[q][1], ops[o]);
                        for (int64_t j = 0; j < n; j++)
                            for (int l = 0; l < TG_LANES; l++) {
                                uint32_t u = 0;
                                memcpy(&u, rows[l] + (off + j) * es, (size_t)es); /* little-endian */
                                ref[j * TG_LANES + l] = fmts[d].dec(u);
                            }
                        lanes_act_fold_agree(r1, r2, ref, n, (tg_act_func)f, sb[q][0], sb[q][1], ops[o]);
                    }
}

static void test_lanes_stage_act_fold(void **state)
{
    (void)state;
    at_every_level(lanes_stage_act_fold_at);
}

/* tg_reduce_key_f32 against the key fold element by element (the template's
 * row form): max and min, every SIMD body, lengths 0..40 at odd offsets,
 * rows of ±0, infinities, NaNs and random bits, from start keys of both
 * extremes and in between. */
static void test_reduce_key(void **state)
{
    static float x[64];
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (int64_t n = 0; n <= 40; n++)
            for (int rep = 0; rep < 24; rep++) {
                const int64_t off = rep % 3;
                for (int64_t i = 0; i < n + off; i++) {
                    uint32_t u = rnd32();
                    x[i] = rep % 4 == 0 ? tg_bits_f32(u)
                           : u % 17 == 0 ? tg_bits_f32(u % 2 ? 0x80000000u : 0u)
                           : u % 19 == 0 ? tg_bits_f32(u % 2 ? 0xff800000u : 0x7f800000u)
                           : u % 29 == 0 ? tg_bits_f32(0x7fc00000u | (u >> 12))
                                         : rndf_wide();
                }
                for (int is_min = 0; is_min < 2; is_min++) {
                    uint32_t k1 = rep % 3 == 0 ? (is_min ? 0xffffffffu : 0u) : rnd32(), n1 = (uint32_t)(rep % 5 == 0);
                    uint32_t k2 = k1, n2 = n1;
                    tg_reduce_key_f32((const uint8_t *)(x + off), n, is_min, &k1, &n1);
                    for (int64_t j = 0; j < n; j++) {
                        const uint32_t u = tg_f32_bits(x[off + j]), key = tg_order_key(u);
                        k2 = is_min ? (key < k2 ? key : k2) : (key > k2 ? key : k2);
                        n2 |= (u & 0x7fffffffu) > 0x7f800000u;
                    }
                    assert_int_equal(k1, k2);
                    assert_int_equal(n1 != 0, n2 != 0);
                }
            }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* tg_key_max / tg_key_min with tg_key_result (an accumulate's max/min fold in
 * the generated C) against the fold of tg_alu_raw_maximum/minimum from the
 * identity, made canonical: rows of ±0, infinities, NaNs of any payload and
 * sign, and random bits, folded forwards and backwards. */
static void test_key_fold(void **state)
{
    static float x[40];
    (void)state;
    for (int rep = 0; rep < 400; rep++) {
        const int n = rep % 40;
        for (int i = 0; i < n; i++) {
            uint32_t u = rnd32();
            x[i] = rep % 4 == 0 ? tg_bits_f32(u)
                   : u % 7 == 0 ? tg_bits_f32(u % 2 ? 0x80000000u : 0u)
                   : u % 11 == 0 ? tg_bits_f32(u % 2 ? 0xff800000u : 0x7f800000u)
                   : u % 97 == 0 ? tg_bits_f32(0x7f800001u | (u >> 12) | (u << 31))
                                 : rndf_wide();
        }
        for (int is_min = 0; is_min < 2; is_min++) {
            const float init = tg_bits_f32(is_min ? 0x7f800000u : 0xff800000u);
            float raw = init;
            uint32_t kf = tg_order_key(tg_f32_bits(init)), nf = 0, kb = kf, nb = 0;
            for (int i = 0; i < n; i++) {
                raw = is_min ? tg_alu_raw_minimum(raw, x[i]) : tg_alu_raw_maximum(raw, x[i]);
                const uint32_t uf = tg_f32_bits(x[i]), ub = tg_f32_bits(x[n - 1 - i]);
                kf = is_min ? tg_key_min(kf, uf) : tg_key_max(kf, uf);
                kb = is_min ? tg_key_min(kb, ub) : tg_key_max(kb, ub);
                nf |= tg_key_nan(uf);
                nb |= tg_key_nan(ub);
            }
            assert_int_equal(tg_f32_bits(tg_key_result(kf, nf)), tg_f32_bits(tg_nan_canon(raw)));
            assert_int_equal(tg_f32_bits(tg_key_result(kb, nb)), tg_f32_bits(tg_nan_canon(raw)));
        }
    }
}

/* The C simulation's nc_find_index8 / nc_match_replace8 (tg_find8_put with
 * and without the range test, tg_match8_bit_in) against the plain ones the
 * ISS runs (tg_find8_add, tg_match8): the same slots claimed, the same
 * indices and replaced values, on rows drawn from the slots' values
 * (duplicates, -0 against +0), NaNs in rows and slots, slots all NaN, and
 * values outside and between the slots. */
static void test_find8_forms(void **state)
{
    static const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, 1e30f, -1e30f, 3.0f, 7.0f, 0.5f};
    (void)state;
    for (int rep = 0; rep < 4000; rep++) {
        float vals[8], row[80], lo, hi;
        const int n = (int)(rnd32() % 81);
        for (int i = 0; i < 8; i++)
            vals[i] = rep % 50 == 0 ? tg_bits_f32(0x7fc00000u)
                      : rnd32() % 9 == 0 ? tg_bits_f32(0x7fc00001u | rnd32())
                                         : pool[rnd32() % (sizeof pool / sizeof pool[0])];
        for (int j = 0; j < n; j++) {
            uint32_t u = rnd32() % 4;
            row[j] = u == 0 ? vals[rnd32() % 8] : u == 1 ? pool[rnd32() % (sizeof pool / sizeof pool[0])]
                     : u == 2 ? rndf_wide() : tg_bits_f32(rnd32());
        }
        tg_find8_range(vals, &lo, &hi);
        float i1[8], i2[9], i3[9];
        unsigned u1 = 0, u2 = 0, u3 = 0, m1 = 0, m2 = 0;
        for (int k = 0; k < 8; k++)
            i1[k] = i2[k] = i3[k] = TG_FIND8_NONE;
        for (int j = 0; j < n; j++) {
            tg_find8_add(i1, &u1, vals, row[j], j);
            tg_find8_put(i2, &u2, vals, row[j], j);
            tg_find8_put_in(i3, &u3, vals, lo, hi, row[j], j);
            float r1 = tg_match8(&m1, vals, row[j], -5.0f), r2 = tg_match8_bit_in(&m2, vals, lo, hi, row[j], -5.0f);
            assert_memory_equal(&r1, &r2, sizeof r1);
        }
        assert_memory_equal(i1, i2, sizeof i1);
        assert_memory_equal(i1, i3, sizeof i1);
        assert_int_equal(u1, u2);
        assert_int_equal(u1, u3);
        assert_int_equal(m1, m2);
    }
}

/* The C simulation's max8 (tg_top8_add) against the plain insertion the ISS
 * runs (tg_max8_add), bit for bit: rows of 0 to 80 elements (fewer than 8
 * leave -inf), with duplicates, +-0, +-inf, NaNs of either sign and any
 * payload (the canonical NaN out, above +inf), subnormals and wide values. */
static void test_top8_forms(void **state)
{
    static const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-40f, -1e-40f, 3.0f, 7.0f};
    (void)state;
    for (int rep = 0; rep < 20000; rep++) {
        const int n = (int)(rnd32() % 81);
        float o1[8], o2[8];
        tg_top8 t;
        tg_max8_init(o1);
        tg_top8_init(&t);
        for (int j = 0; j < n; j++) {
            uint32_t u = rnd32() % 8;
            float x = u == 0   ? pool[rnd32() % (sizeof pool / sizeof pool[0])]
                      : u == 1 ? tg_bits_f32((rnd32() & 0x80000000u) | 0x7f800000u | (rnd32() % 2 ? rnd32() : 0u))
                      : u == 2 ? tg_bits_f32(rnd32())
                               : rndf_wide();
            tg_max8_add(o1, x);
            tg_top8_add(&t, x);
        }
        tg_top8_out(&t, o2);
        assert_memory_equal(o1, o2, sizeof o1);
    }
}

/* tg_activation_f32_row against tg_activation element by element, bit for
 * bit: every function, with every SIMD body this CPU runs, on rows of
 * specials (-0 among them, with a bias of -0 too) and wide random values,
 * unaligned and in place, lengths around the vector widths. */
static void test_activation_rows(void **state)
{
    static float x[1100], y[1100], z[1100];
    /* bias -0 keeps a -0 argument -0 (-0 · 2 + -0): tanh's row gave +0 */
    static const float sb[][2] = {{1.0f, 0.0f}, {-0.5f, 3.0f}, {0.088388346f, -1.5f}, {1e-3f, 1e30f}, {2.0f, -0.0f}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int i = 0; i < 1100; i++)
        x[i] = i < 40 ? tg_bits_f32((uint32_t[]){0x7fc00000u, 0xffc12345u, 0x7f800000u, 0xff800000u, 0x80000000u, 0,
                                                 1, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu}[i % 10])
                      : rndf_wide() * (i % 7 == 0 ? 100.0f : 1.0f);
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (int f = 0; f < TG_ACT_COUNT; f++)
            for (size_t k = 0; k < sizeof sb / sizeof sb[0]; k++)
                for (size_t n = 0; n < 1030; n += n < 20 ? 1 : 101) {
                    const size_t off = n % 3; /* byte offsets 0, 1, 2: any alignment */
                    uint8_t *d = (uint8_t *)y + off;
                    tg_activation_f32_row((tg_act_func)f, d, (const uint8_t *)x + off, n, sb[k][0], sb[k][1]);
                    for (size_t j = 0; j < n; j++) {
                        float v, w;
                        memcpy(&v, (const uint8_t *)x + off + 4 * j, 4);
                        memcpy(&w, d + 4 * j, 4);
                        assert_int_equal(tg_f32_bits(w), tg_f32_bits(tg_activation((tg_act_func)f, v, sb[k][0], sb[k][1])));
                    }
                    memcpy(z, x, sizeof z); /* in place */
                    tg_activation_f32_row((tg_act_func)f, z, z, n, sb[k][0], sb[k][1]);
                    for (size_t j = 0; j < n; j++)
                        assert_int_equal(tg_f32_bits(z[j]), tg_f32_bits(tg_activation((tg_act_func)f, x[j], sb[k][0], sb[k][1])));
                }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* Rows of f against tg_activation element by element, at every SIMD body:
 * every `stride`-th fp32 bit pattern of all 2^32 at each (scale, bias) of
 * sb, then every `step`-th pattern in each [lo, hi) of edge (bit-pattern
 * ranges of one sign: negatives ordered by magnitude) at scale 1. */
static void act_rows_sweep(tg_act_func f, uint32_t stride, const float (*sb)[2], size_t nsb,
                           const float (*edge)[2], size_t nedge, uint32_t step)
{
    enum { N = 4096 };
    static float x[N], y[N];
    int top = tg_matmul_isa(0);
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t k = 0; k < nsb; k++)
            for (uint64_t u0 = 0; u0 < ((uint64_t)1 << 32); u0 += (uint64_t)stride * N) {
                size_t n = 0;
                for (uint64_t u = u0; n < N && u < ((uint64_t)1 << 32); u += stride)
                    x[n++] = tg_bits_f32((uint32_t)u);
                tg_activation_f32_row(f, y, x, n, sb[k][0], sb[k][1]);
                for (size_t j = 0; j < n; j++)
                    assert_int_equal(tg_f32_bits(y[j]), tg_f32_bits(tg_activation(f, x[j], sb[k][0], sb[k][1])));
            }
        for (size_t e = 0; e < nedge; e++)
            for (uint32_t u0 = tg_f32_bits(edge[e][0]); u0 < tg_f32_bits(edge[e][1]); u0 += step * N) {
                size_t n = 0;
                for (uint32_t u = u0; n < N && u < tg_f32_bits(edge[e][1]); u += step)
                    x[n++] = tg_bits_f32(u);
                tg_activation_f32_row(f, y, x, n, 1.0f, 0.0f);
                for (size_t j = 0; j < n; j++)
                    assert_int_equal(tg_f32_bits(y[j]), tg_f32_bits(tg_activation(f, x[j], 1.0f, 0.0f)));
            }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* rows of the functions that take e^x from tg_math_exp_nd (exp, sigmoid,
 * silu, gelu_apprx_tanh: each SIMD body vectorizes the element form, table
 * lookups, 64-bit integer lanes, selects at the end; the AVX-512 body has
 * its own vector code, tg__exp_ndv8): every 4099th pattern (both signs,
 * subnormals, the ±128 cut-offs' region, infinities, NaNs) at scale 1 and
 * at a scale and bias, and every pattern near the edges: exp's fp32
 * overflow (88.72) and +0 below -103.97, the AVX-512 rows' clamp of e^x's
 * argument at ±128 (gelu's -2u is ∓128 at x = ±11.54), silu's and gelu's
 * own cuts at -200 and ±50. */
static void test_exp_rows_sweep(void **state)
{
    static const float sb[][2] = {{1.0f, 0.0f}, {0.088388346f, -1.5f}};
    static const tg_act_func fn[] = {TG_ACT_EXP, TG_ACT_SIGMOID, TG_ACT_SILU, TG_ACT_GELU_APPRX_TANH};
    static const float edge[][2] = {{88.5f, 89.0f},   {127.9f, 128.1f},   {-127.9f, -128.1f}, {-103.9f, -104.1f},
                                    {11.4f, 11.7f},   {-11.4f, -11.7f},   {-199.9f, -200.1f}, {49.9f, 50.1f},
                                    {-49.9f, -50.1f}};
    (void)state;
    for (size_t f = 0; f < sizeof fn / sizeof fn[0]; f++)
        act_rows_sweep(fn[f], 4099, sb, sizeof sb / sizeof sb[0], edge, sizeof edge / sizeof edge[0], 1);
}

/* erf and gelu rows (the AVX-512 body's lanes run the series while any
 * lane is live and the continued fraction where any lane needs it, tg_ops.c
 * tg__erf_seriesv8): every 40009th pattern at scale 1 and at a scale and
 * bias, and every 7th near each path's edge (erf's |t| = 2 and 27; gelu's
 * at x = ±2.83 and ±38.18, its cuts at 10 and -40) and among tiny ones. */
static void test_erf_rows(void **state)
{
    static const float sb[][2] = {{1.0f, 0.0f}, {0.75f, -0.25f}};
    static const tg_act_func fn[] = {TG_ACT_ERF, TG_ACT_GELU};
    static const float edge[][2] = {{1.995f, 2.005f}, {-1.995f, -2.005f}, {26.99f, 27.01f}, {-26.99f, -27.01f},
                                    {2.825f, 2.833f}, {-2.825f, -2.833f}, {38.17f, 38.2f},  {-38.17f, -38.2f},
                                    {9.99f, 10.01f},  {-39.99f, -40.01f}, {0x1p-30f, 0x1p-29f}};
    (void)state;
    for (size_t f = 0; f < sizeof fn / sizeof fn[0]; f++)
        act_rows_sweep(fn[f], 40009, sb, sizeof sb / sizeof sb[0], edge, sizeof edge / sizeof edge[0], 7);
}

/* sin rows (the AVX-512 body: both of sin_quadrant's polynomials on every
 * lane, a step with any |x| > 823549, infinity or NaN through the element
 * form): every 40009th pattern at scale 1 and at a scale and bias, and
 * every pattern near the quadrant edges at ±π/4 and ±3π/4 and every 7th
 * near the element form's cut at ±823549. */
static void test_sin_rows(void **state)
{
    static const float sb[][2] = {{1.0f, 0.0f}, {0.75f, -0.25f}};
    static const float edge[][2] = {{0.785f, 0.786f},     {-0.785f, -0.786f},   {2.356f, 2.357f},
                                    {-2.356f, -2.357f},   {823540.0f, 823560.0f}, {-823540.0f, -823560.0f}};
    (void)state;
    act_rows_sweep(TG_ACT_SIN, 40009, sb, sizeof sb / sizeof sb[0], edge, sizeof edge / sizeof edge[0], 1);
}

/* tanh rows (the AVX-512 body: both of expm1's paths on every lane, the
 * argument clamped to ±20 in fp64, tg__tanhv8): every 4099th pattern at
 * scale 1 and at a scale and bias, and every pattern near the paths' edge
 * (|u| = 0.35 at x = ±0.175), where the fp32 result reaches ±1 (9.01) and
 * at the clamp (±20). */
static void test_tanh_rows(void **state)
{
    static const float sb[][2] = {{1.0f, 0.0f}, {0.75f, -0.25f}};
    static const float edge[][2] = {{0.1749f, 0.1751f}, {-0.1749f, -0.1751f}, {8.9f, 9.1f},
                                    {-8.9f, -9.1f},     {19.99f, 20.01f},     {-19.99f, -20.01f}};
    (void)state;
    act_rows_sweep(TG_ACT_TANH, 4099, sb, sizeof sb / sizeof sb[0], edge, sizeof edge / sizeof edge[0], 1);
}

/* The checked fast paths of the AVX-512 and AVX2 rows (runtime/tg_ops.c
 * "checked fast paths", tg_act_fast.h): arguments whose fast value lies on the other side of an fp32
 * rounding boundary than the function's own value, so that only the check
 * and the exact code give tg_activation's bits, found by exhaustive runs
 * with the check removed: every such argument of erf, sin, log and
 * softplus (6, 6, 1 and 1 of 2^32; none for tanh or rsqrt), every 96th of
 * exp's 5363 (tg_act_fast.h tg__exp_fastw) and of gelu above 2^-97 in
 * magnitude (37), and three of gelu's ~2^23 tiny ones (x/2 a tie between
 * subnormals); and the 21 of tanh's earlier fast path (its expm1 by a
 * polynomial below |2x| = 0.35), near a boundary still. Each at every
 * position of a 64-element step and at the row's last 8 (a partial AVX2
 * step) among ordinary arguments (positive for log, whose fast path flags
 * the others), every SIMD body, apart and in place, against the element
 * form. */
static void test_fast_row_hard(void **state)
{
    static const uint32_t hard_exp[] = {
        0x33800000u, 0x3a4049f1u, 0x3b2020e1u, 0x3b935c8cu, 0x3bd3c4f1u, 0x3c21a0fcu, 0x3c9f0e43u,
        0x3cf156cdu, 0x3d7b7b45u, 0x3df2d77cu, 0x3e666422u, 0x3eb4f2c0u, 0x3f039a22u, 0x3f51ca8eu,
        0x3fa1d683u, 0x3ff877dau, 0x4041127eu, 0x4098c91cu, 0x40efdbb9u, 0x413d4ee2u, 0x4199cfb2u,
        0x41f2b816u, 0x42414001u, 0x42866b24u, 0xb5780007u, 0xba4e62cbu, 0xbae9ea67u, 0xbb356dbbu,
        0xbb76139fu, 0xbba50e7eu, 0xbbc42841u, 0xbbe3fcd2u, 0xbc0673b8u, 0xbc499e27u, 0xbc8d9785u,
        0xbccb5f61u, 0xbceb622au, 0xbd2896dbu, 0xbd727e88u, 0xbdac5f75u, 0xbde23c5au, 0xbe16374fu,
        0xbe573712u, 0xbea4dfbcu, 0xbf06db7bu, 0xbf59a3ebu, 0xbfaf5070u, 0xc0084f00u, 0xc04f92a9u,
        0xc09f39e4u, 0xc0ee1b6bu, 0xc14018a1u, 0xc18be3ecu, 0xc1dd0d67u, 0xc22948deu, 0xc27d58d9u,
    };
    static const uint32_t hard_tanh[] = {
        0x3e396cc3u, 0x3e3bb3f0u, 0x3e3e5d6fu, 0x3e539d35u, 0x3e67e496u, 0x3e68a6a8u, 0x3e69392fu,
        0x3e6cd3e1u, 0xbe3aaf8bu, 0xbe51bd1du, 0xbe53cb15u, 0xbe69bf8au, 0xbe7f2dc7u, 0xbe7f9235u,
        0xbe95d2c3u, 0xbea0cc28u, 0xbed8064eu, 0xbed8599cu, 0xbeecff89u, 0xbeee0566u, 0xbf0d7c01u,
    };
    static const uint32_t hard_erf[] = {
        0x3f043a75u, 0x3f44ddfdu, 0x3f4a82f1u, 0xbf043a75u, 0xbf44ddfdu, 0xbf4a82f1u,
    };
    static const uint32_t hard_gelu[] = {
        0x00000001u, 0x00800001u, 0x80000005u, 0x334aa765u, 0x3666c879u, 0x366c4759u, 0x37f5c377u,
        0x38028e89u, 0x38ca1be2u, 0x3c2df329u, 0x3c419978u, 0x3ca716f5u, 0x3e3b1d21u, 0x3e493cc6u,
        0x3e60b687u, 0xb34aa765u, 0xb666c879u, 0xb66c4759u, 0xb7b0a46fu, 0xb7f5c377u, 0xb8028e89u,
        0xb8ca1be2u, 0xbc2df329u, 0xbc419978u, 0xbca716f5u, 0xbe3b1d21u, 0xbe493cc6u, 0xbe665a5eu,
        0xbf0d1744u, 0xbf5b7e1cu, 0xbfccb09fu, 0xbffb4fc8u, 0xc00b1892u, 0xc0186373u, 0xc02fe332u,
        0xc06f56aeu, 0xc070e24bu, 0xc09e5272u, 0xc0a63e93u, 0xc0b58b04u,
    };
    static const uint32_t hard_sin[] = {
        0x401f2100u, 0x43e423f5u, 0x45e38b6eu, 0xc01f2100u, 0xc3e423f5u, 0xc5e38b6eu,
    };
    static const uint32_t hard_log[] = {0x6f31a8ecu}, hard_softplus[] = {0x3ad68ba7u};
    static const struct {
        tg_act_func f;
        const uint32_t *x;
        size_t n;
    } set[] = {{TG_ACT_EXP, hard_exp, sizeof hard_exp / sizeof hard_exp[0]},
               {TG_ACT_SIN, hard_sin, sizeof hard_sin / sizeof hard_sin[0]},
               {TG_ACT_LOG, hard_log, sizeof hard_log / sizeof hard_log[0]},
               {TG_ACT_SOFTPLUS, hard_softplus, sizeof hard_softplus / sizeof hard_softplus[0]},
               {TG_ACT_TANH, hard_tanh, sizeof hard_tanh / sizeof hard_tanh[0]},
               {TG_ACT_ERF, hard_erf, sizeof hard_erf / sizeof hard_erf[0]},
               {TG_ACT_GELU, hard_gelu, sizeof hard_gelu / sizeof hard_gelu[0]}};
    enum { N = 130 };
    static float x[N], y[N], z[N];
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t s = 0; s < sizeof set / sizeof set[0]; s++)
            for (size_t h = 0; h < set[s].n; h++)
                for (size_t at = 0; at < N; at += at < 64 || at >= N - 8 ? 1 : 7) {
                    for (size_t j = 0; j < N; j++)
                        x[j] = j == at                  ? tg_bits_f32(set[s].x[h])
                               : set[s].f == TG_ACT_LOG ? fabsf(rndf()) * 4.0f + 0.001f
                                                        : rndf() * 4.0f;
                    tg_activation_f32_row(set[s].f, y, x, N, 1.0f, 0.0f);
                    for (size_t j = 0; j < N; j++)
                        assert_int_equal(tg_f32_bits(y[j]), tg_f32_bits(tg_activation(set[s].f, x[j], 1.0f, 0.0f)));
                    memcpy(z, x, sizeof z); /* in place */
                    tg_activation_f32_row(set[s].f, z, z, N, 1.0f, 0.0f);
                    assert_memory_equal(z, y, sizeof z);
                }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* exp rows whose blocks are all below exp's +0 cut (runtime/tg_ops.c
 * TG_EXP_DEAD: written +0 without evaluating exp) or all but one element:
 * -inf, -200 or -104.00001, with one live element (just above the cut,
 * NaN, +0, 5) at each position of the row's first blocks and at every 13th
 * after, rows of 198-200 elements at byte offsets 0-2, at scale 1 and at a
 * scale and bias that move the cut, every body, against tg_activation
 * element by element. */
static void test_exp_rows_dead(void **state)
{
    enum { N = 200 };
    static float x[N + 1], y[N + 1];
    static const float dead[] = {-INFINITY, -200.0f, -104.00001f};
    static const float live[] = {-103.9f, -87.9f, NAN, 0.0f, 5.0f}; /* -87.9: -103.95 at the second */
    static const float sb[][2] = {{1.0f, 0.0f}, {0.5f, -60.0f}};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (size_t k = 0; k < sizeof sb / sizeof sb[0]; k++)
            for (size_t di = 0; di < sizeof dead / sizeof dead[0]; di++)
                for (size_t li = 0; li < sizeof live / sizeof live[0]; li++)
                    for (size_t at = 0; at <= N; at += at < 70 ? 1 : 13) {
                        const size_t n = N - at % 3, off = at % 3;
                        uint8_t *src = (uint8_t *)x + off, *dst = (uint8_t *)y + off;
                        for (size_t j = 0; j < n; j++) {
                            float v = j == at ? live[li] : dead[di];
                            memcpy(src + 4 * j, &v, 4);
                        }
                        tg_activation_f32_row(TG_ACT_EXP, dst, src, n, sb[k][0], sb[k][1]);
                        for (size_t j = 0; j < n; j++) {
                            float v, w;
                            memcpy(&v, src + 4 * j, 4);
                            memcpy(&w, dst + 4 * j, 4);
                            assert_int_equal(tg_f32_bits(w), tg_f32_bits(tg_activation(TG_ACT_EXP, v, sb[k][0], sb[k][1])));
                        }
                    }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* tg_tensor_scalar_f32_row's two stages and tg_scalar_tensor_tensor_f32_row
 * for every pair of ops they take (the arithmetic pairs run fused in one
 * loop, the rest through a buffer), each stage with a scalar reversed or not,
 * against tg_alu element by element, bit for bit, with every SIMD body this
 * CPU runs: specials and wide values, apart and in place, unaligned, lengths
 * around the vector widths. */
static void test_f32_rows_ts_pairs(void **state)
{
    static float x[1100], x2[1100], y[1100], z[1100], w2[1100];
    static const float cs[] = {0.0f, -0.0f, 1.5f, -3.0e38f, 1e-40f, -7.25f};
    static const size_t lens[] = {0, 1, 7, 15, 16, 17, 33, 255, 257, 1029};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int i = 0; i < 1100; i++)
        x[i] = i % 37 < 10 ? tg_bits_f32((uint32_t[]){0x7fc00000u, 0xffc12345u, 0x7f800000u, 0xff800000u, 0x80000000u,
                                                      0, 1, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu}[i % 37])
                           : rndf_wide() * (i % 7 == 0 ? 100.0f : 1.0f);
    for (int i = 0; i < 1100; i++)
        x2[i] = i % 13 == 0 ? x[(i * 7) % 1100] : rndf_wide();
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (int o0 = 0; o0 < TG_ALU_COUNT; o0++)
            for (int o1 = 0; o1 < TG_ALU_COUNT; o1++) {
                const tg_alu_op ops[2] = {(tg_alu_op)o0, (tg_alu_op)o1};
                if (!tg_alu_f32_row_op(ops[0]) || !tg_alu_f32_row_op(ops[1]))
                    continue;
                for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
                    for (int rv = 0; rv < 4; rv++)
                        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                            const size_t n = lens[li], off = (k + li) % 3;
                            const float cv[2] = {cs[k], cs[(k + 3) % 6]};
                            const int rev[2] = {rv & 1, rv >> 1};
                            uint8_t *zd = (uint8_t *)z + off, *yd = (uint8_t *)y + off;
                            memcpy(z, x, sizeof z);
                            tg_tensor_scalar_f32_row(yd, zd, n, 2, ops, cv, rev);
                            tg_tensor_scalar_f32_row(zd, zd, n, 2, ops, cv, rev); /* in place */
                            for (size_t j = 0; j < n; j++) {
                                float v, w, u;
                                memcpy(&v, (const uint8_t *)x + off + 4 * j, 4);
                                for (int t = 0; t < 2; t++)
                                    v = rev[t] ? tg_alu(ops[t], cv[t], v) : tg_alu(ops[t], v, cv[t]);
                                memcpy(&w, yd + 4 * j, 4);
                                memcpy(&u, zd + 4 * j, 4);
                                assert_int_equal(tg_f32_bits(w), tg_f32_bits(v));
                                assert_int_equal(tg_f32_bits(u), tg_f32_bits(v));
                            }
                            /* scalar_tensor_tensor: (x op0 c) op1 x2, d apart, d = s, d = b */
                            for (int place = 0; rv < 2 && place < 3; place++) {
                                uint8_t *sd = (uint8_t *)z + off, *bd = (uint8_t *)y + off;
                                memcpy(z, x, sizeof z);
                                memcpy(y, x2, sizeof y);
                                uint8_t *dd = place == 1 ? sd : place == 2 ? bd : (uint8_t *)w2 + off;
                                tg_scalar_tensor_tensor_f32_row(dd, sd, bd, n, ops[0], cv[0], rv, ops[1]);
                                for (size_t j = 0; j < n; j++) {
                                    float a, b, r;
                                    memcpy(&a, (const uint8_t *)x + off + 4 * j, 4);
                                    memcpy(&b, (const uint8_t *)x2 + off + 4 * j, 4);
                                    memcpy(&r, dd + 4 * j, 4);
                                    assert_int_equal(tg_f32_bits(r), tg_f32_bits(tg_scalar_tensor_tensor(
                                                                         a, ops[0], cv[0], rv, ops[1], b)));
                                }
                            }
                        }
            }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

/* tg_tensor_tensor_f32_row, tg_tensor_scalar_f32_row and
 * tg_scalar_tensor_tensor_f32_row against tg_alu element by element, bit
 * for bit: every op they take (and nothing written for one they do not), one
 * and two stages, reversed, with every SIMD body
 * this CPU runs, on rows of specials (NaNs of both signs, infinities, -0,
 * denormals) and wide random values, unaligned, in place, lengths around the
 * vector widths and the two-stage block. */
static void test_f32_rows(void **state)
{
    static float x[1100], x2[1100], y[1100], z[1100], w2[1100];
    static const float cs[] = {0.0f, -0.0f, 1.5f, -3.0e38f, 1e-40f};
    int top = tg_matmul_isa(0);
    (void)state;
    for (int i = 0; i < 1100; i++) {
        x[i] = i < 40 ? tg_bits_f32((uint32_t[]){0x7fc00000u, 0xffc12345u, 0x7f800000u, 0xff800000u, 0x80000000u, 0,
                                                 1, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu}[i % 10])
                      : rndf_wide() * (i % 7 == 0 ? 100.0f : 1.0f);
        x2[i] = i % 13 == 0 ? x[(i * 7) % 40] : rndf_wide();
    }
    assert_int_equal(tg_alu_f32_row_op(TG_ALU_POWER), 0);
    assert_int_equal(tg_alu_f32_row_op(TG_ALU_BITWISE_AND), 0);
    assert_int_equal(tg_alu_f32_row_op(TG_ALU_LESS), 1);
    for (int level = top; level >= 1; level--) {
        assert_int_equal(tg_matmul_isa(level), level);
        for (int o = 0; o < TG_ALU_COUNT; o++) {
            tg_alu_op op = (tg_alu_op)o, op1 = (tg_alu_op)((o + 2) % TG_ALU_COUNT);
            int ok = tg_alu_f32_row_op(op);
            if (!tg_alu_f32_row_op(op1))
                op1 = TG_ALU_SUBTRACT;
            for (size_t n = 0; n < 1030; n += n < 20 ? 1 : 101) {
                const size_t off = n % 3; /* byte offsets 0, 1, 2: any alignment */
                uint8_t *d = (uint8_t *)y + off;
                memset(y, 0x5a, sizeof y);
                tg_tensor_tensor_f32_row(op, d, (const uint8_t *)x + off, (const uint8_t *)x2 + off, n);
                for (size_t j = 0; j < n; j++) {
                    float a, b, w;
                    memcpy(&a, (const uint8_t *)x + off + 4 * j, 4);
                    memcpy(&b, (const uint8_t *)x2 + off + 4 * j, 4);
                    memcpy(&w, d + 4 * j, 4);
                    assert_int_equal(tg_f32_bits(w), ok ? tg_f32_bits(tg_alu(op, a, b)) : 0x5a5a5a5au);
                }
                if (!ok)
                    continue;
                memcpy(z, x, sizeof z); /* in place, as both sources */
                tg_tensor_tensor_f32_row(op, z, z, z, n);
                for (size_t j = 0; j < n; j++)
                    assert_int_equal(tg_f32_bits(z[j]), tg_f32_bits(tg_alu(op, x[j], x[j])));
                for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
                    for (int nst = 1; nst <= 2; nst++)
                        for (int rv = 0; rv < 4; rv++) {
                            const tg_alu_op ops[2] = {op, op1};
                            const float cv[2] = {cs[k], cs[(k + 2) % 5]};
                            const int rev[2] = {rv & 1, rv >> 1};
                            memcpy(z, x, sizeof z);
                            uint8_t *zd = (uint8_t *)z + off, *yd = (uint8_t *)y + off;
                            tg_tensor_scalar_f32_row(yd, zd, n, nst, ops, cv, rev);
                            tg_tensor_scalar_f32_row(zd, zd, n, nst, ops, cv, rev); /* in place */
                            for (size_t j = 0; j < n; j++) {
                                float v, w, u;
                                memcpy(&v, (const uint8_t *)x + off + 4 * j, 4);
                                for (int t = 0; t < nst; t++)
                                    v = rev[t] ? tg_alu(ops[t], cv[t], v) : tg_alu(ops[t], v, cv[t]);
                                memcpy(&w, yd + 4 * j, 4);
                                memcpy(&u, zd + 4 * j, 4);
                                assert_int_equal(tg_f32_bits(w), tg_f32_bits(v));
                                assert_int_equal(tg_f32_bits(u), tg_f32_bits(v));
                            }
                        }
                /* scalar_tensor_tensor: (x op c) op1 x2, apart and in place as either source */
                for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
                    for (int rv = 0; rv < 2; rv++)
                        for (int place = 0; place < 3; place++) { /* d apart, d = s, d = b */
                            uint8_t *sd = (uint8_t *)z + off, *bd = (uint8_t *)y + off;
                            memcpy(z, x, sizeof z);
                            memcpy(y, x2, sizeof y);
                            uint8_t *dd = place == 1 ? sd : place == 2 ? bd : (uint8_t *)w2 + off;
                            tg_scalar_tensor_tensor_f32_row(dd, sd, bd, n, op, cs[k], rv, op1);
                            for (size_t j = 0; j < n; j++) {
                                float a, b, r;
                                memcpy(&a, (const uint8_t *)x + off + 4 * j, 4);
                                memcpy(&b, (const uint8_t *)x2 + off + 4 * j, 4);
                                memcpy(&r, dd + 4 * j, 4);
                                assert_int_equal(tg_f32_bits(r),
                                                 tg_f32_bits(tg_scalar_tensor_tensor(a, op, cs[k], rv, op1, b)));
                            }
                        }
            }
        }
    }
    assert_int_equal(tg_matmul_isa(3), top);
}

static _Alignas(16) uint8_t tr_src[40 * 40 * 2 * 4], tr_dst[40 * 40 * 4];

/* tg_transpose of 1-, 2- and 4-byte elements against the plain definition,
 * at every block split, the gaps between dst rows untouched. */
static void test_transpose_bytes(void **state)
{
    uint8_t *src = tr_src, *dst = tr_dst;
    (void)state;
    for (size_t es = 1; es <= 4; es *= 2)
        for (int P = 1; P < 20; P++)
            for (int F = 1; F < 20; F += 3) {
                rnd_bits(src, sizeof tr_src / es, es == 4 ? TG_INT32 : es == 2 ? TG_UINT16 : TG_UINT8);
                memset(dst, 0xa5, sizeof tr_dst);
                tg_transpose(dst, P + 3, src, F + 5, P, F, es);
                for (int p = 0; p < P; p++)
                    for (int f = 0; f < F; f++)
                        assert_memory_equal(dst + ((size_t)f * (size_t)(P + 3) + (size_t)p) * es,
                                            src + ((size_t)p * (size_t)(F + 5) + (size_t)f) * es, es);
                for (int f = 0; f < F; f++) /* the gaps between dst rows stay untouched */
                    for (int p = P; p < P + 3; p++)
                        assert_int_equal(dst[((size_t)f * (size_t)(P + 3) + (size_t)p) * es], 0xa5);
            }
}

/* tg_transpose_pe (every dtype, free strides 1 and 2) against the widened
 * definition, at every block split, in every body (bf16 rows are widened in
 * the widest). */
static void transpose_pe_checks(void)
{
    static const tg_dtype dts[] = {TG_FLOAT32, TG_TFLOAT32, TG_BFLOAT16, TG_FLOAT16, TG_FLOAT8_E4M3,
                                   TG_FLOAT8_E5M2, TG_INT8, TG_UINT8, TG_INT16, TG_UINT16, TG_INT32, TG_UINT32};
    uint8_t *src = tr_src, *dst = tr_dst;
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++)
        for (int P = 1; P < 20; P += 2)
            for (int F = 1; F < 40; F += 5)
                for (ptrdiff_t fs = 1; fs <= 2; fs++) {
                    tg_dtype dt = dts[di];
                    size_t es = tg_dtype_size(dt);
                    ptrdiff_t ps = (ptrdiff_t)((size_t)(F * fs + 1) * es);
                    float *d = (float *)(void *)dst;
                    rnd_bits(src, sizeof tr_src / 4 / es, dt);
                    tg_transpose_pe(d, P + 1, (tg_pe_src){src, ps, fs, dt}, P, F);
                    for (int p = 0; p < P; p++)
                        for (int f = 0; f < F; f++) {
                            float w = tg_load_f32(src + p * ps + f * fs * (ptrdiff_t)es, dt, 0);
                            assert_int_equal(tg_f32_bits(d[f * (P + 1) + p]), tg_f32_bits(w));
                        }
                }
}
static void test_transpose_pe(void **state)
{
    (void)state;
    at_every_level(transpose_pe_checks);
}

/* tg_transpose_f32 at one SIMD level. */
static void transpose_checks(void)
{
    static float src[130 * 70], dst[70 * 133];
    int p, f;
    for (p = 0; p < 130 * 70; p++)
        src[p] = rndf();
    src[5] = tg_bits_f32(0x7fa00001u);  /* signalling NaN payload */
    src[77] = tg_bits_f32(0xffc12345u); /* negative quiet NaN payload */
    src[78] = -INF;
    tg_transpose_f32(dst, 133, src, 70, 130, 70);
    for (p = 0; p < 130; p++)
        for (f = 0; f < 70; f++)
            assert_int_equal(tg_f32_bits(dst[f * 133 + p]), tg_f32_bits(src[p * 70 + f]));
    assert_int_equal(tg_f32_bits(dst[5 * 133]), 0x7fa00001u);
    /* every block/edge split: P, F from 1 to 19 (8x8 blocks and ragged
     * edges), strides wider than the rows, against the plain definition */
    for (int P = 1; P < 20; P++)
        for (int F = 1; F < 20; F++) {
            static float d2[40 * 40];
            for (int i = 0; i < 40 * 40; i++)
                d2[i] = tg_bits_f32(0x7fc0dead);
            tg_transpose_f32(d2, P + 3, src, F + 5, P, F);
            for (p = 0; p < P; p++)
                for (f = 0; f < F; f++)
                    assert_int_equal(tg_f32_bits(d2[f * (P + 3) + p]), tg_f32_bits(src[p * (F + 5) + f]));
            for (f = 0; f < F; f++) /* the gaps between dst rows stay untouched */
                for (p = P; p < P + 3 && f * (P + 3) + p < 40 * 40; p++)
                    assert_int_equal(tg_f32_bits(d2[f * (P + 3) + p]), 0x7fc0deadu);
        }
    /* destination rows 1 KiB and more apart (the tiled order): every tile
     * and block split, the gaps between dst rows untouched */
    for (int P = 1; P < 40; P += 3)
        for (int F = 17; F < 70; F += 6) {
            static float d3[70 * 300];
            const ptrdiff_t ds = 256 + P % 3 * 20;
            for (int i = 0; i < 70 * 300; i++)
                d3[i] = tg_bits_f32(0x7fc0dead);
            tg_transpose_f32(d3, ds, src, F + 1, P, F);
            for (f = 0; f < F; f++)
                for (p = 0; p < (int)ds; p++)
                    assert_int_equal(tg_f32_bits(d3[f * ds + p]), p < P ? tg_f32_bits(src[p * (F + 1) + f]) : 0x7fc0deadu);
        }
    /* destination rows a multiple of 4 KiB apart (PSUM rows: whole tiles go
     * through a buffer), full and ragged tiles, the rest of each row untouched */
    for (int P = 5; P < 40; P += 11)
        for (int F = 9; F < 70; F += 20) {
            static float d4[70 * 2048];
            const ptrdiff_t ds = P % 2 ? 1024 : 2048;
            for (int i = 0; i < 70 * 2048; i++)
                d4[i] = tg_bits_f32(0x7fc0dead);
            tg_transpose_f32(d4, ds, src, F + 3, P, F);
            for (f = 0; f < F; f++)
                for (p = 0; p < 64; p++)
                    assert_int_equal(tg_f32_bits(d4[f * ds + p]), p < P ? tg_f32_bits(src[p * (F + 3) + f]) : 0x7fc0deadu);
        }
    {
        float a[6] = {1, 2, 3, 4, 5, 6}, b[6];
        tg_transpose_f32(b, 2, a, 3, 2, 3); /* [2,3] → [3,2] */
        assert_true(b[0] == 1 && b[1] == 4 && b[2] == 2 && b[3] == 5 && b[4] == 3 && b[5] == 6);
    }
}

/* tg_transpose_f32 in every SIMD body (tg_matmul_isa: on x86-64 the baseline's
 * 4x4 blocks and the AVX2 body's 8x8 ones). */
static void test_transpose(void **state)
{
    (void)state;
    at_every_level(transpose_checks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline_dispatch_matches_tables),
        cmocka_unit_test(test_activation_no_fma),
        cmocka_unit_test(test_tensor_scalar_and_tensor),
        cmocka_unit_test(test_select_cmp_iota),
        cmocka_unit_test(test_iota_inline_forms),
        cmocka_unit_test(test_reduce_hand),
        cmocka_unit_test(test_reduce_bits),
        cmocka_unit_test(test_reduce_random),
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_bn_hand),
        cmocka_unit_test(test_bn_random),
        cmocka_unit_test(test_bn_lanes),
        cmocka_unit_test(test_partition_reduce),
        cmocka_unit_test(test_matmul_hand),
        cmocka_unit_test(test_matmul_nan_canonical),
        cmocka_unit_test(test_matmul_random),
        cmocka_unit_test(test_matmul_fused),
        cmocka_unit_test(test_matmul_k_tiles),
        cmocka_unit_test(test_matmul_direct),
        cmocka_unit_test(test_matmul_widen_all),
        cmocka_unit_test(test_matmul_uniform),
        cmocka_unit_test(test_matmul_blocks),
        cmocka_unit_test(test_matmul_keep),
        cmocka_unit_test(test_matmul_range_edges),
        cmocka_unit_test(test_activation_rows),
        cmocka_unit_test(test_exp_rows_sweep),
        cmocka_unit_test(test_erf_rows),
        cmocka_unit_test(test_sin_rows),
        cmocka_unit_test(test_tanh_rows),
        cmocka_unit_test(test_exp_rows_dead),
        cmocka_unit_test(test_fast_row_hard),
        cmocka_unit_test(test_f32_rows),
        cmocka_unit_test(test_f32_rows_ts_pairs),
        cmocka_unit_test(test_lanes_stage),
        cmocka_unit_test(test_lanes_fold),
        cmocka_unit_test(test_lanes_act_fold),
        cmocka_unit_test(test_lanes_stage_act_fold),
        cmocka_unit_test(test_reduce_key),
        cmocka_unit_test(test_key_fold),
        cmocka_unit_test(test_find8_forms),
        cmocka_unit_test(test_top8_forms),
        cmocka_unit_test(test_transpose_bytes),
        cmocka_unit_test(test_transpose_pe),
        cmocka_unit_test(test_transpose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
