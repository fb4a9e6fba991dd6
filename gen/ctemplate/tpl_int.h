/* ctemplate internals shared by the phases: arena, value layout, tokens from
 * the lexer, the AST built by the parser, the environment and the render state
 * used by the evaluator and the filters. Not part of the public API. */
#ifndef TPL_INT_H
#define TPL_INT_H

#include <stdarg.h>
#include <stdio.h>

#include "tpl.h"

/* ---- arena ---------------------------------------------------------------- */
typedef struct TplChunk TplChunk;
struct tpl_arena {
    TplChunk *head;   /* current chunk (singly linked to older chunks) */
    size_t total;     /* bytes in all chunks */
    size_t limit;     /* refuse to grow beyond this many bytes */
    TplChunk *spare;  /* one chunk kept by tpl_reset for reuse (not in total) */
};
typedef struct TplMark {
    TplChunk *chunk;  /* chunk current at mark time */
    size_t used;      /* its fill level at mark time */
} TplMark;
void *tpl_alloc(tpl_arena *a, size_t n);             /* 16-aligned, NULL on OOM */
void *tpl_realloc(tpl_arena *a, void *p, size_t old, size_t n);
char *tpl_strndup(tpl_arena *a, const char *s, size_t n);
TplMark tpl_mark(tpl_arena *a);
void tpl_reset(tpl_arena *a, TplMark m);

typedef struct TplRender TplRender; /* one render in progress (tpl_eval.c) */
typedef struct TplNode TplNode;     /* AST node (below) */

/* ---- values --------------------------------------------------------------- */
typedef struct TplList {
    tpl_value **items; /* item pointers */
    size_t n, cap;     /* used / allocated */
} TplList;
typedef struct TplEntry {
    const char *key;   /* NUL-terminated key */
    size_t klen;       /* key length */
    uint32_t hash;     /* key hash */
    tpl_value *val;    /* value */
} TplEntry;
typedef struct TplMap {
    TplEntry *e;       /* entries in insertion order */
    size_t n, cap;     /* used / allocated entries */
    uint32_t *idx;     /* open-addressed index (entry+1, 0 = empty), or NULL */
    size_t icap;       /* index slots (power of two) */
} TplMap;

typedef enum TplCallKind {
    TPL_CALL_MACRO,    /* a {% macro %} */
    TPL_CALL_RANGE,    /* the range() global */
    TPL_CALL_ITEMS,    /* map.items() */
    TPL_CALL_KEYS,     /* map.keys() */
    TPL_CALL_VALUES,   /* map.values() */
    TPL_CALL_LOOPATTR, /* loop object (attributes read from a TplLoop) */
    TPL_CALL_CYCLE     /* loop.cycle(...) */
} TplCallKind;
typedef struct TplCallable {
    TplCallKind kind;   /* what calling it does */
    void *p;            /* macro: TplMacro*; methods: owner tpl_value*; loop: TplLoop* */
} TplCallable;

struct tpl_value {
    tpl_kind kind;          /* discriminant */
    union {
        int b;              /* TPL_BOOL */
        int64_t i;          /* TPL_INT */
        double f;           /* TPL_FLOAT */
        struct { const char *s; size_t n; } str; /* TPL_STRING */
        TplList list;       /* TPL_LIST */
        TplMap map;         /* TPL_MAP */
        TplCallable call;   /* TPL_CALLABLE */
    } u;
};

uint32_t tpl_hash(const char *s, size_t n);
TplEntry *tpl_map_find(const tpl_value *map, const char *key, size_t klen, uint32_t h);
int tpl_truthy(const tpl_value *v);
const char *tpl_type_name(const tpl_value *v);
/* Python str() / repr() appended to a buffer. */
void tpl_str_append(tpl_buf *b, const tpl_value *v);
void tpl_repr_append(tpl_buf *b, const tpl_value *v);
void tpl_float_repr(char *out, size_t n, double f); /* Python repr(float) */
void tpl_utf8_put(tpl_buf *b, uint32_t c);           /* append code point c as UTF-8 */
/* Shortest digits that read back as the same float32, in Python repr layout
 * (numpy's str(np.float32(f))); non-finite values print as inf/-inf/nan. */
void tpl_float32_repr(char *out, size_t n, float f);
/* The same through snprintf + strtof (its fallback below 2^-18, where the
 * exact 128-bit digit search does not fit; the tests' reference for it). */
void tpl_float32_repr_printf(char *out, size_t n, float f);
/* Python %-formatting of fmt with args (the `format` filter and str % x). */
tpl_value *tpl_format(TplRender *r, const TplNode *at, const tpl_value *fmt,
                      tpl_value *const *args, size_t nargs);
int tpl_equal(const tpl_value *a, const tpl_value *b);
/* Python ordering; returns 0 and sets *cmp, or -1 if the types don't order. */
int tpl_compare(const tpl_value *a, const tpl_value *b, int *cmp);
size_t tpl_utf8_len(const char *s, size_t n);
/* Python whitespace (str.isspace) of the UTF-8 char at s (n bytes left):
 * returns its byte length, or 0 if it is not whitespace. */
size_t tpl_space_at(const char *s, size_t n);
/* Length of trailing whitespace of s[0..n). */
size_t tpl_space_before(const char *s, size_t n);
void tpl_buf_printf(tpl_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- tokens ------------------------------------------------------------- */
typedef enum TplTok {
    TK_EOF, TK_TEXT, TK_VAR_BEGIN, TK_VAR_END, TK_BLOCK_BEGIN, TK_BLOCK_END,
    TK_NAME, TK_INT, TK_FLOAT, TK_STRING,
    TK_ADD, TK_SUB, TK_MUL, TK_DIV, TK_FLOORDIV, TK_MOD, TK_POW, TK_TILDE,
    TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_ASSIGN,
    TK_DOT, TK_COMMA, TK_COLON, TK_PIPE, TK_LPAREN, TK_RPAREN,
    TK_LBRACKET, TK_RBRACKET, TK_LBRACE, TK_RBRACE, TK_SEMICOLON
} TplTok;
typedef struct TplToken {
    TplTok kind;       /* token kind */
    int line, col;     /* 1-based start position */
    const char *s;     /* text / name / decoded string (NUL-terminated) */
    size_t n;          /* its length */
    int64_t i;         /* TK_INT value */
    double f;          /* TK_FLOAT value */
} TplToken;
typedef struct TplTokens {
    TplToken *t;       /* tokens, ending with TK_EOF */
    size_t n, cap;     /* used / allocated */
} TplTokens;
const char *tpl_tok_name(TplTok k);

/* ---- AST ------------------------------------------------------------------- */
typedef enum TplNodeKind {
    /* statements */
    N_TEXT, N_OUTPUT, N_IF, N_FOR, N_SET, N_SETBLOCK, N_MACRO, N_INCLUDE,
    /* expressions */
    N_CONST, N_NAME, N_GETATTR, N_GETITEM, N_CALL, N_FILTER, N_TEST, N_BINOP,
    N_NEG, N_POS, N_NOT, N_AND, N_OR, N_CONCAT, N_COMPARE, N_COND, N_LIST, N_DICT,
    N_KWARG
} TplNodeKind;

typedef struct TplNodes {
    TplNode **v;       /* children */
    size_t n, cap;     /* used / allocated */
} TplNodes;
struct TplNode {
    TplNodeKind kind;  /* what it is */
    int line, col;     /* where it starts */
    int op;            /* N_BINOP / N_COMPARE operator token; N_TEST negation */
    const char *name;  /* variable, attribute, filter, test, macro, kwarg name */
    size_t namelen;    /* its length */
    uint32_t hash;     /* hash of name (lookups) */
    tpl_value *val;    /* N_CONST value; N_TEXT text */
    TplNode *a, *b, *c; /* operands: cond/then/else, object, iterable, ... */
    TplNodes kids;     /* body, args, list items, compare operands, params */
    TplNodes kids2;    /* else body, kwargs, compare ops, param defaults */
    const char *name2; /* N_FOR: second loop target */
    size_t name2len;   /* its length */
};

struct tpl_template {
    char *name;        /* template name as loaded */
    char *src;         /* normalized source (for error lines) */
    size_t len;        /* its length */
    TplNode *body;     /* root statement list (N_TEXT kind unused: kids) */
    tpl_template *next; /* env's list of loaded templates */
};

typedef struct TplFilter {
    char *name;        /* filter name */
    tpl_filter_fn fn;  /* implementation */
} TplFilter;

struct tpl_env {
    tpl_arena *arena;  /* templates, tokens, ASTs, constants */
    char **paths;      /* include search path */
    size_t npaths;     /* how many */
    TplFilter *filters; /* host filters */
    size_t nfilters;   /* how many */
    tpl_template *templates; /* loaded templates (cache by name) */
    tpl_limits lim;    /* render limits */
};

/* ---- phases --------------------------------------------------------------- */
/* Lex `src` (normalized newlines) into toks; -1 with err on a lexical error. */
int tpl_lex(tpl_arena *a, const char *name, const char *src, size_t len,
            TplTokens *toks, tpl_error *err);
/* Parse tokens into a statement list; -1 with err. */
TplNode *tpl_parse(tpl_arena *a, const char *name, const char *src, size_t len,
                   const TplTokens *toks, tpl_error *err);
/* Fill err's location (file, line, col, source line) and message. */
void tpl_error_set(tpl_error *err, const char *file, const char *src, size_t len,
                   int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
void tpl_error_setv(tpl_error *err, const char *file, const char *src, size_t len,
                    int line, int col, const char *fmt, va_list ap);

/* ---- render state (evaluator + filters) ------------------------------------- */
struct tpl_call {
    TplRender *r;      /* the render */
    const TplNode *at; /* the filter node (error location) */
};
/* Built-in filters and tests. Return NULL with the render error set. */
tpl_value *tpl_builtin_filter(TplRender *r, const TplNode *at, const char *name,
                              tpl_value *in, const tpl_args *args, int *found);
/* Is `name` a built-in filter (is_test 0) or test (1)? */
int tpl_builtin_exists(const char *name, size_t n, int is_test);
/* Test `name` on v (v NULL = undefined); 0/1, or -1 with the error set. */
int tpl_builtin_test(TplRender *r, const TplNode *at, const char *name,
                     const tpl_value *v, const tpl_args *args);
/* Render-side helpers the filters use. */
tpl_arena *tpl_render_arena(TplRender *r);
void tpl_render_fail(TplRender *r, const TplNode *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
size_t tpl_render_max_string(TplRender *r);
tpl_value *tpl_getattr(TplRender *r, const TplNode *at, tpl_value *obj,
                       const char *name, size_t n, int strict);
int tpl_is_undef(const tpl_value *v);
/* Python `needle in hay`: 0/1, or -1 with the error set. */
int tpl_contains(TplRender *r, const TplNode *at, const tpl_value *needle,
                 const tpl_value *hay); /* the non-strict "missing" marker */
tpl_value *tpl_apply_filter(TplRender *r, const TplNode *at, const char *name,
                            tpl_value *in, const tpl_args *args);
/* New string value from a buffer's bytes (checks the string size limit). */
tpl_value *tpl_render_string(TplRender *r, const TplNode *at, const char *s, size_t n);

#endif
