/* box.c: a tilted (triclinic) box's geometry, as LAMMPS's Domain keeps it:
 * h and h_inv, the frame the ranks decide in (md.h), positions to lamda
 * coordinates and back, unwrapped positions, and the x y z extent of a
 * sub-box with its ghost shell. A tilted box's lamda coordinates are those
 * of the box now (simlo, simhi: shrink-wrapped in s and m dimensions, as
 * LAMMPS's reset_box changes boxlo and boxhi; the tilts stay). An
 * orthogonal box takes the same calls: its frame is the box itself. No MPI. */
#include "md.h"

#include <math.h>
#include <string.h>

void md_initial_box(Md *md) {
  for (int d = 0; d < 3; d++) {
    md->prd[d] = md->boxhi[d] - md->boxlo[d];
    md->small[d] = MD_SHRINK_SMALL * md->prd[d];
    /* LAMMPS's set_initial_box widens s dimensions by small before atoms are
     * read; only a tilted box's lamda coordinates see it before the first
     * reset_box (an orthogonal box's atoms are placed by place_in_box) */
    const double widen = md->triclinic && md->boundary[d] == 's' ? md->small[d] : 0.0;
    md->simlo[d] = md->boxlo[d] - widen;
    md->simhi[d] = md->boxhi[d] + widen;
  }
  md_set_frame(md);
}

void md_box_matrices(const double lo[3], const double hi[3], const double tilt[3], double h[6],
                     double h_inv[6]) {
  for (int d = 0; d < 3; d++) {
    h[d] = hi[d] - lo[d];
    h_inv[d] = 1.0 / h[d];
  }
  h[3] = tilt[2];
  h[4] = tilt[1];
  h[5] = tilt[0];
  /* Domain::set_global_box */
  h_inv[3] = -h[3] / (h[1] * h[2]);
  h_inv[4] = (h[3] * h[5] - h[1] * h[4]) / (h[0] * h[1] * h[2]);
  h_inv[5] = -h[5] / (h[0] * h[1]);
}

void md_set_frame(Md *md) {
  double *h = md->h, *hinv = md->h_inv;
  if (md->triclinic) {
    md_box_matrices(md->simlo, md->simhi, md->tilt, h, hinv);
  } else {
    for (int d = 0; d < 3; d++) {
      h[d] = md->prd[d];
      hinv[d] = 1.0 / h[d];
    }
    h[3] = h[4] = h[5] = hinv[3] = hinv[4] = hinv[5] = 0.0;
  }
  /* Comm::setup: the cutoff plus skin across the lamda cube, the distance
   * between its faces' planes in x y z */
  const double across[3] = {sqrt(hinv[0] * hinv[0] + hinv[5] * hinv[5] + hinv[4] * hinv[4]),
                            sqrt(hinv[1] * hinv[1] + hinv[3] * hinv[3]), hinv[2]};
  const double edge[3][3] = {{h[0], 0.0, 0.0}, {h[5], h[1], 0.0}, {h[4], h[3], h[2]}};
  memcpy(md->edge, edge, sizeof edge);
  for (int d = 0; d < 3; d++) {
    md->frame_lo[d] = md->triclinic ? 0.0 : md->boxlo[d];
    md->frame_hi[d] = md->triclinic ? 1.0 : md->boxhi[d];
    md->frame_prd[d] = md->triclinic ? 1.0 : md->prd[d];
    md->frame_cut[d] = md->triclinic ? md->cutghost * across[d] : md->cutghost;
  }
}

void md_x2lamda_in(const double lo[3], const double h_inv[6], const double x[3], double lamda[3]) {
  const double *hinv = h_inv;
  double delta[3] = {x[0] - lo[0], x[1] - lo[1], x[2] - lo[2]};
  lamda[0] = hinv[0] * delta[0] + hinv[5] * delta[1] + hinv[4] * delta[2];
  lamda[1] = hinv[1] * delta[1] + hinv[3] * delta[2];
  lamda[2] = hinv[2] * delta[2];
}

void md_lamda2x_in(const double lo[3], const double h[6], const double lamda[3], double x[3]) {
  double l[3] = {lamda[0], lamda[1], lamda[2]}; /* lamda may be x */
  x[0] = h[0] * l[0] + h[5] * l[1] + h[4] * l[2] + lo[0];
  x[1] = h[1] * l[1] + h[3] * l[2] + lo[1];
  x[2] = h[2] * l[2] + lo[2];
}

void md_x2lamda(const Md *md, const double x[3], double lamda[3]) {
  md_x2lamda_in(md->simlo, md->h_inv, x, lamda);
}

void md_lamda2x(const Md *md, const double lamda[3], double x[3]) {
  md_lamda2x_in(md->simlo, md->h, lamda, x);
}

void md_unmap(const Md *md, const double x[3], const int image[3], double u[3]) {
  if (!md->triclinic) {
    for (int d = 0; d < 3; d++) u[d] = x[d] + image[d] * md->prd[d];
    return;
  }
  const double *h = md->h;
  u[0] = x[0] + h[0] * image[0] + h[5] * image[1] + h[4] * image[2];
  u[1] = x[1] + h[1] * image[1] + h[3] * image[2];
  u[2] = x[2] + h[2] * image[2];
}

void md_ghost_extent(const Md *md, double lo[3], double hi[3]) {
  if (!md->triclinic) {
    for (int d = 0; d < 3; d++) {
      lo[d] = md->sublo[d] - md->cutghost;
      hi[d] = md->subhi[d] + md->cutghost;
    }
    return;
  }
  for (int d = 0; d < 3; d++) {
    lo[d] = INFINITY;
    hi[d] = -INFINITY;
  }
  for (int corner = 0; corner < 8; corner++) { /* Domain::bbox: the eight corners */
    double l[3], x[3];
    for (int d = 0; d < 3; d++)
      l[d] = corner >> d & 1 ? md->subhi[d] + md->frame_cut[d] : md->sublo[d] - md->frame_cut[d];
    md_lamda2x(md, l, x);
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], x[d]);
      hi[d] = fmax(hi[d], x[d]);
    }
  }
}
