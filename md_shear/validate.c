/* validate.c: md_shear's checks (no atom lost, energies finite, the NVE
 * energy, momentum) and its part of the run record. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NVE energy drift: the largest change of the total energy over the run,
 * relative to the largest |KE| + |PE| of its thermo rows (never near zero,
 * unlike the total; the start's alone came near zero where a crystal's
 * potential energy did: VFe_mm.eam.fs's Fe at V's lattice constant, whose
 * collapse from 600 to 2900 K moved its total energy by 1.2% of the start's
 * 0.11 eV an atom and 0.2% of the 0.6 it reached).
 * The energy is the smooth one: plain truncation (shift no) makes the total
 * jump by E(rc) whenever a pair crosses the cutoff, which is the potential's
 * physics, not an integration error; md counts those jumps (the energy of
 * the shifted potential has none) and bounds what is left. lj_bench
 * (melting from the lattice, dt 0.005, lists every 20 steps) drifts 1.0e-3
 * of |KE| + |PE| in LAMMPS and here alike; forces 10% off their energy's
 * gradient drift 3e-2 and fail. */
#define MD_NVE_DRIFT_TOL 5e-3
/* Total momentum in fully periodic NVE runs: pair forces cancel exactly up
 * to rounding; the bound is relative to the sum of |m v| over the atoms. */
#define MD_MOMENTUM_TOL 1e-10

void md_validate(FbContext *ctx, Md *md, FbResult *r) {
  (void)ctx;
  fb_result_check_abs(r, "atoms_kept", "atoms at the end (LAMMPS: Lost atoms)",
                      (double)(md->natoms - md->lost_atoms), (double)md->natoms, 0.0);
  fb_result_check_true(r, "energies_finite", "energies finite",
                       isfinite(md->e_last) && isfinite(md->e_first));
  int periodic = md->periodic[0] && md->periodic[1] && md->periodic[2];
  if (md->nve && md->total_steps > 0) {
    double scale = md->e_scale > 0 ? md->e_scale : 1.0;
    fb_result_check_abs(r, "nve_energy_drift",
                        "NVE drift |dE| / max(|KE| + |PE|), cutoff jumps removed",
                        md->es_max_dev / scale, 0.0, MD_NVE_DRIFT_TOL);
  }
  if (md->nve && periodic && md->total_steps > 0) {
    double dp = 0.0;
    for (int c = 0; c < 3; c++) dp = fmax(dp, fabs(md->p_last[c] - md->p_first[c]));
    fb_result_check_abs(r, "momentum_change", "momentum change / sum |m v|",
                        dp / (md->p_abs > 0 ? md->p_abs : 1.0), 0.0, MD_MOMENTUM_TOL);
  }
}

static void columns_json(const Md *md, char *buf, size_t len) {
  size_t at = (size_t)snprintf(buf, len, "[\"run\"");
  for (int c = 0; c < md->ncolumns && at < len; c++)
    at += (size_t)snprintf(buf + at, len - at, ",\"%s\"", md->column[c].header);
  if (at < len) snprintf(buf + at, len - at, "]");
}

void md_fill_result(FbContext *ctx, Md *md, FbResult *r, char **json) {
  fb_result_param_str(r, "input", md->deck_path);
  fb_result_param_str(r, "pair_style", md->pair_style);
  fb_result_param_int(r, "atoms", md->natoms);
  fb_result_param_int(r, "steps", md->total_steps);
  fb_result_param_double(r, "timestep", md->dt);
  fb_result_param_str(r, "units", md->units.name);
  fb_result_param_double(r, "cutoff", md->pot.cut);
  fb_result_param_double(r, "skin", md->skin);
  char grid[32], boundary[8];
  fb_decomp_grid_string(&md->decomp, grid, sizeof grid);
  snprintf(r->grid, sizeof r->grid, "%s", grid);
  snprintf(boundary, sizeof boundary, "%c %c %c", md->boundary[0], md->boundary[1],
           md->boundary[2]);
  fb_result_param_str(r, "boundary", boundary);
  if (md->triclinic) { /* a tilted box's xy xz yz, as its data file gave them */
    char tilt[96];
    snprintf(tilt, sizeof tilt, "%.17g %.17g %.17g", md->tilt[0], md->tilt[1], md->tilt[2]);
    fb_result_param_str(r, "tilt", tilt);
  }
  long long counts[3] = {md->atoms.n_ghost, md->neigh.count, md->migrations};
  md_count_n(ctx, counts, 3);
  /* LAMMPS's "Nlocal: ave max min": how evenly the ranks share the atoms */
  const double per_rank_min = fb_allreduce_min(ctx, FB_NO_PHASE, md->atoms.n_local),
               per_rank_max = fb_allreduce_max(ctx, FB_NO_PHASE, md->atoms.n_local);
  double fom = md->loop_s > 0 ? (double)md->natoms * md->total_steps / md->loop_s : 0.0;
  if (ctx->rank != 0) return;
  char columns[MD_MAX_COLUMNS * 24];
  columns_json(md, columns, sizeof columns);
  size_t len = md->thermo_len + 2048;
  *json = malloc(len);
  if (!*json) return;
  snprintf(
      *json, len,
      "{\"atoms\":%lld,\"types\":%d,\"steps\":%lld,\"runs\":%d,\"loop_s\":%.6g,\"atom_steps_per_"
      "s\":%.6g,"
      "\"ns_per_day\":%.6g,\"ghost_atoms\":%lld,\"pairs_in_lists\":%lld,\"neighbor_builds\":%lld,"
      "\"migrated_atoms\":%lld,\"atoms_per_rank_min\":%.0f,\"atoms_per_rank_max\":%.0f,"
      "\"energy_first\":%.17g,\"energy_last\":%.17g,\"energy_max_dev\":%."
      "6g,"
      "\"smooth_energy_max_dev\":%.6g,\"thermo_columns\":%s,\"thermo\":[%s]}",
      md->natoms, md->ntypes, md->total_steps, md->nstages, md->loop_s, fom,
      md->loop_s > 0 ? md->total_steps * md->dt / md->loop_s * 86400.0 *
                           (strcmp(md->units.name, "metal") ? 1.0 : 1e-3)
                     : 0.0,
      counts[0], counts[1], md->neigh.builds, counts[2], per_rank_min, per_rank_max, md->e_first,
      md->e_last, md->e_max_dev, md->es_max_dev, columns, md->thermo_json ? md->thermo_json : "");
  r->app_json = *json;
}
