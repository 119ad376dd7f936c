/* fuzz_options.c: libFuzzer harness for the command-line parser. The input is
 * split into arguments at newlines; the table is himeno's and the shared one. */
#include "fabricbench.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size > 4096) return 0;
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  char *argv[64] = {"fuzz"};
  int argc = 1;
  for (char *tok = strtok(text, "\n"); tok && argc < 63; tok = strtok(NULL, "\n"))
    argv[argc++] = tok;
  FbContext ctx;
  memset(&ctx, 0, sizeof ctx);
  const char *size_name = "M", *json = NULL;
  long long n = 0, repeat = 1;
  double t = 60.0, timeout = 0.0;
  int grid[3] = {0, 0, 0}, quiet = 0;
  fb_option_string(&ctx, "size", 's', &size_name, "SIZE", "size");
  fb_option_int(&ctx, "iterations", 'n', &n, 1, 1000000000LL, "N", "iterations");
  fb_option_double(&ctx, "time", 't', &t, 1e-3, 1e6, "S", "time");
  fb_option_dims3(&ctx, "grid", 0, grid, "grid");
  fb_option_int(&ctx, "repeat", 0, &repeat, 1, 1000, "N", "repeat");
  fb_option_string(&ctx, "json", 0, &json, "FILE", "json");
  fb_option_double(&ctx, "timeout", 0, &timeout, 0, 1e9, "S", "timeout");
  fb_option_flag(&ctx, "quiet", 0, &quiet, "quiet");
  char err[FB_MSG_LEN];
  int rc = fb_options_parse_argv(ctx.options, ctx.n_options, argc, argv, err, sizeof err);
  if (rc != 0 && (rc != FB_EXIT_USAGE || !err[0] || strchr(err, '\n'))) abort();
  if (rc == 0 && (n < 0 || t < 1e-3 || grid[0] < 0 || repeat < 1)) abort();
  free(text);
  return 0;
}
