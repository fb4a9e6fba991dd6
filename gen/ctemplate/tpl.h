/* ctemplate public API: a small Jinja-subset template engine in C11.
 * Build a value tree in an arena, load templates through an environment (search
 * path + host filters), render to a growable buffer. Nothing here prints, exits
 * or aborts on bad input: every call returns a status and fills a tpl_error. */
#ifndef TPL_H
#define TPL_H

#include <stddef.h>
#include <stdint.h>

/* ---- arena: owns every value built with it; freed in one call ---------- */
typedef struct tpl_arena tpl_arena;
tpl_arena *tpl_arena_new(void);
void tpl_arena_free(tpl_arena *a);

/* ---- values -------------------------------------------------------------- */
typedef enum tpl_kind {
    TPL_NULL,   /* Python None */
    TPL_BOOL,   /* True / False */
    TPL_INT,    /* 64-bit signed integer */
    TPL_FLOAT,  /* IEEE double */
    TPL_STRING, /* UTF-8 bytes, NUL-terminated, explicit length */
    TPL_LIST,   /* ordered sequence */
    TPL_MAP,    /* insertion-ordered string-keyed map */
    TPL_CALLABLE /* macro, bound method or global function (template-side only) */
} tpl_kind;

typedef struct tpl_value tpl_value;

/* Constructors return NULL only when memory runs out. */
tpl_value *tpl_null(tpl_arena *a);
tpl_value *tpl_bool(tpl_arena *a, int b);
tpl_value *tpl_int(tpl_arena *a, int64_t i);
tpl_value *tpl_float(tpl_arena *a, double f);
tpl_value *tpl_string(tpl_arena *a, const char *s);            /* copies */
tpl_value *tpl_string_n(tpl_arena *a, const char *s, size_t n); /* copies */
tpl_value *tpl_list(tpl_arena *a);
tpl_value *tpl_map(tpl_arena *a);
/* Append / insert-or-replace; return 0 on success, -1 on OOM or wrong kind. */
int tpl_list_append(tpl_arena *a, tpl_value *list, tpl_value *item);
int tpl_map_set(tpl_arena *a, tpl_value *map, const char *key, tpl_value *val);
int tpl_map_set_n(tpl_arena *a, tpl_value *map, const char *key, size_t klen,
                  tpl_value *val);

/* Accessors (for host filters). */
tpl_kind tpl_kind_of(const tpl_value *v);
int64_t tpl_int_of(const tpl_value *v);        /* INT or BOOL */
double tpl_float_of(const tpl_value *v);       /* FLOAT, INT or BOOL */
const char *tpl_str_of(const tpl_value *v, size_t *len); /* STRING only, else NULL */
size_t tpl_len(const tpl_value *v);            /* list/map entries, string bytes */
tpl_value *tpl_list_get(const tpl_value *list, size_t i);
tpl_value *tpl_map_get(const tpl_value *map, const char *key, size_t klen);

/* ---- output buffer ------------------------------------------------------- */
typedef struct tpl_buf {
    char *data;  /* malloc'd bytes, NUL-terminated when len > 0 */
    size_t len;  /* bytes used */
    size_t cap;  /* bytes allocated */
    size_t max;  /* hard cap on len (0 = unlimited); overflow sets `over` */
    int over;    /* set when a write would exceed max or memory ran out */
} tpl_buf;
void tpl_buf_init(tpl_buf *b);
void tpl_buf_free(tpl_buf *b);
void tpl_buf_put(tpl_buf *b, const char *s, size_t n);

/* The value as JSON (maps keep their order; non-finite floats are written
 * NaN / Infinity / -Infinity, as Python's json.dumps writes them and
 * tpl_value_from_json and json.load read them).
 * Appends to b; -1 for a callable, nesting deeper than TPL_JSON_MAX_DEPTH or
 * an output overflow. */
enum { TPL_JSON_MAX_DEPTH = 256 };
int tpl_value_json(tpl_buf *b, const tpl_value *v);

/* ---- errors -------------------------------------------------------------- */
typedef struct tpl_error {
    char file[256];     /* template name the error is located in */
    int line;           /* 1-based line (0 = no location) */
    int col;            /* 1-based column in characters */
    char message[512];  /* what went wrong */
    char source[512];   /* the template line at `line` (no newline) */
    char chain[1024];   /* "  in macro 'm' called at f:l:c\n" lines, innermost first */
} tpl_error;
/* Format as "file:line:col: error: message\n<line>\n<caret>\n" + chain.
 * Returns the number of bytes the full text needs (like snprintf). */
size_t tpl_error_format(const tpl_error *e, char *out, size_t outlen);

/* JSON text -> value, typed as Python's json.load types it (tpl_json.c):
 * objects → maps in key order (a repeated key: first place, last value),
 * integers → TPL_INT (error beyond 64 bits), other numbers and NaN /
 * Infinity / -Infinity → TPL_FLOAT, strings → UTF-8. NULL with *err filled
 * (line, col, message, source; the caller sets file) on a syntax error,
 * nesting deeper than TPL_JSON_MAX_DEPTH or out of memory. */
tpl_value *tpl_value_from_json(tpl_arena *a, const char *text, size_t len, tpl_error *err);

/* ---- environment and templates ------------------------------------------- */
typedef struct tpl_env tpl_env;
typedef struct tpl_template tpl_template;

/* Limits: exceeding one is a render error, never a crash. */
typedef struct tpl_limits {
    int max_depth;            /* macro + include nesting (default 100) */
    size_t max_output;        /* bytes of output and of any one string (default 256 MiB) */
    uint64_t max_iterations;  /* total loop iterations per render (default 50M) */
} tpl_limits;

tpl_env *tpl_env_new(void);
void tpl_env_free(tpl_env *env);           /* frees every template it loaded */
int tpl_env_add_path(tpl_env *env, const char *dir); /* include search path, in order */
void tpl_env_set_limits(tpl_env *env, const tpl_limits *lim);

/* Host filters: called as {{ x | name(args...) }}. */
typedef struct tpl_call tpl_call;  /* opaque: the render state of one call */
typedef struct tpl_args {
    size_t npos;                 /* positional arguments */
    tpl_value *const *pos;
    size_t nkw;                  /* keyword arguments */
    const char *const *kwnames;
    tpl_value *const *kw;
} tpl_args;
typedef tpl_value *(*tpl_filter_fn)(tpl_call *call, tpl_value *input,
                                    const tpl_args *args);
int tpl_env_add_filter(tpl_env *env, const char *name, tpl_filter_fn fn);
/* Inside a filter: the arena for results, an argument by position or keyword
 * (NULL when absent), and failing with a message (then return NULL). */
tpl_arena *tpl_call_arena(tpl_call *call);
tpl_value *tpl_arg(const tpl_args *args, size_t pos, const char *kwname);
void tpl_call_fail(tpl_call *call, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Load a template by name through the search path (a name containing '/' or
 * an absolute path is also tried as given), or from memory. Loaded templates
 * belong to the env. Return NULL and fill err on failure. */
tpl_template *tpl_load_file(tpl_env *env, const char *name, tpl_error *err);
tpl_template *tpl_load_string(tpl_env *env, const char *name, const char *src,
                              size_t len, tpl_error *err);

/* Render with `context` (a map or NULL) appended to `out`. 0 ok, -1 error. */
int tpl_render(tpl_env *env, tpl_template *t, const tpl_value *context, tpl_buf *out,
               tpl_error *err);

/* tilegen's host filters (c_ident, hex, c_float), see tpl_hostfilters.c. */
int tpl_add_host_filters(tpl_env *env);

#endif
