/* tg_npy.c - strict .npy (format 1.0/2.0/3.0) reading and 1.0 writing for
 * the host numerics harness: parses the header dict (descr, fortran_order,
 * shape), checks them against the expected tensor and moves the raw bytes.
 * Host-only (stdio); needs a little-endian host, which it checks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_npy.h"

static const char *const descrs[TG_DTYPE_COUNT] = {
    [TG_FLOAT32] = "<f4", [TG_TFLOAT32] = "<f4", [TG_BFLOAT16] = "<u2", [TG_FLOAT16] = "<u2",
    [TG_FLOAT8_E4M3] = "|u1", [TG_FLOAT8_E5M2] = "|u1", [TG_INT8] = "|i1", [TG_UINT8] = "|u1",
    [TG_INT16] = "<i2", [TG_UINT16] = "<u2", [TG_INT32] = "<i4", [TG_UINT32] = "<u4",
};

const char *tg_npy_descr(tg_dtype dt) { return (unsigned)dt < TG_DTYPE_COUNT ? descrs[dt] : "?"; }

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int little_endian(void)
{
    uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Header dict fields. */
typedef struct Hdr {
    char descr[16];                   /* e.g. "<f4" */
    int fortran;                      /* fortran_order */
    int rank;                         /* entries in shape */
    uint64_t shape[TG_NPY_MAX_RANK];  /* dims */
    int seen;                         /* bit per key found */
} Hdr;

static const char *skip(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    return p;
}

/* Parse "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }". */
static int parse_header(const char *p, Hdr *h)
{
    memset(h, 0, sizeof *h);
    p = skip(p);
    if (*p++ != '{')
        return -1;
    for (;;) {
        p = skip(p);
        if (*p == '}')
            break;
        if (*p != '\'')
            return -1;
        const char *k = ++p;
        while (*p && *p != '\'')
            p++;
        if (!*p)
            return -1;
        size_t klen = (size_t)(p - k);
        p = skip(p + 1);
        if (*p++ != ':')
            return -1;
        p = skip(p);
        if (klen == 5 && !memcmp(k, "descr", 5)) {
            if (*p++ != '\'')
                return -1;
            size_t n = 0;
            while (*p && *p != '\'' && n + 1 < sizeof h->descr)
                h->descr[n++] = *p++;
            if (*p++ != '\'')
                return -1;
            h->seen |= 1;
        } else if (klen == 13 && !memcmp(k, "fortran_order", 13)) {
            if (!strncmp(p, "False", 5))
                p += 5;
            else if (!strncmp(p, "True", 4)) {
                p += 4;
                h->fortran = 1;
            } else
                return -1;
            h->seen |= 2;
        } else if (klen == 5 && !memcmp(k, "shape", 5)) {
            if (*p++ != '(')
                return -1;
            for (;;) {
                p = skip(p);
                if (*p == ')')
                    break;
                if (*p < '0' || *p > '9' || h->rank >= TG_NPY_MAX_RANK)
                    return -1;
                char *end;
                h->shape[h->rank++] = strtoull(p, &end, 10);
                p = skip(end);
                if (*p == ',')
                    p++;
                else if (*p != ')')
                    return -1;
            }
            p++;
            h->seen |= 4;
        } else {
            return -1;
        }
        p = skip(p);
        if (*p == ',')
            p++;
        else if (*p != '}')
            return -1;
    }
    return h->seen == 7 ? 0 : -1;
}

static int descr_ok(tg_dtype dt, const char *d)
{
    if (!strcmp(d, descrs[dt]))
        return 1;
    if (dt == TG_FLOAT16 && !strcmp(d, "<f2"))
        return 1;
    /* one-byte types: numpy may write '|' or no order mark for them */
    return descrs[dt][0] == '|' && (d[0] == '<' || d[0] == '>' || d[0] == '=') && !strcmp(d + 1, descrs[dt] + 1);
}

int tg_npy_read(const char *path, tg_dtype dt, const uint32_t *shape, uint32_t rank, void *data,
                size_t bytes, char *err, size_t errlen)
{
    if ((unsigned)dt >= TG_DTYPE_COUNT || rank > TG_NPY_MAX_RANK)
        return fail(err, errlen, "%s: bad expected dtype or rank", path);
    if (!little_endian())
        return fail(err, errlen, "%s: this reader needs a little-endian host", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errlen, "%s: cannot open", path);
    unsigned char pre[12];
    char *hdr = NULL;
    int rc = -1;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6)) {
        fail(err, errlen, "%s: not a .npy file (bad magic)", path);
        goto out;
    }
    size_t hlen;
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            fail(err, errlen, "%s: truncated header", path);
            goto out;
        }
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        fail(err, errlen, "%s: unsupported .npy version %d.%d", path, pre[6], pre[7]);
        goto out;
    }
    if (hlen > TG_NPY_MAX_HEADER) {
        fail(err, errlen, "%s: header of %zu bytes is too large", path, hlen);
        goto out;
    }
    hdr = malloc(hlen + 1);
    if (!hdr || fread(hdr, 1, hlen, f) != hlen) {
        fail(err, errlen, "%s: truncated header", path);
        goto out;
    }
    hdr[hlen] = '\0';
    Hdr h;
    if (parse_header(hdr, &h)) {
        fail(err, errlen, "%s: malformed header dict: %s", path, hdr);
        goto out;
    }
    if (h.descr[0] == '>') {
        fail(err, errlen, "%s: big-endian data ('%s'); want '%s'", path, h.descr, descrs[dt]);
        goto out;
    }
    if (!descr_ok(dt, h.descr)) {
        fail(err, errlen, "%s: dtype '%s', want '%s' (%s storage)", path, h.descr, descrs[dt], tg_dtype_name(dt));
        goto out;
    }
    if (h.fortran) {
        fail(err, errlen, "%s: fortran_order arrays are not accepted (write it C-contiguous)", path);
        goto out;
    }
    int same = h.rank == (int)rank;
    for (uint32_t d = 0; same && d < rank; d++)
        same = h.shape[d] == shape[d];
    if (!same) {
        char got[128] = "", want[128] = "";
        for (int d = 0; d < h.rank; d++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%llu", d ? ", " : "",
                     (unsigned long long)h.shape[d]);
        for (uint32_t d = 0; d < rank; d++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%u", d ? ", " : "", shape[d]);
        fail(err, errlen, "%s: shape (%s), want (%s)", path, got, want);
        goto out;
    }
    if (fread(data, 1, bytes, f) != bytes) {
        fail(err, errlen, "%s: truncated data (want %zu bytes)", path, bytes);
        goto out;
    }
    if (fgetc(f) != EOF) {
        fail(err, errlen, "%s: trailing bytes after the data", path);
        goto out;
    }
    rc = 0;
out:
    free(hdr);
    fclose(f);
    return rc;
}

size_t tg_npy_header(unsigned char *buf, size_t size, tg_dtype dt, const uint32_t *shape, uint32_t rank)
{
    if ((unsigned)dt >= TG_DTYPE_COUNT || rank > TG_NPY_MAX_RANK || !little_endian())
        return 0;
    char dict[256];
    size_t n = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descrs[dt]);
    for (uint32_t d = 0; d < rank; d++)
        n += (size_t)snprintf(dict + n, sizeof dict - n, "%u%s", shape[d], rank == 1 || d + 1 < rank ? ", " : "");
    if (rank == 1)
        n -= 1; /* "(5,)" */
    n += (size_t)snprintf(dict + n, sizeof dict - n, "), }");
    size_t total = 10 + n + 1, pad = (64 - total % 64) % 64;
    size_t hlen = n + pad + 1;
    if (10 + hlen > size)
        return 0;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    memcpy(buf, pre, 10);
    memcpy(buf + 10, dict, n);
    memset(buf + 10 + n, ' ', pad);
    buf[10 + hlen - 1] = '\n';
    return 10 + hlen;
}

int tg_npy_write(const char *path, tg_dtype dt, const uint32_t *shape, uint32_t rank,
                 const void *data, char *err, size_t errlen)
{
    unsigned char head[TG_NPY_HEADER_MAX];
    size_t n = tg_npy_header(head, sizeof head, dt, shape, rank);
    if (!n)
        return fail(err, errlen, "%s: bad dtype or rank, or a big-endian host", path);
    size_t elems = 1;
    for (uint32_t d = 0; d < rank; d++)
        elems *= shape[d];
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(err, errlen, "%s: cannot create", path);
    size_t bytes = elems * tg_dtype_size(dt);
    int bad = fwrite(head, 1, n, f) != n;
    bad |= fwrite(data, 1, bytes, f) != bytes;
    bad |= fclose(f) != 0;
    return bad ? fail(err, errlen, "%s: write failed", path) : 0;
}
