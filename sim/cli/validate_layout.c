/* validate on allocation experiments: per row, the layout its history
 * leaves under the preset's allocator, against the GPU's. */
#include "validate_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/csv.h"
#include "tlbsim/layout.h"
#include "tlbsim/report.h"

enum { C_PATTERN, C_CASE, C_SOURCE, C_BUFFERS, C_REG2, C_REG32, C_LREG2, C_LREG32, C_CHASE, C_TPS, C_LOADS,
       C_LOADS_PER_NS, C_SEED, NCOLS };
static const char *const col_names[NCOLS] = {"pattern", "case", "source", "buffers", "regions_2m", "regions_32m",
                                             "line_regions_2m", "line_regions_32m", "chase_cycles",
                                             "threads_per_sm", "loads_per_thread", "loads_per_ns", "seed"};
static const bool col_required[NCOLS] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};

bool validate_layout_sniff(const char *path) {
  int col[NCOLS];
  diag d;
  csv_table *t = csv_table_open(path, col_names, col_required, col, NCOLS, &d);
  char **field;
  unsigned long ln;
  bool yes = t && csv_table_next(t, &field, &ln, &d) == 1 &&
             (!strcmp(field[col[C_PATTERN]], "churn-gather") || !strcmp(field[col[C_PATTERN]], "smallbufs"));
  csv_table_close(t);
  return yes;
}

/* The history a row names: a trace in the traces directory, or "NxSIZE"
 * requests in a row. */
static int find_source(const char *source, const char *dir, char *path, size_t len, layout_source *src) {
  uint64_t count, size;
  const char *x = strchr(source, 'x');
  if (x && !num_span_whole(source, x, &count) && !num_parse_size(x + 1, &size)) {
    *src = (layout_source){.count = count, .size = size};
    return 0;
  }
  static const char *const suffix[] = {"", ".gz"};
  for (size_t i = 0; i < 2; i++) {
    snprintf(path, len, "%s/%s%s", dir ? dir : ".", source, suffix[i]);
    if (access(path, R_OK) == 0) {
      *src = (layout_source){.trace = path};
      return 0;
    }
  }
  return -1;
}

static int layout_case_of(const char *name, layout_case *c) {
  if (!strcmp(name, "bufs")) return *c = LAYOUT_CHURNED, 0; /* smallbufs: cudaMalloc in a row */
  for (int i = 0; layout_case_names[i]; i++)
    if (!strcmp(name, layout_case_names[i])) return *c = (layout_case)i, 0;
  return -1;
}

typedef struct tally {
  double worst_regions, chase_sum, chase_worst, gather_sum, gather_worst;
  size_t rows;
} tally;

static double pct(double model, double measured) { return measured ? 100.0 * (model - measured) / measured : 0; }

/* One row against the layout l already built for its source and case: its
 * line in the table (text) or its point (points, otherwise). */
static int compare_row(const machine_spec *spec, const layout *l, char **f, const int *col, unsigned long ln,
                       json_object *points, tally *t, diag *d) {
  uint64_t n, tps, loads, seed = 1, reg[4];
  double chase, measured;
  if (num_whole_in(f[col[C_BUFFERS]], 1, l->nodes, &n) || num_whole_in(f[col[C_TPS]], 32, 2048, &tps) ||
      num_whole_in(f[col[C_LOADS]], 8, 1u << 20, &loads) || num_real_in(f[col[C_CHASE]], 1e-9, 1e9, &chase) ||
      num_real_in(f[col[C_LOADS_PER_NS]], 1e-9, 1e9, &measured) ||
      (col[C_SEED] >= 0 && num_parse_whole(f[col[C_SEED]], &seed)))
    return diag_set(d, NULL, 0, "a numeric field is out of its range (buffers at most the %u the history leaves)",
                    l->nodes);
  for (int i = 0; i < 4; i++)
    if (num_parse_whole(f[col[C_REG2 + i]], &reg[i])) return diag_set(d, NULL, 0, "a region count is not a number");
  layout_regions r;
  chase_result c;
  gather_result g;
  if (layout_regions_of(l, (uint32_t)n, &r)) return diag_set(d, NULL, 0, "out of memory");
  if (layout_chase(spec, l, (uint32_t)n, seed, &c, d) ||
      layout_gather(spec, l, (uint32_t)n, (uint32_t)tps, (uint32_t)loads, seed, &g, d))
    return -1;
  double e2 = pct((double)r.regions_2m, (double)reg[0]), e32 = pct((double)r.regions_32m, (double)reg[1]);
  double ec = pct(c.cycles_per_access, chase), eg = pct(g.loads_per_ns, measured);
  if (!points)
    printf("%-8s %-22.22s %6llu %5llu %7llu/%-7llu %+6.1f%% %6llu/%-6llu %+6.1f%% %7.1f %7.1f %+6.2f%% %8.3f %8.3f %+7.2f%%\n",
           f[col[C_CASE]], f[col[C_SOURCE]], (unsigned long long)n, (unsigned long long)tps,
           (unsigned long long)reg[0], (unsigned long long)r.regions_2m, e2, (unsigned long long)reg[1],
           (unsigned long long)r.regions_32m, e32, chase, c.cycles_per_access, ec, measured, g.loads_per_ns, eg);
  else {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "line", json_object_new_uint64(ln));
    json_object_object_add(o, "case", json_object_new_string(f[col[C_CASE]]));
    json_object_object_add(o, "source", json_object_new_string(f[col[C_SOURCE]]));
    json_object_object_add(o, "buffers", json_object_new_uint64(n));
    json_object_object_add(o, "threads_per_sm", json_object_new_uint64(tps));
    json_object_object_add(o, "measured_regions_2m", json_object_new_uint64(reg[0]));
    json_object_object_add(o, "predicted_regions_2m", json_object_new_uint64(r.regions_2m));
    json_object_object_add(o, "measured_regions_32m", json_object_new_uint64(reg[1]));
    json_object_object_add(o, "predicted_regions_32m", json_object_new_uint64(r.regions_32m));
    json_object_object_add(o, "measured_chase_cycles", report_real(chase));
    json_object_object_add(o, "predicted_chase_cycles", report_real(c.cycles_per_access));
    json_object_object_add(o, "measured_loads_per_ns", report_real(measured));
    json_object_object_add(o, "predicted_loads_per_ns", report_real(g.loads_per_ns));
    json_object_array_add(points, o);
  }
  t->worst_regions = fmax(t->worst_regions, fmax(fabs(e2), fabs(e32)));
  t->chase_sum += fabs(ec);
  t->chase_worst = fmax(t->chase_worst, fabs(ec));
  t->gather_sum += fabs(eg);
  t->gather_worst = fmax(t->gather_worst, fabs(eg));
  t->rows++;
  return 0;
}

/* The summary, and with points every row, as one JSON document. */
static json_object *summary_doc(const machine_spec *spec, const validate_layout_opts *o, const tally *t,
                                uint64_t skipped, json_object *points) {
  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "csv", json_object_new_string(o->csv));
  json_object_object_add(doc, "preset", json_object_new_string(o->label));
  json_object_object_add(doc, "allocator", json_object_new_string(spec->vas_policy));
  json_object_object_add(doc, "rows", json_object_new_uint64(t->rows));
  json_object_object_add(doc, "skipped", json_object_new_uint64(skipped));
  json_object_object_add(doc, "regions_worst_error_pct", report_real(t->worst_regions));
  json_object_object_add(doc, "chase_mean_abs_error_pct", report_real(t->chase_sum / (double)t->rows));
  json_object_object_add(doc, "chase_worst_error_pct", report_real(t->chase_worst));
  json_object_object_add(doc, "gather_mean_abs_error_pct", report_real(t->gather_sum / (double)t->rows));
  json_object_object_add(doc, "gather_worst_error_pct", report_real(t->gather_worst));
  if (points) json_object_object_add(doc, "points", json_object_get(points));
  return doc;
}

int validate_layout(const machine_spec *spec, const validate_layout_opts *o) {
  int col[NCOLS];
  diag d;
  csv_table *t = csv_table_open(o->csv, col_names, col_required, col, NCOLS, &d);
  if (!t) return cli_input_error(&d);
  bool text = o->format == REPORT_TEXT;
  json_object *points = text ? NULL : json_object_new_array();
  if (text)
    printf("%-8s %-22s %6s %5s %-15s %7s %-13s %7s %7s %7s %7s %8s %8s %8s\n", "case", "source", "bufs", "t/SM",
           "2M gpu/model", "err", "32M gpu/model", "err", "chase", "model", "err", "loads/ns", "model", "err");
  layout l = {0};
  char built[512] = "", path[4096];
  char **f;
  unsigned long ln;
  tally sum = {0};
  uint64_t row = 0, skipped = 0, buffers;
  int got, rc = EXIT_OK;
  cli_progress line; /* rows printed to a terminal as they come are progress enough */
  cli_progress_start(&line, "validate", o->quiet || isatty(STDOUT_FILENO));
  while (rc == EXIT_OK && (got = csv_table_next(t, &f, &ln, &d)) == 1) {
    cli_progress_count(&line, row, 0, "rows read");
    /* a malformed count is not skipped: compare_row names it */
    if ((!num_parse_whole(f[col[C_BUFFERS]], &buffers) && buffers < o->min_nodes) ||
        row++ % (o->every ? o->every : 1)) {
      skipped++;
      continue;
    }
    char key[512];
    snprintf(key, sizeof key, "%s/%s", f[col[C_SOURCE]], f[col[C_CASE]]);
    layout_source src;
    layout_case c;
    if (layout_case_of(f[col[C_CASE]], &c)) {
      diag_set(&d, o->csv, ln, "case '%s' is not bufs, churned, fresh or pool", f[col[C_CASE]]);
      rc = cli_input_error(&d);
    } else if (find_source(f[col[C_SOURCE]], o->traces, path, sizeof path, &src)) {
      diag_set(&d, o->csv, ln, "no trace '%s' in %s (give --traces DIR)", f[col[C_SOURCE]], o->traces ? o->traces : ".");
      rc = cli_input_error(&d);
    } else if (strcmp(key, built)) { /* rows of one source and case share their layout */
      layout_free(&l);
      built[0] = '\0';
      if (layout_build(spec, &src, c, &l, &d)) rc = cli_input_error(&d);
      else snprintf(built, sizeof built, "%s", key);
    }
    if (rc == EXIT_OK && compare_row(spec, &l, f, col, ln, points, &sum, &d)) {
      char why[DIAG_MSG_MAX];
      snprintf(why, sizeof why, "%s", d.msg);
      diag_set(&d, o->csv, ln, "%s", why);
      rc = cli_input_error(&d);
    }
  }
  cli_progress_end(&line);
  if (rc == EXIT_OK && got < 0) rc = cli_input_error(&d);
  layout_free(&l);
  csv_table_close(t);
  if (rc == EXIT_OK && !sum.rows) rc = EXIT_INPUT, fprintf(stderr, "%s: no allocation rows to compare\n", o->csv);
  if (rc != EXIT_OK) {
    json_object_put(points);
    return rc;
  }
  double chase_mean = sum.chase_sum / (double)sum.rows, gather_mean = sum.gather_sum / (double)sum.rows;
  if (text)
    printf("\n%zu rows compared with preset %s (%s allocator; %llu skipped): regions within %.2f%%; chase mean %.2f%%, "
           "worst %.2f%%; gather mean %.2f%%, worst %.2f%%\n",
           sum.rows, o->label, spec->vas_policy, (unsigned long long)skipped, sum.worst_regions, chase_mean,
           sum.chase_worst, gather_mean, sum.gather_worst);
  else {
    json_object *doc = summary_doc(spec, o, &sum, skipped, o->format == REPORT_JSON ? points : NULL);
    report_write(stdout, (report_format)o->format, doc);
    json_object_put(doc);
  }
  json_object_put(points);
  if ((o->max_regions >= 0 && sum.worst_regions > o->max_regions) ||
      (o->max_chase >= 0 && sum.chase_worst > o->max_chase) || (o->max_gather >= 0 && sum.gather_worst > o->max_gather) ||
      (o->max_gather_mean >= 0 && gather_mean > o->max_gather_mean)) {
    fprintf(stderr, "%s: model error above the target (regions %.2f%%, chase %.2f%%, gather %.2f%%, gather mean %.2f%%)\n",
            o->csv, sum.worst_regions, sum.chase_worst, sum.gather_worst, gather_mean);
    return EXIT_INPUT;
  }
  return EXIT_OK;
}
