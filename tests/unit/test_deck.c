/* test_deck.c: input decks: sections, typed values, and errors with file and
 * line for unknown keys, bad values, duplicates and malformed lines. */
#include "fabricbench.h"
#include "testlib.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  long long steps;
  double dt;
  char name[FB_DECK_STR];
  int output;
} Deck;

static int read_text(const char *text, Deck *d, char *err) {
  char path[64];
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(path, sizeof path, "/tmp/fb_test_deck_%d_%d.ini", (int)getpid(), rank);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  memset(d, 0, sizeof *d);
  FbDeckKey keys[] = {
      {"run", "steps", FB_KEY_INT, &d->steps, 1, 1e6, 0},
      {"run", "dt", FB_KEY_DOUBLE, &d->dt, 1e-6, 1e3, 0},
      {"", "name", FB_KEY_STRING, d->name, 0, 0, 0},
      {"output", "enabled", FB_KEY_BOOL, &d->output, 0, 1, 0},
  };
  err[0] = '\0';
  int rc = fb_deck_read(path, keys, 4, err, 256);
  unlink(path);
  return rc;
}

static void bad(const char *text, const char *needle) {
  Deck d;
  char err[256];
  EXPECT(read_text(text, &d, err) == FB_EXIT_USAGE, "accepted: %s", text);
  EXPECT(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Deck d;
  char err[256];
  int rc = read_text("name = tiny ; comment\n[run]\nsteps = 40\ndt = 0.5\n\n[output]\n"
                     "enabled = yes\n",
                     &d, err);
  EXPECT(rc == 0, "good deck refused: %s", err);
  EXPECT(d.steps == 40 && d.dt == 0.5 && !strcmp(d.name, "tiny") && d.output == 1,
         "values: %lld %g '%s' %d", d.steps, d.dt, d.name, d.output);
  bad("[run]\nsteps = 40\nstep = 3\n", ":3: unknown key 'step' in section [run]");
  bad("[run]\nsteps = forty\n", ":2: key 'steps': 'forty' is not an integer");
  bad("[run]\ndt = 1e9\n", ":2: key 'dt': 1e9 is out of range [1e-06, 1000]");
  bad("[run]\nsteps = 1\nsteps = 2\n", ":3: key 'steps' given twice");
  bad("[output]\nenabled = maybe\n", "not true or false");
  bad("[run]\nthis line has no equals sign\n", ":2: not a 'key = value' line");
  bad("steps = 4\n", ":1: unknown key 'steps'");
  bad("[run\nsteps = 1\n", ":1:");
  Deck d2;
  EXPECT(fb_deck_read("/nonexistent/deck.ini", NULL, 0, err, 256) == FB_EXIT_USAGE,
         "missing file accepted");
  EXPECT(strstr(err, "/nonexistent/deck.ini: cannot read") != NULL, "message %s", err);
  (void)d2;
  return tl_finish("deck");
}
