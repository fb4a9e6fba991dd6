/* forward.c - HBM forwarding for the C simulation (forward.h, docs/ir.md).
 *
 * Load forwarding. Tile t is written by one instruction only, a raw (same
 * dtype) load of the whole tile from an input tensor that nothing writes. A
 * reader that runs after the load in the same iteration of the load's loop
 * (in it or in a loop nested in it) and reads the same rotating copy reads
 * exactly the bytes that load put there: the input's elements. When every
 * reader of t is such a reader, each reads the input directly and the load
 * goes. A tile a print reads keeps its load (the print shows SBUF). Several
 * such loads of one tile (a peeled first iteration) go too when each reader
 * reads exactly one of them (loads_forwardable): bench/probes t10 stopped
 * copying 8 MB into SBUF.
 *
 * Store sinking. Tile u is stored whole by a raw store to an output that no
 * other instruction writes and none reads; any other reader of u runs in the
 * store's loop after every writer (reads_final) and reads the output once
 * the store sinks.
 * Every writer of u runs before the store in the same iteration of the
 * store's loop and writes the copy it stores; and in every iteration of that
 * loop the writers together write every element of u (proved by marking
 * them, iteration by iteration, within FWD_MARK_BUDGET). Then the store
 * copies exactly the values the writers left, so the writers write the
 * output directly and the store goes. Each output element still receives its
 * final value in the same iteration as before, and nothing reads the output
 * in between. Nor may an indirect DMA run between a writer and the store
 * (indirect_between): its bounds check may end the kernel there.
 *
 * A raw tensor_copy whose own store sank writes an output: a store by the
 * rule above, taken in a second round. Its tile's writers may include
 * accumulating matmuls, which read their dst, when the tile's first
 * instruction writes all of it at the store's loop level: each then reads
 * what this iteration wrote before it, in the output once sunk.
 *
 * A tile side is the whole tile as one contiguous free dim (element e of a
 * partition row is index e of the transfer) and the HBM side one contiguous
 * free dim too, so tile element (q, e) is HBM element offset + q*pstep + e and
 * any operand on the tile maps to an HBM pattern with the same steps, strided
 * views too: avgpool2d's windows xt[:, a::2, b::2], read four times, run
 * 0.49 -> 0.34 ms read from HBM (the partition loop runs inside its channel
 * loop, so a partition's input row is still in cache for the next window). */
#include <limits.h>
#include <string.h>

#include "forward.h"
#include "tg_dtype.h"

/* Analysis state. */
typedef struct F {
    Arena *arena;
    const Ir *ir;
    const Spec *spec;
    IrInst **cur;   /* per id: current form (original or arena copy), NULL dropped */
    const char **note;
    unsigned char *check; /* per id: a gather kept only to check its indices */
    int *tw, *tr;   /* per tile: instructions writing / reading it */
    int *hw, *hr;   /* per tensor: instructions writing / reading it */
    int64_t *env;   /* loop variable values (coverage proof) */
    unsigned char *mark; /* coverage bitmap */
    int64_t budget; /* element marks left for the current proof */
} F;

/* ---- expressions ---------------------------------------------------------------- */

static int same(const Expr *a, const Expr *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case EXPR_INT:
    case EXPR_VAR:
        return a->ival == b->ival;
    case EXPR_NEG:
        return same(a->a, b->a);
    case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: case EXPR_MOD: case EXPR_MIN: case EXPR_MAX:
        return same(a->a, b->a) && same(a->b, b->b);
    default:
        return 0;
    }
}

static Expr *mk(F *f, ExprKind k, Expr *a, Expr *b, SrcLoc loc)
{
    if (!a || !b)
        return NULL;
    Expr *e = arena_alloc(f->arena, sizeof *e);
    if (e) {
        memset(e, 0, sizeof *e);
        e->kind = k;
        e->a = a;
        e->b = b;
        e->loc = loc;
    }
    return e;
}

/* a + b, folding constants and zero. */
static Expr *add(F *f, Expr *a, Expr *b, SrcLoc loc)
{
    int64_t x, y, r;
    if (ir_expr_is(a, 0))
        return b;
    if (ir_expr_is(b, 0))
        return a;
    if (ir_expr_const(a, &x) && ir_expr_const(b, &y) && expr_add(x, y, &r))
        return expr_new_int(f->arena, r, loc);
    return mk(f, EXPR_ADD, a, b, loc);
}

/* x * k, folding constants, 0 and 1. */
static Expr *scale(F *f, Expr *x, int64_t k, SrcLoc loc)
{
    int64_t v, r;
    if (k == 0 || ir_expr_is(x, 0))
        return expr_new_int(f->arena, 0, loc);
    if (k == 1)
        return x;
    if (ir_expr_const(x, &v) && expr_mul(v, k, &r))
        return expr_new_int(f->arena, r, loc);
    return mk(f, EXPR_MUL, x, expr_new_int(f->arena, k, loc), loc);
}

/* ---- facts ---------------------------------------------------------------------- */

/* Loop a encloses loop b, or is b, or a is the top level. */
static int encloses(const IrLoop *a, const IrLoop *b)
{
    for (; b; b = b->parent)
        if (b == a)
            return 1;
    return a == NULL;
}

static int on_tile(const IrAp *ap, int t) { return ap->mem != IR_MEM_HBM && ap->index == t; }

/* Partitions of tile t. */
static int64_t tile_p(const F *f, int t) { return f->spec->tiles[t].shape[0]; }

/* Elements of one partition row of one copy of tile t. */
static int64_t tile_elems(const F *f, int t)
{
    const SpecTile *st = &f->spec->tiles[t];
    int64_t n = 1;
    for (int d = 1; d < st->rank; d++)
        n *= st->shape[d];
    return n;
}

/* 1 if ap takes the same elements of its tile as an access of rows [0, pc)
 * with elements [0, fc) of each, one run from the row's first element. pc and
 * fc are the tile's extents, or expressions over loop variables (a ragged
 * tile's current extents, SPEC.md §2.1) that ap's counts repeat: either way
 * both accesses take the same elements in any iteration that runs both (loop
 * slots are unique, so a variable means one loop). */
static int whole_rows(const IrAp *ap, const Expr *pc, const Expr *fc)
{
    return ir_expr_is(ap->pstart, 0) && same(ap->pcount, pc) && ir_expr_is(ap->offset, 0) && ap->nfree == 1 &&
           ap->free[0].step == 1 && same(ap->free[0].num, fc);
}

/* 1 if ap takes the whole tile, or its ragged extents (counts over loop
 * variables, then every row from 0 and one run of each row from 0): the
 * pattern a load or store of a tile pairs with its HBM side. */
static int whole_tile(const F *f, const IrAp *ap)
{
    const Expr *pc = ap->pcount, *fc = ap->nfree == 1 ? ap->free[0].num : NULL;
    return pc && fc && whole_rows(ap, pc, fc) && (pc->kind != EXPR_INT || pc->ival == tile_p(f, ap->index)) &&
           (fc->kind != EXPR_INT || fc->ival == tile_elems(f, ap->index));
}

/* 1 if ap, reading the tile `whole` transfers (a load's dst, a store's
 * src: whole_tile), reads what that transfer moves: the same rotating copy,
 * and on a ragged tile the same rows (any part of them when only the
 * partition count is ragged) or the same elements (a ragged row). The one
 * rule for a forwarded load's readers and a sunk store's other readers. */
static int reads_rows(const IrAp *ap, const IrAp *whole)
{
    const Expr *pc = whole->pcount, *fc = whole->free[0].num;
    return same(ap->buf, whole->buf) &&
           (pc->kind == EXPR_INT || (ir_expr_is(ap->pstart, 0) && same(ap->pcount, pc))) &&
           (fc->kind == EXPR_INT || whole_rows(ap, pc, fc));
}

/* What the counts key on: a tile, or an HBM tensor's storage (a view counts
 * as its base: SPEC.md §2.1). */
static int key_of(const F *f, const IrAp *ap)
{
    return ap->mem == IR_MEM_HBM ? f->spec->tensors[ap->index].base : ap->index;
}

/* Count per tile and tensor the instructions that write / read it (each
 * instruction once per tile or tensor and direction). */
static void count_uses(F *f)
{
    const Ir *ir = f->ir;
    for (int i = 0; i < ir->ninsts; i++) {
        if (!f->cur[i])
            continue; /* dropped by drop_overwritten */
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(f->cur[i], ops);
        for (int k = 0; k < n; k++) {
            const IrAp *ap = ops[k].ap;
            int *w = ap->mem == IR_MEM_HBM ? f->hw : f->tw, *r = ap->mem == IR_MEM_HBM ? f->hr : f->tr;
            int seen_w = 0, seen_r = 0, id = key_of(f, ap);
            for (int j = 0; j < k; j++)
                if ((ops[j].ap->mem == IR_MEM_HBM) == (ap->mem == IR_MEM_HBM) && key_of(f, ops[j].ap) == id) {
                    seen_w |= ops[j].is_write;
                    seen_r |= ops[j].is_read;
                }
            if (ops[k].is_write && !seen_w)
                w[id]++;
            if (ops[k].is_read && !seen_r)
                r[id]++;
        }
    }
}

/* The instruction to change: a private copy of cur[id]. */
static IrInst *mutable_inst(F *f, int id)
{
    if (f->cur[id] != f->ir->insts[id])
        return f->cur[id];
    IrInst *c = arena_alloc(f->arena, sizeof *c);
    if (c) {
        *c = *f->ir->insts[id];
        f->cur[id] = c;
    }
    return c;
}

/* The HBM pattern of operand `op` on a tile whose whole-tile transfer
 * `whole` (one contiguous dim) pairs with HBM pattern `hbm` (one free dim). */
static int to_hbm(F *f, IrAp *op, const IrAp *hbm)
{
    int64_t s = hbm->free[0].step;
    IrAp n = *op;
    n.mem = IR_MEM_HBM;
    n.index = hbm->index;
    n.pstep = hbm->pstep;
    n.pstart = expr_new_int(f->arena, 0, op->loc);
    n.offset = add(f, hbm->offset, add(f, scale(f, op->pstart, hbm->pstep, op->loc), scale(f, op->offset, s, op->loc),
                                       op->loc),
                   op->loc);
    for (int k = 0; k < n.nfree; k++)
        if (!expr_mul(op->free[k].step, s, &n.free[k].step))
            return 0;
    n.istep = hbm->istep; /* a forwarded gather's rows: by the indices it checked */
    n.ixgather = hbm->ixgather;
    n.rot_loop = -1;
    n.buf = expr_new_int(f->arena, 0, op->loc);
    if (!n.pstart || !n.offset || !n.buf)
        return -1;
    *op = n;
    return 1;
}

/* Drop instruction id, the last user of tile t, with a note naming tensor h;
 * a gather (forward_load) is kept only for its index check (Fwd.check_only). */
static int drop(F *f, int t, int id, const char *fmt, int h)
{
    f->tw[t] = 0;
    f->tr[t] = 0;
    if (f->cur[id]->has_ind)
        f->check[id] = 1; /* a gather stays where it was, to check its indices (TG_EBOUNDS) */
    else
        f->cur[id] = NULL;
    f->note[id] = arena_printf(f->arena, fmt, f->spec->tensors[h].name);
    return f->note[id] ? 0 : -1;
}

/* 1 if an indirect DMA (SPEC.md §2.1) touches tile t: its SBUF side and its
 * index column stay in SBUF (the emitter reads the indices from there, and an
 * HBM side indexed per partition has no such pattern to forward). With
 * gather_ok, a gather's SBUF side (the dst of an indirect load) does not
 * count: a store may sink into it, and the gather then writes the output rows
 * directly. It checks every index before it moves anything, in its place, so
 * a failing index leaves the outputs as the store would have. */
static int indirect_on(const F *f, int t, int gather_ok)
{
    for (int i = 0; i < f->ir->ninsts; i++) {
        const IrInst *c = f->cur[i];
        if (c && c->has_ind && (on_tile(&c->ind, t) || (on_tile(&c->dst, t) && !gather_ok) || on_tile(&c->src[0], t)))
            return 1;
    }
    return 0;
}

/* The written operand of instruction c on tile u (NULL if it writes none). */
static IrAp *written_on(IrInst *c, int u)
{
    IrOperand ops[IR_MAX_OPERANDS];
    int n = ir_operands(c, ops);
    for (int k = 0; k < n; k++)
        if (on_tile(ops[k].ap, u) && ops[k].is_write)
            return ops[k].ap;
    return NULL;
}

/* 1 if instruction c reads or writes tile u. */
static int uses_tile(IrInst *c, int u)
{
    IrOperand ops[IR_MAX_OPERANDS];
    int n = ir_operands(c, ops);
    for (int k = 0; k < n; k++)
        if (on_tile(ops[k].ap, u))
            return 1;
    return 0;
}

/* Instruction i's operands on tile t take the HBM pattern `hbm` pairs with
 * (to_hbm) instead: 0, or -1 when memory runs out (the HBM step is 1). */
static int rewrite_to_hbm(F *f, int i, int t, const IrAp *hbm)
{
    IrInst *c = mutable_inst(f, i);
    if (!c)
        return -1;
    IrOperand ops[IR_MAX_OPERANDS];
    int n = ir_operands(c, ops);
    for (int k = 0; k < n; k++)
        if (on_tile(ops[k].ap, t) && to_hbm(f, ops[k].ap, hbm) != 1)
            return -1;
    return 0;
}

/* ---- load forwarding ------------------------------------------------------------ */

/* A row or element gather (indirect load) into tile t may be forwarded: it
 * stays to check its indices and keeps them (the C simulation's tg_ix<id>, a
 * local of the kernel body), and its readers, which run after it in the same
 * iteration of its loop, read the rows at those indices. The column's bytes
 * may change after the gather (the column rewritten, or its SBUF reused by a
 * tile the plan places there once the gather, its last reader, is done); the
 * kept indices do not. */
static int gather_forwardable(const F *f, int t, int li)
{
    const IrInst *L = f->cur[li];
    return L->op == IR_OP_LOAD && L->ind.mem != IR_MEM_HBM && L->ind.index != t;
}

/* 1 if instruction c, reading a forwarded gather's tile through ap, reads
 * its rows where the emitter computes each partition's row address (an
 * element-wise op, a select among them, a reduce along the free dims, a copy
 * or a store, none indirect itself), from the tile's first partition (the index of partition
 * p is the column's row p). */
static int gather_reader(const IrInst *c, const IrAp *ap)
{
    switch (c->op) {
    case IR_OP_STORE: case IR_OP_DMA_COPY: case IR_OP_TENSOR_COPY: case IR_OP_TENSOR_TENSOR:
    case IR_OP_TENSOR_SCALAR: case IR_OP_ACTIVATION: case IR_OP_RECIPROCAL: case IR_OP_SCALAR_TENSOR_TENSOR:
    case IR_OP_TENSOR_REDUCE: case IR_OP_SELECT:
        return !c->has_ind && ir_expr_is(ap->pstart, 0);
    default:
        return 0;
    }
}

/* 1 if instruction li, by itself, is a load of tile t that forwarding may
 * drop: a raw load of the whole tile from an input that nothing writes. */
static int loader_ok(const F *f, int t, int li)
{
    const IrInst *L = f->cur[li];
    int gather = L->has_ind;
    if ((L->op != IR_OP_LOAD && L->op != IR_OP_DMA_COPY) || !on_tile(&L->dst, t) || L->nsrc != 1 ||
        L->src[0].mem != IR_MEM_HBM || indirect_on(f, t, gather) || (gather && !gather_forwardable(f, t, li)))
        return 0;
    const IrAp *h = &L->src[0];
    const SpecTensor *ht = &f->spec->tensors[h->index];
    return !(ht->is_output || ht->is_scratch || f->hw[ht->base] || L->dst.dtype != h->dtype || h->nfree != 1 ||
             h->free[0].step != 1 || !whole_tile(f, &L->dst));
}

/* 1 if tile t's loader (id li) can be dropped: see the file comment. */
static int load_forwardable(F *f, int t, int li)
{
    const IrInst *L = f->cur[li];
    int gather = L->has_ind;
    if (!loader_ok(f, t, li))
        return 0;
    for (int i = 0; i < f->ir->ninsts; i++) {
        if (i == li || !f->cur[i])
            continue;
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(f->cur[i], ops);
        for (int k = 0; k < n; k++) {
            if (!on_tile(ops[k].ap, t))
                continue;
            const IrAp *ap = ops[k].ap;
            if (f->cur[i]->op == IR_OP_PRINT)
                return 0; /* a print shows the tile as the machine holds it */
            if (ops[k].is_write || i < li || !encloses(L->loop, f->cur[i]->loop) || !reads_rows(ap, &L->dst) ||
                (gather && !gather_reader(f->cur[i], ap)))
                return 0;
        }
    }
    return 1;
}

/* Tile t written by several instructions, every one a plain load that
 * loader_ok takes: a K loop's first tile loaded before the loop and the rest
 * in it, as NKI authors peel the first matmul (`accumulate` is a boolean).
 * Each reader reads what the nearest writer before it in program order left,
 * when that writer's loop encloses the reader's, and no writer lies in a loop
 * that encloses the reader but not that writer (the reader's next iteration
 * would read it): then asg[reader] = that loader, and the reader reads the
 * same rotating copy (reads_rows). Every other instruction on t: not
 * forwardable. Returns the number of loaders, or 0. */
static int loads_forwardable(F *f, int t, int *asg)
{
    const int ni = f->ir->ninsts;
    int nw = 0;
    for (int i = 0; i < ni; i++) {
        asg[i] = -1;
        if (!f->cur[i] || !written_on(f->cur[i], t))
            continue;
        if (f->cur[i]->has_ind || !loader_ok(f, t, i))
            return 0;
        nw++;
    }
    if (nw < 2)
        return 0;
    for (int i = 0; i < ni; i++) {
        IrInst *c = f->cur[i];
        int w = -1;
        if (!c || written_on(c, t) || !uses_tile(c, t))
            continue;
        if (c->op == IR_OP_PRINT)
            return 0; /* a print shows the tile as the machine holds it */
        for (int j = i - 1; j >= 0 && w < 0; j--)
            if (f->cur[j] && written_on(f->cur[j], t)) {
                if (!encloses(f->cur[j]->loop, c->loop))
                    return 0; /* a loop of it may have run or not */
                w = j;
            }
        if (w < 0)
            return 0;
        for (const IrLoop *x = c->loop; x && !encloses(x, f->cur[w]->loop); x = x->parent)
            for (int j = 0; j < ni; j++)
                if (f->cur[j] && written_on(f->cur[j], t) && encloses(x, f->cur[j]->loop))
                    return 0;
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(c, ops);
        for (int k = 0; k < n; k++)
            if (on_tile(ops[k].ap, t) && !reads_rows(ops[k].ap, &f->cur[w]->dst))
                return 0;
        asg[i] = w;
    }
    return nw;
}

/* Forward each of tile t's loaders to the readers asg assigns it. */
static int forward_loads(F *f, int t, const int *asg)
{
    for (int w = 0; w < f->ir->ninsts; w++) {
        if (!f->cur[w] || !written_on(f->cur[w], t))
            continue;
        IrAp hbm = f->cur[w]->src[0];
        for (int i = 0; i < f->ir->ninsts; i++)
            if (asg[i] == w && rewrite_to_hbm(f, i, t, &hbm))
                return -1;
        if (drop(f, t, w, "forwarded: its readers read %s directly", hbm.index))
            return -1;
    }
    return 0;
}

static int forward_load(F *f, int t, int li)
{
    IrAp hbm = f->cur[li]->src[0];
    if (f->cur[li]->has_ind)
        hbm.ixgather = li + 1;
    for (int i = 0; i < f->ir->ninsts; i++)
        if (i != li && f->cur[i] && uses_tile(f->cur[i], t) && rewrite_to_hbm(f, i, t, &hbm))
            return -1;
    return drop(f, t, li,
                hbm.ixgather ? "forwarded: its readers read %s directly at the indices it checks and keeps here"
                             : "forwarded: its readers read %s directly",
                hbm.index);
}

/* ---- store sinking -------------------------------------------------------------- */

/* Mark the elements one writer's operand `op` covers, over every iteration
 * of the loops between `outer` (exclusive) and the writer's loop `lp`. */
static int mark_writes(F *f, const IrAp *op, const IrLoop *lp, const IrLoop *outer, int64_t elems)
{
    if (lp != outer) {
        if (lp->start_e || lp->stop_e)
            return 0; /* its range depends on loops enumerated after it: not proven */
        for (int64_t v = lp->start; v < lp->stop; v += lp->step) {
            f->env[lp->slot] = v;
            if (!mark_writes(f, op, lp->parent, outer, elems))
                return 0;
        }
        return 1;
    }
    int64_t off, num[IR_MAX_FREE], j[IR_MAX_FREE] = {0}, total = 1;
    if (expr_eval(op->offset, f->env, &off, NULL))
        return 0;
    for (int k = 0; k < op->nfree; k++) {
        if (expr_eval(op->free[k].num, f->env, &num[k], NULL) || num[k] < 0)
            return 0;
        total *= num[k] ? num[k] : 1;
        if (num[k] == 0)
            return 1;
    }
    if ((f->budget -= total + 1) < 0)
        return 0;
    for (;;) {
        int64_t e = off;
        for (int k = 0; k < op->nfree; k++)
            e += j[k] * op->free[k].step;
        if (e < 0 || e >= elems)
            return 0;
        f->mark[e] = 1;
        int k = op->nfree - 1;
        while (k >= 0 && ++j[k] == num[k])
            j[k--] = 0;
        if (k < 0)
            return 1;
    }
}

/* One iteration of the store's loop (its variables and those of the loops
 * around it set in env): do the writers, marked over the loops between them
 * and the store's loop, write exactly the elements the store takes (a ragged
 * row's first n: no writer may write past them)? */
static int covered_once(F *f, int u, const IrInst *S, int64_t elems)
{
    int64_t n;
    if (expr_eval(S->src[0].free[0].num, f->env, &n, NULL) || n < 0 || n > elems)
        return 0;
    elems = n;
    memset(f->mark, 0, (size_t)elems);
    for (int i = 0; i < S->id; i++) {
        IrInst *c = f->cur[i];
        IrAp *op = c ? written_on(c, u) : NULL;
        if (op && !mark_writes(f, op, c->loop, S->loop, elems))
            return 0;
    }
    for (int64_t e = 0; e < elems; e++)
        if (!f->mark[e])
            return 0;
    return 1;
}

/* Every iteration of the loops around the store (chain[0] outermost). */
static int covered(F *f, int u, const IrInst *S, int64_t elems, const IrLoop *const *chain, int n)
{
    if (n == 0)
        return covered_once(f, u, S, elems);
    const IrLoop *lp = chain[0];
    int64_t lo = lp->start, hi = lp->stop; /* bounds over the outer loops: set in env */
    if ((lp->start_e && expr_eval(lp->start_e, f->env, &lo, NULL)) ||
        (lp->stop_e && expr_eval(lp->stop_e, f->env, &hi, NULL)))
        return 0;
    for (int64_t v = lo; v < hi; v += lp->step) {
        f->env[lp->slot] = v;
        if ((f->budget -= 1) < 0 || !covered(f, u, S, elems, chain + 1, n - 1))
            return 0;
    }
    return 1;
}

/* 1 if every instruction that only reads tile u (other than its store, id
 * si) reads the values the writers leave in an iteration of the store's loop:
 * it runs in that loop after every writer, and no loop inside the store's
 * runs both it and a writer (else it could run between two of a writer's
 * iterations). Sunk, it reads them from the output: the writers wrote every
 * element there in this iteration (covered), and nothing else writes it. */
static int reads_final(F *f, int u, int si)
{
    const IrLoop *sl = f->cur[si]->loop;
    for (int r = 0; r < f->ir->ninsts; r++) {
        IrInst *R = f->cur[r];
        if (r == si || !R || written_on(R, u) || !uses_tile(R, u))
            continue;
        if (!encloses(sl, R->loop))
            return 0;
        for (int w = 0; w < f->ir->ninsts; w++) {
            if (!f->cur[w] || !written_on(f->cur[w], u))
                continue;
            if (w > r)
                return 0;
            for (const IrLoop *lp = R->loop; lp && lp != sl; lp = lp->parent)
                if (encloses(lp, f->cur[w]->loop))
                    return 0;
        }
    }
    return 1;
}

/* 1 if tile u's store (id si) can be dropped: see the file comment. */
static int store_sinkable(F *f, int u, int si)
{
    const IrInst *S = f->cur[si];
    if ((S->op != IR_OP_STORE && S->op != IR_OP_DMA_COPY && S->op != IR_OP_TENSOR_COPY) || S->nsrc != 1 ||
        !on_tile(&S->src[0], u) ||
        S->dst.mem != IR_MEM_HBM || S->has_ind || on_tile(&S->dst, u) || indirect_on(f, u, 1))
        return 0;
    const IrAp *h = &S->dst;
    const SpecTensor *ht = &f->spec->tensors[h->index];
    if (!ht->is_output || f->hw[ht->base] != 1 || f->hr[ht->base] ||
        h->dtype != S->src[0].dtype || h->nfree != 1 || h->free[0].step != 1 || !whole_tile(f, &S->src[0]))
        return 0;
    const Expr *pc = S->src[0].pcount; /* the rows stored: every writer writes these rows */
    const Expr *fc = S->src[0].free[0].num; /* ... and within them only elements [0, fc) (covered_once) */
    int64_t elems = tile_elems(f, u);
    int first = -1; /* the first instruction on the tile: a writer of all of it, at the store's loop level */
    for (int i = 0; i < f->ir->ninsts; i++) {
        IrInst *c = f->cur[i];
        if (i == si || !c)
            continue;
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(c, ops), nw = 0;
        if (!written_on(c, u)) { /* a reader: see reads_final */
            for (int k = 0; k < n; k++)
                if (on_tile(ops[k].ap, u) && (c->op == IR_OP_PRINT || !reads_rows(ops[k].ap, &S->src[0])))
                    return 0;
            continue;
        }
        for (int k = 0; k < n; k++) {
            if (!on_tile(ops[k].ap, u))
                continue;
            const IrAp *ap = ops[k].ap;
            if (first < 0)
                first = !ops[k].is_read && c->loop == S->loop && whole_rows(ap, pc, fc) ? i : INT_MAX;
            /* an accumulating matmul reads only what this iteration's writers
             * wrote before it (the first covers the tile): sunk, it reads HBM */
            int acc_ok = c->op == IR_OP_MATMUL && c->accumulate && ops[k].is_write && first < i;
            if ((ops[k].is_read && !acc_ok) || i > si || !encloses(S->loop, c->loop) ||
                !same(ap->buf, S->src[0].buf) || !ir_expr_is(ap->pstart, 0) || !same(ap->pcount, pc))
                return 0;
            nw++;
        }
        if (nw > 1)
            return 0;
    }
    if (!reads_final(f, u, si))
        return 0;
    const IrLoop *chain[64];
    int n = 0;
    for (const IrLoop *lp = S->loop; lp; lp = lp->parent)
        if (n < 64)
            chain[n++] = lp;
        else
            return 0;
    for (int a = 0, b = n - 1; a < b; a++, b--) {
        const IrLoop *x = chain[a];
        chain[a] = chain[b];
        chain[b] = x;
    }
    f->budget = FWD_MARK_BUDGET;
    f->mark = arena_alloc(f->arena, (size_t)(elems > 0 ? elems : 1));
    return f->mark && covered(f, u, S, elems, chain, n);
}

/* 1 if an indirect DMA may run after one of tile u's writers and before its
 * store (id si): one whose id lies between the first writer's and the
 * store's, or one inside a loop around a writer that is not around the store
 * (it runs again after the writer). Sunk writes would land before it, so a
 * failing index (TG_EBOUNDS) could find output bytes the store had not
 * written yet; an indirect DMA anywhere else sees the outputs as the stores
 * would leave them (before the writers in each iteration of the store's loop,
 * after the store, or outside that loop). */
static int indirect_between(F *f, int u, int si)
{
    const IrLoop *sl = f->cur[si]->loop;
    int first = si;
    for (int i = 0; i < si; i++)
        if (f->cur[i] && written_on(f->cur[i], u) && i < first)
            first = i;
    for (int d = 0; d < f->ir->ninsts; d++) {
        const IrInst *D = f->ir->insts[d];
        if (!D->has_ind)
            continue;
        if (d > first && d < si)
            return 1;
        for (int i = first; i < si; i++)
            if (f->cur[i] && written_on(f->cur[i], u))
                for (const IrLoop *lp = f->cur[i]->loop; lp && !encloses(lp, sl); lp = lp->parent)
                    if (encloses(lp, D->loop))
                        return 1;
    }
    return 0;
}

/* Every access to tile u but the store's (id si) now takes the output. */
static int sink_store(F *f, int u, int si)
{
    const IrAp hbm = f->cur[si]->dst;
    int readers = 0;
    for (int i = 0; i < f->ir->ninsts; i++) {
        if (i == si || !f->cur[i] || !uses_tile(f->cur[i], u))
            continue;
        readers += !written_on(f->cur[i], u);
        if (rewrite_to_hbm(f, i, u, &hbm))
            return -1;
    }
    return drop(f, u, si,
                readers ? "sunk: its tile's writers write %s directly, and its other readers read it there"
                        : "sunk: its tile's writers write %s directly",
                hbm.index);
}

/* ---- the pass ------------------------------------------------------------------- */

/* The one instruction that reads tile u (other than as an accumulating
 * matmul's dst, which reads back what the tile's writers wrote before it:
 * store_sinkable) and writes HBM, or -1 (none, or more than one); its other
 * readers are store_sinkable's to check. */
static int store_of(F *f, int u)
{
    int found = -1;
    for (int i = 0; i < f->ir->ninsts; i++) {
        if (!f->cur[i] || f->cur[i]->dst.mem != IR_MEM_HBM)
            continue;
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(f->cur[i], ops), reads = 0;
        for (int k = 0; k < n; k++)
            reads |= on_tile(ops[k].ap, u) && ops[k].is_read && !(f->cur[i]->op == IR_OP_MATMUL && ops[k].is_write);
        if (reads && found >= 0)
            return -1;
        if (reads)
            found = i;
    }
    return found;
}

/* The one instruction that writes (want_write) or reads tile t. */
static int only_user(F *f, int t, int want_write)
{
    for (int i = 0; i < f->ir->ninsts; i++) {
        if (!f->cur[i])
            continue;
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(f->cur[i], ops);
        for (int k = 0; k < n; k++)
            if (on_tile(ops[k].ap, t) && (want_write ? ops[k].is_write : ops[k].is_read))
                return i;
    }
    return -1;
}

/* ---- writes nothing reads ------------------------------------------------------ */

/* 1 if instruction c does something besides writing tiles: writes HBM, reads
 * an index column (its bounds check may end the kernel: TG_EBOUNDS), shows a
 * region (print) or writes nothing at all. */
static int has_effect(const F *f, int i)
{
    const IrInst *c = f->cur[i];
    if (f->check[i] || c->has_ind || c->op == IR_OP_PRINT)
        return 1;
    IrOperand ops[IR_MAX_OPERANDS];
    int n = ir_operands(c, ops), writes = 0;
    for (int k = 0; k < n; k++)
        if (ops[k].is_write) {
            writes++;
            if (ops[k].ap->mem == IR_MEM_HBM)
                return 1;
        }
    return !writes;
}

/* 1 if c writes a tile marked in live. */
static int writes_live(const IrInst *c, const unsigned char *live)
{
    IrOperand ops[IR_MAX_OPERANDS];
    int n = ir_operands(c, ops);
    for (int k = 0; k < n; k++)
        if (ops[k].is_write && ops[k].ap->mem != IR_MEM_HBM && live[ops[k].ap->index])
            return 1;
    return 0;
}

/* Tiles whose contents nothing observes: a tile is live when an instruction
 * that has an effect (has_effect) or writes a live tile reads it, to a fixed
 * point. An instruction that writes only dead tiles goes; one whose dst is a
 * dead tile but that also writes a live one (an accumulate's or reduce's
 * [P,1] result) keeps running with its dst marked `discard`, and the C back
 * end skips those writes (NKI's activation_reduce and tensor_scalar
 * accumulate with a throwaway elementwise result: bench/probes t05 wrote
 * three unread [128, 2048] tiles per row block). Outputs and their order of
 * writes are unchanged: nothing dropped wrote HBM or could fail. */
static int drop_dead(F *f)
{
    int ni = f->ir->ninsts, nt = f->ir->ntiles;
    unsigned char *live = arena_alloc(f->arena, (size_t)nt + 1);
    if (!live)
        return -1;
    memset(live, 0, (size_t)nt + 1);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < ni; i++) {
            if (!f->cur[i] || !(has_effect(f, i) || writes_live(f->cur[i], live)))
                continue;
            IrOperand ops[IR_MAX_OPERANDS];
            int n = ir_operands(f->cur[i], ops);
            for (int k = 0; k < n; k++)
                if (ops[k].is_read && ops[k].ap->mem != IR_MEM_HBM && !live[ops[k].ap->index]) {
                    live[ops[k].ap->index] = 1;
                    changed = 1;
                }
        }
    }
    for (int i = 0; i < ni; i++) {
        const IrInst *c = f->cur[i];
        if (!c)
            continue;
        if (!has_effect(f, i) && !writes_live(c, live)) {
            f->cur[i] = NULL;
            f->note[i] = arena_printf(f->arena, "dropped: nothing reads tile %s", f->spec->tiles[c->dst.index].name);
            if (!f->note[i])
                return -1;
        } else if (c->op != IR_OP_PRINT && c->dst.mem != IR_MEM_HBM && !live[c->dst.index] && !c->dst.discard) {
            IrInst *m = mutable_inst(f, i);
            if (!m)
                return -1;
            m->dst.discard = 1;
        }
    }
    return 0;
}

/* ---- writes overwritten before any read ---------------------------------------- */

static int same_cb(void *ctx, const Expr *a, const Expr *b)
{
    (void)ctx;
    return same(a, b);
}

/* A tile write that the next instruction on the tile overwrites whole: the
 * next instruction after i in program order that touches i's dst tile t is
 * j, in the same loop as i (so every iteration that runs i runs j after it,
 * with the same loop variables), j reads nothing of t and writes exactly
 * i's dst elements (the same pattern: every op but an accumulating matmul,
 * which reads its dst, writes each element of its dst) and is no indirect
 * DMA. Nothing can read what i wrote there, so i goes when that is all it
 * writes, or keeps running with its dst marked `discard` (drop_dead's form)
 * when it also writes an accumulate or reduce column. bench/probes x09 wrote
 * its squares into the tile its scaling overwrites (an NKI author's scratch
 * reuse), which also kept the square sum from folding its rows straight from
 * their source (kernel.c.j2 act_staged). Latest first, so that a chain of
 * such writes goes whole. Returns 0, or -1 when memory ran out. */
static int drop_overwritten(F *f)
{
    for (int i = f->ir->ninsts - 1; i >= 0; i--) {
        const IrInst *c = f->cur[i];
        if (!c || c->op == IR_OP_PRINT || c->has_ind || c->dst.mem == IR_MEM_HBM || c->dst.discard)
            continue;
        int t = c->dst.index, others = 0, on_t = 0, j;
        IrOperand ops[IR_MAX_OPERANDS];
        int n = ir_operands(c, ops);
        for (int k = 1; k < n; k++) /* ops[0] is the dst */
            if (ops[k].is_write) {
                others++;
                on_t |= on_tile(ops[k].ap, t);
            }
        if (on_t)
            continue; /* another result on the same tile: left alone */
        for (j = i + 1; j < f->ir->ninsts && !(f->cur[j] && uses_tile(f->cur[j], t)); j++)
            ;
        if (j == f->ir->ninsts)
            continue;
        const IrInst *w = f->cur[j];
        /* the same pattern: the same elements of the same copy in any
         * iteration that runs both (loop slots are unique) */
        if (w->loop != c->loop || w->has_ind || w->op == IR_OP_PRINT ||
            !ir_ap_same_but_offset(&w->dst, &c->dst, same_cb, NULL) || !same(w->dst.offset, c->dst.offset))
            continue;
        IrOperand wo[IR_MAX_OPERANDS];
        int wn = ir_operands(w, wo), reads = 0;
        for (int k = 0; k < wn; k++)
            reads |= on_tile(wo[k].ap, t) && wo[k].is_read;
        if (reads)
            continue;
        if (others == 0) {
            f->cur[i] = NULL;
            f->note[i] = arena_printf(f->arena, "dropped: the next instruction on tile %s overwrites what it writes",
                                      f->spec->tiles[t].name);
            if (!f->note[i])
                return -1;
        } else {
            IrInst *m = mutable_inst(f, i);
            if (!m)
                return -1;
            m->dst.discard = 1;
        }
    }
    return 0;
}

/* 1 if every loop from lp out is a loop of the SPMD grid (or lp is NULL). */
static int grid_only(const IrLoop *lp)
{
    for (; lp; lp = lp->parent)
        if (!lp->grid)
            return 0;
    return 1;
}

/* Constant tiles. Tile t is written by one instruction only: a memset of
 * a number (not one over loop variables) of the whole tile (every partition,
 * every element, its one copy), at top level or inside the grid's loops only
 * (once per program). An instruction after it in program order, inside its
 * loops, then reads that number as the tile's dtype holds it: the memset
 * stored it with tg_wr and a read widens it back (tg_store_f32 and
 * tg_load_f32 do the same). A scan's source on such a tile is marked konst
 * with that value, unless it is a NaN (whose payload the reads treat apart),
 * and the back end reads the number instead of the tile: a cumsum's ones
 * tile is no longer staged into its lanes, and 1·r, which is r for every
 * number (a NaN stays one, written canonical), leaves the chain. The memset
 * stays, for every other reader. The writer is count_uses' (tw, only_user).
 * Returns 0, or -1 when memory ran out. */
static int const_reads(F *f)
{
    const Ir *ir = f->ir;
    for (int i = 0; i < ir->ninsts; i++) {
        const IrInst *c = f->cur[i];
        if (!c || c->op != IR_OP_TENSOR_TENSOR_SCAN)
            continue;
        for (int k = 0; k < c->nsrc; k++) {
            const IrAp *ap = &c->src[k];
            if (ap->mem == IR_MEM_HBM || ap->konst)
                continue;
            int t = ap->index, w = f->tw[t] == 1 ? only_user(f, t, 1) : -1;
            if (w < 0 || w >= i)
                continue;
            const IrInst *m = f->cur[w];
            const SpecTile *st = &f->spec->tiles[t];
            const Expr *pc = m->dst.pcount, *fc = m->dst.nfree == 1 ? m->dst.free[0].num : NULL;
            if (m->op != IR_OP_MEMSET || m->valuex || !grid_only(m->loop) || !encloses(m->loop, c->loop))
                continue;
            if (st->bufs != 1 || st->ragged || !pc || !fc || !whole_rows(&m->dst, pc, fc) ||
                !ir_expr_is(pc, tile_p(f, t)) || !ir_expr_is(fc, tile_elems(f, t)))
                continue;
            unsigned char b[8] = {0};
            tg_store_f32(b, m->dst.dtype, 0, (float)m->value);
            float v = tg_load_f32(b, m->dst.dtype, 0);
            if (v != v)
                continue;
            IrInst *mc = mutable_inst(f, i);
            if (!mc)
                return -1;
            mc->src[k].konst = 1;
            mc->src[k].kval = v;
            c = mc;
        }
    }
    return 0;
}

int fwd_analyze(Arena *arena, const Ir *ir, Fwd *out)
{
    int ni = ir->ninsts, nt = ir->ntiles, nh = ir->spec->ntensors, nslots = ir->spec->nslots;
    F f = {.arena = arena, .ir = ir, .spec = ir->spec};
    f.cur = arena_alloc(arena, (size_t)(ni + 1) * sizeof *f.cur);
    f.note = arena_alloc(arena, (size_t)(ni + 1) * sizeof *f.note);
    f.check = arena_alloc(arena, (size_t)(ni + 1));
    f.tw = arena_alloc(arena, (size_t)(nt + 1) * sizeof *f.tw);
    f.tr = arena_alloc(arena, (size_t)(nt + 1) * sizeof *f.tr);
    f.hw = arena_alloc(arena, (size_t)(nh + 1) * sizeof *f.hw);
    f.hr = arena_alloc(arena, (size_t)(nh + 1) * sizeof *f.hr);
    f.env = arena_alloc(arena, (size_t)(nslots > EXPR_VAR_FIRST ? nslots : EXPR_VAR_FIRST) * sizeof *f.env);
    memset(out, 0, sizeof *out);
    if (!f.cur || !f.note || !f.check || !f.tw || !f.tr || !f.hw || !f.hr || !f.env)
        return -1;
    for (int i = 0; i < ni; i++) {
        f.cur[i] = ir->insts[i];
        f.note[i] = NULL;
        f.check[i] = 0;
    }
    memset(f.tw, 0, (size_t)(nt + 1) * sizeof *f.tw);
    memset(f.tr, 0, (size_t)(nt + 1) * sizeof *f.tr);
    memset(f.hw, 0, (size_t)(nh + 1) * sizeof *f.hw);
    memset(f.hr, 0, (size_t)(nh + 1) * sizeof *f.hr);
    memset(f.env, 0, (size_t)(nslots > EXPR_VAR_FIRST ? nslots : EXPR_VAR_FIRST) * sizeof *f.env);
    /* first: a store then sinks into a tile's remaining writers only */
    if (drop_overwritten(&f))
        return -1;
    count_uses(&f);
    /* loads first: a store whose tile came straight from a load then reads HBM */
    int *asg = arena_alloc(arena, (size_t)(ni + 1) * sizeof *asg);
    if (!asg)
        return -1;
    for (int t = 0; t < nt; t++) {
        int li = f.tw[t] == 1 ? only_user(&f, t, 1) : -1, nl;
        if (li >= 0 && load_forwardable(&f, t, li)) {
            if (forward_load(&f, t, li))
                return -1;
            out->loads++;
        } else if (f.tw[t] > 1 && (nl = loads_forwardable(&f, t, asg)) > 0) {
            if (forward_loads(&f, t, asg))
                return -1;
            out->loads += nl;
        }
    }
    /* store sinking writes outputs earlier than the store would: not across
     * an indirect DMA, which may fail (TG_EBOUNDS) with only the outputs of
     * the HBM writes before it in program order written (indirect_between) */
    for (int round = 0; round < 2; round++) /* a copy whose own store sank is a store to HBM now */
        for (int u = 0; u < nt; u++) {
            int si = store_of(&f, u);
            if (si >= 0 && f.tw[u] >= 1 && store_sinkable(&f, u, si) && !indirect_between(&f, u, si)) {
                if (sink_store(&f, u, si))
                    return -1;
                out->stores++;
            }
        }
    if (drop_dead(&f))
        return -1;
    if (const_reads(&f))
        return -1;
    out->inst = f.cur;
    out->note = f.note;
    out->check_only = f.check;
    return 0;
}
