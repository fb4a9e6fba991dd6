/* arena.c - bump allocator: chunks of at least 64 KiB, freed all at once.
 * Large requests get a chunk of their own so that small ones keep packing. */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *next; /* older chunk */
    size_t cap;       /* usable bytes in data[] */
    max_align_t data[]; /* the memory handed out */
};

enum { ARENA_CHUNK = 64 * 1024 };

void arena_init(Arena *a)
{
    memset(a, 0, sizeof *a);
}

void arena_free(Arena *a)
{
    ArenaChunk *c = a->chunks;
    while (c) {
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
    a->used = 0;
}

void *arena_alloc(Arena *a, size_t size)
{
    const size_t align = sizeof(max_align_t);
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX / 2) {
        a->oom = 1;
        return NULL;
    }
    size = (size + align - 1) / align * align;
    if (!a->chunks || a->chunks->cap - a->used < size) {
        size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        if (a->limit && a->total + cap > a->limit) {
            a->oom = 1;
            return NULL;
        }
        ArenaChunk *c = malloc(sizeof *c + cap);
        if (!c) {
            a->oom = 1;
            return NULL;
        }
        c->cap = cap;
        if (a->chunks && size > ARENA_CHUNK) {
            /* keep packing into the current chunk: link the big one behind it */
            c->next = a->chunks->next;
            a->chunks->next = c;
            a->total += cap;
            memset(c->data, 0, size);
            return c->data;
        }
        c->next = a->chunks;
        a->chunks = c;
        a->used = 0;
        a->total += cap;
    }
    void *p = (char *)a->chunks->data + a->used;
    a->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
