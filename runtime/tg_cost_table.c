/* tg_cost_table.c - the timing model's constants, one table per target, each
 * with its source (keys of docs/cost.md: [ARCH2]/[ARCH3] architecture guides,
 * [ISA26] nki.isa cost formulas of SDK 2.26, [PERF] performance guide figures,
 * [DMA-BW] DMA bandwidth guide, [DMA-OV] DMA overview, [NPROF] legacy profiler
 * screenshot). Entries marked ASSUMPTION have no published figure; docs/cost.md
 * says why the value was chosen. Freestanding C99. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_cost.h"

static const tg_cost_table tables[TG_TARGET_COUNT] = {
    [TG_TRN1] = {
        .target = TG_TRN1,
        .name = "trn1",
        .mhz = {
            [TG_ENG_DMA] = 1400,                 /* NC base clock [NX] neuroncore_cycle_count */
            [TG_ENG_PE] = TG_TRN1_PE_CLOCK_MHZ,  /* 2.8 GHz [ARCH2] */
            [TG_ENG_DVE] = TG_TRN1_DVE_CLOCK_MHZ, /* 1.12 GHz [ARCH2] */
            [TG_ENG_ACT] = TG_TRN1_ACT_CLOCK_MHZ, /* 1.4 GHz [ARCH2] */
            [TG_ENG_POOL] = TG_TRN1_POOL_CLOCK_MHZ, /* 1.4 GHz [ARCH2] */
            [TG_ENG_SYNC] = 1400,                /* NC base clock [NX] */
        },
        .min_ii = TG_ENGINE_MIN_II,             /* ≈64 cycles [ISA26] */
        .dve_static = TG_VECTOR_STATIC_CYCLES,  /* ≈100 cycles, small/dependent DVE ops [ARCH2] */
        .act_static = 158,                      /* [PERF] fig16: 1-element dependent ACT op lasts 159 ns
                                                   = 222 cycles at 1.4 GHz = MIN_II 64 + 158 */
        .pool_start = TG_GPSIMD_STARTUP_CYCLES, /* ≈150 cycles [ISA26] iota/affine_select */
        .act_table_ps = 368000,                 /* ACT_TABLE_LOAD 368 ns [NPROF] screenshot */
        .handoff_ps = 30000,                    /* [PERF] fig16: start-to-start 189 ns - duration 159 ns */
        .pe_fp32_factor = TG_MATMUL_FP32_FACTOR, /* 4x [ISA26] nc_matmul, [ARCH2] */
        .pe_transpose_fp32_factor = TG_MATMUL_FP32_FACTOR, /* fp32 through the PE array like matmul [ARCH2] */
        .dve_fast_copy = 1,                     /* no DVE performance modes on v2 [ARCH2] */
        .dve_fast_tt = 1,
        .shared_ports = 1,                      /* DVE+Pool share SBUF, DVE+ACT share PSUM [ARCH2] */
        .dma_engines = TG_DMA_QUEUES,           /* 16 [ARCH2] [DMA-OV] */
        .dma_partitions_per_engine = 8,         /* 128 partitions / 16 engines [ARCH2] [DMA-OV] */
        .dma_bytes_per_ns = TG_TRN1_DMA_BYTES_PER_NS, /* 17 B/ns [DMA-BW]; [PERF] fig30: 18.1 */
        .hbm_bytes_per_ns = TG_TRN1_HBM_BYTES_PER_NS, /* 820 GB/s per chip / 2 stacks [ARCH2]; above
                                                   16 x 17 = 272, so it never binds one core */
        .dma_fixed_ps = TG_DMA_FIXED_NS * 1000, /* ≈1300 ns trigger-to-completion [DMA-BW] */
        .dma_transfer_ps = 1160000,             /* [derived] [DMA-OV] throughput figure: below 2 KiB per
                                                   partition a [128, B] transfer takes ≈1.16 µs whatever B
                                                   (64 B..1 KiB: 1142, 1196, 1168, 1155, 1136 ns at 17 B/ns) */
        .dma_issue_ps = 45714,                  /* ASSUMPTION: one MIN_II (64 cycles at 1.4 GHz) */
        .dma_index_ps = TG_DMA_FIXED_NS * 1000, /* ASSUMPTION: an indirect DMA's descriptors come from its
                                                   indices at run time (software DGE on GpSimd; the hardware
                                                   DGE does no indirect gather [ARCH3]); no published cost, so
                                                   one more fixed DMA cost (~1.3 us [DMA-BW]) before it moves */
        .dma_min_burst = 64,                    /* ASSUMPTION: a contiguous run costs >= 64 bytes */
        .dma_small_bytes = TG_DMA_MIN_EFFICIENT_BYTES, /* 2 KiB per partition [DMA-BW] */
        .pe_peak_flops_per_cycle = 2 * 128 * 128, /* 128x128 MACs per cycle: 91.75 TFLOPS [ARCH2] */
    },
    [TG_TRN2] = {
        .target = TG_TRN2,
        .name = "trn2",
        .mhz = {
            [TG_ENG_DMA] = 1200,                 /* NC base clock [NX] */
            [TG_ENG_PE] = TG_TRN2_PE_CLOCK_MHZ,  /* 2.4 GHz [ARCH3] */
            [TG_ENG_DVE] = TG_TRN2_DVE_CLOCK_MHZ, /* 0.96 GHz [ARCH3] */
            [TG_ENG_ACT] = TG_TRN2_ACT_CLOCK_MHZ, /* 1.2 GHz [ARCH3] */
            [TG_ENG_POOL] = TG_TRN2_POOL_CLOCK_MHZ, /* 1.2 GHz [ARCH3] */
            [TG_ENG_SYNC] = 1200,
        },
        .min_ii = TG_ENGINE_MIN_II,
        .dve_static = TG_VECTOR_STATIC_CYCLES,
        .act_static = 158,                      /* the v2 figure in cycles; no v3 measurement */
        .pool_start = TG_GPSIMD_STARTUP_CYCLES,
        .act_table_ps = 368000,                 /* v2 figure; no v3 measurement */
        .handoff_ps = 30000,                    /* v2 figure */
        .pe_fp32_factor = TG_MATMUL_FP32_FACTOR, /* 4x [ISA26]; fp32 peak 20 vs 79 bf16 [ARCH3] */
        .pe_transpose_fp32_factor = 2,          /* v3 transpose mode 2x faster for fp32 [ARCH3] */
        .dve_fast_copy = 4,                     /* 16-bit SBUF->SBUF copy/tensor_scalar 4x [ARCH3] */
        .dve_fast_tt = 2,                       /* 16-bit SBUF tensor_tensor 2x [ARCH3] */
        .shared_ports = 0,                      /* both lifted on v3 [ARCH3] */
        .dma_engines = TG_DMA_QUEUES,
        .dma_partitions_per_engine = 8,
        .dma_bytes_per_ns = TG_TRN2_DMA_BYTES_PER_NS, /* 23 B/ns [DMA-BW]; [DMA-OV] 32 KiB in 1416 ns */
        .hbm_bytes_per_ns = TG_TRN2_HBM_BYTES_PER_NS, /* 2.9 TB/s per chip / 4 stacks [ARCH3]; ASSUMPTION:
                                                   the two physical cores of a logical NeuronCore
                                                   share one stack: 16 x 23 = 368 B/ns for one core
                                                   stays under it, 32 x 23 = 736 for two does not */
        .dma_fixed_ps = TG_DMA_FIXED_NS * 1000, /* ≈1300 ns cross-engine [DMA-BW] */
        .dma_transfer_ps = 1160000,             /* the v2 figure; no v3 curve published */
        .dma_issue_ps = 53333,                  /* ASSUMPTION: one MIN_II at 1.2 GHz */
        .dma_index_ps = TG_DMA_FIXED_NS * 1000, /* ASSUMPTION: an indirect DMA's descriptors come from its
                                                   indices at run time (software DGE on GpSimd; the hardware
                                                   DGE does no indirect gather [ARCH3]); no published cost, so
                                                   one more fixed DMA cost (~1.3 us [DMA-BW]) before it moves */
        .dma_min_burst = 64,
        .dma_small_bytes = TG_DMA_MIN_EFFICIENT_BYTES,
        .pe_peak_flops_per_cycle = 2 * 128 * 128, /* 79 TFLOPS bf16 at 2.4 GHz [ARCH3] */
    },
};

const tg_cost_table *tg_cost_table_of(tg_target t)
{
    return &tables[t == TG_TRN2 ? TG_TRN2 : TG_TRN1];
}

#include "tg_fp_end.h"
