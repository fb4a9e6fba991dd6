/* profile_cmd.c - `tilegen profile SPEC [-D N=V]... [--target T] [--json FILE|-]
 * [--trace FILE] [--svg FILE] [--execute] [--top N] [--budget N|none]`: builds
 * the spec's program through the pipeline (to PIPE_PROGRAM), runs the timing
 * model over it (profile.c) under an instruction budget, and writes the
 * summary to stdout and the requested views to their files, all or none
 * (outfile.h) (SPEC.md §6). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "driver.h"
#include "outfile.h"
#include "pipeline.h"
#include "profile.h"
#include "profile_cmd.h"
#include "tg_iss.h"

static const char profile_usage[] =
    "usage: tilegen profile SPEC [-D NAME=VALUE]... [--target T] [--json FILE|-] [--trace FILE] [--svg FILE]\n"
    "                       [--execute] [--top N] [--budget N|none]\n"
    "Estimated time of one run of the kernel on the target NeuronCore (docs/cost.md).\n"
    "\n"
    "  -D NAME=VALUE     set a parameter of the spec (an integer)\n"
    "      --target T    target NeuronCore: trn1 or trn2 (default: the spec's)\n"
    "      --json FILE   SPEC.md 6 fields as JSON (- = stdout, then no summary)\n"
    "      --trace FILE  Chrome/Perfetto trace events\n"
    "      --svg FILE    a timeline picture\n"
    "      --execute     also compute the values (as the ISS, slower)\n"
    "      --top N       spec lines shown in the summary (default 8)\n"
    "      --budget N    stop with an error after N instructions plus loop iterations;\n"
    "                    'none' for no limit (default: the program's own count, refused\n"
    "                    up front above 2^32)\n"
    "  -h, --help        this text\n"
    "The files are written all or none.\n";

typedef struct ProfCli {
    SpecOptions opt;
    const char *spec, *json, *trace, *svg;
    int execute, top;
    uint64_t budget; /* 0 = the default */
} ProfCli;

/* 0 to go on, 2 after an error, -1 after --help. */
static int parse(int argc, char **argv, ProfCli *c)
{
    static const struct option lo[] = {
        {"target", required_argument, NULL, CLI_OPT_TARGET}, {"json", required_argument, NULL, CLI_OPT_JSON},
        {"trace", required_argument, NULL, CLI_OPT_TRACE},   {"svg", required_argument, NULL, CLI_OPT_SVG},
        {"execute", no_argument, NULL, CLI_OPT_EXECUTE},     {"top", required_argument, NULL, CLI_OPT_TOP},
        {"budget", required_argument, NULL, CLI_OPT_BUDGET}, {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    CliParser cp = {"profile", argc, argv, "D:h", lo, ""};
    c->top = 8;
    if (cli_spec_init(&c->opt, argc))
        return 2;
    int ch;
    while ((ch = cli_next_spec(&cp, &c->opt)) != -1) {
        char *end = NULL;
        long n;
        switch (ch) {
        case 'h':
            fputs(profile_usage, stdout);
            return -1;
        case CLI_OPT_JSON:
        case CLI_OPT_TRACE:
        case CLI_OPT_SVG:
            if (!*optarg)
                return cli_usage_error("profile", "--%s wants a file name, got an empty one",
                                       ch == CLI_OPT_JSON ? "json" : ch == CLI_OPT_TRACE ? "trace" : "svg");
            *(ch == CLI_OPT_JSON ? &c->json : ch == CLI_OPT_TRACE ? &c->trace : &c->svg) = optarg;
            break;
        case CLI_OPT_EXECUTE:
            c->execute = 1;
            break;
        case CLI_OPT_TOP:
            n = strtol(optarg, &end, 10);
            if (!*optarg || *end || n < 0 || n > 100000)
                return cli_usage_error("profile", "--top wants a count, got '%s'", optarg);
            c->top = (int)n;
            break;
        case CLI_OPT_BUDGET:
            if (cli_parse_budget("profile", optarg, &c->budget))
                return 2;
            break;
        default:
            return 2;
        }
    }
    return cli_one_operand("profile", argc, argv, "spec", &c->spec);
}

typedef int (*ViewFn)(FILE *, const Profile *);

/* Render one view into memory and stage it for `path` ("-": stdout at
 * once). 0 or 2 (message printed). */
static int stage_view(OutSet *set, const char *path, ViewFn fn, const Profile *p)
{
    if (!strcmp(path, "-"))
        return fn(stdout, p) ? 2 : 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int bad = !m || fn(m, p) != 0;
    if (m)
        bad |= fclose(m) != 0;
    int rc = 0;
    if (bad) {
        cli_error("cannot write '%s': out of memory", path);
        rc = 2;
    } else if (outfile_stage(set, path, buf, len)) {
        cli_error("%s", set->msg);
        rc = 2;
    }
    free(buf);
    return rc;
}

int profile_cmd_main(const char *argv0, int argc, char **argv)
{
    ProfCli c;
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c);
    char tplbuf[4096], where[8192];
    const char *tpldir = rc ? NULL : pipe_find_templates(argv0, tplbuf, sizeof tplbuf, where, sizeof where);
    if (!rc && !tpldir) {
        cli_error("%s", where);
        rc = 2;
    }
    if (rc) {
        free(c.opt.defines);
        return rc < 0 ? 0 : rc;
    }
    PipeRequest rq = {c.spec, &c.opt, PIPE_PROGRAM, tpldir};
    Pipe pp;
    rc = pipe_run(&pp, &rq);
    diag_print(&pp.diag, stderr);
    if (rc == 2)
        cli_error_text(pp.msg);
    Profile p;
    memset(&p, 0, sizeof p);
    if (!rc) {
        char msg[512];
        p.spec_text = pp.text;
        p.spec_len = pp.len;
        int r = profile_run(&p, pp.prog, pp.prog_len, c.execute, c.trace || c.svg, c.budget, msg, sizeof msg);
        if (r == TG_ELIMIT) {
            cli_budget_error("tilegen profile", p.limit ? p.limit : p.work > TG_ISS_DEFAULT_CAP ? 0 : p.work,
                             p.work, p.st.limit ? p.st.limit : 0);
            rc = 2;
        } else if (r) {
            cli_error("%s", msg);
            rc = 2;
        }
    }
    OutSet set;
    outfile_init(&set);
    if (!rc && !(c.json && !strcmp(c.json, "-")))
        rc = profile_write_summary(stdout, &p, c.top) ? 2 : 0;
    if (!rc && c.json)
        rc = stage_view(&set, c.json, profile_write_json, &p);
    if (!rc && c.trace)
        rc = stage_view(&set, c.trace, profile_write_trace, &p);
    if (!rc && c.svg)
        rc = stage_view(&set, c.svg, profile_write_svg, &p);
    if (!rc && outfile_commit(&set)) {
        cli_error("%s", set.msg);
        rc = 2;
    }
    outfile_free(&set);
    profile_free(&p);
    pipe_free(&pp);
    free(c.opt.defines);
    return rc;
}
