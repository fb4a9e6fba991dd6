/* asm_cmd.c - the assembler and disassembler as subcommands: reads files,
 * runs gen/asm.c or gen/disasm.c, prints the diagnostics, writes the result.
 * (The listing `tilegen gen` writes comes from the pipeline, pipeline.c.) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "asm_cmd.h"
#include "driver.h"

static const char asm_usage[] = "usage: tilegen asm FILE.s -o FILE.bin\n"
                                "       tilegen disasm FILE.bin [-o FILE.s]\n";

static int usage_error(const char *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "tilegen %s: %s%s\n%s", cmd, msg, arg, asm_usage);
    return 2;
}

/* FILE [-o OUT] into *in / *out; 0 or exit code 2. */
static int parse(int argc, char **argv, const char **in, const char **out)
{
    *in = *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 >= argc)
                return usage_error(argv[0], "-o wants a file", "");
            *out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error(argv[0], "unknown option ", argv[i]);
        } else if (*in) {
            return usage_error(argv[0], "more than one input: ", argv[i]);
        } else {
            *in = argv[i];
        }
    }
    return *in ? 0 : usage_error(argv[0], "no input given", "");
}

static int write_file(const char *cmd, const char *path, const void *data, size_t len)
{
    FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "tilegen %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        return 2;
    }
    int bad = fwrite(data, 1, len, f) != len;
    bad |= f == stdout ? fflush(f) != 0 : fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "tilegen %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        return 2;
    }
    return 0;
}

int asm_cmd_asm(int argc, char **argv)
{
    const char *in, *out;
    int rc = parse(argc, argv, &in, &out);
    if (rc)
        return rc;
    if (!out)
        return usage_error(argv[0], "-o FILE.bin is required", "");
    size_t len;
    char *text = driver_read_file(in, &len);
    if (!text) {
        fprintf(stderr, "tilegen asm: cannot read '%s': %s\n", in, driver_io_error(errno));
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
        rc = write_file("asm", out, bin, binlen);
    free(bin);
    arena_free(&arena);
    free(text);
    return rc;
}

int asm_cmd_disasm(int argc, char **argv)
{
    const char *in, *out;
    int rc = parse(argc, argv, &in, &out);
    if (rc)
        return rc;
    size_t len;
    char *data = driver_read_file(in, &len);
    if (!data) {
        fprintf(stderr, "tilegen disasm: cannot read '%s': %s\n", in, driver_io_error(errno));
        return 2;
    }
    tg_prog p;
    char *text = NULL;
    if (tg_prog_decode(&p, (const uint8_t *)data, len)) {
        fprintf(stderr, "tilegen disasm: '%s' is not a valid tilegen program (truncated, corrupted or not "
                        "format version %d)\n", in, TG_ISA_VERSION_MAJOR);
        rc = 1;
    } else if (!(text = asm_disassemble(&p))) {
        fprintf(stderr, "tilegen disasm: out of memory\n");
        rc = 2;
    } else {
        rc = write_file("disasm", out ? out : "-", text, strlen(text));
    }
    free(text);
    free(data);
    return rc;
}
