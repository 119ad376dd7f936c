/* options.c: the option table every app registers into, strict parsing of
 * argv against it, and --help generated from the same table. */
#include "fabricbench.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FbOption *option_add(FbContext *ctx, const char *name, char short_name, FbOptType type,
                            void *dest, const char *metavar, const char *help) {
  if (ctx->n_options >= FB_MAX_OPTIONS)
    fb_fail(ctx, FB_EXIT_RUNTIME, "too many options registered (FB_MAX_OPTIONS)");
  FbOption *o = &ctx->options[ctx->n_options++];
  memset(o, 0, sizeof *o);
  o->name = name;
  o->short_name = short_name;
  o->type = type;
  o->dest = dest;
  o->metavar = metavar;
  o->help = help;
  return o;
}

/* The value of an option as text, for --help defaults and the run record. */
static void option_value_text(const FbOption *o, char *buf, size_t len) {
  switch (o->type) {
  case FB_OPT_FLAG: snprintf(buf, len, "%s", *(int *)o->dest ? "true" : "false"); break;
  case FB_OPT_INT: snprintf(buf, len, "%lld", *(long long *)o->dest); break;
  case FB_OPT_DOUBLE: snprintf(buf, len, "%g", *(double *)o->dest); break;
  case FB_OPT_STRING: {
    const char *s = *(const char **)o->dest;
    snprintf(buf, len, "%s", s ? s : "");
    break;
  }
  case FB_OPT_DIMS3: {
    const int *d = o->dest;
    if (d[0] == 0 && d[1] == 0 && d[2] == 0)
      snprintf(buf, len, "auto");
    else
      snprintf(buf, len, "%dx%dx%d", d[0], d[1], d[2]);
    break;
  }
  }
}

static void snapshot_default(FbOption *o) { option_value_text(o, o->defval, sizeof o->defval); }

void fb_option_flag(FbContext *ctx, const char *name, char short_name, int *dest,
                    const char *help) {
  snapshot_default(option_add(ctx, name, short_name, FB_OPT_FLAG, dest, NULL, help));
}

void fb_option_int(FbContext *ctx, const char *name, char short_name, long long *dest,
                   long long imin, long long imax, const char *metavar, const char *help) {
  FbOption *o = option_add(ctx, name, short_name, FB_OPT_INT, dest, metavar, help);
  o->imin = imin;
  o->imax = imax;
  snapshot_default(o);
}

void fb_option_double(FbContext *ctx, const char *name, char short_name, double *dest, double dmin,
                      double dmax, const char *metavar, const char *help) {
  FbOption *o = option_add(ctx, name, short_name, FB_OPT_DOUBLE, dest, metavar, help);
  o->dmin = dmin;
  o->dmax = dmax;
  snapshot_default(o);
}

void fb_option_string(FbContext *ctx, const char *name, char short_name, const char **dest,
                      const char *metavar, const char *help) {
  snapshot_default(option_add(ctx, name, short_name, FB_OPT_STRING, dest, metavar, help));
}

void fb_option_dims3(FbContext *ctx, const char *name, char short_name, int dest[3],
                     const char *help) {
  snapshot_default(option_add(ctx, name, short_name, FB_OPT_DIMS3, dest, "PxQxR", help));
}

static int parse_value(FbOption *o, const char *flag, const char *v, char *err, size_t len) {
  char *end = NULL;
  if (*v == '\0') {
    snprintf(err, len, "option %s: empty value", flag);
    return FB_EXIT_USAGE;
  }
  switch (o->type) {
  case FB_OPT_FLAG: break;
  case FB_OPT_INT: {
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end != '\0') {
      snprintf(err, len, "option %s: '%s' is not an integer", flag, v);
      return FB_EXIT_USAGE;
    }
    if (errno == ERANGE || x < o->imin || x > o->imax) {
      snprintf(err, len, "option %s: %s is out of range [%lld, %lld]", flag, v, o->imin, o->imax);
      return FB_EXIT_USAGE;
    }
    *(long long *)o->dest = x;
    break;
  }
  case FB_OPT_DOUBLE: {
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !isfinite(x)) {
      snprintf(err, len, "option %s: '%s' is not a number", flag, v);
      return FB_EXIT_USAGE;
    }
    if (errno == ERANGE || x < o->dmin || x > o->dmax) {
      snprintf(err, len, "option %s: %s is out of range [%g, %g]", flag, v, o->dmin, o->dmax);
      return FB_EXIT_USAGE;
    }
    *(double *)o->dest = x;
    break;
  }
  case FB_OPT_STRING: *(const char **)o->dest = v; break;
  case FB_OPT_DIMS3: {
    int d[3];
    const char *p = v;
    for (int i = 0; i < 3; i++) {
      errno = 0;
      long x = strtol(p, &end, 10);
      if (end == p || errno == ERANGE || x < 1 || x > 1000000 || *p == '+' || *p == '-') {
        snprintf(err, len, "option %s: '%s' is not a grid PxQxR of positive integers", flag, v);
        return FB_EXIT_USAGE;
      }
      d[i] = (int)x;
      if (i < 2 && *end != 'x' && *end != 'X') end = NULL;
      if (!end || (i == 2 && *end != '\0')) {
        snprintf(err, len, "option %s: '%s' is not a grid PxQxR of positive integers", flag, v);
        return FB_EXIT_USAGE;
      }
      p = end + 1;
    }
    memcpy(o->dest, d, sizeof d);
    break;
  }
  }
  return 0;
}

/* Is arg one of the registered options (--name, --name=..., -x)? */
static int is_option(const FbOption *opts, int n, const char *arg) {
  if (arg[0] != '-' || !arg[1]) return 0;
  for (int k = 0; k < n; k++) {
    if (arg[1] != '-' && opts[k].short_name && arg[1] == opts[k].short_name) return 1;
    if (arg[1] == '-') {
      size_t len = strlen(opts[k].name);
      if (!strncmp(arg + 2, opts[k].name, len) && (arg[2 + len] == '\0' || arg[2 + len] == '='))
        return 1;
    }
  }
  return 0;
}

int fb_options_parse_argv(FbOption *opts, int n, int argc, char **argv, char *err, size_t err_len) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    FbOption *o = NULL;
    const char *value = NULL;
    char flag[80];
    if (arg[0] == '-' && arg[1] == '-' && arg[2] != '\0') {
      const char *name = arg + 2;
      const char *eq = strchr(name, '=');
      size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
      for (int k = 0; k < n; k++)
        if (strlen(opts[k].name) == nlen && strncmp(opts[k].name, name, nlen) == 0) o = &opts[k];
      snprintf(flag, sizeof flag, "--%.*s", (int)(nlen > 60 ? 60 : nlen), name);
      if (!o) {
        snprintf(err, err_len, "unknown option '%s' (see --help)", flag);
        return FB_EXIT_USAGE;
      }
      if (eq) value = eq + 1;
    } else if (arg[0] == '-' && arg[1] != '\0' && arg[1] != '-') {
      for (int k = 0; k < n; k++)
        if (opts[k].short_name == arg[1]) o = &opts[k];
      snprintf(flag, sizeof flag, "-%c", arg[1]);
      if (!o) {
        snprintf(err, err_len, "unknown option '%s' (see --help)", flag);
        return FB_EXIT_USAGE;
      }
      if (arg[2] != '\0') {
        if (o->type == FB_OPT_FLAG) {
          snprintf(err, err_len, "unknown option '%s' (see --help)", arg);
          return FB_EXIT_USAGE;
        }
        value = arg + 2;
      }
    } else {
      snprintf(err, err_len, "unexpected argument '%s' (see --help)", arg);
      return FB_EXIT_USAGE;
    }
    if (o->type == FB_OPT_FLAG) {
      if (value) {
        snprintf(err, err_len, "option %s takes no value", flag);
        return FB_EXIT_USAGE;
      }
      *(int *)o->dest = 1;
    } else {
      if (!value) {
        if (i + 1 >= argc || is_option(opts, n, argv[i + 1])) {
          /* "--json --quiet" is a missing value, not a file named --quiet */
          snprintf(err, err_len, "option %s needs a value (%s)%s%s", flag,
                   o->metavar ? o->metavar : "VALUE", i + 1 < argc ? " before " : "",
                   i + 1 < argc ? argv[i + 1] : "");
          return FB_EXIT_USAGE;
        }
        value = argv[++i];
      }
      int rc = parse_value(o, flag, value, err, err_len);
      if (rc) return rc;
    }
    o->seen = 1;
  }
  return 0;
}

void fb_options_help(const FbOption *opts, int n, const char *program, const char *summary) {
  printf("usage: mpirun -np N %s [options]\n\n%s\n\noptions:\n", program, summary);
  for (int k = 0; k < n; k++) {
    const FbOption *o = &opts[k];
    char left[64];
    char sflag[8] = "    ";
    if (o->short_name) snprintf(sflag, sizeof sflag, "-%c, ", o->short_name);
    snprintf(left, sizeof left, "%s--%s%s%s", sflag, o->name, o->metavar ? " " : "",
             o->metavar ? o->metavar : "");
    printf("  %-28s %s", left, o->help);
    if (o->type != FB_OPT_FLAG && o->defval[0]) printf(" (default: %s)", o->defval);
    printf("\n");
  }
  printf("\nan option given twice takes its last value; every rank must get the same options\n");
  printf("threads per rank: OMP_NUM_THREADS, else the node's cores divided among its ranks\n");
  printf("\nexit status: 0 ran and validated, 1 validation failed, 2 bad usage or input,\n"
         "3 runtime failure (memory, I/O, --timeout)\n");
}

void fb_option_one_of(FbContext *ctx, const char *name, const char *value, const char *a,
                      const char *b, const char *c) {
  if (strcmp(value, a) && strcmp(value, b) && strcmp(value, c))
    fb_fail(ctx, FB_EXIT_USAGE, "option --%s: '%s' is not %s, %s or %s", name, value, a, b, c);
}

int fb_option_was_set(const FbContext *ctx, const char *name) {
  for (int k = 0; k < ctx->n_options; k++)
    if (strcmp(ctx->options[k].name, name) == 0) return ctx->options[k].seen;
  return 0;
}

/* FNV-1a over the arguments (and their boundaries). */
static unsigned long long argv_hash(int argc, char **argv) {
  unsigned long long h = 1469598103934665603ULL;
  for (int i = 1; i < argc; i++) {
    for (const char *p = argv[i]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0xffu) * 1099511628211ULL;
  }
  return h;
}

void fb_parse_options(FbContext *ctx, int argc, char **argv, const char *summary) {
  FbCommonOpts *c = &ctx->common;
  fb_option_int(ctx, "repeat", 0, &c->repeat, 1, FB_MAX_REPEATS, "N",
                "repeat the timed loop N times; the FOM is the best");
  fb_option_string(ctx, "json", 0, &c->json_path, "FILE",
                   "append the run record (JSON Lines) to FILE");
  fb_option_double(ctx, "timeout", 0, &c->timeout_s, 0.0, 1e9, "SECONDS",
                   "abort with exit 3 when the run takes longer (0 = never)");
  fb_option_flag(ctx, "quiet", 0, &c->quiet, "print nothing but errors");
  fb_option_flag(ctx, "version", 0, &c->version, "print the version and build, then exit");
  fb_option_flag(ctx, "help", 'h', &c->help, "print this help, then exit");
  char err[FB_MSG_LEN] = "";
  int rc = fb_options_parse_argv(ctx->options, ctx->n_options, argc, argv, err, sizeof err);
  /* Every rank parsed its own command line; they can differ (an MPMD launch,
   * a wrapper per node): the lowest failing rank names its problem, and a
   * command line unlike rank 0's is itself an error. */
  fb_agree(ctx, rc, err);
  unsigned long long mine = argv_hash(argc, argv), first = mine;
  MPI_Bcast(&first, 1, MPI_UNSIGNED_LONG_LONG, 0, ctx->comm);
  fb_agree(ctx, mine != first ? FB_EXIT_USAGE : 0,
           "its command line differs from rank 0's (every rank must get the same options)");
  if (c->json_path) fb_check_output_path(ctx, "option --json", c->json_path);
  if (c->help) {
    if (ctx->rank == 0) fb_options_help(ctx->options, ctx->n_options, ctx->program, summary);
    fb_finalize(ctx, FB_EXIT_OK);
  }
  if (c->version) {
    if (ctx->rank == 0)
      printf("%s (fabricbench %s, git %s)\nbuilt with %s\nflags: %s\n", ctx->program, fb_version(),
             fb_build_git(), fb_build_cc(), fb_build_flags());
    fb_finalize(ctx, FB_EXIT_OK);
  }
  fb_watchdog_start(ctx, c->timeout_s);
}

/* Used by the record: every registered option and its value. */
static int resolved_by_app(const FbResult *r, const char *name) {
  for (int i = 0; i < r->n_params; i++)
    if (strcmp(r->params[i].key, name) == 0) return 1;
  return 0;
}

void fb_options_write_json(const FbContext *ctx, FbJson *j, const FbResult *r) {
  for (int k = 0; k < ctx->n_options; k++) {
    const FbOption *o = &ctx->options[k];
    if (o->type == FB_OPT_FLAG && (o->dest == &ctx->common.help || o->dest == &ctx->common.version))
      continue;
    if (resolved_by_app(r, o->name)) continue; /* one value per key: the app's */
    char text[160];
    option_value_text(o, text, sizeof text);
    switch (o->type) {
    case FB_OPT_FLAG: fb_json_bool(j, o->name, *(int *)o->dest); break;
    case FB_OPT_INT: fb_json_int(j, o->name, *(long long *)o->dest); break;
    case FB_OPT_DOUBLE: fb_json_num(j, o->name, *(double *)o->dest); break;
    default:
      if (o->type == FB_OPT_STRING && !*(const char **)o->dest)
        fb_json_raw(j, o->name, "null");
      else
        fb_json_str(j, o->name, text);
    }
  }
}

void fb_option_default(FbContext *ctx, const char *text) {
  if (ctx->n_options == 0) return;
  FbOption *o = &ctx->options[ctx->n_options - 1];
  snprintf(o->defval, sizeof o->defval, "%s", text);
}
