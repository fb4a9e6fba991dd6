/* check_ref.c - `tilegen check` for one spec through the front end built
 * with SEMA_CLOSED_FORM=0 (every check enumerates its iterations): the
 * reference that tests/diag/closed_form.py compares the closed forms with.
 * Prints the diagnostics to stderr; exits 1 on errors, 2 on I/O errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: check_ref SPEC\n");
        return 2;
    }
    size_t len;
    char *text = driver_read_file(argv[1], &len);
    if (!text) {
        fprintf(stderr, "cannot read '%s': %s\n", argv[1], driver_io_error(errno));
        return 2;
    }
    Arena arena;
    Diag diag;
    arena_init(&arena);
    diag_init(&diag, &arena);
    SpecOptions opt = {0};
    driver_front_end(&arena, &diag, argv[1], text, len, &opt);
    diag_print(&diag, stderr);
    int rc = diag.nerrors ? 1 : 0;
    arena_free(&arena);
    free(text);
    return rc;
}
