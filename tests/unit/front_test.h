/* front_test.h - shared helper of the front-end unit tests: run load (+ check
 * + sema) over a YAML string and keep the diagnostics for assertions. */
#ifndef FRONT_TEST_H
#define FRONT_TEST_H

#include <string.h>

#include "arena.h"
#include "diag.h"
#include "spec.h"
#include "spec_load.h"

typedef struct FrontRun {
    Arena arena;   /* everything of the run */
    Diag diag;     /* its diagnostics */
    SpecNode *root;/* loaded tree or NULL */
    Spec *spec;    /* checked spec or NULL */
} FrontRun;

/* phases: 1 = load, 2 = + schema, 3 = + sema */
static inline void front_run(FrontRun *r, const char *yaml, int phases)
{
    arena_init(&r->arena);
    diag_init(&r->diag, &r->arena);
    r->spec = NULL;
    r->root = spec_load(&r->arena, &r->diag, "t.yaml", yaml, strlen(yaml));
    if (r->root && phases >= 2)
        r->spec = spec_check(&r->arena, &r->diag, r->root, "t.yaml", NULL);
    if (r->spec && phases >= 3)
        sema_check(r->spec, &r->diag, &r->arena);
}

/* The first error's code, or "" when none. */
static inline const char *front_first_code(const FrontRun *r)
{
    for (const DiagMsg *m = r->diag.head; m; m = m->next)
        if (m->level == DIAG_ERROR)
            return m->code;
    return "";
}

static inline const DiagMsg *front_first_error(const FrontRun *r)
{
    for (const DiagMsg *m = r->diag.head; m; m = m->next)
        if (m->level == DIAG_ERROR)
            return m;
    return NULL;
}

#endif
