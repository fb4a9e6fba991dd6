/* asm_prog.c - builds a binary program (runtime/tg_isa.h, version 1) table by
 * table and encodes it with its header and FNV-1a checksum. Used by the text
 * assembler (asm.c) and by the listing emitter (asm_emit.c), so a listing and
 * its binary always come from the same records. */
#include <stdlib.h>
#include <string.h>

#include "asm.h"

static void buf_put(AsmProg *p, AsmBuf *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (!d) {
            p->oom = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
}

static void le16(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

void asm_prog_init(AsmProg *p)
{
    memset(p, 0, sizeof *p);
    buf_put(p, &p->strs, "", 1); /* offset 0: the empty string */
}

void asm_prog_free(AsmProg *p)
{
    AsmBuf *bufs[] = {&p->tensors, &p->tiles, &p->insts, &p->ops, &p->imms, &p->strs, &p->exprs};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        free(bufs[i]->data);
    memset(p, 0, sizeof *p);
}

uint32_t asm_prog_str(AsmProg *p, const char *s)
{
    size_t n = strlen(s);
    for (size_t off = 0; off < p->strs.len;) { /* intern: same string, same offset */
        const char *t = (const char *)p->strs.data + off;
        size_t tn = strlen(t);
        if (tn == n && !memcmp(t, s, n))
            return (uint32_t)off;
        off += tn + 1;
    }
    uint32_t off = (uint32_t)p->strs.len;
    buf_put(p, &p->strs, s, n + 1);
    return off;
}

uint32_t asm_prog_expr(AsmProg *p, const AsmExpr *e)
{
    uint32_t off = (uint32_t)p->exprs.len;
    uint8_t end = TG_X_END;
    buf_put(p, &p->exprs, e->code, e->len);
    buf_put(p, &p->exprs, &end, 1);
    return off;
}

uint32_t asm_prog_const(AsmProg *p, int64_t v)
{
    AsmExpr e;
    asm_expr_init(&e);
    asm_expr_const(&e, v);
    return asm_prog_expr(p, &e);
}

void asm_prog_tensor(AsmProg *p, const tg_prog_tensor *t)
{
    uint8_t r[TG_ISA_TENSOR_BYTES] = {0};
    le32(r, asm_prog_str(p, t->name));
    r[4] = (uint8_t)t->dtype;
    r[5] = (uint8_t)t->kind;
    r[6] = (uint8_t)t->rank;
    r[7] = (uint8_t)(t->kind == TG_TENSOR_VIEW ? t->base : 0);
    for (int d = 0; d < TG_ISA_MAX_TENSOR_RANK; d++)
        le32(r + 8 + 4 * d, t->shape[d]);
    buf_put(p, &p->tensors, r, sizeof r);
    p->ntensors++;
}

void asm_prog_tile(AsmProg *p, const tg_prog_tile *t)
{
    uint8_t r[TG_ISA_TILE_BYTES] = {0};
    le32(r, asm_prog_str(p, t->name));
    r[4] = (uint8_t)t->space;
    r[5] = (uint8_t)t->dtype;
    r[6] = (uint8_t)t->bufs;
    r[7] = (uint8_t)t->rank;
    le32(r + 8, t->base);
    le32(r + 12, t->slot);
    le32(r + 16, t->pstart);
    le32(r + 20, t->pcount);
    for (int d = 0; d < TG_ISA_MAX_RANK; d++)
        le32(r + 24 + 4 * d, t->shape[d]);
    buf_put(p, &p->tiles, r, sizeof r);
    p->ntiles++;
}

void asm_prog_inst(AsmProg *p, tg_isa_op op, tg_isa_engine engine, uint32_t line)
{
    uint8_t r[TG_ISA_INST_BYTES] = {0};
    r[0] = (uint8_t)op;
    r[1] = (uint8_t)engine;
    le32(r + 4, p->nops);
    le32(r + 8, p->nimms);
    le32(r + 12, line);
    buf_put(p, &p->insts, r, sizeof r);
    p->ninsts++;
}

/* The record of the instruction being built (NULL before the first). */
static uint8_t *cur_inst(AsmProg *p)
{
    return p->ninsts && p->insts.len >= TG_ISA_INST_BYTES ? p->insts.data + p->insts.len - TG_ISA_INST_BYTES : NULL;
}

void asm_prog_operand(AsmProg *p, const tg_prog_operand *o)
{
    uint8_t r[TG_ISA_OPERAND_BYTES] = {0}, *in;
    r[0] = (uint8_t)o->role;
    r[1] = (uint8_t)o->space;
    r[2] = (uint8_t)o->dtype;
    r[3] = (uint8_t)o->nfree;
    le16(r + 4, o->index);
    le32(r + 8, (uint32_t)o->pstep);
    le32(r + 12, o->buf);
    le32(r + 16, o->pstart);
    le32(r + 20, o->pcount);
    le32(r + 24, o->offset);
    for (uint32_t k = 0; k < TG_ISA_MAX_FREE && k < o->nfree; k++) {
        le32(r + 28 + 8 * k, (uint32_t)o->step[k]);
        le32(r + 32 + 8 * k, o->num[k]);
    }
    buf_put(p, &p->ops, r, sizeof r);
    p->nops++;
    in = cur_inst(p);
    if (in)
        in[2]++;
}

void asm_prog_imm(AsmProg *p, tg_isa_imm key, uint64_t value)
{
    uint8_t r[TG_ISA_IMM_BYTES] = {0}, *in;
    r[0] = (uint8_t)key;
    le64(r + 4, value);
    buf_put(p, &p->imms, r, sizeof r);
    p->nimms++;
    in = cur_inst(p);
    if (in)
        in[3]++;
}

int asm_prog_encode(const AsmProg *p, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (p->oom)
        return -1;
    size_t n = TG_ISA_HEADER_BYTES + p->tensors.len + p->tiles.len + p->insts.len + p->ops.len + p->imms.len +
               p->strs.len + p->exprs.len;
    if (n > 0x7fffffffu)
        return -1;
    uint8_t *b = calloc(1, n);
    if (!b)
        return -1;
    memcpy(b, TG_ISA_MAGIC, 4);
    le16(b + 4, TG_ISA_VERSION_MAJOR);
    le16(b + 6, TG_ISA_VERSION_MINOR);
    le32(b + 8, (uint32_t)n);
    b[16] = p->target;
    b[17] = (uint8_t)p->ntensors;
    b[18] = (uint8_t)p->ntiles;
    le32(b + 20, p->ninsts);
    le32(b + 24, p->nops);
    le32(b + 28, p->nimms);
    size_t off = TG_ISA_HEADER_BYTES;
    const AsmBuf *tabs[] = {&p->tensors, &p->tiles, &p->insts, &p->ops, &p->imms, &p->strs, &p->exprs};
    for (size_t i = 0; i < sizeof tabs / sizeof *tabs; i++) {
        if (tabs[i] == &p->strs) {
            le32(b + 32, (uint32_t)off);
            le32(b + 36, (uint32_t)p->strs.len);
        } else if (tabs[i] == &p->exprs) {
            le32(b + 40, (uint32_t)off);
            le32(b + 44, (uint32_t)p->exprs.len);
        }
        if (tabs[i]->len)
            memcpy(b + off, tabs[i]->data, tabs[i]->len);
        off += tabs[i]->len;
    }
    le32(b + 48, p->kernel);
    le32(b + 52, p->spec);
    le32(b + 56, p->version);
    le32(b + 12, tg_prog_checksum(b, n));
    *out = b;
    *len = n;
    return 0;
}

/* ---- expressions ---------------------------------------------------------- */

void asm_expr_init(AsmExpr *e) { memset(e, 0, sizeof *e); }

static void expr_byte(AsmExpr *e, uint8_t b)
{
    if (e->len + 1 >= sizeof e->code) /* keep room for the END byte */
        e->over = 1;
    else
        e->code[e->len++] = b;
}

static void expr_push(AsmExpr *e)
{
    if (++e->depth > e->maxdepth)
        e->maxdepth = e->depth;
    if (e->depth > TG_ISA_MAX_EXPR_STACK)
        e->over = 1;
}

void asm_expr_const(AsmExpr *e, int64_t v)
{
    expr_byte(e, TG_X_CONST);
    for (int i = 0; i < 8; i++)
        expr_byte(e, (uint8_t)((uint64_t)v >> (8 * i)));
    expr_push(e);
}

void asm_expr_fconst(AsmExpr *e, double v)
{
    uint64_t b = asm_float_bits(v);
    expr_byte(e, TG_X_FCONST);
    for (int i = 0; i < 8; i++)
        expr_byte(e, (uint8_t)(b >> (8 * i)));
    expr_push(e);
}

void asm_expr_leaf(AsmExpr *e, tg_isa_xop op, int reg)
{
    expr_byte(e, (uint8_t)op);
    if (op == TG_X_REG)
        expr_byte(e, (uint8_t)reg);
    expr_push(e);
}

void asm_expr_op(AsmExpr *e, tg_isa_xop op)
{
    expr_byte(e, (uint8_t)op);
    if (op != TG_X_NEG)
        e->depth--;
}

uint64_t asm_float_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

double asm_bits_float(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
