/* buffers.c: message contents that change with size and iteration, so that a
 * message that was not delivered, or was delivered wrong, is caught. Two
 * marker bytes (first and last) are checked on every message; --validate
 * refills and checks every byte. */
#include "pingpong.h"

void pp_fill(unsigned char *buf, long long size, long long iteration) {
  for (long long i = 0; i < size; i++) buf[i] = pp_pattern(i, size, iteration);
}

long long pp_check_all(const unsigned char *buf, long long size, long long iteration) {
  long long bad = 0;
  for (long long i = 0; i < size; i++) bad += buf[i] != pp_pattern(i, size, iteration);
  return bad;
}
