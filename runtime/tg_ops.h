/* tg_ops.h — the per-op math of every engine instruction, on fp32 rows and
 * panels already widened from storage: the C simulation and the ISS both
 * call these, so they differ only in how they find their operands (SPEC.md
 * §5, DESIGN.md "one op-semantics module"). Callers do addressing and dtype
 * casts; this module fixes every rounding and every summation order.
 * Freestanding C99: no heap, stdio, exit or libm.
 *
 * Determinism: each fp32 operation is written as its own statement and the
 * runtime's and generated kernels' sources include tg_fp.h first, so nothing
 * is fused into an FMA whatever the flags. The static inline helpers below
 * compile in the caller's translation unit: other callers need a TU that does
 * not contract across statements (tg_fp.h first, or -ffp-contract=off).
 *
 * Orders (the ISS must reproduce exactly these — it does, by calling them):
 *  - matmul: dst[m][n] = (((c + p0) + p1) + ...) + p(K-1), p_k = fl(stat[k][m]
 *    · mov[k][n]) rounded to fp32, c = dst[m][n] when accumulating, else +0;
 *    a NaN result is the canonical NaN.
 *    So a K loop of tiles with accumulate gives the same bits as one big K.
 *  - row reductions: r = x[0]; r = r op x[j] for j = 1..n-1 (left to right),
 *    then negated (sign flip) if asked. The activation's `reduce` is the same
 *    fold with op add over the fp32 results (before any cast to dst).
 *  - partition_reduce: the same left fold over partitions 0, 1, ..., P-1.
 *  - scan: r = initial; r = op1(op0(a[j], r), b[j]); dst[j] = r, r kept fp32.
 *  - bn_stats / bn_aggr: see tg_bn_stats_f32 / tg_bn_aggr_f32 below.
 */
#ifndef TG_OPS_H
#define TG_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "tg_alu.h"
#include "tg_dtype.h"
#include "tg_machine.h"
#include "tg_math.h"

/* ---- element combinators (op folds away when it is a constant) ------------ */

/* a op b, inlined: the generated C passes a constant op and gets straight-line
 * code; the ISS passes a decoded op. Same results as tg_alu(). */
static inline float tg_op_alu(tg_alu_op op, float a, float b)
{
    switch (op) {
#define TG_OPS_ALU_CASE(ID, id) case TG_ALU_##ID: return tg_alu_##id(a, b);
        TG_ALU_OPS(TG_OPS_ALU_CASE)
#undef TG_OPS_ALU_CASE
    default: return tg_bits_f32(0x7fc00000u);
    }
}

/* a op b with the host's NaN (tg_alu_raw_*): for the chain of a fold. */
static inline float tg_op_alu_raw(tg_alu_op op, float a, float b)
{
    switch (op) {
#define TG_OPS_ALU_RAW_CASE(ID, id) case TG_ALU_##ID: return tg_alu_raw_##id(a, b);
        TG_ALU_OPS(TG_OPS_ALU_RAW_CASE)
#undef TG_OPS_ALU_RAW_CASE
    default: return tg_bits_f32(0x7fc00000u);
    }
}

/* f(x), inlined; same results as tg_act(). */
static inline float tg_op_act(tg_act_func f, float x)
{
    switch (f) {
#define TG_OPS_ACT_CASE(ID, id) case TG_ACT_##ID: return tg_act_##id(x);
        TG_ACT_FUNCS(TG_OPS_ACT_CASE)
#undef TG_OPS_ACT_CASE
    default: return tg_bits_f32(0x7fc00000u);
    }
}

/* Scalar engine activation of one element: t = x·scale; t = t + bias; f(t)
 * — two fp32 roundings, never fused (as tg_act_row). */
static inline float tg_activation(tg_act_func f, float x, float scale, float bias)
{
    float t = x * scale;
    t = t + bias;
    return tg_nan_canon(tg_op_act(f, t));
}

/* One tensor_scalar stage: x op s, or s op x when `reverse`. */
static inline float tg_tensor_scalar1(tg_alu_op op, float x, float s, int reverse)
{
    return reverse ? tg_op_alu(op, s, x) : tg_op_alu(op, x, s);
}

/* tensor_scalar with two stages: (x op0 s0) op1 s1, each optionally reversed;
 * the intermediate stays fp32. */
static inline float tg_tensor_scalar2(float x, tg_alu_op op0, float s0, int reverse0,
                                      tg_alu_op op1, float s1, int reverse1)
{
    float t = tg_tensor_scalar1(op0, x, s0, reverse0);
    return tg_tensor_scalar1(op1, t, s1, reverse1);
}

/* scalar_tensor_tensor of one element: (x op0 s) op1 b, op0's operands
 * swapped when `reverse0`; the intermediate stays fp32 (NKI: tensor_scalar
 * then tensor_tensor in one instruction). */
static inline float tg_scalar_tensor_tensor(float x, tg_alu_op op0, float s, int reverse0, tg_alu_op op1, float b)
{
    float t = tg_tensor_scalar1(op0, x, s, reverse0);
    return tg_op_alu(op1, t, b);
}

/* select (nl.where) of one element: pred != 0 ? on_true : on_false, on the
 * fp32-widened operands: NaN counts as true, -0 as false. The chosen value
 * keeps its bits (no canonical NaN: a move, not arithmetic). */
static inline float tg_where(float pred, float on_true, float on_false)
{
    return pred != 0.0f ? on_true : on_false;
}

/* ---- max8, nc_find_index8, nc_match_replace8 (SPEC.md §2.1) ------------------
 * Element by element in free-index order on fp32-widened values, so the C
 * simulation and the ISS stream the same calls.
 *
 * max8 order: a total order on fp32 values, tg_max8_key: NaN above +inf (every
 * NaN output as the canonical NaN), then by value, +0 above -0. The 8 slots
 * start at -inf and hold the largest values seen, descending; a value enters
 * when it ranks strictly above the smallest slot, after the slots that rank
 * equal or above it (equal keys are equal bits, so ties cannot be told apart).
 * Fewer than 8 elements leave -inf in the last slots. */
/* The order of fp32 values, -0 below +0, as unsigned integers: the bits with
 * the sign bit flipped (>= 0) or all bits flipped (< 0); tg_order_bits is its
 * inverse. A NaN lands at one end by its sign: callers treat NaN apart. */
static inline uint32_t tg_order_key(uint32_t b) { return b ^ ((0u - (b >> 31)) | 0x80000000u); }
static inline uint32_t tg_order_bits(uint32_t k) { return k >> 31 ? k ^ 0x80000000u : ~k; }
/* A maximum or minimum fold (tensor_reduce's, an accumulate's) kept as the
 * order key of its result so far and a NaN flag: the same result as the fold
 * of tg_alu_raw_maximum/minimum made canonical (a NaN anywhere gives the
 * canonical NaN), whatever the order of the elements, so a loop of them
 * vectorizes. tg_key_result gives the fold's value. */
static inline uint32_t tg_key_max(uint32_t kx, uint32_t u)
{
    const uint32_t k = tg_order_key(u);
    return k > kx ? k : kx;
}
static inline uint32_t tg_key_min(uint32_t kx, uint32_t u)
{
    const uint32_t k = tg_order_key(u);
    return k < kx ? k : kx;
}
static inline uint32_t tg_key_nan(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }
static inline float tg_key_result(uint32_t kx, uint32_t nan)
{
    return tg_bits_f32(nan ? TG_NAN_CANON_BITS : tg_order_bits(kx));
}

static inline uint32_t tg_max8_key(float x)
{
    return x != x ? 0xffffffffu : tg_order_key(tg_f32_bits(x));
}

/* A partition_reduce maximum (templates/kernel.c.j2 preduce_block) folds
 * each element's tg_max8_key, whose NaN key 0xffffffff no number reaches
 * (+inf's is 0xff800000): tg_pmax_result of the largest key is the canonical
 * NaN when a NaN won, else its number, -0 below +0. The same result as the
 * fold of tg_alu_raw_maximum made canonical, in any order of the partitions,
 * and the fold is an unsigned integer max that vectorizes (bench/probes
 * t10's column max over [512, 4096]: the kernel 0.51 -> 0.23-0.28 ms). */
static inline uint32_t tg_max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }
static inline uint32_t tg_min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline float tg_pmax_result(uint32_t k)
{
    return tg_key_result(k, k > 0xff800000u);
}

static inline void tg_max8_init(float top[8])
{
    int i;
    for (i = 0; i < 8; i++)
        top[i] = tg_bits_f32(0xff800000u);
}

static inline void tg_max8_add(float top[8], float x)
{
    uint32_t k = tg_max8_key(x);
    int i = 7;
    if (k <= tg_max8_key(top[7]))
        return;
    while (i > 0 && k > tg_max8_key(top[i - 1])) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = tg_nan_canon(x);
}

/* nc_find_index8 / nc_match_replace8 pairing: element x (in free-index order)
 * claims the lowest slot i not yet claimed whose value equals it (fp32 ==:
 * NaN matches nothing, +0 matches -0), so a value given k times pairs with its
 * first k occurrences (NKI's find_index8 order). *used is the bit mask of
 * claimed slots. Returns the slot or -1. */
static inline int tg_claim8(unsigned *used, const float vals[8], float x)
{
    int i;
    for (i = 0; i < 8; i++)
        if (!(*used >> i & 1u) && x == vals[i]) {
            *used |= 1u << i;
            return i;
        }
    return -1;
}

/* The index slot of a value that does not occur: NKI's all-ones sentinel, as
 * the fp32 that casts to 0xffffffff (uint32) or 0xffff (uint16), saturating. */
#define TG_FIND8_NONE 4294967295.0f

/* nc_find_index8 of element j: idx[slot] = j for the slot it claims. */
static inline void tg_find8_add(float idx[8], unsigned *used, const float vals[8], float x, int64_t j)
{
    int i = tg_claim8(used, vals, x);
    if (i >= 0)
        idx[i] = (float)j;
}

/* nc_match_replace8 of one element: imm when it claims a slot, else x. */
static inline float tg_match8(unsigned *used, const float vals[8], float x, float imm)
{
    return tg_claim8(used, vals, x) >= 0 ? imm : x;
}

/* The least and greatest of vals that are not NaN (+inf and -inf if all
 * are): an element outside [lo, hi], or a NaN, equals none of them, so it
 * claims no slot (tg_claim8 compares with ==, where -0 == +0) and a scan may
 * skip it with one test (the row's other elements: nc_find_index8 over a
 * row whose 8 largest values are the slots). */
static inline void tg_find8_range(const float vals[8], float *lo, float *hi)
{
    int i;
    *lo = tg_bits_f32(0x7f800000u);
    *hi = tg_bits_f32(0xff800000u);
    for (i = 0; i < 8; i++) {
        if (vals[i] < *lo)
            *lo = vals[i];
        if (vals[i] > *hi)
            *hi = vals[i];
    }
}
/* ---- The C simulation's forms of max8 and nc_find_index8 / match_replace8 ----
 * The same slots as tg_max8_add / tg_find8_add / tg_match8 above (which the
 * ISS keeps, so the differential fuzzer compares the two), without a branch
 * on the data for each element's place: on short rows (a MoE router's 8 to
 * 64 experts) nearly every element enters the top 8 or claims a slot, and
 * the loops of compares above mispredicted at each (bench/probes
 * y04_moe_router_top2: ~140 ns a 10-wide row for each op).
 *
 * max8: the top 8 as their tg_max8_key keys in eight scalars the compiler
 * keeps in registers. Inserting key k into the descending k0 >= ... >= k7 is
 * k_i' = max(k_i, min(k_{i-1}, k)) with k_{-1} above every key: min/max of
 * unsigned integers, no branch. Equal keys are equal bits, so this is the
 * same multiset in the same order as the insertion after equal keys. One
 * branch skips keys at most k7 (most elements of a long row). */
typedef struct tg_top8 {
    uint32_t k0, k1, k2, k3, k4, k5, k6, k7;
} tg_top8;

static inline void tg_top8_init(tg_top8 *t)
{
    t->k0 = t->k1 = t->k2 = t->k3 = t->k4 = t->k5 = t->k6 = t->k7 = 0x007fffffu; /* -inf's key */
}

#define TG_TOP8_STEP(f)                                                                                      \
    do {                                                                                                     \
        const uint32_t tg__c = t->f;                                                                         \
        t->f = tg_max_u32(tg__c, tg__p);                                                                     \
        tg__p = tg_min_u32(tg__c, k);                                                                        \
    } while (0)
static inline void tg_top8_add(tg_top8 *t, float x)
{
    const uint32_t k = tg_max8_key(x);
    uint32_t tg__p = k;
    if (k <= t->k7)
        return;
    TG_TOP8_STEP(k0);
    TG_TOP8_STEP(k1);
    TG_TOP8_STEP(k2);
    TG_TOP8_STEP(k3);
    TG_TOP8_STEP(k4);
    TG_TOP8_STEP(k5);
    TG_TOP8_STEP(k6);
    TG_TOP8_STEP(k7);
}
#undef TG_TOP8_STEP

/* The 8 slots' values: each key's number, the canonical NaN for NaN's. */
static inline void tg_top8_out(const tg_top8 *t, float out[8])
{
    out[0] = tg_pmax_result(t->k0);
    out[1] = tg_pmax_result(t->k1);
    out[2] = tg_pmax_result(t->k2);
    out[3] = tg_pmax_result(t->k3);
    out[4] = tg_pmax_result(t->k4);
    out[5] = tg_pmax_result(t->k5);
    out[6] = tg_pmax_result(t->k6);
    out[7] = tg_pmax_result(t->k7);
}

/* The slots x equals (fp32 ==) as a bit mask: eight compares the compiler
 * makes one vector compare. */
static inline unsigned tg_eq8(const float vals[8], float x)
{
    unsigned m = 0;
    int i;
    for (i = 0; i < 8; i++)
        m |= (unsigned)(x == vals[i]) << i;
    return m;
}

/* tg_claim8 as a bit: the lowest unclaimed slot equal to x, claimed, as
 * 1 << slot, or 0. */
static inline unsigned tg_claim8_bit(unsigned *used, const float vals[8], float x)
{
    const unsigned m = tg_eq8(vals, x) & ~*used;
    const unsigned b = m & (0u - m);
    *used |= b;
    return b;
}

/* The index of the lowest set bit of b != 0. */
static inline int tg_ctz32(uint32_t b)
{
#if defined(__GNUC__)
    return __builtin_ctz(b);
#else
    int i = 0;
    while (!(b >> i & 1u))
        i++;
    return i;
#endif
}

/* The slot of a claim bit, 8 for none (a find's spare ninth slot). */
static inline int tg_slot9(unsigned b) { return tg_ctz32(b | 0x100u); }

/* nc_find_index8 of element j into idx[9] (idx[8] a spare that no output
 * reads): no branch at all; tg_find8_put_in adds the range test that skips
 * most elements of a long row. */
static inline void tg_find8_put(float idx[9], unsigned *used, const float vals[8], float x, int64_t j)
{
    idx[tg_slot9(tg_claim8_bit(used, vals, x))] = (float)j;
}
static inline void tg_find8_put_in(float idx[9], unsigned *used, const float vals[8], float lo, float hi, float x,
                                   int64_t j)
{
    if (x >= lo && x <= hi)
        tg_find8_put(idx, used, vals, x, j);
}

/* nc_match_replace8 of one element, the claim as a bit. */
static inline float tg_match8_bit_in(unsigned *used, const float vals[8], float lo, float hi, float x, float imm)
{
    return x >= lo && x <= hi && tg_claim8_bit(used, vals, x) ? imm : x;
}

/* tensor_tensor of one element pair. */
static inline float tg_tensor_tensor(tg_alu_op op, float a, float b) { return tg_op_alu(op, a, b); }

/* affine_select element: pred ? on_true : fill. */
static inline float tg_select(int pred, float on_true, float fill) { return pred ? on_true : fill; }

/* Comparison operators of affine_select predicates (`e1 OP e2`). */
typedef enum tg_cmp {
    TG_CMP_LT = 0, /* <  */
    TG_CMP_LE,     /* <= */
    TG_CMP_GT,     /* >  */
    TG_CMP_GE,     /* >= */
    TG_CMP_EQ,     /* == */
    TG_CMP_NE,     /* != */
    TG_CMP_COUNT
} tg_cmp;

/* `a OP b` on the integer values of an affine predicate; 0 for a bad op. */
static inline int tg_cmp_eval(tg_cmp op, int64_t a, int64_t b)
{
    switch (op) {
    case TG_CMP_LT: return a < b;
    case TG_CMP_LE: return a <= b;
    case TG_CMP_GT: return a > b;
    case TG_CMP_GE: return a >= b;
    case TG_CMP_EQ: return a == b;
    case TG_CMP_NE: return a != b;
    default: return 0;
    }
}

/* iota: NKI computes the index expression in int32 and then casts to the
 * destination dtype. The expression value `v` (evaluated exactly in int64 by
 * the caller) wraps to int32 (two's complement), then converts as a
 * tensor_copy from int32 would (tg_cvt_row: bit copy for int32, via fp32 —
 * RNE, saturating for narrower integers — for every other dtype). Writes
 * element `i` of the `dt` row at `base`; returns 0, or -1 for a bad dtype. */
static inline int32_t tg_iota_wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
int tg_iota_cast(void *base, tg_dtype dt, size_t i, int64_t v);
/* The same value as fp32 (int32 → fp32, RNE), for callers on fp32 panels. */
static inline float tg_iota_f32(int64_t v) { return (float)tg_iota_wrap(v); }

/* ---- rows (one partition's free elements, flattened, contiguous) ----------- */

/* dst[j] = a[j] op b[j]. dst may equal a or b. */
static inline void tg_tensor_tensor_row(float *dst, const float *a, const float *b, size_t n,
                                        tg_alu_op op)
{
    size_t j;
    for (j = 0; j < n; j++)
        dst[j] = tg_op_alu(op, a[j], b[j]);
}

/* dst[j] = tensor_scalar2(src[j], ...) (pass op1 = TG_ALU_COUNT for a
 * single-stage tensor_scalar). dst may equal src. */
static inline void tg_tensor_scalar_row(float *dst, const float *src, size_t n, tg_alu_op op0,
                                        float s0, int reverse0, tg_alu_op op1, float s1,
                                        int reverse1)
{
    size_t j;
    if (op1 == TG_ALU_COUNT) {
        for (j = 0; j < n; j++)
            dst[j] = tg_tensor_scalar1(op0, src[j], s0, reverse0);
        return;
    }
    for (j = 0; j < n; j++)
        dst[j] = tg_tensor_scalar2(src[j], op0, s0, reverse0, op1, s1, reverse1);
}

/* 1 when `op` may be a tensor_reduce / activation-reduce operator: add
 * subtract multiply maximum minimum, logical_and/or/xor, and the bitvec
 * bitwise_and/or/xor (NKI "Supported Math Operators": reduce-legal ops). */
int tg_reduce_legal(tg_alu_op op);

/* tensor_reduce of one row: x[0] op x[1] op ... left to right in fp32, then
 * r = -r when `negate` (a sign flip: the same as ×−1.0 for every non-NaN).
 * n = 0 gives NaN (nothing to reduce; the generator never emits it). */
static inline float tg_reduce_row(const float *x, size_t n, tg_alu_op op, int negate)
{
    float r;
    size_t j;
    if (n == 0)
        return tg_bits_f32(0x7fc00000u);
    r = x[0];
    for (j = 1; j < n; j++)
        r = tg_op_alu_raw(op, r, x[j]);
    r = tg_nan_canon(r); /* the raw fold's bits, NaN made canonical once (tg_alu.h) */
    return negate ? -r : r;
}

/* Bitvec tensor_reduce on raw 32-bit integer patterns (NKI: no cast for
 * bitvec ops), for integer tiles kept as integers: the same left fold with
 * tg_alu_bits. n = 0 gives 0. */
uint32_t tg_reduce_bits(const uint32_t *x, size_t n, tg_alu_op op);

/* activation with an optional `reduce` (add): dst[j] = activation(src[j]);
 * when `sum` is non-null, *sum = the left-to-right fp32 sum of the dst
 * values (before any cast to dst's dtype). dst may equal src. */
static inline void tg_activation_row(float *dst, const float *src, size_t n, tg_act_func f,
                                     float scale, float bias, float *sum)
{
    size_t j;
    for (j = 0; j < n; j++)
        dst[j] = tg_activation(f, src[j], scale, bias);
    if (sum)
        *sum = tg_reduce_row(dst, n, TG_ALU_ADD, 0);
}

/* dst[j] = tg_activation(f, src[j], scale, bias) for j < n: fp32 rows,
 * contiguous, any alignment; dst equal to src or apart from it. The widest
 * SIMD body this CPU runs (tg_matmul_isa), every body the same bits. */
void tg_activation_f32_row(tg_act_func f, void *dst, const void *src, size_t n, float scale, float bias);
/* The functions whose rows have vector-type bodies (runtime/tg_ops.c, the
 * AVX-512 body): their row is worth a call even where the template could
 * compute the element form inline (templates/kernel.c.j2 act_chunks, through
 * gen/emit.c's `vec_row`). */
#define TG_ACT_VEC_ROWS(X)                                                                \
    X(EXP, exp) X(SIGMOID, sigmoid) X(SILU, silu) X(GELU_APPRX_TANH, gelu_apprx_tanh)       \
    X(SQRT, sqrt) X(ERF, erf) X(GELU, gelu) X(SIN, sin) X(TANH, tanh) X(RSQRT, rsqrt)       \
    X(LOG, log) X(SOFTPLUS, softplus)
/* 1 if f is one of them. */
static inline int tg_act_vec_row(tg_act_func f)
{
    switch (f) {
#define TG_ACT_VEC_CASE(ID, id) case TG_ACT_##ID:
        TG_ACT_VEC_ROWS(TG_ACT_VEC_CASE)
#undef TG_ACT_VEC_CASE
        return 1;
    default:
        return 0;
    }
}

/* d[j] = tg_alu(op, a[j], b[j]) for j < n: fp32 rows, contiguous, any
 * alignment; d equal to a or b or apart from both. op as tg_alu_f32_row_op
 * allows (tg_alu.h; others: nothing is written). The widest SIMD body this CPU runs
 * (tg_matmul_isa), every body the bits of the element-by-element ops. */
void tg_tensor_tensor_f32_row(tg_alu_op op, void *d, const void *a, const void *b, size_t n);

/* tensor_scalar of an fp32 row: x = s[j], then for each of the nst stages
 * x = op[k](x, c[k]) (rev[k]: op[k](c[k], x)), d[j] = x; d equal to s or
 * apart from it. Ops and bodies as tg_tensor_tensor_f32_row. */
void tg_tensor_scalar_f32_row(void *d, const void *s, size_t n, int nst, const tg_alu_op op[2], const float c[2],
                              const int rev[2]);

/* scalar_tensor_tensor of an fp32 row: d[j] = (s[j] op0 c) op1 b[j] (rev0:
 * c op0 s[j]), the intermediate fp32, as tg_scalar_tensor_tensor; d equal
 * to s or b or apart from both. Ops and bodies as
 * tg_tensor_tensor_f32_row. */
void tg_scalar_tensor_tensor_f32_row(void *d, const void *s, const void *b, size_t n, tg_alu_op op0, float c,
                                     int rev0, tg_alu_op op1);

/* tensor_tensor_scan of one row: r = initial; for j: r = (a[j] op0 r) op1
 * b[j]; dst[j] = r (r carried in fp32, not in dst's dtype). dst may equal a
 * or b. */
static inline void tg_scan_row(float *dst, const float *a, const float *b, size_t n,
                               float initial, tg_alu_op op0, tg_alu_op op1)
{
    float r = initial;
    size_t j;
    for (j = 0; j < n; j++) { /* the chain raw, each output canonical (tg_alu.h) */
        float t = tg_op_alu_raw(op0, a[j], r);
        r = tg_op_alu_raw(op1, t, b[j]);
        dst[j] = tg_nan_canon(r);
    }
}

/* ---- statistics ------------------------------------------------------------ */

/* bn_stats of one row of n ≤ TG_BN_STATS_FMAX elements (NKI layout):
 *   out = {count_e, mean_e, M2_e, count_o, mean_o, M2_o}
 * over the even-indexed (j = 0, 2, ...) and the odd-indexed elements; M2 is
 * variance·count = Σ (x − mean)². Two passes in fp32, left to right:
 *   s = x[first]; s = s + x[j] ...;  mean = s / count;
 *   d = x[j] − mean; q = d·d; M2 = M2 + q ... starting from M2 = q(first).
 * An empty half (n = 1 has no odd element) gives {0, 0, 0}. Returns 0, or -1
 * when n is 0 or above TG_BN_STATS_FMAX (out untouched). */
int tg_bn_stats_f32(float out[6], const float *x, size_t n);

/* bn_aggr of one row of n floats = n/3 records (count, mean, M2), e.g. k
 * bn_stats outputs of 6 each (NKI: the input is a multiple of three):
 *   out = {mean, population variance}.
 * Chan et al.'s pairwise update, folding records left to right in fp32:
 *   start at the first record with count > 0: (na, ma, Ma); for each later
 *   record (nb, mb, Mb) with nb > 0:
 *     n = na + nb;  d = mb − ma;  w = nb / n;  ma = ma + d·w;
 *     v = na · w;  Ma = Ma + Mb;  Ma = Ma + (d·d)·v;  na = n
 *   (each step one fp32 rounding, in that order); var = Ma / na.
 * Records with count 0 are skipped. Returns 0, or -1 when n is 0 or not a
 * multiple of 3 (out untouched); no record with count > 0 gives {NaN, NaN}. */
int tg_bn_aggr_f32(float out[2], const float *x, size_t n);

/* Partition rows a fold, scan or statistic runs at once, one row per lane
 * (gen/emit.c put_lanes, the *_lanes functions below): TG_LANES independent
 * fp32 chains, each in its own row's order, so the same bits as one row at a
 * time, without waiting on one chain's latency. */
#define TG_LANES 16
/* Elements of each row the lanes take at once, staged transposed so that
 * the lanes' step reads consecutive floats (templates/kernel.c.j2
 * lane_block; with tg_lanes_stage_f32, cumsum 1.47 -> 0.59 ms). 64 (four
 * cache lines of each row per block) rather than 16: partition rows a
 * multiple of 4 KiB apart share L1 sets, and a scan's 16 source and 16 dst
 * rows evicted each other's lines between blocks of one line each (cumsum
 * 0.25 -> 0.16-0.17 ms). A lane instruction's buffers are 4 KiB each, at
 * most three (two sources and a scan's results) on the stack. */
#define TG_LANE_BLOCK 64
/* Free elements a partition_reduce folds at once (templates/kernel.c.j2
 * partition_reduce): their fp32 accumulators stay in L1 while the source's
 * partition rows stream past them (each element still folds its partitions in
 * order). Per element over all partitions was one cache set for every row:
 * [128, 8192] fp32 tiles, 26-75 ms against numpy's 1.5. */
#define TG_PREDUCE_BLOCK 1024

/* The staging of a lane block (templates/kernel.c.j2 lane_block) for fp32
 * operands whose block is consecutive in each row: t[j·TG_LANES + l] = fp32
 * element off + j of lane l's row (rows[l], bytes), j < n, moved as bits.
 * 4x4 register transposes where the compiler has vector shuffles. */
void tg_lanes_stage_f32(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n);
/* And back, for the first `lanes` rows only: fp32 element off + j of rows[l]
 * = t[j·TG_LANES + l], j < n, l < lanes ≤ TG_LANES. Rows must not overlap
 * each other's written elements (partition rows never do). */
void tg_lanes_unstage_f32(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes);
/* The staging for bf16 operands whose block is consecutive in each row: t[j·TG_LANES
 * + l] = tg_bf16_to_f32 of bf16 element off + j of rows[l], the bits of the
 * template's element-by-element read (tg_rd_bf16). */
void tg_lanes_stage_bf16(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n);
/* And back, as tg_lanes_unstage_f32 does it: bf16 element off + j of rows[l] =
 * tg_f32_to_bf16(t[j·TG_LANES + l]), j < n, l < lanes (the template's
 * element-by-element write, tg_wr_bf16). */
void tg_lanes_unstage_bf16(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes);
/* The two for fp16, fp8 e4m3 and e5m2 operands (tg_<sfx>_to_f32 and
 * tg_f32_to_<sfx>: tg_rd_<sfx> and tg_wr_<sfx>'s bits; 1-byte elements for
 * fp8). */
void tg_lanes_stage_f16(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n);
void tg_lanes_unstage_f16(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes);
void tg_lanes_stage_e4m3(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n);
void tg_lanes_unstage_e4m3(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes);
void tg_lanes_stage_e5m2(float *t, const uint8_t *const rows[TG_LANES], int64_t off, int64_t n);
void tg_lanes_unstage_e5m2(uint8_t *const rows[TG_LANES], int64_t off, const float *t, int64_t n, int64_t lanes);
/* A lane block's fold for op add, subtract or multiply (tg_lanes_fold_legal):
 * r[l] = r[l] op t[j·TG_LANES + l] for j = 0 .. n-1 in turn, each lane's
 * chain in its order (fp32, no contraction: the bits of tg_alu_raw_<op>
 * element by element), the lanes in vector registers across the block. */
void tg_lanes_fold_f32(float r[TG_LANES], const float *t, int64_t n, tg_alu_op op);
/* tg_activation_f32_row over the lane block t in place, then
 * tg_lanes_fold_f32 of it: r[l] = r[l] op f(t[j·TG_LANES + l]·scale + bias)
 * in each lane's order, the bits of the two calls (a NaN's payload aside, as
 * the fold's). copy, square and abs are computed in the fold's registers,
 * without the pass over t (rmsnorm's sum of squares 0.041 -> 0.032 ms). t is
 * scratch: its contents afterwards are unspecified. */
void tg_lanes_act_fold_f32(float r[TG_LANES], float *t, int64_t n, tg_act_func f, float scale, float bias,
                           tg_alu_op op);
/* The same over n elements from element off of each of the 16 rows
 * (rows[l], bytes), in blocks of TG_LANE_BLOCK staged by tg_lanes_stage_<sfx>
 * and folded by tg_lanes_act_fold_f32: the bits of those calls in turn. With
 * AVX2 (in the build's flags, or x86-64 without them at the runtime's
 * level 2), copy, square and abs of fp32, bf16 and fp16 rows that do not
 * crowd one L1 set are read, widened, transposed and folded in registers,
 * 8 columns at a time. */
void tg_lanes_stage_act_fold_f32(float r[TG_LANES], const uint8_t *const rows[TG_LANES], int64_t off, int64_t n,
                                 tg_act_func f, float scale, float bias, tg_alu_op op);
void tg_lanes_stage_act_fold_bf16(float r[TG_LANES], const uint8_t *const rows[TG_LANES], int64_t off, int64_t n,
                                  tg_act_func f, float scale, float bias, tg_alu_op op);
void tg_lanes_stage_act_fold_f16(float r[TG_LANES], const uint8_t *const rows[TG_LANES], int64_t off, int64_t n,
                                 tg_act_func f, float scale, float bias, tg_alu_op op);
void tg_lanes_stage_act_fold_e4m3(float r[TG_LANES], const uint8_t *const rows[TG_LANES], int64_t off, int64_t n,
                                  tg_act_func f, float scale, float bias, tg_alu_op op);
void tg_lanes_stage_act_fold_e5m2(float r[TG_LANES], const uint8_t *const rows[TG_LANES], int64_t off, int64_t n,
                                  tg_act_func f, float scale, float bias, tg_alu_op op);
/* 1 if tg_lanes_fold_f32 takes op. */
static inline int tg_lanes_fold_legal(tg_alu_op op)
{
    return op == TG_ALU_ADD || op == TG_ALU_SUBTRACT || op == TG_ALU_MULTIPLY;
}
/* The max (`is_min` 0) or min fold of n consecutive fp32 elements at row
 * (bytes) on ordered keys: *kx = the max (min) of *kx and every element's
 * tg_order_key, *nan |= 1 if any element is a NaN (the tensor_reduce max/min
 * rule: templates/kernel.c.j2). The order of the elements does not matter. */
void tg_reduce_key_f32(const uint8_t *row, int64_t n, int is_min, uint32_t *kx, uint32_t *nan);

/* tg_bn_stats_f32 of TG_LANES rows at once: element j of lane l's row is
 * x[j·TG_LANES + l] (all rows n long), its record goes to out[l·6 .. l·6+5].
 * Per lane the same operations in the same order, so the same bits. Returns
 * 0, or -1 when n is 0 or above TG_BN_STATS_FMAX (out untouched). */
int tg_bn_stats_lanes_f32(float out[6 * TG_LANES], const float *x, size_t n);

/* tg_bn_aggr_f32 of TG_LANES rows at once, laid out as for
 * tg_bn_stats_lanes_f32; lane l's {mean, variance} go to out[2l], out[2l+1].
 * The same bits per lane. Returns 0, or -1 when n is 0, not a multiple of 3
 * or above TG_BN_STATS_FMAX (out untouched).
 * Both: a lane with a NaN output is done again by the one-row function, whose
 * NaN payloads the ISS gets (tg_ops.c tg__lanes_nan_redo); 2 KiB of stack. */
int tg_bn_aggr_lanes_f32(float out[2 * TG_LANES], const float *x, size_t n);

/* ---- Tensor engine ---------------------------------------------------------- */

/* A Tensor-engine operand where it lies (an SBUF tile region, or any fp32
 * panel): element (k, j) — partition k, free element j — at byte
 * k·pstride + j·fstride·size(dtype) from base. dtype is a float dtype
 * (tfloat32 reads as fp32); integer dtypes read as tg_load_f32 does. */
typedef struct tg_pe_src {
    const void *base;
    ptrdiff_t pstride; /* bytes from one partition (k) to the next */
    ptrdiff_t fstride; /* elements from one free element to the next */
    tg_dtype dtype;
} tg_pe_src;

/* Floats of scratch with which tg_matmul packs a whole K block of both
 * operands at once, for K ≤ k, M ≤ m and N ≤ n (so every element is widened
 * once per call): min(k, 128) rows of m and of n, m + 15 covering M rounded
 * up to the widest micro-kernel's rows (8) plus the 8 floats a flat pack of
 * the stationary adds per k row (tg_mm_impl.h TG_MM_FLAT_LDA), n + 31 N
 * rounded up to its columns (32), and a cache line of padding per packed
 * panel (at most one panel per row or column). */
#define TG_MATMUL_SCRATCH_FLOATS(k, m, n)                                                                    \
    (((size_t)((k) < TG_MATMUL_K_MAX ? (k) : TG_MATMUL_K_MAX) + 16u) * ((size_t)(m) + 15u + (size_t)(n) + 31u))

/* matmul on operands in place: dst[m·ds + n] (+)= Σ_k stat(k, m) · mov(k, n),
 * m < M, n < N, k < K, in the order of tg_matmul_f32 (below): each element
 * widened to fp32 as tg_dtype.h does (exactly), every product rounded to
 * fp32, summed in increasing k from dst's value (`accumulate`) or from +0.
 * dst is read and written in place (fp32 rows ds floats apart), never
 * staged; it must not overlap the operands. Each operand element is widened
 * once per 128-row K block when scratch holds TG_MATMUL_SCRATCH_FLOATS(K, M, N)
 * floats; else (NULL too) M and N go in blocks packed on the stack (48 KiB)
 * and elements are widened once per block pair. */
void tg_matmul(float *dst, ptrdiff_t dst_stride, tg_pe_src stat, tg_pe_src mov, int K, int M, int N,
               int accumulate, float *scratch, size_t scratch_floats);

/* tg_matmul, told that operands are packed in scratch already: keep has
 * TG_MATMUL_KEEP_STAT and/or TG_MATMUL_KEEP_MOV when the previous call on
 * this scratch was a tg_matmul_keep (or tg_matmul) with the same K, M, N,
 * scratch_floats and operand dtypes, and that operand's elements are the
 * same as then (the generator proves it: a loop-invariant operand of the
 * loop's only Tensor-engine op; docs/ir.md). The runtime then skips packing
 * it where its layout keeps every packed panel (one K block, scratch for all
 * of N), and packs it as tg_matmul does elsewhere. The same bits as
 * tg_matmul. */
#define TG_MATMUL_KEEP_STAT 1
#define TG_MATMUL_KEEP_MOV 2
/* N up to this many dst columns (a matrix-vector product), or else M up to
 * this many dst rows (a vector-matrix product: a ones column summing
 * partitions): done without packing either operand (so nothing is kept;
 * `keep` is then ignored). */
#define TG_MATMUL_NARROW 4
void tg_matmul_keep(float *dst, ptrdiff_t dst_stride, tg_pe_src stat, tg_pe_src mov, int K, int M, int N,
                    int accumulate, float *scratch, size_t scratch_floats, int keep);

/* tg_matmul over nblk blocks of K rows in turn — block b's operands are
 * stat and mov with their bases advanced by b·stat_bstride and
 * b·mov_bstride bytes — into one dst, k in increasing order across all of
 * them, from dst (`accumulate`) or +0: the bits of a loop of nblk
 * accumulating tg_matmul calls (the first with `accumulate`), in one call, so
 * the packing and the kernels run over the whole K (a carried K loop of
 * accumulating matmuls, folded by the generator; docs/ir.md). K·nblk must
 * fit an int. Scratch as for tg_matmul with K rows. */
void tg_matmul_blocks(float *dst, ptrdiff_t dst_stride, tg_pe_src stat, tg_pe_src mov, int K, int M, int N,
                      int nblk, ptrdiff_t stat_bstride, ptrdiff_t mov_bstride, int accumulate, float *scratch,
                      size_t scratch_floats);

/* matmul: dst[m·ds + n] (+)= Σ_k stat[k·ss + m] · mov[k·ms + n], for m < M,
 * n < N, k < K (strides in floats). Order as in the header comment: fp32
 * products, summed in increasing k from the existing dst value when
 * `accumulate`, else from +0. dst must not overlap stat or mov. Any M, N, K
 * ≥ 0 (K = 0 leaves dst, or zeroes it without `accumulate`). Cache-blocked
 * and register-tiled; blocking never changes the per-element order. Uses
 * 48 KiB of stack for packed panels: tg_matmul with these operands as fp32
 * and no scratch. A fused multiply-add only where it gives the same bits:
 * the AVX-512F kernels (and a baseline built with FMA, gcc) fuse a pair of
 * packs when every product of their values is exact in fp32 (significant
 * bits adding up to at most 24, products in [2^-126, 2^128), no inf or NaN:
 * bf16, fp16, fp8 and short fp32 mantissas), else multiply and add apart
 * (tg_mm_impl.h tg__mm_fusable; docs/numerics.md "Determinism"). */
void tg_matmul_f32(float *dst, ptrdiff_t dst_stride, const float *stat, ptrdiff_t stat_stride,
                   const float *mov, ptrdiff_t mov_stride, int K, int M, int N, int accumulate);

/* The plain triple loop with the same order (the reference the tests and the
 * ISS may use; slow). */
void tg_matmul_f32_ref(float *dst, ptrdiff_t dst_stride, const float *stat,
                       ptrdiff_t stat_stride, const float *mov, ptrdiff_t mov_stride, int K,
                       int M, int N, int accumulate);

/* Which SIMD body tg_matmul_f32, tg_activation_f32_row and the other rows
 * run, and which body a generated kernel runs (its AVX2 one at 2, its AVX-512
 * one, gcc's, at 3): 1 baseline (SSE2 on x86-64, NEON/scalar elsewhere), 2
 * AVX2, 3 AVX-512 F, BW, DQ and VL (tg_simd.h) —
 * picked from the CPU at the first call on x86-64 (a portable build) or fixed
 * by the build flags. cap ≥ 1 limits it
 * from then on (tests run every body; not thread-safe); cap ≤ 0 only asks.
 * Returns the level in effect. Every level gives the same bits. */
int tg_matmul_isa(int cap);

/* Tensor engine transpose: dst[f·ds + p] = src[p·ss + f] for p < P, f < F —
 * an exact fp32 copy; NaN and inf keep their bits here. (NeuronCore-v2
 * hardware transposes by a matmul with the identity, which smears NaN/inf
 * across the output; we model the ideal copy — a documented difference.)
 * Elements move as 4-byte bit patterns, so it also transposes any 4-byte
 * dtype (the C simulation folds a loop of strided copies into one call:
 * docs/ir.md). 8x8 register blocks where the compiler has vector shuffles.
 * dst must not overlap src. */
void tg_transpose_f32(float *dst, ptrdiff_t dst_stride, const float *src, ptrdiff_t src_stride,
                      int P, int F);

/* The same move for elements of es bytes (1, 2 or 4; strides in elements):
 * dst[f·ds + p] = src[p·ss + f] as bit patterns. 4 and 2 bytes in 8x8
 * register blocks where the compiler has vector shuffles. The C simulation's
 * transposed DMA loads and stores. dst must not overlap src. */
/* The block (elements along the free dim) of a transposing copy with a
 * cast in the generated code (templates/kernel.c.j2 transpose_copy): its
 * stack buffer holds 128 partitions of TG_TRC_J elements of up to 4 bytes. */
#define TG_TRC_J 64
void tg_transpose(void *dst, ptrdiff_t dst_stride, const void *src, ptrdiff_t src_stride, int P, int F,
                  size_t es);

/* Tensor engine transpose of an operand in place: dst[f·ds + p] = src(p, f)
 * widened to fp32 (tg_load_f32's values; fp32 and tfloat32 move as bits),
 * p < P, f < F. fp32 rows go straight through tg_transpose_f32; other
 * dtypes are widened 8 rows at a time on the stack (4 KiB) and moved the
 * same way. dst must not overlap src. */
void tg_transpose_pe(float *dst, ptrdiff_t dst_stride, tg_pe_src src, int P, int F);

/* ---- GpSimd ------------------------------------------------------------------ */

/* 1 for the partition_reduce operators NKI allows: add, maximum,
 * bitwise_or, bitwise_and. */
int tg_partition_reduce_legal(tg_alu_op op);

/* partition_reduce: dst[f] = src[0][f] op src[1][f] op ... op src[P-1][f],
 * folding partitions in increasing order (src rows `src_stride` floats
 * apart). P = 0 fills dst with NaN. dst must not overlap src. */
void tg_partition_reduce_f32(float *dst, const float *src, ptrdiff_t src_stride, int P,
                             size_t F, tg_alu_op op);

/* The bitvec ops (bitwise_or / bitwise_and) on raw 32-bit patterns. */
void tg_partition_reduce_bits(uint32_t *dst, const uint32_t *src, ptrdiff_t src_stride, int P,
                              size_t F, tg_alu_op op);

#endif /* TG_OPS_H */
