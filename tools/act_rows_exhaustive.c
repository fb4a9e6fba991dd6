/* act_rows_exhaustive.c — host tool: for each activation function named, every
 * fp32 bit pattern (all 2^32) through tg_activation_f32_row (the widest SIMD
 * body this CPU runs, or LEVEL's) against tg_activation element by element,
 * at one scale and bias. Prints how many results differ per function; exit
 * 1 if any does. `make act-rows-exhaustive` (ACT_FUNCS, ACT_SCALE, ACT_BIAS,
 * ACT_LEVEL); seconds to minutes a function. docs/numerics.md, "Activation rows at the CPU's width". */
#include "tg_fp.h" /* first: no FMA contraction, as the runtime */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_dtype.h"
#include "tg_ops.h"

enum { CHUNK = 1 << 20 };

/* results of f over all 2^32 patterns that differ between the row and the element form */
static uint64_t sweep(tg_act_func f, float scale, float bias, float *x, float *y)
{
    uint64_t bad = 0;
    for (uint64_t u0 = 0; u0 < ((uint64_t)1 << 32); u0 += CHUNK) {
        for (uint32_t i = 0; i < CHUNK; i++)
            x[i] = tg_bits_f32((uint32_t)(u0 + i));
        tg_activation_f32_row(f, y, x, CHUNK, scale, bias);
        for (uint32_t i = 0; i < CHUNK; i++) {
            const float r = tg_activation(f, x[i], scale, bias);
            if (tg_f32_bits(r) != tg_f32_bits(y[i]) && bad++ < 5)
                printf("  %s(%08x): row %08x, element %08x\n", tg_act_name(f), (unsigned)tg_f32_bits(x[i]),
                       (unsigned)tg_f32_bits(y[i]), (unsigned)tg_f32_bits(r));
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FUNC[,FUNC...] [SCALE [BIAS [LEVEL]]]\n", argv[0]);
        return 2;
    }
    const float scale = argc > 2 ? strtof(argv[2], NULL) : 1.0f, bias = argc > 3 ? strtof(argv[3], NULL) : 0.0f;
    float *x = malloc(sizeof(float) * CHUNK), *y = malloc(sizeof(float) * CHUNK);
    int fail = 0;
    if (!x || !y) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 2;
    }
    if (argc > 4)
        tg_matmul_isa(atoi(argv[4])); /* a SIMD body below the widest */
    printf("SIMD level %d, scale %g, bias %g\n", tg_matmul_isa(0), (double)scale, (double)bias);
    for (const char *p = argv[1]; *p;) {
        size_t n = strcspn(p, ",");
        int f = tg_act_from_name(p, n);
        if (f < 0) {
            fprintf(stderr, "%s: unknown function '%.*s'\n", argv[0], (int)n, p);
            fail = 2;
        } else {
            uint64_t bad = sweep((tg_act_func)f, scale, bias, x, y);
            printf("%s: %llu of 2^32 differ\n", tg_act_name((tg_act_func)f), (unsigned long long)bad);
            fail |= bad != 0;
        }
        p += n + (p[n] == ',');
    }
    free(x);
    free(y);
    return fail;
}

#include "tg_fp_end.h"
