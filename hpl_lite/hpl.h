/* hpl.h: hpl_lite's problem, process grid, distributed matrix and phases. */
#ifndef HPL_H
#define HPL_H

#include "fabricbench.h"

enum { PH_PANEL, PH_BCAST, PH_SWAP, PH_UPDATE, PH_SOLVE, PH_CHECK, PH_COUNT };
/* Panel broadcasts along a process row: HPL's increasing ring (1rg), its
 * modified increasing ring (1rM: the root sends to the next process, which
 * owns the next panel and forwards nothing, and to the one after it, which
 * starts the ring over the rest), and a binomial tree (not an HPL code). */
enum { BCAST_RING, BCAST_BINOMIAL, BCAST_RING_MODIFIED };

#define HPL_MAX_LIST 20
/* Largest N and grid side accepted (command line and HPL.dat alike): N so that
 * global indices and N*N stay far inside 64 bits, P and Q so that they fit an
 * int with room for P*Q. */
#define HPL_MAX_N    10000000LL
#define HPL_MAX_GRID (1LL << 20)
/* NB: any size HPL takes, up to where a panel (local rows x NB) still fits
 * one MPI message's int count on the grids memory allows (hpl_parse checks
 * the count itself). */
#define HPL_MAX_NB 8192
/* HPL.dat's BCAST values map to these many variants (the enum above). */
#define HPL_BCAST_VARIANTS 3
/* HPL's acceptance threshold for the scaled residual. */
#define HPL_THRESHOLD 16.0

typedef struct {
  long long n, nb;
  int p, q;
  int bcast; /* BCAST_RING, BCAST_BINOMIAL or BCAST_RING_MODIFIED */
} HplCase;

typedef struct {
  /* options */
  long long n_opt, nb_opt, p_opt, q_opt, seed;
  const char *dat_path, *bcast_name;
  double mem_fraction, threshold;
  /* the cases to run: every combination, as HPL does */
  HplCase cases[HPL_MAX_LIST * HPL_MAX_LIST * HPL_MAX_LIST * HPL_BCAST_VARIANTS];
  int n_cases;
} HplConfig;

/* One distributed system [A | b] of N rows and N+1 columns, 2-D block-cyclic
 * over a P x Q grid (rank = row * Q + column). Local storage is row-major
 * (local entry (li, lj) at a[li * lda + lj]): a pivot's row swap is then a
 * contiguous copy, where column-major storage touches a cache line (and on a
 * 256 MB matrix often a page) per element. */
typedef struct {
  HplCase c;
  MPI_Comm grid, row_comm, col_comm; /* row_comm: my process row (size Q) */
  MPI_Datatype pivot_type;           /* one pivot record (hpl_col_pivot_row) */
  MPI_Op pivot_op;
  int myrow, mycol;
  int idle; /* a rank past P x Q: outside the grid, it waits the case out (as in HPL) */
  long long mloc, nloc, lda; /* local rows, local columns (b included), row stride */
  double *a;
  double *x;                   /* the solution, replicated (N) */
  double *work_panel, *work_u; /* the two panels' broadcast buffers, U (row-major) */
  double *work_factor;         /* a panel being factored (column-major) */
  long long *piv;              /* global pivot rows of a panel */
  long long *rows;             /* a panel's row bookkeeping: 7 x hpl_panel_width */
  double *row;                 /* a pivot record, then a row (hpl_col_pivot_row) */
  double **row_ptr;            /* P x hpl_panel_width: the rows a swap sends and receives */
  int *counts;                 /* 5 x P: an exchange's counts (3 P), a swap's rows a peer (2 P) */
  MPI_Datatype *row_types;     /* 2 x P: its datatypes */
  MPI_Aint *row_at;            /* hpl_panel_width: the addresses in one of them */
  /* panels this process passed on along its row: while it updated (the
   * panel came during the update) and when it needed the panel itself */
  long long forwarded_early, forwarded_late;
} HplMatrix;

typedef struct {
  double time_s, gflops, resid, norm_a, norm_x, norm_b, x_sum;
  int singular, passed;
} HplOutcome;

/* setup.c */
void hpl_parse(FbContext *ctx, HplConfig *cfg, int argc, char **argv);
/* The HPL.dat's text (path names it in messages); 0, or 2 with err naming the line. */
int hpl_read_dat(const char *path, const char *text, size_t len, HplConfig *cfg, char *err,
                 size_t err_len, char *notes, size_t notes_len);
/* before MPI_Init: re-executes hpl on the best OpenBLAS kernel the CPU supports
 * when OpenBLAS chose a generic one and the user did not set OPENBLAS_CORETYPE */
void hpl_blas_select(char **argv);
/* OpenBLAS's threads: the rank's (ctx->threads) unless OPENBLAS_NUM_THREADS
 * or GOTO_NUM_THREADS is set. */
void hpl_blas_threads(const FbContext *ctx);
/* the BLAS in the case's record; warns (rank 0) when warn is set: the
 * first case of a run, so an HPL.dat of many cases warns once */
void hpl_blas_check(FbContext *ctx, FbResult *r, int warn);
/* matrix.c */
long long hpl_numroc(long long n, long long nb, int iproc, int nprocs);
long long hpl_local_index(long long g, long long nb, int nprocs);
int hpl_owner(long long g, long long nb, int nprocs);
long long hpl_global_index(long long l, long long nb, int iproc, int nprocs);
double hpl_entry(unsigned long long seed, long long i, long long j);
/* The widest panel: NB, or N when NB is larger (one block holds it all). */
long long hpl_panel_width(const HplCase *c);
size_t hpl_memory_need(const HplCase *c, int myrow, int mycol);
/* a stride for n doubles: whole cache lines, an odd count of them */
long long hpl_leading_dimension(long long n);
int hpl_matrix_init(FbContext *ctx, HplMatrix *m, const HplCase *c, unsigned long long seed);
void hpl_matrix_free(HplMatrix *m);
/* factor.c: LU with partial pivoting of [A | b], look-ahead depth 1 */
int hpl_factor(FbContext *ctx, HplMatrix *m);
/* hpl_comm.c: point-to-point and collectives specific to the algorithm */
void hpl_grid_comms(FbContext *ctx, HplMatrix *m);
void hpl_grid_comms_free(HplMatrix *m);
void hpl_sit_out(FbContext *ctx, const HplMatrix *m);
void hpl_panel_bcast_start(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                           int *nreq);
/* A receiver may post its receive early (hpl_panel_bcast_post) and test it
 * while it computes (hpl_panel_bcast_progress), so that a transport without
 * progress of its own moves the panel meanwhile, and pass the panel on as
 * soon as it is in; finish then waits for it (and forwards it) if it has
 * not come yet. *posted: one of these. */
enum { HPL_RECV_NONE, HPL_RECV_POSTED, HPL_RECV_FORWARDED };
void hpl_panel_bcast_post(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *recv,
                          int *posted);
void hpl_panel_bcast_progress(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                              int *nreq, MPI_Request *recv, int *posted);
void hpl_panel_bcast_finish(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                            int *nreq, MPI_Request *recv, int *posted);
void hpl_wait_all(MPI_Request *req, int *nreq);
int hpl_sends_progress(MPI_Request *req, int *nreq);
/* A column's pivot search over the process column, and the pivot row with
 * it, in one reduction (HPL's pdmxswp does the same): each process offers a
 * record {|value|, global row, that row (HPL_PIVOT_HEAD + k, k < the panel's
 * width)} and every process gets the winner's (ties: the lower row, as
 * MPI_MAXLOC). The row it displaces goes to the winner's process alone
 * (hpl_col_send and hpl_col_recv). */
#define HPL_PIVOT_HEAD 2
void hpl_col_pivot_row(HplMatrix *m, double *record);
void hpl_col_send(HplMatrix *m, const double *buf, int n, int row);
void hpl_col_recv(HplMatrix *m, double *buf, int n, int row);
void hpl_col_bcast(HplMatrix *m, double *buf, int n, int root_row);
/* Rows of len doubles, anywhere in memory, to and from the other processes
 * of the column in one MPI_Alltoallw (a datatype of the rows' addresses for
 * each peer: no packing). send holds the rows for each process in
 * process-row order, nsend[pr] of them; recv where the rows from each go,
 * nrecv[pr] of them (0 for this process itself). */
void hpl_col_rows_exchange(HplMatrix *m, int len, double *const *send, const int *nsend,
                           double *const *recv, const int *nrecv);
void hpl_row_send(HplMatrix *m, const double *buf, int n, int col, int tag);
void hpl_row_recv(HplMatrix *m, double *buf, int n, int col, int tag);
void hpl_row_sum(HplMatrix *m, double *buf, int n);
void hpl_grid_bcast(HplMatrix *m, double *buf, int n, int root_rank);
void hpl_grid_max(HplMatrix *m, double *buf, int n);
int hpl_grid_any(HplMatrix *m, int flag); /* 1 if flag is set on any rank */
/* solve.c */
void hpl_solve(FbContext *ctx, HplMatrix *m);
/* validate.c */
void hpl_check(FbContext *ctx, HplMatrix *m, unsigned long long seed, HplOutcome *out);

#endif
