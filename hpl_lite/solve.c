/* solve.c: back substitution U x = y on the block-cyclic U, y being the b
 * column after the factorisation. Block by block from the last: the owner of
 * the diagonal block solves it, x_k goes to every process, and the process
 * column of block k sends its contribution to the rows above to the process
 * column that holds y (copied out of the row-major matrix first). */
#include "hpl.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

void hpl_solve(FbContext *ctx, HplMatrix *m) {
  const HplCase *c = &m->c;
  fb_timer_start(&ctx->timers, PH_SOLVE);
  long long nblk = (c->n + c->nb - 1) / c->nb;
  int ycol = hpl_owner(c->n, c->nb, c->q); /* the process column holding b */
  double *xk = malloc((size_t)(c->nb + 2 * m->mloc + 1) * sizeof(double));
  if (hpl_grid_any(m, xk == NULL)) fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory for the solve");
  double *t = xk + c->nb, *y = NULL;
  if (m->mycol == ycol) {
    y = t + m->mloc;
    long long lcb = hpl_numroc(c->n, c->nb, m->mycol, c->q);
    for (long long i = 0; i < m->mloc; i++) y[i] = m->a[i * m->lda + lcb];
  }
  long long messages = 0, bytes = 0;
  memset(m->x, 0, (size_t)c->n * sizeof(double));
  for (long long k = nblk - 1; k >= 0; k--) {
    long long jk = k * c->nb;
    int jb = (int)(c->n - jk < c->nb ? c->n - jk : c->nb);
    int prow = hpl_owner(jk, c->nb, c->p), pcol = hpl_owner(jk, c->nb, c->q);
    long long lr0 = hpl_numroc(jk, c->nb, m->myrow, c->p);
    if (m->myrow == prow) {
      if (m->mycol == ycol) memcpy(xk, y + lr0, (size_t)jb * sizeof(double));
      if (ycol != pcol) {
        if (m->mycol == ycol) hpl_row_send(m, xk, jb, pcol, 11), messages++, bytes += 8LL * jb;
        if (m->mycol == pcol) hpl_row_recv(m, xk, jb, ycol, 11);
      }
      if (m->mycol == pcol) {
        long long lc0 = hpl_numroc(jk, c->nb, m->mycol, c->q);
        cblas_dtrsv(CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, jb,
                    m->a + lr0 * m->lda + lc0, (int)m->lda, xk, 1);
      }
    }
    hpl_grid_bcast(m, xk, jb, prow * c->q + pcol);
    messages++, bytes += 8LL * jb;
    memcpy(m->x + jk, xk, (size_t)jb * sizeof(double));
    /* y(rows above block k) -= U(rows above, block k) x_k */
    long long above = hpl_numroc(jk, c->nb, m->myrow, c->p);
    if (above == 0 || (m->mycol != pcol && m->mycol != ycol)) continue;
    if (m->mycol == pcol) {
      long long lc0 = hpl_numroc(jk, c->nb, m->mycol, c->q);
      cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)above, jb, 1.0, m->a + lc0, (int)m->lda, xk, 1,
                  0.0, t, 1);
      if (pcol != ycol) hpl_row_send(m, t, (int)above, ycol, 12), messages++, bytes += 8 * above;
    }
    if (m->mycol == ycol) {
      if (pcol != ycol) hpl_row_recv(m, t, (int)above, pcol, 12);
      for (long long i = 0; i < above; i++) y[i] -= t[i];
    }
  }
  free(xk);
  fb_timers_count(&ctx->timers, PH_SOLVE, messages, bytes);
  fb_timer_stop(&ctx->timers, PH_SOLVE);
}
