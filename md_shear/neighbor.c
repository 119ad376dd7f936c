/* neighbor.c: binned half neighbour lists with a skin. Each pair appears
 * once in the whole job: atom i lists j when j lies "above" i in (z, y, x)
 * order. The rank owning the other atom sees the pair mirrored, so a pair
 * across ranks is computed once too (Newton's third law across ranks), and
 * bins below i's in z need not be searched at all. Before each build the
 * owned atoms are ordered by bin (md_sort_atoms). */
#include "md.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __AVX__
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* Bins are half the neighbour cutoff wide; the nb->stencil is every bin whose
 * nearest point is within the cutoff (LAMMPS's default binning). */
#define BINS_PER_CUTOFF 2

/* Rows are tested in blocks of this many slots (one AVX2 vector of
 * doubles, list_row); the per-axis arrays carry this many padding slots past the
 * last atom, far away, so a block may run past the row's end. */
#define ROW_BLOCK 4

static int bin_coord(const MdNeighbor *nb, int d, double x) {
  int c = (int)floor((x - nb->bin_lo[d]) / nb->bin_size[d]);
  return c < 0 ? 0 : c >= nb->nbins[d] ? nb->nbins[d] - 1 : c;
}

static int grow(int **p, int *cap, int need) {
  if (need <= *cap) return 0;
  int c = *cap ? *cap : 4096;
  while (c < need) c *= 2;
  int *q = realloc(*p, (size_t)c * sizeof *q);
  if (!q) return FB_EXIT_RUNTIME;
  *p = q;
  *cap = c;
  return 0;
}

static int setup_bins(Md *md, int nall) {
  MdNeighbor *nb = &md->neigh;
  int total = 1;
  double extent_lo[3], extent_hi[3]; /* the sub-box plus the ghost shell */
  md_ghost_extent(md, extent_lo, extent_hi);
  for (int d = 0; d < 3; d++) {
    double lo = extent_lo[d], hi = extent_hi[d];
    int n = (int)floor((hi - lo) / md->cutghost * BINS_PER_CUTOFF);
    if (n < 1) n = 1;
    if (n > 512) n = 512;
    nb->bin_lo[d] = lo;
    nb->bin_size[d] = (hi - lo) / n;
    nb->nbins[d] = n;
    total *= n;
  }
  nb->nbins_total = total;
  if (total + 1 > nb->bin_cap) {
    free(nb->bin_start);
    nb->bin_start = malloc((size_t)(total + 1) * sizeof *nb->bin_start);
    nb->bin_cap = nb->bin_start ? total + 1 : 0;
  }
  int cap = nall > 0 ? nall : 1; /* a rank may hold no atom and see no ghost */
  if (cap > nb->atom_cap) {
    free(nb->bin_atoms);
    free(nb->atom_bin);
    nb->bin_atoms = malloc((size_t)(cap + ROW_BLOCK) * sizeof *nb->bin_atoms);
    nb->atom_bin = malloc((size_t)cap * sizeof *nb->atom_bin);
    int ok = nb->bin_atoms && nb->atom_bin;
    for (int d = 0; d < 3; d++) {
      free(nb->bin_x[d]);
      nb->bin_x[d] = malloc((size_t)(cap + ROW_BLOCK) * sizeof *nb->bin_x[d]);
      ok = ok && nb->bin_x[d];
    }
    nb->atom_cap = ok ? cap : 0;
  }
  for (int k = nall; nb->atom_cap && k < nall + ROW_BLOCK; k++) { /* padding: never a neighbour */
    nb->bin_atoms[k] = 0;
    for (int d = 0; d < 3; d++) nb->bin_x[d][k] = INFINITY;
  }
  /* nb->stencil: bin offsets whose closest approach is under the cutoff, as
   * rows: for each (x, y) offset the z offsets 0..kmax (bins below hold no
   * atom above i; the gap grows with k, so the row is contiguous), which are
   * consecutive bins in memory */
  int reach[3];
  for (int d = 0; d < 3; d++) reach[d] = (int)ceil(md->cutghost / nb->bin_size[d]);
  free(nb->stencil);
  nb->stencil = malloc((size_t)(2 * reach[0] + 1) * (2 * reach[1] + 1) * 3 * sizeof *nb->stencil);
  if (!nb->bin_start || !nb->bin_atoms || !nb->atom_bin || !nb->bin_x[0] || !nb->bin_x[1] ||
      !nb->bin_x[2] || !nb->stencil)
    return FB_EXIT_RUNTIME;
  nb->n_stencil = 0;
  for (int i = -reach[0]; i <= reach[0]; i++)
    for (int j = -reach[1]; j <= reach[1]; j++) {
      int kmax = -1;
      for (int k = 0; k <= reach[2]; k++) {
        int o[3] = {i, j, k};
        double dsq = 0.0;
        for (int d = 0; d < 3; d++) {
          int gap = abs(o[d]) > 0 ? abs(o[d]) - 1 : 0;
          dsq += (gap * nb->bin_size[d]) * (gap * nb->bin_size[d]);
        }
        if (dsq < md->cutghost * md->cutghost) kmax = k;
      }
      if (kmax < 0) continue;
      int *row = nb->stencil + 3 * nb->n_stencil++;
      row[0] = i;
      row[1] = j;
      row[2] = kmax;
    }
  return 0;
}

/* Four doubles and four 64-bit masks (GCC/Clang vector extensions: the
 * compiler emits AVX2, or pairs of SSE2 operations without it). */
typedef double V4d __attribute__((vector_size(ROW_BLOCK * sizeof(double))));
typedef long long V4l __attribute__((vector_size(ROW_BLOCK * sizeof(long long))));

/* For each 4-bit mask of kept lanes: the kept lanes in order, and how many. */
static const unsigned char kept_lanes[16][ROW_BLOCK] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
    {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
static const unsigned char kept_count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* A block's 4-bit mask from its 64-bit lane masks, whether any lane is
 * set, and its kept indices appended at out (all four slots written). With
 * AVX: a movemask for each, and one in-register permutation of the four
 * indices by kept_lanes (the list build 30% faster than lane-by-lane
 * extraction on the Xeon VM, the same list); else lane by lane. */
static inline int lane_mask(const V4l *v) { /* by address: the same ABI with or without AVX */
#ifdef __AVX__
  return _mm256_movemask_pd((__m256d)*v);
#else
  return (int)(((*v)[0] & 1) | ((*v)[1] & 2) | ((*v)[2] & 4) | ((*v)[3] & 8));
#endif
}
static inline void append_kept(int *restrict out, const int *restrict ids, int mask) {
#ifdef __AVX__
  int lanes;
  memcpy(&lanes, kept_lanes[mask], sizeof lanes);
  const __m128i order = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(lanes));
  const __m128 kept = _mm_permutevar_ps(_mm_loadu_ps((const float *)ids), order);
  _mm_storeu_ps((float *)out, kept);
#else
  for (int l = 0; l < ROW_BLOCK; l++) out[l] = ids[kept_lanes[mask][l]];
#endif
}

/* Appends to out[count..] the neighbours of atom i at (xi, yi, zi) among
 * the slots s0..s1-1 of one nb->stencil row: atoms above i in (z, y, x) order
 * and within the cutoff. Returns the new count. Four slots at a time with
 * vector compares and no branch per candidate (a third pass, so a branch
 * would mispredict often): all four indices are written and the count
 * moves on by the kept ones. Equal positions (overlapping owned atoms,
 * rsq = 0) go by index, so the force check still sees them: a rare,
 * separate path. out needs room for ROW_BLOCK past the row. */
static int list_row(const MdNeighbor *nb, int i, double xi, double yi, double zi, int s0, int s1,
                    double cutsq, int nlocal, int *restrict out, int count) {
  const double *restrict x = nb->bin_x[0], *restrict y = nb->bin_x[1], *restrict z = nb->bin_x[2];
  const int *restrict atom = nb->bin_atoms;
  for (int b = s0; b < s1; b += ROW_BLOCK) {
    V4d xj, yj,
        zj; /* unaligned loads (no vector passed or returned: same ABI with or without AVX) */
    memcpy(&xj, x + b, sizeof xj);
    memcpy(&yj, y + b, sizeof yj);
    memcpy(&zj, z + b, sizeof zj);
    const V4d dx = xi - xj, dy = yi - yj, dz = zi - zj;
    const V4d rsq = dx * dx + dy * dy + dz * dz;
    const V4l up = (zj > zi) | ((zj == zi) & ((yj > yi) | ((yj == yi) & (xj > xi))));
    const V4l in = (rsq < cutsq) & up;
    const V4l touching = rsq == 0.0;
    int mask = lane_mask(&in);
    if (lane_mask(&touching))
      for (int l = 0; l < ROW_BLOCK; l++)
        if (dx[l] == 0 && dy[l] == 0 && dz[l] == 0 && atom[b + l] > i && atom[b + l] < nlocal)
          mask |= 1 << l;
    if (s1 - b < ROW_BLOCK) mask &= (1 << (s1 - b)) - 1; /* the block runs past the row */
    append_kept(out + count, atom + b, mask);
    count += kept_count[mask];
  }
  return count;
}

/* Lists atoms lo..hi-1 into *pairs (first[] relative to it), one nb->stencil
 * row (a run of consecutive slots) at a time. */
static int list_block(Md *md, int lo, int hi, int **pairs, int *cap, int *count_out, int nb0,
                      int nb1, int nb2) {
  const MdAtoms *a = &md->atoms;
  MdNeighbor *nb = &md->neigh;
  const double cutsq = md->cutghost * md->cutghost;
  const int nlocal = a->n_local;
  int count = 0;
  for (int i = lo; i < hi; i++) {
    const double xi = a->x[i][0], yi = a->x[i][1], zi = a->x[i][2];
    const int b = nb->atom_bin[i];
    const int c2 = b % nb2, c1 = (b / nb2) % nb1, c0 = b / (nb2 * nb1);
    nb->first[i] = count;
    for (int s = 0; s < nb->n_stencil; s++) {
      const int bx = c0 + nb->stencil[3 * s], by = c1 + nb->stencil[3 * s + 1];
      if (bx < 0 || bx >= nb0 || by < 0 || by >= nb1) continue;
      const int top = c2 + nb->stencil[3 * s + 2] < nb2 ? c2 + nb->stencil[3 * s + 2] : nb2 - 1;
      const int b0 = (bx * nb1 + by) * nb2;
      const int s0 = nb->bin_start[b0 + c2], s1 = nb->bin_start[b0 + top + 1];
      if (grow(pairs, cap, count + (s1 - s0) + ROW_BLOCK)) return 1;
      count = list_row(nb, i, xi, yi, zi, s0, s1, cutsq, nlocal, *pairs, count);
    }
    nb->len[i] = count - nb->first[i];
  }
  *count_out = count;
  return 0;
}

/* Builds the list; returns 0 or FB_EXIT_RUNTIME (memory). Atoms are
 * counting-sorted into bins with their positions copied alongside, so the
 * distance checks stream through memory. */
static int build(Md *md) {
  MdAtoms *a = &md->atoms;
  MdNeighbor *nb = &md->neigh;
  int nall = a->n_local + a->n_ghost;
  if (setup_bins(md, nall)) return FB_EXIT_RUNTIME;
  free(nb->first);
  free(nb->len);
  nb->first = malloc((size_t)(a->n_local + 1) * sizeof *nb->first);
  nb->len = malloc((size_t)(a->n_local + 1) * sizeof *nb->len);
  if (!nb->first || !nb->len) return FB_EXIT_RUNTIME;
  const int nb0 = nb->nbins[0], nb1 = nb->nbins[1], nb2 = nb->nbins[2];
  memset(nb->bin_start, 0, (size_t)(nb->nbins_total + 1) * sizeof *nb->bin_start);
  for (int i = 0; i < nall; i++) {
    int b = (bin_coord(nb, 0, a->x[i][0]) * nb1 + bin_coord(nb, 1, a->x[i][1])) * nb2 +
            bin_coord(nb, 2, a->x[i][2]);
    nb->atom_bin[i] = b;
    nb->bin_start[b + 1]++;
  }
  for (int b = 0; b < nb->nbins_total; b++) nb->bin_start[b + 1] += nb->bin_start[b];
  for (int i = 0; i < nall; i++) { /* stable: each bin lists its atoms by index */
    int slot = nb->bin_start[nb->atom_bin[i]]++;
    nb->bin_atoms[slot] = i;
    for (int d = 0; d < 3; d++) nb->bin_x[d][slot] = a->x[i][d];
  }
  for (int b = nb->nbins_total; b > 0; b--) nb->bin_start[b] = nb->bin_start[b - 1];
  nb->bin_start[0] = 0;
  const int nlocal = a->n_local;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  if (threads > MD_MAX_THREADS) threads = MD_MAX_THREADS;
  int failed = 0;
  /* each thread lists its block of atoms into its own buffer; the blocks
   * are then laid end to end */
#pragma omp parallel num_threads(threads) reduction(| : failed)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    int lo = (int)((long long)nlocal * t / threads),
        hi = (int)((long long)nlocal * (t + 1) / threads);
    failed = list_block(md, lo, hi, &nb->thread_pairs[t], &nb->thread_cap[t], &nb->thread_count[t],
                        nb0, nb1, nb2);
  }
  if (failed) return FB_EXIT_RUNTIME;
  int count = 0;
  for (int t = 0; t < threads; t++) count += nb->thread_count[t];
  if (grow(&nb->pairs, &nb->cap, count + 1)) return FB_EXIT_RUNTIME;
  for (int t = 0, base = 0; t < threads; t++) {
    int lo = (int)((long long)nlocal * t / threads),
        hi = (int)((long long)nlocal * (t + 1) / threads);
    for (int i = lo; i < hi; i++) nb->first[i] += base;
    if (nb->thread_count[t] > 0)
      memcpy(nb->pairs + base, nb->thread_pairs[t],
             (size_t)nb->thread_count[t] * sizeof *nb->pairs);
    base += nb->thread_count[t];
  }
  nb->count = count;
  for (int i = 0; i < nlocal; i++) memcpy(a->x_built[i], a->x[i], sizeof a->x[i]);
  nb->builds++;
  return 0;
}

/* ---------------------------------------------------------- the atoms' order */
typedef struct {
  long long bin, id;
  int index;
} SortKey;

static int by_key(const void *a, const void *b) {
  const SortKey *x = a, *y = b;
  if (x->bin != y->bin) return (x->bin > y->bin) - (x->bin < y->bin);
  return (x->id > y->id) - (x->id < y->id);
}

/* Keys at most this many times the atoms (plus SORT_SPARE) are sorted by
 * counting: a dense system has one or two atoms a bin; a sparse one (a
 * small cluster in a big box) by qsort, whose bins would not fit. */
#define SORT_BINS_PER_ATOM 4
#define SORT_SPARE         4096

/* keys by (bin, id). Counting by bin, then the few atoms of a bin by id
 * (insertion: the atoms keep the order of the last sort, so a bin is
 * mostly in order already): the same order as qsort by (bin, id), in time
 * linear in the atoms. The whole sort of lj_bench's 32000 atoms (keys,
 * order, moving the atoms) took 4.4 ms with qsort, 2.1 ms so, serial under
 * the threads (Xeon with AVX-512). */
static void sort_keys(SortKey *keys, int n) {
  if (n < 2) return;
  long long lo = keys[0].bin, hi = lo;
  for (int i = 1; i < n; i++) {
    lo = keys[i].bin < lo ? keys[i].bin : lo;
    hi = keys[i].bin > hi ? keys[i].bin : hi;
  }
  long long range = hi - lo + 1;
  int *start = range <= (long long)SORT_BINS_PER_ATOM * n + SORT_SPARE
                   ? calloc((size_t)range + 1, sizeof *start)
                   : NULL;
  SortKey *out = start ? malloc((size_t)n * sizeof *out + 1) : NULL;
  if (!out || fb_test_hook("md_sort_compare")) { /* sparse, or no memory: the comparison sort */
    free(out);
    free(start);
    qsort(keys, (size_t)n, sizeof *keys, by_key);
    return;
  }
  for (int i = 0; i < n; i++) start[keys[i].bin - lo + 1]++;
  for (long long b = 0; b < range; b++) start[b + 1] += start[b];
  for (int i = 0; i < n; i++) out[start[keys[i].bin - lo]++] = keys[i];
  for (int i = 1; i < n; i++) { /* by id within a bin */
    SortKey k = out[i];
    int j = i;
    for (; j > 0 && out[j - 1].bin == k.bin && out[j - 1].id > k.id; j--) out[j] = out[j - 1];
    out[j] = k;
  }
  memcpy(keys, out, (size_t)n * sizeof *keys);
  free(out);
  free(start);
}

/* Owned atoms ordered by spatial bin (half the neighbour cutoff wide, on a
 * grid fixed to the box), then id: neighbours sit close in memory, as
 * LAMMPS's atom sorting does, and the order depends only on positions and
 * ids, so a restarted run sums forces in the same order (bit for bit). */
void md_sort_atoms(Md *md) {
  MdAtoms *a = &md->atoms;
  int n = a->n_local;
  SortKey *order = malloc((size_t)n * sizeof *order + 1);
  double(*tmp)[3] = malloc((size_t)n * sizeof *tmp + 1);
  long long *ids = malloc((size_t)n * sizeof *ids + 1);
  int *ints = malloc((size_t)n * sizeof *ints + 1);
  int(*images)[3] = malloc((size_t)n * sizeof *images + 1);
  if (!order || !tmp || !ids || !ints || !images) { /* unsorted is still correct, only slower */
    free(order);
    free(tmp);
    free(ids);
    free(ints);
    free(images);
    return;
  }
  const double(*frame)[3] = md->triclinic ? a->lamda : a->x; /* (md_migrate made lamda) */
  long long nbins[3];
  double size[3];
  for (int d = 0; d < 3; d++) {
    size[d] = 0.5 * md->frame_cut[d];
    nbins[d] = (long long)(md->frame_prd[d] / size[d]) + 3;
  }
  for (int i = 0; i < n; i++) {
    long long c[3];
    for (int d = 0; d < 3; d++) {
      double u = floor((frame[i][d] - md->frame_lo[d]) / size[d]) + 1.0; /* a bin past a wall */
      c[d] = u < 0 ? 0 : u >= nbins[d] ? nbins[d] - 1 : (long long)u;
    }
    order[i].bin = (c[0] * nbins[1] + c[1]) * nbins[2] + c[2];
    order[i].id = a->id[i];
    order[i].index = i;
  }
  sort_keys(order, n);
  /* not x_built: the list build that follows every sort sets it */
  double(*fields[])[3] = {a->x, a->v, a->lamda};
  for (int f = 0; f < (md->triclinic ? 3 : 2); f++) {
    for (int i = 0; i < n; i++) memcpy(tmp[i], fields[f][order[i].index], sizeof tmp[i]);
    memcpy(fields[f], tmp, (size_t)n * sizeof *tmp);
  }
  for (int i = 0; i < n; i++) ids[i] = a->id[order[i].index];
  memcpy(a->id, ids, (size_t)n * sizeof *ids);
  for (int i = 0; i < n; i++) ints[i] = a->type[order[i].index];
  memcpy(a->type, ints, (size_t)n * sizeof *ints);
  for (int i = 0; i < n; i++) ints[i] = a->group[order[i].index];
  memcpy(a->group, ints, (size_t)n * sizeof *ints);
  for (int i = 0; i < n; i++) memcpy(images[i], a->image[order[i].index], sizeof images[i]);
  memcpy(a->image, images, (size_t)n * sizeof *images);
  free(order);
  free(tmp);
  free(ids);
  free(ints);
  free(images);
}

void md_neighbor_build(Md *md) {
  if (build(md)) {
    /* out of memory building the list: nothing sensible to continue with */
    md->neigh.count = -1;
  }
}

/* 1 when some owned atom moved more than half the skin since the build. */
int md_neighbor_check(const Md *md) {
  const MdAtoms *a = &md->atoms;
  const double trigger = 0.25 * md->skin * md->skin;
  for (int i = 0; i < a->n_local; i++) {
    double dx = a->x[i][0] - a->x_built[i][0], dy = a->x[i][1] - a->x_built[i][1],
           dz = a->x[i][2] - a->x_built[i][2];
    if (dx * dx + dy * dy + dz * dz > trigger) return 1;
  }
  return 0;
}

void md_neighbor_free(MdNeighbor *nb) {
  free(nb->first);
  free(nb->len);
  free(nb->pairs);
  free(nb->bin_start);
  free(nb->bin_atoms);
  free(nb->atom_bin);
  free(nb->stencil);
  for (int d = 0; d < 3; d++) free(nb->bin_x[d]);
  for (int t = 0; t < MD_MAX_THREADS; t++) free(nb->thread_pairs[t]);
  memset(nb, 0, sizeof *nb);
}
