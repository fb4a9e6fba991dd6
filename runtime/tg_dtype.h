/* tg_dtype.h — the 12 tensor dtypes of SPEC.md §2: names, sizes, and bit-exact
 * conversions between fp32 and each of them, one value at a time (static inline,
 * branch-light, so the hot row loops vectorize) or a whole row at a time.
 * Freestanding C99: no libc, no libm; bit casts through unions.
 *
 * Conversion rules (tested exhaustively in tests/unit/test_dtype.c):
 *  - narrow floats (tfloat32 bfloat16 float16 float8_e4m3 float8_e5m2) ← fp32:
 *    round to nearest, ties to even (the NeuronCore default, "Neuron Rounding
 *    Modes" / data-types.rst); subnormals of the target are produced exactly;
 *    ±0 keeps its sign; ±inf → ±inf.
 *  - overflow: IEEE behaviour for every float format. A value whose magnitude
 *    rounds (RNE, unbounded exponent) above the largest finite becomes ±inf.
 *    Thresholds (the first magnitude that becomes inf; anything below rounds
 *    to the largest finite):
 *        bfloat16  max 0x1.fep127 = 3.3895e38,   inf from 0x1.ffp127
 *        float16   max 65504,                    inf from 65520
 *        e4m3      max 240   (bias 7, IEEE-style: exponent 15 = inf/NaN),
 *                                                inf from 248
 *        e5m2      max 57344 (bias 15),          inf from 61440
 *        tfloat32  max 0x1.ffcp127,              inf from 0x1.ffep127
 *    The NKI docs say nothing about fp8 saturation, so we keep IEEE (no
 *    saturate); a saturating mode would be a separate, explicit function.
 *  - NaN → NaN, always quiet (quiet bit = top mantissa bit set), sign kept,
 *    payload kept as far as it fits (top mantissa bits). Decoding a narrow
 *    NaN gives a quiet fp32 NaN with the payload shifted up, so a signalling
 *    narrow NaN re-encodes as its quiet twin; a quiet one round-trips exactly.
 *  - integers ← fp32: round to nearest, ties to even (as the float casts, the
 *    hardware's default rounding; the NKI docs state no separate rule for int
 *    casts — documented choice), NaN → 0, saturate to the type's range
 *    (±inf → min/max).
 *  - fp32 ← integers: the nearest fp32 (exact below 2^24; RNE above).
 *  - same-dtype copies are bit-exact; any other pair converts through fp32
 *    (as the engines do, nki-facts §3 tensor_copy), so e.g. int32 → int16 of
 *    70000 saturates to 32767 and int32 values beyond 2^24 lose low bits. */
#ifndef TG_DTYPE_H
#define TG_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "tg_mem.h"

/* Order and spelling follow SPEC.md §2. Storage (SPEC §4): float32/tfloat32 as
 * float, bfloat16/float16 as uint16_t bits, float8 as uint8_t bits, integers as
 * their C types. */
typedef enum tg_dtype {
    TG_FLOAT32 = 0,
    TG_TFLOAT32,
    TG_BFLOAT16,
    TG_FLOAT16,
    TG_FLOAT8_E4M3,
    TG_FLOAT8_E5M2,
    TG_INT8,
    TG_UINT8,
    TG_INT16,
    TG_UINT16,
    TG_INT32,
    TG_UINT32,
    TG_DTYPE_COUNT
} tg_dtype;

/* Spec spelling of `dt` ("float32", ...); "?" when out of range. */
const char *tg_dtype_name(tg_dtype dt);
/* Storage bytes of one element; 0 when out of range. */
size_t tg_dtype_size(tg_dtype dt);
/* The dtype spelled by the `len` bytes at `s` (not NUL-terminated needed);
 * -1 when none matches. */
int tg_dtype_from_name(const char *s, size_t len);
/* 1 for the six float dtypes, 0 for the integers. */
int tg_dtype_is_float(tg_dtype dt);
/* 1 for int8/int16/int32. */
int tg_dtype_is_signed_int(tg_dtype dt);

/* 1 when the `len` bytes at `s` spell the NUL-terminated `name` exactly
 * (table lookups by spec name: dtypes, ALU ops, activation functions). */
static inline int tg_name_eq(const char *name, const char *s, size_t len)
{
    size_t k = 0;
    while (k < len && name[k] != '\0' && name[k] == s[k])
        k++;
    return k == len && name[k] == '\0';
}

/* Index of the name among names[0..n) that the `len` bytes at `s` spell, or -1. */
static inline int tg_name_find(const char *const *names, int n, const char *s, size_t len)
{
    int i;
    for (i = 0; i < n; i++)
        if (tg_name_eq(names[i], s, len))
            return i;
    return -1;
}

/* ---- bit casts ------------------------------------------------------------ */
typedef union tg_f32u {
    float f;    /* the value */
    uint32_t u; /* its IEEE-754 binary32 bits */
} tg_f32u;

static inline uint32_t tg_f32_bits(float f) { tg_f32u v; v.f = f; return v.u; }
static inline float tg_bits_f32(uint32_t u) { tg_f32u v; v.u = u; return v.f; }

/* ---- generic narrow float codec (internal; constants fold when inlined) -----
 * A narrow IEEE-style format with `mb` mantissa bits, exponent bias `bias`,
 * exponent all-ones = inf/NaN; `ebits` exponent bits. fp32 → narrow, RNE,
 * without a shift by a variable amount (so a loop of it vectorizes in
 * every body): a value in the format's normal range is rounded on its fp32
 * bits (a carry out of the mantissa moves the exponent up, to inf past the
 * largest finite value) and rebiased; one below it, where the format's
 * quantum is fixed, 2^(1-bias-mb), is rounded by adding 2^(24-bias-mb), whose
 * fp32 quantum that is: the sum's low bits are the subnormal's (a float add:
 * the default environment, round to nearest and no DAZ, as every fp32 op of
 * the C simulation assumes). NaN keeps its sign and top payload bits, made
 * quiet. */
static inline uint32_t tg__f32_to_narrow(uint32_t x, int ebits, int mb, int bias)
{
    const int sh = 23 - mb;
    const uint32_t inf = ((1u << ebits) - 1u) << mb;
    /* the format's least normal; none for tf32, whose subnormals are fp32's
     * rounded on the bits (no float add, whatever FTZ/DAZ says) */
    const uint32_t tiny = bias >= 127 ? 0u : (uint32_t)(128 - bias) << 23;
    const uint32_t magic = (uint32_t)(151 - bias - mb) << 23;    /* 2^(24-bias-mb) */
    uint32_t sign = (x >> 31) << (ebits + mb);
    uint32_t ax = x & 0x7fffffffu;
    uint32_t nrm = ((ax + (1u << (sh - 1)) - 1u + ((ax >> sh) & 1u)) >> sh) - ((uint32_t)(127 - bias) << mb);
    uint32_t sub = tg_f32_bits(tg_bits_f32(ax) + tg_bits_f32(magic)) - magic;
    uint32_t r = ax < tiny ? sub : nrm;
    uint32_t nan = inf | (1u << (mb - 1)) | ((ax >> sh) & ((1u << mb) - 1u));
    r = r > inf ? inf : r; /* overflow (and fp32 inf) → inf */
    return sign | (ax > 0x7f800000u ? nan : r);
}

/* Narrow bits → fp32: exact. Rebias by multiplying by 2^(127-bias) (exact for
 * normals and subnormals alike); inf/NaN rebuilt, NaN made quiet. The vector
 * rows take subnormals another way (tg_simd.h TG_NARROW_WIDEN_V, the same
 * values); here, where a generated kernel's loops inline it, that form
 * measured slower (bench/probes d04: 6.2 -> 9.8 ms). */
static inline float tg__narrow_to_f32(uint32_t h, int ebits, int mb, float rebias)
{
    uint32_t sbit = 1u << (ebits + mb);
    uint32_t inf = ((1u << ebits) - 1u) << mb;
    uint32_t em = h & (sbit - 1u);
    uint32_t sign = (h & sbit) ? 0x80000000u : 0u;
    float mag = tg_bits_f32(em << (23 - mb)) * rebias;
    uint32_t special = 0x7f800000u | ((em & ((1u << mb) - 1u)) << (23 - mb));
    uint32_t bits;
    if ((em & ((1u << mb) - 1u)) != 0)
        special |= 0x00400000u; /* NaN → quiet NaN */
    bits = em >= inf ? special : tg_f32_bits(mag);
    return tg_bits_f32(bits | sign);
}

/* ---- bfloat16 (1/8/7) ---------------------------------------------------- */
static inline float tg_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    /* quiet a NaN: exponent all ones and mantissa non-zero */
    if ((u & 0x7fffffffu) > 0x7f800000u)
        u |= 0x00400000u;
    return tg_bits_f32(u);
}
static inline uint16_t tg_f32_to_bf16(float f)
{
    uint32_t x = tg_f32_bits(f);
    uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16; /* RNE; carries into exp → inf */
    uint32_t n = (x >> 16) | 0x40u;                       /* quiet NaN, payload kept */
    return (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? n : r);
}
/* The two for operands and results of ops that make every NaN canonical
 * (tg_sim.h's tg_rdn_bf16 / tg_wrc_bf16): the widening without quieting a
 * NaN, and the rounding of an f that is not NaN or is the canonical NaN
 * 0x7fc00000, which RNE takes to 0x7fc0 as tg_f32_to_bf16 does. */
static inline float tg_bf16_to_f32_any(uint16_t h) { return tg_bits_f32((uint32_t)h << 16); }
static inline uint16_t tg_f32_to_bf16_canon(float f)
{
    uint32_t x = tg_f32_bits(f);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* ---- float16 (1/5/10, bias 15) ------------------------------------------- */
static inline float tg_f16_to_f32(uint16_t h) { return tg__narrow_to_f32(h, 5, 10, 0x1p112f); }
static inline uint16_t tg_f32_to_f16(float f) { return (uint16_t)tg__f32_to_narrow(tg_f32_bits(f), 5, 10, 15); }

/* ---- float8_e4m3 (1/4/3, bias 7, IEEE-style: max 240, has inf) ---------- */
static inline float tg_e4m3_to_f32(uint8_t h) { return tg__narrow_to_f32(h, 4, 3, 0x1p120f); }
static inline uint8_t tg_f32_to_e4m3(float f) { return (uint8_t)tg__f32_to_narrow(tg_f32_bits(f), 4, 3, 7); }

/* ---- float8_e5m2 (1/5/2, bias 15: max 57344) ----------------------------- */
static inline float tg_e5m2_to_f32(uint8_t h) { return tg__narrow_to_f32(h, 5, 2, 0x1p112f); }
static inline uint8_t tg_f32_to_e5m2(float f) { return (uint8_t)tg__f32_to_narrow(tg_f32_bits(f), 5, 2, 15); }

/* ---- tfloat32 (1/8/10, stored in a float) -------------------------------- */
static inline float tg_f32_to_tf32(float f)
{
    uint32_t n = tg__f32_to_narrow(tg_f32_bits(f), 8, 10, 127);
    return tg_bits_f32(n << 13);
}

/* ---- integers ------------------------------------------------------------ */
/* fp32 → nearest integer (ties to even) as int64, NaN → 0, |x| clamped to
 * 2^40 first (enough for every 32-bit range). */
static inline int64_t tg__f32_rne_i64(float f)
{
    uint32_t x = tg_f32_bits(f);
    uint32_t ax = x & 0x7fffffffu;
    uint32_t ef = ax >> 23;
    uint64_t m = (ax & 0x7fffffu) | 0x800000u;
    uint64_t q;
    int64_t v;
    if (ax > 0x7f800000u)
        return 0;                    /* NaN */
    if (ef < 126)
        return 0;                    /* |x| < 0.5 (incl. subnormals, zeros) */
    if (ef >= 127 + 40)
        q = (uint64_t)1 << 40;       /* huge or inf: clamp */
    else if (ef >= 150)
        q = m << (ef - 150);
    else {
        uint32_t sh = 150 - ef;      /* 1..24 */
        uint64_t rem = m & (((uint64_t)1 << sh) - 1u);
        uint64_t half = (uint64_t)1 << (sh - 1);
        q = m >> sh;
        q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
    }
    v = (int64_t)q;
    return (x >> 31) ? -v : v;
}
static inline int64_t tg__clamp_i64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}
/* The same for the ranges within int32's, without a branch (loops of it
 * vectorize: an int32 add stored as int32 was scalar and branchy). Where
 * floats are evaluated in their own precision (__FLT_EVAL_METHOD__ 0): f
 * rounded to the nearest integer, ties to even, by adding and taking away
 * 2^23 (past which every float is an integer; the sum's rounding is the
 * nearest-even rounding of f), then clamped in float to [lo, hi] (floats
 * that are integers, hi below 2^31), NaN → 0, and converted exactly;
 * `above` for r > hi (int32's INT32_MAX, hi being the float below 2^31).
 * A zero r keeps no sign: with SSE4.1, gcc turns (float)(int32_t)c, which
 * the generated code writes when an int tile is read back (tg_rd_i32 of
 * tg_wr_i32), into roundss(c), and roundss(-0) is -0 where the integer 0
 * widens to +0 (tests/numerics/fuzz_diff_cases/int-cast-negzero).
 * Every fp32 bit pattern gives tg__f32_rne_i64's clamped value
 * (tests/unit/test_dtype.c test_int_casts; all 2^32 checked once). */
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ == 0
static inline int32_t tg__f32_to_int_fast(float f, float lo, float hi, int32_t above)
{
    const float big = 8388608.0f;                              /* 2^23 */
    const float z = f == f ? f : 0.0f;                         /* NaN → 0 */
    const float a = tg_bits_f32(tg_f32_bits(z) & 0x7fffffffu); /* |z| */
    float r = a < big ? (a + big) - big : a;
    const uint32_t rb = tg_f32_bits(r);
    r = tg_bits_f32(rb | (tg_f32_bits(z) & 0x80000000u & (0u - (uint32_t)(rb != 0u))));
    const float c = r > hi ? hi : (r < lo ? lo : r);
    return r > hi ? above : (int32_t)c;
}
#define TG__F32_TO_INT(f, lo, hi, above) tg__f32_to_int_fast(f, lo, hi, above)
/* The 8- and 16-bit ranges (|lo|, hi < 2^22) in fewer steps: NaN → 0, f
 * clamped to [lo, hi] first (rounding is monotonic and keeps the integers
 * lo and hi, so clamping before it gives what clamping after does), then
 * c + 1.5·2^23, in [2^23, 2^24) where floats are the integers: its
 * rounding is c's nearest-even one, and its bits less 1.5·2^23's are that
 * integer. No sign on a zero (integer arithmetic). The store of a PSUM
 * tile into uint8 spent 40 % of a uint8 transpose in the form above
 * (bench/probes g02). */
static inline int32_t tg__f32_to_int_small(float f, float lo, float hi)
{
    const float z = f == f ? f : 0.0f;
    const float c = z > hi ? hi : (z < lo ? lo : z);
    return (int32_t)tg_f32_bits(c + 0x1.8p23f) - 0x4b400000;
}
#define TG__F32_TO_SMALL(f, lo, hi) tg__f32_to_int_small(f, lo, hi)
#else
#define TG__F32_TO_INT(f, lo, hi, above) ((int32_t)tg__clamp_i64(tg__f32_rne_i64(f), (int64_t)(lo), (int64_t)(above)))
#define TG__F32_TO_SMALL(f, lo, hi) TG__F32_TO_INT(f, lo, hi, (int32_t)(hi))
#endif
static inline int8_t tg_f32_to_i8(float f) { return (int8_t)TG__F32_TO_SMALL(f, -128.0f, 127.0f); }
static inline uint8_t tg_f32_to_u8(float f) { return (uint8_t)TG__F32_TO_SMALL(f, 0.0f, 255.0f); }
static inline int16_t tg_f32_to_i16(float f) { return (int16_t)TG__F32_TO_SMALL(f, -32768.0f, 32767.0f); }
static inline uint16_t tg_f32_to_u16(float f) { return (uint16_t)TG__F32_TO_SMALL(f, 0.0f, 65535.0f); }
static inline int32_t tg_f32_to_i32(float f) { return TG__F32_TO_INT(f, -2147483648.0f, 2147483520.0f, INT32_MAX); }
static inline uint32_t tg_f32_to_u32(float f) { return (uint32_t)tg__clamp_i64(tg__f32_rne_i64(f), 0, UINT32_MAX); }

/* ---- one element of any dtype at index i of a storage array -------------- */
float tg_load_f32(const void *base, tg_dtype dt, size_t i);
void tg_store_f32(void *base, tg_dtype dt, size_t i, float v);

/* ---- rows ----------------------------------------------------------------
 * Hot-loop helpers for the common pairs (inline, vectorizable), and the
 * general converter. Rows must not overlap unless dst == src and both dtypes
 * have the same size. */
static inline void tg_row_bf16_to_f32(float *dst, const uint16_t *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] = tg_bf16_to_f32(src[i]);
}
static inline void tg_row_f32_to_bf16(uint16_t *dst, const float *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] = tg_f32_to_bf16(src[i]);
}
static inline void tg_row_f16_to_f32(float *dst, const uint16_t *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] = tg_f16_to_f32(src[i]);
}
static inline void tg_row_f32_to_f16(uint16_t *dst, const float *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] = tg_f32_to_f16(src[i]);
}

/* Row of `n` elements of `st` → fp32. */
void tg_row_to_f32(float *dst, const void *src, tg_dtype st, size_t n);
/* Row of `n` fp32 → `dt` (rounded per the rules above). */
void tg_row_from_f32(void *dst, tg_dtype dt, const float *src, size_t n);
/* Row conversion between any two dtypes: bit copy when equal, else via fp32.
 * Returns 0, or -1 when a dtype is out of range (nothing written). */
int tg_cvt_row(void *dst, tg_dtype dt, const void *src, tg_dtype st, size_t n);

/* The integer an element of dtype `dt` at `p` holds, exactly: an index of an
 * indirect DMA (SPEC.md §2.1), read the same way by the C simulation and the
 * ISS. A float dtype gives -1 (no index: check only accepts integers). */
static inline int64_t tg_index_at(const uint8_t *p, tg_dtype dt)
{
    switch (dt) {
    case TG_INT8: { int8_t v; memcpy(&v, p, sizeof v); return v; }
    case TG_UINT8: { uint8_t v; memcpy(&v, p, sizeof v); return v; }
    case TG_INT16: { int16_t v; memcpy(&v, p, sizeof v); return v; }
    case TG_UINT16: { uint16_t v; memcpy(&v, p, sizeof v); return v; }
    case TG_INT32: { int32_t v; memcpy(&v, p, sizeof v); return v; }
    case TG_UINT32: { uint32_t v; memcpy(&v, p, sizeof v); return v; }
    default: return -1;
    }
}

#endif /* TG_DTYPE_H */
