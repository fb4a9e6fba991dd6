/* profile_trace.c - a Profile as Chrome/Perfetto trace-event JSON (the "JSON
 * Array/Object Format" ui.perfetto.dev and chrome://tracing read): one
 * process per physical core (pid 1 + core: two with cores: 2), in each one
 * track (thread) per engine, per DMA queue
 * and per DMA engine; one complete ("X") slice per instruction, semaphore
 * wait and DMA-engine transfer with its spec line in args; a flow ("s"/"f")
 * from each blocking wait's signalling instruction to the wait. Timestamps
 * are microseconds with nanosecond precision, as the format wants. */
#include <string.h>

#include "profile.h"
#include "tg_prog.h"

/* Track ids: engines 1..4 (PE, ACT, DVE, POOL), DMA queue q 100+q, DMA
 * engine e 200+e. */
static int track_of(const tg_cost_event *e)
{
    if (e->kind == TG_COST_XFER)
        return 200 + e->unit;
    int g = prof_engine_of_stream(e->stream);
    if (g == PROF_DMA)
        return 100 + (e->stream - TG_ENG_COUNT);
    return 1 + g;
}

static const char *op_name(uint16_t op)
{
    return op < TG_OP_COUNT ? tg_isa_table[op].mnemonic : "?";
}

/* The process of an event: its physical core. */
static int pid_of(const tg_cost_event *e) { return 1 + e->core; }

static void meta(FILE *f, int pid, int tid, const char *name, int sort, int *first)
{
    fprintf(f, "%s{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_name\", \"args\": {\"name\": \"%s\"}}",
            *first ? "" : ",\n", pid, tid, name);
    fprintf(f, ",\n{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_sort_index\", \"args\": "
               "{\"sort_index\": %d}}",
            pid, tid, sort);
    *first = 0;
}

int profile_write_trace(FILE *f, const Profile *p)
{
    int used[TG_ISA_MAX_CORES][300];
    memset(used, 0, sizeof used);
    for (size_t i = 0; i < p->nev; i++)
        used[p->ev[i].core][track_of(&p->ev[i])] = 1;
    fputs("{\"displayTimeUnit\": \"ns\", \"otherData\": {\"kernel\": \"", f);
    fputs(p->kernel, f);
    fprintf(f, "\", \"target\": \"%s\", \"model\": \"tilegen timing model (docs/cost.md)\"}, \"traceEvents\": [\n",
            p->tab->name);
    int first = 1;
    for (int c = 0; c < p->ncores; c++) {
        if (p->ncores > 1)
            fprintf(f, "%s{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": "
                       "\"NeuronCore %s, physical core %d of %d: %s\"}}",
                    c ? ",\n" : "", 1 + c, p->tab->name, c, p->ncores, p->kernel);
        else
            fprintf(f, "{\"ph\": \"M\", \"pid\": 1, \"name\": \"process_name\", \"args\": {\"name\": "
                       "\"NeuronCore %s: %s\"}}",
                    p->tab->name, p->kernel);
        fprintf(f, ",\n{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_sort_index\", \"args\": {\"sort_index\": %d}}",
                1 + c, c);
        first = 0;
        for (int g = 0; g < PROF_DMA; g++)
            if (used[c][1 + g])
                meta(f, 1 + c, 1 + g, prof_engine_title[g], g, &first);
        char name[32];
        for (int q = 0; q < TG_DMA_QUEUES; q++)
            if (used[c][100 + q]) {
                snprintf(name, sizeof name, "DMA queue %d", q);
                meta(f, 1 + c, 100 + q, name, 10 + q, &first);
            }
        for (int e = 0; e < TG_DMA_QUEUES; e++)
            if (used[c][200 + e]) {
                snprintf(name, sizeof name, "DMA-E%d", e);
                meta(f, 1 + c, 200 + e, name, 40 + e, &first);
            }
    }
    for (size_t i = 0; i < p->nev; i++) {
        const tg_cost_event *e = &p->ev[i];
        const char *cat = e->kind == TG_COST_WAIT ? "wait" : e->kind == TG_COST_XFER ? "dma-transfer" : "instruction";
        int tid = track_of(e), async = tid >= 100 && tid < 200; /* DMAs of one queue overlap in flight */
        if (async)
            fprintf(f, ",\n{\"ph\": \"b\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"id\": %llu, \"name\": \"%s\", "
                       "\"cat\": \"dma-queue-%d\", \"args\": {\"line\": %u, \"pc\": %u, \"id\": %llu",
                    pid_of(e), tid, prof_ns(e->start_ps) / 1000.0, (unsigned long long)e->id, op_name(e->op), tid - 100, e->line,
                    e->pc, (unsigned long long)e->id);
        else
            fprintf(f, ",\n{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"name\": \"%s%s\", "
                       "\"cat\": \"%s\", \"args\": {\"line\": %u, \"pc\": %u, \"id\": %llu",
                    pid_of(e), tid, prof_ns(e->start_ps) / 1000.0, prof_ns(e->end_ps - e->start_ps) / 1000.0,
                    e->kind == TG_COST_WAIT ? "blocked " : "", op_name(e->op), cat, e->line, e->pc,
                    (unsigned long long)e->id);
        if (e->bytes)
            fprintf(f, ", \"bytes\": %llu, \"bytes_per_partition\": %u", (unsigned long long)e->bytes, e->row_bytes);
        if (e->flops)
            fprintf(f, ", \"flops\": %llu", (unsigned long long)e->flops);
        if (e->kind == TG_COST_WAIT)
            fprintf(f, ", \"semaphore\": %u", e->sem);
        fputs("}}", f);
        if (async)
            fprintf(f, ",\n{\"ph\": \"e\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"id\": %llu, \"name\": \"%s\", "
                       "\"cat\": \"dma-queue-%d\"}",
                    pid_of(e), tid, prof_ns(e->end_ps) / 1000.0, (unsigned long long)e->id, op_name(e->op), tid - 100);
        if (e->kind == TG_COST_WAIT && e->cause && e->cause <= p->nev) {
            const tg_cost_event *src = &p->ev[e->cause - 1];
            fprintf(f, ",\n{\"ph\": \"s\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"id\": %llu, \"name\": \"semaphore\", "
                       "\"cat\": \"semaphore\"}",
                    pid_of(src), track_of(src), prof_ns(src->end_ps > src->start_ps ? src->end_ps - 1 : src->end_ps) / 1000.0,
                    (unsigned long long)e->id);
            fprintf(f, ",\n{\"ph\": \"f\", \"bp\": \"e\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"id\": %llu, "
                       "\"name\": \"semaphore\", \"cat\": \"semaphore\"}",
                    pid_of(e), track_of(e), prof_ns(e->end_ps) / 1000.0, (unsigned long long)e->id);
        }
    }
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}
