/* deck.c: halo_weather's command line and input deck (inputs/weather/NAME.ini).
 * Every key is checked; so are the time step against the acoustic and
 * advective Courant limits and the grid against the halo on every rank. */
#include "weather.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Stability limits of the schemes, checked before a run starts:
 * - forward-backward acoustic small steps on the C grid are stable for
 *   c dts sqrt(1/dx^2 + 1/dy^2) < 1 (Skamarock and Klemp 1992); we keep 10%
 *   margin for divergence damping;
 * - WRF's RK3 with 5th-order upwind advection is stable to a Courant number
 *   of 1.42 in one dimension (Wicker and Skamarock 2002); summed over x and
 *   y we ask 1.2. */
#define WX_MAX_ACOUSTIC_COURANT  0.9
#define WX_MAX_ADVECTIVE_COURANT 1.2
/* Largest wind a case adds to the mean wind, for the advective check (m/s):
 * thermal bubbles and density currents reach 15-30 m/s. */
#define WX_CASE_WIND_BUBBLE 30.0
/* Explicit diffusion in the RK3 large step: the forward-time, centred-space
 * limit nu dt (1/dx^2 + 1/dy^2 + 1/dz^2) <= 1/2; RK3's stability region
 * along the negative real axis (2.51) gives room, we ask 1/2. */
#define WX_MAX_DIFFUSION_NUMBER 0.5

static void deck_fail(FbContext *ctx, const Weather *w, const char *section, const char *key,
                      const char *what) {
  fb_deck_fail(ctx, w->deck_path, section, key, what);
}

static void read_deck(FbContext *ctx, Weather *w) {
  double nan_ = NAN;
  long long dims = 3;
  w->bubble_x = w->bubble_y = nan_;
  FbDeckKey keys[] = {
      {"grid", "nx", FB_KEY_INT, &w->n[0], 1, 1e6, 0},
      {"grid", "ny", FB_KEY_INT, &w->n[1], 1, 1e6, 0},
      {"grid", "nz", FB_KEY_INT, &w->n[2], 4, 1e4, 0},
      {"grid", "dx", FB_KEY_DOUBLE, &w->dx, 1.0, 1e7, 0},
      {"grid", "dy", FB_KEY_DOUBLE, &w->dy, 1.0, 1e7, 0},
      {"grid", "ztop", FB_KEY_DOUBLE, &w->ztop, 10.0, 1e6, 0},
      {"grid", "dimensions", FB_KEY_INT, &dims, 2, 3, 0},
      {"time", "dt", FB_KEY_DOUBLE, &w->dt, 1e-6, 1e5, 0},
      {"time", "steps", FB_KEY_INT, &w->steps, 0, 1e9, 0},
      {"time", "acoustic_substeps", FB_KEY_INT, &w->acoustic_substeps, 1, 1000, 0},
      {"physics", "case", FB_KEY_STRING, w->case_name, 0, 0, 0},
      {"physics", "theta_surface", FB_KEY_DOUBLE, &w->theta_surface, 150.0, 500.0, 0},
      {"physics", "brunt_vaisala", FB_KEY_DOUBLE, &w->brunt_vaisala, 0.0, 0.05, 0},
      {"physics", "u0", FB_KEY_DOUBLE, &w->u0, -200.0, 200.0, 0},
      {"physics", "v0", FB_KEY_DOUBLE, &w->v0, -200.0, 200.0, 0},
      {"physics", "bubble_dtheta", FB_KEY_DOUBLE, &w->bubble_dtheta, -50.0, 50.0, 0},
      {"physics", "bubble_perturbation", FB_KEY_STRING, w->perturbation_name, 0, 0, 0},
      {"physics", "bubble_radius_x", FB_KEY_DOUBLE, &w->bubble_radius_x, 1.0, 1e7, 0},
      {"physics", "bubble_radius_y", FB_KEY_DOUBLE, &w->bubble_radius_y, 1.0, 1e7, 0},
      {"physics", "bubble_radius_z", FB_KEY_DOUBLE, &w->bubble_radius_z, 1.0, 1e6, 0},
      {"physics", "bubble_x", FB_KEY_DOUBLE, &w->bubble_x, 0.0, 1e9, 0},
      {"physics", "bubble_y", FB_KEY_DOUBLE, &w->bubble_y, 0.0, 1e9, 0},
      {"physics", "bubble_z", FB_KEY_DOUBLE, &w->bubble_z, 0.0, 1e6, 0},
      {"physics", "hyperviscosity", FB_KEY_DOUBLE, &w->hyperviscosity, 0.0, 0.25, 0},
      {"physics", "divergence_damping", FB_KEY_DOUBLE, &w->divergence_damping, 0.0, 0.5, 0},
      {"physics", "offcentering", FB_KEY_DOUBLE, &w->offcentering, 0.0, 1.0, 0},
      {"physics", "diffusion", FB_KEY_DOUBLE, &w->diffusion, 0.0, 1e5, 0},
      {"parallel", "halo_mode", FB_KEY_STRING, w->halo_mode, 0, 0, 0},
      {"parallel", "overlap", FB_KEY_BOOL, &w->overlap, 0, 0, 0},
      {"output", "history_interval", FB_KEY_INT, &w->history_every, 0, 1e9, 0},
      {"output", "restart_interval", FB_KEY_INT, &w->restart_every, 0, 1e9, 0},
      {"output", "output_dir", FB_KEY_STRING, w->output_dir, 0, 0, 0},
      {"output", "restart_file", FB_KEY_STRING, w->restart_out, 0, 0, 0},
      {"output", "read_restart", FB_KEY_STRING, w->restart_in, 0, 0, 0},
  };
  char err[FB_MSG_LEN];
  w->deck_text = fb_read_input(ctx, "option --input", w->deck_path, NULL);
  int rc = fb_deck_parse(w->deck_path, w->deck_text, keys, (int)(sizeof keys / sizeof keys[0]), err,
                         sizeof err);
  if (rc) fb_fail(ctx, rc, "%s", err);
  w->dimensions = (int)dims;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    if (!keys[k].seen && ((!strcmp(keys[k].section, "grid") && strcmp(keys[k].key, "dimensions")) ||
                          !strcmp(keys[k].key, "dt") || !strcmp(keys[k].key, "case")))
      fb_fail(ctx, FB_EXIT_USAGE, "%s: missing key '%s' in section [%s]", w->deck_path, keys[k].key,
              keys[k].section);
}

/* The speed of sound at the warmest level (the surface) of the base state. */
static double max_sound_speed(const Weather *w) {
  double gamma = WX_CP / (WX_CP - WX_RD);
  return sqrt(gamma * WX_RD * w->theta_surface);
}

static void check_deck(FbContext *ctx, Weather *w) {
  char what[FB_MSG_LEN];
  if (!strcmp(w->case_name, "bubble"))
    w->wcase = CASE_BUBBLE;
  else if (!strcmp(w->case_name, "density_current"))
    w->wcase = CASE_DENSITY_CURRENT;
  else if (!strcmp(w->case_name, "gravity_wave"))
    w->wcase = CASE_GRAVITY_WAVE;
  else if (!strcmp(w->case_name, "advection"))
    w->wcase = CASE_ADVECTION;
  else if (!strcmp(w->case_name, "weather"))
    w->wcase = CASE_WEATHER;
  else
    deck_fail(ctx, w, "physics", "case",
              "must be bubble, density_current, gravity_wave, advection or weather");
  if (strcmp(w->halo_mode, "aggregated") && strcmp(w->halo_mode, "per_field"))
    deck_fail(ctx, w, "parallel", "halo_mode", "must be aggregated or per_field");
  w->dz = w->ztop / (double)w->n[2];
  double dts = w->dt / (double)w->acoustic_substeps;
  double c = max_sound_speed(w);
  const double ry2 =
      w->dimensions == 2 ? 0.0 : 1.0 / (w->dy * w->dy); /* a 2-D case has no waves along y */
  double ac = c * dts * sqrt(1.0 / (w->dx * w->dx) + ry2);
  if (ac > WX_MAX_ACOUSTIC_COURANT) {
    snprintf(
        what, sizeof what,
        "dt %g with %lld acoustic substeps violates the CFL limit: acoustic Courant number "
        "%.3f (c %.0f m/s, small step %.3g s) exceeds %.2f; raise acoustic_substeps or lower dt",
        w->dt, w->acoustic_substeps, ac, c, dts, WX_MAX_ACOUSTIC_COURANT);
    deck_fail(ctx, w, "time", "dt", what);
  }
  double extra =
      w->wcase == CASE_BUBBLE || w->wcase == CASE_DENSITY_CURRENT ? WX_CASE_WIND_BUBBLE : 0.0;
  double adv =
      ((fabs(w->u0) + extra) / w->dx + (fabs(w->v0) + (w->dimensions == 2 ? 0.0 : extra)) / w->dy) *
      w->dt;
  if (adv > WX_MAX_ADVECTIVE_COURANT) {
    snprintf(
        what, sizeof what,
        "dt %g violates the CFL limit: advective Courant number %.3f (winds up to %.0f, %.0f m/s) "
        "exceeds %.2f; lower dt",
        w->dt, adv, fabs(w->u0) + extra, fabs(w->v0) + extra, WX_MAX_ADVECTIVE_COURANT);
    deck_fail(ctx, w, "time", "dt", what);
  }
  double dn = w->diffusion * w->dt * (1.0 / (w->dx * w->dx) + ry2 + 1.0 / (w->dz * w->dz));
  if (dn > WX_MAX_DIFFUSION_NUMBER) {
    snprintf(what, sizeof what,
             "diffusion %g m2/s with dt %g: the diffusion number %.3f exceeds %.2f; lower dt",
             w->diffusion, w->dt, dn, WX_MAX_DIFFUSION_NUMBER);
    deck_fail(ctx, w, "physics", "diffusion", what);
  }
  if (!w->perturbation_name[0] || !strcmp(w->perturbation_name, "theta"))
    w->perturbation = PERTURB_THETA;
  else if (!strcmp(w->perturbation_name, "temperature"))
    w->perturbation = PERTURB_TEMPERATURE;
  else
    deck_fail(ctx, w, "physics", "bubble_perturbation",
              "must be theta (a potential temperature perturbation) or temperature");
  if (w->dimensions == 2 &&
      (w->v0 != 0.0 || w->wcase == CASE_WEATHER || w->wcase == CASE_ADVECTION))
    deck_fail(ctx, w, "grid", "dimensions",
              "a 2-D (x-z) case has no wind along y (v0 = 0) and is bubble, density_current or "
              "gravity_wave");
  if (w->bubble_radius_x <= 0) w->bubble_radius_x = 2000.0;
  if (w->bubble_radius_y <= 0) w->bubble_radius_y = w->bubble_radius_x;
  if (w->bubble_radius_z <= 0) w->bubble_radius_z = 2000.0;
  if (isnan(w->bubble_x)) w->bubble_x = 0.5 * w->dx * (double)w->n[0];
  if (isnan(w->bubble_y)) w->bubble_y = 0.5 * w->dy * (double)w->n[1];
}

void wx_parse(FbContext *ctx, Weather *w, int argc, char **argv) {
  WxOptions *o = &w->opt; /* in the app's state: the record lists the values after the run */
  o->input = "inputs/weather/tiny.ini";
  o->steps = -1;
  fb_option_string(ctx, "input", 'i', &o->input, "DECK", "input deck (inputs/weather/*.ini)");
  fb_option_int(ctx, "steps", 'n', &o->steps, 0, 1000000000, "STEPS",
                "time steps, overriding the deck");
  fb_option_default(ctx, "the deck's");
  fb_option_dims3(ctx, "grid", 0, o->grid, "process grid PxQx1 (x by y; full columns)");
  fb_option_default(ctx, "near-square, P <= Q");
  fb_option_string(ctx, "output-dir", 'o', &o->outdir, "DIR",
                   "folder for history and restart files");
  fb_option_default(ctx, "the deck's, else .");
  fb_option_string(ctx, "restart", 0, &o->restart, "FILE", "write a restart file at the end");
  fb_option_string(ctx, "read-restart", 0, &o->read_restart, "FILE", "start from a restart file");
  fb_option_flag(ctx, "no-output", 0, &w->no_output,
                 "write no history or restart (pure compute and communication)");
  fb_parse_options(ctx, argc, argv,
                   "A WRF-like 3-D dry compressible dynamical core: C grid, flux form, WRF's\n"
                   "RK3 with 5th-order horizontal and 3rd-order vertical advection, split-\n"
                   "explicit acoustic steps (vertically implicit), periodic in x and y, on a\n"
                   "2-D process grid with halo exchanges through common/. History and\n"
                   "restarts in parallel NetCDF-4. Presets: inputs/weather/tiny.ini, teach,\n"
                   "wrf30, conus12, conus2p5, plus bubble, thermal (Bryan and Fritsch),\n"
                   "density_current (Straka et al.), gravity_wave (Skamarock and Klemp)\n"
                   "and advection.\n"
                   "FOM: grid-point updates per second (points x steps / s).");
  snprintf(w->deck_path, sizeof w->deck_path, "%s", o->input);
  /* defaults, then the deck */
  w->acoustic_substeps = 4;
  w->theta_surface = 300.0;
  w->hyperviscosity = 0.02;
  w->divergence_damping = 0.1;
  w->offcentering = 0.2;
  w->history_every = 0;
  w->cfl_every = 10;
  snprintf(w->halo_mode, sizeof w->halo_mode, "aggregated");
  snprintf(w->output_dir, sizeof w->output_dir, ".");
  read_deck(ctx, w);
  check_deck(ctx, w);
  if (o->steps >= 0) w->steps = o->steps;
  if (o->outdir) snprintf(w->output_dir, sizeof w->output_dir, "%s", o->outdir);
  if (o->restart) snprintf(w->restart_out, sizeof w->restart_out, "%s", o->restart);
  if (o->read_restart) snprintf(w->restart_in, sizeof w->restart_in, "%s", o->read_restart);
  if (o->grid[2] > 1)
    fb_fail(ctx, FB_EXIT_USAGE, "option --grid: %dx%dx%d splits columns; the third must be 1",
            o->grid[0], o->grid[1], o->grid[2]);
  w->grid[0] = o->grid[0];
  w->grid[1] = o->grid[1];
  w->grid[2] = 1;
  if (w->restart_every > 0 && !w->restart_out[0] && !w->no_output)
    deck_fail(ctx, w, "output", "restart_interval",
              "restart_interval needs restart_file or --restart (the name each restart is written "
              "under)");
  if (w->no_output && (o->restart || o->outdir))
    fb_fail(ctx, FB_EXIT_USAGE, "--no-output contradicts --%s",
            o->restart ? "restart" : "output-dir");
  if (w->no_output) w->history_every = 0, w->restart_out[0] = '\0', w->restart_every = 0;
  if (w->steps == 0 && !w->restart_out[0])
    fb_fail(ctx, FB_EXIT_USAGE,
            "%s: 0 steps: nothing to run or measure (-n/--steps, or the deck's steps)",
            w->deck_path);
  if (w->history_every > 0) {
    char path[2 * WX_PATH + 40];
    wx_history_path(w, path, sizeof path);
    fb_check_output_path(
        ctx, o->outdir ? "option --output-dir" : "the deck's output_dir (history file)", path);
  }
  if (w->restart_out[0]) {
    char path[2 * WX_PATH + 8];
    wx_restart_path(w, path, sizeof path);
    fb_check_output_path(ctx, o->restart ? "option --restart" : "the deck's restart_file", path);
  }
}
