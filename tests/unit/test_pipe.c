/* test_pipe.c - the pipeline (gen/pipeline.h) driven to each stop phase on
 * bundled specs: what each phase builds and what it leaves unbuilt, that the
 * program, context and rendered files agree, spec options, and the three
 * outcomes (spec errors in the Diag, I/O and template errors as a message). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "tg_prog.h"

static const char *const pipe_specs[] = {"softmax", "matmul", "attention", "tensor_add_bf16"};

static int run(Pipe *p, const char *path, PipePhase stop, const SpecOptions *opt, const char *tpldir)
{
    PipeRequest rq = {path, opt, stop, tpldir};
    int rc = pipe_run(p, &rq);
    assert_int_equal(rc, p->status);
    return rc;
}

static int has(const tpl_buf *b, const char *s)
{
    return b->len && strstr(b->data, s) != NULL;
}

/* The built and unbuilt parts of a clean run stopped at `stop`. */
static void check_stop(const Pipe *p, const char *path, PipePhase stop)
{
    for (int ph = PIPE_FRONT; ph <= PIPE_RENDER; ph++)
        assert_int_equal(pipe_reached(p, (PipePhase)ph), ph <= (int)stop);
    /* the front end: the spec and its text, for quoting lines */
    assert_string_equal(p->path, path);
    assert_non_null(p->spec);
    assert_non_null(p->text);
    assert_int_equal(strlen(p->text), p->len);
    assert_non_null(strstr(p->text, "kernel:"));
    assert_int_equal(p->diag.nerrors, 0);
    assert_true((p->ir != NULL) == (stop >= PIPE_IR));
    assert_true((p->plan != NULL) == (stop >= PIPE_PLAN));
    assert_true((p->prog != NULL) == (stop >= PIPE_PROGRAM));
    assert_true((p->out[PIPE_S].len > 0) == (stop >= PIPE_PROGRAM));
    assert_true((p->env != NULL) == (stop >= PIPE_PROGRAM));
    assert_true((p->ctx != NULL) == (stop >= PIPE_CONTEXT));
    assert_true((p->out[PIPE_H].len > 0) == (stop >= PIPE_RENDER));
    assert_true((p->out[PIPE_C].len > 0) == (stop >= PIPE_RENDER));
    if (p->ir)
        assert_ptr_equal(p->ir->spec, p->spec);
    if (p->plan) {
        assert_ptr_equal(p->plan->ir, p->ir);
        assert_int_equal(p->plan->errors, 0);
    }
    if (p->prog) {
        /* the program decodes and names this kernel, spec and target */
        tg_prog d;
        assert_int_equal(tg_prog_decode(&d, p->prog, p->prog_len), 0);
        assert_string_equal(tg_prog_str(&d, d.kernel), p->spec->kernel);
        assert_string_equal(tg_prog_str(&d, d.spec), path);
        assert_int_equal(d.target, p->spec->target);
        char kdir[128];
        snprintf(kdir, sizeof kdir, ".kernel %s\n", p->spec->kernel);
        assert_true(has(&p->out[PIPE_S], kdir));
    }
    if (p->ctx) {
        /* the context embeds exactly the program */
        tpl_value *size = tpl_map_get(p->ctx, "program_size", 12);
        assert_non_null(size);
        assert_int_equal(tpl_int_of(size), (int64_t)p->prog_len);
        tpl_value *rows = tpl_map_get(p->ctx, "program", 7);
        assert_non_null(rows);
        assert_int_equal(tpl_len(rows), (p->prog_len + 15) / 16);
        assert_int_equal(tpl_int_of(tpl_list_get(tpl_list_get(rows, 0), 1)), p->prog[1]);
    }
    if (stop >= PIPE_RENDER) {
        char decl[128];
        snprintf(decl, sizeof decl, "%s_program[%zu] = {", p->spec->kernel, p->prog_len);
        assert_true(has(&p->out[PIPE_C], decl));
        assert_true(has(&p->out[PIPE_H], p->spec->kernel));
    }
}

static void each_stop_phase(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof pipe_specs / sizeof *pipe_specs; k++) {
        char path[64];
        snprintf(path, sizeof path, "specs/%s.yaml", pipe_specs[k]);
        tpl_buf listing;
        tpl_buf_init(&listing);
        for (int stop = PIPE_FRONT; stop <= PIPE_RENDER; stop++) {
            Pipe p;
            int rc = run(&p, path, (PipePhase)stop, NULL, "templates");
            if (rc) {
                diag_print(&p.diag, stderr);
                fprintf(stderr, "%s: %s", path, p.msg);
            }
            assert_int_equal(rc, 0);
            check_stop(&p, path, (PipePhase)stop);
            /* the listing is the same whichever phase the run stops at */
            if (stop == PIPE_PROGRAM)
                tpl_buf_put(&listing, p.out[PIPE_S].data, p.out[PIPE_S].len);
            if (stop > PIPE_PROGRAM) {
                assert_int_equal(p.out[PIPE_S].len, listing.len);
                assert_memory_equal(p.out[PIPE_S].data, listing.data, listing.len);
            }
            pipe_free(&p);
        }
        tpl_buf_free(&listing);
    }
}

/* -D and --target reach the checked spec and the program. */
static void spec_options(void **state)
{
    (void)state;
    const char *defs[] = {"N=256"};
    SpecOptions opt = {defs, 1, "trn2"};
    Pipe p;
    assert_int_equal(run(&p, "specs/softmax.yaml", PIPE_PROGRAM, &opt, "templates"), 0);
    assert_int_equal(p.spec->target, TG_TRN2);
    tg_prog d;
    assert_int_equal(tg_prog_decode(&d, p.prog, p.prog_len), 0);
    assert_int_equal(d.target, TG_TRN2);
    assert_true(has(&p.out[PIPE_S], ".target trn2\n"));
    assert_true(has(&p.out[PIPE_S], "stop=2,"));
    pipe_free(&p);
}

/* Spec errors: status 1, reported in the Diag, nothing after the front end. */
static void spec_errors(void **state)
{
    (void)state;
    Pipe p;
    assert_int_equal(run(&p, "tests/diag/086-five-mistakes.yaml", PIPE_RENDER, NULL, "templates"), 1);
    assert_int_equal(p.diag.nerrors, 5);
    assert_false(pipe_reached(&p, PIPE_FRONT));
    assert_null(p.ir);
    assert_null(p.plan);
    assert_null(p.prog);
    assert_null(p.ctx);
    assert_string_equal(p.msg, "");
    pipe_free(&p);
}

/* A missing spec: status 2 and a message, no spec. */
static void unreadable_spec(void **state)
{
    (void)state;
    Pipe p;
    assert_int_equal(run(&p, "tests/no/such.yaml", PIPE_FRONT, NULL, NULL), 2);
    assert_int_equal(strncmp(p.msg, "cannot read 'tests/no/such.yaml': ", 34), 0);
    assert_int_equal(p.msg[strlen(p.msg) - 1], '\n');
    assert_null(p.text);
    assert_null(p.spec);
    assert_false(pipe_reached(&p, PIPE_FRONT));
    pipe_free(&p);
}

/* Templates are read from PIPE_PROGRAM on: a plan needs none; a missing
 * listing template is status 2 with the located template error. */
static void templates_needed_from_program(void **state)
{
    (void)state;
    Pipe p;
    assert_int_equal(run(&p, "specs/softmax.yaml", PIPE_PLAN, NULL, "tests/no/templates"), 0);
    assert_non_null(p.plan);
    pipe_free(&p);
    assert_int_equal(run(&p, "specs/softmax.yaml", PIPE_RENDER, NULL, "tests/no/templates"), 2);
    assert_int_equal(strncmp(p.msg, "template error\nkernel.s.j2", 26), 0);
    assert_true(pipe_reached(&p, PIPE_PLAN));
    assert_false(pipe_reached(&p, PIPE_PROGRAM));
    assert_null(p.ctx);
    assert_int_equal(p.diag.nerrors, 0);
    pipe_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_stop_phase),
        cmocka_unit_test(spec_options),
        cmocka_unit_test(spec_errors),
        cmocka_unit_test(unreadable_spec),
        cmocka_unit_test(templates_needed_from_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
