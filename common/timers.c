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
  memset(t->outside_s, 0, sizeof t->outside_s);
  memset(t->calls, 0, sizeof t->calls);
  memset(t->messages, 0, sizeof t->messages);
  memset(t->bytes, 0, sizeof t->bytes);
  memset(t->path_messages, 0, sizeof t->path_messages);
  memset(t->path_bytes, 0, sizeof t->path_bytes);
}

void fb_timer_start(FbTimers *t, int phase) {
  t->started[phase] = MPI_Wtime();
  t->current = phase;
}

void fb_timer_stop(FbTimers *t, int phase) {
  double dt = MPI_Wtime() - t->started[phase];
  if (t->loop_depth > 0)
    t->total_s[phase] += dt;
  else
    t->outside_s[phase] += dt;
  t->calls[phase]++;
  t->current = -1;
}

void fb_timers_count(FbTimers *t, int phase, long long messages, long long bytes) {
  fb_timers_exchange(t, phase, messages, bytes, 0, 0);
}

void fb_timers_exchange(FbTimers *t, int phase, long long sent, long long sent_bytes,
                        long long received, long long received_bytes) {
  t->messages[phase] += sent;
  t->bytes[phase] += sent_bytes;
  t->path_messages[phase] += sent ? sent : received;
  t->path_bytes[phase] += sent ? sent_bytes : received_bytes;
}

void fb_timers_collective(FbTimers *t, int phase, long long calls, long long bytes, int ranks) {
  if (ranks < 2) return;
  int rounds = 0;
  while ((1 << rounds) < ranks) rounds++;
  t->messages[phase] += calls;
  t->bytes[phase] += calls * bytes;
  t->path_messages[phase] += calls * rounds;
  t->path_bytes[phase] += calls * rounds * bytes;
}

void fb_timers_reduce(const FbTimers *t, MPI_Comm comm, FbPhaseStats *stats) {
  int n = t->count, size;
  MPI_Comm_size(comm, &size);
  double mins[FB_MAX_PHASES], maxs[FB_MAX_PHASES], sums[FB_MAX_PHASES];
  enum { N_COUNTS = 5 };
  long long counts[N_COUNTS * FB_MAX_PHASES], counts_sum[N_COUNTS * FB_MAX_PHASES];
  for (int p = 0; p < n; p++) {
    long long *c = counts + N_COUNTS * p;
    c[0] = t->calls[p];
    c[1] = t->messages[p];
    c[2] = t->bytes[p];
    c[3] = t->path_messages[p];
    c[4] = t->path_bytes[p];
  }
  MPI_Allreduce(t->total_s, mins, n, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(t->total_s, maxs, n, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(t->total_s, sums, n, MPI_DOUBLE, MPI_SUM, comm);
  double outside[FB_MAX_PHASES];
  MPI_Allreduce(t->outside_s, outside, n, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(counts, counts_sum, N_COUNTS * n, MPI_LONG_LONG, MPI_SUM, comm);
  for (int p = 0; p < n; p++) {
    stats[p].min_s = mins[p];
    stats[p].max_s = maxs[p];
    stats[p].avg_s = sums[p] / size;
    stats[p].outside_max_s = outside[p];
    const long long *c = counts_sum + N_COUNTS * p;
    stats[p].calls = c[0] / size;
    stats[p].messages = c[1];
    stats[p].bytes = c[2];
    stats[p].path_messages = c[3];
    stats[p].path_bytes = c[4];
  }
}

double fb_timer_resolution(void) { return MPI_Wtick(); }

double fb_now(void) { return MPI_Wtime(); }

/* Test hook slow_rank: the last rank's loop takes this much longer. */
#define FB_SLOW_RANK_DELAY_S 0.5

void fb_loop_begin(FbContext *ctx, FbLoop *loop) {
  if (!ctx->handoff_probed) { /* where the host put the ranks as the timing starts */
    ctx->handoff_before_ns = fb_probe_handoff(ctx);
    ctx->handoff_probed = 1;
  }
  if (ctx->timers.loop_depth == 0) fb_set_stage(ctx, "timed loop");
  MPI_Barrier(ctx->comm);
  ctx->timers.loop_depth++;
  loop->t0 = MPI_Wtime();
}

double fb_loop_end(FbContext *ctx, FbLoop *loop) {
  if (ctx->rank == ctx->size - 1 && fb_test_hook("slow_rank")) {
    double until = MPI_Wtime() + FB_SLOW_RANK_DELAY_S;
    while (MPI_Wtime() < until) {}
  }
  double local = MPI_Wtime() - loop->t0, in[2] = {local, -local}, out[2], sum = 0.0;
  if (ctx->timers.loop_depth > 0) ctx->timers.loop_depth--;
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, ctx->comm);
  MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, ctx->comm);
  loop->local_s = local;
  loop->max_s += out[0];
  loop->min_s += -out[1];
  loop->avg_s += sum / ctx->size;
  loop->segments++;
  if (out[0] < FB_MIN_TICKS * fb_timer_resolution()) loop->too_short = 1;
  if (ctx->timers.loop_depth == 0) fb_set_stage(ctx, "after the timed loop");
  return out[0];
}

/* In-place reduction of n values; timed and counted under phase, or untimed
 * with FB_NO_PHASE (set-up, validation). */
static void allreduce_n(FbContext *ctx, int phase, void *values, int n, MPI_Datatype type,
                        MPI_Op op, size_t elem) {
  if (phase >= 0) fb_timer_start(&ctx->timers, phase);
  fb_stall_if_asked(ctx);
  MPI_Allreduce(MPI_IN_PLACE, values, n, type, op, ctx->comm);
  if (phase < 0) return;
  fb_timer_stop(&ctx->timers, phase);
  fb_timers_collective(&ctx->timers, phase, 1, (long long)(elem * (size_t)n), ctx->size);
}

void fb_allreduce_sum_n(FbContext *ctx, int phase, double *values, int n) {
  allreduce_n(ctx, phase, values, n, MPI_DOUBLE, MPI_SUM, sizeof *values);
}
void fb_allreduce_max_n(FbContext *ctx, int phase, double *values, int n) {
  allreduce_n(ctx, phase, values, n, MPI_DOUBLE, MPI_MAX, sizeof *values);
}
void fb_allreduce_min_n(FbContext *ctx, int phase, double *values, int n) {
  allreduce_n(ctx, phase, values, n, MPI_DOUBLE, MPI_MIN, sizeof *values);
}
void fb_allreduce_sum_ll(FbContext *ctx, int phase, long long *values, int n) {
  allreduce_n(ctx, phase, values, n, MPI_LONG_LONG, MPI_SUM, sizeof *values);
}
void fb_allreduce_max_ll(FbContext *ctx, int phase, long long *values, int n) {
  allreduce_n(ctx, phase, values, n, MPI_LONG_LONG, MPI_MAX, sizeof *values);
}
double fb_allreduce_sum(FbContext *ctx, int phase, double local) {
  fb_allreduce_sum_n(ctx, phase, &local, 1);
  return local;
}
double fb_allreduce_max(FbContext *ctx, int phase, double local) {
  fb_allreduce_max_n(ctx, phase, &local, 1);
  return local;
}
double fb_allreduce_min(FbContext *ctx, int phase, double local) {
  fb_allreduce_min_n(ctx, phase, &local, 1);
  return local;
}

/* Rank root's n bytes to every rank (untimed: set-up and results). */
void fb_bcast_bytes(FbContext *ctx, void *data, size_t n, int root) {
  for (size_t off = 0; off < n; off += 1u << 30) {
    size_t len = n - off < (1u << 30) ? n - off : (1u << 30);
    MPI_Bcast((char *)data + off, (int)len, MPI_BYTE, root, ctx->comm);
  }
}

void fb_barrier(FbContext *ctx, int phase) {
  if (phase >= 0) fb_timer_start(&ctx->timers, phase);
  fb_stall_if_asked(ctx);
  MPI_Barrier(ctx->comm);
  if (phase >= 0) fb_timer_stop(&ctx->timers, phase);
}
