/* validate on gather rows: predicted loads per ns against measured. */
#include "validate_gather.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "tlbsim/gdev.h"
#include "cli_progress.h"
#include "overlay.h"
#include "cmds.h"
#include "tlbsim/report.h"

static void print_row(const gather_row *r, double predicted) {
  char fp[32];
  double err = 100.0 * (predicted - r->measured) / r->measured;
  printf("%10s %6u %-10s %-14.14s %9.3f %9.3f %+8.2f%%\n", num_format_size(r->spec.region.nodes * r->spec.region.stride, fp, sizeof fp),
         r->spec.threads_per_sm, region_mapping_names[r->spec.region.mapping], r->sm_set, r->measured, predicted, err);
}

/* Loads per ns against footprint, log-log: measured points and predicted
 * lines, a colour per threads-per-SM, a panel per mapping. */
static int write_plot(const char *png, const char *csv_name, const gather_row *rows, const double *predicted,
                      size_t n, diag *d) {
  overlay_data od;
  if (overlay_data_open(&od, d)) return -1;
  char panels[256] = "";
  for (int m = 0; region_mapping_names[m]; m++) {
    bool any = false;
    for (size_t i = 0; i < n; i++) any |= (int)rows[i].spec.region.mapping == m;
    if (!any) continue;
    size_t len = strlen(panels);
    snprintf(panels + len, sizeof panels - len, "%s%s", len ? " " : "", region_mapping_names[m]);
    for (uint32_t tps = 32; tps <= 2048; tps *= 2) {
      bool block = false;
      for (size_t i = 0; i < n; i++) {
        const gather_spec *s = &rows[i].spec;
        if ((int)s->region.mapping != m || s->threads_per_sm != tps || s->pinned) continue;
        fprintf(od.f, "%llu %u %.4f %.4f\n", (unsigned long long)s->region.nodes * s->region.stride,
                (unsigned)log2_u64(tps) - 4, rows[i].measured, predicted[i]);
        block = true;
      }
      if (block) fputc('\n', od.f);
    }
    fputs("\n\n", od.f);
  }
  const overlay o = {.png = png, .input = csv_name, .title = "loads per ns", .colour_title = "threads per SM",
                     .xtics = "('256M' 2**28, '1G' 2**30, '4G' 2**32, '16G' 2**34, '64G' 2**36, '256G' 2**38, "
                              "'1T' 2**40, '4T' 2**42)",
                     .ylabel = "loads per ns (whole GPU)", .logy = true, .panels = panels,
                     .colours = "32 64 128 256 512 1024 2048"};
  return overlay_plot(&o, &od, d);
}

static json_object *gather_point(const gather_row *r, double predicted) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "line", json_object_new_uint64(r->line));
  json_object_object_add(o, "footprint_bytes", json_object_new_uint64((uint64_t)r->spec.region.nodes * r->spec.region.stride));
  json_object_object_add(o, "threads_per_sm", json_object_new_uint64(r->spec.threads_per_sm));
  json_object_object_add(o, "mapping", json_object_new_string(region_mapping_names[r->spec.region.mapping]));
  json_object_object_add(o, "sm_set", json_object_new_string(r->sm_set));
  json_object_object_add(o, "measured_loads_per_ns", report_real(r->measured));
  json_object_object_add(o, "predicted_loads_per_ns", report_real(predicted));
  return o;
}

int validate_gather(const machine_spec *spec, const validate_gather_opts *o) {
  diag d;
  gather_row *rows = NULL;
  size_t n, skipped;
  if (!spec->gpu.sms) {
    fprintf(stderr, "%s: preset %s has no [gpu] section for the concurrency model\n", o->csv, o->label);
    return EXIT_INPUT;
  }
  gdev_levels lv;
  if (gdev_path(&spec->sys.mmu, &lv, &d) ||
      gather_rows_load(o->csv, &o->filter, &spec->gpu, lv.group_sms, &rows, &n, &skipped, &d))
    return cli_input_error(&d);
  double *predicted = malloc((n ? n : 1) * sizeof *predicted);
  if (!predicted) {
    free(rows);
    return fprintf(stderr, "%s: out of memory\n", o->csv), EXIT_INPUT;
  }
  bool text = o->format == REPORT_TEXT;
  if (text)
    printf("%10s %6s %-10s %-14s %9s %9s %9s\n", "footprint", "thr/SM", "mapping", "SMs", "measured", "predicted",
           "error");
  double sum = 0, worst = 0;
  size_t worst_i = 0;
  cli_progress line; /* rows printed to a terminal as they come are progress enough */
  cli_progress_start(&line, "validate", o->quiet || (text && isatty(STDOUT_FILENO)));
  json_object *points = json_object_new_array();
  for (size_t i = 0; i < n; i++) {
    cli_progress_count(&line, i, n, "rows");
    gather_result r;
    if (gather_run(&spec->format, &spec->sys, &spec->gpu, &rows[i].spec, &r, &d)) {
      cli_progress_end(&line);
      fprintf(stderr, "%s:%lu: %s\n", o->csv, rows[i].line, d.msg);
      json_object_put(points);
      free(rows);
      free(predicted);
      return EXIT_INPUT;
    }
    predicted[i] = r.loads_per_ns;
    if (text) print_row(&rows[i], predicted[i]);
    else json_object_array_add(points, gather_point(&rows[i], predicted[i]));
    double err = 100.0 * fabs(predicted[i] - rows[i].measured) / rows[i].measured;
    sum += err;
    if (err >= worst) worst = err, worst_i = i;
  }
  cli_progress_end(&line);
  double mean = n ? sum / (double)n : 0;
  if (text) {
    printf("\n%zu gather rows compared with preset %s (%zu skipped); mean absolute error %.2f%%; worst %.2f%%", n,
           o->label, skipped, mean, worst);
    if (n) printf(" (line %lu)", rows[worst_i].line);
    printf("\n");
    json_object_put(points);
  } else {
    json_object *doc = json_object_new_object();
    json_object_object_add(doc, "csv", json_object_new_string(o->csv));
    json_object_object_add(doc, "preset", json_object_new_string(o->label));
    json_object_object_add(doc, "rows", json_object_new_uint64(n));
    json_object_object_add(doc, "skipped", json_object_new_uint64(skipped));
    json_object_object_add(doc, "mean_abs_error_pct", report_real(mean));
    json_object_object_add(doc, "worst_error_pct", report_real(worst));
    json_object_object_add(doc, "worst_line", json_object_new_uint64(n ? rows[worst_i].line : 0));
    if (o->format == REPORT_JSON) json_object_object_add(doc, "points", points);
    else json_object_put(points);
    report_write(stdout, (report_format)o->format, doc);
    json_object_put(doc);
  }
  int rc = EXIT_OK;
  if (o->plot && write_plot(o->plot, o->csv, rows, predicted, n, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && n == 0) rc = EXIT_INPUT, fprintf(stderr, "%s: no gather rows to compare\n", o->csv);
  if (rc == EXIT_OK && ((o->max_mean >= 0 && mean > o->max_mean) || (o->max_pct >= 0 && worst > o->max_pct))) {
    fprintf(stderr, "%s: model error above the target (mean %.2f%%, worst %.2f%%)\n", o->csv, mean, worst);
    rc = EXIT_INPUT;
  }
  free(rows);
  free(predicted);
  return rc;
}
