/* trace_lackey.c — valgrind lackey --trace-mem=yes output.
 *
 *   I  04016c4d,3       instruction fetch (two spaces after I)
 *    L 1ffefffd48,8     data load
 *    S 1ffefffd48,8     data store
 *    M 1ffefffd48,8     data modify: one access, a write (its read hits the
 *                       same bytes and page, so it adds no translation)
 *
 * Address in hex without 0x, size in decimal. Lackey prints exactly these
 * shapes; the parser also takes any run of blanks around the kind letter so
 * a hand-edited line still reads. Skipped: blank and # lines, valgrind's
 * "==PID==" banners, and the "SB ADDR" lines of --trace-superblocks=yes.
 */
#include "trace_fmt.h"

#include <stdio.h>
#include <string.h>

static int bad(const trace_line *ln, diag *d, const char *what, const char *at) {
  char ex[48];
  return diag_set(d, ln->file, ln->no, "%s in lackey line '%s'", what,
                  trace_excerpt(at, (size_t)(ln->text + ln->len - at), ex, sizeof ex));
}

/* The first three bytes of a line as one number, s[0] lowest: one load
 * where the byte order is that (the line's padding keeps s[3] readable). */
static inline uint32_t lead_of(const char *s) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t w;
  memcpy(&w, s, sizeof w);
  return w & 0xffffff;
#else
  return (uint32_t)(unsigned char)s[0] | (uint32_t)(unsigned char)s[1] << 8 | (uint32_t)(unsigned char)s[2] << 16;
#endif
}
#define LEAD(a, b, c) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16)
/* The four leads lackey prints, by the sum of their first two bytes (which
 * tells them apart): looked up without branches, since which comes next in
 * a trace is what a branch predictor can't guess. kind1 is the kind + 1 (0:
 * no lead has that sum). */
static const struct lackey_lead {
  uint32_t lead;
  uint8_t kind1;
} leads[256] = {
    [('I' + ' ') & 0xff] = {LEAD('I', ' ', ' '), TRACE_EXEC + 1},
    [(' ' + 'L') & 0xff] = {LEAD(' ', 'L', ' '), TRACE_READ + 1},
    [(' ' + 'S') & 0xff] = {LEAD(' ', 'S', ' '), TRACE_WRITE + 1},
    [(' ' + 'M') & 0xff] = {LEAD(' ', 'M', ' '), TRACE_WRITE + 1},
};

/* The kind of a line lackey starts with "I  " or " K ", or -1. */
static inline int common_kind(const char *s) {
  const struct lackey_lead *l = &leads[(unsigned char)(s[0] + s[1])];
  return lead_of(s) == l->lead ? l->kind1 - 1 : -1;
}

/* The shapes lackey prints, "I  ADDR,SIZE" and " K ADDR,SIZE", with 1 to
 * 16 hex digits and 1 to 9 decimal ones, read without end tests
 * (trace_line's padding). false: anything else, for the general parse,
 * which finds every error. */
static inline bool parse_common(const trace_line *ln, trace_block *b) {
  const char *p = ln->text, *end = p + ln->len;
  int a = common_kind(p);
  if (a < 0) return false;
  p += 3;
  const char *comma = end - 1; /* the size is short: its comma is found from the end */
  uint64_t addr, size = 0;
  while (comma > p && *comma >= '0' && *comma <= '9' && end - comma <= 9) comma--;
  if (comma <= p || *comma != ',' || comma == end - 1 || comma - p > 16 || num_hex16(p, (size_t)(comma - p), &addr))
    return false;
  for (const char *q = comma + 1; q < end; q++) size = size * 10 + (uint64_t)(*q - '0');
  if (size == 0 || addr + (size - 1) < addr) return false;
  trace_emit_access(b, (trace_access)a, addr, size, ln->no);
  return true;
}

/* The longest common line: kind, 16 digits, a comma, 2 digits, newline. */
#define LACKEY_LINE_MAX 23

/* One common line at s into put: where the next line starts, or NULL for
 * a line of another shape. */
static inline const char *scan_line(const char *s, trace_put *put) {
  int kind = common_kind(s);
  uint64_t nibbles;
  unsigned n = num_hex_lead16(s + 3, &nibbles);
  const char *p = s + 3 + n;
  unsigned d1 = (unsigned)(unsigned char)p[1] - '1', d2 = (unsigned)(unsigned char)p[2] - '0';
  if (kind < 0 || n == 0 || p[0] != ',' || d1 > 8) return NULL;
  uint64_t size = d1 + 1;
  if (d2 <= 9) { /* a second digit */
    size = size * 10 + d2;
    p++;
  }
  uint64_t addr = nibbles >> (4 * (16 - n));
  if (p[2] != '\n' || addr + (size - 1) < addr) return NULL;
  trace_put_access(put, (trace_access)kind, addr, (uint32_t)size);
  return p + 3;
}

const char *trace_lackey_scan(const char *s, const char *end, trace_block *b, unsigned long *line) {
  return trace_scan_rounds(s, end, b, line, LACKEY_LINE_MAX, scan_line);
}

/* Any line: the rare shapes, and every error. Out of line, so the common
 * path sets up no stack frame for it. */
__attribute__((noinline)) static int parse_general(const trace_line *ln, trace_block *b, diag *d) {
  const char *p = ln->text, *end = p + ln->len;
  while (p < end && trace_is_blank(*p)) p++;
  trace_access a;
  switch (*p) { /* text[len] is NUL: safe at the end too */
  case 'I': a = TRACE_EXEC; break;
  case 'L': a = TRACE_READ; break;
  case 'M': a = TRACE_WRITE; break;
  case 'S':
    if (p[1] == 'B' && trace_is_blank(p[2])) return 0;
    a = TRACE_WRITE;
    break;
  default:
    if (p == end || *p == '#' || trace_is_banner(ln->text, ln->len)) return 0;
    return bad(ln, d, "expected I, L, S or M", ln->text);
  }
  const char *q = ++p;
  while (p < end && trace_is_blank(*p)) p++;
  if (p == q) return bad(ln, d, "expected a blank after the kind", ln->text);

  uint64_t addr, size;
  const char *digits = p;
  if (num_scan_hex(&p, end, &addr))
    return num_hexval[(unsigned char)*p] ? trace_out_of_range(ln, d, "address", digits, 0, UINT64_MAX)
                                         : bad(ln, d, "bad hex address", p);
  if (p == end || *p != ',') return bad(ln, d, "expected ',SIZE' after the address", p);
  digits = ++p;
  if (num_scan_dec(&p, end, &size))
    return *digits >= '0' && *digits <= '9' ? trace_out_of_range(ln, d, "size", digits, 1, UINT64_MAX)
                                            : bad(ln, d, "bad decimal size", p);
  while (p < end && trace_is_blank(*p)) p++;
  if (p != end) return bad(ln, d, "unexpected text after the size", p);
  if (size == 0) return trace_out_of_range(ln, d, "size", digits, 1, UINT64_MAX);
  if (addr + (size - 1) < addr) return bad(ln, d, "access wraps past the top of memory", ln->text);
  trace_emit_access(b, a, addr, size, ln->no);
  return 0;
}

int trace_lackey_parse(const trace_line *ln, trace_block *b, diag *d) {
  return parse_common(ln, b) ? 0 : parse_general(ln, b, d);
}

bool trace_lackey_sniff(const char *s, size_t len) {
  if (len < 4) return false;
  if (s[0] == 'I') return s[1] == ' ' && s[2] == ' ';
  return s[0] == ' ' && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M') && s[2] == ' ';
}

size_t trace_lackey_encode(const trace_record *rec, trace_enc *st, uint8_t *out, const char **why) {
  static const char *const lead[] = {[TRACE_READ] = " L", [TRACE_WRITE] = " S", [TRACE_EXEC] = "I "};
  (void)st;
  if (rec->kind == REC_THREAD) {
    if (rec->thread) *why = "lackey holds no thread ids (convert to native or binary to keep them)";
    return 0; /* thread 0 is every line's */
  }
  if (rec->kind != REC_ACCESS || rec->relative) {
    *why = "lackey holds accesses to addresses only (convert to native or binary to keep this record)";
    return 0;
  }
  return (size_t)snprintf((char *)out, TRACE_ENC_MAX, "%s %08llx,%llu\n", lead[rec->access],
                          (unsigned long long)rec->addr, (unsigned long long)rec->size);
}
