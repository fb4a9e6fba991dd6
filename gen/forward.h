/* forward.h - HBM forwarding for the C simulation (docs/ir.md, "HBM
 * forwarding"). A load whose tile only carries an input's bytes to its
 * readers is dropped and the readers read the input directly; a store whose
 * tile only carries its writers' results to an output is dropped and the
 * writers write the output directly. An instruction that writes only tiles
 * nothing reads goes too, and one whose dst alone is such a tile skips that
 * write where the back end can; a scan's source on a tile only a memset
 * before it writes reads the memset's number. The outputs are bit-identical
 * (same values, same order of writes to each output element); only SBUF
 * traffic that nothing observes disappears. The assembly keeps every
 * instruction: the hardware needs its DMAs. */
#ifndef TILEGEN_FORWARD_H
#define TILEGEN_FORWARD_H

#include "arena.h"
#include "ir.h"

typedef struct Fwd {
    IrInst **inst;       /* per Ir.insts id: what the C back end emits (the
                            instruction itself or a rewritten copy), NULL when dropped */
    const char **note;   /* per id: why a dropped instruction is gone, else NULL; for a
                            gather kept only to check its indices, why it moves nothing */
    unsigned char *check_only; /* per id: 1 for such a gather (its readers read HBM) */
    int loads;           /* loads dropped (their readers read HBM) */
    int stores;          /* stores dropped (their writers write HBM) */
} Fwd;

/* Work budget of the store coverage proof: element marks per store. Beyond it
 * the store is kept. */
enum { FWD_MARK_BUDGET = 1 << 22 };

/* Analyse ir and fill *out (arrays in arena). Returns 0, or -1 when memory
 * ran out (then *out forwards nothing). */
int fwd_analyze(Arena *arena, const Ir *ir, Fwd *out);

#endif
