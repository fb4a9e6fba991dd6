/* matmul_stress.c — random matmuls through every entry of the runtime's
 * packed matmul against the plain triple loop (tg_matmul_f32_ref), bit for
 * bit, at every SIMD body this CPU runs (tg_matmul_isa).
 *
 * The unit tests pin the known edges; this walks the space between them:
 * shapes across the packed, narrow (N <= 4) and short (M <= 4) paths and
 * several k blocks, operands with few or many significant bits (so the
 * packed kernels' fused multiply-add is taken or refused, tg_mm_impl.h
 * tg__mm_fusable) in exponent windows where products are ordinary, near the
 * smallest normal, near overflow, or past either, with ±0, and now and then
 * an infinity or NaN; dst from +0 or accumulated onto ±0 and other values.
 * Part 1 calls tg_matmul_f32 on fp32 rows; part 2 takes bf16 operands in
 * place (the moving one sometimes at a stride) through tg_matmul with and
 * without scratch, tg_matmul_keep twice (the second call keeping both packs)
 * and tg_matmul_blocks over two K blocks.
 *
 * Usage: matmul_stress [CASES [SEED]]: CASES of each part at each body
 * (default 2000). Prints a line per body and part, the first mismatches in
 * full, and ends with "N passed, M failed" (a case at a body is one test);
 * exit status 1 on a mismatch. `make matmul-stress` runs it; the suite of
 * the same name runs a short round in make test. */
#include "tg_ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/test_rng.h"

/* uniform in [lo, hi] (rnd32: the unit tests' xorshift64*) */
static int rndi(int lo, int hi) { return lo + (int)(rnd32() % (uint32_t)(hi - lo + 1)); }

/* How an operand's values are drawn: sig significant bits (1..24), unbiased
 * exponents in [elo, ehi] (below -126: the subnormal grid, whose values keep
 * fewer bits), zeros and specials one in zero_in and special_in (0: none). */
typedef struct {
    int sig, elo, ehi, zero_in, special_in;
} dist;

static float draw(const dist *d)
{
    if (d->zero_in && rnd32() % (uint32_t)d->zero_in == 0)
        return tg_bits_f32(rnd32() & 0x80000000u); /* ±0 */
    if (d->special_in && rnd32() % (uint32_t)d->special_in == 0) {
        const uint32_t sp[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffa00001u};
        return tg_bits_f32(sp[rnd32() % 4]);
    }
    int e = rndi(d->elo, d->ehi);
    uint32_t mant = (rnd32() & 0x7fffffu) >> (24 - d->sig) << (24 - d->sig); /* sig - 1 stored bits */
    uint32_t u;
    if (e >= -126)
        u = (uint32_t)(e + 127) << 23 | mant;
    else /* subnormal: the implicit one shifted into the field */
        u = ((0x800000u | mant) >> (-126 - e)) & 0x7fffffu;
    return tg_bits_f32(u | (rnd32() & 0x80000000u));
}

/* One of four exponent windows: ordinary values, values whose products lie
 * near 2^-126 (some subnormal), near 2^128, or far past both. */
static void pick_window(dist *d, int bits_max)
{
    d->sig = rnd32() % 3 == 0 ? 24 : rndi(1, bits_max);
    switch (rnd32() % 4) {
    case 0: d->elo = -20; d->ehi = 20; break;
    case 1: d->elo = -70 - (int)(rnd32() % 80); d->ehi = -56; break;
    case 2: d->elo = 56; d->ehi = 66; break;
    default: d->elo = -100; d->ehi = 100; break;
    }
    d->zero_in = rnd32() % 2 ? 9 : 0;
}

/* Per mismatch: the case, then the first differing element. */
static int report(const char *what, int level, long c, int K, int M, int N, int acc, const float *got,
                  const float *want, ptrdiff_t ds)
{
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++)
            if (tg_f32_bits(got[m * ds + n]) != tg_f32_bits(want[m * ds + n])) {
                printf("MISMATCH %s body %d case %ld: K %d M %d N %d acc %d: dst[%d][%d] %08x want %08x\n", what,
                       level, c, K, M, N, acc, m, n, (unsigned)tg_f32_bits(got[m * ds + n]),
                       (unsigned)tg_f32_bits(want[m * ds + n]));
                return 1;
            }
    return 0;
}

/* A random shape: the packed path mostly, N <= 4 or M <= 4 one in four. */
static void pick_shape(int *K, int *M, int *N, int kmax, int mmax, int nmax)
{
    *K = rnd32() % 4 == 0 ? rndi(1, 4) : rndi(1, kmax);
    *M = rndi(1, mmax);
    *N = rndi(1, nmax);
    switch (rnd32() % 8) {
    case 0: *N = rndi(1, 4); break;
    case 1: *M = rndi(1, 4); break;
    default: break;
    }
}

static void fill_dst(float *d0, size_t n)
{
    dist dd = {rndi(1, 24), -20, 20, rnd32() % 2 ? 2 : 0, 0};
    for (size_t i = 0; i < n; i++)
        d0[i] = draw(&dd);
}

enum { KMAX = 300, MMAX = 154, NMAX = 304, SLACK = 8 };
static float A[2 * KMAX * (MMAX + SLACK)], B[2 * KMAX * (NMAX + SLACK) * 2];
static uint16_t A16[2 * KMAX * (MMAX + SLACK)], B16[2 * KMAX * (NMAX + SLACK) * 2];
static float D0[MMAX * (NMAX + SLACK)], D1[MMAX * (NMAX + SLACK)], D2[MMAX * (NMAX + SLACK)];
static float SCR[TG_MATMUL_SCRATCH_FLOATS(2 * KMAX, MMAX, NMAX) + 64];

/* Part 1: tg_matmul_f32 on fp32 rows at strides of their own. */
static int part_f32(int level, long c)
{
    int K, M, N;
    pick_shape(&K, &M, &N, KMAX, MMAX, NMAX);
    const ptrdiff_t ss = M + rndi(0, 5), ms = N + rndi(0, 5), ds = N + rndi(0, 7);
    dist da, db;
    pick_window(&da, 13);
    pick_window(&db, 13);
    da.special_in = db.special_in = rnd32() % 10 == 0 ? 500 : 0;
    for (ptrdiff_t i = 0; i < K * ss; i++)
        A[i] = draw(&da);
    for (ptrdiff_t i = 0; i < K * ms; i++)
        B[i] = draw(&db);
    const int acc = (int)(rnd32() % 2);
    fill_dst(D0, (size_t)(M * ds));
    memcpy(D1, D0, sizeof(float) * (size_t)(M * ds));
    tg_matmul_f32_ref(D0, ds, A, ss, B, ms, K, M, N, acc);
    tg_matmul_f32(D1, ds, A, ss, B, ms, K, M, N, acc);
    return report("f32", level, c, K, M, N, acc, D1, D0, ds);
}

/* Part 2: bf16 operands in place through tg_matmul, tg_matmul_keep and
 * tg_matmul_blocks. */
static int part_bf16(int level, long c)
{
    int K, M, N;
    pick_shape(&K, &M, &N, KMAX / 2, 128, NMAX);
    const int nblk = rnd32() % 4 == 0 ? 2 : 1, KT = K * nblk;
    const ptrdiff_t ss = M + rndi(0, 5), fs = rnd32() % 4 == 0 ? 2 : 1, ms = N * fs + rndi(0, 5);
    const ptrdiff_t ds = N + rndi(0, 7);
    dist da, db;
    pick_window(&da, 8);
    pick_window(&db, 8);
    if (da.sig > 8)
        da.sig = 8;
    if (db.sig > 8)
        db.sig = 8;
    da.special_in = db.special_in = rnd32() % 10 == 0 ? 500 : 0;
    for (ptrdiff_t i = 0; i < KT * ss; i++) {
        A[i] = draw(&da);
        A16[i] = (uint16_t)(tg_f32_bits(A[i]) >> 16);
        A[i] = tg_bits_f32((uint32_t)A16[i] << 16); /* NaN payloads: the bf16's */
    }
    for (ptrdiff_t i = 0; i < KT * ms; i++) {
        B16[i] = (uint16_t)(tg_f32_bits(draw(&db)) >> 16);
        B[i] = tg_bits_f32((uint32_t)B16[i] << 16);
    }
    /* the reference reads the moving operand's used elements contiguously */
    static float Bc[2 * KMAX * (NMAX + SLACK)];
    for (int k = 0; k < KT; k++)
        for (int n = 0; n < N; n++)
            Bc[k * N + n] = B[k * ms + n * fs];
    const int acc = (int)(rnd32() % 2);
    fill_dst(D0, (size_t)(M * ds));
    memcpy(D1, D0, sizeof(float) * (size_t)(M * ds));
    memcpy(D2, D0, sizeof(float) * (size_t)(M * ds));
    tg_matmul_f32_ref(D0, ds, A, ss, Bc, N, KT, M, N, acc);
    const tg_pe_src sa = {A16, ss * 2, 1, TG_BFLOAT16}, sb = {B16, ms * 2, fs, TG_BFLOAT16};
    const size_t sf = TG_MATMUL_SCRATCH_FLOATS(KT, M, N);
    int bad;
    if (nblk > 1) {
        tg_matmul_blocks(D1, ds, sa, sb, K, M, N, nblk, (ptrdiff_t)K * ss * 2, (ptrdiff_t)K * ms * 2, acc,
                         rnd32() % 2 ? SCR : NULL, sf);
        return report("bf16 blocks", level, c, KT, M, N, acc, D1, D0, ds);
    }
    switch (rnd32() % 3) {
    case 0:
        tg_matmul(D1, ds, sa, sb, K, M, N, acc, NULL, 0);
        return report("bf16 no scratch", level, c, K, M, N, acc, D1, D0, ds);
    case 1:
        tg_matmul(D1, ds, sa, sb, K, M, N, acc, SCR, sf);
        return report("bf16 scratch", level, c, K, M, N, acc, D1, D0, ds);
    default: /* the second call told both packs are in scratch already */
        tg_matmul_keep(D1, ds, sa, sb, K, M, N, acc, SCR, sf, 0);
        bad = report("bf16 keep 0", level, c, K, M, N, acc, D1, D0, ds);
        tg_matmul_keep(D2, ds, sa, sb, K, M, N, acc, SCR, sf, TG_MATMUL_KEEP_STAT | TG_MATMUL_KEEP_MOV);
        if (!bad)
            bad = report("bf16 keep both", level, c, K, M, N, acc, D2, D0, ds);
        return bad;
    }
}

int main(int argc, char **argv)
{
    const long cases = argc > 1 ? atol(argv[1]) : 2000;
    if (argc > 2)
        test_rng_state = strtoull(argv[2], NULL, 0) | 1u;
    if (cases <= 0 || argc > 3) {
        fprintf(stderr, "usage: matmul_stress [CASES [SEED]]\n");
        return 2;
    }
    const int top = tg_matmul_isa(0);
    long passed = 0, failed = 0;
    for (int level = top; level >= 1; level--) {
        tg_matmul_isa(level);
        for (int part = 0; part < 2; part++) {
            long f = 0;
            for (long c = 0; c < cases; c++)
                f += part ? part_bf16(level, c) : part_f32(level, c);
            printf("body %d %s: %ld cases, %ld mismatched\n", level, part ? "bf16 tg_matmul*" : "tg_matmul_f32",
                   cases, f);
            passed += cases - f;
            failed += f;
        }
    }
    tg_matmul_isa(3);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
