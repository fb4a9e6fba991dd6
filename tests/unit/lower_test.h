/* lower_test.h - shared helper of the lowering and planner unit tests: run the
 * real front end (load + schema + sema) and the lowering over a YAML string or
 * a file, and evaluate IR expressions at given loop-variable values. */
#ifndef LOWER_TEST_H
#define LOWER_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front_test.h"
#include "ir.h"

typedef struct LowerRun {
    FrontRun front; /* arena, diagnostics, spec */
    Ir *ir;         /* lowered IR, or NULL */
} LowerRun;

/* Front end then lowering; r->ir is NULL when either reported errors. */
static inline Ir *lower_yaml(LowerRun *r, const char *yaml)
{
    front_run(&r->front, yaml, 3);
    r->ir = NULL;
    if (r->front.spec && r->front.diag.nerrors == 0)
        r->ir = ir_lower(&r->front.arena, r->front.spec, &r->front.diag);
    if (!r->ir) /* show why in the test log */
        diag_print(&r->front.diag, stderr);
    return r->ir;
}

/* The same over a file's text (kept alive in the run's arena). */
static inline Ir *lower_file(LowerRun *r, const char *path)
{
    FILE *f = fopen(path, "rb");
    static char text[1 << 16];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return lower_yaml(r, text);
}

/* Value of e with loop variables named in vars[] ("i", ...) set to vals[]
 * (every other slot 0). Fails the test if e cannot be evaluated. */
static inline int64_t lower_eval(const Ir *ir, const Expr *e, const char *const *vars, const int64_t *vals, int n)
{
    int64_t env[64] = {0}, v = 0;
    const Spec *s = ir->spec;
    for (int k = 0; k < n; k++)
        for (int slot = EXPR_VAR_FIRST; slot < s->nslots && slot < 64; slot++)
            if (s->slot_loop[slot] && !strcmp(s->slot_loop[slot]->var, vars[k]))
                env[slot] = vals[k];
    if (!e || expr_eval(e, env, &v, NULL) != 0) {
        fprintf(stderr, "lower_eval: expression cannot be evaluated\n");
        abort();
    }
    return v;
}

/* The bundled specs (specs/NAME.yaml), for whole-spec property tests. */
static const char *const lower_bundled[] = {"attention", "attention_causal", "avgpool2d", "cumsum", "layernorm", "matmul", "mlp",
                                            "rmsnorm", "rope", "softmax", "tensor_add", "tensor_add_bf16",
                                            "transpose2d"};
enum { LOWER_NBUNDLED = sizeof lower_bundled / sizeof *lower_bundled };

/* Lower bundled spec k; fails the test when it does not lower. */
static inline Ir *lower_bundled_spec(LowerRun *r, int k)
{
    char path[64];
    snprintf(path, sizeof path, "specs/%s.yaml", lower_bundled[k]);
    Ir *ir = lower_file(r, path);
    if (!ir) {
        fprintf(stderr, "%s did not lower\n", path);
        abort();
    }
    return ir;
}

/* The first instruction with opcode op, or NULL. */
static inline IrInst *lower_find(const Ir *ir, IrOpcode op)
{
    for (int i = 0; i < ir->ninsts; i++)
        if (ir->insts[i]->op == op)
            return ir->insts[i];
    return NULL;
}

#endif
