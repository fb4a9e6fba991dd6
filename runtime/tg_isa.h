/* tg_isa.h - tilegen's NeuronCore binary program format, version 1: constants,
 * enums generated from the ISA table (tg_isa.def) and the byte layout of every
 * record. Shared by the assembler (gen/asm.c), the decoder/validator
 * (tg_prog.c) and the ISS. Freestanding C99; all fields little-endian.
 * docs/asm.md describes the format in prose. */
#ifndef TG_ISA_H
#define TG_ISA_H

#include <stdint.h>

#include "tg_isa.def"
#include "tg_machine.h" /* TG_DMA_QUEUES = 16 */

#define TG_ISA_MAGIC "TGNC"    /* bytes 0..3 of every program */
#define TG_ISA_VERSION_MAJOR 2 /* incompatible layout changes (2: tensor records with kind, base, 5 dims) */
#define TG_ISA_VERSION_MINOR 2 /* compatible additions (1: print; 2: core, two physical cores) */

enum {
    TG_ISA_MAX_REGS = 8,       /* loop registers r0..r7 (loop nesting depth) */
    TG_ISA_MAX_SEMS = 256,     /* semaphores s0..s255 (each physical core has its own) */
    TG_ISA_MAX_CORES = 2,      /* physical cores of one program (`core id=0`, `core id=1`; format 2.2) */
    TG_ISA_MAX_FREE = 4,       /* free dims of one access pattern */
    TG_ISA_MAX_RANK = 4,       /* dims of a tile shape */
    TG_ISA_MAX_TENSOR_RANK = 5, /* dims of an HBM tensor's shape */
    TG_ISA_MAX_EXPR_STACK = 16, /* evaluation stack of one expression */
    TG_ISA_MAX_EXPR_BYTES = 512, /* bytecode of one expression, END included */
    TG_ISA_MAX_NAME = 63,      /* characters of a tensor, tile, kernel or loop name */
    TG_ISA_MAX_OPERANDS = 8,   /* operands of one instruction */
    TG_ISA_MAX_IMMS = 16,      /* immediates of one instruction */
    TG_ISA_MAX_STRIDE = 0x7fffffff, /* elements between consecutive indices of a tensor's dim 0 (and so of
                                       every dim): the int32 step fields */

    /* record sizes in bytes (layouts below) */
    TG_ISA_HEADER_BYTES = 60,
    TG_ISA_TENSOR_BYTES = 28,
    TG_ISA_TILE_BYTES = 40,
    TG_ISA_INST_BYTES = 16,
    TG_ISA_OPERAND_BYTES = 60,
    TG_ISA_IMM_BYTES = 12,
};

/* Engines (tg_isa.def TG_ISA_ENGINES). TG_ENG_SYNC marks loop control, which
 * every engine executes on its own copy of the loop registers. */
typedef enum tg_isa_engine {
#define TG_ISA_ENG_ENUM(ID, pfx) TG_ENG_##ID,
    TG_ISA_ENGINES(TG_ISA_ENG_ENUM)
#undef TG_ISA_ENG_ENUM
    TG_ENG_COUNT
} tg_isa_engine;

/* DMA queues and instruction streams. Every DMA instruction (and every
 * DMA-tagged signal/wait) names one of TG_DMA_QUEUES in-order queues (its
 * `queue` immediate, 0 when absent); the queues run independently of each
 * other. A stream is what runs in order: a non-DMA instruction's stream is
 * its engine id, a DMA one's TG_ENG_COUNT + queue (tg_prog_stream).
 * TG_DMA_QUEUES (16) is tg_machine.h's. */
enum { TG_STREAM_COUNT = TG_ENG_COUNT + TG_DMA_QUEUES };

typedef enum tg_isa_role {
#define TG_ISA_ROLE_ENUM(ID, key) TG_ROLE_##ID,
    TG_ISA_ROLES(TG_ISA_ROLE_ENUM)
#undef TG_ISA_ROLE_ENUM
    TG_ROLE_COUNT
} tg_isa_role;

typedef enum tg_isa_imm_kind {
#define TG_ISA_KIND_ENUM(ID) TG_IMMK_##ID,
    TG_ISA_IMM_KINDS(TG_ISA_KIND_ENUM)
#undef TG_ISA_KIND_ENUM
    TG_IMMK_COUNT
} tg_isa_imm_kind;

typedef enum tg_isa_imm {
#define TG_ISA_IMM_ENUM(ID, key, kind) TG_IMM_##ID,
    TG_ISA_IMMS(TG_ISA_IMM_ENUM)
#undef TG_ISA_IMM_ENUM
    TG_IMM_COUNT
} tg_isa_imm;

/* The FEXPR twin of a FLOAT immediate key (TG_ISA_FLOAT_TWINS), or the key
 * itself for any other key: the assembler, the decoder and the executors
 * resolve twins through this one function. */
static inline tg_isa_imm tg_isa_fexpr_twin(tg_isa_imm key)
{
    switch (key) {
#define TG_ISA_TWIN_CASE(F, X)                                                                                    \
    case TG_IMM_##F: return TG_IMM_##X;
        TG_ISA_FLOAT_TWINS(TG_ISA_TWIN_CASE)
#undef TG_ISA_TWIN_CASE
    default: return key;
    }
}

#define TG_ISA_R(role) (1u << TG_ROLE_##role)
#define TG_ISA_I(imm) (1ull << TG_IMM_##imm)

typedef enum tg_isa_op {
#define TG_ISA_OP_ENUM(ID, mn, eng, rreq, ropt, ireq, iopt) TG_OP_##ID,
    TG_ISA_OPS(TG_ISA_OP_ENUM, TG_ISA_R, TG_ISA_I)
#undef TG_ISA_OP_ENUM
    TG_OP_COUNT
} tg_isa_op;

/* What a tensor record is (byte 5): the caller's tensors[] hold the public
 * ones (input, output, scratch) in table order; a view (SPEC.md §2.1) is the
 * bytes of public tensor `base` with its own dtype and shape. */
typedef enum tg_isa_tensor_kind {
    TG_TENSOR_INPUT = 0,
    TG_TENSOR_OUTPUT = 1,
    TG_TENSOR_SCRATCH = 2,
    TG_TENSOR_VIEW = 3,
    TG_TENSOR_KIND_COUNT
} tg_isa_tensor_kind;

/* Where an access pattern points. */
typedef enum tg_isa_space { TG_SPACE_HBM = 0, TG_SPACE_SBUF = 1, TG_SPACE_PSUM = 2, TG_SPACE_COUNT } tg_isa_space;

/* Most bytes of one HBM tensor (1 TiB): every element offset stays within
 * the ISS's bounds arithmetic (tg_iss.c ISS_FAR). */
#define TG_ISA_MAX_TENSOR_BYTES ((uint64_t)1 << 40)

/* Expression bytecode (postfix, each expression ends with TG_X_END). */
typedef enum tg_isa_xop {
    TG_X_END = 0,   /* end of this expression: exactly one value on the stack */
    TG_X_CONST = 1, /* push the next 8 bytes (int64, little-endian) */
    TG_X_REG = 2,   /* push loop register (next byte) */
    TG_X_P = 3,     /* push the partition index p (iota, affine_select) */
    TG_X_F = 4,     /* push the flat free index f (iota, affine_select) */
    TG_X_NEG = 5,   /* unary minus */
    TG_X_ADD = 6, TG_X_SUB = 7, TG_X_MUL = 8,
    TG_X_DIV = 9,   /* floor division */
    TG_X_MOD = 10,  /* floor modulo (sign of the divisor) */
    TG_X_MIN = 11, TG_X_MAX = 12,
    TG_X_FCONST = 13, /* push the next 8 bytes (IEEE double bits, LE): FEXPR expressions only (format 1.3) */
    TG_X_COUNT
} tg_isa_xop;

/* One row of the ISA table. */
typedef struct tg_isa_info {
    const char *mnemonic;   /* "pe.matmul"; sync ops without the engine tag */
    tg_isa_engine engine;   /* engine queue (TG_ENG_SYNC: loop control / engine-tagged sync) */
    uint32_t roles_req;     /* operand roles that must be present (bit per tg_isa_role) */
    uint32_t roles_opt;     /* operand roles that may be present */
    uint64_t imms_req;      /* immediates that must be present (bit per tg_isa_imm) */
    uint64_t imms_opt;      /* immediates that may be present */
} tg_isa_info;

/* The table, indexed by tg_isa_op (defined in tg_prog.c). */
extern const tg_isa_info tg_isa_table[TG_OP_COUNT];
/* Asm keys of roles, immediates and engine prefixes; kinds of immediates. */
extern const char *const tg_isa_role_key[TG_ROLE_COUNT];
extern const char *const tg_isa_imm_key[TG_IMM_COUNT];
extern const tg_isa_imm_kind tg_isa_imm_kinds[TG_IMM_COUNT];
extern const char *const tg_isa_engine_prefix[TG_ENG_COUNT];

/* Byte layout, version 1 (offsets in bytes; u = unsigned, i = signed, LE):
 *
 * header (TG_ISA_HEADER_BYTES at offset 0)
 *   0 magic "TGNC"         4 u16 version major   6 u16 version minor
 *   8 u32 total size      12 u32 checksum: FNV-1a 32 over all bytes but 12..15
 *  16 u8 target (tg_target)  17 u8 ntensors  18 u8 ntiles  19 u8 reserved (0)
 *  20 u32 ninsts  24 u32 noperands  28 u32 nimms
 *  32 u32 strtab offset  36 u32 strtab bytes  40 u32 expr pool offset
 *  44 u32 expr pool bytes  48 u32 kernel name (string)  52 u32 spec path (string)
 *  56 u32 tilegen version (string)
 * then, in this order, each table right after the previous one:
 *   tensors[ntensors] (TG_ISA_TENSOR_BYTES): 0 u32 name, 4 u8 dtype,
 *       5 u8 kind (tg_isa_tensor_kind), 6 u8 rank, 7 u8 base (a view: the
 *       public tensor whose bytes it reads, else 0), 8 u32 shape[5] (unused 0);
 *       the public tensors (input, output, scratch: the caller's tensors[])
 *       first, then the views, each of a public tensor with its byte size
 *   tiles[ntiles] (TG_ISA_TILE_BYTES): 0 u32 name, 4 u8 space (SBUF/PSUM),
 *       5 u8 dtype, 6 u8 bufs, 7 u8 rank, 8 u32 base byte (PSUM: bank*2048),
 *       12 u32 slot bytes (copy k at base + k*slot), 16 u32 pstart,
 *       20 u32 pcount, 24 u32 shape[4]
 *   insts[ninsts] (TG_ISA_INST_BYTES): 0 u8 opcode, 1 u8 engine, 2 u8 nops,
 *       3 u8 nimms, 4 u32 first operand, 8 u32 first immediate,
 *       12 u32 spec line (0 = none)
 *   operands[noperands] (TG_ISA_OPERAND_BYTES): 0 u8 role, 1 u8 space,
 *       2 u8 dtype, 3 u8 nfree, 4 u16 index (tensor or tile), 6 u16 0,
 *       8 i32 pstep (HBM: elements between partition rows), 12 u32 buf expr,
 *       16 u32 pstart expr, 20 u32 pcount expr, 24 u32 offset expr (bytes),
 *       28 + 8k: i32 free[k].step (elements), u32 free[k].num expr, k < 4
 *   imms[nimms] (TG_ISA_IMM_BYTES): 0 u8 key (tg_isa_imm), 1..3 0, 4 u64 value
 *   (format 2.2) a `core id=N` instruction at loop depth 0 opens physical
 *       core N's stream: the instructions up to the next `core` or the end;
 *       ids 0, 1, ... in order, the first instruction `core id=0` when there
 *       is any; none: one core running every instruction
 *   string table: NUL-terminated strings, referenced by offset
 *   expression pool: bytecode, referenced by offset
 * Nothing may follow the expression pool. */

#endif /* TG_ISA_H */
