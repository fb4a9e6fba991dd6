/* cmocka tests for the ctemplate parser: AST shape, operator precedence and
 * syntax errors with their locations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tpl_int.h"

static TplNode *parse(tpl_arena *a, const char *src, tpl_error *err)
{
    TplTokens t = { 0 };
    if (tpl_lex(a, "t", src, strlen(src), &t, err))
        return NULL;
    return tpl_parse(a, "t", src, strlen(src), &t, err);
}

static void test_precedence(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    tpl_error err;
    TplNode *root = parse(a, "{{ 1 + 2 * 3 ~ x|f }}", &err);
    assert_non_null(root);
    TplNode *e = root->kids.v[0]->a;
    /* '+' binds loosest: 1 + ((2*3) ~ (x|f)) */
    assert_int_equal(e->kind, N_BINOP);
    assert_int_equal(e->op, TK_ADD);
    assert_int_equal(e->b->kind, N_CONCAT);
    assert_int_equal(e->b->kids.v[0]->kind, N_BINOP);
    assert_int_equal(e->b->kids.v[1]->kind, N_FILTER);
    root = parse(a, "{{ not a == b and c or d if e else f }}", &err);
    e = root->kids.v[0]->a;
    assert_int_equal(e->kind, N_COND);
    assert_int_equal(e->b->kind, N_OR);
    assert_int_equal(e->b->a->kind, N_AND);
    assert_int_equal(e->b->a->a->kind, N_NOT);
    assert_int_equal(e->b->a->a->a->kind, N_COMPARE);
    tpl_arena_free(a);
}

static void test_statements(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    tpl_error err;
    TplNode *root = parse(a, "{% for k, v in m.items() if v %}{{ k }}{% else %}-{% endfor %}"
                             "{% if a %}1{% elif b %}2{% else %}3{% endif %}"
                             "{% macro m(x, y=2) %}{% endmacro %}{% set z = 1 %}{% include 'f' %}", &err);
    assert_non_null(root);
    assert_int_equal(root->kids.n, 5);
    TplNode *f = root->kids.v[0];
    assert_int_equal(f->kind, N_FOR);
    assert_memory_equal(f->name, "k", 1);
    assert_memory_equal(f->name2, "v", 1);
    assert_non_null(f->c);
    assert_int_equal(f->kids2.n, 1);
    TplNode *i = root->kids.v[1];
    assert_int_equal(i->kind, N_IF);
    assert_int_equal(i->kids2.v[0]->kind, N_IF); /* elif nests in else */
    assert_int_equal(i->kids2.v[0]->kids2.n, 1);
    TplNode *m = root->kids.v[2];
    assert_int_equal(m->kids2.n, 2);
    assert_null(m->kids2.v[0]->a);
    assert_non_null(m->kids2.v[1]->a);
    assert_int_equal(root->kids.v[3]->kind, N_SET);
    assert_int_equal(root->kids.v[4]->kind, N_INCLUDE);
    tpl_arena_free(a);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct { const char *src, *msg; int line, col; } bad[] = {
        { "{% for x in y %}\n{% endif %}", "mismatched end tag: expected 'endfor' to close 'for' at line 1, got 'endif'", 2, 4 },
        { "\n{% if x %}", "'if' is never closed: expected 'endif' before the end of the template", 2, 4 },
        { "{{ 1 + }}", "unexpected '}}', expected an expression", 1, 8 },
        { "{% frob %}", "unknown statement 'frob'", 1, 4 },
        { "{% endfor %}", "unexpected 'endfor': no open block to close", 1, 4 },
        { "{{ (1, 2) }}", "tuples are not supported", 1, 6 },
        { "{% macro m(a=1, b) %}{% endmacro %}", "parameter without a default follows one with a default", 1, 18 },
    };
    tpl_arena *a = tpl_arena_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tpl_error err;
        assert_null(parse(a, bad[i].src, &err));
        assert_string_equal(err.message, bad[i].msg);
        assert_int_equal(err.line, bad[i].line);
        assert_int_equal(err.col, bad[i].col);
    }
    tpl_arena_free(a);
}

static void test_nesting_limit(void **state)
{
    (void)state;
    char src[2400] = "{{ ";
    for (int i = 0; i < 600; i++)
        strcat(src, "(");
    strcat(src, "1");
    for (int i = 0; i < 600; i++)
        strcat(src, ")");
    strcat(src, " }}");
    tpl_arena *a = tpl_arena_new();
    tpl_error err;
    assert_null(parse(a, src, &err));
    assert_non_null(strstr(err.message, "nested too deeply"));
    tpl_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_statements),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_nesting_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
