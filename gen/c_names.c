/* c_names.c - which spec names the generated C cannot use as they are. */
#include "c_names.h"

#include <ctype.h>
#include <string.h>

/* C11 §6.4.1 and C23 §6.4.1 keywords. */
static const char *const keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "alignas", "alignof", "bool", "constexpr", "false", "nullptr", "static_assert", "thread_local", "true",
    "typeof", "typeof_unqual", NULL};

/* Names the generated C itself uses: its core parameter and the k_run
 * tensor array (templates/kernel.c.j2), NULL and the <string.h> functions
 * runtime/tg_mem.h declares, and main (a host program's). */
static const char *const used[] = {"core", "tensors", "NULL", "memcpy", "memset", "main", NULL};

static int in(const char *const *list, const char *name)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(list[i], name))
            return 1;
    return 0;
}

static int prefix(const char *name, const char *p)
{
    return !strncmp(name, p, strlen(p));
}

int cname_reserved(const char *name)
{
    size_t n = strlen(name);
    if (in(keywords, name) || in(used, name) || name[0] == '_' || prefix(name, "tg_") || prefix(name, "TG_") ||
        prefix(name, "v_") || (n >= 2 && !strcmp(name + n - 2, "_t")))
        return 1;
    int lower = 0, under = 0;
    for (const char *s = name; *s; s++) {
        lower |= islower((unsigned char)*s) != 0;
        under |= *s == '_';
    }
    return under && !lower; /* INT64_MAX, SIZE_MAX, K_H: macros */
}

int cname_tensor_clash(const char *name, const char *kernel)
{
    size_t k = strlen(kernel);
    return cname_reserved(name) || !strcmp(name, kernel) || (!strncmp(name, kernel, k) && name[k] == '_');
}

int cname_kernel_reserved(const char *name)
{
    return cname_reserved(name) || !strcmp(name, "tg") || !strcmp(name, "TG");
}
