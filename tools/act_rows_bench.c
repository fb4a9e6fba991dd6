/* act_rows_bench.c — `make bench-act-rows`: tg_activation_f32_row's time per
 * element for each activation function, on 4096-element fp32 rows in L1
 * (arguments N(0, 3); for log, rsqrt and sqrt |N(0, 3)| + 0.001), at every
 * SIMD body this CPU runs (tg_matmul_isa), best of 5 runs of ~80 M
 * elements. Host tool. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tg_ops.h"

enum { N = 4096, ELEMS = 80000000, RUNS = 5 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* uniform in (0, 1] from a 64-bit LCG */
static double unif(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((*s >> 11) + 1) / 9007199254740992.0;
}

int main(void)
{
    static float x[N], xp[N], y[N];
    static const char *const level_name[] = {"", "baseline", "AVX2", "AVX-512"};
    uint64_t seed = 1;
    const int top = tg_matmul_isa(0);
    for (int i = 0; i < N; i++) {
        const double r = sqrt(-2.0 * log(unif(&seed))), t = 6.283185307179586 * unif(&seed);
        x[i] = (float)(3.0 * r * cos(t));
        xp[i] = fabsf(x[i]) + 0.001f;
    }
    printf("ns an element, %d-element fp32 rows, best of %d\n%-16s", N, RUNS, "function");
    for (int level = top; level >= 1; level--)
        printf(" %9s", level_name[level]);
    printf("\n");
    for (int f = 0; f < TG_ACT_COUNT; f++) {
        const float *src = f == TG_ACT_LOG || f == TG_ACT_RSQRT || f == TG_ACT_SQRT ? xp : x;
        printf("%-16s", tg_act_name((tg_act_func)f));
        for (int level = top; level >= 1; level--) {
            double best = 1e30;
            /* erf and gelu run ~50 ns an element at best: fewer repetitions */
            const int reps = (f == TG_ACT_ERF || f == TG_ACT_GELU ? ELEMS / 50 : ELEMS) / N;
            tg_matmul_isa(level);
            for (int r = 0; r < RUNS; r++) {
                const double t0 = now();
                for (int k = 0; k < reps; k++)
                    tg_activation_f32_row((tg_act_func)f, y, src, N, 1.0f, 0.0f);
                const double t = (now() - t0) / ((double)reps * N) * 1e9;
                best = t < best ? t : best;
            }
            printf(" %9.3f", best);
        }
        printf("\n");
    }
    tg_matmul_isa(top);
    return 0;
}
