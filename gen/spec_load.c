/* spec_load.c - builds the located node tree from libyaml's event stream.
 * The tree is built with an explicit stack (no recursion), so nesting depth is
 * bounded by SPEC_MAX_DEPTH rather than by the C stack. Codes E00x. */
#include "spec_load.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* A collection under construction: its children in a growable array. */
typedef struct Frame {
    SpecNode *node;      /* the mapping or sequence */
    SpecNode **kids;     /* children so far (keys and values interleaved for maps) */
    size_t nkids, cap;   /* used / allocated entries of kids */
} Frame;

typedef struct Loader {
    Arena *arena;
    Diag *diag;
    const char *file;
    const char *text;
    size_t len;
    Frame stack[SPEC_MAX_DEPTH + 1]; /* open collections */
    int depth;                       /* entries used in stack */
    SpecNode *root;                  /* the finished document */
} Loader;

const char *spec_node_kind_name(SpecNodeKind kind)
{
    return kind == SPEC_NODE_MAP ? "mapping" : kind == SPEC_NODE_SEQ ? "sequence" : "scalar";
}

static SrcLoc mark_loc(const Loader *ld, yaml_mark_t m)
{
    SrcLoc loc = {ld->file, (int)m.line + 1, (int)m.column + 1};
    return loc;
}

/* Line and column of a byte offset (for reader errors, which carry only that). */
static SrcLoc offset_loc(const Loader *ld, size_t off)
{
    SrcLoc loc = {ld->file, 1, 1};
    if (off > ld->len)
        off = ld->len;
    for (size_t i = 0; i < off; i++) {
        if (ld->text[i] == '\n') {
            loc.line++;
            loc.col = 1;
        } else if (((unsigned char)ld->text[i] & 0xC0) != 0x80) {
            loc.col++;
        }
    }
    return loc;
}

static void report_yaml_error(Loader *ld, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->error == YAML_READER_ERROR) {
        if (p->problem_value != -1)
            diag_error(ld->diag, offset_loc(ld, p->problem_offset), "E001", "invalid input: %s (byte 0x%02x)",
                       problem, (unsigned)p->problem_value & 0xffu);
        else
            diag_error(ld->diag, offset_loc(ld, p->problem_offset), "E001", "invalid input: %s", problem);
        return;
    }
    if (p->error == YAML_MEMORY_ERROR) {
        diag_error(ld->diag, (SrcLoc){ld->file, 0, 0}, "E001", "out of memory while parsing YAML");
        return;
    }
    diag_error(ld->diag, mark_loc(ld, p->problem_mark), "E001", "YAML syntax error: %s", problem);
    if (p->context)
        diag_note(ld->diag, mark_loc(ld, p->context_mark), "%s", p->context);
}

/* The column of the scalar's first character when its value appears verbatim
 * in the source on one line (so offsets inside it map to columns), else 0. */
static int verbatim_col(const Loader *ld, const yaml_event_t *ev)
{
    yaml_mark_t s = ev->start_mark, e = ev->end_mark;
    size_t vlen = ev->data.scalar.length;
    size_t q = 0;
    switch (ev->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
        q = 0;
        break;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        q = 1;
        break;
    default:
        return 0;
    }
    if (s.line != e.line || e.index < s.index || e.index - s.index != vlen + 2 * q)
        return 0;
    if (s.index + q + vlen > ld->len || memcmp(ld->text + s.index + q, ev->data.scalar.value, vlen))
        return 0;
    return (int)(s.column + q) + 1;
}

static SpecNode *new_node(Loader *ld, SpecNodeKind kind, yaml_mark_t m)
{
    SpecNode *n = arena_alloc(ld->arena, sizeof *n);
    if (n) {
        n->kind = kind;
        n->loc = mark_loc(ld, m);
    }
    return n;
}

static int push_child(Loader *ld, SpecNode *child)
{
    if (ld->depth == 0) {
        ld->root = child;
        return 1;
    }
    Frame *f = &ld->stack[ld->depth - 1];
    if (f->nkids == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        SpecNode **k = realloc(f->kids, cap * sizeof *k);
        if (!k)
            return 0;
        f->kids = k;
        f->cap = cap;
    }
    f->kids[f->nkids++] = child;
    return 1;
}

typedef struct KeyRef {
    const SpecNode *key; /* the key node */
    size_t pos;          /* index of the pair */
} KeyRef;

static int cmp_keyref(const void *a, const void *b)
{
    const KeyRef *x = a, *y = b;
    size_t n = x->key->len < y->key->len ? x->key->len : y->key->len;
    int c = memcmp(x->key->text, y->key->text, n);
    if (c)
        return c;
    if (x->key->len != y->key->len)
        return x->key->len < y->key->len ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Report duplicate keys of a finished mapping (sorting keeps it n log n). */
static void check_duplicates(Loader *ld, SpecNode *map)
{
    if (map->n < 2)
        return;
    KeyRef *refs = malloc((size_t)map->n * sizeof *refs);
    if (!refs)
        return;
    for (int i = 0; i < map->n; i++)
        refs[i] = (KeyRef){map->keys[i], (size_t)i};
    qsort(refs, (size_t)map->n, sizeof *refs, cmp_keyref);
    for (int i = 1; i < map->n; i++) {
        const SpecNode *a = refs[i - 1].key, *b = refs[i].key;
        if (a->len == b->len && !memcmp(a->text, b->text, a->len)) {
            size_t j = (size_t)i - 1;
            while (j > 0 && refs[j - 1].key->len == b->len && !memcmp(refs[j - 1].key->text, b->text, b->len))
                j--;
            diag_error(ld->diag, b->loc, "E002", "duplicate key '%s'", b->text);
            diag_note(ld->diag, refs[j].key->loc, "'%s' first given here", refs[j].key->text);
        }
    }
    free(refs);
}

static int finish_collection(Loader *ld)
{
    Frame *f = &ld->stack[--ld->depth];
    SpecNode *n = f->node;
    int ok = 1;
    if (n->kind == SPEC_NODE_SEQ) {
        n->n = (int)f->nkids;
        n->items = arena_alloc(ld->arena, (f->nkids ? f->nkids : 1) * sizeof *n->items);
        if (n->items && f->nkids)
            memcpy(n->items, f->kids, f->nkids * sizeof *n->items);
    } else {
        n->n = (int)(f->nkids / 2);
        n->keys = arena_alloc(ld->arena, (f->nkids / 2 + 1) * sizeof *n->keys);
        n->items = arena_alloc(ld->arena, (f->nkids / 2 + 1) * sizeof *n->items);
        if (n->keys && n->items) {
            int m = 0;
            for (size_t i = 0; i + 1 < f->nkids; i += 2) {
                SpecNode *k = f->kids[i];
                if (k->kind != SPEC_NODE_SCALAR) {
                    diag_error(ld->diag, k->loc, "E008", "a mapping key must be a plain name, not a %s",
                               spec_node_kind_name(k->kind));
                    continue;
                }
                n->keys[m] = k;
                n->items[m++] = f->kids[i + 1];
            }
            n->n = m;
            check_duplicates(ld, n);
        }
    }
    if (!n->items || (n->kind == SPEC_NODE_MAP && !n->keys))
        ok = 0;
    free(f->kids);
    f->kids = NULL;
    return ok && push_child(ld, n);
}

static void check_props(Loader *ld, const yaml_event_t *ev, const yaml_char_t *anchor, const yaml_char_t *tag,
                        int implicit)
{
    if (anchor)
        diag_error(ld->diag, mark_loc(ld, ev->start_mark), "E003", "anchors (&%s) are not allowed in a spec",
                   (const char *)anchor);
    if (tag && !implicit)
        diag_error(ld->diag, mark_loc(ld, ev->start_mark), "E004", "tags (%s) are not allowed in a spec",
                   (const char *)tag);
}

SpecNode *spec_load(Arena *arena, Diag *diag, const char *file, const char *text, size_t len)
{
    Loader ld = {.arena = arena, .diag = diag, .file = file, .text = text, .len = len};
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_error(diag, (SrcLoc){file, 0, 0}, "E001", "out of memory while parsing YAML");
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int errors0 = diag->nerrors, ndocs = 0, done = 0, failed = 0;
    while (!done && !failed) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            report_yaml_error(&ld, &parser);
            failed = 1;
            break;
        }
        SpecNode *n = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++ndocs > 1) {
                diag_error(diag, mark_loc(&ld, ev.start_mark), "E005",
                           "a spec file holds one YAML document; a second one starts here");
                failed = 1;
            }
            break;
        case YAML_ALIAS_EVENT:
            diag_error(diag, mark_loc(&ld, ev.start_mark), "E003", "aliases (*%s) are not allowed in a spec",
                       (const char *)ev.data.alias.anchor);
            n = new_node(&ld, SPEC_NODE_SCALAR, ev.start_mark);
            if (n) {
                n->text = "";
                failed = !push_child(&ld, n);
            }
            break;
        case YAML_SCALAR_EVENT:
            check_props(&ld, &ev, ev.data.scalar.anchor, ev.data.scalar.tag,
                        ev.data.scalar.plain_implicit || ev.data.scalar.quoted_implicit);
            n = new_node(&ld, SPEC_NODE_SCALAR, ev.start_mark);
            if (!n) {
                failed = 1;
                break;
            }
            n->text = arena_strndup(arena, (const char *)ev.data.scalar.value, ev.data.scalar.length);
            n->len = ev.data.scalar.length;
            n->style = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? SPEC_STYLE_PLAIN
                       : ev.data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                               ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                           ? SPEC_STYLE_QUOTED
                           : SPEC_STYLE_BLOCK;
            n->text_col = verbatim_col(&ld, &ev);
            failed = !n->text || !push_child(&ld, n);
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            int seq = ev.type == YAML_SEQUENCE_START_EVENT;
            check_props(&ld, &ev, seq ? ev.data.sequence_start.anchor : ev.data.mapping_start.anchor,
                        seq ? ev.data.sequence_start.tag : ev.data.mapping_start.tag,
                        seq ? ev.data.sequence_start.implicit : ev.data.mapping_start.implicit);
            if (ld.depth >= SPEC_MAX_DEPTH) {
                diag_error(diag, mark_loc(&ld, ev.start_mark), "E006",
                           "nesting deeper than %d levels; a spec never needs this", SPEC_MAX_DEPTH);
                failed = 1;
                break;
            }
            n = new_node(&ld, seq ? SPEC_NODE_SEQ : SPEC_NODE_MAP, ev.start_mark);
            if (!n) {
                failed = 1;
                break;
            }
            ld.stack[ld.depth++] = (Frame){n, NULL, 0, 0};
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            failed = !finish_collection(&ld);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    while (ld.depth > 0)
        free(ld.stack[--ld.depth].kids);
    yaml_parser_delete(&parser);
    if (!failed && arena->oom)
        diag_error(diag, (SrcLoc){file, 0, 0}, "E001", "out of memory while loading the spec");
    if (failed || arena->oom)
        return NULL;
    if (!ld.root || (ld.root->kind == SPEC_NODE_SCALAR && ld.root->len == 0 && ld.root->style == SPEC_STYLE_PLAIN)) {
        if (diag->nerrors == errors0)
            diag_error(diag, (SrcLoc){file, 1, 1}, "E007", "the spec is empty");
        return NULL;
    }
    return ld.root;
}

const SpecNode *spec_map_get(const SpecNode *map, const char *key)
{
    if (!map || map->kind != SPEC_NODE_MAP)
        return NULL;
    size_t kl = strlen(key);
    for (int i = 0; i < map->n; i++)
        if (map->keys[i]->len == kl && !memcmp(map->keys[i]->text, key, kl))
            return map->items[i];
    return NULL;
}

SrcLoc spec_loc_at(const SpecNode *scalar, size_t offset)
{
    SrcLoc loc = scalar->loc;
    if (scalar->kind != SPEC_NODE_SCALAR || !scalar->text_col || offset > scalar->len)
        return loc;
    int col = scalar->text_col;
    for (size_t i = 0; i < offset; i++)
        if (((unsigned char)scalar->text[i] & 0xC0) != 0x80)
            col++;
    loc.col = col;
    return loc;
}
