/* tg_math.h — activation functions of the Scalar engine (SPEC.md §2) on fp32,
 * with the runtime's own implementations (no libm): the table of functions
 * (enum, names, dispatcher, row helper) and a static inline entry point per
 * function. Freestanding C99; the out-of-line cores include tg_fp.h (no FMA
 * contraction whatever the flags), so results are bit-identical on every host.
 *
 * Semantics: every function takes the fp32 input exactly as given — outside
 * NKI's documented valid input ranges (log [2^-64, 2^64], sin [-π, π],
 * sqrt [2^-116, 2^118], rsqrt [2^-87, 2^97], reciprocal ±[2^-42, 2^42]) the
 * hardware's output is unspecified; we return the mathematically correct
 * value everywhere instead (IEEE specials: log(0) = -inf, log(<0) = NaN,
 * sqrt(-0) = -0, rsqrt(±0) = ±inf, sin(±inf) = NaN). NaN in → quiet NaN out.
 *   relu(x) = x > 0 ? x : +0 (NaN → NaN);  sign(±0) = ±0, sign(x) = ±1;
 *   gelu = x·Φ(x) (erf form); gelu_apprx_tanh = 0.5x(1 + tanh(√(2/π)(x +
 *   0.044715x³))); silu = x·sigmoid(x); softplus = ln(1 + e^x).
 *
 * Accuracy — error in ulps of fp32 against libm's fp64 result rounded to fp32
 * (the correctly rounded value, to fp64's accuracy). Columns: the bound we
 * state (asserted by tests/unit/test_math.c on a sampled sweep), then the max
 * measured by `make bench-rt` (tools/ulp_measure.c, every 61st fp32 bit
 * pattern of the domain, ~70 M inputs per function), then the domain.
 * Evaluation is in fp64, so a result misrounds only within ~1e-15 of a
 * midpoint: none was found in the sweep, hence measured 0 but bound 1.
 *   TG_ULP_TABLE_BEGIN   bound  measured  domain
 *   exp                  1      0         all finite fp32
 *   log                  1      0         all positive fp32
 *   tanh                 1      0         all finite fp32
 *   sigmoid              1      0         all finite fp32
 *   gelu                 1      0         all finite fp32
 *   gelu_apprx_tanh      1      0         all finite fp32
 *   silu                 1      0         all finite fp32
 *   softplus             1      0         all finite fp32
 *   sqrt                 0      0         all non-negative (exact integer sqrt)
 *   rsqrt                1      0         all positive fp32
 *   reciprocal           0      0         all finite (IEEE division)
 *   sin                  1      0         all finite (Payne-Hanek, |x| >= 823549)
 *   erf                  1      0         all finite fp32
 *   square copy relu abs sign: exact
 *   TG_ULP_TABLE_END
 */
#ifndef TG_MATH_H
#define TG_MATH_H

#include <stddef.h>
#include <stdint.h>

/* X(ENUM_SUFFIX, spec_name), in SPEC.md §2 order. */
#define TG_ACT_FUNCS(X)                                                         \
    X(COPY, copy) X(EXP, exp) X(LOG, log) X(TANH, tanh) X(SIGMOID, sigmoid)     \
    X(RELU, relu) X(GELU, gelu) X(GELU_APPRX_TANH, gelu_apprx_tanh)             \
    X(SILU, silu) X(SOFTPLUS, softplus) X(SQUARE, square) X(SQRT, sqrt)         \
    X(RSQRT, rsqrt) X(RECIPROCAL, reciprocal) X(SIN, sin) X(ABS, abs)           \
    X(SIGN, sign) X(ERF, erf)

typedef enum tg_act_func {
#define TG_ACT_ENUM(ID, id) TG_ACT_##ID,
    TG_ACT_FUNCS(TG_ACT_ENUM)
#undef TG_ACT_ENUM
    TG_ACT_COUNT
} tg_act_func;

/* Spec spelling of `f`; "?" when out of range. */
const char *tg_act_name(tg_act_func f);
/* The function spelled by the `len` bytes at `s`, or -1. */
int tg_act_from_name(const char *s, size_t len);
/* Dispatcher: f(x); NaN for an out-of-range f. */
float tg_act(tg_act_func f, float x);
/* dst[i] = f(src[i]·scale + bias) — the Scalar engine's activation with two
 * fp32 roundings (multiply, then add; never fused). dst may equal src. */
void tg_act_row(tg_act_func f, float *dst, const float *src, size_t n, float scale, float bias);

/* Out-of-line cores (tg_math.c). */
float tg_math_exp(float x);
float tg_math_log(float x);
float tg_math_tanh(float x);
float tg_math_sigmoid(float x);
float tg_math_gelu(float x);
float tg_math_gelu_tanh(float x);
float tg_math_silu(float x);
float tg_math_softplus(float x);
float tg_math_sqrt(float x);
float tg_math_rsqrt(float x);
float tg_math_sin(float x);
float tg_math_erf(float x);
/* C99 Annex F pow on fp32 (for the ALU's `power`). */
float tg_math_pow(float a, float b);
/* fp64 helpers shared with other runtime modules: e^x, ln x (x > 0), erf. */
double tg_math_exp_d(double x);
double tg_math_log_d(double x);
double tg_math_erf_d(double x);
/* Spec number fields (SPEC.md §2.1) in fp64, one definition for check, the C
 * simulation and the ISS: the floored remainder. C's remainder (fmod, exact)
 * m of a by b, then m + b when m is nonzero and its sign differs from b's
 * (that sum rounds); a zero keeps a's sign. NaN when a is infinite, b is 0
 * or either is NaN; for an infinite b, a itself or (signs differing) b. */
#if defined(__GNUC__)
/* a function of its arguments alone, so a float field's value inside a
 * partition loop is computed once, before it (bench/probes b03: 1/count of a
 * ragged window, 128 evaluations of four calls each a window) */
__attribute__((const))
#endif
double tg_math_mod_floor_d(double a, double b);
static inline double tg_math_min_d(double a, double b) { return a < b ? a : b; }
static inline double tg_math_max_d(double a, double b) { return a > b ? a : b; }

/* ---- per-function entry points -------------------------------------------- */
typedef union tg_math_f32u {
    float f;    /* value */
    uint32_t u; /* bits */
} tg_math_f32u;

/* ---- e^x and the functions built on it, inline ----------------------------
 * Branch-free, so a loop over a row of them vectorizes (SSE2/AVX2/AVX-512
 * gathers the table). They are the only implementation: tg_math_exp,
 * tg_math_exp_d, tg_math_sigmoid and tg_math_silu call them, so the accuracy
 * table above measures exactly this code. Each fp operation is its own
 * statement and the runtime and generated kernels include tg_fp.h first, so
 * nothing is fused into an FMA there. Other includers get the runtime's bits
 * when they do not contract across statements (gcc -std=c99/c11 or
 * -ffp-contract=off; clang's default contracts within an expression only). */
extern const double tg_math_exp_tab[32]; /* 2^(i/32), i = 0..31 */
extern const double tg_math_inv_fact[18]; /* 1/n!, n = 0..17 */

typedef union tg_math_f64u {
    double d;   /* value */
    uint64_t u; /* bits */
} tg_math_f64u;

/* 2^n for n in [-1022, 1023] (any n: defined, but meaningless). */
static inline double tg_math_pow2i(int32_t n)
{
    tg_math_f64u v;
    v.u = (uint64_t)((int64_t)n + 1023) << 52;
    return v.d;
}

/* e^x in double, relative error ~1e-15. x = (32m + j + r')·ln2/32 with
 * |r| ≤ ln2/64; e^r by a degree-5 Taylor polynomial (tail < 3e-15). The
 * reduction and polynomial: returns 2^(j/32)·e^r and sets *mb = m + 2^46.
 * Every step is an operation on all lanes and the out-of-range cases are
 * selected at the end (by the callers), so a loop of them vectorizes: the
 * integer parts are 64-bit (SSE2 has no 64-bit compare; the table index a
 * 64-bit lane) and there is no clamp (gcc threads a clamp into branches). */
static inline double tg_math_exp_core(double x, uint64_t *mb)
{
    const double ln2_32_hi = 0x1.62e42ff000000p-6; /* 32 bits: k*hi exact */
    const double ln2_32_lo = -0x1.718432a1b0e26p-40;
    const double shift = 0x1.8p52; /* adding it rounds to an integer (RNE) */
    tg_math_f64u kb;
    double kd, r, t, p;
    uint64_t kbias;
    kd = x * 0x1.71547652b82fep+5;
    kd = kd + shift;
    kb.d = kd;
    kd = kd - shift;
    t = kd * ln2_32_hi;
    r = x - t;
    t = kd * ln2_32_lo;
    r = r - t;
    p = r * (1.0 / 120);
    p = p + 1.0 / 24;
    p = r * p;
    p = p + 1.0 / 6;
    p = r * p;
    p = p + 1.0 / 2;
    p = r * p;
    p = p + 1.0;
    p = r * p;
    p = p + 1.0;
    /* kd + shift has mantissa field 2^51 + k, k = round(x·32/ln2), |k| < 2^16
     * for |x| ≤ 1000; j = k mod 32 and m = (k - j)/32 = floor(k/32), biased: */
    kbias = kb.u & (((uint64_t)1 << 52) - 1);
    *mb = kbias >> 5; /* m + 2^46, so bit 46 is set iff m >= 0 */
    return tg_math_exp_tab[kbias & 31] * p;
}

/* e^x's ends, selected after the arithmetic (so a row vectorizes): s (x's
 * scaled value) for |x| ≤ lim, +inf above, +0 below, NaN propagated (x + x). */
static inline double tg_math_exp_ends(double x, double s, double lim)
{
    tg_math_f64u inf;
    double t;
    inf.u = (uint64_t)0x7ff << 52;
    s = x > lim ? inf.d : s;
    s = x < -lim ? 0.0 : s;
    t = x + x;
    return x != x ? t : s;
}

/* e^x in double. Above 1000 the result is +inf, below -1000 +0 (what the
 * polynomial path gives at ±1000: e^1000 overflows a double, e^-1000 rounds
 * to +0; test_math.c checks both); NaN propagates (x + x). 2^m is applied as
 * 2^m1 · 2^(m-m1), each a normal double for |x| ≤ 1000. For |x| ≤ 1000 the
 * arithmetic is that of a clamp-first version, so every result bit is as
 * before. */
static inline double tg_math_exp_dv(double x)
{
    const uint64_t b45 = (uint64_t)1 << 45;
    tg_math_f64u e1, e2;
    uint64_t mb, m1b;
    double s = tg_math_exp_core(x, &mb);
    m1b = (mb + (1 - (mb >> 46))) >> 1; /* m1 + 2^45, m1 = m/2 rounded toward zero */
    e1.u = (m1b - b45 + 1023) << 52;    /* 2^m1 */
    e2.u = (mb - m1b - b45 + 1023) << 52; /* 2^(m - m1) */
    s = s * e1.d;
    s = s * e2.d;
    return tg_math_exp_ends(x, s, 1000.0);
}

/* e^x in double for the callers that round to fp32: for |x| ≤ 128 the
 * operations of tg_math_exp_dv, but 2^m in one multiply (|m| ≤ 185: 2^m and
 * the product are normal doubles, so (s·2^m1)·2^(m-m1) = s·2^m exactly);
 * beyond, +inf and +0 (e^128 > 2^184, e^-128 < 2^-184), where tg_math_exp_dv
 * gives a finite value up to ±1000. Each caller below rounds to the same fp32
 * either way (x/(1 + e) of a finite x: ±0 or x), so its bits are those with
 * tg_math_exp_dv for every fp32 input (test_math.c sweeps them; exhaustive
 * runs agreed), in ~10 % less time on a row. */
static inline double tg_math_exp_nd(double x)
{
    tg_math_f64u e;
    uint64_t mb;
    double s = tg_math_exp_core(x, &mb);
    e.u = (mb - ((uint64_t)1 << 46) + 1023) << 52; /* 2^m */
    s = s * e.d;
    return tg_math_exp_ends(x, s, 128.0);
}

/* e^x on fp32 (one rounding of the fp64 value). */
static inline float tg_math_expv(float x) { return (float)tg_math_exp_nd((double)x); }

/* 1 / (1 + e^-x) in fp64, rounded once. */
static inline float tg_math_sigmoidv(float x)
{
    double e = tg_math_exp_nd(-(double)x);
    e = 1.0 + e;
    float r = (float)(1.0 / e);
    float n = x + x;
    return x != x ? n : r;
}

/* x / (1 + e^-x) in fp64, rounded once; below -200 it rounds to -0. */
static inline float tg_math_siluv(float x)
{
    double d = x;
    double e = tg_math_exp_nd(-d);
    e = 1.0 + e;
    float r = (float)(d / e);
    float n = x + x;
    r = x < -200.0f ? -0.0f : r;
    return x != x ? n : r;
}

/* GELU, tanh form: 0.5x(1 + tanh(u)) = x·sigmoid(2u), u = √(2/π)(x +
 * 0.044715x³), in fp64, rounded once; x below -50 gives -0, above 50 x.
 * Without a branch, so a row of it vectorizes (tg_activation_f32_row). */
static inline float tg_math_gelu_tanhv(float x)
{
    double d = x;
    double u = 0x1.9884533d43651p-1 * (d + 0.044715 * d * d * d);
    float r = (float)(d / (1.0 + tg_math_exp_nd(-2.0 * u)));
    float n = x + x;
    r = x > 50.0f ? x : r;
    r = x < -50.0f ? -0.0f : r;
    return x != x ? n : r;
}

/* Inlined wherever called, also past gcc's size limit (pow, and tg_alu.h's
 * power ops on it): a caller in an AVX2 or AVX-512 body (a generated
 * kernel's, the int32 rows') would otherwise call a copy built for the
 * baseline, its loop no longer vectorized, with the vector registers' upper
 * halves dirty (tools/simd_clean.sh). */
#if defined(__GNUC__)
#define TG_MATH_INLINE __attribute__((always_inline)) static inline
#else
#define TG_MATH_INLINE static inline
#endif

/* 1 when a or b is NaN: one unordered compare where the compiler has it.
 * gcc 12 vectorizes no select on (a != a) | (b != b) with b loop-invariant
 * (a tensor_scalar's [P,1] operand): the OR of an invariant boolean and a
 * vector mask is no operation it has, so the loop ran scalar (bench/probes
 * w05_clamp_cast, maximum and minimum against per-row bounds: 8.1 -> 1.33 ms). */
#if defined(__GNUC__)
#define TG_UNORDERED(a, b) __builtin_isunordered(a, b)
#else
#define TG_UNORDERED(a, b) (((a) != (a)) | ((b) != (b)))
#endif

/* ln x in double for a positive normal double x (every |a| of a nonzero
 * finite fp32 a): tg_math_log_d's operations, the mantissa's halving a
 * select rather than a branch, so a row of them vectorizes. Its other
 * inputs give some finite value or NaN, never a trap. */
TG_MATH_INLINE double tg_math_log_dn(double x)
{
    const double ln2_hi = 0x1.62e42ff000000p-1, ln2_lo = -0x1.718432a1b0e26p-35;
    tg_math_f64u v, mm, eb;
    double m, h, f, t, s, z, w, ed, p, q;
    v.d = x;
    /* the exponent e as a double, exactly, without an int64 conversion (a
     * row without AVX-512DQ vectorizes none): its field as the low bits of
     * 2^52's mantissa, less 2^52 + 1023, plus 1 for the halved mantissa */
    eb.u = (v.u >> 52) | 0x4330000000000000ull;
    ed = eb.d - 0x1p52;
    ed = ed - 1023.0;
    mm.u = (v.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull; /* [1,2) */
    m = mm.d;
    h = m * 0.5;
    ed = ed + (m > 0x1.6a09e667f3bcdp+0 ? 1.0 : 0.0);
    m = m > 0x1.6a09e667f3bcdp+0 ? h : m;
    f = m - 1.0;
    t = 2.0 + f;
    s = f / t;
    z = s * s;
    w = 1.0 / 23;
#define TG_LOG_STEP(n) t = z * w; w = 1.0 / (n) + t;
    TG_LOG_STEP(21) TG_LOG_STEP(19) TG_LOG_STEP(17) TG_LOG_STEP(15) TG_LOG_STEP(13) TG_LOG_STEP(11)
    TG_LOG_STEP(9) TG_LOG_STEP(7) TG_LOG_STEP(5) TG_LOG_STEP(3) TG_LOG_STEP(1)
#undef TG_LOG_STEP
    p = ed * ln2_hi;
    q = ed * ln2_lo;
    t = 2.0 * s;
    t = t * w;
    q = q + t;
    return p + q;
}

/* ln x on fp32 (tg_math_log): tg_math_log_dn rounded once for every lane
 * (a positive finite fp32 is a normal double, where it is tg_math_log_d's
 * arithmetic), then the special cases selected over it: +inf gives +inf,
 * ±0 -inf, a negative x the canonical NaN, a NaN x + x. Without a branch,
 * so a row of it vectorizes (tg_activation_f32_row); every fp32 gives the
 * former branchy form's bits (exhaustive run, docs/numerics.md). */
TG_MATH_INLINE float tg_math_logv(float x)
{
    tg_math_f32u inf, nan;
    float r = (float)tg_math_log_dn((double)x), n = x + x;
    inf.u = 0x7f800000u;
    nan.u = 0x7fc00000u;
    r = x == 0.0f ? -inf.f : r;
    r = x < 0.0f ? nan.f : r;
    r = x == inf.f ? x : r;
    return x != x ? n : r;
}

/* 1/√x on fp32 (tg_math_rsqrt): an initial guess from the exponent (3.4 %
 * off at worst), then four Newton steps y ← y(3 − x y²)/2 in double, each
 * squaring the error (a fifth changed no result over every positive float;
 * three change 231434), rounded once; for every lane, then the special
 * cases selected over it: ±0 gives ±inf, +inf +0, a negative x the
 * canonical NaN, a NaN x + x. Without a branch, so a row of it vectorizes;
 * every fp32 gives the former branchy form's bits (exhaustive run). */
TG_MATH_INLINE float tg_math_rsqrtv(float x)
{
    tg_math_f32u inf, nan, zs;
    tg_math_f64u v;
    double d = x, y, t;
    float r, n = x + x;
    v.d = d;
    v.u = 0x5fe6eb50c7b537a9ull - (v.u >> 1);
    y = v.d;
#define TG_RSQRT_STEP t = 0.5 * d; t = t * y; t = t * y; t = 1.5 - t; y = y * t;
    TG_RSQRT_STEP TG_RSQRT_STEP TG_RSQRT_STEP TG_RSQRT_STEP /* written out: a loop here keeps a row scalar */
#undef TG_RSQRT_STEP
    r = (float)y;
    inf.u = 0x7f800000u;
    nan.u = 0x7fc00000u;
    zs.f = x;
    zs.u = (zs.u & 0x80000000u) | inf.u; /* ±inf with x's sign */
    r = x == 0.0f ? zs.f : r;
    r = x < 0.0f ? nan.f : r;
    r = x == inf.f ? 0.0f : r;
    return x != x ? n : r;
}

/* tanh on fp32 (tg_math_tanh): u = 2x, x clamped to ±20 (tanh(9.1) is 1.0f
 * already), then e^u − 1 without cancellation near 0 (tg_math.c expm1_d:
 * the degree-13 Taylor polynomial for |u| < 0.35, e^u − 1 beyond; e^u by
 * tg_math_exp_nd, tg_math_exp_dv's result for |u| ≤ 128), and em/(em + 2)
 * rounded once. Both of expm1's paths on every lane and the one it takes
 * selected, so a row of it vectorizes; every fp32 gives the former
 * branchy form's bits (exhaustive run, docs/numerics.md). */
TG_MATH_INLINE float tg_math_tanhv(float x)
{
    double d = x, u, t, big, sel;
    float r, n = x + x;
    d = d > 20.0 ? 20.0 : d;
    d = d < -20.0 ? -20.0 : d;
    u = 2.0 * d;
    t = tg_math_inv_fact[13]; /* 1/13!, then Horner down to 1/1! */
#define TG_TANH_STEP(n) t = u * t; t = tg_math_inv_fact[n] + t;
    TG_TANH_STEP(12) TG_TANH_STEP(11) TG_TANH_STEP(10) TG_TANH_STEP(9) TG_TANH_STEP(8) TG_TANH_STEP(7)
    TG_TANH_STEP(6) TG_TANH_STEP(5) TG_TANH_STEP(4) TG_TANH_STEP(3) TG_TANH_STEP(2) TG_TANH_STEP(1)
#undef TG_TANH_STEP
    t = u * t;
    big = tg_math_exp_nd(u);
    big = big - 1.0;
    sel = u < 0.35 ? t : big; /* the polynomial for -0.35 < u < 0.35 */
    t = u > -0.35 ? sel : big;
    u = t + 2.0;
    r = (float)(t / u);
    return x != x ? n : r;
}

/* softplus on fp32 (tg_math_softplus): max(x, 0) + ln(1 + e^-|x|) in double,
 * rounded once; ln(1 + y) as tg_math.c log1p_d (y itself where 1 + y
 * rounds to 1, else ln(1 + y)·y/((1 + y) − 1)), by tg_math_log_dn (1 + y
 * is in [1, 2]). Both of log1p's paths on every lane and the one it takes
 * selected, so a row of it vectorizes; every fp32 gives the former
 * branchy form's bits (exhaustive run). */
TG_MATH_INLINE float tg_math_softplusv(float x)
{
    double d = x, pos = d > 0.0 ? d : 0.0, neg = d > 0.0 ? -d : d, y, u, l, q;
    float r, n = x + x;
    y = tg_math_exp_dv(neg);
    u = 1.0 + y;
    l = tg_math_log_dn(u);
    q = u - 1.0;
    q = y / q;
    l = l * q;
    l = u == 1.0 ? y : l;
    r = (float)(pos + l);
    return x != x ? n : r;
}

/* C99 Annex F pow on fp32 operands, exp(b·ln|a|) in double rounded once,
 * without a branch: the main path for every lane, then the special cases
 * selected over it, the first of them in tg_math_pow's order last (b = 0,
 * a = 1, a NaN operand, b = ±inf, a = ±0, a = ±inf, a < 0 with b not an
 * integer). The bits of the branchy form (test_math.c test_pow_selects;
 * exhaustive runs over every a for several b), so a row of `power`
 * vectorizes: bench/probes t05. */
TG_MATH_INLINE float tg_math_powv(float a, float b)
{
    tg_math_f32u iv, nv, av, zv, yv;
    uint32_t m;
    const float bb = b < 0 ? -b : b;
    const float bc = bb < 0x1p24f ? bb : 0.0f; /* |b| < 2^24 (not NaN): in int64's range */
    const int64_t bi = (int64_t)bc;
    const int small = bb < 0x1p24f, whole = (float)bi == bb;
    const int b_int = (bb >= 0x1p24f) | (small & whole);
    const int b_odd = small & whole & (int)(bi & 1);
    const int neg = (a < 0) & b_odd;
    const double ad = a < 0 ? -(double)a : (double)a;
    double r = tg_math_exp_dv((double)b * tg_math_log_dn(ad));
    float y, z;
    iv.u = 0x7f800000u;
    nv.u = 0x7fc00000u;
    av.f = a;
    r = neg ? -r : r;
    y = (float)r;
    y = ((a < 0) & !b_int) ? nv.f : y;
    z = b < 0 ? 0.0f : iv.f; /* a = ±inf */
    z = neg ? -z : z;
    y = ((a == iv.f) | (a == -iv.f)) ? z : y;
    z = b < 0 ? iv.f : 0.0f; /* a = ±0 */
    z = (b_odd & (int)(av.u >> 31)) ? -z : z;
    y = a == 0.0f ? z : y;
    z = (ad < 1.0) == (b < 0) ? iv.f : 0.0f; /* b = ±inf */
    z = a == -1.0f ? 1.0f : z;
    /* conditions on b alone select by masks: b is the same for a whole
     * row (tensor_scalar), and gcc 12 vectorizes no ?: whose condition is
     * loop-invariant and whose values are not */
    m = 0u - (uint32_t)((b == iv.f) | (b == -iv.f));
    zv.f = z;
    yv.f = y;
    yv.u = (zv.u & m) | (yv.u & ~m);
    y = yv.f;
    y = TG_UNORDERED(a, b) ? a + b : y;
    y = a == 1.0f ? 1.0f : y;
    m = 0u - (uint32_t)(b == 0.0f);
    zv.f = 1.0f;
    yv.f = y;
    yv.u = (zv.u & m) | (yv.u & ~m);
    return yv.f;
}

/* The one NaN that arithmetic produces: quiet, positive, zero payload. IEEE
 * leaves open which NaN an operation returns (x86 keeps the first NaN
 * operand, or makes a negative default NaN; the operand order is the
 * compiler's choice), so a NaN result of an engine's arithmetic is this one:
 * the C simulation, the ISS and every host then agree bit for bit (SPEC.md
 * §5). Moves (DMA, tensor_copy, casts) and abs keep a NaN's bits. */
#define TG_NAN_CANON_BITS 0x7fc00000u
static inline float tg_nan_canon(float r)
{
    tg_math_f32u v;
    v.u = TG_NAN_CANON_BITS;
    return r != r ? v.f : r;
}

static inline float tg_act_copy(float x) { return x; }
static inline float tg_act_exp(float x) { return tg_math_expv(x); }
static inline float tg_act_log(float x) { return tg_math_logv(x); }
static inline float tg_act_tanh(float x) { return tg_math_tanhv(x); }
static inline float tg_act_sigmoid(float x) { return tg_math_sigmoidv(x); }
static inline float tg_act_relu(float x) { return x > 0.0f ? x : (x != x ? tg_nan_canon(x) : 0.0f); }
static inline float tg_act_gelu(float x) { return tg_math_gelu(x); }
static inline float tg_act_gelu_apprx_tanh(float x) { return tg_math_gelu_tanhv(x); }
static inline float tg_act_silu(float x) { return tg_math_siluv(x); }
/* inlined wherever called (TG_MATH_INLINE): the AVX-512 softplus row calls it
 * for its flagged lanes and its tail, where gcc took a baseline copy */
TG_MATH_INLINE float tg_act_softplus(float x) { return tg_math_softplusv(x); }
static inline float tg_act_square(float x) { return x * x; }
static inline float tg_act_sqrt(float x) { return tg_math_sqrt(x); }
static inline float tg_act_rsqrt(float x) { return tg_math_rsqrtv(x); }
static inline float tg_act_reciprocal(float x) { return tg_nan_canon(1.0f / x); }
static inline float tg_act_sin(float x) { return tg_math_sin(x); }
static inline float tg_act_abs(float x)
{
    tg_math_f32u v;
    v.f = x;
    v.u &= 0x7fffffffu;
    return v.f;
}
static inline float tg_act_sign(float x)
{
    return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x + x); /* ±0 and NaN pass */
}
static inline float tg_act_erf(float x) { return tg_math_erf(x); }

#endif /* TG_MATH_H */
