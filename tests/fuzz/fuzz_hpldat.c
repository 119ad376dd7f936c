/* fuzz_hpldat.c: libFuzzer harness for hpl_lite's HPL.dat reader. */
#include "../../hpl_lite/hpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (memchr(data, 0, size)) return 0; /* the app refuses a file with a NUL byte first */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  static HplConfig cfg;
  char err[FB_MSG_LEN] = "", notes[FB_MSG_LEN];
  int rc = hpl_read_dat("fuzz.dat", text, size, &cfg, err, sizeof err, notes, sizeof notes);
  free(text);
  if (getenv("FUZZ_SHOW")) fprintf(stderr, "rc %d: %s\n", rc, err); /* reading an artifact */
  if (rc == 0) {
    if (cfg.n_cases < 1 || cfg.n_cases > (int)(sizeof cfg.cases / sizeof cfg.cases[0])) abort();
    for (int i = 0; i < cfg.n_cases; i++)
      if (cfg.cases[i].n < 1 || cfg.cases[i].nb < 1 || cfg.cases[i].nb > HPL_MAX_NB ||
          cfg.cases[i].p < 1 || cfg.cases[i].q < 1)
        abort();
  } else if (!err[0]) {
    abort();
  }
  return 0;
}
