/* json.c: a small JSON text builder for the run record (escaping, commas,
 * round-trip number formatting). */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void fb_json_init(FbJson *j) { memset(j, 0, sizeof *j); }
void fb_json_free(FbJson *j) {
  free(j->buf);
  memset(j, 0, sizeof *j);
}

static void put(FbJson *j, const char *s, size_t n) {
  if (j->oom) return;
  if (j->len + n + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 1024;
    while (cap < j->len + n + 1) cap *= 2;
    char *b = realloc(j->buf, cap);
    if (!b) {
      j->oom = 1;
      return;
    }
    j->buf = b;
    j->cap = cap;
  }
  memcpy(j->buf + j->len, s, n);
  j->len += n;
  j->buf[j->len] = '\0';
}
static void puts_(FbJson *j, const char *s) { put(j, s, strlen(s)); }

void fb_json_quote(char *buf, size_t len, const char *s) {
  size_t o = 0;
  if (len < 3) {
    if (len) buf[0] = '\0';
    return;
  }
  buf[o++] = '"';
  for (const unsigned char *p = (const unsigned char *)s; *p && o + 8 <= len; p++) {
    if (*p == '"' || *p == '\\') {
      buf[o++] = '\\';
      buf[o++] = (char)*p;
    } else if (*p == '\n') {
      buf[o++] = '\\';
      buf[o++] = 'n';
    } else if (*p == '\t') {
      buf[o++] = '\\';
      buf[o++] = 't';
    } else if (*p < 0x20)
      o += (size_t)snprintf(buf + o, len - o, "\\u%04x", *p);
    else
      buf[o++] = (char)*p;
  }
  buf[o++] = '"';
  buf[o] = '\0';
}

static void key(FbJson *j, const char *k) {
  if (j->need_comma[j->depth]) puts_(j, ",");
  j->need_comma[j->depth] = 1;
  if (k) {
    char q[256];
    fb_json_quote(q, sizeof q, k);
    puts_(j, q);
    puts_(j, ":");
  }
}

void fb_json_begin_object(FbJson *j, const char *k) {
  key(j, k);
  puts_(j, "{");
  j->need_comma[++j->depth] = 0;
}
void fb_json_end_object(FbJson *j) {
  j->depth--;
  puts_(j, "}");
}
void fb_json_begin_array(FbJson *j, const char *k) {
  key(j, k);
  puts_(j, "[");
  j->need_comma[++j->depth] = 0;
}
void fb_json_end_array(FbJson *j) {
  j->depth--;
  puts_(j, "]");
}

void fb_json_str(FbJson *j, const char *k, const char *v) {
  key(j, k);
  size_t n = strlen(v) * 6 + 10; /* worst case: every byte a six-byte escape */
  char small[512];
  char *q = n <= sizeof small ? small : malloc(n);
  if (!q) {
    j->oom = 1;
    return;
  }
  fb_json_quote(q, n, v);
  puts_(j, q);
  if (q != small) free(q);
}

void fb_json_num(FbJson *j, const char *k, double v) {
  key(j, k);
  char b[40];
  if (!isfinite(v))
    snprintf(b, sizeof b, "null"); /* JSON has no NaN/Inf */
  else
    snprintf(b, sizeof b, "%.17g", v);
  puts_(j, b);
}

void fb_json_int(FbJson *j, const char *k, long long v) {
  key(j, k);
  char b[32];
  snprintf(b, sizeof b, "%lld", v);
  puts_(j, b);
}

void fb_json_bool(FbJson *j, const char *k, int v) {
  key(j, k);
  puts_(j, v ? "true" : "false");
}
/* Length of a printf'd non-finite number at s ("nan", "-nan", "inf",
 * "-inf", any case), or 0. */
static size_t nonfinite_token(const char *s) {
  size_t n = *s == '-' ? 1 : 0;
  if (strncasecmp(s + n, "nan", 3) && strncasecmp(s + n, "inf", 3)) return 0;
  n += 3;
  if (!strncasecmp(s + n - 3, "inf", 3) && !strncasecmp(s + n, "inity", 5)) n += 5;
  return (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ? 0 : n;
}

/* raw: JSON text an app built with printf. A value printf wrote as nan or
 * inf (a run that blew up) becomes null, as fb_json_num writes it: the
 * record of a failed run must still parse. */
void fb_json_raw(FbJson *j, const char *k, const char *raw) {
  key(j, k);
  int in_string = 0;
  char prev = 0; /* the last character outside strings and blanks */
  const char *from = raw;
  for (const char *p = raw; *p; p++) {
    if (in_string) {
      if (*p == '\\' && p[1])
        p++;
      else if (*p == '"')
        in_string = 0;
      continue;
    }
    if (*p == '"') {
      in_string = 1;
      continue;
    }
    size_t n = (prev == ':' || prev == ',' || prev == '[') ? nonfinite_token(p) : 0;
    if (n) {
      put(j, from, (size_t)(p - from));
      puts_(j, "null");
      p += n - 1;
      from = p + 1;
      prev = 'l';
    } else if (*p != ' ' && *p != '\n' && *p != '\t') {
      prev = *p;
    }
  }
  puts_(j, from);
}
