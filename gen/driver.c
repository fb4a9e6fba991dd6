/* driver.c - the pieces the commands share: spec options on the command
 * line, reading a file, and the front end as one call for the pipeline (see
 * driver.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "driver.h"
#include "spec_load.h"

int driver_define(SpecOptions *opt, const char *d, char *msg, size_t msgsize)
{
    const char *eq = strchr(d, '=');
    char *end = NULL;
    if (eq) {
        errno = 0;
        (void)strtoll(eq + 1, &end, 10);
    }
    if (!eq || eq == d || !eq[1] || *end || errno == ERANGE) {
        snprintf(msg, msgsize, "-D wants NAME=INTEGER, got '%s'", d);
        return -1;
    }
    opt->defines[opt->ndefines++] = d;
    return 0;
}

int driver_target(SpecOptions *opt, const char *t, char *msg, size_t msgsize)
{
    if (strcmp(t, "trn1") && strcmp(t, "trn2")) {
        snprintf(msg, msgsize, "--target wants trn1 or trn2, got '%s'", t);
        return -1;
    }
    opt->target = t;
    return 0;
}

int driver_spec_opt(SpecOptions *opt, int ch, const char *arg, char *msg, size_t msgsize)
{
    if (ch == 'D')
        return driver_define(opt, arg, msg, msgsize) ? -1 : 1;
    if (ch == CLI_OPT_TARGET)
        return driver_target(opt, arg, msg, msgsize) ? -1 : 1;
    return 0;
}

char *driver_read_file(const char *path, size_t *len)
{
    FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *b = cap >= DRIVER_MAX_SPEC_BYTES ? NULL : realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                errno = cap >= DRIVER_MAX_SPEC_BYTES ? EFBIG : ENOMEM;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int err = errno ? errno : EIO;
                free(buf);
                buf = NULL;
                errno = err;
            }
            break;
        }
    }
    int err = errno;
    if (f != stdin)
        fclose(f);
    errno = err;
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

const char *driver_io_error(int err)
{
    return err == EFBIG ? "larger than 64 MiB" : strerror(err);
}

Spec *driver_front_end(Arena *arena, Diag *diag, const char *path, const char *text, size_t len,
                       const SpecOptions *opt)
{
    diag_add_source(diag, path, text, len);
    Spec *spec = NULL;
    SpecNode *root = spec_load(arena, diag, path, text, len);
    if (root)
        spec = spec_check(arena, diag, root, path, opt);
    if (spec)
        sema_check(spec, diag, arena);
    return spec;
}
