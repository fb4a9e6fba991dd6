/* tg_prog.h - decoding and validating a binary program (tg_isa.h format) for
 * the ISS and the disassembler. tg_prog_decode checks every byte once (sizes,
 * checksum, table bounds, opcodes, operand kinds, alignment, expressions, loop
 * nesting: the ISS's contract, docs/iss.md); afterwards the accessors cannot fail. Freestanding C99, no heap: a tg_prog
 * only points into the caller's buffer. */
#ifndef TG_PROG_H
#define TG_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "tg_dtype.h"
#include "tg_isa.h"
#include "tg_machine.h"

/* A validated program: the buffer and where each table starts. */
typedef struct tg_prog {
    const uint8_t *data;      /* the program bytes (caller-owned) */
    uint32_t size;            /* bytes at data */
    tg_target target;         /* machine it was assembled for */
    uint16_t major, minor;    /* format version */
    uint32_t ntensors, ntiles, ninsts, noperands, nimms; /* table sizes */
    uint32_t npublic;         /* tensors[0..npublic): the caller's; views follow */
    uint32_t tensors_off, tiles_off, insts_off, ops_off, imms_off; /* table offsets */
    uint32_t str_off, str_size;   /* string table */
    uint32_t expr_off, expr_size; /* expression pool */
    uint32_t kernel, spec, version; /* string offsets: kernel name, spec path, tilegen version */
    uint32_t max_depth;       /* deepest loop nesting */
    uint32_t max_sem;         /* highest semaphore used + 1 (0: none) */
    uint32_t ncores;          /* physical cores (format 2.2: `core` instructions; 1 without) */
    uint32_t core_pc[TG_ISA_MAX_CORES + 1]; /* core c's stream: instructions [core_pc[c], core_pc[c+1]) */
} tg_prog;

typedef struct tg_prog_tensor {
    const char *name;            /* HBM tensor name */
    tg_dtype dtype;              /* element type */
    tg_isa_tensor_kind kind;     /* input, output, scratch or view */
    uint32_t is_output;          /* written: 0 input, 1 output, 2 scratch (a view: its base's) */
    uint32_t base;               /* the public tensor whose bytes these are (itself unless a view) */
    uint32_t rank;               /* 1..5 */
    uint32_t shape[TG_ISA_MAX_TENSOR_RANK]; /* row-major extents, unused 0 */
} tg_prog_tensor;

typedef struct tg_prog_tile {
    const char *name;            /* tile name */
    tg_isa_space space;          /* SBUF or PSUM */
    tg_dtype dtype;              /* declared element type */
    uint32_t bufs;               /* rotating copies */
    uint32_t rank;               /* 2..4 */
    uint32_t base;               /* byte offset of copy 0 in each partition (PSUM: bank*2048) */
    uint32_t slot;               /* bytes between copies */
    uint32_t pstart, pcount;     /* partitions [pstart, pstart+pcount) */
    uint32_t shape[TG_ISA_MAX_RANK]; /* partition dim first, unused 0 */
} tg_prog_tile;

typedef struct tg_prog_operand {
    tg_isa_role role;            /* which field of the instruction */
    tg_isa_space space;          /* HBM tensor or SBUF/PSUM tile */
    tg_dtype dtype;              /* element type as accessed */
    uint32_t index;              /* tensor or tile index */
    uint32_t nfree;              /* free dims, 1..4, outermost first */
    int32_t pstep;               /* HBM: elements between partition rows; tiles: 1 */
    uint32_t buf;                /* expr: tile copy (mod bufs taken by the ISS) */
    uint32_t pstart, pcount;     /* exprs: first partition within the tile, count */
    uint32_t offset;             /* expr: byte offset (HBM: from the tensor start) */
    int32_t step[TG_ISA_MAX_FREE]; /* elements between indices of each free dim */
    uint32_t num[TG_ISA_MAX_FREE]; /* exprs: indices of each free dim */
} tg_prog_operand;

typedef struct tg_prog_inst {
    tg_isa_op op;                /* opcode */
    tg_isa_engine engine;        /* engine queue */
    uint32_t nops, first_op;     /* operands [first_op, first_op+nops) */
    uint32_t nimms, first_imm;   /* immediates [first_imm, first_imm+nimms) */
    uint32_t line;               /* spec line it came from, 0 = none */
    uint32_t queue;              /* DMA queue (`queue` immediate), 0 for non-DMA */
} tg_prog_inst;

/* The in-order stream that runs `in` (tg_isa.h): its engine, or
 * TG_ENG_COUNT + queue for the DMA engine. */
static inline uint32_t tg_prog_stream(const tg_prog_inst *in)
{
    return in->engine == TG_ENG_DMA ? (uint32_t)TG_ENG_COUNT + in->queue : (uint32_t)in->engine;
}

typedef struct tg_prog_imm {
    tg_isa_imm key;              /* which immediate */
    uint64_t value;              /* raw value, read per tg_isa_imm_kinds[key] */
} tg_prog_imm;

/* Validate `size` bytes at `data` and fill *p. 0, or TG_EPROGRAM on any
 * malformed input (never reads outside the buffer). */
int tg_prog_decode(tg_prog *p, const uint8_t *data, size_t size);

/* Accessors of a decoded program (indices must be in range). */
const char *tg_prog_str(const tg_prog *p, uint32_t off);
void tg_prog_get_tensor(const tg_prog *p, uint32_t i, tg_prog_tensor *out);
void tg_prog_get_tile(const tg_prog *p, uint32_t i, tg_prog_tile *out);
void tg_prog_get_inst(const tg_prog *p, uint32_t i, tg_prog_inst *out);
void tg_prog_get_operand(const tg_prog *p, uint32_t i, tg_prog_operand *out);
void tg_prog_get_imm(const tg_prog *p, uint32_t i, tg_prog_imm *out);
/* The immediate `key` of instruction `in` into *value; 0 if absent. */
int tg_prog_find_imm(const tg_prog *p, const tg_prog_inst *in, tg_isa_imm key, uint64_t *value);
/* The operand of role `role` of `in` into *out; 0 if absent. */
int tg_prog_find_operand(const tg_prog *p, const tg_prog_inst *in, tg_isa_role role, tg_prog_operand *out);
/* Index of the endloop matching the loop at `pc` (or the loop matching the
 * endloop at `pc`). */
uint32_t tg_prog_loop_match(const tg_prog *p, uint32_t pc);

/* Value of the expression at pool offset `expr` with loop registers regs[]
 * and indices p, f. 0, or TG_EPROGRAM on overflow or division by zero. */
int tg_prog_eval(const tg_prog *p, uint32_t expr, const int64_t *regs, int64_t pidx, int64_t fidx, int64_t *out);
/* Value of the FEXPR expression at `expr` in floating point (SPEC.md §2.1):
 * integers and registers convert to double, `/` is true division, `%` the
 * floored remainder (tg_math_mod_floor_d), min/max as `a < b ? a : b`.
 * 0, or TG_EPROGRAM on a division by zero (check refuses those). */
int tg_prog_feval(const tg_prog *p, uint32_t expr, const int64_t *regs, double *out);
/* The number field `key` (a FLOAT immediate) of `in` as the fp32 the C
 * simulation uses: the constant, or its FEXPR twin evaluated with regs[]
 * and rounded once; dflt when neither is given. 0 or TG_EPROGRAM. */
int tg_prog_number(const tg_prog *p, const tg_prog_inst *in, tg_isa_imm key, const int64_t *regs, float dflt,
                   float *out);

/* 1 if every copy of tile t starts on a multiple of esize bytes (its base,
 * and its slot when it has more than one copy): what an access of that
 * element size needs besides an aligned byte offset. */
int tg_prog_aligned(const tg_prog_tile *t, uint32_t esize);
/* 1 and *v if the expression at pool offset `off` is one constant (CONST,
 * END), else 0. Safe on any offset. */
int tg_prog_const(const tg_prog *p, uint32_t off, int64_t *v);

/* FNV-1a 32-bit hash of n bytes. */
uint32_t tg_fnv1a32(const uint8_t *data, size_t n);
/* The program checksum: FNV-1a 32 over every byte except the checksum
 * field (bytes 12..15) of a program of `size` bytes (size >= 16). */
uint32_t tg_prog_checksum(const uint8_t *data, size_t size);

/* Little-endian field readers (also used by the assembler's tests). */
static inline uint32_t tg_rd_le16(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8; }
static inline uint32_t tg_rd_le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t tg_rd_le64(const uint8_t *b) { return tg_rd_le32(b) | (uint64_t)tg_rd_le32(b + 4) << 32; }

#endif /* TG_PROG_H */
