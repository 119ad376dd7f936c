/* validate.c: stream.c's check of the arrays against their closed-form
 * values after every pass that ran. */
#include "stream.h"

#include <math.h>
#include <string.h>

/* stream.c's threshold for double arrays: the average absolute error per
 * element, relative to the expected value, must stay under 1e-13. */
#define STREAM_EPSILON 1e-13

void stream_validate(FbContext *ctx, const Stream *s, FbResult *r) {
  /* The expected values: a = 2 (the timer check), then each pass and each
   * rescaling, as stream_pass_done did them. */
  double aj = 2.0, bj = 2.0, cj = 0.0;
  const double f = ldexp(1.0, -STREAM_RESCALE_EXP);
  for (long long k = 1; k <= s->passes_done; k++) {
    cj = aj;
    bj = STREAM_SCALAR * cj;
    cj = aj + bj;
    aj = bj + STREAM_SCALAR * cj;
    if (k % STREAM_RESCALE_PASSES == 0) {
      aj *= f;
      bj *= f;
      cj *= f;
    }
  }
  double part[fb_team_rows() * 3], err[3];
  memset(part, 0, sizeof part);
#pragma omp parallel
  {
    double mine[3] = {0.0, 0.0, 0.0};
#pragma omp for schedule(static)
    for (long long j = 0; j < s->n; j++) {
      mine[0] += fabs(s->a[j] - aj);
      mine[1] += fabs(s->b[j] - bj);
      mine[2] += fabs(s->c[j] - cj);
    }
    fb_team_put(part, 3, mine);
  }
  fb_team_total(part, 3, err);
  fb_allreduce_sum_n(ctx, FB_NO_PHASE, err, 3);
  double elements = (double)s->n * ctx->size;
  const double expect[3] = {aj, bj, cj};
  const char *names[3] = {"a_avg_rel_error", "b_avg_rel_error", "c_avg_rel_error"};
  const char *labels[3] = {"array a: mean |error| / value", "array b: mean |error| / value",
                           "array c: mean |error| / value"};
  for (int i = 0; i < 3; i++)
    fb_result_check_abs(r, names[i], labels[i], err[i] / elements / fabs(expect[i]), 0.0,
                        STREAM_EPSILON);
}
