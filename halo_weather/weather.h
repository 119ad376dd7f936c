/* weather.h: halo_weather's grid, state, base state and phases: a 3-D dry
 * compressible dynamical core in WRF's style (C grid, flux form, RK3 with
 * split-explicit acoustic steps, vertically implicit). */
#ifndef WEATHER_H
#define WEATHER_H

#include "fabricbench.h"

#include <math.h>

enum { PH_DYNAMICS, PH_ACOUSTIC, PH_HALO, PH_REDUCTIONS, PH_IO, PH_COUNT };

/* Halo width: WRF's 5th-order horizontal advection reads 3 cells upwind. */
#define WX_HALO 3
#define WX_PATH 256

/* Physical constants (WRF's module_model_constants). */
#define WX_RD    287.0  /* J kg-1 K-1 */
#define WX_CP    1004.5 /* J kg-1 K-1, 7/2 Rd */
#define WX_G     9.81   /* m s-2 */
#define WX_P00   1.0e5  /* Pa */
#define WX_GAMMA (WX_CP / (WX_CP - WX_RD))

/* Equation of state in WRF's form: p = C0 (rho theta)^gamma with
 * C0 = (Rd / P00^(Rd/cp))^gamma. */
static inline double wx_c0(void) { return pow(WX_RD / pow(WX_P00, WX_RD / WX_CP), WX_GAMMA); }

/* State fields, in the order of the aggregated halo exchange. U, V, W are
 * momenta (rho u) on the faces of the C grid: U[i] on the west face of cell
 * i, V[j] on the south face, W[k] on the bottom face; RHO and THETA are the
 * perturbations of rho and rho*theta from the base state; Q1, Q2 tracers
 * (rho q). */
enum { F_U, F_V, F_W, F_RHO, F_THETA, F_Q1, F_Q2, NFIELDS };

typedef enum {
  CASE_BUBBLE,
  CASE_DENSITY_CURRENT,
  CASE_GRAVITY_WAVE,
  CASE_ADVECTION,
  CASE_WEATHER
} WxCase;

/* The history file while it is open (io.c). */
#define WX_HISTORY_FIELDS 9
typedef struct {
  int ncid, varid[WX_HISTORY_FIELDS], times, time, xtime;
  char tmp[4096], path[WX_PATH + 32];
  int open;
  long long frames; /* frames in the file (an appended file's earlier ones too) */
} WxHistory;

/* How a bubble's amplitude is meant: a potential temperature perturbation,
 * or a temperature one (Straka's -15 K: theta' = dT / Exner there). */
typedef enum { PERTURB_THETA, PERTURB_TEMPERATURE } WxPerturbation;

/* The command line's values (the record lists them after the run). */
typedef struct {
  const char *input, *restart, *read_restart, *outdir;
  long long steps;
  int grid[3];
} WxOptions;

typedef struct {
  WxOptions opt;
  /* deck */
  char deck_path[WX_PATH], case_name[32], output_dir[WX_PATH], restart_in[WX_PATH],
      restart_out[WX_PATH], halo_mode[16];
  long long n[3]; /* cells: west_east, south_north, bottom_top */
  double dx, dy, ztop, dt;
  long long steps, acoustic_substeps, history_every, restart_every, cfl_every;
  double theta_surface, brunt_vaisala, u0, v0;
  double bubble_dtheta, bubble_radius_x, bubble_radius_y, bubble_radius_z, bubble_x, bubble_y,
      bubble_z;
  double hyperviscosity, divergence_damping, offcentering;
  double diffusion; /* constant viscosity and diffusivity (m2 s-1) of u, v, w, theta */
  int overlap, no_output, grid[3];
  int dimensions; /* 3, or 2: an x-z case, y-independent to the bit */
  int flat;       /* a 2-D case on one row (ny = 1): see wx_ystride */
  WxPerturbation perturbation;
  char perturbation_name[16];
  char *deck_text; /* the deck's bytes (rank 0's, broadcast): into the history file */
  WxCase wcase;
  /* derived */
  double dz;
  long long total_steps; /* steps run in this invocation */
  long long start_step;  /* from a restart */
  FbDecomp decomp;
  FbHalo halo3, halo1_uv; /* width 3, all fields; width 1, two fields */
  FbHalo halo_single;     /* width 3, one field (halo_mode = per_field) */
  WxHistory hist;
  int nx, ny, nz; /* local cells */
  int ext[3];     /* nx + 6, ny + 6 (ny on one row), nz + 6 */
  size_t ncell;   /* ext product */
  /* state at the start of the step, the RK stage state, tendencies */
  double *s[NFIELDS], *s0[NFIELDS], *tend[NFIELDS];
  /* specific quantities of the stage state (u, v, w, theta, q1, q2) and work */
  double *spec[NFIELDS], *pnl, *plin, *plin_old, *rho_full;
  double *flux_plane; /* advection: x fluxes of the west faces of one i plane */
  /* base state per level, index k + WX_HALO (centres) and faces */
  double *theta0c, *theta0f, *rho0c, *p0c, *cs2c; /* cs2c = gamma p0 / Theta0 */
  /* vertical solver coefficients per distinct small step (3 RK stages) */
  double *tri_a[3], *tri_b[3], *tri_c[3], tri_dts[3];
  /* results */
  double mass0, mass1, tracer0[2], tracer1[2], energy0, energy1, checksum;
  FbLoop loop; /* the time steps, the common timing protocol */
  double loop_s, io_bytes, io_s;
  double max_courant, max_w; /* over the run */
  double w_now;              /* the largest |w| of the last check (the table's column) */
  double err_l1, err_l2, err_linf;
  /* the published cases' measures at the end: the smallest and largest theta' and,
   * for the density current, the front (x of the outermost -1 K at the lowest
   * level, from the bubble's centre); for the thermal, its top (the highest
   * cell centre where theta' >= a tenth of the initial amplitude) */
  double theta_pert_min, theta_pert_max, front_m, top_m;
  double y_dependence; /* 2-D cases: the largest difference along y (0) */
  long long history_frames;
} Weather;

/* deck.c */
void wx_parse(FbContext *ctx, Weather *w, int argc, char **argv);
/* setup.c */
void wx_setup(FbContext *ctx, Weather *w);
void wx_initial_state(Weather *w);
void wx_free(Weather *w);
double wx_exact_tracer(const Weather *w, int which, double x, double y, double z, double t);
/* The y halo layers: none on one row (a 2-D case, flat), where nothing
 * crosses y; the fields then hold that one row only. */
static inline int wx_yhalo(const Weather *w) { return w->flat ? 0 : WX_HALO; }
static inline size_t wx_idx(const Weather *w, int i, int j, int k) {
  return ((size_t)(i + WX_HALO) * (size_t)w->ext[1] + (size_t)(j + wx_yhalo(w))) *
             (size_t)w->ext[2] +
         (size_t)(k + WX_HALO);
}
/* The stride between a cell and its y neighbour in the stencils. A 2-D
 * case on one row (flat) has no y halo and no y neighbour: the stencils
 * read the cell itself, which is what the neighbours of a y-independent
 * state hold, so every y difference is exactly zero, as it is on three
 * rows (the same bits; tests/e2e/halo_weather.sh compares them), and V,
 * whose tendencies are then all zero, is left at zero untouched. */
static inline ptrdiff_t wx_ystride(const Weather *w) { return w->flat ? 0 : w->ext[2]; }
/* Exner function of the base state at level k (centres). */
static inline double wx_exner0(const Weather *w, int k) {
  return pow(w->p0c[k + WX_HALO] / WX_P00, WX_RD / WX_CP);
}
/* theta' = theta - theta0(z) of a cell. */
static inline double wx_theta_pert(const Weather *w, int i, int j, int k) {
  size_t c = wx_idx(w, i, j, k);
  double rho = w->rho0c[k + WX_HALO] + w->s[F_RHO][c];
  double big = w->rho0c[k + WX_HALO] * w->theta0c[k + WX_HALO] + w->s[F_THETA][c];
  return big / rho - w->theta0c[k + WX_HALO];
}
/* dynamics.c: one RK3 step of the large-step dynamics with acoustic substeps */
void wx_step(FbContext *ctx, Weather *w);
void wx_exchange(FbContext *ctx, Weather *w, double **fields);
/* acoustic.c */
void wx_acoustic_prepare(Weather *w);
void wx_acoustic(FbContext *ctx, Weather *w, int stage, double dt_stage);
/* run.c */
void wx_start(FbContext *ctx, Weather *w);
void wx_run(FbContext *ctx, Weather *w);
void wx_finish(FbContext *ctx, Weather *w);
/* io.c: the history file */
int wx_history_write(FbContext *ctx, Weather *w, long long step);
void wx_history_path(const Weather *w, char *path, size_t len);
void wx_history_close(FbContext *ctx, Weather *w);
/* restart.c */
int wx_restart_write(FbContext *ctx, Weather *w, long long step, int interval);
void wx_restart_path(const Weather *w, char *path, size_t len);
int wx_restart_read(FbContext *ctx, Weather *w, char *err, size_t len);
/* wx_comm.c: rank 0 gathers every rank's block (serial NetCDF writes) */
typedef struct {
  unsigned long long *meta; /* 8 per rank */
  int *offset;              /* of each rank's bytes in data */
  char *data;
} WxGathered;
int wx_gather_blocks(FbContext *ctx, const unsigned long long meta[8], const void *data,
                     size_t bytes, WxGathered *g);
void wx_gathered_free(WxGathered *g);
/* validate.c */
void wx_diagnostics(FbContext *ctx, Weather *w, double *mass, double tracer[2], double *energy);
double wx_checksum(FbContext *ctx, Weather *w);
void wx_courant(FbContext *ctx, Weather *w, long long step);
void wx_advection_errors(FbContext *ctx, Weather *w);
void wx_case_measures(FbContext *ctx, Weather *w);
void wx_validate(FbContext *ctx, Weather *w, FbResult *r);
void wx_fill_result(FbContext *ctx, Weather *w, FbResult *r, char *json, size_t len);

#endif
