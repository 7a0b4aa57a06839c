/* A sweep's one column set (the union of its configurations' schemas) and
 * its rows written as CSV, a text table or JSON. */
#include "tlbsim/sweep.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/csv.h"
#include "tlbsim/num.h"

/* The columns but the one a row names first itself: the trace. */
static bool kept(const stats_column *c) {
  if (c->kind == STATS_GROUP) return false;
  return c->kind != STATS_LABEL || c->at != STATS_TRACE;
}

static long find_column(const stats_column *col, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(col[i].name, name)) return (long)i;
  return -1;
}

/* Merges one schema in: a column not yet present goes right after the one
 * that precedes it in its own schema, so every schema's order is kept. */
static int merge(sweep_columns *u, const stats_schema *sc, diag *d) {
  size_t at = 0; /* where the next new column goes */
  for (size_t i = 0; i < sc->n; i++) {
    const stats_column *c = &sc->col[i];
    if (!kept(c)) continue;
    long k = find_column(u->col, u->n, c->name);
    if (k >= 0) {
      at = (size_t)k + 1;
      continue;
    }
    if (u->n == SWEEP_MAX_COLUMNS) return diag_set(d, NULL, 0, "tlbsim sweep: more than %d columns", SWEEP_MAX_COLUMNS);
    memmove(&u->col[at + 1], &u->col[at], (u->n - at) * sizeof u->col[0]);
    u->col[at++] = *c;
    u->n++;
  }
  return 0;
}

int sweep_columns_build(const machine_spec *specs, size_t n, sweep_columns *out, diag *d) {
  out->n = 0;
  out->intervals = out->partial = false;
  stats_schema sc;
  for (size_t i = 0; i < n; i++) {
    stats_schema_build(&specs[i], &sc);
    if (merge(out, &sc, d)) return -1;
  }
  return 0;
}

/* --- cells ------------------------------------------------------------------ */

typedef enum { CELL_EMPTY, CELL_TEXT, CELL_COUNT, CELL_RATIO, CELL_BOOL } cell_kind;

typedef struct cell {
  cell_kind kind;
  const char *text;
  uint64_t count;
  double ratio;
} cell;

/* Column c of a row, looked up by name in the row's own schema. */
static cell row_cell(const sweep_row *r, const stats_schema *sc, const stats_column *c) {
  long k = find_column(sc->col, sc->n, c->name);
  if (k < 0) return (cell){.kind = CELL_EMPTY};
  const stats_column *own = &sc->col[k];
  if (own->kind == STATS_LABEL)
    return (cell){.kind = CELL_TEXT, .text = own->at == STATS_TRACE_FORMAT ? r->trace_format
                                             : own->at == STATS_CONFIG     ? r->config
                                                                           : r->spec->format.name};
  if (own->kind == STATS_COUNT) return (cell){.kind = CELL_COUNT, .count = stats_count(r->snap, own)};
  if (!stats_denominator(r->snap, own)) return (cell){.kind = CELL_EMPTY}; /* a ratio of nothing */
  return (cell){.kind = CELL_RATIO, .ratio = stats_ratio(r->snap, own)};
}

/* A cell as text, numbers as `run` writes them. */
static const char *cell_text(const cell *c, char *buf, size_t len) {
  switch (c->kind) {
  case CELL_EMPTY: return "";
  case CELL_TEXT: return c->text;
  case CELL_COUNT: snprintf(buf, len, "%llu", (unsigned long long)c->count); return buf;
  case CELL_BOOL: return c->count ? "true" : "false";
  case CELL_RATIO: break;
  }
  return num_format_real(c->ratio, buf, len);
}

static json_object *cell_json(const cell *c) {
  switch (c->kind) {
  case CELL_EMPTY: return NULL;
  case CELL_TEXT: return json_object_new_string(c->text);
  case CELL_COUNT: return json_object_new_uint64(c->count);
  case CELL_BOOL: return json_object_new_boolean(c->count != 0);
  case CELL_RATIO: break;
  }
  return report_real(c->ratio);
}

/* The columns before the statistics: trace, the axes, and with intervals
 * interval and accesses_end. */
static size_t lead(const sweep_grid *g, const sweep_columns *cols) { return 1 + g->naxes + (cols->intervals ? 2 : 0); }

/* All the columns: the lead, the statistics, and `partial` when there. */
static size_t width(const sweep_grid *g, const sweep_columns *cols) { return lead(g, cols) + cols->n + cols->partial; }

/* Column j of a row over the full header: trace, the axes, [interval,
 * accesses_end,] the columns[, partial]. */
static cell full_cell(const sweep_grid *g, const sweep_columns *cols, const sweep_row *r, const stats_schema *sc,
                      size_t j) {
  if (j == 0) return (cell){.kind = CELL_TEXT, .text = r->trace};
  if (j <= g->naxes) return (cell){.kind = CELL_TEXT, .text = r->values[j - 1]};
  if (j < lead(g, cols)) return (cell){.kind = CELL_COUNT, .count = j == g->naxes + 1 ? r->interval : r->accesses_end};
  if (j == lead(g, cols) + cols->n) return (cell){.kind = CELL_BOOL, .count = r->partial};
  return row_cell(r, sc, &cols->col[j - lead(g, cols)]);
}

static const char *header_name(const sweep_grid *g, const sweep_columns *cols, size_t j) {
  if (j == 0) return "trace";
  if (j <= g->naxes) return g->axis[j - 1].key;
  if (j < lead(g, cols)) return j == g->naxes + 1 ? "interval" : "accesses_end";
  if (j == lead(g, cols) + cols->n) return "partial";
  return cols->col[j - lead(g, cols)].name;
}

/* --- the three formats ------------------------------------------------------ */

#define CELL_MAX 64

void sweep_write_csv_header(FILE *f, const sweep_grid *g, const sweep_columns *cols) {
  size_t ncols = width(g, cols);
  for (size_t j = 0; j < ncols; j++) {
    if (j) fputc(',', f);
    csv_write_field(f, header_name(g, cols, j));
  }
  fputc('\n', f);
}

void sweep_write_csv_rows(FILE *f, const sweep_grid *g, const sweep_columns *cols, const sweep_row *rows,
                          size_t nrows) {
  size_t ncols = width(g, cols);
  stats_schema sc;
  char buf[CELL_MAX];
  for (size_t i = 0; i < nrows; i++) {
    stats_schema_build(rows[i].spec, &sc);
    for (size_t j = 0; j < ncols; j++) {
      if (j) fputc(',', f);
      cell c = full_cell(g, cols, &rows[i], &sc, j);
      csv_write_field(f, cell_text(&c, buf, sizeof buf));
    }
    fputc('\n', f);
  }
}

static json_object *row_json(const sweep_grid *g, const sweep_columns *cols, const sweep_row *r) {
  size_t ncols = width(g, cols);
  stats_schema sc;
  stats_schema_build(r->spec, &sc);
  json_object *o = json_object_new_object();
  for (size_t j = 0; j < ncols; j++) {
    cell c = full_cell(g, cols, r, &sc, j);
    json_object_object_add(o, header_name(g, cols, j), cell_json(&c));
  }
  return o;
}

static void write_json(FILE *f, const sweep_grid *g, const sweep_columns *cols, const sweep_row *rows, size_t nrows) {
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < nrows; i++) json_object_array_add(arr, row_json(g, cols, &rows[i]));
  fprintf(f, "%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(arr);
}

/* JSON lines: one compact object per row, so rows can be written as they
 * come and a reader takes them one line at a time. */
static void write_json_lines(FILE *f, const sweep_grid *g, const sweep_columns *cols, const sweep_row *rows,
                             size_t nrows) {
  for (size_t i = 0; i < nrows; i++) {
    json_object *o = row_json(g, cols, &rows[i]);
    fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
  }
}

/* Text: one line per column, a column of values per row — a sweep has
 * many metrics and few rows, so this reads down the metrics. */
static void write_text(FILE *f, const sweep_grid *g, const sweep_columns *cols, const sweep_row *rows, size_t nrows) {
  size_t ncols = width(g, cols);
  char buf[CELL_MAX];
  stats_schema *sc = malloc(nrows ? nrows * sizeof *sc : 1);
  if (!sc) return;
  for (size_t i = 0; i < nrows; i++) stats_schema_build(rows[i].spec, &sc[i]);
  for (size_t j = 0; j < ncols; j++) {
    fprintf(f, "%-32s", header_name(g, cols, j));
    for (size_t i = 0; i < nrows; i++) {
      cell c = full_cell(g, cols, &rows[i], &sc[i], j);
      const char *t = cell_text(&c, buf, sizeof buf);
      fprintf(f, " %14s", c.kind == CELL_EMPTY ? "-" : t);
    }
    fputc('\n', f);
  }
  free(sc);
}

void sweep_write_interval(FILE *f, report_format fmt, const sweep_grid *g, const sweep_columns *cols,
                          const sweep_row *rows, size_t nrows) {
  if (fmt == REPORT_CSV) sweep_write_csv_rows(f, g, cols, rows, nrows);
  else if (fmt == REPORT_JSON) write_json_lines(f, g, cols, rows, nrows);
  else {
    write_text(f, g, cols, rows, nrows);
    fputc('\n', f);
  }
}

void sweep_write(FILE *f, report_format fmt, const sweep_grid *g, const sweep_columns *cols, const sweep_row *rows,
                 size_t nrows) {
  if (fmt == REPORT_CSV) {
    sweep_write_csv_header(f, g, cols);
    sweep_write_csv_rows(f, g, cols, rows, nrows);
  }
  else if (fmt == REPORT_JSON) write_json(f, g, cols, rows, nrows);
  else write_text(f, g, cols, rows, nrows);
}
