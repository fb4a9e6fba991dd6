/* tg_cost.h - the timing model: runs a binary program (tg_isa.h format) on a
 * model of a NeuronCore in time instead of (or as well as) values. Engine
 * queues with their own clocks, 16 DMA engines fed by DMA queues, semaphores
 * that carry time, trn1's shared SBUF/PSUM ports; each instruction's cost
 * from the rules of one table per target (tg_cost_table.c, docs/cost.md).
 * Freestanding C99: no heap, no stdio, no libm. */
#ifndef TG_COST_H
#define TG_COST_H

#include <stddef.h>
#include <stdint.h>

#include "tg_isa.h"
#include "tg_machine.h"
#include "tg_runtime.h"

/* Streams: the in-order instruction queues. A compute instruction's stream
 * is its engine (TG_ENG_PE..TG_ENG_POOL); DMA queue q is TG_ENG_COUNT + q. */
enum { TG_COST_STREAMS = TG_ENG_COUNT + TG_DMA_QUEUES };

/* The cost rules' constants of one target. Every field names its source in
 * tg_cost_table.c; docs/cost.md explains each rule. Times in picoseconds. */
typedef struct tg_cost_table {
    tg_target target;
    const char *name;             /* "trn1" / "trn2" */
    uint32_t mhz[TG_ENG_COUNT];   /* engine clocks (DMA, SYNC: the NC base clock) */
    uint32_t min_ii;              /* cycles: minimum initiation interval of DVE/ACT/PE */
    uint32_t dve_static;          /* DVE cycles added to a dependent instruction */
    uint32_t act_static;          /* ACT cycles added to a dependent instruction */
    uint32_t pool_start;          /* Pool cycles of start-up on every instruction */
    uint32_t act_table_ps;        /* an activation-table load */
    uint32_t handoff_ps;          /* a semaphore wait that had to wait: wake-up latency */
    uint32_t pe_fp32_factor;      /* fp32 matmul = factor x the 16-bit cost */
    uint32_t pe_transpose_fp32_factor; /* fp32 PE transpose factor */
    uint32_t dve_fast_copy;       /* trn2 DVE perf mode: 16-bit SBUF->SBUF copy/tensor_scalar speed-up */
    uint32_t dve_fast_tt;         /* trn2 DVE perf mode: 16-bit SBUF tensor_tensor speed-up */
    uint32_t shared_ports;        /* trn1: DVE/Pool share SBUF, DVE/ACT share PSUM */
    uint32_t dma_engines;         /* DMA engines per NeuronCore */
    uint32_t dma_partitions_per_engine; /* SBUF partitions one DMA engine serves */
    uint32_t dma_bytes_per_ns;    /* sustained bandwidth of one DMA engine */
    uint32_t hbm_bytes_per_ns;    /* HBM of the logical NeuronCore, shared by its physical cores' DMA engines */
    uint32_t dma_fixed_ps;        /* trigger -> completion floor of one DMA (latency) */
    uint32_t dma_transfer_ps;     /* least time a transfer holds its DMA engine (transfer rate) */
    uint32_t dma_issue_ps;        /* DMA queue occupancy to trigger one DMA */
    uint32_t dma_index_ps;        /* indirect DMA: reading its index column and generating its
                                     descriptors, before the transfer starts */
    uint32_t dma_min_burst;       /* bytes a contiguous run is charged at least */
    uint32_t dma_small_bytes;     /* a transfer under this many bytes per partition is "small" */
    uint32_t pe_peak_flops_per_cycle; /* 16-bit FLOPs per PE cycle (2 x 128 x 128) */
} tg_cost_table;

/* The table of target t (trn1's for an unknown target). */
const tg_cost_table *tg_cost_table_of(tg_target t);

/* What one instruction's cost depends on (filled from its operands). */
typedef struct tg_cost_shape {
    tg_isa_op op;
    uint32_t func;                /* activation function (tg_act_func) */
    uint32_t alu;                 /* op / op0 of ALU instructions (tg_alu_op) */
    uint32_t alu1;                /* op1 (TG_ALU_COUNT: none) */
    int has_reduce;               /* activation / tensor_scalar with reduce_dst */
    int64_t n;                    /* free elements per partition of the main operand */
    int64_t p;                    /* partitions */
    int64_t n_stationary;         /* matmul: M (free size of stationary) */
    int64_t n_moving;             /* matmul: N (free size of moving) */
    int all16;                    /* every operand bf16/fp16 */
    int allbf16;                  /* every operand bf16 */
    int fp32_in;                  /* a PE input is 4-byte float */
    int one_psum;                 /* exactly one input in PSUM */
    int all_sbuf;                 /* every operand in SBUF */
    int unit_stride;              /* innermost dims contiguous */
    int zero_memset16;            /* memset of 0 into a 16-bit float */
} tg_cost_shape;

/* Cycles of one compute instruction on its engine (the per-op rules, without
 * the dependency overheads the scheduler adds). */
uint64_t tg_cost_cycles(const tg_cost_table *t, const tg_cost_shape *s);
/* Picoseconds of `cycles` at `mhz`, rounded to nearest. */
uint64_t tg_cost_ps(uint64_t cycles, uint32_t mhz);

/* One DMA transfer as the DMA engines see it. */
typedef struct tg_cost_dma {
    int64_t first;                /* first SBUF partition (0 HBM->HBM) */
    int64_t partitions;           /* rows (SBUF partitions, or outer rows HBM->HBM) */
    int64_t row_bytes;            /* bytes moved per row */
    int64_t run_bytes;            /* bytes of the shortest contiguous run on either side */
    int64_t hbm_engines;          /* DMA engines sharing the HBM (every engine of every physical
                                     core); 0: the transfer has no HBM side */
} tg_cost_dma;
/* Busy picoseconds of DMA engine `e` (of t->dma_engines) for transfer d; 0
 * when the engine takes no part. The engine moves its bytes at
 * dma_bytes_per_ns, and with an HBM side at no more than its share of the
 * HBM when all hbm_engines stream at once (hbm_bytes_per_ns / hbm_engines):
 * one core's 16 engines never reach the HBM figure, two cores' 32 do. */
uint64_t tg_cost_dma_engine_ps(const tg_cost_table *t, const tg_cost_dma *d, uint32_t e);

/* What the model reports per event, through the caller's sink. */
typedef enum tg_cost_kind {
    TG_COST_INST = 0,   /* an instruction on its stream: [start, end) busy */
    TG_COST_WAIT = 1,   /* a semaphore wait that blocked: [ready, wake) */
    TG_COST_XFER = 2,   /* a DMA transfer's part on one DMA engine (`unit`) */
} tg_cost_kind;

typedef struct tg_cost_event {
    uint64_t id;          /* 1, 2, ... in emission order */
    uint64_t cause;       /* id of the event whose end decided this start, 0 = none */
    uint64_t start_ps, end_ps;
    uint64_t bytes;       /* DMA: bytes moved */
    uint64_t flops;       /* matmul: 2 K M N */
    uint64_t elems;       /* destination elements */
    uint32_t pc;          /* instruction index in the program */
    uint32_t line;        /* spec line, 0 = none */
    uint32_t row_bytes;   /* DMA: bytes per partition */
    uint16_t op;          /* tg_isa_op */
    uint8_t kind;         /* tg_cost_kind */
    uint8_t engine;       /* tg_isa_engine */
    uint8_t stream;       /* stream (TG_COST_STREAMS) */
    uint8_t unit;         /* XFER: DMA engine; WAIT: semaphore's signalling stream */
    uint16_t sem;         /* WAIT: semaphore */
    uint8_t core;         /* physical core (format 2.2; 0 for a one-core program) */
} tg_cost_event;

typedef void (*tg_cost_sink)(void *user, const tg_cost_event *ev);

/* Totals of one run. */
typedef struct tg_cost_stats {
    uint64_t limit;                        /* in: max instructions + loop iterations, 0 = none */
    uint64_t latency_ps;                   /* end of the last event (of the core that finishes last) */
    uint32_t ncores;                       /* physical cores of the program (1, or 2: format 2.2) */
    uint64_t core_latency_ps[TG_ISA_MAX_CORES]; /* end of each core's last event */
    uint64_t core_insts[TG_ISA_MAX_CORES][TG_COST_STREAMS]; /* instructions per core and stream */
    /* per stream: the sum over the physical cores */
    uint64_t insts[TG_COST_STREAMS];       /* instructions per stream (waits/signals included) */
    uint64_t busy_ps[TG_COST_STREAMS];     /* busy time per stream (sum of INST events) */
    uint64_t wait_ps[TG_COST_STREAMS];     /* time blocked in semaphore waits */
    uint64_t dma_engine_ps[TG_DMA_QUEUES]; /* busy time per DMA engine (summed over the cores) */
    uint64_t dma_bytes, dma_transfers;
    uint64_t dma_small;                    /* transfers under dma_small_bytes per partition */
    uint64_t dma_small_bytes;
    uint64_t flops;                        /* matmul FLOPs (2 K M N) */
    uint64_t hw_flops;                     /* FLOPs in 16-bit equivalents (fp32 matmul x pe_fp32_factor) */
    uint64_t table_loads;                  /* activation-table loads */
    uint64_t events;                       /* events emitted */
    uint32_t fault_pc;                     /* on error: the instruction */
} tg_cost_stats;

/* Options of one run. */
typedef struct tg_cost_opts {
    tg_core *core;        /* non-NULL: also execute (values bit-identical to the ISS) */
    void *const *tensors; /* with core: the public tensors (program table order) */
    tg_cost_sink sink;    /* may be NULL */
    void *user;           /* passed to sink */
    int transfers;        /* also report each DMA's part on each DMA engine (TG_COST_XFER) */
} tg_cost_opts;

/* Scratch of one run (large: caller-provided, static in firmware). */
enum { TG_COST_SEM_DEPTH = 64 }; /* signals one semaphore can hold un-consumed */
enum { TG_COST_SEMS = TG_ISA_MAX_CORES * TG_ISA_MAX_SEMS }; /* each physical core has its own */
typedef struct tg_cost_state {
    uint64_t sem_time[TG_COST_SEMS][TG_COST_SEM_DEPTH]; /* core c's semaphore s at c * 256 + s */
    uint32_t sem_head[TG_COST_SEMS], sem_count[TG_COST_SEMS];
    uint64_t sem_id[TG_COST_SEMS][TG_COST_SEM_DEPTH];
    uint64_t model[8192];              /* the scheduler's state (tg_cost.c) */
} tg_cost_state;

/* Validate and run `size` bytes of program at `prog` in time. Returns 0 or
 * TG_EPROGRAM, TG_EBOUNDS, TG_EDEADLOCK, TG_ELIMIT, TG_EINVAL (and, when
 * executing, the ISS's codes). st is zeroed except `limit` and filled. */
int tg_cost_run(const uint8_t *prog, size_t size, const tg_cost_opts *opts, tg_cost_state *scratch,
                tg_cost_stats *st);

#endif /* TG_COST_H */
