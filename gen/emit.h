/* emit.h - the C back end's model builder: turns a lowered, planned kernel
 * (Ir + Plan) into one ctemplate context value tree that templates/kernel.h.j2
 * and kernel.c.j2 render into generated/<k>.h and <k>.c. No text is written
 * here beyond C expression strings for spec expressions and addresses. */
#ifndef TILEGEN_EMIT_H
#define TILEGEN_EMIT_H

#include "diag.h"
#include "ir.h"
#include "plan.h"
#include "tpl.h"

enum {
    EMIT_MAX_DIMS = 8, /* free loops of one instruction after refinement */
};

/* What the banner names (never a date or an absolute path). */
typedef struct EmitInfo {
    const char *spec_name;  /* the spec as shown in the banner (relative path or basename) */
    const char *version;    /* TILEGEN_VERSION */
    const char *tpl_h;      /* header template name */
    const char *tpl_c;      /* source template name */
} EmitInfo;

/* Build the render context of one kernel in `ta` (strings scratch in
 * `arena`). Ops the C back end cannot express yet are reported into diag as
 * located errors (E100). Returns NULL when anything was reported or memory
 * ran out (also reported). */
tpl_value *emit_context(tpl_arena *ta, Arena *arena, const Ir *ir, const Plan *plan,
                        const EmitInfo *info, Diag *diag);

#endif
