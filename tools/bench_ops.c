/* bench_ops.c — `make bench-ops`: tg_matmul_f32 on a 512×1024×1024 fp32
 * problem (dst[M=512, N=1024] = stat[K=1024, M]ᵀ · mov[K, N]), as one call
 * and as the PE-tiled pattern a generated kernel issues (128×128 stationary,
 * 128×512 moving, PSUM accumulation over K), against OpenBLAS cblas_sgemm on
 * the same shapes (its default threads, and one thread). Host tool. */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tg_ops.h"

/* Declared by OpenBLAS (cblas.h of some versions lacks them). */
char *openblas_get_corename(void);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int num_threads);

enum { M = 512, K = 1024, N = 1024, REPS = 9 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *stat_, *mov_, *dst_, *ref_;

static void run_tg(void) { tg_matmul_f32(dst_, N, stat_, M, mov_, N, K, M, N, 0); }

/* The generated-kernel pattern: per (m, n) tile, K/128 accumulating matmuls. */
static void run_tiled(void)
{
    int m0, n0, k0;
    for (m0 = 0; m0 < M; m0 += 128)
        for (n0 = 0; n0 < N; n0 += 512)
            for (k0 = 0; k0 < K; k0 += 128)
                tg_matmul_f32(dst_ + (size_t)m0 * N + n0, N, stat_ + (size_t)k0 * M + m0, M,
                              mov_ + (size_t)k0 * N + n0, N, 128, 128, 512, k0 > 0);
}

static void run_blas(void)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, N, K, 1.0f, stat_, M, mov_, N, 0.0f,
                ref_, N);
}

/* Best of REPS runs of each of `n` functions, interleaved so that load from
 * other processes hits them alike; seconds into t[]. */
static void best(void (*const fn[])(void), double *t, int n)
{
    int r, i;
    for (i = 0; i < n; i++) {
        fn[i](); /* warm up */
        t[i] = 1e30;
    }
    for (r = 0; r < REPS; r++)
        for (i = 0; i < n; i++) {
            double t0 = now(), dt;
            fn[i]();
            dt = now() - t0;
            t[i] = dt < t[i] ? dt : t[i];
        }
}

static int blas_threads;
static void run_blas1(void)
{
    openblas_set_num_threads(1);
    run_blas();
    openblas_set_num_threads(blas_threads);
}

int main(void)
{
    const double flop = 2.0 * M * N * K;
    double t_tg, t_tiled, t_blas, t_blas1, maxrel = 0.0;
    int threads;
    size_t i;
    stat_ = malloc(sizeof(float) * K * M);
    mov_ = malloc(sizeof(float) * K * N);
    dst_ = malloc(sizeof(float) * M * N);
    ref_ = malloc(sizeof(float) * M * N);
    if (!stat_ || !mov_ || !dst_ || !ref_) {
        fprintf(stderr, "bench_ops: out of memory\n");
        return 2;
    }
    srand(1);
    for (i = 0; i < (size_t)K * M; i++)
        stat_[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    for (i = 0; i < (size_t)K * N; i++)
        mov_[i] = (float)rand() / (float)RAND_MAX - 0.5f;

    blas_threads = threads = openblas_get_num_threads();
    {
        void (*const fns[4])(void) = {run_tg, run_tiled, run_blas, run_blas1};
        double t[4];
        run_tg(); /* dst_ from the one-call form, for the check below */
        best(fns, t, 4);
        t_tg = t[0], t_tiled = t[1], t_blas = t[2], t_blas1 = t[3];
    }
    run_blas();
    run_tg();

    for (i = 0; i < (size_t)M * N; i++) {
        double d = fabs((double)dst_[i] - (double)ref_[i]) / (fabs((double)ref_[i]) + 1.0);
        maxrel = d > maxrel ? d : maxrel;
    }
    printf("bench-ops: matmul fp32 M=%d K=%d N=%d (dst = statᵀ·mov), best of %d\n", M, K, N, REPS);
    printf("  OpenBLAS core %s (OPENBLAS_CORETYPE=%s), %d thread(s)\n", openblas_get_corename(),
           getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "unset", threads);
    printf("  %-34s %8.2f ms %8.2f GFLOP/s\n", "tg_matmul_f32 (one call, 1 thread)", 1e3 * t_tg,
           flop / t_tg * 1e-9);
    printf("  %-34s %8.2f ms %8.2f GFLOP/s\n", "tg_matmul_f32 (PE tiles 128x128x512)",
           1e3 * t_tiled, flop / t_tiled * 1e-9);
    printf("  %-34s %8.2f ms %8.2f GFLOP/s\n", "cblas_sgemm (default threads)", 1e3 * t_blas,
           flop / t_blas * 1e-9);
    printf("  %-34s %8.2f ms %8.2f GFLOP/s\n", "cblas_sgemm (1 thread)", 1e3 * t_blas1,
           flop / t_blas1 * 1e-9);
    printf("  ratio tg/OpenBLAS: %.2fx (vs default threads), %.2fx (vs 1 thread); target <= 3x\n",
           t_tg / t_blas, t_tg / t_blas1);
    printf("  max |tg - sgemm| / (|sgemm| + 1) = %.2e (different summation orders)\n", maxrel);
    free(stat_);
    free(mov_);
    free(dst_);
    free(ref_);
    return maxrel < 1e-4 ? 0 : 1;
}
