/* cli.c - shared command-line conventions (cli.h): getopt_long with errors
 * that name the option and suggest the nearest one, the error prefix, the
 * version text and the ISS budget option. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "tg_isa.h"
#include "version.h"

static void vcli_error(const char *fmt, va_list ap)
{
    fputs("tilegen: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vcli_error(fmt, ap);
    va_end(ap);
}

void cli_error_text(const char *text)
{
    size_t n = strlen(text);
    fprintf(stderr, "tilegen: error: %s%s", text, n && text[n - 1] == '\n' ? "" : "\n");
}

static void help_hint(const char *cmd)
{
    fprintf(stderr, "Try 'tilegen %s%s--help' for more information.\n", cmd ? cmd : "", cmd ? " " : "");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vcli_error(fmt, ap);
    va_end(ap);
    help_hint(cmd);
    return 2;
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
    const char *list[65];
    size_t k = 0;
    for (; k < n && k < 64; k++)
        list[k] = cands[k];
    list[k] = NULL;
    return diag_suggest(word, list); /* the spec diagnostics' own "did you mean" */
}

/* "--name" of each long option, for suggestions (names stay in `store`). */
static size_t long_names(const struct option *lo, char store[][40], const char **names, size_t max)
{
    size_t n = 0;
    for (; lo && lo->name && n < max; lo++) {
        snprintf(store[n], sizeof store[n], "--%s", lo->name);
        names[n] = store[n];
        n++;
    }
    return n;
}

/* The long options whose name starts with arg[0..n) (getopt_long's
 * abbreviations): how many, and the first in *first. */
static int prefix_matches(const struct option *lo, const char *arg, size_t n, const char **first)
{
    int k = 0;
    for (; lo && lo->name; lo++)
        if (!strncmp(lo->name, arg, n)) {
            if (!k++)
                *first = lo->name;
            if (strlen(lo->name) == n)
                return 1; /* an exact match is never ambiguous */
        }
    return k;
}

/* The error for the option getopt_long refused (c is '?' or ':'). */
static void option_error(CliParser *p, int c)
{
    const char *arg = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
    if (c == ':') {
        if (optopt && optopt < 256 && strncmp(arg, "--", 2))
            cli_error("option '-%c' needs an argument", optopt);
        else
            cli_error("option '%s' needs an argument", arg);
    } else if (!strncmp(arg, "--", 2)) {
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        const char *first = NULL;
        int k = prefix_matches(p->longopts, name, n, &first);
        if (k == 1 && eq)
            cli_error("option '--%s' takes no argument", first);
        else if (k > 1)
            cli_error("option '--%.*s' is ambiguous", (int)n, name);
        else {
            char store[64][40], word[64];
            const char *names[64];
            size_t nn = long_names(p->longopts, store, names, 64);
            snprintf(word, sizeof word, "--%.*s", (int)n, name);
            const char *s = cli_suggest(word, names, nn);
            if (s)
                cli_error("unknown option '--%.*s'; did you mean '%s'?", (int)n, name, s);
            else
                cli_error("unknown option '--%.*s'", (int)n, name);
        }
    } else if (optopt > 0 && optopt < 256) {
        cli_error("unknown option '-%c'", optopt);
    } else {
        cli_error("unknown option '%s'", arg);
    }
    help_hint(p->cmd);
}

int cli_next(CliParser *p)
{
    if (!p->optstring[0]) {
        snprintf(p->optstring, sizeof p->optstring, ":%s", p->shortopts ? p->shortopts : "");
        optind = 1;
        opterr = 0;
    }
    int c = getopt_long(p->argc, p->argv, p->optstring, p->longopts, NULL);
    if (c == '?' || c == ':') {
        option_error(p, c);
        return 0;
    }
    return c;
}

int cli_one_operand(const char *cmd, int argc, char **argv, const char *what, const char **out)
{
    if (optind >= argc)
        return cli_usage_error(cmd, "no %s given", what);
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "one %s at a time; extra argument '%s'", what, argv[optind + 1]);
    *out = argv[optind];
    return 0;
}

void cli_print_version(void)
{
    printf("tilegen %s\n", TILEGEN_VERSION);
    printf("program format %d.%d; targets trn1 and trn2; built with "
#if defined(__clang__)
           "clang " __clang_version__
#elif defined(__GNUC__)
           "gcc " __VERSION__
#else
           "an unknown compiler"
#endif
           "\n",
           TG_ISA_VERSION_MAJOR, TG_ISA_VERSION_MINOR);
}

int cli_parse_budget(const char *cmd, const char *arg, uint64_t *limit)
{
    if (!strcmp(arg, "none")) {
        *limit = UINT64_MAX;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (!*arg || *end || errno || *arg == '-' || v == 0)
        return cli_usage_error(cmd, "--budget wants a positive count of instructions and loop iterations, "
                                    "or 'none', got '%s'", arg);
    *limit = (uint64_t)v;
    return 0;
}

void cli_budget_error(const char *cmd, uint64_t limit, uint64_t work, uint64_t done)
{
    if (limit == 0)
        cli_error("the program's run takes %llu instructions and loop iterations, above the default "
                  "budget of %llu (2^32); raise it with '%s --budget N' or lift it with '--budget none'",
                  (unsigned long long)work, (unsigned long long)((uint64_t)1 << 32), cmd);
    else
        cli_error("the budget of %llu instructions and loop iterations ran out after %llu (a complete run "
                  "takes up to %llu); raise it with '%s --budget N' or lift it with '--budget none'",
                  (unsigned long long)limit, (unsigned long long)done, (unsigned long long)work, cmd);
}
