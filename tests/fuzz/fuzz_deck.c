/* fuzz_deck.c: libFuzzer harness for the input-deck reader (inih + checks). */
#include "fabricbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  char path[64];
  if (fuzz_write_file("deck", data, size, path, sizeof path)) return 0;
  long long steps = 0;
  double dt = 0;
  char name[FB_DECK_STR] = "";
  int on = 0;
  FbDeckKey keys[] = {
      {"run", "steps", FB_KEY_INT, &steps, 1, 1e6, 0},
      {"run", "dt", FB_KEY_DOUBLE, &dt, 1e-6, 1e3, 0},
      {"", "name", FB_KEY_STRING, name, 0, 0, 0},
      {"output", "enabled", FB_KEY_BOOL, &on, 0, 1, 0},
  };
  char err[FB_MSG_LEN] = "";
  int rc = fb_deck_read(path, keys, 4, err, sizeof err);
  unlink(path);
  if (rc == 0 && (steps < 0 || steps > 1000000 || strlen(name) >= FB_DECK_STR)) abort();
  if (rc != 0 && !err[0]) abort();
  return 0;
}
