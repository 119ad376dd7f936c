/* stream.h: McCalpin's STREAM kernels across all ranks at once. */
#ifndef STREAM_H
#define STREAM_H

#include "fabricbench.h"

enum { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_COUNT };
enum { PH_KERNELS, PH_COUNT };

#define STREAM_SCALAR 3.0
/* Arrays of at least this many times the largest cache, as stream.c asks. */
#define STREAM_CACHE_FACTOR 4
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

typedef struct {
  long long n;           /* elements per array per rank */
  long long repeats;     /* -r: timed passes, the first not counted */
  int nt;                /* --nt: non-temporal stores */
  int no_sync;           /* --no-sync: ranks run their passes independently (HPCC) */
  long long passes_done; /* passes of all four kernels since the arrays were set */
  char results[512];     /* the record's results object */
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
int stream_nt_available(void);

#endif
