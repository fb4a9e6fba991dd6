/* test_lower.c - the lowering Spec -> tile IR through the real front end:
 * instruction shape and fields, HBM/SBUF access patterns of plain, transposed,
 * broadcast, ragged and strided regions, expression folding, tile scopes and
 * buffer rotation, and the text dump. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lower_test.h"
#include "plan.h"

#define HDR(IN, OUT)                                                                                              \
    "tilegen: 1\nkernel: k\nparams: {N: 512, D: 256}\ninputs:\n  x: {dtype: float32, shape: " IN "}\n"           \
    "outputs:\n  y: {dtype: float32, shape: " OUT "}\n"

static const char *const VI[] = {"i"};

/* A spec touching most ops (PE, PSUM, ragged-free but rotating tiles). */
#define SOFTMAX_ATTN_YAML                                                                                         \
    "tilegen: 1\nkernel: k\ninputs:\n  q: {dtype: bfloat16, shape: [256, 128]}\n"                                 \
    "outputs:\n  o: {dtype: float32, shape: [256, 128]}\n"                                                          \
    "tiles:\n  qT: {buffer: sbuf, dtype: bfloat16, shape: [128, 128], bufs: 2}\n"                                  \
    "  s: {buffer: psum, dtype: float32, shape: [128, 128], bufs: 2}\n"                                             \
    "body:\n  - for: {var: i, range: 2}\n    body:\n"                                                              \
    "      - load: {dst: qT, src: \"q[i*128 : i*128+128, :]\", transpose: true}\n"                                  \
    "      - matmul: {dst: s, stationary: qT, moving: qT, accumulate: false}\n"                                     \
    "      - tensor_copy: {dst: sb, src: s}\n"                                                                      \
    "      - affine_select: {dst: m, src: sb, pred: \"i*128 + p >= f\", fill: -inf}\n"                               \
    "      - tensor_reduce: {dst: mx, src: m, op: max, negate: true}\n"                                             \
    "      - activation: {dst: e, src: m, func: exp, bias: mx, reduce: {op: add, dst: sm}}\n"                       \
    "      - tensor_scalar: {dst: y, src: e, op0: divide, operand0: sm}\n"                                          \
    "      - store: {dst: \"o[i*128 : i*128+128, :]\", src: y}\n"

static void softmax_like_pipeline(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, HDR("[N, D]", "[N, D]") "tiles:\n"
                                "  xt: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 2}\n"
                                "body:\n  - for: {var: i, range: N / 128}\n    body:\n"
                                "      - load: {dst: xt, src: \"x[i*128 : i*128+128, :]\"}\n"
                                "      - tensor_reduce: {dst: mx, src: xt, op: max, negate: true}\n"
                                "      - activation: {dst: ex, src: xt, func: exp, bias: mx, scale: 0.5,\n"
                                "                     reduce: {op: add, dst: sm}}\n"
                                "      - tensor_scalar: {dst: yt, src: ex, op0: multiply, operand0: sm,\n"
                                "                        op1: add, operand1: 2.5, reverse1: true}\n"
                                "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: yt}\n");
    assert_non_null(ir);
    assert_int_equal(ir->ninsts, 5);
    assert_int_equal(ir->nloops, 1);
    assert_int_equal(ir->nbody, 1);
    assert_int_equal(ir->body[0].kind, IR_STMT_LOOP);
    const IrLoop *lp = ir->loops[0];
    assert_int_equal(lp->trip, 4);
    assert_int_equal(lp->first, 0);
    assert_int_equal(lp->last, 4);
    static const IrOpcode ops[] = {IR_OP_LOAD, IR_OP_TENSOR_REDUCE, IR_OP_ACTIVATION, IR_OP_TENSOR_SCALAR,
                                   IR_OP_STORE};
    static const SpecEngine eng[] = {SPEC_ENGINE_DMA, SPEC_ENGINE_DVE, SPEC_ENGINE_ACT, SPEC_ENGINE_DVE,
                                     SPEC_ENGINE_DMA};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ir->insts[i]->op, ops[i]);
        assert_int_equal(ir->insts[i]->engine, eng[i]);
        assert_int_equal(ir->insts[i]->id, i);
        assert_ptr_equal(ir->insts[i]->loop, lp);
        assert_int_equal(ir->insts[i]->loc.line, 13 + i + (i > 2) + (i > 3));
    }
    /* load: HBM rows i*128.. of a [512, 256] tensor onto 128 partitions */
    IrInst *ld = ir->insts[0];
    const IrAp *s = &ld->src[0], *d = &ld->dst;
    assert_int_equal(s->mem, IR_MEM_HBM);
    assert_int_equal(s->pstep, 256);
    assert_true(ir_expr_is(s->pcount, 128));
    assert_int_equal(lower_eval(ir, s->offset, VI, (int64_t[]){3}, 1), 3 * 128 * 256);
    assert_int_equal(s->nfree, 1);
    assert_int_equal(s->free[0].step, 1);
    assert_true(ir_expr_is(s->free[0].num, 256));
    assert_int_equal(d->mem, IR_MEM_SBUF);
    assert_true(ir_expr_is(d->pstart, 0) && ir_expr_is(d->pcount, 128) && ir_expr_is(d->offset, 0));
    assert_int_equal(d->nfree, 1);
    assert_true(ir_expr_is(d->free[0].num, 256));
    /* fields */
    IrInst *red = ir->insts[1], *act = ir->insts[2], *ts = ir->insts[3];
    assert_int_equal(red->alu[0], SPEC_ALU_MAXIMUM);
    assert_true(red->negate);
    assert_true(ir_expr_is(red->dst.free[0].num, 1)); /* [P,1] */
    assert_int_equal(act->func, SPEC_ACT_EXP);
    assert_false(act->scalar[0].is_ap);
    assert_true(act->scalar[0].num == 0.5);
    assert_true(act->has_bias && act->has_reduce);
    assert_int_equal(act->reduce_op, SPEC_ALU_ADD);
    assert_int_equal(act->reduce_dst.index, 3); /* sm: 4th tile (xt, mx, ex, sm) */
    assert_int_equal(ts->nalu, 2);
    assert_int_equal(ts->alu[1], SPEC_ALU_ADD);
    assert_true(ts->scalar[0].is_ap);
    assert_false(ts->scalar[1].is_ap);
    assert_true(ts->scalar[1].num == 2.5);
    assert_false(ts->reverse[0]);
    assert_true(ts->reverse[1]);
    /* operands of the activation: dst, src, bias, reduce */
    IrOperand o[IR_MAX_OPERANDS];
    int n = ir_operands(act, o);
    assert_int_equal(n, 4);
    assert_int_equal(o[0].role, SPEC_F_DST);
    assert_int_equal(o[2].role, SPEC_F_BIAS);
    assert_int_equal(o[3].role, SPEC_F_REDUCE);
    assert_true(o[3].is_write && !o[3].is_read);
    arena_free(&r.front.arena);
}

static void transpose_and_broadcast_loads(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, "tilegen: 1\nkernel: k\ninputs:\n  x: {dtype: bfloat16, shape: [64, 128]}\n"
                            "  g: {dtype: float32, shape: [1, 96]}\n"
                            "outputs:\n  y: {dtype: bfloat16, shape: [128, 64]}\n  z: {dtype: float32, shape: [128, 96]}\n"
                            "tiles:\n  xt: {buffer: sbuf, dtype: bfloat16, shape: [128, 64]}\n"
                            "  gt: {buffer: sbuf, dtype: float32, shape: [128, 96]}\n"
                            "body:\n  - load: {dst: xt, src: \"x[0:64, :]\", transpose: true}\n"
                            "  - store: {dst: y, src: xt}\n"
                            "  - load: {dst: gt, src: \"g[0:1, :]\", broadcast: true}\n"
                            "  - store: {dst: \"z[0:128, :]\", src: gt}\n");
    assert_non_null(ir);
    /* transposed: partitions walk x's columns (stride 1), free walks rows (stride 128) */
    const IrInst *t = ir->insts[0];
    assert_true(t->transpose);
    assert_int_equal(t->src[0].pstep, 1);
    assert_true(ir_expr_is(t->src[0].pcount, 128));
    assert_int_equal(t->src[0].nfree, 1);
    assert_int_equal(t->src[0].free[0].step, 128);
    assert_true(ir_expr_is(t->src[0].free[0].num, 64));
    assert_int_equal(ir->spec->tiles[t->dst.index].shape[0], 128);
    assert_true(ir_expr_is(t->dst.free[0].num, 64));
    /* broadcast: one row replicated, partition stride 0, the tile's partition count */
    const IrInst *b = ir->insts[2];
    assert_true(b->broadcast);
    assert_int_equal(b->src[0].pstep, 0);
    assert_true(ir_expr_is(b->src[0].pcount, 128));
    assert_true(ir_expr_is(b->src[0].free[0].num, 96));
    assert_true(ir_expr_is(b->src[0].offset, 0));
    arena_free(&r.front.arena);
}

static void ragged_tail(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, "tilegen: 1\nkernel: k\nparams: {N: 300, D: 64}\n"
                            "inputs:\n  x: {dtype: float32, shape: [N, D]}\noutputs:\n  y: {dtype: float32, shape: [N, D]}\n"
                            "tiles: {xt: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
                            "body:\n  - for: {var: i, range: (N + 127) / 128}\n    body:\n"
                            "      - load: {dst: \"xt[0 : min(128, N - i*128), :]\", src: \"x[i*128 : min(i*128+128, N), :]\"}\n"
                            "      - store: {dst: \"y[i*128 : min(i*128+128, N), :]\", src: \"xt[0 : min(128, N - i*128), :]\"}\n");
    assert_non_null(ir);
    const IrInst *ld = ir->insts[0];
    for (int64_t i = 0; i < 3; i++) {
        int64_t want = i < 2 ? 128 : 44;
        assert_int_equal(lower_eval(ir, ld->src[0].pcount, VI, &i, 1), want);
        assert_int_equal(lower_eval(ir, ld->dst.pcount, VI, &i, 1), want);
        assert_int_equal(lower_eval(ir, ir->insts[1]->dst.pcount, VI, &i, 1), want);
        assert_int_equal(lower_eval(ir, ld->src[0].offset, VI, &i, 1), i * 128 * 64);
    }
    /* still symbolic (it depends on i), folded to min(128, 300 - i*128) */
    assert_false(expr_is_const(ld->src[0].pcount));
    assert_int_equal(ld->src[0].pcount->kind, EXPR_MIN);
    char b[128];
    expr_format(ld->src[0].pcount, b, sizeof b);
    assert_string_equal(b, "min(128, 300 - i*128)");
    arena_free(&r.front.arena);
}

static void strided_and_column_patterns(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, "tilegen: 1\nkernel: k\ninputs:\n  x: {dtype: float32, shape: [128, 16, 8]}\n"
                            "outputs:\n  y: {dtype: float32, shape: [128, 8, 16]}\n"
                            "tiles:\n  xt: {buffer: sbuf, dtype: float32, shape: [128, 16, 8]}\n"
                            "  yt: {buffer: sbuf, dtype: float32, shape: [128, 8, 16]}\n"
                            "  acc: {buffer: sbuf, dtype: float32, shape: [128, 8, 4]}\n"
                            "body:\n  - load: {dst: xt, src: x}\n"
                            "  - for: {var: a, range: 16}\n    body:\n"
                            "      - tensor_copy: {dst: \"yt[:, :, a]\", src: \"xt[:, a, :]\"}\n"
                            "  - memset: {dst: acc, value: 0}\n"
                            "  - for: {var: a, range: 2, carried: true}\n    body:\n"
                            "      - tensor_tensor: {dst: acc, a: acc, b: \"xt[:, a : 16 : 2, 1 : 8 : 2]\", op: add}\n"
                            "  - store: {dst: y, src: yt}\n");
    assert_non_null(ir);
    /* yt[:, :, a]: column a, 8 elements 16 apart; xt[:, a, :]: row a, contiguous */
    const IrInst *cp = lower_find(ir, IR_OP_TENSOR_COPY);
    static const char *const VA[] = {"a"};
    assert_int_equal(cp->dst.nfree, 1);
    assert_int_equal(cp->dst.free[0].step, 16);
    assert_true(ir_expr_is(cp->dst.free[0].num, 8));
    assert_int_equal(lower_eval(ir, cp->dst.offset, VA, (int64_t[]){5}, 1), 5);
    assert_int_equal(cp->src[0].free[0].step, 1);
    assert_true(ir_expr_is(cp->src[0].free[0].num, 8));
    assert_int_equal(lower_eval(ir, cp->src[0].offset, VA, (int64_t[]){5}, 1), 5 * 8);
    /* whole contiguous tile and tensor: merged to one free dim */
    const IrInst *ld = ir->insts[0];
    assert_int_equal(ld->dst.nfree, 1);
    assert_true(ir_expr_is(ld->dst.free[0].num, 128));
    assert_int_equal(ld->src[0].pstep, 128);
    /* strided window: [[16, 8], [2, 4]] from offset a*8 + 1; the row count
     * (16 - a + 1)/2 is 8 for every a in the loop, so it is folded */
    const IrInst *tt = lower_find(ir, IR_OP_TENSOR_TENSOR);
    const IrAp *w = &tt->src[1];
    assert_int_equal(w->nfree, 2);
    assert_int_equal(w->free[0].step, 16);
    assert_true(ir_expr_is(w->free[0].num, 8));
    assert_int_equal(w->free[1].step, 2);
    assert_true(ir_expr_is(w->free[1].num, 4));
    assert_int_equal(lower_eval(ir, w->offset, VA, (int64_t[]){1}, 1), 1 * 8 + 1);
    arena_free(&r.front.arena);
}

/* A region whose start is no affine form (t/3, t%3 of a tap loop, i*i) but
 * whose stop is the start plus a constant has a constant count: the same
 * subtrees cancel (count_of). A tap window of a view, 28 x 28 from
 * xp[t/3, t%3], and a one-column dst at i*i. */
static void counts_of_nonaffine_starts(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, "tilegen: 1\nkernel: k\ninputs:\n  x: {dtype: float32, shape: [128, 30, 30]}\n"
                            "outputs:\n  y: {dtype: float32, shape: [128, 28, 28]}\n  z: {dtype: float32, shape: [128, 9]}\n"
                            "tiles:\n  xp: {buffer: sbuf, dtype: float32, shape: [128, 30, 30]}\n"
                            "  acc: {buffer: sbuf, dtype: float32, shape: [128, 28, 28]}\n"
                            "  zt: {buffer: sbuf, dtype: float32, shape: [128, 9]}\n"
                            "body:\n  - load: {dst: xp, src: x}\n  - memset: {dst: acc, value: 0}\n  - memset: {dst: zt, value: 0}\n"
                            "  - for: {var: t, range: 9, carried: true}\n    body:\n"
                            "      - tensor_tensor: {dst: acc, a: acc, b: \"xp[:, t/3 : t/3 + 28, t%3 : t%3 + 28]\", op: add}\n"
                            "  - for: {var: i, range: 3}\n    body:\n"
                            "      - tensor_reduce: {dst: \"zt[:, i*i : i*i + 1]\", src: xp, op: add}\n"
                            "  - store: {dst: y, src: acc}\n  - store: {dst: z, src: zt}\n");
    assert_non_null(ir);
    const IrAp *w = &lower_find(ir, IR_OP_TENSOR_TENSOR)->src[1];
    assert_int_equal(w->nfree, 2);
    assert_true(ir_expr_is(w->free[0].num, 28));
    assert_true(ir_expr_is(w->free[1].num, 28));
    assert_int_equal(ir_ap_free_elems(&lower_find(ir, IR_OP_TENSOR_REDUCE)->dst), 1);
    arena_free(&r.front.arena);
}

static void rotation_and_scope(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, HDR("[N, D]", "[N, D]") "tiles:\n"
                                "  xt: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 2}\n"
                                "  yt: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 3}\n"
                                "  acc: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 2}\n"
                                "body:\n  - memset: {dst: acc, value: 0}\n"
                                "  - for: {var: i, range: 2}\n    body:\n"
                                "      - for: {var: j, range: 3, carried: true}\n        body:\n"
                                "          - load: {dst: xt, src: \"x[i*128 : i*128+128, :]\"}\n"
                                "          - tensor_copy: {dst: yt, src: xt}\n"
                                "          - store: {dst: \"y[i*128 : i*128+128, :]\", src: yt}\n"
                                "  - for: {var: k, range: 4, carried: true}\n    body:\n"
                                "      - load: {dst: xt, src: \"x[k*128 : k*128+128, :]\"}\n"
                                "      - tensor_tensor: {dst: acc, a: acc, b: xt, op: add}\n"
                                "  - store: {dst: \"y[0:128, :]\", src: acc}\n");
    assert_non_null(ir);
    /* yt lives in loop j (id 1): copies rotate over the flattened (i, j) count */
    int yt = ir->insts[2]->dst.index;
    assert_int_equal(ir->tiles[yt].home, 1);
    assert_int_equal(ir->tiles[yt].scope, 1);
    const IrAp *y = &ir->insts[2]->dst;
    assert_int_equal(y->rot_loop, 1);
    static const char *const VIJ[] = {"i", "j"};
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++)
            assert_int_equal(lower_eval(ir, y->buf, VIJ, (int64_t[]){i, j}, 2), (i * 3 + j) % 3);
    /* xt is used in two loop nests: scope is the whole kernel, no rotation */
    int xt = ir->insts[1]->dst.index;
    assert_int_equal(ir->tiles[xt].home, -1);
    assert_int_equal(ir->tiles[xt].scope, -1);
    assert_int_equal(ir->insts[1]->dst.rot_loop, -1);
    assert_true(ir_expr_is(ir->insts[1]->dst.buf, 0));
    /* acc: read-modify-write in a carried loop after a memset outside it */
    int acc = ir->insts[0]->dst.index;
    assert_int_equal(ir->tiles[acc].scope, -1);
    assert_int_equal(ir->tiles[acc].naccess, 3);
    assert_int_equal(ir->tiles[acc].first, 0);
    assert_int_equal(ir->tiles[acc].last, 6);
    arena_free(&r.front.arena);
}

static void carried_fresh_tile_rotates(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, HDR("[N, D]", "[N, D]") "tiles:\n"
                                "  xt: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 2}\n"
                                "  part: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 2}\n"
                                "  carry: {buffer: sbuf, dtype: float32, shape: [128, 1]}\n"
                                "body:\n  - memset: {dst: carry, value: 0}\n"
                                "  - for: {var: c, range: [1, 4], carried: true}\n    body:\n"
                                "      - load: {dst: xt, src: \"x[c*128 : c*128+128, :]\"}\n"
                                "      - memset: {dst: \"part[:, 0:1]\", value: 0}\n"
                                "      - tensor_copy: {dst: \"part[:, 1:D]\", src: \"xt[:, 1:D]\"}\n"
                                "      - tensor_scalar: {dst: xt, src: part, op0: add, operand0: carry}\n"
                                "      - tensor_copy: {dst: carry, src: \"xt[:, 0:1]\"}\n"
                                "      - store: {dst: \"y[c*128 : c*128+128, :]\", src: xt}\n");
    assert_non_null(ir);
    /* xt is overwritten whole at the top of every iteration: rotates with c
     * (start 1: iteration c - 1) */
    const IrAp *x = &ir->insts[1]->dst;
    assert_int_equal(x->rot_loop, 0);
    static const char *const VC[] = {"c"};
    for (int64_t c = 1; c < 4; c++)
        assert_int_equal(lower_eval(ir, x->buf, VC, &c, 1), (c - 1) % 2);
    /* part's first write is partial in a carried loop: no rotation */
    int part = ir->insts[2]->dst.index;
    assert_int_equal(ir->tiles[part].home, 0);
    assert_int_equal(ir->tiles[part].scope, -1);
    assert_int_equal(ir->insts[2]->dst.rot_loop, -1);
    arena_free(&r.front.arena);
}

static void pe_pool_fields(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, "tilegen: 1\nkernel: k\nparams: {K: 256}\ninputs:\n  a: {dtype: bfloat16, shape: [K, 128]}\n"
                            "  b: {dtype: bfloat16, shape: [K, 512]}\n"
                            "outputs:\n  y: {dtype: float32, shape: [128, 512]}\n"
                            "tiles:\n  at: {buffer: sbuf, dtype: bfloat16, shape: [128, 2, 128]}\n"
                            "  bt: {buffer: sbuf, dtype: bfloat16, shape: [128, 2, 512]}\n"
                            "  ps: {buffer: psum, dtype: float32, shape: [128, 512]}\n"
                            "  io: {buffer: sbuf, dtype: float32, shape: [128, 512]}\n"
                            "body:\n  - for: {var: k, range: 2}\n    body:\n"
                            "      - load: {dst: \"at[:, k, :]\", src: \"a[k*128 : k*128+128, :]\"}\n"
                            "      - load: {dst: \"bt[:, k, :]\", src: \"b[k*128 : k*128+128, :]\"}\n"
                            "  - matmul: {dst: ps, stationary: \"at[:, 0, :]\", moving: \"bt[:, 0, :]\", accumulate: false}\n"
                            "  - for: {var: k, range: [1, 2], carried: true}\n    body:\n"
                            "      - matmul: {dst: ps, stationary: \"at[:, k, :]\", moving: \"bt[:, k, :]\", accumulate: true}\n"
                            "  - tensor_copy: {dst: ys, src: ps}\n"
                            "  - iota: {dst: io, expr: \"p * 512 + f + 2 * 3\"}\n"
                            "  - affine_select: {dst: ms, src: ys, pred: \"p + 1 * 0 >= f\", fill: -inf}\n"
                            "  - tensor_tensor: {dst: zs, a: ms, b: io, op: add}\n"
                            "  - store: {dst: y, src: zs}\n");
    assert_non_null(ir);
    const IrInst *m0 = ir->insts[2], *m1 = ir->insts[3];
    assert_int_equal(m0->op, IR_OP_MATMUL);
    assert_int_equal(m0->engine, SPEC_ENGINE_PE);
    assert_false(m0->accumulate);
    assert_true(m1->accumulate);
    assert_int_equal(m0->dst.mem, IR_MEM_PSUM);
    static const char *const VK[] = {"k"};
    assert_int_equal(lower_eval(ir, m1->src[0].offset, VK, (int64_t[]){1}, 1), 128);
    assert_int_equal(lower_eval(ir, m1->src[1].offset, VK, (int64_t[]){1}, 1), 512);
    IrOperand o[IR_MAX_OPERANDS];
    int n = ir_operands((IrInst *)m1, o);
    assert_int_equal(n, 3);
    assert_int_equal(o[1].role, SPEC_F_STATIONARY);
    assert_int_equal(o[2].role, SPEC_F_MOVING);
    assert_true(o[0].is_read && o[0].is_write); /* accumulate reads the bank */
    ir_operands((IrInst *)m0, o);
    assert_false(o[0].is_read);
    /* iota: constants folded, p and f kept */
    const IrInst *io = lower_find(ir, IR_OP_IOTA);
    char b[128];
    expr_format(io->iota, b, sizeof b);
    assert_string_equal(b, "p*512 + f + 6");
    const IrInst *sel = lower_find(ir, IR_OP_AFFINE_SELECT);
    expr_format(sel->pred.lhs, b, sizeof b);
    assert_string_equal(b, "p");
    assert_int_equal(sel->pred.cmp, EXPR_CMP_GE);
    assert_true(sel->value < 0 && sel->value * 0 != 0); /* -inf */
    arena_free(&r.front.arena);
}

static void dump_text(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, HDR("[N, D]", "[N, D]") "tiles:\n"
                                "  xt: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 2}\n"
                                "body:\n  - for: {var: i, range: N / 128}\n    body:\n"
                                "      - load: {dst: xt, src: \"x[i*128 : i*128+128, :]\"}\n"
                                "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: xt}\n");
    assert_non_null(ir);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    ir_dump(f, ir);
    fclose(f);
    assert_non_null(strstr(text, "loop 0: for i in [0, 4) step 1"));
    assert_non_null(strstr(text, "dma.load"));
    assert_non_null(strstr(text, "dst=sbuf:xt.(i%2)[0:+128] +0 float32 [[1,256]]"));
    assert_non_null(strstr(text, "src=hbm:x[+128 s256] +i*32768 float32 [[1,256]]"));
    assert_non_null(strstr(text, "; t.yaml:13"));
    assert_non_null(strstr(text, "tile xt sbuf float32 [128, 256] bufs 2 scope loop 0 (i)"));
    free(text);
    arena_free(&r.front.arena);
}

static void every_bundled_spec_lowers(void **state)
{
    (void)state;
    for (int k = 0; k < LOWER_NBUNDLED; k++) {
        LowerRun r;
        Ir *ir = lower_bundled_spec(&r, k);
        /* every tile operand stays inside its tile for every iteration of
         * its instruction's innermost loop (others at their first value) */
        for (int i = 0; i < ir->ninsts; i++) {
            IrOperand o[IR_MAX_OPERANDS];
            int n = ir_operands(ir->insts[i], o);
            for (int q = 0; q < n; q++) {
                const IrAp *ap = o[q].ap;
                if (ap->mem == IR_MEM_HBM)
                    continue;
                const SpecTile *t = &ir->spec->tiles[ap->index];
                const IrLoop *lp = ir->insts[i]->loop;
                for (int64_t it = 0; it < (lp ? lp->trip : 1); it++) {
                    int64_t v = lp ? lp->start + it * lp->step : 0;
                    const char *name = lp ? lp->var : "";
                    int64_t elems = 1, last = lower_eval(ir, ap->offset, &name, &v, 1);
                    for (int d = 1; d < t->rank; d++)
                        elems *= t->shape[d];
                    for (int fd = 0; fd < ap->nfree; fd++)
                        last += ap->free[fd].step * (lower_eval(ir, ap->free[fd].num, &name, &v, 1) - 1);
                    assert_in_range(last, 0, elems - 1);
                    int64_t p0 = lower_eval(ir, ap->pstart, &name, &v, 1);
                    int64_t pc = lower_eval(ir, ap->pcount, &name, &v, 1);
                    assert_in_range(p0 + pc, 1, t->shape[0]);
                    assert_in_range(lower_eval(ir, ap->buf, &name, &v, 1), 0, t->bufs - 1);
                }
            }
        }
        arena_free(&r.front.arena);
    }
}

/* Random integer expressions over p, f, i, j: the folded IR form must equal
 * the spec's expression at every point (a small LCG keeps it reproducible). */
static unsigned lcg_next(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void random_expr(unsigned *seed, int depth, char *buf, size_t size)
{
    static const char *const leaves[] = {"p", "f", "i", "j", "3", "7", "128", "0"};
    static const char *const ops[] = {"+", "-", "*", "/", "%"};
    unsigned k = lcg_next(seed);
    if (depth == 0 || k % 5 == 0) {
        snprintf(buf, size, "%s", leaves[lcg_next(seed) % 8]);
        return;
    }
    char a[512], b[512];
    random_expr(seed, depth - 1, a, sizeof a);
    random_expr(seed, depth - 1, b, sizeof b);
    switch (k % 4) {
    case 0: snprintf(buf, size, "min(%s, %s)", a, b); break;
    case 1: snprintf(buf, size, "max(%s, %s)", a, b); break;
    default: {
        const char *op = ops[lcg_next(seed) % 5];
        if (op[0] == '/' || op[0] == '%') /* keep divisors positive constants */
            snprintf(buf, size, "(%s) %s %d", a, op, (int)(lcg_next(seed) % 5) + 1);
        else
            snprintf(buf, size, "(%s) %s (%s)", a, op, b);
    }
    }
}

static void folding_preserves_values(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int n = 0; n < 300; n++) {
        char e[2048], yaml[4096];
        random_expr(&seed, 4, e, sizeof e);
        snprintf(yaml, sizeof yaml,
                 "tilegen: 1\nkernel: k\ninputs:\n  x: {dtype: float32, shape: [4, 4]}\n"
                 "outputs:\n  y: {dtype: float32, shape: [4, 4]}\n"
                 "tiles: {t: {buffer: sbuf, dtype: float32, shape: [4, 4]}}\n"
                 "body:\n  - for: {var: i, range: [1, 7, 2], carried: true}\n    body:\n"
                 "      - for: {var: j, range: 3, carried: true}\n        body:\n"
                 "          - iota: {dst: t, expr: \"%s\"}\n"
                 "          - store: {dst: y, src: t}\n",
                 e);
        LowerRun r;
        Ir *ir = lower_yaml(&r, yaml);
        if (!ir)
            fail_msg("did not lower: %s", e);
        const SpecStmt *st = r.front.spec->body[0]->body[0]->body[0];
        const Expr *orig = st->f[SPEC_F_EXPR].expr, *folded = ir->insts[0]->iota;
        int si = ir->loops[0]->slot, sj = ir->loops[1]->slot;
        for (int64_t i = 1; i < 7; i += 2)
            for (int64_t j = 0; j < 3; j++)
                for (int64_t pf = 0; pf < 4; pf++) {
                    int64_t env[8] = {0}, want = 0, got = 0;
                    env[EXPR_VAR_P] = pf;
                    env[EXPR_VAR_F] = 3 - pf;
                    env[si] = i;
                    env[sj] = j;
                    assert_int_equal(expr_eval(orig, env, &want, NULL), 0);
                    assert_int_equal(expr_eval(folded, env, &got, NULL), 0);
                    if (want != got)
                        fail_msg("%s: %lld != %lld at i=%lld j=%lld", e, (long long)got, (long long)want,
                                 (long long)i, (long long)j);
                }
        arena_free(&r.front.arena);
    }
}

/* Out of memory at every point of the lowering and planning: either a whole
 * IR/plan or NULL with E091, never a crash or a half-built result. The arena
 * may not grow, and a filler uses up all but `room` bytes of its last chunk. */
static void out_of_memory_everywhere(void **state)
{
    (void)state;
    int failed = 0, done = 0;
    for (size_t room = 0; room <= 64 * 1024; room += 256) {
        LowerRun r;
        front_run(&r.front, SOFTMAX_ATTN_YAML, 3);
        assert_int_equal(r.front.diag.nerrors, 0);
        Arena *a = &r.front.arena;
        a->limit = a->total; /* no new chunk */
        while (!a->oom && arena_alloc(a, 64)) /* fill the chunk ... */
            ;
        a->oom = 0;
        a->limit = a->total + 64 * 1024; /* ... then allow exactly one more chunk, `room` of it free */
        if (room < 64 * 1024 && !arena_alloc(a, 64 * 1024 - room))
            fail_msg("filler");
        a->limit = a->total;
        Diag *d = &r.front.diag;
        d->max_errors = 0;
        Ir *ir = ir_lower(a, r.front.spec, d);
        Plan *p = ir ? plan_build(a, ir, d, 1) : NULL;
        if (ir && p && !a->oom) {
            assert_int_equal(d->nerrors, 0);
            done++;
        } else {
            assert_true(a->oom);
            failed++;
        }
        arena_free(a);
    }
    assert_true(failed > 0 && done > 0); /* both paths were taken */
}

/* The engine of each spec op (gen/spec_ops.def) is the engine queue of its
 * ISA instruction (runtime/tg_isa.def), and the mnemonic carries its prefix. */
static void opcodes_match_the_isa(void **state)
{
    (void)state;
    static const tg_isa_engine eng[] = {[SPEC_ENGINE_DMA] = TG_ENG_DMA, [SPEC_ENGINE_PE] = TG_ENG_PE,
                                        [SPEC_ENGINE_DVE] = TG_ENG_DVE, [SPEC_ENGINE_ACT] = TG_ENG_ACT,
                                        [SPEC_ENGINE_POOL] = TG_ENG_POOL};
#define X(ID, SPECOP)                                                                                             \
    do {                                                                                                          \
        const tg_isa_info *in = &tg_isa_table[ir_isa_op(IR_OP_##ID)];                                             \
        assert_int_equal(in->engine, eng[spec_op_engine(SPEC_OP_##SPECOP)]);                                       \
        assert_string_equal(ir_opcode_name(IR_OP_##ID), in->mnemonic);                                             \
        assert_int_equal(strncmp(in->mnemonic, tg_isa_engine_prefix[in->engine],                                   \
                                 strlen(tg_isa_engine_prefix[in->engine])),                                        \
                         0);                                                                                       \
    } while (0);
    IR_OPCODES(X)
#undef X
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opcodes_match_the_isa),
        cmocka_unit_test(softmax_like_pipeline),  cmocka_unit_test(transpose_and_broadcast_loads),
        cmocka_unit_test(ragged_tail),            cmocka_unit_test(strided_and_column_patterns),
        cmocka_unit_test(rotation_and_scope),     cmocka_unit_test(carried_fresh_tile_rotates),
        cmocka_unit_test(pe_pool_fields),         cmocka_unit_test(dump_text),
        cmocka_unit_test(every_bundled_spec_lowers), cmocka_unit_test(counts_of_nonaffine_starts), cmocka_unit_test(folding_preserves_values),
        cmocka_unit_test(out_of_memory_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
