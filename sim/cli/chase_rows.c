/* Reading measured chase CSVs: header by column name, RFC 4180 fields. */
#include "chase_rows.h"

#include "cli_common.h"
#include "tlbsim/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 64
#define LINE_MAX_LEN 4096

typedef struct csv_line {
  char buf[LINE_MAX_LEN];
  char *field[MAX_COLS];
  int n;
} csv_line;

/* Splits the line in place (tlbsim/csv.h). -1 when malformed. */
static int split_line(csv_line *l) {
  l->n = csv_split(l->buf, l->field, MAX_COLS);
  return l->n < 0 ? -1 : 0;
}

static bool read_line(FILE *f, csv_line *l, unsigned long *lineno, bool *too_long) {
  if (!fgets(l->buf, sizeof l->buf, f)) return false;
  (*lineno)++;
  size_t len = strlen(l->buf);
  *too_long = len == sizeof l->buf - 1 && l->buf[len - 1] != '\n';
  while (len && (l->buf[len - 1] == '\n' || l->buf[len - 1] == '\r')) l->buf[--len] = '\0';
  return true;
}

enum { C_PATTERN, C_ORDER, C_MAPPING, C_PAGE, C_STRIDE, C_FOOTPRINT, C_STEPS, C_CYCLES, C_SEED, C_NODES,
       C_WARMUP, C_REPEATS, C_CHUNK, C_VA_BASE, C_BASE_CYCLES, C_LANES, C_LOAD, NCOLS };
static const char *const col_names[NCOLS] = {"pattern", "order", "mapping", "page_bytes", "stride_bytes",
                                             "footprint_bytes", "steps", "cycles_per_access", "seed", "nodes",
                                             "warmup", "repeats", "chunk_bytes", "va_base", "base_cycles",
                                             "lanes", "load"};
static const bool col_required[NCOLS] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};


static int find_columns(const csv_line *h, int *col, const char *file, diag *d) {
  for (int c = 0; c < NCOLS; c++) {
    col[c] = -1;
    for (int i = 0; i < h->n; i++)
      if (!strcmp(h->field[i], col_names[c])) col[c] = i;
    if (col[c] < 0 && col_required[c]) return diag_set(d, file, 1, "missing column '%s'", col_names[c]);
  }
  return 0;
}

static int field_u64(const csv_line *l, int col, uint64_t def, uint64_t *out) {
  if (col < 0 || col >= l->n || !*l->field[col]) return *out = def, 0;
  return num_parse_whole(l->field[col], out);
}

/* Fills spec and measured from one row; 1 when the row is simulated, 0 when
 * skipped, -1 on bad input. A row of another width than the header is bad:
 * a line cut short (an interrupted sweep) would otherwise give a truncated
 * last number. */
static int row_spec(const csv_line *l, int header_fields, const int *col, const char *file, unsigned long ln,
                    chase_row *r, diag *d) {
  if (l->n != header_fields) return diag_set(d, file, ln, "%d fields, the header has %d", l->n, header_fields);
  if (strcmp(l->field[col[C_PATTERN]], "chase")) return 0;
  /* One thread and L1-bypassing loads: what the simulator models. */
  if (col[C_LANES] >= 0 && *l->field[col[C_LANES]] && strcmp(l->field[col[C_LANES]], "1")) return 0;
  if (col[C_LOAD] >= 0 && *l->field[col[C_LOAD]] && strcmp(l->field[col[C_LOAD]], "cg")) return 0;
  chase_spec *s = &r->spec;
  *s = (chase_spec){0};
  if (chase_mapping_parse(l->field[col[C_MAPPING]], &s->mapping)) return 0; /* aliased, managed */
  if (chase_order_parse(l->field[col[C_ORDER]], &s->order))
    return diag_set(d, file, ln, "order '%s' is not seq or random", l->field[col[C_ORDER]]);
  uint64_t nodes, repeats;
  if (num_real_in(l->field[col[C_CYCLES]], 0, 1e12, &r->measured))
    return diag_set(d, file, ln, "cycles_per_access '%s' is not a number from 0 to 1e12", l->field[col[C_CYCLES]]);
  if (field_u64(l, col[C_PAGE], 0, &s->page_size) || field_u64(l, col[C_STRIDE], 0, &s->stride) ||
      field_u64(l, col[C_FOOTPRINT], 0, &s->footprint) || field_u64(l, col[C_STEPS], 0, &s->steps) ||
      field_u64(l, col[C_SEED], 1, &s->seed) || field_u64(l, col[C_NODES], 0, &nodes) ||
      field_u64(l, col[C_WARMUP], 0, &s->warmup) || field_u64(l, col[C_REPEATS], 1, &repeats) ||
      field_u64(l, col[C_CHUNK], 2u << 20, &s->chunk) || field_u64(l, col[C_VA_BASE], 0, &s->va_base))
    return diag_set(d, file, ln, "a numeric field is not a whole number");
  if (!s->chunk) s->chunk = s->page_size; /* cudamalloc rows: no VMM chunks */
  r->base = -1;
  if (col[C_BASE_CYCLES] >= 0 && *l->field[col[C_BASE_CYCLES]]) {
    if (num_real_in(l->field[col[C_BASE_CYCLES]], 1e-9, 1e12, &r->base)) return diag_set(d, file, ln, "base_cycles '%s' is not a positive number", l->field[col[C_BASE_CYCLES]]);
  }
  r->line = ln;
  if (!s->stride || !s->page_size || !is_pow2(s->page_size) || !s->steps || !repeats || nodes > UINT32_MAX)
    return diag_set(d, file, ln, "stride, page_bytes, steps and repeats must be positive");
  s->nodes = (uint32_t)(nodes ? nodes : s->footprint / s->stride);
  s->repeats = (unsigned)repeats;
  return 1;
}

static bool kept(const chase_row *r, const chase_row_filter *f) {
  return r->spec.footprint >= f->min_footprint && r->spec.nodes >= f->min_nodes &&
         (!f->mappings || (f->mappings >> r->spec.mapping & 1)) && (!f->orders || (f->orders >> r->spec.order & 1));
}

int chase_rows_load(const char *path, const chase_row_filter *f, chase_row **rows, size_t *n, size_t *skipped,
                    diag *d) {
  *rows = NULL;
  *n = *skipped = 0;
  FILE *in = fopen(path, "r");
  if (!in) return diag_set(d, path, 0, "cannot open");
  csv_line *line = malloc(sizeof *line);
  size_t cap = 0;
  unsigned long ln = 0;
  bool too_long;
  int col[NCOLS], header_fields = 0, rc = 0;
  d->msg[0] = '\0';
  if (!line || !read_line(in, line, &ln, &too_long) || too_long || split_line(line) ||
      find_columns(line, col, path, d)) {
    if (!d->msg[0]) diag_set(d, path, 1, "expected a chase CSV header");
    rc = -1;
  }
  header_fields = line ? line->n : 0;
  while (rc == 0 && read_line(in, line, &ln, &too_long)) {
    if (!line->buf[0]) continue;
    if (too_long || split_line(line)) {
      rc = diag_set(d, path, ln, "malformed CSV line");
      break;
    }
    if (*n == cap) {
      cap = cap ? 2 * cap : 256;
      chase_row *grown = realloc(*rows, cap * sizeof **rows);
      if (!grown) {
        rc = diag_set(d, path, ln, "out of memory");
        break;
      }
      *rows = grown;
    }
    int use = row_spec(line, header_fields, col, path, ln, &(*rows)[*n], d);
    if (use < 0) rc = -1;
    else if (use && kept(&(*rows)[*n], f)) (*n)++;
    else (*skipped)++;
  }
  fclose(in);
  free(line);
  if (rc) {
    free(*rows);
    *rows = NULL;
    *n = 0;
  }
  return rc;
}

const char *const chase_data_latency_names[] = {"measured", "preset", NULL};
