#include "tlbsim/base.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int u64_parse(const char *text, uint64_t *out) {
  if (!text || !*text || *text == '-' || *text == '+' || isspace((unsigned char)*text)) return -1;
  char *end;
  errno = 0;
  bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  unsigned long long v = strtoull(text, &end, hex ? 16 : 10); /* "010" is ten, not octal */
  if (errno || end == text || *end) return -1;
  *out = v;
  return 0;
}

/* Binary unit suffixes; "KiB" and "K" mean the same. */
static int suffix_shift(const char *s, unsigned *shift) {
  static const struct { const char *name; unsigned shift; } units[] = {
      {"", 0},   {"b", 0},   {"k", 10},  {"kb", 10},  {"kib", 10}, {"m", 20},  {"mb", 20},
      {"mib", 20}, {"g", 30}, {"gb", 30}, {"gib", 30}, {"t", 40},   {"tb", 40}, {"tib", 40},
  };
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (!strcasecmp(s, units[i].name)) {
      *shift = units[i].shift;
      return 0;
    }
  return -1;
}

int size_parse(const char *text, uint64_t *out) {
  if (!text || !isdigit((unsigned char)*text)) return -1;
  char *end;
  errno = 0;
  bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  unsigned long long v = strtoull(text, &end, hex ? 16 : 10);
  if (errno || end == text) return -1;
  unsigned shift;
  if (hex ? *end != '\0' : suffix_shift(end, &shift)) return -1;
  if (hex) shift = 0;
  if (shift && v > (UINT64_MAX >> shift)) return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

const char *size_format(uint64_t bytes, char *buf, size_t len) {
  static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned u = 0;
  while (u < 4 && bytes && (bytes & 1023) == 0) {
    bytes >>= 10;
    u++;
  }
  snprintf(buf, len, "%llu%s", (unsigned long long)bytes, names[u]);
  return buf;
}
