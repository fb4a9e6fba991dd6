/* gen_cmd.h - `tilegen gen`: spec -> generated/<k>.h and <k>.c (gen_cmd.c). */
#ifndef TILEGEN_GEN_CMD_H
#define TILEGEN_GEN_CMD_H

/* argv[0] is the program as invoked (named in -MD depfiles), argv[1] "gen".
 * Returns the exit code: 0 ok, 1 spec errors, 2 usage, I/O or template error. */
int gen_cmd_main(int argc, char **argv);

#endif
