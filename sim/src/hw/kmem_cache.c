/* kmem_cache.c — a sectored cache, LRU, write-back (tlbsim/kmem.h).
 *
 * Set-associative (ways > 0): the set is a multiplicative hash of the line
 * number (GPU L1 caches hash addresses over their sets, so strides do not
 * fall on one set), each set's ways scanned; a way is its line and one
 * word of when it was last used and its sectors, so that a look-up reads
 * one cache line of the host's (four ways), not four.
 *
 * Fully associative (ways 0): an open-addressing table (linear probing) of
 * the lines held, each entry the line, its sectors held and dirty, and
 * where its latest use is in the queue; the queue lists entries in the
 * order of their uses, each use appended: the first entry that is still
 * its latest use is the least recently used line, the one replaced
 * (exactly the LRU order of a list from most to least recent, without a
 * hit's writes to its neighbours in the list). A hit reads and writes its
 * entry alone, a miss that entry's place and its victim's entry: the
 * cache the kernel model's L2 is (tens of megabytes of the host's memory,
 * at random) costs one host miss a hit and two a replacement, where the
 * table the lines' slots were looked up through cost four (round 12 of
 * bench/README.md). For that an entry never moves while the queue names
 * it: a line replaced leaves a tombstone, which later lines take, or an
 * empty entry where it ended its run (bury); should tombstones and lines
 * fill half the table, every line moves into the spare table in the
 * queue's order (rebuild: at the kernel model's sizes, never in the bench
 * runs). Entries of the queue no longer latest are skipped when they come
 * first, or dropped when the queue is full (compact). */
#include "tlbsim/kmem.h"

#include <stdlib.h>

#define NO_LINE UINT64_MAX        /* a fully associative table's empty entry */
#define GONE_LINE (UINT64_MAX - 1) /* and a replaced line's (a tombstone); lines are addresses >> 7 */
/* A fully associative cache's queue positions and table indices are 32
 * bits, its table four times its lines and its ring eight times: 2^28
 * lines (32 GiB) at most. */
#define FULL_LINES_MAX (1ull << 28)
#define FULL_TABLE_PER_LINE 4 /* the table a quarter full of lines: a miss's probe ends within a host line */
#define FULL_QUEUE_PER_LINE 8 /* compact (a write to each line's entry) once in seven lines' uses or more */

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
  uint64_t line; /* NO_LINE, GONE_LINE, or the line */
  uint32_t use;  /* where its latest use is in the queue */
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
  kentry *table, *spare; /* the lines held; rebuild's next table */
  uint32_t mask;         /* table size - 1 */
  uint32_t live, gone;   /* entries holding a line; tombstones */
  uint32_t *queue;       /* table entries in the order of their uses, a ring of qmask + 1 */
  uint32_t head, tail;   /* its oldest entry and the next (positions wrap; the ring's index is pos & qmask) */
  uint32_t qmask;
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

static uint64_t pow2_at_least(uint64_t n) {
  uint64_t p = 2;
  while (p < n) p <<= 1;
  return p;
}

static void clear_table(kentry *t, uint64_t size) {
  for (uint64_t i = 0; i < size; i++) t[i] = (kentry){.line = NO_LINE};
}

static bool alloc_slots(kmem_cache *c) {
  if (c->ways) return alloc_ways(c);
  uint64_t size = pow2_at_least(FULL_TABLE_PER_LINE * c->slots), q = pow2_at_least(FULL_QUEUE_PER_LINE * c->slots);
  c->mask = (uint32_t)(size - 1);
  c->qmask = (uint32_t)(q - 1);
  c->table = malloc(size * sizeof *c->table);
  c->spare = malloc(size * sizeof *c->spare);
  c->queue = malloc(q * sizeof *c->queue);
  if (!c->table || !c->spare || !c->queue) return false;
  clear_table(c->table, size);
  return true;
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
  free(c->table);
  free(c->spare);
  free(c->queue);
  free(c);
}

uint64_t kmem_cache_lines(const kmem_cache *c) { return c->slots; }

/* --- fully associative: the table and the LRU queue ---------------------- */

#define NO_ENTRY UINT32_MAX

/* Where line's entry is in t (NO_ENTRY: not there); *put, when it is not:
 * where it would go, the first tombstone of its run or the empty entry
 * that ends it (the table always has one: rebuild keeps it half empty). */
static uint32_t find(const kentry *t, uint32_t mask, uint64_t line, uint32_t *put) {
  uint32_t i = (uint32_t)mix(line) & mask, gone = NO_ENTRY;
  for (;; i = (i + 1) & mask) {
    uint64_t l = t[i].line;
    if (l == line) return i;
    if (l == NO_LINE) break;
    if (l == GONE_LINE && gone == NO_ENTRY) gone = i;
  }
  *put = gone != NO_ENTRY ? gone : i;
  return NO_ENTRY;
}

/* Whether queue position pos is entry e's latest use. */
static bool latest(const kmem_cache *c, uint32_t e, uint32_t pos) {
  return c->table[e].use == pos && c->table[e].line < GONE_LINE;
}

/* Drops the queue's entries that are no longer their entry's latest use,
 * keeping the others' order: one an entry stays. */
static void compact(kmem_cache *c) {
  uint32_t to = c->head;
  for (uint32_t from = c->head; from != c->tail; from++) {
    uint32_t e = c->queue[from & c->qmask];
    if (!latest(c, e, from)) continue;
    c->queue[to & c->qmask] = e;
    c->table[e].use = to++;
  }
  c->tail = to;
}

/* Every line into the spare table, which becomes the table: no
 * tombstones. Compacted first, the queue names each line once, at its
 * latest use, and is rewritten in place with the lines' new entries. */
static void rebuild(kmem_cache *c) {
  compact(c);
  kentry *t = c->spare;
  clear_table(t, (uint64_t)c->mask + 1);
  for (uint32_t pos = c->head; pos != c->tail; pos++) {
    uint32_t *q = &c->queue[pos & c->qmask], put = 0;
    find(t, c->mask, c->table[*q].line, &put);
    t[put] = c->table[*q];
    *q = put;
  }
  c->spare = c->table;
  c->table = t;
  c->gone = 0;
}

/* Entry e used now: the most recent. */
static void used(kmem_cache *c, uint32_t e) {
  if (c->tail - c->head > c->qmask) compact(c);
  c->queue[c->tail & c->qmask] = e;
  c->table[e].use = c->tail++;
}

/* The least recently used line's entry, taken off the queue (the cache
 * holds a line). The next one's entry is asked for: it is the next
 * victim's, unless used again meanwhile. */
static uint32_t least_recent(kmem_cache *c) {
  for (;; c->head++) {
    uint32_t e = c->queue[c->head & c->qmask];
    if (latest(c, e, c->head)) {
      if (++c->head != c->tail) __builtin_prefetch(&c->table[c->queue[c->head & c->qmask]]);
      return e;
    }
  }
}

/* A line replaced: its entry a tombstone, or empty when it ends its run
 * (no later line's probe passes it), then so are the tombstones before it
 * (most replaced lines end their run, the table a quarter full: so
 * tombstones stay few and rebuild rare). */
static void bury(kmem_cache *c, kentry *v) {
  uint32_t e = (uint32_t)(v - c->table);
  c->live--;
  if (c->table[(e + 1) & c->mask].line != NO_LINE) {
    v->line = GONE_LINE;
    c->gone++;
    return;
  }
  v->line = NO_LINE;
  for (e = (e - 1) & c->mask; c->table[e].line == GONE_LINE; e = (e - 1) & c->mask) {
    c->table[e].line = NO_LINE;
    c->gone--;
  }
}

/* The sectors of line held before this access (sectors, write: as
 * kmem_cache_access's); a miss when the cache is full replaces the least
 * recently used line, whose dirty sectors go to *evict. */
static uint8_t full_access(kmem_cache *c, uint64_t line, uint8_t sectors, bool write, kmem_evict *evict) {
  uint8_t wrote = write ? sectors : 0;
  if (evict) *evict = (kmem_evict){0};
  uint32_t put = 0, e = find(c->table, c->mask, line, &put);
  if (e != NO_ENTRY) {
    kentry *hit = &c->table[e];
    uint8_t held = hit->valid & sectors;
    hit->valid |= sectors;
    hit->dirty |= wrote;
    used(c, e);
    return held;
  }
  if (c->live == c->slots) {
    kentry *v = &c->table[least_recent(c)];
    if (evict && v->dirty) *evict = (kmem_evict){.line = v->line, .dirty = v->dirty};
    bury(c, v);
    find(c->table, c->mask, line, &put); /* its run may have changed (cached: just read) */
  }
  if (c->table[put].line == GONE_LINE) c->gone--;
  c->table[put] = (kentry){.line = line, .valid = sectors, .dirty = wrote};
  c->live++;
  used(c, put);
  if ((uint64_t)c->live + c->gone > ((uint64_t)c->mask + 1) / 2) rebuild(c);
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
