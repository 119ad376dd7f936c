/* main.c: the Himeno benchmark run, phase by phase. */
#include "himeno.h"

static const char *const phase_names[PH_COUNT] = {"compute", "halo", "allreduce"};

int main(int argc, char **argv) {
  FbContext ctx;
  Himeno h;
  FbResult result;
  char results_json[512];

  fb_init(&ctx, &argc, &argv, "himeno");
  fb_timers_init(&ctx.timers, phase_names, PH_COUNT);
  himeno_parse(&ctx, &h, argc, argv); /* options, -s/-n/-t/--grid */
  himeno_setup(&ctx, &h);             /* decomposition, fields */
  himeno_choose_sweep(&ctx, &h);      /* --layout/--prefetch auto: the faster sweep */
  himeno_print_header(&ctx, &h);

  long long iterations = himeno_rehearse(&ctx, &h); /* warm-up, sizes -t runs */
  fb_result_init(&result, "MFLOPS", "Mflop/s", 1);
  himeno_measure(&ctx, &h, iterations, &result); /* timed loop(s) from the start */

  himeno_checksum(&ctx, &h);
  himeno_print_original_lines(&ctx, &h, &result);
  himeno_validate(&h, &result);
  himeno_fill_result(&ctx, &h, &result, results_json, sizeof results_json);
  int status = fb_report(&ctx, &result); /* summary, JSON record, verdict */

  himeno_free(&h);
  fb_finalize(&ctx, status);
  return status;
}
