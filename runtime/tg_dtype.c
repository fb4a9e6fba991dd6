/* tg_dtype.c — the dtype table (names, sizes) and the out-of-line conversions:
 * one element of any dtype, and whole rows between any two dtypes.
 * The per-value rounding rules live in tg_dtype.h. Freestanding C99. */
#include "tg_fp.h" /* first: no FMA contraction, whatever the flags */

#include "tg_dtype.h"

/* One row of the dtype table. */
typedef struct tg_dtype_info {
    const char *name; /* spec spelling */
    uint8_t size;     /* storage bytes */
    uint8_t is_float; /* 1 for float formats */
    uint8_t is_signed;/* 1 for signed integers */
} tg_dtype_info;

static const tg_dtype_info tg_dtypes[TG_DTYPE_COUNT] = {
    {"float32", 4, 1, 0},     {"tfloat32", 4, 1, 0},    {"bfloat16", 2, 1, 0},
    {"float16", 2, 1, 0},     {"float8_e4m3", 1, 1, 0}, {"float8_e5m2", 1, 1, 0},
    {"int8", 1, 0, 1},        {"uint8", 1, 0, 0},       {"int16", 2, 0, 1},
    {"uint16", 2, 0, 0},      {"int32", 4, 0, 1},       {"uint32", 4, 0, 0},
};

static int tg_dtype_ok(tg_dtype dt) { return (unsigned)dt < (unsigned)TG_DTYPE_COUNT; }

const char *tg_dtype_name(tg_dtype dt) { return tg_dtype_ok(dt) ? tg_dtypes[dt].name : "?"; }
size_t tg_dtype_size(tg_dtype dt) { return tg_dtype_ok(dt) ? tg_dtypes[dt].size : 0; }
int tg_dtype_is_float(tg_dtype dt) { return tg_dtype_ok(dt) && tg_dtypes[dt].is_float; }
int tg_dtype_is_signed_int(tg_dtype dt) { return tg_dtype_ok(dt) && tg_dtypes[dt].is_signed; }

int tg_dtype_from_name(const char *s, size_t len)
{
    int i;
    for (i = 0; i < TG_DTYPE_COUNT; i++)
        if (tg_name_eq(tg_dtypes[i].name, s, len))
            return i;
    return -1;
}

float tg_load_f32(const void *base, tg_dtype dt, size_t i)
{
    switch (dt) {
    case TG_FLOAT32:
    case TG_TFLOAT32: return ((const float *)base)[i];
    case TG_BFLOAT16: return tg_bf16_to_f32(((const uint16_t *)base)[i]);
    case TG_FLOAT16: return tg_f16_to_f32(((const uint16_t *)base)[i]);
    case TG_FLOAT8_E4M3: return tg_e4m3_to_f32(((const uint8_t *)base)[i]);
    case TG_FLOAT8_E5M2: return tg_e5m2_to_f32(((const uint8_t *)base)[i]);
    case TG_INT8: return (float)((const int8_t *)base)[i];
    case TG_UINT8: return (float)((const uint8_t *)base)[i];
    case TG_INT16: return (float)((const int16_t *)base)[i];
    case TG_UINT16: return (float)((const uint16_t *)base)[i];
    case TG_INT32: return (float)((const int32_t *)base)[i];
    case TG_UINT32: return (float)((const uint32_t *)base)[i];
    default: return 0.0f;
    }
}

void tg_store_f32(void *base, tg_dtype dt, size_t i, float v)
{
    switch (dt) {
    case TG_FLOAT32: ((float *)base)[i] = v; break;
    case TG_TFLOAT32: ((float *)base)[i] = tg_f32_to_tf32(v); break;
    case TG_BFLOAT16: ((uint16_t *)base)[i] = tg_f32_to_bf16(v); break;
    case TG_FLOAT16: ((uint16_t *)base)[i] = tg_f32_to_f16(v); break;
    case TG_FLOAT8_E4M3: ((uint8_t *)base)[i] = tg_f32_to_e4m3(v); break;
    case TG_FLOAT8_E5M2: ((uint8_t *)base)[i] = tg_f32_to_e5m2(v); break;
    case TG_INT8: ((int8_t *)base)[i] = tg_f32_to_i8(v); break;
    case TG_UINT8: ((uint8_t *)base)[i] = tg_f32_to_u8(v); break;
    case TG_INT16: ((int16_t *)base)[i] = tg_f32_to_i16(v); break;
    case TG_UINT16: ((uint16_t *)base)[i] = tg_f32_to_u16(v); break;
    case TG_INT32: ((int32_t *)base)[i] = tg_f32_to_i32(v); break;
    case TG_UINT32: ((uint32_t *)base)[i] = tg_f32_to_u32(v); break;
    default: break;
    }
}

/* One loop per dtype so each body is a straight, vectorizable conversion. */
#define TG_ROW_LOOP(n, stmt)          \
    do {                              \
        size_t i_;                    \
        for (i_ = 0; i_ < (n); i_++) { \
            size_t i = i_;            \
            stmt;                     \
        }                             \
    } while (0)

void tg_row_to_f32(float *dst, const void *src, tg_dtype st, size_t n)
{
    switch (st) {
    case TG_FLOAT32:
    case TG_TFLOAT32: TG_ROW_LOOP(n, dst[i] = ((const float *)src)[i]); break;
    case TG_BFLOAT16: tg_row_bf16_to_f32(dst, (const uint16_t *)src, n); break;
    case TG_FLOAT16: tg_row_f16_to_f32(dst, (const uint16_t *)src, n); break;
    case TG_FLOAT8_E4M3: TG_ROW_LOOP(n, dst[i] = tg_e4m3_to_f32(((const uint8_t *)src)[i])); break;
    case TG_FLOAT8_E5M2: TG_ROW_LOOP(n, dst[i] = tg_e5m2_to_f32(((const uint8_t *)src)[i])); break;
    case TG_INT8: TG_ROW_LOOP(n, dst[i] = (float)((const int8_t *)src)[i]); break;
    case TG_UINT8: TG_ROW_LOOP(n, dst[i] = (float)((const uint8_t *)src)[i]); break;
    case TG_INT16: TG_ROW_LOOP(n, dst[i] = (float)((const int16_t *)src)[i]); break;
    case TG_UINT16: TG_ROW_LOOP(n, dst[i] = (float)((const uint16_t *)src)[i]); break;
    case TG_INT32: TG_ROW_LOOP(n, dst[i] = (float)((const int32_t *)src)[i]); break;
    case TG_UINT32: TG_ROW_LOOP(n, dst[i] = (float)((const uint32_t *)src)[i]); break;
    default: break;
    }
}

void tg_row_from_f32(void *dst, tg_dtype dt, const float *src, size_t n)
{
    switch (dt) {
    case TG_FLOAT32: TG_ROW_LOOP(n, ((float *)dst)[i] = src[i]); break;
    case TG_TFLOAT32: TG_ROW_LOOP(n, ((float *)dst)[i] = tg_f32_to_tf32(src[i])); break;
    case TG_BFLOAT16: tg_row_f32_to_bf16((uint16_t *)dst, src, n); break;
    case TG_FLOAT16: tg_row_f32_to_f16((uint16_t *)dst, src, n); break;
    case TG_FLOAT8_E4M3: TG_ROW_LOOP(n, ((uint8_t *)dst)[i] = tg_f32_to_e4m3(src[i])); break;
    case TG_FLOAT8_E5M2: TG_ROW_LOOP(n, ((uint8_t *)dst)[i] = tg_f32_to_e5m2(src[i])); break;
    case TG_INT8: TG_ROW_LOOP(n, ((int8_t *)dst)[i] = tg_f32_to_i8(src[i])); break;
    case TG_UINT8: TG_ROW_LOOP(n, ((uint8_t *)dst)[i] = tg_f32_to_u8(src[i])); break;
    case TG_INT16: TG_ROW_LOOP(n, ((int16_t *)dst)[i] = tg_f32_to_i16(src[i])); break;
    case TG_UINT16: TG_ROW_LOOP(n, ((uint16_t *)dst)[i] = tg_f32_to_u16(src[i])); break;
    case TG_INT32: TG_ROW_LOOP(n, ((int32_t *)dst)[i] = tg_f32_to_i32(src[i])); break;
    case TG_UINT32: TG_ROW_LOOP(n, ((uint32_t *)dst)[i] = tg_f32_to_u32(src[i])); break;
    default: break;
    }
}

#define TG_CVT_CHUNK 256 /* fp32 staging buffer on the stack, in elements */

int tg_cvt_row(void *dst, tg_dtype dt, const void *src, tg_dtype st, size_t n)
{
    size_t done = 0, ds, ss;
    float buf[TG_CVT_CHUNK];
    if (!tg_dtype_ok(dt) || !tg_dtype_ok(st))
        return -1;
    ds = tg_dtypes[dt].size;
    ss = tg_dtypes[st].size;
    if (dt == st) { /* bit-exact copy (memmove semantics not needed: no overlap) */
        unsigned char *d = (unsigned char *)dst;
        const unsigned char *s = (const unsigned char *)src;
        size_t k, bytes = n * ds;
        if (d != s)
            for (k = 0; k < bytes; k++)
                d[k] = s[k];
        return 0;
    }
    if (st == TG_FLOAT32) {
        tg_row_from_f32(dst, dt, (const float *)src, n);
        return 0;
    }
    if (dt == TG_FLOAT32) {
        tg_row_to_f32((float *)dst, src, st, n);
        return 0;
    }
    while (done < n) {
        size_t k = n - done < TG_CVT_CHUNK ? n - done : TG_CVT_CHUNK;
        tg_row_to_f32(buf, (const unsigned char *)src + done * ss, st, k);
        tg_row_from_f32((unsigned char *)dst + done * ds, dt, buf, k);
        done += k;
    }
    return 0;
}

#include "tg_fp_end.h"
