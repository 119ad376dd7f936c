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
  h->layout_name = "auto";
  fb_option_string(ctx, "layout", 0, &h->layout_name, "LAYOUT",
                   "the coefficients in one stream, in three arrays (split), or auto: time both, "
                   "keep the faster (the field is the same)");
  h->width_name = "auto";
  fb_option_string(ctx, "vector-width", 0, &h->width_name, "WIDTH",
                   "the three-array sweep in vectors of 256 bits at most (256), of 512 (512, "
                   "builds with AVX-512), or auto: time both, keep the faster (the field is the "
                   "same)");
  h->prefetch_name = "auto";
  fb_option_string(ctx, "prefetch", 0, &h->prefetch_name, "WHEN",
                   "the sweep prefetches the coefficients and p (on), leaves it to the CPU's "
                   "hardware prefetchers (off), or auto: time both, keep the faster");
  h->nt_name = "auto";
  fb_option_string(ctx, "nt-stores", 0, &h->nt_name, "WHEN",
                   "the sweep writes the new field with non-temporal stores, past the caches "
                   "(on, builds for x86 with AVX), through them (off), or auto: time both, keep "
                   "the faster");
  fb_parse_options(ctx, argc, argv,
                   "Himeno benchmark: Jacobi relaxation of the 19-point Poisson stencil in\n"
                   "single precision (RIKEN's problem), MPI + OpenMP. Prints the original's\n"
                   "lines (Gosa, MFLOPS measured, Score) and validates every run.");
  if (!size_from_name(h->size_name, h->points))
    fb_fail(ctx, FB_EXIT_USAGE, "option -s: '%s' is not XS, S, M, L, XL or NIxNJxNK with each >= 3",
            h->size_name);
  fb_option_one_of(ctx, "layout", h->layout_name, "auto", "stream", "split");
  fb_option_one_of(ctx, "prefetch", h->prefetch_name, "auto", "on", "off");
  fb_option_one_of(ctx, "vector-width", h->width_name, "auto", "256", "512");
  fb_option_one_of(ctx, "nt-stores", h->nt_name, "auto", "on", "off");
  h->wide = !strcmp(h->width_name, "512");
  if (h->wide && !himeno_sweep_available(HIMENO_SPLIT_WIDE, 0))
    fb_fail(ctx, FB_EXIT_USAGE,
            "option --vector-width: 512 needs a build by GCC for x86 with AVX-512 (this build "
            "has 256-bit vectors at most)");
  if (!strcmp(h->layout_name, "stream") && strcmp(h->width_name, "auto"))
    fb_fail(ctx, FB_EXIT_USAGE,
            "options --layout stream and --vector-width %s: the width is the three-array "
            "sweep's (the one-stream sweep has the build's)",
            h->width_name);
  h->nt = !strcmp(h->nt_name, "on");
  if (h->nt && !himeno_sweep_available(HIMENO_SPLIT, 1))
    fb_fail(ctx, FB_EXIT_USAGE,
            "option --nt-stores: on needs a build for x86 with AVX (this build has no "
            "non-temporal vector stores)");
  h->prefetch = strcmp(h->prefetch_name, "off") != 0;
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

/* The original's coefficients (initmt): the same everywhere. */
static const float coefficient_values[CO_COUNT] = {
    [CO_A0] = 1.0f, [CO_A1] = 1.0f, [CO_A2] = 1.0f,   [CO_A3] = 1.0f / 6.0f,
    [CO_B0] = 0.0f, [CO_B1] = 0.0f, [CO_B2] = 0.0f,   [CO_C0] = 1.0f,
    [CO_C1] = 1.0f, [CO_C2] = 1.0f, [CO_WRK1] = 0.0f, [CO_BND] = 1.0f};

/* p and pnew are followed by this many floats, so that a row's last block
 * may read past the row's end (kernel.c) without leaving the array */
#define HIMENO_TAIL_FLOATS (2 * HIMENO_BLOCK + 16)
/* Rows are a multiple of HIMENO_ROW_BYTES long (the halo's row tail) and
 * p and pnew start this far past a line, so every row's k = 1 starts one */
#define FIELD_OFFSET (HIMENO_ROW_BYTES - sizeof(float))
static size_t padded_bytes(size_t floats) {
  return ((FIELD_OFFSET + floats * sizeof(float) + 63) / 64 * 64) + HIMENO_STAGGER_BYTES;
}

void himeno_setup(FbContext *ctx, Himeno *h) {
  /* The interior points (boundaries excluded) are what ranks share. */
  int interior[3] = {h->points[0] - 2, h->points[1] - 2, h->points[2] - 2};
  const int periods[3] = {0, 0, 0};
  char err[FB_MSG_LEN];
  int rc = fb_decomp_init(&h->decomp, ctx->comm, interior, h->grid, periods, 1, err, sizeof err);
  if (rc) fb_fail(ctx, rc, "%s%s", fb_option_was_set(ctx, "grid") ? "--grid: " : "", err);
  const int pads[3] = {1, 1, 1};
  int bad = fb_halo_init_ex(&h->halo, &h->decomp, 1, pads, 0, HIMENO_ROW_BYTES / (int)sizeof(float),
                            MPI_FLOAT, 1);
  const size_t field = local_points(h) + HIMENO_TAIL_FLOATS;
  const size_t stream = himeno_coef_layout(h, 0), split = himeno_coef_layout(h, 1);
  const size_t coef = stream > split ? stream : split; /* room for either layout */
  const size_t need = 2 * padded_bytes(field) + padded_bytes(coef);
  fb_check_memory(ctx, need, "the fields");
  h->slab = fb_alloc(need);
  bad |= h->slab == NULL;
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory allocating the fields");
  h->p = (float *)(h->slab + FIELD_OFFSET); /* the slab starts a line (fb_alloc) */
  h->pnew = (float *)(h->slab + padded_bytes(field) + FIELD_OFFSET);
  h->coef = (float *)(h->slab + 2 * padded_bytes(field));
  for (size_t x = local_points(h); x < field; x++) h->p[x] = h->pnew[x] = 0.0f;
  h->coef_perturb = fb_test_hook("himeno_perturb") && ctx->rank == 0;
  himeno_coef_use(h, !strcmp(h->layout_name, "split"));
  himeno_reset(h);
}

void himeno_coef_use(Himeno *h, int split) {
  himeno_coef_layout(h, split);
  himeno_coef_fill(h, coefficient_values);
  if (h->coef_perturb) *himeno_coef_at(h, CO_A3, 1, 1, 1) *= 1.01f; /* a wrong answer for tests */
}

int himeno_sweep_kind(const Himeno *h) {
  return !h->coef_split ? HIMENO_ONE_STREAM : h->wide ? HIMENO_SPLIT_WIDE : HIMENO_SPLIT;
}

void himeno_use_sweep_kind(Himeno *h, int kind) {
  const int split = kind != HIMENO_ONE_STREAM;
  if (split != h->coef_split) himeno_coef_use(h, split);
  if (split) h->wide = kind == HIMENO_SPLIT_WIDE;
}

void himeno_free(Himeno *h) {
  free(h->slab);
  fb_halo_free(&h->halo);
  fb_decomp_free(&h->decomp);
}
