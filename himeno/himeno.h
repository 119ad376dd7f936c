/* himeno.h: the Himeno benchmark's problem, fields and phases. */
#ifndef HIMENO_H
#define HIMENO_H

#include "fabricbench.h"

enum { PH_COMPUTE, PH_HALO, PH_ALLREDUCE, PH_COUNT };

/* 34 floating-point operations per interior point per iteration, as the
 * original counts them (the b terms included although b is zero). */
#define HIMENO_FLOPS_PER_POINT 34.0
/* The original's score unit: MFLOPS of a Pentium III 600 MHz. */
#define HIMENO_PENTIUM3_MFLOPS      82.84
#define HIMENO_REHEARSAL_ITERATIONS 3
#define HIMENO_OMEGA                0.8f

/* The twelve coefficients of the stencil (the original's a0-a3, b0-b2,
 * c0-c2, wrk1 and bnd). */
enum {
  CO_A0,
  CO_A1,
  CO_A2,
  CO_A3,
  CO_B0,
  CO_B1,
  CO_B2,
  CO_C0,
  CO_C1,
  CO_C2,
  CO_WRK1,
  CO_BND,
  CO_COUNT
};
/* The sweep takes a row's points in blocks of this many (kernel.c). */
#define HIMENO_BLOCK 16
/* The coefficients are read in three groups of four (kernel.c). */
#define CO_STREAMS    3
#define CO_PER_STREAM (CO_COUNT / CO_STREAMS)
/* The sweep's compiled variants besides prefetching (kernel.c): the
 * one-stream layout, and the split layout in vectors of 256 bits at most or
 * of 512 (builds with AVX-512). */
enum { HIMENO_ONE_STREAM, HIMENO_SPLIT, HIMENO_SPLIT_WIDE, HIMENO_SWEEP_KINDS };
/* 5 cache lines between arrays and between the coefficient streams: they
 * land in distinct sets of a 4 KiB-way L1 (sizes such as 64x64x128 put
 * every array a multiple of the cache's way size apart) */
#define HIMENO_STAGGER_BYTES 320
/* Each row's points (k = 1..) start a cache line of this many bytes
 * (setup.c), which the sweep's non-temporal stores need (kernel.c) */
#define HIMENO_ROW_BYTES 64

typedef struct {
  /* parameters */
  const char *size_name;     /* XS, S, M, L, XL or NIxNJxNK */
  int points[3];             /* global points along i, j, k, boundaries included */
  long long iterations;      /* -n: exact count, 0 = fill -t seconds */
  double target_s;           /* -t */
  int grid[3];               /* --grid, 0 = automatic */
  const char *layout_name;   /* --layout: auto, stream or split */
  const char *prefetch_name; /* --prefetch: auto, on or off */
  const char *width_name;    /* --vector-width: auto, 256 or 512 */
  const char *nt_name;       /* --nt-stores: auto, on or off */
  /* geometry */
  FbDecomp decomp;
  FbHalo halo;
  /* p and its successor, (n+2)^3 local with one halo/boundary layer */
  float *p, *pnew;
  /* the coefficients in the order the sweep reads them (kernel.c): for each
   * interior row (i, j), for each block of HIMENO_BLOCK points along k,
   * CO_STREAMS groups of CO_PER_STREAM runs of HIMENO_BLOCK values; the
   * groups follow each other (one stream) or lie in three arrays (split) */
  float *coef;
  int coef_split;   /* the groups in three arrays (else one stream) */
  int coef_perturb; /* test hook himeno_perturb: a wrong coefficient */
  int prefetch;     /* the sweep prefetches (else the hardware prefetchers alone) */
  int wide;         /* the split layout's sweep in 512-bit vectors (else 256 at most) */
  int nt;           /* the new field written with non-temporal stores (else through the caches) */
  /* the auto options' trial: the slowest rank's best seconds a sweep,
   * [himeno_sweep_kind][prefetch][nt]; 0 where none ran */
  double trial_s[HIMENO_SWEEP_KINDS][2][2];
  size_t coef_group;   /* floats from a block's group to its next group */
  size_t coef_block;   /* floats from a block's group to the next block's */
  size_t coef_per_row; /* floats from a row's coefficients to the next row's */
  char *slab;          /* one allocation holding all three */
  /* results */
  long long done; /* iterations of the timed loop */
  double gosa, gosa_first;
  double checksum, checksum_weighted;
} Himeno;

void himeno_parse(FbContext *ctx, Himeno *h, int argc, char **argv);
void himeno_setup(FbContext *ctx, Himeno *h);
void himeno_reset(Himeno *h);
void himeno_free(Himeno *h);
/* One Jacobi iteration (halo exchange, sweep, gosa allreduce); returns gosa. */
double himeno_iterate(FbContext *ctx, Himeno *h);
/* Sweep of the local interior; returns the local sum of ss^2. */
double himeno_sweep(const Himeno *h, const float *p, float *pnew);
/* 1 where the build has that variant (HIMENO_ONE_STREAM..., non-temporal
 * stores or not): the 512-bit sweep needs AVX-512, the stores AVX */
int himeno_sweep_available(int kind, int nt);
/* kernel.c: the coefficient layout */
/* sets h->coef_split and the distances; returns the floats to allocate */
size_t himeno_coef_layout(Himeno *h, int split);
void himeno_coef_fill(Himeno *h, const float value[CO_COUNT]);
/* setup.c: the coefficients in that layout, with the original's values */
void himeno_coef_use(Himeno *h, int split);
/* the variant that runs (HIMENO_ONE_STREAM...), and the switch to one */
int himeno_sweep_kind(const Himeno *h);
void himeno_use_sweep_kind(Himeno *h, int kind);
float *himeno_coef_at(Himeno *h, int f, int i, int j, int k);
double himeno_interior_points(const Himeno *h);
void himeno_checksum(FbContext *ctx, Himeno *h);
void himeno_validate(const Himeno *h, FbResult *r);
/* run.c: timing protocol and the original's output */
void himeno_print_header(FbContext *ctx, const Himeno *h);
void himeno_choose_sweep(FbContext *ctx, Himeno *h);
long long himeno_rehearse(FbContext *ctx, Himeno *h);
void himeno_measure(FbContext *ctx, Himeno *h, long long iterations, FbResult *r);
void himeno_print_original_lines(FbContext *ctx, const Himeno *h, const FbResult *r);
void himeno_fill_result(const FbContext *ctx, const Himeno *h, FbResult *r, char *json, size_t len);

#endif
