/* tests/leak_probe.c: LeakSanitizer still sees a leak of ours in the
 * sanitizer pass. An MPI program that loses one block of LEAK_PROBE_BYTES
 * on each rank; run-tests expects each rank's report to hold that block
 * alone (its stack through this file), with the MPI library's own blocks
 * suppressed (tests/lsan.supp, tests/keep_loaded.c). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define LEAK_PROBE_BYTES 4321

static void *volatile lost;

static void lose_a_block(void) {
  lost = malloc(LEAK_PROBE_BYTES);
  if (lost) memset(lost, 1, LEAK_PROBE_BYTES);
  lost = NULL;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  lose_a_block();
  MPI_Finalize();
  return 0;
}
