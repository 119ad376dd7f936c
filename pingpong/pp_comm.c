/* pp_comm.c: the measured communication loops, OSU's patterns: ping-pong,
 * windowed bandwidth with an acknowledgement, bidirectional windows, and
 * allreduce. Buffer preparation and full checks stay outside the timed part
 * of each iteration. */
#include "pingpong.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_DATA = 1, TAG_ACK = 2 };

typedef struct {
  long long size, warmup, iterations;
  double *samples; /* seconds per timed iteration (leaders) */
  long long bad;   /* wrong bytes seen by this rank */
} Sweep;

/* Flips a byte in the middle of the first timed message (test hook). */
static inline void corrupt_for_test(unsigned char *buf, long long size, long long it,
                                    long long warmup) {
  if (it == warmup && size >= 3 && fb_test_hook("pingpong_corrupt")) buf[size / 2] ^= 0x5a;
}

static inline void prepare(const PingPong *pp, unsigned char *buf, long long size, long long it) {
  if (pp->validate)
    pp_fill(buf, size, it);
  else
    pp_mark(buf, size, it);
}

/* A small message from the leader to its partner (hpcc's loop length and
 * confirmation). */
static void handshake(FbContext *ctx, const PingPong *pp) {
  int go = 1;
  if (pp->leader)
    MPI_Send(&go, 1, MPI_INT, pp->partner, TAG_ACK, ctx->comm);
  else
    MPI_Recv(&go, 1, MPI_INT, pp->partner, TAG_ACK, ctx->comm, MPI_STATUS_IGNORE);
}

/* --handshake: hpcc's PingPong protocol (bench_lat_bw). Each sample is a
 * loop of --loop round trips that follows a pause: the leader sends a small
 * handshake, one untimed round trip runs, then the timed loop, then a
 * confirmation; the sample is the loop's mean (hpcc: loops of 8 round trips
 * for its latency, of 1 for its bandwidth). Round trip r (loop + 1 per
 * sample) carries pattern r both ways. */
static void latency_handshake(FbContext *ctx, PingPong *pp, Sweep *w) {
  const long long n = w->warmup + w->iterations, size = w->size, trips = pp->loop + 1;
  int peer = pp->partner;
  for (long long it = 0; it < n; it++) {
    double t0 = 0.0;
    handshake(ctx, pp);
    for (long long r = trips * it; r < trips * (it + 1); r++) {
      const int last = r == trips * (it + 1) - 1;
      prepare(pp, pp->sbuf, size, r);
      if (pp->leader) {
        if (r == trips * it + 1) t0 = MPI_Wtime();
        MPI_Send(pp->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm);
        MPI_Recv(pp->rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm, MPI_STATUS_IGNORE);
        if (last && it >= w->warmup)
          w->samples[it - w->warmup] = (MPI_Wtime() - t0) / (2.0 * (double)pp->loop);
      } else {
        MPI_Recv(pp->rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm, MPI_STATUS_IGNORE);
        MPI_Send(pp->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm);
        if (last) corrupt_for_test(pp->rbuf, size, it, w->warmup);
      }
      w->bad += pp_check(pp->rbuf, size, r, pp->validate);
    }
    handshake(ctx, pp);
  }
  fb_timers_count(&ctx->timers, T_LATENCY, trips * n, trips * n * size);
}

static void latency(FbContext *ctx, PingPong *pp, Sweep *w) {
  if (pp->handshake) {
    latency_handshake(ctx, pp, w);
    return;
  }
  /* one round trip more than the samples: the last closes the last sample */
  long long n = w->warmup + w->iterations + 1, size = w->size;
  int peer = pp->partner;
  prepare(pp, pp->sbuf, size, 0);
  /* One clock read per round trip, right after the leader's send returns:
   * it then runs while the message is on its way, as do the check of the
   * previous reply and the marking of the next message, and the samples
   * (from one reading to the next, a whole round trip each) still add up to
   * the loop's time. Read after the reply instead, the clock was on the
   * round trip's path: 30 ns a reading on a Zen 4 VM, a sixth of a 0.17 us
   * one-way latency. --validate restarts the clock after its full check and
   * fill. */
  double last = 0.0;
  for (long long it = 0; it < n; it++) {
    if (pp->leader) {
      MPI_Send(pp->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm);
      double now = MPI_Wtime();
      if (it > w->warmup) w->samples[it - 1 - w->warmup] = (now - last) / 2.0;
      last = now;
      if (it > 0) {
        corrupt_for_test(pp->rbuf, size, it - 1, w->warmup);
        w->bad += pp_check(pp->rbuf, size, it - 1, pp->validate);
      }
      prepare(pp, pp->sbuf, size, it + 1);
      if (pp->validate) last = MPI_Wtime();
      MPI_Recv(pp->rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(pp->rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm, MPI_STATUS_IGNORE);
      MPI_Send(pp->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm);
      corrupt_for_test(pp->rbuf, size, it, w->warmup);
      w->bad += pp_check(pp->rbuf, size, it, pp->validate);
      prepare(pp, pp->sbuf, size, it + 1);
    }
  }
  if (pp->leader) w->bad += pp_check(pp->rbuf, size, n - 1, pp->validate);
  fb_timers_count(&ctx->timers, T_LATENCY, n, n * size);
}

static void bandwidth(FbContext *ctx, PingPong *pp, Sweep *w) {
  long long n = w->warmup + w->iterations, size = w->size, win = pp_window(pp, size);
  int peer = pp->partner;
  MPI_Request *req = pp->req;
  char ack = 0;
  for (long long it = 0; it < n; it++) {
    if (pp->leader) {
      prepare(pp, pp->sbuf, size, it);
      double t0 = MPI_Wtime();
      for (long long k = 0; k < win; k++)
        MPI_Isend(pp->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm, &req[k]);
      MPI_Waitall((int)win, req, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_BYTE, peer, TAG_ACK, ctx->comm, MPI_STATUS_IGNORE);
      double t = MPI_Wtime() - t0;
      if (it >= w->warmup) w->samples[it - w->warmup] = t;
    } else {
      for (long long k = 0; k < win; k++)
        MPI_Irecv(pp_receive_buffer(pp, k, size), (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm,
                  &req[k]);
      MPI_Waitall((int)win, req, MPI_STATUSES_IGNORE);
      if (!pp->validate) /* markers: cheap enough to check before the acknowledgement */
        for (long long k = 0; k < win; k++)
          w->bad += pp_check(pp_receive_buffer(pp, k, size), size, it, 0);
      MPI_Send(&ack, 1, MPI_BYTE, peer, TAG_ACK, ctx->comm);
      corrupt_for_test(pp->rbuf, size, it, w->warmup);
      if (pp->validate)
        for (long long k = 0; k < win; k++)
          w->bad += pp_check(pp_receive_buffer(pp, k, size), size, it, 1);
    }
  }
  long long sent = pp->leader ? n * win : n;
  fb_timers_count(&ctx->timers, T_BW, sent, pp->leader ? sent * size : n);
}

static void bibandwidth(FbContext *ctx, PingPong *pp, Sweep *w) {
  long long n = w->warmup + w->iterations, size = w->size, win = pp_window(pp, size);
  int peer = pp->partner;
  MPI_Request *req = pp->req;
  for (long long it = 0; it < n; it++) {
    prepare(pp, pp->sbuf, size, it);
    double t0 = MPI_Wtime();
    for (long long k = 0; k < win; k++)
      MPI_Irecv(pp_receive_buffer(pp, k, size), (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm,
                &req[k]);
    for (long long k = 0; k < win; k++)
      MPI_Isend(pp->sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, ctx->comm, &req[win + k]);
    MPI_Waitall((int)(2 * win), req, MPI_STATUSES_IGNORE);
    double t = MPI_Wtime() - t0;
    if (pp->leader && it >= w->warmup) w->samples[it - w->warmup] = t;
    corrupt_for_test(pp->rbuf, size, it, w->warmup);
    for (long long k = 0; k < win; k++)
      w->bad += pp_check(pp_receive_buffer(pp, k, size), size, it, pp->validate);
  }
  fb_timers_count(&ctx->timers, T_BIBW, n * win, n * win * size);
}

/* Element j of rank r's contribution in iteration it; the sum over P ranks
 * is P(P+1)/2 + P * ((j + it) % 7), exact in float. */
static float contribution(int rank, long long j, long long it) {
  return (float)(rank + 1 + (j + it) % 7);
}

static int sum_is_wrong(const float *r, long long j, long long it, double p) {
  return (double)r[j] != p * (p + 1) / 2 + p * (double)((j + it) % 7);
}

static void allreduce(FbContext *ctx, PingPong *pp, Sweep *w) {
  long long n = w->warmup + w->iterations, count = w->size / (long long)sizeof(float);
  float *s = (float *)(void *)pp->sbuf, *r = (float *)(void *)pp->rbuf;
  double p = ctx->size;
  for (long long it = 0; it < n; it++) {
    if (pp->validate) {
      for (long long j = 0; j < count; j++) s[j] = contribution(ctx->rank, j, it);
    } else {
      s[0] = contribution(ctx->rank, 0, it);
      s[count - 1] = contribution(ctx->rank, count - 1, it);
    }
    double t0 = MPI_Wtime();
    MPI_Allreduce(s, r, (int)count, MPI_FLOAT, MPI_SUM, ctx->comm);
    double t = MPI_Wtime() - t0;
    if (it >= w->warmup) w->samples[it - w->warmup] = t;
    if (it == w->warmup && count >= 3 && fb_test_hook("pingpong_corrupt")) r[count / 2] += 1.0f;
    if (pp->validate)
      for (long long j = 0; j < count; j++) w->bad += sum_is_wrong(r, j, it, p);
    else
      w->bad += sum_is_wrong(r, 0, it, p) + sum_is_wrong(r, count - 1, it, p);
  }
  fb_timers_count(&ctx->timers, T_ALLREDUCE, n, n * count * (long long)sizeof(float));
}

/* The least mean over consecutive blocks of a twentieth of the samples. */
static double best_block_mean(const double *x, long long n) {
  long long block = n / 20 > 0 ? n / 20 : 1;
  double best = INFINITY;
  for (long long b = 0; b + block <= n; b += block) {
    double sum = 0.0;
    for (long long i = b; i < b + block; i++) sum += x[i];
    if (sum / block < best) best = sum / block;
  }
  return best;
}

/* Statistics of this rank's samples, combined over the leaders on rank 0:
 * time statistics averaged over pairs, bandwidths summed. */
static void reduce_point(FbContext *ctx, const PingPong *pp, int test, const Sweep *w,
                         PpPoint *out) {
  int measures = test == T_ALLREDUCE || pp->leader;
  FbSampleStats st = {0};
  if (measures) fb_sample_stats(w->samples, (int)w->iterations, &st);
  double bytes = (double)w->size * (test == T_BW     ? pp_window(pp, w->size)
                                    : test == T_BIBW ? 2.0 * pp_window(pp, w->size)
                                                     : 1.0);
  double mbs = measures && st.mean > 0 ? bytes / st.mean / 1e6 : 0.0;
  double sums[3] = {measures ? st.mean : 0.0, mbs, measures ? 1.0 : 0.0}, tot[3];
  double lo = measures ? st.min : INFINITY, hi = measures ? st.max : 0.0, mn, mx;
  MPI_Reduce(sums, tot, 3, MPI_DOUBLE, MPI_SUM, 0, ctx->comm);
  MPI_Reduce(&lo, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, ctx->comm);
  MPI_Reduce(&hi, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
  if (ctx->rank != 0) return;
  out->size = w->size;
  out->avg = tot[0] / tot[2] * 1e6;
  out->min = mn * 1e6;
  out->max = mx * 1e6;
  out->median = st.median * 1e6; /* rank 0's samples */
  out->p99 = st.p99 * 1e6;
  out->best_block = measures ? best_block_mean(w->samples, w->iterations) * 1e6 : 0.0;
  out->mbs = test == T_ALLREDUCE ? (double)w->size / (tot[0] / tot[2]) / 1e6 : tot[1];
}

void pp_run_test(FbContext *ctx, PingPong *pp, int test) {
  static void (*const loops[T_COUNT])(FbContext *, PingPong *, Sweep *) = {latency, bandwidth,
                                                                           bibandwidth, allreduce};
  long long bad = 0;
  for (int i = 0; i < pp->n_sizes; i++) {
    long long size = pp->sizes[i];
    if (test == T_ALLREDUCE && size < (long long)sizeof(float)) {
      pp->curve[test][i].size = -1; /* no whole float to reduce */
      continue;
    }
    int large = size > PP_LARGE_MESSAGE;
    Sweep w = {size, large ? pp->large_warmup : pp->warmup,
               large ? pp->large_iterations : pp->iterations, NULL, 0};
    w.samples = calloc((size_t)w.iterations, sizeof(double));
    fb_agree(ctx, w.samples ? 0 : FB_EXIT_RUNTIME, "out of memory for the samples");
    MPI_Barrier(ctx->comm);
    fb_timer_start(&ctx->timers, test);
    if (test == T_ALLREDUCE || pp->partner >= 0) loops[test](ctx, pp, &w);
    fb_timer_stop(&ctx->timers, test);
    reduce_point(ctx, pp, test, &w, &pp->curve[test][i]);
    bad += w.bad;
    free(w.samples);
  }
  long long total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm);
  if (pp->validate)
    pp->bad_contents += total;
  else
    pp->bad_markers += total;
}

/* The host names of the first pair, from the two ranks that measure it. */
void pp_share_hosts(FbContext *ctx, PingPong *pp) {
  char name[MPI_MAX_PROCESSOR_NAME] = "";
  int len;
  MPI_Get_processor_name(name, &len);
  for (int k = 0; k < 2 && ctx->size >= 2; k++) {
    if (ctx->rank == pp->pair0[k]) memcpy(pp->host0[k], name, sizeof name);
    MPI_Bcast(pp->host0[k], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, pp->pair0[k], ctx->comm);
  }
}
