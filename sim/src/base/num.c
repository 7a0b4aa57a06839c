/* The numbers module (see tlbsim/num.h): one scanner per base, everything
 * else built on them, so every input accepts the same forms. */
#include "tlbsim/num.h"

#include <errno.h>
#include <float.h>
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

/* Item [s, end) of a list: a number, or LO..HI spread per_octave per doubling. */
static int list_item(const char *s, const char *end, num_kind k, unsigned per_octave, uint64_t *out, size_t max,
                     size_t *n) {
  int (*span)(const char *, const char *, uint64_t *) = k == NUM_SIZE ? num_span_size : num_span_whole;
  const char *dots = NULL;
  for (const char *p = s; p + 1 < end; p++)
    if (p[0] == '.' && p[1] == '.') {
      dots = p;
      break;
    }
  uint64_t lo, hi;
  if (!dots) {
    if (span(s, end, &lo) || *n == max) return -1;
    out[(*n)++] = lo;
    return 0;
  }
  if (span(s, dots, &lo) || span(dots + 2, end, &hi) || !lo || lo > hi || !per_octave) return -1;
  for (unsigned j = 0;; j++) {
    double f = (double)lo * exp2((double)j / per_octave);
    if (f > (double)hi * (1 + 1e-9)) break;
    if (*n == max) return -1;
    out[(*n)++] = (uint64_t)llround(f);
  }
  return 0;
}

int num_parse_list(const char *s, num_kind k, unsigned per_octave, uint64_t *out, size_t max, size_t *n) {
  *n = 0;
  if (!s || !*s) return -1;
  for (;;) {
    const char *end = s + strcspn(s, ",");
    if (end == s || list_item(s, end, k, per_octave, out, max, n)) return -1;
    if (!*end) return 0;
    s = end + 1;
  }
}

int num_parse_real_list(const char *s, double lo, double hi, double *out, size_t max, size_t *n) {
  char buf[64];
  *n = 0;
  if (!s || !*s) return -1;
  for (;;) {
    size_t len = strcspn(s, ",");
    if (!len || len >= sizeof buf || *n == max) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (num_real_in(buf, lo, hi, &out[*n]) != NUM_OK) return -1;
    (*n)++;
    if (!s[len]) return 0;
    s += len + 1;
  }
}

/* Whether s spells infinity ("inf", "-Infinity", ...): a value beyond
 * every range rather than a malformed one. */
static bool is_infinity(const char *s) {
  if (*s == '+' || *s == '-') s++;
  return !strcasecmp(s, "inf") || !strcasecmp(s, "infinity");
}

/* strtod's own forms, without what it skips or lets through: leading
 * blanks, hex floats and nan. Infinity and overflow are range failures; an
 * underflow reads as the tiny value strtod gives. */
static num_status real_status(const char *s, double *out) {
  if (!s) return NUM_SYNTAX;
  if (is_infinity(s)) return NUM_RANGE;
  if (!*s || !strchr("0123456789+-.", *s) || strpbrk(s, "xXnN")) return NUM_SYNTAX;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end) return NUM_SYNTAX;
  if (errno == ERANGE && fabs(v) > DBL_MIN) return NUM_RANGE;
  if (!isfinite(v)) return NUM_RANGE;
  *out = v;
  return NUM_OK;
}

int num_parse_real(const char *s, double *out) { return real_status(s, out) == NUM_OK ? 0 : -1; }

/* Whether s has the shape of a whole number (or of a size) and so failed
 * only because its value passes 2^64 - 1. */
static bool too_large(const char *s, num_kind k) {
  const char *end = s + strlen(s);
  if (has_hex_prefix(s, end)) {
    for (s += 2; s < end && num_hexval[(unsigned char)*s]; s++) {
    }
    return s == end;
  }
  const char *digits = s;
  while (s < end && *s >= '0' && *s <= '9') s++;
  unsigned shift;
  return s > digits && (s == end || (k == NUM_SIZE && !suffix_shift(s, (size_t)(end - s), &shift)));
}

static num_status in_range(uint64_t v, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (v < lo || v > hi) return NUM_RANGE;
  *out = v;
  return NUM_OK;
}

num_status num_whole_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  uint64_t v;
  if (num_parse_whole(s, &v)) return s && too_large(s, NUM_WHOLE) ? NUM_RANGE : NUM_SYNTAX;
  return in_range(v, lo, hi, out);
}

num_status num_size_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  uint64_t v;
  if (num_parse_size(s, &v)) return s && too_large(s, NUM_SIZE) ? NUM_RANGE : NUM_SYNTAX;
  return in_range(v, lo, hi, out);
}

num_status num_real_in(const char *s, double lo, double hi, double *out) {
  double v;
  num_status st = real_status(s, &v);
  if (st != NUM_OK) return st;
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

/* Sizes' bounds in a binary unit when one is exact, else in bytes. */
static const char *range_bound(num_kind k, uint64_t v, char *buf, size_t len) {
  if (k == NUM_SIZE && v && !(v & 1023)) return num_format_size(v, buf, len);
  snprintf(buf, len, "%llu", (unsigned long long)v);
  return buf;
}

const char *num_range_text(num_kind k, uint64_t lo, uint64_t hi, char *buf, size_t len) {
  char a[32], b[32];
  snprintf(buf, len, "%s..%s", range_bound(k, lo, a, sizeof a), range_bound(k, hi, b, sizeof b));
  return buf;
}

#define QUOTE_MAX 40

const char *num_quote(const char *value, char *buf, size_t len) {
  size_t n = value ? strlen(value) : 0, keep = n < QUOTE_MAX ? n : QUOTE_MAX;
  if (len < QUOTE_MAX + 4) keep = len > 4 ? len - 4 : 0; /* room for "..." and the NUL */
  if (keep > n) keep = n;
  for (size_t i = 0; i < keep; i++) {
    unsigned char c = (unsigned char)value[i];
    buf[i] = c >= ' ' && c < 127 ? (char)c : '?';
  }
  if (len >= 4) strcpy(buf + keep, keep < n ? "..." : "");
  else if (len) buf[0] = '\0';
  return buf;
}

const char *num_complaint(num_status st, num_kind k, const char *value, uint64_t lo, uint64_t hi, char *buf,
                          size_t len) {
  char q[QUOTE_MAX + 8], r[80];
  num_quote(value, q, sizeof q);
  if (st == NUM_RANGE) snprintf(buf, len, "'%s' is out of range (%s)", q, num_range_text(k, lo, hi, r, sizeof r));
  else snprintf(buf, len, "'%s' is not %s", q, k == NUM_SIZE ? "a size (e.g. 4096, 4K, 2MiB, 0x1000)" : "a whole number");
  return buf;
}

const char *num_complaint_real(num_status st, const char *value, double lo, double hi, char *buf, size_t len) {
  char q[QUOTE_MAX + 8];
  num_quote(value, q, sizeof q);
  /* Infinite bounds are written as the largest finite doubles: only finite values are read. */
  if (st == NUM_RANGE)
    snprintf(buf, len, "'%s' is out of range (%g..%g)", q, isinf(lo) ? -DBL_MAX : lo, isinf(hi) ? DBL_MAX : hi);
  else snprintf(buf, len, "'%s' is not a number", q);
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

const char *num_format_real(double v, char *buf, size_t len) {
  for (int digits = 1; digits <= 17; digits++) { /* 17 always reads back */
    snprintf(buf, len, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) break;
  }
  if (!strpbrk(buf, ".eEn")) strncat(buf, ".0", len - strlen(buf) - 1); /* n: inf, nan */
  return buf;
}
