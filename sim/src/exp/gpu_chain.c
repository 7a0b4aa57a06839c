#include "tlbsim/gpu_chain.h"

#include <stdlib.h>
#include <string.h>

static const char *const order_names[GPU_ORDER_COUNT] = {"seq", "random"};

int gpu_order_parse(const char *text, gpu_order *out) {
  for (int i = 0; i < GPU_ORDER_COUNT; i++)
    if (!strcmp(text, order_names[i])) {
      *out = (gpu_order)i;
      return 0;
    }
  return -1;
}

const char *gpu_order_name(gpu_order o) { return o < GPU_ORDER_COUNT ? order_names[o] : "?"; }

void gpu_permute(uint32_t *perm, uint32_t n, uint64_t seed) {
  rng r;
  rng_seed(&r, seed);
  for (uint32_t i = 0; i < n; i++) perm[i] = i;
  for (uint32_t i = n; i-- > 1;) {
    uint32_t j = (uint32_t)rng_below(&r, (uint64_t)i + 1);
    uint32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

uint64_t gpu_chain_node_offset(const gpu_chain_spec *s, uint32_t i) {
  uint64_t skew = s->skew_line ? (i % s->skew_period) * s->skew_line : 0;
  return (uint64_t)i * s->stride + skew;
}

int gpu_chain_build(const gpu_chain_spec *s, uint64_t *off, diag *d) {
  if (s->nodes == 0) return diag_set(d, NULL, 0, "chain: no nodes");
  if (s->stride == 0 || s->stride % 8) return diag_set(d, NULL, 0, "chain: stride %llu is not a positive multiple of 8", (unsigned long long)s->stride);
  if (s->order >= GPU_ORDER_COUNT) return diag_set(d, NULL, 0, "chain: unknown order");
  if (s->skew_line && (s->skew_period == 0 || s->skew_line % 8 || s->skew_line * s->skew_period > s->stride))
    return diag_set(d, NULL, 0, "chain: skew of %llu lines of %llu bytes leaves the %llu-byte stride",
                    (unsigned long long)s->skew_period, (unsigned long long)s->skew_line, (unsigned long long)s->stride);
  if ((uint64_t)s->nodes > UINT64_MAX / s->stride) return diag_set(d, NULL, 0, "chain: footprint overflows");
  uint32_t *order = malloc((size_t)s->nodes * sizeof *order);
  if (!order) return diag_set(d, NULL, 0, "chain: out of memory for %u nodes", s->nodes);
  if (s->order == GPU_ORDER_RANDOM) gpu_permute(order, s->nodes, s->seed);
  else
    for (uint32_t i = 0; i < s->nodes; i++) order[i] = i;
  for (uint32_t k = 0; k < s->nodes; k++) off[k] = gpu_chain_node_offset(s, order[k]);
  free(order);
  return 0;
}

uint32_t gpu_chain_lane_start(uint32_t nodes, uint32_t lane, uint32_t lanes) {
  return (uint32_t)(((uint64_t)lane * nodes) / lanes);
}

uint32_t gpu_chain_advance(uint32_t nodes, uint32_t p, uint64_t accesses) {
  return (uint32_t)(((uint64_t)p + accesses % nodes) % nodes);
}
