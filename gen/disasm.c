/* disasm.c - binary program -> canonical assembly text (docs/asm.md). The
 * listing emitter prints its instructions through these same functions, so
 * a generated listing is exactly what disassembling its binary gives; the
 * assembler (asm.c) parses every form printed here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "tg_alu.h"
#include "tg_math.h"
#include "tg_ops.h"

/* A growing string (malloc'd); oom sticky. */
typedef struct Str {
    char *s;
    size_t len, cap;
    int oom;
} Str;

static void sput(Str *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *d = realloc(b->s, cap);
        if (!d) {
            b->oom = 1;
            return;
        }
        b->s = d;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sputs(Str *b, const char *s) { sput(b, s, strlen(s)); }

static void sprintf_(Str *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sprintf_(Str *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        b->oom = 1;
    else
        sput(b, tmp, (size_t)n);
}

/* Hand the string over (NULL when out of memory). */
static char *sdone(Str *b)
{
    if (b->oom || !b->s) {
        free(b->s);
        if (b->oom)
            return NULL;
        char *e = malloc(1);
        if (e)
            e[0] = '\0';
        return e;
    }
    return b->s;
}

void asm_format_float(double d, char *buf, size_t size)
{
    if (d != d) {
        snprintf(buf, size, "nan");
        return;
    }
    if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308) {
        snprintf(buf, size, d > 0 ? "inf" : "-inf");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    /* a float must not read as an integer expression: 1 -> 1.0 */
    if (!strpbrk(buf, ".eE") && strlen(buf) + 3 <= size)
        strcat(buf, ".0");
}

/* ---- expressions ---------------------------------------------------------- */

/* Precedence of a printed piece: 1 + -, 2 * / %, 3 unary / negative literal, 4 atom. */
typedef struct Piece {
    char *s;
    int prec;
} Piece;

static char *wrap(const Piece *x, int need, int strict)
{
    int paren = strict ? x->prec <= need : x->prec < need;
    size_t n = strlen(x->s);
    char *r = malloc(n + 3);
    if (!r)
        return NULL;
    if (paren)
        snprintf(r, n + 3, "(%s)", x->s);
    else
        memcpy(r, x->s, n + 1);
    return r;
}

char *asm_format_expr(const tg_prog *p, uint32_t off)
{
    const uint8_t *x = p->data + p->expr_off;
    Piece st[TG_ISA_MAX_EXPR_STACK];
    int sp = 0, bad = 0;
    char tmp[64];
    for (;;) { /* validated by tg_prog_decode */
        uint8_t op = x[off++];
        if (op == TG_X_END)
            break;
        if (op == TG_X_CONST || op == TG_X_FCONST || op == TG_X_REG || op == TG_X_P || op == TG_X_F) {
            int prec = 4;
            if (op == TG_X_CONST) {
                int64_t v = (int64_t)tg_rd_le64(x + off);
                off += 8;
                snprintf(tmp, sizeof tmp, "%lld", (long long)v);
                prec = v < 0 ? 3 : 4;
            } else if (op == TG_X_FCONST) {
                double d = asm_bits_float(tg_rd_le64(x + off));
                off += 8;
                asm_format_float(d, tmp, sizeof tmp);
                prec = tmp[0] == '-' ? 3 : 4;
            } else if (op == TG_X_REG) {
                snprintf(tmp, sizeof tmp, "r%u", (unsigned)x[off++]);
            } else {
                snprintf(tmp, sizeof tmp, op == TG_X_P ? "p" : "f");
            }
            st[sp].s = malloc(strlen(tmp) + 1);
            if (st[sp].s)
                strcpy(st[sp].s, tmp);
            else
                bad = 1;
            st[sp++].prec = prec;
            continue;
        }
        if (bad)
            break;
        if (op == TG_X_NEG) {
            Piece *a = &st[sp - 1]; /* `--x` reads back as two minus signs */
            char *in = wrap(a, 3, 0), *r = in ? malloc(strlen(in) + 2) : NULL;
            if (r)
                snprintf(r, strlen(in) + 2, "-%s", in);
            free(in);
            free(a->s);
            a->s = r;
            a->prec = 3;
            bad = !r;
            continue;
        }
        Piece *a = &st[sp - 2], *b = &st[sp - 1];
        const char *sym = op == TG_X_ADD ? " + " : op == TG_X_SUB ? " - " : op == TG_X_MUL ? " * "
                          : op == TG_X_DIV ? " / " : op == TG_X_MOD ? " % " : NULL;
        char *r;
        int prec;
        if (sym) {
            prec = op <= TG_X_SUB ? 1 : 2;
            char *l = wrap(a, prec, 0), *rr = wrap(b, prec, 1);
            size_t n = (l ? strlen(l) : 0) + (rr ? strlen(rr) : 0) + 4;
            r = l && rr ? malloc(n) : NULL;
            if (r)
                snprintf(r, n, "%s%s%s", l, sym, rr);
            free(l);
            free(rr);
        } else {
            prec = 4;
            size_t n = strlen(a->s) + strlen(b->s) + 8;
            r = malloc(n);
            if (r)
                snprintf(r, n, "%s(%s, %s)", op == TG_X_MIN ? "min" : "max", a->s, b->s);
        }
        free(a->s);
        free(b->s);
        sp--;
        a->s = r;
        a->prec = prec;
        bad = !r;
    }
    if (bad) {
        for (int i = 0; i < sp; i++)
            free(st[i].s);
        return NULL;
    }
    return st[0].s;
}

/* 1 if the expression at off is the constant 0. */
static int is_zero(const tg_prog *p, uint32_t off)
{
    const uint8_t *x = p->data + p->expr_off + off;
    return x[0] == TG_X_CONST && tg_rd_le64(x + 1) == 0 && x[9] == TG_X_END;
}

static void put_expr(Str *b, const tg_prog *p, uint32_t off)
{
    char *s = asm_format_expr(p, off);
    if (!s)
        b->oom = 1;
    else
        sputs(b, s);
    free(s);
}

/* ---- operands, immediates, instructions ----------------------------------- */

static const char *const space_names[TG_SPACE_COUNT] = {"hbm", "sbuf", "psum"};
static const char *const cmp_names[TG_CMP_COUNT] = {"lt", "le", "gt", "ge", "eq", "ne"};

static void put_operand(Str *b, const tg_prog *p, const tg_prog_operand *o)
{
    sprintf_(b, "%s=%s:", tg_isa_role_key[o->role], space_names[o->space]);
    if (o->space == TG_SPACE_HBM) {
        tg_prog_tensor t;
        tg_prog_get_tensor(p, o->index, &t);
        sprintf_(b, "%s[+", t.name);
        put_expr(b, p, o->pcount);
        sprintf_(b, " s%ld]", (long)o->pstep);
    } else {
        tg_prog_tile t;
        tg_prog_get_tile(p, o->index, &t);
        sputs(b, t.name);
        if (!is_zero(p, o->buf)) {
            sputs(b, ".(");
            put_expr(b, p, o->buf);
            sputs(b, ")");
        }
        sputs(b, "[");
        put_expr(b, p, o->pstart);
        sputs(b, ":+");
        put_expr(b, p, o->pcount);
        sputs(b, "]");
    }
    sputs(b, " @");
    put_expr(b, p, o->offset);
    sprintf_(b, " %s [", tg_dtype_name(o->dtype));
    for (uint32_t k = 0; k < o->nfree; k++) {
        sprintf_(b, "%s[%ld,", k ? "," : "", (long)o->step[k]);
        put_expr(b, p, o->num[k]);
        sputs(b, "]");
    }
    sputs(b, "]");
}

static void put_imm(Str *b, const tg_prog *p, const tg_prog_imm *m)
{
    char num[64];
    sprintf_(b, "%s=", tg_isa_imm_key[m->key]);
    switch (tg_isa_imm_kinds[m->key]) {
    case TG_IMMK_ALU: sputs(b, tg_alu_name((tg_alu_op)m->value)); break;
    case TG_IMMK_ACT: sputs(b, tg_act_name((tg_act_func)m->value)); break;
    case TG_IMMK_CMP: sputs(b, cmp_names[m->value]); break;
    case TG_IMMK_BOOL: sputs(b, m->value ? "true" : "false"); break;
    case TG_IMMK_FLOAT:
        asm_format_float(asm_bits_float(m->value), num, sizeof num);
        sputs(b, num);
        break;
    case TG_IMMK_EXPR: put_expr(b, p, (uint32_t)m->value); break;
    case TG_IMMK_FEXPR: /* (infix): a number per iteration, in floating point */
        sputs(b, "(");
        put_expr(b, p, (uint32_t)m->value);
        sputs(b, ")");
        break;
    case TG_IMMK_INT: sprintf_(b, "%lld", (long long)(int64_t)m->value); break;
    case TG_IMMK_REG: sprintf_(b, "r%u", (unsigned)m->value); break;
    case TG_IMMK_NAME: sputs(b, tg_prog_str(p, (uint32_t)m->value)); break;
    case TG_IMMK_SEM: sprintf_(b, "s%u", (unsigned)m->value); break;
    default: break;
    }
}

char *asm_format_inst(const tg_prog *p, uint32_t i)
{
    Str b = {0};
    tg_prog_inst in;
    tg_prog_get_inst(p, i, &in);
    if (in.op == TG_OP_SIGNAL || in.op == TG_OP_WAIT)
        sprintf_(&b, "%s.", tg_isa_engine_prefix[in.engine]);
    sputs(&b, tg_isa_table[in.op].mnemonic);
    const char *sep = " ";
    for (uint32_t k = 0; k < in.nops; k++) {
        tg_prog_operand o;
        tg_prog_get_operand(p, in.first_op + k, &o);
        sputs(&b, sep);
        put_operand(&b, p, &o);
        sep = ", ";
    }
    for (uint32_t k = 0; k < in.nimms; k++) {
        tg_prog_imm m;
        tg_prog_get_imm(p, in.first_imm + k, &m);
        sputs(&b, sep);
        put_imm(&b, p, &m);
        sep = ", ";
    }
    return sdone(&b);
}

static void put_shape(Str *b, const uint32_t *shape, uint32_t rank)
{
    sputs(b, "[");
    for (uint32_t d = 0; d < rank; d++)
        sprintf_(b, "%s%u", d ? ", " : "", (unsigned)shape[d]);
    sputs(b, "]");
}

char *asm_format_header(const tg_prog *p)
{
    Str b = {0};
    sprintf_(&b, ".kernel %s\n", tg_prog_str(p, p->kernel));
    sprintf_(&b, ".target %s\n", tg_machine_of(p->target).name);
    sputs(&b, ".spec \"");
    sputs(&b, tg_prog_str(p, p->spec));
    sputs(&b, "\"\n.tilegen \"");
    sputs(&b, tg_prog_str(p, p->version));
    sputs(&b, "\"\n");
    for (uint32_t i = 0; i < p->ntensors; i++) {
        tg_prog_tensor t;
        tg_prog_get_tensor(p, i, &t);
        static const char *const kinds[] = {"input", "output", "scratch", "view"};
        sprintf_(&b, ".tensor %s %s ", t.name, kinds[t.kind]);
        if (t.kind == TG_TENSOR_VIEW) {
            tg_prog_tensor base;
            tg_prog_get_tensor(p, t.base, &base);
            sprintf_(&b, "%s ", base.name);
        }
        sprintf_(&b, "%s ", tg_dtype_name(t.dtype));
        put_shape(&b, t.shape, t.rank);
        sputs(&b, "\n");
    }
    for (uint32_t i = 0; i < p->ntiles; i++) {
        tg_prog_tile t;
        tg_prog_get_tile(p, i, &t);
        sprintf_(&b, ".tile %s %s %s ", t.name, space_names[t.space], tg_dtype_name(t.dtype));
        put_shape(&b, t.shape, t.rank);
        sprintf_(&b, " bufs %u p[%u:+%u] @%u slot %u\n", (unsigned)t.bufs, (unsigned)t.pstart, (unsigned)t.pcount,
                 (unsigned)t.base, (unsigned)t.slot);
    }
    return sdone(&b);
}

char *asm_disassemble(const tg_prog *p)
{
    Str b = {0};
    const char *k = tg_prog_str(p, p->kernel), *spec = tg_prog_str(p, p->spec);
    sprintf_(&b, "; %s.s - NeuronCore assembly of kernel %s (docs/asm.md)\n", k, k);
    sputs(&b, "; generated by tilegen ");
    sputs(&b, tg_prog_str(p, p->version));
    sputs(&b, " from ");
    sputs(&b, spec);
    sputs(&b, " with templates/" ASM_TEMPLATE "; do not edit\n");
    char *h = asm_format_header(p);
    if (!h)
        b.oom = 1;
    else
        sputs(&b, h);
    free(h);
    sputs(&b, "\n");
    uint32_t depth = 0;
    for (uint32_t i = 0; i < p->ninsts; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(p, i, &in);
        if (in.op == TG_OP_ENDLOOP)
            depth--;
        for (uint32_t d = 0; d < depth; d++)
            sputs(&b, ASM_INDENT);
        char *t = asm_format_inst(p, i);
        if (!t)
            b.oom = 1;
        else
            sputs(&b, t);
        free(t);
        if (in.line) {
            sputs(&b, "  ; ");
            sputs(&b, spec);
            sprintf_(&b, ":%u", (unsigned)in.line);
        }
        sputs(&b, "\n");
        if (in.op == TG_OP_LOOP)
            depth++;
    }
    return sdone(&b);
}
