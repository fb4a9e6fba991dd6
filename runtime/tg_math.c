/* tg_math.c — the runtime's own transcendental functions (no libm): exp, log,
 * expm1/log1p helpers, sin, erf/erfc, sqrt, rsqrt, pow, and the activation
 * functions built on them. Each fp32 function evaluates in fp64 with range
 * reduction + polynomial (or series / continued fraction) and rounds once to
 * fp32, so results are within ~1 ulp of the correctly rounded value; sqrt is
 * exact (integer square root). tg_fp.h forbids FMA contraction: bit-identical
 * on every host, whatever the flags. Measured accuracy: tg_math.h and docs/numerics.md. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_math.h"

#include "tg_dtype.h"

/* ---- double bit casts ---------------------------------------------------- */
typedef union tg_f64u {
    double d;   /* the value */
    uint64_t u; /* its binary64 bits */
} tg_f64u;

static uint64_t d_bits(double d) { tg_f64u v; v.d = d; return v.u; }
static double bits_d(uint64_t u) { tg_f64u v; v.u = u; return v.d; }

static const double TG_SHIFT = 0x1.8p52; /* adding it rounds to an integer (RNE) */

/* 2^(i/32), i = 0..31, correctly rounded (tg_math_exp_dv in tg_math.h). */
const double tg_math_exp_tab[32] = {
    0x1.0000000000000p+0, 0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0,
    0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0, 0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0,
    0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0, 0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
    0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0, 0x1.6247eb03a5585p+0,
    0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0, 0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
    0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0,
    0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0,
    0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0, 0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0,
};

double tg_math_exp_d(double x) { return tg_math_exp_dv(x); }

/* 1/n!, n = 0..17 (constant-folded, correctly rounded; tg_math_inv_fact in tg_math.h). */
const double tg_math_inv_fact[18] = {
    1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
    1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0,
    1.0 / 87178291200.0, 1.0 / 1307674368000.0, 1.0 / 20922789888000.0,
    1.0 / 355687428096000.0,
};

/* ln x in double for finite x > 0 (any normal or subnormal double). */
double tg_math_log_d(double x)
{
    const double ln2_hi = 0x1.62e42ff000000p-1, ln2_lo = -0x1.718432a1b0e26p-35;
    uint64_t u = d_bits(x);
    int32_t e;
    double m, f, s, z, w;
    if (u < ((uint64_t)1 << 52)) { /* subnormal double: scale up */
        x *= 0x1p64;
        u = d_bits(x);
        e = -64;
    } else {
        e = 0;
    }
    e += (int32_t)(u >> 52) - 1023;
    m = bits_d((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull); /* [1,2) */
    if (m > 0x1.6a09e667f3bcdp+0) {
        m *= 0.5;
        e += 1;
    }
    f = m - 1.0;          /* exact */
    s = f / (2.0 + f);    /* |s| <= 0.1716 */
    z = s * s;
    /* atanh series: log m = 2s (1 + z/3 + z^2/5 + ... + z^11/23), tail < 1e-18 */
    w = 1.0 / 23;
    {
        int n;
        for (n = 21; n >= 1; n -= 2)
            w = 1.0 / n + z * w;
    }
    return (double)e * ln2_hi + ((double)e * ln2_lo + 2.0 * s * w);
}

/* ---- fp32 functions -------------------------------------------------------*/
float tg_math_exp(float x) { return tg_math_expv(x); }

float tg_math_log(float x) { return tg_math_logv(x); }

float tg_math_tanh(float x) { return tg_math_tanhv(x); }

float tg_math_sigmoid(float x) { return tg_math_sigmoidv(x); }

float tg_math_silu(float x) { return tg_math_siluv(x); }

float tg_math_softplus(float x) { return tg_math_softplusv(x); }

float tg_math_gelu_tanh(float x) { return tg_math_gelu_tanhv(x); }

/* erf(t) by its Maclaurin series, |t| <= 2 (terms decay below 1e-18). */
static double erf_series(double t)
{
    double z = t * t, term = t, sum = t;
    int n;
    for (n = 1; n < 60; n++) {
        term *= -z / n;
        sum += term / (2 * n + 1);
        if (term < 1e-18 && term > -1e-18)
            break;
    }
    return sum * 0x1.20dd750429b6dp+0; /* 2/√π */
}

/* erfc(t) for t > 2 by its continued fraction (Laplace), evaluated backwards
 * with a fixed depth: e^{-t²}/√π · 1/(t + (1/2)/(t + 1/(t + (3/2)/(t + ...)))). */
static double erfc_cf(double t)
{
    double f = t;
    int n;
    if (t > 27.0)
        return 0.0;
    for (n = 120; n >= 1; n--)
        f = t + (n * 0.5) / f;
    return tg_math_exp_d(-t * t) * 0x1.20dd750429b6dp-1 / f;
}

/* erfc(t) for t >= 0. */
static double erfc_pos(double t) { return t <= 2.0 ? 1.0 - erf_series(t) : erfc_cf(t); }

double tg_math_erf_d(double t)
{
    double a = t < 0 ? -t : t, r;
    if (t != t || t == 0.0)
        return t + t; /* NaN, ±0 */
    r = a <= 2.0 ? erf_series(a) : 1.0 - erfc_cf(a);
    return t < 0 ? -r : r;
}

float tg_math_erf(float x) { return (float)tg_math_erf_d(x); }

/* GELU, erf form: x·Φ(x), Φ(x) = erfc(−x/√2)/2 (no cancellation for x < 0). */
float tg_math_gelu(float x)
{
    double d = x, t = d * 0x1.6a09e667f3bcdp-1, phi;
    if (x != x)
        return x + x;
    if (x > 10.0f) /* 1 - Φ(10) < 1e-23 */
        return x;
    if (x < -40.0f)
        return -0.0f;
    phi = t >= 0 ? 1.0 - 0.5 * erfc_pos(t) : 0.5 * erfc_pos(-t);
    return (float)(d * phi);
}

/* sin(r + q·π/2) for |r| <= π/4 by Taylor polynomials (tails < 1e-18). */
static double sin_quadrant(double r, uint32_t q)
{
    double z = r * r, c, s;
    int n;
    if (q & 1u) { /* cos r = 1 - z/2! + z^2/4! - ... + z^8/16! */
        c = tg_math_inv_fact[16];
        for (n = 14; n >= 0; n -= 2)
            c = ((n / 2) & 1 ? -tg_math_inv_fact[n] : tg_math_inv_fact[n]) + z * c;
        s = c;
    } else {      /* sin r = r (1 - z/3! + ... - z^7/15!) */
        c = -tg_math_inv_fact[15];
        for (n = 13; n >= 1; n -= 2)
            c = ((n / 2) & 1 ? -tg_math_inv_fact[n] : tg_math_inv_fact[n]) + z * c;
        s = r * c;
    }
    return q & 2u ? -s : s;
}

/* Cody–Waite reduction by π/2 in three parts (the first two of 33 bits, so
 * k·part is exact for k < 2^20): valid for |x| < 823549. */
static double sin_small(double x)
{
    const double p1 = 0x1.921fb54400000p+0, p2 = 0x1.0b4611a600000p-34,
                 p3 = 0x1.3198a2e037073p-69;
    double kd = x * 0x1.45f306dc9c883p-1 + TG_SHIFT, r;
    uint32_t q = (uint32_t)d_bits(kd) & 3u;
    kd -= TG_SHIFT;
    r = ((x - kd * p1) - kd * p2) - kd * p3;
    return sin_quadrant(r, q);
}

/* 2/π as a binary fraction: bits 1..288 (bit 1 has weight 1/2). */
static const uint32_t tg_two_over_pi[9] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599,
    0x3c439041, 0xfe5163ab, 0xdebbc561, 0xb7246e3a,
};

/* 64 bits of 2/π starting at bit `pos` (bits at pos <= 0 are zero). */
static uint64_t two_over_pi_bits(int32_t pos)
{
    uint32_t w, sh;
    uint64_t v;
    if (pos < 1)
        return 1 - pos >= 64 ? 0 : two_over_pi_bits(1) >> (1 - pos);
    w = (uint32_t)(pos - 1) / 32;
    sh = (uint32_t)(pos - 1) % 32;
    v = ((uint64_t)tg_two_over_pi[w] << 32) | tg_two_over_pi[w + 1];
    if (sh)
        v = (v << sh) | (tg_two_over_pi[w + 2] >> (32 - sh));
    return v;
}

/* Payne–Hanek reduction for any finite float: x = M·2^E with M < 2^24, so
 * x·2/π mod 4 = M·W·2^-126 mod 4, W = 128 bits of 2/π from bit E−1; the low
 * 128 bits of M·W are y mod 4 in 2.126 fixed point. */
static double sin_big(float x)
{
    uint32_t u = tg_f32_bits(x) & 0x7fffffffu, limb[4], k;
    int32_t e = (int32_t)(u >> 23) - 150;
    uint64_t m = (u & 0x7fffffu) | 0x800000u, w_hi, w_lo, c, hi, lo;
    int64_t f;
    double fd, s;
    int i;
    w_hi = two_over_pi_bits(e - 1);
    w_lo = two_over_pi_bits(e + 63);
    limb[0] = (uint32_t)w_lo;
    limb[1] = (uint32_t)(w_lo >> 32);
    limb[2] = (uint32_t)w_hi;
    limb[3] = (uint32_t)(w_hi >> 32);
    c = 0;
    for (i = 0; i < 4; i++) {
        c = m * limb[i] + (c >> 32);
        limb[i] = (uint32_t)c;
    }
    hi = ((uint64_t)limb[3] << 32) | limb[2];
    lo = ((uint64_t)limb[1] << 32) | limb[0];
    k = (uint32_t)((hi + ((uint64_t)1 << 61)) >> 62) & 3u;
    f = (int64_t)(hi - ((uint64_t)k << 62)); /* y − k in [−1/2, 1/2), ·2^62 */
    fd = (double)f * 0x1p-62 + (double)(lo >> 11) * 0x1p-115;
    s = sin_quadrant(fd * 0x1.921fb54442d18p+0, k);
    return tg_f32_bits(x) >> 31 ? -s : s;
}

float tg_math_sin(float x)
{
    if (x != x)
        return x + x;
    if (x == tg_bits_f32(0x7f800000u) || x == -tg_bits_f32(0x7f800000u))
        return tg_bits_f32(0x7fc00000u);
    if (x > 823549.0f || x < -823549.0f)
        return (float)sin_big(x);
    return (float)sin_small(x);
}

/* Correctly rounded sqrt by integer square root: for x = m·2^k (m integer,
 * k even) sqrt(x) = sqrt(m·2^s)·2^((k-s)/2) with m·2^s in [2^46, 2^48), so
 * the integer root q has exactly 24 bits; round up iff the remainder > q
 * (an exact tie is impossible). */
float tg_math_sqrt(float x)
{
    uint32_t u = tg_f32_bits(x), ef = u >> 23, q = 0;
    uint64_t m, rem = 0, bit;
    int32_t k;
    if (x != x)
        return x + x;
    if (x == 0.0f)
        return x; /* ±0 */
    if (u & 0x80000000u)
        return tg_bits_f32(0x7fc00000u);
    if (ef == 255)
        return x; /* +inf */
    m = u & 0x7fffffu;
    if (ef) {
        m |= 0x800000u;
        k = (int32_t)ef - 150;
    } else {
        k = -149;
    }
    while (m < ((uint64_t)1 << 46)) { /* normalise into [2^46, 2^48), k even */
        m <<= 2;
        k -= 2;
    }
    if (k & 1) {
        if (m < ((uint64_t)1 << 47)) {
            m <<= 1;
            k -= 1;
        } else {
            /* m in [2^47, 2^48): shifting left would leave the range; shift
             * right by one is exact only if m is even — it is (m was shifted
             * left by >= 2 above, or has >= 23 trailing bits of room). */
            m >>= 1;
            k += 1;
            if (m < ((uint64_t)1 << 46)) {
                m <<= 2;
                k -= 2;
            }
        }
    }
    /* bit-by-bit integer square root of m (< 2^48): 24 result bits */
    rem = 0;
    for (bit = (uint64_t)1 << 23; bit; bit >>= 1) {
        uint64_t t = (uint64_t)q | bit;
        if (t * t <= m)
            q = (uint32_t)t;
    }
    rem = m - (uint64_t)q * q;
    /* value = q · 2^(k/2); q in [2^23, 2^24) */
    {
        int32_t e2 = k / 2; /* k even */
        uint32_t bits = ((uint32_t)(e2 + 23 + 127) << 23) + (q - 0x800000u);
        bits += rem > q ? 1u : 0u;
        return tg_bits_f32(bits);
    }
}

float tg_math_rsqrt(float x) { return tg_math_rsqrtv(x); }

/* C99 Annex F pow on fp32 operands, evaluated as exp(b·ln|a|) in double
 * (tg_math_powv, inline in tg_math.h). */
float tg_math_pow(float a, float b) { return tg_math_powv(a, b); }

/* ---- the activation table --------------------------------------------------*/
static const char *const tg_act_names[TG_ACT_COUNT] = {
#define TG_ACT_NAME(ID, id) #id,
    TG_ACT_FUNCS(TG_ACT_NAME)
#undef TG_ACT_NAME
};

const char *tg_act_name(tg_act_func f)
{
    return (unsigned)f < (unsigned)TG_ACT_COUNT ? tg_act_names[f] : "?";
}

int tg_act_from_name(const char *s, size_t len)
{
    return tg_name_find(tg_act_names, TG_ACT_COUNT, s, len);
}

float tg_act(tg_act_func f, float x)
{
    switch (f) {
#define TG_ACT_CASE(ID, id) case TG_ACT_##ID: return tg_act_##id(x);
        TG_ACT_FUNCS(TG_ACT_CASE)
#undef TG_ACT_CASE
    default: return tg_bits_f32(0x7fc00000u);
    }
}

void tg_act_row(tg_act_func f, float *dst, const float *src, size_t n, float scale, float bias)
{
    size_t i;
    switch (f) {
#define TG_ACT_LOOP(ID, id)                              \
    case TG_ACT_##ID:                                    \
        for (i = 0; i < n; i++)                          \
            dst[i] = tg_act_##id(src[i] * scale + bias); \
        break;
        TG_ACT_FUNCS(TG_ACT_LOOP)
#undef TG_ACT_LOOP
    default:
        for (i = 0; i < n; i++)
            dst[i] = tg_bits_f32(0x7fc00000u);
        break;
    }
}

/* |a| rem |b| by binary long division: t runs from the largest |b|*2^k <= |a|
 * back down to |b|; each subtraction has t <= r < 2t, so it is exact
 * (Sterbenz), and so are the doublings and halvings of |b|. At most ~2100
 * steps each way. */
static double rem_exact(double a, double b)
{
    double r = a < 0 ? -a : a, y = b < 0 ? -b : b, t = y;
    if (!(r >= y))
        return a; /* |a| < |b| (and -0 stays -0) */
    while (t + t <= r) /* an overflowing t + t is inf: stops */
        t += t;
    for (;;) {
        if (r >= t)
            r -= t;
        if (t == y)
            break;
        t *= 0.5;
    }
    return a < 0 ? -r : r;
}

double tg_math_mod_floor_d(double a, double b)
{
    if (a != a || b != b || a - a != 0 || b == 0)
        return bits_d(0x7ff8000000000000ull); /* one quiet NaN on every host */
    if (b - b != 0) /* b infinite, a finite */
        return a == 0 || (a < 0) == (b < 0) ? a : b;
    double m = rem_exact(a, b);
    return m != 0 && (m < 0) != (b < 0) ? m + b : m;
}

#include "tg_fp_end.h"
