/* gen_cmd.c - `tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] [--report]
 * [--dump=ir|plan|ctx] SPEC...`: runs the pipeline (pipeline.h) on each spec
 * and writes DIR/<k>.h, <k>.c and <k>.s atomically (temp + rename), only when
 * their content changed; -MD adds DIR/<k>.d for make. --dump runs the
 * pipeline to that phase and prints its form instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "gen_cmd.h"
#include "pipeline.h"

static const char gen_usage[] =
    "usage: tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] [--report] [--dump=ir|plan|ctx] SPEC...\n"
    "  --dump=X prints the form after phase X (ir, plan, or the template context as JSON)\n"
    "  to stdout and writes nothing\n"
    "  templates come from $TILEGEN_TEMPLATES, ./templates or <tilegen>/../../templates\n";

/* Parsed command line. */
typedef struct GenCli {
    const char *prog;     /* argv[0], named in depfiles */
    const char *outdir;   /* -o (default generated) */
    SpecOptions opt;      /* -D / --target */
    int depfile;          /* -MD */
    int report;           /* --report */
    const char *dump;     /* --dump=ir|plan|ctx, or NULL */
    const char **files;   /* specs */
    int nfiles;
    const char *tpldir;   /* where the templates were found */
} GenCli;

static int gen_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "tilegen gen: %s%s\n%s", msg, arg, gen_usage);
    return 2;
}

static int parse(int argc, char **argv, GenCli *c)
{
    c->prog = argv[0];
    c->outdir = "generated";
    c->opt.defines = calloc((size_t)argc + 1, sizeof *c->opt.defines);
    c->files = calloc((size_t)argc + 1, sizeof *c->files);
    if (!c->opt.defines || !c->files)
        return gen_usage_error("out of memory", "");
    for (int i = 2; i < argc; i++) {
        char msg[256];
        int r = driver_spec_option(argc, argv, &i, &c->opt, msg, sizeof msg);
        if (r < 0)
            return gen_usage_error(msg, "");
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "-o")) {
            if (i + 1 >= argc)
                return gen_usage_error("-o wants a directory", "");
            c->outdir = argv[++i];
        } else if (!strcmp(a, "-MD")) {
            c->depfile = 1;
        } else if (!strcmp(a, "--report")) {
            c->report = 1;
        } else if (!strncmp(a, "--dump=", 7)) {
            c->dump = a + 7;
            if (strcmp(c->dump, "ir") && strcmp(c->dump, "plan") && strcmp(c->dump, "ctx"))
                return gen_usage_error("--dump wants ir, plan or ctx, got ", c->dump);
        } else if (a[0] == '-' && a[1]) {
            return gen_usage_error("unknown option ", a);
        } else {
            c->files[c->nfiles++] = a;
        }
    }
    if (!c->nfiles)
        return gen_usage_error("no spec given", "");
    return 0;
}

/* Write `data` to `path` unless it already holds exactly that; through a
 * temporary file in the same directory and rename(). 0 ok, -1 (message). */
static int write_if_changed(const char *path, const char *data, size_t len)
{
    size_t old_len;
    char *old = driver_read_file(path, &old_len);
    int same = old && old_len == len && !memcmp(old, data, len);
    free(old);
    if (same)
        return 0;
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= sizeof tmp) {
        fprintf(stderr, "tilegen gen: path too long: %s\n", path);
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "tilegen gen: cannot write '%s': %s\n", tmp, strerror(errno));
        return -1;
    }
    int bad = fwrite(data, 1, len, f) != len;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        fprintf(stderr, "tilegen gen: cannot write '%s': %s\n", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

static int write_outputs(const GenCli *c, const char *kernel, const char *spec_path, const tpl_buf out[PIPE_NOUT])
{
    char path[PIPE_NOUT + 1][4096];
    for (int i = 0; i <= PIPE_NOUT; i++)
        if ((size_t)snprintf(path[i], sizeof path[i], "%s/%s.%s", c->outdir, kernel, i < PIPE_NOUT ? pipe_out_ext[i] : "d") >=
            sizeof path[i]) {
            fprintf(stderr, "tilegen gen: output path too long\n");
            return 2;
        }
    for (int i = 0; i < PIPE_NOUT; i++)
        if (write_if_changed(path[i], out[i].data ? out[i].data : "", out[i].len))
            return 2;
    if (!c->depfile)
        return 0;
    /* DIR/k.h DIR/k.c DIR/k.s: the spec, the templates, the tilegen binary */
    char tpl[PIPE_NOUT][4096];
    const char *deps[PIPE_NOUT + 2];
    int nd = 0;
    deps[nd++] = spec_path;
    for (int i = 0; i < PIPE_NOUT; i++) {
        snprintf(tpl[i], sizeof tpl[i], "%s/%s", c->tpldir, pipe_templates[i]);
        deps[nd++] = tpl[i];
    }
    deps[nd++] = c->prog;
    tpl_buf d;
    tpl_buf_init(&d);
    for (int i = 0; i < PIPE_NOUT; i++) {
        tpl_buf_put(&d, path[i], strlen(path[i]));
        tpl_buf_put(&d, i + 1 < PIPE_NOUT ? " " : ":", 1);
    }
    for (int i = 0; i < nd; i++) {
        tpl_buf_put(&d, " ", 1);
        tpl_buf_put(&d, deps[i], strlen(deps[i]));
    }
    tpl_buf_put(&d, "\n", 1);
    for (int i = 0; i < nd; i++) { /* phony targets: a deleted input is no error */
        tpl_buf_put(&d, deps[i], strlen(deps[i]));
        tpl_buf_put(&d, ":\n", 2);
    }
    int rc = d.over ? 2 : write_if_changed(path[PIPE_NOUT], d.data, d.len) ? 2 : 0;
    tpl_buf_free(&d);
    return rc;
}


/* The pipeline on one spec, to the phase --dump names or to the rendered
 * files; prints what was asked for and returns the exit code. */
static int gen_one(const GenCli *c, const char *path)
{
    const char *dump = c->dump ? c->dump : "";
    PipeRequest rq = {path, &c->opt, PIPE_RENDER, c->tpldir};
    if (*dump)
        rq.stop = !strcmp(dump, "ir") ? PIPE_IR : !strcmp(dump, "plan") ? PIPE_PLAN : PIPE_CONTEXT;
    Pipe p;
    int rc = pipe_run(&p, &rq);
    if (!rc && rq.stop == PIPE_IR)
        ir_dump(stdout, p.ir);
    if (p.plan && (c->report || rq.stop == PIPE_PLAN))
        plan_report(stdout, p.plan); /* also a plan with capacity errors */
    diag_print(&p.diag, stderr);
    if (rc == 2) {
        fprintf(stderr, "tilegen gen: %s", p.msg);
    } else if (!rc && rq.stop == PIPE_CONTEXT) {
        tpl_buf json;
        tpl_buf_init(&json);
        if (tpl_value_json(&json, p.ctx)) {
            fprintf(stderr, "tilegen gen: cannot write the template context as JSON\n");
            rc = 2;
        } else {
            fwrite(json.data, 1, json.len, stdout);
            fputc('\n', stdout);
        }
        tpl_buf_free(&json);
    } else if (!rc && rq.stop == PIPE_RENDER) {
        rc = write_outputs(c, p.spec->kernel, path, p.out);
    }
    pipe_free(&p);
    return rc;
}

int gen_cmd_main(int argc, char **argv)
{
    GenCli c;
    memset(&c, 0, sizeof c);
    int rc = argc < 2 ? gen_usage_error("bad invocation", "") : parse(argc, argv, &c);
    char tplbuf[4096];
    if (!rc)
        c.tpldir = pipe_find_templates(c.prog, tplbuf, sizeof tplbuf);
    for (int i = 0; c.tpldir && i < c.nfiles; i++) {
        int r = gen_one(&c, c.files[i]);
        rc = r > rc ? r : rc;
    }
    free(c.opt.defines);
    free(c.files);
    return rc;
}
