/* lower.c - Spec -> tile IR: each spec op becomes one engine instruction whose
 * operands are hardware access patterns built from sema's normalised regions,
 * with expressions folded to canonical affine form; then each tile's uses give
 * the loop its `bufs` copies rotate with (docs/ir.md). */
#include <string.h>

#include "ir.h"

typedef struct Lower {
    Arena *arena;      /* everything is allocated here */
    const Spec *spec;  /* input */
    Diag *diag;        /* errors go here */
    Ir *ir;            /* output being built */
    int64_t *coef;     /* scratch for expr_affine: nslots entries */
    int nslots;        /* env[] size */
    int errors;        /* errors reported */
} Lower;

/* ---- expressions ---------------------------------------------------------- */

static Expr *mk(Lower *L, ExprKind k, Expr *a, Expr *b, SrcLoc loc) { return expr_new_op(L->arena, k, a, b, loc); }

static Expr *mk_int(Lower *L, int64_t v, SrcLoc loc) { return expr_new_int(L->arena, v, loc); }

static const char *slot_name(const Spec *s, int slot)
{
    if (slot == EXPR_VAR_P)
        return "p";
    if (slot == EXPR_VAR_F)
        return "f";
    if (s->slot_loop && slot < s->nslots && s->slot_loop[slot])
        return s->slot_loop[slot]->var;
    return "?";
}

static Expr *mk_var(Lower *L, int slot, SrcLoc loc)
{
    Expr *e = arena_alloc(L->arena, sizeof *e);
    if (e) {
        e->kind = EXPR_VAR;
        e->ival = slot;
        e->name = slot_name(L->spec, slot);
        e->loc = loc;
    }
    return e;
}

int ir_expr_const(const Expr *e, int64_t *v)
{
    if (!e || !expr_is_const(e))
        return 0;
    return expr_eval(e, NULL, v, NULL) == 0;
}

int ir_expr_is(const Expr *e, int64_t k)
{
    int64_t v;
    return ir_expr_const(e, &v) && v == k;
}

/* The canonical text of c + sum coef[v]*var_v: positive terms in slot order,
 * then the constant, then the negative terms ("i*128 + 64", "300 - i*128"). */
static Expr *affine_expr(Lower *L, const int64_t *coef, int64_t c, SrcLoc loc)
{
    Expr *e = NULL;
    for (int v = 0; v < L->nslots; v++) {
        if (coef[v] <= 0)
            continue;
        Expr *t = mk_var(L, v, loc);
        if (coef[v] != 1)
            t = mk(L, EXPR_MUL, t, mk_int(L, coef[v], loc), loc);
        e = e ? mk(L, EXPR_ADD, e, t, loc) : t;
    }
    if (!e)
        e = mk_int(L, c, loc);
    else if (c > 0)
        e = mk(L, EXPR_ADD, e, mk_int(L, c, loc), loc);
    else if (c < 0 && c != INT64_MIN)
        e = mk(L, EXPR_SUB, e, mk_int(L, -c, loc), loc);
    else if (c < 0)
        e = mk(L, EXPR_ADD, e, mk_int(L, c, loc), loc);
    int lead_const = e && e->kind == EXPR_INT && c == 0;
    for (int v = 0; v < L->nslots; v++) {
        if (coef[v] >= 0)
            continue;
        Expr *t = mk_var(L, v, loc);
        if (coef[v] != -1) {
            if (coef[v] == INT64_MIN)
                return NULL;
            t = mk(L, EXPR_MUL, t, mk_int(L, -coef[v], loc), loc);
        }
        if (lead_const) { /* nothing before: -t */
            e = mk(L, EXPR_NEG, t, NULL, loc);
            lead_const = 0;
        } else {
            e = mk(L, EXPR_SUB, e, t, loc);
        }
    }
    return e;
}

static int is_affine(Lower *L, const Expr *e)
{
    int64_t c;
    return e && expr_affine(e, L->nslots, L->coef, &c);
}

/* Bounds [*lo, *hi] of e over every iteration of the loops whose variables it
 * reads (interval arithmetic; p, f and non-constant divisors give up).
 * Returns 1 when bounded. */
static int range_of(Lower *L, const Expr *e, int64_t *lo, int64_t *hi)
{
    int64_t al, ah, bl, bh;
    switch (e->kind) {
    case EXPR_INT:
        *lo = *hi = e->ival;
        return 1;
    case EXPR_VAR: {
        const SpecStmt *lp = e->ival >= EXPR_VAR_FIRST && e->ival < L->spec->nslots && L->spec->slot_loop
                                 ? L->spec->slot_loop[e->ival]
                                 : NULL;
        if (!lp || lp->step <= 0 || lp->stop <= lp->start)
            return 0;
        *lo = lp->start;
        *hi = lp->start_e ? lp->stop - 1 : lp->start + (lp->stop - lp->start - 1) / lp->step * lp->step;
        return 1;
    }
    case EXPR_NEG:
        if (!range_of(L, e->a, &al, &ah) || al == INT64_MIN)
            return 0;
        *lo = -ah;
        *hi = -al;
        return 1;
    case EXPR_ADD:
    case EXPR_SUB:
    case EXPR_MUL:
    case EXPR_DIV:
    case EXPR_MIN:
    case EXPR_MAX:
        break;
    default:
        return 0;
    }
    if (!range_of(L, e->a, &al, &ah) || !range_of(L, e->b, &bl, &bh))
        return 0;
    switch (e->kind) {
    case EXPR_ADD:
        return expr_add(al, bl, lo) && expr_add(ah, bh, hi);
    case EXPR_SUB:
        return bl != INT64_MIN && bh != INT64_MIN && expr_add(al, -bh, lo) && expr_add(ah, -bl, hi);
    case EXPR_MUL: {
        int64_t c[4];
        if (!expr_mul(al, bl, &c[0]) || !expr_mul(al, bh, &c[1]) || !expr_mul(ah, bl, &c[2]) ||
            !expr_mul(ah, bh, &c[3]))
            return 0;
        *lo = *hi = c[0];
        for (int i = 1; i < 4; i++) {
            *lo = c[i] < *lo ? c[i] : *lo;
            *hi = c[i] > *hi ? c[i] : *hi;
        }
        return 1;
    }
    case EXPR_DIV: /* floor division by a positive constant is monotone */
        if (bl != bh || bl <= 0)
            return 0;
        *lo = expr_floordiv(al, bl);
        *hi = expr_floordiv(ah, bl);
        return 1;
    case EXPR_MIN:
        *lo = al < bl ? al : bl;
        *hi = ah < bh ? ah : bh;
        return 1;
    default: /* EXPR_MAX */
        *lo = al > bl ? al : bl;
        *hi = ah > bh ? ah : bh;
        return 1;
    }
}

/* Fold constants (also expressions constant over their loops' ranges, e.g. a
 * strided slice count (65 - a)/2 for a in [0, 2)), rewrite affine subtrees canonically, and move an affine
 * term into min/max (min(a, b) - c = min(a - c, b - c)). Returns a new tree
 * (or e itself); NULL only when out of memory. */
static Expr *fold(Lower *L, Expr *e)
{
    int64_t c;
    if (!e)
        return NULL;
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT:
    case EXPR_VAR:
    case EXPR_NAME:
        return e;
    default:
        break;
    }
    if (expr_affine(e, L->nslots, L->coef, &c)) {
        Expr *r = affine_expr(L, L->coef, c, e->loc);
        if (r) /* else a coefficient has no negation: fold the tree as it is */
            return r;
    }
    int64_t lo, hi;
    if (range_of(L, e, &lo, &hi) && lo == hi)
        return mk_int(L, lo, e->loc);
    Expr *a = fold(L, e->a);
    Expr *b = e->kind == EXPR_NEG ? NULL : fold(L, e->b);
    if (!a || (e->kind != EXPR_NEG && !b))
        return NULL;
    int a_mm = a->kind == EXPR_MIN || a->kind == EXPR_MAX;
    int b_mm = b && (b->kind == EXPR_MIN || b->kind == EXPR_MAX);
    if ((e->kind == EXPR_ADD || e->kind == EXPR_SUB) && a_mm && is_affine(L, b))
        return mk(L, a->kind, fold(L, mk(L, e->kind, a->a, b, e->loc)), fold(L, mk(L, e->kind, a->b, b, e->loc)),
                  a->loc);
    if (e->kind == EXPR_ADD && b_mm && is_affine(L, a))
        return mk(L, b->kind, fold(L, mk(L, EXPR_ADD, a, b->a, e->loc)), fold(L, mk(L, EXPR_ADD, a, b->b, e->loc)),
                  b->loc);
    Expr *r = mk(L, e->kind, a, b, e->loc);
    int64_t v;
    if (r && expr_is_const(r) && expr_eval(r, NULL, &v, NULL) == 0)
        return mk_int(L, v, e->loc);
    /* min/max of two affine forms a constant apart: pick one */
    if (r && (r->kind == EXPR_MIN || r->kind == EXPR_MAX)) {
        Expr d = {.kind = EXPR_SUB, .a = a, .b = b};
        if (expr_affine(&d, L->nslots, L->coef, &c)) {
            int konst = 1;
            for (int s = 0; s < L->nslots; s++)
                konst &= L->coef[s] == 0;
            if (konst)
                return (r->kind == EXPR_MIN) == (c <= 0) ? a : b;
        }
    }
    return r;
}

/* Are a and b the same tree (kinds, values, slots, operands)? */
static int same_tree(const Expr *a, const Expr *b)
{
    if (a == b)
        return 1;
    if (!a || !b || a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case EXPR_INT:
    case EXPR_VAR: return a->ival == b->ival;
    case EXPR_FLOAT: return a->fval == b->fval;
    case EXPR_NAME: return a->ival == b->ival && a->name && b->name && !strcmp(a->name, b->name);
    default: return same_tree(a->a, b->a) && same_tree(a->b, b->b);
    }
}

/* e as c + sum k_i t_i over sums, differences, negations and products by a
 * constant, the terms t_i other subtrees told apart by same_tree (a
 * division, modulo, min, max, a product of two variables...); ok 0 when a
 * coefficient overflows or there are more than LIN_TERMS terms. */
enum { LIN_TERMS = 16 };
typedef struct Lin {
    const Expr *t[LIN_TERMS];
    int64_t k[LIN_TERMS];
    int n, ok;
    int64_t c;
} Lin;

static void lin_add(Lin *l, const Expr *e, int64_t k)
{
    int64_t v;
    if (!l->ok || !e) {
        l->ok = 0;
        return;
    }
    switch (e->kind) {
    case EXPR_INT:
        l->ok = expr_mul(k, e->ival, &v) && expr_add(l->c, v, &l->c);
        return;
    case EXPR_ADD:
    case EXPR_SUB:
        lin_add(l, e->a, k);
        if (!expr_mul(k, e->kind == EXPR_SUB ? -1 : 1, &v)) {
            l->ok = 0;
            return;
        }
        lin_add(l, e->b, v);
        return;
    case EXPR_NEG:
        if (!expr_mul(k, -1, &v)) {
            l->ok = 0;
            return;
        }
        lin_add(l, e->a, v);
        return;
    case EXPR_MUL:
        if (e->a->kind == EXPR_INT || e->b->kind == EXPR_INT) {
            const Expr *c = e->a->kind == EXPR_INT ? e->a : e->b;
            if (!expr_mul(k, c->ival, &v)) {
                l->ok = 0;
                return;
            }
            lin_add(l, c == e->a ? e->b : e->a, v);
            return;
        }
        break;
    default:
        break;
    }
    for (int i = 0; i < l->n; i++)
        if (same_tree(l->t[i], e)) {
            l->ok = expr_add(l->k[i], k, &l->k[i]);
            return;
        }
    if (l->n == LIN_TERMS) {
        l->ok = 0;
        return;
    }
    l->t[l->n] = e;
    l->k[l->n++] = k;
}

/* Number of indices start, start+step, ... < stop. A stop that is the
 * start plus a constant is a constant count, whatever the start: also when
 * the start is no affine form (a view's t/3 or t%3 of a tap loop variable,
 * bench/probes b01; a one-column dst at i/1, which the C back end then took
 * for more than one element, b07), by cancelling the same subtrees. */
static Expr *count_of(Lower *L, Expr *start, Expr *stop, int64_t step, SrcLoc loc)
{
    Expr *d = mk(L, EXPR_SUB, stop, start, loc);
    Lin l = {.ok = 1};
    lin_add(&l, d, 1);
    for (int i = 0; i < l.n && l.ok; i++)
        l.ok = l.k[i] == 0;
    if (l.ok && d)
        d = mk_int(L, l.c, loc);
    if (step != 1)
        d = mk(L, EXPR_DIV, mk(L, EXPR_ADD, d, mk_int(L, step - 1, loc), loc), mk_int(L, step, loc), loc);
    return fold(L, d);
}

/* ---- access patterns ------------------------------------------------------- */

static void lower_error(Lower *L, SrcLoc loc, const char *fmt, const char *name)
{
    diag_error(L->diag, loc, "E090", fmt, name);
    L->errors++;
}

int64_t ir_ap_free_elems(const IrAp *ap)
{
    int64_t n = 1, k;
    for (int i = 0; i < ap->nfree; i++) {
        if (!ir_expr_const(ap->free[i].num, &k) || !expr_mul(n, k, &n))
            return -1;
    }
    return n;
}

int ir_ap_same_but_offset(const IrAp *a, const IrAp *b, int (*eq)(void *ctx, const Expr *x, const Expr *y),
                          void *ctx)
{
    if (a->mem != b->mem || a->index != b->index || a->dtype != b->dtype || a->pstep != b->pstep ||
        a->istep != b->istep || a->nfree != b->nfree || !eq(ctx, a->pstart, b->pstart) ||
        !eq(ctx, a->pcount, b->pcount) || !eq(ctx, a->buf, b->buf))
        return 0;
    for (int d = 0; d < a->nfree; d++)
        if (a->free[d].step != b->free[d].step || !eq(ctx, a->free[d].num, b->free[d].num))
            return 0;
    return 1;
}

/* Drop single-index dims and merge an outer dim into the next inner one when
 * they are contiguous (outer.step == inner.step * inner.num). */
static void normalise_free(Lower *L, IrAp *ap, SrcLoc loc)
{
    int n = 0;
    for (int i = 0; i < ap->nfree; i++)
        if (!ir_expr_is(ap->free[i].num, 1))
            ap->free[n++] = ap->free[i];
    ap->nfree = n;
    for (int i = n - 2; i >= 0; i--) {
        IrDim *o = &ap->free[i], *in = &ap->free[i + 1];
        int64_t k, s;
        if (!ir_expr_const(in->num, &k) || !expr_mul(in->step, k, &s) || s != o->step)
            continue;
        in->num = fold(L, mk(L, EXPR_MUL, o->num, in->num, loc));
        memmove(o, in, (size_t)(ap->nfree - i - 1) * sizeof *o);
        ap->nfree--;
    }
    if (ap->nfree == 0) {
        ap->free[0].step = 1;
        ap->free[0].num = mk_int(L, 1, loc);
        ap->nfree = 1;
    }
}

/* Row-major element strides of a shape. */
static void strides_of(const int64_t *shape, int rank, int64_t *stride)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= shape[d];
    }
}

static Expr *dim_count(Lower *L, const SpecRef *r, int d)
{
    if (r->dropped[d])
        return mk_int(L, 1, r->region.loc);
    if (r->ind && d == r->ind_dim) { /* an index column: its partitions on a row gather, else 1 (sema) */
        for (int k = 0; k < d; k++)
            if (!r->dropped[k])
                return mk_int(L, 1, r->region.loc);
        return count_of(L, r->ind->start[0], r->ind->stop[0], 1, r->region.loc);
    }
    return count_of(L, r->start[d], r->stop[d], r->step[d], r->region.loc);
}

/* Element offset sum start[d]*stride[d] over dims d >= from. */
static Expr *offset_of(Lower *L, const SpecRef *r, const int64_t *stride, int from)
{
    SrcLoc loc = r->region.loc;
    Expr *off = mk_int(L, 0, loc);
    for (int d = from; d < r->rank; d++)
        off = mk(L, EXPR_ADD, off, mk(L, EXPR_MUL, r->start[d], mk_int(L, stride[d], loc), loc), loc);
    return fold(L, off);
}

static int ref_ok(Lower *L, const SpecRef *r)
{
    if (r->normalized && r->index >= 0 && r->rank >= 1 && r->rank <= SPEC_MAX_RANK)
        return 1;
    lower_error(L, r->region.loc, "internal: region '%s' reached the lowering unchecked", r->region.name);
    return 0;
}

/* Start *ap for region r of a tile (want_tensor 0) or an HBM tensor: check the
 * target, clear *ap, set its identity and fill the target's row-major strides.
 * Returns the target's name, or NULL after an error. */
static const char *ap_begin(Lower *L, const SpecRef *r, int want_tensor, IrAp *ap, int64_t *stride)
{
    memset(ap, 0, sizeof *ap);
    if (!ref_ok(L, r))
        return NULL;
    if (r->is_tensor != want_tensor || r->index >= (want_tensor ? L->spec->ntensors : L->spec->ntiles)) {
        lower_error(L, r->region.loc, want_tensor ? "internal: '%s' is not an HBM tensor" : "internal: '%s' is not a tile",
                    r->region.name);
        return NULL;
    }
    const SpecTensor *tn = want_tensor ? &L->spec->tensors[r->index] : NULL;
    const SpecTile *tl = want_tensor ? NULL : &L->spec->tiles[r->index];
    if (r->rank != (tn ? tn->rank : tl->rank)) {
        lower_error(L, r->region.loc, "internal: region of '%s' has the wrong rank", r->region.name);
        return NULL;
    }
    strides_of(tn ? tn->shape : tl->shape, tn ? tn->rank : tl->rank, stride);
    ap->mem = tn ? IR_MEM_HBM : tl->buffer == SPEC_BUF_PSUM ? IR_MEM_PSUM : IR_MEM_SBUF;
    ap->index = r->index;
    ap->dtype = tn ? tn->dtype : tl->dtype;
    ap->loc = r->region.loc;
    ap->rot_loop = -1;
    ap->buf = mk_int(L, 0, ap->loc);
    return tn ? tn->name : tl->name;
}

/* A region of a tile -> SBUF/PSUM pattern with one free dim per dimension
 * the region keeps (none: one dim of one element), as written. */
static int ap_tile_dims(Lower *L, const SpecRef *r, IrAp *ap)
{
    int64_t stride[SPEC_MAX_RANK];
    const char *name = ap_begin(L, r, 0, ap, stride);
    if (!name)
        return 0;
    SrcLoc loc = ap->loc;
    if (r->step[0] != 1 && !r->dropped[0]) {
        lower_error(L, loc, "the partition dim of tile '%s' cannot be accessed with a step: engines address a "
                    "contiguous partition range", name);
        return 0;
    }
    ap->pstart = fold(L, r->start[0]);
    ap->pcount = dim_count(L, r, 0);
    ap->pstep = 1;
    ap->offset = offset_of(L, r, stride, 1);
    for (int d = 1; d < r->rank; d++) {
        if (r->dropped[d])
            continue;
        ap->free[ap->nfree].step = r->step[d] * stride[d];
        ap->free[ap->nfree].num = dim_count(L, r, d);
        ap->nfree++;
    }
    if (ap->nfree == 0) {
        ap->free[0].step = 1;
        ap->free[0].num = mk_int(L, 1, loc);
        ap->nfree = 1;
    }
    return 1;
}

/* A region of a tile -> SBUF/PSUM pattern, dims merged where contiguous. */
static int ap_tile(Lower *L, const SpecRef *r, IrAp *ap)
{
    if (!ap_tile_dims(L, r, ap))
        return 0;
    normalise_free(L, ap, ap->loc);
    return 1;
}

typedef enum { HBM_PLAIN, HBM_TRANSPOSE, HBM_BROADCAST } HbmMode;

/* A region of an HBM tensor -> pattern. `pair` is the SBUF side of the
 * transfer (or NULL): a broadcast takes its partition count, and a one-dim
 * region paired with a one-partition pattern lies along the free dim. */
static int ap_hbm(Lower *L, const SpecRef *r, HbmMode mode, const IrAp *pair, IrAp *ap)
{
    int64_t stride[SPEC_MAX_RANK];
    const char *name = ap_begin(L, r, 1, ap, stride);
    if (!name)
        return 0;
    SrcLoc loc = ap->loc;
    ap->pstart = mk_int(L, 0, loc);
    ap->offset = offset_of(L, r, stride, 0);
    int nd[SPEC_MAX_RANK], n = 0;
    for (int d = 0; d < r->rank; d++)
        if (!r->dropped[d])
            nd[n++] = d;
    int pdim = -1; /* tensor dim on partitions */
    if (mode == HBM_TRANSPOSE) {
        if (n != 2) {
            lower_error(L, loc, "a transposed load or store needs a 2-D region of '%s'", name);
            return 0;
        }
        pdim = nd[1];
    } else if (n > 0) {
        pdim = nd[0];
        /* a one-dim region lies along the free dim of a one-partition
         * pattern, and a broadcast's 1-D row (x[0:D], x[r, :]) is all free */
        if (n == 1 && ((mode == HBM_PLAIN && pair && ir_expr_is(pair->pcount, 1)) || mode == HBM_BROADCAST))
            pdim = -1;
    }
    if (pdim < 0) {
        ap->pcount = mk_int(L, 1, loc);
        ap->pstep = 0;
    } else {
        ap->pcount = dim_count(L, r, pdim);
        ap->pstep = r->ind && pdim == r->ind_dim ? 0 : r->step[pdim] * stride[pdim];
    }
    if (r->ind) /* the index supplies that dim (its start is 0: no offset) */
        ap->istep = stride[r->ind_dim];
    if (mode == HBM_BROADCAST) {
        if (pdim >= 0 && !ir_expr_is(ap->pcount, 1)) {
            lower_error(L, loc, "a broadcast load reads one row: the first dim of this region of '%s' must have "
                        "one index", name);
            return 0;
        }
        ap->pcount = pair ? pair->pcount : mk_int(L, 1, loc);
        ap->pstep = 0;
    }
    for (int i = 0; i < n; i++) {
        int d = mode == HBM_TRANSPOSE ? nd[0] : nd[i];
        if (d == pdim)
            continue;
        ap->free[ap->nfree].step = r->step[d] * stride[d];
        ap->free[ap->nfree].num = dim_count(L, r, d);
        ap->nfree++;
        if (mode == HBM_TRANSPOSE)
            break;
    }
    normalise_free(L, ap, loc);
    return 1;
}

/* A tile or tensor region (dma_copy's ANY fields). */
static int ap_any(Lower *L, const SpecRef *r, const IrAp *pair, IrAp *ap)
{
    return r->is_tensor ? ap_hbm(L, r, HBM_PLAIN, pair, ap) : ap_tile(L, r, ap);
}

static int scalar_of(Lower *L, const SpecValue *v, IrScalar *s)
{
    memset(s, 0, sizeof *s);
    if (!v->is_ref) {
        s->num = v->num;
        s->numx = v->numx;
        return 1;
    }
    s->is_ap = 1;
    return ap_tile(L, &v->ref, &s->ap);
}

/* ---- instructions ----------------------------------------------------------- */

static IrOpcode opcode_of(SpecOpKind k)
{
    switch (k) {
#define X(ID, SPECOP)                                                                                   \
    case SPEC_OP_##SPECOP:                                                                                         \
        return IR_OP_##ID;
        IR_OPCODES(X)
#undef X
    default:
        return IR_OP_COUNT;
    }
}

/* The index column of an indirect load or store (SPEC.md §2.1) on HBM region
 * h: in->ind, and the bound of its values. */
static int lower_index(Lower *L, const SpecRef *h, const SpecRef *x, IrInst *in)
{
    if (!h->ind || !ap_tile(L, x, &in->ind))
        return 0;
    in->has_ind = 1;
    in->ind_bound = L->spec->tensors[h->index].shape[h->ind_dim];
    return 1;
}

/* Fill in's operands and fields from the op statement; 0 on error. */
static int lower_op(Lower *L, const SpecStmt *st, IrInst *in)
{
    const SpecValue *f = st->f;
    int ok = 1;
    in->op = opcode_of(st->op);
    in->engine = spec_op_engine(st->op);
    in->loc = st->loc;
    if (in->op == IR_OP_COUNT) {
        lower_error(L, st->loc, "internal: op '%s' has no opcode", spec_op_name(st->op));
        return 0;
    }
    switch (st->op) {
    case SPEC_OP_LOAD:
        in->transpose = f[SPEC_F_TRANSPOSE].present && f[SPEC_F_TRANSPOSE].boolean;
        in->broadcast = f[SPEC_F_BROADCAST].present && f[SPEC_F_BROADCAST].boolean;
        in->nsrc = 1;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) &&
             ap_hbm(L, &f[SPEC_F_SRC].ref, in->transpose ? HBM_TRANSPOSE : in->broadcast ? HBM_BROADCAST : HBM_PLAIN,
                    &in->dst, &in->src[0]);
        if (ok && f[SPEC_F_INDEX].present)
            ok = lower_index(L, &f[SPEC_F_SRC].ref, &f[SPEC_F_INDEX].ref, in);
        break;
    case SPEC_OP_STORE:
        in->transpose = f[SPEC_F_TRANSPOSE].present && f[SPEC_F_TRANSPOSE].boolean;
        in->nsrc = 1;
        ok = ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]) &&
             ap_hbm(L, &f[SPEC_F_DST].ref, in->transpose ? HBM_TRANSPOSE : HBM_PLAIN, &in->src[0], &in->dst);
        if (ok && f[SPEC_F_INDEX].present)
            ok = lower_index(L, &f[SPEC_F_DST].ref, &f[SPEC_F_INDEX].ref, in);
        break;
    case SPEC_OP_DMA_COPY: {
        const SpecRef *d = &f[SPEC_F_DST].ref, *s = &f[SPEC_F_SRC].ref;
        in->nsrc = 1;
        if (!d->is_tensor) /* build the SBUF side first: it pairs the HBM side */
            ok = ap_tile(L, d, &in->dst) && ap_any(L, s, &in->dst, &in->src[0]);
        else
            ok = ap_any(L, s, NULL, &in->src[0]) && ap_hbm(L, d, HBM_PLAIN, &in->src[0], &in->dst);
        break;
    }
    case SPEC_OP_MATMUL:
        in->accumulate = f[SPEC_F_ACCUMULATE].boolean;
        in->nsrc = 2;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_STATIONARY].ref, &in->src[0]) &&
             ap_tile(L, &f[SPEC_F_MOVING].ref, &in->src[1]);
        break;
    case SPEC_OP_TENSOR_TENSOR:
    case SPEC_OP_TENSOR_TENSOR_SCAN:
        in->nsrc = 2;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_A].ref, &in->src[0]) &&
             ap_tile(L, &f[SPEC_F_B].ref, &in->src[1]);
        if (st->op == SPEC_OP_TENSOR_TENSOR) {
            in->alu[0] = (SpecAlu)f[SPEC_F_OP].enum_val;
            in->nalu = 1;
        } else {
            in->alu[0] = (SpecAlu)f[SPEC_F_OP0].enum_val;
            in->alu[1] = (SpecAlu)f[SPEC_F_OP1].enum_val;
            in->nalu = 2;
            in->nscalar = 1;
            ok = ok && scalar_of(L, &f[SPEC_F_INITIAL], &in->scalar[0]);
        }
        break;
    case SPEC_OP_TENSOR_SCALAR:
        in->nsrc = 1;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]) &&
             scalar_of(L, &f[SPEC_F_OPERAND0], &in->scalar[0]);
        in->alu[0] = (SpecAlu)f[SPEC_F_OP0].enum_val;
        in->reverse[0] = f[SPEC_F_REVERSE0].present && f[SPEC_F_REVERSE0].boolean;
        in->nalu = in->nscalar = 1;
        if (f[SPEC_F_OP1].present) {
            in->alu[1] = (SpecAlu)f[SPEC_F_OP1].enum_val;
            in->reverse[1] = f[SPEC_F_REVERSE1].present && f[SPEC_F_REVERSE1].boolean;
            in->nalu = in->nscalar = 2;
            ok = ok && scalar_of(L, &f[SPEC_F_OPERAND1], &in->scalar[1]);
        }
        if (ok && f[SPEC_F_ACCUMULATE].present) { /* NKI tensor_scalar_reduce */
            in->has_reduce = 1;
            in->reduce_op = (SpecAlu)f[SPEC_F_ACCUMULATE].enum_val;
            ok = ap_tile(L, &f[SPEC_F_ACCUMULATE].ref, &in->reduce_dst);
        }
        break;
    case SPEC_OP_ACTIVATION:
        in->nsrc = 1;
        in->func = (SpecAct)f[SPEC_F_FUNC].enum_val;
        in->nscalar = 1;
        in->scalar[0].num = 1.0; /* no scale: multiply by 1 */
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]);
        if (ok && f[SPEC_F_SCALE].present)
            ok = scalar_of(L, &f[SPEC_F_SCALE], &in->scalar[0]);
        if (ok && f[SPEC_F_BIAS].present) {
            in->has_bias = 1;
            ok = ap_tile(L, &f[SPEC_F_BIAS].ref, &in->bias);
        }
        if (ok && f[SPEC_F_REDUCE].present) {
            in->has_reduce = 1;
            in->reduce_op = (SpecAlu)f[SPEC_F_REDUCE].enum_val;
            ok = ap_tile(L, &f[SPEC_F_REDUCE].ref, &in->reduce_dst);
        }
        break;
    case SPEC_OP_SELECT: { /* each of pred, on_true, on_false a tile operand (src[]) or a number */
        static const SpecFieldId sf[3] = {SPEC_F_PRED, SPEC_F_ON_TRUE, SPEC_F_ON_FALSE};
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst);
        for (int i = 0; i < 3; i++) {
            in->sel_src[i] = f[sf[i]].is_ref ? in->nsrc : -1;
            in->sel_num[i] = f[sf[i]].num;
            in->sel_numx[i] = f[sf[i]].numx;
            if (ok && f[sf[i]].is_ref)
                ok = ap_tile(L, &f[sf[i]].ref, &in->src[in->nsrc++]);
        }
        break;
    }
    case SPEC_OP_SCALAR_TENSOR_TENSOR: /* (src op0 operand0) op1 b */
        in->nsrc = 2;
        in->alu[0] = (SpecAlu)f[SPEC_F_OP0].enum_val;
        in->alu[1] = (SpecAlu)f[SPEC_F_OP1].enum_val;
        in->nalu = 2;
        in->nscalar = 1;
        in->reverse[0] = f[SPEC_F_REVERSE0].present && f[SPEC_F_REVERSE0].boolean;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]) &&
             ap_tile(L, &f[SPEC_F_B].ref, &in->src[1]) && scalar_of(L, &f[SPEC_F_OPERAND0], &in->scalar[0]);
        break;
    case SPEC_OP_MAX8:
    case SPEC_OP_NC_FIND_INDEX8:
    case SPEC_OP_NC_MATCH_REPLACE8:
        in->nsrc = 1;
        in->has_vals = st->op != SPEC_OP_MAX8;
        in->value = f[SPEC_F_IMM].num;
        in->valuex = f[SPEC_F_IMM].numx;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]) &&
             (!in->has_vals || ap_tile(L, &f[SPEC_F_VALUES].ref, &in->vals));
        break;
    case SPEC_OP_TENSOR_REDUCE:
    case SPEC_OP_PARTITION_REDUCE:
        in->alu[0] = (SpecAlu)f[SPEC_F_OP].enum_val;
        in->nalu = 1;
        in->negate = f[SPEC_F_NEGATE].present && f[SPEC_F_NEGATE].boolean;
        in->nsrc = 1;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]);
        break;
    case SPEC_OP_TRANSPOSE:
    case SPEC_OP_TENSOR_COPY:
    case SPEC_OP_RECIPROCAL:
    case SPEC_OP_BN_STATS:
    case SPEC_OP_BN_AGGR:
        in->nsrc = 1;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]);
        break;
    case SPEC_OP_AFFINE_SELECT:
        in->nsrc = 1;
        in->value = f[SPEC_F_FILL].num;
        in->valuex = f[SPEC_F_FILL].numx;
        in->pred.cmp = f[SPEC_F_PRED].pred.cmp;
        in->pred.lhs = fold(L, f[SPEC_F_PRED].pred.lhs);
        in->pred.rhs = fold(L, f[SPEC_F_PRED].pred.rhs);
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst) && ap_tile(L, &f[SPEC_F_SRC].ref, &in->src[0]);
        break;
    case SPEC_OP_MEMSET:
        in->value = f[SPEC_F_VALUE].num;
        in->valuex = f[SPEC_F_VALUE].numx;
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst);
        break;
    case SPEC_OP_IOTA:
        in->iota = fold(L, f[SPEC_F_EXPR].expr);
        ok = ap_tile(L, &f[SPEC_F_DST].ref, &in->dst);
        break;
    case SPEC_OP_PRINT: /* the region's own dims: they are the shape the host sees */
        in->nsrc = 1;
        in->label = f[SPEC_F_LABEL].label;
        ok = ap_tile_dims(L, &f[SPEC_F_SRC].ref, &in->src[0]);
        break;
    default:
        lower_error(L, st->loc, "internal: op '%s' cannot be lowered", spec_op_name(st->op));
        return 0;
    }
    return ok;
}

int ir_operands(const IrInst *cin, IrOperand *out)
{
    static const SpecFieldId sel[3] = {SPEC_F_PRED, SPEC_F_ON_TRUE, SPEC_F_ON_FALSE};
    IrInst *in = (IrInst *)cin; /* ir.h: the operands are given writable */
    int n = 0, two = in->op == IR_OP_TENSOR_TENSOR || in->op == IR_OP_TENSOR_TENSOR_SCAN;
    if (in->op != IR_OP_PRINT) /* a print writes nothing */
        out[n++] = (IrOperand){SPEC_F_DST, &in->dst, in->op == IR_OP_MATMUL && in->accumulate, 1};
    for (int i = 0; i < in->nsrc; i++) {
        SpecFieldId role = in->op == IR_OP_MATMUL ? (i ? SPEC_F_MOVING : SPEC_F_STATIONARY)
                           : two              ? (i ? SPEC_F_B : SPEC_F_A)
                           : in->op == IR_OP_SCALAR_TENSOR_TENSOR && i ? SPEC_F_B
                                              : SPEC_F_SRC;
        for (int k = 0; in->op == IR_OP_SELECT && k < 3; k++)
            if (in->sel_src[k] == i)
                role = sel[k];
        out[n++] = (IrOperand){role, &in->src[i], 1, 0};
    }
    for (int i = 0; i < in->nscalar; i++) {
        if (!in->scalar[i].is_ap)
            continue;
        SpecFieldId role = in->op == IR_OP_ACTIVATION           ? SPEC_F_SCALE
                           : in->op == IR_OP_TENSOR_TENSOR_SCAN ? SPEC_F_INITIAL
                           : i == 0                             ? SPEC_F_OPERAND0
                                                                : SPEC_F_OPERAND1;
        out[n++] = (IrOperand){role, &in->scalar[i].ap, 1, 0};
    }
    if (in->has_bias)
        out[n++] = (IrOperand){SPEC_F_BIAS, &in->bias, 1, 0};
    if (in->has_vals)
        out[n++] = (IrOperand){SPEC_F_VALUES, &in->vals, 1, 0};
    if (in->has_ind)
        out[n++] = (IrOperand){SPEC_F_INDEX, &in->ind, 1, 0};
    if (in->has_reduce)
        out[n++] = (IrOperand){in->op == IR_OP_ACTIVATION ? SPEC_F_REDUCE : SPEC_F_ACCUMULATE, &in->reduce_dst, 0, 1};
    return n;
}

/* ---- statements ------------------------------------------------------------- */

static void count_stmts(SpecStmt *const *body, int n, int *ninsts, int *nloops)
{
    for (int i = 0; i < n; i++) {
        if (body[i]->kind == SPEC_STMT_LOOP) {
            ++*nloops;
            count_stmts(body[i]->body, body[i]->nbody, ninsts, nloops);
        } else {
            ++*ninsts;
        }
    }
}

static IrStmt *lower_body(Lower *L, SpecStmt *const *body, int n, IrLoop *parent)
{
    IrStmt *out = arena_alloc(L->arena, (size_t)(n > 0 ? n : 1) * sizeof *out);
    if (!out)
        return NULL;
    for (int i = 0; i < n; i++) {
        const SpecStmt *st = body[i];
        Ir *ir = L->ir;
        if (st->kind == SPEC_STMT_LOOP) {
            IrLoop *lp = arena_alloc(L->arena, sizeof *lp);
            if (!lp)
                return NULL;
            lp->id = ir->nloops;
            ir->loops[ir->nloops++] = lp;
            lp->slot = st->slot;
            lp->var = st->var;
            lp->start = st->start;
            lp->stop = st->stop;
            lp->start_e = st->start_e;
            lp->stop_e = st->stop_e;
            lp->step = st->step > 0 ? st->step : 1;
            lp->trip = st->stop > st->start ? (st->stop - st->start + lp->step - 1) / lp->step : 0;
            lp->carried = st->carried;
            lp->grid = st->grid;
            lp->parent = parent;
            lp->depth = parent ? parent->depth + 1 : 0;
            lp->loc = st->loc;
            lp->first = ir->ninsts;
            lp->nbody = st->nbody;
            lp->body = lower_body(L, st->body, st->nbody, lp);
            lp->last = ir->ninsts - 1;
            if (!lp->body)
                return NULL;
            out[i] = (IrStmt){IR_STMT_LOOP, lp, NULL};
        } else {
            IrInst *in = arena_alloc(L->arena, sizeof *in);
            if (!in)
                return NULL;
            in->id = ir->ninsts;
            ir->insts[ir->ninsts++] = in;
            in->loop = parent;
            lower_op(L, st, in);
            out[i] = (IrStmt){IR_STMT_INST, NULL, in};
        }
    }
    return out;
}

/* ---- tile uses and rotation --------------------------------------------------- */

static IrLoop *common_loop(IrLoop *a, IrLoop *b)
{
    while (a && b && a != b) {
        if (a->depth >= b->depth)
            a = a->parent;
        else
            b = b->parent;
    }
    return a == b ? a : NULL;
}

int ir_ap_covers_row(const Spec *s, const IrAp *ap)
{
    const SpecTile *t = &s->tiles[ap->index];
    int64_t elems = 1;
    for (int d = 1; d < t->rank; d++)
        elems *= t->shape[d];
    return ir_expr_is(ap->offset, 0) && ap->nfree == 1 && ap->free[0].step == 1 && ir_expr_is(ap->free[0].num, elems);
}

int ir_ap_covers_tile(const Spec *s, const IrAp *ap)
{
    return ir_expr_is(ap->pstart, 0) && ir_expr_is(ap->pcount, s->tiles[ap->index].shape[0]) && ir_ap_covers_row(s, ap);
}

/* Iterations of loop lp started before the current one, counted over the
 * whole run (its enclosing loops' iterations included), so that rotation
 * continues across the restarts of a nested loop: ((i0*trip1 + i1)*trip2 + i2)
 * with ik = (var_k - start_k) / step_k. */
static Expr *flat_iteration(Lower *L, const IrLoop *lp, SrcLoc loc)
{
    Expr *it = mk(L, EXPR_SUB, mk_var(L, lp->slot, loc), mk_int(L, lp->start, loc), loc);
    if (lp->step != 1)
        it = mk(L, EXPR_DIV, it, mk_int(L, lp->step, loc), loc);
    if (lp->parent)
        it = mk(L, EXPR_ADD, mk(L, EXPR_MUL, flat_iteration(L, lp->parent, loc), mk_int(L, lp->trip, loc), loc), it,
                loc);
    return it;
}

/* Home and scope of every tile (docs/ir.md, "Tile scope"), then the copy index
 * of every tile operand. */
static void analyse_tiles(Lower *L)
{
    Ir *ir = L->ir;
    const Spec *s = L->spec;
    IrLoop **home = arena_alloc(L->arena, (size_t)(ir->ntiles > 0 ? ir->ntiles : 1) * sizeof *home);
    int *fresh = arena_alloc(L->arena, (size_t)(ir->ntiles > 0 ? ir->ntiles : 1) * sizeof *fresh);
    if (!home || !fresh)
        return;
    for (int t = 0; t < ir->ntiles; t++)
        ir->tiles[t] = (IrTile){0, -1, -1, -1, -1};
    for (int i = 0; i < ir->ninsts; i++) {
        IrInst *in = ir->insts[i];
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(in, ops);
        for (int k = 0; k < n; k++) {
            if (ops[k].ap->mem == IR_MEM_HBM)
                continue;
            int t = ops[k].ap->index;
            IrTile *ti = &ir->tiles[t];
            if (ti->last == i) /* already counted for this instruction */
                continue;
            if (ti->naccess == 0) {
                ti->first = i;
                home[t] = in->loop;
                /* fresh: this instruction overwrites the whole tile and reads none of it */
                int w = 0, r = 0;
                for (int j = 0; j < n; j++) {
                    if (ops[j].ap->mem == IR_MEM_HBM || ops[j].ap->index != t)
                        continue;
                    w |= ops[j].is_write && ir_ap_covers_tile(s, ops[j].ap);
                    r |= ops[j].is_read;
                }
                fresh[t] = w && !r;
            } else {
                home[t] = common_loop(home[t], in->loop);
            }
            ti->naccess++;
            ti->last = i;
        }
    }
    for (int t = 0; t < ir->ntiles; t++) {
        IrTile *ti = &ir->tiles[t];
        if (ti->naccess == 0)
            continue;
        IrLoop *r = home[t];
        ti->home = r ? r->id : -1;
        while (r && r->carried && !fresh[t])
            r = r->parent;
        ti->scope = r ? r->id : -1;
    }
    for (int i = 0; i < ir->ninsts; i++) {
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(ir->insts[i], ops);
        for (int k = 0; k < n; k++) {
            IrAp *ap = ops[k].ap;
            if (ap->mem == IR_MEM_HBM)
                continue;
            const SpecTile *t = &s->tiles[ap->index];
            int scope = ir->tiles[ap->index].scope;
            if (t->bufs <= 1 || scope < 0)
                continue;
            SrcLoc loc = ap->loc;
            Expr *it = flat_iteration(L, ir->loops[scope], loc);
            ap->rot_loop = scope;
            ap->buf = fold(L, mk(L, EXPR_MOD, it, mk_int(L, t->bufs, loc), loc));
        }
    }
}

/* 1 if every expression of every operand and field was built (a NULL means
 * an allocation failed somewhere). */
static int complete(const Ir *ir)
{
    for (int i = 0; i < ir->ninsts; i++) {
        IrInst *in = ir->insts[i];
        IrOperand o[IR_MAX_OPERANDS];
        int n = ir_operands(in, o);
        for (int k = 0; k < n; k++) {
            const IrAp *ap = o[k].ap;
            if (!ap->pstart || !ap->pcount || !ap->offset || !ap->buf)
                return 0;
            for (int d = 0; d < ap->nfree; d++)
                if (!ap->free[d].num)
                    return 0;
        }
        if ((in->op == IR_OP_IOTA && !in->iota) || (in->op == IR_OP_AFFINE_SELECT && (!in->pred.lhs || !in->pred.rhs)))
            return 0;
    }
    return 1;
}

Ir *ir_lower(Arena *arena, const Spec *spec, Diag *diag)
{
    Lower L = {.arena = arena, .spec = spec, .diag = diag, .nslots = spec->nslots};
    Ir *ir = arena_alloc(arena, sizeof *ir);
    L.coef = arena_alloc(arena, (size_t)(spec->nslots > 0 ? spec->nslots : 1) * sizeof *L.coef);
    if (!ir || !L.coef)
        goto oom;
    L.ir = ir;
    ir->spec = spec;
    int ninsts = 0, nloops = 0;
    count_stmts(spec->body, spec->nbody, &ninsts, &nloops);
    ir->insts = arena_alloc(arena, (size_t)(ninsts > 0 ? ninsts : 1) * sizeof *ir->insts);
    ir->loops = arena_alloc(arena, (size_t)(nloops > 0 ? nloops : 1) * sizeof *ir->loops);
    ir->ntiles = spec->ntiles;
    ir->tiles = arena_alloc(arena, (size_t)(spec->ntiles > 0 ? spec->ntiles : 1) * sizeof *ir->tiles);
    if (!ir->insts || !ir->loops || !ir->tiles)
        goto oom;
    ir->nbody = spec->nbody;
    ir->body = lower_body(&L, spec->body, spec->nbody, NULL);
    if (!ir->body || arena->oom)
        goto oom;
    if (L.errors)
        return NULL;
    analyse_tiles(&L);
    if (arena->oom || !complete(ir))
        goto oom;
    return ir;
oom:
    diag_error(diag, (SrcLoc){spec->file, 0, 0}, "E091", "out of memory while lowering the spec");
    return NULL;
}
