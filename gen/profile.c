/* profile.c - runs the timing model for `tilegen profile` and derives the
 * views' figures from its events: busy time per engine, the union of DMA
 * activity, HFU, the bottleneck, the critical path (walked back from the last
 * event along each event's cause) and the per-line table. */
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "tg_iss.h"
#include "tg_prog.h"

const char *const prof_engine_key[PROF_NENG] = {"pe", "act", "dve", "pool", "dma"};
const char *const prof_engine_title[PROF_NENG] = {"Tensor (PE)", "Scalar (ACT)", "Vector (DVE)", "GpSimd (POOL)",
                                                  "DMA"};

int prof_engine_of_stream(int stream)
{
    switch (stream) {
    case TG_ENG_PE: return PROF_PE;
    case TG_ENG_ACT: return PROF_ACT;
    case TG_ENG_DVE: return PROF_DVE;
    case TG_ENG_POOL: return PROF_POOL;
    default: return stream >= TG_ENG_COUNT && stream < TG_COST_STREAMS ? PROF_DMA : -1;
    }
}

static void sink(void *user, const tg_cost_event *ev)
{
    Profile *p = user;
    if (p->oom)
        return;
    if (p->nev == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 4096;
        tg_cost_event *ne = realloc(p->ev, nc * sizeof *ne);
        if (!ne) {
            p->oom = 1;
            return;
        }
        p->ev = ne;
        p->cap = nc;
    }
    p->ev[p->nev++] = *ev;
}

/* Length of the union of [start, end) intervals (sorted by start in place). */
typedef struct Span { uint64_t a, b; } Span;
static int span_cmp(const void *x, const void *y)
{
    const Span *s = x, *t = y;
    return s->a < t->a ? -1 : s->a > t->a;
}
static uint64_t union_ps(Span *s, size_t n)
{
    qsort(s, n, sizeof *s, span_cmp);
    uint64_t total = 0, cur_a = 0, cur_b = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || s[i].a > cur_b) {
            total += cur_b - cur_a;
            cur_a = s[i].a;
            cur_b = s[i].b;
        } else if (s[i].b > cur_b) {
            cur_b = s[i].b;
        }
    }
    return n ? total + (cur_b - cur_a) : 0;
}

static int line_cmp(const void *x, const void *y)
{
    const ProfLine *a = x, *b = y;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* Per-engine figures, DMA unions, HFU and the bottleneck. */
static int derive_engines(Profile *p)
{
    Span *q = malloc((p->nev ? p->nev : 1) * sizeof *q);
    if (!q)
        return -1;
    p->ncores = (int)(p->st.ncores ? p->st.ncores : 1);
    for (int c = 0; c < p->ncores; c++) { /* each core's DMAs in flight: their own union */
        size_t nq = 0;
        for (size_t i = 0; i < p->nev; i++) {
            const tg_cost_event *e = &p->ev[i];
            int g = prof_engine_of_stream(e->stream);
            if (g < 0 || e->core != c || e->kind != TG_COST_INST)
                continue;
            if (g == PROF_DMA)
                q[nq++] = (Span){e->start_ps, e->end_ps};
            else
                p->core_busy_ps[c][g] += e->end_ps - e->start_ps;
        }
        p->core_busy_ps[c][PROF_DMA] = union_ps(q, nq);
        for (int g = 0; g < PROF_NENG; g++)
            p->busy_ps[g] += p->core_busy_ps[c][g];
        for (int s = 0; s < TG_COST_STREAMS; s++)
            if (prof_engine_of_stream(s) >= 0)
                p->core_insts[c][prof_engine_of_stream(s)] += p->st.core_insts[c][s];
    }
    free(q);
    uint64_t sum = 0;
    for (int e = 0; e < TG_DMA_QUEUES; e++)
        sum += p->st.dma_engine_ps[e];
    p->dma_engine_busy_ps = p->tab->dma_engines ? sum / ((uint64_t)p->tab->dma_engines * (uint64_t)p->ncores) : 0;
    for (int s = 0; s < TG_COST_STREAMS; s++) {
        int g = prof_engine_of_stream(s);
        if (g >= 0)
            p->insts[g] += p->st.insts[s];
    }
    double engines = (double)p->ncores * p->tab->dma_engines * p->tab->dma_bytes_per_ns;
    p->dma_peak_gbps = engines < (double)p->tab->hbm_bytes_per_ns ? engines : (double)p->tab->hbm_bytes_per_ns;
    double peak = (double)p->ncores * p->tab->pe_peak_flops_per_cycle * p->tab->mhz[TG_ENG_PE] * 1e6; /* FLOP/s */
    double secs = (double)p->st.latency_ps * 1e-12;
    p->hfu = secs > 0 ? (double)p->st.hw_flops / (secs * peak) : 0.0;
    p->bottleneck = PROF_PE;
    for (int g = 0; g < PROF_NENG; g++)
        if (p->busy_ps[g] > p->busy_ps[p->bottleneck])
            p->bottleneck = g;
    return 0;
}

/* Mark the critical path: from the event that ends last, follow causes; an
 * event without a cause continues through the previous instruction of its
 * stream (in-order queues). Then fill the per-line table. */
static int derive_lines(Profile *p)
{
    p->crit = calloc(p->nev ? p->nev : 1, 1);
    uint32_t maxline = 0;
    for (size_t i = 0; i < p->nev; i++)
        maxline = p->ev[i].line > maxline ? p->ev[i].line : maxline;
    ProfLine *by = calloc((size_t)maxline + 1, sizeof *by);
    size_t *prev = malloc((p->nev ? p->nev : 1) * sizeof *prev);
    uint64_t *cover = calloc(((size_t)maxline + 1) * TG_ISA_MAX_CORES, sizeof *cover); /* per core and line */
    if (!p->crit || !by || !prev || !cover) {
        free(by);
        free(prev);
        free(cover);
        return -1;
    }
    /* previous INST/WAIT event of the same stream of the same core, SIZE_MAX when none */
    size_t last[TG_ISA_MAX_CORES][TG_COST_STREAMS];
    for (int c = 0; c < TG_ISA_MAX_CORES; c++)
        for (int s = 0; s < TG_COST_STREAMS; s++)
            last[c][s] = (size_t)-1;
    size_t end = (size_t)-1;
    for (size_t i = 0; i < p->nev; i++) {
        const tg_cost_event *e = &p->ev[i];
        prev[i] = (size_t)-1;
        if (e->kind != TG_COST_XFER) {
            prev[i] = last[e->core][e->stream];
            last[e->core][e->stream] = i;
        }
        if (end == (size_t)-1 || e->end_ps > p->ev[end].end_ps)
            end = i;
    }
    for (size_t i = end; i != (size_t)-1;) {
        if (p->crit[i])
            break;
        p->crit[i] = 1;
        const tg_cost_event *e = &p->ev[i];
        size_t next = e->cause ? (size_t)(e->cause - 1) : prev[i];
        prev[i] = next; /* from here on: the event before i on the path */
        if (next != (size_t)-1 && next >= i)
            break; /* causes point backwards; stop on anything else */
        i = next;
    }
    for (size_t i = 0; i < p->nev; i++) {
        const tg_cost_event *e = &p->ev[i];
        ProfLine *l = &by[e->line];
        int g = prof_engine_of_stream(e->stream);
        l->line = e->line;
        if (e->kind == TG_COST_INST && g == PROF_DMA) {
            /* DMA: the union of the line's DMAs in flight on each core, as
             * the engine table counts it (a line's DMAs issue in order on its queue) */
            l->insts++;
            uint64_t *cv = &cover[(size_t)e->core * ((size_t)maxline + 1) + e->line];
            uint64_t from = e->start_ps > *cv ? e->start_ps : *cv;
            if (e->end_ps > from)
                l->busy_ps[g] += e->end_ps - from;
            if (e->end_ps > *cv)
                *cv = e->end_ps;
        } else if (e->kind == TG_COST_INST) {
            l->insts++;
            if (g >= 0)
                l->busy_ps[g] += e->end_ps - e->start_ps;
        }
        if (p->crit[i]) {
            /* the part of the path this event accounts for: from its start or the end of
             * the event before it on the path (its cause, or the previous one of its
             * stream, which may still be in flight: DMA transfers overlap) */
            uint64_t from = e->start_ps;
            if (prev[i] < i && p->ev[prev[i]].end_ps > from)
                from = p->ev[prev[i]].end_ps;
            l->crit_ps += e->end_ps > from ? e->end_ps - from : 0;
        }
    }
    size_t n = 0;
    for (uint32_t k = 0; k <= maxline; k++)
        if (by[k].insts || by[k].crit_ps)
            by[n++] = by[k];
    qsort(by, n, sizeof *by, line_cmp);
    p->lines = by;
    p->nlines = n;
    free(prev);
    free(cover);
    return 0;
}

int profile_run(Profile *p, const uint8_t *prog, size_t len, int execute, int transfers, uint64_t limit, char *msg,
                size_t msgsize)
{
    tg_prog dec;
    if (tg_prog_decode(&dec, prog, len)) {
        snprintf(msg, msgsize, "the assembled program does not decode");
        return TG_EPROGRAM;
    }
    p->kernel = tg_prog_str(&dec, dec.kernel);
    p->spec_path = tg_prog_str(&dec, dec.spec);
    p->tab = tg_cost_table_of(dec.target);
    tg_cost_state *scratch = malloc(sizeof *scratch);
    tg_core *core = execute ? malloc(sizeof *core) : NULL;
    size_t mem_bytes = tg_iss_core_bytes(&dec); /* the program's SBUF/PSUM rows and PE staging */
    void *mem = execute ? malloc(mem_bytes) : NULL;
    void **tensors = execute ? calloc(dec.npublic ? dec.npublic : 1, sizeof *tensors) : NULL; /* views alias */
    int rc = TG_EINVAL;
    if (!scratch || (execute && (!core || !mem || !tensors))) {
        snprintf(msg, msgsize, "out of memory");
        goto out;
    }
    tg_cost_opts opts = {NULL, NULL, sink, p, transfers};
    if (execute) {
        for (uint32_t i = 0; i < dec.npublic; i++) {
            tg_prog_tensor t;
            tg_prog_get_tensor(&dec, i, &t);
            size_t n = tg_dtype_size(t.dtype);
            for (uint32_t d = 0; d < t.rank; d++)
                n *= t.shape[d];
            if (!(tensors[i] = calloc(n ? n : 1, 1))) {
                snprintf(msg, msgsize, "out of memory for tensor '%s'", t.name);
                goto out;
            }
        }
        tg_core_init_storage(core, dec.target, mem, mem_bytes);
        opts.core = core;
        opts.tensors = (void *const *)tensors;
    }
    p->work = tg_iss_work(&dec);
    p->limit = limit;
    if (!limit && p->work > TG_ISS_DEFAULT_CAP) { /* the ISS's default budget, refused up front */
        snprintf(msg, msgsize, "the run exceeds the default budget");
        rc = TG_ELIMIT;
        goto out;
    }
    p->st.limit = limit ? limit : p->work ? p->work : 1;
    rc = tg_cost_run(prog, len, &opts, scratch, &p->st);
    if (rc) {
        snprintf(msg, msgsize, "the timing model stopped at instruction %u: error %d", p->st.fault_pc, rc);
        goto out;
    }
    if (p->oom || derive_engines(p) || derive_lines(p)) {
        snprintf(msg, msgsize, "out of memory");
        rc = TG_EINVAL;
    }
out:
    for (uint32_t i = 0; tensors && i < dec.npublic; i++)
        free(tensors[i]);
    free(tensors);
    free(core);
    free(mem);
    free(scratch);
    return rc;
}

void profile_free(Profile *p)
{
    free(p->ev);
    free(p->crit);
    free(p->lines);
    memset(p, 0, sizeof *p);
}

const char *profile_line_text(const Profile *p, uint32_t line, size_t *len)
{
    if (!p->spec_text || line == 0)
        return NULL;
    const char *s = p->spec_text, *e = s + p->spec_len;
    for (uint32_t k = 1; k < line && s < e; k++) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        if (!nl)
            return NULL;
        s = nl + 1;
    }
    if (s >= e)
        return NULL;
    const char *nl = memchr(s, '\n', (size_t)(e - s));
    *len = (size_t)((nl ? nl : e) - s);
    return s;
}
