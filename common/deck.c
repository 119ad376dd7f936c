/* deck.c: strict key = value input decks with [sections], read with inih;
 * unknown keys, duplicates and bad values are errors naming file and line. */
#include "fabricbench.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  FbDeckKey *keys;
  int n_keys;
  int line; /* line being read, counted by the reader below */
  char *err;
  size_t err_len;
  int failed;
} DeckState;

static int deck_error(DeckState *s, const char *fmt, const char *a, const char *b) {
  if (!s->failed) {
    char msg[FB_MSG_LEN];
    snprintf(msg, sizeof msg, fmt, a, b);
    snprintf(s->err, s->err_len, "%s", msg);
  }
  s->failed = 1;
  return 0;
}

/* "key 'NAME': VALUE is out of range [MIN, MAX]" */
static int range_error(DeckState *s, const FbDeckKey *k, const char *name, const char *value) {
  char what[FB_MSG_LEN / 2];
  snprintf(what, sizeof what, "%s is out of range [%.15g, %.15g]", value, k->min, k->max);
  return deck_error(s, "key '%s': %s", name, what);
}

static int set_key(DeckState *s, FbDeckKey *k, const char *name, const char *value) {
  char *end = NULL;
  if (*value == '\0') return deck_error(s, "key '%s': empty value%s", name, "");
  switch (k->type) {
  case FB_KEY_INT: {
    errno = 0;
    long long x = strtoll(value, &end, 10);
    if (end == value || *end != '\0' || errno == ERANGE)
      return deck_error(s, "key '%s': '%s' is not an integer", name, value);
    if ((double)x < k->min || (double)x > k->max) return range_error(s, k, name, value);
    *(long long *)k->dest = x;
    break;
  }
  case FB_KEY_DOUBLE: {
    errno = 0;
    double x = strtod(value, &end);
    if (end == value || *end != '\0' || errno == ERANGE || !isfinite(x))
      return deck_error(s, "key '%s': '%s' is not a number", name, value);
    if (x < k->min || x > k->max) return range_error(s, k, name, value);
    *(double *)k->dest = x;
    break;
  }
  case FB_KEY_BOOL:
    if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcmp(value, "1"))
      *(int *)k->dest = 1;
    else if (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcmp(value, "0"))
      *(int *)k->dest = 0;
    else
      return deck_error(s, "key '%s': '%s' is not true or false", name, value);
    break;
  case FB_KEY_STRING:
    if (strlen(value) >= FB_DECK_STR) return deck_error(s, "key '%s': value too long%s", name, "");
    strcpy((char *)k->dest, value);
    break;
  case FB_KEY_LIST: {
    char *list = k->dest;
    size_t used = strlen(list);
    if (used + strlen(value) + 2 >= FB_DECK_LIST)
      return deck_error(s, "key '%s': too many values%s", name, "");
    if (used) list[used++] = '\n';
    strcpy(list + used, value);
    break;
  }
  case FB_KEY_ANY: {
    FbDeckAny *any = k->dest;
    for (int i = 0; i < any->n; i++)
      if (!strcmp(any->name[i], name)) return deck_error(s, "key '%s' given twice%s", name, "");
    if (any->n >= FB_DECK_ANY_MAX)
      return deck_error(s, "key '%s': too many keys in this section%s", name, "");
    if (strlen(name) >= sizeof any->name[0] || strlen(value) >= FB_DECK_STR)
      return deck_error(s, "key '%s': name or value too long%s", name, "");
    strcpy(any->name[any->n], name);
    strcpy(any->value[any->n], value);
    any->n++;
    break;
  }
  }
  return 1;
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
  DeckState *s = user;
  if (s->failed) return 0;
  if (!name) return 1; /* a section header alone */
  for (int i = 0; i < s->n_keys; i++) {
    FbDeckKey *k = &s->keys[i];
    if (strcmp(k->section, section) || strcmp(k->key, name)) continue;
    if (k->seen && k->type != FB_KEY_LIST) return deck_error(s, "key '%s' given twice%s", name, "");
    k->seen = 1;
    return set_key(s, k, name, value);
  }
  for (int i = 0; i < s->n_keys; i++) {
    FbDeckKey *k = &s->keys[i];
    if (k->type != FB_KEY_ANY || strcmp(k->section, section)) continue;
    k->seen = 1;
    return set_key(s, k, name, value);
  }
  if (section[0]) return deck_error(s, "unknown key '%s' in section [%s]", name, section);
  return deck_error(s, "unknown key '%s'%s", name, "");
}

static int deck_result(const char *path, int line, const DeckState *s, const char *msg, char *err,
                       size_t err_len);

int fb_deck_read(const char *path, FbDeckKey *keys, int n_keys, char *err, size_t err_len) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
    return FB_EXIT_USAGE;
  }
  for (int i = 0; i < n_keys; i++) keys[i].seen = 0;
  char msg[FB_MSG_LEN] = "";
  DeckState s = {keys, n_keys, 0, msg, sizeof msg, 0};
  int line = ini_parse_file(f, on_key, &s);
  fclose(f);
  return deck_result(path, line, &s, msg, err, err_len);
}

int fb_deck_parse(const char *path, const char *text, FbDeckKey *keys, int n_keys, char *err,
                  size_t err_len) {
  for (int i = 0; i < n_keys; i++) keys[i].seen = 0;
  char msg[FB_MSG_LEN] = "";
  DeckState s = {keys, n_keys, 0, msg, sizeof msg, 0};
  int line = ini_parse_string(text, on_key, &s);
  return deck_result(path, line, &s, msg, err, err_len);
}

static int deck_result(const char *path, int line, const DeckState *s, const char *msg, char *err,
                       size_t err_len) {
  if (line == -1) {
    snprintf(err, err_len, "%s: cannot read", path);
    return FB_EXIT_USAGE;
  }
  if (line == -2) {
    snprintf(err, err_len, "%s: out of memory while reading", path);
    return FB_EXIT_RUNTIME;
  }
  if (line > 0) {
    if (s->failed)
      snprintf(err, err_len, "%s:%d: %s", path, line, msg);
    else
      snprintf(err, err_len, "%s:%d: not a 'key = value' line or [section]", path, line);
    return FB_EXIT_USAGE;
  }
  return 0;
}

int fb_deck_key_line(const char *path, const char *section, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char buf[1024], current[128] = "";
  int line = 0, found = 0;
  size_t klen = strlen(key);
  while (!found && fgets(buf, sizeof buf, f)) {
    line++;
    char *p = buf;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '[') {
      char *end = strchr(p, ']');
      if (end) snprintf(current, sizeof current, "%.*s", (int)(end - p - 1), p + 1);
      continue;
    }
    if (strcmp(current, section) || strncmp(p, key, klen)) continue;
    p += klen;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '=' || *p == ':') found = line;
  }
  fclose(f);
  return found;
}

void fb_deck_fail(FbContext *ctx, const char *path, const char *section, const char *key,
                  const char *what) {
  int line = fb_deck_key_line(path, section, key);
  if (line) fb_fail(ctx, FB_EXIT_USAGE, "%s:%d: key '%s': %s", path, line, key, what);
  fb_fail(ctx, FB_EXIT_USAGE, "%s: key '%s': %s", path, key, what);
}
