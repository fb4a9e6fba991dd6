/* tg_ops.c — the out-of-line op semantics of tg_ops.h: matmul (packed,
 * register-tiled, order-preserving), transpose, bn_stats/bn_aggr,
 * partition_reduce, bitvec reductions and iota casts. Freestanding C99;
 * tg_fp.h keeps every product out of an FMA. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_mem.h"

#include "tg_erfcx_tab.h"
#include "tg_log_tab.h"
#include "tg_ops.h"
#include "tg_sim.h" /* tg_rd_f32 */
#include "tg_simd.h"

static float tg__nan(void) { return tg_bits_f32(0x7fc00000u); }

/* The plain loops in the same order, reading the unpacked operands. */
static void tg__mm_plain(float *dst, ptrdiff_t ds, const float *stat, ptrdiff_t ss,
                         const float *mov, ptrdiff_t ms, int K, int M, int N, int acc_in)
{
    int m, n, k;
    for (m = 0; m < M; m++) {
        for (n = 0; n < N; n++) {
            float acc = acc_in ? dst[m * ds + n] : 0.0f;
            for (k = 0; k < K; k++) {
                float p = stat[k * ss + m] * mov[k * ms + n];
                acc = acc + p;
            }
            dst[m * ds + n] = tg_nan_canon(acc);
        }
    }
}

/* ---- matmul ------------------------------------------------------------------
 * The packed kernel (tg_mm_impl.h) at the widest SIMD this CPU runs. Built
 * without -march flags (the default), x86-64 gets three bodies — SSE2 (the
 * x86-64 baseline), AVX2 and AVX-512F — and picks one at the first call from
 * CPUID and XGETBV (what the OS saves), so one binary is fast on a new CPU and
 * runs on an old one or under valgrind. When the build flags already give
 * AVX-512F (make NATIVE=1), that body alone is built. Other targets: NEON or
 * SSE2 if the flags give it, else scalar. All bodies give the same bits. */
#if defined(__GNUC__) && defined(__AVX512F__)
#define TG_MM_BASE_VW 16
#define TG_MM_BASE_MR 8
#elif defined(__GNUC__) && defined(__AVX__)
#define TG_MM_BASE_VW 8
#define TG_MM_BASE_MR 6
#elif defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON))
#define TG_MM_BASE_VW 4
#define TG_MM_BASE_MR 6
#else
#define TG_MM_BASE_VW 1
#define TG_MM_BASE_MR 4
#endif

/* An operand of the packed kernel: element (k, j) at base + (k / kb)·bs +
 * (k % kb)·ps bytes, j·fs elements of dt along the row (k in blocks of kb
 * rows, bs bytes apart: tg_matmul_blocks; one block for tg_matmul). */
typedef struct {
    const uint8_t *base;
    ptrdiff_t ps, fs, bs;
    int kb;
    tg_dtype dt;
} tg__mm_src;

/* Element i of a row, widened exactly (tg_dtype.h; the staging's tg_rd_*),
 * but for a NaN's quiet bit (bf16, below). */
static inline float tg__mm_rd_f32(const uint8_t *r, ptrdiff_t i)
{
    float v;
    memcpy(&v, r + i * 4, 4);
    return v;
}
/* bf16: the bits moved up, a signalling NaN left signalling (tg_bf16_to_f32
 * quiets it). The same sums: a NaN operand makes its product and sum NaN
 * either way, and every NaN sum is stored as the canonical NaN (TG_MM_CANON);
 * the quieting's compare and blend were most of a bf16 decode matmul's widening. */
static inline float tg__mm_rd_bf16(const uint8_t *r, ptrdiff_t i)
{
    uint16_t v;
    memcpy(&v, r + i * 2, 2);
    return tg_bits_f32((uint32_t)v << 16);
}
static inline float tg__mm_rd_f16(const uint8_t *r, ptrdiff_t i)
{
    uint16_t v;
    memcpy(&v, r + i * 2, 2);
    return tg_f16_to_f32(v);
}
static inline float tg__mm_rd_e4m3(const uint8_t *r, ptrdiff_t i) { return tg_e4m3_to_f32(r[i]); }
static inline float tg__mm_rd_e5m2(const uint8_t *r, ptrdiff_t i) { return tg_e5m2_to_f32(r[i]); }
/* n elements of es bytes, fs elements apart from r, one after another into g
 * (a strided operand's row before its widening, which then vectorizes: fp8
 * moving operands at a stride of 2, bench/probes z08_conv1d_s2_fp8). */
static inline void tg__mm_gather(uint8_t *g, const uint8_t *r, ptrdiff_t fs, int n, ptrdiff_t es)
{
    int j;
    switch (es) {
    case 1:
        for (j = 0; j < n; j++)
            g[j] = r[j * fs];
        break;
    case 2:
        for (j = 0; j < n; j++)
            memcpy(g + 2 * j, r + 2 * j * fs, 2);
        break;
    default:
        for (j = 0; j < n; j++)
            memcpy(g + 4 * j, r + 4 * j * fs, 4);
        break;
    }
}
#define TG_MM_RD_F32 tg__mm_rd_f32
#define TG_MM_RD_BF16 tg__mm_rd_bf16
#define TG_MM_RD_F16 tg__mm_rd_f16
#define TG_MM_RD_E4M3 tg__mm_rd_e4m3
#define TG_MM_RD_E5M2 tg__mm_rd_e5m2

#define TG_MM_VW TG_MM_BASE_VW
#define TG_MM_MR TG_MM_BASE_MR
#define TG_MM_FN(name) name##_base
/* c + b·a rounded once, AVX-512F (the base body with it and the AVX-512 body) */
#define TG_MM_FMA512(c, b, a)                                                                            \
    ((tg__vec)__builtin_ia32_vfmaddps512_mask((b), TG_MM_SPLAT(a), (c), (unsigned short)-1, 4))
/* the fused multiply-add where the flags give it (gcc: clang's no-fma region
 * takes the instruction away) */
#if TG_MM_BASE_VW == 16 && !defined(__clang__)
#define TG_MM_FMA(c, b, a) TG_MM_FMA512(c, b, a)
#elif TG_MM_BASE_VW == 8 && defined(__FMA__) && defined(__AVX2__) && !defined(__clang__)
#define TG_MM_FMA(c, b, a) ((tg__vec)__builtin_ia32_vfmaddps256((b), TG_MM_SPLAT(a), (c)))
#endif
#include "tg_mm_impl.h"
#undef TG_MM_FN

static int tg__simd_cap = 3; /* tg_matmul_isa's limit (tests) */

#if defined(TG_SIMD_DETECT) && TG_MM_BASE_VW < 16
#define TG_MM_DISPATCH 1

#ifdef TG_SIMD_AVX2_BODY
#define TG_MM_VW 8
#define TG_MM_MR 6
#define TG_MM_FN(name) name##_avx2
TG_SIMD_AVX2_BEGIN
#include "tg_mm_impl.h"
TG_SIMD_AVX2_END
#undef TG_MM_FN
#endif

/* The body to run: the CPU's widest, at most tg__simd_cap. (Defined here:
 * clang's no-fma region, pushed back after the AVX2 body, must hold a
 * function before the AVX-512 body pops it.) */
static int tg__simd_level(void)
{
    static int cached;
    return tg_simd_level_capped(&cached, tg__simd_cap);
}

/* clang: AVX-512F implies FMA (no-fma would take AVX-512F away again) and
 * -ffp-contract=fast overrides its pragma, so this body leaves tg_fp.h's
 * region and an empty asm keeps each product apart from its sum. */
#define TG_MM_VW 16
#define TG_MM_MR 8
#define TG_MM_FN(name) name##_avx512
#define TG_MM_FMA(c, b, a) TG_MM_FMA512(c, b, a)
#if defined(__clang__)
#define TG_MM_NOFUSE(v) __asm__("" : "+v"(v))
#ifdef TG_FP_CLANG_PUSHED
#pragma clang attribute pop
#endif
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
#include "tg_mm_impl.h"
#if defined(__clang__)
#pragma clang attribute pop
#ifdef TG_FP_CLANG_PUSHED
#pragma clang attribute push(__attribute__((target("no-fma"))), apply_to = function)
#endif
#else
#pragma GCC pop_options
#endif
#undef TG_MM_FN

#endif

int tg_matmul_isa(int cap)
{
    if (cap >= 1)
        tg__simd_cap = cap;
#ifdef TG_MM_DISPATCH
    return tg__simd_level();
#else
    return 1;
#endif
}

/* tg_matmul_blocks with tg_matmul_keep's `keep`. */
static void tg__matmul(float *dst, ptrdiff_t ds, tg_pe_src stat, tg_pe_src mov, int K, int M, int N, int nblk,
                       ptrdiff_t stat_bstride, ptrdiff_t mov_bstride, int accumulate, float *scratch,
                       size_t scratch_floats, int keep)
{
    tg__mm_src a, b;
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0 || nblk <= 0) {
        if (!accumulate)
            for (int m = 0; m < M; m++)
                for (int n = 0; n < N; n++)
                    dst[m * ds + n] = 0.0f;
        return;
    }
    a.base = (const uint8_t *)stat.base;
    a.ps = stat.pstride;
    a.fs = stat.fstride;
    a.bs = stat_bstride;
    a.kb = K;
    a.dt = stat.dtype;
    b.base = (const uint8_t *)mov.base;
    b.ps = mov.pstride;
    b.fs = mov.fstride;
    b.bs = mov_bstride;
    b.kb = K;
    b.dt = mov.dtype;
    K *= nblk; /* every k of every block, in order */
#ifdef TG_MM_DISPATCH
    switch (tg__simd_level()) {
    case 3:
        tg__mm_run_avx512(dst, ds, &a, &b, K, M, N, accumulate, scratch, scratch_floats, keep);
        return;
#if TG_MM_BASE_VW < 8
    case 2:
        tg__mm_run_avx2(dst, ds, &a, &b, K, M, N, accumulate, scratch, scratch_floats, keep);
        return;
#endif
    default:
        break;
    }
#endif
    tg__mm_run_base(dst, ds, &a, &b, K, M, N, accumulate, scratch, scratch_floats, keep);
}

/* Row check for tg__mm_stat_uniform: 1 when the M elements of `row`
 * (ELEM-typed, `step` bytes apart) all hold the first one's bits. Whole
 * elements XORed with the first and ORed together, a block of 16 at a
 * time, so the loop has one branch a block (a [128, 128] fp32 ones
 * stationary is 16,384 compares: a byte and a branch each had been 35 % of
 * bench/probes w01_colsoftmax_mm). */
#define TG_MM_ROW_UNIFORM(NAME, ELEM)                                                                                \
    static int NAME(const uint8_t *row, int M, ptrdiff_t step)                                                      \
    {                                                                                                                \
        ELEM first, e;                                                                                               \
        memcpy(&first, row, sizeof first);                                                                           \
        for (int m0 = 1; m0 < M; m0 += 16) {                                                                         \
            const int m1 = M - m0 < 16 ? M : m0 + 16;                                                                \
            ELEM acc = 0;                                                                                            \
            for (int m = m0; m < m1; m++) {                                                                          \
                memcpy(&e, row + m * step, sizeof e);                                                                \
                acc |= (ELEM)(e ^ first);                                                                            \
            }                                                                                                        \
            if (acc)                                                                                                 \
                return 0;                                                                                            \
        }                                                                                                            \
        return 1;                                                                                                    \
    }
TG_MM_ROW_UNIFORM(tg__mm_row_uniform4, uint32_t)
TG_MM_ROW_UNIFORM(tg__mm_row_uniform2, uint16_t)
TG_MM_ROW_UNIFORM(tg__mm_row_uniform1, uint8_t)
#undef TG_MM_ROW_UNIFORM

/* 1 when every row k of the stationary (K rows in nblk blocks, as
 * tg__matmul reads them) holds one value in all M of its elements, the
 * same bits: a ones matrix for column sums, a scale broadcast. Stops at the
 * first block of a row that differs (the first row's first, mostly). */
static int tg__mm_stat_uniform(tg_pe_src stat, int K, int M, int nblk, ptrdiff_t bstride)
{
    const size_t es = tg_dtype_size(stat.dtype);
    const ptrdiff_t step = stat.fstride * (ptrdiff_t)es;
    for (int q = 0; q < nblk; q++)
        for (int k = 0; k < K; k++) {
            const uint8_t *row = (const uint8_t *)stat.base + q * bstride + k * stat.pstride;
            const int same = es == 4   ? tg__mm_row_uniform4(row, M, step)
                             : es == 2 ? tg__mm_row_uniform2(row, M, step)
                                       : tg__mm_row_uniform1(row, M, step); /* every dtype is 1, 2 or 4 bytes */
            if (!same)
                return 0;
        }
    return 1;
}

/* A matmul whose stationary is uniform along M (above), without accumulate:
 * every output row is the same sum, element by element (+0, then the
 * products in increasing k: the same operations for each m), so row 0 is
 * computed alone and copied. A [128, 128] ones stationary summing 512
 * columns (bench/probes w01_colsoftmax_mm, NKI's all-reduce by a ones
 * matmul) ran the whole product. Not for tg_matmul_keep, whose later calls
 * use this call's packs. Returns 1 when done. */
static int tg__matmul_uniform(float *dst, ptrdiff_t ds, tg_pe_src stat, tg_pe_src mov, int K, int M, int N, int nblk,
                              ptrdiff_t stat_bstride, ptrdiff_t mov_bstride, int accumulate, float *scratch,
                              size_t scratch_floats)
{
    if (accumulate || M < 2 || K <= 0 || nblk <= 0 || N <= 0 || !tg__mm_stat_uniform(stat, K, M, nblk, stat_bstride))
        return 0;
    tg__matmul(dst, ds, stat, mov, K, 1, N, nblk, stat_bstride, mov_bstride, 0, scratch, scratch_floats, 0);
    for (int m = 1; m < M; m++)
        memcpy(dst + m * ds, dst, (size_t)N * sizeof *dst);
    return 1;
}

void tg_matmul_blocks(float *dst, ptrdiff_t ds, tg_pe_src stat, tg_pe_src mov, int K, int M, int N, int nblk,
                      ptrdiff_t stat_bstride, ptrdiff_t mov_bstride, int accumulate, float *scratch,
                      size_t scratch_floats)
{
    if (!tg__matmul_uniform(dst, ds, stat, mov, K, M, N, nblk, stat_bstride, mov_bstride, accumulate, scratch,
                            scratch_floats))
        tg__matmul(dst, ds, stat, mov, K, M, N, nblk, stat_bstride, mov_bstride, accumulate, scratch,
                   scratch_floats, 0);
}

void tg_matmul(float *dst, ptrdiff_t ds, tg_pe_src stat, tg_pe_src mov, int K, int M, int N, int accumulate,
               float *scratch, size_t scratch_floats)
{
    if (!tg__matmul_uniform(dst, ds, stat, mov, K, M, N, 1, 0, 0, accumulate, scratch, scratch_floats))
        tg__matmul(dst, ds, stat, mov, K, M, N, 1, 0, 0, accumulate, scratch, scratch_floats, 0);
}

void tg_matmul_keep(float *dst, ptrdiff_t ds, tg_pe_src stat, tg_pe_src mov, int K, int M, int N, int accumulate,
                    float *scratch, size_t scratch_floats, int keep)
{
    tg__matmul(dst, ds, stat, mov, K, M, N, 1, 0, 0, accumulate, scratch, scratch_floats, keep);
}

void tg_matmul_f32(float *dst, ptrdiff_t ds, const float *stat, ptrdiff_t ss, const float *mov,
                   ptrdiff_t ms, int K, int M, int N, int accumulate)
{
    tg_pe_src a = {stat, ss * (ptrdiff_t)sizeof(float), 1, TG_FLOAT32};
    tg_pe_src b = {mov, ms * (ptrdiff_t)sizeof(float), 1, TG_FLOAT32};
    tg_matmul(dst, ds, a, b, K, M, N, accumulate, NULL, 0);
}

void tg_matmul_f32_ref(float *dst, ptrdiff_t ds, const float *stat, ptrdiff_t ss,
                       const float *mov, ptrdiff_t ms, int K, int M, int N, int accumulate)
{
    if (M <= 0 || N <= 0)
        return;
    tg__mm_plain(dst, ds, stat, ss, mov, ms, K < 0 ? 0 : K, M, N, accumulate);
}

/* ---- transpose ----------------------------------------------------------------- */

/* One element: 4 bytes moved as bits (no float load: any 4-byte dtype). */
static void tg__move4(float *dst, const float *src) { memcpy(dst, src, 4); }

/* The plain loop, for the edges of the blocked one. */
static void tg__transpose_plain(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss, int P, int F)
{
    for (int p = 0; p < P; p++)
        for (int f = 0; f < F; f++)
            tg__move4(&dst[(ptrdiff_t)f * ds + p], &src[(ptrdiff_t)p * ss + f]);
}

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
/* 8x8 blocks in eight 8-lane registers: three rounds of interleaving shuffles
 * (pairs of lanes, pairs of pairs, halves) turn rows into columns. Generic
 * vector code: AVX/SSE/NEON where there is one, scalar moves elsewhere. */
typedef uint32_t tg__v8 __attribute__((vector_size(32)));
#define TG_TR_LO(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define TG_TR_HI(a, b) __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define TG_TR_LO2(a, b) __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define TG_TR_HI2(a, b) __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#define TG_TR_LO4(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define TG_TR_HI4(a, b) __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
/* A 4x4 block of 4-byte elements: row i (4 elements at s[i]) becomes column i
 * (element i at d[0..3]), one 16-byte register a row, two rounds of shuffles
 * (pairs, halves). The blocked transpose and the lanes staging both ways. */
typedef uint32_t tg__v4 __attribute__((vector_size(16)));
static inline void tg__tr4(void *d0, void *d1, void *d2, void *d3, const void *s0, const void *s1, const void *s2,
                           const void *s3)
{
    tg__v4 r0, r1, r2, r3;
    memcpy(&r0, s0, sizeof r0);
    memcpy(&r1, s1, sizeof r1);
    memcpy(&r2, s2, sizeof r2);
    memcpy(&r3, s3, sizeof r3);
    tg__v4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
    tg__v4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
    tg__v4 o0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5), o1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    tg__v4 o2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5), o3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
    memcpy(d0, &o0, sizeof o0);
    memcpy(d1, &o1, sizeof o1);
    memcpy(d2, &o2, sizeof o2);
    memcpy(d3, &o3, sizeof o3);
}

/* An 8x8 block of elements, each row one vector V: row i read at S(i), column
 * i written at D(i) (written out, no arrays or loops, so every value stays in
 * a register). NAME(dst, ds, src, ss) is the block of a strided matrix. */
#define TG_TR8_BODY(V, S, D) TG_TR8_BODY_LS(V, TG_TR8_LOAD, TG_TR8_STORE, S, D)
#define TG_TR8_LOAD(r, p) memcpy(&(r), (p), sizeof(r))
#define TG_TR8_STORE(p, r) memcpy((p), &(r), sizeof(r))
/* The same with row i read by LD(r, S(i)) and column i written by ST(D(i), o)
 * (the bf16 lanes staging: widened after the load, narrowed before the store). */
#define TG_TR8_BODY_LS(V, LD, ST, S, D)                                                                         \
    do {                                                                                                        \
        V r0, r1, r2, r3, r4, r5, r6, r7;                                                                       \
        LD(r0, S(0));                                                                                           \
        LD(r1, S(1));                                                                                           \
        LD(r2, S(2));                                                                                           \
        LD(r3, S(3));                                                                                           \
        LD(r4, S(4));                                                                                           \
        LD(r5, S(5));                                                                                           \
        LD(r6, S(6));                                                                                           \
        LD(r7, S(7));                                                                                           \
        V t0 = TG_TR_LO(r0, r1), t1 = TG_TR_HI(r0, r1), t2 = TG_TR_LO(r2, r3), t3 = TG_TR_HI(r2, r3);          \
        V t4 = TG_TR_LO(r4, r5), t5 = TG_TR_HI(r4, r5), t6 = TG_TR_LO(r6, r7), t7 = TG_TR_HI(r6, r7);          \
        V u0 = TG_TR_LO2(t0, t2), u1 = TG_TR_HI2(t0, t2), u2 = TG_TR_LO2(t1, t3), u3 = TG_TR_HI2(t1, t3);      \
        V u4 = TG_TR_LO2(t4, t6), u5 = TG_TR_HI2(t4, t6), u6 = TG_TR_LO2(t5, t7), u7 = TG_TR_HI2(t5, t7);      \
        V o0 = TG_TR_LO4(u0, u4), o1 = TG_TR_LO4(u1, u5), o2 = TG_TR_LO4(u2, u6), o3 = TG_TR_LO4(u3, u7);      \
        V o4 = TG_TR_HI4(u0, u4), o5 = TG_TR_HI4(u1, u5), o6 = TG_TR_HI4(u2, u6), o7 = TG_TR_HI4(u3, u7);      \
        ST(D(0), o0);                                                                                           \
        ST(D(1), o1);                                                                                           \
        ST(D(2), o2);                                                                                           \
        ST(D(3), o3);                                                                                           \
        ST(D(4), o4);                                                                                           \
        ST(D(5), o5);                                                                                           \
        ST(D(6), o6);                                                                                           \
        ST(D(7), o7);                                                                                           \
    } while (0)
#define TG_TR8_SRC(i) (src + (i) * ss)
#define TG_TR8_DST(i) (dst + (i) * ds)
#define TG_TR8_FN(NAME, T, V)                                                                                   \
    static void NAME(T *dst, ptrdiff_t ds, const T *src, ptrdiff_t ss) { TG_TR8_BODY(V, TG_TR8_SRC, TG_TR8_DST); }
#if defined(__AVX__) || !(defined(__x86_64__) || defined(__i386__))
TG_TR8_FN(tg__transpose_blk, float, tg__v8)
#define TG_TR_B 8 /* floats: TG_TR_B x TG_TR_B blocks */
#else
/* x86 without AVX (the x86-64 baseline): a 32-byte vector is two SSE
 * registers and the cross-half rounds cost more than the plain loop, so
 * 4x4 blocks, a row one 16-byte register, in two rounds (pairs, halves):
 * 256 transposes of 32x64 floats 0.36 -> 0.07 ms. */
static void tg__transpose_blk(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss)
{
    tg__tr4(dst, dst + ds, dst + 2 * ds, dst + 3 * ds, src, src + ss, src + 2 * ss, src + 3 * ss);
}
#define TG_TR_B 4
#endif

/* 8x8 blocks of 2-byte elements (one 16-byte register a row) and of 1-byte
 * ones (fp8, int8, uint8: two rows a 16-byte register), by interleaves of
 * whole registers in 16-, 32- and 64-bit units (SSE2 punpck*, NEON zip).
 * The float rounds' in-lane shuffles on these lanes had been lowered to
 * pinsrw and shifts through general registers (0.5-0.6 ns an element):
 * 864 transposes [27, 128] -> [128, 27] 0.74 -> 0.25 ms (2 bytes), 0.72 ->
 * 0.24 ms (1 byte). */
typedef uint16_t tg__v8h __attribute__((vector_size(16)));
typedef uint8_t tg__v16b __attribute__((vector_size(16)));
typedef uint64_t tg__v2q __attribute__((vector_size(16)));
/* 2-byte lanes: pairs of lanes (16 bits), of pairs (32), of halves (64) */
#define TG_TRH_LO1(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11)
#define TG_TRH_HI1(a, b) __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15)
#define TG_TRH_LO2(a, b) __builtin_shufflevector(a, b, 0, 1, 8, 9, 2, 3, 10, 11)
#define TG_TRH_HI2(a, b) __builtin_shufflevector(a, b, 4, 5, 12, 13, 6, 7, 14, 15)
#define TG_TRH_LO4(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define TG_TRH_HI4(a, b) __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
static void tg__transpose8h(uint16_t *dst, ptrdiff_t ds, const uint16_t *src, ptrdiff_t ss)
{
    tg__v8h r0, r1, r2, r3, r4, r5, r6, r7;
    memcpy(&r0, src, sizeof r0);
    memcpy(&r1, src + ss, sizeof r1);
    memcpy(&r2, src + 2 * ss, sizeof r2);
    memcpy(&r3, src + 3 * ss, sizeof r3);
    memcpy(&r4, src + 4 * ss, sizeof r4);
    memcpy(&r5, src + 5 * ss, sizeof r5);
    memcpy(&r6, src + 6 * ss, sizeof r6);
    memcpy(&r7, src + 7 * ss, sizeof r7);
    /* a0: rows 0 and 1 paired, columns 0-3; a1: columns 4-7 */
    tg__v8h a0 = TG_TRH_LO1(r0, r1), a1 = TG_TRH_HI1(r0, r1), a2 = TG_TRH_LO1(r2, r3), a3 = TG_TRH_HI1(r2, r3);
    tg__v8h a4 = TG_TRH_LO1(r4, r5), a5 = TG_TRH_HI1(r4, r5), a6 = TG_TRH_LO1(r6, r7), a7 = TG_TRH_HI1(r6, r7);
    /* b0: rows 0-3 of columns 0 and 1; b1: of 2 and 3; ... b4-b7: rows 4-7 */
    tg__v8h b0 = TG_TRH_LO2(a0, a2), b1 = TG_TRH_HI2(a0, a2), b2 = TG_TRH_LO2(a1, a3), b3 = TG_TRH_HI2(a1, a3);
    tg__v8h b4 = TG_TRH_LO2(a4, a6), b5 = TG_TRH_HI2(a4, a6), b6 = TG_TRH_LO2(a5, a7), b7 = TG_TRH_HI2(a5, a7);
    tg__v8h o0 = TG_TRH_LO4(b0, b4), o1 = TG_TRH_HI4(b0, b4), o2 = TG_TRH_LO4(b1, b5), o3 = TG_TRH_HI4(b1, b5);
    tg__v8h o4 = TG_TRH_LO4(b2, b6), o5 = TG_TRH_HI4(b2, b6), o6 = TG_TRH_LO4(b3, b7), o7 = TG_TRH_HI4(b3, b7);
    memcpy(dst, &o0, sizeof o0);
    memcpy(dst + ds, &o1, sizeof o1);
    memcpy(dst + 2 * ds, &o2, sizeof o2);
    memcpy(dst + 3 * ds, &o3, sizeof o3);
    memcpy(dst + 4 * ds, &o4, sizeof o4);
    memcpy(dst + 5 * ds, &o5, sizeof o5);
    memcpy(dst + 6 * ds, &o6, sizeof o6);
    memcpy(dst + 7 * ds, &o7, sizeof o7);
}
/* 1-byte lanes: a row's 8 bytes in the low half of a register; bytes of
 * two rows paired (8 bits), pairs of pairs (16), quads (32); each result
 * register holds two columns, one a half. */
#define TG_TRB_LO1(a, b) __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23)
#define TG_TRB_LO2(a, b) __builtin_shufflevector(a, b, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23)
#define TG_TRB_HI2(a, b) __builtin_shufflevector(a, b, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31)
#define TG_TRB_LO4(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23)
#define TG_TRB_HI4(a, b) __builtin_shufflevector(a, b, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31)
static inline tg__v16b tg__trb_row(const uint8_t *p)
{
    uint64_t w; /* an 8-byte load (memcpy into a zeroed vector went through the stack) */
    memcpy(&w, p, 8);
    return (tg__v16b)(tg__v2q){w, 0};
}
static inline void tg__trb_cols(uint8_t *d0, uint8_t *d1, tg__v16b o)
{
    memcpy(d0, &o, 8);
    memcpy(d1, (const uint8_t *)&o + 8, 8);
}
static void tg__transpose8b(uint8_t *dst, ptrdiff_t ds, const uint8_t *src, ptrdiff_t ss)
{
    /* a0: rows 0 and 1 paired, columns 0-7; a1: rows 2, 3; ... */
    tg__v16b a0 = TG_TRB_LO1(tg__trb_row(src), tg__trb_row(src + ss));
    tg__v16b a1 = TG_TRB_LO1(tg__trb_row(src + 2 * ss), tg__trb_row(src + 3 * ss));
    tg__v16b a2 = TG_TRB_LO1(tg__trb_row(src + 4 * ss), tg__trb_row(src + 5 * ss));
    tg__v16b a3 = TG_TRB_LO1(tg__trb_row(src + 6 * ss), tg__trb_row(src + 7 * ss));
    /* b0: rows 0-3 of columns 0-3; b1: of columns 4-7; b2, b3: rows 4-7 */
    tg__v16b b0 = TG_TRB_LO2(a0, a1), b1 = TG_TRB_HI2(a0, a1), b2 = TG_TRB_LO2(a2, a3), b3 = TG_TRB_HI2(a2, a3);
    tg__trb_cols(dst, dst + ds, TG_TRB_LO4(b0, b2));
    tg__trb_cols(dst + 2 * ds, dst + 3 * ds, TG_TRB_HI4(b0, b2));
    tg__trb_cols(dst + 4 * ds, dst + 5 * ds, TG_TRB_LO4(b1, b3));
    tg__trb_cols(dst + 6 * ds, dst + 7 * ds, TG_TRB_HI4(b1, b3));
}
#define TG_TR_BH 8
#endif

/* The plain loop on elements of `es` bytes (strides in elements); the
 * sizes of the dtypes with a constant memcpy each (one move, not a call:
 * fp8 tiles' DMA transposes made a libc call a byte, bench/probes v04). */
#define TG_TR_PLAIN(ES)                                                                                         \
    for (int p = 0; p < P; p++)                                                                                 \
        for (int f = 0; f < F; f++)                                                                             \
            memcpy(dst + ((ptrdiff_t)f * ds + p) * (ES), src + ((ptrdiff_t)p * ss + f) * (ES), (ES))
static void tg__transpose_bytes(uint8_t *dst, ptrdiff_t ds, const uint8_t *src, ptrdiff_t ss, int P, int F,
                                size_t es)
{
    switch (es) {
    case 1: TG_TR_PLAIN(1); break;
    case 2: TG_TR_PLAIN(2); break;
    case 4: TG_TR_PLAIN(4); break;
    case 8: TG_TR_PLAIN(8); break;
    default: TG_TR_PLAIN((ptrdiff_t)es); break;
    }
}
#undef TG_TR_PLAIN

void tg_transpose(void *dst, ptrdiff_t ds, const void *src, ptrdiff_t ss, int P, int F, size_t es)
{
    if (P <= 0 || F <= 0)
        return;
    if (es == 4) {
        tg_transpose_f32((float *)dst, ds, (const float *)src, ss, P, F);
        return;
    }
#ifdef TG_TR_B
    /* 8x8 blocks of 2- or 1-byte elements, the edges by the plain loop */
#define TG_TR_SMALL(T, BLK)                                                                                     \
    do {                                                                                                        \
        T *d = (T *)dst;                                                                                        \
        const T *s = (const T *)src;                                                                            \
        int p0 = 0;                                                                                             \
        for (; p0 + TG_TR_BH <= P; p0 += TG_TR_BH) {                                                            \
            int f0 = 0;                                                                                         \
            for (; f0 + TG_TR_BH <= F; f0 += TG_TR_BH)                                                          \
                BLK(d + (ptrdiff_t)f0 * ds + p0, ds, s + (ptrdiff_t)p0 * ss + f0, ss);                          \
            tg__transpose_bytes((uint8_t *)(d + (ptrdiff_t)f0 * ds + p0), ds,                                   \
                                (const uint8_t *)(s + (ptrdiff_t)p0 * ss + f0), ss, TG_TR_BH, F - f0, sizeof(T)); \
        }                                                                                                       \
        tg__transpose_bytes((uint8_t *)(d + p0), ds, (const uint8_t *)(s + (ptrdiff_t)p0 * ss), ss, P - p0, F, \
                            sizeof(T));                                                                         \
        return;                                                                                                 \
    } while (0)
    if (es == 2)
        TG_TR_SMALL(uint16_t, tg__transpose8h);
    if (es == 1)
        TG_TR_SMALL(uint8_t, tg__transpose8b);
#undef TG_TR_SMALL
#endif
    tg__transpose_bytes((uint8_t *)dst, ds, (const uint8_t *)src, ss, P, F, es);
}

/* Rows of a PE transpose's source widened at a time (tg_transpose_pe). */
#define TG_TR_ROWS 16 /* a 64-byte line of each dst row */
#define TG_TR_COLS 128

/* NAME_<body> for the widest body built and allowed (tg__simd_level). */
#ifdef TG_SIMD_AVX512_BODY
#define TG_ROW_PICK512(NAME) tg__simd_level() >= 3 ? NAME##_avx512:
#else
#define TG_ROW_PICK512(NAME)
#endif
#ifdef TG_SIMD_AVX2_BODY
#define TG_ROW_PICK2(NAME) tg__simd_level() >= 2 ? NAME##_avx2:
#else
#define TG_ROW_PICK2(NAME)
#endif
#define TG_ROW_PICK(NAME) (TG_ROW_PICK512(NAME) TG_ROW_PICK2(NAME) NAME##_base)

/* A row widened to fp32 for the PE transpose's staging (tg_transpose_pe),
 * built per SIMD body: bf16 by tg_dtype.h's inline row loop, fp16, fp8 and
 * 8- and 16-bit integers by the matmul's vector widening of the same body
 * (tg_mm_impl.h tg__mm_widen_row), which then run at the body's width (tg_row_to_f32 is
 * built for the baseline only: attention's bf16 P^T spent 4 % of the kernel
 * in its SSE2 loop; fp8 tiles' transposes ran element by element,
 * bench/probes f07: e4m3 17.8 ms against bf16 12.4). */
typedef void (*tg__pe_row_fn)(float *, const uint8_t *, tg_dtype, size_t);
#define TG_PE_ROW(NAME, WIDEN)                                                                              \
    static void NAME(float *dst, const uint8_t *row, tg_dtype dt, size_t n)                               \
    {                                                                                                       \
        if (dt == TG_BFLOAT16)                                                                              \
            tg_row_bf16_to_f32(dst, (const uint16_t *)(const void *)row, n);                                \
        else if (tg_dtype_size(dt) < 4) /* fp16, fp8, 8/16-bit integers */                                 \
            WIDEN(dst, row, dt, (int)n);                                                                    \
        else                                                                                                \
            tg_row_to_f32(dst, row, dt, n);                                                                 \
    }
TG_PE_ROW(tg__pe_row_base, tg__mm_widen_row_base)
#ifdef TG_SIMD_AVX2_BODY
TG_SIMD_AVX2_BEGIN
TG_PE_ROW(tg__pe_row_avx2, tg__mm_widen_row_avx2)
TG_SIMD_AVX2_END
#endif
#ifdef TG_SIMD_AVX512_BODY
TG_SIMD_AVX512_BEGIN
TG_PE_ROW(tg__pe_row_avx512, tg__mm_widen_row_avx512)
TG_SIMD_AVX512_END
#endif
#undef TG_PE_ROW

void tg_transpose_pe(float *dst, ptrdiff_t ds, tg_pe_src src, int P, int F)
{
    const uint8_t *base = (const uint8_t *)src.base;
    const ptrdiff_t es = (ptrdiff_t)tg_dtype_size(src.dtype);
    if (P <= 0 || F <= 0)
        return;
    if ((src.dtype == TG_FLOAT32 || src.dtype == TG_TFLOAT32) && src.fstride == 1 && src.pstride % 4 == 0 &&
        ((uintptr_t)base & 3u) == 0) {
        tg_transpose_f32(dst, ds, (const float *)src.base, src.pstride / 4, P, F);
        return;
    }
    /* a block of rows widened to fp32 (tg_load_f32: the staging's values),
     * then moved by the blocked transpose while it is in L1 */
    float buf[TG_TR_ROWS * TG_TR_COLS];
    const tg__pe_row_fn widen = TG_ROW_PICK(tg__pe_row);
    for (int p0 = 0; p0 < P; p0 += TG_TR_ROWS) {
        int pn = P - p0 < TG_TR_ROWS ? P - p0 : TG_TR_ROWS;
        for (int f0 = 0; f0 < F; f0 += TG_TR_COLS) {
            int fn = F - f0 < TG_TR_COLS ? F - f0 : TG_TR_COLS;
            for (int p = 0; p < pn; p++) {
                const uint8_t *row = base + (ptrdiff_t)(p0 + p) * src.pstride + (ptrdiff_t)f0 * src.fstride * es;
#if defined(__GNUC__)
                /* the next block's row asked for: rows a partition apart, too
                 * many streams for the hardware prefetcher (bench/probes g02's
                 * uint8 rows: the widening 37 -> 19 % of the run) */
                if (p0 + TG_TR_ROWS + p < P && src.fstride == 1)
                    for (ptrdiff_t o = 0; o < (ptrdiff_t)fn * es; o += 64)
                        __builtin_prefetch(row + TG_TR_ROWS * src.pstride + o, 0, 3);
#endif
                if (src.fstride == 1)
                    widen(buf + p * fn, row, src.dtype, (size_t)fn);
                else
                    for (int f = 0; f < fn; f++)
                        buf[p * fn + f] = tg_load_f32(row + (ptrdiff_t)f * src.fstride * es, src.dtype, 0);
            }
            tg_transpose_f32(dst + (ptrdiff_t)f0 * ds + p0, ds, buf, fn, pn, fn);
        }
    }
}

#ifdef TG_TR_B
/* Destination rows 1 KiB or more apart go in tiles of TG_TR_T x TG_TR_T
 * elements (whole 64-byte lines of both sides) in the order dst is written,
 * and in each, dst's rows one after another: rows a multiple of 4 KiB apart
 * (PSUM rows, a [128, 1024] fp32 tile) share one cache set, and walking all
 * F rows at each TG_TR_B-column step evicted each line before the next step
 * filled it (64 transposes of 128x128 into 4 KiB rows: 1.62 -> 0.34 ms;
 * 2048x2048: 8.9 -> 4.9 ms). */
#define TG_TR_T 16
static void tg__transpose_tile(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss, int P, int F)
{
    if (P == TG_TR_T && F == TG_TR_T && ds % 1024 == 0) {
        /* dst rows a multiple of 4 KiB apart all fall in one L1 set: the
         * tile goes through a buffer and each dst line is written at once,
         * not a block at a time (16-row calls into rows 4 KiB apart, 64
         * transposes of 128x128: 1.14 -> 0.25 ms). PSUM rows no longer are
         * (TG_CORE_ROW); an HBM destination of such rows still is. */
        float t[TG_TR_T * TG_TR_T];
        for (int f1 = 0; f1 < TG_TR_T; f1 += TG_TR_B)
            for (int p1 = 0; p1 < TG_TR_T; p1 += TG_TR_B)
                tg__transpose_blk(t + f1 * TG_TR_T + p1, TG_TR_T, src + (ptrdiff_t)p1 * ss + f1, ss);
        for (int f = 0; f < TG_TR_T; f++)
            memcpy(dst + (ptrdiff_t)f * ds, t + f * TG_TR_T, sizeof t / TG_TR_T);
        return;
    }
    int f0 = 0;
    for (; f0 + TG_TR_B <= F; f0 += TG_TR_B) {
        int p0 = 0;
        for (; p0 + TG_TR_B <= P; p0 += TG_TR_B)
            tg__transpose_blk(dst + (ptrdiff_t)f0 * ds + p0, ds, src + (ptrdiff_t)p0 * ss + f0, ss);
        tg__transpose_plain(dst + (ptrdiff_t)f0 * ds + p0, ds, src + (ptrdiff_t)p0 * ss + f0, ss, P - p0, TG_TR_B);
    }
    tg__transpose_plain(dst + (ptrdiff_t)f0 * ds, ds, src + f0, ss, P, F - f0);
}

/* Destination rows close together: B x B blocks of BLK along F, then along
 * P, the edges by REST; written once per SIMD body. */
#define TG_TR_CLOSE_FN(NAME, B, BLK, REST)                                                                    \
    static void NAME(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss, int P, int F)                   \
    {                                                                                                         \
        int p0 = 0;                                                                                           \
        for (; p0 + (B) <= P; p0 += (B)) {                                                                    \
            int f0 = 0;                                                                                       \
            for (; f0 + (B) <= F; f0 += (B))                                                                  \
                BLK(dst + (ptrdiff_t)f0 * ds + p0, ds, src + (ptrdiff_t)p0 * ss + f0, ss);                    \
            REST(dst + (ptrdiff_t)f0 * ds + p0, ds, src + (ptrdiff_t)p0 * ss + f0, ss, (B), F - f0);           \
        }                                                                                                     \
        REST(dst + p0, ds, src + (ptrdiff_t)p0 * ss, ss, P - p0, F);                                          \
    }
TG_TR_CLOSE_FN(tg__transpose_close, TG_TR_B, tg__transpose_blk, tg__transpose_plain)
#if TG_TR_B == 4 && defined(TG_SIMD_AVX2_BODY)
/* x86-64 built without AVX: an AVX2 body of it in 8x8 blocks, a row one
 * 32-byte register, the edges in 4x4 ones, picked by the runtime's level
 * like the matmul's (64 transposes of 128x512 into 512-byte rows: 1.5-2.6
 * -> 0.8-0.9 ms; 256 of 100x37: 0.12-0.17 -> 0.09). The tiles keep 4x4
 * blocks: with 8 dst rows a block, 4 KiB apart, they were slower. */
#define TG_TR_AVX2 1
TG_SIMD_AVX2_BEGIN
TG_TR8_FN(tg__transpose_blk_avx2, float, tg__v8)
static void tg__transpose_rest_avx2(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss, int P, int F)
{
    TG_SIMD_CLEAN(); /* into the baseline's 4x4 form */
    tg__transpose_close(dst, ds, src, ss, P, F);
}
TG_TR_CLOSE_FN(tg__transpose_close_avx2, 8, tg__transpose_blk_avx2, tg__transpose_rest_avx2)
TG_SIMD_AVX2_END
#endif
#endif

void tg_transpose_f32(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss, int P, int F)
{
#ifdef TG_TR_B
    if (ds < 256 || F <= TG_TR_T) {
#ifdef TG_TR_AVX2
        if (tg__simd_level() >= 2) {
            tg__transpose_close_avx2(dst, ds, src, ss, P, F);
            return;
        }
#endif
        tg__transpose_close(dst, ds, src, ss, P, F);
        return;
    }
    for (int f1 = 0; f1 < F; f1 += TG_TR_T)
        for (int p1 = 0; p1 < P; p1 += TG_TR_T)
            tg__transpose_tile(dst + (ptrdiff_t)f1 * ds + p1, ds, src + (ptrdiff_t)p1 * ss + f1, ss,
                               P - p1 < TG_TR_T ? P - p1 : TG_TR_T, F - f1 < TG_TR_T ? F - f1 : TG_TR_T);
#else
    tg__transpose_plain(dst, ds, src, ss, P, F);
#endif
}

/* ---- lanes staging -------------------------------------------------------------- */

static void tg__lanes_stage(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n)
{
    int64_t j = 0;
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
    /* 4x4 blocks: four lanes' next 4 elements, one 16-byte register each,
     * turned into four 4-lane columns in two rounds of shuffles. Four rows
     * at a time along the block: rows a partition apart share L1 sets (8 KiB
     * rows: all 16 in one set), so taking all 16 rows per 4 elements evicted
     * each line before its next 4 (cumsum 0.61-0.84 -> 0.37-0.42 ms) */
    for (int l = 0; l < TG_LANES; l += 4)
        for (j = 0; j + 4 <= n; j += 4)
            tg__tr4(t + j * TG_LANES + l, t + (j + 1) * TG_LANES + l, t + (j + 2) * TG_LANES + l,
                    t + (j + 3) * TG_LANES + l, rows[l] + (off + j) * 4, rows[l + 1] + (off + j) * 4,
                    rows[l + 2] + (off + j) * 4, rows[l + 3] + (off + j) * 4);
    j = n / 4 * 4;
#endif
    for (; j < n; j++)
        for (int l = 0; l < TG_LANES; l++)
            memcpy(t + j * TG_LANES + l, rows[l] + (off + j) * 4, 4);
}

static void tg__lanes_unstage(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes)
{
    int64_t j = 0;
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
    for (int l = 0; l + 4 <= lanes; l += 4) /* the 4x4 block of tg__lanes_stage, the other way */
        for (j = 0; j + 4 <= n; j += 4)
            tg__tr4(rows[l] + (off + j) * 4, rows[l + 1] + (off + j) * 4, rows[l + 2] + (off + j) * 4,
                    rows[l + 3] + (off + j) * 4, t + j * TG_LANES + l, t + (j + 1) * TG_LANES + l,
                    t + (j + 2) * TG_LANES + l, t + (j + 3) * TG_LANES + l);
    j = n / 4 * 4;
    for (int64_t l = lanes / 4 * 4; l < lanes; l++) /* lanes past the last whole group */
        for (int64_t jj = 0; jj < j; jj++)
            memcpy(rows[l] + (off + jj) * 4, t + jj * TG_LANES + l, 4);
#endif
    for (; j < n; j++)
        for (int64_t l = 0; l < lanes; l++)
            memcpy(rows[l] + (off + j) * 4, t + j * TG_LANES + l, 4);
}

/* The lanes staging's 8x8 blocks (here and the bf16 bodies below): row i of
 * the block, lane l + i's elements off + j .. of ES bytes, and column i, the
 * staged elements j + i of lanes l .. l + 7. */
#define TG_LS_ROW(i, ES) (rows[l + (i)] + (off + j) * (ES))
#define TG_LS_ROW4(i) TG_LS_ROW(i, 4)
#define TG_LS_ROW2(i) TG_LS_ROW(i, 2)
#define TG_LS_ROW1(i) TG_LS_ROW(i, 1)
#define TG_LS_COL(i) (t + (j + (i)) * TG_LANES + l)
#ifdef TG_TR_AVX2
/* The AVX2 body: 8x8 blocks, a row one 32-byte register (the transpose's
 * three rounds), eight lanes at a time along the block; what is left (fewer
 * than 8 elements, or lanes) goes to the 4x4 form. */
TG_SIMD_AVX2_BEGIN
static void tg__lanes_stage_avx2(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n)
{
    int64_t j = 0;
    for (int l = 0; l < TG_LANES; l += 8)
        for (j = 0; j + 8 <= n; j += 8)
            TG_TR8_BODY(tg__v8, TG_LS_ROW4, TG_LS_COL);
    j = n / 8 * 8;
    TG_SIMD_CLEAN();
    tg__lanes_stage(t + j * TG_LANES, rows, off + j, n - j);
}
static void tg__lanes_unstage_avx2(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n,
                                   int64_t lanes)
{
    int64_t j = 0;
    int l = 0;
    for (; l + 8 <= lanes; l += 8)
        for (j = 0; j + 8 <= n; j += 8)
            TG_TR8_BODY(tg__v8, TG_LS_COL, TG_LS_ROW4);
    j = n / 8 * 8;
    TG_SIMD_CLEAN();
    tg__lanes_unstage(rows + l, off, t + l, j, lanes - l); /* the lanes left, the 8-blocks' columns */
    tg__lanes_unstage(rows, off + j, t + j * TG_LANES, n - j, lanes); /* every lane, the columns left */
}
TG_SIMD_AVX2_END
#endif

/* The public staging functions: the AVX2 body where there is one and the
 * runtime's level runs it, else the baseline's. */
#ifdef TG_TR_AVX2
#define TG_LANES_PICK(AVX2, BASE, ...) (tg__simd_level() >= 2 ? AVX2(__VA_ARGS__) : BASE(__VA_ARGS__))
#else
#define TG_LANES_PICK(AVX2, BASE, ...) BASE(__VA_ARGS__)
#endif
void tg_lanes_stage_f32(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n)
{
    TG_LANES_PICK(tg__lanes_stage_avx2, tg__lanes_stage, t, rows, off, n);
}

void tg_lanes_unstage_f32(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes)
{
    TG_LANES_PICK(tg__lanes_unstage_avx2, tg__lanes_unstage, rows, off, t, n, lanes);
}

/* tg_lanes_stage_<sfx> and tg_lanes_unstage_<sfx> of a narrow float (bf16,
 * fp16, fp8 e4m3 and e5m2; elements of type T) element by element, as the
 * template reads and writes one (tg_rd_<sfx>, tg_wr_<sfx>): the edges of the
 * bodies below, and all of it where there is no vector body. */
#define TG_LS_PLAIN_STAGE(SFX, T, DEC)                                                                          \
    static void tg__lanes_stage_##SFX##_plain(float *t, const uint8_t *const rows[TG_LANES], int64_t off,       \
                                              int64_t n)                                                        \
    {                                                                                                           \
        for (int64_t j = 0; j < n; j++)                                                                         \
            for (int l = 0; l < TG_LANES; l++) {                                                                \
                T h;                                                                                            \
                memcpy(&h, rows[l] + (off + j) * (int64_t)sizeof h, sizeof h);                                  \
                t[j * TG_LANES + l] = DEC(h);                                                                   \
            }                                                                                                   \
    }
#define TG_LS_PLAIN_UNSTAGE(SFX, T, ENC)                                                                        \
    static void tg__lanes_unstage_##SFX##_plain(uint8_t *const rows[TG_LANES], int64_t off, const float *t,     \
                                                int64_t n, int64_t lanes)                                       \
    {                                                                                                           \
        for (int64_t j = 0; j < n; j++)                                                                         \
            for (int64_t l = 0; l < lanes; l++) {                                                               \
                T h = ENC(t[j * TG_LANES + l]);                                                                 \
                memcpy(rows[l] + (off + j) * (int64_t)sizeof h, &h, sizeof h);                                  \
            }                                                                                                   \
    }
/* the vector bodies stage whole blocks and their tails (below): the element
 * stagings serve only a build without them (the x86-64 baseline's) */
#if !defined(TG_TR_B) || TG_TR_B != 8
TG_LS_PLAIN_STAGE(bf16, uint16_t, tg_bf16_to_f32)
TG_LS_PLAIN_STAGE(f16, uint16_t, tg_f16_to_f32)
TG_LS_PLAIN_STAGE(e4m3, uint8_t, tg_e4m3_to_f32)
TG_LS_PLAIN_STAGE(e5m2, uint8_t, tg_e5m2_to_f32)
#endif
TG_LS_PLAIN_UNSTAGE(bf16, uint16_t, tg_f32_to_bf16)
TG_LS_PLAIN_UNSTAGE(f16, uint16_t, tg_f32_to_f16)
TG_LS_PLAIN_UNSTAGE(e4m3, uint8_t, tg_f32_to_e4m3)
TG_LS_PLAIN_UNSTAGE(e5m2, uint8_t, tg_f32_to_e5m2)

#if defined(TG_TR_B)
/* Vector bodies: 8x8 blocks, eight lanes at a time along the block, each
 * lane's eight narrow floats widened in a register after the load, or
 * narrowed before the store, with the arithmetic of the element form:
 *  - bf16 as tg_bf16_to_f32 widens one (bits << 16, a NaN quieted) and
 *    tg_f32_to_bf16 narrows one (RNE on the bits; a NaN quieted, its
 *    payload's top kept);
 *  - fp16, fp8 e4m3 and e5m2 as tg_dtype.h's narrow codec does
 *    (tg__narrow_to_f32 by tg_simd.h's vector codec: exact, inf and NaN
 *    rebuilt, a NaN quieted;
 *    tg__f32_to_narrow: RNE on the bits in the format's normal range, below
 *    it by adding 2^(24 - bias - mantissa bits) in fp32, whose quantum is the
 *    format's subnormal one; overflow to inf; a NaN quieted, its payload's
 *    top kept), each of its selects a mask.
 * A narrow operand's lane block was moved element by element (r10_cumsum_bf16's
 * source; a scan into a bf16 tile, r11; r12_cumsum_f16_out). The baseline gets
 * them where 8 x 4 bytes is one register (TG_TR_B 8); x86-64 without AVX an
 * AVX2 body picked by the runtime's level. */
typedef int32_t tg__v8i __attribute__((vector_size(32)));
typedef float tg__v8f __attribute__((vector_size(32)));
#define TG_LSB_NAN(x) ((tg__v8)((tg__v8i)((x) & 0x7fffffffu) > 0x7f800000)) /* both below 2^31 */
#define TG_LS_PICK(m, y, x) (((y) & (m)) | ((x) & ~(m)))                      /* y where m is set */
#define TG_LSB_WIDEN(r, p)                                                                                      \
    do {                                                                                                        \
        tg__v8h h_;                                                                                             \
        memcpy(&h_, (p), sizeof h_);                                                                            \
        (r) = __builtin_convertvector(h_, tg__v8) << 16;                                                        \
        (r) |= TG_LSB_NAN(r) & 0x00400000u;                                                                     \
    } while (0)
#define TG_LSB_NARROW(p, x)                                                                                     \
    do {                                                                                                        \
        tg__v8 q_ = ((x) + 0x7fffu + (((x) >> 16) & 1u)) >> 16;                                                 \
        q_ = TG_LS_PICK(TG_LSB_NAN(x), ((x) >> 16) | 0x40u, q_);                                                \
        tg__v8h h_ = __builtin_convertvector(q_, tg__v8h);                                                      \
        memcpy((p), &h_, sizeof h_);                                                                            \
    } while (0)
/* Eight 16-bit or 8-bit elements at p into the lanes of u (zero-extended),
 * and the low 16 or 8 bits of q's lanes to p. The 8-bit pair goes through
 * 16-bit lanes: gcc moved an 8-byte vector's elements one at a time. A
 * 16-bit lane's low byte is its first in memory on a little-endian target,
 * its second on a big-endian one (TG_LS8_ZX: byte i and a zero in that
 * order; TG_LS8_LOW: the low bytes). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TG_LS8_ZX 16, 0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16, 7
#define TG_LS8_LOW 1, 3, 5, 7, 9, 11, 13, 15, 1, 3, 5, 7, 9, 11, 13, 15
#else
#define TG_LS8_ZX 0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16, 7, 16
#define TG_LS8_LOW 0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14
#endif
#define TG_LS16_LOAD(u, p)                                                                                      \
    do {                                                                                                        \
        tg__v8h h_;                                                                                             \
        memcpy(&h_, (p), sizeof h_);                                                                            \
        (u) = __builtin_convertvector(h_, tg__v8);                                                              \
    } while (0)
#define TG_LS16_STORE(p, q)                                                                                     \
    do {                                                                                                        \
        tg__v8h h_ = __builtin_convertvector((q), tg__v8h);                                                     \
        memcpy((p), &h_, sizeof h_);                                                                            \
    } while (0)
#define TG_LS8_LOAD(u, p)                                                                                       \
    do {                                                                                                        \
        uint64_t w_;                                                                                            \
        memcpy(&w_, (p), 8);                                                                                    \
        tg__v2q q_ = {w_, 0};                                                                                   \
        tg__v16b z_ = {0};                                                                                      \
        tg__v16b b_ = __builtin_shufflevector((tg__v16b)q_, z_, TG_LS8_ZX);                                     \
        (u) = __builtin_convertvector((tg__v8h)b_, tg__v8);                                                     \
    } while (0)
#define TG_LS8_STORE(p, q)                                                                                      \
    do {                                                                                                        \
        tg__v16b b_ = (tg__v16b)__builtin_convertvector((q) & 0xffu, tg__v8h);                                  \
        b_ = __builtin_shufflevector(b_, b_, TG_LS8_LOW);                                                       \
        memcpy((p), &b_, 8);                                                                                    \
    } while (0)
/* tg__narrow_to_f32 on eight lanes loaded by LOAD (tg_simd.h's vector
 * codec) and tg__f32_to_narrow(x, EB, MB, BIAS) on eight lanes stored by
 * STORE (every value below 2^31, so the signed compares are the scalar
 * code's unsigned ones; MAGIC is the float 2^(24 - BIAS - MB), whose bits
 * the subnormal sum's take away) */
#define TG_LSN_WIDEN(r, p, LOAD, EB, MB, K)                                                                     \
    do {                                                                                                        \
        tg__v8 u_;                                                                                              \
        LOAD(u_, p);                                                                                            \
        TG_NARROW_WIDEN_V(r, tg__v8, tg__v8i, tg__v8f, u_, EB, MB, K);                                          \
    } while (0)
#define TG_LSN_NARROW(p, x, STORE, EB, MB, BIAS, MAGIC)                                                         \
    do {                                                                                                        \
        const uint32_t inf_ = ((1u << (EB)) - 1u) << (MB), sh_ = 23 - (MB);                                     \
        tg__v8 ax_ = (x) & 0x7fffffffu, sg_ = ((x) >> 31) << ((EB) + (MB)), q_, nan_;                           \
        tg__v8 nrm_ = ((ax_ + ((1u << (sh_ - 1)) - 1u) + ((ax_ >> sh_) & 1u)) >> sh_) -                         \
                      ((uint32_t)(127 - (BIAS)) << (MB));                                                       \
        tg__v8 sub_ = (tg__v8)((tg__v8f)ax_ + (MAGIC)) - ((uint32_t)(151 - (BIAS) - (MB)) << 23);               \
        q_ = TG_LS_PICK((tg__v8)((tg__v8i)ax_ < (int32_t)((uint32_t)(128 - (BIAS)) << 23)), sub_, nrm_);        \
        q_ = TG_LS_PICK((tg__v8)((tg__v8i)q_ > (int32_t)inf_), inf_, q_);                                       \
        nan_ = inf_ | (1u << ((MB) - 1)) | ((ax_ >> sh_) & ((1u << (MB)) - 1u));                                \
        q_ = sg_ | TG_LS_PICK(TG_LSB_NAN(x), nan_, q_);                                                         \
        STORE(p, q_);                                                                                           \
    } while (0)
#define TG_LSH_WIDEN(r, p) TG_LSN_WIDEN(r, p, TG_LS16_LOAD, 5, 10, 112)
#define TG_LSH_NARROW(p, x) TG_LSN_NARROW(p, x, TG_LS16_STORE, 5, 10, 15, 0x1p-1f)
#define TG_LS43_WIDEN(r, p) TG_LSN_WIDEN(r, p, TG_LS8_LOAD, 4, 3, 120)
#define TG_LS43_NARROW(p, x) TG_LSN_NARROW(p, x, TG_LS8_STORE, 4, 3, 7, 0x1p14f)
#define TG_LS52_WIDEN(r, p) TG_LSN_WIDEN(r, p, TG_LS8_LOAD, 5, 2, 112)
#define TG_LS52_NARROW(p, x) TG_LSN_NARROW(p, x, TG_LS8_STORE, 5, 2, 15, 0x1p7f)
/* A block's last 1-7 columns (a ragged window's rows of 6 or 7, b03) go
 * through the same 8x8 body: each lane's nb = k·ES bytes (nb < 16) read by
 * two overlapping fixed-size loads into one 16-byte row, the rest zero
 * (tg__ls_tail_get; built in registers: a row written in pieces and read
 * whole waited on every piece's store), and written back the same way
 * (tg__ls_tail_put: nb bytes, no more); a staged column stored only if it
 * is one of the k. A zero widens to +0 and narrows to 0. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static inline tg__v2q tg__ls_tail_get(const uint8_t *s, int64_t nb)
{
    uint8_t b[16] = {0};
    tg__v2q q;
    for (int64_t i = 0; i < nb; i++)
        b[i] = s[i];
    memcpy(&q, b, sizeof q);
    return q;
}
static inline void tg__ls_tail_put(uint8_t *d, const tg__v2q *q, int64_t nb)
{
    uint8_t b[16];
    memcpy(b, q, sizeof b);
    for (int64_t i = 0; i < nb; i++)
        d[i] = b[i];
}
#else
/* little-endian: byte i of the row is bits 8i of its 8-byte half */
static inline tg__v2q tg__ls_tail_get(const uint8_t *s, int64_t nb)
{
    uint64_t lo = 0, hi = 0;
    if (nb >= 8) {
        memcpy(&lo, s, 8);
        if (nb > 8) {
            memcpy(&hi, s + nb - 8, 8);
            hi >>= 8 * (16 - nb);
        }
    } else if (nb >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + nb - 4, 4);
        lo = x | ((uint64_t)y >> 8 * (8 - nb)) << 32;
    } else if (nb >= 2) {
        uint16_t x, y;
        memcpy(&x, s, 2);
        memcpy(&y, s + nb - 2, 2);
        lo = x | ((uint64_t)y >> 8 * (4 - nb)) << 16;
    } else if (nb == 1) {
        lo = s[0];
    }
    return (tg__v2q){lo, hi};
}
static inline void tg__ls_tail_put(uint8_t *d, const tg__v2q *q, int64_t nb)
{
    uint64_t lo = (*q)[0], hi = (*q)[1];
    if (nb >= 8) {
        memcpy(d, &lo, 8);
        if (nb > 8) {
            uint64_t y = lo >> 8 * (nb - 8) | hi << 8 * (16 - nb);
            memcpy(d + nb - 8, &y, 8);
        }
    } else if (nb >= 4) {
        uint32_t x = (uint32_t)lo, y = (uint32_t)(lo >> 8 * (nb - 4));
        memcpy(d, &x, 4);
        memcpy(d + nb - 4, &y, 4);
    } else if (nb >= 2) {
        uint16_t x = (uint16_t)lo, y = (uint16_t)(lo >> 8 * (nb - 2));
        memcpy(d, &x, 2);
        memcpy(d + nb - 2, &y, 2);
    } else if (nb == 1) {
        d[0] = (uint8_t)lo;
    }
}
#endif
#define TG_LS_TAIL_ROW(i) (&tq_[i])
#define TG_LS_TAIL_I(i) (i)
/* column i of the tail block to t if it is one of the k staged, or from t (0 past them) */
#define TG_LS_TAIL_ST(i, r)                                                                                     \
    do {                                                                                                        \
        if ((i) < k)                                                                                            \
            memcpy(TG_LS_COL(i), &(r), sizeof(r));                                                              \
    } while (0)
#define TG_LS_TAIL_LD(r, i)                                                                                     \
    do {                                                                                                        \
        (r) = (tg__v8){0};                                                                                      \
        if ((i) < k)                                                                                            \
            memcpy(&(r), TG_LS_COL(i), sizeof(r));                                                              \
    } while (0)
#define TG_LSB_FNS(STAGE, UNSTAGE, CLEAN, WIDEN, NARROW, SFX, ROW, ES)                                          \
    static void STAGE(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n)                    \
    {                                                                                                           \
        int64_t j = 0, k = n % 8;                                                                               \
        for (int l = 0; l < TG_LANES; l += 8) {                                                                 \
            for (j = 0; j + 8 <= n; j += 8)                                                                     \
                TG_TR8_BODY_LS(tg__v8, WIDEN, TG_TR8_STORE, ROW, TG_LS_COL);                                    \
            if (k) { /* j = n - k */                                                                            \
                tg__v2q tq_[8];                                                                                 \
                for (int i = 0; i < 8; i++)                                                                     \
                    tq_[i] = tg__ls_tail_get(ROW(i), k * (ES));                                                 \
                TG_TR8_BODY_LS(tg__v8, WIDEN, TG_LS_TAIL_ST, TG_LS_TAIL_ROW, TG_LS_TAIL_I);                     \
            }                                                                                                   \
        }                                                                                                       \
        CLEAN;                                                                                                  \
    }                                                                                                           \
    static void UNSTAGE(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes)   \
    {                                                                                                           \
        int64_t j = 0, k = n % 8;                                                                               \
        int l = 0;                                                                                              \
        for (; l + 8 <= lanes; l += 8) {                                                                        \
            for (j = 0; j + 8 <= n; j += 8)                                                                     \
                TG_TR8_BODY_LS(tg__v8, TG_TR8_LOAD, NARROW, TG_LS_COL, ROW);                                    \
            if (k) {                                                                                            \
                tg__v2q tq_[8] = {{0}};                                                                         \
                TG_TR8_BODY_LS(tg__v8, TG_LS_TAIL_LD, NARROW, TG_LS_TAIL_I, TG_LS_TAIL_ROW);                    \
                for (int i = 0; i < 8; i++)                                                                     \
                    tg__ls_tail_put(ROW(i), &tq_[i], k * (ES));                                                 \
            }                                                                                                   \
        }                                                                                                       \
        CLEAN;                                                                                                  \
        tg__lanes_unstage_##SFX##_plain(rows + l, off, t + l, n, lanes - l); /* the lanes left */               \
    }
/* every narrow format's pair in one body: SUF the body's name suffix; HW and
 * HN fp16's widening and narrowing, QW e5m2's widening */
#define TG_LSB_ALL(SUF, CLEAN, HW, HN, QW)                                                                       \
    TG_LSB_FNS(tg__lanes_stage_bf16##SUF, tg__lanes_unstage_bf16##SUF, CLEAN, TG_LSB_WIDEN, TG_LSB_NARROW, bf16,  \
               TG_LS_ROW2, 2)                                                                                    \
    TG_LSB_FNS(tg__lanes_stage_f16##SUF, tg__lanes_unstage_f16##SUF, CLEAN, HW, HN, f16, TG_LS_ROW2, 2)           \
    TG_LSB_FNS(tg__lanes_stage_e4m3##SUF, tg__lanes_unstage_e4m3##SUF, CLEAN, TG_LS43_WIDEN, TG_LS43_NARROW,      \
               e4m3, TG_LS_ROW1, 1)                                                                              \
    TG_LSB_FNS(tg__lanes_stage_e5m2##SUF, tg__lanes_unstage_e5m2##SUF, CLEAN, QW, TG_LS52_NARROW, e5m2,           \
               TG_LS_ROW1, 1)
#endif
/* With F16C (every x86-64 CPU with AVX2: tg_simd.h's level 2 asks for it)
 * fp16 widens and narrows by vcvtph2ps and vcvtps2ph (rounding to nearest
 * even), the codec's own arithmetic in one instruction: every fp16 exact
 * in fp32, a NaN quieted with its payload (the fp32 one's top 10 bits on
 * the way back), overflow to inf, fp16 subnormals rounded as the codec
 * rounds them (MXCSR as the program starts: no FTZ or DAZ, what the
 * codec's own fp32 arithmetic needs too). An e5m2 byte is an fp16's high
 * byte (5 exponent bits, bias 15), so it widens as that fp16 does; its
 * narrowing rounds at 2 mantissa bits and stays the integer form.
 * tests/unit/test_ops.c test_lanes_stage: every encoding of each, and the
 * narrowings' ties, overflows and subnormals, at every level. */
#if defined(TG_TR_AVX2) || (defined(TG_TR_B) && TG_TR_B == 8 && defined(__F16C__))
typedef short tg__v8hs __attribute__((vector_size(16)));
#define TG_LSH_WIDEN_F16C(r, p)                                                                                 \
    do {                                                                                                        \
        tg__v8hs h_;                                                                                            \
        memcpy(&h_, (p), sizeof h_);                                                                            \
        (r) = (tg__v8)__builtin_ia32_vcvtph2ps256(h_);                                                          \
    } while (0)
#define TG_LSH_NARROW_F16C(p, x)                                                                                \
    do {                                                                                                        \
        tg__v8hs h_ = __builtin_ia32_vcvtps2ph256((tg__v8f)(x), 0);                                             \
        memcpy((p), &h_, sizeof h_);                                                                            \
    } while (0)
#define TG_LS52_WIDEN_F16C(r, p)                                                                                \
    do {                                                                                                        \
        tg__v8 u_;                                                                                              \
        TG_LS8_LOAD(u_, p);                                                                                     \
        (r) = (tg__v8)__builtin_ia32_vcvtph2ps256((tg__v8hs)__builtin_convertvector(u_ << 8, tg__v8h));        \
    } while (0)
#endif
#if defined(TG_TR_B) && TG_TR_B == 8 && defined(__F16C__)
TG_LSB_ALL(, (void)0, TG_LSH_WIDEN_F16C, TG_LSH_NARROW_F16C, TG_LS52_WIDEN_F16C)
#elif defined(TG_TR_B) && TG_TR_B == 8
TG_LSB_ALL(, (void)0, TG_LSH_WIDEN, TG_LSH_NARROW, TG_LS52_WIDEN)
#else
#define tg__lanes_stage_bf16 tg__lanes_stage_bf16_plain
#define tg__lanes_unstage_bf16 tg__lanes_unstage_bf16_plain
#define tg__lanes_stage_f16 tg__lanes_stage_f16_plain
#define tg__lanes_unstage_f16 tg__lanes_unstage_f16_plain
#define tg__lanes_stage_e4m3 tg__lanes_stage_e4m3_plain
#define tg__lanes_unstage_e4m3 tg__lanes_unstage_e4m3_plain
#define tg__lanes_stage_e5m2 tg__lanes_stage_e5m2_plain
#define tg__lanes_unstage_e5m2 tg__lanes_unstage_e5m2_plain
#endif
#ifdef TG_TR_AVX2
TG_SIMD_AVX2_BEGIN
TG_LSB_ALL(_avx2, TG_SIMD_CLEAN(), TG_LSH_WIDEN_F16C, TG_LSH_NARROW_F16C, TG_LS52_WIDEN_F16C)
TG_SIMD_AVX2_END
#endif

#define TG_LS_PUBLIC(SFX)                                                                                       \
    void tg_lanes_stage_##SFX(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n)             \
    {                                                                                                           \
        TG_LANES_PICK(tg__lanes_stage_##SFX##_avx2, tg__lanes_stage_##SFX, t, rows, off, n);                    \
    }                                                                                                           \
    void tg_lanes_unstage_##SFX(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n,          \
                                int64_t lanes)                                                                  \
    {                                                                                                           \
        TG_LANES_PICK(tg__lanes_unstage_##SFX##_avx2, tg__lanes_unstage_##SFX, rows, off, t, n, lanes);         \
    }
TG_LS_PUBLIC(bf16)
TG_LS_PUBLIC(f16)
TG_LS_PUBLIC(e4m3)
TG_LS_PUBLIC(e5m2)

/* ---- activation rows -----------------------------------------------------------
 * tg_activation_f32_row: tg_activation over a contiguous fp32 row, built once
 * per SIMD body and picked as the matmul's (tg_matmul_isa): the baseline and,
 * on x86-64 without AVX in the build flags, an AVX2 body — 4 fp64 lanes for
 * exp, sigmoid and silu instead of SSE2's 2 — and with gcc an AVX-512F one. The same inline function per
 * element in each, lanes are independent elements and nothing is fused
 * (tg_fp.h; clang's body is no-fma), so every body gives the bits of the
 * element-by-element form (tests/unit/test_ops.c test_activation_rows). */
#define TG_ACT_ROW_CASE(ID, id)                                                    \
    case TG_ACT_##ID:                                                              \
        for (size_t j = 0; j < n; j++) {                                           \
            float x_, y_;                                                          \
            memcpy(&x_, src + 4 * j, 4);                                           \
            y_ = tg_activation(TG_ACT_##ID, x_, scale, bias);                      \
            memcpy(dst + 4 * j, &y_, 4);                                           \
        }                                                                          \
        break;
/* exp a block of TG_EXP_BLOCK at a time: a block whose every argument
 * x·scale + bias is below TG_EXP_DEAD is +0 throughout, what tg_activation
 * gives there (e^-104 < 2^-150, half the least subnormal, so every argument
 * below rounds to +0: tests/unit/test_math.c test_exp_dead checks each fp32
 * in [-128, -104), and below -128 exp's ends are +0), so the block is
 * written without evaluating exp: a causal mask's -inf past the diagonal
 * (specs/attention_causal.yaml) costs a compare, not an exp. The first
 * argument decides whether the block is checked at all, so a live row pays
 * one compare per block. */
#define TG_EXP_BLOCK 64
#define TG_EXP_DEAD (-104.0f)
static inline int tg__exp_block_dead(const uint8_t *src, size_t n, float scale, float bias)
{
    int dead = 1;
    float x_;
    memcpy(&x_, src, 4);
    x_ = x_ * scale;
    if (!(x_ + bias < TG_EXP_DEAD))
        return 0;
    for (size_t j = 1; j < n; j++) {
        memcpy(&x_, src + 4 * j, 4);
        x_ = x_ * scale;
        x_ = x_ + bias;
        dead &= x_ < TG_EXP_DEAD;
    }
    return dead;
}
/* erf and gelu on the baseline and AVX2 bodies: the AVX-512 rows' checked
 * fast path (below, "checked fast paths") element by element, without fmas:
 * erfc(t) = erfcx(t)·e^(-t·t), erfcx by tg_erfcx_tab.h's polynomial of t's
 * interval (Horner in multiplies and adds), e^(-t·t) by tg_math_exp_nd;
 * erf's Maclaurin series for |x| ≤ 0.5. A value within 2^TG_ERF_LOG2T ulps
 * of an fp32 rounding boundary, or a NaN argument, takes the element form.
 * gelu 182 -> 15.4 ns an element on AVX2 and 183 -> 16.6 on the baseline,
 * erf 243 -> 16.9 and 17.1 (make bench-act-rows). */
#define TG_ERF_LOG2T 16
static inline double tg__erfc_fast1(double t)
{
    tg_math_f64u c;
    double u = t - 0.5, p;
    uint64_t i;
    c.d = u + 0x1.8p52;
    i = c.u & 15;
    c.d = c.d - 0x1.8p52;
    u = u - c.d;
    p = tg_erfcx_tab[15][i];
    for (int q = 14; q >= 0; q--) {
        p = p * u;
        p = p + tg_erfcx_tab[q][i];
    }
    u = t * t;
    return p * tg_math_exp_nd(-u);
}
/* 1 when w is within 2^log2t ulps of an fp32 rounding boundary (as tg__near_bound8) */
static inline int tg__near_bound1(double w, int log2t)
{
    tg_math_f64u a;
    a.d = w;
    a.u &= 0x7fffffffffffffffull;
    a.d = a.d < 0x1p-126 ? a.d + 0x1p-126 : a.d;
    a.u += ((uint64_t)1 << log2t) - ((uint64_t)1 << 28);
    return (a.u & (((uint64_t)1 << 29) - ((uint64_t)2 << log2t))) == 0;
}
/* erf's Maclaurin coefficients (2/√π)(−1)^n/(n!(2n + 1)), n ≤ 10 */
static inline void tg__erf_coefs(double cn[11])
{
    for (int n = 0; n <= 10; n++)
        cn[n] = (n & 1 ? -0x1.20dd750429b6dp+0 : 0x1.20dd750429b6dp+0) * tg_math_inv_fact[n] / (2 * n + 1);
}
static inline double tg__erf_fast1(double x, const double cn[11])
{
    tg_math_f64u r, sx;
    double a = x < 0 ? -x : x, s, p;
    a = a < 10.99 ? a : 10.99;
    s = a * a;
    p = cn[10];
    for (int n = 9; n >= 0; n--) {
        p = p * s;
        p = p + cn[n];
    }
    p = a * p;
    r.d = a <= 0.5 ? p : 1.0 - tg__erfc_fast1(a);
    sx.d = x;
    r.u |= sx.u & 0x8000000000000000ull;
    return r.d;
}
static inline double tg__gelu_fast1(double x, const double cn[11])
{
    (void)cn;
    double t = x * 0x1.6a09e667f3bcdp-1, a = t < 0 ? -t : t, e;
    a = a < 10.99 ? a : 10.99;
    e = 0.5 * tg__erfc_fast1(a);
    e = t >= 0.0 ? 1.0 - e : e;
    return x < -40.0 ? -0.0 : x * e;
}
#define TG_ACT_ROW_ERF1(NAME, id)                                                                    \
    static void NAME##_##id(uint8_t *dst, const uint8_t *src, size_t n, float scale, float bias)     \
    {                                                                                                \
        double cn[11];                                                                               \
        tg__erf_coefs(cn);                                                                           \
        for (size_t o = 0; o < n; o += 64) {                                                         \
            const size_t m = n - o < 64 ? n - o : 64;                                                \
            float x[64];                                                                             \
            double w[64];                                                                            \
            unsigned char fl[64];                                                                    \
            for (size_t j = 0; j < m; j++) {                                                         \
                memcpy(&x[j], src + 4 * (o + j), 4);                                                 \
                x[j] = x[j] * scale;                                                                 \
                x[j] = x[j] + bias;                                                                  \
                w[j] = tg__##id##_fast1((double)x[j], cn);                                           \
                fl[j] = (unsigned char)(tg__near_bound1(w[j], TG_ERF_LOG2T) | (x[j] != x[j]));       \
            }                                                                                        \
            for (size_t j = 0; j < m; j++) {                                                         \
                const float r = fl[j] ? tg_nan_canon(tg_act_##id(x[j])) : (float)w[j];               \
                memcpy(dst + 4 * (o + j), &r, 4);                                                    \
            }                                                                                        \
        }                                                                                            \
    }
#define TG_ACT_ROW_ERF(NAME) TG_ACT_ROW_ERF1(NAME, erf) TG_ACT_ROW_ERF1(NAME, gelu)
#define TG_ACT_ROW_ERF_CASE(NAME)                                                                    \
    if (f == TG_ACT_ERF || f == TG_ACT_GELU) {                                                       \
        (f == TG_ACT_ERF ? NAME##_erf : NAME##_gelu)(dst, src, n, scale, bias);                      \
        return;                                                                                      \
    }
/* sqrt on x86: tg_math_sqrt's correctly rounded root is IEEE sqrtps's (an
 * exhaustive run over all 2^32 fp32 arguments agreed, as for the AVX-512
 * row), a NaN result the canonical NaN; vectors of W, the body's width
 * (baseline 4, AVX2 8: 31 -> 0.2 ns an element), loaded and stored at any
 * alignment (the rows take byte offsets), the rest element by
 * element. Elsewhere the element form. */
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE__))
#define TG_ACT_ROW_SQRT(NAME, W, SQRT)                                                               \
    static void NAME##_sqrt(uint8_t *dst, const uint8_t *src, size_t n, float scale, float bias)     \
    {                                                                                                \
        typedef float v_ __attribute__((vector_size(4 * (W)), aligned(1), may_alias));               \
        typedef int32_t vi_ __attribute__((vector_size(4 * (W))));                                   \
        size_t j = 0;                                                                                \
        for (; j + (W) <= n; j += (W)) {                                                             \
            v_ a, r;                                                                                 \
            vi_ nan;                                                                                 \
            a = *(const v_ *)(const void *)(src + 4 * j);                                            \
            a = a * scale;                                                                           \
            a = a + bias;                                                                            \
            r = SQRT(a);                                                                             \
            nan = r != r;                                                                            \
            r = (v_)(((vi_)r & ~nan) | (nan & (int32_t)TG_NAN_CANON_BITS));                          \
            *(v_ *)(void *)(dst + 4 * j) = r;                                                        \
        }                                                                                            \
        NAME##_f(TG_ACT_SQRT, dst + 4 * j, src + 4 * j, n - j, scale, bias);                         \
    }
#define TG_ACT_ROW_SQRT_CASE(NAME)                                                                   \
    if (f == TG_ACT_SQRT) {                                                                          \
        NAME##_sqrt(dst, src, n, scale, bias);                                                       \
        return;                                                                                      \
    }
#else
#define TG_ACT_ROW_SQRT(NAME, W, SQRT)
#define TG_ACT_ROW_SQRT_CASE(NAME)
#endif
#define TG_ACT_ROW_FN(NAME)                                                                          \
    static void NAME(tg_act_func f, uint8_t *dst, const uint8_t *src, size_t n, float scale, float bias) \
    {                                                                                                \
        TG_ACT_ROW_SQRT_CASE(NAME)                                                                   \
        TG_ACT_ROW_ERF_CASE(NAME)                                                                    \
        if (f == TG_ACT_EXP && n > 0) {                                                              \
            for (size_t o_ = 0; o_ < n; o_ += TG_EXP_BLOCK) {                                        \
                const size_t m_ = n - o_ < TG_EXP_BLOCK ? n - o_ : TG_EXP_BLOCK;                     \
                if (tg__exp_block_dead(src + 4 * o_, m_, scale, bias))                               \
                    memset(dst + 4 * o_, 0, 4 * m_);                                                 \
                else                                                                                 \
                    NAME##_exp(dst + 4 * o_, src + 4 * o_, m_, scale, bias);                         \
            }                                                                                        \
            return;                                                                                  \
        }                                                                                            \
        NAME##_f(f, dst, src, n, scale, bias);                                                       \
    }
#define TG_ACT_ROW_FN_F(NAME)                                                                        \
    static void NAME##_f(tg_act_func f, uint8_t *dst, const uint8_t *src, size_t n, float scale,     \
                         float bias)                                                                 \
    {                                                                                                \
        switch (f) {                                                                                 \
            TG_ACT_FUNCS(TG_ACT_ROW_CASE)                                                            \
        default:                                                                                     \
            break;                                                                                   \
        }                                                                                            \
    }
/* the live exp blocks through the body's own element loop */
#define TG_ACT_ROW_EXP_F(NAME)                                                                       \
    static void NAME##_exp(uint8_t *dst, const uint8_t *src, size_t n, float scale, float bias)      \
    {                                                                                                \
        NAME##_f(TG_ACT_EXP, dst, src, n, scale, bias);                                              \
    }
TG_ACT_ROW_FN_F(tg__act_row_base)
TG_ACT_ROW_EXP_F(tg__act_row_base)
TG_ACT_ROW_SQRT(tg__act_row_base, 4, __builtin_ia32_sqrtps)
TG_ACT_ROW_ERF(tg__act_row_base)
TG_ACT_ROW_FN(tg__act_row_base)
#ifdef TG_SIMD_AVX2_BODY
TG_SIMD_AVX2_BEGIN
TG_ACT_ROW_FN_F(tg__act_row_avx2)
TG_ACT_ROW_EXP_F(tg__act_row_avx2)
TG_ACT_ROW_SQRT(tg__act_row_avx2, 8, __builtin_ia32_sqrtps256)
TG_ACT_ROW_ERF(tg__act_row_avx2)
TG_ACT_ROW_FN(tg__act_row_avx2)
TG_SIMD_AVX2_END
#endif
/* gcc only, an AVX-512F body (8 fp64 lanes; p7's exp rows 2.05-2.39 -> 1.14-1.49
 * ms): its fp-contract=off (tg_fp.h) holds in the target region. clang ignores
 * its no-contraction pragma under -ffp-contract=fast and an AVX-512F function
 * cannot be no-fma, so there the AVX2 body is the widest. Built whatever the
 * flags' ISA (with -march=native on an AVX-512 CPU the element form,
 * vectorized by gcc, ran exp 2.1 times, sin 11 and erf 15 times as long) and
 * picked by the CPU's level (tg__act_level). */
#if defined(TG_SIMD_DETECT) && !defined(__clang__)
#define TG_ACT_AVX512_BODY 1
#pragma GCC push_options
#pragma GCC target("avx512f")
TG_ACT_ROW_FN_F(tg__act_row_avx512_elem)
typedef double tg__d8 __attribute__((vector_size(64)));
typedef uint64_t tg__u64x8 __attribute__((vector_size(64)));
typedef long long tg__i64x8 __attribute__((vector_size(64)));
typedef float tg__f8 __attribute__((vector_size(32), aligned(4), may_alias));
typedef int32_t tg__i32x8 __attribute__((vector_size(32)));
/* Vectors of 8 a step, each statement across all of them. The polynomial
 * and the other chains are long and the core runs about four zmm operations
 * a cycle: the more independent vectors side by side, the fewer cycles wait
 * (exp 0.55 -> 0.44 ns an element with 8 rather than 2, tanh 1.08 -> 0.81,
 * gelu_apprx_tanh 0.85 -> 0.57, sin 0.92 -> 0.65). Each statement's loop is
 * unrolled by pragma: left to gcc, three or more vectors were not, and the
 * arrays went through the stack (3: 0.79 ns, 4: 2.1). */
#define TG_EXPV_U 8
#define TG_EXPV_ALL(S) _Pragma("GCC unroll 8") for (int k_ = 0; k_ < TG_EXPV_U; k_++) S
/* The AVX-512F rows of the functions that take e^x from tg_math_exp_nd (exp,
 * sigmoid, silu, gelu_apprx_tanh), written with vector types: gcc's own
 * vectorization of the element form looks the 2^(j/32) table up by scalar
 * loads and selects exp's ends by compare-and-blends. Each is its tg_math.h
 * function's operations in their order, each statement across TG_EXPV_U
 * vectors (above), with e^x changed in three
 * ways that keep every fp32 result:
 *  - the table lookup is a 16-entry permute of each half (vpermt2pd) and a
 *    select by index bit 4;
 *  - 2^m goes into the table entry's exponent before the one multiply by
 *    e^r, rather than scaling the product after (tg__exp_ndv8: exact either
 *    way; exp 0.60-0.61 -> 0.55-0.56 ns an element on 4096-element rows);
 *  - the argument is clamped to [-128, 128] before, in place of the ends
 *    (+inf above 128, +0 below -128) selected after. e^128 is a finite
 *    double above 2^184 and e^-128 one below 2^-184, and each function
 *    rounds to the same fp32 from either: exp to +inf and +0; 1/(1 + e) to
 *    +0 and 1; x/(1 + e), for silu's |x| ≤ 200 and gelu's |x| ≤ 50 (beyond,
 *    their own selects decide), to ±0 and x. maxpd and minpd give their
 *    second operand when one is NaN, so the clamp keeps a NaN.
 * A NaN result (a NaN argument only) is the canonical NaN, what
 * tg_activation returns. Exhaustive runs over all 2^32 fp32 arguments gave
 * tg_activation's bits for each function; test_ops.c test_exp_rows_sweep
 * and test_activation_rows sweep and spot-check them. */
/* tg_math_exp_core's reduction and polynomial on TG_EXPV_U vectors: p =
 * e^r, t = 2^(j/32) from the table, kb = the bits of kd + 1.5·2^52, whose
 * low 52 are 2^51 + k for k = 32m + j */
__attribute__((always_inline)) static inline void tg__exp_polyv8(const tg__d8 x[TG_EXPV_U], const tg__d8 tab[4],
                                                                 tg__d8 p[TG_EXPV_U], tg__d8 t[TG_EXPV_U],
                                                                 tg__u64x8 kb[TG_EXPV_U])
{
    tg__d8 kd[TG_EXPV_U], r[TG_EXPV_U];
    TG_EXPV_ALL(kd[k_] = x[k_] * 0x1.71547652b82fep+5);
    TG_EXPV_ALL(kd[k_] = kd[k_] + 0x1.8p52);
    TG_EXPV_ALL(kb[k_] = (tg__u64x8)kd[k_]);
    TG_EXPV_ALL(kd[k_] = kd[k_] - 0x1.8p52);
    TG_EXPV_ALL(t[k_] = kd[k_] * 0x1.62e42ff000000p-6);
    TG_EXPV_ALL(r[k_] = x[k_] - t[k_]);
    TG_EXPV_ALL(t[k_] = kd[k_] * -0x1.718432a1b0e26p-40);
    TG_EXPV_ALL(r[k_] = r[k_] - t[k_]);
    TG_EXPV_ALL(p[k_] = r[k_] * (1.0 / 120));
    TG_EXPV_ALL(p[k_] = p[k_] + 1.0 / 24);
    TG_EXPV_ALL(p[k_] = r[k_] * p[k_]);
    TG_EXPV_ALL(p[k_] = p[k_] + 1.0 / 6);
    TG_EXPV_ALL(p[k_] = r[k_] * p[k_]);
    TG_EXPV_ALL(p[k_] = p[k_] + 1.0 / 2);
    TG_EXPV_ALL(p[k_] = r[k_] * p[k_]);
    TG_EXPV_ALL(p[k_] = p[k_] + 1.0);
    TG_EXPV_ALL(p[k_] = r[k_] * p[k_]);
    TG_EXPV_ALL(p[k_] = p[k_] + 1.0);
    /* j mod 16 from each half (vpermt2pd reads the index's low 4 bits),
     * the half picked by j's bit 4 (vptestmq, vblendmpd) */
    TG_EXPV_ALL(t[k_] = __builtin_ia32_blendmpd_512_mask(
                    __builtin_shuffle(tab[0], tab[1], kb[k_]), __builtin_shuffle(tab[2], tab[3], kb[k_]),
                    __builtin_ia32_ptestmq512((tg__i64x8)kb[k_], (tg__i64x8){0} + 16, (uint8_t)-1)));
}
/* tg_math_exp_core on TG_EXPV_U vectors: p = 2^(j/32)·e^r, mb = m + 2^46 */
__attribute__((always_inline)) static inline void tg__exp_corev8(const tg__d8 x[TG_EXPV_U], const tg__d8 tab[4],
                                                                 tg__d8 p[TG_EXPV_U], tg__u64x8 mb[TG_EXPV_U])
{
    const uint64_t m52 = ((uint64_t)1 << 52) - 1;
    tg__d8 t[TG_EXPV_U];
    tg__u64x8 kb[TG_EXPV_U];
    tg__exp_polyv8(x, tab, p, t, kb);
    TG_EXPV_ALL(p[k_] = t[k_] * p[k_]);
    TG_EXPV_ALL(mb[k_] = (kb[k_] & m52) >> 5);
}
/* x clamped to [-lim, lim] in place; maxpd and minpd give their second
 * operand when one is NaN, so a NaN stays */
__attribute__((always_inline)) static inline void tg__clampv8(tg__d8 x[TG_EXPV_U], double lim)
{
    const tg__d8 z = {0}, hi = z + lim, lo = -hi;
    TG_EXPV_ALL(x[k_] = __builtin_ia32_maxpd512_mask(lo, x[k_], z, (uint8_t)-1, 4));
    TG_EXPV_ALL(x[k_] = __builtin_ia32_minpd512_mask(hi, x[k_], z, (uint8_t)-1, 4));
}
/* e^x of tg_math_exp_nd in place, x clamped to [-128, 128] first */
__attribute__((always_inline)) static inline void tg__exp_ndv8(tg__d8 x[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__d8 p[TG_EXPV_U], t[TG_EXPV_U];
    tg__u64x8 kb[TG_EXPV_U];
    tg__clampv8(x, 128.0);
    tg__exp_polyv8(x, tab, p, t, kb);
    /* (2^(j/32)·e^r)·2^m as (2^(j/32)·2^m)·e^r: m (|m| ≤ 185 after the
     * clamp) added to the table entry's exponent, ((kb >> 5) << 52 is m
     * there, 2^46 shifted out), is exact, and so is the scaling of the
     * rounded product, all normal in fp64: one rounding, the same bits */
    TG_EXPV_ALL(t[k_] = (tg__d8)((tg__u64x8)t[k_] + ((kb[k_] >> 5) << 52)));
    TG_EXPV_ALL(x[k_] = t[k_] * p[k_]);
}
__attribute__((always_inline)) static inline tg__d8 tg__f8_to_d8(tg__f8 a)
{
    return __builtin_ia32_cvtps2pd512_mask(a, (tg__d8){0}, (uint8_t)-1, 4);
}
__attribute__((always_inline)) static inline tg__f8 tg__d8_to_f8(tg__d8 a)
{
    return __builtin_ia32_cvtpd2ps512_mask(a, (tg__f8){0}, (uint8_t)-1, 4);
}
/* y where m is set, else x (m all-ones or zero a lane) */
__attribute__((always_inline)) static inline tg__f8 tg__f8_pick(tg__i32x8 m, tg__f8 y, tg__f8 x)
{
    return (tg__f8)(((tg__i32x8)x & ~m) | ((tg__i32x8)y & m));
}
__attribute__((always_inline)) static inline tg__f8 tg__f8_nan_canon(tg__f8 a)
{
    return tg__f8_pick(a != a, (tg__f8)((tg__i32x8){0} + (int32_t)TG_NAN_CANON_BITS), a);
}
/* tg_math_expv */
__attribute__((always_inline)) static inline void tg__expv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__d8 x[TG_EXPV_U];
    TG_EXPV_ALL(x[k_] = tg__f8_to_d8(a[k_]));
    tg__exp_ndv8(x, tab);
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(tg__d8_to_f8(x[k_])));
}
/* tg_math_sigmoidv */
__attribute__((always_inline)) static inline void tg__sigmoidv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__d8 x[TG_EXPV_U];
    TG_EXPV_ALL(x[k_] = -tg__f8_to_d8(a[k_]));
    tg__exp_ndv8(x, tab);
    TG_EXPV_ALL(x[k_] = 1.0 + x[k_]);
    TG_EXPV_ALL(x[k_] = 1.0 / x[k_]);
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(tg__d8_to_f8(x[k_])));
}
/* tg_math_siluv */
__attribute__((always_inline)) static inline void tg__siluv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__d8 d[TG_EXPV_U], x[TG_EXPV_U];
    TG_EXPV_ALL(d[k_] = tg__f8_to_d8(a[k_]));
    TG_EXPV_ALL(x[k_] = -d[k_]);
    tg__exp_ndv8(x, tab);
    TG_EXPV_ALL(x[k_] = 1.0 + x[k_]);
    TG_EXPV_ALL(x[k_] = d[k_] / x[k_]);
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(tg__f8_pick(a[k_] < -200.0f, -(tg__f8){0}, tg__d8_to_f8(x[k_]))));
}
/* tg_math_gelu_tanhv */
__attribute__((always_inline)) static inline void tg__gelu_apprx_tanhv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__d8 d[TG_EXPV_U], x[TG_EXPV_U];
    tg__f8 r[TG_EXPV_U];
    TG_EXPV_ALL(d[k_] = tg__f8_to_d8(a[k_]));
    TG_EXPV_ALL(x[k_] = 0.044715 * d[k_]);
    TG_EXPV_ALL(x[k_] = x[k_] * d[k_]);
    TG_EXPV_ALL(x[k_] = x[k_] * d[k_]);
    TG_EXPV_ALL(x[k_] = d[k_] + x[k_]);
    TG_EXPV_ALL(x[k_] = 0x1.9884533d43651p-1 * x[k_]);
    TG_EXPV_ALL(x[k_] = -2.0 * x[k_]);
    tg__exp_ndv8(x, tab);
    TG_EXPV_ALL(x[k_] = 1.0 + x[k_]);
    TG_EXPV_ALL(x[k_] = d[k_] / x[k_]);
    TG_EXPV_ALL(r[k_] = tg__d8_to_f8(x[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] > 50.0f, a[k_], r[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] < -50.0f, -(tg__f8){0}, r[k_]));
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(r[k_]));
}
/* erf and gelu (erf form): tg_math.c's erf_series, erfc_cf, tg_math_erf_d
 * and tg_math_gelu on the lanes of TG_EXPV_U vectors, each lane through the
 * scalar code's operations in its order. The scalar code branches per
 * element (series or continued fraction) and its series stops when its
 * term falls below 1e-18; here both paths run on all lanes where some lane
 * needs them, the series while some lane is live, a lane's term and sum
 * frozen once it stopped, and each lane's result selected. Exhaustive runs
 * over all 2^32 fp32 arguments gave tg_activation's bits for both. */
__attribute__((always_inline)) static inline tg__d8 tg__d8_pick(tg__u64x8 m, tg__d8 y, tg__d8 x)
{
    return (tg__d8)(((tg__u64x8)x & ~m) | ((tg__u64x8)y & m));
}
__attribute__((always_inline)) static inline int tg__u64x8_any(tg__u64x8 m)
{
    uint64_t o = 0;
    for (int i = 0; i < 8; i++)
        o |= m[i];
    return o != 0;
}
/* erf_series: the Maclaurin sum to the first term below 1e-18 in
 * magnitude, on the lanes set in live */
__attribute__((always_inline)) static inline tg__d8 tg__erf_seriesv8(tg__d8 t, tg__u64x8 live)
{
    const tg__d8 z = t * t;
    tg__d8 term = t, sum = t;
    for (int n = 1; n < 60 && tg__u64x8_any(live); n++) {
        tg__d8 q = -z / (double)n, tn, sn;
        tn = term * q;
        sn = tn / (double)(2 * n + 1);
        sn = sum + sn;
        term = tg__d8_pick(live, tn, term);
        sum = tg__d8_pick(live, sn, sum);
        live &= ~(tg__u64x8)((tn < 1e-18) & (tn > -1e-18));
    }
    return sum * 0x1.20dd750429b6dp+0;
}
/* erfc_cf for t ≤ 27 (lanes above: +0): the continued fraction, then
 * tg_math_exp_dv(-t²) (-t² in [-729, 0]: inside its ±1000 ends) */
__attribute__((always_inline)) static inline void tg__erfc_cfv8(const tg__d8 t[TG_EXPV_U], tg__d8 r[TG_EXPV_U],
                                                                const tg__d8 tab[4])
{
    const uint64_t b45 = (uint64_t)1 << 45;
    tg__d8 f[TG_EXPV_U], x[TG_EXPV_U], p[TG_EXPV_U];
    tg__u64x8 mb[TG_EXPV_U], m1b[TG_EXPV_U], e[TG_EXPV_U];
    TG_EXPV_ALL(f[k_] = t[k_]);
    for (int n = 120; n >= 1; n--)
        TG_EXPV_ALL(f[k_] = t[k_] + (n * 0.5) / f[k_]);
    TG_EXPV_ALL(x[k_] = -t[k_] * t[k_]);
    tg__exp_corev8(x, tab, p, mb);
    /* tg_math_exp_dv: 2^m as 2^m1 · 2^(m - m1) */
    TG_EXPV_ALL(m1b[k_] = (mb[k_] + (1 - (mb[k_] >> 46))) >> 1);
    TG_EXPV_ALL(e[k_] = (m1b[k_] - b45 + 1023) << 52);
    TG_EXPV_ALL(p[k_] = p[k_] * (tg__d8)e[k_]);
    TG_EXPV_ALL(e[k_] = (mb[k_] - m1b[k_] - b45 + 1023) << 52);
    TG_EXPV_ALL(p[k_] = p[k_] * (tg__d8)e[k_]);
    TG_EXPV_ALL(p[k_] = p[k_] * 0x1.20dd750429b6dp-1);
    TG_EXPV_ALL(p[k_] = p[k_] / f[k_]);
    TG_EXPV_ALL(r[k_] = tg__d8_pick((tg__u64x8)(t[k_] > 27.0), (tg__d8){0}, p[k_]));
}
/* erfc_pos(a) for a ≥ 0 on the lanes set in need: 1 - erf_series(a) for a ≤ 2, else erfc_cf(a) */
__attribute__((always_inline)) static inline void tg__erfc_posv8(const tg__d8 a[TG_EXPV_U],
                                                                 const tg__u64x8 need[TG_EXPV_U],
                                                                 tg__d8 r[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__u64x8 small[TG_EXPV_U], cf = {0};
    tg__d8 c[TG_EXPV_U];
    TG_EXPV_ALL(small[k_] = (tg__u64x8)(a[k_] <= 2.0));
    TG_EXPV_ALL(cf |= need[k_] & ~small[k_]);
    if (tg__u64x8_any(cf))
        tg__erfc_cfv8(a, c, tab);
    else
        TG_EXPV_ALL(c[k_] = (tg__d8){0});
    TG_EXPV_ALL(r[k_] = 1.0 - tg__erf_seriesv8(a[k_], need[k_] & small[k_]));
    TG_EXPV_ALL(r[k_] = tg__d8_pick(small[k_], r[k_], c[k_]));
}
/* tg_math_erf: (float)tg_math_erf_d(x) */
__attribute__((always_inline)) static inline void tg__erfv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__d8 t[TG_EXPV_U], ab[TG_EXPV_U], r[TG_EXPV_U];
    tg__u64x8 neg[TG_EXPV_U], small[TG_EXPV_U], cf = {0};
    TG_EXPV_ALL(t[k_] = tg__f8_to_d8(a[k_]));
    TG_EXPV_ALL(neg[k_] = (tg__u64x8)(t[k_] < 0));
    TG_EXPV_ALL(ab[k_] = tg__d8_pick(neg[k_], -t[k_], t[k_]));
    TG_EXPV_ALL(small[k_] = (tg__u64x8)(ab[k_] <= 2.0));
    TG_EXPV_ALL(cf |= ~small[k_] & (tg__u64x8)(ab[k_] <= 27.0));
    if (tg__u64x8_any(cf))
        tg__erfc_cfv8(ab, r, tab);
    else
        TG_EXPV_ALL(r[k_] = (tg__d8){0});
    TG_EXPV_ALL(r[k_] = 1.0 - r[k_]);
    TG_EXPV_ALL(r[k_] = tg__d8_pick(small[k_], tg__erf_seriesv8(ab[k_], small[k_]), r[k_]));
    TG_EXPV_ALL(r[k_] = tg__d8_pick(neg[k_], -r[k_], r[k_]));
    /* NaN and ±0: t + t */
    TG_EXPV_ALL(r[k_] = tg__d8_pick((tg__u64x8)((t[k_] != t[k_]) | (t[k_] == 0.0)), t[k_] + t[k_], r[k_]));
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(tg__d8_to_f8(r[k_])));
}
/* tg_math_gelu: (float)(x·Φ(x)), Φ by erfc_pos of t = x/√2 */
__attribute__((always_inline)) static inline void tg__geluv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    tg__d8 d[TG_EXPV_U], t[TG_EXPV_U], ab[TG_EXPV_U], e[TG_EXPV_U];
    tg__u64x8 pos[TG_EXPV_U], need[TG_EXPV_U];
    tg__f8 r[TG_EXPV_U];
    TG_EXPV_ALL(d[k_] = tg__f8_to_d8(a[k_]));
    TG_EXPV_ALL(t[k_] = d[k_] * 0x1.6a09e667f3bcdp-1);
    TG_EXPV_ALL(pos[k_] = (tg__u64x8)(t[k_] >= 0));
    TG_EXPV_ALL(ab[k_] = tg__d8_pick(pos[k_], t[k_], -t[k_]));
    /* the lanes the selects below keep: -40 ≤ x ≤ 10 (so not NaN) */
    TG_EXPV_ALL(need[k_] = (tg__u64x8)((d[k_] <= 10.0) & (d[k_] >= -40.0)));
    tg__erfc_posv8(ab, need, e, tab);
    TG_EXPV_ALL(e[k_] = tg__d8_pick(pos[k_], 1.0 - 0.5 * e[k_], 0.5 * e[k_]));
    TG_EXPV_ALL(r[k_] = tg__d8_to_f8(d[k_] * e[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] < -40.0f, -(tg__f8){0}, r[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] > 10.0f, a[k_], r[k_]));
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(r[k_]));
}
/* tg_math_sin for |x| ≤ 823549: tg_math.c sin_small's Cody–Waite
 * reduction by π/2 and sin_quadrant's two polynomials (cos for odd
 * quadrants, sin for even), both on every lane and the quadrant's selected,
 * negated in quadrants 2 and 3. Larger |x|, infinities and NaNs go through
 * the element form (the row does a step with any of them so). Exhaustive
 * run over all 2^32 fp32 arguments: tg_activation's bits. */
/* sin_small's reduction: r = x − k·π/2 (Cody–Waite, π/2 in three parts),
 * q = the bits of k + 1.5·2^52 (k's quadrant in its low 2) */
__attribute__((always_inline)) static inline void tg__sin_reducev8(const tg__d8 x[TG_EXPV_U], tg__d8 r[TG_EXPV_U],
                                                                   tg__u64x8 q[TG_EXPV_U])
{
    tg__d8 kd[TG_EXPV_U];
    TG_EXPV_ALL(kd[k_] = x[k_] * 0x1.45f306dc9c883p-1);
    TG_EXPV_ALL(kd[k_] = kd[k_] + 0x1.8p52);
    TG_EXPV_ALL(q[k_] = (tg__u64x8)kd[k_]);
    TG_EXPV_ALL(kd[k_] = kd[k_] - 0x1.8p52);
    TG_EXPV_ALL(r[k_] = x[k_] - kd[k_] * 0x1.921fb54400000p+0);
    TG_EXPV_ALL(r[k_] = r[k_] - kd[k_] * 0x1.0b4611a600000p-34);
    TG_EXPV_ALL(r[k_] = r[k_] - kd[k_] * 0x1.3198a2e037073p-69);
}
__attribute__((always_inline)) static inline void tg__sinv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    const double *const c = tg_math_inv_fact;
    tg__d8 x[TG_EXPV_U], r[TG_EXPV_U], z[TG_EXPV_U], cs[TG_EXPV_U], sn[TG_EXPV_U];
    tg__u64x8 q[TG_EXPV_U];
    (void)tab;
    TG_EXPV_ALL(x[k_] = tg__f8_to_d8(a[k_]));
    tg__sin_reducev8(x, r, q);
    TG_EXPV_ALL(z[k_] = r[k_] * r[k_]);
    TG_EXPV_ALL(cs[k_] = z[k_] * c[16]);
    TG_EXPV_ALL(sn[k_] = z[k_] * -c[15]);
    /* c = ±1/n! + z·c, the sign + where (n/2) is even */
#define TG_SIN_STEP(V, n) TG_EXPV_ALL(V[k_] = ((n / 2) & 1 ? -c[n] : c[n]) + V[k_]);
#define TG_SIN_MUL(V) TG_EXPV_ALL(V[k_] = z[k_] * V[k_]);
    TG_SIN_STEP(cs, 14) TG_SIN_STEP(sn, 13) TG_SIN_MUL(cs) TG_SIN_MUL(sn)
    TG_SIN_STEP(cs, 12) TG_SIN_STEP(sn, 11) TG_SIN_MUL(cs) TG_SIN_MUL(sn)
    TG_SIN_STEP(cs, 10) TG_SIN_STEP(sn, 9) TG_SIN_MUL(cs) TG_SIN_MUL(sn)
    TG_SIN_STEP(cs, 8) TG_SIN_STEP(sn, 7) TG_SIN_MUL(cs) TG_SIN_MUL(sn)
    TG_SIN_STEP(cs, 6) TG_SIN_STEP(sn, 5) TG_SIN_MUL(cs) TG_SIN_MUL(sn)
    TG_SIN_STEP(cs, 4) TG_SIN_STEP(sn, 3) TG_SIN_MUL(cs) TG_SIN_MUL(sn)
    TG_SIN_STEP(cs, 2) TG_SIN_STEP(sn, 1) TG_SIN_MUL(cs)
    TG_SIN_STEP(cs, 0)
#undef TG_SIN_MUL
#undef TG_SIN_STEP
    TG_EXPV_ALL(sn[k_] = r[k_] * sn[k_]);
    TG_EXPV_ALL(sn[k_] = tg__d8_pick(-(q[k_] & 1), cs[k_], sn[k_]));
    TG_EXPV_ALL(sn[k_] = tg__d8_pick(-((q[k_] >> 1) & 1), -sn[k_], sn[k_]));
    TG_EXPV_ALL(a[k_] = tg__d8_to_f8(sn[k_]));
}
/* sqrt: tg_math_sqrt is exact (the correctly rounded root, -0 for -0, +inf
 * for +inf, NaN for x < 0) and so is IEEE sqrtps; a NaN result is the
 * canonical NaN, as tg_activation gives. An exhaustive run over all 2^32
 * fp32 arguments agreed; test_activation_rows checks the specials. */
__attribute__((always_inline)) static inline void tg__sqrtv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    (void)tab;
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(__builtin_ia32_sqrtps256(a[k_])));
}
/* tg_math_rsqrtv: the exponent's guess and four Newton steps y(1.5 − (0.5x)y·y)
 * in fp64, each operation in its order, rounded once, then the special cases
 * selected over it (±0: ±inf; x < 0: NaN; +inf: +0; a NaN: x + x), a NaN
 * result the canonical one, as tg_activation gives. gcc's vectorization of
 * the element form ran one vector at a time: 0.92 ns an element, now 0.62.
 * An exhaustive run over all 2^32 fp32 arguments agreed. */
__attribute__((always_inline)) static inline void tg__rsqrtv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    const tg__f8 z = {0}, inf = (tg__f8)((tg__i32x8){0} + 0x7f800000);
    tg__d8 d[TG_EXPV_U], y[TG_EXPV_U];
    tg__f8 r[TG_EXPV_U];
    (void)tab;
    TG_EXPV_ALL(d[k_] = tg__f8_to_d8(a[k_]));
    TG_EXPV_ALL(y[k_] = (tg__d8)(((tg__u64x8){0} + 0x5fe6eb50c7b537a9ull) - ((tg__u64x8)d[k_] >> 1)));
    TG_EXPV_ALL(d[k_] = 0.5 * d[k_]); /* each step's first product, the same every step */
    for (int s_ = 0; s_ < 4; s_++)
        TG_EXPV_ALL({
            tg__d8 t_ = d[k_] * y[k_];
            t_ = t_ * y[k_];
            t_ = 1.5 - t_;
            y[k_] = y[k_] * t_;
        });
    TG_EXPV_ALL(r[k_] = tg__d8_to_f8(y[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] == z, (tg__f8)(((tg__i32x8)a[k_] & (int32_t)0x80000000) | (tg__i32x8)inf),
                                    r[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] < z, (tg__f8)((tg__i32x8){0} + (int32_t)TG_NAN_CANON_BITS), r[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] == inf, z, r[k_]));
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(tg__f8_pick(a[k_] != a[k_], a[k_] + a[k_], r[k_])));
}
/* tg_math_logv: tg_math_log_dn's operations in their order (the exponent as
 * a double through 2^52's mantissa, the mantissa halved above √2, s = f/(2 +
 * f), the odd series in s² by 1/n from 1/23), rounded once, then the special
 * cases selected over it (±0: −inf; x < 0: NaN; +inf: +inf; a NaN: x + x), a
 * NaN result the canonical one. gcc's element form: 1.10 ns an element, this
 * 0.83. An exhaustive run over all 2^32 fp32 arguments agreed. */
__attribute__((always_inline)) static inline void tg__logv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    const tg__f8 z = {0}, inf = (tg__f8)((tg__i32x8){0} + 0x7f800000);
    const tg__d8 one = (tg__d8){0} + 1.0;
    tg__d8 m[TG_EXPV_U], ed[TG_EXPV_U], s[TG_EXPV_U], w[TG_EXPV_U], t[TG_EXPV_U], q[TG_EXPV_U];
    tg__f8 r[TG_EXPV_U];
    (void)tab;
    TG_EXPV_ALL(m[k_] = tg__f8_to_d8(a[k_]));
    TG_EXPV_ALL(ed[k_] = (tg__d8)(((tg__u64x8)m[k_] >> 52) | 0x4330000000000000ull));
    TG_EXPV_ALL(ed[k_] = ed[k_] - 0x1p52);
    TG_EXPV_ALL(ed[k_] = ed[k_] - 1023.0);
    TG_EXPV_ALL(m[k_] = (tg__d8)(((tg__u64x8)m[k_] & 0x000fffffffffffffull) | 0x3ff0000000000000ull));
    TG_EXPV_ALL({
        const tg__d8 h_ = m[k_] * 0.5;
        const tg__u64x8 c_ = (tg__u64x8)(m[k_] > 0x1.6a09e667f3bcdp+0);
        ed[k_] = ed[k_] + (tg__d8)(c_ & (tg__u64x8)one);
        m[k_] = (tg__d8)((c_ & (tg__u64x8)h_) | (~c_ & (tg__u64x8)m[k_]));
    });
    TG_EXPV_ALL(m[k_] = m[k_] - 1.0); /* f */
    TG_EXPV_ALL(t[k_] = 2.0 + m[k_]);
    TG_EXPV_ALL(s[k_] = m[k_] / t[k_]);
    TG_EXPV_ALL(m[k_] = s[k_] * s[k_]); /* z */
    TG_EXPV_ALL(w[k_] = (tg__d8){0} + 1.0 / 23);
    for (int n_ = 21; n_ >= 1; n_ -= 2) {
        TG_EXPV_ALL(t[k_] = m[k_] * w[k_]);
        TG_EXPV_ALL(w[k_] = 1.0 / n_ + t[k_]);
    }
    TG_EXPV_ALL(t[k_] = ed[k_] * 0x1.62e42ff000000p-1); /* p */
    TG_EXPV_ALL(q[k_] = ed[k_] * -0x1.718432a1b0e26p-35);
    TG_EXPV_ALL(s[k_] = 2.0 * s[k_]);
    TG_EXPV_ALL(s[k_] = s[k_] * w[k_]);
    TG_EXPV_ALL(q[k_] = q[k_] + s[k_]);
    TG_EXPV_ALL(t[k_] = t[k_] + q[k_]);
    TG_EXPV_ALL(r[k_] = tg__d8_to_f8(t[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] == z, -inf, r[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] < z, (tg__f8)((tg__i32x8){0} + (int32_t)TG_NAN_CANON_BITS), r[k_]));
    TG_EXPV_ALL(r[k_] = tg__f8_pick(a[k_] == inf, a[k_], r[k_]));
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(tg__f8_pick(a[k_] != a[k_], a[k_] + a[k_], r[k_])));
}
/* tg_math_tanhv: x clamped to ±20 in fp64 (maxpd/minpd keep a NaN), u = 2x,
 * both of expm1's paths on every lane (the degree-13 Taylor polynomial by
 * 1/n! in its order; e^u − 1 with e^u from tg__exp_ndv8, whose clamp at
 * ±128 does nothing for |u| ≤ 40), the polynomial kept for -0.35 < u <
 * 0.35, then t/(t + 2) rounded once. gcc's own vectorization of the element
 * form looked exp's table up by scalar loads (as for exp). t + 2 ≥ 1 for
 * every u ≥ -40, so only a NaN x gives a NaN: the canonical one, as
 * tg_activation gives. An exhaustive run over all 2^32 fp32 arguments
 * agreed; test_tanh_rows sweeps them and the paths' edges. */
__attribute__((always_inline)) static inline void tg__tanhv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    const tg__d8 z = {0};
    tg__d8 u[TG_EXPV_U], t[TG_EXPV_U], big[TG_EXPV_U];
    TG_EXPV_ALL(u[k_] = tg__f8_to_d8(a[k_]));
    tg__clampv8(u, 20.0);
    TG_EXPV_ALL(u[k_] = 2.0 * u[k_]);
    TG_EXPV_ALL(t[k_] = z + tg_math_inv_fact[13]);
    for (int n = 12; n >= 1; n--) {
        TG_EXPV_ALL(t[k_] = u[k_] * t[k_]);
        TG_EXPV_ALL(t[k_] = tg_math_inv_fact[n] + t[k_]);
    }
    TG_EXPV_ALL(t[k_] = u[k_] * t[k_]);
    TG_EXPV_ALL(big[k_] = u[k_]);
    tg__exp_ndv8(big, tab);
    TG_EXPV_ALL(big[k_] = big[k_] - 1.0);
    TG_EXPV_ALL(t[k_] = tg__d8_pick((tg__u64x8)((u[k_] < 0.35) & (u[k_] > -0.35)), t[k_], big[k_]));
    TG_EXPV_ALL(u[k_] = t[k_] + 2.0);
    TG_EXPV_ALL(t[k_] = t[k_] / u[k_]);
    TG_EXPV_ALL(a[k_] = tg__f8_nan_canon(tg__d8_to_f8(t[k_])));
}
/* ---- checked fast paths ---------------------------------------------------
 * Each function's result is an fp64 value v (its tg_math.h operations)
 * rounded once to fp32. A fast path computes w (tg_act_fast.h, written
 * once for this body's 8 lanes and the AVX2 body's 4, below), another fp64
 * value within a bound E of v (fused multiply-adds, a shorter polynomial), from IEEE
 * operations (add, multiply, fma, divide: the same bits on every CPU and
 * in both bodies), but for rsqrt's starting guess (vrsqrt14pd, vrsqrtps), whose bits below its
 * documented bound are the vendor's: E takes only the bound, so w may
 * differ by vendor, the result not. Where w is farther than E from every
 * fp32 rounding boundary, v lies on w's side of each, so both round to the
 * same fp32. The boundaries are the midpoints between neighbouring fp32
 * values: for |w| ≥ 2^-126 the fp64 patterns whose 29 bits below fp32's
 * mantissa are 2^28; below, |w| + 2^-126, whose low 29 bits are then the
 * fraction of the subnormal step 2^-149 (the overflow to inf is the
 * midpoint above FLT_MAX, one of the former). A lane within 2^TG_FAST_LOG2T
 * units in the last place of w of one (2^-40 of |w| or more, wider than
 * each E here) is flagged, as is a NaN argument, and a step with a flagged
 * lane goes through the exact vector code above instead (about 1 in 2^15
 * lanes of random arguments; exp, erf, gelu and softplus, below, take the
 * element form lane by lane, exp, erf and gelu with a wider band). Each
 * function's E, its analytic bound, is next to its w. Exhaustive runs (`make
 * act-rows-exhaustive`) gave tg_activation's bits for every fp32 argument;
 * with the check removed, 5363 arguments of exp (its band 2^15, below), 6
 * of sin, 1 of log and 1 of softplus differ, none of tanh or rsqrt
 * (test_ops.c test_fast_row_hard runs them through the rows), and with a
 * band of 2^10 ulps rather than 2^13 none of sin (2^6: none of log). */
#define TG_FAST_LOG2T 13
#define TG_FAST_LOG2T_ERF 16 /* erf's and gelu's band (tg_act_fast.h) */
#define TG_FAST_LOG2T_EXP 15 /* exp's band (tg_act_fast.h tg__exp_fastw) */
/* a·b + c rounded once (vfmadd) */
__attribute__((always_inline)) static inline tg__d8 tg__fma8(tg__d8 a, tg__d8 b, tg__d8 c)
{
    return __builtin_ia32_vfmaddpd512_mask(a, b, c, (uint8_t)-1, 4);
}
/* lanes of x that are NaN */
__attribute__((always_inline)) static inline uint8_t tg__nan8(tg__d8 x)
{
    return __builtin_ia32_cmppd512_mask(x, x, 3, (uint8_t)-1, 4); /* _CMP_UNORD_Q */
}
/* tg_erfcx_tab[q][i], i = the low 4 bits of i, by vpermt2pd */
__attribute__((always_inline)) static inline tg__d8 tg__erfcx_tab8(int q, tg__u64x8 i)
{
    tg__d8 lo, hi;
    memcpy(&lo, tg_erfcx_tab[q], sizeof lo);
    memcpy(&hi, tg_erfcx_tab[q] + 8, sizeof hi);
    return __builtin_shuffle(lo, hi, i);
}
/* tg_log_tab[t][i], i = the low 5 bits of i: a permute of each half and a
 * blend by bit 4 */
__attribute__((always_inline)) static inline tg__d8 tg__log_tab8(int t, tg__u64x8 i)
{
    const tg__d8 *const lt = (const tg__d8 *)(const void *)tg_log_tab[t];
    return __builtin_ia32_blendmpd_512_mask(__builtin_shuffle(lt[0], lt[1], i), __builtin_shuffle(lt[2], lt[3], i),
                                            __builtin_ia32_ptestmq512((tg__i64x8)i, (tg__i64x8){0} + 16, (uint8_t)-1));
}
/* tg_act_fast.h's w on 8 lanes: its table lookups by vpermt2pd from the
 * row's table vectors (tab[4], tab[5]: the even entries of
 * tg_math_exp_tab, 2^(j/16)) and from tg_log_tab's (two permutes and a
 * blend by index bit 4), its tests into mask registers */
#define TG_FW_(name) name##8
#define TG_FW_D tg__d8
#define TG_FW_U tg__u64x8
#define TG_FW_I tg__i64x8
#define TG_FW_M uint8_t
#define TG_FW_FMA tg__fma8
#define TG_FW_PICK tg__d8_pick
#define TG_FW_CLAMP tg__clampv8
#define TG_FW_MAX(a, b) __builtin_ia32_maxpd512_mask(a, b, (tg__d8){0}, (uint8_t)-1, 4)
#define TG_FW_ZERO_BITS(v, m) __builtin_ia32_ptestnmq512((tg__i64x8)(v), (tg__i64x8)(m), (uint8_t)-1)
#define TG_FW_UGE(a, b) __builtin_ia32_ucmpq512_mask((tg__i64x8)(a), (tg__i64x8)(b), 5, (uint8_t)-1)
#define TG_FW_NAN tg__nan8
#define TG_FW_SUBN(a)                                                                                  \
    __builtin_ia32_addpd512_mask(a, (tg__d8){0} + 0x1p-126, a,                                         \
                                 __builtin_ia32_cmppd512_mask(a, (tg__d8){0} + 0x1p-126, 1, (uint8_t)-1, 4), 4)
#define TG_FW_EXP_TAB(tab, kb) __builtin_shuffle((tab)[4], (tab)[5], kb)
#define TG_FW_LOG_TAB tg__log_tab8
#define TG_FW_MIN(a, b) __builtin_ia32_minpd512_mask(a, b, (tg__d8){0}, (uint8_t)-1, 4)
#define TG_FW_ERFC_TAB tg__erfcx_tab8
#define TG_FW_RSQRT0(x, f) ((void)(f), __builtin_ia32_rsqrt14pd512_mask(x, (tg__d8){0}, (uint8_t)-1))
#define TG_FW_RSQRT_STEPS 2
#include "tg_act_fast.h"
/* The fast paths, FN(x, w, &f): w from the arguments x (fp64), lanes
 * flagged in f (each flags the NaN arguments its w does not show, and any
 * it leaves to the exact code); then the lanes NEAR a boundary flagged
 * (tg__near_bound8, or tg__near_normal8 where its terms hold). The fp32
 * results in a[] and 0, or a[] untouched and 1 when a lane is
 * flagged (the step then takes the exact code). */
#define TG_FAST_STEP(FN, NEAR)                                                                           \
    do {                                                                                               \
        tg__d8 x_[TG_EXPV_U], w_[TG_EXPV_U];                                                           \
        uint8_t f_ = 0;                                                                                \
        TG_EXPV_ALL(x_[k_] = tg__f8_to_d8(a[k_]));                                                     \
        FN(x_, w_, &f_, tab);                                                                          \
        TG_EXPV_ALL(f_ |= NEAR(w_[k_], TG_FAST_LOG2T));                                                \
        if (f_)                                                                                        \
            return 1;                                                                                  \
        TG_EXPV_ALL(a[k_] = tg__d8_to_f8(w_[k_]));                                                     \
        return 0;                                                                                      \
    } while (0)
#define TG_FAST_FN(id, NEAR)                                                                             \
    __attribute__((always_inline)) static inline int tg__##id##_fast(tg__f8 a[TG_EXPV_U], const tg__d8 tab[6]) \
    {                                                                                                  \
        TG_FAST_STEP(tg__##id##_fastw8, NEAR);                                                          \
    }
__attribute__((always_inline)) static inline int tg__fast_none(tg__f8 a[TG_EXPV_U], const tg__d8 tab[6])
{
    (void)a;
    (void)tab;
    return 1;
}
TG_FAST_FN(log, tg__near_normal8)
TG_FAST_FN(rsqrt, tg__near_normal8)
TG_FAST_FN(tanh, tg__near_normal8)
TG_FAST_FN(sin, tg__near_normal8)
/* A fast path whose flagged lanes (near a boundary, or NaN) take the element
 * form ELEM one by one; 0: a[] holds the results (FN's own flags are not
 * read: a lane it would flag must be NaN or near a boundary too) */
#define TG_FAST_LANES(FN, ELEM, NEAR, LOG2T)                                                           \
    do {                                                                                               \
        tg__d8 x_[TG_EXPV_U], w_[TG_EXPV_U];                                                           \
        uint8_t f_ = 0, m_[TG_EXPV_U];                                                                 \
        TG_EXPV_ALL(x_[k_] = tg__f8_to_d8(a[k_]));                                                     \
        FN(x_, w_, &f_, tab);                                                                          \
        TG_EXPV_ALL(m_[k_] = NEAR(w_[k_], LOG2T) | tg__nan8(x_[k_]));                                  \
        TG_EXPV_ALL({                                                                                  \
            tg__f8 r_ = tg__d8_to_f8(w_[k_]);                                                          \
            for (int l_ = 0; m_[k_] >> l_; l_++)                                                       \
                if ((m_[k_] >> l_) & 1)                                                                \
                    r_[l_] = tg_nan_canon(ELEM(a[k_][l_]));                                            \
            a[k_] = r_;                                                                                \
        });                                                                                            \
        return 0;                                                                                      \
    } while (0)
__attribute__((always_inline)) static inline int tg__exp_fast(tg__f8 a[TG_EXPV_U], const tg__d8 tab[6])
{
    TG_FAST_LANES(tg__exp_fastw8, tg_act_exp, tg__near_bound_pos8, TG_FAST_LOG2T_EXP);
}
__attribute__((always_inline)) static inline int tg__erf_fast(tg__f8 a[TG_EXPV_U], const tg__d8 tab[6])
{
    TG_FAST_LANES(tg__erf_fastw8, tg_act_erf, tg__near_bound8, TG_FAST_LOG2T_ERF);
}
__attribute__((always_inline)) static inline int tg__gelu_fast(tg__f8 a[TG_EXPV_U], const tg__d8 tab[6])
{
    TG_FAST_LANES(tg__gelu_fastw8, tg_act_gelu, tg__near_bound8, TG_FAST_LOG2T_ERF);
}
__attribute__((always_inline)) static inline int tg__softplus_fast(tg__f8 a[TG_EXPV_U], const tg__d8 tab[6])
{
    TG_FAST_LANES(tg__softplus_fastw8, tg_act_softplus, tg__near_bound8, TG_FAST_LOG2T);
}
/* the exact code: the element form lane by lane (tg__softplus_fast never
 * leaves a step to it) */
__attribute__((always_inline)) static inline void tg__softplusv8(tg__f8 a[TG_EXPV_U], const tg__d8 tab[4])
{
    (void)tab;
    for (int k = 0; k < TG_EXPV_U; k++)
        for (int l = 0; l < 8; l++)
            a[k][l] = tg_nan_canon(tg_act_softplus(a[k][l]));
}
/* 1 when a lane of m is nonzero: one vptest (the lanes ORed through
 * general registers took 4 % of a row of sin) */
__attribute__((always_inline)) static inline int tg__i32x8_any(tg__i32x8 m)
{
    typedef long long tg__q4 __attribute__((vector_size(32)));
    return !__builtin_ia32_ptestz256((tg__q4)m, (tg__q4)m);
}
/* a step the element form takes instead: none, or for sin any argument not
 * in [-823549, 823549] (larger, infinite or NaN) */
__attribute__((always_inline)) static inline int tg__defer_none(const tg__f8 a[TG_EXPV_U])
{
    (void)a;
    return 0;
}
__attribute__((always_inline)) static inline int tg__defer_sin(const tg__f8 a[TG_EXPV_U])
{
    tg__i32x8 big = {0};
    TG_EXPV_ALL(big |= ~((a[k_] <= 823549.0f) & (a[k_] >= -823549.0f)));
    return tg__i32x8_any(big);
}
/* a step whose results are all +0 without evaluating: for exp, every
 * argument below TG_EXP_DEAD (a rest's padding copies one of its arguments) */
__attribute__((always_inline)) static inline int tg__dead_none(const tg__f8 a[TG_EXPV_U])
{
    (void)a;
    return 0;
}
__attribute__((always_inline)) static inline int tg__dead_exp(const tg__f8 a[TG_EXPV_U])
{
    tg__i32x8 live = {0};
    TG_EXPV_ALL(live |= ~(a[k_] < TG_EXP_DEAD));
    return !tg__i32x8_any(live);
}
/* A step on TG_EXPV_U whole vectors of 8 elements from s to d; a step the
 * function defers goes element by element. */
#define TG_EXPV_STEP(ID, id, DEAD, DEFER, FAST, d, s)                                                        \
    do {                                                                                                   \
        tg__f8 a[TG_EXPV_U];                                                                               \
        TG_EXPV_ALL(memcpy(&a[k_], (s) + 32 * k_, sizeof a[k_]));                                          \
        TG_EXPV_ALL(a[k_] = a[k_] * scale);                                                                \
        TG_EXPV_ALL(a[k_] = a[k_] + bias);                                                                 \
        if (DEAD(a)) {                                                                                     \
            memset((d), 0, sizeof a);                                                                      \
            break;                                                                                         \
        }                                                                                                  \
        if (DEFER(a)) {                                                                                    \
            tg__act_row_avx512_elem_f(TG_ACT_##ID, (d), (s), 8 * (size_t)TG_EXPV_U, scale, bias);          \
            break;                                                                                         \
        }                                                                                                  \
        if (FAST(a, tab))                                                                                  \
            tg__##id##v8(a, tab);                                                                          \
        TG_EXPV_ALL(memcpy((d) + 32 * k_, &a[k_], sizeof a[k_]));                                          \
    } while (0)
/* A row's rest (1 to 8·TG_EXPV_U - 1 elements) is one whole step on a copy
 * padded with the rest's first element, only the rest written back: each
 * lane's result depends on its own argument only, and a step costs about
 * the same however many of its lanes are used. (A step of fewer vectors
 * took a run-time count: branches and stack copies, bench/probes d04's rows
 * of 20 and b05's of 51 and 153; a padding of 0 sends a whole step of log or
 * rsqrt, whose 0 is no fast-path argument, down the exact path.) */
#define TG_EXPV_ROW(ID, id, DEAD, DEFER, FAST)                                                         \
    static void tg__act_avx512_##id(uint8_t *dst, const uint8_t *src, size_t n, float scale, float bias) \
    {                                                                                                  \
        tg__d8 tab[6]; /* 2^(i/32), then its even entries 2^(i/16) */                                  \
        size_t j = 0;                                                                                  \
        memcpy(tab, tg_math_exp_tab, 4 * sizeof tab[0]);                                               \
        tab[4] = __builtin_shuffle(tab[0], tab[1], (tg__u64x8){0, 2, 4, 6, 8, 10, 12, 14});           \
        tab[5] = __builtin_shuffle(tab[2], tab[3], (tg__u64x8){0, 2, 4, 6, 8, 10, 12, 14});           \
        for (; j + 8 * TG_EXPV_U <= n; j += 8 * TG_EXPV_U)                                             \
            TG_EXPV_STEP(ID, id, DEAD, DEFER, FAST, dst + 4 * j, src + 4 * j);                         \
        if (j < n) {                                                                                   \
            uint8_t in_[32 * TG_EXPV_U], out_[32 * TG_EXPV_U];                                         \
            const size_t r_ = n - j;                                                                   \
            memcpy(in_, src + 4 * j, 4 * r_);                                                          \
            for (size_t l_ = r_; l_ < 8 * TG_EXPV_U; l_++)                                             \
                memcpy(in_ + 4 * l_, in_, 4);                                                          \
            TG_EXPV_STEP(ID, id, DEAD, DEFER, FAST, out_, in_);                                        \
            memcpy(dst + 4 * j, out_, 4 * r_);                                                         \
        }                                                                                              \
    }
TG_EXPV_ROW(EXP, exp, tg__dead_exp, tg__defer_none, tg__exp_fast)
TG_EXPV_ROW(SIGMOID, sigmoid, tg__dead_none, tg__defer_none, tg__fast_none)
TG_EXPV_ROW(SILU, silu, tg__dead_none, tg__defer_none, tg__fast_none)
TG_EXPV_ROW(GELU_APPRX_TANH, gelu_apprx_tanh, tg__dead_none, tg__defer_none, tg__fast_none)
TG_EXPV_ROW(ERF, erf, tg__dead_none, tg__defer_none, tg__erf_fast)
TG_EXPV_ROW(GELU, gelu, tg__dead_none, tg__defer_none, tg__gelu_fast)
TG_EXPV_ROW(SQRT, sqrt, tg__dead_none, tg__defer_none, tg__fast_none)
TG_EXPV_ROW(SIN, sin, tg__dead_none, tg__defer_sin, tg__sin_fast)
TG_EXPV_ROW(TANH, tanh, tg__dead_none, tg__defer_none, tg__tanh_fast)
TG_EXPV_ROW(RSQRT, rsqrt, tg__dead_none, tg__defer_none, tg__rsqrt_fast)
TG_EXPV_ROW(LOG, log, tg__dead_none, tg__defer_none, tg__log_fast)
TG_EXPV_ROW(SOFTPLUS, softplus, tg__dead_none, tg__defer_none, tg__softplus_fast)
#undef TG_EXPV_ROW
#undef TG_EXPV_STEP
static void tg__act_row_avx512_f(tg_act_func f, uint8_t *dst, const uint8_t *src, size_t n, float scale, float bias)
{
    switch (f) {
#define TG_ACT_VEC_CASE(ID, id)                                                                        \
    case TG_ACT_##ID: tg__act_avx512_##id(dst, src, n, scale, bias); break;
        TG_ACT_VEC_ROWS(TG_ACT_VEC_CASE)
#undef TG_ACT_VEC_CASE
    default: tg__act_row_avx512_elem_f(f, dst, src, n, scale, bias); break;
    }
}
#undef TG_FW_
#undef TG_FW_D
#undef TG_FW_U
#undef TG_FW_I
#undef TG_FW_M
#undef TG_FW_FMA
#undef TG_FW_PICK
#undef TG_FW_CLAMP
#undef TG_FW_MAX
#undef TG_FW_MIN
#undef TG_FW_ERFC_TAB
#undef TG_FW_ZERO_BITS
#undef TG_FW_UGE
#undef TG_FW_NAN
#undef TG_FW_SUBN
#undef TG_FW_EXP_TAB
#undef TG_FW_LOG_TAB
#undef TG_FW_RSQRT0
#undef TG_FW_RSQRT_STEPS
#pragma GCC pop_options
#endif
/* gcc only, as the AVX-512F body: the checked fast paths (tg_act_fast.h)
 * on AVX2 with FMA, 4 fp64 lanes, for CPUs without AVX-512 (the AVX2 body
 * above has no vector rows but sqrt's: its exp, log, tanh, rsqrt, sin and
 * softplus took the element form, 1.1 to 5.5 ns an element). A step is
 * TG_EXPV_U vectors of 4; a step with a lane flagged (near a boundary, NaN,
 * outside the function's fast path; for sin any argument outside
 * [-823549, 823549]) and a row's last elements short of a step take the
 * element form (tg__act_row_avx2_f). Tables by vgatherqpd. CPUs with AVX2
 * and without FMA (none known) keep the AVX2 body's rows. */
#if defined(TG_ACT_AVX512_BODY) && !defined(__AVX512F__)
#define TG_ACT_AVX2_FAST 1
/* the element form the steps fall back to: the AVX2 body's, or the
 * baseline's where the flags make that AVX (or more) already */
#ifdef TG_SIMD_AVX2_BODY
#define TG_A2_ELEM_F tg__act_row_avx2_f
#else
#define TG_A2_ELEM_F tg__act_row_base_f
#endif
static int tg__cpu_fma(void)
{
    static int cached;
    return tg_simd_cpu_fma(&cached);
}
#pragma GCC push_options
#pragma GCC target("avx2,fma")
typedef double tg__d4 __attribute__((vector_size(32)));
typedef uint64_t tg__u64x4 __attribute__((vector_size(32)));
typedef long long tg__i64x4 __attribute__((vector_size(32)));
typedef float tg__f32x4 __attribute__((vector_size(16), aligned(4), may_alias));
typedef int32_t tg__s32x4 __attribute__((vector_size(16)));
/* TG_EXPV_U vectors a step, as the AVX-512F body (4 ran no faster) */
__attribute__((always_inline)) static inline tg__d4 tg__fma4(tg__d4 a, tg__d4 b, tg__d4 c)
{
    return __builtin_ia32_vfmaddpd256(a, b, c);
}
__attribute__((always_inline)) static inline tg__d4 tg__d4_pick(tg__u64x4 m, tg__d4 y, tg__d4 x)
{
    return (tg__d4)(((tg__u64x4)x & ~m) | ((tg__u64x4)y & m));
}
__attribute__((always_inline)) static inline tg__f32x4 tg__f4_pick(tg__s32x4 m, tg__f32x4 y, tg__f32x4 x)
{
    return (tg__f32x4)(((tg__s32x4)x & ~m) | ((tg__s32x4)y & m));
}
/* the lanes of a -1/0 mask as bits */
__attribute__((always_inline)) static inline unsigned tg__bits4(tg__i64x4 m)
{
    return (unsigned)__builtin_ia32_movmskpd256((tg__d4)m);
}
__attribute__((always_inline)) static inline unsigned tg__nan4(tg__d4 x)
{
    return tg__bits4(x != x);
}
/* x clamped to [-lim, lim] in place; maxpd and minpd give their second
 * operand when one is NaN, so a NaN stays */
__attribute__((always_inline)) static inline void tg__clampv4(tg__d4 x[TG_EXPV_U], double lim)
{
    const tg__d4 hi = (tg__d4){0} + lim, lo = -hi;
    TG_EXPV_ALL(x[k_] = __builtin_ia32_maxpd256(lo, x[k_]));
    TG_EXPV_ALL(x[k_] = __builtin_ia32_minpd256(hi, x[k_]));
}
/* tab[i] for i = the lanes of idx, by vgatherqpd */
__attribute__((always_inline)) static inline tg__d4 tg__gather4(const double *tab, tg__u64x4 idx)
{
    return __builtin_ia32_gatherdiv4df((tg__d4){0}, tab, (tg__i64x4)idx, (tg__d4)((tg__i64x4){0} - 1), 8);
}
/* 1/√x within 1.5·2^-12 by vrsqrtps on x rounded to fp32 (exact: x is an
 * fp32 argument), for positive normal x: vrsqrtps takes a subnormal as 0,
 * so lanes below 2^-126 are flagged (the others not positive and finite
 * are flagged by the caller); three Newton steps then reach 2^-50 from any
 * start within 2^-7 */
__attribute__((always_inline)) static inline tg__d4 tg__rsqrt0_4(tg__d4 x, unsigned *f)
{
    *f |= tg__bits4(x < 0x1p-126);
    return __builtin_ia32_cvtps2pd256(__builtin_ia32_rsqrtps(__builtin_ia32_cvtpd2ps256(x)));
}
#define TG_FW_(name) name##4
#define TG_FW_D tg__d4
#define TG_FW_U tg__u64x4
#define TG_FW_I tg__i64x4
#define TG_FW_M unsigned
#define TG_FW_FMA tg__fma4
#define TG_FW_PICK tg__d4_pick
#define TG_FW_CLAMP tg__clampv4
#define TG_FW_MAX __builtin_ia32_maxpd256
#define TG_FW_MIN __builtin_ia32_minpd256
#define TG_FW_ERFC_TAB(q, i) tg__gather4(tg_erfcx_tab[q], (i) & 15)
#define TG_FW_ZERO_BITS(v, m) tg__bits4(((v) & (m)) == 0)
#define TG_FW_UGE(a, b) tg__bits4((a) >= (b))
#define TG_FW_NAN tg__nan4
#define TG_FW_SUBN(a) ((a) + (tg__d4)((tg__u64x4)((a) < 0x1p-126) & 0x3810000000000000ull)) /* + 2^-126 or +0 */
#define TG_FW_EXP_TAB(tab, kb) ((void)(tab), tg__gather4(tg_math_exp_tab, ((kb) & 15) << 1))
#define TG_FW_LOG_TAB(t, i) tg__gather4(tg_log_tab[t], (i) & 31)
#define TG_FW_RSQRT0 tg__rsqrt0_4
#define TG_FW_RSQRT_STEPS 3
#include "tg_act_fast.h"
/* a step the element form takes instead: for sin any argument not in
 * [-823549, 823549] (larger, infinite or NaN) */
__attribute__((always_inline)) static inline unsigned tg__defer4_none(const tg__f32x4 a[TG_EXPV_U])
{
    (void)a;
    return 0;
}
__attribute__((always_inline)) static inline unsigned tg__defer4_sin(const tg__f32x4 a[TG_EXPV_U])
{
    unsigned big = 0;
    TG_EXPV_ALL(big |= (unsigned)__builtin_ia32_movmskps(
                    (tg__f32x4) ~((a[k_] <= 823549.0f) & (a[k_] >= -823549.0f))));
    return big;
}
/* A step of v ≤ 4·TG_EXPV_U elements from s to d: lanes past v hold 1
 * (after the scale and bias; their flags are harmless: s and d have 4·
 * TG_EXPV_U elements, below), a lane near a boundary or NaN takes the
 * element form alone, a step that DEFER or the fast path's own flags (a
 * NaN, non-positive or other argument outside the fast path) give away
 * takes it whole. Every lane reads s before d is written (d may be s). */
#define TG_A2_ROW(id, NEAR, LOG2T, DEFER)                                                              \
    __attribute__((always_inline)) static inline void tg__a2_step_##id(tg_act_func f, uint8_t *d, const uint8_t *s, \
                                                                       float scale, float bias, int v) \
    {                                                                                                  \
        tg__f32x4 a[TG_EXPV_U];                                                                           \
        tg__d4 x[TG_EXPV_U], w[TG_EXPV_U];                                                             \
        unsigned own = 0, m[TG_EXPV_U];                                                                \
        TG_EXPV_ALL(memcpy(&a[k_], s + 16 * k_, sizeof a[k_]));                                        \
        TG_EXPV_ALL(a[k_] = a[k_] * scale);                                                            \
        TG_EXPV_ALL(a[k_] = a[k_] + bias);                                                             \
        if (v < 4 * TG_EXPV_U)                                                                         \
            TG_EXPV_ALL(a[k_] = tg__f4_pick((tg__s32x4){0, 1, 2, 3} < v - 4 * k_, a[k_], (tg__f32x4){0} + 1.0f)); \
        if (DEFER(a)) {                                                                                \
            TG_A2_ELEM_F(f, d, s, (size_t)v, scale, bias);                                             \
            return;                                                                                    \
        }                                                                                              \
        TG_EXPV_ALL(x[k_] = __builtin_ia32_cvtps2pd256(a[k_]));                                        \
        tg__##id##_fastw4(x, w, &own, (const tg__d4 *)0);                                              \
        if (own) {                                                                                     \
            TG_A2_ELEM_F(f, d, s, (size_t)v, scale, bias);                                             \
            return;                                                                                    \
        }                                                                                              \
        TG_EXPV_ALL(m[k_] = NEAR(w[k_], LOG2T) | tg__nan4(x[k_]));                                     \
        TG_EXPV_ALL(a[k_] = __builtin_ia32_cvtpd2ps256(w[k_]));                                        \
        TG_EXPV_ALL(for (int l_ = 0; m[k_] >> l_; l_++) if ((m[k_] >> l_) & 1)                         \
                        TG_A2_ELEM_F(f, (uint8_t *)&a[k_] + 4 * l_, s + 16 * k_ + 4 * l_, 1, scale, bias));  \
        TG_EXPV_ALL(memcpy(d + 16 * k_, &a[k_], sizeof a[k_]));                                        \
    }                                                                                                  \
    static void tg__act_avx2_##id(tg_act_func f, uint8_t *dst, const uint8_t *src, size_t n, float scale, \
                                  float bias)                                                          \
    {                                                                                                  \
        size_t j = 0;                                                                                  \
        for (; j + 4 * TG_EXPV_U <= n; j += 4 * TG_EXPV_U)                                             \
            tg__a2_step_##id(f, dst + 4 * j, src + 4 * j, scale, bias, 4 * TG_EXPV_U);                 \
        if (j < n) {                                                                                   \
            float in[4 * TG_EXPV_U] = {0}, out[4 * TG_EXPV_U];                                         \
            memcpy(in, src + 4 * j, 4 * (n - j));                                                      \
            tg__a2_step_##id(f, (uint8_t *)out, (const uint8_t *)in, scale, bias, (int)(n - j));       \
            memcpy(dst + 4 * j, out, 4 * (n - j));                                                     \
        }                                                                                              \
    }
TG_A2_ROW(exp, tg__near_bound_pos4, TG_FAST_LOG2T_EXP, tg__defer4_none)
TG_A2_ROW(log, tg__near_normal4, TG_FAST_LOG2T, tg__defer4_none)
TG_A2_ROW(rsqrt, tg__near_normal4, TG_FAST_LOG2T, tg__defer4_none)
TG_A2_ROW(tanh, tg__near_normal4, TG_FAST_LOG2T, tg__defer4_none)
TG_A2_ROW(sin, tg__near_normal4, TG_FAST_LOG2T, tg__defer4_sin)
TG_A2_ROW(softplus, tg__near_bound4, TG_FAST_LOG2T, tg__defer4_none)
TG_A2_ROW(erf, tg__near_bound4, TG_FAST_LOG2T_ERF, tg__defer4_none)
TG_A2_ROW(gelu, tg__near_bound4, TG_FAST_LOG2T_ERF, tg__defer4_none)
#undef TG_A2_ROW
/* f's row here: 1, or 0 where this body has none */
static int tg__act_row_avx2_fast(tg_act_func f, uint8_t *dst, const uint8_t *src, size_t n, float scale, float bias)
{
    void (*row)(tg_act_func, uint8_t *, const uint8_t *, size_t, float, float);
    switch (f) {
    case TG_ACT_EXP: row = tg__act_avx2_exp; break;
    case TG_ACT_LOG: row = tg__act_avx2_log; break;
    case TG_ACT_RSQRT: row = tg__act_avx2_rsqrt; break;
    case TG_ACT_TANH: row = tg__act_avx2_tanh; break;
    case TG_ACT_SIN: row = tg__act_avx2_sin; break;
    case TG_ACT_SOFTPLUS: row = tg__act_avx2_softplus; break;
    case TG_ACT_ERF: row = tg__act_avx2_erf; break;
    case TG_ACT_GELU: row = tg__act_avx2_gelu; break;
    default: return 0;
    }
    row(f, dst, src, n, scale, bias);
    return 1;
}
#undef TG_A2_ELEM_F
#pragma GCC pop_options
#endif
#undef TG_EXPV_ALL
#undef TG_EXPV_U
#undef TG_ACT_ROW_EXP_F
#undef TG_ACT_ROW_FN_F
#undef TG_ACT_ROW_FN
#undef TG_ACT_ROW_SQRT
#undef TG_ACT_ROW_SQRT_CASE
#undef TG_ACT_ROW_ERF1
#undef TG_ACT_ROW_ERF
#undef TG_ACT_ROW_ERF_CASE
#undef TG_ACT_ROW_CASE

/* ---- arithmetic rows ------------------------------------------------------------
 * tg_tensor_tensor_f32_row, tg_tensor_scalar_f32_row: the Vector engine's
 * elementwise ops on contiguous fp32 rows (TG_ALU_F32_ROW_OPS), one loop per op so that each
 * vectorizes, built once per SIMD body like the activation rows. Each element
 * takes the inline tg_alu.h op (IEEE, NaN made canonical) in its own lane,
 * nothing fused, so every body gives the element-by-element bits
 * (tests/unit/test_ops.c test_f32_rows). Built without -march, the generated
 * C's own loops are SSE2: y = 2x + 1 over 4096 x 512 fp32 ran 0.48-0.51 ms as
 * SSE2, 0.32-0.36 ms through these rows (numpy 0.45 ms). */
#define TG_TT_CASE(ID, id)                                       \
    case TG_ALU_##ID:                                            \
        for (size_t j = 0; j < n; j++) {                         \
            float x_, y_;                                        \
            memcpy(&x_, a + 4 * j, 4);                           \
            memcpy(&y_, b + 4 * j, 4);                           \
            x_ = tg_alu_##id(x_, y_);                            \
            memcpy(d + 4 * j, &x_, 4);                           \
        }                                                        \
        break;
#define TG_TS_CASE(ID, id)                                       \
    case TG_ALU_##ID:                                            \
        if (rev)                                                 \
            for (size_t j = 0; j < n; j++) {                     \
                float x_;                                        \
                memcpy(&x_, s + 4 * j, 4);                       \
                x_ = tg_alu_##id(c, x_);                         \
                memcpy(d + 4 * j, &x_, 4);                       \
            }                                                    \
        else                                                     \
            for (size_t j = 0; j < n; j++) {                     \
                float x_;                                        \
                memcpy(&x_, s + 4 * j, 4);                       \
                x_ = tg_alu_##id(x_, c);                         \
                memcpy(d + 4 * j, &x_, 4);                       \
            }                                                    \
        break;
/* Two tensor_scalar stages in one loop for the arithmetic ops, neither
 * reversed: each element takes the first stage's op, then the second's, as
 * the two-pass form does (the element's value in between is the fp32 the
 * buffer held), without its store and reload of every element. Returns 0
 * for any other pair. (x - mean) · rstd over layernorm's rows: 0.167 ->
 * 0.150 ms for the kernel. Two lists of the same ops: a list's macro does not
 * expand inside its own expansion. */
#define TG_TS2_OPS0(X, Y) X(ADD, add, Y) X(SUBTRACT, subtract, Y) X(MULTIPLY, multiply, Y) X(DIVIDE, divide, Y) \
    X(MAXIMUM, maximum, Y) X(MINIMUM, minimum, Y)
#define TG_TS2_OPS1(X, a, Y) X(a, ADD, add, Y) X(a, SUBTRACT, subtract, Y) X(a, MULTIPLY, multiply, Y)        \
    X(a, DIVIDE, divide, Y) X(a, MAXIMUM, maximum, Y) X(a, MINIMUM, minimum, Y)
/* op0 = a, op1 = B: x = s[j] op0 c0, then x op1 Y, Y the second operand
 * (tensor_scalar: c1; scalar_tensor_tensor: b[j], TG_STT2_B) */
#define TG_TS2_CASE1(a, B, b, Y)                                 \
    case TG_ALU_##B:                                             \
        for (size_t j = 0; j < n; j++) {                         \
            float x_;                                            \
            memcpy(&x_, s + 4 * j, 4);                           \
            x_ = tg_alu_##a(x_, c0);                             \
            x_ = tg_alu_##b(x_, Y);                              \
            memcpy(d + 4 * j, &x_, 4);                           \
        }                                                        \
        return 1;
/* op0 = A: the pairs' loops by op1 */
#define TG_TS2_CASE0(A, a, Y)                                    \
    case TG_ALU_##A:                                             \
        switch (op1) {                                           \
            TG_TS2_OPS1(TG_TS2_CASE1, a, Y)                      \
        default:                                                 \
            return 0;                                            \
        }
/* The same for scalar_tensor_tensor's (x op0 c) op1 b, op0 not reversed:
 * bench/probes r07 and the bundled kernels that have one (flash attention,
 * moe_tkg, rmsnorm_quant). */
#define TG_STT2_B tg_rd_f32(bb, (int64_t)j)
#define TG_ROW_FNS(SFX)                                                                                     \
    static int tg__ts2_row_##SFX(tg_alu_op op0, tg_alu_op op1, uint8_t *d, const uint8_t *s, size_t n, float c0, \
                                 float c1)                                                                  \
    {                                                                                                       \
        switch (op0) {                                                                                      \
            TG_TS2_OPS0(TG_TS2_CASE0, c1)                                                     \
        default:                                                                                            \
            return 0;                                                                                       \
        }                                                                                                   \
    }                                                                                                       \
    static int tg__stt2_row_##SFX(tg_alu_op op0, tg_alu_op op1, uint8_t *d, const uint8_t *s,                \
                                  const uint8_t *bb, size_t n, float c0)                                    \
    {                                                                                                       \
        switch (op0) {                                                                                      \
            TG_TS2_OPS0(TG_TS2_CASE0, TG_STT2_B)                                                    \
        default:                                                                                            \
            return 0;                                                                                       \
        }                                                                                                   \
    }                                                                                                       \
    static void tg__tt_row_##SFX(tg_alu_op op, uint8_t *d, const uint8_t *a, const uint8_t *b, size_t n)     \
    {                                                                                                       \
        switch (op) {                                                                                       \
            TG_ALU_F32_ROW_OPS(TG_TT_CASE)                                                                  \
        default:                                                                                            \
            break;                                                                                          \
        }                                                                                                   \
    }                                                                                                       \
    static void tg__ts_row_##SFX(tg_alu_op op, uint8_t *d, const uint8_t *s, size_t n, float c, int rev)     \
    {                                                                                                       \
        switch (op) {                                                                                       \
            TG_ALU_F32_ROW_OPS(TG_TS_CASE)                                                                  \
        default:                                                                                            \
            break;                                                                                          \
        }                                                                                                   \
    }
TG_ROW_FNS(base)
#ifdef TG_SIMD_AVX2_BODY
TG_SIMD_AVX2_BEGIN
TG_ROW_FNS(avx2)
TG_SIMD_AVX2_END
#endif
#ifdef TG_SIMD_AVX512_BODY
TG_SIMD_AVX512_BEGIN
TG_ROW_FNS(avx512)
TG_SIMD_AVX512_END
#endif

typedef void (*tg__tt_fn)(tg_alu_op, uint8_t *, const uint8_t *, const uint8_t *, size_t);
typedef void (*tg__ts_fn)(tg_alu_op, uint8_t *, const uint8_t *, size_t, float, int);
typedef int (*tg__ts2_fn)(tg_alu_op, tg_alu_op, uint8_t *, const uint8_t *, size_t, float, float);
typedef int (*tg__stt2_fn)(tg_alu_op, tg_alu_op, uint8_t *, const uint8_t *, const uint8_t *, size_t, float);

static tg__tt_fn tg__tt_row(void) { return TG_ROW_PICK(tg__tt_row); }
static tg__ts_fn tg__ts_row(void) { return TG_ROW_PICK(tg__ts_row); }
static tg__ts2_fn tg__ts2_row(void) { return TG_ROW_PICK(tg__ts2_row); }
static tg__stt2_fn tg__stt2_row(void) { return TG_ROW_PICK(tg__stt2_row); }

void tg_tensor_tensor_f32_row(tg_alu_op op, void *d, const void *a, const void *b, size_t n)
{
    tg__tt_row()(op, (uint8_t *)d, (const uint8_t *)a, (const uint8_t *)b, n);
}

void tg_tensor_scalar_f32_row(void *d, const void *s, size_t n, int nst, const tg_alu_op op[2], const float c[2],
                              const int rev[2])
{
    uint8_t *dd = (uint8_t *)d;
    const uint8_t *ss = (const uint8_t *)s;
    const tg__ts_fn ts = tg__ts_row();
    if (nst < 2) {
        ts(op[0], dd, ss, n, c[0], rev[0]);
        return;
    }
    if (!rev[0] && !rev[1] && tg__ts2_row()(op[0], op[1], dd, ss, n, c[0], c[1]))
        return;
    /* two stages a block at a time through a buffer that stays in L1, so d
     * is written once (as two passes over d: 0.40 ms where one took 0.30) */
    enum { B = 256 };
    float buf[B];
    for (size_t o = 0; o < n; o += B) {
        size_t m = n - o < B ? n - o : B;
        ts(op[0], (uint8_t *)buf, ss + 4 * o, m, c[0], rev[0]);
        ts(op[1], dd + 4 * o, (const uint8_t *)buf, m, c[1], rev[1]);
    }
}

void tg_scalar_tensor_tensor_f32_row(void *d, const void *s, const void *b, size_t n, tg_alu_op op0, float c,
                                     int rev0, tg_alu_op op1)
{
    uint8_t *dd = (uint8_t *)d;
    const uint8_t *ss = (const uint8_t *)s, *bb = (const uint8_t *)b;
    if (!rev0 && tg__stt2_row()(op0, op1, dd, ss, bb, n, c))
        return;
    const tg__ts_fn ts = tg__ts_row();
    const tg__tt_fn tt = tg__tt_row();
    /* the tensor_scalar stage a block at a time into a buffer that stays in
     * L1, then the tensor_tensor stage from it (as two-stage tensor_scalar):
     * each block of s is read before that block of d is written, so d may be
     * s (or b, which the second stage reads at the element it writes) */
    enum { B = 256 };
    float buf[B];
    for (size_t o = 0; o < n; o += B) {
        size_t m = n - o < B ? n - o : B;
        ts(op0, (uint8_t *)buf, ss + 4 * o, m, c, rev0);
        tt(op1, dd + 4 * o, (const uint8_t *)buf, bb + 4 * o, m);
    }
}
#undef TG_ROW_FNS
#undef TG_STT2_B
#undef TG_TS2_CASE0
#undef TG_TS2_CASE1
#undef TG_TS2_OPS1
#undef TG_TS2_OPS0
#undef TG_TS_CASE
#undef TG_TT_CASE
#undef TG_ROW_PICK
#undef TG_ROW_PICK2
#undef TG_ROW_PICK512

#ifdef TG_SIMD_DETECT
/* The activation rows' level: the matmul's (tg_matmul_isa's cap), or where
 * the flags leave the matmul one body, the CPU's */
static int tg__act_level(void)
{
#ifdef TG_MM_DISPATCH
    return tg__simd_level();
#else
    static int cached;
    return tg_simd_level_capped(&cached, tg__simd_cap);
#endif
}
#endif

void tg_activation_f32_row(tg_act_func f, void *dst, const void *src, size_t n, float scale, float bias)
{
#ifdef TG_SIMD_DETECT
    const int level = tg__act_level();
    (void)level;
#endif
#ifdef TG_ACT_AVX512_BODY
    if (level >= 3) {
        /* exp's dead blocks are the vector row's own steps (tg__dead_exp), so
         * a row is one call, not one a TG_EXP_BLOCK */
        tg__act_row_avx512_f(f, (uint8_t *)dst, (const uint8_t *)src, n, scale, bias);
        return;
    }
#endif
#ifdef TG_ACT_AVX2_FAST
    if (level >= 2 && tg__cpu_fma() && tg__act_row_avx2_fast(f, (uint8_t *)dst, (const uint8_t *)src, n, scale, bias))
        return;
#endif
#ifdef TG_SIMD_AVX2_BODY
    if (level >= 2) {
        tg__act_row_avx2(f, (uint8_t *)dst, (const uint8_t *)src, n, scale, bias);
        return;
    }
#endif
    tg__act_row_base(f, (uint8_t *)dst, (const uint8_t *)src, n, scale, bias);
}

/* ---- lanes folds and ordered-key reductions ----------------------------------------- */

#if defined(__GNUC__)
typedef float tg__f4 __attribute__((vector_size(16), aligned(4), may_alias));
typedef int32_t tg__i32x4 __attribute__((vector_size(16)));
#define TG_LF_STEP(OP)                                                                     \
    for (int64_t j = 0; j < n; j++) {                                                      \
        const float *tj = t + j * TG_LANES;                                                \
        r0 = r0 OP *(const tg__f4 *)(const void *)tj;                                      \
        r1 = r1 OP *(const tg__f4 *)(const void *)(tj + 4);                                \
        r2 = r2 OP *(const tg__f4 *)(const void *)(tj + 8);                                \
        r3 = r3 OP *(const tg__f4 *)(const void *)(tj + 12);                               \
    }
void tg_lanes_fold_f32(float r[TG_LANES], const float *t, int64_t n, tg_alu_op op)
{
    /* four 4-lane registers: the 16 chains overlap (SSE2 on every x86-64;
     * wider vectors would not help, each lane's chain waits on its last op) */
    tg__f4 r0 = *(tg__f4 *)(void *)r, r1 = *(tg__f4 *)(void *)(r + 4), r2 = *(tg__f4 *)(void *)(r + 8),
           r3 = *(tg__f4 *)(void *)(r + 12);
    switch (op) {
    case TG_ALU_ADD: TG_LF_STEP(+) break;
    case TG_ALU_SUBTRACT: TG_LF_STEP(-) break;
    case TG_ALU_MULTIPLY: TG_LF_STEP(*) break;
    default: return;
    }
    *(tg__f4 *)(void *)r = r0;
    *(tg__f4 *)(void *)(r + 4) = r1;
    *(tg__f4 *)(void *)(r + 8) = r2;
    *(tg__f4 *)(void *)(r + 12) = r3;
}
#undef TG_LF_STEP

/* tg_lanes_act_fold_f32's fused step: each register of 4 lanes, u = its
 * elements, u = PRE (x·scale + bias: two roundings, or less where that is
 * exact), the function ACT of u, folded by OP; no NaN made canonical on the
 * way (a NaN stays a NaN through add, subtract and multiply, and the template
 * writes the fold's result canonical: tg_nan_canon). */
#define TG_LAF_Q(q, PRE, ACT, OP)                                                          \
    {                                                                                      \
        tg__f4 u = *(const tg__f4 *)(const void *)(tj + 4 * (q));                          \
        u = PRE;                                                                           \
        r##q = r##q OP(ACT);                                                               \
    }
#define TG_LAF_STEP(PRE, ACT, OP)                                                          \
    for (int64_t j = 0; j < n; j++) {                                                      \
        const float *tj = t + j * TG_LANES;                                                \
        TG_LAF_Q(0, PRE, ACT, OP) TG_LAF_Q(1, PRE, ACT, OP) TG_LAF_Q(2, PRE, ACT, OP)     \
        TG_LAF_Q(3, PRE, ACT, OP)                                                          \
    }
/* The fold's op (add, subtract, multiply) for STEP(PRE, ACT, OP); and a
 * function with x·1 + ±0 (the common case, rmsnorm's) and any other scale S
 * and bias B: x·1 is x (a NaN stays a NaN), and x + ±0 is x but for -0 + +0 =
 * +0, which square and abs do not tell from -0 (copy keeps its add). Here
 * and in tg_lanes_stage_act_fold_<sfx>'s fused body. */
#define TG_LANE_OPS(STEP, PRE, ACT)                                                        \
    switch (op) {                                                                          \
    case TG_ALU_ADD: STEP(PRE, ACT, +) break;                                              \
    case TG_ALU_SUBTRACT: STEP(PRE, ACT, -) break;                                         \
    default: STEP(PRE, ACT, *) break;                                                      \
    }
#define TG_LANE_FUNC(STEP, S, B, ACT)                                                      \
    if (plain) {                                                                           \
        TG_LANE_OPS(STEP, u, ACT)                                                          \
    } else {                                                                               \
        TG_LANE_OPS(STEP, u * S + B, ACT)                                                  \
    }
/* square, abs (mag: the magnitude bits, IV an integer vector of FV's lanes)
 * and copy */
#define TG_LANE_ACTS(STEP, S, B, FV, IV)                                                   \
    switch (f) {                                                                           \
    case TG_ACT_SQUARE: TG_LANE_FUNC(STEP, S, B, u * u) break;                             \
    case TG_ACT_ABS: TG_LANE_FUNC(STEP, S, B, (FV)((IV)u & mag)) break;                    \
    default:                                                                               \
        if (scale == 1.0f) {                                                               \
            TG_LANE_OPS(STEP, u + B, u)                                                    \
        } else {                                                                           \
            TG_LANE_OPS(STEP, u * S + B, u)                                                \
        }                                                                                  \
        break;                                                                             \
    }
void tg_lanes_act_fold_f32(float r[TG_LANES], float *t, int64_t n, tg_act_func f, float scale, float bias,
                           tg_alu_op op)
{
    if (!tg_lanes_fold_legal(op))
        return;
    if (f != TG_ACT_COPY && f != TG_ACT_SQUARE && f != TG_ACT_ABS) {
        tg_activation_f32_row(f, t, t, (size_t)(n * TG_LANES), scale, bias);
        tg_lanes_fold_f32(r, t, n, op);
        return;
    }
    const int plain = scale == 1.0f && bias == 0.0f;
    const tg__f4 s4 = {scale, scale, scale, scale}, b4 = {bias, bias, bias, bias};
    const tg__i32x4 mag = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
    tg__f4 r0 = *(tg__f4 *)(void *)r, r1 = *(tg__f4 *)(void *)(r + 4), r2 = *(tg__f4 *)(void *)(r + 8),
           r3 = *(tg__f4 *)(void *)(r + 12);
    TG_LANE_ACTS(TG_LAF_STEP, s4, b4, tg__f4, tg__i32x4)
    *(tg__f4 *)(void *)r = r0;
    *(tg__f4 *)(void *)(r + 4) = r1;
    *(tg__f4 *)(void *)(r + 8) = r2;
    *(tg__f4 *)(void *)(r + 12) = r3;
}
#undef TG_LAF_STEP
#undef TG_LAF_Q

/* tg_lanes_stage_act_fold_<sfx>'s fused form (an 8-float register a row: a
 * build with AVX2 in its flags, or x86-64 without them's AVX2 body picked by
 * the runtime's level): 8 columns of 8 lanes at a time read (bf16 and fp16
 * widened by the staging's own vector widening) and turned into columns by
 * the staging's 8x8 transpose (TG_TR8_BODY_LS), each column then
 * x·scale + bias, the function and the fold in the lanes' registers, the two
 * halves of the lanes one chain each: the shuffles of the next columns
 * overlap the chains' adds, where the staged block's were done before the
 * fold began (rmsnorm's sum of squares, 0.032 -> 0.026 ms with the rows
 * 2 KiB apart). Columns past the last 8 go to the staged blocks. */
#if defined(TG_TR_AVX2) || (defined(TG_TR_B) && TG_TR_B == 8 && defined(__AVX2__))
/* own names: the AVX-512 rows' tg__f8 exists with gcc only, and C99 has no
 * repeated typedef */
typedef float tg__saf_f8 __attribute__((vector_size(32), aligned(4), may_alias));
typedef int32_t tg__saf_i8 __attribute__((vector_size(32)));
#define TG_SAF_C(i) c[i]
#define TG_SAF_KEEP(d, o) (d) = (o)
#define TG_SAF_Q(q, acc, PRE, ACT, OP)                                                     \
    {                                                                                      \
        tg__saf_f8 u = (tg__saf_f8)c[q];                                                   \
        u = PRE;                                                                           \
        acc = acc OP(ACT);                                                                 \
    }
/* lanes 8h .. 8h + 7, each row's 8 elements read by LD(r, ROW(i)) */
#define TG_SAF_HALF(h, acc, LD, ROW, PRE, ACT, OP)                                         \
    {                                                                                      \
        const int l = 8 * (h);                                                             \
        tg__v8 c[8];                                                                       \
        TG_TR8_BODY_LS(tg__v8, LD, TG_SAF_KEEP, ROW, TG_SAF_C);                            \
        TG_SAF_Q(0, acc, PRE, ACT, OP) TG_SAF_Q(1, acc, PRE, ACT, OP)                      \
        TG_SAF_Q(2, acc, PRE, ACT, OP) TG_SAF_Q(3, acc, PRE, ACT, OP)                      \
        TG_SAF_Q(4, acc, PRE, ACT, OP) TG_SAF_Q(5, acc, PRE, ACT, OP)                      \
        TG_SAF_Q(6, acc, PRE, ACT, OP) TG_SAF_Q(7, acc, PRE, ACT, OP)                      \
    }
#define TG_SAF_STEP(LD, ROW, PRE, ACT, OP)                                                 \
    for (j = 0; j + 8 <= n; j += 8) {                                                      \
        TG_SAF_HALF(0, a, LD, ROW, PRE, ACT, OP)                                           \
        TG_SAF_HALF(1, b, LD, ROW, PRE, ACT, OP)                                           \
    }
/* each source dtype's step (TG_LANE_ACTS' STEP(PRE, ACT, OP)); fp16 by
 * vcvtph2ps where the body has F16C (the staging's choice) */
#define TG_SAF_STEP_F32(PRE, ACT, OP) TG_SAF_STEP(TG_TR8_LOAD, TG_LS_ROW4, PRE, ACT, OP)
#define TG_SAF_STEP_BF16(PRE, ACT, OP) TG_SAF_STEP(TG_LSB_WIDEN, TG_LS_ROW2, PRE, ACT, OP)
#define TG_SAF_STEP_F16C(PRE, ACT, OP) TG_SAF_STEP(TG_LSH_WIDEN_F16C, TG_LS_ROW2, PRE, ACT, OP)
#define TG_SAF_STEP_F16(PRE, ACT, OP) TG_SAF_STEP(TG_LSH_WIDEN, TG_LS_ROW2, PRE, ACT, OP)
/* NAME(r, rows, off, n, f, scale, bias, op) folds the columns of the n
 * elements from off that are whole groups of 8 and returns their count; the
 * rest is the caller's. CLEAN leaves the body's registers as it returns. */
#define TG_SAF_FN(NAME, CLEAN, STEP)                                                       \
    static int64_t NAME(float r[TG_LANES], const uint8_t *const rows[TG_LANES], int64_t off, \
                        int64_t n, tg_act_func f, float scale, float bias, tg_alu_op op)   \
    {                                                                                      \
        const int plain = scale == 1.0f && bias == 0.0f; /* as tg_lanes_act_fold_f32 */    \
        const tg__saf_f8 s8 = {scale, scale, scale, scale, scale, scale, scale, scale};    \
        const tg__saf_f8 b8 = {bias, bias, bias, bias, bias, bias, bias, bias};            \
        const tg__saf_i8 mag = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff,           \
                               0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};           \
        tg__saf_f8 a = *(const tg__saf_f8 *)(const void *)r;                               \
        tg__saf_f8 b = *(const tg__saf_f8 *)(const void *)(r + 8);                         \
        int64_t j = 0;                                                                     \
        TG_LANE_ACTS(STEP, s8, b8, tg__saf_f8, tg__saf_i8)                                 \
        *(tg__saf_f8 *)(void *)r = a;                                                      \
        *(tg__saf_f8 *)(void *)(r + 8) = b;                                                \
        CLEAN;                                                                             \
        return n / 8 * 8;                                                                  \
    }
#ifdef TG_TR_AVX2
TG_SIMD_AVX2_BEGIN
TG_SAF_FN(tg__lanes_saf_f32_avx2, TG_SIMD_CLEAN(), TG_SAF_STEP_F32)
TG_SAF_FN(tg__lanes_saf_bf16_avx2, TG_SIMD_CLEAN(), TG_SAF_STEP_BF16)
TG_SAF_FN(tg__lanes_saf_f16_avx2, TG_SIMD_CLEAN(), TG_SAF_STEP_F16C)
TG_SIMD_AVX2_END
#define TG_SAF_PICK(SFX, ...) (tg__simd_level() >= 2 ? tg__lanes_saf_##SFX##_avx2(__VA_ARGS__) : 0)
#else
TG_SAF_FN(tg__lanes_saf_f32, (void)0, TG_SAF_STEP_F32)
TG_SAF_FN(tg__lanes_saf_bf16, (void)0, TG_SAF_STEP_BF16)
#ifdef __F16C__
TG_SAF_FN(tg__lanes_saf_f16, (void)0, TG_SAF_STEP_F16C)
#else
TG_SAF_FN(tg__lanes_saf_f16, (void)0, TG_SAF_STEP_F16)
#endif
#define TG_SAF_PICK(SFX, ...) tg__lanes_saf_##SFX(__VA_ARGS__)
#endif
#undef TG_SAF_FN
#undef TG_SAF_STEP_F16
#undef TG_SAF_STEP_F16C
#undef TG_SAF_STEP_BF16
#undef TG_SAF_STEP_F32
#undef TG_SAF_STEP
#undef TG_SAF_HALF
#undef TG_SAF_Q
#undef TG_SAF_KEEP
#undef TG_SAF_C

/* 1 if the 16 rows' distinct lines fall at most 8 to an L1 set (64 sets of
 * 64-byte lines: 32 KiB 8-way and 48 KiB 12-way caches alike) at every
 * column: the fused form reads all 16 rows a group of columns at a time, and
 * rows a multiple of 4 KiB apart would evict each other's lines before
 * their next group (the staging takes 8 rows at a time for that reason).
 * Lanes past the block's rows repeat row 0 and are not counted; any other
 * repeated row is, which can only send the rows to the staged blocks (the
 * same bits either way). */
static int tg__lanes_rows_spread(const uint8_t *const rows[TG_LANES])
{
    unsigned char per_set[64] = {0};
    ++per_set[((uintptr_t)rows[0] >> 6) & 63];
    for (int l = 1; l < TG_LANES; l++)
        if (rows[l] != rows[0] && ++per_set[((uintptr_t)rows[l] >> 6) & 63] > 8)
            return 0;
    return 1;
}
#endif
#undef TG_LANE_ACTS
#undef TG_LANE_FUNC
#undef TG_LANE_OPS
#else
void tg_lanes_fold_f32(float r[TG_LANES], const float *t, int64_t n, tg_alu_op op)
{
    for (int64_t j = 0; j < n; j++)
        for (int l = 0; l < TG_LANES; l++) {
            const float x = t[j * TG_LANES + l];
            r[l] = op == TG_ALU_ADD ? r[l] + x : op == TG_ALU_SUBTRACT ? r[l] - x : op == TG_ALU_MULTIPLY ? r[l] * x : r[l];
        }
}
void tg_lanes_act_fold_f32(float r[TG_LANES], float *t, int64_t n, tg_act_func f, float scale, float bias,
                           tg_alu_op op)
{
    tg_activation_f32_row(f, t, t, (size_t)(n * TG_LANES), scale, bias);
    tg_lanes_fold_f32(r, t, n, op);
}
#endif

/* tg_lanes_stage_act_fold_<SFX>: TRY(SFX) the fused form's whole groups of 8
 * columns where it is built and takes the function and the rows (fewer
 * than 8 columns: no rows check), the rest by staged blocks; fp8 (whose
 * activations the template computes by table) the staged blocks alone */
#ifdef TG_SAF_PICK
#define TG_SAF_TRY(SFX)                                                                    \
    if (n >= 8 && (f == TG_ACT_COPY || f == TG_ACT_SQUARE || f == TG_ACT_ABS) &&           \
        tg__lanes_rows_spread(rows))                                                       \
        j = TG_SAF_PICK(SFX, r, rows, off, n, f, scale, bias, op);
#else
#define TG_SAF_TRY(SFX)
#endif
#define TG_SAF_NONE(SFX)
#define TG_LANES_SAF_PUBLIC(SFX, TRY)                                                      \
    void tg_lanes_stage_act_fold_##SFX(float r[TG_LANES], const uint8_t *const rows[TG_LANES], int64_t off, \
                                       int64_t n, tg_act_func f, float scale, float bias, tg_alu_op op)     \
    {                                                                                      \
        if (!tg_lanes_fold_legal(op))                                                      \
            return;                                                                        \
        int64_t j = 0;                                                                     \
        TRY(SFX)                                                                           \
        for (; j < n; j += TG_LANE_BLOCK) {                                                \
            const int64_t jn = n - j < TG_LANE_BLOCK ? n - j : TG_LANE_BLOCK;              \
            float t[TG_LANE_BLOCK * TG_LANES];                                             \
            tg_lanes_stage_##SFX(t, rows, off + j, jn);                                    \
            tg_lanes_act_fold_f32(r, t, jn, f, scale, bias, op);                           \
        }                                                                                  \
    }
TG_LANES_SAF_PUBLIC(f32, TG_SAF_TRY)
TG_LANES_SAF_PUBLIC(bf16, TG_SAF_TRY)
TG_LANES_SAF_PUBLIC(f16, TG_SAF_TRY)
TG_LANES_SAF_PUBLIC(e4m3, TG_SAF_NONE)
TG_LANES_SAF_PUBLIC(e5m2, TG_SAF_NONE)
#undef TG_LANES_SAF_PUBLIC
#undef TG_SAF_NONE
#undef TG_SAF_TRY
#undef TG_SAF_PICK

/* The keys' max or min and the NaN test, W elements at a time (a max, a min
 * and an OR: any order gives the same result); the AVX2 body has unsigned
 * 32-bit max/min (SSE2 has neither), the AVX-512 one 16 lanes of them. The
 * lanes and the elements left fold into locals, stored once: through *kx
 * and *nan (which may alias) each step had waited for the last one's store
 * (a 512-element row's 16 lanes took as long as its 32 vector steps). */
#define TG_RK_LOOP(CMP, KEY, W)                                                                 \
    for (; j + W <= n; j += W)                                                                  \
        for (int l = 0; l < W; l++) {                                                           \
            uint32_t u;                                                                         \
            memcpy(&u, row + (j + l) * 4, 4);                                                   \
            k8[l] = KEY(k8[l], u);                                                              \
            m8[l] |= tg_key_nan(u);                                                             \
        }                                                                                       \
    for (int l = 0; l < W; l++) {                                                               \
        k = k8[l] CMP k ? k8[l] : k;                                                            \
        m |= m8[l];                                                                             \
    }                                                                                           \
    for (; j < n; j++) {                                                                        \
        uint32_t u;                                                                             \
        memcpy(&u, row + j * 4, 4);                                                             \
        k = KEY(k, u);                                                                          \
        m |= tg_key_nan(u);                                                                     \
    }
#define TG_RK_FN(NAME, W)                                                                       \
    static void NAME(const uint8_t *row, int64_t n, int is_min, uint32_t *kx, uint32_t *nan)   \
    {                                                                                           \
        uint32_t k8[W], m8[W], k = *kx, m = *nan;                                               \
        int64_t j = 0;                                                                          \
        for (int l = 0; l < W; l++)                                                             \
            k8[l] = k, m8[l] = 0;                                                               \
        if (is_min) {                                                                           \
            TG_RK_LOOP(<, tg_key_min, W)                                                        \
        } else {                                                                                \
            TG_RK_LOOP(>, tg_key_max, W)                                                        \
        }                                                                                       \
        *kx = k;                                                                                \
        *nan = m;                                                                               \
    }
TG_RK_FN(tg__reduce_key_base, 8)
#ifdef TG_SIMD_AVX2_BODY
TG_SIMD_AVX2_BEGIN
TG_RK_FN(tg__reduce_key_avx2, 8)
TG_SIMD_AVX2_END
#endif
#ifdef TG_SIMD_AVX512_BODY
TG_SIMD_AVX512_BEGIN
TG_RK_FN(tg__reduce_key_avx512, 16)
TG_SIMD_AVX512_END
#endif
#undef TG_RK_FN
#undef TG_RK_LOOP

void tg_reduce_key_f32(const uint8_t *row, int64_t n, int is_min, uint32_t *kx, uint32_t *nan)
{
#ifdef TG_SIMD_AVX512_BODY
    if (tg__simd_level() >= 3) {
        tg__reduce_key_avx512(row, n, is_min, kx, nan);
        return;
    }
#endif
#ifdef TG_SIMD_AVX2_BODY
    if (tg__simd_level() >= 2) {
        tg__reduce_key_avx2(row, n, is_min, kx, nan);
        return;
    }
#endif
    tg__reduce_key_base(row, n, is_min, kx, nan);
}

/* ---- reductions ------------------------------------------------------------------ */

int tg_reduce_legal(tg_alu_op op)
{
    switch (op) {
    case TG_ALU_ADD: case TG_ALU_SUBTRACT: case TG_ALU_MULTIPLY:
    case TG_ALU_MAXIMUM: case TG_ALU_MINIMUM:
    case TG_ALU_LOGICAL_AND: case TG_ALU_LOGICAL_OR: case TG_ALU_LOGICAL_XOR:
    case TG_ALU_BITWISE_AND: case TG_ALU_BITWISE_OR: case TG_ALU_BITWISE_XOR:
        return 1;
    default:
        return 0;
    }
}

uint32_t tg_reduce_bits(const uint32_t *x, size_t n, tg_alu_op op)
{
    uint32_t r;
    size_t j;
    if (n == 0)
        return 0;
    r = x[0];
    for (j = 1; j < n; j++)
        r = tg_alu_bits(op, r, x[j]);
    return r;
}

int tg_partition_reduce_legal(tg_alu_op op)
{
    return op == TG_ALU_ADD || op == TG_ALU_MAXIMUM || op == TG_ALU_BITWISE_OR ||
           op == TG_ALU_BITWISE_AND;
}

void tg_partition_reduce_f32(float *dst, const float *src, ptrdiff_t ss, int P, size_t F,
                             tg_alu_op op)
{
    size_t f;
    int p;
    if (P <= 0) {
        for (f = 0; f < F; f++)
            dst[f] = tg__nan();
        return;
    }
    for (f = 0; f < F; f++)
        dst[f] = src[f];
    for (p = 1; p < P; p++) {
        const float *row = src + (ptrdiff_t)p * ss;
        switch (op) { /* the common ops get loops the compiler can vectorize */
        case TG_ALU_ADD:
            for (f = 0; f < F; f++)
                dst[f] = tg_alu_raw_add(dst[f], row[f]);
            break;
        case TG_ALU_MAXIMUM:
            for (f = 0; f < F; f++)
                dst[f] = tg_alu_raw_maximum(dst[f], row[f]);
            break;
        default:
            for (f = 0; f < F; f++)
                dst[f] = tg_op_alu_raw(op, dst[f], row[f]);
            break;
        }
    }
    for (f = 0; f < F; f++) /* the fold ran raw: its result canonical (tg_alu.h) */
        dst[f] = tg_nan_canon(dst[f]);
}

void tg_partition_reduce_bits(uint32_t *dst, const uint32_t *src, ptrdiff_t ss, int P, size_t F,
                              tg_alu_op op)
{
    size_t f;
    int p;
    for (f = 0; f < F; f++)
        dst[f] = P > 0 ? src[f] : 0u;
    for (p = 1; p < P; p++)
        for (f = 0; f < F; f++)
            dst[f] = tg_alu_bits(op, dst[f], src[(ptrdiff_t)p * ss + f]);
}

/* ---- bn_stats / bn_aggr --------------------------------------------------------- */

/* count, mean, M2 of x[first], x[first+2], ... below n (two passes, fp32). */
static void tg__bn_half(float out[3], const float *x, size_t first, size_t n)
{
    size_t count = n > first ? (n - first + 1) / 2 : 0, j;
    float s, mean, d, m2;
    if (count == 0) {
        out[0] = out[1] = out[2] = 0.0f;
        return;
    }
    s = x[first];
    for (j = first + 2; j < n; j += 2)
        s = s + x[j];
    mean = s / (float)count;
    d = x[first] - mean;
    m2 = d * d;
    for (j = first + 2; j < n; j += 2) {
        float q;
        d = x[j] - mean;
        q = d * d;
        m2 = m2 + q;
    }
    out[0] = (float)count;
    out[1] = mean;
    out[2] = m2;
}

int tg_bn_stats_f32(float out[6], const float *x, size_t n)
{
    if (n == 0 || n > TG_BN_STATS_FMAX)
        return -1;
    tg__bn_half(out, x, 0, n);
    tg__bn_half(out + 3, x, 1, n);
    return 0;
}

int tg_bn_aggr_f32(float out[2], const float *x, size_t n)
{
    float na = 0.0f, ma = 0.0f, m2a = 0.0f;
    size_t j;
    if (n == 0 || n % 3 != 0)
        return -1;
    for (j = 0; j < n; j += 3) {
        float nb = x[j], mb = x[j + 1], m2b = x[j + 2], nt, d, w, v, dd;
        if (!(nb > 0.0f))
            continue;
        if (na == 0.0f) {
            na = nb, ma = mb, m2a = m2b;
            continue;
        }
        nt = na + nb;
        d = mb - ma;
        w = nb / nt;
        v = d * w;
        ma = ma + v;
        v = na * w;
        m2a = m2a + m2b;
        dd = d * d;
        dd = dd * v;
        m2a = m2a + dd;
        na = nt;
    }
    if (na == 0.0f) {
        out[0] = out[1] = tg__nan();
        return 0;
    }
    out[0] = ma;
    out[1] = m2a / na;
    return 0;
}

/* tg__bn_half over TG_LANES rows (x[j·TG_LANES + l]), the lanes innermost:
 * per lane the same operations in the same order. */
#if defined(__GNUC__)
/* Lanes in 4-lane registers (SSE2 on every x86-64), as tg_lanes_fold_f32's:
 * as arrays, gcc kept them in memory and each step waited on a store. With
 * n even, both halves have n/2 elements and element pair (2k, 2k+1) is 32
 * consecutive floats: one pass of 8 registers does both halves, 8 chains at
 * once (layernorm 0.37 -> 0.20 ms); an odd n takes a pass of 4 per half.
 * The AVX2 body does the same in 8-lane registers, 4 of them for both
 * halves: each step's adds are half as many, and the pass waits on the
 * chains' latency rather than the adders. TG_BN_V is the register type,
 * TG_BN_W its lanes. */
#define TG_BN_R2(X) X(0) X(1)
#define TG_BN_R4(X) X(0) X(1) X(2) X(3)
#define TG_BN_R8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define TG_BN_LD(j, q) (*(const TG_BN_V *)(const void *)(x + (j) * (size_t)step + TG_BN_W * (q)))
#define TG_BN_DECL(q) TG_BN_V s##q = TG_BN_LD(0, q), e##q, d##q, m##q;
#define TG_BN_SUM(q) s##q = s##q + TG_BN_LD(j, q);
#define TG_BN_MEAN(q) e##q = s##q / c; d##q = TG_BN_LD(0, q) - e##q; m##q = d##q * d##q;
#define TG_BN_DEV(q) d##q = TG_BN_LD(j, q) - e##q; d##q = d##q * d##q; m##q = m##q + d##q;
#define TG_BN_OUT(q)                                                                             \
    for (int i = 0; i < TG_BN_W; i++) {                                                          \
        int lh = TG_BN_W * (q) + i, o = lh % TG_LANES * 6 + lh / TG_LANES * 3; /* lane, half */  \
        out[o] = c;                                                                              \
        out[o + 1] = e##q[i];                                                                    \
        out[o + 2] = m##q[i];                                                                    \
    }
#define TG_BN_LANES_FN(NAME, REGS)                                                               \
    static void NAME(float *out, const float *x, size_t count, size_t step)                      \
    {                                                                                            \
        const float c = (float)count;                                                            \
        size_t j;                                                                                \
        REGS(TG_BN_DECL)                                                                         \
        for (j = 1; j < count; j++) {                                                            \
            REGS(TG_BN_SUM)                                                                      \
        }                                                                                        \
        REGS(TG_BN_MEAN)                                                                         \
        for (j = 1; j < count; j++) {                                                            \
            REGS(TG_BN_DEV)                                                                      \
        }                                                                                        \
        REGS(TG_BN_OUT)                                                                          \
    }
/* both halves of n elements: one pass of LANES32 for n even, else LANES16
 * on each half (count elements each `step` floats apart, 16 lanes or 32) */
#define TG_BN_STATS_FN(NAME, LANES16, LANES32)                                                   \
    static void NAME(float *out, const float *x, size_t n)                                       \
    {                                                                                            \
        if (n % 2 == 0) {                                                                        \
            LANES32(out, x, n / 2, 2 * TG_LANES);                                                \
            return;                                                                              \
        }                                                                                        \
        LANES16(out, x, (n + 1) / 2, 2 * TG_LANES);                                              \
        if (n > 1)                                                                               \
            LANES16(out + 3, x + TG_LANES, n / 2, 2 * TG_LANES);                                 \
        else                                                                                     \
            for (int l = 0; l < TG_LANES; l++)                                                   \
                out[l * 6 + 3] = out[l * 6 + 4] = out[l * 6 + 5] = 0.0f;                        \
    }
#define TG_BN_V tg__f4
#define TG_BN_W 4
TG_BN_LANES_FN(tg__bn_lanes16, TG_BN_R4)
TG_BN_LANES_FN(tg__bn_lanes32, TG_BN_R8)
TG_BN_STATS_FN(tg__bn_stats_lanes_base, tg__bn_lanes16, tg__bn_lanes32)
#undef TG_BN_V
#undef TG_BN_W
#ifdef TG_SIMD_AVX2_BODY
typedef float tg__f8u __attribute__((vector_size(32), aligned(4), may_alias));
TG_SIMD_AVX2_BEGIN
#define TG_BN_V tg__f8u
#define TG_BN_W 8
TG_BN_LANES_FN(tg__bn_lanes16_avx2, TG_BN_R2)
TG_BN_LANES_FN(tg__bn_lanes32_avx2, TG_BN_R4)
TG_BN_STATS_FN(tg__bn_stats_lanes_avx2, tg__bn_lanes16_avx2, tg__bn_lanes32_avx2)
#undef TG_BN_V
#undef TG_BN_W
TG_SIMD_AVX2_END
#endif
static void tg__bn_stats_lanes(float *out, const float *x, size_t n)
{
#ifdef TG_SIMD_AVX2_BODY
    if (tg__simd_level() >= 2) {
        tg__bn_stats_lanes_avx2(out, x, n);
        return;
    }
#endif
    tg__bn_stats_lanes_base(out, x, n);
}
#undef TG_BN_R2
#undef TG_BN_R4
#undef TG_BN_R8
#undef TG_BN_STATS_FN
#undef TG_BN_LD
#undef TG_BN_DECL
#undef TG_BN_SUM
#undef TG_BN_MEAN
#undef TG_BN_DEV
#undef TG_BN_OUT
#undef TG_BN_LANES_FN
#else
static void tg__bn_half_lanes(float *out, const float *x, size_t first, size_t n)
{
    size_t count = n > first ? (n - first + 1) / 2 : 0, j;
    float s[TG_LANES], mean[TG_LANES], m2[TG_LANES];
    int l;
    if (count == 0) {
        for (l = 0; l < TG_LANES; l++)
            out[l * 6] = out[l * 6 + 1] = out[l * 6 + 2] = 0.0f;
        return;
    }
    for (l = 0; l < TG_LANES; l++)
        s[l] = x[first * TG_LANES + (size_t)l];
    for (j = first + 2; j < n; j += 2)
        for (l = 0; l < TG_LANES; l++)
            s[l] = s[l] + x[j * TG_LANES + (size_t)l];
    for (l = 0; l < TG_LANES; l++) {
        float d;
        mean[l] = s[l] / (float)count;
        d = x[first * TG_LANES + (size_t)l] - mean[l];
        m2[l] = d * d;
    }
    for (j = first + 2; j < n; j += 2)
        for (l = 0; l < TG_LANES; l++) {
            float d, q;
            d = x[j * TG_LANES + (size_t)l] - mean[l];
            q = d * d;
            m2[l] = m2[l] + q;
        }
    for (l = 0; l < TG_LANES; l++) {
        out[l * 6] = (float)count;
        out[l * 6 + 1] = mean[l];
        out[l * 6 + 2] = m2[l];
    }
}
static void tg__bn_stats_lanes(float *out, const float *x, size_t n)
{
    tg__bn_half_lanes(out, x, 0, n);
    tg__bn_half_lanes(out + 3, x, 1, n);
}
#endif

/* 1 when x is a NaN (by its bits, whatever the flags). */
static int tg__is_nan(float x) { return (tg_f32_bits(x) & 0x7fffffffu) > 0x7f800000u; }

/* The bits of a non-NaN sum or product never depend on the order of its two
 * operands, but which NaN comes out does (x86 keeps the first NaN operand),
 * and the compiler may swap operands in a vectorised loop. So a lane with a
 * NaN among its k outputs is done again by the one-row function `fn`, whose
 * NaNs are the ones the ISS gets. */
static void tg__lanes_nan_redo(float *out, int k, const float *x, size_t n,
                               int (*fn)(float *, const float *, size_t))
{
    float row[TG_BN_STATS_FMAX]; /* n ≤ TG_BN_STATS_FMAX (the callers check) */
    size_t j;
    int l, i, nan;
    for (l = 0; l < TG_LANES; l++) {
        for (i = 0, nan = 0; i < k; i++)
            nan |= tg__is_nan(out[l * k + i]);
        if (!nan)
            continue;
        for (j = 0; j < n; j++)
            row[j] = x[j * TG_LANES + (size_t)l];
        (void)fn(out + l * k, row, n);
    }
}

int tg_bn_stats_lanes_f32(float out[6 * TG_LANES], const float *x, size_t n)
{
    if (n == 0 || n > TG_BN_STATS_FMAX)
        return -1;
    tg__bn_stats_lanes(out, x, n);
    tg__lanes_nan_redo(out, 6, x, n, tg_bn_stats_f32);
    return 0;
}

/* tg_bn_aggr_f32's fold per lane: every step is computed and then kept or
 * dropped by a select (a skipped record, the first record), so each lane's
 * state is what the branches of tg_bn_aggr_f32 leave. */
int tg_bn_aggr_lanes_f32(float out[2 * TG_LANES], const float *x, size_t n)
{
    float na[TG_LANES], ma[TG_LANES], m2a[TG_LANES];
    size_t j;
    int l;
    if (n == 0 || n % 3 != 0 || n > TG_BN_STATS_FMAX)
        return -1;
    for (l = 0; l < TG_LANES; l++)
        na[l] = ma[l] = m2a[l] = 0.0f;
    for (j = 0; j < n; j += 3)
        for (l = 0; l < TG_LANES; l++) {
            float nb = x[j * TG_LANES + (size_t)l], mb = x[(j + 1) * TG_LANES + (size_t)l];
            float m2b = x[(j + 2) * TG_LANES + (size_t)l], nt, d, w, v, dd, mt, m2t;
            int skip = !(nb > 0.0f), first = na[l] == 0.0f;
            nt = na[l] + nb;
            d = mb - ma[l];
            w = nb / nt;
            v = d * w;
            mt = ma[l] + v;
            v = na[l] * w;
            m2t = m2a[l] + m2b;
            dd = d * d;
            dd = dd * v;
            m2t = m2t + dd;
            na[l] = skip ? na[l] : first ? nb : nt;
            ma[l] = skip ? ma[l] : first ? mb : mt;
            m2a[l] = skip ? m2a[l] : first ? m2b : m2t;
        }
    for (l = 0; l < TG_LANES; l++) {
        int none = na[l] == 0.0f;
        out[2 * l] = none ? tg__nan() : ma[l];
        out[2 * l + 1] = none ? tg__nan() : m2a[l] / na[l];
    }
    tg__lanes_nan_redo(out, 2, x, n, tg_bn_aggr_f32);
    return 0;
}

/* ---- iota --------------------------------------------------------------------- */

int tg_iota_cast(void *base, tg_dtype dt, size_t i, int64_t v)
{
    int32_t w = tg_iota_wrap(v);
    size_t sz = tg_dtype_size(dt);
    if (base == NULL || sz == 0)
        return -1;
    return tg_cvt_row((unsigned char *)base + i * sz, dt, &w, TG_INT32, 1);
}

#include "tg_fp_end.h"
