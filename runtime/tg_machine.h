/* tg_machine.h — the machine being modelled, as data: one set of constants per
 * NeuronCore target (trn1 = NeuronCore-v2, default; trn2 = NeuronCore-v3).
 * Every figure names its source (keys as in reference/nki-facts.md §0: [ARCH2],
 * [ARCH3], [KLR], [ALLOC], [ISA26], [DMA], [SHARED]). Header-only, freestanding C99. */
#ifndef TG_MACHINE_H
#define TG_MACHINE_H

#include <stdint.h>

/* Target selector; TG_TRN1 must stay 0 (SPEC.md §4: tg_core_init default). */
typedef enum tg_target {
    TG_TRN1 = 0, /* NeuronCore-v2 (Trn1/Inf2) */
    TG_TRN2 = 1, /* NeuronCore-v3 (Trn2) */
    TG_TARGET_COUNT
} tg_target;

/* ---- identical on both targets ------------------------------------------ */
#define TG_PARTITIONS            128   /* nl.tile_size.pmax; SPEC §1 [ARCH2] */
#define TG_PSUM_BANKS            8     /* tile_size.psum_num_banks [ARCH2] */
#define TG_PSUM_BANK_BYTES       2048  /* 2 KiB per bank per partition [ARCH2] */
#define TG_PSUM_PARTITION_BYTES  (TG_PSUM_BANKS * TG_PSUM_BANK_BYTES) /* 16 KiB [ARCH2] */
#define TG_PSUM_TILE_FMAX        512   /* psum_fmax: fp32 elements in one bank [SHARED] */
#define TG_MATMUL_K_MAX          128   /* contraction on partitions [ISA26] nc_matmul */
#define TG_MATMUL_STATIONARY_FMAX 128  /* gemm_stationary_fmax (M) [ISA26] */
#define TG_MATMUL_MOVING_FMAX    512   /* gemm_moving_fmax (N) on v2/v3 [ISA26] */
#define TG_BN_STATS_FMAX         512   /* bn_stats_fmax [ISA26] */
#define TG_BN_STATS_RECORD       6     /* bn_stats writes [P,6] per record [ISA26] */
#define TG_MAX8_FMAX             16384 /* max8 / nc_find_index8 read 8 to this many free elements [ISA26] */
#define TG_BN_AGGR_FMAX          4096  /* bn_aggr reads at most this many free elements (the model's row buffer) */
#define TG_VEC_SBUF_FMAX         65536 /* Vector/Scalar F limit reading SBUF [ARCH2] */
#define TG_VEC_PSUM_FMAX         4096  /* Vector/Scalar F limit reading PSUM [ARCH2] */
#define TG_PSUM_MIN_ALIGN        4     /* psum_min_align bytes [KLR] */
#define TG_SBUF_MIN_ALIGN        1     /* sbuf_min_align bytes [KLR] */
#define TG_PARTITION_START_ALIGN 32    /* partition start 0/32/64/96 [ISA26] */
#define TG_DMA_QUEUES            16    /* DMA engines paired with one NC [ARCH2][ARCH3] */
#define TG_DMA_FIXED_NS          1300  /* fixed cost per cross-engine DMA ≈ 1.3 µs [DMA] */
#define TG_DMA_MIN_EFFICIENT_BYTES 2048 /* ≥ 2 KiB/partition per transfer to be efficient [DMA] */
#define TG_DMA_SATURATE_BYTES    4096  /* ≥ 4 KiB/partition saturates bandwidth [DMA] */
#define TG_ENGINE_MIN_II         64    /* min instruction initiation interval, cycles [ISA26] */
#define TG_VECTOR_STATIC_CYCLES  100   /* VectorE static overhead, tiny/dependent ops [ISA26] */
#define TG_GPSIMD_STARTUP_CYCLES 150   /* GpSimd start-up per instruction [ISA26] */
#define TG_SCALAR_ACCUM_READ_CYCLES 64 /* activation_reduce accumulator read [ISA26] */
#define TG_SBUF_ACCESS_SETUP_CYCLES 60 /* engine SBUF/PSUM access setup on v2 [ARCH2] */
#define TG_MATMUL_FP32_FACTOR    4     /* fp32 matmul is 4x slower than bf16 [ARCH2][ISA26] */

/* ---- trn1: NeuronCore-v2 ------------------------------------------------- */
#define TG_TRN1_SBUF_PARTITION_BYTES 196608 /* 192 KiB per partition (24 MiB) [ARCH2] */
#define TG_TRN1_SBUF_USABLE_BYTES    180224 /* minus 16 KiB reserved [KLR] Trace.lean, [ALLOC] */
#define TG_TRN1_PE_CLOCK_MHZ         2800   /* Tensor engine [ARCH2] */
#define TG_TRN1_DVE_CLOCK_MHZ        1120   /* Vector engine [ARCH2] */
#define TG_TRN1_ACT_CLOCK_MHZ        1400   /* Scalar engine [ARCH2] */
#define TG_TRN1_POOL_CLOCK_MHZ       1400   /* GpSimd engine [ARCH2] */
#define TG_TRN1_PE_WIDTH             256    /* 2x128 elements in per cycle [ARCH2] */
#define TG_TRN1_DVE_WIDTH            128    /* elements per cycle [ARCH2] */
#define TG_TRN1_ACT_WIDTH            128    /* [ARCH2] */
#define TG_TRN1_POOL_WIDTH           128    /* [ARCH2] */
#define TG_TRN1_DMA_BYTES_PER_NS     17     /* sustained per DMA engine [DMA] bandwidth guide */
#define TG_TRN1_DMA_DGE_NS           1300   /* no DGE fast path on v2: same fixed cost [DMA] */
#define TG_TRN1_HBM_BYTES_PER_NS     410    /* one HBM stack: 820 GB/s per chip over 2 stacks [ARCH2] */

/* ---- trn2: NeuronCore-v3 ------------------------------------------------- */
#define TG_TRN2_SBUF_PARTITION_BYTES 229376 /* 224 KiB per partition (28 MiB) [ARCH3] */
#define TG_TRN2_SBUF_USABLE_BYTES    212984 /* total_available_sbuf_size [KLR] Trace.lean */
#define TG_TRN2_PE_CLOCK_MHZ         2400   /* [ARCH3] */
#define TG_TRN2_DVE_CLOCK_MHZ        960    /* [ARCH3] */
#define TG_TRN2_ACT_CLOCK_MHZ        1200   /* [ARCH3] */
#define TG_TRN2_POOL_CLOCK_MHZ       1200   /* [ARCH3] */
#define TG_TRN2_PE_WIDTH             256    /* 2x128 for bf16/fp16 (4x128 dense fp8) [ARCH3] */
#define TG_TRN2_DVE_WIDTH            256    /* 512 for bf16/fp16 perf mode, else 256 [ARCH3] */
#define TG_TRN2_ACT_WIDTH            128    /* [ARCH3] */
#define TG_TRN2_POOL_WIDTH           128    /* [ARCH3] (width not restated; v2 value) */
#define TG_TRN2_DMA_BYTES_PER_NS     23     /* sustained per DMA engine [DMA] */
#define TG_TRN2_DMA_DGE_NS           600    /* DGE-issued DMA fixed cost on v3 [DMA] */
#define TG_TRN2_HBM_BYTES_PER_NS     725    /* one HBM stack: 2.9 TB/s per chip (the lower of the
                                               published 2.9-3 TB/s) over 4 stacks [ARCH3] */
#define TG_TRN2_CORES                2      /* physical cores of a logical NeuronCore (LNC=2, NKI
                                               nl.nc(2)) [ARCH3] */

/* The same figures as one record, for code that takes the target at run time. */
typedef struct tg_machine {
    tg_target target;          /* which target this describes */
    const char *name;          /* "trn1" / "trn2", as spelled in specs */
    uint32_t partitions;       /* P */
    uint32_t sbuf_bytes;       /* SBUF bytes per partition (physical) */
    uint32_t sbuf_usable;      /* SBUF bytes per partition usable by kernels */
    uint32_t psum_bytes;       /* PSUM bytes per partition */
    uint32_t psum_banks;       /* PSUM banks per partition */
    uint32_t psum_bank_bytes;  /* bytes per PSUM bank per partition */
    uint32_t pe_mhz;           /* Tensor engine clock */
    uint32_t dve_mhz;          /* Vector engine clock */
    uint32_t act_mhz;          /* Scalar engine clock */
    uint32_t pool_mhz;         /* GpSimd engine clock */
    uint32_t pe_width;         /* Tensor engine input elements per cycle */
    uint32_t dve_width;        /* Vector engine elements per cycle */
    uint32_t act_width;        /* Scalar engine elements per cycle */
    uint32_t pool_width;       /* GpSimd elements per cycle */
    uint32_t dma_queues;       /* DMA engines per NC */
    uint32_t dma_bytes_per_ns; /* sustained bandwidth of one DMA engine */
    uint32_t dma_fixed_ns;     /* fixed cost of one cross-engine DMA */
    uint32_t dma_dge_ns;       /* fixed cost of a DGE-issued DMA */
} tg_machine;

/* The record for `t`; an out-of-range target yields trn1's (callers validate). */
static inline tg_machine tg_machine_of(tg_target t)
{
    tg_machine m;
    int v3 = (t == TG_TRN2);
    m.target = v3 ? TG_TRN2 : TG_TRN1;
    m.name = v3 ? "trn2" : "trn1";
    m.partitions = TG_PARTITIONS;
    m.sbuf_bytes = v3 ? TG_TRN2_SBUF_PARTITION_BYTES : TG_TRN1_SBUF_PARTITION_BYTES;
    m.sbuf_usable = v3 ? TG_TRN2_SBUF_USABLE_BYTES : TG_TRN1_SBUF_USABLE_BYTES;
    m.psum_bytes = TG_PSUM_PARTITION_BYTES;
    m.psum_banks = TG_PSUM_BANKS;
    m.psum_bank_bytes = TG_PSUM_BANK_BYTES;
    m.pe_mhz = v3 ? TG_TRN2_PE_CLOCK_MHZ : TG_TRN1_PE_CLOCK_MHZ;
    m.dve_mhz = v3 ? TG_TRN2_DVE_CLOCK_MHZ : TG_TRN1_DVE_CLOCK_MHZ;
    m.act_mhz = v3 ? TG_TRN2_ACT_CLOCK_MHZ : TG_TRN1_ACT_CLOCK_MHZ;
    m.pool_mhz = v3 ? TG_TRN2_POOL_CLOCK_MHZ : TG_TRN1_POOL_CLOCK_MHZ;
    m.pe_width = v3 ? TG_TRN2_PE_WIDTH : TG_TRN1_PE_WIDTH;
    m.dve_width = v3 ? TG_TRN2_DVE_WIDTH : TG_TRN1_DVE_WIDTH;
    m.act_width = v3 ? TG_TRN2_ACT_WIDTH : TG_TRN1_ACT_WIDTH;
    m.pool_width = v3 ? TG_TRN2_POOL_WIDTH : TG_TRN1_POOL_WIDTH;
    m.dma_queues = TG_DMA_QUEUES;
    m.dma_bytes_per_ns = v3 ? TG_TRN2_DMA_BYTES_PER_NS : TG_TRN1_DMA_BYTES_PER_NS;
    m.dma_fixed_ns = TG_DMA_FIXED_NS;
    m.dma_dge_ns = v3 ? TG_TRN2_DMA_DGE_NS : TG_TRN1_DMA_DGE_NS;
    return m;
}

#endif /* TG_MACHINE_H */
