/* test_plan.c - the static SBUF/PSUM planner: reuse of space between tiles not
 * live together, bufs copies and 64-byte slots, PSUM banks, live ranges over
 * loops, capacity errors, the report, and structural properties of the plan
 * of every bundled spec (no overlap of simultaneously live tiles, capacity). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lower_test.h"
#include "plan.h"

#define HDR                                                                                                       \
    "tilegen: 1\nkernel: k\nparams: {N: 512, D: 1024}\ninputs:\n  x: {dtype: float32, shape: [N, D]}\n"          \
    "outputs:\n  y: {dtype: float32, shape: [N, D]}\n"

static int tile_index(const Ir *ir, const char *name)
{
    for (int t = 0; t < ir->spec->ntiles; t++)
        if (!strcmp(ir->spec->tiles[t].name, name))
            return t;
    fail_msg("no tile %s", name);
    return -1;
}

/* Two loop nests one after the other: their tiles are never live together. */
static const char TWO_PHASES[] = HDR "tiles:\n"
    "  a: {buffer: sbuf, dtype: float32, shape: [128, D]}\n"
    "  b: {buffer: sbuf, dtype: float32, shape: [128, D]}\n"
    "body:\n  - for: {var: i, range: 2}\n    body:\n"
    "      - load: {dst: a, src: \"x[i*128 : i*128+128, :]\"}\n"
    "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: a}\n"
    "  - for: {var: i, range: [2, 4]}\n    body:\n"
    "      - load: {dst: b, src: \"x[i*128 : i*128+128, :]\"}\n"
    "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: b}\n";

static void reuse_between_phases(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, TWO_PHASES);
    assert_non_null(ir);
    Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    assert_non_null(p);
    assert_int_equal(p->errors, 0);
    int a = tile_index(ir, "a"), b = tile_index(ir, "b");
    assert_int_equal(p->tiles[a].live_first, 0);
    assert_int_equal(p->tiles[a].live_last, 1);
    assert_int_equal(p->tiles[b].live_first, 2);
    assert_false(plan_conflict(p, a, b));
    assert_int_equal(p->tiles[a].offset, p->tiles[b].offset);
    assert_int_equal(p->sbuf_peak, 4096);
    assert_int_equal(p->sbuf_noreuse, 8192);
    Plan *q = plan_build(&r.front.arena, ir, &r.front.diag, 0);
    assert_true(plan_conflict(q, a, b));
    assert_int_not_equal(q->tiles[a].offset, q->tiles[b].offset);
    assert_int_equal(q->sbuf_peak, 8192);
    assert_int_equal(r.front.diag.nerrors, 0);
    arena_free(&r.front.arena);
}

static void slots_and_bufs(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, HDR "tiles:\n"
                                "  s3: {buffer: sbuf, dtype: float32, shape: [128, 3], bufs: 3}\n"
                                "  xt: {buffer: sbuf, dtype: bfloat16, shape: [128, 100], bufs: 2}\n"
                                "body:\n  - memset: {dst: s3, value: 1}\n"
                                "  - for: {var: i, range: 4}\n    body:\n"
                                "      - load: {dst: xt, src: \"x[i*128 : i*128+128, 0:100]\"}\n"
                                "      - tensor_scalar: {dst: xt, src: xt, op0: add, operand0: \"s3[:, 0:1]\"}\n"
                                "      - store: {dst: \"y[i*128 : i*128+128, 0:100]\", src: xt}\n");
    assert_non_null(ir);
    Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    const PlanTile *s3 = &p->tiles[tile_index(ir, "s3")], *xt = &p->tiles[tile_index(ir, "xt")];
    assert_int_equal(s3->bytes, 12);
    assert_int_equal(s3->slot, 64);
    assert_int_equal(s3->bufs, 3);
    assert_int_equal(xt->bytes, 200);
    assert_int_equal(xt->slot, 256);
    assert_int_equal(xt->pcount, 128);
    assert_int_equal(xt->pstart, 0);
    /* live together: disjoint, the bigger (2 x 256) first at 0 */
    assert_int_equal(xt->offset, 0);
    assert_int_equal(s3->offset, 512);
    assert_int_equal(p->sbuf_peak, 512 + 3 * 64);
    assert_int_equal(p->psum_peak, 0);
    arena_free(&r.front.arena);
}

static void psum_banks(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, "tilegen: 1\nkernel: k\ninputs:\n  a: {dtype: bfloat16, shape: [128, 128]}\n"
                            "  b: {dtype: bfloat16, shape: [128, 512]}\n"
                            "outputs:\n  y: {dtype: float32, shape: [128, 512]}\n"
                            "tiles:\n  at: {buffer: sbuf, dtype: bfloat16, shape: [128, 128]}\n"
                            "  bt: {buffer: sbuf, dtype: bfloat16, shape: [128, 512]}\n"
                            "  p1: {buffer: psum, dtype: float32, shape: [128, 512], bufs: 2}\n"
                            "  p2: {buffer: psum, dtype: float32, shape: [128, 128], bufs: 2}\n"
                            "  p3: {buffer: psum, dtype: float32, shape: [128, 128]}\n"
                            "body:\n  - load: {dst: at, src: a}\n  - load: {dst: bt, src: b}\n"
                            "  - matmul: {dst: p1, stationary: at, moving: bt, accumulate: false}\n"
                            "  - matmul: {dst: p2, stationary: at, moving: \"bt[:, 0:128]\", accumulate: false}\n"
                            "  - tensor_tensor: {dst: s1, a: p1, b: bt, op: add}\n"
                            "  - tensor_copy: {dst: s2, src: p2}\n"
                            "  - matmul: {dst: p3, stationary: at, moving: \"bt[:, 0:128]\", accumulate: false}\n"
                            "  - tensor_tensor: {dst: s3, a: p3, b: s2, op: add}\n"
                            "  - tensor_tensor: {dst: \"s1[:, 0:128]\", a: \"s1[:, 0:128]\", b: s3, op: add}\n"
                            "  - store: {dst: y, src: s1}\n");
    assert_non_null(ir);
    Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    assert_int_equal(p->errors, 0);
    const PlanTile *p1 = &p->tiles[tile_index(ir, "p1")], *p2 = &p->tiles[tile_index(ir, "p2")];
    const PlanTile *p3 = &p->tiles[tile_index(ir, "p3")];
    assert_int_equal(p1->slot, 2048);
    assert_int_equal(p1->offset, -1);
    /* p1 and p2 are live together: two consecutive banks each, disjoint */
    assert_int_equal(p1->bank, 0);
    assert_int_equal(p2->bank, 2);
    /* p3 starts after p1 and p2 are dead: it reuses bank 0 */
    assert_true(p3->live_first > p1->live_last && p3->live_first > p2->live_last);
    assert_int_equal(p3->bank, 0);
    assert_int_equal(p->psum_peak, 4);
    assert_int_equal(p->psum_noreuse, 5);
    arena_free(&r.front.arena);
}

static void live_ranges_span_loops(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, HDR "tiles:\n"
                                "  g: {buffer: sbuf, dtype: float32, shape: [128, D]}\n"
                                "  xt: {buffer: sbuf, dtype: float32, shape: [128, D]}\n"
                                "  t1: {buffer: sbuf, dtype: float32, shape: [128, D]}\n"
                                "  t2: {buffer: sbuf, dtype: float32, shape: [128, D]}\n"
                                "body:\n  - load: {dst: g, src: \"x[0:128, :]\"}\n"
                                "  - for: {var: i, range: 4}\n    body:\n"
                                "      - load: {dst: xt, src: \"x[i*128 : i*128+128, :]\"}\n"
                                "      - tensor_tensor: {dst: t1, a: xt, b: g, op: add}\n"
                                "      - tensor_copy: {dst: xt, src: t1}\n"
                                "      - tensor_tensor: {dst: t2, a: xt, b: xt, op: multiply}\n"
                                "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: t2}\n");
    assert_non_null(ir);
    Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    int g = tile_index(ir, "g"), t1 = tile_index(ir, "t1"), t2 = tile_index(ir, "t2");
    /* g is read inside the loop: live from its load to the loop's end */
    assert_int_equal(p->tiles[g].live_first, 0);
    assert_int_equal(p->tiles[g].live_last, ir->loops[0]->last);
    /* t1 and t2 live within one iteration, at different times: they share */
    assert_int_equal(p->tiles[t1].live_first, 2);
    assert_int_equal(p->tiles[t1].live_last, 3);
    assert_int_equal(p->tiles[t2].live_first, 4);
    assert_false(plan_conflict(p, t1, t2));
    assert_true(plan_conflict(p, g, t1));
    assert_int_equal(p->tiles[t1].offset, p->tiles[t2].offset);
    assert_int_equal(p->sbuf_peak, 3 * 4096);
    arena_free(&r.front.arena);
}

static int has_code(const Diag *d, const char *code)
{
    for (const DiagMsg *m = d->head; m; m = m->next)
        if (m->code && !strcmp(m->code, code))
            return 1;
    return 0;
}

static void capacity_errors(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, TWO_PHASES);
    assert_non_null(ir);
    /* grow a tile past the target after the checks: the planner must catch it */
    SpecTile *a = &r.front.spec->tiles[tile_index(ir, "a")];
    a->shape[1] = 50000; /* 200 000 bytes per partition > 180 224 */
    Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    assert_int_equal(p->errors, 1);
    assert_true(has_code(&r.front.diag, "E094"));
    assert_true(p->sbuf_peak > p->sbuf_capacity);
    arena_free(&r.front.arena);

    ir = lower_yaml(&r, "tilegen: 1\nkernel: k\ninputs:\n  a: {dtype: float32, shape: [128, 128]}\n"
                        "outputs:\n  y: {dtype: float32, shape: [128, 128]}\n"
                        "tiles:\n  at: {buffer: sbuf, dtype: float32, shape: [128, 128]}\n"
                        "  ps: {buffer: psum, dtype: float32, shape: [128, 128], bufs: 2}\n"
                        "body:\n  - load: {dst: at, src: a}\n"
                        "  - transpose: {dst: ps, src: at}\n  - tensor_copy: {dst: at, src: ps}\n"
                        "  - store: {dst: y, src: at}\n");
    assert_non_null(ir);
    r.front.spec->tiles[tile_index(ir, "ps")].bufs = 9;
    p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    assert_int_equal(p->errors, 1);
    assert_true(has_code(&r.front.diag, "E095"));
    r.front.spec->tiles[tile_index(ir, "ps")].bufs = 1;
    r.front.spec->tiles[tile_index(ir, "ps")].shape[1] = 1024; /* 4 KiB: two whole banks (SPEC.md §2.1) */
    p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    assert_int_equal(p->errors, 0);
    assert_int_equal(p->tiles[tile_index(ir, "ps")].banks, 2);
    assert_int_equal(p->tiles[tile_index(ir, "ps")].slot, 2 * TG_PSUM_BANK_BYTES);
    assert_int_equal(p->psum_peak, 2);
    r.front.spec->tiles[tile_index(ir, "ps")].shape[1] = 4097; /* 16388 bytes: more than the 8 banks */
    p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    assert_true(has_code(&r.front.diag, "E093"));
    arena_free(&r.front.arena);
}

static void target_capacity(void **state)
{
    (void)state;
    static const char *const targets[] = {"trn1", "trn2"};
    static const int64_t usable[] = {180224, 212984};
    for (int k = 0; k < 2; k++) {
        char yaml[sizeof TWO_PHASES + 32];
        snprintf(yaml, sizeof yaml, "target: %s\n%s", targets[k], TWO_PHASES);
        LowerRun r;
        Ir *ir = lower_yaml(&r, yaml);
        assert_non_null(ir);
        Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
        assert_int_equal(p->sbuf_capacity, usable[k]);
        assert_int_equal(p->psum_capacity, 8);
        arena_free(&r.front.arena);
    }
}

static void report_text(void **state)
{
    (void)state;
    LowerRun r;
    Ir *ir = lower_yaml(&r, TWO_PHASES);
    assert_non_null(ir);
    Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    plan_report(f, p);
    fclose(f);
    assert_non_null(strstr(text, "k: SBUF/PSUM occupancy (trn1"));
    assert_non_null(strstr(text, "  a          sbuf float32   [128,1024]          1       4096"));
    assert_non_null(strstr(text, "p[0:128] @0+4096x1  14-15"));
    assert_non_null(strstr(text, "SBUF peak 4096 of 180224 bytes per partition (2.3%), 8192 without reuse"));
    assert_non_null(strstr(text, "PSUM peak 0 of 8 banks"));
    free(text);
    arena_free(&r.front.arena);
}

/* Structural checks of a plan; returns the largest extent of one tile. */
static void check_plan(const Plan *p, const char *name)
{
    int64_t biggest_sbuf = 0;
    for (int a = 0; a < p->ntiles; a++) {
        const PlanTile *x = &p->tiles[a];
        if (!x->used)
            continue;
        if (x->buffer == SPEC_BUF_SBUF) {
            assert_int_equal(x->offset % PLAN_SBUF_ALIGN, 0);
            assert_int_equal(x->slot % PLAN_SBUF_ALIGN, 0);
            assert_true(x->slot >= x->bytes);
            assert_true(x->offset + x->slot * x->bufs <= p->sbuf_peak);
            if (x->slot * x->bufs > biggest_sbuf)
                biggest_sbuf = x->slot * x->bufs;
        } else {
            assert_in_range(x->bank, 0, p->psum_peak - x->bufs);
        }
        assert_true(x->pstart + x->pcount <= TG_PARTITIONS);
        for (int b = a + 1; b < p->ntiles; b++) {
            const PlanTile *y = &p->tiles[b];
            if (!y->used || x->buffer != y->buffer)
                continue;
            int live_together = x->live_first <= y->live_last && y->live_first <= x->live_last;
            int64_t xs = x->buffer == SPEC_BUF_SBUF ? x->offset : x->bank;
            int64_t xe = xs + (x->buffer == SPEC_BUF_SBUF ? x->slot * x->bufs : x->bufs);
            int64_t ys = y->buffer == SPEC_BUF_SBUF ? y->offset : y->bank;
            int64_t ye = ys + (y->buffer == SPEC_BUF_SBUF ? y->slot * y->bufs : y->bufs);
            int parts = x->pstart < y->pstart + y->pcount && y->pstart < x->pstart + x->pcount;
            if (live_together && parts && xs < ye && ys < xe)
                fail_msg("%s: tiles %d and %d are live together and overlap", name, a, b);
        }
    }
    assert_true(p->sbuf_peak <= p->sbuf_capacity);
    assert_true(p->psum_peak <= p->psum_capacity);
    assert_true(p->sbuf_peak <= p->sbuf_noreuse);
    assert_true(p->psum_peak <= p->psum_noreuse);
    assert_true(p->sbuf_peak >= biggest_sbuf);
}

/* Two tiles touched by one instruction are live at that instruction. */
static void check_coaccess(const Ir *ir, const Plan *p)
{
    for (int i = 0; i < ir->ninsts; i++) {
        IrOperand o[IR_MAX_OPERANDS];
        int n = ir_operands(ir->insts[i], o);
        for (int k = 0; k < n; k++) {
            if (o[k].ap->mem == IR_MEM_HBM)
                continue;
            const PlanTile *t = &p->tiles[o[k].ap->index];
            assert_in_range(i, t->live_first, t->live_last);
            for (int q = 0; q < n; q++)
                if (o[q].ap->mem != IR_MEM_HBM && o[q].ap->index != o[k].ap->index &&
                    o[q].ap->mem == o[k].ap->mem)
                    assert_true(plan_conflict(p, o[k].ap->index, o[q].ap->index));
        }
    }
}

static void bundled_specs(void **state)
{
    (void)state;
    for (int k = 0; k < LOWER_NBUNDLED; k++) {
        LowerRun r;
        Ir *ir = lower_bundled_spec(&r, k);
        Plan *p = plan_build(&r.front.arena, ir, &r.front.diag, 1);
        assert_non_null(p);
        assert_int_equal(p->errors, 0);
        check_plan(p, lower_bundled[k]);
        check_coaccess(ir, p);
        Plan *q = plan_build(&r.front.arena, ir, &r.front.diag, 0);
        check_plan(q, lower_bundled[k]);
        assert_int_equal(q->sbuf_peak, q->sbuf_noreuse);
        print_message("%-16s SBUF peak %6lld B/partition (%6lld without reuse), PSUM %d banks (%d without reuse)\n",
                      lower_bundled[k], (long long)p->sbuf_peak, (long long)p->sbuf_noreuse, p->psum_peak, p->psum_noreuse);
        arena_free(&r.front.arena);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reuse_between_phases), cmocka_unit_test(slots_and_bufs),
        cmocka_unit_test(psum_banks),           cmocka_unit_test(live_ranges_span_loops),
        cmocka_unit_test(capacity_errors),      cmocka_unit_test(target_capacity),
        cmocka_unit_test(report_text),
        cmocka_unit_test(bundled_specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
