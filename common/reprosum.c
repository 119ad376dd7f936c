/* reprosum.c: reproducible global sums. Each double is added exactly into a
 * fixed-point superaccumulator of 32-bit digits covering the whole double
 * range, so the accumulated integer, and the double read from it, do not
 * depend on the order of addition or on the number of ranks. Also sums over
 * the threads of a team in thread order (fb_team_total). */
#include "fabricbench.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define DIGIT_BITS      32
#define BIAS            1074      /* bit 0 of limb 0 weighs 2^-1074 */
#define NORMALIZE_EVERY (1 << 29) /* limbs stay far from int64 overflow */

void fb_rsum_init(FbReproSum *s) { memset(s, 0, sizeof *s); }

static void normalize(FbReproSum *s) {
  for (int i = 0; i < FB_RSUM_LIMBS - 1; i++) {
    int64_t carry = s->limb[i] >> DIGIT_BITS; /* floor division */
    s->limb[i] -= carry * ((int64_t)1 << DIGIT_BITS);
    s->limb[i + 1] += carry;
  }
  s->adds = 0;
}

void fb_rsum_add(FbReproSum *s, double x) {
  if (!isfinite(x)) {
    s->nonfinite = 1;
    return;
  }
  if (x == 0.0) return;
  int exp2;
  double frac = frexp(fabs(x), &exp2); /* |x| = frac * 2^exp2, frac in [0.5, 1) */
  /* |x| = mant * 2^(exp2 - 53) with mant a 53-bit integer (exact). */
  int shift = exp2 - 53 + BIAS;
  uint64_t mant;
  if (shift < 0) { /* subnormal: fewer significant bits */
    mant = (uint64_t)ldexp(frac, 53 + shift);
    shift = 0;
  } else {
    mant = (uint64_t)ldexp(frac, 53);
  }
  int limb = shift / DIGIT_BITS, bit = shift % DIGIT_BITS;
  unsigned __int128 v = (unsigned __int128)mant << bit;
  int64_t sign = x < 0 ? -1 : 1;
  for (int k = 0; k < 3 && limb + k < FB_RSUM_LIMBS; k++) {
    s->limb[limb + k] += sign * (int64_t)(uint64_t)(v & 0xffffffffu);
    v >>= DIGIT_BITS;
  }
  if (++s->adds >= NORMALIZE_EVERY) normalize(s);
}

void fb_rsum_merge(FbReproSum *into, const FbReproSum *from) {
  FbReproSum copy = *from;
  normalize(&copy);
  normalize(into);
  for (int i = 0; i < FB_RSUM_LIMBS; i++) into->limb[i] += copy.limb[i];
  into->nonfinite |= copy.nonfinite;
  normalize(into);
}

double fb_rsum_value(const FbReproSum *s) {
  if (s->nonfinite) return NAN;
  FbReproSum t = *s;
  normalize(&t);
  double sign = 1.0;
  if (t.limb[FB_RSUM_LIMBS - 1] < 0) {
    for (int i = 0; i < FB_RSUM_LIMBS; i++) t.limb[i] = -t.limb[i];
    normalize(&t);
    sign = -1.0;
  }
  int top = FB_RSUM_LIMBS - 1;
  while (top >= 0 && t.limb[top] == 0) top--;
  if (top < 0) return 0.0;
  /* The top three digits (96 bits) carry more than double precision; the
   * conversion rounds them once, deterministically. */
  unsigned __int128 v = 0;
  int low = top - 2 < 0 ? 0 : top - 2;
  for (int i = top; i >= low; i--) v = (v << DIGIT_BITS) | (uint64_t)t.limb[i];
  int sticky = 0;
  for (int i = low - 1; i >= 0; i--) sticky |= t.limb[i] != 0;
  if (sticky) v |= 1; /* below the last kept bit: only breaks ties correctly */
  return sign * ldexp((double)v, low * DIGIT_BITS - BIAS);
}

double fb_rsum_allreduce(FbReproSum *s, MPI_Comm comm) {
  normalize(s);
  int64_t in[FB_RSUM_LIMBS + 1], out[FB_RSUM_LIMBS + 1];
  memcpy(in, s->limb, sizeof s->limb);
  in[FB_RSUM_LIMBS] = s->nonfinite;
  MPI_Allreduce(in, out, FB_RSUM_LIMBS + 1, MPI_INT64_T, MPI_SUM, comm);
  FbReproSum g;
  memcpy(g.limb, out, sizeof g.limb);
  g.nonfinite = out[FB_RSUM_LIMBS] != 0;
  g.adds = 0;
  return fb_rsum_value(&g);
}

int fb_team_rows(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void fb_team_put(double *part, int n, const double *mine) {
  int t = 0;
#ifdef _OPENMP
  t = omp_get_thread_num();
#endif
  memcpy(part + (size_t)t * n, mine, (size_t)n * sizeof *mine);
}

void fb_team_total(const double *part, int n, double *total) {
  const int rows = fb_team_rows();
  for (int k = 0; k < n; k++) {
    double v = 0.0;
    for (int t = 0; t < rows; t++) v += part[(size_t)t * n + k];
    total[k] = v;
  }
}
