/* fuzz_mddata.c: libFuzzer harness for md_shear's LAMMPS data-file reader,
 * as one rank owning the whole box reads it: header pass, then atoms. The
 * reader gets text (the app refuses a file with a NUL byte before it). */
#include "../../md_shear/md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a successful read promises: every atom once, inside the box (a
 * periodic dimension's [lo, hi), a shrink-wrapped one's LAMMPS margin; a
 * tilted box's lamda cube), with a
 * known type, a positive mass for every type when Masses was given, and the
 * file's ids ascending when they are not 1..N. */
static void check_atoms(const Md *md) {
  if (md->atoms.n_local != md->natoms || md->ntypes < 1 || md->ntypes > MD_MAX_TYPES) abort();
  char *seen = calloc((size_t)md->natoms + 1, 1);
  for (int i = 0; i < md->atoms.n_local; i++) {
    long long id = md->atoms.id[i];
    if (id < 1 || id > md->natoms || seen[id]) abort();
    seen[id] = 1;
    if (md->atoms.type[i] < 0 || md->atoms.type[i] >= md->ntypes) abort();
    double lamda[3]; /* a tilted box's: [0, 1], rounding at 1 (lamda2x and back) */
    md_x2lamda(md, md->atoms.x[i], lamda);
    for (int d = 0; d < 3 && md->triclinic; d++)
      if (!(lamda[d] >= -1e-9 && lamda[d] <= 1.0 + 1e-9)) abort();
    for (int d = 0; d < 3 && !md->triclinic; d++) {
      double x = md->atoms.x[i][d], lo = md->boxlo[d], hi = md->boxhi[d];
      double small = md->boundary[d] == 's' ? MD_SHRINK_SMALL * (hi - lo) : 0.0;
      if (!(x >= lo - small && x < hi + small)) abort();
    }
  }
  for (long long k = 1; md->tags && k < md->natoms; k++)
    if (!(md->tags[k] > md->tags[k - 1] && md->tags[0] >= 1)) abort();
  for (int t = 0; md->mass_data_given && t < md->ntypes; t++)
    if (!(md->mass_data[t] > 0.0)) abort();
  free(seen);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (memchr(data, 0, size)) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  static Md md;
  char err[FB_MSG_LEN] = "";
  int rc = 0;
  /* the shear layout (z shrink-wrapped); a tilted file refused there (an
   * atom past z's tilted faces), again all periodic */
  for (int tilted = 0; tilted < 2; tilted++) {
    if (tilted) { /* what the first reading left */
      md_atoms_free(&md.atoms);
      free(md.tags);
    }
    memset(&md, 0, sizeof md);
    snprintf(md.data_file, sizeof md.data_file, "fuzz.data");
    md.periodic[0] = md.periodic[1] = 1;
    md.periodic[2] = tilted;
    md.boundary[0] = md.boundary[1] = 'p';
    md.boundary[2] = tilted ? 'p' : 's';
    for (int d = 0; d < 3; d++) md.decomp.dims[d] = 1;
    md.pot.kind = POT_LJ;
    err[0] = '\0';
    rc = md_read_data(&md, text, size, 0, err, sizeof err);
    if (rc == 0) rc = md_read_data(&md, text, size, 1, err, sizeof err);
    if (rc == 0 || !md.triclinic) break;
  }
  if (getenv("FUZZ_SHOW")) fprintf(stderr, "rc %d: %s\n", rc, err); /* reading an artifact */
  if (rc == 0)
    check_atoms(&md);
  else if (!err[0])
    abort();
  md_atoms_free(&md.atoms);
  free(md.tags);
  free(text);
  return 0;
}
