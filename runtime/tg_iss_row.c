/* tg_iss_row.c - the ISS's per-partition-row kernels (tg_iss_row.h): operands
 * staged through small fp32 blocks, a contiguous or strided run at a time
 * with the dtype and op switched outside the loops, then the same per-element
 * helpers (tg_sim.h accessors, tg_ops.h/tg_alu.h math) in the same order as
 * the C simulation, so results stay bit-identical. Freestanding C99. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_iss_row.h"

#include "tg_mem.h"

#include "tg_sim.h"

/* X(TG_ suffix of the dtype, tg_sim.h accessor suffix). */
#define ISS_DTYPES(X)                                                                                      \
    X(FLOAT32, f32) X(TFLOAT32, tf32) X(BFLOAT16, bf16) X(FLOAT16, f16) X(FLOAT8_E4M3, e4m3)              \
    X(FLOAT8_E5M2, e5m2) X(INT8, i8) X(UINT8, u8) X(INT16, i16) X(UINT16, u16) X(INT32, i32) X(UINT32, u32)

/* for (i = 0; i < n; i++) BODY, in chunks of 16 with a constant trip count
 * (which gcc -O2's very-cheap vectorizer accepts; pointers are restrict, so
 * it needs no alias check), then the tail. Same iterations in the same order. */
#define ISS_FOR(i, n, BODY)                                  \
    do {                                                     \
        int64_t i##_c = 0, i##_k;                            \
        for (; i##_c + 16 <= (n); i##_c += 16)               \
            for (i##_k = 0; i##_k < 16; i##_k++) {           \
                i = i##_c + i##_k;                           \
                BODY;                                        \
            }                                                \
        for (i = i##_c; i < (n); i++) {                      \
            BODY;                                            \
        }                                                    \
    } while (0)

/* ---- runs: n elements `step` apart from b ------------------------------------ */

/* Kept out of line: inlined into their callers, gcc loses the restrict
 * qualifiers and leaves the conversion loops scalar. */
#if defined(__GNUC__)
#define ISS_NOINLINE __attribute__((noinline))
#else
#define ISS_NOINLINE
#endif

/* One dtype's case of a run: ELEM(sfx, k) moves element i at offset k. */
#define ISS_RUN_CASE(ID, sfx, ELEM)         \
    case TG_##ID:                           \
        if (step == 1)                      \
            ISS_FOR(i, n, ELEM(sfx, i));    \
        else                                \
            for (i = 0; i < n; i++)         \
                ELEM(sfx, i * step);        \
        break;
#define ISS_RD_ELEM(sfx, k) x[i] = tg_rd_##sfx(b, k)
#define ISS_WR_ELEM(sfx, k) tg_wr_##sfx(b, k, y[i])
#define ISS_RD_CASE(ID, sfx) ISS_RUN_CASE(ID, sfx, ISS_RD_ELEM)
#define ISS_WR_CASE(ID, sfx) ISS_RUN_CASE(ID, sfx, ISS_WR_ELEM)

ISS_NOINLINE static void rd_run(tg_dtype dt, const uint8_t *restrict b, int64_t step, float *restrict x, int64_t n)
{
    int64_t i;
    if (dt == TG_FLOAT32 && step == 1) {
        memcpy(x, b, (size_t)n * sizeof *x);
        return;
    }
    switch (dt) {
        ISS_DTYPES(ISS_RD_CASE)
    default: break; /* the decoder rejects other dtypes */
    }
}

ISS_NOINLINE static void wr_run(tg_dtype dt, uint8_t *restrict b, int64_t step, const float *restrict y, int64_t n)
{
    int64_t i;
    if (dt == TG_FLOAT32 && step == 1) {
        memcpy(b, y, (size_t)n * sizeof *y);
        return;
    }
    switch (dt) {
        ISS_DTYPES(ISS_WR_CASE)
    default: break;
    }
}

/* Elements left in the innermost dim of the walk at *it (n at most). */
static int64_t run_left(const tg_iss_ap *a, const tg_iss_it *it, int64_t n)
{
    int64_t r = a->num[a->nfree - 1] - it->idx[a->nfree - 1];
    return r < n ? r : n;
}

void tg_iss_gather(const tg_iss_ap *a, const uint8_t *r, tg_iss_it *it, float *x, int64_t n)
{
    if (it->fixed) {
        float v;
        int64_t i;
        rd_run(a->dtype, r, 1, &v, 1);
        for (i = 0; i < n; i++)
            x[i] = v;
        return;
    }
    while (n > 0) {
        int64_t k = run_left(a, it, n);
        rd_run(a->dtype, r + it->off * a->esize, a->step[a->nfree - 1], x, k);
        tg_iss_it_adv(a, it, k);
        x += k;
        n -= k;
    }
}

void tg_iss_scatter(const tg_iss_ap *a, uint8_t *r, tg_iss_it *it, const float *y, int64_t n)
{
    while (n > 0) {
        int64_t k = run_left(a, it, n);
        wr_run(a->dtype, r + it->off * a->esize, a->step[a->nfree - 1], y, k);
        tg_iss_it_adv(a, it, k);
        y += k;
        n -= k;
    }
}

void tg_iss_gather_row(const tg_iss_ap *a, int64_t p, float *x)
{
    tg_iss_it it;
    tg_iss_it_init(&it, 0);
    tg_iss_gather(a, tg_iss_row(a, p), &it, x, a->count);
}

void tg_iss_scatter_row(const tg_iss_ap *a, int64_t p, const float *x)
{
    tg_iss_it it;
    tg_iss_it_init(&it, 0);
    tg_iss_scatter(a, tg_iss_row(a, p), &it, x, a->count);
}

/* ---- op loops: the op switched once per block --------------------------------- */

float tg_iss_fold(tg_alu_op op, float r, const float *x, int64_t n)
{
    int64_t i;
    switch (op) {
#define ISS_FOLD_CASE(ID, id)        \
    case TG_ALU_##ID:                \
        for (i = 0; i < n; i++)      \
            r = tg_alu_raw_##id(r, x[i]); \
        break;
        TG_ALU_OPS(ISS_FOLD_CASE)
#undef ISS_FOLD_CASE
    default:
        for (i = 0; i < n; i++)
            r = tg_op_alu_raw(op, r, x[i]);
        break;
    }
    return r;
}

/* y[i] = tg_tensor_tensor(op, a[i], b[i]). */
static void tt_block(tg_alu_op op, const float *restrict a, const float *restrict b, float *restrict y, int64_t n)
{
    int64_t i;
    switch (op) {
#define ISS_TT_CASE(ID, id)                 \
    case TG_ALU_##ID:                       \
        ISS_FOR(i, n, y[i] = tg_alu_##id(a[i], b[i])); \
        break;
        TG_ALU_OPS(ISS_TT_CASE)
#undef ISS_TT_CASE
    default:
        for (i = 0; i < n; i++)
            y[i] = tg_tensor_tensor(op, a[i], b[i]);
        break;
    }
}

/* y[i] = tg_tensor_scalar1(op, x[i], c, rev). */
static void ts_block(tg_alu_op op, const float *restrict x, float c, int rev, float *restrict y, int64_t n)
{
    int64_t i;
    switch (op) {
#define ISS_TS_CASE(ID, id)                    \
    case TG_ALU_##ID:                          \
        if (rev)                               \
            ISS_FOR(i, n, y[i] = tg_alu_##id(c, x[i])); \
        else                                   \
            ISS_FOR(i, n, y[i] = tg_alu_##id(x[i], c)); \
        break;
        TG_ALU_OPS(ISS_TS_CASE)
#undef ISS_TS_CASE
    default:
        for (i = 0; i < n; i++)
            y[i] = tg_tensor_scalar1(op, x[i], c, rev);
        break;
    }
}

/* y[i] = tg_activation(f, x[i], scale, bias), one loop per constant f (the
 * inlined dispatch folds away, so each loop vectorizes). */
static void act_block(tg_act_func f, const float *restrict x, float scale, float bias, float *restrict y,
                      int64_t n)
{
    int64_t i;
    switch (f) {
#define ISS_ACT_CASE(ID, id)            \
    case TG_ACT_##ID:                   \
        ISS_FOR(i, n, y[i] = tg_activation(TG_ACT_##ID, x[i], scale, bias)); \
        break;
        TG_ACT_FUNCS(ISS_ACT_CASE)
#undef ISS_ACT_CASE
    default:
        for (i = 0; i < n; i++)
            y[i] = tg_activation(f, x[i], scale, bias);
        break;
    }
}

/* ---- affine index expressions ------------------------------------------------- */

/* An expression's value over one row as c + k·f (f the flat free index). */
typedef struct iss_aff {
    int64_t c, k; /* constant and f coefficient */
} iss_aff;

/* Bound on every intermediate: far inside int64, so nothing below overflows. */
#define ISS_AFF_LIM ((int64_t)1 << 61)

/* 1 when v stays within ±ISS_AFF_LIM for every f in [0, fmax]. */
static int aff_ok(iss_aff v, int64_t fmax)
{
    int64_t e;
    if (v.c > ISS_AFF_LIM || v.c < -ISS_AFF_LIM || v.k > ISS_AFF_LIM || v.k < -ISS_AFF_LIM)
        return 0;
    if (fmax > 0 && (v.k > ISS_AFF_LIM / fmax || v.k < -ISS_AFF_LIM / fmax))
        return 0;
    e = v.c + v.k * fmax; /* an affine value is extreme at f = 0 or f = fmax */
    return e <= ISS_AFF_LIM && e >= -ISS_AFF_LIM;
}

/* *r = a·b for |a|, |b| ≤ ISS_AFF_LIM when |a·b| ≤ ISS_AFF_LIM; else 0. */
static int mul_lim(int64_t a, int64_t b, int64_t *r)
{
    int64_t m = a < 0 ? -a : a;
    if (m != 0 && (b > ISS_AFF_LIM / m || b < -ISS_AFF_LIM / m))
        return 0;
    *r = a * b;
    return 1;
}

/* Expression `expr` (validated by tg_prog_decode) for partition pidx as
 * c + k·f over f in [0, fmax], when it is affine in f and every intermediate
 * stays within ±ISS_AFF_LIM there: then at each f it equals what tg_prog_eval
 * returns (which cannot fail there). 1 if so, else 0 (evaluate per element). */
static int affine_f(const tg_prog *pg, uint32_t expr, const int64_t *regs, int64_t pidx, int64_t fmax, iss_aff *out)
{
    const uint8_t *x = pg->data + pg->expr_off;
    iss_aff st[TG_ISA_MAX_EXPR_STACK], a, b, r;
    int sp = 0;
    uint32_t off = expr;
    for (;;) {
        uint8_t op = x[off++];
        r.k = 0;
        switch (op) {
        case TG_X_END: *out = st[0]; return 1;
        case TG_X_CONST: r.c = (int64_t)tg_rd_le64(x + off); off += 8; break;
        case TG_X_REG: r.c = regs[x[off++]]; break;
        case TG_X_P: r.c = pidx; break;
        case TG_X_F: r.c = 0; r.k = 1; break;
        case TG_X_NEG: a = st[--sp]; r.c = -a.c; r.k = -a.k; break;
        default:
            b = st[--sp];
            a = st[--sp];
            switch (op) {
            case TG_X_ADD: r.c = a.c + b.c; r.k = a.k + b.k; break;
            case TG_X_SUB: r.c = a.c - b.c; r.k = a.k - b.k; break;
            case TG_X_MUL:
                if (a.k && b.k)
                    return 0; /* quadratic in f */
                if (b.k) {
                    iss_aff t = a;
                    a = b;
                    b = t;
                }
                if (!mul_lim(a.c, b.c, &r.c) || !mul_lim(a.k, b.c, &r.k))
                    return 0;
                break;
            default: /* DIV MOD MIN MAX: only of values constant in f */
                if (a.k || b.k || ((op == TG_X_DIV || op == TG_X_MOD) && b.c == 0))
                    return 0;
                r.c = op == TG_X_DIV ? tg_fdiv(a.c, b.c) : op == TG_X_MOD ? tg_fmod(a.c, b.c)
                    : op == TG_X_MIN ? tg_min(a.c, b.c) : tg_max(a.c, b.c);
                break;
            }
            break;
        }
        if (!aff_ok(r, fmax))
            return 0;
        st[sp++] = r;
    }
}

/* ---- element-wise rows --------------------------------------------------------- */

int tg_iss_overlap(const tg_iss_ap *a, const tg_iss_ap *b)
{
    if (a->space != b->space)
        return 0; /* HBM tensors, SBUF and PSUM are separate memories */
    if (a->space != TG_SPACE_HBM)
        return a->part < b->part + b->pcount && b->part < a->part + a->pcount && a->clo < b->chi && b->clo < a->chi;
    return (uintptr_t)a->lo < (uintptr_t)b->hi && (uintptr_t)b->lo < (uintptr_t)a->hi;
}

/* 1 when a and b visit the same bytes in the same order in every row. */
static int same_walk(const tg_iss_ap *a, const tg_iss_ap *b)
{
    int k;
    if (a->p0 != b->p0 || a->prow != b->prow || a->esize != b->esize || a->nfree != b->nfree ||
        a->count != b->count)
        return 0;
    for (k = 0; k < a->nfree; k++)
        if (a->num[k] != b->num[k] || a->step[k] != b->step[k])
            return 0;
    return 1;
}

/* 1 when a's walk visits strictly increasing offsets (no address twice). */
static int injective(const tg_iss_ap *a)
{
    int64_t span = 1; /* offsets covered by the dims inside k */
    int k;
    for (k = a->nfree - 1; k >= 0; k--) {
        if (a->num[k] == 1)
            continue;
        if (a->step[k] < span)
            return 0;
        span += a->step[k] * (a->num[k] - 1);
    }
    return 1;
}

/* Staging whole blocks of src before writing dst changes nothing when they
 * share no byte, or when element j of both is the same address (then a write
 * only touches the element already read). */
static int block_safe(const tg_iss_ap *d, const tg_iss_ap *s)
{
    return !s || !tg_iss_overlap(d, s) || (s->count == d->count && same_walk(d, s) && injective(d));
}

int64_t tg_iss_ew_block(const tg_iss_ap *d, const tg_iss_ap *s0, const tg_iss_ap *s1)
{
    return block_safe(d, s0) && block_safe(d, s1) ? TG_ISS_BLOCK : 1;
}

/* Element 0 of row p, as fp32. */
static float elem0(const tg_iss_ap *a, int64_t p)
{
    float v;
    rd_run(a->dtype, tg_iss_row(a, p), 1, &v, 1);
    return v;
}

static float scalar_at(const tg_iss_scalar *s, int64_t p) { return s->is_ap ? elem0(&s->ap, p) : s->num; }

/* iota: each element from its expression, converted as from int32. */
static int iota_row(const tg_iss_ew *w, const tg_iss_ap *d, int64_t p)
{
    uint8_t *dr = tg_iss_row(d, p);
    tg_iss_it id;
    iss_aff e;
    int64_t j, v;
    int aff = affine_f(w->prog, w->x0, w->regs, p, d->count - 1, &e);
    tg_iss_it_init(&id, 0);
    for (j = 0; j < d->count; j++) {
        if (aff)
            v = e.c + e.k * j;
        else if (tg_prog_eval(w->prog, w->x0, w->regs, p, j, &v))
            return TG_EPROGRAM;
        (void)tg_iota_cast(dr + id.off * d->esize, d->dtype, 0, v);
        tg_iss_it_adv(d, &id, 1);
    }
    return 0;
}

/* affine_select of n elements from flat index j0: lhs cmp rhs ? x : fill. */
static int select_block(const tg_iss_ew *w, int aff, const iss_aff *l, const iss_aff *r, int64_t p, int64_t j0,
                        const float *x, float *y, int64_t n)
{
    int64_t i, a, b;
    for (i = 0; i < n; i++) {
        int64_t f = j0 + i;
        if (aff) {
            a = l->c + l->k * f;
            b = r->c + r->k * f;
        } else if (tg_prog_eval(w->prog, w->x0, w->regs, p, f, &a) || tg_prog_eval(w->prog, w->x1, w->regs, p, f, &b)) {
            return TG_EPROGRAM;
        }
        y[i] = tg_select(tg_cmp_eval(w->cmp, a, b), x[i], w->value);
    }
    return 0;
}

int tg_iss_ew_row(const tg_iss_ew *w, const tg_iss_ap *d, const tg_iss_ap *s0, const tg_iss_ap *s1, int64_t p,
                  int64_t block)
{
    float x0[TG_ISS_BLOCK], x1[TG_ISS_BLOCK], x2[TG_ISS_BLOCK], y[TG_ISS_BLOCK];
    uint8_t *dr = tg_iss_row(d, p);
    const uint8_t *r0 = s0 ? tg_iss_row(s0, p) : NULL, *r1 = s1 ? tg_iss_row(s1, p) : NULL;
    const uint8_t *r2 = w->s2 ? tg_iss_row(w->s2, p) : NULL;
    tg_iss_it id, i0, i1, i2;
    float c0 = 0.0f, c1 = 0.0f, sum = -0.0f, r = 0.0f; /* -0 + y == y exactly */
    float vals[8];    /* nc_match_replace8: the row's values, read before any write */
    unsigned used = 0; /* ... and the slots claimed so far */
    int64_t j0, n, i;
    iss_aff la = {0, 0}, ra = {0, 0}; /* select: lhs, rhs over the row */
    int aff = 0;                      /* both affine */
    if (w->kind == TG_ISS_IOTA)
        return iota_row(w, d, p);
    tg_iss_it_init(&id, 0);
    tg_iss_it_init(&i0, s0 && s0->count == 1);
    tg_iss_it_init(&i1, s1 && s1->count == 1);
    tg_iss_it_init(&i2, w->s2 && w->s2->count == 1);
    if (w->kind == TG_ISS_TS || w->kind == TG_ISS_ACT || w->kind == TG_ISS_SCAN || w->kind == TG_ISS_STT) {
        c0 = scalar_at(&w->s0, p);
        c1 = w->kind == TG_ISS_SCAN || w->kind == TG_ISS_STT ? 0.0f : scalar_at(&w->s1, p);
        r = c0;
    }
    if (w->kind == TG_ISS_MATCH)
        tg_iss_gather_row(w->vals, p, vals);
    if (w->kind == TG_ISS_SELECT)
        aff = affine_f(w->prog, w->x0, w->regs, p, d->count - 1, &la) &&
              affine_f(w->prog, w->x1, w->regs, p, d->count - 1, &ra);
    if (block < 1 || block > TG_ISS_BLOCK)
        block = 1;
    for (j0 = 0; j0 < d->count; j0 += n) {
        const float *out = y;
        n = d->count - j0 < block ? d->count - j0 : block;
        if (s0)
            tg_iss_gather(s0, r0, &i0, x0, n);
        if (s1)
            tg_iss_gather(s1, r1, &i1, x1, n);
        if (w->s2)
            tg_iss_gather(w->s2, r2, &i2, x2, n);
        switch (w->kind) {
        case TG_ISS_CAST: out = x0; break;
        case TG_ISS_TT: tt_block(w->op0, x0, x1, y, n); break;
        case TG_ISS_RECIP:
            ISS_FOR(i, n, y[i] = tg_act_reciprocal(x0[i]));
            break;
        case TG_ISS_TS:
            ts_block(w->op0, x0, c0, w->rev0, y, n);
            if (w->op1 != TG_ALU_COUNT) {
                ts_block(w->op1, y, c1, w->rev1, x0, n);
                out = x0;
            }
            break;
        case TG_ISS_ACT:
            act_block(w->func, x0, c0, c1, y, n);
            break;
        case TG_ISS_SCAN:
            for (i = 0; i < n; i++) {
                r = tg_op_alu_raw(w->op1, tg_op_alu_raw(w->op0, x0[i], r), x1[i]);
                y[i] = tg_nan_canon(r); /* the chain raw, each output canonical (tg_alu.h) */
            }
            break;
        case TG_ISS_MEMSET:
            for (i = 0; i < n; i++)
                y[i] = w->value;
            break;
        case TG_ISS_STT:
            for (i = 0; i < n; i++)
                y[i] = tg_scalar_tensor_tensor(x0[i], w->op0, c0, w->rev0, w->op1, x1[i]);
            break;
        case TG_ISS_MATCH:
            for (i = 0; i < n; i++)
                y[i] = tg_match8(&used, vals, x0[i], w->value);
            break;
        case TG_ISS_WHERE: /* an operand without a pattern is its number */
            for (i = 0; i < n; i++)
                y[i] = tg_where(s0 ? x0[i] : w->sel_num[0], s1 ? x1[i] : w->sel_num[1], w->s2 ? x2[i] : w->sel_num[2]);
            break;
        default: /* TG_ISS_SELECT */
            if (select_block(w, aff, &la, &ra, p, j0, x0, y, n))
                return TG_EPROGRAM;
            break;
        }
        if (w->has_reduce) /* activation reduce, tensor_scalar accumulate: over the fp32 results */
            sum = (w->red_op == TG_ALU_ADD || j0 > 0) ? tg_iss_fold(w->red_op, sum, out, n)
                                                     : tg_iss_fold(w->red_op, out[0], out + 1, n - 1);
        tg_iss_scatter(d, dr, &id, out, n);
    }
    if (w->has_reduce) {
        tg_iss_it_init(&id, 0);
        sum = tg_nan_canon(sum); /* the fold ran raw (tg_iss_fold) */
        tg_iss_scatter(&w->red, tg_iss_row(&w->red, p), &id, &sum, 1);
    }
    return 0;
}

/* ---- raw copies ------------------------------------------------------------------ */

/* n elements of es bytes, one at a time in order through a temporary (so an
 * overlap behaves as the per-element copy does). */
static void copy_strided(uint8_t *d, int64_t sd, const uint8_t *s, int64_t ss, int64_t n, int64_t es)
{
    int64_t i;
    switch (es) {
#define ISS_COPY_CASE(ES, T)                            \
    case ES:                                            \
        for (i = 0; i < n; i++) {                       \
            T t;                                        \
            memcpy(&t, s + i * ss * ES, ES);            \
            memcpy(d + i * sd * ES, &t, ES);            \
        }                                               \
        break;
        ISS_COPY_CASE(1, uint8_t)
        ISS_COPY_CASE(2, uint16_t)
        ISS_COPY_CASE(4, uint32_t)
#undef ISS_COPY_CASE
    default:
        for (i = 0; i < n; i++) {
            uint8_t t[8];
            memcpy(t, s + i * ss * es, (size_t)es);
            memcpy(d + i * sd * es, t, (size_t)es);
        }
        break;
    }
}

void tg_iss_copy_row(const tg_iss_ap *d, const tg_iss_ap *s, int64_t p, int overlap)
{
    uint8_t *dr = tg_iss_row(d, p);
    const uint8_t *sr = tg_iss_row(s, p);
    tg_iss_it id, is;
    int64_t j, es = d->esize, sd = d->step[d->nfree - 1], ss;
    tg_iss_it_init(&id, 0);
    tg_iss_it_init(&is, s->count == 1);
    ss = is.fixed ? 0 : s->step[s->nfree - 1];
    for (j = 0; j < d->count;) {
        int64_t r = run_left(d, &id, d->count - j);
        uint8_t *dp = dr + id.off * es;
        const uint8_t *sp = sr + is.off * es;
        if (!is.fixed)
            r = run_left(s, &is, r);
        if (!overlap && sd == 1 && ss == 1)
            memcpy(dp, sp, (size_t)(r * es));
        else
            copy_strided(dp, sd, sp, ss, r, es);
        tg_iss_it_adv(d, &id, r);
        tg_iss_it_adv(s, &is, r);
        j += r;
    }
}

#include "tg_fp_end.h"
