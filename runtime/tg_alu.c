/* tg_alu.c — the ALU operator table: names, lookup, the dispatcher over the
 * static inline per-op functions of tg_alu.h, and the bitvec ops on raw
 * 32-bit patterns for integer tiles. Freestanding C99. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_alu.h"
#include "tg_simd.h"

static const char *const tg_alu_names[TG_ALU_COUNT] = {
#define TG_ALU_NAME(ID, id) #id,
    TG_ALU_OPS(TG_ALU_NAME)
#undef TG_ALU_NAME
};

const char *tg_alu_name(tg_alu_op op)
{
    return (unsigned)op < (unsigned)TG_ALU_COUNT ? tg_alu_names[op] : "?";
}

int tg_alu_from_name(const char *s, size_t len)
{
    return tg_name_find(tg_alu_names, TG_ALU_COUNT, s, len);
}

int tg_alu_is_bitvec(tg_alu_op op)
{
    return op == TG_ALU_BITWISE_AND || op == TG_ALU_BITWISE_OR || op == TG_ALU_BITWISE_XOR ||
           op == TG_ALU_LEFT_SHIFT || op == TG_ALU_RIGHT_SHIFT;
}

float tg_alu(tg_alu_op op, float a, float b)
{
    switch (op) {
#define TG_ALU_CASE(ID, id) case TG_ALU_##ID: return tg_alu_##id(a, b);
        TG_ALU_OPS(TG_ALU_CASE)
#undef TG_ALU_CASE
    default: return tg_bits_f32(0x7fc00000u);
    }
}

uint32_t tg_alu_bits(tg_alu_op op, uint32_t a, uint32_t b)
{
    switch (op) {
    case TG_ALU_BITWISE_AND: return a & b;
    case TG_ALU_BITWISE_OR: return a | b;
    case TG_ALU_BITWISE_XOR: return a ^ b;
    case TG_ALU_LEFT_SHIFT: return b > 31 ? 0u : a << b;
    case TG_ALU_RIGHT_SHIFT: return b > 31 ? 0u : a >> b;
    default: return 0;
    }
}

/* ---- int32 rows ------------------------------------------------------------
 * An int32 value v with -2^23 <= v < 2^23 is exact in fp32, and so are the
 * results of add, subtract, maximum, minimum, the comparisons, the logical ops
 * and bitwise and/or/xor on two of them (|result| <= 2^24; the bitwise
 * results of two 24-bit two's-complement values are one too); multiply is
 * exact below 2^11 (|product| <= 2^22), the sign of a zero aside
 * (tg__i32_bound_to). On such operands the int32 op gives the fp32 op's
 * value, which converts to any dtype as that value would.
 * A row whose operands are all in range runs the int32 op from the sources
 * straight to an int32 or uint8 dst; otherwise each block of TG_I32_BLOCK
 * elements is checked on its own and runs the int32 op, or the fp32 ops of
 * tg_alu.h when an operand is outside. Loops have constant trip counts, so
 * they vectorize at -O2.
 * Sources may be int8, uint8, int16 or uint16 too (tg_alu_i32_src), each
 * value widened to int32 (exact, as in fp32); uint8 rows run whole from the
 * bytes (every value in every op's range). A tensor_scalar stage may shift
 * (x << n, x >> n) by a count n, an integer in [0, 31], when x lies in
 * [0, L): L = 2^23 for >>, 2^23 >> n for <<; then the element form's bit
 * pattern of x is x, its result is the int32 shift's, below 2^23 and not
 * negative (exact in fp32, no sign to put back). Unpacking 4-bit codes from
 * uint8 bytes by bitwise_and and right_shift (bench/probes v02) ran each
 * element through the fp32 form: 18.3 ms, 0.37 of numpy's time. */
#define TG_I32_BLOCK 64

/* The half-range B an operand of op must lie in (-B <= v < B) for the
 * exact int32 op, or 0: no int32 op (the fp32 ops always). */
static uint32_t tg__i32_bound(tg_alu_op op)
{
    switch (op) {
    case TG_ALU_MULTIPLY:
        return 1u << 11;
    case TG_ALU_ADD: case TG_ALU_SUBTRACT: case TG_ALU_MAXIMUM: case TG_ALU_MINIMUM:
    case TG_ALU_EQUAL: case TG_ALU_NOT_EQUAL: case TG_ALU_GREATER: case TG_ALU_GREATER_EQUAL:
    case TG_ALU_LESS: case TG_ALU_LESS_EQUAL: case TG_ALU_LOGICAL_AND: case TG_ALU_LOGICAL_OR:
    case TG_ALU_LOGICAL_XOR: case TG_ALU_BITWISE_AND: case TG_ALU_BITWISE_OR: case TG_ALU_BITWISE_XOR:
        return 1u << 23;
    default:
        return 0;
    }
}

int tg_alu_i32_exact(tg_alu_op op)
{
    return tg__i32_bound(op) != 0;
}

int tg_alu_i32_scalar_op(tg_alu_op op)
{
    return tg_alu_i32_exact(op) || op == TG_ALU_LEFT_SHIFT || op == TG_ALU_RIGHT_SHIFT;
}

int tg_alu_i32_src(tg_dtype st)
{
    return st == TG_INT8 || st == TG_UINT8 || st == TG_INT16 || st == TG_UINT16 || st == TG_INT32;
}

int tg_alu_f32_row_op(tg_alu_op op)
{
    switch (op) {
#define TG_ROW_OK(ID, id) case TG_ALU_##ID:
        TG_ALU_F32_ROW_OPS(TG_ROW_OK)
#undef TG_ROW_OK
        return 1;
    default:
        return 0;
    }
}

static inline int32_t tg__ld_i32(const uint8_t *p, int64_t j)
{
    int32_t v;
    memcpy(&v, p + j * 4, sizeof v);
    return v;
}
static inline void tg__st_i32(uint8_t *p, int64_t j, int32_t v) { memcpy(p + j * 4, &v, sizeof v); }
static inline int32_t tg__ld_u16(const uint8_t *p, int64_t j)
{
    uint16_t h;
    memcpy(&h, p + 2 * j, sizeof h);
    return h;
}
static inline void tg__st_u8(uint8_t *p, int64_t j, int32_t v) { p[j] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }
static inline void tg__st_i8(uint8_t *p, int64_t j, int32_t v)
{
    const int8_t b = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    memcpy(p + j, &b, 1);
}
static inline void tg__st_i16(uint8_t *p, int64_t j, int32_t v)
{
    const int16_t h = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
    memcpy(p + 2 * j, &h, sizeof h);
}
static inline void tg__st_u16(uint8_t *p, int64_t j, int32_t v)
{
    const uint16_t h = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
    memcpy(p + 2 * j, &h, sizeof h);
}

/* 1 when each of the nb (a multiple of TG_I32_BLOCK) int32 at p lies in
 * [-b, b) (b a power of two): the sum v + b of each is below 2b, so is their
 * OR, and only then. */
static inline int tg__i32_in(const uint8_t *p, int64_t nb, uint32_t b)
{
    uint32_t o = 0;
    for (int64_t i = 0; i < nb; i += TG_I32_BLOCK)
        for (int j = 0; j < TG_I32_BLOCK; j++)
            o |= (uint32_t)tg__ld_i32(p, i + j) + b;
    return o < 2 * b;
}

/* 1 when each of the nb (a multiple of TG_I32_BLOCK) int32 at p lies in
 * [0, lim): a shift's operands */
static inline int tg__u32_in(const uint8_t *p, int64_t nb, uint32_t lim)
{
    uint32_t o = 0;
    for (int64_t i = 0; i < nb; i += TG_I32_BLOCK)
        for (int j = 0; j < TG_I32_BLOCK; j++)
            o |= (uint32_t)tg__ld_i32(p, i + j) >= lim;
    return !o;
}


/* ST(j, x op y) for j < nb (X, Y: expressions in j), in int32, each operand
 * in range; one loop per op. */
#define TG_I32_LOOP(nb, ST, E)                                                                \
    for (int64_t i_ = 0; i_ < (nb); i_ += TG_I32_BLOCK)                                       \
        for (int64_t j = i_; j < i_ + TG_I32_BLOCK; j++)                                      \
            ST(j, E);                                                                         \
    break;
#define TG_I32_OPS(op, nb, ST, X, Y)                                                          \
    switch (op) {                                                                             \
    case TG_ALU_ADD: TG_I32_LOOP(nb, ST, X + Y)                                               \
    case TG_ALU_SUBTRACT: TG_I32_LOOP(nb, ST, X - Y)                                          \
    case TG_ALU_MULTIPLY: TG_I32_LOOP(nb, ST, X * Y)                                          \
    case TG_ALU_MAXIMUM: TG_I32_LOOP(nb, ST, X > Y ? X : Y)                                   \
    case TG_ALU_MINIMUM: TG_I32_LOOP(nb, ST, X < Y ? X : Y)                                   \
    case TG_ALU_EQUAL: TG_I32_LOOP(nb, ST, X == Y)                                            \
    case TG_ALU_NOT_EQUAL: TG_I32_LOOP(nb, ST, X != Y)                                        \
    case TG_ALU_GREATER: TG_I32_LOOP(nb, ST, X > Y)                                           \
    case TG_ALU_GREATER_EQUAL: TG_I32_LOOP(nb, ST, X >= Y)                                    \
    case TG_ALU_LESS: TG_I32_LOOP(nb, ST, X < Y)                                              \
    case TG_ALU_LESS_EQUAL: TG_I32_LOOP(nb, ST, X <= Y)                                       \
    case TG_ALU_LOGICAL_AND: TG_I32_LOOP(nb, ST, (int)(X != 0) & (int)(Y != 0))               \
    case TG_ALU_LOGICAL_OR: TG_I32_LOOP(nb, ST, (int)(X != 0) | (int)(Y != 0))                \
    case TG_ALU_LOGICAL_XOR: TG_I32_LOOP(nb, ST, (int)(X != 0) ^ (int)(Y != 0))               \
    case TG_ALU_BITWISE_AND: TG_I32_LOOP(nb, ST, X & Y)                                       \
    case TG_ALU_BITWISE_OR: TG_I32_LOOP(nb, ST, X | Y)                                        \
    case TG_ALU_BITWISE_XOR: TG_I32_LOOP(nb, ST, X ^ Y)                                       \
    case TG_ALU_LEFT_SHIFT: TG_I32_LOOP(nb, ST, (int32_t)((uint32_t)(X) << (Y)))              \
    case TG_ALU_RIGHT_SHIFT: TG_I32_LOOP(nb, ST, (int32_t)((uint32_t)(X) >> (Y)))             \
    default: break;                                                                           \
    }
/* f[j] = tg_alu_<op>(X, Y) in fp32 for j < TG_I32_BLOCK, one loop per op. */
#define TG_F32_CASE_(ID, id) case TG_ALU_##ID: TG_I32_LOOP(TG_I32_BLOCK, TG_ST_F, tg_alu_##id(F32_X_, F32_Y_))
#define TG_F32_OPS(op)                                                                        \
    switch (op) {                                                                             \
        TG_ALU_OPS(TG_F32_CASE_)                                                              \
    default: TG_I32_LOOP(TG_I32_BLOCK, TG_ST_F, tg_bits_f32(0x7fc00000u))                     \
    }
#define TG_ST_R(j, v) r[j] = (v)
#define TG_ST_F(j, v) f[j] = (v)
#define TG_ST_I32(j, v) tg__st_i32(d, j, v)
#define TG_ST_U8(j, v) tg__st_u8(d, j, v)
#define TG_ST_I8(j, v) tg__st_i8(d, j, v)
#define TG_ST_I16(j, v) tg__st_i16(d, j, v)
#define TG_ST_U16(j, v) tg__st_u16(d, j, v)
/* The straight path's loop over nb elements into dst dtype dt (int32, or a
 * narrower integer the value is clamped to: the fp32 value's conversion for
 * an integer of at most 2^24, as tg__i32_store). */
#define TG_I32_STRAIGHT(op, nb, X, Y)                                                                        \
    switch (dt) {                                                                                            \
    case TG_INT32: TG_I32_OPS(op, nb, TG_ST_I32, X, Y) break;                                                \
    case TG_UINT8: TG_I32_OPS(op, nb, TG_ST_U8, X, Y) break;                                                 \
    case TG_INT8: TG_I32_OPS(op, nb, TG_ST_I8, X, Y) break;                                                  \
    case TG_INT16: TG_I32_OPS(op, nb, TG_ST_I16, X, Y) break;                                                \
    case TG_UINT16: TG_I32_OPS(op, nb, TG_ST_U16, X, Y) break;                                               \
    default: break;                                                                                          \
    }
#define TG_I32_STRAIGHT_DT(dt)                                                                               \
    ((dt) == TG_INT32 || (dt) == TG_UINT8 || (dt) == TG_INT8 || (dt) == TG_INT16 || (dt) == TG_UINT16)

/* 1 when c is an integer in [-b, b), and not -0 (min(+0, -0) is -0). */
static int tg__c_in(float c, uint32_t b)
{
    return b && c >= -(float)b && c < (float)b && (float)(int32_t)c == c && tg_f32_bits(c) != 0x80000000u;
}

/* A shift stage's L (above): c an integer count in [0, 31], not reversed
 * (a count from the data); else 0, the fp32 form. */
static uint32_t tg__shift_lim(tg_alu_op op, float c, int rev)
{
    if (rev || !(c >= 0.0f && c <= 31.0f) || (float)(int32_t)c != c)
        return 0;
    return op == TG_ALU_RIGHT_SHIFT ? 1u << 23 : op == TG_ALU_LEFT_SHIFT ? (1u << 23) >> (int32_t)c : 0;
}

/* The bound of op writing to dtype dt: a product of 0 and a negative is -0
 * in fp32, which only an integer dtype does not keep apart from +0 (every
 * other op's exact result is +0 where it is zero, and -0 coming into one
 * changes at most the sign of a zero result). */
static uint32_t tg__i32_bound_to(tg_alu_op op, tg_dtype dt)
{
    const int int_dst = dt == TG_INT8 || dt == TG_UINT8 || dt == TG_INT16 || dt == TG_UINT16 || dt == TG_INT32 ||
                        dt == TG_UINT32;
    return op == TG_ALU_MULTIPLY && !int_dst ? 0 : tg__i32_bound(op);
}

#define TG_I32_FN(name) name##_base
#include "tg_i32_rows.h"
#undef TG_I32_FN
#ifdef TG_SIMD_AVX2_BODY
TG_SIMD_AVX2_BEGIN
#define TG_I32_FN(name) name##_avx2
#include "tg_i32_rows.h"
#undef TG_I32_FN
TG_SIMD_AVX2_END
#endif

static int tg__i32_cap = 2; /* tg_alu_isa's limit (tests) */

int tg_alu_isa(int cap)
{
    if (cap >= 1)
        tg__i32_cap = cap < 2 ? cap : 2;
#ifdef TG_SIMD_DETECT
    static int cached;
    return tg_simd_level_capped(&cached, tg__i32_cap);
#else
    return 1;
#endif
}

void tg_tensor_tensor_i32(tg_alu_op op, uint8_t *d, tg_dtype dt, const uint8_t *a, const uint8_t *b, tg_dtype st,
                          int64_t n)
{
#ifdef TG_SIMD_AVX2_BODY
    if (tg_alu_isa(0) >= 2) {
        tg__tt_i32_avx2(op, d, dt, a, b, st, n);
        return;
    }
#endif
    tg__tt_i32_base(op, d, dt, a, b, st, n);
}

void tg_tensor_scalar_i32(uint8_t *d, tg_dtype dt, const uint8_t *s, tg_dtype st, int64_t n, int nst,
                          const tg_alu_op op[2], const float c[2], const int rev[2])
{
#ifdef TG_SIMD_AVX2_BODY
    if (tg_alu_isa(0) >= 2) {
        tg__ts_i32_avx2(d, dt, s, st, n, nst, op, c, rev);
        return;
    }
#endif
    tg__ts_i32_base(d, dt, s, st, n, nst, op, c, rev);
}
#undef TG_I32_OPS
#undef TG_F32_OPS
#undef TG_F32_CASE_
#undef TG_I32_LOOP
#undef TG_ST_R
#undef TG_ST_F
#undef TG_ST_I32
#undef TG_ST_U8
#undef TG_ST_I8
#undef TG_ST_I16
#undef TG_ST_U16
#undef TG_I32_STRAIGHT
#undef TG_I32_STRAIGHT_DT

#include "tg_fp_end.h"
