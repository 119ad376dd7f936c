/* restart.c: restart files in NetCDF-4: the prognostic fields in double
 * precision with the grid and a checksum, so a restarted run continues bit
 * for bit and a foreign or damaged file is refused; written under a
 * temporary name and renamed when closed (the plumbing is io.c's, wx_io.h). */
#include "wx_io.h"

#include <math.h>
#ifndef WX_SERIAL_NETCDF
#include <netcdf_par.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const STATE_NAMES[NFIELDS] = {"U",          "V",  "W", "RHO_PERT",
                                                 "THETA_PERT", "Q1", "Q2"};

/* a bare name goes to the output folder, a path is taken as it is */
void wx_restart_path(const Weather *w, char *path, size_t len) {
  if (strchr(w->restart_out, '/'))
    snprintf(path, len, "%s", w->restart_out);
  else
    snprintf(path, len, "%s/%s", w->output_dir, w->restart_out);
}

/* An interval restart keeps the step in its name (NAME.STEP.nc, before the
 * extension), so each is kept; the end of the run writes NAME itself. */
static void interval_path(const Weather *w, long long step, char *path, size_t len) {
  char base[2 * WX_PATH + 8];
  wx_restart_path(w, base, sizeof base);
  char *dot = strrchr(base, '.'), *slash = strrchr(base, '/');
  if (dot && (!slash || dot > slash)) {
    *dot = '\0';
    snprintf(path, len, "%s.%06lld.%s", base, step, dot + 1);
  } else {
    snprintf(path, len, "%s.%06lld", base, step);
  }
}

int wx_restart_write(FbContext *ctx, Weather *w, long long step, int interval) {
  char path[2 * WX_PATH + 32], tmp[4096];
  IoStatus st = {0, ""};
  int ncid = -1, dims[3] = {0}, varid[NFIELDS] = {0};
  fb_timer_start(&ctx->timers, PH_IO);
  double t0 = fb_now();
  double checksum = wx_checksum(ctx, w);
  if (interval)
    interval_path(w, step, path, sizeof path);
  else
    wx_restart_path(w, path, sizeof path);
  if (io_shared_temp(ctx, path, tmp, sizeof tmp)) {
    st.rc = FB_EXIT_RUNTIME;
    snprintf(st.msg, sizeof st.msg, "no temporary name beside it");
  }
  io_create(ctx, tmp, &ncid, &st);
  if (io_holds(ctx)) {
    IO(&st, nc_def_dim(ncid, "bottom_top", (size_t)w->n[2], &dims[0]));
    IO(&st, nc_def_dim(ncid, "south_north", (size_t)w->n[1], &dims[1]));
    IO(&st, nc_def_dim(ncid, "west_east", (size_t)w->n[0], &dims[2]));
    for (int f = 0; f < NFIELDS; f++) {
      IO(&st, nc_def_var(ncid, STATE_NAMES[f], NC_DOUBLE, 3, dims, &varid[f]));
      io_collective(ncid, varid[f], &st);
    }
    double grid[6] = {w->dx, w->dy, w->ztop, w->dt, w->theta_surface, w->brunt_vaisala};
    long long steps = step;
    IO(&st, nc_put_att_double(ncid, NC_GLOBAL, "grid_dx_dy_ztop_dt_theta_n", NC_DOUBLE, 6, grid));
    IO(&st, nc_put_att_longlong(ncid, NC_GLOBAL, "step", NC_INT64, 1, &steps));
    IO(&st, nc_put_att_double(ncid, NC_GLOBAL, "fabricbench_checksum", NC_DOUBLE, 1, &checksum));
    IO(&st, io_put_text(ncid, NC_GLOBAL, "case", w->case_name));
    IO(&st, io_put_text(ncid, NC_GLOBAL, "title", "halo_weather restart (double precision)"));
    IO(&st, nc_enddef(ncid));
  }
  io_agree(ctx, &st, "restart file", path);
  double *buf = malloc((size_t)w->nx * w->ny * w->nz * sizeof *buf + 1);
  fb_agree(ctx, buf ? 0 : FB_EXIT_RUNTIME, "out of memory for the restart buffer");
  size_t start[3] = {0, (size_t)w->decomp.lo[1], (size_t)w->decomp.lo[0]};
  size_t count[3] = {(size_t)w->nz, (size_t)w->ny, (size_t)w->nx};
  for (int f = 0; f < NFIELDS; f++) {
    size_t o = 0;
    for (int k = 0; k < w->nz; k++)
      for (int j = 0; j < w->ny; j++)
        for (int i = 0; i < w->nx; i++) buf[o++] = w->s[f][wx_idx(w, i, j, k)];
    io_put_block(ctx, ncid, varid[f], 3, start, count, buf, 0, &st);
  }
  free(buf);
  if (io_holds(ctx)) IO(&st, nc_close(ncid));
  long long rc = st.rc;
  fb_allreduce_max_ll(ctx, FB_NO_PHASE, &rc, 1);
  st.rc = (int)rc;
  io_commit(ctx, tmp, path, &st);
  fb_timer_stop(&ctx->timers, PH_IO);
  io_agree(ctx, &st, "restart file", path);
  w->io_bytes += (double)NFIELDS * 8.0 * (double)w->n[0] * (double)w->n[1] * (double)w->n[2];
  w->io_s += fb_now() - t0;
  return 0;
}

/* Every rank opens the file (in parallel, or each on its own read-only)
 * and reads its block. */
/* The restart's grid, base state, step and checksum, checked against the deck. */
static int restart_header(int ncid, const Weather *w, const char *path, char *errout, size_t len,
                          long long *step, double *checksum) {
  size_t n[3];
  const char *dimnames[3] = {"bottom_top", "south_north", "west_east"};
  for (int a = 0; a < 3; a++) {
    int dim;
    if (nc_inq_dimid(ncid, dimnames[a], &dim) || nc_inq_dimlen(ncid, dim, &n[a])) {
      snprintf(errout, len, "%s: not a halo_weather restart (no dimension %s)", path, dimnames[a]);
      return FB_EXIT_USAGE;
    }
  }
  if (n[0] != (size_t)w->n[2] || n[1] != (size_t)w->n[1] || n[2] != (size_t)w->n[0]) {
    snprintf(errout, len, "%s: restart is for a %zux%zux%zu grid, the deck has %lldx%lldx%lld",
             path, n[2], n[1], n[0], w->n[0], w->n[1], w->n[2]);
    return FB_EXIT_USAGE;
  }
  double grid[6];
  if (nc_get_att_double(ncid, NC_GLOBAL, "grid_dx_dy_ztop_dt_theta_n", grid) ||
      nc_get_att_longlong(ncid, NC_GLOBAL, "step", step) ||
      nc_get_att_double(ncid, NC_GLOBAL, "fabricbench_checksum", checksum)) {
    snprintf(errout, len,
             "%s: not a halo_weather restart (grid, step or checksum attribute missing)", path);
    return FB_EXIT_USAGE;
  }
  double want[6] = {w->dx, w->dy, w->ztop, w->dt, w->theta_surface, w->brunt_vaisala};
  for (int a = 0; a < 6; a++)
    if (grid[a] != want[a]) {
      snprintf(errout, len,
               "%s: restart is for another grid or base state (dx %g dy %g ztop %g dt %g "
               "theta %g N %g; the deck: %g %g %g %g %g %g)",
               path, grid[0], grid[1], grid[2], grid[3], grid[4], grid[5], want[0], want[1],
               want[2], want[3], want[4], want[5]);
      return FB_EXIT_USAGE;
    }
  return 0;
}

/* This rank's part of every prognostic field; 1 when one cannot be read. */
static int restart_fields(int ncid, Weather *w) {
  double *buf = malloc((size_t)w->nx * w->ny * w->nz * sizeof *buf + 1);
  int bad = !buf;
  for (int f = 0; f < NFIELDS && !bad; f++) {
    int varid;
    size_t start[3] = {0, (size_t)w->decomp.lo[1], (size_t)w->decomp.lo[0]};
    size_t count[3] = {(size_t)w->nz, (size_t)w->ny, (size_t)w->nx};
    bad = nc_inq_varid(ncid, STATE_NAMES[f], &varid) != NC_NOERR;
#ifndef WX_SERIAL_NETCDF
    if (!bad) bad = nc_var_par_access(ncid, varid, NC_COLLECTIVE) != NC_NOERR;
#endif
    if (!bad) bad = nc_get_vara_double(ncid, varid, start, count, buf) != NC_NOERR;
    size_t o = 0;
    for (int k = 0; k < w->nz && !bad; k++)
      for (int j = 0; j < w->ny; j++)
        for (int i = 0; i < w->nx; i++) w->s[f][wx_idx(w, i, j, k)] = buf[o++];
  }
  free(buf);
  return bad;
}

int wx_restart_read(FbContext *ctx, Weather *w, char *errout, size_t len) {
  int ncid = -1;
  const char *path = w->restart_in;
  errout[0] = '\0';
  /* every rank must see the file (it may exist on some nodes only): agreed
   * before the collective open */
  char why[FB_MSG_LEN] = "";
  fb_agree(ctx, fb_input_problem(path, why, sizeof why), why);
#ifdef WX_SERIAL_NETCDF
  int opened = nc_open(path, NC_NOWRITE, &ncid);
#else
  int opened = nc_open_par(path, NC_NOWRITE, ctx->comm, MPI_INFO_NULL, &ncid);
#endif
  if (opened != NC_NOERR) {
    snprintf(errout, len, "%s: not a NetCDF restart file (damaged or another format)", path);
    return FB_EXIT_USAGE;
  }
  long long step = 0;
  double checksum = 0.0;
  int rc = restart_header(ncid, w, path, errout, len, &step, &checksum);
  if (!rc) {
    /* collective reads: every rank takes part, and all agree on the outcome */
    long long any_bad = restart_fields(ncid, w);
    fb_allreduce_max_ll(ctx, FB_NO_PHASE, &any_bad, 1);
    if (any_bad) {
      rc = FB_EXIT_USAGE;
      snprintf(errout, len, "%s: damaged restart: the prognostic fields cannot be read", path);
    } else if (wx_checksum(ctx, w) != checksum) {
      rc = FB_EXIT_USAGE;
      snprintf(errout, len,
               "%s: damaged restart: the state's checksum differs from the one written", path);
    }
  }
  if (!rc) w->start_step = step;
  nc_close(ncid);
  return rc;
}
