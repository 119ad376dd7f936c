/* stream.h: McCalpin's STREAM kernels across all ranks at once. */
#ifndef STREAM_H
#define STREAM_H

#include "fabricbench.h"

enum { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_COUNT };
enum { PH_KERNELS, PH_COUNT };

#define STREAM_SCALAR 3.0
/* stream.c's rule: each array at least this many times the last-level
 * caches of the run. By default the ranks that share one cache (the node's
 * ranks over its instances of it) hold that between them: each rank's
 * arrays are the factor x the cache / those ranks. Until 6 Dec 2026 each
 * rank's were the factor x the whole cache: a 2-vCPU Zen 5 VM whose CPUID
 * reports the host's 508 MiB of L3 (and no sysfs) then gave each rank 2 GiB
 * arrays, and 4 ranks were refused for want of 23.8 GiB. */
#define STREAM_CACHE_FACTOR 4
/* The cache assumed where neither sysfs nor sysconf tells it. */
#define STREAM_CACHE_UNKNOWN (32u << 20)
/* Each pass multiplies the values by 15 (a' = b + 3c = 15a), so stream.c's
 * arrays overflow to inf after about 260 passes and its check fails. After
 * every STREAM_RESCALE_PASSES passes the arrays are multiplied by
 * 2^-STREAM_RESCALE_EXP, untimed: 15^64 is 2^250.0, so the values return to
 * where they began, and a power of two scales exactly, so the closed-form
 * check follows the arrays bit for bit. */
#define STREAM_RESCALE_PASSES 64
#define STREAM_RESCALE_EXP    250
/* Elements a thread's share is rounded to, so non-temporal stores stay aligned. */
#define STREAM_CHUNK 8
/* b and c start this far past a page boundary (b one, c two such steps; 21
 * cache lines, about a third of a 4 KiB page), each in its own allocation.
 * On a Zen 3 core, one rank, Triad alternated with the arrays all at the same
 * offset: 10.7 M elements 22.6 against 24.0 GB/s (medians of 4; 21.6 against
 * 23.4 in 6 earlier rounds), 16.8 M (the default there) 22.0 against 22.9;
 * 1024 to 2112 bytes did as well as 1344, himeno's 320 nothing, and one slab
 * holding the three at these offsets nothing at 16.8 M (21.3 against 21.6).
 * stream.c's static arrays get such a gap by accident of their length; hpcc's
 * malloc'd ones all start 16 bytes into a page. */
#define STREAM_STAGGER_BYTES 1344

typedef struct {
  long long n;            /* elements per array per rank */
  long long repeats;      /* -r: timed passes, the first not counted */
  int nt;                 /* --nt: non-temporal stores */
  int no_sync;            /* --no-sync: ranks run their passes independently (HPCC 1.4) */
  int no_huge_pages;      /* --no-huge-pages: the arrays on 4 KiB pages */
  const char *width_name; /* --vector-width: auto, 128 or native */
  int narrow;             /* the plain kernels in 128-bit vectors (kernels.c) */
  double trial_s[2];      /* --vector-width auto: a Triad pass, [narrow], 0 when not timed */
  long long passes_done;  /* passes of all four kernels since the arrays were set */
  char results[512];      /* the record's results object */
  char *base[3];          /* the allocations holding a, b and c */
  double *a, *b, *c;
  /* per kernel and pass: this rank's time and the slowest rank's time */
  double *local_s[K_COUNT], *global_s[K_COUNT];
} Stream;

/* Bytes moved per element by each kernel, stream.c's convention. */
extern const int stream_arrays_moved[K_COUNT];
extern const char *const stream_kernel_names[K_COUNT];

void stream_parse(FbContext *ctx, Stream *s, int argc, char **argv);
void stream_setup(FbContext *ctx, Stream *s);
void stream_free(Stream *s);
void stream_check_granularity(FbContext *ctx, Stream *s);
/* One pass of a kernel over this rank's arrays (OpenMP threads). */
void stream_kernel(Stream *s, int kernel);
/* After a pass: the untimed rescaling every STREAM_RESCALE_PASSES passes. */
void stream_pass_done(Stream *s);
void stream_measure(FbContext *ctx, Stream *s, FbLoop *all);
void stream_report(FbContext *ctx, Stream *s, const FbLoop *all, FbResult *r);
void stream_validate(FbContext *ctx, const Stream *s, FbResult *r);
/* The record's description of the arrays: their length, stream.c's byte
 * convention, the pages they are on (collective). */
void stream_describe(FbContext *ctx, const Stream *s, FbResult *r);
int stream_nt_available(void);
/* Whether the build has the plain kernels in 128-bit vectors beside the
 * compiler's own (GCC on x86). */
int stream_narrow_available(void);
/* --vector-width auto: a Triad pass timed in each width on every rank at
 * once; keeps the faster (collective). */
void stream_choose_width(FbContext *ctx, Stream *s);

#endif
