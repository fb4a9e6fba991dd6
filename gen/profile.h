/* profile.h - `tilegen profile` on the host: runs the timing model
 * (runtime/tg_cost.h) over an assembled program, keeps every event, and
 * derives what the views show (SPEC.md §6): per-engine busy time and
 * utilisation, DMA bandwidth, FLOPs and HFU, the bottleneck, and per spec line
 * the time on the critical path. The views (profile_report.c: summary and
 * JSON; profile_trace.c: Chrome trace; profile_svg.c: timeline) only read a
 * Profile. Nothing here prints except the view functions, into a FILE. */
#ifndef TILEGEN_PROFILE_H
#define TILEGEN_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tg_cost.h"

/* The engines the views name, in SPEC.md §6 order. */
typedef enum ProfEngine { PROF_PE, PROF_ACT, PROF_DVE, PROF_POOL, PROF_DMA, PROF_NENG } ProfEngine;
extern const char *const prof_engine_key[PROF_NENG];   /* "pe", "act", "dve", "pool", "dma" */
extern const char *const prof_engine_title[PROF_NENG]; /* "Tensor (PE)", ... */

/* The view engine of a stream (DMA queues map to PROF_DMA); -1 for none. */
int prof_engine_of_stream(int stream);

/* Per spec line. */
typedef struct ProfLine {
    uint32_t line;                 /* 1-based line of the spec */
    uint64_t crit_ps;              /* time of its events on the critical path */
    uint64_t busy_ps[PROF_NENG];   /* busy time of its instructions per engine */
    uint64_t insts;                /* instructions executed */
} ProfLine;

typedef struct Profile {
    const char *kernel;            /* kernel name (program string table) */
    const char *spec_path;         /* as the program records it */
    const char *spec_text;         /* the spec's text (for line excerpts), may be NULL */
    size_t spec_len;
    const tg_cost_table *tab;      /* the target's cost table */
    tg_cost_stats st;              /* the model's totals */
    uint64_t work;                 /* instructions + loop iterations of a complete run (tg_iss_work) */
    uint64_t limit;                /* the budget asked for (0 = default) */
    tg_cost_event *ev;             /* every event, emission order (ev[i].id == i + 1) */
    size_t nev, cap;
    int oom;
    uint8_t *crit;                 /* per event: 1 when on the critical path */
    int ncores;                    /* physical cores (cores: 2 on trn2; format 2.2) */
    uint64_t busy_ps[PROF_NENG];   /* busy per engine, summed over the cores (DMA: union of
                                      each core's DMAs in flight) */
    uint64_t insts[PROF_NENG];     /* instructions per engine (semaphore ops included) */
    uint64_t core_busy_ps[TG_ISA_MAX_CORES][PROF_NENG]; /* the same per physical core */
    uint64_t core_insts[TG_ISA_MAX_CORES][PROF_NENG];
    uint64_t dma_engine_busy_ps;   /* mean busy time of one DMA engine (of every core's) */
    double dma_peak_gbps;          /* peak DMA bandwidth: the cores' DMA engines, at most the HBM */
    double hfu;                    /* 0..1, of the peak of every core's Tensor engine */
    int bottleneck;                /* ProfEngine with the most busy time */
    ProfLine *lines;               /* by line, increasing; only lines with events */
    size_t nlines;
} Profile;

/* Run the model over `len` bytes of program (execute: also compute values,
 * on a core of its own, inputs zero; transfers: keep each DMA's part on each
 * DMA engine, for the trace and the timeline) under a budget of `limit`
 * instructions plus loop iterations (0: the ISS's default, the program's own
 * work, refused above TG_ISS_DEFAULT_CAP; UINT64_MAX: none). 0, or a
 * negative TG_E* code (TG_ELIMIT: the budget) with a message in msg. The
 * Profile must be released with profile_free. */
int profile_run(Profile *p, const uint8_t *prog, size_t len, int execute, int transfers, uint64_t limit,
                char *msg, size_t msgsize);
void profile_free(Profile *p);

/* Utilisation of `busy` over a run of `lat` on the p->ncores engines of a kind. */
static inline double prof_util(const Profile *p, uint64_t busy, uint64_t lat)
{
    return lat ? (double)busy / ((double)lat * (p->ncores > 0 ? p->ncores : 1)) : 0.0;
}

/* Picoseconds as nanoseconds (double). */
static inline double prof_ns(uint64_t ps) { return (double)ps / 1000.0; }

/* The views. Each returns 0, or -1 when writing failed. */
int profile_write_summary(FILE *f, const Profile *p, int top_lines);
int profile_write_json(FILE *f, const Profile *p);
int profile_write_trace(FILE *f, const Profile *p);
int profile_write_svg(FILE *f, const Profile *p);

/* Text of spec line `line` (1-based) without its newline, in *len; NULL when
 * the text is not available. */
const char *profile_line_text(const Profile *p, uint32_t line, size_t *len);

#endif /* TILEGEN_PROFILE_H */
