/* box.c: a tilted (triclinic) box's geometry, as LAMMPS's Domain keeps it:
 * h and h_inv, the frame the ranks decide in (md.h), positions to lamda
 * coordinates and back, unwrapped positions, and the x y z extent of a
 * sub-box with its ghost shell. A tilted box's lamda coordinates are those
 * of the box now (simlo, simhi: shrink-wrapped in s and m dimensions, as
 * LAMMPS's reset_box changes boxlo and boxhi; the tilts stay). An
 * orthogonal box takes the same calls: its frame is the box itself. Also
 * where read_data places a file's atom in a box of either kind. No MPI. */
#include "md.h"

#include <math.h>
#include <string.h>

void md_initial_box(Md *md) {
  for (int d = 0; d < 3; d++) {
    md->prd[d] = md->boxhi[d] - md->boxlo[d];
    md->small[d] = MD_SHRINK_SMALL * md->prd[d];
    /* LAMMPS's set_initial_box widens s dimensions by small before atoms are
     * read; only a tilted box's lamda coordinates see it before the first
     * reset_box (an orthogonal box's atoms are placed by md_place_in_box) */
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

/* LAMMPS read_data's placement of a coordinate along d. Periodic: wrapped
 * into [lo, hi) one box length at a time, as Domain::remap does (the same
 * rounding); past MD_DATA_MAX_IMAGES lengths refused, where LAMMPS would
 * loop for as long. Shrink-wrapped (s): inside [lo - small, hi + small),
 * the box set_initial_box widens by SMALL = 1e-4 of its length before the
 * atoms are read. Fixed (f) and minimum (m): inside [lo, hi). Elsewhere
 * LAMMPS stops with "Did not assign all atoms correctly"; -1 here. Each
 * length moved counts in *image, as remap's image flags (and the file's
 * flags are kept within the same MD_DATA_MAX_IMAGES lengths). */
int md_place_in_box(const Md *md, int d, double *x, int *image) {
  double lo = md->boxlo[d], hi = md->boxhi[d];
  if (md->periodic[d]) {
    double prd = hi - lo;
    for (int k = 0; *x < lo; k++, --*image) {
      if (k == MD_DATA_MAX_IMAGES) return -1;
      *x += prd;
    }
    for (int k = 0; *x >= hi; k++, ++*image) {
      if (k == MD_DATA_MAX_IMAGES) return -1;
      *x -= prd;
    }
    if (*x < lo) *x = lo;
    return 0;
  }
  if (md->boundary[d] == 's') {
    double small = MD_SHRINK_SMALL * (hi - lo);
    lo -= small;
    hi += small;
  }
  return *x >= lo && *x < hi ? 0 : -1;
}

/* A tilted box: Domain::remap, in lamda coordinates of the box atoms are
 * read into, and back to x y z, as LAMMPS places every atom of such a box;
 * along a non-periodic dimension inside [0, 1) (-2 if not; -1: past
 * MD_DATA_MAX_IMAGES lengths). */
int md_place_in_tilted_box(const MdReadBox *r, const Md *md, double x[3], int image[3]) {
  double l[3];
  md_x2lamda_in(r->lo, r->h_inv, x, l);
  for (int d = 0; d < 3; d++) {
    if (!md->periodic[d]) {
      if (!(l[d] >= 0.0 && l[d] < 1.0)) return -2;
      continue;
    }
    for (int k = 0; l[d] < 0.0; k++, --image[d]) {
      if (k == MD_DATA_MAX_IMAGES) return -1;
      l[d] += 1.0;
    }
    for (int k = 0; l[d] >= 1.0; k++, ++image[d]) {
      if (k == MD_DATA_MAX_IMAGES) return -1;
      l[d] -= 1.0;
    }
    if (l[d] < 0.0) l[d] = 0.0;
  }
  md_lamda2x_in(r->lo, r->h, l, x);
  return 0;
}

/* The end of read_data in a tilted box with a shrink-wrapped (s, m) side:
 * LAMMPS wraps the box round the atoms (reset_box, whose new box
 * md_split_data_atoms made: each atom's x again from its lamda in the box it
 * was read into, then its lamda in the new box, where pbc wraps it along
 * the periodic dimensions, one box length) and turns it back to x y z.
 * The new box's faces lie elsewhere, so an atom near one may move by an
 * edge vector here: its image flag counts it, and the positions that
 * velocity create's loop geom draws from are LAMMPS's. */
void md_place_in_wrapped_box(const MdReadBox *r, const Md *md, double x[3], int image[3]) {
  double l[3];
  md_x2lamda_in(r->lo, r->h_inv, x, l);
  md_lamda2x_in(r->lo, r->h, l, x);
  md_x2lamda(md, x, l);
  for (int d = 0; d < 3; d++) {
    if (!md->periodic[d]) continue;
    if (l[d] < 0.0) {
      l[d] += 1.0;
      image[d]--;
    }
    if (l[d] >= 1.0) {
      l[d] = fmax(l[d] - 1.0, 0.0);
      image[d]++;
    }
  }
  md_lamda2x(md, l, x);
}
