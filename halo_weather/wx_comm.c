/* wx_comm.c: the MPI calls of halo_weather outside common/'s halo exchange
 * and reductions: gathering every rank's block of a field on rank 0 for the
 * serial NetCDF path (MPICH builds, rank 0 writes the file). */
#include "weather.h"

#include <stdlib.h>
#include <string.h>

/* Rank 0 receives every rank's 8 values of metadata (start and count of
 * its block) and its bytes, laid end to end (offset per rank). Collective;
 * returns 1 when rank 0 holds them all (0: out of memory). */
int wx_gather_blocks(FbContext *ctx, const unsigned long long meta[8], const void *data,
                     size_t bytes, WxGathered *g) {
  memset(g, 0, sizeof *g);
  int mine = (int)bytes, ok = 1, *counts = NULL;
  if (ctx->rank == 0) {
    g->meta = malloc((size_t)ctx->size * 8 * sizeof *g->meta);
    g->offset = malloc((size_t)ctx->size * sizeof *g->offset);
    counts = malloc((size_t)ctx->size * sizeof *counts);
    ok = g->meta && g->offset && counts;
  }
  MPI_Gather(meta, 8, MPI_UNSIGNED_LONG_LONG, g->meta, 8, MPI_UNSIGNED_LONG_LONG, 0, ctx->comm);
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, ctx->comm);
  size_t total = 0;
  if (ctx->rank == 0 && ok) {
    for (int r = 0; r < ctx->size; r++) {
      g->offset[r] = (int)total;
      total += (size_t)counts[r];
    }
    g->data = malloc(total + 1);
    ok = g->data != NULL;
  }
  MPI_Gatherv(data, mine, MPI_BYTE, g->data, counts, g->offset, MPI_BYTE, 0, ctx->comm);
  free(counts);
  return ok;
}

void wx_gathered_free(WxGathered *g) {
  free(g->meta);
  free(g->offset);
  free(g->data);
  memset(g, 0, sizeof *g);
}
