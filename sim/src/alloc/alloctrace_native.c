/* The native trace format's alloc and free records (traces/FORMAT.md), read
 * through the trace module; every other record is skipped. Native traces
 * are complete, so a free of an id that is not live is an error. */
#include <stdlib.h>

#include "alloctrace_impl.h"
#include "tlbsim/trace.h"

static void native_close(alloctrace *t) { trace_close(t->impl); }

static int native_next(alloctrace *t, alloctrace_event *ev, diag *d) {
  trace_record rec;
  int got;
  while ((got = trace_next(t->impl, &rec, d)) == 1) {
    *ev = (alloctrace_event){.size = rec.size, .align = rec.align, .time_us = rec.line, .index = rec.line};
    if (rec.kind == REC_ALLOC) {
      ev->kind = AT_ALLOC;
      if (at_stream(t, rec.stream, &ev->stream))
        return diag_set(d, t->path, rec.line, "more than %d streams", AT_MAX_STREAMS);
      diag why;
      if (at_name_alloc(t, rec.alloc_id, &ev->id, &why)) return diag_set(d, t->path, rec.line, "%s", why.msg);
      return 1;
    }
    if (rec.kind == REC_FREE) {
      ev->kind = AT_FREE;
      if (!at_name_free(t, rec.alloc_id, &ev->id))
        return diag_set(d, t->path, rec.line, "free of allocation %llu, which is not live",
                        (unsigned long long)rec.alloc_id);
      return 1;
    }
    t->info.skipped++;
  }
  return got;
}

static const at_source native_source = {native_next, native_close};

int at_open_native(alloctrace *t, diag *d) {
  trace_reader *r = trace_open_jobs(t->path[0] == '<' ? "-" : t->path, TRACE_NATIVE, t->jobs, d);
  if (!r) return -1;
  t->impl = r;
  t->src = &native_source;
  return 0;
}
