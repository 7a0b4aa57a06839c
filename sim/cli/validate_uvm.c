/* validate on uvm rows: each timed column predicted against measured (see
 * validate_uvm.h). */
#include "validate_uvm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/csv.h"
#include "tlbsim/report.h"
#include "tlbsim/rows.h"
#include "tlbsim/uvm_suite.h"

/* The compared columns, in the schema's order from prefetch_ms. */
const char *const validate_uvm_column_names[] = {"prefetch_ms", "cold_ms",     "stream_ms", "stream_gbps",
                                                 "gather_lpns", "gather2_lpns", NULL};
#define NCMP 6
#define FIRST_CMP ROWS_UVM_PREFETCH_MS

bool validate_uvm_sniff(const char *path) {
  static const char *const names[2] = {"init", "cold_ms"};
  static const bool required[2] = {true, true};
  int col[2];
  diag d;
  csv_table *t = csv_table_open(path, names, required, col, 2, &d);
  bool uvm = t && col[0] == 0;
  csv_table_close(t);
  return uvm;
}

static double predicted_column(const uvm_suite_result *r, int k) {
  const double v[NCMP] = {r->prefetch_ms, r->cold_ms, r->stream_ms, r->stream_gbps, r->gather_lpns, r->gather2_lpns};
  return v[k];
}

static int named(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

/* Row r's spec and measured columns (NAN where empty): 0, or -1 (d). */
static int read_row(char **field, const int *col, const char *file, unsigned long ln, uvm_suite_spec *s,
                    double measured[NCMP], diag *d) {
  int init = named(field[col[ROWS_UVM_INIT]], gpu_uvm_init_names, GPU_UVM_INIT_COUNT);
  int first = named(field[col[ROWS_UVM_FIRST]], gpu_uvm_first_names, GPU_UVM_FIRST_COUNT);
  if (init < 0) return diag_set(d, file, ln, "init '%s' is not malloc, gpu, host, host_prefetch or advise", field[col[ROWS_UVM_INIT]]);
  if (first < 0) return diag_set(d, file, ln, "first '%s' is not stream or gather", field[col[ROWS_UVM_FIRST]]);
  *s = (uvm_suite_spec){.init = (gpu_uvm_init)init, .first = (gpu_uvm_first)first, .seed = 1};
  char why[160];
  const char *size = field[col[ROWS_UVM_SIZE]];
  num_status st = num_whole_in(size, 128, UVM_SUITE_MAX_SIZE, &s->size);
  if (st != NUM_OK) return diag_set(d, file, ln, "size: %s", num_complaint(st, NUM_WHOLE, size, 128, UVM_SUITE_MAX_SIZE, why, sizeof why));
  if (s->size % 128) return diag_set(d, file, ln, "size %llu is not a multiple of 128 bytes", (unsigned long long)s->size);
  for (int k = 0; k < NCMP; k++) {
    const char *v = col[FIRST_CMP + k] >= 0 ? field[col[FIRST_CMP + k]] : "";
    measured[k] = NAN;
    if (*v && num_real_in(v, 1e-12, 1e12, &measured[k]))
      return diag_set(d, file, ln, "%s '%s' is not a positive number", validate_uvm_column_names[k], v);
  }
  return 0;
}

typedef struct column_errors {
  size_t n;
  double sum, worst;
  unsigned long worst_line;
} column_errors;

/* One compared value as --format json's points[] hold it. */
static json_object *point_json(const uvm_suite_spec *s, int k, unsigned long line, double measured, double predicted,
                               double error_pct) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "line", json_object_new_uint64(line));
  json_object_object_add(o, "init", json_object_new_string(gpu_uvm_init_names[s->init]));
  json_object_object_add(o, "first", json_object_new_string(gpu_uvm_first_names[s->first]));
  json_object_object_add(o, "size", json_object_new_uint64(s->size));
  json_object_object_add(o, "column", json_object_new_string(validate_uvm_column_names[k]));
  json_object_object_add(o, "measured", report_real(measured));
  json_object_object_add(o, "predicted", report_real(predicted));
  json_object_object_add(o, "error_pct", report_real(error_pct));
  return o;
}

int validate_uvm(const machine_spec *spec, const validate_uvm_opts *o) {
  diag d;
  if (!spec->gpu.sms) return fprintf(stderr, "%s: preset %s has no [gpu] section\n", o->csv, o->label), EXIT_INPUT;
  size_t ncols;
  const char *const *names = rows_columns(ROWS_UVM, &ncols);
  int col[ROWS_UVM_COLUMNS];
  bool required[ROWS_UVM_COLUMNS] = {true, true, true};
  csv_table *t = csv_table_open(o->csv, names, required, col, ROWS_UVM_COLUMNS, &d);
  if (!t) return cli_input_error(&d);
  unsigned use = o->columns ? o->columns : (1u << NCMP) - 1;
  column_errors err[NCMP] = {{0}};
  bool text = o->format == REPORT_TEXT;
  json_object *points = json_object_new_array();
  if (text)
    printf("%-14s %-7s %9s %-13s %11s %11s %9s\n", "init", "first", "size", "column", "measured", "predicted", "error");
  char **field;
  unsigned long ln;
  int got, rc = EXIT_OK;
  uint64_t seen = 0;
  size_t rows = 0;
  cli_progress line;
  cli_progress_start(&line, "validate", o->quiet);
  while ((got = csv_table_next(t, &field, &ln, &d)) == 1) {
    uvm_suite_spec s;
    double measured[NCMP];
    if (read_row(field, col, o->csv, ln, &s, measured, &d)) {
      got = -1;
      break;
    }
    if (seen++ % (o->every ? o->every : 1)) continue;
    uvm_suite_result r;
    cli_progress_count(&line, rows, 0, "rows");
    int failed = uvm_suite_run(spec, &s, &r, &d);
    cli_progress_end(&line); /* before a row or an error: stdout and stderr may share the terminal */
    if (failed) {
      char why[DIAG_MSG_MAX];
      snprintf(why, sizeof why, "%s", d.msg);
      diag_set(&d, o->csv, ln, "%s", why);
      got = -1;
      break;
    }
    rows++;
    char size[32];
    num_format_size(s.size, size, sizeof size);
    for (int k = 0; k < NCMP; k++) {
      double p = predicted_column(&r, k);
      if (!(use >> k & 1) || isnan(measured[k]) || p < 0) continue;
      double e = 100.0 * (p - measured[k]) / measured[k];
      if (text)
        printf("%-14s %-7s %9s %-13s %11.4g %11.4g %+8.2f%%\n", gpu_uvm_init_names[s.init],
               gpu_uvm_first_names[s.first], size, validate_uvm_column_names[k], measured[k], p, e);
      else json_object_array_add(points, point_json(&s, k, ln, measured[k], p, e));
      column_errors *c = &err[k];
      c->n++;
      c->sum += fabs(e);
      if (fabs(e) >= c->worst) c->worst = fabs(e), c->worst_line = ln;
    }
  }
  csv_table_close(t);
  if (got < 0) {
    json_object_put(points);
    return cli_input_error(&d);
  }
  json_object *doc = json_object_new_object(), *columns = json_object_new_object();
  json_object_object_add(doc, "csv", json_object_new_string(o->csv));
  json_object_object_add(doc, "preset", json_object_new_string(o->label));
  json_object_object_add(doc, "rows", json_object_new_uint64(rows));
  json_object_object_add(doc, "columns", columns);
  if (text) printf("\n%zu uvm rows compared with preset %s:\n", rows, o->label);
  size_t compared = 0;
  for (int k = 0; k < NCMP; k++) {
    if (!err[k].n) continue;
    compared += err[k].n;
    double mean = err[k].sum / (double)err[k].n;
    if (text)
      printf("  %-13s %3zu rows, mean absolute error %6.2f%%, worst %6.2f%% (line %lu)\n",
             validate_uvm_column_names[k], err[k].n, mean, err[k].worst, err[k].worst_line);
    json_object *c = json_object_new_object();
    json_object_object_add(c, "rows", json_object_new_uint64(err[k].n));
    json_object_object_add(c, "mean_abs_error_pct", report_real(mean));
    json_object_object_add(c, "worst_error_pct", report_real(err[k].worst));
    json_object_object_add(c, "worst_line", json_object_new_uint64(err[k].worst_line));
    json_object_object_add(columns, validate_uvm_column_names[k], c);
    if (o->max_mean >= 0 && mean > o->max_mean) {
      fprintf(stderr, "%s: %s: model error above the target (mean %.2f%% > %.2f%%)\n", o->csv,
              validate_uvm_column_names[k], mean, o->max_mean);
      rc = EXIT_INPUT;
    }
  }
  if (o->format == REPORT_JSON) json_object_object_add(doc, "points", points);
  else json_object_put(points);
  if (!text) report_write(stdout, (report_format)o->format, doc);
  json_object_put(doc);
  if (!compared) return fprintf(stderr, "%s: no uvm values to compare\n", o->csv), EXIT_INPUT;
  return rc;
}
