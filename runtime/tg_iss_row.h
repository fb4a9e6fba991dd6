/* tg_iss_row.h - internal to the ISS: a resolved access pattern, its
 * row-major walker, and the per-partition-row kernels of tg_iss_row.c (block
 * gather/scatter with fast paths for contiguous runs, the element-wise
 * families, raw copies, folds) that tg_iss.c's instruction executors call.
 * Freestanding C99. Not a public header: only tg_iss*.c include it. */
#ifndef TG_ISS_ROW_H
#define TG_ISS_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "tg_alu.h"
#include "tg_isa.h"
#include "tg_math.h"
#include "tg_ops.h"
#include "tg_prog.h"
#include "tg_runtime.h"

/* fp32 elements one block of a row kernel stages per operand. */
#define TG_ISS_BLOCK 512

/* A resolved access pattern: partition rows and a free-dim walk. */
typedef struct tg_iss_ap {
    uint8_t *p0;                   /* element 0 of the first partition row */
    ptrdiff_t prow;                /* bytes between partition rows */
    tg_dtype dtype;                /* element type as accessed */
    int64_t esize;                 /* bytes per element */
    int64_t pcount;                /* partitions */
    int nfree;                     /* free dims, outermost first */
    int64_t num[TG_ISA_MAX_FREE];  /* indices per free dim */
    int64_t step[TG_ISA_MAX_FREE]; /* elements per index */
    int64_t count;                 /* free elements per partition */
    tg_isa_space space;            /* where it points */
    uint32_t index;                /* tensor or tile index */
    const uint8_t *lo, *hi;        /* bytes touched: [lo, hi) */
    int64_t part;                  /* SBUF/PSUM: first (absolute) partition */
    int64_t clo, chi;              /* SBUF/PSUM: byte columns touched in each row */
} tg_iss_ap;

/* Partition row p of an access pattern. */
static inline uint8_t *tg_iss_row(const tg_iss_ap *a, int64_t p) { return a->p0 + p * a->prow; }

/* Walk position over one access pattern's free elements (row-major). */
typedef struct tg_iss_it {
    int64_t idx[TG_ISA_MAX_FREE]; /* index per dim */
    int64_t off;                  /* element offset of the current element */
    int fixed;                    /* broadcast: stays on element 0 */
} tg_iss_it;

static inline void tg_iss_it_init(tg_iss_it *it, int fixed)
{
    int k;
    for (k = 0; k < TG_ISA_MAX_FREE; k++)
        it->idx[k] = 0;
    it->off = 0;
    it->fixed = fixed;
}

/* Advance by r elements, r ≤ the indices left in the innermost dim. */
static inline void tg_iss_it_adv(const tg_iss_ap *a, tg_iss_it *it, int64_t r)
{
    int k = a->nfree - 1;
    if (it->fixed)
        return;
    it->off += a->step[k] * r;
    it->idx[k] += r;
    while (it->idx[k] == a->num[k] && k > 0) {
        it->off -= a->step[k] * a->num[k];
        it->idx[k] = 0;
        k--;
        it->off += a->step[k];
        it->idx[k]++;
    }
}

/* The next n elements of `a`'s walk in row `r` (from *it, which advances),
 * widened to fp32 into x; a fixed walk repeats element 0. */
void tg_iss_gather(const tg_iss_ap *a, const uint8_t *r, tg_iss_it *it, float *x, int64_t n);
/* Write y[0..n) rounded to `a`'s dtype to the next n elements of the walk. */
void tg_iss_scatter(const tg_iss_ap *a, uint8_t *r, tg_iss_it *it, const float *y, int64_t n);
/* The whole of row p (a->count elements) into x. */
void tg_iss_gather_row(const tg_iss_ap *a, int64_t p, float *x);
/* x[0..a->count) into the whole of row p. */
void tg_iss_scatter_row(const tg_iss_ap *a, int64_t p, const float *x);

/* r op x[0] op ... op x[n-1], left to right, on the raw ops (tg_alu.h): the
 * caller makes a NaN result canonical (tg_nan_canon). */
float tg_iss_fold(tg_alu_op op, float r, const float *x, int64_t n);

/* A scalar operand: a [P,1] access pattern (element 0 of each row) or a number. */
typedef struct tg_iss_scalar {
    int is_ap;     /* read from ap */
    tg_iss_ap ap;  /* the pattern */
    float num;     /* the number */
} tg_iss_scalar;

/* The element-wise families: what to compute per element. */
typedef enum tg_iss_kind {
    TG_ISS_CAST, TG_ISS_TT, TG_ISS_RECIP, TG_ISS_TS, TG_ISS_ACT, TG_ISS_SCAN, TG_ISS_MEMSET, TG_ISS_IOTA,
    TG_ISS_SELECT, /* affine_select */
    TG_ISS_STT,    /* scalar_tensor_tensor */
    TG_ISS_WHERE,  /* select */
    TG_ISS_MATCH   /* nc_match_replace8 */
} tg_iss_kind;

/* Everything one element-wise instruction needs besides its operands. */
typedef struct tg_iss_ew {
    tg_iss_kind kind;       /* family */
    tg_alu_op op0, op1;     /* ALU ops (op1 = TG_ALU_COUNT: none) */
    int rev0, rev1;         /* tensor_scalar / scalar_tensor_tensor reverse flags */
    tg_iss_scalar s0, s1;   /* tensor_scalar operands, activation scale/bias, scan initial,
                               scalar_tensor_tensor operand0 */
    tg_act_func func;       /* activation */
    int has_reduce;         /* activation reduce, tensor_scalar accumulate */
    tg_iss_ap red;          /* its [P,1] destination */
    tg_alu_op red_op;       /* its op */
    float value;            /* memset value, select fill, nc_match_replace8 imm */
    uint32_t x0, x1;        /* iota expr; select lhs, rhs */
    tg_cmp cmp;             /* select comparison */
    const tg_iss_ap *s2;    /* select: on_false's pattern (NULL: sel_num[2]) */
    float sel_num[3];       /* select: pred, on_true, on_false when a number */
    const tg_iss_ap *vals;  /* nc_match_replace8: the [P,8] values */
    const tg_prog *prog;    /* the program (iota/select expressions) */
    const int64_t *regs;    /* loop registers for the expressions */
} tg_iss_ew;

/* Elements an element-wise row may stage at once and keep the per-element
 * order's results: TG_ISS_BLOCK unless dst overlaps a source other than
 * element for element (same walk, no repeated address), then 1. */
int64_t tg_iss_ew_block(const tg_iss_ap *d, const tg_iss_ap *s0, const tg_iss_ap *s1);

/* One partition row of an element-wise op: dst[j] = f(src0[j], src1[j]) in
 * blocks of `block` elements (tg_iss_ew_block). 0 or TG_EPROGRAM. */
int tg_iss_ew_row(const tg_iss_ew *w, const tg_iss_ap *d, const tg_iss_ap *s0, const tg_iss_ap *s1, int64_t p,
                  int64_t block);

/* Raw copy of row p (same dtype): whole contiguous runs at once unless the
 * two ranges may overlap, then element by element in walk order. */
void tg_iss_copy_row(const tg_iss_ap *d, const tg_iss_ap *s, int64_t p, int overlap);

/* 1 when a and b may share a byte: in one SBUF or PSUM, when both their
 * partitions and their columns intersect; in HBM, when their hulls do. */
int tg_iss_overlap(const tg_iss_ap *a, const tg_iss_ap *b);

#endif /* TG_ISS_ROW_H */
