/* cli.h - the command-line conventions every tilegen command shares (GNU and
 * clang style): getopt_long parsing with located, suggesting errors
 * ("tilegen: error: unknown option '--ouput'; did you mean '--out'?"), one
 * error prefix, "Try 'tilegen CMD --help'", --help / --version text, and the
 * ISS budget option of run and profile. Host only (stdio). */
#ifndef TILEGEN_CLI_H
#define TILEGEN_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

/* Values of long options without a short form. */
enum {
    CLI_OPT_TARGET = 256, CLI_OPT_DUMP, CLI_OPT_REPORT, CLI_OPT_IN, CLI_OPT_OUT, CLI_OPT_SEED,
    CLI_OPT_BUDGET, CLI_OPT_JSON, CLI_OPT_TRACE, CLI_OPT_SVG, CLI_OPT_EXECUTE, CLI_OPT_TOP,
    CLI_OPT_CONTEXT, CLI_OPT_STAMP, CLI_OPT_PRINT_DIR,
};

/* One command's option parser over argv[0..argc) (argv[0] is the command
 * name, e.g. "gen"). */
typedef struct CliParser {
    const char *cmd;               /* named in "Try 'tilegen CMD --help'" */
    int argc;
    char **argv;
    const char *shortopts;         /* getopt syntax, without the leading ':' */
    const struct option *longopts; /* terminated by a zero entry */
    char optstring[64];            /* ':' + shortopts (built on first call) */
} CliParser;

/* The next option's value (short option char or long option val), with its
 * argument in `optarg`; -1 when only operands are left (argv[optind..argc),
 * GNU permutation puts them last); 0 after an unknown option, a missing or
 * unwanted argument (the error and the help hint printed: exit with 2). */
int cli_next(CliParser *p);

/* The spec-reading commands (cli_spec.c): opt->defines sized for argc
 * options (0, or 2 after "out of memory"); cli_next with -D and --target
 * recorded into opt (driver_spec_opt), a bad value a usage error (0). */
struct SpecOptions;
int cli_spec_init(struct SpecOptions *opt, int argc);
int cli_next_spec(CliParser *p, struct SpecOptions *opt);

/* The one operand of a command that takes exactly one (`what` names it in
 * the errors: "spec", "input", "template"): argv[optind] into *out, 0; or a
 * usage error, 2. */
int cli_one_operand(const char *cmd, int argc, char **argv, const char *what, const char **out);

/* "tilegen: error: <message>\n" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The same for a ready message (possibly several lines, newline optional). */
void cli_error_text(const char *text);

/* A usage error of command cmd (NULL: the top level): the message as
 * cli_error, then "Try 'tilegen [CMD] --help' for more information."; 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The candidate nearest to word by edit distance when it is close enough to
 * be a plausible typo (diag_suggest's rule), else NULL. */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);

/* `tilegen --version`: "tilegen X.Y.Z" and the build line. */
void cli_print_version(void);

/* --budget N|none of run and profile: instructions plus loop iterations
 * the ISS / timing model may execute. *limit = N, or UINT64_MAX for none.
 * 0, or 2 after a usage error. */
int cli_parse_budget(const char *cmd, const char *arg, uint64_t *limit);

/* The explanation of a TG_ELIMIT for cmd: the budget in force (limit, 0 =
 * the default), the program's own work and how to raise it. */
void cli_budget_error(const char *cmd, uint64_t limit, uint64_t work, uint64_t done);

#endif
