/* tlbsim/vas.h — a virtual address space managed by an allocator policy.
 *
 * vas         one policy instance: which VA a request gets, and which
 *             driver-level mappings (cudaMalloc segments, cuMemMap pieces,
 *             mmap'd regions) it builds and tears down to back it. It owns
 *             its free-space structures and a count of the physical bytes
 *             it has mapped, capped at the configured capacity.
 * vas_hooks   how a policy tells its owner about those mappings: the machine
 *             maps/unmaps pages in the page table and shoots down TLBs; the
 *             `alloc` command only counts. A failing map hook is an OOM.
 * vas_config  the memory (capacity, VA range) and every model parameter.
 *             A zero field means "the policy's default", so a zeroed config
 *             with a capacity is a valid one; vas_config_set sets fields by
 *             name for `--set KEY=VALUE`.
 * vas_stats   allocated/reserved bytes and peaks, driver calls, page-table
 *             updates, shootdowns, OOMs, fragmentation: what `tlbsim alloc`
 *             reports. Kept current after every call.
 *
 * Policies (docs/ALLOC.md has the rules and their sources):
 *   first-fit, next-fit, best-fit, buddy  generic, over a finite VA range
 *       (default: as large as the capacity) mapped page by page;
 *   cuda        cudaMalloc/cudaFree as measured on the H200;
 *   caching     PyTorch's CUDA caching allocator;
 *   expandable  the same with expandable_segments:True.
 */
#ifndef TLBSIM_VAS_H
#define TLBSIM_VAS_H

#include "tlbsim/base.h"

typedef struct vas_hooks {
  void *ctx;
  /* A mapping of [va, va+size) with pages of 2^page_shift was built.
   * Nonzero: no memory for it (the policy treats it as an OOM). */
  int (*map)(void *ctx, uint64_t va, uint64_t size, unsigned page_shift, diag *d);
  /* The same range is torn down. */
  void (*unmap)(void *ctx, uint64_t va, uint64_t size, unsigned page_shift);
} vas_hooks;

typedef struct vas_config {
  uint64_t va_base;        /* start of the managed range (0: 1 TiB) */
  uint64_t va_size;        /* its length (0: generic = capacity, GPU = 2^47 - base) */
  uint64_t phys_capacity;  /* bytes the policy may have mapped at once; required */
  uint64_t page_size;      /* generic: granule and page they map with (0: 4 KiB) */
  uint64_t alignment;      /* generic: minimum alignment of returned addresses */
  uint64_t max_split_size; /* caching: blocks this large are never split (0 or UINT64_MAX: none) */
  uint64_t seed;           /* for policies that make random choices (none of today's do) */
  /* cuda: cudaMalloc as the driver does it (defaults: docs/ALLOC.md) */
  uint64_t cuda_small_align;   /* small requests round up to this */
  uint64_t cuda_small_max;     /* requests up to this size share regions; larger get their own pages */
  uint64_t cuda_large_round;   /* large requests round up to this */
  uint64_t cuda_region_size;   /* small requests share regions of this size */
  uint64_t cuda_small_page;    /* page size a small region is mapped with */
  uint64_t cuda_large_page;    /* page size large requests are mapped with */
  uint64_t cuda_va_chunk;      /* cuda: the driver reserves VA top-down in chunks this large (0: 32 MiB);
                                  caching: its segments' VA the same way (0: first fit, no chunks) */
  /* caching / expandable: c10/cuda/CUDACachingAllocator.cpp constants */
  uint64_t min_block;       /* kMinBlockSize: every size rounds up to it */
  uint64_t small_size;      /* kSmallSize: largest request of the small pool */
  uint64_t small_buffer;    /* kSmallBuffer: small-pool segment / expandable piece */
  uint64_t min_large_alloc; /* kMinLargeAlloc: below it a large request gets a large_buffer */
  uint64_t large_buffer;    /* kLargeBuffer: that segment / expandable piece */
  uint64_t round_large;     /* kRoundLarge: larger requests round up to it */
} vas_config;

/* Why a request found no memory (vas_alloc's VAS_OOM):
 *   exhausted      fewer free bytes in all than it asked for
 *   fragmentation  enough free bytes in all, but no free extent holds them
 *   granularity    a free extent holds the bytes asked for, but not the
 *                  block the policy rounds them up to (buddy's power of two)
 *   va_range       a GPU policy's VA range had no room left where memory
 *                  had (va_size too small for what was reserved in it) */
typedef enum {
  VAS_OOM_NONE, VAS_OOM_EXHAUSTED, VAS_OOM_FRAGMENTATION, VAS_OOM_GRANULARITY, VAS_OOM_VA_RANGE, VAS_OOM_NREASONS
} vas_oom_reason;
const char *vas_oom_reason_name(vas_oom_reason r);

typedef struct vas_stats {
  uint64_t allocated_bytes, allocated_peak;   /* live blocks as the policy sized them */
  uint64_t requested_bytes;                   /* what callers asked for (exact) */
  uint64_t internal_frag_at_peak;             /* allocated - requested when allocated peaked */
  uint64_t reserved_bytes, reserved_peak;     /* mapped by driver-level calls */
  uint64_t driver_allocs, driver_frees;       /* cudaMalloc/cudaFree, or map/unmap calls */
  uint64_t maps, unmaps;                      /* mappings built / torn down (cuMemMap pieces) */
  uint64_t pte_writes;                        /* PTEs written by maps plus cleared by unmaps */
  uint64_t shootdowns;                        /* one per torn-down mapping */
  uint64_t allocs, frees;
  uint64_t ooms, ooms_enough_free;            /* enough_free: the free bytes in all were at least the request */
  uint64_t ooms_by_reason[VAS_OOM_NREASONS];  /* each OOM counted once, by its reason */
  vas_oom_reason last_oom_reason;             /* the latest OOM's (VAS_OOM_NONE before any) */
  uint64_t free_extents, largest_free_extent, free_bytes;
  uint64_t largest_free_range;                /* at the last OOM: the longest run of free memory, the
                                                 policy's extents side by side (a request's bytes fit in
                                                 it: granularity; they do not: fragmentation) */
  double external_fragmentation, external_fragmentation_max;
} vas_stats;

enum { VAS_OK = 0, VAS_ERR = -1, VAS_OOM = -2 };

/* The largest capacity (256 TiB, the machine's phys_memory limit too): with
 * sizes and addresses below it, no policy's arithmetic can wrap. */
#define VAS_MAX_CAPACITY (UINT64_C(1) << 48)

typedef struct vas vas;

/* Unknown policy names are an error listing the known ones. */
vas *vas_create(const char *policy, const vas_config *c, const vas_hooks *h, diag *d);
/* Unmaps what is still mapped (through the hooks), then frees. */
void vas_destroy(vas *v);
/* VAS_OK with *va set, VAS_OOM (counted in stats), or VAS_ERR with d set.
 * align 0: the policy's own alignment. stream: requests are served from
 * free memory of their own stream only (caching, expandable). Every policy
 * maps at least the bytes it hands out, so a request larger than the
 * capacity is an OOM whatever the policy (no round-up is tried on it). */
int vas_alloc(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d);
/* VAS_ERR if va is not a live allocation. */
int vas_free(vas *v, uint64_t va, diag *d);
const vas_stats *vas_get_stats(const vas *v);
const char *vas_policy_name(const vas *v);
/* The configuration after defaults were filled in. */
const vas_config *vas_get_config(const vas *v);

size_t vas_policy_count(void);
const char *vas_policy_at(size_t i);
const char *vas_policy_summary(size_t i);

/* Parameters by name ("capacity", "max_split_size", "cuda_small_max", ...):
 * the one table both `tlbsim alloc --set KEY=VALUE` and a configuration's
 * [vas] section go through. Sizes take the numbers module's size forms;
 * parameters that must be powers of two say so. */
size_t vas_param_count(void);
const char *vas_param_at(size_t i, const char **doc);
int vas_param_find(const char *name); /* index, or -1 */
/* Sets parameter i; d (no location, no name) says what is wrong. */
int vas_param_set(vas_config *c, size_t i, const char *value, diag *d);
/* vas_param_find + vas_param_set; unknown keys are an error naming them. */
int vas_config_set(vas_config *c, const char *key, const char *value, diag *d);

#endif
