/* tilegen command line: dispatches the subcommands of SPEC.md §3.
 * Each subcommand runs the pipeline as a list of phase calls with a check
 * between phases; only this file and the diagnostics module write to stderr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "gen_cmd.h"
#include "spec.h"
#include "spec_load.h"
#include "tpl_cmd.h"
#include "version.h"

static const char usage[] =
    "usage: tilegen check [-D N=V]... [--target T] SPEC...\n"
    "       tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] SPEC...\n"
    "       tilegen run SPEC [-D N=V]... [--in NAME=F.npy]... [--out NAME=F.npy]... [--seed S]\n"
    "       tilegen tpl TEMPLATE [--context FILE] [-I DIR]...\n"
    "       tilegen --help | --version\n";

enum { MAX_SPEC_BYTES = 64 << 20 }; /* larger files are refused (exit 2) */

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

/* Parse -D NAME=VALUE (or -DNAME=VALUE) and --target T (or --target=T);
 * everything else not starting with '-' is a spec. Returns 0 or exit code 2. */
static int parse_cli(int argc, char **argv, Cli *cli)
{
    cli->spec.defines = calloc((size_t)argc, sizeof *cli->spec.defines);
    cli->files = calloc((size_t)argc, sizeof *cli->files);
    if (!cli->spec.defines || !cli->files)
        return usage_error("%s", "out of memory");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "-D", 2)) {
            const char *d = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            const char *eq = d ? strchr(d, '=') : NULL;
            char *end = NULL;
            if (eq) {
                errno = 0;
                (void)strtoll(eq + 1, &end, 10);
            }
            if (!d || !eq || eq == d || !eq[1] || *end || errno == ERANGE)
                return usage_error("-D wants NAME=INTEGER, got '%s'", d ? d : "");
            cli->spec.defines[cli->spec.ndefines++] = d;
        } else if (!strncmp(a, "--target", 8) && (a[8] == '\0' || a[8] == '=')) {
            const char *t = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : "");
            if (strcmp(t, "trn1") && strcmp(t, "trn2"))
                return usage_error("--target wants trn1 or trn2, got '%s'", t);
            cli->spec.target = t;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else {
            cli->files[cli->nfiles++] = a;
        }
    }
    if (!cli->nfiles)
        return usage_error("%s", "no spec given");
    return 0;
}

/* Read a whole file; NULL (and a message) on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tilegen: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= MAX_SPEC_BYTES) {
                fprintf(stderr, "tilegen: '%s' is larger than %d MiB\n", path, MAX_SPEC_BYTES >> 20);
                free(buf);
                buf = NULL;
                break;
            }
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                fprintf(stderr, "tilegen: cannot read '%s': %s\n", path, strerror(errno));
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    *len = n;
    return buf;
}

/* The front end: load -> schema -> semantics. Returns 0 (clean), 1 (spec
 * errors, reported) or 2 (I/O). */
static int check_one(const char *path, const SpecOptions *opt)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return 2;
    Arena arena;
    arena_init(&arena);
    Diag diag;
    diag_init(&diag, &arena);
    diag_add_source(&diag, path, text, len);

    Spec *spec = NULL;
    SpecNode *root = spec_load(&arena, &diag, path, text, len);
    if (root)
        spec = spec_check(&arena, &diag, root, path, opt);
    if (spec)
        sema_check(spec, &diag, &arena);

    diag_print(&diag, stderr);
    int rc = diag.nerrors ? 1 : 0;
    arena_free(&arena);
    free(text);
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
    if (!strcmp(cmd, "tpl"))
        return tpl_cmd_main(argc - 1, argv + 1);
    fprintf(stderr, "tilegen: unknown command '%s'\n%s", cmd, usage);
    return 2;
}
