/* kmem_cache.c — a sectored set-associative cache, LRU (tlbsim/kmem.h).
 * The set is a multiplicative hash of the line number: GPU L1 and L2
 * caches hash addresses over their sets and slices, so strides do not fall
 * on one set. */
#include "tlbsim/kmem.h"

#include <stdlib.h>

#define NO_LINE UINT64_MAX

struct kmem_cache {
  uint64_t sets;
  uint32_t ways;
  uint64_t *tag;    /* sets x ways: the line, or NO_LINE */
  uint8_t *valid;   /* its sectors */
  uint64_t *used;   /* when it was last used (the clock) */
  uint64_t clock;
};

kmem_cache *kmem_cache_create(uint64_t bytes, uint32_t ways, diag *d) {
  uint64_t lines = bytes >> KMEM_LINE_SHIFT;
  if (!ways || lines < ways) {
    diag_set(d, NULL, 0, "a cache of %llu bytes in %u ways holds no set", (unsigned long long)bytes, ways);
    return NULL;
  }
  kmem_cache *c = calloc(1, sizeof *c);
  uint64_t n = lines / ways * ways;
  if (c) {
    c->sets = lines / ways;
    c->ways = ways;
    c->tag = malloc(n * sizeof *c->tag);
    c->valid = calloc(n, 1);
    c->used = calloc(n, sizeof *c->used);
  }
  if (!c || !c->tag || !c->valid || !c->used) {
    kmem_cache_destroy(c);
    diag_set(d, NULL, 0, "out of memory for a cache of %llu bytes", (unsigned long long)bytes);
    return NULL;
  }
  for (uint64_t i = 0; i < n; i++) c->tag[i] = NO_LINE;
  return c;
}

void kmem_cache_destroy(kmem_cache *c) {
  if (!c) return;
  free(c->tag);
  free(c->valid);
  free(c->used);
  free(c);
}

uint64_t kmem_cache_lines(const kmem_cache *c) { return c->sets * c->ways; }

uint8_t kmem_cache_access(kmem_cache *c, uint64_t line, uint8_t sectors) {
  uint64_t h = line * 0x9E3779B97F4A7C15ull;
  uint64_t base = ((h ^ (h >> 32)) % c->sets) * c->ways, victim = base;
  c->clock++;
  for (uint64_t i = base; i < base + c->ways; i++) {
    if (c->tag[i] == line) {
      uint8_t held = c->valid[i] & sectors;
      c->valid[i] |= sectors;
      c->used[i] = c->clock;
      return held;
    }
    if (c->used[i] < c->used[victim]) victim = i;
  }
  c->tag[victim] = line;
  c->valid[victim] = sectors;
  c->used[victim] = c->clock;
  return 0;
}
