/* test_iss.c - cmocka tests of the ISS (runtime/tg_iss): small programs built
 * byte by byte with a builder that follows tg_isa.h's layout, one per opcode
 * family with exact expected outputs, the engine scheduler (semaphores,
 * deadlock, budget, statistics), and malformed programs or accesses rejected
 * with the right TG_E* code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "tg_alu.h"
#include "tg_iss.h"
#include "tg_iss_row.h"
#include "tg_ops.h"
#include "tg_prog.h"
#include "tg_sim.h"

TG_CORE_STATIC(core, TG_CORE_BYTES_MAX); /* any program fits (~32 MB): static */

/* ---- program builder ---------------------------------------------------------- */

typedef struct B {
    uint8_t tens[8][TG_ISA_TENSOR_BYTES];
    uint8_t tiles[8][TG_ISA_TILE_BYTES];
    uint8_t insts[256][TG_ISA_INST_BYTES];
    uint8_t ops[128][TG_ISA_OPERAND_BYTES];
    uint8_t imms[256][TG_ISA_IMM_BYTES];
    char str[512];
    uint8_t expr[2048];
    int nt, ntl, ni, no, nm, ns, nx;
    uint32_t kernel, spec, version;
    uint8_t out[32768]; /* the assembled program */
    size_t size;
} B;

static B b;

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v), put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v), put32(p + 4, (uint32_t)(v >> 32)); }

static uint32_t b_str(const char *s)
{
    uint32_t off = (uint32_t)b.ns;
    size_t n = strlen(s) + 1;
    memcpy(b.str + b.ns, s, n);
    b.ns += (int)n;
    return off;
}

static void b_init(void)
{
    memset(&b, 0, sizeof b);
    b.kernel = b_str("k");
    b.spec = b_str("t.yaml");
    b.version = b_str("0.0");
}

/* Expression: the constant v. */
static uint32_t X(int64_t v)
{
    uint32_t off = (uint32_t)b.nx;
    b.expr[b.nx++] = TG_X_CONST;
    put64(b.expr + b.nx, (uint64_t)v);
    b.nx += 8;
    b.expr[b.nx++] = TG_X_END;
    return off;
}

/* Expression: raw postfix bytecode (END appended). */
static uint32_t XB(const uint8_t *code, int n)
{
    uint32_t off = (uint32_t)b.nx;
    memcpy(b.expr + b.nx, code, (size_t)n);
    b.nx += n;
    b.expr[b.nx++] = TG_X_END;
    return off;
}

/* Expression: k * r + c (r a loop register). */
static uint32_t XR(int64_t k, int r, int64_t c)
{
    uint8_t code[32];
    int n = 0;
    code[n++] = TG_X_REG;
    code[n++] = (uint8_t)r;
    code[n++] = TG_X_CONST;
    put64(code + n, (uint64_t)k);
    n += 8;
    code[n++] = TG_X_MUL;
    code[n++] = TG_X_CONST;
    put64(code + n, (uint64_t)c);
    n += 8;
    code[n++] = TG_X_ADD;
    return XB(code, n);
}

static int b_tensor(const char *name, tg_dtype dt, int is_output, uint32_t d0, uint32_t d1)
{
    uint8_t *r = b.tens[b.nt];
    put32(r, b_str(name));
    r[4] = (uint8_t)dt;
    r[5] = (uint8_t)is_output;
    r[6] = d1 ? 2 : 1;
    put32(r + 8, d0);
    put32(r + 12, d1);
    return b.nt++;
}

static int b_tile(const char *name, tg_isa_space sp, tg_dtype dt, uint32_t bufs, uint32_t base, uint32_t slot,
                  uint32_t pstart, uint32_t pcount, uint32_t d0, uint32_t d1)
{
    uint8_t *r = b.tiles[b.ntl];
    put32(r, b_str(name));
    r[4] = (uint8_t)sp;
    r[5] = (uint8_t)dt;
    r[6] = (uint8_t)bufs;
    r[7] = 2;
    put32(r + 8, base);
    put32(r + 12, slot);
    put32(r + 16, pstart);
    put32(r + 20, pcount);
    put32(r + 24, d0);
    put32(r + 28, d1);
    return b.ntl++;
}

static void b_inst(tg_isa_op op, tg_isa_engine eng)
{
    uint8_t *r = b.insts[b.ni++];
    memset(r, 0, TG_ISA_INST_BYTES);
    r[0] = (uint8_t)op;
    r[1] = (uint8_t)eng;
    put32(r + 4, (uint32_t)b.no);
    put32(r + 8, (uint32_t)b.nm);
    put32(r + 12, 7);
}

/* An operand of the current instruction: nfree dims (step, num expr). */
static void b_op(tg_isa_role role, tg_isa_space sp, tg_dtype dt, int index, int32_t pstep, uint32_t bufx,
                 uint32_t pstartx, uint32_t pcountx, uint32_t offx, int nfree, const int32_t *steps,
                 const uint32_t *nums)
{
    uint8_t *r = b.ops[b.no++];
    memset(r, 0, TG_ISA_OPERAND_BYTES);
    r[0] = (uint8_t)role;
    r[1] = (uint8_t)sp;
    r[2] = (uint8_t)dt;
    r[3] = (uint8_t)nfree;
    put16(r + 4, (uint32_t)index);
    put32(r + 8, (uint32_t)pstep);
    put32(r + 12, bufx);
    put32(r + 16, pstartx);
    put32(r + 20, pcountx);
    put32(r + 24, offx);
    for (int k = 0; k < nfree; k++) {
        put32(r + 28 + 8 * k, (uint32_t)steps[k]);
        put32(r + 32 + 8 * k, nums[k]);
    }
    b.insts[b.ni - 1][2]++;
}

/* A contiguous [pcount, n] view of a tile at element offset `eoff`. */
static void b_tap(tg_isa_role role, int tile, tg_dtype dt, int64_t pstart, int64_t pcount, int64_t eoff, int64_t n)
{
    int32_t st[1] = {1};
    uint32_t nm[1] = {X(n)};
    tg_isa_space sp = (tg_isa_space)b.tiles[tile][4];
    b_op(role, sp, dt, tile, 1, X(0), X(pstart), X(pcount), X(eoff * (int64_t)tg_dtype_size(dt)), 1, st, nm);
}

/* A [pcount, n] row-major view of an HBM tensor: row `row0`, `n` columns. */
static void b_hap(tg_isa_role role, int t, int64_t row0, int64_t pcount, int64_t cols, int64_t n)
{
    int32_t st[1] = {1};
    uint32_t nm[1] = {X(n)};
    tg_dtype dt = (tg_dtype)b.tens[t][4];
    b_op(role, TG_SPACE_HBM, dt, t, (int32_t)cols, X(0), X(0), X(pcount), X(row0 * cols * (int64_t)tg_dtype_size(dt)),
         1, st, nm);
}

static void b_imm(tg_isa_imm key, uint64_t v)
{
    uint8_t *r = b.imms[b.nm++];
    memset(r, 0, TG_ISA_IMM_BYTES);
    r[0] = (uint8_t)key;
    put64(r + 4, v);
    b.insts[b.ni - 1][3]++;
}

static uint64_t fbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void b_loop(int reg, int64_t start, int64_t stop, int64_t step)
{
    b_inst(TG_OP_LOOP, TG_ENG_SYNC);
    b_imm(TG_IMM_REG, (uint64_t)reg);
    b_imm(TG_IMM_VAR, b_str("i"));
    b_imm(TG_IMM_START, (uint64_t)start);
    b_imm(TG_IMM_STOP, (uint64_t)stop);
    b_imm(TG_IMM_STEP, (uint64_t)step);
}

static void b_endloop(int reg)
{
    b_inst(TG_OP_ENDLOOP, TG_ENG_SYNC);
    b_imm(TG_IMM_REG, (uint64_t)reg);
}

static void b_sync(tg_isa_op op, tg_isa_engine eng, int sem)
{
    b_inst(op, eng);
    b_imm(TG_IMM_SEM, (uint64_t)sem);
}

/* Lay the tables out (tg_isa.h) into b.out and seal it with the checksum. */
static void b_finish(void)
{
    uint8_t *h = b.out;
    size_t off = TG_ISA_HEADER_BYTES;
#define APPEND(src, n)                                 \
    do {                                               \
        memcpy(b.out + off, (src), (size_t)(n));       \
        off += (size_t)(n);                            \
    } while (0)
    memset(b.out, 0, sizeof b.out);
    APPEND(b.tens, b.nt * TG_ISA_TENSOR_BYTES);
    APPEND(b.tiles, b.ntl * TG_ISA_TILE_BYTES);
    APPEND(b.insts, b.ni * TG_ISA_INST_BYTES);
    APPEND(b.ops, b.no * TG_ISA_OPERAND_BYTES);
    APPEND(b.imms, b.nm * TG_ISA_IMM_BYTES);
    size_t stroff = off;
    APPEND(b.str, b.ns);
    size_t xoff = off;
    APPEND(b.expr, b.nx);
#undef APPEND
    memcpy(h, "TGNC", 4);
    put16(h + 4, TG_ISA_VERSION_MAJOR);
    put16(h + 6, TG_ISA_VERSION_MINOR);
    put32(h + 8, (uint32_t)off);
    h[16] = TG_TRN1;
    h[17] = (uint8_t)b.nt;
    h[18] = (uint8_t)b.ntl;
    put32(h + 20, (uint32_t)b.ni);
    put32(h + 24, (uint32_t)b.no);
    put32(h + 28, (uint32_t)b.nm);
    put32(h + 32, (uint32_t)stroff);
    put32(h + 36, (uint32_t)b.ns);
    put32(h + 40, (uint32_t)xoff);
    put32(h + 44, (uint32_t)b.nx);
    put32(h + 48, b.kernel);
    put32(h + 52, b.spec);
    put32(h + 56, b.version);
    b.size = off;
    put32(h + 12, tg_prog_checksum(b.out, b.size));
}

static void reseal(void) { put32(b.out + 12, tg_prog_checksum(b.out, b.size)); }

static int run(void *const *t, tg_iss_stats *st)
{
    assert_int_equal(tg_core_init(&core, TG_TRN1), 0);
    return tg_iss_exec(&core, b.out, b.size, t, st);
}

static int same_bits(float a, float b2) { return tg_f32_bits(a) == tg_f32_bits(b2); }

/* ---- element-wise families ---------------------------------------------------- */

enum { P = 4, F = 8 };

/* c = a + b over [P*2, F] in a loop of two [P, F] tiles, double-buffered,
 * DMA and DVE synchronised by semaphores (s0: loaded, s1: computed). */
static void build_add(int with_sync)
{
    b_init();
    int ta = b_tensor("a", TG_FLOAT32, 0, 2 * P, F), tb = b_tensor("b", TG_FLOAT32, 0, 2 * P, F);
    int tc = b_tensor("c", TG_FLOAT32, 1, 2 * P, F);
    int xa = b_tile("xa", TG_SPACE_SBUF, TG_FLOAT32, 2, 0, F * 4, 0, P, P, F);
    int xb = b_tile("xb", TG_SPACE_SBUF, TG_FLOAT32, 2, 2 * F * 4, F * 4, 0, P, P, F);
    int xc = b_tile("xc", TG_SPACE_SBUF, TG_FLOAT32, 2, 4 * F * 4, F * 4, 0, P, P, F);
    int32_t st[1] = {1};
    uint32_t nm[1];
    b_loop(0, 0, 2, 1);
    for (int k = 0; k < 2; k++) { /* dma.load xa/xb[i] <- a/b[i*P : i*P+P, :] */
        b_inst(TG_OP_LOAD, TG_ENG_DMA);
        nm[0] = X(F);
        b_op(TG_ROLE_DST, TG_SPACE_SBUF, TG_FLOAT32, k ? xb : xa, 1, XR(1, 0, 0), X(0), X(P), X(0), 1, st, nm);
        b_op(TG_ROLE_SRC, TG_SPACE_HBM, TG_FLOAT32, k ? tb : ta, F, X(0), X(0), X(P), XR(P * F * 4, 0, 0), 1, st,
             nm);
    }
    if (with_sync) {
        b_sync(TG_OP_SIGNAL, TG_ENG_DMA, 0);
        b_sync(TG_OP_WAIT, TG_ENG_DVE, 0);
    }
    b_inst(TG_OP_TENSOR_TENSOR, TG_ENG_DVE);
    b_imm(TG_IMM_OP, TG_ALU_ADD);
    nm[0] = X(F);
    b_op(TG_ROLE_DST, TG_SPACE_SBUF, TG_FLOAT32, xc, 1, XR(1, 0, 0), X(0), X(P), X(0), 1, st, nm);
    b_op(TG_ROLE_A, TG_SPACE_SBUF, TG_FLOAT32, xa, 1, XR(1, 0, 0), X(0), X(P), X(0), 1, st, nm);
    b_op(TG_ROLE_B, TG_SPACE_SBUF, TG_FLOAT32, xb, 1, XR(1, 0, 0), X(0), X(P), X(0), 1, st, nm);
    if (with_sync) {
        b_sync(TG_OP_SIGNAL, TG_ENG_DVE, 1);
        b_sync(TG_OP_WAIT, TG_ENG_DMA, 1);
    }
    b_inst(TG_OP_STORE, TG_ENG_DMA);
    b_op(TG_ROLE_DST, TG_SPACE_HBM, TG_FLOAT32, tc, F, X(0), X(0), X(P), XR(P * F * 4, 0, 0), 1, st, nm);
    b_op(TG_ROLE_SRC, TG_SPACE_SBUF, TG_FLOAT32, xc, 1, XR(1, 0, 0), X(0), X(P), X(0), 1, st, nm);
    b_endloop(0);
    b_finish();
}

static float A[2 * P * F], Bv[2 * P * F], C[2 * P * F];

static void fill_ab(void)
{
    for (int i = 0; i < 2 * P * F; i++) {
        A[i] = (float)i * 0.37f - 3.0f;
        Bv[i] = 1.0f / (float)(i + 3);
        C[i] = -1.0f;
    }
}

static void test_add_pipeline_with_semaphores(void **state)
{
    (void)state;
    build_add(1);
    fill_ab();
    void *t[3] = {A, Bv, C};
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(run(t, &st), 0);
    for (int i = 0; i < 2 * P * F; i++)
        assert_true(same_bits(C[i], A[i] + Bv[i]));
    /* per engine: DMA 2 x (2 loads + signal + wait + store), DVE 2 x (wait + add + signal) */
    assert_int_equal(st.eng[TG_ENG_DMA].insts, 10);
    assert_int_equal(st.eng[TG_ENG_DVE].insts, 6);
    assert_int_equal(st.eng[TG_ENG_PE].insts, 0);
    assert_int_equal(st.insts, 16);
    assert_int_equal(st.eng[TG_ENG_DVE].elems, 2 * P * F);
    assert_int_equal(st.eng[TG_ENG_DMA].elems, 3 * 2 * P * F);
    assert_int_equal(st.eng[TG_ENG_DMA].dma_bytes, 3 * 2 * P * F * 4);
    assert_true(st.eng[TG_ENG_DMA].stalls + st.eng[TG_ENG_DVE].stalls > 0);
    assert_int_equal(st.fault_engine, -1);
}

/* Without the semaphores DVE's first add runs in the first round, before
 * DMA's second load: it reads the sentinel (NaN), so sync is what makes the
 * result right. */
static void test_add_without_sync_reads_unloaded_tile(void **state)
{
    (void)state;
    build_add(0);
    fill_ab();
    void *t[3] = {A, Bv, C};
    assert_int_equal(run(t, NULL), 0);
    assert_true(isnan(C[0]));
}

/* Everything before completes before anything after: each engine signals
 * every engine's semaphore base+e, then waits once per engine on its own. */
static void b_barrier(int base)
{
    static const tg_isa_engine eng[] = {TG_ENG_DMA, TG_ENG_PE, TG_ENG_DVE, TG_ENG_ACT, TG_ENG_POOL};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            b_sync(TG_OP_SIGNAL, eng[i], base + j);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            b_sync(TG_OP_WAIT, eng[i], base + i);
}

/* One-instruction program of an element-wise op on a [P, F] fp32 tile pair
 * preloaded from tensor x; the result stored to y. `emit` adds the op. */
static float X0[P * F], Y0[P * F], Z0[P * 2];

static void build_unary(void (*emit)(int src, int dst, int aux))
{
    b_init();
    int tx = b_tensor("x", TG_FLOAT32, 0, P, F), ty = b_tensor("y", TG_FLOAT32, 1, P, F);
    int tz = b_tensor("z", TG_FLOAT32, 1, P, 2);
    int s = b_tile("s", TG_SPACE_SBUF, TG_FLOAT32, 1, 0, F * 4, 0, P, P, F);
    int d = b_tile("d", TG_SPACE_SBUF, TG_FLOAT32, 1, F * 4, F * 4, 0, P, P, F);
    int aux = b_tile("aux", TG_SPACE_SBUF, TG_FLOAT32, 1, 2 * F * 4, 2 * 4, 0, P, P, 2);
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    b_tap(TG_ROLE_DST, s, TG_FLOAT32, 0, P, 0, F);
    b_hap(TG_ROLE_SRC, tx, 0, P, F, F);
    b_inst(TG_OP_MEMSET, TG_ENG_DVE); /* aux[:, 0] = 0.5, aux[:, 1] = 2 */
    b_imm(TG_IMM_VALUE, fbits(0.5));
    b_tap(TG_ROLE_DST, aux, TG_FLOAT32, 0, P, 0, 1);
    b_inst(TG_OP_MEMSET, TG_ENG_DVE);
    b_imm(TG_IMM_VALUE, fbits(2.0));
    b_tap(TG_ROLE_DST, aux, TG_FLOAT32, 0, P, 1, 1);
    b_barrier(10);
    emit(s, d, aux);
    b_barrier(20);
    b_inst(TG_OP_STORE, TG_ENG_DMA);
    b_hap(TG_ROLE_DST, ty, 0, P, F, F);
    b_tap(TG_ROLE_SRC, d, TG_FLOAT32, 0, P, 0, F);
    b_inst(TG_OP_STORE, TG_ENG_DMA);
    b_hap(TG_ROLE_DST, tz, 0, P, 2, 2);
    b_tap(TG_ROLE_SRC, aux, TG_FLOAT32, 0, P, 0, 2);
    b_finish();
}

static void run_unary(void (*emit)(int, int, int))
{
    build_unary(emit);
    for (int i = 0; i < P * F; i++) {
        X0[i] = (float)(i % 7) * 0.75f - 2.0f + (float)i / 64.0f;
        Y0[i] = 99.0f;
    }
    void *t[3] = {X0, Y0, Z0};
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    int rc = run(t, &st);
    assert_int_equal(rc, 0);
}

static void emit_act(int s, int d, int aux)
{
    b_inst(TG_OP_ACTIVATION, TG_ENG_ACT); /* d = square(s * 0.5 + aux[:,1]); aux[:,0] = sum */
    b_imm(TG_IMM_FUNC, TG_ACT_SQUARE);
    b_imm(TG_IMM_SCALE_NUM, fbits(0.5));
    b_imm(TG_IMM_REDUCE_OP, TG_ALU_ADD);
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_BIAS, aux, TG_FLOAT32, 0, P, 1, 1);
    b_tap(TG_ROLE_REDUCE_DST, aux, TG_FLOAT32, 0, P, 0, 1);
}

static void test_activation_scale_bias_reduce(void **state)
{
    (void)state;
    run_unary(emit_act);
    for (int p = 0; p < P; p++) {
        float sum = -0.0f;
        for (int j = 0; j < F; j++) {
            float u = X0[p * F + j] * 0.5f;
            u = u + 2.0f;
            float y = u * u;
            assert_true(same_bits(Y0[p * F + j], y));
            sum = sum + y;
        }
        assert_true(same_bits(Z0[p * 2], sum));
        assert_true(same_bits(Z0[p * 2 + 1], 2.0f));
    }
}

static void emit_ts(int s, int d, int aux)
{
    b_inst(TG_OP_TENSOR_SCALAR, TG_ENG_DVE); /* d = aux[:,1] - (s * 3) */
    b_imm(TG_IMM_OP0, TG_ALU_MULTIPLY);
    b_imm(TG_IMM_OPERAND0_NUM, fbits(3.0));
    b_imm(TG_IMM_OP1, TG_ALU_SUBTRACT);
    b_imm(TG_IMM_REVERSE1, 1);
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_OPERAND1, aux, TG_FLOAT32, 0, P, 1, 1);
}

static void test_tensor_scalar_reverse(void **state)
{
    (void)state;
    run_unary(emit_ts);
    for (int i = 0; i < P * F; i++) {
        float t = X0[i] * 3.0f;
        assert_true(same_bits(Y0[i], 2.0f - t));
    }
}

static void emit_reduce(int s, int d, int aux)
{
    (void)d;
    b_inst(TG_OP_TENSOR_REDUCE, TG_ENG_DVE); /* aux[:,0] = -max(s) */
    b_imm(TG_IMM_OP, TG_ALU_MAXIMUM);
    b_imm(TG_IMM_NEGATE, 1);
    b_tap(TG_ROLE_DST, aux, TG_FLOAT32, 0, P, 0, 1);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
}

static void test_tensor_reduce_negate(void **state)
{
    (void)state;
    run_unary(emit_reduce);
    for (int p = 0; p < P; p++) {
        float mx = X0[p * F];
        for (int j = 1; j < F; j++)
            mx = X0[p * F + j] > mx ? X0[p * F + j] : mx;
        assert_true(same_bits(Z0[p * 2], -mx));
    }
}

static void emit_scan(int s, int d, int aux)
{
    b_inst(TG_OP_TENSOR_TENSOR_SCAN, TG_ENG_DVE); /* r = (s[j] + r) * 1; r0 = aux[:,0] */
    b_imm(TG_IMM_OP0, TG_ALU_ADD);
    b_imm(TG_IMM_OP1, TG_ALU_MULTIPLY);
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_A, s, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_B, aux, TG_FLOAT32, 0, P, 1, 1); /* broadcast [P,1]: times 2 */
    b_tap(TG_ROLE_INITIAL, aux, TG_FLOAT32, 0, P, 0, 1);
}

static void test_scan_with_broadcast_operand(void **state)
{
    (void)state;
    run_unary(emit_scan);
    for (int p = 0; p < P; p++) {
        float r = 0.5f;
        for (int j = 0; j < F; j++) {
            float t = X0[p * F + j] + r;
            r = t * 2.0f;
            assert_true(same_bits(Y0[p * F + j], r));
        }
    }
}

static void emit_recip_strided(int s, int d, int aux)
{
    (void)aux;
    /* d[:, j] = 1 / s[:, F-1-j]: a negative free step */
    int32_t st[1] = {-1};
    uint32_t nm[1] = {X(F)};
    b_inst(TG_OP_RECIPROCAL, TG_ENG_DVE);
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, F);
    b_op(TG_ROLE_SRC, TG_SPACE_SBUF, TG_FLOAT32, s, 1, X(0), X(0), X(P), X((F - 1) * 4), 1, st, nm);
}

static void test_reciprocal_negative_step(void **state)
{
    (void)state;
    run_unary(emit_recip_strided);
    for (int p = 0; p < P; p++)
        for (int j = 0; j < F; j++)
            assert_true(same_bits(Y0[p * F + j], 1.0f / X0[p * F + F - 1 - j]));
}

/* iota d = expr(p, f) over the [P, F] fp32 tile d. */
static void b_iota(int d, const uint8_t *code, int n)
{
    b_inst(TG_OP_IOTA, TG_ENG_POOL);
    b_imm(TG_IMM_EXPR, XB(code, n));
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, F);
}

static void emit_iota(int s, int d, int aux)
{
    (void)s;
    (void)aux;
    static const uint8_t code[] = {TG_X_P, TG_X_CONST, 100, 0, 0, 0, 0, 0, 0, 0, TG_X_MUL, TG_X_F, TG_X_SUB};
    b_iota(d, code, (int)sizeof code); /* d = 100 p - f */
}

static void test_iota_partition_and_free_index(void **state)
{
    (void)state;
    run_unary(emit_iota);
    for (int p = 0; p < P; p++)
        for (int j = 0; j < F; j++)
            assert_true(same_bits(Y0[p * F + j], (float)(100 * p - j)));
}

/* affine_select d = lhs cmp rhs ? s : fill over the [P, F] tiles. */
static void b_select(int s, int d, const uint8_t *lhs, int nl, tg_cmp cmp, const uint8_t *rhs, int nr, double fill)
{
    b_inst(TG_OP_AFFINE_SELECT, TG_ENG_POOL);
    b_imm(TG_IMM_LHS, XB(lhs, nl));
    b_imm(TG_IMM_CMP, cmp);
    b_imm(TG_IMM_RHS, XB(rhs, nr));
    b_imm(TG_IMM_FILL, fbits(fill));
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
}

static void emit_select(int s, int d, int aux)
{
    (void)aux;
    static const uint8_t lhs[] = {TG_X_P, TG_X_CONST, 2, 0, 0, 0, 0, 0, 0, 0, TG_X_ADD};
    static const uint8_t rhs[] = {TG_X_F};
    /* d = p + 2 >= f ? s : -inf */
    b_select(s, d, lhs, (int)sizeof lhs, TG_CMP_GE, rhs, (int)sizeof rhs, -INFINITY);
}

static void test_affine_select_causal(void **state)
{
    (void)state;
    run_unary(emit_select);
    for (int p = 0; p < P; p++)
        for (int j = 0; j < F; j++)
            assert_true(same_bits(Y0[p * F + j], p + 2 >= j ? X0[p * F + j] : -INFINITY));
}

static void emit_select_mod(int s, int d, int aux)
{
    (void)aux;
    static const uint8_t lhs[] = {TG_X_F, TG_X_CONST, 3, 0, 0, 0, 0, 0, 0, 0, TG_X_MOD};
    static const uint8_t rhs[] = {TG_X_P, TG_X_CONST, 1, 0, 0, 0, 0, 0, 0, 0, TG_X_SUB};
    /* d = f mod 3 == p - 1 ? s : 7 (not affine in f) */
    b_select(s, d, lhs, (int)sizeof lhs, TG_CMP_EQ, rhs, (int)sizeof rhs, 7.0);
}

static void test_affine_select_non_affine_predicate(void **state)
{
    (void)state;
    run_unary(emit_select_mod);
    for (int p = 0; p < P; p++)
        for (int j = 0; j < F; j++)
            assert_true(same_bits(Y0[p * F + j], j % 3 == p - 1 ? X0[p * F + j] : 7.0f));
}

static void emit_iota_square(int s, int d, int aux)
{
    (void)s;
    (void)aux;
    static const uint8_t code[] = {TG_X_F, TG_X_F, TG_X_MUL, TG_X_P, TG_X_SUB};
    b_iota(d, code, (int)sizeof code); /* d = f*f - p */
}

static void test_iota_quadratic(void **state)
{
    (void)state;
    run_unary(emit_iota_square);
    for (int p = 0; p < P; p++)
        for (int j = 0; j < F; j++)
            assert_true(same_bits(Y0[p * F + j], (float)(j * j - p)));
}

/* f * 2^62 overflows int64 from f = 2 on: the row's affine form is refused
 * and the per-element evaluation reports the overflow. */
static void emit_iota_overflow(int s, int d, int aux)
{
    (void)s;
    (void)aux;
    static const uint8_t code[] = {TG_X_F, TG_X_CONST, 0, 0, 0, 0, 0, 0, 0, 0x40, TG_X_MUL};
    b_iota(d, code, (int)sizeof code); /* d = f * 2^62 */
}

static void test_iota_overflow_is_an_error(void **state)
{
    (void)state;
    build_unary(emit_iota_overflow);
    void *t[3] = {X0, Y0, Z0};
    assert_int_equal(run(t, NULL), TG_EPROGRAM);
}

static void emit_bn(int s, int d, int aux)
{
    (void)aux;
    b_inst(TG_OP_BN_STATS, TG_ENG_DVE); /* d[:, 0:6] = bn_stats(s) */
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, 6);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
    b_inst(TG_OP_BN_AGGR, TG_ENG_DVE); /* d[:, 6:8] = bn_aggr(d[:, 0:6]) */
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 6, 2);
    b_tap(TG_ROLE_SRC, d, TG_FLOAT32, 0, P, 0, 6);
}

static void test_bn_stats_aggr(void **state)
{
    (void)state;
    run_unary(emit_bn);
    for (int p = 0; p < P; p++) {
        float st[6], ag[2];
        assert_int_equal(tg_bn_stats_f32(st, X0 + p * F, F), 0);
        assert_int_equal(tg_bn_aggr_f32(ag, st, 6), 0);
        for (int k = 0; k < 6; k++)
            assert_true(same_bits(Y0[p * F + k], st[k]));
        assert_true(same_bits(Y0[p * F + 6], ag[0]));
        assert_true(same_bits(Y0[p * F + 7], ag[1]));
        /* and the values are the statistics: mean and population variance */
        double mean = 0, var = 0;
        for (int j = 0; j < F; j++)
            mean += X0[p * F + j] / (double)F;
        for (int j = 0; j < F; j++)
            var += (X0[p * F + j] - mean) * (X0[p * F + j] - mean) / F;
        assert_true(fabs(Y0[p * F + 6] - mean) < 1e-5 && fabs(Y0[p * F + 7] - var) < 1e-4);
    }
}

static void emit_cast_roundtrip(int s, int d, int aux)
{
    (void)aux;
    /* bf16 copy of s in d's bytes, then back to fp32 into d */
    b_inst(TG_OP_TENSOR_COPY, TG_ENG_DVE);
    b_tap(TG_ROLE_DST, d, TG_BFLOAT16, 0, P, 0, F);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
    b_sync(TG_OP_SIGNAL, TG_ENG_DVE, 3);
    b_sync(TG_OP_WAIT, TG_ENG_ACT, 3);
    b_inst(TG_OP_ACTIVATION, TG_ENG_ACT); /* copy: x * 1 + 0 */
    b_imm(TG_IMM_FUNC, TG_ACT_COPY);
    b_tap(TG_ROLE_DST, s, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_SRC, d, TG_BFLOAT16, 0, P, 0, F);
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 2);
    b_sync(TG_OP_WAIT, TG_ENG_DVE, 2);
    b_inst(TG_OP_TENSOR_COPY, TG_ENG_DVE);
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
}

static void test_cast_through_bf16(void **state)
{
    (void)state;
    run_unary(emit_cast_roundtrip);
    for (int i = 0; i < P * F; i++)
        assert_true(same_bits(Y0[i], tg_bf16_to_f32(tg_f32_to_bf16(X0[i]))));
}

static void emit_preduce(int s, int d, int aux)
{
    (void)aux;
    b_inst(TG_OP_PARTITION_REDUCE, TG_ENG_POOL); /* d[0, :] = sum over p of s[p, :] */
    b_tap(TG_ROLE_DST, d, TG_FLOAT32, 0, 1, 0, F);
    b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
    b_imm(TG_IMM_OP, TG_ALU_ADD);
}

static void test_partition_reduce(void **state)
{
    (void)state;
    run_unary(emit_preduce);
    for (int j = 0; j < F; j++) {
        float r = X0[j];
        for (int p = 1; p < P; p++)
            r = r + X0[p * F + j];
        assert_true(same_bits(Y0[j], r));
    }
}

/* ---- Tensor engine -------------------------------------------------------------- */

enum { K = 3, M = 2, N = 5 };

/* out[M,N] = sT[K,M]^T m[K,N] twice accumulated in PSUM (so 2x), then
 * transpose of it into outT[N,M]. */
static void build_pe(void)
{
    b_init();
    int ts = b_tensor("sT", TG_BFLOAT16, 0, K, M), tm = b_tensor("m", TG_BFLOAT16, 0, K, N);
    int to = b_tensor("out", TG_FLOAT32, 1, M, N), tt = b_tensor("outT", TG_FLOAT32, 1, N, M);
    int xs = b_tile("xs", TG_SPACE_SBUF, TG_BFLOAT16, 1, 0, 64, 0, K, K, M);
    int xm = b_tile("xm", TG_SPACE_SBUF, TG_BFLOAT16, 1, 64, 64, 0, K, K, N);
    int ps = b_tile("ps", TG_SPACE_PSUM, TG_FLOAT32, 1, 2048, 2048, 0, M, M, N);
    int pt = b_tile("pt", TG_SPACE_PSUM, TG_FLOAT32, 1, 4096, 2048, 0, N, N, M);
    int xo = b_tile("xo", TG_SPACE_SBUF, TG_FLOAT32, 1, 128, 64, 0, N, M, N);
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    b_tap(TG_ROLE_DST, xs, TG_BFLOAT16, 0, K, 0, M);
    b_hap(TG_ROLE_SRC, ts, 0, K, M, M);
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    b_tap(TG_ROLE_DST, xm, TG_BFLOAT16, 0, K, 0, N);
    b_hap(TG_ROLE_SRC, tm, 0, K, N, N);
    b_sync(TG_OP_SIGNAL, TG_ENG_DMA, 0);
    b_sync(TG_OP_WAIT, TG_ENG_PE, 0);
    b_loop(0, 0, 2, 1);
    b_inst(TG_OP_MATMUL, TG_ENG_PE);
    b_imm(TG_IMM_ACCUMULATE, 1);
    b_tap(TG_ROLE_DST, ps, TG_FLOAT32, 0, M, 0, N);
    b_tap(TG_ROLE_STATIONARY, xs, TG_BFLOAT16, 0, K, 0, M);
    b_tap(TG_ROLE_MOVING, xm, TG_BFLOAT16, 0, K, 0, N);
    b_endloop(0);
    b_sync(TG_OP_SIGNAL, TG_ENG_PE, 1);
    b_sync(TG_OP_WAIT, TG_ENG_DVE, 1);
    b_inst(TG_OP_TENSOR_COPY, TG_ENG_DVE); /* PSUM -> SBUF */
    b_tap(TG_ROLE_DST, xo, TG_FLOAT32, 0, M, 0, N);
    b_tap(TG_ROLE_SRC, ps, TG_FLOAT32, 0, M, 0, N);
    b_sync(TG_OP_SIGNAL, TG_ENG_DVE, 2);
    b_sync(TG_OP_WAIT, TG_ENG_PE, 2);
    b_inst(TG_OP_TRANSPOSE, TG_ENG_PE);
    b_tap(TG_ROLE_DST, pt, TG_FLOAT32, 0, N, 0, M);
    b_tap(TG_ROLE_SRC, xo, TG_FLOAT32, 0, M, 0, N);
    b_sync(TG_OP_SIGNAL, TG_ENG_PE, 3);
    b_sync(TG_OP_WAIT, TG_ENG_DMA, 3);
    b_sync(TG_OP_WAIT, TG_ENG_DMA, 3);
    b_inst(TG_OP_STORE, TG_ENG_DMA);
    b_hap(TG_ROLE_DST, to, 0, M, N, N);
    b_tap(TG_ROLE_SRC, xo, TG_FLOAT32, 0, M, 0, N);
    b_inst(TG_OP_DMA_COPY, TG_ENG_DMA);
    b_hap(TG_ROLE_DST, tt, 0, N, M, M);
    b_tap(TG_ROLE_SRC, pt, TG_FLOAT32, 0, N, 0, M);
    b_sync(TG_OP_SIGNAL, TG_ENG_PE, 3); /* second signal for DMA's second wait */
    b_finish();
}

static void test_matmul_accumulate_and_transpose(void **state)
{
    (void)state;
    build_pe();
    uint16_t s[K * M], mv[K * N];
    float out[M * N], outT[N * M];
    for (int i = 0; i < K * M; i++)
        s[i] = tg_f32_to_bf16((float)(i + 1) * 0.5f);
    for (int i = 0; i < K * N; i++)
        mv[i] = tg_f32_to_bf16((float)(i % 4) - 1.5f);
    void *t[4] = {s, mv, out, outT};
    assert_int_equal(tg_core_init(&core, TG_TRN1), 0);
    /* PSUM starts as the sentinel: accumulate onto it would give NaN, so
     * zero the storage (PSUM with it) the way a kernel's first matmul would */
    memset(core_storage, 0, sizeof core_storage);
    core.magic = TG_CORE_MAGIC;
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, t, &st), 0);
    for (int mi = 0; mi < M; mi++)
        for (int n = 0; n < N; n++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += (double)tg_bf16_to_f32(s[k * M + mi]) * tg_bf16_to_f32(mv[k * N + n]);
            assert_true(out[mi * N + n] == (float)(2 * acc)); /* small integers / halves: exact */
            assert_true(same_bits(outT[n * M + mi], out[mi * N + n]));
        }
    assert_int_equal(st.eng[TG_ENG_PE].insts, 2 + 1 + 2 + 3); /* 2 matmul, transpose, 2 waits, 3 signals */
    assert_int_equal(st.eng[TG_ENG_PE].elems, 2 * M * N + N * M);
}

/* ---- errors --------------------------------------------------------------------- */

static void test_malformed_programs(void **state)
{
    (void)state;
    build_add(1);
    fill_ab();
    void *t[3] = {A, Bv, C};
    assert_int_equal(tg_core_init(&core, TG_TRN1), 0);
    /* truncated */
    assert_int_equal(tg_iss_exec(&core, b.out, b.size - 1, t, NULL), TG_EPROGRAM);
    assert_int_equal(tg_iss_exec(&core, b.out, 10, t, NULL), TG_EPROGRAM);
    /* checksum */
    b.out[b.size - 3] ^= 1;
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, t, NULL), TG_EPROGRAM);
    b.out[b.size - 3] ^= 1;
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, t, NULL), 0);
    /* bad opcode, resealed */
    size_t inst0 = TG_ISA_HEADER_BYTES + 3 * TG_ISA_TENSOR_BYTES + 3 * TG_ISA_TILE_BYTES;
    uint8_t save = b.out[inst0 + TG_ISA_INST_BYTES];
    b.out[inst0 + TG_ISA_INST_BYTES] = TG_OP_COUNT;
    reseal();
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, t, NULL), TG_EPROGRAM);
    b.out[inst0 + TG_ISA_INST_BYTES] = save;
    reseal();
    /* wrong core / arguments */
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, NULL, NULL), TG_EINVAL);
    void *t2[3] = {A, NULL, C};
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, t2, NULL), TG_EINVAL);
    assert_int_equal(tg_core_init(&core, TG_TRN2), 0);
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, t, NULL), TG_ETARGET);
    core.magic = 0;
    assert_int_equal(tg_iss_exec(&core, b.out, b.size, t, NULL), TG_ECORE);
}

/* A load whose SBUF offset or HBM row is only out of range at run time. */
static void build_oob(int what)
{
    b_init();
    int tx = b_tensor("x", TG_FLOAT32, 0, P, F), ty = b_tensor("y", TG_FLOAT32, 1, P, F);
    int s = b_tile("s", TG_SPACE_SBUF, TG_FLOAT32, 1, 0, F * 4, 0, P, P, F);
    int32_t st[1] = {1};
    uint32_t nm[1] = {X(F)};
    b_loop(0, 0, 2, 1);
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    if (what == 0) /* tile byte offset 4*i: the second iteration leaves the slot */
        b_op(TG_ROLE_DST, TG_SPACE_SBUF, TG_FLOAT32, s, 1, X(0), X(0), X(P), XR(4, 0, 0), 1, st, nm);
    else if (what == 1) /* partitions i .. i+P: past the tile's P partitions */
        b_op(TG_ROLE_DST, TG_SPACE_SBUF, TG_FLOAT32, s, 1, X(0), XR(1, 0, 0), X(P), X(0), 1, st, nm);
    else
        b_tap(TG_ROLE_DST, s, TG_FLOAT32, 0, P, 0, F);
    if (what == 2) /* HBM rows i .. i+P of a P-row tensor */
        b_op(TG_ROLE_SRC, TG_SPACE_HBM, TG_FLOAT32, tx, F, X(0), X(0), X(P), XR(F * 4, 0, 0), 1, st, nm);
    else if (what == 3) /* writes the input tensor */
        b_hap(TG_ROLE_SRC, ty, 0, P, F, F);
    else
        b_hap(TG_ROLE_SRC, tx, 0, P, F, F);
    b_endloop(0);
    if (what == 3) {
        b_inst(TG_OP_STORE, TG_ENG_DMA);
        b_hap(TG_ROLE_DST, tx, 0, P, F, F);
        b_tap(TG_ROLE_SRC, s, TG_FLOAT32, 0, P, 0, F);
    }
    b_finish();
}

static void test_out_of_bounds_at_run_time(void **state)
{
    (void)state;
    float x[P * F], y[P * F];
    void *t[2] = {x, y};
    memset(x, 0, sizeof x);
    for (int w = 0; w < 4; w++) {
        build_oob(w);
        tg_iss_stats st;
        memset(&st, 0, sizeof st);
        assert_int_equal(run(t, &st), TG_EBOUNDS);
        assert_int_equal(st.fault_engine, TG_ENG_DMA);
        assert_int_equal(st.fault_pc, w == 3 ? 3 : 1);
    }
}

static void test_deadlock_and_budget(void **state)
{
    (void)state;
    float x[P * F], y[P * F];
    void *t[2] = {x, y};
    /* DVE waits on s5, which nobody signals */
    build_oob(0);
    b.ni = 0, b.no = 0, b.nm = 0;
    b_sync(TG_OP_WAIT, TG_ENG_DVE, 5);
    b_sync(TG_OP_SIGNAL, TG_ENG_DVE, 6);
    b_finish();
    assert_int_equal(run(t, NULL), TG_EDEADLOCK);
    /* two engines each waiting on the other */
    b.ni = 0, b.no = 0, b.nm = 0;
    b_sync(TG_OP_WAIT, TG_ENG_ACT, 1);
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 2);
    b_sync(TG_OP_WAIT, TG_ENG_POOL, 2);
    b_sync(TG_OP_SIGNAL, TG_ENG_POOL, 1);
    b_finish();
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(run(t, &st), TG_EDEADLOCK);
    assert_true(st.eng[TG_ENG_ACT].stalls > 0 && st.eng[TG_ENG_POOL].stalls > 0);
    /* a long signal loop stops at the budget */
    b.ni = 0, b.no = 0, b.nm = 0;
    b_loop(0, 0, (int64_t)1 << 40, 1);
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 1);
    b_endloop(0);
    b_finish();
    memset(&st, 0, sizeof st);
    st.limit = 1000;
    assert_int_equal(run(t, &st), TG_ELIMIT);
    assert_true(st.insts + st.loop_iters == 1000);
}

/* ---- the ISS's contract (docs/iss.md): one program per property ------------- */

/* Each value breaks exactly one property of a program that otherwise decodes
 * and runs (C_OK). Static ones fail tg_prog_decode (TG_EPROGRAM), C_RUN_*
 * only resolve at run time (TG_EBOUNDS). */
enum {
    C_OK,
    C_TILE_BASE_ALIGN,   /* a float32 tile at byte 2 */
    C_TILE_SLOT_ALIGN,   /* a float32 tile of two copies 34 bytes apart */
    C_OPND_TILE_ALIGN,   /* a bfloat16 tile at byte 66 read as float32 */
    C_OPND_OFF_ALIGN,    /* a constant byte offset 2 on a float32 operand */
    C_POOL_PSUM,         /* pool.iota writing PSUM */
    C_TILE_BASE_CAP,     /* a tile past the end of SBUF */
    C_TILE_SLOT_SMALL,   /* a slot smaller than the tile's row */
    C_TILE_PARTS,        /* partitions past 128 */
    C_TILE_BUFS,         /* zero copies */
    C_OPND_TILE_INDEX,   /* an operand naming a tile that does not exist */
    C_OPND_SPACE,        /* an SBUF operand on a PSUM tile */
    C_OPND_NFREE,        /* 5 free dims */
    C_OPND_HBM_DTYPE,    /* an HBM operand of another dtype than its tensor */
    C_OPND_HBM_BUF,      /* an HBM operand with a copy index */
    C_OPND_ROLE,         /* the same role twice */
    C_EXPR_REG,          /* an expression reading r1 inside one loop */
    C_EXPR_STACK,        /* an expression 17 values deep */
    C_EXPR_BYTES,        /* an expression of 520 bytes */
    C_EXPR_PF,           /* p in an address */
    C_LOOP_REG,          /* a loop on r1 at depth 0 */
    C_ENDLOOP_REG,       /* endloop r1 closing r0 */
    C_LOOP_STEP,         /* step 0 */
    C_LOOP_RANGE,        /* stop 2^40 + 1 */
    C_SEM_ID,            /* semaphore 256 */
    C_OPCODE,            /* an opcode past the table */
    C_ENGINE,            /* a DVE instruction on the ACT queue */
    C_ALU,               /* an ALU op past the table */
    C_IMM_MISSING,       /* tensor_tensor without op */
    C_RUN_TILE_OFF,      /* a tile offset 2*i: misaligned in iteration 1 */
    C_RUN_HBM_OFF,       /* an HBM offset misaligned in iteration 1 (in bounds) */
    C_RUN_COUNT,         /* a row of 5 elements (step 0) in a 4-element tile copy */
    C_COUNT
};

static uint32_t deep_expr(int depth, int64_t v) /* v as 0 + 0 + ... + v, depth values deep */
{
    uint8_t code[400];
    int n = 0;
    for (int k = 0; k < depth; k++) {
        code[n++] = TG_X_CONST;
        put64(code + n, (uint64_t)(k == depth - 1 ? v : 0));
        n += 8;
    }
    for (int k = 1; k < depth; k++)
        code[n++] = TG_X_ADD;
    return XB(code, n);
}

static uint32_t long_expr(int pairs, int64_t v) /* v + 0 + 0 ..., 10 bytes per pair, END included */
{
    uint8_t code[1024];
    int n = 0;
    code[n++] = TG_X_CONST;
    put64(code + n, (uint64_t)v);
    n += 8;
    for (int k = 0; k < pairs; k++) {
        code[n++] = TG_X_CONST;
        put64(code + n, 0);
        n += 8;
        code[n++] = TG_X_ADD;
    }
    return XB(code, n);
}

static void build_contract(int v)
{
    b_init();
    int32_t st1[5] = {1, 1, 1, 1, 1};
    uint32_t nm[5];
    int tx = b_tensor("x", TG_FLOAT32, 0, 2 * P, F), ty = b_tensor("y", TG_FLOAT32, 1, P, F);
    int ts = b_tile("s", TG_SPACE_SBUF, TG_FLOAT32, v == C_TILE_BUFS ? 0 : 2, v == C_TILE_BASE_ALIGN ? 2 : 0,
                    v == C_TILE_SLOT_ALIGN ? F * 4 + 2 : v == C_TILE_SLOT_SMALL ? F * 4 - 4 : F * 4, 0, P, P, F);
    int th = b_tile("h", TG_SPACE_SBUF, TG_BFLOAT16, 1, 66, 16, 0, P, P, 8);
    int tw = b_tile("w", TG_SPACE_SBUF, TG_FLOAT32, 1, v == C_TILE_BASE_CAP ? TG_TRN1_SBUF_PARTITION_BYTES - 8 : 128,
                    16, v == C_TILE_PARTS ? TG_PARTITIONS - P + 1 : 0, P, P, 4);
    int tz = b_tile("z", TG_SPACE_SBUF, TG_FLOAT32, 1, 256, F * 4, 0, P, P, F);
    int ta = b_tile("acc", TG_SPACE_PSUM, TG_FLOAT32, 1, 0, 2048, 0, P, P, F);
    b_loop(0, 0, v == C_LOOP_RANGE ? ((int64_t)1 << 40) + 1 : 2, v == C_LOOP_STEP ? 0 : 1);
    if (v == C_LOOP_REG)
        put64(b.imms[b.nm - 5] + 4, 1);
    /* dma.load s.(r0)[0:+P] <- x rows r0*P.. (pcount 16 values deep) */
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    nm[0] = X(F);
    b_op(TG_ROLE_DST, TG_SPACE_SBUF, TG_FLOAT32, ts, 1, XR(1, 0, 0), X(0), X(P), X(0), 1, st1, nm);
    b_op(v == C_OPND_ROLE ? TG_ROLE_DST : TG_ROLE_SRC, TG_SPACE_HBM, v == C_OPND_HBM_DTYPE ? TG_INT32 : TG_FLOAT32, tx,
         F, v == C_OPND_HBM_BUF ? X(1) : X(0), X(0), v == C_EXPR_STACK ? deep_expr(17, P) : deep_expr(16, P),
         v == C_RUN_HBM_OFF ? XR(P * F * 4 - 2, 0, 0) : XR(P * F * 4, 0, 0), 1, st1, nm);
    b_sync(TG_OP_SIGNAL, TG_ENG_DMA, v == C_SEM_ID ? TG_ISA_MAX_SEMS : 0);
    b_sync(TG_OP_WAIT, TG_ENG_DVE, 0);
    /* dve.memset w[0:+P] @4*r0 (a register offset, aligned) */
    b_inst(TG_OP_MEMSET, TG_ENG_DVE);
    b_imm(TG_IMM_VALUE, fbits(0.5));
    int32_t st0[1] = {0};
    nm[0] = X(v == C_RUN_COUNT ? 5 : 4);
    b_op(TG_ROLE_DST, TG_SPACE_SBUF, TG_FLOAT32, v == C_OPND_TILE_INDEX ? 9 : tw, 1, X(0), X(0), X(P),
         v == C_RUN_TILE_OFF ? XR(2, 0, 0) : v == C_EXPR_REG ? XR(4, 1, 0) : XR(4, 0, 0), 1, st0, nm);
    b_endloop(v == C_ENDLOOP_REG ? 1 : 0);
    /* dve.memset h (bfloat16 at byte 66) */
    b_inst(TG_OP_MEMSET, TG_ENG_DVE);
    b_imm(TG_IMM_VALUE, fbits(1.0));
    nm[0] = X(v == C_OPND_TILE_ALIGN ? 4 : 8);
    b_op(TG_ROLE_DST, TG_SPACE_SBUF, v == C_OPND_TILE_ALIGN ? TG_FLOAT32 : TG_BFLOAT16, th, 1, X(0), X(0), X(P), X(0),
         1, st1, nm);
    /* pool.iota z = p + f */
    static const uint8_t pf[] = {TG_X_P, TG_X_F, TG_X_ADD};
    b_inst(TG_OP_IOTA, TG_ENG_POOL);
    b_imm(TG_IMM_EXPR, XB(pf, (int)sizeof pf));
    nm[0] = X(F);
    b_op(TG_ROLE_DST, v == C_POOL_PSUM ? TG_SPACE_PSUM : TG_SPACE_SBUF, TG_FLOAT32, v == C_POOL_PSUM ? ta : tz, 1,
         X(0), X(0), X(P), X(0), 1, st1, nm);
    /* dve.memset acc (PSUM) @0: 5 free dims when asked */
    b_inst(TG_OP_MEMSET, TG_ENG_DVE);
    b_imm(TG_IMM_VALUE, fbits(0.0));
    for (int k = 0; k < 5; k++)
        nm[k] = X(k ? 1 : F);
    b_op(TG_ROLE_DST, v == C_OPND_SPACE ? TG_SPACE_SBUF : TG_SPACE_PSUM, TG_FLOAT32, ta, 1, X(0),
         v == C_EXPR_PF ? XB(pf, 1) : X(0), X(P), v == C_OPND_OFF_ALIGN ? X(2) : X(0), v == C_OPND_NFREE ? 5 : 1, st1,
         nm);
    /* dve.tensor_tensor z = z + z */
    b_inst(TG_OP_TENSOR_TENSOR, v == C_ENGINE ? TG_ENG_ACT : TG_ENG_DVE);
    if (v == C_OPCODE)
        b.insts[b.ni - 1][0] = TG_OP_COUNT;
    if (v != C_IMM_MISSING)
        b_imm(TG_IMM_OP, v == C_ALU ? TG_ALU_COUNT : TG_ALU_ADD);
    b_tap(TG_ROLE_DST, tz, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_A, tz, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_B, tz, TG_FLOAT32, 0, P, 0, F);
    /* dma.store y <- s.(1) (src pcount: a 510-byte expression) */
    b_sync(TG_OP_SIGNAL, TG_ENG_DVE, 1);
    b_sync(TG_OP_WAIT, TG_ENG_DMA, 1);
    b_inst(TG_OP_STORE, TG_ENG_DMA);
    nm[0] = X(F);
    b_op(TG_ROLE_DST, TG_SPACE_HBM, TG_FLOAT32, ty, F, X(0), X(0), X(P), X(0), 1, st1, nm);
    b_op(TG_ROLE_SRC, TG_SPACE_SBUF, TG_FLOAT32, ts, 1, X(1), X(0), long_expr(v == C_EXPR_BYTES ? 51 : 50, P), X(0), 1,
         st1, nm);
    b_finish();
}

/* ---- indirect DMA (SPEC.md §2.1) -------------------------------------------- */

enum { IV = 6 }; /* table rows */
enum { I_OK, I_NEG, I_PAST, I_NO_STEP, I_FLOAT_COL, I_BOUND_PAST_TENSOR, I_SHORT_COL };

/* ix <- ids; g <- x[ix[p]] (row gather); y <- g. */
static void build_indirect(int v)
{
    b_init();
    int32_t st1[1] = {1};
    uint32_t nm[1] = {X(F)};
    int tx = b_tensor("x", TG_FLOAT32, 0, IV, F), ti = b_tensor("ids", TG_INT32, 0, P, 1);
    int ty = b_tensor("y", TG_FLOAT32, 1, P, F);
    tg_dtype cd = v == I_FLOAT_COL ? TG_FLOAT32 : TG_INT32;
    int tix = b_tile("ix", TG_SPACE_SBUF, cd, 1, 0, 64, 0, P, P, 1);
    int tg = b_tile("g", TG_SPACE_SBUF, TG_FLOAT32, 1, 64, F * 4, 0, P, P, F);
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    b_tap(TG_ROLE_DST, tix, cd, 0, P, 0, 1);
    if (v == I_FLOAT_COL)
        b_op(TG_ROLE_SRC, TG_SPACE_HBM, TG_INT32, ti, 1, X(0), X(0), X(P), X(0), 1, st1, (uint32_t[1]){X(1)});
    else
        b_hap(TG_ROLE_SRC, ti, 0, P, 1, 1);
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    b_tap(TG_ROLE_DST, tg, TG_FLOAT32, 0, P, 0, F);
    b_op(TG_ROLE_SRC, TG_SPACE_HBM, TG_FLOAT32, tx, 0, X(0), X(0), X(P), X(0), 1, st1, nm);
    b_tap(TG_ROLE_INDEX, tix, cd, 0, v == I_SHORT_COL ? P - 1 : P, 0, 1);
    if (v != I_NO_STEP)
        b_imm(TG_IMM_INDEX_STEP, F);
    b_imm(TG_IMM_INDEX_BOUND, v == I_BOUND_PAST_TENSOR ? IV + 1 : IV);
    b_inst(TG_OP_STORE, TG_ENG_DMA);
    b_hap(TG_ROLE_DST, ty, 0, P, F, F);
    b_tap(TG_ROLE_SRC, tg, TG_FLOAT32, 0, P, 0, F);
    b_finish();
}

static void test_indirect_dma(void **state)
{
    (void)state;
    static float x[IV * F], y[P * F];
    static int32_t ids[P];
    void *t[3] = {x, ids, y};
    for (int i = 0; i < IV * F; i++)
        x[i] = (float)i;
    for (int v = I_OK; v <= I_SHORT_COL; v++) {
        static const int32_t good[P] = {5, 0, 5, 2};
        memcpy(ids, good, sizeof ids);
        if (v == I_NEG)
            ids[1] = -1;
        if (v == I_PAST)
            ids[3] = IV;
        for (int i = 0; i < P * F; i++)
            y[i] = -1.0f;
        build_indirect(v);
        tg_prog p;
        int dec = tg_prog_decode(&p, b.out, b.size), rc = run(t, NULL);
        int want = v == I_OK ? 0 : v == I_NO_STEP || v == I_FLOAT_COL ? TG_EPROGRAM
                   : v == I_SHORT_COL                                ? TG_EPROGRAM
                                                                     : TG_EBOUNDS;
        if (rc != want || (dec != 0) != (v == I_NO_STEP || v == I_FLOAT_COL))
            fail_msg("indirect case %d: decode %d, run %d, want %d", v, dec, rc, want);
        for (int q = 0; q < P; q++) /* the rows at their indices, or nothing written */
            for (int j = 0; j < F; j++)
                assert_true(same_bits(y[q * F + j], v == I_OK ? x[good[q] * F + j] : -1.0f));
    }
}

static void test_contract_each_property(void **state)
{
    (void)state;
    static float x[2 * P * F], y[P * F];
    void *t[2] = {x, y};
    for (int i = 0; i < 2 * P * F; i++)
        x[i] = (float)i;
    for (int v = 0; v < C_COUNT; v++) {
        build_contract(v);
        tg_prog p;
        int dec = tg_prog_decode(&p, b.out, b.size);
        int rc = run(t, NULL);
        int want = v == C_OK ? 0 : v >= C_RUN_TILE_OFF ? TG_EBOUNDS : TG_EPROGRAM;
        if (rc != want || (dec != 0) != (want == TG_EPROGRAM))
            fail_msg("contract case %d: decode %d, run %d, want %d", v, dec, rc, want);
        if (v == C_OK)
            for (int i = 0; i < P * F; i++)
                assert_true(same_bits(y[i], (float)(P * F + i)));
    }
}

/* The default budget: exactly the work of a complete run; a program that
 * needs more than TG_ISS_DEFAULT_CAP is refused before it runs; an explicit
 * limit still stops a run where it says. */
static void test_default_budget(void **state)
{
    (void)state;
    build_add(1);
    fill_ab();
    void *t[3] = {A, Bv, C};
    tg_prog p;
    assert_int_equal(tg_prog_decode(&p, b.out, b.size), 0);
    uint64_t work = tg_iss_work(&p);
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(run(t, &st), 0);
    assert_true(work > 0 && st.insts + st.loop_iters == work && st.limit == work);
    memset(&st, 0, sizeof st);
    st.limit = work - 1;
    assert_int_equal(run(t, &st), TG_ELIMIT);
    assert_int_equal(run(t, NULL), 0);
    /* nested loops: trips multiply, per engine, only where there is work */
    b.ni = 0, b.no = 0, b.nm = 0;
    b_loop(0, -3, 7, 3); /* -3, 0, 3, 6: 4 trips */
    b_loop(1, 0, 5, 1);  /* 5 trips */
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 1);
    b_sync(TG_OP_WAIT, TG_ENG_ACT, 1);
    b_endloop(1);
    b_sync(TG_OP_SIGNAL, TG_ENG_POOL, 2);
    b_loop(1, 4, 4, 1); /* empty */
    b_sync(TG_OP_SIGNAL, TG_ENG_POOL, 3);
    b_endloop(1);
    b_endloop(0);
    b_finish();
    assert_int_equal(tg_prog_decode(&p, b.out, b.size), 0);
    /* ACT: 4 * (1 + 5 * (1 + 2)) = 64; POOL: 4 * (1 + 1) = 8 */
    assert_true(tg_iss_work(&p) == 64 + 8);
    memset(&st, 0, sizeof st);
    assert_int_equal(run(t, &st), 0);
    assert_true(st.insts + st.loop_iters == 72 && st.limit == 72);
    /* hi = r0 + 1 narrows the inner loop per entry: the static hull bounds
     * the work from above (ACT: 4 * (1 + 4 * 3) = 52, runs 4 + 10 * 3 = 34) */
    b.ni = 0, b.no = 0, b.nm = 0;
    b_loop(0, 0, 4, 1);
    b_loop(1, 0, 4, 1);
    b_imm(TG_IMM_HI, XR(1, 0, 1));
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 1);
    b_sync(TG_OP_WAIT, TG_ENG_ACT, 1);
    b_endloop(1);
    b_endloop(0);
    b_finish();
    assert_int_equal(tg_prog_decode(&p, b.out, b.size), 0);
    assert_true(tg_iss_work(&p) == 52);
    memset(&st, 0, sizeof st);
    assert_int_equal(run(t, &st), 0);
    assert_true(st.insts + st.loop_iters == 34 && st.limit == 52);
    /* 2^40 trips of 2^40 trips: refused at once, nothing executed */
    b.ni = 0, b.no = 0, b.nm = 0;
    b_loop(0, 0, (int64_t)1 << 40, 1);
    b_loop(1, 0, (int64_t)1 << 40, 1);
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 1);
    b_endloop(1);
    b_endloop(0);
    b_finish();
    assert_int_equal(tg_prog_decode(&p, b.out, b.size), 0);
    assert_true(tg_iss_work(&p) == UINT64_MAX);
    memset(&st, 0, sizeof st);
    assert_int_equal(run(t, &st), TG_ELIMIT);
    assert_true(st.insts == 0 && st.loop_iters == 0);
    assert_int_equal(run(t, NULL), TG_ELIMIT);
    /* just over the cap: refused; an explicit limit runs to it */
    b.ni = 0, b.no = 0, b.nm = 0;
    b_loop(0, 0, (int64_t)(TG_ISS_DEFAULT_CAP / 2), 1);
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 1);
    b_endloop(0);
    b_sync(TG_OP_SIGNAL, TG_ENG_ACT, 1);
    b_finish();
    assert_int_equal(tg_prog_decode(&p, b.out, b.size), 0);
    assert_true(tg_iss_work(&p) == TG_ISS_DEFAULT_CAP + 1);
    assert_int_equal(run(t, NULL), TG_ELIMIT);
    memset(&st, 0, sizeof st);
    st.limit = 5000;
    assert_int_equal(run(t, &st), TG_ELIMIT);
    assert_true(st.insts + st.loop_iters == 5000);
}

/* DMA queues run independently: queue 0's wait comes first in program order
 * but is satisfied only after queue 1's load (through DVE), which a single
 * in-order DMA queue would deadlock on. */
static void build_two_queues(uint64_t q0, uint64_t q1)
{
    b_init();
    int tx = b_tensor("x", TG_FLOAT32, 0, P, F), ty = b_tensor("y", TG_FLOAT32, 1, P, F);
    int sa = b_tile("a", TG_SPACE_SBUF, TG_FLOAT32, 1, 0, F * 4, 0, P, P, F);
    int sc = b_tile("c", TG_SPACE_SBUF, TG_FLOAT32, 1, F * 4, F * 4, 0, P, P, F);
    b_sync(TG_OP_WAIT, TG_ENG_DMA, 0);
    b_imm(TG_IMM_QUEUE, q0);
    b_inst(TG_OP_STORE, TG_ENG_DMA);
    b_hap(TG_ROLE_DST, ty, 0, P, F, F);
    b_tap(TG_ROLE_SRC, sc, TG_FLOAT32, 0, P, 0, F);
    b_imm(TG_IMM_QUEUE, q0);
    b_inst(TG_OP_LOAD, TG_ENG_DMA);
    b_tap(TG_ROLE_DST, sa, TG_FLOAT32, 0, P, 0, F);
    b_hap(TG_ROLE_SRC, tx, 0, P, F, F);
    b_imm(TG_IMM_QUEUE, q1);
    b_sync(TG_OP_SIGNAL, TG_ENG_DMA, 1);
    b_imm(TG_IMM_QUEUE, q1);
    b_sync(TG_OP_WAIT, TG_ENG_DVE, 1);
    b_inst(TG_OP_TENSOR_COPY, TG_ENG_DVE);
    b_tap(TG_ROLE_DST, sc, TG_FLOAT32, 0, P, 0, F);
    b_tap(TG_ROLE_SRC, sa, TG_FLOAT32, 0, P, 0, F);
    b_sync(TG_OP_SIGNAL, TG_ENG_DVE, 0);
    b_finish();
}

static void test_dma_queues_independent(void **state)
{
    (void)state;
    float x[P * F], y[P * F];
    void *t[2] = {x, y};
    for (int i = 0; i < P * F; i++)
        x[i] = (float)i - 7.5f, y[i] = 0.0f;
    build_two_queues(0, 1);
    tg_prog p;
    assert_int_equal(tg_prog_decode(&p, b.out, b.size), 0);
    tg_prog_inst in;
    tg_prog_get_inst(&p, 2, &in); /* the load */
    assert_int_equal(in.queue, 1);
    assert_int_equal(tg_prog_stream(&in), TG_ENG_COUNT + 1);
    tg_prog_get_inst(&p, 4, &in); /* dve.wait */
    assert_int_equal(in.queue, 0);
    assert_int_equal(tg_prog_stream(&in), TG_ENG_DVE);
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(run(t, &st), 0);
    for (int i = 0; i < P * F; i++)
        assert_true(same_bits(y[i], x[i]));
    assert_int_equal(st.eng[TG_ENG_DMA].insts, 4); /* both queues summed */
    assert_int_equal(st.eng[TG_ENG_DVE].insts, 3);
    /* on one queue the wait blocks the load behind it */
    build_two_queues(3, 3);
    assert_int_equal(run(t, NULL), TG_EDEADLOCK);
    /* queue 16 does not exist; a queue on a DVE instruction is malformed */
    build_two_queues(0, TG_DMA_QUEUES);
    assert_int_equal(run(t, NULL), TG_EPROGRAM);
    build_two_queues(0, 1);
    b.ni = 0, b.no = 0, b.nm = 0;
    b_sync(TG_OP_SIGNAL, TG_ENG_DVE, 0);
    b_imm(TG_IMM_QUEUE, 0);
    b_sync(TG_OP_WAIT, TG_ENG_DVE, 0);
    b_finish();
    assert_int_equal(run(t, NULL), TG_EPROGRAM);
}

/* The caller's storage: tg_core_init needs some (aligned), tg_core_layout
 * lays rows and PE staging out exactly within it, and the ISS refuses to
 * run on less than its program's rows (TG_ESTORAGE), before any access. */
static void test_core_storage(void **state)
{
    (void)state;
    tg_core c;
    memset(&c, 0, sizeof c);
    assert_int_equal(tg_core_init(&c, TG_TRN1), TG_EINVAL); /* no storage */
    static tg_storage_unit mem[(TG_CORE_BYTES(64, 1, 10) + 7) / 8 + 1];
    size_t need = TG_CORE_BYTES(64, 1, 10);
    /* rows an odd number of 64-byte lines apart (TG_CORE_ROW): 64 -> 192, 2048 -> 2112 */
    assert_int_equal(TG_CORE_ROW(0), 0);
    assert_int_equal(TG_CORE_ROW(1), 192);
    assert_int_equal(TG_CORE_ROW(128), 192);
    assert_int_equal(TG_CORE_ROW(129), 320);
    assert_int_equal(need, 128 * (192 + 2112) + 40 + 8);
    assert_int_equal(tg_core_init_storage(&c, TG_TRN1, (char *)mem + 4, need), TG_EINVAL); /* misaligned */
    assert_int_equal(tg_core_layout(&c, 192, 2112, 10), TG_ECORE);
    assert_int_equal(tg_core_init_storage(&c, TG_TRN1, mem, need), 0);
    assert_int_equal(tg_core_layout(&c, 192, 2112, 10), 0);
    assert_true(c.sbuf == (uint8_t *)mem && c.psum == c.sbuf + 128 * 192);
    assert_true((uint8_t *)c.pe == c.psum + 128 * 2112 && c.pe_floats == 10);
    assert_int_equal(tg_core_layout(&c, 192, 2112, 11), TG_ESTORAGE);
    assert_int_equal(tg_core_layout(&c, 200, 2112, 0), TG_ESTORAGE);
    assert_int_equal(tg_core_layout(&c, 188, 2112, 0), TG_ESTORAGE); /* rows 8-byte aligned */
    assert_int_equal(tg_core_layout(&c, (size_t)-8, 0, 0), TG_ESTORAGE); /* no overflow */
    assert_int_equal(tg_core_init_storage(&c, TG_TRN1, mem, need - 1), 0);
    assert_int_equal(tg_core_layout(&c, 192, 2112, 10), TG_ESTORAGE); /* the tail counts */

    /* the ISS: exactly tg_iss_core_bytes runs, 8 bytes less is refused */
    build_add(1);
    fill_ab();
    tg_prog p;
    assert_int_equal(tg_prog_decode(&p, b.out, b.size), 0);
    size_t n = tg_iss_core_bytes(&p);
    /* three double-buffered [P, F] tiles: rows TG_CORE_ROW(6 F floats) apart */
    static tg_storage_unit big[(TG_PARTITIONS * TG_CORE_ROW(6 * F * 4) + TG_CORE_TAIL) / 8];
    assert_int_equal(n, sizeof big); /* exactly the tiles' rows and the tail */
    void *t[3] = {A, Bv, C};
    assert_int_equal(tg_core_init_storage(&c, TG_TRN1, big, n), 0);
    assert_int_equal(tg_iss_exec(&c, b.out, b.size, t, NULL), 0);
    assert_true(same_bits(C[5], A[5] + Bv[5]));
    C[5] = 0.0f;
    assert_int_equal(tg_core_init_storage(&c, TG_TRN1, big, n - 8), 0);
    assert_int_equal(tg_iss_exec(&c, b.out, b.size, t, NULL), TG_ESTORAGE);
    assert_true(same_bits(C[5], 0.0f));
}

/* The print callback's setter and the packing of a print's region: a
 * strided 3-D view (rows of a wider buffer, a dim skipped) comes out
 * row-major in the order of its shape; tg_core_init clears the callback. */
static void count_print(void *ctx, const tg_print_info *pi)
{
    (void)ctx;
    (void)pi;
}

static void test_print_setter_and_pack(void **state)
{
    (void)state;
    tg_core c;
    memset(&c, 0, sizeof c);
    static tg_storage_unit mem[(TG_CORE_BYTES(64, 0, 0) + 7) / 8];
    assert_int_equal(tg_core_set_print(NULL, count_print, &c), TG_EINVAL);
    assert_int_equal(tg_core_set_print(&c, count_print, &c), TG_ECORE); /* not initialised */
    assert_int_equal(tg_core_init_storage(&c, TG_TRN1, mem, sizeof mem), 0);
    assert_null(c.print);
    assert_int_equal(tg_core_set_print(&c, count_print, &c), 0);
    assert_true(c.print == count_print && c.print_ctx == &c);
    assert_int_equal(tg_core_init(&c, TG_TRN1), 0);
    assert_null(c.print); /* init clears it */

    uint16_t src[3][4][5]; /* shape [3, 2, 3] of it: partitions 0..2, dims 1 and 3 by 2, elements 0, 2, 4 */
    for (int p = 0; p < 3; p++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 5; k++)
                src[p][j][k] = (uint16_t)(100 * p + 10 * j + k);
    tg_print_info pi;
    tg_print_start(&pi, "v", 7, TG_BFLOAT16);
    pi.rank = 3;
    pi.shape[0] = 3, pi.shape[1] = 2, pi.shape[2] = 3;
    pi.stride[0] = sizeof src[0], pi.stride[1] = 2 * sizeof src[0][0], pi.stride[2] = 2 * sizeof src[0][0][0];
    pi.data = (const uint8_t *)&src[0][1][0];
    assert_int_equal(tg_print_bytes(&pi), 3 * 2 * 3 * 2);
    uint16_t out[3][2][3];
    tg_print_pack(&pi, out);
    for (int p = 0; p < 3; p++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 3; k++)
                assert_int_equal(out[p][j][k], 100 * p + 10 * (1 + 2 * j) + 2 * k);
    pi.stride[2] = sizeof src[0][0][0]; /* a contiguous innermost dim: one run a row */
    tg_print_pack(&pi, out);
    assert_int_equal(out[2][1][2], 200 + 30 + 2);
}

static void test_run_checks_descriptor(void **state)
{
    (void)state;
    build_add(1);
    fill_ab();
    void *t[3] = {A, Bv, C};
    static const tg_tensor_desc desc[3] = {{"a", TG_FLOAT32, 2, {2 * P, F, 0, 0}, 0},
                                           {"b", TG_FLOAT32, 2, {2 * P, F, 0, 0}, 0},
                                           {"c", TG_FLOAT32, 2, {2 * P, F, 0, 0}, 1}};
    tg_tensor_desc bad[3];
    memcpy(bad, desc, sizeof bad);
    tg_kernel k = {"k", TG_TRN1, 3, desc, NULL, b.out, (uint32_t)b.size, 0, 0, 0, NULL, {1, 1, 1}};
    assert_int_equal(tg_core_init(&core, TG_TRN1), 0);
    tg_iss_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(tg_iss_run_stats(&core, &k, t, &st), 0);
    assert_int_equal(st.insts, 16);
    assert_true(same_bits(C[5], A[5] + Bv[5]));
    k.tensors = bad;
    bad[2].shape[1] = F + 1;
    assert_int_equal(tg_iss_run(&core, &k, t), TG_ETENSOR);
    bad[2].shape[1] = F;
    bad[1].dtype = TG_BFLOAT16;
    assert_int_equal(tg_iss_run(&core, &k, t), TG_ETENSOR);
    bad[1].dtype = TG_FLOAT32;
    bad[0].name = "x";
    assert_int_equal(tg_iss_run(&core, &k, t), TG_ETENSOR);
    k.tensors = desc;
    k.ntensors = 2;
    assert_int_equal(tg_iss_run(&core, &k, t), TG_ETENSOR);
    k.ntensors = 3;
    k.program = NULL;
    assert_int_equal(tg_iss_run(&core, &k, t), TG_EUNSUPPORTED);
    k.program = b.out;
    k.target = TG_TRN2;
    assert_int_equal(tg_iss_run(&core, &k, t), TG_ETARGET);
    k.target = TG_TRN1;
    /* an output may share no byte with another tensor; inputs may share */
    void *same[3] = {A, Bv, A}, *tail[3] = {A, Bv, (uint8_t *)Bv + 2 * P * F * sizeof(float) - 1},
         *ins[3] = {A, A, C};
    assert_int_equal(tg_iss_run(&core, &k, same), TG_EALIAS);
    assert_int_equal(tg_kernel_run(&core, &k, same), TG_EALIAS);
    assert_int_equal(tg_iss_run(&core, &k, tail), TG_EALIAS);
    assert_int_equal(tg_iss_run(&core, &k, ins), 0);
    assert_true(same_bits(C[5], A[5] + A[5]));
}

/* ---- row kernels (tg_iss_row.h): fast paths against per-element walks -------- */

enum { WN = 1200 }; /* wider than two blocks, not a multiple of TG_ISS_BLOCK */

static uint8_t RB[2][WN * 8]; /* two "partition rows" of raw bytes */

/* A one-row SBUF pattern over RB[part] at element offset `e0`. */
static tg_iss_ap mk_ap(int part, tg_dtype dt, int64_t e0, int nfree, const int64_t *num, const int64_t *step)
{
    tg_iss_ap a;
    int64_t es = (int64_t)tg_dtype_size(dt), fmin = 0, fmax = 0;
    memset(&a, 0, sizeof a);
    a.dtype = dt;
    a.esize = es;
    a.pcount = 1;
    a.nfree = nfree;
    a.count = 1;
    a.space = TG_SPACE_SBUF;
    for (int k = 0; k < nfree; k++) {
        a.num[k] = num[k];
        a.step[k] = step[k];
        a.count *= num[k];
        int64_t t = step[k] * (num[k] - 1);
        fmin += t < 0 ? t : 0;
        fmax += t > 0 ? t : 0;
    }
    a.p0 = RB[part] + e0 * es;
    a.prow = (ptrdiff_t)sizeof RB[0];
    a.part = part;
    a.clo = (e0 + fmin) * es;
    a.chi = (e0 + fmax + 1) * es;
    a.lo = a.p0 + fmin * es;
    a.hi = a.p0 + (fmax + 1) * es;
    return a;
}

/* Offsets of a's walk, element by element (the reference order). */
static void walk(const tg_iss_ap *a, int64_t *off)
{
    tg_iss_it it;
    tg_iss_it_init(&it, 0);
    for (int64_t j = 0; j < a->count; j++) {
        off[j] = it.off;
        tg_iss_it_adv(a, &it, 1);
    }
}

static void fill_rb(void)
{
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < WN * 2; i++) {
            float v = (float)((i * 37 + p * 11) % 101) * 0.173f - 8.0f;
            memcpy(RB[p] + 4 * i, &v, 4);
        }
}

static float rd_f32(int part, int64_t i)
{
    float v;
    memcpy(&v, RB[part] + 4 * i, 4);
    return v;
}

/* Gather in uneven chunks (runs cut at block and dim edges) equals the
 * element walk, for fp32 and bf16, contiguous, strided, multi-dim, negative. */
static void test_row_gather_scatter_walks(void **state)
{
    (void)state;
    static const int64_t num3[3] = {3, 5, 70}, step3[3] = {900, 150, 2};
    static const int64_t numn[2] = {4, 250}, stepn[2] = {-300, 1};
    static const int64_t num1[1] = {WN}, step1[1] = {1};
    static float x[WN * 2], y[WN * 2];
    static int64_t off[WN * 2];
    struct { int nfree; const int64_t *num, *step; int64_t e0; } cases[] = {
        {3, num3, step3, 0}, {2, numn, stepn, 900}, {1, num1, step1, 5}};
    for (int dt = 0; dt < 2; dt++) {
        tg_dtype t = dt ? TG_BFLOAT16 : TG_FLOAT32;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            fill_rb();
            tg_iss_ap a = mk_ap(0, t, cases[c].e0, cases[c].nfree, cases[c].num, cases[c].step);
            walk(&a, off);
            tg_iss_it it;
            tg_iss_it_init(&it, 0);
            for (int64_t j = 0, n = 1; j < a.count; j += n, n = n * 3 + 7) {
                n = n < a.count - j ? n : a.count - j;
                tg_iss_gather(&a, a.p0, &it, x + j, n);
            }
            for (int64_t j = 0; j < a.count; j++) {
                float want = t == TG_FLOAT32 ? tg_rd_f32(a.p0, off[j]) : tg_rd_bf16(a.p0, off[j]);
                assert_true(same_bits(x[j], want));
                y[j] = x[j] * 1.0009765625f + 0.3f; /* bf16 writes must round */
            }
            tg_iss_scatter_row(&a, 0, y);
            for (int64_t j = 0; j < a.count; j++) {
                if (t == TG_FLOAT32)
                    assert_true(same_bits(tg_rd_f32(a.p0, off[j]), y[j]));
                else
                    assert_int_equal(((const uint16_t *)(const void *)a.p0)[off[j]], tg_f32_to_bf16(y[j]));
            }
        }
    }
}

/* tg_select_f32 (tg_sim.h): the AND/OR form an AVX-512 body's affine_select
 * takes gives the select's bits for every pair of values, NaN payloads and
 * signed zeros included, and any nonzero condition. */
static void test_select_bitwise(void **state)
{
    (void)state;
    static const uint32_t v[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                 0xffc00001u, 0x7f800001u, 0x00000001u, 0x807fffffu, 0x3f800000u,
                                 0xc2f6e979u, 0x7f7fffffu};
    static const int conds[] = {0, 1, 2, -1, 1 << 30};
    const size_t nv = sizeof v / sizeof v[0];
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < nv; j++)
            for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
                float a = tg_bits_f32(v[i]), b2 = tg_bits_f32(v[j]);
                uint32_t want = conds[c] ? v[i] : v[j];
                assert_int_equal(tg_f32_bits(tg_select_f32(1, conds[c], a, b2)), want);
                assert_int_equal(tg_f32_bits(tg_select_f32(0, conds[c], a, b2)), want);
            }
}

/* Whole blocks are staged only when that cannot change a result. */
static void test_row_block_decision(void **state)
{
    (void)state;
    static const int64_t n1[1] = {600}, s1[1] = {1}, one[1] = {1};
    static const int64_t n2[2] = {4, 150}, s2[2] = {0, 1};
    tg_iss_ap d = mk_ap(0, TG_FLOAT32, 0, 1, n1, s1);
    tg_iss_ap same = mk_ap(0, TG_FLOAT32, 0, 1, n1, s1);
    tg_iss_ap after = mk_ap(0, TG_FLOAT32, 600, 1, n1, s1);
    tg_iss_ap shifted = mk_ap(0, TG_FLOAT32, 1, 1, n1, s1);
    tg_iss_ap other_part = mk_ap(1, TG_FLOAT32, 0, 1, n1, s1);
    tg_iss_ap bcast = mk_ap(0, TG_FLOAT32, 7, 1, one, s1);
    tg_iss_ap rep = mk_ap(0, TG_FLOAT32, 0, 2, n2, s2); /* every address 4 times */
    assert_int_equal(tg_iss_ew_block(&d, NULL, NULL), TG_ISS_BLOCK);
    assert_int_equal(tg_iss_ew_block(&d, &same, &after), TG_ISS_BLOCK);
    assert_int_equal(tg_iss_ew_block(&d, &other_part, NULL), TG_ISS_BLOCK);
    assert_int_equal(tg_iss_ew_block(&d, &after, &shifted), 1);
    assert_int_equal(tg_iss_ew_block(&d, &bcast, NULL), 1);
    assert_int_equal(tg_iss_ew_block(&rep, &rep, NULL), 1);
    assert_false(tg_iss_overlap(&d, &after));
    assert_true(tg_iss_overlap(&d, &shifted));
}

/* Element-wise rows over blocks: in place (same walk), shifted in place
 * (each element reads its neighbour's new value, as element order says),
 * a broadcast operand, and an activation reduce across block edges. */
static void test_row_elementwise_orders(void **state)
{
    (void)state;
    static const int64_t n1[1] = {WN}, s1[1] = {1}, one[1] = {1};
    static float ref[WN + 1];
    tg_iss_ew w;
    memset(&w, 0, sizeof w);
    w.kind = TG_ISS_TT;
    w.op0 = TG_ALU_ADD;
    w.op1 = TG_ALU_COUNT;
    /* shifted: RB0[j+1] = RB0[j] + RB1[7] */
    fill_rb();
    tg_iss_ap d = mk_ap(0, TG_FLOAT32, 1, 1, n1, s1), a = mk_ap(0, TG_FLOAT32, 0, 1, n1, s1);
    tg_iss_ap c = mk_ap(1, TG_FLOAT32, 7, 1, one, s1);
    for (int j = 0; j <= WN; j++)
        ref[j] = rd_f32(0, j);
    for (int j = 0; j < WN; j++)
        ref[j + 1] = ref[j] + rd_f32(1, 7);
    assert_int_equal(tg_iss_ew_row(&w, &d, &a, &c, 0, tg_iss_ew_block(&d, &a, &c)), 0);
    for (int j = 0; j <= WN; j++)
        assert_true(same_bits(rd_f32(0, j), ref[j]));
    /* in place, same walk: RB0[j] = RB0[j] * RB0[j] */
    fill_rb();
    w.op0 = TG_ALU_MULTIPLY;
    d = mk_ap(0, TG_FLOAT32, 0, 1, n1, s1);
    assert_int_equal(tg_iss_ew_block(&d, &d, &d), TG_ISS_BLOCK);
    for (int j = 0; j < WN; j++)
        ref[j] = rd_f32(0, j) * rd_f32(0, j);
    assert_int_equal(tg_iss_ew_row(&w, &d, &d, &d, 0, TG_ISS_BLOCK), 0);
    for (int j = 0; j < WN; j++)
        assert_true(same_bits(rd_f32(0, j), ref[j]));
    /* activation exp(x * 0.5 + 0.25) with a max reduce into RB1[0] */
    fill_rb();
    memset(&w, 0, sizeof w);
    w.kind = TG_ISS_ACT;
    w.func = TG_ACT_EXP;
    w.s0.num = 0.5f;
    w.s1.num = 0.25f;
    w.has_reduce = 1;
    w.red_op = TG_ALU_MAXIMUM;
    w.red = mk_ap(1, TG_FLOAT32, 0, 1, one, s1);
    a = mk_ap(0, TG_FLOAT32, 0, 1, n1, s1);
    d = mk_ap(1, TG_FLOAT32, 1, 1, n1, s1);
    float mx = 0.0f;
    for (int j = 0; j < WN; j++) {
        ref[j] = tg_activation(TG_ACT_EXP, rd_f32(0, j), 0.5f, 0.25f);
        mx = j ? tg_alu_maximum(mx, ref[j]) : ref[j];
    }
    assert_int_equal(tg_iss_ew_row(&w, &d, &a, NULL, 0, tg_iss_ew_block(&d, &a, NULL)), 0);
    for (int j = 0; j < WN; j++)
        assert_true(same_bits(rd_f32(1, j + 1), ref[j]));
    assert_true(same_bits(rd_f32(1, 0), mx));
    /* fold: the left fold across any split */
    float fx[WN];
    for (int j = 0; j < WN; j++)
        fx[j] = rd_f32(0, j) * 1e-3f + 1.0f;
    float r = fx[0];
    for (int j = 1; j < WN; j++)
        r = r * fx[j];
    assert_true(same_bits(tg_iss_fold(TG_ALU_MULTIPLY, tg_iss_fold(TG_ALU_MULTIPLY, fx[0], fx + 1, 600), fx + 601,
                                      WN - 601), r));
}

/* Raw copies: disjoint runs, an overlapping forward copy (smears element 0,
 * element by element), an overlapping backward one, strided bf16. */
static void test_row_copy_overlap(void **state)
{
    (void)state;
    static const int64_t n1[1] = {WN}, s1[1] = {1}, n2[1] = {300}, s2[1] = {-2}, s3[1] = {3};
    static float ref[WN + 1];
    fill_rb();
    tg_iss_ap d = mk_ap(0, TG_FLOAT32, 1, 1, n1, s1), s = mk_ap(0, TG_FLOAT32, 0, 1, n1, s1);
    float x0 = rd_f32(0, 0);
    tg_iss_copy_row(&d, &s, 0, tg_iss_overlap(&d, &s));
    for (int j = 0; j <= WN; j++)
        assert_true(same_bits(rd_f32(0, j), x0));
    fill_rb();
    for (int j = 0; j <= WN; j++)
        ref[j] = rd_f32(0, j);
    d = mk_ap(0, TG_FLOAT32, 0, 1, n1, s1);
    s = mk_ap(0, TG_FLOAT32, 1, 1, n1, s1);
    tg_iss_copy_row(&d, &s, 0, tg_iss_overlap(&d, &s));
    for (int j = 0; j < WN; j++)
        assert_true(same_bits(rd_f32(0, j), ref[j + 1]));
    /* bf16, dst step 3 from src step -2 in the other row */
    fill_rb();
    d = mk_ap(1, TG_BFLOAT16, 0, 1, n2, s3);
    s = mk_ap(0, TG_BFLOAT16, 700, 1, n2, s2);
    assert_false(tg_iss_overlap(&d, &s));
    tg_iss_copy_row(&d, &s, 0, 0);
    const uint16_t *h0 = (const uint16_t *)(const void *)RB[0], *h1 = (const uint16_t *)(const void *)RB[1];
    for (int j = 0; j < 300; j++)
        assert_int_equal(h1[3 * j], h0[700 - 2 * j]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_pipeline_with_semaphores),
        cmocka_unit_test(test_add_without_sync_reads_unloaded_tile),
        cmocka_unit_test(test_activation_scale_bias_reduce),
        cmocka_unit_test(test_tensor_scalar_reverse),
        cmocka_unit_test(test_tensor_reduce_negate),
        cmocka_unit_test(test_select_bitwise),
        cmocka_unit_test(test_scan_with_broadcast_operand),
        cmocka_unit_test(test_reciprocal_negative_step),
        cmocka_unit_test(test_iota_partition_and_free_index),
        cmocka_unit_test(test_affine_select_causal),
        cmocka_unit_test(test_affine_select_non_affine_predicate),
        cmocka_unit_test(test_iota_quadratic),
        cmocka_unit_test(test_iota_overflow_is_an_error),
        cmocka_unit_test(test_bn_stats_aggr),
        cmocka_unit_test(test_cast_through_bf16),
        cmocka_unit_test(test_partition_reduce),
        cmocka_unit_test(test_matmul_accumulate_and_transpose),
        cmocka_unit_test(test_malformed_programs),
        cmocka_unit_test(test_out_of_bounds_at_run_time),
        cmocka_unit_test(test_deadlock_and_budget),
        cmocka_unit_test(test_dma_queues_independent),
        cmocka_unit_test(test_run_checks_descriptor),
        cmocka_unit_test(test_core_storage),
        cmocka_unit_test(test_print_setter_and_pack),
        cmocka_unit_test(test_contract_each_property),
        cmocka_unit_test(test_indirect_dma),
        cmocka_unit_test(test_default_budget),
        cmocka_unit_test(test_row_gather_scatter_walks),
        cmocka_unit_test(test_row_block_decision),
        cmocka_unit_test(test_row_elementwise_orders),
        cmocka_unit_test(test_row_copy_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
