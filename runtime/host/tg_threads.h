/* tg_threads.h - host helper (not part of the freestanding runtime): runs
 * every program of a grid kernel's C simulation (SPEC.md §2.1) on N host
 * threads, each on its own tg_core, through the kernel's descriptor
 * (tg_kernel.run_program), so a host needs no knowledge of its signature.
 * Programs are independent and write disjoint parts of the outputs (check
 * refuses anything else: E054, E055), so the outputs are bit-identical to
 * tg_kernel_run's on one thread whatever N and however the programs fall on
 * the threads. A kernel without a grid is one program. POSIX threads; the
 * caller links with -pthread. */
#ifndef TG_THREADS_H
#define TG_THREADS_H

#include "tg_runtime.h"

/* Run every program of `k` on `ncores` workers, worker w on cores[w] (each
 * initialised for k->target with at least k->core_bytes of storage, no two
 * the same): the calling thread is worker 0, ncores - 1 threads are started
 * (fewer when the system refuses one: the rest share the programs). Workers
 * take the next unclaimed program in row-major order (tg_kernel_pid) until
 * none is left.
 *
 * Returns TG_OK; the error of tg_kernel_check for a core (the first in
 * cores[] order) or of tg_tensors_alias, before any program runs; or, when
 * programs fail, the return code of the failing program of lowest index
 * (whatever N: once a program fails, programs after it are no longer handed
 * out, but every program before it still runs). Outputs are then unspecified
 * where the failing and skipped programs write them. TG_EINVAL for a null
 * argument or ncores == 0. */
int tg_threads_run_cores(tg_core *const cores[], unsigned ncores, const tg_kernel *k, void *const tensors[]);

/* The same with `nthreads` workers (at most one per program) on cores this
 * call allocates (k->core_bytes each, tg_core_init for k->target) and frees.
 * TG_ESTORAGE when it cannot allocate them. */
int tg_threads_run(const tg_kernel *k, void *const tensors[], unsigned nthreads);

#endif /* TG_THREADS_H */
