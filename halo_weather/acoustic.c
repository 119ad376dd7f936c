/* acoustic.c: the split-explicit small steps of each Runge-Kutta stage, as
 * WRF's (Klemp, Skamarock and Dudhia 2007), linearised about the base state:
 * horizontal momenta forward with the horizontal pressure gradient (plus
 * divergence damping), then per column a vertically implicit solve for W,
 * rho' and Theta' (acoustic and buoyancy terms off-centred), all starting
 * from the state at the beginning of the step and driven by the stage's
 * slow tendencies. Width-1 exchanges: U and V after the horizontal step,
 * the pressure after the vertical one. Tracers take the stage's full step. */
#include "weather.h"

#include <math.h>
#include <string.h>

/* Small steps of RK stage s: ceil(substeps x stage fraction), so no small
 * step is longer than dt / acoustic_substeps (what the deck's CFL check
 * assumed). */
static int small_steps(const Weather *w, int stage) {
  static const double fraction[3] = {1.0 / 3.0, 0.5, 1.0};
  int n = (int)ceil(fraction[stage] * (double)w->acoustic_substeps - 1e-9);
  return n < 1 ? 1 : n;
}

/* LU factors of the tridiagonal system for W at faces 1..nz-1 (same in every
 * column: its coefficients depend on the base state only). */
void wx_acoustic_prepare(Weather *w) {
  static const double fraction[3] = {1.0 / 3.0, 0.5, 1.0};
  const int H = WX_HALO, nz = w->nz;
  const double alpha = 0.5 * (1.0 + w->offcentering);
  for (int s = 0; s < 3; s++) {
    double dts = fraction[s] * w->dt / small_steps(w, s);
    w->tri_dts[s] = dts;
    double b = alpha * dts * dts / (w->dz * w->dz), e = alpha * WX_G * dts * dts / (2.0 * w->dz);
    double *lower = w->tri_a[s], *inv_m = w->tri_b[s], *cprime = w->tri_c[s];
    for (int k = 1; k < nz; k++) {
      double cs = w->cs2c[k + H], csm = w->cs2c[k - 1 + H] ;
      double lo = k > 1 ? -b * csm * w->theta0f[k - 1 + H] + e : 0.0;
      double di = 1.0 + b * (cs + csm) * w->theta0f[k + H];
      double up = k < nz - 1 ? -b * cs * w->theta0f[k + 1 + H] - e : 0.0;
      double m = di - (k > 1 ? lo * cprime[k - 1] : 0.0);
      lower[k] = lo;
      inv_m[k] = 1.0 / m;
      cprime[k] = up / m;
    }
  }
}

void wx_acoustic(FbContext *ctx, Weather *w, int stage, double dt_stage) {
  const ptrdiff_t sj = w->ext[2], si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const int H = WX_HALO, nx = w->nx, ny = w->ny, nz = w->nz;
  const int nsmall = small_steps(w, stage);
  const double dts = w->tri_dts[stage], alpha = 0.5 * (1.0 + w->offcentering), kd = w->divergence_damping;
  const double *lower = w->tri_a[stage], *inv_m = w->tri_b[stage], *cprime = w->tri_c[stage];
  double *U = w->s[F_U], *V = w->s[F_V], *W = w->s[F_W], *R = w->s[F_RHO], *T = w->s[F_THETA];
  double *p = w->plin, *pold = w->plin_old;
  fb_timer_start(&ctx->timers, PH_ACOUSTIC);
  /* start from the state at the beginning of the step */
  const int fast[] = {F_U, F_V, F_W, F_RHO, F_THETA};
  for (size_t f = 0; f < sizeof fast / sizeof fast[0]; f++)
    memcpy(w->s[fast[f]], w->s0[fast[f]], w->ncell * sizeof(double));
#pragma omp parallel for schedule(static)
  for (int i = -H; i < nx + H; i++)
    for (int j = -H; j < ny + H; j++) {
      size_t c0 = wx_idx(w, i, j, 0);
      for (int k = 0; k < nz; k++) p[c0 + k] = pold[c0 + k] = w->cs2c[k + H] * T[c0 + k];
    }
  fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
  for (int step = 0; step < nsmall; step++) {
    fb_timer_start(&ctx->timers, PH_ACOUSTIC);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny; j++) {
        size_t c0 = wx_idx(w, i, j, 0);
        for (int k = 0; k < nz; k++) {
          size_t c = c0 + (size_t)k;
          /* pressure with divergence damping (forward-weighted in time) */
          double pc = p[c] + kd * (p[c] - pold[c]);
          double pw = p[c - si] + kd * (p[c - si] - pold[c - si]);
          double ps = p[c - sj] + kd * (p[c - sj] - pold[c - sj]);
          U[c] += dts * (w->tend[F_U][c] - (pc - pw) / w->dx);
          V[c] += dts * (w->tend[F_V][c] - (pc - ps) / w->dy);
        }
      }
    fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
    double *uv[2] = {U, V};
    fb_halo_exchange(&w->halo1_uv, (void *const *)uv, &ctx->timers, PH_HALO);
    fb_timer_start(&ctx->timers, PH_ACOUSTIC);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nx; i++) {
      double rhat[nz + 1], that[nz + 1], y[nz + 1];
      for (int j = 0; j < ny; j++) {
        size_t c0 = wx_idx(w, i, j, 0);
        for (int k = 0; k < nz; k++) {
          size_t c = c0 + (size_t)k;
          double dh = (U[c + si] - U[c]) / w->dx + (V[c + sj] - V[c]) / w->dy;
          rhat[k] = R[c] - dts * dh;
          that[k] = T[c] + dts * (w->tend[F_THETA][c] - w->theta0c[k + H] * dh);
        }
        /* W at faces 1..nz-1: forward elimination, then back substitution */
        for (int k = 1; k < nz; k++) {
          size_t c = c0 + (size_t)k;
          double old = (p[c] - p[c - 1]) / w->dz + 0.5 * WX_G * (R[c] + R[c - 1]);
          double part = (w->cs2c[k + H] * that[k] - w->cs2c[k - 1 + H] * that[k - 1]) / w->dz +
                        0.5 * WX_G * (rhat[k] + rhat[k - 1]);
          double rhs = W[c] + dts * (w->tend[F_W][c] - (1.0 - alpha) * old) - dts * alpha * part;
          y[k] = (rhs - (k > 1 ? lower[k] * y[k - 1] : 0.0)) * inv_m[k];
        }
        W[c0] = 0.0;
        W[c0 + (size_t)nz] = 0.0;
        for (int k = nz - 1; k >= 1; k--) W[c0 + (size_t)k] = y[k] - cprime[k] * W[c0 + (size_t)k + 1];
        const double a = dts / w->dz;
        for (int k = 0; k < nz; k++) {
          size_t c = c0 + (size_t)k;
          R[c] = rhat[k] - a * (W[c + 1] - W[c]);
          T[c] = that[k] - a * (w->theta0f[k + 1 + H] * W[c + 1] - w->theta0f[k + H] * W[c]);
          pold[c] = p[c];
          p[c] = w->cs2c[k + H] * T[c];
        }
      }
    }
    fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
    if (step + 1 < nsmall) {
      double *pp[2] = {p, pold};
      fb_halo_exchange(&w->halo1_uv, (void *const *)pp, &ctx->timers, PH_HALO);
    }
  }
  /* tracers: the stage's full step with its slow tendency */
  fb_timer_start(&ctx->timers, PH_ACOUSTIC);
  for (int f = F_Q1; f <= F_Q2; f++)
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny; j++) {
        size_t c0 = wx_idx(w, i, j, 0);
        for (int k = 0; k < nz; k++) w->s[f][c0 + k] = w->s0[f][c0 + k] + dt_stage * w->tend[f][c0 + k];
      }
  fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
}
