/* kernel.c: one Jacobi iteration of the 19-point stencil, the original's
 * arithmetic term by term, with p and its successor swapped instead of the
 * original's copy of wrk2 back into p. */
#include "himeno.h"

#include <string.h>

/* Rows of p around (i, j): centre, i+-1, j+-1, and the four (i+-1, j+-1). */
typedef struct {
  const float *c, *ip, *im, *jp, *jm, *ipjp, *ipjm, *imjp, *imjm;
} StencilRows;

/* The coefficients are stored in the order the sweep reads them (h->coef):
 * for each interior row, for each block of BLOCK points, the twelve
 * coefficients' BLOCK values one after the other. A block's twelve streams
 * are then one pointer and fixed offsets: with the original's twelve
 * arrays, 22 base pointers were live in the loop, more than x86-64 has
 * registers, and GCC spilled them on every vector (perf annotate: half of
 * the sweep's samples). The bytes read per point are the original's. */
#define BLOCK        HIMENO_BLOCK
#define CO(cb, f, l) ((cb)[(f)*BLOCK + (l)])

/* The coefficients are 48 of the 56 bytes a point reads, one stream that
 * the hardware prefetchers follow too late: each block asks for its twelve
 * cache lines (one per coefficient, BLOCK floats each) PREFETCH_BLOCKS
 * blocks ahead, into the next row's where a row ends (rows are contiguous;
 * a prefetch past the array's end is harmless). Measured on a Zen 5 VM
 * (1 December 2026, -s XS/S/M, 1 and 2 ranks, same field): 4 blocks ahead
 * +10-15%, 8 blocks +20-30% at S and M and neutral at XS, 16 and more no
 * better and worse at M. */
#define PREFETCH_BLOCKS 8
#define PREFETCH_AHEAD  (PREFETCH_BLOCKS * CO_COUNT * BLOCK)

size_t himeno_coef_per_row(int n) { return (size_t)((n + BLOCK - 1) / BLOCK) * CO_COUNT * BLOCK; }

static float *row_coef(const Himeno *h, int i, int j) {
  return h->coef + ((size_t)(i - 1) * h->decomp.n[1] + (size_t)(j - 1)) * h->coef_per_row;
}

float *himeno_coef_at(Himeno *h, int f, int i, int j, int k) {
  return row_coef(h, i, j) + (size_t)((k - 1) / BLOCK) * CO_COUNT * BLOCK + f * BLOCK +
         (k - 1) % BLOCK;
}

/* Every coefficient (padding lanes past a row's end included) to its value;
 * rows are first touched by the threads that sweep them. */
void himeno_coef_fill(Himeno *h, const float value[CO_COUNT]) {
  const int n0 = h->decomp.n[0], n1 = h->decomp.n[1];
  const size_t per_row = h->coef_per_row;
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 1; i <= n0; i++)
    for (int j = 1; j <= n1; j++) {
      float *cb = row_coef(h, i, j);
      for (size_t x = 0; x < per_row; x++) cb[x] = value[x / BLOCK % CO_COUNT];
    }
}

/* The original's sum for point k (lane l of the block), term by term in its
 * order, in two halves (loop fission, fewer live streams per loop). The
 * float sum is the original's, so the field is the same to the bit. */
static inline float first_terms(const StencilRows *p, const float *cb, int k, int l) {
  return CO(cb, CO_A0, l) * p->ip[k] + CO(cb, CO_A1, l) * p->jp[k] +
         CO(cb, CO_A2, l) * p->c[k + 1] +
         CO(cb, CO_B0, l) * (p->ipjp[k] - p->ipjm[k] - p->imjp[k] + p->imjm[k]) +
         CO(cb, CO_B1, l) * (p->jp[k + 1] - p->jm[k + 1] - p->jp[k - 1] + p->jm[k - 1]);
}
/* the other five terms and the update: returns ss, the point's change */
static inline float last_terms(const StencilRows *p, const float *cb, float first, int k, int l) {
  float s0 = first +
             CO(cb, CO_B2, l) * (p->ip[k + 1] - p->im[k + 1] - p->ip[k - 1] + p->im[k - 1]) +
             CO(cb, CO_C0, l) * p->im[k] + CO(cb, CO_C1, l) * p->jm[k] +
             CO(cb, CO_C2, l) * p->c[k - 1] + CO(cb, CO_WRK1, l);
  return (s0 * CO(cb, CO_A3, l) - p->c[k]) * CO(cb, CO_BND, l);
}

/* A block's width is fixed at compile time: whole vectors on any vector unit
 * (one of 512 bits, two of 256, four of 128) and no scalar remainder, which
 * on short rows (XS: 62 points) was a quarter of the points. A row's last
 * block may run past the row's end (the arrays are padded): those lanes are
 * neither stored nor summed. The residual is summed in BLOCK lanes of
 * double per thread, in the same order on every CPU. */
static const double first_lanes[2 * BLOCK] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                              0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static inline void sweep_block(const StencilRows *p, const float *restrict cb, int k0, int valid,
                               float *restrict out, double *restrict lanes) {
  float t[BLOCK], v[BLOCK];
  const double *w = first_lanes + BLOCK - valid; /* 1 for the valid lanes */
  const float omega = HIMENO_OMEGA;
#pragma omp simd
  for (int l = 0; l < BLOCK; l++) t[l] = first_terms(p, cb, k0 + l, l);
#pragma omp simd
  for (int l = 0; l < BLOCK; l++) {
    const int k = k0 + l;
    const float ss = last_terms(p, cb, t[l], k, l);
    v[l] = p->c[k] + omega * ss;
    lanes[l] += (double)ss * (double)ss * w[l]; /* padding lanes are finite: exact */
  }
  memcpy(out + k0, v, (size_t)valid * sizeof *v);
}

/* One row, k = 1..n. */
static void sweep_row(int n, const StencilRows *p, const float *restrict cb, float *restrict out,
                      double *restrict lanes) {
  int k0 = 1;
  for (; k0 + BLOCK - 1 <= n; k0 += BLOCK, cb += CO_COUNT * BLOCK) {
    for (int f = 0; f < CO_COUNT; f++) __builtin_prefetch(cb + PREFETCH_AHEAD + f * BLOCK);
    sweep_block(p, cb, k0, BLOCK, out, lanes);
  }
  if (k0 <= n) sweep_block(p, cb, k0, n + 1 - k0, out, lanes);
}

double himeno_sweep(const Himeno *h, const float *p, float *pnew) {
  const int *e = h->halo.ext;
  const int n0 = h->decomp.n[0], n1 = h->decomp.n[1], n2 = h->decomp.n[2];
  const size_t si = (size_t)e[1] * e[2], sj = (size_t)e[2];
  double gosa = 0.0;
#pragma omp parallel reduction(+ : gosa)
  {
    double lanes[BLOCK] = {0.0};
#pragma omp for collapse(2) schedule(static)
    for (int i = 1; i <= n0; i++)
      for (int j = 1; j <= n1; j++) {
        const size_t r = fb_idx3(e, i, j, 0);
        const float *m = p + r;
        const StencilRows rows = {m,           m + si,      m - si,      m + sj,     m - sj,
                                  m + si + sj, m + si - sj, m - si + sj, m - si - sj};
        sweep_row(n2, &rows, row_coef(h, i, j), pnew + r, lanes);
      }
    for (int l = 0; l < BLOCK; l++) gosa += lanes[l];
  }
  return gosa;
}

double himeno_iterate(FbContext *ctx, Himeno *h) {
  void *fields[1] = {h->p};
  fb_halo_exchange(&h->halo, fields, &ctx->timers, PH_HALO);
  fb_timer_start(&ctx->timers, PH_COMPUTE);
  double local = himeno_sweep(h, h->p, h->pnew);
  fb_timer_stop(&ctx->timers, PH_COMPUTE);
  float *t = h->p;
  h->p = h->pnew;
  h->pnew = t;
  return fb_allreduce_sum(ctx, PH_ALLREDUCE, local);
}
