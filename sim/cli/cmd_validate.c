/* tlbsim validate — re-simulate every row of a measured chase CSV and
 * report the model's error per row and overall. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chase_rows.h"
#include "validate_capture.h"
#include "validate_gather.h"
#include "validate_layout.h"
#include "validate_uvm.h"
#include "validate_kernel.h"
#include "validate_kmicro.h"
#include "overlay.h"
#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/chase.h"
#include "tlbsim/machine.h"
#include "tlbsim/report.h"


typedef struct validate_opts {
  cli_config conf;
  int data_latency; /* 1: ignore the measured base_cycles column */
  int format;       /* report_format */
  const char *plot, *csv;
  chase_row_filter filter;
  double max_mean, max_cycles, max_pct, max_regions, max_chase, max_translation, min_translation;
  uint64_t min_threads_per_sm, every;
  const char *traces;
  unsigned uvm_columns;
  bool quiet;
  uint64_t groups;
} validate_opts;

static int parse_validate(int argc, char **argv, validate_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      CHASE_ROW_OPTS(&o->filter, &o->data_latency),
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "text (default: every row, then the summary), json (the summary and every\n"
               "row) or csv (the summary as one row)"},
      {.name = "plot", .kind = OPT_TEXT, .dest = &o->plot, .arg = "FILE.png",
       .help = "gnuplot overlay: measured points, predicted lines, a panel per mapping/order"},
      {.name = "max-mean-error", .kind = OPT_REAL, .dest = &o->max_mean, .arg = "PCT", .rhi = HUGE_VAL,
       .help = "exit 1 when the mean absolute error exceeds PCT (allocation rows: the gather's)"},
      {.name = "max-error-cycles", .kind = OPT_REAL, .dest = &o->max_cycles, .arg = "C", .rhi = HUGE_VAL,
       .help = "exit 1 when any row is off by more than C cycles (chase rows)"},
      {.name = "min-translation", .kind = OPT_REAL, .dest = &o->min_translation, .arg = "C", .rhi = HUGE_VAL,
       .help = "chase rows: the translation figure's rows, those whose measured translation\n"
               "(cycles - base_cycles) is more than C cycles (default 20)"},
      {.name = "max-translation-error", .kind = OPT_REAL, .dest = &o->max_translation, .arg = "PCT", .rhi = HUGE_VAL,
       .help = "exit 1 when the translation cost's mean absolute error over those rows exceeds PCT"},
      {.name = "max-error-pct", .kind = OPT_REAL, .dest = &o->max_pct, .arg = "PCT", .rhi = HUGE_VAL,
       .help = "exit 1 when any row is off by more than PCT percent (gather and kernel rows;\n"
               "allocation rows: any gather)"},
      {.name = "min-threads-per-sm", .kind = OPT_WHOLE, .dest = &o->min_threads_per_sm, .arg = "N",
       .help = "gather rows: only those with at least N threads per SM"},
      {.name = "every", .kind = OPT_WHOLE, .dest = &o->every, .arg = "N", .lo = 1, .hi = 1000000,
       .help = "re-run every Nth of the rows kept (a sample; default 1: all)"},
      {.name = "traces", .kind = OPT_TEXT, .dest = &o->traces, .arg = "DIR",
       .help = "churn-gather rows: where their source traces are (NAME or NAME.gz)"},
      {.name = "max-region-error", .kind = OPT_REAL, .dest = &o->max_regions, .arg = "PCT", .rhi = HUGE_VAL,
       .help = "allocation rows: exit 1 when a 2 MiB or 32 MiB region count is off by more"},
      {.name = "max-chase-error", .kind = OPT_REAL, .dest = &o->max_chase, .arg = "PCT", .rhi = HUGE_VAL,
       .help = "allocation rows: exit 1 when a chase is off by more than PCT percent"},
      {.name = "groups", .kind = OPT_WHOLE, .dest = &o->groups, .arg = "N", .lo = 0, .hi = 64,
       .help = "kernel rows: simulate the SMs of N L2-TLB groups, the GPU-wide stages at their share\n"
               "(0: every SM; default 4)"},
      {.name = "columns", .kind = OPT_CHOICES, .dest = &o->uvm_columns, .arg = "LIST",
       .choices = validate_uvm_column_names,
       .help = "prefetch_ms, cold_ms, stream_ms, stream_gbps, gather_lpns or gather2_lpns (default\n"
               "all): uvm rows: compare only these columns; --max-mean-error applies to each"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "validate", .usage = "[OPTIONS] MEASURED.csv|CAPTURE.trace", .operands = "MEASURED.csv", .min_operands = 1,
      .max_operands = 1,
      .about = "Re-simulates each row of MEASURED.csv (tlbsim-gpu's schema) with the preset (default h200)\n"
               "and prints measured vs predicted, the error, then the mean absolute % error and the worst\n"
               "point. Chase rows: cycles per access, through the MMU model, and the error of the\n"
               "translation cost alone (predicted - base against measured - base) over the rows whose\n"
               "translation costs more than --min-translation cycles. Gather rows (a CSV of\n"
               "tlbsim-gpu gather): loads per ns, through the concurrency model of the preset's [gpu]\n"
               "section. Allocation rows (tlbsim-gpu churn-gather and smallbufs): the layout the history\n"
               "leaves under the preset's allocator, its regions, chase and gather. Managed-memory rows\n"
               "(tlbsim-gpu uvm): each timed column through the managed-memory model (tlbsim uvm). Kernel\n"
               "rows (tlbsim-gpu embed): lookups per ns, the kernel rebuilt in memory and predicted by the\n"
               "kernel model (tlbsim kernel; --groups). Stream rows (tlbsim-gpu stream: GB/s) and\n"
               "latency-chase rows (dram-chase, l2-chase: cycles per access) the same way, the suite's\n"
               "kernel made in memory as its trace would hold it (--groups for streams; a chase runs on\n"
               "every SM's share). Rows of mappings the simulator does not know and rows outside the\n"
               "filters are skipped and counted. A capture (libtlbsim-capture's native trace): each\n"
               "allocation's recorded address (va=) against where the cuda, caching and expandable\n"
               "models place it: offsets, allocations placed exactly, regions touched.",
      .notes = "Rows of several lanes or of L1-caching loads (load != cg) are skipped: the model is one\n"
               "thread's ld.global.cg chase. A machine file of tlbsim calibrate goes over the preset:\n"
               "--preset h200 --config MACHINE.ini.\n",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->csv = argv[first];
  return 0;
}

/* One row of the comparison table. */
static void print_row(const chase_row *r, double predicted) {
  char fp[32], st[32];
  double err = predicted - r->measured;
  printf("%10s %8s %6s %-10s %7u %9.1f %9.1f %+8.1f %+7.2f%%\n", num_format_size(r->spec.footprint, fp, sizeof fp),
         num_format_size(r->spec.stride, st, sizeof st), chase_order_name(r->spec.order),
         region_mapping_names[r->spec.mapping], r->spec.nodes, r->measured, predicted, err, 100.0 * err / r->measured);
}

static int write_plot(const char *png, const char *csv_name, const chase_row *rows, const double *predicted,
                      size_t n, diag *d);

/* Re-simulates every row; predicted[i] gets row i's cycles per access and
 * base[i] the data latency in it. The model predicts translation: a row's
 * measured data latency, when present, stands for the preset's single
 * data_cycles. */
static int predict(const pt_format *f, const system_spec *sys, const chase_row *rows, size_t n, bool preset_latency,
                   const char *csv, bool quiet, double *predicted, double *base, diag *d) {
  cli_progress line;
  cli_progress_start(&line, "validate", quiet);
  for (size_t i = 0; i < n; i++) {
    cli_progress_count(&line, i, n, "rows");
    chase_result r;
    if (chase_run(f, sys, &rows[i].spec, &r, d)) {
      char why[DIAG_MSG_MAX];
      snprintf(why, sizeof why, "%s", d->msg);
      cli_progress_end(&line);
      return diag_set(d, csv, rows[i].line, "%s", why);
    }
    bool measured = rows[i].base > 0 && !preset_latency;
    base[i] = measured ? rows[i].base : sys->mem.data_cycles;
    predicted[i] = r.cycles_per_access - sys->mem.data_cycles + base[i];
  }
  cli_progress_end(&line);
  return 0;
}

/* The errors over the rows: of cycles per access (every row), and of the
 * translation cost alone (cycles - base) over the rows whose measured
 * translation is more than min_translation cycles: the figure that says how
 * good the translation model is, undiluted by the rows where translation
 * costs next to nothing. */
typedef struct chase_tally {
  size_t n, worst_i;
  double mean_pct, worst;
  size_t tn, tworst_i;
  double tmean_pct, tworst_pct;
} chase_tally;

static chase_tally tally_rows(const chase_row *rows, const double *predicted, const double *base, size_t n,
                              double min_translation) {
  chase_tally t = {.n = n};
  double sum = 0, tsum = 0;
  for (size_t i = 0; i < n; i++) {
    double err = fabs(predicted[i] - rows[i].measured);
    sum += 100.0 * err / rows[i].measured;
    if (err >= t.worst) t.worst = err, t.worst_i = i;
    double measured_t = rows[i].measured - base[i];
    if (measured_t <= min_translation) continue;
    double pct = 100.0 * err / measured_t; /* predicted - base against measured - base */
    tsum += pct;
    if (pct >= t.tworst_pct) t.tworst_pct = pct, t.tworst_i = i;
    t.tn++;
  }
  t.mean_pct = n ? sum / (double)n : 0;
  t.tmean_pct = t.tn ? tsum / (double)t.tn : 0;
  return t;
}

static void add_row_id(json_object *o, const chase_row *r) {
  json_object_object_add(o, "line", json_object_new_uint64(r->line));
  json_object_object_add(o, "footprint_bytes", json_object_new_uint64(r->spec.footprint));
  json_object_object_add(o, "stride_bytes", json_object_new_uint64(r->spec.stride));
  json_object_object_add(o, "order", json_object_new_string(chase_order_name(r->spec.order)));
  json_object_object_add(o, "mapping", json_object_new_string(region_mapping_names[r->spec.mapping]));
}

/* The summary (and with points, every row) as one JSON document. */
static json_object *chase_doc(const validate_opts *o, const char *label, const chase_row *rows, const double *predicted,
                              const double *base, size_t skipped, const chase_tally *t, bool points) {
  json_object *doc = json_object_new_object(), *worst = json_object_new_object(), *tr = json_object_new_object();
  json_object_object_add(doc, "csv", json_object_new_string(o->csv));
  json_object_object_add(doc, "preset", json_object_new_string(label));
  json_object_object_add(doc, "rows", json_object_new_uint64(t->n));
  json_object_object_add(doc, "skipped", json_object_new_uint64(skipped));
  json_object_object_add(doc, "mean_abs_error_pct", report_real(t->mean_pct));
  json_object_object_add(doc, "worst_error_cycles", report_real(t->worst));
  if (t->n) add_row_id(worst, &rows[t->worst_i]);
  json_object_object_add(doc, "worst", worst);
  json_object_object_add(tr, "min_cycles", report_real(o->min_translation));
  json_object_object_add(tr, "rows", json_object_new_uint64(t->tn));
  json_object_object_add(tr, "mean_abs_error_pct", report_real(t->tmean_pct));
  json_object_object_add(tr, "worst_error_pct", report_real(t->tworst_pct));
  json_object *tworst = json_object_new_object();
  if (t->tn) add_row_id(tworst, &rows[t->tworst_i]);
  json_object_object_add(tr, "worst", tworst);
  json_object_object_add(doc, "translation", tr);
  if (!points) return doc;
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < t->n; i++) {
    json_object *r = json_object_new_object();
    add_row_id(r, &rows[i]);
    json_object_object_add(r, "nodes", json_object_new_uint64(rows[i].spec.nodes));
    json_object_object_add(r, "measured_cycles", report_real(rows[i].measured));
    json_object_object_add(r, "predicted_cycles", report_real(predicted[i]));
    json_object_object_add(r, "base_cycles", report_real(base[i]));
    json_object_array_add(arr, r);
  }
  json_object_object_add(doc, "points", arr);
  return doc;
}

static void print_summary(const char *label, const chase_row *rows, size_t skipped, const chase_tally *t,
                          double min_translation) {
  char fp[32], st[32];
  printf("\n%zu rows compared with preset %s (%zu skipped); mean absolute error %.3f%%; worst point %.1f cycles",
         t->n, label, skipped, t->mean_pct, t->worst);
  if (t->n) {
    const chase_spec *w = &rows[t->worst_i].spec;
    printf(" (%s, stride %s, %s, %s)", num_format_size(w->footprint, fp, sizeof fp),
           num_format_size(w->stride, st, sizeof st), chase_order_name(w->order), region_mapping_names[w->mapping]);
  }
  printf("\ntranslation alone (predicted - base against measured - base), %zu rows where it is more than %g "
         "cycles: mean absolute error %.2f%%, worst %.2f%%",
         t->tn, min_translation, t->tmean_pct, t->tworst_pct);
  if (t->tn) {
    const chase_spec *w = &rows[t->tworst_i].spec;
    printf(" (%s, stride %s, %s, %s)", num_format_size(w->footprint, fp, sizeof fp),
           num_format_size(w->stride, st, sizeof st), chase_order_name(w->order), region_mapping_names[w->mapping]);
  }
  printf("\n");
}

static int validate_chase(const machine_spec *spec, const char *label, validate_opts *o) {
  chase_row *rows;
  size_t n, skipped;
  double *predicted = NULL, *base = NULL;
  diag d;
  o->filter.every = o->every;
  if (chase_rows_load(o->csv, &o->filter, &rows, &n, &skipped, &d)) return cli_input_error(&d);
  for (size_t i = 0; i < n; i++) rows[i].history.uvm = &spec->uvm; /* the preset's [uvm] rules */
  predicted = malloc((n ? n : 1) * sizeof *predicted);
  base = malloc((n ? n : 1) * sizeof *base);
  if (!predicted || !base || predict(&spec->format, &spec->sys, rows, n, o->data_latency == 1, o->csv, o->quiet, predicted,
                                          base, &d)) {
    if (!predicted || !base) diag_set(&d, o->csv, 0, "out of memory");
    chase_rows_free(rows, n);
    free(predicted);
    free(base);
    return cli_input_error(&d);
  }
  chase_tally t = tally_rows(rows, predicted, base, n, o->min_translation);
  if (o->format == REPORT_TEXT) {
    printf("%10s %8s %6s %-10s %7s %9s %9s %8s %8s\n", "footprint", "stride", "order", "mapping", "nodes", "measured",
           "predicted", "cycles", "error");
    for (size_t i = 0; i < n; i++) print_row(&rows[i], predicted[i]);
    print_summary(label, rows, skipped, &t, o->min_translation);
  } else {
    json_object *doc = chase_doc(o, label, rows, predicted, base, skipped, &t, o->format == REPORT_JSON);
    report_write(stdout, (report_format)o->format, doc);
    json_object_put(doc);
  }
  int rc = EXIT_OK;
  if (o->plot && write_plot(o->plot, o->csv, rows, predicted, n, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && n == 0) rc = EXIT_INPUT, fprintf(stderr, "%s: no chase rows to compare\n", o->csv);
  if (rc == EXIT_OK && ((o->max_mean >= 0 && t.mean_pct > o->max_mean) || (o->max_cycles >= 0 && t.worst > o->max_cycles) ||
                        (o->max_translation >= 0 && t.tmean_pct > o->max_translation))) {
    fprintf(stderr, "%s: model error above the target (mean %.3f%%, worst %.1f cycles; translation mean %.2f%%)\n",
            o->csv, t.mean_pct, t.worst, t.tmean_pct);
    rc = EXIT_INPUT;
  }
  chase_rows_free(rows, n);
  free(predicted);
  free(base);
  return rc;
}

int cmd_validate(int argc, char **argv) {
  validate_opts o = {.groups = 4, .max_mean = -1, .max_cycles = -1, .max_pct = -1, .max_regions = -1,
                     .max_chase = -1, .max_translation = -1, .min_translation = 20, .every = 1};
  int rc = parse_validate(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine_spec spec;
  cfg *c = cli_load_spec(&o.conf, "h200", &label, &spec, &d);
  if (!c) return cli_input_error(&d);
  if (validate_capture_sniff(o.csv)) {
    validate_capture_opts co = {.path = o.csv, .label = label, .format = o.format};
    rc = validate_capture(&spec, &co);
    cfg_destroy(c);
    return rc;
  }
  if (validate_kernel_sniff(o.csv)) {
    validate_kernel_opts ko = {.csv = o.csv, .label = label, .every = o.every, .groups = o.groups,
                               .max_mean = o.max_mean, .max_pct = o.max_pct, .format = o.format};
    rc = validate_kernel(&spec, &ko);
    cfg_destroy(c);
    return rc;
  }
  kmicro_kind micro = validate_kmicro_sniff(o.csv);
  if (micro != KMICRO_NONE) {
    validate_kmicro_opts mo = {.csv = o.csv, .label = label, .every = o.every, .groups = (uint32_t)o.groups,
                               .min_footprint = o.filter.min_footprint,
                               .max_mean = o.max_mean, .max_pct = o.max_pct, .format = o.format};
    rc = validate_kmicro(&spec, micro, &mo);
    cfg_destroy(c);
    return rc;
  }
  if (validate_uvm_sniff(o.csv)) {
    validate_uvm_opts uo = {.csv = o.csv, .label = label, .columns = o.uvm_columns, .every = o.every,
                            .max_mean = o.max_mean, .format = o.format, .quiet = o.quiet};
    rc = validate_uvm(&spec, &uo);
    cfg_destroy(c);
    return rc;
  }
  if (validate_layout_sniff(o.csv)) {
    validate_layout_opts lo = {.csv = o.csv, .label = label, .traces = o.traces, .format = o.format,
                               .max_regions = o.max_regions, .max_chase = o.max_chase, .max_gather = o.max_pct,
                               .max_gather_mean = o.max_mean, .min_nodes = o.filter.min_nodes, .every = o.every, .quiet = o.quiet};
    rc = validate_layout(&spec, &lo);
  } else if (gather_rows_sniff(o.csv)) {
    validate_gather_opts g = {.csv = o.csv, .label = label, .plot = o.plot, .format = o.format,
                              .max_mean = o.max_mean, .max_pct = o.max_pct, .quiet = o.quiet,
                              .filter = {.min_threads_per_sm = o.min_threads_per_sm, .mappings = o.filter.mappings,
                                         .every = o.every}};
    rc = validate_gather(&spec, &g);
  } else {
    rc = validate_chase(&spec, label, &o);
  }
  cfg_destroy(c);
  return rc;
}

/* Measured points and predicted lines: one panel per mapping/order present,
 * one colour per stride, x = footprint (log), y = cycles. */
enum { PLOT_PANELS = (REGION_MANAGED + 1) * 2, PLOT_STRIDES = 64 };

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The colour of a stride: its rank among the rows' strides. */
static unsigned stride_colour(const uint64_t *strides, size_t n, uint64_t s) {
  const uint64_t *p = bsearch(&s, strides, n, sizeof *strides, cmp_u64);
  return p ? (unsigned)(p - strides) + 1 : 1;
}

static int write_plot(const char *png, const char *csv_name, const chase_row *rows, const double *predicted,
                      size_t n, diag *d) {
  uint64_t strides[PLOT_STRIDES] = {0};
  size_t nstrides = 0;
  bool present[PLOT_PANELS] = {false};
  for (size_t i = 0; i < n; i++) {
    present[rows[i].spec.mapping * 2 + rows[i].spec.order] = true;
    bool known = false;
    for (size_t j = 0; j < nstrides && !known; j++) known = strides[j] == rows[i].spec.stride;
    if (!known && nstrides < PLOT_STRIDES) strides[nstrides++] = rows[i].spec.stride;
  }
  qsort(strides, nstrides, sizeof *strides, cmp_u64);
  overlay_data od;
  if (overlay_data_open(&od, d)) return -1;
  /* One block per panel (mapping/order); a blank line between strides
   * breaks the predicted line there. Rows come stride-major from
   * tlbsim-gpu. */
  char panels[PLOT_PANELS * 24] = "", colours[PLOT_STRIDES * 12] = "";
  for (int k = 0; k < PLOT_PANELS; k++) {
    if (!present[k]) continue;
    size_t len = strlen(panels);
    snprintf(panels + len, sizeof panels - len, "%s%s/%s", len ? " " : "", region_mapping_names[(region_mapping)(k / 2)],
             k % 2 ? "random" : "seq");
    uint64_t last_stride = 0;
    for (size_t i = 0; i < n; i++) {
      const chase_spec *s = &rows[i].spec;
      if ((int)(s->mapping * 2 + s->order) != k) continue;
      if (last_stride && s->stride != last_stride) fputc('\n', od.f);
      last_stride = s->stride;
      fprintf(od.f, "%llu %u %.3f %.3f\n", (unsigned long long)s->footprint, stride_colour(strides, nstrides, s->stride),
              rows[i].measured, predicted[i]);
    }
    fputs("\n\n", od.f);
  }
  for (size_t j = 0; j < nstrides; j++) {
    char size[32];
    size_t len = strlen(colours);
    snprintf(colours + len, sizeof colours - len, "%s%s", j ? " " : "", num_format_size(strides[j], size, sizeof size));
  }
  const overlay o = {.png = png, .input = csv_name, .title = "cycles per access", .colour_title = "stride",
                     .xtics = "('1M' 2**20, '32M' 2**25, '1G' 2**30, '32G' 2**35, '256G' 2**38, '1T' 2**40, '4T' 2**42)",
                     .ylabel = "cycles per access", .panels = panels, .colours = colours};
  return overlay_plot(&o, &od, d);
}
