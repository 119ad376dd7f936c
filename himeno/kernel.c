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
 * for each interior row, for each block of BLOCK points, the BLOCK values of
 * each coefficient, in CO_STREAMS groups of CO_PER_STREAM. A block's twelve
 * runs are then one pointer, the distance between groups (gs, floats) and
 * fixed offsets, so few registers are live: with the original's twelve
 * arrays, 22 base pointers were live in the loop and GCC spilled them on
 * every vector (perf annotate: half of the sweep's samples). The bytes read
 * per point are the original's.
 * Two layouts: a block's groups together, one stream (gs = CO_PER_STREAM x
 * BLOCK), or each group an array of its own (split): a core keeps more
 * misses in flight on a few sequential streams than on one. Which is faster
 * depends on whether the ranks' coefficients stay in the node's cache, so
 * --layout auto (run.c) times both; neither changes a bit of the field.
 * Measured on a Zen 5 VM (1 December 2026, the sweep alone, both layouts in
 * one process, medians of 7-9, 256-bit vectors): three arrays 18.7 against
 * 15.1 Gflop/s at M (255x127x127 points) and 16.4 against 13.9 at L,
 * neutral at S, and 11% slower at XS, whose coefficients (3 MB) stay in
 * cache; 48 bytes a point of trivial arithmetic read at 19-22 GB/s from one
 * stream and 28-31 GB/s from three; four and six arrays no better than
 * three. On another Zen 5 VM (family 26 model 2; 2 December 2026, bmt -t 2
 * alternating) S on two ranks, 13 MB of coefficients each, ran at 44-53
 * Gflop/s in one stream against 30-42 in three arrays, and on one rank
 * (26 MB) at 16-17 against 18-19. */
#if defined(__GNUC__)
#define INLINE inline __attribute__((always_inline))
#else
#define INLINE inline
#endif
#define BLOCK HIMENO_BLOCK
#define CO(cb, gs, f, l)                                                                           \
  ((cb)[(size_t)((f) / CO_PER_STREAM) * (gs) + ((f) % CO_PER_STREAM) * BLOCK + (l)])

/* The coefficients are 48 of the 56 bytes a point reads, streams that the
 * hardware prefetchers follow too late: each block asks for its twelve
 * cache lines (one per coefficient, BLOCK floats each) PREFETCH_BLOCKS
 * blocks ahead, into the next row's where a row ends (rows are contiguous;
 * a prefetch past the array's end is harmless). Measured on a Zen 5 VM (1
 * December 2026, same field): 4 blocks ahead +10-15%, 8 blocks +20-30% at
 * S and M and neutral at XS, 16 and more no better and worse at M. With the
 * split layout each block also asks for the same points of the three rows
 * of p that its row is the first to read (j+1 in planes i-1, i and i+1; the
 * other six were read by the rows before): +10% at L, +3% at S (the sweep
 * alone, medians of 9 and 11), and 5% slower on XS's short rows.
 * The split layout's problems are larger than a core's caches, and a
 * prefetch into L1 holds one of L1's few miss buffers (about two dozen on
 * Zen 4, 12-16 on Intel's cores) for the whole trip from L3 or memory: 24
 * lines x 64 B in 100 ns is 15 GB/s, where L2 keeps several times as many
 * misses in flight. Its blocks ask for their lines twice: PREFETCH_FAR
 * blocks ahead into L2 (prefetcht1 on x86), and again PREFETCH_NEAR blocks
 * ahead into L1, from L2. Measured on a Zen 4 VM (EPYC family 25 model
 * 17; 1 December 2026, bmt -n 40 to 800 on 1x1xN, alternating, medians of
 * 4-5) against 8 blocks ahead into L1: L 12.6 against 11.9 Gflop/s on one
 * rank (into L2 alone, 8 to 32 blocks ahead: 11.0-12.0 against 7.9-9.1 in
 * another hour), 20.2 against 18.7 on two; M 11.7 against 11.5; S 16.5
 * against 12.7 on one rank and 24.2 against 25.8 on two. Into L2 alone was
 * slower at S (12-15 against 13-19). Not measured on the Zen 5 VM.
 * On a Zen 3 VM (EPYC family 25 model 1, 32 MB L3; 3 December 2026, bmt
 * -t 2 on 1x1xN, alternating) every one of these prefetches cost time, in
 * both layouts, and the hardware prefetchers alone kept up: three arrays
 * at L 9.8-10.9 Gflop/s without them against 7.3-7.5 with on one rank,
 * 12.7-17.9 against 10.0-10.7 on two; M and S 8-45% faster; one stream at
 * S to L 10-40% faster, at XS the same. (A loop reading 13 arrays and
 * writing one reached 24 GB/s on one of its cores, 21 with prefetches 32
 * blocks ahead.) So each sweep is compiled with and without them, and
 * --prefetch auto (run.c) times both; neither changes a bit of the field. */
#define PREFETCH_BLOCKS 8
#define PREFETCH_FAR    32
#define PREFETCH_NEAR   4

/* The sweep is compiled twice, inlined into each layout's function (the
 * one-stream layout's distances then constants). The split layout's
 * prefers 256-bit vectors where GCC has the choice (x86 with AVX-512; its
 * own tuning for Intel's AVX-512 cores already does): on a Zen 5 VM (1
 * December 2026, the sweep alone, medians of 7-9) 512-bit vectors were
 * 25-40% slower at S to L (17.1 against 23.6 Gflop/s at S, 13.2 against
 * 16.4 at L), and 15% faster at XS on 2 ranks (32 against 27.5). */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define STREAMING_WIDTH __attribute__((target("prefer-vector-width=256")))
#else
#define STREAMING_WIDTH
#endif
/* Where the build has AVX-512 (GCC on x86), the split layout's sweep is
 * compiled in 512-bit vectors too, and --vector-width auto (run.c) times
 * both. On a Zen 4 VM (EPYC family 25 model 17; 6 December 2026, bmt's own
 * trial, each variant timed 8 times alternated in one process, best of
 * each, three runs a row) 512 bits were faster: L 2-4% on one rank and 0-2%
 * on two, M 1-6%, S 4-10% (a loop reading himeno's nine rows of p and its
 * three coefficient arrays and writing one streamed 27-28.5 GB/s in 512-bit
 * vectors, 25.5-26.5 in 256-bit ones); on the Zen 5 VM above they were 25-40%
 * slower. Same bits either way. */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__)) &&      \
    defined(__AVX512F__)
#define HAVE_WIDE_SWEEP 1
#define WIDE_WIDTH      __attribute__((target("prefer-vector-width=512")))
#else
#define HAVE_WIDE_SWEEP 0
#endif

/* The new field may be written with non-temporal stores (x86 with AVX):
 * whole 64-byte lines, past the caches, so no line of it is read from
 * memory first to be overwritten (a write-allocate, 4 of the 60 bytes a
 * point moves at L), and none displaces a coefficient's. Each row's points
 * start a line (setup.c: rows padded to HIMENO_ROW_BYTES, the fields' base
 * offset by one float), so each full block is one line. Measured on a Zen 4
 * VM (EPYC family 25 model 17; 6 December 2026, bmt -n 40 or -t 1.5,
 * alternating, one binary): L 3.5-5% faster on one rank and 2-6% on two
 * (three arrays, 512-bit, prefetched), 4-6% on a 1x1x2 grid (rows padded
 * from 257 to 272 floats, the padding alone neutral); M 0-6%, S 1-2% on
 * one rank; on two, S 0-9% (three arrays) and 13-22% (one stream), XS -6
 * to +12%. So each sweep is compiled with and without them, and --nt-stores
 * auto (run.c) times both; neither changes a bit of the field. */
#if defined(__AVX__)
#include <immintrin.h>
#define HAVE_NT_SWEEP 1
_Static_assert(BLOCK * sizeof(float) == HIMENO_ROW_BYTES, "a block is one line");
#else
#define HAVE_NT_SWEEP 0
#endif

size_t himeno_coef_layout(Himeno *h, int split) {
  const int n0 = h->decomp.n[0], n1 = h->decomp.n[1], n2 = h->decomp.n[2];
  const size_t line = 64 / sizeof(float), group = CO_PER_STREAM * BLOCK;
  const size_t blocks = (size_t)n0 * n1 * (size_t)((n2 + BLOCK - 1) / BLOCK);
  h->coef_split = split;
  if (!split) {
    h->coef_group = group;
    h->coef_block = CO_COUNT * BLOCK;
    h->coef_per_row = (size_t)((n2 + BLOCK - 1) / BLOCK) * h->coef_block;
    return blocks * CO_COUNT * BLOCK;
  }
  h->coef_group = (blocks * group + line - 1) / line * line + HIMENO_STAGGER_BYTES / sizeof(float);
  h->coef_block = group;
  h->coef_per_row = (size_t)((n2 + BLOCK - 1) / BLOCK) * group;
  return CO_STREAMS * h->coef_group;
}

static float *row_coef(const Himeno *h, int i, int j) {
  return h->coef + ((size_t)(i - 1) * h->decomp.n[1] + (size_t)(j - 1)) * h->coef_per_row;
}

float *himeno_coef_at(Himeno *h, int f, int i, int j, int k) {
  const float *cb = row_coef(h, i, j) + (size_t)((k - 1) / BLOCK) * h->coef_block;
  return (float *)&CO(cb, h->coef_group, f, (k - 1) % BLOCK);
}

/* Every coefficient (padding lanes past a row's end included) to its value;
 * rows are first touched by the threads that sweep them. */
void himeno_coef_fill(Himeno *h, const float value[CO_COUNT]) {
  const int n0 = h->decomp.n[0], n1 = h->decomp.n[1];
  const size_t blocks = h->coef_per_row / h->coef_block;
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 1; i <= n0; i++)
    for (int j = 1; j <= n1; j++)
      for (size_t b = 0; b < blocks; b++) {
        float *cb = row_coef(h, i, j) + b * h->coef_block;
        for (int f = 0; f < CO_COUNT; f++)
          for (int l = 0; l < BLOCK; l++) CO(cb, h->coef_group, f, l) = value[f];
      }
}

/* The original's sum for point k (lane l of the block), term by term in its
 * order, in two halves (loop fission, fewer live streams per loop). The
 * float sum is the original's, so the field is the same to the bit. */
static inline float first_terms(const StencilRows *p, const float *cb, size_t gs, int k, int l) {
  return CO(cb, gs, CO_A0, l) * p->ip[k] + CO(cb, gs, CO_A1, l) * p->jp[k] +
         CO(cb, gs, CO_A2, l) * p->c[k + 1] +
         CO(cb, gs, CO_B0, l) * (p->ipjp[k] - p->ipjm[k] - p->imjp[k] + p->imjm[k]) +
         CO(cb, gs, CO_B1, l) * (p->jp[k + 1] - p->jm[k + 1] - p->jp[k - 1] + p->jm[k - 1]);
}
/* the other five terms and the update: returns ss, the point's change */
static inline float last_terms(const StencilRows *p, const float *cb, size_t gs, float first, int k,
                               int l) {
  float s0 = first +
             CO(cb, gs, CO_B2, l) * (p->ip[k + 1] - p->im[k + 1] - p->ip[k - 1] + p->im[k - 1]) +
             CO(cb, gs, CO_C0, l) * p->im[k] + CO(cb, gs, CO_C1, l) * p->jm[k] +
             CO(cb, gs, CO_C2, l) * p->c[k - 1] + CO(cb, gs, CO_WRK1, l);
  return (s0 * CO(cb, gs, CO_A3, l) - p->c[k]) * CO(cb, gs, CO_BND, l);
}

/* A block's width is fixed at compile time: whole vectors on any vector unit
 * (one of 512 bits, two of 256, four of 128) and no scalar remainder, which
 * on short rows (XS: 62 points) was a quarter of the points. A row's last
 * block may run past the row's end (the arrays are padded): those lanes are
 * neither stored nor summed. The residual is summed in BLOCK lanes of
 * double per thread, in the same order on every CPU. */
static const double first_lanes[2 * BLOCK] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                              0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static INLINE void sweep_block(const StencilRows *p, const float *restrict cb, size_t gs, int k0,
                               int valid, int nt, float *restrict out, double *restrict lanes) {
  float t[BLOCK], v[BLOCK];
  const double *w = first_lanes + BLOCK - valid; /* 1 for the valid lanes */
  const float omega = HIMENO_OMEGA;
#pragma omp simd
  for (int l = 0; l < BLOCK; l++) t[l] = first_terms(p, cb, gs, k0 + l, l);
#pragma omp simd
  for (int l = 0; l < BLOCK; l++) {
    const int k = k0 + l;
    const float ss = last_terms(p, cb, gs, t[l], k, l);
    v[l] = p->c[k] + omega * ss;
    lanes[l] += (double)ss * (double)ss * w[l]; /* padding lanes are finite: exact */
  }
#if HAVE_NT_SWEEP
  if (nt && valid == BLOCK) { /* one aligned line (sweep_row) */
    _mm256_stream_ps(out + k0, _mm256_loadu_ps(v));
    _mm256_stream_ps(out + k0 + 8, _mm256_loadu_ps(v + 8));
    return;
  }
#else
  (void)nt;
#endif
  memcpy(out + k0, v, (size_t)valid * sizeof *v);
}

/* One row, k = 1..n; gs and bs: the layout's group and block distances;
 * split: the layout, which says what is prefetched and where to; prefetch:
 * whether to; nt: non-temporal stores (literals in each caller), on rows
 * whose points start a line (all, setup.c; checked, as a misaligned one
 * would fault). */
static INLINE void sweep_row(int n, const StencilRows *p, const float *restrict cb, size_t gs,
                             size_t bs, int split, int prefetch, int nt, float *restrict out,
                             double *restrict lanes) {
  nt = nt && (uintptr_t)(out + 1) % HIMENO_ROW_BYTES == 0;
  int k0 = 1;
  for (; k0 + BLOCK - 1 <= n; k0 += BLOCK, cb += bs) {
    if (!prefetch) {
      /* the hardware prefetchers alone */
    } else if (!split) {
      for (int f = 0; f < CO_COUNT; f++)
        __builtin_prefetch(&CO(cb + PREFETCH_BLOCKS * bs, gs, f, 0));
    } else {
      for (int f = 0; f < CO_COUNT; f++)
        __builtin_prefetch(&CO(cb + PREFETCH_FAR * bs, gs, f, 0), 0, 2);
      for (int f = 0; f < CO_COUNT; f++) __builtin_prefetch(&CO(cb + PREFETCH_NEAR * bs, gs, f, 0));
      __builtin_prefetch(p->jp + k0 + PREFETCH_FAR * BLOCK, 0, 2);
      __builtin_prefetch(p->ipjp + k0 + PREFETCH_FAR * BLOCK, 0, 2);
      __builtin_prefetch(p->imjp + k0 + PREFETCH_FAR * BLOCK, 0, 2);
    }
    sweep_block(p, cb, gs, k0, BLOCK, nt, out, lanes);
  }
  if (k0 <= n) sweep_block(p, cb, gs, k0, n + 1 - k0, nt, out, lanes);
}

/* This thread's share of the interior rows (an orphaned omp for), with the
 * layout's distances (gs, bs; constants for the one-stream layout), the
 * layout, whether to prefetch and whether to store past the caches (split,
 * prefetch, nt: literals in each caller); returns the share's sum of ss^2. */
static INLINE double sweep_share(const Himeno *h, const float *p, float *pnew, size_t gs, size_t bs,
                                 int split, int prefetch, int nt) {
  const int *e = h->halo.ext;
  const int n0 = h->decomp.n[0], n1 = h->decomp.n[1], n2 = h->decomp.n[2];
  const size_t si = (size_t)e[1] * e[2], sj = (size_t)e[2];
  double lanes[BLOCK] = {0.0}, sum = 0.0;
#pragma omp for collapse(2) schedule(static)
  for (int i = 1; i <= n0; i++)
    for (int j = 1; j <= n1; j++) {
      const size_t r = fb_idx3(e, i, j, 0);
      const float *m = p + r;
      const StencilRows rows = {m,           m + si,      m - si,      m + sj,     m - sj,
                                m + si + sj, m + si - sj, m - si + sj, m - si - sj};
      sweep_row(n2, &rows, row_coef(h, i, j), gs, bs, split, prefetch, nt, pnew + r, lanes);
    }
#if HAVE_NT_SWEEP
  if (nt) _mm_sfence(); /* the lines written before any other thread or rank reads them */
#endif
  for (int l = 0; l < BLOCK; l++) sum += lanes[l];
  return sum;
}

/* The sweep in each layout, with and without prefetching and non-temporal
 * stores: one function each, whose parallel region inlines sweep_share
 * with literals. The threads' residuals are added in thread order
 * (fb_team_total). */
#define SWEEP_FUNCTION(name, attributes, gs, bs, split, prefetch, nt)                              \
  static attributes double name(const Himeno *h, const float *p, float *pnew) {                    \
    double part[fb_team_rows()], gosa;                                                             \
    memset(part, 0, sizeof part);                                                                  \
    _Pragma("omp parallel") {                                                                      \
      const double mine = sweep_share(h, p, pnew, gs, bs, split, prefetch, nt);                    \
      fb_team_put(part, 1, &mine);                                                                 \
    }                                                                                              \
    fb_team_total(part, 1, &gosa);                                                                 \
    return gosa;                                                                                   \
  }
#if HAVE_NT_SWEEP
#define NT_SWEEP_FUNCTIONS(name, attributes, gs, bs, split)                                        \
  SWEEP_FUNCTION(name##_hw_nt, attributes, gs, bs, split, 0, 1)                                    \
  SWEEP_FUNCTION(name##_nt, attributes, gs, bs, split, 1, 1)
#define NT_SWEEP(name) name
#else
#define NT_SWEEP_FUNCTIONS(name, attributes, gs, bs, split)
#define NT_SWEEP(name) NULL
#endif
/* a layout's four: name_hw, name, name_hw_nt, name_nt */
#define SWEEP_FUNCTIONS(name, attributes, gs, bs, split)                                           \
  SWEEP_FUNCTION(name##_hw, attributes, gs, bs, split, 0, 0)                                       \
  SWEEP_FUNCTION(name, attributes, gs, bs, split, 1, 0)                                            \
  NT_SWEEP_FUNCTIONS(name, attributes, gs, bs, split)
/* the one-stream layout's distances, constants */
#define STREAM_GROUP (CO_PER_STREAM * BLOCK)
#define STREAM_BLOCK (CO_COUNT * BLOCK)
SWEEP_FUNCTIONS(sweep_cached, , STREAM_GROUP, STREAM_BLOCK, 0)
SWEEP_FUNCTIONS(sweep_streamed, STREAMING_WIDTH, h->coef_group, h->coef_block, 1)
#if HAVE_WIDE_SWEEP
SWEEP_FUNCTIONS(sweep_wide, WIDE_WIDTH, h->coef_group, h->coef_block, 1)
#define WIDE_SWEEP(name) name
#else
#define WIDE_SWEEP(name) NULL
#endif

/* [himeno_sweep_kind][prefetch][nt]; NULL where the build has none */
typedef double (*SweepFunction)(const Himeno *h, const float *p, float *pnew);
static const SweepFunction sweeps[HIMENO_SWEEP_KINDS][2][2] = {
    [HIMENO_ONE_STREAM] = {{sweep_cached_hw, NT_SWEEP(sweep_cached_hw_nt)},
                           {sweep_cached, NT_SWEEP(sweep_cached_nt)}},
    [HIMENO_SPLIT] = {{sweep_streamed_hw, NT_SWEEP(sweep_streamed_hw_nt)},
                      {sweep_streamed, NT_SWEEP(sweep_streamed_nt)}},
    [HIMENO_SPLIT_WIDE] = {{WIDE_SWEEP(sweep_wide_hw), WIDE_SWEEP(NT_SWEEP(sweep_wide_hw_nt))},
                           {WIDE_SWEEP(sweep_wide), WIDE_SWEEP(NT_SWEEP(sweep_wide_nt))}}};

int himeno_sweep_available(int kind, int nt) { return sweeps[kind][0][nt] != NULL; }

double himeno_sweep(const Himeno *h, const float *p, float *pnew) {
  return sweeps[himeno_sweep_kind(h)][h->prefetch][h->nt](h, p, pnew);
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
