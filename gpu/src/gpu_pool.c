#include <stdlib.h>

#include "gpu_pool.h"

/* Classes 2^9 .. 2^62 bytes. */
#define POOL_MIN_SHIFT 9u
#define POOL_MAX_SHIFT 62u
#define POOL_CLASSES (POOL_MAX_SHIFT - POOL_MIN_SHIFT + 1)

typedef struct free_list {
  uint64_t *addr; /* cached buffers of this class, used as a stack */
  size_t n, cap;
} free_list;

struct gpu_pool {
  gpu_pool_alloc_fn alloc;
  gpu_pool_free_fn release;
  void *ctx;
  free_list lists[POOL_CLASSES];
  gpu_pool_stats stats;
};

uint64_t gpu_pool_class_bytes(uint64_t bytes) {
  if (bytes <= GPU_POOL_MIN_CLASS) return GPU_POOL_MIN_CLASS;
  return is_pow2(bytes) ? bytes : 2ull << log2_u64(bytes);
}

static unsigned class_index(uint64_t class_bytes) { return log2_u64(class_bytes) - POOL_MIN_SHIFT; }

gpu_pool *gpu_pool_new(gpu_pool_alloc_fn alloc, gpu_pool_free_fn release, void *ctx, diag *d) {
  gpu_pool *p = calloc(1, sizeof *p);
  if (!p) {
    diag_set(d, NULL, 0, "pool: out of memory");
    return NULL;
  }
  p->alloc = alloc;
  p->release = release;
  p->ctx = ctx;
  return p;
}

int gpu_pool_get(gpu_pool *p, uint64_t bytes, uint64_t *addr, diag *d) {
  if (bytes > (1ull << POOL_MAX_SHIFT))
    return diag_set(d, NULL, 0, "pool: request of %llu bytes exceeds the largest class",
                    (unsigned long long)bytes);
  uint64_t cb = gpu_pool_class_bytes(bytes);
  free_list *l = &p->lists[class_index(cb)];
  if (l->n) {
    *addr = l->addr[--l->n];
    p->stats.hits++;
    return 0;
  }
  if (p->alloc(p->ctx, cb, addr)) return diag_set(d, NULL, 0, "pool: backend failed to allocate %llu bytes",
                                                   (unsigned long long)cb);
  p->stats.backend_allocs++;
  p->stats.reserved_bytes += cb;
  if (p->stats.reserved_bytes > p->stats.peak_reserved_bytes) p->stats.peak_reserved_bytes = p->stats.reserved_bytes;
  return 0;
}

int gpu_pool_put(gpu_pool *p, uint64_t addr, uint64_t bytes, diag *d) {
  if (bytes > (1ull << POOL_MAX_SHIFT)) return diag_set(d, NULL, 0, "pool: returned size out of range");
  free_list *l = &p->lists[class_index(gpu_pool_class_bytes(bytes))];
  if (l->n == l->cap) {
    size_t ncap = l->cap ? 2 * l->cap : 16;
    uint64_t *v = realloc(l->addr, ncap * sizeof *v);
    if (!v) return diag_set(d, NULL, 0, "pool: out of memory");
    l->addr = v;
    l->cap = ncap;
  }
  l->addr[l->n++] = addr;
  return 0;
}

int gpu_pool_release(gpu_pool *p, diag *d) {
  for (unsigned c = 0; c < POOL_CLASSES; c++) {
    free_list *l = &p->lists[c];
    while (l->n) {
      if (p->release(p->ctx, l->addr[l->n - 1])) return diag_set(d, NULL, 0, "pool: backend failed to free");
      l->n--;
      p->stats.backend_frees++;
      p->stats.reserved_bytes -= 1ull << (c + POOL_MIN_SHIFT);
    }
  }
  return 0;
}

gpu_pool_stats gpu_pool_get_stats(const gpu_pool *p) { return p->stats; }

void gpu_pool_free(gpu_pool *p) {
  if (!p) return;
  for (unsigned c = 0; c < POOL_CLASSES; c++) free(p->lists[c].addr);
  free(p);
}
