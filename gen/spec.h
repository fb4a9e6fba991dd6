/* spec.h - the checked Spec: what the front end (spec_check.c + sema.c) hands
 * to the lowering. Every size is a resolved int64, every name an index, every
 * region an expression AST over loop-variable slots (env[] of expr.h), every
 * op a row of spec_ops.def with typed fields and their YAML locations. */
#ifndef TILEGEN_SPEC_H
#define TILEGEN_SPEC_H

#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "expr.h"
#include "spec_load.h"
#include "tg_dtype.h"
#include "tg_machine.h"

enum {
    SPEC_MAX_RANK = 5,       /* HBM tensors, views and scratch are rank 1..5 */
    SPEC_MAX_TILE_RANK = 4,  /* tiles 2..4 (partition dim and up to 3 free dims) */
    SPEC_MAX_PARTITIONS = TG_PARTITIONS,
    /* Limits of the binary program (runtime/tg_isa.h, docs/asm.md) that sema
     * enforces so that every spec `check` accepts also assembles. */
    SPEC_SBUF_ALIGN = 64,                  /* every SBUF copy starts on this boundary */
    SPEC_MAX_LOOP_DEPTH = 8,               /* loop registers r0..r7 */
    SPEC_MAX_TABLE = 255,                  /* tensors, and tiles, of one program */
    SPEC_MAX_GRID = 3,                     /* axes of a grid */
};

/* ALU ops of SPEC.md §2: X(ID, name, class). Classes: A arithmetic, C compare
 * (0/1 result), L logical, B bitwise (integer dtypes only), U unary. */
#define SPEC_ALU_OPS(X)                                                                                           \
    X(ADD, "add", 'A') X(SUBTRACT, "subtract", 'A') X(MULTIPLY, "multiply", 'A') X(DIVIDE, "divide", 'A')        \
    X(MAXIMUM, "maximum", 'A') X(MINIMUM, "minimum", 'A') X(POWER, "power", 'A')                                \
    X(EQUAL, "equal", 'C') X(NOT_EQUAL, "not_equal", 'C') X(GREATER, "greater", 'C')                             \
    X(GREATER_EQUAL, "greater_equal", 'C') X(LESS, "less", 'C') X(LESS_EQUAL, "less_equal", 'C')                 \
    X(LOGICAL_AND, "logical_and", 'L') X(LOGICAL_OR, "logical_or", 'L') X(LOGICAL_XOR, "logical_xor", 'L')       \
    X(BITWISE_AND, "bitwise_and", 'B') X(BITWISE_OR, "bitwise_or", 'B') X(BITWISE_XOR, "bitwise_xor", 'B')       \
    X(LEFT_SHIFT, "left_shift", 'B') X(RIGHT_SHIFT, "right_shift", 'B') X(ABS, "abs", 'U')

typedef enum {
#define X(ID, NAME, CLASS) SPEC_ALU_##ID,
    SPEC_ALU_OPS(X)
#undef X
    SPEC_ALU_COUNT
} SpecAlu;

/* Activation functions of SPEC.md §2. */
#define SPEC_ACT_FUNCS(X)                                                                                         \
    X(COPY, "copy") X(EXP, "exp") X(LOG, "log") X(TANH, "tanh") X(SIGMOID, "sigmoid") X(RELU, "relu")            \
    X(GELU, "gelu") X(GELU_APPRX_TANH, "gelu_apprx_tanh") X(SILU, "silu") X(SOFTPLUS, "softplus")                \
    X(SQUARE, "square") X(SQRT, "sqrt") X(RSQRT, "rsqrt") X(RECIPROCAL, "reciprocal") X(SIN, "sin")              \
    X(ABS, "abs") X(SIGN, "sign") X(ERF, "erf")

typedef enum {
#define X(ID, NAME) SPEC_ACT_##ID,
    SPEC_ACT_FUNCS(X)
#undef X
    SPEC_ACT_COUNT
} SpecAct;

typedef enum { SPEC_ENGINE_DMA, SPEC_ENGINE_PE, SPEC_ENGINE_DVE, SPEC_ENGINE_ACT, SPEC_ENGINE_POOL } SpecEngine;

typedef enum {
#define SPEC_OP(ID, NAME, ENGINE) SPEC_OP_##ID,
#include "spec_ops.def"
    SPEC_OP_COUNT
} SpecOpKind;

/* Every field name any op takes; an op's fields are rows of spec_ops.def. */
#define SPEC_FIELD_NAMES(X)                                                                                       \
    X(DST, "dst") X(SRC, "src") X(A, "a") X(B, "b") X(STATIONARY, "stationary") X(MOVING, "moving")              \
    X(ACCUMULATE, "accumulate") X(DTYPE, "dtype") X(TRANSPOSE, "transpose") X(BROADCAST, "broadcast")            \
    X(FUNC, "func") X(SCALE, "scale") X(BIAS, "bias") X(REDUCE, "reduce") X(OP, "op") X(OP0, "op0")              \
    X(OP1, "op1") X(OPERAND0, "operand0") X(OPERAND1, "operand1") X(REVERSE0, "reverse0")                        \
    X(REVERSE1, "reverse1") X(NEGATE, "negate") X(INITIAL, "initial") X(VALUE, "value") X(EXPR, "expr")          \
    X(PRED, "pred") X(FILL, "fill") X(ON_TRUE, "on_true") X(ON_FALSE, "on_false") X(VALUES, "values")           \
    X(IMM, "imm") X(INDEX, "index") X(LABEL, "label")

typedef enum {
#define X(ID, NAME) SPEC_F_##ID,
    SPEC_FIELD_NAMES(X)
#undef X
    SPEC_F_COUNT
} SpecFieldId;

/* What a field holds (the KIND column of spec_ops.def). */
typedef enum {
    SPEC_FK_TILE_OUT,  /* region of a tile, written */
    SPEC_FK_TILE_IN,   /* region of a tile, read */
    SPEC_FK_HBM_IN,    /* region of an HBM tensor, read */
    SPEC_FK_HBM_OUT,   /* region of an HBM tensor, written */
    SPEC_FK_ANY_IN,    /* region of a tensor or an SBUF tile, read */
    SPEC_FK_ANY_OUT,   /* region of a tensor or an SBUF tile, written */
    SPEC_FK_SCALAR_IN, /* a number or a [P,1] tile region (select: or a whole operand) */
    SPEC_FK_NUMBER,    /* a number */
    SPEC_FK_ALU,       /* an ALU op name */
    SPEC_FK_ACT,       /* an activation function name */
    SPEC_FK_DTYPE,     /* a dtype name */
    SPEC_FK_BOOL,      /* true / false */
    SPEC_FK_IEXPR,     /* integer expression over p, f and loop variables */
    SPEC_FK_PRED,      /* e1 OP e2 over p, f and loop variables */
    SPEC_FK_REDUCE,    /* {op, dst}: an ALU op and a written tile region */
    SPEC_FK_LABEL,     /* a name (print: letters, digits, '_'; the .npy files are named by it) */
} SpecFieldKind;
/* SPEC_F_INDEX is no YAML key: the index column of a load's src or a store's
 * dst (`x[ix[:, 0], :]`) is filled in as that field, a tile region read. */

typedef enum { SPEC_BUF_SBUF, SPEC_BUF_PSUM } SpecBuffer;

/* A reference to (a region of) a tensor or a tile, normalised by sema to one
 * [start, stop) with a step per dimension of the target. */
typedef struct SpecRef {
    ExprRegion region;              /* as written (names resolved in its Exprs) */
    int is_tensor;                  /* 1: HBM tensor, 0: tile */
    int index;                      /* into Spec.tensors / Spec.tiles; -1 = unresolved */
    int rank;                       /* target's rank (after sema) */
    Expr *start[SPEC_MAX_RANK];     /* per target dim: first index */
    Expr *stop[SPEC_MAX_RANK];      /* per target dim: one past the last index */
    int64_t step[SPEC_MAX_RANK];    /* per target dim: stride (> 0) */
    unsigned char dropped[SPEC_MAX_RANK]; /* integer index: dimension removed */
    Expr *extent[SPEC_MAX_RANK];    /* ragged tile: its shape bound to the loops around
                                       this use (NULL: a constant dim) */
    int normalized;                 /* start/stop/step are filled */
    /* Indirect DMA (SPEC.md §2.1): dimension ind_dim of this HBM region is
     * indexed by the integer column `ind` (a tile region, one value per
     * partition; the op's INDEX field). Normalised as the whole dimension
     * (bounds and dependences see every row it may touch); its extent is the
     * column's partition count when it is the region's first kept dimension
     * (a row gather), else 1 (an element per partition). */
    struct SpecRef *ind;            /* NULL: no indirect dimension */
    int ind_dim;                    /* which dimension */
} SpecRef;

/* One field of an op statement. */
typedef struct SpecValue {
    int present;          /* given in the YAML (or filled by a default) */
    const SpecNode *node; /* its YAML value node */
    SrcLoc loc;           /* where it is */
    int is_ref;           /* SCALAR_IN: 1 = a tile region, 0 = a number */
    SpecRef ref;          /* region fields, SCALAR_IN tiles, REDUCE dst */
    double num;           /* NUMBER / SCALAR_IN numbers (a constant one) */
    Expr *numx;           /* a number over loop variables (SPEC.md §2.1), else NULL */
    int enum_val;         /* ALU (SpecAlu), ACT (SpecAct), DTYPE (tg_dtype); REDUCE op */
    int boolean;          /* BOOL */
    Expr *expr;           /* IEXPR */
    ExprPred pred;        /* PRED */
    const char *label;    /* LABEL */
} SpecValue;

typedef struct SpecParam {
    const char *name; /* as in params: */
    int64_t value;    /* after -D overrides */
    SrcLoc loc;       /* its key */
    int overridden;   /* set by -D */
} SpecParam;

typedef struct SpecTensor {
    const char *name;              /* C identifier */
    tg_dtype dtype;                /* element type */
    int rank;                      /* 1..5 */
    int64_t shape[SPEC_MAX_RANK];  /* row-major sizes */
    int is_output;                 /* outputs: section (a view: its base's) */
    int is_scratch;                /* scratch: section (a view: its base's) */
    int index;                     /* position in spec order (inputs, outputs, scratch, views) */
    /* Views (SPEC.md §2.1): a reshape or bitcast of another tensor's bytes.
     * view_of is the tensor `of` names (-1: not a view); base the public
     * tensor (input, output or scratch) whose memory it is, itself when not
     * a view. Every analysis that asks "same storage?" compares base. */
    int view_of;
    int base;
    SrcLoc loc;                    /* its key */
} SpecTensor;

typedef struct SpecTile {
    const char *name;              /* as declared or first written */
    SpecBuffer buffer;             /* SBUF or PSUM */
    tg_dtype dtype;                /* element type */
    int rank;                      /* 2..SPEC_MAX_TILE_RANK; 0 = not yet known */
    int64_t shape[SPEC_MAX_RANK];  /* partition dim first */
    int bufs;                      /* rotating buffers (>= 1) */
    int declared;                  /* 1: from tiles:, 0: inferred from its first write */
    SrcLoc loc;                    /* declaration, or the first write's dst */
    int bad;                       /* declaration had errors: skip checks on it */
    /* Ragged tiles (SPEC.md §2.1): a dim whose extent reads loop variables.
     * shape_e[d] is that extent (NULL: the constant shape[d]); sema binds its
     * loop variables, by name, to the loops around each use (SpecRef.extent),
     * and shape[d] is the largest extent over the iterations that use the
     * tile (the planned size). Inferred tiles inherit their first writer's. */
    Expr *shape_e[SPEC_MAX_RANK];
    int ragged;                    /* some shape_e[d] is set */
} SpecTile;

typedef enum { SPEC_STMT_LOOP, SPEC_STMT_OP } SpecStmtKind;

typedef struct SpecStmt {
    SpecStmtKind kind;        /* loop or op */
    SrcLoc loc;               /* the statement's key (`for` / op name) */
    const SpecNode *node;     /* the statement's mapping */
    /* loops */
    const char *var;          /* loop variable name */
    int slot;                 /* its env[] slot (>= EXPR_VAR_FIRST) */
    int64_t start, stop, step;/* range: start, start+step, ... < stop; with bounds over
                                 enclosing loop variables, their least start and
                                 greatest stop over those loops (the hull) */
    Expr *start_e, *stop_e;   /* such bounds, evaluated per iteration (NULL: constant) */
    int carried;              /* carried: true (sequential iterations) */
    int grid;                 /* a loop of the grid (SPEC.md §2.1): 1 + its axis, var
                                 "program_id_<axis>"; 0 for a `for` loop */
    struct SpecStmt **body;   /* statements of the loop body */
    int nbody;
    /* ops */
    SpecOpKind op;            /* which op */
    SpecValue f[SPEC_F_COUNT];/* fields, indexed by SpecFieldId */
    int bad;                  /* schema errors: sema skips this op */
} SpecStmt;

typedef struct Spec {
    const char *file;        /* path given */
    const SpecNode *root;    /* the YAML tree */
    const char *kernel;      /* kernel name */
    const char *doc;         /* doc string or NULL */
    tg_target target;        /* TG_TRN1 / TG_TRN2 */
    SpecParam *params;
    int nparams;
    SpecTensor *tensors;     /* inputs, outputs, scratch, then views */
    int ntensors, ninputs;
    int npublic;             /* inputs, outputs and scratch: the tensors the caller
                                passes (tensors[0..npublic)); views follow */
    SpecTile *tiles;         /* declared, then inferred in first-write order */
    int ntiles, tiles_cap;
    int grid_rank;           /* grid: axes (0: not a grid kernel); the body is then
                                 one loop per axis, axis 0 outermost (SpecStmt.grid) */
    int64_t grid[3];         /* programs along each axis */
    SrcLoc grid_loc;         /* the `grid` key */
    int cores;               /* cores: physical cores axis 0 is spread over (1 or 2;
                                2 needs trn2 and a grid, spec_core_range) */
    SrcLoc cores_loc;        /* the `cores` key (line 0 without one) */
    SpecStmt **body;         /* top-level statements */
    int nbody;
    int nslots;              /* env[] size: EXPR_VAR_FIRST + number of loops */
    SpecStmt **slot_loop;    /* slot -> its loop statement (NULL for p, f) */
} Spec;

/* Command-line settings applied while checking (-D, --target). */
typedef struct SpecOptions {
    const char **defines;    /* "NAME=VALUE" strings */
    int ndefines;
    const char *target;      /* "trn1" / "trn2" or NULL */
} SpecOptions;

/* Op table lookups. */
const char *spec_op_name(SpecOpKind op);
SpecEngine spec_op_engine(SpecOpKind op);
const char *spec_field_name(SpecFieldId f);
const char *spec_alu_name(SpecAlu a);
char spec_alu_class(SpecAlu a);
const char *spec_act_name(SpecAct a);
const char *spec_engine_name(SpecEngine e);
/* Kind of field f of op, or -1 if the op has no such field; *required set. */
int spec_op_field(SpecOpKind op, SpecFieldId f, int *required);

/* Schema check: YAML tree -> Spec (spec_check.c). Reports into diag and keeps
 * going; returns NULL only when nothing usable remains. */
Spec *spec_check(Arena *arena, Diag *diag, const SpecNode *root, const char *file, const SpecOptions *opt);
/* Semantic checks (sema.c, sema_deps.c): fills inferred tiles and normalised regions.
 * Returns the number of errors it reported. */
int sema_check(Spec *spec, Diag *diag, Arena *arena);

/* Bytes of tensor t. */
int64_t spec_tensor_bytes(const SpecTensor *t);

/* The programs of physical core `core` along grid axis 0 (cores: 2, NKI's
 * nl.nc(2) spmd_dim: contiguous blocks): [core*h, min(G0, (core+1)*h)) with
 * h = ceil(G0 / cores); every index of the other axes. One core: [0, G0). */
static inline void spec_core_range(const Spec *s, int core, int64_t *lo, int64_t *hi)
{
    int64_t g0 = s->grid_rank ? s->grid[0] : 1, h = (g0 + s->cores - 1) / s->cores;
    *lo = (int64_t)core * h < g0 ? (int64_t)core * h : g0;
    *hi = ((int64_t)core + 1) * h < g0 ? ((int64_t)core + 1) * h : g0;
}

/* Usable SBUF bytes per partition of a target. */
int64_t spec_sbuf_usable(tg_target t);

#endif
