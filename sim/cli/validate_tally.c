/* The summary of a validate run over kernel-model rows (validate_tally.h). */
#include "validate_tally.h"

#include <math.h>
#include <stdio.h>

#include "cmds.h"

void validate_tally_start(validate_tally *t, report_format f) {
  *t = (validate_tally){.format = f, .points = f == REPORT_JSON ? json_object_new_array() : NULL};
}

void validate_tally_add(validate_tally *t, double err_pct, unsigned long line, json_object *point) {
  if (point) {
    json_object_object_add(point, "error_pct", report_real(err_pct));
    json_object_array_add(t->points, point);
  }
  t->rows++;
  t->sum += fabs(err_pct);
  if (fabs(err_pct) >= t->worst) t->worst = fabs(err_pct), t->worst_line = line;
}

void validate_tally_free(validate_tally *t) {
  json_object_put(t->points);
  t->points = NULL;
}

static void write_summary(validate_tally *t, const char *csv, const char *label, const char *what, const char *unit,
                          double mean) {
  if (t->format == REPORT_TEXT) {
    printf("\n%zu %s rows compared with preset %s (%s): mean absolute error %.2f%%, worst %.2f%% (line %lu)\n",
           t->rows, what, label, unit, mean, t->worst, t->worst_line);
    return;
  }
  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "csv", json_object_new_string(csv));
  json_object_object_add(doc, "preset", json_object_new_string(label));
  json_object_object_add(doc, "rows", json_object_new_uint64(t->rows));
  json_object_object_add(doc, "skipped", json_object_new_uint64(t->skipped));
  json_object_object_add(doc, "mean_abs_error_pct", report_real(mean));
  json_object_object_add(doc, "worst_error_pct", report_real(t->worst));
  json_object_object_add(doc, "worst_line", json_object_new_uint64(t->worst_line));
  if (t->points) json_object_object_add(doc, "points", t->points), t->points = NULL;
  report_write(stdout, t->format, doc);
  json_object_put(doc);
}

int validate_tally_finish(validate_tally *t, const char *csv, const char *label, const char *what, const char *unit,
                          double max_mean, double max_pct) {
  if (!t->rows) {
    validate_tally_free(t);
    return fprintf(stderr, "%s: no %s rows to compare\n", csv, what), EXIT_INPUT;
  }
  double mean = t->sum / (double)t->rows;
  write_summary(t, csv, label, what, unit, mean);
  validate_tally_free(t);
  int rc = EXIT_OK;
  if (max_mean >= 0 && mean > max_mean)
    fprintf(stderr, "%s: model error above the target (mean %.2f%% > %.2f%%)\n", csv, mean, max_mean), rc = EXIT_INPUT;
  if (max_pct >= 0 && t->worst > max_pct)
    fprintf(stderr, "%s: a row off by more than the target (%.2f%% > %.2f%%, line %lu)\n", csv, t->worst, max_pct,
            t->worst_line),
        rc = EXIT_INPUT;
  return rc;
}
