/* ulp_measure.c — host tool (uses libm): the max error in fp32 ulps of each
 * runtime activation function against libm's fp64 result rounded to fp32
 * (≈ the correctly rounded value) and against libm's own fp32 function, over a
 * sweep of every `stride`-th fp32 bit pattern of the function's domain.
 * `make bench-rt` prints the table; tests/unit/test_math.c includes this file
 * (with ULP_MEASURE_NO_MAIN) to assert the bounds written in tg_math.h. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tg_dtype.h"
#include "tg_math.h"

/* One function under test. */
typedef struct ulp_fn {
    const char *name;         /* spec name, as in the tg_math.h table */
    float (*mine)(float);     /* runtime implementation */
    double (*ref64)(double);  /* fp64 libm reference */
    float (*ref32)(float);    /* fp32 libm counterpart */
    int positive_only;        /* domain: non-negative inputs only */
} ulp_fn;

static double r_exp(double x) { return exp(x); }
static double r_log(double x) { return log(x); }
static double r_tanh(double x) { return tanh(x); }
static double r_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double r_gelu(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }
static double r_gelu_tanh(double x)
{
    double u = sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x);
    return x / (1.0 + exp(-2.0 * u));
}
static double r_silu(double x) { return x / (1.0 + exp(-x)); }
static double r_softplus(double x) { return fmax(x, 0.0) + log1p(exp(-fabs(x))); }
static double r_sqrt(double x) { return sqrt(x); }
static double r_rsqrt(double x) { return 1.0 / sqrt(x); }
static double r_recip(double x) { return 1.0 / x; }
static double r_sin(double x) { return sin(x); }
static double r_erf(double x) { return erf(x); }

static float f_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
static float f_gelu(float x) { return 0.5f * x * erfcf(-x / sqrtf(2.0f)); }
static float f_gelu_tanh(float x)
{
    return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
static float f_silu(float x) { return x / (1.0f + expf(-x)); }
static float f_softplus(float x) { return fmaxf(x, 0.0f) + log1pf(expf(-fabsf(x))); }
static float f_rsqrt(float x) { return 1.0f / sqrtf(x); }
static float f_recip(float x) { return 1.0f / x; }

static const ulp_fn ulp_fns[] = {
    {"exp", tg_act_exp, r_exp, expf, 0},
    {"log", tg_act_log, r_log, logf, 1},
    {"tanh", tg_act_tanh, r_tanh, tanhf, 0},
    {"sigmoid", tg_act_sigmoid, r_sigmoid, f_sigmoid, 0},
    {"gelu", tg_act_gelu, r_gelu, f_gelu, 0},
    {"gelu_apprx_tanh", tg_act_gelu_apprx_tanh, r_gelu_tanh, f_gelu_tanh, 0},
    {"silu", tg_act_silu, r_silu, f_silu, 0},
    {"softplus", tg_act_softplus, r_softplus, f_softplus, 0},
    {"sqrt", tg_act_sqrt, r_sqrt, sqrtf, 1},
    {"rsqrt", tg_act_rsqrt, r_rsqrt, f_rsqrt, 1},
    {"reciprocal", tg_act_reciprocal, r_recip, f_recip, 0},
    {"sin", tg_act_sin, r_sin, sinf, 0},
    {"erf", tg_act_erf, r_erf, erff, 0},
};
#define ULP_NFNS (sizeof ulp_fns / sizeof ulp_fns[0])

/* fp32 bits mapped to a monotonic integer line (−0 and +0 both 0). */
static int64_t ulp_line(float f)
{
    uint32_t u = tg_f32_bits(f);
    return (u >> 31) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

/* Distance in ulps; NaN vs NaN = 0, NaN vs number = a huge sentinel. */
static int64_t ulp_dist(float a, float b)
{
    int64_t d;
    if (isnan(a) || isnan(b))
        return (isnan(a) && isnan(b)) ? 0 : ((int64_t)1 << 40);
    d = ulp_line(a) - ulp_line(b);
    return d < 0 ? -d : d;
}

/* Result of one sweep. */
typedef struct ulp_result {
    int64_t max64;   /* max ulps vs fp64 reference rounded to fp32 */
    int64_t max32;   /* max ulps vs libm fp32 */
    float worst_x;   /* an input reaching max64 */
    uint64_t count;  /* inputs evaluated */
    uint64_t wrong;  /* inputs not correctly rounded (vs fp64 reference) */
} ulp_result;

/* Every `stride`-th finite fp32 bit pattern (both signs unless positive_only). */
static ulp_result ulp_sweep(const ulp_fn *fn, uint32_t stride)
{
    ulp_result r = {0, 0, 0.0f, 0, 0};
    uint64_t u;
    int sgn;
    for (sgn = 0; sgn < (fn->positive_only ? 1 : 2); sgn++) {
        for (u = 0; u < 0x7f800000u; u += stride) {
            float x = tg_bits_f32((uint32_t)u | (sgn ? 0x80000000u : 0u));
            float y = fn->mine(x);
            float ref = (float)fn->ref64((double)x);
            int64_t d64 = ulp_dist(y, ref), d32 = ulp_dist(y, fn->ref32(x));
            r.count++;
            if (d64) {
                r.wrong++;
                if (d64 > r.max64) {
                    r.max64 = d64;
                    r.worst_x = x;
                }
            }
            if (d32 > r.max32)
                r.max32 = d32;
        }
    }
    return r;
}

#ifndef ULP_MEASURE_NO_MAIN
int main(int argc, char **argv)
{
    uint32_t stride = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 61u;
    size_t i;
    if (stride == 0)
        stride = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("max ulp error of runtime activation functions, every %u-th fp32 of the domain\n", stride);
    printf("%-16s %10s %10s %12s %14s %8s\n", "function", "vs fp64", "vs libm32", "inputs",
           "not-cr", "sec");
    for (i = 0; i < ULP_NFNS; i++) {
        clock_t t0;
        if (argc > 2 && strstr(argv[2], ulp_fns[i].name) == NULL)
            continue;
        t0 = clock();
        ulp_result r = ulp_sweep(&ulp_fns[i], stride);
        double sec = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("%-16s %10lld %10lld %12llu %14llu %8.2f", ulp_fns[i].name, (long long)r.max64,
               (long long)r.max32, (unsigned long long)r.count, (unsigned long long)r.wrong, sec);
        if (r.max64)
            printf("   worst x = %a", (double)r.worst_x);
        printf("\n");
    }
    return 0;
}
#endif
