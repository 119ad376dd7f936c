/* record.c: the run record. One FbResult feeds both the human summary and
 * the JSON Lines record (schema fabricbench.run/1), written atomically. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FB_SCHEMA "fabricbench.run/1"

void fb_result_init(FbResult *r, const char *fom_name, const char *fom_unit, int higher_is_better) {
  memset(r, 0, sizeof *r);
  r->fom_name = fom_name;
  r->fom_unit = fom_unit;
  r->higher_is_better = higher_is_better;
  r->fom = NAN;
}

/* One entry per key (a JSON object never holds a key twice): a second value
 * for a key replaces the first, and the options' values are written only
 * for keys the app did not resolve itself (steps from its deck, say). */
static FbParam *param_add(FbResult *r, const char *key) {
  for (int i = 0; i < r->n_params; i++)
    if (strcmp(r->params[i].key, key) == 0) return &r->params[i];
  if (r->n_params >= FB_MAX_PARAMS) return NULL;
  FbParam *p = &r->params[r->n_params++];
  snprintf(p->key, sizeof p->key, "%s", key);
  return p;
}

void fb_result_param_int(FbResult *r, const char *key, long long v) {
  FbParam *p = param_add(r, key);
  if (!p) return;
  snprintf(p->json, sizeof p->json, "%lld", v);
  snprintf(p->text, sizeof p->text, "%lld", v);
}

void fb_result_param_double(FbResult *r, const char *key, double v) {
  FbParam *p = param_add(r, key);
  if (!p) return;
  snprintf(p->json, sizeof p->json, "%.17g", v);
  snprintf(p->text, sizeof p->text, "%g", v);
}

void fb_result_param_str(FbResult *r, const char *key, const char *v) {
  FbParam *p = param_add(r, key);
  if (!p) return;
  fb_json_quote(p->json, sizeof p->json, v);
  snprintf(p->text, sizeof p->text, "%s", v);
}

void fb_result_add_repeat(FbResult *r, double fom) {
  if (r->n_repeats < FB_MAX_REPEATS) r->repeats[r->n_repeats++] = fom;
  if (isnan(r->fom) || (r->higher_is_better ? fom > r->fom : fom < r->fom)) r->fom = fom;
}

void fb_result_add_loop(FbResult *r, const FbLoop *loop, double fom) {
  int best = isnan(r->fom) || (r->higher_is_better ? fom > r->fom : fom < r->fom);
  fb_result_add_repeat(r, fom);
  r->measured = 1;
  r->loop_too_short |= loop->too_short;
  if (!best) return;
  r->wall_s = r->loop_s = loop->max_s;
  r->loop_min_s = loop->min_s;
  r->loop_avg_s = loop->avg_s;
}

static FbCheck *check_add(FbResult *r, const char *name, const char *label, double value,
                          double expected, double tolerance) {
  if (r->n_checks >= FB_MAX_CHECKS) return NULL;
  FbCheck *c = &r->checks[r->n_checks++];
  snprintf(c->name, sizeof c->name, "%s", name);
  snprintf(c->label, sizeof c->label, "%s", label);
  c->value = value;
  c->expected = expected;
  c->tolerance = tolerance;
  return c;
}

int fb_result_check_rel(FbResult *r, const char *name, const char *label, double value,
                        double expected, double tolerance) {
  FbCheck *c = check_add(r, name, label, value, expected, tolerance);
  int ok = isfinite(value) && fabs(value - expected) <= tolerance * fabs(expected);
  if (c) c->pass = ok;
  return ok;
}

int fb_result_check_abs(FbResult *r, const char *name, const char *label, double value,
                        double expected, double tolerance) {
  FbCheck *c = check_add(r, name, label, value, expected, tolerance);
  int ok = isfinite(value) && fabs(value - expected) <= tolerance;
  if (c) c->pass = ok;
  return ok;
}

int fb_result_check_true(FbResult *r, const char *name, const char *label, int ok) {
  FbCheck *c = check_add(r, name, label, ok ? 1.0 : 0.0, 1.0, 0.0);
  if (c) c->pass = ok != 0;
  return ok;
}

int fb_result_passed(const FbResult *r) {
  if (r->n_checks == 0) return 0; /* nothing checked is not valid */
  for (int i = 0; i < r->n_checks; i++)
    if (!r->checks[i].pass) return 0;
  return 1;
}

static const char *verdict(const FbResult *r, int passed) {
  if (!passed) return "FAIL";
  return r->measured ? "PASS" : "NOT_MEASURED";
}

/* With --quiet a failed validation still says so, in one line. */
static void print_quiet_failure(const FbContext *ctx, const FbResult *r) {
  for (int i = 0; i < r->n_checks; i++)
    if (!r->checks[i].pass) {
      fprintf(stderr, "%s: validation FAIL: %s (%s): %.9g, expected %.9g within %.3g\n",
              ctx->program, r->checks[i].label, r->checks[i].name, r->checks[i].value,
              r->checks[i].expected, r->checks[i].tolerance);
      return;
    }
  fprintf(stderr, "%s: validation FAIL: no check ran\n", ctx->program);
}

static void print_phases(const FbContext *ctx, const FbResult *r, const FbPhaseStats *st) {
  const FbTimers *t = &ctx->timers;
  int outside = 0;
  for (int p = 0; p < t->count; p++) outside |= st[p].outside_max_s > 0.0;
  printf("%-10s %8s %12s %12s %12s %8s %12s %14s%s\n", "phase", "calls", "min s", "avg s", "max s",
         "% loop", "messages", "bytes", outside ? "   outside s" : "");
  for (int p = 0; p < t->count; p++) {
    /* phases count inside the timed loop, so no phase exceeds it */
    double pct = r->loop_s > 0 ? 100.0 * st[p].max_s / r->loop_s : 0.0;
    printf("%-10s %8lld %12.6f %12.6f %12.6f %8.1f %12lld %14lld", t->names[p], st[p].calls,
           st[p].min_s, st[p].avg_s, st[p].max_s, pct, st[p].messages, st[p].bytes);
    if (outside) printf(" %11.6f", st[p].outside_max_s);
    printf("\n");
  }
  if (outside)
    printf("(outside s: the same phases before and after the timed loop, not in %% loop)\n");
}

static void print_summary(const FbContext *ctx, const FbResult *r, const FbPhaseStats *st,
                          int passed) {
  if (ctx->rank != 0) return;
  if (ctx->common.quiet) {
    if (!passed) print_quiet_failure(ctx, r);
    return;
  }
  printf("\n---- fabricbench %s %s (git %s) ----\n", ctx->app, fb_version(), fb_build_git());
  printf("ranks %d x threads %d, process grid %s\n", ctx->size, ctx->threads,
         r->grid[0] ? r->grid : "-");
  for (int i = 0; i < r->n_params; i++) printf("  %-22s %s\n", r->params[i].key, r->params[i].text);
  print_phases(ctx, r, st);
  if (r->measured)
    printf("timed loop %.6f s on the slowest rank, %.6f s on the fastest, %.6f s on average\n",
           r->loop_s, r->loop_min_s, r->loop_avg_s);
  if (r->loop_too_short)
    printf("warning: the timed loop is under %.0f timer ticks (%.3g s each); run longer\n",
           FB_MIN_TICKS, fb_timer_resolution());
  if (r->measured)
    printf("FOM %s : %.6g %s (best of %d)\n", r->fom_name, r->fom, r->fom_unit, r->n_repeats);
  else
    printf("FOM %s : not measured (the run did no timed work)\n", r->fom_name);
  for (int i = 0; i < r->n_checks; i++) {
    const FbCheck *c = &r->checks[i];
    printf("check %-34s value %-22.15g expected %-22.15g tolerance %-9.3g %s\n", c->label, c->value,
           c->expected, c->tolerance, c->pass ? "PASS" : "FAIL");
  }
  printf("Validation : %s\n", verdict(r, passed));
  fflush(stdout);
}

static void write_record_json(FbContext *ctx, const FbResult *r, const FbPhaseStats *st, int passed,
                              FbJson *j) {
  int root = ctx->rank == 0;
  if (root) {
    fb_json_begin_object(j, NULL);
    fb_json_str(j, "schema", FB_SCHEMA);
    fb_json_str(j, "app", ctx->app);
    fb_json_str(j, "version", fb_version());
    fb_json_str(j, "git", fb_build_git());
    fb_json_str(j, "started", ctx->started_utc);
    fb_json_begin_object(j, "params");
    fb_options_write_json(ctx, j, r);
    for (int i = 0; i < r->n_params; i++) fb_json_raw(j, r->params[i].key, r->params[i].json);
    fb_json_end_object(j);
    fb_json_str(j, "grid", r->grid);
    fb_json_begin_object(j, "build");
    fb_json_str(j, "compiler", fb_build_cc());
    fb_json_str(j, "flags", fb_build_flags());
    fb_json_end_object(j);
    fb_json_begin_object(j, "fom");
    fb_json_str(j, "name", r->fom_name);
    fb_json_str(j, "unit", r->fom_unit);
    if (r->measured)
      fb_json_num(j, "value", r->fom);
    else
      fb_json_raw(j, "value", "null");
    fb_json_bool(j, "higher_is_better", r->higher_is_better);
    fb_json_bool(j, "measured", r->measured);
    fb_json_end_object(j);
    fb_json_num(j, "wall_s", r->wall_s);
    fb_json_begin_object(j, "loop_s");
    fb_json_num(j, "min", r->loop_min_s);
    fb_json_num(j, "avg", r->loop_avg_s);
    fb_json_num(j, "max", r->loop_s);
    fb_json_bool(j, "too_short", r->loop_too_short);
    fb_json_end_object(j);
    fb_json_begin_object(j, "phases");
    for (int p = 0; p < ctx->timers.count; p++) {
      fb_json_begin_object(j, ctx->timers.names[p]);
      fb_json_num(j, "min", st[p].min_s);
      fb_json_num(j, "avg", st[p].avg_s);
      fb_json_num(j, "max", st[p].max_s);
      fb_json_int(j, "calls", st[p].calls);
      if (st[p].outside_max_s > 0.0) fb_json_num(j, "outside_max", st[p].outside_max_s);
      fb_json_end_object(j);
    }
    fb_json_end_object(j);
    fb_json_begin_object(j, "comm");
    for (int p = 0; p < ctx->timers.count; p++) {
      if (!st[p].messages && !st[p].bytes) continue;
      fb_json_begin_object(j, ctx->timers.names[p]);
      fb_json_int(j, "messages", st[p].messages);
      fb_json_int(j, "bytes", st[p].bytes);
      fb_json_int(j, "path_messages", st[p].path_messages);
      fb_json_int(j, "path_bytes", st[p].path_bytes);
      fb_json_end_object(j);
    }
    fb_json_end_object(j);
    fb_json_begin_object(j, "validation");
    fb_json_str(j, "status", verdict(r, passed));
    fb_json_begin_array(j, "checks");
    for (int i = 0; i < r->n_checks; i++) {
      const FbCheck *c = &r->checks[i];
      fb_json_begin_object(j, NULL);
      fb_json_str(j, "name", c->name);
      fb_json_str(j, "label", c->label);
      fb_json_num(j, "value", c->value);
      fb_json_num(j, "expected", c->expected);
      fb_json_num(j, "tolerance", c->tolerance);
      fb_json_bool(j, "pass", c->pass);
      fb_json_end_object(j);
    }
    fb_json_end_array(j);
    fb_json_end_object(j);
    fb_json_begin_array(j, "repeats");
    for (int i = 0; i < r->n_repeats; i++) fb_json_num(j, NULL, r->repeats[i]);
    fb_json_end_array(j);
    if (r->app_json) fb_json_raw(j, "results", r->app_json);
  }
  fb_env_write_json(ctx, j, NULL); /* collective: mpi, ranks, hosts, cpu, fabric */
  if (root) fb_json_end_object(j);
}

int fb_report(FbContext *ctx, FbResult *r) {
  FbPhaseStats st[FB_MAX_PHASES];
  fb_set_stage(ctx, "report");
  fb_record_handoff(ctx, r); /* before the summary, which prints the params */
  fb_timers_reduce(&ctx->timers, ctx->comm, st);
  int passed = fb_result_passed(r);
  MPI_Bcast(&passed, 1, MPI_INT, 0, ctx->comm); /* rank 0's verdict is the verdict */
  print_summary(ctx, r, st, passed);
  FbJson j;
  fb_json_init(&j);
  write_record_json(ctx, r, st, passed, &j);
  int code = 0;
  char msg[FB_MSG_LEN] = "";
  if (ctx->rank == 0 && ctx->common.json_path) {
    int rc = j.oom ? ENOMEM : fb_append_line(ctx->common.json_path, j.buf);
    if (rc) {
      code = FB_EXIT_RUNTIME;
      snprintf(msg, sizeof msg, "cannot write the run record to %s: %s", ctx->common.json_path,
               strerror(rc));
    }
  }
  fb_json_free(&j);
  fb_agree(ctx, code, msg);
  return passed ? FB_EXIT_OK : FB_EXIT_INVALID;
}
