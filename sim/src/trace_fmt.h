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

/* 1: rec filled; 0: the line holds no record (blank, comment, a skipped
 * kind); -1: d holds "FILE:LINE: ...". */
typedef int trace_parse_fn(const trace_line *ln, trace_record *rec, diag *d);
/* Whether a meaningful line (not blank, comment or banner) looks like this
 * format. Formats are told apart by their first characters, so at most one
 * sniffer says yes. */
typedef bool trace_sniff_fn(const char *s, size_t len);

trace_parse_fn trace_native_parse, trace_lackey_parse, trace_din_parse;
trace_sniff_fn trace_native_sniff, trace_lackey_sniff, trace_din_sniff;

static inline bool trace_is_blank(char c) { return c == ' ' || c == '\t'; }

/* Fills every field of rec for an access, so no stale field survives from
 * the caller's previous record without a memset per line. */
static inline void trace_set_access(trace_record *rec, trace_access a, uint64_t addr,
                                    uint64_t size, unsigned long line) {
  rec->kind = REC_ACCESS;
  rec->access = a;
  rec->relative = false;
  rec->prot = 0;
  rec->asid = 0;
  rec->stream = 0;
  rec->alloc_id = 0;
  rec->addr = addr;
  rec->size = size;
  rec->align = 0;
  rec->page_size = 0;
  rec->line = line;
  rec->label[0] = '\0';
}

/* A line valgrind writes about the run rather than the trace:
 * "==PID== ...", "--PID-- ..." or "**PID** ...". */
bool trace_is_banner(const char *s, size_t len);

/* Copies up to n-1 characters of s (at most len) into buf for an error
 * message, replacing what is not printable with '?'; returns buf. */
const char *trace_excerpt(const char *s, size_t len, char *buf, size_t n);

#endif
