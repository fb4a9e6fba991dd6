/* tg_threads.c - the programs of a grid kernel on host threads (tg_threads.h).
 * Workers claim program indices from one atomic counter; each remembers the
 * lowest index of a program that failed and its code, and the lowest failure
 * seen by any worker stops the hand-out. The counter's claims are totally
 * ordered, so the program of lowest failing index is always claimed (every
 * claim above it happens after it) and always run: the code returned does
 * not depend on the number of threads or their timing. */
#include "tg_threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct tg_threads_job {
    const tg_kernel *k;
    void *const *tensors;
    uint64_t programs;
    atomic_uint_fast64_t next;   /* the next unclaimed program */
    atomic_uint_fast64_t failed; /* lowest failing index seen, or programs */
} tg_threads_job;

typedef struct tg_threads_worker {
    tg_threads_job *job;
    tg_core *core;
    uint64_t failed; /* lowest index of a program this worker saw fail, or programs */
    int rc;          /* its return code */
} tg_threads_worker;

static void *tg_threads_work(void *arg)
{
    tg_threads_worker *w = arg;
    tg_threads_job *j = w->job;
    for (;;) {
        uint64_t i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (i >= j->programs || i > atomic_load_explicit(&j->failed, memory_order_relaxed))
            break;
        int pid[3];
        tg_kernel_pid(j->k, i, pid);
        int rc = j->k->run_program ? j->k->run_program(w->core, pid, j->tensors) : j->k->run(w->core, j->tensors);
        if (rc && i < w->failed) {
            w->failed = i;
            w->rc = rc;
            uint64_t seen = atomic_load_explicit(&j->failed, memory_order_relaxed);
            while (i < seen &&
                   !atomic_compare_exchange_weak_explicit(&j->failed, &seen, i, memory_order_relaxed,
                                                          memory_order_relaxed))
                ;
        }
    }
    return NULL;
}

int tg_threads_run_cores(tg_core *const cores[], unsigned ncores, const tg_kernel *k, void *const tensors[])
{
    if (!cores || !ncores || !k)
        return TG_EINVAL;
    for (unsigned w = 0; w < ncores; w++) {
        int rc = tg_kernel_check(cores[w], k, tensors);
        if (rc)
            return rc;
    }
    int rc = tg_tensors_alias(k, tensors);
    if (rc)
        return rc;
    if (!k->run_program && !k->run)
        return TG_EUNSUPPORTED;
    uint64_t programs = tg_kernel_programs(k);
    if (ncores > programs)
        ncores = (unsigned)programs;
    tg_threads_job job;
    job.k = k;
    job.tensors = tensors;
    job.programs = programs;
    atomic_init(&job.next, 0);
    atomic_init(&job.failed, programs);
    tg_threads_worker *ws = calloc(ncores, sizeof *ws);
    pthread_t *ts = calloc(ncores, sizeof *ts);
    unsigned started = 1; /* worker 0 is this thread */
    if (!ws || !ts)
        ncores = 1; /* no room to track threads: run them all here */
    tg_threads_worker one;
    tg_threads_worker *all = ws ? ws : &one;
    for (unsigned w = 0; w < ncores; w++)
        all[w] = (tg_threads_worker){&job, cores[w], programs, TG_OK};
    for (unsigned w = 1; w < ncores && started == w; w++)
        if (!pthread_create(&ts[w], NULL, tg_threads_work, &all[w]))
            started++;
    tg_threads_work(&all[0]);
    for (unsigned w = 1; w < started; w++)
        pthread_join(ts[w], NULL);
    uint64_t low = programs;
    for (unsigned w = 0; w < started; w++)
        if (all[w].failed < low) {
            low = all[w].failed;
            rc = all[w].rc;
        }
    free(ws);
    free(ts);
    return rc;
}

int tg_threads_run(const tg_kernel *k, void *const tensors[], unsigned nthreads)
{
    if (!k || !nthreads)
        return TG_EINVAL;
    uint64_t programs = tg_kernel_programs(k);
    unsigned n = nthreads > programs ? (unsigned)programs : nthreads;
    size_t units = (k->core_bytes + 7) / 8 + (k->core_bytes == 0);
    tg_core *cs = calloc(n, sizeof *cs); /* zeroed: mem NULL until allocated */
    tg_core **ps = calloc(n, sizeof *ps);
    int rc = cs && ps ? TG_OK : TG_ESTORAGE;
    for (unsigned w = 0; !rc && w < n; w++) {
        void *mem = malloc(units * sizeof(tg_storage_unit)); /* tg_core_init fills it */
        ps[w] = &cs[w];
        rc = mem ? tg_core_init_storage(&cs[w], k->target, mem, units * sizeof(tg_storage_unit)) : TG_ESTORAGE;
        cs[w].mem = mem; /* freed below in every case */
    }
    if (!rc)
        rc = tg_threads_run_cores(ps, n, k, tensors);
    for (unsigned w = 0; cs && w < n; w++)
        free(cs[w].mem);
    free(cs);
    free(ps);
    return rc;
}
