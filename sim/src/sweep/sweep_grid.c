/* The --vary axes of a sweep and the configurations they span. */
#include "tlbsim/sweep.h"

#include <stdio.h>
#include <string.h>

#define SYNTAX "SECTION.KEY=V1,V2,... with no empty key or value"

static int why_not(char *why, size_t len, const char *fmt, const char *a) {
  snprintf(why, len, fmt, a);
  return -1;
}

/* Splits the comma list at s in place into the axis's values. */
static int split_values(sweep_axis *a, char *s, char *why, size_t len) {
  a->nvalues = 0;
  for (char *p = s;;) {
    size_t n = strcspn(p, ",");
    if (n == 0) return why_not(why, len, "%s", SYNTAX);
    if (a->nvalues == SWEEP_MAX_VALUES) return snprintf(why, len, "a list of at most %d values", SWEEP_MAX_VALUES), -1;
    bool last = p[n] == '\0';
    p[n] = '\0';
    for (size_t i = 0; i < a->nvalues; i++)
      if (!strcmp(a->value[i], p)) return why_not(why, len, "a list of distinct values ('%s' twice)", p);
    a->value[a->nvalues++] = p;
    if (last) return 0;
    p += n + 1;
  }
}

int sweep_grid_add(sweep_grid *g, const char *arg, char *why, size_t len) {
  if (g->naxes == SWEEP_MAX_AXES) return snprintf(why, len, "one more: at most %d --vary keys", SWEEP_MAX_AXES), -1;
  sweep_axis *a = &g->axis[g->naxes];
  if (strlen(arg) >= sizeof a->text) return snprintf(why, len, "at most %d characters", SWEEP_AXIS_TEXT - 1), -1;
  strcpy(a->text, arg);
  char *eq = strchr(a->text, '=');
  if (!eq || eq == a->text || !strchr(a->text, '.') || strchr(a->text, '.') > eq)
    return why_not(why, len, "%s", SYNTAX);
  *eq = '\0';
  a->key = a->text;
  for (size_t i = 0; i < g->naxes; i++)
    if (!strcmp(g->axis[i].key, a->key)) return why_not(why, len, "a key not varied before (%s is)", a->key);
  if (split_values(a, eq + 1, why, len)) return -1;
  size_t total = sweep_grid_count(g);
  if (total * a->nvalues > SWEEP_MAX_CONFIGS)
    return snprintf(why, len, "within %d configurations in all", SWEEP_MAX_CONFIGS), -1;
  g->naxes++;
  return 0;
}

size_t sweep_grid_count(const sweep_grid *g) {
  size_t n = 1;
  for (size_t i = 0; i < g->naxes; i++) n *= g->axis[i].nvalues;
  return n;
}

void sweep_grid_values(const sweep_grid *g, size_t i, const char **values) {
  for (size_t k = g->naxes; k-- > 0;) {
    const sweep_axis *a = &g->axis[k];
    values[k] = a->value[i % a->nvalues];
    i /= a->nvalues;
  }
}
