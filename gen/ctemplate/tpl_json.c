/* tpl_json.c - JSON text -> value tree, typed as Python's json.load types it
 * (the differential tests render the same context with jinja2): objects are
 * maps in key order (a repeated key keeps its first place and its last
 * value), integers without '.' or exponent are TPL_INT (an error beyond 64
 * bits), other numbers TPL_FLOAT (strtod, correctly rounded), NaN / Infinity
 * / -Infinity are floats, strings are UTF-8 with \uXXXX escapes (surrogate
 * pairs joined; a lone surrogate or a raw control character is an error).
 * The twin of tpl_value_json. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpl_int.h"

typedef struct J {
    tpl_arena *a;
    const char *s, *end; /* the text */
    const char *p;       /* next byte */
    tpl_buf str;         /* scratch for decoded strings */
    tpl_error *err;
} J;

/* Report at the current position: line and column (1-based, in characters)
 * and the source line, for tpl_error_format's caret. */
static tpl_value *fail(J *j, const char *msg)
{
    int line = 1, col = 1;
    const char *start = j->s;
    for (const char *q = j->s; q < j->p && q < j->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
            start = q + 1;
        } else if (((unsigned char)*q & 0xc0) != 0x80) {
            col++;
        }
    }
    if (j->err) {
        memset(j->err, 0, sizeof *j->err);
        j->err->line = line;
        j->err->col = col;
        snprintf(j->err->message, sizeof j->err->message, "%s", msg);
        size_t n = 0;
        while (start + n < j->end && start[n] != '\n' && start[n] != '\r' && n + 1 < sizeof j->err->source)
            n++;
        memcpy(j->err->source, start, n);
    }
    return NULL;
}

static void ws(J *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int lit(J *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, word, n)) {
        j->p += n;
        return 1;
    }
    return 0;
}

static int hex4(const char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                   : c >= 'A' && c <= 'F'   ? c - 'A' + 10
                                                                            : -1;
        if (d < 0)
            return 0;
        *v = *v * 16 + (unsigned)d;
    }
    return 1;
}

/* A string at j->p (the opening quote) decoded into j->str. 0 on error. */
static int string(J *j)
{
    j->str.len = 0;
    j->p++;
    for (;;) {
        const char *run = j->p;
        while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
            j->p++;
        tpl_buf_put(&j->str, run, (size_t)(j->p - run));
        if (j->p >= j->end)
            return fail(j, "unterminated string"), 0;
        if (*j->p == '"') {
            j->p++;
            return !j->str.over || (fail(j, "out of memory"), 0);
        }
        if ((unsigned char)*j->p < 0x20)
            return fail(j, "control character in a string (write it as an escape)"), 0;
        /* an escape */
        if (j->end - j->p < 2)
            return fail(j, "unterminated string"), 0;
        char e = j->p[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char out[] = "\"\\/\b\f\n\r\t";
            tpl_buf_put(&j->str, &out[simple - "\"\\/bfnrt"], 1);
            j->p += 2;
            continue;
        }
        unsigned c, lo;
        if (e != 'u')
            return fail(j, "invalid escape in a string"), 0;
        if (j->end - j->p < 6 || !hex4(j->p + 2, &c))
            return fail(j, "\\u needs four hex digits"), 0;
        j->p += 6;
        if (c >= 0xdc00 && c <= 0xdfff)
            return fail(j, "lone low surrogate in a \\u escape"), 0;
        if (c >= 0xd800 && c <= 0xdbff) {
            if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' || !hex4(j->p + 2, &lo) || lo < 0xdc00 ||
                lo > 0xdfff)
                return fail(j, "high surrogate without its low surrogate in a \\u escape"), 0;
            j->p += 6;
            c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        }
        tpl_utf8_put(&j->str, c);
    }
}

static tpl_value *number(J *j)
{
    const char *b = j->p, *q = j->p;
    int is_float = 0;
    if (q < j->end && *q == '-')
        q++;
    if (q >= j->end || *q < '0' || *q > '9')
        return fail(j, "expected a JSON value");
    if (*q == '0')
        q++;
    else
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    if (q < j->end && *q == '.') {
        is_float = 1;
        if (++q >= j->end || *q < '0' || *q > '9')
            return j->p = q, fail(j, "expected a digit after '.'");
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        is_float = 1;
        if (++q < j->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return j->p = q, fail(j, "expected a digit in the exponent");
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    char buf[512];
    size_t n = (size_t)(q - b);
    if (n >= sizeof buf)
        return fail(j, "number too long");
    memcpy(buf, b, n);
    buf[n] = '\0';
    j->p = q;
    errno = 0;
    if (!is_float) {
        long long v = strtoll(buf, NULL, 10);
        if (errno == ERANGE)
            return j->p = b, fail(j, "integer beyond the 64-bit range");
        return tpl_int(j->a, v);
    }
    return tpl_float(j->a, strtod(buf, NULL)); /* overflow gives ±inf, as Python */
}

static tpl_value *value(J *j, int depth)
{
    ws(j);
    if (j->p >= j->end)
        return fail(j, "expected a JSON value");
    if (depth > TPL_JSON_MAX_DEPTH)
        return fail(j, "nesting deeper than 256 levels");
    tpl_value *v;
    switch (*j->p) {
    case '{':
        j->p++;
        v = tpl_map(j->a);
        ws(j);
        if (j->p < j->end && *j->p == '}') {
            j->p++;
            return v;
        }
        while (v) {
            ws(j);
            if (j->p >= j->end || *j->p != '"')
                return fail(j, "expected a string key");
            if (!string(j))
                return NULL;
            char *key = malloc(j->str.len + 1);
            if (!key)
                return fail(j, "out of memory");
            memcpy(key, j->str.data ? j->str.data : "", j->str.len);
            size_t klen = j->str.len;
            ws(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                return fail(j, "expected ':' after an object key");
            }
            j->p++;
            tpl_value *item = value(j, depth + 1);
            int bad = !item || tpl_map_set_n(j->a, v, key, klen, item);
            free(key);
            if (bad)
                return item ? fail(j, "out of memory") : NULL;
            ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == '}') {
                j->p++;
                return v;
            }
            return fail(j, "expected ',' or '}' after an object member");
        }
        return fail(j, "out of memory");
    case '[':
        j->p++;
        v = tpl_list(j->a);
        ws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return v;
        }
        while (v) {
            tpl_value *item = value(j, depth + 1);
            if (!item)
                return NULL;
            if (tpl_list_append(j->a, v, item))
                return fail(j, "out of memory");
            ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == ']') {
                j->p++;
                return v;
            }
            return fail(j, "expected ',' or ']' after an array item");
        }
        return fail(j, "out of memory");
    case '"':
        return string(j) ? tpl_string_n(j->a, j->str.data ? j->str.data : "", j->str.len) : NULL;
    default:
        if (lit(j, "null"))
            return tpl_null(j->a);
        if (lit(j, "true"))
            return tpl_bool(j->a, 1);
        if (lit(j, "false"))
            return tpl_bool(j->a, 0);
        if (lit(j, "NaN"))
            return tpl_float(j->a, NAN);
        if (lit(j, "Infinity"))
            return tpl_float(j->a, HUGE_VAL);
        if (lit(j, "-Infinity"))
            return tpl_float(j->a, -HUGE_VAL);
        return number(j);
    }
}

tpl_value *tpl_value_from_json(tpl_arena *a, const char *text, size_t len, tpl_error *err)
{
    J j = {a, text, text + len, text, {0}, err};
    tpl_buf_init(&j.str);
    tpl_value *v = value(&j, 0);
    if (v) {
        ws(&j);
        if (j.p < j.end)
            v = fail(&j, "extra data after the JSON value");
    }
    tpl_buf_free(&j.str);
    return v;
}
