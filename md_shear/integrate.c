/* integrate.c: the runs in LAMMPS's order. Before each run its velocity
 * commands and reset_timestep; the run's set-up (box, lists, forces, thermo
 * of its first step); then each step: fix nve's first half, the neighbour
 * decision (and, on rebuilds, the shrink-wrapped box), forces, fix setforce,
 * fix nve's second half, fix temp/rescale, thermo and output. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Neighbour lists from scratch (LAMMPS's order): the box and its division,
 * wrap and migrate, ghosts, bins, list. */
static void reneighbor(FbContext *ctx, Md *md) {
  md_reset_box(ctx, md);
  md_resplit(ctx, md);
  md_migrate(ctx, md);
  md_sort_atoms(md);
  md_borders(ctx, md);
  fb_timer_start(&ctx->timers, PH_NEIGH);
  md_neighbor_build(md);
  fb_timer_stop(&ctx->timers, PH_NEIGH);
  fb_agree(ctx, md->neigh.count < 0 ? FB_EXIT_RUNTIME : 0,
           "out of memory building the neighbour list");
  md->check_forces = 1;
}

/* fix setforce 0 0 0 on its group (owned atoms). */
static void set_forces(Md *md) {
  if (md->setforce_group < 0) return;
  MdAtoms *a = &md->atoms;
  const int bit = 1 << md->setforce_group;
  for (int i = 0; i < a->n_local; i++)
    if (a->group[i] & bit) a->f[i][0] = a->f[i][1] = a->f[i][2] = 0.0;
}

static void compute_forces(FbContext *ctx, Md *md, int scale_hook) {
  md_force(ctx, md);
  md->check_forces = 0;
  set_forces(md);
  if (scale_hook) /* test hook: forces 10% off the energy's gradient */
    for (int i = 0; i < md->atoms.n_local; i++)
      for (int c = 0; c < 3; c++) md->atoms.f[i][c] *= 1.1;
}

/* fix temp/rescale (FixTempRescale::end_of_step): every N steps the target
 * moves from TSTART to TSTOP over the run; outside the window, the fix's
 * group is scaled toward it by FRACTION, only in the components its
 * temperature uses (a temp/partial compute's bias is left alone). */
static void rescale(FbContext *ctx, Md *md) {
  const MdRescale *r = &md->stage_plan[md->stage].rescale;
  if (!r->on || md->step % r->every) return;
  double dof, t = md_temperature(ctx, md, r->compute, &dof);
  if (dof < 1.0) return;
  if (t == 0.0)
    fb_fail(ctx, FB_EXIT_RUNTIME, "temp/rescale: the temperature is 0 at step %lld", md->step);
  double delta = (double)(md->step - md->stage_begin);
  if (delta != 0.0) delta /= (double)(md->stage_end - md->stage_begin);
  double target = r->t_start + delta * (r->t_stop - r->t_start);
  if (fabs(t - target) <= r->window) return;
  target = t - r->fraction * (t - target);
  double factor = sqrt(target / t);
  const MdCompute *c = &md->compute[r->compute];
  const int bit = 1 << r->group;
  MdAtoms *a = &md->atoms;
  for (int i = 0; i < a->n_local; i++)
    if (a->group[i] & bit)
      for (int k = 0; k < 3; k++)
        if (c->use[k]) a->v[i][k] *= factor;
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

/* The trajectory covers the last run. */
static int trajectory_now(const Md *md) {
  return md->trajectory[0] && md->stage == md->nstages - 1 && md->step % md->trajectory_every == 0;
}
static int dump_now(const Md *md) { return md->dump_path[0] && md->step % md->dump_every == 0; }

static void outputs(FbContext *ctx, Md *md) {
  if (trajectory_now(md)) md_trajectory_frame(ctx, md);
  if (dump_now(md)) md_dump_frame(ctx, md);
}

static int restart_due(const Md *md) {
  return md->restart_every > 0 && md->step > md->stage_begin && md->step % md->restart_every == 0;
}

/* One step of velocity Verlet with its neighbour decision. */
static void step(FbContext *ctx, Md *md, long long *ago, int scale_hook) {
  md->step++;
  md->total_steps++;
  fb_timer_start(&ctx->timers, PH_OTHER);
  integrate_half(md, 1);
  fb_timer_stop(&ctx->timers, PH_OTHER);
  if (md->total_steps == 5 && ctx->rank == 0 && md->atoms.n_local > 0 &&
      fb_test_hook("md_lose_atom"))
    md->atoms.n_local--; /* test hook: an atom vanishes */
  (*ago)++;
  int rebuild = restart_due(md);
  if (!rebuild && *ago >= md->neigh_delay && *ago % md->neigh_every == 0) {
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
    *ago = 0;
  } else {
    md_forward_x(ctx, md);
  }
  const MdStage *st = &md->stage_plan[md->stage];
  const int thermo =
      md->step == md->stage_end || (st->thermo_every && md->step % st->thermo_every == 0);
  md->energy_due = thermo;
  md->peratom_due = trajectory_now(md) || dump_now(md);
  compute_forces(ctx, md, scale_hook);
  fb_timer_start(&ctx->timers, PH_OTHER);
  integrate_half(md, 0);
  fb_timer_stop(&ctx->timers, PH_OTHER);
  rescale(ctx, md);
  if (thermo) md_thermo(ctx, md, !ctx->common.quiet);
  outputs(ctx, md);
  if (restart_due(md) && md->restart_out[0]) md_restart_write(ctx, md);
}

/* A run's set-up (LAMMPS's Verlet::setup): the box, lists and forces from
 * scratch, the thermo line and output of its first step. */
static void setup_run(FbContext *ctx, Md *md, int scale_hook) {
  reneighbor(ctx, md);
  md->energy_due = 1;
  md->peratom_due = trajectory_now(md) || dump_now(md);
  compute_forces(ctx, md, scale_hook);
  if (md->forces_out[0] && md->stage == 0 && md->step == md->stage_begin) md_write_forces(ctx, md);
  md_thermo_header(ctx, md);
  md_thermo(ctx, md, !ctx->common.quiet);
  outputs(ctx, md);
}

void md_run(FbContext *ctx, Md *md) {
  const int scale_hook = fb_test_hook("md_force_scale");
  const int resumed = md->restart_in[0] != '\0';
  md->step = md->start_step;
  for (md->stage = md->start_stage; md->stage < md->nstages; md->stage++) {
    const MdStage *st = &md->stage_plan[md->stage];
    if (!(resumed && md->stage == md->start_stage)) { /* a fresh run: its commands first */
      if (st->reset_timestep) md->step = 0;
      for (int k = 0; k < st->n_vel; k++) md_velocity(ctx, md, &st->vel[k]);
      md->stage_begin = md->step;
    }
    md->stage_end = md->stage_begin + st->steps;
    setup_run(ctx, md, scale_hook);
    long long ago = 0, first = md->step;
    fb_loop_begin(ctx, &md->loop);
    while (md->step < md->stage_end) step(ctx, md, &ago, scale_hook);
    double loop = fb_loop_end(ctx, &md->loop);
    fb_print(ctx, "Loop time of %g on %d procs for %lld steps with %lld atoms\n\n", loop, ctx->size,
             md->step - first, md->natoms);
  }
  md->stage = md->nstages - 1;
  md->loop_s = md->loop.max_s;
  if (md->restart_out[0] && !restart_due(md)) md_restart_write(ctx, md);
}
