/* tg_act_fast.h — the checked fast paths' w (tg_ops.c, "checked fast
 * paths": each function's bound E and why the check makes the result
 * exact), written once for vectors of fp64 lanes and included by each body
 * that has them: gcc's AVX-512F body (8 lanes) and its AVX2 one with FMA
 * (4 lanes). Included inside the body's target region; the includer
 * defines
 *   TG_FW_(name)           the body's name for a function here (name ## 8)
 *   TG_FW_D, TG_FW_U, TG_FW_I   fp64, uint64 and int64 vectors
 *   TG_FW_M                a set of lanes (an integer, bit l for lane l)
 *   TG_FW_FMA(a, b, c)     a·b + c rounded once
 *   TG_FW_PICK(m, y, x)    y where m's lane is all ones, else x
 *   TG_FW_CLAMP(x, lim)    the vectors x[] clamped to [-lim, lim], NaN kept
 *   TG_FW_MAX(a, b)        maxpd: b where a or b is NaN
 *   TG_FW_MIN(a, b)        minpd: b where a or b is NaN
 *   TG_FW_ZERO_BITS(v, m)  lanes where v & m is 0 (uint64 vectors)
 *   TG_FW_UGE(a, b)        lanes where a ≥ b, unsigned (uint64 vectors)
 *   TG_FW_NAN(x)           lanes where x is NaN
 *   TG_FW_SUBN(a)          a ≥ 0, plus 2^-126 where below 2^-126
 *   TG_FW_EXP_TAB(tab, kb) 2^(j/16), j = kb's low 4 bits (tab: the row's
 *                          table vectors; 2^(j/16) is tg_math_exp_tab[2j])
 *   TG_FW_LOG_TAB(t, i)    tg_log_tab[t][i], i = the low 5 bits of i
 *   TG_FW_ERFC_TAB(q, i)   tg_erfcx_tab[q][i], i = the low 4 bits of i
 *   TG_FW_RSQRT0(x, f)     y0, 1/√x within 2^-7 of it, for positive normal
 *                          fp32 x (lanes it cannot take flagged in *f)
 *   TG_FW_RSQRT_STEPS      the Newton steps that take y0 within 2^-50
 * and TG_EXPV_U (vectors a step) and TG_EXPV_ALL(S) (S for k_ = 0 …
 * TG_EXPV_U - 1). Every operation is IEEE (add, multiply, fma, divide)
 * but for TG_FW_RSQRT0, whose error bound alone enters E: so w is the same
 * in every body, and the result the same on every CPU. */

/* lanes of w within 2^log2t ulps of an fp32 rounding boundary: the
 * patterns whose 29 bits below fp32's mantissa are 2^28, without the
 * subnormal grid (the sign is outside the bits tested): for functions
 * whose w, where it is below 2^-126 in magnitude and not 0, lies within
 * 2^-170 of the fp32 argument (tanh and sin, whose only such results are
 * of arguments below about 2^-126: v lies as close, and both round to the
 * argument), or that have no such results (log, rsqrt). Three operations
 * fewer a vector than TG_FW_(tg__near_bound): tanh 0.47 → 0.41 ns an
 * element on AVX-512. */
__attribute__((always_inline)) static inline TG_FW_M TG_FW_(tg__near_normal)(TG_FW_D w, int log2t)
{
    const TG_FW_U lo = (TG_FW_U){0} + (((uint64_t)1 << log2t) - ((uint64_t)1 << 28));
    return TG_FW_ZERO_BITS((TG_FW_U)w + lo, (TG_FW_U){0} + (((uint64_t)1 << 29) - ((uint64_t)2 << log2t)));
}
/* lanes of w within 2^log2t ulps of an fp32 rounding boundary: the test of
 * TG_FW_(tg__near_normal) on |w|, or on |w| + 2^-126 below 2^-126 */
__attribute__((always_inline)) static inline TG_FW_M TG_FW_(tg__near_bound)(TG_FW_D w, int log2t)
{
    return TG_FW_(tg__near_normal)(TG_FW_SUBN((TG_FW_D)((TG_FW_U)w & 0x7fffffffffffffffull)), log2t);
}
/* the same for w ≥ 0 or NaN (exp's: no sign to clear) */
__attribute__((always_inline)) static inline TG_FW_M TG_FW_(tg__near_bound_pos)(TG_FW_D w, int log2t)
{
    return TG_FW_(tg__near_normal)(TG_FW_SUBN(w), log2t);
}
/* lanes of x not positive and finite (±0, x < 0, inf, NaN): x's bits less
 * 1, as unsigned, at or above those of DBL_MAX */
__attribute__((always_inline)) static inline TG_FW_M TG_FW_(tg__not_pos_finite)(TG_FW_D x)
{
    return TG_FW_UGE((TG_FW_U)x - 1, (TG_FW_U){0} + 0x7fefffffffffffffull);
}
/* The fast e^x's reduction of x in [-128, 128] in place: k = round(16x/ln2)
 * = 16m + j in kb's bits, r = x − k·ln2/16 by two fmas (|r| ≤ ln2/32) */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__exp_reduce)(TG_FW_D x, TG_FW_U *kb)
{
    const TG_FW_D z = {0}, shift = z + 0x1.8p52;
    TG_FW_D kd = TG_FW_FMA(x, z + 0x1.71547652b82fep+4, shift);
    *kb = (TG_FW_U)kd;
    kd = kd - shift;
    x = TG_FW_FMA(-kd, z + 0x1.62e42fefa39efp-5, x);
    return TG_FW_FMA(-kd, z + 0x1.abc9e3b39803fp-60, x);
}
__attribute__((always_inline)) static inline void TG_FW_(tg__exp_reducev)(TG_FW_D x[TG_EXPV_U], TG_FW_U kb[TG_EXPV_U])
{
    TG_EXPV_ALL(x[k_] = TG_FW_(tg__exp_reduce)(x[k_], &kb[k_]));
}
/* 2^(k/16) of the reduction's kb: the table entry 2^(j/16) with m added to
 * its exponent ((kb >> 4) << 52, 2^47 shifted out) */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__exp_scale)(TG_FW_U kb, const TG_FW_D tab[6])
{
    return (TG_FW_D)((TG_FW_U)TG_FW_EXP_TAB(tab, kb) + ((kb >> 4) << 52));
}
/* (e^r − 1)/r by its Taylor polynomial to degree 5, 1 + r/2 + … + r^5/720,
 * in fmas */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__expm1_quot)(TG_FW_D r)
{
    const TG_FW_D z = {0};
    TG_FW_D p = TG_FW_FMA(z + 1.0 / 720, r, z + 1.0 / 120);
    p = TG_FW_FMA(p, r, z + 1.0 / 24);
    p = TG_FW_FMA(p, r, z + 1.0 / 6);
    p = TG_FW_FMA(p, r, z + 0.5);
    return TG_FW_FMA(p, r, z + 1.0);
}
/* e^x for x in [-128, 128] in place, fast: the reduction's r, e^r by its
 * degree-5 Taylor polynomial in fmas (truncation below r^6/720 < 2^-42.7 of
 * it), times the scale 2^(k/16). E: 2^-42.5 of |v|. */
__attribute__((always_inline)) static inline void TG_FW_(tg__exp_fastv)(TG_FW_D x[TG_EXPV_U], const TG_FW_D tab[6])
{
    const TG_FW_D z = {0};
    TG_FW_D p[TG_EXPV_U];
    TG_FW_U kb[TG_EXPV_U];
    TG_FW_(tg__exp_reducev)(x, kb);
    TG_EXPV_ALL(p[k_] = TG_FW_FMA(z + 1.0 / 120, x[k_], z + 1.0 / 24));
    TG_EXPV_ALL(p[k_] = TG_FW_FMA(p[k_], x[k_], z + 1.0 / 6));
    TG_EXPV_ALL(p[k_] = TG_FW_FMA(p[k_], x[k_], z + 0.5));
    TG_EXPV_ALL(p[k_] = TG_FW_FMA(p[k_], x[k_], z + 1.0));
    TG_EXPV_ALL(p[k_] = TG_FW_FMA(p[k_], x[k_], z + 1.0));
    TG_EXPV_ALL(x[k_] = TG_FW_(tg__exp_scale)(kb[k_], tab) * p[k_]);
}
/* The fast paths' w, TG_FW_(tg__<f>_fastw)(x, w, &f, tab): w from the
 * arguments x (fp64), lanes flagged in f (each flags the arguments it
 * leaves to the exact code, and the NaN arguments its w does not show: but
 * sin, whose NaNs the rows defer, and erf, gelu and softplus, whose rows
 * test every lane for NaN themselves, TG_FAST_LANES and TG_A2_ROW). */
/* e^x, the exp rows': the exact code's clamp to ±128; k = 16m + j as the
 * fast e^x's, r = x − k·ln2/16 by one fma (the double ln2/16 within
 * 2^-58.5 of it and |k| < 2^11.6: r within 2^-46.9 of x − k·ln2/16, and in
 * [−A, A], A = (ln2/32)(1 + 2^-20)); e^r by the degree-4 polynomial minimax
 * for relative error on [−A, A] (tools/exp_minimax.py: within 2^-38.55 of
 * e^r), in fmas; times the scale 2^(k/16). E 2^-38.5 of |v|: 2^14.5 ulps of
 * w at most, inside the rows' band of 2^TG_FAST_LOG2T_EXP (tg_ops.c), whose
 * lanes take the element form one by one (about 1 in 2^13). One fma in the
 * reduction and one degree fewer than tg__exp_fastv's: u05_exp_f32
 * (bench/probes) 0.39 -> 0.36 ms on AVX-512. */
__attribute__((always_inline)) static inline void TG_FW_(tg__exp_fastw)(const TG_FW_D x[TG_EXPV_U], TG_FW_D w[TG_EXPV_U],
                                                                        TG_FW_M *f, const TG_FW_D tab[6])
{
    const TG_FW_D z = {0}, shift = z + 0x1.8p52;
    TG_FW_D r[TG_EXPV_U], kd[TG_EXPV_U];
    TG_FW_U kb[TG_EXPV_U];
    TG_EXPV_ALL(*f |= TG_FW_NAN(x[k_]));
    TG_EXPV_ALL(r[k_] = x[k_]);
    TG_FW_CLAMP(r, 128.0);
    TG_EXPV_ALL(kd[k_] = TG_FW_FMA(r[k_], z + 0x1.71547652b82fep+4, shift));
    TG_EXPV_ALL(kb[k_] = (TG_FW_U)kd[k_]);
    TG_EXPV_ALL(kd[k_] = kd[k_] - shift);
    TG_EXPV_ALL(r[k_] = TG_FW_FMA(-kd[k_], z + 0x1.62e42fefa39efp-5, r[k_]));
    TG_EXPV_ALL(w[k_] = TG_FW_FMA(z + 0x1.5553a09f90216p-5, r[k_], z + 0x1.5557e54b81573p-3));
    TG_EXPV_ALL(w[k_] = TG_FW_FMA(w[k_], r[k_], z + 0x1.00000005bdd27p-1));
    TG_EXPV_ALL(w[k_] = TG_FW_FMA(w[k_], r[k_], z + 0x1.fffffffb13746p-1));
    TG_EXPV_ALL(w[k_] = TG_FW_FMA(w[k_], r[k_], z + 0x1.ffffffffffe6ep-1));
    TG_EXPV_ALL(w[k_] = TG_FW_(tg__exp_scale)(kb[k_], tab) * w[k_]);
}
/* ln x: x = 2^k·z with z in [0.6875, 1.375) (x's bits less 0.6875's: k
 * their top 12 bits, arithmetic; z the rest), z's interval i (bits 47-51 of
 * that difference) picks invc ~ 1/c and logc = -ln(invc) from
 * tg_log_tab.h, r = z·invc − 1 by one fma (|r| < 2^-6, or 2^-5 in the two
 * intervals next to 1, where invc = 1 and logc = 0, so no term cancels a
 * small result), then ln x = k·ln2 + logc + log1p(r), log1p(r) = r +
 * r²·P(r) by its degree-9 Taylor polynomial in fmas, Estrin's order
 * (truncation below |r|^9/10 < 2^-48 of it). Where k ≠ 0 or c ≠ 1, |v| ≥
 * 0.015 and the terms' roundings (ln2's too, |k| ≤ 150) stay below 2^-50
 * of it: E 2^-47 of |v|. No division (the exact code's s = f/(2 + f)). One
 * vector's chain at a time: on AVX-512 the statement-across-vectors form
 * kept ~56 vectors live and spilled (0.62 ns an element against 0.51).
 * Arguments not positive and finite are flagged: the exact code's
 * selects. */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__log_fast)(TG_FW_D x, TG_FW_M *f)
{
    const TG_FW_D z0 = {0};
    const TG_FW_U t = (TG_FW_U)x - 0x3fe6000000000000ull, i = t >> 47;
    const TG_FW_D z = (TG_FW_D)((TG_FW_U)x - (t & 0xfff0000000000000ull));
    const TG_FW_D invc = TG_FW_LOG_TAB(0, i), logc = TG_FW_LOG_TAB(1, i);
    /* k as a double: its two's complement added to 1.5·2^52's bits */
    const TG_FW_D kd = (TG_FW_D)((TG_FW_U)(z0 + 0x1.8p52) + (TG_FW_U)((TG_FW_I)t >> 52)) - 0x1.8p52;
    const TG_FW_D r = TG_FW_FMA(z, invc, z0 - 1.0), r2 = r * r, r4 = r2 * r2;
    const TG_FW_D hi = TG_FW_FMA(kd, z0 + 0x1.62e42fefa39efp-1, logc) + r; /* k·ln2 + logc + r */
    const TG_FW_D p01 = TG_FW_FMA(r2, TG_FW_FMA(r, z0 + 1.0 / 5, z0 - 0.25), TG_FW_FMA(r, z0 + 1.0 / 3, z0 - 0.5));
    const TG_FW_D p23 =
        TG_FW_FMA(r2, TG_FW_FMA(r, z0 + 1.0 / 9, z0 - 0.125), TG_FW_FMA(r, z0 + 1.0 / 7, z0 - 1.0 / 6));
    *f |= TG_FW_(tg__not_pos_finite)(x);
    return TG_FW_FMA(r2, TG_FW_FMA(r4, p23, p01), hi);
}
__attribute__((always_inline)) static inline void TG_FW_(tg__log_fastw)(const TG_FW_D x[TG_EXPV_U], TG_FW_D w[TG_EXPV_U],
                                                                        TG_FW_M *f, const TG_FW_D tab[6])
{
    (void)tab;
    TG_EXPV_ALL(w[k_] = TG_FW_(tg__log_fast)(x[k_], f));
}
/* 1/√x: y0 by TG_FW_RSQRT0 (AVX-512: vrsqrt14pd, within 2^-14 of 1/√x;
 * AVX2: vrsqrtps, within 1.5·2^-12: their documented bounds; the bits below
 * are the vendor's, which can move w but not the result, w being checked),
 * then Newton steps y + y·(1/2 − (x/2)·y·y) in fmas until within 2^-50:
 * from 2^-14, within 1.5·(2^-14)² + 2^-51 after the first and 2^-50 after
 * the second (from 2^-11, a third); the exact code's four steps from its
 * integer guess end within 2^-50.5 too: E 2^-49 of |v|. |v| ≥ 2^-64 (x ≤
 * FLT_MAX), so the check needs no subnormal grid. Arguments not positive
 * and finite are flagged: the exact code's selects. */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__rsqrt_fast)(TG_FW_D x, TG_FW_M *f)
{
    const TG_FW_D z0 = {0}, h = 0.5 * x;
    TG_FW_D y = TG_FW_RSQRT0(x, f);
    *f |= TG_FW_(tg__not_pos_finite)(x);
    _Pragma("GCC unroll 4") for (int s_ = 0; s_ < TG_FW_RSQRT_STEPS; s_++)
        y = TG_FW_FMA(y, TG_FW_FMA(-(h * y), y, z0 + 0.5), y);
    return y;
}
__attribute__((always_inline)) static inline void TG_FW_(tg__rsqrt_fastw)(const TG_FW_D x[TG_EXPV_U],
                                                                          TG_FW_D w[TG_EXPV_U], TG_FW_M *f,
                                                                          const TG_FW_D tab[6])
{
    (void)tab;
    TG_EXPV_ALL(w[k_] = TG_FW_(tg__rsqrt_fast)(x[k_], f));
}
/* tanh x: the exact code's clamp to ±20 and u = 2x; expm1(u) = t for every
 * u as fma(s, q, s − 1): the fast e^x's k, r and scale s = 2^(j/16)·2^m, q
 * = e^r − 1 by its degree-6 Taylor polynomial r·(1 + r/2 + … + r^5/720)
 * (truncation below r^6/5040 < 2^-45.4 of it, |r| ≤ ln2/32), s − 1 exact
 * where s is in [1/2, 2]. k = 0: t = q. Where the terms' signs differ (k =
 * ±1 nearest), |s·q| ≤ 1.03·|t| and the sum of their sizes ≤ 3.1·|t|, so t
 * within 2^-45 of expm1(u), the roundings included. Then t/(t + 2) takes
 * 2/(t + 2) ≤ 2 times t's relative error (t ≥ −1), the division correctly
 * rounded; with the exact code's own error, E 2^-43 of |v|. One path for
 * every u (the exact code's two, its polynomial below |u| = 0.35 and e^u −
 * 1 above, both on every lane: 0.67 ns an element against 0.48 on
 * AVX-512). */
__attribute__((always_inline)) static inline void TG_FW_(tg__tanh_fastw)(const TG_FW_D x[TG_EXPV_U],
                                                                         TG_FW_D w[TG_EXPV_U], TG_FW_M *f,
                                                                         const TG_FW_D tab[6])
{
    TG_FW_D u[TG_EXPV_U], q[TG_EXPV_U];
    TG_FW_U kb[TG_EXPV_U];
    TG_EXPV_ALL(*f |= TG_FW_NAN(x[k_]));
    TG_EXPV_ALL(u[k_] = x[k_]);
    TG_FW_CLAMP(u, 20.0);
    TG_EXPV_ALL(u[k_] = 2.0 * u[k_]);
    TG_FW_(tg__exp_reducev)(u, kb); /* r */
    TG_EXPV_ALL(q[k_] = TG_FW_(tg__expm1_quot)(u[k_]) * u[k_]);
    TG_EXPV_ALL(u[k_] = TG_FW_(tg__exp_scale)(kb[k_], tab)); /* s */
    TG_EXPV_ALL(q[k_] = TG_FW_FMA(u[k_], q[k_], u[k_] - 1.0)); /* t */
    TG_EXPV_ALL(w[k_] = q[k_] / (q[k_] + 2.0));
    /* x's sign on w: t = fma(1, -0, +0) is +0 for x = -0 (tanh(-0) is -0);
     * every other w already has x's sign (tanh is odd, and 0 only at 0) */
    TG_EXPV_ALL(w[k_] = (TG_FW_D)((TG_FW_U)w[k_] | ((TG_FW_U)x[k_] & 0x8000000000000000ull)));
}
/* sin x for |x| ≤ 823549 (the row gives larger, infinite and NaN
 * arguments to the element form): its own reduction by π/2 in fmas, k =
 * round(2x/π) (the quadrant), r = x − k·P1 − k·P2 with P1 + P2 = π/2 to
 * 2^-107 (x − k·P1 exact: a multiple of 2^-52 below 1; |k| < 2^20, so
 * within 2^-87 + 2^-53·|r| of x − k·π/2, and |r| > 2^-28 for every fp32 x
 * there), as close as the exact code's three-part r; then the two
 * polynomials in z = r² by fmas, cos to degree 14 and sin to 13
 * (truncation below 2^-49.8 and 2^-45.2 of each), the quadrant's selected
 * and negated: E 2^-45 of |v|. Against the exact code's reduction and
 * degrees (16, 15): 0.53 ns an element → 0.49 on AVX-512. */
__attribute__((always_inline)) static inline void TG_FW_(tg__sin_fastw)(const TG_FW_D x[TG_EXPV_U], TG_FW_D w[TG_EXPV_U],
                                                                        TG_FW_M *f, const TG_FW_D tab[6])
{
    const TG_FW_D z0 = {0};
    const double *const c = tg_math_inv_fact;
    TG_FW_D r[TG_EXPV_U], zz[TG_EXPV_U], cs[TG_EXPV_U];
    TG_FW_U q[TG_EXPV_U];
    (void)f;
    (void)tab;
    TG_EXPV_ALL(cs[k_] = TG_FW_FMA(x[k_], z0 + 0x1.45f306dc9c883p-1, z0 + 0x1.8p52));
    TG_EXPV_ALL(q[k_] = (TG_FW_U)cs[k_]);
    TG_EXPV_ALL(cs[k_] = cs[k_] - 0x1.8p52);
    TG_EXPV_ALL(r[k_] = TG_FW_FMA(-cs[k_], z0 + 0x1.921fb54442d18p+0, x[k_]));
    TG_EXPV_ALL(r[k_] = TG_FW_FMA(-cs[k_], z0 + 0x1.1a62633145c07p-54, r[k_]));
    TG_EXPV_ALL(zz[k_] = r[k_] * r[k_]);
    /* ±1/n!, the sign + where (n/2) is even, as the exact code's */
#define TG_SIN_C(n) (z0 + (((n) / 2) & 1 ? -c[n] : c[n]))
    TG_EXPV_ALL(cs[k_] = TG_FW_FMA(zz[k_], TG_SIN_C(14), TG_SIN_C(12)));
    TG_EXPV_ALL(w[k_] = TG_FW_FMA(zz[k_], TG_SIN_C(13), TG_SIN_C(11)));
    _Pragma("GCC unroll 5") for (int n_ = 10; n_ >= 2; n_ -= 2) {
        TG_EXPV_ALL(cs[k_] = TG_FW_FMA(zz[k_], cs[k_], TG_SIN_C(n_)));
        TG_EXPV_ALL(w[k_] = TG_FW_FMA(zz[k_], w[k_], TG_SIN_C(n_ - 1)));
    }
#undef TG_SIN_C
    TG_EXPV_ALL(cs[k_] = TG_FW_FMA(zz[k_], cs[k_], z0 + c[0]));
    TG_EXPV_ALL(w[k_] = r[k_] * w[k_]);
    TG_EXPV_ALL(w[k_] = TG_FW_PICK(-(q[k_] & 1), cs[k_], w[k_]));
    TG_EXPV_ALL(w[k_] = TG_FW_PICK(-((q[k_] >> 1) & 1), -w[k_], w[k_]));
}
/* y = e^n for n in [-128, 0], fast: the reduction's r, e^r's degree-6
 * Taylor polynomial 1 + r·(e^r − 1)/r (truncation below r^7/5040 <
 * 2^-50.8 of it), times 2^(k/16): within 2^-50.5 of e^n */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__exp6_fast)(TG_FW_D n, const TG_FW_D tab[6])
{
    TG_FW_U kb;
    const TG_FW_D r = TG_FW_(tg__exp_reduce)(n, &kb);
    return TG_FW_(tg__exp_scale)(kb, tab) * TG_FW_FMA(TG_FW_(tg__expm1_quot)(r), r, (TG_FW_D){0} + 1.0);
}
/* softplus x = max(x, 0) + log1p(y), y = e^-|x| (the exact code's terms):
 * y by the degree-6 e^x (-|x| clamped at -128); u = 1 + y rounded and c = y
 * − (u − 1) its rounding error, exact; log1p(y) = ln u + c/u, ln u by the
 * fast ln (u in [1, 2]) and c/u as c·(2 − u), off by c·(u − 1)²/u, below
 * 2^-52 of log1p(y) ≥ y·ln 2; log1p(y) takes at most y's relative error.
 * The terms have like signs: E 2^-46 of |v|. Where |x| > 128 both v and w
 * are max(x, 0) plus below 2^-184: x itself, or below fp32's least half
 * step (+0). The ln never flags a u in [1, 2]; the row gives NaN lanes, and
 * lanes near a boundary, to the element form. The two halves each run
 * across the vectors: on AVX-512 one chain of both a vector at a time is
 * too long for the out-of-order window (1.25 ns an element against
 * 0.76–0.83). */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__softplus_tail)(TG_FW_D x, TG_FW_D y, TG_FW_M *f)
{
    const TG_FW_D z = {0}, u = 1.0 + y, c = y - (u - 1.0);
    return TG_FW_MAX(x, z) + TG_FW_FMA(c, 2.0 - u, TG_FW_(tg__log_fast)(u, f));
}
__attribute__((always_inline)) static inline void TG_FW_(tg__softplus_fastw)(const TG_FW_D x[TG_EXPV_U],
                                                                             TG_FW_D w[TG_EXPV_U], TG_FW_M *f,
                                                                             const TG_FW_D tab[6])
{
    const TG_FW_D z = {0};
    TG_EXPV_ALL(w[k_] = -(TG_FW_D)((TG_FW_U)x[k_] & 0x7fffffffffffffffull));
    TG_EXPV_ALL(w[k_] = TG_FW_(tg__exp6_fast)(TG_FW_MAX(z - 128.0, w[k_]), tab));
    TG_EXPV_ALL(w[k_] = TG_FW_(tg__softplus_tail)(x[k_], w[k_], f));
}
/* erf and gelu (erf form): their exact rows run erf's series and erfc's
 * continued fraction per lane (tens of ns an element). The fast path takes
 * erfc(t) for t ≥ 0 as erfcx(t)·e^(-t·t), erfcx(t) = e^(t²)·erfc(t) by a
 * degree-15 polynomial on t's unit interval (tg_erfcx_tab.h, written by
 * tools/erfcx_table.py: within 2^-45.8 of erfcx on each of [0, 11)), e^(-t·t)
 * by the fast e^x of the same rounded t·t the exact code exponentiates:
 * erfc within 2^-42.3. The exact code's own value is further from erfc near
 * t = 2 (1 − its series there cancels about 2^-41 of erfc), so the band is
 * 2^16 ulps (2^-37 of |w| or more), and a flagged lane (about 1 in 2^12)
 * takes the element form alone rather than its step: the exact rows'
 * steps cost about 30 times the fast ones. Exhaustive runs: 0 differ, also
 * with a band of 2^11; with the check removed, 6 of erf and 8388645 of gelu
 * (all but 37 tiny arguments, x/2 a tie between subnormals). */
/* erfc(t) for t in [0, 11) in e, fast (t within the table's range: callers clamp) */
__attribute__((always_inline)) static inline void TG_FW_(tg__erfc_fastv)(const TG_FW_D t[TG_EXPV_U], TG_FW_D e[TG_EXPV_U],
                                                                  const TG_FW_D tab[6])
{
    const TG_FW_D shift = (TG_FW_D){0} + 0x1.8p52;
    TG_FW_D u[TG_EXPV_U], c[TG_EXPV_U];
    TG_FW_U ib[TG_EXPV_U];
    /* i = round(t − 0.5) (t's interval; at an integer t either side's
     * polynomial holds), u = t − 0.5 − i */
    TG_EXPV_ALL(u[k_] = t[k_] - 0.5);
    TG_EXPV_ALL(c[k_] = u[k_] + shift);
    TG_EXPV_ALL(ib[k_] = (TG_FW_U)c[k_]);
    TG_EXPV_ALL(c[k_] = c[k_] - shift);
    TG_EXPV_ALL(u[k_] = u[k_] - c[k_]);
    TG_EXPV_ALL(c[k_] = TG_FW_ERFC_TAB(15, ib[k_]));
    for (int q_ = 14; q_ >= 0; q_--)
        TG_EXPV_ALL(c[k_] = TG_FW_FMA(c[k_], u[k_], TG_FW_ERFC_TAB(q_, ib[k_])));
    TG_EXPV_ALL(e[k_] = -(t[k_] * t[k_]));
    TG_FW_(tg__exp_fastv)(e, tab);
    TG_EXPV_ALL(e[k_] = e[k_] * c[k_]);
}
/* |x| clamped to [0, 10.99] (a NaN stays: flagged) */
__attribute__((always_inline)) static inline TG_FW_D TG_FW_(tg__abs_clamp_erf)(TG_FW_D x)
{
    const TG_FW_D z = {0};
    x = (TG_FW_D)((TG_FW_U)x & 0x7fffffffffffffffull);
    return TG_FW_MIN(z + 10.99, x);
}
/* erf x: for |x| ≤ 0.5 its Maclaurin series (2/√π)·x·Σ (−x²)^n/(n!(2n + 1)) to
 * n = 10 in fmas (truncation below 2^-51 of it), else 1 − erfc(|x|), x's
 * sign put back (±0 stays) */
__attribute__((always_inline)) static inline void TG_FW_(tg__erf_fastw)(const TG_FW_D x[TG_EXPV_U], TG_FW_D w[TG_EXPV_U],
                                                                TG_FW_M *f, const TG_FW_D tab[6])
{
    const TG_FW_D z0 = {0};
    TG_FW_D a[TG_EXPV_U], e[TG_EXPV_U], s[TG_EXPV_U], p[TG_EXPV_U];
    double cn[11];
    (void)f;
    tg__erf_coefs(cn);
    TG_EXPV_ALL(a[k_] = TG_FW_(tg__abs_clamp_erf)(x[k_]));
    TG_FW_(tg__erfc_fastv)(a, e, tab);
    TG_EXPV_ALL(s[k_] = a[k_] * a[k_]);
    TG_EXPV_ALL(p[k_] = TG_FW_FMA(s[k_], z0 + cn[10], z0 + cn[9]));
    for (int n_ = 8; n_ >= 0; n_--)
        TG_EXPV_ALL(p[k_] = TG_FW_FMA(p[k_], s[k_], z0 + cn[n_]));
    TG_EXPV_ALL(p[k_] = a[k_] * p[k_]);
    TG_EXPV_ALL(w[k_] = TG_FW_PICK((TG_FW_U)(a[k_] <= 0.5), p[k_], 1.0 - e[k_]));
    TG_EXPV_ALL(w[k_] = (TG_FW_D)((TG_FW_U)w[k_] | ((TG_FW_U)x[k_] & 0x8000000000000000ull)));
}
/* gelu x = x·Φ(x), t = x/√2 (the exact code's product): Φ = 1 − erfc(t)/2
 * for t ≥ 0, erfc(−t)/2 below; |t| clamped to 10.99 (x·Φ then rounds to x
 * above 15.5, as the element form's cut at 10 gives, and to −0 down to
 * −40, below which the element form's cut is taken) */
__attribute__((always_inline)) static inline void TG_FW_(tg__gelu_fastw)(const TG_FW_D x[TG_EXPV_U], TG_FW_D w[TG_EXPV_U],
                                                                 TG_FW_M *f, const TG_FW_D tab[6])
{
    TG_FW_D t[TG_EXPV_U], a[TG_EXPV_U], e[TG_EXPV_U];
    (void)f;
    TG_EXPV_ALL(t[k_] = x[k_] * 0x1.6a09e667f3bcdp-1);
    TG_EXPV_ALL(a[k_] = TG_FW_(tg__abs_clamp_erf)(t[k_]));
    TG_FW_(tg__erfc_fastv)(a, e, tab);
    TG_EXPV_ALL(e[k_] = 0.5 * e[k_]);
    TG_EXPV_ALL(e[k_] = TG_FW_PICK((TG_FW_U)(t[k_] >= 0.0), 1.0 - e[k_], e[k_]));
    TG_EXPV_ALL(w[k_] = x[k_] * e[k_]);
    TG_EXPV_ALL(w[k_] = TG_FW_PICK((TG_FW_U)(x[k_] < -40.0), -(TG_FW_D){0}, w[k_]));
}
