/* huge_alloc.h - the host benchmarks' allocation: buffers on transparent
 * huge pages where the system allows, as numpy's large arrays are, so that a
 * kernel's timing (run_kernel.c) and the machine's copy limit it is judged
 * against (limits.c) see memory placed alike. Host-only (stdlib, madvise);
 * the includer defines _DEFAULT_SOURCE before any system header. */
#ifndef TG_HUGE_ALLOC_H
#define TG_HUGE_ALLOC_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Ask for transparent huge pages on [p, p + n) (whole 2 MiB pages inside it),
 * as numpy does for its large arrays, so the timing compares like with like.
 * A hint only. */
static void huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/* n bytes (at least 1) on huge pages when the system allows, or NULL. */
static void *alloc_huge(size_t n)
{
    const size_t huge = (size_t)2 << 20;
    size_t rounded = (n + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, rounded ? rounded : huge);
    if (p)
        huge_pages(p, rounded);
    return p;
}

#endif
