/* tg_core.c — the simulated core's life cycle and the checks every kernel
 * entry point makes before touching memory. Freestanding: memset only. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_mem.h"

#include "tg_runtime.h"

int tg_core_init(tg_core *core, tg_target target)
{
    if (!core || (unsigned)target >= (unsigned)TG_TARGET_COUNT)
        return TG_EINVAL;
    memset(core->sbuf, TG_SENTINEL_BYTE, sizeof core->sbuf);
    memset(core->psum, TG_SENTINEL_BYTE, sizeof core->psum);
    core->target = target;
    core->sbuf_bytes = target == TG_TRN2 ? TG_TRN2_SBUF_PARTITION_BYTES
                                         : TG_TRN1_SBUF_PARTITION_BYTES;
    core->magic = TG_CORE_MAGIC;
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
    for (uint32_t i = 0; i < k->ntensors; i++)
        if (!tensors[i])
            return TG_EINVAL;
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

size_t tg_tensor_elems(const tg_tensor_desc *t)
{
    size_t n = 1;
    for (uint32_t d = 0; d < t->rank && d < TG_MAX_RANK; d++)
        n *= t->shape[d];
    return n;
}

#include "tg_fp_end.h"
