/* PyTorch's CUDA caching allocator, with and without expandable segments.
 *
 * The rules below were read from c10/cuda/CUDACachingAllocator.cpp
 * (DeviceCachingAllocator: malloc, get_free_block, should_split,
 * alloc_found_block, free_block, try_merge_blocks, alloc_block,
 * release_available_cached_blocks, release_cached_blocks, and for
 * expandable segments find_expandable_block, map_block, unmap_block,
 * ExpandableSegment::map/unmap); docs/ALLOC.md lists them with the
 * constants. This is a model of those rules, not a port: no events, no
 * graphs, no private pools, no garbage-collection threshold.
 *
 *  - A request rounds up to min_block (512 B). Up to small_size (1 MiB) it
 *    is served by the small pool, else by the large pool. Free blocks are
 *    kept per pool ordered by (stream, size, address): best fit within
 *    the request's stream.
 *  - No fit: cudaMalloc a segment of small_buffer (2 MiB) for small
 *    requests, large_buffer (20 MiB) below min_large_alloc (10 MiB), else
 *    the size rounded to round_large (2 MiB). On failure, release cached
 *    blocks that max_split_size made oversize (if that option is set) and
 *    retry; then cudaFree every cached block that is a whole segment and
 *    retry; then OOM.
 *  - The block found is split when the rest is >= min_block (small pool)
 *    or > small_size (large pool, and only for requests below
 *    max_split_size). Oversize blocks (>= max_split_size) serve only
 *    requests >= max_split_size that are within large_buffer of them.
 *  - A freed block merges with free neighbours of its segment.
 *  - Expandable: each (pool, stream) reserves VA for 1 1/8 of the device
 *    memory and maps pieces of small_buffer / large_buffer at its lowest
 *    free address that can grow to the request (cuMemMap, one driver
 *    call per mapped range, a mapping per piece); splits need only leave
 *    min_block; best fit prefers the block whose free-plus-unmapped tail is
 *    smallest; an OOM unmaps every whole free piece before retrying. */
#include <stdlib.h>

#include "vas_impl.h"

#define MAX_PAGE_SHIFT 21 /* segments are mapped with pages of at most 2 MiB */

typedef struct cpool {
  vtree blocks;   /* free mapped blocks: key (stream, size, addr), weight size */
  vtree unmapped; /* expandable VA not mapped: key (stream, addr) */
  bool small;
} cpool;

typedef struct xseg {
  struct xseg *next; /* all expandable reservations */
  uint64_t base, size, piece;
} xseg;

typedef struct cblock {
  vtree_node pnode; /* in pool->blocks or pool->unmapped while free */
  vtree_node lnode; /* key (addr) in caching.live while allocated */
  struct cblock *prev, *next; /* neighbours in the segment */
  cpool *pool;
  xseg *xs; /* NULL: a cudaMalloc segment */
  uint64_t addr, size, requested;
  uint32_t stream;
  bool allocated, mapped;
} cblock;

typedef struct caching {
  cpool small, large;
  vtree live;
  xseg *segs;
  bool expandable;
  uint64_t cached_bytes; /* free mapped blocks */
  /* What an OOM would give back: whole cached segments, whole free pieces
   * of expandable segments; and how many cached blocks keep a part that it
   * would not (split segments' free blocks, partial pieces). */
  uint64_t releasable, stranded_blocks;
} caching;

/* --- block sets ----------------------------------------------------------- */

static bool is_split(const cblock *b) { return b->prev || b->next; }

/* Bytes of free block b that release_cached would return to the device. A
 * block's answer cannot change while it sits in a pool: its neighbours
 * change only by merging with it, which takes it out first. */
static uint64_t whole_bytes(const cblock *b) {
  if (!b->xs) return is_split(b) ? 0 : b->size;
  uint64_t piece = b->xs->piece, base = b->xs->base;
  uint64_t first = round_up(b->addr - base, piece), end = (b->addr + b->size - base) / piece * piece;
  return end > first ? end - first : 0;
}

static void pool_insert(caching *c, cblock *b) {
  vtree_node *n = &b->pnode;
  n->key[0] = b->stream;
  if (b->mapped) {
    n->key[1] = b->size;
    n->key[2] = b->addr;
    n->weight = b->size;
    vtree_insert(&b->pool->blocks, n);
    c->cached_bytes += b->size;
    uint64_t w = whole_bytes(b);
    c->releasable += w;
    c->stranded_blocks += b->size > w;
  } else {
    n->key[1] = b->addr;
    n->key[2] = 0;
    n->weight = 0;
    vtree_insert(&b->pool->unmapped, n);
  }
}

static void pool_erase(caching *c, cblock *b) {
  if (b->mapped) {
    vtree_remove(&b->pool->blocks, &b->pnode);
    c->cached_bytes -= b->size;
    uint64_t w = whole_bytes(b);
    c->releasable -= w;
    c->stranded_blocks -= b->size > w;
  } else {
    vtree_remove(&b->pool->unmapped, &b->pnode);
  }
}

static cblock *pool_block(vtree_node *n) { return n ? vtree_entry(n, cblock, pnode) : NULL; }

static cblock *new_block(const cblock *like, uint64_t addr, uint64_t size, bool mapped) {
  cblock *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->pool = like->pool;
  b->xs = like->xs;
  b->stream = like->stream;
  b->addr = addr;
  b->size = size;
  b->mapped = mapped;
  return b;
}

/* Puts b between before and after in its segment's chain. */
static void splice(cblock *b, cblock *before, cblock *after) {
  b->prev = before;
  b->next = after;
  if (before) before->next = b;
  if (after) after->prev = b;
}

/* dst absorbs src, a free neighbour in the same mapped state; dst is out of
 * every tree. Returns whether it merged. */
static bool try_merge(caching *c, cblock *dst, cblock *src) {
  if (!src || src->allocated || src->mapped != dst->mapped) return false;
  pool_erase(c, src);
  if (dst->prev == src) {
    dst->addr = src->addr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  dst->size += src->size;
  free(src);
  return true;
}

/* --- sizes ---------------------------------------------------------------- */

static uint64_t round_size(const vas_config *k, uint64_t size) {
  return size < k->min_block ? k->min_block : round_up(size, k->min_block);
}

static uint64_t allocation_size(const vas_config *k, uint64_t size) {
  if (size <= k->small_size) return k->small_buffer;
  if (size < k->min_large_alloc) return k->large_buffer;
  return round_up(size, k->round_large);
}

/* The driver maps a segment with the largest page (up to 2 MiB) dividing it. */
static unsigned seg_shift(uint64_t addr, uint64_t size) {
  unsigned s = (unsigned)__builtin_ctzll(size | addr);
  return s < MAX_PAGE_SHIFT ? s : MAX_PAGE_SHIFT;
}

/* Free size plus the unmapped VA right after it: what b can grow to. */
static uint64_t expandable_size(const cblock *b) {
  return b->size + (b->next && !b->next->mapped ? b->next->size : 0);
}

/* --- finding and shaping blocks --------------------------------------------- */

static cblock *get_free_block(vas *v, cpool *pool, uint32_t stream, uint64_t size) {
  caching *c = v->impl;
  uint64_t max_split = v->cfg.max_split_size, key[3] = {stream, size, 0};
  vtree_node *n = vtree_lower_bound(&pool->blocks, key);
  if (!n || n->key[0] != stream) return NULL;
  if (c->expandable) {
    for (vtree_node *nx = vtree_next(n); nx && nx->key[0] == stream && expandable_size(pool_block(nx)) <
                                                                          expandable_size(pool_block(n));
         nx = vtree_next(nx))
      n = nx;
  }
  cblock *b = pool_block(n);
  if (size < max_split && b->size >= max_split) return NULL;
  if (size >= max_split && b->size - size >= v->cfg.large_buffer) return NULL; /* b->size >= size: its key */
  pool_erase(c, b);
  return b;
}

static bool should_split(const vas *v, const cblock *b, uint64_t size) {
  const caching *c = v->impl;
  uint64_t rest = b->size - size;
  if (b->pool->small || c->expandable) return rest >= v->cfg.min_block;
  return size < v->cfg.max_split_size && rest > v->cfg.small_size;
}

static int alloc_found_block(vas *v, cblock *b, uint64_t size, uint64_t requested, cblock **out) {
  caching *c = v->impl;
  if (should_split(v, b, size)) {
    cblock *front = new_block(b, b->addr, size, true);
    if (!front) {
      pool_insert(c, b);
      return VAS_ERR;
    }
    splice(front, b->prev, b);
    b->addr += size;
    b->size -= size;
    pool_insert(c, b);
    b = front;
  }
  b->allocated = true;
  b->requested = requested;
  b->lnode.key[0] = b->addr;
  b->lnode.key[1] = b->lnode.key[2] = 0;
  b->lnode.weight = 0;
  vtree_insert(&c->live, &b->lnode);
  vas_note_alloc(v, b->size, requested);
  *out = b;
  return VAS_OK;
}

/* --- cudaMalloc segments ---------------------------------------------------- */

static int malloc_segment(vas *v, cpool *pool, uint32_t stream, uint64_t size, cblock **out, diag *d) {
  if (size > vdrv_unreserved(&v->drv)) return VAS_OOM;
  cblock like = {.pool = pool, .stream = stream};
  cblock *b = new_block(&like, 0, size, true);
  if (!b) return vas_err_nomem(d);
  unsigned shift = seg_shift(0, size);
  int rc = vdrv_reserve(&v->drv, size, 1ull << shift, &b->addr, d);
  if (rc == VAS_OK && (rc = vdrv_map(&v->drv, b->addr, size, shift, d)) != VAS_OK)
    if (vdrv_release(&v->drv, b->addr, size, d)) rc = VAS_ERR;
  if (rc != VAS_OK) {
    free(b);
    return rc;
  }
  v->st.driver_allocs++;
  *out = b;
  return VAS_OK;
}

/* cudaFree of a whole cached segment. */
static void release_block(vas *v, cblock *b) {
  pool_erase(v->impl, b);
  vdrv_unmap(&v->drv, b->addr, b->size, seg_shift(b->addr, b->size));
  vdrv_release(&v->drv, b->addr, b->size, NULL); /* returning VA may merge, never allocates more than it frees */
  v->st.driver_frees++;
  free(b);
}

/* With max_split_size set: free oversize cached segments of this stream,
 * the smallest one that covers the request, else the largest ones until
 * enough is freed. Split blocks are never released (they are not segments). */
static bool release_available(vas *v, cpool *pool, uint32_t stream, uint64_t size) {
  uint64_t max_split = v->cfg.max_split_size;
  if (max_split == UINT64_MAX) return false;
  uint64_t want = size < max_split ? max_split : size, key[3] = {stream, want, 0};
  vtree_node *n = vtree_lower_bound(&pool->blocks, key);
  if (n && n->key[0] == stream) {
    if (is_split(pool_block(n))) return false;
    release_block(v, pool_block(n));
    return true;
  }
  n = n ? vtree_prev(n) : vtree_last(&pool->blocks);
  uint64_t released = 0;
  while (released < want && n && n->key[0] == stream && pool_block(n)->size >= max_split) {
    cblock *b = pool_block(n);
    n = vtree_prev(n);
    if (is_split(b)) continue;
    released += b->size;
    release_block(v, b);
  }
  return released >= want;
}

/* --- expandable segments ---------------------------------------------------- */

static int map_pieces(vas *v, uint64_t addr, uint64_t bytes, uint64_t piece, diag *d) {
  for (uint64_t off = 0; off < bytes; off += piece) {
    int rc = vdrv_map(&v->drv, addr + off, piece, seg_shift(addr + off, piece), d);
    if (rc != VAS_OK) {
      for (uint64_t back = 0; back < off; back += piece)
        vdrv_unmap(&v->drv, addr + back, piece, seg_shift(addr + back, piece));
      return rc;
    }
  }
  return VAS_OK;
}

/* Maps the pieces covering the first `size` bytes of unmapped block b.
 * All or nothing, as cuMemCreate failing releases what this call made. */
static int map_block(vas *v, cblock *b, uint64_t size, diag *d) {
  caching *c = v->impl;
  uint64_t piece = b->xs->piece, bytes = round_up(size, piece);
  if (bytes > vdrv_unreserved(&v->drv)) return VAS_OOM;
  cblock *rest = bytes < b->size ? new_block(b, b->addr + bytes, b->size - bytes, false) : NULL;
  if (bytes < b->size && !rest) return vas_err_nomem(d);
  int rc = map_pieces(v, b->addr, bytes, piece, d);
  if (rc != VAS_OK) {
    free(rest);
    return rc;
  }
  pool_erase(c, b);
  b->mapped = true;
  if (rest) {
    splice(rest, b, b->next);
    b->size = bytes;
    pool_insert(c, rest);
  }
  try_merge(c, b, b->prev);
  try_merge(c, b, b->next);
  pool_insert(c, b);
  v->st.driver_allocs++;
  return VAS_OK;
}

/* Unmaps the whole pieces inside free block b (in pool->blocks). */
static int unmap_block(vas *v, cblock *b, diag *d) {
  caching *c = v->impl;
  const xseg *xs = b->xs;
  uint64_t first = round_up(b->addr - xs->base, xs->piece) + xs->base;
  uint64_t end = (b->addr + b->size - xs->base) / xs->piece * xs->piece + xs->base;
  if (first >= end) return VAS_OK;
  cblock *before = first > b->addr ? new_block(b, b->addr, first - b->addr, true) : NULL;
  cblock *after = end < b->addr + b->size ? new_block(b, end, b->addr + b->size - end, true) : NULL;
  if ((first > b->addr && !before) || (end < b->addr + b->size && !after)) {
    free(before);
    free(after);
    return vas_err_nomem(d);
  }
  pool_erase(c, b);
  if (before) {
    splice(before, b->prev, b);
    pool_insert(c, before);
  }
  if (after) {
    splice(after, b, b->next);
    pool_insert(c, after);
  }
  for (uint64_t a = first; a < end; a += xs->piece) vdrv_unmap(&v->drv, a, xs->piece, seg_shift(a, xs->piece));
  b->addr = first;
  b->size = end - first;
  b->mapped = false;
  try_merge(c, b, b->prev);
  try_merge(c, b, b->next);
  pool_insert(c, b);
  v->st.driver_frees++;
  return VAS_OK;
}

/* Gives back a reservation that is one unmapped block again. */
static void release_xseg(vas *v, cblock *b) {
  caching *c = v->impl;
  pool_erase(c, b);
  for (xseg **p = &c->segs; *p; p = &(*p)->next)
    if (*p == b->xs) {
      *p = b->xs->next;
      break;
    }
  vdrv_release(&v->drv, b->xs->base, b->xs->size, NULL);
  free(b->xs);
  free(b);
}

static bool has_room(const cblock *b, uint64_t size) {
  uint64_t bytes = 0;
  for (; b && bytes < size && !b->allocated; b = b->next) bytes += b->size;
  return bytes >= size;
}

/* Lowest address of this stream's reservations from which free and
 * unmapped blocks reach `size`, or a new reservation. */
static int find_expandable(vas *v, cpool *pool, uint32_t stream, uint64_t size, cblock **out, diag *d) {
  caching *c = v->impl;
  uint64_t key[3] = {stream, 0, 0};
  for (vtree_node *n = vtree_lower_bound(&pool->unmapped, key); n && n->key[0] == stream; n = vtree_next(n)) {
    cblock *b = pool_block(n);
    if (b->prev && !b->prev->allocated) b = b->prev;
    if (has_room(b, size)) {
      *out = b;
      return VAS_OK;
    }
  }
  uint64_t piece = pool->small ? v->cfg.small_buffer : v->cfg.large_buffer, total = v->drv.capacity;
  xseg *xs = calloc(1, sizeof *xs);
  cblock like = {.pool = pool, .stream = stream, .xs = xs};
  cblock *b = xs ? new_block(&like, 0, 0, false) : NULL;
  if (!b) {
    free(xs);
    return vas_err_nomem(d);
  }
  xs->piece = piece;
  xs->size = round_up(num_add_sat(total, total / 8), piece);
  int rc = vdrv_reserve(&v->drv, xs->size, 1ull << seg_shift(0, piece), &xs->base, d);
  if (rc != VAS_OK) {
    free(b);
    free(xs);
    return rc;
  }
  xs->next = c->segs;
  c->segs = xs;
  b->addr = xs->base;
  b->size = xs->size;
  pool_insert(c, b);
  *out = b;
  return VAS_OK;
}

static int grow_expandable(vas *v, cpool *pool, uint32_t stream, uint64_t size, cblock **out, diag *d) {
  caching *c = v->impl;
  cblock *b = NULL;
  int rc = find_expandable(v, pool, stream, size, &b, d);
  if (rc != VAS_OK) return rc;
  if (!b->mapped && (rc = map_block(v, b, b->size < size ? b->size : size, d)) != VAS_OK) return rc;
  while (b->size < size) { /* b is free and mapped, b->next unmapped */
    cblock *nb = b->next;
    uint64_t rest = size - b->size;
    if ((rc = map_block(v, nb, rest < nb->size ? rest : nb->size, d)) != VAS_OK) return rc;
    b = nb; /* it absorbed the old b */
  }
  pool_erase(c, b);
  *out = b;
  return VAS_OK;
}

/* --- the allocator ---------------------------------------------------------- */

static int alloc_block(vas *v, cpool *pool, uint32_t stream, uint64_t size, cblock **out, diag *d) {
  caching *c = v->impl;
  if (c->expandable) return grow_expandable(v, pool, stream, size, out, d);
  return malloc_segment(v, pool, stream, allocation_size(&v->cfg, size), out, d);
}

/* Frees every cached block that is a whole segment; unmaps whole free
 * pieces of expandable segments. */
static int release_cached(vas *v, diag *d) {
  caching *c = v->impl;
  cpool *order[2] = {&c->large, &c->small};
  for (int p = 0; p < 2; p++) {
    vtree *t = &order[p]->blocks;
    size_t n = 0, cap = t->count;
    cblock **todo = cap ? malloc(cap * sizeof *todo) : NULL;
    if (cap && !todo) return vas_err_nomem(d);
    for (vtree_node *x = vtree_first(t), *nx; x; x = nx) {
      nx = vtree_next(x);
      cblock *b = pool_block(x);
      if (b->xs) todo[n++] = b;
      else if (!is_split(b)) release_block(v, b);
    }
    for (size_t i = 0; i < n; i++) {
      cblock *b = todo[i];
      if (unmap_block(v, b, d) != VAS_OK) {
        free(todo);
        return VAS_ERR;
      }
      if (!is_split(b) && !b->mapped) release_xseg(v, b);
    }
    free(todo);
  }
  return VAS_OK;
}

static int caching_alloc(vas *v, uint64_t requested, uint64_t align, uint32_t stream, uint64_t *va, diag *d) {
  caching *c = v->impl;
  const vas_config *k = &v->cfg;
  if (align > k->min_block) /* the allocator has no alignment argument: blocks are min_block-aligned */
    return diag_set(d, NULL, 0, "%s: alignment %llu is more than the %llu bytes blocks have", v->policy->name,
                    (unsigned long long)align, (unsigned long long)k->min_block),
           VAS_ERR;
  uint64_t size = round_size(k, requested);
  cpool *pool = size <= k->small_size ? &c->small : &c->large;
  cblock *b = get_free_block(v, pool, stream, size);
  if (!b) {
    int rc = alloc_block(v, pool, stream, size, &b, d);
    if (rc == VAS_OOM && !c->expandable && release_available(v, pool, stream, size))
      rc = alloc_block(v, pool, stream, size, &b, d);
    if (rc == VAS_OOM && (rc = release_cached(v, d)) == VAS_OK) {
      rc = alloc_block(v, pool, stream, size, &b, d);
    }
    if (rc != VAS_OK) return rc;
  }
  int rc = alloc_found_block(v, b, size, requested, &b);
  if (rc != VAS_OK) return vas_err_nomem(d);
  *va = b->addr;
  return VAS_OK;
}

static int caching_free(vas *v, uint64_t va, diag *d) {
  caching *c = v->impl;
  uint64_t key[3] = {va, 0, 0};
  vtree_node *n = vtree_find(&c->live, key);
  if (!n) return vas_err_not_live(v, va, d);
  cblock *b = vtree_entry(n, cblock, lnode);
  vtree_remove(&c->live, n);
  vas_note_free(v, b->size, b->requested);
  b->allocated = false;
  try_merge(c, b, b->prev);
  try_merge(c, b, b->next);
  pool_insert(c, b);
  return VAS_OK;
}

/* The unreserved memory and what an OOM would release form one extent
 * (any free page can back a new segment); each cached block that keeps
 * memory an OOM cannot release is an extent of its own. */
static void caching_extents(const vas *v, vas_extents *out) {
  const caching *c = v->impl;
  uint64_t lump = vdrv_unreserved(&v->drv) + c->releasable;
  uint64_t largest = vtree_max_weight(&c->small.blocks);
  if (vtree_max_weight(&c->large.blocks) > largest) largest = vtree_max_weight(&c->large.blocks);
  out->count = c->stranded_blocks + (lump > 0);
  out->total = c->cached_bytes + vdrv_unreserved(&v->drv);
  out->largest = largest > lump ? largest : lump;
}

/* --- lifetime ----------------------------------------------------------------- */

static int caching_setup(vas *v, bool expandable, diag *d) {
  vas_config *k = &v->cfg;
  if (!k->min_block) k->min_block = 512;
  if (!k->small_size) k->small_size = 1ull << 20;
  if (!k->small_buffer) k->small_buffer = 2ull << 20;
  if (!k->min_large_alloc) k->min_large_alloc = 10ull << 20;
  if (!k->large_buffer) k->large_buffer = 20ull << 20;
  if (!k->round_large) k->round_large = 2ull << 20;
  if (!is_pow2(k->min_block))
    return diag_set(d, NULL, 0, "%s: min_block %llu is not a power of two", v->policy->name,
                    (unsigned long long)k->min_block);
  if (k->small_buffer < k->small_size || k->small_buffer % k->min_block || k->large_buffer % k->min_block ||
      k->round_large % k->min_block)
    return diag_set(d, NULL, 0,
                    "%s: small_buffer must hold small_size, and the buffers and round_large be multiples of min_block",
                    v->policy->name);
  caching *c = calloc(1, sizeof *c);
  if (!c) return vas_err_nomem(d);
  v->drv.chunk = k->cuda_va_chunk;
  c->small.small = true;
  c->expandable = expandable;
  v->impl = c;
  return 0;
}

static int caching_init(vas *v, diag *d) { return caching_setup(v, false, d); }
static int expandable_init(vas *v, diag *d) { return caching_setup(v, true, d); }

static int by_addr(const void *a, const void *b) {
  uint64_t x = (*(cblock *const *)a)->addr, y = (*(cblock *const *)b)->addr;
  return (x > y) - (x < y);
}

static size_t gather(vtree *t, cblock **all, size_t n, bool live) {
  for (vtree_node *x = vtree_first(t); x; x = vtree_next(x))
    all[n++] = live ? vtree_entry(x, cblock, lnode) : pool_block(x);
  return n;
}

/* Unmaps every run of adjacent mapped blocks, then frees everything. */
static void caching_fini(vas *v) {
  caching *c = v->impl;
  cpool *pools[2] = {&c->small, &c->large};
  size_t total = c->live.count;
  for (int p = 0; p < 2; p++) total += pools[p]->blocks.count + pools[p]->unmapped.count;
  cblock **all = total ? malloc(total * sizeof *all) : NULL;
  size_t n = all ? gather(&c->live, all, 0, true) : 0;
  for (int p = 0; p < 2 && all; p++) n = gather(&pools[p]->unmapped, all, gather(&pools[p]->blocks, all, n, false), false);
  if (n) qsort(all, n, sizeof *all, by_addr);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    uint64_t end = all[i]->addr + all[i]->size;
    while (all[i]->mapped && j + 1 < n && all[j + 1]->mapped && all[j + 1]->addr == end) end += all[++j]->size;
    if (all[i]->mapped) vdrv_unmap(&v->drv, all[i]->addr, end - all[i]->addr, seg_shift(all[i]->addr, end - all[i]->addr));
    i = j + 1;
  }
  for (size_t i = 0; i < n; i++) free(all[i]);
  free(all);
  while (c->segs) {
    xseg *x = c->segs;
    c->segs = x->next;
    free(x);
  }
  free(c);
}

const vas_policy vas_caching = {"caching", "PyTorch CUDA caching allocator (2/20 MiB segments, best fit)",
                                caching_init, caching_fini, caching_alloc, caching_free, caching_extents, NULL};
const vas_policy vas_expandable = {"expandable", "PyTorch caching allocator with expandable_segments:True",
                                   expandable_init, caching_fini, caching_alloc, caching_free, caching_extents, NULL};
