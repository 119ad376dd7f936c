/* main.c: the ping-pong sweeps, test by test. */
#include "pingpong.h"

int main(int argc, char **argv) {
  FbContext ctx;
  PingPong pp;
  FbResult result;

  fb_init(&ctx, &argc, &argv, "pingpong");
  fb_timers_init(&ctx.timers, pp_test_names, PH_COUNT);
  pp_parse(&ctx, &pp, argc, argv); /* --test, -m, -x, -i, --pairs, --validate */
  pp_setup(&ctx, &pp);             /* pairs across nodes, buffers */

  fb_result_init(&result, "bandwidth", "MB/s", 1);
  FbLoop sweep = {0};
  fb_loop_begin(&ctx, &sweep); /* the sweeps are the timed loop */
  for (int test = 0; test < T_COUNT; test++) {
    if (!pp.run[test]) continue;
    pp_run_test(&ctx, &pp, test); /* warm-up and timed iterations per size */
    pp_print_curve(&ctx, &pp, test);
  }
  fb_loop_end(&ctx, &sweep);

  pp_finish(&ctx, &pp, &sweep, &result); /* fit, checks, curves for the record */
  int status = fb_report(&ctx, &result);
  pp_free(&pp);
  fb_finalize(&ctx, status);
  return status;
}
