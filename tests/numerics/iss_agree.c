/* iss_agree.c - host harness: runs one generated kernel on the same inputs
 * (DIR/<input>.npy) through its C simulation and through the ISS, and
 * compares every output byte for byte, and the records the kernel's print
 * statements hand the core's callback (label, line, indices, dtype, shape and
 * the region's bytes, in order); writes the ISS outputs to DIR/<output>.npy. The program is the kernel's embedded one, or PROGRAM.bin
 * when given. With REPEAT > 1 also prints the best time of each and the ISS
 * instruction rate. Build with -DKERNEL_H='"k.h"' -DKERNEL_DESC=k_kernel, or
 * with -DKERNEL_DESC=k_kernel alone and link k.o.
 * Usage: iss_agree DIR [REPEAT [PROGRAM.bin]]. Exit 0 identical, 1 differ or
 * failed run, 2 usage or I/O. With TG_SIMD_CAP=N in the environment, every
 * SIMD body (the kernel's and the runtime's, tg_ops.h) is at most level N:
 * 1 runs the baseline bodies on a CPU that has wider ones (the fuzzer). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tg_alu.h"
#include "tg_iss.h"
#include "tg_npy.h"
#include "tg_ops.h"
#include "tg_runtime.h"
#ifdef KERNEL_H
#include KERNEL_H
#else
/* built once apart from the kernel (tests/numerics/fuzz_diff.sh), which is
 * linked in as its own object */
extern const tg_kernel KERNEL_DESC;
#endif

static tg_core core_c, core_iss; /* each on k.core_bytes of storage: the plan's */

/* Storage short of what the kernel needs is refused before anything runs:
 * the C simulation below k->core_bytes, the ISS below its SBUF/PSUM rows
 * (TG_ESTORAGE, outputs untouched). 0 when both refuse. */
static int short_storage_refused(const tg_kernel *k, void *const tc[], void *const ti[])
{
    static tg_core small;
    size_t rows = (size_t)TG_PARTITIONS * (TG_CORE_ROW(k->sbuf_peak) + TG_CORE_ROW(k->psum_peak));
    size_t n = k->core_bytes > rows ? k->core_bytes : rows;
    void *mem = malloc(n);
    int e = TG_OK, f = TG_OK;
    if (!mem)
        return 2;
    if (k->core_bytes >= 8 && !tg_core_init_storage(&small, k->target, mem, k->core_bytes - 8))
        e = tg_kernel_run(&small, k, tc);
    if (rows >= 8 && k->program && !tg_core_init_storage(&small, k->target, mem, rows - 8))
        f = tg_iss_run(&small, k, ti);
    free(mem);
    if ((k->core_bytes >= 8 && e != TG_ESTORAGE) || (rows >= 8 && k->program && f != TG_ESTORAGE)) {
        fprintf(stderr, "%s: short storage gave %d (C simulation) and %d (ISS), not TG_ESTORAGE\n", k->name, e, f);
        return 1;
    }
    return 0;
}

/* The prints of one run, serialised in order: label, line, depth, indices,
 * dtype, rank, shape, then the region's bytes packed (tg_print_pack). */
typedef struct PrintLog {
    unsigned char *b;
    size_t n, cap;
    unsigned long count; /* prints */
    int oom;             /* a record did not fit in memory */
} PrintLog;

static void log_put(PrintLog *l, const void *p, size_t n)
{
    if (l->oom)
        return;
    if (l->n + n > l->cap) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap < l->n + n)
            cap *= 2;
        unsigned char *nb = realloc(l->b, cap);
        if (!nb) {
            l->oom = 1;
            return;
        }
        l->b = nb;
        l->cap = cap;
    }
    memcpy(l->b + l->n, p, n);
    l->n += n;
}

static void on_print(void *ctx, const tg_print_info *pi)
{
    PrintLog *l = ctx;
    uint32_t dt = (uint32_t)pi->dtype;
    size_t bytes = tg_print_bytes(pi);
    unsigned char *data = malloc(bytes ? bytes : 1);
    l->count++;
    if (!data) {
        l->oom = 1;
        return;
    }
    tg_print_pack(pi, data);
    log_put(l, pi->label, strlen(pi->label) + 1);
    log_put(l, &pi->line, sizeof pi->line);
    log_put(l, &pi->depth, sizeof pi->depth);
    log_put(l, pi->index, pi->depth * sizeof pi->index[0]);
    log_put(l, &dt, sizeof dt);
    log_put(l, &pi->rank, sizeof pi->rank);
    log_put(l, pi->shape, pi->rank * sizeof pi->shape[0]);
    log_put(l, data, bytes);
    free(data);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The whole file at path (malloc'd) or NULL. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0, r;
    do {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        r = fread(buf + n, 1, cap - n, f);
        n += r;
    } while (r > 0);
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    tg_kernel k = KERNEL_DESC;
    if (argc < 2 || argc > 4 || k.ntensors > 64) {
        fprintf(stderr, "usage: %s DIR [REPEAT [PROGRAM.bin]]\n", argv[0]);
        return 2;
    }
    int repeat = argc >= 3 ? atoi(argv[2]) : 1;
    uint8_t *bin = NULL;
    const int cap = getenv("TG_SIMD_CAP") ? atoi(getenv("TG_SIMD_CAP")) : 0;
    if (cap >= 1) {
        tg_matmul_isa(cap);
        tg_alu_isa(cap);
    }
    if (argc == 4) {
        size_t n = 0;
        if (!(bin = slurp(argv[3], &n)) || n > UINT32_MAX) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[3]);
            return 2;
        }
        k.program = bin;
        k.program_size = (uint32_t)n;
    }
    if (!k.program) {
        fprintf(stderr, "%s: kernel %s carries no program and none was given\n", argv[0], k.name);
        return 2;
    }
    void *tc[64] = {0}, *ti[64] = {0};
    size_t bytes[64] = {0};
    char path[4096], err[512];
    int rc = repeat < 1 ? 2 : 0;
    for (uint32_t i = 0; i < k.ntensors && !rc; i++) {
        const tg_tensor_desc *d = &k.tensors[i];
        bytes[i] = tg_tensor_elems(d) * tg_dtype_size(d->dtype);
        tc[i] = calloc(bytes[i] ? bytes[i] : 1, 1);
        ti[i] = calloc(bytes[i] ? bytes[i] : 1, 1);
        if (!tc[i] || !ti[i]) {
            fprintf(stderr, "out of memory\n");
            rc = 2;
        } else if (!d->is_output) {
            snprintf(path, sizeof path, "%s/%s.npy", argv[1], d->name);
            if (tg_npy_read(path, d->dtype, d->shape, d->rank, tc[i], bytes[i], err, sizeof err)) {
                fprintf(stderr, "%s\n", err);
                rc = 2;
            } else {
                memcpy(ti[i], tc[i], bytes[i]);
            }
        }
    }
    double best_c = 0, best_i = 0;
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    void *mem_c = malloc(k.core_bytes ? k.core_bytes : 1), *mem_i = malloc(k.core_bytes ? k.core_bytes : 1);
    if (!rc && (!mem_c || !mem_i || tg_core_init_storage(&core_c, k.target, mem_c, k.core_bytes) ||
                tg_core_init_storage(&core_iss, k.target, mem_i, k.core_bytes))) {
        fprintf(stderr, "tg_core_init_storage failed\n");
        rc = 2;
    }
    if (!rc)
        rc = short_storage_refused(&k, tc, ti);
    PrintLog log_c = {0}, log_i = {0};
    if (!rc && (tg_core_set_print(&core_c, on_print, &log_c) || tg_core_set_print(&core_iss, on_print, &log_i))) {
        fprintf(stderr, "tg_core_set_print failed\n");
        rc = 2;
    }
    for (int r = 0; r < repeat && !rc; r++) {
        log_c.n = log_i.n = 0;
        log_c.count = log_i.count = 0;
        double t0 = now_ms();
        int e = tg_kernel_run(&core_c, &k, tc);
        double t1 = now_ms();
        memset(&st, 0, sizeof st);
        int f = e ? 0 : tg_iss_run_stats(&core_iss, &k, ti, &st);
        double t2 = now_ms();
        if (e || f) {
            fprintf(stderr, "%s: C simulation returned %d, ISS returned %d (engine %d, instruction %u)\n", k.name, e,
                    f, (int)st.fault_engine, (unsigned)st.fault_pc);
            rc = 1;
        }
        best_c = r == 0 || t1 - t0 < best_c ? t1 - t0 : best_c;
        best_i = r == 0 || t2 - t1 < best_i ? t2 - t1 : best_i;
    }
    if (!rc && (log_c.oom || log_i.oom)) {
        fprintf(stderr, "%s: out of memory recording the prints\n", k.name);
        rc = 2;
    } else if (!rc && (log_c.count != log_i.count || log_c.n != log_i.n || (log_c.n && memcmp(log_c.b, log_i.b, log_c.n)))) {
        printf("%s: prints differ: %lu from the C simulation (%zu bytes), %lu from the ISS (%zu bytes)\n", k.name,
               log_c.count, log_c.n, log_i.count, log_i.n);
        rc = 1;
    } else if (!rc && log_c.count) {
        printf("%s: %lu prints identical (%zu bytes of records)\n", k.name, log_c.count, log_c.n);
    }
    free(log_c.b);
    free(log_i.b);
    for (uint32_t i = 0; i < k.ntensors && !rc; i++) {
        const tg_tensor_desc *d = &k.tensors[i];
        if (!d->is_output)
            continue;
        size_t es = tg_dtype_size(d->dtype), n = tg_tensor_elems(d), diff = 0, first = 0;
        for (size_t j = 0; j < n; j++)
            if (memcmp((uint8_t *)tc[i] + j * es, (uint8_t *)ti[i] + j * es, es) && !diff++)
                first = j;
        if (diff) {
            printf("%s.%s: %zu of %zu elements differ (first at flat index %zu)\n", k.name, d->name, diff, n, first);
            rc = 1;
        } else {
            printf("%s.%s: %zu elements bit-identical\n", k.name, d->name, n);
        }
        snprintf(path, sizeof path, "%s/%s.npy", argv[1], d->name);
        if (tg_npy_write(path, d->dtype, d->shape, d->rank, ti[i], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
        }
    }
    if (!rc) {
        static const char *const names[TG_ENG_COUNT] = {"dma", "pe", "dve", "act", "pool", "sync"};
        for (int e = 0; e < TG_ENG_SYNC; e++)
            printf("  %-4s insts %llu elems %llu dma_bytes %llu stalls %llu\n", names[e],
                   (unsigned long long)st.eng[e].insts, (unsigned long long)st.eng[e].elems,
                   (unsigned long long)st.eng[e].dma_bytes, (unsigned long long)st.eng[e].stalls);
        if (repeat > 1)
            printf("time_ms c %.3f iss %.3f ratio %.2f insts %llu insts_per_s %.0f\n", best_c, best_i,
                   best_i / best_c, (unsigned long long)st.insts, (double)st.insts / (best_i / 1e3));
    }
    for (uint32_t i = 0; i < k.ntensors; i++) {
        free(tc[i]);
        free(ti[i]);
    }
    free(bin);
    free(mem_c);
    free(mem_i);
    return rc;
}
