/* tg_i32_rows.h — the int32 rows of tg_alu.c at one SIMD width, for
 * tg_alu.c, which includes it once per body (x86-64 without -march: the
 * baseline and AVX2, picked at run time, tg_simd.h; elsewhere one body).
 * In:  TG_I32_FN(name) (the body's name for a function) and tg_alu.c's
 *      helpers and TG_I32_OPS / TG_F32_OPS loops.
 * Out: static TG_I32_FN(tg__tt_i32) and TG_I32_FN(tg__ts_i32), the bodies of
 *      tg_tensor_tensor_i32 and tg_tensor_scalar_i32 (tg_alu.h), and their
 *      block helpers (a block's load, store and fp32 fallback) at the same
 *      width: compiled outside the AVX2 body, the blocks' widening loads and
 *      clamping stores ran as SSE2 (bench/probes y02_int4_pack). The loops
 *      have constant trip counts and independent lanes, so each body gives
 *      the same bits at its width (tests/unit/test_alu.c runs both). */

/* x[0 .. TG_I32_BLOCK-1] = the m elements of dtype st (tg_alu_i32_src) at p
 * widened to int32, then zeros (in every op's range). A whole block (m =
 * TG_I32_BLOCK, all but a row's last) reads with no test an element, so the
 * loop vectorizes (the tested form ran scalar: int8 sources, bench/probes
 * y02_int4_pack). */
#define TG_I32_LOAD_(M, RD)                                                                                 \
    do {                                                                                                    \
        for (int j = 0; j < TG_I32_BLOCK; j++)                                                              \
            x[j] = (M) == TG_I32_BLOCK || j < (M) ? RD : 0;                                                 \
    } while (0)
#define TG_I32_LOAD(RD)                                                                                     \
    do {                                                                                                    \
        if (m == TG_I32_BLOCK)                                                                              \
            TG_I32_LOAD_(TG_I32_BLOCK, RD);                                                                 \
        else                                                                                                \
            TG_I32_LOAD_(m, RD);                                                                            \
    } while (0)
static inline void TG_I32_FN(tg__i32_load)(int32_t *x, const uint8_t *p, int m, tg_dtype st)
{
    switch (st) {
    case TG_UINT8: TG_I32_LOAD((int32_t)p[j]); break;
    case TG_INT8: TG_I32_LOAD((int32_t)(int8_t)p[j]); break;
    case TG_UINT16: TG_I32_LOAD(tg__ld_u16(p, j)); break;
    case TG_INT16: TG_I32_LOAD((int32_t)(int16_t)tg__ld_u16(p, j)); break;
    default: TG_I32_LOAD(tg__ld_i32(p, j)); break;
    }
}
#undef TG_I32_LOAD
#undef TG_I32_LOAD_

/* The first m of TG_I32_BLOCK int32 results r to dst dtype dt at d, each
 * as tg_wr_<dt> rounds its fp32 value (|r| <= 2^24: exact in fp32). */
static void TG_I32_FN(tg__i32_store)(uint8_t *d, tg_dtype dt, const int32_t *r, int m)
{
    /* int32 and uint8 as the whole-row path stores them (TG_ST_I32, TG_ST_U8:
     * the fp32 value's conversion, for an integer of at most 2^24); through
     * tg_row_from_f32 they were an element at a time (int4 packing from int8
     * sources, bench/probes y02_int4_pack) */
    if (dt == TG_INT32) {
        memcpy(d, r, (size_t)m * sizeof *r);
        return;
    }
    /* the other integer dtypes likewise: the value clamped to the dtype's
     * range (int16 results, bench/probes z06_pcm_mix_i16), a whole block
     * in a constant-count loop, then moved */
#define TG_I32_CLAMP_ST(T, LO, HI)                                                                          \
    do {                                                                                                    \
        T v_[TG_I32_BLOCK];                                                                                 \
        for (int j = 0; j < TG_I32_BLOCK; j++)                                                              \
            v_[j] = (T)(r[j] < (LO) ? (LO) : r[j] > (HI) ? (HI) : r[j]);                                    \
        memcpy(d, v_, (size_t)m * sizeof(T));                                                               \
        return;                                                                                             \
    } while (0)
    switch (dt) {
    case TG_UINT8: TG_I32_CLAMP_ST(uint8_t, 0, 255);
    case TG_INT8: TG_I32_CLAMP_ST(int8_t, -128, 127);
    case TG_INT16: TG_I32_CLAMP_ST(int16_t, -32768, 32767);
    case TG_UINT16: TG_I32_CLAMP_ST(uint16_t, 0, 65535);
    case TG_UINT32: TG_I32_CLAMP_ST(uint32_t, 0, INT32_MAX);
    default: break;
    }
#undef TG_I32_CLAMP_ST
    float f[TG_I32_BLOCK];
    for (int j = 0; j < TG_I32_BLOCK; j++)
        f[j] = (float)r[j];
    tg_row_from_f32(d, dt, f, (size_t)m);
}

/* The blocks of one tensor_tensor row not run whole: x, y the block's
 * operands (m of them, zeros after). */
static void TG_I32_FN(tg__tt_block)(tg_alu_op op, uint32_t bound, uint8_t *d, tg_dtype dt, const int32_t *x, const int32_t *y,
                         int m)
{
    if (bound && tg__i32_in((const uint8_t *)x, TG_I32_BLOCK, bound) &&
        tg__i32_in((const uint8_t *)y, TG_I32_BLOCK, bound)) {
        int32_t r[TG_I32_BLOCK];
        TG_I32_OPS(op, TG_I32_BLOCK, TG_ST_R, x[j], y[j])
        TG_I32_FN(tg__i32_store)(d, dt, r, m);
        return;
    }
    float f[TG_I32_BLOCK];
#define F32_X_ (float)x[j]
#define F32_Y_ (float)y[j]
    TG_F32_OPS(op)
#undef F32_X_
#undef F32_Y_
    tg_row_from_f32(d, dt, f, (size_t)m);
}

static void TG_I32_FN(tg__tt_i32)(tg_alu_op op, uint8_t *d, tg_dtype dt, const uint8_t *a, const uint8_t *b, tg_dtype st,
                                  int64_t n)
{
    const uint32_t bound = tg__i32_bound_to(op, dt);
    const int64_t es = (int64_t)tg_dtype_size(dt), ss = (int64_t)tg_dtype_size(st), nb = n - n % TG_I32_BLOCK;
    const int straight = bound && TG_I32_STRAIGHT_DT(dt);
    int64_t i = 0;
    if (straight && st == TG_INT32 && tg__i32_in(a, nb, bound) && tg__i32_in(b, nb, bound)) {
        TG_I32_STRAIGHT(op, nb, tg__ld_i32(a, j), tg__ld_i32(b, j))
        i = nb;
    } else if (straight && st == TG_UINT8) { /* every byte in every op's range */
        TG_I32_STRAIGHT(op, nb, (int32_t)a[j], (int32_t)b[j])
        i = nb;
    }
    for (; i < n; i += TG_I32_BLOCK) {
        const int m = n - i < TG_I32_BLOCK ? (int)(n - i) : TG_I32_BLOCK;
        int32_t x[TG_I32_BLOCK], y[TG_I32_BLOCK];
        TG_I32_FN(tg__i32_load)(x, a + i * ss, m, st);
        TG_I32_FN(tg__i32_load)(y, b + i * ss, m, st);
        TG_I32_FN(tg__tt_block)(op, bound, d + i * es, dt, x, y, m);
    }
}

/* 1 when the nb int32 at p are in stage k's range: [-bound, bound), or a
 * shift's [0, bound) */
#define TG_STAGE_IN(p, nb, k) (shift[k] ? tg__u32_in(p, nb, bound[k]) : tg__i32_in(p, nb, bound[k]))

static void TG_I32_FN(tg__ts_i32)(uint8_t *d, tg_dtype dt, const uint8_t *s, tg_dtype st, int64_t n, int nst,
                                  const tg_alu_op op[2], const float c[2], const int rev[2])
{
    uint32_t bound[2] = {0, 0};
    int32_t ci[2] = {0, 0};
    int shift[2] = {0, 0};
    int ok = nst >= 1 && nst <= 2;
    for (int k = 0; k < nst && ok; k++) {
        shift[k] = op[k] == TG_ALU_LEFT_SHIFT || op[k] == TG_ALU_RIGHT_SHIFT;
        bound[k] = shift[k] ? tg__shift_lim(op[k], c[k], rev[k]) : tg__i32_bound_to(op[k], dt);
        ok = shift[k] ? bound[k] != 0 : tg__c_in(c[k], bound[k]);
        ci[k] = ok ? (int32_t)c[k] : 0;
    }
    const int64_t es = (int64_t)tg_dtype_size(dt), ss = (int64_t)tg_dtype_size(st), nb = n - n % TG_I32_BLOCK;
    const int straight = ok && nst == 1 && !rev[0] && TG_I32_STRAIGHT_DT(dt);
    int64_t i = 0;
    /* one stage, the row in range: straight from src to dst */
    if (straight && st == TG_INT32 && TG_STAGE_IN(s, nb, 0)) {
        const int32_t y = ci[0];
        TG_I32_STRAIGHT(op[0], nb, tg__ld_i32(s, j), y)
        i = nb;
    } else if (straight && st == TG_UINT8 && bound[0] > 255) { /* every byte in range */
        const int32_t y = ci[0];
        TG_I32_STRAIGHT(op[0], nb, (int32_t)s[j], y)
        i = nb;
    }
    for (; i < n; i += TG_I32_BLOCK) {
        const int m = n - i < TG_I32_BLOCK ? (int)(n - i) : TG_I32_BLOCK;
        int32_t x[TG_I32_BLOCK], r[TG_I32_BLOCK];
        TG_I32_FN(tg__i32_load)(x, s + i * ss, m, st);
        int fast = ok;
        for (int k = 0; k < nst && fast; k++) {
            const int32_t *v = k ? r : x;
            fast = TG_STAGE_IN((const uint8_t *)v, TG_I32_BLOCK, k);
            if (!fast)
                break;
            const int32_t y = ci[k];
            if (rev[k]) {
                TG_I32_OPS(op[k], TG_I32_BLOCK, TG_ST_R, y, v[j])
            } else {
                TG_I32_OPS(op[k], TG_I32_BLOCK, TG_ST_R, v[j], y)
            }
        }
        if (fast) {
            TG_I32_FN(tg__i32_store)(d + i * es, dt, r, m);
            continue;
        }
        float f[TG_I32_BLOCK];
        for (int j = 0; j < TG_I32_BLOCK; j++)
            f[j] = (float)x[j];
        for (int k = 0; k < nst; k++) {
            const float y = c[k];
#define F32_X_ (rev[k] ? y : f[j])
#define F32_Y_ (rev[k] ? f[j] : y)
            TG_F32_OPS(op[k])
#undef F32_X_
#undef F32_Y_
        }
        tg_row_from_f32(d + i * es, dt, f, (size_t)m);
    }
}
#undef TG_STAGE_IN
