/* run.c: Himeno's timing protocol (rehearsal, timed loop) and the lines the
 * original prints, which existing scripts parse. */
#include "himeno.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the sweep's variants, [himeno_sweep_kind][prefetch]: the header's and
 * the record's name, and the record's key for the trial's time */
static const char *const sweep_names[HIMENO_SWEEP_KINDS][2] = {
    {"one stream, hardware prefetchers alone", "one stream, prefetched into L1"},
    {"three arrays, hardware prefetchers alone", "three arrays, prefetched into L2 and then L1"},
    {"three arrays in 512-bit vectors, hardware prefetchers alone",
     "three arrays in 512-bit vectors, prefetched into L2 and then L1"}};
static const char *const trial_keys[HIMENO_SWEEP_KINDS][2][2] = {
    {{"trial_stream_hardware_s", "trial_stream_hardware_nt_s"},
     {"trial_stream_prefetched_s", "trial_stream_prefetched_nt_s"}},
    {{"trial_split_hardware_s", "trial_split_hardware_nt_s"},
     {"trial_split_prefetched_s", "trial_split_prefetched_nt_s"}},
    {{"trial_split512_hardware_s", "trial_split512_hardware_nt_s"},
     {"trial_split512_prefetched_s", "trial_split512_prefetched_nt_s"}}};
static const char *const layout_words[HIMENO_SWEEP_KINDS] = {"one stream", "three arrays",
                                                             "three arrays in 512 bits"};
/* the record's params.vector_width: the one-stream sweep has the build's */
static const char *const width_words[HIMENO_SWEEP_KINDS] = {"native", "256", "512"};
static const char *const trial_words[2] = {"hardware alone", "prefetched"};
/* the new field's stores: the header's words and the record's params.stores */
static const char *const store_names[2] = {"through the caches", "non-temporal"};

void himeno_print_header(FbContext *ctx, const Himeno *h) {
  char grid[32];
  fb_decomp_grid_string(&h->decomp, grid, sizeof grid);
  fb_print(ctx, "Himeno benchmark (fabricbench %s), size %s: %d x %d x %d points\n", fb_version(),
           h->size_name, h->points[0], h->points[1], h->points[2]);
  fb_print(ctx, " imax = %d jmax = %d kmax = %d\n", h->points[0], h->points[1], h->points[2]);
  fb_print(ctx, " I-decomp = %d J-decomp = %d K-decomp = %d (grid %s, %d ranks x %d threads)\n",
           h->decomp.dims[0], h->decomp.dims[1], h->decomp.dims[2], grid, ctx->size, ctx->threads);
  char trial[512] = ""; /* the trial's times, where one ran */
  size_t used = 0;
  for (int kind = 0; kind < HIMENO_SWEEP_KINDS; kind++) {
    int first_of_kind = 1;
    for (int pf = 1; pf >= 0; pf--)
      for (int nt = 0; nt < 2; nt++)
        if (h->trial_s[kind][pf][nt] > 0 && used < sizeof trial) {
          used +=
              (size_t)snprintf(trial + used, sizeof trial - used, "%s%s %.3f %s%s",
                               used ? (first_of_kind ? "; " : ",") : "; ms a sweep: ",
                               first_of_kind ? layout_words[kind] : "",
                               1e3 * h->trial_s[kind][pf][nt], trial_words[pf], nt ? "+nt" : "");
          first_of_kind = 0;
        }
  }
  fb_print(ctx,
           " Coefficients: %s, stores %s (--layout %s --vector-width %s --prefetch %s "
           "--nt-stores %s%s)\n",
           sweep_names[himeno_sweep_kind(h)][h->prefetch], store_names[h->nt], h->layout_name,
           h->width_name, h->prefetch_name, h->nt_name, trial);
}

/* --layout, --vector-width, --prefetch and --nt-stores auto: the sweep
 * timed in each variant they leave open (kernel.c: the coefficient layout,
 * the split layout's vector width, with and without its prefetches, with
 * and without non-temporal stores), TRIAL_ROUNDS
 * times each, on every rank at once (ranks that share a cache share it as
 * in the run); the slowest rank's best time a sweep decides. A timing
 * covers at least TRIAL_POINTS points a rank (several sweeps of a small
 * grid): milliseconds, far above the clock's resolution. Which variant wins
 * depends on whether the node's cache holds its ranks' coefficients and on
 * the CPU (kernel.c); the field is the same either way, and the rehearsal
 * starts again from the initial state. A sanitizer build (make
 * SANITIZE=address) checks memory, and its times rank nothing but the
 * instrumentation: there each variant is swept once a round, which still
 * runs every variant's code (the full trial took 3 of the 3.6 s of an XS run
 * under AddressSanitizer; himeno's tests, 241 s of CI's sanitizer pass with
 * it and 95 s without). */
#define TRIAL_ROUNDS 2
#if defined(__SANITIZE_ADDRESS__) /* GCC's name */
#define TRIAL_SANITIZED 1
#elif defined(__has_feature) /* clang's */
#if __has_feature(address_sanitizer)
#define TRIAL_SANITIZED 1
#endif
#endif
#ifdef TRIAL_SANITIZED
#define TRIAL_POINTS 1
#else
#define TRIAL_POINTS (1 << 22)
#endif
/* ... and at most this many sweeps: a sweep costs an OpenMP fork and join
 * whatever its size, so on a grid of a few points a rank (3x3x3, or 5x3x3
 * over 3 ranks: one point each) TRIAL_POINTS alone asked for 4 million
 * sweeps a variant, minutes of set-up before a 5-iteration run; 4096 of them
 * take a few milliseconds, still far above the clock's resolution */
#define TRIAL_MAX_SWEEPS 4096
/* the options as parsed: the variant a fixed option names */
typedef struct {
  int split, prefetch, nt;
} TrialFixed;
static int trial_candidate(const Himeno *h, const TrialFixed *fixed, int kind, int pf, int nt) {
  const int split = kind != HIMENO_ONE_STREAM;
  if (!himeno_sweep_available(kind, nt)) return 0;
  if (strcmp(h->layout_name, "auto") && split != fixed->split) return 0;
  if (split && strcmp(h->width_name, "auto") && (kind == HIMENO_SPLIT_WIDE) != h->wide) return 0;
  if (strcmp(h->nt_name, "auto") && nt != fixed->nt) return 0;
  return !strcmp(h->prefetch_name, "auto") || pf == fixed->prefetch;
}

/* the variants' loop: kind, prefetch and nt over every combination */
#define FOR_EACH_VARIANT(kind, pf, nt)                                                             \
  for (int kind = 0; kind < HIMENO_SWEEP_KINDS; kind++)                                            \
    for (int pf = 0; pf < 2; pf++)                                                                 \
      for (int nt = 0; nt < 2; nt++)

void himeno_choose_sweep(FbContext *ctx, Himeno *h) {
  const TrialFixed fixed = {h->coef_split, h->prefetch, h->nt};
  int candidates = 0;
  FOR_EACH_VARIANT(kind, pf, nt) candidates += trial_candidate(h, &fixed, kind, pf, nt);
  if (candidates < 2) return;
  const double per_rank = himeno_interior_points(h) / ctx->size;
  long long sweeps = (long long)ceil(TRIAL_POINTS / per_rank);
  if (sweeps > TRIAL_MAX_SWEEPS) sweeps = TRIAL_MAX_SWEEPS;
  for (int round = 0; round < TRIAL_ROUNDS; round++) FOR_EACH_VARIANT(kind, pf, nt) {
      if (!trial_candidate(h, &fixed, kind, pf, nt)) continue;
      himeno_use_sweep_kind(h, kind);
      h->prefetch = pf;
      h->nt = nt;
      fb_barrier(ctx, FB_NO_PHASE); /* set-up: untimed, as the other set-up collectives */
      const double start = fb_now();
      for (long long s = 0; s < sweeps; s++) himeno_sweep(h, h->p, h->pnew);
      const double t = fb_allreduce_max(ctx, FB_NO_PHASE, (fb_now() - start) / (double)sweeps);
      double *kept = &h->trial_s[kind][pf][nt];
      if (round == 0 || t < *kept) *kept = t;
    }
  const double *best = NULL;
  int best_kind = 0, best_prefetch = 0, best_nt = 0;
  FOR_EACH_VARIANT(kind, pf, nt) {
    const double *t = &h->trial_s[kind][pf][nt];
    if (*t > 0 && (!best || *t < *best)) {
      best = t;
      best_kind = kind;
      best_prefetch = pf;
      best_nt = nt;
    }
  }
  himeno_use_sweep_kind(h, best_kind);
  h->prefetch = best_prefetch;
  h->nt = best_nt;
}

static double mflops(const Himeno *h, long long iterations, double seconds) {
  return HIMENO_FLOPS_PER_POINT * himeno_interior_points(h) * (double)iterations / seconds / 1e6;
}

/* Runs `iterations` from the initial state through the common timing
 * protocol (the loop's time is the slowest rank's); gosa of the first and
 * last iterations are kept. */
static FbLoop run_from_start(FbContext *ctx, Himeno *h, long long iterations) {
  FbLoop loop = {0};
  himeno_reset(h);
  fb_timers_reset(&ctx->timers);
  fb_loop_begin(ctx, &loop);
  for (long long it = 1; it <= iterations; it++) {
    h->gosa = himeno_iterate(ctx, h);
    if (it == 1) h->gosa_first = h->gosa;
  }
  fb_loop_end(ctx, &loop);
  h->done = iterations;
  return loop;
}

/* The original's rehearsal: a few untimed iterations that also size the run
 * for -t. Returns the iteration count of the timed loop. */
long long himeno_rehearse(FbContext *ctx, Himeno *h) {
  fb_print(ctx,
           " Start rehearsal measurement process.\n"
           " Measure the performance in %d times.\n\n",
           HIMENO_REHEARSAL_ITERATIONS);
  double t = run_from_start(ctx, h, HIMENO_REHEARSAL_ITERATIONS).max_s;
  fb_print(ctx, " MFLOPS: %f time(s): %f %e\n\n", mflops(h, HIMENO_REHEARSAL_ITERATIONS, t), t,
           h->gosa);
  long long n = h->iterations;
  if (n == 0) {
    double per_iteration = t / HIMENO_REHEARSAL_ITERATIONS;
    n = per_iteration > 0 ? (long long)(h->target_s / per_iteration) : 1;
    if (n < 1) n = 1;
  }
  fb_print(ctx,
           " Now, start the actual measurement process.\n"
           " The loop will be excuted in %lld times\n"
           " This will take about %.1f seconds.\n Wait for a while\n\n",
           n, t / HIMENO_REHEARSAL_ITERATIONS * (double)n * ctx->common.repeat);
  return n;
}

void himeno_measure(FbContext *ctx, Himeno *h, long long iterations, FbResult *r) {
  for (long long rep = 0; rep < ctx->common.repeat; rep++) {
    FbLoop loop = run_from_start(ctx, h, iterations);
    fb_result_add_loop(r, &loop, mflops(h, iterations, loop.max_s));
  }
}

void himeno_print_original_lines(FbContext *ctx, const Himeno *h, const FbResult *r) {
  fb_print(ctx, "cpu : %f sec.\n", r->wall_s);
  fb_print(ctx, "Loop executed for %lld times\n", h->done);
  fb_print(ctx, "Gosa : %e \n", h->gosa);
  fb_print(ctx, "MFLOPS measured : %f\n", r->fom);
  fb_print(ctx, "Score based on Pentium III 600MHz : %f\n", r->fom / HIMENO_PENTIUM3_MFLOPS);
  fb_print(ctx, "Gosa (double, 13 digits) : %.12e\n", h->gosa);
  fb_print(ctx, "Checksum : %.17g weighted %.17g\n", h->checksum, h->checksum_weighted);
}

void himeno_fill_result(const FbContext *ctx, const Himeno *h, FbResult *r, char *json,
                        size_t len) {
  (void)ctx;
  fb_decomp_grid_string(&h->decomp, r->grid, sizeof r->grid);
  fb_result_param_int(r, "points_i", h->points[0]);
  fb_result_param_int(r, "points_j", h->points[1]);
  fb_result_param_int(r, "points_k", h->points[2]);
  fb_result_param_int(r, "timed_iterations", h->done);
  fb_result_param_str(
      r, "kernel",
      "jacobi19, p/pnew swap, float, coefficients in sweep order (one stream or three arrays, "
      "--layout; three arrays in 256- or 512-bit vectors, --vector-width; prefetched or not, "
      "--prefetch), pnew's stores non-temporal or not (--nt-stores), gosa in 16 lanes of "
      "double");
  const int kind = himeno_sweep_kind(h);
  fb_result_param_str(r, "coefficients", sweep_names[kind][h->prefetch]);
  fb_result_param_str(r, "vector_width", width_words[kind]);
  fb_result_param_str(r, "stores", store_names[h->nt]);
  FOR_EACH_VARIANT(k, pf, nt) /* the auto options' trial */
  if (h->trial_s[k][pf][nt] > 0)
    fb_result_param_double(r, trial_keys[k][pf][nt], h->trial_s[k][pf][nt]);
  snprintf(json, len,
           "{\"gosa\":%.17g,\"gosa_iteration_1\":%.17g,\"checksum\":%.17g,"
           "\"checksum_weighted\":%.17g,\"iterations\":%lld,\"score_pentium3\":%.17g}",
           h->gosa, h->gosa_first, h->checksum, h->checksum_weighted, h->done,
           r->fom / HIMENO_PENTIUM3_MFLOPS);
  r->app_json = json;
}
