/* tg_iss.h - the instruction-set simulator: executes a binary program
 * (tg_isa.h format, validated by tg_prog) on a tg_core with one queue per
 * engine, semaphores between them and a deterministic round-robin
 * interleaving, bounds-checking every access. The per-element math is the C
 * simulation's (tg_ops / tg_alu / tg_math / tg_dtype), so both agree bit for
 * bit. Freestanding C99: no heap, no stdio, no libm; docs/iss.md. */
#ifndef TG_ISS_H
#define TG_ISS_H

#include <stddef.h>
#include <stdint.h>

#include "tg_isa.h"
#include "tg_runtime.h"

/* What one engine did. */
typedef struct tg_iss_engine_stats {
    uint64_t insts;     /* instructions executed (compute, DMA, signal, wait; not loop control) */
    uint64_t elems;     /* destination elements written */
    uint64_t dma_bytes; /* bytes written by DMA transfers (DMA queue only) */
    uint64_t stalls;    /* scheduler turns spent blocked in a wait */
    uint64_t loop_iters; /* loop iterations this engine stepped through */
} tg_iss_engine_stats;

/* Counters of one run. `limit` is an input; everything else is output. */
typedef struct tg_iss_stats {
    uint64_t limit;      /* in: max instructions + loop iterations over all engines, 0 = the default
                          * budget (tg_iss_work, refused above TG_ISS_DEFAULT_CAP); out: the budget used */
    tg_iss_engine_stats eng[TG_ENG_COUNT]; /* per engine, indexed by tg_isa_engine */
    uint64_t insts;      /* sum of eng[].insts */
    uint64_t loop_iters; /* sum of eng[].loop_iters */
    uint64_t rounds;     /* round-robin rounds of the scheduler */
    uint32_t fault_pc;   /* instruction index of the error (when the run failed) */
    int32_t fault_engine; /* engine of the error, -1 = none / decoding */
} tg_iss_stats;

/* The default budget's cap: a program whose complete run takes more
 * instructions plus loop iterations than this (2^32, minutes of ISS time) is
 * refused with TG_ELIMIT before it executes, unless the caller passes an
 * explicit tg_iss_stats.limit (UINT64_MAX: no budget in practice). */
#define TG_ISS_DEFAULT_CAP ((uint64_t)1 << 32)

/* Run the program of kernel `k` (k->program, k->program_size) on `core`
 * with the tensors of SPEC.md §4. Checks the core (TG_ECORE, TG_ETARGET),
 * that the kernel carries a program (TG_EUNSUPPORTED) and that the
 * program's tensor table equals the kernel descriptor (TG_ETENSOR), then
 * tg_iss_exec. 0 or a negative TG_E* code. */
int tg_iss_run(tg_core *core, const tg_kernel *k, void *const tensors[]);
/* The same, filling *stats (may be NULL; its `limit` is read first: 0 or
 * NULL means the default budget). */
int tg_iss_run_stats(tg_core *core, const tg_kernel *k, void *const tensors[], tg_iss_stats *stats);

/* Validate and execute `size` bytes of program at `prog`. tensors[] has one
 * pointer per public entry of the program's tensor table (inputs, outputs,
 * scratch: tg_prog.npublic; a view reads and writes its base's bytes), sized
 * by that table and aligned for its dtype. `stats` may be NULL (the default budget then); when
 * given, it is zeroed except `limit` and filled. Returns 0, TG_EPROGRAM (malformed program, or a shape
 * the op cannot take), TG_EBOUNDS (an access outside SBUF/PSUM/a tensor or
 * its tile, or a write to an input), TG_EDEADLOCK, TG_ELIMIT, TG_EINVAL,
 * TG_ECORE, TG_ETARGET or TG_ESTORAGE (the core's storage is smaller than
 * tg_iss_core_bytes). Memory written before an error stays written. */
int tg_iss_exec(tg_core *core, const uint8_t *prog, size_t size, void *const tensors[], tg_iss_stats *stats);

struct tg_prog;
struct tg_prog_inst;

/* Instructions plus loop iterations a complete run of the decoded program
 * executes over all engines (what tg_iss_stats counts against `limit`):
 * exact, since loop bounds are immediates (an upper bound when loops narrow
 * their range with lo/hi); saturates at UINT64_MAX. The default budget of a
 * run. */
uint64_t tg_iss_work(const struct tg_prog *p);

/* Storage (tg_core_init_storage) on which the ISS runs the decoded program:
 * SBUF and PSUM rows reaching its last tile copy (a generated kernel's plan
 * peaks), once per physical core (format 2.2: each has its own), and, with a matmul or transpose, the most PE staging one op takes.
 * A generated kernel's K_CORE_BYTES is enough too: the ISS stages each op at
 * its actual K, M, N (TG_ESTORAGE where the storage is smaller). */
size_t tg_iss_core_bytes(const struct tg_prog *p);

/* Execute one compute or DMA instruction `in` of the decoded program `prog`
 * on physical core `pcore` (its SBUF/PSUM; 0 unless the program has two,
 * format 2.2) with loop registers regs[] (what the scheduler of another
 * model, e.g. the timing model tg_cost.c, needs to produce the ISS's values).
 * Loop control and semaphores are the caller's. 0 or a negative TG_E* code. */
int tg_iss_exec_inst(tg_core *core, const struct tg_prog *prog, uint32_t pcore, void *const tensors[],
                     const int64_t regs[TG_ISA_MAX_REGS], const struct tg_prog_inst *in, tg_iss_stats *stats);

#endif /* TG_ISS_H */
