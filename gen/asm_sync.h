/* asm_sync.h - the semaphores of the assembly back end: the DMA queue of
 * each DMA instruction, dependency edges between streams (engines and DMA
 * queues) derived from the tile IR and the plan, reduced to the
 * ones no chain of other edges and in-order queues already implies, and
 * placed as signal/wait actions around the IR's statements (docs/asm.md,
 * "Semaphores"). */
#ifndef TILEGEN_ASM_SYNC_H
#define TILEGEN_ASM_SYNC_H

#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "plan.h"
#include "tg_isa.h"

/* Programs whose sequential run (instructions + semaphore actions, loops
 * unrolled) is longer than this keep every derived edge: the reduction
 * checks each removal on the unrolled run. */
#ifndef ASM_SYNC_MAX_TRACE
#define ASM_SYNC_MAX_TRACE (1u << 20)
#endif
/* ... and so do programs where edges x (run length + orderings) exceeds this. */
#ifndef ASM_SYNC_MAX_WORK
#define ASM_SYNC_MAX_WORK (1u << 26)
#endif

/* One semaphore action placed before or after a statement. */
typedef struct AsmSync {
    int sem;             /* semaphore */
    tg_isa_engine eng;   /* engine that executes it */
    int queue;           /* its DMA queue (eng == TG_ENG_DMA), else 0 */
    int is_wait;         /* wait (else signal) */
    uint32_t line;       /* spec line of the instruction it serves */
    struct AsmSync *next;
} AsmSync;

/* Every semaphore action of a kernel, by statement. */
typedef struct AsmSyncs {
    AsmSync **before;    /* per statement key (instruction id, or ninsts + loop id): before it */
    AsmSync **after;     /* ... and after it (a loop: after its endloop) */
    int nkeys;           /* entries of before[] and after[] */
    int *queue;          /* per instruction id: DMA queue (0 for non-DMA instructions) */
    int nsems;           /* semaphores used (kept edges) */
    int nderived;        /* edges derived before the reduction */
    int reduced;         /* 1 when the reduction ran (0: run too long, every edge kept) */
} AsmSyncs;

/* Derive, reduce and place the semaphores of ir/plan into *out (zeroed
 * first). Returns 0, or -1 after reporting E112 (more than 256 semaphores)
 * or E091 (out of memory) into diag; *out is to be freed either way. */
int asm_sync_build(const Ir *ir, const Plan *plan, Diag *diag, AsmSyncs *out);
void asm_sync_free(AsmSyncs *s);

#endif
