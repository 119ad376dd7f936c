/* kernels.c: Copy, Scale, Add and Triad as plain loops (compiled with
 * -fno-tree-loop-distribute-patterns so Copy stays a loop) in two vector
 * widths, and the same with non-temporal stores for --nt. Each thread works
 * on a fixed share of the arrays, the same share that first touched them. */
#include "stream.h"

#include <math.h>
#include <omp.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

const char *const stream_kernel_names[K_COUNT] = {"Copy", "Scale", "Add", "Triad"};
const int stream_arrays_moved[K_COUNT] = {2, 2, 3, 3};

int stream_nt_available(void) {
#if defined(__SSE2__)
  return 1;
#else
  return 0;
#endif
}

/* This thread's share [lo, hi), in whole chunks of STREAM_CHUNK elements. */
static void thread_share(long long n, long long *lo, long long *hi) {
  int t = omp_get_thread_num(), nt = omp_get_num_threads();
  long long chunks = (n + STREAM_CHUNK - 1) / STREAM_CHUNK;
  long long c0 = chunks * t / nt, c1 = chunks * (t + 1) / nt;
  *lo = c0 * STREAM_CHUNK;
  *hi = c1 * STREAM_CHUNK < n ? c1 * STREAM_CHUNK : n;
}

/* The plain loops are compiled twice: with the vectors the build's -march
 * and GCC's tuning for it choose (512 bits on a Zen 4 with AVX-512, 256 on
 * Intel's AVX-512 cores and on AVX2), and with 128-bit ones. On one core of
 * a 2-core Zen 4 VM (EPYC family 25 model 17; 6 December 2026, 10.7 M
 * elements, huge pages, 12 alternations) Triad ran at 32.9 GB/s in 128-bit
 * vectors, 30.1 in 256 and 26.9 in 512 (4 KiB pages: 28.3, 21.3, 19.9), 128
 * ahead in 11-12 of 12 pairs for every kernel. Hand-written loops did the
 * same: the narrower the loads, the more one core streamed (256-bit
 * arithmetic on pairs of 128-bit loads as fast as 128-bit loops), though
 * a loop that only read or only wrote ran as fast in 512 bits
 * (docs/performance.md, session 47). Which width streams faster is the
 * CPU's matter, so --vector-width auto (run.c) times both; the values are
 * the same bits either way (no contraction, -ffp-contract=off, the same
 * operations per element). Other compilers and targets get one loop, the
 * compiler's. */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
/* noinline: inlined into its caller, the loop would take the caller's width */
#define NARROW_ATTRIBUTES __attribute__((noinline, target("prefer-vector-width=128")))
#define NATIVE_ATTRIBUTES __attribute__((noinline))
#define HAVE_NARROW       1
#else
#define NATIVE_ATTRIBUTES
#define NARROW_ATTRIBUTES
#define HAVE_NARROW 0
#endif
#if defined(__GNUC__)
#define INLINE inline __attribute__((always_inline))
#else
#define INLINE inline
#endif

int stream_narrow_available(void) { return HAVE_NARROW; }

static INLINE void plain(int kernel, double *restrict a, double *restrict b, double *restrict c,
                         long long lo, long long hi) {
  const double q = STREAM_SCALAR;
  switch (kernel) {
  case K_COPY:
    for (long long j = lo; j < hi; j++) c[j] = a[j];
    break;
  case K_SCALE:
    for (long long j = lo; j < hi; j++) b[j] = q * c[j];
    break;
  case K_ADD:
    for (long long j = lo; j < hi; j++) c[j] = a[j] + b[j];
    break;
  case K_TRIAD:
    for (long long j = lo; j < hi; j++) a[j] = b[j] + q * c[j];
    break;
  }
}

static NATIVE_ATTRIBUTES void plain_native(int kernel, double *restrict a, double *restrict b,
                                           double *restrict c, long long lo, long long hi) {
  plain(kernel, a, b, c, lo, hi);
}

static NARROW_ATTRIBUTES void plain_narrow(int kernel, double *restrict a, double *restrict b,
                                           double *restrict c, long long lo, long long hi) {
  plain(kernel, a, b, c, lo, hi);
}

#if defined(__SSE2__)
/* Non-temporal stores, two doubles at a time; lo is chunk-aligned (64 B). */
static void streaming(int kernel, double *restrict a, double *restrict b, double *restrict c,
                      long long lo, long long hi) {
  const __m128d q = _mm_set1_pd(STREAM_SCALAR);
  long long j = lo, end = lo + (hi - lo) / 2 * 2;
  switch (kernel) {
  case K_COPY:
    for (; j < end; j += 2) _mm_stream_pd(c + j, _mm_load_pd(a + j));
    break;
  case K_SCALE:
    for (; j < end; j += 2) _mm_stream_pd(b + j, _mm_mul_pd(q, _mm_load_pd(c + j)));
    break;
  case K_ADD:
    for (; j < end; j += 2)
      _mm_stream_pd(c + j, _mm_add_pd(_mm_load_pd(a + j), _mm_load_pd(b + j)));
    break;
  case K_TRIAD:
    for (; j < end; j += 2)
      _mm_stream_pd(a + j, _mm_add_pd(_mm_load_pd(b + j), _mm_mul_pd(q, _mm_load_pd(c + j))));
    break;
  }
  plain(kernel, a, b, c, end, hi);
  _mm_sfence();
}
#endif

void stream_kernel(Stream *s, int kernel) {
#pragma omp parallel
  {
    long long lo, hi;
    thread_share(s->n, &lo, &hi);
#if defined(__SSE2__)
    if (s->nt)
      streaming(kernel, s->a, s->b, s->c, lo, hi);
    else
#endif
        if (s->narrow)
      plain_narrow(kernel, s->a, s->b, s->c, lo, hi);
    else
      plain_native(kernel, s->a, s->b, s->c, lo, hi);
  }
}

void stream_pass_done(Stream *s) {
  if (++s->passes_done % STREAM_RESCALE_PASSES) return;
  const double f = ldexp(1.0, -STREAM_RESCALE_EXP);
#pragma omp parallel
  {
    long long lo, hi;
    thread_share(s->n, &lo, &hi);
    for (long long j = lo; j < hi; j++) {
      s->a[j] *= f;
      s->b[j] *= f;
      s->c[j] *= f;
    }
  }
}

/* First touch by the threads that will use each share; stream.c's values. */
void stream_first_touch(Stream *s) {
#pragma omp parallel
  {
    long long lo, hi;
    thread_share(s->n, &lo, &hi);
    for (long long j = lo; j < hi; j++) {
      s->a[j] = 1.0;
      s->b[j] = 2.0;
      s->c[j] = 0.0;
    }
  }
}
