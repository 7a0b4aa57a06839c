/* Free extents, kept coalesced: no two extents touch. */
#include "vas_extent.h"

#include <stdlib.h>

typedef struct extent {
  vtree_node by_addr; /* key (addr); weight = size */
  vtree_node by_size; /* key (size, addr) */
} extent;

static uint64_t ext_addr(const extent *e) { return e->by_addr.key[0]; }
static uint64_t ext_size(const extent *e) { return e->by_addr.weight; }

static void link(vext *x, extent *e, uint64_t addr, uint64_t size) {
  e->by_addr.key[0] = addr;
  e->by_addr.key[1] = e->by_addr.key[2] = 0;
  e->by_addr.weight = size;
  e->by_size.key[0] = size;
  e->by_size.key[1] = addr;
  e->by_size.key[2] = 0;
  e->by_size.weight = size;
  vtree_insert(&x->by_addr, &e->by_addr);
  vtree_insert(&x->by_size, &e->by_size);
  x->free_bytes += size;
}

static void unlink(vext *x, extent *e) {
  vtree_remove(&x->by_addr, &e->by_addr);
  vtree_remove(&x->by_size, &e->by_size);
  x->free_bytes -= ext_size(e);
}

static extent *node_extent(vtree_node *n) { return n ? vtree_entry(n, extent, by_addr) : NULL; }

/* Adds a range known not to touch any free extent. */
static int add_plain(vext *x, uint64_t addr, uint64_t size) {
  if (!size) return 0;
  extent *e = malloc(sizeof *e);
  if (!e) return -1;
  link(x, e, addr, size);
  return 0;
}

int vext_add(vext *x, uint64_t addr, uint64_t size) {
  if (!size) return 0;
  uint64_t key[3] = {addr, 0, 0};
  vtree_node *after = vtree_lower_bound(&x->by_addr, key);
  vtree_node *before = after ? vtree_prev(after) : vtree_last(&x->by_addr);
  extent *prev = node_extent(before), *next = node_extent(after);
  bool join_prev = prev && ext_addr(prev) + ext_size(prev) == addr;
  bool join_next = next && addr + size == ext_addr(next);
  if (!join_prev && !join_next) return add_plain(x, addr, size);
  uint64_t start = join_prev ? ext_addr(prev) : addr;
  uint64_t end = join_next ? ext_addr(next) + ext_size(next) : addr + size;
  extent *keep = join_prev ? prev : next;
  unlink(x, keep);
  if (join_prev && join_next) {
    unlink(x, next);
    free(next);
  }
  link(x, keep, start, end - start);
  return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* Whether e holds size bytes at an align-aligned address; *at gets it. */
static bool fits(const extent *e, uint64_t size, uint64_t align, uint64_t *at) {
  uint64_t a = align_up(ext_addr(e), align);
  if (a < ext_addr(e) || a - ext_addr(e) > ext_size(e) || ext_size(e) - (a - ext_addr(e)) < size) return false;
  *at = a;
  return true;
}

/* Cuts [at, at+size) out of e; the pieces before and after stay free. */
static int carve(vext *x, extent *e, uint64_t at, uint64_t size) {
  uint64_t start = ext_addr(e), end = start + ext_size(e);
  unlink(x, e);
  if (at > start) {
    link(x, e, start, at - start);
    e = NULL;
  }
  int rc = 0;
  if (at + size < end) {
    if (e) link(x, e, at + size, end - at - size);
    else rc = add_plain(x, at + size, end - at - size);
    e = NULL;
  }
  free(e);
  return rc;
}

/* First extent in address order from `from` that fits. */
static extent *scan_addr(vext *x, uint64_t from, uint64_t size, uint64_t align, uint64_t *at) {
  uint64_t key[3] = {from, 0, 0};
  for (vtree_node *n = vtree_first_fit(&x->by_addr, key, size); n; n = vtree_next(n)) {
    if (n->weight < size) {
      uint64_t k[3] = {n->key[0] + 1, 0, 0};
      n = vtree_first_fit(&x->by_addr, k, size);
      if (!n) return NULL;
    }
    if (fits(node_extent(n), size, align, at)) return node_extent(n);
  }
  return NULL;
}

static extent *scan_size(vext *x, uint64_t size, uint64_t align, uint64_t *at) {
  uint64_t key[3] = {size, 0, 0};
  for (vtree_node *n = vtree_lower_bound(&x->by_size, key); n; n = vtree_next(n)) {
    extent *e = vtree_entry(n, extent, by_size);
    if (fits(e, size, align, at)) return e;
  }
  return NULL;
}

/* Highest extent whose top end holds the request. */
static extent *scan_top(vext *x, uint64_t size, uint64_t align, uint64_t *at) {
  for (vtree_node *n = vtree_last_fit(&x->by_addr, size); n; n = vtree_prev(n)) {
    extent *e = node_extent(n);
    if (ext_size(e) < size) continue;
    uint64_t top = (ext_addr(e) + ext_size(e) - size) & ~(align - 1);
    if (top >= ext_addr(e)) {
      *at = top;
      return e;
    }
  }
  return NULL;
}

int vext_take(vext *x, vext_fit fit, uint64_t size, uint64_t align, uint64_t *addr) {
  if (!size) size = 1;
  if (!align) align = 1;
  extent *e;
  uint64_t at = 0;
  switch (fit) {
  case VEXT_BEST: e = scan_size(x, size, align, &at); break;
  case VEXT_TOP: e = scan_top(x, size, align, &at); break;
  case VEXT_NEXT:
    e = scan_addr(x, x->cursor, size, align, &at);
    if (!e) e = scan_addr(x, 0, size, align, &at);
    break;
  default: e = scan_addr(x, 0, size, align, &at); break;
  }
  if (!e) return 0;
  if (carve(x, e, at, size)) return -1;
  x->cursor = at + size;
  *addr = at;
  return 1;
}

int vext_take_below(vext *x, uint64_t limit, uint64_t size, uint64_t align, uint64_t *addr) {
  if (!size) size = 1;
  if (!align) align = 1;
  vtree_node *n = vtree_lower_bound(&x->by_addr, (uint64_t[3]){limit, 0, 0});
  for (n = n ? vtree_prev(n) : vtree_last(&x->by_addr); n; n = vtree_prev(n)) {
    extent *e = node_extent(n); /* starts below limit */
    uint64_t end = ext_addr(e) + ext_size(e), top = end < limit ? end : limit;
    if (top - ext_addr(e) < size) continue;
    uint64_t at = (top - size) & ~(align - 1);
    if (at < ext_addr(e)) continue;
    if (carve(x, e, at, size)) return -1;
    x->cursor = at + size;
    *addr = at;
    return 1;
  }
  return 0;
}

void vext_clear(vext *x) {
  vtree_node *n;
  while ((n = x->by_addr.root)) {
    extent *e = node_extent(n);
    unlink(x, e);
    free(e);
  }
  x->cursor = 0;
}
