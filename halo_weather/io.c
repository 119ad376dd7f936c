/* io.c: the history file, and the NetCDF plumbing it shares with the
 * restarts (restart.c, through wx_io.h), in NetCDF-4 (HDF5 underneath). With the
 * parallel NetCDF library (netcdf-mpi, Open MPI builds) every rank writes
 * its own block collectively and nothing is gathered; built against serial
 * NetCDF (WX_SERIAL_NETCDF: MPICH, whose parallel NetCDF Debian lacks) rank
 * 0 holds the file and writes the blocks the others send. History: float32,
 * CF-1.8 attributes, WRF's dimension names and a Times string, so ncdump,
 * xarray and ncview read it. Files are written under
 * a temporary name and renamed when closed.
 *
 * Errors are sticky: after the first failure a rank skips further NetCDF
 * calls but still takes part in every collective step, and the ranks agree
 * on the outcome at the end (so no rank waits for one that gave up). */
#include "wx_io.h"

#include <math.h>
#include <netcdf.h>
#ifndef WX_SERIAL_NETCDF
#include <netcdf_par.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Does this rank hold the open file? (every rank with parallel NetCDF) */
int io_holds(const FbContext *ctx) { return !SERIAL_IO || ctx->rank == 0; }

void io_create(FbContext *ctx, const char *path, int *ncid, IoStatus *st) {
  *ncid = -1;
#ifdef WX_SERIAL_NETCDF
  if (io_holds(ctx)) IO(st, nc_create(path, NC_NETCDF4 | NC_CLOBBER, ncid));
#else
  IO(st, nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, ctx->comm, MPI_INFO_NULL, ncid));
#endif
}

void io_collective(int ncid, int varid, IoStatus *st) {
#ifdef WX_SERIAL_NETCDF
  (void)ncid;
  (void)varid;
  (void)st;
#else
  IO(st, nc_var_par_access(ncid, varid, NC_COLLECTIVE));
#endif
}

/* Writes each rank's block (start, count over ndims dimensions) of a
 * variable: directly, or through rank 0. Collective in both cases. */
void io_put_block(FbContext *ctx, int ncid, int varid, int ndims, const size_t *start,
                  const size_t *count, const void *data, int is_float, IoStatus *st) {
#ifdef WX_SERIAL_NETCDF
  size_t elem = is_float ? sizeof(float) : sizeof(double), n = 1;
  for (int d = 0; d < ndims; d++) n *= count[d];
  unsigned long long meta[8] = {0};
  for (int d = 0; d < ndims && d < 4; d++) {
    meta[d] = start[d];
    meta[4 + d] = count[d];
  }
  WxGathered g;
  int ok = wx_gather_blocks(ctx, meta, data, n * elem, &g);
  if (ctx->rank == 0) {
    if (!ok && !st->rc) {
      st->rc = FB_EXIT_RUNTIME;
      snprintf(st->msg, sizeof st->msg, "out of memory gathering a field");
    }
    for (int r = 0; ok && r < ctx->size; r++) {
      size_t s[4], c[4];
      for (int d = 0; d < ndims; d++) {
        s[d] = g.meta[8 * r + d];
        c[d] = g.meta[8 * r + 4 + d];
      }
      const void *block = g.data + g.offset[r];
      if (is_float)
        IO(st, nc_put_vara_float(ncid, varid, s, c, block));
      else
        IO(st, nc_put_vara_double(ncid, varid, s, c, block));
    }
  }
  wx_gathered_free(&g);
#else
  (void)ctx;
  (void)ndims;
  if (is_float)
    IO(st, nc_put_vara_float(ncid, varid, start, count, data));
  else
    IO(st, nc_put_vara_double(ncid, varid, start, count, data));
#endif
}

/* Agrees on the outcome; exit 3 on every rank naming the file if any failed. */
void io_agree(FbContext *ctx, IoStatus *st, const char *what, const char *path) {
  char msg[FB_MSG_LEN];
  snprintf(msg, sizeof msg, "cannot write the %s %.200s: %.200s", what, path, st->msg);
  fb_agree(ctx, st->rc, msg);
}

/* One temporary name beside path for every rank (rank 0 makes it, the
 * others adopt it, so a signal on any rank removes it). 0 or an errno. */
int io_shared_temp(FbContext *ctx, const char *path, char *tmp, size_t len) {
  char target[4096];
  int rc = 0;
  if (ctx->rank == 0) {
    rc = fb_output_target(path, target, sizeof target);
    if (!rc) rc = fb_temp_begin(target, tmp, len);
  }
  long long code = rc;
  fb_allreduce_max_ll(ctx, FB_NO_PHASE, &code, 1);
  if (code) return (int)code;
  fb_bcast_bytes(ctx, tmp, len, 0);
  if (ctx->rank != 0) fb_temp_adopt(tmp);
  return 0;
}

/* Rank 0 gives the finished file its name (or removes it after a failure);
 * every rank learns the outcome. */
void io_commit(FbContext *ctx, const char *tmp, const char *path, IoStatus *st) {
  long long bad = 0;
  if (ctx->rank == 0) {
    char target[4096];
    if (st->rc)
      fb_temp_discard(tmp);
    else
      bad = fb_output_target(path, target, sizeof target) || fb_temp_commit(tmp, target);
  } else {
    fb_temp_forget(tmp);
  }
  fb_allreduce_max_ll(ctx, FB_NO_PHASE, &bad, 1);
  if (bad && !st->rc) {
    st->rc = FB_EXIT_RUNTIME;
    snprintf(st->msg, sizeof st->msg, "cannot rename the temporary file");
  }
}

/* --------------------------------------------------------------- history */

/* Output fields of the history file, at cell centres. The winds are on the
 * idealised Cartesian grid: x_wind and y_wind, no map projection claimed. */
enum { H_U, H_V, H_W, H_THETA, H_THETA_PERT, H_PP, H_RHO, H_Q1, H_Q2, H_COUNT };
_Static_assert(H_COUNT == WX_HISTORY_FIELDS, "WxHistory holds one varid per history field");
static const struct {
  const char *name, *units, *long_name, *standard_name;
} HISTORY[H_COUNT] = {
    {"U", "m s-1", "x-wind component", "x_wind"},
    {"V", "m s-1", "y-wind component", "y_wind"},
    {"W", "m s-1", "z-wind component", "upward_air_velocity"},
    {"THETA", "K", "potential temperature", "air_potential_temperature"},
    /* as WRF's T: float32 keeps 7 digits of theta', where THETA - THETA_BASE
     * keeps 3e-5 K (a 0.01 K gravity wave's detail) */
    {"THETA_PERT", "K", "potential temperature perturbation (THETA - THETA_BASE)", ""},
    {"P", "Pa", "perturbation pressure (P + PB is the pressure)", ""},
    {"RHO", "kg m-3", "air density", "air_density"},
    {"QTRACER1", "kg kg-1", "passive tracer 1 mixing ratio", ""},
    {"QTRACER2", "kg kg-1", "passive tracer 2 mixing ratio", ""},
};

/* The base state written once, per level: theta' = THETA - THETA_BASE. */
enum { B_THETA, B_P, B_RHO, B_COUNT };
static const struct {
  const char *name, *units, *long_name;
} BASE[B_COUNT] = {
    {"THETA_BASE", "K", "base-state potential temperature (theta' = THETA - THETA_BASE)"},
    {"PB", "Pa", "base-state pressure"},
    {"RHO_BASE", "kg m-3", "base-state density"},
};

static const char *const AXES[3] = {"west_east", "south_north", "bottom_top"};

int io_put_text(int ncid, int varid, const char *name, const char *text) {
  return nc_put_att_text(ncid, varid, name, strlen(text), text);
}

/* "2000-01-01_00:00:00" plus seconds, WRF's Times format. */
static void wrf_time(double seconds, char out[20]) {
  long long s = (long long)llround(seconds);
  long long days = s / 86400, rem = s % 86400;
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
  snprintf(buf, sizeof buf, "%04d-%02d-%02lld_%02lld:%02lld:%02lld", y, m, days + 1, rem / 3600,
           rem / 60 % 60, rem % 60);
  memcpy(out, buf, 19);
  out[19] = '\0';
}

void wx_history_path(const Weather *w, char *path, size_t len) {
  snprintf(path, len, "%s/wrfout_d01.nc", w->output_dir);
}

/* A coordinate variable of cell centres with its cell bounds (CF). */
static void coordinate(int ncid, int dim, int nv, int a, int *varid, int *bnds, IoStatus *st) {
  static const char *const axis[3] = {"X", "Y", "Z"};
  static const char *const long_name[3] = {"x of cell centres", "y of cell centres",
                                           "height of cell centres"};
  char name[32];
  IO(st, nc_def_var(ncid, AXES[a], NC_DOUBLE, 1, &dim, varid));
  IO(st, io_put_text(ncid, *varid, "units", "m"));
  IO(st, io_put_text(ncid, *varid, "axis", axis[a]));
  IO(st, io_put_text(ncid, *varid, "long_name", long_name[a]));
  snprintf(name, sizeof name, "%s_bnds", AXES[a]);
  IO(st, io_put_text(ncid, *varid, "bounds", name));
  if (a == 2) {
    IO(st, io_put_text(ncid, *varid, "standard_name", "height"));
    IO(st, io_put_text(ncid, *varid, "positive", "up"));
  }
  int bd[2] = {dim, nv};
  IO(st, nc_def_var(ncid, name, NC_DOUBLE, 2, bd, bnds));
}

/* Every case parameter, the deck itself and where the file came from, as
 * global attributes: the file describes its run without the deck. */
static void history_attributes(const FbContext *ctx, const Weather *w, int ncid, IoStatus *st) {
  char text[512];
  IO(st, io_put_text(ncid, NC_GLOBAL, "Conventions", "CF-1.8"));
  IO(st, io_put_text(ncid, NC_GLOBAL, "title", "halo_weather history"));
  IO(st, io_put_text(ncid, NC_GLOBAL, "institution", "fabricbench"));
  snprintf(text, sizeof text, "fabricbench halo_weather %s (git %s), a WRF-like dynamical core",
           fb_version(), fb_build_git());
  IO(st, io_put_text(ncid, NC_GLOBAL, "source", text));
  snprintf(text, sizeof text, "%s: created by %s -i %s on %d ranks", ctx->started_utc, ctx->program,
           w->deck_path, ctx->size);
  IO(st, io_put_text(ncid, NC_GLOBAL, "history", text));
  IO(st, io_put_text(ncid, NC_GLOBAL, "date_created", ctx->started_utc));
  IO(st, io_put_text(ncid, NC_GLOBAL, "fabricbench_version", fb_version()));
  IO(st, io_put_text(ncid, NC_GLOBAL, "fabricbench_git", fb_build_git()));
  IO(st, io_put_text(ncid, NC_GLOBAL, "case", w->case_name));
  IO(st, io_put_text(ncid, NC_GLOBAL, "bubble_perturbation",
                     w->perturbation == PERTURB_TEMPERATURE ? "temperature" : "theta"));
  IO(st, io_put_text(ncid, NC_GLOBAL, "fabricbench_deck", w->deck_text ? w->deck_text : ""));
  const struct {
    const char *name;
    double value;
  } params[] = {{"DX", w->dx},
                {"DY", w->dy},
                {"DZ", w->dz},
                {"ZTOP", w->ztop},
                {"DT", w->dt},
                {"acoustic_substeps", (double)w->acoustic_substeps},
                {"dimensions", (double)w->dimensions},
                {"theta_surface", w->theta_surface},
                {"brunt_vaisala", w->brunt_vaisala},
                {"u0", w->u0},
                {"v0", w->v0},
                {"bubble_dtheta", w->bubble_dtheta},
                {"bubble_radius_x", w->bubble_radius_x},
                {"bubble_radius_y", w->bubble_radius_y},
                {"bubble_radius_z", w->bubble_radius_z},
                {"bubble_x", w->bubble_x},
                {"bubble_y", w->bubble_y},
                {"bubble_z", w->bubble_z},
                {"hyperviscosity", w->hyperviscosity},
                {"divergence_damping", w->divergence_damping},
                {"offcentering", w->offcentering},
                {"diffusion", w->diffusion}};
  for (size_t k = 0; k < sizeof params / sizeof params[0]; k++)
    IO(st, nc_put_att_double(ncid, NC_GLOBAL, params[k].name, NC_DOUBLE, 1, &params[k].value));
}

/* The coordinates, their bounds and the base state (rank 0's data; the
 * others take part with empty blocks). */
static void history_constants(FbContext *ctx, const Weather *w, const int *cv, const int *bnds,
                              const int *base, IoStatus *st) {
  WxHistory *h = (WxHistory *)&w->hist;
  for (int a = 0; a < 3; a++) {
    io_collective(h->ncid, cv[a], st);
    io_collective(h->ncid, bnds[a], st);
    size_t n = ctx->rank == 0 ? (size_t)w->n[a] : 0, start[2] = {0, 0}, count[2] = {n, 2};
    double step = a == 0 ? w->dx : a == 1 ? w->dy : w->dz;
    double *c = malloc(((size_t)w->n[a] + 1) * 2 * sizeof *c);
    if (!c && !st->rc) {
      st->rc = FB_EXIT_RUNTIME;
      snprintf(st->msg, sizeof st->msg, "out of memory");
    }
    for (size_t p = 0; c && p < n; p++) c[p] = ((double)p + 0.5) * step;
    if (c) IO(st, nc_put_vara_double(h->ncid, cv[a], start, count, c));
    for (size_t p = 0; c && p < n; p++)
      c[2 * p] = (double)p * step, c[2 * p + 1] = (double)(p + 1) * step;
    if (c) IO(st, nc_put_vara_double(h->ncid, bnds[a], start, count, c));
    free(c);
  }
  const double *profiles[B_COUNT] = {w->theta0c + WX_HALO, w->p0c + WX_HALO, w->rho0c + WX_HALO};
  for (int b = 0; b < B_COUNT; b++) {
    io_collective(h->ncid, base[b], st);
    size_t start = 0, n = ctx->rank == 0 ? (size_t)w->n[2] : 0;
    IO(st, nc_put_vara_double(h->ncid, base[b], &start, &n, profiles[b]));
  }
}

/* Defines a new history file. */
static void history_define(FbContext *ctx, Weather *w, IoStatus *st) {
  WxHistory *h = &w->hist;
  int dims[6] = {0}, cv[3] = {0}, bnds[3] = {0}, base[B_COUNT] = {0};
  if (!io_holds(ctx)) return;
  IO(st, nc_def_dim(h->ncid, "Time", NC_UNLIMITED, &dims[0]));
  IO(st, nc_def_dim(h->ncid, "DateStrLen", 19, &dims[1]));
  IO(st, nc_def_dim(h->ncid, "bottom_top", (size_t)w->n[2], &dims[2]));
  IO(st, nc_def_dim(h->ncid, "south_north", (size_t)w->n[1], &dims[3]));
  IO(st, nc_def_dim(h->ncid, "west_east", (size_t)w->n[0], &dims[4]));
  IO(st, nc_def_dim(h->ncid, "nv", 2, &dims[5]));
  IO(st, nc_def_var(h->ncid, "Times", NC_CHAR, 2, dims, &h->times));
  /* Time: the coordinate of the Time dimension (xarray's ds.sel(Time=...)) */
  IO(st, nc_def_var(h->ncid, "Time", NC_DOUBLE, 1, dims, &h->time));
  IO(st, io_put_text(h->ncid, h->time, "units", "seconds since 2000-01-01 00:00:00"));
  IO(st, io_put_text(h->ncid, h->time, "standard_name", "time"));
  IO(st, io_put_text(h->ncid, h->time, "long_name", "simulated time"));
  IO(st, io_put_text(h->ncid, h->time, "calendar", "proleptic_gregorian"));
  IO(st, io_put_text(h->ncid, h->time, "axis", "T"));
  IO(st, nc_def_var(h->ncid, "XTIME", NC_DOUBLE, 1, dims,
                    &h->xtime)); /* WRF's: minutes since the start */
  IO(st, io_put_text(h->ncid, h->xtime, "units", "minutes since 2000-01-01 00:00:00"));
  IO(st, io_put_text(h->ncid, h->xtime, "long_name", "minutes since the simulation start"));
  for (int a = 0; a < 3; a++) coordinate(h->ncid, dims[4 - a], dims[5], a, &cv[a], &bnds[a], st);
  for (int b = 0; b < B_COUNT; b++) {
    IO(st, nc_def_var(h->ncid, BASE[b].name, NC_DOUBLE, 1, &dims[2], &base[b]));
    IO(st, io_put_text(h->ncid, base[b], "units", BASE[b].units));
    IO(st, io_put_text(h->ncid, base[b], "long_name", BASE[b].long_name));
  }
  int fdims[4] = {dims[0], dims[2], dims[3], dims[4]};
  for (int v = 0; v < H_COUNT; v++) {
    IO(st, nc_def_var(h->ncid, HISTORY[v].name, NC_FLOAT, 4, fdims, &h->varid[v]));
    IO(st, io_put_text(h->ncid, h->varid[v], "units", HISTORY[v].units));
    IO(st, io_put_text(h->ncid, h->varid[v], "long_name", HISTORY[v].long_name));
    if (HISTORY[v].standard_name[0])
      IO(st, io_put_text(h->ncid, h->varid[v], "standard_name", HISTORY[v].standard_name));
    io_collective(h->ncid, h->varid[v], st);
  }
  io_collective(h->ncid, h->times, st);
  io_collective(h->ncid, h->time, st);
  io_collective(h->ncid, h->xtime, st);
  history_attributes(ctx, w, h->ncid, st);
  IO(st, nc_enddef(h->ncid));
  history_constants(ctx, w, cv, bnds, base, st);
  h->frames = 0;
}

/* Rank 0 copies the first segment's history under the temporary name, so a
 * restarted run appends to a copy and the original stays whole until the
 * new one is complete. */
static void copy_file(FbContext *ctx, const char *from, const char *to, IoStatus *st) {
  long long bad = 0;
  if (ctx->rank == 0) {
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[1 << 16];
    size_t n;
    bad = !in || !out;
    while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0) bad = fwrite(buf, 1, n, out) != n;
    if (in) fclose(in);
    if (out && fclose(out)) bad = 1;
  }
  fb_allreduce_max_ll(ctx, FB_NO_PHASE, &bad, 1);
  if (bad && !st->rc) {
    st->rc = FB_EXIT_RUNTIME;
    snprintf(st->msg, sizeof st->msg, "cannot copy %s to append to it", from);
  }
}

/* Opens the copy of an earlier segment's history and finds its variables;
 * 0 when it is this run's grid and its last frame is before this segment. */
static int history_reopen(FbContext *ctx, Weather *w, double first_time, IoStatus *st) {
  WxHistory *h = &w->hist;
  int ok = 1;
#ifdef WX_SERIAL_NETCDF
  if (io_holds(ctx)) IO(st, nc_open(h->tmp, NC_WRITE, &h->ncid));
#else
  IO(st, nc_open_par(h->tmp, NC_WRITE, ctx->comm, MPI_INFO_NULL, &h->ncid));
#endif
  if (io_holds(ctx) && !st->rc) {
    int dim;
    size_t frames = 0, len;
    for (int a = 0; a < 3 && ok; a++)
      ok = !nc_inq_dimid(h->ncid, AXES[a], &dim) && !nc_inq_dimlen(h->ncid, dim, &len) &&
           len == (size_t)w->n[a];
    ok = ok && !nc_inq_dimid(h->ncid, "Time", &dim) && !nc_inq_dimlen(h->ncid, dim, &frames);
    ok = ok && !nc_inq_varid(h->ncid, "Times", &h->times) &&
         !nc_inq_varid(h->ncid, "Time", &h->time) && !nc_inq_varid(h->ncid, "XTIME", &h->xtime);
    for (int v = 0; v < H_COUNT && ok; v++)
      ok = !nc_inq_varid(h->ncid, HISTORY[v].name, &h->varid[v]);
    double last = -1.0;
    if (ok && frames > 0) {
      size_t at = frames - 1;
      ok = !nc_get_var1_double(h->ncid, h->time, &at, &last) && last < first_time;
    }
    h->frames = (long long)frames;
    for (int v = 0; v < H_COUNT && ok; v++) io_collective(h->ncid, h->varid[v], st);
    io_collective(h->ncid, h->times, st);
    io_collective(h->ncid, h->time, st);
    io_collective(h->ncid, h->xtime, st);
  }
  long long shared[2] = {ok, h->frames};
  fb_bcast_bytes(ctx, shared, sizeof shared, 0);
  h->frames = shared[1];
  return (int)shared[0];
}

/* Creates the history file, or, for a run from a restart, appends to the
 * first segment's history (a copy, renamed over it when complete). When
 * that file is of another grid or already has frames past the restart, the
 * segment goes to a numbered file of its own, wrfout_d01.STEP.nc: no frame
 * of the first segment is ever overwritten. */
static void history_open(FbContext *ctx, Weather *w, IoStatus *st) {
  WxHistory *h = &w->hist;
  wx_history_path(w, h->path, sizeof h->path);
  int append = 0;
  if (w->restart_in[0]) {
    long long exists = ctx->rank == 0 ? access(h->path, R_OK) == 0 : 0;
    fb_allreduce_max_ll(ctx, FB_NO_PHASE, &exists, 1);
    if (exists && !io_shared_temp(ctx, h->path, h->tmp, sizeof h->tmp)) {
      append = 1;
      copy_file(ctx, h->path, h->tmp, st);
      if (!st->rc && !history_reopen(ctx, w, (double)(w->start_step + 1) * w->dt, st)) {
        if (io_holds(ctx)) nc_close(h->ncid);
        IoStatus drop = {FB_EXIT_RUNTIME, ""};
        io_commit(ctx, h->tmp, h->path, &drop); /* removes the copy */
        append = 0;
        snprintf(h->path, sizeof h->path, "%s/wrfout_d01.%lld.nc", w->output_dir, w->start_step);
      }
    }
  }
  h->open = 1;
  if (append) return;
  if (io_shared_temp(ctx, h->path, h->tmp, sizeof h->tmp) && !st->rc) {
    st->rc = FB_EXIT_RUNTIME;
    snprintf(st->msg, sizeof st->msg, "no temporary name beside %s", h->path);
  }
  io_create(ctx, h->tmp, &h->ncid, st);
  history_define(ctx, w, st);
}

/* Cell-centre diagnostics of the history into buf (k, j, i order). */
static void history_field(const Weather *w, int v, float *buf) {
  const ptrdiff_t sj = wx_ystride(w), si = (ptrdiff_t)w->ext[1] * w->ext[2];
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
        case H_THETA_PERT: x = wx_theta_pert(w, i, j, k); break;
        case H_PP: x = c0 * pow(big, gamma) - w->p0c[k + H]; break;
        case H_RHO: x = rho; break;
        case H_Q1: x = w->s[F_Q1][c] / rho; break;
        case H_Q2: x = w->s[F_Q2][c] / rho; break;
        }
        buf[o++] = (float)x;
      }
}

int wx_history_write(FbContext *ctx, Weather *w, long long step) {
  IoStatus st = {0, ""};
  WxHistory *h = &w->hist;
  fb_timer_start(&ctx->timers, PH_IO);
  double t0 = fb_now();
  if (!h->open) {
    history_open(ctx, w, &st);
    io_agree(ctx, &st, "history file", h->path);
  }
  size_t frame = (size_t)h->frames, n = (size_t)w->nx * w->ny * w->nz;
  float *buf = malloc(n * sizeof *buf + 1);
  fb_agree(ctx, buf ? 0 : FB_EXIT_RUNTIME, "out of memory for the history buffer");
  size_t start[4] = {frame, 0, (size_t)w->decomp.lo[1], (size_t)w->decomp.lo[0]};
  size_t count[4] = {1, (size_t)w->nz, (size_t)w->ny, (size_t)w->nx};
  for (int v = 0; v < H_COUNT; v++) {
    history_field(w, v, buf);
    io_put_block(ctx, h->ncid, h->varid[v], 4, start, count, buf, 1, &st);
  }
  free(buf);
  if (io_holds(ctx)) {
    char when[20];
    double t = step * w->dt, minutes = t / 60.0;
    wrf_time(t, when);
    size_t ts[2] = {frame, 0}, tc[2] = {ctx->rank == 0 ? 1 : 0, 19};
    IO(&st, nc_put_vara_text(h->ncid, h->times, ts, tc, when));
    IO(&st, nc_put_vara_double(h->ncid, h->time, ts, tc, &t));
    IO(&st, nc_put_vara_double(h->ncid, h->xtime, ts, tc, &minutes));
    IO(&st, nc_sync(h->ncid));
  }
  fb_timer_stop(&ctx->timers, PH_IO);
  if (st.rc) {
    if (io_holds(ctx)) nc_close(h->ncid);
    h->open = 0;
    io_commit(ctx, h->tmp, h->path, &st); /* removes it */
  }
  io_agree(ctx, &st, "history file", h->path);
  h->frames++;
  w->history_frames++;
  w->io_bytes += (double)H_COUNT * 4.0 * (double)w->n[0] * (double)w->n[1] * (double)w->n[2];
  w->io_s += fb_now() - t0;
  return 0;
}

/* Closes the history file and gives it its name. */
void wx_history_close(FbContext *ctx, Weather *w) {
  WxHistory *h = &w->hist;
  IoStatus st = {0, ""};
  if (!h->open) return;
  if (io_holds(ctx)) IO(&st, nc_close(h->ncid));
  h->open = 0;
  long long rc = st.rc;
  fb_allreduce_max_ll(ctx, FB_NO_PHASE, &rc, 1);
  st.rc = (int)rc;
  io_commit(ctx, h->tmp, h->path, &st);
  io_agree(ctx, &st, "history file", h->path);
}
