/* pipeline.c - the phases of pipeline.h in order, each run only when the
 * previous one left no errors and the request asks for it: read, front end,
 * lower, plan, program + listing, C context, render. Where the templates are
 * found is decided here too. */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asm.h"
#include "asm_emit.h"
#include "driver.h"
#include "emit.h"
#include "pipeline.h"
#include "version.h"

const char *const pipe_out_ext[PIPE_NOUT] = {"h", "c", "s"};
const char *const pipe_templates[PIPE_NOUT] = {"kernel.h.j2", "kernel.c.j2", ASM_TEMPLATE};

/* Status 2 with a message (a trailing newline is the caller's). */
static int pipe_fail(Pipe *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int pipe_fail(Pipe *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg, sizeof p->msg, fmt, ap);
    va_end(ap);
    return p->status = 2;
}

/* After a phase: status 1 on spec errors, 2 when it built nothing without
 * saying why (memory), else mark it reached. 0 to go on. */
static int pipe_step(Pipe *p, const void *built, PipePhase ph)
{
    if (p->diag.nerrors)
        return p->status = 1;
    if (!built)
        return pipe_fail(p, "out of memory\n");
    p->reached = (int)ph + 1;
    return 0;
}

/* A template error as "template error\n" and the located text. */
static int pipe_tpl_fail(Pipe *p, const tpl_error *err)
{
    char text[sizeof p->msg - 32];
    tpl_error_format(err, text, sizeof text);
    return pipe_fail(p, "template error\n%s", text);
}

static int pipe_render(Pipe *p, const char *name, const tpl_value *ctx, tpl_buf *out)
{
    tpl_error err;
    memset(&err, 0, sizeof err);
    tpl_template *t = tpl_load_file(p->env, name, &err);
    if (t && tpl_render(p->env, t, ctx, out, &err) == 0 && !out->over)
        return 0;
    return pipe_tpl_fail(p, &err);
}

/* The binary program of the planned kernel and its listing (kernel.s.j2). */
static int pipe_program(Pipe *p, const char *tpldir)
{
    p->ta = tpl_arena_new();
    p->env = tpl_env_new();
    if (!p->ta || !p->env || tpl_env_add_path(p->env, tpldir) || tpl_add_host_filters(p->env))
        return pipe_fail(p, "out of memory\n");
    AsmEmitInfo info = {p->shown, TILEGEN_VERSION};
    if (asm_emit_program(p->ir, p->plan, &info, &p->diag, &p->prog, &p->prog_len))
        return pipe_step(p, NULL, PIPE_PROGRAM);
    tpl_arena *la = tpl_arena_new();
    tpl_value *lctx = la ? asm_emit_context(la, p->prog, p->prog_len) : NULL;
    int rc = lctx ? pipe_render(p, pipe_templates[PIPE_S], lctx, &p->out[PIPE_S])
                  : pipe_fail(p, "out of memory while building the listing\n");
    tpl_arena_free(la);
    return rc ? rc : pipe_step(p, p->prog, PIPE_PROGRAM);
}

/* The assembled program into the context, for kernel.c.j2 to embed:
 * program = rows of up to 16 byte values, program_size = bytes. */
static int pipe_put_program(tpl_arena *ta, tpl_value *ctx, const uint8_t *prog, size_t len)
{
    tpl_value *rows = tpl_list(ta), *row = NULL;
    for (size_t i = 0; rows && i < len; i++) {
        if (i % 16 == 0 && (!(row = tpl_list(ta)) || tpl_list_append(ta, rows, row)))
            return -1;
        if (tpl_list_append(ta, row, tpl_int(ta, prog[i])))
            return -1;
    }
    if (!rows || tpl_map_set(ta, ctx, "program", rows) ||
        tpl_map_set(ta, ctx, "program_size", tpl_int(ta, (int64_t)len)))
        return -1;
    return 0;
}

static int pipe_context(Pipe *p)
{
    EmitInfo info = {p->shown, TILEGEN_VERSION, pipe_templates[PIPE_H], pipe_templates[PIPE_C]};
    p->ctx = emit_context(p->ta, &p->arena, p->ir, p->plan, &info, &p->diag);
    if (p->ctx && !p->diag.nerrors && pipe_put_program(p->ta, p->ctx, p->prog, p->prog_len))
        p->ctx = NULL;
    return pipe_step(p, p->ctx, PIPE_CONTEXT);
}

/* Banner name of a spec path: as given when relative, its basename when absolute. */
static const char *pipe_shown_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return path[0] == '/' && b ? b + 1 : path;
}

int pipe_run(Pipe *p, const PipeRequest *rq)
{
    memset(p, 0, sizeof *p);
    arena_init(&p->arena);
    diag_init(&p->diag, &p->arena);
    for (int i = 0; i < PIPE_NOUT; i++)
        tpl_buf_init(&p->out[i]);
    p->path = rq->path;
    p->shown = pipe_shown_name(rq->path);
    if (!(p->text = driver_read_file(rq->path, &p->len)))
        return pipe_fail(p, "cannot read '%s': %s\n", rq->path, driver_io_error(errno));
    p->spec = driver_front_end(&p->arena, &p->diag, rq->path, p->text, p->len, rq->opt);
    if (pipe_step(p, p->spec, PIPE_FRONT) || rq->stop == PIPE_FRONT)
        return p->status;
    p->ir = ir_lower(&p->arena, p->spec, &p->diag);
    if (pipe_step(p, p->ir, PIPE_IR) || rq->stop == PIPE_IR)
        return p->status;
    p->plan = plan_build(&p->arena, p->ir, &p->diag, 1);
    if (pipe_step(p, p->plan, PIPE_PLAN) || rq->stop == PIPE_PLAN)
        return p->status;
    if (pipe_program(p, rq->tpldir ? rq->tpldir : "templates") || rq->stop == PIPE_PROGRAM)
        return p->status;
    if (pipe_context(p) || rq->stop == PIPE_CONTEXT)
        return p->status;
    if (pipe_render(p, pipe_templates[PIPE_H], p->ctx, &p->out[PIPE_H]) ||
        pipe_render(p, pipe_templates[PIPE_C], p->ctx, &p->out[PIPE_C]))
        return p->status;
    p->reached = PIPE_RENDER + 1;
    return p->status;
}

int pipe_reached(const Pipe *p, PipePhase ph)
{
    return p->reached > (int)ph;
}

void pipe_free(Pipe *p)
{
    free(p->prog);
    for (int i = 0; i < PIPE_NOUT; i++)
        tpl_buf_free(&p->out[i]);
    tpl_env_free(p->env);
    tpl_arena_free(p->ta);
    arena_free(&p->arena);
    free(p->text);
    memset(p, 0, sizeof *p);
}

/* Append "dir" to the list of places looked (", "-separated). */
static void pipe_looked(char *where, size_t wsize, const char *dir)
{
    size_t n = strlen(where);
    if (n < wsize)
        snprintf(where + n, wsize - n, "%s%s", n ? ", " : "", dir);
}

/* 1 if dir holds the templates (kernel.c.j2 readable). */
static int pipe_has_templates(const char *dir)
{
    char probe[4200];
    return (size_t)snprintf(probe, sizeof probe, "%s/%s", dir, pipe_templates[PIPE_C]) < sizeof probe &&
           access(probe, R_OK) == 0;
}

/* The templates next to the binary whose path is bin (up to its slash). */
static const char *pipe_templates_near(const char *bin, char *buf, size_t size, char *where, size_t wsize)
{
    const char *slash = bin ? strrchr(bin, '/') : NULL;
    static const char *const ups[] = {"/../templates", "/../../templates", "/../../../templates"};
    for (size_t i = 0; slash && i < sizeof ups / sizeof ups[0]; i++) {
        int n = snprintf(buf, size, "%.*s%s", (int)(slash - bin), bin, ups[i]);
        if (n < 0 || (size_t)n >= size)
            break;
        if (pipe_has_templates(buf))
            return buf;
        pipe_looked(where, wsize, buf);
    }
    return NULL;
}

/* NULL, with the message naming the places looked (already in where). */
static const char *pipe_templates_missing(char *where, size_t wsize)
{
    char looked[4096];
    snprintf(looked, sizeof looked, "%s", where);
    snprintf(where, wsize, "templates not found (%s); looked in %s; set TILEGEN_TEMPLATES to the directory "
             "that holds them", pipe_templates[PIPE_C], looked);
    return NULL;
}

const char *pipe_find_templates(const char *argv0, char *buf, size_t size, char *where, size_t wsize)
{
    if (wsize)
        where[0] = '\0';
    const char *env = getenv("TILEGEN_TEMPLATES");
    if (env && *env) { /* the user's choice: the only place looked */
        if (pipe_has_templates(env))
            return env;
        pipe_looked(where, wsize, "$TILEGEN_TEMPLATES=");
        size_t n = strlen(where);
        snprintf(where + n, wsize > n ? wsize - n : 0, "%s", env);
        return pipe_templates_missing(where, wsize);
    }
    if (pipe_has_templates("templates"))
        return "templates";
    pipe_looked(where, wsize, "./templates");
    const char *r = pipe_templates_near(argv0, buf, size, where, wsize);
    if (r)
        return r;
    char self[4096]; /* the binary itself, however it was invoked */
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        if ((r = pipe_templates_near(self, buf, size, where, wsize)))
            return r;
    }
#ifdef TILEGEN_TEMPLATE_DIR
    if (pipe_has_templates(TILEGEN_TEMPLATE_DIR))
        return TILEGEN_TEMPLATE_DIR; /* `make install`: PREFIX/share/tilegen/templates */
    pipe_looked(where, wsize, TILEGEN_TEMPLATE_DIR);
#endif
    return pipe_templates_missing(where, wsize);
}
