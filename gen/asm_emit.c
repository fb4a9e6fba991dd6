/* asm_emit.c - the assembly back end: walks the lowered IR and the plan and
 * builds the binary program (asm_prog.c) - hardware loops on loop registers
 * r<depth>, operands with addresses affine in them, rotating copies as a
 * buffer expression, each DMA statement on its own queue (asm_sync.c), the
 * semaphore actions asm_sync.c derived and reduced placed around the statements - then turns the decoded program into the listing's context,
 * printing every instruction with the disassembler so that text and binary
 * always agree. Sync rule: see docs/asm.md "Semaphores". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "asm_emit.h"
#include "asm_sync.h"
#include "tg_alu.h"
#include "tg_math.h"
#include "tg_ops.h"

/* Builder state. */
typedef struct M {
    const Ir *ir;
    const Plan *plan;
    Diag *diag;
    AsmProg prog;
    int *tile_map;       /* Spec.tiles index -> program tile index */
    AsmSyncs syncs;      /* semaphore actions per statement (asm_sync.c) */
    int64_t core_lo, core_hi; /* the programs of grid axis 0 the core being emitted runs */
    int errors;
} M;

/* Statement keys (as asm_sync.h): instruction id, or ninsts + loop id. */
static int key_loop(const M *m, const IrLoop *lp) { return m->ir->ninsts + lp->id; }

static void fail(M *m, SrcLoc loc, const char *code, const char *what)
{
    diag_error(m->diag, loc, code, "%s", what);
    m->errors++;
}

/* ---- expressions ---------------------------------------------------------- */

/* The loop register of variable slot `slot` seen from loop `lp`, or -1. */
static int reg_of(const IrLoop *lp, int64_t slot)
{
    for (; lp; lp = lp->parent)
        if (lp->slot == slot)
            return lp->depth;
    return -1;
}

/* What tree() may meet besides integers, loop variables and operators. */
enum { TREE_PF = 1,   /* p and f */
       TREE_FLOAT = 2 /* float literals (a number field: FEXPR) */ };

static int tree(M *m, AsmExpr *e, const Expr *x, const IrLoop *lp, int flags)
{
    static const tg_isa_xop ops[] = {[EXPR_NEG] = TG_X_NEG, [EXPR_ADD] = TG_X_ADD, [EXPR_SUB] = TG_X_SUB,
                                     [EXPR_MUL] = TG_X_MUL, [EXPR_DIV] = TG_X_DIV, [EXPR_MOD] = TG_X_MOD,
                                     [EXPR_MIN] = TG_X_MIN, [EXPR_MAX] = TG_X_MAX};
    if (!x) {
        asm_expr_const(e, 0);
        return 1;
    }
    switch (x->kind) {
    case EXPR_INT:
        asm_expr_const(e, x->ival);
        return 1;
    case EXPR_FLOAT:
        if (!(flags & TREE_FLOAT))
            break;
        asm_expr_fconst(e, x->fval);
        return 1;
    case EXPR_VAR:
        if (x->ival == EXPR_VAR_P || x->ival == EXPR_VAR_F) {
            if (!(flags & TREE_PF))
                break;
            asm_expr_leaf(e, x->ival == EXPR_VAR_P ? TG_X_P : TG_X_F, 0);
            return 1;
        } else {
            int r = reg_of(lp, x->ival);
            if (r < 0 || r >= TG_ISA_MAX_REGS)
                break;
            asm_expr_leaf(e, TG_X_REG, r);
            return 1;
        }
    case EXPR_NEG:
        if (!tree(m, e, x->a, lp, flags))
            return 0;
        asm_expr_op(e, TG_X_NEG);
        return 1;
    case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: case EXPR_MOD: case EXPR_MIN: case EXPR_MAX:
        if (!tree(m, e, x->a, lp, flags) || !tree(m, e, x->b, lp, flags))
            return 0;
        asm_expr_op(e, ops[x->kind]);
        return 1;
    default:
        break;
    }
    fail(m, x->loc, "E110", "an expression the assembly cannot express (unresolved name or loop deeper than 8)");
    return 0;
}

/* x * scale as a pool expression: the canonical sum `c + r0*k0 + ...` when x
 * is affine in the loop variables, else the tree times scale. */
static uint32_t scaled(M *m, const Expr *x, int64_t scale, const IrLoop *lp)
{
    int nv = m->ir->spec->nslots;
    int64_t coef[64], c;
    AsmExpr e;
    asm_expr_init(&e);
    if (nv <= 64 && x && expr_affine(x, nv, coef, &c)) {
        int terms = 0, ok = expr_mul(c, scale, &c);
        int64_t byreg[TG_ISA_MAX_REGS] = {0};
        for (int v = EXPR_VAR_FIRST; v < nv; v++) {
            int r = coef[v] ? reg_of(lp, v) : -1;
            if (coef[v] && (r < 0 || r >= TG_ISA_MAX_REGS || !expr_mul(coef[v], scale, &byreg[r])))
                ok = 0;
        }
        if (!ok) {
            fail(m, x->loc, "E110", "an address the assembly cannot express (not affine in the enclosing loops)");
            return 0;
        }
        if (c)
            asm_expr_const(&e, c), terms++;
        for (int r = 0; r < TG_ISA_MAX_REGS; r++) {
            if (!byreg[r])
                continue;
            int neg = terms && byreg[r] < 0;
            asm_expr_leaf(&e, TG_X_REG, r);
            if ((neg ? -byreg[r] : byreg[r]) != 1) {
                asm_expr_const(&e, neg ? -byreg[r] : byreg[r]);
                asm_expr_op(&e, TG_X_MUL);
            }
            if (terms)
                asm_expr_op(&e, neg ? TG_X_SUB : TG_X_ADD);
            terms++;
        }
        if (!terms)
            asm_expr_const(&e, 0);
    } else {
        if (!tree(m, &e, x, lp, 0))
            return 0;
        if (scale != 1) {
            asm_expr_const(&e, scale);
            asm_expr_op(&e, TG_X_MUL);
        }
    }
    if (e.over) {
        fail(m, x ? x->loc : (SrcLoc){0}, "E110", "an expression too large for the assembly");
        return 0;
    }
    return asm_prog_expr(&m->prog, &e);
}

static uint32_t plain(M *m, const Expr *x, const IrLoop *lp) { return scaled(m, x, 1, lp); }

static uint32_t imm_expr(M *m, const Expr *x, const IrLoop *lp, int flags)
{
    AsmExpr e;
    asm_expr_init(&e);
    if (!tree(m, &e, x, lp, flags))
        return 0;
    if (e.over) {
        fail(m, x->loc, "E110", "an expression too large for the assembly");
        return 0;
    }
    return asm_prog_expr(&m->prog, &e);
}

/* ---- operands and instructions -------------------------------------------- */

static void operand(M *m, tg_isa_role role, const IrAp *ap, const IrLoop *lp)
{
    tg_prog_operand o;
    memset(&o, 0, sizeof o);
    o.role = role;
    o.dtype = ap->dtype;
    o.nfree = (uint32_t)ap->nfree;
    int64_t es = (int64_t)tg_dtype_size(ap->dtype);
    if (ap->mem == IR_MEM_HBM) {
        o.space = TG_SPACE_HBM;
        o.index = (uint32_t)ap->index;
        o.pstep = (int32_t)ap->pstep;
        o.buf = o.pstart = asm_prog_const(&m->prog, 0);
        if (ap->pstep < INT32_MIN || ap->pstep > INT32_MAX)
            fail(m, ap->loc, "E111", "a partition step beyond the 32-bit field of the encoding");
    } else {
        o.space = ap->mem == IR_MEM_PSUM ? TG_SPACE_PSUM : TG_SPACE_SBUF;
        o.index = (uint32_t)m->tile_map[ap->index];
        o.pstep = 1;
        o.buf = plain(m, ap->buf, lp);
        o.pstart = plain(m, ap->pstart, lp);
    }
    o.pcount = plain(m, ap->pcount, lp);
    o.offset = scaled(m, ap->offset, es, lp);
    for (int k = 0; k < ap->nfree && k < TG_ISA_MAX_FREE; k++) {
        if (ap->free[k].step < INT32_MIN || ap->free[k].step > INT32_MAX)
            fail(m, ap->loc, "E111", "a free-dim step beyond the 32-bit field of the encoding");
        o.step[k] = (int32_t)ap->free[k].step;
        o.num[k] = plain(m, ap->free[k].num, lp);
    }
    asm_prog_operand(&m->prog, &o);
}

static uint64_t alu(SpecAlu a)
{
    const char *n = spec_alu_name(a);
    int v = tg_alu_from_name(n, strlen(n));
    return v < 0 ? 0 : (uint64_t)v;
}

static uint64_t act(SpecAct f)
{
    const char *n = spec_act_name(f);
    int v = tg_act_from_name(n, strlen(n));
    return v < 0 ? 0 : (uint64_t)v;
}

static uint64_t cmp(ExprCmp c)
{
    static const tg_cmp map[] = {[EXPR_CMP_LT] = TG_CMP_LT, [EXPR_CMP_LE] = TG_CMP_LE, [EXPR_CMP_GT] = TG_CMP_GT,
                                 [EXPR_CMP_GE] = TG_CMP_GE, [EXPR_CMP_EQ] = TG_CMP_EQ, [EXPR_CMP_NE] = TG_CMP_NE};
    return (uint64_t)map[c];
}

/* A number-or-[P,1] field: operand role or FLOAT immediate (added later). */
static void scalar_ap(M *m, tg_isa_role role, const IrScalar *s, const IrLoop *lp)
{
    if (s->is_ap)
        operand(m, role, &s->ap, lp);
}

/* A number field: FLOAT key `key`, or (over loop variables) its FEXPR twin. */
static void number(M *m, tg_isa_imm key, tg_isa_imm twin, double num, const Expr *numx, const IrLoop *lp)
{
    if (numx)
        asm_prog_imm(&m->prog, twin, imm_expr(m, numx, lp, TREE_FLOAT));
    else
        asm_prog_imm(&m->prog, key, asm_float_bits(num));
}

static void scalar_num(M *m, tg_isa_imm key, tg_isa_imm twin, const IrScalar *s, const IrLoop *lp)
{
    if (!s->is_ap)
        number(m, key, twin, s->num, s->numx, lp);
}

static void instruction(M *m, IrInst *in)
{
    const IrLoop *lp = in->loop;
    tg_isa_op op = ir_isa_op(in->op);
    asm_prog_inst(&m->prog, op, tg_isa_table[op].engine, (uint32_t)in->loc.line);
    int two = op == TG_OP_TENSOR_TENSOR || op == TG_OP_TENSOR_TENSOR_SCAN, mm = op == TG_OP_MATMUL;
    if (op == TG_OP_PRINT) { /* the region, no dst; its label in the string table */
        operand(m, TG_ROLE_SRC, &in->src[0], lp);
        asm_prog_imm(&m->prog, TG_IMM_LABEL, asm_prog_str(&m->prog, in->label));
        return;
    }
    operand(m, TG_ROLE_DST, &in->dst, lp);
    if (op == TG_OP_SELECT) { /* pred, on_true, on_false: an operand or a number each */
        static const tg_isa_role roles[3] = {TG_ROLE_PRED, TG_ROLE_ON_TRUE, TG_ROLE_ON_FALSE};
        static const tg_isa_imm nums[3] = {TG_IMM_PRED_NUM, TG_IMM_ON_TRUE_NUM, TG_IMM_ON_FALSE_NUM},
                                twins[3] = {TG_IMM_PRED_X, TG_IMM_ON_TRUE_X, TG_IMM_ON_FALSE_X};
        for (int i = 0; i < 3; i++)
            if (in->sel_src[i] >= 0)
                operand(m, roles[i], &in->src[in->sel_src[i]], lp);
        for (int i = 0; i < 3; i++)
            if (in->sel_src[i] < 0)
                number(m, nums[i], twins[i], in->sel_num[i], in->sel_numx[i], lp);
        return;
    }
    for (int i = 0; i < in->nsrc; i++) {
        tg_isa_role r = mm ? (i ? TG_ROLE_MOVING : TG_ROLE_STATIONARY) : two ? (i ? TG_ROLE_B : TG_ROLE_A) : TG_ROLE_SRC;
        operand(m, op == TG_OP_SCALAR_TENSOR_TENSOR && i ? TG_ROLE_B : r, &in->src[i], lp);
    }
    switch (op) {
    case TG_OP_MATMUL:
        asm_prog_imm(&m->prog, TG_IMM_ACCUMULATE, (uint64_t)!!in->accumulate);
        break;
    case TG_OP_ACTIVATION:
        scalar_ap(m, TG_ROLE_SCALE, &in->scalar[0], lp);
        if (in->has_bias)
            operand(m, TG_ROLE_BIAS, &in->bias, lp);
        if (in->has_reduce)
            operand(m, TG_ROLE_REDUCE_DST, &in->reduce_dst, lp);
        asm_prog_imm(&m->prog, TG_IMM_FUNC, act(in->func));
        scalar_num(m, TG_IMM_SCALE_NUM, TG_IMM_SCALE_X, &in->scalar[0], lp);
        if (in->has_reduce)
            asm_prog_imm(&m->prog, TG_IMM_REDUCE_OP, alu(in->reduce_op));
        break;
    case TG_OP_TENSOR_TENSOR:
    case TG_OP_TENSOR_REDUCE:
    case TG_OP_PARTITION_REDUCE:
        asm_prog_imm(&m->prog, TG_IMM_OP, alu(in->alu[0]));
        if (op == TG_OP_TENSOR_REDUCE && in->negate)
            asm_prog_imm(&m->prog, TG_IMM_NEGATE, 1);
        break;
    case TG_OP_TENSOR_SCALAR: {
        static const tg_isa_role roles[2] = {TG_ROLE_OPERAND0, TG_ROLE_OPERAND1};
        static const tg_isa_imm ops[2] = {TG_IMM_OP0, TG_IMM_OP1}, nums[2] = {TG_IMM_OPERAND0_NUM, TG_IMM_OPERAND1_NUM},
                                twins[2] = {TG_IMM_OPERAND0_X, TG_IMM_OPERAND1_X},
                                revs[2] = {TG_IMM_REVERSE0, TG_IMM_REVERSE1};
        for (int i = 0; i < in->nalu && i < 2; i++)
            scalar_ap(m, roles[i], &in->scalar[i], lp);
        if (in->has_reduce)
            operand(m, TG_ROLE_REDUCE_DST, &in->reduce_dst, lp);
        for (int i = 0; i < in->nalu && i < 2; i++) {
            asm_prog_imm(&m->prog, ops[i], alu(in->alu[i]));
            scalar_num(m, nums[i], twins[i], &in->scalar[i], lp);
            if (in->reverse[i])
                asm_prog_imm(&m->prog, revs[i], 1);
        }
        if (in->has_reduce)
            asm_prog_imm(&m->prog, TG_IMM_REDUCE_OP, alu(in->reduce_op));
        break;
    }
    case TG_OP_NC_FIND_INDEX8:
    case TG_OP_NC_MATCH_REPLACE8:
        operand(m, TG_ROLE_VALUES, &in->vals, lp);
        if (op == TG_OP_NC_MATCH_REPLACE8)
            number(m, TG_IMM_IMM, TG_IMM_IMM_X, in->value, in->valuex, lp);
        break;
    case TG_OP_SCALAR_TENSOR_TENSOR:
        scalar_ap(m, TG_ROLE_OPERAND0, &in->scalar[0], lp);
        asm_prog_imm(&m->prog, TG_IMM_OP0, alu(in->alu[0]));
        scalar_num(m, TG_IMM_OPERAND0_NUM, TG_IMM_OPERAND0_X, &in->scalar[0], lp);
        asm_prog_imm(&m->prog, TG_IMM_OP1, alu(in->alu[1]));
        if (in->reverse[0])
            asm_prog_imm(&m->prog, TG_IMM_REVERSE0, 1);
        break;
    case TG_OP_TENSOR_TENSOR_SCAN:
        scalar_ap(m, TG_ROLE_INITIAL, &in->scalar[0], lp);
        asm_prog_imm(&m->prog, TG_IMM_OP0, alu(in->alu[0]));
        asm_prog_imm(&m->prog, TG_IMM_OP1, alu(in->alu[1]));
        scalar_num(m, TG_IMM_INITIAL_NUM, TG_IMM_INITIAL_X, &in->scalar[0], lp);
        break;
    case TG_OP_LOAD:
    case TG_OP_STORE: /* an index column (SPEC.md §2.1): the HBM side's rows come from it */
        if (in->has_ind) {
            const IrAp *h = op == TG_OP_LOAD ? &in->src[0] : &in->dst;
            operand(m, TG_ROLE_INDEX, &in->ind, lp);
            asm_prog_imm(&m->prog, TG_IMM_INDEX_STEP, (uint64_t)h->istep);
            asm_prog_imm(&m->prog, TG_IMM_INDEX_BOUND, (uint64_t)in->ind_bound);
        }
        break;
    case TG_OP_MEMSET:
        number(m, TG_IMM_VALUE, TG_IMM_VALUE_X, in->value, in->valuex, lp);
        break;
    case TG_OP_IOTA:
        asm_prog_imm(&m->prog, TG_IMM_EXPR, imm_expr(m, in->iota, lp, TREE_PF));
        break;
    case TG_OP_AFFINE_SELECT:
        asm_prog_imm(&m->prog, TG_IMM_LHS, imm_expr(m, in->pred.lhs, lp, TREE_PF));
        asm_prog_imm(&m->prog, TG_IMM_CMP, cmp(in->pred.cmp));
        asm_prog_imm(&m->prog, TG_IMM_RHS, imm_expr(m, in->pred.rhs, lp, TREE_PF));
        number(m, TG_IMM_FILL, TG_IMM_FILL_X, in->value, in->valuex, lp);
        break;
    default:
        break;
    }
    if (tg_isa_table[op].engine == TG_ENG_DMA)
        asm_prog_imm(&m->prog, TG_IMM_QUEUE, m->syncs.queue ? (uint64_t)m->syncs.queue[in->id] : 0);
}

/* ---- program order ----------------------------------------------------------- */

static void syncs(M *m, const AsmSync *s)
{
    for (; s; s = s->next) {
        asm_prog_inst(&m->prog, s->is_wait ? TG_OP_WAIT : TG_OP_SIGNAL, s->eng, s->line);
        asm_prog_imm(&m->prog, TG_IMM_SEM, (uint64_t)s->sem);
        if (s->eng == TG_ENG_DMA)
            asm_prog_imm(&m->prog, TG_IMM_QUEUE, (uint64_t)s->queue);
    }
}

static void body(M *m, const IrStmt *st, int n)
{
    for (int i = 0; i < n; i++) {
        if (st[i].kind == IR_STMT_INST) {
            int k = st[i].inst->id;
            syncs(m, m->syncs.before[k]);
            instruction(m, st[i].inst);
            syncs(m, m->syncs.after[k]);
            continue;
        }
        const IrLoop *lp = st[i].loop;
        int k = key_loop(m, lp);
        if (lp->depth >= TG_ISA_MAX_REGS) {
            fail(m, lp->loc, "E113", "loops nest deeper than the 8 loop registers");
            continue;
        }
        syncs(m, m->syncs.before[k]);
        asm_prog_inst(&m->prog, TG_OP_LOOP, TG_ENG_SYNC, (uint32_t)lp->loc.line);
        asm_prog_imm(&m->prog, TG_IMM_REG, (uint64_t)lp->depth);
        asm_prog_imm(&m->prog, TG_IMM_VAR, asm_prog_str(&m->prog, lp->var));
        /* grid axis 0: the programs of the core being emitted (spec_core_range) */
        asm_prog_imm(&m->prog, TG_IMM_START, (uint64_t)(lp->grid == 1 ? m->core_lo : lp->start));
        asm_prog_imm(&m->prog, TG_IMM_STOP, (uint64_t)(lp->grid == 1 ? m->core_hi : lp->stop));
        asm_prog_imm(&m->prog, TG_IMM_STEP, (uint64_t)lp->step);
        if (lp->carried)
            asm_prog_imm(&m->prog, TG_IMM_CARRIED, 1);
        if (lp->start_e) /* bounds over enclosing loop registers, within start/stop */
            asm_prog_imm(&m->prog, TG_IMM_LO, imm_expr(m, lp->start_e, lp->parent, TREE_PF));
        if (lp->stop_e)
            asm_prog_imm(&m->prog, TG_IMM_HI, imm_expr(m, lp->stop_e, lp->parent, TREE_PF));
        body(m, lp->body, lp->nbody);
        asm_prog_inst(&m->prog, TG_OP_ENDLOOP, TG_ENG_SYNC, (uint32_t)lp->loc.line);
        asm_prog_imm(&m->prog, TG_IMM_REG, (uint64_t)lp->depth);
        syncs(m, m->syncs.after[k]);
    }
}

static void tables(M *m)
{
    const Spec *s = m->ir->spec;
    for (int i = 0; i < s->ntensors; i++) {
        const SpecTensor *t = &s->tensors[i];
        tg_prog_tensor pt;
        memset(&pt, 0, sizeof pt);
        pt.name = t->name;
        pt.dtype = t->dtype;
        pt.kind = t->base != i       ? TG_TENSOR_VIEW /* views follow the public tensors (spec_check) */
                  : t->is_scratch ? TG_TENSOR_SCRATCH
                  : t->is_output  ? TG_TENSOR_OUTPUT
                                  : TG_TENSOR_INPUT;
        pt.base = (uint32_t)t->base;
        pt.rank = (uint32_t)t->rank;
        for (int d = 0; d < t->rank; d++)
            pt.shape[d] = (uint32_t)t->shape[d];
        asm_prog_tensor(&m->prog, &pt);
    }
    for (int i = 0; i < s->ntiles; i++) {
        const SpecTile *t = &s->tiles[i];
        const PlanTile *p = &m->plan->tiles[i];
        m->tile_map[i] = -1;
        if (!p->used)
            continue;
        tg_prog_tile pt;
        memset(&pt, 0, sizeof pt);
        pt.name = t->name;
        pt.space = p->buffer == SPEC_BUF_PSUM ? TG_SPACE_PSUM : TG_SPACE_SBUF;
        pt.dtype = t->dtype;
        pt.bufs = (uint32_t)p->bufs;
        pt.rank = (uint32_t)t->rank;
        pt.base = (uint32_t)(p->buffer == SPEC_BUF_PSUM ? (int64_t)p->bank * TG_PSUM_BANK_BYTES : p->offset);
        pt.slot = (uint32_t)p->slot;
        pt.pstart = (uint32_t)p->pstart;
        pt.pcount = (uint32_t)p->pcount;
        for (int d = 0; d < t->rank; d++)
            pt.shape[d] = (uint32_t)t->shape[d];
        m->tile_map[i] = (int)m->prog.ntiles;
        asm_prog_tile(&m->prog, &pt);
    }
}

int asm_emit_program(const Ir *ir, const Plan *plan, const AsmEmitInfo *info, Diag *diag, uint8_t **bin,
                     size_t *len)
{
    M m;
    memset(&m, 0, sizeof m);
    m.ir = ir;
    m.plan = plan;
    m.diag = diag;
    *bin = NULL;
    *len = 0;
    const Spec *s = ir->spec;
    SrcLoc top = {s->file, 0, 0};
    if (s->ntensors > ASM_MAX_TENSORS || s->ntiles > ASM_MAX_TILES) {
        diag_error(diag, top, "E114", "more than 255 tensors or tiles for the binary program");
        return -1;
    }
    asm_prog_init(&m.prog);
    m.tile_map = calloc((size_t)s->ntiles + 1, sizeof *m.tile_map);
    int rc = -1;
    if (m.tile_map) {
        m.prog.target = (uint8_t)s->target;
        m.prog.kernel = asm_prog_str(&m.prog, s->kernel);
        m.prog.spec = asm_prog_str(&m.prog, info->spec_name);
        m.prog.version = asm_prog_str(&m.prog, info->version);
        tables(&m);
        if (asm_sync_build(ir, plan, diag, &m.syncs))
            m.errors++; /* reported; the body still reports its own errors */
        if (s->cores > 1) {
            /* one instruction stream per physical core (format 2.2): the
             * whole body, its grid axis 0 narrowed to the core's programs;
             * the semaphores hold for any contiguous run of programs (their
             * edges run forward in program order, tokens and drains balance
             * whatever the trip count: docs/asm.md "Two physical cores") */
            for (int c = 0; c < s->cores; c++) {
                asm_prog_inst(&m.prog, TG_OP_CORE, TG_ENG_SYNC, (uint32_t)s->cores_loc.line);
                asm_prog_imm(&m.prog, TG_IMM_ID, (uint64_t)c);
                spec_core_range(s, c, &m.core_lo, &m.core_hi);
                body(&m, ir->body, ir->nbody);
            }
        } else {
            spec_core_range(s, 0, &m.core_lo, &m.core_hi);
            body(&m, ir->body, ir->nbody);
        }
        tg_prog p;
        if (m.prog.oom || asm_prog_encode(&m.prog, bin, len))
            diag_error(diag, top, "E091", "out of memory while building the assembly");
        else if (!m.errors && tg_prog_decode(&p, *bin, *len))
            diag_error(diag, top, "E115", "internal error: the emitted program does not validate");
        else if (!m.errors)
            rc = 0;
    } else {
        diag_error(diag, top, "E091", "out of memory while building the assembly");
    }
    if (rc) {
        free(*bin);
        *bin = NULL;
        *len = 0;
    }
    asm_sync_free(&m.syncs);
    free(m.tile_map);
    asm_prog_free(&m.prog);
    return rc;
}

/* ---- the listing's context ------------------------------------------------- */

tpl_value *asm_emit_context(tpl_arena *ta, const uint8_t *bin, size_t len)
{
    tg_prog p;
    if (tg_prog_decode(&p, bin, len))
        return NULL;
    int oom = 0;
    tpl_value *ctx = tpl_map(ta), *lines = tpl_list(ta);
    char *hdr = asm_format_header(&p);
    if (!ctx || !lines || !hdr)
        oom = 1;
#define SET(map, k, v) (oom |= tpl_map_set(ta, map, k, v) != 0)
    if (!oom) {
        SET(ctx, "kernel", tpl_string(ta, tg_prog_str(&p, p.kernel)));
        SET(ctx, "spec", tpl_string(ta, tg_prog_str(&p, p.spec)));
        SET(ctx, "version", tpl_string(ta, tg_prog_str(&p, p.version)));
        SET(ctx, "template", tpl_string(ta, ASM_TEMPLATE));
        SET(ctx, "header", tpl_string(ta, hdr));
        SET(ctx, "lines", lines);
    }
    char indent[TG_ISA_MAX_REGS * sizeof ASM_INDENT + 1];
    uint32_t depth = 0;
    for (uint32_t i = 0; !oom && i < p.ninsts; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(&p, i, &in);
        if (in.op == TG_OP_ENDLOOP)
            depth--;
        indent[0] = '\0';
        for (uint32_t d = 0; d < depth; d++)
            strcat(indent, ASM_INDENT);
        char *text = asm_format_inst(&p, i), where[4200] = "";
        if (in.line)
            snprintf(where, sizeof where, "%s:%u", tg_prog_str(&p, p.spec), (unsigned)in.line);
        tpl_value *l = tpl_map(ta);
        if (!text || !l) {
            free(text);
            oom = 1;
            break;
        }
        SET(l, "indent", tpl_string(ta, indent));
        SET(l, "text", tpl_string(ta, text));
        SET(l, "where", tpl_string(ta, where));
        oom |= tpl_list_append(ta, lines, l) != 0;
        free(text);
        if (in.op == TG_OP_LOOP)
            depth++;
    }
#undef SET
    free(hdr);
    return oom ? NULL : ctx;
}
