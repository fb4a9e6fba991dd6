/* cmocka tests for the ctemplate evaluator through the public API: scoping,
 * macros, includes from memory, limits as errors, error formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tpl.h"
#include "test_tpl_util.h"

static void expect_out(const char *src, const tpl_value *ctx, const char *want)
{
    tpl_buf out;
    tpl_error err;
    int rc = render_str(src, ctx, &out, &err);
    if (rc)
        fail_msg("render failed: %s", err.message);
    assert_string_equal(out.len ? out.data : "", want);
    tpl_buf_free(&out);
}

static void expect_err(const char *src, const tpl_value *ctx, const char *msg, int line, int col)
{
    tpl_buf out;
    tpl_error err;
    assert_int_equal(render_str(src, ctx, &out, &err), -1);
    assert_string_equal(err.message, msg);
    assert_int_equal(err.line, line);
    assert_int_equal(err.col, col);
    tpl_buf_free(&out);
}

static void test_scoping(void **state)
{
    (void)state;
    expect_out("{% set x = 1 %}{% for i in [5] %}{% set x = i %}{{ x }}{% endfor %}{{ x }}", NULL, "51");
    expect_out("{% if 1 %}{% set y = 2 %}{% endif %}{{ y }}", NULL, "2");
    expect_out("{% macro f(a, b=a * 2) %}{{ a }},{{ b }}{% endmacro %}{{ f(3) }} {{ f(b=1, a=0) }}", NULL, "3,6 0,1");
}

static void test_context(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    tpl_value *ctx = tpl_map(a), *xs = tpl_list(a);
    tpl_list_append(a, xs, tpl_string(a, "b"));
    tpl_list_append(a, xs, tpl_string(a, "a"));
    tpl_map_set(a, ctx, "xs", xs);
    tpl_map_set(a, ctx, "n", tpl_int(a, -7));
    expect_out("{{ xs|sort|join('+') }} {{ n // 2 }} {{ n % 3 }} {{ n|hex }}", ctx, "a+b -4 2 -0x7");
    tpl_arena_free(a);
}

static void test_limits(void **state)
{
    (void)state;
    expect_err("{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}", NULL,
               "recursion too deep (limit 64 macro/include levels)", 1, 19);
    expect_err("{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
               NULL, "loop iteration limit of 50000000 exceeded", 1, 31);
    expect_err("{{ 'ab' * 1000000000000 }}", NULL,
               "result of '*' exceeds the size limit of 268435456 bytes", 1, 9);
    expect_err("{{ 9223372036854775807 + 1 }}", NULL, "integer overflow in '+' (64-bit integers)", 1, 24);
}

static void test_custom_limits_and_format(void **state)
{
    (void)state;
    tpl_env *env = tpl_env_new();
    tpl_limits lim = { 4, 10, 100 };
    tpl_env_set_limits(env, &lim);
    tpl_error err;
    const char *src = "a\n  {{ 'x' * 20 }}\n";
    tpl_template *t = tpl_load_string(env, "lim.j2", src, strlen(src), &err);
    assert_non_null(t);
    tpl_buf out;
    tpl_buf_init(&out);
    assert_int_equal(tpl_render(env, t, NULL, &out, &err), -1);
    char msg[512];
    size_t need = tpl_error_format(&err, msg, sizeof msg);
    assert_string_equal(msg, "lim.j2:2:10: error: result of '*' exceeds the size limit of 10 bytes\n"
                             "  {{ 'x' * 20 }}\n"
                             "         ^\n");
    assert_int_equal(need, strlen(msg));
    tpl_buf_free(&out);
    tpl_env_free(env);
}

static void test_include_chain(void **state)
{
    (void)state;
    tpl_env *env = tpl_env_new();
    tpl_error err;
    const char *inc = "{% macro bad() %}{{ nope }}{% endmacro %}{{ bad() }}";
    /* in-memory templates are found by name before the search path */
    assert_non_null(tpl_load_string(env, "inc.j2", inc, strlen(inc), &err));
    const char *top = "a\n{% include 'inc.j2' %}";
    tpl_template *t = tpl_load_string(env, "top.j2", top, strlen(top), &err);
    tpl_buf out;
    tpl_buf_init(&out);
    assert_int_equal(tpl_render(env, t, NULL, &out, &err), -1);
    assert_string_equal(err.file, "inc.j2");
    assert_string_equal(err.message, "'nope' is undefined");
    assert_string_equal(err.chain, "  in macro 'bad' at inc.j2:1:45\n  in include 'inc.j2' at top.j2:2:4\n");
    tpl_buf_free(&out);
    tpl_env_free(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scoping),
        cmocka_unit_test(test_context),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_custom_limits_and_format),
        cmocka_unit_test(test_include_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
