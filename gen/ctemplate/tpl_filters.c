/* ctemplate built-in filters and tests, with Jinja's semantics: string
 * filters (upper lower title capitalize trim replace indent format string),
 * sequence filters (length join first last list sort map select reject reverse
 * sum min max unique) and numbers (int float abs round); tests for `is` and
 * select/reject. Python %-formatting lives here too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpl_int.h"

#define FAIL(...) (tpl_render_fail(r, at, __VA_ARGS__), (tpl_value *)NULL)
#define A (tpl_render_arena(r))

/* ---- UTF-8 and case mapping ------------------------------------------------- */
static uint32_t utf8_next(const char **p, const char *e)
{
    const unsigned char *s = (const unsigned char *)*p;
    uint32_t c = *s++;
    int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    if (extra)
        c &= 0x3f >> extra;
    while (extra-- > 0 && (const char *)s < e && (*s & 0xc0) == 0x80)
        c = (c << 6) | (*s++ & 0x3f);
    *p = (const char *)s;
    return c;
}

/* Append code point c as UTF-8 (filters, and \u escapes in tpl_json.c). */
void tpl_utf8_put(tpl_buf *b, uint32_t c)
{
    char t[4];
    size_t n;
    if (c < 0x80) {
        t[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        t[0] = (char)(0xc0 | (c >> 6));
        t[1] = (char)(0x80 | (c & 0x3f));
        n = 2;
    } else if (c < 0x10000) {
        t[0] = (char)(0xe0 | (c >> 12));
        t[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        t[2] = (char)(0x80 | (c & 0x3f));
        n = 3;
    } else {
        t[0] = (char)(0xf0 | (c >> 18));
        t[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        t[2] = (char)(0x80 | ((c >> 6) & 0x3f));
        t[3] = (char)(0x80 | (c & 0x3f));
        n = 4;
    }
    tpl_buf_put(b, t, n);
}

/* Simple case mapping: ASCII, Latin-1, Greek and Cyrillic letters. */
static uint32_t to_upper(uint32_t c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 0xe0 && c <= 0xfe && c != 0xf7) ||
        (c >= 0x3b1 && c <= 0x3c9 && c != 0x3c2) || (c >= 0x430 && c <= 0x44f))
        return c - 0x20;
    if (c == 0x3c2)
        return 0x3a3;
    if (c >= 0x450 && c <= 0x45f)
        return c - 0x50;
    return c;
}

static uint32_t to_lower(uint32_t c)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7) ||
        (c >= 0x391 && c <= 0x3a9 && c != 0x3a2) || (c >= 0x410 && c <= 0x42f))
        return c + 0x20;
    if (c >= 0x400 && c <= 0x40f)
        return c + 0x50;
    return c;
}

static int is_word_sep(uint32_t c)
{
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' ||
           (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) ||
           c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
           c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

enum { CASE_UPPER, CASE_LOWER, CASE_TITLE, CASE_CAPITALIZE };

/* upper/lower of a short ASCII string, mapped on the stack (no malloc);
 * returns 0 if v doesn't qualify. */
static int recase_ascii(const tpl_value *v, int mode, char *t, size_t cap)
{
    size_t n = v->u.str.n;
    if (n > cap || (mode != CASE_UPPER && mode != CASE_LOWER))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v->u.str.s[i];
        if (c >= 0x80)
            return 0;
        t[i] = (char)(mode == CASE_UPPER ? to_upper(c) : to_lower(c));
    }
    return 1;
}

static tpl_value *recase(TplRender *r, const TplNode *at, const tpl_value *v, int mode)
{
    char t[256];
    if (recase_ascii(v, mode, t, sizeof t))
        return tpl_render_string(r, at, t, v->u.str.n);
    tpl_buf b;
    tpl_buf_init(&b);
    const char *p = v->u.str.s, *e = p + v->u.str.n;
    int word_start = 1, first = 1;
    while (p < e) {
        uint32_t c = utf8_next(&p, e);
        uint32_t o = c;
        switch (mode) {
        case CASE_UPPER: o = to_upper(c); break;
        case CASE_LOWER: o = to_lower(c); break;
        case CASE_CAPITALIZE: o = first ? to_upper(c) : to_lower(c); break;
        default:
            if (is_word_sep(c)) {
                word_start = 1;
            } else {
                o = word_start ? to_upper(c) : to_lower(c);
                word_start = 0;
            }
        }
        first = 0;
        tpl_utf8_put(&b, o);
    }
    tpl_value *res = tpl_render_string(r, at, b.data, b.len);
    tpl_buf_free(&b);
    return res;
}

/* ---- helpers ------------------------------------------------------------------- */
static tpl_value *need_string(TplRender *r, const TplNode *at, tpl_value *v, tpl_buf *tmp)
{
    if (v->kind == TPL_STRING)
        return v;
    tpl_buf_init(tmp);
    tpl_str_append(tmp, v);
    tpl_value *s = tpl_render_string(r, at, tmp->data, tmp->len);
    tpl_buf_free(tmp);
    return s;
}

static tpl_value *as_string(TplRender *r, const TplNode *at, tpl_value *v)
{
    tpl_buf tmp;
    return need_string(r, at, v, &tmp);
}

static tpl_value *need_list(TplRender *r, const TplNode *at, tpl_value *v, const char *fname)
{
    if (v->kind == TPL_LIST)
        return v;
    tpl_value *l = tpl_list(A);
    if (!l)
        return FAIL("out of memory");
    if (v->kind == TPL_MAP) {
        for (size_t i = 0; i < v->u.map.n; i++)
            if (tpl_list_append(A, l, tpl_string_n(A, v->u.map.e[i].key, v->u.map.e[i].klen)))
                return FAIL("out of memory");
        return l;
    }
    if (v->kind == TPL_STRING) {
        const char *p = v->u.str.s, *e = p + v->u.str.n;
        while (p < e) {
            const char *c = p;
            utf8_next(&p, e);
            if (tpl_list_append(A, l, tpl_string_n(A, c, (size_t)(p - c))))
                return FAIL("out of memory");
        }
        return l;
    }
    return FAIL("filter '%s' expects a sequence, got '%s'", fname, tpl_type_name(v));
}

static int arg_bool(const tpl_args *a, size_t pos, const char *kw, int dflt)
{
    tpl_value *v = tpl_arg(a, pos, kw);
    return v ? tpl_truthy(v) : dflt;
}

/* Follow a Jinja attribute path "a.b.0" (digits index lists). A missing step
 * fails, or when `missing` is given sets it and returns NULL quietly. */
static tpl_value *attr_path(TplRender *r, const TplNode *at, tpl_value *v,
                            const tpl_value *path, int *missing)
{
    const char *p = path->u.str.s ? path->u.str.s : "", *e = p + path->u.str.n; /* "" may have no buffer */
    while (v) {
        const char *dot = memchr(p, '.', (size_t)(e - p));
        const char *end = dot ? dot : e;
        int digits = end > p;
        for (const char *q = p; q < end; q++)
            digits &= *q >= '0' && *q <= '9';
        if (digits && v->kind == TPL_LIST) {
            size_t i = (size_t)strtoull(p, NULL, 10);
            if (i >= v->u.list.n) {
                if (missing) {
                    *missing = 1;
                    return NULL;
                }
                return FAIL("'list object' has no element %.*s", (int)(end - p), p);
            }
            v = v->u.list.items[i];
        } else {
            v = tpl_getattr(r, at, v, p, (size_t)(end - p), !missing);
            if (v && tpl_is_undef(v)) {
                *missing = 1;
                return NULL;
            }
        }
        if (!dot)
            break;
        p = dot + 1;
    }
    return v;
}

/* ---- sort ---------------------------------------------------------------------- */
typedef struct SortItem {
    tpl_value *key;   /* comparison key */
    tpl_value *val;   /* original value */
} SortItem;

static int sort_cmp(TplRender *r, const TplNode *at, const SortItem *x, const SortItem *y,
                    int *c)
{
    if (tpl_compare(x->key, y->key, c)) {
        tpl_render_fail(r, at, "'<' not supported between instances of '%s' and '%s'",
                        tpl_type_name(x->key), tpl_type_name(y->key));
        return -1;
    }
    return 0;
}

/* Stable merge sort (Python's sort is stable). */
static int merge_sort(TplRender *r, const TplNode *at, SortItem *v, SortItem *tmp, size_t n,
                      int reverse)
{
    if (n < 2)
        return 0;
    size_t h = n / 2;
    if (merge_sort(r, at, v, tmp, h, reverse) || merge_sort(r, at, v + h, tmp, n - h, reverse))
        return -1;
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int c;
        if (sort_cmp(r, at, &v[j], &v[i], &c))
            return -1;
        /* take from the right only when strictly before (or after, reversed) */
        if (reverse ? c > 0 : c < 0)
            tmp[k++] = v[j++];
        else
            tmp[k++] = v[i++];
    }
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
    return 0;
}

static tpl_value *do_sort(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *l = need_list(r, at, in, "sort");
    if (!l)
        return NULL;
    int reverse = arg_bool(a, 0, "reverse", 0);
    int cs = arg_bool(a, 1, "case_sensitive", 0);
    tpl_value *attr = tpl_arg(a, 2, "attribute");
    if (attr && attr->kind != TPL_STRING)
        return FAIL("sort attribute must be a string");
    size_t n = l->u.list.n;
    SortItem *v = tpl_alloc(A, (n + 1) * sizeof *v), *tmp = tpl_alloc(A, (n + 1) * sizeof *v);
    if (!v || !tmp)
        return FAIL("out of memory");
    for (size_t i = 0; i < n; i++) {
        tpl_value *k = l->u.list.items[i];
        if (attr && !(k = attr_path(r, at, k, attr, NULL)))
            return NULL;
        if (!cs && k->kind == TPL_STRING && !(k = recase(r, at, k, CASE_LOWER)))
            return NULL;
        v[i] = (SortItem){ k, l->u.list.items[i] };
    }
    if (merge_sort(r, at, v, tmp, n, reverse))
        return NULL;
    tpl_value *out = tpl_list(A);
    for (size_t i = 0; out && i < n; i++)
        if (tpl_list_append(A, out, v[i].val))
            return FAIL("out of memory");
    return out ? out : FAIL("out of memory");
}

/* ---- map / select / reject ---------------------------------------------------- */
static tpl_args shift_args(const tpl_args *a, size_t k)
{
    tpl_args s = *a;
    s.npos = a->npos > k ? a->npos - k : 0;
    s.pos = a->pos + (a->npos > k ? k : a->npos);
    return s;
}

static tpl_value *do_map(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *l = need_list(r, at, in, "map");
    if (!l)
        return NULL;
    tpl_value *attr = NULL, *dflt = NULL, *fname = NULL;
    for (size_t i = 0; i < a->nkw; i++) {
        if (!strcmp(a->kwnames[i], "attribute"))
            attr = a->kw[i];
        else if (!strcmp(a->kwnames[i], "default"))
            dflt = a->kw[i];
    }
    if (!attr) {
        fname = tpl_arg(a, 0, NULL);
        if (!fname || fname->kind != TPL_STRING)
            return FAIL("map expects a filter name or attribute=");
    } else if (attr->kind != TPL_STRING) {
        return FAIL("map attribute must be a string");
    }
    tpl_args rest = shift_args(a, 1);
    rest.nkw = 0;
    tpl_value *out = tpl_list(A);
    for (size_t i = 0; out && i < l->u.list.n; i++) {
        tpl_value *v = l->u.list.items[i];
        if (attr) {
            int missing = 0;
            v = attr_path(r, at, v, attr, dflt ? &missing : NULL);
            if (missing)
                v = dflt;
            else if (!v)
                return NULL;
        } else if (!(v = tpl_apply_filter(r, at, fname->u.str.s, v, &rest))) {
            return NULL;
        }
        if (tpl_list_append(A, out, v))
            return FAIL("out of memory");
    }
    return out ? out : FAIL("out of memory");
}

static tpl_value *do_select(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a,
                            int keep)
{
    tpl_value *l = need_list(r, at, in, keep ? "select" : "reject");
    if (!l)
        return NULL;
    tpl_value *test = tpl_arg(a, 0, NULL);
    if (test && test->kind != TPL_STRING)
        return FAIL("select/reject expects a test name");
    tpl_args rest = shift_args(a, 1);
    tpl_value *out = tpl_list(A);
    for (size_t i = 0; out && i < l->u.list.n; i++) {
        tpl_value *v = l->u.list.items[i];
        int t = test ? tpl_builtin_test(r, at, test->u.str.s, v, &rest) : tpl_truthy(v);
        if (t < 0)
            return NULL;
        if (t == keep && tpl_list_append(A, out, v))
            return FAIL("out of memory");
    }
    return out ? out : FAIL("out of memory");
}

/* ---- string filters ---------------------------------------------------------- */
static tpl_value *do_join(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *l = need_list(r, at, in, "join");
    tpl_value *sep = tpl_arg(a, 0, "d"), *attr = tpl_arg(a, 1, "attribute");
    if (!l || (sep && !(sep = as_string(r, at, sep))))
        return NULL;
    if (attr && attr->kind != TPL_STRING)
        return FAIL("join attribute must be a string");
    tpl_buf b;
    tpl_buf_init(&b);
    b.max = tpl_render_max_string(r);
    for (size_t i = 0; i < l->u.list.n; i++) {
        tpl_value *v = l->u.list.items[i];
        if (attr && !(v = attr_path(r, at, v, attr, NULL))) {
            tpl_buf_free(&b);
            return NULL;
        }
        if (i && sep)
            tpl_buf_put(&b, sep->u.str.s, sep->u.str.n);
        tpl_str_append(&b, v);
    }
    tpl_value *res = b.over ? FAIL("string exceeds the size limit") :
                              tpl_render_string(r, at, b.data, b.len);
    tpl_buf_free(&b);
    return res;
}

static tpl_value *do_replace(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *s = as_string(r, at, in);
    tpl_value *old = tpl_arg(a, 0, "old"), *new = tpl_arg(a, 1, "new"), *cnt = tpl_arg(a, 2, "count");
    if (!s || !old || !new)
        return s ? FAIL("replace expects old and new strings") : NULL;
    if (!(old = as_string(r, at, old)) || !(new = as_string(r, at, new)))
        return NULL;
    int64_t count = cnt && cnt->kind != TPL_NULL ? tpl_int_of(cnt) : -1;
    tpl_buf b;
    tpl_buf_init(&b);
    b.max = tpl_render_max_string(r);
    const char *p = s->u.str.s, *e = p + s->u.str.n;
    size_t on = old->u.str.n;
    if (on == 0) { /* Python inserts `new` between every character */
        while (count != 0) {
            tpl_buf_put(&b, new->u.str.s, new->u.str.n);
            count--;
            if (p >= e)
                break;
            const char *c = p;
            utf8_next(&p, e);
            tpl_buf_put(&b, c, (size_t)(p - c));
        }
        tpl_buf_put(&b, p, (size_t)(e - p));
    } else {
        while (p < e) {
            if (count != 0 && (size_t)(e - p) >= on && !memcmp(p, old->u.str.s, on)) {
                tpl_buf_put(&b, new->u.str.s, new->u.str.n);
                p += on;
                count--;
            } else {
                tpl_buf_put(&b, p++, 1);
            }
        }
    }
    tpl_value *res = b.over ? FAIL("string exceeds the size limit") :
                              tpl_render_string(r, at, b.data, b.len);
    tpl_buf_free(&b);
    return res;
}

static int in_chars(uint32_t c, const tpl_value *chars)
{
    const char *p = chars->u.str.s, *e = p + chars->u.str.n;
    while (p < e)
        if (utf8_next(&p, e) == c)
            return 1;
    return 0;
}

static tpl_value *do_trim(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *s = as_string(r, at, in), *chars = tpl_arg(a, 0, "chars");
    if (!s || (chars && chars->kind != TPL_NULL && !(chars = as_string(r, at, chars))))
        return NULL;
    if (chars && chars->kind == TPL_NULL)
        chars = NULL;
    const char *p = s->u.str.s, *e = p + s->u.str.n;
    for (;;) { /* leading */
        const char *q = p;
        if (p >= e)
            break;
        uint32_t c = utf8_next(&q, e);
        if (chars ? !in_chars(c, chars) : !tpl_space_at(p, (size_t)(e - p)))
            break;
        p = q;
    }
    while (e > p) { /* trailing */
        const char *c = e - 1;
        while (c > p && ((unsigned char)*c & 0xc0) == 0x80)
            c--;
        const char *q = c;
        uint32_t cp = utf8_next(&q, e);
        if (chars ? !in_chars(cp, chars) : !tpl_space_at(c, (size_t)(e - c)))
            break;
        e = c;
    }
    return tpl_render_string(r, at, p, (size_t)(e - p));
}

/* Python str.splitlines() boundaries: returns the line end length at p, or 0. */
static size_t line_break(const char *p, const char *e)
{
    unsigned char c = (unsigned char)*p;
    if (c == '\r')
        return p + 1 < e && p[1] == '\n' ? 2 : 1;
    if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e))
        return 1;
    if (c == 0xc2 && p + 1 < e && (unsigned char)p[1] == 0x85)
        return 2;
    if (c == 0xe2 && p + 2 < e && (unsigned char)p[1] == 0x80 &&
        ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9))
        return 3;
    return 0;
}

static tpl_value *do_indent(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *s = as_string(r, at, in), *w = tpl_arg(a, 0, "width");
    int first = arg_bool(a, 1, "first", 0), blank = arg_bool(a, 2, "blank", 0);
    if (!s)
        return NULL;
    tpl_buf ind, b;
    tpl_buf_init(&ind);
    if (w && w->kind == TPL_STRING)
        tpl_buf_put(&ind, w->u.str.s, w->u.str.n);
    else
        for (int64_t i = 0, n = w ? tpl_int_of(w) : 4; i < n && i < 4096; i++)
            tpl_buf_put(&ind, " ", 1);
    tpl_buf_init(&b);
    b.max = tpl_render_max_string(r);
    /* s += "\n"; lines = s.splitlines(); join with "\n" + indent (non-blank) */
    const char *p = s->u.str.s, *e = p + s->u.str.n;
    int lineno = 0;
    for (;;) {
        const char *ls = p;
        size_t br = 0;
        while (p < e && !(br = line_break(p, e)))
            p++;
        size_t len = (size_t)(p - ls);
        if (lineno)
            tpl_buf_put(&b, "\n", 1);
        if ((lineno || first) && (len || blank))
            tpl_buf_put(&b, ind.data ? ind.data : "", ind.len);
        tpl_buf_put(&b, ls, len);
        p += br;
        lineno++;
        if (!br)
            break; /* the appended "\n" ends the last line */
    }
    tpl_value *res = b.over ? FAIL("string exceeds the size limit") :
                              tpl_render_string(r, at, b.data, b.len);
    tpl_buf_free(&b);
    tpl_buf_free(&ind);
    return res;
}

/* ---- numbers ------------------------------------------------------------------- */
/* Python int(s, base): base 0 (prefix decides) or 2..36, else -1. */
static int parse_int_str(const char *s, size_t n, int64_t base64, int64_t *out)
{
    if (base64 != 0 && (base64 < 2 || base64 > 36))
        return -1;
    int base = (int)base64;
    char buf[128];
    size_t k = 0;
    size_t i = 0;
    while (i < n && tpl_space_at(s + i, n - i))
        i += tpl_space_at(s + i, n - i);
    while (n > i && tpl_space_before(s + i, n - i))
        n -= tpl_space_before(s + i, n - i);
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if ((base == 16 || base == 8 || base == 2 || base == 0) && i + 1 < n && s[i] == '0') {
        char p = (char)(s[i + 1] | 0x20);
        int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
        if (pb && (base == 0 || base == pb)) {
            base = pb;
            i += 2;
            if (i < n && s[i] == '_')
                i++;
        }
    }
    if (base == 0)
        base = 10;
    int prev_us = 1;
    for (; i < n && k + 1 < sizeof buf; i++) {
        if (s[i] == '_' && !prev_us) {
            prev_us = 1;
            continue;
        }
        char c = (char)(s[i] | 0x20);
        int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : 99;
        if (d >= base)
            return -1;
        buf[k++] = s[i];
        prev_us = 0;
    }
    if (!k || prev_us || i < n)
        return -1;
    buf[k] = 0;
    char *end;
    unsigned long long v = strtoull(buf, &end, base);
    if (*end || v > (unsigned long long)INT64_MAX + (unsigned long long)neg)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int parse_float_str(const char *s, size_t n, double *out)
{
    char buf[128];
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    char *end;
    if (!*p || (*p != '+' && *p != '-' && *p != '.' && !(*p >= '0' && *p <= '9') &&
                strncmp(p, "inf", 3) && strncmp(p, "nan", 3)))
        return -1;
    if ((p[0] == '0' || ((p[0] == '-' || p[0] == '+') && p[1] == '0')) &&
        strchr("xX", p[p[0] == '0' ? 1 : 2]))
        return -1; /* no hex floats in Python's float() */
    *out = strtod(p, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    return *end ? -1 : 0;
}

static tpl_value *do_int(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *d = tpl_arg(a, 0, "default"), *b = tpl_arg(a, 1, "base");
    int64_t i;
    double f;
    switch (in->kind) {
    case TPL_INT: return in;
    case TPL_BOOL: return tpl_int(A, in->u.b);
    case TPL_FLOAT:
        f = in->u.f;
        goto from_float;
    case TPL_STRING:
        if (!parse_int_str(in->u.str.s, in->u.str.n, b ? tpl_int_of(b) : 10, &i))
            return tpl_int(A, i);
        if (parse_float_str(in->u.str.s, in->u.str.n, &f))
            break;
    from_float:
        if (isnan(f) || isinf(f))
            return FAIL("cannot convert float %s to integer", isnan(f) ? "NaN" : "infinity");
        if (f >= 9223372036854775808.0 || f < -9223372036854775808.0)
            return FAIL("integer overflow converting %g (64-bit integers)", f);
        return tpl_int(A, (int64_t)f);
    default: break;
    }
    return d ? d : tpl_int(A, 0);
}

static tpl_value *do_float(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *d = tpl_arg(a, 0, "default");
    double f;
    (void)at;
    if (in->kind == TPL_FLOAT)
        return in;
    if (in->kind == TPL_INT || in->kind == TPL_BOOL)
        return tpl_float(A, (double)tpl_int_of(in));
    if (in->kind == TPL_STRING && !parse_float_str(in->u.str.s, in->u.str.n, &f))
        return tpl_float(A, f);
    return d ? d : tpl_float(A, 0.0);
}

static tpl_value *do_round(TplRender *r, const TplNode *at, tpl_value *in, const tpl_args *a)
{
    tpl_value *pv = tpl_arg(a, 0, "precision"), *mv = tpl_arg(a, 1, "method");
    int64_t prec = pv ? tpl_int_of(pv) : 0;
    const char *method = mv && mv->kind == TPL_STRING ? mv->u.str.s : "common";
    if (!(in->kind == TPL_INT || in->kind == TPL_FLOAT || in->kind == TPL_BOOL))
        return FAIL("round expects a number, got '%s'", tpl_type_name(in));
    if (prec < 0 || prec > 15)
        return FAIL("round precision must be 0..15");
    double x = tpl_float_of(in), m = pow(10.0, (double)prec), y;
    if (!strcmp(method, "common")) {
        /* Python's round(): the exact binary value correctly rounded to
         * `prec` decimals, ties to even -- what glibc's %.*f does */
        char t[400];
        snprintf(t, sizeof t, "%.*f", (int)prec, x);
        y = strtod(t, NULL);
    } else if (!strcmp(method, "ceil")) {
        y = ceil(x * m) / m;
    } else if (!strcmp(method, "floor")) {
        y = floor(x * m) / m;
    } else {
        return FAIL("method must be common, ceil or floor");
    }
    return tpl_float(A, y);
}

/* ---- Python %-formatting --------------------------------------------------------- */
tpl_value *tpl_format(TplRender *r, const TplNode *at, const tpl_value *fmt,
                      tpl_value *const *args, size_t nargs)
{
    tpl_buf b;
    tpl_buf_init(&b);
    b.max = tpl_render_max_string(r);
    const char *p = fmt->u.str.s, *e = p + fmt->u.str.n;
    size_t ai = 0;
    while (p < e) {
        if (*p != '%') {
            tpl_buf_put(&b, p++, 1);
            continue;
        }
        p++;
        char flags[8] = { 0 };
        size_t nf = 0;
        while (p < e && strchr("-+ #0", *p) && *p && nf < 6)
            flags[nf++] = *p++;
        int width = 0, prec = -1;
        while (p < e && *p >= '0' && *p <= '9' && width < 10000)
            width = width * 10 + (*p++ - '0');
        if (p < e && *p == '.') {
            p++;
            prec = 0;
            while (p < e && *p >= '0' && *p <= '9' && prec < 10000)
                prec = prec * 10 + (*p++ - '0');
        }
        if (p >= e) {
            tpl_buf_free(&b);
            return FAIL("incomplete format");
        }
        char conv = *p++;
        if (conv == '%') {
            tpl_buf_put(&b, "%", 1);
            continue;
        }
        if (ai >= nargs) {
            tpl_buf_free(&b);
            return FAIL("not enough arguments for format string");
        }
        tpl_value *v = args[ai++];
        char spec[32], out[512];
        tpl_buf tmp;
        tpl_buf_init(&tmp);
        int pw = width > 400 ? 400 : width, pp = prec > 300 ? 300 : prec;
        switch (conv) {
        case 's':
        case 'r':
        case 'a':
            conv == 's' ? tpl_str_append(&tmp, v) : tpl_repr_append(&tmp, v);
            {
                size_t len = tmp.len, chars = tpl_utf8_len(tmp.data ? tmp.data : "", tmp.len);
                if (prec >= 0 && (size_t)prec < chars) {
                    const char *q = tmp.data, *qe = q + tmp.len;
                    for (int k = 0; k < prec; k++)
                        utf8_next(&q, qe);
                    len = (size_t)(q - tmp.data);
                    chars = (size_t)prec;
                }
                int left = strchr(flags, '-') != NULL;
                if (!left)
                    for (size_t k = chars; k < (size_t)pw; k++)
                        tpl_buf_put(&b, " ", 1);
                tpl_buf_put(&b, tmp.data ? tmp.data : "", len);
                if (left)
                    for (size_t k = chars; k < (size_t)pw; k++)
                        tpl_buf_put(&b, " ", 1);
            }
            break;
        case 'd':
        case 'i':
        case 'u':
        case 'x':
        case 'X':
        case 'o':
        case 'c': {
            if (!(v->kind == TPL_INT || v->kind == TPL_BOOL || v->kind == TPL_FLOAT)) {
                tpl_buf_free(&tmp);
                tpl_buf_free(&b);
                return FAIL("%%%c format: a real number is required, not %s", conv,
                            tpl_type_name(v));
            }
            if (v->kind == TPL_FLOAT && (isnan(v->u.f) || isinf(v->u.f))) {
                tpl_buf_free(&tmp);
                tpl_buf_free(&b);
                return FAIL("cannot convert float to integer");
            }
            if (v->kind == TPL_FLOAT && (v->u.f >= 9223372036854775808.0 || v->u.f < -9223372036854775808.0)) {
                tpl_buf_free(&tmp);
                tpl_buf_free(&b);
                return FAIL("integer overflow converting %g (64-bit integers)", v->u.f);
            }
            int64_t iv = v->kind == TPL_FLOAT ? (int64_t)v->u.f : tpl_int_of(v);
            if (conv == 'c') {
                tpl_utf8_put(&b, (uint32_t)iv);
                break;
            }
            uint64_t mag = iv < 0 ? 0 - (uint64_t)iv : (uint64_t)iv;
            char digits[80];
            const char *cf = conv == 'x' ? "%llx" : conv == 'X' ? "%llX" : conv == 'o' ? "%llo" : "%llu";
            snprintf(digits, sizeof digits, cf, (unsigned long long)mag);
            char sign[4] = { 0 };
            if (iv < 0)
                sign[0] = '-';
            else if (strchr(flags, '+'))
                sign[0] = '+';
            else if (strchr(flags, ' '))
                sign[0] = ' ';
            char prefix[4] = { 0 };
            if (strchr(flags, '#') && (conv == 'x' || conv == 'X' || conv == 'o'))
                snprintf(prefix, sizeof prefix, "0%c", conv);
            size_t nd = strlen(digits);
            int zeros = prec > (int)nd ? prec - (int)nd : 0;
            size_t body = strlen(sign) + strlen(prefix) + (size_t)zeros + nd;
            int left = strchr(flags, '-') != NULL, zero = strchr(flags, '0') && !left;
            if (!left && !zero)
                for (size_t k = body; k < (size_t)pw; k++)
                    tpl_buf_put(&b, " ", 1);
            tpl_buf_put(&b, sign, strlen(sign));
            tpl_buf_put(&b, prefix, strlen(prefix));
            if (zero)
                for (size_t k = body; k < (size_t)pw; k++)
                    tpl_buf_put(&b, "0", 1);
            for (int k = 0; k < zeros; k++)
                tpl_buf_put(&b, "0", 1);
            tpl_buf_put(&b, digits, nd);
            if (left)
                for (size_t k = body; k < (size_t)pw; k++)
                    tpl_buf_put(&b, " ", 1);
            break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G':
            if (!(v->kind == TPL_INT || v->kind == TPL_BOOL || v->kind == TPL_FLOAT)) {
                tpl_buf_free(&tmp);
                tpl_buf_free(&b);
                return FAIL("must be real number, not %s", tpl_type_name(v));
            }
            snprintf(spec, sizeof spec, "%%%s%d.%d%c", flags, pw, pp < 0 ? 6 : pp, conv);
            snprintf(out, sizeof out, spec, tpl_float_of(v));
            tpl_buf_put(&b, out, strlen(out));
            break;
        default:
            tpl_buf_free(&tmp);
            tpl_buf_free(&b);
            return FAIL("unsupported format character '%c'", conv);
        }
        tpl_buf_free(&tmp);
    }
    tpl_value *res = NULL;
    if (ai < nargs)
        tpl_render_fail(r, at, "not all arguments converted during string formatting");
    else if (b.over)
        tpl_render_fail(r, at, "string exceeds the size limit");
    else
        res = tpl_render_string(r, at, b.data, b.len);
    tpl_buf_free(&b);
    return res;
}

/* ---- dispatch ---------------------------------------------------------------- */
static tpl_value *first_last(TplRender *r, const TplNode *at, tpl_value *in, int last)
{
    tpl_value *l = need_list(r, at, in, last ? "last" : "first");
    if (!l)
        return NULL;
    if (!l->u.list.n)
        return FAIL("No %s item, sequence was empty.", last ? "last" : "first");
    return l->u.list.items[last ? l->u.list.n - 1 : 0];
}

static tpl_value *min_max_sum(TplRender *r, const TplNode *at, tpl_value *in,
                              const tpl_args *a, int which)
{
    tpl_value *l = need_list(r, at, in, which == 0 ? "min" : which == 1 ? "max" : "sum");
    if (!l)
        return NULL;
    if (which == 2) {
        tpl_value *acc = tpl_arg(a, 1, "start");
        tpl_value *attr = tpl_arg(a, 0, "attribute");
        if (!acc)
            acc = tpl_int(A, 0);
        for (size_t i = 0; acc && i < l->u.list.n; i++) {
            tpl_value *v = l->u.list.items[i];
            if (attr && !(v = attr_path(r, at, v, attr, NULL)))
                return NULL;
            if (!((acc->kind == TPL_INT || acc->kind == TPL_FLOAT || acc->kind == TPL_BOOL) &&
                  (v->kind == TPL_INT || v->kind == TPL_FLOAT || v->kind == TPL_BOOL)))
                return FAIL("unsupported operand type(s) for +: '%s' and '%s'",
                            tpl_type_name(acc), tpl_type_name(v));
            if (acc->kind == TPL_FLOAT || v->kind == TPL_FLOAT)
                acc = tpl_float(A, tpl_float_of(acc) + tpl_float_of(v));
            else {
                int64_t z;
                if (__builtin_add_overflow(tpl_int_of(acc), tpl_int_of(v), &z))
                    return FAIL("integer overflow in sum (64-bit integers)");
                acc = tpl_int(A, z);
            }
        }
        return acc;
    }
    if (!l->u.list.n)
        return FAIL("No aggregated item, sequence was empty.");
    tpl_value *best = l->u.list.items[0];
    for (size_t i = 1; i < l->u.list.n; i++) {
        int c;
        if (tpl_compare(l->u.list.items[i], best, &c))
            return FAIL("'<' not supported between instances of '%s' and '%s'",
                        tpl_type_name(l->u.list.items[i]), tpl_type_name(best));
        if (which == 0 ? c < 0 : c > 0)
            best = l->u.list.items[i];
    }
    return best;
}

static const char *const builtin_filters[] = {
    "upper", "lower", "title", "capitalize", "length", "count", "default", "d", "join",
    "indent", "replace", "trim", "first", "last", "int", "float", "string", "list", "sort",
    "map", "select", "reject", "format", "abs", "round", "reverse", "min", "max", "sum",
    "unique", NULL
};
static const char *const builtin_tests[] = {
    "defined", "undefined", "none", "string", "number", "integer", "float", "boolean",
    "true", "false", "mapping", "sequence", "iterable", "callable", "lower", "upper", "even",
    "odd", "divisibleby", "eq", "equalto", "==", "ne", "!=", "lt", "lessthan", "<", "le",
    "<=", "gt", "greaterthan", ">", "ge", ">=", "in", "sameas", NULL
};

int tpl_builtin_exists(const char *name, size_t n, int is_test)
{
    for (const char *const *b = is_test ? builtin_tests : builtin_filters; *b; b++)
        if (strlen(*b) == n && !memcmp(*b, name, n))
            return 1;
    return 0;
}

tpl_value *tpl_builtin_filter(TplRender *r, const TplNode *at, const char *name,
                              tpl_value *in, const tpl_args *a, int *found)
{
    *found = 1;
    tpl_value *s;
#define IS(x) (!strcmp(name, x))
    if (IS("upper") || IS("lower") || IS("title") || IS("capitalize")) {
        int mode = IS("upper") ? CASE_UPPER : IS("lower") ? CASE_LOWER
                 : IS("title") ? CASE_TITLE : CASE_CAPITALIZE;
        return (s = as_string(r, at, in)) ? recase(r, at, s, mode) : NULL;
    }
    if (IS("length") || IS("count")) {
        if (in->kind == TPL_STRING)
            return tpl_int(A, (int64_t)tpl_utf8_len(in->u.str.s, in->u.str.n));
        if (in->kind == TPL_LIST || in->kind == TPL_MAP)
            return tpl_int(A, (int64_t)tpl_len(in));
        return FAIL("object of type '%s' has no len()", tpl_type_name(in));
    }
    if (IS("default") || IS("d")) {
        tpl_value *d = tpl_arg(a, 0, "default_value");
        if (arg_bool(a, 1, "boolean", 0) && !tpl_truthy(in))
            return d ? d : tpl_render_string(r, at, "", 0);
        return in;
    }
    if (IS("join"))
        return do_join(r, at, in, a);
    if (IS("indent"))
        return do_indent(r, at, in, a);
    if (IS("replace"))
        return do_replace(r, at, in, a);
    if (IS("trim"))
        return do_trim(r, at, in, a);
    if (IS("first") || IS("last"))
        return first_last(r, at, in, IS("last"));
    if (IS("int"))
        return do_int(r, at, in, a);
    if (IS("float"))
        return do_float(r, at, in, a);
    if (IS("string"))
        return as_string(r, at, in);
    if (IS("list")) {
        tpl_value *l = need_list(r, at, in, "list");
        if (l == in) { /* a fresh copy, like Python's list() */
            l = tpl_list(A);
            for (size_t i = 0; l && i < in->u.list.n; i++)
                if (tpl_list_append(A, l, in->u.list.items[i]))
                    return FAIL("out of memory");
        }
        return l;
    }
    if (IS("sort"))
        return do_sort(r, at, in, a);
    if (IS("map"))
        return do_map(r, at, in, a);
    if (IS("select") || IS("reject"))
        return do_select(r, at, in, a, IS("select"));
    if (IS("format")) {
        if (!(s = as_string(r, at, in)))
            return NULL;
        return tpl_format(r, at, s, a->pos, a->npos);
    }
    if (IS("abs")) {
        if (in->kind == TPL_FLOAT)
            return tpl_float(A, fabs(in->u.f));
        if (in->kind == TPL_INT || in->kind == TPL_BOOL) {
            int64_t i = tpl_int_of(in);
            if (i == INT64_MIN)
                return FAIL("integer overflow in abs (64-bit integers)");
            return tpl_int(A, i < 0 ? -i : i);
        }
        return FAIL("bad operand type for abs(): '%s'", tpl_type_name(in));
    }
    if (IS("round"))
        return do_round(r, at, in, a);
    if (IS("reverse")) {
        if (in->kind == TPL_STRING) {
            tpl_buf b;
            tpl_buf_init(&b);
            const char *e = in->u.str.s + in->u.str.n;
            while (e > in->u.str.s) {
                const char *c = e - 1;
                while (c > in->u.str.s && ((unsigned char)*c & 0xc0) == 0x80)
                    c--;
                tpl_buf_put(&b, c, (size_t)(e - c));
                e = c;
            }
            tpl_value *res = tpl_render_string(r, at, b.data, b.len);
            tpl_buf_free(&b);
            return res;
        }
        tpl_value *l = need_list(r, at, in, "reverse"), *out = tpl_list(A);
        for (size_t i = l ? l->u.list.n : 0; out && i-- > 0;)
            if (tpl_list_append(A, out, l->u.list.items[i]))
                return FAIL("out of memory");
        return l ? out : NULL;
    }
    if (IS("min") || IS("max") || IS("sum"))
        return min_max_sum(r, at, in, a, IS("min") ? 0 : IS("max") ? 1 : 2);
    if (IS("unique")) {
        tpl_value *l = need_list(r, at, in, "unique"), *out = tpl_list(A);
        for (size_t i = 0; l && out && i < l->u.list.n; i++) {
            int seen = 0;
            for (size_t j = 0; j < out->u.list.n && !seen; j++)
                seen = tpl_equal(out->u.list.items[j], l->u.list.items[i]);
            if (!seen && tpl_list_append(A, out, l->u.list.items[i]))
                return FAIL("out of memory");
        }
        return l ? out : NULL;
    }
#undef IS
    *found = 0;
    return NULL;
}

/* ---- tests --------------------------------------------------------------------- */
int tpl_builtin_test(TplRender *r, const TplNode *at, const char *name, const tpl_value *v,
                     const tpl_args *a)
{
    tpl_value *arg = tpl_arg(a, 0, NULL);
#define IS(x) (!strcmp(name, x))
    if (IS("defined"))
        return v != NULL;
    if (IS("undefined"))
        return v == NULL;
    if (!v) {
        tpl_render_fail(r, at, "undefined value in test '%s'", name);
        return -1;
    }
    if (IS("none"))
        return v->kind == TPL_NULL;
    if (IS("string"))
        return v->kind == TPL_STRING;
    if (IS("number"))
        return v->kind == TPL_INT || v->kind == TPL_FLOAT || v->kind == TPL_BOOL;
    if (IS("integer"))
        return v->kind == TPL_INT;
    if (IS("float"))
        return v->kind == TPL_FLOAT;
    if (IS("boolean"))
        return v->kind == TPL_BOOL;
    if (IS("true") || IS("false"))
        return v->kind == TPL_BOOL && v->u.b == IS("true");
    if (IS("mapping"))
        return v->kind == TPL_MAP;
    if (IS("sequence") || IS("iterable"))
        return v->kind == TPL_LIST || v->kind == TPL_MAP || v->kind == TPL_STRING;
    if (IS("callable"))
        return v->kind == TPL_CALLABLE;
    if (IS("lower") || IS("upper")) {
        if (v->kind != TPL_STRING)
            return 0;
        int cased = 0;
        const char *p = v->u.str.s, *e = p + v->u.str.n;
        while (p < e) {
            uint32_t c = utf8_next(&p, e);
            if (to_lower(c) != to_upper(c)) {
                cased = 1;
                if (c != (IS("lower") ? to_lower(c) : to_upper(c)))
                    return 0;
            }
        }
        return cased;
    }
    if (IS("even") || IS("odd") || IS("divisibleby")) {
        if (v->kind != TPL_INT && v->kind != TPL_BOOL) {
            tpl_render_fail(r, at, "test '%s' expects an integer, got '%s'", name,
                            tpl_type_name(v));
            return -1;
        }
        int64_t x = tpl_int_of(v), m = 2;
        if (IS("divisibleby")) {
            if (!arg || (arg->kind != TPL_INT && arg->kind != TPL_BOOL) || tpl_int_of(arg) == 0) {
                tpl_render_fail(r, at, "divisibleby expects a non-zero integer");
                return -1;
            }
            m = tpl_int_of(arg);
            return m == -1 || x % m == 0;
        }
        return (x % 2 != 0) == IS("odd");
    }
    int op = IS("eq") || IS("equalto") || IS("==") ? TK_EQ : IS("ne") || IS("!=") ? TK_NE
           : IS("lt") || IS("lessthan") || IS("<") ? TK_LT : IS("le") || IS("<=") ? TK_LE
           : IS("gt") || IS("greaterthan") || IS(">") ? TK_GT : IS("ge") || IS(">=") ? TK_GE
           : IS("in") ? TK_NAME : IS("sameas") ? TK_SEMICOLON : 0;
#undef IS
    if (op) {
        if (!arg) {
            tpl_render_fail(r, at, "test '%s' needs an argument", name);
            return -1;
        }
        if (op == TK_EQ || op == TK_SEMICOLON)
            return op == TK_EQ ? tpl_equal(v, arg) :
                   (v == arg || (v->kind == arg->kind && v->kind <= TPL_BOOL && tpl_equal(v, arg)));
        if (op == TK_NE)
            return !tpl_equal(v, arg);
        int c;
        if (op == TK_NAME)
            return tpl_contains(r, at, v, arg);
        if (tpl_compare(v, arg, &c)) {
            tpl_render_fail(r, at, "'%s' not supported between instances of '%s' and '%s'",
                            op == TK_LT ? "<" : op == TK_LE ? "<=" : op == TK_GT ? ">" : ">=",
                            tpl_type_name(v), tpl_type_name(arg));
            return -1;
        }
        return op == TK_LT ? c < 0 : op == TK_LE ? c <= 0 : op == TK_GT ? c > 0 : c >= 0;
    }
    tpl_render_fail(r, at, "no test named '%s'", name);
    return -1;
}
