/* asm_emit.h - the assembly back end's model: a lowered, planned kernel
 * (Ir + Plan) becomes a binary program (hardware loops, engine-tagged
 * instructions, semaphores derived from data dependencies), and that program
 * becomes the ctemplate context templates/kernel.s.j2 renders. */
#ifndef TILEGEN_ASM_EMIT_H
#define TILEGEN_ASM_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "plan.h"
#include "tpl.h"

/* What the listing's banner and directives name (never a date or an absolute path). */
typedef struct AsmEmitInfo {
    const char *spec_name; /* the spec as shown (relative path or basename) */
    const char *version;   /* TILEGEN_VERSION */
} AsmEmitInfo;

/* The binary program of ir/plan (malloc'd into *bin). Constructs the ISA
 * cannot express are reported into diag (E110..E119); returns 0 or -1. */
int asm_emit_program(const Ir *ir, const Plan *plan, const AsmEmitInfo *info, Diag *diag, uint8_t **bin,
                     size_t *len);

/* The render context of a (valid) program: kernel, spec, version, template,
 * header (directive lines), lines[] {indent, text, where}. NULL when out of
 * memory or the program does not decode. */
tpl_value *asm_emit_context(tpl_arena *ta, const uint8_t *bin, size_t len);

#endif
