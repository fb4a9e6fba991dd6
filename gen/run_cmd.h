/* run_cmd.h - `tilegen run`: assemble a spec and execute it on the ISS
 * (run_cmd.c). */
#ifndef TILEGEN_RUN_CMD_H
#define TILEGEN_RUN_CMD_H

/* argv0 is the program as invoked (locates the templates); argv[0] is "run".
 * Returns the exit code: 0 ok, 1 spec errors, 2 usage, I/O or ISS error. */
int run_cmd_main(const char *argv0, int argc, char **argv);

#endif
