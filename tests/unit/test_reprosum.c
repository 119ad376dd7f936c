/* test_reprosum.c: the reproducible sum gives the same bits for any order
 * and any number of ranks, and the exact answer where rounding would not;
 * a team's sums (fb_team_total) add the threads' rows in thread order. */
#include "fabricbench.h"
#include "testlib.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 20000

/* Four threads whose partial sums give a different double in almost any
 * other order: in thread order 0 + 1e16 + 1 - 1e16 + 3 is 3 (1e16 + 1
 * rounds to 1e16), while e.g. 1e16 - 1e16 + 1 + 3 is 4. The second column
 * the same scaled by -2. Rounds: an OpenMP reduction clause gave another
 * order now and then on an oversubscribed node. */
#define TEAM_ROUNDS 200
static void team_sums(void) {
  const double mine_of[4] = {1e16, 1.0, -1e16, 3.0};
  omp_set_num_threads(4);
  const int rows = fb_team_rows();
  EXPECT(rows == 4, "fb_team_rows() %d with 4 threads set", rows);
  int wrong = 0;
  for (int round = 0; round < TEAM_ROUNDS; round++) {
    double part[rows * 2], total[2];
    memset(part, 0, sizeof part);
#pragma omp parallel num_threads(4)
    {
      const double v = mine_of[omp_get_thread_num()], mine[2] = {v, -2.0 * v};
      fb_team_put(part, 2, mine);
    }
    fb_team_total(part, 2, total);
    wrong += total[0] != 3.0 || total[1] != -6.0;
  }
  EXPECT(wrong == 0, "%d of %d rounds not in thread order", wrong, TEAM_ROUNDS);
  /* a team smaller than the rows: the rows it leaves are zero */
  double part[rows], total;
  memset(part, 0, sizeof part);
#pragma omp parallel num_threads(2)
  {
    const double v = omp_get_thread_num() ? 0.25 : 0.5;
    fb_team_put(part, 1, &v);
  }
  fb_team_total(part, 1, &total);
  EXPECT(total == 0.75, "a team of 2 in 4 rows: %.17g", total);
}

/* Deterministic values of both signs across a wide range of exponents. */
static double value(int i) {
  uint64_t x = (uint64_t)i * 6364136223846793005ULL + 1442695040888963407ULL;
  x ^= x >> 29;
  double m = (double)(x % 1000003) / 1000003.0 + 0.1;
  int e = (int)((x >> 20) % 120) - 60;
  return ((x >> 40) & 1 ? -1.0 : 1.0) * ldexp(m, e);
}

static uint64_t bits(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* One rank, natural order: the reference every other way must match. */
  FbReproSum ref;
  fb_rsum_init(&ref);
  for (int i = 0; i < N; i++) fb_rsum_add(&ref, value(i));
  double reference = fb_rsum_value(&ref);

  /* One rank, reversed and strided orders. */
  FbReproSum rev;
  fb_rsum_init(&rev);
  for (int i = N - 1; i >= 0; i--) fb_rsum_add(&rev, value(i));
  EXPECT(bits(fb_rsum_value(&rev)) == bits(reference), "reversed order differs");
  FbReproSum strided;
  fb_rsum_init(&strided);
  for (int s = 0; s < 7; s++)
    for (int i = s; i < N; i += 7) fb_rsum_add(&strided, value(i));
  EXPECT(bits(fb_rsum_value(&strided)) == bits(reference), "strided order differs");

  /* Distributed: cyclic and blocked ownership, each rank in its own order. */
  FbReproSum cyc;
  fb_rsum_init(&cyc);
  for (int i = N - 1 - rank; i >= 0; i -= size) fb_rsum_add(&cyc, value(i));
  double cyclic = fb_rsum_allreduce(&cyc, MPI_COMM_WORLD);
  EXPECT(bits(cyclic) == bits(reference), "cyclic over %d ranks: %.17g vs %.17g", size, cyclic,
         reference);
  FbReproSum blk;
  fb_rsum_init(&blk);
  int lo, count;
  fb_block_extent(N, size, rank, &lo, &count);
  for (int i = lo; i < lo + count; i++) fb_rsum_add(&blk, value(i));
  double blocked = fb_rsum_allreduce(&blk, MPI_COMM_WORLD);
  EXPECT(bits(blocked) == bits(reference), "blocked over %d ranks", size);

  /* Exactness where plain double addition loses everything. */
  FbReproSum ex;
  fb_rsum_init(&ex);
  fb_rsum_add(&ex, 1e100);
  fb_rsum_add(&ex, 1.0);
  fb_rsum_add(&ex, -1e100);
  fb_rsum_add(&ex, 0x1p-1074);
  fb_rsum_add(&ex, -0x1p-1074);
  fb_rsum_add(&ex, 0x1p-60);
  EXPECT(fb_rsum_value(&ex) == 1.0, "1e100 + 1 - 1e100 + 2^-60, rounded once: %.17g",
         fb_rsum_value(&ex));
  FbReproSum neg;
  fb_rsum_init(&neg);
  for (int i = 0; i < 1000; i++) fb_rsum_add(&neg, -0.1);
  EXPECT(fabs(fb_rsum_value(&neg) + 100.0) < 1e-12, "negative sums: %.17g", fb_rsum_value(&neg));
  FbReproSum bad;
  fb_rsum_init(&bad);
  fb_rsum_add(&bad, NAN);
  EXPECT(isnan(fb_rsum_allreduce(&bad, MPI_COMM_WORLD)), "NaN input gives NaN");

  if (rank == 0) printf("reprosum reference %a over %d ranks\n", reference, size);
  team_sums();
  return tl_finish("reprosum");
}
