/* stats.c: sample statistics (min, mean, median, percentiles) and the
 * latency-bandwidth fit T(n) = alpha + n / beta used by pingpong and the
 * prediction tools. */
#include "fabricbench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int fb_sample_stats(const double *x, int n, FbSampleStats *st) {
  memset(st, 0, sizeof *st);
  if (n <= 0) return 0;
  double *s = malloc((size_t)n * sizeof *s);
  if (!s) return FB_EXIT_RUNTIME;
  memcpy(s, x, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double sum = 0.0;
  for (int i = 0; i < n; i++) sum += s[i];
  st->n = n;
  st->min = s[0];
  st->max = s[n - 1];
  st->mean = sum / n;
  st->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  /* nearest-rank percentile */
  int rank99 = (int)ceil(0.99 * n) - 1;
  st->p99 = s[rank99 < 0 ? 0 : rank99];
  free(s);
  return 0;
}

/* Weighted least squares on relative error (weights 1/T^2), so that small
 * messages (alpha) count as much as large ones (beta). */
int fb_fit_alpha_beta(const double *bytes, const double *seconds, int n, double *alpha_s,
                      double *beta_bytes_per_s) {
  double s00 = 0, s01 = 0, s11 = 0, r0 = 0, r1 = 0;
  int used = 0;
  for (int i = 0; i < n; i++) {
    if (!(seconds[i] > 0.0) || !isfinite(seconds[i])) continue;
    double w = 1.0 / (seconds[i] * seconds[i]);
    s00 += w;
    s01 += w * bytes[i];
    s11 += w * bytes[i] * bytes[i];
    r0 += w * seconds[i];
    r1 += w * bytes[i] * seconds[i];
    used++;
  }
  double det = s00 * s11 - s01 * s01;
  if (used < 2 || !(fabs(det) > 0.0)) return FB_EXIT_USAGE;
  double alpha = (r0 * s11 - r1 * s01) / det;
  double inv_beta = (s00 * r1 - s01 * r0) / det;
  *alpha_s = alpha;
  *beta_bytes_per_s = inv_beta > 0.0 ? 1.0 / inv_beta : INFINITY;
  return 0;
}
