/* main.c - runs one generated kernel on deterministic inputs and prints a
 * checksum of its outputs: the same file on the Cortex-M4F image (semihosting,
 * startup.c) and on the host (FW_HOSTED, stdio), so the two lines compare.
 * Build with -DKERNEL_H='"k.h"' -DKERNEL_DESC=k_kernel -DKERNEL_CORE_BYTES=K_CORE_BYTES
 * (and FW_POOL_BYTES, the static bytes for the tensors). Freestanding except
 * for fw_puts/fw_exit. */
#include <stddef.h>
#include <stdint.h>

#include "tg_runtime.h"
#include KERNEL_H

#ifndef FW_POOL_BYTES
#define FW_POOL_BYTES (1u << 20)
#endif

void fw_puts(const char *s); /* one line, no newline added */

TG_CORE_STATIC(core, KERNEL_CORE_BYTES);                 /* the plan's SBUF/PSUM */
static tg_storage_unit pool[(FW_POOL_BYTES + 7) / 8];    /* the tensors */

static char *put_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

static char *put_dec(char *p, uint64_t v)
{
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = d[--n];
    return p;
}

static char *put_hex(char *p, uint64_t v)
{
    for (int s = 60; s >= 0; s -= 4)
        *p++ = "0123456789abcdef"[(v >> s) & 15];
    return p;
}

int fw_main(void)
{
    const tg_kernel *k = &KERNEL_DESC;
    void *t[16];
    char line[160], *p;
    size_t used = 0;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    if (k->ntensors > 16)
        return 1;
    for (uint32_t i = 0; i < k->ntensors; i++) { /* tensors from the pool, 8-byte aligned */
        const tg_tensor_desc *d = &k->tensors[i];
        size_t n = tg_tensor_elems(d), bytes = (n * tg_dtype_size(d->dtype) + 7) / 8 * 8;
        if (bytes > sizeof pool - used) {
            p = put_str(line, "tensor pool too small: need more than ");
            p = put_dec(p, sizeof pool);
            *put_str(p, " bytes\n") = '\0';
            fw_puts(line);
            return 1;
        }
        t[i] = (uint8_t *)pool + used;
        used += bytes;
        for (size_t j = 0; !d->is_output && j < n; j++) { /* uniform in [-1, 1), as the dtype */
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            tg_store_f32(t[i], d->dtype, j, (float)(int32_t)(seed >> 40) / 8388608.0f - 1.0f);
        }
    }
    int rc = tg_core_init(&core, k->target);
    if (!rc)
        rc = tg_kernel_run(&core, k, t);
    if (rc) {
        p = put_str(line, k->name);
        p = put_str(p, ": error -");
        *put_str(put_dec(p, (uint64_t)-rc), "\n") = '\0';
        fw_puts(line);
        return 1;
    }
    uint64_t sum = 0xcbf29ce484222325u; /* FNV-1a over every output's bytes */
    for (uint32_t i = 0; i < k->ntensors; i++) {
        const tg_tensor_desc *d = &k->tensors[i];
        const uint8_t *b = (const uint8_t *)t[i];
        for (size_t j = 0; d->is_output && j < tg_tensor_elems(d) * tg_dtype_size(d->dtype); j++)
            sum = (sum ^ b[j]) * 0x100000001b3u;
    }
    p = put_str(line, k->name);
    p = put_str(p, ": output checksum ");
    p = put_hex(p, sum);
    p = put_str(p, ", core storage ");
    p = put_dec(p, sizeof core_storage);
    p = put_str(p, " bytes, tensors ");
    *put_str(put_dec(p, used), " bytes\n") = '\0';
    fw_puts(line);
    return 0;
}

#ifdef FW_HOSTED
#include <stdio.h>
void fw_puts(const char *s) { fputs(s, stdout); }
int main(void) { return fw_main(); }
#endif
