/* diag.h - located diagnostics: errors with stable codes, warnings, notes.
 * Phases report into a Diag (they never print); diag_print renders the list as
 * "file:line:col: error[E0xx]: message", the source line and a caret. Besides
 * gen/main.c this is the only module that writes to stderr. */
#ifndef TILEGEN_DIAG_H
#define TILEGEN_DIAG_H

#include <stdio.h>

#include "arena.h"

/* A position in a source file; line and col are 1-based (col counts
 * characters), line 0 means "the file as a whole". */
typedef struct SrcLoc {
    const char *file; /* path as given on the command line */
    int line;         /* 1-based line, 0 = unknown */
    int col;          /* 1-based column in characters */
} SrcLoc;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct DiagMsg {
    DiagLevel level;      /* error, warning or note on the previous one */
    const char *code;     /* "E021", "W001"; NULL for notes */
    SrcLoc loc;           /* where it points */
    const char *text;     /* the message, no trailing newline */
    struct DiagMsg *next; /* report order */
} DiagMsg;

typedef struct DiagSource {
    const char *file;        /* name used in SrcLoc.file */
    const char *text;        /* whole file contents (not NUL-terminated) */
    size_t len;              /* bytes in text */
    struct DiagSource *next; /* other registered files */
} DiagSource;

typedef struct Diag {
    Arena *arena;         /* messages live here */
    DiagSource *sources;  /* files whose lines can be quoted */
    DiagMsg *head, *tail; /* messages in report order */
    int nerrors;          /* errors reported */
    int nwarnings;        /* warnings reported */
    int max_errors;       /* stop recording after this many (0 = 200) */
    int dropped;          /* last error/warning was dropped: drop its notes too */
} Diag;

void diag_init(Diag *d, Arena *arena);
/* Make a file's text available for quoting source lines. */
void diag_add_source(Diag *d, const char *file, const char *text, size_t len);

void diag_error(Diag *d, SrcLoc loc, const char *code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void diag_warning(Diag *d, SrcLoc loc, const char *code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* A note attached to the last error or warning. */
void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Render every message, then a count line "FILE: N errors, M warnings" when
 * anything was reported. */
void diag_print(const Diag *d, FILE *out);

/* Levenshtein distance between a and b, capped at cap+1. */
int diag_edit_distance(const char *a, const char *b, int cap);
/* The candidate closest to name (NULL-terminated list), or NULL if none is
 * close enough to suggest. */
const char *diag_suggest(const char *name, const char *const *candidates);

#endif
