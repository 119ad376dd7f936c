/* hpl_comm.c: all of hpl_lite's communication. The panel broadcast along a
 * process row, as an increasing ring (each process forwards to the next),
 * HPL's modified ring or a binomial tree, with non-blocking sends so the
 * sender goes on computing (the look-ahead needs that); then the pivot search, row exchanges, U
 * gather and back-solve messages, wrapped so that every MPI call site of the
 * app is in this file. */
#include "hpl.h"

#include <string.h>
#include <time.h>

static int panel_tag(void) { return 4242; }

/* Relative position in the row's broadcast order, the root first. */
static int relative(const HplMatrix *m, int root_col) {
  return (m->mycol - root_col + m->c.q) % m->c.q;
}

static int absolute(const HplMatrix *m, int root_col, int rel) { return (rel + root_col) % m->c.q; }

static void send_to(HplMatrix *m, int root_col, int rel, double *buf, int count, MPI_Request *req,
                    int *nreq) {
  MPI_Isend(buf, count, MPI_DOUBLE, absolute(m, root_col, rel), panel_tag(), m->row_comm,
            &req[(*nreq)++]);
}

static void send_children(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                          int *nreq, int start_mask) {
  const int r = relative(m, root_col), q = m->c.q;
  if (m->c.bcast != BCAST_BINOMIAL) {
    /* the modified ring: the root serves the next panel's owner (1) first,
     * then 2, which starts the ring over the rest; 1 forwards nothing */
    const int modified = m->c.bcast == BCAST_RING_MODIFIED;
    if (modified && r == 1) return;
    int next = r + 1;
    if (modified && r == 0 && q > 2) {
      send_to(m, root_col, 1, buf, count, req, nreq);
      next = 2;
    }
    if (next < q) send_to(m, root_col, next, buf, count, req, nreq);
    return;
  }
  for (int mask = start_mask; mask > 0; mask >>= 1)
    if (r + mask < q) send_to(m, root_col, r + mask, buf, count, req, nreq);
}

static int top_mask(int q) {
  int mask = 1;
  while (mask < q) mask <<= 1;
  return mask >> 1;
}

void hpl_panel_bcast_start(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                           int *nreq) {
  if (m->mycol != root_col || m->c.q == 1) return;
  send_children(m, root_col, buf, count, req, nreq, top_mask(m->c.q));
}

/* This process's parent in the row's broadcast tree rooted at root_col
 * (ring: the previous process; the modified ring: the root for 1 and 2), and
 * in *mask the tree level it receives at (its children are then at the
 * levels below). */
static int parent(const HplMatrix *m, int root_col, int *mask) {
  int r = relative(m, root_col);
  if (m->c.bcast != BCAST_BINOMIAL) {
    *mask = 0;
    return absolute(m, root_col, m->c.bcast == BCAST_RING_MODIFIED && r <= 2 ? 0 : r - 1);
  }
  *mask = 1;
  while (*mask < m->c.q && !(r & *mask)) *mask <<= 1;
  return absolute(m, root_col, r - *mask);
}

void hpl_panel_bcast_post(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *recv,
                          int *posted) {
  *posted = HPL_RECV_NONE;
  if (m->mycol == root_col || m->c.q == 1) return;
  int mask;
  MPI_Irecv(buf, count, MPI_DOUBLE, parent(m, root_col, &mask), panel_tag(), m->row_comm, recv);
  *posted = HPL_RECV_POSTED;
}

/* Passes the panel on the moment it is in, during this process's update,
 * as HPL's broadcasts do (they probe between update chunks), rather than
 * when this process has finished its update and needs the panel: a ring's
 * middle processes then no longer hold it back for a whole update each. It
 * moved no number measured yet: on 16 ranks of one node (N=24000 NB=256) the
 * panel wait stayed 13-24 s of a 35-40 s run on a 2 x 8 grid, where hpcc's
 * HPL took 19 s in all, and on 4 x 4 no panel came during an update: the
 * tests come between blocks of PROGRESS_ROWS local rows (factor.c), and with
 * 6000 local rows and fewer an update has few blocks, one (a test at its
 * start only) once fewer than 2048 rows are left (docs/performance.md). The
 * record counts both kinds of forward. */
void hpl_panel_bcast_progress(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                              int *nreq, MPI_Request *recv, int *posted) {
  if (*posted != HPL_RECV_POSTED) return;
  int done = 0;
  MPI_Test(recv, &done, MPI_STATUS_IGNORE);
  if (!done) return;
  int mask;
  parent(m, root_col, &mask);
  send_children(m, root_col, buf, count, req, nreq, mask >> 1);
  *posted = HPL_RECV_FORWARDED;
}

void hpl_panel_bcast_finish(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                            int *nreq, MPI_Request *recv, int *posted) {
  if (m->mycol == root_col || m->c.q == 1) return;
  int was = *posted;
  *posted = HPL_RECV_NONE;
  if (was == HPL_RECV_FORWARDED) return; /* in, and passed on, during the update */
  int mask, from = parent(m, root_col, &mask);
  if (was == HPL_RECV_POSTED)
    MPI_Wait(recv, MPI_STATUS_IGNORE);
  else
    MPI_Recv(buf, count, MPI_DOUBLE, from, panel_tag(), m->row_comm, MPI_STATUS_IGNORE);
  send_children(m, root_col, buf, count, req, nreq, mask >> 1);
}

/* ---- the rest of hpl_lite's MPI traffic, so every call site is here ---- */

void hpl_wait_all(MPI_Request *req, int *nreq) {
  MPI_Waitall(*nreq, req, MPI_STATUSES_IGNORE);
  *nreq = 0;
}

/* Lets sends in flight move on without waiting for them: a transport
 * without progress of its own (Open MPI's TCP BTL) moves a large message
 * only inside MPI calls. Returns 1 when none is left. */
int hpl_sends_progress(MPI_Request *req, int *nreq) {
  if (*nreq == 0) return 1;
  int done = 0;
  MPI_Testall(*nreq, req, &done, MPI_STATUSES_IGNORE);
  if (done) *nreq = 0;
  return done;
}

/* The pivot record's reduction (see hpl.h): the candidate with the larger
 * |value| wins, the lower global row on a tie (MPI_MAXLOC's rule). The record
 * is one element of a contiguous type, so MPI never splits it between calls. */
static void pivot_max(void *in_v, void *inout_v, int *len, MPI_Datatype *type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  long long size = bytes / (long long)sizeof(double);
  for (int e = 0; e < *len; e++) {
    const double *in = (const double *)in_v + e * size;
    double *io = (double *)inout_v + e * size;
    if (in[0] > io[0] || (in[0] == io[0] && in[1] < io[1])) memcpy(io, in, (size_t)bytes);
  }
}

void hpl_col_pivot_row(HplMatrix *m, double *record) {
  MPI_Allreduce(MPI_IN_PLACE, record, 1, m->pivot_type, m->pivot_op, m->col_comm);
}

void hpl_col_send(HplMatrix *m, const double *buf, int n, int row) {
  MPI_Send(buf, n, MPI_DOUBLE, row, 7, m->col_comm);
}

void hpl_col_recv(HplMatrix *m, double *buf, int n, int row) {
  MPI_Recv(buf, n, MPI_DOUBLE, row, 7, m->col_comm, MPI_STATUS_IGNORE);
}

void hpl_col_bcast(HplMatrix *m, double *buf, int n, int root_row) {
  MPI_Bcast(buf, n, MPI_DOUBLE, root_row, m->col_comm);
}

/* The rows for one peer as one datatype of their addresses (MPI_BOTTOM
 * relative), so MPI reads and writes them where they are. */
static MPI_Datatype rows_type(MPI_Aint *at, double *const *rows, int n, int len) {
  MPI_Datatype t;
  for (int s = 0; s < n; s++) MPI_Get_address(rows[s], &at[s]);
  MPI_Type_create_hindexed_block(n, len, at, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

void hpl_col_rows_exchange(HplMatrix *m, int len, double *const *send, const int *nsend,
                           double *const *recv, const int *nrecv) {
  int p = m->c.p;
  int *scount = m->counts, *rcount = scount + p, *zero = rcount + p;
  MPI_Datatype *stype = m->row_types, *rtype = stype + p;
  for (int pr = 0, s = 0, r = 0; pr < p; s += nsend[pr], r += nrecv[pr], pr++) {
    scount[pr] = nsend[pr] > 0;
    rcount[pr] = nrecv[pr] > 0;
    zero[pr] = 0;
    stype[pr] = scount[pr] ? rows_type(m->row_at, send + s, nsend[pr], len) : MPI_DOUBLE;
    rtype[pr] = rcount[pr] ? rows_type(m->row_at, recv + r, nrecv[pr], len) : MPI_DOUBLE;
  }
  MPI_Alltoallw(MPI_BOTTOM, scount, zero, stype, MPI_BOTTOM, rcount, zero, rtype, m->col_comm);
  for (int pr = 0; pr < 2 * p; pr++)
    if (stype[pr] != MPI_DOUBLE) MPI_Type_free(&stype[pr]);
}

void hpl_row_send(HplMatrix *m, const double *buf, int n, int col, int tag) {
  MPI_Send(buf, n, MPI_DOUBLE, col, tag, m->row_comm);
}

void hpl_row_recv(HplMatrix *m, double *buf, int n, int col, int tag) {
  MPI_Recv(buf, n, MPI_DOUBLE, col, tag, m->row_comm, MPI_STATUS_IGNORE);
}

void hpl_row_sum(HplMatrix *m, double *buf, int n) {
  MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, m->row_comm);
}

void hpl_grid_bcast(HplMatrix *m, double *buf, int n, int root_rank) {
  MPI_Bcast(buf, n, MPI_DOUBLE, root_rank, m->grid);
}

void hpl_grid_max(HplMatrix *m, double *buf, int n) {
  MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_MAX, m->grid);
}

int hpl_grid_any(HplMatrix *m, int flag) {
  int any = 0;
  MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, m->grid);
  return any;
}

/* The grid's communicators: the whole grid, this rank's process row and
 * its process column (HPL's row-major mapping: rank = row x Q + column). */
void hpl_grid_comms(FbContext *ctx, HplMatrix *m) {
  m->row_comm = m->col_comm = MPI_COMM_NULL;
  MPI_Comm_split(ctx->comm, m->idle ? MPI_UNDEFINED : 0, ctx->rank, &m->grid);
  if (m->idle) return;
  MPI_Comm_split(m->grid, m->myrow, m->mycol, &m->row_comm);
  MPI_Comm_split(m->grid, m->mycol, m->myrow, &m->col_comm);
  MPI_Type_contiguous((int)(HPL_PIVOT_HEAD + hpl_panel_width(&m->c)), MPI_DOUBLE, &m->pivot_type);
  MPI_Type_commit(&m->pivot_type);
  MPI_Op_create(pivot_max, 1, &m->pivot_op);
}

/* With P x Q under the job's ranks, every rank meets here: the ranks outside
 * the grid wait for those inside, testing a barrier every HPL_IDLE_POLL_NS
 * rather than spinning in a blocking call (which would take the cores the
 * grid computes on when the node is oversubscribed). */
#define HPL_IDLE_POLL_NS 1000000L
void hpl_sit_out(FbContext *ctx, const HplMatrix *m) {
  if ((long long)m->c.p * m->c.q >= ctx->size) return;
  MPI_Request req;
  int done = 0;
  MPI_Ibarrier(ctx->comm, &req);
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
    if (m->idle) nanosleep(&(struct timespec){0, HPL_IDLE_POLL_NS}, NULL);
}

void hpl_grid_comms_free(HplMatrix *m) {
  if (m->pivot_op != MPI_OP_NULL && m->pivot_op) MPI_Op_free(&m->pivot_op);
  if (m->pivot_type != MPI_DATATYPE_NULL && m->pivot_type) MPI_Type_free(&m->pivot_type);
  if (m->row_comm != MPI_COMM_NULL && m->row_comm) MPI_Comm_free(&m->row_comm);
  if (m->col_comm != MPI_COMM_NULL && m->col_comm) MPI_Comm_free(&m->col_comm);
  if (m->grid != MPI_COMM_NULL && m->grid) MPI_Comm_free(&m->grid);
}
