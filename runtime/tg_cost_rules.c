/* tg_cost_rules.c - the per-instruction cost rules of the timing model: the
 * cycles of one compute instruction on its engine and the busy time of one
 * DMA engine for its part of a transfer. Pure functions of an instruction's
 * shape and the target's table (tg_cost_table.c); docs/cost.md states each
 * rule with its source. Freestanding C99. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_cost.h"

#include "tg_alu.h"
#include "tg_math.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

uint64_t tg_cost_ps(uint64_t cycles, uint32_t mhz)
{
    if (!mhz)
        return 0;
    return (cycles * 1000000u + mhz / 2) / mhz;
}

/* Vector-engine elementwise cost with trn2's performance-mode speed-up:
 * max(MIN_II, k·N / speed-up) [ISA26] [ARCH3]. */
static uint64_t dve(const tg_cost_table *t, uint64_t work, uint32_t speedup)
{
    return max64(t->min_ii, work / (speedup ? speedup : 1));
}

uint64_t tg_cost_cycles(const tg_cost_table *t, const tg_cost_shape *s)
{
    uint64_t n = s->n > 0 ? (uint64_t)s->n : 1;
    switch (s->op) {
    case TG_OP_MATMUL: {
        /* max(min(64, N_stationary), N_moving) PE cycles; fp32 x4 [ISA26] nc_matmul */
        uint64_t st = s->n_stationary < 64 ? (uint64_t)(s->n_stationary > 0 ? s->n_stationary : 1) : 64;
        uint64_t c = max64(st, (uint64_t)(s->n_moving > 0 ? s->n_moving : 1));
        return s->fp32_in ? c * t->pe_fp32_factor : c;
    }
    case TG_OP_TRANSPOSE: {
        /* max(P, min(64, F)) PE cycles [ISA26] nc_transpose on the Tensor engine */
        uint64_t f = n < 64 ? n : 64;
        uint64_t c = max64((uint64_t)(s->p > 0 ? s->p : 1), f);
        return s->fp32_in ? c * t->pe_transpose_fp32_factor : c;
    }
    case TG_OP_TENSOR_TENSOR: {
        /* max(MIN_II, N) with one input in PSUM, or all bf16 in SBUF, unit
         * stride, op add/multiply/subtract; else max(MIN_II, 2N) [ISA26] */
        int fast_op = s->alu == TG_ALU_ADD || s->alu == TG_ALU_MULTIPLY || s->alu == TG_ALU_SUBTRACT;
        int one = s->one_psum || (s->allbf16 && s->all_sbuf && s->unit_stride && fast_op);
        uint32_t sp = s->all16 && s->all_sbuf ? t->dve_fast_tt : 1;
        return dve(t, one ? n : 2 * n, sp);
    }
    case TG_OP_TENSOR_SCALAR:
    case TG_OP_TENSOR_COPY: {
        /* max(MIN_II, N) [ISA26]; trn2: 4x 16-bit SBUF->SBUF unit stride, 2x otherwise [ARCH3] */
        uint32_t sp = 1;
        if (s->has_reduce) /* max(MIN_II, N) + MIN_II [ISA26] tensor_scalar_reduce (no performance mode) */
            return max64(t->min_ii, n) + t->min_ii;
        if (s->all16 && t->dve_fast_copy > 1)
            sp = s->all_sbuf && s->unit_stride ? t->dve_fast_copy : t->dve_fast_copy / 2;
        return dve(t, n, sp);
    }
    case TG_OP_TENSOR_REDUCE:
        /* N; N/2 when bf16 in and out and op add or max [ISA26] tensor_reduce */
        if (s->allbf16 && (s->alu == TG_ALU_ADD || s->alu == TG_ALU_MAXIMUM))
            return max64(1, n / 2);
        return n;
    case TG_OP_TENSOR_TENSOR_SCAN:
        return dve(t, 2 * n, 1); /* max(MIN_II, 2N) [ISA26] */
    case TG_OP_SCALAR_TENSOR_TENSOR:
        /* 2N; N when bf16 (here: every operand), subtract then multiply and N even [ISA26] */
        return s->allbf16 && s->alu == TG_ALU_SUBTRACT && s->alu1 == TG_ALU_MULTIPLY && n % 2 == 0 ? n : 2 * n;
    case TG_OP_MAX8:
    case TG_OP_NC_FIND_INDEX8:
        return n; /* N cycles [ISA26] */
    case TG_OP_NC_MATCH_REPLACE8:
        return n; /* no published figure: the same scan as nc_find_index8, N cycles */
    case TG_OP_SELECT:
        /* as tensor_copy_predicated: max(MIN_II, N) with one operand in PSUM, else max(MIN_II, 2N) [ISA26] */
        return dve(t, s->one_psum ? n : 2 * n, 1);
    case TG_OP_RECIPROCAL:
        return dve(t, 8 * n, 1); /* max(MIN_II, 8N) [ISA26] reciprocal */
    case TG_OP_MEMSET:
        /* max(MIN_II, N/2) for zero into bf16/fp16, else max(MIN_II, N) [ISA26] */
        return dve(t, s->zero_memset16 ? n / 2 : n, 1);
    case TG_OP_BN_STATS:
        return dve(t, n, 1); /* max(MIN_II, N) [ISA26] */
    case TG_OP_BN_AGGR:
        return dve(t, 13 * (n / 3), 1); /* max(MIN_II, 13(N/3)) [ISA26] */
    case TG_OP_ACTIVATION:
        /* max(MIN_II, N); + MIN_II with an accumulated reduce [ISA26] activation(_reduce) */
        return max64(t->min_ii, n) + (s->has_reduce ? t->min_ii : 0);
    case TG_OP_IOTA:
    case TG_OP_AFFINE_SELECT:
        return t->pool_start + n; /* 150 + N [ISA26] */
    case TG_OP_PARTITION_REDUCE:
        /* N Vector cycles [ISA26] tensor_partition_reduce, here on GpSimd: + start-up */
        return t->pool_start + n;
    case TG_OP_PRINT:
        return 0; /* the host's debugging (NKI device_print): no device time */
    default:
        return t->min_ii;
    }
}

uint64_t tg_cost_dma_engine_ps(const tg_cost_table *t, const tg_cost_dma *d, uint32_t e)
{
    /* Engine e serves rows [e·ppe, (e+1)·ppe) [ARCH2] [DMA-OV]. */
    int64_t ppe = t->dma_partitions_per_engine, lo = (int64_t)e * ppe, hi = lo + ppe;
    int64_t first = d->first, last = d->first + d->partitions;
    if (d->partitions > (int64_t)t->dma_engines * ppe) { /* more rows than lanes: spread evenly */
        int64_t per = (d->partitions + t->dma_engines - 1) / t->dma_engines;
        first = 0;
        last = d->partitions;
        lo = (int64_t)e * per;
        hi = lo + per;
    }
    lo = lo > first ? lo : first;
    hi = hi < last ? hi : last;
    if (hi <= lo || d->row_bytes <= 0)
        return 0;
    int64_t run = d->run_bytes > 0 && d->run_bytes < d->row_bytes ? d->run_bytes : d->row_bytes;
    int64_t runs = (d->row_bytes + run - 1) / run;
    int64_t charged = run < (int64_t)t->dma_min_burst ? (int64_t)t->dma_min_burst : run;
    uint64_t bytes = (uint64_t)(hi - lo) * (uint64_t)runs * (uint64_t)charged;
    uint64_t ps = (bytes * 1000u + t->dma_bytes_per_ns - 1) / t->dma_bytes_per_ns;
    if (d->hbm_engines > 0 && t->hbm_bytes_per_ns) { /* its share of the HBM [ARCH2] [ARCH3] */
        uint64_t share = (bytes * 1000u * (uint64_t)d->hbm_engines + t->hbm_bytes_per_ns - 1) / t->hbm_bytes_per_ns;
        ps = share > ps ? share : ps;
    }
    return ps;
}

#include "tg_fp_end.h"
