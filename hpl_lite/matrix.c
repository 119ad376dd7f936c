/* matrix.c: the 2-D block-cyclic layout and the seeded matrix generator,
 * indexed by global position so that [A | b] is the same system for every
 * process grid and block size. */
#include "hpl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Global indices among the first n that process iproc of nprocs owns. */
long long hpl_numroc(long long n, long long nb, int iproc, int nprocs) {
  long long blocks = n / nb, extra = n % nb;
  long long count = (blocks / nprocs) * nb;
  long long rest = blocks % nprocs;
  if (iproc < rest)
    count += nb;
  else if (iproc == rest)
    count += extra;
  return count;
}

long long hpl_local_index(long long g, long long nb, int nprocs) {
  return (g / (nb * nprocs)) * nb + g % nb;
}

int hpl_owner(long long g, long long nb, int nprocs) { return (int)((g / nb) % nprocs); }

long long hpl_global_index(long long l, long long nb, int iproc, int nprocs) {
  return ((l / nb) * nprocs + iproc) * nb + l % nb;
}

static inline uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Uniform in [-0.5, 0.5), from the seed and the position alone. */
double hpl_entry(unsigned long long seed, long long i, long long j) {
  uint64_t h = splitmix64(seed ^ splitmix64(((uint64_t)i << 32) ^ (uint64_t)j));
  return (double)(h >> 11) * 0x1p-53 - 0.5;
}

/* A stride for n doubles: whole cache lines, an odd count of them, so that
 * lines a stride apart spread over all of L1's sets (an odd count is never a
 * whole page either). Used for the matrix's rows and the panel buffer's
 * columns. */
long long hpl_leading_dimension(long long n) {
  long long ld = n < 1 ? 1 : (n + 7) / 8 * 8;
  if (ld / 8 % 2 == 0) ld += 8; /* an odd count of cache lines */
  return ld;
}

long long hpl_panel_width(const HplCase *c) { return c->nb < c->n ? c->nb : c->n; }

size_t hpl_memory_need(const HplCase *c, int myrow, int mycol) {
  long long mloc = hpl_numroc(c->n, c->nb, myrow, c->p);
  long long nloc = hpl_numroc(c->n + 1, c->nb, mycol, c->q);
  size_t jb = (size_t)hpl_panel_width(c);
  size_t matrix = (size_t)hpl_leading_dimension(nloc) * (size_t)(mloc > 0 ? mloc : 1);
  size_t panels = 2 * ((size_t)mloc * jb + jb * jb + jb) + (size_t)hpl_leading_dimension(mloc) * jb;
  size_t u = jb * (size_t)(nloc > 0 ? nloc : 1);
  return (matrix + panels + u + 2 * (size_t)c->n + 7 * jb) * sizeof(double) +
         (size_t)c->p * jb * sizeof(double *) + jb * sizeof(MPI_Aint) +
         5 * (size_t)c->p * sizeof(int) + 2 * (size_t)c->p * sizeof(MPI_Datatype);
}

int hpl_matrix_init(FbContext *ctx, HplMatrix *m, const HplCase *c, unsigned long long seed) {
  memset(m, 0, sizeof *m);
  m->c = *c;
  m->myrow = ctx->rank / c->q;
  m->mycol = ctx->rank % c->q;
  m->idle = ctx->rank >= c->p * c->q;
  hpl_grid_comms(ctx, m);
  if (m->idle) return 0;
  m->mloc = hpl_numroc(c->n, c->nb, m->myrow, c->p);
  m->nloc = hpl_numroc(c->n + 1, c->nb, m->mycol, c->q);
  m->lda = hpl_leading_dimension(m->nloc);
  size_t jb = (size_t)hpl_panel_width(c);
  size_t panel = (size_t)m->mloc * jb + jb * jb + jb;
  size_t panel_bytes = 2 * panel * sizeof(double),
         factor_bytes = (size_t)hpl_leading_dimension(m->mloc) * jb * sizeof(double),
         u_bytes = jb * (size_t)(m->nloc > 0 ? m->nloc : 1) * sizeof(double);
  m->a = fb_alloc((size_t)m->lda * (size_t)(m->mloc > 0 ? m->mloc : 1) * sizeof(double));
  m->work_panel = fb_alloc(panel_bytes);
  m->work_factor = fb_alloc(factor_bytes);
  m->work_u = fb_alloc(u_bytes);
  m->x = fb_alloc((size_t)c->n * sizeof(double));
  m->piv = malloc(jb * sizeof(long long));
  m->rows = malloc(7 * jb * sizeof(long long));
  m->row_ptr = malloc((size_t)c->p * jb * sizeof(double *));
  m->row_at = malloc(jb * sizeof(MPI_Aint));
  m->row_types = malloc(2 * (size_t)c->p * sizeof(MPI_Datatype));
  m->row = malloc((HPL_PIVOT_HEAD + 2 * jb) * sizeof(double)); /* a record, a row */
  m->counts = malloc(5 * (size_t)c->p * sizeof(int));
  if (!m->a || !m->work_panel || !m->work_factor || !m->work_u || !m->x || !m->piv || !m->rows ||
      !m->row_ptr || !m->row_at || !m->row_types || !m->row || !m->counts)
    return FB_EXIT_RUNTIME;
  /* The work buffers' pages are mapped here, not in the timed loop. There
   * the first panel took 0.19 s instead of 0.05 and the first receive 80 ms,
   * while the other process waited (N=16000 NB=256 1x2, Xeon with AVX-512):
   * the loop went from 15.3 to 14.5 s, 179-183 to 188 Gflop/s. */
  memset(m->work_panel, 0, panel_bytes);
  memset(m->work_factor, 0, factor_bytes);
  memset(m->work_u, 0, u_bytes);
#pragma omp parallel for schedule(static)
  for (long long li = 0; li < m->mloc; li++) {
    long long gi = hpl_global_index(li, c->nb, m->myrow, c->p);
    double *row = m->a + li * m->lda;
    for (long long lj = 0; lj < m->nloc; lj++)
      row[lj] = hpl_entry(seed, gi, hpl_global_index(lj, c->nb, m->mycol, c->q));
  }
  if (fb_test_hook("hpl_singular")) /* tests: column N/2 zero, an exactly zero pivot */
    for (long long lj = 0; lj < m->nloc; lj++)
      if (hpl_global_index(lj, c->nb, m->mycol, c->q) == c->n / 2)
        for (long long li = 0; li < m->mloc; li++) m->a[li * m->lda + lj] = 0.0;
  return 0;
}

void hpl_matrix_free(HplMatrix *m) {
  free(m->a);
  free(m->work_panel);
  free(m->work_u);
  free(m->work_factor);
  free(m->x);
  free(m->piv);
  free(m->rows);
  free(m->row_ptr);
  free(m->row_at);
  free(m->row_types);
  free(m->row);
  free(m->counts);
  hpl_grid_comms_free(m);
  memset(m, 0, sizeof *m);
}
