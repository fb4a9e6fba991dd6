/* fuzz_prog_mut.c - libFuzzer target with a structured mutator over binary
 * programs (seeds: the bundled kernels' assembled programs, corpus_prog/).
 * Each mutation changes 1-3 fields that the ISS trusts - tile bases, slots,
 * copies, partitions and dtypes, operand dtypes, spaces, indices, steps, free
 * dims, the constants of offsets and counts, opcodes, engines, loop bounds,
 * semaphores - and reseals the checksum, so most mutants reach the validator
 * and many pass it; those run on the ISS and the timing model (fuzz_exec.h).
 * Inputs that no longer decode fall back to libFuzzer's byte mutations. */
#include "fuzz_exec.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng_state;

static uint32_t rnd(uint32_t n) /* uniform enough in [0, n), n > 0 */
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

static uint64_t get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put(uint8_t *p, int n, uint64_t v)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A nearby or interesting value: small steps, doubling, alignment breakers. */
static uint64_t tweak(uint64_t v)
{
    switch (rnd(12)) {
    case 0: return v + 1;
    case 1: return v - 1;
    case 2: return v + 2;
    case 3: return v - 2;
    case 4: return v + 4;
    case 5: return v * 2;
    case 6: return v / 2;
    case 7: return 0;
    case 8: return (uint64_t)1 << rnd(64);
    case 9: return v ^ ((uint64_t)1 << rnd(32));
    case 10: return (uint64_t)0 - v; /* two's complement negation, defined for every v */
    default: return rnd(256);
    }
}

/* Tweak an n-byte little-endian field. */
static void tweak_field(uint8_t *p, int n) { put(p, n, tweak(get(p, n))); }

/* One field of the decoded program p (over the bytes b) changed. */
static void mutate_one(const tg_prog *p, uint8_t *b)
{
    uint8_t *x = b + p->expr_off;
    for (int tries = 0; tries < 8; tries++) {
        uint32_t what = rnd(12);
        if (what <= 3 && p->ntiles) {
            uint8_t *t = b + p->tiles_off + (size_t)rnd(p->ntiles) * TG_ISA_TILE_BYTES;
            static const int at[] = {8, 12, 16, 20}; /* base, slot, pstart, pcount */
            if (what == 0)
                tweak_field(t + at[rnd(4)], 4);
            else if (what == 1)
                t[5] = (uint8_t)rnd(rnd(8) ? TG_DTYPE_COUNT : 256); /* dtype */
            else if (what == 2)
                tweak_field(t + 6, 1); /* bufs */
            else
                tweak_field(t + 8, 4); /* base, the known reproducer's field */
            return;
        }
        if (what <= 8 && p->noperands) {
            uint8_t *o = b + p->ops_off + (size_t)rnd(p->noperands) * TG_ISA_OPERAND_BYTES;
            uint32_t nfree = o[3] >= 1 && o[3] <= TG_ISA_MAX_FREE ? o[3] : 1;
            switch (what) {
            case 4: /* dtype, space, tile/tensor index, free dims */
                switch (rnd(4)) {
                case 0: o[2] = (uint8_t)rnd(TG_DTYPE_COUNT); break;
                case 1: o[1] = (uint8_t)rnd(TG_SPACE_COUNT); break;
                case 2: tweak_field(o + 4, 2); break;
                default: o[3] = (uint8_t)(1 + rnd(TG_ISA_MAX_FREE)); break;
                }
                return;
            case 5: /* a step */
                tweak_field(o + 28 + 8 * rnd(nfree), 4);
                return;
            case 6: /* partition step */
                tweak_field(o + 8, 4);
                return;
            case 7: { /* the constant of buf, pstart, pcount, offset or a count */
                static const int at[] = {12, 16, 20, 24, 24, 32, 40, 48, 56};
                int f = at[rnd(5 + nfree)];
                uint32_t e = (uint32_t)get(o + f, 4);
                if (e < p->expr_size && p->expr_size - e >= 10 && x[e] == TG_X_CONST && x[e + 9] == TG_X_END) {
                    tweak_field(x + e + 1, 8);
                    return;
                }
                break;
            }
            default: { /* an expression field pointed at another operand's expression */
                static const int at[] = {12, 16, 20, 24, 32};
                uint8_t *o2 = b + p->ops_off + (size_t)rnd(p->noperands) * TG_ISA_OPERAND_BYTES;
                int f = at[rnd(5)], g = at[rnd(5)];
                memcpy(o + f, o2 + g, 4);
                return;
            }
            }
        }
        if (what == 9 && p->ninsts) {
            uint8_t *in = b + p->insts_off + (size_t)rnd(p->ninsts) * TG_ISA_INST_BYTES;
            if (rnd(2))
                in[0] = (uint8_t)rnd(TG_OP_COUNT);
            else
                in[1] = (uint8_t)rnd(TG_ENG_COUNT);
            return;
        }
        if (what >= 10 && p->nimms) { /* loop bounds, steps, registers, semaphores, ops */
            uint8_t *m = b + p->imms_off + (size_t)rnd(p->nimms) * TG_ISA_IMM_BYTES;
            if (m[0] < TG_IMM_COUNT && (tg_isa_imm_kinds[m[0]] == TG_IMMK_FLOAT || tg_isa_imm_kinds[m[0]] == TG_IMMK_NAME ||
                                        tg_isa_imm_kinds[m[0]] == TG_IMMK_EXPR))
                continue;
            tweak_field(m + 4, 8);
            return;
        }
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    tg_prog p;
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
    if (size >= TG_ISA_HEADER_BYTES)
        fz_seal(data, size);
    if (size < TG_ISA_HEADER_BYTES || tg_prog_decode(&p, data, size) || rnd(16) == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    int n = 1 + (int)rnd(3);
    for (int i = 0; i < n; i++)
        mutate_one(&p, data); /* p's offsets and counts stay valid: no header field changes */
    fz_seal(data, size);
    return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_test_one(data, size); }
