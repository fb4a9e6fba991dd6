/* run_cmd.c - `tilegen run SPEC [-D N=V]... [--target T] [--in NAME=F.npy]...
 * [--out NAME=F.npy]... [--seed S] [--print-dir DIR]`: builds the spec's binary program (the
 * pipeline up to PIPE_PROGRAM, no C compiler), executes it on the ISS with the inputs read from
 * .npy files or seeded random, under an instruction budget (the program's
 * own work by default, --budget), writes the requested outputs all or none
 * (outfile.h) and prints a per-engine summary (SPEC.md §3). With --print-dir,
 * every print statement's region goes to DIR/<label>.<indices>.npy (all or
 * none, after the run) with a summary line each. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "driver.h"
#include "outfile.h"
#include "pipeline.h"
#include "run_cmd.h"
#include "run_index.h"
#include "tg_iss.h"
#include "host/tg_npy.h"
#include "tg_prog.h"

static const char run_usage[] =
    "usage: tilegen run SPEC [-D NAME=VALUE]... [--target T] [--in NAME=F.npy]... [--out NAME=F.npy]...\n"
    "                   [--seed S] [--budget N|none]\n"
    "Assemble SPEC and execute it on the instruction-set simulator; print a per-engine summary.\n"
    "\n"
    "  -D NAME=VALUE      set a parameter of the spec (an integer)\n"
    "      --target T     target NeuronCore: trn1 or trn2 (default: the spec's)\n"
    "      --in NAME=F    read input tensor NAME from the .npy file F; inputs without --in\n"
    "                     are seeded random (uniform in [-1, 1), integers in [-8, 8) or [0, 16));\n"
    "                     an integer input that feeds an index column is drawn in its range\n"
    "      --out NAME=F   write tensor NAME to F; all --out files are written or none\n"
    "      --seed S       seed of the random inputs (default 0)\n"
    "      --budget N     stop with an error after N instructions plus loop iterations;\n"
    "                     'none' for no limit (default: the program's own count, refused\n"
    "                     up front above 2^32)\n"
    "      --print-dir DIR  save each print statement's region as DIR/LABEL.I0.I1...npy (the\n"
    "                     indices of its loops, outermost first) and print a summary line of\n"
    "                     each (min, max, mean of its finite values); without it prints are silent\n"
    "  -h, --help         this text\n"
    "\n"
    ".npy storage per SPEC.md 3: float32 as <f4, bfloat16/float16 as raw bits <u2, float8 as |u1.\n";

/* NAME=FILE arguments of --in / --out. */
typedef struct RunFile {
    const char *name; /* tensor name (points into argv) */
    size_t nlen;      /* its length */
    const char *file; /* the .npy path */
    int used;         /* matched a tensor */
} RunFile;

typedef struct RunCli {
    SpecOptions opt;   /* -D / --target */
    const char *spec;  /* the spec */
    RunFile *in, *out; /* --in / --out */
    int nin, nout;
    uint64_t seed;     /* --seed */
    uint64_t budget;   /* --budget (0 = the default, UINT64_MAX = none) */
    const char *print_dir; /* --print-dir, or NULL */
} RunCli;

static int parse_file_arg(const char *a, RunFile *f)
{
    const char *eq = strchr(a, '=');
    if (!eq || eq == a || !eq[1])
        return -1;
    f->name = a;
    f->nlen = (size_t)(eq - a);
    f->file = eq + 1;
    f->used = 0;
    return 0;
}

/* 0 to go on, 2 after an error, -1 after --help. */
static int parse(int argc, char **argv, RunCli *c)
{
    static const struct option lo[] = {
        {"target", required_argument, NULL, CLI_OPT_TARGET}, {"in", required_argument, NULL, CLI_OPT_IN},
        {"out", required_argument, NULL, CLI_OPT_OUT},       {"seed", required_argument, NULL, CLI_OPT_SEED},
        {"budget", required_argument, NULL, CLI_OPT_BUDGET}, {"print-dir", required_argument, NULL, CLI_OPT_PRINT_DIR},
        {"help", no_argument, NULL, 'h'},         {0, 0, 0, 0}};
    CliParser cp = {"run", argc, argv, "D:h", lo, ""};
    c->opt.defines = calloc((size_t)argc + 1, sizeof *c->opt.defines);
    c->in = calloc((size_t)argc + 1, sizeof *c->in);
    c->out = calloc((size_t)argc + 1, sizeof *c->out);
    if (!c->opt.defines || !c->in || !c->out) {
        cli_error("out of memory");
        return 2;
    }
    int ch;
    while ((ch = cli_next_spec(&cp, &c->opt)) != -1) {
        char *end = NULL;
        switch (ch) {
        case 'h':
            fputs(run_usage, stdout);
            return -1;
        case CLI_OPT_IN:
            if (parse_file_arg(optarg, &c->in[c->nin++]))
                return cli_usage_error("run", "--in wants NAME=FILE.npy, got '%s'", optarg);
            break;
        case CLI_OPT_OUT:
            if (parse_file_arg(optarg, &c->out[c->nout++]))
                return cli_usage_error("run", "--out wants NAME=FILE.npy, got '%s'", optarg);
            break;
        case CLI_OPT_SEED:
            errno = 0;
            c->seed = strtoull(optarg, &end, 0);
            if (!*optarg || *end || errno || *optarg == '-')
                return cli_usage_error("run", "--seed wants an unsigned integer, got '%s'", optarg);
            break;
        case CLI_OPT_BUDGET:
            if (cli_parse_budget("run", optarg, &c->budget))
                return 2;
            break;
        case CLI_OPT_PRINT_DIR:
            if (!*optarg)
                return cli_usage_error("run", "--print-dir wants a directory");
            c->print_dir = optarg;
            break;
        default:
            return 2;
        }
    }
    return cli_one_operand("run", argc, argv, "spec", &c->spec);
}

/* The --in/--out entry naming tensor `name`, or NULL. */
static RunFile *find_file(RunFile *f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strlen(name) == f[i].nlen && !memcmp(f[i].name, name, f[i].nlen))
            return &f[i];
    return NULL;
}

/* xorshift64*: the same stream for the same seed on every host. */
static uint32_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (uint32_t)((*s * 0x2545f4914f6cdd1dull) >> 32);
}

/* Seeded values in tensor t's storage: floats uniform in [-1, 1) (24 random
 * bits, then rounded to the dtype), integers in [-8, 8) or [0, 16). */
static void fill_random(void *data, const tg_prog_tensor *t, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = next_rand(s);
        float v;
        if (tg_dtype_is_float(t->dtype))
            v = (float)((int32_t)(r >> 8) - (1 << 23)) / (float)(1 << 23);
        else
            v = (float)(r >> 28) - (tg_dtype_is_signed_int(t->dtype) ? 8.0f : 0.0f);
        tg_store_f32(data, t->dtype, i, v);
    }
}

/* Seeded integers uniform in [0, hi) in tensor t's storage (an index input,
 * run_index.h); hi is at most the dtype's largest value + 1. */
static void fill_index(void *data, const tg_prog_tensor *t, size_t n, uint64_t hi, uint64_t *s)
{
    size_t es = tg_dtype_size(t->dtype);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)(((uint64_t)next_rand(s) * hi) >> 32);
        unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                              (unsigned char)(v >> 24)};
        memcpy((unsigned char *)data + i * es, b, es); /* little-endian storage (docs/storage.md) */
    }
}

/* The largest value + 1 an integer dtype holds (non-negative side). */
static uint64_t int_span(tg_dtype dt)
{
    size_t bits = tg_dtype_size(dt) * 8 - (tg_dtype_is_signed_int(dt) ? 1 : 0);
    return (uint64_t)1 << bits;
}

/* The range an index input is drawn from: [0, hi). An input reaching an
 * index column only through ops run_index.c does not invert starts at 16
 * and shrinks by 4 on each retry after TG_EBOUNDS (try 0, 1, 2: 16, 4, 1). */
static uint64_t index_hi(const RunIndexUse *u, tg_dtype dt, int try)
{
    uint64_t hi = u->bound > 0 ? (uint64_t)u->bound : 16;
    if (u->opaque) {
        uint64_t cap = try >= 2 ? 1 : try == 1 ? 4 : 16;
        hi = hi < cap ? hi : cap;
    }
    uint64_t span = int_span(dt);
    return hi < span ? hi : span;
}

/* After TG_EBOUNDS: draw again, from a smaller range, the index inputs with
 * no known bound (RunIndexUse.opaque), and give the outputs and scratch
 * their start content again. Returns 0 when there is none to draw. */
static int redraw_opaque(const tg_prog *p, const RunIndexUse *use, const unsigned char *drawn, void **tensors,
                         uint64_t state0, int try)
{
    int any = 0;
    for (uint32_t i = 0; i < p->npublic; i++) {
        tg_prog_tensor t;
        tg_prog_get_tensor(p, i, &t);
        size_t n = 1;
        for (uint32_t d = 0; d < t.rank; d++)
            n *= t.shape[d];
        if (t.is_output) {
            memset(tensors[i], t.kind == TG_TENSOR_SCRATCH ? 0xff : 0, n * tg_dtype_size(t.dtype));
        } else if (drawn[i] && use[i].opaque) {
            uint64_t s = state0 ^ ((uint64_t)(i + 1) << 32 | (uint64_t)try);
            uint64_t hi = index_hi(&use[i], t.dtype, try);
            fill_index(tensors[i], &t, n, hi, &s);
            printf("  %s: an index out of range; index values drawn again in [0, %llu)\n", t.name,
                   (unsigned long long)hi);
            any = 1;
        }
    }
    return any;
}

static const char *iss_error(int rc)
{
    switch (rc) {
    case TG_EPROGRAM: return "malformed program";
    case TG_EBOUNDS: return "an access outside SBUF, PSUM or a tensor, or an index column value out of range (give such inputs with --in)";
    case TG_EDEADLOCK: return "every engine waits on a semaphore nobody signals";
    case TG_ELIMIT: return "instruction budget exhausted";
    case TG_ETARGET: return "program for another target";
    case TG_EALIAS: return "an output overlaps another tensor";
    default: return "error";
    }
}

/* The --out files: the tensors' .npy bytes staged together, renamed only
 * when all of them could be written. 0 or 2 (message printed). */
static int write_outputs(const RunCli *c, const tg_prog *p, void *const *tensors)
{
    OutSet set;
    outfile_init(&set);
    int rc = 0;
    unsigned char *buf = NULL;
    for (uint32_t i = 0; !rc && i < p->ntensors; i++) {
        tg_prog_tensor t;
        tg_prog_get_tensor(p, i, &t);
        for (int k = 0; !rc && k < c->nout; k++) {
            const RunFile *f = &c->out[k];
            if (strlen(t.name) != f->nlen || memcmp(f->name, t.name, f->nlen))
                continue;
            size_t bytes = tg_dtype_size(t.dtype);
            for (uint32_t d = 0; d < t.rank; d++)
                bytes *= t.shape[d];
            free(buf);
            size_t n;
            if (!(buf = malloc(TG_NPY_HEADER_MAX + bytes))) {
                cli_error("out of memory");
                rc = 2;
            } else if (!(n = tg_npy_header(buf, TG_NPY_HEADER_MAX, t.dtype, t.shape, t.rank))) {
                cli_error("cannot write '%s': no .npy header for tensor '%s'", f->file, t.name);
                rc = 2;
            } else {
                memcpy(buf + n, tensors[t.base], bytes); /* a view: its base's bytes */
                if (outfile_stage(&set, f->file, buf, n + bytes)) {
                    cli_error("%s", set.msg);
                    rc = 2;
                }
            }
        }
    }
    free(buf);
    if (!rc && outfile_commit(&set)) {
        cli_error("%s", set.msg);
        rc = 2;
    }
    for (int k = 0; !rc && k < c->nout; k++)
        printf("  wrote %s (%.*s)\n", c->out[k].file, (int)c->out[k].nlen, c->out[k].name);
    outfile_free(&set);
    return rc;
}

/* ---- prints (--print-dir) ---------------------------------------------------- */

/* What the print callback collects during a run. */
typedef struct RunPrints {
    const char *dir; /* --print-dir */
    OutSet set;      /* the .npy files, committed after a successful run */
    unsigned long n; /* prints seen */
    int failed;      /* staging failed (set.msg): later prints are skipped */
} RunPrints;

/* The print callback (tg_core_set_print): the region packed into a .npy
 * staged as DIR/<label>.<i0>.<i1>...npy, and its summary line. */
static void on_print(void *ctx, const tg_print_info *pi)
{
    RunPrints *rp = ctx;
    if (rp->failed)
        return;
    rp->n++;
    char name[512];
    int len = snprintf(name, sizeof name, "%s", pi->label);
    for (uint32_t k = 0; k < pi->depth && len > 0 && (size_t)len < sizeof name; k++)
        len += snprintf(name + len, sizeof name - (size_t)len, ".%lld", (long long)pi->index[k]);
    uint32_t shape[TG_PRINT_MAX_RANK];
    char dims[128];
    int dl = 0;
    for (uint32_t d = 0; d < pi->rank && d < TG_PRINT_MAX_RANK; d++) {
        shape[d] = (uint32_t)pi->shape[d];
        dl += snprintf(dims + dl, sizeof dims - (size_t)dl, "%s%lld", d ? ", " : "", (long long)pi->shape[d]);
    }
    size_t bytes = tg_print_bytes(pi), es = tg_dtype_size(pi->dtype);
    char *path = malloc(strlen(rp->dir) + strlen(name) + 8);
    unsigned char *buf = malloc(TG_NPY_HEADER_MAX + (bytes ? bytes : 1));
    size_t hn = buf ? tg_npy_header(buf, TG_NPY_HEADER_MAX, pi->dtype, shape, pi->rank) : 0;
    if (!path || !buf || !hn) {
        snprintf(rp->set.msg, sizeof rp->set.msg, "cannot save print '%s': %s", name,
                 !path || !buf ? "out of memory" : "no .npy header for it");
        rp->failed = 1;
        free(path);
        free(buf);
        return;
    }
    sprintf(path, "%s/%s.npy", rp->dir, name);
    tg_print_pack(pi, buf + hn);
    double sum = 0.0, lo = INFINITY, hi = -INFINITY;
    size_t nf = 0, n = es ? bytes / es : 0;
    for (size_t i = 0; i < n; i++) {
        double v = tg_load_f32(buf + hn, pi->dtype, i);
        if (!isfinite(v))
            continue;
        nf++;
        sum += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (nf)
        printf("  print %s (line %u): %s [%s], min %.9g, max %.9g, mean %.9g", name, (unsigned)pi->line,
               tg_dtype_name(pi->dtype), dims, lo, hi, sum / (double)nf);
    else
        printf("  print %s (line %u): %s [%s], no finite values", name, (unsigned)pi->line, tg_dtype_name(pi->dtype),
               dims);
    if (nf < n)
        printf(" (%zu of %zu finite)", nf, n);
    putchar('\n');
    if (outfile_stage(&rp->set, path, buf, hn + bytes))
        rp->failed = 1;
    free(path);
    free(buf);
}

/* Execute prog with c's inputs and outputs; returns the exit code. */
static int execute(const RunCli *c, const Ir *ir, const uint8_t *prog, size_t size)
{
    tg_prog p;
    if (tg_prog_decode(&p, prog, size)) {
        cli_error("the assembled program does not decode");
        return 2;
    }
    int rc = 2;
    RunPrints prints = {0};
    RunIndexUse *use = NULL;     /* per input: its index uses (run_index.h) */
    unsigned char *drawn = NULL; /* per tensor: an index input drawn here */
    outfile_init(&prints.set);
    void **tensors = calloc(p.npublic ? p.npublic : 1, sizeof *tensors);
    tg_core *core = malloc(sizeof *core);
    size_t mem_bytes = tg_iss_core_bytes(&p); /* the program's SBUF/PSUM rows and PE staging */
    void *mem = malloc(mem_bytes);
    if (!tensors || !core || !mem) {
        cli_error("out of memory");
        goto out;
    }
    uint64_t state = c->seed * 0x9e3779b97f4a7c15ull + 0x243f6a8885a308d3ull;
    const uint64_t state0 = state;
    const Spec *sp = ir->spec;
    use = calloc(sp->ninputs ? (size_t)sp->ninputs : 1, sizeof *use);
    drawn = calloc(p.npublic ? p.npublic : 1, 1); /* index inputs drawn here */
    if (!use || !drawn) {
        cli_error("out of memory");
        goto out;
    }
    run_index_uses(ir, use);
    for (uint32_t i = 0; i < p.ntensors; i++) {
        tg_prog_tensor t;
        tg_prog_get_tensor(&p, i, &t);
        for (int k = 0; k < c->nout; k++)
            if (strlen(t.name) == c->out[k].nlen && !memcmp(c->out[k].name, t.name, c->out[k].nlen))
                c->out[k].used = 1;
        if (i >= p.npublic)
            continue; /* a view: its base's storage */
        size_t n = 1;
        for (uint32_t d = 0; d < t.rank; d++)
            n *= t.shape[d];
        size_t bytes = n * tg_dtype_size(t.dtype);
        if (!(tensors[i] = calloc(bytes ? bytes : 1, 1))) {
            cli_error("out of memory for tensor '%s'", t.name);
            goto out;
        }
        RunFile *f = find_file(c->in, c->nin, t.name);
        if (f) {
            f->used = 1;
            char err[512];
            if (t.is_output) {
                cli_error("--in %s: '%s' is %s of the kernel", f->file, t.name,
                          t.kind == TG_TENSOR_SCRATCH ? "scratch" : "an output");
                goto out;
            }
            if (tg_npy_read(f->file, t.dtype, t.shape, t.rank, tensors[i], bytes, err, sizeof err)) {
                cli_error("%s", err);
                goto out;
            }
        } else if (!t.is_output && (int)i < sp->ninputs && (use[i].bound || use[i].opaque)) {
            uint64_t hi = index_hi(&use[i], t.dtype, 0);
            fill_index(tensors[i], &t, n, hi, &state);
            drawn[i] = 1;
            printf("  %s: index values drawn in [0, %llu)\n", t.name, (unsigned long long)hi);
        } else if (!t.is_output) {
            fill_random(tensors[i], &t, n, &state);
        } else if (t.kind == TG_TENSOR_SCRATCH) {
            memset(tensors[i], 0xff, bytes); /* undefined at kernel start: NaNs, never read (E078) */
        }
    }
    for (int i = 0; i < c->nin; i++)
        if (!c->in[i].used) {
            cli_error("--in names '%.*s', which is no tensor of the kernel", (int)c->in[i].nlen, c->in[i].name);
            goto out;
        }
    for (int i = 0; i < c->nout; i++)
        if (!c->out[i].used) {
            cli_error("--out names '%.*s', which is no tensor of the kernel", (int)c->out[i].nlen,
                      c->out[i].name);
            goto out;
        }

    if (c->print_dir) {
        char msg[4400];
        if (outfile_mkdirs(c->print_dir, msg, sizeof msg)) {
            cli_error("--print-dir: %s", msg);
            goto out;
        }
        prints.dir = c->print_dir;
    }

    tg_iss_stats st;
    uint64_t work = tg_iss_work(&p);
    struct timespec t0, t1;
    int r;
    for (int try = 0;; try++) {
        memset(&st, 0, sizeof st);
        st.limit = c->budget; /* 0: the default, the program's own work */
        r = tg_core_init_storage(core, p.target, mem, mem_bytes);
        if (!r && prints.dir)
            r = tg_core_set_print(core, on_print, &prints);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (!r)
            r = tg_iss_exec(core, prog, size, tensors, &st);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (r != TG_EBOUNDS || try == 2 || !redraw_opaque(&p, use, drawn, tensors, state0, try + 1))
            break;
        outfile_free(&prints.set); /* the failed run's prints */
        outfile_init(&prints.set);
        prints.n = 0;
        prints.failed = 0;
    }
    if (r == TG_ELIMIT) {
        cli_budget_error("tilegen run", c->budget ? c->budget : work > TG_ISS_DEFAULT_CAP ? 0 : work, work,
                         st.insts + st.loop_iters);
        goto out;
    }
    if (r) {
        cli_error("ISS error %d (%s) at instruction %u", r, iss_error(r), st.fault_pc);
        goto out;
    }
    if (prints.failed || (prints.dir && outfile_commit(&prints.set))) {
        cli_error("%s", prints.set.msg);
        goto out;
    }
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    printf("%s: %u instructions, %llu executed in %.3f ms on the ISS\n", tg_prog_str(&p, p.kernel), p.ninsts,
           (unsigned long long)st.insts, ms);
    printf("  %-6s %12s %14s %14s %10s\n", "engine", "insts", "elements", "dma bytes", "stalls");
    for (int e = 0; e < TG_ENG_COUNT; e++) {
        const tg_iss_engine_stats *es = &st.eng[e];
        if (es->insts || es->loop_iters)
            printf("  %-6s %12llu %14llu %14llu %10llu\n", tg_isa_engine_prefix[e], (unsigned long long)es->insts,
                   (unsigned long long)es->elems, (unsigned long long)es->dma_bytes, (unsigned long long)es->stalls);
    }
    if (prints.dir)
        printf("  saved %lu print%s in %s\n", prints.n, prints.n == 1 ? "" : "s", prints.dir);
    rc = write_outputs(c, &p, tensors);
out:
    outfile_free(&prints.set);
    free(use);
    free(drawn);
    for (uint32_t i = 0; tensors && i < p.npublic; i++)
        free(tensors[i]);
    free(tensors);
    free(core);
    free(mem);
    return rc;
}

int run_cmd_main(const char *argv0, int argc, char **argv)
{
    RunCli c;
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c);
    char tplbuf[4096], where[8192];
    const char *tpldir = rc ? NULL : pipe_find_templates(argv0, tplbuf, sizeof tplbuf, where, sizeof where);
    if (!rc && !tpldir) {
        cli_error("%s", where);
        rc = 2;
    }
    if (!rc) {
        PipeRequest rq = {c.spec, &c.opt, PIPE_PROGRAM, tpldir};
        Pipe p;
        rc = pipe_run(&p, &rq);
        diag_print(&p.diag, stderr);
        if (rc == 2)
            cli_error_text(p.msg);
        if (!rc)
            rc = execute(&c, p.ir, p.prog, p.prog_len);
        pipe_free(&p);
    }
    free(c.opt.defines);
    free(c.in);
    free(c.out);
    return rc < 0 ? 0 : rc;
}
