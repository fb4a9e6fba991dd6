/* asm.c - the text assembler: NeuronCore assembly (.s, docs/asm.md) -> binary
 * program (runtime/tg_isa.h). One pass, line by line; every error is
 * reported into a Diag as `file:line:col: error[A0xx]` and the rest of its
 * line is skipped, so one run reports all errors. A program is returned only
 * when there were none and it passes the runtime's own validator. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "tg_alu.h"
#include "tg_math.h"
#include "tg_ops.h"

enum { ASM_MAX_PAREN = 64 }; /* nested parentheses in one expression */

/* Assembler state. */
typedef struct A {
    const char *file;     /* name in messages */
    const char *s;        /* the text */
    size_t len;           /* bytes in s */
    size_t pos;           /* cursor */
    int line;             /* 1-based line of the cursor */
    size_t bol;           /* offset of the cursor's line start */
    Diag *diag;           /* errors */
    int errors;           /* reported */
    int line_bad;         /* an error was reported on this line: skip the rest */
    AsmProg prog;         /* what is built */
    int have_kernel, have_target, in_body; /* directives seen; an instruction seen */
    const char *spec;     /* .spec value (for line annotations), malloc'd */
    char tensor_names[ASM_MAX_TENSORS][64]; /* for operand lookup */
    tg_prog_tensor tensors[ASM_MAX_TENSORS];
    char tile_names[ASM_MAX_TILES][64];
    tg_prog_tile tiles[ASM_MAX_TILES];
    int depth;            /* open loops */
    int ncores;           /* `core` instructions so far (format 2.2) */
    int loop_line[TG_ISA_MAX_REGS]; /* where each open loop starts */
    int paren;            /* parentheses open in the expression being parsed */
} A;

static SrcLoc here(const A *a) { return (SrcLoc){a->file, a->line, (int)(a->pos - a->bol) + 1}; }

static SrcLoc at(const A *a, size_t pos) { return (SrcLoc){a->file, a->line, (int)(pos - a->bol) + 1}; }

/* Report once per line; returns 0 so parse functions can `return err(...)`. */
static int err(A *a, SrcLoc loc, const char *code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int err(A *a, SrcLoc loc, const char *code, const char *fmt, ...)
{
    if (a->line_bad)
        return 0;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(a->diag, loc, code, "%s", msg);
    a->errors++;
    a->line_bad = 1;
    return 0;
}

/* ---- characters and tokens ------------------------------------------------- */

static int peek(const A *a) { return a->pos < a->len ? (unsigned char)a->s[a->pos] : 0; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

static void skip_ws(A *a)
{
    while (peek(a) == ' ' || peek(a) == '\t' || peek(a) == '\r')
        a->pos++;
}

/* At the end of the line's content (newline, comment or end of text). */
static int at_eol(A *a)
{
    skip_ws(a);
    return a->pos >= a->len || peek(a) == '\n' || peek(a) == ';';
}

/* What the cursor shows, for messages. */
static const char *shown(const A *a, char *buf, size_t size)
{
    if (a->pos >= a->len || peek(a) == '\n')
        return "end of line";
    size_t n = 0;
    while (a->pos + n < a->len && n < 20 && a->s[a->pos + n] != '\n' && a->s[a->pos + n] != ' ')
        n++;
    snprintf(buf, size, "'%.*s'", (int)n, a->s + a->pos);
    return buf;
}

static int expect(A *a, char c)
{
    skip_ws(a);
    if (peek(a) == c) {
        a->pos++;
        return 1;
    }
    char b[40];
    return err(a, here(a), "A001", "expected '%c', found %s", c, shown(a, b, sizeof b));
}

/* Word: [A-Za-z_][A-Za-z0-9_.]* (dots only when dotted). */
static int word(A *a, char *out, size_t size, int dotted, const char *what)
{
    skip_ws(a);
    size_t st = a->pos, n = 0;
    if (!is_alpha(peek(a))) {
        char b[40];
        return err(a, here(a), "A001", "expected %s, found %s", what, shown(a, b, sizeof b));
    }
    while (is_alpha(peek(a)) || is_digit(peek(a)) || (dotted && peek(a) == '.'))
        a->pos++;
    n = a->pos - st;
    if (n >= size)
        return err(a, at(a, st), "A011", "%s is too long (at most %zu characters)", what, size - 1);
    memcpy(out, a->s + st, n);
    out[n] = '\0';
    return 1;
}

/* Integer literal with optional '-', into *v (within [lo, hi]). */
static int integer(A *a, int64_t *v, int64_t lo, int64_t hi, const char *what)
{
    skip_ws(a);
    size_t st = a->pos;
    int neg = peek(a) == '-';
    if (neg)
        a->pos++;
    if (!is_digit(peek(a))) {
        char b[40];
        a->pos = st;
        return err(a, here(a), "A001", "expected %s, found %s", what, shown(a, b, sizeof b));
    }
    uint64_t u = 0;
    int over = 0;
    while (is_digit(peek(a))) {
        unsigned d = (unsigned)(peek(a) - '0');
        if (u > (UINT64_MAX - d) / 10)
            over = 1;
        else
            u = u * 10 + d;
        a->pos++;
    }
    if (over || u > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        return err(a, at(a, st), "A007", "%s is out of range", what);
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    if (*v < lo || *v > hi)
        return err(a, at(a, st), "A007", "%s %lld is out of range [%lld, %lld]", what, (long long)*v, (long long)lo,
                   (long long)hi);
    return 1;
}

/* "text" (printable, no quotes or backslashes) into malloc'd *out. */
static int string(A *a, char **out)
{
    if (!expect(a, '"'))
        return 0;
    size_t st = a->pos;
    while (a->pos < a->len && peek(a) != '"' && peek(a) != '\n') {
        int c = peek(a);
        if (c < 0x20 || c > 0x7e || c == '\\')
            return err(a, here(a), "A007", "strings hold printable characters without backslashes");
        a->pos++;
    }
    if (peek(a) != '"')
        return err(a, here(a), "A001", "unterminated string");
    *out = malloc(a->pos - st + 1);
    if (!*out)
        return err(a, here(a), "A011", "out of memory");
    memcpy(*out, a->s + st, a->pos - st);
    (*out)[a->pos - st] = '\0';
    a->pos++;
    return 1;
}

static int dtype_word(A *a, tg_dtype *dt)
{
    char w[32];
    size_t st = (skip_ws(a), a->pos);
    if (!word(a, w, sizeof w, 0, "a dtype"))
        return 0;
    int d = tg_dtype_from_name(w, strlen(w));
    if (d < 0)
        return err(a, at(a, st), "A007", "unknown dtype '%s'", w);
    *dt = (tg_dtype)d;
    return 1;
}

/* [d0, d1, ...] with 1..4 positive extents. */
/* A shape of lo..hi dims into dims[hi]. */
static int shape(A *a, uint32_t *dims, uint32_t *rank, uint32_t lo, uint32_t hi)
{
    size_t st = (skip_ws(a), a->pos);
    *rank = 0;
    memset(dims, 0, hi * sizeof *dims);
    if (!expect(a, '['))
        return 0;
    do {
        int64_t v;
        if (*rank >= hi)
            return err(a, here(a), "A011", "at most %u dims", (unsigned)hi);
        if (!integer(a, &v, 1, 0x7fffffff, "an extent"))
            return 0;
        dims[(*rank)++] = (uint32_t)v;
        skip_ws(a);
    } while (peek(a) == ',' && (a->pos++, 1));
    if (!expect(a, ']'))
        return 0;
    if (*rank < lo)
        return err(a, at(a, st), "A007", "a shape needs at least %u dims", (unsigned)lo);
    return 1;
}

/* ---- expressions ----------------------------------------------------------- */

static int expr(A *a, AsmExpr *e, int minprec, int allow_pf);

/* What an expression may hold besides integers, registers and operators. */
enum { AX_PF = 1,   /* p and f (iota, affine_select) */
       AX_FLOAT = 2 /* float literals, inf, nan (a number per iteration, FEXPR) */ };

/* In a FEXPR: a float literal (a number with '.' or an exponent, inf, nan)
 * at the cursor, `neg` for a '-' just before it, into a FCONST. 0 (cursor
 * unmoved) when there is none; -1 after an error. */
static int float_literal(A *a, AsmExpr *e, int neg)
{
    size_t st = a->pos, n = 0;
    char w[64];
    if (is_alpha(peek(a))) {
        while (is_alpha(peek(a)) && n + 1 < sizeof w)
            w[n++] = (char)a->s[a->pos++];
        w[n] = '\0';
        if (strcmp(w, "inf") && strcmp(w, "nan")) {
            a->pos = st;
            return 0;
        }
    } else {
        int fl = 0;
        while (n + 1 < sizeof w && (is_digit(peek(a)) || peek(a) == '.' || peek(a) == 'e' || peek(a) == 'E' ||
                                    ((peek(a) == '+' || peek(a) == '-') && n && (w[n - 1] == 'e' || w[n - 1] == 'E')))) {
            fl |= peek(a) == '.' || peek(a) == 'e' || peek(a) == 'E';
            w[n++] = (char)a->s[a->pos++];
        }
        w[n] = '\0';
        if (!fl) {
            a->pos = st;
            return 0;
        }
    }
    char *end = NULL;
    double d = strtod(w, &end);
    if (*end)
        return err(a, at(a, st), "A007", "'%s' is not a number", w), -1;
    asm_expr_fconst(e, neg ? -d : d);
    return 1;
}

/* primary: INT | rN | p | f | min(e, e) | max(e, e) | (e) | -unary; in a
 * FEXPR also float literals */
static int unary(A *a, AsmExpr *e, int allow_pf)
{
    skip_ws(a);
    int c = peek(a);
    size_t st = a->pos;
    int fl;
    if ((allow_pf & AX_FLOAT) && (fl = float_literal(a, e, 0)) != 0)
        return fl > 0;
    if (c == '-') {
        a->pos++;
        skip_ws(a);
        if ((allow_pf & AX_FLOAT) && (fl = float_literal(a, e, 1)) != 0)
            return fl > 0;
        if (is_digit(peek(a))) {
            int64_t v;
            a->pos = st;
            if (!integer(a, &v, INT64_MIN, INT64_MAX, "an integer"))
                return 0;
            asm_expr_const(e, v);
            return 1;
        }
        if (!unary(a, e, allow_pf))
            return 0;
        asm_expr_op(e, TG_X_NEG);
        return 1;
    }
    if (is_digit(c)) {
        int64_t v;
        if (!integer(a, &v, 0, INT64_MAX, "an integer"))
            return 0;
        asm_expr_const(e, v);
        return 1;
    }
    if (c == '(') {
        if (++a->paren > ASM_MAX_PAREN)
            return err(a, here(a), "A011", "expression nests deeper than %d parentheses", ASM_MAX_PAREN);
        a->pos++;
        if (!expr(a, e, 1, allow_pf) || !expect(a, ')'))
            return 0;
        a->paren--;
        return 1;
    }
    char w[16];
    if (!is_alpha(c)) {
        char b[40];
        return err(a, here(a), "A001", "expected an expression, found %s", shown(a, b, sizeof b));
    }
    if (!word(a, w, sizeof w, 0, "a name"))
        return 0;
    if (!strcmp(w, "min") || !strcmp(w, "max")) {
        if (!expect(a, '(') || !expr(a, e, 1, allow_pf) || !expect(a, ',') || !expr(a, e, 1, allow_pf) ||
            !expect(a, ')'))
            return 0;
        asm_expr_op(e, w[1] == 'i' ? TG_X_MIN : TG_X_MAX);
        return 1;
    }
    if ((!strcmp(w, "p") || !strcmp(w, "f"))) {
        if (!(allow_pf & AX_PF))
            return err(a, at(a, st), "A010", "'%s' (partition/free index) is only allowed in iota and affine_select "
                                             "expressions", w);
        asm_expr_leaf(e, w[0] == 'p' ? TG_X_P : TG_X_F, 0);
        return 1;
    }
    if (w[0] == 'r' && is_digit((unsigned char)w[1]) && w[2] == '\0') {
        int r = w[1] - '0';
        if (r >= a->depth)
            return err(a, at(a, st), "A010", "loop register r%d is not live here (%d loop%s open)", r, a->depth,
                       a->depth == 1 ? "" : "s");
        asm_expr_leaf(e, TG_X_REG, r);
        return 1;
    }
    return err(a, at(a, st), "A006", "unknown name '%s' in an expression (loop registers are r0..r%d)", w,
               TG_ISA_MAX_REGS - 1);
}

static int binop(const A *a, tg_isa_xop *op, int *prec)
{
    switch (peek(a)) {
    case '+': *op = TG_X_ADD; *prec = 1; return 1;
    case '-': *op = TG_X_SUB; *prec = 1; return 1;
    case '*': *op = TG_X_MUL; *prec = 2; return 1;
    case '/': *op = TG_X_DIV; *prec = 2; return 1;
    case '%': *op = TG_X_MOD; *prec = 2; return 1;
    default: return 0;
    }
}

/* expr := unary (binop expr)* by precedence climbing, left-associative */
static int expr(A *a, AsmExpr *e, int minprec, int allow_pf)
{
    if (!unary(a, e, allow_pf))
        return 0;
    for (;;) {
        tg_isa_xop op;
        int prec;
        size_t save = a->pos;
        skip_ws(a);
        if (!binop(a, &op, &prec) || prec < minprec) {
            a->pos = save;
            return 1;
        }
        a->pos++;
        if (!expr(a, e, prec + 1, allow_pf))
            return 0;
        asm_expr_op(e, op);
    }
}

/* A whole expression into the pool. */
static int pool_expr(A *a, uint32_t *off, int allow_pf)
{
    AsmExpr e;
    asm_expr_init(&e);
    size_t st = (skip_ws(a), a->pos);
    a->paren = 0;
    if (!expr(a, &e, 1, allow_pf))
        return 0;
    if (e.over)
        return err(a, at(a, st), "A011", "expression too long or too deep (stack limit %d)", TG_ISA_MAX_EXPR_STACK);
    *off = asm_prog_expr(&a->prog, &e);
    return 1;
}

/* ---- directives ------------------------------------------------------------ */

static int find_name(char (*names)[64], int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], w))
            return i;
    return -1;
}

static int dir_tensor(A *a)
{
    tg_prog_tensor t;
    char name[64], io[16];
    memset(&t, 0, sizeof t);
    size_t st = (skip_ws(a), a->pos);
    if (!word(a, name, sizeof name, 0, "a tensor name"))
        return 0;
    if (find_name(a->tensor_names, (int)a->prog.ntensors, name) >= 0)
        return err(a, at(a, st), "A008", "tensor '%s' declared twice", name);
    if (a->prog.ntensors >= ASM_MAX_TENSORS)
        return err(a, at(a, st), "A011", "more than %d tensors", ASM_MAX_TENSORS);
    size_t sio = (skip_ws(a), a->pos);
    if (!word(a, io, sizeof io, 0, "input, output, scratch or view"))
        return 0;
    static const char *const kinds[] = {"input", "output", "scratch", "view", NULL};
    int k = 0;
    while (kinds[k] && strcmp(io, kinds[k]))
        k++;
    if (!kinds[k])
        return err(a, at(a, sio), "A001", "expected input, output, scratch or view, found '%s'", io);
    t.kind = (tg_isa_tensor_kind)k;
    t.base = a->prog.ntensors;
    int nviews = 0;
    for (uint32_t i = 0; i < a->prog.ntensors; i++)
        nviews += a->tensors[i].kind == TG_TENSOR_VIEW;
    if (t.kind != TG_TENSOR_VIEW && nviews)
        return err(a, at(a, sio), "A008", "tensor '%s': the views follow every input, output and scratch tensor",
                   name);
    if (t.kind == TG_TENSOR_VIEW) { /* .tensor NAME view BASE DTYPE [shape] */
        char bname[64];
        size_t sb = (skip_ws(a), a->pos);
        if (!word(a, bname, sizeof bname, 0, "the tensor the view is of"))
            return 0;
        int b = find_name(a->tensor_names, (int)a->prog.ntensors, bname);
        if (b < 0)
            return err(a, at(a, sb), "A006", "unknown tensor '%s'", bname);
        if (a->tensors[b].kind == TG_TENSOR_VIEW)
            return err(a, at(a, sb), "A012", "view '%s' is of '%s', a view: name the tensor it is of", name, bname);
        t.base = (uint32_t)b;
    }
    t.is_output = t.kind == TG_TENSOR_VIEW ? a->tensors[t.base].is_output
                  : t.kind == TG_TENSOR_OUTPUT ? 1
                  : t.kind == TG_TENSOR_SCRATCH ? 2 : 0;
    size_t ss = (skip_ws(a), a->pos);
    if (!dtype_word(a, &t.dtype) || !shape(a, t.shape, &t.rank, 1, TG_ISA_MAX_TENSOR_RANK))
        return 0;
    if (t.kind == TG_TENSOR_VIEW) {
        const tg_prog_tensor *b = &a->tensors[t.base];
        uint64_t x = tg_dtype_size(t.dtype), y = tg_dtype_size(b->dtype);
        for (uint32_t d = 0; d < t.rank; d++)
            x *= t.shape[d];
        for (uint32_t d = 0; d < b->rank; d++)
            y *= b->shape[d];
        if (x != y)
            return err(a, at(a, ss), "A012", "view '%s' spans %llu bytes, '%s' %llu: a view has its tensor's bytes",
                       name, (unsigned long long)x, a->tensor_names[t.base], (unsigned long long)y);
    }
    strcpy(a->tensor_names[a->prog.ntensors], name);
    a->tensors[a->prog.ntensors] = t;
    t.name = name;
    asm_prog_tensor(&a->prog, &t);
    return 1;
}

static int keyword(A *a, const char *kw)
{
    char w[16];
    size_t st = (skip_ws(a), a->pos);
    if (!word(a, w, sizeof w, 0, kw))
        return 0;
    if (strcmp(w, kw))
        return err(a, at(a, st), "A001", "expected '%s', found '%s'", kw, w);
    return 1;
}

static int dir_tile(A *a)
{
    tg_prog_tile t;
    char name[64], sp[16];
    int64_t v;
    memset(&t, 0, sizeof t);
    size_t st = (skip_ws(a), a->pos);
    if (!word(a, name, sizeof name, 0, "a tile name"))
        return 0;
    if (find_name(a->tile_names, (int)a->prog.ntiles, name) >= 0)
        return err(a, at(a, st), "A008", "tile '%s' declared twice", name);
    if (a->prog.ntiles >= ASM_MAX_TILES)
        return err(a, at(a, st), "A011", "more than %d tiles", ASM_MAX_TILES);
    size_t ssp = (skip_ws(a), a->pos);
    if (!word(a, sp, sizeof sp, 0, "sbuf or psum"))
        return 0;
    if (strcmp(sp, "sbuf") && strcmp(sp, "psum"))
        return err(a, at(a, ssp), "A001", "expected sbuf or psum, found '%s'", sp);
    t.space = sp[0] == 's' ? TG_SPACE_SBUF : TG_SPACE_PSUM;
    if (!dtype_word(a, &t.dtype) || !shape(a, t.shape, &t.rank, 2, TG_ISA_MAX_RANK) || !keyword(a, "bufs") ||
        !integer(a, &v, 1, 255, "a copy count"))
        return 0;
    t.bufs = (uint32_t)v;
    if (!keyword(a, "p") || !expect(a, '[') || !integer(a, &v, 0, TG_PARTITIONS - 1, "a partition"))
        return 0;
    t.pstart = (uint32_t)v;
    if (!expect(a, ':') || !expect(a, '+') || !integer(a, &v, 1, TG_PARTITIONS - t.pstart, "a partition count") ||
        !expect(a, ']'))
        return 0;
    t.pcount = (uint32_t)v;
    if (!expect(a, '@') || !integer(a, &v, 0, 0x7fffffff, "a byte offset"))
        return 0;
    t.base = (uint32_t)v;
    if (!keyword(a, "slot") || !integer(a, &v, 1, 0x7fffffff, "a slot size"))
        return 0;
    t.slot = (uint32_t)v;
    uint64_t bytes = tg_dtype_size(t.dtype);
    for (uint32_t d = 1; d < t.rank; d++)
        bytes *= t.shape[d];
    uint64_t cap = t.space == TG_SPACE_PSUM ? TG_PSUM_PARTITION_BYTES
                   : a->prog.target == TG_TRN2 ? TG_TRN2_SBUF_PARTITION_BYTES : TG_TRN1_SBUF_PARTITION_BYTES;
    if (t.shape[0] > t.pcount)
        return err(a, at(a, st), "A013", "tile '%s' has %u partitions but only %u are placed", name,
                   (unsigned)t.shape[0], (unsigned)t.pcount);
    if (bytes > t.slot)
        return err(a, at(a, st), "A013", "tile '%s' needs %llu bytes per partition, its slot has %u", name,
                   (unsigned long long)bytes, (unsigned)t.slot);
    if ((uint64_t)t.base + (uint64_t)t.slot * t.bufs > cap)
        return err(a, at(a, st), "A013", "tile '%s' ends at byte %llu, beyond the %s's %llu bytes per partition", name,
                   (unsigned long long)((uint64_t)t.base + (uint64_t)t.slot * t.bufs), sp, (unsigned long long)cap);
    if (!tg_prog_aligned(&t, tg_dtype_size(t.dtype)))
        return err(a, at(a, st), "A014", "tile '%s' (byte %u, slot %u) is not aligned for %s's %u bytes", name,
                   (unsigned)t.base, (unsigned)t.slot, tg_dtype_name(t.dtype), (unsigned)tg_dtype_size(t.dtype));
    strcpy(a->tile_names[a->prog.ntiles], name);
    a->tiles[a->prog.ntiles] = t;
    t.name = name;
    asm_prog_tile(&a->prog, &t);
    return 1;
}

static int directive(A *a)
{
    char w[16];
    size_t st = a->pos;
    a->pos++; /* '.' */
    if (!word(a, w, sizeof w, 0, "a directive"))
        return 0;
    if (a->in_body)
        return err(a, at(a, st), "A008", "directive .%s after the first instruction", w);
    if (!strcmp(w, "kernel")) {
        char k[64];
        if (a->have_kernel)
            return err(a, at(a, st), "A008", "second .kernel");
        if (!word(a, k, sizeof k, 0, "a kernel name"))
            return 0;
        a->prog.kernel = asm_prog_str(&a->prog, k);
        a->have_kernel = 1;
        return 1;
    }
    if (!strcmp(w, "target")) {
        char t[16];
        size_t ts = (skip_ws(a), a->pos);
        if (a->have_target)
            return err(a, at(a, st), "A008", "second .target");
        if (a->prog.ntiles)
            return err(a, at(a, st), "A008", ".target must come before the first .tile");
        if (!word(a, t, sizeof t, 0, "a target"))
            return 0;
        if (strcmp(t, "trn1") && strcmp(t, "trn2"))
            return err(a, at(a, ts), "A007", "unknown target '%s' (trn1 or trn2)", t);
        a->prog.target = t[3] == '2' ? TG_TRN2 : TG_TRN1;
        a->have_target = 1;
        return 1;
    }
    if (!strcmp(w, "spec") || !strcmp(w, "tilegen")) {
        char *v = NULL;
        if (!string(a, &v))
            return 0;
        uint32_t off = asm_prog_str(&a->prog, v);
        if (w[0] == 's') {
            free((void *)a->spec);
            a->spec = v;
            a->prog.spec = off;
        } else {
            a->prog.version = off;
            free(v);
        }
        return 1;
    }
    if (!strcmp(w, "tensor"))
        return dir_tensor(a);
    if (!strcmp(w, "tile"))
        return dir_tile(a);
    return err(a, at(a, st), "A008", "unknown directive '.%s'", w);
}

/* ---- instructions ---------------------------------------------------------- */

/* 1 and *v if the pooled expression at off is one constant. */
static int pool_const(const A *a, uint32_t off, int64_t *v)
{
    const AsmBuf *x = &a->prog.exprs;
    if (off > x->len || x->len - off < 10 || x->data[off] != TG_X_CONST || x->data[off + 9] != TG_X_END)
        return 0;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | x->data[off + 1 + (uint32_t)i];
    *v = (int64_t)u;
    return 1;
}

/* sbuf:t.(buf)[ps:+pc] @off dtype [[s,n],...] | hbm:x[+pc sN] @off dtype [...] */
static int operand(A *a, tg_isa_role role, tg_prog_operand *o)
{
    char sp[8], name[64];
    memset(o, 0, sizeof *o);
    o->role = role;
    size_t st = (skip_ws(a), a->pos);
    if (!word(a, sp, sizeof sp, 0, "hbm, sbuf or psum") || !expect(a, ':'))
        return 0;
    o->space = !strcmp(sp, "hbm") ? TG_SPACE_HBM : !strcmp(sp, "sbuf") ? TG_SPACE_SBUF : TG_SPACE_PSUM;
    size_t sn = (skip_ws(a), a->pos);
    if (!word(a, name, sizeof name, 0, "a tensor or tile name"))
        return 0;
    tg_dtype want = TG_DTYPE_COUNT;
    if (o->space == TG_SPACE_HBM) {
        int i = find_name(a->tensor_names, (int)a->prog.ntensors, name);
        if (i < 0)
            return err(a, at(a, sn), "A006", "unknown tensor '%s'", name);
        o->index = (uint32_t)i;
        want = a->tensors[i].dtype;
        o->pstart = asm_prog_const(&a->prog, 0);
        o->buf = o->pstart;
        if (!expect(a, '[') || !expect(a, '+') || !pool_expr(a, &o->pcount, 0))
            return 0;
        skip_ws(a);
        if (peek(a) != 's')
            return expect(a, 's');
        a->pos++;
        int64_t v;
        if (!integer(a, &v, INT32_MIN, INT32_MAX, "a partition step") || !expect(a, ']'))
            return 0;
        o->pstep = (int32_t)v;
    } else {
        int i = find_name(a->tile_names, (int)a->prog.ntiles, name);
        if (i < 0)
            return err(a, at(a, sn), "A006", "unknown tile '%s'", name);
        if (a->tiles[i].space != o->space)
            return err(a, at(a, st), "A012", "tile '%s' is in %s, not %s", name,
                       a->tiles[i].space == TG_SPACE_SBUF ? "sbuf" : "psum", sp);
        o->index = (uint32_t)i;
        o->pstep = 1;
        skip_ws(a);
        if (peek(a) == '.') {
            a->pos++;
            if (!expect(a, '(') || !pool_expr(a, &o->buf, 0) || !expect(a, ')'))
                return 0;
        } else {
            o->buf = asm_prog_const(&a->prog, 0);
        }
        if (!expect(a, '[') || !pool_expr(a, &o->pstart, 0) || !expect(a, ':') || !expect(a, '+') ||
            !pool_expr(a, &o->pcount, 0) || !expect(a, ']'))
            return 0;
    }
    if (!expect(a, '@'))
        return 0;
    size_t so = (skip_ws(a), a->pos);
    if (!pool_expr(a, &o->offset, 0))
        return 0;
    size_t sd = (skip_ws(a), a->pos);
    if (!dtype_word(a, &o->dtype))
        return 0;
    if (want != TG_DTYPE_COUNT && o->dtype != want)
        return err(a, at(a, sd), "A012", "tensor '%s' is %s, not %s", name, tg_dtype_name(want),
                   tg_dtype_name(o->dtype));
    /* alignment (docs/iss.md, the ISS's contract): what is known here */
    uint32_t es = (uint32_t)tg_dtype_size(o->dtype);
    int64_t off;
    if (o->space != TG_SPACE_HBM && !tg_prog_aligned(&a->tiles[o->index], es))
        return err(a, at(a, sd), "A014", "tile '%s' (byte %u, slot %u) is not aligned for %s's %u bytes", name,
                   (unsigned)a->tiles[o->index].base, (unsigned)a->tiles[o->index].slot, tg_dtype_name(o->dtype),
                   (unsigned)es);
    if (pool_const(a, o->offset, &off) && off % (int64_t)es != 0)
        return err(a, at(a, so), "A014", "byte offset %lld is not a multiple of %s's %u bytes", (long long)off,
                   tg_dtype_name(o->dtype), (unsigned)es);
    if (!expect(a, '['))
        return 0;
    do {
        int64_t v;
        if (o->nfree >= TG_ISA_MAX_FREE)
            return err(a, here(a), "A011", "at most %d free dims", TG_ISA_MAX_FREE);
        if (!expect(a, '[') || !integer(a, &v, INT32_MIN, INT32_MAX, "a step") || !expect(a, ',') ||
            !pool_expr(a, &o->num[o->nfree], 0) || !expect(a, ']'))
            return 0;
        o->step[o->nfree++] = (int32_t)v;
        skip_ws(a);
    } while (peek(a) == ',' && (a->pos++, 1));
    return expect(a, ']');
}

static const char *const cmp_words[TG_CMP_COUNT] = {"lt", "le", "gt", "ge", "eq", "ne"};

/* The value of immediate `key` into *v. */
static int imm_value(A *a, tg_isa_imm key, uint64_t *v)
{
    char w[64];
    int64_t iv;
    size_t st = (skip_ws(a), a->pos);
    switch (tg_isa_imm_kinds[key]) {
    case TG_IMMK_ALU:
    case TG_IMMK_ACT:
    case TG_IMMK_CMP:
    case TG_IMMK_BOOL:
    case TG_IMMK_NAME: {
        if (!word(a, w, sizeof w, 0, "a name"))
            return 0;
        int k = -1;
        tg_isa_imm_kind kind = tg_isa_imm_kinds[key];
        if (kind == TG_IMMK_ALU)
            k = tg_alu_from_name(w, strlen(w));
        else if (kind == TG_IMMK_ACT)
            k = tg_act_from_name(w, strlen(w));
        else if (kind == TG_IMMK_CMP) {
            for (int c = 0; c < TG_CMP_COUNT; c++)
                if (!strcmp(w, cmp_words[c]))
                    k = c;
        } else if (kind == TG_IMMK_BOOL) {
            k = !strcmp(w, "true") ? 1 : !strcmp(w, "false") ? 0 : -1;
        } else {
            *v = asm_prog_str(&a->prog, w);
            return 1;
        }
        if (k < 0)
            return err(a, at(a, st), "A007", "'%s' is not a valid %s", w, tg_isa_imm_key[key]);
        *v = (uint64_t)k;
        return 1;
    }
    case TG_IMMK_FLOAT: {
        size_t n = 0;
        while ((is_alpha(peek(a)) || is_digit(peek(a)) || peek(a) == '.' || peek(a) == '+' || peek(a) == '-') &&
               n + 1 < sizeof w)
            w[n++] = (char)a->s[a->pos++];
        w[n] = '\0';
        char *end = NULL;
        double d = n ? strtod(w, &end) : 0;
        if (!n || *end || (!strpbrk(w, ".eE") && strcmp(w, "inf") && strcmp(w, "-inf") && strcmp(w, "nan")))
            return err(a, at(a, st), "A007", "expected a number like 1.0, 1e-6, inf or nan for %s",
                       tg_isa_imm_key[key]);
        *v = asm_float_bits(d);
        return 1;
    }
    case TG_IMMK_EXPR: {
        uint32_t off;
        a->paren = 0;
        if (!pool_expr(a, &off, AX_PF))
            return 0;
        *v = off;
        return 1;
    }
    case TG_IMMK_FEXPR: { /* (infix), evaluated in floating point */
        uint32_t off;
        if (!expect(a, '('))
            return 0;
        if (!pool_expr(a, &off, AX_FLOAT) || !expect(a, ')'))
            return 0;
        *v = off;
        return 1;
    }
    case TG_IMMK_INT:
        if (!integer(a, &iv, -(1ll << 40), 1ll << 40, tg_isa_imm_key[key]))
            return 0;
        *v = (uint64_t)iv;
        return 1;
    case TG_IMMK_REG:
    case TG_IMMK_SEM: {
        char want = tg_isa_imm_kinds[key] == TG_IMMK_REG ? 'r' : 's';
        int64_t lim = want == 'r' ? TG_ISA_MAX_REGS - 1 : TG_ISA_MAX_SEMS - 1;
        if (peek(a) != want)
            return err(a, here(a), "A001", "expected %s (%c0..%c%lld)", want == 'r' ? "a loop register" : "a semaphore",
                       want, want, (long long)lim);
        a->pos++;
        if (!is_digit(peek(a)))
            return err(a, here(a), "A001", "expected a number after '%c'", want);
        if (!integer(a, &iv, 0, lim, want == 'r' ? "loop register" : "semaphore"))
            return 0;
        *v = (uint64_t)iv;
        return 1;
    }
    default:
        return 0;
    }
}

static int find_key(const char *const *keys, int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(keys[i], w))
            return i;
    return -1;
}

static int lookup_mnemonic(const char *w, tg_isa_op *op, tg_isa_engine *eng)
{
    for (int i = 0; i < TG_OP_COUNT; i++) {
        if (i == TG_OP_SIGNAL || i == TG_OP_WAIT)
            continue;
        if (!strcmp(w, tg_isa_table[i].mnemonic)) {
            *op = (tg_isa_op)i;
            *eng = tg_isa_table[i].engine;
            return 1;
        }
    }
    const char *dot = strchr(w, '.');
    for (int e = 0; dot && e < TG_ENG_SYNC; e++) {
        size_t n = strlen(tg_isa_engine_prefix[e]);
        if ((size_t)(dot - w) == n && !strncmp(w, tg_isa_engine_prefix[e], n) &&
            (!strcmp(dot + 1, "signal") || !strcmp(dot + 1, "wait"))) {
            *op = dot[1] == 's' ? TG_OP_SIGNAL : TG_OP_WAIT;
            *eng = (tg_isa_engine)e;
            return 1;
        }
    }
    return 0;
}

/* Suggestion list for unknown mnemonics. */
static const char *const *mnemonics(void)
{
    static const char *list[TG_OP_COUNT + 1];
    for (int i = 0; i < TG_OP_COUNT; i++)
        list[i] = tg_isa_table[i].mnemonic;
    list[TG_OP_COUNT] = NULL;
    return list;
}

/* Trailing `; SPEC:LINE` annotation of an instruction: its spec line, else 0. */
static uint32_t annotation(A *a)
{
    skip_ws(a);
    if (peek(a) != ';' || !a->spec)
        return 0;
    size_t st = a->pos + 1, e = st;
    while (e < a->len && a->s[e] != '\n')
        e++;
    while (st < e && a->s[st] == ' ')
        st++;
    size_t n = strlen(a->spec);
    if (e - st <= n + 1 || memcmp(a->s + st, a->spec, n) || a->s[st + n] != ':')
        return 0;
    uint64_t line = 0;
    for (size_t k = st + n + 1; k < e; k++) {
        if (!is_digit((unsigned char)a->s[k]) || line > 0xffffffffu / 10)
            return 0;
        line = line * 10 + (uint64_t)(a->s[k] - '0');
    }
    return line <= 0xffffffffu ? (uint32_t)line : 0;
}

static int instruction(A *a)
{
    char w[48];
    size_t st = a->pos;
    tg_isa_op op;
    tg_isa_engine eng;
    if (!word(a, w, sizeof w, 1, "an instruction"))
        return 0;
    if (!lookup_mnemonic(w, &op, &eng)) {
        const char *s = diag_suggest(w, mnemonics());
        return err(a, at(a, st), "A002", "unknown instruction '%s'%s%s%s", w, s ? " (did you mean '" : "",
                   s ? s : "", s ? "'?)" : "");
    }
    if (!a->have_kernel || !a->have_target)
        return err(a, at(a, st), "A008", "instructions need .kernel and .target first");
    a->in_body = 1;
    const tg_isa_info *info = &tg_isa_table[op];
    tg_prog_operand ops[TG_ISA_MAX_OPERANDS];
    tg_prog_imm imms[TG_ISA_MAX_IMMS];
    int nops = 0, nimms = 0;
    uint32_t roles = 0;
    uint64_t ims = 0;
    int first = 1;
    while (!at_eol(a)) {
        if (!first && !expect(a, ','))
            return 0;
        first = 0;
        char key[32];
        size_t sk = (skip_ws(a), a->pos);
        if (!word(a, key, sizeof key, 0, "a field name") || !expect(a, '='))
            return 0;
        skip_ws(a);
        int role = find_key(tg_isa_role_key, TG_ROLE_COUNT, key), imm = -1;
        size_t left = a->len - a->pos; /* a short value at the very end is no access pattern */
        int is_ap = role >= 0 && ((left >= 4 && !strncmp(a->s + a->pos, "hbm:", 4)) ||
                                  (left >= 5 && !strncmp(a->s + a->pos, "sbuf:", 5)) ||
                                  (left >= 5 && !strncmp(a->s + a->pos, "psum:", 5)));
        if (!is_ap) {
            imm = find_key(tg_isa_imm_key, TG_IMM_COUNT, key);
            role = -1;
            if (imm >= 0 && (skip_ws(a), peek(a) == '('))
                imm = (int)tg_isa_fexpr_twin((tg_isa_imm)imm); /* scale=(1.0 / (r0 + 1)): a number per iteration */
        }
        if (role < 0 && imm < 0)
            return err(a, at(a, sk), "A003", "unknown field '%s'", key);
        int allowed = role >= 0 ? ((info->roles_req | info->roles_opt) >> role & 1u)
                                : (int)((info->imms_req | info->imms_opt) >> imm & 1u);
        if (imm == TG_IMM_QUEUE && eng != TG_ENG_DMA)
            allowed = 0; /* DMA queues: dma.* instructions and dma.signal/dma.wait only */
        if (!allowed)
            return err(a, at(a, sk), "A003", "%s takes no %s '%s'", w, role >= 0 ? "operand" : "field", key);
        int dup = 0;
        for (int i = 0; i < nops; i++)
            dup |= !strcmp(tg_isa_role_key[ops[i].role], key);
        for (int i = 0; i < nimms; i++)
            dup |= !strcmp(tg_isa_imm_key[imms[i].key], key);
        if (dup)
            return err(a, at(a, sk), "A004", "field '%s' given twice", key);
        if (role >= 0) {
            if (nops >= TG_ISA_MAX_OPERANDS || !operand(a, (tg_isa_role)role, &ops[nops]))
                return 0;
            if (eng == TG_ENG_POOL && ops[nops].space == TG_SPACE_PSUM)
                return err(a, at(a, sk), "A015", "%s cannot access PSUM (GpSimd reads and writes SBUF only)", w);
            nops++;
            roles |= 1u << role;
        } else {
            if (nimms >= TG_ISA_MAX_IMMS)
                return err(a, at(a, sk), "A011", "too many fields");
            imms[nimms].key = (tg_isa_imm)imm;
            if (!imm_value(a, (tg_isa_imm)imm, &imms[nimms].value))
                return 0;
            if (imm == TG_IMM_QUEUE && imms[nimms].value >= TG_DMA_QUEUES)
                return err(a, at(a, sk), "A007", "a DMA queue is 0..%d", TG_DMA_QUEUES - 1);
            nimms++;
            ims |= 1ull << imm;
        }
    }
    /* required fields and combinations (the validator's rules, located) */
    for (int r = 0; r < TG_ROLE_COUNT; r++)
        if ((info->roles_req >> r & 1u) && !(roles >> r & 1u))
            return err(a, at(a, st), "A005", "%s needs operand '%s'", w, tg_isa_role_key[r]);
    for (int i = 0; i < TG_IMM_COUNT; i++)
        if ((info->imms_req >> i & 1u) && !(ims >> i & 1u))
            return err(a, at(a, st), "A005", "%s needs field '%s'", w, tg_isa_imm_key[i]);
    if ((roles >> TG_ROLE_REDUCE_DST & 1u) != (ims >> TG_IMM_REDUCE_OP & 1u))
        return err(a, at(a, st), "A005", "reduce_dst and reduce_op go together");
#define HAS_NUM(F) ((ims >> TG_IMM_##F & 1u) || (ims >> tg_isa_fexpr_twin(TG_IMM_##F) & 1u))
    if ((op == TG_OP_MEMSET && !HAS_NUM(VALUE)) || (op == TG_OP_AFFINE_SELECT && !HAS_NUM(FILL)))
        return err(a, at(a, st), "A005", "%s needs field '%s'", w, op == TG_OP_MEMSET ? "value" : "fill");
    if (op == TG_OP_TENSOR_SCALAR) {
        int has0 = (roles >> TG_ROLE_OPERAND0 & 1u) || HAS_NUM(OPERAND0_NUM);
        int has1 = (roles >> TG_ROLE_OPERAND1 & 1u) || HAS_NUM(OPERAND1_NUM);
        if (!has0 || has1 != (int)(ims >> TG_IMM_OP1 & 1u))
            return err(a, at(a, st), "A005", "tensor_scalar needs operand0, and operand1 exactly when op1 is given");
    }
    if (op == TG_OP_TENSOR_TENSOR_SCAN && !(roles >> TG_ROLE_INITIAL & 1u) && !HAS_NUM(INITIAL_NUM))
        return err(a, at(a, st), "A005", "%s needs field 'initial'", w);
    if (op == TG_OP_NC_MATCH_REPLACE8 && !HAS_NUM(IMM))
        return err(a, at(a, st), "A005", "%s needs field 'imm'", w);
    if (op == TG_OP_SCALAR_TENSOR_TENSOR && !(roles >> TG_ROLE_OPERAND0 & 1u) && !HAS_NUM(OPERAND0_NUM))
        return err(a, at(a, st), "A005", "%s needs field 'operand0'", w);
    if (op == TG_OP_SELECT) { /* each operand an access pattern or a number (or a number per iteration) */
        static const tg_isa_role sr[3] = {TG_ROLE_PRED, TG_ROLE_ON_TRUE, TG_ROLE_ON_FALSE};
        static const tg_isa_imm si[3] = {TG_IMM_PRED_NUM, TG_IMM_ON_TRUE_NUM, TG_IMM_ON_FALSE_NUM};
        for (int i = 0; i < 3; i++)
            if (!(roles >> sr[i] & 1u) && !(ims >> si[i] & 1u) && !(ims >> tg_isa_fexpr_twin(si[i]) & 1u))
                return err(a, at(a, st), "A005", "%s needs field '%s'", w, tg_isa_role_key[sr[i]]);
    }
#undef HAS_NUM
    if ((roles >> TG_ROLE_INDEX & 1u) != (ims >> TG_IMM_INDEX_STEP & 1u) ||
        (roles >> TG_ROLE_INDEX & 1u) != (ims >> TG_IMM_INDEX_BOUND & 1u))
        return err(a, at(a, st), "A005", "index, index_step and index_bound go together");
    if (roles >> TG_ROLE_INDEX & 1u) { /* an integer SBUF column indexing the HBM side, step and bound 1..2^40 */
        tg_isa_role hr = op == TG_OP_LOAD ? TG_ROLE_SRC : TG_ROLE_DST;
        for (int i = 0; i < nops; i++) {
            if (ops[i].role == TG_ROLE_INDEX && (ops[i].space != TG_SPACE_SBUF || tg_dtype_is_float(ops[i].dtype)))
                return err(a, at(a, st), "A012", "an index column is an integer operand in SBUF");
            if (ops[i].role == hr && ops[i].space != TG_SPACE_HBM)
                return err(a, at(a, st), "A012", "the side an index column selects ('%s') is in HBM",
                           tg_isa_role_key[hr]);
        }
        for (int i = 0; i < nimms; i++)
            if ((imms[i].key == TG_IMM_INDEX_STEP || imms[i].key == TG_IMM_INDEX_BOUND) &&
                (imms[i].value < 1 || imms[i].value > (1ull << 40)))
                return err(a, at(a, st), "A007", "%s is 1 to 2^40", tg_isa_imm_key[imms[i].key]);
    }
    uint64_t reg = 0;
    for (int i = 0; i < nimms; i++)
        if (imms[i].key == TG_IMM_REG)
            reg = imms[i].value;
    if (op == TG_OP_LOOP) {
        uint64_t step = 0;
        for (int i = 0; i < nimms; i++)
            if (imms[i].key == TG_IMM_STEP)
                step = imms[i].value;
        if (a->depth >= TG_ISA_MAX_REGS)
            return err(a, at(a, st), "A009", "loops nest deeper than %d", TG_ISA_MAX_REGS);
        if (reg != (uint64_t)a->depth)
            return err(a, at(a, st), "A009", "this loop's register must be r%d (registers follow the nesting depth)",
                       a->depth);
        if ((int64_t)step < 1)
            return err(a, at(a, st), "A007", "a loop step must be at least 1");
    } else if (op == TG_OP_CORE) { /* format 2.2: core 0's stream first, then core 1's */
        uint64_t id = 0;
        for (int i = 0; i < nimms; i++)
            if (imms[i].key == TG_IMM_ID)
                id = imms[i].value;
        if (a->depth != 0)
            return err(a, at(a, st), "A009", "a core's stream starts outside every loop");
        if (id >= TG_ISA_MAX_CORES || id != (uint64_t)a->ncores || (id == 0 && a->prog.ninsts != 0))
            return err(a, at(a, st), "A007", "core id=%d must come next (ids 0 to %d in order, core 0 first of all)",
                       a->ncores, TG_ISA_MAX_CORES - 1);
        a->ncores++;
    } else if (op == TG_OP_ENDLOOP) {
        if (a->depth == 0)
            return err(a, at(a, st), "A009", "endloop without a loop");
        if (reg != (uint64_t)(a->depth - 1))
            return err(a, at(a, st), "A009", "endloop r%u closes the loop of r%d", (unsigned)reg, a->depth - 1);
    }
    uint32_t line = annotation(a);
    asm_prog_inst(&a->prog, op, eng, line);
    for (int i = 0; i < nops; i++)
        asm_prog_operand(&a->prog, &ops[i]);
    for (int i = 0; i < nimms; i++)
        asm_prog_imm(&a->prog, imms[i].key, imms[i].value);
    if (op == TG_OP_LOOP)
        a->loop_line[a->depth++] = a->line;
    else if (op == TG_OP_ENDLOOP)
        a->depth--;
    return 1;
}

/* ---- driver ---------------------------------------------------------------- */

int asm_assemble(const char *file, const char *text, size_t len, Diag *diag, uint8_t **out, size_t *outlen)
{
    A *a = calloc(1, sizeof *a); /* large (name tables): not on the stack */
    *out = NULL;
    *outlen = 0;
    if (!a) {
        diag_error(diag, (SrcLoc){file, 0, 0}, "A011", "out of memory");
        return -1;
    }
    a->file = file;
    a->s = text;
    a->len = len;
    a->line = 1;
    a->diag = diag;
    asm_prog_init(&a->prog);
    while (a->pos < a->len) {
        a->line_bad = 0;
        skip_ws(a);
        if (peek(a) == '.')
            directive(a);
        else if (!at_eol(a))
            instruction(a);
        if (!a->line_bad && !at_eol(a)) {
            char b[40];
            err(a, here(a), "A001", "unexpected %s", shown(a, b, sizeof b));
        }
        while (a->pos < a->len && peek(a) != '\n')
            a->pos++;
        if (a->pos < a->len) {
            a->pos++;
            a->line++;
            a->bol = a->pos;
        }
    }
    a->line_bad = 0;
    if (a->depth > 0) {
        a->line = a->loop_line[a->depth - 1];
        err(a, (SrcLoc){file, a->line, 1}, "A009", "loop r%d is never closed with endloop", a->depth - 1);
    }
    a->line_bad = 0;
    if (!a->have_kernel || !a->have_target)
        err(a, (SrcLoc){file, 1, 1}, "A008", "a listing needs .kernel and .target directives");
    a->line_bad = 0;
    int rc = -1;
    if (!a->errors) {
        if (asm_prog_encode(&a->prog, out, outlen)) {
            err(a, (SrcLoc){file, 0, 0}, "A011", "out of memory");
        } else {
            tg_prog p;
            if (tg_prog_decode(&p, *out, *outlen)) {
                err(a, (SrcLoc){file, 0, 0}, "A099", "the program does not pass the runtime's validator");
                free(*out);
                *out = NULL;
                *outlen = 0;
            } else {
                rc = 0;
            }
        }
    }
    free((void *)a->spec);
    asm_prog_free(&a->prog);
    free(a);
    return rc;
}
