/* gen_cmd.c - `tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] [--report]
 * [--dump=ir|plan|ctx] SPEC...`: runs the pipeline (pipeline.h) on every
 * spec, then writes DIR/<k>.h, <k>.c and <k>.s (and <k>.d with -MD) of all
 * of them or of none (outfile.h: staged temporaries, renamed together),
 * replacing only files whose content changed and bringing the others up to
 * date for make. --dump runs the pipeline to that phase and prints its form
 * instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "driver.h"
#include "outfile.h"
#include "gen_cmd.h"
#include "pipeline.h"

static const char gen_usage[] =
    "usage: tilegen gen [-o DIR] [-D NAME=VALUE]... [--target T] [-MD] [--stamp FILE] [--report]\n"
    "                   [--dump=ir|plan|ctx] SPEC...\n"
    "Write DIR/<kernel>.h, <kernel>.c and <kernel>.s for each SPEC (\"-\" = stdin).\n"
    "\n"
    "  -o, --output=DIR  output directory, created when missing (default: generated)\n"
    "  -D NAME=VALUE     set a parameter of the spec (an integer)\n"
    "      --target=T    target NeuronCore: trn1 or trn2 (default: the spec's)\n"
    "  -MD               also write DIR/<kernel>.d, a make depfile (spec, templates, tilegen)\n"
    "      --stamp=FILE  after writing, bring the witness FILE up to date (a make target;\n"
    "                    -MD names it too); outputs whose content did not change keep\n"
    "                    their time, so nothing built from them is rebuilt\n"
    "      --report      print each kernel's SBUF/PSUM plan\n"
    "      --dump=X      print the form after phase X (ir, plan, or the template context\n"
    "                    as JSON) to stdout and write nothing\n"
    "  -h, --help        this text\n"
    "\n"
    "All files of all SPECs are written, or none. Templates come from $TILEGEN_TEMPLATES, ./templates, next to the tilegen binary, or\n"
    "the installed share/tilegen/templates.\n";

/* Parsed command line. */
typedef struct GenCli {
    const char *prog;     /* argv0, named in depfiles */
    const char *outdir;   /* -o (default generated) */
    SpecOptions opt;      /* -D / --target */
    int depfile;          /* -MD */
    int report;           /* --report */
    const char *dump;     /* --dump=ir|plan|ctx, or NULL */
    const char *stamp;    /* --stamp FILE, or NULL */
    const char **files;   /* specs */
    int nfiles;
    const char *tpldir;   /* where the templates were found */
} GenCli;

/* 0 to go on, 2 after an error, -1 after --help. */
static int parse(const char *argv0, int argc, char **argv, GenCli *c)
{
    static const struct option lo[] = {
        {"target", required_argument, NULL, CLI_OPT_TARGET}, {"report", no_argument, NULL, CLI_OPT_REPORT},
        {"dump", required_argument, NULL, CLI_OPT_DUMP},     {"output", required_argument, NULL, 'o'},
        {"stamp", required_argument, NULL, CLI_OPT_STAMP},   {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    CliParser cp = {"gen", argc, argv, "o:D:M:h", lo, ""};
    c->prog = argv0;
    c->outdir = "generated";
    if (cli_spec_init(&c->opt, argc))
        return 2;
    int ch;
    while ((ch = cli_next_spec(&cp, &c->opt)) != -1) {
        switch (ch) {
        case 'h':
            fputs(gen_usage, stdout);
            return -1;
        case 'o':
            if (!*optarg)
                return cli_usage_error("gen", "-o wants a directory, got an empty name");
            c->outdir = optarg;
            break;
        case 'M':
            if (strcmp(optarg, "D"))
                return cli_usage_error("gen", "unknown option '-M%s'; did you mean '-MD'?", optarg);
            c->depfile = 1;
            break;
        case CLI_OPT_REPORT:
            c->report = 1;
            break;
        case CLI_OPT_STAMP:
            if (!*optarg)
                return cli_usage_error("gen", "--stamp wants a file name, got an empty one");
            c->stamp = optarg;
            break;
        case CLI_OPT_DUMP:
            c->dump = optarg;
            if (strcmp(c->dump, "ir") && strcmp(c->dump, "plan") && strcmp(c->dump, "ctx"))
                return cli_usage_error("gen", "--dump wants ir, plan or ctx, got '%s'", c->dump);
            break;
        default:
            return 2;
        }
    }
    c->files = (const char **)(argv + optind);
    c->nfiles = argc - optind;
    if (!c->nfiles)
        return cli_usage_error("gen", "no spec given");
    return 0;
}

/* One spec's rendered files, held until the whole run succeeded. */
typedef struct GenKernel {
    const char *spec;       /* the spec path as given */
    char *kernel;           /* its kernel name */
    tpl_buf out[PIPE_NOUT]; /* <k>.h, <k>.c, <k>.s */
} GenKernel;

/* s as a make word into d, as gcc's -MD writes it: a space or tab after
 * backslashes gets them doubled and its own backslash, '$' is '$$', '#' is
 * '\#'. -1 when s cannot be a make word (a newline). */
static int put_make_word(tpl_buf *d, const char *s)
{
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        if (c == '\n' || c == '\r')
            return -1;
        if (c == ' ' || c == '\t') {
            for (size_t k = i; k > 0 && s[k - 1] == '\\'; k--)
                tpl_buf_put(d, "\\", 1);
            tpl_buf_put(d, "\\", 1);
        } else if (c == '$') {
            tpl_buf_put(d, "$", 1);
        } else if (c == '#') {
            tpl_buf_put(d, "\\", 1);
        }
        tpl_buf_put(d, &c, 1);
    }
    return 0;
}

/* DIR/k.h DIR/k.c DIR/k.s [STAMP]: the spec, the templates, the tilegen binary;
 * each prerequisite also as a target without recipe (a deleted input is no
 * error). 0, or 2 with the message printed. */
static int depfile(const GenCli *c, const GenKernel *k, char path[][4096], tpl_buf *d)
{
    char tpl[PIPE_NOUT][4096];
    const char *deps[PIPE_NOUT + 2];
    int nd = 0, bad = 0;
    deps[nd++] = k->spec;
    for (int i = 0; i < PIPE_NOUT; i++) {
        snprintf(tpl[i], sizeof tpl[i], "%s/%s", c->tpldir, pipe_templates[i]);
        deps[nd++] = tpl[i];
    }
    deps[nd++] = c->prog;
    for (int i = 0; i < PIPE_NOUT; i++) {
        bad |= put_make_word(d, path[i]);
        tpl_buf_put(d, i + 1 < PIPE_NOUT || c->stamp ? " " : ":", 1);
    }
    if (c->stamp) {
        bad |= put_make_word(d, c->stamp);
        tpl_buf_put(d, ":", 1);
    }
    for (int i = 0; i < nd; i++) {
        tpl_buf_put(d, " ", 1);
        bad |= put_make_word(d, deps[i]);
    }
    tpl_buf_put(d, "\n", 1);
    for (int i = 0; i < nd; i++) {
        bad |= put_make_word(d, deps[i]);
        tpl_buf_put(d, ":\n", 2);
    }
    if (bad) {
        cli_error("cannot write a depfile for '%s': a file name holds a newline", k->spec);
        return 2;
    }
    if (d->over) {
        cli_error("out of memory");
        return 2;
    }
    return 0;
}

/* Stage k's files (and depfile) into set. 0 or 2 (message printed). */
static int stage_kernel(const GenCli *c, const GenKernel *k, OutSet *set)
{
    char path[PIPE_NOUT + 1][4096];
    for (int i = 0; i <= PIPE_NOUT; i++)
        if ((size_t)snprintf(path[i], sizeof path[i], "%s/%s.%s", c->outdir, k->kernel,
                             i < PIPE_NOUT ? pipe_out_ext[i] : "d") >= sizeof path[i]) {
            cli_error("output path too long: '%s/%s'", c->outdir, k->kernel);
            return 2;
        }
    for (int i = 0; i < PIPE_NOUT; i++)
        if (outfile_stage_flags(set, path[i], k->out[i].data ? k->out[i].data : "", k->out[i].len, OUTFILE_KEEP)) {
            cli_error("%s", set->msg);
            return 2;
        }
    if (!c->depfile)
        return 0;
    tpl_buf d;
    tpl_buf_init(&d);
    int rc = depfile(c, k, path, &d);
    if (!rc && outfile_stage_flags(set, path[PIPE_NOUT], d.data ? d.data : "", d.len, OUTFILE_KEEP)) {
        cli_error("%s", set->msg);
        rc = 2;
    }
    tpl_buf_free(&d);
    return rc;
}

/* The witness of --stamp: names the outputs, rewritten only when they
 * change, but always brought to the time of this run (OUTFILE_TOUCH), so a
 * make rule whose target it is sees it newer than the spec, the templates
 * and tilegen, while outputs of unchanged content keep their time and
 * nothing built from them is rebuilt. 0 or 2 (message printed). */
static int stage_stamp(const GenCli *c, const GenKernel *ks, int n, OutSet *set)
{
    tpl_buf b;
    tpl_buf_init(&b);
    const char *head = "# tilegen gen: these outputs are up to date with their spec, templates and tilegen\n";
    tpl_buf_put(&b, head, strlen(head));
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= PIPE_NOUT; j++) {
            if (j == PIPE_NOUT && !c->depfile)
                break;
            char line[4200];
            int len = snprintf(line, sizeof line, "%s/%s.%s\n", c->outdir, ks[i].kernel,
                               j < PIPE_NOUT ? pipe_out_ext[j] : "d");
            tpl_buf_put(&b, line, len > 0 && (size_t)len < sizeof line ? (size_t)len : 0);
        }
    int rc = 0;
    if (b.over) {
        cli_error("out of memory");
        rc = 2;
    } else if (outfile_stage_flags(set, c->stamp, b.data, b.len, OUTFILE_KEEP | OUTFILE_TOUCH)) {
        cli_error("%s", set->msg);
        rc = 2;
    }
    tpl_buf_free(&b);
    return rc;
}

/* Every kernel's files or none: two specs of one kernel name are an error,
 * then the directory is made, every file staged, and all renamed at once. */
static int write_all(const GenCli *c, GenKernel *ks, int n, OutSet *set)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(ks[i].kernel, ks[j].kernel)) {
                cli_error("'%s' and '%s' both define kernel '%s'; one run of gen writes %s/%s.h once",
                          ks[j].spec, ks[i].spec, ks[i].kernel, c->outdir, ks[i].kernel);
                return 2;
            }
    char msg[4400], sdir[4096];
    const char *slash = c->stamp ? strrchr(c->stamp, '/') : NULL;
    snprintf(sdir, sizeof sdir, "%.*s", slash ? (int)(slash - c->stamp) : 0, slash ? c->stamp : "");
    if (outfile_mkdirs(c->outdir, msg, sizeof msg) || (*sdir && outfile_mkdirs(sdir, msg, sizeof msg))) {
        cli_error("%s", msg);
        return 2;
    }
    int rc = 0;
    for (int i = 0; !rc && i < n; i++)
        rc = stage_kernel(c, &ks[i], set);
    if (!rc && c->stamp)
        rc = stage_stamp(c, ks, n, set);
    if (!rc && outfile_commit(set)) {
        cli_error("%s", set->msg);
        rc = 2;
    }
    return rc;
}

/* The pipeline on one spec, to the phase --dump names or to the rendered
 * files (moved into *k); prints what was asked for, returns the exit code. */
static int gen_one(const GenCli *c, const char *path, GenKernel *k)
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
        cli_error_text(p.msg);
    } else if (!rc && rq.stop == PIPE_CONTEXT) {
        tpl_buf json;
        tpl_buf_init(&json);
        if (tpl_value_json(&json, p.ctx)) {
            cli_error("cannot write the template context as JSON");
            rc = 2;
        } else {
            fwrite(json.data, 1, json.len, stdout);
            fputc('\n', stdout);
        }
        tpl_buf_free(&json);
    } else if (!rc && rq.stop == PIPE_RENDER) {
        k->spec = path;
        if (!(k->kernel = malloc(strlen(p.spec->kernel) + 1))) {
            cli_error("out of memory");
            rc = 2;
        } else {
            strcpy(k->kernel, p.spec->kernel);
            for (int i = 0; i < PIPE_NOUT; i++) {
                k->out[i] = p.out[i]; /* moved out of the pipe */
                tpl_buf_init(&p.out[i]);
            }
        }
    }
    pipe_free(&p);
    return rc;
}

int gen_cmd_main(const char *argv0, int argc, char **argv)
{
    GenCli c;
    memset(&c, 0, sizeof c);
    int rc = parse(argv0, argc, argv, &c);
    if (rc) {
        free(c.opt.defines);
        return rc < 0 ? 0 : rc;
    }
    char tplbuf[4096], where[8192];
    int need_templates = !c.dump || (strcmp(c.dump, "ir") && strcmp(c.dump, "plan"));
    c.tpldir = pipe_find_templates(c.prog, tplbuf, sizeof tplbuf, where, sizeof where);
    if (!c.tpldir && need_templates) {
        cli_error("%s", where);
        free(c.opt.defines);
        return 2;
    }
    OutSet set;
    outfile_init(&set);
    if (c.stamp && c.tpldir) { /* the witness is never older than these (read after this) */
        for (int i = 0; i < c.nfiles; i++)
            outfile_note_input(&set, c.files[i]);
        for (int i = 0; i < PIPE_NOUT; i++) {
            char t[4200];
            snprintf(t, sizeof t, "%s/%s", c.tpldir, pipe_templates[i]);
            outfile_note_input(&set, t);
        }
        outfile_note_input(&set, "/proc/self/exe");
        outfile_note_input(&set, c.prog);
    }
    GenKernel *ks = calloc((size_t)c.nfiles, sizeof *ks);
    if (!ks) {
        cli_error("out of memory");
        rc = 2;
    }
    for (int i = 0; ks && i < c.nfiles; i++) {
        int r = gen_one(&c, c.files[i], &ks[i]);
        rc = r > rc ? r : rc;
    }
    if (!rc && !c.dump)
        rc = write_all(&c, ks, c.nfiles, &set);
    outfile_free(&set);
    for (int i = 0; ks && i < c.nfiles; i++) {
        free(ks[i].kernel);
        for (int j = 0; j < PIPE_NOUT; j++)
            tpl_buf_free(&ks[i].out[j]);
    }
    free(ks);
    free(c.opt.defines);
    return rc;
}
