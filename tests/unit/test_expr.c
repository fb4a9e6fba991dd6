/* test_expr.c - expression lexer, parser and evaluator: precedence, floor
 * division, min/max, overflow, error columns, regions, predicates, affine,
 * number fields in floating point. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "expr.h"

static int64_t eval_str(const char *s)
{
    Arena a;
    arena_init(&a);
    ExprError err;
    Expr *e = expr_parse_int(&a, NULL, s, &err);
    assert_non_null(e);
    int64_t v = 0;
    assert_int_equal(expr_eval(e, NULL, &v, &err), 0);
    arena_free(&a);
    return v;
}

static void arithmetic(void **state)
{
    (void)state;
    assert_int_equal(eval_str("1 + 2 * 3"), 7);
    assert_int_equal(eval_str("(1 + 2) * 3"), 9);
    assert_int_equal(eval_str("10 - 4 - 3"), 3);
    assert_int_equal(eval_str("-7 / 2"), -4);  /* floor */
    assert_int_equal(eval_str("-7 % 2"), 1);   /* floor */
    assert_int_equal(eval_str("7 % -2"), -1);
    assert_int_equal(eval_str("min(300, 2*128+128) - 256"), 44);
    assert_int_equal(eval_str("max(1, -(3))"), 1);
    assert_int_equal(eval_str("--5"), 5);
}

static void errors_located(void **state)
{
    (void)state;
    static const struct {
        const char *s, *code;
        int col;
    } cases[] = {
        {"1 +", "E009", 4},     {"1 $ 2", "E009", 3},  {"(1", "E009", 3},
        {"2.5", "E009", 1},     {"min(1)", "E009", 6}, {"99999999999999999999", "E018", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Arena a;
        arena_init(&a);
        ExprError err;
        assert_null(expr_parse_int(&a, NULL, cases[i].s, &err));
        assert_string_equal(err.code, cases[i].code);
        assert_int_equal(err.loc.col, cases[i].col);
        arena_free(&a);
    }
}

static void overflow_and_zero(void **state)
{
    (void)state;
    static const char *const bad[] = {"9223372036854775807 + 1", "4611686018427387904 * 2", "1 / 0", "5 % (2 - 2)",
                                      "-9223372036854775807 - 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Arena a;
        arena_init(&a);
        ExprError err;
        Expr *e = expr_parse_int(&a, NULL, bad[i], &err);
        assert_non_null(e);
        int64_t v;
        assert_int_equal(expr_eval(e, NULL, &v, &err), -1);
        assert_string_equal(err.code, "E018");
        arena_free(&a);
    }
}

static void numbers(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    ExprError err;
    Expr *e = expr_parse_number(&a, NULL, "-inf", &err);
    assert_non_null(e);
    assert_int_equal(e->kind, EXPR_FLOAT);
    assert_true(isinf(e->fval) && e->fval < 0);
    e = expr_parse_number(&a, NULL, "1e-6", &err);
    assert_non_null(e);
    assert_true(e->fval == 1e-6);
    arena_free(&a);
}

/* A number field's value (expr_eval_float) with loop variable slot 2 = i. */
static double eval_num(const char *s, int64_t i, const char **code)
{
    Arena a;
    arena_init(&a);
    ExprError err;
    Expr *e = expr_parse_number(&a, NULL, s, &err);
    assert_non_null(e);
    Expr *stack[64];
    int n = 0;
    stack[n++] = e;
    while (n) { /* the name i is loop variable slot EXPR_VAR_FIRST */
        Expr *x = stack[--n];
        if (x->kind == EXPR_NAME && !strcmp(x->name, "i")) {
            x->kind = EXPR_VAR;
            x->ival = EXPR_VAR_FIRST;
        }
        if (x->a)
            stack[n++] = x->a;
        if (x->b)
            stack[n++] = x->b;
    }
    int64_t env[3] = {0, 0, i};
    double v = -12345.0;
    int rc = expr_eval_float(e, env, &v, &err);
    *code = rc ? err.code : NULL;
    arena_free(&a);
    return v;
}

static void numbers_in_floating_point(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int64_t i;
        double want;
    } ok[] = {
        {"1/100", 0, (float)0.01},      /* true division, one fp32 rounding */
        {"1/3", 0, (float)(1.0 / 3)},   {"7 / 2", 0, 3.5},
        {"-7 % 2", 0, 1.0},             {"7.5 % -2", 0, -0.5}, /* floored remainder */
        {"1.5 * 2", 0, 3.0},            {"min(1/3, 0.25)", 0, 0.25},
        {"max(-inf, 2)", 0, 2.0},       {"2 * -inf", 0, -INFINITY},
        {"16777217", 0, 16777216.0},    /* 2^24 + 1 rounds to even in fp32 */
        {"0.1 + 0.2", 0, (float)(0.1 + 0.2)},
        {"1 / (i + 1)", 3, 0.25},       {"i / 8 - 0.5", 5, 0.125},
        {"9007199254740992", 0, 9007199254740992.0}, /* 2^53 converts exactly */
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        const char *code;
        double v = eval_num(ok[k].s, ok[k].i, &code);
        assert_null(code);
        assert_true((float)v == (float)ok[k].want); /* the one rounding, where the value is used */
    }
    static const char *const bad[] = {"1/0", "1 % (2 - 2)", "1e39", "inf - inf", "9007199254740993", "1/(i - 2)"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *code;
        eval_num(bad[k], 2, &code);
        assert_non_null(code);
        assert_string_equal(code, "E018");
    }
}

static void regions_and_preds(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    ExprError err;
    ExprRegion r;
    assert_true(expr_parse_region(&a, NULL, "t[a:b, c:d:2, e, :]", &r, &err));
    assert_string_equal(r.name, "t");
    assert_int_equal(r.nslices, 4);
    assert_non_null(r.slice[1].step);
    assert_true(r.slice[2].is_index);
    assert_null(r.slice[3].start);
    assert_null(r.slice[3].stop);
    assert_true(expr_parse_region(&a, NULL, "xt", &r, &err));
    assert_false(r.bracketed);
    assert_false(expr_parse_region(&a, NULL, "t[1:2", &r, &err));
    assert_int_equal(err.loc.col, 6);
    ExprPred p;
    assert_true(expr_parse_pred(&a, NULL, "i*128 + p >= f", &p, &err));
    assert_int_equal(p.cmp, EXPR_CMP_GE);
    assert_false(expr_parse_pred(&a, NULL, "i + p", &p, &err));
    arena_free(&a);
}

static void affine(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    ExprError err;
    Expr *e = expr_parse_int(&a, NULL, "3*(i + 2) - 4*j", &err);
    assert_non_null(e);
    /* resolve by hand: i -> slot 2, j -> slot 3 */
    e->a->b->a->kind = EXPR_VAR;
    e->a->b->a->ival = 2;
    e->b->b->kind = EXPR_VAR;
    e->b->b->ival = 3;
    int64_t coef[4], c;
    assert_true(expr_affine(e, 4, coef, &c));
    assert_int_equal(c, 6);
    assert_int_equal(coef[2], 3);
    assert_int_equal(coef[3], -4);
    int64_t env[4] = {0, 0, 5, 1}, v;
    assert_int_equal(expr_eval(e, env, &v, &err), 0);
    assert_int_equal(v, 17);
    Expr *m = expr_parse_int(&a, NULL, "min(i, 3)", &err);
    m->a->kind = EXPR_VAR;
    m->a->ival = 2;
    assert_false(expr_affine(m, 4, coef, &c));
    arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arithmetic), cmocka_unit_test(errors_located), cmocka_unit_test(overflow_and_zero),
        cmocka_unit_test(numbers),    cmocka_unit_test(regions_and_preds), cmocka_unit_test(affine),
        cmocka_unit_test(numbers_in_floating_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
