/* Reading measured chase CSVs: header by column name, RFC 4180 fields. */
#include "chase_rows.h"

#include "cli_common.h"
#include "tlbsim/csv.h"
#include "tlbsim/rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_PATTERN, C_ORDER, C_MAPPING, C_PAGE, C_STRIDE, C_FOOTPRINT, C_STEPS, C_CYCLES, C_SEED, C_NODES,
       C_WARMUP, C_REPEATS, C_CHUNK, C_VA_BASE, C_BASE_CYCLES, C_LANES, C_LOAD, C_POPULATION, C_REGION, NCOLS };
/* The columns read, as tlbsim/rows.h declares them (ROWS_CHASE). */
static const int col_id[NCOLS] = {ROWS_CHASE_PATTERN, ROWS_CHASE_ORDER,   ROWS_CHASE_MAPPING, ROWS_CHASE_PAGE,
                                  ROWS_CHASE_STRIDE,  ROWS_CHASE_FOOTPRINT, ROWS_CHASE_STEPS, ROWS_CHASE_CYCLES,
                                  ROWS_CHASE_SEED,    ROWS_CHASE_NODES,   ROWS_CHASE_WARMUP,  ROWS_CHASE_REPEATS,
                                  ROWS_CHASE_CHUNK,   ROWS_CHASE_VA_BASE, ROWS_CHASE_BASE,    ROWS_CHASE_LANES,
                                  ROWS_CHASE_LOAD,    ROWS_CHASE_POPULATION, ROWS_CHASE_REGION};
#define COL_NAME(c) rows_column(ROWS_CHASE, col_id[c])
static const bool col_required[NCOLS] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};


/* Column c as a whole number, def when absent or empty: 0, or -1 with
 * "FILE:LINE: NAME: 'VALUE' is not a whole number" (or out of range). */
static int field_u64(char **l, const int *col, int c, uint64_t def, uint64_t *out, const char *file,
                     unsigned long ln, diag *d) {
  if (col[c] < 0 || !*l[col[c]]) return *out = def, 0;
  num_status st = num_whole_in(l[col[c]], 0, UINT64_MAX, out);
  char why[160];
  return st == NUM_OK ? 0 : diag_set(d, file, ln, "%s: %s", COL_NAME(c),
                                     num_complaint(st, NUM_WHOLE, l[col[c]], 0, UINT64_MAX, why, sizeof why));
}

/* Fills spec and measured from one row: 1 when the row is simulated, 0 when
 * skipped, -1 on bad input. */
static int row_spec(char **l, const int *col, const char *file, unsigned long ln, chase_row *r, diag *d) {
  if (strcmp(l[col[C_PATTERN]], "chase")) return 0;
  /* One thread and L1-bypassing loads: what the simulator models. */
  if (col[C_LANES] >= 0 && *l[col[C_LANES]] && strcmp(l[col[C_LANES]], "1")) return 0;
  if (col[C_LOAD] >= 0 && *l[col[C_LOAD]] && strcmp(l[col[C_LOAD]], "cg")) return 0;
  chase_spec *s = &r->spec;
  *s = (chase_spec){0};
  if (region_mapping_parse(l[col[C_MAPPING]], &s->mapping)) return 0; /* a mapping region.h does not know */
  if (chase_order_parse(l[col[C_ORDER]], &s->order))
    return diag_set(d, file, ln, "order '%s' is not seq or random", l[col[C_ORDER]]);
  uint64_t nodes, repeats;
  if (num_real_in(l[col[C_CYCLES]], 0, 1e12, &r->measured))
    return diag_set(d, file, ln, "cycles_per_access '%s' is not a number from 0 to 1e12", l[col[C_CYCLES]]);
  if (field_u64(l, col, C_PAGE, 0, &s->page_size, file, ln, d) || field_u64(l, col, C_STRIDE, 0, &s->stride, file, ln, d) ||
      field_u64(l, col, C_FOOTPRINT, 0, &s->footprint, file, ln, d) ||
      field_u64(l, col, C_STEPS, 0, &s->steps, file, ln, d) || field_u64(l, col, C_SEED, 1, &s->seed, file, ln, d) ||
      field_u64(l, col, C_NODES, 0, &nodes, file, ln, d) || field_u64(l, col, C_WARMUP, 0, &s->warmup, file, ln, d) ||
      field_u64(l, col, C_REPEATS, 1, &repeats, file, ln, d) ||
      field_u64(l, col, C_CHUNK, 2u << 20, &s->chunk, file, ln, d) ||
      field_u64(l, col, C_VA_BASE, 0, &s->va_base, file, ln, d))
    return -1;
  if (!s->chunk) s->chunk = s->page_size; /* cudamalloc rows: no VMM chunks */
  r->base = -1;
  if (col[C_BASE_CYCLES] >= 0 && *l[col[C_BASE_CYCLES]]) {
    if (num_real_in(l[col[C_BASE_CYCLES]], 1e-9, 1e12, &r->base)) return diag_set(d, file, ln, "base_cycles '%s' is not a positive number", l[col[C_BASE_CYCLES]]);
  }
  r->line = ln;
  if (!s->stride || !s->page_size || !is_pow2(s->page_size) || !s->steps || !repeats || nodes > UINT32_MAX)
    return diag_set(d, file, ln, "stride, page_bytes, steps and repeats must be positive");
  uint64_t n = nodes ? nodes : s->footprint / s->stride;
  s->nodes = n <= UINT32_MAX ? (uint32_t)n : 0; /* 0: chase_spec_check counts footprint / stride itself */
  if (repeats > UINT32_MAX)
    return diag_set(d, file, ln, "repeats: '%llu' is out of range (1..4294967295)", (unsigned long long)repeats);
  s->repeats = (unsigned)repeats;
  /* What chase_run would refuse (steps or warm-up of 2^64 - 1 ran for
   * ever), refused here with the row's line. */
  diag why;
  if (chase_spec_check(s, &why)) return diag_set(d, file, ln, "%s", why.msg);
  return 1;
}

/* One allocation's history as the file tells it: its population, its
 * points' chains in order (a point's seq and random rows are one chain),
 * its largest footprint. */
typedef struct alloc_group {
  char key[48];          /* the region column's value, or the population's name */
  gpu_population pop;
  region_touch *touch;
  size_t n, cap;
  uint64_t bytes;
  bool taken;            /* a kept row owns touch */
} alloc_group;

typedef struct groups {
  alloc_group *g;
  size_t n, cap;
} groups;

/* The group of a managed row, made on its first row; its point appended
 * unless it is the last one's. -1: out of memory or a bad population;
 * else the group's index, *earlier its points before this row's. */
static int group_row(groups *gs, char **l, const int *col, const chase_row *r, size_t *earlier, const char *file,
                     unsigned long ln, diag *d) {
  const char *pop = col[C_POPULATION] >= 0 && *l[col[C_POPULATION]] ? l[col[C_POPULATION]] : "chain";
  char key[48];
  snprintf(key, sizeof key, "%s", col[C_REGION] >= 0 ? l[col[C_REGION]] : pop);
  size_t i = 0;
  while (i < gs->n && strcmp(gs->g[i].key, key)) i++;
  if (i == gs->n) {
    gpu_population p;
    if (gpu_population_parse(pop, &p))
      return diag_set(d, file, ln, "population '%s' is not chain, gpu:K, host:K, host_prefetch or advise", pop);
    if (gs->n == gs->cap) {
      size_t cap = gs->cap ? 2 * gs->cap : 8;
      alloc_group *grown = realloc(gs->g, cap * sizeof *grown);
      if (!grown) return diag_set(d, file, ln, "out of memory");
      gs->g = grown, gs->cap = cap;
    }
    gs->g[gs->n++] = (alloc_group){.pop = p};
    snprintf(gs->g[i].key, sizeof gs->g[i].key, "%s", key);
  }
  alloc_group *g = &gs->g[i];
  region_touch t = {.stride = r->spec.stride, .nodes = r->spec.nodes};
  if (!g->n || g->touch[g->n - 1].stride != t.stride || g->touch[g->n - 1].nodes != t.nodes) {
    if (g->n == g->cap) {
      size_t cap = g->cap ? 2 * g->cap : 64;
      region_touch *grown = realloc(g->touch, cap * sizeof *grown);
      if (!grown) return diag_set(d, file, ln, "out of memory");
      g->touch = grown, g->cap = cap;
    }
    g->touch[g->n++] = t;
  }
  *earlier = g->n - 1;
  if (r->spec.footprint > g->bytes) g->bytes = r->spec.footprint;
  return (int)i;
}

/* Points each kept managed row (group index in history.nearlier's place
 * until now: see chase_rows_load) at its group's history. */
static void attach_histories(groups *gs, chase_row *rows, size_t n, const int *group_of) {
  for (size_t i = 0; i < n; i++) {
    if (group_of[i] < 0) continue;
    alloc_group *g = &gs->g[group_of[i]];
    rows[i].history.population = g->pop;
    rows[i].history.bytes = g->bytes;
    rows[i].history.earlier = g->touch;
    rows[i].spec.history = &rows[i].history;
    rows[i].owns_history = !g->taken;
    g->taken = true;
  }
  for (size_t i = 0; i < gs->n; i++)
    if (!gs->g[i].taken) free(gs->g[i].touch);
  free(gs->g);
}

void chase_rows_free(chase_row *rows, size_t n) {
  for (size_t i = 0; rows && i < n; i++)
    if (rows[i].owns_history) free((void *)rows[i].history.earlier);
  free(rows);
}

static bool kept(const chase_row *r, const chase_row_filter *f) {
  return r->spec.footprint >= f->min_footprint && r->spec.nodes >= f->min_nodes &&
         (!f->mappings || (f->mappings >> r->spec.mapping & 1)) && (!f->orders || (f->orders >> r->spec.order & 1));
}

int chase_rows_load(const char *path, const chase_row_filter *f, chase_row **rows, size_t *n, size_t *skipped,
                    diag *d) {
  *rows = NULL;
  *n = *skipped = 0;
  int col[NCOLS];
  const char *names[NCOLS];
  for (int c = 0; c < NCOLS; c++) names[c] = COL_NAME(c);
  csv_table *t = csv_table_open(path, names, col_required, col, NCOLS, d);
  if (!t) return -1;
  size_t cap = 0;
  uint64_t passed = 0; /* rows kept before sampling */
  unsigned long ln;
  char **field;
  int rc, got;
  groups gs = {0};
  int *group_of = NULL; /* per kept row: its allocation group, -1 for none */
  while ((got = csv_table_next(t, &field, &ln, d)) == 1) {
    if (*n == cap) {
      cap = cap ? 2 * cap : 256;
      chase_row *grown = realloc(*rows, cap * sizeof **rows);
      int *grown_of = realloc(group_of, cap * sizeof *grown_of);
      if (grown) *rows = grown;
      if (grown_of) group_of = grown_of;
      if (!grown || !grown_of) {
        got = diag_set(d, path, ln, "out of memory");
        break;
      }
    }
    chase_row *r = &(*rows)[*n];
    int use = row_spec(field, col, path, ln, r, d), g = -1;
    size_t earlier = 0;
    if (use > 0 && r->spec.mapping == REGION_MANAGED && (g = group_row(&gs, field, col, r, &earlier, path, ln, d)) < 0)
      use = -1;
    if (use < 0) {
      got = -1;
      break;
    }
    if (use && kept(r, f) && passed++ % (f->every ? f->every : 1) == 0) {
      r->history = (region_history){.nearlier = earlier};
      r->owns_history = false;
      group_of[(*n)++] = g;
    } else {
      (*skipped)++;
    }
  }
  rc = got < 0 ? -1 : 0;
  csv_table_close(t);
  attach_histories(&gs, *rows, rc ? 0 : *n, group_of);
  free(group_of);
  if (rc) {
    chase_rows_free(*rows, 0);
    *rows = NULL;
    *n = 0;
  }
  return rc;
}

const char *const chase_data_latency_names[] = {"measured", "preset", NULL};
