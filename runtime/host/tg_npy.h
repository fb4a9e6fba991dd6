/* tg_npy.h - host-only .npy reader/writer for the numerics harness (SPEC.md
 * §3 storage: float32/tfloat32 '<f4', bfloat16/float16 raw bits '<u2'
 * (float16 also '<f2'), float8 raw bits '|u1', integers as their numpy
 * dtype). Strict: dtype, shape, byte order and fortran order must match. */
#ifndef TG_NPY_H
#define TG_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "tg_dtype.h"

enum {
    TG_NPY_MAX_RANK = 8,       /* dims a header may carry */
    TG_NPY_MAX_HEADER = 65536, /* bytes of header dict accepted */
    TG_NPY_HEADER_MAX = 384,   /* bytes tg_npy_header writes at most */
};

/* Read `path` into data (exactly `bytes` bytes): the file must hold `dt` in
 * its storage format with exactly `shape[0..rank)`. Returns 0, or -1 with a
 * message naming the file and the mismatch in err. */
int tg_npy_read(const char *path, tg_dtype dt, const uint32_t *shape, uint32_t rank, void *data,
                size_t bytes, char *err, size_t errlen);

/* Write data (dt storage, shape[0..rank), C order) as a version 1.0 .npy.
 * Returns 0, or -1 with a message in err. */
int tg_npy_write(const char *path, tg_dtype dt, const uint32_t *shape, uint32_t rank,
                 const void *data, char *err, size_t errlen);

/* The version 1.0 header (magic, length, dict, padding) of a .npy holding
 * dt storage with shape[0..rank), C order, into buf: its length, or 0 when
 * it does not fit or dt/rank are invalid (or the host is big-endian). The
 * data follow it as they are in memory. */
size_t tg_npy_header(unsigned char *buf, size_t size, tg_dtype dt, const uint32_t *shape, uint32_t rank);

/* The numpy descr tg_npy_write uses for dt ("<f4", "<u2", "|u1", ...). */
const char *tg_npy_descr(tg_dtype dt);

#endif
