/* setup.c: the box, the decomposition, the atoms (an oriented fcc lattice,
 * a LAMMPS data file or a restart), the shear groups and the velocities. */
#include "md.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int md_atoms_reserve(MdAtoms *a, int n) {
  if (n <= a->cap) return 0;
  int cap = a->cap ? a->cap : 1024;
  while (cap < n) cap *= 2;
#define GROW(field, count)                                                          \
  do {                                                                              \
    void *p_ = realloc(a->field, (size_t)cap * (count) * sizeof *a->field);         \
    if (!p_) return FB_EXIT_RUNTIME;                                                \
    a->field = p_;                                                                  \
  } while (0)
  GROW(x, 1); GROW(v, 1); GROW(f, 1); GROW(x_built, 1);
  GROW(rho, 1); GROW(fp, 1); GROW(id, 1); GROW(type, 1); GROW(group, 1);
#undef GROW
  a->cap = cap;
  return 0;
}

typedef struct {
  long long bin, id;
  int index;
} SortKey;

static int by_key(const void *a, const void *b) {
  const SortKey *x = a, *y = b;
  if (x->bin != y->bin) return (x->bin > y->bin) - (x->bin < y->bin);
  return (x->id > y->id) - (x->id < y->id);
}

/* Owned atoms ordered by spatial bin (half the neighbour cutoff wide, on a
 * grid fixed to the box), then id: neighbours sit close in memory, as
 * LAMMPS's atom sorting does, and the order depends only on positions and
 * ids, so a restarted run sums forces in the same order (bit for bit). */
void md_sort_atoms(Md *md) {
  MdAtoms *a = &md->atoms;
  int n = a->n_local;
  SortKey *order = malloc((size_t)n * sizeof *order + 1);
  double (*tmp)[3] = malloc((size_t)n * sizeof *tmp + 1);
  long long *ids = malloc((size_t)n * sizeof *ids + 1);
  int *ints = malloc((size_t)n * sizeof *ints + 1);
  if (!order || !tmp || !ids || !ints) { /* unsorted is still correct, only slower */
    free(order); free(tmp); free(ids); free(ints);
    return;
  }
  long long nbins[3];
  double size = 0.5 * md->cutghost;
  for (int d = 0; d < 3; d++) nbins[d] = (long long)(md->prd[d] / size) + 3;
  for (int i = 0; i < n; i++) {
    long long c[3];
    for (int d = 0; d < 3; d++) {
      double u = floor((a->x[i][d] - md->boxlo[d]) / size) + 1.0; /* one bin of room past a wall */
      c[d] = u < 0 ? 0 : u >= nbins[d] ? nbins[d] - 1 : (long long)u;
    }
    order[i].bin = (c[0] * nbins[1] + c[1]) * nbins[2] + c[2];
    order[i].id = a->id[i];
    order[i].index = i;
  }
  qsort(order, (size_t)n, sizeof *order, by_key);
  double (*fields[])[3] = {a->x, a->v, a->x_built};
  for (int f = 0; f < 3; f++) {
    for (int i = 0; i < n; i++) memcpy(tmp[i], fields[f][order[i].index], sizeof tmp[i]);
    memcpy(fields[f], tmp, (size_t)n * sizeof *tmp);
  }
  for (int i = 0; i < n; i++) ids[i] = a->id[order[i].index];
  memcpy(a->id, ids, (size_t)n * sizeof *ids);
  for (int i = 0; i < n; i++) ints[i] = a->type[order[i].index];
  memcpy(a->type, ints, (size_t)n * sizeof *ints);
  for (int i = 0; i < n; i++) ints[i] = a->group[order[i].index];
  memcpy(a->group, ints, (size_t)n * sizeof *ints);
  free(order); free(tmp); free(ids); free(ints);
}

/* The rank coordinate owning position x along d: edge ranks keep atoms
 * that wander past a non-periodic wall. */
static int owner_coord(const Md *md, int d, double x) {
  int p = md->decomp.dims[d];
  int c = (int)floor((x - md->boxlo[d]) / md->prd[d] * p);
  return c < 0 ? 0 : c >= p ? p - 1 : c;
}

static int is_mine(const Md *md, const double x[3]) {
  for (int d = 0; d < 3; d++)
    if (owner_coord(md, d, x[d]) != md->decomp.coords[d]) return 0;
  return 1;
}

static int add_atom(Md *md, long long id, int type, const double x[3], const double v[3]) {
  MdAtoms *a = &md->atoms;
  if (md_atoms_reserve(a, a->n_local + 1)) return FB_EXIT_RUNTIME;
  int i = a->n_local++;
  memcpy(a->x[i], x, sizeof a->x[i]);
  memcpy(a->v[i], v, sizeof a->v[i]);
  a->id[i] = id;
  a->type[i] = type;
  a->group[i] = MD_MOBILE;
  return 0;
}

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
  for (int i = -m; i <= m; i++)
    for (int j = -m; j <= m; j++)
      for (int k = -m; k <= m; k++)
        for (int b = 0; b < 4; b++) {
          double c[3] = {(i + basis[b][0] + md->origin[0]) * a, (j + basis[b][1] + md->origin[1]) * a,
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
            if (!p) { free(pts); return FB_EXIT_RUNTIME; }
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
          for (int d = 0; d < 3; d++) x[d] = pts[3 * p + d] + r[d] * md->box_lattice[d] * md->lattice_constant;
          if (is_mine(md, x) && add_atom(md, copy * nbase + p + 1, 0, x, zero)) {
            free(pts);
            return FB_EXIT_RUNTIME;
          }
        }
  md->natoms = nbase * copy;
  free(pts);
  return 0;
}

/* ------------------------------------------------------ LAMMPS data files */

typedef struct {
  FILE *f;
  const char *path;
  int line;
  char buf[1024];
} DataReader;

/* Next non-blank line with its comment removed; 0 at end of file. */
static int data_line(DataReader *r) {
  while (fgets(r->buf, sizeof r->buf, r->f)) {
    r->line++;
    char *hash = strchr(r->buf, '#');
    if (hash) *hash = '\0';
    char *p = r->buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (*p) return 1;
  }
  return 0;
}

#define DATA_FAIL(...) do { snprintf(err, len, __VA_ARGS__); goto out; } while (0)

/* Reads header and box; on the second pass (keep = 1) the atoms this rank
 * owns, their velocities and the masses. */
static int read_data(Md *md, int keep, char *err, size_t len) {
  DataReader r = {fopen(md->data_file, "r"), md->data_file, 0, ""};
  if (!r.f) {
    snprintf(err, len, "%s: cannot read: %s", md->data_file, strerror(errno));
    return FB_EXIT_USAGE;
  }
  int rc = FB_EXIT_USAGE, have_box = 0, ntypes = 0;
  long long natoms = -1;
  char *seen = NULL;
  double *vel = NULL;
  long long *slot = NULL;
  if (!fgets(r.buf, sizeof r.buf, r.f)) DATA_FAIL("%s: empty file", r.path);
  r.line = 1;
  int more = data_line(&r);
  for (; more; more = data_line(&r)) { /* header */
    double a, b;
    long long n;
    char word[64], word2[64];
    if (sscanf(r.buf, "%lld %63s %63s", &n, word, word2) == 3 && !strcmp(word, "atom") && !strcmp(word2, "types"))
      ntypes = (int)n;
    else if (sscanf(r.buf, "%lld %63s", &n, word) == 2 && !strcmp(word, "atoms"))
      natoms = n;
    else if (sscanf(r.buf, "%lf %lf %63s %63s", &a, &b, word, word2) == 4 && word[0] >= 'x' && word[0] <= 'z' &&
             !strcmp(word + 1, "lo") && word2[0] == word[0] && !strcmp(word2 + 1, "hi")) {
      int d = word[0] - 'x';
      if (!(b > a)) DATA_FAIL("%s:%d: %shi must be above %slo", r.path, r.line, word, word);
      md->boxlo[d] = a;
      md->boxhi[d] = b;
      have_box |= 1 << d;
    } else if (strstr(r.buf, "xy") && strstr(r.buf, "xz"))
      DATA_FAIL("%s:%d: triclinic boxes are not supported (orthogonal boxes only)", r.path, r.line);
    else if (isalpha((unsigned char)r.buf[strspn(r.buf, " \t")]))
      break; /* a section */
    else if (sscanf(r.buf, "%lld %63s", &n, word) == 2 && (!strcmp(word, "bonds") || !strcmp(word, "angles") ||
                                                           !strcmp(word, "dihedrals") || !strcmp(word, "impropers"))) {
      if (n) DATA_FAIL("%s:%d: molecular topology is not supported (atom_style atomic)", r.path, r.line);
    } else if (!strstr(r.buf, "types"))
      DATA_FAIL("%s:%d: not a LAMMPS data header line", r.path, r.line);
  }
  if (natoms < 1) DATA_FAIL("%s: no 'N atoms' line in the header", r.path);
  if (have_box != 7) DATA_FAIL("%s: the header lacks xlo xhi, ylo yhi or zlo zhi", r.path);
  if (ntypes < 1 || ntypes > MD_MAX_TYPES) DATA_FAIL("%s: 'atom types' must be 1 to %d", r.path, MD_MAX_TYPES);
  if (natoms > 2000000000LL) DATA_FAIL("%s: %lld atoms is too many", r.path, natoms);
  md->natoms = natoms;
  if (ntypes > md->ntypes) md->ntypes = ntypes;
  for (int d = 0; d < 3; d++) md->prd[d] = md->boxhi[d] - md->boxlo[d];
  if (!keep) { rc = 0; goto out; }

  seen = calloc((size_t)natoms + 1, 1);
  slot = malloc(((size_t)natoms + 1) * sizeof *slot);
  if (!seen || !slot) { rc = FB_EXIT_RUNTIME; DATA_FAIL("out of memory reading %s", r.path); }
  int have_atoms = 0;
  while (more) {
    char section[64];
    sscanf(r.buf, "%63s", section);
    if (!strcmp(section, "Masses")) {
      for (int t = 0; t < ntypes; t++) {
        int type;
        double m;
        if (!data_line(&r) || sscanf(r.buf, "%d %lf", &type, &m) != 2 || type < 1 || type > ntypes || !(m > 0))
          DATA_FAIL("%s:%d: expected 'type mass' for %d types in Masses", r.path, r.line, ntypes);
        if (md->mass[type - 1] == 0.0) md->mass[type - 1] = m;
      }
      more = data_line(&r);
    } else if (!strcmp(section, "Atoms")) {
      const double zero[3] = {0, 0, 0};
      for (long long k = 0; k < natoms; k++) {
        long long id;
        int type;
        double x[3];
        if (!data_line(&r))
          DATA_FAIL("%s: truncated: the Atoms section ends after %lld of %lld atoms", r.path, k, natoms);
        if (sscanf(r.buf, "%lld %d %lf %lf %lf", &id, &type, &x[0], &x[1], &x[2]) != 5)
          DATA_FAIL("%s:%d: expected 'id type x y z' (atom_style atomic)", r.path, r.line);
        if (id < 1 || id > natoms) DATA_FAIL("%s:%d: atom id %lld is outside 1..%lld", r.path, r.line, id, natoms);
        if (seen[id]) DATA_FAIL("%s:%d: atom id %lld appears twice", r.path, r.line, id);
        if (type < 1 || type > ntypes) DATA_FAIL("%s:%d: atom type %d is outside 1..%d", r.path, r.line, type, ntypes);
        for (int d = 0; d < 3; d++)
          if (!isfinite(x[d]) || x[d] < md->boxlo[d] || x[d] > md->boxhi[d] ||
              (md->periodic[d] && x[d] == md->boxhi[d]))
            DATA_FAIL("%s:%d: atom %lld at (%g, %g, %g) is outside the box", r.path, r.line, id, x[0], x[1], x[2]);
        seen[id] = 1;
        slot[id] = -1;
        if (is_mine(md, x)) {
          slot[id] = md->atoms.n_local;
          if (add_atom(md, id, type - 1, x, zero)) { rc = FB_EXIT_RUNTIME; DATA_FAIL("out of memory reading %s", r.path); }
        }
      }
      have_atoms = 1;
      more = data_line(&r);
      if (more && !isalpha((unsigned char)r.buf[strspn(r.buf, " \t")]))
        DATA_FAIL("%s:%d: more atoms than the %lld the header declares", r.path, r.line, natoms);
    } else if (!strcmp(section, "Velocities")) {
      if (!have_atoms) DATA_FAIL("%s:%d: Velocities before Atoms", r.path, r.line);
      for (long long k = 0; k < natoms; k++) {
        long long id;
        double v[3];
        if (!data_line(&r) || sscanf(r.buf, "%lld %lf %lf %lf", &id, &v[0], &v[1], &v[2]) != 4)
          DATA_FAIL("%s:%d: truncated or malformed Velocities section (%lld of %lld)", r.path, r.line, k, natoms);
        if (id < 1 || id > natoms || !seen[id]) DATA_FAIL("%s:%d: velocity for unknown atom %lld", r.path, r.line, id);
        if (slot[id] >= 0) memcpy(md->atoms.v[slot[id]], v, sizeof v);
      }
      md->have_velocities = 1;
      more = data_line(&r);
    } else if (!strcmp(section, "Pair") || !strcmp(section, "PairIJ")) {
      /* coefficients come from the deck: skip to the next section */
      while ((more = data_line(&r)) && !isalpha((unsigned char)r.buf[strspn(r.buf, " \t")])) {}
    } else {
      DATA_FAIL("%s:%d: unsupported section '%s'", r.path, r.line, section);
    }
  }
  if (!have_atoms) DATA_FAIL("%s: no Atoms section", r.path);
  for (int t = 0; t < md->ntypes; t++)
    if (md->mass[t] == 0.0 && md->pot.kind == POT_LJ) DATA_FAIL("%s: no mass for type %d (Masses section or deck 'mass')", r.path, t + 1);
  rc = 0;
out:
  free(seen);
  free(vel);
  free(slot);
  fclose(r.f);
  return rc;
}

/* --------------------------------------------------------------- velocities */

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return ((double)(splitmix(s) >> 11) + 0.5) * 0x1.0p-53; }

/* Gaussian velocities from a generator seeded by (seed, atom id), so the
 * same atoms get the same velocities on any number of ranks; then the
 * group's momentum is removed and its temperature set exactly. */
static void create_velocities(FbContext *ctx, Md *md, int group) {
  MdAtoms *a = &md->atoms;
  const double kT = md->units.boltz * md->temperature / md->units.mvv2e;
  double sums[4] = {0, 0, 0, 0}; /* momentum, mass */
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & group)) continue;
    uint64_t s = (uint64_t)md->seed * 0x100000001B3ULL ^ (uint64_t)a->id[i];
    double m = md->mass[a->type[i]], sd = sqrt(kT / m);
    for (int d = 0; d < 3; d += 2) {
      double u1 = uniform01(&s), u2 = uniform01(&s), r = sqrt(-2.0 * log(u1));
      a->v[i][d] = sd * r * cos(2.0 * M_PI * u2);
      if (d == 0) a->v[i][1] = sd * r * sin(2.0 * M_PI * u2);
    }
    for (int d = 0; d < 3; d++) sums[d] += m * a->v[i][d];
    sums[3] += m;
  }
  md_sum_exact(ctx, sums, 4);
  for (int i = 0; i < a->n_local; i++)
    if (a->group[i] & group)
      for (int d = 0; d < 3; d++) a->v[i][d] -= sums[d] / sums[3];
  double t = md_temperature(ctx, md, NULL);
  double scale = t > 0.0 ? sqrt(md->temperature / t) : 0.0;
  for (int i = 0; i < a->n_local; i++)
    if (a->group[i] & group)
      for (int d = 0; d < 3; d++) a->v[i][d] *= scale;
}

/* The shear example's regions: walls by height, in oriented lattice units. */
static void assign_groups(FbContext *ctx, Md *md) {
  MdAtoms *a = &md->atoms;
  long long mobile = 0;
  for (int i = 0; i < a->n_local; i++) {
    double y = a->x[i][1];
    a->group[i] = MD_MOBILE;
    if (!md->shear) continue;
    if (y <= md->lower_wall * md->spacing[1]) { a->group[i] = MD_LOWER; a->type[i] = 1; }
    else if (y >= md->upper_wall * md->spacing[1]) { a->group[i] = MD_UPPER; a->type[i] = 2; }
    mobile += a->group[i] == MD_MOBILE;
  }
  md->nmobile = md->shear ? md_count(ctx, mobile) : md->natoms;
}

/* --------------------------------------------------------------------- setup */

static void setup_box(FbContext *ctx, Md *md) {
  char err[FB_MSG_LEN];
  if (md->data_file[0]) {
    int rc = read_data(md, 0, err, sizeof err);
    if (rc) fb_fail(ctx, rc, "%s", err);
  } else if (!md->restart_in[0]) {
    if (md->lattice_constant <= 0.0) md->lattice_constant = cbrt(4.0 / md->density);
    for (int d = 0; d < 3; d++) {
      double sum = 0.0, len = 0.0;
      for (int e = 0; e < 3; e++) { sum += abs(md->orient[d][e]); len += (double)md->orient[d][e] * md->orient[d][e]; }
      md->spacing[d] = md->lattice_constant * sum / sqrt(len);
      md->boxlo[d] = 0.0;
      md->boxhi[d] = md->box_lattice[d] * md->lattice_constant * md->replicate[d];
      md->prd[d] = md->boxhi[d];
    }
  } else {
    int rc = md_restart_read(ctx, md, err, sizeof err);
    if (rc) fb_fail(ctx, rc, "%s", err);
  }
}

/* Rank grid over the box: every sub-box at least the ghost cutoff wide, so
 * ghosts come from the six face neighbours in one hop. */
static void setup_decomposition(FbContext *ctx, Md *md) {
  int cells[3];
  const char axis[3] = {'x', 'y', 'z'};
  for (int d = 0; d < 3; d++) {
    cells[d] = (int)floor(md->prd[d] / md->cutghost);
    if (cells[d] < 1 && md->periodic[d])
      fb_fail(ctx, FB_EXIT_USAGE, "the box is %.4g long along periodic %c, under the cutoff plus skin (%.4g)",
              md->prd[d], axis[d], md->cutghost);
    if (cells[d] < 1) cells[d] = 1;
  }
  for (int d = 0; d < 3; d++)
    if (md->grid[d] > cells[d] && md->grid[d] > 1)
      fb_fail(ctx, FB_EXIT_USAGE,
              "process grid %dx%dx%d: the box is %.4g long along %c, %.4g per rank, under the cutoff "
              "plus skin (%.4g)", md->grid[0], md->grid[1], md->grid[2], md->prd[d], axis[d],
              md->prd[d] / md->grid[d], md->cutghost);
  char err[FB_MSG_LEN];
  if (fb_decomp_init(&md->decomp, ctx->comm, cells, md->grid, md->periodic, 1, err, sizeof err)) {
    if (md->grid[0] && md->grid[1] && md->grid[2]) fb_fail(ctx, FB_EXIT_USAGE, "option --grid: %s", err);
    fb_fail(ctx, FB_EXIT_USAGE,
            "box %.4g x %.4g x %.4g too small for %d ranks: no process grid gives every rank the "
            "cutoff plus skin (%.4g) along each dimension",
            md->prd[0], md->prd[1], md->prd[2], ctx->size, md->cutghost);
  }
  for (int d = 0; d < 3; d++) {
    int p = md->decomp.dims[d], c = md->decomp.coords[d];
    md->sublo[d] = md->boxlo[d] + md->prd[d] * c / p;
    md->subhi[d] = c == p - 1 ? md->boxhi[d] : md->boxlo[d] + md->prd[d] * (c + 1) / p;
  }
}

void md_setup(FbContext *ctx, Md *md) {
  char err[FB_MSG_LEN];
  int rc = md_potential_init(md, err, sizeof err);
  if (rc) fb_fail(ctx, rc, "%s", err);
  md->cutghost = md->pot.cut + md->skin;
  setup_box(ctx, md);
  setup_decomposition(ctx, md);
  if (md->restart_in[0]) rc = md_restart_read(ctx, md, err, sizeof err);
  else if (md->data_file[0]) rc = read_data(md, 1, err, sizeof err);
  else rc = create_lattice(md);
  if (rc == FB_EXIT_USAGE) fb_fail(ctx, rc, "%s", err); /* every rank read the same file */
  if (rc == FB_EXIT_RUNTIME && !md->data_file[0] && !md->restart_in[0])
    snprintf(err, sizeof err, "out of memory creating %lld atoms", md->natoms);
  fb_agree(ctx, rc, err);
  for (int t = 0; t < md->ntypes; t++)
    if (!(md->mass[t] > 0.0)) fb_fail(ctx, FB_EXIT_USAGE, "%s: no mass for type %d (deck 'mass')", md->deck_path, t + 1);
  long long total = md_count(ctx, md->atoms.n_local);
  if (total != md->natoms)
    fb_fail(ctx, FB_EXIT_RUNTIME, "created %lld atoms, expected %lld", total, md->natoms);
  if (!md->restart_in[0]) {
    assign_groups(ctx, md);
    if (md->temperature > 0.0 && !md->have_velocities) create_velocities(ctx, md, MD_MOBILE);
  } else {
    md->nmobile = md_count(ctx, 0);
    long long mobile = 0;
    for (int i = 0; i < md->atoms.n_local; i++) mobile += md->atoms.group[i] == MD_MOBILE;
    md->nmobile = md_count(ctx, mobile);
  }
  md_comm_setup(ctx, md);
  char grid[32];
  fb_decomp_grid_string(&md->decomp, grid, sizeof grid);
  fb_print(ctx, "md_shear (fabricbench %s): %lld atoms, %s, cutoff %g + skin %g, %d ranks (%s) x %d threads\n",
           fb_version(), md->natoms, md->pair_style, md->pot.cut, md->skin, ctx->size, grid, ctx->threads);
  fb_print(ctx, "box %.6g %.6g %.6g (periodic %d %d %d), units %s, dt %g, deck %s\n", md->prd[0], md->prd[1],
           md->prd[2], md->periodic[0], md->periodic[1], md->periodic[2], md->units.name, md->dt, md->deck_path);
}

void md_free(Md *md) {
  MdAtoms *a = &md->atoms;
  free(a->x); free(a->v); free(a->f); free(a->x_built); free(a->rho); free(a->fp);
  free(a->id); free(a->type); free(a->group);
  for (int s = 0; s < 6; s++) free(md->swap[s].send_list);
  md_neighbor_free(&md->neigh);
  md_potential_free(&md->pot);
  fb_decomp_free(&md->decomp);
}
