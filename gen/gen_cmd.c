/* gen_cmd.c - `tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] [--report]
 * SPEC...`: runs load -> check -> sema -> lower -> plan -> emit -> render for
 * each spec and writes DIR/<k>.h and <k>.c atomically (temp + rename), only
 * when their content changed; -MD adds DIR/<k>.d for make. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asm_cmd.h"
#include "driver.h"
#include "emit.h"
#include "gen_cmd.h"
#include "plan.h"
#include "spec.h"
#include "tpl.h"
#include "version.h"


static const char gen_usage[] =
    "usage: tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] [--report] [--dump=ir|plan|ctx] SPEC...\n"
    "  --dump=X prints the form after phase X (ir, plan, or the template context as JSON)\n"
    "  to stdout and writes nothing\n"
    "  templates come from $TILEGEN_TEMPLATES, ./templates or <tilegen>/../../templates\n";

/* What `gen` writes per kernel: <k>.h, <k>.c and <k>.s, each from its template. */
enum { GEN_H, GEN_C, GEN_S, GEN_NOUT };
static const char *const gen_ext[GEN_NOUT] = {"h", "c", "s"};
static const char *const gen_tpl[GEN_NOUT] = {"kernel.h.j2", "kernel.c.j2", "kernel.s.j2"};

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

/* The templates directory: $TILEGEN_TEMPLATES, ./templates, or next to the
 * binary (bin/tilegen -> templates, build/x/bin/tilegen -> ../../../templates). */
static const char *find_templates(const char *prog, char *buf, size_t size)
{
    const char *env = getenv("TILEGEN_TEMPLATES");
    if (env && *env)
        return env;
    if (access("templates/kernel.c.j2", R_OK) == 0)
        return "templates";
    const char *slash = strrchr(prog, '/');
    static const char *const ups[] = {"/../templates", "/../../templates", "/../../../templates"};
    for (size_t i = 0; slash && i < sizeof ups / sizeof ups[0]; i++) {
        char probe[4200];
        int n = snprintf(buf, size, "%.*s%s", (int)(slash - prog), prog, ups[i]);
        if (n < 0 || (size_t)n >= size || (size_t)snprintf(probe, sizeof probe, "%s/%s", buf, gen_tpl[GEN_C]) >= sizeof probe)
            break;
        if (access(probe, R_OK) == 0)
            return buf;
    }
    return "templates";
}

/* Render one template into out; 0 ok, -1 (message printed). */
static int render(tpl_env *env, const char *name, const tpl_value *ctx, tpl_buf *out)
{
    tpl_error err;
    memset(&err, 0, sizeof err);
    tpl_template *t = tpl_load_file(env, name, &err);
    if (t && tpl_render(env, t, ctx, out, &err) == 0 && !out->over)
        return 0;
    char msg[4096];
    tpl_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "tilegen gen: template error\n%s", msg);
    return -1;
}

/* Banner name of a spec path: as given when relative, its basename when absolute. */
static const char *shown_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return path[0] == '/' && b ? b + 1 : path;
}

static int write_outputs(const GenCli *c, const char *kernel, const char *spec_path, const tpl_buf out[GEN_NOUT])
{
    char path[GEN_NOUT + 1][4096];
    for (int i = 0; i <= GEN_NOUT; i++)
        if ((size_t)snprintf(path[i], sizeof path[i], "%s/%s.%s", c->outdir, kernel, i < GEN_NOUT ? gen_ext[i] : "d") >=
            sizeof path[i]) {
            fprintf(stderr, "tilegen gen: output path too long\n");
            return 2;
        }
    for (int i = 0; i < GEN_NOUT; i++)
        if (write_if_changed(path[i], out[i].data ? out[i].data : "", out[i].len))
            return 2;
    if (!c->depfile)
        return 0;
    /* DIR/k.h DIR/k.c DIR/k.s: the spec, the templates, the tilegen binary */
    char tpl[GEN_NOUT][4096];
    const char *deps[GEN_NOUT + 2];
    int nd = 0;
    deps[nd++] = spec_path;
    for (int i = 0; i < GEN_NOUT; i++) {
        snprintf(tpl[i], sizeof tpl[i], "%s/%s", c->tpldir, gen_tpl[i]);
        deps[nd++] = tpl[i];
    }
    deps[nd++] = c->prog;
    tpl_buf d;
    tpl_buf_init(&d);
    for (int i = 0; i < GEN_NOUT; i++) {
        tpl_buf_put(&d, path[i], strlen(path[i]));
        tpl_buf_put(&d, i + 1 < GEN_NOUT ? " " : ":", 1);
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
    int rc = d.over ? 2 : write_if_changed(path[GEN_NOUT], d.data, d.len) ? 2 : 0;
    tpl_buf_free(&d);
    return rc;
}

/* The assembled program into the context, for kernel.c.j2 to embed:
 * program = rows of up to 16 byte values, program_size = bytes. */
static int put_program(tpl_arena *ta, tpl_value *ctx, const uint8_t *prog, size_t len)
{
    tpl_value *rows = tpl_list(ta), *row = NULL;
    for (size_t i = 0; rows && i < len; i++) {
        if (i % 16 == 0 && (!(row = tpl_list(ta)) || tpl_list_append(ta, rows, row)))
            return -1;
        if (tpl_list_append(ta, row, tpl_int(ta, prog[i])))
            return -1;
    }
    if (!rows || tpl_map_set(ta, ctx, "program", rows) ||
        tpl_map_set(ta, ctx, "program_size", tpl_int(ta, (int64_t)len)))
        return -1;
    return 0;
}

/* The whole pipeline for one spec; returns its exit code. With prog_out
 * (`tilegen run`), nothing is rendered or written: the assembled program is
 * handed back in *prog_out / *prog_len_out (malloc'd). */
static int gen_one(const GenCli *c, const char *path, uint8_t **prog_out, size_t *prog_len_out)
{
    size_t len;
    char *text = driver_read_file(path, &len);
    if (!text) {
        fprintf(stderr, "tilegen gen: cannot read '%s': %s\n", path, driver_io_error(errno));
        return 2;
    }
    Arena arena;
    arena_init(&arena);
    Diag diag;
    diag_init(&diag, &arena);
    tpl_arena *ta = tpl_arena_new();
    tpl_env *env = tpl_env_new();
    tpl_buf out[GEN_NOUT];
    for (int i = 0; i < GEN_NOUT; i++)
        tpl_buf_init(&out[i]);
    uint8_t *prog = NULL;
    size_t prog_len = 0;
    char msg[4096] = "";
    int rc = 1;

    Ir *ir = NULL;
    Plan *plan = NULL;
    tpl_value *ctx = NULL;
    Spec *spec = driver_front_end(&arena, &diag, path, text, len, &c->opt);
    const char *dump = c->dump ? c->dump : "";
    if (spec && !diag.nerrors)
        ir = ir_lower(&arena, spec, &diag);
    if (ir && !diag.nerrors && !strcmp(dump, "ir"))
        ir_dump(stdout, ir);
    if (ir && !diag.nerrors && strcmp(dump, "ir"))
        plan = plan_build(&arena, ir, &diag, 1);
    if (plan && (c->report || !strcmp(dump, "plan")))
        plan_report(stdout, plan);
    int env_ok = ta && env && !tpl_env_add_path(env, c->tpldir) && !tpl_add_host_filters(env);
    if (plan && !diag.nerrors && env_ok && (!*dump || !strcmp(dump, "ctx"))) {
        EmitInfo info = {shown_name(path), TILEGEN_VERSION, gen_tpl[GEN_H], gen_tpl[GEN_C]};
        ctx = emit_context(ta, &arena, ir, plan, &info, &diag);
        /* the listing and its assembled program, embedded by kernel.c.j2 */
        if (ctx && !diag.nerrors &&
            (asm_emit_listing(env, ir, plan, shown_name(path), TILEGEN_VERSION, &diag, &out[GEN_S], &prog,
                              &prog_len, msg, sizeof msg) ||
             put_program(ta, ctx, prog, prog_len)))
            ctx = NULL;
    }
    diag_print(&diag, stderr);
    if (!env_ok) {
        fprintf(stderr, "tilegen gen: out of memory\n");
        rc = 2;
    } else if (!diag.nerrors && plan && !ctx) {
        fprintf(stderr, "tilegen gen: %s\n", *msg ? msg : "out of memory");
        rc = 2;
    } else if (*dump && !diag.nerrors) {
        rc = 0; /* the form after the phase is printed; nothing is written */
        if (ctx) {
            if (tpl_value_json(&out[GEN_H], ctx)) {
                fprintf(stderr, "tilegen gen: cannot write the template context as JSON\n");
                rc = 2;
            } else {
                fwrite(out[GEN_H].data, 1, out[GEN_H].len, stdout);
                fputc('\n', stdout);
            }
        }
    } else if (ctx && !diag.nerrors && prog_out) {
        *prog_out = prog;
        *prog_len_out = prog_len;
        prog = NULL;
        rc = 0;
    } else if (ctx && !diag.nerrors) {
        rc = 2;
        if (!render(env, gen_tpl[GEN_H], ctx, &out[GEN_H]) && !render(env, gen_tpl[GEN_C], ctx, &out[GEN_C]))
            rc = write_outputs(c, spec->kernel, path, out);
    }
    free(prog);
    for (int i = 0; i < GEN_NOUT; i++)
        tpl_buf_free(&out[i]);
    tpl_env_free(env);
    tpl_arena_free(ta);
    arena_free(&arena);
    free(text);
    return rc;
}

int gen_cmd_main(int argc, char **argv)
{
    GenCli c;
    memset(&c, 0, sizeof c);
    int rc = argc < 2 ? gen_usage_error("bad invocation", "") : parse(argc, argv, &c);
    char tplbuf[4096];
    if (!rc)
        c.tpldir = find_templates(c.prog, tplbuf, sizeof tplbuf);
    for (int i = 0; c.tpldir && i < c.nfiles; i++) {
        int r = gen_one(&c, c.files[i], NULL, NULL);
        rc = r > rc ? r : rc;
    }
    free(c.opt.defines);
    free(c.files);
    return rc;
}

int gen_program(const char *argv0, const char *path, const SpecOptions *opt, uint8_t **prog, size_t *len)
{
    GenCli c;
    memset(&c, 0, sizeof c);
    char tplbuf[4096];
    c.prog = argv0;
    c.opt = *opt;
    c.tpldir = find_templates(argv0, tplbuf, sizeof tplbuf);
    return gen_one(&c, path, prog, len);
}
