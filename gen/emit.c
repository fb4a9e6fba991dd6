/* emit.c - the C back end's model: walks the lowered IR and the SBUF/PSUM plan
 * and builds the ctemplate context the kernel templates render. Each
 * instruction becomes a map of operands (row address per partition, element
 * index over refined free loops with constant counts and strides) plus its
 * op fields; runs of partition-local statements become regions that share
 * one loop over partitions. All C text lives in templates/kernel.{h,c}.j2. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "c_names.h"
#include "emit.h"
#include "emit_progs.h"
#include "forward.h"
#include "tg_ops.h"
#include "tg_runtime.h"

/* Per-dtype storage facts (SPEC.md §4 storage); the accessors themselves are
 * runtime/tg_sim.h's tg_rd_<sfx> / tg_wr_<sfx>. */
typedef struct EmitDtype {
    const char *sfx;    /* accessor suffix: tg_rd_<sfx> / tg_wr_<sfx> */
    const char *ctype;  /* C storage type */
} EmitDtype;

static const EmitDtype dtypes[TG_DTYPE_COUNT] = {
    [TG_FLOAT32] = {"f32", "float"},
    [TG_TFLOAT32] = {"tf32", "float"},
    [TG_BFLOAT16] = {"bf16", "uint16_t"},
    [TG_FLOAT16] = {"f16", "uint16_t"},
    [TG_FLOAT8_E4M3] = {"e4m3", "uint8_t"},
    [TG_FLOAT8_E5M2] = {"e5m2", "uint8_t"},
    [TG_INT8] = {"i8", "int8_t"},
    [TG_UINT8] = {"u8", "uint8_t"},
    [TG_INT16] = {"i16", "int16_t"},
    [TG_UINT16] = {"u16", "uint16_t"},
    [TG_INT32] = {"i32", "int32_t"},
    [TG_UINT32] = {"u32", "uint32_t"},
};

static const char *const dtype_enums[TG_DTYPE_COUNT] = {
    "TG_FLOAT32", "TG_TFLOAT32", "TG_BFLOAT16", "TG_FLOAT16", "TG_FLOAT8_E4M3", "TG_FLOAT8_E5M2",
    "TG_INT8", "TG_UINT8", "TG_INT16", "TG_UINT16", "TG_INT32", "TG_UINT32",
};

/* Elements per block when the template splits an innermost loop. */
#define EMIT_CHUNK 64

/* A source read every second element along a constant innermost loop of at
 * least EMIT_STAGE_MIN elements, and at most EMIT_STAGE_MAX_BYTES of them (a
 * buffer on the kernel's stack, as the row-local tiles' budget), is gathered
 * into a contiguous row first (operand, stage). */
#define EMIT_STAGE_MIN 16
#define EMIT_STAGE_MAX_BYTES 4096

/* Activation result tables (act_table): at most this many settings, read by
 * at most this many instructions each; a table is worth building when its
 * activations compute at least as many elements per run as it has entries
 * (work counted up to EMIT_TABLE_WORK). */
#define EMIT_TABLES 8
#define EMIT_TABLE_USES 16
#define EMIT_TABLE_WORK ((int64_t)1 << 40)

/* Most elements per partition of an activation whose block of TG_LANES rows
 * runs as one packed row (act_pack), and the step of the runtime's widest
 * activation body (runtime/tg_ops.c TG_EXPV_U vectors of 8: a row that is a
 * multiple of it wastes no lane, and packing it is only extra passes). */
#define EMIT_ACT_PACK_MAX 256
#define EMIT_ACT_PACK_STEP 64

/* Fewest partitions for which a fold, scan or statistic runs in lanes
 * (TG_LANES rows at once, runtime/tg_ops.h): below, the per-row chains are
 * cheaper than the lanes. */
#define EMIT_LANES_MIN 4
/* Most elements per row of bn_stats/bn_aggr in lanes: their rows are staged
 * on the stack, 16 · 512 · 4 = 32 KiB at most. */
#define EMIT_LANES_CAP 512
/* Most partitions of a fold whose loop's iterations may run in lanes
 * (iter_lanes): with more, its own lanes fill over half of TG_LANES. */
#define EMIT_ITER_LANES_MAXP 8

/* Builder state. */
typedef struct E {
    tpl_arena *ta;      /* values */
    Arena *arena;       /* scratch strings */
    const Ir *ir;       /* input */
    const Plan *plan;   /* tile placement */
    Diag *diag;         /* errors */
    int errors;         /* unsupported constructs reported */
    int oom;            /* a value could not be built */
    int quiet;          /* asking only (chain_member): report nothing unsupported */
    int in_region;      /* building the statements of a partition region */
    unsigned char *rowlocal; /* per tile: its rows live on the stack in the region being built (2: and
                                its NaNs need not be canonical, nan_any_tile) */
    unsigned char *ilanes; /* per instruction id: runs after its loop, the iterations in lanes (iter_lanes) */
    Fwd fwd;            /* HBM forwarding: what each instruction becomes */
    int64_t pe_floats;  /* PE staging the largest matmul/transpose needs (core->pe) */
    int te_direct;      /* the last tensor_engine(): operands in place (matmul_fold asks) */
    int64_t trips;      /* iterations of the enclosing spec loops (at most EMIT_TABLE_WORK) */
    const IrLoop *progs; /* a kernel without a grid: the loop whose iterations are programs, or NULL */
    int ntab;           /* activation result tables wanted (act_table) */
    struct {
        SpecAct func;       /* the setting: function, scale, source dtype */
        double scale;
        tg_dtype src;
        int64_t n;          /* entries: 2^(8 * source bytes) */
        tpl_value *use[EMIT_TABLE_USES]; /* the instructions that read it */
        int nuse;
    } tab[EMIT_TABLES];
} E;

/* A free-loop nest shared by an instruction's operands: counts outer first,
 * and each operand's element stride per loop. */
typedef struct Nest {
    int n;                                     /* loops */
    int64_t count[EMIT_MAX_DIMS];              /* iterations, outer first */
    const char *ncount[EMIT_MAX_DIMS];         /* ragged: the count as a C expression, else NULL */
    int64_t step[IR_MAX_OPERANDS][EMIT_MAX_DIMS]; /* per operand, elements */
    const char *idx[IR_MAX_OPERANDS];          /* ragged, dims that do not line up: the
                                                  operand's element index (C), else NULL */
} Nest;

/* ---- values ------------------------------------------------------------------ */

static tpl_value *str(E *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static tpl_value *str(E *e, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tpl_value *v = n >= 0 && (size_t)n < sizeof buf ? tpl_string(e->ta, buf) : NULL;
    if (!v)
        e->oom = 1;
    return v;
}

static void put(E *e, tpl_value *map, const char *key, tpl_value *v)
{
    if (!v || tpl_map_set(e->ta, map, key, v))
        e->oom = 1;
}

static void put_int(E *e, tpl_value *map, const char *key, int64_t i) { put(e, map, key, tpl_int(e->ta, i)); }
static void put_str(E *e, tpl_value *map, const char *key, const char *s)
{
    put(e, map, key, tpl_string(e->ta, s ? s : ""));
}
static void put_bool(E *e, tpl_value *map, const char *key, int b) { put(e, map, key, tpl_bool(e->ta, b)); }

static void append(E *e, tpl_value *list, tpl_value *v)
{
    if (!v || tpl_list_append(e->ta, list, v))
        e->oom = 1;
}

static tpl_value *new_map(E *e)
{
    tpl_value *m = tpl_map(e->ta);
    if (!m)
        e->oom = 1;
    return m;
}

static tpl_value *new_list(E *e)
{
    tpl_value *l = tpl_list(e->ta);
    if (!l)
        e->oom = 1;
    return l;
}

static void unsupported(E *e, SrcLoc loc, const char *what)
{
    if (e->quiet)
        return; /* the instruction's own emission reports it */
    diag_error(e->diag, loc, "E100", "%s not supported by the C back end yet", what);
    e->errors++;
}

/* The C identifier of tensor t: its name, or tg_t_<name> when that name
 * would not compile or would be shadowed (c_names.h); tg_t_ is the
 * generated code's own prefix, so no other name takes that form. */
static const char *tensor_cname(E *e, const SpecTensor *t)
{
    if (!cname_tensor_clash(t->name, e->ir->spec->kernel))
        return t->name;
    const char *c = arena_printf(e->arena, "tg_t_%s", t->name);
    if (!c)
        e->oom = 1;
    return c ? c : t->name;
}

/* ---- expressions as C ---------------------------------------------------------- */

/* Append s to buf (size bytes, *pos used); *pos = size once it does not fit. */
static void cput(const char *s, char *buf, size_t size, size_t *pos)
{
    size_t l = strlen(s);
    if (*pos + l < size) {
        memcpy(buf + *pos, s, l + 1);
        *pos += l;
    } else {
        *pos = size;
    }
}
#define PUT(s) cput((s), buf, size, pos)

/* Append the C form of x (loop variables v_<name>, p -> tg_p, f -> tg_f;
 * floor division/modulo and min/max through the template's helpers). */
static void cexpr(const Expr *x, char *buf, size_t size, size_t *pos)
{
    char tmp[64];
    const char *op = NULL, *fn = NULL;
    if (!x) {
        PUT("0");
        return;
    }
    switch (x->kind) {
    case EXPR_INT:
        snprintf(tmp, sizeof tmp, x->ival < 0 ? "(%lld)" : "%lld", (long long)x->ival);
        PUT(tmp);
        return;
    case EXPR_VAR:
        if (x->ival == EXPR_VAR_P)
            PUT("tg_p");
        else if (x->ival == EXPR_VAR_F)
            PUT("tg_f");
        else {
            PUT("v_");
            PUT(x->name ? x->name : "?");
        }
        return;
    case EXPR_NEG:
        PUT("(-");
        cexpr(x->a, buf, size, pos);
        PUT(")");
        return;
    case EXPR_ADD: op = " + "; break;
    case EXPR_SUB: op = " - "; break;
    case EXPR_MUL: op = " * "; break;
    case EXPR_DIV: fn = "tg_fdiv("; break;
    case EXPR_MOD: fn = "tg_fmod("; break;
    case EXPR_MIN: fn = "tg_min("; break;
    case EXPR_MAX: fn = "tg_max("; break;
    default:
        PUT("0 /* ? */");
        return;
    }
    PUT(fn ? fn : "(");
    cexpr(x->a, buf, size, pos);
    PUT(fn ? ", " : op);
    cexpr(x->b, buf, size, pos);
    PUT(")");
}

/* Append the C form of a number over loop variables (SPEC.md §2.1): fp64
 * arithmetic as check evaluates it (expr_eval_float), with the runtime's
 * floored remainder, min and max. */
static void cfexpr(const Expr *x, char *buf, size_t size, size_t *pos)
{
    char tmp[64];
    const char *op = NULL, *fn = NULL;
    switch (x->kind) {
    case EXPR_INT:
        snprintf(tmp, sizeof tmp, "(double)(%lld)", (long long)x->ival);
        PUT(tmp);
        return;
    case EXPR_FLOAT: {
        uint64_t u;
        memcpy(&u, &x->fval, sizeof u);
        snprintf(tmp, sizeof tmp, "tg_bits_f64(0x%016llxull)", (unsigned long long)u);
        PUT(tmp);
        return;
    }
    case EXPR_VAR:
        PUT("(double)v_");
        PUT(x->name ? x->name : "?");
        return;
    case EXPR_NEG:
        PUT("(-");
        cfexpr(x->a, buf, size, pos);
        PUT(")");
        return;
    case EXPR_ADD: op = " + "; break;
    case EXPR_SUB: op = " - "; break;
    case EXPR_MUL: op = " * "; break;
    case EXPR_DIV: op = " / "; break;
    case EXPR_MOD: fn = "tg_math_mod_floor_d("; break;
    case EXPR_MIN: fn = "tg_math_min_d("; break;
    case EXPR_MAX: fn = "tg_math_max_d("; break;
    default:
        PUT("0 /* ? */");
        return;
    }
    PUT(fn ? fn : "(");
    cfexpr(x->a, buf, size, pos);
    PUT(fn ? ", " : op);
    cfexpr(x->b, buf, size, pos);
    PUT(")");
}

#undef PUT

static const char *cx(E *e, const Expr *x)
{
    char buf[512];
    size_t pos = 0;
    buf[0] = '\0';
    cexpr(x, buf, sizeof buf, &pos);
    if (pos >= sizeof buf) {
        e->oom = 1;
        return "0";
    }
    const char *s = arena_strdup(e->arena, buf);
    if (!s)
        e->oom = 1;
    return s ? s : "0";
}

/* "a + b" skipping zero terms (both C expressions). */
static const char *cadd(E *e, const char *a, const char *b)
{
    if (!strcmp(a, "0"))
        return b;
    if (!strcmp(b, "0"))
        return a;
    const char *s = arena_printf(e->arena, "%s + %s", a, b);
    if (!s)
        e->oom = 1;
    return s ? s : "0";
}

/* k * (x), folding k = 0 / 1 and constant x. */
static const char *cmul(E *e, int64_t k, const Expr *x)
{
    int64_t v;
    if (k == 0 || ir_expr_is(x, 0))
        return "0";
    if (ir_expr_const(x, &v) && v <= INT64_MAX / (k < 0 ? -k : k) && v >= -(INT64_MAX / (k < 0 ? -k : k)))
        return arena_printf(e->arena, "%lld", (long long)(k * v));
    const char *s = k == 1 ? arena_printf(e->arena, "(%s)", cx(e, x))
                           : arena_printf(e->arena, "(%s) * %lld", cx(e, x), (long long)k);
    if (!s)
        e->oom = 1;
    return s ? s : "0";
}

/* ---- operands ----------------------------------------------------------------- */

/* The operand value: address of its row for partition tg_p, dtype facts,
 * element index over the nest's loops (operand k of the nest). */
/* Bytes from one partition row of ap's SBUF or PSUM storage to the next
 * (the plan's sizes in the caller's storage, tg_core_layout). */
static int64_t row_bytes(const E *e, const IrAp *ap)
{
    return ap->mem == IR_MEM_PSUM ? (int64_t)TG_CORE_ROW((size_t)e->plan->psum_peak * TG_PSUM_BANK_BYTES)
                                  : (int64_t)TG_CORE_ROW(e->plan->sbuf_peak);
}

/* The address of ap's row for partition tg_p, as C. */
static const char *row_of(E *e, const IrAp *ap, int writable)
{
    int64_t es = (int64_t)tg_dtype_size(ap->dtype);
    const char *row;
    if (ap->mem == IR_MEM_HBM) {
        const SpecTensor *t = &e->ir->spec->tensors[ap->index];
        const char *pterm = ap->pstep ? arena_printf(e->arena, "tg_p * %lld", (long long)ap->pstep) : "0";
        if (ap->istep) /* an indirect DMA: row tg_p at its index (tg_ix, kernel.c.j2 inst); a forwarded
                          gather's reader (forward.c): the index the gather checked (tg_ix<id>) */
            pterm = cadd(e, pterm ? pterm : "0",
                         arena_printf(e->arena, "tg_ix%s[tg_p] * %lld",
                                      ap->ixgather ? arena_printf(e->arena, "%d", ap->ixgather - 1) : "",
                                      (long long)ap->istep));
        if (t->base != ap->index) /* a view (SPEC.md §2.1): its elements from the base's first byte */
            row = arena_printf(e->arena, "((%suint8_t *)%s + (%s) * %lld)", writable ? "" : "const ",
                               tensor_cname(e, &e->ir->spec->tensors[t->base]),
                               cadd(e, cx(e, ap->offset), pterm ? pterm : "0"), (long long)es);
        else
            row = arena_printf(e->arena, "(%suint8_t *)(%s + %s)", writable ? "" : "const ", tensor_cname(e, t),
                               cadd(e, cx(e, ap->offset), pterm ? pterm : "0"));
    } else if (ap->mem == IR_MEM_SBUF && e->in_region && e->rowlocal && e->rowlocal[ap->index]) {
        row = cadd(e, arena_printf(e->arena, "tg_rl%d", ap->index), cmul(e, es, ap->offset));
    } else {
        const PlanTile *pt = &e->plan->tiles[ap->index];
        const char *part = cadd(e, cmul(e, 1, ap->pstart), "tg_p");
        if (pt->pstart)
            part = cadd(e, arena_printf(e->arena, "%lld", (long long)pt->pstart), part);
        int64_t base = ap->mem == IR_MEM_PSUM ? (int64_t)pt->bank * TG_PSUM_BANK_BYTES : pt->offset;
        const char *byte = cadd(e, arena_printf(e->arena, "%lld", (long long)base),
                                cadd(e, cmul(e, pt->slot, ap->buf), cmul(e, es, ap->offset)));
        int psum = ap->mem == IR_MEM_PSUM;
        int64_t rowbytes = row_bytes(e, ap);
        row = arena_printf(e->arena, "tg_%s + %s", psum ? "psum" : "sbuf",
                           cadd(e, arena_printf(e->arena, "(%s) * %lld", part, (long long)rowbytes), byte));
    }
    return row;
}

static tpl_value *number(E *e, double v, const Expr *numx);

static tpl_value *operand(E *e, const IrAp *ap, const Nest *nest, int k, int writable, int skip_inner, int stage)
{
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    const EmitDtype *dt = &dtypes[ap->dtype];
    int64_t es = (int64_t)tg_dtype_size(ap->dtype);
    const char *row = row_of(e, ap, writable);
    const char *idx = "0", *idx2 = "0", *gidx = "0";
    int even = nest && nest->n > 0 && !skip_inner && nest->step[k][nest->n - 1] == 2 && !nest->idx[k];
    for (int d = 0; nest && d < nest->n - (skip_inner ? 1 : 0); d++) {
        if (nest->ncount[d])
            even = 0;
        if (nest->idx[k]) {
            idx = nest->idx[k];
            break;
        }
        int64_t s = nest->step[k][d];
        if (!s)
            continue;
        const char *t = s == 1 ? arena_printf(e->arena, "tg_j%d", d)
                               : arena_printf(e->arena, "tg_j%d * %lld", d, (long long)s);
        idx = cadd(e, idx, t ? t : "0");
        if (d < nest->n - 1)
            gidx = cadd(e, gidx, t ? t : "0");
        even = even && s % 2 == 0;
        if (even) {
            t = s == 2 ? arena_printf(e->arena, "tg_j%d", d)
                       : arena_printf(e->arena, "tg_j%d * %lld", d, (long long)(s / 2));
            idx2 = cadd(e, idx2, t ? t : "0");
        }
    }
    if (!row)
        e->oom = 1;
    put_str(e, m, "row", row);
    put_str(e, m, "idx", idx);
    put_str(e, m, "keep", "");  /* a chain member's dst kept as a value (chain_map) */
    put_str(e, m, "kept", "");  /* a source read as that value */
    /* idx2: for an fp32 SBUF/PSUM operand whose every free stride is even
     * and the innermost 2 (e.g. a pooling window), its index in 8-byte pairs,
     * read with tg_rd_f32_even (which the compiler vectorizes; the pair's
     * second half is a row byte too, so the read stays inside the row) */
    int pair = even && ap->mem != IR_MEM_HBM && ap->dtype == TG_FLOAT32;
    put_str(e, m, "idx2", pair ? idx2 : "");
    /* stage: for a source the caller lets be staged (elementwise) that steps
     * by 2 elements of 1, 2 or 4 bytes along a constant innermost loop of at
     * least EMIT_STAGE_MIN and has no idx2, a row-local buffer's name: the
     * template gathers the row's elements into it (tg_stage2_<bits>, from
     * element gidx, gn of them) before the innermost loop, which reads them
     * contiguously at its variable ivar. gcc -O2 vectorizes a stride-2 load
     * by peeling for the gap after its last element, which left a vector's
     * worth of every row scalar (avgpool2d's window adds). */
    int inner_n = nest && nest->n > 0 ? nest->n - 1 : 0;
    int staged = stage && !ap->konst && !pair && nest && nest->n > 0 && !skip_inner && !nest->idx[k] &&
                 !nest->ncount[inner_n] && nest->step[k][inner_n] == 2 && (es == 1 || es == 2 || es == 4) &&
                 nest->count[inner_n] >= EMIT_STAGE_MIN && nest->count[inner_n] * es <= EMIT_STAGE_MAX_BYTES;
    put_str(e, m, "stage", staged ? arena_printf(e->arena, "tg_g%d", k) : "");
    if (staged) {
        put_str(e, m, "gidx", gidx);
        put_int(e, m, "gn", nest->count[inner_n]);
        put_str(e, m, "ivar", arena_printf(e->arena, "tg_j%d", inner_n));
    }
    put_str(e, m, "sfx", dt->sfx);
    /* f32run: fp32 elements the innermost loop walks one after another;
     * lrun: the same of a dtype whose lane block, one run in each row, the
     * runtime stages and writes back (tg_lanes_stage_<sfx>: fp32, bf16, fp16, fp8) */
    int run = nest && nest->n > 0 && !skip_inner && !nest->idx[k] && nest->step[k][nest->n - 1] == 1;
    put_bool(e, m, "f32run", run && ap->dtype == TG_FLOAT32);
    put_bool(e, m, "lrun", run && (ap->dtype == TG_FLOAT32 || ap->dtype == TG_BFLOAT16 || ap->dtype == TG_FLOAT16 ||
                                    ap->dtype == TG_FLOAT8_E4M3 || ap->dtype == TG_FLOAT8_E5M2));
    put_str(e, m, "ctype", dt->ctype);
    put_str(e, m, "dtype", dtype_enums[ap->dtype]);
    put_int(e, m, "esize", es);
    put_str(e, m, "mem", ir_mem_name(ap->mem));
    put_bool(e, m, "discard", ap->discard); /* a dst nothing reads (forward.c drop_dead): writes may go */
    /* konst: a source read as the number kval (forward.c const_reads) */
    put_bool(e, m, "konst", ap->konst);
    if (ap->konst)
        put(e, m, "kval", number(e, ap->kval, NULL));
    return m;
}

/* The free element count of ap as C: a constant, or the product of its
 * dims' counts (ragged). */
static const char *free_count_c(E *e, const IrAp *ap)
{
    int64_t n = ir_ap_free_elems(ap);
    if (n >= 0)
        return arena_printf(e->arena, "%lld", (long long)n);
    const char *c = NULL;
    for (int d = 0; d < ap->nfree; d++)
        c = c ? arena_printf(e->arena, "%s * (%s)", c, cx(e, ap->free[d].num))
              : arena_printf(e->arena, "(%s)", cx(e, ap->free[d].num));
    if (!c)
        e->oom = 1;
    return c ? c : "0";
}

/* refine() for operands with a free dim whose size varies between
 * iterations (ragged). Operands whose dims have the same counts (the same
 * expressions) share one loop per dim; otherwise one loop runs over the flat
 * free index and each operand finds its element by division. A one-element
 * operand broadcasts. Sema checked that the free sizes agree per iteration. */
static int refine_ragged(E *e, IrAp *const *aps, int n, const int64_t *tot, Nest *nest, SrcLoc loc)
{
    const IrAp *ref = NULL;
    int same = 1;
    for (int k = 0; k < n; k++) {
        if (tot[k] == 1)
            continue; /* broadcast */
        if (!ref) {
            ref = aps[k];
            continue;
        }
        same = same && aps[k]->nfree == ref->nfree;
        for (int d = 0; same && d < ref->nfree; d++)
            same = !strcmp(cx(e, aps[k]->free[d].num), cx(e, ref->free[d].num));
    }
    if (!ref || ref->nfree > EMIT_MAX_DIMS) {
        unsupported(e, loc, "this many free loops are");
        return 0;
    }
    if (same) {
        nest->n = ref->nfree;
        for (int d = 0; d < ref->nfree; d++) {
            if (!ir_expr_const(ref->free[d].num, &nest->count[d]))
                nest->ncount[d] = cx(e, ref->free[d].num);
            for (int k = 0; k < n; k++)
                nest->step[k][d] = tot[k] == 1 ? 0 : aps[k]->free[d].step;
        }
        return 1;
    }
    nest->n = 1;
    nest->ncount[0] = free_count_c(e, ref);
    for (int k = 0; k < n; k++) {
        if (tot[k] == 1) {
            nest->idx[k] = "0";
            continue;
        }
        const char *idx = "0", *inner = NULL;
        for (int d = aps[k]->nfree - 1; d >= 0; d--) {
            const char *num = cx(e, aps[k]->free[d].num);
            const char *j = inner ? arena_printf(e->arena, "tg_j0 / (%s)", inner) : "tg_j0";
            const char *t = d == 0 ? arena_printf(e->arena, "(%s) * %lld", j ? j : "0", (long long)aps[k]->free[d].step)
                                   : arena_printf(e->arena, "(%s) %% (%s) * %lld", j ? j : "0", num,
                                                  (long long)aps[k]->free[d].step);
            idx = cadd(e, idx, t ? t : "0");
            inner = inner ? arena_printf(e->arena, "%s * (%s)", inner, num) : arena_printf(e->arena, "(%s)", num);
            if (!inner || !t)
                e->oom = 1;
        }
        nest->idx[k] = idx;
    }
    return 1;
}

/* Common refinement of the free dims of aps[0..n): loops whose every
 * boundary is a boundary (product of inner counts) of each operand, so each
 * operand has one constant stride per loop. A one-element operand ([P,1])
 * broadcasts (stride 0). Returns 0 (and reports) when the dims don't line up. */
static int refine(E *e, IrAp *const *aps, int n, Nest *nest, SrcLoc loc)
{
    int64_t tot[IR_MAX_OPERANDS], maxtot = 1, bnd[IR_MAX_OPERANDS * (IR_MAX_FREE + 1)];
    int nb = 0;
    memset(nest, 0, sizeof *nest);
    int ragged = 0;
    for (int k = 0; k < n; k++) {
        tot[k] = ir_ap_free_elems(aps[k]);
        ragged |= tot[k] < 0;
        maxtot = tot[k] > maxtot ? tot[k] : maxtot;
    }
    if (ragged)
        return refine_ragged(e, aps, n, tot, nest, loc);
    for (int k = 0; k < n; k++) {
        if (tot[k] == 1 && maxtot > 1)
            continue; /* broadcast */
        if (tot[k] != maxtot) {
            unsupported(e, loc, "operands with different element counts are");
            return 0;
        }
        int64_t inner = 1, c;
        bnd[nb++] = 1;
        for (int d = aps[k]->nfree - 1; d >= 0; d--) {
            ir_expr_const(aps[k]->free[d].num, &c);
            inner *= c;
            bnd[nb++] = inner;
        }
    }
    /* sort, unique */
    for (int i = 1; i < nb; i++)
        for (int j = i; j > 0 && bnd[j] < bnd[j - 1]; j--) {
            int64_t t = bnd[j];
            bnd[j] = bnd[j - 1];
            bnd[j - 1] = t;
        }
    int u = 0;
    for (int i = 0; i < nb; i++)
        if (!u || bnd[i] != bnd[u - 1])
            bnd[u++] = bnd[i];
    if (u - 1 > EMIT_MAX_DIMS) {
        unsupported(e, loc, "this many free loops are");
        return 0;
    }
    for (int i = 0; i + 1 < u; i++)
        if (bnd[i + 1] % bnd[i]) {
            unsupported(e, loc, "operands whose free dims do not nest are");
            return 0;
        }
    nest->n = u - 1;
    for (int i = 0; i + 1 < u; i++) {
        int d_out = nest->n - 1 - i; /* loop index, outer first */
        int64_t lo = bnd[i], hi = bnd[i + 1];
        nest->count[d_out] = hi / lo;
        for (int k = 0; k < n; k++) {
            nest->step[k][d_out] = 0;
            if (tot[k] == 1 && maxtot > 1)
                continue;
            int64_t inner = 1, c;
            for (int d = aps[k]->nfree - 1; d >= 0; d--) {
                ir_expr_const(aps[k]->free[d].num, &c);
                if (inner <= lo && hi <= inner * c) {
                    nest->step[k][d_out] = aps[k]->free[d].step * (lo / inner);
                    break;
                }
                inner *= c;
            }
        }
    }
    return 1;
}

static void put_nest(E *e, tpl_value *in, const Nest *nest, int skip_inner)
{
    tpl_value *dims = new_list(e);
    for (int d = 0; dims && d < nest->n - (skip_inner ? 1 : 0); d++) {
        tpl_value *m = new_map(e);
        if (!m)
            return;
        put(e, m, "var", str(e, "tg_j%d", d));
        if (nest->ncount[d])
            put_str(e, m, "n", nest->ncount[d]);
        else
            put_int(e, m, "n", nest->count[d]);
        append(e, dims, m);
    }
    put(e, in, "dims", dims);
    /* flat free index of the dst (iota's f) */
    const char *f = "0", *inner = "1";
    for (int d = nest->n - 1; d >= 0; d--) {
        const char *t = !strcmp(inner, "1") ? arena_printf(e->arena, "tg_j%d", d)
                                            : arena_printf(e->arena, "tg_j%d * %s", d, inner);
        f = cadd(e, t ? t : "0", f);
        const char *c = nest->ncount[d] ? arena_printf(e->arena, "(%s)", nest->ncount[d])
                                        : arena_printf(e->arena, "%lld", (long long)nest->count[d]);
        inner = !strcmp(inner, "1") ? c : arena_printf(e->arena, "%s * %s", inner, c ? c : "1");
        if (!inner || !c) {
            e->oom = 1;
            return;
        }
    }
    put_str(e, in, "f", f);
}

/* A float operand as the template writes it: a C literal when finite, else
 * its fp32 bits (inf/NaN need no <math.h>). */
static tpl_value *number(E *e, double v, const Expr *numx)
{
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    /* cexpr: the fp64 C expression of a number over loop variables, else "" */
    char buf[1024];
    size_t pos = 0;
    buf[0] = '\0';
    if (numx)
        cfexpr(numx, buf, sizeof buf, &pos);
    if (pos >= sizeof buf)
        e->oom = 1;
    put_str(e, m, "cexpr", pos < sizeof buf ? buf : "0");
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put(e, m, "num", tpl_float(e->ta, v));
    put_bool(e, m, "finite", f - f == 0.0f);
    put_int(e, m, "bits", bits);
    return m;
}

static tpl_value *scalar(E *e, const IrScalar *s)
{
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    put_bool(e, m, "is_ap", s->is_ap);
    put(e, m, "num", number(e, s->num, s->numx));
    if (s->is_ap)
        put(e, m, "ap", operand(e, &s->ap, NULL, 0, 0, 0, 0));
    return m;
}

/* Operands of one partition row that are read as [P,1] values. */
static int is_p1(const IrAp *ap) { return ir_ap_free_elems(ap) == 1; }

/* ---- instructions -------------------------------------------------------------- */

static const char *where(E *e, SrcLoc loc)
{
    const char *f = loc.file ? strrchr(loc.file, '/') : NULL;
    f = f ? f + 1 : (loc.file ? loc.file : "?");
    const char *s = arena_printf(e->arena, "%s:%d", f, loc.line);
    return s ? s : "?";
}

/* Can dst and src touch the same bytes without being the same elements? Two
 * tiles used by one instruction never share bytes (the planner keeps tiles
 * that are live at the same instruction apart), so only two patterns on the
 * same tile or tensor can, and then only when the patterns differ. */
static int partial_alias(E *e, const IrAp *d, const IrAp *s)
{
    if (d->mem != s->mem || d->index != s->index)
        return 0;
    if (d->dtype != s->dtype || d->nfree != s->nfree || d->pstep != s->pstep ||
        strcmp(cx(e, d->pstart), cx(e, s->pstart)) || strcmp(cx(e, d->offset), cx(e, s->offset)) ||
        strcmp(cx(e, d->buf), cx(e, s->buf)))
        return 1;
    for (int k = 0; k < d->nfree; k++)
        if (d->free[k].step != s->free[k].step || strcmp(cx(e, d->free[k].num), cx(e, s->free[k].num)))
            return 1;
    return 0;
}

/* 1 if d and s are HBM accesses of different tensors over one base (a view
 * and its base, or two views of it: SPEC.md 2.1), which partial_alias does
 * not compare. */
static int view_overlap(E *e, const IrAp *d, const IrAp *s)
{
    const SpecTensor *t = e->ir->spec->tensors;
    return d->mem == IR_MEM_HBM && s->mem == IR_MEM_HBM && d->index != s->index && t[d->index].base == t[s->index].base;
}

static int same_cx(E *e, const Expr *a, const Expr *b);

/* 1 if every source of `in` has dtype dt and every op passes ok_op. */
static int row_ops(const IrInst *in, tg_dtype dt, int (*ok_op)(tg_alu_op))
{
    int ok = in->nsrc > 0 && in->nalu > 0;
    for (int i = 0; i < in->nsrc && ok; i++)
        ok = in->src[i].dtype == dt;
    for (int i = 0; i < in->nalu && ok; i++) {
        const char *n = spec_alu_name(in->alu[i]);
        int op = tg_alu_from_name(n, strlen(n));
        ok = op >= 0 && ok_op((tg_alu_op)op);
    }
    return ok;
}

/* 1 for an ALU op whose result depends on a NaN operand only through its
 * being NaN (arithmetic: the canonical NaN; compare and logical: no NaN),
 * as kernel.c.j2's nan_in */
static int nan_blind(SpecAlu a)
{
    char c = spec_alu_class(a);
    return c == 'A' || c == 'C' || c == 'L';
}

/* 1 for an op with a raw form leaving the host's NaN (tg_alu_raw_<op>) */
static int has_raw(SpecAlu a)
{
    return spec_alu_class(a) == 'A' && a != SPEC_ALU_POWER;
}

/* 1 if a NaN written into d may be the host's own: d a row of such a tile */
static int nan_any_dst(const E *e, const IrAp *d)
{
    return e->in_region && d->mem == IR_MEM_SBUF && e->rowlocal[d->index] == 2 && d->dtype == TG_FLOAT32;
}

/* The runtime rows a contiguous tensor_tensor, tensor_scalar or
 * scalar_tensor_tensor may run as (templates/kernel.c.j2 row_run). i32ops
 * (not scalar_tensor_tensor): every source of one integer dtype the rows
 * take (tg_alu_i32_src: int8 to int32) and every op one with an int32 form
 * (tg_alu_i32_exact; a tensor_scalar's also the shifts,
 * tg_alu_i32_scalar_op): tg_tensor_tensor_i32 or tg_tensor_scalar_i32, which
 * give the fp32 ops' values. f32ops: every source and the dst fp32, every op
 * one tg_alu_f32_row_op takes: tg_tensor_tensor_f32_row,
 * tg_tensor_scalar_f32_row or tg_scalar_tensor_tensor_f32_row, whose AVX2
 * body the generated C's own loops (built for the baseline) cannot match. */
static void put_rowops(E *e, const IrInst *in, tpl_value *m)
{
    const tg_dtype st = in->nsrc > 0 ? in->src[0].dtype : TG_INT32;
    int i32 = in->op != IR_OP_SCALAR_TENSOR_TENSOR && tg_alu_i32_src(st) &&
              (st == TG_INT32 || tg_alu_i32_src(in->dst.dtype)) && /* narrow sources into a float dst: the kernel's own loops */
              row_ops(in, st, in->op == IR_OP_TENSOR_SCALAR ? tg_alu_i32_scalar_op : tg_alu_i32_exact);
    put_bool(e, m, "i32ops", i32);
    put_bool(e, m, "f32ops", in->dst.dtype == TG_FLOAT32 && row_ops(in, TG_FLOAT32, tg_alu_f32_row_op));
}

/* The shortest constant run a runtime row call takes (elementwise). */
#define EMIT_ROWCALL_MIN 64
/* The block of a short run computed in overlapping blocks (ochunk): one
 * AVX-512 vector of fp32, two of AVX2. */
#define EMIT_OCHUNK 16

/* Elementwise family: dst and srcs share one nest. Fills dims, dst, src, and
 * alias: a src overlaps dst at a shift, so the element loops must run in order
 * (no TG_IVDEP, no memcpy of a run). */
static int elementwise(E *e, IrInst *in, tpl_value *m, int raw)
{
    IrAp *aps[IR_MAX_OPERANDS];
    int n = 0;
    aps[n++] = &in->dst;
    for (int i = 0; i < in->nsrc; i++)
        aps[n++] = &in->src[i];
    Nest nest;
    if (!refine(e, aps, n, &nest, in->loc))
        return 0;
    /* raw copies whose innermost loop is contiguous on both sides: memcpy it */
    int alias = 0;
    for (int i = 0; i < in->nsrc; i++)
        alias |= partial_alias(e, &in->dst, &in->src[i]);
    put_bool(e, m, "alias", alias);
    int fixed = nest.n > 0 && !nest.ncount[nest.n - 1] && !nest.idx[0]; /* constant innermost count */
    /* contig: the innermost loop is a run of consecutive elements on every
     * side (its count constant or a ragged tile's expression), no src
     * overlapping dst at a shift (a row call may take it) */
    int contig = !alias && nest.n > 0 && !nest.idx[0];
    for (int i = 0; i <= in->nsrc && contig; i++)
        contig = nest.step[i][nest.n - 1] == 1;
    put_bool(e, m, "contig", contig);
    /* shortrow: a constant innermost run below EMIT_ROWCALL_MIN, which the
     * template computes inline rather than by a runtime row call (but for
     * the activations with a vector row): the call cost more than the row
     * (bench/probes w09_tiny_tiles, [16, 16] tiles) */
    put_bool(e, m, "shortrow", fixed && nest.count[nest.n - 1] < EMIT_ROWCALL_MIN);
    int inner = raw && contig && fixed;
    put_int(e, m, "memcpy_n", inner ? nest.count[nest.n - 1] : 1);
    /* sources the template reads only in element() (kernel.c.j2), each
     * element once per innermost iteration, may be staged (operand) */
    int views = 0; /* a source over the dst's base tensor: it might overlap, so no row is read ahead */
    for (int i = 0; i < in->nsrc; i++)
        views |= view_overlap(e, &in->dst, &in->src[i]);
    int stage = !alias && !raw && !views &&
                (in->op == IR_OP_TENSOR_TENSOR || in->op == IR_OP_SCALAR_TENSOR_TENSOR ||
                 in->op == IR_OP_RECIPROCAL || in->op == IR_OP_SELECT ||
                 (in->op == IR_OP_TENSOR_SCALAR && !in->has_reduce) || in->op == IR_OP_LOAD ||
                 in->op == IR_OP_STORE || in->op == IR_OP_DMA_COPY || in->op == IR_OP_TENSOR_COPY);
    /* chunk: the template may split the innermost loop into blocks of this
     * many (a constant trip count the compiler vectorizes), or 0 */
    put_int(e, m, "chunk", fixed && nest.count[nest.n - 1] % EMIT_CHUNK == 0 ? EMIT_CHUNK : 0);
    put_nest(e, m, &nest, inner);
    put(e, m, "dst", operand(e, &in->dst, &nest, 0, 1, inner, 0));
    tpl_value *src = new_list(e);
    /* srow: the innermost loop a run on dst and on every source but those
     * staged (read two apart, gathered into a row first): a runtime int32
     * row may take it from the staged rows (kernel.c.j2 row_run; int4
     * packing from stride-2 int8 views, bench/probes y02_int4_pack) */
    int srow = !alias && nest.n > 0 && !nest.idx[0] && nest.step[0][nest.n - 1] == 1, staged = 0;
    for (int i = 0; src && i < in->nsrc; i++) {
        tpl_value *o = operand(e, &in->src[i], &nest, i + 1, 0, inner, stage);
        size_t glen = 0;
        const tpl_value *g = o ? tpl_map_get(o, "stage", 5) : NULL;
        int st = g && tpl_str_of(g, &glen) && glen > 0;
        staged |= st;
        srow = srow && (st || nest.step[i + 1][nest.n - 1] == 1);
        append(e, src, o);
    }
    put_bool(e, m, "srow", srow && staged);
    put(e, m, "src", src);
    /* ochunk: a short constant innermost run (shortrow) of at least
     * EMIT_OCHUNK elements, not a multiple of it, computed in blocks of
     * EMIT_OCHUNK, the last one ending at the run's end (overlapping the one
     * before): each block a constant-count loop the compiler vectorizes
     * whole, where a run of 39 had two vectors and 7 elements scalar.
     * Elements in the overlap are computed twice, so only where that cannot
     * change a bit, and not for raw copies (nothing to vectorize but the
     * moves: bench/probes a03's strided byte copies 0.72 -> 0.84 ms in
     * blocks): an op that writes each element from its sources alone
     * (no fold, no kept chain value), no source on the dst's tile or tensor
     * (a second pass would read a result), nothing staged. */
    int64_t cn = nest.n > 0 ? nest.count[nest.n - 1] : 0;
    int ochunk = fixed && cn >= EMIT_OCHUNK && cn < EMIT_ROWCALL_MIN && cn % EMIT_OCHUNK && !alias && !staged &&
                 !in->has_reduce && !in->has_ind &&
                 (in->op == IR_OP_TENSOR_TENSOR || in->op == IR_OP_SCALAR_TENSOR_TENSOR ||
                  in->op == IR_OP_TENSOR_SCALAR || in->op == IR_OP_ACTIVATION || in->op == IR_OP_RECIPROCAL ||
                  in->op == IR_OP_SELECT ||
                  (!raw && (in->op == IR_OP_TENSOR_COPY || in->op == IR_OP_LOAD || in->op == IR_OP_STORE ||
                            in->op == IR_OP_DMA_COPY)));
    for (int i = 0; i < in->nsrc && ochunk; i++)
        ochunk = !(in->src[i].mem == in->dst.mem && in->src[i].index == in->dst.index) &&
                 !view_overlap(e, &in->dst, &in->src[i]);
    put_bool(e, m, "ochunk", ochunk);
    return 1;
}

/* The spec op an opcode came from (for messages). */
static SpecOpKind spec_op_of(IrOpcode op)
{
    switch (op) {
#define X(ID, SPECOP)                                                                                   \
    case IR_OP_##ID:                                                                                               \
        return SPEC_OP_##SPECOP;
        IR_OPCODES(X)
#undef X
    default:
        return (SpecOpKind)0;
    }
}

/* An operand walked on its own: {o (operand), dims, f (flat index), count
 * (free elements), pcount}. *count gets the free element count. */
static tpl_value *walk(E *e, IrAp *ap, int writable, SrcLoc loc, int64_t *count)
{
    Nest nest;
    if (!refine(e, &ap, 1, &nest, loc))
        return NULL;
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    *count = ir_ap_free_elems(ap); /* -1: ragged */
    put_nest(e, m, &nest, 0);
    put(e, m, "o", operand(e, ap, &nest, 0, writable, 0, 0));
    if (*count >= 0)
        put_int(e, m, "count", *count);
    else
        put_str(e, m, "count", free_count_c(e, ap));
    put_str(e, m, "pcount", cx(e, ap->pcount));
    return m;
}

/* Constant partition count of ap, or -1. */
static int64_t pconst(const IrAp *ap)
{
    int64_t v;
    return ir_expr_const(ap->pcount, &v) ? v : -1;
}

/* ap's free elements as one stride: its free dims (those of count 1 aside)
 * nest exactly — a dim's step is the next inner one's step times its count,
 * and only the outermost may be ragged. 1 with *fs (elements from one free
 * element to the next) and *n (their count; -1 when ragged), else 0. */
static int free_stride(const IrAp *ap, int64_t *fs, int64_t *n)
{
    int inner = -1; /* the dim inside the one being merged */
    *fs = 1;
    *n = 1;
    for (int d = ap->nfree - 1; d >= 0; d--) {
        int64_t c;
        int known = ir_expr_const(ap->free[d].num, &c);
        if (known && c == 1)
            continue;
        if (inner < 0) {
            *fs = ap->free[d].step;
        } else {
            int64_t ci, span;
            if (!ir_expr_const(ap->free[inner].num, &ci) || !expr_mul(ap->free[inner].step, ci, &span) ||
                ap->free[d].step != span)
                return 0;
        }
        if (!known || *n < 0)
            *n = -1;
        else if (!expr_mul(*n, c, n))
            return 0;
        inner = d;
    }
    return 1;
}

/* Elements of ap's dtype from one partition row to the next, into *ps: an
 * HBM operand's pstep (not an indirect one), SBUF/PSUM storage rows. */
static int part_stride(const E *e, const IrAp *ap, int64_t *ps)
{
    int64_t es = (int64_t)tg_dtype_size(ap->dtype);
    if (ap->mem == IR_MEM_HBM) {
        *ps = ap->pstep;
        return !ap->istep;
    }
    *ps = row_bytes(e, ap) / es;
    return row_bytes(e, ap) % es == 0;
}

/* An operand the runtime reads or writes where it lies (tg_pe_src): an SBUF,
 * PSUM or (a forwarded load's) HBM region, not indirect, whose free elements
 * are one stride apart (free_stride). Puts ps (bytes per partition), fs and
 * dtype on the walk m; 0 if it is not. */
static int pe_src(E *e, const IrAp *ap, tpl_value *m, int64_t *fs)
{
    int64_t ps, n;
    if (!part_stride(e, ap, &ps) || !expr_mul(ps, (int64_t)tg_dtype_size(ap->dtype), &ps) || !free_stride(ap, fs, &n))
        return 0;
    put_int(e, m, "ps", ps);
    put_int(e, m, "fs", *fs);
    put_str(e, m, "dtype", dtype_enums[ap->dtype]);
    return 1;
}

/* A DMA or copy that moves a 2-D block transposed: a raw copy of 1-, 2- or
 * 4-byte elements between different tiles or tensors (never overlapping; a
 * view counts as its base tensor),
 * not indirect, each side one strided free dim of the same count n (at
 * least 2; where either side's is an expression, the dst's, as the element
 * form's loop takes it, refine_ragged: the same value at every iteration,
 * sema's shape check), where one side is contiguous along the free dim and the other along
 * the partitions — dst[p·dps + j] = src[j·sfs + p] (a transposed load) or
 * dst[p + j·dfs] = src[p·sps + j] (a transposed store). Today's per-element
 * gather becomes one tg_transpose call (8x8 register blocks). Fills rows
 * (the source's rows in tg_transpose's terms: n or P), cols, ds, ss (elements)
 * and es when m is given; 1 if the instruction is one. */
static int copy_transpose(E *e, const IrInst *in, tpl_value *m)
{
    const IrAp *d = &in->dst, *s = &in->src[0];
    int64_t es = (int64_t)tg_dtype_size(d->dtype), ses = (int64_t)tg_dtype_size(s->dtype), dps, sps, dfs, sfs, dn,
            sn;
    if ((in->op != IR_OP_LOAD && in->op != IR_OP_STORE && in->op != IR_OP_DMA_COPY && in->op != IR_OP_TENSOR_COPY) ||
        in->has_ind || in->nsrc != 1 || (es != 1 && es != 2 && es != 4) || (ses != 1 && ses != 2 && ses != 4) ||
        (d->mem == s->mem && (d->mem == IR_MEM_HBM ? e->ir->spec->tensors[d->index].base ==
                                                         e->ir->spec->tensors[s->index].base
                                                   : d->index == s->index)) ||
        !part_stride(e, d, &dps) || !part_stride(e, s, &sps) ||
        !free_stride(d, &dfs, &dn) || !free_stride(s, &sfs, &sn) || (dn >= 0 && sn >= 0 && dn != sn) ||
        (dn >= 0 && dn < 2))
        return 0;
    int load = dfs == 1 && sps == 1 && sfs != 1, store = sfs == 1 && dps == 1 && dfs != 1;
    if (!load && !store)
        return 0;
    /* with a cast: transposed a block of TG_TRC_J at a time through a stack
     * buffer of the side on partitions (at most 128 rows), each element
     * converted as the element form does (kernel.c.j2 transpose_copy): an
     * int8 -> bf16 transposing load had run as a gather an element
     * (bench/probes a08_int8_tokwise_mm) */
    int cvt = d->dtype != s->dtype;
    if (cvt && (load ? d->mem : s->mem) == IR_MEM_HBM)
        return 0;
    if (m) {
        const IrAp *pc = in->op == IR_OP_LOAD ? s : d;
        put_str(e, m, "op", "transpose_copy");
        put(e, m, "dst", operand(e, d, NULL, 0, 1, 0, 0));
        tpl_value *src = new_list(e);
        if (src)
            append(e, src, operand(e, s, NULL, 0, 0, 0, 0));
        put(e, m, "src", src);
        tpl_value *n = dn >= 0 ? tpl_int(e->ta, dn) : str(e, "(int)(%s)", free_count_c(e, d));
        if (load) { /* source rows j (sfs apart) of P elements */
            put(e, m, "rows", n);
            put(e, m, "cols", str(e, "(int)(%s)", cx(e, pc->pcount)));
            put_int(e, m, "ss", sfs);
            put_int(e, m, "ds", dps);
        } else { /* source rows p (sps apart) of n elements */
            put(e, m, "rows", str(e, "(int)(%s)", cx(e, pc->pcount)));
            put(e, m, "cols", n);
            put_int(e, m, "ss", sps);
            put_int(e, m, "ds", dfs);
        }
        put_int(e, m, "es", es);
        put_bool(e, m, "cvt", cvt);
        put_bool(e, m, "load", load);
        put_int(e, m, "ses", ses);
        put(e, m, "dims", new_list(e));
    }
    return 1;
}

/* matmul / transpose: operands read in place by the runtime (direct), or gathered into fp32
 * scratch panels. */
static const char *loop_start(E *e, const IrLoop *lp);
static int uses(const E *e, const Expr *x, int slot);
static IrInst *current(const E *e, IrInst *in);

/* 1 if ap's bytes are the same at every iteration of lp: its region does
 * not move with lp's variable (no indirect index either) and no instruction
 * inside lp writes its tile (SBUF/PSUM) or tensor (HBM). */
static int loop_invariant(E *e, const IrAp *ap, const IrLoop *lp)
{
    if (ap->istep || uses(e, ap->offset, lp->slot) || uses(e, ap->pstart, lp->slot) ||
        uses(e, ap->pcount, lp->slot) || uses(e, ap->buf, lp->slot))
        return 0;
    for (int d = 0; d < ap->nfree; d++)
        if (uses(e, ap->free[d].num, lp->slot))
            return 0;
    const uint64_t bit = ap->mem == IR_MEM_HBM ? emit_hbm_bit(e->ir, ap) : 0;
    for (int id = lp->first; id <= lp->last; id++) {
        const IrInst *o = current(e, e->ir->insts[id]);
        if (!o)
            continue;
        const IrAp *w[2] = {&o->dst, o->has_reduce ? &o->reduce_dst : NULL};
        for (int k = 0; k < 2; k++) {
            if (!w[k] || w[k]->mem != ap->mem)
                continue;
            if (ap->mem == IR_MEM_HBM ? !bit || (emit_hbm_bit(e->ir, w[k]) & bit) : w[k]->index == ap->index)
                return 0;
        }
    }
    return 1;
}

/* keep (tg_matmul_keep): the operands of direct matmul `in` whose packed
 * panels the runtime may keep from the previous iteration of its innermost
 * loop: K, M and N constant, no other Tensor-engine instruction in the loop
 * (they share the scratch), and the operand loop-invariant. The template
 * passes them from the loop's second iteration on (kvar != kstart); the
 * first iteration of every run of the loop packs. */
static void put_keep(E *e, const IrInst *in, tpl_value *m, int consts)
{
    const IrLoop *lp = in->loop;
    int keep = 0;
    if (lp && consts && in->op == IR_OP_MATMUL && lp->slot < e->ir->spec->nslots) {
        keep = (loop_invariant(e, &in->src[0], lp) ? TG_MATMUL_KEEP_STAT : 0) |
               (loop_invariant(e, &in->src[1], lp) ? TG_MATMUL_KEEP_MOV : 0);
        for (int id = lp->first; id <= lp->last && keep; id++) {
            const IrInst *o = current(e, e->ir->insts[id]);
            if (o && id != in->id && (o->op == IR_OP_MATMUL || o->op == IR_OP_TRANSPOSE))
                keep = 0;
        }
    }
    put_int(e, m, "keep", keep);
    if (keep) {
        put(e, m, "kvar", str(e, "v_%s", lp->var));
        put_str(e, m, "kstart", loop_start(e, lp));
    }
}

static int tensor_engine(E *e, IrInst *in, tpl_value *m)
{
    int64_t nd, n0, n1 = 0;
    tpl_value *d = walk(e, &in->dst, 1, in->loc, &nd);
    tpl_value *a = walk(e, &in->src[0], 0, in->loc, &n0);
    tpl_value *b = in->op == IR_OP_MATMUL ? walk(e, &in->src[1], 0, in->loc, &n1) : NULL;
    if (!d || !a || (in->op == IR_OP_MATMUL && !b))
        return 0;
    int64_t pd = pconst(&in->dst), p0 = pconst(&in->src[0]);
    /* Sizes that vary between iterations (ragged K = the stationary's
     * partitions, M its free size, N the moving's free size) are loop bounds
     * and arguments as C expressions; sema checked the operands agree and
     * fit one PE pass at every iteration. Constant ones are checked here. */
    int ok = 1;
    if (in->op == IR_OP_MATMUL) /* dst[M,N] += stat[K,M]^T mov[K,N] */
        ok = (pd < 0 || n0 < 0 || pd == n0) && (nd < 0 || n1 < 0 || nd == n1) && n0 <= TG_MATMUL_STATIONARY_FMAX &&
             n1 <= TG_MATMUL_MOVING_FMAX && p0 <= TG_PARTITIONS;
    else /* dst[F,P] = src[P,F]^T */
        ok = (pd < 0 || n0 < 0 || pd == n0) && (nd < 0 || p0 < 0 || nd == p0) && n0 <= TG_PARTITIONS &&
             p0 <= TG_PARTITIONS;
    if (!ok) {
        unsupported(e, in->loc, "this operand shape (beyond one PE pass) is");
        return 0;
    }
    put(e, m, "d", d);
    put(e, m, "a", a);
    if (b)
        put(e, m, "b", b);
    put(e, m, "K", p0 >= 0 ? str(e, "%lld", (long long)p0) : str(e, "(int)(%s)", cx(e, in->src[0].pcount)));
    put(e, m, "M", n0 >= 0 ? str(e, "%lld", (long long)n0) : str(e, "(int)(%s)", free_count_c(e, &in->src[0])));
    put(e, m, "N", in->op != IR_OP_MATMUL || n1 >= 0 ? str(e, "%lld", (long long)n1)
                                                     : str(e, "(int)(%s)", free_count_c(e, &in->src[1])));
    put_bool(e, m, "accumulate", in->accumulate);
    int64_t K = p0 >= 0 ? p0 : TG_MATMUL_K_MAX, M = n0 >= 0 ? n0 : TG_MATMUL_STATIONARY_FMAX;
    int64_t N = in->op != IR_OP_MATMUL ? 0 : n1 >= 0 ? n1 : TG_MATMUL_MOVING_FMAX;
    /* direct: the runtime reads the operands in place, widening as it packs,
     * and writes dst (a PSUM region of whole fp32 rows) in place; its packed
     * stationary in core->pe (matmul) */
    int64_t fd, fa, fb = 1;
    int direct = pe_src(e, &in->dst, d, &fd) && fd == 1 && pe_src(e, &in->src[0], a, &fa) &&
                 (!b || pe_src(e, &in->src[1], b, &fb));
    put_bool(e, m, "direct", direct);
    put_keep(e, in, m, p0 >= 0 && n0 >= 0 && n1 >= 0);
    put_int(e, m, "blocks", 0); /* matmul_fold: K blocks in one call */
    e->te_direct = direct;
    /* PE staging in core->pe: a [K,M] at 0, b [K,N] after it, c [M,N] after
     * that, at the largest sizes the op can take when they vary; the ISS
     * stages so whichever way the C simulation goes (tg_iss.c exec_pe) */
    int64_t need = K * M + K * N + M * N;
    if (direct && b && (int64_t)TG_MATMUL_SCRATCH_FLOATS(K, M, N) > need)
        need = (int64_t)TG_MATMUL_SCRATCH_FLOATS(K, M, N);
    put_int(e, m, "pe_b", K * M);
    put_int(e, m, "pe_c", K * M + K * N);
    put_int(e, m, "scratch", need);
    if (need > e->pe_floats)
        e->pe_floats = need;
    return 1;
}

/* The most source elements per row bn_stats / bn_aggr `in` takes: its
 * count, or when ragged a bound (bn_aggr's records: sema bounds them by the
 * source tile's free size). row_call refuses more than the runtime takes. */
static int64_t row_call_cap(const Spec *s, const IrInst *in)
{
    const SpecTile *t = &s->tiles[in->src[0].index];
    int64_t ns = ir_ap_free_elems(&in->src[0]);
    int64_t cap = ns >= 0 ? ns : in->op == IR_OP_BN_STATS ? TG_BN_STATS_FMAX : t->shape[1];
    for (int d = 2; ns < 0 && d < t->rank; d++)
        cap *= t->shape[d];
    return cap;
}

/* bn_stats / bn_aggr: one row gathered to fp32, the runtime call, the
 * results scattered to dst. */
static int row_call(E *e, IrInst *in, tpl_value *m)
{
    int64_t nd, ns;
    tpl_value *d = walk(e, &in->dst, 1, in->loc, &nd);
    tpl_value *a = walk(e, &in->src[0], 0, in->loc, &ns);
    if (!d || !a)
        return 0;
    int stats = in->op == IR_OP_BN_STATS;
    int64_t cap = row_call_cap(e->ir->spec, in);
    if (nd != (stats ? TG_BN_STATS_RECORD : 2) || (ns >= 0 && ns < 1) || cap > (stats ? TG_BN_STATS_FMAX : TG_BN_AGGR_FMAX) ||
        (!stats && ns >= 0 && ns % 3)) {
        unsupported(e, in->loc, "this operand shape is");
        return 0;
    }
    put_int(e, m, "cap", cap);
    put(e, m, "d", d);
    put(e, m, "a", a);
    put_str(e, m, "fn", stats ? "tg_bn_stats_f32" : "tg_bn_aggr_f32");
    put_str(e, m, "fn_lanes", stats ? "tg_bn_stats_lanes_f32" : "tg_bn_aggr_lanes_f32");
    put_int(e, m, "nout", nd);
    return 1;
}

/* The fields of an activation reduce / tensor_scalar accumulate: its
 * [P,1] destination, its op and the identity the fold starts from (exact:
 * -0 + y, max(-inf, y) and min(+inf, y) are y, so the fold equals the ISS's
 * fold from the first element). 0 after reporting an unsupported form. */
static int reduce_fields(E *e, const IrInst *in, tpl_value *m)
{
    put_bool(e, m, "has_reduce", in->has_reduce);
    if (!in->has_reduce)
        return 1;
    if ((in->reduce_op != SPEC_ALU_ADD && in->reduce_op != SPEC_ALU_MAXIMUM && in->reduce_op != SPEC_ALU_MINIMUM) ||
        !is_p1(&in->reduce_dst)) {
        unsupported(e, in->reduce_dst.loc, "a reduce other than add, maximum or minimum into [P,1] is");
        return 0;
    }
    put(e, m, "reduce", operand(e, &in->reduce_dst, NULL, 0, 1, 0, 0));
    put_str(e, m, "reduce_alu", spec_alu_name(in->reduce_op));
    put_str(e, m, "reduce_init", in->reduce_op == SPEC_ALU_ADD       ? "-0.0f"
                                 : in->reduce_op == SPEC_ALU_MAXIMUM ? "tg_bits_f32(0xff800000u)"
                                                                     : "tg_bits_f32(0x7f800000u)");
    return 1;
}

/* The longest row nc_find_index8 scans with no branch on the data
 * (tg_find8_put); longer rows test each element against the values' range
 * first (tg_find8_put_in), which skips most of a long row's elements but
 * mispredicts where nearly every element claims a slot. bench/probes
 * y04_moe_router_top2 (rows of 10): 1.87 -> 1.21 ms with max8's and the
 * find's branch-free forms; specs/router_topk (rows of 64, 8 of them in
 * range): 0.073 ms with the range test, 0.115 flat. */
#define EMIT_FIND8_FLAT_MAX 16

/* The shortest row max8, nc_find_index8 and nc_match_replace8 go through
 * in blocks of 16 (kernel.c.j2 top8_blocks, match8_blocks: a vectorized
 * test marks the few elements that can change anything). On shorter rows
 * most blocks hold one, and the extra pass costs more than it skips:
 * specs/router_topk (rows of 64) 0.072 ms element by element, 0.083 in
 * blocks; bench/probes q04_top8 (rows of 512) 1.96 -> 1.47 ms in blocks,
 * z10_topk32_loop_bf16 (2000) 14.2 -> 5.0. */
#define EMIT_TOP8_BLOCK_MIN 128

/* max8 / nc_find_index8: the source row streamed into 8 results (tg_ops.h),
 * scattered to dst. */
static int top8(E *e, IrInst *in, tpl_value *m)
{
    int64_t nd, ns, nv = 8;
    tpl_value *d = walk(e, &in->dst, 1, in->loc, &nd);
    tpl_value *a = walk(e, &in->src[0], 0, in->loc, &ns);
    tpl_value *b = in->has_vals ? walk(e, &in->vals, 0, in->loc, &nv) : NULL;
    if (!d || !a || (in->has_vals && !b))
        return 0;
    if (nd != 8 || nv != 8) {
        unsupported(e, in->loc, "this operand shape is");
        return 0;
    }
    put(e, m, "d", d);
    put(e, m, "a", a);
    if (b)
        put(e, m, "b", b);
    put_bool(e, m, "flat", ns <= EMIT_FIND8_FLAT_MAX);
    put_bool(e, m, "blocks16", ns >= EMIT_TOP8_BLOCK_MIN);
    return 1;
}

/* print: the region's record for the host's callback (tg_print_info): its
 * label, line, the enclosing loops' variables, dtype, shape (the partition
 * count, then the pattern's dims, which lower.c keeps as the region has
 * them), byte strides and the address of its first element. */
static int print_fields(E *e, const IrInst *in, tpl_value *m)
{
    const IrAp *ap = &in->src[0];
    if (ap->mem == IR_MEM_HBM || ap->nfree + 1 > TG_PRINT_MAX_RANK) {
        unsupported(e, in->loc, "a print of this region is");
        return 0;
    }
    put_str(e, m, "op", "print");
    put_str(e, m, "label", in->label);
    put_int(e, m, "line", in->loc.line);
    put_str(e, m, "dtype", dtype_enums[ap->dtype]);
    tpl_value *idx = new_list(e), *shape = new_list(e), *stride = new_list(e);
    if (!idx || !shape || !stride)
        return 0;
    int depth = 0;
    for (const IrLoop *lp = in->loop; lp; lp = lp->parent)
        depth++;
    for (int d = 0; d < depth; d++) { /* outermost first */
        const IrLoop *lp = in->loop;
        for (int k = depth - 1; k > d; k--)
            lp = lp->parent;
        append(e, idx, str(e, "v_%s", lp->var));
    }
    int64_t es = (int64_t)tg_dtype_size(ap->dtype);
    int64_t rowbytes = row_bytes(e, ap);
    append(e, shape, str(e, "%s", cx(e, ap->pcount)));
    append(e, stride, tpl_int(e->ta, rowbytes));
    for (int k = 0; k < ap->nfree; k++) {
        append(e, shape, str(e, "%s", cx(e, ap->free[k].num)));
        append(e, stride, tpl_int(e->ta, ap->free[k].step * es));
    }
    put(e, m, "idx", idx);
    put(e, m, "shape", shape);
    put(e, m, "stride", stride);
    put(e, m, "src", operand(e, ap, NULL, 0, 0, 0, 0));
    return 1;
}

/* What the C simulation runs for instruction `in` (forward.h): the
 * instruction, its rewritten form, or NULL when it is dropped. */
static IrInst *current(const E *e, IrInst *in) { return e->fwd.inst ? e->fwd.inst[in->id] : in; }

/* A dropped instruction: a comment saying where its work went. */
/* A comment in place of instruction `in`: why it is not here. */
static tpl_value *note_map(E *e, const IrInst *in, const char *note)
{
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    put_str(e, m, "kind", "note");
    put_str(e, m, "where", where(e, in->loc));
    put_str(e, m, "mnemonic", ir_opcode_name(in->op));
    put_str(e, m, "note", note);
    return m;
}

static tpl_value *dropped(E *e, const IrInst *in)
{
    return note_map(e, in, e->fwd.note ? e->fwd.note[in->id] : "");
}

/* Does a fold with `op` wait on its own latency? The fp add, subtract and
 * multiply chains do (several cycles each): those gain from lanes. A max or
 * min fold is a compare and a well-predicted branch per element, and in lanes
 * it loses more to the staged rows than it gains (softmax's row max: 10 %
 * slower in lanes), so it keeps the one-row loop. */
static int latency_bound(SpecAlu op)
{
    return op == SPEC_ALU_ADD || op == SPEC_ALU_SUBTRACT || op == SPEC_ALU_MULTIPLY;
}

/* An activation with a reduce into a narrow dst folds its fp32 results,
 * which the dst holds only rounded (or not at all: a dst nothing reads,
 * IrAp.discard); a tensor_scalar with an accumulate folds
 * its results as it computes them (one loop, serial). In lanes, each row's fp32 results are
 * kept on the stack for the block (`tg_lf`: TG_LANES rows of the returned
 * count of floats, at most EMIT_LANES_CAP, 32 KiB) and the lanes fold them
 * from there. A row of constant length up to EMIT_LANES_CAP is kept whole; a
 * longer one that is a single free loop of whole chunks (EMIT_CHUNK, the
 * template's act_chunks and ts_cols), its dst on another tile than its
 * source, goes in column blocks of the largest multiple of EMIT_CHUNK up to
 * EMIT_LANES_CAP that divides it: the block's rows computed, then folded,
 * each lane's chain going on from block to block in its row's order (a
 * tensor_scalar mean over 2048-wide rows, bench/probes t05: each row's
 * chain had run alone, 1.67 ms against numpy's 1.10). Returns the columns kept
 * per row, or 0 where the fold stays with each row (chunked, in order). The
 * serial chain of a bf16 softmax's row sum had taken longer than its exps
 * (flash_attention_cte: a 4-cycle add per element, 7 % of the kernel;
 * attention_causal's rows of 1024, 8 %). */
static int64_t lane_f32_form(const IrInst *in, int keep_f32)
{
    int64_t n = ir_ap_free_elems(&in->dst);
    int act = in->op == IR_OP_ACTIVATION && (in->dst.dtype != TG_FLOAT32 || in->dst.discard || keep_f32);
    if ((!act && !(in->op == IR_OP_TENSOR_SCALAR && in->has_reduce)) || n < 1)
        return 0;
    if (n <= EMIT_LANES_CAP)
        return n;
    if (in->dst.nfree != 1 || in->src[0].nfree != 1 || n % EMIT_CHUNK)
        return 0;
    /* column blocks read each row's bias again per block, after the row's
     * earlier blocks are written: nothing read may lie on the dst's tile */
    IrOperand ops[IR_MAX_OPERANDS];
    int nops = ir_operands(in, ops);
    for (int i = 0; i < nops; i++)
        if (ops[i].is_read && ops[i].ap->mem == in->dst.mem && ops[i].ap->index == in->dst.index)
            return 0;
    int64_t lf = EMIT_LANES_CAP / EMIT_CHUNK * EMIT_CHUNK;
    while (n % lf)
        lf -= EMIT_CHUNK;
    return lf;
}

/* An activation whose iterations run in lanes (iter_lanes) keeps its fp32
 * results apart even with an fp32 dst: the lanes must not read its rows back
 * from a dst the iterations may share. */
static int64_t lane_f32_elems(const E *e, const IrInst *in)
{
    return lane_f32_form(in, e->ilanes && e->ilanes[in->id]);
}

/* 1 if running `in` in lanes could change what it reads. The lanes read a
 * block's rows (or compute them) before any of the block's fold or scan
 * results are written, where one partition after another read and wrote in
 * turn; a read at one partition of what the instruction writes at another (a
 * reduce dst that a later row's bias reads, a fold over rows its own dst
 * shifts into) would then see the old value. So: no operand read on a tile
 * the instruction writes at another partition start (or rotating copy), nor
 * on an HBM tensor it writes (or a view of its base). */
static int lanes_hazard(E *e, const IrInst *in)
{
    IrOperand ops[IR_MAX_OPERANDS];
    int nops = ir_operands(in, ops);
    for (int i = 0; i < nops; i++)
        for (int k = 0; k < nops; k++) {
            const IrAp *r = ops[i].ap, *w = ops[k].ap;
            if (!ops[i].is_read || !ops[k].is_write)
                continue;
            if (r->mem == IR_MEM_HBM || w->mem == IR_MEM_HBM) {
                if (r->mem == w->mem && (r->index == w->index || view_overlap(e, w, r)))
                    return 1;
            } else if (r->mem == w->mem && r->index == w->index &&
                       (!same_cx(e, r->pstart, w->pstart) || !same_cx(e, r->buf, w->buf))) {
                return 1;
            }
        }
    return 0;
}

/* A tensor_reduce maximum or minimum whose innermost run is short (below
 * 16; a count known only at run time judged by its value with every loop
 * variable 0, the first iteration's): its one-row loop, a compare an
 * element, runs a few elements at a time and does not vectorize, so it goes
 * in lanes like the add folds (the fold of the raw maximum or minimum in
 * order, made canonical: the key form's result). bench/probes
 * b03_adapool_nhwc_f16's 6- and 7-wide ragged windows: 15.1 -> 11.8 ms. Long
 * rows keep the one-row key loop, which vectorizes (softmax's row max: 10 %
 * slower in lanes; cross_entropy's ragged chunks of up to 256). */
static int short_max_min(const E *e, const IrInst *in)
{
    int64_t n, env[EXPR_AFFINE_MAX_VARS] = {0};
    const IrAp *s = &in->src[0];
    if ((in->alu[0] != SPEC_ALU_MAXIMUM && in->alu[0] != SPEC_ALU_MINIMUM) || s->nfree < 1 ||
        e->ir->spec->nslots > EXPR_AFFINE_MAX_VARS)
        return 0;
    const Expr *c = s->free[s->nfree - 1].num;
    return ir_expr_const(c, &n) ? n < 16 : expr_eval(c, env, &n, NULL) == 0 && n < 16;
}

/* The largest magnitude of a value of an integer dtype of at most 16 bits
 * (0: another dtype). */
static int64_t small_int_max(tg_dtype dt)
{
    return dt == TG_INT8 ? 128 : dt == TG_UINT8 ? 255 : dt == TG_INT16 ? 32768 : dt == TG_UINT16 ? 65535 : 0;
}

/* An add fold whose terms are integers of at most M in magnitude, n of them
 * per row with n·M <= 2^24: every partial sum, in any order, is an integer of
 * at most 2^24, exact in fp32, so the fp32 fold in the row's order is the
 * integer sum (a zero sum +0, as -0 + +0 is; a negate of it -0 either way).
 * The template sums such rows in int32, a loop that vectorizes, where the fp32
 * chain waits on each add or runs in lanes: a tensor_reduce add over an int8
 * to uint16 source (bench/probes y02_int4_pack's int8 row sum), and a
 * tensor_scalar's add accumulate of a compare or logical op's 0/1 results
 * (x06_histogram_cmp, counts by compare). */
static int int_fold(const IrInst *in)
{
    int64_t n = -1, mx = 0;
    if (in->op == IR_OP_TENSOR_REDUCE && in->alu[0] == SPEC_ALU_ADD) {
        mx = small_int_max(in->src[0].dtype);
        n = ir_ap_free_elems(&in->src[0]);
    } else if (in->op == IR_OP_TENSOR_SCALAR && in->has_reduce && in->reduce_op == SPEC_ALU_ADD && in->nalu >= 1) {
        char cls = spec_alu_class(in->alu[in->nalu - 1]);
        mx = cls == 'C' || cls == 'L' ? 1 : 0;
        n = ir_ap_free_elems(&in->dst);
    }
    return mx > 0 && n > 0 && n <= (INT64_C(1) << 24) / mx;
}

/* 1 if instruction `in` (the forwarded one: current()) is a fold, scan or
 * statistic that gains from lanes (in_lanes), and lanes keep its reads
 * (lanes_hazard). */
static int folds(E *e, const IrInst *in)
{
    if (lanes_hazard(e, in) || int_fold(in))
        return 0;
    switch (in->op) {
    case IR_OP_ACTIVATION: /* the lanes read the fp32 results back (lane_f32: kept apart for a narrow dst) */
        return in->has_reduce && latency_bound(in->reduce_op) &&
               ((in->dst.dtype == TG_FLOAT32 && !in->dst.discard) || lane_f32_elems(e, in) > 0);
    case IR_OP_TENSOR_SCALAR: /* its accumulate's results kept as an activation's (lane_f32) */
        return in->has_reduce && latency_bound(in->reduce_op) && lane_f32_elems(e, in) > 0;
    case IR_OP_TENSOR_REDUCE:
        return latency_bound(in->alu[0]) || short_max_min(e, in);
    case IR_OP_TENSOR_TENSOR_SCAN:
        return 1;
    case IR_OP_BN_STATS:
    case IR_OP_BN_AGGR: /* in lanes, the rows are staged on the stack: TG_LANES · cap floats */
        return row_call_cap(e->ir->spec, in) <= EMIT_LANES_CAP;
    default:
        return 0;
    }
}

/* 1 if a and b lie on one tile or one HBM tensor's storage (a view counts as
 * its base). */
static int same_store(const Ir *ir, const IrAp *a, const IrAp *b)
{
    if ((a->mem == IR_MEM_HBM) != (b->mem == IR_MEM_HBM))
        return 0;
    return a->mem == IR_MEM_HBM ? ir->spec->tensors[a->index].base == ir->spec->tensors[b->index].base
                                : a->index == b->index;
}

/* 1 if instruction o writes (only_writes) or accesses where ap lies. */
static int touches(const IrInst *o, const IrAp *ap, const Ir *ir, int only_writes)
{
    IrOperand ops[IR_MAX_OPERANDS];
    int n = ir_operands(o, ops);
    for (int k = 0; k < n; k++)
        if ((ops[k].is_write || !only_writes) && same_store(ir, ops[k].ap, ap))
            return 1;
    return 0;
}

/* The folds iteration lanes take: a tensor_reduce, or an activation's
 * reduce or tensor_scalar's accumulate that runs in lanes (folds()), with an
 * add, subtract or multiply. */
static int iter_fold(E *e, const IrInst *in)
{
    switch (in->op) {
    case IR_OP_TENSOR_REDUCE:
        return latency_bound(in->alu[0]) && folds(e, in);
    case IR_OP_ACTIVATION: /* its fp32 results kept per lane (lane_f32_elems) */
        return in->has_reduce && latency_bound(in->reduce_op) && folds(e, in) && lane_f32_form(in, 1) > 0;
    case IR_OP_TENSOR_SCALAR:
        return in->has_reduce && latency_bound(in->reduce_op) && folds(e, in);
    default:
        return 0;
    }
}

/* Iteration lanes (docs/ir.md). A latency-bound fold (iter_fold) on few
 * partitions (at most EMIT_ITER_LANES_MAXP) inside a loop whose iterations
 * only it connects with: nothing else in the loop writes what it reads or
 * touches what it writes. It then commutes with every other instruction of the
 * loop, so it runs after the loop instead, for all iterations at once: lanes over the
 * (iteration, partition) pairs, each lane's chain in its row's order, the
 * results written in iteration order (a dst the iterations share keeps the
 * last one's). bench/probes t02: the sums of [2, 8192] chunks of a
 * 2-partition row, 64 chunks, had run as two chains at a time. */
static int iter_lanes_ok(E *e, const IrLoop *lp, const IrInst *in)
{
    int64_t p;
    IrOperand ops[IR_MAX_OPERANDS];
    int n = ir_operands(in, ops), hbm_out = 0;
    if (lp->carried || lp->grid || lp == e->progs || lp->start_e || lp->stop_e || lp->step <= 0 || lp->trip < 2 ||
        in->has_ind || !iter_fold(e, in) || !ir_expr_const(in->dst.pcount, &p) || p < 1 ||
        p > EMIT_ITER_LANES_MAXP || p > INT64_MAX / lp->trip)
        return 0;
    for (int k = 0; k < n; k++) {
        if (ir_ap_free_elems(ops[k].ap) < 0)
            return 0;
        hbm_out |= ops[k].is_write && ops[k].ap->mem == IR_MEM_HBM;
        for (int j = 0; j < n; j++) /* nothing it reads lies where it writes */
            if (ops[k].is_write && ops[j].is_read && same_store(e->ir, ops[k].ap, ops[j].ap))
                return 0;
    }
    /* an output (a sunk store's) is written after the loop now: no indirect
     * DMA in the loop may end the kernel (TG_EBOUNDS) before those writes */
    for (int id = lp->first; id <= lp->last; id++) {
        const IrInst *o = current(e, e->ir->insts[id]);
        if (!o || o->id == in->id)
            continue;
        if (hbm_out && o->has_ind)
            return 0;
        for (int k = 0; k < n; k++)
            if (touches(o, ops[k].ap, e->ir, !ops[k].is_write))
                return 0;
    }
    return 1;
}

static void iter_lanes(E *e, const IrStmt *st, int n)
{
    for (int i = 0; i < n; i++) {
        if (st[i].kind != IR_STMT_LOOP)
            continue;
        const IrLoop *lp = st[i].loop;
        for (int k = 0; k < lp->nbody; k++) {
            const IrInst *in = lp->body[k].kind == IR_STMT_INST ? current(e, lp->body[k].inst) : NULL;
            if (in && iter_lanes_ok(e, lp, in))
                e->ilanes[in->id] = 1;
        }
        iter_lanes(e, lp->body, lp->nbody);
    }
}

/* A fold, scan or statistic (`fold`: folds()) over at least EMIT_LANES_MIN
 * partitions (or a count known only at run time) runs TG_LANES partition rows
 * at once, one row per lane, each lane with its own row's chain in the row's
 * order (templates/kernel.c.j2 `lanes`): the same operations in the same
 * order per row, so the same bits, and the chains no longer wait on each
 * other's latency. The one rule for the instruction's own `lanes`
 * (put_lanes) and for its region's, which rowlocal_scan decides before the
 * region is built. */
static int in_lanes(const IrInst *in, int fold)
{
    int64_t pc;
    return fold && (!ir_expr_const(in->dst.pcount, &pc) || pc >= EMIT_LANES_MIN);
}

static void put_lanes(E *e, const IrInst *in, tpl_value *m, int fold)
{
    int lanes = in_lanes(in, fold) || (e->ilanes && e->ilanes[in->id]); /* iteration lanes: always */
    put_bool(e, m, "lanes", lanes);
    int64_t lf = lanes ? lane_f32_elems(e, in) : 0;
    int64_t n = lf ? ir_ap_free_elems(&in->dst) : 0;
    put_int(e, m, "lane_f32", lf);            /* the columns tg_lf keeps per row, or 0 */
    put_int(e, m, "lane_n", n);               /* and all of them: the row's elements */
    put_bool(e, m, "lane_cols", lf && lf < n); /* in column blocks of lane_f32 (lane_f32_elems's form) */
}

/* An activation on short rows (at most EMIT_ACT_PACK_MAX elements per
 * partition, a constant count) with a vector row (tg_act_vec_row): a block
 * of TG_LANES partitions computes each row's arguments x·scale + bias into
 * one packed fp32 run (two roundings, as every form computes them), runs one
 * tg_activation_f32_row on it at scale 1, bias -0 (t·1 + -0 is t, every t),
 * and writes the results back row by row (templates/kernel.c.j2 act_pack).
 * The row's vector steps (64 lanes in the AVX-512 body) no longer run mostly
 * padding, nor is there a call a row. tg_activation_f32_row on 128 rows, by
 * row and packed by hand (ns a row): exp on rows of 8 42 -> 7, of 20 55 ->
 * 13, of 51 55 -> 31, of 100 72 -> 55, of 153 96 -> 95, of 200 115 -> 107,
 * of 300 150 -> 164; log on 20 112 -> 33, 51 106 -> 83, 153 296 -> 253, 200
 * 400 -> 310, 300 495 -> 485. bench/probes b05_ctc_alpha (exp on rows of
 * 153, log on 51) 7.8 -> 5.8 ms.
 * bench/probes d04_softmax_lse_fp8_d20 (exp with a row sum on rows of 20)
 * 12.8 -> 7.0 ms. With a reduce, only where the lanes fold the fp32 dst's
 * rows read back (in_lanes; not iteration lanes nor lane_f32's kept
 * results): the packed results are written to the dst first. Not where a
 * table computes it (act_table's candidates: a source of 16 bits or fewer,
 * a constant scale, no bias AP), nor where a source overlaps the dst at a
 * shift, nor where the block's reads before its writes could change a
 * value read (lanes_hazard). */
static int act_pack(E *e, const IrInst *in)
{
    int64_t pc;
    if (in->op != IR_OP_ACTIVATION || in->nsrc != 1 || lanes_hazard(e, in) ||
        (ir_expr_const(in->dst.pcount, &pc) && pc < 2) || partial_alias(e, &in->dst, &in->src[0]))
        return 0;
    if (in->has_reduce && !(in_lanes(in, folds(e, in)) && !(e->ilanes && e->ilanes[in->id]) &&
                            in->dst.dtype == TG_FLOAT32 && !in->dst.discard && lane_f32_elems(e, in) == 0))
        return 0; /* a reduce: only the lanes' fold of the fp32 dst rows read back (inst_lanes_body) */
    const char *fn = spec_act_name(in->func);
    const int f = tg_act_from_name(fn, strlen(fn));
    if (f < 0 || !tg_act_vec_row((tg_act_func)f))
        return 0;
    if (!in->has_bias && !in->scalar[0].is_ap && !in->scalar[0].numx && tg_dtype_size(in->src[0].dtype) <= 2)
        return 0; /* a table may compute it (act_table) */
    IrAp *aps[2] = {(IrAp *)&in->dst, (IrAp *)&in->src[0]};
    Nest nest;
    e->quiet++;
    int refined = refine(e, aps, 2, &nest, in->loc);
    e->quiet--;
    if (!refined || nest.n < 1 || nest.idx[0] || nest.idx[1])
        return 0;
    int64_t n = 1;
    for (int k = 0; k < nest.n; k++) {
        if (nest.ncount[k])
            return 0;
        n *= nest.count[k];
        if (n > EMIT_ACT_PACK_MAX)
            return 0;
    }
    return n >= 1 && n % EMIT_ACT_PACK_STEP != 0;
}

/* An activation whose fp32 dst nothing reads (IrAp.discard) skips its
 * writes only where its reduce runs in lanes from fp32 results kept on the
 * stack (lane_f32_elems). Elsewhere it keeps the whole-row form, the row
 * call into the dst and the reduce reading it back, which is faster than
 * the chunked one a narrow dst needs: bench/probes r04's abs with a max
 * reduce over rows of 512 took 0.66 ms that way and 1.0 ms chunked. The
 * forwarded copies are the emitter's to adjust (they are arena copies). */
static void keep_act_dsts(E *e)
{
    for (int i = 0; e->fwd.inst && i < e->ir->ninsts; i++) {
        IrInst *in = e->fwd.inst[i];
        if (in && in->op == IR_OP_ACTIVATION && in->dst.discard && in->dst.dtype == TG_FLOAT32 &&
            !(in_lanes(in, folds(e, in)) && lane_f32_elems(e, in) > 0))
            in->dst.discard = 0;
    }
}

/* An activation without a bias operand, with a constant scale, on a source
 * of one or two bytes (bf16, fp16, fp8, int8/uint8, int16/uint16) has at
 * most 65,536 distinct inputs: its results can come from a table of
 * tg_activation over every input encoding, built once per run of the kernel
 * and setting (function, scale, source dtype) by the very same function, so
 * the bits are those of the element-by-element form. Tables live in the core's
 * PE storage after the Tensor-engine staging (the template's `tables`; where
 * they would not fit in TG_PE_FLOATS_MAX the activation computes each
 * element). Records the wish; act_tables() places them. */
static void act_table(E *e, const IrInst *in, tpl_value *m)
{
    int64_t pc, nf, bytes = (int64_t)tg_dtype_size(in->src[0].dtype), n = (int64_t)1 << (8 * bytes);
    put_int(e, m, "table", -1);
    if (in->has_bias || in->scalar[0].is_ap || in->scalar[0].numx || bytes > 2 || !ir_expr_const(in->dst.pcount, &pc) ||
        (nf = ir_ap_free_elems(&in->dst)) < 1 || pc * nf > EMIT_TABLE_WORK / e->trips ||
        pc * nf * e->trips < n)
        return;
    int t = 0;
    while (t < e->ntab && !(e->tab[t].func == in->func && e->tab[t].src == in->src[0].dtype &&
                            !memcmp(&e->tab[t].scale, &in->scalar[0].num, sizeof(double))))
        t++;
    if (t == EMIT_TABLES || (t < e->ntab && e->tab[t].nuse == EMIT_TABLE_USES))
        return;
    if (t == e->ntab) {
        e->ntab++;
        e->tab[t].func = in->func;
        e->tab[t].scale = in->scalar[0].num;
        e->tab[t].src = in->src[0].dtype;
        e->tab[t].n = n;
        e->tab[t].nuse = 0;
    }
    e->tab[t].use[e->tab[t].nuse++] = m;
}

/* Places the tables after the largest staging, in order while they fit in
 * TG_PE_FLOATS_MAX: each user gets `table` (its first float in core->pe) and
 * `table_id`; the context gets `tables` (the flags of which are built). */
static void act_tables(E *e, tpl_value *ctx)
{
    tpl_value *l = new_list(e);
    int64_t at = e->pe_floats;
    for (int t = 0; t < e->ntab; t++) {
        if (at + e->tab[t].n > TG_PE_FLOATS_MAX)
            continue;
        for (int u = 0; u < e->tab[t].nuse; u++) {
            put_int(e, e->tab[t].use[u], "table", at);
            put_int(e, e->tab[t].use[u], "table_id", t);
            put_int(e, e->tab[t].use[u], "table_n", e->tab[t].n);
        }
        tpl_value *m = new_map(e);
        put_int(e, m, "id", t);
        append(e, l, m);
        at += e->tab[t].n;
    }
    e->pe_floats = at;
    put(e, ctx, "tables", l);
}

/* The keys every instruction's map carries, with the value of an
   instruction that does not use them: templates test them on any op (a
   missing key is an error there).  The op's own fields replace them. */
static void put_inst_defaults(E *e, tpl_value *m)
{
    put(e, m, "stages", new_list(e)); /* tensor_scalar replaces it */
    put_bool(e, m, "alias", 0);       /* elementwise() replaces it */
    put_bool(e, m, "raw", 0);         /* tensor_tensor's NaN left as the host's */
    put_bool(e, m, "i32ops", 0);      /* put_rowops() replaces it */
    put_bool(e, m, "lanes", 0);       /* put_lanes() replaces it */
    put_bool(e, m, "apack", 0);       /* an activation's (act_pack) */
    put_int(e, m, "lane_f32", 0);     /* and these */
    put_int(e, m, "lane_n", 0);
    put_bool(e, m, "lane_cols", 0);
    put_bool(e, m, "has_reduce", 0);  /* reduce_fields() replaces it */
    put_bool(e, m, "isum", 0);        /* int_fold's ops replace it */
    put_bool(e, m, "ochunk", 0);      /* elementwise() replaces it */
    put_bool(e, m, "blocks16", 0);    /* top8() and match8 replace it */
}

static tpl_value *inst_map(E *e, IrInst *in);

static tpl_value *instruction(E *e, IrInst *orig)
{
    IrInst *in = current(e, orig);
    if (in && e->ilanes[orig->id])
        return note_map(e, orig, "runs after this loop, its iterations in lanes (docs/ir.md)");
    return in ? inst_map(e, in) : dropped(e, orig);
}

/* The template's map of instruction `in` (the forwarded one: current()). */
static tpl_value *inst_map(E *e, IrInst *in)
{
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    put_str(e, m, "kind", "inst");
    put_str(e, m, "where", where(e, in->loc));
    put_str(e, m, "mnemonic", ir_opcode_name(in->op));
    const IrAp *pc = in->op == IR_OP_LOAD || in->op == IR_OP_PRINT ? &in->src[0] : &in->dst;
    put_str(e, m, "pcount", cx(e, pc->pcount));
    if (in->op == IR_OP_PRINT)
        return print_fields(e, in, m) ? m : NULL;
    put_inst_defaults(e, m);
    int ok = 1;
    switch (in->op) {
    case IR_OP_LOAD:
    case IR_OP_STORE:
    case IR_OP_DMA_COPY:
    case IR_OP_TENSOR_COPY: {
        int raw = in->dst.dtype == in->src[0].dtype;
        if (copy_transpose(e, in, m))
            break;
        put_str(e, m, "op", raw ? "copy_raw" : "copy_cast");
        ok = elementwise(e, in, m, raw);
        if (in->has_ind) { /* SPEC.md §2.1: every index checked before anything moves */
            put(e, m, "ind", operand(e, &in->ind, NULL, 0, 0, 0, 0));
            put_int(e, m, "ind_bound", in->ind_bound);
            char dt[32];
            snprintf(dt, sizeof dt, "TG_%s", tg_dtype_name(in->ind.dtype));
            for (char *c = dt; *c; c++)
                *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
            put_str(e, m, "ind_dtype", dt);
            if (e->fwd.check_only && e->fwd.check_only[in->id]) { /* forwarded: it moves nothing */
                put_int(e, m, "check_only", in->id); /* its indices kept in tg_ix<id> */
                put_str(e, m, "note", e->fwd.note[in->id]);
            }
        }
        break;
    }
    case IR_OP_TENSOR_TENSOR:
        put_str(e, m, "op", "tensor_tensor");
        put_str(e, m, "alu", spec_alu_name(in->alu[0]));
        put_rowops(e, in, m);
        /* the host's NaN into a row only NaN-blind ops read (nan_any_tile) */
        put_bool(e, m, "raw", has_raw(in->alu[0]) && nan_any_dst(e, &in->dst));
        ok = elementwise(e, in, m, 0);
        break;
    case IR_OP_RECIPROCAL:
        put_str(e, m, "op", "reciprocal");
        ok = elementwise(e, in, m, 0);
        break;
    case IR_OP_TENSOR_SCALAR: {
        put_str(e, m, "op", "tensor_scalar");
        tpl_value *st = new_list(e);
        int pow2 = 0;
        for (int i = 0; st && i < in->nalu; i++) {
            tpl_value *s = scalar(e, &in->scalar[i]);
            if (s) {
                put_str(e, s, "alu", spec_alu_name(in->alu[i]));
                put_bool(e, s, "reverse", in->reverse[i]);
                put(e, s, "name", str(e, "tg_c%d", i));
                /* power with the constant 2: x·x rounded once unless a row has an
                   element tg_alu_pow2_slow flags (kernel.c.j2 pow2_rows) */
                int p2 = in->alu[i] == SPEC_ALU_POWER && !in->reverse[i] && !in->scalar[i].is_ap &&
                         !in->scalar[i].numx && (float)in->scalar[i].num == 2.0f;
                put_bool(e, s, "pow2", p2);
                pow2 |= p2;
                /* the host's NaN where the next stage is NaN-blind, or the
                   last into a row only NaN-blind ops read (nan_any_tile) */
                put_bool(e, s, "raw",
                         has_raw(in->alu[i]) && (i + 1 < in->nalu ? nan_blind(in->alu[i + 1])
                                                                  : !in->has_reduce && nan_any_dst(e, &in->dst)));
            }
            append(e, st, s);
        }
        put(e, m, "stages", st);
        put_bool(e, m, "pow2", pow2);
        put_rowops(e, in, m);
        put_bool(e, m, "isum", int_fold(in));
        ok = reduce_fields(e, in, m) && elementwise(e, in, m, 0);
        break;
    }
    case IR_OP_SCALAR_TENSOR_TENSOR: {
        put_str(e, m, "op", "scalar_tensor_tensor");
        put_str(e, m, "alu0", spec_alu_name(in->alu[0]));
        put_str(e, m, "alu1", spec_alu_name(in->alu[1]));
        put_bool(e, m, "reverse0", in->reverse[0]);
        tpl_value *st = new_list(e), *s = scalar(e, &in->scalar[0]);
        if (s)
            put(e, s, "name", str(e, "tg_c0"));
        if (st)
            append(e, st, s);
        put(e, m, "stages", st);
        put_rowops(e, in, m);
        ok = elementwise(e, in, m, 0);
        break;
    }
    case IR_OP_MAX8:
    case IR_OP_NC_FIND_INDEX8:
        put_str(e, m, "op", "top8");
        put_bool(e, m, "find", in->op == IR_OP_NC_FIND_INDEX8);
        ok = top8(e, in, m);
        break;
    case IR_OP_NC_MATCH_REPLACE8: {
        put_str(e, m, "op", "match8");
        put(e, m, "imm", number(e, in->value, in->valuex));
        int64_t nv;
        tpl_value *v = walk(e, &in->vals, 0, in->loc, &nv);
        if (!v || nv != 8) {
            unsupported(e, in->loc, "values other than 8 per partition are");
            return NULL;
        }
        put(e, m, "v", v);
        int64_t nf = ir_ap_free_elems(&in->src[0]); /* -1: ragged, as long as its tile */
        put_bool(e, m, "blocks16", nf < 0 || nf >= EMIT_TOP8_BLOCK_MIN);
        ok = elementwise(e, in, m, 0);
        break;
    }
    case IR_OP_SELECT: {
        put_str(e, m, "op", "select");
        tpl_value *sel = new_list(e);
        for (int i = 0; sel && i < 3; i++) {
            tpl_value *s = new_map(e);
            if (s) {
                put_bool(e, s, "is_ap", in->sel_src[i] >= 0);
                put_int(e, s, "k", in->sel_src[i]);
                put(e, s, "num", number(e, in->sel_num[i], in->sel_numx[i]));
            }
            append(e, sel, s);
        }
        put(e, m, "sel", sel);
        /* on_true and on_false of the dst's dtype, one of 1 or 2 bytes
         * (every one keeps its values through fp32): the template may move
         * encodings (sel_raw, tg_sim.h tg_mv_<sfx>). fp32's own form is a
         * move already (and measured 3-5 % faster than the encodings' on
         * bench/probes e01); int32's round trip rounds */
        int raw = tg_dtype_size(in->dst.dtype) <= 2;
        for (int i = 1; i < 3; i++)
            raw &= in->sel_src[i] < 0 || in->src[in->sel_src[i]].dtype == in->dst.dtype;
        put_bool(e, m, "sel_raw", raw);
        ok = elementwise(e, in, m, 0);
        break;
    }
    case IR_OP_ACTIVATION:
        put_str(e, m, "op", "activation");
        put_str(e, m, "func", spec_act_name(in->func));
        {
            const char *fn = spec_act_name(in->func);
            const int f = tg_act_from_name(fn, strlen(fn));
            put_bool(e, m, "vec_row", f >= 0 && tg_act_vec_row((tg_act_func)f)); /* its row has a vector body */
        }
        put(e, m, "zero", number(e, 0.0, NULL));
        put(e, m, "scale", scalar(e, &in->scalar[0]));
        put_bool(e, m, "has_bias", in->has_bias);
        if (in->has_bias)
            put(e, m, "bias", operand(e, &in->bias, NULL, 0, 0, 0, 0));
        ok = reduce_fields(e, in, m);
        act_table(e, in, m);
        put_bool(e, m, "apack", act_pack(e, in));
        put_int(e, m, "apack_n", ir_ap_free_elems(&in->dst));
        ok = ok && elementwise(e, in, m, 0);
        break;
    case IR_OP_TENSOR_REDUCE: {
        put_str(e, m, "op", "tensor_reduce");
        put_str(e, m, "alu", spec_alu_name(in->alu[0]));
        put_bool(e, m, "negate", in->negate);
        put_bool(e, m, "isum", int_fold(in));
        if (!is_p1(&in->dst)) {
            unsupported(e, in->dst.loc, "a tensor_reduce into more than one element per partition is");
            return NULL;
        }
        IrAp *aps[1] = {&in->src[0]};
        Nest nest;
        if (!refine(e, aps, 1, &nest, in->loc))
            return NULL;
        put_nest(e, m, &nest, 0);
        put(e, m, "dst", operand(e, &in->dst, NULL, 0, 1, 0, 0));
        tpl_value *src = new_list(e);
        if (src)
            append(e, src, operand(e, &in->src[0], &nest, 0, 0, 0, 0));
        put(e, m, "src", src);
        break;
    }
    case IR_OP_MATMUL:
    case IR_OP_TRANSPOSE:
        put_str(e, m, "op", in->op == IR_OP_MATMUL ? "matmul" : "transpose");
        ok = tensor_engine(e, in, m);
        break;
    case IR_OP_BN_STATS:
    case IR_OP_BN_AGGR:
        put_str(e, m, "op", "row_call");
        ok = row_call(e, in, m);
        break;
    case IR_OP_PARTITION_REDUCE:
        /* dst[0, f] = src[0, f] op src[1, f] op ... (partitions in order) */
        put_str(e, m, "op", "partition_reduce");
        put_str(e, m, "alu", spec_alu_name(in->alu[0]));
        put_str(e, m, "spcount", cx(e, in->src[0].pcount));
        ok = elementwise(e, in, m, 0);
        break;
    case IR_OP_TENSOR_TENSOR_SCAN:
        put_str(e, m, "op", "scan");
        put_str(e, m, "alu0", spec_alu_name(in->alu[0]));
        put_str(e, m, "alu1", spec_alu_name(in->alu[1]));
        put(e, m, "initial", scalar(e, &in->scalar[0]));
        ok = elementwise(e, in, m, 0);
        break;
    case IR_OP_MEMSET:
        put_str(e, m, "op", "memset");
        put(e, m, "value", number(e, in->value, in->valuex));
        ok = elementwise(e, in, m, 0);
        break;
    case IR_OP_IOTA:
        put_str(e, m, "op", "iota");
        put_str(e, m, "dtype", dtype_enums[in->dst.dtype]);
        put_str(e, m, "expr", cx(e, in->iota));
        ok = elementwise(e, in, m, 0);
        break;
    case IR_OP_AFFINE_SELECT:
        put_str(e, m, "op", "affine_select");
        put(e, m, "fill", number(e, in->value, in->valuex));
        put_str(e, m, "lhs", cx(e, in->pred.lhs));
        put_str(e, m, "cmp", expr_cmp_name(in->pred.cmp));
        put_str(e, m, "rhs", cx(e, in->pred.rhs));
        ok = elementwise(e, in, m, 0);
        break;
    default:
        unsupported(e, in->loc, arena_printf(e->arena, "op '%s' is", spec_op_name(spec_op_of(in->op))));
        return NULL;
    }
    if (ok)
        put_lanes(e, in, m, folds(e, in));
    return ok ? m : NULL;
}

/* ---- transposing copies ---------------------------------------------------------
 * A loop whose whole body is one raw copy of 4-byte elements, each operand one
 * free dim whose offset is affine in the loop variable, where the loop walks
 * the dst contiguously and the src by rows while the copy walks the src
 * contiguously and the dst by rows: the loop moves a 2-D block transposed,
 * dst[j*ds + a] = src[a*ss + j]. It becomes one tg_transpose_f32 call (8x8
 * register blocks) instead of `trip` copies with a scattered store. Only for
 * independent loops and operands on different tiles or tensors (which never
 * overlap), so the order of the element moves does not matter. */

/* x with loop variable `slot` replaced by v (constants folded). */
static Expr *subst(E *e, const Expr *x, int slot, int64_t v)
{
    if (!x)
        return NULL;
    Expr *n = arena_alloc(e->arena, sizeof *n);
    if (!n) {
        e->oom = 1;
        return NULL;
    }
    *n = *x;
    if (x->kind == EXPR_VAR && x->ival == slot) {
        n->kind = EXPR_INT;
        n->ival = v;
        return n;
    }
    if (x->kind == EXPR_INT || x->kind == EXPR_VAR || x->kind == EXPR_FLOAT || x->kind == EXPR_NAME)
        return n;
    n->a = subst(e, x->a, slot, v);
    n->b = x->kind == EXPR_NEG ? NULL : subst(e, x->b, slot, v);
    int64_t a, b, r;
    if (n->a && n->b && ir_expr_const(n->a, &a) && ir_expr_const(n->b, &b) &&
        ((x->kind == EXPR_ADD && expr_add(a, b, &r)) || (x->kind == EXPR_MUL && expr_mul(a, b, &r)))) {
        n->kind = EXPR_INT;
        n->ival = r;
    } else if (x->kind == EXPR_ADD && (ir_expr_is(n->a, 0) || ir_expr_is(n->b, 0))) {
        return ir_expr_is(n->a, 0) ? n->b : n->a;
    }
    return n;
}

/* 1 if x reads loop variable `slot`. */
static int uses(const E *e, const Expr *x, int slot)
{
    unsigned char used[EXPR_AFFINE_MAX_VARS] = {0};
    int n = e->ir->spec->nslots < EXPR_AFFINE_MAX_VARS ? e->ir->spec->nslots : EXPR_AFFINE_MAX_VARS;
    if (!x)
        return 0;
    expr_vars_used(x, used, n);
    return slot >= n || used[slot];
}

/* 1 if operand ap moves with loop lp only through its offset, affine in the
 * loop variable: the elements it advances per iteration into *elems (any
 * sign, 0 too). */
static int loop_coef(const E *e, const IrAp *ap, const IrLoop *lp, int64_t *elems)
{
    int64_t coef[EXPR_AFFINE_MAX_VARS], c;
    int n = e->ir->spec->nslots;
    if (n > EXPR_AFFINE_MAX_VARS || lp->slot >= n || ap->istep || !expr_affine(ap->offset, n, coef, &c) ||
        uses(e, ap->pstart, lp->slot) || uses(e, ap->pcount, lp->slot) || uses(e, ap->buf, lp->slot))
        return 0;
    for (int d = 0; d < ap->nfree; d++)
        if (uses(e, ap->free[d].num, lp->slot))
            return 0;
    return expr_mul(coef[lp->slot], lp->step, elems);
}

/* Elements the loop advances operand ap per iteration, or 0 when its
 * offset is not affine in the loop variable or anything else moves. */
static int64_t loop_step(const E *e, const IrAp *ap, const IrLoop *lp)
{
    int64_t k;
    return loop_coef(e, ap, lp, &k) ? k : 0;
}

static tpl_value *transpose_fold(E *e, const IrLoop *lp)
{
    if (lp->carried || lp->grid || lp->nbody != 1 || lp->body[0].kind != IR_STMT_INST || lp->trip < 2 ||
        lp->start_e || lp->stop_e)
        return NULL;
    IrInst *in = current(e, lp->body[0].inst);
    if (!in || in->has_ind || (in->op != IR_OP_LOAD && in->op != IR_OP_STORE && in->op != IR_OP_DMA_COPY &&
                               in->op != IR_OP_TENSOR_COPY))
        return NULL;
    IrAp d = in->dst, s = in->src[0];
    int64_t n, ns;
    if (in->nsrc != 1 || d.dtype != s.dtype || tg_dtype_size(d.dtype) != 4 || d.nfree != 1 || s.nfree != 1 ||
        (d.mem == s.mem && d.index == s.index) || !ir_expr_const(d.free[0].num, &n) ||
        !ir_expr_const(s.free[0].num, &ns) || n != ns || n < 2 || n > INT32_MAX || lp->trip > INT32_MAX)
        return NULL;
    int64_t dstep = loop_step(e, &d, lp), sstep = loop_step(e, &s, lp);
    if (dstep != 1 || s.free[0].step != 1 || sstep < n || d.free[0].step < lp->trip)
        return NULL;
    /* the operands at the loop's first iteration */
    d.offset = subst(e, d.offset, lp->slot, lp->start);
    s.offset = subst(e, s.offset, lp->slot, lp->start);
    if (!d.offset || !s.offset)
        return NULL;
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    put_str(e, m, "kind", "inst");
    put_str(e, m, "op", "transpose32");
    put_str(e, m, "where", where(e, in->loc));
    put(e, m, "mnemonic", str(e, "%s, loop %s (%s) folded: a %lld x %lld transposing copy", ir_opcode_name(in->op),
                              lp->var, where(e, lp->loc), (long long)lp->trip, (long long)n));
    put_str(e, m, "pcount", cx(e, (in->op == IR_OP_LOAD ? &s : &d)->pcount));
    put_inst_defaults(e, m);
    put(e, m, "dims", new_list(e));
    put(e, m, "dst", operand(e, &d, NULL, 0, 1, 0, 0));
    tpl_value *src = new_list(e);
    if (src)
        append(e, src, operand(e, &s, NULL, 0, 0, 0, 0));
    put(e, m, "src", src);
    put_int(e, m, "rows", lp->trip);
    put_int(e, m, "cols", n);
    put_int(e, m, "ds", d.free[0].step);
    put_int(e, m, "ss", sstep);
    return m;
}


/* ---- folded K loops -------------------------------------------------------------
 * A carried loop whose whole body is one accumulating matmul into a dst that
 * does not move, each operand's offset affine in the loop variable and
 * nothing else of it moving, becomes one tg_matmul_blocks call over the
 * loop's trip blocks of K rows: the runtime sums k in the loop's order, so
 * the bits are the loop's (tg_ops.h), and it packs and runs its kernels over
 * the whole K. `peel`, when given, is the statement just before the loop: a
 * matmul into the same dst whose operands are the loop's at start - step
 * (the K loop's first tile written apart to start the accumulation); it
 * joins as the first block, with its own `accumulate`. */

/* 1 if two expressions are the same: affine ones with the same
 * coefficients, others printing the same C (NULL only with NULL). */
static int same_cx(E *e, const Expr *a, const Expr *b)
{
    int64_t ca[EXPR_AFFINE_MAX_VARS], cb[EXPR_AFFINE_MAX_VARS], c0, c1;
    int n = e->ir->spec->nslots;
    if (!a || !b)
        return a == b;
    if (n <= EXPR_AFFINE_MAX_VARS && expr_affine(a, n, ca, &c0) && expr_affine(b, n, cb, &c1))
        return c0 == c1 && !memcmp(ca, cb, sizeof ca[0] * (size_t)n);
    return !strcmp(cx(e, a), cx(e, b));
}

static int same_cx_cb(void *e, const Expr *a, const Expr *b) { return same_cx((E *)e, a, b); }

/* 1 if access y is x with x's offset at loop lp's iteration v. */
static int same_ap_at(E *e, const IrAp *x, const IrAp *y, const IrLoop *lp, int64_t v)
{
    if (!ir_ap_same_but_offset(x, y, same_cx_cb, e))
        return 0;
    Expr *o = subst(e, x->offset, lp->slot, v);
    return o && same_cx(e, o, y->offset);
}

static tpl_value *matmul_fold(E *e, const IrLoop *lp, const IrStmt *peel)
{
    int64_t ab, bb, db;
    if (!lp->carried || lp->grid || lp->nbody != 1 || lp->body[0].kind != IR_STMT_INST || lp->trip < 2 ||
        lp->start_e || lp->stop_e || lp->step <= 0 || lp == e->progs)
        return NULL;
    IrInst *in = current(e, lp->body[0].inst);
    if (!in || in->op != IR_OP_MATMUL || !in->accumulate || in->has_ind || !loop_coef(e, &in->dst, lp, &db) ||
        db != 0 || !loop_coef(e, &in->src[0], lp, &ab) || !loop_coef(e, &in->src[1], lp, &bb) ||
        !expr_mul(ab, (int64_t)tg_dtype_size(in->src[0].dtype), &ab) ||
        !expr_mul(bb, (int64_t)tg_dtype_size(in->src[1].dtype), &bb)) /* elements to bytes */
        return NULL;
    int64_t p0, blocks = lp->trip, first = lp->start, acc = 1;
    if (!ir_expr_const(in->src[0].pcount, &p0) || p0 < 1)
        return NULL;
    if (peel) {
        IrInst *pi = peel->kind == IR_STMT_INST ? current(e, peel->inst) : NULL;
        if (!pi || pi->op != IR_OP_MATMUL || pi->has_ind || !expr_add(lp->start, -lp->step, &first) ||
            !same_ap_at(e, &in->dst, &pi->dst, lp, first) || !same_ap_at(e, &in->src[0], &pi->src[0], lp, first) ||
            !same_ap_at(e, &in->src[1], &pi->src[1], lp, first))
            return NULL;
        blocks++;
        acc = pi->accumulate;
    }
    if (blocks > INT32_MAX / p0)
        return NULL;
    e->te_direct = 0;
    tpl_value *m = inst_map(e, in);
    if (!m || !e->te_direct)
        return NULL;
    put(e, m, "mnemonic", str(e, "%s, loop %s (%s) folded%s: %lld K blocks in one call", ir_opcode_name(in->op),
                              lp->var, where(e, lp->loc), peel ? " with the matmul before it" : "",
                              (long long)blocks));
    put_bool(e, m, "accumulate", acc);
    put(e, m, "bvar", str(e, "v_%s", lp->var));
    put_int(e, m, "bstart", first);
    put_int(e, m, "blocks", blocks);
    put_int(e, m, "ab", ab);
    put_int(e, m, "bb", bb);
    return m;
}

/* ---- statements ---------------------------------------------------------------- */

static tpl_value *body(E *e, const IrStmt *st, int n);

/* A loop's first value as C. */
static const char *loop_start(E *e, const IrLoop *lp)
{
    if (lp->grid) /* the programs the entry point runs (kernel.c.j2) */
        return arena_printf(e->arena, "tg_lo[%d]", lp->grid - 1);
    if (lp == e->progs) /* iterations tg_lo[0] .. tg_hi[0] - 1 (emit_progs.h) */
        return arena_printf(e->arena, "(%lld + tg_lo[0] * %lld)", (long long)lp->start, (long long)lp->step);
    if (lp->start_e) /* bounds over enclosing loop variables: C expressions */
        return cx(e, lp->start_e);
    return arena_printf(e->arena, "%lld", (long long)lp->start);
}

static tpl_value *loop(E *e, const IrLoop *lp)
{
    tpl_value *m = new_map(e);
    if (!m)
        return NULL;
    put_str(e, m, "kind", "for");
    put(e, m, "var", str(e, "v_%s", lp->var));
    put_str(e, m, "start", loop_start(e, lp));
    if (lp->grid) {
        put(e, m, "stop", str(e, "tg_hi[%d]", lp->grid - 1));
    } else if (lp == e->progs) {
        put(e, m, "stop", str(e, "(%lld + tg_hi[0] * %lld)", (long long)lp->start, (long long)lp->step));
    } else {
        if (lp->stop_e)
            put_str(e, m, "stop", cx(e, lp->stop_e));
        else
            put_int(e, m, "stop", lp->stop);
    }
    put_int(e, m, "step", lp->step);
    put_bool(e, m, "carried", lp->carried);
    put_str(e, m, "where", where(e, lp->loc));
    int64_t trips = e->trips;
    e->trips = lp->trip > 0 && e->trips <= EMIT_TABLE_WORK / lp->trip ? e->trips * lp->trip : EMIT_TABLE_WORK;
    put(e, m, "body", body(e, lp->body, lp->nbody));
    e->trips = trips;
    tpl_value *after = new_list(e);
    for (int i = 0; after && i < lp->nbody; i++) {
        const IrStmt *st = &lp->body[i];
        IrInst *in = st->kind == IR_STMT_INST ? current(e, st->inst) : NULL;
        int64_t p;
        if (!in || !e->ilanes[in->id] || !ir_expr_const(in->dst.pcount, &p))
            continue;
        tpl_value *a = inst_map(e, in), *it = new_map(e);
        if (!a || !it)
            return NULL;
        put(e, it, "var", str(e, "v_%s", lp->var));
        put_int(e, it, "start", lp->start);
        put_int(e, it, "step", lp->step);
        put_int(e, it, "p", p);
        put_int(e, it, "n", p * lp->trip); /* lanes: (iteration, partition) pairs */
        put(e, a, "it", it);
        append(e, after, a);
    }
    put(e, m, "after", after);
    return m;
}

/* ---- partition regions ---------------------------------------------------------
 * Consecutive statements whose every instruction is partition-local (partition
 * p touches only SBUF/PSUM row poff + p, the same poff and partition count for
 * all: a constant, or one expression of the loops outside the run, a ragged
 * tile's min(128, N - i*128)) share one loop over partitions: each partition
 * runs the whole sequence while its rows are in cache. Per partition the order of work is
 * unchanged and different partitions touch disjoint rows, so the results are
 * the same. HBM is the exception: a tensor a region writes may be touched by
 * no other instruction of the region, unless every partition's accesses to
 * it lie in a window of elements of its own (FuseWin), and a carried loop
 * inside a region writes no HBM (its iterations would interleave across
 * partitions). */

/* The elements of one HBM tensor that a run's accesses touch, when each
 * partition p's lie in a window of its own: offset base + lo .. base + hi,
 * plus p·P, with hi - lo < P (P the accesses' common partition step, base an
 * affine offset of the loops outside the run). The windows of two partitions
 * never meet, so no partition touches an element another one does, and
 * statements that write the tensor may share a region with others that read
 * or write it: each partition's accesses still run in the spec's order.
 * RoPE's rotate-half writes the two halves of each output row from two
 * statements (specs/rope.yaml): one region instead of two. */
typedef struct FuseWin {
    int ok;           /* 1: the window below holds every access of the run */
    int index;        /* Spec.tensors index (two views of a base: not compared) */
    int64_t P;        /* elements between partitions' windows */
    const Expr *base; /* offset of the first access */
    int64_t lo, hi;   /* the elements touched, relative to base + p·P */
} FuseWin;

/* What a statement needs to join a region. */
typedef struct Fuse {
    int ok;          /* partition-local */
    const Expr *pc;  /* its partition count (same_cx compares them); NULL: any (nothing to run) */
    int64_t poff;    /* first partition of its SBUF/PSUM rows; -1: none */
    uint64_t reads;  /* HBM tensors read (bit per Spec.tensors index) */
    uint64_t writes; /* HBM tensors written */
    FuseWin win[64]; /* by bit of reads | writes */
} Fuse;

/* HBM access ap's window: each partition's elements a run of fewer than its
 * partition step from its first (constant counts, no indirection). */
static FuseWin win_of(const IrAp *ap)
{
    FuseWin w = {0, ap->index, ap->pstep, ap->offset, 0, 0};
    if (ap->pstep <= 0 || ap->istep || ap->ixgather)
        return w;
    for (int d = 0; d < ap->nfree; d++) {
        int64_t n;
        if (!ir_expr_const(ap->free[d].num, &n) || n < 1 || ap->free[d].step > INT64_MAX / n ||
            ap->free[d].step < -(INT64_MAX / n))
            return w;
        int64_t span = (n - 1) * ap->free[d].step;
        if (span < 0)
            w.lo += span;
        else
            w.hi += span;
        if (w.hi - w.lo >= ap->pstep)
            return w;
    }
    w.ok = 1;
    return w;
}

/* Window a joined by window b (the same tensor): *a stays a window only
 * when both are, over the same tensor and step, their bases a constant
 * apart, and together they still span less than the step. */
static void win_merge(E *e, FuseWin *a, const FuseWin *b)
{
    int64_t ca[EXPR_AFFINE_MAX_VARS], cb[EXPR_AFFINE_MAX_VARS], c0, c1;
    int n = e->ir->spec->nslots;
    if (!a->ok || !b->ok || a->index != b->index || a->P != b->P || n > EXPR_AFFINE_MAX_VARS ||
        !expr_affine(a->base, n, ca, &c0) || !expr_affine(b->base, n, cb, &c1) ||
        memcmp(ca, cb, sizeof ca[0] * (size_t)n) || c1 - c0 > a->P || c0 - c1 > a->P) {
        a->ok = 0;
        return;
    }
    int64_t d = c1 - c0, lo = b->lo + d < a->lo ? b->lo + d : a->lo, hi = b->hi + d > a->hi ? b->hi + d : a->hi;
    a->lo = lo;
    a->hi = hi;
    a->ok = hi - lo < a->P;
}

static int fuse_ap(E *e, const IrAp *ap, int write, Fuse *f)
{
    int64_t v;
    if (ap->mem == IR_MEM_HBM) {
        uint64_t bit = emit_hbm_bit(e->ir, ap);
        if (!bit)
            return 0;
        int i = 0;
        while (!(bit >> i & 1))
            i++;
        FuseWin w = win_of(ap);
        if ((f->reads | f->writes) & bit)
            win_merge(e, &f->win[i], &w);
        else
            f->win[i] = w;
        if (write)
            f->writes |= bit;
        else
            f->reads |= bit;
        return 1;
    }
    if (!ir_expr_const(ap->pstart, &v))
        return 0;
    v += e->plan->tiles[ap->index].pstart;
    if (f->poff >= 0 && f->poff != v)
        return 0;
    f->poff = v;
    return 1;
}

static Fuse fuse_inst(E *e, IrInst *orig)
{
    Fuse f = {.poff = -1};
    const IrInst *in = current(e, orig);
    if (in && e->ilanes[orig->id])
        return f; /* after its loop, over all partitions: in no region */
    if (!in)
        return (Fuse){.ok = 1, .poff = -1}; /* dropped: joins any region */
    if (in->has_ind)
        return f; /* an indirect DMA may fail (TG_EBOUNDS) before it moves anything: on its own */
    if (copy_transpose(e, in, NULL))
        return f; /* one tg_transpose call for all its partitions */
    switch (in->op) {
    case IR_OP_LOAD: case IR_OP_STORE: case IR_OP_DMA_COPY: case IR_OP_TENSOR_COPY:
    case IR_OP_TENSOR_TENSOR: case IR_OP_RECIPROCAL: case IR_OP_TENSOR_SCALAR: case IR_OP_ACTIVATION:
    case IR_OP_TENSOR_REDUCE: case IR_OP_TENSOR_TENSOR_SCAN: case IR_OP_MEMSET: case IR_OP_IOTA:
    case IR_OP_AFFINE_SELECT: case IR_OP_SELECT: case IR_OP_SCALAR_TENSOR_TENSOR:
        break;
    default: /* the Tensor engine, partition_reduce, bn_stats/bn_aggr */
        return f;
    }
    const IrAp *pc = in->op == IR_OP_LOAD ? &in->src[0] : &in->dst;
    f.pc = pc->pcount;
    int ok = fuse_ap(e, &in->dst, 1, &f);
    for (int i = 0; ok && i < in->nsrc; i++)
        ok = fuse_ap(e, &in->src[i], 0, &f);
    for (int i = 0; ok && i < in->nscalar && i < 2; i++)
        ok = !in->scalar[i].is_ap || fuse_ap(e, &in->scalar[i].ap, 0, &f);
    if (ok && in->has_bias)
        ok = fuse_ap(e, &in->bias, 0, &f);
    if (ok && in->has_reduce)
        ok = fuse_ap(e, &in->reduce_dst, 1, &f);
    f.ok = ok;
    return f;
}

/* a then b in one region: 1 and a updated, or 0. A tensor one writes and
 * the other touches joins only in windows (FuseWin). */
static int fuse_merge(E *e, Fuse *a, const Fuse *b)
{
    if (!a->ok || !b->ok || (a->pc && b->pc && !same_cx(e, a->pc, b->pc)) ||
        (a->poff >= 0 && b->poff >= 0 && a->poff != b->poff))
        return 0;
    const uint64_t clash = (a->writes & (b->reads | b->writes)) | (b->writes & (a->reads | a->writes));
    for (int i = 0; i < 64; i++) {
        FuseWin w = a->win[i];
        if (clash >> i & 1 && (win_merge(e, &w, &b->win[i]), !w.ok))
            return 0;
    }
    if (!a->pc)
        a->pc = b->pc;
    a->poff = a->poff >= 0 ? a->poff : b->poff;
    for (int i = 0; i < 64; i++) {
        if (!((b->reads | b->writes) >> i & 1))
            continue;
        if ((a->reads | a->writes) >> i & 1)
            win_merge(e, &a->win[i], &b->win[i]);
        else
            a->win[i] = b->win[i];
    }
    a->reads |= b->reads;
    a->writes |= b->writes;
    return 1;
}

static Fuse fuse_stmt(E *e, const IrStmt *st)
{
    if (st->kind == IR_STMT_INST)
        return fuse_inst(e, st->inst);
    Fuse f = {.poff = -1};
    const IrLoop *lp = st->loop;
    int64_t v;
    for (int i = 0; i < lp->nbody; i++) {
        Fuse g = fuse_stmt(e, &lp->body[i]);
        if (i == 0)
            f = g;
        else if (!fuse_merge(e, &f, &g))
            return (Fuse){.poff = -1};
    }
    /* A loop without `carried` has independent iterations (sema: no two
     * write overlapping regions of an output), so its stores may interleave
     * across partitions; a carried loop's may not. A partition count that is
     * not constant may change with the loop (the region counts once). A
     * window that moves with the loop stays as it is: every access outside
     * the loop has no term in its variable (each loop has a slot of its
     * own), so win_merge refuses to join the two. */
    f.ok = f.ok && lp->nbody > 0 && (!f.writes || !lp->carried) && (!f.pc || ir_expr_const(f.pc, &v));
    return f;
}

static tpl_value *stmt(E *e, const IrStmt *st)
{
    if (st->kind == IR_STMT_INST)
        return instruction(e, st->inst);
    tpl_value *t = transpose_fold(e, st->loop);
    if (!t && !e->oom)
        t = matmul_fold(e, st->loop, NULL);
    return t || e->oom ? t : loop(e, st->loop);
}

/* ---- row-local tiles -----------------------------------------------------------
 * A tile whose every access is an instruction statement of one partition
 * region (not inside a loop of it), all on the same rotating copy and in its
 * dtype, the first of them writing each partition's whole row and reading
 * none of it, carries nothing from one partition's pass over the region to
 * the next, nor into or out of the region: each partition writes its row
 * before anything reads it, and nothing outside reads it. So the row can
 * live in a buffer on the stack, reused by every partition, that stays in
 * L1 (`tg_rl<tile>`), instead of partition p's SBUF row: a temporary of an
 * element-wise chain no longer cycles through the tile's whole SBUF region
 * (128 rows, evicted to L3 and back as the operands stream past).
 * out = (a - b) * c over 4096 x 512 fp32 (bench/probes r07): 0.91-0.94 ->
 * 0.73-0.79 ms. Not in a lanes region (TG_LANES partitions at once), and at
 * most EMIT_ROWLOCAL_BYTES of rows per region (the kernel's stack). */
#define EMIT_ROWLOCAL_BYTES 8192
/* Instructions one chain runs at most (gen/emit.c chain_run). */
#define EMIT_CHAIN_MAX 8

/* 1 if an instruction of statements st[0..n), those in their loops
 * included, runs in lanes (in_lanes: the rule put_lanes applies to each as
 * it is built) or packs a block's rows (act_pack). A dropped instruction runs nothing; a loop folded into one
 * call (transpose_fold) holds a copy, which never folds. */
static int stmts_in_lanes(E *e, const IrStmt *st, int n)
{
    for (int i = 0; i < n; i++) {
        if (st[i].kind == IR_STMT_LOOP) {
            if (stmts_in_lanes(e, st[i].loop->body, st[i].loop->nbody))
                return 1;
            continue;
        }
        const IrInst *c = current(e, st[i].inst);
        if (c && (in_lanes(c, folds(e, c)) || act_pack(e, c)))
            return 1;
    }
    return 0;
}

/* 1 if tile t may be row-local in the region whose instruction statements
 * are marked in `in` (by id): see above. Only the tile's accesses, ids
 * first..last of the lowering, are looked at: forwarding only takes tile
 * operands away (its readers and writers take HBM instead). */
static int rowlocal_tile(E *e, int t, const unsigned char *in)
{
    const IrTile *it = &e->ir->tiles[t];
    const SpecTile *tile = &e->ir->spec->tiles[t];
    const char *buf = NULL;
    int first = 1; /* no access seen yet */
    if (it->naccess == 0)
        return 0; /* unused: first = last = -1 */
    for (int id = it->first; id <= it->last; id++) {
        IrInst *c = current(e, e->ir->insts[id]);
        IrOperand ops[IR_MAX_OPERANDS];
        int nops = c ? ir_operands(c, ops) : 0, touch = 0, reads = 0, writes = 0;
        for (int k = 0; k < nops; k++) {
            const IrAp *ap = ops[k].ap;
            if (ap->mem == IR_MEM_HBM || ap->index != t)
                continue;
            const char *b = cx(e, ap->buf);
            if (!in[id] || ap->mem != IR_MEM_SBUF || ap->dtype != tile->dtype || !b || (buf && strcmp(buf, b)) ||
                (first && ops[k].is_write && !ir_ap_covers_row(e->ir->spec, ap)))
                return 0;
            buf = b;
            touch = 1;
            reads |= ops[k].is_read;
            writes |= ops[k].is_write;
        }
        if (touch && first && (!writes || reads))
            return 0; /* the first access must write the row and read none of it */
        first = first && !touch;
    }
    return !first;
}

/* 1 if tile t, row-local and fp32, is read only as a source of
 * tensor_tensor ops whose result depends on a NaN operand only through its
 * being NaN (arithmetic, compare and logical ops: kernel.c.j2 nan_in): which
 * NaN its writers leave then never shows, so they may leave the host's own
 * (rowlocal 2; kernel.c.j2 element, in.raw). rope's four products, each
 * made canonical before a subtract or add that makes its NaN canonical
 * again: 0.032 -> 0.025 ms. */
static int nan_any_tile(E *e, int t)
{
    const IrTile *it = &e->ir->tiles[t];
    if (e->ir->spec->tiles[t].dtype != TG_FLOAT32)
        return 0;
    for (int id = it->first; id <= it->last; id++) {
        IrInst *c = current(e, e->ir->insts[id]);
        IrOperand ops[IR_MAX_OPERANDS];
        int nops = c ? ir_operands(c, ops) : 0;
        for (int k = 0; k < nops; k++) {
            const IrAp *ap = ops[k].ap;
            if (ap->mem != IR_MEM_SBUF || ap->index != t || !ops[k].is_read)
                continue;
            int blind = 0; /* the op that takes this operand is NaN-blind */
            if (c->op == IR_OP_ACTIVATION || c->op == IR_OP_RECIPROCAL)
                blind = 1; /* every NaN result canonical (tg_activation, tg_act_reciprocal) */
            else if (c->op == IR_OP_TENSOR_TENSOR)
                blind = nan_blind(c->alu[0]);
            else if (c->op == IR_OP_TENSOR_SCALAR) /* its source enters stage 0, scalar i stage i */
                for (int i = 0; i < c->nalu; i++)
                    blind |= ((i == 0 && ap == &c->src[0]) || (c->scalar[i].is_ap && ap == &c->scalar[i].ap)) &&
                             nan_blind(c->alu[i]);
            if (!blind)
                return 0;
        }
    }
    return 1;
}

/* Mark the region's row-local tiles (e->rowlocal) and list them (the
 * template declares their buffers); *lanes gets whether an instruction of the
 * region runs in lanes, and then there are none. Decided before anything of
 * the region is built, so it is built once. Returns the list, NULL when out
 * of memory. */
static tpl_value *rowlocal_scan(E *e, const IrStmt *st, int n, int *lanes)
{
    const Ir *ir = e->ir;
    tpl_value *l = new_list(e);
    unsigned char *in = arena_alloc(e->arena, (size_t)ir->ninsts + 1);
    if (!e->rowlocal)
        e->rowlocal = arena_alloc(e->arena, (size_t)ir->ntiles + 1);
    if (!l || !in || !e->rowlocal)
        return NULL;
    memset(e->rowlocal, 0, (size_t)ir->ntiles + 1);
    *lanes = stmts_in_lanes(e, st, n);
    if (*lanes)
        return l; /* partitions in blocks of TG_LANES share no buffer */
    memset(in, 0, (size_t)ir->ninsts + 1);
    for (int i = 0; i < n; i++)
        if (st[i].kind == IR_STMT_INST)
            in[st[i].inst->id] = 1;
    int64_t left = EMIT_ROWLOCAL_BYTES;
    for (int t = 0; t < ir->ntiles; t++) {
        int64_t bytes = e->plan->tiles[t].bytes;
        if (bytes + 8 > left || !rowlocal_tile(e, t, in))
            continue;
        left -= bytes + 8;
        e->rowlocal[t] = (unsigned char)(1 + nan_any_tile(e, t));
        tpl_value *m = new_map(e);
        if (!m)
            return NULL;
        put_int(e, m, "id", t);
        put_str(e, m, "name", ir->spec->tiles[t].name);
        put_int(e, m, "words", (bytes + 8 + 7) / 8); /* tg_rd_f32_even may read 4 bytes past the row */
        append(e, l, m);
    }
    return l;
}

/* ---- chains --------------------------------------------------------------------
 * Consecutive elementwise instructions of a partition region (tensor_tensor,
 * tensor_scalar) over one free loop of the same count run as one loop: each
 * element goes through the instructions in turn, their element forms
 * (kernel.c.j2 element), the intermediate values still written where the
 * spec writes them but read back while in registers or L1 instead of a pass
 * over the row each. The same bits when, for every two accesses of two
 * member instructions A before B of which one writes, B's access at element
 * j meets A's at element j only (the same address at each j: A's value is
 * there, or B's write comes after A's read) or never (disjoint bytes); and a
 * scalar operand B reads once (read before the loop now) is written by no
 * earlier member. rmsnorm's x·rstd then ·g: 0.038 -> 0.030 ms. */

/* One access of a chain member: its pattern, whether it writes, and the
 * elements one iteration moves it (elem: indexed by the loop; else read
 * once, a [P,1] scalar). */
typedef struct ChainAcc {
    const IrAp *ap;
    int write, elem;
    int64_t step;
} ChainAcc;

/* A member's accesses into acc[] (at most IR_MAX_OPERANDS); its loop count
 * into *count. 0 when `in` cannot be a member: not tensor_tensor or a
 * tensor_scalar without accumulate, in lanes, ops whose element form is not
 * plain arithmetic (a power, compares), an integer element operand, or not
 * one loop of a constant count with every element operand at step 0 or 1 (no
 * staging, no pair reads). */
static int chain_member(E *e, const IrInst *in, ChainAcc *acc, int *nacc, int64_t *count)
{
    if ((in->op != IR_OP_TENSOR_TENSOR && in->op != IR_OP_TENSOR_SCALAR) || in->has_reduce ||
        (e->ilanes && e->ilanes[in->id]) || in_lanes(in, folds(e, in)))
        return 0;
    for (int i = 0; i < in->nalu; i++)
        if (in->alu[i] != SPEC_ALU_ADD && in->alu[i] != SPEC_ALU_SUBTRACT && in->alu[i] != SPEC_ALU_MULTIPLY &&
            in->alu[i] != SPEC_ALU_DIVIDE && in->alu[i] != SPEC_ALU_MAXIMUM && in->alu[i] != SPEC_ALU_MINIMUM)
            return 0;
    IrAp *aps[IR_MAX_OPERANDS];
    int n = 0;
    aps[n++] = (IrAp *)&in->dst;
    for (int i = 0; i < in->nsrc; i++)
        aps[n++] = (IrAp *)&in->src[i];
    Nest nest;
    e->quiet++;
    int refined = refine(e, aps, n, &nest, in->loc);
    e->quiet--;
    if (!refined || nest.n != 1 || nest.ncount[0] || nest.count[0] < 1)
        return 0;
    for (int k = 0; k < n; k++) {
        if (nest.idx[k] || (nest.step[k][0] != 0 && nest.step[k][0] != 1) || !tg_dtype_is_float(aps[k]->dtype))
            return 0; /* integer operands keep the int32 rows (put_rowops) */
        if (k > 0 && partial_alias(e, &in->dst, aps[k]))
            return 0;
        if (k > 0 && view_overlap(e, &in->dst, aps[k]))
            return 0;
        acc[k] = (ChainAcc){aps[k], k == 0, 1, nest.step[k][0]};
    }
    IrOperand ops[IR_MAX_OPERANDS];
    int nops = ir_operands(in, ops);
    for (int i = 0; i < nops; i++) {
        int elem = 0;
        for (int k = 0; k < n; k++)
            elem |= ops[i].ap == aps[k];
        if (!elem) {
            if (ops[i].is_write || n == IR_MAX_OPERANDS)
                return 0;
            acc[n++] = (ChainAcc){ops[i].ap, 0, 0, 0};
        }
    }
    *nacc = n;
    *count = nest.count[0];
    return 1;
}

/* The bytes access a covers in a loop of `count` iterations, [*lo, *hi),
 * counted from its storage's start (an HBM tensor's base, an SBUF or PSUM
 * partition row, a row-local buffer) plus the variable part of its offset,
 * whose coefficients go to coef for the caller to compare; 0 when not known
 * (an offset not affine, a rotating copy's index not constant). */
static int chain_bytes(E *e, const ChainAcc *a, int64_t count, int64_t *coef, int64_t *lo, int64_t *hi)
{
    const IrAp *ap = a->ap;
    int64_t es = (int64_t)tg_dtype_size(ap->dtype), c, base = 0, b;
    int nv = e->ir->spec->nslots;
    if (nv > EXPR_AFFINE_MAX_VARS || !expr_affine(ap->offset, nv, coef, &c))
        return 0;
    if (ap->mem != IR_MEM_HBM && !(e->in_region && e->rowlocal && e->rowlocal[ap->index])) {
        const PlanTile *pt = &e->plan->tiles[ap->index];
        if (!ir_expr_const(ap->buf, &b))
            return 0;
        base = (ap->mem == IR_MEM_PSUM ? (int64_t)pt->bank * TG_PSUM_BANK_BYTES : pt->offset) + pt->slot * b;
    }
    int64_t n = a->elem ? count : 1, span = a->step * (n - 1);
    *lo = base + c * es;
    *hi = *lo + (span + 1) * es;
    return 1;
}

/* 1 if accesses x (of an earlier member) and y (of a later one), one of
 * them a write, meet only at the same element of the same iteration or not
 * at all (the rule above). */
static int chain_pair_ok(E *e, const ChainAcc *x, const ChainAcc *y, int64_t count)
{
    const IrAp *a = x->ap, *b = y->ap;
    const SpecTensor *t = e->ir->spec->tensors;
    int rla = a->mem == IR_MEM_SBUF && e->in_region && e->rowlocal && e->rowlocal[a->index];
    int rlb = b->mem == IR_MEM_SBUF && e->in_region && e->rowlocal && e->rowlocal[b->index];
    if (a->mem != b->mem || rla != rlb)
        return 1; /* HBM, SBUF, PSUM and each row-local buffer are apart */
    if (a->mem == IR_MEM_HBM && t[a->index].base != t[b->index].base)
        return 1; /* other tensors (an output overlapping anything fails the entry's checks) */
    if (rla && a->index != b->index)
        return 1;
    if (a->mem == IR_MEM_HBM && (a->istep || b->istep || a->ixgather || b->ixgather || a->pstep != b->pstep))
        return 0;
    if (a->mem != IR_MEM_HBM && !rla) {
        /* the partition each starts at: its tile's first plus its own offset */
        int64_t pa, pb, ta = e->plan->tiles[a->index].pstart, tb = e->plan->tiles[b->index].pstart;
        if (ir_expr_const(a->pstart, &pa) && ir_expr_const(b->pstart, &pb)) {
            if (ta + pa != tb + pb)
                return 1; /* another partition's row */
        } else if (ta != tb || strcmp(cx(e, a->pstart), cx(e, b->pstart)))
            return 0;
    }
    /* the same address at every element: the same row and index */
    if (x->elem && y->elem && a->dtype == b->dtype && x->step == 1 && y->step == 1 &&
        !strcmp(row_of(e, a, 0), row_of(e, b, 0)))
        return 1;
    int64_t ca[EXPR_AFFINE_MAX_VARS], cb[EXPR_AFFINE_MAX_VARS], la, ha, lb, hb;
    int nv = e->ir->spec->nslots;
    if (!chain_bytes(e, x, count, ca, &la, &ha) || !chain_bytes(e, y, count, cb, &lb, &hb) ||
        memcmp(ca, cb, sizeof ca[0] * (size_t)nv) ||
        tg_dtype_size(a->dtype) != tg_dtype_size(b->dtype))
        return 0;
    return ha <= lb || hb <= la;
}

/* 1 if member `in` (its accesses acc[0..nacc)) has an operand other than
 * fp32; *row: 1 if alone it would run as a runtime fp32 row (row_run: f32ops,
 * every element operand at step 1). */
static int chain_narrow(const IrInst *in, const ChainAcc *acc, int nacc, int *row)
{
    int narrow = 0, steps = 1;
    for (int k = 0; k < nacc; k++) {
        narrow |= acc[k].ap->dtype != TG_FLOAT32;
        steps &= !acc[k].elem || acc[k].step == 1;
    }
    *row = !narrow && steps && row_ops(in, TG_FLOAT32, tg_alu_f32_row_op);
    return narrow;
}

/* One chain as chain_run finds it: the statements st[i..end) run as one
 * loop of `count` iterations; their instructions that run, mem[0..nm) (at
 * least two, EMIT_CHAIN_MAX at most), with each one's accesses; the dropped
 * instructions among them run nothing (their notes). */
typedef struct Chain {
    int end, nm;
    int64_t count;
    IrInst *mem[EMIT_CHAIN_MAX];
    ChainAcc acc[EMIT_CHAIN_MAX][IR_MAX_OPERANDS];
    int nacc[EMIT_CHAIN_MAX];
} Chain;

/* The chain that starts at statement i of st[0..n) into *ch; returns its end,
 * i when none starts there. */
static int chain_run(E *e, const IrStmt *st, int i, int n, Chain *ch)
{
    int members = 0, narrow = 0, rows = 0;
    ch->end = i;
    ch->count = 0;
    for (int k = i; k < n && members < EMIT_CHAIN_MAX; k++) {
        if (st[k].kind != IR_STMT_INST)
            break;
        IrInst *c = current(e, st[k].inst);
        if (!c)
            continue; /* dropped: runs nothing */
        int64_t cnt;
        ChainAcc *acc = ch->acc[members];
        if (!chain_member(e, c, acc, &ch->nacc[members], &cnt) || (members && cnt != ch->count))
            break;
        /* a runtime fp32 row's statement and a narrow dtype's in one chain: layernorm over
         * bf16 rows (bench/probes p8: x bf16, xn·γ an fp32 row, y bf16) ran 0.54 ms as three
         * loops, 0.61 as one (gcc's AVX-512 loop spent its time on the bf16 rounding's mask
         * blends); chains of narrow element loops alone gained (rope 0.031 -> 0.028 ms, p3
         * 0.093 -> 0.072), of fp32 rows alone too (rmsnorm 0.038 -> 0.030) */
        int row, nar = chain_narrow(c, acc, ch->nacc[members], &row);
        if ((narrow || nar) && (rows || row))
            break;
        int ok = 1;
        for (int m = 0; m < members && ok; m++)
            for (int a = 0; a < ch->nacc[m] && ok; a++)
                for (int b = 0; b < ch->nacc[members] && ok; b++) {
                    const ChainAcc *x = &ch->acc[m][a], *y = &acc[b];
                    if (!x->write && (!y->write || !x->elem))
                        continue; /* reads of both, or a scalar read before any member runs */
                    ok = chain_pair_ok(e, x, y, cnt);
                }
        if (!ok)
            break;
        ch->count = cnt;
        narrow |= nar;
        rows |= row;
        ch->mem[members++] = c;
        ch->end = k + 1;
    }
    ch->nm = members;
    if (members < 2)
        ch->end = i;
    return ch->end;
}

/* 1 if the fp32 value member a of chain ch writes to its dst tile need not
 * be stored: every access of that tile in the kernel is in the chain, a's the
 * only write (reading none of it), every other a read by a later member at
 * a's element (the same row and index, one element an iteration), which
 * then takes the value itself (rdn of an fp32 element gives the bits wrc
 * stored). rmsnorm's xn: 0.037 -> 0.030 ms. */
static int chain_keeps(E *e, const Chain *ch, int a)
{
    const IrAp *d = &ch->mem[a]->dst;
    if (d->mem == IR_MEM_HBM || d->dtype != TG_FLOAT32 || d->discard || ch->acc[a][0].step != 1)
        return 0;
    const char *drow = row_of(e, d, 0);
    const IrTile *it = &e->ir->tiles[d->index];
    for (int id = it->first; id >= 0 && id <= it->last; id++) {
        IrInst *c = current(e, e->ir->insts[id]);
        IrOperand ops[IR_MAX_OPERANDS];
        int nops = c ? ir_operands(c, ops) : 0, mi = -1;
        for (int j = 0; j < ch->nm; j++)
            if (ch->mem[j] == c)
                mi = j;
        for (int k = 0; k < nops; k++) {
            const IrAp *ap = ops[k].ap;
            if (ap->mem == IR_MEM_HBM || ap->index != d->index)
                continue;
            if (mi < 0 || (ops[k].is_write && ap != d) || (ops[k].is_read && mi <= a))
                return 0;
            if (!ops[k].is_read)
                continue;
            int same = 0;
            for (int q = 0; q < ch->nacc[mi]; q++) {
                const ChainAcc *x = &ch->acc[mi][q];
                same |= x->ap == ap && x->elem && x->step == 1 && ap->dtype == d->dtype &&
                        !strcmp(row_of(e, ap, 0), drow);
            }
            if (!same)
                return 0;
        }
    }
    return 1;
}

/* The template's map of chain ch, its statements st[0..n) (chain_run): {kind
 * "chain", n (the loop's count), body[] (the members' instruction maps, each
 * with its position k), notes[] (the dropped ones')}. A value kept instead
 * of stored (chain_keeps) has its name at the writer's dst.keep and at the
 * reading sources' kept. */
static tpl_value *chain_map(E *e, const IrStmt *st, int n, const Chain *ch)
{
    tpl_value *m = new_map(e), *body = new_list(e), *notes = new_list(e);
    tpl_value *maps[EMIT_CHAIN_MAX];
    if (!m || !body || !notes)
        return NULL;
    int nm = 0;
    for (int i = 0; i < n; i++) {
        tpl_value *v = stmt(e, &st[i]);
        if (!v)
            return NULL;
        if (!current(e, st[i].inst)) {
            append(e, notes, v);
            continue;
        }
        put_int(e, v, "k", nm);
        maps[nm++] = v;
        append(e, body, v);
    }
    /* values are kept only in a chain that stores fp32 alone: rope's (bf16
     * stores) ran 0.028 ms storing its fp32 temporaries, 0.042 keeping them
     * (gcc's AVX-512 body merged the members' NaN masks into one chain of
     * mask operations) */
    int narrow = 0;
    for (int a = 0; a < nm; a++)
        narrow |= ch->mem[a]->dst.dtype != TG_FLOAT32;
    for (int a = 0; a < nm && !narrow; a++) {
        if (!chain_keeps(e, ch, a))
            continue;
        const IrAp *d = &ch->mem[a]->dst;
        const char *name = arena_printf(e->arena, "tg_v%d", a), *row = row_of(e, d, 0);
        tpl_value *dst = tpl_map_get(maps[a], "dst", 3);
        if (!name || !row || !dst) {
            e->oom = 1;
            return NULL;
        }
        put_str(e, dst, "keep", name);
        for (int b = a + 1; b < nm; b++) {
            const IrInst *r = ch->mem[b];
            tpl_value *src = tpl_map_get(maps[b], "src", 3);
            for (int i = 0; src && i < r->nsrc; i++)
                if (r->src[i].mem == d->mem && r->src[i].index == d->index && !strcmp(row_of(e, &r->src[i], 0), row)) {
                    tpl_value *o = tpl_list_get(src, (size_t)i);
                    if (o)
                        put_str(e, o, "kept", name);
                }
        }
    }
    put_str(e, m, "kind", "chain");
    put_int(e, m, "n", ch->count);
    put(e, m, "body", body);
    put(e, m, "notes", notes);
    return m;
}

static tpl_value *region(E *e, const IrStmt *st, int n, const Fuse *f)
{
    int lanes = 0;
    tpl_value *m = new_map(e), *l = new_list(e), *rl = rowlocal_scan(e, st, n, &lanes);
    if (!m || !l || !rl)
        return NULL;
    put_str(e, m, "kind", "region");
    int64_t pc;
    if (ir_expr_const(f->pc, &pc))
        put_int(e, m, "pcount", pc);
    else
        put(e, m, "pcount", str(e, "(%s)", cx(e, f->pc))); /* the statements' own, evaluated once */
    e->in_region = 1;
    for (int i = 0; i < n; i++) {
        Chain ch;
        int end = chain_run(e, st, i, n, &ch);
        tpl_value *v = end > i ? chain_map(e, st + i, end - i, &ch) : stmt(e, &st[i]);
        if (v)
            append(e, l, v);
        if (end > i)
            i = end - 1;
    }
    e->in_region = 0;
    memset(e->rowlocal, 0, (size_t)e->ir->ntiles + 1);
    put(e, m, "body", l);
    put(e, m, "rowlocal", rl);
    put_bool(e, m, "lanes", lanes); /* partitions in blocks of TG_LANES */
    return m;
}

/* A loop of a run of partition-local statements runs outside, its body's region
 * inside, partitions within each iteration, when every HBM access in it that
 * moves with the loop steps at least as far per iteration as from one
 * partition row to the next (a loop over 128-row blocks of row-major
 * tensors): the tensors are then walked in address order, not a row from
 * each block in turn (tensor_add 10 % faster). Per partition the
 * order of work is still the loop's (each iteration's statements for all
 * partitions is the spec's own order), so where the partition-outer order
 * is legal this one is too. Returns 1 to sink. */
static int sink_partitions(const E *e, const IrLoop *lp)
{
    const int nslots = e->ir->spec->nslots;
    int hbm = 0;
    if (lp->trip < 2 || nslots > 64)
        return 0;
    for (int id = lp->first; id <= lp->last; id++) {
        IrInst *in = current(e, e->ir->insts[id]);
        IrOperand ops[IR_MAX_OPERANDS];
        if (!in)
            continue;
        int nops = ir_operands(in, ops);
        for (int i = 0; i < nops; i++) {
            const IrAp *ap = ops[i].ap;
            int64_t coef[64] = {0}, c, st, ps;
            if (ap->mem != IR_MEM_HBM)
                continue;
            if (!expr_affine(ap->offset, nslots, coef, &c) || ap->istep)
                return 0;
            st = coef[lp->slot] * lp->step;
            st = st < 0 ? -st : st;
            ps = ap->pstep < 0 ? -ap->pstep : ap->pstep;
            if (!st)
                continue; /* the same elements every iteration: either order */
            if (st < ps)
                return 0;
            hbm = 1;
        }
    }
    return hbm;
}

/* 1 if statements st[0..n) run something: a loop, or an instruction the
 * back end did not drop (a forwarded load's place is a comment). */
static int stmts_live(E *e, const IrStmt *st, int n)
{
    for (int i = 0; i < n; i++)
        if (st[i].kind == IR_STMT_LOOP || current(e, st[i].inst))
            return 1;
    return 0;
}

static tpl_value *body(E *e, const IrStmt *st, int n)
{
    tpl_value *l = new_list(e);
    for (int i = 0; l && i < n;) {
        /* a matmul and the carried K loop after it: one call (matmul_fold) */
        tpl_value *mf = !e->in_region && i + 1 < n && st[i + 1].kind == IR_STMT_LOOP
                            ? matmul_fold(e, st[i + 1].loop, &st[i])
                            : NULL;
        if (mf) {
            append(e, l, mf);
            i += 2;
            continue;
        }
        Fuse f = e->in_region ? (Fuse){.poff = -1} : fuse_stmt(e, &st[i]);
        int j = i + 1;
        while (f.ok && j < n) {
            Fuse g = fuse_stmt(e, &st[j]);
            if (!fuse_merge(e, &f, &g))
                break;
            j++;
        }
        if (f.ok && f.pc && (j - i > 1 || st[i].kind == IR_STMT_LOOP)) {
            /* the run's loops that sink (sink_partitions) go on their own,
             * the statements between them in regions: regions of a part of
             * the run keep more of the spec's order, so they are legal too */
            int k0 = i;
            for (int k = i; k <= j; k++) {
                int sink = k < j && st[k].kind == IR_STMT_LOOP && sink_partitions(e, st[k].loop);
                if (k < j && !sink)
                    continue;
                if (k > k0 && (k - k0 > 1 || st[k0].kind == IR_STMT_LOOP) && stmts_live(e, &st[k0], k - k0)) {
                    tpl_value *v = region(e, &st[k0], k - k0, &f);
                    if (v)
                        append(e, l, v);
                } else {
                    for (int q = k0; q < k; q++) { /* one statement, or only dropped ones: no loop */
                        tpl_value *v = stmt(e, &st[q]);
                        if (v)
                            append(e, l, v);
                    }
                }
                if (sink) {
                    tpl_value *v = stmt(e, &st[k]); /* loop() forms the regions inside */
                    if (v)
                        append(e, l, v);
                }
                k0 = k + 1;
            }
        } else {
            for (int k = i; k < j; k++) {
                tpl_value *v = stmt(e, &st[k]);
                if (v)
                    append(e, l, v);
            }
        }
        i = j;
    }
    return l;
}

/* ---- the kernel ---------------------------------------------------------------- */

static tpl_value *tensors(E *e, const Spec *s)
{
    tpl_value *l = new_list(e);
    for (int i = 0; l && i < s->npublic; i++) { /* the caller's: views are addressed through their base */
        const SpecTensor *t = &s->tensors[i];
        tpl_value *m = new_map(e), *shape = new_list(e);
        if (!m || !shape)
            return NULL;
        put_str(e, m, "name", t->name);
        put_str(e, m, "cname", tensor_cname(e, t));
        put_str(e, m, "dtype", dtype_enums[t->dtype]);
        put_str(e, m, "spec_dtype", tg_dtype_name(t->dtype));
        put_str(e, m, "ctype", dtypes[t->dtype].ctype);
        put_int(e, m, "rank", t->rank);
        for (int d = 0; d < SPEC_MAX_RANK; d++)
            append(e, shape, tpl_int(e->ta, d < t->rank ? t->shape[d] : 0));
        put(e, m, "shape", shape);
        tpl_value *dims = new_list(e);
        for (int d = 0; dims && d < t->rank; d++)
            append(e, dims, tpl_int(e->ta, t->shape[d]));
        put(e, m, "dims", dims);
        put_bool(e, m, "is_output", t->is_output || t->is_scratch); /* written: no const */
        put_str(e, m, "kind", t->is_scratch ? "scratch" : t->is_output ? "output" : "input");
        put_int(e, m, "kind_id", t->is_scratch ? 2 : t->is_output); /* tg_tensor_desc.is_output */
        put_bool(e, m, "is_scratch", t->is_scratch);
        char *up = arena_printf(e->arena, "%s", t->name); /* for the scratch size macro */
        for (char *c = up; c && *c; c++)
            *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        put_str(e, m, "uname", up ? up : t->name);
        int64_t bytes = (int64_t)tg_dtype_size(t->dtype);
        for (int d = 0; d < t->rank; d++)
            bytes *= t->shape[d];
        put_int(e, m, "bytes", bytes);
        append(e, l, m);
    }
    return l;
}

tpl_value *emit_context(tpl_arena *ta, Arena *arena, const Ir *ir, const Plan *plan,
                        const EmitInfo *info, Diag *diag)
{
    E e = {.ta = ta, .arena = arena, .ir = ir, .plan = plan, .diag = diag};
    const Spec *s = ir->spec;
    if (fwd_analyze(arena, ir, &e.fwd))
        goto oom;
    keep_act_dsts(&e);
    e.ilanes = arena_alloc(arena, (size_t)ir->ninsts + 1);
    if (!e.ilanes)
        goto oom;
    memset(e.ilanes, 0, (size_t)ir->ninsts + 1);
    iter_lanes(&e, ir->body, ir->nbody);
    tpl_value *ctx = new_map(&e);
    if (!ctx)
        goto oom;
    put_str(&e, ctx, "kernel", s->kernel);
    char upper[256];
    size_t k = 0;
    for (; s->kernel[k] && k + 1 < sizeof upper; k++)
        upper[k] = (char)(s->kernel[k] >= 'a' && s->kernel[k] <= 'z' ? s->kernel[k] - 'a' + 'A' : s->kernel[k]);
    upper[k] = '\0';
    put_str(&e, ctx, "KERNEL", upper);
    put_str(&e, ctx, "doc", s->doc);
    put_str(&e, ctx, "spec", info->spec_name);
    put_str(&e, ctx, "version", info->version);
    put_str(&e, ctx, "tpl_h", info->tpl_h);
    put_str(&e, ctx, "tpl_c", info->tpl_c);
    put_str(&e, ctx, "target", s->target == TG_TRN2 ? "TG_TRN2" : "TG_TRN1");
    put_str(&e, ctx, "target_name", s->target == TG_TRN2 ? "trn2" : "trn1");
    put_int(&e, ctx, "sbuf_peak", plan->sbuf_peak);
    put_int(&e, ctx, "sbuf_capacity", plan->sbuf_capacity);
    put_int(&e, ctx, "psum_peak", plan->psum_peak);
    put_int(&e, ctx, "psum_capacity", plan->psum_capacity);
    put_int(&e, ctx, "psum_bank_bytes", TG_PSUM_BANK_BYTES);
    put(&e, ctx, "tensors", tensors(&e, s));
    /* programs per axis: the grid's, or one axis of the iterations of an
     * independent last loop (emit_progs.h); empty: one program */
    e.progs = emit_program_loop(ir);
    int64_t g[3] = {1, 1, 1}, rank = s->grid_rank;
    for (int a = 0; a < s->grid_rank; a++)
        g[a] = s->grid[a];
    if (e.progs) {
        g[0] = e.progs->trip;
        rank = 1;
    }
    put_str(&e, ctx, "progs_loop", e.progs ? where(&e, e.progs->loc) : ""); /* the loop, as kernel.h.j2 names it */
    tpl_value *grid = new_list(&e);
    for (int a = 0; grid && a < rank; a++)
        append(&e, grid, tpl_int(e.ta, g[a]));
    put(&e, ctx, "grid", grid);
    tpl_value *grid_n = new_list(&e);
    for (int a = 0; grid_n && a < 3; a++)
        append(&e, grid_n, tpl_int(e.ta, g[a]));
    put(&e, ctx, "grid_n", grid_n);
    put_int(&e, ctx, "cores", s->cores); /* physical cores axis 0 is spread over */
    int64_t span0, span1;
    spec_core_range(s, 0, &span0, &span1);
    if (e.progs) /* one core runs them all */
        span1 = span0 + g[0];
    put_int(&e, ctx, "core_span", span1 - span0); /* programs of axis 0 per core (the last may have fewer) */
    e.trips = 1;
    put(&e, ctx, "body", body(&e, ir->body, ir->nbody));
    tpl_value *gathers = new_list(&e); /* forwarded gathers: the indices each keeps (tg_ix<id>) */
    for (int i = 0; gathers && i < ir->ninsts; i++)
        if (e.fwd.check_only && e.fwd.check_only[i])
            append(&e, gathers, tpl_int(e.ta, i));
    put(&e, ctx, "gathers", gathers);
    act_tables(&e, ctx); /* after body: its matmuls and transposes */
    put_int(&e, ctx, "pe_floats", e.pe_floats);
    if (e.oom)
        goto oom;
    return e.errors ? NULL : ctx;
oom:
    diag_error(diag, (SrcLoc){s->file, 0, 0}, "E091", "out of memory while building the C back end's model");
    return NULL;
}
