/* ir.h - the tile IR: what lower.c makes of a checked Spec and what the planner,
 * the C emitter and the assembly emitter consume. A tree of loops and engine
 * instructions whose operands are access patterns in the hardware's own terms
 * (memory, partition range, element offset, dtype, [step, num] free dims). */
#ifndef TILEGEN_IR_H
#define TILEGEN_IR_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "expr.h"
#include "spec.h"
#include "tg_isa.h"

enum {
    IR_MAX_FREE = 4,     /* free dims of one access pattern (hardware: 4-D) */
    IR_MAX_OPERANDS = 8, /* access patterns one instruction touches */
};

/* Opcodes: one per spec op, as X(ID, spec op). Opcode IR_OP_<ID> is the
 * instruction TG_OP_<ID> of the one ISA table runtime/tg_isa.def, which gives
 * its mnemonic, engine queue, operand roles and encoding (ir_isa_op); keep the
 * list in step with gen/spec_ops.def. */
#define IR_OPCODES(X)                                                                                             \
    X(LOAD, LOAD) X(STORE, STORE) X(DMA_COPY, DMA_COPY) X(MATMUL, MATMUL) X(TRANSPOSE, TRANSPOSE)               \
    X(TENSOR_COPY, TENSOR_COPY) X(ACTIVATION, ACTIVATION) X(TENSOR_TENSOR, TENSOR_TENSOR)                        \
    X(TENSOR_SCALAR, TENSOR_SCALAR) X(TENSOR_REDUCE, TENSOR_REDUCE) X(TENSOR_TENSOR_SCAN, TENSOR_TENSOR_SCAN)   \
    X(RECIPROCAL, RECIPROCAL) X(MEMSET, MEMSET) X(IOTA, IOTA) X(AFFINE_SELECT, AFFINE_SELECT)                    \
    X(BN_STATS, BN_STATS) X(BN_AGGR, BN_AGGR) X(PARTITION_REDUCE, PARTITION_REDUCE) X(SELECT, SELECT)            \
    X(SCALAR_TENSOR_TENSOR, SCALAR_TENSOR_TENSOR) X(MAX8, MAX8) X(NC_FIND_INDEX8, NC_FIND_INDEX8)                 \
    X(NC_MATCH_REPLACE8, NC_MATCH_REPLACE8) X(PRINT, PRINT)

typedef enum {
#define X(ID, SPECOP) IR_OP_##ID,
    IR_OPCODES(X)
#undef X
    IR_OP_COUNT
} IrOpcode;

/* Where an access pattern points. */
typedef enum { IR_MEM_HBM, IR_MEM_SBUF, IR_MEM_PSUM } IrMem;

/* One free dimension: `num` indices `step` elements apart. */
typedef struct IrDim {
    int64_t step; /* elements between consecutive indices (HBM: may be any stride) */
    Expr *num;    /* how many indices; an INT unless ragged (then it has min()) */
} IrDim;

/* An access pattern (operand). Element (p, j1..jn) of the operand is at
 *   HBM:       tensor + offset + p*pstep + sum jk*free[k].step     (elements)
 *   SBUF/PSUM: partition (tile base + pstart + p),
 *              byte (tile base + buf*slot) + (offset + sum jk*free[k].step)*dsize
 * for p < pcount, jk < free[k].num; free dims outermost first. */
typedef struct IrAp {
    IrMem mem;            /* HBM tensor, SBUF tile or PSUM tile */
    int index;            /* Spec.tensors (HBM) or Spec.tiles (SBUF/PSUM) index */
    tg_dtype dtype;       /* element type as stored there */
    Expr *pstart;         /* first partition within the tile (HBM: always 0) */
    Expr *pcount;         /* partitions accessed (has min() on ragged tails) */
    int64_t pstep;        /* HBM: elements between partition rows (0 = broadcast,
                             1 = transposed 2-D load or store); SBUF/PSUM: 1 */
    Expr *offset;         /* elements from the partition row start (SBUF/PSUM) or
                             from the tensor start (HBM) */
    int nfree;            /* entries in free[] (>= 1) */
    IrDim free[IR_MAX_FREE]; /* free dims, outermost first, merged where contiguous */
    int64_t istep;        /* HBM side of an indirect DMA (SPEC.md §2.1): partition row p starts
                             index[p]*istep elements further (IrInst.ind); 0: none */
    int ixgather;         /* C simulation only (gen/forward.c): 1 + the id of the gather this
                             operand was forwarded from, whose indices (as it checked them,
                             kept in tg_ix<id>) give index[p]; 0: the instruction's own */
    int discard;          /* C simulation only (gen/forward.c, drop_dead): 1 on a dst whose
                             tile nothing reads; the back end may skip writing it */
    int konst;            /* C simulation only (gen/forward.c, const_reads): 1 on a source
                             whose every element is kval when it is read (a tile only a
                             memset before it writes); the back end may read kval instead */
    float kval;           /* ... the value the read gives */
    int rot_loop;         /* tiles: copy rotates with this loop's iterations (IrLoop.id), -1 none */
    Expr *buf;            /* tiles: which of the tile's `bufs` copies (INT 0 if none rotate) */
    SrcLoc loc;           /* the region in the spec */
} IrAp;

/* A number or a [P,1] operand (scale, tensor_scalar operands, scan initial). */
typedef struct IrScalar {
    int is_ap;  /* 1: ap holds a [P,1] operand; 0: num */
    double num; /* the number (a constant one) */
    Expr *numx; /* a number over loop variables, evaluated per iteration (SPEC.md §2.1), else NULL */
    IrAp ap;    /* the operand */
} IrScalar;

typedef struct IrLoop IrLoop;

/* One engine instruction. Only the fields of its opcode are meaningful. */
typedef struct IrInst {
    IrOpcode op;              /* what */
    SpecEngine engine;        /* which engine queue runs it */
    SrcLoc loc;               /* the spec op's key */
    int id;                   /* program order index (Ir.insts[id] == this) */
    IrLoop *loop;             /* innermost enclosing loop, NULL at top level */
    IrAp dst;                 /* written operand (store/dma_copy: HBM or SBUF) */
    IrAp src[3];              /* src/a/stationary, b/moving; select: its tile operands */
    int nsrc;                 /* entries in src[] */
    int sel_src[3];           /* select pred, on_true, on_false: index in src[], or -1 */
    double sel_num[3];        /* ... the number when it is one */
    Expr *sel_numx[3];        /* ... a number over loop variables, per iteration, else NULL */
    int has_ind;              /* load/store with an index column (SPEC.md §2.1): */
    IrAp ind;                 /* ... the column, one integer per partition (SBUF) */
    int64_t ind_bound;        /* ... indices lie in [0, ind_bound): the indexed dim's size */
    int has_vals;             /* nc_find_index8 / nc_match_replace8: */
    IrAp vals;                /* ... the [P,8] values */
    IrScalar scalar[2];       /* tensor_scalar operand0/1; activation scale in [0];
                                 tensor_tensor_scan initial in [0];
                                 scalar_tensor_tensor operand0 in [0] */
    int nscalar;              /* entries in scalar[] */
    int has_bias;             /* activation: bias given */
    IrAp bias;                /* activation bias [P,1] */
    int has_reduce;           /* activation reduce / tensor_scalar accumulate given */
    SpecAlu reduce_op;        /* its op (add, maximum, minimum) */
    IrAp reduce_dst;          /* its destination [P,1] */
    SpecAlu alu[2];           /* op / op0, op1 */
    int nalu;                 /* entries in alu[] */
    SpecAct func;             /* activation function */
    int reverse[2];           /* tensor_scalar reverse0/1, scalar_tensor_tensor reverse0 */
    int negate;               /* tensor_reduce negate */
    int accumulate;           /* matmul accumulate (dst is read too) */
    int transpose;            /* load/store transpose (already folded into the HBM side's strides) */
    int broadcast;            /* load broadcast (already folded into src pstep 0) */
    double value;             /* memset value, affine_select fill, nc_match_replace8 imm */
    Expr *valuex;             /* ... over loop variables, per iteration, else NULL */
    Expr *iota;               /* iota expression over p, f and loop variables */
    ExprPred pred;            /* affine_select predicate */
    const char *label;        /* print: its label (src[0] is the region, free dims as
                                 the region has them, unmerged: its shape; no dst) */
} IrInst;

typedef enum { IR_STMT_LOOP, IR_STMT_INST } IrStmtKind;

/* A statement of a loop body: a loop or an instruction. */
typedef struct IrStmt {
    IrStmtKind kind; /* which */
    IrLoop *loop;    /* IR_STMT_LOOP */
    IrInst *inst;    /* IR_STMT_INST */
} IrStmt;

/* A loop: var runs start, start+step, ... < stop (trip iterations). */
struct IrLoop {
    int id;           /* pre-order index (Ir.loops[id] == this) */
    int slot;         /* env[] slot of the variable */
    const char *var;  /* its name */
    int64_t start, stop, step, trip; /* range and iteration count; with bounds over
                                        enclosing loop variables, over the hull */
    Expr *start_e, *stop_e; /* such bounds (SPEC.md §2.1), per entry; NULL: constant */
    int carried;      /* iterations are sequential (carried: true) */
    int grid;         /* a loop of the SPMD grid: 1 + its axis (SpecStmt.grid); 0 otherwise */
    IrStmt *body;     /* statements */
    int nbody;
    IrLoop *parent;   /* enclosing loop, NULL at top level */
    int depth;        /* 0 for a top-level loop */
    int first, last;  /* ids of the first and last instruction inside (first > last: none) */
    SrcLoc loc;       /* the `for` key */
};

/* What the lowering learnt about a tile's uses (see docs/ir.md). */
typedef struct IrTile {
    int naccess;      /* instructions touching it */
    int first, last;  /* ids of the first and last of them */
    int home;         /* innermost loop containing every access (IrLoop.id), -1 top */
    int scope;        /* loop whose iterations start with a fresh tile value
                         (rotation loop when bufs > 1), -1 = whole kernel */
} IrTile;

typedef struct Ir {
    const Spec *spec;  /* what was lowered */
    IrStmt *body;      /* top-level statements */
    int nbody;
    IrInst **insts;    /* every instruction, program order */
    int ninsts;
    IrLoop **loops;    /* every loop, pre-order */
    int nloops;
    IrTile *tiles;     /* per Spec.tiles entry */
    int ntiles;
} Ir;

/* One operand of an instruction, for passes that treat them alike. */
typedef struct IrOperand {
    SpecFieldId role; /* the spec field it came from (dst, src, a, scale, reduce...) */
    IrAp *ap;         /* the pattern */
    int is_read;      /* read by the instruction */
    int is_write;     /* written by the instruction */
} IrOperand;

/* Lower a checked Spec (spec_check + sema without errors). Reports patterns
 * the hardware cannot express into diag; returns NULL on any error. */
Ir *ir_lower(Arena *arena, const Spec *spec, Diag *diag);

/* The operands of in (into out[IR_MAX_OPERANDS]); returns how many. Like
 * strchr, it takes a const instruction and gives its operands writable: a
 * pass that owns the IR (lower.c) may write them, readers keep them const. */
int ir_operands(const IrInst *in, IrOperand *out);
/* The ISA instruction of an IR opcode (runtime/tg_isa.def). */
tg_isa_op ir_isa_op(IrOpcode op);
/* Its mnemonic ("pe.matmul"), from the ISA table. */
const char *ir_opcode_name(IrOpcode op);
const char *ir_mem_name(IrMem m);
/* 1 if e is the integer constant k. */
int ir_expr_is(const Expr *e, int64_t k);
/* Value of a constant e into *v; 0 if e is not constant. */
int ir_expr_const(const Expr *e, int64_t *v);
/* Elements one partition of the pattern covers when every num is constant;
 * -1 otherwise. */
int64_t ir_ap_free_elems(const IrAp *ap);
/* 1 if a and b are one pattern but for their offsets: the same tile or
 * tensor, dtype, steps, counts and rotating copy, each expression compared
 * by eq(ctx, x, y). forward.c (a write overwritten whole) and emit.c (folded
 * K loops) then compare the offsets each its own way. */
int ir_ap_same_but_offset(const IrAp *a, const IrAp *b, int (*eq)(void *ctx, const Expr *x, const Expr *y),
                          void *ctx);
/* 1 if ap (a tile operand) takes the whole row of each partition it
 * touches: every free element, in order (one contiguous free dim from
 * offset 0). The lowering merges contiguous dims and drops single-index
 * ones, so a whole row is that one dim in any pattern but a print's (its
 * region's own dims; it only reads). */
int ir_ap_covers_row(const Spec *spec, const IrAp *ap);
/* 1 if ap (a tile operand) is the whole tile: every partition, and the
 * whole row of each (ir_ap_covers_row). */
int ir_ap_covers_tile(const Spec *spec, const IrAp *ap);
/* Print an access pattern: `sbuf:xt.(i%2)[0:+128] +0 float32 [[1,512]]`. */
void ir_ap_format(const Ir *ir, const IrAp *ap, char *buf, size_t size);
/* Readable text form of the whole IR (--dump=ir). */
void ir_dump(FILE *out, const Ir *ir);

#endif
