/* trace_ahead_none.c — the browser build's trace_ahead.h: no threads, so
 * never a fill thread; the reader fills its blocks in the caller's calls. */
#include "trace_ahead.h"

bool trace_ahead_wanted(unsigned jobs) {
  (void)jobs;
  return false;
}

trace_ahead *trace_ahead_start(trace_fill_fn *fill, void *ctx) {
  (void)fill, (void)ctx;
  return NULL;
}

/* Never called: start gives no ring. */
int trace_ahead_take(trace_ahead *a, trace_block **b, bool swap, diag *d, uint64_t *bytes) {
  (void)a, (void)b, (void)swap, (void)bytes;
  return diag_set(d, NULL, 0, "no fill thread in this build");
}

void trace_ahead_stop(trace_ahead *a) { (void)a; }
