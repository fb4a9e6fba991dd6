/* cmocka tests for the ctemplate lexer: token kinds and positions, literal
 * decoding, and Jinja's whitespace rules (trim_blocks, lstrip_blocks, -/+). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tpl_int.h"

static TplTokens lex_ok(tpl_arena *a, const char *src)
{
    TplTokens t = { 0 };
    tpl_error err;
    assert_int_equal(tpl_lex(a, "t", src, strlen(src), &t, &err), 0);
    return t;
}

static void test_kinds_and_positions(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    TplTokens t = lex_ok(a, "ab\n{{ x.y|f(1, 2.5, 'q') // 3 }}");
    TplTok want[] = { TK_TEXT, TK_VAR_BEGIN, TK_NAME, TK_DOT, TK_NAME, TK_PIPE, TK_NAME,
                      TK_LPAREN, TK_INT, TK_COMMA, TK_FLOAT, TK_COMMA, TK_STRING, TK_RPAREN,
                      TK_FLOORDIV, TK_INT, TK_VAR_END, TK_EOF };
    assert_int_equal(t.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < t.n; i++)
        assert_int_equal(t.t[i].kind, want[i]);
    assert_int_equal(t.t[2].line, 2);
    assert_int_equal(t.t[2].col, 4);
    assert_int_equal(t.t[8].i, 1);
    assert_true(t.t[10].f == 2.5);
    assert_string_equal(t.t[12].s, "q");
    tpl_arena_free(a);
}

static void test_literals(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    TplTokens t = lex_ok(a, "{{ 0x1F 0o17 0b101 1_000 1e3 'a\\tb\\u00e9' }}");
    assert_int_equal(t.t[1].i, 31);
    assert_int_equal(t.t[2].i, 15);
    assert_int_equal(t.t[3].i, 5);
    assert_int_equal(t.t[4].i, 1000);
    assert_int_equal(t.t[5].kind, TK_FLOAT);
    assert_true(t.t[5].f == 1000.0);
    assert_string_equal(t.t[6].s, "a\tb\xc3\xa9");
    tpl_arena_free(a);
}

static void test_whitespace_rules(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    /* lstrip removes the indentation, trim_blocks the newline after %} */
    TplTokens t = lex_ok(a, "x\n   {% if %}\ny");
    assert_int_equal(t.t[0].kind, TK_TEXT);
    assert_int_equal(t.t[0].n, 2); /* "x\n" */
    assert_int_equal(t.t[4].kind, TK_TEXT);
    assert_memory_equal(t.t[4].s, "y", 1);
    /* '-' strips all whitespace, '+' keeps the indentation */
    t = lex_ok(a, "a \n {{- 1 -}} \n b");
    assert_int_equal(t.t[0].n, 1);
    assert_memory_equal(t.t[4].s, "b", 1);
    t = lex_ok(a, "  {%+ x %}");
    assert_int_equal(t.t[0].n, 2);
    /* variables are never lstripped */
    t = lex_ok(a, "  {{ x }}\n");
    assert_int_equal(t.t[0].n, 2);
    assert_int_equal(t.t[4].n, 1);
    tpl_arena_free(a);
}

static void test_raw_comment_braces(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    TplTokens t = lex_ok(a, "{ } {# c #}{% raw %}{{ x }}{% endraw %}}");
    assert_int_equal(t.t[0].kind, TK_TEXT);
    assert_memory_equal(t.t[0].s, "{ } ", 4);
    assert_int_equal(t.t[1].kind, TK_TEXT);
    assert_int_equal(t.t[1].n, 7);
    assert_memory_equal(t.t[1].s, "{{ x }}", 7);
    assert_memory_equal(t.t[2].s, "}", 1);
    assert_int_equal(t.t[3].kind, TK_EOF);
    tpl_arena_free(a);
}

static void test_errors(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "{{ x", "unclosed tag: expected '}}'" },
        { "{# x", "unclosed comment: expected '#}'" },
        { "{{ 'abc }}", "unterminated string" },
        { "{{ ) }}", "unexpected ')'" },
        { "{{ $ }}", "unexpected char '$'" },
        { "{% raw %} x", "missing end of raw directive" },
    };
    tpl_arena *a = tpl_arena_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        TplTokens t = { 0 };
        tpl_error err;
        assert_int_equal(tpl_lex(a, "t", bad[i][0], strlen(bad[i][0]), &t, &err), -1);
        assert_string_equal(err.message, bad[i][1]);
        assert_int_equal(err.line, 1);
    }
    tpl_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_and_positions),
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_whitespace_rules),
        cmocka_unit_test(test_raw_comment_braces),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
