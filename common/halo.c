/* halo.c: halo exchange of 3-D fields of any width and element type, with
 * buffers and persistent requests made once. Dimensions are exchanged in
 * turn over the full extent of the other two, which fills edges and corners. */
#include "fabricbench.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_UP = 7100, TAG_DOWN = 7200 };

int fb_halo_init(FbHalo *h, const FbDecomp *d, int width, MPI_Datatype type, int nfields) {
  const int pad[3] = {width, width, width};
  return fb_halo_init_ex(h, d, width, pad, 0, 1, type, nfields);
}

/* Nothing crosses a dimension of one rank with no period: no halo needed. */
static int no_neighbour(const FbDecomp *d, int a) {
  return d->nbr_lo[a] == MPI_PROC_NULL && d->nbr_hi[a] == MPI_PROC_NULL;
}

/* The layers along b that faces carry: the owned ones (interior_mask), or
 * all but the rows' tail. */
static void face_span(const FbHalo *h, int b, int *lo, int *hi) {
  if (h->interior_mask >> b & 1) {
    *lo = h->pad[b];
    *hi = h->pad[b] + h->d->n[b];
  } else {
    *lo = 0;
    *hi = h->ext[b] - (b == 2 ? h->tail : 0);
  }
}

int fb_halo_init_ex(FbHalo *h, const FbDecomp *d, int width, const int pad[3], int interior_mask,
                    int row_multiple, MPI_Datatype type, int nfields) {
  memset(h, 0, sizeof *h);
  if (row_multiple < 1) return FB_EXIT_USAGE;
  for (int a = 0; a < 3; a++)
    if (pad[a] < 0 || (pad[a] < width && !no_neighbour(d, a))) return FB_EXIT_USAGE;
  h->interior_mask = interior_mask;
  h->d = d;
  h->width = width;
  for (int a = 0; a < 3; a++) h->pad[a] = pad[a];
  h->nfields = nfields;
  h->type = type;
  int elem;
  MPI_Type_size(type, &elem);
  h->elem = (size_t)elem;
  for (int a = 0; a < 3; a++) h->ext[a] = d->n[a] + 2 * pad[a];
  h->tail = (row_multiple - h->ext[2] % row_multiple) % row_multiple;
  h->ext[2] += h->tail;
  for (int a = 0; a < 3; a++) {
    int lo[3], hi[3];
    for (int b = 0; b < 3; b++) face_span(h, b, &lo[b], &hi[b]);
    const int b1 = (a + 1) % 3, b2 = (a + 2) % 3;
    h->face_count[a] = (size_t)width * (size_t)(hi[b1] - lo[b1]) * (size_t)(hi[b2] - lo[b2]);
    size_t count = h->face_count[a] * nfields;
    for (int s = 0; s < 2; s++) {
      h->sendbuf[a][s] = fb_alloc(count * h->elem);
      h->recvbuf[a][s] = fb_alloc(count * h->elem);
      if (!h->sendbuf[a][s] || !h->recvbuf[a][s]) return FB_EXIT_RUNTIME;
    }
    if (count > (size_t)2147483647) return FB_EXIT_RUNTIME;
    int c = (int)count;
    /* side 0 = low neighbour, side 1 = high neighbour */
    MPI_Recv_init(h->recvbuf[a][0], c, type, d->nbr_lo[a], TAG_UP + a, d->cart, &h->req[a][0]);
    MPI_Recv_init(h->recvbuf[a][1], c, type, d->nbr_hi[a], TAG_DOWN + a, d->cart, &h->req[a][1]);
    MPI_Send_init(h->sendbuf[a][0], c, type, d->nbr_lo[a], TAG_DOWN + a, d->cart, &h->req[a][2]);
    MPI_Send_init(h->sendbuf[a][1], c, type, d->nbr_hi[a], TAG_UP + a, d->cart, &h->req[a][3]);
    h->have_req[a] = 1;
  }
  return 0;
}

void fb_halo_free(FbHalo *h) {
  for (int a = 0; a < 3; a++) {
    if (h->have_req[a])
      for (int r = 0; r < 4; r++) MPI_Request_free(&h->req[a][r]);
    for (int s = 0; s < 2; s++) {
      free(h->sendbuf[a][s]);
      free(h->recvbuf[a][s]);
    }
  }
  memset(h, 0, sizeof *h);
}

/* Copies the slab [first, first + width) along axis between a field and a
 * contiguous buffer; to_buf selects the direction. Rows along the last
 * (fastest) index are contiguous; across it each row contributes `width`
 * elements, and a run of one or two (4 or 8 bytes) is one move, not a
 * memcpy call. */
static void copy_slab(const FbHalo *h, char *field, char *buf, int axis, int first, int to_buf) {
  const int *e = h->ext;
  int lo[3], hi[3];
  for (int b = 0; b < 3; b++) face_span(h, b, &lo[b], &hi[b]);
  lo[axis] = first;
  hi[axis] = first + h->width;
  size_t run = (size_t)(hi[2] - lo[2]) * h->elem;
  size_t off = 0;
  for (int i = lo[0]; i < hi[0]; i++)
    for (int j = lo[1]; j < hi[1]; j++) {
      char *f = field + fb_idx3(e, i, j, lo[2]) * h->elem;
      char *dst = to_buf ? buf + off : f;
      const char *src = to_buf ? f : buf + off;
      /* a constant size: one move, at any alignment (a run of two floats
       * need not be a double's) */
      if (run == 4)
        memcpy(dst, src, 4);
      else if (run == 8)
        memcpy(dst, src, 8);
      else
        memcpy(dst, src, run);
      off += run;
    }
}

/* A rank that is both its neighbours along a periodic axis (one rank across
 * it) receives what it sends: its halo is filled from its own send buffers,
 * without MPI (which would copy the data once more). */
static int own_neighbour(const FbDecomp *d, int a, int rank) {
  return d->nbr_lo[a] == rank && d->nbr_hi[a] == rank;
}

/* The buffers the low and high halo layers come from: what the low
 * neighbour sent up and the high neighbour sent down. */
static char *arrived(const FbHalo *h, int a, int side, int self) {
  return self ? (char *)h->sendbuf[a][!side] : (char *)h->recvbuf[a][side];
}

void fb_halo_exchange(FbHalo *h, void *const *fields, FbTimers *t, int phase) {
  const FbDecomp *d = h->d;
  const int w = h->width;
  int rank;
  MPI_Comm_rank(d->cart, &rank);
  fb_timer_start(t, phase);
  size_t face_bytes = h->face_count[0] * h->elem; /* set per axis below */
  for (int a = 0; a < 3; a++) {
    const int n = d->n[a], pad = h->pad[a];
    face_bytes = h->face_count[a] * h->elem;
    const int self = own_neighbour(d, a, rank);
    if (!self) MPI_Startall(2, &h->req[a][0]);
    for (int f = 0; f < h->nfields; f++) {
      if (d->nbr_lo[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], (char *)h->sendbuf[a][0] + f * face_bytes, a, pad, 1);
      if (d->nbr_hi[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], (char *)h->sendbuf[a][1] + f * face_bytes, a, pad + n - w, 1);
    }
    if (!self) {
      MPI_Startall(2, &h->req[a][2]);
      MPI_Waitall(4, h->req[a], MPI_STATUSES_IGNORE);
    }
    for (int f = 0; f < h->nfields; f++) {
      if (d->nbr_lo[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], arrived(h, a, 0, self) + f * face_bytes, a, pad - w, 0);
      if (d->nbr_hi[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], arrived(h, a, 1, self) + f * face_bytes, a, pad + n, 0);
    }
    for (int s = 0; s < 2; s++) {
      int nbr = s ? d->nbr_hi[a] : d->nbr_lo[a];
      if (nbr != MPI_PROC_NULL && nbr != rank)
        fb_timers_count(t, phase, 1, (long long)(face_bytes * h->nfields));
    }
  }
  fb_timer_stop(t, phase);
}

/* Face-only exchange in two halves, for overlapping computation: begin
 * packs and posts all dimensions at once, end waits and unpacks. Edges and
 * corners are not filled (each face slab carries the other dimensions'
 * halo layers as they were before the exchange). */
void fb_halo_begin(FbHalo *h, void *const *fields, FbTimers *t, int phase) {
  const FbDecomp *d = h->d;
  int rank;
  MPI_Comm_rank(d->cart, &rank);
  fb_timer_start(t, phase);
  for (int a = 0; a < 3; a++) {
    size_t face_bytes = h->face_count[a] * h->elem;
    const int self = own_neighbour(d, a, rank);
    if (!self) MPI_Startall(2, &h->req[a][0]);
    for (int f = 0; f < h->nfields; f++) {
      if (d->nbr_lo[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], (char *)h->sendbuf[a][0] + f * face_bytes, a, h->pad[a], 1);
      if (d->nbr_hi[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], (char *)h->sendbuf[a][1] + f * face_bytes, a,
                  h->pad[a] + d->n[a] - h->width, 1);
    }
    if (!self) MPI_Startall(2, &h->req[a][2]);
  }
  fb_timer_stop(t, phase);
}

void fb_halo_end(FbHalo *h, void *const *fields, FbTimers *t, int phase) {
  const FbDecomp *d = h->d;
  int rank;
  MPI_Comm_rank(d->cart, &rank);
  fb_timer_start(t, phase);
  for (int a = 0; a < 3; a++) {
    size_t face_bytes = h->face_count[a] * h->elem;
    const int self = own_neighbour(d, a, rank);
    if (!self) MPI_Waitall(4, h->req[a], MPI_STATUSES_IGNORE);
    for (int f = 0; f < h->nfields; f++) {
      if (d->nbr_lo[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], arrived(h, a, 0, self) + f * face_bytes, a, h->pad[a] - h->width,
                  0);
      if (d->nbr_hi[a] != MPI_PROC_NULL)
        copy_slab(h, fields[f], arrived(h, a, 1, self) + f * face_bytes, a, h->pad[a] + d->n[a], 0);
    }
    for (int s = 0; s < 2; s++) {
      int nbr = s ? d->nbr_hi[a] : d->nbr_lo[a];
      if (nbr != MPI_PROC_NULL && nbr != rank)
        fb_timers_count(t, phase, 1, (long long)(face_bytes * h->nfields));
    }
  }
  fb_timer_stop(t, phase);
}
