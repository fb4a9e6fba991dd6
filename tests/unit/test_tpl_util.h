/* Shared helper for the ctemplate cmocka tests: render a template string. */
#ifndef TEST_TPL_UTIL_H
#define TEST_TPL_UTIL_H

#include <string.h>

#include "tpl.h"

/* Render src with ctx; returns 0 and the output in *out (caller frees with
 * tpl_buf_free), or -1 with err filled. */
static inline int render_str(const char *src, const tpl_value *ctx, tpl_buf *out, tpl_error *err)
{
    tpl_env *env = tpl_env_new();
    tpl_add_host_filters(env);
    tpl_buf_init(out);
    tpl_template *t = tpl_load_string(env, "t.j2", src, strlen(src), err);
    int rc = t ? tpl_render(env, t, ctx, out, err) : -1;
    tpl_env_free(env);
    return rc;
}

#endif
