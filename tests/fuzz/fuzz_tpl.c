/* libFuzzer target for ctemplate: the input is a template; it is lexed,
 * parsed and rendered against a small fixed context with tight limits. The
 * same bytes are also read as a JSON context, written back and read again.
 * Any crash, leak, UB or runaway is a bug; errors are fine. */
#include <stddef.h>
#include <stdint.h>

#include "tpl.h"

static tpl_value *context(tpl_arena *a)
{
    tpl_value *m = tpl_map(a), *xs = tpl_list(a), *u = tpl_map(a);
    for (int i = 0; i < 4; i++)
        tpl_list_append(a, xs, tpl_int(a, i));
    tpl_map_set(a, u, "name", tpl_string(a, "ada"));
    tpl_map_set(a, u, "age", tpl_float(a, 36.5));
    tpl_map_set(a, m, "xs", xs);
    tpl_map_set(a, m, "u", u);
    tpl_map_set(a, m, "s", tpl_string(a, "héllo {{ world }}"));
    tpl_map_set(a, m, "n", tpl_null(a));
    tpl_map_set(a, m, "t", tpl_bool(a, 1));
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tpl_env *env = tpl_env_new();
    tpl_arena *a = tpl_arena_new();
    if (!env || !a)
        return 0;
    tpl_limits lim = { 16, 1 << 20, 20000 };
    tpl_env_set_limits(env, &lim);
    tpl_add_host_filters(env);
    tpl_env_add_path(env, "/nonexistent-tpl-fuzz-dir");
    tpl_error err;
    tpl_template *t = tpl_load_string(env, "fuzz.j2", (const char *)data, size, &err);
    if (t) {
        tpl_buf out;
        tpl_buf_init(&out);
        if (tpl_render(env, t, context(a), &out, &err)) {
            char msg[256];
            tpl_error_format(&err, msg, sizeof msg);
        }
        tpl_buf_free(&out);
    } else {
        char msg[256];
        tpl_error_format(&err, msg, sizeof msg);
    }
    /* the same bytes as a JSON context: parse, write back, parse again */
    tpl_value *j = tpl_value_from_json(a, (const char *)data, size, &err);
    if (j) {
        tpl_buf out;
        tpl_buf_init(&out);
        if (!tpl_value_json(&out, j) && !tpl_value_from_json(a, out.data ? out.data : "", out.len, &err))
            __builtin_trap(); /* what tpl_value_json writes must read back */
        tpl_buf_free(&out);
    } else {
        char msg[256];
        tpl_error_format(&err, msg, sizeof msg);
    }
    tpl_arena_free(a);
    tpl_env_free(env);
    return 0;
}
