/* data.c: the reader of LAMMPS data files: atom_style atomic (id type x y
 * z, with or without image flags), orthogonal or triclinic (tilted) box,
 * Masses, Velocities, and the lj/cut Pair Coeffs and PairIJ Coeffs sections
 * that write_data produces. What it cannot read the way LAMMPS would
 * (other atom styles, molecular topology, other sections) is refused with
 * the line named. No MPI: every rank parses the same bytes (rank 0's,
 * broadcast), places each atom as read_data does (box.c) and keeps those
 * of its sub-box (atoms.c), so the reader is also what
 * tests/fuzz/fuzz_mddata.c drives. */
#include "md.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest tilt a box may have, in box lengths, across a periodic
 * dimension: LAMMPS's (Domain::set_initial_box, 20220106; a larger one is
 * its error "Triclinic box skew is too large" unless `box tilt large`,
 * which a data file cannot say). */
#define MD_MAX_SKEW 0.5

/* ------------------------------------------------------ LAMMPS data files */

typedef struct {
  FILE *f;
  const char *path;
  int line;
  char *buf;        /* the line without its comment (getline's: any length) */
  size_t cap;       /* buf's size */
  char comment[64]; /* the comment, for the style named after "Atoms #" */
  char *err;
  size_t errlen;
  int ntypes;
  long long natoms;
  char *seen;          /* per id (1..N): in Atoms; then 2 when its velocity came */
  long long *slot;     /* per id (1..N): index of the owned atom, or -1 */
  long long (*ids)[2]; /* first pass: the file's id and line of each atom */
  char *warning;       /* the first line read as LAMMPS reads it but worth a warning, or "" */
  size_t warnlen;
  int warnings;     /* how many */
  int skipped_line; /* the line below the last section name, if it was not blank */
  MdReadBox box;    /* a tilted box as read_data places atoms in it */
} DataReader;

/* The shortest Atoms line, "1 1 0 0 0\n": a file declaring more atoms than
 * its size over this is truncated, found before the per-atom tables are
 * allocated. */
#define DATA_MIN_ATOM_LINE 10
#define STRINGIFY(x)       #x
#define TEXT_OF(x)         STRINGIFY(x)
#define MD_MAX_TYPES_TEXT  TEXT_OF(MD_MAX_TYPES)
#define DIGITS             "0123456789"

static int fail(DataReader *r, int code, const char *fmt, const char *what) {
  char msg[FB_MSG_LEN];
  snprintf(msg, sizeof msg, fmt, what);
  if (r->line)
    snprintf(r->err, r->errlen, "%s:%d: %s", r->path, r->line, msg);
  else
    snprintf(r->err, r->errlen, "%s: %s", r->path, msg);
  return code;
}

/* A line read as LAMMPS reads it, but likely not what its writer meant:
 * the first is kept, the others counted. */
static void warn(DataReader *r, const char *fmt, const char *what) {
  if (!r->warnings++ && r->warning) {
    char msg[FB_MSG_LEN];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(r->warning, r->warnlen, "%s:%d: %s", r->path, r->line, msg);
  }
}

/* The next line with its comment removed (kept in comment); 0 at the end. */
static int read_line(DataReader *r) {
  if (getline(&r->buf, &r->cap, r->f) < 0) return 0;
  r->line++;
  r->comment[0] = '\0';
  char *hash = strchr(r->buf, '#');
  if (hash) {
    snprintf(r->comment, sizeof r->comment, "%s", hash + 1);
    r->comment[strcspn(r->comment, "\r\n")] = '\0';
    *hash = '\0';
  }
  return 1;
}

static int is_blank(const DataReader *r) { return !r->buf[strspn(r->buf, " \t\r\n")]; }

/* Next non-blank line (between sections, LAMMPS skips blank and comment
 * lines); 0 at the end. */
static int data_line(DataReader *r) {
  while (read_line(r))
    if (!is_blank(r)) return 1;
  return 0;
}

static int is_section(const DataReader *r) {
  return isalpha((unsigned char)r->buf[strspn(r->buf, " \t")]);
}

/* A section's error, with a hint when the line below the section name,
 * which LAMMPS skips, was not blank. */
static int section_fail(DataReader *r, const char *fmt, const char *what) {
  int rc = fail(r, FB_EXIT_USAGE, fmt, what);
  if (r->skipped_line) {
    size_t used = strlen(r->err);
    snprintf(r->err + used, r->errlen - used,
             " (line %d, below the section name, is skipped as LAMMPS skips it: is it data?)",
             r->skipped_line);
  }
  return rc;
}

/* The next of a section's lines. LAMMPS reads a section's count of lines in
 * a row from the second line below its name: a blank (or comment) line
 * among them is an error, and so is the end of the file or the next
 * section name before the count (0 then, with the message left to the
 * caller). */
static int section_line(DataReader *r, const char *section, int *rc) {
  *rc = 0;
  if (!read_line(r) || is_section(r)) return 0;
  if (is_blank(r))
    *rc = section_fail(r,
                       "a blank or comment line inside the %s section (LAMMPS reads its lines in "
                       "a row, from the second line below its name)",
                       section);
  return !*rc;
}

/* Whitespace-separated fields of the current line (at most max). */
static int fields(char *line, char **out, int max) {
  int n = 0;
  for (char *p = strtok(line, " \t\r\n"); p && n < max; p = strtok(NULL, " \t\r\n")) out[n++] = p;
  return n;
}

/* No hexadecimal, inf or nan, which strtod alone would take. */
int md_lammps_number(const char *s, int real) {
  if (*s == '+' || *s == '-') s++;
  size_t digits = strspn(s, DIGITS);
  s += digits;
  if (real && *s == '.') {
    size_t frac = strspn(++s, DIGITS);
    digits += frac;
    s += frac;
  }
  if (!digits) return 0;
  if (real && (*s == 'e' || *s == 'E')) {
    s += (s[1] == '+' || s[1] == '-') ? 2 : 1;
    size_t exp = strspn(s, DIGITS);
    if (!exp) return 0;
    s += exp;
  }
  return !*s;
}

static int parse_ll(const char *s, long long *v) {
  if (!md_lammps_number(s, 0)) return 0;
  errno = 0;
  *v = strtoll(s, NULL, 10);
  return !errno;
}

static int parse_d(const char *s, double *v) {
  if (!md_lammps_number(s, 1)) return 0;
  *v = strtod(s, NULL);
  return isfinite(*v);
}

/* A header count: digits alone, as read_data's patterns ("^\s*\d+\s+atoms\s"). */
static int parse_count(const char *s, long long *v) {
  return isdigit((unsigned char)*s) && parse_ll(s, v);
}

static int one_of(const char *word, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(word, *list)) return 1;
  return 0;
}

/* The header: counts, types and box; stops at the first section name. Each
 * line is matched by its first words, as LAMMPS matches its patterns: what
 * follows them is ignored ("4 atoms in the cell" is "4 atoms"). */
static int read_header(DataReader *r, Md *md, int *more) {
  static const char *const topology[] = {"bonds", "angles", "dihedrals", "impropers", NULL};
  static const char *const topology_types[] = {"bond", "angle", "dihedral", "improper", NULL};
  static const char *const bonus[] = {"ellipsoids", "lines", "triangles", "bodies", NULL};
  static const char *const extra[] = {"extra bond per atom",     "extra angle per atom",
                                      "extra dihedral per atom", "extra improper per atom",
                                      "extra special per atom",  NULL};
  int have_box = 0, tilt_line = 0;
  r->natoms = -1;
  r->ntypes = 0;
  for (*more = data_line(r); *more && !is_section(r); *more = data_line(r)) {
    char *f[8];
    int is_extra = 0; /* before fields() splits the line */
    for (int k = 0; extra[k]; k++) is_extra |= strstr(r->buf, extra[k]) != NULL;
    int n = fields(r->buf, f, 8);
    long long count = 0;
    double lo, hi;
    int counted = n >= 2 && parse_count(f[0], &count);
    if (counted && n >= 3 && !strcmp(f[1], "atom") && !strcmp(f[2], "types")) {
      if (count < 1 || count > MD_MAX_TYPES)
        return fail(r, FB_EXIT_USAGE, "'atom types' must be 1 to %s (md's limit)",
                    MD_MAX_TYPES_TEXT);
      r->ntypes = (int)count;
    } else if (counted && !strcmp(f[1], "atoms")) {
      r->natoms = count;
    } else if (counted && one_of(f[1], bonus)) {
      return fail(r, FB_EXIT_USAGE,
                  "'%s' in the header: LAMMPS allows it only with the atom styles that have "
                  "them (md reads atom_style atomic)",
                  f[1]);
    } else if (counted && one_of(f[1], topology)) {
      if (count)
        return fail(r, FB_EXIT_USAGE,
                    "molecular topology (%s) is not supported: atom_style atomic only", f[1]);
    } else if (counted && n >= 3 && one_of(f[1], topology_types) && !strcmp(f[2], "types")) {
      if (count)
        return fail(r, FB_EXIT_USAGE, "%s types are not supported: atom_style atomic only", f[1]);
    } else if (is_extra) {
      /* room for topology added later: LAMMPS reads it for any atom style */
      if (!parse_ll(f[0], &count))
        return fail(r, FB_EXIT_USAGE, "expected 'N extra ... per atom' (N an integer)%s", "");
    } else if (n >= 4 && strlen(f[2]) == 3 && strlen(f[3]) == 3 && f[2][0] >= 'x' &&
               f[2][0] <= 'z' && !strcmp(f[2] + 1, "lo") && f[3][0] == f[2][0] &&
               !strcmp(f[3] + 1, "hi") && parse_d(f[0], &lo) && parse_d(f[1], &hi)) {
      int d = f[2][0] - 'x';
      if (!(hi > lo)) return fail(r, FB_EXIT_USAGE, "%shi must be above its lo", f[2]);
      if (!isfinite(hi - lo)) return fail(r, FB_EXIT_USAGE, "%s: the box length overflows", f[2]);
      md->boxlo[d] = lo;
      md->boxhi[d] = hi;
      have_box |= 1 << d;
    } else if (n >= 6 && !strcmp(f[3], "xy") && !strcmp(f[4], "xz") && !strcmp(f[5], "yz")) {
      /* LAMMPS makes such a box triclinic; with the three tilts 0 it is the
       * orthogonal box, and LAMMPS's numbers are those of one */
      tilt_line = r->line;
      for (int t = 0; t < 3; t++)
        if (!parse_d(f[t], &md->tilt[t]))
          return fail(r, FB_EXIT_USAGE, "expected 'xy xz yz' tilt factors%s", "");
      md->triclinic = md->tilt[0] != 0.0 || md->tilt[1] != 0.0 || md->tilt[2] != 0.0;
    } else {
      return fail(r, FB_EXIT_USAGE, "not a LAMMPS data header line%s", "");
    }
  }
  if (r->natoms < 0) return fail(r, FB_EXIT_USAGE, "no 'N atoms' line in the header%s", "");
  if (r->natoms == 0)
    return fail(r, FB_EXIT_USAGE, "the header declares 0 atoms: md needs at least one%s", "");
  if (have_box != 7)
    return fail(r, FB_EXIT_USAGE, "the header lacks xlo xhi, ylo yhi or zlo zhi%s", "");
  /* LAMMPS's Domain::set_initial_box: a tilt past half the box length it
   * is along, where that dimension is periodic ("Triclinic box skew is too
   * large"; a non-periodic x or y takes any) */
  const double lx = md->boxhi[0] - md->boxlo[0], ly = md->boxhi[1] - md->boxlo[1], *t = md->tilt;
  const int *per = md->periodic;
  if ((per[0] && (fabs(t[0] / lx) > MD_MAX_SKEW || fabs(t[1] / lx) > MD_MAX_SKEW)) ||
      (per[1] && fabs(t[2] / ly) > MD_MAX_SKEW)) {
    r->line = tilt_line;
    return fail(r, FB_EXIT_USAGE,
                "the box's tilt is too large: xy and xz at most half of xhi - xlo (x "
                "periodic), yz of yhi - ylo (y periodic), as LAMMPS%s",
                "");
  }
  if (r->ntypes < 1) return fail(r, FB_EXIT_USAGE, "no 'N atom types' line in the header%s", "");
  if (r->natoms > 2000000000LL) return fail(r, FB_EXIT_USAGE, "%s: too many atoms", "the header");
  return 0;
}

/* Masses: one "type mass" line per type, each type once; words after the
 * mass are ignored, as LAMMPS ignores them ("1 63.546 Cu"). */
static int read_masses(DataReader *r, Md *md) {
  int given[MD_MAX_TYPES] = {0}, rc;
  for (int k = 0; k < r->ntypes; k++) {
    char *f[4];
    double m;
    long long t;
    if (!section_line(r, "Masses", &rc))
      return rc ? rc
                : section_fail(r,
                               "the Masses section gives %s types' masses: one line per atom type",
                               "too few");
    if (fields(r->buf, f, 4) < 2 || !parse_ll(f[0], &t) || !parse_d(f[1], &m) || !(m > 0))
      return fail(r, FB_EXIT_USAGE, "expected 'type mass' (a positive mass)%s", "");
    if (t < 1 || t > r->ntypes)
      return fail(r, FB_EXIT_USAGE, "Masses: type %s is not an atom type of this file", f[0]);
    if (given[t - 1]++) return fail(r, FB_EXIT_USAGE, "Masses: type %s appears twice", f[0]);
    md->mass_data[t - 1] = m;
  }
  md->mass_data_given = 1;
  return 0;
}

/* Pair Coeffs (i eps sig) and PairIJ Coeffs (i j eps sig [cut]) of lj/cut. */
static int read_pair_coeffs(DataReader *r, Md *md, int ij) {
  int lines = ij ? r->ntypes * (r->ntypes + 1) / 2 : r->ntypes;
  if (md->pot.kind != POT_LJ)
    return fail(r, FB_EXIT_USAGE,
                "%s: coefficients for lj/cut, but the deck's pair_style is not lj/cut",
                ij ? "PairIJ Coeffs" : "Pair Coeffs");
  for (int k = 0, rc; k < lines; k++) {
    char *f[8];
    long long i = 0, j = 0;
    double eps = 0.0, sig = 0.0, cut = 0.0;
    if (!section_line(r, ij ? "PairIJ Coeffs" : "Pair Coeffs", &rc))
      return rc ? rc
                : section_fail(r, "the %s section ends early",
                               ij ? "PairIJ Coeffs" : "Pair Coeffs");
    int n = fields(r->buf, f, 8), at = ij ? 2 : 1;
    int ok = n >= at + 2 && n <= at + 3 && parse_ll(f[0], &i) && (!ij || parse_ll(f[1], &j)) &&
             parse_d(f[at], &eps) && parse_d(f[at + 1], &sig) &&
             (n == at + 2 || parse_d(f[at + 2], &cut));
    if (!ij) j = i;
    if (!ok || i < 1 || i > r->ntypes || j < i || j > r->ntypes || eps < 0 || !(sig > 0) || cut < 0)
      return fail(r, FB_EXIT_USAGE, "expected '%s' for lj/cut",
                  ij ? "i j epsilon sigma [cutoff]" : "i epsilon sigma");
    MdPairCoeffs *c = &md->coeff;
    c->eps[i - 1][j - 1] = c->eps[j - 1][i - 1] = eps;
    c->sig[i - 1][j - 1] = c->sig[j - 1][i - 1] = sig;
    c->set[i - 1][j - 1] = c->set[j - 1][i - 1] = 1;
    if (n == at + 3) {
      c->cut[i - 1][j - 1] = c->cut[j - 1][i - 1] = cut;
      c->cut_set[i - 1][j - 1] = c->cut_set[j - 1][i - 1] = 1;
    }
  }
  return 0;
}

/* md's id (1..N) of the file's atom id, or -1 if the file has no such atom. */
static long long dense_id(const Md *md, long long id) {
  if (!md->tags) return id >= 1 && id <= md->natoms ? id : -1;
  long long lo = 0, hi = md->natoms - 1;
  while (lo <= hi) {
    long long mid = lo + (hi - lo) / 2;
    if (md->tags[mid] == id) return mid + 1;
    if (md->tags[mid] < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int by_id_then_line(const void *pa, const void *pb) {
  const long long *a = pa, *b = pb;
  return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* After the first reading of Atoms: no id twice, and md->tags set when the
 * ids are not exactly 1..N (atom k is then the k-th smallest id). */
static int number_ids(DataReader *r, Md *md) {
  long long n = r->natoms;
  qsort(r->ids, (size_t)n, sizeof *r->ids, by_id_then_line);
  for (long long k = 1; k < n; k++)
    if (r->ids[k][0] == r->ids[k - 1][0]) {
      char what[32];
      snprintf(what, sizeof what, "%lld", r->ids[k][0]);
      r->line = (int)r->ids[k][1];
      return fail(r, FB_EXIT_USAGE, "atom id %s appears twice", what);
    }
  free(md->tags);
  md->tags = NULL;
  if (r->ids[n - 1][0] == n) return 0; /* n distinct positive ids up to n: 1..n */
  md->tags = malloc((size_t)n * sizeof *md->tags);
  if (!md->tags) return fail(r, FB_EXIT_RUNTIME, "out of memory reading %s", r->path);
  for (long long k = 0; k < n; k++) md->tags[k] = r->ids[k][0];
  return 0;
}

/* Atoms: "id type x y z" or with image flags "id type x y z ix iy iz", the
 * same on every line (the first line sets it, as in LAMMPS). Another style
 * named after "Atoms #" is read as atomic (LAMMPS does, under atom_style
 * atomic) with a warning; its columns are then atomic's or the line is
 * refused. */
static int read_atoms(DataReader *r, Md *md, int keep) {
  const double zero[3] = {0, 0, 0};
  int columns = 0, rc, wrapped = 0; /* a shrink-wrapped side: read_data's reset_box */
  for (int d = 0; d < 3; d++) wrapped |= md->boundary[d] == 's' || md->boundary[d] == 'm';
  for (long long k = 0; k < r->natoms; k++) {
    char *f[12];
    long long id, type, image[3] = {0, 0, 0};
    double x[3];
    if (!section_line(r, "Atoms", &rc)) {
      char what[96];
      snprintf(what, sizeof what, "%lld of %lld", k, r->natoms);
      return rc ? rc : section_fail(r, "truncated: the Atoms section ends after %s atoms", what);
    }
    int n = fields(r->buf, f, 12);
    if (columns && n != columns) {
      char what[64];
      snprintf(what, sizeof what, "%d columns and the first %d", n, columns);
      return fail(r, FB_EXIT_USAGE,
                  "this Atoms line has %s (LAMMPS reads every line with the first line's "
                  "columns: image flags on all or none)",
                  what);
    }
    columns = n;
    if (n != 5 && n != 8)
      return fail(r, FB_EXIT_USAGE,
                  "atom_style atomic lines are 'id type x y z [ix iy iz]'; this one has %s columns "
                  "(another atom style?)",
                  n == 6   ? "6"
                  : n == 7 ? "7"
                           : "another number of");
    int ok = parse_ll(f[0], &id) && parse_ll(f[1], &type) && parse_d(f[2], &x[0]) &&
             parse_d(f[3], &x[1]) && parse_d(f[4], &x[2]);
    for (int e = 5; e < n; e++) ok = ok && parse_ll(f[e], &image[e - 5]);
    if (!ok)
      return fail(r, FB_EXIT_USAGE, "expected 'id type x y z [ix iy iz]' (atom_style atomic)%s",
                  "");
    if (id < 1) return fail(r, FB_EXIT_USAGE, "atom id %s is not a positive integer", f[0]);
    for (int d = 0; d < 3; d++)
      if (llabs(image[d]) > MD_DATA_MAX_IMAGES)
        return fail(r, FB_EXIT_USAGE,
                    "atom %s: an image flag past " TEXT_OF(MD_DATA_MAX_IMAGES) " box lengths",
                    f[0]);
    if (!keep) { /* the ids are checked and numbered once all are read */
      r->ids[k][0] = id;
      r->ids[k][1] = r->line;
      id = k + 1;
    } else if ((id = dense_id(md, id)) < 1) {
      return fail(r, FB_EXIT_USAGE, "atom id %s is not one of the first reading's", f[0]);
    }
    if (r->seen[id]) return fail(r, FB_EXIT_USAGE, "atom id %s appears twice", f[0]);
    if (type < 1 || type > r->ntypes)
      return fail(r, FB_EXIT_USAGE, "atom type %s is not an atom type of this file", f[1]);
    int img[3];
    for (int d = 0; d < 3; d++) /* LAMMPS resets a non-periodic dimension's flag to 0 */
      img[d] = md->periodic[d] ? (int)image[d] : 0;
    int placed = md->triclinic ? md_place_in_tilted_box(&r->box, md, x, img) : 0;
    for (int d = 0; d < 3 && !md->triclinic && !placed; d++)
      if (md_place_in_box(md, d, &x[d], &img[d])) placed = md->periodic[d] ? -1 : -2;
    if (placed)
      return fail(r, FB_EXIT_USAGE,
                  placed == -1 ? "atom %s is more than " TEXT_OF(
                                     MD_DATA_MAX_IMAGES) " box lengths outside the box"
                               : "atom %s is outside the box (a non-periodic dimension)",
                  f[0]);
    double at[3]; /* the extent md_split_data_atoms divides: a tilted box's in lamda */
    if (md->triclinic)
      md_x2lamda_in(r->box.lo, r->box.h_inv, x, at);
    else
      memcpy(at, x, sizeof at);
    for (int d = 0; d < 3; d++) {
      md->atomlo[d] = fmin(md->atomlo[d], at[d]);
      md->atomhi[d] = fmax(md->atomhi[d], at[d]);
    }
    r->seen[id] = 1;
    r->slot[id] = -1;
    if (keep && md->triclinic && wrapped) md_place_in_wrapped_box(&r->box, md, x, img);
    if (keep && md_owns(md, x)) {
      r->slot[id] = md->atoms.n_local;
      if (md_add_atom(md, id, (int)type - 1, x, zero))
        return fail(r, FB_EXIT_RUNTIME, "out of memory reading %s", r->path);
      memcpy(md->atoms.image[md->atoms.n_local - 1], img, sizeof img);
    }
  }
  return 0;
}

/* Velocities: "id vx vy vz", every atom once. */
static int read_velocities(DataReader *r, Md *md) {
  int rc;
  for (long long k = 0; k < r->natoms; k++) {
    char *f[8];
    long long id;
    double v[3];
    if (!section_line(r, "Velocities", &rc))
      return rc ? rc : section_fail(r, "the Velocities section has %s atoms", "fewer lines than");
    int n = fields(r->buf, f, 8);
    if (n != 4 || !parse_ll(f[0], &id) || !parse_d(f[1], &v[0]) || !parse_d(f[2], &v[1]) ||
        !parse_d(f[3], &v[2]))
      return fail(r, FB_EXIT_USAGE, "expected 'id vx vy vz' (atom_style atomic)%s", "");
    if ((id = dense_id(md, id)) < 1 || !r->seen[id])
      return fail(r, FB_EXIT_USAGE, "a velocity for atom %s, which is not in Atoms", f[0]);
    if (r->seen[id] == 2) return fail(r, FB_EXIT_USAGE, "a second velocity for atom %s", f[0]);
    r->seen[id] = 2;
    if (r->slot[id] >= 0) memcpy(md->atoms.v[r->slot[id]], v, sizeof v);
  }
  md->have_velocities = 1;
  return 0;
}

/* Skips a section of `lines` data lines (another pass reads it). */
static int skip_lines(DataReader *r, long long lines, const char *section) {
  int rc;
  for (long long k = 0; k < lines; k++)
    if (!section_line(r, section, &rc))
      return rc ? rc
                : section_fail(r, "the %s section has fewer lines than its count (atoms or types)",
                               section);
  return 0;
}

/* The line below a section name: LAMMPS skips it whatever it holds (a
 * blank line by the format). md skips it too, with a warning when it is
 * not blank, and names it if the section then comes out short. */
static int skip_below_name(DataReader *r, const char *section) {
  if (!read_line(r))
    return fail(r, FB_EXIT_USAGE, "the file ends at the %s section's name", section);
  r->skipped_line = 0;
  if (!is_blank(r)) {
    r->skipped_line = r->line;
    warn(r, "this line, below the %s section's name, is skipped, as LAMMPS skips it", section);
  }
  return 0;
}

static int read_sections(DataReader *r, Md *md, int keep, int more) {
  int have_atoms = 0, rc = 0;
  while (more && !rc) {
    /* the name is the line without its comment, trimmed, as LAMMPS takes it */
    char section[64], style[32] = "";
    const char *name = r->buf + strspn(r->buf, " \t");
    int len = (int)strlen(name);
    while (len && isspace((unsigned char)name[len - 1])) len--;
    snprintf(section, sizeof section, "%.*s", len, name);
    if (!strcmp(section, "Atoms") && sscanf(r->comment, " %31s", style) == 1 &&
        strcmp(style, "atomic"))
      warn(r,
           "Atoms # %s: read as atom_style atomic ('id type x y z [ix iy iz]'), as LAMMPS reads "
           "it under atom_style atomic",
           style);
    if (!strcmp(section, "Atoms") && have_atoms)
      return fail(r, FB_EXIT_USAGE, "a second Atoms section%s", "");
    if (!strcmp(section, "Velocities") && !have_atoms)
      return fail(r, FB_EXIT_USAGE, "Velocities before Atoms%s", "");
    if (one_of(section, (const char *const[]){"Masses", "Pair Coeffs", "PairIJ Coeffs", "Atoms",
                                              "Velocities", NULL}) &&
        (rc = skip_below_name(r, section)))
      return rc;
    if (!strcmp(section, "Masses"))
      rc = keep ? skip_lines(r, r->ntypes, "Masses") : read_masses(r, md);
    else if (!strcmp(section, "Pair Coeffs"))
      rc = keep ? skip_lines(r, r->ntypes, "Pair Coeffs") : read_pair_coeffs(r, md, 0);
    else if (!strcmp(section, "PairIJ Coeffs"))
      rc = keep ? skip_lines(r, r->ntypes * (r->ntypes + 1) / 2, "PairIJ Coeffs")
                : read_pair_coeffs(r, md, 1);
    else if (!strcmp(section, "Atoms")) {
      rc = read_atoms(r, md, keep);
      if (!rc && !keep) rc = number_ids(r, md);
      have_atoms = 1;
    } else if (!strcmp(section, "Velocities")) {
      rc = keep ? read_velocities(r, md) : skip_lines(r, r->natoms, "Velocities");
    } else {
      return fail(
          r, FB_EXIT_USAGE,
          "unsupported section '%s' (atom_style atomic: Masses, Atoms, Velocities, Pair Coeffs, "
          "PairIJ Coeffs)",
          section);
    }
    if (rc) return rc;
    more = data_line(r);
    if (more && !is_section(r))
      return fail(r, FB_EXIT_USAGE, "more lines than the section's count (atoms or types)%s", "");
  }
  if (!have_atoms) return fail(r, FB_EXIT_USAGE, "no Atoms section%s", "");
  if (keep && md->have_velocities)
    for (long long id = 1; id <= r->natoms; id++)
      if (r->seen[id] != 2) {
        char what[32];
        snprintf(what, sizeof what, "%lld", id);
        r->line = 0;
        return fail(r, FB_EXIT_USAGE, "the Velocities section lacks atom %s", what);
      }
  return 0;
}

int md_read_data(Md *md, const char *text, size_t len, int keep, char *err, size_t errlen) {
  DataReader r = {.f = fmemopen((void *)text, len ? len : 1, "r"),
                  .path = md->data_file,
                  .err = err,
                  .errlen = errlen,
                  .warning = keep ? NULL : md->data_warning,
                  .warnlen = sizeof md->data_warning};
  if (!r.f) return snprintf(err, errlen, "%s: cannot read", md->data_file), FB_EXIT_RUNTIME;
  int more = 0, rc = FB_EXIT_USAGE;
  if (!len || !read_line(&r)) { /* the first line is a title */
    rc = fail(&r, FB_EXIT_USAGE, "empty file%s", "");
    goto out;
  }
  if ((rc = read_header(&r, md, &more))) goto out;
  if (r.natoms > (long long)len / DATA_MIN_ATOM_LINE) {
    char what[96];
    snprintf(what, sizeof what, "%lld atoms, more than its %zu bytes can hold", r.natoms, len);
    r.line = 0;
    rc = fail(&r, FB_EXIT_USAGE, "the header declares %s", what);
    goto out;
  }
  md->natoms = r.natoms;
  md->ntypes = r.ntypes;
  if (!keep) /* the box now: the declared one (md_split_data_atoms wraps it) */
    md_initial_box(md);
  double hi[3];
  for (int d = 0; d < 3; d++) {
    const double widen = md->boundary[d] == 's' ? MD_SHRINK_SMALL * md->prd[d] : 0.0;
    r.box.lo[d] = md->boxlo[d] - widen;
    hi[d] = md->boxhi[d] + widen;
  }
  md_box_matrices(r.box.lo, hi, md->tilt, r.box.h, r.box.h_inv);
  for (int d = 0; d < 3; d++) {
    if (!keep) { /* the ranks divide the file's box, until md_split_data_atoms */
      md->splitlo[d] = md->frame_lo[d];
      md->splithi[d] = md->frame_hi[d];
    }
    md->atomlo[d] = INFINITY;
    md->atomhi[d] = -INFINITY;
  }
  r.seen = calloc((size_t)r.natoms + 1, 1);
  r.slot = malloc(((size_t)r.natoms + 1) * sizeof *r.slot);
  if (!keep) r.ids = malloc((size_t)r.natoms * sizeof *r.ids);
  if (!r.seen || !r.slot || (!keep && !r.ids)) {
    rc = fail(&r, FB_EXIT_RUNTIME, "out of memory reading %s", md->data_file);
    goto out;
  }
  rc = read_sections(&r, md, keep, more);
  if (!keep) md->data_warnings = r.warnings;
out:
  free(r.buf);
  free(r.seen);
  free(r.slot);
  free(r.ids);
  fclose(r.f);
  return rc;
}
