/* big_check.c - runs big.yaml's kernel (tensors of 2^32 elements and more)
 * through the C simulation and the ISS on the same input and checks both
 * outputs element by element against the values the spec defines. The
 * tensors are calloc'd: only the pages the kernel touches are backed, so the
 * 8+ GiB of address space costs a few MB. Exit 0 pass, 1 fail, 2 setup. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "big.h"
#include "tg_iss.h"
#include "tg_runtime.h"

enum { R = 65536, C = 65537, Z = 32768 };

static uint8_t pattern(uint64_t i) { return (uint8_t)((i * 2654435761u) >> 13); }

/* 0 when y and z hold what big.yaml writes from x. */
static int verify(const char *who, const float *y, const uint8_t *z)
{
    int bad = 0;
    for (uint64_t p = 0; p < 128; p++)
        for (uint64_t j = 0; j < 64; j++) {
            uint64_t xi = (R - 128 + p) * (uint64_t)C + (C - 64 + j);
            if (y[p * 64 + j] != (float)pattern(xi) && bad++ < 5)
                fprintf(stderr, "%s: y[%llu, %llu] = %g, want %u\n", who, (unsigned long long)p,
                        (unsigned long long)j, (double)y[p * 64 + j], (unsigned)pattern(xi));
        }
    for (uint64_t p = 0; p < 128; p++)
        for (uint64_t j = 0; j < 100; j++) {
            uint64_t xi = (R - 128 + p) * (uint64_t)C + j;
            uint64_t zi = 3ull * Z * Z + (Z - 128 + p) * (uint64_t)Z + (Z - 100 + j);
            if (z[zi] != pattern(xi) && bad++ < 5)
                fprintf(stderr, "%s: z[3, %llu, %llu] = %u, want %u\n", who, (unsigned long long)(Z - 128 + p),
                        (unsigned long long)(Z - 100 + j), (unsigned)z[zi], (unsigned)pattern(xi));
        }
    /* the rows before the written block stay untouched */
    uint64_t before = 3ull * Z * Z + (Z - 129) * (uint64_t)Z + (Z - 100);
    if (z[before] != 0 && bad++ < 5)
        fprintf(stderr, "%s: z written outside the stored block\n", who);
    return bad;
}

/* everything main allocates (free(NULL) is a no-op): a leak checker
 * (make asan) sees none at exit */
static void free_all(void *x, void *zc, void *zi, void *yc, void *yi, void *mc, void *mi)
{
    free(x);
    free(zc);
    free(zi);
    free(yc);
    free(yi);
    free(mc);
    free(mi);
}

int main(void)
{
    uint64_t xn = (uint64_t)R * C, zn = 4ull * Z * Z;
    if (xn < (1ull << 32) || zn < (1ull << 32) || SIZE_MAX < xn) {
        fprintf(stderr, "big_check: needs a 64-bit host\n");
        return 2;
    }
    uint8_t *x = calloc(xn, 1), *zc = calloc(zn, 1), *zi = calloc(zn, 1);
    float *yc = calloc(128 * 64, sizeof *yc), *yi = calloc(128 * 64, sizeof *yi);
    void *mc = malloc(big_kernel.core_bytes), *mi = malloc(big_kernel.core_bytes);
    static tg_core cc, ci;
    if (!x || !zc || !zi || !yc || !yi || !mc || !mi || tg_core_init_storage(&cc, big_kernel.target, mc, big_kernel.core_bytes) ||
        tg_core_init_storage(&ci, big_kernel.target, mi, big_kernel.core_bytes)) {
        fprintf(stderr, "big_check: cannot set up (calloc of %llu + 2 x %llu bytes)\n", (unsigned long long)xn,
                (unsigned long long)zn);
        free_all(x, zc, zi, yc, yi, mc, mi);
        return 2;
    }
    for (uint64_t p = R - 128; p < R; p++) /* only the rows the kernel reads */
        for (uint64_t j = 0; j < C; j++)
            x[p * C + j] = pattern(p * C + j);
    void *tc[] = {x, yc, zc}, *ti[] = {x, yi, zi};
    int e = tg_kernel_run(&cc, &big_kernel, tc), f = tg_iss_run(&ci, &big_kernel, ti);
    int bad = e || f;
    if (bad)
        fprintf(stderr, "big_check: C simulation returned %d, ISS %d\n", e, f);
    else
        bad = verify("C simulation", yc, zc) + verify("ISS", yi, zi);
    printf("%s big: x %llu elements, z %llu elements: C simulation and ISS %s\n", bad ? "FAIL" : "PASS",
           (unsigned long long)xn, (unsigned long long)zn, bad ? "wrong" : "match the spec");
    free_all(x, zc, zi, yc, yi, mc, mi);
    return bad ? 1 : 0;
}
