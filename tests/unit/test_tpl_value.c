/* cmocka tests for ctemplate values: constructors, insertion-ordered maps with
 * the hash index, Python str/repr formatting and comparisons, arena reset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tpl_int.h"

static void test_map_order_and_lookup(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    tpl_value *m = tpl_map(a);
    char key[16];
    for (int i = 0; i < 100; i++) { /* crosses the 8-entry index threshold */
        snprintf(key, sizeof key, "k%d", 99 - i);
        assert_int_equal(tpl_map_set(a, m, key, tpl_int(a, i)), 0);
    }
    assert_int_equal(tpl_len(m), 100);
    assert_string_equal(m->u.map.e[0].key, "k99");
    assert_string_equal(m->u.map.e[99].key, "k0");
    assert_int_equal(tpl_int_of(tpl_map_get(m, "k42", 3)), 57);
    assert_null(tpl_map_get(m, "nope", 4));
    tpl_map_set(a, m, "k99", tpl_string(a, "re")); /* replace keeps position */
    assert_int_equal(tpl_len(m), 100);
    assert_string_equal(tpl_str_of(m->u.map.e[0].val, NULL), "re");
    assert_int_equal(tpl_list_append(a, m, tpl_null(a)), -1); /* wrong kind */
    tpl_arena_free(a);
}

static void check_str(const tpl_value *v, const char *want, int repr)
{
    tpl_buf b;
    tpl_buf_init(&b);
    repr ? tpl_repr_append(&b, v) : tpl_str_append(&b, v);
    assert_string_equal(b.data, want);
    tpl_buf_free(&b);
}

static void test_python_formatting(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    static const struct { double f; const char *s; } floats[] = {
        { 1.0, "1.0" }, { 0.1, "0.1" }, { 1e16, "1e+16" }, { 1e15, "1000000000000000.0" },
        { 1e-4, "0.0001" }, { 1e-5, "1e-05" }, { -0.0, "-0.0" }, { 1.0 / 3, "0.3333333333333333" },
        { 123456789.125, "123456789.125" }, { 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
    };
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
        check_str(tpl_float(a, floats[i].f), floats[i].s, 0);
    check_str(tpl_int(a, INT64_MIN), "-9223372036854775808", 0);
    check_str(tpl_bool(a, 1), "True", 0);
    check_str(tpl_null(a), "None", 0);
    tpl_value *l = tpl_list(a);
    tpl_list_append(a, l, tpl_string(a, "it's"));
    tpl_list_append(a, l, tpl_string(a, "q\"\n"));
    tpl_list_append(a, l, tpl_float(a, 2.5));
    check_str(l, "[\"it's\", 'q\"\\n', 2.5]", 0);
    check_str(tpl_string(a, "a'b\"c"), "'a\\'b\"c'", 1);
    char out[32];
    tpl_float32_repr(out, sizeof out, 0.1f);
    assert_string_equal(out, "0.1");
    tpl_float32_repr(out, sizeof out, 123456789.0f);
    assert_string_equal(out, "123456790.0");
    tpl_arena_free(a);
}

static void test_compare_equal(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    int c;
    assert_true(tpl_equal(tpl_int(a, 1), tpl_float(a, 1.0)));
    assert_true(tpl_equal(tpl_bool(a, 1), tpl_int(a, 1)));
    assert_false(tpl_equal(tpl_string(a, "1"), tpl_int(a, 1)));
    assert_int_equal(tpl_compare(tpl_string(a, "ab"), tpl_string(a, "b"), &c), 0);
    assert_int_equal(c, -1);
    assert_int_equal(tpl_compare(tpl_int(a, 2), tpl_float(a, 1.5), &c), 0);
    assert_int_equal(c, 1);
    assert_int_equal(tpl_compare(tpl_int(a, 2), tpl_string(a, "x"), &c), -1);
    assert_false(tpl_truthy(tpl_list(a)));
    assert_true(tpl_truthy(tpl_string(a, "0")));
    tpl_arena_free(a);
}

static void test_arena_mark_reset(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    tpl_value *keep = tpl_string(a, "kept");
    TplMark m = tpl_mark(a);
    for (int i = 0; i < 10000; i++) /* spills into new chunks */
        assert_non_null(tpl_string(a, "temporary temporary temporary"));
    size_t grown = a->total;
    tpl_reset(a, m);
    assert_true(a->total < grown);
    assert_string_equal(tpl_str_of(keep, NULL), "kept");
    assert_non_null(tpl_string(a, "after reset"));
    tpl_arena_free(a);
}

static void test_utf8(void **state)
{
    (void)state;
    assert_int_equal(tpl_utf8_len("h\xc3\xa9llo \xe2\x98\x83", 10), 7);
    assert_int_equal(tpl_space_at("\xc2\xa0x", 3), 2);
    assert_int_equal(tpl_space_at("x", 1), 0);
    assert_int_equal(tpl_space_before("ab \t\n", 5), 3);
    assert_int_equal(tpl_space_before("ab\xe3\x80\x80", 5), 3);
}

static void test_json(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    tpl_value *m = tpl_map(a), *l = tpl_list(a);
    tpl_map_set(a, m, "z", tpl_int(a, -7));
    tpl_map_set(a, m, "s", tpl_string(a, "q\"b\\\n\x01\xc3\xa9"));
    tpl_list_append(a, l, tpl_float(a, 0.1));
    tpl_list_append(a, l, tpl_float(a, 1e20));
    tpl_list_append(a, l, tpl_float(a, -INFINITY));
    tpl_list_append(a, l, tpl_float(a, NAN));
    tpl_list_append(a, l, tpl_bool(a, 1));
    tpl_list_append(a, l, tpl_null(a));
    tpl_map_set(a, m, "l", l);
    tpl_buf b;
    tpl_buf_init(&b);
    assert_int_equal(tpl_value_json(&b, m), 0);
    assert_string_equal(b.data, "{\"z\": -7, \"s\": \"q\\\"b\\\\\\u000a\\u0001\xc3\xa9\", "
                                "\"l\": [0.1, 1e+20, -Infinity, NaN, true, null]}");
    /* and back: the same value tree, so the same text */
    tpl_error err;
    tpl_value *back = tpl_value_from_json(a, b.data, b.len, &err);
    assert_non_null(back);
    tpl_buf b2;
    tpl_buf_init(&b2);
    assert_int_equal(tpl_value_json(&b2, back), 0);
    assert_string_equal(b2.data, b.data);
    tpl_buf_free(&b2);
    /* a map that contains itself is too deep, not a crash */
    tpl_map_set(a, m, "self", m);
    b.len = 0;
    assert_int_equal(tpl_value_json(&b, m), -1);
    tpl_buf_free(&b);
    tpl_arena_free(a);
}

/* JSON text typed as Python's json.load types it; errors located. */
static void test_json_read(void **state)
{
    (void)state;
    tpl_arena *a = tpl_arena_new();
    tpl_error err;
    const char *t = " {\"i\": -0, \"big\": 9223372036854775807, \"f\": 1.5e3, \"z\": -0.0, \"k\": 1, "
                    "\"k\": [true, false, null, \"\\u00e9\\ud83d\\ude00\\n\\/\"], \"inf\": -Infinity} ";
    tpl_value *v = tpl_value_from_json(a, t, strlen(t), &err);
    assert_non_null(v);
    assert_int_equal(tpl_len(v), 6); /* the repeated key keeps its first place */
    assert_int_equal(tpl_kind_of(tpl_map_get(v, "i", 1)), TPL_INT);
    assert_int_equal(tpl_int_of(tpl_map_get(v, "big", 3)), INT64_MAX);
    assert_true(tpl_kind_of(tpl_map_get(v, "f", 1)) == TPL_FLOAT && tpl_float_of(tpl_map_get(v, "f", 1)) == 1500.0);
    assert_true(signbit(tpl_float_of(tpl_map_get(v, "z", 1))));
    tpl_value *k = tpl_map_get(v, "k", 1);
    assert_int_equal(tpl_kind_of(k), TPL_LIST);
    size_t n;
    const char *str = tpl_str_of(tpl_list_get(k, 3), &n);
    assert_int_equal(n, 8);
    assert_memory_equal(str, "\xc3\xa9\xf0\x9f\x98\x80\n/", 8);
    assert_true(isinf(tpl_float_of(tpl_map_get(v, "inf", 3))));
    static const struct {
        const char *text;
        int line, col;
        const char *msg;
    } bad[] = {
        {"{\"a\": 1,}", 1, 9, "expected a string key"},
        {"[1 2]", 1, 4, "expected ',' or ']' after an array item"},
        {"{\"a\" 1}", 1, 6, "expected ':' after an object key"},
        {"9223372036854775808", 1, 1, "integer beyond the 64-bit range"},
        {"\"a\\x\"", 1, 3, "invalid escape in a string"},
        {"\"\\ud800\"", 1, 8, "high surrogate without its low surrogate in a \\u escape"},
        {"\"a\tb\"", 1, 3, "control character in a string (write it as an escape)"},
        {"{}\n  x", 2, 3, "extra data after the JSON value"},
        {"", 1, 1, "expected a JSON value"},
        {"01", 1, 2, "extra data after the JSON value"},
        {"1.", 1, 3, "expected a digit after '.'"},
        {"-", 1, 1, "expected a JSON value"},
        {"\"\xc3\xa9\" x", 1, 5, "extra data after the JSON value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_null(tpl_value_from_json(a, bad[i].text, strlen(bad[i].text), &err));
        assert_string_equal(err.message, bad[i].msg);
        assert_int_equal(err.line, bad[i].line);
        assert_int_equal(err.col, bad[i].col);
    }
    /* deep nesting is an error, not a stack overflow */
    static char deep[100001];
    memset(deep, '[', sizeof deep - 1);
    assert_null(tpl_value_from_json(a, deep, strlen(deep), &err));
    assert_string_equal(err.message, "nesting deeper than 256 levels");
    tpl_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_order_and_lookup),
        cmocka_unit_test(test_python_formatting),
        cmocka_unit_test(test_compare_equal),
        cmocka_unit_test(test_arena_mark_reset),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_json_read),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
