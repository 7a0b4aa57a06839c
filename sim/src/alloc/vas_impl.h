/* vas_impl.h — what the policies share (internal to the vas module).
 *
 * vas_policy  one policy's operations; vas.c dispatches to them and keeps
 *             the statistics that do not depend on the policy.
 * vas_extents a policy's view of its free memory: pieces a single request
 *             could use whole. Their sum is capacity - allocated.
 * vdrv        the driver underneath the GPU models and the generic heaps:
 *             the VA space (a first-fit extent set) and the mappings built
 *             in it. Every map/unmap is counted here: PTEs written, one TLB
 *             shootdown per torn-down mapping, reserved bytes and peak,
 *             capacity checks, the owner's hooks.
 * struct vas  the instance: config (defaults resolved), stats, driver and
 *             the policy's own state.
 */
#ifndef TLBSIM_VAS_IMPL_H
#define TLBSIM_VAS_IMPL_H

#include "tlbsim/vas.h"
#include "vas_extent.h"

typedef struct vas_extents {
  uint64_t count, largest, total;
} vas_extents;

typedef struct vas_policy {
  const char *name, *summary;
  /* Fills its defaults into v->cfg (zero fields) and builds its state. */
  int (*init)(vas *v, diag *d);
  void (*fini)(vas *v); /* unmaps what is still mapped, frees its state */
  /* Stats the policy sets: allocated/requested bytes through vas_note_*,
   * driver_allocs/frees itself; vas.c counts allocs, frees and OOMs. */
  int (*alloc)(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d);
  int (*free)(vas *v, uint64_t va, diag *d);
  void (*extents)(const vas *v, vas_extents *out);
  /* The largest run of contiguous free memory, where extents side by side
   * make one (buddy's blocks); NULL: the largest extent is one. Asked at
   * an OOM only, to tell fragmentation from granularity. */
  uint64_t (*free_range)(const vas *v);
} vas_policy;

/* A piece of VA the driver set aside; placements inside it go bottom-up. */
typedef struct vchunk {
  struct vchunk *next; /* in creation order */
  uint64_t base, size;
  vext free;
} vchunk;

typedef struct vdrv {
  vas_hooks hooks;
  vas_stats *st;
  uint64_t capacity;
  vext va;        /* free VA of the managed range */
  uint64_t chunk; /* 0: place first fit in va; else carve chunks of this size top-down */
  vchunk *chunks, **chunks_tail;
  bool va_refused; /* the managed range had no room for a reservation (since vas_alloc cleared it) */
} vdrv;

struct vas {
  const vas_policy *policy;
  vas_config cfg;
  vas_stats st;
  vdrv drv;
  void *impl;
};

extern const vas_policy vas_first_fit, vas_next_fit, vas_best_fit, vas_buddy, vas_cuda, vas_caching,
    vas_expandable;

/* Bookkeeping of live blocks (sizes as the policy rounded them). */
void vas_note_alloc(vas *v, uint64_t block, uint64_t requested);
void vas_note_free(vas *v, uint64_t block, uint64_t requested);

/* Maps [va, va+size) with 2^shift pages. VAS_OOM when the capacity or the
 * owner's hook refuses. */
int vdrv_map(vdrv *dv, uint64_t va, uint64_t size, unsigned shift, diag *d);
void vdrv_unmap(vdrv *dv, uint64_t va, uint64_t size, unsigned shift);
static inline uint64_t vdrv_unreserved(const vdrv *dv) { return dv->capacity - dv->st->reserved_bytes; }
/* VA from the managed range: first fit, or (dv->chunk set) first fit in the
 * oldest chunk with room, else a new chunk of max(chunk, size) carved from
 * the top of the free range. VAS_OK, VAS_OOM (range full) or VAS_ERR (host
 * memory). */
int vdrv_reserve(vdrv *dv, uint64_t size, uint64_t align, uint64_t *va, diag *d);
/* VA top-down: the highest free place that ends at or below limit, else
 * the highest anywhere (how the driver reserves its chunks for cudaMalloc). */
int vdrv_reserve_below(vdrv *dv, uint64_t limit, uint64_t size, uint64_t align, uint64_t *va, diag *d);
int vdrv_release(vdrv *dv, uint64_t va, uint64_t size, diag *d);
void vdrv_fini(vdrv *dv);

/* v rounded up to a multiple of `to`; UINT64_MAX when that passes 2^64 - 1,
 * a size no capacity holds, so the request becomes an OOM instead of
 * wrapping to a small one. */
static inline uint64_t round_up(uint64_t v, uint64_t to) {
  uint64_t r;
  return num_round_up(v, to, &r) ? r : UINT64_MAX;
}

/* Generic policies: defaults and checks page_size/alignment; *align gets
 * the larger of the two. */
int vas_generic_page_setup(vas *v, unsigned *shift, uint64_t *align, diag *d);

/* Errors policies share. */
int vas_err_nomem(diag *d);
int vas_err_not_live(const vas *v, uint64_t va, diag *d);

#endif
