/* kmem_coalesce.c — a warp instruction's lane addresses as lines and
 * sectors (tlbsim/kmem.h). */
#include "tlbsim/kmem.h"

/* Sector bits of [lo, hi] (byte offsets within one line). */
static uint8_t sector_span(uint64_t lo, uint64_t hi) {
  unsigned a = (unsigned)(lo >> KMEM_SECTOR_SHIFT), b = (unsigned)(hi >> KMEM_SECTOR_SHIFT);
  return (uint8_t)(((1u << (b + 1)) - 1) & ~((1u << a) - 1));
}

static unsigned add(kmem_line *out, unsigned n, uint64_t line, uint8_t sectors) {
  for (unsigned i = n; i-- > 0;)
    if (out[i].line == line) {
      out[i].sectors |= sectors;
      return n;
    }
  if (n == KMEM_LINES_MAX) return n;
  out[n] = (kmem_line){.line = line, .sectors = sectors};
  return n + 1;
}

unsigned kmem_coalesce(const uint64_t *addr, unsigned n, unsigned width, kmem_line out[KMEM_LINES_MAX]) {
  const uint64_t mask = (1u << KMEM_LINE_SHIFT) - 1;
  unsigned lines = 0;
  if (!width) width = 1;
  for (unsigned l = 0; l < n; l++) {
    uint64_t first = addr[l], last = addr[l] + width - 1;
    if (first >> KMEM_LINE_SHIFT == last >> KMEM_LINE_SHIFT) {
      lines = add(out, lines, first >> KMEM_LINE_SHIFT, sector_span(first & mask, last & mask));
      continue;
    }
    lines = add(out, lines, first >> KMEM_LINE_SHIFT, sector_span(first & mask, mask));
    lines = add(out, lines, last >> KMEM_LINE_SHIFT, sector_span(0, last & mask));
  }
  return lines;
}
