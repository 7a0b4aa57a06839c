/* Reading measured gather CSVs through the CSV module's table reader. */
#include "gather_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/gpu_gather.h"
#include "tlbsim/csv.h"
#include "tlbsim/rows.h"

enum { C_PATTERN, C_FOOTPRINT, C_STRIDE, C_NODES, C_LOADS, C_MAPPING, C_LOADS_PER_NS, C_PAGE, C_SMS, C_TPS,
       C_BLOCK, C_SEED, C_VA_BASE, C_CHUNK, C_SM_SET, C_BATCH, C_LOAD, C_HASH, NCOLS };
/* The columns read, as tlbsim/rows.h declares them (ROWS_GATHER). */
static const int col_id[NCOLS] = {
    ROWS_GATHER_PATTERN, ROWS_GATHER_FOOTPRINT, ROWS_GATHER_STRIDE,       ROWS_GATHER_NODES,   ROWS_GATHER_LOADS,
    ROWS_GATHER_MAPPING, ROWS_GATHER_LOADS_PER_NS, ROWS_GATHER_PAGE,      ROWS_GATHER_SMS_USED, ROWS_GATHER_TPS,
    ROWS_GATHER_BLOCK_THREADS, ROWS_GATHER_SEED, ROWS_GATHER_VA_BASE,     ROWS_GATHER_CHUNK,   ROWS_GATHER_SM_SET,
    ROWS_GATHER_BATCH,   ROWS_GATHER_LOAD,      ROWS_GATHER_HASH};
static const bool col_required[NCOLS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};

static int field_u64(char **field, int col, uint64_t def, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (col < 0 || !*field[col]) return *out = def, 0;
  return num_whole_in(field[col], lo, hi, out) ? -1 : 0;
}

/* Places a pinned SM list ("0;1;48;49"): how many of its SMs are in the
 * preset's known L2-TLB group. 0 when it is an ordinary launch. */
static int place_set(const char *set, const gpu_config *g, gather_spec *s) {
  if (!*set || !strcmp(set, "grid") || !strcmp(set, "all")) return 0;
  s->pinned = true;
  s->pinned_in_group = 0;
  for (const char *p = set;; p++) {
    uint64_t sm;
    size_t len = strcspn(p, ";");
    if (num_span_whole(p, p + len, &sm) || sm >= GPU_MAX_SMS) return -1;
    for (uint32_t i = 0; i < g->ngroup; i++) s->pinned_in_group += g->group[i] == sm;
    p += len;
    if (!*p) return 0;
  }
}

/* 1 when the row is re-run, 0 when skipped, -1 on bad input. */
static int row_spec(char **l, const int *col, const gpu_config *g, uint32_t group_sms, const char *file, unsigned long ln, gather_row *r,
                    diag *d) {
  if (strcmp(l[col[C_PATTERN]], "gather")) return 0;
  if (col[C_LOAD] >= 0 && *l[col[C_LOAD]] && strcmp(l[col[C_LOAD]], "cg")) return 0;
  if (col[C_HASH] >= 0 && *l[col[C_HASH]] && strcmp(l[col[C_HASH]], GPU_GATHER_HASH)) return 0;
  gather_spec *s = &r->spec;
  *s = (gather_spec){0};
  region *rg = &s->region;
  if (region_mapping_parse(l[col[C_MAPPING]], &rg->mapping)) return 0;
  uint64_t footprint, nodes, loads, sms, tps, block, batch;
  if (num_real_in(l[col[C_LOADS_PER_NS]], 1e-9, 1e9, &r->measured))
    return diag_set(d, file, ln, "loads_per_ns '%s' is not a positive number", l[col[C_LOADS_PER_NS]]);
  if (field_u64(l, col[C_FOOTPRINT], 0, 1, UINT64_MAX, &footprint) ||
      field_u64(l, col[C_STRIDE], 0, GPU_GATHER_LINE, UINT64_MAX, &rg->stride) ||
      field_u64(l, col[C_NODES], 0, 1, UINT32_MAX, &nodes) || field_u64(l, col[C_LOADS], 0, 1, UINT32_MAX, &loads) ||
      field_u64(l, col[C_PAGE], 0, 1, 1ull << 40, &rg->page_size) ||
      field_u64(l, col[C_SMS], 0, 1, GPU_MAX_SMS, &sms) ||
      field_u64(l, col[C_TPS], 0, 32, GPU_GATHER_MAX_TPS, &tps) ||
      field_u64(l, col[C_BLOCK], 0, 32, 1024, &block) || field_u64(l, col[C_SEED], 1, 0, UINT64_MAX, &s->seed) ||
      field_u64(l, col[C_VA_BASE], 0, 0, UINT64_MAX, &rg->base) ||
      field_u64(l, col[C_CHUNK], 0, 0, 1ull << 40, &rg->chunk) ||
      field_u64(l, col[C_BATCH], GPU_GATHER_BATCH, 1, 64, &batch))
    return diag_set(d, file, ln, "a numeric field is not a whole number in its range");
  if (!is_pow2(rg->page_size)) return diag_set(d, file, ln, "page_bytes %llu is not a power of two",
                                               (unsigned long long)rg->page_size);
  rg->nodes = (uint32_t)nodes;
  if (!rg->chunk) rg->chunk = rg->page_size; /* cudamalloc, managed: no VMM chunks */
  if (!rg->base) rg->base = region_default_base(footprint);
  s->loads_per_thread = (uint32_t)loads;
  s->threads_per_sm = (uint32_t)tps;
  s->block_threads = (uint32_t)block;
  s->batch = (uint32_t)batch;
  s->sms_used = (uint32_t)sms;
  const char *set = col[C_SM_SET] >= 0 ? l[col[C_SM_SET]] : "";
  snprintf(r->sm_set, sizeof r->sm_set, "%s", set);
  if (place_set(set, g, s)) return diag_set(d, file, ln, "sm_set '%s' is not grid, all or SMs joined by ';'", set);
  if (s->pinned && 1 + (s->sms_used - s->pinned_in_group) > g->sms / group_sms) return 0;
  r->line = ln;
  return 1;
}

static bool kept(const gather_row *r, const gather_row_filter *f) {
  return r->spec.threads_per_sm >= f->min_threads_per_sm && (!f->mappings || (f->mappings >> r->spec.region.mapping & 1));
}

int gather_rows_load(const char *path, const gather_row_filter *f, const gpu_config *g, uint32_t group_sms,
                     gather_row **rows, size_t *n,
                     size_t *skipped, diag *d) {
  *rows = NULL;
  *n = *skipped = 0;
  int col[NCOLS];
  const char *names[NCOLS];
  for (int c = 0; c < NCOLS; c++) names[c] = rows_column(ROWS_GATHER, col_id[c]);
  csv_table *t = csv_table_open(path, names, col_required, col, NCOLS, d);
  if (!t) return -1;
  size_t cap = 0;
  uint64_t passed = 0; /* rows kept before sampling */
  unsigned long ln;
  char **field;
  int got;
  while ((got = csv_table_next(t, &field, &ln, d)) == 1) {
    if (*n == cap) {
      cap = cap ? 2 * cap : 256;
      gather_row *grown = realloc(*rows, cap * sizeof **rows);
      if (!grown) {
        got = diag_set(d, path, ln, "out of memory");
        break;
      }
      *rows = grown;
    }
    int use = row_spec(field, col, g, group_sms, path, ln, &(*rows)[*n], d);
    if (use < 0) {
      got = -1;
      break;
    }
    if (use && kept(&(*rows)[*n], f) && passed++ % (f->every ? f->every : 1) == 0) (*n)++;
    else (*skipped)++;
  }
  csv_table_close(t);
  if (got < 0) {
    free(*rows);
    *rows = NULL;
    *n = 0;
    return -1;
  }
  return 0;
}

bool gather_rows_sniff(const char *path) {
  static const char *const names[1] = {"pattern"};
  static const bool required[1] = {true};
  int col;
  diag d;
  csv_table *t = csv_table_open(path, names, required, &col, 1, &d);
  char **field;
  unsigned long ln;
  bool gather = t && csv_table_next(t, &field, &ln, &d) == 1 && !strcmp(field[col], "gather");
  csv_table_close(t);
  return gather;
}
