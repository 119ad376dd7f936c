/* fuzz_eam.c: libFuzzer harness for md_shear's EAM potential reader. The
 * first byte picks the format (even: funcfl, pair_style eam; odd: setfl,
 * eam/alloy, or with its high bit Finnis-Sinclair, eam/fs) and the number
 * of atom types; the rest is the file. */
#include "../../md_shear/md.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a successful read promises: a usable grid (four knots at least: a
 * file has five, and a funcfl file's grid is one shorter, as LAMMPS's) and,
 * for every type, an element with its three tables and a positive mass. */
static void check_tables(const Md *md) {
  const MdPotential *p = &md->pot;
  if (p->nelements < 1 || p->nelements > MD_MAX_TYPES || p->nrho < 4 || p->nr < 4 ||
      !(p->drho > 0) || !(p->dr > 0) || !(p->cut > 0) || !(p->cutsq > 0))
    abort();
  for (int t = 0; t < md->ntypes; t++) {
    int e = p->elem_of_type[t];
    if (e < 0 || e >= p->nelements || !p->frho[e] || !(p->file_mass[e] > 0)) abort();
    for (int u = 0; u < md->ntypes; u++)
      if (!p->z2r[e][p->elem_of_type[u]] || !p->rhor[e][p->elem_of_type[u]]) abort();
  }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size < 1 || memchr(data + 1, 0, size - 1)) return 0; /* the app refuses NUL bytes first */
  char *text = malloc(size);
  if (!text) return 0;
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  static Md md;
  memset(&md, 0, sizeof md);
  snprintf(md.pot_file, sizeof md.pot_file, "fuzz.eam");
  snprintf(md.deck_path, sizeof md.deck_path, "fuzz.ini");
  snprintf(md.pair_style, sizeof md.pair_style, "%s",
           !(data[0] & 1)   ? "eam"
           : data[0] & 0x80 ? "eam/fs"
                            : "eam/alloy");
  md.ntypes = 1 + ((data[0] & 0x7f) >> 1) % MD_MAX_TYPES;
  md.pot.kind = POT_EAM;
  md.units.name = "metal"; /* a file's UNITS: tag is checked against it */
  char err[FB_MSG_LEN] = "";
  int rc = md_potential_init(&md, text, size - 1, err, sizeof err);
  if (getenv("FUZZ_SHOW")) fprintf(stderr, "rc %d: %s\n", rc, err); /* reading an artifact */
  if (rc == 0)
    check_tables(&md);
  else if (!err[0])
    abort();
  md_potential_free(&md.pot);
  free(text);
  return 0;
}
