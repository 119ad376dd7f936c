/* internal.h: declarations shared between the files of common/ only. */
#ifndef FB_INTERNAL_H
#define FB_INTERNAL_H

#include <stdio.h>
#include "fabricbench.h"

/* Environment snapshot (interface byte counters, rusage); opaque. */
void *fb_env_snapshot(void);
void fb_env_free(void *snap);
void fb_watchdog_start(FbContext *ctx, double timeout_s);
void fb_stall_if_asked(const FbContext *ctx);
/* The cores the job may use on this node (the union of its ranks' CPU
 * sets) and the ranks on it (collective over the node). */
long fb_node_cores(const FbContext *ctx, int *local_ranks);
/* Nanoseconds a cache line takes to pass between the node's first rank and
 * another of its ranks and back, halved: the median over the node's other
 * ranks, the largest over nodes; NAN where no node has two ranks, or more
 * ranks than cores (a waiting rank would hold its partner's core).
 * Collective. */
double fb_probe_handoff(FbContext *ctx);
/* handoff_ns_before and handoff_ns_after (the probe again now) in r's
 * params, where measured (collective; nothing before a timed loop). */
void fb_record_handoff(FbContext *ctx, FbResult *r);

/* A growable JSON text with comma bookkeeping. */
typedef struct {
  char *buf;
  size_t len, cap;
  int depth;
  int need_comma[32];
  int oom;
} FbJson;
void fb_json_init(FbJson *j);
void fb_json_free(FbJson *j);
void fb_json_begin_object(FbJson *j, const char *key); /* key NULL at top or in arrays */
void fb_json_end_object(FbJson *j);
void fb_json_begin_array(FbJson *j, const char *key);
void fb_json_end_array(FbJson *j);
void fb_json_str(FbJson *j, const char *key, const char *value);
void fb_json_num(FbJson *j, const char *key, double value);
void fb_json_int(FbJson *j, const char *key, long long value);
void fb_json_bool(FbJson *j, const char *key, int value);
void fb_json_raw(FbJson *j, const char *key, const char *raw);
/* Appends s as a quoted, escaped JSON string to buf of size len. */
void fb_json_quote(char *buf, size_t len, const char *s);

/* Environment pieces written into the record (collective). */
void fb_env_write_json(FbContext *ctx, FbJson *j, const FbDecomp *d_unused);
/* the options as JSON members, less those the app resolved itself (r's params) */
void fb_options_write_json(const FbContext *ctx, FbJson *j, const FbResult *r);

/* Async-signal-safe: removes every registered temporary file (files.c). */
int fb_temp_cleanup(void); /* the count of temporary files it removed */

#endif
