/* gen_cmd.h - `tilegen gen`: spec -> generated/<k>.h and <k>.c (gen_cmd.c). */
#ifndef TILEGEN_GEN_CMD_H
#define TILEGEN_GEN_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* argv[0] is the program as invoked (named in -MD depfiles), argv[1] "gen".
 * Returns the exit code: 0 ok, 1 spec errors, 2 usage, I/O or template error. */
int gen_cmd_main(int argc, char **argv);

/* The assembled binary program of one spec (the `gen` pipeline up to the
 * listing), for `tilegen run`: *prog is malloc'd. argv0 locates the templates.
 * Diagnostics go to stderr; returns 0, 1 (spec errors) or 2. */
int gen_program(const char *argv0, const char *path, const SpecOptions *opt, uint8_t **prog, size_t *len);

#endif
