/* kmem_cache.c — a sectored cache, LRU, write-back (tlbsim/kmem.h).
 *
 * Set-associative (ways > 0): the set is a multiplicative hash of the line
 * number (GPU L1 caches hash addresses over their sets, so strides do not
 * fall on one set), each set's ways scanned; a way is its line and one
 * word of when it was last used and its sectors, so that a look-up reads
 * one cache line of the host's (four ways), not four. Fully associative
 * (ways 0): an open-addressing table (linear probing) of lines and their
 * slots finds a line's slot, the slots form one list from most to least
 * recently used, the last one replaced; a slot's links and sectors are one
 * record (a hit reads the table's entry, its record and its neighbours'). */
#include "tlbsim/kmem.h"

#include <stdlib.h>

#define NO_LINE UINT64_MAX
#define NO_SLOT UINT32_MAX

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

typedef struct kslot_rec {
  uint32_t prev, next; /* the LRU list's neighbours */
  uint8_t valid;       /* its sectors held */
  uint8_t dirty;       /* those written and not yet written back */
} kslot_rec;

typedef struct kentry {
  uint64_t line;
  uint32_t slot;
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
  kslot_rec *rec;     /* per slot */
  uint32_t head, tail; /* the LRU list, head most recent */
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
  c->rec = calloc(c->slots, sizeof *c->rec);
  if (!c->tag || !c->rec) return false;
  for (uint64_t i = 0; i < c->slots; i++) c->tag[i] = NO_LINE;
  uint64_t size = 2;
  while (size < 2 * c->slots) size <<= 1;
  c->mask = size - 1;
  if (!(c->table = malloc(size * sizeof *c->table))) return false;
  for (uint64_t i = 0; i < size; i++) c->table[i] = (kentry){.line = NO_LINE, .slot = NO_SLOT};
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
  free(c->way);
  free(c->tag);
  free(c->rec);
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

static void unlink_slot(kmem_cache *c, uint32_t s) {
  kslot_rec *r = &c->rec[s];
  if (r->prev != NO_SLOT) c->rec[r->prev].next = r->next;
  else c->head = r->next;
  if (r->next != NO_SLOT) c->rec[r->next].prev = r->prev;
  else c->tail = r->prev;
}

static void push_front(kmem_cache *c, uint32_t s) {
  c->rec[s].prev = NO_SLOT;
  c->rec[s].next = c->head;
  if (c->head != NO_SLOT) c->rec[c->head].prev = s;
  c->head = s;
  if (c->tail == NO_SLOT) c->tail = s;
}

/* The slot holding line, made the most recent; or a slot given to it
 * (*found false): a free one, or the least recently used one's. */
static uint64_t full_slot(kmem_cache *c, uint64_t line, bool *found) {
  uint64_t i = probe(c, line);
  uint32_t s = c->table[i].slot;
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
    c->table[i] = (kentry){.line = line, .slot = s};
  }
  push_front(c, s);
  return s;
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
  if (c->ways) return set_access(c, line, sectors, write, evict);
  bool found;
  uint64_t s = full_slot(c, line, &found);
  uint8_t held = 0;
  if (evict) *evict = (kmem_evict){0};
  kslot_rec *r = &c->rec[s];
  if (found) {
    held = r->valid & sectors;
  } else {
    if (evict && c->tag[s] != NO_LINE && r->dirty) *evict = (kmem_evict){.line = c->tag[s], .dirty = r->dirty};
    c->tag[s] = line;
    r->valid = 0;
    r->dirty = 0;
  }
  r->valid |= sectors;
  if (write) r->dirty |= sectors;
  return held;
}
