/* potential.c: lj/cut coefficients, and EAM tables read from LAMMPS's
 * funcfl (pair_style eam) and setfl (eam/alloy) files, with LAMMPS's spline
 * convention so that the same file gives the same forces. */
#include "md.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* funcfl files hold the effective charge Z(r) in units where
 * r * phi(r) = Z_i(r) Z_j(r) * 27.2 * 0.529 (Hartree x Bohr, in eV A), the
 * constant LAMMPS's pair_eam uses. */
#define EAM_HARTREE_BOHR (27.2 * 0.529)

static void lj_init(Md *md) {
  MdPotential *p = &md->pot;
  p->cut = md->cutoff;
  for (int i = 0; i < md->ntypes; i++)
    for (int j = 0; j < md->ntypes; j++) {
      double eps = md->epsilon, sig = md->sigma;
      p->lj1[i][j] = 48.0 * eps * pow(sig, 12.0);
      p->lj2[i][j] = 24.0 * eps * pow(sig, 6.0);
      p->lj3[i][j] = 4.0 * eps * pow(sig, 12.0);
      p->lj4[i][j] = 4.0 * eps * pow(sig, 6.0);
      double ratio = sig / p->cut;
      p->offset[i][j] = md->shift ? 4.0 * eps * (pow(ratio, 12.0) - pow(ratio, 6.0)) : 0.0;
    }
}

/* Spline coefficients of f[0..n-1] on spacing delta: derivatives at the
 * knots from 4th-order differences (one-sided at the ends), a cubic per
 * interval matching values and those derivatives. */
static MdSpline *spline_table(const double *f, int n, double delta) {
  MdSpline *s = calloc((size_t)n, sizeof *s);
  if (!s) return NULL;
  for (int m = 0; m < n; m++) s[m][6] = f[m];
  s[0][5] = s[1][6] - s[0][6];
  s[1][5] = 0.5 * (s[2][6] - s[0][6]);
  s[n - 2][5] = 0.5 * (s[n - 1][6] - s[n - 3][6]);
  s[n - 1][5] = s[n - 1][6] - s[n - 2][6];
  for (int m = 2; m <= n - 3; m++)
    s[m][5] = ((s[m - 2][6] - s[m + 2][6]) + 8.0 * (s[m + 1][6] - s[m - 1][6])) / 12.0;
  for (int m = 0; m < n - 1; m++) {
    s[m][4] = 3.0 * (s[m + 1][6] - s[m][6]) - 2.0 * s[m][5] - s[m + 1][5];
    s[m][3] = s[m][5] + s[m + 1][5] - 2.0 * (s[m + 1][6] - s[m][6]);
  }
  s[n - 1][4] = s[n - 1][3] = 0.0;
  for (int m = 0; m < n; m++) {
    s[m][2] = s[m][5] / delta;
    s[m][1] = 2.0 * s[m][4] / delta;
    s[m][0] = 3.0 * s[m][3] / delta;
  }
  return s;
}

typedef struct {
  FILE *f;
  const char *path;
  int line;
} Tokens;

static int next_double(Tokens *t, double *out) {
  int c;
  do {
    c = fgetc(t->f);
    if (c == '\n') t->line++;
  } while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
  if (c == EOF) return 0;
  ungetc(c, t->f);
  if (fscanf(t->f, "%lf", out) != 1 || !isfinite(*out)) return 0;
  return 1;
}

static int read_line(Tokens *t, char *buf, size_t len) {
  if (!fgets(buf, (int)len, t->f)) return 0;
  t->line++;
  return 1;
}

static int read_values(Tokens *t, double *dst, int n, const char *what, const char *elem, char *err, size_t len) {
  for (int k = 0; k < n; k++)
    if (!next_double(t, &dst[k])) {
      snprintf(err, len, "%s:%d: malformed EAM file: %s of %s ends after %d of %d values", t->path, t->line + 1,
               what, elem, k, n);
      return FB_EXIT_USAGE;
    }
  return 0;
}

static int grid_ok(Tokens *t, int nrho, double drho, int nr, double dr, double cut, char *err, size_t len) {
  if (nrho < 5 || nr < 5 || nrho > 10000000 || nr > 10000000 || !(drho > 0) || !(dr > 0) || !(cut > 0) ||
      cut > (nr - 1) * dr * (1 + 1e-9)) {
    snprintf(err, len, "%s:%d: malformed EAM file: bad grid 'Nrho drho Nr dr cutoff' (%d %g %d %g %g)", t->path,
             t->line, nrho, drho, nr, dr, cut);
    return FB_EXIT_USAGE;
  }
  return 0;
}

/* funcfl: one element; every type uses it. */
static int read_funcfl(Md *md, Tokens *t, char *err, size_t len) {
  MdPotential *p = &md->pot;
  char buf[1024];
  int z;
  double mass, alat;
  if (!read_line(t, buf, sizeof buf) || !read_line(t, buf, sizeof buf) ||
      sscanf(buf, "%d %lf %lf", &z, &mass, &alat) != 3 || !(mass > 0)) {
    snprintf(err, len, "%s:%d: malformed EAM file: expected 'Z mass lattice-constant' (funcfl)", t->path, t->line);
    return FB_EXIT_USAGE;
  }
  if (!read_line(t, buf, sizeof buf) ||
      sscanf(buf, "%d %lf %d %lf %lf", &p->nrho, &p->drho, &p->nr, &p->dr, &p->cut) != 5) {
    snprintf(err, len, "%s:%d: malformed EAM file: expected 'Nrho drho Nr dr cutoff'", t->path, t->line);
    return FB_EXIT_USAGE;
  }
  if (grid_ok(t, p->nrho, p->drho, p->nr, p->dr, p->cut, err, len)) return FB_EXIT_USAGE;
  double *frho = malloc((size_t)p->nrho * sizeof *frho), *zr = malloc((size_t)p->nr * sizeof *zr),
         *rhor = malloc((size_t)p->nr * sizeof *rhor);
  int rc = FB_EXIT_RUNTIME;
  if (!frho || !zr || !rhor) { snprintf(err, len, "out of memory reading %s", t->path); goto out; }
  if ((rc = read_values(t, frho, p->nrho, "F(rho)", "the element", err, len)) ||
      (rc = read_values(t, zr, p->nr, "Z(r)", "the element", err, len)) ||
      (rc = read_values(t, rhor, p->nr, "rho(r)", "the element", err, len)))
    goto out;
  for (int k = 0; k < p->nr; k++) zr[k] = EAM_HARTREE_BOHR * zr[k] * zr[k];
  p->nelements = 1;
  p->file_mass[0] = mass;
  snprintf(p->element[0], sizeof p->element[0], "Z%d", z);
  p->frho[0] = spline_table(frho, p->nrho, p->drho);
  p->rhor[0] = spline_table(rhor, p->nr, p->dr);
  p->z2r[0][0] = spline_table(zr, p->nr, p->dr);
  rc = p->frho[0] && p->rhor[0] && p->z2r[0][0] ? 0 : FB_EXIT_RUNTIME;
  if (rc) snprintf(err, len, "out of memory reading %s", t->path);
out:
  free(frho); free(zr); free(rhor);
  return rc;
}

/* setfl: several elements, pair functions r*phi for i >= j. */
static int read_setfl(Md *md, Tokens *t, char *err, size_t len) {
  MdPotential *p = &md->pot;
  char buf[1024];
  for (int k = 0; k < 3; k++)
    if (!read_line(t, buf, sizeof buf)) { snprintf(err, len, "%s: malformed EAM file: truncated header", t->path); return FB_EXIT_USAGE; }
  if (!read_line(t, buf, sizeof buf)) { snprintf(err, len, "%s:%d: malformed EAM file: no element line", t->path, t->line); return FB_EXIT_USAGE; }
  char *save = NULL, *tok = strtok_r(buf, " \t\r\n", &save);
  int ne = tok ? atoi(tok) : 0;
  if (ne < 1 || ne > MD_MAX_TYPES) { snprintf(err, len, "%s:%d: malformed EAM file: element count must be 1 to %d", t->path, t->line, MD_MAX_TYPES); return FB_EXIT_USAGE; }
  for (int e = 0; e < ne; e++) {
    tok = strtok_r(NULL, " \t\r\n", &save);
    if (!tok) { snprintf(err, len, "%s:%d: malformed EAM file: %d elements named, %d expected", t->path, t->line, e, ne); return FB_EXIT_USAGE; }
    snprintf(p->element[e], sizeof p->element[e], "%s", tok);
  }
  p->nelements = ne;
  if (!read_line(t, buf, sizeof buf) || sscanf(buf, "%d %lf %d %lf %lf", &p->nrho, &p->drho, &p->nr, &p->dr, &p->cut) != 5) {
    snprintf(err, len, "%s:%d: malformed EAM file: expected 'Nrho drho Nr dr cutoff'", t->path, t->line);
    return FB_EXIT_USAGE;
  }
  if (grid_ok(t, p->nrho, p->drho, p->nr, p->dr, p->cut, err, len)) return FB_EXIT_USAGE;
  size_t nmax = (size_t)(p->nrho > p->nr ? p->nrho : p->nr);
  double *buf_v = malloc(nmax * sizeof *buf_v);
  if (!buf_v) { snprintf(err, len, "out of memory reading %s", t->path); return FB_EXIT_RUNTIME; }
  int rc = 0;
  for (int e = 0; e < ne && !rc; e++) {
    int z;
    double mass, alat;
    char lat[32];
    if (!read_line(t, buf, sizeof buf) || sscanf(buf, "%d %lf %lf %31s", &z, &mass, &alat, lat) < 3 || !(mass > 0)) {
      snprintf(err, len, "%s:%d: malformed EAM file: expected 'Z mass a lattice' for %s", t->path, t->line, p->element[e]);
      rc = FB_EXIT_USAGE;
      break;
    }
    p->file_mass[e] = mass;
    if ((rc = read_values(t, buf_v, p->nrho, "F(rho)", p->element[e], err, len))) break;
    p->frho[e] = spline_table(buf_v, p->nrho, p->drho);
    if ((rc = read_values(t, buf_v, p->nr, "rho(r)", p->element[e], err, len))) break;
    p->rhor[e] = spline_table(buf_v, p->nr, p->dr);
    if (!read_line(t, buf, sizeof buf)) {} /* the rest of the last values line */
  }
  for (int i = 0; i < ne && !rc; i++)
    for (int j = 0; j <= i && !rc; j++) {
      char what[48];
      snprintf(what, sizeof what, "r*phi(r) with %s", p->element[j]);
      if ((rc = read_values(t, buf_v, p->nr, what, p->element[i], err, len))) break;
      p->z2r[i][j] = p->z2r[j][i] = spline_table(buf_v, p->nr, p->dr);
    }
  free(buf_v);
  return rc;
}

/* Maps types to elements: deck 'elements' (one per type, or one for all),
 * else every type to the first element. */
static int map_elements(Md *md, char *err, size_t len) {
  MdPotential *p = &md->pot;
  char names[FB_DECK_STR], *save = NULL;
  snprintf(names, sizeof names, "%s", md->elements);
  int n = 0;
  for (char *tok = strtok_r(names, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), n++) {
    if (n >= md->ntypes) { snprintf(err, len, "%s: 'elements' names more than %d types", md->deck_path, md->ntypes); return FB_EXIT_USAGE; }
    int e = 0;
    while (e < p->nelements && strcmp(p->element[e], tok)) e++;
    if (e == p->nelements && !(p->nelements == 1 && !strcmp(md->pair_style, "eam"))) {
      snprintf(err, len, "%s: element '%s' is not in %s", md->deck_path, tok, md->pot_file);
      return FB_EXIT_USAGE;
    }
    p->elem_of_type[n] = e == p->nelements ? 0 : e;
  }
  if (n != 0 && n != 1 && n != md->ntypes) { snprintf(err, len, "%s: 'elements' needs one name or one per type (%d)", md->deck_path, md->ntypes); return FB_EXIT_USAGE; }
  for (int t = n; t < md->ntypes; t++) p->elem_of_type[t] = n == 1 ? p->elem_of_type[0] : 0;
  for (int t = 0; t < md->ntypes; t++)
    if (md->mass[t] == 0.0) md->mass[t] = p->file_mass[p->elem_of_type[t]];
  return 0;
}

int md_potential_init(Md *md, char *err, size_t len) {
  MdPotential *p = &md->pot;
  snprintf(p->style, sizeof p->style, "%s", md->pair_style);
  p->ntypes = md->ntypes;
  if (p->kind == POT_LJ) {
    lj_init(md);
  } else {
    Tokens t = {fopen(md->pot_file, "r"), md->pot_file, 0};
    if (!t.f) {
      snprintf(err, len, "%s: cannot read: %s", md->pot_file, strerror(errno));
      return FB_EXIT_USAGE;
    }
    int rc = !strcmp(md->pair_style, "eam") ? read_funcfl(md, &t, err, len) : read_setfl(md, &t, err, len);
    fclose(t.f);
    if (rc) return rc;
    if ((rc = map_elements(md, err, len))) return rc;
    p->rdr = 1.0 / p->dr;
    p->rdrho = 1.0 / p->drho;
    p->rhomax = (p->nrho - 1) * p->drho;
  }
  p->cutsq = p->cut * p->cut;
  return 0;
}

void md_potential_free(MdPotential *p) {
  for (int e = 0; e < MD_MAX_TYPES; e++) {
    free(p->frho[e]);
    free(p->rhor[e]);
    for (int f = 0; f <= e; f++) free(p->z2r[e][f]);
  }
}
