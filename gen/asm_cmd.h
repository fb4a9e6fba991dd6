/* asm_cmd.h - `tilegen asm FILE.s -o FILE.bin`, `tilegen disasm FILE.bin
 * [-o FILE.s]`, and the hook `tilegen gen` calls to render <k>.s and get the
 * assembled program it embeds. */
#ifndef TILEGEN_ASM_CMD_H
#define TILEGEN_ASM_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "plan.h"
#include "tpl.h"

/* argv[0] is the subcommand ("asm" / "disasm"); return the exit code
 * (0 ok, 1 assembly errors or an invalid program, 2 usage or I/O). */
int asm_cmd_asm(int argc, char **argv);
int asm_cmd_disasm(int argc, char **argv);

/* The listing of a lowered, planned kernel: builds its binary program, renders
 * templates/kernel.s.j2 (found through env's search path) into *listing and
 * hands the program to the caller in *bin / *binlen (malloc'd; free it).
 * Errors go to diag (E11x) or, for template errors, into msg. 0 ok, -1 error. */
int asm_emit_listing(tpl_env *env, const Ir *ir, const Plan *plan, const char *spec_name, const char *version,
                     Diag *diag, tpl_buf *listing, uint8_t **bin, size_t *binlen, char *msg, size_t msgsize);

#endif
