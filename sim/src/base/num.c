/* The numbers module (see tlbsim/num.h): one scanner per base, everything
 * else built on them, so every input accepts the same forms. */
#include "tlbsim/num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const uint8_t num_hexval[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static bool has_hex_prefix(const char *s, const char *end) {
  return end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int num_span_whole(const char *s, const char *end, uint64_t *out) {
  if (has_hex_prefix(s, end)) {
    s += 2;
    return num_scan_hex(&s, end, out) || s != end ? -1 : 0;
  }
  return num_scan_dec(&s, end, out) || s != end ? -1 : 0;
}

/* Binary unit suffixes; "KiB", "KB" and "K" mean the same. */
static int suffix_shift(const char *s, size_t len, unsigned *shift) {
  static const struct {
    const char *name;
    unsigned shift;
  } units[] = {
      {"", 0},     {"b", 0},   {"k", 10},  {"kb", 10},  {"kib", 10}, {"m", 20},  {"mb", 20},
      {"mib", 20}, {"g", 30},  {"gb", 30}, {"gib", 30}, {"t", 40},   {"tb", 40}, {"tib", 40},
  };
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strlen(units[i].name) == len && !strncasecmp(s, units[i].name, len)) {
      *shift = units[i].shift;
      return 0;
    }
  return -1;
}

int num_span_size(const char *s, const char *end, uint64_t *out) {
  if (has_hex_prefix(s, end)) return num_span_whole(s, end, out);
  uint64_t v;
  unsigned shift;
  if (num_scan_dec(&s, end, &v) || suffix_shift(s, (size_t)(end - s), &shift)) return -1;
  if (shift && v > (UINT64_MAX >> shift)) return -1;
  *out = v << shift;
  return 0;
}

int num_parse_whole(const char *s, uint64_t *out) { return s ? num_span_whole(s, s + strlen(s), out) : -1; }

int num_parse_size(const char *s, uint64_t *out) { return s ? num_span_size(s, s + strlen(s), out) : -1; }

/* strtod's own forms, without what it skips or lets through: leading
 * blanks, hex floats, nan and inf. */
int num_parse_real(const char *s, double *out) {
  if (!s || !*s || !strchr("0123456789+-.", *s) || strpbrk(s, "xXnN")) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static num_status in_range(uint64_t v, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (v < lo || v > hi) return NUM_RANGE;
  *out = v;
  return NUM_OK;
}

num_status num_whole_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  uint64_t v;
  return num_parse_whole(s, &v) ? NUM_SYNTAX : in_range(v, lo, hi, out);
}

num_status num_size_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  uint64_t v;
  return num_parse_size(s, &v) ? NUM_SYNTAX : in_range(v, lo, hi, out);
}

num_status num_real_in(const char *s, double lo, double hi, double *out) {
  double v;
  if (num_parse_real(s, &v)) return NUM_SYNTAX;
  if (v < lo || v > hi) return NUM_RANGE;
  *out = v;
  return NUM_OK;
}

static const char *bound(num_kind k, uint64_t v, char *buf, size_t len) {
  if (k == NUM_SIZE) return num_format_size(v, buf, len);
  snprintf(buf, len, "%llu", (unsigned long long)v);
  return buf;
}

const char *num_expect(num_kind k, uint64_t lo, uint64_t hi, char *buf, size_t len) {
  const char *what = k == NUM_SIZE ? "a size (e.g. 4096, 4K, 2MiB, 0x1000)" : "a whole number";
  char a[32], b[32];
  if (lo == 0 && hi == UINT64_MAX) snprintf(buf, len, "%s", what);
  else if (hi == UINT64_MAX) snprintf(buf, len, "%s of at least %s", what, bound(k, lo, a, sizeof a));
  else if (lo == 0) snprintf(buf, len, "%s of at most %s", what, bound(k, hi, b, sizeof b));
  else snprintf(buf, len, "%s from %s to %s", what, bound(k, lo, a, sizeof a), bound(k, hi, b, sizeof b));
  return buf;
}

const char *num_expect_real(double lo, double hi, char *buf, size_t len) {
  if (isinf(lo) && isinf(hi)) snprintf(buf, len, "a finite number");
  else if (isinf(hi)) snprintf(buf, len, "a number of at least %g", lo);
  else snprintf(buf, len, "a number from %g to %g", lo, hi);
  return buf;
}

const char *num_format_size(uint64_t bytes, char *buf, size_t len) {
  static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned u = 0;
  while (u < 4 && bytes && (bytes & 1023) == 0) {
    bytes >>= 10;
    u++;
  }
  snprintf(buf, len, "%llu%s", (unsigned long long)bytes, names[u]);
  return buf;
}
