/* kmem_cache.c — a sectored cache, LRU, write-back (tlbsim/kmem.h).
 *
 * Set-associative (ways > 0): the set is a multiplicative hash of the line
 * number (GPU L1 caches hash addresses over their sets, so strides do not
 * fall on one set), each set's ways scanned. Fully associative (ways 0):
 * an open-addressing table (linear probing) finds a line's slot, the slots
 * form one list from most to least recently used, the last one replaced. */
#include "tlbsim/kmem.h"

#include <stdlib.h>
#include <string.h>

#define NO_LINE UINT64_MAX
#define NO_SLOT UINT32_MAX

struct kmem_cache {
  uint64_t sets;  /* set-associative: sets x ways slots */
  uint32_t ways;  /* 0: fully associative */
  uint64_t slots;
  uint64_t *tag;  /* per slot: the line, or NO_LINE */
  uint8_t *valid; /* its sectors held */
  uint8_t *dirty; /* those written and not yet written back */
  uint64_t *used; /* set-associative: when last used (the clock) */
  uint64_t clock;
  uint32_t *prev, *next, head, tail; /* fully associative: the LRU list, head most recent */
  uint32_t *table;                   /* fully associative: slot of a line (NO_SLOT: empty) */
  uint64_t mask;                     /* table size - 1 */
  uint32_t filled;                   /* slots taken so far */
};

static uint64_t mix(uint64_t line) {
  uint64_t h = line * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 32);
}

static bool alloc_slots(kmem_cache *c) {
  c->tag = malloc(c->slots * sizeof *c->tag);
  c->valid = calloc(c->slots, 1);
  c->dirty = calloc(c->slots, 1);
  if (!c->tag || !c->valid || !c->dirty) return false;
  for (uint64_t i = 0; i < c->slots; i++) c->tag[i] = NO_LINE;
  if (c->ways) return (c->used = calloc(c->slots, sizeof *c->used)) != NULL;
  uint64_t size = 2;
  while (size < 2 * c->slots) size <<= 1;
  c->mask = size - 1;
  c->prev = malloc(c->slots * sizeof *c->prev);
  c->next = malloc(c->slots * sizeof *c->next);
  c->table = malloc(size * sizeof *c->table);
  if (!c->prev || !c->next || !c->table) return false;
  memset(c->table, 0xff, size * sizeof *c->table);
  c->head = c->tail = NO_SLOT;
  return true;
}

kmem_cache *kmem_cache_create(uint64_t bytes, uint32_t ways, diag *d) {
  uint64_t lines = bytes >> KMEM_LINE_SHIFT;
  if (!lines || lines < ways || (!ways && lines >= NO_SLOT)) {
    diag_set(d, NULL, 0, "a cache of %llu bytes in %u ways holds no set", (unsigned long long)bytes, ways);
    return NULL;
  }
  kmem_cache *c = calloc(1, sizeof *c);
  if (c) {
    c->ways = ways;
    c->sets = ways ? lines / ways : 1;
    c->slots = ways ? c->sets * ways : lines;
  }
  if (!c || !alloc_slots(c)) {
    kmem_cache_destroy(c);
    diag_set(d, NULL, 0, "out of memory for a cache of %llu bytes", (unsigned long long)bytes);
    return NULL;
  }
  return c;
}

void kmem_cache_destroy(kmem_cache *c) {
  if (!c) return;
  free(c->tag);
  free(c->valid);
  free(c->dirty);
  free(c->used);
  free(c->prev);
  free(c->next);
  free(c->table);
  free(c);
}

uint64_t kmem_cache_lines(const kmem_cache *c) { return c->slots; }

/* --- fully associative: the table and the LRU list ---------------------- */

static uint64_t probe(const kmem_cache *c, uint64_t line) {
  uint64_t i = mix(line) & c->mask;
  while (c->table[i] != NO_SLOT && c->tag[c->table[i]] != line) i = (i + 1) & c->mask;
  return i;
}

/* Removes the table's entry at i, moving later entries of its run back
 * (linear probing's deletion without tombstones). */
static void unhash(kmem_cache *c, uint64_t i) {
  for (uint64_t j = i;;) {
    c->table[i] = NO_SLOT;
    for (;;) {
      j = (j + 1) & c->mask;
      if (c->table[j] == NO_SLOT) return;
      uint64_t home = mix(c->tag[c->table[j]]) & c->mask;
      /* the entry at j may move to i when its home is not in (i, j] (cyclically) */
      if (i <= j ? home <= i || home > j : home <= i && home > j) break;
    }
    c->table[i] = c->table[j];
    i = j;
  }
}

static void unlink_slot(kmem_cache *c, uint32_t s) {
  if (c->prev[s] != NO_SLOT) c->next[c->prev[s]] = c->next[s];
  else c->head = c->next[s];
  if (c->next[s] != NO_SLOT) c->prev[c->next[s]] = c->prev[s];
  else c->tail = c->prev[s];
}

static void push_front(kmem_cache *c, uint32_t s) {
  c->prev[s] = NO_SLOT;
  c->next[s] = c->head;
  if (c->head != NO_SLOT) c->prev[c->head] = s;
  c->head = s;
  if (c->tail == NO_SLOT) c->tail = s;
}

/* The slot holding line, made the most recent; or a slot given to it
 * (*found false): a free one, or the least recently used one's. */
static uint64_t full_slot(kmem_cache *c, uint64_t line, bool *found) {
  uint64_t i = probe(c, line);
  uint32_t s = c->table[i];
  *found = s != NO_SLOT;
  if (*found) {
    unlink_slot(c, s);
  } else {
    if (c->filled < c->slots) {
      s = c->filled++;
    } else {
      s = c->tail;
      unlink_slot(c, s);
      unhash(c, probe(c, c->tag[s]));
      i = probe(c, line);
    }
    c->table[i] = s;
  }
  push_front(c, s);
  return s;
}

/* --- set-associative ------------------------------------------------------ */

static uint64_t set_slot(kmem_cache *c, uint64_t line, bool *found) {
  uint64_t base = (mix(line) % c->sets) * c->ways, victim = base;
  c->clock++;
  for (uint64_t i = base; i < base + c->ways; i++) {
    if (c->tag[i] == line) {
      *found = true;
      c->used[i] = c->clock;
      return i;
    }
    if (c->used[i] < c->used[victim]) victim = i;
  }
  *found = false;
  c->used[victim] = c->clock;
  return victim;
}

uint8_t kmem_cache_access(kmem_cache *c, uint64_t line, uint8_t sectors, bool write, kmem_evict *evict) {
  bool found;
  uint64_t s = c->ways ? set_slot(c, line, &found) : full_slot(c, line, &found);
  uint8_t held = 0;
  if (evict) *evict = (kmem_evict){0};
  if (found) {
    held = c->valid[s] & sectors;
  } else {
    if (evict && c->tag[s] != NO_LINE && c->dirty[s]) *evict = (kmem_evict){.line = c->tag[s], .dirty = c->dirty[s]};
    c->tag[s] = line;
    c->valid[s] = 0;
    c->dirty[s] = 0;
  }
  c->valid[s] |= sectors;
  if (write) c->dirty[s] |= sectors;
  return held;
}
