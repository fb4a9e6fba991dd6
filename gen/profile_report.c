/* profile_report.c - the two textual views of a Profile: the terminal summary
 * a person reads and the JSON object other tools read (fields fixed by
 * SPEC.md §6). */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* Peak DMA bandwidth in GB/s (= B/ns): every core's DMA engines, at most the HBM. */
static double dma_peak(const Profile *p) { return p->dma_peak_gbps; }

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

/* Lines ordered by critical-path time, then by total busy time. */
static uint64_t line_busy(const ProfLine *l)
{
    uint64_t b = 0;
    for (int g = 0; g < PROF_NENG; g++)
        b += l->busy_ps[g];
    return b;
}
static int by_time(const void *x, const void *y)
{
    const ProfLine *a = *(const ProfLine *const *)x, *b = *(const ProfLine *const *)y;
    if (a->crit_ps != b->crit_ps)
        return a->crit_ps > b->crit_ps ? -1 : 1;
    uint64_t ba = line_busy(a), bb = line_busy(b);
    if (ba != bb)
        return ba > bb ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

int profile_write_summary(FILE *f, const Profile *p, int top)
{
    uint64_t lat = p->st.latency_ps;
    fprintf(f, "%s on %s: estimated %.3f us (timing model, docs/cost.md)\n", p->kernel, p->tab->name,
            prof_ns(lat) / 1000.0);
    if (p->ncores > 1)
        fprintf(f, "  %d physical cores in parallel on a shared HBM (cores: %d): the latency is the last core's, "
                   "busy time the sum over the cores, util of %d engines of each kind\n",
                p->ncores, p->ncores, p->ncores);
    fprintf(f, "  %-14s %12s %12s %7s\n", "engine", "instructions", "busy us", "util");
    for (int g = 0; g < PROF_NENG; g++)
        fprintf(f, "  %-14s %12llu %12.3f %6.1f%%%s\n", prof_engine_title[g], (unsigned long long)p->insts[g],
                prof_ns(p->busy_ps[g]) / 1000.0, 100.0 * prof_util(p, p->busy_ps[g], lat),
                g == PROF_DMA ? "  (DMAs in flight)" : "");
    for (int c = 0; p->ncores > 1 && c < p->ncores; c++) {
        fprintf(f, "  core %d: done at %.3f us; busy us", c, prof_ns(p->st.core_latency_ps[c]) / 1000.0);
        for (int g = 0; g < PROF_NENG; g++)
            fprintf(f, " %s %.3f (%.1f%%)", prof_engine_key[g], prof_ns(p->core_busy_ps[c][g]) / 1000.0,
                    pct(p->core_busy_ps[c][g], lat));
        fputc('\n', f);
    }
    double secs = (double)lat * 1e-12;
    double gbps = secs > 0 ? (double)p->st.dma_bytes / secs / 1e9 : 0.0;
    fprintf(f, "  DMA: %llu transfers, %.3f MiB, %.1f GB/s achieved of %.0f GB/s peak (%.1f%%); DMA engines busy %.1f%% (mean)\n",
            (unsigned long long)p->st.dma_transfers, (double)p->st.dma_bytes / 1048576.0, gbps, dma_peak(p),
            dma_peak(p) > 0 ? 100.0 * gbps / dma_peak(p) : 0.0, pct(p->dma_engine_busy_ps, lat));
    if (p->ncores > 1)
        fprintf(f, "  DMA peak: %d cores x %u engines x %u B/ns, at most the shared HBM's %u GB/s\n", p->ncores,
                p->tab->dma_engines, p->tab->dma_bytes_per_ns, p->tab->hbm_bytes_per_ns);
    if (p->st.dma_small)
        fprintf(f, "  warning: %llu of %llu DMA transfers move under %u bytes per partition (%.3f MiB): "
                   "overhead-bound, see docs/cost.md\n",
                (unsigned long long)p->st.dma_small, (unsigned long long)p->st.dma_transfers,
                p->tab->dma_small_bytes, (double)p->st.dma_small_bytes / 1048576.0);
    fprintf(f, "  Tensor engine: %.3f GFLOP, HFU %.1f%%\n", (double)p->st.flops / 1e9, 100.0 * p->hfu);
    fprintf(f, "  bottleneck: %s (busy %.1f%% of the run)\n", prof_engine_title[p->bottleneck],
            100.0 * prof_util(p, p->busy_ps[p->bottleneck], lat));
    if (top <= 0 || !p->nlines)
        return ferror(f) ? -1 : 0;
    const ProfLine **order = malloc(p->nlines * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < p->nlines; i++)
        order[i] = &p->lines[i];
    qsort(order, p->nlines, sizeof *order, by_time);
    fprintf(f, "  spec lines by time on the critical path:\n");
    fprintf(f, "  %12s %6s %12s  %s\n", "path us", "path", "busy us", "line");
    for (size_t i = 0; i < p->nlines && (int)i < top; i++) {
        const ProfLine *l = order[i];
        size_t n = 0;
        const char *txt = profile_line_text(p, l->line, &n);
        while (txt && n && (*txt == ' ' || *txt == '\t')) {
            txt++;
            n--;
        }
        if (n > 70)
            n = 70;
        fprintf(f, "  %12.3f %5.1f%% %12.3f  %s:%u  %.*s\n", prof_ns(l->crit_ps) / 1000.0, pct(l->crit_ps, lat),
                prof_ns(line_busy(l)) / 1000.0, p->spec_path, l->line, (int)(txt ? n : 0), txt ? txt : "");
    }
    free(order);
    return ferror(f) ? -1 : 0;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int profile_write_json(FILE *f, const Profile *p)
{
    uint64_t lat = p->st.latency_ps;
    double secs = (double)lat * 1e-12;
    fputs("{\"kernel\": ", f);
    json_str(f, p->kernel);
    fputs(", \"target\": ", f);
    json_str(f, p->tab->name);
    fputs(", \"spec\": ", f);
    json_str(f, p->spec_path);
    fprintf(f, ", \"latency_ns\": %.3f, \"engines\": {", prof_ns(lat));
    for (int g = 0; g < PROF_NENG; g++)
        fprintf(f, "%s\"%s\": {\"busy_ns\": %.3f, \"instructions\": %llu, \"utilization\": %.6f}", g ? ", " : "",
                prof_engine_key[g], prof_ns(p->busy_ps[g]), (unsigned long long)p->insts[g],
                prof_util(p, p->busy_ps[g], lat));
    fprintf(f, "}, \"dma\": {\"bytes\": %llu, \"transfers\": %llu, \"small_transfers\": %llu, "
               "\"small_bytes\": %llu, \"bandwidth_gbps\": %.3f, \"peak_gbps\": %.1f, \"engines_busy_ns\": %.3f}",
            (unsigned long long)p->st.dma_bytes, (unsigned long long)p->st.dma_transfers,
            (unsigned long long)p->st.dma_small, (unsigned long long)p->st.dma_small_bytes,
            secs > 0 ? (double)p->st.dma_bytes / secs / 1e9 : 0.0, dma_peak(p), prof_ns(p->dma_engine_busy_ps));
    /* per physical core (one entry without cores: 2): when it finishes, its engines */
    fputs(", \"cores\": [", f);
    for (int c = 0; c < p->ncores; c++) {
        fprintf(f, "%s{\"core\": %d, \"latency_ns\": %.3f, \"engines\": {", c ? ", " : "", c,
                prof_ns(p->st.core_latency_ps[c]));
        for (int g = 0; g < PROF_NENG; g++)
            fprintf(f, "%s\"%s\": {\"busy_ns\": %.3f, \"instructions\": %llu, \"utilization\": %.6f}", g ? ", " : "",
                    prof_engine_key[g], prof_ns(p->core_busy_ps[c][g]), (unsigned long long)p->core_insts[c][g],
                    lat ? (double)p->core_busy_ps[c][g] / (double)lat : 0.0);
        fputs("}}", f);
    }
    fprintf(f, "], \"hbm_gbps\": %u", p->tab->hbm_bytes_per_ns);
    fprintf(f, ", \"flops\": %llu, \"hfu\": %.6f, \"bottleneck\": \"%s\", \"lines\": [",
            (unsigned long long)p->st.flops, p->hfu, prof_engine_key[p->bottleneck]);
    for (size_t i = 0; i < p->nlines; i++) {
        const ProfLine *l = &p->lines[i];
        fprintf(f, "%s{\"line\": %u, \"ns\": %.3f, \"instructions\": %llu, \"engines\": {", i ? ", " : "", l->line,
                prof_ns(l->crit_ps), (unsigned long long)l->insts);
        for (int g = 0; g < PROF_NENG; g++)
            fprintf(f, "%s\"%s\": %.3f", g ? ", " : "", prof_engine_key[g], prof_ns(l->busy_ps[g]));
        fputs("}}", f);
    }
    fputs("]}\n", f);
    return ferror(f) ? -1 : 0;
}
