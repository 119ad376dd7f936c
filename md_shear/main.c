/* main.c: the md_shear run, phase by phase. */
#include "md.h"

#include <stdlib.h>

static const char *const phase_names[PH_COUNT] = {"pair", "neigh", "comm", "reductions", "output", "other"};

int main(int argc, char **argv) {
  FbContext ctx;
  Md config = {0}, md;
  FbResult result;

  fb_init(&ctx, &argc, &argv, "md");
  fb_timers_init(&ctx.timers, phase_names, PH_COUNT);
  md_parse(&ctx, &config, argc, argv);          /* options and the input deck */
  fb_result_init(&result, "atom-steps/s", "atom-steps/s", 1);

  for (long long rep = 0; rep < ctx.common.repeat; rep++) {
    if (rep) { free(md.thermo_json); md_free(&md); }
    md = config;                                /* every repeat from the same start */
    fb_timers_reset(&ctx.timers);
    md_setup(&ctx, &md);                        /* potential, box, ranks, atoms, velocities */
    md_run(&ctx, &md);                          /* the run (or the shear example's two) */
    fb_result_add_repeat(&result, (double)md.natoms * (double)md.total_steps / md.loop_s);
  }

  md_validate(&ctx, &md, &result);              /* atoms kept, energy, momentum */
  char *json = NULL;
  md_fill_result(&ctx, &md, &result, &json);
  int status = fb_report(&ctx, &result);        /* summary, JSON record, verdict */
  md_trajectory_close(&ctx, &md, 1);

  free(json);
  free(md.thermo_json);
  md_free(&md);
  fb_finalize(&ctx, status);
  return status;
}
