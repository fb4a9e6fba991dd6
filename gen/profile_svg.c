/* profile_svg.c - a Profile as one self-contained SVG timeline: a row per
 * engine, per DMA queue and per DMA engine of each physical core (their
 * labels name the core with cores: 2), a rectangle per instruction
 * coloured by kind, its tooltip (<title>) naming the op, the spec line and
 * its text, start and duration. Adjacent events of a row narrower than a
 * pixel are merged into rectangles of a few pixels shown by their longest
 * event (the tooltip says how many), so a kernel of a million instructions
 * stays a picture a browser opens. */
#include <string.h>

#include "profile.h"
#include "tg_prog.h"

enum { SVG_MAX_XFERS = 20000, SVG_W = 1600, SVG_LEFT = 150, SVG_RIGHT = 20, SVG_ROW = 22, SVG_TOP = 60, SVG_CROWS = 4 + 2 * TG_DMA_QUEUES,
       SVG_NROWS = TG_ISA_MAX_CORES * SVG_CROWS };

/* Row of an event: per physical core, engines 0..3, DMA queues 4.., DMA
 * engines after them; core c's rows after core c-1's. */
static int row_of(const tg_cost_event *e)
{
    int base = e->core * SVG_CROWS;
    if (e->kind == TG_COST_XFER)
        return base + 4 + TG_DMA_QUEUES + e->unit;
    int g = prof_engine_of_stream(e->stream);
    return base + (g == PROF_DMA ? 4 + (e->stream - TG_ENG_COUNT) : g);
}

/* Colour by op kind. */
static const char *colour(const tg_cost_event *e)
{
    if (e->kind == TG_COST_WAIT)
        return "#c8c8c8";
    switch (e->op) {
    case TG_OP_MATMUL: return "#1f77b4";
    case TG_OP_TRANSPOSE: return "#9ecae1";
    case TG_OP_ACTIVATION: return "#ff7f0e";
    case TG_OP_LOAD: return "#17becf";
    case TG_OP_STORE: return "#8c564b";
    case TG_OP_DMA_COPY: return "#bcbd22";
    case TG_OP_IOTA:
    case TG_OP_AFFINE_SELECT:
    case TG_OP_PARTITION_REDUCE: return "#9467bd";
    default: return "#2ca02c"; /* Vector engine */
    }
}

static void xml_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        char c = s[i];
        if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '&')
            fputs("&amp;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if ((unsigned char)c >= 0x20 || c == '\t')
            fputc(c, f);
    }
}

/* An open rectangle of one row. */
typedef struct Box {
    int open;
    double x0, x1;
    const tg_cost_event *e; /* shown: the longest event of the kind with most time */
    const tg_cost_event *longest[2]; /* longest work / wait event merged */
    uint64_t time[2];       /* time of work / of waits merged */
    uint64_t n;             /* events merged */
    uint64_t t0, t1;
} Box;

static void box_add(Box *b, const tg_cost_event *e)
{
    int k = e->kind == TG_COST_WAIT;
    uint64_t d = e->end_ps - e->start_ps;
    b->time[k] += d;
    if (!b->longest[k] || d > b->longest[k]->end_ps - b->longest[k]->start_ps)
        b->longest[k] = e;
    b->e = b->longest[b->time[1] > b->time[0] ? 1 : 0];
    if (!b->e)
        b->e = e;
}

static void flush(FILE *f, const Profile *p, Box *b, int row)
{
    if (!b->open)
        return;
    double y = SVG_TOP + row * SVG_ROW;
    double w = b->x1 - b->x0 < 0.5 ? 0.5 : b->x1 - b->x0;
    fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", b->x0, y + 2, w,
            SVG_ROW - 4, colour(b->e));
    const tg_cost_event *e = b->e;
    fprintf(f, "%s%s, %s:%u", e->kind == TG_COST_WAIT ? "blocked " : "",
            e->op < TG_OP_COUNT ? tg_isa_table[e->op].mnemonic : "?", p->spec_path, e->line);
    size_t n = 0;
    const char *txt = profile_line_text(p, e->line, &n);
    while (txt && n && (*txt == ' ' || *txt == '\t')) {
        txt++;
        n--;
    }
    if (txt) {
        fputs("\n", f);
        xml_text(f, txt, n > 120 ? 120 : n);
    }
    fprintf(f, "\nstart %.3f us, %s %.3f us", prof_ns(b->t0) / 1000.0, b->n > 1 ? "span" : "duration",
            prof_ns(b->t1 - b->t0) / 1000.0);
    if (b->n > 1)
        fprintf(f, " (%llu events merged)", (unsigned long long)b->n);
    if (e->bytes)
        fprintf(f, "\n%llu bytes, %u per partition", (unsigned long long)e->bytes, e->row_bytes);
    fputs("</title></rect>\n", f);
    b->open = 0;
}

int profile_write_svg(FILE *f, const Profile *p)
{
    int used[SVG_NROWS], y_of[SVG_NROWS], nrows = 0;
    memset(used, 0, sizeof used);
    size_t nxfer = 0;
    for (size_t i = 0; i < p->nev; i++)
        nxfer += p->ev[i].kind == TG_COST_XFER;
    /* a long run's 16 DMA-engine rows repeat the DMA queue rows at picture
     * scale: the trace keeps them, the picture drops them */
    int engines = nxfer <= SVG_MAX_XFERS;
    for (size_t i = 0; i < p->nev; i++)
        if (engines || p->ev[i].kind != TG_COST_XFER)
            used[row_of(&p->ev[i])] = 1;
    for (int r = 0; r < SVG_NROWS; r++)
        y_of[r] = used[r] ? nrows++ : -1;
    uint64_t lat = p->st.latency_ps ? p->st.latency_ps : 1;
    double scale = (double)(SVG_W - SVG_LEFT - SVG_RIGHT) / (double)lat;
    int height = SVG_TOP + nrows * SVG_ROW + 70;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n",
            SVG_W, height, SVG_W, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s on %s%s: %.3f us estimated</text>\n",
            p->kernel, p->tab->name, p->ncores > 1 ? ", 2 physical cores on a shared HBM" : "", prof_ns(lat) / 1000.0);
    fprintf(f, "<text x=\"10\" y=\"42\" fill=\"#555\">tilegen timing model (docs/cost.md); hover a slice for its "
               "spec line. bottleneck: %s, HFU %.1f%%</text>\n",
            prof_engine_title[p->bottleneck], 100.0 * p->hfu);
    if (!engines)
        fprintf(f, "<text x=\"700\" y=\"42\" fill=\"#555\">%zu DMA-engine transfers: their rows are in the "
                   "--trace output</text>\n",
                nxfer);
    for (int r = 0; r < SVG_NROWS; r++) {
        if (y_of[r] < 0)
            continue;
        char name[80], core[24] = "";
        int k = r % SVG_CROWS;
        if (p->ncores > 1)
            snprintf(core, sizeof core, "core %d: ", r / SVG_CROWS);
        if (k < 4)
            snprintf(name, sizeof name, "%s%s", core, prof_engine_title[k]);
        else if (k < 4 + TG_DMA_QUEUES)
            snprintf(name, sizeof name, "%sDMA queue %d", core, k - 4);
        else
            snprintf(name, sizeof name, "%sDMA-E%d", core, k - 4 - TG_DMA_QUEUES);
        double y = SVG_TOP + y_of[r] * SVG_ROW;
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", SVG_LEFT, y,
                SVG_W - SVG_LEFT - SVG_RIGHT, SVG_ROW, y_of[r] % 2 ? "#f4f4f4" : "#fbfbfb");
        fprintf(f, "<text x=\"10\" y=\"%.1f\">%s</text>\n", y + SVG_ROW - 7, name);
    }
    /* time axis: 10 ticks */
    double ybase = SVG_TOP + nrows * SVG_ROW;
    for (int k = 0; k <= 10; k++) {
        double x = SVG_LEFT + (SVG_W - SVG_LEFT - SVG_RIGHT) * k / 10.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, SVG_TOP, x, ybase + 5);
        double us = prof_ns(lat) / 1000.0 * k / 10.0;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"#555\">%.*f %s</text>\n", x, ybase + 20,
                k == 10 ? "end" : "middle", lat >= 10000000000ull ? 1 : 2, lat >= 10000000000ull ? us / 1000.0 : us,
                lat >= 10000000000ull ? "ms" : "us");
    }
    static const struct { const char *name, *colour; } legend[] = {
        {"matmul", "#1f77b4"}, {"transpose", "#9ecae1"}, {"activation", "#ff7f0e"}, {"vector", "#2ca02c"},
        {"gpsimd", "#9467bd"}, {"load", "#17becf"}, {"store", "#8c564b"}, {"dma copy", "#bcbd22"},
        {"semaphore wait", "#c8c8c8"}};
    for (size_t k = 0; k < sizeof legend / sizeof legend[0]; k++) {
        double x = SVG_LEFT + 130.0 * (double)k;
        fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, ybase + 32,
                legend[k].colour);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%s</text>\n", x + 16, ybase + 43, legend[k].name);
    }
    Box box[SVG_NROWS];
    memset(box, 0, sizeof box);
    for (size_t i = 0; i < p->nev; i++) {
        const tg_cost_event *e = &p->ev[i];
        int r = row_of(e);
        if (y_of[r] < 0)
            continue;
        double x0 = SVG_LEFT + (double)e->start_ps * scale, x1 = SVG_LEFT + (double)e->end_ps * scale;
        Box *b = &box[r];
        /* DMAs of one queue overlap in flight: their starts still increase, so the same merge holds */
        int tiny = x1 - x0 < 1.0 || b->x1 - b->x0 < 1.0 || e->kind == TG_COST_WAIT || b->e->kind == TG_COST_WAIT;
        int queue = r % SVG_CROWS >= 4 && r % SVG_CROWS < 4 + TG_DMA_QUEUES; /* DMAs in flight overlap: one band */
        if (b->open && x0 - b->x1 < 1.0 && (queue || x1 - b->x0 < 3.0) && (tiny || b->e->kind == e->kind)) {
            box_add(b, e);
            b->x1 = x1 > b->x1 ? x1 : b->x1;
            b->t1 = e->end_ps > b->t1 ? e->end_ps : b->t1;
            b->n++;
            continue;
        }
        flush(f, p, b, y_of[r]);
        memset(b, 0, sizeof *b);
        *b = (Box){1, x0, x1, e, {NULL, NULL}, {0, 0}, 1, e->start_ps, e->end_ps};
        box_add(b, e);
    }
    for (int r = 0; r < SVG_NROWS; r++)
        flush(f, p, &box[r], y_of[r]);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
