/* expr.h - spec expressions: integer arithmetic over params, loop variables and
 * the partition/free indices p and f; float scalars; regions t[a:b, c, :];
 * comparison predicates. Lexed by re2c (expr.re), parsed by a Pratt parser
 * (expr.c); evaluated with floor division and overflow checks. */
#ifndef TILEGEN_EXPR_H
#define TILEGEN_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "spec_load.h"

enum {
    EXPR_MAX_NODES = 512,  /* nodes in one expression (bounds tree depth) */
    EXPR_MAX_SLICES = 8,   /* indices in one region */
    EXPR_VAR_P = 0,        /* env[] slot of the partition index p */
    EXPR_VAR_F = 1,        /* env[] slot of the flat free index f */
    EXPR_VAR_FIRST = 2,    /* env[] slot of the first loop variable */
    EXPR_AFFINE_MAX_VARS = 256, /* variable slots expr_affine handles */
};

/* ---- lexer (expr.re) ---- */
typedef enum {
    EXPR_T_EOF, EXPR_T_INT, EXPR_T_FLOAT, EXPR_T_IDENT,
    EXPR_T_PLUS, EXPR_T_MINUS, EXPR_T_STAR, EXPR_T_SLASH, EXPR_T_PERCENT,
    EXPR_T_LPAREN, EXPR_T_RPAREN, EXPR_T_LBRACK, EXPR_T_RBRACK, EXPR_T_COLON, EXPR_T_COMMA,
    EXPR_T_LT, EXPR_T_LE, EXPR_T_GT, EXPR_T_GE, EXPR_T_EQ, EXPR_T_NE,
    EXPR_T_BAD
} ExprTokKind;

typedef struct ExprToken {
    ExprTokKind kind; /* what was read */
    size_t off;       /* byte offset of the token in the string */
    size_t len;       /* bytes in the token */
} ExprToken;

/* The token starting at or after byte `pos` of NUL-terminated s. */
ExprToken expr_lex(const char *s, size_t pos);
const char *expr_tok_name(ExprTokKind k);

/* ---- trees ---- */
typedef enum {
    EXPR_INT,   /* ival */
    EXPR_FLOAT, /* fval (only in number fields, expr_parse_number) */
    EXPR_NAME,  /* name, not yet resolved */
    EXPR_VAR,   /* ival = env[] slot (p, f or a loop variable) */
    EXPR_NEG, EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_DIV, EXPR_MOD, EXPR_MIN, EXPR_MAX
} ExprKind;

/* program_id(a) and num_programs(a) (SPEC.md §2.1) parse to an EXPR_NAME
 * named "program_id_<a>" / "num_programs_<a>" with ival EXPR_GRID_PID /
 * EXPR_GRID_NPROG (a NAME as written has ival 0); the checker resolves them
 * to the grid loop's variable (named "program_id_<a>") or to its count. */
#define EXPR_GRID_NAME_FMT "%s_%lld"
enum { EXPR_GRID_PID = 1, EXPR_GRID_NPROG = 2 };

typedef struct Expr {
    ExprKind kind;      /* node kind */
    int64_t ival;       /* INT value, or VAR env slot */
    double fval;        /* FLOAT value */
    const char *name;   /* NAME / VAR: the identifier as written */
    struct Expr *a, *b; /* operands (b unused for NEG) */
    SrcLoc loc;         /* where the node starts */
} Expr;

struct ExprRegion;

typedef struct ExprSlice {
    int is_index;  /* 1: a single index `e` (the dimension is dropped) */
    struct ExprRegion *ind; /* an index column `ix[:, c]` (SPEC.md §2.1 indirect DMA):
                               is_index set, start NULL; the region it names */
    Expr *start;   /* start (or the index); NULL = 0 */
    Expr *stop;    /* stop; NULL = the dimension's size */
    Expr *step;    /* step; NULL = 1 */
    SrcLoc loc;    /* where this index/slice starts */
} ExprSlice;

typedef struct ExprRegion {
    const char *name;                 /* tensor or tile name */
    SrcLoc loc;                       /* where the name is */
    int bracketed;                    /* written with [...] */
    int nslices;                      /* entries in slice[] */
    ExprSlice slice[EXPR_MAX_SLICES]; /* one per indexed dimension */
} ExprRegion;

typedef enum { EXPR_CMP_LT, EXPR_CMP_LE, EXPR_CMP_GT, EXPR_CMP_GE, EXPR_CMP_EQ, EXPR_CMP_NE } ExprCmp;

typedef struct ExprPred {
    Expr *lhs, *rhs; /* the two sides */
    ExprCmp cmp;     /* how they compare */
} ExprPred;

/* A parse or evaluation failure: where, which code, what. */
typedef struct ExprError {
    SrcLoc loc;
    const char *code; /* "E009" syntax, "E018" arithmetic */
    char msg[200];
} ExprError;

/* Parsers: text is a scalar node's value; `node` (may be NULL) gives locations.
 * Each returns NULL / 0 on failure with *err filled. */
Expr *expr_parse_int(Arena *a, const SpecNode *node, const char *text, ExprError *err);
/* A number: an expression that may also hold float literals (1e-6, inf). */
Expr *expr_parse_number(Arena *a, const SpecNode *node, const char *text, ExprError *err);
int expr_parse_region(Arena *a, const SpecNode *node, const char *text, ExprRegion *out, ExprError *err);
int expr_parse_pred(Arena *a, const SpecNode *node, const char *text, ExprPred *out, ExprError *err);

/* ---- evaluation ---- */
/* Value of e with variables from env[]. 0 on success; on overflow, division by
 * zero or an unresolved name returns -1 and fills err (if not NULL). */
int expr_eval(const Expr *e, const int64_t *env, int64_t *out, ExprError *err);
/* Value of a number field (SPEC.md §2.1): e evaluated in floating point —
 * integers, params and loop variables convert exactly, `/` is true division,
 * `%` the floored remainder, min/max as usual. *out is that double; every use
 * rounds it once to float32 (so listings keep `1e-05`, not its float32 digits).
 * -1 with err (E018) on division by zero, an integer beyond 2^53, a result that
 * is not a number or a finite result beyond float32's range. */
int expr_eval_float(const Expr *e, const int64_t *env, double *out, ExprError *err);
/* 1 if e is constant (no variables or names). */
int expr_is_const(const Expr *e);
/* Affine form: *c + sum coef[v]*env[v] over v < nvars. Returns 1 when e is
 * affine (and nothing overflows), else 0. */
int expr_affine(const Expr *e, int nvars, int64_t *coef, int64_t *c);
/* Mark used[v] = 1 for every variable slot v < nvars that e reads. */
void expr_vars_used(const Expr *e, unsigned char *used, int nvars);
/* Print e as source-like text into buf. */
void expr_format(const Expr *e, char *buf, size_t size);
/* A constant node. */
Expr *expr_new_int(Arena *a, int64_t v, SrcLoc loc);
/* An operator node l k r (r unused for EXPR_NEG); NULL when an operand is
 * NULL (an earlier allocation failed) or memory runs out. */
Expr *expr_new_op(Arena *a, ExprKind k, Expr *l, Expr *r, SrcLoc loc);
const char *expr_cmp_name(ExprCmp c);
int expr_cmp_eval(ExprCmp c, int64_t l, int64_t r);

/* Checked 64-bit arithmetic; return 0 on overflow. */
int expr_add(int64_t a, int64_t b, int64_t *r);
int expr_mul(int64_t a, int64_t b, int64_t *r);
/* Floor division/modulo; b must be non-zero. */
int64_t expr_floordiv(int64_t a, int64_t b);
int64_t expr_floormod(int64_t a, int64_t b);

#endif
