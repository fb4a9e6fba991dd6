/* c_names.h - which spec names the generated C cannot use as they are.
 * The C back end writes the kernel's name as its function (and k_kernel,
 * k_body, K_H, ...) and each tensor's name as a pointer parameter; a name
 * that is a C keyword, or one the runtime, the C headers or the generated
 * code itself declare, would not compile or, worse, would be shadowed by a
 * local of the generated code. */
#ifndef TG_C_NAMES_H
#define TG_C_NAMES_H

/* 1 when `name` is a C keyword (C11 and C23, §6.4.1) or an identifier that
 * the generated C and the headers it includes reserve: a leading '_', the
 * prefixes tg_ / TG_ (runtime and generated locals) and v_ (loop
 * variables), a trailing _t (<stdint.h>, <stddef.h> types), an all-capitals
 * name with '_' (macros: INT64_MAX, K_H), core, tensors, NULL, memcpy,
 * memset, main. */
int cname_reserved(const char *name);

/* 1 when the kernel cannot be named `name`: reserved above, or tg (its
 * k_kernel would be the runtime's tg_kernel). */
int cname_kernel_reserved(const char *name);

/* 1 when a tensor named `name` would collide with the C names of kernel
 * `kernel`: reserved above, the kernel's name, or `kernel`_... */
int cname_tensor_clash(const char *name, const char *kernel);

#endif /* TG_C_NAMES_H */
