/* main.c: the halo_weather run, phase by phase. */
#include "weather.h"

#include <stdio.h>

static const char *const phase_names[PH_COUNT] = {"dynamics", "acoustic", "halo", "reductions",
                                                  "io"};

int main(int argc, char **argv) {
  FbContext ctx;
  Weather w = {0};
  FbResult result;
  char results_json[2048];

  fb_init(&ctx, &argc, &argv, "weather");
  fb_timers_init(&ctx.timers, phase_names, PH_COUNT);
  wx_parse(&ctx, &w, argc, argv); /* options, deck, CFL check */
  wx_setup(&ctx, &w);             /* process grid, fields, base state */
  fb_result_init(&result, "grid-point updates", "points*steps/s", 1);

  for (long long rep = 0; rep < ctx.common.repeat; rep++) {
    fb_timers_reset(&ctx.timers);
    wx_start(&ctx, &w);  /* initial state or restart, diagnostics */
    wx_run(&ctx, &w);    /* the time steps, history, restarts */
    wx_finish(&ctx, &w); /* diagnostics, checksum */
    double points = (double)w.n[0] * (double)w.n[1] * (double)w.n[2];
    if (w.total_steps > 0)
      fb_result_add_loop(&result, &w.loop, points * (double)w.total_steps / w.loop_s);
  }

  wx_validate(&ctx, &w, &result); /* mass, energy, advection error */
  wx_fill_result(&ctx, &w, &result, results_json, sizeof results_json);
  int status = fb_report(&ctx, &result); /* summary, JSON record, verdict */

  wx_free(&w);
  fb_finalize(&ctx, status);
  return status;
}
