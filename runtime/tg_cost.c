/* tg_cost.c - the timing model's scheduler (tg_cost.h): every stream (compute
 * engine or DMA queue) walks the program in order with its own clock and loop
 * registers; the stream with the earliest clock goes next. Semaphores carry
 * the time of each signal (FIFO per semaphore), DMA transfers occupy the DMA
 * engines serving their partitions, trn1's shared ports serialize DVE/Pool on
 * SBUF and DVE/ACT on PSUM. With a core, each instruction is also executed by
 * the ISS's executor, so values are the ISS's. Freestanding C99. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_cost.h"

#include "tg_mem.h"

#include "tg_alu.h"
#include "tg_dtype.h"
#include "tg_iss.h"
#include "tg_math.h"
#include "tg_prog.h"

#define COST_FAR ((int64_t)1 << 40)
#define COST_MAX_COUNT ((int64_t)1 << 31)

/* One stream's walk of its physical core's instructions. */
typedef struct cstream {
    uint32_t pc;                       /* next instruction */
    uint32_t core;                     /* its physical core */
    int done, blocked;                 /* ran off the end / waits on a semaphore */
    int64_t regs[TG_ISA_MAX_REGS];     /* loop registers by depth */
    uint32_t loop_pc[TG_ISA_MAX_REGS]; /* open loop per depth */
    int64_t stop[TG_ISA_MAX_REGS], step[TG_ISA_MAX_REGS];
    uint64_t t;                        /* when the next instruction may issue */
    uint64_t done_t;                   /* completion of everything issued so far */
    uint64_t done_id;                  /* the event that completes last */
    uint64_t cause;                    /* what the next instruction waited for */
    uint64_t last_id;                  /* the stream's last instruction or wait event */
    uint64_t covered;                  /* DMA queue: in-flight union so far */
    int waited;                        /* the next instruction follows a blocking wait */
    int has_w;                         /* last write footprint valid */
    int w_space;                       /* its memory */
    int64_t w_p0, w_p1, w_b0, w_b1;    /* its partitions and bytes */
} cstream;

/* A resolved operand: what the cost rules and footprints need. */
typedef struct cop {
    int present;
    tg_isa_space space;
    tg_dtype dtype;
    int64_t esize, pcount, count;      /* bytes/element, partitions, free elements */
    int64_t run;                       /* elements of the innermost contiguous run */
    int64_t p0;                        /* SBUF/PSUM: first absolute partition */
    int64_t b0, b1;                    /* SBUF/PSUM: byte columns touched */
} cop;

/* One physical core: its engines' streams, its 16 DMA engines, its ports
 * and activation table. The cores share the clock and the HBM (format 2.2). */
typedef struct ccore {
    cstream s[TG_COST_STREAMS];
    uint64_t dma_free[TG_DMA_QUEUES], dma_id[TG_DMA_QUEUES];
    uint64_t port_free[2], port_id[2];  /* trn1: 0 = SBUF (DVE/Pool), 1 = PSUM (DVE/ACT) */
    int port_eng[2];
    int act_table;                      /* loaded activation table, -1 none */
} ccore;

typedef struct cmodel {
    tg_prog prog;
    const tg_cost_table *tab;
    const tg_cost_opts *opts;
    tg_cost_state *ss;
    tg_cost_stats *st;
    ccore c[TG_ISA_MAX_CORES];          /* prog.ncores of them */
    uint64_t next_id;
    tg_iss_stats iss;                   /* execution counters */
} cmodel;

static uint64_t umax(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The instruction's stream: its engine, or its DMA queue (tg_isa.h). */
static uint32_t stream_of(const tg_prog_inst *in) { return tg_prog_stream(in); }

static uint64_t imm(const cmodel *m, const tg_prog_inst *in, tg_isa_imm key, uint64_t dflt)
{
    uint64_t v = dflt;
    tg_prog_find_imm(&m->prog, in, key, &v);
    return v;
}

static void emit(cmodel *m, tg_cost_event *ev)
{
    ev->id = ++m->next_id;
    m->st->events++;
    if (ev->end_ps > m->st->latency_ps)
        m->st->latency_ps = ev->end_ps;
    if (ev->end_ps > m->st->core_latency_ps[ev->core])
        m->st->core_latency_ps[ev->core] = ev->end_ps;
    if (m->opts && m->opts->sink)
        m->opts->sink(m->opts->user, ev);
}

/* ---- operands --------------------------------------------------------------- */

static int resolve(const cmodel *m, const cstream *s, const tg_prog_inst *in, tg_isa_role role, cop *o)
{
    tg_prog_operand po;
    memset(o, 0, sizeof *o);
    if (!tg_prog_find_operand(&m->prog, in, role, &po))
        return 0;
    int64_t buf, ps, pc, off;
    if (tg_prog_eval(&m->prog, po.buf, s->regs, 0, 0, &buf) || tg_prog_eval(&m->prog, po.pstart, s->regs, 0, 0, &ps) ||
        tg_prog_eval(&m->prog, po.pcount, s->regs, 0, 0, &pc) || tg_prog_eval(&m->prog, po.offset, s->regs, 0, 0, &off))
        return TG_EPROGRAM;
    if (pc < 1 || pc > (po.space == TG_SPACE_HBM ? COST_FAR : TG_PARTITIONS) || off < -COST_FAR || off > COST_FAR ||
        ps < -COST_FAR || ps > COST_FAR) /* HBM rows are no partitions (tg_iss.c ap_resolve) */
        return TG_EBOUNDS;
    o->present = 1;
    o->space = po.space;
    o->dtype = po.dtype;
    o->esize = (int64_t)tg_dtype_size(po.dtype);
    o->pcount = pc;
    o->count = 1;
    o->run = 1;
    int64_t fmin = 0, fmax = 0, expect = 1, contiguous = 1;
    for (int k = (int)po.nfree - 1; k >= 0; k--) {
        int64_t num;
        if (tg_prog_eval(&m->prog, po.num[k], s->regs, 0, 0, &num))
            return TG_EPROGRAM;
        if (num < 1 || num > COST_MAX_COUNT)
            return TG_EBOUNDS;
        o->count *= num;
        if (o->count > COST_MAX_COUNT)
            return TG_EBOUNDS;
        int64_t span = (int64_t)po.step[k] * (num - 1); /* |step| < 2^31, num ≤ 2^31 */
        if (span < 0)
            fmin += span;
        else
            fmax += span;
        if (fmin < -COST_FAR || fmax > COST_FAR)
            return TG_EBOUNDS; /* as the ISS: no footprint arithmetic can overflow */
        if (contiguous && (num == 1 || po.step[k] == expect)) {
            o->run *= num;
            expect *= num;
        } else {
            contiguous = 0;
        }
    }
    if (po.space != TG_SPACE_HBM) {
        tg_prog_tile t;
        tg_prog_get_tile(&m->prog, po.index, &t);
        int64_t copy = t.bufs ? buf % (int64_t)t.bufs : 0;
        copy += copy < 0 ? (int64_t)t.bufs : 0;
        int64_t col = (int64_t)t.base + copy * (int64_t)t.slot + off;
        o->p0 = (int64_t)t.pstart + ps;
        o->b0 = col + o->esize * fmin;
        o->b1 = col + o->esize * (fmax + 1);
    }
    return 1;
}

static int overlaps(const cstream *s, const cop *o)
{
    return s->has_w && o->present && o->space != TG_SPACE_HBM && (int)o->space == s->w_space &&
           o->p0 < s->w_p1 && s->w_p0 < o->p0 + o->pcount && o->b0 < s->w_b1 && s->w_b0 < o->b1;
}

/* ---- one instruction -------------------------------------------------------- */

/* Activation tables: functions that are plain arithmetic need none. */
static int act_table(uint32_t f)
{
    switch (f) {
    case TG_ACT_COPY: case TG_ACT_RELU: case TG_ACT_SQUARE: case TG_ACT_ABS: case TG_ACT_SIGN: return -1;
    default: return (int)f;
    }
}

static int is16(tg_dtype d) { return d == TG_BFLOAT16 || d == TG_FLOAT16; }

static int exec_compute(cmodel *m, cstream *s, uint32_t sid, const tg_prog_inst *in)
{
    ccore *k = &m->c[s->core];
    static const tg_isa_role roles[] = {TG_ROLE_DST, TG_ROLE_SRC, TG_ROLE_A, TG_ROLE_B, TG_ROLE_STATIONARY,
                                        TG_ROLE_MOVING, TG_ROLE_BIAS, TG_ROLE_REDUCE_DST, TG_ROLE_SCALE,
                                        TG_ROLE_OPERAND0, TG_ROLE_OPERAND1, TG_ROLE_INITIAL, TG_ROLE_PRED,
                                        TG_ROLE_ON_TRUE, TG_ROLE_ON_FALSE, TG_ROLE_VALUES};
    enum { NR = sizeof roles / sizeof roles[0] };
    cop o[NR];
    int rc;
    if (in->op == TG_OP_PRINT)
        return 0; /* the host's debugging: no time on the device (docs/cost.md) */
    for (int i = 0; i < NR; i++)
        if ((rc = resolve(m, s, in, roles[i], &o[i])) < 0)
            return rc;
    const cop *dst = &o[0];
    const cop *main = o[1].present ? &o[1] : o[2].present ? &o[2] : o[5].present ? &o[5] : dst;
    tg_cost_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.op = in->op;
    sh.func = (uint32_t)imm(m, in, TG_IMM_FUNC, 0);
    int two_ops = in->op == TG_OP_TENSOR_SCALAR || in->op == TG_OP_SCALAR_TENSOR_TENSOR;
    sh.alu = (uint32_t)imm(m, in, two_ops ? TG_IMM_OP0 : TG_IMM_OP, 0);
    sh.alu1 = (uint32_t)imm(m, in, TG_IMM_OP1, TG_ALU_COUNT);
    sh.has_reduce = o[7].present;
    sh.n = main->count > dst->count ? main->count : dst->count;
    sh.p = main->pcount;
    sh.all16 = sh.allbf16 = sh.all_sbuf = sh.unit_stride = 1;
    int npsum_in = 0;
    for (int i = 0; i < NR; i++) {
        if (!o[i].present || (i != 0 && o[i].count == 1 && i >= 6))
            continue; /* [P,1] scalars do not decide the mode */
        sh.all16 &= is16(o[i].dtype);
        sh.allbf16 &= o[i].dtype == TG_BFLOAT16;
        sh.all_sbuf &= o[i].space == TG_SPACE_SBUF;
        sh.unit_stride &= o[i].run == o[i].count;
        npsum_in += i != 0 && o[i].space == TG_SPACE_PSUM;
    }
    sh.one_psum = npsum_in == 1;
    if (in->op == TG_OP_MATMUL) {
        sh.n_stationary = o[4].count;
        sh.n_moving = o[5].count;
        sh.fp32_in = o[4].esize == 4 || o[5].esize == 4;
        sh.n = o[5].count;
        sh.p = o[4].pcount;
    } else if (in->op == TG_OP_TRANSPOSE) {
        sh.fp32_in = o[1].esize == 4;
        sh.n = o[1].count;
        sh.p = o[1].pcount;
    } else if (in->op == TG_OP_MEMSET) {
        tg_math_f32u v; /* +0.0 (a number given per iteration counts at this one) */
        if (tg_prog_number(&m->prog, in, TG_IMM_VALUE, s->regs, 0.0f, &v.f))
            return TG_EPROGRAM;
        sh.zero_memset16 = v.u == 0 && is16(dst->dtype);
    }
    uint64_t cycles = tg_cost_cycles(m->tab, &sh);
    /* dependent: reads what this engine wrote last, or waited on another engine */
    int dependent = s->waited;
    for (int i = 1; i < NR; i++)
        dependent |= overlaps(s, &o[i]);
    if (dependent && in->engine == TG_ENG_DVE)
        cycles += m->tab->dve_static;
    if (dependent && in->engine == TG_ENG_ACT)
        cycles += m->tab->act_static;
    uint64_t dur = tg_cost_ps(cycles, m->tab->mhz[in->engine]);
    if (in->op == TG_OP_ACTIVATION) {
        int tb = act_table(sh.func);
        if (tb >= 0 && tb != k->act_table) {
            dur += m->tab->act_table_ps;
            m->st->table_loads++;
            k->act_table = tb;
        }
    }
    uint64_t start = s->t, cause = s->cause;
    /* trn1: DVE and Pool share the SBUF port, DVE and ACT the PSUM port */
    int ports[2] = {-1, -1}, np = 0;
    if (m->tab->shared_ports) {
        int sb = 0, ps = 0;
        for (int i = 0; i < NR; i++) {
            sb |= o[i].present && o[i].space == TG_SPACE_SBUF;
            ps |= o[i].present && o[i].space == TG_SPACE_PSUM;
        }
        if (sb && (in->engine == TG_ENG_DVE || in->engine == TG_ENG_POOL))
            ports[np++] = 0;
        if (ps && (in->engine == TG_ENG_DVE || in->engine == TG_ENG_ACT))
            ports[np++] = 1;
        for (int i = 0; i < np; i++)
            if (k->port_eng[ports[i]] != (int)in->engine && k->port_free[ports[i]] > start) {
                start = k->port_free[ports[i]];
                cause = k->port_id[ports[i]];
            }
    }
    tg_cost_event ev;
    memset(&ev, 0, sizeof ev);
    ev.cause = cause;
    ev.start_ps = start;
    ev.end_ps = start + dur;
    ev.pc = s->pc;
    ev.line = in->line;
    ev.op = (uint16_t)in->op;
    ev.kind = TG_COST_INST;
    ev.engine = (uint8_t)in->engine;
    ev.stream = (uint8_t)sid;
    ev.core = (uint8_t)s->core;
    ev.elems = (uint64_t)(dst->pcount * dst->count);
    if (in->op == TG_OP_MATMUL) {
        ev.flops = 2u * (uint64_t)o[4].pcount * (uint64_t)o[4].count * (uint64_t)o[5].count;
        m->st->flops += ev.flops;
        m->st->hw_flops += sh.fp32_in ? ev.flops * m->tab->pe_fp32_factor : ev.flops;
    }
    emit(m, &ev);
    for (int i = 0; i < np; i++) {
        k->port_free[ports[i]] = ev.end_ps;
        k->port_id[ports[i]] = ev.id;
        k->port_eng[ports[i]] = (int)in->engine;
    }
    m->st->busy_ps[sid] += dur;
    s->t = s->done_t = ev.end_ps;
    s->done_id = ev.id;
    s->cause = ev.id;
    s->last_id = ev.id;
    s->waited = 0;
    s->has_w = dst->present && dst->space != TG_SPACE_HBM;
    s->w_space = (int)dst->space;
    s->w_p0 = dst->p0;
    s->w_p1 = dst->p0 + dst->pcount;
    s->w_b0 = dst->b0;
    s->w_b1 = dst->b1;
    return 0;
}

static int exec_dma(cmodel *m, cstream *s, uint32_t sid, const tg_prog_inst *in)
{
    ccore *k = &m->c[s->core];
    cop d, src;
    int rc;
    if ((rc = resolve(m, s, in, TG_ROLE_DST, &d)) < 0 || (rc = resolve(m, s, in, TG_ROLE_SRC, &src)) < 0)
        return rc;
    if (!d.present || !src.present)
        return TG_EPROGRAM;
    /* a load walks its source's rows (the ISS's rule); bytes as written */
    int64_t rows = in->op == TG_OP_LOAD ? src.pcount : d.pcount;
    int64_t row_bytes = d.count * d.esize;
    int64_t run = d.run * d.esize < src.run * src.esize ? d.run * d.esize : src.run * src.esize;
    tg_cost_dma x;
    x.first = d.space != TG_SPACE_HBM ? d.p0 : src.space != TG_SPACE_HBM ? src.p0 : 0;
    x.partitions = rows;
    x.row_bytes = row_bytes;
    x.run_bytes = run;
    /* every DMA engine of every physical core shares the HBM */
    x.hbm_engines = d.space == TG_SPACE_HBM || src.space == TG_SPACE_HBM
                        ? (int64_t)m->prog.ncores * (int64_t)m->tab->dma_engines
                        : 0;
    uint64_t issue = s->t, start_floor = issue + m->tab->dma_issue_ps;
    uint64_t done = issue + m->tab->dma_fixed_ps;
    tg_prog_operand ix;
    if (tg_prog_find_operand(&m->prog, in, TG_ROLE_INDEX, &ix)) { /* indirect: descriptors from the indices */
        start_floor += m->tab->dma_index_ps;
        done += m->tab->dma_index_ps;
    }
    uint64_t qcause = s->cause ? s->cause : s->last_id, cause = qcause;
    uint64_t xs[TG_DMA_QUEUES], xe[TG_DMA_QUEUES], xh[TG_DMA_QUEUES], xc[TG_DMA_QUEUES];
    uint32_t ne = m->tab->dma_engines < TG_DMA_QUEUES ? m->tab->dma_engines : TG_DMA_QUEUES;
    for (uint32_t e = 0; e < ne; e++) {
        uint64_t busy = tg_cost_dma_engine_ps(m->tab, &x, e);
        xe[e] = 0;
        if (!busy)
            continue;
        /* the engine moves the data in `busy` and is held for at least the
         * fixed cost per transfer: small transfers are bound by the transfer
         * rate, not the bandwidth (docs/cost.md, "DMA") */
        uint64_t hold = umax(busy, m->tab->dma_transfer_ps);
        xs[e] = umax(start_floor, k->dma_free[e]);
        xc[e] = k->dma_free[e] > start_floor ? k->dma_id[e] : qcause;
        xe[e] = xs[e] + busy;
        xh[e] = xs[e] + hold;
        m->st->dma_engine_ps[e] += busy;
        if (xh[e] >= done) { /* never before the trigger-to-completion latency */
            done = xh[e];
            cause = xc[e];
        }
    }
    /* the DMA first (its id is what later users of its engines wait on), then
     * its part on each engine when asked for */
    tg_cost_event ev;
    memset(&ev, 0, sizeof ev);
    ev.cause = cause;
    ev.start_ps = issue;
    ev.end_ps = done;
    ev.pc = s->pc;
    ev.line = in->line;
    ev.op = (uint16_t)in->op;
    ev.kind = TG_COST_INST;
    ev.engine = TG_ENG_DMA;
    ev.stream = (uint8_t)sid;
    ev.core = (uint8_t)s->core;
    ev.bytes = (uint64_t)(rows * row_bytes);
    ev.row_bytes = row_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)row_bytes;
    ev.elems = (uint64_t)(rows * d.count);
    emit(m, &ev);
    tg_cost_event xev = ev;
    xev.kind = TG_COST_XFER;
    xev.bytes = 0;
    for (uint32_t e = 0; e < ne; e++) {
        if (!xe[e])
            continue;
        k->dma_free[e] = xh[e];
        k->dma_id[e] = ev.id;
        if (m->opts && m->opts->transfers) {
            xev.cause = xc[e];
            xev.start_ps = xs[e];
            xev.end_ps = xe[e];
            xev.unit = (uint8_t)e;
            emit(m, &xev);
        }
    }
    m->st->dma_bytes += ev.bytes;
    m->st->dma_transfers++;
    if (row_bytes < (int64_t)m->tab->dma_small_bytes) {
        m->st->dma_small++;
        m->st->dma_small_bytes += ev.bytes;
    }
    /* busy of a queue: the union of its DMAs in flight (issues are in order) */
    uint64_t from = umax(issue, s->covered);
    if (done > from)
        m->st->busy_ps[sid] += done - from;
    s->covered = umax(s->covered, done);
    s->t = start_floor;
    s->last_id = ev.id;
    if (done >= s->done_t) {
        s->done_t = done;
        s->done_id = ev.id;
    }
    s->cause = 0;
    s->waited = 0;
    return 0;
}

/* ---- semaphores ------------------------------------------------------------- */

/* 1 when the signal went out, 0 when the semaphore's FIFO is full. `sem`
 * is the state's index: the core's semaphores at core * 256. */
static int sem_signal(cmodel *m, cstream *s, uint32_t sem)
{
    tg_cost_state *ss = m->ss;
    if (ss->sem_count[sem] >= TG_COST_SEM_DEPTH)
        return 0;
    uint32_t slot = (ss->sem_head[sem] + ss->sem_count[sem]) % TG_COST_SEM_DEPTH;
    ss->sem_time[sem][slot] = umax(s->done_t, s->t);
    ss->sem_id[sem][slot] = s->done_id;
    ss->sem_count[sem]++;
    return 1;
}

static void wake_all(cmodel *m)
{
    for (uint32_t c = 0; c < m->prog.ncores; c++)
        for (int k = 0; k < TG_COST_STREAMS; k++)
            m->c[c].s[k].blocked = 0;
}

/* ---- walk ------------------------------------------------------------------- */

static int has_work(const cmodel *m, uint32_t from, uint32_t to, uint32_t sid)
{
    for (uint32_t i = from + 1; i < to; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(&m->prog, i, &in);
        if (in.op != TG_OP_LOOP && in.op != TG_OP_ENDLOOP && stream_of(&in) == sid)
            return 1;
    }
    return 0;
}

static int over_limit(const cmodel *m)
{
    return m->st->limit && m->iss.insts + m->iss.loop_iters >= m->st->limit;
}

enum { STEP_RAN, STEP_BLOCKED, STEP_DONE };

static int step(cmodel *m, uint32_t core, uint32_t sid)
{
    cstream *s = &m->c[core].s[sid];
    for (;;) {
        if (s->pc >= m->prog.core_pc[core + 1]) { /* the end of its core's instructions */
            s->done = 1;
            return STEP_DONE;
        }
        tg_prog_inst in;
        tg_prog_get_inst(&m->prog, s->pc, &in);
        m->st->fault_pc = s->pc;
        if (in.op == TG_OP_LOOP) {
            uint32_t end = tg_prog_loop_match(&m->prog, s->pc);
            uint32_t r = (uint32_t)imm(m, &in, TG_IMM_REG, 0);
            int64_t start = (int64_t)imm(m, &in, TG_IMM_START, 0), b;
            uint64_t x;
            s->stop[r] = (int64_t)imm(m, &in, TG_IMM_STOP, 0);
            s->step[r] = (int64_t)imm(m, &in, TG_IMM_STEP, 1);
            /* lo/hi: bounds over the outer registers, clamped to [start, stop) (as the ISS) */
            if (tg_prog_find_imm(&m->prog, &in, TG_IMM_LO, &x)) {
                if (tg_prog_eval(&m->prog, (uint32_t)x, s->regs, 0, 0, &b))
                    return TG_EPROGRAM;
                start = b > start ? b : start;
            }
            if (tg_prog_find_imm(&m->prog, &in, TG_IMM_HI, &x)) {
                if (tg_prog_eval(&m->prog, (uint32_t)x, s->regs, 0, 0, &b))
                    return TG_EPROGRAM;
                s->stop[r] = b < s->stop[r] ? b : s->stop[r];
            }
            if (start >= s->stop[r] || !has_work(m, s->pc, end, sid)) {
                s->pc = end + 1;
                continue;
            }
            if (over_limit(m))
                return TG_ELIMIT;
            s->regs[r] = start;
            s->loop_pc[r] = s->pc;
            m->iss.loop_iters++;
            s->pc++;
            continue;
        }
        if (in.op == TG_OP_ENDLOOP) {
            uint32_t r = (uint32_t)imm(m, &in, TG_IMM_REG, 0);
            s->regs[r] += s->step[r];
            if (s->regs[r] < s->stop[r]) {
                if (over_limit(m))
                    return TG_ELIMIT;
                m->iss.loop_iters++;
                s->pc = s->loop_pc[r] + 1;
            } else {
                s->pc++;
            }
            continue;
        }
        if (stream_of(&in) != sid) {
            s->pc++;
            continue;
        }
        if (over_limit(m))
            return TG_ELIMIT;
        if (in.op == TG_OP_WAIT || in.op == TG_OP_SIGNAL) {
            uint32_t sem = core * TG_ISA_MAX_SEMS + (uint32_t)imm(m, &in, TG_IMM_SEM, 0);
            tg_cost_state *ss = m->ss;
            if (in.op == TG_OP_SIGNAL) {
                if (!sem_signal(m, s, sem))
                    return STEP_BLOCKED;
                wake_all(m);
            } else {
                if (!ss->sem_count[sem])
                    return STEP_BLOCKED;
                uint64_t when = ss->sem_time[sem][ss->sem_head[sem]];
                uint64_t id = ss->sem_id[sem][ss->sem_head[sem]];
                ss->sem_head[sem] = (ss->sem_head[sem] + 1) % TG_COST_SEM_DEPTH;
                ss->sem_count[sem]--;
                wake_all(m);
                if (when > s->t) {
                    /* it had to wait: blocked until the signal, then the
                     * wait instruction wakes the engine (the hand-off) */
                    tg_cost_event ev;
                    memset(&ev, 0, sizeof ev);
                    ev.cause = id;
                    ev.start_ps = s->t;
                    ev.end_ps = when;
                    ev.pc = s->pc;
                    ev.line = in.line;
                    ev.op = (uint16_t)in.op;
                    ev.kind = TG_COST_WAIT;
                    ev.engine = (uint8_t)in.engine;
                    ev.stream = (uint8_t)sid;
                    ev.core = (uint8_t)core;
                    ev.sem = (uint16_t)(sem % TG_ISA_MAX_SEMS);
                    emit(m, &ev);
                    m->st->wait_ps[sid] += when - s->t;
                    ev.cause = ev.id;
                    ev.kind = TG_COST_INST;
                    ev.start_ps = when;
                    ev.end_ps = when + m->tab->handoff_ps;
                    emit(m, &ev);
                    m->st->busy_ps[sid] += m->tab->handoff_ps;
                    s->t = ev.end_ps;
                    if (sid >= TG_ENG_COUNT && s->covered < ev.end_ps) /* a DMA queue: in its busy union */
                        s->covered = ev.end_ps;
                    s->cause = ev.id;
                    s->last_id = ev.id;
                    s->waited = 1;
                }
            }
        } else {
            int rc = in.engine == TG_ENG_DMA ? exec_dma(m, s, sid, &in) : exec_compute(m, s, sid, &in);
            if (!rc && m->opts && m->opts->core)
                rc = tg_iss_exec_inst(m->opts->core, &m->prog, core, m->opts->tensors, s->regs, &in, &m->iss);
            if (rc)
                return rc;
        }
        m->st->insts[sid]++;
        m->st->core_insts[core][sid]++;
        m->iss.insts++;
        s->pc++;
        return STEP_RAN;
    }
}

/* The stream with the earliest clock goes next, over every stream of every
 * physical core (ties: lower core, then lower stream id). */
static int schedule(cmodel *m)
{
    for (;;) {
        cstream *best = NULL;
        uint32_t bc = 0, bk = 0;
        int live = 0;
        for (uint32_t c = 0; c < m->prog.ncores; c++)
            for (uint32_t k = 0; k < TG_COST_STREAMS; k++) {
                cstream *s = &m->c[c].s[k];
                if (k == TG_ENG_DMA || k == TG_ENG_SYNC || s->done)
                    continue;
                live = 1;
                if (!s->blocked && (!best || s->t < best->t)) {
                    best = s;
                    bc = c;
                    bk = k;
                }
            }
        if (!live)
            return 0;
        if (!best)
            return TG_EDEADLOCK;
        int rc = step(m, bc, bk);
        if (rc < 0)
            return rc;
        if (rc == STEP_BLOCKED)
            best->blocked = 1;
    }
}

/* The model lives in the caller's scratch (no static state, no heap). */
typedef char tg_cost_state_fits[sizeof(cmodel) <= sizeof(((tg_cost_state *)0)->model) ? 1 : -1];

int tg_cost_run(const uint8_t *prog, size_t size, const tg_cost_opts *opts, tg_cost_state *scratch,
                tg_cost_stats *st)
{
    if (!st || !scratch || !prog)
        return TG_EINVAL;
    cmodel *m = (cmodel *)(void *)scratch->model;
    uint64_t limit = st->limit;
    memset(st, 0, sizeof *st);
    st->limit = limit;
    memset(m, 0, sizeof *m);
    memset(scratch->sem_count, 0, sizeof scratch->sem_count);
    memset(scratch->sem_head, 0, sizeof scratch->sem_head);
    if (tg_prog_decode(&m->prog, prog, size))
        return TG_EPROGRAM;
    m->tab = tg_cost_table_of(m->prog.target);
    m->opts = opts;
    m->ss = scratch;
    m->st = st;
    st->ncores = m->prog.ncores;
    for (uint32_t c = 0; c < m->prog.ncores; c++) {
        ccore *k = &m->c[c];
        k->act_table = -1;
        k->port_eng[0] = k->port_eng[1] = -1;
        for (uint32_t q = 0; q < TG_COST_STREAMS; q++) {
            k->s[q].pc = m->prog.core_pc[c];
            k->s[q].core = c;
        }
    }
    if (opts && opts->core) {
        if (!opts->tensors)
            return TG_EINVAL;
        if (opts->core->magic != TG_CORE_MAGIC)
            return TG_ECORE;
        if (opts->core->target != m->prog.target)
            return TG_ETARGET;
        for (uint32_t i = 0; i < m->prog.npublic; i++)
            if (!opts->tensors[i])
                return TG_EINVAL;
    }
    return schedule(m);
}

#include "tg_fp_end.h"
