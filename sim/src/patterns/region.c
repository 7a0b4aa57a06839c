/* A GPU-suite region mapped the way tlbsim-gpu maps it (see
 * tlbsim/region.h). */
#include "tlbsim/region.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_chain.h"

uint64_t region_node_va(const region *r, uint32_t i) {
  uint64_t va = r->base + (uint64_t)i * r->stride;
  if (r->mapping == REGION_ALIASED) va += (i % (r->chunk / REGION_ALIAS_LINE)) * REGION_ALIAS_LINE;
  return va;
}

uint64_t region_default_base(uint64_t size) {
  uint64_t a = 1ull << 21;
  while (a < size && a < (1ull << 40)) a <<= 1;
  return a < (1ull << 40) ? a : 1ull << 40;
}

/* VA chunk v is backed by physical chunk perm[v]: in order, or shuffled. */
static int map_chunks(pt *t, const region *r, diag *d) {
  uint64_t size = (uint64_t)r->nodes * r->stride;
  uint64_t chunk = r->chunk > r->page_size ? r->chunk : r->page_size;
  uint64_t nchunks = (size + chunk - 1) / chunk;
  if (nchunks > UINT32_MAX)
    return diag_set(d, NULL, 0, "region of %llu chunks is too large", (unsigned long long)nchunks);
  uint32_t *perm = malloc(nchunks * sizeof *perm);
  if (!perm) return diag_set(d, NULL, 0, "region: out of memory");
  if (r->mapping == REGION_SHUFFLED) gpu_permute(perm, (uint32_t)nchunks, r->seed);
  else
    for (uint32_t i = 0; i < nchunks; i++) perm[i] = i;
  unsigned shift = log2_u64(r->page_size);
  int rc = 0;
  for (uint64_t v = 0; v < nchunks && !rc; v++)
    for (uint64_t off = 0; off < chunk && !rc; off += r->page_size)
      rc = pt_map(t, r->base + v * chunk + off, (uint64_t)perm[v] * chunk + off, shift, PT_R | PT_W, d);
  free(perm);
  return rc;
}

/* Aliased: the chunk holding node i (by index) is physical chunk
 * i / (chunk / REGION_ALIAS_LINE); chunks without a node stay unmapped. */
static int map_aliased(pt *t, const region *r, diag *d) {
  uint64_t chunk = r->chunk, per_chunk = chunk / REGION_ALIAS_LINE;
  unsigned shift = log2_u64(r->page_size);
  for (uint32_t i = 0; i < r->nodes; i++) {
    uint64_t va = r->base + (uint64_t)i * r->stride / chunk * chunk;
    pt_mapping old;
    if (pt_lookup(t, va, &old)) continue;
    for (uint64_t off = 0; off < chunk; off += r->page_size)
      if (pt_map(t, va + off, i / per_chunk * chunk + off, shift, PT_R | PT_W, d)) return -1;
  }
  return 0;
}

/* Managed: the nodes' 64 KiB pages, each 2 MiB block whose pages are all
 * touched as one 2 MiB page; frames handed out in VA order. Nodes are in
 * VA order, so one pass collects a block's touched pages. */
static int map_managed(pt *t, const region *r, diag *d) {
  const uint64_t small = REGION_MANAGED_SMALL, large = REGION_MANAGED_LARGE, per_block = large / small;
  uint64_t pa = 0;
  uint32_t i = 0;
  while (i < r->nodes) {
    uint64_t block = region_node_va(r, i) & ~(large - 1);
    uint64_t touched = 0; /* bit per 64 KiB page of the block; per_block is 32 */
    for (; i < r->nodes && (region_node_va(r, i) & ~(large - 1)) == block; i++)
      touched |= 1ull << ((region_node_va(r, i) - block) / small);
    if (touched == (1ull << per_block) - 1) {
      pa = (pa + large - 1) & ~(large - 1);
      if (pt_map(t, block, pa, log2_u64(large), PT_R | PT_W, d)) return -1;
      pa += large;
      continue;
    }
    for (uint64_t p = 0; p < per_block; p++) {
      if (!(touched >> p & 1)) continue;
      if (pt_map(t, block + p * small, pa, log2_u64(small), PT_R | PT_W, d)) return -1;
      pa += small;
    }
  }
  return 0;
}

int region_map(pt *t, const region *r, diag *d) {
  if (!r->nodes || !r->stride) return diag_set(d, NULL, 0, "region: no nodes");
  if (r->base % r->page_size) return diag_set(d, NULL, 0, "region: base %#llx is not page aligned", (unsigned long long)r->base);
  switch (r->mapping) {
  case REGION_ALIASED:
    if (r->stride % r->chunk || r->chunk < r->page_size)
      return diag_set(d, NULL, 0, "the aliased mapping needs a stride that is a multiple of the chunk");
    return map_aliased(t, r, d);
  case REGION_MANAGED: return map_managed(t, r, d);
  case REGION_CONTIGUOUS:
  case REGION_SHUFFLED:
  case REGION_CUDAMALLOC: return map_chunks(t, r, d);
  case REGION_MAPPING_COUNT: break;
  }
  return diag_set(d, NULL, 0, "region: unknown mapping");
}
