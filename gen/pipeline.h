/* pipeline.h - the generator as one call: spec -> checked Spec -> IR -> plan
 * -> listing + binary program -> template context -> rendered <k>.h/<k>.c,
 * stopping after a requested phase and handing back everything it built.
 * The commands (check, gen, run, profile) are thin consumers; nothing here
 * prints: errors are in the Pipe's Diag (spec errors) or its message. */
#ifndef TILEGEN_PIPELINE_H
#define TILEGEN_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "plan.h"
#include "spec.h"
#include "tpl.h"

/* Phases in order; a request runs every phase up to and including `stop`. */
typedef enum PipePhase {
    PIPE_FRONT,   /* read + load + schema + semantics: text, spec */
    PIPE_IR,      /* + lowering: ir */
    PIPE_PLAN,    /* + SBUF/PSUM placement: plan */
    PIPE_PROGRAM, /* + binary program and its listing: prog, out[PIPE_S] (templates) */
    PIPE_CONTEXT, /* + the C back end's template context, program embedded: ta, ctx */
    PIPE_RENDER,  /* + kernel.h.j2 / kernel.c.j2 rendered: out[PIPE_H], out[PIPE_C] */
} PipePhase;

/* The files a kernel becomes, in out[] order: <k>.h, <k>.c, <k>.s. */
enum { PIPE_H, PIPE_C, PIPE_S, PIPE_NOUT };
extern const char *const pipe_out_ext[PIPE_NOUT];      /* "h", "c", "s" */
extern const char *const pipe_templates[PIPE_NOUT];    /* "kernel.h.j2", ... */

typedef struct PipeRequest {
    const char *path;       /* spec file ("-" = stdin) */
    const SpecOptions *opt; /* -D / --target, or NULL */
    PipePhase stop;         /* last phase to run */
    const char *tpldir;     /* templates directory (PIPE_PROGRAM and later) */
} PipeRequest;

/* What a run built. Fields of phases not reached are NULL / 0. Holds its own
 * arena (diag points into it): do not copy a Pipe after pipe_run. */
typedef struct Pipe {
    Arena arena;            /* spec, IR, plan, diagnostics */
    Diag diag;              /* every diagnostic of the run (the spec registered for quoting) */
    const char *path;       /* the spec path as given */
    const char *shown;      /* the spec as banners name it: as given, basename if absolute */
    char *text;             /* the spec's text, NUL-terminated */
    size_t len;             /* its bytes */
    Spec *spec;             /* checked spec (kernel, target, file) */
    Ir *ir;                 /* lowered IR */
    Plan *plan;             /* placement; set even when it reported capacity errors */
    uint8_t *prog;          /* assembled binary program */
    size_t prog_len;        /* its bytes */
    tpl_env *env;           /* template environment (tpldir + host filters) */
    tpl_arena *ta;          /* the context's values */
    tpl_value *ctx;         /* C back end context with program / program_size */
    tpl_buf out[PIPE_NOUT]; /* rendered text: out[PIPE_S] from PIPE_PROGRAM on, h and c at PIPE_RENDER */
    int reached;            /* phases completed: the last one is reached - 1 (0 = none) */
    int status;             /* as pipe_run returned */
    char msg[4096];         /* status 2: what failed, ending in a newline (no command prefix) */
} Pipe;

/* Run rq->path through the phases up to rq->stop into *p (which need not be
 * initialised). Returns p->status: 0 everything up to stop was built, 1 spec
 * errors (in p->diag; later phases not run), 2 I/O, template or memory error
 * (p->msg). Always pair with pipe_free. */
int pipe_run(Pipe *p, const PipeRequest *rq);

/* 1 if phase ph completed. */
int pipe_reached(const Pipe *p, PipePhase ph);

void pipe_free(Pipe *p);

/* The templates directory: $TILEGEN_TEMPLATES (then the only place),
 * ./templates, next to the binary as invoked (argv0) and as it is
 * (/proc/self/exe): bin/tilegen -> templates, build/x/bin/tilegen ->
 * ../../../templates, else TILEGEN_TEMPLATE_DIR when compiled in (make
 * install). buf holds the result when it is built. NULL when none holds
 * the templates, with a message naming the places looked in `where`. */
const char *pipe_find_templates(const char *argv0, char *buf, size_t size, char *where, size_t wsize);

#endif
