/* memcheck_probe.c: can valgrind execute code built with these -march flags?
 * tests/memcheck builds this with each candidate and runs it under valgrind:
 * the widest vector instructions the flags enable (explicitly, and through a
 * loop the compiler vectorises and a large memset, which is where the apps
 * first met an AVX-512 instruction valgrind 3.19 could not decode). Prints
 * "ok" and exits 0 when it ran. */
#include <stdio.h>
#include <string.h>
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#define PROBE_N 4096

typedef struct {
  double values[PROBE_N];
  char names[64][64];
} ProbeState;

static double widest_vector_sum(const double *x) {
  double out[8] = {0};
#if defined(__AVX512F__)
  __m512d v = _mm512_loadu_pd(x);
  _mm512_storeu_pd(out, _mm512_add_pd(v, v));
#elif defined(__AVX2__)
  __m256d v = _mm256_loadu_pd(x);
  _mm256_storeu_pd(out, _mm256_add_pd(v, v));
#else
  for (int i = 0; i < 8; i++) out[i] = 2.0 * x[i];
#endif
  double s = 0.0;
  for (int i = 0; i < 8; i++) s += out[i];
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  static ProbeState state;
  ProbeState local;
  memset(&local, argc, sizeof local); /* a wide inline memset */
  for (int i = 0; i < PROBE_N; i++) state.values[i] = 0.5 * i + local.values[i % 7] * 1e-300;
  for (int i = 0; i < PROBE_N; i++) state.values[i] = 3.0 * state.values[i] + 1.0;
  double s = widest_vector_sum(state.values) + (double)local.names[3][5];
  printf("ok %g\n", s > 0 ? 1.0 : 0.0);
  return 0;
}
