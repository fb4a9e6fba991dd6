/* fuzz_exec.h - what the program fuzzers (fuzz_iss.c, fuzz_prog_mut.c) do
 * with a program: fix its size and checksum fields, and when it decodes run
 * it on the ISS and on the timing model (alone, and executing through the
 * ISS) with a small budget, on tensors sized by its table. A program the
 * decoder accepts must never crash, leak or hit UB there (docs/iss.md). */
#ifndef FUZZ_EXEC_H
#define FUZZ_EXEC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tg_cost.h"
#include "tg_iss.h"
#include "tg_prog.h"

enum {
    FZ_MAX_TENSOR_BYTES = 4 << 20, /* all tensors together; larger programs only decode and time */
    FZ_BUDGET = 256,               /* instructions + loop iterations per run */
    FZ_ELEMS = 1 << 24,            /* element operations per run, over the budget's instructions */
};

/* Size and checksum fields fixed up in place (n >= header). */
static void fz_seal(uint8_t *b, size_t n)
{
    uint32_t v = (uint32_t)n, h;
    for (int i = 0; i < 4; i++)
        b[8 + i] = (uint8_t)(v >> (8 * i));
    h = tg_prog_checksum(b, n);
    for (int i = 0; i < 4; i++)
        b[12 + i] = (uint8_t)(h >> (8 * i));
}

/* Elements one instruction can touch at most: the contract bounds a row by
 * its tile's slot or its tensor (docs/iss.md); 128 rows, a few operands. */
static uint64_t fz_inst_elems(const tg_prog *p, uint64_t tensor_elems)
{
    uint64_t m = 1;
    for (uint32_t i = 0; i < p->ntiles; i++) {
        tg_prog_tile t;
        tg_prog_get_tile(p, i, &t);
        if (t.slot > m)
            m = t.slot;
    }
    if (tensor_elems > m)
        m = tensor_elems;
    return m * TG_PARTITIONS * 4;
}

/* Storage any program fits (~32 MB each): initialised once (values do not matter). */
static tg_storage_unit fz_mem[TG_TARGET_COUNT][TG_CORE_BYTES_MAX / 8 + 1];
static tg_core fz_core[TG_TARGET_COUNT];
static int fz_core_ready[TG_TARGET_COUNT];
static tg_cost_state fz_scratch;

/* Decode `n` bytes at b; if valid, execute as above. */
static void fz_run(const uint8_t *b, size_t n)
{
    tg_prog p;
    if (tg_prog_decode(&p, b, n))
        return;
    (void)tg_iss_work(&p);
    tg_cost_stats cs;
    memset(&cs, 0, sizeof cs);
    cs.limit = FZ_BUDGET;
    (void)tg_cost_run(b, n, NULL, &fz_scratch, &cs);

    void *t[256];
    size_t total = 0;
    uint64_t most = 0;
    uint32_t k = 0;
    for (; k < p.ntensors; k++) {
        tg_prog_tensor d;
        tg_prog_get_tensor(&p, k, &d);
        uint64_t elems = 1;
        for (uint32_t r = 0; r < d.rank; r++)
            elems *= d.shape[r];
        uint64_t bytes = elems * tg_dtype_size(d.dtype);
        if (bytes > FZ_MAX_TENSOR_BYTES - total)
            break;
        total += (size_t)bytes;
        most = elems > most ? elems : most;
        t[k] = malloc((size_t)bytes);
        if (!t[k])
            break;
        memset(t[k], 0x3c, (size_t)bytes);
    }
    if (k == p.ntensors) {
        if (!fz_core_ready[p.target]) {
            tg_core_init_storage(&fz_core[p.target], p.target, fz_mem[p.target], sizeof fz_mem[p.target]);
            fz_core_ready[p.target] = 1;
        }
        uint64_t per = fz_inst_elems(&p, most), limit = FZ_ELEMS / per;
        limit = limit < 1 ? 1 : limit > FZ_BUDGET ? FZ_BUDGET : limit;
        tg_iss_stats st;
        memset(&st, 0, sizeof st);
        st.limit = limit;
        (void)tg_iss_exec(&fz_core[p.target], b, n, t, &st);
        tg_cost_opts o;
        memset(&o, 0, sizeof o);
        o.core = &fz_core[p.target];
        o.tensors = t;
        memset(&cs, 0, sizeof cs);
        cs.limit = limit;
        (void)tg_cost_run(b, n, &o, &fz_scratch, &cs);
    }
    for (uint32_t i = 0; i < k; i++)
        free(t[i]);
}

/* A fuzzer's input: a copy sealed (size, checksum) and run. */
static int fz_test_one(const uint8_t *data, size_t size)
{
    if (size < TG_ISA_HEADER_BYTES)
        return 0;
    uint8_t *b = malloc(size);
    if (!b)
        return 0;
    memcpy(b, data, size);
    fz_seal(b, size);
    fz_run(b, size);
    free(b);
    return 0;
}

#endif /* FUZZ_EXEC_H */
