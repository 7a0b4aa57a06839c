/* kmem_l2.c — the L2 as one SM sees it: its partition's near copies over
 * the whole L2 (tlbsim/kmem.h). */
#include "tlbsim/kmem.h"

#include <stdlib.h>

struct kmem_l2 {
  kmem_cache *whole;
  kmem_cache *near[KMEM_L2_PARTS];
  unsigned parts;
};

kmem_l2 *kmem_l2_create(uint64_t bytes, uint32_t ways, unsigned parts, const uint64_t *near_bytes, diag *d) {
  if (parts > KMEM_L2_PARTS) {
    diag_set(d, NULL, 0, "an L2 of %u partitions: at most %d", parts, KMEM_L2_PARTS);
    return NULL;
  }
  kmem_l2 *l = calloc(1, sizeof *l);
  if (!l) {
    diag_set(d, NULL, 0, "out of memory for the L2");
    return NULL;
  }
  l->parts = parts;
  bool ok = (l->whole = kmem_cache_create(bytes, ways, d)) != NULL;
  for (unsigned p = 0; ok && p < parts; p++) ok = (l->near[p] = kmem_cache_create(near_bytes[p], ways, d)) != NULL;
  if (!ok) {
    kmem_l2_destroy(l);
    return NULL;
  }
  return l;
}

void kmem_l2_destroy(kmem_l2 *l) {
  if (!l) return;
  kmem_cache_destroy(l->whole);
  for (unsigned p = 0; p < l->parts; p++) kmem_cache_destroy(l->near[p]);
  free(l);
}

/* The near copy first (a KMEM_L2_HOME read has none); what it lacks is looked up in the whole L2 (which
 * then holds it: fetched from DRAM when it did not), and the near copy
 * keeps every sector read from now on. */
void kmem_l2_read(kmem_l2 *l, unsigned part, uint64_t line, uint8_t sectors, kmem_l2_got *got) {
  *got = (kmem_l2_got){0};
  if (!l->parts || part == KMEM_L2_HOME) {
    got->near = kmem_cache_access(l->whole, line, sectors, false, &got->evict);
    return;
  }
  got->near = kmem_cache_access(l->near[part < l->parts ? part : 0], line, sectors, false, NULL);
  uint8_t want = sectors & (uint8_t)~got->near;
  if (want) got->far = kmem_cache_access(l->whole, line, want, false, &got->evict);
}

void kmem_l2_prefetch(const kmem_l2 *l, unsigned part, uint64_t line) {
  if (l->parts && part != KMEM_L2_HOME) kmem_cache_prefetch(l->near[part < l->parts ? part : 0], line);
  kmem_cache_prefetch(l->whole, line);
}

void kmem_l2_write(kmem_l2 *l, uint64_t line, uint8_t sectors, bool back, kmem_evict *evict) {
  kmem_cache_access(l->whole, line, sectors, back, evict);
}
