/* factor.c: right-looking LU with partial row pivoting of the distributed
 * [A | b], one step of look-ahead: the process column that owns the next
 * panel updates that panel first, factors it and starts its broadcast, then
 * updates the rest of its columns. A panel is copied out of the row-major
 * matrix into a column-major work buffer and factored there recursively
 * (HPL's R2R4: halves down to leaves of a few columns, nearly all dtrsm and
 * dgemm), on one process or spread over the P processes of a column (each
 * column's pivot search and pivot row, and the blocks of U above the right
 * halves, shared over the process column). Its diagonal block goes back into
 * the matrix (the solve needs U); L goes row-major into the broadcast
 * buffer, so that the update is a plain row-major product (OpenBLAS is 2-5%
 * slower on a transposed panel, measured on the Zen 4 VM). */
#include "hpl.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REQ 64
/* Rows of a block of the trailing product when the grid has more than one
 * process column (see trailing_update). Each block packs U again: against
 * one call, blocks of 1024 rows cost the product 3%, 2048 rows 1.2%, 4096
 * 0.3% (12000 x 6000 x 256, two processes at once, Xeon with AVX-512). Over
 * TCP the tests between blocks move the panels: hpl ran at 167-174 Gflop/s
 * with 1024 rows, 171-173 with 2048 and 159 with 4096 (N=12000 NB=256 1x2,
 * panel wait 0.1-0.3 s against 0.9), and on shared memory at 178, 180 and
 * 181. */
#define PROGRESS_ROWS 2048

/* Columns factored unblocked at the leaves of recursive_lu (HPL's NBMIN):
 * leaves of 2 and 4 columns were the fastest, 8 and 16 2-6% slower (6000 and
 * 12000 x 384 panels, Xeon with AVX-512, the other core busy with the same). */
#define LU_LEAF_COLS 4

/* The same for a panel spread over P > 1 process rows (dist_lu), where each
 * column costs a pivot search over the process column whatever the leaf. */
#define DIST_LEAF_COLS 8

/* Rows of the blocks at the leaves of solve_u, solved by dtrsm: 8, 16 and 32
 * ran alike (54-56 Gflop/s, 256 x 300 to 12000, Xeon with AVX-512), 64 at
 * 46-49. */
#define SOLVE_LEAF_ROWS 16

typedef struct {
  double *buf; /* row-major: L rows (mp x jb) | L11 (jb x jb) | pivots (jb) */
  long long k, jk, mp, lr0;
  long long ldw; /* leading dimension of the panel in the column-major work buffer */
  int jb, count;
  MPI_Request req[MAX_REQ]; /* sends in flight */
  int nreq;
  MPI_Request recv; /* the receive, when posted before the panel is needed */
  int recv_posted;
} Panel;

static double *panel_l11(const Panel *pn) { return pn->buf + pn->mp * pn->jb; }
static double *panel_piv(const Panel *pn) { return panel_l11(pn) + (long long)pn->jb * pn->jb; }

static void panel_describe(const HplMatrix *m, Panel *pn, long long k) {
  const HplCase *c = &m->c;
  hpl_wait_all(pn->req, &pn->nreq); /* the buffer is free again */
  pn->k = k;
  pn->jk = k * c->nb;
  pn->jb = (int)(c->n - pn->jk < c->nb ? c->n - pn->jk : c->nb);
  pn->lr0 = hpl_numroc(pn->jk, c->nb, m->myrow, c->p);
  pn->mp = m->mloc - pn->lr0;
  pn->ldw = hpl_leading_dimension(pn->mp);
  pn->count = (int)(pn->mp * pn->jb + (long long)pn->jb * pn->jb + pn->jb);
}

/* Local entry (li, lj) of the row-major matrix. */
static double *entry(const HplMatrix *m, long long li, long long lj) {
  return m->a + li * m->lda + lj;
}

/* Global row g (one of mine, at or below the panel's first row) in the
 * column-major work buffer the panel is factored in: its jb entries are mp
 * apart. */
static double *panel_row(const HplMatrix *m, const Panel *pn, long long g) {
  return m->work_factor + hpl_local_index(g, m->c.nb, m->c.p) - pn->lr0;
}

/* Column j of the panel in the work buffer (column-major, indexed by local
 * row). */
static double *panel_col(const HplMatrix *m, const Panel *pn, int j) {
  return m->work_factor + j * pn->ldw - pn->lr0;
}

/* Where recursive_lu and dist_lu split n columns: half, rounded down to a
 * multiple of 8 once there are more than 8. */
static int split_cols(int n) { return n / 2 > 8 ? n / 2 / 8 * 8 : n / 2; }

/* Columns [j0, j0 + n) of a panel spread over P process rows, one at a time:
 * the pivot search and the pivot row in one reduction over the process
 * column (hpl_col_pivot_row), the displaced row to the pivot's process, then
 * a rank-1 update of the columns left of j0 + n only (dist_lu updates the
 * rest a block at a time). The reduction replaced three steps in a row (an
 * MPI_MAXLOC, an exchange of the two rows, a broadcast of the pivot row):
 * over TCP the panels took 0.28 s against 0.32-0.34, on shared memory 0.20
 * against 0.21 (2x1, N=8000 NB=256, Xeon). The displaced row stays out of
 * the record: with it a record of 256 columns passed Open MPI's 4 KB
 * shared-memory eager limit and the panels took 0.225 s. */
static int dist_lu_leaf(HplMatrix *m, Panel *pn, int j0, int n) {
  const HplCase *c = &m->c;
  long long ldw = pn->ldw;
  double *record = m->row, *pivot_row = record + HPL_PIVOT_HEAD,
         *displaced = pivot_row + hpl_panel_width(c);
  int singular = 0;
  for (int j = j0; j < j0 + n; j++) {
    long long gj = pn->jk + j;
    double *col = panel_col(m, pn, j);
    long long first = hpl_numroc(gj, c->nb, m->myrow, c->p); /* local rows >= gj */
    long long best = first < m->mloc
                         ? first + (long long)cblas_idamax((int)(m->mloc - first), col + first, 1)
                         : -1;
    record[0] = best < 0 ? -1.0 : fabs(col[best]);
    record[1] = best < 0 ? 0.0 : (double)hpl_global_index(best, c->nb, m->myrow, c->p);
    if (best >= 0) cblas_dcopy(pn->jb, panel_col(m, pn, 0) + best, (int)ldw, pivot_row, 1);
    hpl_col_pivot_row(m, record);
    long long gp = (long long)record[1];
    m->piv[j] = gp;
    int owner = hpl_owner(gj, c->nb, c->p), pivot_owner = hpl_owner(gp, c->nb, c->p);
    if (gp != gj && owner == m->myrow) { /* row gj goes where the pivot row was */
      cblas_dcopy(pn->jb, panel_row(m, pn, gj), (int)ldw, displaced, 1);
      if (pivot_owner == m->myrow)
        cblas_dcopy(pn->jb, displaced, 1, panel_row(m, pn, gp), (int)ldw);
      else
        hpl_col_send(m, displaced, pn->jb, pivot_owner);
      cblas_dcopy(pn->jb, pivot_row, 1, panel_row(m, pn, gj), (int)ldw);
    } else if (gp != gj && pivot_owner == m->myrow) {
      hpl_col_recv(m, displaced, pn->jb, owner);
      cblas_dcopy(pn->jb, displaced, 1, panel_row(m, pn, gp), (int)ldw);
    }
    double pivot = pivot_row[j];
    if (pivot == 0.0) {
      singular = 1;
      continue;
    }
    long long below = hpl_numroc(gj + 1, c->nb, m->myrow, c->p);
    long long rows = m->mloc - below;
    if (rows <= 0) continue;
    cblas_dscal((int)rows, 1.0 / pivot, col + below, 1);
    if (j + 1 < j0 + n)
      cblas_dger(CblasColMajor, (int)rows, j0 + n - j - 1, -1.0, col + below, 1, pivot_row + j + 1,
                 1, col + ldw + below, (int)ldw);
  }
  return singular;
}

/* Columns [j0, j0 + n) of a panel spread over P process rows, recursively as
 * recursive_lu does on one process: the left half, then U12 = L11^-1 A12 on
 * the process row that holds the panel's diagonal block (its rows are that
 * block's), shared over the process column, the right half's update A22 -=
 * L21 U12 on every process's rows below, and the right half. Nearly all of
 * the work is then dgemm, where the column-at-a-time factorisation was all
 * rank-1 updates: on 2x1, N=8000 NB=256, Xeon, the panels took 0.63 s of a
 * 3.1 s loop, 4x the 1x2 grid's recursive ones, and 0.21 s after; at
 * N=12000 1.53-1.60 s against 0.46-0.48, 114-116 against 126-130 Gflop/s. */
static int dist_lu(HplMatrix *m, Panel *pn, int j0, int n) {
  if (n <= DIST_LEAF_COLS) return dist_lu_leaf(m, pn, j0, n);
  const HplCase *c = &m->c;
  int n1 = split_cols(n), n2 = n - n1;
  int singular = dist_lu(m, pn, j0, n1);
  long long g1 = pn->jk + j0; /* U12: global rows [g1, g1 + n1), all on diag_row */
  int diag_row = hpl_owner(pn->jk, c->nb, c->p);
  double *u12 = panel_l11(pn); /* free until the panel is packed: n1 x n2, column-major */
  if (m->myrow == diag_row) {
    double *a11 = panel_row(m, pn, g1) + (long long)j0 * pn->ldw;
    double *a12 = a11 + (long long)n1 * pn->ldw;
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, n1, n2, 1.0, a11,
                (int)pn->ldw, a12, (int)pn->ldw);
    for (int j = 0; j < n2; j++)
      memcpy(u12 + (long long)j * n1, a12 + (long long)j * pn->ldw, (size_t)n1 * sizeof(double));
  }
  hpl_col_bcast(m, u12, n1 * n2, diag_row);
  long long below = hpl_numroc(g1 + n1, c->nb, m->myrow, c->p);
  if (below < m->mloc)
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)(m->mloc - below), n2, n1, -1.0,
                panel_col(m, pn, j0) + below, (int)pn->ldw, u12, n1, 1.0,
                panel_col(m, pn, j0 + n1) + below, (int)pn->ldw);
  return singular | dist_lu(m, pn, j0 + n1, n2);
}

/* Unblocked LU with partial pivoting of the column-major m x n block a (n
 * at most LU_LEAF_COLS): piv[j] is the row, counted from the block's first,
 * swapped with row j. Returns 1 when a pivot was exactly zero (its column is
 * left unscaled and the factorisation goes on, as dgetrf does). */
static int lu_leaf(long long m, int n, double *a, long long lda, long long *piv) {
  int singular = 0;
  for (int j = 0; j < n && j < m; j++) {
    double *col = a + j * lda;
    long long p = j + (long long)cblas_idamax((int)(m - j), col + j, 1);
    piv[j] = p;
    if (p != j) cblas_dswap(n, a + j, (int)lda, a + p, (int)lda);
    if (col[j] == 0.0) {
      singular = 1;
      continue;
    }
    double inv = 1.0 / col[j];
    for (long long i = j + 1; i < m; i++) col[i] *= inv;
    for (int jj = j + 1; jj < n; jj++) {
      double *target = a + jj * lda, f = -target[j];
      for (long long i = j + 1; i < m; i++) target[i] += f * col[i];
    }
  }
  return singular;
}

/* Applies the row swaps piv[k0..k1) to the ncols columns of the
 * column-major a. */
static void apply_swaps(int ncols, double *a, long long lda, int k0, int k1, const long long *piv) {
  for (int j = 0; j < ncols; j++) {
    double *col = a + j * lda;
    for (int k = k0; k < k1; k++) {
      double t = col[k];
      col[k] = col[piv[k]];
      col[piv[k]] = t;
    }
  }
}

/* Recursive LU with partial pivoting of the column-major m x n block a
 * (Toledo's: factor the left half, swap, solve and update the right half,
 * factor it, swap the left half), so that nearly all of the work is dtrsm
 * and dgemm. Pivots and the return value as lu_leaf's. */
static int recursive_lu(long long m, int n, double *a, long long lda, long long *piv) {
  if (n <= LU_LEAF_COLS) return lu_leaf(m, n, a, lda, piv);
  int n1 = split_cols(n), n2 = n - n1;
  double *a12 = a + n1 * lda, *a21 = a + n1, *a22 = a12 + n1;
  int singular = recursive_lu(m, n1, a, lda, piv);
  apply_swaps(n2, a12, lda, 0, n1, piv);
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, n1, n2, 1.0, a,
              (int)lda, a12, (int)lda);
  if (m > n1) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)(m - n1), n2, n1, -1.0, a21,
                (int)lda, a12, (int)lda, 1.0, a22, (int)lda);
    singular |= recursive_lu(m - n1, n2, a22, lda, piv + n1);
  }
  int last = n < m ? n : (int)m;
  for (int k = n1; k < last; k++) piv[k] += n1;
  apply_swaps(n1, a, lda, n1, last, piv);
  return singular;
}

/* The panel's transposes, rows x cols, between a row-major block (row
 * stride ldr) and a column-major one (column stride ldc). Eight rows at a
 * time, so that each cache line on the column-major side is filled while it
 * is in L1; a fixed count of eight lets the compiler unroll (1.5-2x faster
 * than a bounds-checked inner loop, 6000 x 192 on the Zen 4 VM). The strides
 * are odd counts of cache lines (hpl_leading_dimension), so that the lines
 * in flight spread over all of L1's sets. */
static void rows_to_columns(double *restrict col, long long ldc, const double *restrict row,
                            long long ldr, long long rows, int cols) {
  long long i0 = 0;
  for (; i0 + 8 <= rows; i0 += 8)
    for (int j = 0; j < cols; j++)
      for (int k = 0; k < 8; k++) col[i0 + k + j * ldc] = row[(i0 + k) * ldr + j];
  for (long long i = i0; i < rows; i++)
    for (int j = 0; j < cols; j++) col[i + j * ldc] = row[i * ldr + j];
}

static void columns_to_rows(double *restrict row, long long ldr, const double *restrict col,
                            long long ldc, long long rows, int cols) {
  long long i0 = 0;
  for (; i0 + 8 <= rows; i0 += 8)
    for (int k = 0; k < 8; k++)
      for (int j = 0; j < cols; j++) row[(i0 + k) * ldr + j] = col[i0 + k + j * ldc];
  for (long long i = i0; i < rows; i++)
    for (int j = 0; j < cols; j++) row[i * ldr + j] = col[i + j * ldc];
}

/* Factors panel pn on its process column and packs it for the broadcast. */
static int factor_panel(FbContext *ctx, HplMatrix *m, Panel *pn) {
  const HplCase *c = &m->c;
  fb_timer_start(&ctx->timers, PH_PANEL);
  long long lc0 = hpl_numroc(pn->jk, c->nb, m->mycol, c->q);
  double *work = m->work_factor;
  rows_to_columns(work, pn->ldw, entry(m, pn->lr0, lc0), m->lda, pn->mp, pn->jb);
  int singular = 0;
  if (c->p == 1) {
    singular = recursive_lu(pn->mp, pn->jb, work, pn->ldw, m->piv);
    for (int j = 0; j < pn->jb; j++) m->piv[j] += pn->jk;
  } else {
    singular = dist_lu(m, pn, 0, pn->jb);
  }
  columns_to_rows(pn->buf, pn->jb, work, pn->ldw, pn->mp, pn->jb); /* L rows, as sent */
  /* the diagonal block, from the process row that holds block k, back into
   * the matrix (U11 for the solve) and as L11 */
  int diag_row = hpl_owner(pn->jk, c->nb, c->p);
  double *l11 = panel_l11(pn);
  if (m->myrow == diag_row) {
    memcpy(l11, pn->buf, (size_t)pn->jb * pn->jb * sizeof(double));
    for (int i = 0; i < pn->jb; i++)
      memcpy(entry(m, pn->lr0 + i, lc0), pn->buf + (long long)i * pn->jb,
             (size_t)pn->jb * sizeof(double));
  }
  if (c->p > 1) {
    hpl_col_bcast(m, l11, pn->jb * pn->jb, diag_row);
    fb_timers_count(&ctx->timers, PH_PANEL, 3LL * pn->jb, 8LL * pn->jb * (pn->jb + 2));
  }
  for (int j = 0; j < pn->jb; j++) panel_piv(pn)[j] = (double)m->piv[j];
  if (fb_test_hook("hpl_corrupt") && pn->k == 0 && pn->mp > 1)
    pn->buf[(pn->mp - 1) * pn->jb] += 0.25; /* the last row's L */
  fb_timer_stop(&ctx->timers, PH_PANEL);
  return singular;
}

/* The rows a panel's pivots move: source[j] is the original row that ends in
 * row jk + j; moved/moved_from list the rows below the block that receive an
 * original block row. Returns the count of moved rows. */
static int permutation(const Panel *pn, long long *scratch, long long *source, long long *moved,
                       long long *moved_from) {
  long long *rows = scratch, *content = scratch + 2 * pn->jb; /* 2 jb each */
  int n = 0;
  for (int j = 0; j < pn->jb; j++) rows[n] = content[n] = pn->jk + j, n++;
  const double *piv = panel_piv(pn);
  for (int j = 0; j < pn->jb; j++) {
    long long p = (long long)piv[j];
    int ip = -1;
    for (int t = 0; t < n; t++)
      if (rows[t] == p) ip = t;
    if (ip < 0) {
      rows[n] = content[n] = p;
      ip = n++;
    }
    long long tmp = content[j];
    content[j] = content[ip];
    content[ip] = tmp;
  }
  int nm = 0;
  for (int j = 0; j < pn->jb; j++) source[j] = content[j];
  for (int t = pn->jb; t < n; t++)
    if (content[t] != rows[t]) moved[nm] = rows[t], moved_from[nm++] = content[t];
  return nm;
}

/* Row swaps and U for local columns [c0, c1) when P > 1. Every process needs
 * U's rows (the pivot rows, source); a displaced block row (moved_from, all
 * on the diagonal block's process row) is needed only by the process that
 * owns its new place (moved). Each process first copies its own pivot rows
 * into U (a row a displaced row will replace is read before it is written)
 * and puts the displaced rows that stay on it in place; one MPI_Alltoallw
 * then carries, straight from and into their places (a datatype of row
 * addresses, no packing), U's rows to every other process and each
 * displaced row to its new owner. Before (an in-place allgatherv of packed
 * rows, then U put in order and the displaced rows put in place), on 2x1 at
 * N=12000 NB=256 the copies around the gather took about twice the gather
 * itself (0.2 s against 0.09, Xeon); five alternations: the swaps on the
 * less loaded process 0.31-0.34 s against 0.17 now, 164.7-168.0 against
 * 167.2-171.5 Gflop/s, the same residual. U is returned in u (jb x nc,
 * row-major). Sources and displaced rows are distinct original rows. */
static void swap_and_u_distributed(FbContext *ctx, HplMatrix *m, const Panel *pn, long long c0,
                                   int nc, double *u) {
  const HplCase *c = &m->c;
  long long jb = hpl_panel_width(c); /* m->rows: 4 jb for permutation, then these */
  long long *source = m->rows + 4 * jb, *moved = source + jb, *moved_from = moved + jb;
  int nm = permutation(pn, m->rows, source, moved, moved_from);
  int diag_row = hpl_owner(pn->jk, c->nb, c->p), me = m->myrow;
  for (int j = 0; j < pn->jb; j++)
    if (hpl_owner(source[j], c->nb, c->p) == me)
      memcpy(u + (long long)j * nc, entry(m, hpl_local_index(source[j], c->nb, c->p), c0),
             (size_t)nc * sizeof(double));
  for (int t = 0; t < nm && me == diag_row; t++)
    if (hpl_owner(moved[t], c->nb, c->p) == me)
      memcpy(entry(m, hpl_local_index(moved[t], c->nb, c->p), c0),
             entry(m, hpl_local_index(moved_from[t], c->nb, c->p), c0),
             (size_t)nc * sizeof(double));
  double **send = m->row_ptr, **recv = send + (c->p - 1) * jb; /* P jb in all */
  int *nsend = m->counts + 3 * c->p, *nrecv = nsend + c->p;    /* after the exchange's own 3 P */
  int ns = 0, nr = 0;
  for (int pr = 0; pr < c->p; pr++) {
    int s0 = ns, r0 = nr;
    for (int j = 0; j < pn->jb && pr != me; j++) {
      int owner = hpl_owner(source[j], c->nb, c->p);
      if (owner == me) send[ns++] = u + (long long)j * nc;
      if (owner == pr) recv[nr++] = u + (long long)j * nc;
    }
    for (int t = 0; t < nm && pr != me; t++) {
      int owner = hpl_owner(moved[t], c->nb, c->p);
      if (me == diag_row && owner == pr)
        send[ns++] = entry(m, hpl_local_index(moved_from[t], c->nb, c->p), c0);
      if (pr == diag_row && owner == me)
        recv[nr++] = entry(m, hpl_local_index(moved[t], c->nb, c->p), c0);
    }
    nsend[pr] = ns - s0;
    nrecv[pr] = nr - r0;
  }
  hpl_col_rows_exchange(m, nc, send, nsend, recv, nrecv);
  int peers = 0;
  for (int pr = 0; pr < c->p; pr++) peers += nrecv[pr] > 0;
  fb_timers_count(&ctx->timers, PH_SWAP, peers, 8LL * nr * nc);
}

/* A22 -= L21 U over local rows [lr1, mloc) and columns [c0, c0 + nc). On a
 * grid with Q > 1, in row blocks of PROGRESS_ROWS with a test of this rank's
 * panel sends in flight (pn's forward, the next panel in other) before each
 * block. A transport without progress of its own (Open MPI's TCP BTL) moves
 * a large message only inside MPI calls, and a rendezvous starts only when
 * the sender sees the receiver's reply: without the tests the receiver waited
 * for the sender's whole update (the panel wait was 1.7 s of a 2.8 s run over
 * TCP, N=6000 NB=192 1x2, Zen 4 VM; HPL's update probes its broadcast the
 * same way). The test of other's receive, posted early by a process that
 * will need the next panel, lets the receiving side's MPI move it too
 * (N=12000 NB=256 1x2 over TCP, blocks of 1024 rows: panel wait 0.08-0.09 s
 * against 0.41-0.51, 174 against 164-169 Gflop/s). The blocks depend on the
 * grid only, never on the timing: where the product is split changes
 * OpenBLAS's rounding, and a run must give the same bits every time. */
static void trailing_update(FbContext *ctx, HplMatrix *m, Panel *pn, Panel *other, long long lr1,
                            long long c0, int nc, const double *u, long long ldu) {
  long long block = m->c.q > 1 ? PROGRESS_ROWS : m->mloc;
  for (long long row = lr1; row < m->mloc; row += block) {
    hpl_sends_progress(pn->req, &pn->nreq);
    if (other) hpl_sends_progress(other->req, &other->nreq);
    if (other && other->recv_posted == HPL_RECV_POSTED) { /* in yet? then pass it on */
      int before = other->nreq;
      hpl_panel_bcast_progress(m, hpl_owner(other->jk, m->c.nb, m->c.q), other->buf, other->count,
                               other->req, &other->nreq, &other->recv, &other->recv_posted);
      fb_timers_count(&ctx->timers, PH_BCAST, other->nreq - before,
                      8LL * other->count * (other->nreq - before));
      m->forwarded_early += other->nreq > before;
    }
    long long rows = m->mloc - row < block ? m->mloc - row : block;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, nc, pn->jb, -1.0,
                pn->buf + (row - pn->lr0) * pn->jb, pn->jb, u, (int)ldu, 1.0, entry(m, row, c0),
                (int)m->lda);
  }
}

/* U = L^-1 U for the row-major jb x nc block u (L unit lower triangular,
 * row-major, leading dimension ldl), by halves as recursive_lu splits a
 * panel, down to blocks of at most SOLVE_LEAF_ROWS rows: nearly all of the
 * work is then dgemm. OpenBLAS 0.3.21's dtrsm on the whole block runs its
 * triangle in narrow strips: 30 Gflop/s for 256 x 12000, 6000 or 300 where
 * this ran at 54-56 (Xeon with AVX-512, the other core busy with the same);
 * with the Haswell kernels (Zen's) dtrsm ran at 46 and so did this.
 * The sums are grouped otherwise than dtrsm's, so the last bits of U (and of
 * the residual) differ from a dtrsm run; each run gives the same bits. */
static void solve_u(int jb, int nc, const double *l, int ldl, double *u, long long ldu) {
  if (jb <= SOLVE_LEAF_ROWS) {
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, jb, nc, 1.0, l, ldl,
                u, (int)ldu);
    return;
  }
  int j1 = split_cols(jb), j2 = jb - j1;
  double *u2 = u + (long long)j1 * ldu;
  const double *l21 = l + (long long)j1 * ldl;
  solve_u(j1, nc, l, ldl, u, ldu);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, j2, nc, j1, -1.0, l21, ldl, u, (int)ldu,
              1.0, u2, (int)ldu);
  solve_u(j2, nc, l21 + j1, ldl, u2, ldu);
}

/* Applies panel pn to local columns [c0, c1): swaps, U = L11^-1 U, and the
 * trailing update A22 -= L21 U (other: the other panel, whose sends may be in
 * flight too). */
static void update(FbContext *ctx, HplMatrix *m, Panel *pn, Panel *other, long long c0,
                   long long c1) {
  const HplCase *c = &m->c;
  int nc = (int)(c1 - c0);
  if (nc <= 0) return;
  int diag_row = hpl_owner(pn->jk, c->nb, c->p);
  double *u;
  long long ldu;
  fb_timer_start(&ctx->timers, PH_SWAP);
  if (c->p == 1) { /* local rows are global rows: swap them in place, in order */
    for (int j = 0; j < pn->jb; j++) {
      long long p = (long long)panel_piv(pn)[j];
      if (p != pn->jk + j) cblas_dswap(nc, entry(m, pn->jk + j, c0), 1, entry(m, p, c0), 1);
    }
    u = entry(m, pn->jk, c0);
    ldu = m->lda;
  } else {
    u = m->work_u;
    ldu = nc;
    swap_and_u_distributed(ctx, m, pn, c0, nc, u);
  }
  fb_timer_stop(&ctx->timers, PH_SWAP);
  fb_timer_start(&ctx->timers, PH_UPDATE);
  solve_u(pn->jb, nc, panel_l11(pn), pn->jb, u, ldu);
  if (c->p > 1 && m->myrow == diag_row)
    for (int j = 0; j < pn->jb; j++)
      memcpy(entry(m, pn->lr0 + j, c0), u + j * ldu, (size_t)nc * sizeof(double));
  trailing_update(ctx, m, pn, other, hpl_numroc(pn->jk + pn->jb, c->nb, m->myrow, c->p), c0, nc, u,
                  ldu);
  fb_timer_stop(&ctx->timers, PH_UPDATE);
}

enum { BCAST_START, BCAST_FINISH };

/* Runs one side of the panel broadcast, timed and counted. */
static void bcast_step(FbContext *ctx, HplMatrix *m, Panel *pn, int side) {
  int root = hpl_owner(pn->jk, m->c.nb, m->c.q);
  fb_timer_start(&ctx->timers, PH_BCAST);
  int before = pn->nreq;
  if (side == BCAST_START)
    hpl_panel_bcast_start(m, root, pn->buf, pn->count, pn->req, &pn->nreq);
  else
    hpl_panel_bcast_finish(m, root, pn->buf, pn->count, pn->req, &pn->nreq, &pn->recv,
                           &pn->recv_posted);
  fb_timers_count(&ctx->timers, PH_BCAST, pn->nreq - before, 8LL * pn->count * (pn->nreq - before));
  fb_timer_stop(&ctx->timers, PH_BCAST);
  if (side == BCAST_FINISH) m->forwarded_late += pn->nreq > before;
}

int hpl_factor(FbContext *ctx, HplMatrix *m) {
  const HplCase *c = &m->c;
  long long nblk = (c->n + c->nb - 1) / c->nb;
  long long jb = hpl_panel_width(c);
  long long panel_doubles = m->mloc * jb + jb * jb + jb;
  Panel panels[2];
  memset(panels, 0, sizeof panels);
  panels[0].buf = m->work_panel;
  panels[1].buf = m->work_panel + panel_doubles;
  int singular = 0;
  Panel *cur = &panels[0], *next = &panels[1];
  panel_describe(m, cur, 0);
  if (m->mycol == hpl_owner(0, c->nb, c->q)) {
    singular |= factor_panel(ctx, m, cur);
    bcast_step(ctx, m, cur, BCAST_START);
  }
  for (long long k = 0; k < nblk; k++) {
    bcast_step(ctx, m, cur, BCAST_FINISH);
    long long first = hpl_numroc(cur->jk + cur->jb, c->nb, m->mycol, c->q);
    int next_owner = k + 1 < nblk ? hpl_owner((k + 1) * c->nb, c->nb, c->q) : -1;
    if (m->mycol == next_owner) {
      /* look-ahead: the next panel's columns first, then factor and send it */
      long long jb_next = c->n - (k + 1) * c->nb < c->nb ? c->n - (k + 1) * c->nb : c->nb;
      update(ctx, m, cur, next, first, first + jb_next);
      panel_describe(m, next, k + 1);
      singular |= factor_panel(ctx, m, next);
      bcast_step(ctx, m, next, BCAST_START);
      update(ctx, m, cur, next, first + jb_next, m->nloc);
    } else {
      /* the next panel's receive, posted now when its buffer is free, moves
       * in the tests between the update's blocks */
      int early = k + 1 < nblk && hpl_sends_progress(next->req, &next->nreq);
      if (early) {
        panel_describe(m, next, k + 1);
        hpl_panel_bcast_post(m, next_owner, next->buf, next->count, &next->recv,
                             &next->recv_posted);
      }
      update(ctx, m, cur, next, first, m->nloc);
      if (k + 1 < nblk && !early) panel_describe(m, next, k + 1);
    }
    Panel *t = cur;
    cur = next;
    next = t;
  }
  hpl_wait_all(cur->req, &cur->nreq);
  hpl_wait_all(next->req, &next->nreq);
  return hpl_grid_any(m, singular);
}
