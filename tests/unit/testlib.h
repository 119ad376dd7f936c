/* testlib.h: a few assertion helpers for the MPI unit tests of common/. Each
 * failed expectation prints "not ok" with file and line; main returns the
 * count of failures agreed over all ranks (0 = pass). */
#ifndef FB_TESTLIB_H
#define FB_TESTLIB_H

#include <mpi.h>
#include <stdio.h>

static int tl_failures = 0;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      int tl_rank_;                                                                                \
      MPI_Comm_rank(MPI_COMM_WORLD, &tl_rank_);                                                    \
      fprintf(stderr, "not ok: rank %d %s:%d: %s: ", tl_rank_, __FILE__, __LINE__, #cond);         \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      tl_failures++;                                                                               \
    }                                                                                              \
  } while (0)

/* Agreed result over all ranks: 0 when every rank passed. */
static inline int tl_finish(const char *name) {
  int total = 0, rank;
  MPI_Allreduce(&tl_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%s: %s (%d failures)\n", name, total ? "FAIL" : "ok", total);
  MPI_Finalize();
  return total ? 1 : 0;
}

#endif
