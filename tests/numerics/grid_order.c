/* grid_order.c - the per-program entry of a grid kernel (SPEC.md §4): runs
 * grid_blocks (tests/numerics/specs/grid_blocks.yaml, rank-3 grid) once
 * through grid_blocks() and once program by program through
 * grid_blocks_run_program() in reverse order, then in a shuffled order on a
 * fresh core per program, and checks all three outputs are the same bytes;
 * also that a pid outside the grid is refused without touching the output.
 * Prints "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_blocks.h"

enum { NX = 2 * 300 * 96 };

static float x[NX], y0[NX], y1[NX], y2[NX];
TG_CORE_STATIC(core, GRID_BLOCKS_CORE_BYTES);

static int pass, fail;

static void check(int ok, const char *what)
{
    printf("[%s] %s\n", ok ? "       OK " : "  FAILED  ", what);
    ok ? pass++ : fail++;
}

/* Program number k (row-major over the grid) as a pid. */
static void pid_of(int k, int pid[3])
{
    pid[2] = k % GRID_BLOCKS_GRID_2;
    pid[1] = k / GRID_BLOCKS_GRID_2 % GRID_BLOCKS_GRID_1;
    pid[0] = k / (GRID_BLOCKS_GRID_2 * GRID_BLOCKS_GRID_1);
}

int main(void)
{
    unsigned s = 12345u;
    for (int i = 0; i < NX; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)((int)(s >> 16 & 0x7fff) - 16384) / 1024.0f;
    }
    memset(y0, 0xff, sizeof y0); /* NaN: every element must be written */
    memset(y1, 0xff, sizeof y1);
    memset(y2, 0xff, sizeof y2);
    check(GRID_BLOCKS_GRID_RANK == 3 && GRID_BLOCKS_PROGRAMS == 2 * 3 * 3, "k.h states the grid");
    check(tg_core_init(&core, TG_TRN1) == TG_OK && grid_blocks(&core, x, y0) == TG_OK, "grid_blocks() runs");
    int rc = 0, order[GRID_BLOCKS_PROGRAMS], pid[3];
    for (int k = GRID_BLOCKS_PROGRAMS - 1; k >= 0; k--) {
        pid_of(k, pid);
        rc |= grid_blocks_run_program(&core, pid, x, y1);
    }
    check(rc == TG_OK && !memcmp(y0, y1, sizeof y0), "programs in reverse order: the same output bytes");
    for (int k = 0; k < GRID_BLOCKS_PROGRAMS; k++)
        order[k] = k;
    for (int k = GRID_BLOCKS_PROGRAMS - 1; k > 0; k--) { /* Fisher-Yates */
        s = s * 1103515245u + 12345u;
        int j = (int)(s >> 16) % (k + 1), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < GRID_BLOCKS_PROGRAMS; k++) {
        pid_of(order[k], pid);
        rc |= tg_core_init(&core, TG_TRN1) | grid_blocks_run_program(&core, pid, x, y2);
    }
    check(rc == TG_OK && !memcmp(y0, y2, sizeof y0), "programs shuffled, a fresh core each: the same output bytes");
    int bad[3] = {0, GRID_BLOCKS_GRID_1, 0}, neg[3] = {-1, 0, 0};
    memcpy(y1, y0, sizeof y0);
    check(grid_blocks_run_program(&core, bad, x, y1) == TG_EINVAL &&
              grid_blocks_run_program(&core, neg, x, y1) == TG_EINVAL &&
              grid_blocks_run_program(&core, NULL, x, y1) == TG_EINVAL && !memcmp(y0, y1, sizeof y0),
          "a pid outside the grid is refused, nothing written");
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
