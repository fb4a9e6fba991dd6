/* limits.c - the machine's measured limits, one thread, for `make bench`
 * (tests/numerics/check.sh TIMING=1): what fraction of the machine a C
 * simulation reaches is judged against these, measured in the same run.
 *
 *   limits copy BYTES   GB/s of a copy loop whose working set is BYTES (half
 *                       read, half written; bytes read + written per second)
 *   limits flops        fp32 GFLOP/s of independent multiply-add chains, 8
 *                       and 16 wide, the better (build with -march=native
 *                       -ffp-contract=fast: the machine's peak)
 *
 * Each prints one number: the best of several timed runs (a copy run moves
 * at least 256 MiB, a FLOP run takes ~15 ms). Host-only (stdio, heap,
 * madvise, clock_gettime). */
#define _DEFAULT_SOURCE /* clock_gettime, madvise */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "huge_alloc.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best GB/s of memcpy over a working set of `bytes` (>= 2 KiB), source and
 * destination on huge pages as the kernel's tensors are (run_kernel.c), so
 * that the limit and the kernel see memory placed alike (how much of a
 * working set near L2's size stays there depends on where its pages fall). */
static double copy_gbps(size_t bytes)
{
    size_t half = bytes / 2 / 64 * 64;
    if (half < 1024)
        half = 1024;
    unsigned char *src = alloc_huge(half), *dst = alloc_huge(half);
    if (!src || !dst) {
        free(src);
        free(dst);
        return 0;
    }
    memset(src, 1, half);
    memset(dst, 2, half);
    /* repetitions so that one timed run moves at least 256 MiB */
    size_t reps = ((size_t)256 << 20) / (2 * half) + 1;
    double best = 0;
    for (int run = 0; run < 7; run++) {
        double t0 = now_s();
        for (size_t r = 0; r < reps; r++) {
            memcpy(dst, src, half);
            src[r % half] ^= dst[(r * 7) % half]; /* keep every copy observable */
        }
        double dt = now_s() - t0, g = (double)(2 * half) * (double)reps / dt / 1e9;
        best = g > best ? g : best;
    }
    free(src);
    free(dst);
    return best;
}

typedef float v8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));

/* Best GFLOP/s of 12 independent W-wide a = a * m + c chains (V: a vector
 * of W floats), each in its own register (named, so no compiler keeps them
 * in memory). */
#define PEAK_LOOP(NAME, V, W)                                                                                     \
    static double NAME(void)                                                                                      \
    {                                                                                                             \
        V m, c, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11;                                                 \
        for (int l = 0; l < W; l++) {                                                                             \
            m[l] = 0.999999f;                                                                                     \
            c[l] = 1e-7f;                                                                                         \
            a0[l] = (float)l;                                                                                     \
        }                                                                                                         \
        a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;              \
        a8 = a0 + 8, a9 = a0 + 9, a10 = a0 + 10, a11 = a0 + 11;                                                  \
        const long iters = 160000000 / W;                                                                         \
        double best = 0;                                                                                          \
        for (int run = 0; run < 5; run++) {                                                                       \
            double t0 = now_s();                                                                                  \
            for (long n = 0; n < iters; n++) {                                                                    \
                a0 = a0 * m + c, a1 = a1 * m + c, a2 = a2 * m + c, a3 = a3 * m + c, a4 = a4 * m + c;              \
                a5 = a5 * m + c, a6 = a6 * m + c, a7 = a7 * m + c, a8 = a8 * m + c, a9 = a9 * m + c;              \
                a10 = a10 * m + c, a11 = a11 * m + c;                                                             \
                __asm__ volatile("" : "+x"(m)); /* m unknown each iteration: no folding of the chains */         \
            }                                                                                                     \
            double dt = now_s() - t0, g = (double)iters * 12 * W * 2 / dt / 1e9;                                  \
            best = g > best ? g : best;                                                                           \
        }                                                                                                         \
        V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;                                        \
        if (s[0] + s[W - 1] == 12345.0f) /* keeps the chains live */                                              \
            fprintf(stderr, "%g\n", (double)s[0]);                                                                \
        return best;                                                                                              \
    }
PEAK_LOOP(peak8, v8, 8)
#ifdef __AVX512F__ /* a 16-wide vector is one register ("x" constraint) only with AVX-512 */
PEAK_LOOP(peak16, v16, 16)
#endif

/* The machine's peak: the better of 8- and 16-wide chains (a machine with
 * 512-bit registers may or may not multiply-add them at twice the rate;
 * without them a 16-wide chain is two 8-wide ones). */
static double peak_gflops(void)
{
    double a = peak8();
#ifdef __AVX512F__
    double b = peak16();
    a = a > b ? a : b;
#endif
    return a;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "copy")) {
        char *end;
        unsigned long long b = strtoull(argv[2], &end, 10);
        if (*end || b == 0) {
            fprintf(stderr, "limits: bad BYTES '%s'\n", argv[2]);
            return 2;
        }
        printf("%.2f\n", copy_gbps((size_t)b));
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "flops")) {
        printf("%.2f\n", peak_gflops());
        return 0;
    }
    fprintf(stderr, "usage: limits copy BYTES | limits flops\n");
    return 2;
}
