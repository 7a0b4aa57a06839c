/* gpu_gather.h — the many-thread gather of `tlbsim-gpu gather`: which node
 * each load hits, which points a sweep measures, and which SMs do the work.
 * Plain C shared with the simulator, so `tlbsim gather` can reproduce every
 * load's address exactly.
 *
 * gpu_gather_node    load j of (virtual) thread t goes to node
 *                    gpu_gather_node(seed, t, j, nodes): hash "splitmix64-v1"
 *                    (below). It never depends on loaded data, so all of a
 *                    thread's loads are independent.
 * gpu_gather_point   one measured point: nodes of 128-byte lines at
 *                    i * stride, stride = footprint / nodes rounded down to
 *                    the 128-byte line (to the VMM chunk for `aliased`).
 * gpu_gather_shape   how many threads run where: threads per SM -> blocks of
 *                    min(256, threads per SM) threads.
 * gpu_sm_set         the SMs the work is pinned to: `grid` (an ordinary
 *                    launch, the hardware places the blocks), `all`, or a
 *                    list such as 0,1,48-49.
 */
#ifndef TLBSIM_GPU_GATHER_H
#define TLBSIM_GPU_GATHER_H

#ifdef __cplusplus
extern "C" {
#endif

#include "tlbsim/base.h"
#include "tlbsim/rows.h" /* GPU_MAX_SMS */

#ifdef __CUDACC__
#define GPU_HD __host__ __device__
#else
#define GPU_HD
#endif

#define GPU_GATHER_HASH "splitmix64-v1"
#define GPU_GATHER_LINE 128u
/* Each thread issues its loads in groups of this many independent loads
 * and adds their values after the group: at most 8 loads in flight per
 * thread (an in-order warp stalls at the first use of a pending load). */
#define GPU_GATHER_BATCH 8u
#define GPU_GATHER_MAX_TPS 2048u  /* threads per SM the hardware holds */
#define GPU_GATHER_BLOCK 256u     /* threads per block of an ordinary launch */

/* The node of load j of virtual thread t (t = work block * block threads +
 * thread index in the block), for nodes >= 1:
 *   key = t * 2^32 + j                       (unique per load; j < 2^32)
 *   z   = key + (seed + 1) * 0x9E3779B97F4A7C15         (mod 2^64)
 *   z   = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9          (splitmix64's
 *   z   = (z ^ (z >> 27)) * 0x94D049BB133111EB           finalizer, a
 *   z   =  z ^ (z >> 31)                                 bijection)
 *   node = ((z >> 32) * nodes) >> 32        (Lemire's multiply-shift range)
 */
static inline GPU_HD uint32_t gpu_gather_node(uint64_t seed, uint64_t thread, uint32_t j, uint32_t nodes) {
  uint64_t z = ((thread << 32) | j) + (seed + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (uint32_t)(((z >> 32) * (uint64_t)nodes) >> 32);
}

/* Sum over j < loads of gpu_gather_node(seed, t, j, nodes): what thread t's
 * sink holds when node i stores the value i (the kernel's self-check). */
uint64_t gpu_gather_thread_sum(uint64_t seed, uint64_t thread, uint32_t loads, uint32_t nodes);

/* footprint / nodes rounded down to a multiple of align; 0 when smaller. */
uint64_t gpu_gather_stride(uint64_t footprint, uint32_t nodes, uint64_t align);

typedef struct gpu_gather_point {
  uint64_t footprint;  /* nodes * stride: the span the loads touch */
  uint64_t stride;
  uint32_t nodes;
} gpu_gather_point;

typedef struct gpu_gather_plan {
  const uint64_t *footprints;  /* wanted footprints (see gpu_gather_points) */
  size_t nfootprints;
  const uint64_t *nodes;       /* node counts, each >= 1 */
  size_t nnodes;
  uint64_t stride;             /* 0: footprint / nodes; else this stride */
  uint64_t align;              /* stride granule: 128 B, or the VMM chunk */
} gpu_gather_plan;

typedef struct gpu_gather_point_list {
  gpu_gather_point *v;
  size_t n;
  size_t skipped;              /* stride below align */
} gpu_gather_point_list;

/* Lists the points, footprint-major then nodes; with a fixed stride each
 * node count gives one point (footprints are not used). Duplicates are
 * dropped. -1 with a diag on an empty plan or a bad align/stride. */
int gpu_gather_points(const gpu_gather_plan *p, gpu_gather_point_list *out, diag *d);
void gpu_gather_point_list_free(gpu_gather_point_list *l);

/* Footprints fmin * 2^(k/per_octave) <= fmax, into v (at most max). */
size_t gpu_footprint_range(uint64_t fmin, uint64_t fmax, unsigned per_octave, uint64_t *v, size_t max);

typedef struct gpu_gather_shape {
  uint64_t threads;        /* work threads in all */
  uint32_t block_threads;  /* threads per block */
  uint32_t blocks;         /* work blocks */
  uint32_t per_sm;         /* work blocks per SM of the set (pinned), else 0 */
} gpu_gather_shape;

/* threads_per_sm on each of sms SMs: blocks of min(256, tps) threads; tps
 * a multiple of 32 up to 2048, and of 256 above 256. */
int gpu_gather_shape_per_sm(uint32_t threads_per_sm, uint32_t sms, gpu_gather_shape *s, diag *d);
/* `threads` in blocks of 256 (an ordinary launch): a multiple of 256. */
int gpu_gather_shape_total(uint64_t threads, gpu_gather_shape *s, diag *d);

typedef enum gpu_sm_set_kind { GPU_SMS_GRID, GPU_SMS_ALL, GPU_SMS_LIST } gpu_sm_set_kind;

typedef struct gpu_sm_set {
  gpu_sm_set_kind kind;
  uint64_t mask[GPU_MAX_SMS / 64];  /* GPU_SMS_LIST: bit s = SM s */
} gpu_sm_set;

#define GPU_MAX_SM_SETS 16

/* "grid", "all" or SMs and ranges joined by commas ("0,1,48-49"); sets are
 * separated by '/'. Returns -1 on a bad set (SM >= 256, empty, reversed
 * range, more than max sets). */
int gpu_sm_sets_parse(const char *text, gpu_sm_set *sets, size_t max, size_t *n);
/* SMs of the set on a device with `sms` SMs (grid and all: sms). */
uint32_t gpu_sm_set_count(const gpu_sm_set *s, uint32_t sms);
int gpu_sm_set_has(const gpu_sm_set *s, uint32_t sm);
/* "grid", "all", or the SMs joined by ';' ("0;1;48;49"). */
const char *gpu_sm_set_name(const gpu_sm_set *s, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
