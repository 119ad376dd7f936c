/* main.c: the md_shear run, phase by phase. */
#include "md.h"

#include <stdlib.h>

static const char *const phase_names[PH_COUNT] = {"pair",       "neigh",  "comm",
                                                  "reductions", "output", "other"};

int main(int argc, char **argv) {
  FbContext ctx;
  Md config = {0}, md = {0};
  FbResult result;

  fb_init(&ctx, &argc, &argv, "md");
  fb_timers_init(&ctx.timers, phase_names, PH_COUNT);
  md_parse(&ctx, &config, argc, argv); /* options, the deck, its groups and runs */
  fb_result_init(&result, "atom-steps/s", "atom-steps/s", 1);

  for (long long rep = 0; rep < ctx.common.repeat; rep++) {
    if (rep) {
      free(md.thermo_json);
      md_free(&md);
    }
    md = config; /* every repeat from the same start */
    fb_timers_reset(&ctx.timers);
    md_setup(&ctx, &md);    /* data file, potential, box, ranks, atoms, groups */
    md_run(&ctx, &md);      /* the runs, each timed by the common protocol */
    if (md.total_steps > 0) /* a run of 0 steps measures nothing */
      fb_result_add_loop(&result, &md.loop,
                         (double)md.natoms * (double)md.total_steps / md.loop.max_s);
  }

  md_validate(&ctx, &md, &result); /* atoms kept, energy, momentum */
  char *json = NULL;
  md_fill_result(&ctx, &md, &result, &json);
  md_outputs_close(&ctx, &md, 1);        /* the trajectory and dump get their names */
  int status = fb_report(&ctx, &result); /* summary, JSON record, verdict */

  free(json);
  free(md.thermo_json);
  free(config.deck_text);
  md_free(&md);
  fb_finalize(&ctx, status);
  return status;
}
