/* sema.c - semantic checks of a schema-checked Spec (SPEC.md §2 strictness):
 * tile shapes and inference, region bounds for every loop iteration, operand
 * shapes, dtypes, engine/buffer rules, loop-carried dependences of independent
 * loops and SBUF/PSUM capacity. Loop trip counts are generation-time
 * constants, so each check enumerates exactly the iterations of the loop
 * variables its expressions read, or decides it in closed form where the
 * expressions are affine (sema_affine_*). All enumerations of a spec draw on
 * one budget, SEMA_BUDGET steps; past it check stops with a located E057, so
 * its cost grows with the spec's size, not with trip counts times ops.
 * Codes E03x-E06x; the loop dependence checks are in sema_deps.c. */
#include "sema_int.h"
#include "tg_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Spend n steps of the spec's budget: 0 once it has run out, after one E057
 * at the statement being checked. Every enumeration stops then, so the
 * checks after it are incomplete, and the spec is refused. */
int sema_spend(Sema *s, int64_t n)
{
    if (s->broke)
        return 0;
    s->work += n;
    if (s->work <= SEMA_BUDGET)
        return 1;
    s->broke = 1;
    const SpecStmt *st = s->at; /* set before any enumeration */
    SrcLoc loc = st->loc;
    if (st->kind == SPEC_STMT_LOOP)
        diag_error(s->diag, loc, "E057", "checking this spec needs more than %d steps; it ran out while checking "
                   "the iterations of loop '%s' against each other", SEMA_BUDGET, sema_var_name(s, st));
    else
        diag_error(s->diag, loc, "E057", "checking this spec needs more than %d steps; it ran out while checking "
                   "this op over its loops' iterations", SEMA_BUDGET);
    for (int i = 0; i < s->nloops; i++)
        diag_note(s->diag, s->loops[i]->loc, "loop '%s' runs %lld times", sema_var_name(s, s->loops[i]),
                  (long long)sema_trip_count(s->loops[i]));
    diag_note(s->diag, loc, "loops whose regions are affine in the loop variables with constant extents are "
              "checked in closed form; split or shorten the loops, or write such regions");
    return 0;
}

/* ------------------------------------------------------------- helpers */

static const char *fmt_shape(Sema *s, const Shape *sh)
{
    char buf[96];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "[");
    for (int i = 0; i < sh->rank && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%lld", i ? ", " : "", (long long)sh->d[i]);
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "]");
    return arena_strdup(s->arena, buf);
}

static int64_t free_size(const Shape *sh)
{
    int64_t n = 1;
    for (int i = 1; i < sh->rank; i++)
        n *= sh->d[i];
    return n;
}

SpecTile *sema_ref_tile(Sema *s, const SpecRef *r)
{
    return !r->is_tensor && r->index >= 0 ? &s->spec->tiles[r->index] : NULL;
}

const char *sema_ref_name(const SpecRef *r)
{
    return r->region.name;
}

/* Loop-variable values of the current loops as "i = 2, j = 0" for messages. */
static const char *iter_text(Sema *s, const unsigned char *used)
{
    char buf[160];
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->nloops && n < sizeof buf; i++) {
        SpecStmt *l = s->loops[i];
        if (used && !used[l->slot])
            continue;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s = %lld", n ? ", " : "", sema_var_name(s, l),
                              (long long)s->env[l->slot]);
    }
    if (!n)
        return "";
    return arena_printf(s->arena, " (when %s)", buf);
}

/* Range of loop l in the current env: a bound over enclosing loop variables
 * (SPEC.md §2.1) is evaluated there, and may leave the loop empty. */
void sema_loop_range(const Sema *s, const SpecStmt *l, int64_t *lo, int64_t *hi)
{
    *lo = l->start;
    *hi = l->stop;
    if (l->start_e && expr_eval(l->start_e, s->env, lo, NULL))
        *hi = *lo; /* cannot happen: spec_check evaluated it over the loops' hulls */
    if (l->stop_e && expr_eval(l->stop_e, s->env, hi, NULL))
        *hi = *lo;
}

/* Set v[k..n) to their first values, outermost first; the position of the
 * first loop that is empty in this env, or n. */
static int iter_reset(Sema *s, const int *v, int k, int n)
{
    for (int i = k; i < n; i++) {
        int64_t lo, hi;
        sema_loop_range(s, s->spec->slot_loop[v[i]], &lo, &hi);
        if (lo >= hi)
            return i;
        s->env[v[i]] = lo;
    }
    return n;
}

/* Advance position i or an outer one (resetting those inside): 0 after the
 * last combination. */
static int iter_advance(Sema *s, const int *v, int n, int i)
{
    while (i >= 0) {
        SpecStmt *l = s->spec->slot_loop[v[i]];
        int64_t lo, hi;
        sema_loop_range(s, l, &lo, &hi);
        if (s->env[v[i]] + l->step < hi) {
            if (!sema_spend(s, 1))
                return 0;
            s->env[v[i]] += l->step;
            int j = iter_reset(s, v, i + 1, n);
            if (j == n)
                return 1;
            i = j - 1; /* an inner loop is empty here: move the one around it */
        } else {
            i--;
        }
    }
    return 0;
}

/* Odometer over the slots listed in v[0..n) (outer loops before the loops
 * whose bounds read them): sets env to the first combination, 0 if there is
 * none; next_iter advances, returning 0 after the last. */
int sema_first_iter(Sema *s, const int *v, int n)
{
    int j = iter_reset(s, v, 0, n);
    return j == n || iter_advance(s, v, n, j - 1);
}

int sema_next_iter(Sema *s, const int *v, int n)
{
    return iter_advance(s, v, n, n - 1);
}

/* Add to `used` the loops of chain[0..depth) whose bounds vary (they may skip
 * an access in some iterations) and every loop the bounds of a used one read,
 * so that enumerations over `used` evaluate each range in its real env. */
void sema_chain_vars(const Sema *s, SpecStmt *const *chain, int depth, unsigned char *used)
{
    for (int i = depth - 1; i >= 0; i--) {
        const SpecStmt *l = chain[i];
        if (l->start_e || l->stop_e)
            used[l->slot] = 1;
        if (used[l->slot]) {
            expr_vars_used(l->start_e, used, s->spec->nslots);
            expr_vars_used(l->stop_e, used, s->spec->nslots);
        }
    }
}

/* Iterations over the loop's hull (its bounds' extremes): an upper bound. */
const char *sema_var_name(Sema *s, const SpecStmt *l)
{
    if (!l->grid)
        return l->var;
    const char *v = arena_printf(s->arena, "program_id(%d)", l->grid - 1);
    return v ? v : l->var;
}

int64_t sema_trip_count(const SpecStmt *l)
{
    return (l->stop - l->start + l->step - 1) / l->step;
}

/* The last value over the hull (start when it runs no iteration): within
 * [start, stop), so it cannot overflow. */
int64_t sema_loop_last(const SpecStmt *l)
{
    int64_t t = sema_trip_count(l);
    return t < 1 ? l->start : l->start + l->step * (t - 1);
}

/* Collect the loop slots (of the current loop stack) that `used` marks. */
static int used_slots(Sema *s, const unsigned char *used, int *v, int64_t *count)
{
    int n = 0;
    *count = 1;
    for (int i = 0; i < s->nloops; i++) {
        int slot = s->loops[i]->slot;
        if (used[slot]) {
            v[n++] = slot;
            int64_t t = sema_trip_count(s->loops[i]);
            *count = *count > SEMA_BUDGET ? *count : *count * t;
        }
    }
    return n;
}

void sema_ref_vars(const SpecRef *r, unsigned char *used, int nslots)
{
    for (int d = 0; d < r->rank; d++) {
        expr_vars_used(r->start[d], used, nslots);
        expr_vars_used(r->stop[d], used, nslots);
    }
}

/* ------------------------------------------------------ region normalising */

static const int64_t *target_shape(Sema *s, const SpecRef *r, int *rank)
{
    if (r->is_tensor) {
        *rank = s->spec->tensors[r->index].rank;
        return s->spec->tensors[r->index].shape;
    }
    *rank = s->spec->tiles[r->index].rank;
    return s->spec->tiles[r->index].shape;
}

/* The extents of r's target at the current env: a ragged tile's current
 * shape (its extents were checked over these iterations by ragged_extents). */
static void current_shape(Sema *s, const SpecRef *r, int64_t *out)
{
    int rank;
    const int64_t *shape = target_shape(s, r, &rank);
    for (int d = 0; d < rank; d++)
        if (r->is_tensor || !r->extent[d] || expr_eval(r->extent[d], s->env, &out[d], NULL))
            out[d] = shape[d];
}

/* Fill start/stop/step per target dimension. 0 after reporting an error. */
static int normalize(Sema *s, SpecRef *r)
{
    int rank;
    const int64_t *shape = target_shape(s, r, &rank);
    SrcLoc at = r->region.loc;
    if (r->region.nslices > rank) {
        diag_error(s->diag, r->region.slice[rank].loc, "E034", "'%s' has rank %d but is given %d indices",
                   sema_ref_name(r), rank, r->region.nslices);
        return 0;
    }
    r->rank = rank;
    for (int d = 0; d < rank; d++) {
        r->step[d] = 1;
        r->dropped[d] = 0;
        /* a ragged dim (SPEC.md §2.1): `xt` and `:` mean its current extent */
        Expr *whole = r->is_tensor ? NULL : r->extent[d];
        if (d >= r->region.nslices) {
            r->start[d] = expr_new_int(s->arena, 0, at);
            r->stop[d] = whole ? whole : expr_new_int(s->arena, shape[d], at);
            continue;
        }
        ExprSlice *sl = &r->region.slice[d];
        if (r->ind && d == r->ind_dim) { /* an index column: the whole dimension (its extent: ind_extent) */
            r->start[d] = expr_new_int(s->arena, 0, sl->loc);
            r->stop[d] = expr_new_int(s->arena, shape[d], sl->loc);
            continue;
        }
        if (sl->is_index) {
            if (d == 0 && !r->is_tensor) {
                diag_error(s->diag, sl->loc, "E034",
                           "the partition dimension of tile '%s' cannot take a single index; use a slice a:a+1",
                           sema_ref_name(r));
                return 0;
            }
            r->start[d] = sl->start;
            Expr *one = expr_new_int(s->arena, 1, sl->loc), *e = arena_alloc(s->arena, sizeof *e);
            if (!one || !e)
                return 0;
            e->kind = EXPR_ADD;
            e->a = sl->start;
            e->b = one;
            e->loc = sl->loc;
            r->stop[d] = e;
            r->dropped[d] = 1;
            continue;
        }
        r->start[d] = sl->start ? sl->start : expr_new_int(s->arena, 0, sl->loc);
        r->stop[d] = sl->stop ? sl->stop : whole ? whole : expr_new_int(s->arena, shape[d], sl->loc);
        if (sl->step) {
            int64_t st;
            ExprError err;
            if (!expr_is_const(sl->step) || expr_eval(sl->step, NULL, &st, &err) || st < 1) {
                diag_error(s->diag, sl->step->loc, "E051", "a slice step must be a positive constant");
                return 0;
            }
            if (d == 0 && !r->is_tensor && st != 1) {
                diag_error(s->diag, sl->step->loc, "E051",
                           "the partition dimension of tile '%s' cannot be strided: engines access consecutive "
                           "partitions",
                           sema_ref_name(r));
                return 0;
            }
            r->step[d] = st;
        }
    }
    for (int d = 0; d < rank; d++)
        if (!r->start[d] || !r->stop[d])
            return 0;
    r->normalized = 1;
    return 1;
}

/* Indirect DMA: is dimension d of r its index column's, and the region's
 * first kept dimension (a row gather: one row per index, on partitions)? */
static int ind_rows(const SpecRef *r, int d)
{
    if (!r->ind || d != r->ind_dim)
        return 0;
    for (int k = 0; k < d; k++)
        if (!r->dropped[k])
            return 0;
    return 1;
}

/* The extent of r's index-column dimension as an expression: the column's
 * partitions for a row gather, else 1 (one element per partition). */
static Expr *ind_extent(Sema *s, const SpecRef *r)
{
    const SpecRef *x = r->ind;
    SrcLoc loc = x->region.loc;
    if (!ind_rows(r, r->ind_dim))
        return expr_new_int(s->arena, 1, loc);
    if (!x->normalized)
        return NULL;
    return expr_new_op(s->arena, EXPR_SUB, x->stop[0], x->start[0], loc);
}

/* Evaluate r at the current env: shape, and a bounds check. Returns 0 after
 * reporting an error (bounds, empty, arithmetic). */
static int eval_ref(Sema *s, const SpecRef *r, Shape *sh, const unsigned char *used)
{
    int64_t shape[SPEC_MAX_RANK];
    current_shape(s, r, shape);
    sh->rank = 0;
    for (int d = 0; d < r->rank; d++) {
        int64_t a, b, size = shape[d];
        ExprError err;
        if (expr_eval(r->start[d], s->env, &a, &err) || expr_eval(r->stop[d], s->env, &b, &err)) {
            diag_error(s->diag, err.loc, err.code, "%s%s", err.msg, iter_text(s, used));
            return 0;
        }
        SrcLoc loc = d < r->region.nslices ? r->region.slice[d].loc : r->region.loc;
        const char *kind = r->is_tensor ? "tensor" : "tile";
        if (a < 0 || b > size || a >= size) {
            diag_error(s->diag, loc, "E050", "%s '%s' dimension %d is [%lld, %lld) but its size is %lld%s", kind,
                       sema_ref_name(r), d, (long long)a, (long long)b, (long long)size, iter_text(s, used));
            return 0;
        }
        if (b <= a) {
            diag_error(s->diag, loc, "E051", "empty region: %s '%s' dimension %d is [%lld, %lld)%s", kind,
                       sema_ref_name(r), d, (long long)a, (long long)b, iter_text(s, used));
            return 0;
        }
        if (r->ind && d == r->ind_dim) {
            Expr *x = ind_extent(s, r);
            if (!x || expr_eval(x, s->env, &b, NULL))
                return 0; /* the column's own checks report it */
            sh->d[sh->rank++] = b;
            continue;
        }
        if (!r->dropped[d])
            sh->d[sh->rank++] = (b - a + r->step[d] - 1) / r->step[d];
    }
    return 1;
}

/* ------------------------------------------------------- tile properties */

static int check_tile_decl(Sema *s, SpecTile *t)
{
    int ok = 1;
    if (t->rank < 2) {
        diag_error(s->diag, t->loc, "E030", "tile '%s' has rank %d; tiles are at least 2-D, partition dim first (use [P, 1])",
                   t->name, t->rank);
        ok = 0;
    } else if (t->rank > SPEC_MAX_TILE_RANK) {
        diag_error(s->diag, t->loc, "E030", "tile '%s' has rank %d; tiles have at most %d dims (a partition dim and "
                   "3 free dims: index a dim of the region to drop it)", t->name, t->rank, SPEC_MAX_TILE_RANK);
        ok = 0;
    } else if (t->shape[0] > SPEC_MAX_PARTITIONS) {
        diag_error(s->diag, t->loc, "E031", "tile '%s' has %lld partitions; the limit is %d", t->name,
                   (long long)t->shape[0], SPEC_MAX_PARTITIONS);
        ok = 0;
    }
    if (ok && t->buffer == SPEC_BUF_PSUM) {
        int64_t bytes = (int64_t)tg_dtype_size(t->dtype);
        for (int i = 1; i < t->rank; i++)
            bytes *= t->shape[i];
        if (t->dtype != TG_FLOAT32) {
            diag_error(s->diag, t->loc, "E042", "PSUM tile '%s' is %s; PSUM tiles hold float32", t->name,
                       tg_dtype_name(t->dtype));
            ok = 0;
        } else if (bytes > (int64_t)TG_PSUM_BANKS * TG_PSUM_BANK_BYTES) {
            diag_error(s->diag, t->loc, "E043",
                       "PSUM tile '%s' takes %lld bytes per partition; a PSUM tile spans at most the %d banks of "
                       "%d bytes (%d float32)", t->name, (long long)bytes, TG_PSUM_BANKS, TG_PSUM_BANK_BYTES,
                       TG_PSUM_BANKS * TG_PSUM_TILE_FMAX);
            ok = 0;
        }
    }
    t->bad |= !ok;
    return ok;
}

/* Banks one copy of a PSUM tile spans (SPEC.md §2.1: up to all 8). */
static int psum_banks(const SpecTile *t)
{
    int64_t bytes = (int64_t)tg_dtype_size(t->dtype);
    for (int i = 1; i < t->rank; i++)
        bytes *= t->shape[i];
    return (int)((bytes + TG_PSUM_BANK_BYTES - 1) / TG_PSUM_BANK_BYTES);
}

/* ------------------------------------------------ ragged tiles (§2.1) */

/* A copy of e whose loop variables (names, or variables of the loops of
 * another use) are bound to the slots of the innermost enclosing loops of
 * those names; *missing is set to the first name no enclosing loop declares.
 * NULL when memory runs out. */
static Expr *bind_names(Sema *s, const Expr *e, const char **missing)
{
    Expr *c = arena_alloc(s->arena, sizeof *c);
    if (!c)
        return NULL;
    *c = *e;
    if (e->kind == EXPR_NAME || (e->kind == EXPR_VAR && e->ival >= EXPR_VAR_FIRST && e->name)) {
        for (int i = s->nloops - 1; i >= 0; i--)
            if (!strcmp(s->loops[i]->var, e->name)) {
                c->kind = EXPR_VAR;
                c->ival = s->loops[i]->slot;
                return c;
            }
        if (!*missing)
            *missing = e->name;
        return c;
    }
    if ((e->a && !(c->a = bind_names(s, e->a, missing))) || (e->b && !(c->b = bind_names(s, e->b, missing))))
        return NULL;
    return c;
}

/* A use r of ragged tile t: its shape's loop variables name loops around
 * this use (the innermost of each name), and r->extent holds the shape bound
 * to them, its current extents. 0 after reporting a variable whose loop is
 * not around the use (E026). */
static int ragged_use(Sema *s, SpecTile *t, SpecRef *r)
{
    const char *missing = NULL;
    int at = -1;
    for (int d = 0; d < t->rank; d++) {
        if (!t->shape_e[d])
            continue;
        const char *m = NULL;
        if (!(r->extent[d] = bind_names(s, t->shape_e[d], &m)))
            return 0;
        if (m && !missing) {
            missing = m;
            at = d;
        }
    }
    if (!missing)
        return 1;
    diag_error(s->diag, r->region.loc, "E026",
               "tile '%s' has a ragged shape over loop variable '%s'; it can only be used inside a loop '%s'", t->name,
               missing, missing);
    if (t->declared)
        diag_note(s->diag, t->shape_e[at]->loc, "dimension %d of '%s' reads '%s' here", at, t->name, missing);
    else
        diag_note(s->diag, t->loc, "'%s' takes its shape from this write, where it reads '%s'", t->name, missing);
    t->bad = 1;
    return 0;
}

/* Check the extents of ragged tile t at use r over the iterations of its op
 * (vs[0..nv)), and grow the tile's planned shape to their largest. 0 after
 * an error. */
static int ragged_extents(Sema *s, SpecTile *t, const SpecRef *r, const int *vs, int nv, const unsigned char *used)
{
    for (int go = sema_first_iter(s, vs, nv); go; go = sema_next_iter(s, vs, nv))
        for (int d = 0; d < t->rank; d++) {
            int64_t v;
            ExprError err;
            if (!r->extent[d])
                continue;
            if (expr_eval(r->extent[d], s->env, &v, &err)) {
                diag_error(s->diag, err.loc, err.code, "%s%s", err.msg, iter_text(s, used));
                t->bad = 1;
                return 0;
            }
            if (v < 1 || v > (int64_t)1 << 32) {
                diag_error(s->diag, t->shape_e[d]->loc, "E035", "dimension %d of tile '%s' is %lld%s; it must be 1 to 2^32",
                           d, t->name, (long long)v, iter_text(s, used));
                t->bad = 1;
                return 0;
            }
            if (v > t->shape[d])
                t->shape[d] = v;
        }
    return 1;
}

/* ---------------------------------------------------------------- ops */

typedef struct OpCtx {
    SpecStmt *st;
    SpecRef *ref[SEMA_NREF];   /* ref fields by SpecFieldId (+ reduce dst at SPEC_F_COUNT) */
    Shape sh[SEMA_NREF];       /* their shapes at the current iteration */
    const unsigned char *used; /* loop slots the op's regions read */
} OpCtx;

#define F(x) SPEC_F_##x
#define RED SPEC_F_COUNT

/* The op's {op, dst} reduction field (activation `reduce`, tensor_scalar
 * `accumulate`), whose dst is slot RED; -1 when it has none. */
static int red_field(SpecOpKind op)
{
    if (op == SPEC_OP_ACTIVATION)
        return F(REDUCE);
    return op == SPEC_OP_TENSOR_SCALAR ? F(ACCUMULATE) : -1;
}

static SrcLoc fld_loc(const OpCtx *o, int f)
{
    if (f == RED)
        return o->st->f[red_field(o->st->op)].ref.region.loc;
    return o->st->f[f].loc;
}

static const char *fld_name(const OpCtx *o, int f)
{
    if (f == RED)
        return red_field(o->st->op) == F(REDUCE) ? "reduce.dst" : "accumulate.dst";
    return spec_field_name((SpecFieldId)f);
}

static int shape_mismatch(Sema *s, const OpCtx *o, int f, int g, const char *why)
{
    diag_error(s->diag, fld_loc(o, f), "E032", "'%s' is %s but '%s' is %s%s%s", fld_name(o, f),
               fmt_shape(s, &o->sh[f]), fld_name(o, g), fmt_shape(s, &o->sh[g]), why, iter_text(s, o->used));
    return 0;
}

/* Same partitions and same number of free elements (the hardware rule). */
static int same_shape(Sema *s, const OpCtx *o, int f, int g)
{
    if (!o->ref[f] || !o->ref[g])
        return 1;
    const Shape *a = &o->sh[f], *b = &o->sh[g];
    if (a->d[0] != b->d[0] || free_size(a) != free_size(b))
        return shape_mismatch(s, o, f, g, "; they must have the same partitions and free size");
    return 1;
}

/* A [P,1] operand matching the partitions of field g. */
static int is_column(Sema *s, const OpCtx *o, int f, int g)
{
    if (!o->ref[f])
        return 1;
    const Shape *a = &o->sh[f];
    if (free_size(a) != 1) {
        diag_error(s->diag, fld_loc(o, f), "E036", "'%s' must be a [P, 1] column, but it is %s%s", fld_name(o, f),
                   fmt_shape(s, a), iter_text(s, o->used));
        return 0;
    }
    if (o->ref[g] && a->d[0] != o->sh[g].d[0])
        return shape_mismatch(s, o, f, g, "; they must have the same partitions");
    return 1;
}

/* A matmul or PE transpose writes within one PSUM bank (SPEC.md §2.1): the
 * bytes of its dst region in a partition row, at the current iteration. */
static int in_one_bank(Sema *s, const OpCtx *o)
{
    const SpecRef *r = o->ref[F(DST)];
    const SpecTile *t = r ? sema_ref_tile(s, r) : NULL;
    if (!t || t->buffer != SPEC_BUF_PSUM)
        return 1;
    int64_t lo = 0, hi = 0, stride = 1;
    for (int d = r->rank - 1; d >= 1; d--) { /* row-major strides of the free dims */
        int64_t a, b;
        if (expr_eval(r->start[d], s->env, &a, NULL) || expr_eval(r->stop[d], s->env, &b, NULL))
            return 1; /* eval_ref reported it */
        int64_t last = r->dropped[d] ? a : a + (b - a - 1) / r->step[d] * r->step[d];
        lo += a * stride;
        hi += last * stride;
        stride *= t->shape[d];
    }
    int64_t es = (int64_t)tg_dtype_size(t->dtype), b0 = lo * es / TG_PSUM_BANK_BYTES,
            b1 = ((hi + 1) * es - 1) / TG_PSUM_BANK_BYTES;
    if (b0 == b1)
        return 1;
    diag_error(s->diag, fld_loc(o, F(DST)), "E032",
               "%s writes bytes %lld..%lld of each partition of PSUM tile '%s', across banks %lld and %lld; one "
               "matmul or transpose writes within one %d-byte bank%s", spec_op_name(o->st->op), (long long)(lo * es),
               (long long)((hi + 1) * es - 1), t->name, (long long)b0, (long long)b1, TG_PSUM_BANK_BYTES,
               iter_text(s, o->used));
    return 0;
}

/* Indirect DMA (SPEC.md §2.1): the index column holds one value per
 * partition (E048), on at least the DMA's np partitions (E049). */
static int index_fits(Sema *s, const OpCtx *o, int64_t np)
{
    const Shape *x = &o->sh[F(INDEX)];
    if (free_size(x) != 1) {
        diag_error(s->diag, fld_loc(o, F(INDEX)), "E048", "an index column holds one index per partition; '%s' is "
                   "%s (write a column such as %s[:, 0])%s", sema_ref_name(o->ref[F(INDEX)]), fmt_shape(s, x),
                   sema_ref_name(o->ref[F(INDEX)]), iter_text(s, o->used));
        return 0;
    }
    if (x->d[0] < np) {
        diag_error(s->diag, fld_loc(o, F(INDEX)), "E049", "the index column '%s' has %lld partitions but the DMA "
                   "moves %lld: each partition needs its index%s", sema_ref_name(o->ref[F(INDEX)]),
                   (long long)x->d[0], (long long)np, iter_text(s, o->used));
        return 0;
    }
    return 1;
}

static int check_shapes(Sema *s, OpCtx *o)
{
    SpecStmt *st = o->st;
    switch (st->op) {
    case SPEC_OP_LOAD:
    case SPEC_OP_STORE:
    case SPEC_OP_DMA_COPY: {
        int tile_f = st->op == SPEC_OP_STORE ? F(SRC) : F(DST), hbm_f = st->op == SPEC_OP_STORE ? F(DST) : F(SRC);
        const Shape *t = &o->sh[tile_f], *h = &o->sh[hbm_f];
        if (o->ref[F(INDEX)] && !index_fits(s, o, t->d[0]))
            return 0;
        if (st->f[F(BROADCAST)].boolean) {
            if ((h->rank > 1 && h->d[0] != 1) || (h->rank == 1 ? h->d[0] : free_size(h)) != free_size(t)) {
                diag_error(s->diag, fld_loc(o, F(SRC)), "E032",
                           "a broadcast load reads one row of %lld elements; 'src' is %s for 'dst' %s%s",
                           (long long)free_size(t), fmt_shape(s, h), fmt_shape(s, t), iter_text(s, o->used));
                return 0;
            }
            return 1;
        }
        if (st->f[F(TRANSPOSE)].boolean) { /* a load's src, a store's dst: [a, b] for a [b, a] tile */
            if (h->rank != 2 || t->rank != 2 || h->d[0] != t->d[1] || h->d[1] != t->d[0]) {
                int ld = st->op == SPEC_OP_LOAD;
                /* a whole tile was cut to the region (clip_whole_tile): name the tile's own shape */
                const SpecRef *tr = o->ref[tile_f];
                Shape whole = *t;
                if (tr && !tr->is_tensor && !tr->region.bracketed) {
                    current_shape(s, tr, whole.d);
                    whole.rank = tr->rank;
                }
                diag_error(s->diag, fld_loc(o, hbm_f), "E032",
                           "a transposed %s needs a 2-D region [a, b] for a [b, a] tile; '%s' is %s, '%s' %s%s",
                           ld ? "load" : "store", ld ? "src" : "dst", fmt_shape(s, h), ld ? "dst" : "src",
                           fmt_shape(s, &whole), iter_text(s, o->used));
                return 0;
            }
            return 1;
        }
        int64_t hp = h->d[0], hf = h->rank == 1 ? 1 : free_size(h);
        if (hp != t->d[0] || hf != free_size(t))
            return shape_mismatch(s, o, hbm_f, tile_f, "; a DMA moves equal partitions and free sizes");
        return 1;
    }
    case SPEC_OP_MATMUL: {
        const Shape *a = &o->sh[F(STATIONARY)], *b = &o->sh[F(MOVING)], *d = &o->sh[F(DST)];
        int64_t K1 = a->d[0], M = free_size(a), K2 = b->d[0], N = free_size(b);
        if (K1 != K2) {
            diag_error(s->diag, fld_loc(o, F(MOVING)), "E046",
                       "matmul contraction mismatch: 'stationary' has K = %lld partitions, 'moving' K = %lld%s",
                       (long long)K1, (long long)K2, iter_text(s, o->used));
            return 0;
        }
        if (M > TG_MATMUL_STATIONARY_FMAX) {
            diag_error(s->diag, fld_loc(o, F(STATIONARY)), "E046", "matmul 'stationary' has M = %lld; the limit is %d%s",
                       (long long)M, TG_MATMUL_STATIONARY_FMAX, iter_text(s, o->used));
            return 0;
        }
        if (N > TG_MATMUL_MOVING_FMAX) {
            diag_error(s->diag, fld_loc(o, F(MOVING)), "E046", "matmul 'moving' has N = %lld; the limit is %d%s",
                       (long long)N, TG_MATMUL_MOVING_FMAX, iter_text(s, o->used));
            return 0;
        }
        if (d->d[0] != M || free_size(d) != N) {
            diag_error(s->diag, fld_loc(o, F(DST)), "E032", "matmul 'dst' is %s but stationary^T . moving is [%lld, %lld]%s",
                       fmt_shape(s, d), (long long)M, (long long)N, iter_text(s, o->used));
            return 0;
        }
        return in_one_bank(s, o);
    }
    case SPEC_OP_TRANSPOSE: {
        const Shape *a = &o->sh[F(SRC)], *d = &o->sh[F(DST)];
        if (!in_one_bank(s, o))
            return 0;
        if (a->rank != 2 || d->rank != 2 || d->d[0] != a->d[1] || d->d[1] != a->d[0]) {
            diag_error(s->diag, fld_loc(o, F(DST)), "E032", "transpose of a 2-D %s gives [%lld, %lld], but 'dst' is %s%s",
                       fmt_shape(s, a), (long long)(a->rank == 2 ? a->d[1] : free_size(a)), (long long)a->d[0],
                       fmt_shape(s, d), iter_text(s, o->used));
            return 0;
        }
        return 1;
    }
    case SPEC_OP_ACTIVATION:
        return same_shape(s, o, F(DST), F(SRC)) && is_column(s, o, F(SCALE), F(SRC)) &&
               is_column(s, o, F(BIAS), F(SRC)) && is_column(s, o, RED, F(SRC));
    case SPEC_OP_TENSOR_TENSOR:
    case SPEC_OP_TENSOR_TENSOR_SCAN:
        return same_shape(s, o, F(A), F(B)) && same_shape(s, o, F(DST), F(A)) &&
               (st->op != SPEC_OP_TENSOR_TENSOR_SCAN || is_column(s, o, F(INITIAL), F(A)));
    case SPEC_OP_TENSOR_SCALAR:
        return same_shape(s, o, F(DST), F(SRC)) && is_column(s, o, F(OPERAND0), F(SRC)) &&
               is_column(s, o, F(OPERAND1), F(SRC)) && is_column(s, o, RED, F(SRC));
    case SPEC_OP_TENSOR_REDUCE:
        return is_column(s, o, F(DST), F(SRC));
    case SPEC_OP_SCALAR_TENSOR_TENSOR:
        return same_shape(s, o, F(DST), F(SRC)) && same_shape(s, o, F(B), F(SRC)) &&
               is_column(s, o, F(OPERAND0), F(SRC));
    case SPEC_OP_SELECT: { /* each tile operand dst's shape, or a [P,1] column broadcast along it */
        int sel[3] = {F(PRED), F(ON_TRUE), F(ON_FALSE)};
        for (int i = 0; i < 3; i++) {
            int col = o->ref[sel[i]] && free_size(&o->sh[sel[i]]) == 1;
            if (!(col ? is_column(s, o, sel[i], F(DST)) : same_shape(s, o, sel[i], F(DST))))
                return 0;
        }
        return 1;
    }
    case SPEC_OP_BN_STATS:
    case SPEC_OP_BN_AGGR: {
        const Shape *a = &o->sh[F(SRC)], *d = &o->sh[F(DST)];
        int64_t want = st->op == SPEC_OP_BN_STATS ? TG_BN_STATS_RECORD : 2;
        if (st->op == SPEC_OP_BN_STATS && free_size(a) > TG_BN_STATS_FMAX) {
            diag_error(s->diag, fld_loc(o, F(SRC)), "E038", "bn_stats reads at most %d free elements; 'src' has %lld%s",
                       TG_BN_STATS_FMAX, (long long)free_size(a), iter_text(s, o->used));
            return 0;
        }
        if (st->op == SPEC_OP_BN_AGGR && free_size(a) > TG_BN_AGGR_FMAX) {
            diag_error(s->diag, fld_loc(o, F(SRC)), "E038", "bn_aggr reads at most %d free elements; 'src' has %lld%s",
                       TG_BN_AGGR_FMAX, (long long)free_size(a), iter_text(s, o->used));
            return 0;
        }
        if (st->op == SPEC_OP_BN_AGGR && free_size(a) % TG_BN_STATS_RECORD) {
            diag_error(s->diag, fld_loc(o, F(SRC)), "E038",
                       "bn_aggr reads whole %d-element bn_stats records; 'src' has %lld free elements%s",
                       TG_BN_STATS_RECORD, (long long)free_size(a), iter_text(s, o->used));
            return 0;
        }
        if (d->d[0] != a->d[0] || free_size(d) != want) {
            diag_error(s->diag, fld_loc(o, F(DST)), "E032", "%s writes [%lld, %lld]; 'dst' is %s%s",
                       spec_op_name(st->op), (long long)a->d[0], (long long)want, fmt_shape(s, d), iter_text(s, o->used));
            return 0;
        }
        return 1;
    }
    case SPEC_OP_MAX8:
    case SPEC_OP_NC_FIND_INDEX8:
    case SPEC_OP_NC_MATCH_REPLACE8: {
        const Shape *a = &o->sh[F(SRC)], *d = &o->sh[F(DST)];
        if (st->op != SPEC_OP_NC_MATCH_REPLACE8 && (free_size(a) < 8 || free_size(a) > TG_MAX8_FMAX)) {
            diag_error(s->diag, fld_loc(o, F(SRC)), "E038", "%s reads 8 to %d free elements; 'src' has %lld%s",
                       spec_op_name(st->op), TG_MAX8_FMAX, (long long)free_size(a), iter_text(s, o->used));
            return 0;
        }
        if (o->ref[F(VALUES)] && (o->sh[F(VALUES)].d[0] != a->d[0] || free_size(&o->sh[F(VALUES)]) != 8))
            return shape_mismatch(s, o, F(VALUES), F(SRC), "; 'values' must be [P, 8] on the same partitions");
        if (st->op == SPEC_OP_NC_MATCH_REPLACE8)
            return same_shape(s, o, F(DST), F(SRC));
        if (d->d[0] != a->d[0] || free_size(d) != 8) {
            diag_error(s->diag, fld_loc(o, F(DST)), "E032", "%s writes [%lld, 8]; 'dst' is %s%s", spec_op_name(st->op),
                       (long long)a->d[0], fmt_shape(s, d), iter_text(s, o->used));
            return 0;
        }
        return 1;
    }
    case SPEC_OP_PARTITION_REDUCE: {
        const Shape *a = &o->sh[F(SRC)], *d = &o->sh[F(DST)];
        if (d->d[0] != 1 || free_size(d) != free_size(a)) {
            diag_error(s->diag, fld_loc(o, F(DST)), "E032", "partition_reduce writes [1, %lld]; 'dst' is %s%s",
                       (long long)free_size(a), fmt_shape(s, d), iter_text(s, o->used));
            return 0;
        }
        return 1;
    }
    case SPEC_OP_TENSOR_COPY:
    case SPEC_OP_RECIPROCAL:
    case SPEC_OP_AFFINE_SELECT:
        return same_shape(s, o, F(DST), F(SRC));
    case SPEC_OP_PRINT: /* any region of a tile */
        return 1;
    default:
        return 1;
    }
}

static Expr *mk_bin(Sema *s, ExprKind k, Expr *a, Expr *b, SrcLoc loc) { return expr_new_op(s->arena, k, a, b, loc); }

/* Indices of dimension d of normalised r: (stop - start + step - 1) / step. */
static Expr *dim_extent(Sema *s, const SpecRef *r, int d)
{
    SrcLoc loc = r->region.loc;
    if (r->ind && d == r->ind_dim)
        return ind_extent(s, r);
    Expr *n = mk_bin(s, EXPR_SUB, r->stop[d], r->start[d], loc);
    if (r->step[d] != 1)
        n = mk_bin(s, EXPR_DIV, mk_bin(s, EXPR_ADD, n, expr_new_int(s->arena, r->step[d] - 1, loc), loc),
                   expr_new_int(s->arena, r->step[d], loc), loc);
    return n;
}

/* The v1 rule for DMAs (SPEC.md §2): when the tile side of a load, store or
 * dma_copy is a whole tile (no brackets) and the HBM region is shorter, the
 * DMA moves that many leading partitions, and, dimension for dimension when
 * the region has the tile's rank, that many leading elements: the tile
 * reference becomes [0 : min(region extent, tile extent)] per such dim. */
static void clip_whole_tile(Sema *s, OpCtx *o, const int *vs, int nv)
{
    SpecStmt *st = o->st;
    if ((st->op != SPEC_OP_LOAD && st->op != SPEC_OP_STORE && st->op != SPEC_OP_DMA_COPY) ||
        (st->f[SPEC_F_BROADCAST].present && st->f[SPEC_F_BROADCAST].boolean))
        return;
    SpecRef *t = o->ref[SPEC_F_DST], *h = o->ref[SPEC_F_SRC];
    if (t && t->is_tensor) {
        SpecRef *x = t;
        t = h;
        h = x;
    }
    if (!t || !h || t->is_tensor || !h->is_tensor || t->region.bracketed || !t->normalized || !h->normalized)
        return;
    int kept[SPEC_MAX_RANK], n = 0, map[SPEC_MAX_RANK];
    for (int d = 0; d < h->rank; d++)
        if (!h->dropped[d])
            kept[n++] = d;
    for (int d = 0; d < t->rank; d++)
        map[d] = -1;
    if (st->f[SPEC_F_TRANSPOSE].present && st->f[SPEC_F_TRANSPOSE].boolean) {
        if (n != 2 || t->rank != 2)
            return;
        map[0] = kept[1];
        map[1] = kept[0];
    } else if (n == t->rank) {
        for (int d = 0; d < n; d++)
            map[d] = kept[d];
    } else if (n > 0) {
        map[0] = kept[0];
    }
    for (int d = 0; d < t->rank; d++) {
        if (map[d] < 0)
            continue;
        /* clip only where some iteration's region is shorter (and none is
         * empty: that is the region's E051) */
        Expr *ext = dim_extent(s, h, map[d]);
        int shorter = 0, bad = !ext;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        sema_first_iter(s, vs, nv);
        do {
            int64_t a, b;
            if (bad || expr_eval(ext, s->env, &a, NULL) || expr_eval(t->stop[d], s->env, &b, NULL) || a < 1) {
                bad = 1;
                break;
            }
            shorter |= a < b;
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        } while (sema_next_iter(s, vs, nv));
        if (bad || !shorter)
            continue;
        Expr *c = lo == hi ? expr_new_int(s->arena, lo, t->region.loc) : mk_bin(s, EXPR_MIN, ext, t->stop[d], t->region.loc);
        if (c)
            t->stop[d] = c;
    }
}

/* The current shape of normalised r as extent expressions of its kept dims
 * (integer-indexed dims removed); the number of them. */
static int extent_exprs(Sema *s, const SpecRef *r, Expr **out)
{
    int n = 0;
    for (int d = 0; d < r->rank; d++)
        if (!r->dropped[d])
            out[n++] = dim_extent(s, r, d);
    return n;
}

/* Product of e[from..n) (1 when empty). */
static Expr *extent_product(Sema *s, Expr *const *e, int from, int n, SrcLoc loc)
{
    Expr *p = from < n ? e[from] : expr_new_int(s->arena, 1, loc);
    for (int i = from + 1; i < n; i++)
        p = mk_bin(s, EXPR_MUL, p, e[i], loc);
    return p;
}

/* Infer an undeclared dst tile's shape, dtype and buffer from the op: the
 * current shape of the operand it follows (SPEC.md §2.1), so a dim that
 * varies over the op's iterations (vs[0..nv)) is ragged, with that extent
 * expression, and planned at its largest. */
static void infer_tile(Sema *s, OpCtx *o, int f, const int *vs, int nv)
{
    SpecStmt *st = o->st;
    SpecRef *r = o->ref[f];
    SpecTile *t = sema_ref_tile(s, r);
    if (!t || t->declared || t->rank)
        return;
    if (r->region.bracketed) {
        diag_error(s->diag, r->region.loc, "E025",
                   "tile '%s' is not declared, and its first write covers only a region of it; declare it under 'tiles:'",
                   t->name);
        t->bad = 1;
        return;
    }
    SrcLoc at = r->region.loc;
    const SpecRef *src = st->f[F(SRC)].present && st->f[F(SRC)].is_ref ? &st->f[F(SRC)].ref
                         : st->f[F(A)].present                          ? &st->f[F(A)].ref
                                                                        : NULL;
    for (int i = 0, sel[3] = {F(ON_TRUE), F(ON_FALSE), F(PRED)}; st->op == SPEC_OP_SELECT && !src && i < 3; i++)
        if (st->f[sel[i]].is_ref)
            src = &st->f[sel[i]].ref; /* select: the first tile operand of on_true, on_false, pred */
    Expr *se[SPEC_MAX_RANK] = {0}, *ex[SPEC_MAX_RANK] = {0};
    int ns = src ? extent_exprs(s, src, se) : 0, rank = 0;
    tg_dtype dt = TG_FLOAT32;
    SpecBuffer buf = SPEC_BUF_SBUF;
    if (src && src->index >= 0)
        dt = src->is_tensor ? s->spec->tensors[src->index].dtype : s->spec->tiles[src->index].dtype;
    Expr *one = expr_new_int(s->arena, 1, at);
    switch (st->op) {
    case SPEC_OP_LOAD:
        if (st->f[F(BROADCAST)].boolean || st->f[F(TRANSPOSE)].boolean)
            break;
        memcpy(ex, se, sizeof ex);
        rank = ns;
        if (st->f[F(DTYPE)].present)
            dt = (tg_dtype)st->f[F(DTYPE)].enum_val;
        break;
    case SPEC_OP_MATMUL: {
        Expr *a[SPEC_MAX_RANK], *b[SPEC_MAX_RANK];
        int na = extent_exprs(s, o->ref[F(STATIONARY)], a), nb = extent_exprs(s, o->ref[F(MOVING)], b);
        ex[0] = extent_product(s, a, 1, na, at);
        ex[1] = extent_product(s, b, 1, nb, at);
        rank = 2;
        buf = SPEC_BUF_PSUM;
        dt = TG_FLOAT32;
        break;
    }
    case SPEC_OP_TRANSPOSE:
        ex[0] = extent_product(s, se, 1, ns, at);
        ex[1] = se[0];
        rank = 2;
        buf = SPEC_BUF_PSUM;
        dt = TG_FLOAT32;
        break;
    case SPEC_OP_TENSOR_REDUCE:
        ex[0] = se[0];
        ex[1] = one;
        rank = 2;
        break;
    case SPEC_OP_ACTIVATION:
    case SPEC_OP_TENSOR_SCALAR:
        if (f == RED) {
            ex[0] = se[0];
            ex[1] = one;
            rank = 2;
            dt = TG_FLOAT32;
            break;
        }
        /* fall through */
    case SPEC_OP_TENSOR_COPY:
    case SPEC_OP_TENSOR_TENSOR:
    case SPEC_OP_TENSOR_TENSOR_SCAN:
    case SPEC_OP_SELECT:
    case SPEC_OP_SCALAR_TENSOR_TENSOR:
    case SPEC_OP_RECIPROCAL:
    case SPEC_OP_AFFINE_SELECT:
        memcpy(ex, se, sizeof ex);
        rank = ns;
        break;
    case SPEC_OP_BN_STATS:
    case SPEC_OP_BN_AGGR:
        ex[0] = se[0];
        ex[1] = expr_new_int(s->arena, st->op == SPEC_OP_BN_STATS ? TG_BN_STATS_RECORD : 2, at);
        rank = 2;
        dt = TG_FLOAT32;
        break;
    case SPEC_OP_MAX8:
    case SPEC_OP_NC_FIND_INDEX8:
        ex[0] = se[0];
        ex[1] = expr_new_int(s->arena, 8, at);
        rank = 2;
        if (st->op == SPEC_OP_NC_FIND_INDEX8)
            dt = TG_UINT32;
        break;
    case SPEC_OP_NC_MATCH_REPLACE8:
        memcpy(ex, se, sizeof ex);
        rank = ns;
        break;
    case SPEC_OP_PARTITION_REDUCE:
        ex[0] = one;
        ex[1] = extent_product(s, se, 1, ns, at);
        rank = 2;
        break;
    default:
        break;
    }
    if (rank == 1)
        ex[rank++] = one;
    if (!rank) {
        diag_error(s->diag, r->region.loc, "E025", "cannot infer the shape of tile '%s' from %s; declare it under 'tiles:'",
                   t->name, spec_op_name(st->op));
        t->bad = 1;
        return;
    }
    /* each dim: constant over the op's iterations, or ragged */
    int64_t lo[SPEC_MAX_RANK], hi[SPEC_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        lo[d] = INT64_MAX;
        hi[d] = INT64_MIN;
    }
    for (int go = sema_first_iter(s, vs, nv); go; go = sema_next_iter(s, vs, nv))
        for (int d = 0; d < rank; d++) {
            int64_t v;
            if (!ex[d] || expr_eval(ex[d], s->env, &v, NULL)) {
                t->bad = 1; /* out of memory, or an overflow the operands' checks would have reported */
                return;
            }
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
    if (hi[0] < lo[0]) { /* the op runs in no iteration */
        t->bad = 1;
        return;
    }
    t->rank = rank;
    for (int d = 0; d < rank; d++) {
        t->shape[d] = hi[d];
        if (lo[d] != hi[d]) {
            t->shape_e[d] = ex[d];
            t->ragged = 1;
        }
    }
    t->dtype = dt;
    t->buffer = buf;
    check_tile_decl(s, t);
}

static int is_int_dtype(tg_dtype d)
{
    return !tg_dtype_is_float(d);
}

static tg_dtype ref_dtype(Sema *s, const SpecRef *r)
{
    return r->is_tensor ? s->spec->tensors[r->index].dtype : s->spec->tiles[r->index].dtype;
}

static SpecBuffer ref_buffer(Sema *s, const SpecRef *r)
{
    return r->is_tensor ? SPEC_BUF_SBUF : s->spec->tiles[r->index].buffer;
}

static int is_psum(Sema *s, const OpCtx *o, int f)
{
    return o->ref[f] && !o->ref[f]->is_tensor && ref_buffer(s, o->ref[f]) == SPEC_BUF_PSUM;
}

static void tile_note(Sema *s, const SpecRef *r)
{
    SpecTile *t = sema_ref_tile(s, r);
    if (t)
        diag_note(s->diag, t->loc, "'%s' %s here", t->name, t->declared ? "declared" : "first written");
}

/* Engine / buffer / dtype rules of one op (shape independent). */
static void check_rules(Sema *s, OpCtx *o)
{
    SpecStmt *st = o->st;
    SpecEngine eng = spec_op_engine(st->op);
    const char *opn = spec_op_name(st->op);
    /* DMA endpoints: HBM or SBUF, never PSUM */
    if (eng == SPEC_ENGINE_DMA) {
        for (int f = 0; f < SEMA_NREF; f++)
            if (is_psum(s, o, f)) {
                diag_error(s->diag, fld_loc(o, f), "E047", "%s cannot access PSUM tile '%s'; copy it to SBUF with tensor_copy first",
                           opn, sema_ref_name(o->ref[f]));
                tile_note(s, o->ref[f]);
            }
    }
    if (eng == SPEC_ENGINE_POOL)
        for (int f = 0; f < SEMA_NREF; f++)
            if (is_psum(s, o, f)) {
                diag_error(s->diag, fld_loc(o, f), "E044", "%s runs on GpSimd, which cannot access PSUM tile '%s'", opn,
                           sema_ref_name(o->ref[f]));
                tile_note(s, o->ref[f]);
            }
    if (eng == SPEC_ENGINE_PE) {
        int ins[] = {F(STATIONARY), F(MOVING), F(SRC)};
        for (int i = 0; i < 3; i++)
            if (o->ref[ins[i]] && ref_buffer(s, o->ref[ins[i]]) != SPEC_BUF_SBUF) {
                diag_error(s->diag, fld_loc(o, ins[i]), "E040", "%s reads '%s' from SBUF; '%s' is in PSUM", opn,
                           fld_name(o, ins[i]), sema_ref_name(o->ref[ins[i]]));
                tile_note(s, o->ref[ins[i]]);
            }
        if (o->ref[F(DST)] && ref_buffer(s, o->ref[F(DST)]) != SPEC_BUF_PSUM) {
            diag_error(s->diag, fld_loc(o, F(DST)), "E041", "%s writes PSUM; 'dst' tile '%s' is in SBUF", opn,
                       sema_ref_name(o->ref[F(DST)]));
            tile_note(s, o->ref[F(DST)]);
        }
        if (st->op == SPEC_OP_MATMUL && o->ref[F(STATIONARY)] && o->ref[F(MOVING)]) {
            tg_dtype a = ref_dtype(s, o->ref[F(STATIONARY)]), b = ref_dtype(s, o->ref[F(MOVING)]);
            int wa = a == TG_FLOAT32 || a == TG_TFLOAT32, wb = b == TG_FLOAT32 || b == TG_TFLOAT32;
            if (is_int_dtype(a) || is_int_dtype(b))
                diag_error(s->diag, fld_loc(o, is_int_dtype(a) ? F(STATIONARY) : F(MOVING)), "E033",
                           "matmul takes float operands; '%s' is %s", is_int_dtype(a) ? "stationary" : "moving",
                           tg_dtype_name(is_int_dtype(a) ? a : b));
            else if (wa != wb)
                diag_error(s->diag, fld_loc(o, F(MOVING)), "E033",
                           "matmul pairs float32/tfloat32 only with float32/tfloat32; got %s and %s", tg_dtype_name(a),
                           tg_dtype_name(b));
        }
    }
    /* two-input Vector ops: at most one operand in PSUM */
    if (eng == SPEC_ENGINE_DVE) {
        int n = 0, last = -1;
        for (int f = 0; f < SEMA_NREF; f++) {
            if (f == F(DST) || f == RED || !o->ref[f] || !is_psum(s, o, f))
                continue;
            n++;
            if (n == 2)
                last = f;
        }
        if (n > 1)
            diag_error(s->diag, fld_loc(o, last), "E045",
                       "%s reads %d operands from PSUM; a Vector op may read at most one", opn, n);
    }
    /* ALU ops and their dtypes */
    int alus[] = {F(OP), F(OP0), F(OP1)};
    for (int i = 0; i < 3; i++) {
        const SpecValue *v = &st->f[alus[i]];
        if (!v->present)
            continue;
        SpecAlu a = (SpecAlu)v->enum_val;
        char cls = spec_alu_class(a);
        if (cls == 'B')
            for (int f = 0; f < SEMA_NREF; f++)
                if (o->ref[f] && !is_int_dtype(ref_dtype(s, o->ref[f]))) {
                    diag_error(s->diag, v->loc, "E033", "ALU op '%s' needs integer operands; '%s' is %s",
                               spec_alu_name(a), sema_ref_name(o->ref[f]), tg_dtype_name(ref_dtype(s, o->ref[f])));
                    break;
                }
        int reduce_ok = cls != 'C' && a != SPEC_ALU_DIVIDE && a != SPEC_ALU_POWER && a != SPEC_ALU_ABS &&
                        a != SPEC_ALU_LEFT_SHIFT && a != SPEC_ALU_RIGHT_SHIFT;
        if (st->op == SPEC_OP_TENSOR_REDUCE && !reduce_ok)
            diag_error(s->diag, v->loc, "E033", "'%s' cannot reduce; use add, subtract, multiply, maximum, minimum or a logical/bitwise op",
                       spec_alu_name(a));
        if (st->op == SPEC_OP_PARTITION_REDUCE && a != SPEC_ALU_ADD && a != SPEC_ALU_MAXIMUM &&
            a != SPEC_ALU_BITWISE_OR && a != SPEC_ALU_BITWISE_AND)
            diag_error(s->diag, v->loc, "E033", "partition_reduce supports add, maximum, bitwise_or and bitwise_and, not '%s'",
                       spec_alu_name(a));
        if (a == SPEC_ALU_ABS && (st->op == SPEC_OP_TENSOR_TENSOR || st->op == SPEC_OP_TENSOR_TENSOR_SCAN ||
                                  (st->op == SPEC_OP_SCALAR_TENSOR_TENSOR && alus[i] == F(OP1))))
            diag_error(s->diag, v->loc, "E033", "'abs' is a unary op; %s needs a binary one", opn);
        if (st->op == SPEC_OP_SCALAR_TENSOR_TENSOR && cls == 'B') /* NKI: arithmetic operators only */
            diag_error(s->diag, v->loc, "E033", "scalar_tensor_tensor takes arithmetic ops; '%s' is a bitvec op",
                       spec_alu_name(a));
    }
    int rf = red_field(st->op);
    if (rf >= 0 && st->f[rf].present) {
        SpecAlu r = (SpecAlu)st->f[rf].enum_val;
        if (r != SPEC_ALU_ADD && r != SPEC_ALU_MAXIMUM && r != SPEC_ALU_MINIMUM)
            diag_error(s->diag, st->f[rf].loc, "E033", "%s %s supports op add, maximum or minimum, not '%s'", opn,
                       spec_field_name((SpecFieldId)rf), spec_alu_name(r));
        for (int i = 1; rf == F(ACCUMULATE) && i < 3; i++) /* NKI tensor_scalar_reduce: arithmetic ops */
            if (st->f[alus[i]].present && spec_alu_class((SpecAlu)st->f[alus[i]].enum_val) == 'B')
                diag_error(s->diag, st->f[alus[i]].loc, "E033", "tensor_scalar with 'accumulate' takes arithmetic ops; '%s' is a bitvec op",
                           spec_alu_name((SpecAlu)st->f[alus[i]].enum_val));
    }
    if (st->op == SPEC_OP_ACTIVATION) {
        const SpecRef *b = o->ref[F(BIAS)];
        if (b) {
            tg_dtype d = ref_dtype(s, b);
            if (d != TG_FLOAT32 && d != TG_FLOAT16 && d != TG_BFLOAT16)
                diag_error(s->diag, fld_loc(o, F(BIAS)), "E033", "activation bias must be float32, float16 or bfloat16; '%s' is %s",
                           sema_ref_name(b), tg_dtype_name(d));
        }
        if (o->ref[F(SCALE)] && ref_dtype(s, o->ref[F(SCALE)]) != TG_FLOAT32)
            diag_error(s->diag, fld_loc(o, F(SCALE)), "E033", "activation scale must be float32; '%s' is %s",
                       sema_ref_name(o->ref[F(SCALE)]), tg_dtype_name(ref_dtype(s, o->ref[F(SCALE)])));
    }
    if (st->op == SPEC_OP_AFFINE_SELECT && o->ref[F(SRC)]) {
        tg_dtype d = ref_dtype(s, o->ref[F(SRC)]);
        if (is_int_dtype(d) && tg_dtype_size(d) > 2) /* nki.isa.affine_select: any float, 8- or 16-bit integer */
            diag_error(s->diag, fld_loc(o, F(SRC)), "E033",
                       "affine_select takes float or 8- or 16-bit integer data; '%s' is %s",
                       sema_ref_name(o->ref[F(SRC)]), tg_dtype_name(d));
    }
    if (st->op == SPEC_OP_NC_FIND_INDEX8 && o->ref[F(DST)] && ref_dtype(s, o->ref[F(DST)]) != TG_UINT32 &&
        ref_dtype(s, o->ref[F(DST)]) != TG_UINT16)
        diag_error(s->diag, fld_loc(o, F(DST)), "E033", "nc_find_index8 writes uint32 or uint16 indices; '%s' is %s",
                   sema_ref_name(o->ref[F(DST)]), tg_dtype_name(ref_dtype(s, o->ref[F(DST)])));
    if ((st->op == SPEC_OP_BN_STATS || st->op == SPEC_OP_BN_AGGR) && o->ref[F(SRC)] &&
        is_int_dtype(ref_dtype(s, o->ref[F(SRC)])))
        diag_error(s->diag, fld_loc(o, F(SRC)), "E033", "%s takes float data; '%s' is %s", opn,
                   sema_ref_name(o->ref[F(SRC)]), tg_dtype_name(ref_dtype(s, o->ref[F(SRC)])));
    if (o->ref[F(INDEX)]) {
        tg_dtype d = ref_dtype(s, o->ref[F(INDEX)]);
        if (!is_int_dtype(d))
            diag_error(s->diag, fld_loc(o, F(INDEX)), "E048", "an index column holds integers; '%s' is %s",
                       sema_ref_name(o->ref[F(INDEX)]), tg_dtype_name(d));
        int bad = st->f[F(TRANSPOSE)].boolean ? F(TRANSPOSE) : st->f[F(BROADCAST)].boolean ? F(BROADCAST) : -1;
        if (bad >= 0)
            diag_error(s->diag, st->f[bad].loc, "E048", "a %s with an index column cannot also %s", opn,
                       spec_field_name((SpecFieldId)bad));
    }
    if (st->op == SPEC_OP_LOAD && st->f[F(TRANSPOSE)].boolean && st->f[F(BROADCAST)].boolean)
        diag_error(s->diag, st->f[F(BROADCAST)].loc, "E013", "a load cannot both transpose and broadcast");
}

static void add_access(Sema *s, SpecStmt *st, const SpecRef *r, int is_write)
{
    if (s->nacc == s->acc_cap) {
        int cap = s->acc_cap ? s->acc_cap * 2 : 64;
        Access *v = realloc(s->acc, (size_t)cap * sizeof *v);
        if (!v)
            return;
        s->acc = v;
        s->acc_cap = cap;
    }
    SpecStmt **chain = arena_alloc(s->arena, (size_t)(s->nloops + 1) * sizeof *chain);
    if (!chain)
        return;
    memcpy(chain, s->loops, (size_t)s->nloops * sizeof *chain);
    s->acc[s->nacc++] = (Access){st, r, is_write, s->seq, chain, s->nloops};
}

static int field_is_write(SpecOpKind op, int f)
{
    if (f == RED)
        return 1;
    int kind = spec_op_field(op, (SpecFieldId)f, NULL);
    return kind == SPEC_FK_TILE_OUT || kind == SPEC_FK_HBM_OUT || kind == SPEC_FK_ANY_OUT;
}

/* Closed form of an op's iterations. When every loop in vs[0..nv) has
 * constant bounds and every dimension of every region in o (those already
 * normalised) is affine in the loop variables with an extent that does not
 * depend on them, each bound (and each subexpression: affine too) takes its
 * extremes at the corners of the iteration box, and every iteration has the
 * same shapes. Then the corners decide the bounds checks and overflow
 * exactly, and one iteration stands for all. Returns 1 when that holds and
 * every corner passes; -1 when a corner fails (env is left there); 0 when
 * the closed form does not apply. On 0 and -1 the exact enumeration reports
 * the first failing iteration, or, on -1 when it would exceed the budget,
 * the failing corner is reported. On 1 env is at no particular values. */
static int affine_op(Sema *s, const OpCtx *o, const int *vs, int nv)
{
    int n = s->spec->nslots;
    int64_t c1, c2, coef1[EXPR_AFFINE_MAX_VARS], coef2[EXPR_AFFINE_MAX_VARS], lo[SPEC_MAX_DEPTH], hi[SPEC_MAX_DEPTH];
    if (!SEMA_CLOSED_FORM || n > EXPR_AFFINE_MAX_VARS || nv > 16)
        return 0;
    for (int k = 0; k < nv; k++) {
        const SpecStmt *l = s->spec->slot_loop[vs[k]];
        if (l->start_e || l->stop_e || sema_trip_count(l) < 1)
            return 0;
        lo[k] = l->start;
        hi[k] = sema_loop_last(l);
    }
    for (int f = 0; f < SEMA_NREF; f++) {
        const SpecRef *r = o->ref[f];
        if (!r || !r->normalized)
            continue;
        if (!r->is_tensor && s->spec->tiles[r->index].ragged)
            return 0; /* bounds are its extents in each iteration */
        for (int d = 0; d < r->rank; d++) {
            if (!expr_affine(r->start[d], n, coef1, &c1) || !expr_affine(r->stop[d], n, coef2, &c2))
                return 0;
            for (int v = 0; v < n; v++)
                if (coef1[v] != coef2[v])
                    return 0; /* an extent that varies */
        }
    }
    for (uint32_t corner = 0; corner < (uint32_t)1 << nv; corner++) {
        for (int k = 0; k < nv; k++)
            s->env[vs[k]] = corner >> k & 1 ? hi[k] : lo[k];
        for (int f = 0; f < SEMA_NREF; f++) {
            const SpecRef *r = o->ref[f];
            if (!r || !r->normalized)
                continue;
            int rank;
            const int64_t *shape = target_shape(s, r, &rank);
            for (int d = 0; d < r->rank; d++) {
                int64_t a, b;
                    if (expr_eval(r->start[d], s->env, &a, NULL) || expr_eval(r->stop[d], s->env, &b, NULL) || a < 0 ||
                    b > shape[d] || a >= shape[d] || b <= a)
                    return -1;
            }
        }
    }
    return 1;
}

/* How many of the loops vs[0..nv) a pass over op o enumerates: nv, or 0
 * when one iteration stands for all (affine_op), with env set to it: the
 * first, or a failing corner when enumerating up to the first failure could
 * exceed what is left of the budget (count: the iterations, saturated). */
static int pass_loops(Sema *s, const OpCtx *o, const int *vs, int nv, int64_t count)
{
    int a = affine_op(s, o, vs, nv);
    if (a < 0 && count > SEMA_BUDGET - s->work)
        return 0;
    return a > 0 && sema_first_iter(s, vs, nv) ? 0 : nv;
}

/* Number fields over loop variables (SPEC.md §2.1): evaluated at every
 * iteration of the loops they read, as the back ends will, so that a division
 * by zero, a NaN or a value beyond float32 is check's located error (E018)
 * with the iteration, never a back end's. */
static void check_numbers(Sema *s, const SpecStmt *st)
{
    for (int f = 0; f < SPEC_F_COUNT; f++) {
        const Expr *x = st->f[f].present ? st->f[f].numx : NULL;
        if (!x)
            continue;
        unsigned char *used = arena_alloc(s->arena, (size_t)s->spec->nslots);
        if (!used)
            return;
        expr_vars_used(x, used, s->spec->nslots);
        sema_chain_vars(s, s->loops, s->nloops, used);
        int vs[SPEC_MAX_DEPTH];
        int64_t count;
        int nv = used_slots(s, used, vs, &count);
        for (int go = sema_first_iter(s, vs, nv); go; go = sema_next_iter(s, vs, nv)) {
            ExprError err;
            double v;
            if (expr_eval_float(x, s->env, &v, &err)) {
                diag_error(s->diag, err.loc, err.code ? err.code : "E018", "%s in '%s'%s", err.msg,
                           spec_field_name((SpecFieldId)f), iter_text(s, used));
                break;
            }
        }
    }
}

static void check_op(Sema *s, SpecStmt *st)
{
    OpCtx o;
    memset(&o, 0, sizeof o);
    o.st = st;
    s->at = st;
    s->seq++;
    int ok = 1;
    /* collect and normalise region fields; reads before writes */
    for (int f = 0; f < SEMA_NREF; f++) {
        int rf = red_field(st->op);
        SpecValue *v = f == RED ? (rf >= 0 ? &st->f[rf] : NULL) : &st->f[f];
        if (!v || f == rf)
            continue; /* its dst is slot RED */
        if (!v->present || !v->is_ref || v->ref.index < 0)
            continue;
        SpecRef *r = &v->ref;
        SpecTile *t = sema_ref_tile(s, r);
        if (t && t->bad)
            return;
        if (t && !t->rank && !field_is_write(st->op, f))
            return; /* read of a tile whose inference failed */
        if (t && t->ragged && t->rank && !ragged_use(s, t, r))
            return;
        o.ref[f] = r;
    }
    unsigned char *used = arena_alloc(s->arena, (size_t)s->spec->nslots);
    if (!used)
        return;
    o.used = used;
    for (int f = 0; f < SEMA_NREF; f++) {
        SpecTile *t = o.ref[f] ? sema_ref_tile(s, o.ref[f]) : NULL;
        if (o.ref[f] && !(t && !t->rank)) {
            if (!normalize(s, o.ref[f]))
                return;
            sema_ref_vars(o.ref[f], used, s->spec->nslots);
            for (int d = 0; t && t->ragged && d < t->rank; d++)
                expr_vars_used(o.ref[f]->extent[d], used, s->spec->nslots);
        }
    }
    int vs[SPEC_MAX_DEPTH];
    int64_t count;
    sema_chain_vars(s, s->loops, s->nloops, used);
    int nv = used_slots(s, used, vs, &count);
    for (int f = 0; f < SEMA_NREF; f++) {
        SpecTile *t = o.ref[f] ? sema_ref_tile(s, o.ref[f]) : NULL;
        if (t && t->ragged && t->rank && !ragged_extents(s, t, o.ref[f], vs, nv, used))
            return;
    }
    /* nall: the loops each pass enumerates; 0 when the first iteration
     * stands for all (affine_op), with env set to it */
    int nall = pass_loops(s, &o, vs, nv, count);
    clip_whole_tile(s, &o, vs, nall);
    /* bounds of every read (and of writes to known tiles) before inference */
    for (int go = sema_first_iter(s, vs, nall); go; go = ok && sema_next_iter(s, vs, nall)) {
        for (int f = 0; f < SEMA_NREF && ok; f++) {
            SpecTile *t = o.ref[f] ? sema_ref_tile(s, o.ref[f]) : NULL;
            Shape sh;
            if (o.ref[f] && !(t && !t->rank) && !eval_ref(s, o.ref[f], &sh, used))
                ok = 0;
        }
    }
    if (!ok)
        return;
    for (int f = 0; f < SEMA_NREF; f++) {
        SpecTile *t = o.ref[f] ? sema_ref_tile(s, o.ref[f]) : NULL;
        if (t && !t->rank) {
            infer_tile(s, &o, f, vs, nall);
            if (t->bad || (t->ragged && !ragged_use(s, t, o.ref[f])) || !normalize(s, o.ref[f]))
                return;
        }
    }
    check_rules(s, &o);
    check_numbers(s, st);
    /* shape pass, per iteration (the inferred dst is affine_op's too) */
    nall = pass_loops(s, &o, vs, nv, count);
    for (int go = sema_first_iter(s, vs, nall); go; go = ok && sema_next_iter(s, vs, nall)) {
        for (int f = 0; f < SEMA_NREF && ok; f++)
            if (o.ref[f] && !eval_ref(s, o.ref[f], &o.sh[f], used))
                ok = 0;
        if (ok && !check_shapes(s, &o))
            ok = 0;
    }
    /* accesses for the dependence checks; a matmul that accumulates reads its dst */
    for (int f = 0; f < SEMA_NREF; f++) {
        if (!o.ref[f])
            continue;
        int w = field_is_write(st->op, f);
        add_access(s, st, o.ref[f], w);
        if (!o.ref[f]->is_tensor && !w && !s->tile_written[o.ref[f]->index] && !s->diag->nerrors) {
            SpecTile *t = sema_ref_tile(s, o.ref[f]);
            diag_warning(s->diag, fld_loc(&o, f), "W001", "tile '%s' is read before anything writes it", t->name);
            s->tile_written[o.ref[f]->index] = 1;
        }
    }
    if (st->op == SPEC_OP_MATMUL && st->f[F(ACCUMULATE)].boolean && o.ref[F(DST)])
        add_access(s, st, o.ref[F(DST)], 0);
    for (int f = 0; f < SEMA_NREF; f++)
        if (o.ref[f] && !o.ref[f]->is_tensor && field_is_write(st->op, f))
            s->tile_written[o.ref[f]->index] = 1;
}

static void walk(Sema *s, SpecStmt **body, int n)
{
    for (int i = 0; i < n; i++) {
        SpecStmt *st = body[i];
        if (st->kind == SPEC_STMT_LOOP) {
            if (st->bad || s->nloops >= SPEC_MAX_DEPTH)
                continue;
            if (s->nloops == SPEC_MAX_LOOP_DEPTH) {
                diag_error(s->diag, st->loc, "E058", "loop '%s' nests %d deep; loops nest at most %d deep (the "
                           "machine's loop registers)", st->var, s->nloops + 1, SPEC_MAX_LOOP_DEPTH);
                diag_note(s->diag, s->loops[0]->loc, "the outermost enclosing loop");
                continue;
            }
            s->loops[s->nloops++] = st;
            walk(s, st->body, st->nbody);
            s->nloops--;
        } else if (!st->bad) {
            check_op(s, st);
        }
    }
}

#undef F
#undef RED

/* ------------------------------------------------------------- print labels */

/* Prints under body[0..n) into out[] (NULL: count them only). */
static int collect_prints(SpecStmt **body, int n, SpecStmt **out, int k)
{
    for (int i = 0; i < n; i++) {
        SpecStmt *st = body[i];
        if (st->kind == SPEC_STMT_LOOP)
            k = collect_prints(st->body, st->nbody, out, k);
        else if (!st->bad && st->op == SPEC_OP_PRINT && st->f[SPEC_F_LABEL].label) {
            if (out)
                out[k] = st;
            k++;
        }
    }
    return k;
}

/* Every print has its own label: the host names what it saves by the label
 * and the loop indices (tilegen run --print-dir), so two prints may not
 * share one (E080). */
static void check_print_labels(Sema *s)
{
    int n = collect_prints(s->spec->body, s->spec->nbody, NULL, 0);
    SpecStmt **p = n > 1 ? arena_alloc(s->arena, (size_t)n * sizeof *p) : NULL;
    if (!p)
        return;
    collect_prints(s->spec->body, s->spec->nbody, p, 0);
    for (int i = 1; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(p[i]->f[SPEC_F_LABEL].label, p[j]->f[SPEC_F_LABEL].label)) {
                diag_error(s->diag, p[i]->f[SPEC_F_LABEL].loc, "E080",
                           "print label '%s' is already used; each print needs its own label (its .npy files are "
                           "named by it)", p[i]->f[SPEC_F_LABEL].label);
                diag_note(s->diag, p[j]->f[SPEC_F_LABEL].loc, "the first print labelled '%s'",
                          p[j]->f[SPEC_F_LABEL].label);
                break;
            }
}

/* ------------------------------------------------------------- capacity */

/* Bytes per partition one copy of SBUF tile t reserves: its size rounded up
 * to the planner's alignment. */
static int64_t sbuf_slot(const SpecTile *t)
{
    int64_t bytes = (int64_t)tg_dtype_size(t->dtype);
    for (int d = 1; d < t->rank; d++)
        bytes *= t->shape[d];
    return (bytes + SPEC_SBUF_ALIGN - 1) / SPEC_SBUF_ALIGN * SPEC_SBUF_ALIGN;
}

/* Limits of the binary program (spec.h): checked here so that a spec `check`
 * accepts also assembles. */
static void check_program_limits(Sema *s)
{
    Spec *sp = s->spec;
    SrcLoc top = {sp->file, sp->root->loc.line, sp->root->loc.col};
    for (int i = 0; i < sp->ntensors; i++) {
        const SpecTensor *t = &sp->tensors[i];
        int64_t inner = 1, big = (int64_t)TG_ISA_MAX_TENSOR_BYTES; /* dims < 2^32: no overflow below */
        for (int d = 1; d < t->rank && inner <= TG_ISA_MAX_STRIDE; d++)
            inner *= t->shape[d];
        if (inner > TG_ISA_MAX_STRIDE)
            diag_error(s->diag, t->loc, "E037", "tensor '%s': one index of its first dim spans more than 2^31 - 1 "
                       "elements (its dims after the first); the binary program's steps are 32-bit", t->name);
        else if (t->shape[0] > big / (int64_t)tg_dtype_size(t->dtype) / inner)
            diag_error(s->diag, t->loc, "E037", "tensor '%s' takes more than 2^40 bytes, the most a kernel's tensor "
                       "can", t->name);
    }
    if (sp->ntensors > SPEC_MAX_TABLE)
        diag_error(s->diag, top, "E062", "the spec has %d tensors; a kernel has at most %d", sp->ntensors,
                   SPEC_MAX_TABLE);
    if (sp->ntiles > SPEC_MAX_TABLE)
        diag_error(s->diag, top, "E062", "the spec has %d tiles (declared and inferred); a kernel has at most %d",
                   sp->ntiles, SPEC_MAX_TABLE);
}

static void check_capacity(Sema *s)
{
    Spec *sp = s->spec;
    int64_t usable = spec_sbuf_usable(sp->target), sbuf = 0;
    int banks = 0;
    for (int i = 0; i < sp->ntiles; i++) {
        SpecTile *t = &sp->tiles[i];
        if (t->bad || !t->rank)
            continue;
        if (t->buffer == SPEC_BUF_SBUF)
            sbuf += sbuf_slot(t) * t->bufs;
        else
            banks += t->bufs * psum_banks(t);
    }
    if (sbuf > usable) {
        diag_error(s->diag, (SrcLoc){sp->file, sp->root->loc.line, sp->root->loc.col}, "E060",
                   "SBUF overflow: tiles take %lld bytes per partition; %s has %lld usable", (long long)sbuf,
                   tg_machine_of(sp->target).name, (long long)usable);
        for (int i = 0; i < sp->ntiles; i++) {
            SpecTile *t = &sp->tiles[i];
            if (t->bad || !t->rank || t->buffer != SPEC_BUF_SBUF)
                continue;
            int64_t bytes = sbuf_slot(t);
            diag_note(s->diag, t->loc, "'%s' takes %lld bytes per partition (%lld x %d bufs)", t->name,
                      (long long)(bytes * t->bufs), (long long)bytes, t->bufs);
        }
    }
    if (banks > TG_PSUM_BANKS) {
        diag_error(s->diag, (SrcLoc){sp->file, sp->root->loc.line, sp->root->loc.col}, "E061",
                   "PSUM overflow: tiles take %d banks; there are %d (each buffer of a tile takes the banks its "
                   "bytes span)", banks, TG_PSUM_BANKS);
        for (int i = 0; i < sp->ntiles; i++) {
            SpecTile *t = &sp->tiles[i];
            int n = !t->bad && t->rank && t->buffer == SPEC_BUF_PSUM ? t->bufs * psum_banks(t) : 0;
            if (n)
                diag_note(s->diag, t->loc, "'%s' takes %d bank%s", t->name, n, n == 1 ? "" : "s");
        }
    }
}

int sema_check(Spec *spec, Diag *diag, Arena *arena)
{
    Sema s = {.spec = spec, .diag = diag, .arena = arena, .errors0 = diag->nerrors};
    s.env = arena_alloc(arena, (size_t)spec->nslots * sizeof *s.env);
    s.tile_written = arena_alloc(arena, (size_t)spec->ntiles + 1);
    if (!s.env || !s.tile_written)
        return 1;
    for (int i = 0; i < spec->ntiles; i++)
        if (spec->tiles[i].declared && !spec->tiles[i].bad)
            check_tile_decl(&s, &spec->tiles[i]);
    walk(&s, spec->body, spec->nbody);
    check_print_labels(&s);
    /* ragged tiles now have their planned (largest) shape; one that nothing
     * uses is never placed, its ragged dims count as 1 */
    for (int i = 0; i < spec->ntiles; i++) {
        SpecTile *t = &spec->tiles[i];
        if (!t->ragged || t->bad || !t->rank)
            continue;
        for (int d = 0; d < t->rank; d++)
            if (t->shape_e[d] && !t->shape[d])
                t->shape[d] = 1;
        check_tile_decl(&s, t);
    }
    sema_check_loops(&s, spec->body, spec->nbody);
    /* E054 and the like first: their reads would repeat here; and a spec with
     * errors of any phase is not built, so it is not run (its loops may be
     * of any trip count) */
    if (diag->nerrors == 0)
        sema_check_unwritten(&s);
    check_capacity(&s);
    check_program_limits(&s);
    for (int i = spec->ninputs; i < spec->npublic; i++) {
        int written = !spec->tensors[i].is_output; /* scratch: E078 covers its reads */
        for (int j = 0; j < s.nacc && !written; j++)
            written = s.acc[j].is_write && s.acc[j].ref->is_tensor && s.acc[j].ref->index >= 0 &&
                      spec->tensors[s.acc[j].ref->index].base == i;
        if (!written && !diag->nerrors)
            diag_warning(diag, spec->tensors[i].loc, "W002", "output '%s' is never written", spec->tensors[i].name);
    }
    free(s.acc);
    free(s.cov.bits);
    return diag->nerrors - s.errors0;
}
