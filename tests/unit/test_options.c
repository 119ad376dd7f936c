/* test_options.c: the option parser accepts what it should and refuses the
 * rest with a message naming the option. */
#include "fabricbench.h"
#include "testlib.h"

#include <string.h>

typedef struct {
  long long n;
  double t;
  const char *s;
  int grid[3];
  int quiet;
} Values;

static int parse(Values *v, char *err, const char *a1, const char *a2, const char *a3) {
  FbContext ctx;
  memset(&ctx, 0, sizeof ctx);
  memset(v, 0, sizeof *v);
  v->n = 5;
  v->t = 60.0;
  v->s = "M";
  fb_option_int(&ctx, "iterations", 'n', &v->n, 1, 1000, "N", "iterations");
  fb_option_double(&ctx, "time", 't', &v->t, 1e-3, 1e6, "S", "seconds");
  fb_option_string(&ctx, "size", 's', &v->s, "SIZE", "size");
  fb_option_dims3(&ctx, "grid", 0, v->grid, "grid");
  fb_option_flag(&ctx, "quiet", 0, &v->quiet, "quiet");
  char *argv[5] = {"prog", (char *)a1, (char *)a2, (char *)a3, NULL};
  int argc = 1 + (a1 != NULL) + (a1 && a2) + (a1 && a2 && a3);
  err[0] = '\0';
  return fb_options_parse_argv(ctx.options, ctx.n_options, argc, argv, err, 256);
}

static void accepts(void) {
  Values v;
  char err[256];
  EXPECT(parse(&v, err, "-n", "7", NULL) == 0 && v.n == 7, "-n 7: %s", err);
  EXPECT(parse(&v, err, "-n7", NULL, NULL) == 0 && v.n == 7, "-n7: %s", err);
  EXPECT(parse(&v, err, "--iterations=9", NULL, NULL) == 0 && v.n == 9, "--iterations=9");
  EXPECT(parse(&v, err, "--time", "2.5", NULL) == 0 && v.t == 2.5, "--time 2.5");
  EXPECT(parse(&v, err, "-s", "XL", NULL) == 0 && !strcmp(v.s, "XL"), "-s XL");
  EXPECT(parse(&v, err, "--grid", "2x3x1", NULL) == 0 && v.grid[0] == 2 && v.grid[1] == 3 &&
             v.grid[2] == 1,
         "--grid 2x3x1: %s", err);
  EXPECT(parse(&v, err, "--quiet", NULL, NULL) == 0 && v.quiet == 1, "--quiet");
  EXPECT(parse(&v, err, NULL, NULL, NULL) == 0 && v.n == 5 && v.t == 60.0, "defaults kept");
}

static void refuses(const char *a1, const char *a2, const char *needle) {
  Values v;
  char err[256];
  int rc = parse(&v, err, a1, a2, NULL);
  EXPECT(rc == FB_EXIT_USAGE, "%s %s accepted", a1, a2 ? a2 : "");
  EXPECT(strstr(err, needle) != NULL, "%s %s: message '%s' lacks '%s'", a1, a2 ? a2 : "", err,
         needle);
  EXPECT(strchr(err, '\n') == NULL, "message is one line");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  accepts();
  refuses("-n", "0", "-n: 0 is out of range");
  refuses("-n", "abc", "-n: 'abc' is not an integer");
  refuses("-n", "12x", "not an integer");
  refuses("-n", "99999999999999999999", "out of range");
  refuses("-n", "", "-n: empty value");
  refuses("-n", NULL, "-n needs a value");
  refuses("-t", "-1", "-t: -1 is out of range");
  refuses("-t", "nan", "not a number");
  refuses("-t", "1e400", "not a number");
  refuses("--grid", "3x1", "not a grid");
  refuses("--grid", "0x1x1", "not a grid");
  refuses("--grid", "2x2x2x", "not a grid");
  refuses("--grid", "-1x2x2", "not a grid");
  refuses("--bogus", NULL, "unknown option '--bogus'");
  refuses("-q", NULL, "unknown option '-q'");
  refuses("--quiet=yes", NULL, "--quiet takes no value");
  refuses("stray", NULL, "unexpected argument 'stray'");
  return tl_finish("options");
}
