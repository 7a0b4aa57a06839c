/* gpu_bufset.h — a set of live buffers, as the translation hardware sees it:
 * how many VA regions of 2 MiB (a page) and of 32 MiB (an L2-TLB entry on the
 * H200) the buffers and their first lines fall into, and the layout of the
 * same sizes carved in order from one allocation (a pool).
 *
 * `smallbufs` and `churn-gather` measure a chase and a gather over the first
 * 128-byte line of every buffer of such a set; these numbers are what a
 * model of the allocator must reproduce for the same set.
 */
#ifndef TLBSIM_GPU_BUFSET_H
#define TLBSIM_GPU_BUFSET_H

#ifdef __cplusplus
extern "C" {
#endif

#include "tlbsim/base.h"

#define GPU_REGION_2M_SHIFT 21
#define GPU_REGION_32M_SHIFT 25
/* A pool carves each request rounded up to this, like cudaMalloc's packing
 * of small requests (gpu/README.md, "cudaMalloc layout"). */
#define GPU_POOL_CARVE_ALIGN 512u

typedef struct gpu_bufset_stats {
  uint64_t buffers;
  uint64_t live_bytes;       /* sum of the requested sizes */
  uint64_t va_span;          /* max(va + size) - min(va) */
  uint64_t va_min;
  uint64_t regions_2m;       /* distinct 2 MiB regions any buffer byte lies in */
  uint64_t regions_32m;      /* the same for 32 MiB */
  uint64_t line_regions_2m;  /* distinct 2 MiB regions of the first lines */
  uint64_t line_regions_32m; /* the same for 32 MiB: L2-TLB entries a gather needs */
} gpu_bufset_stats;

/* Statistics of n buffers (n >= 1, sizes >= 1). -1 with a diag when out of
 * memory or a buffer wraps past 2^64. */
int gpu_bufset_stats_of(const uint64_t *va, const uint64_t *size, size_t n, gpu_bufset_stats *out, diag *d);

/* offset[i] = where buffer i starts in a pool that carves the sizes in
 * order, each rounded up to align (a power of two); *total = the pool's
 * size. -1 with a diag on overflow or a bad align. */
int gpu_pool_carve(const uint64_t *size, size_t n, uint64_t align, uint64_t *offset, uint64_t *total, diag *d);

#ifdef __cplusplus
}
#endif
#endif
