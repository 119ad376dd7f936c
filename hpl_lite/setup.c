/* setup.c: hpl_lite's options, the standard HPL.dat reader, the list of
 * cases (every combination, as HPL runs them), and the OpenBLAS check. */
#include "hpl.h"

#include <cblas.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HPL.dat as HPL's HPL_pdinfo reads it (the copy hpcc 1.5.0 ships): 31 lines, each value at its
 * line's start, lists as a count line (1 to HPL_MAX_LIST, HPL's
 * HPL_MAX_PARAM) and a values line. Accepted and refused as HPL does, with
 * three differences, all kinder: a non-number is refused where HPL's atoi
 * reads 0 (a line missing above shifts every value after it), a values line
 * with fewer values than its count is refused (HPL reads past them), and
 * values may be separated by any whitespace (HPL loses its place after a
 * leading blank). And N = 0, which HPL takes and times as nothing, is
 * refused. */
#define HPL_DAT_LINES 31

/* The reader's place in an HPL.dat (text already in memory). */
typedef struct {
  FILE *f;
  const char *path;
  int line;
  char *buf; /* the current line (getline: any length) */
  size_t cap;
  char *err;
  size_t err_len;
} DatReader;

static int dat_next(DatReader *r) {
  if (!r->f || getline(&r->buf, &r->cap, r->f) < 0) return 0;
  r->line++;
  return 1;
}

static int dat_fail(DatReader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int dat_fail(DatReader *r, const char *fmt, ...) {
  char msg[FB_MSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(r->err, r->err_len, "%s:%d: %s", r->path, r->line, msg);
  return FB_EXIT_USAGE;
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

/* The next line, which must exist (what: the value it holds). */
static int dat_line(DatReader *r, const char *what) {
  if (dat_next(r)) return 0;
  return dat_fail(r, "the file ends before %s: a standard HPL.dat has %d lines", what,
                  HPL_DAT_LINES);
}

/* A line holding one integer (PMAP). */
static int dat_value(DatReader *r, const char *what, long long *v) {
  int rc = dat_line(r, what);
  if (!rc && !dat_ints(r->buf, v, 1)) rc = dat_fail(r, "expected %s, a whole number", what);
  return rc;
}

/* A count line and its values line: "N  # of Ns" then N values in [lo, hi]. */
static int dat_list(DatReader *r, const char *what, long long *dest, long long *count, long long lo,
                    long long hi) {
  long long n;
  char count_of[64];
  snprintf(count_of, sizeof count_of, "the number of %s", what);
  int rc = dat_line(r, count_of);
  if (rc) return rc;
  if (!dat_ints(r->buf, &n, 1) || n < 1 || n > HPL_MAX_LIST)
    return dat_fail(r, "the number of %s must be 1 to %d", what, HPL_MAX_LIST);
  if (!dat_next(r) || !dat_ints(r->buf, dest, (int)n))
    return dat_fail(r, "expected %lld %s", n, what);
  for (long long i = 0; i < n; i++) {
    if (hi == INT_MAX && dest[i] < lo)
      return dat_fail(r, "%s value %lld is below %lld (HPL's least)", what, dest[i], lo);
    if (dest[i] < lo || dest[i] > hi)
      return dat_fail(r, "%s value %lld is outside %lld to %lld", what, dest[i], lo, hi);
  }
  *count = n;
  return 0;
}

/* HPL's broadcast topologies as hpl_lite runs them: the long ones (4, 5) as
 * the binomial tree, the increasing rings (0 1rg, 2 2rg) as the increasing
 * ring, the modified ones (1 1rM, 3 2rM, and any other value, which HPL runs
 * as 1rM) as the modified ring. */
static int bcast_variant(long long v) {
  return v == 4 || v == 5 ? BCAST_BINOMIAL : v == 0 || v == 2 ? BCAST_RING : BCAST_RING_MODIFIED;
}

/* Every combination of P x Q, N, NB and broadcast variant, in HPL's order
 * (HPL_pddriver: the grid outermost, then N, then NB). */
static void dat_cases(HplConfig *cfg, const long long *ns, long long n_ns, const long long *nbs,
                      long long n_nbs, const long long *ps, const long long *qs, long long n_grids,
                      const long long *bcasts, long long n_bc) {
  cfg->n_cases = 0;
  for (long long g = 0; g < n_grids; g++)
    for (long long a = 0; a < n_ns; a++)
      for (long long b = 0; b < n_nbs; b++)
        for (int variant = 0; variant < HPL_BCAST_VARIANTS; variant++) {
          int asked = 0; /* each variant once, whichever BCAST values name it */
          for (long long k = 0; k < n_bc; k++) asked |= bcast_variant(bcasts[k]) == variant;
          if (!asked) continue;
          HplCase *c = &cfg->cases[cfg->n_cases++];
          c->n = ns[a];
          c->nb = nbs[b];
          c->p = (int)ps[g];
          c->q = (int)qs[g];
          c->bcast = variant;
        }
}

/* Line 13: HPL's check passes when the scaled residual is below it; HPL
 * skips the check when it is 0 or less, hpl_lite checks against its own 16
 * then (every run is validated). */
static int dat_threshold(DatReader *r, double *threshold) {
  int rc = dat_line(r, "the threshold");
  if (rc) return rc;
  char *end;
  *threshold = strtod(r->buf, &end);
  if (end == r->buf || !isfinite(*threshold) || (*end && !isspace((unsigned char)*end)))
    return dat_fail(r, "the threshold must be a number");
  return 0;
}

int hpl_read_dat(const char *path, const char *text, size_t len, HplConfig *cfg, char *err,
                 size_t err_len, char *notes, size_t notes_len) {
  DatReader r = {len ? fmemopen((void *)text, len, "r") : NULL, path, 0, NULL, 0, err, err_len};
  if (len && !r.f) return snprintf(err, err_len, "%s: cannot read", path), FB_EXIT_RUNTIME;
  long long ns[HPL_MAX_LIST], nbs[HPL_MAX_LIST], ps[HPL_MAX_LIST], qs[HPL_MAX_LIST],
      bcasts[HPL_MAX_LIST], unused[HPL_MAX_LIST];
  long long n_ns = 0, n_nbs = 0, n_grids = 0, n_bc = 0, n_unused = 0, pmap = 0;
  double threshold = HPL_THRESHOLD;
  notes[0] = '\0';
  int rc = !len ? (snprintf(err, err_len, "%s: empty file", path), FB_EXIT_USAGE) : 0;
  for (int line = 1; !rc && line <= 4; line++) /* title, output file and device: not used */
    rc = dat_line(&r, "the number of Ns");
  if (!rc) rc = dat_list(&r, "Ns", ns, &n_ns, 1, HPL_MAX_N);        /* lines 5-6 */
  if (!rc) rc = dat_list(&r, "NBs", nbs, &n_nbs, 1, HPL_MAX_NB);    /* lines 7-8 */
  if (!rc) rc = dat_value(&r, "PMAP, the process mapping", &pmap);  /* line 9 */
  if (!rc) rc = dat_list(&r, "Ps", ps, &n_grids, 1, HPL_MAX_GRID);  /* lines 10-11 */
  if (!rc && (!dat_next(&r) || !dat_ints(r.buf, qs, (int)n_grids))) /* line 12 */
    rc = dat_fail(&r, "expected %lld Qs", n_grids);
  for (long long i = 0; !rc && i < n_grids; i++)
    if (qs[i] < 1 || qs[i] > HPL_MAX_GRID)
      rc = dat_fail(&r, "Q value %lld is outside 1 to %lld", qs[i], (long long)HPL_MAX_GRID);
  if (!rc) rc = dat_threshold(&r, &threshold); /* line 13 */
  /* lines 14-25, read and refused as HPL does: only the BCASTs are used */
  if (!rc) rc = dat_list(&r, "PFACTs", unused, &n_unused, INT_MIN, INT_MAX);
  if (!rc) rc = dat_list(&r, "NBMINs", unused, &n_unused, 1, INT_MAX);
  if (!rc) rc = dat_list(&r, "NDIVs", unused, &n_unused, 2, INT_MAX);
  if (!rc) rc = dat_list(&r, "RFACTs", unused, &n_unused, INT_MIN, INT_MAX);
  if (!rc) rc = dat_list(&r, "BCASTs", bcasts, &n_bc, INT_MIN, INT_MAX);
  if (!rc) rc = dat_list(&r, "DEPTHs", unused, &n_unused, 0, INT_MAX);
  while (!rc && r.line < HPL_DAT_LINES && dat_next(&r)) continue; /* SWAP ... alignment */
  if (r.f) fclose(r.f);
  free(r.buf);
  if (rc) return rc;
  cfg->threshold = threshold > 0 ? threshold : HPL_THRESHOLD;
  dat_cases(cfg, ns, n_ns, nbs, n_nbs, ps, qs, n_grids, bcasts, n_bc);
  int used = snprintf(
      notes, notes_len,
      "%s: read Ns, NBs, Ps x Qs, threshold and BCASTs (0, 2: increasing ring, "
      "4-5: binomial tree, others: modified ring); PMAP%s, PFACTs, NBMINs, NDIVs, RFACTs, DEPTHs "
      "(always 1), SWAP, L1/U forms, equilibration and alignment are read and "
      "not used; the output file (lines 3-4) is not written (results: stdout "
      "and --json)",
      path, pmap == 1 ? " (column-major asked: row-major is used)" : "");
  if (!(threshold > 0) && used >= 0 && (size_t)used < notes_len)
    used += snprintf(notes + used, notes_len - used,
                     "\nnote: %s:13: threshold %g would make HPL skip its check: hpl_lite "
                     "checks against %g all the same",
                     path, threshold, HPL_THRESHOLD);
  if (r.line < HPL_DAT_LINES && used >= 0 && (size_t)used < notes_len)
    snprintf(notes + used, notes_len - used,
             "\nnote: %s: the file ends after line %d, before the unused lines up to %d "
             "(HPL reads its last line again for them)",
             path, r.line, HPL_DAT_LINES);
  return 0;
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
  fb_option_int(ctx, "n", 'N', &cfg->n_opt, 1, HPL_MAX_N, "N", "order of the system");
  fb_option_default(ctx, "2000");
  fb_option_int(ctx, "nb", 'b', &cfg->nb_opt, 1, HPL_MAX_NB, "NB", "block size");
  fb_option_int(ctx, "p", 'P', &cfg->p_opt, 1, HPL_MAX_GRID, "P", "process rows");
  fb_option_default(ctx, "P <= Q, near square");
  fb_option_int(ctx, "q", 'Q', &cfg->q_opt, 1, HPL_MAX_GRID, "Q", "process columns");
  fb_option_default(ctx, "N ranks / P");
  fb_option_string(ctx, "bcast", 0, &cfg->bcast_name, "ring|ring-modified|binomial",
                   "panel broadcast along process rows: increasing ring (HPL's 1rg), "
                   "modified increasing ring (1rM) or binomial tree");
  fb_option_string(ctx, "dat", 0, &cfg->dat_path, "FILE",
                   "read the cases from a standard HPL.dat (every combination is run)");
  fb_option_double(ctx, "mem-fraction", 0, &cfg->mem_fraction, 0.001, 0.95, "F",
                   "choose N so the matrix fills F of the nodes' available memory");
  fb_option_int(ctx, "seed", 0, &cfg->seed, 0, 1LL << 62, "S", "seed of the matrix generator");
  fb_parse_options(ctx, argc, argv,
                   "hpl_lite: HPL-compatible LU with partial pivoting of a random dense system\n"
                   "on a 2-D block-cyclic P x Q grid (right-looking, look-ahead 1, OpenBLAS\n"
                   "dgemm/dtrsm), HPL's output lines and its scaled-residual check (< 16).\n"
                   "Gflop/s = (2/3 N^3 + 3/2 N^2) / time.");
  int bcast;
  if (!strcmp(cfg->bcast_name, "ring"))
    bcast = BCAST_RING;
  else if (!strcmp(cfg->bcast_name, "ring-modified"))
    bcast = BCAST_RING_MODIFIED;
  else if (!strcmp(cfg->bcast_name, "binomial"))
    bcast = BCAST_BINOMIAL;
  else
    fb_fail(ctx, FB_EXIT_USAGE, "option --bcast: '%s' is not ring, ring-modified or binomial",
            cfg->bcast_name);
  if (cfg->dat_path) {
    if (fb_option_was_set(ctx, "n") || fb_option_was_set(ctx, "nb") ||
        fb_option_was_set(ctx, "p") || fb_option_was_set(ctx, "q") ||
        fb_option_was_set(ctx, "mem-fraction"))
      fb_fail(ctx, FB_EXIT_USAGE,
              "option --dat: give the sizes in the file or on the command line, not both");
    char err[FB_MSG_LEN], notes[4 * FB_MSG_LEN];
    size_t len = 0;
    char *text =
        fb_read_input(ctx, "option --dat", cfg->dat_path, &len); /* rank 0 reads, all parse */
    int rc = hpl_read_dat(cfg->dat_path, text, len, cfg, err, sizeof err, notes, sizeof notes);
    free(text);
    if (rc) fb_fail(ctx, rc, "%s", err);
    fb_print(ctx, "note: %s\n", notes);
  } else {
    long long p = cfg->p_opt, q = cfg->q_opt;
    if (!p && !q)
      grid_for(ctx->size, &p, &q);
    else if (!p)
      p = ctx->size / q > 0 ? ctx->size / q : 1;
    else if (!q)
      q = ctx->size / p > 0 ? ctx->size / p : 1;
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
    if ((long long)c->p * c->q > ctx->size) /* a smaller grid runs, the other ranks idle */
      fb_fail(ctx, FB_EXIT_USAGE, "P x Q = %d x %d = %lld but the job has %d ranks", c->p, c->q,
              (long long)c->p * c->q, ctx->size);
    long long rows = hpl_numroc(c->n, c->nb, 0, c->p), jb = hpl_panel_width(c); /* the most */
    if (rows * jb + jb * jb + jb > INT_MAX)
      fb_fail(ctx, FB_EXIT_USAGE,
              "N = %lld, NB = %lld, P = %d: a panel of %lld local rows x NB is more than one "
              "MPI message can hold (2^31 doubles); choose a smaller NB or a larger P",
              c->n, c->nb, c->p, rows);
  }
}
