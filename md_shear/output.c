/* output.c: step-0 forces as text, and H5MD files (HDF5): a trajectory of
 * positions, and a double-precision restart that md reads back. Rank 0
 * writes after gathering; files are written under a temporary name and
 * renamed when complete, so no half-written file is ever left. */
#include "md.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#define H5MD_VERSION_MAJOR 1
#define H5MD_VERSION_MINOR 1

void md_write_forces(FbContext *ctx, Md *md) {
  double *f = ctx->rank == 0 ? malloc((size_t)md->natoms * 3 * sizeof *f + 1) : NULL;
  fb_agree(ctx, ctx->rank == 0 && !f ? FB_EXIT_RUNTIME : 0, "out of memory for the force dump");
  md_gather_owned(ctx, md, &md->atoms.f[0][0], 3, f);
  int rc = 0;
  char msg[FB_MSG_LEN] = "";
  if (ctx->rank == 0) {
    size_t cap = (size_t)md->natoms * 80 + 128, at = 0;
    char *text = malloc(cap);
    if (text) {
      at += (size_t)snprintf(text, cap, "# id fx fy fz at step 0 (%s units)\n", md->units.name);
      for (long long k = 0; k < md->natoms; k++)
        at += (size_t)snprintf(text + at, cap - at, "%lld %.17g %.17g %.17g\n", md_tag(md, k + 1),
                               f[3 * k], f[3 * k + 1], f[3 * k + 2]);
    }
    int err = text ? fb_write_file_atomic(md->forces_out, text, at) : ENOMEM;
    if (err) {
      rc = FB_EXIT_RUNTIME;
      snprintf(msg, sizeof msg, "cannot write %s: %s", md->forces_out, strerror(err));
    }
    free(text);
    free(f);
  }
  fb_agree_root(ctx, rc, msg);
}

/* ---------------------------------------------------------------- HDF5 help */

static void attr_int(hid_t loc, const char *name, const int *v, hsize_t n) {
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t at = H5Acreate2(loc, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(at, H5T_NATIVE_INT, v);
  H5Aclose(at);
  H5Sclose(sp);
}

static void attr_str(hid_t loc, const char *name, const char *v) {
  hid_t ty = H5Tcopy(H5T_C_S1);
  H5Tset_size(ty, strlen(v) + 1);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t at = H5Acreate2(loc, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(at, ty, v);
  H5Aclose(at);
  H5Sclose(sp);
  H5Tclose(ty);
}

/* An attribute of up to 3 fixed-length strings (H5MD's box boundary). The
 * buffer is zeroed: the bytes after each string go into the file too. */
static void attr_strs(hid_t loc, const char *name, const char *const *v, int n) {
  char buf[3][16];
  memset(buf, 0, sizeof buf);
  if (n > 3) n = 3;
  for (int k = 0; k < n; k++) snprintf(buf[k], sizeof buf[k], "%s", v[k]);
  hid_t ty = H5Tcopy(H5T_C_S1);
  H5Tset_size(ty, sizeof buf[0]);
  hsize_t dims = (hsize_t)n;
  hid_t sp = H5Screate_simple(1, &dims, NULL);
  hid_t at = H5Acreate2(loc, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(at, ty, buf);
  H5Aclose(at);
  H5Sclose(sp);
  H5Tclose(ty);
}

/* An open dataset of the file type given, to be written. */
static hid_t dataset_typed(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims) {
  hid_t sp = H5Screate_simple(rank, dims, NULL);
  hid_t ds = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(sp);
  return ds;
}

static void dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                    const void *data) {
  hid_t ds = dataset_typed(loc, name, type, rank, dims);
  H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(ds);
}

/* The H5MD header and the particles group with its box. */
static hid_t h5md_create(const Md *md, const char *path, hid_t *all) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return f;
  hid_t h = H5Gcreate2(f, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int version[2] = {H5MD_VERSION_MAJOR, H5MD_VERSION_MINOR};
  attr_int(h, "version", version, 2);
  hid_t g = H5Gcreate2(h, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  attr_str(g, "name", "fabricbench");
  H5Gclose(g);
  g = H5Gcreate2(h, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  attr_str(g, "name", "fabricbench md_shear");
  attr_str(g, "version", fb_version());
  H5Gclose(g);
  H5Gclose(h);
  hid_t p = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  *all = H5Gcreate2(p, "all", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(p);
  hid_t box = H5Gcreate2(*all, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int dim = 3;
  attr_int(box, "dimension", &dim, 1);
  const char *bnd[3];
  for (int d = 0; d < 3; d++) bnd[d] = md->periodic[d] ? "periodic" : "none";
  attr_strs(box, "boundary", bnd, 3);
  hsize_t three = 3, matrix[2] = {3, 3};
  /* H5MD: a triclinic box's edges are a matrix, one edge vector a row */
  const double edges[9] = {md->h[0], 0.0,      0.0,      md->h[5], md->h[1],
                           0.0,      md->h[4], md->h[3], md->h[2]};
  if (md->triclinic)
    dataset(box, "edges", H5T_NATIVE_DOUBLE, 2, matrix, edges);
  else
    dataset(box, "edges", H5T_NATIVE_DOUBLE, 1, &three, md->prd);
  /* (a tilted box's edges are the box now's, so is its corner) */
  dataset(box, "offset", H5T_NATIVE_DOUBLE, 1, &three, md->triclinic ? md->simlo : md->boxlo);
  H5Gclose(box);
  if (md->tags) { /* H5MD's id element, fixed in time: the data file's ids, in row order */
    hsize_t n = (hsize_t)md->natoms;
    dataset(*all, "id", H5T_NATIVE_LLONG, 1, &n, md->tags);
  }
  return f;
}

/* Gathers per-atom ids-ordered x, v, (type, group) and image flags on rank 0. */
typedef struct {
  double *x, *v, *tg, *image;
} Gathered;

static int gather_state(FbContext *ctx, const Md *md, Gathered *g) {
  const MdAtoms *a = &md->atoms;
  size_t n3 = (size_t)md->natoms * 3;
  memset(g, 0, sizeof *g);
  double(*tg)[3] = malloc(((size_t)a->n_local + 1) * sizeof *tg);
  double(*image)[3] = malloc(((size_t)a->n_local + 1) * sizeof *image);
  int bad = !tg || !image;
  if (ctx->rank == 0) {
    g->x = malloc(n3 * sizeof *g->x);
    g->v = malloc(n3 * sizeof *g->v);
    g->tg = malloc(n3 * sizeof *g->tg);
    g->image = malloc(n3 * sizeof *g->image);
    bad |= !g->x || !g->v || !g->tg || !g->image;
  }
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory gathering the atoms for output");
  for (int i = 0; i < a->n_local; i++) {
    tg[i][0] = a->type[i];
    tg[i][1] = a->group[i];
    tg[i][2] = 0;
    for (int d = 0; d < 3; d++) image[i][d] = a->image[i][d];
  }
  md_gather_owned(ctx, md, &a->x[0][0], 3, g->x);
  md_gather_owned(ctx, md, &a->v[0][0], 3, g->v);
  md_gather_owned(ctx, md, &tg[0][0], 3, g->tg);
  md_gather_owned(ctx, md, &image[0][0], 3, g->image);
  free(tg);
  free(image);
  return 0;
}

/* Column c of the gathered (type, group) triples as an int dataset. */
static void int_column(hid_t loc, const char *name, const double *tg, int c, long long natoms) {
  hsize_t n = (hsize_t)natoms;
  int *v = malloc((size_t)natoms * sizeof *v + 1);
  if (!v) return;
  for (long long k = 0; k < natoms; k++) v[k] = (int)tg[3 * k + c];
  dataset(loc, name, H5T_NATIVE_INT, 1, &n, v);
  free(v);
}

static void free_gathered(Gathered *g) {
  free(g->x);
  free(g->v);
  free(g->tg);
  free(g->image);
}

/* ------------------------------------------------------------ trajectory */

/* A time series group (step, time, value[frame][N][width]) with room to grow. */
static void series_create(hid_t all, const char *name, long long natoms, int width) {
  hid_t g = H5Gcreate2(all, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int rank = width == 1 ? 2 : 3;
  hsize_t dims[3] = {0, (hsize_t)natoms, 3}, maxd[3] = {H5S_UNLIMITED, (hsize_t)natoms, 3};
  hsize_t chunk[3] = {1, (hsize_t)natoms, 3};
  hid_t cp = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(cp, rank, chunk);
  hid_t sp = H5Screate_simple(rank, dims, maxd);
  H5Dclose(H5Dcreate2(g, "value", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, cp, H5P_DEFAULT));
  H5Sclose(sp);
  H5Pclose(cp);
  hsize_t d1 = 0, m1 = H5S_UNLIMITED, c1 = 64;
  cp = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(cp, 1, &c1);
  sp = H5Screate_simple(1, &d1, &m1);
  H5Dclose(H5Dcreate2(g, "step", H5T_NATIVE_LLONG, sp, H5P_DEFAULT, cp, H5P_DEFAULT));
  H5Dclose(H5Dcreate2(g, "time", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, cp, H5P_DEFAULT));
  H5Sclose(sp);
  H5Pclose(cp);
  H5Gclose(g);
}

static void series_append(hid_t all, const char *name, long long frame, long long natoms, int width,
                          const double *values, long long step, double time) {
  hid_t g = H5Gopen2(all, name, H5P_DEFAULT);
  size_t n = (size_t)natoms * (size_t)width;
  float *buf = malloc(n * sizeof *buf + 1);
  for (size_t k = 0; buf && k < n; k++) buf[k] = (float)values[k];
  hid_t ds = H5Dopen2(g, "value", H5P_DEFAULT);
  int rank = width == 1 ? 2 : 3;
  hsize_t dims[3] = {(hsize_t)frame + 1, (hsize_t)natoms, 3}, start[3] = {(hsize_t)frame, 0, 0},
          count[3] = {1, (hsize_t)natoms, 3};
  H5Dset_extent(ds, dims);
  hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(rank, count, NULL);
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  if (buf) H5Dwrite(ds, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  const char *names[2] = {"step", "time"};
  for (int k = 0; k < 2; k++) {
    ds = H5Dopen2(g, names[k], H5P_DEFAULT);
    hsize_t len = (hsize_t)frame + 1, at = (hsize_t)frame, one = 1;
    H5Dset_extent(ds, &len);
    fs = H5Dget_space(ds);
    ms = H5Screate_simple(1, &one, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &one, NULL);
    if (k == 0)
      H5Dwrite(ds, H5T_NATIVE_LLONG, ms, fs, H5P_DEFAULT, &step);
    else
      H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &time);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(ds);
  }
  free(buf);
  H5Gclose(g);
}

/* Per-atom forces and energies in id order on rank 0 (trajectory, dump). */
static void gather_forces(FbContext *ctx, const Md *md, double **f, double **e) {
  *f = *e = NULL;
  if (ctx->rank == 0) {
    *f = malloc((size_t)md->natoms * 3 * sizeof **f + 1);
    *e = malloc((size_t)md->natoms * sizeof **e + 1);
  }
  fb_agree(ctx, ctx->rank == 0 && (!*f || !*e) ? FB_EXIT_RUNTIME : 0,
           "out of memory gathering forces");
  md_gather_owned(ctx, md, &md->atoms.f[0][0], 3, *f);
  md_gather_owned(ctx, md, md->atoms.eatom, 1, *e);
}

/* One H5MD frame of the last run: positions, forces and per-atom energies. */
void md_trajectory_frame(FbContext *ctx, Md *md) {
  fb_timer_start(&ctx->timers, PH_OUTPUT);
  Gathered g;
  gather_state(ctx, md, &g);
  double *f, *e;
  gather_forces(ctx, md, &f, &e);
  int rc = 0;
  MdTrajectory *t = &md->traj;
  if (ctx->rank == 0) {
    if (t->file < 0) {
      char target[4096];
      if (fb_output_target(md->trajectory, target, sizeof target) == 0 &&
          fb_temp_begin(target, t->tmp, sizeof t->tmp) == 0) {
        hid_t all;
        t->file = h5md_create(md, t->tmp, &all);
        t->all = all;
      }
      if (t->file >= 0) {
        series_create(t->all, "position", md->natoms, 3);
        series_create(t->all, "force", md->natoms, 3);
        series_create(t->all, "potential_energy", md->natoms, 1);
        int_column(t->all, "species", g.tg, 0, md->natoms);
      }
    }
    if (t->file < 0) {
      rc = FB_EXIT_RUNTIME;
    } else {
      double time = md->step * md->dt;
      series_append(t->all, "position", t->frames, md->natoms, 3, g.x, md->step, time);
      series_append(t->all, "force", t->frames, md->natoms, 3, f, md->step, time);
      series_append(t->all, "potential_energy", t->frames, md->natoms, 1, e, md->step, time);
      t->frames++;
    }
  }
  free_gathered(&g);
  free(f);
  free(e);
  fb_timer_stop(&ctx->timers, PH_OUTPUT);
  fb_agree_root(ctx, rc, "cannot create the trajectory file");
}

/* ------------------------------------------------------------------ dump */

/* One frame of LAMMPS's dump custom (sorted by id), 17 digits. */
void md_dump_frame(FbContext *ctx, Md *md) {
  fb_timer_start(&ctx->timers, PH_OUTPUT);
  Gathered g;
  gather_state(ctx, md, &g);
  double *f, *e;
  gather_forces(ctx, md, &f, &e);
  int rc = 0;
  if (ctx->rank == 0) {
    if (!md->dump_file) {
      char target[4096];
      if (fb_output_target(md->dump_path, target, sizeof target) == 0 &&
          fb_temp_begin(target, md->dump_tmp, sizeof md->dump_tmp) == 0)
        md->dump_file = fopen(md->dump_tmp, "w");
    }
    FILE *out = md->dump_file;
    if (!out) {
      rc = FB_EXIT_RUNTIME;
    } else {
      fprintf(out, "ITEM: TIMESTEP\n%lld\nITEM: NUMBER OF ATOMS\n%lld\nITEM: BOX BOUNDS%s",
              md->step, md->natoms, md->triclinic ? " xy xz yz" : "");
      for (int d = 0; d < 3; d++) fprintf(out, " %c%c", md->boundary[d], md->boundary[d]);
      fprintf(out, "\n");
      if (md->triclinic) { /* LAMMPS's: the bounding box (Domain's boxlo_bound) and a tilt */
        const double *lo = md->simlo, *hi = md->simhi, xy = md->tilt[0], xz = md->tilt[1],
                     yz = md->tilt[2];
        fprintf(out, "%.17g %.17g %.17g\n",
                fmin(fmin(lo[0], lo[0] + xy), fmin(lo[0], lo[0] + xy) + xz),
                fmax(fmax(hi[0], hi[0] + xy), fmax(hi[0], hi[0] + xy) + xz), xy);
        fprintf(out, "%.17g %.17g %.17g\n", fmin(lo[1], lo[1] + yz), fmax(hi[1], hi[1] + yz), xz);
        fprintf(out, "%.17g %.17g %.17g\n", lo[2], hi[2], yz);
      } else {
        for (int d = 0; d < 3; d++) fprintf(out, "%.17g %.17g\n", md->simlo[d], md->simhi[d]);
      }
      fprintf(out, "ITEM: ATOMS");
      for (int c = 0; c < md->n_dump_columns; c++)
        fprintf(out, " %s", md_dump_words[md->dump_column[c]]);
      fprintf(out, "\n");
      for (long long k = 0; k < md->natoms; k++) {
        for (int c = 0; c < md->n_dump_columns; c++) {
          int key = md->dump_column[c];
          const char *sep = c ? " " : "";
          if (key == DU_ID)
            fprintf(out, "%s%lld", sep, md_tag(md, k + 1));
          else if (key == DU_TYPE)
            fprintf(out, "%s%d", sep, (int)g.tg[3 * k] + 1);
          else if (key <= DU_Z)
            fprintf(out, "%s%.17g", sep, g.x[3 * k + key - DU_X]);
          else if (key <= DU_VZ)
            fprintf(out, "%s%.17g", sep, g.v[3 * k + key - DU_VX]);
          else if (key <= DU_FZ)
            fprintf(out, "%s%.17g", sep, f[3 * k + key - DU_FX]);
          else if (key == DU_PE)
            fprintf(out, "%s%.17g", sep, e[k]);
          else if (key <= DU_ZU) { /* LAMMPS's xu: x + ix * the box length (edge vectors) */
            const int img[3] = {(int)g.image[3 * k], (int)g.image[3 * k + 1],
                                (int)g.image[3 * k + 2]};
            double u[3];
            md_unmap(md, &g.x[3 * k], img, u);
            fprintf(out, "%s%.17g", sep, u[key - DU_XU]);
          } else
            fprintf(out, "%s%d", sep, (int)g.image[3 * k + key - DU_IX]);
        }
        fprintf(out, "\n");
      }
      if (ferror(out)) rc = FB_EXIT_RUNTIME;
    }
  }
  free_gathered(&g);
  free(f);
  free(e);
  fb_timer_stop(&ctx->timers, PH_OUTPUT);
  fb_agree_root(ctx, rc, "cannot write the dump file");
}

/* Closes the trajectory and the dump and gives them their names (keep = 0:
 * removes them). */
void md_outputs_close(FbContext *ctx, Md *md, int keep) {
  int rc = 0;
  char msg[FB_MSG_LEN] = "";
  if (ctx->rank == 0 && md->traj.file >= 0) {
    H5Gclose(md->traj.all);
    int bad = H5Fclose(md->traj.file) < 0;
    md->traj.file = -1;
    char target[4096];
    if (!keep || bad || fb_output_target(md->trajectory, target, sizeof target) ||
        fb_temp_commit(md->traj.tmp, target)) {
      fb_temp_discard(md->traj.tmp);
      if (keep)
        rc = FB_EXIT_RUNTIME,
        snprintf(msg, sizeof msg, "cannot write the trajectory %s", md->trajectory);
    }
  }
  if (ctx->rank == 0 && md->dump_file) {
    int bad = fclose(md->dump_file) != 0;
    md->dump_file = NULL;
    char target[4096];
    if (!keep || bad || fb_output_target(md->dump_path, target, sizeof target) ||
        fb_temp_commit(md->dump_tmp, target)) {
      fb_temp_discard(md->dump_tmp);
      if (keep)
        rc = FB_EXIT_RUNTIME, snprintf(msg, sizeof msg, "cannot write the dump %s", md->dump_path);
    }
  }
  fb_agree_root(ctx, rc, msg);
}

/* --------------------------------------------------------------- restart */

void md_restart_write(FbContext *ctx, Md *md) {
  fb_timer_start(&ctx->timers, PH_OUTPUT);
  Gathered g;
  gather_state(ctx, md, &g);
  int rc = 0;
  if (ctx->rank == 0) {
    char tmp[4096], target[4096];
    hid_t all, f = -1;
    if (fb_output_target(md->restart_out, target, sizeof target) == 0 &&
        fb_temp_begin(target, tmp, sizeof tmp) == 0)
      f = h5md_create(md, tmp, &all);
    if (f < 0)
      rc = FB_EXIT_RUNTIME;
    else {
      hsize_t dims[2] = {(hsize_t)md->natoms, 3};
      const char *names[3] = {"position", "velocity", "image"}; /* image: H5MD's, as ints */
      const double *data[3] = {g.x, g.v, g.image};
      for (int k = 0; k < 3; k++) {
        hid_t s = H5Gcreate2(all, names[k], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t ds = dataset_typed(s, "value", k == 2 ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, 2, dims);
        H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data[k]);
        H5Dclose(ds);
        hsize_t one = 1;
        double time = md->step * md->dt;
        dataset(s, "step", H5T_NATIVE_LLONG, 1, &one, &md->step);
        dataset(s, "time", H5T_NATIVE_DOUBLE, 1, &one, &time);
        H5Gclose(s);
      }
      int_column(all, "species", g.tg, 0, md->natoms);
      int_column(all, "group", g.tg, 1, md->natoms);
      H5Gclose(all);
      hid_t p = H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      hid_t fbg = H5Gcreate2(p, "fabricbench", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      hsize_t one = 1, three = 3;
      long long state[5] = {md->step, md->stage, md->natoms, md->ntypes, md->stage_begin};
      hsize_t five = 5;
      dataset(fbg, "state", H5T_NATIVE_LLONG, 1, &five, state);
      dataset(fbg, "boxlo", H5T_NATIVE_DOUBLE, 1, &three, md->boxlo);
      dataset(fbg, "boxhi", H5T_NATIVE_DOUBLE, 1, &three, md->boxhi);
      dataset(fbg, "tilt", H5T_NATIVE_DOUBLE, 1, &three, md->tilt);
      dataset(fbg, "simlo", H5T_NATIVE_DOUBLE, 1, &three, md->simlo);
      dataset(fbg, "simhi", H5T_NATIVE_DOUBLE, 1, &three, md->simhi);
      dataset(fbg, "splitlo", H5T_NATIVE_DOUBLE, 1, &three, md->splitlo);
      dataset(fbg, "splithi", H5T_NATIVE_DOUBLE, 1, &three, md->splithi);
      dataset(fbg, "spacing", H5T_NATIVE_DOUBLE, 1, &three, md->spacing);
      dataset(fbg, "timestep", H5T_NATIVE_DOUBLE, 1, &one, &md->dt);
      hsize_t types = (hsize_t)md->ntypes; /* the masses used, as LAMMPS's restarts keep them */
      dataset(fbg, "mass", H5T_NATIVE_DOUBLE, 1, &types, md->mass);
      H5Gclose(fbg);
      H5Gclose(p);
      if (H5Fclose(f) < 0) {
        fb_temp_discard(tmp);
        rc = FB_EXIT_RUNTIME;
      } else if (fb_temp_commit(tmp, target)) {
        rc = FB_EXIT_RUNTIME;
      }
    }
  }
  free_gathered(&g);
  fb_timer_stop(&ctx->timers, PH_OUTPUT);
  fb_agree_root(ctx, rc, "cannot write the restart file");
}

static int read_ds(hid_t f, const char *name, hid_t type, void *dest, hsize_t want) {
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) return -1;
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  if (ds < 0) return -1;
  hid_t sp = H5Dget_space(ds);
  hssize_t n = H5Sget_simple_extent_npoints(sp);
  int rc =
      n == (hssize_t)want && H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, dest) >= 0 ? 0 : -1;
  H5Sclose(sp);
  H5Dclose(ds);
  return rc;
}

/* The restart's state (step, run, atoms, types, box): checked against the
 * deck; on the first pass (nothing allocated yet) it sets up the box. */
static int restart_state(hid_t f, Md *md, const char *path, char *err, size_t len) {
  long long state[5];
  double lo[3], hi[3], spacing[3], dt;
  if (read_ds(f, "/parameters/fabricbench/state", H5T_NATIVE_LLONG, state, 5) ||
      read_ds(f, "/parameters/fabricbench/boxlo", H5T_NATIVE_DOUBLE, lo, 3) ||
      read_ds(f, "/parameters/fabricbench/boxhi", H5T_NATIVE_DOUBLE, hi, 3) ||
      read_ds(f, "/parameters/fabricbench/spacing", H5T_NATIVE_DOUBLE, spacing, 3) ||
      read_ds(f, "/parameters/fabricbench/timestep", H5T_NATIVE_DOUBLE, &dt, 1)) {
    snprintf(err, len, "%s: not an md restart (no /parameters/fabricbench state)", path);
    return FB_EXIT_USAGE;
  }
  if (state[2] < 1 || state[1] < 0 || state[1] >= md->nstages || state[3] < 1 ||
      state[3] > MD_MAX_TYPES || (md->ntypes_deck && state[3] != md->ntypes_deck)) {
    snprintf(err, len,
             "%s: a restart of another system (%lld types, run %lld; the deck has %d runs)", path,
             state[3], state[1] + 1, md->nstages);
    return FB_EXIT_USAGE;
  }
  if (md->atoms.cap == 0 && md->natoms == 0) { /* first pass: the box */
    memcpy(md->boxlo, lo, sizeof lo);
    memcpy(md->boxhi, hi, sizeof hi);
    /* the box its sub-boxes divided (restarts before it was kept: the box) */
    if (read_ds(f, "/parameters/fabricbench/splitlo", H5T_NATIVE_DOUBLE, md->splitlo, 3) ||
        read_ds(f, "/parameters/fabricbench/splithi", H5T_NATIVE_DOUBLE, md->splithi, 3)) {
      memcpy(md->splitlo, lo, sizeof lo);
      memcpy(md->splithi, hi, sizeof hi);
    }
    for (int d = 0; d < 3; d++) /* older restarts of lattice-less runs held 0: LAMMPS's 1 */
      md->spacing[d] = spacing[d] > 0.0 ? spacing[d] : 1.0;
    /* a tilted box's xy xz yz (restarts before they were kept: orthogonal) */
    if (read_ds(f, "/parameters/fabricbench/tilt", H5T_NATIVE_DOUBLE, md->tilt, 3))
      memset(md->tilt, 0, sizeof md->tilt);
    md->triclinic = md->tilt[0] != 0.0 || md->tilt[1] != 0.0 || md->tilt[2] != 0.0;
    md_initial_box(md);
    /* the box the run had (shrink-wrapped): a tilted box's lamda coordinates
     * are in it (restarts before it was kept: the declared box) */
    double now_lo[3], now_hi[3];
    if (read_ds(f, "/parameters/fabricbench/simlo", H5T_NATIVE_DOUBLE, now_lo, 3) == 0 &&
        read_ds(f, "/parameters/fabricbench/simhi", H5T_NATIVE_DOUBLE, now_hi, 3) == 0) {
      memcpy(md->simlo, now_lo, sizeof now_lo);
      memcpy(md->simhi, now_hi, sizeof now_hi);
      md_set_frame(md);
    }
    md->natoms = state[2];
    md->ntypes = (int)state[3];
    md->start_step = state[0];
    md->start_stage = (int)state[1];
    md->stage_begin = state[4];
    /* the masses the run used (restarts before they were kept: the deck's) */
    if (read_ds(f, "/parameters/fabricbench/mass", H5T_NATIVE_DOUBLE, md->mass_data,
                (hsize_t)md->ntypes) == 0)
      md->mass_data_given = 1;
  }
  return 0;
}

/* The data file's ids, when the run that wrote the restart had them
 * (particles/all/id): ascending and positive, one per atom. */
static int restart_tags(hid_t f, Md *md, const char *path, char *err, size_t len) {
  if (H5Lexists(f, "/particles/all/id", H5P_DEFAULT) <= 0) return 0;
  long long n = md->natoms;
  md->tags = malloc((size_t)n * sizeof *md->tags);
  if (!md->tags) return snprintf(err, len, "out of memory"), FB_EXIT_RUNTIME;
  int bad =
      read_ds(f, "/particles/all/id", H5T_NATIVE_LLONG, md->tags, (hsize_t)n) || md->tags[0] < 1;
  for (long long k = 1; k < n && !bad; k++) bad = md->tags[k] <= md->tags[k - 1];
  if (bad) {
    snprintf(err, len, "%s: damaged restart: bad particles/all/id", path);
    return FB_EXIT_USAGE;
  }
  return 0;
}

/* The atoms: every rank reads them all and keeps those in its sub-box. */
static int restart_atoms(hid_t f, Md *md, const char *path, char *err, size_t len) {
  size_t n = (size_t)md->natoms;
  double *x = malloc(n * 3 * sizeof *x), *v = malloc(n * 3 * sizeof *v);
  int *species = malloc(n * sizeof *species), *group = malloc(n * sizeof *group);
  int rc = 0;
  if (!x || !v || !species || !group) {
    rc = FB_EXIT_RUNTIME;
    snprintf(err, len, "out of memory reading %s", path);
  } else if (read_ds(f, "/particles/all/position/value", H5T_NATIVE_DOUBLE, x, n * 3) ||
             read_ds(f, "/particles/all/velocity/value", H5T_NATIVE_DOUBLE, v, n * 3) ||
             read_ds(f, "/particles/all/species", H5T_NATIVE_INT, species, n) ||
             read_ds(f, "/particles/all/group", H5T_NATIVE_INT, group, n)) {
    rc = FB_EXIT_USAGE;
    snprintf(err, len,
             "%s: damaged restart: positions, velocities, species or groups missing or short",
             path);
  }
  /* image flags: absent from restarts written before md kept them (then 0) */
  int *image = rc ? NULL : calloc(n * 3 + 1, sizeof *image);
  if (!rc && !image) {
    rc = FB_EXIT_RUNTIME;
    snprintf(err, len, "out of memory reading %s", path);
  } else if (!rc && H5Lexists(f, "/particles/all/image", H5P_DEFAULT) > 0 &&
             read_ds(f, "/particles/all/image/value", H5T_NATIVE_INT, image, n * 3)) {
    rc = FB_EXIT_USAGE;
    snprintf(err, len, "%s: damaged restart: image flags short", path);
  }
  for (size_t k = 0; !rc && k < n; k++) {
    if (species[k] < 0 || species[k] >= md->ntypes) {
      rc = FB_EXIT_USAGE;
      snprintf(err, len, "%s: damaged restart: bad species", path);
      break;
    }
    double xyz[3] = {x[3 * k], x[3 * k + 1], x[3 * k + 2]};
    if (!md_owns(md, xyz)) continue;
    MdAtoms *a = &md->atoms;
    if (md_atoms_reserve(a, a->n_local + 1)) {
      rc = FB_EXIT_RUNTIME;
      snprintf(err, len, "out of memory");
      break;
    }
    int i = a->n_local++;
    memcpy(a->x[i], xyz, sizeof xyz);
    memcpy(a->v[i], v + 3 * k, 3 * sizeof *v);
    a->id[i] = (long long)k + 1;
    a->type[i] = species[k];
    a->group[i] = group[k];
    memcpy(a->image[i], image + 3 * k, sizeof a->image[i]);
  }
  free(image);
  free(x);
  free(v);
  free(species);
  free(group);
  return rc;
}

/* Called twice: first for the box and the counts (before the decomposition),
 * then for the atoms of this rank. */
int md_restart_read(FbContext *ctx, Md *md, char *err, size_t len) {
  (void)ctx;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  const char *path = md->restart_in;
  char why[FB_MSG_LEN];
  if (fb_input_problem(path, why, sizeof why)) { /* never open a FIFO or a device */
    snprintf(err, len, "option --read-restart: %s", why);
    return FB_EXIT_USAGE;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    snprintf(err, len, "%s: not an HDF5 file (damaged or not a restart)", path);
    return FB_EXIT_USAGE;
  }
  int first_pass = md->atoms.cap == 0 && md->natoms == 0;
  int rc = restart_state(f, md, path, err, len);
  if (!rc && !first_pass) rc = restart_tags(f, md, path, err, len);
  if (!rc && !first_pass) rc = restart_atoms(f, md, path, err, len);
  H5Fclose(f);
  return rc;
}
