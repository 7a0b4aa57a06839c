/* Measured chase CSVs as validate and calibrate read them (chase_rows_load),
 * and the rows cheap enough to simulate re-run through chase_run on the
 * h200 preset, as validate does.
 *
 * Oracle: errors are one line naming the CSV; a kept row is one the
 * simulator accepts or refuses with one line, never a crash or a hang. */
#include <stdlib.h>
#include <string.h>

#include "chase_rows.h"
#include "fuzz.h"

/* Loads of a row re-run here; the bound on what validate accepts is larger. */
#define FUZZ_MAX_LOADS 65536

static uint64_t loads(const chase_spec *s) {
  uint64_t nodes = s->nodes ? s->nodes : s->footprint / s->stride;
  return (s->warmup > nodes ? s->warmup : nodes) + (uint64_t)s->repeats * s->steps;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_file f;
  if (fuzz_file_open(&f, data, size)) abort();
  chase_row_filter filter = {0};
  chase_row *rows;
  size_t n, skipped;
  diag d;
  if (chase_rows_load(f.path, &filter, &rows, &n, &skipped, &d)) {
    fuzz_check_diag(&d);
    if (strncmp(d.msg, f.path, strlen(f.path))) abort();
  }
  machine_spec spec;
  if (n) fuzz_preset_spec("h200", &spec);
  for (size_t i = 0; i < n; i++) {
    chase_result r;
    if (loads(&rows[i].spec) <= FUZZ_MAX_LOADS && rows[i].spec.nodes <= FUZZ_MAX_LOADS &&
        chase_run(&spec.format, &spec.sys, &rows[i].spec, &r, &d))
      fuzz_check_diag(&d);
  }
  free(rows);
  fuzz_file_close(&f);
  return 0;
}
