/* tlbsim convert: an input read in any format (auto), its records written
 * as binary and as native (trace_writer, which reads back each record it
 * writes), and the output read again, as `tlbsim convert` then `tlbsim run`
 * do.
 *
 * Oracle: both writers take every record any reader gives (the two
 * formats share one grammar), and it reads back as itself, in the same
 * thread: the records of the output equal the input's, once each access
 * is named by the thread it runs in (the native format writes a thread
 * switch into the accesses after it, the binary one as a record). A read
 * error is one line; the records before it are converted all the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tlbsim/trace.h"

#define FUZZ_MAX_RECORDS 4096

typedef struct records {
  trace_record *r;
  size_t n;
} records;

/* rec with its thread: accesses carry the thread in effect, switches go. */
static bool keep(const trace_record *rec, uint32_t *thread, trace_record *out) {
  if (rec->kind == REC_THREAD) {
    *thread = rec->thread;
    return false;
  }
  *out = *rec;
  out->line = 0;
  if (rec->kind == REC_ACCESS) out->thread = *thread;
  return true;
}

/* Up to FUZZ_MAX_RECORDS records of r, thread-named: 0, or -1 at an error. */
static int read_records(trace_reader *r, records *out, diag *d) {
  trace_record rec;
  uint32_t thread = 0;
  int k;
  out->n = 0;
  while (out->n < FUZZ_MAX_RECORDS && (k = trace_next(r, &rec, d)) == 1) out->n += keep(&rec, &thread, &out->r[out->n]);
  return out->n < FUZZ_MAX_RECORDS && k < 0 ? -1 : 0;
}

static bool same(const trace_record *x, const trace_record *y) {
  return x->kind == y->kind && x->access == y->access && x->relative == y->relative && x->prot == y->prot &&
         x->asid == y->asid && x->stream == y->stream && x->thread == y->thread && x->alloc_id == y->alloc_id &&
         x->addr == y->addr && x->size == y->size && x->align == y->align && x->page_size == y->page_size &&
         x->frame == y->frame && x->has_frame == y->has_frame && !strncmp(x->label, y->label, TRACE_LABEL_MAX);
}

/* The input's records (raw, as trace_next gives them) through a writer of
 * fmt, then read back and compared with want (thread-named). */
static void round_trip(const char *path, trace_format fmt, const trace_record *raw, size_t nraw, const records *want,
                       records *back) {
  char *bytes = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&bytes, &len);
  diag d;
  trace_writer *w = f ? trace_writer_open(f, "out", fmt, TRACE_PLAIN, &d) : NULL;
  if (!w) abort();
  for (size_t i = 0; i < nraw; i++)
    if (trace_write(w, &raw[i], path, &d)) { /* both hold every record any reader gives */
      fprintf(stderr, "%s refused a record read: %s\n", trace_format_name(fmt), d.msg);
      abort();
    }
  if (trace_writer_finish(w, &d) || fclose(f)) abort();
  trace_reader *r = trace_open_memory("out", bytes, len, fmt, &d);
  if (!r || read_records(r, back, &d) || back->n != want->n) abort();
  for (size_t i = 0; i < want->n; i++)
    if (!same(&want->r[i], &back->r[i])) abort();
  trace_close(r);
  free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_file f;
  if (fuzz_file_open(&f, data, size)) abort();
  trace_record *raw = malloc(FUZZ_MAX_RECORDS * sizeof *raw);
  records want = {malloc(FUZZ_MAX_RECORDS * sizeof *want.r), 0}, back = {malloc(FUZZ_MAX_RECORDS * sizeof *back.r), 0};
  if (!raw || !want.r || !back.r) abort();
  diag d;
  trace_reader *r = trace_open(f.path, TRACE_AUTO, &d);
  size_t nraw = 0;
  int k = 0;
  if (r) {
    while (nraw < FUZZ_MAX_RECORDS && (k = trace_next(r, &raw[nraw], &d)) == 1) nraw++;
    trace_close(r);
  }
  if (!r || k < 0) fuzz_check_diag(&d); /* the records before a bad one are still converted */
  uint32_t thread = 0;
  for (size_t i = 0; i < nraw; i++) want.n += keep(&raw[i], &thread, &want.r[want.n]);
  round_trip(f.path, TRACE_BINARY, raw, nraw, &want, &back);
  round_trip(f.path, TRACE_NATIVE, raw, nraw, &want, &back);
  free(raw);
  free(want.r);
  free(back.r);
  fuzz_file_close(&f);
  return 0;
}
