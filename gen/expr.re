/* expr.re - lexer (re2c) and Pratt parser of spec expressions (SPEC.md §2):
 * integer expressions, float expressions, regions `t[a:b, c:d:s, e, :]` and
 * predicates `e1 OP e2`. Errors carry the column inside the YAML string.
 * Evaluation lives in expr_eval.c. */
#include "expr.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ExprToken expr_lex(const char *s, size_t pos)
{
    const unsigned char *cur = (const unsigned char *)s + pos, *tok, *mrk;
    ExprToken t;
    ExprTokKind k;
    for (;;) {
        tok = cur;
        /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:define:YYCURSOR = cur;
        re2c:define:YYMARKER = mrk;
        re2c:yyfill:enable = 0;
        re2c:sentinel = 0;

        dig = [0-9];
        exp = [eE] [+-]? dig+;

        [ \t\r\n]+ { continue; }
        "\x00"     { cur--; k = EXPR_T_EOF; goto done; }
        dig+       { k = EXPR_T_INT; goto done; }
        (dig+ "." dig* | "." dig+) exp? | dig+ exp { k = EXPR_T_FLOAT; goto done; }
        [A-Za-z_] [A-Za-z0-9_]* { k = EXPR_T_IDENT; goto done; }
        "+"  { k = EXPR_T_PLUS; goto done; }
        "-"  { k = EXPR_T_MINUS; goto done; }
        "*"  { k = EXPR_T_STAR; goto done; }
        "/"  { k = EXPR_T_SLASH; goto done; }
        "%"  { k = EXPR_T_PERCENT; goto done; }
        "("  { k = EXPR_T_LPAREN; goto done; }
        ")"  { k = EXPR_T_RPAREN; goto done; }
        "["  { k = EXPR_T_LBRACK; goto done; }
        "]"  { k = EXPR_T_RBRACK; goto done; }
        ":"  { k = EXPR_T_COLON; goto done; }
        ","  { k = EXPR_T_COMMA; goto done; }
        "<"  { k = EXPR_T_LT; goto done; }
        "<=" { k = EXPR_T_LE; goto done; }
        ">"  { k = EXPR_T_GT; goto done; }
        ">=" { k = EXPR_T_GE; goto done; }
        "==" { k = EXPR_T_EQ; goto done; }
        "!=" { k = EXPR_T_NE; goto done; }
        *    { k = EXPR_T_BAD; goto done; }
        */
    }
done:
    t.kind = k;
    t.off = (size_t)(tok - (const unsigned char *)s);
    t.len = (size_t)(cur - tok);
    return t;
}

const char *expr_tok_name(ExprTokKind k)
{
    static const char *const names[] = {
        "end of expression", "integer", "number", "name", "'+'", "'-'", "'*'", "'/'", "'%'", "'('", "')'",
        "'['", "']'", "':'", "','", "'<'", "'<='", "'>'", "'>='", "'=='", "'!='", "invalid character",
    };
    return names[k];
}

/* Parser state over one string. */
typedef struct Parser {
    Arena *arena;
    const SpecNode *node; /* for locations; may be NULL */
    const char *s;        /* the text */
    ExprToken tok;        /* current token */
    int nodes;            /* nodes built so far */
    int allow_float;      /* float literals accepted here */
    ExprError *err;       /* filled on the first failure */
    int failed;           /* set once err is filled */
    int depth;            /* current nesting of parentheses and unary minus */
} Parser;

enum { EXPR_MAX_DEPTH = 64 }; /* deepest nesting the parser recurses into */

static SrcLoc loc_at(const Parser *p, size_t off)
{
    if (p->node)
        return spec_loc_at(p->node, off);
    SrcLoc l = {NULL, 1, (int)off + 1};
    return l;
}

static void fail(Parser *p, size_t off, const char *code, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    p->err->loc = loc_at(p, off);
    p->err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
}

static void next(Parser *p)
{
    p->tok = expr_lex(p->s, p->tok.off + p->tok.len);
}

static void unexpected(Parser *p, const char *want)
{
    if (p->tok.kind == EXPR_T_BAD)
        fail(p, p->tok.off, "E009", "unexpected character '%c' in expression",
             (unsigned char)p->s[p->tok.off] >= 0x20 && (unsigned char)p->s[p->tok.off] < 0x7f ? p->s[p->tok.off] : '?');
    else
        fail(p, p->tok.off, "E009", "expected %s, found %s", want, expr_tok_name(p->tok.kind));
}

static int accept(Parser *p, ExprTokKind k)
{
    if (p->tok.kind != k)
        return 0;
    next(p);
    return 1;
}

static int expect(Parser *p, ExprTokKind k, const char *want)
{
    if (accept(p, k))
        return 1;
    unexpected(p, want);
    return 0;
}

static Expr *node(Parser *p, ExprKind kind, size_t off)
{
    if (++p->nodes > EXPR_MAX_NODES) {
        fail(p, off, "E009", "expression too long (more than %d terms)", EXPR_MAX_NODES);
        return NULL;
    }
    Expr *e = arena_alloc(p->arena, sizeof *e);
    if (!e) {
        fail(p, off, "E009", "out of memory");
        return NULL;
    }
    e->kind = kind;
    e->loc = loc_at(p, off);
    return e;
}

static Expr *parse_expr(Parser *p, int min_prec);

/* grid_call := ('program_id'|'num_programs') '(' INT ')'
 * (SPEC.md §2.1): a NAME node named EXPR_GRID_NAME_FMT with ival
 * EXPR_GRID_PID or EXPR_GRID_NPROG, which the checker binds to the grid
 * loop of that axis or to its count (docs/diagnostics.md E071, E072). The
 * current token is '('. */
static Expr *parse_grid_call(Parser *p, ExprToken t, int is_pid)
{
    next(p);
    ExprToken a = p->tok;
    if (a.kind != EXPR_T_INT || a.len > 9) {
        fail(p, a.off, "E071", "the axis of %s() is an integer literal 0, 1 or 2 (an axis of the kernel's grid)",
             is_pid ? "program_id" : "num_programs");
        return NULL;
    }
    int64_t axis = 0;
    for (size_t i = 0; i < a.len; i++)
        axis = axis * 10 + (p->s[a.off + i] - '0');
    next(p);
    if (!expect(p, EXPR_T_RPAREN, "')'"))
        return NULL;
    Expr *e = node(p, EXPR_NAME, t.off);
    if (!e)
        return NULL;
    char buf[48];
    snprintf(buf, sizeof buf, EXPR_GRID_NAME_FMT, is_pid ? "program_id" : "num_programs", (long long)axis);
    e->name = arena_strndup(p->arena, buf, strlen(buf));
    e->ival = is_pid ? EXPR_GRID_PID : EXPR_GRID_NPROG;
    return e;
}

/* primary := INT | FLOAT | 'inf' | NAME | ('min'|'max') '(' expr ',' expr ')' | grid_call | '(' expr ')' */
static Expr *parse_primary(Parser *p)
{
    ExprToken t = p->tok;
    const char *text = p->s + t.off;
    switch (t.kind) {
    case EXPR_T_INT: {
        Expr *e = node(p, EXPR_INT, t.off);
        if (!e)
            return NULL;
        int64_t v = 0;
        for (size_t i = 0; i < t.len; i++) {
            if (!expr_mul(v, 10, &v) || !expr_add(v, text[i] - '0', &v)) {
                fail(p, t.off, "E018", "integer %.*s is too large (limit 2^63-1)", (int)(t.len > 40 ? 40 : t.len),
                     text);
                return NULL;
            }
        }
        e->ival = v;
        next(p);
        return e;
    }
    case EXPR_T_FLOAT: {
        if (!p->allow_float) {
            fail(p, t.off, "E009", "a float literal is not allowed here; expected an integer expression");
            return NULL;
        }
        Expr *e = node(p, EXPR_FLOAT, t.off);
        if (!e)
            return NULL;
        char buf[64];
        size_t n = t.len < sizeof buf - 1 ? t.len : sizeof buf - 1;
        memcpy(buf, text, n);
        buf[n] = '\0';
        errno = 0;
        e->fval = strtod(buf, NULL);
        if (errno == ERANGE && isinf(e->fval)) {
            fail(p, t.off, "E018", "number %s is out of range", buf);
            return NULL;
        }
        next(p);
        return e;
    }
    case EXPR_T_IDENT: {
        if (p->allow_float && t.len == 3 && !memcmp(text, "inf", 3)) {
            Expr *e = node(p, EXPR_FLOAT, t.off);
            if (!e)
                return NULL;
            e->fval = INFINITY;
            next(p);
            return e;
        }
        int is_min = t.len == 3 && !memcmp(text, "min", 3), is_max = t.len == 3 && !memcmp(text, "max", 3);
        next(p);
        if ((is_min || is_max) && p->tok.kind == EXPR_T_LPAREN) {
            next(p);
            Expr *e = node(p, is_min ? EXPR_MIN : EXPR_MAX, t.off);
            if (!e)
                return NULL;
            p->depth++;
            e->a = parse_expr(p, 0);
            if (e->a && expect(p, EXPR_T_COMMA, "',' between the two arguments"))
                e->b = parse_expr(p, 0);
            p->depth--;
            if (!e->a || !e->b || !expect(p, EXPR_T_RPAREN, "')'"))
                return NULL;
            return e;
        }
        int is_pid = t.len == 10 && !memcmp(text, "program_id", 10),
            is_np = t.len == 12 && !memcmp(text, "num_programs", 12);
        if ((is_pid || is_np) && p->tok.kind == EXPR_T_LPAREN)
            return parse_grid_call(p, t, is_pid);
        Expr *e = node(p, EXPR_NAME, t.off);
        if (!e)
            return NULL;
        e->name = arena_strndup(p->arena, text, t.len);
        return e;
    }
    case EXPR_T_LPAREN: {
        next(p);
        p->depth++;
        Expr *e = parse_expr(p, 0);
        p->depth--;
        if (!e || !expect(p, EXPR_T_RPAREN, "')'"))
            return NULL;
        return e;
    }
    default:
        unexpected(p, "a number, a name or '('");
        return NULL;
    }
}

/* unary := '-' unary | primary */
static Expr *parse_unary(Parser *p)
{
    if (p->depth >= EXPR_MAX_DEPTH) {
        fail(p, p->tok.off, "E009", "expression nested too deeply (more than %d levels)", EXPR_MAX_DEPTH);
        return NULL;
    }
    if (p->tok.kind == EXPR_T_MINUS) {
        size_t off = p->tok.off;
        next(p);
        p->depth++;
        Expr *a = parse_unary(p);
        p->depth--;
        if (!a)
            return NULL;
        if (a->kind == EXPR_FLOAT) {
            a->fval = -a->fval;
            a->loc = loc_at(p, off);
            return a;
        }
        Expr *e = node(p, EXPR_NEG, off);
        if (e)
            e->a = a;
        return e;
    }
    return parse_primary(p);
}

static int binop_prec(ExprTokKind k, ExprKind *kind)
{
    switch (k) {
    case EXPR_T_PLUS: *kind = EXPR_ADD; return 1;
    case EXPR_T_MINUS: *kind = EXPR_SUB; return 1;
    case EXPR_T_STAR: *kind = EXPR_MUL; return 2;
    case EXPR_T_SLASH: *kind = EXPR_DIV; return 2;
    case EXPR_T_PERCENT: *kind = EXPR_MOD; return 2;
    default: return 0;
    }
}

/* expr := unary (('+'|'-'|'*'|'/'|'%') unary)*   with * / % binding tighter.
 * Float literals only parse where allow_float is set (number fields, which
 * evaluate in floating point: expr_eval_float). */
static Expr *parse_expr(Parser *p, int min_prec)
{
    Expr *lhs = parse_unary(p);
    for (;;) {
        ExprKind kind;
        int prec = lhs ? binop_prec(p->tok.kind, &kind) : 0;
        if (!prec || prec <= min_prec)
            return lhs;
        size_t off = p->tok.off;
        next(p);
        Expr *rhs = parse_expr(p, prec);
        if (!rhs)
            return NULL;
        Expr *e = node(p, kind, off);
        if (!e)
            return NULL;
        e->a = lhs;
        e->b = rhs;
        lhs = e;
    }
}

static void init(Parser *p, Arena *a, const SpecNode *n, const char *text, ExprError *err, int allow_float)
{
    memset(p, 0, sizeof *p);
    p->arena = a;
    p->node = n;
    p->s = text;
    p->err = err;
    p->allow_float = allow_float;
    memset(err, 0, sizeof *err);
    if (n && strlen(text) != n->len) {
        fail(p, strlen(text), "E009", "NUL byte in expression");
        return;
    }
    p->tok = expr_lex(text, 0);
}

static Expr *parse_whole(Arena *a, const SpecNode *n, const char *text, ExprError *err, int allow_float)
{
    Parser p;
    init(&p, a, n, text, err, allow_float);
    if (p.failed)
        return NULL;
    if (p.tok.kind == EXPR_T_EOF) {
        fail(&p, 0, "E009", "empty expression");
        return NULL;
    }
    Expr *e = parse_expr(&p, 0);
    if (e && p.tok.kind != EXPR_T_EOF)
        unexpected(&p, "an operator or the end of the expression");
    return p.failed ? NULL : e;
}

Expr *expr_parse_int(Arena *a, const SpecNode *n, const char *text, ExprError *err)
{
    return parse_whole(a, n, text, err, 0);
}

Expr *expr_parse_number(Arena *a, const SpecNode *n, const char *text, ExprError *err)
{
    return parse_whole(a, n, text, err, 1);
}

static int parse_region_body(Parser *p, ExprRegion *out, int nested);

/* slice := expr | [expr] ':' [expr] [':' [expr]] | region (an index column,
 * NAME '[' ... ']', not nested further) */
static int parse_slice(Parser *p, ExprSlice *s, int nested)
{
    s->loc = loc_at(p, p->tok.off);
    if (p->tok.kind == EXPR_T_IDENT && expr_lex(p->s, p->tok.off + p->tok.len).kind == EXPR_T_LBRACK) {
        if (nested) {
            fail(p, p->tok.off, "E009", "an index column cannot itself be indexed by a tile");
            return 0;
        }
        s->ind = arena_alloc(p->arena, sizeof *s->ind);
        if (!s->ind) {
            fail(p, p->tok.off, "E009", "out of memory");
            return 0;
        }
        memset(s->ind, 0, sizeof *s->ind);
        s->is_index = 1;
        return parse_region_body(p, s->ind, 1);
    }
    int ends_here = p->tok.kind == EXPR_T_COLON;
    if (!ends_here) {
        s->start = parse_expr(p, 0);
        if (!s->start)
            return 0;
        if (p->tok.kind != EXPR_T_COLON) {
            s->is_index = 1;
            return 1;
        }
    }
    next(p); /* ':' */
    if (p->tok.kind != EXPR_T_COLON && p->tok.kind != EXPR_T_COMMA && p->tok.kind != EXPR_T_RBRACK) {
        s->stop = parse_expr(p, 0);
        if (!s->stop)
            return 0;
    }
    if (accept(p, EXPR_T_COLON) && p->tok.kind != EXPR_T_COMMA && p->tok.kind != EXPR_T_RBRACK) {
        s->step = parse_expr(p, 0);
        if (!s->step)
            return 0;
    }
    return 1;
}

/* NAME ['[' slice (',' slice)* ']'] from the current token */
static int parse_region_body(Parser *p, ExprRegion *out, int nested)
{
    if (p->tok.kind != EXPR_T_IDENT) {
        unexpected(p, "a tensor or tile name");
        return 0;
    }
    out->name = arena_strndup(p->arena, p->s + p->tok.off, p->tok.len);
    out->loc = loc_at(p, p->tok.off);
    next(p);
    if (accept(p, EXPR_T_LBRACK)) {
        out->bracketed = 1;
        do {
            if (out->nslices == EXPR_MAX_SLICES) {
                fail(p, p->tok.off, "E009", "too many indices (at most %d)", EXPR_MAX_SLICES);
                return 0;
            }
            if (!parse_slice(p, &out->slice[out->nslices++], nested))
                return 0;
        } while (accept(p, EXPR_T_COMMA));
        if (!expect(p, EXPR_T_RBRACK, "',' or ']'"))
            return 0;
    }
    return !p->failed && out->name;
}

/* region := NAME ['[' slice (',' slice)* ']'] */
int expr_parse_region(Arena *a, const SpecNode *n, const char *text, ExprRegion *out, ExprError *err)
{
    Parser p;
    memset(out, 0, sizeof *out);
    init(&p, a, n, text, err, 0);
    if (p.failed)
        return 0;
    if (!parse_region_body(&p, out, 0))
        return 0;
    if (!p.failed && p.tok.kind != EXPR_T_EOF)
        unexpected(&p, out->bracketed ? "the end of the region" : "'[' or the end of the region");
    return !p.failed && out->name;
}

/* pred := expr ('<'|'<='|'>'|'>='|'=='|'!=') expr */
int expr_parse_pred(Arena *a, const SpecNode *n, const char *text, ExprPred *out, ExprError *err)
{
    Parser p;
    memset(out, 0, sizeof *out);
    init(&p, a, n, text, err, 0);
    if (p.failed)
        return 0;
    out->lhs = parse_expr(&p, 0);
    if (!out->lhs)
        return 0;
    switch (p.tok.kind) {
    case EXPR_T_LT: out->cmp = EXPR_CMP_LT; break;
    case EXPR_T_LE: out->cmp = EXPR_CMP_LE; break;
    case EXPR_T_GT: out->cmp = EXPR_CMP_GT; break;
    case EXPR_T_GE: out->cmp = EXPR_CMP_GE; break;
    case EXPR_T_EQ: out->cmp = EXPR_CMP_EQ; break;
    case EXPR_T_NE: out->cmp = EXPR_CMP_NE; break;
    default:
        unexpected(&p, "a comparison (< <= > >= == !=)");
        return 0;
    }
    next(&p);
    out->rhs = parse_expr(&p, 0);
    if (out->rhs && p.tok.kind != EXPR_T_EOF)
        unexpected(&p, "an operator or the end of the predicate");
    return !p.failed;
}
