/* kmem_coalesce.c — a warp instruction's lane addresses as lines and
 * sectors (tlbsim/kmem.h). */
#include "tlbsim/kmem.h"

#include <string.h>

/* Sector bits of [lo, hi] (byte offsets within one line). */
static uint8_t sector_span(uint64_t lo, uint64_t hi) {
  unsigned a = (unsigned)(lo >> KMEM_SECTOR_SHIFT), b = (unsigned)(hi >> KMEM_SECTOR_SHIFT);
  return (uint8_t)(((1u << (b + 1)) - 1) & ~((1u << a) - 1));
}

/* The lines found so far, by a hash of the line (linear probing): a
 * gather's 32 lanes on 32 lines are found in a step each, not in a scan
 * of those before. The lines stay in the order first seen. Most lanes
 * fall on the lane before's line and most instructions on one or two
 * lines, so the hash is filled only when a third line is looked for
 * (seen: its state), not cleared for every instruction. */
#define WHERE_BITS 7
#define WHERE_SIZE (1u << WHERE_BITS)
_Static_assert(WHERE_SIZE >= 2 * KMEM_LINES_MAX && KMEM_LINES_MAX < 256, "where[] holds every line, index + 1 in a byte");

typedef struct seen {
  bool hashed;               /* where[] holds every line of out */
  uint8_t where[WHERE_SIZE]; /* index + 1 in out, 0 empty */
} seen;

static unsigned slot_of(const seen *w, const kmem_line *out, uint64_t line) {
  unsigned h = (unsigned)((line * 0x9E3779B97F4A7C15ull) >> (64 - WHERE_BITS));
  while (w->where[h] && out[w->where[h] - 1].line != line) h = (h + 1) & (WHERE_SIZE - 1);
  return h;
}

/* A line not the lane before's (the last of out, if any). */
static unsigned add_other(kmem_line *out, unsigned n, seen *w, uint64_t line, uint8_t sectors) {
  if (n >= 2) { /* lines other than the last to look in */
    if (!w->hashed) {
      memset(w->where, 0, sizeof w->where);
      for (unsigned k = 0; k < n; k++) w->where[slot_of(w, out, out[k].line)] = (uint8_t)(k + 1);
      w->hashed = true;
    }
    unsigned h = slot_of(w, out, line);
    if (w->where[h]) {
      out[w->where[h] - 1].sectors |= sectors;
      return n;
    }
    if (n == KMEM_LINES_MAX) return n;
    w->where[h] = (uint8_t)(n + 1);
  }
  out[n] = (kmem_line){.line = line, .sectors = sectors};
  return n + 1;
}

static inline unsigned add(kmem_line *out, unsigned n, seen *w, uint64_t line, uint8_t sectors) {
  if (n && out[n - 1].line == line) { /* the lane before's line: most lanes */
    out[n - 1].sectors |= sectors;
    return n;
  }
  return add_other(out, n, w, line, sectors);
}

unsigned kmem_coalesce(const uint64_t *addr, unsigned n, unsigned width, kmem_line out[KMEM_LINES_MAX]) {
  const uint64_t mask = (1u << KMEM_LINE_SHIFT) - 1;
  unsigned lines = 0;
  seen w;
  w.hashed = false; /* where[] is cleared when first needed */
  if (!width) width = 1;
  for (unsigned l = 0; l < n; l++) {
    uint64_t first = addr[l], last = addr[l] + width - 1;
    if (first >> KMEM_LINE_SHIFT == last >> KMEM_LINE_SHIFT) {
      lines = add(out, lines, &w, first >> KMEM_LINE_SHIFT, sector_span(first & mask, last & mask));
      continue;
    }
    lines = add(out, lines, &w, first >> KMEM_LINE_SHIFT, sector_span(first & mask, mask));
    lines = add(out, lines, &w, last >> KMEM_LINE_SHIFT, sector_span(0, last & mask));
  }
  return lines;
}
