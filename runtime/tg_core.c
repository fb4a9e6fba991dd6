/* tg_core.c — the simulated core's life cycle and the checks every kernel
 * entry point makes before touching memory. Freestanding: memset only. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_mem.h"

#include "tg_runtime.h"

int tg_core_init(tg_core *core, tg_target target)
{
    if (!core || !core->mem || (uintptr_t)core->mem % 8 || (unsigned)target >= (unsigned)TG_TARGET_COUNT)
        return TG_EINVAL;
    memset(core->mem, TG_SENTINEL_BYTE, core->mem_bytes);
    core->target = target;
    core->sbuf_bytes = target == TG_TRN2 ? TG_TRN2_SBUF_PARTITION_BYTES
                                         : TG_TRN1_SBUF_PARTITION_BYTES;
    core->sbuf = core->psum = NULL;
    core->pe = NULL;
    core->sbuf_row = core->psum_row = core->pe_floats = 0;
    core->print = NULL;
    core->print_ctx = NULL;
    core->magic = TG_CORE_MAGIC;
    return TG_OK;
}

int tg_core_set_print(tg_core *core, tg_print_fn fn, void *ctx)
{
    if (!core)
        return TG_EINVAL;
    if (core->magic != TG_CORE_MAGIC)
        return TG_ECORE;
    core->print = fn;
    core->print_ctx = ctx;
    return TG_OK;
}

size_t tg_print_bytes(const tg_print_info *info)
{
    size_t n = tg_dtype_size(info->dtype);
    for (uint32_t d = 0; d < info->rank && d < TG_PRINT_MAX_RANK; d++)
        n *= (size_t)info->shape[d];
    return n;
}

void tg_print_pack(const tg_print_info *info, void *out)
{
    uint32_t rank = info->rank < TG_PRINT_MAX_RANK ? info->rank : TG_PRINT_MAX_RANK;
    size_t es = tg_dtype_size(info->dtype);
    int64_t j[TG_PRINT_MAX_RANK] = {0};
    uint8_t *o = (uint8_t *)out;
    if (!rank || !tg_print_bytes(info))
        return;
    for (;;) { /* one innermost run at a time */
        const uint8_t *p = info->data;
        for (uint32_t d = 0; d + 1 < rank; d++)
            p += j[d] * info->stride[d];
        int64_t n = info->shape[rank - 1], s = info->stride[rank - 1];
        if (s == (int64_t)es) {
            memcpy(o, p, (size_t)n * es);
            o += (size_t)n * es;
        } else {
            for (int64_t i = 0; i < n; i++, o += es)
                memcpy(o, p + i * s, es);
        }
        int d = (int)rank - 2;
        while (d >= 0 && ++j[d] == info->shape[d])
            j[d--] = 0;
        if (d < 0)
            return;
    }
}

int tg_core_init_storage(tg_core *core, tg_target target, void *mem, size_t bytes)
{
    if (!core)
        return TG_EINVAL;
    core->magic = 0;
    core->mem = mem;
    core->mem_bytes = bytes;
    return tg_core_init(core, target);
}

int tg_core_layout(tg_core *core, size_t sbuf_row, size_t psum_row, size_t pe_floats)
{
    if (!core)
        return TG_EINVAL;
    if (core->magic != TG_CORE_MAGIC)
        return TG_ECORE;
    size_t room = core->mem_bytes / TG_PARTITIONS; /* per partition, for both rows */
    if (sbuf_row % 8 || psum_row % 8 || sbuf_row > room || psum_row > room - sbuf_row)
        return TG_ESTORAGE;
    size_t rows = (size_t)TG_PARTITIONS * (sbuf_row + psum_row); /* ≤ mem_bytes */
    if (core->mem_bytes - rows < TG_CORE_TAIL || (core->mem_bytes - rows - TG_CORE_TAIL) / 4 < pe_floats)
        return TG_ESTORAGE;
    core->sbuf = (uint8_t *)core->mem;
    core->psum = core->sbuf + (size_t)TG_PARTITIONS * sbuf_row;
    core->pe = (float *)(void *)(core->psum + (size_t)TG_PARTITIONS * psum_row);
    core->sbuf_row = sbuf_row;
    core->psum_row = psum_row;
    core->pe_floats = (core->mem_bytes - rows - TG_CORE_TAIL) / 4;
    return TG_OK;
}

int tg_kernel_check(const tg_core *core, const tg_kernel *k, void *const tensors[])
{
    if (!core || !k || !tensors)
        return TG_EINVAL;
    if (core->magic != TG_CORE_MAGIC)
        return TG_ECORE;
    if (core->target != k->target)
        return TG_ETARGET;
    for (uint32_t i = 0; i < k->ntensors; i++) {
        const tg_tensor_desc *t = &k->tensors[i];
        uint64_t bytes = tg_dtype_size(t->dtype);
        for (uint32_t d = 0; d < t->rank && d < TG_MAX_RANK; d++)
            bytes = t->shape[d] && bytes > UINT64_MAX / t->shape[d] ? UINT64_MAX : bytes * t->shape[d];
        if (!tensors[i] || bytes > SIZE_MAX)
            return TG_EINVAL; /* a tensor this host cannot address (32-bit size_t) */
    }
    return TG_OK;
}

int tg_tensors_alias(const tg_kernel *k, void *const tensors[])
{
    for (uint32_t i = 0; i < k->ntensors; i++) {
        if (!k->tensors[i].is_output)
            continue;
        size_t ni = tg_tensor_elems(&k->tensors[i]) * tg_dtype_size(k->tensors[i].dtype);
        for (uint32_t j = 0; j < k->ntensors; j++) {
            size_t nj = tg_tensor_elems(&k->tensors[j]) * tg_dtype_size(k->tensors[j].dtype);
            if (j != i && tg_overlap(tensors[i], ni, tensors[j], nj))
                return TG_EALIAS;
        }
    }
    return TG_OK;
}

int tg_kernel_run(tg_core *core, const tg_kernel *k, void *const tensors[])
{
    int rc = tg_kernel_check(core, k, tensors);
    if (rc)
        return rc;
    if ((rc = tg_tensors_alias(k, tensors)))
        return rc;
    if (!k->run)
        return TG_EUNSUPPORTED;
    return k->run(core, tensors);
}

uint64_t tg_kernel_programs(const tg_kernel *k)
{
    uint64_t n = 1;
    for (int a = 0; a < 3; a++)
        n *= k->grid[a] ? k->grid[a] : 1;
    return n;
}

void tg_kernel_pid(const tg_kernel *k, uint64_t index, int pid[3])
{
    for (int a = 2; a >= 0; a--) {
        uint64_t n = k->grid[a] ? k->grid[a] : 1;
        pid[a] = (int)(index % n);
        index /= n;
    }
}

int tg_kernel_run_program(tg_core *core, const tg_kernel *k, const int pid[3], void *const tensors[])
{
    int rc = tg_kernel_check(core, k, tensors);
    if (rc)
        return rc;
    if (!pid)
        return TG_EINVAL;
    if ((rc = tg_tensors_alias(k, tensors)))
        return rc;
    if (k->run_program)
        return k->run_program(core, pid, tensors);
    if (pid[0] || pid[1] || pid[2])
        return TG_EINVAL;
    return k->run ? k->run(core, tensors) : TG_EUNSUPPORTED;
}

size_t tg_tensor_elems(const tg_tensor_desc *t)
{
    size_t n = 1;
    for (uint32_t d = 0; d < t->rank && d < TG_MAX_RANK; d++)
        n *= t->shape[d];
    return n;
}

#include "tg_fp_end.h"
