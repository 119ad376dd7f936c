/* setup.c: pingpong's options, the message-size sweep, the choice of pairs
 * (across nodes when there are several) and the buffers. */
#include "pingpong.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_test_names[T_COUNT] = {"latency", "bw", "bibw", "allreduce"};
#define PP_MAX_MESSAGE (1LL << 30)
#define PP_DEFAULT_MIN "1" /* -m's ends when not given */
#define PP_DEFAULT_MAX "8M"

/* "8", "64K", "8M", "1G" (binary multiples). */
static int parse_size(const char *text, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || errno == ERANGE || v < 0 || text[0] == '-' || text[0] == '+') return 0;
  long long mult = 1;
  if (*end == 'K' || *end == 'k')
    mult = 1LL << 10, end++;
  else if (*end == 'M' || *end == 'm')
    mult = 1LL << 20, end++;
  else if (*end == 'G' || *end == 'g')
    mult = 1LL << 30, end++;
  if (*end != '\0' || v > PP_MAX_MESSAGE / mult) return 0;
  *out = v * mult;
  return 1;
}

/* -m as OSU takes it: MIN:MAX, MAX alone (from the default MIN) or MIN:
 * alone (to the default MAX). */
static void parse_range(FbContext *ctx, PingPong *pp) {
  const char *colon = strchr(pp->range, ':');
  char lo_text[64] = PP_DEFAULT_MIN, hi_text[64] = PP_DEFAULT_MAX;
  size_t lo_len = colon ? (size_t)(colon - pp->range) : 0;
  const char *hi_part = colon ? colon + 1 : pp->range;
  if (!pp->range[0] || (colon && !lo_len && !hi_part[0]) || lo_len >= sizeof lo_text ||
      strlen(hi_part) >= sizeof hi_text)
    fb_fail(ctx, FB_EXIT_USAGE, "option -m: '%s' is not [MIN:]MAX or MIN:", pp->range);
  if (lo_len) {
    memcpy(lo_text, pp->range, lo_len);
    lo_text[lo_len] = '\0';
  }
  if (hi_part[0]) strcpy(hi_text, hi_part);
  long long lo, hi;
  if (!parse_size(lo_text, &lo))
    fb_fail(ctx, FB_EXIT_USAGE, "option -m: '%s' is not a size in bytes (0 to 1G)", lo_text);
  if (!parse_size(hi_text, &hi))
    fb_fail(ctx, FB_EXIT_USAGE, "option -m: '%s' is not a size in bytes (1 to 1G)", hi_text);
  if (hi < 1) /* a bandwidth of 0 bytes would be the FOM */
    fb_fail(ctx, FB_EXIT_USAGE,
            "option -m: MAX must be at least 1 byte (the FOM is the bandwidth at the largest "
            "message; -m 0:1 times 0-byte messages too)");
  if (lo > hi) fb_fail(ctx, FB_EXIT_USAGE, "option -m: MIN %lld is above MAX %lld", lo, hi);
  /* MIN, then the powers of two above it, then MAX */
  pp->n_sizes = 0;
  for (long long s = lo; s <= hi && pp->n_sizes < PP_MAX_SIZES;) {
    pp->sizes[pp->n_sizes++] = s;
    long long next = 1;
    while (next <= s) next *= 2;
    if (next > hi && s < hi) next = hi;
    if (next <= s) break;
    s = next;
  }
}

/* --test: one name, a comma-separated list of names, or all (in a list too) */
static void parse_tests(FbContext *ctx, PingPong *pp) {
  memset(pp->run, 0, sizeof pp->run);
  const char *p = pp->test_name;
  for (;;) {
    size_t len = strcspn(p, ",");
    int found = 0;
    for (int t = 0; t < T_COUNT && !found; t++)
      if (len == strlen(pp_test_names[t]) && !strncmp(p, pp_test_names[t], len))
        found = pp->run[t] = 1;
    if (len == 3 && !strncmp(p, "all", 3))
      for (int t = 0; t < T_COUNT; t++) found = pp->run[t] = 1;
    if (!found)
      fb_fail(
          ctx, FB_EXIT_USAGE,
          "option --test: '%.*s' is not latency, bw, bibw, allreduce or all (a list: latency,bw)",
          (int)len, p);
    if (!p[len]) return;
    p += len + 1;
  }
}

void pp_parse(FbContext *ctx, PingPong *pp, int argc, char **argv) {
  memset(pp, 0, sizeof *pp);
  pp->test_name = "all";
  pp->range = PP_DEFAULT_MIN ":" PP_DEFAULT_MAX;
  pp->pairs_mode = "one";
  pp->receive_buffers = "each";
  pp->warmup = 100;
  pp->iterations = 1000;
  pp->large_warmup = -1;     /* a tenth of -x */
  pp->large_iterations = -1; /* a tenth of -i, at least 10 (or -i where it is under 10) */
  pp->loop = 1;
  pp->window = PP_WINDOW;
  fb_option_string(ctx, "test", 0, &pp->test_name, "NAME",
                   "latency, bw, bibw, allreduce, a comma-separated list of them, or all");
  fb_option_string(ctx, "message-sizes", 'm', &pp->range, "[MIN:]MAX",
                   "message sizes in bytes, MIN then powers of two up to MAX (K, M, G\n"
                   "                               allowed); as OSU's -m, MAX alone or MIN: alone "
                   "keeps the\n                               other end's default");
  fb_option_int(ctx, "warmup", 'x', &pp->warmup, 0, 1000000, "N",
                "untimed iterations per size (a tenth above 8 KiB)");
  fb_option_int(ctx, "iterations", 'i', &pp->iterations, 1, 100000000, "N",
                "timed iterations per size (a tenth, at least 10, above 8 KiB)");
  fb_option_int(ctx, "large-warmup", 0, &pp->large_warmup, -1, 1000000, "N",
                "untimed iterations per size above 8 KiB (-1: a tenth of -x)");
  fb_option_int(
      ctx, "large-iterations", 0, &pp->large_iterations, -1, 100000000, "N",
      "timed iterations per size above 8 KiB (-1: a tenth of -i, at least\n"
      "                               10); with --large-warmup, OSU's counts in one launch");
  fb_option_int(
      ctx, "window", 'W', &pp->window, 1, PP_MAX_WINDOW, "N",
      "messages in flight per bw and bibw window (OSU's -W; fewer where their\n"
      "                               receive buffers, one a message, would pass 64 MiB)");
  fb_option_string(
      ctx, "receive-buffers", 0, &pp->receive_buffers, "HOW",
      "bw and bibw: each, every message of a window into a buffer of its\n"
      "                               own (MPI's rule for pending receives), or one: all into\n"
      "                               one buffer, as OSU's osu_bw and osu_bibw do (the data\n"
      "                               stays in the caches; -W at every size)");
  fb_option_string(ctx, "pairs", 0, &pp->pairs_mode, "one|all",
                   "one pair (rank 0 and the first rank on another node, else rank 1), or\n"
                   "                               all: every rank of the first node with a "
                   "partner on the second");
  fb_option_flag(ctx, "validate", 0, &pp->validate, "fill and check every byte of every message");
  fb_option_flag(
      ctx, "no-huge-pages", 0, &pp->no_huge_pages,
      "buffers on 4 KiB pages, never transparent huge ones (the default marks\n"
      "                               buffers from 2 MiB up for them; OSU's and hpcc's get 4 KiB\n"
      "                               pages where THP is madvise, Debian's default)");
  fb_option_flag(ctx, "handshake", 0, &pp->handshake,
                 "latency test as hpcc's PingPong: each timed loop (--loop round trips)\n"
                 "                               after a handshake and one untimed round trip "
                 "(default: back to back)");
  fb_option_int(ctx, "loop", 0, &pp->loop, 1, 1000000, "N",
                "with --handshake: round trips a sample, its mean (hpcc's loop length: 8\n"
                "                               for its 8-byte latency, 1 for its 2 MB bandwidth)");
  fb_parse_options(ctx, argc, argv,
                   "OSU-style sweeps: ping-pong latency (half the round trip), bandwidth\n"
                   "(windows of non-blocking sends, then an acknowledgement), bidirectional\n"
                   "bandwidth, and allreduce latency over all ranks. Messages carry real\n"
                   "data; marker bytes are checked on every message. MB/s = 1e6 bytes/s.");
  parse_tests(ctx, pp);
  if (pp->large_warmup < 0) pp->large_warmup = pp->warmup / 10;
  if (pp->large_iterations < 0)
    pp->large_iterations = pp->iterations / 10 >= 10 ? pp->iterations / 10
                           : pp->iterations < 10     ? pp->iterations
                                                     : 10;
  if (pp->large_iterations == 0)
    fb_fail(ctx, FB_EXIT_USAGE, "option --large-iterations: 0 timed iterations measure nothing");
  if (pp->loop > 1 && !pp->handshake)
    fb_fail(ctx, FB_EXIT_USAGE, "option --loop: a loop of %lld round trips needs --handshake",
            pp->loop);
  parse_range(ctx, pp);
  if (strcmp(pp->receive_buffers, "each") && strcmp(pp->receive_buffers, "one"))
    fb_fail(ctx, FB_EXIT_USAGE, "option --receive-buffers: '%s' is not each or one",
            pp->receive_buffers);
  pp->one_receive_buffer = !strcmp(pp->receive_buffers, "one");
  if (strcmp(pp->pairs_mode, "one") && strcmp(pp->pairs_mode, "all"))
    fb_fail(ctx, FB_EXIT_USAGE, "option --pairs: '%s' is not one or all", pp->pairs_mode);
  /* the allreduce sums floats: a message under one float sums nothing */
  if (pp->run[T_ALLREDUCE] && !pp->run[T_LATENCY] &&
      pp->sizes[pp->n_sizes - 1] < (long long)sizeof(float))
    fb_fail(ctx, FB_EXIT_USAGE,
            "option --message-sizes: the allreduce test needs messages of at least %zu bytes "
            "(one float); these sizes measure nothing",
            sizeof(float));
  if (ctx->size < 2 && (pp->run[T_LATENCY] || pp->run[T_BW] || pp->run[T_BIBW]))
    fb_fail(ctx, FB_EXIT_USAGE, "the %s test needs a pair of ranks: run on at least 2 ranks",
            pp->run[T_LATENCY] ? "latency"
            : pp->run[T_BW]    ? "bw"
                               : "bibw");
}

/* Pairs: rank 0 with the first rank on another node (else rank 1); or, with
 * --pairs all, the i-th rank of the first node with the i-th of the second
 * (one node: the first half of the ranks with the second half). */
static void choose_pairs(FbContext *ctx, PingPong *pp) {
  int *node = malloc((size_t)ctx->size * sizeof *node);
  int nodes = 0;
  int bad = !node || fb_node_layout(ctx, node, &nodes);
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory finding the node layout");
  pp->partner = -1;
  pp->leader = 0;
  pp->n_pairs = 0;
  if (ctx->size >= 2) {
    if (!strcmp(pp->pairs_mode, "one")) {
      int other = 1;
      for (int r = 1; r < ctx->size; r++)
        if (node[r] != node[0]) {
          other = r;
          break;
        }
      pp->pair0[0] = 0;
      pp->pair0[1] = other;
      pp->n_pairs = 1;
      if (ctx->rank == 0) pp->partner = other, pp->leader = 1;
      if (ctx->rank == other) pp->partner = 0;
    } else {
      int first[4096], second[4096], n1 = 0, n2 = 0;
      for (int r = 0; r < ctx->size; r++) {
        int a = nodes > 1 ? node[r] == 0 : r < ctx->size / 2;
        int b = nodes > 1 ? node[r] == 1 : r >= ctx->size / 2;
        if (a && n1 < 4096) first[n1++] = r;
        if (b && n2 < 4096) second[n2++] = r;
      }
      pp->n_pairs = n1 < n2 ? n1 : n2;
      for (int i = 0; i < pp->n_pairs; i++) {
        if (ctx->rank == first[i]) pp->partner = second[i], pp->leader = 1;
        if (ctx->rank == second[i]) pp->partner = first[i];
      }
      pp->pair0[0] = first[0];
      pp->pair0[1] = second[0];
    }
    pp->cross_node = node[pp->pair0[0]] != node[pp->pair0[1]];
  }
  free(node);
}

/* Messages in flight in one bandwidth window of this size: -W, fewer when
 * their receive buffers would pass PP_WINDOW_BYTES. */
long long pp_window(const PingPong *pp, long long size) {
  long long w = size > 0 && !pp->one_receive_buffer ? PP_WINDOW_BYTES / size : pp->window;
  return w < 1 ? 1 : w > pp->window ? pp->window : w;
}

void pp_setup(FbContext *ctx, PingPong *pp) {
  choose_pairs(ctx, pp);
  pp_share_hosts(ctx, pp);
  /* The largest message, or the largest window of them where bw or bibw
   * runs (a latency run needs one message, not 2 x 64 MiB a rank). From 1
   * MiB up, whole huge pages: hpcc's 2,000,000-byte messages keep the page
   * size they had when every run allocated the windows. */
  long long bytes = pp->sizes[pp->n_sizes - 1];
  for (int i = 0; i < pp->n_sizes && (pp->run[T_BW] || pp->run[T_BIBW]) && !pp->one_receive_buffer;
       i++)
    if (pp->sizes[i] * pp_window(pp, pp->sizes[i]) > bytes)
      bytes = pp->sizes[i] * pp_window(pp, pp->sizes[i]);
  bytes += 64;
  if (bytes >= PP_HUGE_FROM) bytes = (bytes + FB_HUGE_PAGE - 1) / FB_HUGE_PAGE * FB_HUGE_PAGE;
  pp->buf_bytes = (size_t)bytes;
  fb_check_memory(ctx, 2 * pp->buf_bytes, "the message buffers");
  pp->sbuf = fb_alloc_pages(pp->buf_bytes, !pp->no_huge_pages);
  pp->rbuf = fb_alloc_pages(pp->buf_bytes, !pp->no_huge_pages);
  pp->req = malloc(2 * (size_t)pp->window * sizeof *pp->req);
  int bad = !pp->sbuf || !pp->rbuf || !pp->req;
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory allocating the message buffers");
  /* Real data in real pages: never the shared zero page that untouched
   * memory reads as (hpcc's PingPong writes only a byte or two of its). */
  pp_fill(pp->sbuf, (long long)pp->buf_bytes, -1);
  pp_fill(pp->rbuf, (long long)pp->buf_bytes, -2);
  if (ctx->size >= 2)
    fb_print(ctx, "# fabricbench pingpong %s: pair rank %d (%s) <-> rank %d (%s)%s, %d pair(s)\n",
             fb_version(), pp->pair0[0], pp->host0[0], pp->pair0[1], pp->host0[1],
             pp->cross_node ? " across nodes" : " on one node", pp->n_pairs);
}

void pp_free(PingPong *pp) {
  free(pp->sbuf);
  free(pp->rbuf);
  free(pp->req);
  free(pp->results_json);
}
