/* arena.h - bump allocator for the generator.
 * Everything a run builds (node trees, expressions, the Spec, diagnostics) is
 * allocated from one Arena and released at once with arena_free. Allocation
 * never fails silently: on out-of-memory it returns NULL and sets arena->oom. */
#ifndef TILEGEN_ARENA_H
#define TILEGEN_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *chunks; /* newest chunk first */
    size_t used;        /* bytes used in the newest chunk */
    size_t total;       /* bytes handed out over the arena's life */
    size_t limit;       /* refuse to grow beyond this many bytes (0 = none) */
    int oom;            /* set once an allocation failed */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Zeroed, max-aligned memory, or NULL (and a->oom set) when out of memory. */
void *arena_alloc(Arena *a, size_t size);
/* Copy of s[0..n) plus a terminating NUL. */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
/* printf into arena memory. */
char *arena_printf(Arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
