/* bench-tpl driver: load a context (as `tilegen tpl` does), then time
 * tpl_render of one template N times and print the best time in ms and the
 * output size. Usage: bench_tpl TEMPLATE CONTEXT N */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tpl.h"
#include "tpl_cmd.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    tpl_env *env = tpl_env_new();
    tpl_arena *a = tpl_arena_new();
    tpl_value *ctx = env && a ? tpl_cmd_load_context(a, argv[2]) : NULL;
    tpl_error err;
    tpl_template *t = ctx && !tpl_add_host_filters(env) ? tpl_load_file(env, argv[1], &err) : NULL;
    int rc = 1;
    if (t) {
        double best = 1e9;
        size_t len = 0;
        rc = 0;
        for (int i = 0; i < atoi(argv[3]) && !rc; i++) {
            tpl_buf out;
            tpl_buf_init(&out);
            double t0 = now();
            rc = tpl_render(env, t, ctx, &out, &err);
            double dt = now() - t0;
            best = dt < best ? dt : best;
            len = out.len;
            tpl_buf_free(&out);
        }
        if (!rc)
            printf("%.3f %zu\n", best * 1e3, len);
    }
    if (rc)
        fprintf(stderr, "bench_tpl: failed: %s\n", err.message);
    tpl_arena_free(a);
    tpl_env_free(env);
    return rc;
}
