/* The native trace format's alloc and free records (traces/FORMAT.md), read
 * through the trace module; every other record is skipped. Native traces
 * are complete, so a free of an id that is not live is an error. A
 * capture's allocations keep their recorded address (va=, for the
 * "recorded" policy) and time (t=); its managed, host and pinned ones are
 * not device memory a policy places, and are skipped. Asked to
 * (alloctrace_want_marks), marks and meminfo samples come out too: what
 * the driver-time model and the free-memory comparison read. */
#include <stdlib.h>
#include <string.h>

#include "alloctrace_impl.h"
#include "tlbsim/trace.h"

/* The reader, and by dense id which live allocations are not device
 * memory (skipped, and their frees with them). */
typedef struct native_src {
  trace_reader *r;
  char label[TRACE_LABEL_MAX]; /* the last mark's, for its event */
  uint8_t *other;
  uint64_t nother;
} native_src;

static void native_close(alloctrace *t) {
  native_src *n = t->impl;
  trace_close(n->r);
  free(n->other);
  free(n);
}

/* Marks (on) or clears id as not device memory: -1 when host memory ran out. */
static int mark_other(native_src *n, uint64_t id, bool on) {
  if (id >= n->nother) {
    if (!on) return 0;
    uint64_t cap = n->nother ? n->nother : 1024;
    while (cap <= id) cap *= 2;
    uint8_t *grown = realloc(n->other, cap);
    if (!grown) return -1;
    memset(grown + n->nother, 0, cap - n->nother);
    n->other = grown, n->nother = cap;
  }
  n->other[id] = on;
  return 0;
}

static int native_next(alloctrace *t, alloctrace_event *ev, diag *d) {
  native_src *n = t->impl;
  trace_record rec;
  int got;
  while ((got = trace_next(n->r, &rec, d)) == 1) {
    *ev = (alloctrace_event){.size = rec.size, .align = rec.align, .time_us = rec.line, .index = rec.line};
    if (rec.cap.attrs & TRACE_HAS_TIME) ev->time_us = rec.cap.time_ns / 1000, ev->time_ns = rec.cap.time_ns;
    ev->timed = rec.cap.attrs & TRACE_HAS_TIME;
    if (t->marks && rec.kind == REC_MARK) {
      memcpy(n->label, rec.label, sizeof n->label);
      ev->kind = AT_MARK, ev->label = n->label, ev->dur_ns = rec.cap.dur_ns;
      ev->kernel = rec.cap.attrs & (TRACE_HAS_GRID | TRACE_HAS_DUR);
      return 1;
    }
    if (t->marks && rec.kind == REC_MEMINFO) {
      ev->kind = AT_MEMINFO, ev->total = rec.cap.total;
      return 1;
    }
    if (rec.kind == REC_ALLOC) {
      ev->kind = AT_ALLOC;
      if (rec.cap.attrs & TRACE_HAS_VA) ev->va = rec.cap.va;
      if (at_stream(t, rec.stream, &ev->stream))
        return diag_set(d, t->path, rec.line, "more than %d streams", AT_MAX_STREAMS);
      diag why;
      if (at_name_alloc(t, rec.alloc_id, &ev->id, &why)) return diag_set(d, t->path, rec.line, "%s", why.msg);
      bool other = rec.cap.mem != TRACE_MEM_DEVICE;
      if (mark_other(n, ev->id, other)) return diag_set(d, t->path, rec.line, "out of host memory");
      if (!other) return 1;
    } else if (rec.kind == REC_FREE) {
      ev->kind = AT_FREE;
      if (!at_name_free(t, rec.alloc_id, &ev->id))
        return diag_set(d, t->path, rec.line, "free of allocation %llu, which is not live",
                        (unsigned long long)rec.alloc_id);
      if (ev->id >= n->nother || !n->other[ev->id]) return 1;
      n->other[ev->id] = 0;
    }
    t->info.skipped++;
  }
  return got;
}

static const at_source native_source = {native_next, native_close};

int at_open_native(alloctrace *t, diag *d) {
  native_src *n = calloc(1, sizeof *n);
  if (!n) return diag_set(d, t->path, 0, "out of host memory");
  if (!(n->r = trace_open_jobs(t->path[0] == '<' ? "-" : t->path, TRACE_NATIVE, t->jobs, d))) {
    free(n);
    return -1;
  }
  t->impl = n;
  t->src = &native_source;
  return 0;
}
