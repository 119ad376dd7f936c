/* force.c: pair forces over the half list, lj/cut and EAM, with LAMMPS's
 * formulas and table lookups. Ghost forces (and EAM ghost densities) are
 * summed back to their owners by the caller's reverse communication. With
 * several threads, the first accumulates into the output itself and each
 * other thread into a copy of its own, summed in after. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Private accumulation buffers for threads 1.., others x a stride of at
 * least len doubles, kept in md. Zero whenever no loop runs: allocated
 * zeroed, and thread_sum clears what it has added, so no pass clears them
 * before a loop (a stride with room to spare, as the ghosts come and go). */
static double *thread_buffers(Md *md, int others, size_t len) {
  if (len > md->thread_stride || others > md->thread_others) {
    free(md->thread_buf);
    size_t stride = len + len / 4 + 1; /* never 0: calloc(0) may give NULL */
    md->thread_buf = calloc((size_t)others * stride, sizeof *md->thread_buf);
    md->thread_stride = md->thread_buf ? stride : 0;
    md->thread_others = md->thread_buf ? others : 0;
  }
  return md->thread_buf;
}

/* Where thread t accumulates: thread 0 into out itself (zero on entry, so
 * it ends holding what a zeroed buffer of its own would), the others into
 * their buffers. Against a buffer for thread 0 too, this leaves out a
 * clear and a sum of out's length each pass (the shear example on 1 rank x
 * 2 threads spent 0.025-0.030 s of a 0.60 s pair phase clearing and
 * summing the force copies); out's numbers are the same: 0 + b0 is b0. */
static double *thread_share(const Md *md, double *out, int t) {
  return t == 0 ? out : md->thread_buf + (size_t)(t - 1) * md->thread_stride;
}

/* Inside the parallel region, after every thread's loop (a barrier), as
 * its last work: adds the other threads' buffers into out's len doubles, in
 * thread order, split over the threads, and clears what it read. */
static void thread_sum(const Md *md, double *restrict out, size_t len) {
  double *restrict buf = md->thread_buf;
  const size_t stride = md->thread_stride;
  const int others = md->thread_others;
#pragma omp for schedule(static) nowait /* the region's end waits */
  for (size_t k = 0; k < len; k++) {
    double v = out[k];
    for (int u = 0; u < others; u++) {
      v += buf[(size_t)u * stride + k];
      buf[(size_t)u * stride + k] = 0.0;
    }
    out[k] = v;
  }
}

void md_force_free(Md *md) {
  free(md->thread_buf);
  md->thread_buf = NULL;
  md->thread_stride = 0;
  md->thread_others = 0;
  free(md->eam_len);
  free(md->eam_j);
  free(md->eam_r);
  md->eam_len = md->eam_j = NULL;
  md->eam_r = NULL;
  md->eam_atoms_cap = md->eam_pairs_cap = 0;
}

/* Room for the EAM pair cache: a count per owned atom, a slot per listed
 * pair (grown with the list, kept between steps). */
static int eam_cache_room(Md *md) {
  const int natoms = md->atoms.n_local, npairs = md->neigh.count;
  /* allocated at the first call whatever the counts: a rank may hold no
   * atom and no pair (a slab's vacuum; md refused such a run as out of
   * memory before 7 December 2026) */
  if (natoms > md->eam_atoms_cap || !md->eam_len) {
    free(md->eam_len);
    md->eam_len = malloc(((size_t)natoms + 1) * sizeof *md->eam_len);
    md->eam_atoms_cap = md->eam_len ? natoms : 0;
  }
  if (npairs > md->eam_pairs_cap || !md->eam_j || !md->eam_r) {
    free(md->eam_j);
    free(md->eam_r);
    md->eam_j = malloc(((size_t)npairs + 1) * sizeof *md->eam_j);
    md->eam_r = malloc(((size_t)npairs + 1) * sizeof *md->eam_r);
    md->eam_pairs_cap = md->eam_j && md->eam_r ? npairs : 0;
  }
  return !md->eam_len || !md->eam_j || !md->eam_r;
}

static inline int table_index(double x, double rdelta, int n, double *p) {
  double q = x * rdelta + 1.0;
  int m = (int)q;
  if (m > n - 1) m = n - 1;
  if (m < 1) m = 1;
  q -= m;
  *p = q < 1.0 ? q : 1.0;
  return m - 1;
}
/* The same for a distance under the cutoff in an r table (potential.c's
 * r_spline_table: rows from the table's end to the cutoff hold the end's
 * value), so no clamp is needed: the same row's value for every r LAMMPS's
 * clamps leave alone, the same number for those they move. Without the three
 * comparisons the shear example ran 10% faster on Ni_u3.eam and 7% on the
 * Zhou table (Xeon, medians of 10 and 8 alternations; thermo the same
 * bits, as on five more of lammps-data's files). */
static inline int r_index(double r, double rdr, double *p) {
  const double q = r * rdr + 1.0;
  const int m = (int)q;
  *p = q - m;
  return m - 1;
}

typedef struct {
  double energy, virial;
  double e_cut;     /* sum of the unshifted energy at the cutoff over the pairs inside it */
  double tensor[6]; /* the virial's xx yy zz xy xz yz (sums level SUMS_TENSOR) */
} PairSums;

/* What a pair loop sums beside the forces: nothing, the energy and scalar
 * virial (thermo steps), or the virial tensor as well
 * (a thermo column is a pressure component; the scalar is summed as it is
 * without it, so the other columns keep their bits). */
enum { SUMS_NONE, SUMS_SCALAR, SUMS_TENSOR };

/* One pair's virial tensor, as LAMMPS's f dot r (xx yy zz xy xz yz). */
static inline void tensor_add(double t[6], double dx, double dy, double dz, double fpair) {
  t[0] += dx * dx * fpair;
  t[1] += dy * dy * fpair;
  t[2] += dz * dz * fpair;
  t[3] += dx * dy * fpair;
  t[4] += dx * dz * fpair;
  t[5] += dy * dz * fpair;
}

/* One pair's force on i (into the row's running sums) and its reaction
 * on j (Newton's third law). */
static inline void pair_force(double (*restrict f)[3], int j, double dx, double dy, double dz,
                              double fpair, double fi[3]) {
  fi[0] += dx * fpair;
  fi[1] += dy * fpair;
  fi[2] += dz * fpair;
  f[j][0] -= dx * fpair;
  f[j][1] -= dy * fpair;
  f[j][2] -= dz * fpair;
}

static inline void pair_sums(PairSums *s, double energy, double virial, double e_cut,
                             const double tensor[6]) {
  s->energy += energy;
  s->virial += virial;
  s->e_cut += e_cut;
  for (int k = 0; k < 6; k++) s->tensor[k] += tensor[k];
}

/* A row of pairs is taken in chunks of PAIR_CHUNK, each in three passes:
 * the separations (scalar loads of the neighbours' positions, and their
 * coefficients), the pair arithmetic over the chunk's arrays (no load from
 * another atom, so the compiler vectorises it, divisions and roots
 * included, without gathers), then the reactions on the neighbours and
 * every sum, term by term in list order. Each pair's arithmetic is the
 * same operations as one pair at a time (no contraction: -ffp-contract=off)
 * and every sum takes its terms in the same order, so forces and thermo
 * are the same bits as the one-pass loop, which ran 20-25% slower (lj and
 * EAM, Xeon; AVX2, AVX-512 and SSE2 builds alike). An average row holds
 * about 40 pairs (in.lj, the shear example): one chunk. */
#define PAIR_CHUNK 64

/* The lj/cut loop. single_type lets the compiler keep the coefficients in
 * registers (restrict: force stores do not alias positions or tables);
 * otherwise the first pass copies each pair's coefficients beside its
 * separation. */
static inline void lj_loop(const Md *md, double (*restrict f)[3], int lo, int hi, PairSums *s,
                           int single_type, const int sums) {
  const double(*restrict x)[3] = (const double(*)[3])md->atoms.x;
  const int *restrict type = md->atoms.type;
  const MdPotential *p = &md->pot;
  const int *restrict first = md->neigh.first, *restrict len = md->neigh.len,
                      *restrict pairs = md->neigh.pairs;
  double energy = 0.0, virial = 0.0, e_cut = 0.0, tensor[6] = {0};
  double ddx[PAIR_CHUNK], ddy[PAIR_CHUNK], ddz[PAIR_CHUNK], rsq[PAIR_CHUNK], fpair[PAIR_CHUNK];
  double ev[PAIR_CHUNK], ec[PAIR_CHUNK]; /* the pair's energy and its unshifted one at the cut */
  /* lj1 lj2 lj3 lj4 offset cutsq e_at_cut, for each pair or (single_type) for all */
  double c[7][PAIR_CHUNK];
  const double one[7] = {p->lj1[0][0],    p->lj2[0][0],      p->lj3[0][0],     p->lj4[0][0],
                         p->offset[0][0], p->cutsq_ij[0][0], p->e_at_cut[0][0]};
  for (int i = lo; i < hi; i++) {
    const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
    const int ti = type[i];
    const int *restrict list = pairs + first[i];
    const int n = len[i];
    double fi[3] = {0.0, 0.0, 0.0};
    for (int k0 = 0; k0 < n; k0 += PAIR_CHUNK) {
      const int m = n - k0 < PAIR_CHUNK ? n - k0 : PAIR_CHUNK;
      for (int k = 0; k < m; k++) {
        const int j = list[k0 + k];
        ddx[k] = xi - x[j][0];
        ddy[k] = yi - x[j][1];
        ddz[k] = zi - x[j][2];
        if (!single_type) {
          const int tj = type[j];
          c[0][k] = p->lj1[ti][tj];
          c[1][k] = p->lj2[ti][tj];
          c[5][k] = p->cutsq_ij[ti][tj];
          if (sums) {
            c[2][k] = p->lj3[ti][tj];
            c[3][k] = p->lj4[ti][tj];
            c[4][k] = p->offset[ti][tj];
            c[6][k] = p->e_at_cut[ti][tj];
          }
        }
      }
#define LJ_COEFF(q, k) (single_type ? one[q] : c[q][k])
      for (int k = 0; k < m; k++) {
        rsq[k] = ddx[k] * ddx[k] + ddy[k] * ddy[k] + ddz[k] * ddz[k];
        const double r2inv = 1.0 / rsq[k], r6inv = r2inv * r2inv * r2inv;
        /* no branch on the cutoff (a third of the list lies in the skin):
         * pairs beyond it are multiplied by 0 */
        const double inside = (double)(rsq[k] < LJ_COEFF(5, k));
        fpair[k] = r6inv * (LJ_COEFF(0, k) * r6inv - LJ_COEFF(1, k)) * r2inv * inside;
        if (sums) {
          ev[k] = (r6inv * (LJ_COEFF(2, k) * r6inv - LJ_COEFF(3, k)) - LJ_COEFF(4, k)) * inside;
          ec[k] = LJ_COEFF(6, k) * inside;
        }
      }
#undef LJ_COEFF
      for (int k = 0; k < m; k++) {
        pair_force(f, list[k0 + k], ddx[k], ddy[k], ddz[k], fpair[k], fi);
        if (sums) {
          energy += ev[k];
          virial += rsq[k] * fpair[k];
          e_cut += ec[k];
          if (sums == SUMS_TENSOR) tensor_add(tensor, ddx[k], ddy[k], ddz[k], fpair[k]);
        }
      }
    }
    f[i][0] += fi[0];
    f[i][1] += fi[1];
    f[i][2] += fi[2];
  }
  pair_sums(s, energy, virial, e_cut, tensor);
}

/* Energy and virial are summed only on the steps that use them (thermo),
 * as LAMMPS's eflag and vflag do; the forces are the same either way. */
static int sums_due(const Md *md) { return md->energy_due; }
static int sums_level(const Md *md) {
  return !sums_due(md)                         ? SUMS_NONE
         : md->energy_due && md->tensor_wanted ? SUMS_TENSOR
                                               : SUMS_SCALAR;
}

/* Each loop compiled for each sums level and type count (literals). */
static void lj_pairs(Md *md, double (*f)[3], int lo, int hi, PairSums *s) {
  const int single = md->ntypes == 1;
  switch (sums_level(md)) {
  case SUMS_NONE:
    single ? lj_loop(md, f, lo, hi, s, 1, SUMS_NONE) : lj_loop(md, f, lo, hi, s, 0, SUMS_NONE);
    break;
  case SUMS_SCALAR:
    single ? lj_loop(md, f, lo, hi, s, 1, SUMS_SCALAR) : lj_loop(md, f, lo, hi, s, 0, SUMS_SCALAR);
    break;
  default:
    single ? lj_loop(md, f, lo, hi, s, 1, SUMS_TENSOR) : lj_loop(md, f, lo, hi, s, 0, SUMS_TENSOR);
  }
}

/* EAM densities over the half list. single: one element, so the density
 * each atom gives the other is the same number (computed once). The pairs
 * inside the cutoff are kept, with r, for the force pass (eam_pair_loop).
 * In chunks as the pair loops: the squared distances, their roots (a
 * vectorised pass), the pairs inside appended without a branch (a third of
 * the list lies in the skin; that branch and one root at a time took a
 * fifth of the shear example's pair time), their rows and fractions (a
 * vectorised pass), then the table lookups in list order. */
static inline void eam_density_loop(const Md *md, double *restrict rho, int lo, int hi,
                                    int single) {
  const double(*restrict x)[3] = (const double(*)[3])md->atoms.x;
  const int *restrict type = md->atoms.type;
  const MdPotential *p = &md->pot;
  const int *restrict first = md->neigh.first, *restrict len = md->neigh.len,
                      *restrict pairs = md->neigh.pairs;
  int *restrict keep_len = md->eam_len, *restrict keep_j = md->eam_j;
  double *restrict keep_r = md->eam_r;
  const double cutsq = p->cutsq, rdr = p->rdr;
  const MdSpline *restrict rhor0 = p->rhor[0][0];
  double rsq[PAIR_CHUNK], r[PAIR_CHUNK], frac[PAIR_CHUNK];
  int row[PAIR_CHUNK];
  for (int i = lo; i < hi; i++) {
    const double xi = x[i][0], yi = x[i][1], zi = x[i][2];
    const int ei = single ? 0 : p->elem_of_type[type[i]];
    const int *restrict list = pairs + first[i];
    int *restrict kj = keep_j + first[i];
    double *restrict kr = keep_r + first[i];
    const int n = len[i];
    int kept = 0;
    double rhoi = 0.0;
    for (int k0 = 0; k0 < n; k0 += PAIR_CHUNK) {
      const int m = n - k0 < PAIR_CHUNK ? n - k0 : PAIR_CHUNK;
      for (int k = 0; k < m; k++) {
        const int j = list[k0 + k];
        const double dx = xi - x[j][0], dy = yi - x[j][1], dz = zi - x[j][2];
        rsq[k] = dx * dx + dy * dy + dz * dz;
      }
      for (int k = 0; k < m; k++) r[k] = sqrt(rsq[k]);
      const int from = kept;
      for (int k = 0; k < m; k++) { /* the pairs inside, appended without a branch */
        kj[kept] = list[k0 + k];
        kr[kept] = r[k];
        kept += rsq[k] < cutsq;
      }
      for (int k = from; k < kept; k++) row[k - from] = r_index(kr[k], rdr, &frac[k - from]);
      for (int k = from; k < kept; k++) {
        const int j = kj[k];
        const double q = frac[k - from];
        const int t = row[k - from];
        if (single) {
          const double v = spline_value(rhor0[t], q);
          rhoi += v;
          rho[j] += v;
        } else {
          const int ej = p->elem_of_type[type[j]];
          rhoi += spline_value(p->rhor[ej][ei][t], q);
          rho[j] += spline_value(p->rhor[ei][ej][t], q);
        }
      }
    }
    rho[i] += rhoi;
    keep_len[i] = kept;
  }
}

static void eam_density(Md *md, double *rho, int lo, int hi) {
  if (md->pot.nelements == 1)
    eam_density_loop(md, rho, lo, hi, 1);
  else
    eam_density_loop(md, rho, lo, hi, 0);
}

/* Embedding energy and its derivative for owned atoms; linear beyond the
 * table's last density, as LAMMPS does. */
static double eam_embed(Md *md) {
  MdAtoms *a = &md->atoms;
  const MdPotential *p = &md->pot;
  double part[fb_team_rows()], e;
  memset(part, 0, sizeof part);
#pragma omp parallel
  {
    double mine = 0.0;
#pragma omp for schedule(static) nowait /* the region's end waits */
    for (int i = 0; i < a->n_local; i++) {
      const int ei = p->elem_of_type[a->type[i]];
      double q;
      int m = table_index(a->rho[i], p->rdrho, p->nrho, &q);
      a->fp[i] = spline_deriv(p->frho[ei][m], q);
      double phi = spline_value(p->frho[ei][m], q);
      if (a->rho[i] > p->rhomax) phi += a->fp[i] * (a->rho[i] - p->rhomax);
      mine += phi;
    }
    fb_team_put(part, 1, &mine);
  }
  fb_team_total(part, 1, &e);
  return e;
}

static inline void eam_pair_loop(const Md *md, double (*restrict f)[3], int lo, int hi, PairSums *s,
                                 int single, const int sums) {
  const double(*restrict x)[3] = (const double(*)[3])md->atoms.x;
  const double *restrict fp = md->atoms.fp;
  const int *restrict type = md->atoms.type;
  const MdPotential *p = &md->pot;
  const int *restrict first = md->neigh.first, *restrict kept = md->eam_len;
  const double rdr = p->rdr;
  const MdPairRow *restrict rows0 = p->pair_row[0][0];
  double energy = 0.0, virial = 0.0, tensor[6] = {0};
  double ddx[PAIR_CHUNK], ddy[PAIR_CHUNK], ddz[PAIR_CHUNK], fpair[PAIR_CHUNK], phi[PAIR_CHUNK];
  double fpj[PAIR_CHUNK];
  _Alignas(32) double look[PAIR_CHUNK][4]; /* md.h's pair_row_eval lanes */
  for (int i = lo; i < hi; i++) {
    const double xi = x[i][0], yi = x[i][1], zi = x[i][2], fpi = fp[i];
    const int ei = single ? 0 : p->elem_of_type[type[i]];
    const int *restrict list = md->eam_j + first[i];
    const double *restrict rs = md->eam_r + first[i];
    const int n = kept[i];
    double fi[3] = {0.0, 0.0, 0.0};
    for (int k0 = 0; k0 < n; k0 += PAIR_CHUNK) {
      const int m = n - k0 < PAIR_CHUNK ? n - k0 : PAIR_CHUNK;
      for (int k = 0; k < m; k++) { /* separations, the four lookups in one cubic */
        const int j = list[k0 + k];
        ddx[k] = xi - x[j][0];
        ddy[k] = yi - x[j][1];
        ddz[k] = zi - x[j][2];
        fpj[k] = fp[j];
        double q;
        const int t = r_index(rs[k0 + k], rdr, &q);
        const MdPairRow *rows = single ? rows0 : p->pair_row[ei][p->elem_of_type[type[j]]];
        pair_row_eval(rows[t], q, look[k]);
      }
      for (int k = 0; k < m; k++) {
        const double recip = 1.0 / rs[k0 + k];
        phi[k] = look[k][3] * recip;
        const double phip = look[k][2] * recip - phi[k] * recip;
        const double psip = fpi * look[k][1] + fpj[k] * look[k][0] + phip;
        fpair[k] = -psip * recip;
      }
      for (int k = 0; k < m; k++) {
        pair_force(f, list[k0 + k], ddx[k], ddy[k], ddz[k], fpair[k], fi);
        if (sums) {
          energy += phi[k];
          const double rsq = ddx[k] * ddx[k] + ddy[k] * ddy[k] + ddz[k] * ddz[k];
          virial += rsq * fpair[k];
          if (sums == SUMS_TENSOR) tensor_add(tensor, ddx[k], ddy[k], ddz[k], fpair[k]);
        }
      }
    }
    f[i][0] += fi[0];
    f[i][1] += fi[1];
    f[i][2] += fi[2];
  }
  pair_sums(s, energy, virial, 0.0, tensor);
}

static void eam_pairs(Md *md, double (*f)[3], int lo, int hi, PairSums *s) {
  const int single = md->pot.nelements == 1;
  switch (sums_level(md)) {
  case SUMS_NONE:
    single ? eam_pair_loop(md, f, lo, hi, s, 1, SUMS_NONE)
           : eam_pair_loop(md, f, lo, hi, s, 0, SUMS_NONE);
    break;
  case SUMS_SCALAR:
    single ? eam_pair_loop(md, f, lo, hi, s, 1, SUMS_SCALAR)
           : eam_pair_loop(md, f, lo, hi, s, 0, SUMS_SCALAR);
    break;
  default:
    single ? eam_pair_loop(md, f, lo, hi, s, 1, SUMS_TENSOR)
           : eam_pair_loop(md, f, lo, hi, s, 0, SUMS_TENSOR);
  }
}

/* Runs a pair loop over the owned atoms on every thread (out zero on
 * entry; see thread_share), then sums the threads' forces into out. */
typedef void (*PairLoop)(Md *, double (*)[3], int, int, PairSums *);

static int threaded(Md *md, PairLoop loop, double (*out)[3], PairSums *sums) {
  int nall = md->atoms.n_local + md->atoms.n_ghost, nloc = md->atoms.n_local;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  if (threads == 1) {
    loop(md, out, 0, nloc, sums);
    return 0;
  }
  const size_t len = (size_t)nall * 3;
  if (!thread_buffers(md, threads - 1, len)) return FB_EXIT_RUNTIME;
  enum { ENERGY, VIRIAL, E_CUT, TENSOR, NSUMS = TENSOR + 6 };
  double part[fb_team_rows() * NSUMS], total[NSUMS];
  memset(part, 0, sizeof part);
#pragma omp parallel
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    double(*mine)[3] = (double(*)[3])thread_share(md, &out[0][0], t);
    int lo = (int)((long long)nloc * t / threads), hi = (int)((long long)nloc * (t + 1) / threads);
    PairSums s = {0, 0, 0, {0}};
    loop(md, mine, lo, hi, &s);
    double row[NSUMS] = {[ENERGY] = s.energy, [VIRIAL] = s.virial, [E_CUT] = s.e_cut};
    memcpy(row + TENSOR, s.tensor, sizeof s.tensor);
    fb_team_put(part, NSUMS, row);
#pragma omp barrier
    thread_sum(md, &out[0][0], len);
  }
  fb_team_total(part, NSUMS, total);
  sums->energy += total[ENERGY];
  sums->virial += total[VIRIAL];
  sums->e_cut += total[E_CUT];
  for (int k = 0; k < 6; k++) sums->tensor[k] += total[TENSOR + k];
  return 0;
}

/* EAM densities through the same sharing, one value per atom. */
static int eam_densities(Md *md) {
  MdAtoms *a = &md->atoms;
  int nall = a->n_local + a->n_ghost, threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  memset(a->rho, 0, (size_t)nall * sizeof *a->rho);
  if (eam_cache_room(md)) return FB_EXIT_RUNTIME;
  if (threads == 1) {
    eam_density(md, a->rho, 0, a->n_local);
    return 0;
  }
  if (!thread_buffers(md, threads - 1, (size_t)nall)) return FB_EXIT_RUNTIME;
#pragma omp parallel
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    double *mine = thread_share(md, a->rho, t);
    int lo = (int)((long long)a->n_local * t / threads),
        hi = (int)((long long)a->n_local * (t + 1) / threads);
    eam_density(md, mine, lo, hi);
#pragma omp barrier
    thread_sum(md, a->rho, (size_t)nall);
  }
  return 0;
}

/* After a rebuild's forces: a force that is not a number stops the run
 * (exit 3 on every rank), naming the closest listed pair. Only atoms at the
 * same place (1/r at r = 0), or so close that 1/r^12 overflows, give one;
 * atoms merely close run on, as LAMMPS runs them: the next steps throw
 * them apart and the end's checks say what became of them (LAMMPS: "Lost
 * atoms"). Before the reverse exchange, owned and ghost slots: a rank with a
 * bad force computed the pair itself, so its closest pair is the one. */
static void finite_force_check(FbContext *ctx, Md *md) {
  const MdAtoms *a = &md->atoms;
  const int nall = a->n_local + a->n_ghost;
  int bad = 0;
  for (int i = 0; i < nall && !bad; i++)
    bad = !(isfinite(a->f[i][0]) && isfinite(a->f[i][1]) && isfinite(a->f[i][2]));
  char msg[FB_MSG_LEN] = "";
  if (bad) {
    double min_rsq = INFINITY;
    int pi = -1, pj = -1;
    for (int i = 0; i < a->n_local; i++)
      for (int k = 0; k < md->neigh.len[i]; k++) {
        int j = md->neigh.pairs[md->neigh.first[i] + k];
        double dx = a->x[i][0] - a->x[j][0], dy = a->x[i][1] - a->x[j][1],
               dz = a->x[i][2] - a->x[j][2];
        double rsq = dx * dx + dy * dy + dz * dz;
        if (pi < 0 || rsq < min_rsq) min_rsq = rsq, pi = i, pj = j;
      }
    if (pi >= 0)
      snprintf(msg, sizeof msg,
               "atoms %lld and %lld are %.3g apart at step %lld: their force is not a number "
               "(atoms at the same place, or all but)",
               md_tag(md, a->id[pi]), md_tag(md, a->id[pj]), sqrt(min_rsq), md->total_steps);
    else
      snprintf(msg, sizeof msg, "a force is not a number at step %lld", md->total_steps);
  }
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, msg);
}

/* Per-atom potential energy (LAMMPS's compute pe/atom): half of each pair's
 * energy to each atom, plus the embedding energy for EAM, on the steps that
 * dump it; a plain pass over the list, apart from the force loops. */
static void peratom_energy(FbContext *ctx, Md *md) {
  MdAtoms *a = &md->atoms;
  const MdPotential *p = &md->pot;
  int nall = a->n_local + a->n_ghost;
  memset(a->eatom, 0, (size_t)nall * sizeof *a->eatom);
  for (int i = 0; i < a->n_local; i++) {
    const int ti = a->type[i], ei = p->elem_of_type[ti];
    if (p->kind == POT_EAM) {
      double q;
      int m = table_index(a->rho[i], p->rdrho, p->nrho, &q);
      double phi = spline_value(p->frho[ei][m], q);
      if (a->rho[i] > p->rhomax) phi += a->fp[i] * (a->rho[i] - p->rhomax);
      a->eatom[i] += phi;
    }
    for (int k = 0; k < md->neigh.len[i]; k++) {
      const int j = md->neigh.pairs[md->neigh.first[i] + k], tj = a->type[j];
      double dx = a->x[i][0] - a->x[j][0], dy = a->x[i][1] - a->x[j][1],
             dz = a->x[i][2] - a->x[j][2];
      double rsq = dx * dx + dy * dy + dz * dz, e;
      if (rsq >= p->cutsq_ij[ti][tj]) continue;
      if (p->kind == POT_LJ) {
        double r6inv = 1.0 / (rsq * rsq * rsq);
        e = r6inv * (p->lj3[ti][tj] * r6inv - p->lj4[ti][tj]) - p->offset[ti][tj];
      } else {
        double q, r = sqrt(rsq);
        int m = table_index(r, p->rdr, p->nr, &q);
        e = spline_value(p->z2r[ei][p->elem_of_type[tj]][m], q) / r;
      }
      a->eatom[i] += 0.5 * e;
      a->eatom[j] += 0.5 * e;
    }
  }
  md_reverse_scalar(ctx, md, a->eatom);
}

void md_force(FbContext *ctx, Md *md) {
  MdAtoms *a = &md->atoms;
  int nall = a->n_local + a->n_ghost;
  PairSums s = {0.0, 0.0, 0.0, {0}};
  int rc = 0;
  fb_timer_start(&ctx->timers, PH_PAIR);
  memset(a->f, 0, (size_t)nall * sizeof *a->f);
  if (md->pot.kind == POT_LJ) {
    rc = threaded(md, lj_pairs, a->f, &s);
  } else {
    rc = eam_densities(md);
    fb_timer_stop(&ctx->timers, PH_PAIR);
    md_reverse_scalar(ctx, md, a->rho); /* ghost densities to their owners */
    fb_timer_start(&ctx->timers, PH_PAIR);
    s.energy = eam_embed(md);
    fb_timer_stop(&ctx->timers, PH_PAIR);
    md_forward_scalar(ctx, md, a->fp); /* the second exchange of the step */
    fb_timer_start(&ctx->timers, PH_PAIR);
    if (!rc) rc = threaded(md, eam_pairs, a->f, &s);
  }
  fb_timer_stop(&ctx->timers, PH_PAIR);
  if (rc)
    fb_abort(ctx, FB_EXIT_RUNTIME,
             "out of memory for the force buffers (per thread, and the EAM pairs)");
  /* not summed on this step: NaN, so a use would show (thermo sets energy_due) */
  md->e_pair = sums_due(md) ? s.energy : NAN;
  md->virial = sums_due(md) ? s.virial : NAN;
  md->e_cut = sums_due(md) ? s.e_cut : NAN;
  for (int k = 0; k < 6; k++)
    md->virial_tensor[k] = sums_level(md) == SUMS_TENSOR ? s.tensor[k] : NAN;
  if (md->check_forces) finite_force_check(ctx, md);
  md_reverse_f(ctx, md);
  if (md->peratom_due) peratom_energy(ctx, md);
}
