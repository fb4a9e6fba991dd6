/* grid_threads.c - a grid kernel's programs on host threads through its
 * descriptor (runtime/host/tg_threads.h), for any generated kernel: build
 * with -DKERNEL_H='"k.h"' -DKERNEL_DESC=k_kernel and -pthread.
 *   grid_threads           checks: tg_threads_run on 1, 2, 3 and more threads
 *                          than programs, tg_threads_run_cores on the caller's
 *                          cores and tg_kernel_run_program in reverse order all
 *                          write the bytes tg_kernel_run writes; failing
 *                          programs give the code of the lowest failing index
 *                          whatever the thread count, after every program
 *                          before it ran; refusals before any program runs.
 *                          Prints "N passed, M failed".
 *   grid_threads bench R   best of R wall times of the kernel on one and on
 *                          two threads (each on its own preallocated core) and
 *                          the speedup. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tg_threads.h"
#include KERNEL_H

enum { MAX_TENSORS = 64, MAX_PROGRAMS = 1 << 16 };

static const tg_kernel *real = &KERNEL_DESC;
static void *t[MAX_TENSORS];
static unsigned char *ref[MAX_TENSORS];
static size_t bytes[MAX_TENSORS];
static int pass, fail;

static void check(int ok, const char *what, unsigned n)
{
    printf("[%s] %s: %s (threads: %u)\n", ok ? "       OK " : "  FAILED  ", real->name, what, n);
    ok ? pass++ : fail++;
}

/* Outputs back to NaN bytes: every element must be written again. */
static void clear_outputs(void)
{
    for (uint32_t i = 0; i < real->ntensors; i++)
        if (real->tensors[i].is_output)
            memset(t[i], 0xff, bytes[i]);
}

static int same_outputs(void)
{
    for (uint32_t i = 0; i < real->ntensors; i++)
        if (real->tensors[i].is_output && memcmp(t[i], ref[i], bytes[i]))
            return 0;
    return 1;
}

/* Storage and init for one core of the kernel, or NULL. */
static tg_core *new_core(void)
{
    tg_core *c = malloc(sizeof *c);
    void *mem = malloc(real->core_bytes ? real->core_bytes : 8);
    if (!c || !mem || tg_core_init_storage(c, real->target, mem, real->core_bytes)) {
        free(c);
        free(mem);
        return NULL;
    }
    return c;
}

static void free_core(tg_core *c)
{
    if (c)
        free(c->mem);
    free(c);
}

/* ---- failing programs: the real program, except those in `fails` ---------- */
static unsigned char fails[MAX_PROGRAMS], ran[MAX_PROGRAMS];

static uint64_t index_of(const int pid[3])
{
    uint64_t i = 0;
    for (int a = 0; a < 3; a++)
        i = i * (real->grid[a] ? real->grid[a] : 1) + (uint64_t)pid[a];
    return i;
}

/* Each program is claimed by one worker: ran[] needs no lock. */
static int failing_program(tg_core *core, const int pid[3], void *const tensors[])
{
    uint64_t i = index_of(pid);
    ran[i] = 1;
    return fails[i] ? -(100 + (int)i) : real->run_program(core, pid, tensors);
}

/* Programs in `list` (n of them, ascending) fail with -(100 + index): each
 * thread count returns the lowest one's code and ran every program before it. */
static void check_failures(const uint64_t *list, int n, const char *what)
{
    tg_kernel k = *real;
    k.run_program = failing_program;
    uint64_t programs = tg_kernel_programs(real);
    memset(fails, 0, sizeof fails);
    for (int i = 0; i < n; i++)
        fails[list[i]] = 1;
    for (unsigned threads = 1; threads <= 3; threads++) {
        memset(ran, 0, sizeof ran);
        int rc = tg_threads_run(&k, t, threads), before = 1;
        for (uint64_t i = 0; i < list[0] && i < programs; i++)
            before &= ran[i] && !fails[i];
        check(rc == -(100 + (int)list[0]) && before && ran[list[0]], what, threads);
    }
}

static int run_checks(void)
{
    tg_core *c0 = new_core(), *c1 = new_core(), *c2 = new_core();
    uint64_t programs = tg_kernel_programs(real);
    if (!c0 || !c1 || !c2 || programs > MAX_PROGRAMS) {
        fprintf(stderr, "out of memory, or too many programs\n");
        return 2;
    }
    clear_outputs();
    int rc = tg_kernel_run(c0, real, t);
    for (uint32_t i = 0; i < real->ntensors; i++)
        memcpy(ref[i], t[i], bytes[i]);
    check(rc == TG_OK, "tg_kernel_run", 1);
    unsigned counts[] = {1, 2, 3, (unsigned)programs + 1};
    for (unsigned c = 0; c < sizeof counts / sizeof *counts; c++) {
        clear_outputs();
        rc = tg_threads_run(real, t, counts[c]);
        check(rc == TG_OK && same_outputs(), "tg_threads_run writes tg_kernel_run's bytes", counts[c]);
    }
    tg_core *cores[3] = {c0, c1, c2};
    clear_outputs();
    rc = tg_threads_run_cores(cores, 3, real, t);
    check(rc == TG_OK && same_outputs(), "tg_threads_run_cores on the caller's cores", 3);
    clear_outputs();
    rc = 0;
    for (uint64_t i = programs; i-- > 0;) {
        int pid[3];
        tg_kernel_pid(real, i, pid);
        rc |= tg_kernel_run_program(c1, real, pid, t);
    }
    check(rc == TG_OK && same_outputs(), "tg_kernel_run_program in reverse order", 1);
    tg_kernel whole = *real; /* no per-program entry: one program, k->run */
    whole.run_program = NULL;
    whole.grid[0] = whole.grid[1] = whole.grid[2] = 1;
    clear_outputs();
    rc = tg_threads_run(&whole, t, 2);
    check(rc == TG_OK && same_outputs(), "a kernel without a grid is one program", 2);
    int outside[3] = {(int)real->grid[0], 0, 0};
    check(tg_kernel_run_program(c1, real, outside, t) == TG_EINVAL, "a pid outside the grid is refused", 1);

    uint64_t last = programs - 1, mid[2] = {programs / 2, last};
    check_failures(&last, 1, "the last program fails: its code");
    check_failures(mid, programs > 1 ? 2 : 1, "two programs fail: the lower one's code");
    uint64_t every[4];
    int ne = 0;
    for (uint64_t i = 0; i < programs && ne < 4; i++)
        every[ne++] = i;
    check_failures(every, ne, "the first programs fail: program 0's code");

    tg_core bad = *c2;
    bad.magic = 0;
    tg_core *with_bad[2] = {c0, &bad};
    clear_outputs();
    rc = tg_threads_run_cores(with_bad, 2, real, t);
    int untouched = 1;
    for (uint32_t i = 0; i < real->ntensors; i++)
        if (real->tensors[i].is_output)
            for (size_t b = 0; b < bytes[i]; b++)
                untouched &= ((unsigned char *)t[i])[b] == 0xff;
    check(rc == TG_ECORE && untouched, "an uninitialised core: TG_ECORE, nothing written", 2);
    check(tg_threads_run(real, t, 0) == TG_EINVAL && tg_threads_run_cores(cores, 0, real, t) == TG_EINVAL &&
              tg_threads_run(NULL, t, 2) == TG_EINVAL,
          "no workers or no kernel: TG_EINVAL", 0);
    free_core(c0);
    free_core(c1);
    free_core(c2);
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A pure ALU loop of ~10 ms with no memory traffic: the speedup two threads
 * of it get says how much of two cores the machine gives at the moment. */
static void *spin(void *arg)
{
    volatile uint32_t x = 1;
    for (uint32_t i = 0; i < 20000000u; i++)
        x = x * 1664525u + 1013904223u;
    return arg;
}

static double ceiling(int repeat)
{
    double best[2] = {0, 0};
    for (int r = 0; r < repeat; r++)
        for (int n = 1; n <= 2; n++) {
            pthread_t th;
            double t0 = now_ms();
            int started = n == 2 && !pthread_create(&th, NULL, spin, NULL);
            spin(NULL);
            if (started)
                pthread_join(th, NULL);
            else
                spin(NULL); /* one thread: the same two loops in a row */
            double dt = now_ms() - t0;
            best[n - 1] = r == 0 || dt < best[n - 1] ? dt : best[n - 1];
        }
    return best[0] / best[1];
}

/* Best of `repeat` for 1 and 2 workers, interleaved so a background load
 * weighs on both alike; then the machine's ceiling of the moment. */
static int run_bench(int repeat)
{
    tg_core *cores[2] = {new_core(), new_core()};
    if (!cores[0] || !cores[1])
        return 2;
    double best[2] = {0, 0};
    int rc = 0;
    for (int r = 0; r < repeat && !rc; r++)
        for (unsigned n = 1; n <= 2 && !rc; n++) {
            double t0 = now_ms();
            rc = tg_threads_run_cores(cores, n, real, t);
            double dt = now_ms() - t0;
            best[n - 1] = r == 0 || dt < best[n - 1] ? dt : best[n - 1];
        }
    if (rc)
        fprintf(stderr, "%s returned %d\n", real->name, rc);
    else
        printf("%-12s %6llu programs  1 thread %9.2f ms  2 threads %9.2f ms  speedup %.2fx\n", real->name,
               (unsigned long long)tg_kernel_programs(real), best[0], best[1], best[0] / best[1]);
    if (!rc)
        printf("%-12s two threads of an ALU loop meanwhile: %.2fx (what the machine gives now)\n", "",
               ceiling(repeat));
    free_core(cores[0]);
    free_core(cores[1]);
    return rc != 0;
}

int main(int argc, char **argv)
{
    int bench = argc == 3 && !strcmp(argv[1], "bench");
    if ((argc != 1 && !bench) || real->ntensors > MAX_TENSORS) {
        fprintf(stderr, "usage: %s [bench REPEAT]\n", argv[0]);
        return 2;
    }
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (uint32_t i = 0; i < real->ntensors; i++) {
        const tg_tensor_desc *d = &real->tensors[i];
        size_t n = tg_tensor_elems(d);
        bytes[i] = n * tg_dtype_size(d->dtype);
        t[i] = malloc(bytes[i] ? bytes[i] : 1);
        ref[i] = malloc(bytes[i] ? bytes[i] : 1);
        if (!t[i] || !ref[i]) {
            fprintf(stderr, "out of memory\n");
            return 2;
        }
        for (size_t e = 0; !d->is_output && e < n; e++) { /* floats in [-1, 1), integers in [-8, 8) */
            s = s * 6364136223846793005u + 1442695040888963407u;
            uint32_t r = (uint32_t)(s >> 40);
            float v = tg_dtype_is_float(d->dtype) ? (float)((int32_t)r - (1 << 23)) / (float)(1 << 23)
                                                  : (float)(r >> 20) - (tg_dtype_is_signed_int(d->dtype) ? 8 : 0);
            tg_store_f32(t[i], d->dtype, e, v);
        }
    }
    int rc = bench ? run_bench(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1) : run_checks();
    for (uint32_t i = 0; i < real->ntensors; i++) {
        free(t[i]);
        free(ref[i]);
    }
    return rc;
}
