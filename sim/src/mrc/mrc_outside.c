/* mrc_outside.c — stack distances of the pages off the recent list (see
 * mrc_impl.h): a hash table page -> fall time, and a bitmap of the times
 * still held under a Fenwick tree of per-word counts (Bennett & Kruskal
 * 1975; Almasi, Cascaval & Padua 2002 count with a tree the same way).
 *
 * Counting words instead of single times makes the tree 64 times smaller
 * (it stays in cache) and 6 levels shallower; a popcount finishes the last
 * word. When the times run out they are renumbered 0..held-1 in order and
 * the capacity becomes twice what is held (at least compact_at), so each
 * renumbering is paid for by as many falls as it keeps.
 */
#include "mrc_impl.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_COMPACT_AT (1u << 16)
#define INITIAL_SLOTS 1024

static inline size_t slot_home(uint64_t page, size_t mask) {
  return (size_t)((page * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* The slot holding page, or the empty slot where it would go. */
static inline mrc_slot *slot_find(const mrc_outside *o, uint64_t page) {
  size_t i = slot_home(page, o->slot_mask);
  while (o->slot[i].page != page && o->slot[i].page != MRC_NO_PAGE) i = (i + 1) & o->slot_mask;
  return &o->slot[i];
}

static int slots_grow(mrc_outside *o) {
  size_t n = 2 * (o->slot_mask + 1);
  mrc_slot *old = o->slot, *end = old + o->slot_mask + 1;
  o->slot = malloc(n * sizeof *o->slot);
  if (!o->slot) {
    o->slot = old;
    return -1;
  }
  o->slot_mask = n - 1;
  for (size_t i = 0; i < n; i++) o->slot[i] = (mrc_slot){MRC_NO_PAGE, MRC_NO_TIME};
  for (mrc_slot *s = old; s < end; s++)
    if (s->page != MRC_NO_PAGE) *slot_find(o, s->page) = *s;
  free(old);
  return 0;
}

/* --- the Fenwick tree over words ----------------------------------------- */

static inline uint32_t words_of(uint32_t times) { return times / 64; }

/* Set bits in words [0, w). */
static inline uint32_t tree_prefix(const uint32_t *tree, uint32_t w) {
  uint32_t sum = 0;
  for (; w; w &= w - 1) sum += tree[w];
  return sum;
}

static inline void tree_add(uint32_t *tree, uint32_t nwords, uint32_t w, int32_t delta) {
  for (uint32_t i = w + 1; i <= nwords; i += i & -i) tree[i] += (uint32_t)delta;
}

/* The tree of the current bits, in O(words). */
static void tree_build(mrc_outside *o) {
  uint32_t n = words_of(o->cap);
  for (uint32_t i = 1; i <= n; i++) o->tree[i] = (uint32_t)__builtin_popcountll(o->bits[i - 1]);
  for (uint32_t i = 1; i <= n; i++) {
    uint32_t parent = i + (i & -i);
    if (parent <= n) o->tree[parent] += o->tree[i];
  }
}

/* Arrays for cap times, bits clear. */
static int times_alloc(mrc_outside *o, uint32_t cap) {
  uint64_t *bits = calloc(words_of(cap), sizeof *bits);
  uint32_t *tree = calloc(words_of(cap) + 1, sizeof *tree);
  uint64_t *owner = malloc((size_t)cap * sizeof *owner);
  if (!bits || !tree || !owner) {
    free(bits);
    free(tree);
    free(owner);
    return -1;
  }
  free(o->bits);
  free(o->tree);
  free(o->owner);
  o->bits = bits;
  o->tree = tree;
  o->owner = owner;
  o->cap = cap;
  return 0;
}

/* Renumbers the held times 0..held-1, keeping their order, into arrays for
 * twice as many (at least compact_at). */
static int compact(mrc_outside *o) {
  uint64_t want = 2 * (uint64_t)o->held;
  if (want < o->compact_at) want = o->compact_at;
  want = (want + 63) / 64 * 64;
  if (want >= MRC_NO_TIME) return -1;
  uint64_t *old_bits = o->bits, *old_owner = o->owner;
  uint32_t old_words = words_of(o->cap);
  o->bits = NULL;
  o->owner = NULL;
  if (times_alloc(o, (uint32_t)want)) {
    o->bits = old_bits;
    o->owner = old_owner;
    return -1;
  }
  uint32_t t = 0;
  for (uint32_t w = 0; w < old_words; w++)
    for (uint64_t m = old_bits[w]; m; m &= m - 1) {
      uint64_t page = old_owner[(uint64_t)w * 64 + (unsigned)__builtin_ctzll(m)];
      slot_find(o, page)->time = t;
      o->owner[t] = page;
      o->bits[t / 64] |= 1ull << (t % 64);
      t++;
    }
  o->next = t;
  free(old_bits);
  free(old_owner);
  tree_build(o);
  return 0;
}

/* --- the interface --------------------------------------------------------- */

int outside_init(mrc_outside *o, uint32_t compact_at) {
  *o = (mrc_outside){.compact_at = compact_at ? compact_at : DEFAULT_COMPACT_AT};
  o->slot = malloc(INITIAL_SLOTS * sizeof *o->slot);
  if (!o->slot) return -1;
  o->slot_mask = INITIAL_SLOTS - 1;
  for (size_t i = 0; i < INITIAL_SLOTS; i++) o->slot[i] = (mrc_slot){MRC_NO_PAGE, MRC_NO_TIME};
  uint64_t cap = ((uint64_t)o->compact_at + 63) / 64 * 64;
  return cap < MRC_NO_TIME ? times_alloc(o, (uint32_t)cap) : -1;
}

void outside_free(mrc_outside *o) {
  free(o->slot);
  free(o->bits);
  free(o->tree);
  free(o->owner);
}

int outside_push(mrc_outside *o, uint64_t page) {
  if (o->next == o->cap && compact(o)) return -1;
  if (2 * (o->used + 1) > o->slot_mask + 1 && slots_grow(o)) return -1;
  mrc_slot *s = slot_find(o, page);
  if (s->page == MRC_NO_PAGE) {
    s->page = page;
    o->used++;
  }
  uint32_t t = o->next++;
  s->time = t;
  o->owner[t] = page;
  o->bits[t / 64] |= 1ull << (t % 64);
  tree_add(o->tree, words_of(o->cap), t / 64, 1);
  o->held++;
  return 0;
}

bool outside_take(mrc_outside *o, uint64_t page, uint64_t *newer) {
  mrc_slot *s = slot_find(o, page);
  if (s->page == MRC_NO_PAGE) return false;
  uint32_t t = s->time, w = t / 64;
  uint64_t upto = o->bits[w] & (~0ull >> (63 - t % 64)); /* bits of times <= t in its word */
  *newer = o->held - tree_prefix(o->tree, w) - (uint32_t)__builtin_popcountll(upto);
  s->time = MRC_NO_TIME;
  o->bits[w] &= ~(1ull << (t % 64));
  tree_add(o->tree, words_of(o->cap), w, -1);
  o->held--;
  return true;
}
