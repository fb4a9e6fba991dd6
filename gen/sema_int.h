/* sema_int.h - what the semantic checks share between their files: sema.c
 * (region normalising, shapes, inference, ragged tiles, per-op rules,
 * capacity) and sema_deps.c (loop dependences E054/E055, never-written
 * reads E056). Private to them. */
#ifndef TILEGEN_SEMA_INT_H
#define TILEGEN_SEMA_INT_H

#include "spec.h"

/* 0 turns the closed forms off (every check enumerates): the reference the
 * sema-closed-form suite compares against. */
#ifndef SEMA_CLOSED_FORM
#define SEMA_CLOSED_FORM 1
#endif

enum {
    /* Enumeration steps (iterations visited, boxes kept and compared) for
     * the whole spec: about 0.1 s of checking on one x86-64 core
     * (`make bench-check-worst`); the bundled and example kernels need at
     * most 1,140. */
    SEMA_BUDGET = 1 << 22,
    SEMA_MAX_BOXES = 1 << 20, /* written boxes E055 may sort (~120 MB) */
    SEMA_NREF = SPEC_F_COUNT + 1, /* ref fields of an op + the reduce dst */
};

/* The concrete shape of an operand at one iteration (integer-indexed dims
 * removed; dim 0 is the partition dim). */
typedef struct Shape {
    int rank;
    int64_t d[SPEC_MAX_RANK];
} Shape;

/* One tile or tensor access, in program order. */
typedef struct Access {
    SpecStmt *stmt;       /* the op */
    const SpecRef *ref;   /* what it touches */
    int is_write;         /* write (dst) or read */
    int seq;              /* op's position in program order */
    SpecStmt **chain;     /* enclosing loops, outermost first */
    int depth;            /* entries in chain */
} Access;

/* The coverage bitmap of the E054 check, reused from read to read. */
typedef struct Cover {
    uint64_t *bits;              /* one bit per element of the tile, row-major */
    size_t cap;                  /* allocated words */
    size_t dlo, dhi;             /* words [dlo, dhi) may be non-zero; all others are 0 */
    const SpecTile *t;           /* the tile being checked */
    size_t nbits;                /* its elements */
    int64_t work;                /* units spent on the current read */
    int64_t miss[SPEC_MAX_RANK]; /* an element found unwritten */
} Cover;

typedef struct Sema {
    Spec *spec;
    Diag *diag;
    Arena *arena;
    int errors0;              /* diag->nerrors at start */
    int64_t *env;             /* current values of every slot */
    SpecStmt *loops[SPEC_MAX_DEPTH]; /* loops around the op being checked */
    int nloops;
    int seq;                  /* ops seen */
    Access *acc;              /* every access */
    int nacc, acc_cap;
    unsigned char *tile_written; /* per tile: written somewhere so far */
    Cover cov;                /* bitmap of the coverage check */
    int64_t work;             /* enumeration steps spent (SEMA_BUDGET) */
    int broke;                /* the budget ran out (E057 reported) */
    const SpecStmt *at;       /* the op or loop being checked, for E057 */
} Sema;

/* Spend n steps of the spec's budget: 0 once it has run out (after one E057
 * at the statement being checked, s->at). */
int sema_spend(Sema *s, int64_t n);
/* Tile of a tile reference (NULL for a tensor or an unresolved one). */
SpecTile *sema_ref_tile(Sema *s, const SpecRef *r);
/* The name a reference was written with. */
const char *sema_ref_name(const SpecRef *r);
/* Range [*lo, *hi) of loop l in the current env (bounds over enclosing loop
 * variables are evaluated there). */
void sema_loop_range(const Sema *s, const SpecStmt *l, int64_t *lo, int64_t *hi);
/* Odometer over the loop slots v[0..n), outer loops first: first sets env to
 * the first combination (0 if there is none); next advances (0 after the
 * last, or when the budget runs out). */
int sema_first_iter(Sema *s, const int *v, int n);
int sema_next_iter(Sema *s, const int *v, int n);
/* Add to `used` the loops of chain[0..depth) whose bounds vary and every loop
 * those bounds read. */
void sema_chain_vars(const Sema *s, SpecStmt *const *chain, int depth, unsigned char *used);
/* Iterations of loop l over its hull: an upper bound. */
int64_t sema_trip_count(const SpecStmt *l);
/* Loop l's last value over its hull. */
int64_t sema_loop_last(const SpecStmt *l);
/* Loop l's variable as messages show it: program_id(a) for a grid loop. */
const char *sema_var_name(Sema *s, const SpecStmt *l);
/* Mark the loop slots the normalised bounds of r read. */
void sema_ref_vars(const SpecRef *r, unsigned char *used, int nslots);

/* sema_deps.c: the dependence checks of every independent loop in body
 * (E054, E055), and reads of elements nothing wrote before (E056). */
void sema_check_loops(Sema *s, SpecStmt **body, int n);
void sema_check_unwritten(Sema *s);

#endif
