/* kmem_cache.c — a sectored cache, LRU, write-back (tlbsim/kmem.h).
 *
 * Set-associative (ways > 0): the set is a multiplicative hash of the line
 * number (GPU L1 caches hash addresses over their sets, so strides do not
 * fall on one set), each set's ways scanned; a way is its line and one
 * word of when it was last used and its sectors, so that a look-up reads
 * one cache line of the host's (four ways), not four. Fully associative
 * (ways 0): an open-addressing table (linear probing) of lines and their
 * slots finds a line's slot; recency is a queue of slots in the order of
 * their uses, each use appended and the slot's record keeping where its
 * latest is: the first entry that is still its slot's latest is the least
 * recently used slot, the one replaced (exactly the LRU order of a list
 * from most to least recent, without a hit's writes to its neighbours in
 * the list). A line's sectors held and dirty lie in its table entry, so
 * that a hit reads that entry alone and writes its slot's use. Entries of
 * the queue no longer latest are skipped when they come first, or dropped
 * when the queue is full (compact). */
#include "tlbsim/kmem.h"

#include <stdlib.h>

#define NO_LINE UINT64_MAX
#define NO_SLOT UINT32_MAX
/* A fully associative cache's queue positions are 32 bits and its ring
 * twice its lines: 2^30 lines (128 GiB) at most. */
#define FULL_LINES_MAX (1ull << 30)

/* A way's use word: the clock when last used (LRU: the least replaced;
 * 2^56 look-ups of one cache are out of reach), the sectors written and
 * not yet written back, the sectors held. */
#define USE_CLOCK_SHIFT 8
#define USE_DIRTY_SHIFT 4
#define USE_SECTORS 0xfu
_Static_assert(KMEM_LINE_SHIFT - KMEM_SECTOR_SHIFT <= 2, "a line's sectors fit a use word's 4 bits");

typedef struct kway {
  uint64_t tag; /* the line, or NO_LINE */
  uint64_t use;
} kway;


typedef struct kentry {
  uint64_t line;
  uint32_t slot;
  uint8_t valid; /* its sectors held */
  uint8_t dirty; /* those written and not yet written back */
} kentry;

struct kmem_cache {
  uint64_t sets;     /* set-associative: sets x ways slots */
  uint64_t set_mask; /* sets - 1 when a power of two, else 0 */
  uint32_t ways;     /* 0: fully associative */
  uint64_t slots;
  kway *way;      /* set-associative: [sets x ways], a set's ways together */
  uint64_t clock; /* set-associative: look-ups so far */
  /* fully associative */
  uint64_t *tag;      /* per slot: the line, or NO_LINE */
  uint32_t *use;       /* per slot: where its latest use is in the queue */
  uint32_t *queue;     /* slots in the order of their uses, a ring of qmask + 1 */
  uint32_t head, tail; /* its oldest entry and the next (positions wrap; the ring's index is pos & qmask) */
  uint32_t qmask;
  kentry *table;      /* slot of a line (NO_SLOT: empty) */
  uint64_t mask;      /* table size - 1 */
  uint32_t filled;    /* slots taken so far */
};

static uint64_t mix(uint64_t line) {
  uint64_t h = line * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 32);
}

static bool alloc_ways(kmem_cache *c) {
  size_t bytes = (c->slots * sizeof *c->way + 63) & ~(size_t)63;
  if (!(c->way = aligned_alloc(64, bytes))) return false;
  for (uint64_t i = 0; i < c->slots; i++) c->way[i] = (kway){.tag = NO_LINE};
  c->set_mask = (c->sets & (c->sets - 1)) ? 0 : c->sets - 1;
  return true;
}

static bool alloc_slots(kmem_cache *c) {
  if (c->ways) return alloc_ways(c);
  c->tag = malloc(c->slots * sizeof *c->tag);
  c->use = calloc(c->slots, sizeof *c->use);
  if (!c->tag || !c->use) return false;
  for (uint64_t i = 0; i < c->slots; i++) c->tag[i] = NO_LINE;
  uint64_t size = 2;
  while (size < 2 * c->slots) size <<= 1;
  c->mask = size - 1;
  if (!(c->table = malloc(size * sizeof *c->table))) return false;
  for (uint64_t i = 0; i < size; i++) c->table[i] = (kentry){.line = NO_LINE, .slot = NO_SLOT};
  uint64_t q = 2;
  while (q < 2 * c->slots) q <<= 1; /* compact leaves at least half of it free */
  c->qmask = (uint32_t)(q - 1);
  return (c->queue = malloc(q * sizeof *c->queue)) != NULL;
}

kmem_cache *kmem_cache_create(uint64_t bytes, uint32_t ways, diag *d) {
  uint64_t lines = bytes >> KMEM_LINE_SHIFT;
  if (!lines || lines < ways) {
    diag_set(d, NULL, 0, "a cache of %llu bytes in %u ways holds no set", (unsigned long long)bytes, ways);
    return NULL;
  }
  if (!ways && lines > FULL_LINES_MAX) {
    diag_set(d, NULL, 0, "a fully associative cache of %llu bytes: at most %llu lines", (unsigned long long)bytes,
             (unsigned long long)FULL_LINES_MAX);
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
  free(c->way);
  free(c->tag);
  free(c->use);
  free(c->queue);
  free(c->table);
  free(c);
}

uint64_t kmem_cache_lines(const kmem_cache *c) { return c->slots; }

/* --- fully associative: the table and the LRU list ---------------------- */

static uint64_t probe(const kmem_cache *c, uint64_t line) {
  uint64_t i = mix(line) & c->mask;
  while (c->table[i].slot != NO_SLOT && c->table[i].line != line) i = (i + 1) & c->mask;
  return i;
}

/* Removes the table's entry at i, moving later entries of its run back
 * (linear probing's deletion without tombstones). */
static void unhash(kmem_cache *c, uint64_t i) {
  for (uint64_t j = i;;) {
    c->table[i] = (kentry){.line = NO_LINE, .slot = NO_SLOT};
    for (;;) {
      j = (j + 1) & c->mask;
      if (c->table[j].slot == NO_SLOT) return;
      uint64_t home = mix(c->table[j].line) & c->mask;
      /* the entry at j may move to i when its home is not in (i, j] (cyclically) */
      if (i <= j ? home <= i || home > j : home <= i && home > j) break;
    }
    c->table[i] = c->table[j];
    i = j;
  }
}

/* Drops the queue's entries that are no longer their slot's latest use,
 * keeping the others' order: at most one a slot stays. */
static void compact(kmem_cache *c) {
  uint32_t to = c->head;
  for (uint32_t from = c->head; from != c->tail; from++) {
    uint32_t s = c->queue[from & c->qmask];
    if (c->use[s] != from) continue;
    c->queue[to & c->qmask] = s;
    c->use[s] = to++;
  }
  c->tail = to;
}

/* Slot s used now: the most recent. */
static void used(kmem_cache *c, uint32_t s) {
  if (c->tail - c->head > c->qmask) compact(c);
  c->queue[c->tail & c->qmask] = s;
  c->use[s] = c->tail++;
}

/* The least recently used slot, taken off the queue (every slot has been
 * used: the cache is full). */
static uint32_t least_recent(kmem_cache *c) {
  for (;; c->head++) {
    uint32_t s = c->queue[c->head & c->qmask];
    if (c->use[s] == c->head) {
      c->head++;
      return s;
    }
  }
}

/* The sectors of line held before this access (sectors, write: as
 * kmem_cache_access's); a miss takes a free slot or the least recently
 * used one's, whose dirty sectors go to *evict. */
static uint8_t full_access(kmem_cache *c, uint64_t line, uint8_t sectors, bool write, kmem_evict *evict) {
  uint8_t wrote = write ? sectors : 0;
  if (evict) *evict = (kmem_evict){0};
  uint64_t i = probe(c, line);
  kentry *e = &c->table[i];
  if (e->slot != NO_SLOT) {
    uint8_t held = e->valid & sectors;
    e->valid |= sectors;
    e->dirty |= wrote;
    used(c, e->slot);
    return held;
  }
  uint32_t s;
  if (c->filled < c->slots) {
    s = c->filled++;
  } else {
    s = least_recent(c);
    uint64_t j = probe(c, c->tag[s]);
    if (evict && c->table[j].dirty) *evict = (kmem_evict){.line = c->tag[s], .dirty = c->table[j].dirty};
    unhash(c, j);
    i = probe(c, line);
  }
  c->tag[s] = line;
  c->table[i] = (kentry){.line = line, .slot = s, .valid = sectors, .dirty = wrote};
  used(c, s);
  return 0;
}

/* --- set-associative ------------------------------------------------------ */

static uint8_t set_access(kmem_cache *c, uint64_t line, uint8_t sectors, bool write, kmem_evict *evict) {
  uint64_t h = mix(line);
  kway *set = &c->way[(c->set_mask ? h & c->set_mask : h % c->sets) * c->ways], *victim = set;
  uint64_t now = ++c->clock << USE_CLOCK_SHIFT, wrote = write ? (uint64_t)sectors << USE_DIRTY_SHIFT : 0;
  if (evict) *evict = (kmem_evict){0};
  for (kway *w = set; w < set + c->ways; w++) {
    if (w->tag == line) {
      uint8_t held = (uint8_t)(w->use & USE_SECTORS & sectors);
      w->use = now | (w->use & ((1u << USE_CLOCK_SHIFT) - 1)) | wrote | sectors;
      return held;
    }
    if (w->use >> USE_CLOCK_SHIFT < victim->use >> USE_CLOCK_SHIFT) victim = w;
  }
  uint8_t dirty = (uint8_t)(victim->use >> USE_DIRTY_SHIFT & USE_SECTORS);
  if (evict && victim->tag != NO_LINE && dirty) *evict = (kmem_evict){.line = victim->tag, .dirty = dirty};
  *victim = (kway){.tag = line, .use = now | wrote | sectors};
  return 0;
}

void kmem_cache_prefetch(const kmem_cache *c, uint64_t line) {
  uint64_t h = mix(line);
  if (c->ways) __builtin_prefetch(&c->way[(c->set_mask ? h & c->set_mask : h % c->sets) * c->ways]);
  else __builtin_prefetch(&c->table[h & c->mask]);
}

uint8_t kmem_cache_access(kmem_cache *c, uint64_t line, uint8_t sectors, bool write, kmem_evict *evict) {
  return c->ways ? set_access(c, line, sectors, write, evict) : full_access(c, line, sectors, write, evict);
}
