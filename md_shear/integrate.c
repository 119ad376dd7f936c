/* integrate.c: the time loop in LAMMPS's order (fix nve's velocity Verlet,
 * neighbour decision, forces, walls, thermostat, thermo), with the shear
 * example's two runs: equilibration, then the moving wall. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thermostat group and velocity components: the shear runs use the mobile
 * atoms (all three components while equilibrating, y and z while shearing,
 * LAMMPS's temp/partial 0 1 1); other runs use every atom. */
static int temp_group(const Md *md) { return md->shear ? MD_MOBILE : MD_MOBILE | MD_LOWER | MD_UPPER; }
static int temp_uses(const Md *md, int c) { return !(md->shear && md->stage == 1 && c == 0); }

double md_temperature(FbContext *ctx, Md *md, double *dof_out) {
  const MdAtoms *a = &md->atoms;
  int group = temp_group(md), ncomp = 0;
  for (int c = 0; c < 3; c++) ncomp += temp_uses(md, c);
  double sum[2] = {0.0, 0.0};
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & group)) continue;
    double m = md->mass[a->type[i]];
    for (int c = 0; c < 3; c++)
      if (temp_uses(md, c)) sum[0] += m * a->v[i][c] * a->v[i][c];
  }
  md_sum_exact(ctx, sum, 1);
  long long n = md->shear ? md->nmobile : md->natoms;
  /* LAMMPS: dof = ncomp N minus the 3 momentum dof scaled by ncomp / 3 */
  double dof = ncomp * (double)n - ncomp;
  if (dof_out) *dof_out = dof;
  return dof > 0.0 ? sum[0] * md->units.mvv2e / (dof * md->units.boltz) : 0.0;
}

static void append_thermo(Md *md, const char *row) {
  size_t n = strlen(row);
  if (md->thermo_len + n + 2 > md->thermo_cap) {
    size_t cap = md->thermo_cap ? 2 * md->thermo_cap : 4096;
    while (cap < md->thermo_len + n + 2) cap *= 2;
    char *p = realloc(md->thermo_json, cap);
    if (!p) return; /* the table in the record is then shorter; the run goes on */
    md->thermo_json = p;
    md->thermo_cap = cap;
  }
  if (md->thermo_len) md->thermo_json[md->thermo_len++] = ',';
  memcpy(md->thermo_json + md->thermo_len, row, n + 1);
  md->thermo_len += n;
}

/* Thermo: Step Temp E_pair TotEng Press, LAMMPS's definitions (energies per
 * atom in lj units, totals in metal units; kinetic energy and pressure from
 * the thermo temperature). */
void md_thermo(FbContext *ctx, Md *md, int print) {
  const MdAtoms *a = &md->atoms;
  double dof, t = md_temperature(ctx, md, &dof);
  double sums[6] = {md->e_pair, md->virial, 0, 0, 0, 0};
  for (int i = 0; i < a->n_local; i++)
    for (int c = 0; c < 3; c++) {
      sums[2 + c] += md->mass[a->type[i]] * a->v[i][c];
      sums[5] += md->mass[a->type[i]] * fabs(a->v[i][c]);
    }
  md_sum_exact(ctx, sums, 6);
  long long count = md_count(ctx, a->n_local);
  if (count != md->natoms) md->lost_atoms = md->natoms - count;
  double lo[3], hi[3];
  for (int d = 0; d < 3; d++) { lo[d] = INFINITY; hi[d] = -INFINITY; }
  for (int i = 0; i < a->n_local; i++)
    for (int d = 0; d < 3; d++) { lo[d] = fmin(lo[d], a->x[i][d]); hi[d] = fmax(hi[d], a->x[i][d]); }
  md_minmax(ctx, lo, hi);
  double volume = 1.0;
  for (int d = 0; d < 3; d++) volume *= md->periodic[d] ? md->prd[d] : hi[d] - lo[d];
  double ke = t * 0.5 * dof * md->units.boltz;
  double pe = sums[0], norm = strcmp(md->units.name, "lj") ? 1.0 : 1.0 / (double)md->natoms;
  double press = (dof * md->units.boltz * t + sums[1]) / (3.0 * volume) * md->units.nktv2p;
  double etotal = (pe + ke) * norm;
  long long step = md->step;
  if (md->thermo_rows == 0) {
    md->e_first = etotal;
    memcpy(md->p_first, sums + 2, sizeof md->p_first);
    md->p_abs = sums[5];
  }
  md->e_max_dev = fmax(md->e_max_dev, fabs(etotal - md->e_first));
  md->e_last = etotal;
  memcpy(md->p_last, sums + 2, sizeof md->p_last);
  md->thermo_rows++;
  if (ctx->rank != 0) return;
  if (print) fb_print(ctx, "%10lld %16.10g %16.10g %16.10g %16.10g\n", step, t, pe * norm, etotal, press);
  char row[256];
  snprintf(row, sizeof row, "[%d,%lld,%.17g,%.17g,%.17g,%.17g]", md->stage, step, t, pe * norm, etotal, press);
  append_thermo(md, row);
}

static void thermo_header(FbContext *ctx) {
  fb_print(ctx, "%10s %16s %16s %16s %16s\n", "Step", "Temp", "E_pair", "TotEng", "Press");
}

/* Neighbour lists from scratch: wrap and migrate, ghosts, bins, list. */
static void reneighbor(FbContext *ctx, Md *md) {
  md_migrate(ctx, md);
  md_sort_atoms(md);
  md_borders(ctx, md);
  fb_timer_start(&ctx->timers, PH_NEIGH);
  md_neighbor_build(md);
  fb_timer_stop(&ctx->timers, PH_NEIGH);
  fb_agree(ctx, md->neigh.count < 0 ? FB_EXIT_RUNTIME : 0, "out of memory building the neighbour list");
  md->check_overlap = 1;
}

static void zero_wall_forces(Md *md) {
  MdAtoms *a = &md->atoms;
  if (!md->shear) return;
  for (int i = 0; i < a->n_local; i++)
    if (a->group[i] != MD_MOBILE) a->f[i][0] = a->f[i][1] = a->f[i][2] = 0.0;
}

static void compute_forces(FbContext *ctx, Md *md) {
  static int scale_hook = -1;
  if (scale_hook < 0) scale_hook = fb_test_hook("md_force_scale");
  md_force(ctx, md);
  md->check_overlap = 0;
  zero_wall_forces(md);
  if (scale_hook) /* test hook: forces 10% off the energy's gradient */
    for (int i = 0; i < md->atoms.n_local; i++)
      for (int c = 0; c < 3; c++) md->atoms.f[i][c] *= 1.1;
}

/* fix temp/rescale: every N steps, if T is outside the window, move it the
 * fraction of the way to the target by scaling the thermostat components. */
static void rescale(FbContext *ctx, Md *md) {
  if (!md->shear || !md->rescale_every || md->step % md->rescale_every) return;
  double t = md_temperature(ctx, md, NULL);
  if (!(t > 0.0) || fabs(t - md->temperature) <= md->rescale_window) return;
  double target = t - md->rescale_fraction * (t - md->temperature);
  double factor = sqrt(target / t);
  MdAtoms *a = &md->atoms;
  for (int i = 0; i < a->n_local; i++)
    if (a->group[i] & MD_MOBILE)
      for (int c = 0; c < 3; c++)
        if (temp_uses(md, c)) a->v[i][c] *= factor;
}

static void integrate_half(Md *md, int positions) {
  MdAtoms *a = &md->atoms;
  const double dtf = 0.5 * md->dt * md->units.ftm2v, dt = md->dt;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < a->n_local; i++) {
    double dtfm = dtf / md->mass[a->type[i]];
    for (int c = 0; c < 3; c++) {
      a->v[i][c] += dtfm * a->f[i][c];
      if (positions) a->x[i][c] += dt * a->v[i][c];
    }
  }
}

/* Start of the shear run: the upper wall moves, a linear vx ramp is added
 * over the mobile atoms (velocities in lattice units, as LAMMPS's velocity
 * command takes them by default). */
static void start_shear(Md *md) {
  MdAtoms *a = &md->atoms;
  double vwall = md->wall_velocity * md->spacing[0];
  double ylo = md->ramp_lo * md->spacing[1], yhi = md->ramp_hi * md->spacing[1];
  for (int i = 0; i < a->n_local; i++) {
    if (a->group[i] == MD_UPPER) { a->v[i][0] = vwall; a->v[i][1] = a->v[i][2] = 0.0; }
    if (a->group[i] != MD_MOBILE) continue;
    double frac = (a->x[i][1] - ylo) / (yhi - ylo);
    frac = frac < 0.0 ? 0.0 : frac > 1.0 ? 1.0 : frac;
    a->v[i][0] += frac * vwall;
  }
}

/* The trajectory covers the last run (the shear run of the shear example). */
static int last_stage(const Md *md) { return md->shear ? 1 : 0; }

static int output_due(const Md *md, long long every) { return every > 0 && md->step > 0 && md->step % every == 0; }

static void run_stage(FbContext *ctx, Md *md, long long nsteps) {
  long long ago = 0;
  int print = !ctx->common.quiet;
  double t0 = MPI_Wtime();
  long long last = md->step + nsteps;
  for (; md->step < last;) {
    md->step++;
    md->total_steps++;
    fb_timer_start(&ctx->timers, PH_OTHER);
    integrate_half(md, 1);
    fb_timer_stop(&ctx->timers, PH_OTHER);
    if (md->total_steps == 5 && ctx->rank == 0 && md->atoms.n_local > 0 && fb_test_hook("md_lose_atom"))
      md->atoms.n_local--; /* test hook: an atom vanishes */
    ago++;
    int rebuild = output_due(md, md->restart_every);
    if (!rebuild && ago >= md->neigh_delay && ago % md->neigh_every == 0) {
      int moved = 1;
      if (md->neigh_check) {
        fb_timer_start(&ctx->timers, PH_NEIGH);
        moved = md_neighbor_check(md);
        fb_timer_stop(&ctx->timers, PH_NEIGH);
        moved = md_any(ctx, moved);
      }
      rebuild = moved;
    }
    if (rebuild) {
      reneighbor(ctx, md);
      ago = 0;
    } else {
      md_forward_x(ctx, md);
    }
    const int thermo = md->step == last || (md->thermo_every && md->step % md->thermo_every == 0);
    md->energy_due = thermo;
    compute_forces(ctx, md);
    fb_timer_start(&ctx->timers, PH_OTHER);
    integrate_half(md, 0);
    fb_timer_stop(&ctx->timers, PH_OTHER);
    rescale(ctx, md);
    if (thermo) md_thermo(ctx, md, print);
    if (output_due(md, md->trajectory_every) && md->trajectory[0] && md->stage == last_stage(md))
      md_trajectory_frame(ctx, md);
    if (output_due(md, md->restart_every) && md->restart_out[0]) md_restart_write(ctx, md);
  }
  double loop = MPI_Wtime() - t0;
  md->loop_s += loop;
  fb_print(ctx, "Loop time of %g on %d procs for %lld steps with %lld atoms\n\n", loop, ctx->size, nsteps,
           md->natoms);
}

void md_run(FbContext *ctx, Md *md) {
  reneighbor(ctx, md);
  md->energy_due = 1; /* the thermo line of step 0 */
  compute_forces(ctx, md);
  if (md->forces_out[0]) md_write_forces(ctx, md);
  /* stage 0: the only run, or the shear equilibration; stage 1: the shear */
  long long plan[2] = {md->shear ? md->equil_steps : md->steps, md->steps};
  int stages = md->shear ? 2 : 1, resumed = md->restart_in[0] != '\0';
  md->step = md->start_step;
  for (md->stage = md->start_stage; md->stage < stages; md->stage++) {
    if (md->stage == 1 && !(resumed && md->start_stage == 1)) {
      start_shear(md);
      md->step = 0; /* reset_timestep 0, as the example does */
    }
    long long remaining = plan[md->stage] - md->step;
    thermo_header(ctx);
    md_thermo(ctx, md, !ctx->common.quiet);
    if (md->trajectory[0] && md->step == 0 && md->stage == last_stage(md)) md_trajectory_frame(ctx, md);
    run_stage(ctx, md, remaining > 0 ? remaining : 0);
  }
  md->stage = stages - 1;
  if (md->restart_out[0] && !output_due(md, md->restart_every)) md_restart_write(ctx, md);
}
