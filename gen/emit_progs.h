/* emit_progs.h - a kernel without a grid whose iterations of its last
 * top-level loop are independent runs them as programs (the C back end's
 * per-program entry, so a host can spread them over threads: tg_threads.h),
 * as it runs a grid's. docs/architecture.md, "Programs on threads". */
#ifndef TILEGEN_EMIT_PROGS_H
#define TILEGEN_EMIT_PROGS_H

#include "ir.h"

/* The bit of the HBM tensor `ap` accesses (its base: views share their
 * base's storage) in a set of up to 64 tensors; 0 past 64 tensors. */
uint64_t emit_hbm_bit(const Ir *ir, const IrAp *ap);

/* The loop whose iterations are the kernel's programs, or NULL: the kernel
 * has no grid, its last top-level statement is a loop without `carried` with
 * constant bounds and at least two iterations, the statements before it
 * write no HBM (each program runs them again: they only set up tiles), and
 * the loop writes no HBM tensor it also reads (iterations could then meet
 * through memory; views count as their base). */
const IrLoop *emit_program_loop(const Ir *ir);

#endif
