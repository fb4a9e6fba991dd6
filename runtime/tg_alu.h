/* tg_alu.h — the Vector/GpSimd ALU operators of SPEC.md §2 on fp32 operands
 * (inputs widened to fp32, one fp32 result; the caller casts to the
 * destination dtype): enum, names, dispatcher, and a static inline function
 * per op. Freestanding C99.
 *
 * Semantics (NKI "Supported Math Operators": arithmetic ops convert inputs to
 * fp32; bitvec ops see integer bits):
 *  - add subtract multiply divide: IEEE fp32, round to nearest even.
 *  - a NaN result of any arithmetic op is the one canonical NaN 0x7fc00000
 *    (tg_nan_canon in tg_math.h), whatever NaNs went in.
 *  - maximum / minimum: a NaN operand gives NaN (propagating, like numpy's
 *    np.maximum and IEEE 754-2019 maximum — the hardware's rule is not
 *    documented; this is our documented choice); maximum(+0, −0) = +0,
 *    minimum(+0, −0) = −0.
 *  - power: C99 Annex F pow (pow(x, ±0) = 1, pow(1, y) = 1, negative base
 *    with non-integer exponent = NaN, ...), via the runtime's exp/log in fp64
 *    (max error 1 ulp, see tg_math.h).
 *  - equal not_equal greater greater_equal less less_equal: 1.0 or 0.0, IEEE
 *    comparisons (any NaN compares unequal, so not_equal(NaN, x) = 1).
 *  - logical_and / logical_or / logical_xor: operands are true when != 0
 *    (NaN counts as true); result 1.0 or 0.0.
 *  - bitwise_and / bitwise_or / bitwise_xor / left_shift / right_shift: each
 *    operand is first rounded to an integer (RNE, NaN → 0, tg_dtype.h rules)
 *    and taken as a 32-bit two's-complement pattern (so both int32 −1 and
 *    uint32 4294967295 are 0xffffffff). The result pattern reads back as
 *    int32 when either operand was negative, else as uint32, then converts to
 *    fp32 (exact below 2^24 — integer tiles beyond that are lossy in fp32
 *    anyway; the integer-native path is tg_alu_bits). Shifts are logical in
 *    both directions (NKI has no arithmetic right shift); the shift count is
 *    the second operand, and a count outside 0..31 gives 0.
 *  - abs: |a|, the second operand ignored (sign bit cleared; NaN stays NaN).
 */
#ifndef TG_ALU_H
#define TG_ALU_H

#include <stdint.h>

#include "tg_dtype.h"
#include "tg_math.h"

/* X(ENUM_SUFFIX, spec_name), in SPEC.md §2 order. */
#define TG_ALU_OPS(X)                                                                  \
    X(ADD, add) X(SUBTRACT, subtract) X(MULTIPLY, multiply) X(DIVIDE, divide)          \
    X(MAXIMUM, maximum) X(MINIMUM, minimum) X(POWER, power) X(EQUAL, equal)            \
    X(NOT_EQUAL, not_equal) X(GREATER, greater) X(GREATER_EQUAL, greater_equal)        \
    X(LESS, less) X(LESS_EQUAL, less_equal) X(LOGICAL_AND, logical_and)                \
    X(LOGICAL_OR, logical_or) X(LOGICAL_XOR, logical_xor) X(BITWISE_AND, bitwise_and)  \
    X(BITWISE_OR, bitwise_or) X(BITWISE_XOR, bitwise_xor) X(LEFT_SHIFT, left_shift)    \
    X(RIGHT_SHIFT, right_shift) X(ABS, abs)

typedef enum tg_alu_op {
#define TG_ALU_ENUM(ID, id) TG_ALU_##ID,
    TG_ALU_OPS(TG_ALU_ENUM)
#undef TG_ALU_ENUM
    TG_ALU_COUNT
} tg_alu_op;

/* Spec spelling of `op`; "?" when out of range. */
const char *tg_alu_name(tg_alu_op op);
/* The op spelled by the `len` bytes at `s`, or -1. */
int tg_alu_from_name(const char *s, size_t len);
/* 1 for the bitvec ops (bitwise_*, shifts), which need integer dtypes. */
int tg_alu_is_bitvec(tg_alu_op op);
/* Dispatcher: a op b; NaN for an out-of-range op. */
float tg_alu(tg_alu_op op, float a, float b);
/* The bitvec ops on raw 32-bit patterns (for integer tiles kept as integers);
 * non-bitvec ops return 0. */
uint32_t tg_alu_bits(tg_alu_op op, uint32_t a, uint32_t b);

/* ---- int32 rows ------------------------------------------------------------
 * The elementwise ops on integer sources as the engines compute them (each
 * operand to fp32, the op's fp32 result converted to dst's dtype), with
 * int32 arithmetic wherever that gives the same values (tg_alu.c). Rows are
 * n consecutive elements, at bytes d (dtype dt) and a, b, s (dtype st, one
 * tg_alu_i32_src takes); d may be a source itself but no other overlap. */
/* 1 when op has an exact int32 form (else those rows run the fp32 ops). */
int tg_alu_i32_exact(tg_alu_op op);
/* 1 when a tensor_scalar stage of op may run in int32: the exact ops and
 * the shifts (by a count in [0, 31], operands in range: tg_alu.c). */
int tg_alu_i32_scalar_op(tg_alu_op op);
/* 1 when the rows take sources of dtype st: int8, uint8, int16, uint16 and
 * int32 (every value exact in int32). */
int tg_alu_i32_src(tg_dtype st);

/* The ops tg_tensor_tensor_f32_row and tg_tensor_scalar_f32_row run
 * (tg_ops.h): every op but power (inline and branch-free, tg_math_powv: its
 * element loops vectorize in the kernel's own bodies) and the bitvec ops
 * (integer patterns), X(ENUM_SUFFIX, spec_name) as TG_ALU_OPS. */
#define TG_ALU_F32_ROW_OPS(X)                                                         \
    X(ADD, add) X(SUBTRACT, subtract) X(MULTIPLY, multiply) X(DIVIDE, divide)        \
    X(MAXIMUM, maximum) X(MINIMUM, minimum) X(EQUAL, equal) X(NOT_EQUAL, not_equal)  \
    X(GREATER, greater) X(GREATER_EQUAL, greater_equal) X(LESS, less)                \
    X(LESS_EQUAL, less_equal) X(LOGICAL_AND, logical_and) X(LOGICAL_OR, logical_or)  \
    X(LOGICAL_XOR, logical_xor) X(ABS, abs)
/* 1 if `op` is one of them. */
int tg_alu_f32_row_op(tg_alu_op op);
/* d[j] = a[j] op b[j]: tensor_tensor. */
void tg_tensor_tensor_i32(tg_alu_op op, uint8_t *d, tg_dtype dt, const uint8_t *a, const uint8_t *b, tg_dtype st,
                          int64_t n);
/* d[j] = s[j] op[0] c[0], then op[1] c[1] when nst is 2; rev[k]: c[k] op
 * x instead: tensor_scalar's stages. */
void tg_tensor_scalar_i32(uint8_t *d, tg_dtype dt, const uint8_t *s, tg_dtype st, int64_t n, int nst,
                          const tg_alu_op op[2], const float c[2], const int rev[2]);
/* Which SIMD body the int32 rows run: 1 baseline, 2 AVX2 (x86-64 without
 * -march: picked from the CPU at the first call), as tg_matmul_isa (tg_ops.h)
 * for the rows there (here 2 at most). cap >= 1 limits it from then on
 * (tests run every body; not thread-safe); cap <= 0 only asks. Returns the level in effect; every
 * level gives the same bits. */
int tg_alu_isa(int cap);

/* ---- per-op functions ------------------------------------------------------ */
/* tg_alu_raw_<op>: the op with whatever NaN the host makes; tg_alu_<op>: the
 * same with the canonical NaN (tg_nan_canon). A left fold may run on the raw
 * ops and canonicalize once at the end (and a scan each output): whether a
 * result is NaN never depends on which NaN went in, so the bits are those of
 * the canonical op at every step, without a NaN check on the fold's chain. */
static inline float tg_alu_raw_add(float a, float b) { return a + b; }
static inline float tg_alu_raw_subtract(float a, float b) { return a - b; }
static inline float tg_alu_raw_multiply(float a, float b) { return a * b; }
static inline float tg_alu_raw_divide(float a, float b) { return a / b; }
/* maximum and minimum as selects, no branch, so a loop of them (a
 * partition_reduce's column folds) vectorizes: a NaN operand gives a + b (a
 * NaN); equal operands give the AND of their bits for maximum (+0 of ±0,
 * else the value itself) and the OR for minimum (−0 of ±0); else the greater
 * (lesser). The bits of the branchy form they replaced (test_alu.c
 * test_max_min_selects: every pair of a set of specials and a random sweep). */
/* r where the mask e is all ones, else m (masks from a compare, 0u - c):
 * the two selects below as bit operations, which gcc keeps free of branches
 * in scalar code too (a loop's remainder after its vector part: bf16 rows of
 * 56 elements, bench/probes w02_maxpool2d_bf16, 9.6 -> 7.1 ms; the AVX-512
 * maximum row 0.100 -> 0.073 ns an element) */
static inline uint32_t tg__alu_pick(uint32_t e, uint32_t r, uint32_t m) { return (r & e) | (m & ~e); }
static inline float tg_alu_raw_maximum(float a, float b)
{
    const float m = a > b ? a : b;
    const uint32_t eq = 0u - (uint32_t)(a == b), un = 0u - (uint32_t)TG_UNORDERED(a, b);
    const uint32_t r = tg__alu_pick(eq, tg_f32_bits(a) & tg_f32_bits(b), tg_f32_bits(m));
    return tg_bits_f32(tg__alu_pick(un, tg_f32_bits(a + b), r));
}
static inline float tg_alu_raw_minimum(float a, float b)
{
    const float m = a < b ? a : b;
    const uint32_t eq = 0u - (uint32_t)(a == b), un = 0u - (uint32_t)TG_UNORDERED(a, b);
    const uint32_t r = tg__alu_pick(eq, tg_f32_bits(a) | tg_f32_bits(b), tg_f32_bits(m));
    return tg_bits_f32(tg__alu_pick(un, tg_f32_bits(a + b), r));
}
TG_MATH_INLINE float tg_alu_raw_power(float a, float b) { return tg_math_powv(a, b); }
static inline float tg_alu_add(float a, float b) { return tg_nan_canon(a + b); }
static inline float tg_alu_subtract(float a, float b) { return tg_nan_canon(a - b); }
static inline float tg_alu_multiply(float a, float b) { return tg_nan_canon(a * b); }
static inline float tg_alu_divide(float a, float b) { return tg_nan_canon(a / b); }
static inline float tg_alu_maximum(float a, float b) { return tg_nan_canon(tg_alu_raw_maximum(a, b)); }
static inline float tg_alu_minimum(float a, float b) { return tg_nan_canon(tg_alu_raw_minimum(a, b)); }
TG_MATH_INLINE float tg_alu_power(float a, float b) { return tg_nan_canon(tg_math_powv(a, b)); }
/* power with the number 2 as exponent, in two parts for a loop that checks
 * first (kernel.c.j2 `pow2_rows`): a·a in double is exact (48 significant
 * bits at most), so rounded once to fp32 it is the correctly rounded square.
 * tg_math_powv's result is exp(2·ln|a|) in double, off the exact square by
 * up to about |2 ln a|·2^-52 relative (under 2^-45.5 for a normal square),
 * so it rounds the same way unless the square lies that close to a point
 * halfway between two fp32 values. tg_alu_pow2_slow(a) flags those: a square
 * within 2^9 units of 2^-52 (relative to its binade) of such a point, ties
 * included, or below 2^-126 and not 0 (an fp32 subnormal result). Every
 * other fp32 a, NaN, ±inf, ±0 and overflow included, gives tg_alu_power's
 * bits with tg_alu_pow2_sq. Over all 2^32 inputs: the squares where the two
 * differ lie at most 2^5 units from the halfway point (the nearest a square
 * that is not a tie can lie), and none is unflagged; test_alu.c
 * test_pow2_split sweeps them. About 2^-19 of random normal inputs are
 * flagged. A row with no flagged element takes tg_alu_pow2_sq; otherwise the
 * row runs tg_alu_power. */
static inline float tg_alu_pow2_sq(float a) { return tg_nan_canon((float)((double)a * (double)a)); }
static inline uint32_t tg_alu_pow2_slow(float a)
{
    union {
        double d;
        uint64_t u;
    } v;
    v.d = (double)a * (double)a;
    /* the 29 bits fp32 drops, against the halfway point 0x10000000 */
    const uint32_t off = (uint32_t)(v.u & 0x1fffffffu) - 0x10000000u + 0x200u;
    return (uint32_t)(off < 0x400u) | (uint32_t)((v.d < 0x1p-126) & (v.d != 0.0));
}
static inline float tg_alu_equal(float a, float b) { return a == b ? 1.0f : 0.0f; }
static inline float tg_alu_not_equal(float a, float b) { return a != b ? 1.0f : 0.0f; }
static inline float tg_alu_greater(float a, float b) { return a > b ? 1.0f : 0.0f; }
static inline float tg_alu_greater_equal(float a, float b) { return a >= b ? 1.0f : 0.0f; }
static inline float tg_alu_less(float a, float b) { return a < b ? 1.0f : 0.0f; }
static inline float tg_alu_less_equal(float a, float b) { return a <= b ? 1.0f : 0.0f; }
static inline float tg_alu_logical_and(float a, float b) { return (a != 0.0f) && (b != 0.0f) ? 1.0f : 0.0f; }
static inline float tg_alu_logical_or(float a, float b) { return (a != 0.0f) || (b != 0.0f) ? 1.0f : 0.0f; }
static inline float tg_alu_logical_xor(float a, float b) { return (a != 0.0f) != (b != 0.0f) ? 1.0f : 0.0f; }

/* fp32 → 32-bit pattern (RNE, NaN → 0, saturating at ±2^40 then mod 2^32). */
static inline uint32_t tg__alu_pattern(float a) { return (uint32_t)(uint64_t)tg__f32_rne_i64(a); }
/* Pattern → fp32: signed if either operand was negative. */
static inline float tg__alu_back(uint32_t r, float a, float b)
{
    int64_t v = (int64_t)r;
    if ((a < 0.0f || b < 0.0f) && (r >> 31))
        v -= (int64_t)1 << 32;
    return (float)v;
}
static inline float tg_alu_bitwise_and(float a, float b)
{
    return tg__alu_back(tg__alu_pattern(a) & tg__alu_pattern(b), a, b);
}
static inline float tg_alu_bitwise_or(float a, float b)
{
    return tg__alu_back(tg__alu_pattern(a) | tg__alu_pattern(b), a, b);
}
static inline float tg_alu_bitwise_xor(float a, float b)
{
    return tg__alu_back(tg__alu_pattern(a) ^ tg__alu_pattern(b), a, b);
}
static inline float tg_alu_left_shift(float a, float b)
{
    int64_t n = tg__f32_rne_i64(b);
    return tg__alu_back(n < 0 || n > 31 ? 0u : tg__alu_pattern(a) << n, a, b);
}
static inline float tg_alu_right_shift(float a, float b)
{
    int64_t n = tg__f32_rne_i64(b);
    return tg__alu_back(n < 0 || n > 31 ? 0u : tg__alu_pattern(a) >> n, a, b);
}
static inline float tg_alu_abs(float a, float b)
{
    (void)b;
    return tg_act_abs(a);
}

/* The ops that never make a NaN (comparisons, logical, bitvec, abs) are
 * their own raw versions. */
#define TG_ALU_SAME_RAW(id)                                                                                       \
    static inline float tg_alu_raw_##id(float a, float b) { return tg_alu_##id(a, b); }
TG_ALU_SAME_RAW(equal) TG_ALU_SAME_RAW(not_equal) TG_ALU_SAME_RAW(greater) TG_ALU_SAME_RAW(greater_equal)
TG_ALU_SAME_RAW(less) TG_ALU_SAME_RAW(less_equal) TG_ALU_SAME_RAW(logical_and) TG_ALU_SAME_RAW(logical_or)
TG_ALU_SAME_RAW(logical_xor) TG_ALU_SAME_RAW(bitwise_and) TG_ALU_SAME_RAW(bitwise_or)
TG_ALU_SAME_RAW(bitwise_xor) TG_ALU_SAME_RAW(left_shift) TG_ALU_SAME_RAW(right_shift) TG_ALU_SAME_RAW(abs)
#undef TG_ALU_SAME_RAW

#endif /* TG_ALU_H */
