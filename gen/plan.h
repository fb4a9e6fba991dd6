/* plan.h - static SBUF/PSUM placement of a kernel's tiles. Every tile gets a
 * partition range and a 64-byte aligned byte offset per partition for its
 * `bufs` copies (SBUF), or consecutive banks (PSUM); tiles whose live ranges
 * don't overlap share space. See docs/ir.md for the rules. */
#ifndef TILEGEN_PLAN_H
#define TILEGEN_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "ir.h"

enum {
    PLAN_SBUF_ALIGN = SPEC_SBUF_ALIGN, /* bytes: every SBUF copy starts on this boundary */
};

/* Where one tile lives. */
typedef struct PlanTile {
    int used;                /* some instruction touches it (else unplaced) */
    SpecBuffer buffer;       /* SBUF or PSUM */
    int64_t pstart, pcount;  /* partitions [pstart, pstart + pcount) */
    int64_t bytes;           /* bytes per partition of one copy, as declared */
    int64_t slot;            /* bytes per partition reserved per copy (SBUF:
                                bytes rounded up to 64; PSUM: `banks` banks) */
    int banks;               /* PSUM: banks one copy spans (1..8, SPEC.md §2.1) */
    int bufs;                /* copies */
    int64_t offset;          /* SBUF: byte offset of copy 0 in each partition; copy
                                k at offset + k*slot. -1 when not SBUF or unused */
    int bank;                /* PSUM: first bank of copy 0; copy k from bank + k*banks. -1 otherwise */
    int live_first;          /* live range: first and last instruction id, */
    int live_last;           /*   loops inside the tile's scope counted whole */
} PlanTile;

typedef struct Plan {
    const Ir *ir;            /* what was planned */
    PlanTile *tiles;         /* per Spec.tiles entry */
    int ntiles;
    int reuse;               /* tiles with disjoint live ranges may share space */
    int64_t sbuf_peak;       /* bytes per partition: end of the highest SBUF copy */
    int psum_peak;           /* PSUM banks: highest bank used + 1 */
    int64_t sbuf_noreuse;    /* bytes per partition the same slots take with no reuse */
    int psum_noreuse;        /* banks with no reuse */
    int64_t sbuf_capacity;   /* usable SBUF bytes per partition of the target */
    int psum_capacity;       /* PSUM banks of the target */
    int errors;              /* capacity errors reported into the Diag */
} Plan;

/* Place every tile of ir. With reuse = 0 every tile gets its own space (the
 * figure sema checks). Capacity overflows are reported into diag and counted
 * in plan->errors; the placement is still returned so it can be shown.
 * Returns NULL only when out of memory (also reported). */
Plan *plan_build(Arena *arena, const Ir *ir, Diag *diag, int reuse);

/* 1 if tiles a and b may not share space (same buffer, live ranges overlap
 * or reuse is off). */
int plan_conflict(const Plan *p, int a, int b);

/* Occupancy table (tilegen gen --report, --dump=plan): one row per tile and
 * the peak per partition against the capacity. */
void plan_report(FILE *out, const Plan *p);

#endif
