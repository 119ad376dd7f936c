/* atoms.c: the atom store: growth, ownership (which rank's sub-box holds
 * a position), adding an atom. No MPI. */
#include "md.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int md_atoms_reserve(MdAtoms *a, int n) {
  if (n <= a->cap) return 0;
  int cap = a->cap ? a->cap : 1024;
  while (cap < n) cap *= 2;
#define GROW(field)                                                                                \
  do {                                                                                             \
    void *p_ = realloc(a->field, (size_t)cap * sizeof *a->field);                                  \
    if (!p_) return FB_EXIT_RUNTIME;                                                               \
    a->field = p_;                                                                                 \
  } while (0)
  GROW(x);
  GROW(v);
  GROW(f);
  GROW(x_built);
  GROW(rho);
  GROW(fp);
  GROW(eatom);
  GROW(id);
  GROW(type);
  GROW(group);
  GROW(image);
  GROW(lamda);
#undef GROW
  a->cap = cap;
  return 0;
}

/* The rank coordinate owning position x along d: edge ranks keep atoms
 * that wander past a non-periodic wall. */
static int owner_coord(const Md *md, int d, double x) {
  int p = md->decomp.dims[d];
  double c = floor((x - md->splitlo[d]) / (md->splithi[d] - md->splitlo[d]) * p); /* clamped */
  return !(c >= 0.0) ? 0 : c >= p ? p - 1 : (int)c; /* NaN too: never cast */
}

void md_atoms_free(MdAtoms *a) {
  free(a->x);
  free(a->v);
  free(a->f);
  free(a->x_built);
  free(a->rho);
  free(a->fp);
  free(a->eatom);
  free(a->id);
  free(a->type);
  free(a->group);
  free(a->image);
  free(a->lamda);
  memset(a, 0, sizeof *a);
}

int md_owns(const Md *md, const double x[3]) {
  double l[3];
  if (md->triclinic) md_x2lamda(md, x, l); /* the split is of the lamda cube */
  for (int d = 0; d < 3; d++)
    if (owner_coord(md, d, md->triclinic ? l[d] : x[d]) != md->decomp.coords[d]) return 0;
  return 1;
}

int md_add_atom(Md *md, long long id, int type, const double x[3], const double v[3]) {
  MdAtoms *a = &md->atoms;
  if (md_atoms_reserve(a, a->n_local + 1)) return FB_EXIT_RUNTIME;
  int i = a->n_local++;
  memcpy(a->x[i], x, sizeof a->x[i]);
  memcpy(a->v[i], v, sizeof a->v[i]);
  a->id[i] = id;
  a->type[i] = type;
  a->group[i] = 1; /* "all" until the groups are made */
  a->image[i][0] = a->image[i][1] = a->image[i][2] = 0;
  return 0;
}
