/* tg_alu.c — the ALU operator table: names, lookup, the dispatcher over the
 * static inline per-op functions of tg_alu.h, and the bitvec ops on raw
 * 32-bit patterns for integer tiles. Freestanding C99. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_alu.h"

static const char *const tg_alu_names[TG_ALU_COUNT] = {
#define TG_ALU_NAME(ID, id) #id,
    TG_ALU_OPS(TG_ALU_NAME)
#undef TG_ALU_NAME
};

const char *tg_alu_name(tg_alu_op op)
{
    return (unsigned)op < (unsigned)TG_ALU_COUNT ? tg_alu_names[op] : "?";
}

int tg_alu_from_name(const char *s, size_t len)
{
    return tg_name_find(tg_alu_names, TG_ALU_COUNT, s, len);
}

int tg_alu_is_bitvec(tg_alu_op op)
{
    return op == TG_ALU_BITWISE_AND || op == TG_ALU_BITWISE_OR || op == TG_ALU_BITWISE_XOR ||
           op == TG_ALU_LEFT_SHIFT || op == TG_ALU_RIGHT_SHIFT;
}

float tg_alu(tg_alu_op op, float a, float b)
{
    switch (op) {
#define TG_ALU_CASE(ID, id) case TG_ALU_##ID: return tg_alu_##id(a, b);
        TG_ALU_OPS(TG_ALU_CASE)
#undef TG_ALU_CASE
    default: return tg_bits_f32(0x7fc00000u);
    }
}

uint32_t tg_alu_bits(tg_alu_op op, uint32_t a, uint32_t b)
{
    switch (op) {
    case TG_ALU_BITWISE_AND: return a & b;
    case TG_ALU_BITWISE_OR: return a | b;
    case TG_ALU_BITWISE_XOR: return a ^ b;
    case TG_ALU_LEFT_SHIFT: return b > 31 ? 0u : a << b;
    case TG_ALU_RIGHT_SHIFT: return b > 31 ? 0u : a >> b;
    default: return 0;
    }
}

#include "tg_fp_end.h"
