/* tg_fp_end.h — closes what tg_fp.h opened (clang's attribute region); the
 * last line of a file that includes tg_fp.h. */
#ifdef TG_FP_CLANG_PUSHED
#pragma clang attribute pop
#undef TG_FP_CLANG_PUSHED
#endif
