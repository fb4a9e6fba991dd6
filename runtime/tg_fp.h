/* tg_fp.h — no FMA contraction in this translation unit, whatever the
 * caller's flags: included first by every runtime .c and generated kernel .c
 * (never by a public header: the pragmas hold to the end of the file), paired
 * with tg_fp_end.h as the last line. docs/numerics.md "Determinism". */
#ifndef TG_FP_H
#define TG_FP_H
#if defined(__clang__)
/* Honoured under clang's default -ffp-contract=on and =off. Under =fast clang
 * disregards pragmas; on x86 no FMA instruction exists for a function built
 * without the fma feature (inlining into an FMA-capable caller stays legal). */
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__) || defined(__i386__)
#pragma clang attribute push(__attribute__((target("no-fma"))), apply_to = function)
#define TG_FP_CLANG_PUSHED 1
#endif
#elif defined(__GNUC__)
/* gcc ignores the STDC pragma (and contracts across statements under its
 * default -std=gnu*); the per-function option overrides the command line.
 * Second, the vectorizer's cost model: at -O2 gcc (12) vectorizes only loops
 * that need no epilogue or versioning ("very cheap"), which leaves every
 * elementwise loop over a row whose length is not a multiple of the vector
 * width, and every narrow-float widening, scalar. "cheap" is -O3's "dynamic"
 * without the loop versions guarded by run-time alias or alignment checks:
 * gcc 12 for AVX-512 (-march=native) versioned a loop on one access's
 * alignment and then stored to another, unaligned, with vmovdqa
 * (tests/numerics/fuzz_diff_cases/gcc-vect-align).
 * Lanes compute each element as the scalar code does (gcc never reassociates
 * float operations without -fassociative-math), so no output bit changes;
 * an fp16 x bf16 multiply over 300-element rows runs 7.6 -> 0.35 ms.
 * Third, no-trapping-math: the runtime never enables or reads floating-point
 * exceptions, and with trapping math gcc refuses to if-convert a loop whose
 * floating-point operations sit in branches, so e.g. a row of exp (selects
 * at the end, tg_math_exp_dv) stays scalar. gcc still neither reassociates
 * nor assumes finite operands; but with SSE4.1 it folds (float)(int)x into a
 * round instruction that keeps -0, which tg_dtype.h's int conversions avoid
 * (docs/numerics.md "Determinism"). */
#pragma GCC optimize("fp-contract=off", "vect-cost-model=cheap", "no-trapping-math")
#endif
#endif
