/* gen_cmd.h - `tilegen gen`: each spec through the pipeline (pipeline.h) to
 * generated/<k>.h, <k>.c and <k>.s, or to the phase --dump names (gen_cmd.c). */
#ifndef TILEGEN_GEN_CMD_H
#define TILEGEN_GEN_CMD_H

/* argv0 is the program as invoked (named in -MD depfiles, locates the
 * templates), argv[0] "gen". Returns the exit code: 0 ok, 1 spec errors,
 * 2 usage, I/O or template error. */
int gen_cmd_main(const char *argv0, int argc, char **argv);

#endif
