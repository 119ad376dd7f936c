/* deck.c: md_shear's command line and its key = value input deck. Every key
 * is checked (range, type, unknown, given twice) and named with file:line. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MdUnits UNITS_LJ = {"lj", 1.0, 1.0, 1.0, 1.0};
/* LAMMPS update.cpp, "metal": eV, Angstrom, ps, g/mol, bar. */
static const MdUnits UNITS_METAL = {"metal", 8.617343e-5, 1.0364269e-4, 1.0 / 1.0364269e-4,
                                    1.6021765e6};

/* Vector keys are strings in the deck: "1 0 0". */
typedef struct {
  char orient[3][FB_DECK_STR], origin[FB_DECK_STR], box[FB_DECK_STR], replicate[FB_DECK_STR];
  char periodic[FB_DECK_STR], mass[FB_DECK_STR];
} MdVectors;

static void deck_fail(FbContext *ctx, const Md *md, const char *section, const char *key,
                      const char *what) {
  if (!strcmp(key, "replicate") && !fb_deck_key_line(md->deck_path, section, key))
    fb_fail(ctx, FB_EXIT_USAGE, "option --replicate: %s", what);
  fb_deck_fail(ctx, md->deck_path, section, key, what);
}

/* Reads exactly n numbers from s into out (n < 0: 1 to -n numbers; returns count). */
static int parse_numbers(const char *s, double *out, int n) {
  int want = n < 0 ? -n : n, got = 0;
  const char *p = s;
  while (*p) {
    char *end;
    double v = strtod(p, &end);
    if (end == p) break;
    if (got == want || !isfinite(v)) return -1;
    out[got++] = v;
    p = end;
    while (*p == ' ' || *p == '\t') p++;
  }
  if (*p || got == 0 || (n > 0 && got != n)) return -1;
  return got;
}

static void vector_key(FbContext *ctx, const Md *md, const char *section, const char *key,
                       const char *text, double *out, int n, double lo, double hi,
                       int integers) {
  int got = parse_numbers(text, out, n);
  char what[160];
  if (got < 0) {
    snprintf(what, sizeof what, "'%s' is not %s%d numbers", text, n < 0 ? "1 to " : "",
             n < 0 ? -n : n);
    deck_fail(ctx, md, section, key, what);
  }
  for (int i = 0; i < got; i++)
    if (out[i] < lo || out[i] > hi || (integers && out[i] != floor(out[i]))) {
      snprintf(what, sizeof what, "'%s': %g is out of range [%g, %g]%s", text, out[i], lo, hi,
               integers ? " or not an integer" : "");
      deck_fail(ctx, md, section, key, what);
    }
}

static void read_deck(FbContext *ctx, Md *md, MdVectors *vec) {
  char elements[FB_DECK_STR] = "", pair[32] = "";
  FbDeckKey keys[] = {
      {"system", "units", FB_KEY_STRING, md->units_name, 0, 0, 0},
      {"system", "lattice", FB_KEY_STRING, md->lattice, 0, 0, 0},
      {"system", "lattice_constant", FB_KEY_DOUBLE, &md->lattice_constant, 1e-3, 1e3, 0},
      {"system", "density", FB_KEY_DOUBLE, &md->density, 1e-3, 10.0, 0},
      {"system", "orient_x", FB_KEY_STRING, vec->orient[0], 0, 0, 0},
      {"system", "orient_y", FB_KEY_STRING, vec->orient[1], 0, 0, 0},
      {"system", "orient_z", FB_KEY_STRING, vec->orient[2], 0, 0, 0},
      {"system", "origin", FB_KEY_STRING, vec->origin, 0, 0, 0},
      {"system", "box", FB_KEY_STRING, vec->box, 0, 0, 0},
      {"system", "replicate", FB_KEY_STRING, vec->replicate, 0, 0, 0},
      {"system", "periodic", FB_KEY_STRING, vec->periodic, 0, 0, 0},
      {"system", "read_data", FB_KEY_STRING, md->data_file, 0, 0, 0},
      {"system", "types", FB_KEY_INT, NULL, 1, MD_MAX_TYPES, 0},
      {"system", "mass", FB_KEY_STRING, vec->mass, 0, 0, 0},
      {"potential", "pair_style", FB_KEY_STRING, pair, 0, 0, 0},
      {"potential", "file", FB_KEY_STRING, md->pot_file, 0, 0, 0},
      {"potential", "elements", FB_KEY_STRING, elements, 0, 0, 0},
      {"potential", "epsilon", FB_KEY_DOUBLE, &md->epsilon, 1e-12, 1e12, 0},
      {"potential", "sigma", FB_KEY_DOUBLE, &md->sigma, 1e-6, 1e6, 0},
      {"potential", "cutoff", FB_KEY_DOUBLE, &md->cutoff, 1e-3, 1e3, 0},
      {"potential", "shift", FB_KEY_BOOL, &md->shift, 0, 0, 0},
      {"run", "timestep", FB_KEY_DOUBLE, &md->dt, 1e-9, 1.0, 0},
      {"run", "steps", FB_KEY_INT, &md->steps, 0, 1e9, 0},
      {"run", "temperature", FB_KEY_DOUBLE, &md->temperature, 0.0, 1e6, 0},
      {"run", "seed", FB_KEY_INT, &md->seed, 1, 2147483647, 0},
      {"run", "thermo", FB_KEY_INT, &md->thermo_every, 0, 1e9, 0},
      {"run", "skin", FB_KEY_DOUBLE, &md->skin, 0.0, 100.0, 0},
      {"run", "neigh_every", FB_KEY_INT, &md->neigh_every, 1, 1000000, 0},
      {"run", "neigh_delay", FB_KEY_INT, &md->neigh_delay, 0, 1000000, 0},
      {"run", "neigh_check", FB_KEY_BOOL, &md->neigh_check, 0, 0, 0},
      {"shear", "enabled", FB_KEY_BOOL, &md->shear, 0, 0, 0},
      {"shear", "lower_wall", FB_KEY_DOUBLE, &md->lower_wall, 0.0, 1e6, 0},
      {"shear", "upper_wall", FB_KEY_DOUBLE, &md->upper_wall, 0.0, 1e6, 0},
      {"shear", "equilibrate_steps", FB_KEY_INT, &md->equil_steps, 0, 1e9, 0},
      {"shear", "wall_velocity", FB_KEY_DOUBLE, &md->wall_velocity, -1e3, 1e3, 0},
      {"shear", "ramp_lo", FB_KEY_DOUBLE, &md->ramp_lo, 0.0, 1e6, 0},
      {"shear", "ramp_hi", FB_KEY_DOUBLE, &md->ramp_hi, 0.0, 1e6, 0},
      {"shear", "rescale_every", FB_KEY_INT, &md->rescale_every, 0, 1e9, 0},
      {"shear", "rescale_window", FB_KEY_DOUBLE, &md->rescale_window, 0.0, 1e9, 0},
      {"shear", "rescale_fraction", FB_KEY_DOUBLE, &md->rescale_fraction, 0.0, 1.0, 0},
      {"output", "trajectory", FB_KEY_STRING, md->trajectory, 0, 0, 0},
      {"output", "trajectory_every", FB_KEY_INT, &md->trajectory_every, 1, 1e9, 0},
      {"output", "restart", FB_KEY_STRING, md->restart_out, 0, 0, 0},
      {"output", "read_restart", FB_KEY_STRING, md->restart_in, 0, 0, 0},
      {"output", "restart_every", FB_KEY_INT, &md->restart_every, 1, 1e9, 0},
  };
  long long types = 1;
  int n_keys = (int)(sizeof keys / sizeof keys[0]);
  for (int i = 0; i < n_keys; i++)
    if (!strcmp(keys[i].key, "types")) keys[i].dest = &types;
  char err[FB_MSG_LEN];
  int rc = fb_deck_read(md->deck_path, keys, n_keys, err, sizeof err);
  if (rc) fb_fail(ctx, rc, "%s", err);
  md->ntypes = (int)types;
  snprintf(md->pair_style, sizeof md->pair_style, "%s", pair);
  snprintf(md->elements, sizeof md->elements, "%s", elements);
}

/* Checks the deck's meaning once every key has a value. */
static void check_deck(FbContext *ctx, Md *md, const MdVectors *vec) {
  double v[MD_MAX_TYPES];
  if (!strcmp(md->units_name, "lj")) md->units = UNITS_LJ;
  else if (!strcmp(md->units_name, "metal")) md->units = UNITS_METAL;
  else deck_fail(ctx, md, "system", "units", "must be lj or metal");

  if (!strcmp(md->pair_style, "lj/cut")) md->pot.kind = POT_LJ;
  else if (!strcmp(md->pair_style, "eam") || !strcmp(md->pair_style, "eam/alloy")) md->pot.kind = POT_EAM;
  else deck_fail(ctx, md, "potential", "pair_style", "must be lj/cut, eam or eam/alloy");
  if (md->pot.kind == POT_EAM && !md->pot_file[0])
    deck_fail(ctx, md, "potential", "pair_style", "eam and eam/alloy need a 'file' key");
  if (md->pot.kind == POT_LJ && md->cutoff <= 0.0)
    deck_fail(ctx, md, "potential", "pair_style", "lj/cut needs a 'cutoff' key");

  if (!md->data_file[0]) {
    if (strcmp(md->lattice, "fcc")) deck_fail(ctx, md, "system", "lattice", "must be fcc (or use read_data)");
    if (!strcmp(md->units_name, "metal") && md->lattice_constant <= 0.0)
      deck_fail(ctx, md, "system", "lattice", "metal units need 'lattice_constant' (Angstrom)");
    if (!strcmp(md->units_name, "lj") && md->density <= 0.0 && md->lattice_constant <= 0.0)
      deck_fail(ctx, md, "system", "lattice", "lj units need 'density' or 'lattice_constant'");
    if (!vec->box[0]) deck_fail(ctx, md, "system", "lattice", "a lattice needs 'box' (in lattice units)");
    vector_key(ctx, md, "system", "box", vec->box, md->box_lattice, 3, 1e-3, 1e6, 0);
    for (int d = 0; d < 3; d++) {
      double o[3];
      char key[16];
      snprintf(key, sizeof key, "orient_%c", 'x' + d);
      if (!vec->orient[d][0]) { md->orient[d][0] = d == 0; md->orient[d][1] = d == 1; md->orient[d][2] = d == 2; continue; }
      vector_key(ctx, md, "system", key, vec->orient[d], o, 3, -100, 100, 1);
      for (int e = 0; e < 3; e++) md->orient[d][e] = (int)o[e];
    }
    for (int a = 0; a < 3; a++)
      for (int b = a + 1; b < 3; b++) {
        long dot = 0, len = 0;
        for (int e = 0; e < 3; e++) { dot += md->orient[a][e] * md->orient[b][e]; len += md->orient[a][e] * md->orient[a][e]; }
        if (dot || !len) deck_fail(ctx, md, "system", "orient_x", "orient_x, orient_y and orient_z must be non-zero and orthogonal");
      }
    if (vec->origin[0]) vector_key(ctx, md, "system", "origin", vec->origin, md->origin, 3, 0.0, 0.999999, 0);
  } else if (vec->box[0]) {
    deck_fail(ctx, md, "system", "box", "read_data gives the box; remove 'box'");
  }
  double rep[3] = {1, 1, 1}, per[3] = {1, 1, 1};
  if (vec->replicate[0]) vector_key(ctx, md, "system", "replicate", vec->replicate, rep, 3, 1, 1000, 1);
  if (vec->periodic[0]) vector_key(ctx, md, "system", "periodic", vec->periodic, per, 3, 0, 1, 1);
  for (int d = 0; d < 3; d++) {
    if (md->replicate[d] == 0) md->replicate[d] = (int)rep[d];
    md->periodic[d] = (int)per[d];
  }
  for (int t = 0; t < MD_MAX_TYPES; t++) md->mass[t] = 0.0;
  if (vec->mass[0]) {
    int n = parse_numbers(vec->mass, v, -MD_MAX_TYPES);
    if (n != 1 && n != md->ntypes) deck_fail(ctx, md, "system", "mass", "give one mass, or one per type");
    for (int t = 0; t < md->ntypes; t++) {
      md->mass[t] = v[n == 1 ? 0 : t];
      if (!(md->mass[t] > 0.0)) deck_fail(ctx, md, "system", "mass", "masses must be positive");
    }
  } else if (md->pot.kind == POT_LJ) {
    for (int t = 0; t < md->ntypes; t++) md->mass[t] = 1.0;
  }
  if (md->shear) {
    if (md->ntypes < 3) deck_fail(ctx, md, "system", "types", "the shear geometry needs 3 types (mobile, lower, upper)");
    if (md->upper_wall <= md->lower_wall) deck_fail(ctx, md, "shear", "upper_wall", "must be above lower_wall");
    if (md->ramp_hi <= md->ramp_lo) deck_fail(ctx, md, "shear", "ramp_hi", "must be above ramp_lo");
    if (md->replicate[1] != 1) deck_fail(ctx, md, "system", "replicate", "the shear slab replicates along x and z only (y is 1)");
    if (md->data_file[0]) deck_fail(ctx, md, "shear", "enabled", "the shear geometry is built from the lattice, not read_data");
  }
  if (md->restart_in[0] && md->data_file[0])
    deck_fail(ctx, md, "output", "read_restart", "give read_data or read_restart, not both");
}

void md_parse(FbContext *ctx, Md *md, int argc, char **argv) {
  /* static: the record lists the options' values after the run */
  static const char *input = "inputs/md/shear.ini";
  static const char *forces, *traj, *restart, *read_restart;
  static long long steps = -1, restart_every;
  static int grid[3], rep[3];
  fb_option_string(ctx, "input", 'i', &input, "DECK", "input deck (inputs/md/*.ini)");
  fb_option_int(ctx, "steps", 'n', &steps, 0, 1000000000, "STEPS", "steps of the (last) run, overriding the deck");
  fb_option_default(ctx, "the deck's");
  fb_option_dims3(ctx, "replicate", 0, rep, "replicate the lattice box AxBxC times, overriding the deck");
  fb_option_default(ctx, "the deck's");
  fb_option_dims3(ctx, "grid", 0, grid, "process grid PxQxR");
  fb_option_default(ctx, "least ghost surface");
  fb_option_string(ctx, "forces", 0, &forces, "FILE", "write step-0 forces (id fx fy fz, %.17g) to FILE");
  fb_option_string(ctx, "trajectory", 0, &traj, "FILE", "H5MD trajectory, overriding the deck");
  fb_option_string(ctx, "restart", 0, &restart, "FILE", "write an H5MD restart at the end, overriding the deck");
  fb_option_string(ctx, "read-restart", 0, &read_restart, "FILE", "start from an H5MD restart written by md");
  fb_option_int(ctx, "restart-every", 0, &restart_every, 1, 1000000000, "STEPS",
                "write the restart every STEPS steps (a neighbour-list rebuild at each)");
  fb_option_default(ctx, "only at the end");
  fb_option_flag(ctx, "no-output", 0, &md->no_output_flag, "write no trajectory or restart file");
  fb_parse_options(ctx, argc, argv,
                   "A LAMMPS-like short-range molecular dynamics kernel: lj/cut and EAM\n"
                   "(funcfl and setfl files), velocity Verlet, binned half neighbour lists\n"
                   "with a skin, 3-D spatial decomposition with ghost atoms, migration and,\n"
                   "for EAM, a second exchange per step. Presets: inputs/md/shear.ini (LAMMPS\n"
                   "examples/shear), shear_big.ini, lj_bench.ini (LAMMPS bench/in.lj).\n"
                   "FOM: atom-steps per second.");
  /* defaults, then the deck */
  snprintf(md->deck_path, sizeof md->deck_path, "%s", input);
  snprintf(md->lattice, sizeof md->lattice, "fcc");
  snprintf(md->units_name, sizeof md->units_name, "lj");
  md->dt = 0.005; md->steps = 100; md->temperature = 0.0; md->seed = 87287;
  md->thermo_every = 50; md->skin = 0.3; md->neigh_every = 1; md->neigh_delay = 0;
  md->neigh_check = 1; md->epsilon = 1.0; md->sigma = 1.0; md->trajectory_every = 100;
  md->rescale_fraction = 1.0;
  MdVectors vec;
  memset(&vec, 0, sizeof vec);
  read_deck(ctx, md, &vec);
  for (int d = 0; d < 3; d++) md->replicate[d] = rep[d];
  check_deck(ctx, md, &vec);
  if (steps >= 0) md->steps = steps;
  memcpy(md->grid, grid, sizeof grid);
  if (forces) snprintf(md->forces_out, sizeof md->forces_out, "%s", forces);
  if (traj) snprintf(md->trajectory, sizeof md->trajectory, "%s", traj);
  if (restart) snprintf(md->restart_out, sizeof md->restart_out, "%s", restart);
  if (restart_every) md->restart_every = restart_every;
  if (read_restart) snprintf(md->restart_in, sizeof md->restart_in, "%s", read_restart);
  if (md->restart_in[0]) md->data_file[0] = '\0'; /* the restart replaces the deck's initial state */
  if (md->no_output_flag) md->trajectory[0] = md->restart_out[0] = '\0';
  if (md->forces_out[0]) fb_check_output_path(ctx, "option --forces", md->forces_out);
  if (md->trajectory[0])
    fb_check_output_path(ctx, traj ? "option --trajectory" : "the deck's trajectory", md->trajectory);
  if (md->restart_out[0])
    fb_check_output_path(ctx, restart ? "option --restart" : "the deck's restart", md->restart_out);
}
