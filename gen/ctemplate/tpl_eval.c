/* ctemplate evaluator: walks the AST with a chain of scopes, evaluating
 * expressions with Python/Jinja semantics (strict undefined) and writing the
 * output. Temporaries live in a render arena that is rewound after each output
 * statement, condition and loop iteration; limits turn runaway templates into
 * errors. */
#include <math.h>
#include <string.h>

#include "tpl_int.h"

typedef struct TplVar {
    const char *name;   /* variable name (not NUL-terminated) */
    size_t n;           /* its length */
    uint32_t hash;      /* its hash */
    tpl_value *val;     /* bound value */
} TplVar;

typedef struct TplScope {
    struct TplScope *parent; /* enclosing scope (NULL: the context follows) */
    TplVar *v;          /* bindings */
    size_t n, cap;      /* used / allocated */
    int hides_loop;     /* an include's scope: outer `loop` objects are not visible */
} TplScope;

typedef struct TplMacro {
    const TplNode *def; /* the N_MACRO node */
    TplScope *closure;  /* scope it was defined in */
    tpl_template *t;    /* template it was defined in */
} TplMacro;

typedef struct TplLoop {
    const tpl_value *items; /* the list iterated */
    size_t i;           /* current index0 */
} TplLoop;

struct TplRender {
    tpl_env *env;       /* environment (templates, filters, limits) */
    tpl_arena *a;       /* render arena */
    tpl_buf *out;       /* current output buffer */
    tpl_error *err;     /* error out */
    int failed;         /* an error is set */
    tpl_template *t;    /* template being executed (error locations) */
    int depth;          /* macro/include nesting */
    int nchain;         /* chain entries recorded for the current error */
    uint64_t iters;     /* loop iterations so far */
    const tpl_value *ctx; /* the context map (or NULL) */
    int undef_line;     /* line of the last conditional that yielded undefined */
};

/* The value of an undefined lookup in non-strict position (is defined, default),
 * and of a false conditional expression without `else` (Jinja's lenient
 * Undefined: empty in output and `~`, false as a condition, passed on by
 * `and`/`or`/`set`/nested conditionals; an error anywhere else). */
static tpl_value undef_v = { TPL_NULL, { 0 } };
static tpl_value *const UNDEF = &undef_v;
static tpl_value range_v = { TPL_CALLABLE, { .call = { TPL_CALL_RANGE, NULL } } };

int tpl_is_undef(const tpl_value *v) { return v == UNDEF; }

static tpl_value *eval(TplRender *r, TplScope *s, const TplNode *n);
static tpl_value *eval_u(TplRender *r, TplScope *s, const TplNode *n);
static int exec_body(TplRender *r, TplScope *s, const TplNodes *body);

/* ---- errors ------------------------------------------------------------------ */
void tpl_render_fail(TplRender *r, const TplNode *at, const char *fmt, ...)
{
    if (r->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    tpl_error_setv(r->err, r->t->name, r->t->src, r->t->len, at ? at->line : 0,
                   at ? at->col : 0, fmt, ap);
    va_end(ap);
    r->failed = 1;
}

static void chain(TplRender *r, const char *what, const char *name, size_t n,
                  const TplNode *at)
{
    size_t used = strlen(r->err->chain);
    if (r->nchain++ == 8)
        snprintf(r->err->chain + used, sizeof r->err->chain - used, "  ...\n");
    else if (r->nchain <= 8 && used + 1 < sizeof r->err->chain)
        snprintf(r->err->chain + used, sizeof r->err->chain - used,
                 "  in %s '%.*s' at %s:%d:%d\n", what, (int)(n > 60 ? 60 : n), name,
                 r->t->name, at->line, at->col);
}

tpl_arena *tpl_render_arena(TplRender *r) { return r->a; }
size_t tpl_render_max_string(TplRender *r) { return r->env->lim.max_output; }

static tpl_value *oom(TplRender *r, const TplNode *at)
{
    tpl_render_fail(r, at, "out of memory");
    return NULL;
}

tpl_value *tpl_render_string(TplRender *r, const TplNode *at, const char *s, size_t n)
{
    if (n > r->env->lim.max_output) {
        tpl_render_fail(r, at, "string exceeds the size limit of %zu bytes",
                        r->env->lim.max_output);
        return NULL;
    }
    tpl_value *v = tpl_string_n(r->a, s ? s : "", n);
    return v ? v : oom(r, at);
}

/* A string value from a finished temporary buffer (freed here). */
static tpl_value *buf_string(TplRender *r, const TplNode *at, tpl_buf *b)
{
    tpl_value *v = NULL;
    if (b->over)
        tpl_render_fail(r, at, "string exceeds the size limit of %zu bytes",
                        r->env->lim.max_output);
    else
        v = tpl_render_string(r, at, b->data, b->len);
    tpl_buf_free(b);
    return v;
}

static void tmp_buf(TplRender *r, tpl_buf *b)
{
    tpl_buf_init(b);
    b->max = r->env->lim.max_output;
}

/* ---- scopes ---------------------------------------------------------------- */
static TplScope *scope_new(TplRender *r, TplScope *parent)
{
    TplScope *s = tpl_alloc(r->a, sizeof *s);
    if (s) {
        memset(s, 0, sizeof *s);
        s->parent = parent;
    }
    return s;
}

static int scope_set(TplRender *r, TplScope *s, const char *name, size_t n, uint32_t h,
                     tpl_value *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].hash == h && s->v[i].n == n && !memcmp(s->v[i].name, name, n)) {
            s->v[i].val = v;
            return 0;
        }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 4;
        TplVar *nv = tpl_realloc(r->a, s->v, s->cap * sizeof *nv, nc * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = (TplVar){ name, n, h, v };
    return 0;
}

static tpl_value *lookup(TplRender *r, TplScope *s, const char *name, size_t n, uint32_t h)
{
    int is_loop = n == 4 && !memcmp(name, "loop", 4);
    for (; s; s = s->parent) {
        for (size_t i = s->n; i-- > 0;)
            if (s->v[i].hash == h && s->v[i].n == n && !memcmp(s->v[i].name, name, n))
                return s->v[i].val;
        if (is_loop && s->hides_loop)
            return NULL; /* Jinja does not pass `loop` into included templates */
    }
    if (r->ctx) {
        TplEntry *e = tpl_map_find(r->ctx, name, n, h);
        if (e)
            return e->val;
    }
    if (n == 5 && !memcmp(name, "range", 5))
        return &range_v;
    return NULL;
}

/* ---- attribute and item access ---------------------------------------------- */
static tpl_value *callable(TplRender *r, TplCallKind k, void *p)
{
    tpl_value *v = tpl_alloc(r->a, sizeof *v);
    if (v) {
        v->kind = TPL_CALLABLE;
        v->u.call.kind = k;
        v->u.call.p = p;
    }
    return v;
}

static tpl_value *loop_attr(TplRender *r, const TplNode *at, TplLoop *l, const char *name,
                            size_t n)
{
    int64_t len = (int64_t)l->items->u.list.n, i = (int64_t)l->i;
#define IS(s) (n == sizeof(s) - 1 && !memcmp(name, s, n))
    if (IS("index"))
        return tpl_int(r->a, i + 1);
    if (IS("index0"))
        return tpl_int(r->a, i);
    if (IS("revindex"))
        return tpl_int(r->a, len - i);
    if (IS("revindex0"))
        return tpl_int(r->a, len - i - 1);
    if (IS("first"))
        return tpl_bool(r->a, i == 0);
    if (IS("last"))
        return tpl_bool(r->a, i == len - 1);
    if (IS("length"))
        return tpl_int(r->a, len);
    if (IS("depth"))
        return tpl_int(r->a, 1);
    if (IS("depth0"))
        return tpl_int(r->a, 0);
    if (IS("previtem") && i > 0)
        return l->items->u.list.items[i - 1];
    if (IS("nextitem") && i + 1 < len)
        return l->items->u.list.items[i + 1];
    if (IS("cycle"))
        return callable(r, TPL_CALL_CYCLE, l);
#undef IS
    (void)at;
    return NULL;
}

/* obj.name (Jinja getattr): map methods items/keys/values, then map keys, loop
 * attributes. Missing: NULL with an error when strict, UNDEF otherwise. */
tpl_value *tpl_getattr(TplRender *r, const TplNode *at, tpl_value *obj, const char *name,
                       size_t n, int strict)
{
    tpl_value *v = NULL;
    if (obj->kind == TPL_MAP) {
        if (n == 5 && !memcmp(name, "items", 5))
            return callable(r, TPL_CALL_ITEMS, obj);
        if (n == 4 && !memcmp(name, "keys", 4))
            return callable(r, TPL_CALL_KEYS, obj);
        if (n == 6 && !memcmp(name, "values", 6))
            return callable(r, TPL_CALL_VALUES, obj);
        TplEntry *e = tpl_map_find(obj, name, n, tpl_hash(name, n));
        if (e)
            return e->val;
    } else if (obj->kind == TPL_CALLABLE && obj->u.call.kind == TPL_CALL_LOOPATTR) {
        v = loop_attr(r, at, obj->u.call.p, name, n);
        if (v)
            return v;
        if (r->failed)
            return NULL;
    }
    if (!strict)
        return UNDEF;
    tpl_render_fail(r, at, "'%s object' has no attribute '%.*s'", tpl_type_name(obj),
                    (int)(n > 60 ? 60 : n), name);
    return NULL;
}

static tpl_value *getitem(TplRender *r, const TplNode *at, tpl_value *obj, tpl_value *key,
                          int strict)
{
    if (obj->kind == TPL_MAP && key->kind == TPL_STRING) {
        TplEntry *e = tpl_map_find(obj, key->u.str.s, key->u.str.n,
                                   tpl_hash(key->u.str.s, key->u.str.n));
        if (e)
            return e->val;
    } else if (obj->kind == TPL_MAP || obj->kind == TPL_CALLABLE) {
        if (key->kind == TPL_STRING)
            return tpl_getattr(r, at, obj, key->u.str.s, key->u.str.n, strict);
    } else if ((obj->kind == TPL_LIST || obj->kind == TPL_STRING) &&
               (key->kind == TPL_INT || key->kind == TPL_BOOL)) {
        int64_t i = tpl_int_of(key);
        if (obj->kind == TPL_LIST) {
            int64_t len = (int64_t)obj->u.list.n;
            if (i < 0)
                i += len;
            if (i >= 0 && i < len)
                return obj->u.list.items[i];
        } else {
            int64_t len = (int64_t)tpl_utf8_len(obj->u.str.s, obj->u.str.n);
            if (i < 0)
                i += len;
            const char *s = obj->u.str.s, *e = s + obj->u.str.n;
            for (int64_t k = 0; i >= 0 && i < len && s < e; k++) {
                const char *c = s++;
                while (s < e && ((unsigned char)*s & 0xc0) == 0x80)
                    s++;
                if (k == i)
                    return tpl_render_string(r, at, c, (size_t)(s - c));
            }
        }
    } else if (key->kind == TPL_STRING) {
        return tpl_getattr(r, at, obj, key->u.str.s, key->u.str.n, strict);
    }
    if (!strict)
        return UNDEF;
    tpl_buf b;
    tpl_buf_init(&b);
    tpl_repr_append(&b, key);
    tpl_render_fail(r, at, "'%s object' has no element %.*s", tpl_type_name(obj),
                    (int)(b.len > 60 ? 60 : b.len), b.data ? b.data : "");
    tpl_buf_free(&b);
    return NULL;
}

/* Evaluate a lookup (name, attr, item) without failing on a missing last step. */
static tpl_value *eval_soft(TplRender *r, TplScope *s, const TplNode *n)
{
    if (n->kind == N_NAME) {
        tpl_value *v = lookup(r, s, n->name, n->namelen, n->hash);
        return v ? v : UNDEF;
    }
    if (n->kind == N_GETATTR || n->kind == N_GETITEM) {
        tpl_value *o = eval(r, s, n->a);
        if (!o)
            return NULL;
        if (n->kind == N_GETATTR)
            return tpl_getattr(r, n, o, n->name, n->namelen, 0);
        tpl_value *k = eval(r, s, n->b);
        return k ? getitem(r, n, o, k, 0) : NULL;
    }
    return eval_u(r, s, n);
}

/* ---- arithmetic -------------------------------------------------------------- */
static int is_num(const tpl_value *v)
{
    return v->kind == TPL_INT || v->kind == TPL_FLOAT || v->kind == TPL_BOOL;
}

static tpl_value *bad_operands(TplRender *r, const TplNode *n, const char *op,
                               const tpl_value *a, const tpl_value *b)
{
    tpl_render_fail(r, n, "unsupported operand type(s) for %s: '%s' and '%s'", op,
                    tpl_type_name(a), tpl_type_name(b));
    return NULL;
}

static tpl_value *repeat(TplRender *r, const TplNode *n, const tpl_value *seq, int64_t k)
{
    if (k < 0)
        k = 0;
    size_t unit = seq->kind == TPL_STRING ? seq->u.str.n : seq->u.list.n * sizeof(void *);
    if (!unit) /* an empty string or list stays empty, however large k is */
        k = 0;
    if (unit && (uint64_t)k > r->env->lim.max_output / unit) {
        tpl_render_fail(r, n, "result of '*' exceeds the size limit of %zu bytes",
                        r->env->lim.max_output);
        return NULL;
    }
    if (seq->kind == TPL_STRING) {
        tpl_buf b;
        tmp_buf(r, &b);
        for (int64_t i = 0; i < k; i++)
            tpl_buf_put(&b, seq->u.str.s, seq->u.str.n);
        return buf_string(r, n, &b);
    }
    tpl_value *l = tpl_list(r->a);
    for (int64_t i = 0; l && i < k; i++)
        for (size_t j = 0; j < seq->u.list.n; j++)
            if (tpl_list_append(r->a, l, seq->u.list.items[j]))
                return oom(r, n);
    return l ? l : oom(r, n);
}

static double py_fmod(double x, double y)
{
    double m = fmod(x, y);
    if (m != 0.0) {
        if ((y < 0) != (m < 0))
            m += y;
    } else {
        m = copysign(0.0, y);
    }
    return m;
}

static double py_floordiv(double x, double y)
{
    double m = fmod(x, y), d = (x - m) / y;
    if (m != 0.0 && (y < 0) != (m < 0))
        d -= 1.0;
    if (d == 0.0)
        return copysign(0.0, x / y);
    double f = floor(d);
    return d - f > 0.5 ? f + 1.0 : f;
}

static tpl_value *binop(TplRender *r, const TplNode *n, tpl_value *a, tpl_value *b)
{
    static const char *const names[] = { [TK_ADD] = "+", [TK_SUB] = "-", [TK_MUL] = "*",
                                         [TK_DIV] = "/", [TK_FLOORDIV] = "//", [TK_MOD] = "%",
                                         [TK_POW] = "**" };
    const char *opn = names[n->op];
    if (n->op == TK_ADD && a->kind == b->kind && a->kind == TPL_STRING) {
        tpl_buf t;
        tmp_buf(r, &t);
        tpl_buf_put(&t, a->u.str.s, a->u.str.n);
        tpl_buf_put(&t, b->u.str.s, b->u.str.n);
        return buf_string(r, n, &t);
    }
    if (n->op == TK_ADD && a->kind == b->kind && a->kind == TPL_LIST) {
        tpl_value *l = tpl_list(r->a);
        for (size_t i = 0; l && i < a->u.list.n + b->u.list.n; i++)
            if (tpl_list_append(r->a, l, i < a->u.list.n ? a->u.list.items[i]
                                                        : b->u.list.items[i - a->u.list.n]))
                return oom(r, n);
        return l ? l : oom(r, n);
    }
    if (n->op == TK_MUL && (a->kind == TPL_STRING || a->kind == TPL_LIST) &&
        (b->kind == TPL_INT || b->kind == TPL_BOOL))
        return repeat(r, n, a, tpl_int_of(b));
    if (n->op == TK_MUL && (b->kind == TPL_STRING || b->kind == TPL_LIST) &&
        (a->kind == TPL_INT || a->kind == TPL_BOOL))
        return repeat(r, n, b, tpl_int_of(a));
    if (n->op == TK_MOD && a->kind == TPL_STRING) {
        return tpl_format(r, n, a, &b, 1); /* a list is one argument (no tuples) */
    }
    if (!is_num(a) || !is_num(b))
        return bad_operands(r, n, opn, a, b);
    if ((n->op == TK_DIV || n->op == TK_FLOORDIV || n->op == TK_MOD) && tpl_float_of(b) == 0.0) {
        tpl_render_fail(r, n, "%s by zero",
                        n->op == TK_MOD ? "modulo" : n->op == TK_DIV ? "division" : "integer division or modulo");
        return NULL;
    }
    if (n->op == TK_DIV)
        return tpl_float(r->a, tpl_float_of(a) / tpl_float_of(b));
    if (a->kind == TPL_FLOAT || b->kind == TPL_FLOAT) {
        double x = tpl_float_of(a), y = tpl_float_of(b), z = 0;
        switch (n->op) {
        case TK_ADD: z = x + y; break;
        case TK_SUB: z = x - y; break;
        case TK_MUL: z = x * y; break;
        case TK_FLOORDIV: z = py_floordiv(x, y); break;
        case TK_MOD: z = py_fmod(x, y); break;
        default:
            if (x == 0.0 && y < 0) {
                tpl_render_fail(r, n, "0.0 cannot be raised to a negative power");
                return NULL;
            }
            z = pow(x, y);
            if (isnan(z) && !isnan(x) && !isnan(y)) {
                tpl_render_fail(r, n, "negative number cannot be raised to a fractional power");
                return NULL;
            }
        }
        return tpl_float(r->a, z);
    }
    int64_t x = tpl_int_of(a), y = tpl_int_of(b), z = 0;
    int ovf = 0;
    switch (n->op) {
    case TK_ADD: ovf = __builtin_add_overflow(x, y, &z); break;
    case TK_SUB: ovf = __builtin_sub_overflow(x, y, &z); break;
    case TK_MUL: ovf = __builtin_mul_overflow(x, y, &z); break;
    case TK_FLOORDIV:
    case TK_MOD:
        if (x == INT64_MIN && y == -1) {
            ovf = n->op == TK_FLOORDIV;
            z = 0;
            break;
        }
        z = n->op == TK_FLOORDIV ? x / y : x % y;
        if ((x % y != 0) && ((x < 0) != (y < 0)))
            z = n->op == TK_FLOORDIV ? z - 1 : z + y;
        break;
    default:
        if (y < 0)
            return tpl_float(r->a, pow((double)x, (double)y));
        /* square and multiply: O(log y) steps. A square that overflows while
         * exponent bits remain means the result overflows too (|z| >= 1). */
        z = 1;
        for (int64_t base = x, e = y; e && !ovf;) {
            if (e & 1)
                ovf = __builtin_mul_overflow(z, base, &z);
            e >>= 1;
            if (e && !ovf)
                ovf = __builtin_mul_overflow(base, base, &base);
        }
    }
    if (ovf) {
        tpl_render_fail(r, n, "integer overflow in '%s' (64-bit integers)", opn);
        return NULL;
    }
    return tpl_int(r->a, z);
}

/* ---- comparisons ------------------------------------------------------------- */
int tpl_contains(TplRender *r, const TplNode *n, const tpl_value *needle,
                 const tpl_value *hay)
{
    if (hay->kind == TPL_STRING) {
        if (needle->kind != TPL_STRING) {
            tpl_render_fail(r, n, "'in <string>' requires string as left operand, not %s",
                            tpl_type_name(needle));
            return -1;
        }
        if (needle->u.str.n == 0)
            return 1;
        for (size_t i = 0; i + needle->u.str.n <= hay->u.str.n; i++)
            if (!memcmp(hay->u.str.s + i, needle->u.str.s, needle->u.str.n))
                return 1;
        return 0;
    }
    if (hay->kind == TPL_LIST) {
        for (size_t i = 0; i < hay->u.list.n; i++)
            if (tpl_equal(needle, hay->u.list.items[i]))
                return 1;
        return 0;
    }
    if (hay->kind == TPL_MAP)
        return needle->kind == TPL_STRING &&
               tpl_map_find(hay, needle->u.str.s, needle->u.str.n,
                            tpl_hash(needle->u.str.s, needle->u.str.n)) != NULL;
    tpl_render_fail(r, n, "argument of type '%s' is not iterable", tpl_type_name(hay));
    return -1;
}

static int compare_one(TplRender *r, const TplNode *n, int op, const tpl_value *a,
                       const tpl_value *b)
{
    static const char *const names[] = { [TK_LT] = "<", [TK_LE] = "<=", [TK_GT] = ">",
                                         [TK_GE] = ">=" };
    int c, in;
    switch (op) {
    case TK_EQ: return tpl_equal(a, b);
    case TK_NE: return !tpl_equal(a, b);
    case TK_NAME: return tpl_contains(r, n, a, b);
    case TK_STRING: return (in = tpl_contains(r, n, a, b)) < 0 ? -1 : !in;
    default:
        if (tpl_compare(a, b, &c)) {
            tpl_render_fail(r, n, "'%s' not supported between instances of '%s' and '%s'",
                            names[op], tpl_type_name(a), tpl_type_name(b));
            return -1;
        }
        if ((a->kind == TPL_FLOAT && isnan(a->u.f)) || (b->kind == TPL_FLOAT && isnan(b->u.f)))
            return 0;
        return op == TK_LT ? c < 0 : op == TK_LE ? c <= 0 : op == TK_GT ? c > 0 : c >= 0;
    }
}

/* ---- calls ------------------------------------------------------------------ */
typedef struct Args {
    tpl_value *pos[16];    /* positional values */
    const char *kwn[16];   /* keyword names (NUL-terminated) */
    tpl_value *kw[16];     /* keyword values */
    tpl_args a;            /* view handed to filters */
} Args;

static int eval_args(TplRender *r, TplScope *s, const TplNode *n, Args *out,
                     tpl_value *first)
{
    size_t np = 0;
    if (first)
        out->pos[np++] = first;
    if (n->kids.n + np > 16 || n->kids2.n > 16) {
        tpl_render_fail(r, n, "too many arguments (at most 16)");
        return -1;
    }
    for (size_t i = 0; i < n->kids.n; i++)
        if (!(out->pos[np++] = eval(r, s, n->kids.v[i])))
            return -1;
    for (size_t i = 0; i < n->kids2.n; i++) {
        out->kwn[i] = n->kids2.v[i]->name;
        if (!(out->kw[i] = eval(r, s, n->kids2.v[i]->a)))
            return -1;
    }
    out->a = (tpl_args){ np, out->pos, n->kids2.n, out->kwn, out->kw };
    return 0;
}

static tpl_value *call_macro(TplRender *r, const TplNode *at, TplMacro *m, const Args *args)
{
    const TplNode *def = m->def;
    if (args->a.npos > def->kids2.n) {
        tpl_render_fail(r, at, "macro '%.*s' takes not more than %zu argument(s)",
                        (int)def->namelen, def->name, def->kids2.n);
        return NULL;
    }
    if (r->depth >= r->env->lim.max_depth) {
        tpl_render_fail(r, at, "recursion too deep (limit %d macro/include levels)",
                        r->env->lim.max_depth);
        return NULL;
    }
    TplScope *sc = scope_new(r, m->closure);
    if (!sc)
        return oom(r, at);
    tpl_template *caller_t = r->t;
    for (size_t i = 0; i < args->a.nkw; i++) {
        size_t k = 0;
        while (k < def->kids2.n && strcmp(def->kids2.v[k]->name, args->a.kwnames[i]))
            k++;
        if (k == def->kids2.n) {
            tpl_render_fail(r, at, "macro '%.*s' has no parameter named '%s'",
                            (int)def->namelen, def->name, args->a.kwnames[i]);
            return NULL;
        }
        if (k < args->a.npos) {
            tpl_render_fail(r, at, "macro '%.*s' got multiple values for parameter '%s'",
                            (int)def->namelen, def->name, args->a.kwnames[i]);
            return NULL;
        }
    }
    /* parameters: positional, then keyword, then defaults (evaluated in the macro's
     * template, seeing the parameters bound so far) */
    r->t = m->t;
    for (size_t k = 0; k < def->kids2.n; k++) {
        const TplNode *p = def->kids2.v[k];
        tpl_value *v = k < args->a.npos ? args->a.pos[k] : NULL;
        for (size_t i = 0; !v && i < args->a.nkw; i++)
            if (!strcmp(p->name, args->a.kwnames[i]))
                v = args->a.kw[i];
        if (!v && p->a && !(v = eval(r, sc, p->a))) {
            r->t = caller_t;
            chain(r, "macro", def->name, def->namelen, at);
            return NULL;
        }
        if (v && scope_set(r, sc, p->name, p->namelen, p->hash, v)) {
            r->t = caller_t;
            return oom(r, at);
        }
    }
    tpl_buf body, *saved = r->out;
    tmp_buf(r, &body);
    r->out = &body;
    r->depth++;
    int rc = exec_body(r, sc, &def->kids);
    r->depth--;
    r->out = saved;
    r->t = caller_t;
    if (rc) {
        tpl_buf_free(&body);
        chain(r, "macro", def->name, def->namelen, at);
        return NULL;
    }
    return buf_string(r, at, &body);
}

static tpl_value *call_value(TplRender *r, const TplNode *at, tpl_value *fn, const Args *args)
{
    if (fn->kind != TPL_CALLABLE) {
        tpl_render_fail(r, at, "'%s' object is not callable", tpl_type_name(fn));
        return NULL;
    }
    TplCallable *c = &fn->u.call;
    if (c->kind == TPL_CALL_MACRO)
        return call_macro(r, at, c->p, args);
    if (c->kind == TPL_CALL_CYCLE) {
        TplLoop *l = c->p;
        if (!args->a.npos) {
            tpl_render_fail(r, at, "no items for cycling given");
            return NULL;
        }
        return args->a.pos[l->i % args->a.npos];
    }
    if (c->kind == TPL_CALL_RANGE) {
        int64_t lo = 0, hi = 0, step = 1;
        size_t np = args->a.npos;
        for (size_t i = 0; i < np; i++)
            if (args->a.pos[i]->kind != TPL_INT && args->a.pos[i]->kind != TPL_BOOL) {
                tpl_render_fail(r, at, "range() arguments must be integers, not '%s'",
                                tpl_type_name(args->a.pos[i]));
                return NULL;
            }
        if (np < 1 || np > 3 || args->a.nkw) {
            tpl_render_fail(r, at, "range expected 1 to 3 positional arguments");
            return NULL;
        }
        if (np == 1)
            hi = tpl_int_of(args->a.pos[0]);
        else {
            lo = tpl_int_of(args->a.pos[0]);
            hi = tpl_int_of(args->a.pos[1]);
            if (np == 3)
                step = tpl_int_of(args->a.pos[2]);
        }
        if (step == 0) {
            tpl_render_fail(r, at, "range() arg 3 must not be zero");
            return NULL;
        }
        double count = ceil(((double)hi - (double)lo) / (double)step);
        if (count > (double)r->env->lim.max_iterations) {
            tpl_render_fail(r, at, "range() of %.0f items exceeds the loop limit of %llu",
                            count, (unsigned long long)r->env->lim.max_iterations);
            return NULL;
        }
        tpl_value *l = tpl_list(r->a);
        for (int64_t i = lo; l && (step > 0 ? i < hi : i > hi); i += step)
            if (tpl_list_append(r->a, l, tpl_int(r->a, i)))
                return oom(r, at);
        return l ? l : oom(r, at);
    }
    if (c->kind == TPL_CALL_LOOPATTR) {
        tpl_render_fail(r, at, "'loop' object is not callable");
        return NULL;
    }
    /* map methods */
    const tpl_value *m = c->p;
    tpl_value *l = tpl_list(r->a);
    for (size_t i = 0; l && i < m->u.map.n; i++) {
        const TplEntry *e = &m->u.map.e[i];
        tpl_value *item;
        if (c->kind == TPL_CALL_VALUES) {
            item = e->val;
        } else {
            item = tpl_string_n(r->a, e->key, e->klen);
            if (item && c->kind == TPL_CALL_ITEMS) {
                tpl_value *pair = tpl_list(r->a);
                if (!pair || tpl_list_append(r->a, pair, item) ||
                    tpl_list_append(r->a, pair, e->val))
                    return oom(r, at);
                item = pair;
            }
        }
        if (tpl_list_append(r->a, l, item))
            return oom(r, at);
    }
    return l ? l : oom(r, at);
}

/* ---- filters and tests ---------------------------------------------------- */
tpl_value *tpl_apply_filter(TplRender *r, const TplNode *at, const char *name, tpl_value *in,
                            const tpl_args *args)
{
    for (size_t i = 0; i < r->env->nfilters; i++)
        if (!strcmp(r->env->filters[i].name, name)) {
            tpl_call call = { r, at };
            tpl_value *v = r->env->filters[i].fn(&call, in, args);
            if (!v && !r->failed)
                tpl_render_fail(r, at, "filter '%s' failed", name);
            return v;
        }
    int found = 0;
    tpl_value *v = tpl_builtin_filter(r, at, name, in, args, &found);
    if (!found)
        tpl_render_fail(r, at, "no filter named '%s'", name);
    return v;
}

tpl_arena *tpl_call_arena(tpl_call *call) { return call->r->a; }

void tpl_call_fail(tpl_call *call, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tpl_render_fail(call->r, call->at, "%s", msg);
}

tpl_value *tpl_arg(const tpl_args *args, size_t pos, const char *kwname)
{
    if (pos < args->npos)
        return args->pos[pos];
    for (size_t i = 0; kwname && i < args->nkw; i++)
        if (!strcmp(args->kwnames[i], kwname))
            return args->kw[i];
    return NULL;
}

static tpl_value *eval_filter(TplRender *r, TplScope *s, const TplNode *n)
{
    int soft = (n->namelen == 7 && !memcmp(n->name, "default", 7)) ||
               (n->namelen == 1 && n->name[0] == 'd');
    tpl_value *in = soft ? eval_soft(r, s, n->a) : eval(r, s, n->a);
    Args args;
    if (!in || eval_args(r, s, n, &args, NULL))
        return NULL;
    if (in == UNDEF) {
        tpl_value *d = tpl_arg(&args.a, 0, "default_value");
        return d ? d : tpl_render_string(r, n, "", 0);
    }
    return tpl_apply_filter(r, n, n->name, in, &args.a);
}

static tpl_value *eval_test(TplRender *r, TplScope *s, const TplNode *n)
{
    int soft = (n->namelen == 7 && !memcmp(n->name, "defined", 7)) ||
               (n->namelen == 9 && !memcmp(n->name, "undefined", 9));
    tpl_value *v = soft ? eval_soft(r, s, n->a) : eval(r, s, n->a);
    Args args;
    if (!v || eval_args(r, s, n, &args, NULL))
        return NULL;
    int t = tpl_builtin_test(r, n, n->name, v == UNDEF ? NULL : v, &args.a);
    if (t < 0)
        return NULL;
    return tpl_bool(r->a, n->op ? !t : t);
}

/* ---- expressions ------------------------------------------------------------- */
/* Evaluate n where an undefined value is an error. */
static tpl_value *eval(TplRender *r, TplScope *s, const TplNode *n)
{
    tpl_value *v = eval_u(r, s, n);
    if (v == UNDEF) {
        tpl_render_fail(r, n, "the inline if-expression on line %d evaluated to false and "
                        "no else section was defined", r->undef_line);
        return NULL;
    }
    return v;
}

/* Evaluate n; the result may be UNDEF (a false conditional without `else`). */
static tpl_value *eval_u(TplRender *r, TplScope *s, const TplNode *n)
{
    tpl_value *a, *b, *v;
    switch (n->kind) {
    case N_CONST:
        return n->val;
    case N_NAME:
        v = lookup(r, s, n->name, n->namelen, n->hash);
        if (!v)
            tpl_render_fail(r, n, "'%.*s' is undefined", (int)n->namelen, n->name);
        return v;
    case N_GETATTR:
        a = eval(r, s, n->a);
        return a ? tpl_getattr(r, n, a, n->name, n->namelen, 1) : NULL;
    case N_GETITEM:
        if (!(a = eval(r, s, n->a)) || !(b = eval(r, s, n->b)))
            return NULL;
        return getitem(r, n, a, b, 1);
    case N_CALL: {
        Args args;
        if (!(a = eval(r, s, n->a)) || eval_args(r, s, n, &args, NULL))
            return NULL;
        return call_value(r, n, a, &args);
    }
    case N_FILTER:
        return eval_filter(r, s, n);
    case N_TEST:
        return eval_test(r, s, n);
    case N_BINOP:
        if (!(a = eval(r, s, n->a)) || !(b = eval(r, s, n->b)))
            return NULL;
        v = binop(r, n, a, b);
        return v || r->failed ? v : oom(r, n);
    case N_NEG:
    case N_POS:
        if (!(a = eval(r, s, n->a)))
            return NULL;
        if (!is_num(a)) {
            tpl_render_fail(r, n, "bad operand type for unary %c: '%s'",
                            n->kind == N_NEG ? '-' : '+', tpl_type_name(a));
            return NULL;
        }
        if (a->kind == TPL_FLOAT)
            return tpl_float(r->a, n->kind == N_NEG ? -a->u.f : a->u.f);
        if (n->kind == N_NEG && a->u.i == INT64_MIN) {
            tpl_render_fail(r, n, "integer overflow in unary '-' (64-bit integers)");
            return NULL;
        }
        return tpl_int(r->a, n->kind == N_NEG ? -tpl_int_of(a) : tpl_int_of(a));
    case N_NOT:
        return (a = eval_u(r, s, n->a)) ? tpl_bool(r->a, !tpl_truthy(a)) : NULL;
    case N_AND:
        if (!(a = eval_u(r, s, n->a)))
            return NULL;
        return tpl_truthy(a) ? eval_u(r, s, n->b) : a;
    case N_OR:
        if (!(a = eval_u(r, s, n->a)))
            return NULL;
        return tpl_truthy(a) ? a : eval_u(r, s, n->b);
    case N_CONCAT: {
        tpl_buf t;
        tmp_buf(r, &t);
        for (size_t i = 0; i < n->kids.n; i++) {
            if (!(a = eval_u(r, s, n->kids.v[i]))) {
                tpl_buf_free(&t);
                return NULL;
            }
            if (a != UNDEF)
                tpl_str_append(&t, a);
        }
        return buf_string(r, n, &t);
    }
    case N_COMPARE:
        a = eval(r, s, n->kids.v[0]);
        for (size_t i = 0; a && i < n->kids2.n; i++) {
            if (!(b = eval(r, s, n->kids.v[i + 1])))
                return NULL;
            int c = compare_one(r, n, n->kids2.v[i]->op, a, b);
            if (c < 0)
                return NULL;
            if (!c)
                return tpl_bool(r->a, 0);
            a = b;
        }
        return a ? tpl_bool(r->a, 1) : NULL;
    case N_COND:
        if (!(a = eval_u(r, s, n->a)))
            return NULL;
        if (tpl_truthy(a))
            return eval_u(r, s, n->b);
        if (n->c)
            return eval_u(r, s, n->c);
        r->undef_line = n->line;
        return UNDEF;
    case N_LIST:
        if (!(v = tpl_list(r->a)))
            return oom(r, n);
        for (size_t i = 0; i < n->kids.n; i++) {
            if (!(a = eval(r, s, n->kids.v[i])))
                return NULL;
            if (tpl_list_append(r->a, v, a))
                return oom(r, n);
        }
        return v;
    case N_DICT:
        if (!(v = tpl_map(r->a)))
            return oom(r, n);
        for (size_t i = 0; i < n->kids.n; i++) {
            if (!(a = eval(r, s, n->kids.v[i])) || !(b = eval(r, s, n->kids2.v[i])))
                return NULL;
            if (a->kind != TPL_STRING) {
                tpl_render_fail(r, n->kids.v[i], "dict keys must be strings, not '%s'",
                                tpl_type_name(a));
                return NULL;
            }
            if (tpl_map_set_n(r->a, v, a->u.str.s, a->u.str.n, b))
                return oom(r, n);
        }
        return v;
    default:
        tpl_render_fail(r, n, "internal error: not an expression");
        return NULL;
    }
}

/* ---- statements ---------------------------------------------------------- */
static int out_check(TplRender *r, const TplNode *n)
{
    if (r->out->over) {
        tpl_render_fail(r, n, "output exceeds the limit of %zu bytes", r->out->max);
        return -1;
    }
    return 0;
}

/* The sequence a for loop iterates: lists as is, map keys, string characters. */
static tpl_value *iterable(TplRender *r, const TplNode *at, tpl_value *v)
{
    if (v->kind == TPL_LIST)
        return v;
    if (v->kind == TPL_MAP) {
        tpl_value *fnv = callable(r, TPL_CALL_KEYS, v);
        Args none = { .a = { 0, NULL, 0, NULL, NULL } };
        return fnv ? call_value(r, at, fnv, &none) : oom(r, at);
    }
    if (v->kind == TPL_STRING) {
        tpl_value *l = tpl_list(r->a);
        const char *p = v->u.str.s, *e = p + v->u.str.n;
        while (l && p < e) {
            const char *c = p++;
            while (p < e && ((unsigned char)*p & 0xc0) == 0x80)
                p++;
            if (tpl_list_append(r->a, l, tpl_string_n(r->a, c, (size_t)(p - c))))
                return oom(r, at);
        }
        return l ? l : oom(r, at);
    }
    tpl_render_fail(r, at, "'%s' object is not iterable", tpl_type_name(v));
    return NULL;
}

static int bind_targets(TplRender *r, TplScope *sc, const TplNode *n, tpl_value *item)
{
    if (!n->name2)
        return scope_set(r, sc, n->name, n->namelen, n->hash, item) ? (oom(r, n), -1) : 0;
    if (item->kind != TPL_LIST || item->u.list.n != 2) {
        tpl_render_fail(r, n, "cannot unpack '%s' of length %zu into 2 loop variables",
                        tpl_type_name(item), item->kind == TPL_LIST ? item->u.list.n : 0);
        return -1;
    }
    if (scope_set(r, sc, n->name, n->namelen, n->hash, item->u.list.items[0]) ||
        scope_set(r, sc, n->name2, n->name2len, tpl_hash(n->name2, n->name2len),
                  item->u.list.items[1])) {
        oom(r, n);
        return -1;
    }
    return 0;
}

static int count_iter(TplRender *r, const TplNode *n)
{
    if (++r->iters > r->env->lim.max_iterations) {
        tpl_render_fail(r, n, "loop iteration limit of %llu exceeded",
                        (unsigned long long)r->env->lim.max_iterations);
        return -1;
    }
    return 0;
}

static int exec_for(TplRender *r, TplScope *s, const TplNode *n)
{
    tpl_value *v = eval(r, s, n->a);
    tpl_value *items = v ? iterable(r, n->a, v) : NULL;
    if (!items)
        return -1;
    if (n->c) { /* {% for x in xs if cond %}: filter first */
        tpl_value *kept = tpl_list(r->a);
        if (!kept)
            return oom(r, n), -1;
        for (size_t i = 0; i < items->u.list.n; i++) {
            TplMark m = tpl_mark(r->a);
            TplScope *sc = scope_new(r, s);
            if (!sc || count_iter(r, n) || bind_targets(r, sc, n, items->u.list.items[i]))
                return sc ? -1 : (oom(r, n), -1);
            tpl_value *c = eval_u(r, sc, n->c);
            if (!c)
                return -1;
            int keep = tpl_truthy(c);
            tpl_reset(r->a, m);
            if (keep && tpl_list_append(r->a, kept, items->u.list.items[i]))
                return oom(r, n), -1;
        }
        items = kept;
    }
    if (items->u.list.n == 0)
        return exec_body(r, s, &n->kids2);
    TplLoop *loop = tpl_alloc(r->a, sizeof *loop);
    tpl_value *lv = loop ? callable(r, TPL_CALL_LOOPATTR, loop) : NULL;
    if (!lv)
        return oom(r, n), -1;
    loop->items = items;
    uint32_t lh = tpl_hash("loop", 4);
    for (size_t i = 0; i < items->u.list.n; i++) {
        loop->i = i;
        TplMark m = tpl_mark(r->a);
        TplScope *sc = scope_new(r, s);
        if (!sc || scope_set(r, sc, "loop", 4, lh, lv))
            return oom(r, n), -1;
        if (count_iter(r, n) || bind_targets(r, sc, n, items->u.list.items[i]) ||
            exec_body(r, sc, &n->kids))
            return -1;
        tpl_reset(r->a, m);
    }
    return 0;
}

static int exec_include(TplRender *r, TplScope *s, const TplNode *n)
{
    TplMark m = tpl_mark(r->a);
    tpl_value *name = eval(r, s, n->a);
    if (!name)
        return -1;
    if (name->kind != TPL_STRING) {
        tpl_render_fail(r, n->a, "include expects a template name string, not '%s'",
                        tpl_type_name(name));
        return -1;
    }
    if (r->depth >= r->env->lim.max_depth) {
        tpl_render_fail(r, n, "recursion too deep (limit %d macro/include levels)",
                        r->env->lim.max_depth);
        return -1;
    }
    tpl_error lerr;
    tpl_template *t = tpl_load_file(r->env, name->u.str.s, &lerr);
    if (!t) {
        if (lerr.line == 0) { /* not found / unreadable: locate at the include */
            tpl_render_fail(r, n, "%s", lerr.message);
        } else {
            *r->err = lerr;
            r->failed = 1;
            chain(r, "include", name->u.str.s, name->u.str.n, n);
        }
        return -1;
    }
    tpl_reset(r->a, m);
    TplScope *sc = scope_new(r, s);
    if (!sc)
        return oom(r, n), -1;
    sc->hides_loop = 1;
    tpl_template *saved = r->t;
    r->t = t;
    r->depth++;
    int rc = exec_body(r, sc, &t->body->kids);
    r->depth--;
    r->t = saved;
    if (rc)
        chain(r, "include", t->name, strlen(t->name), n);
    return rc;
}

static int exec_stmt(TplRender *r, TplScope *s, const TplNode *n)
{
    tpl_value *v;
    TplMark m;
    switch (n->kind) {
    case N_TEXT:
        tpl_buf_put(r->out, n->val->u.str.s, n->val->u.str.n);
        return out_check(r, n);
    case N_OUTPUT:
        m = tpl_mark(r->a);
        if (!(v = eval_u(r, s, n->a)))
            return -1;
        if (v != UNDEF)
            tpl_str_append(r->out, v);
        tpl_reset(r->a, m);
        return out_check(r, n);
    case N_IF:
        m = tpl_mark(r->a);
        if (!(v = eval_u(r, s, n->a)))
            return -1;
        int t = tpl_truthy(v);
        tpl_reset(r->a, m);
        return exec_body(r, s, t ? &n->kids : &n->kids2);
    case N_FOR:
        return exec_for(r, s, n);
    case N_SET:
        if (!(v = eval_u(r, s, n->a)))
            return -1;
        return scope_set(r, s, n->name, n->namelen, n->hash, v) ? (oom(r, n), -1) : 0;
    case N_SETBLOCK: {
        tpl_buf b, *saved = r->out;
        tmp_buf(r, &b);
        r->out = &b;
        int rc = exec_body(r, s, &n->kids);
        r->out = saved;
        if (rc) {
            tpl_buf_free(&b);
            return -1;
        }
        v = buf_string(r, n, &b);
        return !v ? -1 : scope_set(r, s, n->name, n->namelen, n->hash, v) ? (oom(r, n), -1) : 0;
    }
    case N_MACRO: {
        TplMacro *mac = tpl_alloc(r->a, sizeof *mac);
        if (!mac || !(v = callable(r, TPL_CALL_MACRO, mac)))
            return oom(r, n), -1;
        *mac = (TplMacro){ n, s, r->t };
        return scope_set(r, s, n->name, n->namelen, n->hash, v) ? (oom(r, n), -1) : 0;
    }
    case N_INCLUDE:
        return exec_include(r, s, n);
    default:
        tpl_render_fail(r, n, "internal error: not a statement");
        return -1;
    }
}

static int exec_body(TplRender *r, TplScope *s, const TplNodes *body)
{
    for (size_t i = 0; i < body->n; i++)
        if (exec_stmt(r, s, body->v[i]))
            return -1;
    return 0;
}

int tpl_render(tpl_env *env, tpl_template *t, const tpl_value *context, tpl_buf *out,
               tpl_error *err)
{
    memset(err, 0, sizeof *err);
    if (context && context->kind != TPL_MAP) {
        snprintf(err->file, sizeof err->file, "%s", t->name);
        snprintf(err->message, sizeof err->message, "the context must be a map, not '%s'",
                 tpl_type_name(context));
        return -1;
    }
    TplRender r = { env, tpl_arena_new(), out, err, 0, t, 0, 0, 0, context, 0 };
    if (!r.a) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return -1;
    }
    size_t saved_max = out->max;
    if (!out->max || out->max > out->len + env->lim.max_output)
        out->max = out->len + env->lim.max_output;
    TplScope *root = scope_new(&r, NULL);
    int rc = root ? exec_body(&r, root, &t->body->kids) : (oom(&r, t->body), -1);
    out->max = saved_max;
    tpl_arena_free(r.a);
    return rc;
}
