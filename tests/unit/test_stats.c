/* test_stats.c: percentiles of known samples, and the alpha/beta fit
 * recovering known values from a synthetic latency curve. */
#include "fabricbench.h"
#include "testlib.h"

#include <math.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[100];
  for (int i = 0; i < 100; i++) x[i] = 100 - i; /* 100 .. 1, unsorted order */
  FbSampleStats st;
  EXPECT(fb_sample_stats(x, 100, &st) == 0, "stats");
  EXPECT(st.min == 1 && st.max == 100 && st.median == 50.5 && st.p99 == 99 &&
             fabs(st.mean - 50.5) < 1e-12,
         "min %g max %g median %g p99 %g mean %g", st.min, st.max, st.median, st.p99, st.mean);
  EXPECT(x[0] == 100, "input left alone");

  /* T(n) = 50 us + n / 125 MB/s, with +-2% alternating noise. */
  const double alpha = 50e-6, beta = 125e6;
  double bytes[24], t[24];
  for (int i = 0; i < 24; i++) {
    bytes[i] = (double)(1 << i);
    t[i] = (alpha + bytes[i] / beta) * (i % 2 ? 1.02 : 0.98);
  }
  double a, b;
  EXPECT(fb_fit_alpha_beta(bytes, t, 24, &a, &b) == 0, "fit");
  EXPECT(fabs(a - alpha) / alpha < 0.05, "alpha %g us, want 50", a * 1e6);
  EXPECT(fabs(b - beta) / beta < 0.05, "beta %g MB/s, want 125", b / 1e6);
  /* Exact data gives exact values. */
  for (int i = 0; i < 24; i++) t[i] = 0.4e-6 + bytes[i] / 9e9;
  EXPECT(fb_fit_alpha_beta(bytes, t, 24, &a, &b) == 0, "fit exact");
  EXPECT(fabs(a - 0.4e-6) < 1e-12 && fabs(b - 9e9) / 9e9 < 1e-9, "exact: %g us, %g GB/s", a * 1e6,
         b / 1e9);
  EXPECT(fb_fit_alpha_beta(bytes, t, 1, &a, &b) == 2, "one point refused");
  return tl_finish("stats");
}
