/* validate.c: md_shear's checks (no atom lost, NVE energy, momentum) and
 * its part of the run record. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVE energy drift bound: the largest change of the total energy over the
 * run, relative to its start. lj_bench (melting from the lattice with dt
 * 0.005, lists every 20 steps) changes 1.9e-3 in LAMMPS and here alike;
 * 5e-3 holds for it and fails a wrong force or a missed pair. */
#define MD_NVE_DRIFT_TOL 5e-3
/* Total momentum in fully periodic NVE runs: pair forces cancel exactly up
 * to rounding; the bound is relative to the sum of |m v| over the atoms. */
#define MD_MOMENTUM_TOL 1e-10

void md_validate(FbContext *ctx, Md *md, FbResult *r) {
  (void)ctx;
  fb_result_check_true(r, "atom count unchanged", md->lost_atoms == 0);
  fb_result_check_true(r, "energies finite", isfinite(md->e_last) && isfinite(md->e_first));
  int nve = !md->shear;
  int periodic = md->periodic[0] && md->periodic[1] && md->periodic[2];
  if (nve)
    fb_result_check_abs(r, "NVE energy drift |dE / E0|", md->e_max_dev / (md->e_first != 0 ? fabs(md->e_first) : 1.0),
                        0.0, MD_NVE_DRIFT_TOL);
  if (nve && periodic) {
    double dp = 0.0;
    for (int c = 0; c < 3; c++) dp = fmax(dp, fabs(md->p_last[c] - md->p_first[c]));
    fb_result_check_abs(r, "momentum change / sum |m v|", dp / (md->p_abs > 0 ? md->p_abs : 1.0), 0.0,
                        MD_MOMENTUM_TOL);
  }
}

void md_fill_result(FbContext *ctx, Md *md, FbResult *r, char **json) {
  r->loop_s = md->loop_s;
  r->wall_s = md->loop_s;
  fb_result_param_str(r, "input", md->deck_path);
  fb_result_param_str(r, "pair_style", md->pair_style);
  fb_result_param_int(r, "atoms", md->natoms);
  fb_result_param_int(r, "steps", md->total_steps);
  fb_result_param_double(r, "timestep", md->dt);
  fb_result_param_str(r, "units", md->units.name);
  fb_result_param_double(r, "cutoff", md->pot.cut);
  fb_result_param_double(r, "skin", md->skin);
  char grid[32];
  fb_decomp_grid_string(&md->decomp, grid, sizeof grid);
  snprintf(r->grid, sizeof r->grid, "%s", grid);
  long long ghosts = md_count(ctx, md->atoms.n_ghost), pairs = md_count(ctx, md->neigh.count);
  long long builds = md->neigh.builds, migrations = md_count(ctx, md->migrations);
  double fom = md->loop_s > 0 ? (double)md->natoms * md->total_steps / md->loop_s : 0.0;
  if (ctx->rank != 0) return;
  size_t len = md->thermo_len + 1024;
  *json = malloc(len);
  if (!*json) return;
  snprintf(*json, len,
           "{\"atoms\":%lld,\"steps\":%lld,\"loop_s\":%.6g,\"atom_steps_per_s\":%.6g,"
           "\"ns_per_day\":%.6g,\"ghost_atoms\":%lld,\"pairs_in_lists\":%lld,\"neighbor_builds\":%lld,"
           "\"migrated_atoms\":%lld,\"energy_first\":%.17g,\"energy_last\":%.17g,\"energy_max_dev\":%.6g,"
           "\"thermo_columns\":[\"stage\",\"Step\",\"Temp\",\"E_pair\",\"TotEng\",\"Press\"],\"thermo\":[%s]}",
           md->natoms, md->total_steps, md->loop_s, fom,
           md->loop_s > 0 ? md->total_steps * md->dt / md->loop_s * 86400.0 * (strcmp(md->units.name, "metal") ? 1.0 : 1e-3) : 0.0,
           ghosts, pairs, builds, migrations, md->e_first, md->e_last, md->e_max_dev,
           md->thermo_json ? md->thermo_json : "");
  r->app_json = *json;
}
