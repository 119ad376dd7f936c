/* setup.c: the 2-D process grid, the fields, the hydrostatic base state and
 * the initial state of each test case. */
#include "weather.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* WRF's process grid: of the factor pairs px x py of the rank count, the
 * one closest to square with px <= py (WRF's choice), unless some rank
 * would then own fewer columns than the halo along x or y: then the most
 * square pair where every rank owns enough (a narrow domain, 256 x 3 on 4
 * ranks: 4 x 1). 0 when no pair works. */
static int wrf_grid(int size, const int n[3], int dims[3]) {
  int best_px = 0, best_gap = 1 << 30;
  for (int px = 1; px <= size; px++) {
    if (size % px) continue;
    int py = size / px;
    if (n[0] / px < WX_HALO || n[1] / py < WX_HALO) continue;
    int gap = abs(py - px) * 2 + (px > py); /* the closest to square; px <= py first on a tie */
    if (gap < best_gap) best_gap = gap, best_px = px;
  }
  if (!best_px) return 0;
  dims[0] = best_px;
  dims[1] = size / best_px;
  dims[2] = 1;
  return 1;
}

static double *field(Weather *w, int *bad) {
  double *p = fb_alloc(w->ncell * sizeof *p);
  if (!p)
    *bad = 1;
  else
    memset(p, 0, w->ncell * sizeof *p);
  return p;
}

/* Hydrostatic base state with constant Brunt-Vaisala frequency N (constant
 * potential temperature when N = 0): theta0 = theta_s exp(N^2 z / g). The
 * pressure of the lowest level comes from the Exner function,
 * d(pi)/dz = -g / (cp theta0); above it the levels are balanced discretely,
 * (p0[k] - p0[k-1]) / dz = -g (rho0[k] + rho0[k-1]) / 2 with p0 from the
 * equation of state of rho0 theta0, the form the vertical momentum equation
 * uses; so the perturbation equations are exactly the full ones, and the
 * energy budget closes with the plain g z potential energy. */
static double theta_base(const Weather *w, double z) {
  const double n2 = w->brunt_vaisala * w->brunt_vaisala;
  z = fmin(fmax(z, 0.0), w->ztop);
  return n2 > 0 ? w->theta_surface * exp(n2 * z / WX_G) : w->theta_surface;
}

static void base_state(Weather *w) {
  const double n2 = w->brunt_vaisala * w->brunt_vaisala, ths = w->theta_surface;
  const double gamma = WX_GAMMA, c0 = wx_c0(), g = WX_G, dz = w->dz;
  const int H = WX_HALO, nz = w->nz;
  for (int k = -H; k <= nz + H; k++) w->theta0f[k + H] = theta_base(w, k * dz);
  for (int k = -H; k < nz + H; k++) w->theta0c[k + H] = theta_base(w, (k + 0.5) * dz);
  /* the lowest level from the Exner function */
  double z = 0.5 * dz;
  double integral = n2 > 0 ? g / n2 * (1.0 - exp(-n2 * z / g)) / ths : z / ths;
  double pi = 1.0 - g / WX_CP * integral;
  double p = WX_P00 * pow(pi, WX_CP / WX_RD);
  for (int k = 0; k < nz; k++) {
    double th = w->theta0c[k + H];
    if (k > 0) {
      /* Newton on p: p + g dz/2 rho(p) = p[k-1] - g dz/2 rho[k-1], rho(p) = (p / c0)^(1/gamma) /
       * theta */
      double rhs = w->p0c[k - 1 + H] - 0.5 * g * dz * w->rho0c[k - 1 + H];
      for (int it = 0; it < 50; it++) {
        double rho = pow(p / c0, 1.0 / gamma) / th;
        double f = p + 0.5 * g * dz * rho - rhs, df = 1.0 + 0.5 * g * dz * rho / (gamma * p);
        double step = f / df;
        p -= step;
        if (fabs(step) <= 1e-15 * p) break;
      }
    }
    double rho = pow(p / c0, 1.0 / gamma) / th;
    w->rho0c[k + H] = rho;
    w->p0c[k + H] = c0 * pow(rho * th, gamma);
    w->cs2c[k + H] = gamma * w->p0c[k + H] / (rho * th);
  }
  /* the layers below the floor and above the lid mirror the edge levels */
  for (int g2 = 1; g2 <= H; g2++) {
    w->rho0c[-g2 + H] = w->rho0c[H];
    w->p0c[-g2 + H] = w->p0c[H];
    w->cs2c[-g2 + H] = w->cs2c[H];
    w->rho0c[nz - 1 + g2 + H] = w->rho0c[nz - 1 + H];
    w->p0c[nz - 1 + g2 + H] = w->p0c[nz - 1 + H];
    w->cs2c[nz - 1 + g2 + H] = w->cs2c[nz - 1 + H];
  }
}

void wx_setup(FbContext *ctx, Weather *w) {
  const int nglobal[3] = {(int)w->n[0], (int)w->n[1], (int)w->n[2]};
  /* a 2-D case on one row: nothing to exchange along y (no period there) */
  w->flat = w->dimensions == 2 && nglobal[1] == 1;
  const int periods[3] = {1, !w->flat, 0};
  int dims[3] = {w->grid[0], w->grid[1], 1}, automatic = !dims[0] && !dims[1];
  if (w->flat && automatic) dims[0] = ctx->size, dims[1] = 1;
  if (w->flat && dims[1] != 1)
    fb_fail(ctx, FB_EXIT_USAGE,
            "option --grid: %s is a 2-D case on one row (ny = 1): the grid is Px1", w->deck_path);
  if (automatic && !w->flat && !wrf_grid(ctx->size, nglobal, dims))
    fb_fail(ctx, FB_EXIT_USAGE,
            "%s: the grid %dx%d is too small for %d ranks: no process grid gives every rank "
            "%d columns along x and y (the halo)%s",
            w->deck_path, nglobal[0], nglobal[1], ctx->size, WX_HALO,
            nglobal[1] < WX_HALO ? "; an x-z case is dimensions = 2 with ny = 1" : "");
  char err[FB_MSG_LEN];
  int rc = fb_decomp_init(&w->decomp, ctx->comm, nglobal, dims, periods, WX_HALO, err, sizeof err);
  if (rc) {
    if (dims[0] * dims[1] != ctx->size) fb_fail(ctx, FB_EXIT_USAGE, "option --grid: %s", err);
    fb_fail(ctx, FB_EXIT_USAGE,
            "%s: the grid %dx%d is too small for the halo of %d on some rank: %s", w->deck_path,
            nglobal[0], nglobal[1], WX_HALO, err);
  }
  w->nx = w->decomp.n[0];
  w->ny = w->decomp.n[1];
  w->nz = w->decomp.n[2];
  /* one row has no y halo (nothing crosses y): it allocates that row alone */
  const int pads[3] = {WX_HALO, wx_yhalo(w), WX_HALO};
  for (int a = 0; a < 3; a++) w->ext[a] = w->decomp.n[a] + 2 * pads[a];
  w->ncell = (size_t)w->ext[0] * w->ext[1] * w->ext[2];
  fb_check_memory(ctx, (4 * NFIELDS + 4) * w->ncell * sizeof(double), "the weather fields");
  int bad = 0;
  for (int f = 0; f < NFIELDS; f++) {
    w->s[f] = field(w, &bad);
    w->s0[f] = field(w, &bad);
    w->tend[f] = field(w, &bad);
    w->spec[f] = field(w, &bad);
  }
  w->pnl = field(w, &bad);
  w->plin = field(w, &bad);
  w->plin_old = field(w, &bad);
  w->rho_full = field(w, &bad);
  /* the west fluxes of one i plane, or on one row one line per thread */
  const int lines = w->flat ? ctx->threads : w->ny;
  w->flux_plane = fb_alloc((size_t)lines * (size_t)w->nz * sizeof(double));
  bad |= w->flux_plane == NULL;
  size_t nk = (size_t)w->nz + 2 * WX_HALO + 1;
  double **levels[] = {&w->theta0c, &w->theta0f, &w->rho0c, &w->p0c, &w->cs2c};
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
    *levels[l] = calloc(nk, sizeof(double));
    bad |= !*levels[l];
  }
  for (int s = 0; s < 3; s++) {
    w->tri_a[s] = calloc(nk, sizeof(double));
    w->tri_b[s] = calloc(nk, sizeof(double));
    w->tri_c[s] = calloc(nk, sizeof(double));
    bad |= !w->tri_a[s] || !w->tri_b[s] || !w->tri_c[s];
  }
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory allocating the weather fields");
  /* the layers below the floor and above the lid are boundary conditions
   * each rank fills itself: faces carry the owned levels only (and on one
   * row the owned row only: nothing reads the y halo) */
  const int columns = 1 << 2 | (w->flat ? 1 << 1 : 0);
  int halo_bad =
      fb_halo_init_ex(&w->halo3, &w->decomp, WX_HALO, pads, columns, 1, MPI_DOUBLE, NFIELDS) ||
      fb_halo_init_ex(&w->halo1_uv, &w->decomp, 1, pads, columns, 1, MPI_DOUBLE, 2) ||
      (!strcmp(w->halo_mode, "per_field") &&
       fb_halo_init_ex(&w->halo_single, &w->decomp, WX_HALO, pads, columns, 1, MPI_DOUBLE, 1));
  fb_agree(ctx, halo_bad ? FB_EXIT_RUNTIME : 0,
           "out of memory for the halo buffers"); /* every rank calls it */
  base_state(w);
  wx_acoustic_prepare(w);
  char grid[32];
  fb_decomp_grid_string(&w->decomp, grid, sizeof grid);
  fb_print(ctx,
           "halo_weather (fabricbench %s): %lld x %lld x %lld cells, dx %g m, dy %g m, dz %g m, "
           "case %s\n",
           fb_version(), w->n[0], w->n[1], w->n[2], w->dx, w->dy, w->dz, w->case_name);
  fb_print(ctx, "dt %g s, %lld acoustic substeps, %d ranks (%s) x %d threads, halo %s%s, deck %s\n",
           w->dt, w->acoustic_substeps, ctx->size, grid, ctx->threads, w->halo_mode,
           w->overlap ? " with overlap" : "", w->deck_path);
}

/* ---------------------------------------------------------- initial state */

/* Tracer profiles of the advection case: smooth and periodic, so one
 * period of the uniform wind brings them back exactly. */
double wx_exact_tracer(const Weather *w, int which, double x, double y, double z, double t) {
  double lx = w->dx * (double)w->n[0], ly = w->dy * (double)w->n[1];
  double xs = x - w->u0 * t, ys = y - w->v0 * t;
  double zf = 0.5 * (1.0 - cos(2.0 * M_PI * z / w->ztop));
  const int flat = w->dimensions == 2; /* a 2-D case's tracers do not depend on y either */
  if (which == 0)
    return 1.0 + 0.5 * sin(2.0 * M_PI * xs / lx) * (flat ? 1.0 : sin(2.0 * M_PI * ys / ly)) * zf;
  double cx = cos(M_PI * xs / lx), cy = flat ? 1.0 : cos(M_PI * ys / ly);
  return 1e-3 * (1.0 + pow(cx * cy, 4.0)); /* a periodic bump (moisture-like mixing ratio) */
}

/* Bubble shape: cos^2 of the scaled distance within radius 1 (Straka 1993,
 * Bryan and Fritsch 2002); a 2-D case's bubble does not depend on y. */
static double bubble(const Weather *w, double x, double y, double z) {
  double dx = (x - w->bubble_x) / w->bubble_radius_x, dy = (y - w->bubble_y) / w->bubble_radius_y;
  double dz = (z - w->bubble_z) / w->bubble_radius_z;
  if (w->dimensions == 2) dy = 0.0;
  double r = sqrt(dx * dx + dy * dy + dz * dz);
  return r < 1.0 ? pow(cos(0.5 * M_PI * r), 2.0) : 0.0;
}

/* Skamarock and Klemp (1994)'s inertia-gravity wave: a Lorentzian of half
 * width a (bubble_radius_x) about x = bubble_x, times sin(pi z / H) over the
 * whole depth H, so the lid and floor stay unperturbed. */
static double gravity_wave(const Weather *w, double x, double z) {
  double s = (x - w->bubble_x) / w->bubble_radius_x;
  return sin(M_PI * z / w->ztop) / (1.0 + s * s);
}

void wx_initial_state(Weather *w) {
  const FbDecomp *d = &w->decomp;
  const double gamma = WX_GAMMA;
  for (int f = 0; f < NFIELDS; f++) memset(w->s[f], 0, w->ncell * sizeof(double));
  for (int i = 0; i < w->nx; i++)
    for (int j = 0; j < w->ny; j++)
      for (int k = 0; k < w->nz; k++) {
        size_t c = wx_idx(w, i, j, k);
        double x = (d->lo[0] + i + 0.5) * w->dx, y = (d->lo[1] + j + 0.5) * w->dy,
               z = (k + 0.5) * w->dz;
        double rho0 = w->rho0c[k + WX_HALO], th0 = w->theta0c[k + WX_HALO];
        double dtheta = 0.0;
        if (w->wcase == CASE_GRAVITY_WAVE) {
          dtheta = w->bubble_dtheta * gravity_wave(w, x, z);
        } else if (w->wcase != CASE_ADVECTION) {
          /* several bubbles across a large domain for the weather case */
          dtheta = w->bubble_dtheta * bubble(w, x, y, z);
          if (w->wcase == CASE_WEATHER) {
            double lx = w->dx * (double)w->n[0], ly = w->dy * (double)w->n[1];
            for (int b = 1; b < 4; b++)
              dtheta += w->bubble_dtheta *
                        bubble(w, fmod(x + b * 0.27 * lx, lx), fmod(y + b * 0.41 * ly, ly), z);
          }
        }
        /* a temperature perturbation is dT / Exner in theta (WRF's grav2d_x); the
         * perturbation keeps the pressure: rho theta unchanged, rho adjusts */
        if (w->perturbation == PERTURB_TEMPERATURE) dtheta /= wx_exner0(w, k);
        double th = th0 + dtheta;
        double p0 = w->p0c[k + WX_HALO];
        double big = pow(p0 / wx_c0(), 1.0 / gamma); /* rho theta for p0 */
        double rho = big / th;
        w->s[F_RHO][c] = rho - rho0;
        w->s[F_THETA][c] = big - rho0 * th0;
        double q1 = wx_exact_tracer(w, 0, x, y, z, 0.0), q2 = wx_exact_tracer(w, 1, x, y, z, 0.0);
        w->s[F_Q1][c] = rho * q1;
        w->s[F_Q2][c] = rho * q2;
      }
  /* momenta from the mean wind, on the faces with face densities */
  for (int i = 0; i < w->nx; i++)
    for (int j = 0; j < w->ny; j++)
      for (int k = 0; k < w->nz; k++) {
        size_t c = wx_idx(w, i, j, k);
        w->s[F_U][c] = w->u0 * w->rho0c[k + WX_HALO];
        w->s[F_V][c] = w->v0 * w->rho0c[k + WX_HALO];
        w->s[F_W][c] = 0.0;
      }
}

void wx_free(Weather *w) {
  for (int f = 0; f < NFIELDS; f++) {
    free(w->s[f]);
    free(w->s0[f]);
    free(w->tend[f]);
    free(w->spec[f]);
  }
  free(w->pnl);
  free(w->plin);
  free(w->plin_old);
  free(w->rho_full);
  free(w->flux_plane);
  free(w->theta0c);
  free(w->theta0f);
  free(w->rho0c);
  free(w->p0c);
  free(w->cs2c);
  for (int s = 0; s < 3; s++) {
    free(w->tri_a[s]);
    free(w->tri_b[s]);
    free(w->tri_c[s]);
  }
  fb_halo_free(&w->halo3);
  fb_halo_free(&w->halo1_uv);
  if (!strcmp(w->halo_mode, "per_field")) fb_halo_free(&w->halo_single);
  free(w->deck_text);
  fb_decomp_free(&w->decomp);
}
