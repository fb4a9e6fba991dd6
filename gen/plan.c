/* plan.c - static placement of tiles in SBUF (partition range + byte offset per
 * partition, `bufs` 64-byte aligned copies) and PSUM (one bank per copy).
 * Live ranges come from the IR's tile scopes; placement is first-fit by
 * decreasing size, deterministic. Also prints the occupancy report. */
#include <string.h>

#include "plan.h"

/* Live range of tile t: each access widened to the outermost loop strictly
 * inside the tile's scope that contains it (the loop repeats, so the tile is
 * live throughout it). */
static void live_range(const Ir *ir, int t, int *first, int *last)
{
    const IrLoop *scope = ir->tiles[t].scope >= 0 ? ir->loops[ir->tiles[t].scope] : NULL;
    *first = -1;
    *last = -1;
    for (int i = ir->tiles[t].first; i >= 0 && i <= ir->tiles[t].last; i++) {
        IrInst *in = ir->insts[i];
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(in, ops), hit = 0;
        for (int k = 0; k < n; k++)
            hit |= ops[k].ap->mem != IR_MEM_HBM && ops[k].ap->index == t;
        if (!hit)
            continue;
        const IrLoop *outer = NULL;
        for (const IrLoop *lp = in->loop; lp && lp != scope; lp = lp->parent)
            outer = lp;
        int a = outer ? outer->first : i, b = outer ? outer->last : i;
        if (*first < 0 || a < *first)
            *first = a;
        if (b > *last)
            *last = b;
    }
}

int plan_conflict(const Plan *p, int a, int b)
{
    const PlanTile *x = &p->tiles[a], *y = &p->tiles[b];
    if (a == b || !x->used || !y->used || x->buffer != y->buffer)
        return 0;
    if (!p->reuse)
        return 1;
    return x->live_first <= y->live_last && y->live_first <= x->live_last;
}

/* Units a tile takes in its buffer: bytes per partition (SBUF) or banks. */
static int64_t extent(const PlanTile *t)
{
    return t->buffer == SPEC_BUF_PSUM ? (int64_t)t->bufs * t->banks : t->slot * t->bufs;
}

static int64_t start_of(const PlanTile *t) { return t->buffer == SPEC_BUF_PSUM ? t->bank : t->offset; }

/* Placement order: bigger first, then earlier live start, then declaration. */
static int goes_before(const Plan *p, int a, int b)
{
    const PlanTile *x = &p->tiles[a], *y = &p->tiles[b];
    int64_t ex = extent(x), ey = extent(y);
    if (ex != ey)
        return ex > ey;
    if (x->live_first != y->live_first)
        return x->live_first < y->live_first;
    return a < b;
}

/* Insertion sort of order[0..n) (a kernel has tens of tiles). */
static void sort_order(const Plan *p, int *order, int n)
{
    for (int i = 1; i < n; i++) {
        int t = order[i], j = i;
        for (; j > 0 && goes_before(p, t, order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = t;
    }
}

/* Lowest start where tile t overlaps no placed tile it conflicts with. */
static int64_t first_fit(const Plan *p, const unsigned char *placed, int t)
{
    int64_t pos = 0, size = extent(&p->tiles[t]);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int j = 0; j < p->ntiles; j++) {
            if (!placed[j] || !plan_conflict(p, t, j))
                continue;
            int64_t s = start_of(&p->tiles[j]), e = s + extent(&p->tiles[j]);
            if (pos < e && s < pos + size) {
                pos = e;
                changed = 1;
            }
        }
    }
    return pos;
}

static int tile_bytes(const SpecTile *t, int64_t *bytes)
{
    int64_t n = (int64_t)tg_dtype_size(t->dtype);
    for (int d = 1; d < t->rank; d++)
        if (!expr_mul(n, t->shape[d], &n))
            return 0;
    *bytes = n;
    return 1;
}

Plan *plan_build(Arena *arena, const Ir *ir, Diag *diag, int reuse)
{
    const Spec *s = ir->spec;
    Plan *p = arena_alloc(arena, sizeof *p);
    int n = ir->ntiles;
    if (p)
        p->tiles = arena_alloc(arena, (size_t)(n > 0 ? n : 1) * sizeof *p->tiles);
    int *order = arena_alloc(arena, (size_t)(n > 0 ? n : 1) * sizeof *order);
    unsigned char *placed = arena_alloc(arena, (size_t)(n > 0 ? n : 1));
    if (!p || !p->tiles || !order || !placed) {
        diag_error(diag, (SrcLoc){s->file, 0, 0}, "E091", "out of memory while planning SBUF/PSUM");
        return NULL;
    }
    tg_machine m = tg_machine_of(s->target);
    p->ir = ir;
    p->ntiles = n;
    p->reuse = reuse;
    p->sbuf_capacity = m.sbuf_usable;
    p->psum_capacity = (int)m.psum_banks;
    int nused = 0;
    for (int t = 0; t < n; t++) {
        const SpecTile *st = &s->tiles[t];
        PlanTile *pt = &p->tiles[t];
        pt->buffer = st->buffer;
        pt->bufs = st->bufs > 0 ? st->bufs : 1;
        pt->pstart = 0;
        pt->pcount = st->rank > 0 ? st->shape[0] : 0;
        pt->offset = -1;
        pt->bank = -1;
        pt->used = ir->tiles[t].naccess > 0;
        if (!tile_bytes(st, &pt->bytes) || pt->bytes > INT64_MAX / 2 / pt->bufs) {
            diag_error(diag, st->loc, "E092", "tile '%s' is too large to place", st->name);
            p->errors++;
            pt->used = 0;
            continue;
        }
        if (st->buffer == SPEC_BUF_PSUM) { /* whole banks, up to all of them (SPEC.md §2.1) */
            pt->banks = (int)((pt->bytes + m.psum_bank_bytes - 1) / m.psum_bank_bytes);
            pt->slot = (int64_t)pt->banks * m.psum_bank_bytes;
            if (pt->banks > (int)m.psum_banks) {
                diag_error(diag, st->loc, "E093", "PSUM tile '%s' takes %lld bytes per partition; a PSUM tile spans "
                           "at most the %u banks of %u bytes", st->name, (long long)pt->bytes, m.psum_banks,
                           m.psum_bank_bytes);
                p->errors++;
                pt->used = 0;
                continue;
            }
        } else {
            pt->slot = (pt->bytes + PLAN_SBUF_ALIGN - 1) / PLAN_SBUF_ALIGN * PLAN_SBUF_ALIGN;
        }
        if (pt->used) {
            live_range(ir, t, &pt->live_first, &pt->live_last);
            order[nused++] = t;
            if (st->buffer == SPEC_BUF_PSUM)
                p->psum_noreuse += (int)extent(pt);
            else
                p->sbuf_noreuse += extent(pt);
        } else {
            pt->live_first = pt->live_last = -1;
        }
    }
    sort_order(p, order, nused);
    for (int k = 0; k < nused; k++) {
        int t = order[k];
        PlanTile *pt = &p->tiles[t];
        int64_t at = first_fit(p, placed, t);
        if (pt->buffer == SPEC_BUF_PSUM)
            pt->bank = (int)(at < INT32_MAX ? at : INT32_MAX);
        else
            pt->offset = at;
        placed[t] = 1;
        int64_t end = at + extent(pt);
        if (pt->buffer == SPEC_BUF_PSUM && end > p->psum_peak)
            p->psum_peak = (int)end;
        if (pt->buffer == SPEC_BUF_SBUF && end > p->sbuf_peak)
            p->sbuf_peak = end;
    }
    /* Report the first tile (in declaration order) that ends beyond capacity. */
    for (int b = 0; b < 2; b++) {
        for (int t = 0; t < n; t++) {
            const PlanTile *pt = &p->tiles[t];
            if (!placed[t] || (int)pt->buffer != b)
                continue;
            int64_t end = start_of(pt) + extent(pt);
            const SpecTile *st = &s->tiles[t];
            if (b == SPEC_BUF_SBUF && end > p->sbuf_capacity) {
                diag_error(diag, st->loc, "E094", "SBUF overflow: tile '%s' would end at byte %lld of each partition "
                           "but %s has %lld usable (%lld needed at peak, after reusing space of tiles not live at "
                           "the same time)", st->name, (long long)end, m.name, (long long)p->sbuf_capacity,
                           (long long)p->sbuf_peak);
                p->errors++;
                break;
            }
            if (b == SPEC_BUF_PSUM && end > p->psum_capacity) {
                diag_error(diag, st->loc, "E095", "PSUM overflow: tile '%s' would need bank %lld but %s has %d banks "
                           "(%d needed at peak, after reuse)", st->name, (long long)end - 1, m.name,
                           p->psum_capacity, p->psum_peak);
                p->errors++;
                break;
            }
        }
    }
    return p;
}

/* "a-b" spec lines of a live range. */
static void lines_of(const Ir *ir, const PlanTile *t, char *buf, size_t size)
{
    if (t->live_first < 0) {
        snprintf(buf, size, "-");
        return;
    }
    int a = ir->insts[t->live_first]->loc.line, b = ir->insts[t->live_last]->loc.line;
    if (a == b)
        snprintf(buf, size, "%d", a);
    else
        snprintf(buf, size, "%d-%d", a, b);
}

void plan_report(FILE *out, const Plan *p)
{
    const Ir *ir = p->ir;
    const Spec *s = ir->spec;
    fprintf(out, "%s: SBUF/PSUM occupancy (%s, space %s)\n", s->kernel ? s->kernel : "?",
            tg_machine_of(s->target).name, p->reuse ? "shared by tiles not live together" : "not reused");
    fprintf(out, "  %-10s %-4s %-9s %-16s %4s %10s %24s  %s\n", "tile", "buf", "dtype", "shape", "bufs", "bytes/part",
            "placement", "live (spec lines)");
    for (int t = 0; t < p->ntiles; t++) {
        const SpecTile *st = &s->tiles[t];
        const PlanTile *pt = &p->tiles[t];
        char shape[96], place[64], lines[32];
        size_t pos = 0;
        shape[0] = '\0';
        for (int d = 0; d < st->rank && pos < sizeof shape; d++) {
            int k = snprintf(shape + pos, sizeof shape - pos, "%s%lld", d ? "," : "[", (long long)st->shape[d]);
            pos += k > 0 ? (size_t)k : 0;
        }
        if (pos < sizeof shape - 1)
            snprintf(shape + pos, sizeof shape - pos, "]");
        if (!pt->used)
            snprintf(place, sizeof place, "unused");
        else if (pt->buffer == SPEC_BUF_PSUM && extent(pt) > 1)
            snprintf(place, sizeof place, "p[%lld:%lld] banks %d-%d", (long long)pt->pstart,
                     (long long)(pt->pstart + pt->pcount), pt->bank, pt->bank + (int)extent(pt) - 1);
        else if (pt->buffer == SPEC_BUF_PSUM)
            snprintf(place, sizeof place, "p[%lld:%lld] bank %d", (long long)pt->pstart,
                     (long long)(pt->pstart + pt->pcount), pt->bank);
        else
            snprintf(place, sizeof place, "p[%lld:%lld] @%lld+%lldx%d", (long long)pt->pstart,
                     (long long)(pt->pstart + pt->pcount), (long long)pt->offset, (long long)pt->slot, pt->bufs);
        lines_of(ir, pt, lines, sizeof lines);
        fprintf(out, "  %-10s %-4s %-9s %-16s %4d %10lld %24s  %s\n", st->name,
                st->buffer == SPEC_BUF_PSUM ? "psum" : "sbuf", tg_dtype_name(st->dtype), shape, pt->bufs,
                (long long)pt->bytes, place, lines);
    }
    fprintf(out, "  SBUF peak %lld of %lld bytes per partition (%.1f%%), %lld without reuse\n",
            (long long)p->sbuf_peak, (long long)p->sbuf_capacity,
            p->sbuf_capacity ? 100.0 * (double)p->sbuf_peak / (double)p->sbuf_capacity : 0.0,
            (long long)p->sbuf_noreuse);
    fprintf(out, "  PSUM peak %d of %d banks, %d without reuse\n", p->psum_peak, p->psum_capacity, p->psum_noreuse);
}
