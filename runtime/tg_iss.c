/* tg_iss.c - the instruction-set simulator of tg_iss.h: operand resolution
 * with bounds checks, each instruction's shape checks and per-op semantics
 * (the C simulation's element order and math, kernel.c.j2, through
 * tg_ops/tg_alu/tg_dtype; the row loops are tg_iss_row.c's), and the engine
 * scheduler (one program counter and register file per stream - each
 * compute engine and each DMA queue - counting semaphores, round-robin).
 * Freestanding C99: memcpy only. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_iss.h"

#include "tg_mem.h"

#include "tg_alu.h"
#include "tg_math.h"
#include "tg_ops.h"
#include "tg_prog.h"
#include "tg_iss_row.h"

/* At least any in-bounds element or byte offset (tensors ≤ 2^40 bytes,
 * TG_ISA_MAX_TENSOR_BYTES; SBUF rows < 2^18 bytes); larger values fail the
 * bounds check before any multiplication could overflow. */
#define ISS_FAR ((int64_t)TG_ISA_MAX_TENSOR_BYTES)
/* Most free elements of one operand row (and indices of one dim): 2^31, so
 * products with an int32 step or another count stay below 2^63. */
#define ISS_MAX_COUNT ((int64_t)1 << 31)

/* ---- state ------------------------------------------------------------------ */

/* One stream's view of the program (an engine, or one DMA queue): its own
 * pc and loop registers. */
typedef struct iss_engine {
    uint32_t pc;                          /* next instruction */
    int done;                             /* ran off the end */
    int64_t regs[TG_ISA_MAX_REGS];        /* loop registers by depth */
    uint32_t loop_pc[TG_ISA_MAX_REGS];    /* the open loop at each depth */
    int64_t stop[TG_ISA_MAX_REGS];        /* its stop value */
    int64_t step[TG_ISA_MAX_REGS];        /* its step */
    uint32_t depth;                       /* loops open around pc (registers r0..depth-1 live) */
} iss_engine;

/* One run. */
typedef struct iss {
    tg_core *core;                  /* the machine */
    tg_prog prog;                   /* the decoded program */
    void *const *tensors;           /* HBM tensors, program table order */
    tg_iss_stats *st;               /* counters (never NULL inside) */
    uint32_t sem[TG_ISA_MAX_SEMS];  /* semaphore counts (of the physical core running) */
    uint32_t pcore;                 /* the physical core running (format 2.2), 0.. ncores - 1 */
    size_t sbuf_col, psum_col;      /* its SBUF/PSUM bytes start this far into each row */
} iss;

/* ---- operands --------------------------------------------------------------- */

static int eval(const iss *m, const iss_engine *e, uint32_t expr, int64_t *v)
{
    return tg_prog_eval(&m->prog, expr, e->regs, 0, 0, v) ? TG_EPROGRAM : 0;
}

/* Fold free dims the walk can take as one (a dim of one index; an outer dim
 * whose step spans the inner one: step[k] = step[k+1]·num[k+1]) so runs get
 * longer. The walk's order and offsets stay the same. */
static void ap_merge(tg_iss_ap *a)
{
    int n = 0;
    for (int k = 0; k < a->nfree; k++) {
        if (a->num[k] == 1 && (n > 0 || k < a->nfree - 1))
            continue;
        if (n > 0 && a->step[n - 1] == a->step[k] * a->num[k]) { /* both < 2^31 */
            a->num[n - 1] *= a->num[k];                         /* ≤ count ≤ 2^31 */
            a->step[n - 1] = a->step[k];
            continue;
        }
        a->num[n] = a->num[k];
        a->step[n] = a->step[k];
        n++;
    }
    for (int k = n; k < TG_ISA_MAX_FREE; k++)
        a->num[k] = a->step[k] = 0;
    a->nfree = n;
}

/* Resolve operand `o` for engine `e`; `write` when the op writes it. */
static int ap_resolve(const iss *m, const iss_engine *e, const tg_prog_operand *o, int write, tg_iss_ap *a)
{
    int64_t buf, ps, pc, off, fmin = 0, fmax = 0;
    if (eval(m, e, o->buf, &buf) || eval(m, e, o->pstart, &ps) || eval(m, e, o->pcount, &pc) ||
        eval(m, e, o->offset, &off))
        return TG_EPROGRAM;
    memset(a, 0, sizeof *a);
    a->dtype = o->dtype;
    a->esize = (int64_t)tg_dtype_size(o->dtype);
    a->space = o->space;
    a->index = o->index;
    a->nfree = (int)o->nfree;
    a->count = 1;
    /* an HBM side's rows are no partitions: a dma_copy between tensors moves
     * any number (the other side's count, checked by the op) */
    if (pc < 1 || pc > (o->space == TG_SPACE_HBM ? ISS_FAR : TG_PARTITIONS) || off < -ISS_FAR || off > ISS_FAR)
        return TG_EBOUNDS;
    a->pcount = pc;
    for (int k = 0; k < a->nfree; k++) {
        if (eval(m, e, o->num[k], &a->num[k]))
            return TG_EPROGRAM;
        if (a->num[k] < 1 || a->num[k] > ISS_MAX_COUNT)
            return TG_EBOUNDS;
        a->step[k] = o->step[k];
        a->count *= a->num[k];
        int64_t t = a->step[k] * (a->num[k] - 1); /* |step| < 2^31: no overflow */
        if (t < 0)
            fmin += t;
        else
            fmax += t;
        if (a->count > ISS_MAX_COUNT || fmin < -ISS_FAR || fmax > ISS_FAR)
            return TG_EBOUNDS;
    }
    ap_merge(a);
    if (o->space == TG_SPACE_HBM) {
        tg_prog_tensor t;
        tg_prog_get_tensor(&m->prog, o->index, &t);
        int64_t bytes = a->esize;
        for (uint32_t d = 0; d < t.rank; d++)
            bytes *= t.shape[d];
        int64_t pt = (pc - 1) * (int64_t)o->pstep;
        int64_t lo = off + a->esize * (fmin + (pt < 0 ? pt : 0));
        int64_t hi = off + a->esize * (fmax + (pt > 0 ? pt : 0) + 1);
        if ((write && !t.is_output) || lo < 0 || hi > bytes || off % a->esize != 0 || a->count * a->esize > bytes)
            return TG_EBOUNDS; /* outside the tensor, an input written, misaligned, or more elements than it has */
        uint8_t *base = (uint8_t *)m->tensors[t.base]; /* a view: its base's bytes */
        a->p0 = base + off;
        a->prow = (ptrdiff_t)o->pstep * a->esize;
        a->lo = base + lo;
        a->hi = base + hi;
        return 0;
    }
    tg_prog_tile t;
    tg_prog_get_tile(&m->prog, o->index, &t);
    int64_t copy = buf % (int64_t)t.bufs;
    copy += copy < 0 ? (int64_t)t.bufs : 0;
    int64_t lo = off + a->esize * fmin, hi = off + a->esize * (fmax + 1);
    if (ps < 0 || ps > (int64_t)t.pcount || pc > (int64_t)t.pcount - ps || lo < 0 || hi > (int64_t)t.slot ||
        a->count * a->esize > (int64_t)t.slot)
        return TG_EBOUNDS; /* outside the copy, or a row of more elements than the copy holds */
    /* tile bases, slots and partitions are validated against the target's
     * capacity by tg_prog_decode, and the core's target matches */
    int64_t col = (int64_t)t.base + copy * (int64_t)t.slot;
    if ((col + off) % a->esize != 0)
        return TG_EBOUNDS; /* misaligned for the operand's dtype (docs/iss.md, contract) */
    uint32_t p = t.pstart + (uint32_t)ps;
    /* rows of the program's own extents (iss_layout): every copy fits */
    if (o->space == TG_SPACE_SBUF) {
        a->p0 = m->core->sbuf + (size_t)p * m->core->sbuf_row + m->sbuf_col + (col + off);
        a->prow = (ptrdiff_t)m->core->sbuf_row;
    } else {
        a->p0 = m->core->psum + (size_t)p * m->core->psum_row + m->psum_col + (col + off);
        a->prow = (ptrdiff_t)m->core->psum_row;
    }
    a->part = p;
    a->clo = col + lo;
    a->chi = col + hi;
    a->lo = a->p0 + a->esize * fmin;
    a->hi = a->p0 + (pc - 1) * a->prow + a->esize * (fmax + 1);
    return 0;
}

/* The operand of `role` resolved into *a; 1 if present, 0 if absent, or a
 * negative TG_E* code. */
static int operand(const iss *m, const iss_engine *e, const tg_prog_inst *in, tg_isa_role role, int write,
                   tg_iss_ap *a)
{
    tg_prog_operand o;
    if (!tg_prog_find_operand(&m->prog, in, role, &o))
        return 0;
    if (in->engine == TG_ENG_POOL && o.space == TG_SPACE_PSUM)
        return TG_EPROGRAM; /* GpSimd cannot access PSUM (SPEC §1) */
    int rc = ap_resolve(m, e, &o, write, a);
    return rc ? rc : 1;
}

/* A required operand (the decoder guarantees presence). */
static int need(const iss *m, const iss_engine *e, const tg_prog_inst *in, tg_isa_role role, int write, tg_iss_ap *a)
{
    int rc = operand(m, e, in, role, write, a);
    return rc < 0 ? rc : rc ? 0 : TG_EPROGRAM;
}

static uint64_t imm(const iss *m, const tg_prog_inst *in, tg_isa_imm key, uint64_t dflt)
{
    uint64_t v = dflt;
    tg_prog_find_imm(&m->prog, in, key, &v);
    return v;
}

/* ---- element-wise ops ------------------------------------------------------- */

static int scalar(const iss *m, const iss_engine *e, const tg_prog_inst *in, tg_isa_role role, tg_isa_imm key,
                  float dflt, int64_t np, tg_iss_scalar *s)
{
    int rc = operand(m, e, in, role, 0, &s->ap);
    if (rc < 0)
        return rc;
    s->is_ap = rc;
    s->num = dflt;
    if (key < TG_IMM_COUNT && tg_prog_number(&m->prog, in, key, e->regs, dflt, &s->num))
        return TG_EPROGRAM;
    return rc && s->ap.pcount != np ? TG_EPROGRAM : 0;
}

/* The optional [P,1] reduce_dst and reduce_op of an activation or a
 * tensor_scalar (accumulate) into w. */
static int reduce_dst(const iss *m, const iss_engine *e, const tg_prog_inst *in, int64_t np, tg_iss_ew *w)
{
    int rc = operand(m, e, in, TG_ROLE_REDUCE_DST, 1, &w->red);
    w->red_op = (tg_alu_op)imm(m, in, TG_IMM_REDUCE_OP, TG_ALU_ADD);
    w->has_reduce = rc == 1;
    return rc < 0 ? rc : (w->has_reduce && (w->red.pcount != np || w->red.count != 1)) ? TG_EPROGRAM : 0;
}

/* Count of an element-wise source must match dst or broadcast ([P,1]). */
static int fits(const tg_iss_ap *d, const tg_iss_ap *s, int64_t np)
{
    return s->pcount == np && (s->count == d->count || s->count == 1);
}

/* The index column of an indirect load or store (SPEC.md §2.1) whose HBM
 * side is h, moving np partitions: every index read into ix[0..np) and
 * checked against index_bound before anything moves (TG_EBOUNDS, nothing
 * written), *istep its step (elements). Without a column *istep stays 0. */
static int index_column(const iss *m, const iss_engine *e, const tg_prog_inst *in, const tg_iss_ap *h, int64_t np,
                        int64_t *ix, int64_t *istep)
{
    tg_iss_ap x;
    int rc = operand(m, e, in, TG_ROLE_INDEX, 0, &x);
    if (rc <= 0)
        return rc;
    int64_t step = (int64_t)imm(m, in, TG_IMM_INDEX_STEP, 0), bound = (int64_t)imm(m, in, TG_IMM_INDEX_BOUND, 0);
    if (x.count != 1 || x.pcount < np || np > TG_PARTITIONS)
        return TG_EPROGRAM;
    /* every row an index in range reaches lies inside the tensor (ap_resolve
     * checked index 0's); step and bound are at most 2^40 (tg_prog_decode) */
    tg_prog_tensor t;
    tg_prog_get_tensor(&m->prog, h->index, &t);
    int64_t elems = 1;
    for (uint32_t d = 0; d < t.rank; d++)
        elems *= t.shape[d];
    const uint8_t *base = (const uint8_t *)m->tensors[t.base];
    if (bound > 1 && step > elems / (bound - 1))
        return TG_EBOUNDS;
    if ((h->hi - base) + (bound - 1) * step * h->esize > elems * h->esize)
        return TG_EBOUNDS;
    for (int64_t p = 0; p < np; p++) {
        int64_t v = tg_index_at(tg_iss_row(&x, p), x.dtype);
        if (v < 0 || v >= bound)
            return TG_EBOUNDS; /* an index out of range: the DMA moves nothing */
        ix[p] = v;
    }
    *istep = step;
    return 0;
}

/* Row p of an indirect DMA's HBM side h: index ix[p] rows further, in *tmp. */
static const tg_iss_ap *index_row(const tg_iss_ap *h, const int64_t *ix, int64_t istep, int64_t p, tg_iss_ap *tmp)
{
    *tmp = *h;
    tmp->p0 += ix[p] * istep * h->esize;
    return tmp;
}

static int exec_elementwise(iss *m, iss_engine *e, const tg_prog_inst *in, tg_isa_engine eng)
{
    tg_iss_ew w;
    tg_iss_ap d, a, b, c;
    tg_iss_ap *s0 = NULL, *s1 = NULL;
    int rc;
    memset(&w, 0, sizeof w);
    w.prog = &m->prog;
    w.regs = e->regs;
    w.op1 = TG_ALU_COUNT;
    if ((rc = need(m, e, in, TG_ROLE_DST, 1, &d)) != 0)
        return rc;
    int64_t np = d.pcount;
    switch (in->op) {
    case TG_OP_LOAD:
    case TG_OP_STORE:
    case TG_OP_DMA_COPY:
    case TG_OP_TENSOR_COPY:
        w.kind = TG_ISS_CAST;
        rc = need(m, e, in, TG_ROLE_SRC, 0, &a);
        s0 = &a;
        if (!rc && in->op == TG_OP_LOAD)
            np = a.pcount; /* a load walks its source's rows (kernel.c.j2) */
        break;
    case TG_OP_TENSOR_TENSOR:
        w.kind = TG_ISS_TT;
        w.op0 = (tg_alu_op)imm(m, in, TG_IMM_OP, 0);
        if (!(rc = need(m, e, in, TG_ROLE_A, 0, &a)))
            rc = need(m, e, in, TG_ROLE_B, 0, &b);
        s0 = &a;
        s1 = &b;
        break;
    case TG_OP_RECIPROCAL:
        w.kind = TG_ISS_RECIP;
        rc = need(m, e, in, TG_ROLE_SRC, 0, &a);
        s0 = &a;
        break;
    case TG_OP_TENSOR_SCALAR:
        w.kind = TG_ISS_TS;
        w.op0 = (tg_alu_op)imm(m, in, TG_IMM_OP0, 0);
        w.op1 = (tg_alu_op)imm(m, in, TG_IMM_OP1, TG_ALU_COUNT);
        w.rev0 = (int)imm(m, in, TG_IMM_REVERSE0, 0);
        w.rev1 = (int)imm(m, in, TG_IMM_REVERSE1, 0);
        if (!(rc = need(m, e, in, TG_ROLE_SRC, 0, &a)) &&
            !(rc = scalar(m, e, in, TG_ROLE_OPERAND0, TG_IMM_OPERAND0_NUM, 0.0f, np, &w.s0)) &&
            !(rc = scalar(m, e, in, TG_ROLE_OPERAND1, TG_IMM_OPERAND1_NUM, 0.0f, np, &w.s1)))
            rc = reduce_dst(m, e, in, np, &w);
        s0 = &a;
        break;
    case TG_OP_ACTIVATION:
        w.kind = TG_ISS_ACT;
        w.func = (tg_act_func)imm(m, in, TG_IMM_FUNC, 0);
        if (!(rc = need(m, e, in, TG_ROLE_SRC, 0, &a)) &&
            !(rc = scalar(m, e, in, TG_ROLE_SCALE, TG_IMM_SCALE_NUM, 1.0f, np, &w.s0)) &&
            !(rc = scalar(m, e, in, TG_ROLE_BIAS, TG_IMM_COUNT, 0.0f, np, &w.s1)))
            rc = reduce_dst(m, e, in, np, &w);
        s0 = &a;
        break;
    case TG_OP_TENSOR_TENSOR_SCAN:
        w.kind = TG_ISS_SCAN;
        w.op0 = (tg_alu_op)imm(m, in, TG_IMM_OP0, 0);
        w.op1 = (tg_alu_op)imm(m, in, TG_IMM_OP1, 0);
        if (!(rc = need(m, e, in, TG_ROLE_A, 0, &a)) && !(rc = need(m, e, in, TG_ROLE_B, 0, &b)))
            rc = scalar(m, e, in, TG_ROLE_INITIAL, TG_IMM_INITIAL_NUM, 0.0f, np, &w.s0);
        s0 = &a;
        s1 = &b;
        break;
    case TG_OP_SCALAR_TENSOR_TENSOR:
        w.kind = TG_ISS_STT;
        w.op0 = (tg_alu_op)imm(m, in, TG_IMM_OP0, 0);
        w.op1 = (tg_alu_op)imm(m, in, TG_IMM_OP1, 0);
        w.rev0 = (int)imm(m, in, TG_IMM_REVERSE0, 0);
        if (!(rc = need(m, e, in, TG_ROLE_SRC, 0, &a)) && !(rc = need(m, e, in, TG_ROLE_B, 0, &b)))
            rc = scalar(m, e, in, TG_ROLE_OPERAND0, TG_IMM_OPERAND0_NUM, 0.0f, np, &w.s0);
        s0 = &a;
        s1 = &b;
        break;
    case TG_OP_SELECT: { /* pred, on_true, on_false: an access pattern (s0, s1, s2) or a number each */
        static const tg_isa_role roles[3] = {TG_ROLE_PRED, TG_ROLE_ON_TRUE, TG_ROLE_ON_FALSE};
        static const tg_isa_imm nums[3] = {TG_IMM_PRED_NUM, TG_IMM_ON_TRUE_NUM, TG_IMM_ON_FALSE_NUM};
        tg_iss_ap *aps[3] = {&a, &b, &c};
        w.kind = TG_ISS_WHERE;
        for (int k = 0; k < 3 && !rc; k++) {
            if ((rc = tg_prog_number(&m->prog, in, nums[k], e->regs, 0.0f, &w.sel_num[k])) != 0)
                break; /* a number per iteration that does not evaluate */
            rc = operand(m, e, in, roles[k], 0, aps[k]);
            if (rc == 1 && k == 0)
                s0 = aps[k];
            else if (rc == 1 && k == 1)
                s1 = aps[k];
            else if (rc == 1)
                w.s2 = aps[k];
            rc = rc < 0 ? rc : 0;
        }
        break;
    }
    case TG_OP_NC_MATCH_REPLACE8:
        w.kind = TG_ISS_MATCH;
        if (!(rc = tg_prog_number(&m->prog, in, TG_IMM_IMM, e->regs, 0.0f, &w.value)) &&
            !(rc = need(m, e, in, TG_ROLE_SRC, 0, &a)) && !(rc = need(m, e, in, TG_ROLE_VALUES, 0, &c)))
            rc = c.pcount != np || c.count != 8 ? TG_EPROGRAM : 0;
        w.vals = &c;
        s0 = &a;
        break;
    case TG_OP_MEMSET:
        w.kind = TG_ISS_MEMSET;
        rc = tg_prog_number(&m->prog, in, TG_IMM_VALUE, e->regs, 0.0f, &w.value);
        break;
    case TG_OP_IOTA:
        w.kind = TG_ISS_IOTA;
        w.x0 = (uint32_t)imm(m, in, TG_IMM_EXPR, 0);
        break;
    default: /* TG_OP_AFFINE_SELECT */
        w.kind = TG_ISS_SELECT;
        w.x0 = (uint32_t)imm(m, in, TG_IMM_LHS, 0);
        w.x1 = (uint32_t)imm(m, in, TG_IMM_RHS, 0);
        w.cmp = (tg_cmp)imm(m, in, TG_IMM_CMP, 0);
        if (!(rc = tg_prog_number(&m->prog, in, TG_IMM_FILL, e->regs, 0.0f, &w.value)))
            rc = need(m, e, in, TG_ROLE_SRC, 0, &a);
        s0 = &a;
        break;
    }
    if (rc)
        return rc;
    if (d.pcount != np || (s0 && !fits(&d, s0, np)) || (s1 && !fits(&d, s1, np)) || (w.s2 && !fits(&d, w.s2, np)))
        return TG_EPROGRAM;
    /* an indirect load or store: the HBM side's row p moves by index[p] */
    int64_t ix[TG_PARTITIONS], istep = 0;
    int gather = in->op == TG_OP_LOAD;
    if ((in->op == TG_OP_LOAD || in->op == TG_OP_STORE) &&
        (rc = index_column(m, e, in, gather ? s0 : &d, np, ix, &istep)) != 0)
        return rc;
    tg_iss_ap tmp;
    if (w.kind == TG_ISS_CAST && s0->dtype == d.dtype) {
        /* shifted HBM rows: overlapping whenever both sides are in one space */
        int overlap = tg_iss_overlap(&d, s0) || (istep && d.space == s0->space);
        for (int64_t p = 0; p < np; p++) {
            const tg_iss_ap *h = istep ? index_row(gather ? s0 : &d, ix, istep, p, &tmp) : NULL;
            tg_iss_copy_row(h && !gather ? h : &d, h && gather ? h : s0, p, overlap);
        }
    } else {
        int64_t block = tg_iss_ew_block(&d, s0, s1), b2 = tg_iss_ew_block(&d, w.s2, NULL);
        block = b2 < block ? b2 : block;
        if (istep && d.space == s0->space) /* shifted HBM rows: element by element */
            block = 1;
        for (int64_t p = 0; p < np; p++) {
            const tg_iss_ap *h = istep ? index_row(gather ? s0 : &d, ix, istep, p, &tmp) : NULL;
            if ((rc = tg_iss_ew_row(&w, h && !gather ? h : &d, h && gather ? h : s0, s1, p, block)) != 0)
                return rc;
        }
    }
    m->st->eng[eng].elems += (uint64_t)(np * d.count);
    if (eng == TG_ENG_DMA)
        m->st->eng[eng].dma_bytes += (uint64_t)(np * d.count * d.esize);
    return 0;
}

/* ---- row and partition ops -------------------------------------------------- */

/* tensor_reduce: dst[p,0] = left fold of src[p,:], negated if asked. */
static int exec_reduce(iss *m, iss_engine *e, const tg_prog_inst *in)
{
    tg_iss_ap d, s;
    int rc;
    if ((rc = need(m, e, in, TG_ROLE_DST, 1, &d)) || (rc = need(m, e, in, TG_ROLE_SRC, 0, &s)))
        return rc;
    if (d.count != 1 || s.pcount != d.pcount)
        return TG_EPROGRAM;
    tg_alu_op op = (tg_alu_op)imm(m, in, TG_IMM_OP, 0);
    int negate = (int)imm(m, in, TG_IMM_NEGATE, 0);
    float x[TG_ISS_BLOCK];
    for (int64_t p = 0; p < d.pcount; p++) {
        tg_iss_it it;
        tg_iss_it_init(&it, 0);
        float r = 0.0f;
        for (int64_t j0 = 0, n; j0 < s.count; j0 += n) {
            n = s.count - j0 < TG_ISS_BLOCK ? s.count - j0 : TG_ISS_BLOCK;
            tg_iss_gather(&s, tg_iss_row(&s, p), &it, x, n);
            r = j0 ? tg_iss_fold(op, r, x, n) : tg_iss_fold(op, x[0], x + 1, n - 1);
        }
        r = tg_nan_canon(r); /* the fold ran raw (tg_iss_fold) */
        r = negate ? -r : r;
        tg_iss_scatter_row(&d, p, &r);
    }
    m->st->eng[in->engine].elems += (uint64_t)d.pcount;
    return 0;
}

/* max8 / nc_find_index8: per partition, the source row streamed in free-index
 * order through tg_max8_add / tg_find8_add (tg_ops.h: the plain forms, whose
 * slots the C simulation's tg_top8_add / tg_find8_put repeat without data
 * branches), then the 8 results into the dst row. */
static int exec_top8(iss *m, iss_engine *e, const tg_prog_inst *in)
{
    tg_iss_ap d, s, v;
    int rc, find = in->op == TG_OP_NC_FIND_INDEX8;
    if ((rc = need(m, e, in, TG_ROLE_DST, 1, &d)) || (rc = need(m, e, in, TG_ROLE_SRC, 0, &s)) ||
        (find && (rc = need(m, e, in, TG_ROLE_VALUES, 0, &v))))
        return rc;
    if (d.count != 8 || s.pcount != d.pcount || (find && (v.pcount != d.pcount || v.count != 8)))
        return TG_EPROGRAM;
    float x[TG_ISS_BLOCK], out[8], vals[8];
    for (int64_t p = 0; p < d.pcount; p++) {
        tg_iss_it it;
        unsigned used = 0;
        tg_iss_it_init(&it, 0);
        if (find) {
            tg_iss_gather_row(&v, p, vals);
            for (int k = 0; k < 8; k++)
                out[k] = TG_FIND8_NONE;
        } else {
            tg_max8_init(out);
        }
        for (int64_t j0 = 0, n; j0 < s.count; j0 += n) {
            n = s.count - j0 < TG_ISS_BLOCK ? s.count - j0 : TG_ISS_BLOCK;
            tg_iss_gather(&s, tg_iss_row(&s, p), &it, x, n);
            for (int64_t i = 0; i < n; i++) {
                if (find)
                    tg_find8_add(out, &used, vals, x[i], j0 + i);
                else
                    tg_max8_add(out, x[i]);
            }
        }
        tg_iss_scatter_row(&d, p, out);
    }
    m->st->eng[in->engine].elems += (uint64_t)(d.pcount * s.count);
    return 0;
}

/* bn_stats / bn_aggr: per partition, the row through the runtime call. */
static int exec_bn(iss *m, iss_engine *e, const tg_prog_inst *in)
{
    tg_iss_ap d, s;
    int rc, stats = in->op == TG_OP_BN_STATS;
    if ((rc = need(m, e, in, TG_ROLE_DST, 1, &d)) || (rc = need(m, e, in, TG_ROLE_SRC, 0, &s)))
        return rc;
    if (d.count != (stats ? TG_BN_STATS_RECORD : 2) || s.pcount != d.pcount ||
        s.count > (stats ? TG_BN_STATS_FMAX : TG_BN_AGGR_FMAX) || (!stats && s.count % 3))
        return TG_EPROGRAM;
    float x[TG_BN_AGGR_FMAX], out[TG_BN_STATS_RECORD];
    for (int64_t p = 0; p < d.pcount; p++) {
        tg_iss_gather_row(&s, p, x);
        if (stats)
            (void)tg_bn_stats_f32(out, x, (size_t)s.count);
        else
            (void)tg_bn_aggr_f32(out, x, (size_t)s.count);
        tg_iss_scatter_row(&d, p, out);
    }
    m->st->eng[in->engine].elems += (uint64_t)(d.pcount * d.count);
    return 0;
}

/* matmul dst[M,N] (+)= stat[K,M]^T mov[K,N] and transpose dst[F,P] = src[P,F]^T,
 * through the core's fp32 panels exactly as the C simulation stages them. */
static int exec_pe(iss *m, iss_engine *e, const tg_prog_inst *in)
{
    tg_iss_ap d, a, b;
    int rc, mm = in->op == TG_OP_MATMUL;
    tg_core *c = m->core;
    if ((rc = need(m, e, in, TG_ROLE_DST, 1, &d)) ||
        (rc = need(m, e, in, mm ? TG_ROLE_STATIONARY : TG_ROLE_SRC, 0, &a)) ||
        (mm && (rc = need(m, e, in, TG_ROLE_MOVING, 0, &b))))
        return rc;
    int64_t K = a.pcount, M = a.count, N = mm ? b.count : 0;
    if (mm ? (b.pcount != K || d.pcount != M || d.count != N || M > TG_MATMUL_STATIONARY_FMAX ||
              N > TG_MATMUL_MOVING_FMAX || K > TG_MATMUL_K_MAX)
           : (d.pcount != M || d.count != K || M > TG_PARTITIONS))
        return TG_EPROGRAM;
    /* staging in the core's storage: a [K,M], b [K,N], c [M,N] */
    if ((uint64_t)(K * M + K * N + M * N) > c->pe_floats)
        return TG_ESTORAGE;
    float *pa = c->pe, *pb = pa + K * M, *pc = pb + K * N;
    for (int64_t p = 0; p < K; p++) {
        tg_iss_gather_row(&a, p, pa + p * M);
        if (mm)
            tg_iss_gather_row(&b, p, pb + p * N);
    }
    if (mm) {
        int acc = (int)imm(m, in, TG_IMM_ACCUMULATE, 0);
        for (int64_t p = 0; acc && p < M; p++)
            tg_iss_gather_row(&d, p, pc + p * N);
        tg_matmul_f32(pc, N, pa, M, pb, N, (int)K, (int)M, (int)N, acc);
        for (int64_t p = 0; p < M; p++)
            tg_iss_scatter_row(&d, p, pc + p * N);
    } else {
        float col[TG_PARTITIONS]; /* K = a.pcount ≤ TG_PARTITIONS */
        for (int64_t p = 0; p < M; p++) {
            for (int64_t f = 0; f < K; f++)
                col[f] = pa[f * M + p];
            tg_iss_scatter_row(&d, p, col);
        }
    }
    m->st->eng[TG_ENG_PE].elems += (uint64_t)(d.pcount * d.count);
    return 0;
}

/* partition_reduce: dst[0,f] = src[0,f] op src[1,f] op ... (increasing p),
 * a block of f at a time (one f at a time when dst overlaps src). */
static int exec_preduce(iss *m, iss_engine *e, const tg_prog_inst *in)
{
    tg_iss_ap d, s;
    int rc;
    if ((rc = need(m, e, in, TG_ROLE_DST, 1, &d)) || (rc = need(m, e, in, TG_ROLE_SRC, 0, &s)))
        return rc;
    if (d.count != s.count)
        return TG_EPROGRAM;
    tg_alu_op op = (tg_alu_op)imm(m, in, TG_IMM_OP, 0);
    int64_t block = tg_iss_overlap(&d, &s) ? 1 : TG_ISS_BLOCK;
    float acc[TG_ISS_BLOCK], x[TG_ISS_BLOCK];
    tg_iss_it id, is, ip;
    tg_iss_it_init(&id, 0);
    tg_iss_it_init(&is, 0);
    for (int64_t j0 = 0, n; j0 < d.count; j0 += n) {
        n = d.count - j0 < block ? d.count - j0 : block;
        ip = is;
        tg_iss_gather(&s, tg_iss_row(&s, 0), &ip, acc, n);
        for (int64_t p = 1; p < s.pcount; p++) {
            ip = is;
            tg_iss_gather(&s, tg_iss_row(&s, p), &ip, x, n);
            for (int64_t i = 0; i < n; i++) /* raw fold, canonical result below (tg_alu.h) */
                acc[i] = tg_op_alu_raw(op, acc[i], x[i]);
        }
        is = ip;
        for (int64_t i = 0; i < n; i++)
            acc[i] = tg_nan_canon(acc[i]);
        tg_iss_scatter(&d, tg_iss_row(&d, 0), &id, acc, n);
    }
    m->st->eng[TG_ENG_POOL].elems += (uint64_t)d.count;
    return 0;
}

/* print: the src region to the core's callback (tg_runtime.h), its shape the
 * operand's dims as the program gives them (the ISS's own walk merges them;
 * the shape does not), its indices the live loop registers. The region is
 * resolved and bounds-checked whether or not a callback is set. */
static int exec_print(iss *m, iss_engine *e, const tg_prog_inst *in)
{
    tg_prog_operand o;
    tg_iss_ap a;
    int rc = need(m, e, in, TG_ROLE_SRC, 0, &a);
    if (rc || !m->core->print)
        return rc;
    tg_prog_find_operand(&m->prog, in, TG_ROLE_SRC, &o);
    if (o.nfree + 1 > TG_PRINT_MAX_RANK || e->depth > TG_PRINT_MAX_DEPTH)
        return TG_EPROGRAM;
    tg_print_info pi;
    tg_print_start(&pi, tg_prog_str(&m->prog, (uint32_t)imm(m, in, TG_IMM_LABEL, 0)), in->line, a.dtype);
    pi.depth = e->depth;
    for (uint32_t k = 0; k < e->depth; k++)
        pi.index[k] = e->regs[k];
    pi.rank = 1 + o.nfree;
    pi.shape[0] = a.pcount;
    pi.stride[0] = a.prow;
    for (uint32_t k = 0; k < o.nfree; k++) {
        if (eval(m, e, o.num[k], &pi.shape[1 + k]))
            return TG_EPROGRAM;
        pi.stride[1 + k] = o.step[k] * a.esize;
    }
    pi.data = a.p0;
    m->core->print(m->core->print_ctx, &pi);
    return 0;
}

static int exec_op(iss *m, iss_engine *e, const tg_prog_inst *in)
{
    switch (in->op) {
    case TG_OP_TENSOR_REDUCE: return exec_reduce(m, e, in);
    case TG_OP_BN_STATS:
    case TG_OP_BN_AGGR: return exec_bn(m, e, in);
    case TG_OP_MATMUL:
    case TG_OP_TRANSPOSE: return exec_pe(m, e, in);
    case TG_OP_PARTITION_REDUCE: return exec_preduce(m, e, in);
    case TG_OP_MAX8:
    case TG_OP_NC_FIND_INDEX8: return exec_top8(m, e, in);
    case TG_OP_PRINT: return exec_print(m, e, in);
    default: return exec_elementwise(m, e, in, in->engine);
    }
}

/* ---- scheduler -------------------------------------------------------------- */

/* 1 if an instruction of stream `stream` lies in (from, to). */
static int has_work(const tg_prog *p, uint32_t from, uint32_t to, uint32_t stream)
{
    for (uint32_t i = from + 1; i < to; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(p, i, &in);
        if (tg_prog_stream(&in) == stream)
            return 1;
    }
    return 0;
}

/* ---- budget ----------------------------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* Instructions plus loop iterations stream `stream` steps through in
 * instructions [from, to) (whole loops), as engine_step counts them:
 * saturating at UINT64_MAX. Loop bounds are immediates, so this is exact;
 * a loop's lo/hi (evaluated per entry) only narrow [start, stop), so with
 * them it is an upper bound. Each DMA queue steps its loops itself. */
static uint64_t work_in(const tg_prog *p, uint32_t from, uint32_t to, uint32_t stream)
{
    uint64_t n = 0;
    for (uint32_t i = from; i < to; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(p, i, &in);
        if (in.op == TG_OP_LOOP) {
            uint32_t end = tg_prog_loop_match(p, i);
            uint64_t start = 0, stop = 0, step = 1;
            tg_prog_find_imm(p, &in, TG_IMM_START, &start);
            tg_prog_find_imm(p, &in, TG_IMM_STOP, &stop);
            tg_prog_find_imm(p, &in, TG_IMM_STEP, &step);
            /* bounds within ±2^40, step in [1, 2^40] (tg_prog_decode) */
            if ((int64_t)start < (int64_t)stop && has_work(p, i, end, stream)) {
                uint64_t trips = ((uint64_t)((int64_t)stop - (int64_t)start) + step - 1) / step;
                n = sat_add(n, sat_mul(trips, sat_add(1, work_in(p, i + 1, end, stream))));
            }
            i = end;
        } else if (in.op != TG_OP_ENDLOOP && tg_prog_stream(&in) == stream) {
            n = sat_add(n, 1);
        }
    }
    return n;
}

uint64_t tg_iss_work(const tg_prog *p)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < TG_STREAM_COUNT; k++)
        if (k != TG_ENG_SYNC && k != TG_ENG_DMA)
            n = sat_add(n, work_in(p, 0, p->ninsts, k));
    return n;
}

/* The engine whose statistics a stream's work counts to. */
static tg_isa_engine stream_engine(uint32_t stream)
{
    return stream >= TG_ENG_COUNT ? TG_ENG_DMA : (tg_isa_engine)stream;
}

enum { STEP_RAN, STEP_BLOCKED, STEP_DONE };

/* 1 when the budget of instructions plus loop iterations is spent. */
static int over_limit(const iss *m)
{
    return m->st->limit && m->st->insts + m->st->loop_iters >= m->st->limit;
}

/* Advance stream `stream` through loop control and other streams'
 * instructions to its next own instruction and execute it. STEP_* or a
 * negative TG_E* code. */
static int engine_step(iss *m, iss_engine *e, uint32_t stream)
{
    tg_iss_engine_stats *es = &m->st->eng[stream_engine(stream)];
    for (;;) {
        if (e->pc >= m->prog.core_pc[m->pcore + 1]) { /* the end of its core's stream */
            e->done = 1;
            return STEP_DONE;
        }
        tg_prog_inst in;
        tg_prog_get_inst(&m->prog, e->pc, &in);
        m->st->fault_pc = e->pc;
        if (in.op == TG_OP_LOOP) {
            uint32_t end = tg_prog_loop_match(&m->prog, e->pc);
            uint32_t r = (uint32_t)imm(m, &in, TG_IMM_REG, 0);
            int64_t start = (int64_t)imm(m, &in, TG_IMM_START, 0), b;
            uint64_t x;
            e->stop[r] = (int64_t)imm(m, &in, TG_IMM_STOP, 0);
            e->step[r] = (int64_t)imm(m, &in, TG_IMM_STEP, 1);
            /* lo/hi: bounds over the outer registers, clamped to [start, stop) */
            if (tg_prog_find_imm(&m->prog, &in, TG_IMM_LO, &x)) {
                if (tg_prog_eval(&m->prog, (uint32_t)x, e->regs, 0, 0, &b))
                    return TG_EPROGRAM;
                start = b > start ? b : start;
            }
            if (tg_prog_find_imm(&m->prog, &in, TG_IMM_HI, &x)) {
                if (tg_prog_eval(&m->prog, (uint32_t)x, e->regs, 0, 0, &b))
                    return TG_EPROGRAM;
                e->stop[r] = b < e->stop[r] ? b : e->stop[r];
            }
            if (start >= e->stop[r] || !has_work(&m->prog, e->pc, end, stream)) {
                e->pc = end + 1;
                continue;
            }
            if (over_limit(m))
                return TG_ELIMIT;
            e->regs[r] = start;
            e->loop_pc[r] = e->pc;
            e->depth = r + 1;
            es->loop_iters++;
            m->st->loop_iters++;
            e->pc++;
            continue;
        }
        if (in.op == TG_OP_ENDLOOP) {
            uint32_t r = (uint32_t)imm(m, &in, TG_IMM_REG, 0);
            e->regs[r] += e->step[r]; /* |values| ≤ 2^40 + 2^40: no overflow */
            if (e->regs[r] < e->stop[r]) {
                if (over_limit(m))
                    return TG_ELIMIT;
                es->loop_iters++;
                m->st->loop_iters++;
                e->pc = e->loop_pc[r] + 1;
            } else {
                e->depth = r;
                e->pc++;
            }
            continue;
        }
        if (tg_prog_stream(&in) != stream) {
            e->pc++;
            continue;
        }
        if (over_limit(m))
            return TG_ELIMIT;
        if (in.op == TG_OP_WAIT || in.op == TG_OP_SIGNAL) {
            uint32_t s = (uint32_t)imm(m, &in, TG_IMM_SEM, 0);
            if (in.op == TG_OP_WAIT) {
                if (m->sem[s] == 0) {
                    es->stalls++;
                    return STEP_BLOCKED;
                }
                m->sem[s]--;
            } else {
                if (m->sem[s] == UINT32_MAX)
                    return TG_EPROGRAM;
                m->sem[s]++;
            }
        } else {
            int rc = exec_op(m, e, &in);
            if (rc)
                return rc;
        }
        es->insts++;
        m->st->insts++;
        e->pc++;
        return STEP_RAN;
    }
}

/* Round-robin over the streams of physical core m->pcore in id order
 * (engines, then DMA queues 0..15), from the start of its instructions,
 * until all are done or none can move. The DMA engine's own stream id and
 * SYNC never run an instruction (DMA work is on the queue streams). */
static int schedule(iss *m)
{
    iss_engine eng[TG_STREAM_COUNT];
    memset(eng, 0, sizeof eng);
    for (int k = 0; k < TG_STREAM_COUNT; k++)
        eng[k].pc = m->prog.core_pc[m->pcore];
    for (;;) {
        int ran = 0, live = 0;
        m->st->rounds++;
        for (int k = 0; k < TG_STREAM_COUNT; k++) {
            if (k == TG_ENG_SYNC || k == TG_ENG_DMA || eng[k].done)
                continue;
            m->st->fault_engine = stream_engine((uint32_t)k);
            int rc = engine_step(m, &eng[k], (uint32_t)k);
            if (rc < 0)
                return rc;
            ran |= rc == STEP_RAN;
            live |= rc != STEP_DONE;
        }
        if (!live)
            return 0;
        if (!ran)
            return TG_EDEADLOCK;
    }
}

/* ---- entry points ----------------------------------------------------------- */

/* The program's own storage layout: SBUF and PSUM rows reach the end of its
 * last tile copy (its plan's peaks, for a generated kernel); has_pe: whether
 * a matmul or transpose needs PE staging. */
static void prog_rows(const tg_prog *p, size_t *sbuf_row, size_t *psum_row, int *has_pe)
{
    uint64_t ext[2] = {0, 0};
    for (uint32_t i = 0; i < p->ntiles; i++) {
        tg_prog_tile t;
        tg_prog_get_tile(p, i, &t);
        uint64_t end = (uint64_t)t.base + (uint64_t)t.slot * t.bufs; /* decode bounds it by the target */
        int s = t.space == TG_SPACE_PSUM;
        ext[s] = end > ext[s] ? end : ext[s];
    }
    *sbuf_row = TG_CORE_ROW(ext[0]);
    *psum_row = TG_CORE_ROW(ext[1]);
    *has_pe = 0;
    for (uint32_t i = 0; i < p->ninsts && !*has_pe; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(p, i, &in);
        *has_pe = in.op == TG_OP_MATMUL || in.op == TG_OP_TRANSPOSE;
    }
}

size_t tg_iss_core_bytes(const tg_prog *p)
{
    size_t sr, pr;
    int pe;
    prog_rows(p, &sr, &pr, &pe);
    return (size_t)TG_PARTITIONS * p->ncores * (sr + pr) + (pe ? 4u * (size_t)TG_PE_FLOATS_MAX : 0u) + TG_CORE_TAIL;
}

/* Lay the core out for the program (TG_ESTORAGE when its storage is too
 * small for the rows; the PE staging is checked per instruction). */
static int iss_layout(tg_core *core, const tg_prog *p)
{
    size_t sr, pr;
    int pe;
    prog_rows(p, &sr, &pr, &pe);
    return tg_core_layout(core, p->ncores * sr, p->ncores * pr, 0);
}

/* Run physical core `pcore`'s instructions on its own SBUF/PSUM bytes
 * (columns [pcore*sr, (pcore+1)*sr) of each row, iss_layout) and semaphores. */
static void iss_select(iss *m, uint32_t pcore)
{
    m->pcore = pcore;
    m->sbuf_col = m->core->sbuf_row / m->prog.ncores * pcore;
    m->psum_col = m->core->psum_row / m->prog.ncores * pcore;
}

static int exec_decoded(iss *m)
{
    if (!m->core || !m->tensors)
        return TG_EINVAL;
    if (m->core->magic != TG_CORE_MAGIC)
        return TG_ECORE;
    if (m->core->target != m->prog.target)
        return TG_ETARGET;
    int rc = iss_layout(m->core, &m->prog);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < m->prog.npublic; i++)
        if (!m->tensors[i])
            return TG_EINVAL;
    if (m->st->limit == 0) { /* the default budget: exactly what the program needs */
        uint64_t work = tg_iss_work(&m->prog);
        if (work > TG_ISS_DEFAULT_CAP)
            return TG_ELIMIT; /* refused before executing anything */
        m->st->limit = work ? work : 1;
    }
    /* the physical cores one after the other (format 2.2): their programs
     * are independent (SPEC.md §2.1), so the order changes no output, and a
     * print's records come in program order, as the C simulation's */
    for (uint32_t c = 0; c < m->prog.ncores && !rc; c++) {
        iss_select(m, c);
        memset(m->sem, 0, sizeof m->sem);
        rc = schedule(m);
    }
    if (!rc) {
        m->st->fault_engine = -1;
        m->st->fault_pc = 0;
    }
    return rc;
}

static void stats_init(tg_iss_stats *st, tg_iss_stats *local)
{
    uint64_t limit = st ? st->limit : 0;
    memset(local, 0, sizeof *local);
    local->limit = limit;
    local->fault_engine = -1;
}

int tg_iss_exec(tg_core *core, const uint8_t *prog, size_t size, void *const tensors[], tg_iss_stats *stats)
{
    iss m;
    tg_iss_stats local;
    stats_init(stats, &local);
    m.st = stats ? stats : &local;
    *m.st = local;
    m.core = core;
    m.tensors = tensors;
    if (tg_prog_decode(&m.prog, prog, size))
        return TG_EPROGRAM;
    return exec_decoded(&m);
}

static int same_str(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

int tg_iss_run(tg_core *core, const tg_kernel *k, void *const tensors[])
{
    return tg_iss_run_stats(core, k, tensors, NULL);
}

int tg_iss_run_stats(tg_core *core, const tg_kernel *k, void *const tensors[], tg_iss_stats *stats)
{
    iss m;
    tg_iss_stats local;
    stats_init(stats, &local);
    m.st = stats ? stats : &local;
    *m.st = local;
    int rc = tg_kernel_check(core, k, tensors);
    if (rc)
        return rc;
    if (!k->program)
        return TG_EUNSUPPORTED;
    m.core = core;
    m.tensors = tensors;
    if (tg_prog_decode(&m.prog, k->program, k->program_size))
        return TG_EPROGRAM;
    if (m.prog.target != k->target)
        return TG_ETARGET;
    if (m.prog.npublic != k->ntensors)
        return TG_ETENSOR;
    for (uint32_t i = 0; i < k->ntensors; i++) {
        const tg_tensor_desc *d = &k->tensors[i];
        tg_prog_tensor t;
        tg_prog_get_tensor(&m.prog, i, &t);
        int same = t.dtype == d->dtype && t.rank == d->rank && t.is_output == d->is_output && d->name &&
                   same_str(t.name, d->name);
        for (uint32_t r = 0; r < TG_ISA_MAX_TENSOR_RANK && same; r++)
            same = t.shape[r] == (r < d->rank ? d->shape[r] : 0u);
        if (!same)
            return TG_ETENSOR;
    }
    if ((rc = tg_tensors_alias(k, tensors)))
        return rc;
    return exec_decoded(&m);
}

int tg_iss_exec_inst(tg_core *core, const tg_prog *prog, uint32_t pcore, void *const tensors[],
                     const int64_t regs[TG_ISA_MAX_REGS], const tg_prog_inst *in, tg_iss_stats *stats)
{
    iss m;
    iss_engine e;
    memset(&e, 0, sizeof e);
    memcpy(e.regs, regs, sizeof e.regs);
    m.core = core;
    m.prog = *prog;
    m.tensors = tensors;
    m.st = stats;
    if (in->op == TG_OP_WAIT || in->op == TG_OP_SIGNAL || in->op == TG_OP_LOOP || in->op == TG_OP_ENDLOOP)
        return 0;
    int rc = !core ? TG_EINVAL : core->magic != TG_CORE_MAGIC ? TG_ECORE : pcore >= prog->ncores ? TG_EINVAL
                                                                                 : iss_layout(core, prog);
    if (rc)
        return rc;
    iss_select(&m, pcore);
    rc = exec_op(&m, &e, in);
    if (!rc)
        stats->eng[in->engine].insts++;
    return rc;
}

#include "tg_fp_end.h"
