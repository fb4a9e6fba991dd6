/* tg_sim.h - helpers every generated C simulation uses, in one place instead
 * of a copy per kernel: typed element access to SBUF, PSUM and HBM rows
 * (memcpy, so no strict-aliasing UB; widened to / rounded from fp32 through
 * tg_dtype) and the spec's integer arithmetic (floor division and modulo, min,
 * max). Header-only, freestanding C99. */
#ifndef TG_SIM_H
#define TG_SIM_H

#include <stdint.h>
#include "tg_mem.h"

#include "tg_dtype.h"

/* tg_rd_<sfx>(row, i): element i of a row of that storage type, as fp32.
 * tg_wr_<sfx>(row, i, x): x rounded to that storage type into element i.
 * Two more for the operands and results of ops whose every NaN result is the
 * canonical NaN (docs/numerics.md, "One NaN"):
 * tg_rdn_<sfx>(row, i): as tg_rd, but a NaN may come out signalling — for a
 *   consumer that makes any NaN result canonical and never looks at a NaN's
 *   bits, so which NaN went in never shows;
 * tg_wrc_<sfx>(row, i, x): as tg_wr, for an x that is not NaN or is the
 *   canonical NaN, which the rounding alone takes to the quiet NaN.
 * Only bf16 differs: its widening is a shift once it need not quiet a NaN,
 * and its rounding a carry once it need not test for one. */
#define TG_SIM_RD(NAME, CTYPE, WIDEN)                                    \
    static inline float NAME(const uint8_t *row, int64_t i)              \
    {                                                                     \
        CTYPE v;                                                          \
        memcpy(&v, row + i * (int64_t)sizeof v, sizeof v);                \
        return WIDEN(v);                                                  \
    }
#define TG_SIM_WR(NAME, CTYPE, NARROW)                                   \
    static inline void NAME(uint8_t *row, int64_t i, float x)            \
    {                                                                     \
        CTYPE v = NARROW(x);                                              \
        memcpy(row + i * (int64_t)sizeof v, &v, sizeof v);                \
    }
#define TG_SIM_ACCESSOR(SFX, CTYPE, WIDEN, NARROW, WIDEN_ANY, NARROW_CANON) \
    TG_SIM_RD(tg_rd_##SFX, CTYPE, WIDEN)                                  \
    TG_SIM_WR(tg_wr_##SFX, CTYPE, NARROW)                                 \
    TG_SIM_RD(tg_rdn_##SFX, CTYPE, WIDEN_ANY)                             \
    TG_SIM_WR(tg_wrc_##SFX, CTYPE, NARROW_CANON)

/* One per dtype of SPEC.md §2, suffixes as gen/emit.c names them. */
TG_SIM_ACCESSOR(f32, float, , , , )
TG_SIM_ACCESSOR(tf32, float, , tg_f32_to_tf32, , tg_f32_to_tf32)
TG_SIM_ACCESSOR(bf16, uint16_t, tg_bf16_to_f32, tg_f32_to_bf16, tg_bf16_to_f32_any, tg_f32_to_bf16_canon)
TG_SIM_ACCESSOR(f16, uint16_t, tg_f16_to_f32, tg_f32_to_f16, tg_f16_to_f32, tg_f32_to_f16)
TG_SIM_ACCESSOR(e4m3, uint8_t, tg_e4m3_to_f32, tg_f32_to_e4m3, tg_e4m3_to_f32, tg_f32_to_e4m3)
TG_SIM_ACCESSOR(e5m2, uint8_t, tg_e5m2_to_f32, tg_f32_to_e5m2, tg_e5m2_to_f32, tg_f32_to_e5m2)
TG_SIM_ACCESSOR(i8, int8_t, (float), tg_f32_to_i8, (float), tg_f32_to_i8)
TG_SIM_ACCESSOR(u8, uint8_t, (float), tg_f32_to_u8, (float), tg_f32_to_u8)
TG_SIM_ACCESSOR(i16, int16_t, (float), tg_f32_to_i16, (float), tg_f32_to_i16)
TG_SIM_ACCESSOR(u16, uint16_t, (float), tg_f32_to_u16, (float), tg_f32_to_u16)
TG_SIM_ACCESSOR(i32, int32_t, (float), tg_f32_to_i32, (float), tg_f32_to_i32)
TG_SIM_ACCESSOR(u32, uint32_t, (float), tg_f32_to_u32, (float), tg_f32_to_u32)

#undef TG_SIM_ACCESSOR
#undef TG_SIM_RD
#undef TG_SIM_WR

/* c ? a : b, bit for bit. In an AVX-512 body (`bitwise` a constant 1 there)
 * as an AND/OR of the bits: gcc would fold a's load into a masked blend, and
 * on AMD's cores a masked load from memory not in L1 stalls (bench/probes
 * r03, a causal mask read from HBM: 4.8 ms on the AVX2 body, 6.3 with the
 * masked load, 4.5 with this). Elsewhere a select, which AVX2 blends. */
static inline float tg_select_f32(int bitwise, int c, float a, float b)
{
    if (!bitwise)
        return c ? a : b;
    const uint32_t m = 0u - (uint32_t)(c != 0);
    return tg_bits_f32((tg_f32_bits(a) & m) | (tg_f32_bits(b) & ~m));
}

/* select's move between tiles of one dtype, on the encodings: tg_mv_<sfx>(row,
 * i) is element i as tg_wr_<sfx>(tg_rd_<sfx>(row, i)) leaves it (the fp32
 * round trip keeps every value of these dtypes, and quiets a NaN as the
 * widening does: the format's top mantissa bit set), tg_enc_<sfx>(x) the
 * encoding tg_wr_<sfx> writes for x, tg_sel<W>(bitwise, c, a, b) c ? a : b
 * on W-bit encodings, as tg_select_f32 has it (an AND/OR in AVX-512 code, a
 * blend elsewhere: a probe's AVX2 body 3-5 % slower with the AND/OR), and
 * tg_mvw<W>(row, i, v) stores one. The same bits as the fp32 form of
 * select for every encoding (tests/unit/test_dtype.c test_select_moves,
 * every 8- and 16-bit one). Not for int32/uint32/tf32, whose round trip
 * through fp32 rounds, nor fp32, whose own form is a move. */
/* a float format of E exponent and M mantissa bits in W: a NaN's magnitude
 * lies above the infinity's, all-ones exponent and zero mantissa, and its
 * quiet bit is the mantissa's top one */
#define TG_SIM_MV(SFX, W, E, M)                                                   \
    static inline uint##W##_t tg_mv_##SFX(const uint8_t *row, int64_t i)         \
    {                                                                              \
        uint##W##_t v;                                                             \
        memcpy(&v, row + i * (int64_t)sizeof v, sizeof v);                         \
        const uint##W##_t mag = (uint##W##_t)(v & (uint##W##_t)~((uint##W##_t)1 << (W - 1))); \
        return (uint##W##_t)(mag > ((1u << (E)) - 1u) << (M) ? v | 1u << ((M) - 1) : v); \
    }
#define TG_SIM_MV_RAW(SFX, W)                                                     \
    static inline uint##W##_t tg_mv_##SFX(const uint8_t *row, int64_t i)         \
    {                                                                              \
        uint##W##_t v;                                                             \
        memcpy(&v, row + i * (int64_t)sizeof v, sizeof v);                         \
        return v;                                                                  \
    }
#define TG_SIM_ENC(SFX, W, CTYPE)                                                 \
    static inline uint##W##_t tg_enc_##SFX(float x)                              \
    {                                                                              \
        uint8_t b[sizeof(CTYPE)];                                                  \
        uint##W##_t v;                                                             \
        tg_wr_##SFX(b, 0, x);                                                      \
        memcpy(&v, b, sizeof v);                                                   \
        return v;                                                                  \
    }
#define TG_SIM_SEL(W)                                                             \
    static inline uint##W##_t tg_sel##W(int bitwise, int c, uint##W##_t a, uint##W##_t b) \
    {                                                                              \
        if (!bitwise)                                                              \
            return c ? a : b;                                                      \
        const uint##W##_t m = (uint##W##_t)(0u - (unsigned)(c != 0));              \
        return (uint##W##_t)((a & m) | (b & (uint##W##_t)~m));                     \
    }                                                                              \
    static inline void tg_mvw##W(uint8_t *row, int64_t i, uint##W##_t v)          \
    {                                                                              \
        memcpy(row + i * (int64_t)sizeof v, &v, sizeof v);                         \
    }
TG_SIM_SEL(8)
TG_SIM_SEL(16)
TG_SIM_MV(bf16, 16, 8, 7)
TG_SIM_MV(f16, 16, 5, 10)
TG_SIM_MV(e4m3, 8, 4, 3)
TG_SIM_MV(e5m2, 8, 5, 2)
TG_SIM_MV_RAW(i8, 8)
TG_SIM_MV_RAW(u8, 8)
TG_SIM_MV_RAW(i16, 16)
TG_SIM_MV_RAW(u16, 16)
TG_SIM_ENC(bf16, 16, uint16_t)
TG_SIM_ENC(f16, 16, uint16_t)
TG_SIM_ENC(e4m3, 8, uint8_t)
TG_SIM_ENC(e5m2, 8, uint8_t)
TG_SIM_ENC(i8, 8, int8_t)
TG_SIM_ENC(u8, 8, uint8_t)
TG_SIM_ENC(i16, 16, int16_t)
TG_SIM_ENC(u16, 16, uint16_t)
#undef TG_SIM_SEL
#undef TG_SIM_ENC
#undef TG_SIM_MV_RAW
#undef TG_SIM_MV

/* The encoding of element i of a row of a 1- or 2-byte dtype, as a table
 * index (the generated code's activation tables, gen/emit.c act_table). */
static inline uint32_t tg_key8(const uint8_t *row, int64_t i) { return row[i]; }
static inline uint32_t tg_key16(const uint8_t *row, int64_t i)
{
    uint16_t v;
    memcpy(&v, row + i * 2, sizeof v);
    return v;
}

/* Element 2i of an fp32 SBUF/PSUM row, as tg_rd_f32(row, 2 * i): on a
 * little-endian host read as the low half of the 8-byte pair 2i, 2i+1 (a
 * contiguous load the compiler vectorizes, where stride-2 loads are not at
 * -O2). The pair may end past the row: the next row follows, and the core's
 * storage carries TG_CORE_TAIL bytes after its last row (tg_runtime.h), so
 * the generator uses it for SBUF and PSUM only, never for HBM tensors. */
static inline float tg_rd_f32_even(const uint8_t *row, int64_t i)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, row + i * 8, sizeof v);
    return tg_bits_f32((uint32_t)v);
#else
    return tg_rd_f32(row, 2 * i);
#endif
#else
    return tg_rd_f32(row, 2 * i);
#endif
}

/* tg_stage2_<bits>(dst, src, n): elements 0, 2, .., 2(n-1) of a row of
 * bits-wide elements at src into dst, one after another (the generated C
 * gathers a source read at a stride of 2 so, before its innermost loop;
 * emit.c operand's stage). gcc -O2 vectorizes a loop reading at a stride of 2
 * by peeling a vector's worth of iterations off its end (the load of the
 * last pair reaches past the last element), so such an op ran that many
 * elements scalar per row. Here, with `wide` (the generated AVX-512 body's
 * tg_avx512; GNU C vectors, gcc 12 and clang), 16 or 32 elements at a time
 * are picked out of two 64-byte loads by one shuffle; the last block, when n
 * is not a whole number of them, ends at element 2(n-1) exactly (its second
 * load starts an element early and the shuffle takes the odd lanes of it), so
 * nothing past the last element is read. Without it (other bodies: the
 * shuffle lowered to SSE2 or NEON pieces ran 3-5x slower than the plain
 * loop), and for bytes, the elements are copied one by one. The bits are
 * copied: the reads after it see the same elements. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
typedef uint32_t tg__st_u32 __attribute__((vector_size(64), aligned(4)));
typedef uint16_t tg__st_u16 __attribute__((vector_size(64), aligned(2)));
/* Shuffle indices: 8 or 16 even ones from o; per width the block's (EV)
 * and the last block's (LA: evens of the first load, then the odd lanes of
 * the second, which starts one element early) */
#define TG_ST_E8(o) (o), (o) + 2, (o) + 4, (o) + 6, (o) + 8, (o) + 10, (o) + 12, (o) + 14
#define TG_ST_E16(o) TG_ST_E8(o), TG_ST_E8((o) + 16)
#define TG_ST_EV32 TG_ST_E16(0)
#define TG_ST_LA32 TG_ST_E8(0), TG_ST_E8(17)
#define TG_ST_EV16 TG_ST_E16(0), TG_ST_E16(32)
#define TG_ST_LA16 TG_ST_E16(0), TG_ST_E16(33)
/* L elements of type V at a time: block j from loads at 2j and 2j + L. */
#define TG_STAGE2_VEC(V, L, EVEN, LAST)                                      \
    for (; j + (L) < n; j += (L)) {                                       \
        V a_, b_, e_;                                                     \
        memcpy(&a_, src + 2 * j * es, sizeof a_);                         \
        memcpy(&b_, src + (2 * j + (L)) * es, sizeof b_);                 \
        e_ = __builtin_shufflevector(a_, b_, EVEN);                       \
        memcpy(dst + j * es, &e_, sizeof e_);                             \
    }                                                                     \
    if (j < n && n >= (L)) {                                              \
        V a_, b_, e_;                                                     \
        j = n - (L);                                                      \
        memcpy(&a_, src + 2 * j * es, sizeof a_);                         \
        memcpy(&b_, src + (2 * j + (L) - 1) * es, sizeof b_);             \
        e_ = __builtin_shufflevector(a_, b_, LAST);                       \
        memcpy(dst + j * es, &e_, sizeof e_);                             \
        j = n;                                                            \
    }
#else
#define TG_STAGE2_VEC(V, L, EVEN, LAST)
#endif
static inline void tg_stage2_8(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, int wide)
{
    (void)wide;
    for (int64_t j = 0; j < n; j++)
        dst[j] = src[2 * j];
}
/* The 2- and 4-byte gathers: L elements of V per block (wide), then one by one. */
#define TG_STAGE2_FN(BITS, V, L)                                                                       \
    static inline void tg_stage2_##BITS(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, \
                                        int wide)                                                      \
    {                                                                                                  \
        const int64_t es = (BITS) / 8;                                                                 \
        int64_t j = 0;                                                                                 \
        if (wide) {                                                                                    \
            TG_STAGE2_VEC(V, L, TG_ST_EV##BITS, TG_ST_LA##BITS)                                        \
        }                                                                                              \
        for (; j < n; j++)                                                                             \
            memcpy(dst + j * es, src + 2 * j * es, (BITS) / 8);                                        \
    }
TG_STAGE2_FN(16, tg__st_u16, 32)
TG_STAGE2_FN(32, tg__st_u32, 16)
#undef TG_STAGE2_FN
#undef TG_STAGE2_VEC
#undef TG_ST_E8
#undef TG_ST_E16
#undef TG_ST_EV32
#undef TG_ST_LA32
#undef TG_ST_EV16
#undef TG_ST_LA16

/* TG_IVDEP before an innermost free loop: its iterations carry no memory
 * dependence (operands are either the same element or disjoint), so gcc may
 * vectorize without a runtime alias check, which -O2's cost model refuses.
 * gcc's ivdep only relaxes dependence analysis (it never reassociates fp
 * sums); clang's pragmas that would do the same also force reassociation of
 * reductions, so clang gets nothing and keeps its own alias checks. */
#if defined(__GNUC__) && !defined(__clang__)
#define TG_IVDEP _Pragma("GCC ivdep")
#else
#define TG_IVDEP
#endif

/* TG_LOCAL_ALIGN on the small local arrays the generated loops vectorize
 * over (row-local rows, staged sources, a row's 8 values): 64-byte aligned.
 * gcc 12 at -O2 -march=native gave a 24-byte row-local row of a leaf body
 * 16-byte alignment for its vector stores, yet placed it in the red zone 8
 * bytes off (fuzz seed 1070223: vmovdqa faulted; -mno-red-zone or clang ran
 * it). An alignment above the 16 bytes the ABI guarantees makes gcc realign
 * the frame itself, which it gets right. */
#if defined(__GNUC__)
#define TG_LOCAL_ALIGN __attribute__((aligned(64)))
#else
#define TG_LOCAL_ALIGN
#endif

/* Spec arithmetic (SPEC.md §2): `/` and `%` floor toward -inf. */
static inline int64_t tg_fdiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a % b < 0) != (b < 0)); }
static inline int64_t tg_fmod(int64_t a, int64_t b) { return a - tg_fdiv(a, b) * b; }
static inline int64_t tg_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t tg_max(int64_t a, int64_t b) { return a > b ? a : b; }
/* A float literal of a number over loop variables (SPEC.md §2.1), exactly. */
static inline double tg_bits_f64(uint64_t u)
{
    union {
        uint64_t u;
        double d;
    } v;
    v.u = u;
    return v.d;
}

#endif /* TG_SIM_H */
