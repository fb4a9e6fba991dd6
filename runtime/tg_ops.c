/* tg_ops.c — the out-of-line op semantics of tg_ops.h: matmul (packed,
 * register-tiled, order-preserving), transpose, bn_stats/bn_aggr,
 * partition_reduce, bitvec reductions and iota casts. Freestanding C99;
 * tg_fp.h keeps every product out of an FMA. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_mem.h"

#include "tg_ops.h"

static float tg__nan(void) { return tg_bits_f32(0x7fc00000u); }

/* ---- matmul micro-kernel configuration ---------------------------------------
 * tg__vec is a GNU vector of TG_MM_VW floats where the compiler targets SIMD
 * (the build may add -march=native, see runtime/ops.mk), else plain float:
 * the same C then runs as scalar code. The kernel keeps a TG_MM_MR × (2 ·
 * TG_MM_VW) block of dst in registers and walks k in increasing order, one
 * multiply then one add per element and k — the order of tg_matmul_f32_ref.
 * Vector lanes are independent elements, so SIMD width never changes bits. */
#if defined(__GNUC__) && defined(__AVX512F__)
#define TG_MM_VW 16
#define TG_MM_MR 8
#elif defined(__GNUC__) && defined(__AVX__)
#define TG_MM_VW 8
#define TG_MM_MR 6
#elif defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON))
#define TG_MM_VW 4
#define TG_MM_MR 6
#else
#define TG_MM_VW 1
#define TG_MM_MR 4
#endif

#if TG_MM_VW > 1
typedef float tg__vec __attribute__((vector_size(TG_MM_VW * 4), aligned(4), may_alias));
#define TG_MM_ALIGN __attribute__((aligned(64)))
#else
typedef float tg__vec;
#define TG_MM_ALIGN
#endif

#define TG_MM_NR (2 * TG_MM_VW)     /* dst columns per micro-kernel */
#define TG_MM_KC 128                /* k rows per packed block (= the PE's K) */
#define TG_MM_MC (8 * TG_MM_MR)     /* dst rows per packed stationary block */

#define TG_MM_LD(p) (*(const tg__vec *)(const void *)(p))
#define TG_MM_ST(p, v) (*(tg__vec *)(void *)(p) = (v))

#if TG_MM_MR == 8
#define TG_MM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#elif TG_MM_MR == 6
#define TG_MM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#else
#define TG_MM_ROWS(X) X(0) X(1) X(2) X(3)
#endif

#define TG_MM_DECL(i) tg__vec c##i##0, c##i##1;
#define TG_MM_LOAD(i)                              \
    c##i##0 = TG_MM_LD(c + (ptrdiff_t)(i) * ds);    \
    c##i##1 = TG_MM_LD(c + (ptrdiff_t)(i) * ds + TG_MM_VW);
#define TG_MM_ZERO(i) c##i##0 = zero; c##i##1 = zero;
#define TG_MM_STEP(i)                      \
    {                                      \
        float a_ = ap[i];                  \
        tg__vec p0_ = b0 * a_;             \
        tg__vec p1_ = b1 * a_;             \
        c##i##0 = c##i##0 + p0_;           \
        c##i##1 = c##i##1 + p1_;           \
    }
#define TG_MM_STORE(i)                                   \
    TG_MM_ST(c + (ptrdiff_t)(i) * ds, c##i##0);           \
    TG_MM_ST(c + (ptrdiff_t)(i) * ds + TG_MM_VW, c##i##1);

/* c[i·ds + j] (+)= Σ_k ap[k·MR + i] · bp[k·NR + j], i < MR, j < NR, over kc
 * packed k rows, from c (acc_in) or from +0. */
static void tg__mm_kernel(float *c, ptrdiff_t ds, const float *ap, const float *bp, int kc,
                          int acc_in)
{
    TG_MM_ROWS(TG_MM_DECL)
    int k;
    if (acc_in) {
        TG_MM_ROWS(TG_MM_LOAD)
    } else {
        tg__vec zero = {0};
        TG_MM_ROWS(TG_MM_ZERO)
    }
    for (k = 0; k < kc; k++) {
        tg__vec b0 = TG_MM_LD(bp);
        tg__vec b1 = TG_MM_LD(bp + TG_MM_VW);
        TG_MM_ROWS(TG_MM_STEP)
        ap += TG_MM_MR;
        bp += TG_MM_NR;
    }
    TG_MM_ROWS(TG_MM_STORE)
}

/* A block that does not fill the micro-kernel (mr < MR rows or nr < NR
 * columns): the same kernel on a register-sized copy of the block, its
 * padding lanes fed zeros by the packing and thrown away after. Lanes are
 * independent elements, so the kept ones get exactly the kernel's bits. */
static void tg__mm_partial(float *c, ptrdiff_t ds, const float *ap, const float *bp, int kc,
                           int mr, int nr, int acc_in)
{
    TG_MM_ALIGN float tmp[TG_MM_MR * TG_MM_NR];
    int i, j;
    for (i = 0; i < TG_MM_MR * TG_MM_NR; i++)
        tmp[i] = 0.0f; /* +0: the start value when not accumulating */
    if (acc_in)
        for (i = 0; i < mr; i++)
            for (j = 0; j < nr; j++)
                tmp[i * TG_MM_NR + j] = c[i * ds + j];
    tg__mm_kernel(tmp, TG_MM_NR, ap, bp, kc, 1);
    for (i = 0; i < mr; i++)
        for (j = 0; j < nr; j++)
            c[i * ds + j] = tmp[i * TG_MM_NR + j];
}

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
            dst[m * ds + n] = acc;
        }
    }
}

void tg_matmul_f32(float *dst, ptrdiff_t ds, const float *stat, ptrdiff_t ss, const float *mov,
                   ptrdiff_t ms, int K, int M, int N, int accumulate)
{
    TG_MM_ALIGN float apack[TG_MM_MC * TG_MM_KC]; /* [panel][k][MR], rows zero-padded */
    TG_MM_ALIGN float bpack[TG_MM_KC * TG_MM_NR]; /* [k][NR], columns zero-padded */
    int k0, m0, n0;
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        if (!accumulate)
            tg__mm_plain(dst, ds, stat, ss, mov, ms, 0, M, N, 0);
        return;
    }
    for (k0 = 0; k0 < K; k0 += TG_MM_KC) {
        int kc = K - k0 < TG_MM_KC ? K - k0 : TG_MM_KC;
        int acc_in = accumulate || k0 > 0;
        const float *sk = stat + (ptrdiff_t)k0 * ss;
        const float *mk = mov + (ptrdiff_t)k0 * ms;
        for (m0 = 0; m0 < M; m0 += TG_MM_MC) {
            int mc = M - m0 < TG_MM_MC ? M - m0 : TG_MM_MC;
            int np = (mc + TG_MM_MR - 1) / TG_MM_MR, i, k, r, j;
            for (i = 0; i < np; i++) {
                int mr = mc - i * TG_MM_MR < TG_MM_MR ? mc - i * TG_MM_MR : TG_MM_MR;
                float *ap = apack + i * kc * TG_MM_MR;
                const float *sp = sk + m0 + i * TG_MM_MR;
                if (mr == TG_MM_MR) /* full panel: plain row copies (vectorize) */
                    for (k = 0; k < kc; k++)
                        memcpy(ap + k * TG_MM_MR, sp + k * ss, sizeof(float) * TG_MM_MR);
                else
                    for (k = 0; k < kc; k++)
                        for (r = 0; r < TG_MM_MR; r++)
                            ap[k * TG_MM_MR + r] = r < mr ? sp[k * ss + r] : 0.0f;
            }
            for (n0 = 0; n0 < N; n0 += TG_MM_NR) {
                int nr = N - n0 < TG_MM_NR ? N - n0 : TG_MM_NR;
                if (nr == TG_MM_NR)
                    for (k = 0; k < kc; k++)
                        memcpy(bpack + k * TG_MM_NR, mk + k * ms + n0, sizeof(float) * TG_MM_NR);
                else
                    for (k = 0; k < kc; k++)
                        for (j = 0; j < TG_MM_NR; j++)
                            bpack[k * TG_MM_NR + j] = j < nr ? mk[k * ms + n0 + j] : 0.0f;
                for (i = 0; i < np; i++) {
                    int mr = mc - i * TG_MM_MR < TG_MM_MR ? mc - i * TG_MM_MR : TG_MM_MR;
                    float *c = dst + (ptrdiff_t)(m0 + i * TG_MM_MR) * ds + n0;
                    if (mr == TG_MM_MR && nr == TG_MM_NR)
                        tg__mm_kernel(c, ds, apack + i * kc * TG_MM_MR, bpack, kc, acc_in);
                    else
                        tg__mm_partial(c, ds, apack + i * kc * TG_MM_MR, bpack, kc, mr, nr,
                                       acc_in);
                }
            }
        }
    }
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

static void tg__transpose8(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss)
{
    /* written out (no arrays, no loops) so every value stays in a register */
    tg__v8 r0, r1, r2, r3, r4, r5, r6, r7;
    memcpy(&r0, src, 32);
    memcpy(&r1, src + ss, 32);
    memcpy(&r2, src + 2 * ss, 32);
    memcpy(&r3, src + 3 * ss, 32);
    memcpy(&r4, src + 4 * ss, 32);
    memcpy(&r5, src + 5 * ss, 32);
    memcpy(&r6, src + 6 * ss, 32);
    memcpy(&r7, src + 7 * ss, 32);
    tg__v8 t0 = TG_TR_LO(r0, r1), t1 = TG_TR_HI(r0, r1), t2 = TG_TR_LO(r2, r3), t3 = TG_TR_HI(r2, r3);
    tg__v8 t4 = TG_TR_LO(r4, r5), t5 = TG_TR_HI(r4, r5), t6 = TG_TR_LO(r6, r7), t7 = TG_TR_HI(r6, r7);
    tg__v8 u0 = TG_TR_LO2(t0, t2), u1 = TG_TR_HI2(t0, t2), u2 = TG_TR_LO2(t1, t3), u3 = TG_TR_HI2(t1, t3);
    tg__v8 u4 = TG_TR_LO2(t4, t6), u5 = TG_TR_HI2(t4, t6), u6 = TG_TR_LO2(t5, t7), u7 = TG_TR_HI2(t5, t7);
    tg__v8 o0 = TG_TR_LO4(u0, u4), o1 = TG_TR_LO4(u1, u5), o2 = TG_TR_LO4(u2, u6), o3 = TG_TR_LO4(u3, u7);
    tg__v8 o4 = TG_TR_HI4(u0, u4), o5 = TG_TR_HI4(u1, u5), o6 = TG_TR_HI4(u2, u6), o7 = TG_TR_HI4(u3, u7);
    memcpy(dst, &o0, 32);
    memcpy(dst + ds, &o1, 32);
    memcpy(dst + 2 * ds, &o2, 32);
    memcpy(dst + 3 * ds, &o3, 32);
    memcpy(dst + 4 * ds, &o4, 32);
    memcpy(dst + 5 * ds, &o5, 32);
    memcpy(dst + 6 * ds, &o6, 32);
    memcpy(dst + 7 * ds, &o7, 32);
}
#define TG_TR_B 8
#endif

void tg_transpose_f32(float *dst, ptrdiff_t ds, const float *src, ptrdiff_t ss, int P, int F)
{
#ifdef TG_TR_B
    int p0 = 0;
    for (; p0 + TG_TR_B <= P; p0 += TG_TR_B) {
        int f0 = 0;
        for (; f0 + TG_TR_B <= F; f0 += TG_TR_B)
            tg__transpose8(dst + (ptrdiff_t)f0 * ds + p0, ds, src + (ptrdiff_t)p0 * ss + f0, ss);
        tg__transpose_plain(dst + (ptrdiff_t)f0 * ds + p0, ds, src + (ptrdiff_t)p0 * ss + f0, ss, TG_TR_B, F - f0);
    }
    tg__transpose_plain(dst + p0, ds, src + (ptrdiff_t)p0 * ss, ss, P - p0, F);
#else
    tg__transpose_plain(dst, ds, src, ss, P, F);
#endif
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
