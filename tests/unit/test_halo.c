/* test_halo.c: after an exchange every ghost cell (faces, edges, corners)
 * holds its owner's value, for widths 1-3, float and double, periodic and
 * walled dimensions, non-divisible sizes, and several fields at once; a
 * dimension with no neighbour allocated without a halo; pads too thin
 * refused; rows padded to a multiple keep their tail untouched and send
 * the bytes unpadded rows send. */
#include "fabricbench.h"
#include "testlib.h"

#include <stdlib.h>

#define SENTINEL -12345.0

/* A value that names its global point (exact in float for these sizes). */
static double value_at(int f, int gi, int gj, int gk) {
  return (double)(f * 1000000 + gi * 10000 + gj * 100 + gk);
}

/* returns the bytes the exchange counted (this rank's) */
static long long check_exchange_on(const int n[3], const int dims[3], const int periods[3],
                                   int width, const int pad[3], int mask, int row_multiple,
                                   MPI_Datatype type, int nfields) {
  FbDecomp d;
  char err[256];
  if (fb_decomp_init(&d, MPI_COMM_WORLD, n, dims, periods, width, err, sizeof err)) {
    EXPECT(0, "decomp: %s", err);
    return -1;
  }
  FbHalo h;
  if (fb_halo_init_ex(&h, &d, width, pad, mask, row_multiple, type, nfields) != 0) {
    EXPECT(0, "halo init, pads %d %d %d", pad[0], pad[1], pad[2]);
    fb_decomp_free(&d);
    return -1;
  }
  for (int a = 0; a < 2; a++)
    EXPECT(h.ext[a] == d.n[a] + 2 * pad[a], "extent %d along %d: n %d + 2 x pad %d", h.ext[a], a,
           d.n[a], pad[a]);
  const int rows = d.n[2] + 2 * pad[2]; /* the row without its tail */
  EXPECT(h.ext[2] % row_multiple == 0 && h.ext[2] >= rows && h.ext[2] < rows + row_multiple,
         "rows of %d elements padded to %d, a multiple of %d", rows, h.ext[2], row_multiple);
  int is_float = type == MPI_FLOAT;
  size_t count = (size_t)h.ext[0] * h.ext[1] * h.ext[2];
  void *fields[4];
  for (int f = 0; f < nfields; f++) {
    fields[f] = malloc(count * (is_float ? sizeof(float) : sizeof(double)));
    for (int i = 0; i < h.ext[0]; i++)
      for (int j = 0; j < h.ext[1]; j++)
        for (int k = 0; k < h.ext[2]; k++) {
          int inside = i >= pad[0] && i < pad[0] + d.n[0] && j >= pad[1] && j < pad[1] + d.n[1] &&
                       k >= pad[2] && k < pad[2] + d.n[2];
          double v =
              inside ? value_at(f, d.lo[0] + i - pad[0], d.lo[1] + j - pad[1], d.lo[2] + k - pad[2])
                     : SENTINEL;
          size_t x = fb_idx3(h.ext, i, j, k);
          if (is_float)
            ((float *)fields[f])[x] = (float)v;
          else
            ((double *)fields[f])[x] = v;
        }
  }
  FbTimers t;
  static const char *const names[1] = {"halo"};
  fb_timers_init(&t, names, 1);
  fb_halo_exchange(&h, fields, &t, 0);
  int wrong = 0;
  for (int f = 0; f < nfields; f++)
    for (int i = 0; i < h.ext[0]; i++)
      for (int j = 0; j < h.ext[1]; j++)
        for (int k = 0; k < h.ext[2]; k++) {
          int l[3] = {i, j, k};
          int g[3] = {d.lo[0] + i - pad[0], d.lo[1] + j - pad[1], d.lo[2] + k - pad[2]};
          int outside = 0;
          for (int a = 0; a < 3; a++) {
            if (l[a] < pad[a] - width || l[a] >= pad[a] + d.n[a] + width)
              outside = 1; /* beyond the width */
            if ((mask >> a & 1) && (l[a] < pad[a] || l[a] >= pad[a] + d.n[a]))
              outside = 1; /* not exchanged */
            if (g[a] >= 0 && g[a] < n[a]) continue;
            if (periods[a])
              g[a] = (g[a] + n[a]) % n[a];
            else
              outside = 1;
          }
          double expect = outside ? SENTINEL : value_at(f, g[0], g[1], g[2]);
          size_t x = fb_idx3(h.ext, i, j, k);
          double got = is_float ? ((float *)fields[f])[x] : ((double *)fields[f])[x];
          if (got != expect) wrong++;
        }
  EXPECT(wrong == 0,
         "n %dx%dx%d width %d pads %d %d %d %s fields %d periods %d%d%d: %d wrong cells", n[0],
         n[1], n[2], width, pad[0], pad[1], pad[2], is_float ? "float" : "double", nfields,
         periods[0], periods[1], periods[2], wrong);
  EXPECT(t.calls[0] == 1, "halo phase timed once");
  for (int f = 0; f < nfields; f++) free(fields[f]);
  fb_halo_free(&h);
  fb_decomp_free(&d);
  return t.bytes[0];
}

static void check_exchange(const int n[3], const int periods[3], int width, int pad, int mask,
                           MPI_Datatype type, int nfields) {
  const int dims[3] = {0, 0, 0}, pads[3] = {pad, pad, pad};
  check_exchange_on(n, dims, periods, width, pads, mask, 1, type, nfields);
}

/* Rows padded to a multiple (himeno's 64-byte rows): the same cells after
 * the exchange, the tail still the sentinel, and the bytes sent those of
 * unpadded rows, along every dimension of a grid of any shape. */
static void check_row_tails(const int n[3], const int dims[3], int width) {
  const int periods[3] = {1, 0, 1}, pads[3] = {width, width, width};
  for (int m = 2; m <= 16; m *= 2) {
    long long plain = check_exchange_on(n, dims, periods, width, pads, 0, 1, MPI_FLOAT, 2);
    long long padded = check_exchange_on(n, dims, periods, width, pads, 0, m, MPI_FLOAT, 2);
    EXPECT(padded == plain, "rows padded to a multiple of %d: %lld bytes sent, %lld unpadded", m,
           padded, plain);
  }
}

/* A pad thinner than the width is refused along a dimension with a
 * neighbour (here the periodic y, one rank or several), accepted where
 * there is none. */
static void check_thin_pads(int width, int size) {
  const int n[3] = {3 * size + 1, 3 * size, 9}, dims[3] = {0, 0, 1}, periods[3] = {1, 1, 0};
  FbDecomp d;
  char err[256];
  if (fb_decomp_init(&d, MPI_COMM_WORLD, n, dims, periods, width, err, sizeof err)) {
    EXPECT(0, "decomp: %s", err);
    return;
  }
  const int thin_y[3] = {width, width - 1, width}, thin_z[3] = {width, width, 0};
  FbHalo h;
  EXPECT(fb_halo_init_ex(&h, &d, width, thin_y, 0, 1, MPI_DOUBLE, 1) == FB_EXIT_USAGE,
         "pad %d under width %d along a periodic dimension refused", width - 1, width);
  fb_halo_free(&h);
  EXPECT(fb_halo_init_ex(&h, &d, width, thin_z, 0, 1, MPI_DOUBLE, 1) == 0,
         "no pad along a dimension of one rank and no period accepted");
  fb_halo_free(&h);
  const int pads[3] = {width, width, width};
  EXPECT(fb_halo_init_ex(&h, &d, width, pads, 0, 0, MPI_DOUBLE, 1) == FB_EXIT_USAGE,
         "rows a multiple of 0 elements refused");
  fb_halo_free(&h);
  fb_decomp_free(&d);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int walls[3] = {0, 0, 0}, xy[3] = {1, 1, 0}, all[3] = {1, 1, 1};
  /* non-divisible sizes, each with room for width 3 at any rank count */
  const int shapes[][3] = {{3 * size + 2, 7, 9}, {13, 10, 3 * size + 1}, {7, 3 * size, 11}};
  for (int w = 1; w <= 3; w++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      check_exchange(shapes[s], walls, w, w, 0, MPI_FLOAT, 1);
      check_exchange(shapes[s], xy, w, w, 0, MPI_DOUBLE, 1);
      check_exchange(shapes[s], all, w, w, 0, MPI_DOUBLE, 3);
      check_exchange(shapes[s], xy, w, 3, 0, MPI_DOUBLE, 2); /* width-1 exchange of halo-3 fields */
      check_exchange(shapes[s], xy, w, 3, 4, MPI_DOUBLE, 2); /* columns: z layers not exchanged */
    }
  /* an x-z model on one row: y of one rank, no period, no halo; faces
   * carry the owned row and levels (halo_weather's 2-D cases) */
  const int row[3] = {3 * size + 2, 1, 9}, row_dims[3] = {size, 1, 1}, x_only[3] = {1, 0, 0};
  for (int w = 1; w <= 3; w++) {
    const int pads[3] = {3, 0, 3};
    check_exchange_on(row, row_dims, x_only, w, pads, 1 << 1 | 1 << 2, 1, MPI_DOUBLE, 2);
    check_exchange_on(row, row_dims, x_only, w, pads, 0, 1, MPI_FLOAT, 1);
    check_thin_pads(w, size);
  }
  /* padded rows with the ranks along each dimension in turn (the shape
   * whose extent along it grows with the ranks) */
  const int along[3] = {0, 2, 1};
  for (int a = 0; a < 3; a++) {
    int dims[3] = {1, 1, 1};
    dims[a] = size;
    for (int w = 1; w <= 3; w++) check_row_tails(shapes[along[a]], dims, w);
  }
  return tl_finish("halo");
}
