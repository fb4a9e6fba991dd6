/* tilegen command line: dispatches the subcommands of SPEC.md §3 and is
 * `tilegen check` itself (the pipeline to PIPE_FRONT). The spec-reading
 * commands run the pipeline (pipeline.h) and print what it hands back; only
 * the command modules and the diagnostics module write to stderr. Every
 * command parses with getopt_long through cli.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_cmd.h"
#include "cli.h"
#include "diag.h"
#include "driver.h"
#include "gen_cmd.h"
#include "outfile.h"
#include "profile_cmd.h"
#include "pipeline.h"
#include "run_cmd.h"
#include "spec.h"
#include "tpl_cmd.h"

static const char usage[] =
    "usage: tilegen COMMAND [OPTION]... [FILE]...\n"
    "\n"
    "  check    validate specs; diagnostics only\n"
    "  gen      write DIR/<kernel>.h .c .s (+ .d with -MD) for each spec\n"
    "  run      assemble a spec and execute it on the instruction-set simulator\n"
    "  profile  estimated time of one run on the target NeuronCore\n"
    "  asm      assemble a NeuronCore listing into a binary program\n"
    "  disasm   disassemble a binary program\n"
    "  tpl      render a template against a JSON/YAML context\n"
    "  help     this text, or 'tilegen help COMMAND' for a command's\n"
    "\n"
    "  -h, --help     this text; 'tilegen COMMAND --help' for each command\n"
    "  -V, --version  the version and build\n"
    "\n"
    "Exit status: 0 ok, 1 errors in the input, 2 usage or I/O error.\n"
    "See tilegen(1).\n";

static const char check_usage[] =
    "usage: tilegen check [-D NAME=VALUE]... [--target T] SPEC...\n"
    "Validate each SPEC (\"-\" = stdin): diagnostics on stderr, nothing written.\n"
    "\n"
    "  -D NAME=VALUE  set a parameter of the spec (an integer)\n"
    "      --target T target NeuronCore: trn1 or trn2 (default: the spec's)\n"
    "  -h, --help     this text\n";

/* The front end on one spec file. Returns 0 (clean), 1 (spec errors,
 * reported) or 2 (I/O). */
static int check_one(const char *path, const SpecOptions *opt)
{
    PipeRequest rq = {path, opt, PIPE_FRONT, NULL};
    Pipe p;
    int rc = pipe_run(&p, &rq);
    diag_print(&p.diag, stderr);
    if (rc == 2)
        cli_error_text(p.msg);
    pipe_free(&p);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    static const struct option lo[] = {
        {"target", required_argument, NULL, CLI_OPT_TARGET}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    CliParser cp = {"check", argc, argv, "D:h", lo, ""};
    SpecOptions spec = {0};
    if (cli_spec_init(&spec, argc))
        return 2;
    int rc = 0, c;
    while (!rc && (c = cli_next_spec(&cp, &spec)) != -1) {
        if (c == 'h') {
            fputs(check_usage, stdout);
            free(spec.defines);
            return 0;
        }
        rc = 2; /* cli_next_spec reported it */
    }
    if (!rc && optind >= argc)
        rc = cli_usage_error("check", "no spec given");
    for (int i = optind; !rc && i < argc; i++) {
        int r = check_one(argv[i], &spec);
        if (r > rc)
            rc = r;
    }
    free(spec.defines);
    return rc;
}

typedef struct Command {
    const char *name;
    int (*main)(const char *argv0, int argc, char **argv); /* argv[0] is the name */
} Command;

static int cmd_check_main(const char *argv0, int argc, char **argv)
{
    (void)argv0;
    return cmd_check(argc, argv);
}

static int cmd_tpl_main(const char *argv0, int argc, char **argv)
{
    (void)argv0;
    return tpl_cmd_main(argc, argv);
}

static const Command commands[] = {
    {"check", cmd_check_main},     {"gen", gen_cmd_main},       {"run", run_cmd_main},
    {"profile", profile_cmd_main}, {"asm", asm_cmd_asm},         {"disasm", asm_cmd_disasm},
    {"tpl", cmd_tpl_main},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static const Command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS + 1];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    names[NCOMMANDS] = "help";
    const char *s = cli_suggest(name, names, NCOMMANDS + 1);
    if (s)
        return cli_usage_error(NULL, "unknown command '%s'; did you mean '%s'?", name, s);
    return cli_usage_error(NULL, "unknown command '%s'", name);
}

/* `tilegen help [COMMAND]`. */
static int cmd_help(const char *argv0, int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc > 2)
        return cli_usage_error(NULL, "help takes one command");
    const Command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    char help[] = "--help";
    char *av[] = {argv[1], help, NULL};
    return c->main(argv0, 2, av);
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
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        cli_print_version();
        return 0;
    }
    if (!strcmp(cmd, "help"))
        return cmd_help(argv[0], argc - 1, argv + 1);
    if (cmd[0] == '-') {
        static const char *const opts[] = {"--help", "--version"};
        const char *s = cli_suggest(cmd, opts, 2);
        if (s)
            return cli_usage_error(NULL, "unknown option '%s'; did you mean '%s'?", cmd, s);
        return cli_usage_error(NULL, "unknown option '%s'", cmd);
    }
    const Command *c = find_command(cmd);
    if (!c)
        return unknown_command(cmd);
    outfile_install_signals();
    return c->main(argv[0], argc - 1, argv + 1);
}
