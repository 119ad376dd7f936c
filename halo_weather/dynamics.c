/* dynamics.c: WRF's three-stage Runge-Kutta (dt/3, dt/2, dt) on the large
 * step: advection in flux form (5th-order upwind-biased horizontal, 3rd-
 * order vertical, WRF's flux5 and flux3), a 4th-order horizontal
 * hyperviscosity, the nonlinear part of the pressure gradient; the linear
 * acoustic and buoyancy terms go to the small steps (acoustic.c). One
 * aggregated halo exchange of every field per stage. */
#include "weather.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* WRF's flux5 (upwind-biased, 5th order) and flux3 interpolations of q to
 * the point between q[-1] and q[0], for mass flux m. */
static inline double interp5(const double *q, ptrdiff_t s, double m) {
  double c = (37.0 * (q[0] + q[-s]) - 8.0 * (q[s] + q[-2 * s]) + (q[2 * s] + q[-3 * s])) / 60.0;
  double u = ((q[2 * s] - q[-3 * s]) - 5.0 * (q[s] - q[-2 * s]) + 10.0 * (q[0] - q[-s])) / 60.0;
  return c - copysign(1.0, m) * u; /* branch-free, so the loops vectorise */
}
static inline double interp3(const double *q, ptrdiff_t s, double m) {
  double c = (7.0 * (q[0] + q[-s]) - (q[s] + q[-2 * s])) / 12.0;
  double u = ((q[s] - q[-2 * s]) - 3.0 * (q[0] - q[-s])) / 12.0;
  return c + copysign(1.0, m) * u;
}

/* Staggering of an advected quantity: 0 cell centre, 1 + d on the faces
 * normal to dimension d. */
enum { AT_CENTRE = 0, AT_U = 1, AT_V = 2, AT_W = 3 };

/* Fluxes along a column of n flux points (k fastest). mode 0: centred
 * quantity, carrier the momentum; 1: momentum along its own direction,
 * carrier at cell centres; 2: momentum across, carrier at cell edges.
 * Called with constants, so every variant is a plain vectorisable loop. */
static inline void flux_row(const double *restrict phi, const double *restrict mom,
                            const double *restrict rho, double *restrict flux, int n, ptrdiff_t s,
                            ptrdiff_t back, const int mode, const int vertical) {
  for (int k = 0; k < n; k++) {
    double m;
    if (mode == 0) {
      m = mom[k];
    } else {
      double rf = mode == 1 ? rho[k - back]
                            : 0.25 * (rho[k] + rho[k - back] + rho[k - s] + rho[k - back - s]);
      m = 0.5 * (mom[k] + mom[k - back]) / rf;
    }
    double q = vertical ? interp3(phi + k, s, m) : interp5(phi + k, s, m);
    flux[k] = m * q;
  }
}

/* -(beta / (16 dt)) (d_x^4 + d_y^4) f added to one column's tendency:
 * damps the 2-dx wave by the fraction beta per step and direction, leaves
 * smooth fields alone. */
static inline void hyperviscosity_column(const double *restrict f, ptrdiff_t si, ptrdiff_t sj,
                                         int nz, double coef, double *restrict tend) {
  for (int k = 0; k < nz; k++) {
    double dx4 = f[k - 2 * si] - 4.0 * f[k - si] + 6.0 * f[k] - 4.0 * f[k + si] + f[k + 2 * si];
    double dy4 = f[k - 2 * sj] - 4.0 * f[k - sj] + 6.0 * f[k] - 4.0 * f[k + sj] + f[k + 2 * sj];
    tend[k] += coef * (dx4 + dy4);
  }
}

/* One line of fluxes with the mode known at compile time in each branch. */
static inline void flux_line(const double *phi, const double *mom, const double *rho, double *flux,
                             int n, ptrdiff_t s, ptrdiff_t back, int mode, const int vertical) {
  if (mode == 0)
    flux_row(phi, mom, rho, flux, n, s, back, 0, vertical);
  else if (mode == 1)
    flux_row(phi, mom, rho, flux, n, s, back, 1, vertical);
  else
    flux_row(phi, mom, rho, flux, n, s, back, 2, vertical);
}

/* Advective tendency -div(flux) of the owned cells, written to tend (the
 * first term of the stage's tendency). Centred quantities (theta', tracers):
 * flux = M phi_f, M the momentum through the face, phi_f the interpolated
 * specific quantity. Theta's flux is M theta'_f: the rest, M theta0, is
 * linear and the small steps carry it with theta0 exact on the faces.
 * (Interpolated from the zero-gradient layers below the floor and above
 * the lid, theta0 was off by a twelfth of a level's step next to them: a
 * first-order error that held the stratified gravity wave to order 1.4.)
 * Momenta (staggered): flux = (M / rho_f) U_f, the velocity at the flux
 * point (mean momentum over the density there) times the interpolated
 * momentum, so every value a rank reads lies within the 3-cell halo. One
 * sweep over the columns: each face's flux is computed once, the x fluxes
 * of the west faces kept for one i plane (flux_plane), the y fluxes for one
 * column; each thread owns a band of j. With hv, the hyperviscosity of hv
 * is added in the same sweep. */
static void advect_row(Weather *w, double *const *q, const double *phi, int stagger,
                       const double *hv, double *tend);

static void advect(Weather *w, double *const *q, const double *phi, int stagger, const double *hv,
                   double *tend) {
  if (w->flat) {
    advect_row(w, q, phi, stagger, hv, tend);
    return;
  }
  const ptrdiff_t sj = w->ext[2], si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const ptrdiff_t stride[3] = {si, sj, 1};
  const int nx = w->nx, ny = w->ny, nz = w->nz;
  const double *rho = w->rho_full, *mu = q[F_U], *mv = q[F_V], *mw = q[F_W];
  const ptrdiff_t back = stagger ? stride[stagger - 1] : 0;
  /* mode per direction: 0 centred quantity, 1 momentum along, 2 across */
  const int mx = !stagger ? 0 : stagger == AT_U ? 1 : 2;
  const int my = !stagger ? 0 : stagger == AT_V ? 1 : 2;
  const int mz = !stagger ? 0 : stagger == AT_W ? 1 : 2;
  const double rdx = 1.0 / w->dx, rdy = 1.0 / w->dy, rdz = 1.0 / w->dz;
  const double hv_coef = -w->hyperviscosity / (16.0 * w->dt);
  if (hv_coef == 0.0) hv = NULL;
  double *plane = w->flux_plane;
#pragma omp parallel
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int j0 = (int)((long)ny * t / nt), j1 = (int)((long)ny * (t + 1) / nt);
    double fy[2][nz], fx[nz], fz[nz + 1];
    for (int j = j0; j < j1; j++) {
      size_t c0 = wx_idx(w, 0, j, 0);
      flux_line(phi + c0, mu + c0, rho + c0, plane + (size_t)j * nz, nz, si, back, mx, 0);
    }
    for (int i = 0; i < nx && j0 < j1; i++) {
      size_t c0 = wx_idx(w, i, j0, 0);
      flux_line(phi + c0, mv + c0, rho + c0, fy[j0 & 1], nz, sj, back, my, 0);
      for (int j = j0; j < j1; j++) {
        c0 = wx_idx(w, i, j, 0);
        const size_t ce = c0 + (size_t)si, cn = c0 + (size_t)sj;
        double *restrict west = plane + (size_t)j * nz;
        const double *south = fy[j & 1], *north = fy[(j + 1) & 1];
        flux_line(phi + ce, mu + ce, rho + ce, fx, nz, si, back, mx, 0);
        flux_line(phi + cn, mv + cn, rho + cn, fy[(j + 1) & 1], nz, sj, back, my, 0);
        flux_line(phi + c0, mw + c0, rho + c0, fz, nz + 1, 1, back, mz, 1);
        double *restrict out = tend + c0;
        for (int k = 0; k < nz; k++) {
          out[k] = ((0.0 - (fx[k] - west[k]) * rdx) - (north[k] - south[k]) * rdy) -
                   (fz[k + 1] - fz[k]) * rdz;
          west[k] = fx[k];
        }
        if (hv) hyperviscosity_column(hv + c0, si, sj, nz, hv_coef, out);
      }
    }
  }
}

/* advect on one row (flat): no y fluxes (north and south would be the same
 * numbers, their difference exactly zero), each thread a band of i that
 * starts with its own west fluxes (the same numbers its neighbour's band
 * ends with). */
static void advect_row(Weather *w, double *const *q, const double *phi, int stagger,
                       const double *hv, double *tend) {
  const ptrdiff_t si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const ptrdiff_t stride[3] = {si, 0, 1};
  const int nx = w->nx, nz = w->nz;
  const double *rho = w->rho_full, *mu = q[F_U], *mw = q[F_W];
  const ptrdiff_t back = stagger ? stride[stagger - 1] : 0;
  const int mx = !stagger ? 0 : stagger == AT_U ? 1 : 2;
  const int mz = !stagger ? 0 : stagger == AT_W ? 1 : 2;
  const double rdx = 1.0 / w->dx, rdz = 1.0 / w->dz;
  const double hv_coef = -w->hyperviscosity / (16.0 * w->dt);
  if (hv_coef == 0.0) hv = NULL;
#pragma omp parallel
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int i0 = (int)((long)nx * t / nt), i1 = (int)((long)nx * (t + 1) / nt);
    double fx[nz], fz[nz + 1];
    double *restrict west = w->flux_plane + (size_t)t * nz;
    if (i0 < i1) {
      const size_t c0 = wx_idx(w, i0, 0, 0);
      flux_line(phi + c0, mu + c0, rho + c0, west, nz, si, back, mx, 0);
    }
    for (int i = i0; i < i1; i++) {
      const size_t c0 = wx_idx(w, i, 0, 0), ce = c0 + (size_t)si;
      flux_line(phi + ce, mu + ce, rho + ce, fx, nz, si, back, mx, 0);
      flux_line(phi + c0, mw + c0, rho + c0, fz, nz + 1, 1, back, mz, 1);
      double *restrict out = tend + c0;
      for (int k = 0; k < nz; k++) {
        out[k] = (0.0 - (fx[k] - west[k]) * rdx) - (fz[k + 1] - fz[k]) * rdz;
        west[k] = fx[k];
      }
      if (hv) hyperviscosity_column(hv + c0, si, 0, nz, hv_coef, out);
    }
  }
}

/* The nonlinear pressure remainder p' - c^2 Theta' / theta0 of the
 * equation of state p = C0 (Theta0 + Theta')^gamma: with x = Theta' / Theta0
 * it is p0 f(x), f(x) = (1 + x)^gamma - 1 - gamma x, since p0 = C0
 * Theta0^gamma and c^2 / theta0 = gamma p0 / Theta0. f is the binomial
 * series x^2 sum_n C(gamma, n) x^(n-2), a vectorised polynomial with no
 * cancellation (the pow form subtracts numbers 1e4 times larger than the
 * result; pow per point was 12% of the run). A column's largest |x| picks
 * the number of terms: the first omitted one is below 2^-57 of the sum.
 * Theta' is the pressure's perturbation, so x ~ p' / (gamma p): below 0.002
 * in every preset but the density current (0.04); pow beyond 0.05. */
#define WX_EOS_TERMS_MAX 12
static const struct {
  double x_max;
  int terms;
} eos_tiers[] = {{0.002, 6}, {0.01, 8}, {0.05, WX_EOS_TERMS_MAX}};

typedef struct {
  double coef[WX_EOS_TERMS_MAX]; /* C(gamma, n), n = 2 .. WX_EOS_TERMS_MAX + 1 */
} EosSeries;

static EosSeries eos_series(void) {
  EosSeries e;
  double c = WX_GAMMA * (WX_GAMMA - 1.0) / 2.0;
  for (int n = 2; n < WX_EOS_TERMS_MAX + 2; n++) {
    e.coef[n - 2] = c;
    c *= (WX_GAMMA - n) / (n + 1);
  }
  return e;
}

static inline void eos_series_column(int nz, const double *restrict coef, const int terms,
                                     const double *restrict x, const double *restrict p0,
                                     double *restrict pnl) {
#pragma omp simd
  for (int k = 0; k < nz; k++) {
    double acc = coef[terms - 1];
    for (int n = terms - 2; n >= 0; n--) acc = acc * x[k] + coef[n];
    pnl[k] = p0[k] * (acc * x[k] * x[k]);
  }
}

/* pnl of one column, levels 0..nz-1, from Theta' (theta); x is work space */
static void nonlinear_pressure(const Weather *w, const EosSeries *e,
                               const double *restrict inv_big0, const double *restrict theta,
                               double *restrict x, double *restrict pnl) {
  const int H = WX_HALO, nz = w->nz;
  const double *restrict p0 = w->p0c + H;
  double xmax = 0.0;
#pragma omp simd reduction(max : xmax)
  for (int k = 0; k < nz; k++) {
    x[k] = theta[k] * inv_big0[k];
    double ax = fabs(x[k]);
    xmax = ax > xmax ? ax : xmax; /* not fmax: a library call; a NaN goes on to the finite checks */
  }
  if (xmax <= eos_tiers[0].x_max)
    eos_series_column(nz, e->coef, eos_tiers[0].terms, x, p0, pnl);
  else if (xmax <= eos_tiers[1].x_max)
    eos_series_column(nz, e->coef, eos_tiers[1].terms, x, p0, pnl);
  else
    eos_series_column(nz, e->coef, eos_tiers[2].terms, x, p0, pnl);
  if (xmax <= eos_tiers[2].x_max) return;
  const double c0 = wx_c0();
  for (int k = 0; k < nz; k++)
    if (fabs(x[k]) > eos_tiers[2].x_max) {
      double big = w->rho0c[k + H] * w->theta0c[k + H] + theta[k];
      pnl[k] = c0 * pow(big, WX_GAMMA) - p0[k] - w->cs2c[k + H] * theta[k];
    }
}

/* Full density, theta' = theta - theta0 and specific tracers of one column. */
static void specific_column(int nz, const double *restrict rho0, const double *restrict theta0,
                            const double *restrict rho_p, const double *restrict big_p,
                            const double *restrict q1, const double *restrict q2,
                            double *restrict rho_full, double *restrict theta, double *restrict q1s,
                            double *restrict q2s) {
  for (int k = 0; k < nz; k++) {
    double rho = rho0[k] + rho_p[k];
    rho_full[k] = rho;
    theta[k] = (big_p[k] - rho_p[k] * theta0[k]) / rho; /* theta - theta0 */
    q1s[k] = q1[k] / rho;
    q2s[k] = q2[k] / rho;
  }
}

/* The stage state's full density, theta' and specific tracers over the
 * whole halo, the nonlinear pressure remainder, and the layers below the
 * floor and above the lid: zero gradient for centred quantities and
 * horizontal momenta, W odd about floor and lid (where it is zero). */
static void diagnose(Weather *w, double *const *q) {
  const int H = WX_HALO, nz = w->nz;
  const EosSeries eos = eos_series();
  double inv_big0[nz];
  for (int k = 0; k < nz; k++) inv_big0[k] = 1.0 / (w->rho0c[k + H] * w->theta0c[k + H]);
  double *const centred[] = {w->rho_full,   w->spec[F_THETA], w->spec[F_Q1],
                             w->spec[F_Q2], q[F_U],           q[F_V]};
#pragma omp parallel
  {
    double x[nz];
#pragma omp for schedule(static)
    for (int i = -H; i < w->nx + H; i++)
      for (int j = -wx_yhalo(w); j < w->ny + wx_yhalo(w); j++) {
        size_t c0i = wx_idx(w, i, j, 0);
        specific_column(nz, w->rho0c + H, w->theta0c + H, q[F_RHO] + c0i, q[F_THETA] + c0i,
                        q[F_Q1] + c0i, q[F_Q2] + c0i, w->rho_full + c0i, w->spec[F_THETA] + c0i,
                        w->spec[F_Q1] + c0i, w->spec[F_Q2] + c0i);
        /* the pressure gradient reads one cell west and south of the owned ones */
        if (i >= -1 && i < w->nx && j >= -1 && j < w->ny)
          nonlinear_pressure(w, &eos, inv_big0, q[F_THETA] + c0i, x, w->pnl + c0i);
        for (size_t f = 0; f < sizeof centred / sizeof centred[0]; f++)
          for (int g = 1; g <= H; g++) {
            centred[f][c0i - g] = centred[f][c0i];
            centred[f][c0i + (size_t)(nz + g - 1)] = centred[f][c0i + (size_t)(nz - 1)];
          }
        double *W = q[F_W];
        W[c0i] = 0.0;
        W[c0i + (size_t)nz] = 0.0;
        for (int g = 1; g <= H; g++) {
          W[c0i - g] = -W[c0i + g];
          if (g < H) W[c0i + (size_t)(nz + g)] = -W[c0i + (size_t)(nz - g)];
        }
      }
  }
}

/* The nonlinear pressure gradient on the momenta of one column. The
 * linear terms, the base state's theta0 carried by the momenta among them,
 * are the small steps' (continuity is linear in the momenta: all of it in
 * the small steps). */
static void pressure_gradient_column(int nz, ptrdiff_t si, ptrdiff_t sj, double rdx, double rdy,
                                     double rdz, const double *restrict p, double *restrict tu,
                                     double *restrict tv, double *restrict tw) {
  for (int k = 0; k < nz; k++) {
    tu[k] -= (p[k] - p[k - si]) * rdx;
    tv[k] -= (p[k] - p[k - sj]) * rdy;
  }
  tw[0] = 0.0; /* the floor */
  for (int k = 1; k < nz; k++) tw[k] -= (p[k] - p[k - 1]) * rdz;
}

/* Velocity on a face of the C grid: the momentum over the mean density of
 * the two cells it separates (s: the stride across the face). */
static inline double face_velocity(const double *mom, const double *rho, size_t c, ptrdiff_t s) {
  return 2.0 * mom[c] / (rho[c] + rho[c - s]);
}

/* d/dx(rho nu dphi/dx) + d/dy(...) + d/dz(...) of a quantity phi(c) on a
 * column (the divergence of a diffusive flux, so the conserved variable
 * stays conserved). rho_at(c, s) is the density between c and c + s;
 * vertical fluxes through the floor (k = 0) and the lid (k = nz) vanish
 * (free slip), and a W column has its own vertical flux points. */
typedef struct {
  const double *mom, *rho;
  ptrdiff_t stagger; /* 0 for cell-centred phi (theta), else the face's stride */
  const double *phi; /* cell-centred phi (stagger 0) */
} Diffused;

static inline double phi_at(const Diffused *d, size_t c) {
  return d->stagger ? face_velocity(d->mom, d->rho, c, d->stagger) : d->phi[c];
}

/* The mean density between c and c + s for a quantity staggered by st. */
static inline double rho_between(const double *rho, size_t c, ptrdiff_t s, ptrdiff_t st) {
  if (!st) return 0.5 * (rho[c] + rho[c + s]);
  if (st == s) return rho[c]; /* along its own direction: the cell between two faces */
  return 0.25 * (rho[c] + rho[c + s] + rho[c - st] + rho[c + s - st]);
}

static void diffuse_column(const Weather *w, const Diffused *d, size_t c0, int k0, int k1,
                           double *tend) {
  const ptrdiff_t sj = wx_ystride(w), si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const double nu = w->diffusion, rdx2 = 1.0 / (w->dx * w->dx), rdy2 = 1.0 / (w->dy * w->dy),
               rdz2 = 1.0 / (w->dz * w->dz);
  const double *rho = d->rho;
  const ptrdiff_t st = d->stagger;
  for (int k = k0; k < k1; k++) {
    size_t c = c0 + (size_t)k;
    double p = phi_at(d, c);
    double fx = rho_between(rho, c, si, st) * (phi_at(d, c + si) - p) -
                rho_between(rho, c - si, si, st) * (p - phi_at(d, c - si));
    double fy = rho_between(rho, c, sj, st) * (phi_at(d, c + sj) - p) -
                rho_between(rho, c - sj, sj, st) * (p - phi_at(d, c - sj));
    double fz = 0.0;
    if (st ==
        1) { /* w on the faces 1..nz-1: fluxes at the cells between them, w = 0 at floor and lid */
      fz = rho[c] * (phi_at(d, c + 1) * (k + 1 < w->nz) - p) -
           rho[c - 1] * (p - phi_at(d, c - 1) * (k - 1 > 0));
    } else {
      if (k + 1 < w->nz) fz += rho_between(rho, c, 1, st) * (phi_at(d, c + 1) - p);
      if (k > 0) fz -= rho_between(rho, c - 1, 1, st) * (p - phi_at(d, c - 1));
    }
    tend[c] += nu * (fx * rdx2 + fy * rdy2 + fz * rdz2);
  }
}

/* Constant-coefficient diffusion of u, v, w and theta' (Straka et al. 1993:
 * nu = 75 m2 s-1; WRF's khdif = kvdif with km_opt = 1, mixing perturbations
 * as its mix_full_fields = false; the same as theta in a neutral case) in
 * flux form, added to the tendencies of U, V, W and Theta': momentum and
 * Theta are still conserved, energy only falls. */
static void diffusion(Weather *w, double *const *q) {
  if (w->diffusion <= 0.0) return;
  const ptrdiff_t sj = w->ext[2], si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const Diffused quantities[4] = {{q[F_U], w->rho_full, si, NULL},
                                  {q[F_V], w->rho_full, sj, NULL},
                                  {q[F_W], w->rho_full, 1, NULL},
                                  {NULL, w->rho_full, 0, w->spec[F_THETA]}};
  double *const tends[4] = {w->tend[F_U], w->tend[F_V], w->tend[F_W], w->tend[F_THETA]};
#pragma omp parallel for schedule(static)
  for (int i = 0; i < w->nx; i++)
    for (int j = 0; j < w->ny; j++) {
      const size_t c0 = wx_idx(w, i, j, 0);
      for (int v = 0; v < 4; v++)
        if (v != 1 || !w->flat) /* V stays zero on one row */
          diffuse_column(w, &quantities[v], c0, v == 2 ? 1 : 0, w->nz, tends[v]);
    }
}

/* Slow tendencies of the stage state (everything but the linear acoustic
 * and buoyancy terms, which the small steps integrate). */
static void slow_tendencies(Weather *w, double *const *q) {
  const ptrdiff_t sj = wx_ystride(w), si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const int nz = w->nz;
  const double rdx = 1.0 / w->dx, rdy = 1.0 / w->dy, rdz = 1.0 / w->dz;
  /* advection, and hyperviscosity of the momenta and Theta' */
  advect(w, q, q[F_U], AT_U, q[F_U], w->tend[F_U]);
  if (!w->flat) advect(w, q, q[F_V], AT_V, q[F_V], w->tend[F_V]);
  advect(w, q, q[F_W], AT_W, q[F_W], w->tend[F_W]);
  advect(w, q, w->spec[F_THETA], AT_CENTRE, q[F_THETA], w->tend[F_THETA]);
  advect(w, q, w->spec[F_Q1], AT_CENTRE, NULL, w->tend[F_Q1]);
  advect(w, q, w->spec[F_Q2], AT_CENTRE, NULL, w->tend[F_Q2]);
  diffusion(w, q);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < w->nx; i++)
    for (int j = 0; j < w->ny; j++) {
      const size_t c = wx_idx(w, i, j, 0);
      pressure_gradient_column(nz, si, sj, rdx, rdy, rdz, w->pnl + c, w->tend[F_U] + c,
                               w->tend[F_V] + c, w->tend[F_W] + c);
    }
}

/* The aggregated exchange of every field (or one message per field). */
void wx_exchange(FbContext *ctx, Weather *w, double **fields) {
  if (!strcmp(w->halo_mode, "per_field")) {
    for (int f = 0; f < NFIELDS; f++)
      fb_halo_exchange(&w->halo_single, (void *const *)&fields[f], &ctx->timers, PH_HALO);
    return;
  }
  fb_halo_exchange(&w->halo3, (void *const *)fields, &ctx->timers, PH_HALO);
}

/* WRF's RK3: each stage advances the step's start by this fraction of dt. */
static const double RK3_FRACTION[3] = {1.0 / 3.0, 0.5, 1.0};

void wx_step(FbContext *ctx, Weather *w) {
  for (int stage = 0; stage < 3; stage++) {
    wx_exchange(ctx, w, w->s);
    /* s0 keeps the state at the beginning of the step; stage 0 reads it
     * there and every stage writes the new state into s (the small steps'
     * first step reads s0), so the buffers are swapped, not copied */
    if (stage == 0)
      for (int f = 0; f < NFIELDS; f++) {
        double *t = w->s0[f];
        w->s0[f] = w->s[f];
        w->s[f] = t;
      }
    double *const *q = stage == 0 ? w->s0 : w->s;
    fb_timer_start(&ctx->timers, PH_DYNAMICS);
    diagnose(w, q);
    slow_tendencies(w, q);
    fb_timer_stop(&ctx->timers, PH_DYNAMICS);
    wx_acoustic(ctx, w, stage, RK3_FRACTION[stage] * w->dt);
  }
}
