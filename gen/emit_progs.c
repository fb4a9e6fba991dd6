/* emit_progs.c - the loop whose iterations are programs (emit_progs.h). */
#include "emit_progs.h"

#include "spec.h"

uint64_t emit_hbm_bit(const Ir *ir, const IrAp *ap)
{
    int b = ap->index >= 0 ? ir->spec->tensors[ap->index].base : -1;
    return b < 0 || b >= 64 ? 0 : (uint64_t)1 << b;
}

/* Add the HBM tensor `ap` accesses to `set`; *ok = 0 past 64 tensors. */
static void hbm_bit(const Ir *ir, const IrAp *ap, uint64_t *set, int *ok)
{
    if (ap->mem != IR_MEM_HBM)
        return;
    uint64_t bit = emit_hbm_bit(ir, ap);
    *ok &= bit != 0;
    *set |= bit;
}

/* The HBM tensors the statements read and write. */
static void hbm_sets(const Ir *ir, const IrStmt *st, int n, uint64_t *rd, uint64_t *wr, int *ok)
{
    for (int i = 0; i < n && *ok; i++) {
        if (st[i].kind == IR_STMT_LOOP) {
            hbm_sets(ir, st[i].loop->body, st[i].loop->nbody, rd, wr, ok);
            continue;
        }
        IrOperand ops[IR_MAX_OPERANDS];
        int k = ir_operands(st[i].inst, ops);
        for (int j = 0; j < k; j++) {
            if (ops[j].is_read)
                hbm_bit(ir, ops[j].ap, rd, ok);
            if (ops[j].is_write)
                hbm_bit(ir, ops[j].ap, wr, ok);
        }
    }
}

const IrLoop *emit_program_loop(const Ir *ir)
{
    if (ir->spec->grid_rank || ir->nbody < 1 || ir->body[ir->nbody - 1].kind != IR_STMT_LOOP)
        return NULL;
    const IrLoop *lp = ir->body[ir->nbody - 1].loop;
    if (lp->carried || lp->start_e || lp->stop_e || lp->step <= 0 || lp->trip < 2)
        return NULL;
    uint64_t rd = 0, wr = 0;
    int ok = 1;
    hbm_sets(ir, ir->body, ir->nbody - 1, &rd, &wr, &ok);
    if (!ok || wr)
        return NULL;
    rd = wr = 0;
    hbm_sets(ir, lp->body, lp->nbody, &rd, &wr, &ok);
    return ok && !(rd & wr) ? lp : NULL;
}
