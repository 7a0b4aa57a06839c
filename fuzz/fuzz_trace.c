/* Trace readers (FUZZ_FORMAT: TRACE_NATIVE, TRACE_LACKEY, TRACE_DIN,
 * TRACE_BINARY, TRACE_CHAMPSIM or TRACE_AUTO) and the machine behind them: an input is read as a file, in
 * blocks, and every block replayed on the x86-64 preset, as `tlbsim run`
 * does. The per-record page limit is lowered so that no single input takes
 * long; the limit's own checks are what is exercised, not its size.
 *
 * Oracle: every error is one line naming the trace, and repeats on the next
 * call (trace_read_block's contract). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tlbsim/trace.h"

#ifndef FUZZ_FORMAT
#error FUZZ_FORMAT names the trace format
#endif

#define FUZZ_RECORD_PAGES 4096

static void expect_error(const diag *d, const char *name) {
  fuzz_check_diag(d);
  if (strncmp(d->msg, name, strlen(name))) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_file f;
  if (fuzz_file_open(&f, data, size)) abort();
  machine_spec spec;
  fuzz_preset_spec("x86-64", &spec);
  spec.max_record_pages = FUZZ_RECORD_PAGES;
  diag d;
  machine *m = machine_create(&spec, &d);
  trace_block *b = malloc(sizeof *b);
  if (!m || !b) abort();
  trace_reader *r = trace_open(f.path, FUZZ_FORMAT, &d);
  if (!r) {
    expect_error(&d, f.path);
  } else {
    int got;
    while ((got = trace_read_block(r, b, &d)) == 1) {
      if (b->n == 0 || b->n > TRACE_BLOCK_MAX || b->nother > TRACE_BLOCK_OTHER_MAX) abort();
      if (machine_run_block(m, b, trace_get_path(r), &d)) {
        expect_error(&d, f.path);
        break;
      }
    }
    if (got < 0) {
      expect_error(&d, f.path);
      diag again;
      if (trace_read_block(r, b, &again) != -1 || strcmp(again.msg, d.msg)) abort();
    }
    trace_close(r);
  }
  free(b);
  machine_destroy(m);
  fuzz_file_close(&f);
  return 0;
}
