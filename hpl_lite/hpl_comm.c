/* hpl_comm.c: hpl_lite's own communication: the panel broadcast along a
 * process row, as an increasing ring (each process forwards to the next) or a
 * binomial tree, with non-blocking sends so the sender goes on computing
 * (the look-ahead needs that). */
#include "hpl.h"

static int panel_tag(void) { return 4242; }

/* Relative position in the row's broadcast order, the root first. */
static int relative(const HplMatrix *m, int root_col) {
  return (m->mycol - root_col + m->c.q) % m->c.q;
}

static int absolute(const HplMatrix *m, int root_col, int rel) {
  return (rel + root_col) % m->c.q;
}

static void send_children(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                          int *nreq, int start_mask) {
  int r = relative(m, root_col), q = m->c.q;
  if (m->c.bcast == BCAST_RING) {
    if (r + 1 < q)
      MPI_Isend(buf, count, MPI_DOUBLE, absolute(m, root_col, r + 1), panel_tag(), m->row_comm,
                &req[(*nreq)++]);
    return;
  }
  for (int mask = start_mask; mask > 0; mask >>= 1)
    if (r + mask < q)
      MPI_Isend(buf, count, MPI_DOUBLE, absolute(m, root_col, r + mask), panel_tag(),
                m->row_comm, &req[(*nreq)++]);
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

void hpl_panel_bcast_finish(HplMatrix *m, int root_col, double *buf, int count, MPI_Request *req,
                            int *nreq) {
  if (m->mycol == root_col || m->c.q == 1) return;
  int r = relative(m, root_col);
  if (m->c.bcast == BCAST_RING) {
    MPI_Recv(buf, count, MPI_DOUBLE, absolute(m, root_col, r - 1), panel_tag(), m->row_comm,
             MPI_STATUS_IGNORE);
    send_children(m, root_col, buf, count, req, nreq, 0);
    return;
  }
  int mask = 1;
  while (mask < m->c.q && !(r & mask)) mask <<= 1;
  MPI_Recv(buf, count, MPI_DOUBLE, absolute(m, root_col, r - mask), panel_tag(), m->row_comm,
           MPI_STATUS_IGNORE);
  send_children(m, root_col, buf, count, req, nreq, mask >> 1);
}
