/* sema_deps.c - the dependence checks of sema (SPEC.md §2 loops): reads an
 * independent loop's iteration makes of what another iteration writes (E054),
 * overlapping output writes of independent iterations (E055, in closed form
 * where the regions are affine), and reads of tile elements nothing has
 * written yet (E056); each exact within the spec's budget (sema_spend). */
#include "sema_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ loop dependences */

/* Box of r at the current env: lo/hi per target dim. */
static int box_of(Sema *s, const SpecRef *r, int64_t *lo, int64_t *hi)
{
    for (int d = 0; d < r->rank; d++) {
        if (expr_eval(r->start[d], s->env, &lo[d], NULL) || expr_eval(r->stop[d], s->env, &hi[d], NULL))
            return 0;
        int64_t n = (hi[d] - lo[d] + r->step[d] - 1) / r->step[d];
        hi[d] = lo[d] + (n - 1) * r->step[d] + 1;
    }
    return 1;
}

/* ---------------------------------------- same-iteration coverage (E054) */

/* A read in an independent loop must find every element it reads written
 * earlier in the same iteration. This is decided exactly on a bitmap of the
 * tile (one bit per element, row-major): at each iteration of the read's
 * loops, the earlier writes are marked (each write at every iteration of its
 * own loops, those that do not enclose the read, with its steps), then every
 * element the read touches, with its steps, is tested. The marks depend only
 * on the loop values the writes use, so they are redone only when those
 * change. Work (bitmap words cleared, rows marked or tested, strided
 * elements, iterations) is bounded by SEMA_MAX_MARKS per read and the tile by
 * SEMA_MAX_COVER_BITS elements. Past either limit the read is accepted
 * unchecked: a deliberate limit, far above the specs in specs/ (transpose2d,
 * the costliest, spends about 3e5 units), which can then only miss an E054,
 * never crash. */
enum {
    SEMA_MAX_MARKS = 1 << 22,      /* work units for one read's coverage */
    SEMA_MAX_COVER_BITS = 1 << 25, /* elements of a tile it can check (4 MiB) */
};

typedef enum { COV_OK, COV_MISS, COV_GIVE_UP } CovResult;

/* Clear every bit that may be set. */
static void cover_clear(Cover *c)
{
    if (c->dlo < c->dhi) {
        memset(c->bits + c->dlo, 0, (c->dhi - c->dlo) * sizeof *c->bits);
        c->work += (int64_t)(c->dhi - c->dlo);
    }
    c->dlo = c->cap;
    c->dhi = 0;
}

/* Words [wa, wb] may now hold set bits. */
static void cover_dirty(Cover *c, size_t wa, size_t wb)
{
    c->dlo = wa < c->dlo ? wa : c->dlo;
    c->dhi = wb + 1 > c->dhi ? wb + 1 : c->dhi;
}

/* Set bits [a, b) (test == 0), or find the first clear one among them (test
 * == 1): returns its index, or b when there is none. */
static size_t cover_bits(Cover *c, size_t a, size_t b, int test)
{
    size_t wa = a / 64, wb = (b - 1) / 64;
    c->work += (int64_t)(wb - wa) + 1;
    for (size_t w = wa; w <= wb; w++) {
        uint64_t m = ~(uint64_t)0;
        if (w == wa)
            m &= ~(uint64_t)0 << (a % 64);
        if (w == wb)
            m &= ~(uint64_t)0 >> (63 - (b - 1) % 64);
        if (!test) {
            c->bits[w] |= m;
            continue;
        }
        uint64_t hole = m & ~c->bits[w];
        if (hole) {
            size_t i = 0;
            while (!(hole >> i & 1))
                i++;
            return w * 64 + i;
        }
    }
    if (!test)
        cover_dirty(c, wa, wb);
    return b;
}

/* Set bits a, a+st, ... < b, or find the first clear one (as cover_bits). */
static size_t cover_strided(Cover *c, size_t a, size_t b, size_t st, int test)
{
    uint64_t *bits = c->bits;
    size_t i = a;
    for (; i < b; i += st) {
        uint64_t m = (uint64_t)1 << (i % 64);
        if (!test)
            bits[i / 64] |= m;
        else if (!(bits[i / 64] & m))
            return i;
    }
    if (!test)
        cover_dirty(c, a / 64, (i - st) / 64);
    return b;
}

/* Is every bit of the tile set? */
static int cover_full(Cover *c)
{
    size_t nw = (c->nbits + 63) / 64;
    if (c->dlo > 0 || c->dhi < nw)
        return 0;
    c->work += (int64_t)nw;
    for (size_t w = 0; w + 1 < nw; w++)
        if (~c->bits[w])
            return 0;
    return !~(c->bits[nw - 1] | ~(uint64_t)0 << (c->nbits - 1) % 64 << 1);
}

/* Dimension d of r at the current env, clipped to [0, extent): its first
 * index, one past its last and whether any index is left (-1: it cannot be
 * evaluated). Out-of-bounds parts were reported as E050 already. */
static int clip_dim(Sema *s, const SpecRef *r, int d, int64_t extent, int64_t *lo, int64_t *hi)
{
    int64_t st = r->step[d];
    if (expr_eval(r->start[d], s->env, lo, NULL) || expr_eval(r->stop[d], s->env, hi, NULL))
        return -1;
    if (*lo < 0) { /* the first index of the progression at or above 0 */
        uint64_t dist = (uint64_t)0 - (uint64_t)*lo;
        *lo = (int64_t)((uint64_t)*lo + (dist + (uint64_t)st - 1) / (uint64_t)st * (uint64_t)st);
    }
    if (*hi > extent)
        *hi = extent;
    return *lo < *hi;
}

/* Step the index vector idx[0..last] of a region walk (dim d from lo[d] below
 * hi[d] by step[d]) to its next value, the last dim fastest: 0 when every
 * value has been visited. */
static int odometer_next(int64_t *idx, const int64_t *lo, const int64_t *hi, const int64_t *step, int last)
{
    int d = last;
    while (d >= 0 && (idx[d] += step[d]) >= hi[d]) {
        idx[d] = lo[d];
        d--;
    }
    return d >= 0;
}

/* Mark (test == 0) or test (test == 1) every element of r at the current env.
 * The innermost dimension with more than one element is a run of bits
 * (contiguous when it is the last and unstrided); an odometer walks the
 * dimensions outside it. A failed test leaves the element in c->miss. */
static CovResult cover_region(Sema *s, Cover *c, const SpecRef *r, int test)
{
    const SpecTile *t = c->t;
    int rank = t->rank, in = 0;
    int64_t lo[SPEC_MAX_RANK], hi[SPEC_MAX_RANK], idx[SPEC_MAX_RANK], span[SPEC_MAX_RANK];
    for (int d = rank - 1; d >= 0; d--) {
        int k = clip_dim(s, r, d, t->shape[d], &lo[d], &hi[d]);
        if (k <= 0)
            return k < 0 ? COV_GIVE_UP : COV_OK;
        idx[d] = lo[d];
        span[d] = d == rank - 1 ? 1 : span[d + 1] * t->shape[d + 1]; /* bits from index to index */
        if (!in && r->step[d] < hi[d] - lo[d])
            in = d;
    }
    int64_t n = (hi[in] - lo[in] - 1) / r->step[in] + 1; /* elements of a run */
    size_t stride = n > 1 ? (size_t)(r->step[in] * span[in]) : 1;
    for (;;) {
        size_t a = 0, b, at;
        for (int d = 0; d < rank; d++)
            a += (size_t)(idx[d] * span[d]);
        if (stride == 1) {
            b = a + (size_t)n;
            at = cover_bits(c, a, b, test);
        } else {
            c->work += n;
            if (c->work > SEMA_MAX_MARKS)
                return COV_GIVE_UP;
            b = a + (size_t)(n - 1) * stride + 1;
            at = cover_strided(c, a, b, stride, test);
        }
        if (at < b) {
            memcpy(c->miss, idx, sizeof idx);
            c->miss[in] = lo[in] + (int64_t)((at - a) / stride) * r->step[in];
            return COV_MISS;
        }
        if (c->work > SEMA_MAX_MARKS)
            return COV_GIVE_UP;
        if (!odometer_next(idx, lo, hi, r->step, in - 1))
            return COV_OK;
    }
}

/* Mark what write w writes in the current iteration of read r's loops: its
 * region at every iteration of its loops that do not enclose r (only those
 * the region uses: the others repeat the same elements). */
static CovResult mark_write(Sema *s, Cover *c, const Access *w, const Access *r, unsigned char *used)
{
    int v[SPEC_MAX_DEPTH], nv = 0;
    memset(used, 0, (size_t)s->spec->nslots);
    sema_ref_vars(w->ref, used, s->spec->nslots);
    sema_chain_vars(s, w->chain, w->depth, used);
    for (int i = 0; i < w->depth; i++) {
        SpecStmt *l = w->chain[i];
        if (i < r->depth && r->chain[i] == l)
            continue;
        if (sema_trip_count(l) < 1)
            return COV_OK; /* never runs */
        if (used[l->slot])
            v[nv++] = l->slot;
    }
    CovResult res = COV_OK;
    for (int go = sema_first_iter(s, v, nv); go; go = res == COV_OK && sema_next_iter(s, v, nv)) {
        c->work++;
        res = cover_region(s, c, w->ref, 0);
        if (res == COV_OK && c->work > SEMA_MAX_MARKS)
            res = COV_GIVE_UP;
    }
    return res;
}

/* Size the bitmap for tile t (read by r, written by w[0..nw)) and start a
 * read's work count; 0 when the check cannot run (then the read is accepted). */
static int cover_init(Sema *s, const SpecTile *t, const Access *const *w, int nw, const Access *r)
{
    Cover *c = &s->cov;
    if (!t || t->bad || !t->rank || r->ref->rank != t->rank)
        return 0;
    int64_t nbits = 1;
    for (int d = 0; d < t->rank; d++) {
        if (t->shape[d] < 1 || t->shape[d] > SEMA_MAX_COVER_BITS / nbits)
            return 0;
        nbits *= t->shape[d];
    }
    for (int i = 0; i < nw; i++)
        if (w[i]->ref->rank != t->rank)
            return 0;
    size_t nwords = ((size_t)nbits + 63) / 64;
    if (c->cap < nwords) {
        free(c->bits);
        c->bits = calloc(nwords, sizeof *c->bits);
        c->cap = c->bits ? nwords : 0;
        c->dlo = c->cap;
        c->dhi = 0;
        if (!c->bits)
            return 0;
    }
    c->t = t;
    c->nbits = (size_t)nbits;
    c->work = 0;
    return 1;
}

/* Does the element set written by w[0..nw) (the writes before read r in the
 * loop being checked) contain every element r reads, at every iteration of
 * r's loops? On COV_MISS, *what describes an element that is not. */
static CovResult covers(Sema *s, const Access *const *w, int nw, const Access *r, const char **what)
{
    Cover *c = &s->cov;
    const SpecTile *t = sema_ref_tile(s, r->ref);
    if (!cover_init(s, t, w, nw, r))
        return COV_GIVE_UP;
    size_t nslots = (size_t)s->spec->nslots;
    unsigned char *wused = calloc(nslots, 3), *rused = wused + nslots, *scratch = rused + nslots;
    if (!wused)
        return COV_GIVE_UP;
    for (int i = 0; i < nw; i++) {
        sema_ref_vars(w[i]->ref, wused, s->spec->nslots);
        sema_chain_vars(s, w[i]->chain, w[i]->depth, wused);
    }
    sema_ref_vars(r->ref, rused, s->spec->nslots);
    sema_chain_vars(s, r->chain, r->depth, rused);
    /* r's loops that the regions use; those the writes use first (outer), so
     * the marks are redone only when one of them moves */
    int vs[SPEC_MAX_DEPTH], nv = 0, nwv = 0;
    int64_t count = 1, prev[SPEC_MAX_DEPTH] = {0};
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < r->depth; i++) {
            int slot = r->chain[i]->slot;
            if (pass ? !wused[slot] && rused[slot] : wused[slot]) {
                vs[nv++] = slot;
                count = count > SEMA_MAX_MARKS ? count : count * sema_trip_count(r->chain[i]);
            }
        }
        if (!pass)
            nwv = nv;
    }
    CovResult res = count > SEMA_MAX_MARKS ? COV_GIVE_UP : COV_OK;
    int fresh = 1, full = 0, go = res == COV_OK && sema_first_iter(s, vs, nv);
    while (go && res == COV_OK) {
        int moved = fresh;
        for (int k = 0; k < nwv; k++) {
            moved |= prev[k] != s->env[vs[k]];
            prev[k] = s->env[vs[k]];
        }
        fresh = 0;
        if (moved) {
            cover_clear(c);
            for (int i = 0; i < nw && res == COV_OK; i++)
                res = mark_write(s, c, w[i], r, scratch);
            full = res == COV_OK && cover_full(c);
        }
        if (res == COV_OK && !full) { /* a full tile covers any read */
            c->work++;
            res = cover_region(s, c, r->ref, 1);
        }
        if (res == COV_OK && c->work > SEMA_MAX_MARKS)
            res = COV_GIVE_UP;
        if (res == COV_OK && !sema_next_iter(s, vs, nv))
            break;
    }
    if (res == COV_MISS) {
        char el[96], when[160];
        size_t n = 0, m = 0;
        for (int d = 0; d < t->rank && n < sizeof el; d++)
            n += (size_t)snprintf(el + n, sizeof el - n, "%s%lld", d ? ", " : "", (long long)c->miss[d]);
        when[0] = '\0';
        for (int i = 0; i < r->depth && m < sizeof when; i++) { /* outermost first */
            const SpecStmt *l = r->chain[i];
            if (wused[l->slot] || rused[l->slot])
                m += (size_t)snprintf(when + m, sizeof when - m, "%s%s = %lld", m ? ", " : " (when ", sema_var_name(s, l),
                                      (long long)s->env[l->slot]);
        }
        *what = arena_printf(s->arena, "%s[%s] is read here, but nothing earlier in the same iteration writes it%s%s",
                             t->name, el, when, m ? ")" : "");
    }
    cover_clear(c);
    free(wused);
    return res;
}

/* ---------------------------------- values flowing between iterations (E054) */

/* A read in independent loop L that finds elements not written earlier in the
 * same iteration reads what was there before the loop: legal unless another
 * iteration of L writes one of those elements (then what it reads depends on
 * the order of the iterations). Decided exactly: for each combination of the
 * loops around L, owner[e] is the one iteration of L (its variable's value)
 * that writes element e anywhere in L's body (at every iteration of the loops
 * inside L), or FLOW_NONE / FLOW_MANY; then at every iteration of r's loops
 * from L inward, each element r reads that the earlier writes of the same
 * iteration leave unwritten (the bitmap of `covers`) must be owned by nobody
 * or by this iteration. Past SEMA_MAX_OWNERS elements or SEMA_MAX_MARKS work
 * the check gives up, and the read is reported as without it. */
enum { SEMA_MAX_OWNERS = 1 << 21 };
#define FLOW_NONE INT64_MIN
#define FLOW_MANY (INT64_MIN + 1)

typedef struct Flow {
    int64_t *owner;            /* per element of the tile, row-major */
    int64_t iter;              /* L's value: the writer (marking) or the reader (checking) */
    int check;                 /* 0: mark owners, 1: test the read */
    int64_t at[SPEC_MAX_RANK]; /* checking: the element found */
    int64_t other;             /* its owner */
} Flow;

/* Visit every element of r at the current env (clipped to the tile): mark its
 * owner, or (check) find one that is unwritten so far in this iteration and
 * owned by another. COV_MISS on a find, COV_GIVE_UP past the budget. */
static CovResult flow_region(Sema *s, Flow *f, const SpecRef *r)
{
    Cover *c = &s->cov;
    const SpecTile *t = c->t;
    int rank = t->rank;
    int64_t lo[SPEC_MAX_RANK], hi[SPEC_MAX_RANK], idx[SPEC_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        int k = clip_dim(s, r, d, t->shape[d], &lo[d], &hi[d]);
        if (k <= 0)
            return k < 0 ? COV_GIVE_UP : COV_OK;
        idx[d] = lo[d];
    }
    for (;;) {
        size_t e = 0;
        for (int d = 0; d < rank; d++)
            e = e * (size_t)t->shape[d] + (size_t)idx[d];
        int64_t *o = &f->owner[e];
        if (!f->check) {
            *o = *o == FLOW_NONE || *o == f->iter ? f->iter : FLOW_MANY;
        } else if (!(c->bits[e / 64] >> (e % 64) & 1) && *o != FLOW_NONE && *o != f->iter) {
            memcpy(f->at, idx, sizeof f->at);
            f->other = *o;
            return COV_MISS;
        }
        if (++c->work > SEMA_MAX_MARKS)
            return COV_GIVE_UP;
        if (!odometer_next(idx, lo, hi, r->step, rank - 1))
            return COV_OK;
    }
}

/* Mark the owners of everything ws[0..nw) (the writes of r's tile in L's
 * body) write, at every iteration of L and of their loops inside L. */
static CovResult flow_owners(Sema *s, Flow *f, int lpos, const Access *const *ws, int nw)
{
    CovResult res = COV_OK;
    for (size_t e = 0; e < s->cov.nbits; e++)
        f->owner[e] = FLOW_NONE;
    s->cov.work += (int64_t)(s->cov.nbits / 8);
    f->check = 0;
    for (int i = 0; i < nw && res == COV_OK; i++) {
        const Access *w = ws[i];
        int v[SPEC_MAX_DEPTH], nv = 0, runs = 1;
        for (int k = lpos; k < w->depth; k++) {
            runs &= sema_trip_count(w->chain[k]) >= 1;
            v[nv++] = w->chain[k]->slot;
        }
        if (!runs)
            continue;
        for (int go = sema_first_iter(s, v, nv); go; go = res == COV_OK && sema_next_iter(s, v, nv)) {
            f->iter = s->env[w->chain[lpos]->slot];
            res = flow_region(s, f, w->ref);
        }
    }
    return res;
}

/* Does a value flow into read r (in independent loop L) from another
 * iteration of L? ws[0..nw) are the writes of r's tile in L's body. On
 * COV_MISS, *what names the element and the iterations. */
static CovResult flows(Sema *s, const SpecStmt *L, const Access *const *ws, int nw, const Access *r,
                       const char **what)
{
    Cover *c = &s->cov;
    const SpecTile *t = sema_ref_tile(s, r->ref);
    int lpos = 0;
    while (lpos < r->depth && r->chain[lpos] != L)
        lpos++;
    if (lpos == r->depth || !cover_init(s, t, ws, nw, r) || c->nbits > SEMA_MAX_OWNERS)
        return COV_GIVE_UP;
    Flow f = {0};
    size_t nslots = (size_t)s->spec->nslots;
    f.owner = malloc(c->nbits * sizeof *f.owner);
    const Access **earlier = malloc((size_t)nw * sizeof *earlier);
    unsigned char *scratch = malloc(nslots ? nslots : 1);
    int outer[SPEC_MAX_DEPTH], inner[SPEC_MAX_DEPTH], no = 0, ni = 0, ne = 0, runs = 1;
    for (int i = 0; i < r->depth; i++) {
        runs &= sema_trip_count(r->chain[i]) >= 1;
        if (i < lpos)
            outer[no++] = r->chain[i]->slot;
        else
            inner[ni++] = r->chain[i]->slot;
    }
    for (int i = 0; i < nw; i++)
        if (ws[i]->seq < r->seq && earlier)
            earlier[ne++] = ws[i];
    CovResult res = f.owner && earlier && scratch ? COV_OK : COV_GIVE_UP;
    if (res == COV_OK && runs) {
        for (int go = sema_first_iter(s, outer, no); go; go = res == COV_OK && sema_next_iter(s, outer, no)) {
            res = flow_owners(s, &f, lpos, ws, nw);
            f.check = 1;
            for (int in = res == COV_OK && sema_first_iter(s, inner, ni); in; in = res == COV_OK && sema_next_iter(s, inner, ni)) {
                cover_clear(c);
                for (int i = 0; i < ne && res == COV_OK; i++)
                    res = mark_write(s, c, earlier[i], r, scratch);
                f.iter = s->env[L->slot];
                if (res == COV_OK)
                    res = flow_region(s, &f, r->ref);
            }
        }
    }
    if (res == COV_MISS) {
        char el[96], other[64];
        size_t n = 0;
        for (int d = 0; d < t->rank && n < sizeof el; d++)
            n += (size_t)snprintf(el + n, sizeof el - n, "%s%lld", d ? ", " : "", (long long)f.at[d]);
        if (f.other == FLOW_MANY)
            snprintf(other, sizeof other, "other %ss write it", L->grid ? "program" : "iteration");
        else
            snprintf(other, sizeof other, "%s %s = %lld writes it", L->grid ? "program" : "iteration",
                     sema_var_name(s, L), (long long)f.other);
        *what = arena_printf(s->arena, "%s[%s] is read when %s = %lld before that %s writes it, and %s",
                             t->name, el, sema_var_name(s, L), (long long)f.iter, L->grid ? "program" : "iteration",
                             other);
    }
    cover_clear(c);
    free(scratch);
    free(earlier);
    free(f.owner);
    return res;
}

static int loop_in_chain(const Access *a, const SpecStmt *l)
{
    for (int i = 0; i < a->depth; i++)
        if (a->chain[i] == l)
            return 1;
    return 0;
}

/* Tiles: an independent loop's iteration must not read what another wrote. */
static int tile_reads_apart(Sema *s, const SpecStmt *L, const Access *const *ws, int nw, const Access *r);

static void check_tile_deps(Sema *s, SpecStmt *L)
{
    s->at = L;
    size_t cap = (size_t)(s->nacc ? s->nacc : 1);
    const Access **earlier = malloc(2 * cap * sizeof *earlier), **all = earlier + cap;
    if (!earlier)
        return;
    for (int i = 0; i < s->nacc; i++) {
        const Access *r = &s->acc[i];
        if (r->is_write || r->ref->is_tensor || !loop_in_chain(r, L))
            continue;
        const Access *other = NULL;
        int nearlier = 0, nall = 0;
        for (int j = 0; j < s->nacc; j++) {
            const Access *w = &s->acc[j];
            if (!w->is_write || w->ref->is_tensor || w->ref->index != r->ref->index || !loop_in_chain(w, L))
                continue;
            all[nall++] = w;
            if (w->seq < r->seq)
                earlier[nearlier++] = w;
            else if (!other)
                other = w;
        }
        if (!other && nearlier)
            other = earlier[0];
        const char *what = NULL, *flow = NULL;
        if (!other || (nearlier && covers(s, earlier, nearlier, r, &what) != COV_MISS))
            continue;
        /* some element is not written earlier in the iteration: an error only
         * when another iteration writes it. First the closed form: the read
         * at one iteration and each write at any other lie apart in some
         * dimension (a read-modify-write of the iteration's own slice of a
         * tile too large for the enumeration below, bench/probes a02) */
        if (tile_reads_apart(s, L, all, nall, r))
            continue;
        CovResult fr = flows(s, L, all, nall, r, &flow);
        if (fr == COV_OK)
            continue;
        if (fr == COV_MISS)
            what = flow;
        else if (fr == COV_GIVE_UP && !what)
            what = "(the tile is too large to follow element by element, and its regions do not show the "
                   "iterations apart)";
        if (L->grid) {
            diag_error(s->diag, r->ref->region.loc, "E054",
                       "the programs of the grid are independent, but this reads tile '%s', which the body writes "
                       "later or only in part; a value would flow from one program to another (axis %d)",
                       sema_ref_name(r->ref), L->grid - 1);
        } else {
            diag_error(s->diag, r->ref->region.loc, "E054",
                       "iterations of loop '%s' are independent, but this reads tile '%s', which the loop body writes "
                       "later or only in part; a value would flow from one iteration to the next",
                       L->var, sema_ref_name(r->ref));
        }
        if (what)
            diag_note(s->diag, r->ref->region.loc, "%s", what);
        diag_note(s->diag, other->ref->region.loc, "'%s' written here", sema_ref_name(r->ref));
        if (L->grid)
            diag_note(s->diag, L->loc, "each program starts from nothing: write the tile before reading it in the "
                      "same program (a dependence belongs in a carried loop inside the body)");
        else
            diag_note(s->diag, L->loc, "write 'carried: true' on loop '%s' if the dependence is intended", L->var);
    }
    free(earlier);
}

typedef struct Box {
    int64_t key;                 /* combination of the loops outside L */
    int64_t iter;                /* L's variable */
    int64_t lo[SPEC_MAX_RANK];   /* first index per dim */
    int64_t hi[SPEC_MAX_RANK];   /* one past the last per dim */
    const Access *a;             /* the store (or, in a grid, a read of the output) */
    int bytes;                   /* lo[0], hi[0]: a byte interval of the storage (views) */
} Box;

/* Accesses to one storage through different tensors (a tensor and its views,
 * SPEC.md §2.1) are compared as byte intervals of the storage: from the
 * first to one past the last byte the box spans (row-major addresses grow
 * with every index, so this hull over-approximates, never under). */
static int byte_box(const Spec *sp, Box *b)
{
    const SpecTensor *t = &sp->tensors[b->a->ref->index];
    int64_t es = (int64_t)tg_dtype_size(t->dtype), first = 0, last = 0, stride = 1;
    for (int d = t->rank - 1; d >= 0; d--) {
        first += b->lo[d] * stride;
        last += (b->hi[d] - 1) * stride;
        stride *= t->shape[d];
    }
    b->lo[0] = first * es;
    b->hi[0] = (last + 1) * es;
    b->bytes = 1;
    return 1;
}

static int cmp_box(const void *x, const void *y)
{
    const Box *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->lo[0] < b->lo[0] ? -1 : a->lo[0] > b->lo[0];
}

/* Do the progressions a1, a1+s1, ... <= l1 and a2, a2+s2, ... <= l2 share a
 * value? Exact (Chinese remainder) for steps up to 2^31; larger steps are
 * answered "yes", which only errs toward reporting. */
static int progressions_meet(int64_t a1, int64_t s1, int64_t l1, int64_t a2, int64_t s2, int64_t l2)
{
    int64_t lo = a1 > a2 ? a1 : a2, hi = l1 < l2 ? l1 : l2;
    if (lo > hi)
        return 0;
    if (s1 == 1 || s2 == 1)
        return 1;
    /* s1*x + s2*y = g (extended Euclid) */
    int64_t g = s1, r = s2, x = 1, xr = 0;
    while (r) {
        int64_t q = g / r, t = g - q * r;
        g = r, r = t;
        t = x - q * xr, x = xr, xr = t;
    }
    if ((a2 - a1) % g)
        return 0;
    int64_t m = s2 / g; /* solutions k of a1 + s1*k ≡ a2 (mod s2) repeat every m */
    if (m > ((int64_t)1 << 31) || s1 > ((int64_t)1 << 31) / m)
        return 1;
    int64_t d = ((a2 - a1) / g) % m, xm = x % m;
    int64_t k = ((d < 0 ? d + m : d) * (xm < 0 ? xm + m : xm)) % m;
    int64_t v = a1 + s1 * k, period = s1 * m;
    if (v < lo) /* the first common value at or above lo */
        v += (lo - v + period - 1) / period * period;
    else
        v -= (v - lo) / period * period;
    return v <= hi;
}

/* Do the written parts of two boxes overlap? Per dimension, the lattice of
 * each region's step, not just its hull. */
static int boxes_meet(const Box *x, const Box *y)
{
    if (x->bytes) /* byte hulls, sorted by start: the sweep found them overlapping */
        return x->lo[0] < y->hi[0] && y->lo[0] < x->hi[0];
    for (int d = 0; d < x->a->ref->rank; d++)
        if (!progressions_meet(x->lo[d], x->a->ref->step[d], x->hi[d] - 1, y->lo[d], y->a->ref->step[d],
                               y->hi[d] - 1))
            return 0;
    return 1;
}

/* The closed form of E055 for one dimension: can the writes a (at L = x)
 * and b (at L = y != x) meet in dimension d? Each region's start and stop
 * must be affine with a constant extent; its start reads L's variable with
 * the same coefficient in both, the loops outside L with equal coefficients
 * (they hold the same values in both iterations) and loops inside L in any
 * way (their hulls widen the interval). Then a covers [c*x + ka, c*x + ka +
 * ea) and b [c*y + kb, c*y + kb + eb) up to a shared term, and they can meet
 * only if some c*(x - y), x - y a nonzero multiple of L's step within its
 * hull, lies strictly between kb - ka - ea and kb - ka + eb. 1: they cannot
 * meet (exact: no pair of iterations is missed); 0: unknown. */
static int sub64(int64_t a, int64_t b, int64_t *r)
{
    int64_t nb;
    return expr_mul(b, -1, &nb) && expr_add(a, nb, r);
}

static int apart_in_dim(Sema *s, const SpecStmt *L, const Access *a, const Access *b, int d)
{
    int n = s->spec->nslots;
    int64_t coef[2][EXPR_AFFINE_MAX_VARS], k[2], e[2], t = sema_trip_count(L) - 1;
    const Access *ab[2] = {a, b};
    if (!SEMA_CLOSED_FORM)
        return 0;
    if (t < 1)
        return 1; /* one iteration: no pair */
    if (n > EXPR_AFFINE_MAX_VARS)
        return 0;
    for (int w = 0; w < 2; w++) {
        const SpecRef *r = ab[w]->ref;
        int64_t cs, ce, ext, cstop[EXPR_AFFINE_MAX_VARS];
        if (!expr_affine(r->start[d], n, coef[w], &cs) || !expr_affine(r->stop[d], n, cstop, &ce))
            return 0;
        for (int v = 0; v < n; v++)
            if (cstop[v] != coef[w][v])
                return 0;
        int64_t lo = 0, hi = 0; /* spread of the loops inside L */
        int inside = 0;
        for (int i = 0; i < ab[w]->depth; i++) {
            const SpecStmt *l = ab[w]->chain[i];
            int64_t cf = coef[w][l->slot], last = sema_loop_last(l), p, q;
            if (l == L) {
                inside = 1;
                continue;
            }
            if (!inside || !cf)
                continue;
            if (!expr_mul(cf, l->start, &p) || !expr_mul(cf, last, &q) || !expr_add(lo, p < q ? p : q, &lo) ||
                !expr_add(hi, p < q ? q : p, &hi))
                return 0;
            coef[w][l->slot] = 0;
        }
        if (!expr_add(cs, lo, &k[w]) || !sub64(ce, cs, &ext) || !sub64(hi, lo, &hi) || !expr_add(ext, hi, &e[w]))
            return 0;
    }
    for (int v = 0; v < n; v++) /* L's and the outer loops' coefficients agree */
        if (coef[0][v] != coef[1][v])
            return 0;
    int64_t g, lower, upper;
    if (!expr_mul(coef[0][L->slot], L->step, &g) || !g || !sub64(k[1], k[0], &lower) ||
        !expr_add(lower, e[1], &upper) || !sub64(lower, e[0], &lower))
        return 0;
    if (g < 0) { /* g*j in (lower, upper)  <=>  (-g)*j in (-upper, -lower) */
        int64_t x = lower;
        if (!sub64(0, g, &g) || !sub64(0, upper, &lower) || !sub64(0, x, &upper))
            return 0;
    }
    int64_t nup, jmin = expr_floordiv(lower, g) + 1, jmax;
    if (!sub64(0, upper, &nup))
        return 0;
    jmax = -expr_floordiv(nup, g) - 1;
    if (jmin < -t)
        jmin = -t;
    if (jmax > t)
        jmax = t;
    return jmin > jmax || (jmin == 0 && jmax == 0);
}

/* Can no two iterations of L touch overlapping parts through any pair of
 * the accesses w[0..n) of which one is a write (the first nw)? Decided per
 * pair by one dimension that keeps them apart (apart_in_dim); 0 when some
 * pair needs the enumeration. */
static int tensor_writes_apart(Sema *s, const SpecStmt *L, const Access *const *w, int nw, int n)
{
    for (int i = 0; i < nw; i++)
        for (int j = i; j < n; j++) {
            int apart = 0;
            if (w[i]->ref->index != w[j]->ref->index)
                return 0; /* a tensor and its view: byte intervals, enumerated */
            for (int d = 0; d < w[i]->ref->rank && !apart && w[i]->ref->rank == w[j]->ref->rank; d++)
                apart = apart_in_dim(s, L, w[i], w[j], d);
            if (!apart)
                return 0;
        }
    return 1;
}

/* Does read r (in independent loop L) at one iteration lie apart from each
 * write ws[0..nw) of its tile at every other iteration, in some dimension
 * (apart_in_dim)? Then nothing it reads comes from another iteration. 0:
 * unknown (flows decides). */
static int tile_reads_apart(Sema *s, const SpecStmt *L, const Access *const *ws, int nw, const Access *r)
{
    for (int i = 0; i < nw; i++) {
        int apart = 0;
        for (int d = 0; d < r->ref->rank && !apart && ws[i]->ref->rank == r->ref->rank; d++)
            apart = apart_in_dim(s, L, r, ws[i], d);
        if (!apart)
            return 0;
    }
    return 1;
}

/* Is box x's access a read (a grid's programs: a value flowing between
 * them through an output)? */
static int box_reads(const Box *x) { return !x->a->is_write; }

/* Output tensors: no two iterations of an independent loop write overlapping
 * regions; and no program of a grid reads what another writes (SPEC.md
 * §2.1: programs may run in any order, or at once). Reads join the writes'
 * boxes and closed form; a pair of reads never conflicts. */
static void check_tensor_deps(Sema *s, SpecStmt *L)
{
    const Access **ws = malloc((size_t)(s->nacc ? s->nacc : 1) * sizeof *ws);
    if (!ws)
        return;
    s->at = L;
    const Spec *sp = s->spec;
    for (int t = 0; t < sp->npublic && !s->broke; t++) {
        int nw = 0, mixed = 0;
        for (int i = 0; i < s->nacc; i++) {
            const Access *a = &s->acc[i];
            if (a->is_write && a->ref->is_tensor && a->ref->index >= 0 && sp->tensors[a->ref->index].base == t &&
                loop_in_chain(a, L))
                ws[nw++] = a;
        }
        int n = nw;
        for (int i = 0; L->grid && nw && i < s->nacc; i++) {
            const Access *a = &s->acc[i];
            if (!a->is_write && a->ref->is_tensor && a->ref->index >= 0 && sp->tensors[a->ref->index].base == t &&
                loop_in_chain(a, L))
                ws[n++] = a;
        }
        for (int i = 1; i < n; i++)
            mixed |= ws[i]->ref->index != ws[0]->ref->index;
        if (!nw || tensor_writes_apart(s, L, ws, nw, n))
            continue;
        Box *boxes = NULL;
        size_t nb = 0, cap = 0;
        int too_many = 0;
        for (int wi = 0; wi < n && !too_many; wi++) {
            const Access *a = ws[wi];
            int vs[SPEC_MAX_DEPTH], nv = 0, li = -1;
            int64_t count = 1;
            unsigned char *used = calloc((size_t)s->spec->nslots, 1);
            if (!used)
                break;
            sema_ref_vars(a->ref, used, s->spec->nslots);
            used[L->slot] = 1;
            sema_chain_vars(s, a->chain, a->depth, used);
            for (int k = 0; k < a->depth; k++)
                if (used[a->chain[k]->slot]) {
                    if (a->chain[k] == L)
                        li = nv;
                    vs[nv++] = a->chain[k]->slot;
                    count *= sema_trip_count(a->chain[k]);
                    if (count > SEMA_MAX_BOXES)
                        break;
                }
            free(used);
            /* each box is a step; the boxes also bound the memory */
            if (count > SEMA_MAX_BOXES || nb + (size_t)count > SEMA_MAX_BOXES || !sema_spend(s, count)) {
                sema_spend(s, SEMA_BUDGET);
                too_many = 1;
                break;
            }
            for (int go = sema_first_iter(s, vs, nv); go; go = sema_next_iter(s, vs, nv)) {
                if (nb == cap) {
                    cap = cap ? cap * 2 : 64;
                    Box *v = realloc(boxes, cap * sizeof *v);
                    if (!v) {
                        too_many = 1;
                        break;
                    }
                    boxes = v;
                }
                Box *b = &boxes[nb];
                b->a = a;
                b->iter = s->env[L->slot];
                b->key = 0;
                for (int k = 0; k < li; k++) /* loops outside L: mixed into the key */
                    b->key = b->key * 1000003 + s->env[vs[k]];
                b->bytes = 0;
                if (box_of(s, a->ref, b->lo, b->hi) && (!mixed || byte_box(sp, b)))
                    nb++;
            }
        }
        if (nb && !too_many)
            qsort(boxes, nb, sizeof *boxes, cmp_box);
        int reported = too_many;
        for (size_t i = 0; i < nb && !reported; i++)
            for (size_t j = i + 1; j < nb && boxes[j].key == boxes[i].key && boxes[j].lo[0] < boxes[i].hi[0]; j++) {
                if (!sema_spend(s, 1)) {
                    reported = 1;
                    break;
                }
                if (boxes[j].iter == boxes[i].iter || (box_reads(&boxes[i]) && box_reads(&boxes[j])))
                    continue;
                if (!boxes_meet(&boxes[i], &boxes[j]))
                    continue;
                const Box *x = boxes[i].iter < boxes[j].iter ? &boxes[i] : &boxes[j];
                const Box *y = x == &boxes[i] ? &boxes[j] : &boxes[i];
                if (box_reads(x) || box_reads(y)) {
                    const Box *rd = box_reads(x) ? x : y, *wr = rd == x ? y : x;
                    const char *v = sema_var_name(s, L);
                    diag_error(s->diag, rd->a->ref->region.loc, "E054",
                               "program %s = %lld reads part of '%s' that program %s = %lld writes: a value would "
                               "flow between the programs of the grid", v, (long long)rd->iter,
                               s->spec->tensors[t].name, v, (long long)wr->iter);
                    diag_note(s->diag, wr->a->ref->region.loc, "'%s' written here", s->spec->tensors[t].name);
                    diag_note(s->diag, L->loc, "programs are independent and may run in any order or at once");
                } else if (L->grid) {
                    const char *v = sema_var_name(s, L);
                    diag_error(s->diag, y->a->ref->region.loc, "E055",
                               "programs %s = %lld and %s = %lld of the grid write overlapping parts of '%s'", v,
                               (long long)x->iter, v, (long long)y->iter, s->spec->tensors[t].name);
                    diag_note(s->diag, L->loc, "programs are independent and may run in any order or at once: give "
                              "each its own part of '%s'", s->spec->tensors[t].name);
                } else {
                    diag_error(s->diag, y->a->ref->region.loc, "E055",
                               "iterations %s = %lld and %s = %lld of independent loop '%s' write overlapping parts "
                               "of '%s'", L->var, (long long)x->iter, L->var, (long long)y->iter, L->var,
                               s->spec->tensors[t].name);
                    diag_note(s->diag, L->loc, "write 'carried: true' on loop '%s' if the order matters", L->var);
                }
                for (int k = 0; k < 2; k++) { /* E054 or E055 through an index column */
                    const SpecRef *r = (k ? y : x)->a->ref;
                    if (r->ind && (k == 0 || r != x->a->ref))
                        diag_note(s->diag, r->ind->region.loc, "an index column may select any index of dimension "
                                  "%d of '%s': the check counts the whole dimension as touched", r->ind_dim,
                                  s->spec->tensors[r->index].name);
                }
                reported = 1;
                break;
            }
        free(boxes);
    }
    free(ws);
}

void sema_check_loops(Sema *s, SpecStmt **body, int n)
{
    for (int i = 0; i < n; i++) {
        SpecStmt *st = body[i];
        if (st->kind != SPEC_STMT_LOOP || st->bad)
            continue;
        if (!st->carried) {
            check_tile_deps(s, st);
            check_tensor_deps(s, st);
        }
        sema_check_loops(s, st->body, st->nbody);
    }
}

/* ------------------------------------- reads of never-written elements (E056) */

/* A read of tile elements that nothing has written yet sees whatever the
 * SBUF/PSUM bytes hold: the NaN sentinel, or another tile's data where the
 * planner reuses space. That is a kernel bug, and the C simulation (which
 * skips SBUF copies no output depends on: docs/ir.md) and the ISS would not
 * even agree on it. The program runs in one fixed order (constant trip
 * counts), so this is decided exactly by running it: a bitmap per tile (its
 * rotating copies as one, so a read is reported only when no copy holds the
 * element), and at every statement of every iteration the reads are tested
 * against what earlier writes marked, then the writes mark. Reads of a tile
 * that nothing writes earlier in the text are W001's. Work is bounded by
 * SEMA_MAX_RUN for the whole kernel; past it the check stops, which can only
 * miss an E056. */
enum { SEMA_MAX_RUN = 1 << 22 }; /* work units (see Cover.work) for the whole run */

typedef struct OpSeq {
    const SpecStmt *st; /* an op */
    int seq;            /* its position in program order (Access.seq) */
} OpSeq;

static int cmp_opseq(const void *x, const void *y)
{
    const SpecStmt *a = ((const OpSeq *)x)->st, *b = ((const OpSeq *)y)->st;
    return a == b ? 0 : (uintptr_t)a < (uintptr_t)b ? -1 : 1;
}

typedef struct Run {
    OpSeq *ops;         /* every op with accesses, sorted by statement address */
    int nops;
    Cover *cov;         /* per tile (bits NULL: not checked) */
    Cover *scr;         /* per public tensor: a scratch tensor's written bytes (bits NULL: none) */
    int *first, *count; /* per op seq: its accesses s->acc[first..first+count) */
    char *done;         /* per access: reported (or W001's) */
    int64_t work;       /* spent */
    int stop;           /* budget exhausted or out of memory */
} Run;

/* Scratch tensors (SPEC.md §2.1) hold undefined bytes at kernel start: a
 * read of bytes no earlier store (in program order, as the run below visits
 * the iterations) wrote is E078. Bytes, not elements, so that a store through
 * one view covers a read through another. A store through an index column
 * may write any row: it marks nothing (conservative); a read through one
 * tests the whole dimension. Mark (test == 0) or test (test == 1) the bytes of
 * r at the current env in c (one bit per byte of the base); a miss leaves
 * its element in c->miss. */
static CovResult scratch_region(Sema *s, Cover *c, const SpecRef *r, int test)
{
    const SpecTensor *t = &s->spec->tensors[r->index];
    int rank = t->rank;
    size_t es = tg_dtype_size(t->dtype);
    int64_t lo[SPEC_MAX_RANK], hi[SPEC_MAX_RANK], idx[SPEC_MAX_RANK], span[SPEC_MAX_RANK];
    for (int d = rank - 1; d >= 0; d--) {
        int k = clip_dim(s, r, d, t->shape[d], &lo[d], &hi[d]);
        if (k <= 0)
            return k < 0 ? COV_GIVE_UP : COV_OK;
        idx[d] = lo[d];
        span[d] = d == rank - 1 ? 1 : span[d + 1] * t->shape[d + 1];
    }
    int in = rank - 1; /* the last dim: runs of its elements */
    int64_t n = (hi[in] - lo[in] - 1) / r->step[in] + 1;
    for (;;) {
        size_t a = 0;
        for (int d = 0; d < rank; d++)
            a += (size_t)(idx[d] * span[d]);
        for (int64_t k = 0; k < (r->step[in] == 1 ? 1 : n); k++) {
            size_t e = a + (size_t)(k * r->step[in]), len = r->step[in] == 1 ? (size_t)n : 1;
            size_t at = cover_bits(c, e * es, (e + len) * es, test);
            if (at < (e + len) * es) {
                memcpy(c->miss, idx, sizeof idx);
                c->miss[in] = idx[in] + (int64_t)(at / es - a);
                return COV_MISS;
            }
        }
        if (c->work > SEMA_MAX_RUN)
            return COV_GIVE_UP;
        if (!odometer_next(idx, lo, hi, r->step, in - 1))
            return COV_OK;
    }
}

/* The scratch part of run_op: access a (a read when pass 0, a write when 1). */
static void run_scratch(Sema *s, Run *R, const Access *a, int pass, char *done)
{
    const SpecTensor *t = &s->spec->tensors[a->ref->index];
    Cover *c = &R->scr[t->base];
    if (!c->bits || *done || (pass == 1 && a->ref->ind))
        return;
    c->work = R->work;
    CovResult res = scratch_region(s, c, a->ref, !pass);
    R->work = c->work;
    if (res == COV_GIVE_UP || R->work > SEMA_MAX_RUN) {
        R->stop = 1;
        return;
    }
    if (res != COV_MISS)
        return;
    char el[128], when[160];
    size_t n = 0, m = 0;
    for (int d = 0; d < t->rank && n < sizeof el; d++)
        n += (size_t)snprintf(el + n, sizeof el - n, "%s%lld", d ? ", " : "", (long long)c->miss[d]);
    when[0] = '\0';
    for (int k = 0; k < a->depth && m < sizeof when; k++)
        m += (size_t)snprintf(when + m, sizeof when - m, "%s%s = %lld", m ? ", " : " (when ",
                              sema_var_name(s, a->chain[k]), (long long)s->env[a->chain[k]->slot]);
    diag_error(s->diag, a->ref->region.loc, "E078",
               "this reads %s[%s]%s%s, bytes of scratch '%s' that no earlier store wrote: scratch is undefined at "
               "kernel start", t->name, el, when, m ? ")" : "", s->spec->tensors[t->base].name);
    diag_note(s->diag, s->spec->tensors[t->base].loc, "'%s' declared here", s->spec->tensors[t->base].name);
    *done = 1;
}

static void run_op(Sema *s, Run *R, const SpecStmt *st)
{
    OpSeq key = {st, 0};
    const OpSeq *f = bsearch(&key, R->ops, (size_t)R->nops, sizeof *R->ops, cmp_opseq);
    if (!f)
        return;
    int seq = f->seq;
    for (int pass = 0; pass < 2 && !R->stop; pass++) { /* reads, then writes */
        for (int i = R->first[seq]; i < R->first[seq] + R->count[seq] && !R->stop; i++) {
            const Access *a = &s->acc[i];
            if (a->is_write == pass && a->ref->is_tensor && a->ref->index >= 0) {
                run_scratch(s, R, a, pass, &R->done[i]);
                continue;
            }
            if (a->is_write != pass || a->ref->is_tensor || a->ref->index < 0 || R->done[i])
                continue;
            Cover *c = &R->cov[a->ref->index];
            if (!c->bits || a->ref->rank != c->t->rank)
                continue;
            c->work = R->work;
            CovResult res = cover_region(s, c, a->ref, !pass);
            R->work = c->work;
            if (res == COV_GIVE_UP || R->work > SEMA_MAX_RUN) {
                R->stop = 1;
            } else if (res == COV_MISS) {
                char el[96], when[160];
                size_t n = 0, m = 0;
                for (int d = 0; d < c->t->rank && n < sizeof el; d++)
                    n += (size_t)snprintf(el + n, sizeof el - n, "%s%lld", d ? ", " : "", (long long)c->miss[d]);
                when[0] = '\0';
                for (int k = 0; k < a->depth && m < sizeof when; k++)
                    m += (size_t)snprintf(when + m, sizeof when - m, "%s%s = %lld", m ? ", " : " (when ",
                                          sema_var_name(s, a->chain[k]),
                                          (long long)s->env[a->chain[k]->slot]);
                diag_error(s->diag, a->ref->region.loc, "E056",
                           "this reads %s[%s]%s%s, which nothing has written yet: it would see whatever the buffer "
                           "held", c->t->name, el, when, m ? ")" : "");
                int own = 0; /* the op reads its own dst: a matmul that accumulates */
                for (int j = R->first[seq]; j < R->first[seq] + R->count[seq]; j++)
                    own |= s->acc[j].is_write && s->acc[j].ref == a->ref;
                if (own)
                    diag_note(s->diag, a->stmt->loc, "with 'accumulate: true' a matmul adds to what '%s' holds; write "
                              "the first product with 'accumulate: false', or memset '%s' first", c->t->name, c->t->name);
                for (int j = 0; j < s->nacc && !own; j++)
                    if (s->acc[j].is_write && !s->acc[j].ref->is_tensor && s->acc[j].ref->index == a->ref->index) {
                        diag_note(s->diag, s->acc[j].ref->region.loc, "'%s' is written here, but not there first",
                                  c->t->name);
                        break;
                    }
                R->done[i] = 1;
            }
        }
    }
}

static void run_body(Sema *s, Run *R, SpecStmt **body, int n)
{
    for (int i = 0; i < n && !R->stop; i++) {
        SpecStmt *st = body[i];
        if (st->bad)
            continue;
        if (st->kind != SPEC_STMT_LOOP) {
            run_op(s, R, st);
            continue;
        }
        int64_t lo, hi;
        sema_loop_range(s, st, &lo, &hi);
        for (int64_t v = lo; v < hi && !R->stop; v += st->step) {
            s->env[st->slot] = v;
            if (++R->work > SEMA_MAX_RUN)
                R->stop = 1;
            run_body(s, R, st->body, st->nbody);
        }
    }
}

void sema_check_unwritten(Sema *s)
{
    Spec *sp = s->spec;
    int nseq = 0;
    for (int i = 0; i < s->nacc; i++)
        nseq = s->acc[i].seq + 1 > nseq ? s->acc[i].seq + 1 : nseq;
    Run R = {calloc((size_t)nseq + 1, sizeof(OpSeq)), 0, calloc((size_t)sp->ntiles + 1, sizeof(Cover)),
             calloc((size_t)sp->npublic + 1, sizeof(Cover)), calloc((size_t)nseq + 1, sizeof(int)),
             calloc((size_t)nseq + 1, sizeof(int)), calloc((size_t)s->nacc + 1, 1), 0, 0};
    int scratch_reads = 0, ran = 0;
    if (!R.ops || !R.cov || !R.scr || !R.first || !R.count || !R.done)
        goto out;
    for (int i = 0; i < s->nacc; i++)
        scratch_reads += !s->acc[i].is_write && s->acc[i].ref->is_tensor && s->acc[i].ref->index >= 0 &&
                         sp->tensors[sp->tensors[s->acc[i].ref->index].base].is_scratch;
    for (int t = 0; t < sp->npublic && scratch_reads; t++) {
        int64_t bytes = spec_tensor_bytes(&sp->tensors[t]);
        if (!sp->tensors[t].is_scratch)
            continue;
        if (bytes > SEMA_MAX_COVER_BITS) {
            diag_error(s->diag, sp->tensors[t].loc, "E057", "scratch '%s' has %lld bytes; the check that nothing "
                       "reads it before a store writes it follows at most %d", sp->tensors[t].name, (long long)bytes,
                       SEMA_MAX_COVER_BITS);
            ran = 1; /* reported */
            goto out;
        }
        Cover *c = &R.scr[t];
        c->cap = ((size_t)bytes + 63) / 64;
        c->bits = calloc(c->cap, sizeof *c->bits);
        if (!c->bits)
            goto out;
        c->nbits = (size_t)bytes;
        c->dlo = c->cap;
        c->dhi = 0;
    }
    for (int i = s->nacc - 1; i >= 0; i--) { /* each op's accesses are contiguous */
        if (!R.count[s->acc[i].seq]++)
            R.ops[R.nops++] = (OpSeq){s->acc[i].stmt, s->acc[i].seq};
        R.first[s->acc[i].seq] = i;
    }
    qsort(R.ops, (size_t)R.nops, sizeof *R.ops, cmp_opseq);
    /* reads with no write of their tile in an earlier op of the text are
     * W001's; acc is in program order, each op's accesses together */
    char *seen = calloc((size_t)sp->ntiles + 1, 1);
    if (!seen)
        goto out;
    for (int i = 0, next; i < s->nacc; i = next) {
        for (next = i; next < s->nacc && s->acc[next].seq == s->acc[i].seq; next++) {
            const Access *a = &s->acc[next];
            if (!a->is_write && !a->ref->is_tensor && a->ref->index >= 0)
                R.done[next] = !seen[a->ref->index];
        }
        /* ... but for a read of an op's own dst (a matmul that accumulates),
         * which W001 does not see: the run decides it */
        for (int j = i; j < next; j++)
            for (int k = i; k < next; k++)
                if (!s->acc[j].is_write && s->acc[k].is_write && s->acc[k].ref == s->acc[j].ref)
                    R.done[j] = 0;
        for (int j = i; j < next; j++)
            if (s->acc[j].is_write && !s->acc[j].ref->is_tensor && s->acc[j].ref->index >= 0)
                seen[s->acc[j].ref->index] = 1;
    }
    free(seen);
    for (int t = 0; t < sp->ntiles; t++) {
        const SpecTile *tile = &sp->tiles[t];
        int64_t nbits = 1;
        int ok = !tile->bad && tile->rank > 0;
        for (int d = 0; ok && d < tile->rank; d++) {
            ok = tile->shape[d] >= 1 && tile->shape[d] <= SEMA_MAX_COVER_BITS / nbits;
            nbits *= ok ? tile->shape[d] : 1;
        }
        if (!ok)
            continue;
        Cover *c = &R.cov[t];
        c->cap = ((size_t)nbits + 63) / 64;
        c->bits = calloc(c->cap, sizeof *c->bits);
        if (!c->bits)
            goto out;
        c->t = tile;
        c->nbits = (size_t)nbits;
        c->dlo = c->cap;
        c->dhi = 0;
        if ((R.work += (int64_t)c->cap) > SEMA_MAX_RUN)
            goto out;
    }
    run_body(s, &R, sp->body, sp->nbody);
    ran = !R.stop;
out:
    if (scratch_reads && !ran) /* E078 must not be missed: past the budget the spec is refused */
        diag_error(s->diag, (SrcLoc){sp->file, sp->root->loc.line, sp->root->loc.col}, "E057",
                   "the check that no scratch byte is read before a store writes it needs more than its budget of "
                   "%d steps", SEMA_MAX_RUN);
    for (int t = 0; R.cov && t < sp->ntiles; t++)
        free(R.cov[t].bits);
    for (int t = 0; R.scr && t < sp->npublic; t++)
        free(R.scr[t].bits);
    free(R.scr);
    free(R.cov);
    free(R.ops);
    free(R.first);
    free(R.count);
    free(R.done);
}
