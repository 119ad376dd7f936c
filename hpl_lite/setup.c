/* setup.c: hpl_lite's options, the standard HPL.dat reader, the list of
 * cases (every combination, as HPL runs them), and the OpenBLAS check. */
#include "hpl.h"

#include <cblas.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HPL_MAX_NB 512

/* Reads line `want` (1-based) of an HPL.dat into buf; 0 at end of file. */
static int dat_line(FILE *f, int *line_no, char *buf, size_t len) {
  if (!fgets(buf, (int)len, f)) return 0;
  (*line_no)++;
  return 1;
}

/* The first `count` integers of a line (count 1 reads a single value). */
static int dat_ints(const char *buf, long long *out, int count) {
  const char *p = buf;
  for (int i = 0; i < count; i++) {
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || errno == ERANGE) return 0;
    if (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') return 0;
    out[i] = v;
    p = end;
  }
  return 1;
}

int hpl_read_dat(const char *path, HplConfig *cfg, char *err, size_t err_len, char *notes,
                 size_t notes_len) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
    return FB_EXIT_USAGE;
  }
  char buf[1024];
  int line = 0;
  long long ns[HPL_MAX_LIST], nbs[HPL_MAX_LIST], ps[HPL_MAX_LIST], qs[HPL_MAX_LIST],
      bcasts[HPL_MAX_LIST], depths[HPL_MAX_LIST];
  long long n_ns = 0, n_nbs = 0, n_grids = 0, n_bc = 0, n_dep = 0, pmap = 0, v[HPL_MAX_LIST];
  double threshold = HPL_THRESHOLD;
  /* list lines: (count line, values line, destination) in file order */
  struct {
    int count_line;
    long long *dest, *count, lo, hi;
    const char *what;
  } lists[] = {
      {5, ns, &n_ns, 1, HPL_MAX_N, "Ns"},          {7, nbs, &n_nbs, 1, HPL_MAX_NB, "NBs"},
      {10, ps, &n_grids, 1, HPL_MAX_GRID, "Ps"}, {22, bcasts, &n_bc, 0, 5, "BCASTs"},
      {24, depths, &n_dep, 0, INT_MAX, "DEPTHs"},
  };
  int li = 0, rc = FB_EXIT_USAGE;
  notes[0] = '\0';
  while (dat_line(f, &line, buf, sizeof buf) && line <= 31) {
    if (li < 5 && line == lists[li].count_line) {
      long long n;
      if (!dat_ints(buf, &n, 1) || n < 1 || n > HPL_MAX_LIST) {
        snprintf(err, err_len, "%s:%d: the number of %s must be 1 to %d", path, line,
                 lists[li].what, HPL_MAX_LIST);
        goto out;
      }
      if (!dat_line(f, &line, buf, sizeof buf) || !dat_ints(buf, lists[li].dest, (int)n)) {
        snprintf(err, err_len, "%s:%d: expected %lld %s", path, line, n, lists[li].what);
        goto out;
      }
      for (long long i = 0; i < n; i++)
        if (lists[li].dest[i] < lists[li].lo || lists[li].dest[i] > lists[li].hi) {
          snprintf(err, err_len, "%s:%d: %s value %lld is outside %lld to %lld", path, line,
                   lists[li].what, lists[li].dest[i], lists[li].lo, lists[li].hi);
          goto out;
        }
      *lists[li].count = n;
      if (lists[li].dest == ps) { /* Qs follow on the next line */
        if (!dat_line(f, &line, buf, sizeof buf) || !dat_ints(buf, qs, (int)n)) {
          snprintf(err, err_len, "%s:%d: expected %lld Qs", path, line, n);
          goto out;
        }
        for (long long i = 0; i < n; i++)
          if (qs[i] < 1 || qs[i] > HPL_MAX_GRID) {
            snprintf(err, err_len, "%s:%d: Q value %lld is outside 1 to %lld", path, line, qs[i],
                     HPL_MAX_GRID);
            goto out;
          }
      }
      li++;
      continue;
    }
    if (line == 9 && (!dat_ints(buf, &pmap, 1) || pmap < 0 || pmap > 1)) {
      snprintf(err, err_len, "%s:%d: PMAP must be 0 (row-major) or 1 (column-major)", path, line);
      goto out;
    }
    if (line == 13) {
      char *end;
      threshold = strtod(buf, &end);
      if (end == buf || !(threshold > 0)) {
        snprintf(err, err_len, "%s:%d: the threshold must be a positive number", path, line);
        goto out;
      }
    }
    if (line >= 14 && line <= 21 && !dat_ints(buf, v, 1)) {
      snprintf(err, err_len, "%s:%d: expected a number", path, line);
      goto out;
    }
  }
  if (li < 5) {
    snprintf(err, err_len, "%s:%d: file ends before the %s lines", path, line + 1, lists[li].what);
    goto out;
  }
  cfg->threshold = threshold;
  cfg->n_cases = 0;
  for (long long a = 0; a < n_ns; a++)
    for (long long b = 0; b < n_nbs; b++)
      for (long long g = 0; g < n_grids; g++)
        for (int variant = 0; variant < HPL_BCAST_VARIANTS; variant++) {
          int asked = 0; /* run each variant once, whichever BCAST values name it */
          for (long long k = 0; k < n_bc; k++)
            asked |= (bcasts[k] >= 4 ? BCAST_BINOMIAL : BCAST_RING) == variant;
          if (!asked) continue;
          HplCase *c = &cfg->cases[cfg->n_cases++];
          c->n = ns[a];
          c->nb = nbs[b];
          c->p = (int)ps[g];
          c->q = (int)qs[g];
          c->bcast = variant;
        }
  snprintf(notes, notes_len,
           "%s: read Ns, NBs, Ps x Qs, threshold and BCASTs (0-3: increasing ring, 4-5: "
           "binomial); PMAP%s, PFACTs, NBMINs, NDIVs, RFACTs, DEPTHs (always 1), SWAP, L1/U "
           "forms, equilibration and alignment are read and not used",
           path, pmap ? " (column-major asked: row-major is used)" : "");
  rc = 0;
out:
  fclose(f);
  return rc;
}

static void grid_for(int size, long long *p, long long *q) {
  long long best = 1;
  for (long long i = 1; i * i <= size; i++)
    if (size % i == 0) best = i;
  *p = best;
  *q = size / best;
}

void hpl_parse(FbContext *ctx, HplConfig *cfg, int argc, char **argv) {
  memset(cfg, 0, sizeof *cfg);
  cfg->n_opt = 0;
  cfg->nb_opt = 128;
  cfg->seed = 42;
  cfg->bcast_name = "ring";
  cfg->threshold = HPL_THRESHOLD;
  fb_option_int(ctx, "n", 'N', &cfg->n_opt, 1, HPL_MAX_N, "N", "order of the system (default 2000)");
  fb_option_int(ctx, "nb", 'b', &cfg->nb_opt, 1, HPL_MAX_NB, "NB", "block size");
  fb_option_int(ctx, "p", 'P', &cfg->p_opt, 1, HPL_MAX_GRID, "P", "process rows (default: P <= Q, near square)");
  fb_option_int(ctx, "q", 'Q', &cfg->q_opt, 1, HPL_MAX_GRID, "Q", "process columns");
  fb_option_string(ctx, "bcast", 0, &cfg->bcast_name, "ring|binomial",
                   "panel broadcast along process rows: increasing ring or binomial tree");
  fb_option_string(ctx, "dat", 0, &cfg->dat_path, "FILE",
                   "read the cases from a standard HPL.dat (every combination is run)");
  fb_option_double(ctx, "mem-fraction", 0, &cfg->mem_fraction, 0.0, 0.95, "F",
                   "choose N so the matrix fills F of the nodes' available memory");
  fb_option_int(ctx, "seed", 0, &cfg->seed, 0, 1LL << 62, "S", "seed of the matrix generator");
  fb_parse_options(ctx, argc, argv,
                   "hpl_lite: HPL-compatible LU with partial pivoting of a random dense system\n"
                   "on a 2-D block-cyclic P x Q grid (right-looking, look-ahead 1, OpenBLAS\n"
                   "dgemm/dtrsm), HPL's output lines and its scaled-residual check (< 16).\n"
                   "Gflop/s = (2/3 N^3 + 3/2 N^2) / time.");
  int bcast;
  if (!strcmp(cfg->bcast_name, "ring")) bcast = BCAST_RING;
  else if (!strcmp(cfg->bcast_name, "binomial")) bcast = BCAST_BINOMIAL;
  else fb_fail(ctx, FB_EXIT_USAGE, "option --bcast: '%s' is not ring or binomial", cfg->bcast_name);
  if (cfg->dat_path) {
    if (fb_option_was_set(ctx, "n") || fb_option_was_set(ctx, "nb") || fb_option_was_set(ctx, "p") ||
        fb_option_was_set(ctx, "q") || fb_option_was_set(ctx, "mem-fraction"))
      fb_fail(ctx, FB_EXIT_USAGE, "option --dat: give the sizes in the file or on the command line, not both");
    char err[FB_MSG_LEN], notes[FB_MSG_LEN];
    int rc = hpl_read_dat(cfg->dat_path, cfg, err, sizeof err, notes, sizeof notes);
    if (rc) fb_fail(ctx, rc, "%s", err);
    fb_print(ctx, "note: %s\n", notes);
  } else {
    long long p = cfg->p_opt, q = cfg->q_opt;
    if (!p && !q) grid_for(ctx->size, &p, &q);
    else if (!p) p = ctx->size / q > 0 ? ctx->size / q : 1;
    else if (!q) q = ctx->size / p > 0 ? ctx->size / p : 1;
    long long n = cfg->n_opt ? cfg->n_opt : 2000;
    if (cfg->mem_fraction > 0) {
      if (cfg->n_opt) fb_fail(ctx, FB_EXIT_USAGE, "give -N or --mem-fraction, not both");
      double total = fb_nodes_mem_available(ctx);
      n = (long long)sqrt(cfg->mem_fraction * total / sizeof(double));
      n = n / cfg->nb_opt * cfg->nb_opt;
      if (n < cfg->nb_opt) n = cfg->nb_opt;
      fb_print(ctx, "--mem-fraction %g of %.1f GiB available: N = %lld\n", cfg->mem_fraction,
               total / 1073741824.0, n);
    }
    cfg->cases[0] = (HplCase){n, cfg->nb_opt, (int)p, (int)q, bcast};
    cfg->n_cases = 1;
  }
  for (int i = 0; i < cfg->n_cases; i++) {
    const HplCase *c = &cfg->cases[i];
    if ((long long)c->p * c->q != ctx->size)
      fb_fail(ctx, FB_EXIT_USAGE, "P x Q = %d x %d = %lld but the job has %d ranks", c->p, c->q,
              (long long)c->p * c->q, ctx->size);
  }
}

/* OpenBLAS kernels that are generic or older than the CPU's vector units. */
static int generic_kernel(const char *core) {
  static const char *const slow[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem",
                                     "Atom", "Generic", "Katmai", "Coppermine", "Northwood",
                                     "Banias", "Opteron", "Barcelona", "Bobcat", "Sandybridge"};
  for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
    if (!strcasecmp(core, slow[i])) return 1;
  return 0;
}

void hpl_blas_check(FbContext *ctx, FbResult *r) {
  const char *core = openblas_get_corename();
  const char *config = openblas_get_config();
  int threads = openblas_get_num_threads();
  fb_result_param_str(r, "blas", config);
  fb_result_param_str(r, "blas_kernel", core);
  fb_result_param_int(r, "blas_threads", threads);
  __builtin_cpu_init();
  int avx512 = __builtin_cpu_supports("avx512f"), avx2 = __builtin_cpu_supports("avx2");
  if (ctx->rank == 0 && generic_kernel(core) && (avx2 || avx512)) {
    fprintf(stderr,
            "WARNING: OpenBLAS runs its '%s' kernels on a CPU with %s: DGEMM is several times "
            "slower. Set OPENBLAS_CORETYPE=%s (e.g. mpirun -x OPENBLAS_CORETYPE=%s ...).\n",
            core, avx512 ? "AVX-512" : "AVX2", avx512 ? "SkylakeX" : "Haswell",
            avx512 ? "SkylakeX" : "Haswell");
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
      fprintf(stderr, "WARNING: %d ranks on this node > %ld cores: the timings are not "
                      "representative.\n", per_node, cores);
    fflush(stderr);
  }
}
