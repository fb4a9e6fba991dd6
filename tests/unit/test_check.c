/* test_check.c - schema check: the Spec it builds (params, tensors, tiles,
 * loops with slots, op fields) and its errors with suggestions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "front_test.h"

static const char good[] =
    "tilegen: 1\nkernel: k\ntarget: trn2\nparams: {N: 256, D: N * 2}\n"
    "inputs:\n  x: {dtype: bfloat16, shape: [N, D]}\noutputs:\n  y: {dtype: float32, shape: [N, D]}\n"
    "tiles:\n  xt: {buffer: sbuf, dtype: float32, shape: [128, D], bufs: 2}\n"
    "body:\n  - for: {var: i, range: [0, N / 128]}\n    body:\n"
    "      - load: {dst: xt, src: \"x[i*128 : i*128+128, :]\"}\n"
    "      - tensor_scalar: {dst: yt, src: xt, op0: multiply, operand0: 2.5, op1: max, operand1: -inf}\n"
    "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: yt}\n";

static void builds_spec(void **state)
{
    (void)state;
    FrontRun r;
    front_run(&r, good, 2);
    assert_int_equal(r.diag.nerrors, 0);
    Spec *s = r.spec;
    assert_non_null(s);
    assert_string_equal(s->kernel, "k");
    assert_int_equal(s->target, TG_TRN2);
    assert_int_equal(s->nparams, 2);
    assert_int_equal(s->params[1].value, 512);
    assert_int_equal(s->ntensors, 2);
    assert_int_equal(s->ninputs, 1);
    assert_int_equal(s->tensors[0].dtype, TG_BFLOAT16);
    assert_int_equal(s->tensors[1].shape[1], 512);
    assert_int_equal(s->ntiles, 2); /* xt declared, yt inferred on first write */
    assert_int_equal(s->tiles[0].bufs, 2);
    assert_false(s->tiles[1].declared);
    assert_int_equal(s->nbody, 1);
    SpecStmt *l = s->body[0];
    assert_int_equal(l->kind, SPEC_STMT_LOOP);
    assert_int_equal(l->slot, EXPR_VAR_FIRST);
    assert_int_equal(l->stop, 2);
    assert_int_equal(l->nbody, 3);
    SpecStmt *ts = l->body[1];
    assert_int_equal(ts->op, SPEC_OP_TENSOR_SCALAR);
    assert_int_equal(ts->f[SPEC_F_OP1].enum_val, SPEC_ALU_MAXIMUM);
    assert_true(ts->f[SPEC_F_OPERAND0].num == 2.5);
    assert_false(ts->f[SPEC_F_OPERAND0].is_ref);
    assert_true(ts->f[SPEC_F_OPERAND1].num < -1e300);
    SpecStmt *ld = l->body[0];
    assert_true(ld->f[SPEC_F_SRC].ref.is_tensor);
    assert_int_equal(ld->f[SPEC_F_SRC].ref.region.slice[0].start->kind, EXPR_MUL);
    assert_int_equal(ld->f[SPEC_F_SRC].ref.region.slice[0].start->a->kind, EXPR_VAR);
    arena_free(&r.arena);
}

static void defines_override(void **state)
{
    (void)state;
    FrontRun r;
    arena_init(&r.arena);
    diag_init(&r.diag, &r.arena);
    r.root = spec_load(&r.arena, &r.diag, "t.yaml", good, strlen(good));
    const char *defs[] = {"N=512", "Q=1"};
    SpecOptions opt = {defs, 2, "trn1"};
    r.spec = spec_check(&r.arena, &r.diag, r.root, "t.yaml", &opt);
    assert_non_null(r.spec);
    assert_int_equal(r.spec->params[0].value, 512);
    assert_int_equal(r.spec->params[1].value, 1024); /* D = N * 2 follows the override */
    assert_int_equal(r.spec->target, TG_TRN1);
    assert_int_equal(r.diag.nerrors, 1);
    assert_string_equal(front_first_code(&r), "E019");
    arena_free(&r.arena);
}

static void errors_with_suggestions(void **state)
{
    (void)state;
    FrontRun r;
    front_run(&r,
              "tilegen: 1\nkernel: k\noutputs: {y: {dtype: float32, shape: [4, 4]}}\n"
              "tiles: {t: {buffer: sbuf, dtype: float32, shape: [4, 4]}}\n"
              "body:\n  - memst: {dst: t, value: 0}\n  - memset: {dst: t, valu: 0}\n"
              "  - store: {dst: y, src: tt}\n",
              2);
    assert_int_equal(r.diag.nerrors, 4);
    const DiagMsg *m = r.diag.head;
    assert_string_equal(m->code, "E016");
    assert_int_equal(m->loc.line, 6);
    assert_string_equal(m->next->text, "did you mean 'memset'?");
    m = m->next->next;
    assert_string_equal(m->code, "E010");
    assert_string_equal(m->next->text, "did you mean 'value'?");
    m = m->next->next;
    assert_string_equal(m->code, "E011");
    m = m->next;
    assert_string_equal(m->code, "E020");
    assert_int_equal(m->loc.col, 26);
    assert_string_equal(m->next->text, "did you mean 't'?");
    arena_free(&r.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builds_spec),
        cmocka_unit_test(defines_override),
        cmocka_unit_test(errors_with_suggestions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
