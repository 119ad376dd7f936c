/* pingpong.h: OSU-style point-to-point and collective sweeps. */
#ifndef PINGPONG_H
#define PINGPONG_H

#include "fabricbench.h"

enum { T_LATENCY, T_BW, T_BIBW, T_ALLREDUCE, T_COUNT };
#define PH_COUNT T_COUNT /* one timed phase per test, named like it */

#define PP_MAX_SIZES 64
/* OSU's conventions: a window of 64 messages for bandwidth (its -W), and
 * fewer iterations above 8 KiB. */
#define PP_WINDOW        64
#define PP_MAX_WINDOW    65536 /* -W's bound: one request and one receive buffer each */
#define PP_LARGE_MESSAGE 8192
/* The window shrinks for large messages so that its receive buffers (one per
 * message: MPI forbids overlapping receives) stay under this many bytes;
 * --receive-buffers one (OSU's way: every receive into one buffer) keeps
 * -W at every size. */
#define PP_WINDOW_BYTES (64LL << 20)
/* Message buffers from this size up are rounded to whole huge pages. */
#define PP_HUGE_FROM (1LL << 20)

typedef struct {
  long long size;
  double avg, min, median, p99, max; /* one-way latency (us) or time per window (us) */
  double best_block;                 /* least mean over blocks of 1/20 of the samples (us):
                                        hpcc's convention, the best loop average */
  double mbs;                        /* bandwidth, MB/s (1e6 bytes) */
} PpPoint;

typedef struct {
  /* options */
  const char *test_name, *range, *pairs_mode, *receive_buffers;
  long long warmup, iterations, window, loop;
  long long large_warmup, large_iterations; /* above PP_LARGE_MESSAGE (resolved in pp_parse) */
  int validate, handshake, no_huge_pages;
  int one_receive_buffer; /* --receive-buffers one */
  int run[T_COUNT];
  long long sizes[PP_MAX_SIZES];
  int n_sizes;
  /* pairing: this rank's partner (-1: idle in pair tests), whether it leads */
  int partner, leader, n_pairs, cross_node;
  int pair0[2]; /* the first pair, named in the output */
  char host0[2][MPI_MAX_PROCESSOR_NAME];
  /* buffers */
  unsigned char *sbuf, *rbuf;
  MPI_Request *req; /* 2 x window: a bibw window's receives and sends */
  size_t buf_bytes;
  /* results (on rank 0) */
  PpPoint curve[T_COUNT][PP_MAX_SIZES];
  long long bad_markers, bad_contents; /* summed over ranks at the end */
  double alpha_s, beta_bps;
  int fit_ok;
  char *results_json;
} PingPong;

extern const char *const pp_test_names[T_COUNT];

void pp_parse(FbContext *ctx, PingPong *pp, int argc, char **argv);
void pp_setup(FbContext *ctx, PingPong *pp);
void pp_free(PingPong *pp);
long long pp_window(const PingPong *pp, long long size);
/* Where message k of a bw or bibw window is received. */
static inline unsigned char *pp_receive_buffer(const PingPong *pp, long long k, long long size) {
  return pp->one_receive_buffer ? pp->rbuf : pp->rbuf + k * size;
}
/* pp_comm.c: the measured loops; each fills pp->curve[test] on rank 0. */
void pp_run_test(FbContext *ctx, PingPong *pp, int test);
/* buffers.c: message contents that change with size and iteration; the
 * marker helpers are inline since they sit in the ping-pong's critical path
 * (as calls they added about 0.03 us to the one-way latency). */
static inline unsigned char pp_pattern(long long i, long long size, long long iteration) {
  return (unsigned char)((i * 131 + size * 7 + iteration * 29 + 11) & 0xff);
}
/* Sets the two marker bytes (first and last) of a message. */
static inline void pp_mark(unsigned char *buf, long long size, long long iteration) {
  if (size < 1) return;
  buf[0] = pp_pattern(0, size, iteration);
  buf[size - 1] = pp_pattern(size - 1, size, iteration);
}
long long pp_check_all(const unsigned char *buf, long long size, long long iteration);
/* Wrong bytes of a message: the markers, or every byte when full. */
static inline long long pp_check(const unsigned char *buf, long long size, long long iteration,
                                 int full) {
  if (full) return pp_check_all(buf, size, iteration);
  if (size < 1) return 0;
  return (buf[0] != pp_pattern(0, size, iteration)) +
         (buf[size - 1] != pp_pattern(size - 1, size, iteration));
}
void pp_fill(unsigned char *buf, long long size, long long iteration);
/* report.c */
void pp_print_curve(FbContext *ctx, const PingPong *pp, int test);
/* pp_comm.c: the first pair's host names on every rank */
void pp_share_hosts(FbContext *ctx, PingPong *pp);
void pp_finish(FbContext *ctx, PingPong *pp, const FbLoop *sweep, FbResult *r);

#endif
