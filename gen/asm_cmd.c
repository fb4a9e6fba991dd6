/* asm_cmd.c - the assembler and disassembler as subcommands: reads files,
 * runs gen/asm.c or gen/disasm.c, prints the diagnostics, writes the result
 * whole or not at all (outfile.h).
 * (The listing `tilegen gen` writes comes from the pipeline, pipeline.c.) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "asm_cmd.h"
#include "cli.h"
#include "driver.h"
#include "outfile.h"

static const char asm_usage[] =
    "usage: tilegen asm FILE.s -o FILE.bin\n"
    "Assemble a NeuronCore listing (docs/asm.md) into a binary program.\n"
    "\n"
    "  -o FILE     the program (- = stdout); written whole or not at all\n"
    "  -h, --help  this text\n";
static const char disasm_usage[] =
    "usage: tilegen disasm FILE.bin [-o FILE.s]\n"
    "Disassemble a binary program into a listing that 'tilegen asm' reads back.\n"
    "\n"
    "  -o FILE     the listing (default and - : stdout); written whole or not at all\n"
    "  -h, --help  this text\n";

/* FILE [-o OUT] into *in / *out; 0, 2 after an error, -1 after --help. */
static int parse(int argc, char **argv, const char **in, const char **out)
{
    static const struct option lo[] = {
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    CliParser cp = {argv[0], argc, argv, "o:h", lo, ""};
    *in = *out = NULL;
    int ch;
    while ((ch = cli_next(&cp)) != -1) {
        if (ch == 'h') {
            fputs(!strcmp(argv[0], "asm") ? asm_usage : disasm_usage, stdout);
            return -1;
        }
        if (ch != 'o')
            return 2;
        if (!*optarg)
            return cli_usage_error(argv[0], "-o wants a file name, got an empty one");
        *out = optarg;
    }
    return cli_one_operand(argv[0], argc, argv, "input", in);
}

/* data to path ("-" = stdout) through a staged temporary. 0 or 2. */
static int write_file(const char *path, const void *data, size_t len)
{
    if (!strcmp(path, "-")) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
            cli_error("cannot write to stdout: %s", strerror(errno));
            return 2;
        }
        return 0;
    }
    OutSet set;
    outfile_init(&set);
    int rc = outfile_stage(&set, path, data, len) || outfile_commit(&set) ? 2 : 0;
    if (rc)
        cli_error("%s", set.msg);
    outfile_free(&set);
    return rc;
}

int asm_cmd_asm(const char *argv0, int argc, char **argv)
{
    (void)argv0;
    const char *in, *out;
    int rc = parse(argc, argv, &in, &out);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!out)
        return cli_usage_error("asm", "-o FILE.bin is required");
    size_t len;
    char *text = driver_read_file(in, &len);
    if (!text) {
        cli_error("cannot read '%s': %s", in, driver_io_error(errno));
        return 2;
    }
    Arena arena;
    arena_init(&arena);
    Diag diag;
    diag_init(&diag, &arena);
    diag_add_source(&diag, in, text, len);
    uint8_t *bin = NULL;
    size_t binlen = 0;
    rc = asm_assemble(in, text, len, &diag, &bin, &binlen) ? 1 : 0;
    diag_print(&diag, stderr);
    if (!rc)
        rc = write_file(out, bin, binlen);
    free(bin);
    arena_free(&arena);
    free(text);
    return rc;
}

int asm_cmd_disasm(const char *argv0, int argc, char **argv)
{
    (void)argv0;
    const char *in, *out;
    int rc = parse(argc, argv, &in, &out);
    if (rc)
        return rc < 0 ? 0 : rc;
    size_t len;
    char *data = driver_read_file(in, &len);
    if (!data) {
        cli_error("cannot read '%s': %s", in, driver_io_error(errno));
        return 2;
    }
    tg_prog p;
    char *text = NULL;
    if (tg_prog_decode(&p, (const uint8_t *)data, len)) {
        cli_error("'%s' is not a valid tilegen program (truncated, corrupted or not format version %d)", in,
                  TG_ISA_VERSION_MAJOR);
        rc = 1;
    } else if (!(text = asm_disassemble(&p))) {
        cli_error("out of memory");
        rc = 2;
    } else {
        rc = write_file(out ? out : "-", text, strlen(text));
    }
    free(text);
    free(data);
    return rc;
}
