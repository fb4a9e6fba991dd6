/* tg_runtime.h — the public runtime API that generated kernels link against:
 * the simulated NeuronCore (tg_core over caller-provided, plan-sized SBUF and
 * PSUM storage), kernel descriptors
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
    TG_EBOUNDS = -6,  /* an access outside SBUF, PSUM or a tensor, or an indirect DMA's index out of range */
    TG_EUNSUPPORTED = -7, /* the kernel carries no implementation for this entry */
    TG_EDEADLOCK = -8, /* ISS: every unfinished engine waits on a semaphore nobody will signal */
    TG_ELIMIT = -9,    /* ISS: the instruction budget (tg_iss_stats.limit) ran out */
    TG_EALIAS = -10,   /* an output shares bytes with another tensor (tensors never alias) */
    TG_ESTORAGE = -11  /* the core's storage is smaller than the kernel's plan needs */
};

/* Every byte of a fresh SBUF/PSUM: read as fp32, bf16, fp16 or either fp8 it
 * is a NaN, so a read before a write shows in the results. */
#define TG_SENTINEL_BYTE 0xFF

#define TG_CORE_MAGIC 0x54474332u /* "TGC2": set by tg_core_init */

/* ---- storage ------------------------------------------------------------------
 * A kernel's SBUF, PSUM and Tensor-engine staging live in storage the caller
 * provides, sized by the kernel's plan: k.h defines K_CORE_BYTES (with
 * K_SBUF_BYTES, K_PSUM_BYTES, K_PE_BYTES), the kernel checks it at entry and
 * returns TG_ESTORAGE when it is smaller. Layout while a kernel runs:
 *   SBUF  TG_PARTITIONS rows TG_CORE_ROW(plan SBUF peak) bytes apart
 *   PSUM  TG_PARTITIONS rows TG_CORE_ROW((plan PSUM banks) x TG_PSUM_BANK_BYTES)
 *         bytes apart
 *   PE    fp32 panels in which a matmul/transpose stages its operands and
 *         result (the largest op's K*M + K*N + M*N floats; 0 without one)
 * The common host case is two lines:
 *     TG_CORE_STATIC(core, SOFTMAX_CORE_BYTES);   (file or block scope)
 *     rc = tg_core_init(&core, TG_TRN1);
 * Several kernels share one storage block sized for the largest:
 *     TG_CORE_STATIC(core, TG_MAX(SOFTMAX_CORE_BYTES, MATMUL_CORE_BYTES));
 * (their SBUF contents do not carry over between kernels). Storage in other
 * memory (a linker section, malloc): tg_core_init_storage. */

/* Bytes from one partition's row to the next, for rows of `bytes` (SBUF: the
 * plan's peak; PSUM: its banks x TG_PSUM_BANK_BYTES): an odd number of
 * 64-byte lines, so the partitions' rows fall in successive L1 sets. At 2 KiB
 * a PSUM bank, rows 4 or 8 KiB apart put the same element of all 128
 * partitions in one set, and each write across partitions (a matmul's
 * columns into PSUM, a transpose) missed: moe_tkg 0.48 -> 0.36 ms. 0 for no
 * rows. The pitch is the host's layout only: no result depends on it. */
#define TG_CORE_ROW(bytes) ((size_t)(bytes) != 0u ? ((size_t)(bytes) + 127u) / 128u * 128u + 64u : (size_t)0)
/* Bytes after the last row: tg_sim.h's tg_rd_f32_even may read up to 4
 * bytes past a row's last byte (into the next row, or here). */
#define TG_CORE_TAIL 8u
/* Storage for a plan on `cores` physical cores (the ISS keeps each one's rows
 * side by side): SBUF peak bytes per partition, PSUM banks, PE floats. */
#define TG_CORE_BYTES_CORES(cores, sbuf_peak, psum_banks, pe_floats)                                   \
    ((size_t)TG_PARTITIONS * (size_t)(cores) *                                                          \
         (TG_CORE_ROW(sbuf_peak) + TG_CORE_ROW((size_t)(psum_banks) * TG_PSUM_BANK_BYTES)) +            \
     4u * (size_t)(pe_floats) + TG_CORE_TAIL)
#define TG_CORE_BYTES(sbuf_peak, psum_banks, pe_floats) TG_CORE_BYTES_CORES(1u, sbuf_peak, psum_banks, pe_floats)
/* The most one Tensor-engine op stages (K = 128, M = 128, N = 512). */
#define TG_PE_FLOATS_MAX                                                                     \
    (TG_MATMUL_K_MAX * TG_MATMUL_STATIONARY_FMAX + TG_MATMUL_K_MAX * TG_MATMUL_MOVING_FMAX + \
     TG_MATMUL_STATIONARY_FMAX * TG_MATMUL_MOVING_FMAX)
/* Storage any program of any target fits (hosts running arbitrary programs). */
#define TG_CORE_BYTES_MAX TG_CORE_BYTES(TG_TRN2_SBUF_PARTITION_BYTES, TG_PSUM_BANKS, TG_PE_FLOATS_MAX)
#define TG_MAX(a, b) ((a) > (b) ? (a) : (b))

/* The unit storage is counted in (8-byte aligned for every dtype). */
typedef union tg_storage_unit {
    uint64_t u;
    double d;
    void *p;
} tg_storage_unit;

/* ---- tensor printing (the spec's `print`, NKI's device_print) ------------------
 * A print statement hands its region to the callback the host set on the core
 * (tg_core_set_print); without one (NULL: what tg_core_init leaves, and what
 * firmware keeps) a print costs one test. The C simulation and the ISS call it
 * at the same points, in program order, with the same information: the same
 * label, line, indices, dtype and shape, and the same bytes (tg_print_pack;
 * the strides and the data pointer may differ, the values they reach do not).
 * The callback must not run a kernel on the same core. */
#define TG_PRINT_MAX_DEPTH 8 /* loops around a print (the loop registers r0..r7) */
#define TG_PRINT_MAX_RANK 4  /* the partition dim and up to 3 free dims */

typedef struct tg_print_info {
    const char *label;                 /* the print's label */
    uint32_t line;                     /* its spec line */
    uint32_t depth;                    /* loops around it (grid loops first), 0..TG_PRINT_MAX_DEPTH */
    int64_t index[TG_PRINT_MAX_DEPTH]; /* their variables' values, outermost first; unused 0 */
    tg_dtype dtype;                    /* element type (storage as SPEC.md §4) */
    uint32_t rank;                     /* 2..TG_PRINT_MAX_RANK */
    int64_t shape[TG_PRINT_MAX_RANK];  /* partitions, then the region's free dims (a dim
                                          indexed by an integer is gone; none left: one of 1);
                                          unused 0 */
    const uint8_t *data;               /* element [0, 0, ...]; valid during the call only */
    int64_t stride[TG_PRINT_MAX_RANK]; /* bytes between consecutive indices of each dim */
} tg_print_info;

/* The host's callback: ctx is what it gave tg_core_set_print. */
typedef void (*tg_print_fn)(void *ctx, const tg_print_info *info);

/* One simulated NeuronCore: a small handle on the caller's storage. */
typedef struct tg_core {
    uint32_t magic;       /* TG_CORE_MAGIC once initialised */
    tg_target target;     /* which machine this core models */
    uint32_t sbuf_bytes;  /* SBUF bytes per partition on this target */
    void *mem;            /* the storage (8-byte aligned) */
    size_t mem_bytes;     /* its size */
    /* the layout of the kernel running, set at its entry (tg_core_layout) */
    uint8_t *sbuf, *psum; /* TG_PARTITIONS rows each, partition-major */
    size_t sbuf_row, psum_row; /* bytes per row */
    float *pe;            /* fp32 staging panels of the Tensor engine */
    size_t pe_floats;     /* floats at pe */
    tg_print_fn print;    /* prints go here (NULL: nowhere), tg_core_set_print */
    void *print_ctx;      /* ... with this first argument */
} tg_core;

/* A static core `name` with `bytes` of static storage (no heap); `bytes` is
 * a constant expression, e.g. K_CORE_BYTES. tg_core_init still runs first. */
#define TG_CORE_STATIC(name, bytes)                                                          \
    static tg_storage_unit name##_storage[((size_t)(bytes) + 7u) / 8u + ((bytes) == 0)];     \
    static tg_core name = {0, TG_TRN1, 0, name##_storage, ((size_t)(bytes) + 7u) / 8u * 8u,  \
                           0, 0, 0, 0, 0, 0, 0, 0}

#define TG_MAX_RANK 5

/* One HBM tensor of a kernel's interface. */
typedef struct tg_tensor_desc {
    const char *name;              /* as in the spec */
    tg_dtype dtype;                /* element type (storage per SPEC.md §4) */
    uint32_t rank;                 /* 1..TG_MAX_RANK */
    uint32_t shape[TG_MAX_RANK];   /* row-major extents; unused entries 0 */
    uint32_t is_output;            /* 0 input, 1 output, 2 scratch (kernel-owned, written) */
} tg_tensor_desc;

/* A generated kernel: its interface, its C simulation and its binary program. */
typedef struct tg_kernel {
    const char *name;                /* the spec's `kernel:` */
    tg_target target;                /* the target it was generated for */
    uint32_t ntensors;               /* inputs, outputs, then scratch, spec order (views are
                                        the program's own: they alias these) */
    const tg_tensor_desc *tensors;   /* ntensors entries */
    /* The C simulation; tensors[] already checked non-null by tg_kernel_run. */
    int (*run)(tg_core *core, void *const tensors[]);
    const uint8_t *program;          /* the assembled program for the ISS, or NULL */
    uint32_t program_size;           /* bytes at program */
    uint32_t sbuf_peak;              /* planned SBUF bytes per partition */
    uint32_t psum_peak;              /* planned PSUM bytes per partition */
    size_t core_bytes;               /* storage the kernel needs (k.h's K_CORE_BYTES) */
    /* A grid kernel's one program (k_run_program: pid[a] along axis a), NULL
     * without a grid; tensors[] already checked by tg_kernel_run_program. */
    int (*run_program)(tg_core *core, const int pid[3], void *const tensors[]);
    uint32_t grid[3];                /* programs per axis, 1 past the grid's rank (and without one) */
} tg_kernel;

/* Initialise `core` for `target` on the storage it was given (TG_CORE_STATIC
 * or an earlier tg_core_init_storage): fills it with TG_SENTINEL_BYTE.
 * TG_EINVAL without storage. */
int tg_core_init(tg_core *core, tg_target target);

/* Give `core` the `bytes` of storage at `mem` (8-byte aligned, else
 * TG_EINVAL), then tg_core_init. */
int tg_core_init_storage(tg_core *core, tg_target target, void *mem, size_t bytes);

/* Hand every print of the kernels run on `core` to fn(ctx, info) (fn NULL:
 * prints do nothing). After tg_core_init, which clears it. TG_EINVAL without
 * a core, TG_ECORE when it is not initialised. */
int tg_core_set_print(tg_core *core, tg_print_fn fn, void *ctx);

/* Bytes of the packed copy of a print's region (elements × element size). */
size_t tg_print_bytes(const tg_print_info *info);

/* Copy a print's region, row-major and packed (the order of its shape), to
 * out (tg_print_bytes of room). */
void tg_print_pack(const tg_print_info *info, void *out);

/* A print record with every field zero but these (for the generated code and
 * the ISS, which fill in the rest). */
static inline void tg_print_start(tg_print_info *pi, const char *label, uint32_t line, tg_dtype dtype)
{
    int k;
    pi->label = label;
    pi->line = line;
    pi->depth = 0;
    for (k = 0; k < TG_PRINT_MAX_DEPTH; k++)
        pi->index[k] = 0;
    pi->dtype = dtype;
    pi->rank = 0;
    for (k = 0; k < TG_PRINT_MAX_RANK; k++)
        pi->shape[k] = pi->stride[k] = 0;
    pi->data = 0;
}

/* Lay the core's storage out for a kernel (a C simulation's entry, the ISS):
 * SBUF rows of sbuf_row bytes, PSUM rows of psum_row bytes, the rest PE
 * staging, which must hold pe_floats. TG_ESTORAGE when the storage is smaller,
 * TG_ECORE when the core is not initialised. */
int tg_core_layout(tg_core *core, size_t sbuf_row, size_t psum_row, size_t pe_floats);

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

/* Programs of `k`'s grid (SPEC.md §2.1): the product of k->grid, 1 for a
 * kernel without a grid (its one program is the whole kernel). */
uint64_t tg_kernel_programs(const tg_kernel *k);

/* The pid of program `index` (0 <= index < tg_kernel_programs(k)), row-major
 * over the grid: the last axis varies fastest (axis 0 outermost, the order
 * k() runs them in). */
void tg_kernel_pid(const tg_kernel *k, uint64_t index, int pid[3]);

/* Run program `pid` of `k`'s C simulation alone (after the checks of
 * tg_kernel_run): k->run_program, or for a kernel without a grid k->run for
 * pid {0, 0, 0}. TG_EINVAL for a pid outside the grid. Programs are
 * independent: every program run once, in any order or at once on separate
 * cores (each its own tg_core), writes exactly what tg_kernel_run writes. */
int tg_kernel_run_program(tg_core *core, const tg_kernel *k, const int pid[3], void *const tensors[]);

/* Elements of tensor descriptor `t` (product of its shape). */
size_t tg_tensor_elems(const tg_tensor_desc *t);

#endif /* TG_RUNTIME_H */
