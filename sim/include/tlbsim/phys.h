/* tlbsim/phys.h — physical memory: a finite set of frames handed out in the
 * page sizes the page table maps.
 *
 * phys  owns a capacity and a binary-buddy free map (one bitmap per order).
 *       Frames are aligned to their size. Each order hands out its lowest
 *       free block first, splitting the lowest larger one when empty, so
 *       runs are deterministic and consecutive allocations of one size are
 *       physically contiguous while memory is unfragmented (which is what
 *       lets sector TLB entries coalesce). Exhaustion is reported, never
 *       hidden.
 */
#ifndef TLBSIM_PHYS_H
#define TLBSIM_PHYS_H

#include "tlbsim/base.h"

typedef struct phys phys;

/* Frames are at least 2^min_shift bytes (the format's smallest page);
 * capacity is rounded down to that. NULL if capacity < one frame. */
phys *phys_create(uint64_t capacity_bytes, unsigned min_shift);
void phys_destroy(phys *p);
/* Allocates one aligned frame of 2^page_shift bytes; -1 when none is free. */
int phys_alloc(phys *p, unsigned page_shift, uint64_t *pa);
void phys_free(phys *p, uint64_t pa, unsigned page_shift);
uint64_t phys_capacity(const phys *p);
uint64_t phys_used(const phys *p);
uint64_t phys_used_peak(const phys *p);

#endif
