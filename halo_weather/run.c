/* run.c: the time loop with its Courant checks, history and restart files,
 * and the diagnostics before and after. */
#include "weather.h"

#include <math.h>
#include <stdio.h>

void wx_start(FbContext *ctx, Weather *w) {
  w->total_steps = 0;
  w->io_bytes = w->io_s = 0.0;
  w->history_frames = 0;
  w->max_courant = w->max_w = 0.0;
  if (w->restart_in[0]) {
    char err[FB_MSG_LEN];
    int rc = wx_restart_read(ctx, w, err, sizeof err);
    fb_agree(ctx, rc, err);
  } else {
    wx_initial_state(w);
    w->start_step = 0;
  }
  wx_exchange(ctx, w, w->s); /* the diagnostics read the east and north faces' halo */
  wx_diagnostics(ctx, w, &w->mass0, w->tracer0, &w->energy0);
  fb_print(ctx, "%10s %14s %22s %12s %10s\n", "step", "sim time (s)", "mass", "energy", "max w");
  fb_print(ctx, "%10lld %14.1f %22.15e %12.6e %10s\n", w->start_step, w->start_step * w->dt,
           w->mass0, w->energy0, "-");
}

static int due(long long step, long long every) { return every > 0 && step % every == 0; }

void wx_run(FbContext *ctx, Weather *w) {
  long long first = w->start_step, last = w->start_step + w->steps;
  int rc = 0;
  if (due(first, w->history_every) && !w->restart_in[0]) rc = wx_history_write(ctx, w, first);
  w->loop = (FbLoop){0};
  fb_loop_begin(ctx, &w->loop);
  for (long long step = first + 1; step <= last && !rc; step++) {
    wx_step(ctx, w);
    w->total_steps++;
    const int table = due(step - first, w->steps / 10 > 0 ? w->steps / 10 : 1) || step == last;
    if (table || due(step, w->cfl_every))
      wx_courant(ctx, w, step); /* the table's max w is this step's */
    if (due(step, w->history_every)) rc = wx_history_write(ctx, w, step);
    if (!rc && due(step, w->restart_every) && w->restart_out[0])
      rc = wx_restart_write(ctx, w, step, 1);
    if (table) {
      double mass, tracer[2], energy;
      wx_diagnostics(ctx, w, &mass, tracer, &energy);
      fb_print(ctx, "%10lld %14.1f %22.15e %12.6e %10.4g\n", step, step * w->dt, mass, energy,
               w->w_now);
    }
  }
  w->loop_s = fb_loop_end(ctx, &w->loop);
  if (ctx->rank == 0 && fb_test_hook("wx_lose_tracer")) /* test hook: a tracer leaks */
    w->s[F_Q1][wx_idx(w, 0, 0, 0)] *= 0.5;
  if (ctx->rank == 0 && fb_test_hook("wx_break_2d") &&
      w->ny > 1) /* test hook: a 2-D case gains a y dependence */
    w->s[F_THETA][wx_idx(w, 0, 1, 0)] += 1e-9;
  fb_agree(ctx, 0, "");
  if (!rc && w->restart_out[0]) rc = wx_restart_write(ctx, w, last, 0);
  (void)rc; /* write failures have already stopped the run (exit 3) */
}

void wx_finish(FbContext *ctx, Weather *w) {
  wx_history_close(ctx, w);
  wx_exchange(ctx, w, w->s);
  wx_diagnostics(ctx, w, &w->mass1, w->tracer1, &w->energy1);
  w->checksum = wx_checksum(ctx, w);
  if (w->wcase == CASE_ADVECTION) wx_advection_errors(ctx, w);
  wx_case_measures(ctx, w);
  double points = (double)w->n[0] * (double)w->n[1] * (double)w->n[2];
  fb_print(ctx,
           "%lld steps of %g s in %.3f s: %.4g grid-point updates/s, simulation speed %.1f "
           "(simulated s per wall s)\n",
           w->total_steps, w->dt, w->loop_s,
           w->loop_s > 0 ? points * w->total_steps / w->loop_s : 0.0,
           w->loop_s > 0 ? w->total_steps * w->dt / w->loop_s : 0.0);
  fb_print(ctx, "state checksum %.17g; mass change %.3e, energy change %.3e\n", w->checksum,
           (w->mass1 - w->mass0) / w->mass0, (w->energy1 - w->energy0) / w->energy0);
  if (w->wcase == CASE_ADVECTION)
    fb_print(ctx,
             "advection error after %.0f s: L1 %.4e  L2 %.4e  Linf %.4e (relative to the rms of "
             "the exact tracer)\n",
             (w->start_step + w->total_steps) * w->dt, w->err_l1, w->err_l2, w->err_linf);
  if (w->io_s > 0)
    fb_print(ctx, "I/O: %lld history frames, %.3g GB written in %.3f s (%.3g GB/s)\n",
             w->history_frames, w->io_bytes / 1e9, w->io_s, w->io_bytes / w->io_s / 1e9);
}
