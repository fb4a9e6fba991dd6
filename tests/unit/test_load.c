/* test_load.c - the YAML loader: locations of nodes, rejected YAML features,
 * syntax errors located, depth limit, garbage input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "front_test.h"

static void node_locations(void **state)
{
    (void)state;
    FrontRun r;
    front_run(&r, "a: 1\nb:\n  - x\n  - {c: \"q[0:1]\"}\n", 1);
    assert_non_null(r.root);
    assert_int_equal(r.root->kind, SPEC_NODE_MAP);
    assert_int_equal(r.root->n, 2);
    const SpecNode *b = spec_map_get(r.root, "b");
    assert_non_null(b);
    assert_int_equal(b->kind, SPEC_NODE_SEQ);
    assert_int_equal(b->items[1]->loc.line, 4);
    assert_int_equal(b->items[1]->loc.col, 5);
    const SpecNode *c = spec_map_get(b->items[1], "c");
    assert_string_equal(c->text, "q[0:1]");
    /* offset 2 of the quoted string is column 9 + 1 (quote) + 2 */
    SrcLoc l = spec_loc_at(c, 2);
    assert_int_equal(l.line, 4);
    assert_int_equal(l.col, 12);
    arena_free(&r.arena);
}

static void rejects(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *code;
        int line, col;
    } cases[] = {
        {"a: 1\na: 2\n", "E002", 2, 1},
        {"a: &x 1\n", "E003", 1, 4},
        {"a: 1\nb: *x\n", "E003", 2, 4},
        {"a: !!int 1\n", "E004", 1, 4},
        {"a: 1\n---\nb: 2\n", "E005", 2, 1},
        {"a: [1\n", "E001", 2, 1},
        {"", "E007", 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FrontRun r;
        front_run(&r, cases[i].yaml, 1);
        const DiagMsg *m = front_first_error(&r);
        assert_non_null(m);
        assert_string_equal(m->code, cases[i].code);
        assert_int_equal(m->loc.line, cases[i].line);
        assert_int_equal(m->loc.col, cases[i].col);
        arena_free(&r.arena);
    }
}

static void deep_nesting_bounded(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *s = malloc(2 * n + 8);
    assert_non_null(s);
    memcpy(s, "a: ", 3);
    memset(s + 3, '[', n);
    memset(s + 3 + n, ']', n);
    s[3 + 2 * n] = '\0';
    FrontRun r;
    front_run(&r, s, 1);
    assert_null(r.root);
    assert_string_equal(front_first_code(&r), "E006");
    /* the root mapping is level 1: the 64th '[' (column 3 + 64) is one too many */
    assert_int_equal(front_first_error(&r)->loc.col, 3 + SPEC_MAX_DEPTH);
    arena_free(&r.arena);
    free(s);
}

static void garbage(void **state)
{
    (void)state;
    char buf[512];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof buf - 1; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (char)(x >> 16);
    }
    buf[sizeof buf - 1] = '\0';
    FrontRun r;
    front_run(&r, buf, 3);
    assert_true(r.diag.nerrors > 0);
    assert_true(front_first_error(&r)->loc.line >= 1);
    arena_free(&r.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_locations),
        cmocka_unit_test(rejects),
        cmocka_unit_test(deep_nesting_bounded),
        cmocka_unit_test(garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
