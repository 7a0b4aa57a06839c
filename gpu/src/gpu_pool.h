/* gpu_pool.h — the allocation-churn workload and the simple user-level pool
 * it is measured against (cudaMalloc/cudaFree and cudaMallocAsync are the
 * other two contenders; they live in the CUDA part).
 *
 * gpu_churn_op  one step of the churn: allocate `size` bytes into slot, or
 *               free the buffer in slot. A seeded plan of these is replayed
 *               identically through each allocator.
 * gpu_pool      power-of-two size classes (512 B up), one free list per
 *               class, memory taken from a backend (cudaMalloc on the GPU, a
 *               fake in the tests) and kept until gpu_pool_release. It never
 *               splits or merges: a request costs at most one backend call.
 */
#ifndef TLBSIM_GPU_POOL_H
#define TLBSIM_GPU_POOL_H

#ifdef __cplusplus
extern "C" { /* tlbsim/base.h has no C++ guard of its own */
#endif

#include "tlbsim/base.h"

typedef enum gpu_churn_kind { GPU_CHURN_ALLOC, GPU_CHURN_FREE } gpu_churn_kind;

typedef struct gpu_churn_op {
  gpu_churn_kind kind;
  uint32_t slot;  /* 0..live-1 */
  uint64_t size;  /* GPU_CHURN_ALLOC only */
} gpu_churn_op;

typedef struct gpu_churn_spec {
  uint64_t seed;
  uint32_t requests;        /* allocations in the plan */
  uint32_t live;            /* buffers alive at most at once */
  uint64_t min_size, max_size; /* sizes log-uniform in [min, max] */
} gpu_churn_spec;

/* Writes the plan into *ops (malloc'd, 2*requests entries: each request is
 * allocated once and freed once; when all `live` slots are full, a seeded
 * random one is freed first; the survivors are freed at the end). */
int gpu_churn_plan(const gpu_churn_spec *s, gpu_churn_op **ops, size_t *n, diag *d);

typedef int (*gpu_pool_alloc_fn)(void *ctx, uint64_t bytes, uint64_t *addr);
typedef int (*gpu_pool_free_fn)(void *ctx, uint64_t addr);

typedef struct gpu_pool gpu_pool;

typedef struct gpu_pool_stats {
  uint64_t reserved_bytes, peak_reserved_bytes; /* held from the backend */
  uint64_t backend_allocs, backend_frees;
  uint64_t hits;                                 /* requests served from a free list */
} gpu_pool_stats;

#define GPU_POOL_MIN_CLASS 512u

/* Size class of a request: the next power of two >= max(bytes, 512). */
uint64_t gpu_pool_class_bytes(uint64_t bytes);

gpu_pool *gpu_pool_new(gpu_pool_alloc_fn alloc, gpu_pool_free_fn release, void *ctx, diag *d);
/* Gets a buffer of at least `bytes`; -1 with a diag when the backend fails. */
int gpu_pool_get(gpu_pool *p, uint64_t bytes, uint64_t *addr, diag *d);
/* Returns a buffer obtained with the same `bytes`. */
int gpu_pool_put(gpu_pool *p, uint64_t addr, uint64_t bytes, diag *d);
/* Gives every cached buffer back to the backend. */
int gpu_pool_release(gpu_pool *p, diag *d);
gpu_pool_stats gpu_pool_get_stats(const gpu_pool *p);
void gpu_pool_free(gpu_pool *p);

#ifdef __cplusplus
}
#endif
#endif
