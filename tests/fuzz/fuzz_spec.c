/* fuzz_spec.c - libFuzzer target over the whole front end: load, schema check
 * and semantic checks of arbitrary bytes, diagnostics rendered to /dev/null.
 * Any crash, leak, hang or UB is a bug; found inputs go to corpus_spec/. */
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "spec.h"
#include "spec_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    Arena arena;
    arena_init(&arena);
    arena.limit = 256u << 20;
    Diag diag;
    diag_init(&diag, &arena);
    diag_add_source(&diag, "fuzz.yaml", (const char *)data, size);
    SpecNode *root = spec_load(&arena, &diag, "fuzz.yaml", (const char *)data, size);
    Spec *spec = root ? spec_check(&arena, &diag, root, "fuzz.yaml", NULL) : NULL;
    if (spec)
        sema_check(spec, &diag, &arena);
    if (sink)
        diag_print(&diag, sink);
    arena_free(&arena);
    return 0;
}
