/* trace_din.c — Dinero IV's traditional "din" input (-informat d).
 *
 *   LABEL ADDRESS [anything]      e.g. "0 7fff5fbff8ac", "2 0x400a1c  # ifetch"
 *
 * LABEL and ADDRESS are hex (0x optional), split by blanks; like Dinero the
 * rest of the line is ignored, so it may hold comments. Labels: 0 read,
 * 1 write, 2 instruction fetch, 3 misc (Dinero fetches it like a read, so it
 * is translated as one), 4 copy-back and 5 invalidate (operations on a whole
 * cache, not references: skipped). din has no size: accesses are 1 byte at
 * the exact address, which lands on the page Dinero's word-aligned 4-byte
 * reference does. Blank lines and lines starting with # are skipped.
 */
#include "trace_fmt.h"

static int bad(const trace_line *ln, diag *d, const char *what) {
  char ex[48];
  return diag_set(d, ln->file, ln->no, "%s in din line '%s'", what,
                  trace_excerpt(ln->text, ln->len, ex, sizeof ex));
}

/* Dinero lets either number carry a 0x prefix. */
static int din_hex(const char **p, const char *end, uint64_t *out) {
  if (end - *p > 2 && (*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X') &&
      num_hexval[(unsigned char)(*p)[2]])
    *p += 2;
  return num_scan_hex(p, end, out);
}

int trace_din_parse(const trace_line *ln, trace_block *b, diag *d) {
  static const int8_t access_of[] = {TRACE_READ, TRACE_WRITE, TRACE_EXEC, TRACE_READ, -1, -1};
  const char *p = ln->text, *end = p + ln->len;
  while (p < end && trace_is_blank(*p)) p++;
  if (p == end || *p == '#') return 0;

  uint64_t label, addr;
  const char *digits = p;
  if (din_hex(&p, end, &label) || (p < end && !trace_is_blank(*p)))
    return bad(ln, d, "bad label (expected 0-5)");
  if (label >= sizeof access_of) return trace_out_of_range(ln, d, "label", digits, 0, sizeof access_of - 1);
  while (p < end && trace_is_blank(*p)) p++;
  if (p == end) return bad(ln, d, "missing address");
  digits = p;
  if (din_hex(&p, end, &addr)) {
    if (p == digits && end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    return num_hexval[(unsigned char)*p] ? trace_out_of_range(ln, d, "address", p, 0, UINT64_MAX)
                                         : bad(ln, d, "bad hex address");
  }
  if (p < end && !trace_is_blank(*p)) return bad(ln, d, "bad hex address");
  if (access_of[label] < 0) return 0;
  trace_emit_access(b, (trace_access)access_of[label], addr, 1, ln->no);
  return 0;
}

bool trace_din_sniff(const char *s, size_t len) {
  const char *p = s, *end = s + len;
  while (p < end && trace_is_blank(*p)) p++;
  if (p == end || *p < '0' || *p > '9') return false;
  while (p < end && num_hexval[(unsigned char)*p]) p++;
  if (p == end || !trace_is_blank(*p)) return false;
  while (p < end && trace_is_blank(*p)) p++;
  return p < end && num_hexval[(unsigned char)*p];
}
