/* tilegen command line: dispatches the subcommands of SPEC.md §3 and is
 * `tilegen check` itself (the pipeline to PIPE_FRONT). The spec-reading
 * commands run the pipeline (pipeline.h) and print what it hands back; only
 * the command modules and the diagnostics module write to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_cmd.h"
#include "diag.h"
#include "driver.h"
#include "gen_cmd.h"
#include "profile_cmd.h"
#include "pipeline.h"
#include "run_cmd.h"
#include "spec.h"
#include "tpl_cmd.h"
#include "version.h"

static const char usage[] =
    "usage: tilegen check [-D N=V]... [--target T] SPEC...\n"
    "       tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] [--report] SPEC...\n"
    "       tilegen run SPEC [-D N=V]... [--target T] [--in NAME=F.npy]... [--out NAME=F.npy]... [--seed S]\n"
    "       tilegen profile SPEC [-D N=V]... [--target T] [--json FILE|-] [--trace FILE] [--svg FILE]\n"
    "       tilegen asm FILE.s -o FILE.bin\n"
    "       tilegen disasm FILE.bin [-o FILE.s]\n"
    "       tilegen tpl TEMPLATE [--context FILE] [-I DIR]...\n"
    "       tilegen --help | --version\n";

/* Options shared by the spec-reading subcommands. */
typedef struct Cli {
    SpecOptions spec;     /* -D and --target */
    const char **files;   /* SPEC arguments */
    int nfiles;
} Cli;

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tilegen: ", stderr);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return 2;
}

/* Parse -D NAME=VALUE and --target T (driver_spec_option); everything else
 * not starting with '-' is a spec. Returns 0 or exit code 2. */
static int parse_cli(int argc, char **argv, Cli *cli)
{
    cli->spec.defines = calloc((size_t)argc + 1, sizeof *cli->spec.defines);
    cli->files = calloc((size_t)argc + 1, sizeof *cli->files);
    if (!cli->spec.defines || !cli->files)
        return usage_error("%s", "out of memory");
    for (int i = 0; i < argc; i++) {
        char msg[256];
        int r = driver_spec_option(argc, argv, &i, &cli->spec, msg, sizeof msg);
        if (r < 0)
            return usage_error("%s", msg);
        if (r > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1])
            return usage_error("unknown option '%s'", argv[i]);
        cli->files[cli->nfiles++] = argv[i];
    }
    if (!cli->nfiles)
        return usage_error("%s", "no spec given");
    return 0;
}

/* The front end on one spec file. Returns 0 (clean), 1 (spec errors,
 * reported) or 2 (I/O). */
static int check_one(const char *path, const SpecOptions *opt)
{
    PipeRequest rq = {path, opt, PIPE_FRONT, NULL};
    Pipe p;
    int rc = pipe_run(&p, &rq);
    diag_print(&p.diag, stderr);
    if (rc == 2)
        fprintf(stderr, "tilegen: %s", p.msg);
    pipe_free(&p);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    Cli cli = {0};
    int rc = parse_cli(argc, argv, &cli);
    for (int i = 0; !rc && i < cli.nfiles; i++) {
        int r = check_one(cli.files[i], &cli.spec);
        if (r > rc)
            rc = r;
    }
    free(cli.spec.defines);
    free(cli.files);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("tilegen %s\n", TILEGEN_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "check"))
        return cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "gen"))
        return gen_cmd_main(argc, argv);
    if (!strcmp(cmd, "run"))
        return run_cmd_main(argv[0], argc - 1, argv + 1);
    if (!strcmp(cmd, "profile"))
        return profile_cmd_main(argv[0], argc - 1, argv + 1);
    if (!strcmp(cmd, "asm"))
        return asm_cmd_asm(argc - 1, argv + 1);
    if (!strcmp(cmd, "disasm"))
        return asm_cmd_disasm(argc - 1, argv + 1);
    if (!strcmp(cmd, "tpl"))
        return tpl_cmd_main(argc - 1, argv + 1);
    fprintf(stderr, "tilegen: unknown command '%s'\n%s", cmd, usage);
    return 2;
}
