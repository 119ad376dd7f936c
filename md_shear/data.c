/* data.c: the atom store (growth, ownership, adding an atom) and the reader
 * of LAMMPS data files (atom_style atomic, orthogonal box). No MPI: every
 * rank reads the file and keeps the atoms of its sub-box, so the reader is
 * also what tests/fuzz/fuzz_mddata.c drives. */
#include "md.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The rank coordinate owning position x along d: edge ranks keep atoms
 * that wander past a non-periodic wall. */
static int owner_coord(const Md *md, int d, double x) {
  int p = md->decomp.dims[d];
  double c = floor((x - md->boxlo[d]) / md->prd[d] * p); /* clamped before the cast */
  return c < 0.0 ? 0 : c >= p ? p - 1 : (int)c;
}

int md_owns(const Md *md, const double x[3]) {
  for (int d = 0; d < 3; d++)
    if (owner_coord(md, d, x[d]) != md->decomp.coords[d]) return 0;
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
  a->group[i] = MD_MOBILE;
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

/* The shortest Atoms line, "1 1 0 0 0\n": a file declaring more atoms than
 * its size over this is truncated, found before the per-atom tables are
 * allocated. */
#define DATA_MIN_ATOM_LINE 10

#define DATA_FAIL(...) do { snprintf(err, len, __VA_ARGS__); goto out; } while (0)

/* Reads header and box; on the second pass (keep = 1) the atoms this rank
 * owns, their velocities and the masses. */
int md_read_data(Md *md, int keep, char *err, size_t len) {
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
  struct stat st;
  if (fstat(fileno(r.f), &st) == 0 && S_ISREG(st.st_mode) && natoms > (long long)st.st_size / DATA_MIN_ATOM_LINE)
    DATA_FAIL("%s: the header declares %lld atoms, more than its %lld bytes can hold", r.path, natoms,
              (long long)st.st_size);
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
        if (md_owns(md, x)) {
          slot[id] = md->atoms.n_local;
          if (md_add_atom(md, id, type - 1, x, zero)) { rc = FB_EXIT_RUNTIME; DATA_FAIL("out of memory reading %s", r.path); }
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
