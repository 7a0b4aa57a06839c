/* sim/cli/validate_tally.h — the errors of one `tlbsim validate` run over
 * kernel-model rows (embed, stream, latency chase), and its summary in the
 * format asked for.
 *
 * validate_tally  the rows compared so far: their absolute errors' sum and
 *                 the worst one with its line, and under --format json every
 *                 row's point (the caller builds it; text rows the caller
 *                 prints itself, as it computes them, so a long run shows
 *                 progress). The summary's keys are the other validate
 *                 summaries' (docs/OUTPUT.md): csv, preset, rows, skipped,
 *                 mean_abs_error_pct, worst_error_pct, worst_line, points.
 */
#ifndef TLBSIM_CLI_VALIDATE_TALLY_H
#define TLBSIM_CLI_VALIDATE_TALLY_H

#include <json-c/json.h>
#include <stddef.h>

#include "tlbsim/report.h"

typedef struct validate_tally {
  report_format format;
  json_object *points; /* json: every point, in order; else NULL */
  size_t rows, skipped;      /* compared; left out by the filters (the caller sets it) */
  double sum, worst;        /* absolute errors, percent */
  unsigned long worst_line; /* of the measured CSV */
} validate_tally;

void validate_tally_start(validate_tally *t, report_format f);
/* One compared row: its signed error in percent; point (json only, taken;
 * NULL otherwise) gets error_pct added. */
void validate_tally_add(validate_tally *t, double err_pct, unsigned long line, json_object *point);
/* The summary (text: "N WHAT rows compared with preset P (UNIT): mean ...,
 * worst ... (line L)"; json, csv: the document), then the --max-mean-error
 * and --max-error-pct targets (< 0: none): the exit status. No row compared
 * is an input error. Frees what t holds. */
int validate_tally_finish(validate_tally *t, const char *csv, const char *label, const char *what, const char *unit,
                          double max_mean, double max_pct);
void validate_tally_free(validate_tally *t);

#endif
