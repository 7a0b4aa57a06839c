/* gpu_chain.h — the pointer chain that tlbsim-gpu walks on the device and
 * `tlbsim chase` replays in the simulator. Both build it from the same
 * (nodes, stride, order, seed) with this code, so the addresses and the
 * visiting order agree exactly.
 *
 * gpu_order       seq: nodes 0,1,...,n-1; random: a seeded Fisher–Yates
 *                 shuffle of that list (xoshiro256** seeded via splitmix64,
 *                 tlbsim/base.h's rng).
 * gpu_chain_spec  what decides a chain: node i lies at byte offset
 *                 i*stride (+ an optional per-node skew, used only by the
 *                 aliased mapping so nodes that share physical memory do not
 *                 share a word).
 *
 * The chain is one cycle: the node visited at step k holds the address of
 * the node visited at step (k+1) mod n. The walk starts at visit position 0
 * (lane l of a warp at position l*n/lanes), runs `warmup` accesses, then
 * `repeats` timed passes of `steps` accesses each, always continuing.
 */
#ifndef TLBSIM_GPU_CHAIN_H
#define TLBSIM_GPU_CHAIN_H

#ifdef __cplusplus
extern "C" { /* tlbsim/base.h has no C++ guard of its own */
#endif

#include "tlbsim/base.h"

typedef enum gpu_order { GPU_ORDER_SEQ, GPU_ORDER_RANDOM, GPU_ORDER_COUNT } gpu_order;

int gpu_order_parse(const char *text, gpu_order *out);
const char *gpu_order_name(gpu_order o);

typedef struct gpu_chain_spec {
  uint32_t nodes;       /* n >= 1 */
  uint64_t stride;      /* bytes between consecutive node indices */
  gpu_order order;
  uint64_t seed;        /* used by GPU_ORDER_RANDOM only */
  uint64_t skew_line;   /* 0: no skew; else node i moves (i % skew_period) lines */
  uint64_t skew_period;
} gpu_chain_spec;

/* perm[0..n) = a seeded Fisher–Yates shuffle of 0..n-1: for i = n-1 down to
 * 1, j = rng_below(i+1), swap perm[i], perm[j], with rng_seed(seed). Also
 * shuffles the VMM chunks of the `shuffled` mapping. */
void gpu_permute(uint32_t *perm, uint32_t n, uint64_t seed);

/* Byte offset of node index i from the start of the region. */
uint64_t gpu_chain_node_offset(const gpu_chain_spec *s, uint32_t i);

/* Fills off[k] with the offset of the node visited at step k (k < nodes).
 * Returns -1 with a diag when the spec is impossible (no nodes, zero
 * stride, skew that leaves the node's stride slot, offsets past 2^64). */
int gpu_chain_build(const gpu_chain_spec *s, uint64_t *off, diag *d);

/* Visit position of lane `lane` of `lanes` at the start of the walk, and
 * where a walk starting at position p stands after `accesses` loads. */
uint32_t gpu_chain_lane_start(uint32_t nodes, uint32_t lane, uint32_t lanes);
uint32_t gpu_chain_advance(uint32_t nodes, uint32_t p, uint64_t accesses);

#ifdef __cplusplus
}
#endif
#endif
