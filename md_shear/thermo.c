/* thermo.c: temperatures (LAMMPS's compute temp and temp/partial), the
 * simulation box of shrink-wrapped dimensions (Domain::reset_box), and the
 * thermo row with LAMMPS's definitions: kinetic energy and pressure from the
 * thermo temperature (thermo_modify temp), extensive values per atom in lj
 * units (thermo_modify norm), the volume of the current box. */
#include "md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The degrees of freedom of a temperature compute: N per velocity
 * component used, less the 3 of the centre of mass in proportion
 * (ComputeTemp: 3N - 3; ComputeTempPartial: n N - n 3 / 3). */
static double compute_dof(const MdCompute *c) {
  int ncomp = c->use[0] + c->use[1] + c->use[2];
  return ncomp * (double)c->count - ncomp;
}

/* Sum of m v_c^2 over the compute's group and components (local). */
static double twice_ke(const Md *md, const MdCompute *c) {
  const MdAtoms *a = &md->atoms;
  const int bit = 1 << c->group;
  double sum = 0.0;
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & bit)) continue;
    double m = md->mass[a->type[i]];
    for (int k = 0; k < 3; k++)
      if (c->use[k]) sum += m * a->v[i][k] * a->v[i][k];
  }
  return sum;
}

static double temperature_of(const Md *md, const MdCompute *c, double sum, double *dof_out) {
  double dof = compute_dof(c);
  if (dof_out) *dof_out = dof;
  return dof > 0.0 ? sum * md->units.mvv2e / (dof * md->units.boltz) : 0.0;
}

double md_temperature(FbContext *ctx, Md *md, int compute, double *dof_out) {
  const MdCompute *c = &md->compute[compute];
  double sum = twice_ke(md, c);
  md_sum_exact(ctx, &sum, 1);
  return temperature_of(md, c, sum, dof_out);
}

/* LAMMPS's Domain::reset_box for atoms spanning lo..hi: in s dimensions
 * the extent and small beyond it, in m dimensions never inside the initial
 * box; the other dimensions' bounds are left as they are. */
void md_wrapped_box(const Md *md, const double lo[3], const double hi[3], double boxlo[3],
                    double boxhi[3]) {
  for (int d = 0; d < 3; d++) {
    if (md->boundary[d] == 's') {
      boxlo[d] = lo[d] - md->small[d];
      boxhi[d] = hi[d] + md->small[d];
    } else if (md->boundary[d] == 'm') {
      boxlo[d] = fmin(lo[d] - md->small[d], md->boxlo[d]);
      boxhi[d] = fmax(hi[d] + md->small[d], md->boxhi[d]);
    }
  }
}

/* Domain::reset_box in a tilted box: the atoms' lamda extent lo..hi (in the
 * box now) to x y z along each dimension (lamda2x of (lo, 0, 0) and so on),
 * the s and m dimensions' bounds from it (md_wrapped_box), the tilts kept
 * ("don't want to sneakily change tilt"), and the frame of the new box. */
void md_wrap_tilted(Md *md, const double lo[3], const double hi[3]) {
  double xlo[3], xhi[3];
  for (int d = 0; d < 3; d++) {
    xlo[d] = md->h[d] * lo[d] + md->simlo[d];
    xhi[d] = md->h[d] * hi[d] + md->simlo[d];
  }
  md_wrapped_box(md, xlo, xhi, md->simlo, md->simhi);
  md_set_frame(md);
}

/* Domain::reset_box: in shrink-wrapped dimensions the box is the atoms'
 * extent plus 1e-4 of the initial box (m: never inside the initial box);
 * LAMMPS does it at the set-up of each run and at every reneighbouring. A
 * tilted box's extent is in its lamda coordinates (md_wrap_tilted). */
void md_reset_box(FbContext *ctx, Md *md) {
  int wrap = 0;
  for (int d = 0; d < 3; d++) wrap |= md->boundary[d] == 's' || md->boundary[d] == 'm';
  if (!wrap) return;
  double lo[3], hi[3];
  for (int d = 0; d < 3; d++) lo[d] = INFINITY, hi[d] = -INFINITY;
  const MdAtoms *a = &md->atoms;
  for (int i = 0; i < a->n_local; i++) {
    double at[3];
    if (md->triclinic)
      md_x2lamda(md, a->x[i], at);
    else
      memcpy(at, a->x[i], sizeof at);
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], at[d]);
      hi[d] = fmax(hi[d], at[d]);
    }
  }
  md_minmax(ctx, lo, hi);
  if (md->triclinic)
    md_wrap_tilted(md, lo, hi);
  else
    md_wrapped_box(md, lo, hi, md->simlo, md->simhi);
}

static void append_thermo(Md *md, const char *row) {
  size_t n = strlen(row);
  if (md->thermo_len + n + 2 > md->thermo_cap) {
    size_t cap = md->thermo_cap ? 2 * md->thermo_cap : 4096;
    while (cap < md->thermo_len + n + 2) cap *= 2;
    char *p = realloc(md->thermo_json, cap);
    if (!p) return; /* the table in the record is then shorter; the run goes on */
    md->thermo_json = p;
    md->thermo_cap = cap;
  }
  if (md->thermo_len) md->thermo_json[md->thermo_len++] = ',';
  memcpy(md->thermo_json + md->thermo_len, row, n + 1);
  md->thermo_len += n;
}

void md_thermo_header(FbContext *ctx, const Md *md) {
  char line[MD_MAX_COLUMNS * 20] = "";
  size_t at = 0;
  for (int c = 0; c < md->ncolumns && at < sizeof line; c++)
    at += (size_t)snprintf(line + at, sizeof line - at, c ? " %16s" : "%10s", md->column[c].header);
  fb_print(ctx, "%s\n", line);
}

/* The quantities of one thermo row, all from exact global sums. */
typedef struct {
  double temp[MD_MAX_COMPUTES], dof[MD_MAX_COMPUTES];
  double pe, pe_smooth, ke, etotal, press, volume, mass, fmax, fnorm;
  double ptensor[6]; /* the pressure tensor (xx yy zz xy xz yz), when wanted */
  double momentum[3], momentum_abs;
  long long atoms;
} ThermoValues;

/* The kinetic tensor m v_a v_b (xx yy zz xy xz yz, local) of compute c's
 * group and components (ComputeTemp's and ComputeTempPartial's vector). */
static void ke_tensor(const Md *md, const MdCompute *c, double t[6]) {
  const MdAtoms *a = &md->atoms;
  const int bit = 1 << c->group;
  static const int A[6] = {0, 1, 2, 0, 0, 1}, B[6] = {0, 1, 2, 1, 2, 2};
  for (int k = 0; k < 6; k++) t[k] = 0.0;
  for (int i = 0; i < a->n_local; i++) {
    if (!(a->group[i] & bit)) continue;
    double m = md->mass[a->type[i]];
    for (int k = 0; k < 6; k++)
      if (c->use[A[k]] && c->use[B[k]]) t[k] += m * a->v[i][A[k]] * a->v[i][B[k]];
  }
}

static void thermo_values(FbContext *ctx, Md *md, ThermoValues *t) {
  const MdAtoms *a = &md->atoms;
  int nc = md->ncomputes, n = 0;
  /* per compute twice its KE; pair energy, virial, E(rc); momentum and |p|; mass, sum of f^2;
   * the kinetic and virial tensors */
  double sums[MD_MAX_COMPUTES + 3 + 4 + 2 + 12];
  for (int c = 0; c < nc; c++) sums[n++] = twice_ke(md, &md->compute[c]);
  sums[n++] = md->e_pair;
  sums[n++] = md->virial;
  sums[n++] = md->e_cut;
  double *p = sums + n;
  p[0] = p[1] = p[2] = p[3] = 0.0;
  for (int i = 0; i < a->n_local; i++)
    for (int k = 0; k < 3; k++) {
      p[k] += md->mass[a->type[i]] * a->v[i][k];
      p[3] += md->mass[a->type[i]] * fabs(a->v[i][k]);
    }
  n += 4;
  /* the total mass, the sum of the squared forces, the tensors' 12 */
  double *mass = sums + n++, *f2 = sums + n++, *tensor = sums + n;
  *mass = *f2 = 0.0;
  t->fmax = 0.0;
  for (int i = 0; i < a->n_local; i++) {
    *mass += md->mass[a->type[i]];
    for (int k = 0; k < 3; k++) {
      *f2 += a->f[i][k] * a->f[i][k];
      t->fmax = fmax(t->fmax, fabs(a->f[i][k]));
    }
  }
  if (md->fmax_wanted) md_max(ctx, &t->fmax, 1);
  const int th = md->stage_plan[md->stage].thermo_temp;
  if (md->tensor_wanted) {
    ke_tensor(md, &md->compute[th], tensor);
    memcpy(tensor + 6, md->virial_tensor, sizeof md->virial_tensor);
    n += 12;
  }
  md_sum_exact(ctx, sums, n);
  for (int c = 0; c < nc; c++)
    t->temp[c] = temperature_of(md, &md->compute[c], sums[c], &t->dof[c]);
  t->atoms = md_count(ctx, a->n_local);
  t->volume = 1.0;
  for (int d = 0; d < 3; d++) t->volume *= md->simhi[d] - md->simlo[d];
  t->pe = sums[nc];
  /* plain truncation jumps by E(rc) when a pair crosses the cutoff: the
   * smooth energy removes those jumps (the shifted potential's energy) */
  t->pe_smooth = sums[nc] - (md->shift ? 0.0 : sums[nc + 2]);
  t->ke = t->temp[th] * 0.5 * t->dof[th] * md->units.boltz;
  t->etotal = t->pe + t->ke;
  t->press = (t->dof[th] * md->units.boltz * t->temp[th] + sums[nc + 1]) / (3.0 * t->volume) *
             md->units.nktv2p;
  memcpy(t->momentum, sums + nc + 3, sizeof t->momentum);
  t->momentum_abs = sums[nc + 6];
  t->mass = *mass;
  t->fnorm = sqrt(*f2);
  /* ComputePressure's vector: (ke tensor + virial) / V, per component */
  for (int k = 0; k < 6; k++)
    t->ptensor[k] = md->tensor_wanted ? (tensor[k] * md->units.mvv2e + tensor[6 + k]) / t->volume *
                                            md->units.nktv2p
                                      : NAN;
}

static double column_value(const Md *md, const MdColumn *c, const ThermoValues *t) {
  const double norm = md->thermo_norm ? 1.0 / (double)md->natoms : 1.0;
  const int th = md->stage_plan[md->stage].thermo_temp;
  switch (c->key) {
  case TH_STEP: return (double)md->step;
  case TH_TEMP: return t->temp[th];
  case TH_EPAIR:
  case TH_PE: return t->pe * norm;
  case TH_EMOL: return 0.0;
  case TH_KE: return t->ke * norm;
  case TH_ETOTAL: return t->etotal * norm;
  case TH_PRESS: return t->press;
  case TH_VOL: return t->volume;
  case TH_ATOMS: return (double)t->atoms;
  case TH_LX: return md->simhi[0] - md->simlo[0];
  case TH_LY: return md->simhi[1] - md->simlo[1];
  case TH_LZ: return md->simhi[2] - md->simlo[2];
  case TH_PXX:
  case TH_PYY:
  case TH_PZZ:
  case TH_PXY:
  case TH_PXZ:
  case TH_PYZ: return t->ptensor[c->key - TH_PXX];
  case TH_DENSITY: return md->units.mv2d * t->mass / t->volume;
  case TH_EVDWL: return t->pe * norm; /* lj/cut and EAM tally all of it as van der Waals */
  case TH_ECOUL: return 0.0;
  case TH_ENTHALPY: /* Thermo::compute_enthalpy: etotal + press vol, normalised alike */
    return t->etotal * norm + t->press * t->volume * norm / md->units.nktv2p;
  case TH_FMAX: return t->fmax;
  case TH_FNORM: return t->fnorm;
  case TH_XLO:
  case TH_YLO:
  case TH_ZLO: return md->simlo[(c->key - TH_XLO) / 2];
  case TH_XHI:
  case TH_YHI:
  case TH_ZHI: return md->simhi[(c->key - TH_XHI) / 2];
  case TH_XY:
  case TH_XZ:
  case TH_YZ: return md->tilt[c->key - TH_XY];
  case TH_DT: return md->dt;
  case TH_ELAPSED: return (double)(md->step - md->stage_begin);
  case TH_COMPUTE: return t->temp[c->compute];
  }
  return NAN;
}

/* Energy bookkeeping for validation: the drift of the total energy and of
 * the smooth energy, and the momentum. */
static void track(Md *md, const ThermoValues *t) {
  double smooth = t->pe_smooth + t->ke;
  if (md->thermo_rows == 0) {
    md->e_first = t->etotal;
    md->es_first = smooth;
    md->e_scale = 0.0;
    memcpy(md->p_first, t->momentum, sizeof md->p_first);
    md->p_abs = t->momentum_abs;
  }
  md->e_scale = fmax(md->e_scale, fabs(t->pe) + fabs(t->ke)); /* validate.c */
  md->e_max_dev = fmax(md->e_max_dev, fabs(t->etotal - md->e_first));
  md->es_max_dev = fmax(md->es_max_dev, fabs(smooth - md->es_first));
  md->e_last = t->etotal;
  memcpy(md->p_last, t->momentum, sizeof md->p_last);
  if (t->atoms != md->natoms) md->lost_atoms = md->natoms - t->atoms;
  md->thermo_rows++;
}

void md_thermo(FbContext *ctx, Md *md, int print) {
  ThermoValues t;
  thermo_values(ctx, md, &t);
  track(md, &t);
  if (ctx->rank != 0) return;
  char line[MD_MAX_COLUMNS * 24] = "", row[MD_MAX_COLUMNS * 26];
  size_t at = 0, rat = (size_t)snprintf(row, sizeof row, "[%d", md->stage);
  for (int c = 0; c < md->ncolumns; c++) {
    double v = column_value(md, &md->column[c], &t);
    const MdThermoKey key = md->column[c].key;
    if (key == TH_STEP || key == TH_ATOMS || key == TH_ELAPSED) {
      at += (size_t)snprintf(line + at, sizeof line - at, c ? " %16lld" : "%10lld", (long long)v);
      rat += (size_t)snprintf(row + rat, sizeof row - rat, ",%lld", (long long)v);
    } else {
      at += (size_t)snprintf(line + at, sizeof line - at, c ? " %16.10g" : "%10.10g", v);
      rat += (size_t)snprintf(row + rat, sizeof row - rat, ",%.17g", v);
    }
  }
  snprintf(row + rat, sizeof row - rat, "]");
  if (print) fb_print(ctx, "%s\n", line);
  append_thermo(md, row);
}
