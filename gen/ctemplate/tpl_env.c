/* ctemplate environment: the include search path, host filters, limits and
 * the cache of loaded templates (read, newline-normalized, lexed, parsed);
 * plus error construction and the `file:line:col: error:` formatting. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpl_int.h"

#define TPL_MAX_TEMPLATE_BYTES ((size_t)64 << 20)

tpl_env *tpl_env_new(void)
{
    tpl_env *env = calloc(1, sizeof *env);
    if (!env)
        return NULL;
    env->arena = tpl_arena_new();
    if (!env->arena) {
        free(env);
        return NULL;
    }
    env->lim.max_depth = 64;
    env->lim.max_output = (size_t)256 << 20;
    env->lim.max_iterations = 50000000;
    return env;
}

void tpl_env_free(tpl_env *env)
{
    if (!env)
        return;
    tpl_arena_free(env->arena);
    free(env->paths);
    free(env->filters);
    free(env);
}

int tpl_env_add_path(tpl_env *env, const char *dir)
{
    char **np = realloc(env->paths, (env->npaths + 1) * sizeof *np);
    if (!np)
        return -1;
    env->paths = np;
    if (!(np[env->npaths] = tpl_strndup(env->arena, dir, strlen(dir))))
        return -1;
    env->npaths++;
    return 0;
}

void tpl_env_set_limits(tpl_env *env, const tpl_limits *lim)
{
    env->lim = *lim;
    if (env->lim.max_depth <= 0)
        env->lim.max_depth = 1;
}

int tpl_env_add_filter(tpl_env *env, const char *name, tpl_filter_fn fn)
{
    for (size_t i = 0; i < env->nfilters; i++)
        if (!strcmp(env->filters[i].name, name)) {
            env->filters[i].fn = fn;
            return 0;
        }
    TplFilter *nf = realloc(env->filters, (env->nfilters + 1) * sizeof *nf);
    if (!nf)
        return -1;
    env->filters = nf;
    if (!(nf[env->nfilters].name = tpl_strndup(env->arena, name, strlen(name))))
        return -1;
    nf[env->nfilters++].fn = fn;
    return 0;
}

/* ---- errors ------------------------------------------------------------------ */
void tpl_error_setv(tpl_error *err, const char *file, const char *src, size_t len,
                    int line, int col, const char *fmt, va_list ap)
{
    memset(err, 0, sizeof *err);
    snprintf(err->file, sizeof err->file, "%s", file ? file : "<template>");
    err->line = line;
    err->col = col;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    if (!src || line <= 0)
        return;
    const char *p = src, *e = src + len;
    for (int l = 1; l < line && p < e; p++)
        if (*p == '\n')
            l++;
    const char *q = p;
    while (q < e && *q != '\n')
        q++;
    size_t n = (size_t)(q - p);
    if (n >= sizeof err->source) { /* cut on a character boundary */
        n = sizeof err->source - 1;
        while (n > 0 && ((unsigned char)p[n] & 0xc0) == 0x80)
            n--;
    }
    memcpy(err->source, p, n);
    err->source[n] = 0;
}

void tpl_error_set(tpl_error *err, const char *file, const char *src, size_t len, int line,
                   int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tpl_error_setv(err, file, src, len, line, col, fmt, ap);
    va_end(ap);
}

size_t tpl_error_format(const tpl_error *e, char *out, size_t outlen)
{
    tpl_buf b;
    tpl_buf_init(&b);
    if (e->line > 0)
        tpl_buf_printf(&b, "%s:%d:%d: error: %s\n", e->file, e->line, e->col, e->message);
    else
        tpl_buf_printf(&b, "%s: error: %s\n", e->file, e->message);
    if (e->line > 0) {
        tpl_buf_put(&b, e->source, strlen(e->source));
        tpl_buf_put(&b, "\n", 1);
        /* caret under column col: keep tabs, one space per other character */
        const char *p = e->source;
        for (int c = 1; c < e->col && *p; c++) {
            tpl_buf_put(&b, *p == '\t' ? "\t" : " ", 1);
            p++;
            while (((unsigned char)*p & 0xc0) == 0x80)
                p++;
        }
        tpl_buf_put(&b, "^\n", 2);
    }
    tpl_buf_put(&b, e->chain, strlen(e->chain));
    size_t need = b.len;
    if (outlen) {
        size_t n = need < outlen - 1 ? need : outlen - 1;
        if (n)
            memcpy(out, b.data, n);
        out[n] = 0;
    }
    tpl_buf_free(&b);
    return need;
}

/* ---- loading ----------------------------------------------------------------- */
/* Unknown filters and tests are load-time errors (as in Jinja's compiler). */
static int check_names(tpl_env *env, tpl_template *t, const TplNode *n, tpl_error *err)
{
    if (!n)
        return 0;
    if (n->kind == N_FILTER || n->kind == N_TEST) {
        int ok = tpl_builtin_exists(n->name, n->namelen, n->kind == N_TEST);
        for (size_t i = 0; !ok && n->kind == N_FILTER && i < env->nfilters; i++)
            ok = strlen(env->filters[i].name) == n->namelen &&
                 !memcmp(env->filters[i].name, n->name, n->namelen);
        if (!ok) {
            tpl_error_set(err, t->name, t->src, t->len, n->line, n->col, "no %s named '%.*s'",
                          n->kind == N_TEST ? "test" : "filter", (int)n->namelen, n->name);
            return -1;
        }
    }
    if (check_names(env, t, n->a, err) || check_names(env, t, n->b, err) ||
        check_names(env, t, n->c, err))
        return -1;
    for (size_t i = 0; i < n->kids.n; i++)
        if (check_names(env, t, n->kids.v[i], err))
            return -1;
    for (size_t i = 0; i < n->kids2.n; i++)
        if (check_names(env, t, n->kids2.v[i], err))
            return -1;
    return 0;
}

static tpl_template *find_loaded(tpl_env *env, const char *name)
{
    for (tpl_template *t = env->templates; t; t = t->next)
        if (!strcmp(t->name, name))
            return t;
    return NULL;
}

tpl_template *tpl_load_string(tpl_env *env, const char *name, const char *src, size_t len,
                              tpl_error *err)
{
    memset(err, 0, sizeof *err);
    tpl_template *t = tpl_alloc(env->arena, sizeof *t);
    char *norm = tpl_alloc(env->arena, len + 1);
    char *nm = tpl_strndup(env->arena, name, strlen(name));
    if (!t || !norm || !nm) {
        tpl_error_set(err, name, NULL, 0, 0, 0, "out of memory");
        return NULL;
    }
    /* Jinja normalizes \r\n and \r to \n before lexing */
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (src[i] == '\r') {
            norm[n++] = '\n';
            if (i + 1 < len && src[i + 1] == '\n')
                i++;
        } else {
            norm[n++] = src[i];
        }
    }
    norm[n] = 0;
    TplTokens toks = { 0 };
    if (tpl_lex(env->arena, nm, norm, n, &toks, err))
        return NULL;
    TplNode *body = tpl_parse(env->arena, nm, norm, n, &toks, err);
    if (!body)
        return NULL;
    *t = (tpl_template){ nm, norm, n, body, env->templates };
    if (check_names(env, t, body, err))
        return NULL;
    env->templates = t;
    return t;
}

/* Read a whole file; NULL with errno set on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= TPL_MAX_TEMPLATE_BYTES) {
                free(buf);
                fclose(f);
                errno = EFBIG;
                return NULL;
            }
            cap = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

tpl_template *tpl_load_file(tpl_env *env, const char *name, tpl_error *err)
{
    memset(err, 0, sizeof *err);
    tpl_template *t = find_loaded(env, name);
    if (t)
        return t;
    char path[4096];
    char *src = NULL;
    size_t len = 0;
    int err_no = ENOENT;
    for (size_t i = 0; i < env->npaths && !src; i++) {
        if (snprintf(path, sizeof path, "%s/%s", env->paths[i], name) >= (int)sizeof path)
            continue;
        src = read_file(path, &len);
        if (!src && errno != ENOENT)
            err_no = errno;
    }
    if (!src && (strchr(name, '/') || !env->npaths)) {
        src = read_file(name, &len);
        if (!src && errno != ENOENT)
            err_no = errno;
    }
    if (!src) {
        if (err_no == ENOENT)
            tpl_error_set(err, name, NULL, 0, 0, 0, "template '%s' not found", name);
        else
            tpl_error_set(err, name, NULL, 0, 0, 0, "cannot read template '%s': %s", name,
                          strerror(err_no));
        return NULL;
    }
    t = tpl_load_string(env, name, src, len, err);
    free(src);
    return t;
}
