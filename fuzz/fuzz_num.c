/* The numbers module: every parser and scanner on one string, checked
 * against each other and against a plain reference.
 *
 * Oracle: a whole number parses to the value of its digits or is refused as
 * out of range exactly when that value passes 2^64 - 1; sizes agree with
 * whole numbers on plain digits; a formatted size parses back to itself;
 * ranged parsers agree with the unranged ones and their range; messages fit
 * their buffer and say which check failed; checked arithmetic agrees with
 * 128-bit arithmetic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void check(bool ok) {
  if (!ok) abort();
}

/* The value of a string of decimal digits in 128 bits (saturated), or -1
 * when it is not one. */
static int reference_dec(const char *s, unsigned __int128 *v) {
  if (!*s) return -1;
  *v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    if (*v < ((unsigned __int128)1 << 100)) *v = *v * 10 + (unsigned)(*s - '0');
  }
  return 0;
}

static void check_whole(const char *s, uint64_t lo, uint64_t hi) {
  uint64_t v = 0, r = 0;
  int plain = num_parse_whole(s, &v);
  num_status st = num_whole_in(s, lo, hi, &r);
  unsigned __int128 ref;
  if (reference_dec(s, &ref) == 0) {
    bool fits = ref <= UINT64_MAX;
    check(plain == (fits ? 0 : -1));
    check(fits ? (st == (v < lo || v > hi ? NUM_RANGE : NUM_OK)) : st == NUM_RANGE);
    if (fits) check((unsigned __int128)v == ref);
  } else if (plain == 0) {
    check(st == (v < lo || v > hi ? NUM_RANGE : NUM_OK));
  }
  if (st == NUM_OK) check(r == v && r >= lo && r <= hi);
  char msg[160];
  if (st != NUM_OK) {
    num_complaint(st, NUM_WHOLE, s, lo, hi, msg, sizeof msg);
    check(strlen(msg) < sizeof msg - 1 && !strchr(msg, '\n'));
    check(strstr(msg, st == NUM_RANGE ? "out of range" : "is not a whole number") != NULL);
  }
}

static void check_size(const char *s, uint64_t lo, uint64_t hi) {
  uint64_t v = 0, w = 0, r = 0;
  int plain = num_parse_size(s, &v);
  num_status st = num_size_in(s, lo, hi, &r);
  if (num_parse_whole(s, &w) == 0) check(plain == 0 && v == w); /* a whole number is a size of that many bytes */
  if (plain == 0) {
    check(st == (v < lo || v > hi ? NUM_RANGE : NUM_OK));
    char buf[40];
    uint64_t back;
    check(num_parse_size(num_format_size(v, buf, sizeof buf), &back) == 0 && back == v);
  }
  if (st == NUM_OK) check(r == v);
  char msg[160];
  if (st != NUM_OK) num_complaint(st, NUM_SIZE, s, lo, hi, msg, sizeof msg);
}

static void check_real(const char *s) {
  double v = 0, r = 0;
  int plain = num_parse_real(s, &v);
  num_status st = num_real_in(s, -1e6, 1e6, &r);
  if (plain == 0) check(isfinite(v) && st == (v < -1e6 || v > 1e6 ? NUM_RANGE : NUM_OK));
  else check(st != NUM_OK);
  if (st == NUM_OK) check(r == v);
  char msg[160];
  if (st != NUM_OK) num_complaint_real(st, s, -1e6, 1e6, msg, sizeof msg);
}

/* The hot-path scanners on the raw bytes (no NUL needed). */
static void check_scanners(const uint8_t *data, size_t size) {
  const char *p = (const char *)data, *end = p + size;
  uint64_t v;
  const char *q = p;
  if (num_scan_hex(&q, end, &v) == 0) check(q > p && q <= end);
  else check(q == p);
  q = p;
  if (num_scan_dec(&q, end, &v) == 0) check(q > p && q <= end);
  else check(q == p);
  num_span_whole(p, end, &v);
  num_span_size(p, end, &v);
}

static void check_arithmetic(const uint8_t *data, size_t size) {
  uint64_t a = 0, b = 0, r;
  if (size >= 16) {
    memcpy(&a, data, 8);
    memcpy(&b, data + 8, 8);
  }
  unsigned __int128 sum = (unsigned __int128)a + b;
  check(num_add_sat(a, b) == (sum > UINT64_MAX ? UINT64_MAX : (uint64_t)sum));
  if (b == 0) return;
  unsigned __int128 up = ((unsigned __int128)a + b - 1) / b * b;
  bool ok = num_round_up(a, b, &r);
  check(ok == (up <= UINT64_MAX));
  if (ok) check(r == (uint64_t)up);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = fuzz_string(data, size);
  uint64_t lo = size > 0 ? data[0] : 0, hi = size > 1 ? (uint64_t)data[1] << 56 | 0xffffff : UINT64_MAX;
  check_whole(s, 0, UINT64_MAX);
  check_whole(s, lo, hi);
  check_size(s, 0, UINT64_MAX);
  check_size(s, lo << 10, hi);
  check_real(s);
  check_scanners(data, size);
  check_arithmetic(data, size);
  char q[44];
  check(strlen(num_quote(s, q, sizeof q)) < sizeof q);
  free(s);
  return 0;
}
