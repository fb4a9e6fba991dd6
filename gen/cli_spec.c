/* cli_spec.c - the spec options (-D, --target) every spec-reading command
 * parses, over cli.h's getopt_long loop (kept apart from cli.c, which the
 * template tools link without the front end). */
#include <stdlib.h>

#include "cli.h"
#include "driver.h"

int cli_spec_init(struct SpecOptions *opt, int argc)
{
    if ((opt->defines = calloc((size_t)argc + 1, sizeof *opt->defines)))
        return 0;
    cli_error("out of memory");
    return 2;
}

int cli_next_spec(CliParser *p, struct SpecOptions *opt)
{
    for (;;) {
        int ch = cli_next(p);
        char msg[256];
        int r = driver_spec_opt(opt, ch, optarg, msg, sizeof msg);
        if (r < 0) {
            cli_usage_error(p->cmd, "%s", msg);
            return 0;
        }
        if (r == 0)
            return ch;
    }
}
