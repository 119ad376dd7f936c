/* setup.c: Himeno's options, problem sizes, decomposition and the initial
 * fields of the original benchmark. */
#include "himeno.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  int points[3];
} HimenoSize;

/* Points per dimension, boundary planes included (the original declares its
 * arrays one larger and leaves the last plane unused). */
static const HimenoSize sizes[] = {
    {"XS", {32, 32, 64}},   {"S", {64, 64, 128}},     {"M", {128, 128, 256}},
    {"L", {256, 256, 512}}, {"XL", {512, 512, 1024}},
};

static int size_from_name(const char *name, int points[3]) {
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    if (!strcmp(name, sizes[s].name)) {
      memcpy(points, sizes[s].points, sizeof sizes[s].points);
      return 1;
    }
  char tail;
  if (sscanf(name, "%dx%dx%d%c", &points[0], &points[1], &points[2], &tail) != 3) return 0;
  for (int a = 0; a < 3; a++)
    if (points[a] < 3 || points[a] > 1 << 20) return 0;
  return 1;
}

void himeno_parse(FbContext *ctx, Himeno *h, int argc, char **argv) {
  memset(h, 0, sizeof *h);
  h->size_name = "M";
  h->target_s = 60.0;
  fb_option_string(ctx, "size", 's', &h->size_name, "SIZE",
                   "grid XS, S, M, L, XL, or NIxNJxNK points (each >= 3)");
  fb_option_int(ctx, "iterations", 'n', &h->iterations, 1, 1000000000LL, "N",
                "run exactly N iterations from the initial state");
  fb_option_default(ctx, "as many as fill -t");
  fb_option_double(ctx, "time", 't', &h->target_s, 1e-3, 1e6, "SECONDS",
                   "target length of the timed loop, as the original's 60 s");
  fb_option_dims3(ctx, "grid", 0, h->grid, "process grid");
  fb_option_default(ctx, "least halo surface");
  fb_parse_options(ctx, argc, argv,
                   "Himeno benchmark: Jacobi relaxation of the 19-point Poisson stencil in\n"
                   "single precision (RIKEN's problem), MPI + OpenMP. Prints the original's\n"
                   "lines (Gosa, MFLOPS measured, Score) and validates every run.");
  if (!size_from_name(h->size_name, h->points))
    fb_fail(ctx, FB_EXIT_USAGE, "option -s: '%s' is not XS, S, M, L, XL or NIxNJxNK with each >= 3",
            h->size_name);
}

static size_t local_points(const Himeno *h) {
  return (size_t)h->halo.ext[0] * h->halo.ext[1] * h->halo.ext[2];
}

/* The original's initial state; both p buffers hold it so that boundary
 * planes are right whichever buffer is current. */
void himeno_reset(Himeno *h) {
  const FbDecomp *d = &h->decomp;
  const int *e = h->halo.ext;
  float denom = (float)((h->points[0] - 1) * (h->points[0] - 1));
#pragma omp parallel for schedule(static)
  for (int i = 0; i < e[0]; i++) {
    int gi = d->lo[0] + i; /* local 0 is the plane below the first owned point */
    float value = (float)(gi * gi) / denom;
    for (int j = 0; j < e[1]; j++)
      for (int k = 0; k < e[2]; k++) {
        size_t x = fb_idx3(e, i, j, k);
        h->p[x] = value;
        h->pnew[x] = value;
      }
  }
}

static void init_coefficients(Himeno *h) {
  const int *e = h->halo.ext;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < e[0]; i++)
    for (int j = 0; j < e[1]; j++)
      for (int k = 0; k < e[2]; k++) {
        size_t x = fb_idx3(e, i, j, k);
        h->a[0][x] = h->a[1][x] = h->a[2][x] = 1.0f;
        h->a[3][x] = 1.0f / 6.0f;
        h->b[0][x] = h->b[1][x] = h->b[2][x] = 0.0f;
        h->c[0][x] = h->c[1][x] = h->c[2][x] = 1.0f;
        h->wrk1[x] = 0.0f;
        h->bnd[x] = 1.0f;
      }
}

#define HIMENO_ARRAYS 14
/* 5 cache lines: 14 arrays land in distinct sets of a 4 KiB-way L1 */
#define HIMENO_STAGGER_BYTES 320

void himeno_setup(FbContext *ctx, Himeno *h) {
  /* The interior points (boundaries excluded) are what ranks share. */
  int interior[3] = {h->points[0] - 2, h->points[1] - 2, h->points[2] - 2};
  const int periods[3] = {0, 0, 0};
  char err[FB_MSG_LEN];
  int rc = fb_decomp_init(&h->decomp, ctx->comm, interior, h->grid, periods, 1, err, sizeof err);
  if (rc) fb_fail(ctx, rc, "%s%s", fb_option_was_set(ctx, "grid") ? "--grid: " : "", err);
  size_t ext_points = 1;
  for (int a = 0; a < 3; a++) ext_points *= (size_t)h->decomp.n[a] + 2;
  size_t need = HIMENO_ARRAYS * ext_points * sizeof(float);
  fb_check_memory(ctx, need, "the fields");
  int bad = fb_halo_init(&h->halo, &h->decomp, 1, MPI_FLOAT, 1);
  /* One slab for all fields. Sizes such as 64x64x128 make every array a
   * multiple of the cache's way size apart, so the 14 streams of the sweep
   * would fall into the same cache sets; each array is shifted by a few
   * more cache lines than the last. */
  size_t array_bytes = (local_points(h) * sizeof(float) + 63) / 64 * 64;
  h->slab = fb_alloc(HIMENO_ARRAYS * (array_bytes + HIMENO_STAGGER_BYTES));
  bad |= h->slab == NULL;
  float **all[HIMENO_ARRAYS] = {&h->a[0], &h->a[1], &h->a[2], &h->a[3], &h->b[0],
                                &h->b[1], &h->b[2], &h->c[0], &h->c[1], &h->c[2],
                                &h->wrk1, &h->bnd,  &h->p,    &h->pnew};
  for (int f = 0; f < HIMENO_ARRAYS && h->slab; f++)
    *all[f] = (float *)(h->slab + f * (array_bytes + HIMENO_STAGGER_BYTES));
  h->scratch = fb_alloc((size_t)ctx->threads * h->halo.ext[2] * sizeof(float));
  bad |= h->scratch == NULL;
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory allocating the fields");
  init_coefficients(h);
  if (fb_test_hook("himeno_perturb") && ctx->rank == 0)
    h->a[3][fb_idx3(h->halo.ext, 1, 1, 1)] *= 1.01f; /* a wrong answer for the tests */
  himeno_reset(h);
}

void himeno_free(Himeno *h) {
  free(h->slab);
  free(h->scratch);
  fb_halo_free(&h->halo);
  fb_decomp_free(&h->decomp);
}
