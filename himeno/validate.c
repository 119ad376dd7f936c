/* validate.c: the field checksum (reproducible, so identical for every
 * process grid) and the checks against the original's gosa. */
#include "himeno.h"
#include "../validation/himeno_reference.h"

#include <math.h>
#include <string.h>

double himeno_interior_points(const Himeno *h) {
  return (double)(h->points[0] - 2) * (h->points[1] - 2) * (h->points[2] - 2);
}

/* Sum of p, and sum of p weighted by a small integer of the global position
 * (exact in double), over the interior; the weights catch misplaced values. */
void himeno_checksum(FbContext *ctx, Himeno *h) {
  const FbDecomp *d = &h->decomp;
  const int *e = h->halo.ext;
  FbReproSum plain, weighted;
  fb_rsum_init(&plain);
  fb_rsum_init(&weighted);
  for (int i = 1; i <= d->n[0]; i++)
    for (int j = 1; j <= d->n[1]; j++)
      for (int k = 1; k <= d->n[2]; k++) {
        int gi = d->lo[0] + i, gj = d->lo[1] + j, gk = d->lo[2] + k;
        double v = h->p[fb_idx3(e, i, j, k)];
        fb_rsum_add(&plain, v);
        fb_rsum_add(&weighted, v * (double)(1 + (7 * gi + 3 * gj + gk) % 11));
      }
  h->checksum = fb_rsum_allreduce(&plain, ctx->comm);
  h->checksum_weighted = fb_rsum_allreduce(&weighted, ctx->comm);
}

static const HimenoReference *find_reference(const char *size, long long iteration) {
  for (size_t i = 0; i < sizeof himeno_reference / sizeof himeno_reference[0]; i++)
    if (!strcmp(himeno_reference[i].size, size) && himeno_reference[i].iteration == iteration)
      return &himeno_reference[i];
  return NULL;
}

void himeno_validate(const Himeno *h, FbResult *r) {
  fb_result_check_true(r, "checksum_finite", "checksums finite",
                       isfinite(h->checksum) && isfinite(h->checksum_weighted));
  fb_result_check_true(r, "gosa_finite", "gosa finite",
                       isfinite(h->gosa) && isfinite(h->gosa_first));
  /* Jacobi relaxation of this problem reduces the residual every iteration. */
  if (h->done > 1)
    fb_result_check_true(r, "gosa_decreased", "gosa decreased", h->gosa < h->gosa_first);
  const HimenoReference *first = find_reference(h->size_name, 1);
  if (first)
    fb_result_check_rel(r, "gosa_iteration_1_vs_original", "gosa at iteration 1 = RIKEN's",
                        h->gosa_first, first->gosa_double, HIMENO_GOSA_REL_TOL);
  const HimenoReference *last = h->done > 1 ? find_reference(h->size_name, h->done) : NULL;
  if (last)
    fb_result_check_rel(r, "gosa_final_vs_original", "final gosa = RIKEN's", h->gosa,
                        last->gosa_double, HIMENO_GOSA_REL_TOL);
}
