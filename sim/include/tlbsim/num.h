/* tlbsim/num.h — every number that enters tlbsim goes through here: trace
 * fields, configuration values, CSV and JSON inputs, command-line options.
 *
 * Forms
 *   whole   decimal or 0x hex, no sign, no blanks; "010" is ten, not octal
 *   size    a whole number, or decimal with a binary unit: 4K = 4KiB = 4KB =
 *           4096; M, G, T likewise; "B" is bytes; any case
 *   real    decimal floating point; finite only (nan and inf are refused)
 *
 * Scanners (num_scan_*) read digits at the front of a span and advance past
 * them: the trace readers' hot path, with no NUL needed and no allocation.
 * Parsers (num_parse_*) take a whole NUL-terminated string. Ranged parsers
 * (num_*_in) also check [lo, hi] and say which check failed, so every
 * caller can tell "not a number" from "too large" in its message, and no
 * caller narrows a value with a cast: a value goes through the range of the
 * field it is stored in (NUM_U32_MAX for uint32_t fields). A number too
 * large for 64 bits (or, for reals, for a double) is a range failure, not a
 * syntax one: its digits are fine, its size is not.
 *
 * Messages: num_complaint writes what every input says about a bad number,
 *   'abc' is not a whole number
 *   '4294967296' is out of range (1..4294967295)
 * after which a caller puts its own "FILE:LINE: KEY: " or "--OPTION: ".
 *
 * Checked arithmetic (num_round_up, num_add_sat) for sizes and addresses
 * that come from input: a sum or round-up past 2^64 - 1 is reported (or
 * saturates), never wraps to a small number.
 */
#ifndef TLBSIM_NUM_H
#define TLBSIM_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#define NUM_U32_MAX UINT64_C(0xffffffff)
#define NUM_U8_MAX UINT64_C(0xff)

typedef enum { NUM_OK = 0, NUM_SYNTAX = -1, NUM_RANGE = -2 } num_status;
typedef enum { NUM_WHOLE, NUM_SIZE } num_kind;

/* A hex digit's value plus one, 0 for any other byte. */
extern const uint8_t num_hexval[256];

/* Hex digits at *p (at least one; leading zeros free; at most 64 bits'
 * worth); advances *p. -1 on no digit or overflow. */
static inline int num_scan_hex(const char **p, const char *end, uint64_t *out) {
  const char *s = *p;
  uint64_t v = 0;
  unsigned digit;
  while (s < end && (digit = num_hexval[(unsigned char)*s]) != 0) {
    if (v >> 60) return -1;
    v = v << 4 | (digit - 1);
    s++;
  }
  if (s == *p) return -1;
  *p = s;
  *out = v;
  return 0;
}

/* num_scan_hex for text that ends in a byte that is no hex digit (a NUL-
 * terminated string): no end test per digit, the same results. */
static inline int num_scan_hex_to_stop(const char **p, uint64_t *out) {
  const unsigned char *s = (const unsigned char *)*p;
  uint64_t v = 0;
  unsigned digit;
  while ((digit = num_hexval[*s]) != 0) {
    if (v >> 60) return -1;
    v = v << 4 | (digit - 1);
    s++;
  }
  if (s == (const unsigned char *)*p) return -1;
  *p = (const char *)s;
  *out = v;
  return 0;
}

/* How many hex digits begin the 16 bytes at s (0 to 16; all 16 bytes are
 * read, so the caller keeps them readable), and in *nibbles the 16 bytes'
 * nibbles as a number whose first digit is s[0]: the value of the first n
 * digits is *nibbles >> 4 * (16 - n). For parsers that find a field's end
 * and value in one pass: with SSE2, all 16 bytes are classified and
 * converted at once. */
static inline unsigned num_hex_lead16(const char *s, uint64_t *nibbles) {
#if defined(__SSE2__) && defined(__x86_64__)
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
  /* A range test in one add and one compare: adding 0x80 - lo moves [lo,
   * hi] to the bottom of the signed bytes, [-128, -128 + hi - lo], and
   * every other byte above it. Letters go to lower case first (| 0x20). */
  __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - '0'))), _mm_set1_epi8(-128 + 10));
  __m128i letter = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8((char)(0x80 - 'a'))),
                                  _mm_set1_epi8(-128 + 6));
  unsigned hex = (unsigned)_mm_movemask_epi8(_mm_or_si128(digit, letter));
  __m128i v = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)), _mm_and_si128(letter, _mm_set1_epi8(9)));
  /* two nibbles a byte (the first high), then the 8 bytes first-highest */
  __m128i pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0x00ff)), 4), _mm_srli_epi16(v, 8));
  *nibbles = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)));
  return (unsigned)__builtin_ctz(~hex);
#else
  uint64_t v = 0;
  unsigned n = 16;
  for (unsigned i = 0; i < 16; i++) {
    unsigned d = num_hexval[(unsigned char)s[i]];
    if (!d && n == 16) n = i;
    v = v << 4 | ((d - 1) & 15);
  }
  *nibbles = v;
  return n;
#endif
}

/* The value of the n (1 to 16) hex digits at s, reading 16 bytes at s
 * whatever n is (the caller keeps them readable); -1 if one is no hex
 * digit. For parsers whose fields end where the line ends. */
static inline int num_hex16(const char *s, size_t n, uint64_t *out) {
  uint64_t nibbles;
  if (n == 0 || n > 16 || num_hex_lead16(s, &nibbles) < n) return -1;
  *out = nibbles >> (4 * (16 - n));
  return 0;
}

/* Decimal digits at *p, as num_scan_hex. */
static inline int num_scan_dec(const char **p, const char *end, uint64_t *out) {
  const char *s = *p;
  uint64_t v = 0;
  while (s < end && *s >= '0' && *s <= '9') {
    unsigned digit = (unsigned)(*s++ - '0');
    if (v > (UINT64_MAX - digit) / 10) return -1;
    v = v * 10 + digit;
  }
  if (s == *p) return -1;
  *p = s;
  *out = v;
  return 0;
}

/* A whole number filling [s, end): decimal, or hex after 0x. */
int num_span_whole(const char *s, const char *end, uint64_t *out);
/* A size filling [s, end). */
int num_span_size(const char *s, const char *end, uint64_t *out);

/* Whole NUL-terminated strings: 0 or -1. */
int num_parse_whole(const char *s, uint64_t *out);
int num_parse_size(const char *s, uint64_t *out);
int num_parse_real(const char *s, double *out);

/* A comma list of numbers of kind k (whole numbers or sizes) and ranges
 * LO..HI: per_octave values per doubling from LO while they stay at most HI,
 * each rounded to a whole number (per_octave 1: LO, 2LO, 4LO, ...). -1 on a
 * bad item, an empty list or item, LO 0 or above HI, or more than max values.
 * The one list every command line and tlbsim-gpu option reads sizes with. */
int num_parse_list(const char *s, num_kind k, unsigned per_octave, uint64_t *out, size_t max, size_t *n);
/* A comma list of reals, each in [lo, hi]. -1 as num_parse_list. */
int num_parse_real_list(const char *s, double lo, double hi, double *out, size_t max, size_t *n);

/* The same with a range check. */
num_status num_whole_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
num_status num_size_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
num_status num_real_in(const char *s, double lo, double hi, double *out);

/* What a ranged parse expected, for messages: "a whole number from 1 to
 * 4294967295", "a size of at most 16MiB", "a number from 0 to 1". */
const char *num_expect(num_kind k, uint64_t lo, uint64_t hi, char *buf, size_t len);
const char *num_expect_real(double lo, double hi, char *buf, size_t len);

/* What is wrong with `value` after a ranged parse returned st (not NUM_OK):
 * "'VALUE' is not a whole number" (or "a size (e.g. ...)", "a number") for
 * NUM_SYNTAX, "'VALUE' is out of range (LO..HI)" for NUM_RANGE. VALUE is
 * quoted with what is not printable shown as '?' and cut at 40 bytes; sizes'
 * bounds are written in the largest exact binary unit. Returns buf. */
const char *num_complaint(num_status st, num_kind k, const char *value, uint64_t lo, uint64_t hi, char *buf,
                          size_t len);
const char *num_complaint_real(num_status st, const char *value, double lo, double hi, char *buf, size_t len);
/* "LO..HI" as num_complaint writes it. */
const char *num_range_text(num_kind k, uint64_t lo, uint64_t hi, char *buf, size_t len);
/* `value` for a message: at most 40 bytes of it and "..." when cut, '?'
 * for what is not printable (44 bytes of buf hold the longest). */
const char *num_quote(const char *value, char *buf, size_t len);

/* v rounded up to a multiple of `to` (> 0) in *out; false (and *out
 * untouched) when the result would pass 2^64 - 1. */
static inline bool num_round_up(uint64_t v, uint64_t to, uint64_t *out) {
  uint64_t rem = v % to, r;
  if (!rem) return *out = v, true;
  if (__builtin_add_overflow(v, to - rem, &r)) return false;
  *out = r;
  return true;
}

/* a + b, or UINT64_MAX when the sum would pass it. */
static inline uint64_t num_add_sat(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The noun for n things in a text report: one for 1, many otherwise ("1
 * write", "2 writes"; "1 entry", "0 entries"). */
static inline const char *num_noun(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/* LEB128 numbers of binary formats (7 bits a byte, low first, the high
 * bit set on every byte but the last; at most 10 bytes and 64 bits). The
 * reader reads from padded input without end tests: the caller checks
 * afterwards that p stayed inside what was there. NULL for a number
 * longer or wider than 64 bits. */
static inline const uint8_t *num_get_leb128(const uint8_t *p, uint64_t *v) {
  if (*p < 0x80) {
    *v = *p;
    return p + 1;
  }
  uint64_t x = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    uint8_t c = *p++;
    x |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      if (shift == 63 && c > 1) return NULL;
      *v = x;
      return p;
    }
  }
  return NULL;
}

/* Writes v (at most 10 bytes) and returns the byte after it. */
static inline uint8_t *num_put_leb128(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* Signed numbers as LEB128: zigzag, 0, -1, 1, -2, ... as 0, 1, 2, 3, ... */
static inline uint64_t num_zigzag(uint64_t delta) { return delta << 1 ^ (uint64_t)-(int64_t)(delta >> 63); }
static inline uint64_t num_unzigzag(uint64_t z) { return z >> 1 ^ -(z & 1); }

/* Writes a size as the largest exact binary unit: "4KiB", "2MiB", "1536B". */
const char *num_format_size(uint64_t bytes, char *buf, size_t len);
/* Writes a finite real in the fewest significant digits that read back
 * as the same double ("0.45" for 0.45, not 0.45000000000000001), always
 * with a '.' or an exponent so it reads as a real ("1.0"): how every
 * report writes one (len at least NUM_REAL_MAX). */
#define NUM_REAL_MAX 32
const char *num_format_real(double v, char *buf, size_t len);

#endif
