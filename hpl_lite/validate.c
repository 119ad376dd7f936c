/* validate.c: HPL's check, with A and b regenerated from the seed:
 * ||Ax-b||_oo / (eps * (||A||_oo * ||x||_oo + ||b||_oo) * N) against the
 * threshold (16, HPL's). */
#include "hpl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* LAPACK's dlamch('E'), the relative machine precision HPL uses: 2^-53. */
#define HPL_EPS (DBL_EPSILON / 2.0)

void hpl_check(FbContext *ctx, HplMatrix *m, unsigned long long seed, HplOutcome *out) {
  const HplCase *c = &m->c;
  fb_timer_start(&ctx->timers, PH_CHECK);
  double *ax = calloc((size_t)(m->mloc > 0 ? m->mloc : 1) * 2, sizeof(double));
  double *rowabs = ax + (m->mloc > 0 ? m->mloc : 1);
  if (hpl_grid_any(m, ax == NULL))
    fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory for the residual check");
  long long ncols = hpl_numroc(c->n, c->nb, m->mycol, c->q); /* columns of A, not b */
#pragma omp parallel for schedule(static)
  for (long long li = 0; li < m->mloc; li++) {
    long long gi = hpl_global_index(li, c->nb, m->myrow, c->p);
    double s = 0.0, a_abs = 0.0;
    for (long long lj = 0; lj < ncols; lj++) {
      long long gj = hpl_global_index(lj, c->nb, m->mycol, c->q);
      double a = hpl_entry(seed, gi, gj);
      s += a * m->x[gj];
      a_abs += fabs(a);
    }
    ax[li] = s;
    rowabs[li] = a_abs;
  }
  hpl_row_sum(m, ax, (int)(2 * (m->mloc > 0 ? m->mloc : 1)));
  double norms[3] = {0.0, 0.0, 0.0}; /* ||Ax-b||, ||A||, ||b|| over my rows */
  for (long long li = 0; li < m->mloc; li++) {
    double b = hpl_entry(seed, hpl_global_index(li, c->nb, m->myrow, c->p), c->n);
    norms[0] = fmax(norms[0], fabs(ax[li] - b));
    norms[1] = fmax(norms[1], rowabs[li]);
    norms[2] = fmax(norms[2], fabs(b));
  }
  hpl_grid_max(m, norms, 3);
  double xnorm = 0.0, xsum = 0.0;
  for (long long i = 0; i < c->n; i++) {
    xnorm = fmax(xnorm, fabs(m->x[i]));
    xsum += m->x[i];
  }
  free(ax);
  out->norm_a = norms[1];
  out->norm_b = norms[2];
  out->norm_x = xnorm;
  out->x_sum = xsum;
  out->resid = norms[0] / (HPL_EPS * (norms[1] * xnorm + norms[2]) * (double)c->n);
  /* fmax skips NaN: an x with NaN or inf in it (xsum not finite) has no
   * residual, whatever the norms above say */
  if (!isfinite(out->resid) || !isfinite(xsum)) out->resid = INFINITY;
  fb_timer_stop(&ctx->timers, PH_CHECK);
}
