/* trace_pinatrace.c — the output of Intel Pin's pinatrace tool
 * (source/tools/ManualExamples/pinatrace.cpp):
 *
 *   0x7f2a1c40b093: W 0x7ffd8c7e8aa8     IP: R|W ADDR, one memory operand a line
 *   #eof                                 written when the program ends
 *
 * Both numbers are printed with %p: 0x hex, or "(nil)" for zero. A line
 * becomes a read or write of 1 byte at ADDR (pinatrace records no size;
 * the instruction address is not a fetch). Blank lines are skipped. A trace
 * that does not end with "#eof" was cut short, and anything after it is an
 * error: a pipeline fed a broken trace stops instead of replaying part of
 * it.
 */
#include "trace_fmt.h"

#include <string.h>

enum { SEEN_EOF = 1 };

static int bad(const trace_line *ln, diag *d, const char *what) {
  char ex[48];
  return diag_set(d, ln->file, ln->no, "%s in pinatrace line '%s'", what,
                  trace_excerpt(ln->text, ln->len, ex, sizeof ex));
}

/* A %p: "0x" and 1 to 16 hex digits, or "(nil)". */
static bool scan_ptr(const char **p, const char *end, uint64_t *v) {
  if (end - *p >= 5 && !memcmp(*p, "(nil)", 5)) {
    *p += 5;
    *v = 0;
    return true;
  }
  if (end - *p < 3 || (*p)[0] != '0' || (*p)[1] != 'x') return false;
  *p += 2;
  return num_scan_hex(p, end, v) == 0;
}

static const char *skip_blanks(const char *p, const char *end) {
  while (p < end && trace_is_blank(*p)) p++;
  return p;
}

int trace_pinatrace_parse(const trace_line *ln, trace_block *b, diag *d) {
  const char *p = skip_blanks(ln->text, ln->text + ln->len), *end = ln->text + ln->len;
  while (end > p && trace_is_blank(end[-1])) end--;
  if (p == end) return 0;
  if (*ln->carry & SEEN_EOF) return bad(ln, d, "text after #eof");
  if (end - p == 4 && !memcmp(p, "#eof", 4)) {
    *ln->carry |= SEEN_EOF;
    return 0;
  }
  uint64_t ip, addr;
  if (!scan_ptr(&p, end, &ip) || p == end || *p++ != ':') return bad(ln, d, "expected 'IP: R|W ADDR'");
  p = skip_blanks(p, end);
  if (p == end || (*p != 'R' && *p != 'W') || p + 1 == end || !trace_is_blank(p[1]))
    return bad(ln, d, "expected R or W after 'IP:'");
  trace_access a = *p == 'R' ? TRACE_READ : TRACE_WRITE;
  p = skip_blanks(p + 1, end);
  if (!scan_ptr(&p, end, &addr) || p != end) return bad(ln, d, "bad address (expected 0x hex or (nil))");
  trace_emit_access(b, a, addr, 1, ln->no);
  return 0;
}

int trace_pinatrace_end(const trace_line *ln, diag *d) {
  if (*ln->carry & SEEN_EOF) return 0;
  return diag_set(d, ln->file, ln->no, "no #eof line at the end: the pinatrace output was cut short");
}

bool trace_pinatrace_sniff(const char *s, size_t len) {
  const char *p = s, *end = s + len;
  uint64_t v;
  if (!scan_ptr(&p, end, &v) || p == end || *p++ != ':') return false;
  p = skip_blanks(p, end);
  return p + 1 < end && (*p == 'R' || *p == 'W') && trace_is_blank(p[1]);
}
