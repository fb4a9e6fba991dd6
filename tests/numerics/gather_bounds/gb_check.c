/* gb_check.c - hostile indices of indirect DMAs (SPEC.md §2.1) in the C
 * simulation and the ISS, on gb.yaml: negative, past the end, 2^31 and
 * 0xFFFFFFFF (uint32), an element index past its row that still lies inside
 * the tensor, a scatter row past the end. Each case must return TG_EBOUNDS
 * from both back ends, with the outputs of the DMAs before the failing one
 * written, nothing of it or after it, the same bytes from both, and nothing
 * outside any tensor touched: every tensor sits between guard zones that
 * must keep their bytes (and that AddressSanitizer poisons, so a read there
 * fails too). In-range indices must give TG_OK and the gathered values.
 * Prints "N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb.h"
#include "tg_iss.h"
#include "tg_runtime.h"

#if defined(__SANITIZE_ADDRESS__)
#define GB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GB_ASAN 1
#endif
#endif
#ifdef GB_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

enum { V = 10, D = 8, P = 16, C = 5, NT = 12, GUARD = 4096, FILL = 0x5a, GUARD_BYTE = 0xa5 };

/* Tensor t (gb.c's order: x lg a b c d e y ye z w1 w2): bytes, and where. */
static const size_t bytes[NT] = {V * D * 4, P * C * 4, P * 4, P * 4, P, P * 2, P * 4, 3 * P * D * 4, P * 4, V * D * 4,
                                 P * D * 4, P * D * 4};
static uint8_t *block[NT];
static void *tens[NT];

static int pass, fail;

static void check(int ok, const char *what)
{
    printf("[%s] %s\n", ok ? "       OK " : "  FAILED  ", what);
    ok ? pass++ : fail++;
}

static uint8_t *guard_of(int t, int after) { return block[t] + (after ? GUARD + bytes[t] : 0); }

static int guards_intact(void)
{
    int ok = 1;
    for (int t = 0; t < NT; t++)
        for (int g = 0; g < 2; g++) {
            uint8_t *p = guard_of(t, g);
            UNPOISON(p, GUARD);
            for (int i = 0; i < GUARD; i++)
                ok &= p[i] == GUARD_BYTE;
            POISON(p, GUARD);
        }
    return ok;
}

/* In-range inputs (deterministic), outputs filled with FILL. */
static void reset(void)
{
    float *x = tens[0], *lg = tens[1];
    int32_t *a = tens[2], *e = tens[6];
    uint32_t *b = tens[3];
    int8_t *c = tens[4];
    int16_t *d = tens[5];
    for (int i = 0; i < V * D; i++)
        x[i] = (float)(i + 1);
    for (int i = 0; i < P * C; i++)
        lg[i] = (float)(1000 + i);
    for (int p = 0; p < P; p++) {
        a[p] = (p * 3) % V;
        b[p] = (uint32_t)(V - 1 - p % V);
        c[p] = (int8_t)(p % V);
        d[p] = (int16_t)(p % C);
        e[p] = p % V;
    }
    for (int t = 7; t < NT; t++)
        memset(tens[t], FILL, bytes[t]);
}

static int untouched(int t)
{
    const uint8_t *p = tens[t];
    for (size_t i = 0; i < bytes[t]; i++)
        if (p[i] != FILL)
            return 0;
    return 1;
}

/* y[k] untouched (1), or y[k] = x rows of index column col (0 else). */
static int y_block(int k, int written, const int64_t *rows)
{
    const float *y = (const float *)tens[7] + k * P * D, *x = tens[0];
    if (!written) {
        const uint8_t *q = (const uint8_t *)y;
        for (size_t i = 0; i < (size_t)P * D * 4; i++)
            if (q[i] != FILL)
                return 0;
        return 1;
    }
    for (int p = 0; p < P; p++)
        if (memcmp(y + p * D, x + rows[p] * D, D * 4))
            return 0;
    return 1;
}

TG_CORE_STATIC(core, GB_CORE_BYTES);

/* Run one back end on the current inputs; its outputs into out[]. */
static int run(int iss, uint8_t *out)
{
    int rc = iss ? tg_iss_run(&core, &gb_kernel, tens) : gb_kernel.run(&core, tens);
    size_t off = 0;
    for (int t = 7; t < NT; t++) {
        memcpy(out + off, tens[t], bytes[t]);
        off += bytes[t];
        memset(tens[t], FILL, bytes[t]);
    }
    return rc;
}

typedef struct Case {
    const char *what;
    int tensor, p;   /* the index tensor and partition made hostile */
    int64_t value;   /* stored as that tensor's dtype */
    int stops;       /* outputs the DMAs before it write: 0 none, 1 y[0], 2 y[0..1], 3 y[0..2], 4 + ye */
} Case;

static void poke(int t, int p, int64_t v)
{
    switch (t) {
    case 2: case 6: ((int32_t *)tens[t])[p] = (int32_t)v; break;
    case 3: ((uint32_t *)tens[t])[p] = (uint32_t)v; break;
    case 4: ((int8_t *)tens[t])[p] = (int8_t)v; break;
    default: ((int16_t *)tens[t])[p] = (int16_t)v; break;
    }
}

int main(void)
{
    for (int t = 0; t < NT; t++) {
        block[t] = malloc(bytes[t] + 2 * GUARD);
        if (!block[t])
            return 2;
        memset(block[t], GUARD_BYTE, bytes[t] + 2 * GUARD);
        tens[t] = block[t] + GUARD;
        POISON(guard_of(t, 0), GUARD);
        POISON(guard_of(t, 1), GUARD);
    }
    size_t nout = 0;
    for (int t = 7; t < NT; t++)
        nout += bytes[t];
    uint8_t *oc = malloc(nout), *oi = malloc(nout);
    if (!oc || !oi || tg_core_init(&core, TG_TRN1) != TG_OK)
        return 2;

    /* in range: TG_OK, the gathered values, the same bytes from both */
    reset();
    int rc = gb_kernel.run(&core, tens);
    int64_t ra[P], rb[P], rcc[P];
    for (int p = 0; p < P; p++) {
        ra[p] = ((int32_t *)tens[2])[p];
        rb[p] = ((uint32_t *)tens[3])[p];
        rcc[p] = ((int8_t *)tens[4])[p];
    }
    int vals = rc == TG_OK && y_block(0, 1, ra) && y_block(1, 1, rb) && y_block(2, 1, rcc);
    for (int p = 0; p < P; p++) {
        vals &= ((float *)tens[8])[p] == ((float *)tens[1])[p * C + p % C];
        for (int j = 0; j < D; j++) /* w1 = 2·x[a], w2 = x[b] + 1 */
            vals &= ((float *)tens[10])[p * D + j] == 2.0f * ((float *)tens[0])[ra[p] * D + j] &&
                    ((float *)tens[11])[p * D + j] == ((float *)tens[0])[rb[p] * D + j] + 1.0f;
    }
    check(vals, "in-range indices: TG_OK, every gather's rows and elements, w1 and w2");
    reset();
    int r1 = run(0, oc), r2 = run(1, oi);
    check(r1 == TG_OK && r2 == TG_OK && !memcmp(oc, oi, nout), "in-range indices: C simulation and ISS agree");

    static const Case cases[] = {
        {"int32 row index -1", 2, 3, -1, 0},
        {"int32 row index V (past the end)", 2, 15, V, 0},
        {"int32 row index INT32_MIN", 2, 0, INT32_MIN, 0},
        {"uint32 row index 2^31", 3, 5, (int64_t)1 << 31, 1},
        {"uint32 row index 0xFFFFFFFF", 3, 0, 0xFFFFFFFFll, 1},
        {"uint32 row index V", 3, 15, V, 1},
        {"int8 row index -128", 4, 2, -128, 2},
        {"int8 row index 127", 4, 7, 127, 2},
        {"int16 element index C (inside the tensor, past its row)", 5, 4, C, 3},
        {"int16 element index -1 (inside the tensor, before its row)", 5, 15, -1, 3},
        {"int32 scatter row V", 6, 1, V, 4},
        {"int32 scatter row 2^31 - 1", 6, 9, INT32_MAX, 4},
        {"int32 scatter row -1 on the last partition", 6, 15, -1, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const Case *k = &cases[i];
        char what[160];
        reset();
        poke(k->tensor, k->p, k->value);
        int64_t ra2[P], rb2[P];
        for (int p = 0; p < P; p++) {
            ra2[p] = ((int32_t *)tens[2])[p];
            rb2[p] = ((uint32_t *)tens[3])[p];
        }
        rc = gb_kernel.run(&core, tens);
        int ok = rc == TG_EBOUNDS && y_block(0, k->stops >= 1, ra2) && y_block(1, k->stops >= 2, rb2) &&
                 y_block(2, k->stops >= 3, rcc) && (k->stops >= 4 ? !untouched(8) : untouched(8)) && untouched(9) &&
                 /* w1 and w2 are stored after the uint32 gather (w1's writer runs before it) */
                 (k->stops >= 2 ? !untouched(10) && !untouched(11) : untouched(10) && untouched(11));
        snprintf(what, sizeof what, "%s: TG_EBOUNDS, the outputs before it written, nothing of it or after", k->what);
        check(ok, what);
        reset();
        poke(k->tensor, k->p, k->value);
        r1 = run(0, oc);
        r2 = run(1, oi);
        snprintf(what, sizeof what, "%s: the ISS returns TG_EBOUNDS with the same output bytes", k->what);
        check(r1 == TG_EBOUNDS && r2 == TG_EBOUNDS && !memcmp(oc, oi, nout), what);
    }
    check(guards_intact(), "no byte outside any tensor written");
    for (int t = 0; t < NT; t++) {
        UNPOISON(block[t], bytes[t] + 2 * GUARD);
        free(block[t]);
    }
    free(oc);
    free(oi);
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
