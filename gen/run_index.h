/* run_index.h - which inputs of a kernel feed the index column of an
 * indirect DMA (SPEC.md §2.1), and the range their values must lie in, so
 * that `tilegen run` draws in-range indices when no --in file gives them. */
#ifndef TILEGEN_RUN_INDEX_H
#define TILEGEN_RUN_INDEX_H

#include <stdint.h>

#include "ir.h"

/* What an input is to indirect DMAs. */
typedef struct RunIndexUse {
    int64_t bound; /* its values must lie in [0, bound) (the tightest use); 0: not derived */
    int opaque;    /* it also reaches an index column through an op not inverted
                      (a product with a tile, a compare...): no bound is known */
} RunIndexUse;

/* Fill use[0 .. ir->spec->ninputs) by walking back from every index column
 * through its writers: a load from an integer input bounds that input by the
 * indexed dimension; tensor_copy passes the bound on; tensor_scalar with
 * constant add / subtract / multiply operands inverts it; any other writer
 * that reads a tile leading back to an input makes that input opaque. */
void run_index_uses(const Ir *ir, RunIndexUse *use);

#endif
