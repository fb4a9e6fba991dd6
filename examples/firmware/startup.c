/* startup.c - bare-metal start for the MPS2 AN386 (Cortex-M4F) under QEMU:
 * the vector table, a reset handler that zeroes .bss, enables the FPU and
 * calls fw_main, and ARM semihosting (BKPT 0xAB) for output and exit. Also
 * the memcpy/memset the runtime expects of its environment (tg_mem.h). */
#include <stddef.h>
#include <stdint.h>

int fw_main(void);
void fw_puts(const char *s);

extern uint32_t __bss_start__[], __bss_end__[], __stack_top__[];

static int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void fw_puts(const char *s) { (void)semihost(0x04, s); } /* SYS_WRITE0 */

static void fw_exit(int code)
{
    /* SYS_EXIT: ADP_Stopped_ApplicationExit exits QEMU with 0, anything else 1 */
    (void)semihost(0x18, (const void *)(uintptr_t)(code ? 0x20024u : 0x20026u));
    for (;;)
        ;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}

void fw_reset(void);
void fw_fault(void);

void fw_reset(void)
{
    for (uint32_t *p = __bss_start__; p < __bss_end__; p++)
        *p = 0;
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10, CP11 full access */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    fw_exit(fw_main());
}

void fw_fault(void)
{
    fw_puts("fault\n");
    fw_exit(1);
}

/* The vector table: initial stack pointer, then reset, NMI, HardFault,
 * MemManage, BusFault, UsageFault. */
struct fw_vectors {
    uint32_t *sp;
    void (*handler[6])(void);
};
__attribute__((section(".vectors"), used)) static const struct fw_vectors vectors = {
    __stack_top__, {fw_reset, fw_fault, fw_fault, fw_fault, fw_fault, fw_fault},
};
