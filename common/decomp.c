/* decomp.c: 3-D Cartesian decomposition: process grid (chosen or given),
 * balanced block extents, neighbours, and the sanity checks with reasons. */
#include "fabricbench.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

void fb_block_extent(int n, int parts, int part, int *lo, int *count) {
  int base = n / parts, extra = n % parts;
  *count = base + (part < extra ? 1 : 0);
  *lo = part * base + (part < extra ? part : extra);
}

/* Estimated halo surface of a grid: faces of the largest block, split
 * dimensions only. Faces across the fastest (last) dimension are strided:
 * packing one costs about 3-4x more per byte (himeno S on 2 ranks: 51 us per
 * exchange for a k face against 30 us for an i face of twice the bytes). */
static double grid_cost(const int n[3], const int p[3]) {
  double b[3];
  for (int d = 0; d < 3; d++) b[d] = (double)((n[d] + p[d] - 1) / p[d]);
  double cost = 0.0;
  const double weight[3] = {1.0, 1.0, 3.0};
  for (int d = 0; d < 3; d++)
    if (p[d] > 1) cost += weight[d] * b[(d + 1) % 3] * b[(d + 2) % 3];
  return cost;
}

/* Whether p ranks along a dimension of n points give every rank min_local
 * of them, or need not: one rank and no period is no neighbour, no halo. */
static int thick_enough(int n, int p, int periodic, int min_local) {
  return n / p >= min_local || (p == 1 && !periodic);
}

/* Picks the grid of `size` ranks with the least halo surface, honouring fixed
 * (non-zero) entries of dims and giving every rank at least min_local points
 * along each dimension that has a neighbour; returns 0 if none does. */
static int choose_grid(int size, const int n[3], const int periods[3], int min_local, int dims[3]) {
  int best[3] = {0, 0, 0};
  double best_cost = DBL_MAX;
  for (int p0 = 1; p0 <= size; p0++) {
    if (size % p0 || (dims[0] && dims[0] != p0)) continue;
    for (int p1 = 1; p1 <= size / p0; p1++) {
      if ((size / p0) % p1 || (dims[1] && dims[1] != p1)) continue;
      int p2 = size / p0 / p1;
      if (dims[2] && dims[2] != p2) continue;
      int p[3] = {p0, p1, p2};
      int fits = 1;
      for (int a = 0; a < 3; a++) fits &= thick_enough(n[a], p[a], periods[a], min_local);
      if (!fits) continue;
      double c = grid_cost(n, p);
      if (c < best_cost) {
        best_cost = c;
        memcpy(best, p, sizeof p);
      }
    }
  }
  if (!best[0]) return 0;
  memcpy(dims, best, sizeof best);
  return 1;
}

int fb_decomp_init(FbDecomp *d, MPI_Comm comm, const int nglobal[3], const int dims_in[3],
                   const int periods[3], int min_local, char *err, size_t err_len) {
  int size, rank;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  memset(d, 0, sizeof *d);
  d->cart = MPI_COMM_NULL;
  memcpy(d->nglobal, nglobal, sizeof d->nglobal);
  memcpy(d->periods, periods, sizeof d->periods);
  memcpy(d->dims, dims_in, sizeof d->dims);
  const char axis[3] = {'i', 'j', 'k'};
  if (d->dims[0] && d->dims[1] && d->dims[2]) {
    long long prod = (long long)d->dims[0] * d->dims[1] * d->dims[2];
    if (prod != size) {
      snprintf(err, err_len, "process grid %dx%dx%d has %lld ranks but the job has %d", d->dims[0],
               d->dims[1], d->dims[2], prod, size);
      return FB_EXIT_USAGE;
    }
  } else if (!choose_grid(size, nglobal, periods, min_local, d->dims)) {
    snprintf(err, err_len,
             "no process grid of %d ranks gives every rank at least %d point%s of %dx%dx%d", size,
             min_local, min_local == 1 ? "" : "s", nglobal[0], nglobal[1], nglobal[2]);
    return FB_EXIT_USAGE;
  }
  for (int a = 0; a < 3; a++) {
    int smallest = nglobal[a] / d->dims[a];
    if (!thick_enough(nglobal[a], d->dims[a], d->periods[a], min_local)) {
      snprintf(err, err_len,
               "process grid %dx%dx%d leaves a rank with %d points along %c "
               "(%d points over %d ranks; at least %d needed)",
               d->dims[0], d->dims[1], d->dims[2], smallest, axis[a], nglobal[a], d->dims[a],
               min_local);
      return FB_EXIT_USAGE;
    }
  }
  MPI_Cart_create(comm, 3, d->dims, d->periods, 0, &d->cart);
  MPI_Cart_coords(d->cart, rank, 3, d->coords);
  for (int a = 0; a < 3; a++) {
    fb_block_extent(nglobal[a], d->dims[a], d->coords[a], &d->lo[a], &d->n[a]);
    MPI_Cart_shift(d->cart, a, 1, &d->nbr_lo[a], &d->nbr_hi[a]);
  }
  return 0;
}

void fb_decomp_free(FbDecomp *d) {
  if (d->cart != MPI_COMM_NULL) MPI_Comm_free(&d->cart);
}

void fb_decomp_grid_string(const FbDecomp *d, char *buf, size_t len) {
  snprintf(buf, len, "%dx%dx%d", d->dims[0], d->dims[1], d->dims[2]);
}
