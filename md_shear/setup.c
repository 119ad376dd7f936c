/* setup.c: the system in LAMMPS's order: the data file's header (or the
 * lattice box, or a restart), the potential, the masses, the decomposition,
 * the atoms (an oriented fcc lattice, the data file, or the restart), the
 * groups; and the velocity command the runs call. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the lattice */

/* fcc in an oriented frame: lattice points of the base box, in the order
 * every rank generates them (ids follow that order). */
static int lattice_points(const Md *md, double **out, long long *count) {
  static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  double a = md->lattice_constant, rot[3][3], L[3], diag = 0.0;
  for (int d = 0; d < 3; d++) {
    double len = 0.0;
    for (int e = 0; e < 3; e++) len += (double)md->orient[d][e] * md->orient[d][e];
    for (int e = 0; e < 3; e++) rot[d][e] = md->orient[d][e] / sqrt(len);
    L[d] = md->box_lattice[d] * a;
    diag += L[d] * L[d];
  }
  int m = (int)ceil(sqrt(diag) / a) + 1;
  size_t cap = 4096, n = 0;
  double *pts = malloc(cap * 3 * sizeof *pts);
  if (!pts) return FB_EXIT_RUNTIME;
  for (int k = -m; k <= m; k++) /* LAMMPS's create_atoms order: its ids on one rank */
    for (int j = -m; j <= m; j++)
      for (int i = -m; i <= m; i++)
        for (int b = 0; b < 4; b++) {
          double c[3] = {(i + basis[b][0] + md->origin[0]) * a,
                         (j + basis[b][1] + md->origin[1]) * a,
                         (k + basis[b][2] + md->origin[2]) * a};
          double x[3];
          int inside = 1;
          for (int d = 0; d < 3; d++) {
            x[d] = rot[d][0] * c[0] + rot[d][1] * c[1] + rot[d][2] * c[2];
            /* LAMMPS's create_atoms: [lo, hi) in periodic dimensions, the
             * upper face included (within rounding) in non-periodic ones,
             * unless the box is replicated there (the next copy's lower
             * face is that layer). */
            int upper_face = !md->periodic[d] && md->replicate[d] == 1;
            double hi = upper_face ? L[d] * (1.0 + 1e-12) : L[d];
            if (x[d] < -1e-12 * L[d] || x[d] >= hi) inside = 0;
            if (x[d] < 0.0 && inside) x[d] = 0.0;
          }
          if (!inside) continue;
          if (n == cap) {
            double *p = realloc(pts, (cap *= 2) * 3 * sizeof *pts);
            if (!p) {
              free(pts);
              return FB_EXIT_RUNTIME;
            }
            pts = p;
          }
          memcpy(pts + 3 * n++, x, sizeof x);
        }
  *out = pts;
  *count = (long long)n;
  return 0;
}

static int create_lattice(Md *md) {
  double *pts;
  long long nbase;
  if (lattice_points(md, &pts, &nbase)) return FB_EXIT_RUNTIME;
  const double zero[3] = {0, 0, 0};
  long long copy = 0;
  for (int rx = 0; rx < md->replicate[0]; rx++)
    for (int ry = 0; ry < md->replicate[1]; ry++)
      for (int rz = 0; rz < md->replicate[2]; rz++, copy++)
        for (long long p = 0; p < nbase; p++) {
          int r[3] = {rx, ry, rz};
          double x[3];
          for (int d = 0; d < 3; d++)
            x[d] = pts[3 * p + d] + r[d] * md->box_lattice[d] * md->lattice_constant;
          if (md_owns(md, x) && md_add_atom(md, copy * nbase + p + 1, 0, x, zero)) {
            free(pts);
            return FB_EXIT_RUNTIME;
          }
        }
  md->natoms = nbase * copy;
  free(pts);
  return 0;
}
/* --------------------------------------------------------------- velocities */

/* LAMMPS's velocity command draws from Park and Miller's minimal standard
 * generator (multiplier 16807, modulus 2^31 - 1, Schrage's factorisation:
 * Park & Miller, CACM 31, 1988), its Gaussians by the polar method, two at a
 * time; loop geom reseeds it from each atom's position by Jenkins's
 * one-at-a-time hash of the seed's and the coordinates' bytes (read as
 * signed chars, as on x86), 27 bits kept, five draws to warm up. The same
 * streams give LAMMPS's velocities, bit for bit where the positions are. */
#define PARK_IA          16807
#define PARK_IM          2147483647
#define PARK_IQ          127773
#define PARK_IR          2836
#define PARK_GEOM_MASK   0x7ffffff
#define PARK_GEOM_WARMUP 5

typedef struct {
  int seed, saved;
  double second;
} ParkRng;

static double park_uniform(ParkRng *r) {
  int k = r->seed / PARK_IQ;
  r->seed = PARK_IA * (r->seed - k * PARK_IQ) - PARK_IR * k;
  if (r->seed < 0) r->seed += PARK_IM;
  return (1.0 / PARK_IM) * r->seed;
}

static double park_gaussian(ParkRng *r) {
  if (r->saved) {
    r->saved = 0;
    return r->second;
  }
  double v1, v2, rsq;
  do {
    v1 = 2.0 * park_uniform(r) - 1.0;
    v2 = 2.0 * park_uniform(r) - 1.0;
    rsq = v1 * v1 + v2 * v2;
  } while (rsq >= 1.0 || rsq == 0.0);
  double fac = sqrt(-2.0 * log(rsq) / rsq);
  r->second = v1 * fac;
  r->saved = 1;
  return v2 * fac;
}

static unsigned int one_at_a_time(unsigned int hash, const void *bytes, size_t n) {
  const signed char *p = bytes;
  for (size_t i = 0; i < n; i++) {
    hash += (unsigned int)p[i];
    hash += hash << 10;
    hash ^= hash >> 6;
  }
  return hash;
}

static void park_reset(ParkRng *r, int base, const double x[3]) {
  unsigned int hash = one_at_a_time(one_at_a_time(0, &base, sizeof base), x, 3 * sizeof *x);
  hash += hash << 3;
  hash ^= hash >> 11;
  hash += hash << 15;
  r->seed = (int)(hash & PARK_GEOM_MASK);
  if (!r->seed) r->seed = 1;
  for (int i = 0; i < PARK_GEOM_WARMUP; i++) park_uniform(r);
  r->saved = 0;
}

typedef struct {
  long long id;
  int slot;
} IdSlot;

static int by_id(const void *a, const void *b) {
  long long x = ((const IdSlot *)a)->id, y = ((const IdSlot *)b)->id;
  return (x > y) - (x < y);
}

static void park_triple(ParkRng *r, int gaussian, double out[3]) {
  for (int d = 0; d < 3; d++) out[d] = gaussian ? park_gaussian(r) : park_uniform(r) - 0.5;
}

/* LAMMPS's velocity zero_momentum: the group's centre-of-mass velocity
 * taken from each of its atoms (sums exact: the same on any rank count). */
static void zero_momentum(FbContext *ctx, Md *md, int group) {
  MdAtoms *a = &md->atoms;
  const int bit = 1 << group;
  double sums[4] = {0, 0, 0, 0}; /* momentum, mass */
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & bit)) continue;
    double m = md->mass[a->type[i]];
    for (int d = 0; d < 3; d++) sums[d] += m * a->v[i][d];
    sums[3] += m;
  }
  md_sum_exact(ctx, sums, 4);
  for (int i = 0; i < a->n_local; i++)
    if ((a->group[i] & bit) && sums[3] > 0)
      for (int d = 0; d < 3; d++) a->v[i][d] -= sums[d] / sums[3];
}

/* Atom i's unwrapped position (LAMMPS's Domain::unmap): x plus its images. */
static void unwrap(const Md *md, int i, double u[3]) {
  md_unmap(md, md->atoms.x[i], md->atoms.image[i], u);
}

/* Below this determinant of the inertia tensor (a line of atoms, two
 * atoms) LAMMPS's Group::omega turns to the principal axes; md refuses the
 * tensor there instead. The same threshold: group.cpp's EPSILON. */
#define MD_INERTIA_MIN_DET 1.0e-6

/* LAMMPS's velocity zero_rotation: the group's angular velocity about its
 * centre of mass (unwrapped positions), w = I^-1 L with I inverted by its
 * cofactors as Group::omega does, then v -= w x r for each atom. */
static void zero_rotation(FbContext *ctx, Md *md, int group) {
  MdAtoms *a = &md->atoms;
  const int bit = 1 << group;
  double cm[4] = {0, 0, 0, 0}; /* mass-weighted position, mass */
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & bit)) continue;
    double m = md->mass[a->type[i]], u[3];
    unwrap(md, i, u);
    for (int d = 0; d < 3; d++) cm[d] += u[d] * m;
    cm[3] += m;
  }
  md_sum_exact(ctx, cm, 4);
  if (!(cm[3] > 0)) return;
  for (int d = 0; d < 3; d++) cm[d] /= cm[3];
  double s[9] = {0}; /* angular momentum L, then I00 I11 I22 I01 I12 I02 */
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & bit)) continue;
    double m = md->mass[a->type[i]], u[3], *v = a->v[i];
    unwrap(md, i, u);
    double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
    s[0] += m * (dy * v[2] - dz * v[1]);
    s[1] += m * (dz * v[0] - dx * v[2]);
    s[2] += m * (dx * v[1] - dy * v[0]);
    s[3] += m * (dy * dy + dz * dz);
    s[4] += m * (dx * dx + dz * dz);
    s[5] += m * (dx * dx + dy * dy);
    s[6] -= m * dx * dy;
    s[7] -= m * dy * dz;
    s[8] -= m * dx * dz;
  }
  md_sum_exact(ctx, s, 9);
  const double I[3][3] = {{s[3], s[6], s[8]}, {s[6], s[4], s[7]}, {s[8], s[7], s[5]}};
  double det = I[0][0] * I[1][1] * I[2][2] + I[0][1] * I[1][2] * I[2][0] +
               I[0][2] * I[1][0] * I[2][1] - I[0][0] * I[1][2] * I[2][1] -
               I[0][1] * I[1][0] * I[2][2] - I[2][0] * I[1][1] * I[0][2];
  if (!(det > MD_INERTIA_MIN_DET))
    fb_fail(ctx, FB_EXIT_USAGE,
            "%s: velocity rot yes / zero angular: group %s's inertia tensor is singular "
            "(determinant %.3g: too few atoms, or all on a line)",
            md->deck_path, md->group_name[group], det);
  double inv[3][3] = {
      {I[1][1] * I[2][2] - I[1][2] * I[2][1], -(I[0][1] * I[2][2] - I[0][2] * I[2][1]),
       I[0][1] * I[1][2] - I[0][2] * I[1][1]},
      {-(I[1][0] * I[2][2] - I[1][2] * I[2][0]), I[0][0] * I[2][2] - I[0][2] * I[2][0],
       -(I[0][0] * I[1][2] - I[0][2] * I[1][0])},
      {I[1][0] * I[2][1] - I[1][1] * I[2][0], -(I[0][0] * I[2][1] - I[0][1] * I[2][0]),
       I[0][0] * I[1][1] - I[0][1] * I[1][0]}};
  double w[3];
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) inv[r][c] /= det;
    w[r] = inv[r][0] * s[0] + inv[r][1] * s[1] + inv[r][2] * s[2];
  }
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & bit)) continue;
    double u[3];
    unwrap(md, i, u);
    double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
    a->v[i][0] -= w[1] * dz - w[2] * dy;
    a->v[i][1] -= w[2] * dx - w[0] * dz;
    a->v[i][2] -= w[0] * dy - w[1] * dx;
  }
}

static void scale_to(FbContext *ctx, Md *md, const MdVelocity *v);

/* LAMMPS's velocity command. create: a triple of draws per atom over
 * 1/sqrt(mass), uniform in [-0.5, 0.5) (dist uniform, the default) or
 * Gaussian; loop all (the default) draws the triples of atoms 1..N in id
 * order on every rank, each keeping its own atoms' (so any rank count gets
 * the same velocities), loop geom one triple from a generator seeded by the
 * atom's position. Then the group's momentum removed (mom yes), its angular
 * momentum about the centre of mass too (rot yes), and the
 * velocities scaled to T exactly by the temperature compute given (temp C),
 * else one of the group. set and ramp: in lattice units unless
 * velocity_units = box, as LAMMPS's default. */
static void velocity_create(FbContext *ctx, Md *md, const MdVelocity *v) {
  MdAtoms *a = &md->atoms;
  const int bit = 1 << v->group;
  if (!v->loop_geom && md->tags)
    fb_fail(ctx, FB_EXIT_USAGE,
            "%s: velocity create loop all needs atom ids 1..N (the data file's have gaps, as "
            "LAMMPS refuses them); use loop geom",
            md->deck_path);
  ParkRng rng = {(int)v->seed, 0, 0.0};
  if (!v->loop_geom) { /* my atoms by id: ids are 1..N here */
    IdSlot *order = malloc(((size_t)a->n_local + 1) * sizeof *order);
    fb_agree(ctx, order ? 0 : FB_EXIT_RUNTIME, "out of memory creating velocities");
    for (int i = 0; i < a->n_local; i++) order[i] = (IdSlot){a->id[i], i};
    qsort(order, (size_t)a->n_local, sizeof *order, by_id);
    double t[3];
    for (long long id = 1, k = 0; id <= md->natoms; id++) {
      park_triple(&rng, v->gaussian, t);
      if (k == a->n_local || order[k].id != id) continue;
      int i = order[k++].slot;
      if (!(a->group[i] & bit)) continue;
      double f = 1.0 / sqrt(md->mass[a->type[i]]);
      for (int d = 0; d < 3; d++) a->v[i][d] = t[d] * f;
    }
    free(order);
  } else {
    for (int i = 0; i < a->n_local; i++) {
      if (!(a->group[i] & bit)) continue;
      double t[3], f = 1.0 / sqrt(md->mass[a->type[i]]);
      park_reset(&rng, (int)v->seed, a->x[i]);
      park_triple(&rng, v->gaussian, t);
      for (int d = 0; d < 3; d++) a->v[i][d] = t[d] * f;
    }
  }
  if (!v->keep_momentum) zero_momentum(ctx, md, v->group);
  if (v->zero_rotation) zero_rotation(ctx, md, v->group);
  scale_to(ctx, md, v);
}

/* Velocity::rescale: the group's velocities scaled to T exactly, by the
 * temperature compute given (temp C), else one of the group. */
static void scale_to(FbContext *ctx, Md *md, const MdVelocity *v) {
  MdAtoms *a = &md->atoms;
  const int bit = 1 << v->group;
  int compute = v->compute;
  if (compute < 0) {         /* a temperature of the velocity's group, for the purpose */
    compute = md->ncomputes; /* the slot past the deck's computes is free */
    MdCompute *c = &md->compute[compute];
    memset(c, 0, sizeof *c);
    c->group = v->group;
    c->use[0] = c->use[1] = c->use[2] = 1;
    c->count = md->group_count[v->group];
  }
  double t = md_temperature(ctx, md, compute, NULL);
  double scale = t > 0.0 ? sqrt(v->temp / t) : 0.0;
  for (int i = 0; i < a->n_local; i++)
    if (a->group[i] & bit)
      for (int d = 0; d < 3; d++) a->v[i][d] *= scale;
}

static double velocity_unit(const Md *md, int d) {
  return md->velocity_box_units ? 1.0 : md->spacing[d];
}

void md_velocity(FbContext *ctx, Md *md, const MdVelocity *v) {
  if (v->style == VEL_CREATE) {
    velocity_create(ctx, md, v);
    return;
  }
  if (v->style == VEL_SCALE) {
    scale_to(ctx, md, v);
    return;
  }
  if (v->style == VEL_ZERO) {
    if (v->zero_rotation)
      zero_rotation(ctx, md, v->group);
    else
      zero_momentum(ctx, md, v->group);
    return;
  }
  MdAtoms *a = &md->atoms;
  const int bit = 1 << v->group;
  if (v->style == VEL_SET) {
    double value[3];
    for (int d = 0; d < 3; d++) value[d] = v->v_given[d] ? v->v[d] * velocity_unit(md, d) : 0.0;
    for (int i = 0; i < a->n_local; i++)
      if (a->group[i] & bit)
        for (int d = 0; d < 3; d++)
          if (v->v_given[d]) a->v[i][d] = v->sum ? a->v[i][d] + value[d] : value[d];
    return;
  }
  double vu = velocity_unit(md, v->vdim), cu = velocity_unit(md, v->cdim);
  double vlo = v->vlo * vu, vhi = v->vhi * vu, clo = v->clo * cu, chi = v->chi * cu;
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & bit)) continue;
    double frac = (a->x[i][v->cdim] - clo) / (chi - clo);
    frac = frac < 0.0 ? 0.0 : frac > 1.0 ? 1.0 : frac;
    double value = vlo + frac * (vhi - vlo);
    a->v[i][v->vdim] = v->sum ? a->v[i][v->vdim] + value : value;
  }
}

/* ---------------------------------------------------------------- the box */

/* Lattice spacings (LAMMPS's xlattice...): the extent of the oriented unit
 * cell along each axis; with no lattice, LAMMPS's default one (`lattice none
 * 1.0`): lattice units are box units. */
static void lattice_spacings(Md *md) {
  if (md->lattice_constant <= 0.0 && md->density > 0.0)
    md->lattice_constant = cbrt(4.0 / md->density);
  for (int d = 0; d < 3; d++) md->spacing[d] = 1.0;
  if (md->lattice_constant <= 0.0) return;
  for (int d = 0; d < 3; d++) {
    double sum = 0.0, len = 0.0;
    for (int e = 0; e < 3; e++) {
      sum += abs(md->orient[d][e]);
      len += (double)md->orient[d][e] * md->orient[d][e];
    }
    md->spacing[d] = md->lattice_constant * sum / sqrt(len);
  }
}

/* Copies of the box line up only when it holds whole lattice periods along
 * the dimension replicated (the shear slab's y does not: 7.07 periods). */
static void check_replicate(FbContext *ctx, const Md *md) {
  const char axis[3] = {'x', 'y', 'z'};
  for (int d = 0; d < 3; d++) {
    if (md->replicate[d] <= 1) continue;
    double periods = md->box_lattice[d] * md->lattice_constant / md->spacing[d];
    if (fabs(periods - round(periods)) > 1e-6 * periods)
      fb_fail(ctx, FB_EXIT_USAGE,
              "--replicate along %c: the box holds %.4g lattice periods there, not a whole "
              "number, so the copies would overlap at the seams",
              axis[d], periods);
  }
}

static void lattice_box(Md *md) {
  for (int d = 0; d < 3; d++) {
    md->boxlo[d] = 0.0;
    md->boxhi[d] = md->box_lattice[d] * md->lattice_constant * md->replicate[d];
  }
  md_initial_box(md);
  md->natoms = 4; /* fcc atoms per unit cell, times the cells: an estimate until they are made */
  for (int d = 0; d < 3; d++)
    md->natoms = (long long)((double)md->natoms * md->box_lattice[d] * md->replicate[d] + 0.5);
}

/* The masses LAMMPS would use. EAM: the potential file's (pair_coeff sets
 * them). lj/cut: the data file's Masses, else the deck's 'mass'; a deck
 * mass that contradicts the data file is an error unless mass_override. */
static void resolve_masses(FbContext *ctx, Md *md) {
  for (int t = 0; t < md->ntypes; t++) {
    double deck = md->mass_deck_given ? md->mass_deck[t] : 0.0;
    if (md->mass_deck_given > 1 && md->mass_deck_given != md->ntypes)
      fb_fail(ctx, FB_EXIT_USAGE,
              "%s: 'mass' gives %d masses for %d atom types (one, or one per type)", md->deck_path,
              md->mass_deck_given, md->ntypes);
    if (md->pot.kind == POT_EAM) {
      md->mass[t] = md->pot.file_mass[md->pot.elem_of_type[t]];
      if (deck > 0.0 && deck != md->mass[t] && !md->mass_override)
        fb_fail(ctx, FB_EXIT_USAGE,
                "%s: 'mass' %g for type %d contradicts %s's %g (EAM takes its file's masses, as "
                "LAMMPS's pair_coeff does; mass_override = true to use the deck's)",
                md->deck_path, deck, t + 1, md->pot_file, md->mass[t]);
      if (md->mass_override && deck > 0.0) md->mass[t] = deck;
      continue;
    }
    double data = md->mass_data_given ? md->mass_data[t] : 0.0;
    if (data > 0.0 && deck > 0.0 && data != deck && !md->mass_override)
      fb_fail(ctx, FB_EXIT_USAGE,
              "%s: 'mass' %g for type %d contradicts the %s (%g); "
              "mass_override = true to use the deck's",
              md->deck_path, deck, t + 1,
              md->restart_in[0] ? "restart's masses" : "data file's Masses section", data);
    md->mass[t] = md->mass_override && deck > 0.0 ? deck : data > 0.0 ? data : deck;
    if (!(md->mass[t] > 0.0))
      fb_fail(ctx, FB_EXIT_USAGE,
              "%s: no mass for atom type %d (a Masses section in the data file, or 'mass')",
              md->deck_path, t + 1);
  }
}

/* Bytes per owned atom: the per-atom arrays, their ghosts (a shell one
 * cutoff thick around the sub-box), the neighbour list (half the atoms
 * within the cutoff plus skin, 4 bytes each) and the per-thread force
 * copies. An estimate, refused when it cannot fit (exit 3, the numbers). */
#define MD_BYTES_PER_ATOM (12 * 8 + 3 * 8 + 8 + 2 * 4)
static void check_memory(FbContext *ctx, Md *md) {
  double volume = md->prd[0] * md->prd[1] * md->prd[2];
  double density = volume > 0 ? (double)md->natoms / volume : 0.0;
  double local = (double)md->natoms / ctx->size;
  double side = cbrt(volume / ctx->size),
         shell = pow(side + 2.0 * md->cutghost, 3.0) / pow(side, 3.0);
  double pairs = 0.5 * density * 4.0 / 3.0 * M_PI * pow(md->cutghost, 3.0);
  double bytes = local * (MD_BYTES_PER_ATOM * shell + 4.0 * pairs + 24.0 * ctx->threads * shell);
  if (!(bytes < 9.0e18)) bytes = 9.0e18;
  char what[160];
  snprintf(what, sizeof what, "md's %lld atoms (%.3g per rank with ghosts and lists)", md->natoms,
           local);
  fb_check_memory(ctx, (size_t)bytes, what);
}

static void setup_box(FbContext *ctx, Md *md, const char *data, size_t data_len) {
  char err[FB_MSG_LEN] = "";
  int rc = 0;
  lattice_spacings(md);
  if (md->restart_in[0])
    rc = md_restart_read(ctx, md, err, sizeof err);
  else if (md->data_file[0])
    rc = md_read_data(md, data, data_len, 0, err, sizeof err);
  else {
    md->ntypes = md->ntypes_deck ? md->ntypes_deck : 1;
    check_replicate(ctx, md);
    lattice_box(md);
  }
  fb_agree(ctx, rc, err);
  if (md->data_warnings && ctx->rank == 0 && !ctx->common.quiet)
    fprintf(stderr, "%s: warning: %s (%d such line%s in the file)\n", ctx->program,
            md->data_warning, md->data_warnings, md->data_warnings > 1 ? "s" : "");
  /* the box now (md_initial_box) was set by the reading: LAMMPS's
   * set_initial_box; a restart's is the box its run had */
  for (int d = 0; d < 3 && !md->restart_in[0]; d++) { /* a restart divides what its run did */
    md->splitlo[d] = md->frame_lo[d];
    md->splithi[d] = md->frame_hi[d];
  }
}

/* Cells the grid choice divides, for sub-boxes of at least one cell: with
 * whole = 1 cells the cutoff plus skin wide (a grid whose ghosts come from
 * the face neighbours in one hop), else cells proportional to the box, so
 * that any grid LAMMPS would run is a choice (and thinner sub-boxes take
 * more hops, md_comm_setup). MD_GRID_CELLS_PER_RANK: along the longest
 * side, cells per rank of the job, so a grid of all the ranks along one
 * side fits too. */
#define MD_GRID_CELLS_PER_RANK 64
static void grid_cells(const Md *md, int ranks, int whole, int cells[3]) {
  double longest = fmax(md->prd[0], fmax(md->prd[1], md->prd[2]));
  for (int d = 0; d < 3; d++) {
    double c = whole ? floor(md->prd[d] / md->cutghost)
                     : floor(md->prd[d] / longest * MD_GRID_CELLS_PER_RANK * ranks);
    cells[d] = c < 1.0 ? 1 : c > 1e9 ? 1000000000 : (int)c;
  }
}

/* Rank grid over the box: the given one, or the least surface among those
 * whose sub-boxes are at least the cutoff plus skin wide, or else among all. */
static void setup_decomposition(FbContext *ctx, Md *md) {
  int cells[3];
  char err[FB_MSG_LEN];
  int given = md->grid[0] && md->grid[1] && md->grid[2];
  grid_cells(md, ctx->size, 1, cells);
  if (given) memcpy(cells, md->grid, sizeof cells);
  int rc =
      fb_decomp_init(&md->decomp, ctx->comm, cells, md->grid, md->periodic, 1, err, sizeof err);
  if (rc && !given) {
    grid_cells(md, ctx->size, 0, cells);
    rc = fb_decomp_init(&md->decomp, ctx->comm, cells, md->grid, md->periodic, 1, err, sizeof err);
  }
  if (rc) fb_fail(ctx, FB_EXIT_USAGE, "option --grid: %s", err);
  md_subbox(md);
}

void md_setup(FbContext *ctx, Md *md) {
  char err[FB_MSG_LEN] = "";
  md->traj.file = md->traj.all = -1;
  size_t data_len = 0, pot_len = 0;
  char *data = md->data_file[0]
                   ? fb_read_input(ctx, "the deck's read_data", md->data_file, &data_len)
                   : NULL;
  setup_box(ctx, md, data, data_len); /* header, box, masses, Pair Coeffs */
  char *pot = md->pot.kind == POT_EAM
                  ? fb_read_input(ctx, "the deck's potential file", md->pot_file, &pot_len)
                  : NULL;
  int rc = md_potential_init(md, pot, pot_len, err, sizeof err);
  free(pot);
  if (rc) fb_fail(ctx, rc, "%s", err); /* every rank parsed the same bytes */
  if (md->pot.note[0] && ctx->rank == 0 && !ctx->common.quiet)
    fprintf(stderr, "%s: warning: %s\n", ctx->program, md->pot.note);
  resolve_masses(ctx, md);
  md->cutghost = md->pot.cut + md->skin;
  md_set_frame(md); /* the cutoff plus skin in its coordinates */
  check_memory(ctx, md);
  setup_decomposition(ctx, md);
  md_comm_setup(ctx, md);
  if (md->restart_in[0])
    rc = md_restart_read(ctx, md, err, sizeof err);
  else if (md->data_file[0]) {
    md_split_data_atoms(md);
    rc = md_read_data(md, data, data_len, 1, err, sizeof err);
  } else
    rc = create_lattice(md);
  free(data);
  if (rc == FB_EXIT_RUNTIME && !md->data_file[0] && !md->restart_in[0])
    snprintf(err, sizeof err, "out of memory creating %lld atoms", md->natoms);
  fb_agree(ctx, rc, err);
  long long total = md_count(ctx, md->atoms.n_local);
  if (total != md->natoms)
    fb_fail(ctx, FB_EXIT_RUNTIME, "created %lld atoms, expected %lld", total, md->natoms);
  if (!md->restart_in[0])
    md_groups_assign(ctx, md); /* a restart keeps its atoms' groups */
  else
    md_groups_count(ctx, md);
  char grid[32];
  fb_decomp_grid_string(&md->decomp, grid, sizeof grid);
  fb_print(ctx,
           "md_shear (fabricbench %s): %lld atoms, %d types, %s, cutoff %g + skin %g, %d ranks "
           "(%s) x %d threads\n",
           fb_version(), md->natoms, md->ntypes, md->pair_style, md->pot.cut, md->skin, ctx->size,
           grid, ctx->threads);
  char tilt[96] = "";
  if (md->triclinic)
    snprintf(tilt, sizeof tilt, " tilt %.6g %.6g %.6g", md->tilt[0], md->tilt[1], md->tilt[2]);
  fb_print(ctx, "box %.6g %.6g %.6g%s (boundary %c %c %c), units %s, dt %g, deck %s\n", md->prd[0],
           md->prd[1], md->prd[2], tilt, md->boundary[0], md->boundary[1], md->boundary[2],
           md->units.name, md->dt, md->deck_path);
}

void md_free(Md *md) {
  md_atoms_free(&md->atoms);
  free(md->tags);
  md->tags = NULL;
  md_neighbor_free(&md->neigh);
  md_potential_free(&md->pot);
  md_comm_free(md);
  md_force_free(md);
  fb_decomp_free(&md->decomp);
}
