/* main.c: hpl_lite, case by case as HPL runs them. */
#include "hpl.h"

#include <stdlib.h>

int hpl_run_case(FbContext *ctx, const HplConfig *cfg, const HplCase *c, int index);

static const char *const phase_names[PH_COUNT] = {"panel",  "bcast", "swap",
                                                  "update", "solve", "check"};

int main(int argc, char **argv) {
  FbContext ctx;

  hpl_blas_select(argv); /* the right OpenBLAS kernel, before MPI starts */
  fb_init(&ctx, &argc, &argv, "hpl");
  hpl_blas_threads(&ctx); /* DGEMM on the rank's share of the cores */
  fb_timers_init(&ctx.timers, phase_names, PH_COUNT);
  HplConfig *cfg = calloc(1, sizeof *cfg); /* every case of an HPL.dat: half a megabyte */
  fb_agree(&ctx, cfg ? 0 : FB_EXIT_RUNTIME, "out of memory for the case table");
  hpl_parse(&ctx, cfg, argc, argv); /* -N -b -P -Q, or --dat HPL.dat */

  int status = FB_EXIT_OK, failed = 0;
  for (int i = 0; i < cfg->n_cases; i++) { /* generate, factor + solve (timed), check */
    int s = hpl_run_case(&ctx, cfg, &cfg->cases[i], i);
    failed += s != FB_EXIT_OK;
    if (s > status) status = s;
  }
  fb_print(&ctx,
           "\nFinished %4d tests with the following results:\n"
           "         %4d tests completed and passed residual checks,\n"
           "         %4d tests completed and failed residual checks.\n",
           cfg->n_cases, cfg->n_cases - failed, failed);
  free(cfg);
  fb_finalize(&ctx, status);
  return status;
}
