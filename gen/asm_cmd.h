/* asm_cmd.h - `tilegen asm FILE.s -o FILE.bin` and `tilegen disasm FILE.bin
 * [-o FILE.s]` (asm_cmd.c). */
#ifndef TILEGEN_ASM_CMD_H
#define TILEGEN_ASM_CMD_H

/* argv[0] is the subcommand ("asm" / "disasm"); return the exit code
 * (0 ok, 1 assembly errors or an invalid program, 2 usage or I/O). */
int asm_cmd_asm(const char *argv0, int argc, char **argv);
int asm_cmd_disasm(const char *argv0, int argc, char **argv);

#endif
