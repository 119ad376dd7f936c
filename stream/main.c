/* main.c: the STREAM run, phase by phase. */
#include "stream.h"

static const char *const phase_names[PH_COUNT] = {"kernels"};

int main(int argc, char **argv) {
  FbContext ctx;
  Stream s = {0};
  FbResult result;

  fb_init(&ctx, &argc, &argv, "stream");
  fb_timers_init(&ctx.timers, phase_names, PH_COUNT);
  stream_parse(&ctx, &s, argc, argv); /* -n, -r, --nt, --no-sync, --no-huge-pages, ... */
  stream_setup(&ctx, &s);             /* arrays, first touch */
  stream_check_granularity(&ctx, &s); /* also the untimed warm-up */
  stream_choose_width(&ctx, &s);      /* --vector-width auto: a Triad pass in each */

  fb_result_init(&result, s.nt ? "Triad (non-temporal)" : "Triad", "GB/s", 1);
  for (long long rep = 0; rep < ctx.common.repeat; rep++) {
    FbLoop all = {0};
    fb_timers_reset(&ctx.timers);
    stream_measure(&ctx, &s, &all);         /* all ranks, synchronised per kernel */
    stream_report(&ctx, &s, &all, &result); /* stream.c's table */
  }
  if (fb_test_hook("stream_corrupt") && ctx.rank == 0) s.a[s.n / 2] *= 1.5; /* any size */
  stream_validate(&ctx, &s, &result);
  stream_describe(&ctx, &s, &result); /* length, byte convention, the arrays' pages */
  int status = fb_report(&ctx, &result);

  stream_free(&s);
  fb_finalize(&ctx, status);
  return status;
}
