/* run.c: one HPL case from set-up to verdict, and HPL's output lines. */
#include "hpl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const RULE =
    "================================================================================\n";
static const char *const DASH =
    "--------------------------------------------------------------------------------\n";

/* HPL's T/V code: W(all time), R(ow-major grid), look-ahead depth 1, the
 * broadcast (0: increasing ring, HPL's 1rg; 6: binomial, not an HPL code),
 * then the panel factorisation, recursive (halves, right-looking leaves):
 * R2R4 with leaves of 4 columns on one process column (P = 1), R2R8 with
 * leaves of 8 when the panel is spread over P > 1 (factor.c's dist_lu). */
static void tv_code(const HplCase *c, char *buf, size_t len) {
  const int code = c->bcast == BCAST_RING ? 0 : c->bcast == BCAST_RING_MODIFIED ? 1 : 6;
  snprintf(buf, len, "WR1%d%s", code, c->p == 1 ? "R2R4" : "R2R8");
}

static double flops(long long n) {
  double nd = (double)n;
  return 2.0 / 3.0 * nd * nd * nd + 1.5 * nd * nd;
}

int hpl_run_case(FbContext *ctx, const HplConfig *cfg, const HplCase *c, int index) {
  FbResult r;
  char results[512];
  fb_result_init(&r, "Gflops", "Gflop/s", 1);
  hpl_blas_check(ctx, &r, index == 0);
  int grid_ranks = c->p * c->q, idle = ctx->rank >= grid_ranks;
  fb_check_memory(ctx, idle ? 0 : hpl_memory_need(c, ctx->rank / c->q, ctx->rank % c->q),
                  "the matrix and its work space");
  if (grid_ranks + 1 == ctx->size)
    fb_print(ctx, "rank %d is outside the %dx%d grid: it sits this case out, as in HPL\n",
             grid_ranks, c->p, c->q);
  else if (grid_ranks < ctx->size)
    fb_print(ctx, "ranks %d-%d are outside the %dx%d grid: they sit this case out, as in HPL\n",
             grid_ranks, ctx->size - 1, c->p, c->q);
  HplMatrix m;
  HplOutcome out = {0};
  for (long long rep = 0; rep < ctx->common.repeat; rep++) {
    int rc = hpl_matrix_init(ctx, &m, c, (unsigned long long)cfg->seed);
    hpl_sit_out(ctx, &m);
    fb_agree(ctx, rc, "out of memory allocating the matrix");
    fb_timers_reset(&ctx->timers);
    FbLoop loop = {0};
    fb_loop_begin(ctx, &loop);
    if (!idle) {
      out.singular = hpl_factor(ctx, &m);
      hpl_solve(ctx, &m);
    }
    hpl_sit_out(ctx, &m);
    out.time_s = fb_loop_end(ctx, &loop);
    out.gflops = flops(c->n) / out.time_s / 1e9;
    fb_result_add_loop(&r, &loop, out.gflops);
    if (!idle) hpl_check(ctx, &m, (unsigned long long)cfg->seed, &out);
    hpl_sit_out(ctx, &m);
    if (rep + 1 < ctx->common.repeat) hpl_matrix_free(&m);
  }
  out.passed = !out.singular && out.resid < cfg->threshold;
  char code[16];
  tv_code(c, code, sizeof code);
  fb_print(ctx,
           "%sT/V                N    NB     P     Q               Time                 Gflops\n%s",
           RULE, DASH);
  fb_print(ctx, "%-13s %8lld %5lld %5d %5d %18.2f %22.4e\n", code, c->n, c->nb, c->p, c->q,
           out.time_s, out.gflops);
  fb_print(ctx, "%s||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= %14.7e ...... %s\n%s", DASH,
           out.resid, out.passed ? "PASSED" : "FAILED", RULE);
  if (out.singular) fb_print(ctx, "the matrix is singular to working precision\n");
  /* forwards of a panel along a process row (a ring's middle processes, a
   * tree's inner nodes): during the update, as soon as it came, or later */
  long long forwarded[2] = {m.forwarded_early, m.forwarded_late};
  fb_allreduce_sum_ll(ctx, FB_NO_PHASE, forwarded, 2);
  if (forwarded[0] + forwarded[1] > 0)
    fb_print(ctx, "panel forwards along the process rows: %lld during the update, %lld after it\n",
             forwarded[0], forwarded[1]);
  fb_result_check_abs(&r, "scaled_residual", "HPL's scaled residual", out.resid, 0.0,
                      cfg->threshold);
  fb_result_check_true(&r, "not_singular", "matrix not singular", !out.singular);
  snprintf(r.grid, sizeof r.grid, "%dx%d", c->p, c->q);
  fb_result_param_int(&r, "case", index + 1);
  fb_result_param_int(&r, "N", c->n);
  fb_result_param_int(&r, "NB", c->nb);
  fb_result_param_int(&r, "P", c->p);
  fb_result_param_int(&r, "Q", c->q);
  fb_result_param_int(&r, "idle_ranks", ctx->size - grid_ranks);
  fb_result_param_str(&r, "bcast_used",
                      c->bcast == BCAST_RING            ? "increasing ring"
                      : c->bcast == BCAST_RING_MODIFIED ? "modified increasing ring"
                                                        : "binomial");
  fb_result_param_str(&r, "tv", code);
  snprintf(results, sizeof results,
           "{\"resid\":%.17g,\"norm_a\":%.17g,\"norm_x\":%.17g,\"norm_b\":%.17g,"
           "\"x_sum\":%.17g,\"x_first\":%.17g,\"x_last\":%.17g,\"passed\":%s,"
           "\"panel_forwards_during_update\":%lld,\"panel_forwards_after_update\":%lld}",
           out.resid, out.norm_a, out.norm_x, out.norm_b, out.x_sum, idle ? 0.0 : m.x[0],
           idle ? 0.0 : m.x[c->n - 1], out.passed ? "true" : "false", forwarded[0], forwarded[1]);
  r.app_json = results;
  int status = fb_report(ctx, &r);
  hpl_matrix_free(&m);
  return status;
}
