/* test_sema.c - semantic checks: inference, ragged bounds, per-iteration
 * errors, loop dependences, capacity, and that a clean spec stays clean. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "front_test.h"

#define HDR                                                                                                       \
    "tilegen: 1\nkernel: k\nparams: {N: 300, D: 64}\ninputs:\n  x: {dtype: float32, shape: [N, D]}\n"            \
    "outputs:\n  y: {dtype: float32, shape: [N, D]}\n"

static void ragged_clean_and_inferred(void **state)
{
    (void)state;
    FrontRun r;
    front_run(&r,
              HDR "tiles: {xt: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
                  "body:\n  - load: {dst: zt, src: \"x[0:128, :]\"}\n"
                  "  - for: {var: i, range: (N + 127) / 128}\n    body:\n"
                  "      - load: {dst: \"xt[0 : min(128, N - i*128), :]\", src: \"x[i*128 : min(i*128+128, N), :]\"}\n"
                  "      - tensor_tensor: {dst: \"xt[0 : min(128, N - i*128), :]\", a: \"xt[0 : min(128, N - i*128), :]\",\n"
                  "                        b: \"zt[0 : min(128, N - i*128), :]\", op: add}\n"
                  "      - store: {dst: \"y[i*128 : min(i*128+128, N), :]\", src: \"xt[0 : min(128, N - i*128), :]\"}\n",
              3);
    assert_int_equal(r.diag.nerrors, 0);
    assert_int_equal(r.diag.nwarnings, 0);
    SpecTile *zt = &r.spec->tiles[1]; /* inferred from its first write, a load */
    assert_string_equal(zt->name, "zt");
    assert_false(zt->declared);
    assert_int_equal(zt->rank, 2);
    assert_int_equal(zt->shape[0], 128);
    assert_int_equal(zt->shape[1], 64);
    assert_int_equal(zt->dtype, TG_FLOAT32);
    assert_int_equal(zt->buffer, SPEC_BUF_SBUF);
    arena_free(&r.arena);
}

static void ragged_mismatch_names_iteration(void **state)
{
    (void)state;
    FrontRun r;
    /* an explicit tile region of 128 rows against 44 in the last iteration */
    front_run(&r,
              HDR "tiles: {xt: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
                  "body:\n  - for: {var: i, range: (N + 127) / 128}\n    body:\n"
                  "      - load: {dst: \"xt[0:128, :]\", src: \"x[i*128 : min(i*128+128, N), :]\"}\n",
              3);
    assert_string_equal(front_first_code(&r), "E032");
    assert_non_null(strstr(front_first_error(&r)->text, "(when i = 2)"));
    arena_free(&r.arena);
    /* the whole tile: the DMA moves the 44 leading partitions (SPEC.md §2) */
    front_run(&r,
              HDR "tiles: {xt: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
                  "body:\n  - for: {var: i, range: (N + 127) / 128}\n    body:\n"
                  "      - load: {dst: xt, src: \"x[i*128 : min(i*128+128, N), :]\"}\n"
                  "      - store: {dst: \"y[i*128 : min(i*128+128, N), :]\", src: xt}\n",
              3);
    assert_int_equal(r.diag.nerrors, 0);
    arena_free(&r.arena);
}

static SpecTile *tile_named(FrontRun *r, const char *name)
{
    for (int i = 0; i < r->spec->ntiles; i++)
        if (!strcmp(r->spec->tiles[i].name, name))
            return &r->spec->tiles[i];
    fail_msg("no tile '%s'", name);
    return NULL;
}

/* SPEC.md §2.1: a tile declared once with a shape over loop variables, and
 * undeclared tiles taking the current shape of their first write. */
static void ragged_declared_once(void **state)
{
    (void)state;
    FrontRun r;
    front_run(&r,
              HDR "tiles: {xt: {buffer: sbuf, dtype: float32, shape: [\"min(128, N - i*128)\", D]},\n"
                  "        tt: {buffer: sbuf, dtype: float32, shape: [\"160 - j*32\", 8]}}\n"
                  "body:\n  - for: {var: i, range: (N + 127) / 128}\n    body:\n"
                  "      - load: {dst: xt, src: \"x[i*128 : min(i*128+128, N), :]\"}\n"
                  "      - tensor_copy: {dst: yt, src: xt}\n"
                  "      - load: {dst: zt, src: \"x[i*64 : i*64+64, :]\"}\n"
                  "      - store: {dst: \"y[i*128 : min(i*128+128, N), :]\", src: yt}\n"
                  "      - for: {var: j, range: [1, i + 1]}\n        body:\n"
                  "          - load: {dst: tt, src: \"x[0 : 160 - j*32, 0:8]\"}\n"
                  "          - store: {dst: \"y[i*128 : i*128 + 1, j*8 : j*8 + 8]\", src: \"tt[0:1, :]\"}\n"
                  /* a second loop of the same name: the shape reads its i */
                  "  - for: {var: i, range: (N + 127) / 128}\n    body:\n"
                  "      - load: {dst: xt, src: \"x[i*128 : min(i*128+128, N), :]\"}\n"
                  "      - store: {dst: \"y[i*128 : min(i*128+128, N), :]\", src: xt}\n",
              3);
    assert_int_equal(r.diag.nerrors, 0);
    SpecTile *xt = tile_named(&r, "xt"), *yt = tile_named(&r, "yt"), *zt = tile_named(&r, "zt"),
             *tt = tile_named(&r, "tt");
    /* planned at the largest extent; the ragged dim keeps its expression */
    assert_true(xt->ragged);
    assert_non_null(xt->shape_e[0]);
    assert_null(xt->shape_e[1]);
    assert_int_equal(xt->shape[0], 128);
    assert_int_equal(xt->shape[1], 64);
    /* yt inherits xt's current shape */
    assert_false(yt->declared);
    assert_true(yt->ragged);
    assert_non_null(yt->shape_e[0]);
    assert_int_equal(yt->shape[0], 128);
    /* an extent written over i but equal in every iteration is a constant */
    assert_false(zt->ragged);
    assert_int_equal(zt->shape[0], 64);
    /* j = 0 never runs (j starts at 1) and j <= i <= 2: 160 - 32 = 128 rows, not 160 */
    assert_int_equal(tt->shape[0], 128);
    arena_free(&r.arena);
}

static void dependences(void **state)
{
    (void)state;
    static const char *const body[] = {
        /* running sum in an independent loop: error */
        "tiles: {a: {buffer: sbuf, dtype: float32, shape: [128, D]}, t: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
        "body:\n  - memset: {dst: a, value: 0}\n  - for: {var: i, range: 2}\n    body:\n"
        "      - load: {dst: t, src: \"x[i*128 : i*128+128, :]\"}\n"
        "      - tensor_tensor: {dst: a, a: a, b: t, op: add}\n"
        "  - store: {dst: \"y[0:128, :]\", src: a}\n",
        /* the same, carried: clean */
        "tiles: {a: {buffer: sbuf, dtype: float32, shape: [128, D]}, t: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
        "body:\n  - memset: {dst: a, value: 0}\n  - for: {var: i, range: 2, carried: true}\n    body:\n"
        "      - load: {dst: t, src: \"x[i*128 : i*128+128, :]\"}\n"
        "      - tensor_tensor: {dst: a, a: a, b: t, op: add}\n"
        "  - store: {dst: \"y[0:128, :]\", src: a}\n",
        /* two halves written, then the whole read: clean */
        "tiles: {t: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
        "body:\n  - for: {var: i, range: 2}\n    body:\n"
        "      - load: {dst: \"t[:, 0:32]\", src: \"x[i*128 : i*128+128, 0:32]\"}\n"
        "      - load: {dst: \"t[:, 32:64]\", src: \"x[i*128 : i*128+128, 32:64]\"}\n"
        "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: t}\n",
        /* one half only: error */
        "tiles: {t: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
        "body:\n  - for: {var: i, range: 2}\n    body:\n"
        "      - load: {dst: \"t[:, 0:32]\", src: \"x[i*128 : i*128+128, 0:32]\"}\n"
        "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: t}\n"
        "      - load: {dst: \"t[:, 32:64]\", src: \"x[i*128 : i*128+128, 32:64]\"}\n",
    };
    static const char *const want[] = {"E054", "", "", "E054"};
    for (size_t i = 0; i < sizeof body / sizeof body[0]; i++) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s%s", HDR, body[i]);
        FrontRun r;
        front_run(&r, buf, 3);
        assert_string_equal(front_first_code(&r), want[i]);
        arena_free(&r.arena);
    }
}

/* The E054 coverage test is exact: the hull of a write over its inner loop,
 * or of a strided write, does not count as written. Every case ends its body
 * with a write of the whole tile (TAIL_T), so an element the earlier writes
 * miss is one another iteration writes: a real flow, not a hole (E056). */
static void coverage_exact(void **state)
{
    (void)state;
#define TILE_T                                                                                                    \
    "tiles: {t: {buffer: sbuf, dtype: float32, shape: [128, D]}}\nbody:\n  - for: {var: i, range: 2}\n    body:\n"
#define STORE_T "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: t}\n" TAIL_T
#define TAIL_T "      - load: {dst: t, src: \"x[i*128 : i*128+128, :]\"}\n"
#define FLOW_T(el) el " is read when i = 0 before that iteration writes it, and other iterations write it"
    static const struct {
        const char *body; /* after HDR */
        const char *code; /* first error, "" = clean */
        const char *note; /* text of the note after the error, if any */
    } cases[] = {
        /* columns 0:32 and 48:64 over two inner loops: 32:48 never written */
        {TILE_T "      - for: {var: c, range: 2}\n        body:\n"
                "          - load: {dst: \"t[:, c*16 : c*16+16]\", src: \"x[i*128 : i*128+128, 0:16]\"}\n"
                "      - for: {var: c, range: 2}\n        body:\n"
                "          - load: {dst: \"t[:, 48-c*32 : 64-c*32]\", src: \"x[i*128 : i*128+128, 0:16]\"}\n" STORE_T,
         "E054", FLOW_T("t[0, 32]")},
        /* the same with the third quarter: covered */
        {TILE_T "      - for: {var: c, range: 2}\n        body:\n"
                "          - load: {dst: \"t[:, c*16 : c*16+16]\", src: \"x[i*128 : i*128+128, 0:16]\"}\n"
                "      - for: {var: c, range: 2}\n        body:\n"
                "          - load: {dst: \"t[:, 32+c*16 : 48+c*16]\", src: \"x[i*128 : i*128+128, 0:16]\"}\n" STORE_T,
         "", NULL},
        /* even columns only: the odd ones are gaps */
        {TILE_T "      - load: {dst: \"t[:, 0:64:2]\", src: \"x[i*128 : i*128+128, 0:32]\"}\n" STORE_T, "E054",
         FLOW_T("t[0, 1]")},
        /* even columns, then only they are read: covered */
        {TILE_T "      - load: {dst: \"t[:, 0:64:2]\", src: \"x[i*128 : i*128+128, 0:32]\"}\n"
                "      - store: {dst: \"y[i*128 : i*128+128, 0:32]\", src: \"t[:, 0:64:2]\"}\n" TAIL_T,
         "", NULL},
        /* even and odd columns from an inner loop: covered */
        {TILE_T "      - for: {var: c, range: 2}\n        body:\n"
                "          - load: {dst: \"t[:, c : 64 : 2]\", src: \"x[i*128 : i*128+128, 0:32]\"}\n" STORE_T,
         "", NULL},
        /* the lower partitions only in iteration 0 */
        {TILE_T "      - load: {dst: \"t[0 : 64 + i*64, :]\", src: \"x[i*128 : i*128+64+i*64, :]\"}\n"
                "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: t}\n",
         "E054", "t[64, 0] is read when i = 0 before that iteration writes it, and iteration i = 1 writes it"},
    };
#undef TILE_T
#undef STORE_T
#undef TAIL_T
#undef FLOW_T
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s%s", HDR, cases[i].body);
        FrontRun r;
        front_run(&r, buf, 3);
        assert_string_equal(front_first_code(&r), cases[i].code);
        if (cases[i].note) {
            const DiagMsg *m = front_first_error(&r);
            assert_non_null(m->next);
            assert_string_equal(m->next->text, cases[i].note);
        }
        arena_free(&r.arena);
    }
}

/* More earlier writes than the old hull check considered (16): 32 two-column
 * loads cover the tile; dropping any one of them leaves a hole, which the
 * whole-tile write after the read fills in the other iteration (a flow). */
static void coverage_many_writes(void **state)
{
    (void)state;
    for (int hole = -1; hole < 32; hole += 11) {
        char buf[8192];
        size_t n = (size_t)snprintf(buf, sizeof buf, "%s",
                                    HDR "tiles: {t: {buffer: sbuf, dtype: float32, shape: [128, D]}}\n"
                                        "body:\n  - for: {var: i, range: 2}\n    body:\n");
        for (int k = 0; k < 32; k++)
            if (k != hole)
                n += (size_t)snprintf(buf + n, sizeof buf - n,
                                      "      - load: {dst: \"t[:, %d:%d]\", src: \"x[i*128 : i*128+128, 0:2]\"}\n",
                                      2 * k, 2 * k + 2);
        snprintf(buf + n, sizeof buf - n,
                 "      - store: {dst: \"y[i*128 : i*128+128, :]\", src: t}\n"
                 "      - load: {dst: t, src: \"x[i*128 : i*128+128, :]\"}\n");
        FrontRun r;
        front_run(&r, buf, 3);
        assert_string_equal(front_first_code(&r), hole < 0 ? "" : "E054");
        if (hole >= 0) {
            char want[96];
            snprintf(want, sizeof want,
                     "t[0, %d] is read when i = 0 before that iteration writes it, and other iterations write it",
                     2 * hole);
            assert_string_equal(front_first_error(&r)->next->text, want);
        }
        arena_free(&r.arena);
    }
}

/* A read-modify-write of each iteration's own slice of a tile past the
 * element-by-element check's size (3 x 8192 x 128 > SEMA_MAX_OWNERS) is
 * shown independent in closed form; reading the other iteration's slice is
 * still an error, whose note says the check could not follow the tile. */
static void flows_closed_form(void **state)
{
    (void)state;
    static const char *const reads[] = {"acc[:, m, :]", "acc[:, 1 - m, :]"};
    for (int i = 0; i < 2; i++) {
        char buf[1024];
        snprintf(buf, sizeof buf,
                 "tilegen: 1\nkernel: k\ninputs: {x: {dtype: float32, shape: [128, 8192]}}\n"
                 "outputs: {y: {dtype: float32, shape: [128, 8192]}}\n"
                 "tiles:\n  xt: {buffer: sbuf, dtype: float32, shape: [128, 8192]}\n"
                 "  acc: {buffer: sbuf, dtype: float32, shape: [128, 3, 8192]}\n"
                 "body:\n  - load: {dst: xt, src: \"x[:, :]\"}\n  - memset: {dst: acc, value: 0.0}\n"
                 "  - for: {var: m, range: 2}\n    body:\n"
                 "      - tensor_tensor: {dst: \"acc[:, m, :]\", a: \"%s\", b: xt, op: add}\n"
                 "  - store: {dst: \"y[:, :]\", src: \"acc[:, 0, :]\"}\n",
                 reads[i]);
        FrontRun r;
        front_run(&r, buf, 3);
        assert_string_equal(front_first_code(&r), i ? "E054" : "");
        if (i)
            assert_non_null(strstr(front_first_error(&r)->next->text, "too large to follow"));
        arena_free(&r.arena);
    }
}

static void capacity_names_tiles(void **state)
{
    (void)state;
    FrontRun r;
    front_run(&r,
              "tilegen: 1\nkernel: k\noutputs: {y: {dtype: float32, shape: [1, 1]}}\n"
              "tiles:\n  a: {buffer: sbuf, dtype: float32, shape: [128, 40000]}\n"
              "  b: {buffer: sbuf, dtype: bfloat16, shape: [128, 20000], bufs: 2}\n"
              "body:\n  - memset: {dst: a, value: 0}\n  - memset: {dst: b, value: 0}\n"
              "  - store: {dst: y, src: \"a[0:1, 0:1]\"}\n",
              3);
    assert_string_equal(front_first_code(&r), "E060");
    const DiagMsg *m = front_first_error(&r);
    assert_non_null(strstr(m->text, "240000 bytes"));
    assert_string_equal(m->next->text, "'a' takes 160000 bytes per partition (160000 x 1 bufs)");
    assert_string_equal(m->next->next->text, "'b' takes 80000 bytes per partition (40000 x 2 bufs)");
    arena_free(&r.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ragged_clean_and_inferred),
        cmocka_unit_test(ragged_mismatch_names_iteration),
        cmocka_unit_test(ragged_declared_once),
        cmocka_unit_test(dependences),
        cmocka_unit_test(coverage_exact),
        cmocka_unit_test(coverage_many_writes),
        cmocka_unit_test(flows_closed_form),
        cmocka_unit_test(capacity_names_tiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
