/* Binary buddy allocator (Knowlton 1965; Knuth TAOCP 2.5; Linux
 * mm/page_alloc.c's free areas) over the managed range.
 *
 * Blocks are 2^k pages, aligned to their size relative to va_base. A
 * request takes the smallest order that holds it, splitting a larger free
 * block in halves, lower half kept; a freed block merges with its buddy
 * (offset XOR size) while that buddy is free and whole. The range need
 * not be a power of two: it starts as the largest aligned blocks that tile
 * it, and a block whose buddy would stick out of the range never merges.
 * The whole block is mapped: rounding to a power of two is internal
 * fragmentation the statistics show. */
#include <stdlib.h>

#include "vas_impl.h"

#define MAX_ORDER 64

typedef struct buddy_block {
  vtree_node node; /* key (offset): in free[order] or in live */
  unsigned order;
  uint64_t requested;
} buddy_block;

typedef struct buddy {
  unsigned shift;     /* log2 page size: order 0 */
  unsigned max_order; /* largest order that fits in the range */
  uint64_t align;     /* minimum alignment asked of every block */
  uint64_t units;     /* range length in pages */
  vtree free[MAX_ORDER];
  vtree live;
  uint64_t free_bytes;
  size_t free_blocks;
} buddy;

static uint64_t block_bytes(const buddy *b, unsigned order) { return 1ull << (order + b->shift); }

static void put_free(buddy *b, buddy_block *blk, uint64_t off, unsigned order) {
  blk->node.key[0] = off;
  blk->node.key[1] = blk->node.key[2] = 0;
  blk->node.weight = 0;
  blk->order = order;
  vtree_insert(&b->free[order], &blk->node);
  b->free_bytes += block_bytes(b, order);
  b->free_blocks++;
}

static void take_free(buddy *b, buddy_block *blk) {
  vtree_remove(&b->free[blk->order], &blk->node);
  b->free_bytes -= block_bytes(b, blk->order);
  b->free_blocks--;
}

static int new_free(buddy *b, uint64_t off, unsigned order) {
  buddy_block *blk = malloc(sizeof *blk);
  if (!blk) return -1;
  put_free(b, blk, off, order);
  return 0;
}

static void drop_tree(vtree *t) {
  vtree_node *n;
  while ((n = t->root)) {
    vtree_remove(t, n);
    free(vtree_entry(n, buddy_block, node));
  }
}

static void buddy_fini(vas *v) {
  buddy *b = v->impl;
  for (vtree_node *n = vtree_first(&b->live); n; n = vtree_next(n)) {
    buddy_block *blk = vtree_entry(n, buddy_block, node);
    vdrv_unmap(&v->drv, v->cfg.va_base + (n->key[0] << b->shift), block_bytes(b, blk->order), b->shift);
  }
  drop_tree(&b->live);
  for (unsigned k = 0; k < MAX_ORDER; k++) drop_tree(&b->free[k]);
  free(b);
}

static int buddy_init(vas *v, diag *d) {
  buddy *b = calloc(1, sizeof *b);
  if (!b) return vas_err_nomem(d);
  if (vas_generic_page_setup(v, &b->shift, &b->align, d)) {
    free(b);
    return -1;
  }
  b->units = v->cfg.va_size >> b->shift;
  if (!b->units) {
    free(b);
    return diag_set(d, NULL, 0, "buddy: va_size %llu is smaller than one page (%llu)",
                    (unsigned long long)v->cfg.va_size, (unsigned long long)v->cfg.page_size);
  }
  b->max_order = log2_u64(b->units);
  v->impl = b;
  /* Tile [0, units) with the largest aligned blocks. */
  for (uint64_t off = 0; off < b->units;) {
    unsigned k = off ? (unsigned)__builtin_ctzll(off) : b->max_order;
    while (off + (1ull << k) > b->units) k--;
    if (new_free(b, off, k)) {
      buddy_fini(v);
      v->impl = NULL;
      return vas_err_nomem(d);
    }
    off += 1ull << k;
  }
  return 0;
}

static int buddy_alloc(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d) {
  (void)stream;
  buddy *b = v->impl;
  uint64_t pages = size ? (size >> b->shift) + ((size & (block_bytes(b, 0) - 1)) != 0) : 1;
  if (pages > b->units) return VAS_OOM; /* also keeps `want` below 64 */
  if (align < b->align) align = b->align;
  unsigned want = is_pow2(pages) ? log2_u64(pages) : log2_u64(pages) + 1;
  unsigned align_order = log2_u64(align) > b->shift ? log2_u64(align) - b->shift : 0;
  if (want < align_order) want = align_order;
  unsigned k = want;
  while (k <= b->max_order && !b->free[k].root) k++;
  if (k > b->max_order) return VAS_OOM;
  buddy_block *blk = vtree_entry(vtree_first(&b->free[k]), buddy_block, node);
  uint64_t off = blk->node.key[0];
  if ((v->cfg.va_base + (off << b->shift)) & (align - 1)) return VAS_OOM; /* va_base less aligned than asked */
  take_free(b, blk);
  while (k > want) { /* split: keep the lower half, free the upper */
    k--;
    if (new_free(b, off + (1ull << k), k)) {
      put_free(b, blk, off, k);
      return vas_err_nomem(d);
    }
  }
  *va = v->cfg.va_base + (off << b->shift);
  int rc = vdrv_map(&v->drv, *va, block_bytes(b, want), b->shift, d);
  if (rc != VAS_OK) {
    put_free(b, blk, off, want); /* its buddies stay split until it is freed again */
    return rc;
  }
  v->st.driver_allocs++;
  blk->order = want;
  blk->requested = size;
  vtree_insert(&b->live, &blk->node);
  vas_note_alloc(v, block_bytes(b, want), size);
  return VAS_OK;
}

static int buddy_free(vas *v, uint64_t va, diag *d) {
  buddy *b = v->impl;
  if (va < v->cfg.va_base) return vas_err_not_live(v, va, d);
  uint64_t key[3] = {(va - v->cfg.va_base) >> b->shift, 0, 0};
  vtree_node *n = vtree_find(&b->live, key);
  if (!n || ((va - v->cfg.va_base) & (block_bytes(b, 0) - 1))) return vas_err_not_live(v, va, d);
  buddy_block *blk = vtree_entry(n, buddy_block, node);
  vtree_remove(&b->live, n);
  vdrv_unmap(&v->drv, va, block_bytes(b, blk->order), b->shift);
  v->st.driver_frees++;
  vas_note_free(v, block_bytes(b, blk->order), blk->requested);
  uint64_t off = key[0];
  unsigned k = blk->order;
  while (k < b->max_order) {
    uint64_t bkey[3] = {off ^ (1ull << k), 0, 0};
    vtree_node *bn = vtree_find(&b->free[k], bkey);
    if (!bn) break;
    buddy_block *mate = vtree_entry(bn, buddy_block, node);
    take_free(b, mate);
    free(mate);
    off &= ~(1ull << k);
    k++;
  }
  put_free(b, blk, off, k);
  return VAS_OK;
}

/* Each free block is an extent: a request cannot span two of them. */
static void buddy_extents(const vas *v, vas_extents *out) {
  const buddy *b = v->impl;
  out->count = b->free_blocks;
  out->total = b->free_bytes;
  out->largest = 0;
  for (unsigned k = b->max_order + 1; k-- > 0;)
    if (b->free[k].root) {
      out->largest = block_bytes(b, k);
      break;
    }
  uint64_t unmapped = vdrv_unreserved(&v->drv);
  if (out->total > unmapped) out->total = unmapped;
  if (out->largest > out->total) out->largest = out->total;
}

/* Free blocks side by side that are no buddies of each other are one run
 * of free memory no request can take whole: a 16 KiB and an 8 KiB block
 * are 24 KiB that hold a 20 KiB request's bytes, not its 32 KiB block. */
typedef struct span {
  uint64_t off, len;
} span;

static int by_offset(const void *a, const void *b) {
  uint64_t x = ((const span *)a)->off, y = ((const span *)b)->off;
  return (x > y) - (x < y);
}

static uint64_t buddy_free_range(const vas *v) {
  const buddy *b = v->impl;
  span *s = malloc((b->free_blocks ? b->free_blocks : 1) * sizeof *s);
  vas_extents e;
  if (!s) return buddy_extents(v, &e), e.largest; /* no host memory: the largest block */
  size_t n = 0;
  for (unsigned k = 0; k <= b->max_order; k++)
    for (vtree_node *x = vtree_first(&b->free[k]); x && n < b->free_blocks; x = vtree_next(x))
      s[n++] = (span){x->key[0], 1ull << k};
  qsort(s, n, sizeof *s, by_offset);
  uint64_t best = 0;
  for (size_t i = 0; i < n;) {
    uint64_t end = s[i].off + s[i].len, run = s[i].len;
    for (i++; i < n && s[i].off == end; i++) end += s[i].len, run += s[i].len;
    if (run > best) best = run;
  }
  free(s);
  return best << b->shift;
}

const vas_policy vas_buddy = {"buddy", "binary buddy: power-of-two blocks, split and coalesced", buddy_init,
                              buddy_fini, buddy_alloc, buddy_free, buddy_extents, buddy_free_range};
