/* run_cmd.c - `tilegen run SPEC [-D N=V]... [--target T] [--in NAME=F.npy]...
 * [--out NAME=F.npy]... [--seed S]`: builds the spec's binary program (the
 * pipeline up to PIPE_PROGRAM, no C compiler), executes it on the ISS with the inputs read from
 * .npy files or seeded random, writes the requested outputs and prints a
 * per-engine summary (SPEC.md §3). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "pipeline.h"
#include "run_cmd.h"
#include "tg_iss.h"
#include "host/tg_npy.h"
#include "tg_prog.h"

static const char run_usage[] =
    "usage: tilegen run SPEC [-D N=V]... [--target T] [--in NAME=F.npy]... [--out NAME=F.npy]... [--seed S]\n"
    "  inputs without --in are seeded random (uniform in [-1, 1), integers in [-8, 8) or [0, 16));\n"
    "  .npy storage per SPEC.md §3 (bfloat16/float16 as raw bits <u2, float8 as |u1)\n";

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
} RunCli;

static int run_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "tilegen run: %s%s\n%s", msg, arg, run_usage);
    return 2;
}

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

static int parse(int argc, char **argv, RunCli *c)
{
    c->opt.defines = calloc((size_t)argc + 1, sizeof *c->opt.defines);
    c->in = calloc((size_t)argc + 1, sizeof *c->in);
    c->out = calloc((size_t)argc + 1, sizeof *c->out);
    if (!c->opt.defines || !c->in || !c->out)
        return run_usage_error("out of memory", "");
    for (int i = 1; i < argc; i++) {
        char msg[256];
        int r = driver_spec_option(argc, argv, &i, &c->opt, msg, sizeof msg);
        if (r < 0)
            return run_usage_error(msg, "");
        if (r > 0)
            continue;
        const char *a = argv[i];
        int is_in = !strcmp(a, "--in"), is_out = !strcmp(a, "--out");
        if (is_in || is_out) {
            RunFile *f = is_in ? &c->in[c->nin] : &c->out[c->nout];
            if (i + 1 >= argc || parse_file_arg(argv[i + 1], f))
                return run_usage_error(is_in ? "--in wants NAME=FILE.npy" : "--out wants NAME=FILE.npy", "");
            if (is_in)
                c->nin++;
            else
                c->nout++;
            i++;
        } else if (!strcmp(a, "--seed")) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            char *end = NULL;
            errno = 0;
            c->seed = strtoull(v, &end, 0);
            if (!*v || *end || errno || *v == '-')
                return run_usage_error("--seed wants an unsigned integer, got ", v);
        } else if (a[0] == '-' && a[1]) {
            return run_usage_error("unknown option ", a);
        } else if (c->spec) {
            return run_usage_error("one spec at a time; extra argument ", a);
        } else {
            c->spec = a;
        }
    }
    if (!c->spec)
        return run_usage_error("no spec given", "");
    return 0;
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

static const char *iss_error(int rc)
{
    switch (rc) {
    case TG_EPROGRAM: return "malformed program";
    case TG_EBOUNDS: return "an access outside SBUF, PSUM or a tensor";
    case TG_EDEADLOCK: return "every engine waits on a semaphore nobody signals";
    case TG_ELIMIT: return "instruction budget exhausted";
    case TG_ETARGET: return "program for another target";
    case TG_EALIAS: return "an output overlaps another tensor";
    default: return "error";
    }
}

/* Execute prog with c's inputs and outputs; returns the exit code. */
static int execute(const RunCli *c, const uint8_t *prog, size_t size)
{
    tg_prog p;
    if (tg_prog_decode(&p, prog, size)) {
        fprintf(stderr, "tilegen run: the assembled program does not decode\n");
        return 2;
    }
    int rc = 2;
    void **tensors = calloc(p.ntensors ? p.ntensors : 1, sizeof *tensors);
    tg_core *core = malloc(sizeof *core);
    if (!tensors || !core) {
        fprintf(stderr, "tilegen run: out of memory\n");
        goto out;
    }
    uint64_t state = c->seed * 0x9e3779b97f4a7c15ull + 0x243f6a8885a308d3ull;
    for (uint32_t i = 0; i < p.ntensors; i++) {
        tg_prog_tensor t;
        tg_prog_get_tensor(&p, i, &t);
        size_t n = 1;
        for (uint32_t d = 0; d < t.rank; d++)
            n *= t.shape[d];
        size_t bytes = n * tg_dtype_size(t.dtype);
        if (!(tensors[i] = calloc(bytes ? bytes : 1, 1))) {
            fprintf(stderr, "tilegen run: out of memory for tensor '%s'\n", t.name);
            goto out;
        }
        RunFile *f = find_file(c->in, c->nin, t.name);
        if (f) {
            f->used = 1;
            char err[512];
            if (t.is_output) {
                fprintf(stderr, "tilegen run: --in %s: '%s' is an output of the kernel\n", f->file, t.name);
                goto out;
            }
            if (tg_npy_read(f->file, t.dtype, t.shape, t.rank, tensors[i], bytes, err, sizeof err)) {
                fprintf(stderr, "tilegen run: %s\n", err);
                goto out;
            }
        } else if (!t.is_output) {
            fill_random(tensors[i], &t, n, &state);
        }
        if ((f = find_file(c->out, c->nout, t.name)))
            f->used = 1;
    }
    for (int i = 0; i < c->nin; i++)
        if (!c->in[i].used) {
            fprintf(stderr, "tilegen run: --in names '%.*s', which is no tensor of the kernel\n", (int)c->in[i].nlen,
                    c->in[i].name);
            goto out;
        }
    for (int i = 0; i < c->nout; i++)
        if (!c->out[i].used) {
            fprintf(stderr, "tilegen run: --out names '%.*s', which is no tensor of the kernel\n",
                    (int)c->out[i].nlen, c->out[i].name);
            goto out;
        }

    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    struct timespec t0, t1;
    int r = tg_core_init(core, p.target);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!r)
        r = tg_iss_exec(core, prog, size, tensors, &st);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r) {
        fprintf(stderr, "tilegen run: ISS error %d (%s) at instruction %u\n", r, iss_error(r), st.fault_pc);
        goto out;
    }
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    printf("%s: %u instructions, %llu executed in %.3f ms on the ISS\n", tg_prog_str(&p, p.kernel), p.ninsts,
           (unsigned long long)st.insts, ms);
    printf("  %-6s %12s %14s %14s %10s\n", "engine", "insts", "elements", "dma bytes", "stalls");
    for (int e = 0; e < TG_ENG_COUNT; e++) {
        const tg_iss_engine_stats *s = &st.eng[e];
        if (s->insts || s->loop_iters)
            printf("  %-6s %12llu %14llu %14llu %10llu\n", tg_isa_engine_prefix[e], (unsigned long long)s->insts,
                   (unsigned long long)s->elems, (unsigned long long)s->dma_bytes, (unsigned long long)s->stalls);
    }
    rc = 0;
    for (uint32_t i = 0; i < p.ntensors; i++) {
        tg_prog_tensor t;
        tg_prog_get_tensor(&p, i, &t);
        RunFile *f = find_file(c->out, c->nout, t.name);
        char err[512];
        if (f && tg_npy_write(f->file, t.dtype, t.shape, t.rank, tensors[i], err, sizeof err)) {
            fprintf(stderr, "tilegen run: %s\n", err);
            rc = 2;
        } else if (f) {
            printf("  wrote %s (%s)\n", f->file, t.name);
        }
    }
out:
    for (uint32_t i = 0; tensors && i < p.ntensors; i++)
        free(tensors[i]);
    free(tensors);
    free(core);
    return rc;
}

int run_cmd_main(const char *argv0, int argc, char **argv)
{
    RunCli c;
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c);
    if (!rc) {
        char tplbuf[4096];
        PipeRequest rq = {c.spec, &c.opt, PIPE_PROGRAM, pipe_find_templates(argv0, tplbuf, sizeof tplbuf)};
        Pipe p;
        rc = pipe_run(&p, &rq);
        diag_print(&p.diag, stderr);
        if (rc == 2)
            fprintf(stderr, "tilegen run: %s", p.msg);
        if (!rc)
            rc = execute(&c, p.prog, p.prog_len);
        pipe_free(&p);
    }
    free(c.opt.defines);
    free(c.in);
    free(c.out);
    return rc;
}
