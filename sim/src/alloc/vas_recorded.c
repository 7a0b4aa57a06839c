/* The "recorded" policy: every allocation where the captured program's
 * driver put it (the trace's va=; tlbsim-capture writes one on each), so a
 * capture replays with the driver's own layout beside the models'. The
 * memory behind it is mapped with 2 MiB pages (the H200's cudaMalloc
 * granularity: gpu/README.md), each mapped while any live allocation
 * touches it, so reserved bytes and their peak count the 2 MiB pages the
 * recorded layout touched. A request without va=, or one that overlaps a
 * live allocation, is an error: the recording is not a layout. */
#include <stdlib.h>

#include "vas_impl.h"

#define PAGE_SHIFT 21
#define PAGE (1ull << PAGE_SHIFT)

typedef struct rec_node {
  vtree_node node; /* blocks: key va; pages: key page number */
  uint64_t size, requested, users;
} rec_node;

typedef struct rec_heap {
  vtree live, pages;
} rec_heap;

static int rec_init(vas *v, diag *d) {
  if (!(v->impl = calloc(1, sizeof(rec_heap)))) return vas_err_nomem(d);
  return 0;
}

static rec_node *find(const vtree *t, uint64_t key) {
  uint64_t k[3] = {key, 0, 0};
  vtree_node *n = vtree_find(t, k);
  return n ? vtree_entry(n, rec_node, node) : NULL;
}

static rec_node *node_new(vtree *t, uint64_t key) {
  rec_node *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->node.key[0] = key;
  vtree_insert(t, &n->node);
  return n;
}

/* The pages [first, last] one use fewer (unmapped when none is left). */
static void pages_put(vas *v, uint64_t first, uint64_t last) {
  rec_heap *h = v->impl;
  for (uint64_t p = first; p <= last; p++) {
    rec_node *n = find(&h->pages, p);
    if (!n || --n->users) continue;
    vdrv_unmap(&v->drv, p << PAGE_SHIFT, PAGE, PAGE_SHIFT);
    vtree_remove(&h->pages, &n->node);
    free(n);
  }
}

static void rec_fini(vas *v) {
  rec_heap *h = v->impl;
  vtree_node *n;
  while ((n = h->live.root)) {
    vtree_remove(&h->live, n);
    free(vtree_entry(n, rec_node, node));
  }
  while ((n = h->pages.root)) {
    vdrv_unmap(&v->drv, n->key[0] << PAGE_SHIFT, PAGE, PAGE_SHIFT);
    vtree_remove(&h->pages, n);
    free(vtree_entry(n, rec_node, node));
  }
  free(h);
}

/* A live block overlapping [va, va + size), or NULL. */
static const rec_node *overlap(const rec_heap *h, uint64_t va, uint64_t size) {
  uint64_t k[3] = {va + size, 0, 0};
  vtree_node *n = vtree_lower_bound(&h->live, k);
  n = n ? vtree_prev(n) : vtree_last(&h->live);
  if (!n) return NULL;
  const rec_node *b = vtree_entry(n, rec_node, node);
  return n->key[0] + b->size > va ? b : NULL;
}

static int rec_alloc(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d) {
  (void)align, (void)stream;
  rec_heap *h = v->impl;
  uint64_t at = v->want;
  if (!at) return diag_set(d, NULL, 0, "recorded: an allocation without its recorded address (va=)"), VAS_ERR;
  if (at + (size - 1) < at) return diag_set(d, NULL, 0, "recorded: va=%#llx + %llu wraps", (unsigned long long)at, (unsigned long long)size), VAS_ERR;
  const rec_node *o = overlap(h, at, size);
  if (o)
    return diag_set(d, NULL, 0, "recorded: va=%#llx overlaps the live allocation at %#llx",
                    (unsigned long long)at, (unsigned long long)o->node.key[0]),
           VAS_ERR;
  uint64_t first = at >> PAGE_SHIFT, last = (at + size - 1) >> PAGE_SHIFT, fresh = 0;
  for (uint64_t p = first; p <= last; p++) fresh += !find(&h->pages, p);
  if (fresh * PAGE > vdrv_unreserved(&v->drv)) return VAS_OOM;
  rec_node *b = node_new(&h->live, at);
  if (!b) return vas_err_nomem(d);
  b->size = size, b->requested = size;
  for (uint64_t p = first; p <= last; p++) {
    rec_node *n = find(&h->pages, p);
    int rc = VAS_OK;
    if (!n && (!(n = node_new(&h->pages, p)) || (rc = vdrv_map(&v->drv, p << PAGE_SHIFT, PAGE, PAGE_SHIFT, d)))) {
      if (n) vtree_remove(&h->pages, &n->node), free(n);
      if (p > first) pages_put(v, first, p - 1);
      vtree_remove(&h->live, &b->node), free(b);
      return rc == VAS_OK ? vas_err_nomem(d) : rc;
    }
    n->users++;
  }
  v->st.driver_allocs++;
  vas_note_alloc(v, size, size);
  *va = at;
  return VAS_OK;
}

static int rec_free(vas *v, uint64_t va, diag *d) {
  rec_heap *h = v->impl;
  rec_node *b = find(&h->live, va);
  if (!b) return vas_err_not_live(v, va, d);
  vtree_remove(&h->live, &b->node);
  pages_put(v, va >> PAGE_SHIFT, (va + b->size - 1) >> PAGE_SHIFT);
  v->st.driver_frees++;
  vas_note_free(v, b->size, b->requested);
  free(b);
  return VAS_OK;
}

/* Whatever is not mapped is free, in one piece: the recording placed
 * everything, so fragmentation is the recorded program's, not this
 * policy's. */
static void rec_extents(const vas *v, vas_extents *out) {
  uint64_t unmapped = vdrv_unreserved(&v->drv);
  *out = (vas_extents){.count = unmapped ? 1 : 0, .largest = unmapped, .total = unmapped};
}

const vas_policy vas_recorded = {"recorded", "the address the capture recorded (va=)", rec_init, rec_fini,
                                 rec_alloc, rec_free, rec_extents, NULL}; /* its one free extent is its free range */
