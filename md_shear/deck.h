/* deck.h: the deck's text values shared by deck.c (which reads and checks
 * the keys) and plan.c (which turns them into groups, computes, runs and
 * thermo columns). */
#ifndef MD_DECK_H
#define MD_DECK_H

#include "md.h"

typedef struct {
  char orient[3][FB_DECK_STR], origin[FB_DECK_STR], box[FB_DECK_STR], replicate[FB_DECK_STR];
  char periodic[FB_DECK_STR], boundary[FB_DECK_STR], mass[FB_DECK_STR], mix[FB_DECK_STR];
  char pair_coeff[FB_DECK_LIST], region_units[FB_DECK_STR], set_type[FB_DECK_STR];
  char setforce[FB_DECK_STR], thermo_style[FB_DECK_STR], velocity_units[FB_DECK_STR];
  char dump_columns[FB_DECK_STR];
  FbDeckAny groups, computes;
  /* per run: index 0 is [run] (the one-run form), 1.. are [run1], [run2], ... */
  long long steps[MD_MAX_STAGES + 1], thermo[MD_MAX_STAGES + 1], reset[MD_MAX_STAGES + 1];
  char thermo_temp[MD_MAX_STAGES + 1][FB_DECK_STR], rescale[MD_MAX_STAGES + 1][FB_DECK_STR];
  char velocity[MD_MAX_STAGES + 1][FB_DECK_LIST];
  double temperature;
  long long seed;
  int stage_seen[MD_MAX_STAGES + 1];
} MdDeck;

/* "FILE:LINE: key 'KEY': WHAT", exit 2 on every rank. */
void md_deck_fail(FbContext *ctx, const Md *md, const char *section, const char *key,
                  const char *what) __attribute__((noreturn));
/* Reads exactly n numbers (n < 0: 1 to -n; returns the count, -1 if malformed). */
int md_parse_numbers(const char *s, double *out, int n);
/* plan.c: groups, computes, fixes, runs, thermo and dump columns. */
void md_plan_from_deck(FbContext *ctx, Md *md, const MdDeck *d);

#endif
