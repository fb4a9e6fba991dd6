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

/* -D NAME=INT (d is "NAME=INT") into opt->defines (room for one more), or
 * --target T (trn1, trn2) into opt->target: 0, or -1 with a message. */
int driver_define(SpecOptions *opt, const char *d, char *msg, size_t msgsize);
int driver_target(SpecOptions *opt, const char *t, char *msg, size_t msgsize);

/* The option getopt_long returned (ch, with its argument arg): 'D' or
 * CLI_OPT_TARGET (cli.h) recorded as above and 1, -1 for a bad value (msg),
 * 0 for any other option. */
int driver_spec_opt(SpecOptions *opt, int ch, const char *arg, char *msg, size_t msgsize);

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
