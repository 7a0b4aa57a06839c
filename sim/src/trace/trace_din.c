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

#include <stdio.h>

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

static const int8_t access_of[] = {TRACE_READ, TRACE_WRITE, TRACE_EXEC, TRACE_READ, -1, -1};

/* The shape nearly every line has: a label 0-3, one blank and 1 to 16 bare
 * hex digits to the end, read without end tests (trace_line's padding).
 * false: anything else, for the general parse, which finds every error. */
static inline bool parse_common(const trace_line *ln, trace_block *b) {
  const char *p = ln->text;
  unsigned label = (unsigned)(unsigned char)p[0] - '0';
  uint64_t addr;
  if (label > 3 || !trace_is_blank(p[1]) || ln->len < 3 || ln->len > 18 || num_hex16(p + 2, ln->len - 2, &addr))
    return false;
  trace_emit_access(b, (trace_access)access_of[label], addr, 1, ln->no);
  return true;
}

/* The longest common line: label, blank, 16 digits, newline. */
#define DIN_LINE_MAX 19

/* One common line at s into put: where the next line starts, or NULL for
 * a line of another shape. */
static inline const char *scan_line(const char *s, trace_put *put) {
  /* label and blank in one test: "0 " to "3 " are the two bytes as one
   * number, less that of "0 ", from 0 to 3 */
  unsigned label = ((unsigned)(unsigned char)s[0] | (unsigned)(unsigned char)s[1] << 8) - ('0' | ' ' << 8);
  uint64_t nibbles;
  unsigned n = num_hex_lead16(s + 2, &nibbles);
  if (label > 3 || n == 0 || s[2 + n] != '\n') return NULL;
  trace_put_access(put, (trace_access)access_of[label], nibbles >> (4 * (16 - n)), 1);
  return s + 3 + n;
}

const char *trace_din_scan(const char *s, const char *end, trace_block *b, unsigned long *line) {
  return trace_scan_rounds(s, end, b, line, DIN_LINE_MAX, scan_line);
}

/* Any line: the rare shapes, and every error. Out of line, so the common
 * path sets up no stack frame for it. */
__attribute__((noinline)) static int parse_general(const trace_line *ln, trace_block *b, diag *d) {
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

int trace_din_parse(const trace_line *ln, trace_block *b, diag *d) {
  return parse_common(ln, b) ? 0 : parse_general(ln, b, d);
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

size_t trace_din_encode(const trace_record *rec, trace_enc *st, uint8_t *out, const char **why) {
  (void)st;
  if (rec->kind == REC_THREAD) {
    if (rec->thread) *why = "din holds no thread ids (convert to native or binary to keep them)";
    return 0; /* thread 0 is every line's */
  }
  if (rec->kind != REC_ACCESS || rec->relative) {
    *why = "din holds accesses to addresses only (convert to native or binary to keep this record)";
    return 0;
  }
  if (rec->size != 1) {
    *why = "din holds no sizes, and this access is longer than 1 byte (convert to lackey, native or binary)";
    return 0;
  }
  /* labels: 0 read, 1 write, 2 instruction fetch */
  return (size_t)snprintf((char *)out, TRACE_ENC_MAX, "%d %llx\n", (int)rec->access, (unsigned long long)rec->addr);
}
