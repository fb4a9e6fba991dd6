/* cmocka tests for ctemplate filters and tests, including the host filters
 * (c_ident, hex, c_float) and user-registered filters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tpl.h"
#include "test_tpl_util.h"

static void expect_out(const char *src, const char *want)
{
    tpl_buf out;
    tpl_error err;
    if (render_str(src, NULL, &out, &err))
        fail_msg("render of %s failed: %s", src, err.message);
    assert_string_equal(out.len ? out.data : "", want);
    tpl_buf_free(&out);
}

static void test_string_filters(void **state)
{
    (void)state;
    expect_out("{{ 'hELLo wOrld'|title }}|{{ 'ab'|upper }}|{{ 'ÀÉ'|lower }}", "Hello World|AB|àé");
    expect_out("{{ '  x  '|trim }}|{{ 'aXbXc'|replace('X', '-', 1) }}|{{ 'héllo'|length }}", "x|a-bXc|5");
    expect_out("{{ 'a\nb'|indent(2) }}|{{ 'a\n\nb'|indent(1, true, true) }}", "a\n  b| a\n \n b");
    expect_out("{{ '%-4s|%04d|%.2f|%x'|format('ab', 7, 2.345, 255) }}", "ab  |0007|2.35|ff");
}

static void test_sequence_filters(void **state)
{
    (void)state;
    expect_out("{{ [3, 1, 2]|sort|list }} {{ ['b', 'A']|sort|first }} {{ [1, 2]|last }}", "[1, 2, 3] A 2");
    expect_out("{{ [{'n': 2}, {'n': 1}]|sort(attribute='n')|map(attribute='n')|join(',') }}", "1,2");
    expect_out("{{ [1, 2, 3, 4]|select('even')|list }} {{ [none, 1]|reject('none')|list }}", "[2, 4] [1]");
    expect_out("{{ 'ab'|list }} {{ '7'|int + 1 }} {{ 'x'|int(3) }} {{ 2|string ~ 'x' }}", "['a', 'b'] 8 3 2x");
    expect_out("{{ undefined_thing|default('d') }} {{ none|default('d') }} {{ ''|default('e', true) }}", "d None e");
}

static void test_tests(void **state)
{
    (void)state;
    expect_out("{{ x is defined }} {{ none is none }} {{ 6 is divisibleby 3 }} {{ 1 is not string }}",
               "False True True True");
}

static void test_host_filters(void **state)
{
    (void)state;
    expect_out("{{ '9 lives-x'|c_ident }} {{ 'int'|c_ident }} {{ ''|c_ident }}", "_9_lives_x int_ _");
    expect_out("{{ 255|hex }} {{ 255|hex(4) }} {{ -16|hex }}", "0xff 0x00ff -0x10");
    expect_out("{{ 0.1|c_float }} {{ 1|c_float }} {{ 1e20|c_float }} {{ -0.0|c_float }}",
               "0.1f 1.0f 1e+20f -0.0f");
    tpl_buf out;
    tpl_error err;
    assert_int_equal(render_str("{{ 1e300|c_float }}", NULL, &out, &err), -1);
    assert_string_equal(err.message, "c_float: 1e+300 is out of float32 range");
    tpl_buf_free(&out);
}

static tpl_value *twice(tpl_call *call, tpl_value *in, const tpl_args *args)
{
    tpl_value *k = tpl_arg(args, 0, "times");
    if (tpl_kind_of(in) != TPL_INT) {
        tpl_call_fail(call, "twice wants an int");
        return NULL;
    }
    return tpl_int(tpl_call_arena(call), tpl_int_of(in) * (k ? tpl_int_of(k) : 2));
}

static void test_user_filter(void **state)
{
    (void)state;
    tpl_env *env = tpl_env_new();
    assert_int_equal(tpl_env_add_filter(env, "twice", twice), 0);
    tpl_error err;
    const char *src = "{{ 4|twice }} {{ 4|twice(times=3) }} {{ 'x'|twice }}";
    tpl_template *t = tpl_load_string(env, "u.j2", src, strlen(src), &err);
    assert_non_null(t);
    tpl_buf out;
    tpl_buf_init(&out);
    assert_int_equal(tpl_render(env, t, NULL, &out, &err), -1);
    assert_string_equal(out.data, "8 12 ");
    assert_string_equal(err.message, "twice wants an int");
    assert_int_equal(err.col, 45);
    tpl_buf_free(&out);
    const char *bad = "{% if 0 %}{{ 1|nosuch }}{% endif %}";
    assert_null(tpl_load_string(env, "b.j2", bad, strlen(bad), &err));
    assert_string_equal(err.message, "no filter named 'nosuch'");
    tpl_env_free(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_filters),
        cmocka_unit_test(test_sequence_filters),
        cmocka_unit_test(test_tests),
        cmocka_unit_test(test_host_filters),
        cmocka_unit_test(test_user_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
