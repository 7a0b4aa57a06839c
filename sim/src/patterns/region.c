/* A GPU-suite region mapped the way tlbsim-gpu maps it (see
 * tlbsim/region.h). */
#include "tlbsim/region.h"

#include <stdlib.h>
#include <string.h>

#include "tlbsim/gpu_chain.h"

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

uint64_t region_managed_bytes(const region *r) {
  uint64_t span = (uint64_t)r->nodes * r->stride;
  if (!r->history) return span;
  for (size_t i = 0; i < r->history->nearlier; i++) {
    uint64_t s = (uint64_t)r->history->earlier[i].nodes * r->history->earlier[i].stride;
    if (s > span) span = s;
  }
  return r->history->bytes > span ? r->history->bytes : span;
}

/* The GPU writes the first word of every k-th 64 KiB page (gpu:K), or the
 * host does (host:K), or the host writes everything and prefetches it
 * (host_prefetch; advise: preferring the GPU first), as tlbsim-gpu's
 * gpu_region_populate. */
static int populate(uvm_space *s, uint64_t base, uint64_t bytes, const gpu_population *p, diag *d) {
  uvm_counts c = {0};
  uint64_t step = (uint64_t)p->every * GPU_POP_PAGE;
  switch (p->kind) {
  case GPU_POP_CHAIN: return 0;
  case GPU_POP_GPU:
    for (uint64_t off = 0; off < bytes; off += step)
      if (uvm_gpu_fault(s, base + off, true, &c, d) < 0) return -1;
    return 0;
  case GPU_POP_HOST:
    for (uint64_t off = 0; off < bytes; off += step)
      if (uvm_host_access(s, base + off, 8, true, &c, d)) return -1;
    return 0;
  case GPU_POP_HOST_PREFETCH:
  case GPU_POP_ADVISE:
    if (uvm_host_access(s, base, bytes, true, &c, d) ||
        (p->kind == GPU_POP_ADVISE && uvm_advise(s, base, bytes, UVM_PREFERRED_GPU, &c, d)))
      return -1;
    return uvm_prefetch(s, base, bytes, UVM_GPU, &c, d);
  }
  return diag_set(d, NULL, 0, "region: unknown population");
}

/* Writes of the GPU at nodes 0 .. nodes-1 of a chain. */
static int write_chain(uvm_space *s, uint64_t base, uint64_t stride, uint32_t nodes, diag *d) {
  uvm_counts c = {0};
  for (uint32_t i = 0; i < nodes; i++)
    if (uvm_gpu_fault(s, base + (uint64_t)i * stride, true, &c, d) < 0) return -1;
  uvm_sync(s);
  return 0;
}

/* Managed: the allocation's history, then this point's chain, through the
 * managed-memory model over t and frames of its own, handed out in the
 * order the faults take them. */
static int map_managed(pt *t, const region *r, diag *d) {
  const region_history *h = r->history;
  uvm_config rules;
  if (h && h->uvm) rules = *h->uvm;
  else uvm_config_default(&rules);
  uint64_t bytes = region_managed_bytes(r), frames_bytes;
  if (!num_round_up(bytes, rules.va_block, &frames_bytes) || r->base % rules.va_block)
    return diag_set(d, NULL, 0, "region: a managed region at %#llx of %llu bytes is not VA-block aligned",
                    (unsigned long long)r->base, (unsigned long long)bytes);
  uvm_table tab = {.table = t, .frames = phys_create(frames_bytes, 12, PHYS_LOWEST_FIRST)};
  uvm_ops ops = uvm_table_ops(&tab);
  uvm_space *s = tab.frames ? uvm_create(&rules, &ops) : NULL;
  int rc = -1;
  if (!s) diag_set(d, NULL, 0, "region: out of memory");
  else if (!uvm_range_add(s, r->base, bytes, d) && !(h && populate(s, r->base, bytes, &h->population, d))) {
    rc = 0;
    for (size_t i = 0; h && i < h->nearlier && !rc; i++)
      rc = write_chain(s, r->base, h->earlier[i].stride, h->earlier[i].nodes, d);
    if (!rc) rc = write_chain(s, r->base, r->stride, r->nodes, d);
  }
  uvm_destroy(s); /* the frames go; the pages stay mapped in t */
  phys_destroy(tab.frames);
  return rc;
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
