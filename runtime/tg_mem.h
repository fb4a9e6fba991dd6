/* tg_mem.h - memcpy and memset for the freestanding runtime and generated
 * code. <string.h> is not one of C's freestanding headers (a bare
 * arm-none-eabi-gcc has none), yet gcc and clang expect the environment to
 * provide memcpy and memset even under -ffreestanding; so the runtime declares
 * the two itself rather than including <string.h>. */
#ifndef TG_MEM_H
#define TG_MEM_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memset(void *dst, int c, size_t n);

#endif
