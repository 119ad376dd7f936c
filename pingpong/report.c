/* report.c: OSU-style columns per test, the latency-bandwidth fit, and the
 * curves in the run record. */
#include "pingpong.h"
#include "../common/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pp_print_curve(FbContext *ctx, const PingPong *pp, int test) {
  static const char *const headers[T_COUNT] = {
      "# Size       Latency (us)        Min     Median        P99        Max",
      "# Size      Bandwidth (MB/s)   Window", "# Size    Bi-Bandwidth (MB/s)   Window",
      "# Size   Avg Latency(us)   Min Latency(us)   Max Latency(us)     Median        P99"};
  static const char *const titles[T_COUNT] = {
      "latency: ping-pong, one-way time = half the round trip",
      "bw: windows of non-blocking sends, then an acknowledgement",
      "bibw: both ranks send a window at once",
      "allreduce: MPI_Allreduce of floats over all ranks, averaged over ranks"};
  char protocol[96] = "";
  if (test == T_LATENCY && pp->handshake)
    snprintf(protocol, sizeof protocol, " (--handshake: hpcc's protocol, loops of %lld)", pp->loop);
  fb_print(ctx, "\n# %s%s\n%s\n", titles[test], protocol, headers[test]);
  for (int i = 0; i < pp->n_sizes; i++) {
    const PpPoint *c = &pp->curve[test][i];
    if (c->size < 0) continue;
    if (test == T_LATENCY)
      fb_print(ctx, "%-10lld %14.2f %10.2f %10.2f %10.2f %10.2f\n", c->size, c->avg, c->min,
               c->median, c->p99, c->max);
    else if (test == T_ALLREDUCE)
      fb_print(ctx, "%-10lld %15.2f %17.2f %17.2f %10.2f %10.2f\n", c->size, c->avg, c->min, c->max,
               c->median, c->p99);
    else
      fb_print(ctx, "%-10lld %18.2f %8lld\n", c->size, c->mbs, pp_window(pp, c->size));
  }
}

static void curve_json(FbJson *j, const PingPong *pp, int test) {
  fb_json_begin_array(j, pp_test_names[test]);
  for (int i = 0; i < pp->n_sizes; i++) {
    const PpPoint *c = &pp->curve[test][i];
    if (c->size < 0) continue;
    fb_json_begin_object(j, NULL);
    fb_json_int(j, "size", c->size);
    fb_json_num(j, test == T_BW || test == T_BIBW ? "window_avg_us" : "avg_us", c->avg);
    fb_json_num(j, "min_us", c->min);
    fb_json_num(j, "median_us", c->median);
    fb_json_num(j, "p99_us", c->p99);
    fb_json_num(j, "max_us", c->max);
    fb_json_num(j, "best_block_avg_us", c->best_block);
    fb_json_num(j, "mbs", c->mbs);
    if (test == T_BW || test == T_BIBW) fb_json_int(j, "window", pp_window(pp, c->size));
    fb_json_end_object(j);
  }
  fb_json_end_array(j);
}

/* T(n) = alpha + n / beta over the latency curve. */
static void fit(FbContext *ctx, PingPong *pp) {
  double bytes[PP_MAX_SIZES], secs[PP_MAX_SIZES];
  int n = 0;
  for (int i = 0; i < pp->n_sizes; i++) {
    bytes[n] = (double)pp->curve[T_LATENCY][i].size;
    secs[n++] = pp->curve[T_LATENCY][i].avg * 1e-6;
  }
  pp->fit_ok =
      pp->run[T_LATENCY] && fb_fit_alpha_beta(bytes, secs, n, &pp->alpha_s, &pp->beta_bps) == 0;
  if (pp->fit_ok)
    fb_print(ctx,
             "\n# model T(n) = alpha + n / beta over the latency curve: "
             "alpha = %.3f us, beta = %.1f MB/s\n",
             pp->alpha_s * 1e6, pp->beta_bps / 1e6);
}

/* The FOM: the bandwidth at the largest message of the first test that has one. */
static void fom(const PingPong *pp, double *value, const char **name) {
  static const int order[T_COUNT] = {T_BW, T_BIBW, T_LATENCY, T_ALLREDUCE};
  static const char *const names[T_COUNT] = {
      "bandwidth at the largest message (latency test: size / one-way time)",
      "bandwidth at the largest message (bw)", "bidirectional bandwidth at the largest message",
      "allreduce bytes / time at the largest message"};
  for (int k = 0; k < T_COUNT; k++) {
    int t = order[k];
    if (!pp->run[t]) continue;
    const PpPoint *c = &pp->curve[t][pp->n_sizes - 1];
    double mbs = t == T_LATENCY ? (c->avg > 0 ? (double)c->size / c->avg : 0.0) : c->mbs;
    *name = names[t];
    *value = mbs;
    return;
  }
}

void pp_finish(FbContext *ctx, PingPong *pp, const FbLoop *sweep, FbResult *r) {
  fit(ctx, pp);
  const char *fom_name = "bandwidth";
  double value = 0.0;
  if (ctx->rank == 0) fom(pp, &value, &fom_name);
  fb_result_add_loop(r, sweep, value);
  r->fom_name = fom_name;
  int timings_ok = 1;
  for (int t = 0; t < T_COUNT; t++)
    for (int i = 0; pp->run[t] && i < pp->n_sizes && ctx->rank == 0; i++) {
      const PpPoint *c = &pp->curve[t][i];
      if (c->size >= 0 && !(c->avg > 0 && isfinite(c->avg))) timings_ok = 0;
    }
  fb_result_check_true(r, "timings_positive", "every timing positive", timings_ok);
  fb_result_check_abs(r, "marker_bytes_wrong", "marker bytes wrong", (double)pp->bad_markers, 0.0,
                      0.0);
  if (pp->validate)
    fb_result_check_abs(r, "message_bytes_wrong", "message bytes wrong (--validate)",
                        (double)pp->bad_contents, 0.0, 0.0);
  fb_result_param_int(r, "pairs_measured", pp->n_pairs);
  fb_result_param_int(r, "large-warmup", pp->large_warmup); /* -1 resolved */
  fb_result_param_int(r, "large-iterations", pp->large_iterations);
  if (pp->run[T_BW] || pp->run[T_BIBW]) {
    fb_result_param_int(r, "window", pp->window);
    fb_result_param_str(r, "receive_buffers", pp->receive_buffers);
  }
  if (pp->run[T_LATENCY]) {
    fb_result_param_str(r, "latency_protocol", pp->handshake ? "handshake" : "back to back");
    if (pp->handshake) fb_result_param_int(r, "latency_loop", pp->loop);
  }
  fb_result_param_str(r, "pair", pp->cross_node ? "across nodes" : "one node");
  void *const bufs[2] = {pp->sbuf, pp->rbuf};
  const size_t sizes[2] = {pp->buf_bytes, pp->buf_bytes};
  fb_record_pages(ctx, r, 2, bufs, sizes);
  FbJson j;
  fb_json_init(&j);
  fb_json_begin_object(&j, NULL);
  fb_json_begin_object(&j, "pair");
  fb_json_int(&j, "rank_a", pp->pair0[0]);
  fb_json_int(&j, "rank_b", pp->pair0[1]);
  fb_json_str(&j, "host_a", pp->host0[0]);
  fb_json_str(&j, "host_b", pp->host0[1]);
  fb_json_bool(&j, "cross_node", pp->cross_node);
  fb_json_int(&j, "pairs", pp->n_pairs);
  fb_json_end_object(&j);
  for (int t = 0; t < T_COUNT; t++)
    if (pp->run[t]) curve_json(&j, pp, t);
  if (pp->fit_ok) {
    fb_json_begin_object(&j, "fit");
    fb_json_num(&j, "alpha_us", pp->alpha_s * 1e6);
    fb_json_num(&j, "beta_mbs", pp->beta_bps / 1e6);
    fb_json_end_object(&j);
  }
  fb_json_end_object(&j);
  pp->results_json = j.buf; /* owned by pp now */
  r->app_json = pp->results_json;
}
