/* profile_cmd.c - `tilegen profile SPEC [-D N=V]... [--target T] [--json FILE|-]
 * [--trace FILE] [--svg FILE] [--execute] [--top N]`: builds the spec's program
 * through the pipeline (to PIPE_PROGRAM), runs the timing model over it (profile.c) and writes
 * the summary to stdout and each requested view to its file (SPEC.md §6). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "pipeline.h"
#include "profile.h"
#include "profile_cmd.h"

static const char profile_usage[] =
    "usage: tilegen profile SPEC [-D N=V]... [--target T] [--json FILE|-] [--trace FILE] [--svg FILE]\n"
    "                       [--execute] [--top N]\n"
    "  estimated time of one run of the kernel on the target NeuronCore (docs/cost.md);\n"
    "  --json: SPEC.md §6 fields (- = stdout, then no summary); --trace: Chrome/Perfetto trace events;\n"
    "  --svg: a timeline picture; --execute: also compute the values (as the ISS, slower);\n"
    "  --top N: spec lines shown in the summary (default 8)\n";

typedef struct ProfCli {
    SpecOptions opt;
    const char *spec, *json, *trace, *svg;
    int execute, top;
} ProfCli;

static int prof_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "tilegen profile: %s%s\n%s", msg, arg, profile_usage);
    return 2;
}

static int parse(int argc, char **argv, ProfCli *c)
{
    c->top = 8;
    c->opt.defines = calloc((size_t)argc + 1, sizeof *c->opt.defines);
    if (!c->opt.defines)
        return prof_usage_error("out of memory", "");
    for (int i = 1; i < argc; i++) {
        char msg[256];
        int r = driver_spec_option(argc, argv, &i, &c->opt, msg, sizeof msg);
        if (r < 0)
            return prof_usage_error(msg, "");
        if (r > 0)
            continue;
        const char *a = argv[i];
        const char **slot = !strcmp(a, "--json") ? &c->json : !strcmp(a, "--trace") ? &c->trace
                          : !strcmp(a, "--svg") ? &c->svg : NULL;
        if (slot) {
            if (i + 1 >= argc || !*argv[i + 1])
                return prof_usage_error(a, " wants a file name");
            *slot = argv[++i];
        } else if (!strcmp(a, "--execute")) {
            c->execute = 1;
        } else if (!strcmp(a, "--top")) {
            char *end = NULL;
            const char *v = i + 1 < argc ? argv[++i] : "";
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 0 || n > 100000)
                return prof_usage_error("--top wants a count, got ", v);
            c->top = (int)n;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(profile_usage, stdout);
            return -1;
        } else if (a[0] == '-' && a[1]) {
            return prof_usage_error("unknown option ", a);
        } else if (c->spec) {
            return prof_usage_error("one spec at a time; extra argument ", a);
        } else {
            c->spec = a;
        }
    }
    if (!c->spec)
        return prof_usage_error("no spec given", "");
    return 0;
}

typedef int (*ViewFn)(FILE *, const Profile *);

/* Write one view to `path` through a temporary file and rename (never a
 * half-written file); "-" is stdout. 0 or 2 (message printed). */
static int write_view(const char *path, ViewFn fn, const Profile *p)
{
    if (!strcmp(path, "-"))
        return fn(stdout, p) ? 2 : 0;
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) { /* a device or pipe: write it directly */
        FILE *d = fopen(path, "wb");
        int bad = !d || fn(d, p) != 0;
        if (d)
            bad |= fclose(d) != 0;
        if (bad)
            fprintf(stderr, "tilegen profile: cannot write '%s': %s\n", path, strerror(errno));
        return bad ? 2 : 0;
    }
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= sizeof tmp) {
        fprintf(stderr, "tilegen profile: path too long: %s\n", path);
        return 2;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "tilegen profile: cannot write '%s': %s\n", path, strerror(errno));
        return 2;
    }
    int bad = fn(f, p) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        fprintf(stderr, "tilegen profile: cannot write '%s': %s\n", path, strerror(errno));
        remove(tmp);
        return 2;
    }
    return 0;
}

int profile_cmd_main(const char *argv0, int argc, char **argv)
{
    ProfCli c;
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c);
    if (rc) {
        free(c.opt.defines);
        return rc < 0 ? 0 : rc;
    }
    char tplbuf[4096];
    PipeRequest rq = {c.spec, &c.opt, PIPE_PROGRAM, pipe_find_templates(argv0, tplbuf, sizeof tplbuf)};
    Pipe pp;
    rc = pipe_run(&pp, &rq);
    diag_print(&pp.diag, stderr);
    if (rc == 2)
        fprintf(stderr, "tilegen profile: %s", pp.msg);
    Profile p;
    memset(&p, 0, sizeof p);
    if (!rc) {
        char msg[512];
        p.spec_text = pp.text;
        p.spec_len = pp.len;
        int r = profile_run(&p, pp.prog, pp.prog_len, c.execute, c.trace || c.svg, msg, sizeof msg);
        if (r) {
            fprintf(stderr, "tilegen profile: %s\n", msg);
            rc = 2;
        }
    }
    if (!rc && !(c.json && !strcmp(c.json, "-")))
        rc = profile_write_summary(stdout, &p, c.top) ? 2 : 0;
    if (!rc && c.json)
        rc = write_view(c.json, profile_write_json, &p);
    if (!rc && c.trace)
        rc = write_view(c.trace, profile_write_trace, &p);
    if (!rc && c.svg)
        rc = write_view(c.svg, profile_write_svg, &p);
    profile_free(&p);
    pipe_free(&pp);
    free(c.opt.defines);
    return rc;
}
