/* timers.c: named phase timers with per-rank accumulation, message and byte
 * counters, cross-rank min/avg/max, and the timed collectives of the layer. */
#include "fabricbench.h"
#include "internal.h"

#include <string.h>

void fb_timers_init(FbTimers *t, const char *const *names, int count) {
  memset(t, 0, sizeof *t);
  t->names = names;
  t->count = count > FB_MAX_PHASES ? FB_MAX_PHASES : count;
  t->current = -1;
}

void fb_timers_reset(FbTimers *t) {
  memset(t->total_s, 0, sizeof t->total_s);
  memset(t->calls, 0, sizeof t->calls);
  memset(t->messages, 0, sizeof t->messages);
  memset(t->bytes, 0, sizeof t->bytes);
}

void fb_timer_start(FbTimers *t, int phase) {
  t->started[phase] = MPI_Wtime();
  t->current = phase;
}

void fb_timer_stop(FbTimers *t, int phase) {
  t->total_s[phase] += MPI_Wtime() - t->started[phase];
  t->calls[phase]++;
  t->current = -1;
}

void fb_timers_count(FbTimers *t, int phase, long long messages, long long bytes) {
  t->messages[phase] += messages;
  t->bytes[phase] += bytes;
}

void fb_timers_reduce(const FbTimers *t, MPI_Comm comm, FbPhaseStats *stats) {
  int n = t->count, size;
  MPI_Comm_size(comm, &size);
  double mins[FB_MAX_PHASES], maxs[FB_MAX_PHASES], sums[FB_MAX_PHASES];
  long long counts[3 * FB_MAX_PHASES], counts_sum[3 * FB_MAX_PHASES];
  for (int p = 0; p < n; p++) {
    counts[3 * p] = t->calls[p];
    counts[3 * p + 1] = t->messages[p];
    counts[3 * p + 2] = t->bytes[p];
  }
  MPI_Allreduce(t->total_s, mins, n, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(t->total_s, maxs, n, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(t->total_s, sums, n, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(counts, counts_sum, 3 * n, MPI_LONG_LONG, MPI_SUM, comm);
  for (int p = 0; p < n; p++) {
    stats[p].min_s = mins[p];
    stats[p].max_s = maxs[p];
    stats[p].avg_s = sums[p] / size;
    stats[p].calls = counts_sum[3 * p] / size;
    stats[p].messages = counts_sum[3 * p + 1];
    stats[p].bytes = counts_sum[3 * p + 2];
  }
}

double fb_timer_resolution(void) { return MPI_Wtick(); }

static double allreduce_op(FbContext *ctx, int phase, double local, MPI_Op op) {
  double global = 0.0;
  int size = ctx->size;
  fb_timer_start(&ctx->timers, phase);
  fb_stall_if_asked(ctx);
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, op, ctx->comm);
  fb_timer_stop(&ctx->timers, phase);
  fb_timers_count(&ctx->timers, phase, size > 1 ? 1 : 0, size > 1 ? (long long)sizeof local : 0);
  return global;
}

double fb_allreduce_sum(FbContext *ctx, int phase, double local) {
  return allreduce_op(ctx, phase, local, MPI_SUM);
}
double fb_allreduce_max(FbContext *ctx, int phase, double local) {
  return allreduce_op(ctx, phase, local, MPI_MAX);
}
double fb_allreduce_min(FbContext *ctx, int phase, double local) {
  return allreduce_op(ctx, phase, local, MPI_MIN);
}

void fb_barrier(FbContext *ctx, int phase) {
  fb_timer_start(&ctx->timers, phase);
  fb_stall_if_asked(ctx);
  MPI_Barrier(ctx->comm);
  fb_timer_stop(&ctx->timers, phase);
}
