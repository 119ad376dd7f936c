/* fuzz_file.h: the fuzzers' input as a temporary file, for parsers that read files. */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdio.h>
#include <unistd.h>

/* Writes data to a per-process temporary file; returns 0, or -1 on failure. */
static inline int fuzz_write_file(const char *stem, const unsigned char *data, size_t size,
                                  char *path, size_t path_len) {
  snprintf(path, path_len, "/tmp/fb_fuzz_%s_%d", stem, (int)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fwrite(data, 1, size, f);
  fclose(f);
  return 0;
}

#endif
