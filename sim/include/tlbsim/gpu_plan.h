/* gpu_plan.h — which chase points a sweep measures.
 *
 * region_mapping   how the chased region is backed; decides what the TLB sees
 *               (see gpu/README.md): VMM chunks in VA order (contiguous) or
 *               in a seeded shuffled order, VMM with few physical chunks
 *               aliased at many VAs, one cudaMalloc, one cudaMallocManaged.
 * gpu_sweep     one group of points: strides x footprints for one mapping,
 *               footprints spaced `per_octave` per doubling from fmin to
 *               fmax (or an explicit list), node counts capped.
 * gpu_point     one measured point: stride, node count, footprint =
 *               nodes * stride (the span the chain touches).
 *
 * Footprint k of a sweep is fmin * 2^(k/per_octave), turned into a node
 * count by rounding footprint/stride; repeats of a node count are dropped,
 * so every point is distinct and lies on the stride grid exactly.
 */
#ifndef TLBSIM_GPU_PLAN_H
#define TLBSIM_GPU_PLAN_H

#include "tlbsim/gpu_chain.h"
#include "tlbsim/rows.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mappings are the simulator's list (region_mapping, tlbsim/rows.h:
 * REGION_CONTIGUOUS ... REGION_MANAGED, region_mapping_names). Page size the driver uses for the mapping: the VMM granularity for VMM
 * chunks and large cudaMalloc regions, 64 KiB for managed memory. */
uint64_t gpu_mapping_page_bytes(region_mapping m, uint64_t granularity);

#define GPU_MAX_LIST 64

/* How a managed region's pages became resident before a chase's chain is
 * written (the chain's own GPU stores populate whatever is still untouched):
 *   chain          nothing first: the chain writes of this point and of the
 *                  sweep's earlier points in the same region (column region)
 *   gpu:K          the GPU writes the first word of every K-th 64 KiB page
 *   host:K         the host writes those words (pages start on the host)
 *   host_prefetch  the host writes every byte, cudaMemPrefetchAsync to the GPU
 *   advise         as host_prefetch after cudaMemAdviseSetPreferredLocation(GPU)
 * Other mappings take chain only. */
typedef enum gpu_pop_kind { GPU_POP_CHAIN, GPU_POP_GPU, GPU_POP_HOST, GPU_POP_HOST_PREFETCH, GPU_POP_ADVISE } gpu_pop_kind;
typedef struct gpu_population {
  gpu_pop_kind kind;
  uint32_t every;   /* gpu:K and host:K: K >= 1; else 0 */
} gpu_population;

#define GPU_POP_PAGE (64u << 10)

int gpu_population_parse(const char *text, gpu_population *out);
/* "chain", "gpu:4", ... into buf. */
const char *gpu_population_name(const gpu_population *p, char *buf, size_t len);

typedef struct gpu_sweep {
  region_mapping mapping;
  unsigned orders;                   /* bit (1u << gpu_order) per order */
  uint64_t strides[GPU_MAX_LIST];
  size_t nstrides;
  uint64_t footprints[GPU_MAX_LIST]; /* explicit list; when empty, fmin..fmax */
  size_t nfootprints;
  uint64_t fmin, fmax;
  unsigned per_octave;
  uint64_t max_nodes;                /* points needing more nodes are skipped */
  gpu_population population;         /* managed: how the region is populated first */
} gpu_sweep;

typedef struct gpu_point {
  uint64_t stride;
  uint64_t footprint;
  uint32_t nodes;
} gpu_point;

typedef struct gpu_point_list {
  gpu_point *v;
  size_t n;
  size_t skipped_nodes;   /* points dropped by max_nodes */
} gpu_point_list;

/* Checks the sweep (strides multiples of 8, fmin <= fmax, per_octave >= 1,
 * max_nodes in 1..2^32-1) and lists its points, stride-major. */
int gpu_sweep_points(const gpu_sweep *s, gpu_point_list *out, diag *d);
void gpu_point_list_free(gpu_point_list *l);
/* Largest footprint of any point: the region the sweep must back. */
uint64_t gpu_point_list_max_footprint(const gpu_point_list *l);

/* The one-command full sweep (`tlbsim-gpu full`): a fixed table of sweeps
 * sized to fit a few minutes on an H200. fmax caps every sweep's largest
 * footprint (the device's free memory, for all but aliased). Returns the
 * number of sweeps written to out (at most max). */
size_t gpu_full_sweeps(gpu_sweep *out, size_t max, uint64_t fmax, uint64_t max_nodes);

#ifdef __cplusplus
}
#endif
#endif
