/* ctemplate parser: recursive descent over the lexer's tokens into an AST of
 * statements (text, output, if, for, set, macro, include) and expressions,
 * following Jinja's grammar and operator precedence. Nesting is bounded so a
 * hostile template cannot overflow the C stack. */
#include <string.h>

#include "tpl_int.h"

#define TPL_MAX_NEST 200

typedef struct Ps {
    tpl_arena *a;        /* AST storage */
    const char *name;    /* template name */
    const char *src;     /* source (error lines) */
    size_t len;          /* its length */
    const TplToken *t;   /* tokens */
    size_t i;            /* current token */
    tpl_error *err;      /* error out */
    int nest;            /* current nesting (statements + expressions) */
    int failed;          /* an error was reported */
} Ps;

static const TplToken *cur(Ps *p) { return &p->t[p->i]; }
static const TplToken *peek(Ps *p) { return p->t[p->i].kind == TK_EOF ? &p->t[p->i] : &p->t[p->i + 1]; }
static void adv(Ps *p) { if (p->t[p->i].kind != TK_EOF) p->i++; }

static void *fail_at(Ps *p, const TplToken *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void *fail_at(Ps *p, const TplToken *t, const char *fmt, ...)
{
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        tpl_error_setv(p->err, p->name, p->src, p->len, t->line, t->col, fmt, ap);
        va_end(ap);
        p->failed = 1;
    }
    return NULL;
}

static void describe(const TplToken *t, char *out, size_t n)
{
    if (t->kind == TK_NAME)
        snprintf(out, n, "%.*s", (int)(t->n > 40 ? 40 : t->n), t->s);
    else if (t->kind == TK_STRING)
        snprintf(out, n, "string");
    else
        snprintf(out, n, "%s", tpl_tok_name(t->kind));
}

static void *unexpected(Ps *p, const char *want)
{
    char d[64];
    describe(cur(p), d, sizeof d);
    return fail_at(p, cur(p), "unexpected '%s', expected %s", d, want);
}

static int is_name(Ps *p, const char *s)
{
    const TplToken *t = cur(p);
    return t->kind == TK_NAME && t->n == strlen(s) && !memcmp(t->s, s, t->n);
}

static int accept(Ps *p, TplTok k)
{
    if (cur(p)->kind != k)
        return 0;
    adv(p);
    return 1;
}

static int expect(Ps *p, TplTok k)
{
    if (accept(p, k))
        return 1;
    char want[32];
    snprintf(want, sizeof want, "'%s'", tpl_tok_name(k));
    unexpected(p, want);
    return 0;
}

static TplNode *node(Ps *p, TplNodeKind k, const TplToken *at)
{
    TplNode *n = tpl_alloc(p->a, sizeof *n);
    if (!n)
        return fail_at(p, at, "out of memory");
    memset(n, 0, sizeof *n);
    n->kind = k;
    n->line = at->line;
    n->col = at->col;
    return n;
}

static int add(Ps *p, TplNodes *l, TplNode *n)
{
    if (!n)
        return 0;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        TplNode **nv = tpl_realloc(p->a, l->v, l->cap * sizeof *nv, nc * sizeof *nv);
        if (!nv) {
            fail_at(p, cur(p), "out of memory");
            return 0;
        }
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = n;
    return 1;
}

static void set_name(TplNode *n, const TplToken *t)
{
    n->name = t->s;
    n->namelen = t->n;
    n->hash = tpl_hash(t->s, t->n);
}

static int enter(Ps *p)
{
    if (++p->nest > TPL_MAX_NEST) {
        fail_at(p, cur(p), "template nested too deeply (limit %d)", TPL_MAX_NEST);
        return 0;
    }
    return 1;
}

/* ---- expressions -------------------------------------------------------- */
static TplNode *parse_expr(Ps *p);
static TplNode *parse_or(Ps *p);
static TplNode *parse_unary(Ps *p, int with_filter);

/* call_args: "(" [ (expr | name "=" expr) ("," ...)* [","] ] ")" */
static int parse_args(Ps *p, TplNodes *args, TplNodes *kwargs)
{
    if (!expect(p, TK_LPAREN))
        return 0;
    for (int first = 1; cur(p)->kind != TK_RPAREN; first = 0) {
        if (!first && (!expect(p, TK_COMMA) || cur(p)->kind == TK_RPAREN))
            break;
        if (cur(p)->kind == TK_NAME && peek(p)->kind == TK_ASSIGN) {
            TplNode *kw = node(p, N_KWARG, cur(p));
            if (!kw)
                return 0;
            set_name(kw, cur(p));
            adv(p);
            adv(p);
            if (!(kw->a = parse_expr(p)) || !add(p, kwargs, kw))
                return 0;
        } else {
            if (kwargs->n)
                return fail_at(p, cur(p), "positional argument after keyword argument"), 0;
            if (!add(p, args, parse_expr(p)))
                return 0;
        }
    }
    return !p->failed && expect(p, TK_RPAREN);
}

/* primary: name | string+ | number | "(" expr ")" | list | dict */
static TplNode *parse_primary(Ps *p)
{
    const TplToken *t = cur(p);
    TplNode *n;
    switch (t->kind) {
    case TK_NAME:
        if (!(n = node(p, N_CONST, t)))
            return NULL;
        adv(p);
        if (t->n == 4 && (!memcmp(t->s, "true", 4) || !memcmp(t->s, "True", 4)))
            n->val = tpl_bool(p->a, 1);
        else if (t->n == 5 && (!memcmp(t->s, "false", 5) || !memcmp(t->s, "False", 5)))
            n->val = tpl_bool(p->a, 0);
        else if (t->n == 4 && (!memcmp(t->s, "none", 4) || !memcmp(t->s, "None", 4)))
            n->val = tpl_null(p->a);
        else {
            n->kind = N_NAME;
            set_name(n, t);
            return n;
        }
        return n->val ? n : fail_at(p, t, "out of memory");
    case TK_STRING: {
        tpl_buf b;
        tpl_buf_init(&b);
        while (cur(p)->kind == TK_STRING) {
            tpl_buf_put(&b, cur(p)->s, cur(p)->n);
            adv(p);
        }
        n = node(p, N_CONST, t);
        if (n && !(n->val = tpl_string_n(p->a, b.data ? b.data : "", b.len)))
            n = fail_at(p, t, "out of memory");
        tpl_buf_free(&b);
        return n;
    }
    case TK_INT:
    case TK_FLOAT:
        if (!(n = node(p, N_CONST, t)))
            return NULL;
        adv(p);
        n->val = t->kind == TK_INT ? tpl_int(p->a, t->i) : tpl_float(p->a, t->f);
        return n->val ? n : fail_at(p, t, "out of memory");
    case TK_LPAREN:
        adv(p);
        if (cur(p)->kind == TK_RPAREN)
            return fail_at(p, cur(p), "tuples are not supported");
        n = parse_expr(p);
        if (n && cur(p)->kind == TK_COMMA)
            return fail_at(p, cur(p), "tuples are not supported");
        return n && expect(p, TK_RPAREN) ? n : NULL;
    case TK_LBRACKET:
        if (!(n = node(p, N_LIST, t)))
            return NULL;
        adv(p);
        while (cur(p)->kind != TK_RBRACKET) {
            if (n->kids.n && !expect(p, TK_COMMA))
                return NULL;
            if (cur(p)->kind == TK_RBRACKET)
                break;
            if (!add(p, &n->kids, parse_expr(p)))
                return NULL;
        }
        adv(p);
        return n;
    case TK_LBRACE:
        if (!(n = node(p, N_DICT, t)))
            return NULL;
        adv(p);
        while (cur(p)->kind != TK_RBRACE) {
            if (n->kids.n && !expect(p, TK_COMMA))
                return NULL;
            if (cur(p)->kind == TK_RBRACE)
                break;
            if (!add(p, &n->kids, parse_expr(p)) || !expect(p, TK_COLON) ||
                !add(p, &n->kids2, parse_expr(p)))
                return NULL;
        }
        adv(p);
        return n;
    default:
        return unexpected(p, "an expression");
    }
}

/* postfix: primary ( "." name | "." int | "[" expr "]" | call_args )* */
static TplNode *parse_postfix(Ps *p, TplNode *n)
{
    while (n) {
        const TplToken *t = cur(p);
        if (t->kind == TK_DOT) {
            adv(p);
            TplNode *g = node(p, N_GETATTR, t);
            if (!g)
                return NULL;
            g->a = n;
            if (cur(p)->kind == TK_NAME) {
                set_name(g, cur(p));
            } else if (cur(p)->kind == TK_INT) {
                g->kind = N_GETITEM;
                if (!(g->b = node(p, N_CONST, cur(p))) ||
                    !(g->b->val = tpl_int(p->a, cur(p)->i)))
                    return fail_at(p, t, "out of memory");
            } else {
                return unexpected(p, "a name or number");
            }
            adv(p);
            n = g;
        } else if (t->kind == TK_LBRACKET) {
            adv(p);
            TplNode *g = node(p, N_GETITEM, t);
            if (!g)
                return NULL;
            g->a = n;
            if (cur(p)->kind == TK_COLON)
                return fail_at(p, cur(p), "slices are not supported");
            if (!(g->b = parse_expr(p)))
                return NULL;
            if (cur(p)->kind == TK_COLON)
                return fail_at(p, cur(p), "slices are not supported");
            if (!expect(p, TK_RBRACKET))
                return NULL;
            n = g;
        } else if (t->kind == TK_LPAREN) {
            TplNode *c = node(p, N_CALL, t);
            if (!c)
                return NULL;
            c->a = n;
            c->line = n->line; /* a call is located at its callee */
            c->col = n->col;
            if (!parse_args(p, &c->kids, &c->kids2))
                return NULL;
            n = c;
        } else {
            break;
        }
    }
    return n;
}

/* filter_expr: ( "|" name ("." name)* [call_args] | "is" ["not"] name [args] )* */
static TplNode *parse_filters(Ps *p, TplNode *n)
{
    while (n) {
        const TplToken *t = cur(p);
        if (t->kind == TK_PIPE) {
            adv(p);
            if (cur(p)->kind != TK_NAME)
                return unexpected(p, "a filter name");
            TplNode *f = node(p, N_FILTER, cur(p));
            if (!f)
                return NULL;
            set_name(f, cur(p));
            adv(p);
            f->a = n;
            if (cur(p)->kind == TK_LPAREN && !parse_args(p, &f->kids, &f->kids2))
                return NULL;
            n = f;
        } else if (is_name(p, "is")) {
            adv(p);
            TplNode *f = node(p, N_TEST, t);
            if (!f)
                return NULL;
            if (is_name(p, "not")) {
                f->op = 1;
                adv(p);
            }
            if (cur(p)->kind != TK_NAME)
                return unexpected(p, "a test name");
            set_name(f, cur(p));
            adv(p);
            f->a = n;
            TplTok k = cur(p)->kind;
            if (k == TK_LPAREN) {
                if (!parse_args(p, &f->kids, &f->kids2))
                    return NULL;
            } else if ((k == TK_NAME || k == TK_STRING || k == TK_INT || k == TK_FLOAT ||
                        k == TK_LBRACKET || k == TK_LBRACE) &&
                       !is_name(p, "else") && !is_name(p, "or") && !is_name(p, "and") &&
                       !is_name(p, "if") && !is_name(p, "in") && !is_name(p, "not")) {
                if (!add(p, &f->kids, parse_postfix(p, parse_primary(p))))
                    return NULL;
            }
            n = f;
        } else if (t->kind == TK_LPAREN) {
            n = parse_postfix(p, n);
        } else {
            break;
        }
    }
    return n;
}

/* unary: ("-" | "+") unary_nofilter | primary postfix ; then filters */
static TplNode *parse_unary(Ps *p, int with_filter)
{
    if (!enter(p))
        return NULL;
    const TplToken *t = cur(p);
    TplNode *n;
    if (t->kind == TK_SUB || t->kind == TK_ADD) {
        adv(p);
        n = node(p, t->kind == TK_SUB ? N_NEG : N_POS, t);
        if (n && !(n->a = parse_unary(p, 0)))
            n = NULL;
    } else {
        n = parse_primary(p);
    }
    n = parse_postfix(p, n);
    if (with_filter)
        n = parse_filters(p, n);
    p->nest--;
    return n;
}

static TplNode *binop(Ps *p, const TplToken *t, TplNode *l, TplNode *r, TplNodeKind k)
{
    if (!l || !r)
        return NULL;
    TplNode *n = node(p, k, t);
    if (n) {
        n->op = t->kind;
        n->a = l;
        n->b = r;
    }
    return n;
}

/* pow: unary ("**" unary)* */
static TplNode *parse_pow(Ps *p)
{
    TplNode *l = parse_unary(p, 1);
    while (l && cur(p)->kind == TK_POW) {
        const TplToken *t = cur(p);
        adv(p);
        l = binop(p, t, l, parse_unary(p, 1), N_BINOP);
    }
    return l;
}

/* math2: pow (("*" | "/" | "//" | "%") pow)* */
static TplNode *parse_math2(Ps *p)
{
    TplNode *l = parse_pow(p);
    for (;;) {
        const TplToken *t = cur(p);
        if (!l || (t->kind != TK_MUL && t->kind != TK_DIV && t->kind != TK_FLOORDIV &&
                   t->kind != TK_MOD))
            return l;
        adv(p);
        l = binop(p, t, l, parse_pow(p), N_BINOP);
    }
}

/* concat: math2 ("~" math2)* */
static TplNode *parse_concat(Ps *p)
{
    TplNode *l = parse_math2(p);
    if (!l || cur(p)->kind != TK_TILDE)
        return l;
    TplNode *n = node(p, N_CONCAT, cur(p));
    if (!n || !add(p, &n->kids, l))
        return NULL;
    while (accept(p, TK_TILDE))
        if (!add(p, &n->kids, parse_math2(p)))
            return NULL;
    return n;
}

/* math1: concat (("+" | "-") concat)* */
static TplNode *parse_math1(Ps *p)
{
    TplNode *l = parse_concat(p);
    for (;;) {
        const TplToken *t = cur(p);
        if (!l || (t->kind != TK_ADD && t->kind != TK_SUB))
            return l;
        adv(p);
        l = binop(p, t, l, parse_concat(p), N_BINOP);
    }
}

/* compare: math1 (("==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not" "in") math1)* */
static TplNode *parse_compare(Ps *p)
{
    TplNode *l = parse_math1(p);
    TplNode *n = NULL;
    for (;;) {
        const TplToken *t = cur(p);
        int op;
        if (!l)
            return NULL;
        if (t->kind >= TK_EQ && t->kind <= TK_GE) {
            op = t->kind;
            adv(p);
        } else if (is_name(p, "in")) {
            op = TK_NAME; /* "in" */
            adv(p);
        } else if (is_name(p, "not") && peek(p)->kind == TK_NAME && peek(p)->n == 2 &&
                   !memcmp(peek(p)->s, "in", 2)) {
            op = TK_STRING; /* "not in" */
            adv(p);
            adv(p);
        } else {
            return n ? n : l;
        }
        if (!n) {
            if (!(n = node(p, N_COMPARE, t)) || !add(p, &n->kids, l))
                return NULL;
        }
        TplNode *o = node(p, N_CONST, t);
        if (!o)
            return NULL;
        o->op = op;
        if (!add(p, &n->kids2, o) || !add(p, &n->kids, parse_math1(p)))
            return NULL;
    }
}

/* not: "not" not | compare */
static TplNode *parse_not(Ps *p)
{
    if (is_name(p, "not")) {
        if (!enter(p))
            return NULL;
        TplNode *n = node(p, N_NOT, cur(p));
        adv(p);
        if (n && !(n->a = parse_not(p)))
            n = NULL;
        p->nest--;
        return n;
    }
    return parse_compare(p);
}

/* and: not ("and" not)* */
static TplNode *parse_and(Ps *p)
{
    TplNode *l = parse_not(p);
    while (l && is_name(p, "and")) {
        const TplToken *t = cur(p);
        adv(p);
        l = binop(p, t, l, parse_not(p), N_AND);
    }
    return l;
}

/* or: and ("or" and)* */
static TplNode *parse_or(Ps *p)
{
    TplNode *l = parse_and(p);
    while (l && is_name(p, "or")) {
        const TplToken *t = cur(p);
        adv(p);
        l = binop(p, t, l, parse_and(p), N_OR);
    }
    return l;
}

/* expr: or ("if" or ["else" expr])* */
static TplNode *parse_expr(Ps *p)
{
    if (!enter(p))
        return NULL;
    TplNode *l = parse_or(p);
    while (l && is_name(p, "if")) {
        TplNode *n = node(p, N_COND, cur(p));
        adv(p);
        if (!n || !(n->a = parse_or(p))) {
            l = NULL;
            break;
        }
        n->b = l;
        if (is_name(p, "else")) {
            adv(p);
            if (!(n->c = parse_expr(p))) {
                l = NULL;
                break;
            }
        }
        l = n;
    }
    p->nest--;
    return l;
}

/* ---- statements ---------------------------------------------------------- */
static int parse_body(Ps *p, TplNodes *body, const char *const *ends, const TplToken *opener);

/* The "end..." tag among a block's possible terminators. */
static const char *want_end(const char *const *ends)
{
    const char *want = ends[0];
    for (const char *const *w = ends; *w; w++)
        if (!strncmp(*w, "end", 3))
            want = *w;
    return want;
}

static int end_tag(Ps *p)
{
    if (cur(p)->kind == TK_BLOCK_END) {
        adv(p);
        return 1;
    }
    unexpected(p, "end of statement '%}'");
    return 0;
}

/* Consume "name" of an end tag after parse_body stopped at it. */
static int close_tag(Ps *p)
{
    adv(p);
    return end_tag(p);
}

/* for: "for" name ["," name] "in" or ["if" expr] "%}" body ["else" "%}" body] "endfor" */
static TplNode *parse_for(Ps *p, const TplToken *kw)
{
    TplNode *n = node(p, N_FOR, kw);
    if (!n)
        return NULL;
    if (cur(p)->kind != TK_NAME)
        return unexpected(p, "a loop variable");
    set_name(n, cur(p));
    adv(p);
    if (accept(p, TK_COMMA)) {
        if (cur(p)->kind != TK_NAME)
            return unexpected(p, "a loop variable");
        n->name2 = cur(p)->s;
        n->name2len = cur(p)->n;
        adv(p);
    }
    if (!is_name(p, "in"))
        return unexpected(p, "'in'");
    adv(p);
    if (!(n->a = parse_or(p)))
        return NULL;
    if (is_name(p, "if")) {
        adv(p);
        if (!(n->c = parse_expr(p)))
            return NULL;
    }
    static const char *const ends[] = { "endfor", "else", NULL };
    if (!end_tag(p) || !parse_body(p, &n->kids, ends, kw))
        return NULL;
    if (is_name(p, "else")) {
        static const char *const ends2[] = { "endfor", NULL };
        if (!close_tag(p) || !parse_body(p, &n->kids2, ends2, kw))
            return NULL;
    }
    return close_tag(p) ? n : NULL;
}

/* if: "if" expr "%}" body ("elif" expr "%}" body)* ["else" "%}" body] "endif" */
static TplNode *parse_if(Ps *p, const TplToken *kw)
{
    static const char *const ends[] = { "elif", "else", "endif", NULL };
    static const char *const ends2[] = { "endif", NULL };
    TplNode *n = node(p, N_IF, kw);
    if (!n || !(n->a = parse_expr(p)) || !end_tag(p) || !parse_body(p, &n->kids, ends, kw))
        return NULL;
    if (is_name(p, "elif")) {
        const TplToken *t = cur(p);
        adv(p);
        /* an elif is an if nested in the else branch; it consumes the endif */
        if (!enter(p))
            return NULL;
        TplNode *e = parse_if(p, t);
        p->nest--;
        return e && add(p, &n->kids2, e) ? n : NULL;
    }
    if (is_name(p, "else") && (!close_tag(p) || !parse_body(p, &n->kids2, ends2, kw)))
        return NULL;
    return close_tag(p) ? n : NULL;
}

/* set: "set" name "=" expr "%}" | "set" name "%}" body "endset" */
static TplNode *parse_set(Ps *p, const TplToken *kw)
{
    TplNode *n = node(p, N_SET, kw);
    if (!n)
        return NULL;
    if (cur(p)->kind != TK_NAME)
        return unexpected(p, "a variable name");
    set_name(n, cur(p));
    adv(p);
    if (accept(p, TK_ASSIGN))
        return (n->a = parse_expr(p)) && end_tag(p) ? n : NULL;
    static const char *const ends[] = { "endset", NULL };
    n->kind = N_SETBLOCK;
    if (!end_tag(p) || !parse_body(p, &n->kids, ends, kw))
        return NULL;
    return close_tag(p) ? n : NULL;
}

/* macro: "macro" name "(" [name ["=" expr] ("," ...)*] ")" "%}" body "endmacro" */
static TplNode *parse_macro(Ps *p, const TplToken *kw)
{
    TplNode *n = node(p, N_MACRO, kw);
    if (!n)
        return NULL;
    if (cur(p)->kind != TK_NAME)
        return unexpected(p, "a macro name");
    set_name(n, cur(p));
    adv(p);
    if (!expect(p, TK_LPAREN))
        return NULL;
    while (cur(p)->kind != TK_RPAREN) {
        if (n->kids2.n && !expect(p, TK_COMMA))
            return NULL;
        if (cur(p)->kind != TK_NAME)
            return unexpected(p, "a parameter name");
        TplNode *param = node(p, N_NAME, cur(p));
        if (!param)
            return NULL;
        set_name(param, cur(p));
        adv(p);
        if (accept(p, TK_ASSIGN)) {
            if (!(param->a = parse_expr(p)))
                return NULL;
        } else if (n->kids2.n && n->kids2.v[n->kids2.n - 1]->a) {
            return fail_at(p, cur(p), "parameter without a default follows one with a default");
        }
        if (!add(p, &n->kids2, param))
            return NULL;
    }
    adv(p);
    static const char *const ends[] = { "endmacro", NULL };
    if (!end_tag(p) || !parse_body(p, &n->kids, ends, kw))
        return NULL;
    return close_tag(p) ? n : NULL;
}

static TplNode *parse_stmt(Ps *p)
{
    const TplToken *t = cur(p);
    if (t->kind == TK_TEXT) {
        TplNode *n = node(p, N_TEXT, t);
        adv(p);
        if (n && !(n->val = tpl_string_n(p->a, t->s, t->n)))
            return fail_at(p, t, "out of memory");
        return n;
    }
    if (t->kind == TK_VAR_BEGIN) {
        adv(p);
        TplNode *n = node(p, N_OUTPUT, t);
        if (!n || !(n->a = parse_expr(p)))
            return NULL;
        if (cur(p)->kind != TK_VAR_END)
            return unexpected(p, "end of print statement '}}'");
        adv(p);
        return n;
    }
    /* TK_BLOCK_BEGIN */
    adv(p);
    const TplToken *kw = cur(p);
    if (kw->kind != TK_NAME)
        return unexpected(p, "a statement name");
    adv(p);
#define KW(w) (kw->n == sizeof(w) - 1 && !memcmp(kw->s, w, kw->n))
    if (KW("for"))
        return parse_for(p, kw);
    if (KW("if"))
        return parse_if(p, kw);
    if (KW("set"))
        return parse_set(p, kw);
    if (KW("macro"))
        return parse_macro(p, kw);
    if (KW("include")) {
        TplNode *n = node(p, N_INCLUDE, kw);
        return n && (n->a = parse_expr(p)) && end_tag(p) ? n : NULL;
    }
    if (KW("endfor") || KW("endif") || KW("endmacro") || KW("endset") || KW("else") ||
        KW("elif") || KW("endraw"))
        return fail_at(p, kw, "unexpected '%.*s': no open block to close", (int)kw->n, kw->s);
#undef KW
    return fail_at(p, kw, "unknown statement '%.*s'", (int)(kw->n > 40 ? 40 : kw->n), kw->s);
}

/* body: stmt* up to a "{%" whose name is in `ends` (left current), or EOF when
 * ends is NULL. The opener names the block for the error messages. */
static int parse_body(Ps *p, TplNodes *body, const char *const *ends, const TplToken *opener)
{
    if (!enter(p))
        return 0;
    for (;;) {
        const TplToken *t = cur(p);
        if (t->kind == TK_EOF) {
            if (ends) {
                fail_at(p, opener, "'%.*s' is never closed: expected '%s' before the end of the template",
                        (int)opener->n, opener->s, want_end(ends));
                return 0;
            }
            break;
        }
        if (t->kind == TK_BLOCK_BEGIN && ends && peek(p)->kind == TK_NAME) {
            const TplToken *nm = peek(p);
            int hit = 0;
            for (const char *const *e = ends; *e; e++)
                if (nm->n == strlen(*e) && !memcmp(nm->s, *e, nm->n))
                    hit = 1;
            if (hit) {
                adv(p);
                break;
            }
            static const char *const all_ends[] = { "endfor", "endif", "endmacro", "endset",
                                                    "else", "elif", NULL };
            for (const char *const *e = all_ends; *e; e++)
                if (nm->n == strlen(*e) && !memcmp(nm->s, *e, nm->n)) {
                    fail_at(p, nm, "mismatched end tag: expected '%s' to close '%.*s' at line %d, got '%s'",
                            want_end(ends), (int)opener->n, opener->s, opener->line, *e);
                    return 0;
                }
        }
        if (!add(p, body, parse_stmt(p)))
            return 0;
    }
    p->nest--;
    return 1;
}

TplNode *tpl_parse(tpl_arena *a, const char *name, const char *src, size_t len,
                   const TplTokens *toks, tpl_error *err)
{
    Ps p = { a, name, src, len, toks->t, 0, err, 0, 0 };
    TplNode *root = node(&p, N_TEXT, &toks->t[0]);
    if (!root || !parse_body(&p, &root->kids, NULL, NULL))
        return NULL;
    return root;
}
