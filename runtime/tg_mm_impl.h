/* tg_mm_impl.h — the packed, register-tiled matmul at one SIMD width, for
 * tg_ops.c, which includes it once per instruction-set variant (x86-64: the
 * baseline, AVX2 and AVX-512 bodies picked at run time; elsewhere one body).
 * In:  TG_MM_VW (floats per vector, 1 = scalar), TG_MM_MR (dst rows per
 *      micro-kernel), TG_MM_FN(name) (the variant's name for a function),
 *      optionally TG_MM_NOFUSE(v) (a barrier between a product and its sum,
 *      for a body whose target has FMA where tg_fp.h cannot forbid it);
 *      tg__mm_src (an operand in place: base, ps bytes per k row, fs elements
 *      per free element, dt) and TG_MM_RD_<dtype>(row, i) from tg_ops.c.
 * Out: static void TG_MM_FN(tg__mm_run)(dst, ds, a, b, K, M, N, accumulate,
 *      scratch, scratch_floats, keep) for K, M, N > 0, and TG_MM_NR; every other
 *      name is #undef'd at the end.
 * Operands are widened to fp32 while they are packed, each element once per
 * k block when the packs hold all of M and N: the moving operand in panels
 * of TG_MM_NR columns, the stationary in panels of TG_MM_MR rows or, for N of
 * a few panels, flat (k rows of all of M). The kernel keeps a TG_MM_MR x
 * (2 * TG_MM_VW) block of dst in registers (one vector of columns for a last
 * block that narrow), read from and written back to dst itself, and walks k
 * in increasing order, one multiply then one add per element and k — the
 * order of tg_matmul_f32_ref. Vector lanes are
 * independent elements, so the SIMD width never changes bits
 * (tests/unit/test_ops.c runs every body). */
#ifndef TG_MM_NOFUSE
#define TG_MM_NOFUSE(v) ((void)0)
#endif
/* TG_MM_FMA(c, b, a) (optional): c + b·a rounded once (vector c and b, float
 * a), where the body's instruction set has it. The packed kernels take it
 * only where it gives the bits of the product rounded, then the sum
 * (tg__mm_fusable): every product exact. */
#ifdef TG_MM_FMA
#define TG_MM_HAS_FMA 1
#else
#define TG_MM_HAS_FMA 0
#endif
#define tg__vec TG_MM_FN(tg__vec)
#define tg__ivec TG_MM_FN(tg__ivec)
#define tg__mm_partial TG_MM_FN(tg__mm_partial)
#define tg__mm_rows TG_MM_FN(tg__mm_rows)
#define tg__mm_pack_a TG_MM_FN(tg__mm_pack_a)
#define tg__mm_pack_b TG_MM_FN(tg__mm_pack_b)
#define tg__mm_pack_flat TG_MM_FN(tg__mm_pack_flat)
#define tg__mm_widen_row TG_MM_FN(tg__mm_widen_row)
#define tg__mm_run TG_MM_FN(tg__mm_run)
#define tg__mm_narrow TG_MM_FN(tg__mm_narrow)
#define tg__mm_packed TG_MM_FN(tg__mm_packed)

#if TG_MM_VW > 1
typedef float tg__vec __attribute__((vector_size(TG_MM_VW * 4), aligned(4), may_alias));
typedef int32_t tg__ivec __attribute__((vector_size(TG_MM_VW * 4), aligned(4), may_alias));
#define TG_MM_ALIGN __attribute__((aligned(64)))
/* x in every lane: x + -0 (the identity for every x; {0} + x made a -0 x +0,
 * and a product of it the wrong zero: a K = 1 matmul's -0 operand) */
#define TG_MM_SPLAT(x) (-(tg__vec){0} + (x))
/* A NaN sum (a variable v) as the canonical NaN (docs/numerics.md "One NaN"):
 * which NaN an add keeps is the compiler's choice of operand order, different
 * in each body, so the payload depended on the CPU (fuzz seed 860002: a matmul
 * of fp8 NaNs gave 0xfff00000 on one body, 0x7fd00000 on another). A macro: a
 * vector argument of a function is an ABI question clang asks per body. */
#define TG_MM_CANON(v)                                                                \
    ((tg__vec)(((tg__ivec)(v) & ~(tg__ivec)((v) != (v))) |                            \
               (((tg__ivec){0} + (int32_t)TG_NAN_CANON_BITS) & (tg__ivec)((v) != (v)))))
#else
typedef float tg__vec;
#define TG_MM_SPLAT(x) (x)
#define TG_MM_ALIGN
#define TG_MM_CANON(v) tg_nan_canon(v)
#endif

#define TG_MM_NR (2 * TG_MM_VW)     /* dst columns per micro-kernel */
#define TG_MM_KC 128                /* k rows per packed block (= the PE's K) */
/* With scratch, k rows per packed block when K has them (tg_matmul_blocks):
 * each kernel call loads and stores its dst block once per 512 k, not 128
 * (the NKI matmul at 1024 x 8192 x 1024: 219 -> 209 ms, make bench's
 * nki-matmul with M=1024 N=1024). */
#define TG_MM_KCX 512
#define TG_MM_SA 64                 /* without scratch: dst rows packed at once */
#define TG_MM_SB 32                 /* and dst columns */
/* Moving panels packed at once with scratch (a block of dst columns): enough
 * for a whole moving tile (TG_MATMUL_MOVING_FMAX columns), so each k row of
 * the moving operand is widened in one walk along its partition, not a piece
 * per block of columns (rows lie a partition apart: short pieces of them
 * defeat the prefetchers). The NKI matmul at 2048 x 4096 x 2048 (make
 * bench's nki-matmul with M=2048 K=4096 N=2048), interleaved runs: 384-408 ->
 * 373-381 ms on the AVX2 body, 210-222 -> 205-213 ms on AVX-512, though the
 * bigger pack leaves room for k blocks of 128 rows only. Each stationary panel
 * passes the packed moving panels in turn, so the kernels walk dst along its
 * rows. Walking down a column of kernels instead (all stationary panels past
 * one moving panel) touched rows a dst stride apart one after another, and
 * PSUM's 4 KiB rows all share one L1 set: a bf16 128x128x512 call took 0.221
 * ms that way against 0.200. */
#define TG_MM_QB ((TG_MATMUL_MOVING_FMAX + TG_MM_NR - 1) / TG_MM_NR)
/* Floats from one packed panel of kc rows of W to the next: a cache line
 * more than the panel, so the panels a row is spread over (rows are packed
 * in order) do not all fall into one cache set. */
#define TG_MM_PSTEP(kc, W) ((ptrdiff_t)(kc) * (W) + 16)

/* Flat packs of the stationary (tg__mm_pack_flat) for N up to TG_MM_FLAT_N
 * columns (each packed element read by at most four kernels; bf16 128 x 128
 * x N on the AVX-512 body, N = 32: 7.1 -> 6.5 us, 96: 18.2 -> 17.6; at
 * 256 no gain, and 512 in noise, so wider N keeps the panels): rows of m floats are TG_MM_FLAT_LDA(m) apart, 8 more when m is a
 * multiple of 16, so that the row stride is not a multiple of 64 bytes times
 * a power of two and a panel's k rows spread over every L1 set (512 bytes
 * apart, 128 rows would share 8 sets). TG_MM_APACK(flat, k, m): the pack's floats for k rows of m
 * (m a whole number of panels), either layout. */
#define TG_MM_FLAT_N (4 * TG_MM_NR)
#define TG_MM_FLAT_LDA(m) ((ptrdiff_t)(m) + ((m) % 16 == 0 ? 8 : 0))
#define TG_MM_APACK(flat, k, m)                                                                         \
    ((flat) ? (size_t)(k) * (size_t)TG_MM_FLAT_LDA(m) : (size_t)TG_MM_PSTEP(k, TG_MM_MR) * (size_t)((m) / TG_MM_MR))

#define TG_MM_LD(p) (*(const tg__vec *)(const void *)(p))
#define TG_MM_ST(p, v) (*(tg__vec *)(void *)(p) = (v))

/* Row lists for the kernels: TG_MM_R<n>(X) is X(0) .. X(n-1). */
#define TG_MM_R1(X) X(0)
#define TG_MM_R2(X) TG_MM_R1(X) X(1)
#define TG_MM_R3(X) TG_MM_R2(X) X(2)
#define TG_MM_R4(X) TG_MM_R3(X) X(3)
#define TG_MM_R5(X) TG_MM_R4(X) X(4)
#define TG_MM_R6(X) TG_MM_R5(X) X(5)
#define TG_MM_R7(X) TG_MM_R6(X) X(6)
#define TG_MM_R8(X) TG_MM_R7(X) X(7)
#if TG_MM_MR == 8
#define TG_MM_ROWS TG_MM_R8
#elif TG_MM_MR == 6
#define TG_MM_ROWS TG_MM_R6
#else
#define TG_MM_ROWS TG_MM_R4
#endif

/* Row i of a kernel's block: its first vector of columns, and its second
 * where the kernel has two (tg__two, a constant of the kernel's function). */
#define TG_MM_DECL(i) tg__vec c##i##0 = zero, c##i##1 = zero;
#define TG_MM_LOAD(i)                                                  \
    c##i##0 = TG_MM_LD(c + (ptrdiff_t)(i) * ds);                        \
    if (tg__two)                                                       \
        c##i##1 = TG_MM_LD(c + (ptrdiff_t)(i) * ds + TG_MM_VW);
#if TG_MM_HAS_FMA
#define TG_MM_STEP_FUSED(i)                              \
    if (tg__fuse) {                                      \
        c##i##0 = TG_MM_FMA(c##i##0, b0, ap[i]);         \
        if (tg__two)                                     \
            c##i##1 = TG_MM_FMA(c##i##1, b1, ap[i]);     \
    } else
#else
#define TG_MM_STEP_FUSED(i)
#endif
#define TG_MM_STEP(i)                      \
    TG_MM_STEP_FUSED(i)                    \
    {                                      \
        float a_ = ap[i];                  \
        tg__vec p0_ = b0 * a_;             \
        TG_MM_NOFUSE(p0_);                 \
        c##i##0 = c##i##0 + p0_;           \
        if (tg__two) {                     \
            tg__vec p1_ = b1 * a_;         \
            TG_MM_NOFUSE(p1_);             \
            c##i##1 = c##i##1 + p1_;       \
        }                                  \
    }
#define TG_MM_STORE(i)                                                     \
    TG_MM_ST(c + (ptrdiff_t)(i) * ds, TG_MM_CANON(c##i##0));                \
    if (tg__two)                                                           \
        TG_MM_ST(c + (ptrdiff_t)(i) * ds + TG_MM_VW, TG_MM_CANON(c##i##1));

/* c[i·ds + j] (+)= Σ_k ap[k·as + i] · bp[k·NR + j], i < ROWS' length, j <
 * NR (j < VW for the one-vector kernel, TWO 0), over kc packed k rows (as: MR in a panel, the row's length in a flat
 * pack), from c (acc_in) or from +0: the micro-kernel
 * (all MR rows of a stationary panel) and, for a last panel of fewer rows,
 * one per row count, which leave the padding rows alone. */
#define TG_MM_KERNEL_FN(NAME, ROWS, TWO, FUSE)                                                 \
    static void NAME(float *c, ptrdiff_t ds, const float *ap, ptrdiff_t as, const float *bp, int kc, int acc_in) \
    {                                                                                          \
        enum { tg__two = TWO, tg__fuse = FUSE };                                               \
        const tg__vec zero = {0};                                                              \
        ROWS(TG_MM_DECL)                                                                       \
        int k;                                                                                 \
        if (acc_in) {                                                                          \
            ROWS(TG_MM_LOAD)                                                                   \
        }                                                                                      \
        for (k = 0; k < kc; k++) {                                                             \
            tg__vec b0 = TG_MM_LD(bp);                                                         \
            tg__vec b1 = tg__two ? TG_MM_LD(bp + TG_MM_VW) : zero;                             \
            ROWS(TG_MM_STEP)                                                                   \
            ap += as;                                                                          \
            bp += TG_MM_NR;                                                                    \
        }                                                                                      \
        ROWS(TG_MM_STORE)                                                                      \
    }
/* Each kernel twice where the body has FMA: FUSE 1 for tg__mm_fusable's
 * operands (the names with _f). */
#define TG_MM_KERNELS(F, FUSE)                                                 \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_kernel##F), TG_MM_ROWS, 1, FUSE)           \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_kernel1##F), TG_MM_ROWS, 0, FUSE)          \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_rows1##F), TG_MM_R1, 1, FUSE)              \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_rows2##F), TG_MM_R2, 1, FUSE)              \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_rows3##F), TG_MM_R3, 1, FUSE)              \
    TG_MM_KERNELS_MR6(F, FUSE) TG_MM_KERNELS_MR8(F, FUSE)
#if TG_MM_MR > 4
#define TG_MM_KERNELS_MR6(F, FUSE)                                             \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_rows4##F), TG_MM_R4, 1, FUSE)              \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_rows5##F), TG_MM_R5, 1, FUSE)
#else
#define TG_MM_KERNELS_MR6(F, FUSE)
#endif
#if TG_MM_MR > 6
#define TG_MM_KERNELS_MR8(F, FUSE)                                             \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_rows6##F), TG_MM_R6, 1, FUSE)              \
    TG_MM_KERNEL_FN(TG_MM_FN(tg__mm_rows7##F), TG_MM_R7, 1, FUSE)
#else
#define TG_MM_KERNELS_MR8(F, FUSE)
#endif
TG_MM_KERNELS(, 0)
#if TG_MM_HAS_FMA
TG_MM_KERNELS(_f, 1)
#endif
#undef TG_MM_KERNELS
#undef TG_MM_KERNELS_MR6
#undef TG_MM_KERNELS_MR8

/* The kernel for the first mr < MR rows of a panel, all NR columns. A last
 * panel of 2 rows (M = 128 in panels of 6) took the whole 6-row kernel on a
 * copy before: 4 rows of work thrown away and the copies in and out. */
#if TG_MM_HAS_FMA
#define TG_MM_K(name, fuse) ((fuse) ? TG_MM_FN(name##_f) : TG_MM_FN(name))
#else
#define TG_MM_K(name, fuse) TG_MM_FN(name)
#endif
static void tg__mm_rows(float *c, ptrdiff_t ds, const float *ap, ptrdiff_t as, const float *bp, int kc, int mr,
                        int acc_in, int fuse)
{
    (void)fuse;
    switch (mr) {
    case 1: TG_MM_K(tg__mm_rows1, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
    case 2: TG_MM_K(tg__mm_rows2, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
    case 3: TG_MM_K(tg__mm_rows3, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
#if TG_MM_MR > 4
    case 4: TG_MM_K(tg__mm_rows4, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
    case 5: TG_MM_K(tg__mm_rows5, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
#endif
#if TG_MM_MR > 6
    case 6: TG_MM_K(tg__mm_rows6, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
    case 7: TG_MM_K(tg__mm_rows7, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
#endif
    default: TG_MM_K(tg__mm_kernel, fuse)(c, ds, ap, as, bp, kc, acc_in); break;
    }
}

/* A block narrower than the micro-kernel (nr < NR columns, any rows): the
 * kernel of one vector of columns (nr <= TG_MM_VW) or two on a
 * register-sized copy of the block, its padding lanes fed zeros by the
 * packing and thrown away after. Lanes are independent elements, so the kept
 * ones get exactly the kernel's bits. (A last block of one vector, a whole
 * panel of rows, takes tg__mm_kernel1 in place: N = 16 and 48 on the
 * AVX-512 body ran their last vector's sums twice and copied the block in
 * and out.) */
static void tg__mm_partial(float *c, ptrdiff_t ds, const float *ap, ptrdiff_t as, const float *bp, int kc,
                           int mr, int nr, int acc_in, int fuse)
{
    TG_MM_ALIGN float tmp[TG_MM_MR * TG_MM_NR];
    int i, j;
    for (i = 0; i < TG_MM_MR * TG_MM_NR; i++)
        tmp[i] = 0.0f; /* +0: the start value when not accumulating */
    if (acc_in)
        for (i = 0; i < mr; i++)
            for (j = 0; j < nr; j++)
                tmp[i * TG_MM_NR + j] = c[i * ds + j];
    (void)fuse;
    if (nr <= TG_MM_VW)
        TG_MM_K(tg__mm_kernel1, fuse)(tmp, TG_MM_NR, ap, as, bp, kc, 1);
    else
        TG_MM_K(tg__mm_kernel, fuse)(tmp, TG_MM_NR, ap, as, bp, kc, 1);
    for (i = 0; i < mr; i++)
        for (j = 0; j < nr; j++)
            c[i * ds + j] = tmp[i * TG_MM_NR + j];
}
/* Rows k0 .. k0+kc-1 of operand o, its free elements j0 .. j0+n-1, widened
 * to fp32 into panels of W: element j0 + q·W + j of row k goes to
 * dst[q·TG_MM_PSTEP(kc, W) + k·W + j], zeros past n in the last panel. Each element read
 * once, widened by tg_dtype.h's exact conversion, a row at a time (a
 * partition's bytes in order: operand rows lie a partition apart, and
 * walking them a panel at a time would touch the same cache sets again and
 * again). One function per width W (TG_MM_MR for the stationary, TG_MM_NR
 * for the moving operand), so the full-width loops vectorize in the
 * variant's instruction set; a W that is not whole vectors widens up to 256
 * contiguous elements of the row first and copies them out a panel each. */
/* The walk both packs share: TG_MM_EACH_ROW { TG_MM_ROW_BEGIN ... } visits
 * rows k = 0 .. kc-1 (operand row k0 + k, in block blk at row kin of o->kb);
 * r_ is the row's element j0, and the row two ahead is prefetched. */
#define TG_MM_EACH_ROW                                                                                    \
    for (k = 0, kin = k0 % o->kb, blk = o->base + (ptrdiff_t)(k0 / o->kb) * o->bs + j0 * fs * es; k < kc; \
         k++, kin = kin + 1 < o->kb ? kin + 1 : 0, blk += kin ? 0 : o->bs)
#define TG_MM_ROW_BEGIN                                                                                   \
    const uint8_t *r_ = blk + kin * ps;                                                                   \
    TG_MM_PREFETCH_ROW(kin + 2 < o->kb ? r_ + 2 * ps : blk + o->bs + (kin + 2 - o->kb) * ps, rowbytes)
#define TG_MM_PACK_DT(W, RD)                                                      \
    TG_MM_EACH_ROW {                                                              \
        TG_MM_ROW_BEGIN                                                           \
        float *d_ = dst + k * (W);                                                \
        int q_ = 0;                                                               \
        if (fs == 1 && (W) % TG_MM_VW != 0) /* a narrow panel: via a row */       \
            while (q_ < nfull) {                                                  \
                int qn_ = nfull - q_ < TG_MM_PACK_Q(W) ? nfull - q_ : TG_MM_PACK_Q(W), q1_; \
                for (j = 0; j < qn_ * (W); j++)                                   \
                    t_[j] = RD(r_, q_ * (W) + j);                                 \
                for (q1_ = 0; q1_ < qn_; q1_++)                                   \
                    memcpy(d_ + (q_ + q1_) * pstep, t_ + q1_ * (W), sizeof(float) * (W)); \
                q_ += qn_;                                                        \
            }                                                                     \
        else if (fs == 1)                                                         \
            for (; q_ < nfull; q_++)                                              \
                for (j = 0; j < (W); j++)                                         \
                    d_[q_ * pstep + j] = RD(r_, q_ * (W) + j);                    \
        else /* strided: up to 256 elements' bits gathered into a row, then widened */ \
            while (q_ < nfull) {                                                  \
                int qn_ = nfull - q_ < TG_MM_PACK_Q(W) ? nfull - q_ : TG_MM_PACK_Q(W), q1_; \
                tg__mm_gather(g_, r_ + (ptrdiff_t)q_ * (W) * fs * es, fs, qn_ * (W), es); \
                for (j = 0; j < qn_ * (W); j++)                                   \
                    t_[j] = RD(g_, j);                                            \
                for (q1_ = 0; q1_ < qn_; q1_++)                                   \
                    memcpy(d_ + (q_ + q1_) * pstep, t_ + q1_ * (W), sizeof(float) * (W)); \
                q_ += qn_;                                                        \
            }                                                                     \
        if (q_ < np) { /* the last panel: its n - q_·W elements, then zeros */   \
            float *p_ = d_ + q_ * pstep;                                          \
            const int rem_ = n - q_ * (W);                                        \
            if (fs == 1) /* a loop that vectorizes (N = 16 on AVX-512: all of it) */ \
                for (j = 0; j < rem_; j++)                                        \
                    p_[j] = RD(r_, q_ * (W) + j);                                 \
            else                                                                  \
                for (j = 0; j < rem_; j++)                                        \
                    p_[j] = RD(r_, (q_ * (W) + j) * fs);                          \
            for (j = rem_; j < (W); j++)                                          \
                p_[j] = 0.0f;                                                     \
        }                                                                         \
    }
#define TG_MM_PACK_FN(NAME, W)                                                                      \
    static void NAME(float *dst, const tg__mm_src *o, int k0, int kc, int j0, int n)              \
    {                                                                                               \
        const ptrdiff_t ps = o->ps, fs = o->fs, es = (ptrdiff_t)tg_dtype_size(o->dt);               \
        const uint8_t *blk; /* the k row's block (its first row) */                                \
        int kin;            /* the k row within it */                                               \
        const int np = (n + (W) - 1) / (W), nfull = n / (W);                                        \
        const ptrdiff_t pstep = TG_MM_PSTEP(kc, W);                                                 \
        const ptrdiff_t rowbytes = (ptrdiff_t)n * fs * es; /* prefetched, when fs > 0 */           \
        TG_MM_ALIGN float t_[TG_MM_PACK_Q(W) * (W)];                                                \
        TG_MM_ALIGN uint8_t g_[TG_MM_PACK_Q(W) * (W) * 4];                                         \
        int k, j;                                                                                   \
        (void)t_;                                                                                   \
        (void)g_;                                                                                   \
        switch (o->dt) {                                                                            \
        case TG_FLOAT32:                                                                            \
        case TG_TFLOAT32: /* read as fp32 (tg_rd_tf32) */                                           \
            TG_MM_PACK_DT(W, TG_MM_RD_F32)                                                          \
            break;                                                                                  \
        case TG_BFLOAT16: TG_MM_PACK_DT(W, TG_MM_RD_BF16) break;                                    \
        case TG_FLOAT16: TG_MM_PACK_DT(W, TG_MM_RD_F16) break;                                      \
        case TG_FLOAT8_E4M3: TG_MM_PACK_DT(W, TG_MM_RD_E4M3) break;                                 \
        case TG_FLOAT8_E5M2: TG_MM_PACK_DT(W, TG_MM_RD_E5M2) break;                                 \
        default: /* integers (not a matmul operand): as the staging would read them */             \
            for (k = 0; k < kc; k++)                                                                \
                for (j = 0; j < np * (W); j++)                                                      \
                    dst[(j / (W)) * pstep + k * (W) + j % (W)] =                                    \
                        j < n ? tg_load_f32(o->base + (ptrdiff_t)((k0 + k) / o->kb) * o->bs +      \
                                                (ptrdiff_t)((k0 + k) % o->kb) * ps + (j0 + j) * fs * es, \
                                            o->dt, 0)                                               \
                              : 0.0f;                                                               \
            break;                                                                                  \
        }                                                                                           \
    }
#define TG_MM_PACK_Q(W) (256 / (W)) /* panels a narrow pack widens at once */
/* The bytes of a row two rows ahead asked for while this one is packed: rows
 * are a partition apart, too short for the hardware prefetcher to follow. */
#if defined(__GNUC__)
#define TG_MM_PREFETCH_ROW(p, nb)                                                 \
    for (ptrdiff_t o_ = 0; k + 2 < kc && o_ < (nb); o_ += 64)                     \
        __builtin_prefetch((p) + o_, 0, 3);
#else
#define TG_MM_PREFETCH_ROW(p, nb)
#endif
TG_MM_PACK_FN(tg__mm_pack_a, TG_MM_MR)
TG_MM_PACK_FN(tg__mm_pack_b, TG_MM_NR)
#undef TG_MM_PACK_DT
#undef TG_MM_PACK_FN
#undef TG_MM_PACK_Q

/* LOOP(RD) with the reader of dtype DT (ANY: the others, by tg_load_f32). */
#define TG_MM_NW_SWITCH(DT, LOOP, ANY)                         \
    switch (DT) {                                              \
    case TG_FLOAT32:                                           \
    case TG_TFLOAT32: LOOP(TG_MM_RD_F32) break;                \
    case TG_BFLOAT16: LOOP(TG_MM_RD_BF16) break;               \
    case TG_FLOAT16: LOOP(TG_MM_RD_F16) break;                 \
    case TG_FLOAT8_E4M3: LOOP(TG_MM_RD_E4M3) break;            \
    case TG_FLOAT8_E5M2: LOOP(TG_MM_RD_E5M2) break;            \
    default: LOOP(ANY) break;                                  \
    }

/* A row of n fp16, fp8 e4m3, fp8 e5m2 or 8- and 16-bit integer elements
 * (one after another from r) widened to fp32 into d, TG_MM_VW lanes at a
 * time, the last n % TG_MM_VW elements as one more vector of a zero-padded
 * copy: the floats by the vector codec (tg_simd.h TG_NARROW_WIDEN_V:
 * tg_dtype.h's values), the integers by an exact convert. Other dtypes
 * element by element (tg_load_f32). The scalar codec a lane at a time ran
 * at 16 bytes a step with byte shuffles (bench/probes e02 in e4m3, M = 1:
 * the widening 1.3 ns an element); uint8 PE transposes went through the
 * baseline's row loop (g02). The matmul rows take the floats only
 * (TG_MM_WIDE_DT: a matmul's operands are floats). */
#define TG_MM_WIDE_DT(dt) ((dt) == TG_FLOAT16 || (dt) == TG_FLOAT8_E4M3 || (dt) == TG_FLOAT8_E5M2)
#if TG_MM_VW > 1
typedef uint32_t TG_MM_FN(tg__wuvec) __attribute__((vector_size(TG_MM_VW * 4)));
typedef uint16_t TG_MM_FN(tg__whvec) __attribute__((vector_size(TG_MM_VW * 2), aligned(1), may_alias));
typedef uint8_t TG_MM_FN(tg__wbvec) __attribute__((vector_size(TG_MM_VW), aligned(1), may_alias));
/* TG_MM_VW bytes or halves at p, each zero-extended into a lane */
#if TG_MM_VW == 16 && !defined(__clang__)
typedef char TG_MM_FN(tg__wcvec) __attribute__((vector_size(16), aligned(1), may_alias));
typedef short TG_MM_FN(tg__wsvec) __attribute__((vector_size(32), aligned(1), may_alias));
typedef int TG_MM_FN(tg__wivec) __attribute__((vector_size(64)));
#define TG_MM_WIDEN_B(p)                                                                                 \
    ((TG_MM_FN(tg__wuvec))__builtin_ia32_pmovzxbd512_mask(*(const TG_MM_FN(tg__wcvec) *)(const void *)(p), \
                                                         (TG_MM_FN(tg__wivec)){0}, (unsigned short)-1))
#define TG_MM_WIDEN_H(p)                                                                                 \
    ((TG_MM_FN(tg__wuvec))__builtin_ia32_pmovzxwd512_mask(*(const TG_MM_FN(tg__wsvec) *)(const void *)(p), \
                                                         (TG_MM_FN(tg__wivec)){0}, (unsigned short)-1))
#else
#define TG_MM_WIDEN_B(p) __builtin_convertvector(*(const TG_MM_FN(tg__wbvec) *)(const void *)(p), TG_MM_FN(tg__wuvec))
#define TG_MM_WIDEN_H(p) __builtin_convertvector(*(const TG_MM_FN(tg__whvec) *)(const void *)(p), TG_MM_FN(tg__wuvec))
#endif
/* v (tg__vec) from the lanes u (zero-extended encodings): a narrow float's
 * by the codec, an integer's exactly (SH: 32 less its bits if signed, else
 * 0: the sign extended by shifts) */
#define TG_MM_CV_FP(v, u, EBITS, MB, K)                                                            \
    do {                                                                                           \
        TG_MM_FN(tg__wuvec) w_;                                                                    \
        TG_NARROW_WIDEN_V(w_, TG_MM_FN(tg__wuvec), tg__ivec, tg__vec, u, EBITS, MB, K);            \
        (v) = (tg__vec)w_;                                                                         \
    } while (0)
#define TG_MM_CV_INT(v, u, SH) ((v) = __builtin_convertvector((tg__ivec)((u) << (SH)) >> (SH), tg__vec))
/* the row's whole vectors of ES-byte elements read by LOAD and converted by
 * CONV(v, u, ...), then the rest as one vector of a zero-padded copy */
#define TG_MM_WIDEN_ROW(ES, LOAD, CONV, ...)                                                       \
    do {                                                                                           \
        tg__vec v_;                                                                                \
        for (; j + TG_MM_VW <= n; j += TG_MM_VW) {                                                 \
            CONV(v_, LOAD(r + (ES) * j), __VA_ARGS__);                                             \
            TG_MM_ST(d + j, v_);                                                                   \
        }                                                                                          \
        if (j < n) {                                                                               \
            uint8_t pad_[2 * TG_MM_VW] = {0};                                                      \
            TG_MM_ALIGN float out_[TG_MM_VW];                                                      \
            memcpy(pad_, r + (size_t)(ES) * (size_t)j, (size_t)(ES) * (size_t)(n - j));            \
            CONV(v_, LOAD(pad_), __VA_ARGS__);                                                     \
            TG_MM_ST(out_, v_);                                                                    \
            memcpy(d + j, out_, sizeof(float) * (size_t)(n - j));                                  \
        }                                                                                          \
    } while (0)
#endif
static void tg__mm_widen_row(float *d, const uint8_t *r, tg_dtype dt, int n)
{
    int j = 0;
#if TG_MM_VW > 1
    switch (dt) {
    case TG_FLOAT16: TG_MM_WIDEN_ROW(2, TG_MM_WIDEN_H, TG_MM_CV_FP, 5, 10, 112); return;
    case TG_FLOAT8_E4M3: TG_MM_WIDEN_ROW(1, TG_MM_WIDEN_B, TG_MM_CV_FP, 4, 3, 120); return;
    case TG_FLOAT8_E5M2: TG_MM_WIDEN_ROW(1, TG_MM_WIDEN_B, TG_MM_CV_FP, 5, 2, 112); return;
    case TG_INT8: TG_MM_WIDEN_ROW(1, TG_MM_WIDEN_B, TG_MM_CV_INT, 24); return;
    case TG_UINT8: TG_MM_WIDEN_ROW(1, TG_MM_WIDEN_B, TG_MM_CV_INT, 0); return;
    case TG_INT16: TG_MM_WIDEN_ROW(2, TG_MM_WIDEN_H, TG_MM_CV_INT, 16); return;
    case TG_UINT16: TG_MM_WIDEN_ROW(2, TG_MM_WIDEN_H, TG_MM_CV_INT, 0); return;
    default: break;
    }
#endif
    for (; j < n; j++)
        d[j] = tg_load_f32(r + (ptrdiff_t)j * (ptrdiff_t)tg_dtype_size(dt), dt, 0);
}
#undef TG_MM_WIDEN_B
#undef TG_MM_WIDEN_H
#undef TG_MM_CV_FP
#undef TG_MM_CV_INT
#undef TG_MM_WIDEN_ROW

/* The pack of a stationary operand that few kernels pass (tg__mm_packed,
 * flat: N of at most TG_MM_FLAT_N columns): rows k0 ..
 * k0+kc-1 of o, free elements j0 .. j0+n-1, widened flat, element j0 + j of
 * row k to dst[k·lda + j], zeros from n to lda (the rows tg__mm_partial's
 * kernel reads past n, and the padding: the fused kernels' span takes the
 * pack whole, one pass, not a call a row). Each k row is one contiguous run of
 * the pack, widened in whole vectors: panels of TG_MM_MR put it a panel
 * apart, 8-float pieces stored a panel stride apart (attention_tkg's 128 x
 * 128 bf16 stationaries: packing took a fifth of the kernel's time). The
 * kernels then read a panel's rows lda floats apart. */
#define TG_MM_RD_ANY_O(r, i) tg_load_f32(r, o->dt, (size_t)(i))
#define TG_MM_FLAT_DT(RD)                                                                                  \
    TG_MM_EACH_ROW {                                                                                       \
        TG_MM_ROW_BEGIN                                                                                    \
        float *d_ = dst + k * lda;                                                                         \
        if (fs == 1 && TG_MM_WIDE_DT(o->dt)) {                                                             \
            tg__mm_widen_row(d_, r_, o->dt, n);                                                            \
            j = n;                                                                                         \
        } else if (fs == 1)                                                                                \
            for (j = 0; j < n; j++)                                                                        \
                d_[j] = RD(r_, j);                                                                         \
        else                                                                                               \
            for (j = 0; j < n; j++)                                                                        \
                d_[j] = RD(r_, j * fs);                                                                    \
        for (; j < lda; j++) /* the last panel's rows past n and the row's padding */                    \
            d_[j] = 0.0f;                                                                                  \
    }
static void tg__mm_pack_flat(float *dst, ptrdiff_t lda, const tg__mm_src *o, int k0, int kc, int j0, int n)
{
    const ptrdiff_t ps = o->ps, fs = o->fs, es = (ptrdiff_t)tg_dtype_size(o->dt);
    const ptrdiff_t rowbytes = (ptrdiff_t)n * fs * es;
    const uint8_t *blk;
    int k, kin, j;
    TG_MM_NW_SWITCH(o->dt, TG_MM_FLAT_DT, TG_MM_RD_ANY_O)
}
#undef TG_MM_FLAT_DT
#undef TG_MM_RD_ANY_O
#undef TG_MM_EACH_ROW
#undef TG_MM_ROW_BEGIN
#undef TG_MM_PREFETCH_ROW


/* The packed kernels' sums for N <= TG_MM_NARROW dst columns (a
 * matrix-vector product: a decode step's matmul), without packing: TG_MM_NV
 * vectors of dst rows at a time, k in increasing order, TG_MM_NKS rows of k at
 * once. Those rows' elements of the stationary (the chunk's) and of the moving
 * operand are widened into t and bk, then per dst column the sums run over
 * them in registers: acc = acc + b[k][n] · a[k][m..], the moving element
 * first as in the kernel, one multiply then one add per element, from dst
 * (accumulate) or +0, kept in c between the groups of k. The same operations
 * on each dst element as the kernel's, so the same bits; a NaN sum is stored
 * canonical. The packed path ran the kernel on 2·TG_MM_VW columns to keep one
 * and widened the whole stationary into a pack first (moe_tkg's 1-column
 * matmuls: most of its time); then, one k row at a time, the sums lay in L1,
 * loaded and stored for every k (with the widening's bf16 bits moved up,
 * tg__mm_rd_bf16: moe_tkg 0.35 -> 0.26 ms). Rows widened one at a time and at
 * once read back as whole vectors waited on stores that cannot forward (the
 * widening writes pieces): hence groups of TG_MM_NKS. */
#define TG_MM_NARROW TG_MATMUL_NARROW
#define TG_MM_NKS 16
#if TG_MM_VW >= 16
#define TG_MM_NV 4
#define TG_MM_NVS TG_MM_R4
#else
#define TG_MM_NV 2
#define TG_MM_NVS TG_MM_R2
#endif
#define TG_MM_NW_LOAD(v) tg__vec acc##v = TG_MM_LD(c[n] + (v) * TG_MM_VW);
/* One k row's step on the sums' vector v: the row's vector v (rk: its
 * bytes, fp32 in t or the stationary's own), times bv. */
#define TG_MM_NW_STEP_F32(v)                                   \
    {                                                          \
        tg__vec p_ = bv * TG_MM_LD(rk + 4 * (v) * TG_MM_VW);   \
        TG_MM_NOFUSE(p_);                                      \
        acc##v = acc##v + p_;                                  \
    }
/* The group's sums, per dst column, over its ks rows (rows[kk]). */
#define TG_MM_NW_SUMS(STEP)                                    \
    for (n = 0; n < N; n++) {                                  \
        TG_MM_NVS(TG_MM_NW_LOAD)                               \
        for (int kk = 0; kk < ks; kk++) {                      \
            const tg__vec bv = TG_MM_SPLAT(bk[kk][n]);         \
            const uint8_t *const rk = rows[kk];                \
            TG_MM_NVS(STEP)                                    \
        }                                                      \
        TG_MM_NVS(TG_MM_NW_STORE)                              \
    }
#define TG_MM_NW_STORE(v) TG_MM_ST(c[n] + (v) * TG_MM_VW, acc##v);
/* The group's rows of the stationary chunk into t, and of the moving
 * operand's N elements into bk, each read by RD. */
#define TG_MM_NW_ROWS(RD)                                                      \
    for (int kk = 0; kk < ks; kk++) {                                          \
        const uint8_t *r_ = ablk + (ptrdiff_t)ain * a->ps;                     \
        float *tk = t + kk * CH;                                               \
        if (a->fs == 1 && TG_MM_WIDE_DT(a->dt))                                \
            tg__mm_widen_row(tk, r_, a->dt, mc);                               \
        else if (a->fs == 1)                                                   \
            for (int j = 0; j < mc; j++)                                       \
                tk[j] = RD(r_, j);                                             \
        else                                                                   \
            for (int j = 0; j < mc; j++)                                       \
                tk[j] = RD(r_, j * a->fs);                                     \
        if (++ain == a->kb) {                                                  \
            ain = 0;                                                           \
            ablk += a->bs;                                                     \
        }                                                                      \
    }
#define TG_MM_NW_BK(RD)                                                        \
    for (int kk = 0; kk < ks; kk++) {                                          \
        const uint8_t *r_ = bblk + (ptrdiff_t)bin * b->ps;                     \
        for (int j = 0; j < N; j++)                                            \
            bk[kk][j] = RD(r_, j * b->fs);                                     \
        if (++bin == b->kb) {                                                  \
            bin = 0;                                                           \
            bblk += b->bs;                                                     \
        }                                                                      \
    }
#define TG_MM_RD_ANY_A(r, i) tg_load_f32(r, a->dt, (size_t)(i))
#define TG_MM_RD_ANY_B(r, i) tg_load_f32(r, b->dt, (size_t)(i))
/* Whole chunks of a stationary whose rows are consecutive fp32, or
 * consecutive bf16 under one dst column, skip t: each k row's vectors are
 * loaded (bf16: widened in registers) where the sums use them, the same
 * products and sums in the same order (moe_tkg's bf16 1-column matmuls: the
 * copy into t was a third of their time). With more columns a bf16 row is
 * widened once into t rather than once per column. */
#if TG_MM_VW > 1
typedef uint16_t TG_MM_FN(tg__hvec) __attribute__((vector_size(TG_MM_VW * 2), aligned(2), may_alias));
typedef uint32_t TG_MM_FN(tg__uvec) __attribute__((vector_size(TG_MM_VW * 4)));
#if TG_MM_VW == 16 && !defined(__clang__)
/* gcc 12 splits the 16-lane conversion into two 8-lane ones joined by
 * vinserti64x4 (a bf16 row's vector took five instructions); vpmovzxwd
 * widens all 16 from memory (AVX-512F) */
typedef short TG_MM_FN(tg__hs16) __attribute__((vector_size(32), aligned(2), may_alias));
typedef int TG_MM_FN(tg__is16) __attribute__((vector_size(64)));
#define TG_MM_LDBF(r, j)                                                                                  \
    ((tg__vec)((TG_MM_FN(tg__uvec))__builtin_ia32_pmovzxwd512_mask(                                        \
                   *(const TG_MM_FN(tg__hs16) *)(const void *)((r) + 2 * (j)), (TG_MM_FN(tg__is16)){0},      \
                   (unsigned short)-1)                                                                       \
               << 16))
#else
#define TG_MM_LDBF(r, j)                                                                                 \
    ((tg__vec)(__builtin_convertvector(*(const TG_MM_FN(tg__hvec) *)(const void *)((r) + 2 * (j)),      \
                                       TG_MM_FN(tg__uvec)) << 16))
#endif
#define TG_MM_NW_STEP_BF16(v)                                  \
    {                                                          \
        tg__vec p_ = bv * TG_MM_LDBF(rk, (v) * TG_MM_VW);      \
        TG_MM_NOFUSE(p_);                                      \
        acc##v = acc##v + p_;                                  \
    }
#endif
static void tg__mm_narrow(float *dst, ptrdiff_t ds, const tg__mm_src *a, const tg__mm_src *b, int K, int M, int N,
                          int accumulate)
{
    enum { CH = TG_MM_NV * TG_MM_VW };
    TG_MM_ALIGN float t[TG_MM_NKS * CH], c[TG_MM_NARROW][CH], bk[TG_MM_NKS][TG_MM_NARROW];
    const ptrdiff_t ea = (ptrdiff_t)tg_dtype_size(a->dt);
    for (int m0 = 0; m0 < M; m0 += CH) {
        const int mc = M - m0 < CH ? M - m0 : CH;
        const uint8_t *ablk = a->base + (ptrdiff_t)m0 * a->fs * ea, *bblk = b->base;
        int i, n, ain = 0, bin = 0;
#if TG_MM_VW > 1
        const int direct = mc == CH && a->fs == 1 &&
                           (a->dt == TG_FLOAT32 || a->dt == TG_TFLOAT32 || (a->dt == TG_BFLOAT16 && N == 1));
#endif
        for (n = 0; n < N; n++)
            for (i = 0; i < CH; i++)
                c[n][i] = accumulate && i < mc ? dst[(ptrdiff_t)(m0 + i) * ds + n] : 0.0f;
        for (i = mc; i < CH; i++)
            for (int kk = 0; kk < TG_MM_NKS; kk++)
                t[kk * CH + i] = 0.0f; /* the last vector's lanes past M */
        for (int k1 = 0; k1 < K; k1 += TG_MM_NKS) {
            const int ks = K - k1 < TG_MM_NKS ? K - k1 : TG_MM_NKS;
            const uint8_t *rows[TG_MM_NKS];
#if TG_MM_VW > 1
            if (direct) {
                for (int kk = 0; kk < ks; kk++) { /* rows k's blocks walked as the packing does */
                    rows[kk] = ablk + (ptrdiff_t)ain * a->ps; /* the chunk's first element */
                    if (++ain == a->kb) {
                        ain = 0;
                        ablk += a->bs;
                    }
                }
            } else
#endif
            {
                /* one dtype switch per group, not per row: rows k's blocks walked as the packing does */
                TG_MM_NW_SWITCH(a->dt, TG_MM_NW_ROWS, TG_MM_RD_ANY_A)
                for (int kk = 0; kk < ks; kk++)
                    rows[kk] = (const uint8_t *)(t + kk * CH);
            }
            TG_MM_NW_SWITCH(b->dt, TG_MM_NW_BK, TG_MM_RD_ANY_B)
#if TG_MM_VW > 1
            if (direct && a->dt == TG_BFLOAT16)
                TG_MM_NW_SUMS(TG_MM_NW_STEP_BF16)
            else
#endif
                TG_MM_NW_SUMS(TG_MM_NW_STEP_F32)
        }
        for (n = 0; n < N; n++)
            for (i = 0; i < mc; i++)
                dst[(ptrdiff_t)(m0 + i) * ds + n] = tg_nan_canon(c[n][i]);
    }
}

/* The kernels' sums for M <= TG_MM_SHORT dst rows and N wider than
 * TG_MM_NARROW (a vector-matrix product: a ones column summing partitions, a
 * one-channel convolution), without packing: TG_MM_SHK k rows at a time over
 * all of N, each vector of their moving elements read once for every dst row
 * (one pass per dst row read the moving rows M times: M = 4 took twice the
 * packed path's time), sums read in place from dst: d = d + b[k][n] · a[k][m],
 * the moving element first as in the kernel, one multiply then one add per
 * element and k, k in increasing order from dst (accumulate) or +0, a NaN
 * sum stored canonical at the end. The same operations on each dst element as
 * the kernel's, so the same bits. The packed path widened every moving
 * element into panels for one row of sums (M = 1: 3 of 4 micro-kernel rows
 * idle), then read the panels back. A moving row of fp32 or bf16 elements is
 * widened in registers (TG_MM_SH_LDF, TG_MM_SH_LDBF); other dtypes (fp16,
 * fp8: tg__mm_widen_row) and strided rows (tg__mm_pack_flat) are widened once
 * per group of k rows into fp32 rows on the stack, TG_MM_SH_CH columns at a
 * time, then read as fp32 rows: before, every dst row read each moving
 * element again through tg_load_f32 (bench/probes e02's fp16 GEMV, K = 3000:
 * 29 times the bf16 form's time). */
#define TG_MM_SHORT TG_MATMUL_NARROW
#define TG_MM_SHK 4
#define TG_MM_SH_CH 512                      /* columns a staged pass widens (a PSUM bank of fp32) */
#define TG_MM_SH_LD (TG_MM_SH_CH + TG_MM_MR) /* its rows' stride: pack_flat pads to whole MR panels */
#if TG_MM_VW > 1
#define TG_MM_SH_LDBF(r, j) TG_MM_LDBF(r, j)
#else
#define TG_MM_SH_LDBF(r, j) tg__mm_rd_bf16(r, j)
#endif
#define TG_MM_SH_LDF(r, j) TG_MM_LD((r) + 4 * (j))
/* One k row's step on a vector c_ of dst row m's sums: bv, the moving row
 * kk's elements j .. j + VW - 1, times a[k][m]. */
#define TG_MM_SH_STEP(bv, kk)                                   \
    {                                                           \
        tg__vec p_ = (bv) * av[m][kk];                          \
        TG_MM_NOFUSE(p_);                                       \
        c_ = c_ + p_;                                           \
    }
/* A group of TG_MM_SHK rows over the whole vectors of every dst row: each
 * vector of the k rows' moving elements read and widened by LDV
 * (TG_MM_SH_LDF or TG_MM_SH_LDBF) once, for all M dst rows; j0 is then
 * where the rows' rest starts. */
#define TG_MM_SH_GROUP(LDV)                                                                 \
    {                                                                                       \
        for (j = 0; j + TG_MM_VW <= N; j += TG_MM_VW) {                                     \
            const tg__vec b0_ = LDV(rows[0], j), b1_ = LDV(rows[1], j), b2_ = LDV(rows[2], j), \
                          b3_ = LDV(rows[3], j);                                            \
            for (m = 0; m < M; m++) {                                                       \
                float *d = dst + m * ds;                                                    \
                tg__vec c_ = TG_MM_LD(d + j);                                               \
                TG_MM_SH_STEP(b0_, 0)                                                       \
                TG_MM_SH_STEP(b1_, 1)                                                       \
                TG_MM_SH_STEP(b2_, 2)                                                       \
                TG_MM_SH_STEP(b3_, 3)                                                       \
                TG_MM_ST(d + j, c_);                                                        \
            }                                                                               \
        }                                                                                   \
        j0 = j;                                                                             \
    }
static void TG_MM_FN(tg__mm_short)(float *dst, ptrdiff_t ds, const tg__mm_src *a, const tg__mm_src *b, int K, int M,
                                    int N, int accumulate)
{
    const uint8_t *rows[TG_MM_SHK], *ablk = a->base, *bblk = b->base;
    const ptrdiff_t ea = (ptrdiff_t)tg_dtype_size(a->dt), eb = (ptrdiff_t)tg_dtype_size(b->dt);
    /* rows read in place (fp32, tf32 read as fp32, bf16) or staged as fp32 */
    const int fast = b->fs == 1 && (b->dt == TG_FLOAT32 || b->dt == TG_TFLOAT32 || b->dt == TG_BFLOAT16);
    const int bf = fast && b->dt == TG_BFLOAT16;
    TG_MM_ALIGN float wb[TG_MM_SHK * TG_MM_SH_LD];
    float as[TG_MM_SHK][TG_MM_SHORT];
    int ain = 0, bin = 0, m, j;
    if (!fast && N > TG_MM_SH_CH) { /* a staged pass per TG_MM_SH_CH columns: each column's sums are its own */
        for (int c0 = 0; c0 < N; c0 += TG_MM_SH_CH) {
            tg__mm_src bc = *b;
            bc.base += (ptrdiff_t)c0 * b->fs * eb;
            TG_MM_FN(tg__mm_short)(dst + c0, ds, a, &bc, K, M, N - c0 < TG_MM_SH_CH ? N - c0 : TG_MM_SH_CH,
                                   accumulate);
        }
        return;
    }
    for (m = 0; m < M && !accumulate; m++)
        for (j = 0; j < N; j++)
            dst[m * ds + j] = 0.0f; /* +0: the start value when not accumulating */
    for (int k1 = 0; k1 < K; k1 += TG_MM_SHK) {
        const int ks = K - k1 < TG_MM_SHK ? K - k1 : TG_MM_SHK;
        for (int kk = 0; kk < ks; kk++) {
            rows[kk] = bblk + (ptrdiff_t)bin * b->ps;
            for (m = 0; m < M; m++)
                as[kk][m] = tg_load_f32(ablk + (ptrdiff_t)ain * a->ps + (ptrdiff_t)m * a->fs * ea, a->dt, 0);
            if (++ain == a->kb) {
                ain = 0;
                ablk += a->bs;
            }
            if (++bin == b->kb) {
                bin = 0;
                bblk += b->bs;
            }
        }
        tg__vec av[TG_MM_SHORT][TG_MM_SHK];
        int j0 = 0;
        for (m = 0; m < M; m++)
            for (int kk = 0; kk < TG_MM_SHK; kk++)
                av[m][kk] = TG_MM_SPLAT(as[kk < ks ? kk : 0][m]);
        if (!fast) { /* the group's rows widened once, then read as fp32 rows */
#if defined(__GNUC__)
            /* the next group's rows asked for first (rows a partition
             * apart: the hardware prefetcher does not follow them; e02's
             * fp16 GEMV 1.36 -> 1.09 ms) */
            const uint8_t *nb = bblk;
            for (int kk = 0, ni = bin; k1 + TG_MM_SHK + kk < K && kk < TG_MM_SHK; kk++, ni++) {
                for (; ni >= b->kb; ni -= b->kb)
                    nb += b->bs;
                for (ptrdiff_t o_ = 0; o_ < (ptrdiff_t)N * b->fs * eb; o_ += 64)
                    __builtin_prefetch(nb + (ptrdiff_t)ni * b->ps + o_, 0, 3);
            }
#endif
            if (b->fs == 1 && TG_MM_WIDE_DT(b->dt))
                for (int kk = 0; kk < ks; kk++)
                    tg__mm_widen_row(wb + kk * TG_MM_SH_LD, rows[kk], b->dt, N);
            else
                tg__mm_pack_flat(wb, TG_MM_SH_LD, b, k1, ks, 0, N);
            for (int kk = 0; kk < ks; kk++)
                rows[kk] = (const uint8_t *)(const void *)(wb + kk * TG_MM_SH_LD);
        }
        if (ks == TG_MM_SHK && bf)
            TG_MM_SH_GROUP(TG_MM_SH_LDBF)
        else if (ks == TG_MM_SHK)
            TG_MM_SH_GROUP(TG_MM_SH_LDF)
        for (m = 0; m < M; m++) {
            float *d = dst + m * ds;
            /* the rest of the row (all of it for a group of fewer than
             * TG_MM_SHK rows): a vector at a time, read in place where the
             * vector is whole, else through a copy with zeros past N */
            for (j = j0; j < N; j += TG_MM_VW) {
                TG_MM_ALIGN float t[TG_MM_SHK][TG_MM_VW], cv[TG_MM_VW];
                const int jn = N - j < TG_MM_VW ? N - j : TG_MM_VW;
                int i;
                if (jn == TG_MM_VW) {
                    tg__vec c_ = TG_MM_LD(d + j);
                    for (int kk = 0; kk < ks; kk++)
                        TG_MM_SH_STEP(bf ? TG_MM_SH_LDBF(rows[kk], j) : TG_MM_SH_LDF(rows[kk], j), kk)
                    TG_MM_ST(d + j, c_);
                    continue;
                }
                for (int kk = 0; kk < ks; kk++)
                    for (i = 0; i < TG_MM_VW; i++)
                        t[kk][i] = i >= jn ? 0.0f : bf ? tg__mm_rd_bf16(rows[kk], j + i) : tg__mm_rd_f32(rows[kk], j + i);
                for (i = 0; i < TG_MM_VW; i++)
                    cv[i] = i < jn ? d[j + i] : 0.0f;
                {
                    tg__vec c_ = TG_MM_LD(cv);
                    for (int kk = 0; kk < ks; kk++) {
                        tg__vec p_ = TG_MM_LD(t[kk]) * av[m][kk];
                        TG_MM_NOFUSE(p_);
                        c_ = c_ + p_;
                    }
                    TG_MM_ST(cv, c_);
                }
                for (i = 0; i < jn; i++)
                    d[j + i] = cv[i];
            }
        }
    }
    for (m = 0; m < M; m++)
        for (j = 0; j < N; j++)
            dst[m * ds + j] = tg_nan_canon(dst[m * ds + j]);
}
#undef TG_MM_SH_STEP
#undef TG_MM_WIDE_DT
#undef TG_MM_SH_CH
#undef TG_MM_SH_LD
#undef TG_MM_SH_GROUP
#undef TG_MM_SH_LDF
#undef TG_MM_SH_LDBF
#undef TG_MM_LDBF
#undef TG_MM_NW_STEP_F32
#undef TG_MM_NW_STEP_BF16
#undef TG_MM_NW_SUMS
#undef TG_MM_NW_LOAD
#undef TG_MM_NW_STORE
#undef TG_MM_NW_ROWS
#undef TG_MM_NW_BK
#undef TG_MM_RD_ANY_A
#undef TG_MM_RD_ANY_B
#undef TG_MM_NW_SWITCH

#if TG_MM_HAS_FMA
/* What tg__mm_fusable asks of packed floats: the least magnitude of the
 * nonzero values less 1 and the greatest magnitude (their bits as integers:
 * their order is the values'), and the OR of every value's bits (for the
 * mantissas). Zeros do not count; an infinity or a NaN counts as a huge
 * value (the unfused kernel then: they are rare, and any answer of "no" only
 * costs speed). */
typedef struct {
    uint32_t mn1, mx, om;
} TG_MM_FN(tg__mm_span);
#define TG_MM_SPAN0 {0xffffffffu, 0u, 0u}
#if TG_MM_VW > 1
typedef uint32_t TG_MM_FN(tg__spvec) __attribute__((vector_size(TG_MM_VW * 4), aligned(4), may_alias));
/* unsigned min and max of lanes (a body with FMA has AVX2 or AVX-512F) */
#if defined(__clang__)
#define TG_MM_UMIN(a, b) __builtin_elementwise_min(a, b)
#define TG_MM_UMAX(a, b) __builtin_elementwise_max(a, b)
#elif TG_MM_VW == 16
#define TG_MM_UMIN(a, b) ((V)__builtin_ia32_pminud512_mask((tg__ivec)(a), (tg__ivec)(b), (tg__ivec){0}, (unsigned short)-1))
#define TG_MM_UMAX(a, b) ((V)__builtin_ia32_pmaxud512_mask((tg__ivec)(a), (tg__ivec)(b), (tg__ivec){0}, (unsigned short)-1))
#else
#define TG_MM_UMIN(a, b) ((V)__builtin_ia32_pminud256((tg__ivec)(a), (tg__ivec)(b)))
#define TG_MM_UMAX(a, b) ((V)__builtin_ia32_pmaxud256((tg__ivec)(a), (tg__ivec)(b)))
#endif
#endif
/* The span of n floats at p added to *sp: a min, a max and an OR per vector
 * (a compare and a select each kept the loop on their latency: p1a's scan 9 %
 * of its run). */
static void TG_MM_FN(tg__mm_span_add)(TG_MM_FN(tg__mm_span) *sp, const float *p, ptrdiff_t n)
{
    uint32_t mn1 = sp->mn1, mx = sp->mx, om = sp->om;
    ptrdiff_t j = 0;
#if TG_MM_VW > 1
    typedef TG_MM_FN(tg__spvec) V;
    V vmn = (V){0} + mn1, vmx = (V){0} + mx, vom = (V){0};
    for (; j + TG_MM_VW <= n; j += TG_MM_VW) {
        const V u = *(const V *)(const void *)(p + j) & 0x7fffffffu, v = u - 1u;
        vmn = TG_MM_UMIN(v, vmn);
        vmx = TG_MM_UMAX(u, vmx);
        vom |= u;
    }
    for (int l = 0; l < TG_MM_VW; l++) {
        mn1 = vmn[l] < mn1 ? vmn[l] : mn1;
        mx = vmx[l] > mx ? vmx[l] : mx;
        om |= vom[l];
    }
#endif
    for (; j < n; j++) {
        uint32_t u;
        memcpy(&u, p + j, 4);
        u &= 0x7fffffffu;
        mn1 = u - 1u < mn1 ? u - 1u : mn1;
        mx = u > mx ? u : mx;
        om |= u;
    }
    sp->mn1 = mn1;
    sp->mx = mx;
    sp->om = om;
}

/* Significant bits at most of the span's values (24 less the mantissas'
 * common trailing zeros; a subnormal has fewer than that bound). */
static int TG_MM_FN(tg__mm_sig)(const TG_MM_FN(tg__mm_span) *sp)
{
    return 24 - tg_ctz32((sp->om & 0x7fffffu) | 0x800000u);
}

/* 1 when c + b·a rounded once gives the bits of b·a rounded, then the sum,
 * for every a of span sa and b of sb: each product exact in fp32. That holds
 * when their significant bits add up to at most 24 (bf16, fp16, fp8 and
 * 8-bit integer operands: 8 + 8, 11 + 11, ...; fp32 data with short
 * mantissas too) and every nonzero product lies in [2^-126, 2^128): |x| is
 * at least 2^lo(x) and below 2^(hi(x)+1), with the exponent field f, lo
 * f - 127 (-149 for a subnormal) and hi f - 127 (-127 for a subnormal).
 * Then a product neither rounds, nor overflows (the separate multiply's
 * infinity against the fused form's finite sum), nor falls below the
 * normals. A side of zeros only gives zero products, exact. An infinity or
 * a NaN on either side: not fused (whose products are the same in both
 * forms, but the span does not tell them from huge finite values). */
static int TG_MM_FN(tg__mm_fusable)(const TG_MM_FN(tg__mm_span) *sa, const TG_MM_FN(tg__mm_span) *sb)
{
    if (!sa->mx || !sb->mx) /* all zeros */
        return 1;
    if (sa->mx >= 0x7f800000u || sb->mx >= 0x7f800000u) /* an infinity or NaN */
        return 0;
    const int fa = (int)((sa->mn1 + 1u) >> 23), fb = (int)((sb->mn1 + 1u) >> 23);
    const int ga = (int)(sa->mx >> 23), gb = (int)(sb->mx >> 23);
    const int loa = fa ? fa - 127 : -149, lob = fb ? fb - 127 : -149;
    const int hia = ga ? ga - 127 : -127, hib = gb ? gb - 127 : -127;
    return TG_MM_FN(tg__mm_sig)(sa) + TG_MM_FN(tg__mm_sig)(sb) <= 24 && loa + lob >= -126 && hia + hib <= 126;
}
#endif

/* dst[m·ds + n] (+)= Σ_k a[k][m] · b[k][n], k in increasing order (see the
 * header); a and b's rows k lie in blocks (tg__mm_src). Per k block (kcap
 * rows) the stationary is packed for mcap rows of M, and the moving operand
 * ncap columns of N at a time, just before the kernels use them: with
 * scratch, all of M and TG_MM_QB moving panels (every element widened once
 * per k block), in k blocks of TG_MM_KCX rows when the scratch holds them;
 * else TG_MM_KC rows, TG_MM_SA rows and TG_MM_SB columns on the stack. Each stationary panel passes the packed moving panels from L1,
 * walking dst along its rows, read and written in place. */
/* The stack's room for the stationary holds a flat pack of its rows too. */
typedef char TG_MM_FN(tg__mm_flat_fits)[TG_MM_KC * TG_MM_FLAT_LDA(TG_MM_SA / TG_MM_MR * TG_MM_MR) <=
                                                (TG_MM_KC + 16) * TG_MM_SA ? 1 : -1];
static void tg__mm_packed(float *dst, ptrdiff_t ds, const tg__mm_src *a, const tg__mm_src *b, int K, int M, int N,
                          int accumulate, float *scratch, size_t scratch_floats, int keep)
{
    TG_MM_ALIGN float stack[TG_MM_KC * (TG_MM_SA + TG_MM_SB) + 16 * (TG_MM_SA + TG_MM_SB)];
    const int mall = (M + TG_MM_MR - 1) / TG_MM_MR * TG_MM_MR, nall = (N + TG_MM_NR - 1) / TG_MM_NR * TG_MM_NR;
    const int nblk = nall < TG_MM_QB * TG_MM_NR ? nall : TG_MM_QB * TG_MM_NR;
    float *apack = stack, *bpack = stack + (TG_MM_KC + 16) * TG_MM_SA;
    int mcap = TG_MM_SA / TG_MM_MR * TG_MM_MR, ncap = TG_MM_SB / TG_MM_NR * TG_MM_NR, kcap = TG_MM_KC;
    const int flat = nall <= TG_MM_FLAT_N; /* the stationary packed flat */
    /* with scratch: all of M and TG_MM_QB moving panels per k block, of
     * TG_MM_KCX rows when K has them and the scratch holds them (the kernels'
     * loads and stores of dst spread over more k), else TG_MM_KC */
    for (int kx = TG_MM_KCX; scratch && kx >= TG_MM_KC; kx /= 2) {
        const size_t kmax = (size_t)(K < kx ? K : kx);
        const size_t aall = TG_MM_APACK(flat, kmax, mall);
        const size_t bblk = (size_t)TG_MM_PSTEP(kmax, TG_MM_NR) * (size_t)(nblk / TG_MM_NR);
        if ((K >= kx || kx == TG_MM_KC) && scratch_floats >= aall + bblk) {
            apack = scratch;
            bpack = scratch + aall;
            mcap = mall;
            ncap = nblk;
            kcap = kx;
            break;
        }
    }
    /* resident: one k block, and the scratch holds every moving panel side
     * by side after the stationary, chunk after chunk (the layout depends
     * only on K, M, N and the scratch's size); then an operand `keep` names (TG_MATMUL_KEEP_*)
     * is already packed there by the previous call and is not packed again */
    const size_t aall_r = TG_MM_APACK(flat, K, mall);
    const size_t bpan_r = (size_t)TG_MM_PSTEP(K, TG_MM_NR); /* one moving panel */
    const int resident = apack == scratch && K <= kcap && mcap == mall && ncap == nblk &&
                         scratch_floats >= aall_r + (size_t)(nall / TG_MM_NR) * bpan_r;
    if (!resident)
        keep = 0;
    const ptrdiff_t lda = TG_MM_FLAT_LDA(mcap);
#if TG_MM_HAS_FMA
    /* Fused kernels only for dst blocks of two vectors of columns: one
     * vector's kernel (tg__mm_kernel1) is bound by its MR add chains, whose
     * latency fusing lengthens (bench/probes y04, N = 10: the kernel as fast
     * fused, the spans 6 % more time). And more than one panel of rows: the
     * moving pack's span is asked for once, its values read by M rows (z07,
     * M = 8: the span 13 % of the run, what fusing saved). */
    const int want = N > TG_MM_VW && M > TG_MM_MR;
#endif
    int k0, m0, n0;
    for (k0 = 0; k0 < K; k0 += kcap) {
        int kc = K - k0 < kcap ? K - k0 : kcap;
        int acc_in = accumulate || k0 > 0;
        for (m0 = 0; m0 < M; m0 += mcap) {
            int mc = M - m0 < mcap ? M - m0 : mcap;
            int np = (mc + TG_MM_MR - 1) / TG_MM_MR, i;
            if (keep & TG_MATMUL_KEEP_STAT)
                ;
            else if (flat)
                tg__mm_pack_flat(apack, lda, a, k0, kc, m0, mc);
            else
                tg__mm_pack_a(apack, a, k0, kc, m0, mc);
#if TG_MM_HAS_FMA
            TG_MM_FN(tg__mm_span) sa = TG_MM_SPAN0;
            if (!want)
                ;
            else if (flat) /* whole rows: their zeros past mc change no span */
                TG_MM_FN(tg__mm_span_add)(&sa, apack, (ptrdiff_t)kc * lda);
            else
                for (i = 0; i < np; i++)
                    TG_MM_FN(tg__mm_span_add)(&sa, apack + (ptrdiff_t)i * TG_MM_PSTEP(kc, TG_MM_MR),
                                              (ptrdiff_t)kc * TG_MM_MR);
            /* else no moving values make the products exact */
            const int try_fuse = want && (TG_MM_FN(tg__mm_sig)(&sa) < 24 || !sa.mx);
#endif
            for (n0 = 0; n0 < N; n0 += ncap) {
                int nc = N - n0 < ncap ? N - n0 : ncap, q;
                if (resident)
                    bpack = scratch + aall_r + (size_t)(n0 / TG_MM_NR) * bpan_r;
                if (!(keep & TG_MATMUL_KEEP_MOV))
                    tg__mm_pack_b(bpack, b, k0, kc, n0, nc);
                int fuse = 0;
#if TG_MM_HAS_FMA
                if (try_fuse) {
                    TG_MM_FN(tg__mm_span) sb = TG_MM_SPAN0;
                    for (q = 0; q * TG_MM_NR < nc; q++)
                        TG_MM_FN(tg__mm_span_add)(&sb, bpack + (ptrdiff_t)q * TG_MM_PSTEP(kc, TG_MM_NR),
                                                  (ptrdiff_t)kc * TG_MM_NR);
                    fuse = TG_MM_FN(tg__mm_fusable)(&sa, &sb);
                }
#endif
                for (i = 0; i < np; i++) {
                    int mr = mc - i * TG_MM_MR < TG_MM_MR ? mc - i * TG_MM_MR : TG_MM_MR;
                    const float *ap = apack + (ptrdiff_t)i * (flat ? TG_MM_MR : TG_MM_PSTEP(kc, TG_MM_MR));
                    const ptrdiff_t as = flat ? lda : TG_MM_MR;
                    for (q = 0; q * TG_MM_NR < nc; q++) {
                        int nr = nc - q * TG_MM_NR < TG_MM_NR ? nc - q * TG_MM_NR : TG_MM_NR;
                        const float *bp = bpack + (ptrdiff_t)q * TG_MM_PSTEP(kc, TG_MM_NR);
                        float *c = dst + (ptrdiff_t)(m0 + i * TG_MM_MR) * ds + n0 + q * TG_MM_NR;
                        if (mr == TG_MM_MR && nr == TG_MM_NR)
                            TG_MM_K(tg__mm_kernel, fuse)(c, ds, ap, as, bp, kc, acc_in);
                        else if (nr == TG_MM_NR)
                            tg__mm_rows(c, ds, ap, as, bp, kc, mr, acc_in, fuse);
                        else if (mr == TG_MM_MR && nr == TG_MM_VW)
                            TG_MM_K(tg__mm_kernel1, fuse)(c, ds, ap, as, bp, kc, acc_in);
                        else
                            tg__mm_partial(c, ds, ap, as, bp, kc, mr, nr, acc_in, fuse);
                    }
                }
            }
        }
    }
}

/* One of three paths (the narrow and short ones pack nothing, so `keep`
 * names no pack there), each with its own frame: their sums are not stacked
 * on the packs. */
static void tg__mm_run(float *dst, ptrdiff_t ds, const tg__mm_src *a, const tg__mm_src *b, int K, int M, int N,
                       int accumulate, float *scratch, size_t scratch_floats, int keep)
{
    if (N <= TG_MM_NARROW)
        tg__mm_narrow(dst, ds, a, b, K, M, N, accumulate);
    else if (M <= TG_MM_SHORT)
        TG_MM_FN(tg__mm_short)(dst, ds, a, b, K, M, N, accumulate);
    else
        tg__mm_packed(dst, ds, a, b, K, M, N, accumulate, scratch, scratch_floats, keep);
}

#undef tg__vec
#undef tg__ivec
#undef TG_MM_CANON
#undef tg__mm_narrow
#undef tg__mm_packed
#undef TG_MM_NARROW
#undef TG_MM_SHORT
#undef TG_MM_SHK
#undef TG_MM_NKS
#undef TG_MM_NV
#undef TG_MM_NVS
#undef tg__mm_partial
#undef tg__mm_rows
#undef tg__mm_pack_a
#undef tg__mm_pack_b
#undef tg__mm_pack_flat
#undef tg__mm_widen_row
#undef tg__mm_run
#undef TG_MM_ALIGN
#undef TG_MM_NR
#undef TG_MM_KC
#undef TG_MM_KCX
#undef TG_MM_SA
#undef TG_MM_SB
#undef TG_MM_QB
#undef TG_MM_PSTEP
#undef TG_MM_FLAT_N
#undef TG_MM_FLAT_LDA
#undef TG_MM_APACK
#undef TG_MM_LD
#undef TG_MM_ST
#undef TG_MM_ROWS
#undef TG_MM_R1
#undef TG_MM_R2
#undef TG_MM_R3
#undef TG_MM_R4
#undef TG_MM_R5
#undef TG_MM_R6
#undef TG_MM_R7
#undef TG_MM_R8
#undef TG_MM_KERNEL_FN
#undef TG_MM_DECL
#undef TG_MM_LOAD
#undef TG_MM_STEP
#undef TG_MM_STORE
#undef TG_MM_NOFUSE
#undef TG_MM_FMA
#undef TG_MM_HAS_FMA
#undef TG_MM_STEP_FUSED
#undef TG_MM_K
#undef TG_MM_SPAN0
#undef TG_MM_SPLAT
#undef TG_MM_UMIN
#undef TG_MM_UMAX
#undef TG_MM_VW
#undef TG_MM_MR
