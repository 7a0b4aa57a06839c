/* tlbsim/phys.h — physical memory: a finite set of frames handed out in the
 * page sizes the page table maps.
 *
 * phys  owns a capacity and a binary-buddy free map (one bitmap per order).
 *       Frames are aligned to their size. Each order hands out its lowest
 *       free block first, splitting the lowest larger one when empty, so
 *       runs are deterministic and consecutive allocations of one size are
 *       physically contiguous while memory is unfragmented (which is what
 *       lets sector TLB entries coalesce). Or the highest first (splitting
 *       the highest larger one), the way a GPU driver can hand out video
 *       memory: then each consecutive allocation lies below the one before.
 *       Exhaustion is reported, never hidden.
 */
#ifndef TLBSIM_PHYS_H
#define TLBSIM_PHYS_H

#include "tlbsim/base.h"

typedef struct phys phys;

/* Which free block each order hands out. */
typedef enum { PHYS_LOWEST_FIRST, PHYS_HIGHEST_FIRST } phys_order;

/* Names by phys_order ("lowest-first", "highest-first"), NULL-terminated. */
extern const char *const phys_order_names[];

/* Frames are at least 2^min_shift bytes (the format's smallest page);
 * capacity is rounded down to that. NULL if capacity < one frame. */
phys *phys_create(uint64_t capacity_bytes, unsigned min_shift, phys_order order);
void phys_destroy(phys *p);
/* Allocates one aligned frame of 2^page_shift bytes; -1 when none is free,
 * PHYS_NO_HOST_MEMORY when the host has no memory for the free map of a
 * split (the simulated memory is not full: never report it as if it were). */
#define PHYS_NO_HOST_MEMORY (-2)
int phys_alloc(phys *p, unsigned page_shift, uint64_t *pa);
/* Takes the frame of 2^page_shift bytes at pa, chosen by the caller (a
 * textbook's page table written entry by entry): PHYS_AT_OK, or what is in
 * the way, nothing taken. */
typedef enum {
  PHYS_AT_OK = 0,
  PHYS_AT_BEYOND = -1,         /* past the capacity */
  PHYS_AT_IN_USE = -2,         /* some of it is taken */
  PHYS_AT_MISALIGNED = -3,     /* pa not a multiple of the size, or the size below a frame */
  PHYS_AT_NO_HOST_MEMORY = -4,
} phys_at_status;
int phys_alloc_at(phys *p, uint64_t pa, unsigned page_shift);
void phys_free(phys *p, uint64_t pa, unsigned page_shift);
uint64_t phys_capacity(const phys *p);
uint64_t phys_used(const phys *p);
uint64_t phys_used_peak(const phys *p);

#endif
