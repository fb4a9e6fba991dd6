/* ctemplate values: the arena they live in, constructors, insertion-ordered
 * maps with a hash index, and the Python semantics templates rely on (str/repr
 * formatting incl. shortest round-trip floats, truthiness, equality, ordering). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tpl_int.h"

/* ---- arena ---------------------------------------------------------------- */
struct TplChunk {
    TplChunk *prev;     /* older chunk */
    size_t size;        /* data bytes */
    size_t used;        /* data bytes handed out */
    size_t last;        /* offset of the most recent allocation (for realloc) */
    _Alignas(16) unsigned char data[]; /* storage */
};

#define TPL_ARENA_DEFAULT_LIMIT ((size_t)2 << 30)

tpl_arena *tpl_arena_new(void)
{
    tpl_arena *a = calloc(1, sizeof *a);
    if (a)
        a->limit = TPL_ARENA_DEFAULT_LIMIT;
    return a;
}

void tpl_arena_free(tpl_arena *a)
{
    if (!a)
        return;
    for (TplChunk *c = a->head, *p; c; c = p) {
        p = c->prev;
        free(c);
    }
    free(a->spare);
    free(a);
}

void *tpl_alloc(tpl_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    TplChunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t sz = n > 65536 ? n : 65536;
        if (c && c->size * 2 > sz && c->size < (1u << 24))
            sz = c->size * 2;
        TplChunk *nc = NULL;
        if (a->spare && a->spare->size >= n) { /* reuse what a reset gave back */
            nc = a->spare;
            sz = nc->size;
            a->spare = NULL;
        }
        if (sz > a->limit || a->total > a->limit - sz) {
            free(nc);
            return NULL;
        }
        if (!nc && !(nc = malloc(sizeof *nc + sz)))
            return NULL;
        nc->prev = c;
        nc->size = sz;
        nc->used = 0;
        nc->last = 0;
        a->head = c = nc;
        a->total += sz;
    }
    void *p = c->data + c->used;
    c->last = c->used;
    c->used += n;
    return p;
}

void *tpl_realloc(tpl_arena *a, void *p, size_t old, size_t n)
{
    TplChunk *c = a->head;
    if (p && c && c->last != (size_t)-1 && (unsigned char *)p == c->data + c->last) {
        size_t need = (n + 15) & ~(size_t)15;
        if (c->last + need <= c->size) {
            c->used = c->last + need;
            return p;
        }
    }
    void *q = tpl_alloc(a, n);
    if (q && p)
        memcpy(q, p, old < n ? old : n);
    return q;
}

char *tpl_strndup(tpl_arena *a, const char *s, size_t n)
{
    char *p = tpl_alloc(a, n + 1);
    if (p) {
        if (n)
            memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

TplMark tpl_mark(tpl_arena *a)
{
    TplMark m = { a->head, a->head ? a->head->used : 0 };
    if (a->head)
        a->head->last = (size_t)-1; /* nothing older may grow in place past the mark */
    return m;
}

void tpl_reset(tpl_arena *a, TplMark m)
{
    while (a->head && a->head != m.chunk) {
        TplChunk *p = a->head->prev;
        a->total -= a->head->size;
        if (!a->spare || a->spare->size < a->head->size) { /* keep the biggest */
            free(a->spare);
            a->spare = a->head;
        } else {
            free(a->head);
        }
        a->head = p;
    }
    if (a->head) {
        a->head->used = m.used;
        a->head->last = (size_t)-1;
    }
}

/* ---- constructors ------------------------------------------------------- */
static tpl_value *mk(tpl_arena *a, tpl_kind k)
{
    tpl_value *v = tpl_alloc(a, sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->kind = k;
    }
    return v;
}

tpl_value *tpl_null(tpl_arena *a) { return mk(a, TPL_NULL); }

tpl_value *tpl_bool(tpl_arena *a, int b)
{
    tpl_value *v = mk(a, TPL_BOOL);
    if (v)
        v->u.b = !!b;
    return v;
}

tpl_value *tpl_int(tpl_arena *a, int64_t i)
{
    tpl_value *v = mk(a, TPL_INT);
    if (v)
        v->u.i = i;
    return v;
}

tpl_value *tpl_float(tpl_arena *a, double f)
{
    tpl_value *v = mk(a, TPL_FLOAT);
    if (v)
        v->u.f = f;
    return v;
}

tpl_value *tpl_string_n(tpl_arena *a, const char *s, size_t n)
{
    tpl_value *v = mk(a, TPL_STRING);
    char *p = v ? tpl_strndup(a, s, n) : NULL;
    if (!p)
        return NULL;
    v->u.str.s = p;
    v->u.str.n = n;
    return v;
}

tpl_value *tpl_string(tpl_arena *a, const char *s) { return tpl_string_n(a, s, strlen(s)); }
tpl_value *tpl_list(tpl_arena *a) { return mk(a, TPL_LIST); }
tpl_value *tpl_map(tpl_arena *a) { return mk(a, TPL_MAP); }

int tpl_list_append(tpl_arena *a, tpl_value *list, tpl_value *item)
{
    if (!list || !item || list->kind != TPL_LIST)
        return -1;
    TplList *l = &list->u.list;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        tpl_value **ni = tpl_realloc(a, l->items, l->cap * sizeof *ni, nc * sizeof *ni);
        if (!ni)
            return -1;
        l->items = ni;
        l->cap = nc;
    }
    l->items[l->n++] = item;
    return 0;
}

uint32_t tpl_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

TplEntry *tpl_map_find(const tpl_value *map, const char *key, size_t klen, uint32_t h)
{
    const TplMap *m = &map->u.map;
    if (m->idx) {
        for (size_t i = h & (m->icap - 1);; i = (i + 1) & (m->icap - 1)) {
            uint32_t k = m->idx[i];
            if (!k)
                return NULL;
            TplEntry *e = &m->e[k - 1];
            if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen))
                return e;
        }
    }
    for (size_t i = 0; i < m->n; i++) {
        TplEntry *e = &m->e[i];
        if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen))
            return e;
    }
    return NULL;
}

static int map_reindex(tpl_arena *a, TplMap *m)
{
    size_t ic = 16;
    while (ic < m->cap * 2)
        ic *= 2;
    uint32_t *idx = tpl_alloc(a, ic * sizeof *idx);
    if (!idx)
        return -1;
    memset(idx, 0, ic * sizeof *idx);
    for (size_t i = 0; i < m->n; i++) {
        size_t j = m->e[i].hash & (ic - 1);
        while (idx[j])
            j = (j + 1) & (ic - 1);
        idx[j] = (uint32_t)(i + 1);
    }
    m->idx = idx;
    m->icap = ic;
    return 0;
}

int tpl_map_set_n(tpl_arena *a, tpl_value *map, const char *key, size_t klen,
                  tpl_value *val)
{
    if (!map || !val || map->kind != TPL_MAP)
        return -1;
    uint32_t h = tpl_hash(key, klen);
    TplEntry *e = tpl_map_find(map, key, klen, h);
    if (e) {
        e->val = val;
        return 0;
    }
    TplMap *m = &map->u.map;
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4;
        TplEntry *ne = tpl_realloc(a, m->e, m->cap * sizeof *ne, nc * sizeof *ne);
        if (!ne)
            return -1;
        m->e = ne;
        m->cap = nc;
        m->idx = NULL;
    }
    char *k = tpl_strndup(a, key, klen);
    if (!k)
        return -1;
    m->e[m->n].key = k;
    m->e[m->n].klen = klen;
    m->e[m->n].hash = h;
    m->e[m->n].val = val;
    m->n++;
    if (m->n > 8) {
        if (!m->idx)
            return map_reindex(a, m);
        size_t j = h & (m->icap - 1);
        while (m->idx[j])
            j = (j + 1) & (m->icap - 1);
        m->idx[j] = (uint32_t)m->n;
    }
    return 0;
}

int tpl_map_set(tpl_arena *a, tpl_value *map, const char *key, tpl_value *val)
{
    return tpl_map_set_n(a, map, key, strlen(key), val);
}

/* ---- accessors ------------------------------------------------------------ */
tpl_kind tpl_kind_of(const tpl_value *v) { return v->kind; }

int64_t tpl_int_of(const tpl_value *v)
{
    return v->kind == TPL_INT ? v->u.i : v->kind == TPL_BOOL ? v->u.b : 0;
}

double tpl_float_of(const tpl_value *v)
{
    return v->kind == TPL_FLOAT ? v->u.f : (double)tpl_int_of(v);
}

const char *tpl_str_of(const tpl_value *v, size_t *len)
{
    if (v->kind != TPL_STRING)
        return NULL;
    if (len)
        *len = v->u.str.n;
    return v->u.str.s;
}

size_t tpl_len(const tpl_value *v)
{
    switch (v->kind) {
    case TPL_LIST: return v->u.list.n;
    case TPL_MAP: return v->u.map.n;
    case TPL_STRING: return v->u.str.n;
    default: return 0;
    }
}

tpl_value *tpl_list_get(const tpl_value *list, size_t i)
{
    return list->kind == TPL_LIST && i < list->u.list.n ? list->u.list.items[i] : NULL;
}

tpl_value *tpl_map_get(const tpl_value *map, const char *key, size_t klen)
{
    if (map->kind != TPL_MAP)
        return NULL;
    TplEntry *e = tpl_map_find(map, key, klen, tpl_hash(key, klen));
    return e ? e->val : NULL;
}

/* ---- buffers ---------------------------------------------------------------- */
void tpl_buf_init(tpl_buf *b) { memset(b, 0, sizeof *b); }

void tpl_buf_free(tpl_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void tpl_buf_put(tpl_buf *b, const char *s, size_t n)
{
    if (b->over)
        return;
    if (b->max && (n > b->max || b->len > b->max - n)) {
        b->over = 1;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *nd = realloc(b->data, nc);
        if (!nd) {
            b->over = 1;
            return;
        }
        b->data = nd;
        b->cap = nc;
    }
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void tpl_buf_printf(tpl_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        tpl_buf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ---- Python formatting ---------------------------------------------------- */
/* Lay out a digit string d[0..nd) meaning 0.d * 10^(exp+1) (one digit before
 * the point) the way Python's repr does: positional for 1e-4 <= |x| < 1e16,
 * else d.ddde+XX. Trailing zero digits are dropped first. */
static void python_layout(char *out, size_t n, int neg, const char *digits, int nd, int exp)
{
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    char *o = out;
    size_t left = n;
#define PUT(c) do { if (left > 1) { *o++ = (c); left--; } } while (0)
    if (neg)
        PUT('-');
    if (exp >= -4 && exp < 16) {
        if (exp >= 0) {
            for (int i = 0; i <= exp; i++)
                PUT(i < nd ? digits[i] : '0');
            PUT('.');
            if (nd > exp + 1)
                for (int i = exp + 1; i < nd; i++)
                    PUT(digits[i]);
            else
                PUT('0');
        } else {
            PUT('0');
            PUT('.');
            for (int i = 0; i < -exp - 1; i++)
                PUT('0');
            for (int i = 0; i < nd; i++)
                PUT(digits[i]);
        }
    } else {
        PUT(digits[0]);
        if (nd > 1) {
            PUT('.');
            for (int i = 1; i < nd; i++)
                PUT(digits[i]);
        }
        PUT('e');
        PUT(exp < 0 ? '-' : '+');
        int a = exp < 0 ? -exp : exp; /* at least two digits, as "%02d" */
        if (a >= 100)
            PUT((char)('0' + a / 100));
        PUT((char)('0' + a / 10 % 10));
        PUT((char)('0' + a % 10));
    }
#undef PUT
    *o = 0;
}

/* python_layout of a "%.*e" rendering ("-d.ddde+XX"). */
static void python_layout_sci(char *out, size_t n, const char *sci)
{
    char digits[24];
    int nd = 0;
    const char *p = sci;
    int neg = *p == '-';
    p += neg;
    for (; *p && *p != 'e' && nd + 1 < (int)sizeof digits; p++)
        if (*p != '.')
            digits[nd++] = *p;
    python_layout(out, n, neg, digits, nd, atoi(p + 1));
}

static int non_finite(char *out, size_t n, double f)
{
    if (isnan(f))
        snprintf(out, n, "nan");
    else if (isinf(f))
        snprintf(out, n, f < 0 ? "-inf" : "inf");
    else
        return 0;
    return 1;
}

/* Shortest "%.*e"-style rendering of x that reads back as x (as a double, or
 * as a float when is_float). One printf gives maxp digits (always enough);
 * shorter candidates are made by rounding that digit string and checked with
 * strtod/strtof, binary-searching the length (round-tripping is monotonic).
 * A dropped tail of exactly "5000..." could be a double rounding, so that
 * length is re-printed by printf instead. */
static void shortest_sci(char *sci, size_t n, double x, int maxp, int is_float)
{
    char full[48];
    snprintf(full, sizeof full, "%.*e", maxp - 1, x);
    const char *p = full;
    int neg = *p == '-';
    p += neg;
    char dig[24];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            dig[nd++] = *p;
    int exp = atoi(p + 1);
    int lo = 1, hi = maxp;
    char best[48];
    snprintf(best, sizeof best, "%s", full);
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        char cand[48];
        int tie = dig[mid] == '5';
        for (int i = mid + 1; i < nd && tie; i++)
            tie = dig[i] == '0';
        if (tie) {
            snprintf(cand, sizeof cand, "%.*e", mid - 1, x);
        } else {
            char d[24];
            memcpy(d, dig, (size_t)mid);
            int e = exp, carry = dig[mid] >= '5';
            for (int i = mid - 1; i >= 0 && carry; i--) {
                if (d[i] == '9') {
                    d[i] = '0';
                } else {
                    d[i]++;
                    carry = 0;
                }
            }
            if (carry) { /* 9.99 -> 10.0: one more power of ten */
                d[0] = '1';
                for (int i = 1; i < mid; i++)
                    d[i] = '0';
                e++;
            }
            char *c = cand;
            if (neg)
                *c++ = '-';
            *c++ = d[0];
            if (mid > 1) {
                *c++ = '.';
                memcpy(c, d + 1, (size_t)mid - 1);
                c += mid - 1;
            }
            snprintf(c, sizeof cand - (size_t)(c - cand), "e%+03d", e);
        }
        int ok = is_float ? strtof(cand, NULL) == (float)x : strtod(cand, NULL) == x;
        if (ok) {
            hi = mid;
            snprintf(best, sizeof best, "%s", cand);
        } else {
            lo = mid + 1;
        }
    }
    snprintf(sci, n, "%s", best);
}

void tpl_float_repr(char *out, size_t n, double f)
{
    char sci[48];
    if (non_finite(out, n, f))
        return;
    shortest_sci(sci, sizeof sci, f, 17, 0);
    python_layout_sci(out, n, sci);
}

#ifdef __SIZEOF_INT128__
/* A printf-free shortest_sci(x, 9, is_float) for float32 values whose exact
 * decimal scaling fits 128 bits (|x| >= 2^-18 or zero): the same digits,
 * because it makes the same choices exactly. With x = m * 2^e, every value
 * below is an integer in units of 10^-t: x itself, and the midpoints lo/hi
 * to its neighbours (strtof reads a decimal back as x iff it lies between
 * them, or on one with m even: ties go to even). The candidate of k digits is
 * x correctly rounded (ties to even, as glibc's printf) and the length is
 * binary-searched over 1..9 exactly as shortest_sci does. Returns the digit
 * count (digits in d, decimal exponent of d[0] in *exp), or 0 if out of range. */
__extension__ typedef unsigned __int128 tpl_u128;

/* 10^k for 0 <= k <= 38 and 5^k for 0 <= k <= 54, from one 64-bit table. */
static tpl_u128 pow10_u128(int k)
{
    static const uint64_t p[20] = {
        1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
        10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
        1000000000000000u, 10000000000000000u, 100000000000000000u,
        1000000000000000000u, 10000000000000000000u
    };
    return k < 20 ? (tpl_u128)p[k] : (tpl_u128)p[19] * p[k - 19];
}

static tpl_u128 pow5_u128(int k)
{
    return k <= 27 ? pow10_u128(k) >> k : (pow10_u128(27) >> 27) * (pow10_u128(k - 27) >> (k - 27));
}

static int float32_digits(float f, char *d, int *exp)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t frac = bits & 0x7fffff, be = bits >> 23 & 0xff;
    if ((bits & 0x7fffffff) == 0) { /* +-0 */
        d[0] = '0';
        *exp = 0;
        return 1;
    }
    if (be == 0 || be == 0xff)
        return 0;
    uint32_t m = frac | 1u << 23;
    int e = (int)be - 150, t = e < 2 ? 2 - e : 0;
    if (t > 43) /* 2^26 * 5^t would overflow 128 bits */
        return 0;
    tpl_u128 unit = pow5_u128(t) << (e + t - 2); /* 2^(e-2), scaled: 5^t * 2^(e+t-2) */
    tpl_u128 x = (tpl_u128)m * 4 * unit, hi = x + 2 * unit;
    tpl_u128 lo = x - (frac == 0 && be > 1 ? unit : 2 * unit); /* a narrower gap below 2^k */
    int n = 1; /* decimal digits of x */
    while (n < 39 && x >= pow10_u128(n))
        n++;
    uint64_t best = 0;
    int lo_k = 1, hi_k = 9, best_k = 0, best_n = n;
    for (int k = 9; k >= 1; k = (lo_k + hi_k) / 2) {
        tpl_u128 q = x, c = x;
        int cn = n;
        if (k < n) {
            tpl_u128 p = pow10_u128(n - k), r;
            q = x / p;
            r = x - q * p;
            if (2 * r > p || (2 * r == p && (q & 1)))
                q++;
            c = q * p;
            if (q == pow10_u128(k)) { /* 9.99 -> 10.0 */
                q /= 10;
                cn++;
            }
        } else {
            q = x * pow10_u128(k - n);
        }
        int ok = (lo < c && c < hi) || ((c == lo || c == hi) && !(m & 1));
        if (k == 9 || ok) {
            best = (uint64_t)q;
            best_k = k;
            best_n = cn;
        }
        if (k != 9) {
            if (ok)
                hi_k = k;
            else
                lo_k = k + 1;
        }
        if (lo_k >= hi_k)
            break;
    }
    for (int i = best_k - 1; i >= 0; i--, best /= 10)
        d[i] = (char)('0' + best % 10);
    *exp = best_n - 1 - t;
    return best_k;
}
#else
static int float32_digits(float f, char *d, int *exp)
{
    (void)f, (void)d, (void)exp;
    return 0;
}
#endif

void tpl_float32_repr_printf(char *out, size_t n, float f)
{
    char sci[48];
    if (non_finite(out, n, f))
        return;
    shortest_sci(sci, sizeof sci, (double)f, 9, 1);
    python_layout_sci(out, n, sci);
}

void tpl_float32_repr(char *out, size_t n, float f)
{
    char sci[48];
    int exp, nd = isfinite(f) ? float32_digits(f, sci, &exp) : 0;
    if (nd)
        python_layout(out, n, signbit(f) != 0, sci, nd, exp);
    else
        tpl_float32_repr_printf(out, n, f);
}

static void repr_string(tpl_buf *b, const char *s, size_t n)
{
    char q = '\'';
    if (memchr(s, '\'', n) && !memchr(s, '"', n))
        q = '"';
    tpl_buf_put(b, &q, 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '\\' || c == (unsigned char)q) {
            esc[0] = '\\';
            esc[1] = (char)c;
            tpl_buf_put(b, esc, 2);
        } else if (c == '\n') {
            tpl_buf_put(b, "\\n", 2);
        } else if (c == '\r') {
            tpl_buf_put(b, "\\r", 2);
        } else if (c == '\t') {
            tpl_buf_put(b, "\\t", 2);
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            tpl_buf_put(b, esc, 4);
        } else if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] <= 0xa0) {
            /* U+0080..U+00A0 are not printable for Python */
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)s[i + 1]);
            tpl_buf_put(b, esc, 4);
            i++;
        } else {
            tpl_buf_put(b, (const char *)&s[i], 1);
        }
    }
    tpl_buf_put(b, &q, 1);
}

static void append_int(tpl_buf *b, int64_t i)
{
    char t[24], *e = t + sizeof t, *p = e; /* by hand: printf is slow here */
    uint64_t m = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    do
        *--p = (char)('0' + m % 10);
    while (m /= 10);
    if (i < 0)
        *--p = '-';
    tpl_buf_put(b, p, (size_t)(e - p));
}

static void append_container(tpl_buf *b, const tpl_value *v)
{
    if (v->kind == TPL_LIST) {
        tpl_buf_put(b, "[", 1);
        for (size_t i = 0; i < v->u.list.n; i++) {
            if (i)
                tpl_buf_put(b, ", ", 2);
            tpl_repr_append(b, v->u.list.items[i]);
        }
        tpl_buf_put(b, "]", 1);
        return;
    }
    tpl_buf_put(b, "{", 1);
    for (size_t i = 0; i < v->u.map.n; i++) {
        if (i)
            tpl_buf_put(b, ", ", 2);
        repr_string(b, v->u.map.e[i].key, v->u.map.e[i].klen);
        tpl_buf_put(b, ": ", 2);
        tpl_repr_append(b, v->u.map.e[i].val);
    }
    tpl_buf_put(b, "}", 1);
}

/* JSON string: quotes, backslash and control characters escaped; UTF-8
 * passes through. */
static void json_string(tpl_buf *b, const char *s, size_t n)
{
    tpl_buf_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            tpl_buf_put(b, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            tpl_buf_put(b, esc, 6);
        } else {
            tpl_buf_put(b, &s[i], 1);
        }
    }
    tpl_buf_put(b, "\"", 1);
}

static int json_value(tpl_buf *b, const tpl_value *v, int depth)
{
    char t[40];
    if (depth > TPL_JSON_MAX_DEPTH)
        return -1;
    switch (v->kind) {
    case TPL_NULL: tpl_buf_put(b, "null", 4); break;
    case TPL_BOOL: v->u.b ? tpl_buf_put(b, "true", 4) : tpl_buf_put(b, "false", 5); break;
    case TPL_INT: append_int(b, v->u.i); break;
    case TPL_FLOAT:
        if (isnan(v->u.f))
            tpl_buf_put(b, "NaN", 3);
        else if (isinf(v->u.f))
            v->u.f < 0 ? tpl_buf_put(b, "-Infinity", 9) : tpl_buf_put(b, "Infinity", 8);
        else {
            tpl_float_repr(t, sizeof t, v->u.f);
            tpl_buf_put(b, t, strlen(t));
        }
        break;
    case TPL_STRING: json_string(b, v->u.str.s, v->u.str.n); break;
    case TPL_LIST:
        tpl_buf_put(b, "[", 1);
        for (size_t i = 0; i < v->u.list.n; i++) {
            if (i)
                tpl_buf_put(b, ", ", 2);
            if (json_value(b, v->u.list.items[i], depth + 1))
                return -1;
        }
        tpl_buf_put(b, "]", 1);
        break;
    case TPL_MAP:
        tpl_buf_put(b, "{", 1);
        for (size_t i = 0; i < v->u.map.n; i++) {
            if (i)
                tpl_buf_put(b, ", ", 2);
            json_string(b, v->u.map.e[i].key, v->u.map.e[i].klen);
            tpl_buf_put(b, ": ", 2);
            if (json_value(b, v->u.map.e[i].val, depth + 1))
                return -1;
        }
        tpl_buf_put(b, "}", 1);
        break;
    case TPL_CALLABLE: return -1;
    }
    return b->over ? -1 : 0;
}

int tpl_value_json(tpl_buf *b, const tpl_value *v)
{
    return json_value(b, v, 0);
}

void tpl_str_append(tpl_buf *b, const tpl_value *v)
{
    char t[40];
    switch (v->kind) {
    case TPL_NULL: tpl_buf_put(b, "None", 4); break;
    case TPL_BOOL: v->u.b ? tpl_buf_put(b, "True", 4) : tpl_buf_put(b, "False", 5); break;
    case TPL_INT: append_int(b, v->u.i); break;
    case TPL_FLOAT:
        tpl_float_repr(t, sizeof t, v->u.f);
        tpl_buf_put(b, t, strlen(t));
        break;
    case TPL_STRING: tpl_buf_put(b, v->u.str.s, v->u.str.n); break;
    case TPL_LIST:
    case TPL_MAP: append_container(b, v); break;
    case TPL_CALLABLE: tpl_buf_put(b, "<callable>", 10); break;
    }
}

void tpl_repr_append(tpl_buf *b, const tpl_value *v)
{
    if (v->kind == TPL_STRING)
        repr_string(b, v->u.str.s, v->u.str.n);
    else
        tpl_str_append(b, v);
}

/* ---- semantics ---------------------------------------------------------- */
int tpl_truthy(const tpl_value *v)
{
    switch (v->kind) {
    case TPL_NULL: return 0;
    case TPL_BOOL: return v->u.b;
    case TPL_INT: return v->u.i != 0;
    case TPL_FLOAT: return v->u.f != 0.0;
    case TPL_STRING: return v->u.str.n != 0;
    case TPL_LIST: return v->u.list.n != 0;
    case TPL_MAP: return v->u.map.n != 0;
    default: return 1;
    }
}

const char *tpl_type_name(const tpl_value *v)
{
    static const char *const names[] = { "NoneType", "bool", "int", "float",
                                         "str", "list", "dict", "function" };
    return names[v->kind];
}

static int is_num(const tpl_value *v)
{
    return v->kind == TPL_INT || v->kind == TPL_FLOAT || v->kind == TPL_BOOL;
}

static int num_cmp(const tpl_value *a, const tpl_value *b)
{
    if (a->kind != TPL_FLOAT && b->kind != TPL_FLOAT) {
        int64_t x = tpl_int_of(a), y = tpl_int_of(b);
        return (x > y) - (x < y);
    }
    double x = tpl_float_of(a), y = tpl_float_of(b);
    return (x > y) - (x < y);
}

int tpl_equal(const tpl_value *a, const tpl_value *b)
{
    if (is_num(a) && is_num(b)) {
        if (a->kind == TPL_FLOAT || b->kind == TPL_FLOAT)
            return tpl_float_of(a) == tpl_float_of(b);
        return tpl_int_of(a) == tpl_int_of(b);
    }
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case TPL_NULL: return 1;
    case TPL_STRING:
        return a->u.str.n == b->u.str.n && !memcmp(a->u.str.s, b->u.str.s, a->u.str.n);
    case TPL_LIST:
        if (a->u.list.n != b->u.list.n)
            return 0;
        for (size_t i = 0; i < a->u.list.n; i++)
            if (!tpl_equal(a->u.list.items[i], b->u.list.items[i]))
                return 0;
        return 1;
    case TPL_MAP:
        if (a->u.map.n != b->u.map.n)
            return 0;
        for (size_t i = 0; i < a->u.map.n; i++) {
            const TplEntry *e = &a->u.map.e[i];
            TplEntry *f = tpl_map_find(b, e->key, e->klen, e->hash);
            if (!f || !tpl_equal(e->val, f->val))
                return 0;
        }
        return 1;
    default: return a == b;
    }
}

int tpl_compare(const tpl_value *a, const tpl_value *b, int *cmp)
{
    if (is_num(a) && is_num(b)) {
        *cmp = num_cmp(a, b);
        return 0;
    }
    if (a->kind != b->kind)
        return -1;
    if (a->kind == TPL_STRING) {
        size_t n = a->u.str.n < b->u.str.n ? a->u.str.n : b->u.str.n;
        int c = n ? memcmp(a->u.str.s, b->u.str.s, n) : 0;
        if (!c)
            c = (a->u.str.n > b->u.str.n) - (a->u.str.n < b->u.str.n);
        *cmp = (c > 0) - (c < 0);
        return 0;
    }
    if (a->kind == TPL_LIST) {
        size_t n = a->u.list.n < b->u.list.n ? a->u.list.n : b->u.list.n;
        for (size_t i = 0; i < n; i++) {
            if (tpl_equal(a->u.list.items[i], b->u.list.items[i]))
                continue;
            return tpl_compare(a->u.list.items[i], b->u.list.items[i], cmp);
        }
        *cmp = (a->u.list.n > b->u.list.n) - (a->u.list.n < b->u.list.n);
        return 0;
    }
    return -1;
}

/* ---- UTF-8 helpers ---------------------------------------------------------- */
size_t tpl_utf8_len(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            c++;
    return c;
}

size_t tpl_space_at(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (!n)
        return 0;
    if ((u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x20))
        return 1;
    if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
        return 2;
    if (n >= 3 && u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
        return 3;
    if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
        (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
        return 3;
    if (n >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
        return 3;
    if (n >= 3 && u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
        return 3;
    return 0;
}

size_t tpl_space_before(const char *s, size_t n)
{
    size_t end = n;
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && end - start < 3 && ((unsigned char)s[start] & 0xc0) == 0x80)
            start--;
        if (tpl_space_at(s + start, end - start) != end - start)
            break;
        end = start;
    }
    return n - end;
}
