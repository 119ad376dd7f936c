/* kernel.c: one Jacobi iteration of the 19-point stencil, the original's
 * arithmetic term by term, with p and its successor swapped instead of the
 * original's copy of wrk2 back into p. */
#include "himeno.h"

/* Rows of p around (i, j): centre, i+-1, j+-1, and the four (i+-1, j+-1). */
typedef struct {
  const float *c, *ip, *im, *jp, *jm, *ipjp, *ipjm, *imjp, *imjm;
} StencilRows;

/* The row is swept in chunks of CHUNK points, each in two passes (loop
 * fission): 22 arrays in one loop are more base pointers than x86-64 has
 * registers, and the compiler spilled them to the stack on every vector
 * (10-15% of the sweep). The first pass adds the first five terms into t[],
 * the second the other five; the float sum is the original's, term by term
 * in its order, so the field is the same to the bit. */
#define CHUNK 256

/* s0's first five terms, for k = k0 .. k1-1 */
static void sweep_first(int k0, int k1, StencilRows p, const float *const *restrict coef,
                        float *restrict t) {
  const float *restrict a0 = coef[0], *restrict a1 = coef[1], *restrict a2 = coef[2];
  const float *restrict b0 = coef[4], *restrict b1 = coef[5];
  const float *restrict pc = p.c, *restrict pip = p.ip, *restrict pjp = p.jp, *restrict pjm = p.jm;
  const float *restrict pipjp = p.ipjp, *restrict pipjm = p.ipjm;
  const float *restrict pimjp = p.imjp, *restrict pimjm = p.imjm;
#pragma omp simd
  for (int k = k0; k < k1; k++)
    t[k - k0] = a0[k] * pip[k] + a1[k] * pjp[k] + a2[k] * pc[k + 1] +
                b0[k] * (pipjp[k] - pipjm[k] - pimjp[k] + pimjm[k]) +
                b1[k] * (pjp[k + 1] - pjm[k + 1] - pjp[k - 1] + pjm[k - 1]);
}

/* the other five terms, the update and the residual, for k = k0 .. k1-1 */
static double sweep_second(int k0, int k1, StencilRows p, const float *const *restrict coef,
                           const float *restrict t, float *restrict out) {
  const float *restrict a3 = coef[3], *restrict b2 = coef[6], *restrict c0 = coef[7];
  const float *restrict c1 = coef[8], *restrict c2 = coef[9], *restrict w1 = coef[10];
  const float *restrict bnd = coef[11];
  const float *restrict pc = p.c, *restrict pip = p.ip, *restrict pim = p.im;
  const float *restrict pjm = p.jm;
  const float omega = HIMENO_OMEGA;
  double gosa = 0.0;
  /* simd: the lanes of the double sum are fixed by the vector width */
#pragma omp simd reduction(+ : gosa)
  for (int k = k0; k < k1; k++) {
    float s0 = t[k - k0] + b2[k] * (pip[k + 1] - pim[k + 1] - pip[k - 1] + pim[k - 1]) +
               c0[k] * pim[k] + c1[k] * pjm[k] + c2[k] * pc[k - 1] + w1[k];
    float s = (s0 * a3[k] - pc[k]) * bnd[k];
    gosa += (double)s * (double)s;
    out[k] = pc[k] + omega * s;
  }
  return gosa;
}

/* One row of the sweep, k = 1..n; coefficient rows are offset like p's. */
static double sweep_row(int n, StencilRows p, const float *const *restrict coef,
                        float *restrict out) {
  float t[CHUNK];
  double gosa = 0.0;
  for (int k0 = 1; k0 <= n; k0 += CHUNK) {
    int k1 = k0 + CHUNK <= n + 1 ? k0 + CHUNK : n + 1;
    sweep_first(k0, k1, p, coef, t);
    gosa += sweep_second(k0, k1, p, coef, t, out);
  }
  return gosa;
}

double himeno_sweep(const Himeno *h, const float *p, float *pnew) {
  const int *e = h->halo.ext;
  const int n0 = h->decomp.n[0], n1 = h->decomp.n[1], n2 = h->decomp.n[2];
  const size_t si = (size_t)e[1] * e[2], sj = (size_t)e[2];
  const float *base[12] = {h->a[0], h->a[1], h->a[2], h->a[3], h->b[0], h->b[1],
                           h->b[2], h->c[0], h->c[1], h->c[2], h->wrk1, h->bnd};
  double gosa = 0.0;
#pragma omp parallel for collapse(2) reduction(+ : gosa) schedule(static)
  for (int i = 1; i <= n0; i++)
    for (int j = 1; j <= n1; j++) {
      const size_t r = fb_idx3(e, i, j, 0);
      const float *c = p + r;
      StencilRows rows = {c,           c + si,      c - si,      c + sj,     c - sj,
                          c + si + sj, c + si - sj, c - si + sj, c - si - sj};
      const float *coef[12];
      for (int f = 0; f < 12; f++) coef[f] = base[f] + r;
      gosa += sweep_row(n2, rows, coef, pnew + r);
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
