/* blas.c: the OpenBLAS kernel hpl runs on. Debian's OpenBLAS picks its
 * kernels by CPU model and falls back to generic ones (Prescott) on models
 * it does not know: DGEMM is then several times slower. Before MPI starts,
 * hpl_blas_select() re-executes hpl with OPENBLAS_CORETYPE set to the best
 * kernel the CPU really supports, checks that kernel with a small DGEMM
 * against a plain loop, and falls back to OpenBLAS's own choice when it is
 * wrong. A user's OPENBLAS_CORETYPE always wins. The record says which
 * kernel ran and who chose it. */
#include "hpl.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* set on our own re-execution: "chosen" (we set OPENBLAS_CORETYPE),
 * "fallback" (our choice failed the check), "hook" (a test forced generic) */
#define BLAS_STATE "FB_HPL_BLAS"
#define BLAS_WAS   "FB_HPL_BLAS_WAS" /* the kernel OpenBLAS had chosen */
#define CHECK_N    48
/* DGEMM of CHECK_N x CHECK_N with entries in [-1, 1] against a plain loop:
 * sums of 48 products of at most 1, so any order of summation agrees to a few
 * ulps of 48; 1e-12 is far above that and far below a wrong kernel's error */
#define CHECK_TOLERANCE 1e-12

/* OpenBLAS kernels that are generic or older than the CPU's vector units. */
static int generic_kernel(const char *core) {
  static const char *const slow[] = {"Prescott",   "Core2",     "Penryn",     "Dunnington",
                                     "Nehalem",    "Atom",      "Generic",    "Katmai",
                                     "Coppermine", "Northwood", "Banias",     "Opteron",
                                     "Barcelona",  "Bobcat",    "Sandybridge"};
  for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
    if (!strcasecmp(core, slow[i])) return 1;
  return 0;
}

/* OpenBLAS kernels that use AVX-512. */
static int avx512_kernel(const char *core) {
  return !strcasecmp(core, "SkylakeX") || !strcasecmp(core, "Cooperlake") ||
         !strcasecmp(core, "SapphireRapids");
}

/* The best OpenBLAS kernel this CPU supports, or NULL. */
static const char *best_kernel(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return NULL;
}

static int dgemm_ok(void) {
  double *a = malloc(3 * CHECK_N * CHECK_N * sizeof *a);
  if (!a) return 1; /* no memory to check with: the run will say so soon enough */
  double *b = a + CHECK_N * CHECK_N, *c = b + CHECK_N * CHECK_N;
  int ok = 1;
  unsigned s = 12345u;
  for (int i = 0; i < CHECK_N * CHECK_N; i++) {
    s = s * 1103515245u + 12345u;
    a[i] = (double)(s >> 8) / (1 << 24) * 2 - 1;
    s = s * 1103515245u + 12345u;
    b[i] = (double)(s >> 8) / (1 << 24) * 2 - 1;
  }
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, CHECK_N, CHECK_N, CHECK_N, 1.0, a, CHECK_N,
              b, CHECK_N, 0.0, c, CHECK_N);
  for (int j = 0; j < CHECK_N; j++)
    for (int i = 0; i < CHECK_N; i++) {
      double sum = 0.0;
      for (int k = 0; k < CHECK_N; k++) sum += a[i + k * CHECK_N] * b[k + j * CHECK_N];
      if (!(fabs(sum - c[i + j * CHECK_N]) <= CHECK_TOLERANCE)) ok = 0;
    }
  free(a);
  return ok;
}

static void reexec(char **argv) {
  fflush(NULL);
  execv("/proc/self/exe", argv);
  /* no /proc: go on with the kernel we have (hpl_blas_check warns) */
}

void hpl_blas_select(char **argv) {
  const char *state = getenv(BLAS_STATE);
  if (!state && fb_test_hook("blas_generic")) { /* tests: OpenBLAS "chose" its generic kernels */
    setenv("OPENBLAS_CORETYPE", "Prescott", 1);
    setenv(BLAS_STATE, "hook", 1);
    reexec(argv);
  }
  const char *user = getenv("OPENBLAS_CORETYPE");
  if (user && (!state || strcmp(state, "hook"))) {
    if (state && !strcmp(state, "chosen") && !dgemm_ok()) { /* our choice computes wrong */
      unsetenv("OPENBLAS_CORETYPE");
      setenv(BLAS_STATE, "fallback", 1);
      reexec(argv);
    }
    return; /* the user's kernel, or ours that passed the check */
  }
  const char *core = openblas_get_corename(), *best = best_kernel();
  if (state && !strcmp(state, "fallback")) return;
  if (best && generic_kernel(core)) {
    setenv(BLAS_WAS, core, 1);
    setenv("OPENBLAS_CORETYPE", best, 1);
    setenv(BLAS_STATE, "chosen", 1);
    reexec(argv);
  }
}

/* OpenBLAS's threads. Its pthread build starts one per CPU the process may
 * run on unless OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or OMP_NUM_THREADS
 * says otherwise: the whole node when Open MPI binds a rank to a socket
 * (more than 2 ranks) or MPICH binds nothing, so `mpirun -np 4 hpl` on 2
 * cores ran 4 x 2 BLAS threads (32-47 Gflop/s at N=3000 against 54-63 with
 * one each). Unless the user set OpenBLAS's own variables, DGEMM gets the
 * rank's share of the cores, the threads the context chose. */
void hpl_blas_threads(const FbContext *ctx) {
  const char *mine = getenv("OPENBLAS_NUM_THREADS"), *goto_ = getenv("GOTO_NUM_THREADS");
  if ((mine && atoi(mine) > 0) || (goto_ && atoi(goto_) > 0)) return;
  openblas_set_num_threads(ctx->threads);
}

void hpl_blas_check(FbContext *ctx, FbResult *r, int warn) {
  const char *core = openblas_get_corename();
  const char *config = openblas_get_config();
  const char *state = getenv(BLAS_STATE), *was = getenv(BLAS_WAS);
  int threads = openblas_get_num_threads();
  char chosen[160];
  /* the user's OPENBLAS_CORETYPE (not ours, nor the test hook's) */
  const int by_user = getenv("OPENBLAS_CORETYPE") && !state;
  if (state && !strcmp(state, "chosen"))
    snprintf(chosen, sizeof chosen, "hpl (OpenBLAS chose %s; DGEMM checked)", was ? was : "?");
  else if (state && !strcmp(state, "fallback"))
    snprintf(chosen, sizeof chosen, "OpenBLAS (hpl's choice failed its DGEMM check)");
  else if (by_user)
    snprintf(chosen, sizeof chosen, "OPENBLAS_CORETYPE");
  else
    snprintf(chosen, sizeof chosen, "OpenBLAS");
  fb_result_param_str(r, "blas", config);
  fb_result_param_str(r, "blas_kernel", core);
  fb_result_param_str(r, "blas_kernel_chosen_by", chosen);
  fb_result_param_int(r, "blas_threads", threads);
  const char *best = best_kernel();
  if (!warn) return;
  if (ctx->rank == 0 && generic_kernel(core) && best) {
    fprintf(stderr,
            "WARNING: OpenBLAS runs its '%s' kernels on a CPU that supports %s's: DGEMM is "
            "several times slower (kernel chosen by %s; unset OPENBLAS_CORETYPE, or set it to "
            "%s).\n",
            core, best, chosen, best);
    fflush(stderr);
  } else if (ctx->rank == 0 && best && !strcmp(best, "SkylakeX") && !avx512_kernel(core) &&
             by_user) {
    /* the user's choice stands; a Zen 5 here ran DGEMM at 46 Gflop/s a core
     * with Haswell's kernels against 80 with OpenBLAS's own (Cooperlake) */
    fprintf(stderr,
            "NOTE: OPENBLAS_CORETYPE=%s runs AVX2 kernels on a CPU with AVX-512: DGEMM may be "
            "slower than with SkylakeX's (unset OPENBLAS_CORETYPE to let OpenBLAS choose).\n",
            getenv("OPENBLAS_CORETYPE"));
    fflush(stderr);
  }
  int per_node = fb_ranks_on_my_node(ctx);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (ctx->rank == 0 && cores > 0 && (long)threads * per_node > cores) {
    if (threads > 1)
      fprintf(stderr,
              "WARNING: %d OpenBLAS threads x %d ranks on this node > %ld cores: the ranks "
              "oversubscribe the cores. Set OPENBLAS_NUM_THREADS=%ld.\n",
              threads, per_node, cores, cores / per_node > 0 ? cores / per_node : 1);
    else
      fprintf(stderr,
              "WARNING: %d ranks on this node > %ld cores: the timings are not "
              "representative.\n",
              per_node, cores);
    fflush(stderr);
  }
}
