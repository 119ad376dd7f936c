/* test_decomp.c: block extents cover the domain exactly, grids are chosen or
 * refused with a reason, neighbours are consistent; run at several ranks. */
#include "fabricbench.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static void test_block_extent(void) {
  for (int n = 1; n <= 40; n++)
    for (int parts = 1; parts <= n; parts++) {
      int next = 0, smallest = n, largest = 0;
      for (int p = 0; p < parts; p++) {
        int lo, count;
        fb_block_extent(n, parts, p, &lo, &count);
        EXPECT(lo == next, "n %d parts %d part %d lo %d expected %d", n, parts, p, lo, next);
        next = lo + count;
        if (count < smallest) smallest = count;
        if (count > largest) largest = count;
        if (p < n % parts) EXPECT(count == n / parts + 1, "first n %% p parts get one more");
      }
      EXPECT(next == n, "n %d parts %d covers %d", n, parts, next);
      EXPECT(largest - smallest <= 1, "n %d parts %d imbalance %d", n, parts, largest - smallest);
    }
}

/* Every global point is owned by exactly one rank. */
static void test_cover(const int nglobal[3], const int dims[3], const int periods[3]) {
  FbDecomp d;
  char err[256];
  int rc = fb_decomp_init(&d, MPI_COMM_WORLD, nglobal, dims, periods, 1, err, sizeof err);
  EXPECT(rc == 0, "decomp %dx%dx%d: %s", nglobal[0], nglobal[1], nglobal[2], err);
  if (rc) return;
  long long mine = (long long)d.n[0] * d.n[1] * d.n[2], total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT(total == (long long)nglobal[0] * nglobal[1] * nglobal[2], "points owned %lld", total);
  /* Blocks must not overlap: mark each point's owner count. */
  size_t n = (size_t)nglobal[0] * nglobal[1] * nglobal[2];
  int *owned = calloc(n, sizeof *owned), *sum = calloc(n, sizeof *sum);
  for (int i = 0; i < d.n[0]; i++)
    for (int j = 0; j < d.n[1]; j++)
      for (int k = 0; k < d.n[2]; k++)
        owned[fb_idx3(nglobal, d.lo[0] + i, d.lo[1] + j, d.lo[2] + k)]++;
  MPI_Allreduce(owned, sum, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int bad = 0;
  for (size_t x = 0; x < n; x++) bad += sum[x] != 1;
  EXPECT(bad == 0, "%d points not owned exactly once", bad);
  /* My high neighbour's low neighbour is me. */
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int a = 0; a < 3; a++) {
    int back = -2;
    MPI_Sendrecv(&rank, 1, MPI_INT, d.nbr_hi[a], 1, &back, 1, MPI_INT, d.nbr_lo[a], 1, d.cart,
                 MPI_STATUS_IGNORE);
    if (d.nbr_lo[a] != MPI_PROC_NULL) EXPECT(back == d.nbr_lo[a], "axis %d neighbours", a);
  }
  free(owned);
  free(sum);
  fb_decomp_free(&d);
}

static void test_refusals(int size) {
  FbDecomp d;
  char err[256];
  const int none[3] = {0, 0, 0};
  int wrong[3] = {size + 1, 1, 1};
  const int n[3] = {10, 10, 10};
  EXPECT(fb_decomp_init(&d, MPI_COMM_WORLD, n, wrong, none, 1, err, sizeof err) == 2,
         "grid of the wrong size accepted");
  EXPECT(strstr(err, "ranks but the job has") != NULL, "message: %s", err);
  if (size > 1) {
    const int thin[3] = {1, 1, 10};
    int along_i[3] = {size, 1, 1};
    EXPECT(fb_decomp_init(&d, MPI_COMM_WORLD, thin, along_i, none, 1, err, sizeof err) == 2,
           "grid leaving a rank without points accepted");
    EXPECT(strstr(err, "leaves a rank with 0 points along i") != NULL, "message: %s", err);
    const int small[3] = {4, 4, 4};
    EXPECT(fb_decomp_init(&d, MPI_COMM_WORLD, small, along_i, none, 3, err, sizeof err) ==
               (size > 1 ? 2 : 0),
           "halo width larger than a block accepted");
  }
}

/* A dimension of one rank and no period has no neighbour, so no halo: it
 * may be thinner than min_local (halo_weather's 2-D cases on one row);
 * with a period (its own neighbour) it may not. */
static void test_no_neighbour(int size) {
  FbDecomp d;
  char err[256];
  const int row[3] = {3 * size, 1, 4}, along_i[3] = {size, 1, 1};
  const int open_y[3] = {1, 0, 0}, periodic_y[3] = {1, 1, 0};
  EXPECT(fb_decomp_init(&d, MPI_COMM_WORLD, row, along_i, open_y, 3, err, sizeof err) == 0,
         "one row without a period refused: %s", err);
  EXPECT(d.n[1] == 1 && d.nbr_lo[1] == MPI_PROC_NULL && d.nbr_hi[1] == MPI_PROC_NULL,
         "one row: %d points, neighbours %d %d", d.n[1], d.nbr_lo[1], d.nbr_hi[1]);
  fb_decomp_free(&d);
  EXPECT(fb_decomp_init(&d, MPI_COMM_WORLD, row, along_i, periodic_y, 3, err, sizeof err) == 2,
         "one periodic row accepted under a halo of 3");
  EXPECT(strstr(err, "along j") != NULL, "message: %s", err);
  /* the grid chosen for the caller follows the same rule: the only grid
   * that gives every rank 3 points along i and k, size x 1 x 1 */
  int chosen[3] = {0, 0, 0};
  EXPECT(fb_decomp_init(&d, MPI_COMM_WORLD, row, chosen, open_y, 3, err, sizeof err) == 0,
         "no grid chosen for one row without a period: %s", err);
  EXPECT(d.dims[0] == size && d.dims[1] == 1 && d.dims[2] == 1, "one row: grid %dx%dx%d chosen",
         d.dims[0], d.dims[1], d.dims[2]);
  fb_decomp_free(&d);
  int chosen_periodic[3] = {0, 0, 0};
  EXPECT(fb_decomp_init(&d, MPI_COMM_WORLD, row, chosen_periodic, periodic_y, 3, err, sizeof err) ==
             2,
         "a grid chosen for one periodic row under a halo of 3");
  EXPECT(strstr(err, "no process grid") != NULL, "message: %s", err);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_block_extent();
  const int periods0[3] = {0, 0, 0}, periods1[3] = {1, 1, 0};
  const int automatic[3] = {0, 0, 0}, cols[3] = {0, 0, 1};
  const int shapes[][3] = {{7, 5, 3}, {13, 11, 17}, {30, 30, 62}, {size, 3, 5}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    test_cover(shapes[s], automatic, periods0);
    test_cover(shapes[s], cols, periods1);
  }
  int line[3] = {1, size, 1};
  const int shape[3] = {4, 3 * size + 1, 2};
  test_cover(shape, line, periods1);
  test_refusals(size);
  test_no_neighbour(size);
  return tl_finish("decomp");
}
