/* test_json.c: the record's JSON builder: a results object an app printed
 * with nan or inf in it (a run that blew up) still parses, those values as
 * null, and nothing else changes (strings, keys, words that start alike). */
#include "internal.h"
#include "testlib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int raw_gives(const char *raw, const char *want) {
  FbJson j;
  fb_json_init(&j);
  fb_json_raw(&j, NULL, raw);
  int same = j.buf && strcmp(j.buf, want) == 0;
  if (!same) fprintf(stderr, "raw %s\n gave %s\n want %s\n", raw, j.buf ? j.buf : "(null)", want);
  fb_json_free(&j);
  return same;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char printed[256];
  snprintf(printed, sizeof printed, "{\"a\":%.17g,\"b\":%.17g,\"c\":[%g, %g],\"d\":%g}", NAN,
           -INFINITY, 1.5, INFINITY, -NAN);
  EXPECT(raw_gives(printed, "{\"a\":null,\"b\":null,\"c\":[1.5, null],\"d\":null}"),
         "printf'd nan and inf become null: %s", printed);
  EXPECT(raw_gives("{\"nan\":\"inf -nan\",\"x\":1e300,\"info\":\"nan\",\"s\":\"a\\\"nan\"}",
                   "{\"nan\":\"inf -nan\",\"x\":1e300,\"info\":\"nan\",\"s\":\"a\\\"nan\"}"),
         "strings and keys left alone, escaped quotes included");
  EXPECT(raw_gives("{\"t\":true,\"n\":null,\"i\":-12,\"e\":[]}",
                   "{\"t\":true,\"n\":null,\"i\":-12,\"e\":[]}"),
         "plain JSON left alone");
  EXPECT(raw_gives("{\"v\":Infinity,\"w\":-inf}", "{\"v\":null,\"w\":null}"), "Infinity too");
  FbJson j;
  fb_json_init(&j);
  fb_json_begin_object(&j, NULL);
  fb_json_num(&j, "x", NAN);
  fb_json_num(&j, "y", 0.1);
  fb_json_end_object(&j);
  EXPECT(j.buf && strcmp(j.buf, "{\"x\":null,\"y\":0.10000000000000001}") == 0, "numbers: %s",
         j.buf ? j.buf : "(null)");
  fb_json_free(&j);
  return tl_finish("json");
}
