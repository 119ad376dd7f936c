/* plan.c: what a LAMMPS input does around its runs, from the deck: groups
 * (group ... type / region block / union / subtract / intersect, and set
 * type), temperature computes (temp, temp/partial), fix setforce, the runs
 * with their velocity commands, temp/rescale and thermo_modify temp, and
 * the thermo and dump columns. Groups are made once, at set-up, as LAMMPS's
 * group command makes them. */
#include "md.h"
#include "deck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int md_group_index(const Md *md, const char *name) {
  for (int g = 0; g < md->ngroups; g++)
    if (!strcmp(md->group_name[g], name)) return g;
  return -1;
}

int md_compute_index(const Md *md, const char *name) {
  for (int c = 0; c < md->ncomputes; c++)
    if (!strcmp(md->compute[c].name, name)) return c;
  return -1;
}

static int plain_name(const char *s) {
  if (!*s || strlen(s) >= MD_NAME) return 0;
  for (const char *p = s; *p; p++)
    if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9')))
      return 0;
  return 1;
}

/* A group or compute named in a key (index >= 0), or the deck error naming it. */
static int need(FbContext *ctx, const Md *md, const char *section, const char *key, int index,
                const char *what, const char *name) {
  if (index < 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "no %s '%s' (%s)", what, name,
             strcmp(what, "group") ? "thermo_temp or one in [computes]"
                                   : "groups: all and those in [groups]");
    md_deck_fail(ctx, md, section, key, msg);
  }
  return index;
}

static int need_group(FbContext *ctx, const Md *md, const char *section, const char *key,
                      const char *name) {
  return need(ctx, md, section, key, md_group_index(md, name), "group", name);
}

static int need_compute(FbContext *ctx, const Md *md, const char *section, const char *key,
                        const char *name) {
  return need(ctx, md, section, key, md_compute_index(md, name), "compute", name);
}

/* "INF", "-INF" or a number, in the group's units. */
/* A block bound, as LAMMPS's region block reads it: INF, -INF and EDGE are
 * the open end on either side (below a lower bound, above an upper one; no
 * atom lies past the box's edge). */
static int bound(const char *tok, int upper, double *out) {
  if (!strcmp(tok, "INF") || !strcmp(tok, "-INF") || !strcmp(tok, "EDGE"))
    return *out = upper ? INFINITY : -INFINITY, 1;
  char *end;
  *out = strtod(tok, &end);
  return end != tok && !*end && isfinite(*out);
}

/* Type lists: "1 2", "2*3", "*". */
static int type_list(char **save, MdGroupDef *g) {
  int n = 0;
  for (char *tok = strtok_r(NULL, " \t", save); tok; tok = strtok_r(NULL, " \t", save), n++) {
    int lo, hi;
    char *star = strchr(tok, '*');
    if (!star) {
      char *end;
      lo = hi = (int)strtol(tok, &end, 10);
      if (end == tok || *end) return 0;
    } else {
      lo = star == tok ? 1 : atoi(tok);
      hi = star[1] ? atoi(star + 1) : MD_MAX_TYPES;
    }
    if (lo < 1 || hi > MD_MAX_TYPES || lo > hi) return 0;
    for (int t = lo; t <= hi; t++) g->types |= 1 << (t - 1);
    if (hi > g->max_type && (star == NULL || star[1])) g->max_type = hi;
  }
  return n > 0;
}

static void define_group(FbContext *ctx, Md *md, const char *name, const char *spec) {
  char what[200], buf[FB_DECK_STR], *save = NULL;
  if (!plain_name(name) || !strcmp(name, "all") || !strcmp(name, "units") ||
      !strcmp(name, "set_type") || md_group_index(md, name) >= 0) {
    snprintf(what, sizeof what, "'%s' is not a new group name (letters, digits, _)", name);
    md_deck_fail(ctx, md, "groups", name, what);
  }
  if (md->ngroups >= MD_MAX_GROUPS) md_deck_fail(ctx, md, "groups", name, "too many groups");
  int g = md->ngroups;
  MdGroupDef *def = &md->group_def[g];
  memset(def, 0, sizeof *def);
  snprintf(buf, sizeof buf, "%s", spec);
  char *kind = strtok_r(buf, " \t", &save);
  int ok = 0;
  if (kind && !strcmp(kind, "type")) {
    def->kind = GROUP_TYPE;
    ok = type_list(&save, def);
  } else if (kind && !strcmp(kind, "block")) {
    def->kind = GROUP_BLOCK;
    ok = 1;
    for (int k = 0; k < 6 && ok; k++) {
      char *tok = strtok_r(NULL, " \t", &save);
      ok = tok && bound(tok, k % 2, k % 2 ? &def->hi[k / 2] : &def->lo[k / 2]);
    }
    ok = ok && !strtok_r(NULL, " \t", &save);
  } else if (kind &&
             (!strcmp(kind, "union") || !strcmp(kind, "subtract") || !strcmp(kind, "intersect"))) {
    def->kind = !strcmp(kind, "union")      ? GROUP_UNION
                : !strcmp(kind, "subtract") ? GROUP_SUBTRACT
                                            : GROUP_INTERSECT;
    for (char *tok = strtok_r(NULL, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
      if (def->nrefs == MD_MAX_GROUPS) break;
      def->refs[def->nrefs++] = need_group(ctx, md, "groups", name, tok);
    }
    ok = def->nrefs >= (def->kind == GROUP_UNION ? 1 : 2);
  }
  if (!ok)
    md_deck_fail(ctx, md, "groups", name,
                 "must be 'type T...', 'block XLO XHI YLO YHI ZLO ZHI' (INF allowed), "
                 "'union G...', 'subtract G G...' or 'intersect G G...' (groups defined above)");
  snprintf(md->group_name[g], MD_NAME, "%s", name);
  md->ngroups++;
}

static void read_groups(FbContext *ctx, Md *md, const MdDeck *d) {
  md->ngroups = 1;
  snprintf(md->group_name[0], MD_NAME, "all");
  md->group_def[0].kind = GROUP_ALL;
  if (!strcmp(d->region_units, "box"))
    md->region_box_units = 1;
  else if (d->region_units[0] && strcmp(d->region_units, "lattice"))
    md_deck_fail(ctx, md, "groups", "units", "must be lattice (LAMMPS's default) or box");
  for (int k = 0; k < d->groups.n; k++)
    define_group(ctx, md, d->groups.name[k], d->groups.value[k]);
  /* set_type = GROUP TYPE, GROUP TYPE (LAMMPS's set group G type T) */
  char buf[FB_DECK_STR], *save = NULL;
  snprintf(buf, sizeof buf, "%s", d->set_type);
  for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    char gname[MD_NAME + 8];
    int type;
    char extra[8];
    if (sscanf(item, " %39s %d %7s", gname, &type, extra) != 2 || type < 1 || type > MD_MAX_TYPES ||
        md->n_set_type >= MD_MAX_TYPES)
      md_deck_fail(ctx, md, "groups", "set_type", "must be 'GROUP TYPE, GROUP TYPE, ...'");
    md->set_type_group[md->n_set_type] = need_group(ctx, md, "groups", "set_type", gname);
    md->set_type_value[md->n_set_type++] = type;
  }
}

static void add_compute(Md *md, const char *name, int group, int partial, const int use[3]) {
  MdCompute *c = &md->compute[md->ncomputes++];
  snprintf(c->name, MD_NAME, "%s", name);
  c->group = group;
  c->partial = partial;
  for (int k = 0; k < 3; k++) c->use[k] = use[k];
}

static void read_computes(FbContext *ctx, Md *md, const MdDeck *d) {
  const int all3[3] = {1, 1, 1};
  md->ncomputes = 0;
  add_compute(md, "thermo_temp", MD_GROUP_ALL, 0, all3);
  for (int k = 0; k < d->computes.n; k++) {
    const char *name = d->computes.name[k];
    char style[32], gname[MD_NAME + 8], extra[8];
    int use[3] = {1, 1, 1};
    int n = sscanf(d->computes.value[k], "%31s %39s %d %d %d %7s", style, gname, &use[0], &use[1],
                   &use[2], extra);
    int partial = n >= 1 && !strcmp(style, "temp/partial");
    int ok = (n == 2 && !strcmp(style, "temp")) || (n == 5 && partial);
    for (int c = 0; c < 3; c++) ok = ok && (use[c] == 0 || use[c] == 1);
    if (!ok || !plain_name(name) || md_compute_index(md, name) >= 0 ||
        md->ncomputes >= MD_MAX_COMPUTES)
      md_deck_fail(ctx, md, "computes", name,
                   "must be 'temp GROUP' or 'temp/partial GROUP XFLAG YFLAG ZFLAG' (flags 0 or 1), "
                   "a new name");
    if (partial && !(use[0] || use[1] || use[2]))
      md_deck_fail(ctx, md, "computes", name, "temp/partial needs a flag set");
    add_compute(md, name, need_group(ctx, md, "computes", name, gname), partial, use);
  }
}

/* One velocity command: create / set / ramp / zero, as LAMMPS's velocity. */
static void read_velocity(FbContext *ctx, Md *md, const char *section, const char *text,
                          MdVelocity *v) {
  char buf[FB_DECK_STR], *save = NULL, *tok[16];
  int n = 0;
  snprintf(buf, sizeof buf, "%s", text);
  for (char *t = strtok_r(buf, " \t", &save); t && n < 16; t = strtok_r(NULL, " \t", &save))
    tok[n++] = t;
  memset(v, 0, sizeof *v);
  v->compute = -1;
  const char *usage =
      "must be 'create GROUP T SEED [temp COMPUTE] [dist uniform|gaussian] [loop all|geom] "
      "[mom yes|no] [rot yes|no]', 'set GROUP VX VY VZ [sum yes]' "
      "(NULL keeps a component), 'ramp GROUP vD VLO VHI D CLO CHI [sum yes]', "
      "'scale GROUP T [temp COMPUTE]' or 'zero GROUP linear|angular'";
  if (n < 2) md_deck_fail(ctx, md, section, "velocity", usage);
  v->group = need_group(ctx, md, section, "velocity", tok[1]);
  int k = 0;
  char *end;
  if (!strcmp(tok[0], "create") && n >= 4) {
    v->style = VEL_CREATE;
    v->temp = strtod(tok[2], &end);
    if (*end || !(v->temp >= 0) || !isfinite(v->temp))
      md_deck_fail(ctx, md, section, "velocity", usage);
    v->seed = strtoll(tok[3], &end, 10);
    if (*end || v->seed < 1 || v->seed >= 2147483647) /* Park-Miller's seeds: 1..2^31-2 */
      md_deck_fail(ctx, md, section, "velocity",
                   "create: the seed must be an integer from 1 to 2147483646 (LAMMPS's)");
    k = 4;
  } else if (!strcmp(tok[0], "set") && n >= 5) {
    v->style = VEL_SET;
    for (int c = 0; c < 3; c++) {
      if (!strcmp(tok[2 + c], "NULL")) continue;
      v->v[c] = strtod(tok[2 + c], &end);
      if (*end || !isfinite(v->v[c])) md_deck_fail(ctx, md, section, "velocity", usage);
      v->v_given[c] = 1;
    }
    k = 5;
  } else if (!strcmp(tok[0], "ramp") && n >= 8) {
    v->style = VEL_RAMP;
    const char *vd = tok[2], *cd = tok[5];
    if (strlen(vd) != 2 || vd[0] != 'v' || vd[1] < 'x' || vd[1] > 'z' || strlen(cd) != 1 ||
        cd[0] < 'x' || cd[0] > 'z')
      md_deck_fail(ctx, md, section, "velocity", usage);
    v->vdim = vd[1] - 'x';
    v->cdim = cd[0] - 'x';
    double *vals[4] = {&v->vlo, &v->vhi, &v->clo, &v->chi};
    const char *src[4] = {tok[3], tok[4], tok[6], tok[7]};
    for (int c = 0; c < 4; c++) {
      *vals[c] = strtod(src[c], &end);
      if (*end || !isfinite(*vals[c])) md_deck_fail(ctx, md, section, "velocity", usage);
    }
    if (!(v->chi > v->clo))
      md_deck_fail(ctx, md, section, "velocity", "ramp: the coordinate range must grow");
    k = 8;
  } else if (!strcmp(tok[0], "scale") && n >= 3) {
    v->style = VEL_SCALE;
    v->temp = strtod(tok[2], &end);
    if (*end || !(v->temp >= 0) || !isfinite(v->temp))
      md_deck_fail(ctx, md, section, "velocity", usage);
    k = 3;
  } else if (!strcmp(tok[0], "zero") && n == 3 &&
             (!strcmp(tok[2], "linear") || !strcmp(tok[2], "angular"))) {
    v->style = VEL_ZERO;
    v->zero_rotation = !strcmp(tok[2], "angular");
    k = 3;
  } else {
    md_deck_fail(ctx, md, section, "velocity", usage);
  }
  for (; k + 1 < n; k += 2) {
    if (!strcmp(tok[k], "sum") && (v->style == VEL_SET || v->style == VEL_RAMP))
      v->sum = !strcmp(tok[k + 1], "yes");
    else if (!strcmp(tok[k], "temp") && (v->style == VEL_CREATE || v->style == VEL_SCALE))
      v->compute = need_compute(ctx, md, section, "velocity", tok[k + 1]);
    else if (v->style == VEL_CREATE && !strcmp(tok[k], "dist") &&
             (!strcmp(tok[k + 1], "uniform") || !strcmp(tok[k + 1], "gaussian")))
      v->gaussian = !strcmp(tok[k + 1], "gaussian");
    else if (v->style == VEL_CREATE && !strcmp(tok[k], "loop") &&
             (!strcmp(tok[k + 1], "all") || !strcmp(tok[k + 1], "geom")))
      v->loop_geom = !strcmp(tok[k + 1], "geom");
    else if (v->style == VEL_CREATE && !strcmp(tok[k], "mom") &&
             (!strcmp(tok[k + 1], "yes") || !strcmp(tok[k + 1], "no")))
      v->keep_momentum = !strcmp(tok[k + 1], "no");
    else if (v->style == VEL_CREATE && !strcmp(tok[k], "rot") &&
             (!strcmp(tok[k + 1], "yes") || !strcmp(tok[k + 1], "no")))
      v->zero_rotation = !strcmp(tok[k + 1], "yes");
    else
      md_deck_fail(ctx, md, section, "velocity", usage);
  }
  if (k != n) md_deck_fail(ctx, md, section, "velocity", usage);
}

/* rescale = GROUP N TSTART TSTOP WINDOW FRACTION [COMPUTE]: fix temp/rescale,
 * with fix_modify temp COMPUTE (default: the temperature of the fix's group). */
static void read_rescale(FbContext *ctx, Md *md, const char *section, const char *text,
                         MdRescale *r) {
  memset(r, 0, sizeof *r);
  if (!strcmp(text, "none")) return;
  char gname[MD_NAME + 8], cname[MD_NAME + 8] = "", extra[8];
  int n = sscanf(text, "%39s %lld %lf %lf %lf %lf %39s %7s", gname, &r->every, &r->t_start,
                 &r->t_stop, &r->window, &r->fraction, cname, extra);
  if ((n != 6 && n != 7) || r->every < 1 || !(r->t_start >= 0) || !(r->t_stop >= 0) ||
      !(r->window >= 0) || !(r->fraction > 0 && r->fraction <= 1))
    md_deck_fail(ctx, md, section, "rescale",
                 "must be 'GROUP N TSTART TSTOP WINDOW FRACTION [COMPUTE]' (fix temp/rescale; 0 < "
                 "FRACTION <= 1) or none");
  r->on = 1;
  r->group = need_group(ctx, md, section, "rescale", gname);
  if (cname[0]) {
    r->compute = need_compute(ctx, md, section, "rescale", cname);
    return;
  }
  char auto_name[MD_NAME];
  snprintf(auto_name, sizeof auto_name, "rescale_%.20s", gname);
  r->compute = md_compute_index(md, auto_name);
  if (r->compute < 0) {
    if (md->ncomputes >= MD_MAX_COMPUTES)
      md_deck_fail(ctx, md, section, "rescale", "too many computes");
    const int all3[3] = {1, 1, 1};
    add_compute(md, auto_name, r->group, 0, all3);
    r->compute = md->ncomputes - 1;
  }
}

static void read_stage(FbContext *ctx, Md *md, const MdDeck *d, int s, const char *section,
                       MdStage *st, const MdStage *prev) {
  char what[96];
  if (prev)
    *st = *prev; /* thermo, thermo_modify temp and the thermostat carry over, as in LAMMPS */
  st->n_vel = 0;
  st->reset_timestep = d->reset[s] == 0;
  if (d->steps[s] >= 0)
    st->steps = d->steps[s];
  else if (!prev && s == 0)
    st->steps = 100;
  else {
    snprintf(what, sizeof what, "[%s] needs 'steps'", section);
    md_deck_fail(ctx, md, section, "steps", what);
  }
  if (d->thermo[s] >= 0)
    st->thermo_every = d->thermo[s];
  else if (!prev)
    st->thermo_every = 50;
  if (d->thermo_temp[s][0])
    st->thermo_temp = need_compute(ctx, md, section, "thermo_temp", d->thermo_temp[s]);
  if (d->rescale[s][0]) read_rescale(ctx, md, section, d->rescale[s], &st->rescale);
  char list[FB_DECK_LIST], *save = NULL;
  snprintf(list, sizeof list, "%s", d->velocity[s]);
  for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (st->n_vel >= MD_MAX_VELOCITY)
      md_deck_fail(ctx, md, section, "velocity", "at most 4 velocity commands per run");
    read_velocity(ctx, md, section, line, &st->vel[st->n_vel++]);
  }
}

static void read_stages(FbContext *ctx, Md *md, const MdDeck *d) {
  int multi = 0;
  for (int s = 1; s <= MD_MAX_STAGES; s++) multi |= d->stage_seen[s];
  if (multi && d->stage_seen[0])
    md_deck_fail(ctx, md, "run", "steps",
                 "with [run1], [run2], ... the runs' keys (steps, thermo, thermo_temp, "
                 "rescale, velocity, reset_timestep) go there, not in [run]");
  if (!multi) {
    md->nstages = 1;
    read_stage(ctx, md, d, 0, "run", &md->stage_plan[0], NULL);
  } else {
    md->nstages = 0;
    for (int s = 1; s <= MD_MAX_STAGES && d->stage_seen[s]; s++) {
      char section[16];
      snprintf(section, sizeof section, "run%d", s);
      read_stage(ctx, md, d, s, section, &md->stage_plan[s - 1],
                 s > 1 ? &md->stage_plan[s - 2] : NULL);
      md->nstages = s;
    }
    for (int s = md->nstages + 2; s <= MD_MAX_STAGES; s++)
      if (d->stage_seen[s]) {
        char section[16];
        snprintf(section, sizeof section, "run%d", s);
        md_deck_fail(ctx, md, section, "steps",
                     "the runs must be numbered [run1], [run2], ... without a gap");
      }
  }
  /* temperature = T (with seed): LAMMPS's "velocity all create T SEED" before the first run */
  if (d->temperature > 0.0) {
    MdStage *first = &md->stage_plan[0];
    if (first->n_vel >= MD_MAX_VELOCITY)
      md_deck_fail(ctx, md, "run", "temperature", "too many velocity commands");
    memmove(&first->vel[1], &first->vel[0], (size_t)first->n_vel * sizeof first->vel[0]);
    first->n_vel++;
    MdVelocity *v = &first->vel[0];
    memset(v, 0, sizeof *v);
    v->style = VEL_CREATE; /* velocity all create T SEED loop geom (bench/in.lj's) */
    v->group = MD_GROUP_ALL;
    v->temp = d->temperature;
    v->seed = d->seed;
    v->compute = -1;
    v->loop_geom = 1;
  }
}

static const struct {
  const char *word, *header;
  MdThermoKey key;
} THERMO_WORDS[] = {{"step", "Step", TH_STEP},
                    {"temp", "Temp", TH_TEMP},
                    {"epair", "E_pair", TH_EPAIR},
                    {"emol", "E_mol", TH_EMOL},
                    {"pe", "PotEng", TH_PE},
                    {"ke", "KinEng", TH_KE},
                    {"etotal", "TotEng", TH_ETOTAL},
                    {"press", "Press", TH_PRESS},
                    {"vol", "Volume", TH_VOL},
                    {"atoms", "Atoms", TH_ATOMS},
                    {"lx", "Lx", TH_LX},
                    {"ly", "Ly", TH_LY},
                    {"lz", "Lz", TH_LZ},
                    {"pxx", "Pxx", TH_PXX},
                    {"pyy", "Pyy", TH_PYY},
                    {"pzz", "Pzz", TH_PZZ},
                    {"pxy", "Pxy", TH_PXY},
                    {"pxz", "Pxz", TH_PXZ},
                    {"pyz", "Pyz", TH_PYZ},
                    {"density", "Density", TH_DENSITY},
                    {"evdwl", "E_vdwl", TH_EVDWL},
                    {"ecoul", "E_coul", TH_ECOUL},
                    {"enthalpy", "Enthalpy", TH_ENTHALPY},
                    {"fmax", "Fmax", TH_FMAX},
                    {"fnorm", "Fnorm", TH_FNORM},
                    {"xlo", "Xlo", TH_XLO},
                    {"xhi", "Xhi", TH_XHI},
                    {"ylo", "Ylo", TH_YLO},
                    {"yhi", "Yhi", TH_YHI},
                    {"zlo", "Zlo", TH_ZLO},
                    {"zhi", "Zhi", TH_ZHI},
                    {"xy", "Xy", TH_XY},
                    {"xz", "Xz", TH_XZ},
                    {"yz", "Yz", TH_YZ},
                    {"dt", "Dt", TH_DT},
                    {"elapsed", "Elapsed", TH_ELAPSED}};

static void add_column(FbContext *ctx, Md *md, const char *word) {
  if (md->ncolumns >= MD_MAX_COLUMNS)
    md_deck_fail(ctx, md, "run", "thermo_style", "too many columns");
  MdColumn *c = &md->column[md->ncolumns];
  if (!strncmp(word, "c_", 2)) {
    c->key = TH_COMPUTE;
    c->compute = need_compute(ctx, md, "run", "thermo_style", word + 2);
    snprintf(c->header, sizeof c->header, "%s", word);
    md->ncolumns++;
    return;
  }
  for (size_t k = 0; k < sizeof THERMO_WORDS / sizeof THERMO_WORDS[0]; k++)
    if (!strcmp(word, THERMO_WORDS[k].word)) {
      c->key = THERMO_WORDS[k].key;
      snprintf(c->header, sizeof c->header, "%s", THERMO_WORDS[k].header);
      md->ncolumns++;
      md->tensor_wanted |= c->key >= TH_PXX && c->key <= TH_PYZ;
      md->fmax_wanted |= c->key == TH_FMAX;
      return;
    }
  char what[256];
  snprintf(what, sizeof what,
           "'%s' is not a thermo keyword (step temp epair emol pe ke etotal press vol atoms lx ly "
           "lz pxx pyy pzz pxy pxz pyz density evdwl ecoul enthalpy fmax fnorm xlo xhi ylo yhi zlo "
           "zhi xy xz yz dt elapsed c_ID)",
           word);
  md_deck_fail(ctx, md, "run", "thermo_style", what);
}

static void read_thermo_style(FbContext *ctx, Md *md, const MdDeck *d) {
  char buf[FB_DECK_STR], *save = NULL;
  snprintf(buf, sizeof buf, "%s", d->thermo_style[0] ? d->thermo_style : "one");
  char *first = strtok_r(buf, " \t", &save);
  md->ncolumns = 0;
  if (first && !strcmp(first, "one") && !strtok_r(NULL, " \t", &save)) {
    const char *one[] = {"step", "temp",   "epair",
                         "emol", "etotal", "press"}; /* LAMMPS's thermo_style one */
    for (int k = 0; k < 6; k++) add_column(ctx, md, one[k]);
    int box_changes = 0; /* LAMMPS adds the volume when the box can change (shrink-wrapping) */
    for (int k = 0; k < 3; k++) box_changes |= md->boundary[k] == 's' || md->boundary[k] == 'm';
    if (box_changes) add_column(ctx, md, "vol");
    return;
  }
  if (!first || strcmp(first, "custom"))
    md_deck_fail(ctx, md, "run", "thermo_style",
                 "must be 'one' or 'custom KEYWORD...' (LAMMPS's thermo_style)");
  for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
    add_column(ctx, md, w);
  if (md->ncolumns == 0 || md->column[0].key != TH_STEP)
    md_deck_fail(ctx, md, "run", "thermo_style", "custom columns start with step");
}

const char *const md_dump_words[DU_COUNT] = {"id", "type", "x",  "y",  "z",  "vx",
                                             "vy", "vz",   "fx", "fy", "fz", "c_pe",
                                             "xu", "yu",   "zu", "ix", "iy", "iz"};

static void read_dump_columns(FbContext *ctx, Md *md, const MdDeck *d) {
  char buf[FB_DECK_STR], *save = NULL;
  snprintf(buf, sizeof buf, "%s", d->dump_columns[0] ? d->dump_columns : "id type x y z");
  md->n_dump_columns = 0;
  for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    int k = 0;
    while (k < DU_COUNT && strcmp(md_dump_words[k], w)) k++;
    if (k == DU_COUNT || md->n_dump_columns >= MD_MAX_DUMP_COLUMNS)
      md_deck_fail(ctx, md, "output", "dump_columns",
                   "columns are id type x y z vx vy vz fx fy fz c_pe (per-atom energy) xu yu zu "
                   "(unwrapped) ix iy iz (image flags)");
    md->dump_column[md->n_dump_columns++] = (MdDumpKey)k;
  }
}

void md_plan_from_deck(FbContext *ctx, Md *md, const MdDeck *d) {
  read_groups(ctx, md, d);
  read_computes(ctx, md, d);
  md->setforce_group = d->setforce[0] ? need_group(ctx, md, "fixes", "setforce", d->setforce) : -1;
  if (!strcmp(d->velocity_units, "box"))
    md->velocity_box_units = 1;
  else if (d->velocity_units[0] && strcmp(d->velocity_units, "lattice"))
    md_deck_fail(ctx, md, "run", "velocity_units", "must be lattice (LAMMPS's default) or box");
  read_stages(ctx, md, d);
  read_thermo_style(ctx, md, d);
  read_dump_columns(ctx, md, d);
  /* NVE: no thermostat, no frozen group and no velocities changed after the first run starts */
  md->nve = md->setforce_group < 0;
  for (int s = 0; s < md->nstages; s++) {
    md->nve &= !md->stage_plan[s].rescale.on;
    if (s > 0) md->nve &= md->stage_plan[s].n_vel == 0;
  }
  /* pair_coeff lines (lj/cut) apply after any in the data file: kept as text */
  snprintf(md->pair_coeff_text, sizeof md->pair_coeff_text, "%s", d->pair_coeff);
}

/* ------------------------------------------------------------ set-up time */

static int in_group(const Md *md, int g, int mask, int type, const double x[3]) {
  const MdGroupDef *def = &md->group_def[g];
  switch (def->kind) {
  case GROUP_ALL: return 1;
  case GROUP_TYPE: return (def->types >> type) & 1;
  case GROUP_BLOCK:
    for (int k = 0; k < 3; k++) {
      double unit = md->region_box_units ? 1.0 : md->spacing[k];
      if (x[k] < def->lo[k] * unit || x[k] > def->hi[k] * unit) return 0;
    }
    return 1;
  case GROUP_UNION:
    for (int r = 0; r < def->nrefs; r++)
      if ((mask >> def->refs[r]) & 1) return 1;
    return 0;
  case GROUP_SUBTRACT:
    if (!((mask >> def->refs[0]) & 1)) return 0;
    for (int r = 1; r < def->nrefs; r++)
      if ((mask >> def->refs[r]) & 1) return 0;
    return 1;
  case GROUP_INTERSECT:
    for (int r = 0; r < def->nrefs; r++)
      if (!((mask >> def->refs[r]) & 1)) return 0;
    return 1;
  }
  return 0;
}

/* Every owned atom's groups, the set type commands, then the counts (the
 * groups of computes must not be empty). */
void md_groups_assign(FbContext *ctx, Md *md) {
  for (int g = 1; g < md->ngroups; g++)
    if (md->group_def[g].kind == GROUP_TYPE && md->group_def[g].max_type > md->ntypes) {
      char what[160];
      snprintf(what, sizeof what, "names type %d, but the system has %d atom type%s",
               md->group_def[g].max_type, md->ntypes, md->ntypes == 1 ? "" : "s");
      md_deck_fail(ctx, md, "groups", md->group_name[g], what);
    }
  for (int k = 0; k < md->n_set_type; k++)
    if (md->set_type_value[k] > md->ntypes)
      md_deck_fail(ctx, md, "groups", "set_type", "a type beyond the system's types");
  MdAtoms *a = &md->atoms;
  for (int i = 0; i < a->n_local; i++) {
    int mask = 0;
    for (int g = 0; g < md->ngroups; g++)
      if (in_group(md, g, mask, a->type[i], a->x[i])) mask |= 1 << g;
    a->group[i] = mask;
    for (int k = 0; k < md->n_set_type; k++)
      if ((mask >> md->set_type_group[k]) & 1) a->type[i] = md->set_type_value[k] - 1;
  }
  md_groups_count(ctx, md);
}

/* The atoms in each group, and every compute's (none may be empty). */
void md_groups_count(FbContext *ctx, Md *md) {
  const MdAtoms *a = &md->atoms;
  long long counts[MD_MAX_GROUPS] = {0};
  for (int i = 0; i < a->n_local; i++)
    for (int g = 0; g < md->ngroups; g++) counts[g] += (a->group[i] >> g) & 1;
  md_count_n(ctx, counts, md->ngroups);
  memcpy(md->group_count, counts, sizeof counts);
  for (int g = 1; g < md->ngroups; g++) /* as LAMMPS's group command prints them */
    fb_print(ctx, "%lld atoms in group %s\n", counts[g], md->group_name[g]);
  for (int c = 0; c < md->ncomputes; c++) {
    MdCompute *cp = &md->compute[c];
    cp->count = counts[cp->group];
    if (cp->count == 0)
      fb_fail(ctx, FB_EXIT_USAGE,
              "%s: compute %s: group '%s' has no atoms: its temperature is undefined",
              md->deck_path, cp->name, md->group_name[cp->group]);
  }
}
