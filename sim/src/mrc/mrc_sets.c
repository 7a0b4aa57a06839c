/* mrc_sets.c — set-associative LRU for every power-of-two set count in one
 * pass (Hill & Smith 1989, "all-associativity"; see mrc_impl.h).
 *
 * Two pages share a set of 2^k sets under the modulo index exactly when
 * their low k bits agree: ctz(a ^ b) >= k. So a page found at depth n of
 * the recent list is at position p_k = #{newer pages b : ctz(page ^ b) >= k}
 * of its set's LRU stack at set count 2^k, and every level is updated
 * knowing where the page is, without a search. Positions shrink as k grows
 * (a finer set holds a subset of the pages), so once a page is at the front
 * of its set at some k it is at the front at every larger k: deep
 * references stop there.
 */
#include "mrc_impl.h"

#include <stdlib.h>
#include <string.h>

int sets_init(mrc_sets *s, uint32_t max_sets, uint32_t max_ways, uint32_t max_entries) {
  *s = (mrc_sets){.levels = log2_u64(max_sets)};
  for (unsigned k = 1; k <= s->levels; k++) {
    mrc_level *lv = &s->level[k];
    uint64_t sets = 1ull << k;
    lv->depth = max_ways < max_entries >> k ? max_ways : max_entries >> k;
    lv->set_mask = sets - 1;
    lv->stack = malloc(sets * lv->depth * sizeof *lv->stack);
    lv->hist = calloc(lv->depth + 1, sizeof *lv->hist);
    if (!lv->stack || !lv->hist) return -1;
    for (uint64_t i = 0; i < sets * lv->depth; i++) lv->stack[i] = MRC_NO_PAGE;
  }
  return 0;
}

void sets_free(mrc_sets *s) {
  for (unsigned k = 1; k <= s->levels; k++) {
    free(s->level[k].stack);
    free(s->level[k].hist);
  }
}

/* Moves page, at position pos >= 1 of its set (pos >= depth: not held),
 * to the front, evicting the last entry when it was not held. Sets are a
 * few entries deep and pos is mostly 1: a loop beats a memmove call. */
static inline void move_to_front(mrc_level *lv, uint64_t page, uint32_t pos) {
  uint64_t *set = lv->stack + (page & lv->set_mask) * lv->depth;
  uint32_t p = pos < lv->depth ? pos : lv->depth;
  for (uint32_t j = p < lv->depth ? p : lv->depth - 1; j > 0; j--) set[j] = set[j - 1];
  set[0] = page;
  lv->hist[p]++;
}

_Static_assert(MRC_RECENT <= UINT8_MAX, "a byte counts the newer pages of the recent list");

void sets_recent(mrc_sets *s, uint64_t page, const uint64_t *newer, unsigned n) {
  uint8_t exactly[MRC_MAX_SET_BITS + 1] = {0}; /* newer pages sharing exactly c low bits with page */
  unsigned most = 0;
  for (unsigned i = 0; i < n; i++) {
    unsigned c = (unsigned)__builtin_ctzll(page ^ newer[i]);
    c = c < s->levels ? c : s->levels;
    exactly[c]++;
    most = c > most ? c : most;
  }
  uint32_t pos = 0; /* newer pages sharing at least k low bits: page's position at 2^k sets */
  for (unsigned k = most; k >= 1; k--) {
    pos += exactly[k];
    move_to_front(&s->level[k], page, pos);
  }
}

void sets_deep(mrc_sets *s, uint64_t page) {
  for (unsigned k = 1; k <= s->levels; k++) {
    mrc_level *lv = &s->level[k];
    const uint64_t *set = lv->stack + (page & lv->set_mask) * lv->depth;
    uint32_t p = 0;
    while (p < lv->depth && set[p] != page) p++;
    if (p == 0) return;
    move_to_front(lv, page, p);
  }
}

uint64_t sets_misses(const mrc_sets *s, unsigned k, uint32_t ways) {
  const mrc_level *lv = &s->level[k];
  uint64_t misses = 0;
  for (uint32_t p = ways; p <= lv->depth; p++) misses += lv->hist[p];
  return misses;
}
