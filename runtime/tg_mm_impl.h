/* tg_mm_impl.h — the packed, register-tiled matmul at one SIMD width, for
 * tg_ops.c, which includes it once per instruction-set variant (x86-64: the
 * baseline, AVX2 and AVX-512 bodies picked at run time; elsewhere one body).
 * In:  TG_MM_VW (floats per vector, 1 = scalar), TG_MM_MR (dst rows per
 *      micro-kernel), TG_MM_FN(name) (the variant's name for a function),
 *      optionally TG_MM_NOFUSE(v) (a barrier between a product and its sum,
 *      for a body whose target has FMA where tg_fp.h cannot forbid it).
 * Out: static void TG_MM_FN(tg__mm_packed)(dst, ds, stat, ss, mov, ms, K, M, N,
 *      accumulate) for K, M, N > 0; every other name is #undef'd at the end.
 * The kernel keeps a TG_MM_MR x (2 * TG_MM_VW) block of dst in registers and
 * walks k in increasing order, one multiply then one add per element and k —
 * the order of tg_matmul_f32_ref. Vector lanes are independent elements, so
 * the SIMD width never changes bits (tests/unit/test_ops.c runs every body). */
#ifndef TG_MM_NOFUSE
#define TG_MM_NOFUSE(v) ((void)0)
#endif
#define tg__vec TG_MM_FN(tg__vec)
#define tg__mm_kernel TG_MM_FN(tg__mm_kernel)
#define tg__mm_partial TG_MM_FN(tg__mm_partial)
#define tg__mm_packed TG_MM_FN(tg__mm_packed)

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
        TG_MM_NOFUSE(p0_);                 \
        TG_MM_NOFUSE(p1_);                 \
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
static void tg__mm_packed(float *dst, ptrdiff_t ds, const float *stat, ptrdiff_t ss,
                          const float *mov, ptrdiff_t ms, int K, int M, int N, int accumulate)
{
    TG_MM_ALIGN float apack[TG_MM_MC * TG_MM_KC]; /* [panel][k][MR], rows zero-padded */
    TG_MM_ALIGN float bpack[TG_MM_KC * TG_MM_NR]; /* [k][NR], columns zero-padded */
    int k0, m0, n0;
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

#undef tg__vec
#undef tg__mm_kernel
#undef tg__mm_partial
#undef tg__mm_packed
#undef TG_MM_ALIGN
#undef TG_MM_NR
#undef TG_MM_KC
#undef TG_MM_MC
#undef TG_MM_LD
#undef TG_MM_ST
#undef TG_MM_ROWS
#undef TG_MM_DECL
#undef TG_MM_LOAD
#undef TG_MM_ZERO
#undef TG_MM_STEP
#undef TG_MM_STORE
#undef TG_MM_NOFUSE
#undef TG_MM_VW
#undef TG_MM_MR
