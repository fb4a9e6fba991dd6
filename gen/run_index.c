/* run_index.c - in-range index inputs for `tilegen run` (see run_index.h). */
#include "run_index.h"

#include <math.h>

#include "spec.h"

enum { RUN_INDEX_DEPTH = 8 }; /* writer chains followed back at most this far */

static void walk(const Ir *ir, RunIndexUse *use, const IrAp *col, int64_t bound, int depth);

/* Every input a chain of writers of `ap`'s tile leads back to becomes opaque. */
static void opaque(const Ir *ir, RunIndexUse *use, const IrAp *ap, int depth)
{
    walk(ir, use, ap, -1, depth);
}

/* bound > 0: values of ap must lie in [0, bound); bound < 0: no bound known. */
static int64_t invert_scalar(const IrInst *in, int64_t bound)
{
    for (int k = in->nalu - 1; k >= 0 && bound > 0; k--) {
        const IrScalar *s = &in->scalar[k];
        double c = s->num;
        if (k >= in->nscalar || s->is_ap || s->numx || in->reverse[k] || c != floor(c) || fabs(c) > 1e15)
            return -1;
        switch (in->alu[k]) {
        case SPEC_ALU_ADD: /* x + c < bound, x + c >= 0 for x in [0, ...) */
            if (c < 0)
                return -1;
            bound = bound - (int64_t)c;
            break;
        case SPEC_ALU_SUBTRACT:
            if (c > 0)
                return -1;
            bound = bound + (int64_t)c;
            break;
        case SPEC_ALU_MULTIPLY: /* x * c < bound */
            if (c < 1)
                return -1;
            bound = (bound + (int64_t)c - 1) / (int64_t)c;
            break;
        default:
            return -1;
        }
    }
    return bound > 0 ? bound : -1;
}

static void walk(const Ir *ir, RunIndexUse *use, const IrAp *col, int64_t bound, int depth)
{
    if (depth >= RUN_INDEX_DEPTH || col->mem == IR_MEM_HBM)
        return;
    const Spec *sp = ir->spec;
    for (int i = 0; i < ir->ninsts; i++) {
        const IrInst *in = ir->insts[i];
        if (in->dst.mem != col->mem || in->dst.index != col->index)
            continue;
        switch (in->op) {
        case IR_OP_LOAD: {
            if (in->src[0].mem != IR_MEM_HBM)
                break;
            int t = sp->tensors[in->src[0].index].base;
            if (t >= sp->ninputs || tg_dtype_is_float(sp->tensors[t].dtype))
                break;
            if (bound < 0)
                use[t].opaque = 1;
            else if (!use[t].bound || bound < use[t].bound)
                use[t].bound = bound;
            break;
        }
        case IR_OP_TENSOR_COPY:
            walk(ir, use, &in->src[0], bound, depth + 1);
            break;
        case IR_OP_TENSOR_SCALAR:
            walk(ir, use, &in->src[0], bound < 0 ? -1 : invert_scalar(in, bound), depth + 1);
            break;
        default:
            for (int k = 0; k < in->nsrc; k++)
                opaque(ir, use, &in->src[k], depth + 1);
            for (int k = 0; k < in->nscalar; k++)
                if (in->scalar[k].is_ap)
                    opaque(ir, use, &in->scalar[k].ap, depth + 1);
            break;
        }
    }
}

void run_index_uses(const Ir *ir, RunIndexUse *use)
{
    for (int i = 0; i < ir->spec->ninputs; i++)
        use[i] = (RunIndexUse){0, 0};
    for (int i = 0; i < ir->ninsts; i++) {
        const IrInst *in = ir->insts[i];
        if (in->has_ind)
            walk(ir, use, &in->ind, in->ind_bound, 0);
    }
}
