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
      double cs = w->cs2c[k + H], csm = w->cs2c[k - 1 + H];
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

/* Columns solved together: the two recurrences of the tridiagonal solve are
 * latency-bound in one column; four independent columns side by side keep
 * four dependency chains in flight. */
#define WX_LANES 4

typedef struct {
  double dts, alpha, kd;
  const double *lower, *inv_m, *cprime;
  /* the fields the small step starts from: the state at the beginning of
   * the RK step (s0) for the first small step, the current state after */
  const double *U, *V, *W, *R, *T;
} SmallStep;

/* Horizontal momenta of one column forward with the horizontal pressure
 * gradient (pressure with divergence damping, forward-weighted in time).
 * Arguments are restrict parameters, which GCC honours (restrict locals
 * left the loop scalar behind 21 alias checks). */
static void horizontal_column(int nz, ptrdiff_t si, ptrdiff_t sj, double kd, double dts, double rdx,
                              double rdy, const double *restrict p, const double *restrict pold,
                              const double *restrict tu, const double *restrict tv,
                              const double *restrict U0, const double *restrict V0,
                              double *restrict U, double *restrict V) {
  for (int k = 0; k < nz; k++) {
    double pc = p[k] + kd * (p[k] - pold[k]);
    double pw = p[k - si] + kd * (p[k - si] - pold[k - si]);
    double ps = p[k - sj] + kd * (p[k - sj] - pold[k - sj]);
    U[k] = U0[k] + dts * (tu[k] - (pc - pw) * rdx);
    V[k] = V0[k] + dts * (tv[k] - (pc - ps) * rdy);
  }
}

static inline void horizontal(Weather *w, const SmallStep *st, int i, int j) {
  const size_t c = wx_idx(w, i, j, 0);
  horizontal_column(w->nz, (ptrdiff_t)w->ext[1] * w->ext[2], wx_ystride(w), st->kd, st->dts,
                    1.0 / w->dx, 1.0 / w->dy, w->plin + c, w->plin_old + c, w->tend[F_U] + c,
                    w->tend[F_V] + c, st->U + c, st->V + c, w->s[F_U] + c, w->s[F_V] + c);
}

/* The end of a column's small step: W from the solve (y, faces 0..nz), then
 * rho', Theta' and the linear pressure (the previous one kept). */
static void column_update(int nz, double a, const double *restrict th0f, const double *restrict cs2,
                          const double *restrict rh, const double *restrict th,
                          const double *restrict y, double *restrict W, double *restrict R,
                          double *restrict T, double *restrict p, double *restrict pold) {
  for (int k = 0; k <= nz; k++) W[k] = y[k];
  for (int k = 0; k < nz; k++) {
    double t = th[k] - a * (th0f[k + 1] * y[k + 1] - th0f[k] * y[k]);
    R[k] = rh[k] - a * (y[k + 1] - y[k]);
    T[k] = t;
    pold[k] = p[k];
    p[k] = cs2[k] * t;
  }
}

/* nj <= WX_LANES columns from (i, j0), lane apart in the fields (along y,
 * or along x on one row): the horizontal divergence with the new U and V,
 * then W at faces 1..nz-1 from the tridiagonal system (forward elimination,
 * back substitution), then rho', Theta' and the linear pressure. Work
 * arrays: [lane][k], nz + 1 per lane. */
static inline void columns(Weather *w, const SmallStep *st, int i, int j0, const int nj,
                           ptrdiff_t lane, double *restrict rhat, double *restrict that,
                           double *restrict y) {
  const ptrdiff_t sj = wx_ystride(w), si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const int H = WX_HALO, nz = w->nz;
  const ptrdiff_t N = nz + 1; /* one lane's length in the work arrays */
  const double dts = st->dts, alpha = st->alpha;
  const double rdx = 1.0 / w->dx, rdy = 1.0 / w->dy, rdz = 1.0 / w->dz;
  const double *U = w->s[F_U], *V = w->s[F_V], *R0 = st->R, *T0 = st->T, *W0 = st->W;
  double *W = w->s[F_W], *R = w->s[F_RHO], *T = w->s[F_THETA];
  double *p = w->plin, *pold = w->plin_old;
  const size_t first = wx_idx(w, i, j0, 0);
  for (int l = 0; l < nj; l++) {
    const size_t c0 = first + (size_t)l * (size_t)lane;
    double *restrict rh = rhat + (size_t)l * N, *restrict th = that + (size_t)l * N;
    double *restrict yl = y + (size_t)l * N;
    for (int k = 0; k < nz; k++) {
      size_t c = c0 + (size_t)k;
      double dh = (U[c + si] - U[c]) * rdx + (V[c + sj] - V[c]) * rdy;
      rh[k] = R0[c] - dts * dh;
      th[k] = T0[c] + dts * (w->tend[F_THETA][c] - w->theta0c[k + H] * dh);
    }
    for (int k = 1; k < nz; k++) {
      size_t c = c0 + (size_t)k;
      double old = (p[c] - p[c - 1]) * rdz + 0.5 * WX_G * (R0[c] + R0[c - 1]);
      double part = (w->cs2c[k + H] * th[k] - w->cs2c[k - 1 + H] * th[k - 1]) * rdz +
                    0.5 * WX_G * (rh[k] + rh[k - 1]);
      yl[k] = W0[c] + dts * (w->tend[F_W][c] - (1.0 - alpha) * old) - dts * alpha * part;
    }
  }
  /* the recurrences, the columns side by side (independent chains) */
  for (int l = 0; l < nj; l++) y[l * N + 1] *= st->inv_m[1];
  for (int k = 2; k < nz; k++)
    for (int l = 0; l < nj; l++)
      y[l * N + k] = (y[l * N + k] - st->lower[k] * y[l * N + k - 1]) * st->inv_m[k];
  for (int l = 0; l < nj; l++) y[l * N] = y[l * N + nz] = 0.0; /* W at floor and lid */
  for (int k = nz - 1; k >= 1; k--)
    for (int l = 0; l < nj; l++) y[l * N + k] -= st->cprime[k] * y[l * N + k + 1];
  for (int l = 0; l < nj; l++) {
    const size_t c0 = first + (size_t)l * (size_t)lane;
    column_update(nz, dts / w->dz, w->theta0f + H, w->cs2c + H, rhat + l * N, that + l * N,
                  y + l * N, W + c0, R + c0, T + c0, p + c0, pold + c0);
  }
}

/* Columns of the owned block that need (edge = 1) or do not need (edge = 0)
 * the halo: the horizontal step reads the west and south neighbours, the
 * column step the east and north faces. */
static void horizontal_region(Weather *w, const SmallStep *st, int edge) {
  const int south = !w->flat; /* one row has no south neighbour to wait for */
#pragma omp parallel for schedule(static)
  for (int i = 0; i < w->nx; i++)
    for (int j = 0; j < w->ny; j++)
      if ((i == 0 || (south && j == 0)) == edge) horizontal(w, st, i, j);
}

/* One row's columns, WX_LANES side by side along x: those before the east
 * one (edge = 0), or the east one (edge = 1). */
static void row_region(Weather *w, const SmallStep *st, int edge) {
  const int nx = w->nx, lo = edge ? nx - 1 : 0, hi = edge ? nx : nx - 1;
  const ptrdiff_t si = (ptrdiff_t)w->ext[1] * w->ext[2];
#pragma omp parallel
  {
    double rhat[(w->nz + 1) * WX_LANES], that[(w->nz + 1) * WX_LANES], y[(w->nz + 1) * WX_LANES];
#pragma omp for schedule(static)
    for (int i = lo; i < hi; i += WX_LANES) {
      if (i + WX_LANES <= hi)
        columns(w, st, i, 0, WX_LANES, si, rhat, that, y);
      else
        for (int l = i; l < hi; l++) columns(w, st, l, 0, 1, si, rhat, that, y);
    }
  }
}

static void column_region(Weather *w, const SmallStep *st, int edge) {
  const int nx = w->nx, ny = w->ny;
  if (w->flat) {
    row_region(w, st, edge);
    return;
  }
#pragma omp parallel
  {
    double rhat[(w->nz + 1) * WX_LANES], that[(w->nz + 1) * WX_LANES], y[(w->nz + 1) * WX_LANES];
#pragma omp for schedule(static)
    for (int i = 0; i < nx; i++) {
      /* edge columns: the east row i = nx - 1 and the north column j = ny - 1 */
      int lo = edge ? (i == nx - 1 ? 0 : ny - 1) : 0, hi = edge ? ny : (i == nx - 1 ? 0 : ny - 1);
      int j = lo;
      for (; j + WX_LANES <= hi; j += WX_LANES)
        columns(w, st, i, j, WX_LANES, w->ext[2], rhat, that, y);
      for (; j < hi; j++) columns(w, st, i, j, 1, w->ext[2], rhat, that, y);
    }
  }
}

void wx_acoustic(FbContext *ctx, Weather *w, int stage, double dt_stage) {
  const int H = WX_HALO, nx = w->nx, ny = w->ny, nz = w->nz;
  const int nsmall = small_steps(w, stage);
  const SmallStep from_s0 = {w->tri_dts[stage],
                             0.5 * (1.0 + w->offcentering),
                             w->divergence_damping,
                             w->tri_a[stage],
                             w->tri_b[stage],
                             w->tri_c[stage],
                             w->s0[F_U],
                             w->s0[F_V],
                             w->s0[F_W],
                             w->s0[F_RHO],
                             w->s0[F_THETA]};
  SmallStep from_s = from_s0;
  from_s.U = w->s[F_U], from_s.V = w->s[F_V], from_s.W = w->s[F_W];
  from_s.R = w->s[F_RHO], from_s.T = w->s[F_THETA];
  double *p = w->plin, *pold = w->plin_old;
  const double *T = w->s0[F_THETA];
  double *uv[2] = {w->s[F_U], w->s[F_V]}, *pp[2] = {p, pold};
  fb_timer_start(&ctx->timers, PH_ACOUSTIC);
  /* every stage starts from the state at the beginning of the step (the
   * first small step reads it from s0) */
#pragma omp parallel for schedule(static)
  for (int i = -H; i < nx + H; i++)
    for (int j = -wx_yhalo(w); j < ny + wx_yhalo(w); j++) {
      size_t c0 = wx_idx(w, i, j, 0);
      for (int k = 0; k < nz; k++) p[c0 + k] = pold[c0 + k] = w->cs2c[k + H] * T[c0 + k];
    }
  fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
  for (int step = 0; step < nsmall; step++) {
    const SmallStep *st = step == 0 ? &from_s0 : &from_s;
    /* horizontal step; with overlap the previous pressure exchange is
     * still in flight while the columns away from the west and south run */
    fb_timer_start(&ctx->timers, PH_ACOUSTIC);
    horizontal_region(w, st, 0);
    fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
    if (w->overlap && step > 0) fb_halo_end(&w->halo1_uv, (void *const *)pp, &ctx->timers, PH_HALO);
    fb_timer_start(&ctx->timers, PH_ACOUSTIC);
    horizontal_region(w, st, 1);
    fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
    /* U and V to the neighbours; with overlap the columns away from the
     * east and north faces are solved meanwhile */
    if (w->overlap) {
      fb_halo_begin(&w->halo1_uv, (void *const *)uv, &ctx->timers, PH_HALO);
      fb_timer_start(&ctx->timers, PH_ACOUSTIC);
      column_region(w, st, 0);
      fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
      fb_halo_end(&w->halo1_uv, (void *const *)uv, &ctx->timers, PH_HALO);
    } else {
      fb_halo_exchange(&w->halo1_uv, (void *const *)uv, &ctx->timers, PH_HALO);
      fb_timer_start(&ctx->timers, PH_ACOUSTIC);
      column_region(w, st, 0);
      fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
    }
    fb_timer_start(&ctx->timers, PH_ACOUSTIC);
    column_region(w, st, 1);
    fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
    if (step + 1 < nsmall) {
      if (w->overlap)
        fb_halo_begin(&w->halo1_uv, (void *const *)pp, &ctx->timers, PH_HALO);
      else
        fb_halo_exchange(&w->halo1_uv, (void *const *)pp, &ctx->timers, PH_HALO);
    }
  }
  /* tracers: the stage's full step with its slow tendency */
  fb_timer_start(&ctx->timers, PH_ACOUSTIC);
  for (int f = F_Q1; f <= F_Q2; f++)
#pragma omp parallel for schedule(static)
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny; j++) {
        const size_t c0 = wx_idx(w, i, j, 0);
        const double *restrict q0 = w->s0[f] + c0, *restrict tq = w->tend[f] + c0;
        double *restrict q = w->s[f] + c0;
        for (int k = 0; k < nz; k++) q[k] = q0[k] + dt_stage * tq[k];
      }
  fb_timer_stop(&ctx->timers, PH_ACOUSTIC);
}
