/* tilegen's host filters for ctemplate (not in Jinja; the differential test
 * runner registers Python twins): c_ident (any string -> a valid C identifier),
 * hex (integer -> 0x-prefixed lowercase hex, optional digit width) and c_float
 * (number -> a float32 C literal that reads back to the same bits). */
#include <math.h>
#include <string.h>

#include "tpl_int.h"

/* C11 keywords get a trailing underscore so they stay usable as names. */
static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
    "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas",
    "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", NULL
};

/* c_ident: every byte outside [A-Za-z0-9_] becomes '_' (a multi-byte UTF-8
 * character becomes one '_'); a leading digit or an empty result gets a '_'
 * prefix; a C keyword gets a '_' suffix. */
static tpl_value *f_c_ident(tpl_call *call, tpl_value *in, const tpl_args *args)
{
    (void)args;
    size_t n;
    const char *s = tpl_str_of(in, &n);
    if (!s) {
        tpl_call_fail(call, "c_ident expects a string, got '%s'", tpl_type_name(in));
        return NULL;
    }
    tpl_buf b;
    tpl_buf_init(&b);
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        tpl_buf_put(&b, "_", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xc0) == 0x80)
            continue; /* continuation byte of a character already replaced */
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_';
        tpl_buf_put(&b, ok ? (const char *)&s[i] : "_", 1);
    }
    for (const char *const *k = c_keywords; *k; k++)
        if (b.len == strlen(*k) && !memcmp(b.data, *k, b.len))
            tpl_buf_put(&b, "_", 1);
    tpl_value *v = b.over ? NULL : tpl_string_n(tpl_call_arena(call), b.data, b.len);
    tpl_buf_free(&b);
    if (!v)
        tpl_call_fail(call, "out of memory");
    return v;
}

/* hex(width=0): 255 -> 0xff, 255|hex(4) -> 0x00ff, -1 -> -0x1. */
static tpl_value *f_hex(tpl_call *call, tpl_value *in, const tpl_args *args)
{
    tpl_kind k = tpl_kind_of(in);
    if (k != TPL_INT && k != TPL_BOOL) {
        tpl_call_fail(call, "hex expects an integer, got '%s'", tpl_type_name(in));
        return NULL;
    }
    tpl_value *w = tpl_arg(args, 0, "width");
    int64_t width = w ? tpl_int_of(w) : 0;
    if (w && tpl_kind_of(w) != TPL_INT) {
        tpl_call_fail(call, "hex width must be an integer");
        return NULL;
    }
    if (width < 0 || width > 32) {
        tpl_call_fail(call, "hex width must be 0..32, got %lld", (long long)width);
        return NULL;
    }
    int64_t i = tpl_int_of(in);
    uint64_t mag = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    char out[64], *e = out + sizeof out, *p = e; /* by hand: printf is slow here */
    do
        *--p = "0123456789abcdef"[mag & 15];
    while (mag >>= 4);
    while (e - p < width)
        *--p = '0';
    *--p = 'x';
    *--p = '0';
    if (i < 0)
        *--p = '-';
    tpl_value *v = tpl_string_n(tpl_call_arena(call), p, (size_t)(e - p));
    if (!v)
        tpl_call_fail(call, "out of memory");
    return v;
}

/* c_float: the value rounded to float32, printed with the fewest digits that
 * read back to the same float32 (Python repr layout), a ".0" when it would
 * otherwise look like an integer, and an "f" suffix: 0.1 -> 0.1f, 1 -> 1.0f,
 * 1e20 -> 1e+20f. Infinities print as INFINITY / -INFINITY and NaN as NAN
 * (from <math.h>); finite values beyond float32's range are an error. */
static tpl_value *f_c_float(tpl_call *call, tpl_value *in, const tpl_args *args)
{
    (void)args;
    tpl_kind k = tpl_kind_of(in);
    if (k != TPL_FLOAT && k != TPL_INT && k != TPL_BOOL) {
        tpl_call_fail(call, "c_float expects a number, got '%s'", tpl_type_name(in));
        return NULL;
    }
    double d = tpl_float_of(in);
    char out[64];
    if (isnan(d)) {
        snprintf(out, sizeof out, "NAN");
    } else if (isinf(d)) {
        snprintf(out, sizeof out, d < 0 ? "-INFINITY" : "INFINITY");
    } else {
        float f = (float)d;
        if (isinf(f)) {
            tpl_call_fail(call, "c_float: %g is out of float32 range", d);
            return NULL;
        }
        tpl_float32_repr(out, sizeof out - 1, f);
        strcat(out, "f");
    }
    tpl_value *v = tpl_string(tpl_call_arena(call), out);
    if (!v)
        tpl_call_fail(call, "out of memory");
    return v;
}

int tpl_add_host_filters(tpl_env *env)
{
    return tpl_env_add_filter(env, "c_ident", f_c_ident) ||
           tpl_env_add_filter(env, "hex", f_hex) ||
           tpl_env_add_filter(env, "c_float", f_c_float) ? -1 : 0;
}
