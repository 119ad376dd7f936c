/* run.c: STREAM's set-up, timer check, timed passes across all ranks, and
 * stream.c's table. */
#include "stream.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stream_first_touch(Stream *s);

void stream_parse(FbContext *ctx, Stream *s, int argc, char **argv) {
  s->n = 0;
  s->repeats = 10;
  fb_option_int(ctx, "elements", 'n', &s->n, 1, 1LL << 40, "ELEMENTS",
                "elements per array per rank");
  fb_option_default(ctx, "4x the last-level cache / the ranks on it");
  fb_option_int(ctx, "passes", 'r', &s->repeats, 2, 100000, "PASSES",
                "timed passes of each kernel; the first is not counted");
  fb_option_flag(ctx, "nt", 0, &s->nt, "use non-temporal stores (reported as such)");
  fb_option_flag(ctx, "no-sync", 0, &s->no_sync,
                 "no barrier per kernel: each rank times its own passes and the\n"
                 "                               aggregate is the sum of per-rank best rates (the\n"
                 "                               StarSTREAM of HPCC 1.4; 1.5 synchronises as the\n"
                 "                               default does)");
  fb_option_flag(
      ctx, "no-huge-pages", 0, &s->no_huge_pages,
      "arrays on 4 KiB pages, never transparent huge ones (the default marks\n"
      "                               them for them; stream.c's static arrays get 4 KiB\n"
      "                               pages where THP is madvise, Debian's default)");
  s->width_name = "auto";
  fb_option_string(
      ctx, "vector-width", 0, &s->width_name, "WIDTH",
      "the plain kernels in 128-bit vectors (128), in those the build's -march\n"
      "                               and compiler choose (native), or auto: time a Triad pass in\n"
      "                               each, keep the faster (the values are the same)");
  fb_parse_options(ctx, argc, argv,
                   "STREAM (McCalpin): Copy, Scale, Add and Triad on double arrays, every\n"
                   "rank at once and synchronised per kernel (as HPCC 1.5's StarSTREAM), so\n"
                   "the rates are the aggregate bandwidth of all ranks. MB = 1e6 bytes;\n"
                   "Copy and Scale count 2 arrays, Add and Triad 3 (stream.c's convention).\n"
                   "Times in the table are those of the slowest rank per pass (rank 0's\n"
                   "with --no-sync).");
  if (s->nt && !stream_nt_available())
    fb_fail(ctx, FB_EXIT_USAGE, "option --nt: no non-temporal stores on this processor");
  fb_option_one_of(ctx, "vector-width", s->width_name, "auto", "128", "native");
  if (!strcmp(s->width_name, "128") && !stream_narrow_available())
    fb_fail(ctx, FB_EXIT_USAGE,
            "option --vector-width: 128 needs a build by GCC for x86 (this build has its "
            "compiler's width alone)");
  if (s->nt && !strcmp(s->width_name, "native"))
    fb_fail(ctx, FB_EXIT_USAGE,
            "options --nt and --vector-width native: the non-temporal kernels are 128-bit");
  s->narrow = s->nt || !strcmp(s->width_name, "128");
}

void stream_setup(FbContext *ctx, Stream *s) {
  if (s->n == 0) { /* each array over a cache's ranks at 4x that cache */
    size_t cache = fb_last_level_cache();
    int caches = fb_last_level_cache_instances(), ranks = fb_ranks_on_my_node(ctx);
    long long sharing = (ranks + caches - 1) / caches;
    long long want =
        (long long)(STREAM_CACHE_FACTOR * (cache ? cache : STREAM_CACHE_UNKNOWN) / sizeof(double)) /
        sharing;
    s->n = (want + STREAM_CHUNK - 1) / STREAM_CHUNK * STREAM_CHUNK;
    fb_allreduce_max_ll(ctx, -1, &s->n, 1); /* one length for all (nodes may differ) */
  }
  fb_check_memory(ctx, 3 * ((size_t)s->n * sizeof(double) + 4096 + STREAM_STAGGER_BYTES),
                  "the STREAM arrays");
  size_t bytes = (size_t)s->n * sizeof(double);
  int bad = 0;
  for (int i = 0; i < 3; i++) {
    s->base[i] = fb_alloc_pages(bytes + 4096 + (size_t)i * STREAM_STAGGER_BYTES, !s->no_huge_pages);
    bad |= !s->base[i];
  }
  for (int k = 0; k < K_COUNT; k++) {
    s->local_s[k] = calloc((size_t)s->repeats, sizeof(double));
    s->global_s[k] = calloc((size_t)s->repeats, sizeof(double));
    bad |= !s->local_s[k] || !s->global_s[k];
  }
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory allocating the arrays");
  double **array[3] = {&s->a, &s->b, &s->c};
  for (int i = 0; i < 3; i++) /* the page after the allocation's start, then the stagger */
    *array[i] = (double *)(s->base[i] + (4096 - (uintptr_t)s->base[i] % 4096) % 4096 +
                           (size_t)i * STREAM_STAGGER_BYTES);
  stream_first_touch(s);
  fb_print(ctx,
           "STREAM (fabricbench %s): %lld elements per array per rank (%.1f MiB each), "
           "%d ranks x %d threads, %lld passes%s\n",
           fb_version(), s->n, (double)bytes / 1048576.0, ctx->size, ctx->threads, s->repeats,
           s->nt ? ", non-temporal stores" : "");
  fb_print(ctx, "Total memory required: %.1f MiB over all ranks\n",
           3.0 * (double)bytes * ctx->size / 1048576.0);
}

void stream_describe(FbContext *ctx, const Stream *s, FbResult *r) {
  fb_result_param_int(r, "elements_per_rank", s->n);
  fb_result_param_str(r, "bytes_convention", "stream.c: Copy/Scale 2 arrays, Add/Triad 3");
  const size_t bytes = (size_t)s->n * sizeof(double);
  void *const arrays[3] = {s->a, s->b, s->c};
  const size_t sizes[3] = {bytes, bytes, bytes};
  fb_record_pages(ctx, r, 3, arrays, sizes);
  fb_result_param_str(r, "vector_width", s->narrow ? "128" : "native");
  if (s->trial_s[0] > 0) fb_result_param_double(r, "trial_native_s", s->trial_s[0]);
  if (s->trial_s[1] > 0) fb_result_param_double(r, "trial_128_s", s->trial_s[1]);
}

void stream_free(Stream *s) {
  for (int i = 0; i < 3; i++) free(s->base[i]);
  for (int k = 0; k < K_COUNT; k++) {
    free(s->local_s[k]);
    free(s->global_s[k]);
  }
}

/* stream.c's check: the clock's granularity, and how many ticks one kernel
 * pass takes (a = 2a, which the closed-form validation accounts for). */
void stream_check_granularity(FbContext *ctx, Stream *s) {
  double tick = fb_timer_resolution();
  double t0 = fb_now();
#pragma omp parallel for schedule(static)
  for (long long j = 0; j < s->n; j++) s->a[j] = 2.0 * s->a[j];
  double slowest = fb_allreduce_max(ctx, FB_NO_PHASE, fb_now() - t0);
  fb_print(ctx,
           "Your clock granularity/precision appears to be %.3g microseconds.\n"
           "Each test below will take on the order of %.0f microseconds "
           "(= %.0f clock ticks).\n",
           tick * 1e6, slowest * 1e6, slowest / tick);
  if (slowest / tick < 20.0)
    fb_print(ctx, "WARNING: under 20 clock ticks per test; increase -n for accurate times.\n");
}

/* --vector-width auto: a Triad pass in each width, WIDTH_TRIAL_ROUNDS times
 * alternated, on every rank at once (ranks that share a memory share it as
 * in the run); the slowest rank's best time decides, as himeno's --layout
 * auto. The trial's Triad writes a = b + q c = 2 + 3 x 0 = 2, the value the
 * timer check left, where the closed form (validate.c) starts. */
#define WIDTH_TRIAL_ROUNDS 3
void stream_choose_width(FbContext *ctx, Stream *s) {
  const int trial = !strcmp(s->width_name, "auto") && !s->nt && stream_narrow_available();
  for (int round = 0; trial && round < WIDTH_TRIAL_ROUNDS; round++)
    for (int narrow = 0; narrow < 2; narrow++) {
      s->narrow = narrow;
      fb_barrier(ctx, FB_NO_PHASE); /* set-up: untimed, as the other set-up collectives */
      const double start = fb_now();
      stream_kernel(s, K_TRIAD);
      const double t = fb_allreduce_max(ctx, FB_NO_PHASE, fb_now() - start);
      if (round == 0 || t < s->trial_s[narrow]) s->trial_s[narrow] = t;
    }
  if (trial) s->narrow = s->trial_s[1] < s->trial_s[0];
  char times[96] = "";
  if (trial)
    snprintf(times, sizeof times, "; ms a Triad pass: 128-bit %.3f, native %.3f",
             s->trial_s[1] * 1e3, s->trial_s[0] * 1e3);
  fb_print(ctx, "Vector width: %s (--vector-width %s%s%s)\n",
           s->nt       ? "128-bit, non-temporal stores"
           : s->narrow ? "128-bit"
                       : "native",
           s->width_name, stream_narrow_available() ? "" : "; this build has one width", times);
}

/* Every pass of every kernel is timed by the common protocol (a barrier, the
 * clock, the slowest rank's time), which is the aggregate bandwidth the
 * ranks really share; HPCC 1.5's StarSTREAM (Debian's hpcc) does the same
 * with a barrier on each side of a pass and each pass's shortest time over
 * ranks, which on every rank covers the slowest rank's kernel. --no-sync is
 * the StarSTREAM of HPCC 1.4 and before instead: no barrier, each rank times
 * its own passes (local clock), and the aggregate is the sum of the per-rank
 * best rates. The whole measurement is one loop of the protocol too (the
 * record's loop time and spread). */
void stream_measure(FbContext *ctx, Stream *s, FbLoop *all) {
  fb_loop_begin(ctx, all);
  for (long long pass = 0; pass < s->repeats; pass++) {
    for (int k = 0; k < K_COUNT; k++) {
      FbLoop one = {0};
      double t0 = 0.0;
      if (s->no_sync)
        t0 = fb_now();
      else
        fb_loop_begin(ctx, &one);
      fb_timer_start(&ctx->timers, PH_KERNELS);
      stream_kernel(s, k);
      fb_timer_stop(&ctx->timers, PH_KERNELS);
      double local = s->no_sync ? fb_now() - t0 : 0.0;
      s->global_s[k][pass] = s->no_sync ? local : fb_loop_end(ctx, &one);
      s->local_s[k][pass] = s->no_sync ? local : one.local_s;
    }
    stream_pass_done(s);
  }
  fb_loop_end(ctx, all);
}

static double bytes_per_rank(const Stream *s, int k) {
  return (double)stream_arrays_moved[k] * sizeof(double) * (double)s->n;
}

/* The table of stream.c for the aggregate, plus each kernel's slowest rank;
 * returns the aggregate Triad rate in GB/s. */
static double print_table(FbContext *ctx, const Stream *s, double *rank_min_mbs) {
  double triad = 0.0;
  fb_print(ctx, "-------------------------------------------------------------\n");
  fb_print(ctx, "Function    Best Rate MB/s  Avg time     Min time     Max time\n");
  for (int k = 0; k < K_COUNT; k++) {
    double mn = DBL_MAX, mx = 0.0, sum = 0.0, local_min = DBL_MAX;
    for (long long p = 1; p < s->repeats; p++) { /* the first pass is not counted */
      double t = s->global_s[k][p];
      mn = fmin(mn, t);
      mx = fmax(mx, t);
      sum += t;
      local_min = fmin(local_min, s->local_s[k][p]);
    }
    double my_rate = 1e-6 * bytes_per_rank(s, k) / local_min;
    rank_min_mbs[k] = fb_allreduce_min(ctx, FB_NO_PHASE, my_rate);
    double sum_rate = fb_allreduce_sum(ctx, FB_NO_PHASE, my_rate);
    double rate = s->no_sync ? sum_rate : 1e-6 * bytes_per_rank(s, k) * ctx->size / mn;
    fb_print(ctx, "%-8s %14.1f  %11.6f  %11.6f  %11.6f\n", stream_kernel_names[k], rate,
             sum / (double)(s->repeats - 1), mn, mx);
    if (k == K_TRIAD) triad = rate / 1000.0;
  }
  fb_print(ctx, "-------------------------------------------------------------\n");
  fb_print(ctx, "Per-rank minimum (MB/s): Copy %.1f  Scale %.1f  Add %.1f  Triad %.1f\n",
           rank_min_mbs[0], rank_min_mbs[1], rank_min_mbs[2], rank_min_mbs[3]);
  return triad;
}

/* Where an array starts within its 4 KiB page (STREAM_STAGGER_BYTES). */
static unsigned page_offset(const double *x) { return (unsigned)((uintptr_t)x % 4096u); }

void stream_report(FbContext *ctx, Stream *s, const FbLoop *all, FbResult *r) {
  double rank_min[K_COUNT];
  double triad_gbs = print_table(ctx, s, rank_min);
  fb_result_add_loop(r, all, triad_gbs);
  snprintf(s->results, sizeof s->results,
           "{\"rank_min_mbs\":{\"Copy\":%.6g,\"Scale\":%.6g,\"Add\":%.6g,\"Triad\":%.6g},"
           "\"synchronised_per_kernel\":%s,\"non_temporal\":%s,"
           "\"page_offsets_bytes\":{\"a\":%u,\"b\":%u,\"c\":%u}}",
           rank_min[0], rank_min[1], rank_min[2], rank_min[3], s->no_sync ? "false" : "true",
           s->nt ? "true" : "false", page_offset(s->a), page_offset(s->b), page_offset(s->c));
  r->app_json = s->results;
}
