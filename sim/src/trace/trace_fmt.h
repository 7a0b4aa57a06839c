/* trace_fmt.h — what the reader (trace.c) shares with the per-format line
 * parsers (trace_native.c, trace_lackey.c, trace_din.c). Private to the
 * trace module.
 *
 * trace_line  one input line as the reader hands it over: NUL-terminated
 *             and writable (parsers may cut tokens in place), without its
 *             newline or a trailing CR, with the file name and line number
 *             every diagnostic needs.
 */
#ifndef TLBSIM_TRACE_FMT_H
#define TLBSIM_TRACE_FMT_H

#include "tlbsim/trace.h"

typedef struct trace_line {
  char *text;
  size_t len;
  const char *file;
  unsigned long no;
} trace_line;

/* Appends the line's record to b, if it holds one (blank lines, comments
 * and skipped kinds add nothing); 0, or -1 with d as "FILE:LINE: ...". The
 * caller leaves room for one entry and one `other` record. */
typedef int trace_parse_fn(const trace_line *ln, trace_block *b, diag *d);
/* Whether a meaningful line (not blank, comment or banner) looks like this
 * format. Formats are told apart by their first characters, so at most one
 * sniffer says yes. */
typedef bool trace_sniff_fn(const char *s, size_t len);

trace_parse_fn trace_native_parse, trace_lackey_parse, trace_din_parse;
trace_sniff_fn trace_native_sniff, trace_lackey_sniff, trace_din_sniff;

static inline bool trace_is_blank(char c) { return c == ' ' || c == '\t'; }

/* Appends an access; one whose size does not fit a trace_acc goes to
 * `other` whole. */
trace_record *trace_emit_other(trace_block *b, trace_rec_kind kind, unsigned long line);

static inline void trace_emit_access(trace_block *b, trace_access a, uint64_t addr, uint64_t size,
                                     unsigned long line) {
  if (size > UINT32_MAX) {
    trace_record *r = trace_emit_other(b, REC_ACCESS, line);
    r->access = a;
    r->addr = addr;
    r->size = size;
    return;
  }
  trace_acc *acc = &b->acc[b->n];
  acc->addr = addr;
  acc->size = (uint32_t)size;
  acc->kind = a;
  b->line[b->n++] = line;
  b->last_byte_or |= addr + (size - 1);
  b->kinds |= 1u << a;
}

/* A line valgrind writes about the run rather than the trace:
 * "==PID== ...", "--PID-- ..." or "**PID** ...". */
bool trace_is_banner(const char *s, size_t len);

/* "FILE:LINE: KEY: 'DIGITS' is out of range (LO..HI)" for the number whose
 * digits (decimal or hex, no prefix) start at `digits`: a value that
 * scanned as digits but not into the range (or 64 bits). Returns -1. */
int trace_out_of_range(const trace_line *ln, diag *d, const char *key, const char *digits, uint64_t lo, uint64_t hi);

/* Copies up to n-1 characters of s (at most len) into buf for an error
 * message, replacing what is not printable with '?'; returns buf. */
const char *trace_excerpt(const char *s, size_t len, char *buf, size_t n);

#endif
