/* profile_cmd.h - `tilegen profile` (profile_cmd.c): the timing model's views
 * of one spec (SPEC.md §6). */
#ifndef TILEGEN_PROFILE_CMD_H
#define TILEGEN_PROFILE_CMD_H

/* argv[0] is "profile"; argv0 locates the templates. Returns the exit code:
 * 0 ok, 1 spec errors, 2 usage, I/O or model error. */
int profile_cmd_main(const char *argv0, int argc, char **argv);

#endif
