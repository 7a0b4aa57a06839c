#include <math.h>
#include <stdlib.h>

#include "gpu_pool.h"

/* A size drawn log-uniformly in [lo, hi]: temporary buffers of an inference
 * server span several orders of magnitude, each about equally common. */
static uint64_t log_uniform(rng *r, uint64_t lo, uint64_t hi) {
  double u = (double)(rng_next(r) >> 11) * 0x1p-53;
  double v = exp(log((double)lo) + u * (log((double)hi) - log((double)lo)));
  uint64_t x = (uint64_t)llround(v);
  return x < lo ? lo : x > hi ? hi : x;
}

int gpu_churn_plan(const gpu_churn_spec *s, gpu_churn_op **ops, size_t *n, diag *d) {
  if (!s->requests || !s->live) return diag_set(d, NULL, 0, "churn: requests and live must be positive");
  if (!s->min_size || s->min_size > s->max_size)
    return diag_set(d, NULL, 0, "churn: size range %llu..%llu is empty", (unsigned long long)s->min_size,
                    (unsigned long long)s->max_size);
  gpu_churn_op *v = malloc(2 * (size_t)s->requests * sizeof *v);
  unsigned char *used = calloc(s->live, 1);
  if (!v || !used) {
    free(v);
    free(used);
    return diag_set(d, NULL, 0, "churn: out of memory");
  }
  rng r;
  rng_seed(&r, s->seed);
  size_t k = 0;
  uint32_t alive = 0, next_free = 0; /* next_free: lowest slot that may be empty */
  for (uint32_t q = 0; q < s->requests; q++) {
    uint32_t slot;
    if (alive == s->live) {
      slot = (uint32_t)rng_below(&r, s->live);
      v[k++] = (gpu_churn_op){GPU_CHURN_FREE, slot, 0};
    } else {
      while (used[next_free]) next_free++;
      slot = next_free;
      used[slot] = 1;
      alive++;
    }
    v[k++] = (gpu_churn_op){GPU_CHURN_ALLOC, slot, log_uniform(&r, s->min_size, s->max_size)};
  }
  for (uint32_t slot = 0; slot < s->live; slot++)
    if (used[slot]) v[k++] = (gpu_churn_op){GPU_CHURN_FREE, slot, 0};
  free(used);
  *ops = v;
  *n = k;
  return 0;
}
