/* io.c: history and restart files in NetCDF-4 (HDF5 underneath), written in
 * parallel: every rank writes its own block collectively, nothing is
 * gathered. History: float32, CF-1.8 attributes, WRF's dimension names and a
 * Times string, so ncdump, xarray and ncview read it. Restart: the
 * prognostic fields in double precision with the grid and a checksum, so a
 * restarted run continues bit for bit and a foreign or damaged file is
 * refused. Files are written under a temporary name, renamed when closed. */
#include "weather.h"

#include <math.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NC_TRY(call)                                   \
  do {                                                 \
    int nc_rc_ = (call);                               \
    if (nc_rc_ != NC_NOERR) {                          \
      if (!err[0]) snprintf(err, FB_MSG_LEN, "%s", nc_strerror(nc_rc_)); \
      goto fail;                                       \
    }                                                  \
  } while (0)

/* Output fields of the history file, at cell centres. */
enum { H_U, H_V, H_W, H_THETA, H_PP, H_RHO, H_Q1, H_Q2, H_COUNT };
static const struct {
  const char *name, *units, *long_name, *standard_name;
} HISTORY[H_COUNT] = {
    {"U", "m s-1", "x-wind component", "eastward_wind"},
    {"V", "m s-1", "y-wind component", "northward_wind"},
    {"W", "m s-1", "z-wind component", "upward_air_velocity"},
    {"THETA", "K", "potential temperature", "air_potential_temperature"},
    {"P", "Pa", "perturbation pressure", ""},
    {"RHO", "kg m-3", "air density", "air_density"},
    {"QTRACER1", "kg kg-1", "passive tracer 1 mixing ratio", ""},
    {"QTRACER2", "kg kg-1", "passive tracer 2 mixing ratio", ""},
};

typedef struct {
  int ncid, varid[H_COUNT], times, xtime;
  char tmp[WX_PATH + 40], path[WX_PATH + 32];
  int open;
} History;
static History hist;

static int put_text(int ncid, int varid, const char *name, const char *text) {
  return nc_put_att_text(ncid, varid, name, strlen(text), text);
}

/* "2000-01-01_00:00:00" plus seconds, WRF's Times format. */
static void wrf_time(double seconds, char out[20]) {
  long long s = (long long)llround(seconds);
  long long days = s / 86400, rem = s % 86400;
  /* days from 2000-01-01 in a proleptic Gregorian calendar */
  int y = 2000, m = 1;
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (;;) {
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (days < 365 + leap) break;
    days -= 365 + leap;
    y++;
  }
  for (;;) {
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int dm = mdays[m - 1] + (m == 2 && leap);
    if (days < dm) break;
    days -= dm;
    m++;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "%04d-%02d-%02lld_%02lld:%02lld:%02lld", y, m, days + 1, rem / 3600, rem / 60 % 60, rem % 60);
  memcpy(out, buf, 19);
  out[19] = '\0';
}

static int coordinate(int ncid, int dim, const char *name, const char *axis, const char *standard,
                      const char *long_name, int *varid) {
  int rc = nc_def_var(ncid, name, NC_DOUBLE, 1, &dim, varid);
  if (!rc) rc = put_text(ncid, *varid, "units", "m");
  if (!rc) rc = put_text(ncid, *varid, "axis", axis);
  if (!rc) rc = put_text(ncid, *varid, "standard_name", standard);
  if (!rc) rc = put_text(ncid, *varid, "long_name", long_name);
  if (!rc && !strcmp(axis, "Z")) rc = put_text(ncid, *varid, "positive", "up");
  return rc;
}

static int history_open(FbContext *ctx, Weather *w, char *err) {
  History *h = &hist;
  snprintf(h->path, sizeof h->path, "%s/wrfout_d01.nc", w->output_dir);
  snprintf(h->tmp, sizeof h->tmp, "%s.tmp", h->path);
  int dims[5], xv, yv, zv; /* Time, DateStrLen, bottom_top, south_north, west_east */
  NC_TRY(nc_create_par(h->tmp, NC_NETCDF4 | NC_CLOBBER, ctx->comm, MPI_INFO_NULL, &h->ncid));
  h->open = 1;
  NC_TRY(nc_def_dim(h->ncid, "Time", NC_UNLIMITED, &dims[0]));
  NC_TRY(nc_def_dim(h->ncid, "DateStrLen", 19, &dims[1]));
  NC_TRY(nc_def_dim(h->ncid, "bottom_top", (size_t)w->n[2], &dims[2]));
  NC_TRY(nc_def_dim(h->ncid, "south_north", (size_t)w->n[1], &dims[3]));
  NC_TRY(nc_def_dim(h->ncid, "west_east", (size_t)w->n[0], &dims[4]));
  NC_TRY(nc_def_var(h->ncid, "Times", NC_CHAR, 2, dims, &h->times));
  NC_TRY(nc_def_var(h->ncid, "XTIME", NC_DOUBLE, 1, dims, &h->xtime));
  NC_TRY(put_text(h->ncid, h->xtime, "units", "seconds since 2000-01-01 00:00:00"));
  NC_TRY(put_text(h->ncid, h->xtime, "standard_name", "time"));
  NC_TRY(put_text(h->ncid, h->xtime, "long_name", "simulated time"));
  NC_TRY(put_text(h->ncid, h->xtime, "calendar", "proleptic_gregorian"));
  NC_TRY(coordinate(h->ncid, dims[4], "west_east", "X", "projection_x_coordinate", "x of cell centres", &xv));
  NC_TRY(coordinate(h->ncid, dims[3], "south_north", "Y", "projection_y_coordinate", "y of cell centres", &yv));
  NC_TRY(coordinate(h->ncid, dims[2], "bottom_top", "Z", "height", "height of cell centres", &zv));
  int fdims[4] = {dims[0], dims[2], dims[3], dims[4]};
  for (int v = 0; v < H_COUNT; v++) {
    NC_TRY(nc_def_var(h->ncid, HISTORY[v].name, NC_FLOAT, 4, fdims, &h->varid[v]));
    NC_TRY(put_text(h->ncid, h->varid[v], "units", HISTORY[v].units));
    NC_TRY(put_text(h->ncid, h->varid[v], "long_name", HISTORY[v].long_name));
    if (HISTORY[v].standard_name[0])
      NC_TRY(put_text(h->ncid, h->varid[v], "standard_name", HISTORY[v].standard_name));
    NC_TRY(put_text(h->ncid, h->varid[v], "coordinates", "XTIME bottom_top south_north west_east"));
    NC_TRY(nc_var_par_access(h->ncid, h->varid[v], NC_COLLECTIVE));
  }
  NC_TRY(nc_var_par_access(h->ncid, h->times, NC_COLLECTIVE));
  NC_TRY(nc_var_par_access(h->ncid, h->xtime, NC_COLLECTIVE));
  NC_TRY(put_text(h->ncid, NC_GLOBAL, "Conventions", "CF-1.8"));
  NC_TRY(put_text(h->ncid, NC_GLOBAL, "title", "halo_weather history"));
  NC_TRY(put_text(h->ncid, NC_GLOBAL, "source", "fabricbench halo_weather (a WRF-like dynamical core)"));
  NC_TRY(put_text(h->ncid, NC_GLOBAL, "case", w->case_name));
  NC_TRY(nc_put_att_double(h->ncid, NC_GLOBAL, "DX", NC_DOUBLE, 1, &w->dx));
  NC_TRY(nc_put_att_double(h->ncid, NC_GLOBAL, "DY", NC_DOUBLE, 1, &w->dy));
  NC_TRY(nc_put_att_double(h->ncid, NC_GLOBAL, "DT", NC_DOUBLE, 1, &w->dt));
  NC_TRY(nc_enddef(h->ncid));
  /* coordinates: each rank writes its own part */
  NC_TRY(nc_var_par_access(h->ncid, xv, NC_COLLECTIVE));
  NC_TRY(nc_var_par_access(h->ncid, yv, NC_COLLECTIVE));
  NC_TRY(nc_var_par_access(h->ncid, zv, NC_COLLECTIVE));
  {
    int vars[3] = {xv, yv, zv};
    for (int a = 0; a < 3; a++) {
      int n = w->decomp.n[a];
      double *c = malloc((size_t)n * sizeof *c + 1);
      if (!c) { snprintf(err, FB_MSG_LEN, "out of memory"); goto fail; }
      double step = a == 0 ? w->dx : a == 1 ? w->dy : w->dz;
      for (int p = 0; p < n; p++) c[p] = (w->decomp.lo[a] + p + 0.5) * step;
      size_t start = (size_t)w->decomp.lo[a], count = (size_t)n;
      int rc = nc_put_vara_double(h->ncid, vars[a], &start, &count, c);
      free(c);
      NC_TRY(rc);
    }
  }
  return 0;
fail:
  return FB_EXIT_RUNTIME;
}

/* Cell-centre diagnostics of the history into buf (k, j, i order). */
static void history_field(const Weather *w, int v, float *buf) {
  const ptrdiff_t sj = w->ext[2], si = (ptrdiff_t)w->ext[1] * w->ext[2];
  const double gamma = WX_GAMMA, c0 = wx_c0();
  const int H = WX_HALO;
  size_t o = 0;
  for (int k = 0; k < w->nz; k++)
    for (int j = 0; j < w->ny; j++)
      for (int i = 0; i < w->nx; i++) {
        size_t c = wx_idx(w, i, j, k);
        double rho = w->rho0c[k + H] + w->s[F_RHO][c], x = 0.0;
        double big = w->rho0c[k + H] * w->theta0c[k + H] + w->s[F_THETA][c];
        switch (v) {
        case H_U: x = 0.5 * (w->s[F_U][c] + w->s[F_U][c + si]) / rho; break;
        case H_V: x = 0.5 * (w->s[F_V][c] + w->s[F_V][c + sj]) / rho; break;
        case H_W: x = 0.5 * (w->s[F_W][c] + w->s[F_W][c + 1]) / rho; break;
        case H_THETA: x = big / rho; break;
        case H_PP: x = c0 * pow(big, gamma) - w->p0c[k + H]; break;
        case H_RHO: x = rho; break;
        case H_Q1: x = w->s[F_Q1][c] / rho; break;
        case H_Q2: x = w->s[F_Q2][c] / rho; break;
        }
        buf[o++] = (float)x;
      }
}

int wx_history_write(FbContext *ctx, Weather *w, long long step) {
  char err[FB_MSG_LEN] = "";
  History *h = &hist;
  float *buf = NULL;
  fb_timer_start(&ctx->timers, PH_IO);
  double t0 = MPI_Wtime();
  if (!h->open && history_open(ctx, w, err)) goto fail;
  size_t frame = (size_t)w->history_frames;
  size_t n = (size_t)w->nx * w->ny * w->nz;
  buf = malloc(n * sizeof *buf + 1);
  if (!buf) { snprintf(err, sizeof err, "out of memory"); goto fail; }
  size_t start[4] = {frame, 0, (size_t)w->decomp.lo[1], (size_t)w->decomp.lo[0]};
  size_t count[4] = {1, (size_t)w->nz, (size_t)w->ny, (size_t)w->nx};
  for (int v = 0; v < H_COUNT; v++) {
    history_field(w, v, buf);
    NC_TRY(nc_put_vara_float(h->ncid, h->varid[v], start, count, buf));
  }
  {
    char when[20];
    double t = step * w->dt;
    wrf_time(t, when);
    size_t ts[2] = {frame, 0}, tc[2] = {1, 19};
    NC_TRY(nc_put_vara_text(h->ncid, h->times, ts, tc, when));
    NC_TRY(nc_put_vara_double(h->ncid, h->xtime, ts, tc, &t));
  }
  NC_TRY(nc_sync(h->ncid));
  free(buf);
  w->history_frames++;
  w->io_bytes += (double)H_COUNT * 4.0 * (double)w->n[0] * (double)w->n[1] * (double)w->n[2];
  w->io_s += MPI_Wtime() - t0;
  fb_timer_stop(&ctx->timers, PH_IO);
  return 0;
fail:
  free(buf);
  fb_timer_stop(&ctx->timers, PH_IO);
  if (h->open) nc_close(h->ncid);
  h->open = 0;
  if (ctx->rank == 0) unlink(h->tmp);
  fb_fail(ctx, FB_EXIT_RUNTIME, "cannot write the history file %s: %s", h->path, err);
}

/* Closes the history file and gives it its name. */
void wx_history_close(FbContext *ctx, Weather *w) {
  (void)w;
  History *h = &hist;
  if (!h->open) return;
  int rc = nc_close(h->ncid);
  h->open = 0;
  int bad = rc != NC_NOERR;
  if (ctx->rank == 0 && !bad && rename(h->tmp, h->path)) bad = 1;
  MPI_Bcast(&bad, 1, MPI_INT, 0, ctx->comm);
  if (bad) {
    if (ctx->rank == 0) unlink(h->tmp);
    fb_fail(ctx, FB_EXIT_RUNTIME, "cannot close the history file %s", h->path);
  }
}

/* ---------------------------------------------------------------- restart */

static const char *const STATE_NAMES[NFIELDS] = {"U", "V", "W", "RHO_PERT", "THETA_PERT", "Q1", "Q2"};

static void pack_state(const Weather *w, int f, double *buf) {
  size_t o = 0;
  for (int k = 0; k < w->nz; k++)
    for (int j = 0; j < w->ny; j++)
      for (int i = 0; i < w->nx; i++) buf[o++] = w->s[f][wx_idx(w, i, j, k)];
}

int wx_restart_write(FbContext *ctx, Weather *w, long long step) {
  char err[FB_MSG_LEN] = "", path[2 * WX_PATH + 8], tmp[2 * WX_PATH + 16];
  int ncid = -1, dims[3], varid;
  double *buf = NULL;
  fb_timer_start(&ctx->timers, PH_IO);
  double t0 = MPI_Wtime();
  double checksum = wx_checksum(ctx, w);
  /* a bare name goes to the output folder, a path is taken as it is */
  if (strchr(w->restart_out, '/')) snprintf(path, sizeof path, "%s", w->restart_out);
  else snprintf(path, sizeof path, "%s/%s", w->output_dir, w->restart_out);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  NC_TRY(nc_create_par(tmp, NC_NETCDF4 | NC_CLOBBER, ctx->comm, MPI_INFO_NULL, &ncid));
  NC_TRY(nc_def_dim(ncid, "bottom_top", (size_t)w->n[2], &dims[0]));
  NC_TRY(nc_def_dim(ncid, "south_north", (size_t)w->n[1], &dims[1]));
  NC_TRY(nc_def_dim(ncid, "west_east", (size_t)w->n[0], &dims[2]));
  for (int f = 0; f < NFIELDS; f++) {
    NC_TRY(nc_def_var(ncid, STATE_NAMES[f], NC_DOUBLE, 3, dims, &varid));
    NC_TRY(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
  }
  {
    double grid[6] = {w->dx, w->dy, w->ztop, w->dt, w->theta_surface, w->brunt_vaisala};
    long long steps = step;
    NC_TRY(nc_put_att_double(ncid, NC_GLOBAL, "grid_dx_dy_ztop_dt_theta_n", NC_DOUBLE, 6, grid));
    NC_TRY(nc_put_att_longlong(ncid, NC_GLOBAL, "step", NC_INT64, 1, &steps));
    NC_TRY(nc_put_att_double(ncid, NC_GLOBAL, "fabricbench_checksum", NC_DOUBLE, 1, &checksum));
    NC_TRY(put_text(ncid, NC_GLOBAL, "case", w->case_name));
    NC_TRY(put_text(ncid, NC_GLOBAL, "title", "halo_weather restart (double precision)"));
  }
  NC_TRY(nc_enddef(ncid));
  buf = malloc((size_t)w->nx * w->ny * w->nz * sizeof *buf + 1);
  if (!buf) { snprintf(err, sizeof err, "out of memory"); goto fail; }
  {
    size_t start[3] = {0, (size_t)w->decomp.lo[1], (size_t)w->decomp.lo[0]};
    size_t count[3] = {(size_t)w->nz, (size_t)w->ny, (size_t)w->nx};
    for (int f = 0; f < NFIELDS; f++) {
      pack_state(w, f, buf);
      NC_TRY(nc_put_vara_double(ncid, f, start, count, buf));
    }
  }
  NC_TRY(nc_close(ncid));
  ncid = -1;
  free(buf);
  buf = NULL;
  {
    int bad = 0;
    if (ctx->rank == 0 && rename(tmp, path)) bad = 1;
    MPI_Bcast(&bad, 1, MPI_INT, 0, ctx->comm);
    if (bad) { snprintf(err, sizeof err, "cannot rename the temporary file"); goto fail; }
  }
  w->io_bytes += (double)NFIELDS * 8.0 * (double)w->n[0] * (double)w->n[1] * (double)w->n[2];
  w->io_s += MPI_Wtime() - t0;
  fb_timer_stop(&ctx->timers, PH_IO);
  return 0;
fail:
  free(buf);
  if (ncid >= 0) nc_close(ncid);
  if (ctx->rank == 0) unlink(tmp);
  fb_timer_stop(&ctx->timers, PH_IO);
  fb_fail(ctx, FB_EXIT_RUNTIME, "cannot write the restart file %s: %s", path, err);
}

int wx_restart_read(FbContext *ctx, Weather *w, char *errout, size_t len) {
  char err[FB_MSG_LEN] = "";
  int ncid = -1, rc = FB_EXIT_USAGE;
  double *buf = NULL;
  const char *path = w->restart_in;
  errout[0] = '\0';
  if (access(path, R_OK)) {
    snprintf(errout, len, "%s: cannot read the restart file", path);
    return FB_EXIT_USAGE;
  }
  if (nc_open_par(path, NC_NOWRITE, ctx->comm, MPI_INFO_NULL, &ncid) != NC_NOERR) {
    snprintf(errout, len, "%s: not a NetCDF restart file (damaged or another format)", path);
    return FB_EXIT_USAGE;
  }
  size_t n[3];
  const char *dimnames[3] = {"bottom_top", "south_north", "west_east"};
  for (int a = 0; a < 3; a++) {
    int dim;
    if (nc_inq_dimid(ncid, dimnames[a], &dim) || nc_inq_dimlen(ncid, dim, &n[a])) {
      snprintf(errout, len, "%s: not a halo_weather restart (no dimension %s)", path, dimnames[a]);
      goto out;
    }
  }
  if (n[0] != (size_t)w->n[2] || n[1] != (size_t)w->n[1] || n[2] != (size_t)w->n[0]) {
    snprintf(errout, len, "%s: restart is for a %zux%zux%zu grid, the deck has %lldx%lldx%lld", path, n[2], n[1],
             n[0], w->n[0], w->n[1], w->n[2]);
    goto out;
  }
  double grid[6], checksum;
  long long step;
  if (nc_get_att_double(ncid, NC_GLOBAL, "grid_dx_dy_ztop_dt_theta_n", grid) ||
      nc_get_att_longlong(ncid, NC_GLOBAL, "step", &step) ||
      nc_get_att_double(ncid, NC_GLOBAL, "fabricbench_checksum", &checksum)) {
    snprintf(errout, len, "%s: not a halo_weather restart (grid, step or checksum attribute missing)", path);
    goto out;
  }
  double want[6] = {w->dx, w->dy, w->ztop, w->dt, w->theta_surface, w->brunt_vaisala};
  for (int a = 0; a < 6; a++)
    if (grid[a] != want[a]) {
      snprintf(errout, len, "%s: restart is for another grid or base state (dx %g dy %g ztop %g dt %g "
               "theta %g N %g; the deck: %g %g %g %g %g %g)", path, grid[0], grid[1], grid[2], grid[3], grid[4],
               grid[5], want[0], want[1], want[2], want[3], want[4], want[5]);
      goto out;
    }
  buf = malloc((size_t)w->nx * w->ny * w->nz * sizeof *buf + 1);
  if (!buf) { rc = FB_EXIT_RUNTIME; snprintf(errout, len, "out of memory reading %s", path); goto out; }
  int bad = 0;
  for (int f = 0; f < NFIELDS && !bad; f++) {
    int varid;
    size_t start[3] = {0, (size_t)w->decomp.lo[1], (size_t)w->decomp.lo[0]};
    size_t count[3] = {(size_t)w->nz, (size_t)w->ny, (size_t)w->nx};
    if (nc_inq_varid(ncid, STATE_NAMES[f], &varid) || nc_var_par_access(ncid, varid, NC_COLLECTIVE) ||
        nc_get_vara_double(ncid, varid, start, count, buf)) {
      snprintf(errout, len, "%s: damaged restart: cannot read %s", path, STATE_NAMES[f]);
      bad = 1;
      break;
    }
    size_t o = 0;
    for (int k = 0; k < w->nz; k++)
      for (int j = 0; j < w->ny; j++)
        for (int i = 0; i < w->nx; i++) w->s[f][wx_idx(w, i, j, k)] = buf[o++];
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, ctx->comm);
  if (bad) {
    if (!errout[0]) snprintf(errout, len, "%s: damaged restart: a rank could not read its part", path);
    goto out;
  }
  if (wx_checksum(ctx, w) != checksum) {
    snprintf(errout, len, "%s: damaged restart: the state's checksum differs from the one written", path);
    goto out;
  }
  w->start_step = step;
  rc = 0;
  (void)err;
out:
  free(buf);
  if (ncid >= 0) nc_close(ncid);
  return rc;
}
