/* tg_runtime.h — the public runtime API that generated kernels link against:
 * the simulated NeuronCore (tg_core: static SBUF and PSUM), kernel descriptors
 * and the entry points of SPEC.md §4. Freestanding C99: no heap, no stdio, no
 * exit, no libm; every function returns 0 or a negative TG_E* code. */
#ifndef TG_RUNTIME_H
#define TG_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "tg_dtype.h"
#include "tg_machine.h"

/* Return codes (0 = success). */
enum {
    TG_OK = 0,
    TG_EINVAL = -1,   /* a null pointer or an argument out of range */
    TG_ECORE = -2,    /* the core was not initialised by tg_core_init */
    TG_ETARGET = -3,  /* the kernel was generated for another target */
    TG_ETENSOR = -4,  /* tensors that do not match the kernel's descriptor */
    TG_EPROGRAM = -5, /* a malformed or corrupted binary program */
    TG_EBOUNDS = -6,  /* an access outside SBUF, PSUM or a tensor */
    TG_EUNSUPPORTED = -7, /* the kernel carries no implementation for this entry */
    TG_EDEADLOCK = -8, /* ISS: every unfinished engine waits on a semaphore nobody will signal */
    TG_ELIMIT = -9,    /* ISS: the instruction budget (tg_iss_stats.limit) ran out */
    TG_EALIAS = -10    /* an output shares bytes with another tensor (tensors never alias) */
};

/* SBUF storage is sized for the largest target; a core initialised for trn1
 * uses the first TG_TRN1_SBUF_PARTITION_BYTES of each partition. */
#define TG_SBUF_MAX_PARTITION_BYTES TG_TRN2_SBUF_PARTITION_BYTES

/* Storage padding after each SBUF / PSUM partition row (not addressable by a
 * kernel). Both row sizes are multiples of 4096, so without it the same byte
 * of every partition maps to the same cache set and a loop over partitions
 * thrashes; 320 B (5 cache lines) staggers them. */
#define TG_SBUF_ROW_PAD 320
#define TG_PSUM_ROW_PAD 320
/* tg_sim.h's tg_rd_f32_even may read up to 4 bytes past a row's last byte. */
typedef char tg_row_pad_check[TG_SBUF_ROW_PAD >= 8 && TG_PSUM_ROW_PAD >= 8 ? 1 : -1];

/* Every byte of a fresh SBUF/PSUM: read as fp32, bf16, fp16 or either fp8 it
 * is a NaN, so a read before a write shows in the results. */
#define TG_SENTINEL_BYTE 0xFF

#define TG_CORE_MAGIC 0x54474331u /* "TGC1": set by tg_core_init */

/* One simulated NeuronCore. Large (≈ 31 MB): give it static storage. */
typedef struct tg_core {
    uint32_t magic;      /* TG_CORE_MAGIC once initialised */
    tg_target target;    /* which machine this core models */
    uint32_t sbuf_bytes; /* SBUF bytes per partition on this target */
    /* partition-major; each row's first TG_SBUF_MAX_PARTITION_BYTES are SBUF */
    uint8_t sbuf[TG_PARTITIONS][TG_SBUF_MAX_PARTITION_BYTES + TG_SBUF_ROW_PAD];
    /* 8 banks per partition in each row's first TG_PSUM_PARTITION_BYTES */
    uint8_t psum[TG_PARTITIONS][TG_PSUM_PARTITION_BYTES + TG_PSUM_ROW_PAD];
    /* fp32 panels in which the C simulation stages a Tensor-engine op's
     * operands (widened) and result; per core, so kernels stay reentrant. */
    float pe_a[TG_MATMUL_K_MAX * TG_MATMUL_STATIONARY_FMAX];     /* stationary [K,M] */
    float pe_b[TG_MATMUL_K_MAX * TG_MATMUL_MOVING_FMAX];         /* moving [K,N] */
    float pe_c[TG_MATMUL_STATIONARY_FMAX * TG_MATMUL_MOVING_FMAX]; /* result [M,N] */
} tg_core;

#define TG_MAX_RANK 4

/* One HBM tensor of a kernel's interface. */
typedef struct tg_tensor_desc {
    const char *name;              /* as in the spec */
    tg_dtype dtype;                /* element type (storage per SPEC.md §4) */
    uint32_t rank;                 /* 1..TG_MAX_RANK */
    uint32_t shape[TG_MAX_RANK];   /* row-major extents; unused entries 0 */
    uint32_t is_output;            /* 0 input, 1 output */
} tg_tensor_desc;

/* A generated kernel: its interface, its C simulation and its binary program. */
typedef struct tg_kernel {
    const char *name;                /* the spec's `kernel:` */
    tg_target target;                /* the target it was generated for */
    uint32_t ntensors;               /* inputs then outputs, spec order */
    const tg_tensor_desc *tensors;   /* ntensors entries */
    /* The C simulation; tensors[] already checked non-null by tg_kernel_run. */
    int (*run)(tg_core *core, void *const tensors[]);
    const uint8_t *program;          /* the assembled program for the ISS, or NULL */
    uint32_t program_size;           /* bytes at program */
    uint32_t sbuf_peak;              /* planned SBUF bytes per partition */
    uint32_t psum_peak;              /* planned PSUM bytes per partition */
} tg_kernel;

/* Initialise `core` for `target`: fills SBUF and PSUM with TG_SENTINEL_BYTE. */
int tg_core_init(tg_core *core, tg_target target);

/* Check that `core` is initialised and matches `k`'s target, and that `k` and
 * every tensor pointer are non-null; 0 when the kernel may run. */
int tg_kernel_check(const tg_core *core, const tg_kernel *k, void *const tensors[]);

/* TG_EALIAS if an output of `k` shares a byte with another of `tensors`
 * (sizes from k's descriptor), else 0. Tensors never alias: the C simulation
 * reads inputs and writes outputs directly where an SBUF copy changes nothing
 * (docs/ir.md, "HBM forwarding"), so an output over an input would see its
 * writes early. tg_kernel_run and tg_iss_run refuse such tensors. */
int tg_tensors_alias(const tg_kernel *k, void *const tensors[]);

/* 1 if the n bytes at a and the m bytes at b share a byte (n, m > 0). */
static inline int tg_overlap(const void *a, size_t n, const void *b, size_t m)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + m && y < x + n;
}

/* Run the kernel's C simulation (after tg_kernel_check). */
int tg_kernel_run(tg_core *core, const tg_kernel *k, void *const tensors[]);

/* Elements of tensor descriptor `t` (product of its shape). */
size_t tg_tensor_elems(const tg_tensor_desc *t);

#endif /* TG_RUNTIME_H */
