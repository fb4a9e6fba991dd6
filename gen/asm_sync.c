/* asm_sync.c - the semaphores of the assembly back end. Derives dependency
 * edges between streams - the compute engines and the DMA queues - from the
 * unrolled sequential run (conflicting bytes of the rotating copy each access
 * touches, or HBM tensors; latest producer per stream; edges reaching up to
 * `bufs` iterations back), then drops every edge whose orderings the
 * happens-before order of the remaining ones already implies - checked
 * exactly on the run with vector clocks - and places the rest as signal/wait
 * actions. Rules and soundness: docs/asm.md "Semaphores". */
#include <stdlib.h>
#include <string.h>

#include "asm_sync.h"
#include "expr.h"

enum { NSTR = TG_STREAM_COUNT }; /* in-order streams (tg_isa.h) */

/* One dependency edge between two statements of one loop body. */
typedef struct Edge {
    int dist;             /* 0: same iteration; k >= 1: from iteration t-k to t (k tokens, k drains) */
    int loop;             /* common loop id, -1 top level */
    int from, to;         /* anchor statement keys */
    int fs, ts;           /* producer and consumer streams */
    uint32_t pl, cl;      /* spec lines of producer and consumer */
    SrcLoc loc;           /* the consumer's location (E112) */
    int keep;             /* still needed */
    int sem;              /* semaphore of a kept edge */
    uint64_t cost;        /* semaphore actions it executes in the sequential run */
} Edge;

/* One step of the program skeleton: statements and semaphore actions. */
enum { IT_INST, IT_SIGNAL, IT_WAIT, IT_LOOP, IT_END };
typedef struct Item {
    int kind;             /* IT_* */
    int str;              /* IT_INST, IT_SIGNAL, IT_WAIT: the stream */
    int ref;              /* instruction id, edge index, or the matching IT_END / IT_LOOP item */
    const IrLoop *lp;     /* IT_LOOP, IT_END: the loop */
} Item;

/* An ordering the semaphores must guarantee: the instruction at step `pos`
 * of the sequential run comes after the first `need` instructions of `str`. */
typedef struct Req {
    uint32_t pos;         /* step of the consumer */
    uint32_t need;        /* instructions of str that must happen before it */
    int str;              /* the producer's stream */
} Req;

/* Builder state. */
typedef struct S {
    const Ir *ir;
    const Plan *plan;
    AsmSyncs *out;
    Edge *edges;          /* every derived edge, creation order */
    size_t nedges, ecap;
    Item *items;          /* the skeleton, program order */
    size_t nitems, icap;
    uint32_t *trace;      /* item index per step of the sequential run */
    uint32_t *aux;        /* per step: signal ordinal (signal) or the matching signal's (wait) */
    size_t ntrace, tcap;
    uint32_t nsignals;    /* signals in the run */
    Req *reqs;            /* orderings to guarantee, by step */
    size_t nreqs, rcap;
    uint32_t *snap;       /* NSTR clocks per signal of the run */
    struct Acc *acc;      /* every operand of every instruction */
    int *acc0;            /* per instruction: its first entry in acc[] (ninsts + 1) */
    uint32_t nrec;        /* history records: one per operand and rotating copy */
    int maxd;             /* loop nesting depth + 1 */
    int derive;           /* analyse(): derive edges from the orderings too */
    int bad;              /* a copy could not be evaluated, or an ordering ran backwards */
    int oom;
} S;

/* Room for n + 1 elements of `size` bytes in *p (capacity *cap); 0 on OOM. */
static int grow(S *s, void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 1;
    size_t nc = *cap ? 2 * *cap : 64;
    void *np = realloc(*p, nc * size);
    if (!np) {
        s->oom = 1;
        return 0;
    }
    *p = np;
    *cap = nc;
    return 1;
}

/* Statement keys: instruction id, or ninsts + loop id. */
static int key_loop(const S *s, const IrLoop *lp) { return s->ir->ninsts + lp->id; }

/* ---- derivation ------------------------------------------------------------- */

/* Placed bytes of an access: space, partitions and bytes of the whole tile
 * (every copy), so tiles sharing space through reuse conflict too; an HBM
 * access stands for its whole tensor (partition range = tensor index). */
typedef struct Region {
    int space;            /* IrMem */
    int64_t p0, p1;       /* partitions [p0, p1) (HBM: [tensor, tensor + 1)) */
    int64_t b0, b1;       /* bytes per partition [b0, b1) */
} Region;

static void region_of(const S *s, const IrAp *ap, Region *r)
{
    if (ap->mem == IR_MEM_HBM) {
        int b = s->ir->spec->tensors[ap->index].base; /* a view conflicts as its storage */
        *r = (Region){IR_MEM_HBM, b, b + 1, 0, 1};
        return;
    }
    const PlanTile *t = &s->plan->tiles[ap->index];
    r->space = ap->mem;
    r->p0 = t->pstart;
    r->p1 = t->pstart + t->pcount;
    r->b0 = ap->mem == IR_MEM_PSUM ? (int64_t)t->bank * TG_PSUM_BANK_BYTES : t->offset;
    r->b1 = r->b0 + t->slot * t->bufs;
}

static int overlap(const Region *a, const Region *b)
{
    return a->space == b->space && a->p0 < b->p1 && b->p0 < a->p1 && a->b0 < b->b1 && b->b0 < a->b1;
}

/* 1 when in writes an HBM tensor. */
static int writes_hbm(IrInst *in)
{
    IrOperand o[IR_MAX_OPERANDS];
    int n = ir_operands(in, o);
    for (int i = 0; i < n; i++)
        if (o[i].is_write && o[i].ap->mem == IR_MEM_HBM)
            return 1;
    return 0;
}

/* 1 when a and b touch overlapping SBUF/PSUM bytes or the same HBM tensor
 * and one of them writes. An indirect DMA (SPEC.md §2.1) may fail on its
 * indices (TG_EBOUNDS) and every back end must then have written the same
 * outputs (those of the HBM writes before it in program order, none after):
 * it counts as a read of every tensor, ordered against every HBM write. */
static int conflict(const S *s, IrInst *a, IrInst *b)
{
    IrOperand oa[IR_MAX_OPERANDS], ob[IR_MAX_OPERANDS];
    int na = ir_operands(a, oa), nb = ir_operands(b, ob);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            Region ra, rb;
            if (!oa[i].is_write && !ob[j].is_write)
                continue;
            region_of(s, oa[i].ap, &ra);
            region_of(s, ob[j].ap, &rb);
            if (overlap(&ra, &rb))
                return 1;
        }
    return (a->has_ind && writes_hbm(b)) || (b->has_ind && writes_hbm(a));
}

static tg_isa_engine engine_of(const IrInst *in) { return tg_isa_table[ir_isa_op(in->op)].engine; }

/* The stream that runs in: its engine, or TG_ENG_COUNT + its DMA queue. */
static int stream_of(const S *s, const IrInst *in)
{
    return engine_of(in) == TG_ENG_DMA ? TG_ENG_COUNT + s->out->queue[in->id] : (int)engine_of(in);
}

/* DMA queues: the k-th DMA statement of the kernel in program order (IR
 * instructions with the same spec location are one statement) runs on
 * queue k mod TG_DMA_QUEUES. */
static void assign_queues(S *s)
{
    int n = 0;
    for (int i = 0; i < s->ir->ninsts; i++) {
        const IrInst *in = s->ir->insts[i];
        if (engine_of(in) != TG_ENG_DMA)
            continue;
        int q = -1;
        for (int j = 0; j < i && q < 0; j++) {
            const IrInst *o = s->ir->insts[j];
            if (engine_of(o) == TG_ENG_DMA && o->loc.line == in->loc.line && o->loc.col == in->loc.col &&
                o->loc.file == in->loc.file)
                q = s->out->queue[j];
        }
        s->out->queue[i] = q >= 0 ? q : n++ % TG_DMA_QUEUES;
    }
}

/* The innermost loop containing both a and b, NULL for none. */
static const IrLoop *common(const IrInst *a, const IrInst *b)
{
    for (const IrLoop *x = a->loop; x; x = x->parent)
        for (const IrLoop *y = b->loop; y; y = y->parent)
            if (x == y)
                return x;
    return NULL;
}

/* Key of the statement directly in loop l's body (top level when NULL) that contains in. */
static int anchor(const S *s, const IrInst *in, const IrLoop *l)
{
    if (in->loop == l)
        return in->id;
    const IrLoop *x = in->loop;
    while (x->parent != l)
        x = x->parent;
    return key_loop(s, x);
}

/* Edge producer(t - dist) -> consumer(t) in loop l (dist 0: same iteration,
 * producer first). Edges with the same anchors and streams are one, with the
 * smaller distance (which implies the larger). */
static void edge(S *s, IrInst *prod, IrInst *cons, const IrLoop *l, int dist)
{
    int from = anchor(s, prod, l), to = anchor(s, cons, l), loop = l ? l->id : -1;
    int fs = stream_of(s, prod), ts = stream_of(s, cons);
    for (size_t i = 0; i < s->nedges; i++) {
        Edge *e = &s->edges[i];
        if (e->loop == loop && e->from == from && e->to == to && e->fs == fs && e->ts == ts) {
            e->dist = dist < e->dist ? dist : e->dist;
            return;
        }
    }
    if (!grow(s, (void **)&s->edges, &s->ecap, s->nedges, sizeof *s->edges))
        return;
    s->edges[s->nedges++] = (Edge){dist, loop, from, to, fs, ts, (uint32_t)prod->loc.line,
                                   (uint32_t)cons->loc.line, cons->loc, 1, -1, 0};
}

/* The static derivation (whole tiles, one iteration back), used when the
 * run is too long to derive from: for each consumer b and each other stream
 * f, only the producers on f that ran last before b need an edge (f runs in order, so its signal after them
 * covers everything f did earlier): the latest conflicting instruction
 * before b in program order (forward edge at their common loop lf), and, for
 * each loop around b deeper than lf, the last conflicting instruction after
 * b in that loop's body (loop-carried edge from the previous iteration). */
static void derive_static(S *s)
{
    const Ir *ir = s->ir;
    for (int j = 0; j < ir->ninsts; j++) {
        IrInst *b = ir->insts[j];
        for (int f = 0; f < NSTR; f++) {
            if (f == stream_of(s, b))
                continue;
            IrInst *fwd = NULL;
            for (int i = j - 1; i >= 0 && !fwd; i--)
                if (stream_of(s, ir->insts[i]) == f && conflict(s, ir->insts[i], b))
                    fwd = ir->insts[i];
            const IrLoop *lf = fwd ? common(fwd, b) : NULL;
            if (fwd)
                edge(s, fwd, b, lf, 0);
            for (const IrLoop *l = b->loop; l && l != lf; l = l->parent) {
                IrInst *back = NULL;
                for (int i = l->last; i > j && !back; i--)
                    if (stream_of(s, ir->insts[i]) == f && common(ir->insts[i], b) == l &&
                        conflict(s, ir->insts[i], b))
                        back = ir->insts[i];
                if (back)
                    edge(s, back, b, l, 1);
            }
        }
    }
}

/* ---- placement -------------------------------------------------------------- */

static void place(S *s, AsmSync **list, int sem, int str, int is_wait, uint32_t line)
{
    AsmSync *a = calloc(1, sizeof *a);
    if (!a) {
        s->oom = 1;
        return;
    }
    *a = (AsmSync){sem, str >= TG_ENG_COUNT ? TG_ENG_DMA : (tg_isa_engine)str,
                   str >= TG_ENG_COUNT ? str - TG_ENG_COUNT : 0, is_wait, line, NULL};
    while (*list) /* append: actions keep the order their edges were derived in */
        list = &(*list)->next;
    *list = a;
}

/* Every derived edge's actions, tagged with the edge index for now: F
 * signals after the producer's statement, E waits before the consumer's;
 * an edge of distance k adds k tokens before the loop and k drains after it. */
static void place_all(S *s)
{
    for (size_t i = 0; i < s->nedges; i++) {
        const Edge *e = &s->edges[i];
        place(s, &s->out->after[e->from], (int)i, e->fs, 0, e->pl);
        place(s, &s->out->before[e->to], (int)i, e->ts, 1, e->cl);
        for (int k = 0; k < e->dist; k++) {
            int lk = key_loop(s, s->ir->loops[e->loop]);
            place(s, &s->out->before[lk], (int)i, e->fs, 0, e->pl);
            place(s, &s->out->after[lk], (int)i, e->ts, 1, e->cl);
        }
    }
}

/* Drop the actions of removed edges, renumber the rest by semaphore. */
static void prune(S *s, AsmSync **list)
{
    while (*list) {
        AsmSync *a = *list;
        if (!s->edges[a->sem].keep) {
            *list = a->next;
            free(a);
            continue;
        }
        a->sem = s->edges[a->sem].sem;
        list = &a->next;
    }
}

/* ---- the skeleton and its sequential run ------------------------------------ */

static size_t item(S *s, int kind, int str, int ref, const IrLoop *lp)
{
    if (!grow(s, (void **)&s->items, &s->icap, s->nitems, sizeof *s->items))
        return 0;
    s->items[s->nitems] = (Item){kind, str, ref, lp};
    return s->nitems++;
}

static void skel_syncs(S *s, const AsmSync *a)
{
    for (; a; a = a->next)
        item(s, a->is_wait ? IT_WAIT : IT_SIGNAL, a->eng == TG_ENG_DMA ? TG_ENG_COUNT + a->queue : (int)a->eng,
             a->sem, NULL);
}

/* The program's statements and actions in the order asm_emit lays them out. */
static void skeleton(S *s, const IrStmt *st, int n)
{
    for (int i = 0; i < n && !s->oom; i++) {
        if (st[i].kind == IR_STMT_INST) {
            int k = st[i].inst->id;
            skel_syncs(s, s->out->before[k]);
            item(s, IT_INST, stream_of(s, st[i].inst), k, NULL);
            skel_syncs(s, s->out->after[k]);
            continue;
        }
        const IrLoop *lp = st[i].loop;
        int k = key_loop(s, lp);
        skel_syncs(s, s->out->before[k]);
        size_t at = item(s, IT_LOOP, TG_ENG_SYNC, 0, lp);
        skeleton(s, lp->body, lp->nbody);
        size_t end = item(s, IT_END, TG_ENG_SYNC, (int)at, lp);
        if (!s->oom)
            s->items[at].ref = (int)end;
        skel_syncs(s, s->out->after[k]);
    }
}

/* The bounds of loop lp's entry with the outer loop values in env: the
 * static range narrowed by lo/hi over the outer loops, as the ISS does. */
static void loop_bounds(const IrLoop *lp, const int64_t *env, int64_t *lo, int64_t *hi)
{
    int64_t b;
    *lo = lp->start;
    *hi = lp->stop;
    if (lp->start_e && !expr_eval(lp->start_e, env, &b, NULL) && b > *lo)
        *lo = b;
    if (lp->stop_e && !expr_eval(lp->stop_e, env, &b, NULL) && b < *hi)
        *hi = b;
}

/* The sequential run: item indices of every instruction and action, loops
 * unrolled, with each loop entry that iterates (IT_LOOP) and each endloop
 * step (IT_END). 0, or 1 when it exceeds ASM_SYNC_MAX_TRACE steps or memory
 * runs out. */
static int run(S *s)
{
    /* loop values by slot, each loop's stop for the current entry */
    size_t nslots = (size_t)s->ir->spec->nslots;
    int64_t *iter = calloc((size_t)s->ir->nloops + 1 + nslots, sizeof *iter), *env = iter + s->ir->nloops + 1;
    uint64_t budget = 2ull * ASM_SYNC_MAX_TRACE;
    if (!iter)
        return s->oom = 1;
    size_t pc = 0;
    while (pc < s->nitems) {
        const Item *it = &s->items[pc];
        if (budget-- == 0)
            break;
        if (it->kind == IT_LOOP) {
            int64_t lo, hi;
            loop_bounds(it->lp, env, &lo, &hi);
            if (lo >= hi) {
                pc = (size_t)it->ref + 1;
                continue;
            }
            env[it->lp->slot] = lo;
            iter[it->lp->id] = hi;
        }
        if (s->ntrace == ASM_SYNC_MAX_TRACE || !grow(s, (void **)&s->trace, &s->tcap, s->ntrace, sizeof *s->trace))
            break;
        s->trace[s->ntrace++] = (uint32_t)pc;
        if (it->kind == IT_END) {
            env[it->lp->slot] += it->lp->step;
            pc = env[it->lp->slot] < iter[it->lp->id] ? (size_t)it->ref + 1 : pc + 1;
        } else {
            pc++;
        }
    }
    free(iter);
    return pc < s->nitems;
}

/* Conflicting instructions on other streams, per instruction (CSR lists). */
static int conflict_lists(S *s, int **start, int **list)
{
    int n = s->ir->ninsts;
    size_t cap = 0, len = 0;
    *list = NULL;
    *start = calloc((size_t)n + 1, sizeof **start);
    if (!*start)
        return 0;
    for (int b = 0; b < n; b++) {
        (*start)[b] = (int)len;
        for (int a = 0; a < n; a++) {
            IrInst *ia = s->ir->insts[a], *ib = s->ir->insts[b];
            if (stream_of(s, ia) == stream_of(s, ib) || !conflict(s, ia, ib))
                continue;
            if (!grow(s, (void **)list, &cap, len, sizeof **list))
                return 0;
            (*list)[len++] = a;
        }
    }
    (*start)[n] = (int)len;
    return 1;
}

/* ---- accesses: the rotating copy each operand touches ------------------------ */

/* One operand of one instruction, as placed. */
typedef struct Acc {
    int space;            /* IrMem (an HBM tensor stands for itself) */
    int64_t p0, p1;       /* partitions [p0, p1) (HBM: [tensor, tensor + 1)) */
    int64_t b0, slot;     /* copy c: bytes [b0 + c*slot, b0 + (c+1)*slot) per partition */
    int bufs;             /* rotating copies (1: HBM, or whole tiles) */
    int write;            /* the instruction writes it */
    const Expr *buf;      /* which copy, per iteration */
    uint32_t rec;         /* its first history record (one per copy) */
} Acc;

/* Every operand's placement; with `whole`, a tile is one copy spanning all
 * of them (the static rule). 0 on OOM. */
static int accesses(S *s, int whole)
{
    const Ir *ir = s->ir;
    size_t cap = 0, n = 0;
    free(s->acc);
    free(s->acc0);
    s->acc = NULL;
    s->nrec = 0;
    s->maxd = 1;
    s->acc0 = calloc((size_t)ir->ninsts + 1, sizeof *s->acc0);
    if (!s->acc0)
        return !(s->oom = 1);
    for (int l = 0; l < ir->nloops; l++)
        s->maxd = ir->loops[l]->depth + 2 > s->maxd ? ir->loops[l]->depth + 2 : s->maxd;
    for (int i = 0; i < ir->ninsts; i++) {
        IrOperand o[IR_MAX_OPERANDS];
        int no = ir_operands(ir->insts[i], o);
        s->acc0[i] = (int)n;
        for (int k = 0; k < no; k++) {
            if (!grow(s, (void **)&s->acc, &cap, n, sizeof *s->acc))
                return 0;
            Region r;
            region_of(s, o[k].ap, &r);
            Acc *a = &s->acc[n++];
            *a = (Acc){r.space, r.p0, r.p1, r.b0, r.b1 - r.b0, 1, o[k].is_write, NULL, s->nrec};
            if (o[k].ap->mem != IR_MEM_HBM && !whole) {
                a->bufs = s->plan->tiles[o[k].ap->index].bufs;
                a->slot /= a->bufs;
                a->buf = o[k].ap->buf;
            }
            s->nrec += (uint32_t)a->bufs;
        }
        if (ir->insts[i]->has_ind) { /* reads every tensor, for ordering (conflict) */
            if (!grow(s, (void **)&s->acc, &cap, n, sizeof *s->acc))
                return 0;
            s->acc[n++] = (Acc){IR_MEM_HBM, 0, ir->spec->ntensors, 0, 1, 1, 0, NULL, s->nrec};
            s->nrec++;
        }
    }
    s->acc0[ir->ninsts] = (int)n;
    return 1;
}

/* The copy access a touches with the loop variables in env. */
static int copy_of(S *s, const Acc *a, const int64_t *env)
{
    int64_t v = 0;
    if (a->bufs <= 1)
        return 0;
    if (!a->buf || expr_eval(a->buf, env, &v, NULL)) {
        s->bad = 1;
        return 0;
    }
    v %= a->bufs;
    return (int)(v < 0 ? v + a->bufs : v);
}

/* 1 when copy ca of a and copy cb of b share a placed byte and one writes. */
static int acc_conflict(const Acc *a, int ca, const Acc *b, int cb)
{
    int64_t x = a->b0 + ca * a->slot, y = b->b0 + cb * b->slot;
    return (a->write || b->write) && a->space == b->space && a->p0 < b->p1 && b->p0 < a->p1 && x < y + b->slot &&
           y < x + a->slot;
}

/* The edge for one ordering: producer a's execution (history record r, its
 * iterations in hiter) before consumer b now (iterations in iter). The
 * outermost loop whose iteration differs carries it, at that distance;
 * none: a forward edge in their innermost common loop. */
static void derive_edge(S *s, int ai, const uint32_t *hiter, int bi, const uint32_t *iter)
{
    IrInst *a = s->ir->insts[ai], *b = s->ir->insts[bi];
    const IrLoop *lc = common(a, b), *chain[TG_ISA_MAX_REGS * 8];
    int n = 0;
    for (const IrLoop *l = lc; l && n < (int)(sizeof chain / sizeof *chain); l = l->parent)
        chain[n++] = l;
    while (n-- > 0) {
        const IrLoop *l = chain[n];
        uint32_t x = hiter[l->depth], y = iter[l->id];
        if (x != y) {
            if (x > y)
                s->bad = 1;
            else
                edge(s, a, b, l, (int)(y - x));
            return;
        }
    }
    edge(s, a, b, lc, 0);
}

/* Match every wait of the run with its signal (the k-th wait of an edge
 * takes the k-th signal: one signalling and one waiting stream per edge),
 * count each edge's actions, and list the orderings to guarantee: for each
 * instruction b and each other stream F, the last instruction of F before b
 * in the run that conflicts with b - per rotating copy, each operand's copy
 * evaluated at that iteration - (F runs in order: that covers every earlier
 * one); with s->derive, derive the edge for each of them too. 0 on OOM, a
 * wait the run reaches before its signal, or a copy that cannot be
 * evaluated (s->bad). */
static int analyse(S *s)
{
    const Ir *ir = s->ir;
    int *cstart = NULL, *clist = NULL, ok = 0;
    uint32_t *qnext = malloc((s->ntrace + 1) * sizeof *qnext);
    uint32_t *qhead = malloc((s->nedges + 1) * sizeof *qhead), *qtail = malloc((s->nedges + 1) * sizeof *qtail);
    uint32_t *hcnt = calloc((size_t)s->nrec + 1, sizeof *hcnt), cnt[NSTR] = {0};
    uint32_t *hiter = calloc(((size_t)s->nrec + 1) * (size_t)s->maxd, sizeof *hiter);
    uint32_t *iter = calloc((size_t)ir->nloops + 1, sizeof *iter);
    int64_t *env = calloc((size_t)ir->spec->nslots + 1, sizeof *env);
    free(s->aux);
    free(s->snap);
    s->snap = NULL;
    s->nreqs = 0;
    s->nsignals = 0;
    s->aux = malloc((s->ntrace + 1) * sizeof *s->aux);
    if (!qnext || !qhead || !qtail || !hcnt || !hiter || !iter || !env || !s->aux ||
        !conflict_lists(s, &cstart, &clist)) {
        s->oom = 1;
        goto out;
    }
    for (size_t e = 0; e < s->nedges; e++) {
        qhead[e] = qtail[e] = UINT32_MAX;
        s->edges[e].cost = 0;
    }
    for (uint32_t pos = 0; pos < s->ntrace && !s->bad; pos++) {
        const Item *it = &s->items[s->trace[pos]];
        if (it->kind == IT_LOOP || it->kind == IT_END) {
            const IrLoop *lp = it->lp;
            int64_t lo, hi;
            if (it->kind == IT_LOOP)
                loop_bounds(lp, env, &lo, &hi);
            iter[lp->id] = it->kind == IT_LOOP ? 0 : iter[lp->id] + 1;
            env[lp->slot] = it->kind == IT_LOOP ? lo : env[lp->slot] + lp->step;
        } else if (it->kind == IT_SIGNAL) {
            s->aux[pos] = s->nsignals++;
            qnext[pos] = UINT32_MAX;
            if (qtail[it->ref] == UINT32_MAX)
                qhead[it->ref] = pos;
            else
                qnext[qtail[it->ref]] = pos;
            qtail[it->ref] = pos;
            s->edges[it->ref].cost++;
        } else if (it->kind == IT_WAIT) {
            uint32_t p = qhead[it->ref];
            if (p == UINT32_MAX)
                goto out;
            s->aux[pos] = s->aux[p];
            qhead[it->ref] = qnext[p];
            if (qhead[it->ref] == UINT32_MAX)
                qtail[it->ref] = UINT32_MAX;
            s->edges[it->ref].cost++;
        } else {
            int b = it->ref, nb = s->acc0[b + 1] - s->acc0[b], cb[IR_MAX_OPERANDS], from[NSTR];
            const Acc *ab = &s->acc[s->acc0[b]];
            uint32_t need[NSTR] = {0}, rec[NSTR] = {0};
            for (int k = 0; k < nb; k++)
                cb[k] = copy_of(s, &ab[k], env);
            for (int c = cstart[b]; c < cstart[b + 1]; c++) {
                int a = clist[c], f = stream_of(s, ir->insts[a]);
                for (int ka = s->acc0[a]; ka < s->acc0[a + 1]; ka++) {
                    const Acc *x = &s->acc[ka];
                    for (int cp = 0; cp < x->bufs; cp++) {
                        uint32_t r = x->rec + (uint32_t)cp;
                        for (int k = 0; k < nb && hcnt[r] > need[f]; k++)
                            if (acc_conflict(x, cp, &ab[k], cb[k]))
                                need[f] = hcnt[r], rec[f] = r, from[f] = a;
                    }
                }
            }
            for (int f = 0; f < NSTR; f++) {
                if (!need[f])
                    continue;
                if (!grow(s, (void **)&s->reqs, &s->rcap, s->nreqs, sizeof *s->reqs))
                    goto out;
                s->reqs[s->nreqs++] = (Req){pos, need[f], f};
                if (s->derive)
                    derive_edge(s, from[f], &hiter[(size_t)rec[f] * (size_t)s->maxd], b, iter);
            }
            cnt[it->str]++;
            for (int k = 0; k < nb; k++) {
                uint32_t r = ab[k].rec + (uint32_t)cb[k];
                hcnt[r] = cnt[it->str];
                for (const IrLoop *l = ir->insts[b]->loop; l; l = l->parent)
                    hiter[(size_t)r * (size_t)s->maxd + (size_t)l->depth] = iter[l->id];
            }
        }
    }
    s->snap = malloc(((size_t)s->nsignals + 1) * NSTR * sizeof *s->snap);
    ok = s->snap != NULL && !s->bad;
    s->oom |= !s->snap;
out:
    free(qnext);
    free(qhead);
    free(qtail);
    free(hcnt);
    free(hiter);
    free(iter);
    free(env);
    free(cstart);
    free(clist);
    return ok;
}

/* 1 when the kept edges guarantee every ordering of the run in every
 * schedule: vector clocks over program order per stream plus "k-th signal
 * of an edge before its k-th wait" (the only order a schedule must keep). */
static int holds(S *s)
{
    uint32_t vc[NSTR][NSTR];
    memset(vc, 0, sizeof vc);
    size_t r = 0;
    for (uint32_t pos = 0; pos < s->ntrace; pos++) {
        const Item *it = &s->items[s->trace[pos]];
        if (it->kind == IT_LOOP || it->kind == IT_END)
            continue;
        uint32_t *c = vc[it->str];
        if (it->kind == IT_INST) {
            c[it->str]++;
            for (; r < s->nreqs && s->reqs[r].pos == pos; r++)
                if (c[s->reqs[r].str] < s->reqs[r].need)
                    return 0;
        } else if (s->edges[it->ref].keep) {
            uint32_t *sn = &s->snap[(size_t)s->aux[pos] * NSTR];
            if (it->kind == IT_SIGNAL)
                memcpy(sn, c, NSTR * sizeof *c);
            else
                for (int k = 0; k < NSTR; k++)
                    c[k] = sn[k] > c[k] ? sn[k] : c[k];
        }
    }
    return 1;
}

/* Removal order: the edges that cost most in the run first, then the
 * longer-distance ones, then the later-derived ones. */
typedef struct Cand {
    uint64_t cost;        /* Edge.cost */
    int dist;             /* Edge.dist */
    size_t index;         /* into S.edges */
} Cand;

static int cmp_cand(const void *pa, const void *pb)
{
    const Cand *a = pa, *b = pb;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    if (a->dist != b->dist)
        return b->dist - a->dist;
    return a->index > b->index ? -1 : a->index < b->index;
}

/* The skeleton with the actions placed so far, and its sequential run. 0,
 * or 1 when it is too long (or memory ran out). */
static int trace(S *s)
{
    s->nitems = 0;
    s->ntrace = 0;
    skeleton(s, s->ir->body, s->ir->nbody);
    return s->oom || run(s);
}

/* Greedy reduction: drop each edge in turn unless the others no longer
 * guarantee every ordering; what stays is minimal (each kept edge needed).
 * 0 when the edges were checked against every ordering (and reduced unless
 * that costs too much), 1 when the run cannot check them. */
static int reduce(S *s)
{
    if (trace(s) || !analyse(s) || !holds(s))
        return 1;
    if ((uint64_t)s->nedges * (s->ntrace + s->nreqs) > ASM_SYNC_MAX_WORK)
        return 0;
    Cand *order = malloc((s->nedges + 1) * sizeof *order);
    if (!order) {
        s->oom = 1;
        return 1;
    }
    for (size_t i = 0; i < s->nedges; i++)
        order[i] = (Cand){s->edges[i].cost, s->edges[i].dist, i};
    qsort(order, s->nedges, sizeof *order, cmp_cand);
    for (size_t i = 0; i < s->nedges; i++) {
        Edge *e = &s->edges[order[i].index];
        e->keep = 0;
        if (!holds(s))
            e->keep = 1;
    }
    free(order);
    s->out->reduced = 1;
    return 0;
}

static void free_list(AsmSync **list)
{
    while (*list) {
        AsmSync *next = (*list)->next;
        free(*list);
        *list = next;
    }
}

/* The static rule on whole tiles (sound by construction, no run needed). */
static void derive_whole(S *s)
{
    for (int k = 0; k < s->out->nkeys; k++) {
        free_list(&s->out->before[k]);
        free_list(&s->out->after[k]);
    }
    s->nedges = 0;
    s->bad = 0;
    if (!accesses(s, 1))
        return;
    derive_static(s);
    place_all(s);
    s->out->nderived = (int)s->nedges;
    reduce(s);
}

/* Edges from the orderings of the unsynchronised run, per rotating copy
 * (each one reaching as many iterations back as its ordering needs), placed
 * and reduced; when the run is too long, a copy cannot be evaluated or the
 * placed edges fail the check, the whole-tile static rule instead. */
static void derive_all(S *s)
{
    if (!accesses(s, 0))
        return;
    s->derive = 1;
    int dyn = !trace(s) && analyse(s);
    s->derive = 0;
    if (s->oom)
        return;
    if (!dyn) {
        derive_whole(s);
        return;
    }
    place_all(s);
    s->out->nderived = (int)s->nedges;
    if (!s->oom && reduce(s) && !s->oom)
        derive_whole(s);
}

int asm_sync_build(const Ir *ir, const Plan *plan, Diag *diag, AsmSyncs *out)
{
    S s;
    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    s.ir = ir;
    s.plan = plan;
    s.out = out;
    out->nkeys = ir->ninsts + ir->nloops;
    out->before = calloc((size_t)out->nkeys + 1, sizeof *out->before);
    out->after = calloc((size_t)out->nkeys + 1, sizeof *out->after);
    out->queue = calloc((size_t)ir->ninsts + 1, sizeof *out->queue);
    int rc = 0;
    if (!out->before || !out->after || !out->queue) {
        s.oom = 1;
    } else {
        assign_queues(&s);
        derive_all(&s);
    }
    for (size_t i = 0; !s.oom && i < s.nedges; i++) {
        Edge *e = &s.edges[i];
        if (!e->keep)
            continue;
        if (out->nsems == TG_ISA_MAX_SEMS) {
            diag_error(diag, e->loc, "E112", "more engine dependencies than the 256 semaphores of the model");
            rc = -1;
            break;
        }
        e->sem = out->nsems++;
    }
    for (int k = 0; !s.oom && !rc && k < out->nkeys; k++) {
        prune(&s, &out->before[k]);
        prune(&s, &out->after[k]);
    }
    if (s.oom) {
        diag_error(diag, (SrcLoc){ir->spec->file, 0, 0}, "E091", "out of memory while building the assembly");
        rc = -1;
    }
    free(s.edges);
    free(s.items);
    free(s.trace);
    free(s.aux);
    free(s.reqs);
    free(s.snap);
    free(s.acc);
    free(s.acc0);
    return rc;
}

void asm_sync_free(AsmSyncs *s)
{
    for (int k = 0; s->before && s->after && k < s->nkeys; k++) {
        for (int w = 0; w < 2; w++) {
            AsmSync *a = w ? s->after[k] : s->before[k];
            while (a) {
                AsmSync *next = a->next;
                free(a);
                a = next;
            }
        }
    }
    free(s->before);
    free(s->after);
    free(s->queue);
    memset(s, 0, sizeof *s);
}
