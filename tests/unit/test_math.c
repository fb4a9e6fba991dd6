/* test_math.c — cmocka tests of runtime/tg_math: the ulp bounds written in
 * tg_math.h hold on a sampled sweep (parsed from the header, measured with
 * tools/ulp_measure.c's sweep against libm fp64), sqrt is correctly rounded,
 * IEEE special values of every function, the dispatcher/name table, the
 * scale/bias row helper, and the inline e^x family vectorized over rows. */
#include "tg_fp.h" /* first, as the runtime and kernels have it: pow_row_avx512 vectorizes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define ULP_MEASURE_NO_MAIN
#include "../../tools/ulp_measure.c"

static const float INF = (float)INFINITY;

/* The bound tg_math.h states for `name`, or -1 if the table lacks it. */
static long header_bound(const char *name)
{
    static char text[1 << 16];
    FILE *f = fopen("runtime/tg_math.h", "r");
    size_t n;
    char *p, *end;
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    p = strstr(text, "TG_ULP_TABLE_BEGIN");
    end = strstr(text, "TG_ULP_TABLE_END");
    assert_non_null(p);
    assert_non_null(end);
    while ((p = strchr(p, '\n')) != NULL && p < end) {
        char word[64];
        long bound;
        p++;
        if (sscanf(p, " * %63s %ld", word, &bound) == 2 && strcmp(word, name) == 0)
            return bound;
    }
    return -1;
}

static void test_header_bounds(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < ULP_NFNS; i++) {
        long bound = header_bound(ulp_fns[i].name);
        ulp_result r;
        if (bound < 0)
            fail_msg("tg_math.h states no ulp bound for %s", ulp_fns[i].name);
        r = ulp_sweep(&ulp_fns[i], 4093u);
        if (r.max64 > bound)
            fail_msg("%s: %lld ulp at %a, header says %ld", ulp_fns[i].name,
                     (long long)r.max64, (double)r.worst_x, bound);
        assert_true(r.count > 500000);
    }
}

/* sqrt: correctly rounded on every 61st positive fp32 and on perfect squares. */
static void test_sqrt_correct(void **state)
{
    uint32_t u;
    (void)state;
    for (u = 0; u < 0x7f800000u; u += 61u) {
        float x = tg_bits_f32(u);
        if (tg_f32_bits(tg_act_sqrt(x)) != tg_f32_bits(sqrtf(x)))
            fail_msg("sqrt(%a) = %a, want %a", (double)x, (double)tg_act_sqrt(x), (double)sqrtf(x));
    }
    for (u = 1; u < 4096; u++) {
        float s = (float)u * 0x1p-6f;
        assert_true(tg_act_sqrt(s * s) == s);
    }
    assert_true(tg_act_sqrt(tg_bits_f32(1)) == sqrtf(tg_bits_f32(1)));
    assert_true(tg_act_sqrt(FLT_MAX) == sqrtf(FLT_MAX));
}

/* Same bits, treating all NaNs as equal. */
static void same(float got, float want, const char *what)
{
    if (isnan(want) ? !isnan(got) : tg_f32_bits(got) != tg_f32_bits(want))
        fail_msg("%s = %a, want %a", what, (double)got, (double)want);
}

static void test_specials(void **state)
{
    float nan = NAN;
    int f;
    (void)state;
    for (f = 0; f < TG_ACT_COUNT; f++)
        assert_true(isnan(tg_act((tg_act_func)f, nan)));
    same(tg_act_exp(0.0f), 1.0f, "exp(0)");
    same(tg_act_exp(-INF), 0.0f, "exp(-inf)");
    same(tg_act_exp(INF), INF, "exp(inf)");
    same(tg_act_exp(88.73f), INF, "exp(88.73)");
    same(tg_act_exp(88.72f), expf(88.72f), "exp(88.72)");
    same(tg_act_exp(-104.0f), 0.0f, "exp(-104)");
    same(tg_act_exp(-100.0f), (float)exp(-100.0), "exp(-100) subnormal");
    same(tg_act_log(1.0f), 0.0f, "log(1)");
    same(tg_act_log(0.0f), -INF, "log(0)");
    same(tg_act_log(-0.0f), -INF, "log(-0)");
    same(tg_act_log(-1.0f), nan, "log(-1)");
    same(tg_act_log(INF), INF, "log(inf)");
    same(tg_act_log(tg_bits_f32(1)), (float)log(0x1p-149), "log(min subnormal)");
    same(tg_act_tanh(INF), 1.0f, "tanh(inf)");
    same(tg_act_tanh(-INF), -1.0f, "tanh(-inf)");
    same(tg_act_tanh(-0.0f), -0.0f, "tanh(-0)");
    same(tg_act_tanh(1e-30f), 1e-30f, "tanh(tiny)");
    same(tg_act_sigmoid(0.0f), 0.5f, "sigmoid(0)");
    same(tg_act_sigmoid(-INF), 0.0f, "sigmoid(-inf)");
    same(tg_act_sigmoid(INF), 1.0f, "sigmoid(inf)");
    same(tg_act_relu(-3.0f), 0.0f, "relu(-3)");
    same(tg_act_relu(-0.0f), 0.0f, "relu(-0)");
    same(tg_act_relu(2.5f), 2.5f, "relu(2.5)");
    same(tg_act_gelu(0.0f), 0.0f, "gelu(0)");
    same(tg_act_gelu(INF), INF, "gelu(inf)");
    same(tg_act_gelu(-INF), -0.0f, "gelu(-inf)");
    same(tg_act_gelu_apprx_tanh(-INF), -0.0f, "gelu_tanh(-inf)");
    same(tg_act_gelu_apprx_tanh(INF), INF, "gelu_tanh(inf)");
    same(tg_act_silu(-INF), -0.0f, "silu(-inf)");
    same(tg_act_silu(INF), INF, "silu(inf)");
    same(tg_act_softplus(-INF), 0.0f, "softplus(-inf)");
    same(tg_act_softplus(INF), INF, "softplus(inf)");
    same(tg_act_softplus(0.0f), (float)log(2.0), "softplus(0)");
    same(tg_act_square(-3.0f), 9.0f, "square(-3)");
    same(tg_act_sqrt(-0.0f), -0.0f, "sqrt(-0)");
    same(tg_act_sqrt(-1.0f), nan, "sqrt(-1)");
    same(tg_act_sqrt(INF), INF, "sqrt(inf)");
    same(tg_act_rsqrt(0.0f), INF, "rsqrt(0)");
    same(tg_act_rsqrt(-0.0f), -INF, "rsqrt(-0)");
    same(tg_act_rsqrt(INF), 0.0f, "rsqrt(inf)");
    same(tg_act_rsqrt(-4.0f), nan, "rsqrt(-4)");
    same(tg_act_rsqrt(4.0f), 0.5f, "rsqrt(4)");
    same(tg_act_reciprocal(0.0f), INF, "reciprocal(0)");
    same(tg_act_reciprocal(-0.0f), -INF, "reciprocal(-0)");
    same(tg_act_reciprocal(3.0f), 1.0f / 3.0f, "reciprocal(3)");
    same(tg_act_sin(INF), nan, "sin(inf)");
    same(tg_act_sin(-0.0f), -0.0f, "sin(-0)");
    same(tg_act_sin(FLT_MAX), (float)sin((double)FLT_MAX), "sin(FLT_MAX)");
    same(tg_act_sin(-1e22f), (float)sin((double)-1e22f), "sin(-1e22)");
    same(tg_act_abs(-0.0f), 0.0f, "abs(-0)");
    same(tg_act_abs(-INF), INF, "abs(-inf)");
    same(tg_act_sign(-0.0f), -0.0f, "sign(-0)");
    same(tg_act_sign(0.0f), 0.0f, "sign(0)");
    same(tg_act_sign(-7.0f), -1.0f, "sign(-7)");
    same(tg_act_sign(INF), 1.0f, "sign(inf)");
    same(tg_act_erf(INF), 1.0f, "erf(inf)");
    same(tg_act_erf(-INF), -1.0f, "erf(-inf)");
    same(tg_act_erf(-0.0f), -0.0f, "erf(-0)");
    same(tg_act_copy(-0.0f), -0.0f, "copy(-0)");
}

/* Large-argument sin (Payne–Hanek path) against libm on a dense sample. */
static void test_sin_big(void **state)
{
    uint32_t u;
    (void)state;
    for (u = 0x49490000u; u < 0x7f800000u; u += 997u) {
        float x = tg_bits_f32(u);
        float want = (float)sin((double)x);
        if (ulp_dist(tg_act_sin(x), want) > 1 || ulp_dist(tg_act_sin(-x), -want) > 1)
            fail_msg("sin(%a) = %a, want %a", (double)x, (double)tg_act_sin(x), (double)want);
    }
}

static void test_table(void **state)
{
    static const char *const names[TG_ACT_COUNT] = {
        "copy", "exp", "log", "tanh", "sigmoid", "relu", "gelu", "gelu_apprx_tanh", "silu",
        "softplus", "square", "sqrt", "rsqrt", "reciprocal", "sin", "abs", "sign", "erf"};
    int f;
    (void)state;
    for (f = 0; f < TG_ACT_COUNT; f++) {
        assert_string_equal(tg_act_name((tg_act_func)f), names[f]);
        assert_int_equal(tg_act_from_name(names[f], strlen(names[f])), f);
    }
    assert_string_equal(tg_act_name(TG_ACT_COUNT), "?");
    assert_int_equal(tg_act_from_name("gelu_apprx", 10), -1);
    assert_int_equal(tg_act_from_name("expo", 4), -1);
    assert_true(isnan(tg_act(TG_ACT_COUNT, 1.0f)));
}

/* The dispatcher and the row helper agree with the inline entry points. */
static void test_dispatch_and_rows(void **state)
{
    enum { N = 513 };
    static float src[N], dst[N];
    const float scale = -1.75f, bias = 0.3125f;
    int f, i;
    char what[64];
    (void)state;
    for (i = 0; i < N; i++)
        src[i] = (float)(i - N / 2) * 0.037f;
    for (f = 0; f < TG_ACT_COUNT; f++) {
        tg_act_row((tg_act_func)f, dst, src, N, scale, bias);
        for (i = 0; i < N; i++) {
            volatile float prod = src[i] * scale; /* two roundings, never fused */
            float x = prod + bias;
            snprintf(what, sizeof what, "%s row[%d]", tg_act_name((tg_act_func)f), i);
            same(dst[i], tg_act((tg_act_func)f, x), what);
        }
    }
    /* in place */
    memcpy(dst, src, sizeof dst);
    tg_act_row(TG_ACT_EXP, dst, dst, N, 1.0f, 0.0f);
    for (i = 0; i < N; i++)
        same(dst[i], tg_act_exp(src[i]), "exp in place");
    same(tg_act(TG_ACT_SIGMOID, 0.25f), tg_act_sigmoid(0.25f), "dispatch sigmoid");
    same(tg_act(TG_ACT_GELU_APPRX_TANH, -1.5f), tg_act_gelu_apprx_tanh(-1.5f), "dispatch gelu_tanh");
}

/* The inline e^x family (tg_math_expv / sigmoidv / siluv) run over a row in
 * this translation unit — where the compiler may vectorize the loop — gives
 * the bits of the out-of-line calls, on a sweep of every 4099th fp32 bit
 * pattern (all signs, NaN, inf, subnormals). */
static void test_inline_rows(void **state)
{
    enum { N = 1024 };
    static float src[N], e[N], sg[N], si[N];
    uint64_t u = 0;
    char what[64];
    (void)state;
    while (u <= 0xffffffffu) {
        int i, n = 0;
        for (; n < N && u <= 0xffffffffu; n++, u += 4099)
            src[n] = tg_bits_f32((uint32_t)u);
        for (i = n; i < N; i++)
            src[i] = 0.0f;
        for (i = 0; i < N; i++) {
            e[i] = tg_math_expv(src[i]);
            sg[i] = tg_math_sigmoidv(src[i]);
            si[i] = tg_math_siluv(src[i]);
        }
        for (i = 0; i < n; i++) {
            snprintf(what, sizeof what, "row exp(0x%08x)", tg_f32_bits(src[i]));
            same(e[i], tg_math_exp(src[i]), what);
            snprintf(what, sizeof what, "row sigmoid(0x%08x)", tg_f32_bits(src[i]));
            same(sg[i], tg_math_sigmoid(src[i]), what);
            snprintf(what, sizeof what, "row silu(0x%08x)", tg_f32_bits(src[i]));
            same(si[i], tg_math_silu(src[i]), what);
        }
    }
}

/* tg_math_exp_dv selects +inf above 1000 and +0 below -1000: what its
 * polynomial path gives at ±1000 itself (e^1000 overflows, e^-1000 rounds
 * to +0), so the select changes no result; and the edges either side. */
static void test_exp_range_ends(void **state)
{
    const double big = 1000.0, nb = nextafter(big, 2000.0), sb = nextafter(big, 0.0);
    (void)state;
    assert_true(isinf(tg_math_exp_dv(big)) && tg_math_exp_dv(big) > 0);
    assert_true(isinf(tg_math_exp_dv(nb)) && tg_math_exp_dv(nb) > 0);
    assert_true(isinf(tg_math_exp_dv(1e300)));
    assert_true(tg_math_exp_dv(-big) == 0.0 && !signbit(tg_math_exp_dv(-big)));
    assert_true(tg_math_exp_dv(-nb) == 0.0 && !signbit(tg_math_exp_dv(-nb)));
    assert_true(tg_math_exp_dv(-1e300) == 0.0 && !signbit(tg_math_exp_dv(-1e300)));
    assert_true(tg_math_exp_dv(-(double)INF) == 0.0);
    assert_true(isinf(tg_math_exp_dv((double)INF)));
    assert_true(isnan(tg_math_exp_dv((double)NAN)));
    /* just inside: finite, e^709.78 is the largest finite double */
    assert_true(isinf(tg_math_exp_dv(sb)));
    assert_true(isfinite(tg_math_exp_dv(709.0)) && tg_math_exp_dv(709.0) > 8.2e307);
    assert_true(tg_math_exp_dv(-744.0) > 0.0 && tg_math_exp_dv(-746.0) == 0.0); /* 2^-1074 = e^-744.44 */
}

/* The fp32 e^x family on tg_math_exp_nd (one scale 2^m, ±inf and +0 past
 * ±128) gives the bits it gave on tg_math_exp_dv: exp, sigmoid, silu and
 * gelu_apprx_tanh against their formulas on tg_math_exp_dv, every 97th fp32
 * bit pattern and every one within 8 of ±128 (the selects) and of exp's fp32
 * ends (88.72 overflows, -103.97 and -87.34: subnormal and normal results).
 * Exhaustive runs over all 2^32 found no difference either. */
static float ref_exp(float x) { return (float)tg_math_exp_dv((double)x); }
static float ref_sigmoid(float x) { return x != x ? x + x : (float)(1.0 / (1.0 + tg_math_exp_dv(-(double)x))); }
static float ref_silu(float x)
{
    float r = (float)((double)x / (1.0 + tg_math_exp_dv(-(double)x)));
    r = x < -200.0f ? -0.0f : r;
    return x != x ? x + x : r;
}
static float ref_gelu_tanh(float x)
{
    double d = x, u = 0x1.9884533d43651p-1 * (d + 0.044715 * d * d * d);
    float r = (float)(d / (1.0 + tg_math_exp_dv(-2.0 * u)));
    r = x > 50.0f ? x : r;
    r = x < -50.0f ? -0.0f : r;
    return x != x ? x + x : r;
}
static uint64_t exp_nd_diffs(float x)
{
    return (uint64_t)(tg_f32_bits(tg_math_expv(x)) != tg_f32_bits(ref_exp(x))) +
           (tg_f32_bits(tg_math_sigmoidv(x)) != tg_f32_bits(ref_sigmoid(x))) +
           (tg_f32_bits(tg_math_siluv(x)) != tg_f32_bits(ref_silu(x))) +
           (tg_f32_bits(tg_math_gelu_tanhv(x)) != tg_f32_bits(ref_gelu_tanh(x)));
}
static void test_exp_one_scale(void **state)
{
    static const float around[] = {128.0f, -128.0f, 88.72f, -103.97f, -87.34f};
    uint64_t bad = 0;
    (void)state;
    for (uint64_t u = 0; u < ((uint64_t)1 << 32); u += 97)
        bad += exp_nd_diffs(tg_bits_f32((uint32_t)u));
    for (size_t i = 0; i < sizeof around / sizeof around[0]; i++)
        for (float x = around[i] - 8.0f; x <= around[i] + 8.0f; x = nextafterf(x, INF))
            bad += exp_nd_diffs(x);
    assert_true(bad == 0);
}

/* Every fp32 argument below -104 gives exp +0 (the activation rows write a
 * block of them without evaluating exp, runtime/tg_ops.c TG_EXP_DEAD): each
 * one in [-128, -104), the rest -inf and a sweep below -128, where the ends
 * select +0. Just above the cut, exp is still positive. */
static void test_exp_dead(void **state)
{
    uint64_t bad = 0;
    (void)state;
    for (float x = -128.0f; x < -104.0f; x = nextafterf(x, INF))
        bad += tg_f32_bits(tg_math_expv(x)) != 0;
    for (uint32_t u = tg_f32_bits(-128.0f); u <= 0xff800000u; u += 977)
        bad += tg_f32_bits(tg_math_expv(tg_bits_f32(u))) != 0;
    bad += tg_f32_bits(tg_math_expv(-INF)) != 0;
    assert_true(bad == 0);
    assert_true(tg_math_expv(-103.9f) > 0.0f);
}

/* tg_math_powv, the branch-free pow that `power` runs, gives the bits of
 * the branchy definition it replaced (ref_pow below, tg_math_pow's former
 * body: the special cases in turn, then exp(b·ln|a|) in double), a NaN's
 * payload aside (a + b of two NaNs: either operand's, as the compiler
 * orders them): every pair of specials, every 4099th a for b of either sign,
 * whole and odd, fractional, tiny and huge, also through an AVX-512 row loop
 * (tensor_scalar's form, b the same for the row) where the CPU has it, and 2
 * million random pairs. Exhaustive runs over every a for b = 2, 0.5, -1
 * and 3, and 200 million random pairs, agreed (docs/numerics.md). */
static float ref_pow(float a, float b)
{
    const float inf = tg_bits_f32(0x7f800000u);
    double ad = a < 0 ? -(double)a : (double)a, r;
    int b_int = 0, b_odd = 0;
    if (b == 0.0f)
        return 1.0f;
    if (a == 1.0f)
        return 1.0f;
    if (a != a || b != b)
        return a + b;
    {
        float bb = b < 0 ? -b : b;
        if (bb >= 0x1p24f) {
            b_int = 1;
        } else if (bb != inf) {
            int64_t bi = (int64_t)bb; /* |b| < 2^24: in range */
            b_int = (float)bi == bb;
            b_odd = b_int && (bi & 1);
        }
    }
    if (b == inf || b == -inf) {
        if (a == -1.0f)
            return 1.0f;
        return (ad < 1.0) == (b < 0) ? inf : 0.0f;
    }
    if (a == 0.0f) {
        float z = b < 0 ? inf : 0.0f;
        return b_odd && (tg_f32_bits(a) >> 31) ? -z : z;
    }
    if (a == inf || a == -inf) {
        float z = b < 0 ? 0.0f : inf;
        return a < 0 && b_odd ? -z : z;
    }
    if (a < 0 && !b_int)
        return tg_bits_f32(0x7fc00000u);
    r = tg_math_exp_d((double)b * tg_math_log_d(ad));
    return (float)(a < 0 && b_odd ? -r : r);
}


static int same_pow(float x, float y)
{
    return (x != x && y != y) || tg_f32_bits(x) == tg_f32_bits(y);
}
/* y[i] = pow(x[i], b) as a kernel's element loop runs it (tg_fp.h's options), through memcpy,
 * in an AVX-512 function where gcc builds one (there the loop vectorizes:
 * 16 lanes of the selects and conversions, 8 of the fp64 log and exp). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define POW_ROW_AVX512 1
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl")
__attribute__((noinline)) static void pow_row_avx512(float *y, const float *x, int n, float b)
{
    for (int i = 0; i < n; i++) {
        float v;
        memcpy(&v, x + i, 4);
        v = tg_math_powv(v, b);
        memcpy(y + i, &v, 4);
    }
}
#pragma GCC pop_options
#endif
static void test_pow_selects(void **state)
{
    enum { N = 4099 };
    static const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 2.5f, -2.5f,
                               1e30f, -1e30f, 0x1p24f, -0x1p25f, 0x1p-149f, -0x1p-149f, 16777215.0f, -16777215.0f,
                               INFINITY, -INFINITY, NAN};
    static const float bs[] = {2.0f, 0.5f, -1.0f, 3.0f, -0.5f, 1.5f, -7.0f, 1e-3f, 100.0f, 0x1p24f, -0x1p25f};
    static float x[N], y[N];
    const int n = (int)(sizeof sp / sizeof sp[0]);
    uint64_t bad = 0, s = 0x9e3779b97f4a7c15ull;
    (void)state;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            bad += !same_pow(tg_math_powv(sp[i], sp[j]), ref_pow(sp[i], sp[j]));
    for (size_t k = 0; k < sizeof bs / sizeof bs[0]; k++)
        for (uint64_t u0 = 0; u0 < ((uint64_t)1 << 32); u0 += (uint64_t)4099 * N) {
            int m = 0;
            for (uint64_t u = u0; m < N && u < ((uint64_t)1 << 32); u += 4099)
                x[m++] = tg_bits_f32((uint32_t)u);
            for (int i = 0; i < m; i++)
                y[i] = tg_math_powv(x[i], bs[k]);
            for (int i = 0; i < m; i++)
                bad += !same_pow(y[i], ref_pow(x[i], bs[k]));
#ifdef POW_ROW_AVX512
            if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
                pow_row_avx512(y, x, m, bs[k]);
                for (int i = 0; i < m; i++)
                    bad += !same_pow(y[i], ref_pow(x[i], bs[k]));
            }
#endif
        }
    for (int i = 0; i < 2000000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        float a = tg_bits_f32((uint32_t)s), b = tg_bits_f32((uint32_t)(s >> 32));
        if (i % 3 == 0)
            b = (float)((int)(s >> 40) % 41 - 20) * (i % 2 ? 0.5f : 1.0f);
        bad += !same_pow(tg_math_powv(a, b), ref_pow(a, b));
    }
    assert_true(bad == 0);
}

/* tg_math_logv, tg_math_rsqrtv, tg_math_tanhv and tg_math_softplusv, the
 * branch-free forms a row vectorizes, give the bits of the branchy
 * definitions they replaced (ref_log, ref_rsqrt, ref_tanh, ref_softplus:
 * the former bodies of tg_math_log, tg_math_rsqrt, tg_math_tanh and
 * tg_math_softplus, with tg_math.c's expm1_d and log1p_d): every 4099th
 * fp32 bit pattern and every pattern in [1, 4) (each mantissa at both
 * exponent parities) of either sign, specials among them, and every
 * pattern where tanh's expm1 changes path (|2x| near 0.35). Exhaustive runs
 * over all 2^32 agreed (docs/numerics.md). */
static float ref_log(float x)
{
    if (x != x)
        return x + x;
    if (x < 0.0f)
        return tg_bits_f32(0x7fc00000u);
    if (x == 0.0f)
        return -INFINITY;
    if (x == INFINITY)
        return x;
    return (float)tg_math_log_d(x);
}
static float ref_rsqrt(float x)
{
    double d = x, y;
    uint64_t u;
    if (x != x)
        return x + x;
    if (x == 0.0f)
        return tg_f32_bits(x) >> 31 ? -INFINITY : INFINITY;
    if (x < 0.0f)
        return tg_bits_f32(0x7fc00000u);
    if (x == INFINITY)
        return 0.0f;
    memcpy(&u, &d, 8);
    u = 0x5fe6eb50c7b537a9ull - (u >> 1);
    memcpy(&y, &u, 8);
    for (int i = 0; i < 4; i++)
        y = y * (1.5 - 0.5 * d * y * y);
    return (float)y;
}
static double ref_expm1(double x)
{
    static const double c[14] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
                                 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0};
    if (x > -0.35 && x < 0.35) {
        double t = c[13];
        for (int n = 12; n >= 1; n--)
            t = c[n] + x * t;
        return x * t;
    }
    return tg_math_exp_d(x) - 1.0;
}
static float ref_tanh(float x)
{
    double em, d = x;
    if (x != x)
        return x + x;
    d = d > 20.0 ? 20.0 : (d < -20.0 ? -20.0 : d);
    em = ref_expm1(2.0 * d);
    return (float)(em / (em + 2.0));
}
static float ref_softplus(float x)
{
    double d = x, pos = d > 0.0 ? d : 0.0, neg = d > 0.0 ? -d : d, y, u;
    if (x != x)
        return x + x;
    y = tg_math_exp_d(neg);
    u = 1.0 + y;
    return (float)(pos + (u == 1.0 ? y : tg_math_log_d(u) * (y / (u - 1.0))));
}
static uint64_t branchfree_bad(float x)
{
    return (tg_f32_bits(tg_math_logv(x)) != tg_f32_bits(ref_log(x))) +
           (tg_f32_bits(tg_math_rsqrtv(x)) != tg_f32_bits(ref_rsqrt(x))) +
           (tg_f32_bits(tg_math_tanhv(x)) != tg_f32_bits(ref_tanh(x))) +
           (tg_f32_bits(tg_math_softplusv(x)) != tg_f32_bits(ref_softplus(x)));
}
static void test_branchfree_selects(void **state)
{
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -1.0f, 0x1p-149f, 0x1p127f, 3.4028235e38f,
                               20.0f, -20.0f, 9.1f, 0.175f, -0.175f, 88.8f, -88.8f, -104.0f, -1000.0f};
    uint64_t bad = 0;
    (void)state;
    for (uint64_t u = 0; u < ((uint64_t)1 << 32); u += 4099)
        bad += branchfree_bad(tg_bits_f32((uint32_t)u));
    for (uint32_t u = tg_f32_bits(1.0f); u < tg_f32_bits(4.0f); u++)
        bad += branchfree_bad(tg_bits_f32(u)) + branchfree_bad(-tg_bits_f32(u));
    for (uint32_t u = tg_f32_bits(0.17f); u < tg_f32_bits(0.18f); u++)
        bad += branchfree_bad(tg_bits_f32(u)) + branchfree_bad(-tg_bits_f32(u));
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
        bad += branchfree_bad(sp[i]);
    assert_true(bad == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp_range_ends),
        cmocka_unit_test(test_exp_one_scale),
        cmocka_unit_test(test_exp_dead),
        cmocka_unit_test(test_pow_selects),
        cmocka_unit_test(test_branchfree_selects),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_header_bounds),
        cmocka_unit_test(test_sqrt_correct),
        cmocka_unit_test(test_sin_big),
        cmocka_unit_test(test_dispatch_and_rows),
        cmocka_unit_test(test_inline_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#include "tg_fp_end.h"
