/* cudaMalloc/cudaFree as the driver serves them: every request is a driver
 * call, and the driver builds or tears down mappings for it.
 *
 * Large requests (> cuda_small_max) round up to cuda_large_round, get VA
 * of their own (first fit, aligned to their page) and are mapped with
 * cuda_large_page pages on cudaMalloc, unmapped on cudaFree. Small
 * requests round up to cuda_small_align and are packed first fit into
 * regions of cuda_region_size, the regions tried oldest first; the driver
 * maps a region with cuda_small_page pages when it opens it and unmaps it
 * when the last request in it goes.
 * Physical memory is interchangeable at page granularity (the GPU has
 * virtual memory), so what strands free memory here is the space left in
 * partly used regions. The parameters and the measurements behind their
 * defaults are in docs/ALLOC.md. */
#include <stdlib.h>

#include "vas_impl.h"

typedef struct region {
  vtree_node node; /* key (creation number); weight = largest hole */
  uint64_t va;
  vext holes;
  uint64_t live; /* requests in it */
} region;

typedef struct cuda_block {
  vtree_node node; /* key (va) in cuda_model.live */
  uint64_t size, requested;
  region *in; /* NULL: a large request */
} cuda_block;

typedef struct cuda_model {
  vtree regions, live;
  uint64_t opened; /* regions ever opened: the next one's creation number */
  unsigned small_shift, large_shift;
  uint64_t hole_bytes, hole_count; /* over all regions */
} cuda_model;

static int check_pow2(const char *name, uint64_t v, diag *d) {
  return is_pow2(v) ? 0 : diag_set(d, NULL, 0, "cuda: %s %llu is not a power of two", name, (unsigned long long)v);
}

static int cuda_init(vas *v, diag *d) {
  vas_config *c = &v->cfg;
  if (!c->cuda_small_align) c->cuda_small_align = 512;
  if (!c->cuda_small_max) c->cuda_small_max = (2ull << 20) - 1;
  if (!c->cuda_large_round) c->cuda_large_round = 2ull << 20;
  if (!c->cuda_region_size) c->cuda_region_size = 2ull << 20;
  if (!c->cuda_small_page) c->cuda_small_page = 64ull << 10;
  if (!c->cuda_large_page) c->cuda_large_page = 2ull << 20;
  if (check_pow2("cuda_small_align", c->cuda_small_align, d) || check_pow2("cuda_region_size", c->cuda_region_size, d) ||
      check_pow2("cuda_small_page", c->cuda_small_page, d) || check_pow2("cuda_large_page", c->cuda_large_page, d))
    return -1;
  if (c->cuda_large_round % c->cuda_large_page)
    return diag_set(d, NULL, 0, "cuda: cuda_large_round is not a multiple of cuda_large_page");
  if (c->cuda_region_size % c->cuda_small_page || c->cuda_region_size % c->cuda_small_align)
    return diag_set(d, NULL, 0, "cuda: cuda_region_size is not a multiple of cuda_small_page and cuda_small_align");
  if (c->cuda_small_max > c->cuda_region_size)
    return diag_set(d, NULL, 0, "cuda: cuda_small_max is larger than a region");
  cuda_model *m = calloc(1, sizeof *m);
  if (!m) return vas_err_nomem(d);
  v->drv.chunk = c->cuda_va_chunk;
  m->small_shift = log2_u64(c->cuda_small_page);
  m->large_shift = log2_u64(c->cuda_large_page);
  v->impl = m;
  return 0;
}

static void cuda_fini(vas *v) {
  cuda_model *m = v->impl;
  vtree_node *n;
  while ((n = m->live.root)) {
    cuda_block *b = vtree_entry(n, cuda_block, node);
    if (!b->in) vdrv_unmap(&v->drv, n->key[0], b->size, m->large_shift);
    vtree_remove(&m->live, n);
    free(b);
  }
  while ((n = m->regions.root)) {
    region *r = vtree_entry(n, region, node);
    vdrv_unmap(&v->drv, r->va, v->cfg.cuda_region_size, m->small_shift);
    vtree_remove(&m->regions, n);
    vext_clear(&r->holes);
    free(r);
  }
  free(m);
}

/* Hole totals change only through these two: bracket every change. */
static void region_out(cuda_model *m, region *r) {
  m->hole_bytes -= r->holes.free_bytes;
  m->hole_count -= vext_count(&r->holes);
}

static void region_in(cuda_model *m, region *r) {
  m->hole_bytes += r->holes.free_bytes;
  m->hole_count += vext_count(&r->holes);
  vtree_set_weight(&r->node, vext_largest(&r->holes));
}

static int open_region(vas *v, region **out, diag *d) {
  cuda_model *m = v->impl;
  uint64_t size = v->cfg.cuda_region_size, va;
  region *r = calloc(1, sizeof *r);
  if (!r) return vas_err_nomem(d);
  int rc = vdrv_reserve(&v->drv, size, size, &va, d);
  if (rc == VAS_OK && (rc = vdrv_map(&v->drv, va, size, m->small_shift, d)) != VAS_OK)
    if (vdrv_release(&v->drv, va, size, d)) rc = VAS_ERR;
  if (rc == VAS_OK && vext_add(&r->holes, va, size)) {
    vdrv_unmap(&v->drv, va, size, m->small_shift);
    rc = vdrv_release(&v->drv, va, size, d) ? VAS_ERR : vas_err_nomem(d);
  }
  if (rc != VAS_OK) {
    free(r);
    return rc;
  }
  r->va = va;
  r->node.key[0] = m->opened++;
  r->node.weight = 0;
  vtree_insert(&m->regions, &r->node);
  region_in(m, r);
  *out = r;
  return VAS_OK;
}

static void close_region(vas *v, region *r) {
  cuda_model *m = v->impl;
  uint64_t va = r->va;
  region_out(m, r);
  vtree_remove(&m->regions, &r->node);
  vext_clear(&r->holes);
  free(r);
  vdrv_unmap(&v->drv, va, v->cfg.cuda_region_size, m->small_shift);
  vdrv_release(&v->drv, va, v->cfg.cuda_region_size, NULL); /* merging VA back cannot need a new node */
}

/* First fit over regions in the order they were opened (the driver does
 * not prefer low addresses), then first fit inside the region. */
static int small_alloc(vas *v, uint64_t size, uint64_t align, region **in, uint64_t *va, diag *d) {
  cuda_model *m = v->impl;
  for (vtree_node *n = vtree_first_fit(&m->regions, NULL, size); n;) {
    region *r = vtree_entry(n, region, node);
    region_out(m, r);
    int rc = vext_take(&r->holes, VEXT_FIRST, size, align, va);
    region_in(m, r);
    if (rc < 0) return vas_err_nomem(d);
    if (rc) {
      *in = r;
      return VAS_OK;
    }
    uint64_t from[3] = {n->key[0] + 1, 0, 0};
    n = vtree_first_fit(&m->regions, from, size);
  }
  region *r = NULL;
  int rc = open_region(v, &r, d);
  if (rc != VAS_OK) return rc;
  region_out(m, r);
  rc = vext_take(&r->holes, VEXT_FIRST, size, align, va);
  region_in(m, r);
  if (rc <= 0) { /* alignment beyond the region's: cannot be placed in one */
    close_region(v, r);
    return rc < 0 ? vas_err_nomem(d) : VAS_OOM;
  }
  *in = r;
  return VAS_OK;
}

static int large_alloc(vas *v, uint64_t size, uint64_t align, uint64_t *va, diag *d) {
  cuda_model *m = v->impl;
  int rc = vdrv_reserve(&v->drv, size, align, va, d);
  if (rc != VAS_OK) return rc;
  if ((rc = vdrv_map(&v->drv, *va, size, m->large_shift, d)) != VAS_OK)
    return vdrv_release(&v->drv, *va, size, d) ? VAS_ERR : rc;
  return VAS_OK;
}

static int cuda_alloc(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d) {
  (void)stream;
  cuda_model *m = v->impl;
  const vas_config *c = &v->cfg;
  cuda_block *b = calloc(1, sizeof *b);
  if (!b) return vas_err_nomem(d);
  uint64_t want = size ? size : 1;
  int rc;
  if (want > c->cuda_small_max) {
    b->size = round_up(want, c->cuda_large_round);
    rc = large_alloc(v, b->size, align > c->cuda_large_page ? align : c->cuda_large_page, va, d);
  } else {
    b->size = round_up(want, c->cuda_small_align);
    rc = small_alloc(v, b->size, align > c->cuda_small_align ? align : c->cuda_small_align, &b->in, va, d);
  }
  if (rc != VAS_OK) {
    free(b);
    return rc;
  }
  v->st.driver_allocs++;
  if (b->in) b->in->live++;
  b->requested = size;
  b->node.key[0] = *va;
  vtree_insert(&m->live, &b->node);
  vas_note_alloc(v, b->size, size);
  return VAS_OK;
}

static int cuda_free(vas *v, uint64_t va, diag *d) {
  cuda_model *m = v->impl;
  uint64_t key[3] = {va, 0, 0};
  vtree_node *n = vtree_find(&m->live, key);
  if (!n) return vas_err_not_live(v, va, d);
  cuda_block *b = vtree_entry(n, cuda_block, node);
  vtree_remove(&m->live, n);
  v->st.driver_frees++;
  vas_note_free(v, b->size, b->requested);
  int rc = VAS_OK;
  if (!b->in) {
    vdrv_unmap(&v->drv, va, b->size, m->large_shift);
    rc = vdrv_release(&v->drv, va, b->size, d);
  } else if (--b->in->live == 0) {
    close_region(v, b->in);
  } else {
    region_out(m, b->in);
    if (vext_add(&b->in->holes, va, b->size)) rc = vas_err_nomem(d);
    region_in(m, b->in);
  }
  free(b);
  return rc;
}

/* Holes in regions, plus the unmapped memory as one extent: any free page
 * can back any new mapping. */
static void cuda_extents(const vas *v, vas_extents *out) {
  const cuda_model *m = v->impl;
  uint64_t unmapped = vdrv_unreserved(&v->drv), hole = vtree_max_weight(&m->regions);
  out->count = m->hole_count + (unmapped > 0);
  out->total = m->hole_bytes + unmapped;
  out->largest = hole > unmapped ? hole : unmapped;
}

const vas_policy vas_cuda = {"cuda", "cudaMalloc/cudaFree per request (H200 driver model)", cuda_init, cuda_fini,
                             cuda_alloc, cuda_free, cuda_extents};
