/* test_dtype.c — cmocka tests of runtime/tg_dtype: every bf16/fp16/fp8
 * encoding decoded against an independent formula (and _Float16 when the
 * compiler has it) and re-encoded; fp32 → narrow rounding at every tie,
 * subnormal boundary, overflow threshold, NaN payload, ±0, ±inf; a random
 * sweep against a slow double-precision reference encoder; every pattern of
 * the binades where the rounding changes form against an encoder by shifts;
 * int casts; rows.
 * tg_fp.h first, as in every runtime and generated file: the inline
 * conversions are compiled here under the options they get there. */
#include "tg_fp.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <stdlib.h>

#include "tg_dtype.h"
#include "tg_ops.h"
#include "tg_sim.h"
#include "test_rng.h"

/* A narrow float format, described independently of the runtime's codec. */
typedef struct fmt {
    const char *name; /* for messages */
    int ebits;        /* exponent bits */
    int mb;           /* mantissa bits */
    int bias;         /* exponent bias */
} fmt;

static const fmt F_BF16 = {"bf16", 8, 7, 127};
static const fmt F_F16 = {"f16", 5, 10, 15};
static const fmt F_E4M3 = {"e4m3", 4, 3, 7};
static const fmt F_E5M2 = {"e5m2", 5, 2, 15};
static const fmt F_TF32 = {"tf32", 8, 10, 127};

/* Reference decode by formula (ldexp): NaN returned as NAN of the right sign. */
static double ref_decode(const fmt *f, uint32_t h)
{
    uint32_t s = (h >> (f->ebits + f->mb)) & 1u;
    uint32_t e = (h >> f->mb) & ((1u << f->ebits) - 1u);
    uint32_t m = h & ((1u << f->mb) - 1u);
    double v;
    if (e == (1u << f->ebits) - 1u)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - f->bias - f->mb);
    else
        v = ldexp((double)(m | (1u << f->mb)), (int)e - f->bias - f->mb);
    return s ? -v : v;
}

static double ref_max(const fmt *f)
{
    int emax = (1 << f->ebits) - 2 - f->bias;
    return ldexp(2.0 - ldexp(1.0, -f->mb), emax);
}

/* Reference RNE to the format with an unbounded exponent, then overflow → inf.
 * Works on the exact double value of an fp32 input. */
static double ref_round(const fmt *f, double v)
{
    double a = fabs(v), q, r;
    int e;
    if (isnan(v) || isinf(v) || a == 0.0)
        return v;
    frexp(a, &e);                  /* a = x * 2^e, x in [0.5, 1) */
    e -= 1;                        /* a in [2^e, 2^(e+1)) */
    if (e < 1 - f->bias)
        e = 1 - f->bias;           /* subnormal quantum */
    q = ldexp(a, f->mb - e);       /* exact */
    r = nearbyint(q);              /* default mode: ties to even */
    r = ldexp(r, e - f->mb);
    if (r > ref_max(f))
        r = INFINITY;
    return v < 0 ? -r : r;
}

static uint32_t enc(const fmt *f, float x)
{
    if (f == &F_BF16) return tg_f32_to_bf16(x);
    if (f == &F_F16) return tg_f32_to_f16(x);
    if (f == &F_E4M3) return tg_f32_to_e4m3(x);
    if (f == &F_E5M2) return tg_f32_to_e5m2(x);
    return tg_f32_bits(tg_f32_to_tf32(x)) >> 13; /* tf32: 19 significant bits */
}

static float dec(const fmt *f, uint32_t h)
{
    if (f == &F_BF16) return tg_bf16_to_f32((uint16_t)h);
    if (f == &F_F16) return tg_f16_to_f32((uint16_t)h);
    if (f == &F_E4M3) return tg_e4m3_to_f32((uint8_t)h);
    if (f == &F_E5M2) return tg_e5m2_to_f32((uint8_t)h);
    return tg_bits_f32(h << 13);
}

static int is_nan_bits(const fmt *f, uint32_t h)
{
    uint32_t e = (h >> f->mb) & ((1u << f->ebits) - 1u);
    return e == (1u << f->ebits) - 1u && (h & ((1u << f->mb) - 1u)) != 0;
}

/* Decode every encoding, compare with the formula, re-encode. */
static void exhaustive(const fmt *f)
{
    uint32_t n = 1u << (1 + f->ebits + f->mb), h;
    uint32_t qbit = 1u << (f->mb - 1), sbit = 1u << (f->ebits + f->mb);
    for (h = 0; h < n; h++) {
        float v = dec(f, h);
        double r = ref_decode(f, h);
        uint32_t back = enc(f, v);
        if (isnan(r)) {
            if (!isnan(v) || (tg_f32_bits(v) & 0x00400000u) == 0 ||
                (signbit(v) != 0) != ((h & sbit) != 0)) {
                fail_msg("%s %#x: decode not a quiet NaN of the same sign", f->name, h);
            }
            if (!is_nan_bits(f, back) || back != (h | qbit))
                fail_msg("%s NaN %#x re-encodes to %#x, want %#x", f->name, h, back, h | qbit);
            continue;
        }
        if ((double)v != r || (signbit(v) != 0) != (signbit(r) != 0))
            fail_msg("%s %#x decodes to %a, want %a", f->name, h, (double)v, r);
        if (back != h)
            fail_msg("%s %#x round-trips to %#x", f->name, h, back);
    }
}

static void test_bf16_exhaustive(void **state) { (void)state; exhaustive(&F_BF16); }
static void test_f16_exhaustive(void **state) { (void)state; exhaustive(&F_F16); }
static void test_e4m3_exhaustive(void **state) { (void)state; exhaustive(&F_E4M3); }
static void test_e5m2_exhaustive(void **state) { (void)state; exhaustive(&F_E5M2); }

/* fp16 against the compiler's own half type, both directions. */
static void test_f16_vs_compiler(void **state)
{
    (void)state;
#if defined(__FLT16_MAX__)
    __extension__ typedef _Float16 half_t;
    {
        uint32_t h;
        for (h = 0; h < 65536; h++) {
            half_t c;
            uint16_t hb = (uint16_t)h;
            float v = tg_f16_to_f32(hb);
            memcpy(&c, &hb, 2);
            if (isnan((float)c)) {
                assert_true(isnan(v));
                continue;
            }
            assert_true(v == (float)c);
        }
        /* encoding: every 4097th fp32 pattern across the whole space */
        for (h = 0; h < 0xffffffffu - 4097u; h += 4097u) {
            float x = tg_bits_f32(h);
            half_t c = (half_t)x;
            uint16_t cb;
            memcpy(&cb, &c, 2);
            if (isnan(x))
                assert_true(is_nan_bits(&F_F16, tg_f32_to_f16(x)));
            else if (tg_f32_to_f16(x) != cb)
                fail_msg("f16(%a) = %#x, compiler says %#x", (double)x, tg_f32_to_f16(x), cb);
        }
    }
#else
    skip();
#endif
}

/* Every tie between adjacent finite values of the format (and their neighbours
 * one fp32 ulp either side), including the tie above the largest finite. */
static void ties(const fmt *f)
{
    uint32_t maxbits = (((1u << f->ebits) - 1u) << f->mb) - 1u, h;
    for (h = 0; h <= maxbits; h++) {
        double lo = ref_decode(f, h);
        double hi = h == maxbits ? ldexp(1.0, (1 << f->ebits) - 1 - f->bias) : ref_decode(f, h + 1);
        double mid = (lo + hi) / 2;
        float fm = (float)mid;
        uint32_t want = (h & 1u) ? h + 1 : h;
        int s;
        assert_true((double)fm == mid); /* ties are exact in fp32 */
        for (s = 0; s < 2; s++) {
            float x = s ? -fm : fm;
            uint32_t sb = s ? 1u << (f->ebits + f->mb) : 0u;
            uint32_t got = enc(f, x);
            uint32_t below = enc(f, s ? -nextafterf(fm, 0) : nextafterf(fm, 0));
            uint32_t above = enc(f, s ? -nextafterf(fm, INFINITY) : nextafterf(fm, INFINITY));
            if (got != (want | sb))
                fail_msg("%s tie %a: got %#x want %#x", f->name, (double)x, got, want | sb);
            if (below != (h | sb) || above != ((h + 1) | sb))
                fail_msg("%s near tie %a: %#x %#x", f->name, (double)x, below, above);
        }
    }
}

/* tg_f32_to_bf16_canon (the generated code's tg_wrc_bf16) against
 * tg_f32_to_bf16 on every value it may get: fp32 patterns at a stride and
 * every pattern whose low half sits at a rounding edge (ties, carries into the
 * exponent and to inf), and the canonical NaN. */
static void test_bf16_canon(void **state)
{
    static const uint32_t lows[] = {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu};
    (void)state;
    for (uint64_t u = 0; u < 0x100000000ull; u += 4093u) {
        const float x = tg_bits_f32((uint32_t)u);
        if (x == x)
            assert_int_equal(tg_f32_to_bf16_canon(x), tg_f32_to_bf16(x));
    }
    for (uint32_t hi = 0; hi < 0x10000u; hi++)
        for (size_t i = 0; i < sizeof lows / sizeof lows[0]; i++) {
            const float x = tg_bits_f32(hi << 16 | lows[i]);
            if (x == x && tg_f32_to_bf16_canon(x) != tg_f32_to_bf16(x))
                fail_msg("0x%08x: 0x%04x, not 0x%04x", (unsigned)(hi << 16 | lows[i]),
                         (unsigned)tg_f32_to_bf16_canon(x), (unsigned)tg_f32_to_bf16(x));
        }
    assert_int_equal(tg_f32_to_bf16_canon(tg_bits_f32(0x7fc00000u)), 0x7fc0);
    assert_int_equal(tg_f32_to_bf16(tg_bits_f32(0x7fc00000u)), 0x7fc0);
}

static void test_ties_bf16(void **state) { (void)state; ties(&F_BF16); }
static void test_ties_f16(void **state) { (void)state; ties(&F_F16); }
static void test_ties_e4m3(void **state) { (void)state; ties(&F_E4M3); }
static void test_ties_e5m2(void **state) { (void)state; ties(&F_E5M2); }

/* The documented overflow thresholds and maxima (tg_dtype.h header). */
static void test_overflow_thresholds(void **state)
{
    (void)state;
    assert_int_equal(tg_f32_to_e4m3(240.0f), 0x77);
    assert_int_equal(tg_f32_to_e4m3(nextafterf(248.0f, 0)), 0x77);
    assert_int_equal(tg_f32_to_e4m3(248.0f), 0x78);  /* +inf */
    assert_int_equal(tg_f32_to_e4m3(-248.0f), 0xf8); /* -inf */
    assert_int_equal(tg_f32_to_e4m3(1e30f), 0x78);
    assert_true(tg_e4m3_to_f32(0x77) == 240.0f);
    assert_true(isinf(tg_e4m3_to_f32(0x78)));
    assert_int_equal(tg_f32_to_e5m2(57344.0f), 0x7b);
    assert_int_equal(tg_f32_to_e5m2(nextafterf(61440.0f, 0)), 0x7b);
    assert_int_equal(tg_f32_to_e5m2(61440.0f), 0x7c);
    assert_true(tg_e5m2_to_f32(0x7b) == 57344.0f);
    assert_int_equal(tg_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(tg_f32_to_f16(nextafterf(65520.0f, 0)), 0x7bff);
    assert_int_equal(tg_f32_to_f16(65520.0f), 0x7c00);
    assert_int_equal(tg_f32_to_f16(-65520.0f), 0xfc00);
    assert_int_equal(tg_f32_to_bf16(0x1.fep127f), 0x7f7f);
    assert_int_equal(tg_f32_to_bf16(nextafterf(0x1.ffp127f, 0)), 0x7f7f);
    assert_int_equal(tg_f32_to_bf16(0x1.ffp127f), 0x7f80);
    assert_int_equal(tg_f32_to_bf16(FLT_MAX), 0x7f80);
    assert_true(tg_f32_to_tf32(0x1.ffcp127f) == 0x1.ffcp127f);
    assert_true(isinf(tg_f32_to_tf32(0x1.ffep127f)));
    assert_true(tg_f32_to_tf32(nextafterf(0x1.ffep127f, 0)) == 0x1.ffcp127f);
}

/* Subnormal boundaries: smallest subnormal, half of it (tie → 0), just above
 * half (→ smallest), largest subnormal ↔ smallest normal. */
static void subnormals(const fmt *f, uint32_t sb)
{
    double tiny = ldexp(1.0, 1 - f->bias - f->mb);
    double minnorm = ldexp(1.0, 1 - f->bias);
    uint32_t maxsub = (1u << f->mb) - 1u;
    float t = (float)tiny;
    assert_int_equal(enc(f, t), 1);
    assert_int_equal(enc(f, -t), sb | 1u);
    assert_int_equal(enc(f, (float)(tiny / 2)), 0);           /* tie to even 0 */
    assert_int_equal(enc(f, -(float)(tiny / 2)), sb);         /* -0 */
    assert_int_equal(enc(f, nextafterf((float)(tiny / 2), 1)), 1);
    assert_int_equal(enc(f, (float)(tiny * 1.5)), 2);          /* tie 1|2 → 2 */
    assert_int_equal(enc(f, (float)(minnorm - tiny)), maxsub);
    assert_int_equal(enc(f, (float)(minnorm - tiny / 2)), maxsub + 1u); /* tie → even = min normal */
    assert_int_equal(enc(f, (float)minnorm), 1u << f->mb);
    assert_int_equal(enc(f, 1e-45f), 0);                       /* fp32 subnormal underflows */
}

static void test_subnormals(void **state)
{
    (void)state;
    subnormals(&F_F16, 0x8000);
    subnormals(&F_E4M3, 0x80);
    subnormals(&F_E5M2, 0x80);
    /* bf16 shares fp32's exponent range: fp32 subnormals round to bf16 ones */
    assert_int_equal(tg_f32_to_bf16(tg_bits_f32(0x00010000)), 0x0001);
    assert_int_equal(tg_f32_to_bf16(tg_bits_f32(0x00008000)), 0x0000); /* tie → 0 */
    assert_int_equal(tg_f32_to_bf16(tg_bits_f32(0x00018000)), 0x0002); /* tie → even */
    assert_int_equal(tg_f32_to_bf16(tg_bits_f32(0x007f8000)), 0x0080); /* → min normal */
    assert_true(tg_f32_to_tf32(tg_bits_f32(0x00001000)) == 0.0f);
    assert_true(tg_f32_to_tf32(tg_bits_f32(0x00003000)) == tg_bits_f32(0x00004000));
}

static void test_specials(void **state)
{
    const fmt *fs[5] = {&F_BF16, &F_F16, &F_E4M3, &F_E5M2, &F_TF32};
    int i;
    (void)state;
    for (i = 0; i < 5; i++) {
        const fmt *f = fs[i];
        uint32_t sb = 1u << (f->ebits + f->mb), inf = ((1u << f->ebits) - 1u) << f->mb;
        uint32_t q = 1u << (f->mb - 1), mmask = (1u << f->mb) - 1u;
        assert_int_equal(enc(f, 0.0f), 0);
        assert_int_equal(enc(f, -0.0f), sb);
        assert_int_equal(enc(f, INFINITY), inf);
        assert_int_equal(enc(f, -INFINITY), sb | inf);
        assert_true(signbit(dec(f, sb)) && dec(f, sb) == 0.0f);
        /* NaN payloads: quiet, signalling with payload only in low bits, negative */
        assert_int_equal(enc(f, tg_bits_f32(0x7fc00000u)), inf | q);
        assert_int_equal(enc(f, tg_bits_f32(0x7f800001u)), inf | q); /* payload lost, still NaN */
        assert_int_equal(enc(f, tg_bits_f32(0xff800001u)), sb | inf | q);
        assert_int_equal(enc(f, tg_bits_f32(0x7fffffffu)), inf | mmask);
        assert_int_equal(enc(f, tg_bits_f32(0x7fa00000u)), inf | q | ((0x200000u >> (23 - f->mb)) & mmask));
    }
}

/* Random fp32 values: half uniform over all bit patterns, half with the
 * exponent near the target format's range — against ref_round. */
static void sweep(const fmt *f, int count)
{
    int i;
    for (i = 0; i < count; i++) {
        uint32_t u = rnd32();
        float x;
        double want;
        float got;
        if (i & 1) {
            int lo = 127 - f->bias - f->mb - 3, span = (1 << f->ebits) + f->mb + 6;
            int e = lo + (int)(rnd32() % (uint32_t)span);
            if (e < 0) e = 0;
            if (e > 254) e = 254;
            u = (u & 0x807fffffu) | ((uint32_t)e << 23);
        }
        x = tg_bits_f32(u);
        got = dec(f, enc(f, x));
        want = ref_round(f, (double)x);
        if (isnan(x)) {
            assert_true(isnan(got));
            continue;
        }
        if ((double)got != want || (signbit(got) != 0) != (signbit(want) != 0))
            fail_msg("%s(%a) = %a, reference %a", f->name, (double)x, (double)got, want);
    }
}

static void test_sweep(void **state)
{
    (void)state;
    sweep(&F_BF16, 2000000);
    sweep(&F_F16, 2000000);
    sweep(&F_E4M3, 2000000);
    sweep(&F_E5M2, 2000000);
    sweep(&F_TF32, 2000000);
}

/* A second encoder, by shifts: the mantissa with its implicit bit shifted
 * right by as many places as the format's quantum at the value's exponent
 * asks, rounded on the bits shifted out (the runtime's codec rounds on the
 * fp32 bits and, below the format's normals, by adding a power of two). */
static uint32_t shift_encode(const fmt *f, uint32_t x)
{
    uint32_t sign = (x >> 31) << (f->ebits + f->mb), ax = x & 0x7fffffffu;
    uint32_t inf = ((1u << f->ebits) - 1u) << f->mb, ef = ax >> 23;
    uint32_t m = (ax & 0x7fffffu) | (ef ? 0x800000u : 0u);
    int32_t e = (int32_t)(ef ? ef : 1u) - 127 + f->bias;
    int32_t sh = 23 - f->mb + (e < 1 ? 1 - e : 0);
    uint32_t base = e < 1 ? 0u : ((uint32_t)(e - 1) << f->mb), q, rem, half, r;
    if (ax > 0x7f800000u)
        return sign | inf | (1u << (f->mb - 1)) | ((ax >> (23 - f->mb)) & ((1u << f->mb) - 1u));
    if (sh > 25)
        sh = 25;
    q = m >> sh;
    rem = m & ((1u << sh) - 1u);
    half = 1u << (sh - 1);
    r = base + q + (uint32_t)(rem > half || (rem == half && (q & 1u)));
    return sign | (r > inf ? inf : r);
}

/* Every fp32 pattern, both signs, of the exponents where a format's rounding
 * changes form: from half its least subnormal quantum to two binades above
 * its least normal, the binades about its overflow threshold, and NaN and
 * inf; a stride of 4093 over the rest; against shift_encode. (All
 * 2^32 patterns of f16, e4m3, e5m2 and tf32 were compared when the codec
 * changed: equal.) */
static void dense(const fmt *f)
{
    const int emax = (1 << f->ebits) - 2 - f->bias;
    const int bands[3][2] = {{127 + 1 - f->bias - f->mb - 2, 127 + 1 - f->bias + 2},
                             {127 + emax - 1, 127 + emax + 1}, {255, 255}};
    for (int b = 0; b < 3; b++)
        for (int e = bands[b][0] < 0 ? 0 : bands[b][0]; e <= bands[b][1] && e <= 255; e++)
            for (uint32_t s = 0; s < 2; s++)
                for (uint32_t m = 0; m < 0x800000u; m++) {
                    uint32_t x = s << 31 | (uint32_t)e << 23 | m;
                    if (enc(f, tg_bits_f32(x)) != shift_encode(f, x))
                        fail_msg("%s(%#x) = %#x, by shifts %#x", f->name, x, enc(f, tg_bits_f32(x)),
                                 shift_encode(f, x));
                }
    for (uint64_t x = 0; x < 0x100000000u; x += 4093)
        if (enc(f, tg_bits_f32((uint32_t)x)) != shift_encode(f, (uint32_t)x))
            fail_msg("%s(%#x) = %#x, by shifts %#x", f->name, (uint32_t)x, enc(f, tg_bits_f32((uint32_t)x)),
                     shift_encode(f, (uint32_t)x));
}

static void test_narrow_dense(void **state)
{
    (void)state;
    dense(&F_F16);
    dense(&F_E4M3);
    dense(&F_E5M2);
    dense(&F_TF32);
}

/* fp8: a second, brute-force reference — nearest of all 256 values. */
static void brute_fp8(const fmt *f)
{
    int i;
    for (i = 0; i < 200000; i++) {
        float x = tg_bits_f32((rnd32() & 0x807fffffu) | ((uint32_t)(100 + rnd32() % 50) << 23));
        double a = fabs((double)x), best = INFINITY;
        uint32_t bh = 0, h, got;
        for (h = 0; h < 128; h++) {
            double v = ref_decode(f, h), d;
            if (isnan(v))
                continue;
            if (isinf(v)) /* inf competes as the value 2^(emax+1) */
                v = ldexp(1.0, (1 << f->ebits) - 1 - f->bias);
            d = fabs(v - a);
            if (d < best || (d == best && (h & 1u) == 0)) {
                best = d;
                bh = h;
            }
        }
        got = enc(f, (float)a);
        if (got != bh)
            fail_msg("%s(%a): %#x, brute force %#x", f->name, a, got, bh);
    }
}

static void test_fp8_brute(void **state)
{
    (void)state;
    brute_fp8(&F_E4M3);
    brute_fp8(&F_E5M2);
}

/* fp32 -> int -> fp32 inlined into one function: (float)tg_f32_to_i32(x) must
 * be +0 for every x in (-0.5, 0]. Under tg_fp.h's no-trapping-math gcc with
 * SSE4.1 folds (float)(int32_t)c into roundss(c), which keeps the sign of a
 * zero c (the generated code does this when an int tile is read back). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TG_TEST_SSE41 1
/* one function per element: a loop of them vectorizes and is not folded */
#define ROUND_TRIP_SSE41(NAME, CAST) \
    __attribute__((target("sse4.1"), noinline)) static float NAME(float x) { return (float)CAST(x); }
ROUND_TRIP_SSE41(i32_sse41, tg_f32_to_i32)
ROUND_TRIP_SSE41(i16_sse41, tg_f32_to_i16)
ROUND_TRIP_SSE41(i8_sse41, tg_f32_to_i8)
ROUND_TRIP_SSE41(u8_sse41, tg_f32_to_u8)
static void int_round_trip_sse41(const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++) {
        y[4 * i + 0] = i32_sse41(x[i]);
        y[4 * i + 1] = i16_sse41(x[i]);
        y[4 * i + 2] = i8_sse41(x[i]);
        y[4 * i + 3] = u8_sse41(x[i]);
    }
}
#endif
__attribute__((noinline)) static void int_round_trip(const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++) {
        y[4 * i + 0] = (float)tg_f32_to_i32(x[i]);
        y[4 * i + 1] = (float)tg_f32_to_i16(x[i]);
        y[4 * i + 2] = (float)tg_f32_to_i8(x[i]);
        y[4 * i + 3] = (float)tg_f32_to_u8(x[i]);
    }
}
static void test_int_cast_no_negative_zero(void **state)
{
    float x[] = {-0.0f, -0.3f, -0.5f, -1e-30f, -1e-45f, 0.0f, 0.3f, -0.5000001f, -1.5f};
    enum { N = sizeof x / sizeof x[0] };
    float y[4 * N];
    (void)state;
    int_round_trip(x, y, N);
    for (int i = 0; i < 4 * N; i++) {
        const int64_t lo[4] = {INT32_MIN, INT16_MIN, INT8_MIN, 0};
        const int64_t r = tg__clamp_i64(tg__f32_rne_i64(x[i / 4]), lo[i % 4], INT32_MAX);
        assert_int_equal(tg_f32_bits(y[i]), tg_f32_bits((float)r)); /* 0 is +0 */
    }
#ifdef TG_TEST_SSE41
    if (__builtin_cpu_supports("sse4.1")) {
        float z[4 * N];
        int_round_trip_sse41(x, z, N);
        for (int i = 0; i < 4 * N; i++)
            assert_int_equal(tg_f32_bits(z[i]), tg_f32_bits(y[i]));
    }
#endif
}

static void test_int_casts(void **state)
{
    int i;
    (void)state;
    assert_int_equal(tg_f32_to_i32(0.5f), 0);
    assert_int_equal(tg_f32_to_i32(1.5f), 2);
    assert_int_equal(tg_f32_to_i32(2.5f), 2);
    assert_int_equal(tg_f32_to_i32(-2.5f), -2);
    assert_int_equal(tg_f32_to_i32(-3.5f), -4);
    assert_int_equal(tg_f32_to_i32(0.49999997f), 0);
    assert_int_equal(tg_f32_to_i32(NAN), 0);
    assert_int_equal(tg_f32_to_i32(INFINITY), INT32_MAX);
    assert_int_equal(tg_f32_to_i32(-INFINITY), INT32_MIN);
    assert_int_equal(tg_f32_to_i32(2147483648.0f), INT32_MAX);
    assert_int_equal(tg_f32_to_i32(-2147483648.0f), INT32_MIN);
    assert_int_equal(tg_f32_to_i32(16777217.0f), 16777216);
    assert_int_equal(tg_f32_to_u32(4294967040.0f), 4294967040u);
    assert_int_equal(tg_f32_to_u32(4294967296.0f), UINT32_MAX);
    assert_int_equal(tg_f32_to_u32(-1.0f), 0);
    assert_int_equal(tg_f32_to_i8(127.4f), 127);
    assert_int_equal(tg_f32_to_i8(127.5f), 127);
    assert_int_equal(tg_f32_to_i8(-128.6f), -128);
    assert_int_equal(tg_f32_to_u8(255.5f), 255);
    assert_int_equal(tg_f32_to_u8(-0.4f), 0);
    assert_int_equal(tg_f32_to_i16(-32768.5f), -32768);
    assert_int_equal(tg_f32_to_u16(65535.49f), 65535);
    for (i = 0; i < 3000000; i++) {
        float x = tg_bits_f32((rnd32() & 0x807fffffu) | ((uint32_t)(110 + rnd32() % 50) << 23));
        double r = nearbyint((double)x);
        double c32 = r > 2147483647.0 ? 2147483647.0 : (r < -2147483648.0 ? -2147483648.0 : r);
        double c8 = r > 127 ? 127 : (r < -128 ? -128 : r);
        double cu16 = r > 65535 ? 65535 : (r < 0 ? 0 : r);
        double cu32 = r > 4294967295.0 ? 4294967295.0 : (r < 0 ? 0 : r);
        if ((double)tg_f32_to_i32(x) != c32 || (double)tg_f32_to_i8(x) != c8 ||
            (double)tg_f32_to_u16(x) != cu16 || (double)tg_f32_to_u32(x) != cu32)
            fail_msg("int casts of %a", (double)x);
    }
    /* the branch-free casts (tg__f32_to_int_fast where floats evaluate in
     * their own precision) against the branchy reference they replace,
     * tg__f32_rne_i64 then clamped, on every exponent (subnormals, NaNs,
     * infinities) with both signs; all 2^32 patterns agreed when checked
     * once by hand (a loop like this one) */
    for (i = 0; i < 256 * 8000; i++) {
        uint32_t e = (uint32_t)(i / 8000), u = (rnd32() & 0x807fffffu) | (e << 23);
        float x = tg_bits_f32(i % 8000 < 4 ? (u & 0xff800000u) | (uint32_t)(i % 4) : u); /* a few tiny mantissas */
        int64_t v = tg__f32_rne_i64(x);
        if (tg_f32_to_i32(x) != (int32_t)tg__clamp_i64(v, INT32_MIN, INT32_MAX) ||
            tg_f32_to_i16(x) != (int16_t)tg__clamp_i64(v, INT16_MIN, INT16_MAX) ||
            tg_f32_to_u16(x) != (uint16_t)tg__clamp_i64(v, 0, UINT16_MAX) ||
            tg_f32_to_i8(x) != (int8_t)tg__clamp_i64(v, INT8_MIN, INT8_MAX) ||
            tg_f32_to_u8(x) != (uint8_t)tg__clamp_i64(v, 0, UINT8_MAX))
            fail_msg("int casts of bits %08x", (unsigned)tg_f32_bits(x));
    }
    /* the 8- and 16-bit casts (tg__f32_to_int_small) on every quarter in
     * [-70000, 70000] (the ties among them) and the floats either side of
     * each; all 2^32 patterns agreed when checked once by hand */
    for (i = -280000; i <= 280000; i++) {
        const float q = (float)i * 0.25f;
        for (int d = -1; d <= 1; d++) {
            const float x = d ? nextafterf(q, d * INFINITY) : q;
            const int64_t v = tg__f32_rne_i64(x);
            if (tg_f32_to_i16(x) != (int16_t)tg__clamp_i64(v, INT16_MIN, INT16_MAX) ||
                tg_f32_to_u16(x) != (uint16_t)tg__clamp_i64(v, 0, UINT16_MAX) ||
                tg_f32_to_i8(x) != (int8_t)tg__clamp_i64(v, INT8_MIN, INT8_MAX) ||
                tg_f32_to_u8(x) != (uint8_t)tg__clamp_i64(v, 0, UINT8_MAX))
                fail_msg("small int casts of %a", (double)x);
        }
    }
}

static void test_table(void **state)
{
    static const size_t sizes[TG_DTYPE_COUNT] = {4, 4, 2, 2, 1, 1, 1, 1, 2, 2, 4, 4};
    int i;
    (void)state;
    for (i = 0; i < TG_DTYPE_COUNT; i++) {
        const char *n = tg_dtype_name((tg_dtype)i);
        assert_int_equal(tg_dtype_size((tg_dtype)i), sizes[i]);
        assert_int_equal(tg_dtype_from_name(n, strlen(n)), i);
        assert_int_equal(tg_dtype_is_float((tg_dtype)i), i <= TG_FLOAT8_E5M2);
    }
    assert_string_equal(tg_dtype_name(TG_FLOAT8_E4M3), "float8_e4m3");
    assert_string_equal(tg_dtype_name(TG_UINT32), "uint32");
    assert_int_equal(tg_dtype_from_name("float", 5), -1);
    assert_int_equal(tg_dtype_from_name("float32x", 8), -1);
    assert_int_equal(tg_dtype_from_name("int8", 3), -1);
    assert_int_equal(tg_dtype_size(TG_DTYPE_COUNT), 0);
    assert_string_equal(tg_dtype_name((tg_dtype)99), "?");
    assert_true(tg_dtype_is_signed_int(TG_INT16) && !tg_dtype_is_signed_int(TG_UINT16));
}

/* tg_stage2_<bits> (tg_sim.h: the generated C's gather of a source read at a
 * stride of 2) for every row length 0..130 at 3 offsets, from a heap buffer
 * that ends at the row's last element (so an ASan build catches a read past
 * it), against a plain element copy; nothing written past n elements. Both
 * forms (wide: the shuffles; not: one by one), built into the baseline and,
 * with gcc on x86-64, into AVX2 and AVX-512 functions (the generated bodies
 * inline it so), each run where the CPU has it. */
typedef void stage2_fn(uint8_t *, const uint8_t *, int64_t, int);
#define STAGE2_SET(SUFFIX)                                                                                      \
    static void stage2_8##SUFFIX(uint8_t *d, const uint8_t *s, int64_t n, int w) { tg_stage2_8(d, s, n, w); }   \
    static void stage2_16##SUFFIX(uint8_t *d, const uint8_t *s, int64_t n, int w) { tg_stage2_16(d, s, n, w); } \
    static void stage2_32##SUFFIX(uint8_t *d, const uint8_t *s, int64_t n, int w) { tg_stage2_32(d, s, n, w); }
STAGE2_SET(_base)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx2")
STAGE2_SET(_avx2)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl")
STAGE2_SET(_avx512)
#pragma GCC pop_options
#define STAGE2_BODIES 3
#else
#define STAGE2_BODIES 1
#endif
static void stage2_check(stage2_fn *fn, size_t es, int wide)
{
    for (int64_t n = 0; n <= 130; n++)
        for (size_t off = 0; off < 3; off++) {
            size_t len = off * es + (n ? (size_t)(2 * n - 1) * es : 0);
            uint8_t *src = malloc(len ? len : 1), *dst = malloc((size_t)n * es + 16);
            assert_non_null(src);
            assert_non_null(dst);
            for (size_t i = 0; i < len; i++)
                src[i] = (uint8_t)rnd32();
            memset(dst, 0xa5, (size_t)n * es + 16);
            fn(dst, src + off * es, n, wide);
            for (int64_t j = 0; j < n; j++)
                if (memcmp(dst + (size_t)j * es, src + off * es + (size_t)(2 * j) * es, es) != 0)
                    fail_msg("tg_stage2_%u (wide %d): n %lld, offset %zu: element %lld", (unsigned)(es * 8), wide,
                             (long long)n, off, (long long)j);
            for (size_t i = (size_t)n * es; i < (size_t)n * es + 16; i++)
                assert_int_equal(dst[i], 0xa5);
            free(src);
            free(dst);
        }
}

static void test_stage2(void **state)
{
    static stage2_fn *const fns[3][3] = {
        {stage2_8_base, stage2_16_base, stage2_32_base},
#if STAGE2_BODIES > 1
        {stage2_8_avx2, stage2_16_avx2, stage2_32_avx2},
        {stage2_8_avx512, stage2_16_avx512, stage2_32_avx512},
#endif
    };
    (void)state;
    for (int b = 0; b < STAGE2_BODIES; b++) {
#if STAGE2_BODIES > 1
        if ((b == 1 && !__builtin_cpu_supports("avx2")) || (b == 2 && !__builtin_cpu_supports("avx512bw")))
            continue;
#endif
        for (int w = 0; w < 3; w++)
            for (int wide = 0; wide < 2; wide++)
                stage2_check(fns[b][w], (size_t)1 << w, wide);
    }
}

/* tg_cvt_row for every (src, dst) pair equals element-wise load → store. */
static void test_rows(void **state)
{
    enum { N = 700 };
    static float vals[N];
    static unsigned char src[N * 4 + 16], dst[N * 4 + 16], ref[N * 4 + 16];
    int s, d, i;
    (void)state;
    for (i = 0; i < N; i++) {
        uint32_t u = rnd32();
        vals[i] = i % 3 ? (float)((int)(u % 70001u) - 35000) / 7.0f
                        : tg_bits_f32((u & 0x807fffffu) | ((100 + u % 60) << 23));
    }
    vals[0] = NAN;
    vals[1] = -INFINITY;
    vals[2] = -0.0f;
    for (s = 0; s < TG_DTYPE_COUNT; s++) {
        for (i = 0; i < N; i++)
            tg_store_f32(src, (tg_dtype)s, (size_t)i, vals[i]);
        for (d = 0; d < TG_DTYPE_COUNT; d++) {
            size_t ds = tg_dtype_size((tg_dtype)d);
            memset(dst, 0xa5, sizeof dst);
            assert_int_equal(tg_cvt_row(dst, (tg_dtype)d, src, (tg_dtype)s, N), 0);
            if (s == d) {
                assert_memory_equal(dst, src, N * ds);
                continue;
            }
            for (i = 0; i < N; i++)
                tg_store_f32(ref, (tg_dtype)d, (size_t)i, tg_load_f32(src, (tg_dtype)s, (size_t)i));
            if (memcmp(dst, ref, N * ds) != 0)
                fail_msg("cvt_row %s -> %s differs", tg_dtype_name((tg_dtype)s), tg_dtype_name((tg_dtype)d));
            assert_int_equal(dst[N * ds], 0xa5); /* nothing written past the row */
        }
    }
    assert_int_equal(tg_cvt_row(dst, TG_DTYPE_COUNT, src, TG_FLOAT32, 1), -1);
}

/* select's moves on encodings (tg_sim.h tg_mv_<sfx>, tg_enc_<sfx>, tg_sel<W>)
 * give the fp32 form's bits, tg_wr_<sfx>(tg_where(c, tg_rd_<sfx>(a), x)),
 * for every 8- and 16-bit encoding, each side of the predicate, either form
 * of tg_sel; numbers by tg_enc. */
#define SEL_MOVES(SFX, W)                                                                       \
    for (uint32_t v = 0; v < (1u << (W)); v++) {                                                \
        uint##W##_t e = (uint##W##_t)v, want, got;                                              \
        uint8_t row[4], out[4];                                                                 \
        memcpy(row, &e, sizeof e);                                                              \
        for (int c = 0; c < 2; c++) {                                                           \
            tg_wr_##SFX(out, 0, tg_where((float)c, tg_rd_##SFX(row, 0), -2.5f));               \
            memcpy(&want, out, sizeof want);                                                    \
            for (int bw = 0; bw < 2; bw++) {                                                    \
                got = tg_sel##W(bw, c, tg_mv_##SFX(row, 0), tg_enc_##SFX(-2.5f));               \
                if (got != want)                                                                \
                    fail_msg(#SFX " encoding 0x%x, pred %d: 0x%x, the fp32 form 0x%x", (unsigned)v, \
                             c, (unsigned)got, (unsigned)want);                                 \
            }                                                                                   \
        }                                                                                       \
        tg_mvw##W(out, 0, tg_mv_##SFX(row, 0));                                                 \
        uint8_t back[4];                                                                        \
        tg_wr_##SFX(back, 0, tg_rd_##SFX(row, 0));                                              \
        assert_memory_equal(out, back, sizeof e);                                               \
    }
static void test_select_moves(void **state)
{
    (void)state;
    SEL_MOVES(bf16, 16)
    SEL_MOVES(f16, 16)
    SEL_MOVES(e4m3, 8)
    SEL_MOVES(e5m2, 8)
    SEL_MOVES(i8, 8)
    SEL_MOVES(u8, 8)
    SEL_MOVES(i16, 16)
    SEL_MOVES(u16, 16)
    /* numbers as each dtype writes them, a rounding one among them */
    assert_int_equal(tg_enc_bf16(1.0f / 3.0f), tg_f32_to_bf16(1.0f / 3.0f));
    assert_int_equal(tg_enc_i8(-300.0f), (uint8_t)tg_f32_to_i8(-300.0f));
    assert_int_equal(tg_enc_u16(7.0f), 7);
}
#undef SEL_MOVES

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_bf16_exhaustive),
        cmocka_unit_test(test_f16_exhaustive),
        cmocka_unit_test(test_e4m3_exhaustive),
        cmocka_unit_test(test_e5m2_exhaustive),
        cmocka_unit_test(test_f16_vs_compiler),
        cmocka_unit_test(test_ties_bf16),
        cmocka_unit_test(test_bf16_canon),
        cmocka_unit_test(test_ties_f16),
        cmocka_unit_test(test_ties_e4m3),
        cmocka_unit_test(test_ties_e5m2),
        cmocka_unit_test(test_overflow_thresholds),
        cmocka_unit_test(test_subnormals),
        cmocka_unit_test(test_specials),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_fp8_brute),
        cmocka_unit_test(test_narrow_dense),
        cmocka_unit_test(test_int_casts),
        cmocka_unit_test(test_int_cast_no_negative_zero),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_stage2),
        cmocka_unit_test(test_select_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#include "tg_fp_end.h"
