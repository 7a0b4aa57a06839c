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

static int bad(const trace_line *ln, diag *d, const char *what, const char *at) {
  char ex[48];
  return diag_set(d, ln->file, ln->no, "%s in lackey line '%s'", what,
                  trace_excerpt(at, (size_t)(ln->text + ln->len - at), ex, sizeof ex));
}

int trace_lackey_parse(const trace_line *ln, trace_block *b, diag *d) {
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

bool trace_lackey_sniff(const char *s, size_t len) {
  if (len < 4) return false;
  if (s[0] == 'I') return s[1] == ' ' && s[2] == ' ';
  return s[0] == ' ' && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M') && s[2] == ' ';
}
