/* test_asm.c - the assembly back end end to end on every bundled spec (listing
 * -> assemble -> the same binary -> disassemble -> the same text, determinism,
 * listings written to a temp dir), the semaphores checked by running each
 * program's sync skeleton under adversarial engine schedules, expression text
 * round trips, and the runtime decoder rejecting corrupted programs. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <math.h>
#include <unistd.h>

#include "asm.h"
#include "driver.h"
#include "lower_test.h"
#include "pipeline.h"
#include "plan.h"
#include "tg_math.h"
#include "tg_prog.h"
#include "tg_runtime.h"

/* One bundled spec's listing and program. */
typedef struct Listing {
    Pipe pipe;
    tpl_buf text;
    uint8_t *bin;
    size_t len;
} Listing;

/* The listing of the spec at path (specs/NAME.yaml or a test kernel): the
 * pipeline up to the program, as `tilegen gen` and `tilegen run` build it. */
static void listing_make_path(Listing *l, const char *path)
{
    memset(l, 0, sizeof *l);
    PipeRequest rq = {path, NULL, PIPE_PROGRAM, "templates"};
    int rc = pipe_run(&l->pipe, &rq);
    if (rc) {
        diag_print(&l->pipe.diag, stderr);
        fprintf(stderr, "%s: %s", path, l->pipe.msg);
    }
    assert_int_equal(rc, 0);
    l->text = l->pipe.out[PIPE_S];
    tpl_buf_init(&l->pipe.out[PIPE_S]);
    l->bin = l->pipe.prog;
    l->len = l->pipe.prog_len;
    l->pipe.prog = NULL;
}

static void listing_make(Listing *l, int k)
{
    char path[64];
    snprintf(path, sizeof path, "specs/%s.yaml", lower_bundled[k]);
    listing_make_path(l, path);
}

static void listing_free(Listing *l)
{
    tpl_buf_free(&l->text);
    free(l->bin);
    pipe_free(&l->pipe);
}

/* Assemble text; fails the test on errors. */
static uint8_t *assemble_ok(const char *text, size_t len, size_t *outlen)
{
    Arena a;
    arena_init(&a);
    Diag d;
    diag_init(&d, &a);
    diag_add_source(&d, "t.s", text, len);
    uint8_t *bin = NULL;
    int rc = asm_assemble("t.s", text, len, &d, &bin, outlen);
    if (rc)
        diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    arena_free(&a);
    return bin;
}

/* Assembles text (which must assemble) and decodes it into *p; the caller
 * frees the returned binary, which *p points into. */
static uint8_t *assemble_decoded(const char *text, tg_prog *p)
{
    size_t n;
    uint8_t *bin = assemble_ok(text, strlen(text), &n);
    assert_int_equal(tg_prog_decode(p, bin, n), 0);
    return bin;
}

/* ---- round trips ---------------------------------------------------------- */

static void roundtrip_every_spec(void **state)
{
    (void)state;
    char dir[] = "/tmp/tilegen_asm_XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (int k = 0; k < LOWER_NBUNDLED; k++) {
        Listing l, again;
        listing_make(&l, k);
        /* text -> binary: the very program the emitter built */
        size_t n2;
        uint8_t *b2 = assemble_ok(l.text.data, l.text.len, &n2);
        assert_int_equal(n2, l.len);
        assert_memory_equal(b2, l.bin, l.len);
        /* binary -> text: the listing, byte for byte */
        tg_prog p;
        assert_int_equal(tg_prog_decode(&p, b2, n2), 0);
        char *text = asm_disassemble(&p);
        assert_non_null(text);
        assert_int_equal(strlen(text), l.text.len);
        assert_memory_equal(text, l.text.data, l.text.len);
        /* deterministic: a second run gives the same bytes */
        listing_make(&again, k);
        assert_int_equal(again.text.len, l.text.len);
        assert_memory_equal(again.text.data, l.text.data, l.text.len);
        /* the listing in a temp dir reads back identical */
        char path[128];
        snprintf(path, sizeof path, "%s/%s.s", dir, lower_bundled[k]);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(l.text.data, 1, l.text.len, f), l.text.len);
        fclose(f);
        size_t rl;
        char *back = driver_read_file(path, &rl);
        assert_non_null(back);
        assert_int_equal(rl, l.text.len);
        assert_memory_equal(back, l.text.data, rl);
        remove(path);
        free(back);
        free(text);
        free(b2);
        listing_free(&again);
        listing_free(&l);
    }
    rmdir(dir);
}

/* Every instruction line names its spec line; loops keep the spec's names. */
static void listing_shape(void **state)
{
    (void)state;
    Listing l;
    listing_make_path(&l, "specs/softmax.yaml");
    const char *t = l.text.data;
    assert_non_null(strstr(t, ".kernel softmax\n.target trn1\n.spec \"specs/softmax.yaml\"\n"));
    assert_non_null(strstr(t, "loop reg=r0, var=i, start=0, stop=8, step=1  ; specs/softmax.yaml:23\n"));
    assert_non_null(strstr(t, "    dma.load dst=sbuf:xt.(r0 % 2)[0:+128] @0 float32 [[1,512]], "
                              "src=hbm:x[+128 s512] @r0 * 262144 float32 [[1,512]], queue=0  ; specs/softmax.yaml:25\n"));
    /* each DMA statement on its own queue: the store is the second one */
    assert_non_null(strstr(t, "src=sbuf:yt.(r0 % 2)[0:+128] @0 float32 [[1,512]], queue=1  ; specs/softmax.yaml:32\n"));
    int lines = 0, annotated = 0;
    const char *body = strstr(t, "\n\n");
    assert_non_null(body);
    for (const char *s = body + 2; *s; s = strchr(s, '\n') + 1) {
        lines++;
        const char *e = strchr(s, '\n');
        assert_non_null(e);
        const char *c = strstr(s, "  ; specs/softmax.yaml:");
        annotated += c && c < e;
    }
    assert_true(lines > 10);
    assert_int_equal(annotated, lines);
    listing_free(&l);
    /* ragged tails stay min() forms evaluated per iteration */
    listing_make_path(&l, "specs/rmsnorm.yaml");
    assert_non_null(strstr(l.text.data, "xt.(r0 % 2)[0:+min(128, 300 - r0 * 128)]"));
    listing_free(&l);
}

/* ---- semaphores: the sync skeleton under adversarial schedules ------------ */

enum { SK_MAX_DYN = 200000 };

/* One executed compute instruction. */
typedef struct Dyn {
    uint32_t pc;   /* static instruction */
    uint32_t seq;  /* position in sequential program order */
} Dyn;

/* One stream's walk through the program (or the sequential run). */
typedef struct Engine {
    uint32_t pc;                     /* next instruction */
    int64_t regs[TG_ISA_MAX_REGS];   /* loop registers */
    int done;
} Engine;

/* The range of loop li with the outer registers in regs: start/stop
 * narrowed by the lo/hi expressions when present (docs/asm.md). */
static void loop_range(const tg_prog *p, const tg_prog_inst *li, const int64_t *regs, int64_t *start, int64_t *stop)
{
    uint64_t a, b, x;
    int64_t v;
    tg_prog_find_imm(p, li, TG_IMM_START, &a);
    tg_prog_find_imm(p, li, TG_IMM_STOP, &b);
    *start = (int64_t)a;
    *stop = (int64_t)b;
    if (tg_prog_find_imm(p, li, TG_IMM_LO, &x)) {
        assert_int_equal(tg_prog_eval(p, (uint32_t)x, regs, 0, 0, &v), 0);
        *start = v > *start ? v : *start;
    }
    if (tg_prog_find_imm(p, li, TG_IMM_HI, &x)) {
        assert_int_equal(tg_prog_eval(p, (uint32_t)x, regs, 0, 0, &v), 0);
        *stop = v < *stop ? v : *stop;
    }
}

/* Loop control at en->pc (in): enter, repeat or leave a loop; 0 if in is
 * not loop control. */
static int loop_control(const tg_prog *p, Engine *en, const tg_prog_inst *in)
{
    uint64_t reg, stp;
    int64_t start, stop;
    if (in->op == TG_OP_LOOP) {
        tg_prog_find_imm(p, in, TG_IMM_REG, &reg);
        loop_range(p, in, en->regs, &start, &stop);
        en->regs[reg] = start;
        en->pc = start < stop ? en->pc + 1 : tg_prog_loop_match(p, en->pc) + 1;
        return 1;
    }
    if (in->op == TG_OP_ENDLOOP) {
        uint32_t lp = tg_prog_loop_match(p, en->pc);
        tg_prog_inst li;
        tg_prog_get_inst(p, lp, &li);
        tg_prog_find_imm(p, &li, TG_IMM_REG, &reg);
        tg_prog_find_imm(p, &li, TG_IMM_STEP, &stp);
        loop_range(p, &li, en->regs, &start, &stop); /* the outer registers have not moved */
        en->regs[reg] += (int64_t)stp;
        en->pc = en->regs[reg] < stop ? lp + 1 : en->pc + 1;
        return 1;
    }
    return 0;
}

/* Step stream e (or the single sequential run when e < 0) up to and
 * including one compute instruction it owns (*ran_pc, return 1); 0 when it
 * blocks or ends first (*moved set if it got past any sync on the way). */
static int step(const tg_prog *p, Engine *en, int e, int *sems, uint32_t *ran_pc, int *moved)
{
    while (en->pc < p->ninsts) {
        tg_prog_inst in;
        tg_prog_get_inst(p, en->pc, &in);
        uint64_t v;
        if (loop_control(p, en, &in))
            continue;
        if (e >= 0 && (int)tg_prog_stream(&in) != e) {
            en->pc++;
            continue;
        }
        if (in.op == TG_OP_WAIT) {
            tg_prog_find_imm(p, &in, TG_IMM_SEM, &v);
            if (e >= 0 && sems[v] == 0)
                return 0;
            sems[v]--;
            en->pc++;
            *moved = 1;
            continue;
        }
        if (in.op == TG_OP_SIGNAL) {
            tg_prog_find_imm(p, &in, TG_IMM_SEM, &v);
            sems[v]++;
            en->pc++;
            *moved = 1;
            continue;
        }
        *ran_pc = en->pc++;
        return 1;
    }
    if (!en->done)
        *moved = 1;
    en->done = 1;
    return 0;
}

enum { SK_MAX_BUFS = 8 }; /* bufs is 1..8 (E013) */

/* The rotating copy each operand of instruction pc touches with loop
 * registers regs (buf mod bufs; HBM and single-copy tiles: 0). */
static void copies_of(const tg_prog *p, uint32_t pc, const int64_t *regs, uint8_t *cp)
{
    tg_prog_inst in;
    tg_prog_get_inst(p, pc, &in);
    for (uint32_t k = 0; k < in.nops; k++) {
        tg_prog_operand o;
        tg_prog_tile t;
        int64_t v = 0;
        tg_prog_get_operand(p, in.first_op + k, &o);
        cp[k] = 0;
        if (o.space == TG_SPACE_HBM)
            continue;
        tg_prog_get_tile(p, o.index, &t);
        assert_true(t.bufs <= SK_MAX_BUFS);
        assert_int_equal(tg_prog_eval(p, o.buf, regs, 0, 0, &v), 0);
        v %= (int64_t)t.bufs;
        cp[k] = (uint8_t)(v < 0 ? v + t.bufs : v);
    }
}

/* Operands oa (copy ca) and ob (copy cb) share a placed byte, or the same
 * HBM tensor, and one writes (as the emitter's rule); a copy < 0 means every
 * copy of the tile. */
static int operands_conflict(const tg_prog *p, const tg_prog_operand *oa, int ca, const tg_prog_operand *ob, int cb)
{
    int wa = oa->role == TG_ROLE_DST || oa->role == TG_ROLE_REDUCE_DST;
    int wb = ob->role == TG_ROLE_DST || ob->role == TG_ROLE_REDUCE_DST;
    if (ob->space != oa->space || !(wa || wb))
        return 0;
    if (oa->space == TG_SPACE_HBM)
        return oa->index == ob->index;
    tg_prog_tile ta, tb;
    tg_prog_get_tile(p, oa->index, &ta);
    tg_prog_get_tile(p, ob->index, &tb);
    uint64_t a0 = ta.base + (uint64_t)(ca < 0 ? 0 : ca) * ta.slot, a1 = a0 + ta.slot * (ca < 0 ? ta.bufs : 1);
    uint64_t b0 = tb.base + (uint64_t)(cb < 0 ? 0 : cb) * tb.slot, b1 = b0 + tb.slot * (cb < 0 ? tb.bufs : 1);
    return a0 < b1 && b0 < a1 && ta.pstart < tb.pstart + tb.pcount && tb.pstart < ta.pstart + ta.pcount;
}

/* Instructions a and b conflict: per rotating copy (ca, cb: the copies of
 * their operands), or whole tiles when ca and cb are NULL. */
static int conflicts_at(const tg_prog *p, uint32_t a, const uint8_t *ca, uint32_t b, const uint8_t *cb)
{
    tg_prog_inst ia, ib;
    tg_prog_get_inst(p, a, &ia);
    tg_prog_get_inst(p, b, &ib);
    for (uint32_t i = 0; i < ia.nops; i++)
        for (uint32_t j = 0; j < ib.nops; j++) {
            tg_prog_operand oa, ob;
            tg_prog_get_operand(p, ia.first_op + i, &oa);
            tg_prog_get_operand(p, ib.first_op + j, &ob);
            if (operands_conflict(p, &oa, ca ? ca[i] : -1, &ob, cb ? cb[j] : -1))
                return 1;
        }
    return 0;
}

static int conflicts(const tg_prog *p, uint32_t a, uint32_t b) { return conflicts_at(p, a, NULL, b, NULL); }

static void check_schedule(const tg_prog *p, const int *prio, Dyn *order, uint32_t nseq, const char *name)
{
    Engine en[TG_STREAM_COUNT];
    int sems[TG_ISA_MAX_SEMS] = {0};
    uint32_t count[4096] = {0}, n = 0;
    memset(en, 0, sizeof en);
    for (;;) {
        int progressed = 0, alldone = 1;
        for (int k = 0; k < TG_STREAM_COUNT && !progressed; k++) {
            int e = prio[k];
            uint32_t pc;
            if (en[e].done)
                continue;
            alldone = 0;
            if (step(p, &en[e], e, sems, &pc, &progressed)) {
                assert_true(n < nseq);
                order[n].pc = pc;
                order[n].seq = count[pc]++; /* occurrence index, mapped below */
                n++;
                progressed = 1;
            }
        }
        for (int k = 0; k < TG_STREAM_COUNT; k++)
            alldone &= en[k].done;
        if (alldone)
            break;
        if (!progressed) {
            fprintf(stderr, "%s: deadlock at", name);
            for (int e = 0; e < TG_STREAM_COUNT; e++)
                fprintf(stderr, " %d:%u", e, en[e].done ? 9999u : en[e].pc);
            fprintf(stderr, "\n");
            fail();
        }
    }
    assert_int_equal(n, nseq);
    for (int s = 0; s < TG_ISA_MAX_SEMS; s++)
        if (sems[s]) {
            fprintf(stderr, "%s: semaphore s%d ends at %d\n", name, s, sems[s]);
            fail();
        }
}

static void syncs_order_conflicts(void **state)
{
    (void)state;
    static Dyn seq[SK_MAX_DYN], sched[SK_MAX_DYN];
    static uint32_t seqno[SK_MAX_DYN];
    static uint8_t cps[SK_MAX_DYN][TG_ISA_MAX_OPERANDS]; /* each step's copies */
    static const int eprios[][TG_ENG_SYNC] = {{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 3, 0, 4, 1},
                                              {3, 2, 4, 1, 0}, {1, 4, 0, 2, 3}, {0, 4, 1, 3, 2}};
    /* stream priorities: each engine order with the DMA queues in its DMA
     * slot, ascending in even and descending in odd schedules */
    int prios[sizeof eprios / sizeof *eprios][TG_STREAM_COUNT];
    for (size_t s = 0; s < sizeof eprios / sizeof *eprios; s++) {
        int n = 0;
        for (int k = 0; k < TG_ENG_SYNC; k++) {
            if (eprios[s][k] != TG_ENG_DMA) {
                prios[s][n++] = eprios[s][k];
                continue;
            }
            for (int q = 0; q < TG_DMA_QUEUES; q++)
                prios[s][n++] = TG_ENG_COUNT + (s % 2 ? TG_DMA_QUEUES - 1 - q : q);
        }
        prios[s][n++] = TG_ENG_DMA; /* the DMA engine's own stream and SYNC run nothing */
        prios[s][n++] = TG_ENG_SYNC;
        assert_int_equal(n, TG_STREAM_COUNT);
    }
    for (int k = 0; k < LOWER_NBUNDLED; k++) {
        Listing l;
        listing_make(&l, k);
        tg_prog p;
        assert_int_equal(tg_prog_decode(&p, l.bin, l.len), 0);
        assert_true(p.ninsts < 4096);
        /* sequential order */
        Engine en;
        memset(&en, 0, sizeof en);
        int sems[TG_ISA_MAX_SEMS] = {0};
        uint32_t n = 0, pc, count[4096] = {0};
        int moved = 0;
        while (step(&p, &en, -1, sems, &pc, &moved)) {
            assert_true(n < SK_MAX_DYN);
            copies_of(&p, pc, en.regs, cps[n]);
            seq[n].pc = pc;
            seq[n].seq = count[pc]++;
            n++;
        }
        /* first[pc] = where pc's occurrences start in a per-pc index */
        static uint32_t first[4097];
        first[0] = 0;
        for (uint32_t i = 0; i < p.ninsts; i++)
            first[i + 1] = first[i] + count[i];
        for (uint32_t i = 0; i < n; i++)
            seqno[first[seq[i].pc] + seq[i].seq] = i;
        for (size_t s = 0; s < sizeof eprios / sizeof *eprios; s++) {
            check_schedule(&p, prios[s], sched, n, lower_bundled[k]);
            /* every conflicting cross-stream pair (per copy) runs in program order */
            for (uint32_t i = 0; i < n; i++) {
                uint32_t si = seqno[first[sched[i].pc] + sched[i].seq];
                tg_prog_inst a;
                tg_prog_get_inst(&p, sched[i].pc, &a);
                for (uint32_t j = i + 1; j < n; j++) {
                    tg_prog_inst b;
                    tg_prog_get_inst(&p, sched[j].pc, &b);
                    if (tg_prog_stream(&a) == tg_prog_stream(&b))
                        continue;
                    uint32_t sj = seqno[first[sched[j].pc] + sched[j].seq];
                    if (sj < si && conflicts_at(&p, sched[i].pc, cps[si], sched[j].pc, cps[sj])) {
                        fprintf(stderr, "%s: schedule %zu runs inst %u before inst %u against program order\n",
                                lower_bundled[k], s, sched[i].pc, sched[j].pc);
                        fail();
                    }
                }
            }
        }
        listing_free(&l);
    }
}

/* ---- semaphores: happens-before, every schedule at once ------------------ */

/* The schedules above are samples. This check covers all of them: with one
 * signalling and one waiting engine per semaphore, the k-th wait on it can
 * only pass after the k-th signal, and that (plus each engine's own order)
 * is the only order a schedule must keep, so every linear extension of it
 * is a schedule. Vector clocks over that order, along the sequential run,
 * decide for each pair of conflicting instructions whether every schedule
 * runs them in program order. */

enum { HB_MAX_STEPS = 1 << 20, HB_QUEUE = 64, HB_MAX_PAIRS = 1 << 20 };

/* Conflicting instructions on other streams, per instruction (CSR). */
typedef struct HbConf {
    uint32_t start[4097];       /* per pc: first entry in list[] */
    uint32_t list[HB_MAX_PAIRS]; /* conflicting pcs */
} HbConf;

static void hb_conflicts(const tg_prog *p, HbConf *cf)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < p->ninsts; b++) {
        cf->start[b] = n;
        tg_prog_inst ib;
        tg_prog_get_inst(p, b, &ib);
        for (uint32_t a = 0; a < p->ninsts; a++) {
            tg_prog_inst ia;
            tg_prog_get_inst(p, a, &ia);
            if (tg_prog_stream(&ia) != tg_prog_stream(&ib) && ia.engine < TG_ENG_SYNC && ib.engine < TG_ENG_SYNC &&
                conflicts(p, a, b)) {
                assert_true(n < HB_MAX_PAIRS);
                cf->list[n++] = a;
            }
        }
    }
    cf->start[p->ninsts] = n;
}

/* Semaphore state of the check: pending signals' clocks, FIFO per semaphore. */
typedef struct HbSems {
    uint32_t clock[TG_ISA_MAX_SEMS][HB_QUEUE][TG_STREAM_COUNT];
    uint32_t head[TG_ISA_MAX_SEMS], count[TG_ISA_MAX_SEMS];
    int signaller[TG_ISA_MAX_SEMS], waiter[TG_ISA_MAX_SEMS]; /* stream, -1 none yet */
} HbSems;

/* 0 when every schedule runs each conflicting pair of instructions on
 * different streams in program order, with semaphore `skip` (-1: none)
 * ignored; else 1 with the first unordered pair in why. Fails the test when
 * the program breaks the check's premises (a semaphore on two signalling or
 * waiting streams, a wait before its signal in the sequential run, a token
 * left at the end). */
static int hb_unordered(const tg_prog *p, const HbConf *cf, int skip, char *why, size_t nwhy)
{
    static HbSems h;
    /* per pc, operand and copy: its stream's count at the last run that touched that copy, 0 = none */
    static uint32_t last[4096][TG_ISA_MAX_OPERANDS][SK_MAX_BUFS];
    uint32_t vc[TG_STREAM_COUNT][TG_STREAM_COUNT];
    memset(&h, 0, sizeof h);
    memset(last, 0, sizeof last);
    memset(vc, 0, sizeof vc);
    for (int s = 0; s < TG_ISA_MAX_SEMS; s++)
        h.signaller[s] = h.waiter[s] = -1;
    Engine en;
    memset(&en, 0, sizeof en);
    uint32_t steps = 0;
    while (en.pc < p->ninsts) {
        tg_prog_inst in;
        tg_prog_get_inst(p, en.pc, &in);
        if (loop_control(p, &en, &in))
            continue;
        assert_true(++steps < HB_MAX_STEPS);
        uint32_t pc = en.pc++, str = tg_prog_stream(&in), *c = vc[str];
        if (in.op == TG_OP_SIGNAL || in.op == TG_OP_WAIT) {
            uint64_t s;
            assert_true(tg_prog_find_imm(p, &in, TG_IMM_SEM, &s));
            int *owner = in.op == TG_OP_SIGNAL ? &h.signaller[s] : &h.waiter[s];
            assert_true(*owner < 0 || *owner == (int)str);
            *owner = (int)str;
            if ((int)s == skip)
                continue;
            if (in.op == TG_OP_SIGNAL) {
                assert_true(h.count[s] < HB_QUEUE);
                memcpy(h.clock[s][(h.head[s] + h.count[s]++) % HB_QUEUE], c, sizeof vc[0]);
            } else {
                assert_true(h.count[s] > 0);
                const uint32_t *sc = h.clock[s][h.head[s]];
                for (int k = 0; k < TG_STREAM_COUNT; k++)
                    c[k] = sc[k] > c[k] ? sc[k] : c[k];
                h.head[s] = (h.head[s] + 1) % HB_QUEUE;
                h.count[s]--;
            }
            continue;
        }
        c[str]++;
        uint8_t cb[TG_ISA_MAX_OPERANDS];
        copies_of(p, pc, en.regs, cb);
        for (uint32_t k = cf->start[pc]; k < cf->start[pc + 1]; k++) {
            uint32_t a = cf->list[k];
            tg_prog_inst ia;
            tg_prog_get_inst(p, a, &ia);
            /* every (operand, copy) of a at its last run that touched it */
            for (uint32_t ka = 0; ka < ia.nops; ka++)
                for (int cp = 0; cp < SK_MAX_BUFS; cp++) {
                    uint32_t l = last[a][ka][cp];
                    if (!l || c[tg_prog_stream(&ia)] >= l)
                        continue;
                    int hit = 0;
                    tg_prog_operand oa, ob;
                    tg_prog_get_operand(p, ia.first_op + ka, &oa);
                    for (uint32_t kb = 0; kb < in.nops && !hit; kb++) {
                        tg_prog_get_operand(p, in.first_op + kb, &ob);
                        hit = operands_conflict(p, &oa, cp, &ob, cb[kb]);
                    }
                    if (hit) {
                        snprintf(why, nwhy,
                                 "inst %u (stream %u, copy %d) is not ordered before inst %u (stream %u), step %u", a,
                                 tg_prog_stream(&ia), cp, pc, str, steps);
                        return 1;
                    }
                }
        }
        for (uint32_t kb = 0; kb < in.nops; kb++)
            last[pc][kb][cb[kb]] = c[str];
    }
    for (int s = 0; s < TG_ISA_MAX_SEMS; s++)
        assert_int_equal(h.count[s], 0);
    return 0;
}

/* One spec: race-free in every schedule, and every semaphore needed
 * (without it some pair is unordered, which also shows the check catches a
 * missing wait). */
static void hb_check(const char *path, HbConf *cf)
{
    char why[256];
    Listing l;
    listing_make_path(&l, path);
    tg_prog p;
    assert_int_equal(tg_prog_decode(&p, l.bin, l.len), 0);
    assert_true(p.ninsts < 4096);
    hb_conflicts(&p, cf);
    if (hb_unordered(&p, cf, -1, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", path, why);
        fail();
    }
    int nsems = 0;
    for (uint32_t i = 0; i < p.ninsts; i++) {
        tg_prog_inst in;
        uint64_t s;
        tg_prog_get_inst(&p, i, &in);
        if (in.op == TG_OP_SIGNAL && tg_prog_find_imm(&p, &in, TG_IMM_SEM, &s) && (int)s >= nsems)
            nsems = (int)s + 1;
    }
    for (int s = 0; s < nsems; s++)
        if (!hb_unordered(&p, cf, s, why, sizeof why)) {
            fprintf(stderr, "%s: semaphore s%d is not needed\n", path, s);
            fail();
        }
    listing_free(&l);
}

/* Every bundled spec and the numerics test kernels (each needs semaphores),
 * plus the specs listed one per line in the file $ASM_HB_SPECS when set
 * (e.g. the differential fuzzer's, tests/numerics/fuzz_diff.py gen). */
static void syncs_happen_before(void **state)
{
    (void)state;
    static const char *const kernels[] = {"forward", "fold", "preduce", "shift"};
    static HbConf cf;
    int nspecs = LOWER_NBUNDLED + (int)(sizeof kernels / sizeof *kernels);
    for (int k = 0; k < nspecs; k++) {
        char path[96];
        if (k < LOWER_NBUNDLED)
            snprintf(path, sizeof path, "specs/%s.yaml", lower_bundled[k]);
        else
            snprintf(path, sizeof path, "tests/numerics/specs/%s.yaml", kernels[k - LOWER_NBUNDLED]);
        Listing l;
        listing_make_path(&l, path);
        int has_sem = strstr(l.text.data, ".signal sem=") != NULL;
        listing_free(&l);
        assert_true(has_sem);
        hb_check(path, &cf);
    }
    const char *list = getenv("ASM_HB_SPECS");
    FILE *f = list ? fopen(list, "r") : NULL;
    char line[1024];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0]) {
            hb_check(line, &cf);
            n++;
        }
    }
    if (f) {
        fclose(f);
        fprintf(stderr, "syncs_happen_before: %d specs from %s\n", n, list);
    }
}

/* ---- expressions ----------------------------------------------------------- */

static void expression_text_roundtrip(void **state)
{
    (void)state;
    static const char *const exprs[] = {
        "0", "-5", "r0 - (r1 - 3)", "(r0 + 1) * 4", "min(r0 * 2, 300 - r0 * 128) % 7", "-r0 * -3", "--5",
        "-(r0 + 1)", "max(-9223372036854775808, 9223372036854775807)", "r0 / 2 - r0 % 2 * -1", "r0 - -r1",
    };
    for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 ".kernel k\n.target trn1\n.tile t sbuf float32 [128, 4] bufs 1 p[0:+128] @0 slot 64\n"
                 "loop reg=r0, var=i, start=0, stop=2, step=1\n"
                 "loop reg=r1, var=j, start=0, stop=2, step=1\n"
                 "pool.iota dst=sbuf:t[0:+128] @0 float32 [[1,4]], expr=%s\nendloop reg=r1\nendloop reg=r0\n",
                 exprs[i]);
        tg_prog p;
        uint8_t *bin = assemble_decoded(text, &p);
        tg_prog_inst in;
        tg_prog_get_inst(&p, 2, &in);
        uint64_t off;
        assert_true(tg_prog_find_imm(&p, &in, TG_IMM_EXPR, &off));
        char *s = asm_format_expr(&p, (uint32_t)off);
        assert_string_equal(s, exprs[i]);
        free(s);
        free(bin);
    }
}

static void expression_eval(void **state)
{
    (void)state;
    const char *text = ".kernel k\n.target trn1\n.tile t sbuf float32 [128, 4] bufs 1 p[0:+128] @0 slot 64\n"
                       "loop reg=r0, var=i, start=0, stop=2, step=1\n"
                       "pool.iota dst=sbuf:t[0:+128] @0 float32 [[1,4]], expr=(r0 - 7) / 2 * 100 + (r0 - 7) % 3\n"
                       "pool.iota dst=sbuf:t[0:+128] @0 float32 [[1,4]], expr=r0 * 4611686018427387904\n"
                       "pool.iota dst=sbuf:t[0:+128] @0 float32 [[1,4]], expr=p / r0 + f\n"
                       "endloop reg=r0\n";
    tg_prog p;
    uint8_t *bin = assemble_decoded(text, &p);
    int64_t regs[TG_ISA_MAX_REGS] = {3}, v = 0;
    uint64_t off;
    tg_prog_inst in;
    tg_prog_get_inst(&p, 1, &in);
    tg_prog_find_imm(&p, &in, TG_IMM_EXPR, &off);
    assert_int_equal(tg_prog_eval(&p, (uint32_t)off, regs, 0, 0, &v), 0);
    assert_int_equal(v, -2 * 100 + 2); /* floor: -4/2 = -2, -4 % 3 = 2 */
    tg_prog_get_inst(&p, 2, &in);
    tg_prog_find_imm(&p, &in, TG_IMM_EXPR, &off);
    assert_int_equal(tg_prog_eval(&p, (uint32_t)off, regs, 0, 0, &v), TG_EPROGRAM); /* overflow */
    tg_prog_get_inst(&p, 3, &in);
    tg_prog_find_imm(&p, &in, TG_IMM_EXPR, &off);
    regs[0] = 0;
    assert_int_equal(tg_prog_eval(&p, (uint32_t)off, regs, 5, 1, &v), TG_EPROGRAM); /* division by zero */
    regs[0] = 2;
    assert_int_equal(tg_prog_eval(&p, (uint32_t)off, regs, 5, 1, &v), 0);
    assert_int_equal(v, 3);
    free(bin);
}

/* Numbers per iteration (FEXPR, format 1.3): evaluated in fp64 with true
 * division and the floored remainder, rounded once; the decoder keeps float
 * constants out of integer expressions and p/f out of numbers. */
static void number_expression_eval(void **state)
{
    (void)state;
    const char *text = ".kernel k\n.target trn1\n.tile t sbuf float32 [128, 4] bufs 1 p[0:+128] @0 slot 64\n"
                       "loop reg=r0, var=i, start=0, stop=2, step=1\n"
                       "dve.memset dst=sbuf:t[0:+128] @0 float32 [[1,4]], value=(1 / (r0 + 2))\n"
                       "dve.memset dst=sbuf:t[0:+128] @0 float32 [[1,4]], value=(-r0 % 0.75 + min(r0, -inf))\n"
                       "dve.memset dst=sbuf:t[0:+128] @0 float32 [[1,4]], value=((1e20 * r0) % 7 - 0.1)\n"
                       "dve.memset dst=sbuf:t[0:+128] @0 float32 [[1,4]], value=(1.5 / (r0 - 1))\n"
                       "endloop reg=r0\n";
    tg_prog p;
    uint8_t *bin = assemble_decoded(text, &p);
    int64_t regs[TG_ISA_MAX_REGS] = {1};
    tg_prog_inst in;
    float f = 0;
    tg_prog_get_inst(&p, 1, &in);
    assert_int_equal(tg_prog_number(&p, &in, TG_IMM_VALUE, regs, 9.0f, &f), 0);
    assert_true(f == (float)(1.0 / 3.0)); /* true division, rounded once */
    tg_prog_get_inst(&p, 2, &in);
    assert_int_equal(tg_prog_number(&p, &in, TG_IMM_VALUE, regs, 9.0f, &f), 0);
    assert_true(f == -INFINITY); /* -1 floored mod 0.75 = 0.5, + -inf */
    tg_prog_get_inst(&p, 3, &in);
    assert_int_equal(tg_prog_number(&p, &in, TG_IMM_VALUE, regs, 9.0f, &f), 0);
    assert_true(f == (float)(fmod(1e20, 7.0) - 0.1)); /* the exact remainder of a large value */
    tg_prog_get_inst(&p, 4, &in);
    assert_int_equal(tg_prog_number(&p, &in, TG_IMM_VALUE, regs, 9.0f, &f), TG_EPROGRAM); /* 1.5 / 0 */
    free(bin);
    /* the exact floored remainder against libm's exact fmod */
    static const double xs[] = {0.0, -0.0, 1.0, -1.0, 2.5, -7.25, 1e300, -1e-300, 4.9e-324, 123456789.0, 0.1};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (size_t j = 0; j < sizeof xs / sizeof xs[0]; j++) {
            double a = xs[i], b = xs[j];
            if (b == 0)
                continue;
            double m = fmod(a, b), want = m != 0 && (m < 0) != (b < 0) ? m + b : m, got = tg_math_mod_floor_d(a, b);
            assert_memory_equal(&got, &want, sizeof got);
        }
    assert_true(tg_math_mod_floor_d(INFINITY, 2.0) != tg_math_mod_floor_d(INFINITY, 2.0)); /* NaN */
    assert_true(tg_math_mod_floor_d(3.0, 0.0) != tg_math_mod_floor_d(3.0, 0.0));
    assert_true(tg_math_mod_floor_d(3.0, INFINITY) == 3.0 && tg_math_mod_floor_d(-3.0, INFINITY) == INFINITY);
}

/* ---- corrupted programs ---------------------------------------------------- */

static void rehash(uint8_t *b, size_t n)
{
    uint32_t h = tg_prog_checksum(b, n);
    for (int i = 0; i < 4; i++)
        b[12 + i] = (uint8_t)(h >> (8 * i));
}

static void corrupted_rejected(void **state)
{
    (void)state;
    Listing l;
    listing_make_path(&l, "specs/tensor_add.yaml");
    tg_prog p;
    uint8_t *b = malloc(l.len);
    assert_non_null(b);
    /* every truncation */
    for (size_t n = 0; n < l.len; n++)
        assert_int_equal(tg_prog_decode(&p, l.bin, n), TG_EPROGRAM);
    /* every single-byte change: checksum, header or both */
    for (size_t i = 0; i < l.len; i++) {
        memcpy(b, l.bin, l.len);
        b[i] ^= 0x5a;
        assert_int_equal(tg_prog_decode(&p, b, l.len), TG_EPROGRAM);
    }
    assert_int_equal(tg_prog_decode(&p, l.bin, l.len), 0);
    uint32_t insts = p.insts_off, tiles = p.tiles_off, ops = p.ops_off;
    /* bad opcode, with a valid checksum */
    memcpy(b, l.bin, l.len);
    b[insts] = 200;
    rehash(b, l.len);
    assert_int_equal(tg_prog_decode(&p, b, l.len), TG_EPROGRAM);
    /* an instruction on the wrong engine */
    memcpy(b, l.bin, l.len);
    for (uint32_t i = 0; i < p.ninsts; i++)
        if (b[insts + 16 * i] == TG_OP_LOAD) {
            b[insts + 16 * i + 1] = TG_ENG_PE;
            break;
        }
    rehash(b, l.len);
    assert_int_equal(tg_prog_decode(&p, b, l.len), TG_EPROGRAM);
    /* a tile placed beyond SBUF (operands out of SBUF) */
    memcpy(b, l.bin, l.len);
    b[tiles + 8] = 0x00;
    b[tiles + 9] = 0x00;
    b[tiles + 10] = 0x03; /* base 196608: one byte past trn1's partition */
    rehash(b, l.len);
    assert_int_equal(tg_prog_decode(&p, b, l.len), TG_EPROGRAM);
    /* an operand naming a tile that does not exist */
    memcpy(b, l.bin, l.len);
    b[ops + 4] = 0xee;
    rehash(b, l.len);
    assert_int_equal(tg_prog_decode(&p, b, l.len), TG_EPROGRAM);
    /* a newer major version */
    memcpy(b, l.bin, l.len);
    b[4] = TG_ISA_VERSION_MAJOR + 1;
    rehash(b, l.len);
    assert_int_equal(tg_prog_decode(&p, b, l.len), TG_EPROGRAM);
    /* an unbalanced loop: drop the last endloop by turning it into a wait */
    memcpy(b, l.bin, l.len);
    assert_int_equal(tg_prog_decode(&p, l.bin, l.len), 0);
    for (uint32_t i = p.ninsts; i-- > 0;)
        if (b[insts + 16 * i] == TG_OP_ENDLOOP) {
            b[insts + 16 * i] = TG_OP_WAIT;
            b[insts + 16 * i + 1] = TG_ENG_DVE;
            break;
        }
    rehash(b, l.len);
    assert_int_equal(tg_prog_decode(&p, b, l.len), TG_EPROGRAM);
    free(b);
    listing_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip_every_spec),   cmocka_unit_test(listing_shape),
        cmocka_unit_test(syncs_order_conflicts), cmocka_unit_test(syncs_happen_before),
        cmocka_unit_test(expression_text_roundtrip),
        cmocka_unit_test(expression_eval),        cmocka_unit_test(corrupted_rejected),
        cmocka_unit_test(number_expression_eval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
