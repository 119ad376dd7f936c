/* deck.c: md_shear's command line and its key = value input deck. Every key
 * is checked (range, type, unknown, given twice) and named with file:line;
 * the groups, computes and runs the deck describes are read by plan.c. */
#include "md.h"
#include "deck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const MdUnits UNITS_LJ = {"lj", 1.0, 1.0, 1.0, 1.0, 1.0};
/* LAMMPS update.cpp, "metal": eV, Angstrom, ps, g/mol, bar, g/cm^3. */
static const MdUnits UNITS_METAL = {"metal",     8.617343e-5,      1.0364269e-4, 1.0 / 1.0364269e-4,
                                    1.6021765e6, 1.0 / 0.602214129};

void md_deck_fail(FbContext *ctx, const Md *md, const char *section, const char *key,
                  const char *what) {
  if (!strcmp(key, "replicate") && !fb_deck_key_line(md->deck_path, section, key))
    fb_fail(ctx, FB_EXIT_USAGE, "option --replicate: %s", what);
  fb_deck_fail(ctx, md->deck_path, section, key, what);
}

int md_parse_numbers(const char *s, double *out, int n) {
  int want = n < 0 ? -n : n, got = 0;
  const char *p = s;
  while (*p == ' ' || *p == '\t') p++;
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
                       const char *text, double *out, int n, double lo, double hi, int integers) {
  int got = md_parse_numbers(text, out, n);
  char what[160];
  if (got < 0) {
    snprintf(what, sizeof what, "'%s' is not %s%d numbers", text, n < 0 ? "1 to " : "",
             n < 0 ? -n : n);
    md_deck_fail(ctx, md, section, key, what);
  }
  for (int i = 0; i < got; i++)
    if (out[i] < lo || out[i] > hi || (integers && out[i] != floor(out[i]))) {
      snprintf(what, sizeof what, "'%s': %g is out of range [%g, %g]%s", text, out[i], lo, hi,
               integers ? " or not an integer" : "");
      md_deck_fail(ctx, md, section, key, what);
    }
}

/* The keys every run has, in [run] (one run) or [runN] (the N-th run). */
static int stage_keys(FbDeckKey *k, const char *section, MdDeck *d, int s) {
  const FbDeckKey keys[] = {
      {section, "steps", FB_KEY_INT, &d->steps[s], 0, 1e9, 0},
      {section, "thermo", FB_KEY_INT, &d->thermo[s], 0, 1e9, 0},
      {section, "thermo_temp", FB_KEY_STRING, d->thermo_temp[s], 0, 0, 0},
      {section, "rescale", FB_KEY_STRING, d->rescale[s], 0, 0, 0},
      {section, "velocity", FB_KEY_LIST, d->velocity[s], 0, 0, 0},
      {section, "reset_timestep", FB_KEY_INT, &d->reset[s], 0, 0, 0},
  };
  memcpy(k, keys, sizeof keys);
  return (int)(sizeof keys / sizeof keys[0]);
}

static const char stage_sections[MD_MAX_STAGES][8] = {"run1", "run2", "run3", "run4",
                                                      "run5", "run6", "run7", "run8"};

static void read_deck(FbContext *ctx, Md *md, MdDeck *d) {
  char elements[FB_DECK_STR] = "", pair[32] = "";
  long long types = 0;
  FbDeckKey keys[128] = {
      {"system", "units", FB_KEY_STRING, md->units_name, 0, 0, 0},
      {"system", "lattice", FB_KEY_STRING, md->lattice, 0, 0, 0},
      {"system", "lattice_constant", FB_KEY_DOUBLE, &md->lattice_constant, 1e-3, 1e3, 0},
      {"system", "density", FB_KEY_DOUBLE, &md->density, 1e-3, 10.0, 0},
      {"system", "orient_x", FB_KEY_STRING, d->orient[0], 0, 0, 0},
      {"system", "orient_y", FB_KEY_STRING, d->orient[1], 0, 0, 0},
      {"system", "orient_z", FB_KEY_STRING, d->orient[2], 0, 0, 0},
      {"system", "origin", FB_KEY_STRING, d->origin, 0, 0, 0},
      {"system", "box", FB_KEY_STRING, d->box, 0, 0, 0},
      {"system", "replicate", FB_KEY_STRING, d->replicate, 0, 0, 0},
      {"system", "boundary", FB_KEY_STRING, d->boundary, 0, 0, 0},
      {"system", "periodic", FB_KEY_STRING, d->periodic, 0, 0, 0},
      {"system", "read_data", FB_KEY_STRING, md->data_file, 0, 0, 0},
      {"system", "types", FB_KEY_INT, &types, 1, MD_MAX_TYPES, 0},
      {"system", "mass", FB_KEY_STRING, d->mass, 0, 0, 0},
      {"system", "mass_override", FB_KEY_BOOL, &md->mass_override, 0, 0, 0},
      {"potential", "pair_style", FB_KEY_STRING, pair, 0, 0, 0},
      {"potential", "file", FB_KEY_STRING, md->pot_file, 0, 0, 0},
      {"potential", "elements", FB_KEY_STRING, elements, 0, 0, 0},
      {"potential", "epsilon", FB_KEY_DOUBLE, &md->epsilon, 1e-12, 1e12, 0},
      {"potential", "sigma", FB_KEY_DOUBLE, &md->sigma, 1e-6, 1e6, 0},
      {"potential", "cutoff", FB_KEY_DOUBLE, &md->cutoff, 1e-3, 1e3, 0},
      {"potential", "shift", FB_KEY_BOOL, &md->shift, 0, 0, 0},
      {"potential", "mix", FB_KEY_STRING, d->mix, 0, 0, 0},
      {"potential", "pair_coeff", FB_KEY_LIST, d->pair_coeff, 0, 0, 0},
      {"groups", "units", FB_KEY_STRING, d->region_units, 0, 0, 0},
      {"groups", "set_type", FB_KEY_STRING, d->set_type, 0, 0, 0},
      {"groups", "*", FB_KEY_ANY, &d->groups, 0, 0, 0},
      {"computes", "*", FB_KEY_ANY, &d->computes, 0, 0, 0},
      {"fixes", "setforce", FB_KEY_STRING, d->setforce, 0, 0, 0},
      {"run", "timestep", FB_KEY_DOUBLE, &md->dt, 1e-9, 1.0, 0},
      {"run", "temperature", FB_KEY_DOUBLE, &d->temperature, 0.0, 1e6, 0},
      {"run", "seed", FB_KEY_INT, &d->seed, 1, 2147483646, 0},
      {"run", "skin", FB_KEY_DOUBLE, &md->skin, 0.0, 100.0, 0},
      {"run", "neigh_every", FB_KEY_INT, &md->neigh_every, 1, 1000000, 0},
      {"run", "neigh_delay", FB_KEY_INT, &md->neigh_delay, 0, 1000000, 0},
      {"run", "neigh_check", FB_KEY_BOOL, &md->neigh_check, 0, 0, 0},
      {"run", "thermo_style", FB_KEY_STRING, d->thermo_style, 0, 0, 0},
      {"run", "thermo_norm", FB_KEY_BOOL, &md->thermo_norm, 0, 0, 0},
      {"run", "velocity_units", FB_KEY_STRING, d->velocity_units, 0, 0, 0},
      {"output", "trajectory", FB_KEY_STRING, md->trajectory, 0, 0, 0},
      {"output", "trajectory_every", FB_KEY_INT, &md->trajectory_every, 1, 1e9, 0},
      {"output", "restart", FB_KEY_STRING, md->restart_out, 0, 0, 0},
      {"output", "read_restart", FB_KEY_STRING, md->restart_in, 0, 0, 0},
      {"output", "restart_every", FB_KEY_INT, &md->restart_every, 1, 1e9, 0},
      {"output", "dump", FB_KEY_STRING, md->dump_path, 0, 0, 0},
      {"output", "dump_every", FB_KEY_INT, &md->dump_every, 1, 1e9, 0},
      {"output", "dump_columns", FB_KEY_STRING, d->dump_columns, 0, 0, 0},
  };
  int n = 0;
  while (keys[n].section) n++;
  int stage_first[MD_MAX_STAGES + 1];
  stage_first[0] = n;
  n += stage_keys(keys + n, "run", d, 0);
  for (int s = 0; s < MD_MAX_STAGES; s++) {
    stage_first[s + 1] = n;
    n += stage_keys(keys + n, stage_sections[s], d, s + 1);
  }
  for (int s = 0; s <= MD_MAX_STAGES; s++) d->reset[s] = -1, d->steps[s] = -1, d->thermo[s] = -1;
  md->deck_text = fb_read_input(ctx, "option --input", md->deck_path, NULL);
  char err[FB_MSG_LEN];
  int rc = fb_deck_parse(md->deck_path, md->deck_text, keys, n, err, sizeof err);
  if (rc) fb_fail(ctx, rc, "%s", err);
  for (int s = 0; s <= MD_MAX_STAGES; s++)
    for (int k = stage_first[s]; k < stage_first[s] + 6; k++) d->stage_seen[s] |= keys[k].seen;
  for (int k = 0; k < n; k++) {
    if (!strcmp(keys[k].key, "epsilon") && keys[k].seen) md->eps_given = 1;
    if (!strcmp(keys[k].key, "sigma") && keys[k].seen) md->sig_given = 1;
  }
  md->ntypes_deck = (int)types;
  snprintf(md->pair_style, sizeof md->pair_style, "%s", pair);
  snprintf(md->elements, sizeof md->elements, "%s", elements);
}

/* LAMMPS's boundary letters, or the older 'periodic = 1 1 0'. */
static void read_boundary(FbContext *ctx, Md *md, const MdDeck *d) {
  if (d->boundary[0] && d->periodic[0])
    md_deck_fail(ctx, md, "system", "periodic", "give boundary or periodic, not both");
  if (d->periodic[0]) {
    double per[3];
    vector_key(ctx, md, "system", "periodic", d->periodic, per, 3, 0, 1, 1);
    for (int k = 0; k < 3; k++) md->boundary[k] = per[k] ? 'p' : 's';
  } else if (d->boundary[0]) {
    char b[3][8];
    if (sscanf(d->boundary, "%7s %7s %7s", b[0], b[1], b[2]) != 3)
      md_deck_fail(ctx, md, "system", "boundary", "needs three of p, f, s, m (LAMMPS's boundary)");
    for (int k = 0; k < 3; k++) {
      if (strlen(b[k]) != 1 || !strchr("pfsm", b[k][0]))
        md_deck_fail(ctx, md, "system", "boundary",
                     "each dimension is p, f, s or m (the same at both ends; LAMMPS's boundary)");
      md->boundary[k] = b[k][0];
    }
  } else {
    md->boundary[0] = md->boundary[1] = md->boundary[2] = 'p';
  }
  for (int k = 0; k < 3; k++) md->periodic[k] = md->boundary[k] == 'p';
}

static void read_lattice(FbContext *ctx, Md *md, const MdDeck *d) {
  md->lattice_given = md->lattice_constant > 0.0 || md->density > 0.0;
  if (!md->data_file[0] && !md->restart_in[0]) { /* the restart gives the box */
    if (strcmp(md->lattice, "fcc"))
      md_deck_fail(ctx, md, "system", "lattice", "must be fcc (or use read_data)");
    if (!strcmp(md->units_name, "metal") && md->lattice_constant <= 0.0)
      md_deck_fail(ctx, md, "system", "lattice", "metal units need 'lattice_constant' (Angstrom)");
    if (!strcmp(md->units_name, "lj") && md->density <= 0.0 && md->lattice_constant <= 0.0)
      md_deck_fail(ctx, md, "system", "lattice", "lj units need 'density' or 'lattice_constant'");
    if (!d->box[0])
      md_deck_fail(ctx, md, "system", "lattice", "a lattice needs 'box' (in lattice units)");
    vector_key(ctx, md, "system", "box", d->box, md->box_lattice, 3, 1e-3, 1e6, 0);
  } else if (d->box[0]) {
    md_deck_fail(ctx, md, "system", "box", "read_data gives the box; remove 'box'");
  } else if (md->ntypes_deck) {
    md_deck_fail(ctx, md, "system", "types", "read_data gives the atom types; remove 'types'");
  }
  for (int k = 0; k < 3; k++) {
    double o[3];
    char key[16];
    snprintf(key, sizeof key, "orient_%c", 'x' + k);
    if (!d->orient[k][0]) {
      for (int e = 0; e < 3; e++) md->orient[k][e] = k == e;
      continue;
    }
    vector_key(ctx, md, "system", key, d->orient[k], o, 3, -100, 100, 1);
    for (int e = 0; e < 3; e++) md->orient[k][e] = (int)o[e];
  }
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++) {
      long dot = 0, len = 0;
      for (int e = 0; e < 3; e++) {
        dot += md->orient[a][e] * md->orient[b][e];
        len += md->orient[a][e] * md->orient[a][e];
      }
      if (dot || !len)
        md_deck_fail(ctx, md, "system", "orient_x",
                     "orient_x, orient_y and orient_z must be non-zero and orthogonal");
    }
  if (d->origin[0])
    vector_key(ctx, md, "system", "origin", d->origin, md->origin, 3, 0.0, 0.999999, 0);
  double rep[3] = {1, 1, 1};
  if (d->replicate[0]) vector_key(ctx, md, "system", "replicate", d->replicate, rep, 3, 1, 1000, 1);
  for (int k = 0; k < 3; k++)
    if (md->replicate[k] == 0) md->replicate[k] = (int)rep[k];
  if (md->data_file[0] && (md->replicate[0] * md->replicate[1] * md->replicate[2] != 1))
    md_deck_fail(ctx, md, "system", "replicate",
                 "replicates a lattice; a data file is used as it is");
}

static void check_deck(FbContext *ctx, Md *md, MdDeck *d) {
  if (!strcmp(md->units_name, "lj"))
    md->units = UNITS_LJ;
  else if (!strcmp(md->units_name, "metal"))
    md->units = UNITS_METAL;
  else
    md_deck_fail(ctx, md, "system", "units", "must be lj or metal");
  if (md->thermo_norm < 0) md->thermo_norm = !strcmp(md->units.name, "lj"); /* LAMMPS: lj only */
  if (!strcmp(md->pair_style, "lj/cut"))
    md->pot.kind = POT_LJ;
  else if (!strcmp(md->pair_style, "eam") || !strcmp(md->pair_style, "eam/alloy") ||
           !strcmp(md->pair_style, "eam/fs"))
    md->pot.kind = POT_EAM;
  else
    md_deck_fail(ctx, md, "potential", "pair_style", "must be lj/cut, eam, eam/alloy or eam/fs");
  if (md->pot.kind == POT_EAM && !md->pot_file[0])
    md_deck_fail(ctx, md, "potential", "pair_style", "the eam styles need a 'file' key");
  if (md->pot.kind == POT_LJ && md->cutoff <= 0.0)
    md_deck_fail(ctx, md, "potential", "pair_style",
                 "lj/cut needs a 'cutoff' key (the global cutoff)");
  if (md->pot.kind == POT_EAM && d->pair_coeff[0])
    md_deck_fail(ctx, md, "potential", "pair_coeff", "eam takes its coefficients from 'file'");
  md->mix = MIX_GEOMETRIC;
  if (!strcmp(d->mix, "arithmetic"))
    md->mix = MIX_ARITHMETIC;
  else if (d->mix[0] && strcmp(d->mix, "geometric"))
    md_deck_fail(ctx, md, "potential", "mix",
                 "must be geometric (LAMMPS's default for lj/cut) or arithmetic");
  read_boundary(ctx, md, d);
  read_lattice(ctx, md, d);
  if (d->mass[0]) {
    double v[MD_MAX_TYPES];
    int n = md_parse_numbers(d->mass, v, -MD_MAX_TYPES);
    if (n < 1) md_deck_fail(ctx, md, "system", "mass", "give one mass, or one per type");
    for (int t = 0; t < MD_MAX_TYPES; t++) {
      md->mass_deck[t] = v[n == 1 ? 0 : (t < n ? t : n - 1)];
      if (t < n && !(v[t] > 0.0))
        md_deck_fail(ctx, md, "system", "mass", "masses must be positive");
    }
    md->mass_deck_given = n;
  }
  if (md->restart_in[0] && md->data_file[0])
    md_deck_fail(ctx, md, "output", "read_restart", "give read_data or read_restart, not both");
}

void md_parse(FbContext *ctx, Md *md, int argc, char **argv) {
  MdOptions *o = &md->opt; /* in the app's state: the record lists the values after the run */
  o->input = "inputs/md/shear.ini";
  o->steps = -1;
  fb_option_string(ctx, "input", 'i', &o->input, "DECK", "input deck (inputs/md/*.ini)");
  fb_option_int(ctx, "steps", 'n', &o->steps, 0, 1000000000, "STEPS",
                "steps of the (last) run, overriding the deck");
  fb_option_default(ctx, "the deck's");
  fb_option_dims3(ctx, "replicate", 0, o->rep,
                  "replicate the lattice box AxBxC times, overriding the deck");
  fb_option_default(ctx, "the deck's");
  fb_option_dims3(ctx, "grid", 0, o->grid, "process grid PxQxR");
  fb_option_default(ctx, "least ghost surface");
  fb_option_string(ctx, "forces", 0, &o->forces, "FILE",
                   "write step-0 forces (id fx fy fz, %.17g) to FILE");
  fb_option_string(ctx, "trajectory", 0, &o->traj, "FILE", "H5MD trajectory, overriding the deck");
  fb_option_string(ctx, "dump", 0, &o->dump, "FILE",
                   "LAMMPS dump custom text file, overriding the deck");
  fb_option_string(ctx, "restart", 0, &o->restart, "FILE",
                   "write an H5MD restart at the end, overriding the deck");
  fb_option_string(ctx, "read-restart", 0, &o->read_restart, "FILE",
                   "start from an H5MD restart written by md");
  fb_option_int(ctx, "restart-every", 0, &o->restart_every, 1, 1000000000, "STEPS",
                "write the restart every STEPS steps (a neighbour-list rebuild at each)");
  fb_option_default(ctx, "only at the end");
  fb_option_flag(ctx, "no-output", 0, &md->no_output_flag,
                 "write no trajectory, dump or restart file");
  fb_parse_options(ctx, argc, argv,
                   "A LAMMPS-like short-range molecular dynamics kernel: lj/cut (any number\n"
                   "of types, mixed or per pair) and EAM (funcfl, setfl and Finnis-Sinclair\n"
                   "files), velocity Verlet, groups, fix setforce and temp/rescale,\n"
                   "temp/partial, LAMMPS data files, binned half neighbour lists with a skin,\n"
                   "3-D spatial decomposition with ghost atoms, migration and, for EAM, a\n"
                   "second exchange per step.\n"
                   "Presets: inputs/md/shear.ini (LAMMPS examples/shear), shear_big.ini,\n"
                   "lj_bench.ini (LAMMPS bench/in.lj). FOM: atom-steps per second.");
  if (md->no_output_flag && (o->traj || o->restart || o->dump || o->restart_every))
    fb_fail(ctx, FB_EXIT_USAGE, "--no-output contradicts --%s",
            o->traj      ? "trajectory"
            : o->restart ? "restart"
            : o->dump    ? "dump"
                         : "restart-every");
  /* defaults, then the deck */
  snprintf(md->deck_path, sizeof md->deck_path, "%s", o->input);
  snprintf(md->lattice, sizeof md->lattice, "fcc");
  snprintf(md->units_name, sizeof md->units_name, "lj");
  md->dt = 0.005;
  md->skin = 0.3;
  md->neigh_every = 1;
  md->neigh_delay = 0;
  md->neigh_check = 1;
  md->thermo_norm = -1; /* thermo_modify norm: LAMMPS's default for the units */
  md->epsilon = 1.0;
  md->sigma = 1.0;
  md->trajectory_every = 100;
  md->dump_every = 100;
  MdDeck *d = calloc(1, sizeof *d); /* the deck's text values: read, planned, freed */
  fb_agree(ctx, d ? 0 : FB_EXIT_RUNTIME, "out of memory reading the deck");
  d->seed = 87287;
  read_deck(ctx, md, d);
  for (int k = 0; k < 3; k++) md->replicate[k] = o->rep[k];
  check_deck(ctx, md, d);
  md_plan_from_deck(ctx, md, d);
  free(d);
  if (o->steps >= 0) md->stage_plan[md->nstages - 1].steps = o->steps;
  memcpy(md->grid, o->grid, sizeof o->grid);
  if (o->forces) snprintf(md->forces_out, sizeof md->forces_out, "%s", o->forces);
  if (o->traj) snprintf(md->trajectory, sizeof md->trajectory, "%s", o->traj);
  if (o->dump) snprintf(md->dump_path, sizeof md->dump_path, "%s", o->dump);
  if (o->restart) snprintf(md->restart_out, sizeof md->restart_out, "%s", o->restart);
  if (o->restart_every) md->restart_every = o->restart_every;
  if (o->read_restart) snprintf(md->restart_in, sizeof md->restart_in, "%s", o->read_restart);
  if (md->restart_in[0])
    md->data_file[0] = '\0'; /* the restart replaces the deck's initial state */
  if (md->no_output_flag) md->trajectory[0] = md->restart_out[0] = md->dump_path[0] = '\0';
  if (md->forces_out[0]) fb_check_output_path(ctx, "option --forces", md->forces_out);
  if (md->trajectory[0])
    fb_check_output_path(ctx, o->traj ? "option --trajectory" : "the deck's trajectory",
                         md->trajectory);
  if (md->dump_path[0])
    fb_check_output_path(ctx, o->dump ? "option --dump" : "the deck's dump", md->dump_path);
  if (md->restart_out[0])
    fb_check_output_path(ctx, o->restart ? "option --restart" : "the deck's restart",
                         md->restart_out);
}
