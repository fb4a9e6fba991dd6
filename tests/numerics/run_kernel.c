/* run_kernel.c - host harness for one generated kernel: reads its inputs from
 * DIR/<name>.npy (SPEC.md §3 storage), runs the C simulation through its
 * tg_kernel descriptor, writes DIR/<output>.npy; with REPEAT > 1 also prints
 * the best wall time of a run (runs after the first reuse the core, so use
 * the outputs of a REPEAT = 1 run for checking). Build with -DKERNEL_H='"k.h"' -DKERNEL_DESC=k_kernel. */
#define _DEFAULT_SOURCE /* clock_gettime, madvise */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "huge_alloc.h"
#include "tg_npy.h"
#include "tg_runtime.h"
#include KERNEL_H
#ifdef TG_HARNESS_SIMD
#include "tg_alu.h"
#include "tg_ops.h"
#endif

static tg_core core; /* on k->core_bytes of storage: the kernel's plan */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    const tg_kernel *k = &KERNEL_DESC;
#ifdef TG_HARNESS_SIMD
    /* every body at most this SIMD level (tg_ops.h), the kernel's and the
     * runtime's: the baseline or AVX2 bodies on a CPU that has more (suite
     * numerics-flags) */
    tg_matmul_isa(TG_HARNESS_SIMD);
    tg_alu_isa(TG_HARNESS_SIMD);
#endif
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s DIR [REPEAT]\n", argv[0]);
        return 2;
    }
    int repeat = argc == 3 ? atoi(argv[2]) : 1;
    if (repeat < 1 || k->ntensors > 64) {
        fprintf(stderr, "%s: bad REPEAT or too many tensors\n", argv[0]);
        return 2;
    }
    void *t[64] = {0};
    char path[4096], err[512];
    int rc = 0;
    for (uint32_t i = 0; i < k->ntensors && !rc; i++) {
        const tg_tensor_desc *d = &k->tensors[i];
        size_t bytes = tg_tensor_elems(d) * tg_dtype_size(d->dtype);
        t[i] = alloc_huge(bytes);
        if (!t[i]) {
            fprintf(stderr, "out of memory\n");
            rc = 2;
        } else if (!d->is_output) {
            snprintf(path, sizeof path, "%s/%s.npy", argv[1], d->name);
            if (tg_npy_read(path, d->dtype, d->shape, d->rank, t[i], bytes, err, sizeof err)) {
                fprintf(stderr, "%s\n", err);
                rc = 2;
            }
        }
    }
    double best = 0;
    /* One init (sentinel fill) per process: re-filling before every timed run
     * would flush the caches the kernel's inputs sit in. The storage is the
     * plan's exactly (on huge pages when timing). */
    void *mem = repeat > 1 ? alloc_huge(k->core_bytes) : malloc(k->core_bytes ? k->core_bytes : 1);
    if (!rc && (!mem || tg_core_init_storage(&core, k->target, mem, k->core_bytes))) {
        fprintf(stderr, "tg_core_init failed\n");
        rc = 1;
    }
    for (int r = 0; r < repeat && !rc; r++) {
        double t0 = now_ms();
        int e = tg_kernel_run(&core, k, t);
        double dt = now_ms() - t0;
        if (e) {
            fprintf(stderr, "%s returned %d\n", k->name, e);
            rc = 1;
        }
        best = r == 0 || dt < best ? dt : best;
    }
    for (uint32_t i = 0; i < k->ntensors && !rc; i++) {
        const tg_tensor_desc *d = &k->tensors[i];
        snprintf(path, sizeof path, "%s/%s.npy", argv[1], d->name);
        if (d->is_output && tg_npy_write(path, d->dtype, d->shape, d->rank, t[i], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
        }
    }
    if (!rc && repeat > 1)
        printf("time_ms %.3f\n", best);
    for (uint32_t i = 0; i < k->ntensors; i++)
        free(t[i]);
    free(mem);
    return rc;
}
