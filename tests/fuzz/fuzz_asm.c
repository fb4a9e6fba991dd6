/* fuzz_asm.c - libFuzzer target over the assembler and the binary program
 * decoder. First byte even: the rest is .s text - assembling must not crash,
 * and what assembles must decode and survive text -> binary -> text. First
 * byte odd: the rest is a binary program - decoding must not crash, and a
 * program that decodes must evaluate its expressions without undefined
 * behaviour and disassemble into text that assembles and disassembles to the
 * same text. First byte 3 mod 4: the size and checksum fields are fixed up
 * before decoding. A listing the assembler refuses must be refused with a
 * located error, never A099 (the validator's verdict after assembly). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"

/* Abort (a finding) unless text assembles and reproduces itself. */
static void stable(const char *text)
{
    Arena a;
    arena_init(&a);
    Diag d;
    diag_init(&d, &a);
    uint8_t *bin = NULL;
    size_t n = 0;
    tg_prog p;
    if (asm_assemble("fuzz.s", text, strlen(text), &d, &bin, &n) || tg_prog_decode(&p, bin, n))
        abort();
    char *again = asm_disassemble(&p);
    if (!again || strcmp(again, text))
        abort();
    free(again);
    free(bin);
    arena_free(&a);
}

static void exercise(const tg_prog *p)
{
    int64_t regs[TG_ISA_MAX_REGS] = {0, 1, -1, 7, 1 << 20, -(1 << 20), 3, 2}, v;
    for (uint32_t i = 0; i < p->ninsts; i++) {
        tg_prog_inst in;
        tg_prog_get_inst(p, i, &in);
        for (uint32_t k = 0; k < in.nops; k++) {
            tg_prog_operand o;
            tg_prog_get_operand(p, in.first_op + k, &o);
            (void)tg_prog_eval(p, o.offset, regs, 0, 0, &v);
            (void)tg_prog_eval(p, o.pcount, regs, 0, 0, &v);
            (void)tg_prog_eval(p, o.buf, regs, 0, 0, &v);
        }
        if (in.op == TG_OP_LOOP || in.op == TG_OP_ENDLOOP)
            (void)tg_prog_loop_match(p, i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    tg_prog p;
    if (data[0] & 1) {
        /* first byte 3 mod 4: fix the size and checksum fields first, so the
         * fuzzer reaches the structural checks behind the checksum */
        uint8_t *b = malloc(size);
        if (!b)
            return 0;
        memcpy(b, data + 1, size - 1);
        if ((data[0] & 3) == 3 && size - 1 >= TG_ISA_HEADER_BYTES) {
            uint32_t n = (uint32_t)(size - 1), h;
            for (int i = 0; i < 4; i++)
                b[8 + i] = (uint8_t)(n >> (8 * i));
            h = tg_prog_checksum(b, n);
            for (int i = 0; i < 4; i++)
                b[12 + i] = (uint8_t)(h >> (8 * i));
        }
        if (!tg_prog_decode(&p, b, size - 1)) {
            exercise(&p);
            char *text = asm_disassemble(&p);
            if (!text)
                abort();
            stable(text);
            free(text);
        }
        free(b);
        return 0;
    }
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    Arena a;
    arena_init(&a);
    Diag d;
    diag_init(&d, &a);
    diag_add_source(&d, "fuzz.s", text, size - 1);
    uint8_t *bin = NULL;
    size_t n = 0;
    if (!asm_assemble("fuzz.s", text, size - 1, &d, &bin, &n)) {
        if (tg_prog_decode(&p, bin, n))
            abort();
        char *t1 = asm_disassemble(&p);
        if (!t1)
            abort();
        stable(t1);
        free(t1);
    } else {
        /* what the validator refuses, the assembler refuses first, located
         * (docs/iss.md, the ISS's contract): A099 would be a gap */
        for (const DiagMsg *m = d.head; m; m = m->next)
            if (m->code && !strcmp(m->code, "A099"))
                abort();
    }
    free(bin);
    arena_free(&a);
    free(text);
    return 0;
}
