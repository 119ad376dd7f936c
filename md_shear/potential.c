/* potential.c: lj/cut coefficients, and EAM tables read from LAMMPS's
 * funcfl (pair_style eam), setfl (eam/alloy) and Finnis-Sinclair (eam/fs)
 * files, with LAMMPS's spline convention so that the same file gives the
 * same forces. */
#include "md.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* funcfl files hold the effective charge Z(r) in units where
 * r * phi(r) = Z_i(r) Z_j(r) * 27.2 * 0.529 (Hartree x Bohr, in eV A), the
 * constant LAMMPS's pair_eam uses. */
#define EAM_HARTREE_BOHR (27.2 * 0.529)

/* LAMMPS's type bounds: "*", "N", "N*", "*M", "N*M" within 1..ntypes. */
static int type_bounds(const char *tok, int ntypes, int *lo, int *hi) {
  const char *star = strchr(tok, '*');
  char *end;
  if (!star) {
    *lo = *hi = (int)strtol(tok, &end, 10);
    if (end == tok || *end) return 0;
  } else {
    *lo = star == tok ? 1 : (int)strtol(tok, &end, 10);
    if (star != tok && end != star) return 0;
    *hi = star[1] ? (int)strtol(star + 1, &end, 10) : ntypes;
    if (star[1] && *end) return 0;
  }
  return *lo >= 1 && *hi <= ntypes && *lo <= *hi;
}

static void coeff_set(MdPairCoeffs *c, int i, int j, double eps, double sig, double cut,
                      int have_cut) {
  c->eps[i][j] = c->eps[j][i] = eps;
  c->sig[i][j] = c->sig[j][i] = sig;
  c->set[i][j] = c->set[j][i] = 1;
  c->cut_set[i][j] = c->cut_set[j][i] = have_cut;
  if (have_cut) c->cut[i][j] = c->cut[j][i] = cut;
}

/* The deck's coefficients, after the data file's: epsilon and sigma (as
 * pair_coeff * *), then each pair_coeff line (I J EPSILON SIGMA [CUTOFF]). */
static int lj_deck_coeffs(Md *md, char *err, size_t len) {
  MdPairCoeffs *c = &md->coeff;
  int n = md->ntypes;
  if (md->eps_given || md->sig_given)
    for (int i = 0; i < n; i++)
      for (int j = i; j < n; j++) coeff_set(c, i, j, md->epsilon, md->sigma, 0.0, 0);
  char list[FB_DECK_LIST], *save = NULL;
  snprintf(list, sizeof list, "%s", md->pair_coeff_text);
  for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char a[32], b[32], extra[8];
    double eps, sig, cut = 0.0;
    int ilo, ihi, jlo, jhi, pairs = 0;
    int got = sscanf(line, "%31s %31s %lf %lf %lf %7s", a, b, &eps, &sig, &cut, extra);
    if ((got != 4 && got != 5) || !type_bounds(a, n, &ilo, &ihi) ||
        !type_bounds(b, n, &jlo, &jhi) || !(eps >= 0) || !(sig > 0) || (got == 5 && !(cut > 0))) {
      snprintf(err, len,
               "%s: pair_coeff '%s': expected 'I J EPSILON SIGMA [CUTOFF]' with types 1 to %d "
               "(N, *, N*, *M, N*M)",
               md->deck_path, line, n);
      return FB_EXIT_USAGE;
    }
    for (int i = ilo; i <= ihi; i++)
      for (int j = jlo > i ? jlo : i; j <= jhi; j++, pairs++)
        coeff_set(c, i - 1, j - 1, eps, sig, cut, got == 5);
    if (!pairs) {
      snprintf(err, len, "%s: pair_coeff '%s' names no pair I <= J (LAMMPS: Incorrect args)",
               md->deck_path, line);
      return FB_EXIT_USAGE;
    }
  }
  for (int i = 0; i < n; i++)
    if (!c->set[i][i]) {
      snprintf(
          err, len,
          "%s: lj/cut has no coefficients for type %d (give 'pair_coeff = %d %d EPSILON SIGMA', or "
          "'epsilon' and 'sigma' for every type; LAMMPS: All pair coeffs are not set)",
          md->deck_path, i + 1, i + 1, i + 1);
      return FB_EXIT_USAGE;
    }
  return 0;
}

/* LAMMPS's mix_energy and mix_distance for lj/cut (pair.cpp). */
static double mix_distance(MdMix mix, double a, double b) {
  return mix == MIX_ARITHMETIC ? 0.5 * (a + b) : sqrt(a * b);
}

/* lj/cut as PairLJCut::init_one: pairs not given are mixed from i,i and j,j
 * (epsilon geometric; sigma and cutoff by the mixing rule); a pair's cutoff
 * is its own, else the global one. */
static int lj_init(Md *md, char *err, size_t len) {
  MdPotential *p = &md->pot;
  MdPairCoeffs *c = &md->coeff;
  int rc = lj_deck_coeffs(md, err, len);
  if (rc) return rc;
  int n = md->ntypes;
  double cut_ii[MD_MAX_TYPES];
  for (int i = 0; i < n; i++) cut_ii[i] = c->cut_set[i][i] ? c->cut[i][i] : md->cutoff;
  p->cut = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double eps, sig, cut;
      if (c->set[i][j]) {
        eps = c->eps[i][j];
        sig = c->sig[i][j];
        cut = c->cut_set[i][j] ? c->cut[i][j] : md->cutoff;
      } else {
        eps = sqrt(c->eps[i][i] * c->eps[j][j]);
        sig = mix_distance(md->mix, c->sig[i][i], c->sig[j][j]);
        cut = mix_distance(md->mix, cut_ii[i], cut_ii[j]);
      }
      p->cutsq_ij[i][j] = cut * cut;
      p->lj1[i][j] = 48.0 * eps * pow(sig, 12.0);
      p->lj2[i][j] = 24.0 * eps * pow(sig, 6.0);
      p->lj3[i][j] = 4.0 * eps * pow(sig, 12.0);
      p->lj4[i][j] = 4.0 * eps * pow(sig, 6.0);
      double ratio = sig / cut;
      p->e_at_cut[i][j] = 4.0 * eps * (pow(ratio, 12.0) - pow(ratio, 6.0));
      p->offset[i][j] = md->shift ? p->e_at_cut[i][j] : 0.0;
      if (cut > p->cut) p->cut = cut;
    }
  return 0;
}

/* Spline coefficients of f[0..n-1] on spacing delta: derivatives at the
 * knots from 4th-order differences (one-sided at the ends), a cubic per
 * interval matching values and those derivatives; in a table of rows (at
 * least n) rows, those past n zero. */
static MdSpline *spline_table(const double *f, int n, double delta, int rows) {
  MdSpline *s = aligned_alloc(MD_SPLINE_ALIGN, (size_t)rows * sizeof *s);
  if (!s) return NULL;
  memset(s, 0, (size_t)rows * sizeof *s);
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

/* How far past the cutoff a pair's r can land: r = sqrt(rsq) with rsq under
 * cut * cut rounded, a few units in the last place (1e-16); a wide margin. */
#define EAM_R_PAST_CUT 1e-9

static int r_rows_to_cut(double delta, double cut) { /* the rows a lookup can take */
  return (int)(cut * (1.0 + EAM_R_PAST_CUT) * (1.0 / delta) + 1.0) + 1;
}
static int r_table_rows(int n, double delta, double cut) {
  const int need = r_rows_to_cut(delta, cut);
  return need > n ? need : n;
}

/* An r table (density, r*phi) for lookups without clamps: a distance under
 * the cutoff (up to EAM_R_PAST_CUT past it, sqrt's rounding) has its row,
 * r * rdr + 1 truncated, less one, inside. LAMMPS clamps the row to n - 2
 * and the fraction to 1 (the spline's end, used as a constant past the
 * table); rows n - 1 on hold that constant, so the values are the same
 * numbers without the clamps. */
static MdSpline *r_spline_table(const double *f, int n, double delta, double cut) {
  const int rows = r_table_rows(n, delta, cut);
  MdSpline *s = spline_table(f, n, delta, rows);
  if (!s) return NULL;
  /* the last interval at p = 1, evaluated as force.c's clamped lookup does */
  const double value = spline_value(s[n - 2], 1.0), deriv = spline_deriv(s[n - 2], 1.0);
  for (int m = n - 1; m < rows; m++) {
    memset(s[m], 0, sizeof s[m]);
    s[m][2] = deriv;
    s[m][6] = value;
  }
  return s;
}

/* An EAM file read as LAMMPS's PotentialFileReader reads it (29 Sep 2021,
 * Debian's lmp): the comment lines at the top are skipped whole; then '#'
 * starts a comment anywhere; a header record (next_values) is the next line
 * with words, joined with the lines after it until it holds as many words as
 * the record needs; a table (next_dvector) takes values line after line,
 * blank lines included, and drops what is left of its last line; numbers in
 * decimal syntax only (utils::is_integer and is_double). */
typedef struct {
  FILE *f;
  const char *path;
  int line;
  char *buf; /* the current line, its comment cut off */
  size_t cap;
  char *words[MD_MAX_TYPES + 8]; /* a header record's first words */
  int nwords;
  char *record; /* the record's text, lines joined */
  size_t record_cap;
} Tokens;

static int tokens_line(Tokens *t) {
  if (getline(&t->buf, &t->cap, t->f) < 0) return 0;
  t->line++;
  char *hash = strchr(t->buf, '#');
  if (hash) *hash = '\0';
  return 1;
}

/* A comment line at the top (LAMMPS's skip_line: read whole, whatever it says). */
static int skip_line(Tokens *t, char *err, size_t len) {
  if (getline(&t->buf, &t->cap, t->f) >= 0) return t->line++, 0;
  snprintf(err, len, "%s:%d: malformed EAM file: it ends in its header", t->path, t->line);
  return FB_EXIT_USAGE;
}

static int count_words(const char *s) {
  int n = 0;
  for (s += strspn(s, " \t\r\n"); *s; s += strspn(s, " \t\r\n"), n++) s += strcspn(s, " \t\r\n");
  return n;
}

/* The next header record of at least `need` words (what: for messages);
 * t->words holds its first words. */
static int next_record(Tokens *t, int need, const char *what, char *err, size_t len) {
  size_t used = 0;
  int n = 0;
  while (n == 0 || n < need) {
    if (!tokens_line(t)) {
      snprintf(err, len, "%s:%d: malformed EAM file: it ends before %s (%d of %d values)", t->path,
               t->line, what, n, need);
      return FB_EXIT_USAGE;
    }
    size_t l = strlen(t->buf);
    if (used + l + 2 > t->record_cap) {
      size_t cap = 2 * (used + l + 2);
      char *grown = realloc(t->record, cap);
      if (!grown) return snprintf(err, len, "out of memory reading %s", t->path), FB_EXIT_RUNTIME;
      t->record = grown;
      t->record_cap = cap;
    }
    memcpy(t->record + used, t->buf, l);
    used += l;
    t->record[used++] = ' ';
    t->record[used] = '\0';
    n += count_words(t->buf);
  }
  t->nwords = 0;
  char *save = NULL;
  for (char *w = strtok_r(t->record, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save))
    if (t->nwords < (int)(sizeof t->words / sizeof t->words[0])) t->words[t->nwords++] = w;
  t->nwords = n; /* the record's word count (words[] holds the first ones) */
  return 0;
}

static int word_int(const char *w, int *v) {
  long long x;
  if (!md_lammps_number(w, 0)) return 0;
  errno = 0;
  x = strtoll(w, NULL, 10);
  if (errno || x < INT_MIN || x > INT_MAX) return 0;
  *v = (int)x;
  return 1;
}

static int word_double(const char *w, double *v) {
  if (!md_lammps_number(w, 1)) return 0;
  *v = strtod(w, NULL);
  return isfinite(*v);
}

static int read_values(Tokens *t, double *dst, int n, const char *what, const char *elem, char *err,
                       size_t len) {
  int k = 0;
  while (k < n) {
    if (!tokens_line(t)) {
      snprintf(err, len, "%s:%d: malformed EAM file: %s of %s ends after %d of %d values", t->path,
               t->line, what, elem, k, n);
      return FB_EXIT_USAGE;
    }
    char *save = NULL;
    for (char *w = strtok_r(t->buf, " \t\r\n", &save); w && k < n;
         w = strtok_r(NULL, " \t\r\n", &save))
      if (!word_double(w, &dst[k++])) {
        snprintf(err, len, "%s:%d: malformed EAM file: '%s' in %s of %s is not a number", t->path,
                 t->line, w, what, elem);
        return FB_EXIT_USAGE;
      }
  }
  return 0;
}

/* The grid record, 'Nrho drho Nr dr cutoff' (words after them ignored). */
static int read_grid(Tokens *t, MdPotential *p, char *err, size_t len) {
  int rc = next_record(t, 5, "'Nrho drho Nr dr cutoff'", err, len);
  if (rc) return rc;
  if (!word_int(t->words[0], &p->nrho) || !word_double(t->words[1], &p->drho) ||
      !word_int(t->words[2], &p->nr) || !word_double(t->words[3], &p->dr) ||
      !word_double(t->words[4], &p->cut)) {
    snprintf(err, len, "%s:%d: malformed EAM file: expected 'Nrho drho Nr dr cutoff'", t->path,
             t->line);
    return FB_EXIT_USAGE;
  }
  return 0;
}

/* An element's record, 'Z mass' (a lattice constant and name may follow). */
static int read_mass(Tokens *t, const char *elem, int *z, double *mass, char *err, size_t len) {
  int rc = next_record(t, 2, "'Z mass'", err, len);
  if (rc) return rc;
  if (!word_int(t->words[0], z) || !word_double(t->words[1], mass) || !(*mass > 0)) {
    snprintf(err, len, "%s:%d: malformed EAM file: expected 'Z mass' for %s", t->path, t->line,
             elem);
    return FB_EXIT_USAGE;
  }
  return 0;
}

/* LAMMPS's real -> metal energy factor (utils::get_conversion_factor,
 * REAL2METAL: kcal/mol to eV). */
#define EAM_REAL_TO_METAL (1.0 / 23.060549)

/* The units the file's first line names ("UNITS: metal"), as LAMMPS's
 * utils::get_potential_units reads them, against md's: the same or none,
 * factor 1; real in metal units, LAMMPS's conversion (energies times
 * EAM_REAL_TO_METAL, with a warning); anything else refused, as LAMMPS
 * refuses it. */
static int units_factor(Md *md, const char *text, size_t n, double *factor, char *err, size_t len) {
  *factor = 1.0;
  char first[1024] = "", units[32] = "";
  for (size_t at = 0; at < n;) { /* the first line with words */
    size_t l = strcspn(text + at, "\n");
    if (l > n - at) l = n - at;
    snprintf(first, sizeof first, "%.*s", (int)(l < sizeof first ? l : sizeof first - 1),
             text + at);
    if (count_words(first)) break;
    first[0] = '\0';
    at += l + 1;
  }
  char *save = NULL;
  for (char *w = strtok_r(first, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save))
    if (!strcmp(w, "UNITS:") && (w = strtok_r(NULL, " \t\r", &save))) {
      snprintf(units, sizeof units, "%s", w);
      break;
    }
  if (!units[0] || !strcmp(units, md->units.name)) return 0;
  if (!strcmp(units, "real") && !strcmp(md->units.name, "metal")) {
    *factor = EAM_REAL_TO_METAL;
    snprintf(md->pot.note, sizeof md->pot.note,
             "%s is in real units: its energies are converted to metal units (x %.9g, as LAMMPS "
             "converts them)",
             md->pot_file, EAM_REAL_TO_METAL);
    return 0;
  }
  snprintf(err, len, "%s: the file says UNITS: %s but md runs in %s units (LAMMPS refuses it too)",
           md->pot_file, units, md->units.name);
  return FB_EXIT_USAGE;
}

/* How far a file's cutoff may lie past the end of its r table, (Nr - 1) dr.
 * LAMMPS reads any cutoff and gives the pairs past the table the last knot's
 * values; lammps-data's files end up to 1e-4 short of their cutoffs
 * (Al_zhou.eam.alloy: table 10.1015, cutoff 10.1025). Further than this the
 * file is taken as malformed, not as a potential constant over a shell. */
#define EAM_CUT_PAST_TABLE 0.01

static int grid_ok(Tokens *t, int nrho, double drho, int nr, double dr, double cut, char *err,
                   size_t len) {
  if (nrho < 5 || nr < 5 || nrho > 10000000 || nr > 10000000 || !(drho > 0) || !(dr > 0) ||
      !(cut > 0) || !isfinite((nrho - 1) * drho) || !isfinite((nr - 1) * dr)) {
    snprintf(err, len,
             "%s:%d: malformed EAM file: bad grid 'Nrho drho Nr dr cutoff' (%d %g %d %g %g)",
             t->path, t->line, nrho, drho, nr, dr, cut);
    return FB_EXIT_USAGE;
  }
  if (cut > (nr - 1) * dr * (1 + EAM_CUT_PAST_TABLE)) {
    snprintf(err, len,
             "%s:%d: malformed EAM file: cutoff %g lies more than %g%% past the r table's end "
             "(Nr - 1) dr = %g",
             t->path, t->line, cut, 100 * EAM_CUT_PAST_TABLE, (nr - 1) * dr);
    return FB_EXIT_USAGE;
  }
  return 0;
}

/* LAMMPS's grid for a funcfl table of n values on spacing delta
 * (PairEAM::file2array): int((n - 1) delta / delta + 0.5) knots, one fewer
 * than the file's, so its last value is never a knot. */
static int funcfl_knots(int n, double delta) { return (int)((n - 1) * delta / delta + 0.5); }

/* Values at that grid's knots: cubic Lagrange interpolation through four of
 * the file's values (the pair below and the pair above, shifted inwards at
 * the ends), as PairEAM::file2array resamples every funcfl table; at a
 * knot that is the file's value up to rounding. */
static void funcfl_resample(const double *f, int n, double delta, double *out, int knots) {
  for (int m = 0; m < knots; m++) {
    double q = m * delta / delta + 1.0;
    int k = (int)q;
    if (k > n - 2) k = n - 2;
    if (k < 2) k = 2;
    q -= k;
    if (q > 2.0) q = 2.0;
    const double c1 = -q * (q - 1.0) * (q - 2.0) / 6.0, c2 = 0.5 * (q * q - 1.0) * (q - 2.0),
                 c3 = -0.5 * q * (q + 1.0) * (q - 2.0), c4 = q * (q * q - 1.0) / 6.0;
    out[m] = c1 * f[k - 2] + c2 * f[k - 1] + c3 * f[k] + c4 * f[k + 1];
  }
}

/* funcfl: one element; every type uses it. Its tables are resampled as
 * LAMMPS does (above); the embedding's linear extension still starts at the
 * file's last density, (Nrho - 1) drho, as in LAMMPS. */
static int read_funcfl(Md *md, Tokens *t, double factor, char *err, size_t len) {
  MdPotential *p = &md->pot;
  double mass;
  int z, rc = skip_line(t, err, len);
  if (!rc) rc = read_mass(t, "the element", &z, &mass, err, len);
  if (!rc) rc = read_grid(t, p, err, len);
  if (rc) return rc;
  if (grid_ok(t, p->nrho, p->drho, p->nr, p->dr, p->cut, err, len)) return FB_EXIT_USAGE;
  double *frho = malloc((size_t)p->nrho * sizeof *frho), *zr = malloc((size_t)p->nr * sizeof *zr),
         *rhor = malloc((size_t)p->nr * sizeof *rhor);
  double *g_frho = NULL, *g_zr = NULL, *g_rhor = NULL; /* on LAMMPS's grid */
  rc = FB_EXIT_RUNTIME;
  if (!frho || !zr || !rhor) {
    snprintf(err, len, "out of memory reading %s", t->path);
    goto out;
  }
  if ((rc = read_values(t, frho, p->nrho, "F(rho)", "the element", err, len)) ||
      (rc = read_values(t, zr, p->nr, "Z(r)", "the element", err, len)) ||
      (rc = read_values(t, rhor, p->nr, "rho(r)", "the element", err, len)))
    goto out;
  for (int k = 0; k < p->nrho; k++) frho[k] *= factor; /* as LAMMPS converts units */
  for (int k = 0; k < p->nr; k++) zr[k] *= sqrt(factor);
  p->rhomax = (p->nrho - 1) * p->drho;
  const int nrho = funcfl_knots(p->nrho, p->drho), nr = funcfl_knots(p->nr, p->dr);
  if (!(g_frho = malloc((size_t)nrho * sizeof *g_frho)) ||
      !(g_zr = malloc((size_t)nr * sizeof *g_zr)) ||
      !(g_rhor = malloc((size_t)nr * sizeof *g_rhor))) {
    rc = FB_EXIT_RUNTIME;
    snprintf(err, len, "out of memory reading %s", t->path);
    goto out;
  }
  funcfl_resample(frho, p->nrho, p->drho, g_frho, nrho);
  funcfl_resample(zr, p->nr, p->dr, g_zr, nr);
  funcfl_resample(rhor, p->nr, p->dr, g_rhor, nr);
  p->nrho = nrho;
  p->nr = nr;
  for (int k = 0; k < nr; k++) g_zr[k] = EAM_HARTREE_BOHR * g_zr[k] * g_zr[k];
  p->nelements = 1;
  p->file_mass[0] = mass;
  snprintf(p->element[0], sizeof p->element[0], "Z%d", z);
  p->frho[0] = spline_table(g_frho, nrho, p->drho, nrho);
  p->rhor[0][0] = r_spline_table(g_rhor, nr, p->dr, p->cut);
  p->z2r[0][0] = r_spline_table(g_zr, nr, p->dr, p->cut);
  rc = p->frho[0] && p->rhor[0][0] && p->z2r[0][0] ? 0 : FB_EXIT_RUNTIME;
  if (rc) snprintf(err, len, "out of memory reading %s", t->path);
out:
  free(frho);
  free(zr);
  free(rhor);
  free(g_frho);
  free(g_zr);
  free(g_rhor);
  return rc;
}

/* setfl: several elements, pair functions r*phi for i >= j. An eam/fs
 * file is a setfl file whose elements each hold, after F(rho), one density
 * function for every element (PairEAMFS::read_file: rhor[i][j], the
 * density an atom of element i gives one of element j). */
static int read_setfl(Md *md, Tokens *t, double factor, int fs, char *err, size_t len) {
  MdPotential *p = &md->pot;
  int rc = 0;
  for (int k = 0; k < 3 && !rc; k++) rc = skip_line(t, err, len);
  if (!rc) rc = next_record(t, 1, "the element line", err, len);
  if (rc) return rc;
  int ne;
  if (!word_int(t->words[0], &ne) || ne < 1 || ne > MD_MAX_TYPES) {
    snprintf(err, len, "%s:%d: malformed EAM file: element count must be 1 to %d", t->path, t->line,
             MD_MAX_TYPES);
    return FB_EXIT_USAGE;
  }
  if (t->nwords != ne + 1) { /* LAMMPS: "Incorrect element names in EAM potential file" */
    snprintf(err, len, "%s:%d: malformed EAM file: %d element names for %d elements", t->path,
             t->line, t->nwords - 1, ne);
    return FB_EXIT_USAGE;
  }
  for (int e = 0; e < ne; e++) snprintf(p->element[e], sizeof p->element[e], "%s", t->words[e + 1]);
  p->nelements = ne;
  if ((rc = read_grid(t, p, err, len))) return rc;
  if (grid_ok(t, p->nrho, p->drho, p->nr, p->dr, p->cut, err, len)) return FB_EXIT_USAGE;
  p->rhomax = (p->nrho - 1) * p->drho;
  size_t nmax = (size_t)(p->nrho > p->nr ? p->nrho : p->nr);
  double *buf_v = malloc(nmax * sizeof *buf_v);
  if (!buf_v) {
    snprintf(err, len, "out of memory reading %s", t->path);
    return FB_EXIT_RUNTIME;
  }
  for (int e = 0; e < ne && !rc; e++) {
    int z;
    if ((rc = read_mass(t, p->element[e], &z, &p->file_mass[e], err, len))) break;
    if ((rc = read_values(t, buf_v, p->nrho, "F(rho)", p->element[e], err, len))) break;
    for (int k = 0; k < p->nrho; k++) buf_v[k] *= factor; /* as LAMMPS converts units */
    p->frho[e] = spline_table(buf_v, p->nrho, p->drho, p->nrho);
    for (int f = 0; f < (fs ? ne : 1) && !rc; f++) {
      char what[48];
      snprintf(what, sizeof what, fs ? "rho(r) for %s" : "rho(r)", p->element[f]);
      if ((rc = read_values(t, buf_v, p->nr, what, p->element[e], err, len))) break;
      p->rhor[e][f] = r_spline_table(buf_v, p->nr, p->dr, p->cut);
    }
  }
  p->rhor_per_pair = fs;
  for (int e = 0; e < ne && !fs; e++) /* setfl: the element's density for every element */
    for (int f = 1; f < ne; f++) p->rhor[e][f] = p->rhor[e][0];
  for (int i = 0; i < ne && !rc; i++)
    for (int j = 0; j <= i && !rc; j++) {
      char what[48];
      snprintf(what, sizeof what, "r*phi(r) with %s", p->element[j]);
      if ((rc = read_values(t, buf_v, p->nr, what, p->element[i], err, len))) break;
      for (int k = 0; k < p->nr; k++) buf_v[k] *= factor;
      p->z2r[i][j] = p->z2r[j][i] = r_spline_table(buf_v, p->nr, p->dr, p->cut);
    }
  free(buf_v);
  return rc;
}

/* The force pass's rows (md.h's MdPairRow) for every ordered pair of
 * elements the types map to, from the density and r*phi tables, up to the
 * cutoff: 128 bytes a row, so 1.3 MB for each pair of elements on a table of
 * 10000 rows to the cutoff (LAMMPS's files: 500 to 10000). */
static int pair_rows(MdPotential *p, int ntypes) {
  const int rows = r_rows_to_cut(p->dr, p->cut);
  for (int ti = 0; ti < ntypes; ti++)
    for (int tj = 0; tj < ntypes; tj++) {
      const int ei = p->elem_of_type[ti], ej = p->elem_of_type[tj];
      if (p->pair_row[ei][ej]) continue;
      MdPairRow *w = aligned_alloc(MD_SPLINE_ALIGN, (size_t)rows * sizeof *w);
      if (!w) return FB_EXIT_RUNTIME;
      p->pair_row[ei][ej] = w;
      for (int m = 0; m < rows; m++) {
        const double *ri = p->rhor[ei][ej][m], *rj = p->rhor[ej][ei][m], *z = p->z2r[ei][ej][m];
        const double lane[4][4] = {{0.0, ri[0], ri[1], ri[2]},
                                   {0.0, rj[0], rj[1], rj[2]},
                                   {0.0, z[0], z[1], z[2]},
                                   {z[3], z[4], z[5], z[6]}};
        for (int c = 0; c < 4; c++)
          for (int l = 0; l < 4; l++) w[m][4 * c + l] = lane[l][c];
      }
    }
  return 0;
}

/* Maps types to elements: deck 'elements' (one per type, or one for all),
 * else every type to the first element. */
static int map_elements(Md *md, char *err, size_t len) {
  MdPotential *p = &md->pot;
  char names[FB_DECK_STR], *save = NULL;
  snprintf(names, sizeof names, "%s", md->elements);
  int n = 0;
  for (char *tok = strtok_r(names, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), n++) {
    if (n >= md->ntypes) {
      snprintf(err, len, "%s: 'elements' names more than %d types", md->deck_path, md->ntypes);
      return FB_EXIT_USAGE;
    }
    int e = 0;
    while (e < p->nelements && strcmp(p->element[e], tok)) e++;
    if (e == p->nelements && !(p->nelements == 1 && !strcmp(md->pair_style, "eam"))) {
      snprintf(err, len, "%s: element '%s' is not in %s", md->deck_path, tok, md->pot_file);
      return FB_EXIT_USAGE;
    }
    p->elem_of_type[n] = e == p->nelements ? 0 : e;
  }
  if (n != 0 && n != 1 && n != md->ntypes) {
    snprintf(err, len, "%s: 'elements' needs one name or one per type (%d)", md->deck_path,
             md->ntypes);
    return FB_EXIT_USAGE;
  }
  for (int t = n; t < md->ntypes; t++) p->elem_of_type[t] = n == 1 ? p->elem_of_type[0] : 0;
  return 0;
}

int md_potential_init(Md *md, const char *file_text, size_t file_len, char *err, size_t len) {
  MdPotential *p = &md->pot;
  snprintf(p->style, sizeof p->style, "%s", md->pair_style);
  p->ntypes = md->ntypes;
  if (p->kind == POT_LJ) {
    int rc = lj_init(md, err, len);
    if (rc) return rc;
  } else {
    double factor;
    int rc = units_factor(md, file_text, file_len, &factor, err, len);
    if (rc) return rc;
    Tokens t = {.f = file_len ? fmemopen((void *)file_text, file_len, "r") : NULL,
                .path = md->pot_file};
    if (!t.f) {
      snprintf(err, len, "%s: malformed EAM file: empty", md->pot_file);
      return FB_EXIT_USAGE;
    }
    rc = !strcmp(md->pair_style, "eam")
             ? read_funcfl(md, &t, factor, err, len)
             : read_setfl(md, &t, factor, !strcmp(md->pair_style, "eam/fs"), err, len);
    fclose(t.f);
    free(t.buf);
    free(t.record);
    if (rc) return rc;
    if ((rc = map_elements(md, err, len))) return rc;
    if ((rc = pair_rows(p, md->ntypes))) {
      snprintf(err, len, "out of memory for the EAM tables of %s", md->pot_file);
      return rc;
    }
    p->rdr = 1.0 / p->dr;
    p->rdrho = 1.0 / p->drho;
  }
  p->cutsq = p->cut * p->cut;
  if (p->kind == POT_EAM)
    for (int i = 0; i < md->ntypes; i++)
      for (int j = 0; j < md->ntypes; j++) p->cutsq_ij[i][j] = p->cutsq;
  return 0;
}

void md_potential_free(MdPotential *p) {
  for (int e = 0; e < MD_MAX_TYPES; e++) {
    free(p->frho[e]);
    for (int f = 0; f < (p->rhor_per_pair ? MD_MAX_TYPES : 1); f++) free(p->rhor[e][f]);
    for (int f = 0; f <= e; f++) free(p->z2r[e][f]);
    for (int f = 0; f < MD_MAX_TYPES; f++) free(p->pair_row[e][f]);
  }
}
