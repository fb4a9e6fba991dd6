/* spec_load.h - YAML text -> a located node tree (libyaml events).
 * Every node knows file:line:col. Duplicate keys, anchors, aliases, tags,
 * multiple documents and nesting deeper than SPEC_MAX_DEPTH are errors, as are
 * YAML syntax errors; all are reported located into the Diag. */
#ifndef TILEGEN_SPEC_LOAD_H
#define TILEGEN_SPEC_LOAD_H

#include <stddef.h>

#include "arena.h"
#include "diag.h"

enum { SPEC_MAX_DEPTH = 64 }; /* deepest collection nesting accepted */

typedef enum { SPEC_NODE_SCALAR, SPEC_NODE_MAP, SPEC_NODE_SEQ } SpecNodeKind;

typedef enum { SPEC_STYLE_PLAIN, SPEC_STYLE_QUOTED, SPEC_STYLE_BLOCK } SpecScalarStyle;

typedef struct SpecNode {
    SpecNodeKind kind;       /* scalar, mapping or sequence */
    SrcLoc loc;              /* where the node starts */
    const char *text;        /* scalar: its value, NUL-terminated */
    size_t len;              /* scalar: bytes in text (may contain NULs) */
    SpecScalarStyle style;   /* scalar: plain, quoted or block */
    int text_col;            /* scalar: column of text[0] when the value is
                                written verbatim on one line, else 0 */
    int n;                   /* sequence items / mapping pairs */
    struct SpecNode **items; /* sequence items, or mapping values */
    struct SpecNode **keys;  /* mapping keys (always scalars) */
} SpecNode;

/* Parse text (len bytes, need not be NUL-terminated) named `file`. Returns the
 * document's root node, or NULL after reporting at least one error. */
SpecNode *spec_load(Arena *arena, Diag *diag, const char *file, const char *text, size_t len);

/* The value under `key` in a mapping, or NULL. */
const SpecNode *spec_map_get(const SpecNode *map, const char *key);
/* The location of byte `offset` inside a scalar's text: exact when the scalar
 * is written verbatim on one line, else the scalar's own location. */
SrcLoc spec_loc_at(const SpecNode *scalar, size_t offset);
/* "mapping", "sequence" or "scalar". */
const char *spec_node_kind_name(SpecNodeKind kind);

#endif
