/* vas_extent.h — a set of free address ranges (internal).
 *
 * vext    free extents of one range, coalesced on insertion, indexed twice:
 *         by address (weight = size: first fit, next fit, the largest) and
 *         by (size, address) (best fit). Used for the generic policies'
 *         heap, the driver's VA space and the holes of cuda's small regions.
 *         Owns its nodes.
 */
#ifndef TLBSIM_VAS_EXTENT_H
#define TLBSIM_VAS_EXTENT_H

#include <stdbool.h>

#include "vas_tree.h"

/* FIRST: lowest address; NEXT: first from the end of the last placement,
 * wrapping; BEST: smallest extent, lowest address on ties; TOP: highest
 * address, placed at the extent's top end (top-down VA placement). */
typedef enum { VEXT_FIRST, VEXT_NEXT, VEXT_BEST, VEXT_TOP } vext_fit;

typedef struct vext {
  vtree by_addr, by_size;
  uint64_t free_bytes;
  uint64_t cursor; /* next fit resumes here: the end of its last placement */
} vext;

/* Returns [addr, addr+size) to the set, merging with free neighbours.
 * -1: out of host memory. */
int vext_add(vext *x, uint64_t addr, uint64_t size);
/* Places size bytes aligned to align (a power of two). 1: placed at *addr,
 * 0: no extent fits, -1: out of host memory. */
int vext_take(vext *x, vext_fit fit, uint64_t size, uint64_t align, uint64_t *addr);
/* Places size bytes aligned at the highest address that ends at or below
 * limit (top-down placement under what lies above). As vext_take. */
int vext_take_below(vext *x, uint64_t limit, uint64_t size, uint64_t align, uint64_t *addr);
/* Frees every node; the set is empty afterwards. */
void vext_clear(vext *x);

static inline size_t vext_count(const vext *x) { return x->by_addr.count; }
static inline uint64_t vext_largest(const vext *x) { return vtree_max_weight(&x->by_addr); }

#endif
