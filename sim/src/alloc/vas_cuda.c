/* cudaMalloc/cudaFree as the H200's driver serves them: every request is a
 * driver call that builds or tears down mappings, placed where the driver
 * places it (every buffer of the committed churn traces lands at the
 * address the GPU gave it; docs/ALLOC.md, "cuda").
 *
 * The heap: VA reserved in chunks of cuda_va_chunk, top-down (a new chunk
 * goes right below the lowest one), given back when nothing in it is live. A piece
 * of the heap (a large request, or a region for small ones) goes to the
 * lowest chunk that has room, and inside it to the smallest free range
 * that holds it, the lowest on ties, at the range's start. A piece larger
 * than a chunk gets a chunk of its own, a whole number of chunks long.
 *
 * Large requests (> cuda_small_max) round up to cuda_large_round and are
 * mapped with cuda_large_page pages on cudaMalloc, unmapped on cudaFree.
 * Small requests round up to cuda_small_align and share regions of
 * cuda_region_size: a request takes the smallest hole of any region that
 * holds it (best fit; on ties the hole that has waited longest) at the
 * hole's start; with none, a new region is placed in the heap and mapped
 * with cuda_small_page pages. A freed request's space merges with the holes
 * beside it in its region; a region whose last request goes is unmapped
 * and its VA given back to the heap.
 * Physical memory is interchangeable at page granularity (the GPU has
 * virtual memory), so what strands free memory here is the space left in
 * partly used regions. */
#include <stdlib.h>

#include "vas_impl.h"

typedef struct chunk {
  vtree_node node; /* key (base) in cuda_model.chunks; weight = largest free range */
  uint64_t size;
  vext free;
} chunk;

typedef struct region {
  chunk *home;
  uint64_t va;
  uint64_t live; /* requests in it */
} region;

/* A free range of a region, in two orders: (size, age) for best fit with
 * the oldest first on ties, and (va) for the neighbours a free merges with. */
typedef struct hole {
  vtree_node by_fit;  /* key (size, age) in cuda_model.holes */
  vtree_node by_addr; /* key (va) in cuda_model.hole_addrs */
  region *in;
} hole;

typedef struct cuda_block {
  vtree_node node; /* key (va) in cuda_model.live */
  uint64_t size, requested;
  region *in;  /* NULL: a large request */
  chunk *home; /* a large request's chunk */
} cuda_block;

typedef struct cuda_model {
  vtree chunks, holes, hole_addrs, live;
  uint64_t hole_bytes;
  uint64_t holes_made; /* the next hole's age */
  unsigned small_shift, large_shift;
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
  if (!c->cuda_small_page) c->cuda_small_page = 2ull << 20;
  if (!c->cuda_large_page) c->cuda_large_page = 2ull << 20;
  if (!c->cuda_va_chunk) c->cuda_va_chunk = 32ull << 20;
  if (check_pow2("cuda_small_align", c->cuda_small_align, d) || check_pow2("cuda_region_size", c->cuda_region_size, d) ||
      check_pow2("cuda_small_page", c->cuda_small_page, d) || check_pow2("cuda_large_page", c->cuda_large_page, d) ||
      check_pow2("cuda_va_chunk", c->cuda_va_chunk, d))
    return -1;
  if (c->cuda_large_round % c->cuda_large_page)
    return diag_set(d, NULL, 0, "cuda: cuda_large_round is not a multiple of cuda_large_page");
  if (c->cuda_region_size % c->cuda_small_page || c->cuda_region_size % c->cuda_small_align)
    return diag_set(d, NULL, 0, "cuda: cuda_region_size is not a multiple of cuda_small_page and cuda_small_align");
  if (c->cuda_small_max > c->cuda_region_size)
    return diag_set(d, NULL, 0, "cuda: cuda_small_max is larger than a region");
  if (c->cuda_va_chunk < c->cuda_region_size || c->cuda_va_chunk < c->cuda_large_page)
    return diag_set(d, NULL, 0, "cuda: cuda_va_chunk is smaller than a region or a large page");
  cuda_model *m = calloc(1, sizeof *m);
  if (!m) return vas_err_nomem(d);
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
    if (!b->in) {
      vdrv_unmap(&v->drv, n->key[0], b->size, m->large_shift);
    } else if (--b->in->live == 0) {
      vdrv_unmap(&v->drv, b->in->va, v->cfg.cuda_region_size, m->small_shift);
      free(b->in);
    }
    vtree_remove(&m->live, n);
    free(b);
  }
  while ((n = m->holes.root)) {
    vtree_remove(&m->holes, n);
    free(vtree_entry(n, hole, by_fit));
  }
  while ((n = m->chunks.root)) {
    chunk *c = vtree_entry(n, chunk, node);
    vtree_remove(&m->chunks, n);
    vext_clear(&c->free);
    free(c);
  }
  free(m);
}

/* --- the heap: chunks of VA ------------------------------------------------------ */

static void chunk_update(chunk *c) { vtree_set_weight(&c->node, vext_largest(&c->free)); }

/* A chunk of at least size bytes (whole chunks), top-down: right below the
 * lowest chunk, where the heap grows (VA given back above it is not
 * reused while there is room below). */
static int chunk_open(vas *v, uint64_t size, uint64_t align, chunk **out, diag *d) {
  cuda_model *m = v->impl;
  const vtree_node *lowest = vtree_first(&m->chunks);
  uint64_t step = v->cfg.cuda_va_chunk, len = round_up(size, step), base;
  chunk *c = calloc(1, sizeof *c);
  if (!c) return vas_err_nomem(d);
  int rc = vdrv_reserve_below(&v->drv, lowest ? lowest->key[0] : UINT64_MAX, len, align > step ? align : step, &base, d);
  if (rc == VAS_OK && vext_add(&c->free, base, len))
    rc = vdrv_release(&v->drv, base, len, d) ? VAS_ERR : vas_err_nomem(d);
  if (rc != VAS_OK) {
    free(c);
    return rc;
  }
  c->size = len;
  c->node.key[0] = base;
  c->node.weight = len;
  vtree_insert(&m->chunks, &c->node);
  *out = c;
  return VAS_OK;
}

/* size bytes of the heap, aligned: the lowest chunk with room, in it the
 * smallest free range (the lowest of equal ones), at its start. */
static int heap_take(vas *v, uint64_t size, uint64_t align, chunk **home, uint64_t *va, diag *d) {
  cuda_model *m = v->impl;
  vtree_node *n = vtree_first_fit(&m->chunks, NULL, size);
  chunk *c = NULL;
  for (; n; n = vtree_first_fit(&m->chunks, (uint64_t[3]){n->key[0] + 1, 0, 0}, size)) {
    c = vtree_entry(n, chunk, node);
    int rc = vext_take(&c->free, VEXT_BEST, size, align, va);
    if (rc < 0) return vas_err_nomem(d);
    if (rc) break; /* else the room is not aligned as asked */
  }
  if (!n) {
    int rc = chunk_open(v, size, align, &c, d);
    if (rc != VAS_OK) return rc;
    /* a fresh chunk, aligned to align and at least size long, holds it */
    if (vext_take(&c->free, VEXT_BEST, size, align, va) < 0) return vas_err_nomem(d);
  }
  chunk_update(c);
  *home = c;
  return VAS_OK;
}

/* Returns [va, va+size) to its chunk, and the chunk to the driver once
 * nothing in it is live. */
static int heap_give(vas *v, chunk *c, uint64_t va, uint64_t size, diag *d) {
  cuda_model *m = v->impl;
  if (vext_add(&c->free, va, size)) return vas_err_nomem(d);
  if (c->free.free_bytes < c->size) {
    chunk_update(c);
    return VAS_OK;
  }
  uint64_t base = c->node.key[0], len = c->size;
  vtree_remove(&m->chunks, &c->node);
  vext_clear(&c->free);
  free(c);
  return vdrv_release(&v->drv, base, len, d);
}

/* --- holes of regions ------------------------------------------------------------ */

static uint64_t hole_va(const hole *h) { return h->by_addr.key[0]; }
static uint64_t hole_size(const hole *h) { return h->by_fit.key[0]; }
static hole *hole_at(vtree_node *n) { return n ? vtree_entry(n, hole, by_addr) : NULL; }

/* A new hole is the youngest: ties go to holes that have waited longer. */
static int hole_add(cuda_model *m, region *in, uint64_t va, uint64_t size) {
  if (!size) return 0;
  hole *h = calloc(1, sizeof *h);
  if (!h) return -1;
  h->in = in;
  h->by_fit.key[0] = size;
  h->by_fit.key[1] = m->holes_made++;
  h->by_addr.key[0] = va;
  vtree_insert(&m->holes, &h->by_fit);
  vtree_insert(&m->hole_addrs, &h->by_addr);
  m->hole_bytes += size;
  return 0;
}

static void hole_drop(cuda_model *m, hole *h) {
  vtree_remove(&m->holes, &h->by_fit);
  vtree_remove(&m->hole_addrs, &h->by_addr);
  m->hole_bytes -= hole_size(h);
  free(h);
}

/* Where h holds size bytes aligned to align: *at, or false. */
static bool hole_fits(const hole *h, uint64_t size, uint64_t align, uint64_t *at) {
  uint64_t a = round_up(hole_va(h), align);
  if (a < hole_va(h) || a - hole_va(h) > hole_size(h) || hole_size(h) - (a - hole_va(h)) < size) return false;
  *at = a;
  return true;
}

/* The smallest hole that holds the request, the oldest of equal ones. */
static hole *best_hole(const cuda_model *m, uint64_t size, uint64_t align, uint64_t *at) {
  for (vtree_node *n = vtree_lower_bound(&m->holes, (uint64_t[3]){size, 0, 0}); n; n = vtree_next(n))
    if (hole_fits(vtree_entry(n, hole, by_fit), size, align, at)) return vtree_entry(n, hole, by_fit);
  return NULL;
}

/* --- regions ---------------------------------------------------------------------- */

/* Places and maps a region: one hole, all of it. */
static int region_open(vas *v, hole **out, diag *d) {
  cuda_model *m = v->impl;
  uint64_t size = v->cfg.cuda_region_size;
  region *r = calloc(1, sizeof *r);
  if (!r) return vas_err_nomem(d);
  int rc = heap_take(v, size, size, &r->home, &r->va, d);
  if (rc == VAS_OK && (rc = vdrv_map(&v->drv, r->va, size, m->small_shift, d)) != VAS_OK)
    if (heap_give(v, r->home, r->va, size, d)) rc = VAS_ERR;
  if (rc == VAS_OK && hole_add(m, r, r->va, size)) {
    vdrv_unmap(&v->drv, r->va, size, m->small_shift);
    rc = heap_give(v, r->home, r->va, size, d) ? VAS_ERR : vas_err_nomem(d);
  }
  if (rc != VAS_OK) {
    free(r);
    return rc;
  }
  *out = hole_at(vtree_find(&m->hole_addrs, (uint64_t[3]){r->va, 0, 0}));
  return VAS_OK;
}

/* Unmaps a region nothing is in (its hole already dropped). */
static int region_close(vas *v, region *r, diag *d) {
  uint64_t size = v->cfg.cuda_region_size;
  vdrv_unmap(&v->drv, r->va, size, ((cuda_model *)v->impl)->small_shift);
  int rc = heap_give(v, r->home, r->va, size, d);
  free(r);
  return rc;
}

static int small_alloc(vas *v, uint64_t size, uint64_t align, region **in, uint64_t *va, diag *d) {
  cuda_model *m = v->impl;
  hole *h = best_hole(m, size, align, va);
  if (!h) {
    int rc = region_open(v, &h, d);
    if (rc != VAS_OK) return rc;
    if (!hole_fits(h, size, align, va)) { /* alignment beyond the region's: cannot be placed in one */
      region *r = h->in;
      hole_drop(m, h);
      return region_close(v, r, d) ? VAS_ERR : VAS_OOM;
    }
  }
  region *r = h->in;
  uint64_t start = hole_va(h), end = start + hole_size(h);
  hole_drop(m, h);
  if (hole_add(m, r, start, *va - start) || hole_add(m, r, *va + size, end - *va - size)) return vas_err_nomem(d);
  r->live++;
  *in = r;
  return VAS_OK;
}

/* The freed space merges with the holes beside it; the region's last
 * request takes the region with it. */
static int small_free(vas *v, region *r, uint64_t va, uint64_t size, diag *d) {
  cuda_model *m = v->impl;
  uint64_t start = va, end = va + size;
  vtree_node *after = vtree_lower_bound(&m->hole_addrs, (uint64_t[3]){va, 0, 0});
  hole *next = hole_at(after), *prev = hole_at(after ? vtree_prev(after) : vtree_last(&m->hole_addrs));
  if (prev && prev->in == r && hole_va(prev) + hole_size(prev) == start) {
    start = hole_va(prev);
    hole_drop(m, prev);
  }
  if (next && next->in == r && hole_va(next) == end) {
    end += hole_size(next);
    hole_drop(m, next);
  }
  if (--r->live == 0) return region_close(v, r, d);
  return hole_add(m, r, start, end - start) ? vas_err_nomem(d) : VAS_OK;
}

static int large_alloc(vas *v, uint64_t size, uint64_t align, chunk **home, uint64_t *va, diag *d) {
  cuda_model *m = v->impl;
  int rc = heap_take(v, size, align, home, va, d);
  if (rc != VAS_OK) return rc;
  if ((rc = vdrv_map(&v->drv, *va, size, m->large_shift, d)) != VAS_OK)
    return heap_give(v, *home, *va, size, d) ? VAS_ERR : rc;
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
    rc = large_alloc(v, b->size, align > c->cuda_large_page ? align : c->cuda_large_page, &b->home, va, d);
  } else {
    b->size = round_up(want, c->cuda_small_align);
    rc = small_alloc(v, b->size, align > c->cuda_small_align ? align : c->cuda_small_align, &b->in, va, d);
  }
  if (rc != VAS_OK) {
    free(b);
    return rc;
  }
  v->st.driver_allocs++;
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
  int rc;
  if (!b->in) {
    vdrv_unmap(&v->drv, va, b->size, m->large_shift);
    rc = heap_give(v, b->home, va, b->size, d);
  } else {
    rc = small_free(v, b->in, va, b->size, d);
  }
  free(b);
  return rc;
}

/* Holes in regions, plus the unmapped memory as one extent: any free page
 * can back any new mapping. */
static void cuda_extents(const vas *v, vas_extents *out) {
  const cuda_model *m = v->impl;
  const vtree_node *largest = vtree_last(&m->holes);
  uint64_t unmapped = vdrv_unreserved(&v->drv), widest = largest ? largest->key[0] : 0;
  out->count = m->holes.count + (unmapped > 0);
  out->total = m->hole_bytes + unmapped;
  out->largest = widest > unmapped ? widest : unmapped;
}

const vas_policy vas_cuda = {"cuda", "cudaMalloc/cudaFree per request (H200 driver model)", cuda_init, cuda_fini,
                             cuda_alloc, cuda_free, cuda_extents, NULL};
