/* tg_simd.h — what the per-CPU bodies share (tg_ops.c: the matmul,
 * activation and fp32 arithmetic rows; tg_alu.c: the int32 rows; each
 * generated kernel's body, templates/kernel.c.j2): the CPU's SIMD level on
 * x86-64, and the region macros that build a body for AVX2 under tg_fp.h's
 * no-FMA rule. Included after tg_fp.h (never by a public header). Built without -march flags (the default), x86-64 gets a
 * baseline (SSE2) body and an AVX2 one, picked at the first call from CPUID
 * and XGETBV (what the OS saves), so one binary is fast on a new CPU and
 * runs on an old one or under valgrind. Every body gives the same bits. */
#ifndef TG_SIMD_H
#define TG_SIMD_H

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#define TG_SIMD_DETECT 1

/* The widest body this CPU and OS run: 1 baseline, 2 AVX2 with F16C (every
 * AVX2 CPU has it; the AVX2 bodies convert fp16 by it), 3 that and AVX-512
 * with the F, BW, DQ and VL subsets (every AVX-512 CPU since Skylake-SP and
 * Zen 4; the kernel bodies are built for all four, the runtime's rows for F). */
static inline int tg_simd_cpu_level(void)
{
    unsigned a, b, c, d, xlo, xhi;
    int level = 1;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX) || !(c & bit_F16C))
        return level;
    __asm__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
    (void)xhi;
    if ((xlo & 0x6) != 0x6 || __get_cpuid_max(0, 0) < 7)
        return level; /* the OS does not save the YMM state */
    __cpuid_count(7, 0, a, b, c, d);
    if (b & bit_AVX2)
        level = 2;
    const unsigned avx512 = bit_AVX512F | bit_AVX512BW | bit_AVX512DQ | bit_AVX512VL;
    if ((b & avx512) == avx512 && (xlo & 0xe6) == 0xe6)
        level = 3; /* and the opmask and ZMM state */
    return level;
}

/* 1 where the CPU has FMA (the AVX2 activation rows' fast paths use it),
 * asked once (*cached: 0 until then, else 1 + the answer) */
static inline int tg_simd_cpu_fma(int *cached)
{
    int v = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (!v) {
        unsigned a, b, c, d;
        v = 1 + (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_FMA));
        __atomic_store_n(cached, v, __ATOMIC_RELAXED);
    }
    return v - 1;
}

/* The level in effect: the CPU's, asked once (*cached, 0 until then; every
 * thread stores the same), at most cap. */
static inline int tg_simd_level_capped(int *cached, int cap)
{
    int l = __atomic_load_n(cached, __ATOMIC_RELAXED);
    if (!l) {
        l = tg_simd_cpu_level();
        __atomic_store_n(cached, l, __ATOMIC_RELAXED);
    }
    return l < cap ? l : cap;
}
#endif

/* An AVX2 body is built where the flags give less than AVX (with -mavx or
 * more, the baseline body is already that wide). The region: gcc's pragma
 * leaves fp-contract=off in force. clang gives a function under two pushed
 * target attributes the outer one only, so tg_fp.h's no-fma region is popped
 * for it and pushed back after: else the "AVX2" body is SSE2 code. */
#if defined(TG_SIMD_DETECT) && !defined(__AVX__)
#define TG_SIMD_AVX2_BODY 1
#if defined(__clang__)
#ifndef TG_FP_CLANG_PUSHED
#error "tg_fp.h pushes no-fma on x86-64 clang"
#endif
#define TG_SIMD_AVX2_BEGIN                                                                               \
    _Pragma("clang attribute pop")                                                                       \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,f16c,no-fma\"))), apply_to = function)")
#define TG_SIMD_AVX2_END                                                                                 \
    _Pragma("clang attribute pop")                                                                       \
    _Pragma("clang attribute push(__attribute__((target(\"no-fma\"))), apply_to = function)")
#else
#define TG_SIMD_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,f16c\")")
#define TG_SIMD_AVX2_END _Pragma("GCC pop_options")
#endif
#endif

/* gcc only, an AVX-512 body for a generated kernel (level 3): gcc's
 * fp-contract=off (tg_fp.h) holds in the target region, and AVX-512 has
 * masked loads and stores for every element size (BW), 256-bit forms (VL)
 * and 64-bit integer conversions (DQ). clang cannot: an AVX-512F function
 * cannot be no-fma and clang disregards its no-contraction pragma under
 * -ffp-contract=fast, so there the AVX2 body is the widest. */
#if defined(TG_SIMD_DETECT) && !defined(__AVX512F__) && !defined(__clang__)
#define TG_SIMD_AVX512_BODY 1
#define TG_SIMD_AVX512_BEGIN                                                                             \
    _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx512bw,avx512dq,avx512vl\")")
#define TG_SIMD_AVX512_END _Pragma("GCC pop_options")
#endif

/* In an AVX2 or AVX-512 body, before a call into the baseline's code and
 * before returning to it: gcc 12 leaves out its own vzeroupper before a call
 * to a static function (and a tail jump to one), and legacy SSE code run with
 * the upper halves dirty is slow (the SSE lanes staging's callers on an AVX-512
 * EPYC: layernorm 0.39 -> 0.75 ms with an AVX2 body that tail-called it). */
#if defined(TG_SIMD_AVX2_BODY) || defined(TG_SIMD_AVX512_BODY)
#define TG_SIMD_CLEAN() __builtin_ia32_vzeroupper()
#endif

/* 1 where the baseline body is AVX-512 code (the build flags give it): a
 * generated kernel's body then writes its affine_select as tg_select_f32's AND/OR. */
#ifdef __AVX512F__
#define TG_SIMD_BASE_AVX512 1
#else
#define TG_SIMD_BASE_AVX512 0
#endif

/* A function written once and compiled into each body that calls it (a
 * generated kernel's body: the baseline entry, the AVX2 one and the AVX-512
 * one). */
#if defined(TG_SIMD_AVX2_BODY) || defined(TG_SIMD_AVX512_BODY)
#define TG_SIMD_BODY __attribute__((always_inline)) inline
#else
#define TG_SIMD_BODY
#endif

/* tg_dtype.h's tg__narrow_to_f32 on each lane of a vector (GNU vector
 * extensions; the matmul rows' widening, tg_mm_impl.h, and the lanes
 * staging, tg_ops.c): H holds the encodings, zero-extended one a lane, of a
 * format with EBITS exponent bits, MB mantissa bits and bias 127 - K, in
 * the unsigned 32-bit lane type UV (IV and FV: its int32 and float twins);
 * R gets the fp32 bits (UV). The codec's integer steps: a normal encoding's
 * bits moved up with the exponent rebiased by an add, a subnormal one's
 * mantissa converted to fp32 (exact) times 2^(K - 126 - MB) (both normal in
 * fp32: exact), inf and NaN (quieted) rebuilt. Compares are signed (every
 * value is below 2^31; SSE2 and AVX2 have no unsigned ones). The scalar
 * codec's way, a denormal fp32 (the subnormal's bits) times 2^K, was the
 * slower form in the matmul rows (bench/probes e02 in e4m3). A macro: a
 * vector argument's ABI depends on the body's target. */
#define TG_NARROW_WIDEN_V(R, UV, IV, FV, H, EBITS, MB, K)                                                   \
    do {                                                                                                    \
        const uint32_t inf_ = ((1u << (EBITS)) - 1u) << (MB), mm_ = (1u << (MB)) - 1u;                      \
        const UV h_ = (H), em_ = h_ & ((1u << ((EBITS) + (MB))) - 1u), man_ = em_ & mm_;                   \
        const UV normal_ = (em_ << (23 - (MB))) + ((uint32_t)(K) << 23);                                   \
        const UV sub_ = (UV)(__builtin_convertvector((IV)man_, FV) *                                       \
                             tg_bits_f32((uint32_t)((K) + 1 - (MB)) << 23)); /* man · 2^(K-126-MB) */      \
        const UV special_ = 0x7f800000u | (man_ << (23 - (MB))) | ((UV)((IV)man_ != 0) & 0x00400000u);      \
        const UV big_ = (UV)((IV)em_ >= (int32_t)inf_), low_ = (UV)((IV)em_ <= (int32_t)mm_);               \
        (R) = (((special_ & big_) | (normal_ & ~big_)) & ~low_) | (sub_ & low_) |                           \
              ((h_ >> ((EBITS) + (MB))) << 31);                                                             \
    } while (0)

#endif
