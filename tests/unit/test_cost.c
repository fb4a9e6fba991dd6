/* test_cost.c - the timing model: each cost rule against cycles computed by
 * hand from its documented formula (docs/cost.md), the DMA engine rule, and
 * the scheduler on small assembled programs (DMA fixed cost, semaphores that
 * carry time, trn1's shared ports, execution bit-identical to the ISS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "asm.h"
#include "diag.h"
#include "tg_alu.h"
#include "tg_cost.h"
#include "tg_iss.h"
#include "tg_prog.h"

static const tg_cost_table *T1, *T2;

static tg_cost_shape shape(tg_isa_op op, int64_t n)
{
    tg_cost_shape s;
    memset(&s, 0, sizeof s);
    s.op = op;
    s.n = n;
    s.p = 128;
    s.all_sbuf = 1;
    s.unit_stride = 1;
    return s;
}

static void matmul_rule(void **state)
{
    (void)state;
    tg_cost_shape s = shape(TG_OP_MATMUL, 512);
    s.n_stationary = 128, s.n_moving = 512;
    assert_int_equal(tg_cost_cycles(T1, &s), 512);  /* max(min(64,128), 512) */
    s.n_moving = 32;
    assert_int_equal(tg_cost_cycles(T1, &s), 64);   /* max(64, 32) */
    s.n_stationary = 16, s.n_moving = 8;
    assert_int_equal(tg_cost_cycles(T1, &s), 16);   /* max(min(64,16), 8) */
    s.n_stationary = 128, s.n_moving = 512, s.fp32_in = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 2048); /* 4 x 512 */
    /* 512 cycles at 2.8 GHz = 182.857 ns; at 2.4 GHz = 213.333 ns */
    assert_int_equal(tg_cost_ps(512, T1->mhz[TG_ENG_PE]), 182857);
    assert_int_equal(tg_cost_ps(512, T2->mhz[TG_ENG_PE]), 213333);
}

static void transpose_rule(void **state)
{
    (void)state;
    tg_cost_shape s = shape(TG_OP_TRANSPOSE, 128);
    assert_int_equal(tg_cost_cycles(T1, &s), 128); /* max(P=128, min(64, 128)) */
    s.p = 32, s.n = 16;
    assert_int_equal(tg_cost_cycles(T1, &s), 32);  /* max(32, 16) */
    s.p = 16, s.n = 500;
    assert_int_equal(tg_cost_cycles(T1, &s), 64);  /* max(16, min(64, 500)) */
    s.fp32_in = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 256); /* x4 on v2 */
    assert_int_equal(tg_cost_cycles(T2, &s), 128); /* x2 on v3 */
}

static void vector_rules(void **state)
{
    (void)state;
    tg_cost_shape s = shape(TG_OP_TENSOR_TENSOR, 512);
    s.alu = TG_ALU_ADD;
    assert_int_equal(tg_cost_cycles(T1, &s), 1024); /* fp32 SBUF: 2N */
    s.one_psum = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 512);  /* one input in PSUM: N */
    s.one_psum = 0, s.allbf16 = s.all16 = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 512);  /* all bf16 SBUF add: N */
    s.alu = TG_ALU_DIVIDE;
    assert_int_equal(tg_cost_cycles(T1, &s), 1024); /* divide: 2N */
    assert_int_equal(tg_cost_cycles(T2, &s), 512);  /* v3 16-bit SBUF perf mode 2x */
    s = shape(TG_OP_TENSOR_TENSOR, 10);
    assert_int_equal(tg_cost_cycles(T1, &s), 64);   /* MIN_II */

    s = shape(TG_OP_TENSOR_SCALAR, 512);
    assert_int_equal(tg_cost_cycles(T1, &s), 512);
    s.all16 = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 512);  /* no perf modes on v2 */
    assert_int_equal(tg_cost_cycles(T2, &s), 128);  /* v3 4x: 16-bit SBUF unit stride */
    s.all_sbuf = 0;
    assert_int_equal(tg_cost_cycles(T2, &s), 256);  /* v3 2x with a PSUM side */
    s.has_reduce = 1;                               /* accumulate: tensor_scalar_reduce */
    assert_int_equal(tg_cost_cycles(T2, &s), 576);  /* max(64, N) + 64, no perf mode */
    s = shape(TG_OP_TENSOR_SCALAR, 10);
    s.has_reduce = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 128);  /* MIN_II + MIN_II */

    s = shape(TG_OP_TENSOR_REDUCE, 512);
    s.alu = TG_ALU_ADD;
    assert_int_equal(tg_cost_cycles(T1, &s), 512);  /* N */
    s.allbf16 = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 256);  /* bf16 add: N/2 */
    s.alu = TG_ALU_MULTIPLY;
    assert_int_equal(tg_cost_cycles(T1, &s), 512);

    s = shape(TG_OP_RECIPROCAL, 512);
    assert_int_equal(tg_cost_cycles(T1, &s), 4096); /* 8N */
    s = shape(TG_OP_TENSOR_TENSOR_SCAN, 100);
    assert_int_equal(tg_cost_cycles(T1, &s), 200);  /* 2N */
    s = shape(TG_OP_SCALAR_TENSOR_TENSOR, 100);
    s.alu = TG_ALU_SUBTRACT;
    s.alu1 = TG_ALU_MULTIPLY;
    assert_int_equal(tg_cost_cycles(T1, &s), 200);  /* 2N */
    s.allbf16 = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 100);  /* bf16 subtract -> multiply, N even: N */
    s.n = 101;
    assert_int_equal(tg_cost_cycles(T1, &s), 202);  /* N odd: 2N */
    s = shape(TG_OP_MAX8, 300);
    assert_int_equal(tg_cost_cycles(T1, &s), 300);  /* N, no MIN_II */
    s = shape(TG_OP_NC_FIND_INDEX8, 16);
    assert_int_equal(tg_cost_cycles(T1, &s), 16);
    s = shape(TG_OP_SELECT, 100);
    assert_int_equal(tg_cost_cycles(T1, &s), 200);  /* SBUF only: max(64, 2N) */
    s.one_psum = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 100);  /* one operand in PSUM: max(64, N) */
    s = shape(TG_OP_BN_AGGR, 12);
    assert_int_equal(tg_cost_cycles(T1, &s), 64);   /* max(64, 13*4) */
    s.n = 300;
    assert_int_equal(tg_cost_cycles(T1, &s), 1300); /* 13 * 100 */
    s = shape(TG_OP_BN_STATS, 512);
    assert_int_equal(tg_cost_cycles(T1, &s), 512);
    s = shape(TG_OP_MEMSET, 512);
    assert_int_equal(tg_cost_cycles(T1, &s), 512);
    s.zero_memset16 = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 256);  /* zero into bf16: N/2 */
}

static void scalar_and_gpsimd_rules(void **state)
{
    (void)state;
    tg_cost_shape s = shape(TG_OP_ACTIVATION, 512);
    assert_int_equal(tg_cost_cycles(T1, &s), 512);
    s.has_reduce = 1;
    assert_int_equal(tg_cost_cycles(T1, &s), 576);  /* + MIN_II */
    s = shape(TG_OP_ACTIVATION, 1);
    assert_int_equal(tg_cost_cycles(T1, &s), 64);
    s = shape(TG_OP_IOTA, 100);
    assert_int_equal(tg_cost_cycles(T1, &s), 250);  /* 150 + N */
    s = shape(TG_OP_AFFINE_SELECT, 512);
    assert_int_equal(tg_cost_cycles(T1, &s), 662);
}

static void dma_rule(void **state)
{
    (void)state;
    /* [128, 2 KiB] contiguous: 16 engines x 8 rows x 2048 B at 17 B/ns */
    tg_cost_dma d = {0, 128, 2048, 2048, 16};
    for (uint32_t e = 0; e < 16; e++)
        assert_int_equal(tg_cost_dma_engine_ps(T1, &d, e), (8 * 2048 * 1000 + 16) / 17);
    /* 4 rows: one engine (the [DMA-OV] example) */
    tg_cost_dma four = {0, 4, 8192, 8192, 16};
    assert_int_equal(tg_cost_dma_engine_ps(T1, &four, 0), (4 * 8192 * 1000 + 16) / 17);
    assert_int_equal(tg_cost_dma_engine_ps(T1, &four, 1), 0);
    /* rows 64..67 are served by engine 8 */
    tg_cost_dma mid = {64, 4, 256, 256, 16};
    assert_int_equal(tg_cost_dma_engine_ps(T1, &mid, 0), 0);
    assert_int_equal(tg_cost_dma_engine_ps(T1, &mid, 8), (4 * 256 * 1000 + 16) / 17);
    /* element-wise (transposing) runs of 2 bytes are charged 64 bytes each */
    tg_cost_dma tr = {0, 128, 256, 2, 16};
    assert_int_equal(tg_cost_dma_engine_ps(T1, &tr, 3), (8 * 128 * 64 * 1000 + 16) / 17);
    /* trn2: 23 B/ns; 32 KiB on one engine = 1424.7 ns ([DMA-OV] measured 1416 ns) */
    tg_cost_dma big = {0, 4, 8192, 8192, 16};
    assert_int_equal(tg_cost_dma_engine_ps(T2, &big, 0), (32768 * 1000 + 22) / 23);
    /* one core's 16 engines share the 725 B/ns HBM stack at 45 B/ns each:
     * under 23, so the engine rate decides (above); two cores' 32 at 22.66
     * B/ns each: the HBM share decides, 32768 B x 32 / 725 B/ns */
    tg_cost_dma two = {0, 4, 8192, 8192, 32};
    assert_int_equal(tg_cost_dma_engine_ps(T2, &two, 0), (32768ull * 1000 * 32 + 724) / 725);
    assert_true(tg_cost_dma_engine_ps(T2, &two, 0) > tg_cost_dma_engine_ps(T2, &big, 0));
    /* no HBM side (SBUF -> SBUF): the engine rate alone */
    tg_cost_dma sb = {0, 4, 8192, 8192, 0};
    assert_int_equal(tg_cost_dma_engine_ps(T2, &sb, 0), (32768 * 1000 + 22) / 23);
}

/* ---- the scheduler on assembled programs ------------------------------------ */

static uint8_t *assemble(const char *text, size_t *len)
{
    Arena a;
    arena_init(&a);
    Diag d;
    diag_init(&d, &a);
    diag_add_source(&d, "t.s", text, strlen(text));
    uint8_t *bin = NULL;
    int rc = asm_assemble("t.s", text, strlen(text), &d, &bin, len);
    if (rc)
        diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    arena_free(&a);
    return bin;
}

static tg_cost_state scratch;

typedef struct Log {
    tg_cost_event ev[64];
    int n;
} Log;
static void logger(void *user, const tg_cost_event *e)
{
    Log *l = user;
    if (l->n < 64)
        l->ev[l->n++] = *e;
}

static uint64_t run(const char *text, Log *log)
{
    size_t len;
    uint8_t *bin = assemble(text, &len);
    tg_cost_stats st;
    memset(&st, 0, sizeof st);
    tg_cost_opts o = {NULL, NULL, log ? logger : NULL, log, 1};
    if (log)
        log->n = 0;
    assert_int_equal(tg_cost_run(bin, len, &o, &scratch, &st), 0);
    free(bin);
    return st.latency_ps;
}

#define HDR(target)                                                                                               \
    ".kernel t\n.target " target "\n.spec \"t.yaml\"\n.tilegen \"test\"\n"                                      \
    ".tensor x input float32 [128, 512]\n.tensor y output float32 [128, 512]\n"                                  \
    ".tile a sbuf float32 [128, 512] bufs 1 p[0:+128] @0 slot 2048\n"                                          \
    ".tile b sbuf float32 [128, 512] bufs 1 p[0:+128] @2048 slot 2048\n"                                       \
    ".tile c sbuf float32 [128, 512] bufs 1 p[0:+128] @4096 slot 2048\n"
#define LOAD_A "dma.load dst=sbuf:a[0:+128] @0 float32 [[1,512]], src=hbm:x[+128 s512] @0 float32 [[1,512]]\n"
#define SCALE(d, s) "dve.tensor_scalar dst=sbuf:" d "[0:+128] @0 float32 [[1,512]], src=sbuf:" s "[0:+128] @0 float32 [[1,512]], op0=multiply, operand0=2.0\n"

static void dma_fixed_cost(void **state)
{
    (void)state;
    /* one [128, 2 KiB] load: 963.8 ns of data per engine, held 1160 ns, but
     * complete no sooner than 1300 ns after its trigger */
    assert_int_equal(run(HDR("trn1") LOAD_A, NULL), 1300000);
    /* two back to back: the second starts after its issue slot (64 cycles at
     * 1.4 GHz) and when the engines are free, 1160 ns after the first began */
    assert_int_equal(run(HDR("trn1") LOAD_A LOAD_A, NULL), 45714 + 2 * 1160000);
}

static void semaphore_carries_time(void **state)
{
    (void)state;
    Log log;
    uint64_t lat = run(HDR("trn1") LOAD_A "dma.signal sem=s0\ndve.wait sem=s0\n" SCALE("b", "a"), &log);
    /* DVE waits for the DMA (1300 ns), pays the hand-off (30 ns), then 512
     * cycles + 100 static (dependent) at 1.12 GHz = 546.429 ns */
    assert_int_equal(lat, 1300000 + 30000 + tg_cost_ps(612, 1120));
    int waits = 0;
    for (int i = 0; i < log.n; i++)
        if (log.ev[i].kind == TG_COST_WAIT) {
            waits++;
            assert_int_equal(log.ev[i].start_ps, 0);
            assert_true(log.ev[i].cause > 0); /* the flow's source: the DMA */
            assert_int_equal(log.ev[log.ev[i].cause - 1].engine, TG_ENG_DMA);
        }
    assert_int_equal(waits, 1);
}

static void independent_ops_pipeline(void **state)
{
    (void)state;
    /* two independent DVE ops back to back: 2 x 512 cycles, no static overhead */
    assert_int_equal(run(HDR("trn1") SCALE("b", "a") SCALE("c", "a"), NULL), 2 * tg_cost_ps(512, 1120));
    /* the second reads what the first wrote: dependent, + 100 cycles */
    assert_int_equal(run(HDR("trn1") SCALE("b", "a") SCALE("c", "b"), NULL),
                     tg_cost_ps(512, 1120) + tg_cost_ps(612, 1120));
}

#define IOTA_C "pool.iota dst=sbuf:c[0:+128] @0 float32 [[1,512]], expr=p + f\n"

static void trn1_shared_sbuf_port(void **state)
{
    (void)state;
    uint64_t dve = tg_cost_ps(512, 1120), pool1 = tg_cost_ps(150 + 512, 1400), pool2 = tg_cost_ps(150 + 512, 1200);
    uint64_t dve2 = tg_cost_ps(512, 960);
    /* trn1: DVE and GpSimd cannot use SBUF at the same time: serial */
    assert_int_equal(run(HDR("trn1") SCALE("b", "a") IOTA_C, NULL), dve + pool1);
    /* trn2: the restriction is lifted: in parallel */
    assert_int_equal(run(HDR("trn2") SCALE("b", "a") IOTA_C, NULL), dve2 > pool2 ? dve2 : pool2);
}

/* [DMA-OV] figure nki-dma-intro-1: DMA throughput of [128, B] transfers against
 * B (bytes per partition), read off the plot as a fraction of the 32 KiB point
 * (pixel heights 11, 21, 43, 87, 177, 339, 403, 410, 413, 417 of 417). The
 * flat part of the curve gave the 1160 ns a transfer holds its engine (the
 * table says how); this checks the whole curve, the knee at 2-4 KiB
 * included, within 15 %. The 32 B point (6 pixels) is below reading
 * precision and left out. */
static void dma_throughput_curve(void **state)
{
    (void)state;
    static const int bytes[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
    static const double rel[] = {11, 21, 43, 87, 177, 339, 403, 410, 413, 417};
    double tput[10];
    for (int i = 0; i < 10; i++) {
        char text[2048];
        int n = bytes[i] / 4;
        snprintf(text, sizeof text,
                 ".kernel t\n.target trn1\n.spec \"t.yaml\"\n.tilegen \"test\"\n"
                 ".tensor x input float32 [128, %d]\n.tensor y output float32 [128, %d]\n"
                 ".tile a sbuf float32 [128, %d] bufs 1 p[0:+128] @0 slot %d\n"
                 "loop reg=r0, var=i, start=0, stop=16, step=1\n"
                 "dma.load dst=sbuf:a[0:+128] @0 float32 [[1,%d]], src=hbm:x[+128 s%d] @0 float32 [[1,%d]]\n"
                 "endloop reg=r0\n",
                 n, n, n, bytes[i], n, n, n);
        tput[i] = 16.0 * (double)bytes[i] / (double)run(text, NULL); /* steady state: 16 back to back */
    }
    for (int i = 0; i < 10; i++) {
        double model = tput[i] / tput[9], published = rel[i] / rel[9];
        if (model < published * 0.85 || model > published * 1.15)
            fail_msg("%d B per partition: model %.3f, figure %.3f of the 32 KiB throughput", bytes[i], model,
                     published);
    }
}

static void execution_matches_iss(void **state)
{
    (void)state;
    const char *text = HDR("trn1") LOAD_A "dma.signal sem=s0\ndve.wait sem=s0\n" SCALE("b", "a")
        "dve.signal sem=s1\ndma.wait sem=s1\n"
        "dma.store dst=hbm:y[+128 s512] @0 float32 [[1,512]], src=sbuf:b[0:+128] @0 float32 [[1,512]]\n";
    size_t len;
    uint8_t *bin = assemble(text, &len);
    static float x[128 * 512], y1[128 * 512], y2[128 * 512];
    TG_CORE_STATIC(core, TG_CORE_BYTES_MAX);
    for (int i = 0; i < 128 * 512; i++)
        x[i] = (float)(i % 977) * 0.25f - 7.0f;
    void *t1[2] = {x, y1}, *t2[2] = {x, y2};
    assert_int_equal(tg_core_init(&core, TG_TRN1), 0);
    assert_int_equal(tg_iss_exec(&core, bin, len, t1, NULL), 0);
    assert_int_equal(tg_core_init(&core, TG_TRN1), 0);
    tg_cost_stats st;
    memset(&st, 0, sizeof st);
    tg_cost_opts o = {&core, t2, NULL, NULL, 0};
    assert_int_equal(tg_cost_run(bin, len, &o, &scratch, &st), 0);
    assert_memory_equal(y1, y2, sizeof y1);
    assert_true(y2[5] == x[5] * 2.0f);
    free(bin);
}

/* cores: 2 (format 2.2): each physical core's stream on its own engines,
 * semaphores and SBUF (both write tile b at the same address, core 0 2x, core
 * 1 3x, and each stores half of the partitions), at once on a shared HBM. */
#define SCALE2(d, s, k) "dve.tensor_scalar dst=sbuf:" d "[0:+128] @0 float32 [[1,512]], src=sbuf:" s "[0:+128] @0 float32 [[1,512]], op0=multiply, operand0=" k "\n"
#define CORE0 "dma.load dst=sbuf:a[0:+128] @0 float32 [[1,512]], src=hbm:x[+128 s512] @0 float32 [[1,512]]\n" \
    "dma.signal sem=s0\ndve.wait sem=s0\n" SCALE2("b", "a", "2.0") "dve.signal sem=s1\ndma.wait sem=s1\n"            \
    "dma.store dst=hbm:y[+64 s512] @0 float32 [[1,512]], src=sbuf:b[0:+64] @0 float32 [[1,512]]\n"
#define CORE1 "dma.load dst=sbuf:a[0:+128] @0 float32 [[1,512]], src=hbm:x[+128 s512] @0 float32 [[1,512]]\n" \
    "dma.signal sem=s0\ndve.wait sem=s0\n" SCALE2("b", "a", "3.0") "dve.signal sem=s1\ndma.wait sem=s1\n"            \
    "dma.store dst=hbm:y[+64 s512] @131072 float32 [[1,512]], src=sbuf:b[64:+64] @0 float32 [[1,512]]\n"

static void two_cores(void **state)
{
    (void)state;
    const char *text = HDR("trn2") "core id=0\n" CORE0 "core id=1\n" CORE1;
    uint64_t one = run(HDR("trn2") CORE0, NULL), two = run(text, NULL);
    /* in parallel: the time of one. Their loads' 32 DMA engines share the
     * 725 B/ns HBM stack (22.66 B/ns each: 723 ns for 16 KiB instead of 712),
     * still under the 1160 ns a transfer holds its engine and the 1300 ns a
     * DMA takes, so sharing costs nothing here (dma_rule, suite cost-cores) */
    assert_int_equal(two, one);
    size_t len;
    uint8_t *bin = assemble(text, &len);
    static float x[128 * 512], y1[128 * 512], y2[128 * 512];
    static tg_storage_unit mem[(2 * TG_CORE_BYTES_MAX) / 8 + 1];
    tg_core core;
    for (int i = 0; i < 128 * 512; i++)
        x[i] = (float)(i % 977) * 0.25f - 7.0f;
    void *t1[2] = {x, y1}, *t2[2] = {x, y2};
    /* the ISS (one core after the other) and the model (both at once) on each core's own SBUF */
    assert_int_equal(tg_core_init_storage(&core, TG_TRN2, mem, sizeof mem), 0);
    assert_int_equal(tg_iss_exec(&core, bin, len, t1, NULL), 0);
    assert_int_equal(tg_core_init(&core, TG_TRN2), 0);
    tg_cost_stats st;
    memset(&st, 0, sizeof st);
    tg_cost_opts o = {&core, t2, NULL, NULL, 0};
    assert_int_equal(tg_cost_run(bin, len, &o, &scratch, &st), 0);
    assert_int_equal(st.ncores, 2);
    assert_int_equal(st.latency_ps, two);
    assert_int_equal(st.core_latency_ps[0] > st.core_latency_ps[1] ? st.core_latency_ps[0] : st.core_latency_ps[1],
                     two);
    assert_memory_equal(y1, y2, sizeof y1);
    assert_true(y2[5] == x[5] * 2.0f && y2[64 * 512 + 5] == x[64 * 512 + 5] * 3.0f);
    /* the decoder: each core's first instruction, and nothing but ids 0, 1 in order */
    tg_prog p;
    assert_int_equal(tg_prog_decode(&p, bin, len), 0);
    assert_int_equal(p.ncores, 2);
    assert_int_equal(p.core_pc[0], 0);
    assert_true(p.core_pc[1] > 0 && p.core_pc[2] == p.ninsts);
    tg_prog_inst in;
    tg_prog_get_inst(&p, p.core_pc[1], &in);
    assert_int_equal(in.op, TG_OP_CORE);
    uint8_t *id = bin + p.imms_off + (size_t)in.first_imm * TG_ISA_IMM_BYTES + 4; /* u64 value */
    for (int bad = 0; bad < 3; bad += 2) { /* core id=0 twice; core id=2 */
        id[0] = (uint8_t)bad;
        uint32_t sum = tg_prog_checksum(bin, len);
        for (int k = 0; k < 4; k++)
            bin[12 + k] = (uint8_t)(sum >> (8 * k));
        assert_int_equal(tg_prog_decode(&p, bin, len), TG_EPROGRAM);
    }
    free(bin);
}

static void deadlock_and_garbage(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bin = assemble(HDR("trn1") "dve.wait sem=s3\n" SCALE("b", "a"), &len);
    tg_cost_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(tg_cost_run(bin, len, NULL, &scratch, &st), TG_EDEADLOCK);
    bin[len / 2] ^= 0x5a; /* the checksum no longer matches */
    assert_int_equal(tg_cost_run(bin, len, NULL, &scratch, &st), TG_EPROGRAM);
    free(bin);
}

int main(void)
{
    T1 = tg_cost_table_of(TG_TRN1);
    T2 = tg_cost_table_of(TG_TRN2);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul_rule),          cmocka_unit_test(transpose_rule),
        cmocka_unit_test(vector_rules),         cmocka_unit_test(scalar_and_gpsimd_rules),
        cmocka_unit_test(dma_rule),             cmocka_unit_test(dma_fixed_cost),
        cmocka_unit_test(semaphore_carries_time), cmocka_unit_test(independent_ops_pipeline),
        cmocka_unit_test(trn1_shared_sbuf_port), cmocka_unit_test(execution_matches_iss),
        cmocka_unit_test(deadlock_and_garbage),   cmocka_unit_test(dma_throughput_curve),
        cmocka_unit_test(two_cores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
