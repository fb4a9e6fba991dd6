/* expr_eval.c - evaluation of parsed expressions: checked 64-bit integer
 * arithmetic with floor division, floating point for number fields, affine forms over loop variables, the set of
 * variables an expression reads, and printing. (The lexer and parser are in
 * expr.re, which generates its own expr.c in the build tree.) */
#include "expr.h"
#include "tg_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int expr_add(int64_t a, int64_t b, int64_t *r)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return 0;
    *r = a + b;
    return 1;
}

int expr_mul(int64_t a, int64_t b, int64_t *r)
{
    if (a == 0 || b == 0) {
        *r = 0;
        return 1;
    }
    if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN))
        return 0;
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
        return 0;
    *r = a * b;
    return 1;
}

int64_t expr_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

int64_t expr_floormod(int64_t a, int64_t b)
{
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0)))
        m += b;
    return m;
}

static int eval_fail(ExprError *err, const Expr *e, const char *msg)
{
    if (err) {
        err->loc = e->loc;
        err->code = "E018";
        snprintf(err->msg, sizeof err->msg, "%s", msg);
    }
    return -1;
}

int expr_eval(const Expr *e, const int64_t *env, int64_t *out, ExprError *err)
{
    int64_t a = 0, b = 0;
    switch (e->kind) {
    case EXPR_INT:
        *out = e->ival;
        return 0;
    case EXPR_VAR:
        if (!env)
            return eval_fail(err, e, "a loop variable is not allowed here");
        *out = env[e->ival];
        return 0;
    case EXPR_FLOAT:
        return eval_fail(err, e, "a float is not allowed here");
    case EXPR_NAME:
        return eval_fail(err, e, "unresolved name");
    default:
        break;
    }
    if (expr_eval(e->a, env, &a, err))
        return -1;
    if (e->kind == EXPR_NEG) {
        if (a == INT64_MIN)
            return eval_fail(err, e, "integer overflow in negation");
        *out = -a;
        return 0;
    }
    if (expr_eval(e->b, env, &b, err))
        return -1;
    switch (e->kind) {
    case EXPR_ADD:
        if (!expr_add(a, b, out))
            return eval_fail(err, e, "integer overflow in '+'");
        return 0;
    case EXPR_SUB:
        if (b == INT64_MIN || !expr_add(a, -b, out))
            return eval_fail(err, e, "integer overflow in '-'");
        return 0;
    case EXPR_MUL:
        if (!expr_mul(a, b, out))
            return eval_fail(err, e, "integer overflow in '*'");
        return 0;
    case EXPR_DIV:
    case EXPR_MOD:
        if (b == 0)
            return eval_fail(err, e, e->kind == EXPR_DIV ? "division by zero" : "modulo by zero");
        if (a == INT64_MIN && b == -1)
            return eval_fail(err, e, "integer overflow in division");
        *out = e->kind == EXPR_DIV ? expr_floordiv(a, b) : expr_floormod(a, b);
        return 0;
    case EXPR_MIN:
        *out = a < b ? a : b;
        return 0;
    case EXPR_MAX:
        *out = a > b ? a : b;
        return 0;
    default:
        return eval_fail(err, e, "bad expression");
    }
}

/* An integer as a double, exactly (|v| <= 2^53). */
static int exact_double(const Expr *e, int64_t v, double *out, ExprError *err)
{
    if (v > (INT64_C(1) << 53) || v < -(INT64_C(1) << 53))
        return eval_fail(err, e, "integer too large to convert exactly to a float (limit 2^53)");
    *out = (double)v;
    return 0;
}

static int eval_double(const Expr *e, const int64_t *env, double *out, ExprError *err)
{
    double a = 0, b = 0;
    switch (e->kind) {
    case EXPR_INT:
        return exact_double(e, e->ival, out, err);
    case EXPR_VAR:
        if (!env)
            return eval_fail(err, e, "a loop variable is not allowed here");
        return exact_double(e, env[e->ival], out, err);
    case EXPR_FLOAT:
        *out = e->fval;
        return 0;
    case EXPR_NAME:
        return eval_fail(err, e, "unresolved name");
    default:
        break;
    }
    if (eval_double(e->a, env, &a, err))
        return -1;
    if (e->kind == EXPR_NEG) {
        *out = -a;
        return 0;
    }
    if (eval_double(e->b, env, &b, err))
        return -1;
    switch (e->kind) {
    case EXPR_ADD: *out = a + b; return 0;
    case EXPR_SUB: *out = a - b; return 0;
    case EXPR_MUL: *out = a * b; return 0;
    case EXPR_DIV:
    case EXPR_MOD:
        if (b == 0)
            return eval_fail(err, e, e->kind == EXPR_DIV ? "division by zero" : "modulo by zero");
        /* floored %: the runtime's definition, which the back ends use too */
        *out = e->kind == EXPR_DIV ? a / b : tg_math_mod_floor_d(a, b);
        return 0;
    case EXPR_MIN: *out = tg_math_min_d(a, b); return 0;
    case EXPR_MAX: *out = tg_math_max_d(a, b); return 0;
    default:
        return eval_fail(err, e, "bad expression");
    }
}

int expr_eval_float(const Expr *e, const int64_t *env, double *out, ExprError *err)
{
    double v;
    if (eval_double(e, env, &v, err))
        return -1;
    if (v != v)
        return eval_fail(err, e, "the value is not a number (NaN)");
    float f = (float)v;
    if (f - f != 0 && v - v == 0) /* finite, but beyond float32 */
        return eval_fail(err, e, "number out of float32 range");
    *out = v; /* the back ends round it to float32 where they use it: once */
    return 0;
}

int expr_is_const(const Expr *e)
{
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT:
        return 1;
    case EXPR_VAR:
    case EXPR_NAME:
        return 0;
    case EXPR_NEG:
        return expr_is_const(e->a);
    default:
        return expr_is_const(e->a) && expr_is_const(e->b);
    }
}

/* Scale an affine form in place by k; 0 on overflow. */
static int affine_scale(int nvars, int64_t *coef, int64_t *c, int64_t k)
{
    for (int v = 0; v < nvars; v++)
        if (!expr_mul(coef[v], k, &coef[v]))
            return 0;
    return expr_mul(*c, k, c);
}

static int affine_is_const(int nvars, const int64_t *coef)
{
    for (int v = 0; v < nvars; v++)
        if (coef[v])
            return 0;
    return 1;
}


int expr_affine(const Expr *e, int nvars, int64_t *coef, int64_t *c)
{
    if (nvars > EXPR_AFFINE_MAX_VARS)
        return 0;
    memset(coef, 0, (size_t)nvars * sizeof *coef);
    *c = 0;
    switch (e->kind) {
    case EXPR_INT:
        *c = e->ival;
        return 1;
    case EXPR_VAR:
        if (e->ival < 0 || e->ival >= nvars)
            return 0;
        coef[e->ival] = 1;
        return 1;
    case EXPR_NEG:
        return expr_affine(e->a, nvars, coef, c) && affine_scale(nvars, coef, c, -1);
    case EXPR_FLOAT:
    case EXPR_NAME:
        return 0;
    default:
        break;
    }
    int64_t cb, coefb[EXPR_AFFINE_MAX_VARS];
    if (!expr_affine(e->a, nvars, coef, c) || !expr_affine(e->b, nvars, coefb, &cb))
        return 0;
    int ca = affine_is_const(nvars, coef), cbk = affine_is_const(nvars, coefb);
    switch (e->kind) {
    case EXPR_ADD:
    case EXPR_SUB: {
        int64_t s = e->kind == EXPR_ADD ? 1 : -1;
        for (int v = 0; v < nvars; v++) {
            int64_t t;
            if (!expr_mul(coefb[v], s, &t) || !expr_add(coef[v], t, &coef[v]))
                return 0;
        }
        int64_t t;
        return expr_mul(cb, s, &t) && expr_add(*c, t, c);
    }
    case EXPR_MUL:
        if (cbk)
            return affine_scale(nvars, coef, c, cb);
        if (ca) {
            int64_t k = *c;
            memcpy(coef, coefb, (size_t)nvars * sizeof *coef);
            *c = cb;
            return affine_scale(nvars, coef, c, k);
        }
        return 0;
    default: {
        /* div, mod, min, max: affine only when both sides are constants */
        if (!ca || !cbk)
            return 0;
        Expr ka = {.kind = EXPR_INT, .ival = *c}, kb = {.kind = EXPR_INT, .ival = cb};
        Expr k = *e;
        k.a = &ka;
        k.b = &kb;
        return expr_eval(&k, NULL, c, NULL) == 0;
    }
    }
}

void expr_vars_used(const Expr *e, unsigned char *used, int nvars)
{
    if (!e)
        return;
    if (e->kind == EXPR_VAR && e->ival >= 0 && e->ival < nvars)
        used[e->ival] = 1;
    if (e->a)
        expr_vars_used(e->a, used, nvars);
    if (e->b)
        expr_vars_used(e->b, used, nvars);
}

static int prec_of(ExprKind k)
{
    switch (k) {
    case EXPR_ADD:
    case EXPR_SUB:
        return 1;
    case EXPR_MUL:
    case EXPR_DIV:
    case EXPR_MOD:
        return 2;
    case EXPR_NEG:
        return 3;
    default:
        return 4;
    }
}

/* Append printed e to buf at *pos (bounded). */
static void fmt(const Expr *e, char *buf, size_t size, size_t *pos)
{
#define PUT(...)                                                                                                   \
    do {                                                                                                           \
        if (*pos < size) {                                                                                         \
            int n_ = snprintf(buf + *pos, size - *pos, __VA_ARGS__);                                              \
            *pos += n_ > 0 ? (size_t)n_ : 0;                                                                       \
        }                                                                                                          \
    } while (0)
    static const char *const ops[] = {[EXPR_ADD] = " + ", [EXPR_SUB] = " - ", [EXPR_MUL] = "*",
                                      [EXPR_DIV] = "/", [EXPR_MOD] = "%"};
    switch (e->kind) {
    case EXPR_INT:
        PUT("%lld", (long long)e->ival);
        return;
    case EXPR_FLOAT:
        PUT("%g", e->fval);
        return;
    case EXPR_NAME:
    case EXPR_VAR:
        PUT("%s", e->name ? e->name : "?");
        return;
    case EXPR_NEG:
        PUT("-");
        if (prec_of(e->a->kind) < 3)
            PUT("(");
        fmt(e->a, buf, size, pos);
        if (prec_of(e->a->kind) < 3)
            PUT(")");
        return;
    case EXPR_MIN:
    case EXPR_MAX:
        PUT("%s(", e->kind == EXPR_MIN ? "min" : "max");
        fmt(e->a, buf, size, pos);
        PUT(", ");
        fmt(e->b, buf, size, pos);
        PUT(")");
        return;
    default: {
        int p = prec_of(e->kind);
        int pa = prec_of(e->a->kind) < p, pb = prec_of(e->b->kind) <= p;
        if (pa)
            PUT("(");
        fmt(e->a, buf, size, pos);
        if (pa)
            PUT(")");
        PUT("%s", ops[e->kind]);
        if (pb)
            PUT("(");
        fmt(e->b, buf, size, pos);
        if (pb)
            PUT(")");
        return;
    }
    }
#undef PUT
}

void expr_format(const Expr *e, char *buf, size_t size)
{
    size_t pos = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    fmt(e, buf, size, &pos);
    buf[size - 1] = '\0';
}

Expr *expr_new_int(Arena *a, int64_t v, SrcLoc loc)
{
    Expr *e = arena_alloc(a, sizeof *e);
    if (e) {
        e->kind = EXPR_INT;
        e->ival = v;
        e->loc = loc;
    }
    return e;
}

Expr *expr_new_op(Arena *a, ExprKind k, Expr *l, Expr *r, SrcLoc loc)
{
    if (!l || (k != EXPR_NEG && !r))
        return NULL;
    Expr *e = arena_alloc(a, sizeof *e);
    if (e) {
        e->kind = k;
        e->a = l;
        e->b = r;
        e->loc = loc;
    }
    return e;
}

const char *expr_cmp_name(ExprCmp c)
{
    static const char *const n[] = {"<", "<=", ">", ">=", "==", "!="};
    return n[c];
}

int expr_cmp_eval(ExprCmp c, int64_t l, int64_t r)
{
    switch (c) {
    case EXPR_CMP_LT: return l < r;
    case EXPR_CMP_LE: return l <= r;
    case EXPR_CMP_GT: return l > r;
    case EXPR_CMP_GE: return l >= r;
    case EXPR_CMP_EQ: return l == r;
    default: return l != r;
    }
}
