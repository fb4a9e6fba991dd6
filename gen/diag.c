/* diag.c - collects located diagnostics and renders them with the source line
 * and a caret under the column. Identical errors at the same place are reported
 * once; after max_errors the rest are counted but not shown. */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_init(Diag *d, Arena *arena)
{
    memset(d, 0, sizeof *d);
    d->arena = arena;
}

void diag_add_source(Diag *d, const char *file, const char *text, size_t len)
{
    DiagSource *s = arena_alloc(d->arena, sizeof *s);
    if (!s)
        return;
    s->file = file;
    s->text = text;
    s->len = len;
    s->next = d->sources;
    d->sources = s;
}

static int same_loc(SrcLoc a, SrcLoc b)
{
    return a.line == b.line && a.col == b.col &&
           (a.file == b.file || (a.file && b.file && !strcmp(a.file, b.file)));
}

static void add(Diag *d, DiagLevel level, SrcLoc loc, const char *code, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (level == DIAG_NOTE) {
        if (d->dropped)
            return;
    } else {
        int cap = d->max_errors ? d->max_errors : 200;
        if (d->nerrors + d->nwarnings >= cap) {
            if (level == DIAG_ERROR)
                d->nerrors++;
            else
                d->nwarnings++;
            d->dropped = 1;
            return;
        }
        /* the same complaint at the same place once only */
        for (DiagMsg *m = d->head; m; m = m->next)
            if (m->level == level && same_loc(m->loc, loc) && !strcmp(m->code, code) && !strcmp(m->text, buf)) {
                d->dropped = 1;
                return;
            }
        if (level == DIAG_ERROR)
            d->nerrors++;
        else
            d->nwarnings++;
        d->dropped = 0;
    }
    DiagMsg *m = arena_alloc(d->arena, sizeof *m);
    if (!m)
        return;
    m->level = level;
    m->code = code;
    m->loc = loc;
    m->text = arena_strdup(d->arena, buf);
    if (!m->text)
        return;
    if (d->tail)
        d->tail->next = m;
    else
        d->head = m;
    d->tail = m;
}

void diag_error(Diag *d, SrcLoc loc, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, DIAG_ERROR, loc, code, fmt, ap);
    va_end(ap);
}

void diag_warning(Diag *d, SrcLoc loc, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, DIAG_WARNING, loc, code, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, DIAG_NOTE, loc, NULL, fmt, ap);
    va_end(ap);
}

static const DiagSource *find_source(const Diag *d, const char *file)
{
    for (const DiagSource *s = d->sources; s; s = s->next)
        if (s->file == file || (file && !strcmp(s->file, file)))
            return s;
    return NULL;
}

/* Print source line `line` and a caret under character column `col`. Control
 * bytes are shown as '?', and long lines as a window around the column. */
static void quote_line(FILE *out, const DiagSource *s, int line, int col)
{
    const char *p = s->text, *end = s->text + s->len;
    for (int l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return;
        p = nl + 1;
    }
    if (p > end || (p == end && line > 1 && p[-1] != '\n'))
        return;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    if (eol > p && eol[-1] == '\r')
        eol--;
    /* byte offset of the caret: skip col-1 characters */
    const char *c = p;
    for (int i = 1; i < col && c < eol; i++) {
        c++;
        while (c < eol && ((unsigned char)*c & 0xC0) == 0x80)
            c++;
    }
    const char *from = p, *to = eol;
    int cut_left = 0, cut_right = 0;
    if (c - from > 70) {
        from = c - 60;
        while (from < c && ((unsigned char)*from & 0xC0) == 0x80)
            from++;
        cut_left = 1;
    }
    if (to - from > 140) {
        to = from + 130;
        while (to > c && ((unsigned char)*to & 0xC0) == 0x80)
            to--;
        cut_right = 1;
    }
    fprintf(out, "%5d | %s", line, cut_left ? "..." : "");
    for (const char *q = from; q < to; q++) {
        unsigned char ch = (unsigned char)*q;
        fputc(ch < 0x20 && ch != '\t' ? '?' : ch == 0x7f ? '?' : ch, out);
    }
    fprintf(out, "%s\n      | %s", cut_right ? "..." : "", cut_left ? "   " : "");
    for (const char *q = from; q < c; q++) {
        if (((unsigned char)*q & 0xC0) == 0x80)
            continue;
        fputc(*q == '\t' ? '\t' : ' ', out);
    }
    fputs("^\n", out);
}

static void print_loc(FILE *out, SrcLoc loc)
{
    if (loc.line > 0)
        fprintf(out, "%s:%d:%d: ", loc.file ? loc.file : "<input>", loc.line, loc.col);
    else
        fprintf(out, "%s: ", loc.file ? loc.file : "<input>");
}

void diag_print(const Diag *d, FILE *out)
{
    const char *last_file = NULL;
    for (const DiagMsg *m = d->head; m; m = m->next) {
        print_loc(out, m->loc);
        if (m->level == DIAG_NOTE)
            fprintf(out, "note: %s\n", m->text);
        else
            fprintf(out, "%s[%s]: %s\n", m->level == DIAG_ERROR ? "error" : "warning", m->code, m->text);
        const DiagSource *s = m->loc.line > 0 ? find_source(d, m->loc.file) : NULL;
        if (s)
            quote_line(out, s, m->loc.line, m->loc.col);
        if (m->loc.file)
            last_file = m->loc.file;
    }
    int cap = d->max_errors ? d->max_errors : 200;
    if (d->nerrors + d->nwarnings > cap)
        fprintf(out, "%s: too many diagnostics, %d not shown\n", last_file ? last_file : "<input>",
                d->nerrors + d->nwarnings - cap);
    if (d->nerrors || d->nwarnings)
        fprintf(out, "%s: %d error%s, %d warning%s\n", last_file ? last_file : "<input>", d->nerrors,
                d->nerrors == 1 ? "" : "s", d->nwarnings, d->nwarnings == 1 ? "" : "s");
}

int diag_edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return cap + 1;
    int row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb] > cap ? cap + 1 : row[lb];
}

const char *diag_suggest(const char *name, const char *const *candidates)
{
    size_t n = strlen(name);
    int cap = n <= 2 ? 1 : n <= 5 ? 2 : 3;
    const char *best = NULL;
    int bestd = cap + 1;
    for (const char *const *c = candidates; *c; c++) {
        int dist = diag_edit_distance(name, *c, cap);
        if (dist < bestd && dist < (int)n && strcmp(name, *c)) {
            bestd = dist;
            best = *c;
        }
    }
    return best;
}
