/* driver.h - what the commands share on the command line: the -D / --target
 * options, reading a file, and the front end (load -> schema -> semantics) as
 * one call, the pipeline's first phase (pipeline.h). Nothing here prints. */
#ifndef TILEGEN_DRIVER_H
#define TILEGEN_DRIVER_H

#include <stddef.h>

#include "arena.h"
#include "diag.h"
#include "spec.h"

enum { DRIVER_MAX_SPEC_BYTES = 64 << 20 }; /* larger spec files are refused */

/* If argv[*i] is `-D NAME=INT` / `-DNAME=INT` or `--target T` / `--target=T`,
 * record it in opt (stepping *i over a separate value) and return 1. Return 0
 * for any other argument, -1 for a malformed value with a message in msg. */
int driver_spec_option(int argc, char **argv, int *i, SpecOptions *opt, char *msg, size_t msgsize);

/* The whole file at path ("-" = stdin), NUL-terminated, in malloc'd memory;
 * NULL with errno set (EFBIG past DRIVER_MAX_SPEC_BYTES). */
char *driver_read_file(const char *path, size_t *len);

/* Text for a driver_read_file failure's errno. */
const char *driver_io_error(int err);

/* The front end on one spec text: load, schema check, then the semantic
 * checks (also after schema errors, so one run reports all it can). Errors go
 * to diag; returns the Spec, usable only when diag has no errors. */
Spec *driver_front_end(Arena *arena, Diag *diag, const char *path, const char *text, size_t len,
                       const SpecOptions *opt);

#endif
