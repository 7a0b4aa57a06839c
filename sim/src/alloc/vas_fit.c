/* Generic heaps: first fit, next fit, best fit over the managed VA range.
 *
 * The range stands for the memory itself (by default it is exactly the
 * capacity), so a request that finds no free extent large enough is an OOM
 * even when the free extents add up to more: external fragmentation, the
 * textbook case (OSTEP ch. 17; Knuth TAOCP 2.5). Each allocation rounds up
 * to whole pages, maps them on alloc and unmaps them on free: one
 * driver-level call each way. */
#include <stdlib.h>

#include "vas_impl.h"

#define DEFAULT_PAGE 4096

typedef struct fit_block {
  vtree_node node; /* key (va) in fit_heap.live */
  uint64_t size, requested;
} fit_block;

typedef struct fit_heap {
  vext_fit how;
  uint64_t align; /* max(alignment, page size) */
  unsigned shift; /* log2 page size */
  vtree live;
} fit_heap;

int vas_generic_page_setup(vas *v, unsigned *shift, uint64_t *align, diag *d) {
  vas_config *c = &v->cfg;
  if (!c->page_size) c->page_size = DEFAULT_PAGE;
  if (!is_pow2(c->page_size))
    return diag_set(d, NULL, 0, "%s: page_size %llu is not a power of two", v->policy->name,
                    (unsigned long long)c->page_size);
  if (c->alignment && !is_pow2(c->alignment))
    return diag_set(d, NULL, 0, "%s: alignment %llu is not a power of two", v->policy->name,
                    (unsigned long long)c->alignment);
  if (c->va_base % c->page_size)
    return diag_set(d, NULL, 0, "%s: va_base is not page-aligned", v->policy->name);
  *shift = log2_u64(c->page_size);
  *align = c->alignment > c->page_size ? c->alignment : c->page_size;
  return 0;
}

static int fit_init(vas *v, vext_fit how, diag *d) {
  fit_heap *h = calloc(1, sizeof *h);
  if (!h) return vas_err_nomem(d);
  h->how = how;
  if (vas_generic_page_setup(v, &h->shift, &h->align, d)) {
    free(h);
    return -1;
  }
  v->impl = h;
  return 0;
}

static int first_init(vas *v, diag *d) { return fit_init(v, VEXT_FIRST, d); }
static int next_init(vas *v, diag *d) { return fit_init(v, VEXT_NEXT, d); }
static int best_init(vas *v, diag *d) { return fit_init(v, VEXT_BEST, d); }

static void fit_fini(vas *v) {
  fit_heap *h = v->impl;
  vtree_node *n;
  while ((n = h->live.root)) {
    fit_block *b = vtree_entry(n, fit_block, node);
    vdrv_unmap(&v->drv, n->key[0], b->size, h->shift);
    vtree_remove(&h->live, n);
    free(b);
  }
  free(h);
}

static int fit_alloc(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d) {
  (void)stream;
  fit_heap *h = v->impl;
  uint64_t rounded = round_up(size ? size : 1, v->cfg.page_size);
  if (align < h->align) align = h->align;
  fit_block *b = malloc(sizeof *b);
  if (!b) return vas_err_nomem(d);
  int rc = vext_take(&v->drv.va, h->how, rounded, align, va);
  if (rc <= 0) {
    free(b);
    return rc < 0 ? vas_err_nomem(d) : VAS_OOM;
  }
  if ((rc = vdrv_map(&v->drv, *va, rounded, h->shift, d)) != VAS_OK) {
    free(b);
    return vdrv_release(&v->drv, *va, rounded, d) ? VAS_ERR : rc;
  }
  v->st.driver_allocs++;
  b->size = rounded;
  b->requested = size;
  b->node.key[0] = *va;
  b->node.key[1] = b->node.key[2] = 0;
  b->node.weight = 0;
  vtree_insert(&h->live, &b->node);
  vas_note_alloc(v, rounded, size);
  return VAS_OK;
}

static int fit_free(vas *v, uint64_t va, diag *d) {
  fit_heap *h = v->impl;
  uint64_t key[3] = {va, 0, 0};
  vtree_node *n = vtree_find(&h->live, key);
  if (!n) return vas_err_not_live(v, va, d);
  fit_block *b = vtree_entry(n, fit_block, node);
  vtree_remove(&h->live, n);
  vdrv_unmap(&v->drv, va, b->size, h->shift);
  v->st.driver_frees++;
  vas_note_free(v, b->size, b->requested);
  int rc = vdrv_release(&v->drv, va, b->size, d);
  free(b);
  return rc;
}

/* Free extents of the heap, bounded by the memory still unmapped (only
 * smaller when the VA range was configured larger than the capacity). */
static void fit_extents(const vas *v, vas_extents *out) {
  uint64_t unmapped = vdrv_unreserved(&v->drv);
  out->count = vext_count(&v->drv.va);
  out->total = v->drv.va.free_bytes < unmapped ? v->drv.va.free_bytes : unmapped;
  out->largest = vext_largest(&v->drv.va) < out->total ? vext_largest(&v->drv.va) : out->total;
}

const vas_policy vas_first_fit = {"first-fit", "lowest-address free extent that fits", first_init, fit_fini,
                                  fit_alloc, fit_free, fit_extents, NULL};
const vas_policy vas_next_fit = {"next-fit", "first fit resuming after the last placement", next_init,
                                 fit_fini, fit_alloc, fit_free, fit_extents, NULL};
const vas_policy vas_best_fit = {"best-fit", "smallest free extent that fits (lowest address on ties)",
                                 best_init, fit_fini, fit_alloc, fit_free, fit_extents, NULL};
