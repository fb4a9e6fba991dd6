/* main.c - runs the generated softmax (specs/softmax.yaml: y = softmax(x)
 * along rows of a [1024, 512] fp32 tensor) on seeded inputs and checks every
 * element against a binary64 reference within the fp32 error bound of the
 * kernel's arithmetic; prints the bits' checksum. Exit 0 when all agree. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "softmax.h"

#define N 1024
#define D 512

TG_CORE_STATIC(core, SOFTMAX_CORE_BYTES); /* the plan's SBUF (+ PSUM): static, no heap */
static float x[N][D], y[N][D];

/* e^t for t <= 0 in binary64 without libm: (e^(t/256))^256, the inner value
 * by its Taylor series (|t/256| < 0.05: 12 terms are exact to binary64). */
static double ref_exp(double t)
{
    double r = t / 256, s = 1, term = 1;
    for (int i = 1; i <= 12; i++) {
        term = term * r / i;
        s = s + term;
    }
    for (int i = 0; i < 8; i++)
        s = s * s;
    return s;
}

int main(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < D; j++) { /* uniform in [-8, 8) */
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            x[i][j] = (float)((double)(seed >> 40) / (double)(1u << 24) * 16.0 - 8.0);
        }
    int rc = tg_core_init(&core, TG_TRN1);
    if (!rc)
        rc = softmax(&core, &x[0][0], &y[0][0]);
    if (rc) {
        fprintf(stderr, "softmax failed: %d\n", rc);
        return 1;
    }
    /* fp32 rounding of exp, of each of the D-1 adds of the row sum, of the
     * reciprocal and of the product: relative error below (D + 3) * 2^-24. */
    const double bound = (D + 3) / 16777216.0;
    double worst = 0;
    uint64_t sum = 0xcbf29ce484222325u; /* FNV-1a over the output bytes */
    for (int i = 0; i < N; i++) {
        double mx = x[i][0], s = 0;
        for (int j = 1; j < D; j++)
            mx = x[i][j] > mx ? x[i][j] : mx;
        for (int j = 0; j < D; j++)
            s += ref_exp(x[i][j] - mx);
        for (int j = 0; j < D; j++) {
            double ref = ref_exp(x[i][j] - mx) / s, e = (y[i][j] - ref) / ref;
            e = e < 0 ? -e : e;
            worst = e > worst ? e : worst;
        }
    }
    const unsigned char *b = (const unsigned char *)y;
    for (size_t k = 0; k < sizeof y; k++)
        sum = (sum ^ b[k]) * 0x100000001b3u;
    printf("softmax %dx%d: max relative error %.3g (bound %.3g), output checksum %016llx\n", N, D, worst,
           bound, (unsigned long long)sum);
    if (!(worst <= bound)) {
        fprintf(stderr, "softmax: output outside the bound\n");
        return 1;
    }
    return 0;
}
