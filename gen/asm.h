/* asm.h - NeuronCore assembly (docs/asm.md): a program builder that encodes
 * the binary format of runtime/tg_isa.h (asm_prog.c), the text assembler
 * .s -> binary with located A0xx errors (asm.c) and the disassembler
 * binary -> canonical .s text (disasm.c). Text -> binary -> text is the
 * identity on canonical listings (every generated one). Nothing here prints. */
#ifndef TILEGEN_ASM_H
#define TILEGEN_ASM_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "tg_prog.h"

enum {
    ASM_MAX_BYTES = 64 << 20,  /* largest .s or .bin accepted */
    ASM_MAX_TENSORS = 255,     /* header fields are bytes */
    ASM_MAX_TILES = 255,
};

/* A growable byte buffer (malloc'd). */
typedef struct AsmBuf {
    uint8_t *data; /* bytes */
    size_t len;    /* used */
    size_t cap;    /* allocated */
} AsmBuf;

/* A program being built: the tables of tg_isa.h as byte buffers. */
typedef struct AsmProg {
    AsmBuf tensors, tiles, insts, ops, imms; /* fixed-size records */
    AsmBuf strs;                  /* string table (offset 0 is "") */
    AsmBuf exprs;                 /* expression pool */
    uint32_t ntensors, ntiles, ninsts, nops, nimms; /* records in each table */
    uint8_t target;               /* tg_target */
    uint32_t kernel, spec, version; /* string offsets */
    int oom;                      /* an allocation failed */
} AsmProg;

/* An expression under construction: postfix bytecode (tg_isa_xop). */
typedef struct AsmExpr {
    uint8_t code[TG_ISA_MAX_EXPR_BYTES]; /* bytecode; the final TG_X_END is added by asm_prog_expr */
    size_t len;        /* bytes used */
    int depth, maxdepth; /* evaluation stack now / at most */
    int over;          /* too long or too deep */
} AsmExpr;

/* ---- builder (asm_prog.c) ---- */
void asm_prog_init(AsmProg *p);
void asm_prog_free(AsmProg *p);
/* Offset of s in the string table (interned). */
uint32_t asm_prog_str(AsmProg *p, const char *s);
/* Offset of a finished expression in the pool (TG_X_END appended). */
uint32_t asm_prog_expr(AsmProg *p, const AsmExpr *e);
/* Offset of the constant expression v. */
uint32_t asm_prog_const(AsmProg *p, int64_t v);
void asm_prog_tensor(AsmProg *p, const tg_prog_tensor *t);
void asm_prog_tile(AsmProg *p, const tg_prog_tile *t);
/* Start an instruction; operands and immediates added next belong to it. */
void asm_prog_inst(AsmProg *p, tg_isa_op op, tg_isa_engine engine, uint32_t line);
/* Operand fields: exprs are pool offsets, names are resolved indices. */
void asm_prog_operand(AsmProg *p, const tg_prog_operand *o);
void asm_prog_imm(AsmProg *p, tg_isa_imm key, uint64_t value);
/* The whole program as bytes (malloc'd, header and checksum filled).
 * 0 ok, -1 out of memory. */
int asm_prog_encode(const AsmProg *p, uint8_t **out, size_t *len);

/* Expression bytecode helpers. */
void asm_expr_init(AsmExpr *e);
void asm_expr_const(AsmExpr *e, int64_t v);
void asm_expr_fconst(AsmExpr *e, double v); /* TG_X_FCONST: FEXPR expressions only */
void asm_expr_leaf(AsmExpr *e, tg_isa_xop op, int reg); /* TG_X_REG (reg), TG_X_P, TG_X_F */
void asm_expr_op(AsmExpr *e, tg_isa_xop op);            /* NEG and the binary ops */

/* Double <-> 64-bit pattern of FLOAT immediates. */
uint64_t asm_float_bits(double d);
double asm_bits_float(uint64_t b);

/* ---- disassembler (disasm.c) ---- */
/* Text of the expression at pool offset off (malloc'd; NULL when out of memory). */
char *asm_format_expr(const tg_prog *p, uint32_t off);
/* Text of one instruction without indentation or comment: `dve.tensor_tensor
 * dst=..., a=..., op=add` (malloc'd). */
char *asm_format_inst(const tg_prog *p, uint32_t i);
/* The directive lines (`.kernel ...` through the `.tile` lines), malloc'd. */
char *asm_format_header(const tg_prog *p);
/* The whole canonical listing of a decoded program (malloc'd, NUL-terminated). */
char *asm_disassemble(const tg_prog *p);
/* Shortest decimal that reads back as d (inf, -inf, nan spelled so). */
void asm_format_float(double d, char *buf, size_t size);

/* Listing layout shared by the disassembler and templates/kernel.s.j2. */
#define ASM_INDENT "    " /* indentation per loop level */
#define ASM_TEMPLATE "kernel.s.j2"

/* ---- assembler (asm.c) ---- */
/* Assemble the .s text (len bytes, named `file` in messages; its text must
 * have been registered with diag_add_source to be quoted). Errors go to
 * diag as A0xx; returns 0 with *out and *outlen (a malloc'd program) or -1. */
int asm_assemble(const char *file, const char *text, size_t len, Diag *diag, uint8_t **out, size_t *outlen);

#endif
