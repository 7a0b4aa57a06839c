/* tlb.c — one set-associative translation array (see tlbsim/tlb.h).
 *
 * Layout: a set's ways are adjacent. The match keys (tag, size, asid) live
 * in their own array so the per-set scan of a look-up reads one cache line
 * for four ways, without branches for sets of up to 8 ways; the rest of an
 * entry is read only on a match. An empty way holds NO_TAG, which no
 * look-up produces because every page shift is at least 1.
 *
 * `hint` is a small direct-mapped table from a first-page-size tag to the
 * slot of its latest hit or fill; a look-up checks that slot's key before
 * hashing and scanning. A hint is only a guess (a later fill may have
 * reused the slot), so it counts only when the slot holds the very key; it
 * then names the entry the full look-up would find first (one entry per key
 * in a set, and the first size is probed first), so replacement stays
 * exact. On a trace that changes page at nearly every access, most
 * look-ups end there.
 *
 * LRU and FIFO keep a stamp per entry from a per-array counter (no list
 * shuffling): LRU restamps on every look-up hit and fill, FIFO only when an
 * entry is allocated. Tree-PLRU keeps ways-1 bits per set in heap order
 * (node n has children 2n and 2n+1; node 1 is the root).
 *
 * Wide LRU sets (more than WIDE_WAYS ways: a 64-entry fully associative
 * TLB) keep a recency list instead of the stamps, so a fill of a full set
 * takes the oldest way without scanning every stamp: the list is the order
 * the stamps would give, so it names the way the scan would. A per-set
 * count of the ways in use lets a full set skip the search for an empty way.
 */
#include "tlbsim/tlb.h"

#include <stdlib.h>
#include <string.h>

#define NO_TAG UINT64_MAX
#define TLB_HINTS 256 /* 1 KiB of hints: several times the pages a first-level TLB holds */

typedef struct tlb_key {
  uint64_t tag;   /* va >> (page_shift + sector log2), or NO_TAG when empty */
  uint64_t meta;  /* asid << 8 | page_shift: the match beyond the tag */
} tlb_key;

typedef struct tlb_entry {
  uint64_t pa;    /* page base, unsectored arrays */
  uint64_t valid; /* one bit per sector page; nonzero while the way is used */
  uint64_t stamp; /* LRU: last use; FIFO: allocation */
  uint8_t prot;
} tlb_entry;

struct tlb {
  tlb_geometry g;
  uint32_t ways, sets;
  unsigned set_bits;     /* log2(sets): the xor fold's chunk width */
  unsigned way_bits;     /* log2(ways) for tree-PLRU */
  unsigned sector_log2;
  uint64_t sector_mask;  /* sector_pages - 1: a page's bit within its entry */
  uint64_t all_pages;    /* the valid bits a full sector has */
  uint64_t clock;
  uint32_t hint[TLB_HINTS]; /* by hint_of(tag), page_shift[0]: the slot last hit or filled */
  uint8_t bank_pos[TLB_MAX_PAGE_SIZES]; /* per page size: where the bank bits sit in its tags */
  rng rng;
  tlb_key *key;          /* [sets * ways] */
  tlb_entry *e;          /* [sets * ways] */
  uint64_t *spa;         /* sector arrays: [sets * ways * sector_pages] page bases */
  uint64_t *plru;        /* tree-PLRU: [sets * plru_words] */
  uint32_t plru_words;
  uint32_t *widx;        /* wide sets: open-addressed slot+1 per key, 0 = empty */
  size_t widx_mask;
  uint32_t *older, *newer;   /* wide LRU sets: each slot's neighbours in its set's recency list (NO_SLOT: none) */
  uint32_t *oldest, *newest; /* wide LRU sets, per set: the ends of its list */
  uint32_t *in_use;          /* wide LRU sets, per set: ways that hold a key */
  bool plain_hits;           /* a hit restamps (narrow LRU) or changes nothing (FIFO, random), and
                                the entry holds its page base: tlb_lookup's inline path */
};

#define NO_SLOT UINT32_MAX

/* --- the recency list of a wide LRU set ------------------------------------ */

static void list_unlink(tlb *t, uint32_t set, uint32_t slot) {
  uint32_t o = t->older[slot], n = t->newer[slot];
  if (o != NO_SLOT) t->newer[o] = n;
  else t->oldest[set] = n;
  if (n != NO_SLOT) t->older[n] = o;
  else t->newest[set] = o;
}

static void list_push_newest(tlb *t, uint32_t set, uint32_t slot) {
  uint32_t n = t->newest[set];
  t->older[slot] = n;
  t->newer[slot] = NO_SLOT;
  if (n != NO_SLOT) t->newer[n] = slot;
  else t->oldest[set] = slot;
  t->newest[set] = slot;
}

/* The set a slot belongs to: a shift for the usual power-of-two ways (a
 * division costs tens of cycles on every hit). */
static inline uint32_t set_of_slot(const tlb *t, size_t slot) {
  return (uint32_t)(t->way_bits ? slot >> t->way_bits : slot / t->ways);
}

static inline void list_touch(tlb *t, size_t slot) {
  uint32_t set = set_of_slot(t, slot);
  if (t->newest[set] == slot) return;
  list_unlink(t, set, (uint32_t)slot);
  list_push_newest(t, set, (uint32_t)slot);
}

/* Lists in way order (all empty), and counts of ways in use. */
static int list_create(tlb *t) {
  size_t n = t->g.entries;
  t->older = malloc(n * sizeof *t->older);
  t->newer = malloc(n * sizeof *t->newer);
  t->oldest = malloc(t->sets * sizeof *t->oldest);
  t->newest = malloc(t->sets * sizeof *t->newest);
  t->in_use = calloc(t->sets, sizeof *t->in_use);
  if (!t->older || !t->newer || !t->oldest || !t->newest || !t->in_use) return -1;
  for (uint32_t set = 0; set < t->sets; set++) {
    t->oldest[set] = t->newest[set] = NO_SLOT;
    for (uint32_t w = 0; w < t->ways; w++) list_push_newest(t, set, set * t->ways + w);
  }
  return 0;
}

#define WIDE_WAYS 32

static const char *const policy_names[] = {
    [TLB_LRU] = "lru", [TLB_FIFO] = "fifo", [TLB_RANDOM] = "random", [TLB_PLRU] = "plru"};

int tlb_policy_parse(const char *s, tlb_policy *out) {
  for (size_t i = 0; i < sizeof policy_names / sizeof *policy_names; i++)
    if (strcmp(s, policy_names[i]) == 0) {
      *out = (tlb_policy)i;
      return 0;
    }
  if (strcmp(s, "tree-plru") == 0) {
    *out = TLB_PLRU;
    return 0;
  }
  return -1;
}

const char *tlb_policy_name(tlb_policy p) {
  return (unsigned)p < sizeof policy_names / sizeof *policy_names ? policy_names[p] : "?";
}

int tlb_index_parse(const char *s, tlb_index *out) {
  if (strcmp(s, "modulo") == 0) *out = TLB_INDEX_MODULO;
  else if (strcmp(s, "xor") == 0) *out = TLB_INDEX_XOR;
  else return -1;
  return 0;
}

int tlb_geometry_check(const tlb_geometry *g, diag *d) {
  if (g->entries == 0) return diag_set(d, NULL, 0, "entries must be at least 1");
  if (g->entries > TLB_MAX_ENTRIES)
    return diag_set(d, NULL, 0, "entries (%u) exceeds the maximum of %u", g->entries,
                    TLB_MAX_ENTRIES);
  if (g->ways == 0 || g->ways > g->entries)
    return diag_set(d, NULL, 0, "ways (%u) must be between 1 and entries (%u)", g->ways,
                    g->entries);
  if (g->entries % g->ways)
    return diag_set(d, NULL, 0, "ways (%u) does not divide entries (%u)", g->ways, g->entries);
  uint32_t sets = g->entries / g->ways;
  if (!is_pow2(sets))
    return diag_set(d, NULL, 0,
                    "entries/ways = %u sets is not a power of two (set indexing takes tag bits)",
                    sets);
  if ((unsigned)g->policy > TLB_PLRU) return diag_set(d, NULL, 0, "unknown replacement policy");
  if ((unsigned)g->index > TLB_INDEX_XOR) return diag_set(d, NULL, 0, "unknown set index");
  if (g->bank_bits > log2_u64(sets))
    return diag_set(d, NULL, 0, "bank_bits (%u) exceeds log2 of the %u sets", g->bank_bits, sets);
  if (g->bank_va_bit > 63) return diag_set(d, NULL, 0, "bank_va_bit (%u) is beyond VA bit 63", g->bank_va_bit);
  if (g->policy == TLB_PLRU && !is_pow2(g->ways))
    return diag_set(d, NULL, 0, "tree-PLRU needs a power-of-two number of ways, not %u", g->ways);
  if (!is_pow2(g->sector_pages) || g->sector_pages > TLB_MAX_SECTOR)
    return diag_set(d, NULL, 0, "sector_pages (%u) must be a power of two from 1 to %u",
                    g->sector_pages, TLB_MAX_SECTOR);
  if (g->npage_shifts == 0 || g->npage_shifts > TLB_MAX_PAGE_SIZES)
    return diag_set(d, NULL, 0, "an array holds 1 to %u page sizes, not %u", TLB_MAX_PAGE_SIZES,
                    g->npage_shifts);
  unsigned sector_log2 = log2_u64(g->sector_pages);
  for (unsigned i = 0; i < g->npage_shifts; i++) {
    unsigned s = g->page_shift[i];
    if (s < 1 || s + sector_log2 > 63)
      return diag_set(d, NULL, 0, "page shift %u is out of range (1..%u with %u-page sectors)", s,
                      63 - sector_log2, g->sector_pages);
    for (unsigned j = 0; j < i; j++)
      if (g->page_shift[j] == s)
        return diag_set(d, NULL, 0, "page size 2^%u is listed twice", s);
  }
  return 0;
}

/* Where an array's bank bits sit in the tag of a page of 2^page_shift:
 * its low bits, or the ones holding VA bit bank_va_bit and up. */
static unsigned bank_pos(const tlb_geometry *g, unsigned page_shift) {
  unsigned tag_shift = page_shift + log2_u64(g->sector_pages ? g->sector_pages : 1);
  return g->bank_va_bit > tag_shift ? g->bank_va_bit - tag_shift : 0;
}

tlb *tlb_create(const tlb_geometry *g, diag *d) {
  if (tlb_geometry_check(g, d)) return NULL;
  tlb *t = calloc(1, sizeof *t);
  if (!t) goto oom;
  t->g = *g;
  t->ways = g->ways;
  t->sets = g->entries / g->ways;
  t->set_bits = log2_u64(t->sets);
  t->way_bits = is_pow2(g->ways) ? log2_u64(g->ways) : 0;
  t->sector_log2 = log2_u64(g->sector_pages);
  t->sector_mask = g->sector_pages - 1;
  t->all_pages = (2ull << t->sector_mask) - 1;
  for (unsigned i = 0; i < g->npage_shifts; i++) t->bank_pos[i] = (uint8_t)bank_pos(g, g->page_shift[i]);
  rng_seed(&t->rng, g->seed);
  t->key = malloc((size_t)g->entries * sizeof *t->key);
  t->e = calloc(g->entries, sizeof *t->e);
  if (!t->key || !t->e) goto oom;
  for (uint32_t i = 0; i < g->entries; i++) t->key[i] = (tlb_key){NO_TAG, 0};
  if (g->sector_pages > 1) {
    t->spa = calloc((size_t)g->entries * g->sector_pages, sizeof *t->spa);
    if (!t->spa) goto oom;
  }
  if (g->ways > WIDE_WAYS) {
    size_t cap = 2;
    while (cap < 2 * (size_t)g->entries) cap <<= 1;
    t->widx = calloc(cap, sizeof *t->widx);
    t->widx_mask = cap - 1;
    if (!t->widx) goto oom;
  }
  if (g->ways > WIDE_WAYS && g->policy == TLB_LRU && list_create(t)) goto oom;
  t->plain_hits = !t->spa && !t->newest && g->policy != TLB_PLRU;
  if (g->policy == TLB_PLRU) {
    t->plru_words = (g->ways + 63) / 64;
    t->plru = calloc((size_t)t->sets * t->plru_words, sizeof *t->plru);
    if (!t->plru) goto oom;
  }
  return t;
oom:
  tlb_destroy(t);
  diag_set(d, NULL, 0, "out of memory for a %u-entry TLB", g->entries);
  return NULL;
}

void tlb_destroy(tlb *t) {
  if (!t) return;
  free(t->key);
  free(t->widx);
  free(t->e);
  free(t->spa);
  free(t->plru);
  free(t->older);
  free(t->newer);
  free(t->oldest);
  free(t->newest);
  free(t->in_use);
  free(t);
}

const tlb_geometry *tlb_get_geometry(const tlb *t) { return &t->g; }

/* The index of page_shift among the sizes the array holds, or -1. */
static int size_index(const tlb *t, unsigned page_shift) {
  for (unsigned i = 0; i < t->g.npage_shifts; i++)
    if (t->g.page_shift[i] == page_shift) return (int)i;
  return -1;
}

bool tlb_holds_size(const tlb *t, unsigned page_shift) { return size_index(t, page_shift) >= 0; }

/* The set of a tag: its low bits, or its bank bits (at bit `pos` of the tag)
 * followed by the other bits XOR-folded in chunks of the remaining index
 * width. One formula for look-ups and for tlb_set_index. */
static inline uint64_t fold_set(uint64_t tag, tlb_index index, unsigned set_bits, unsigned bank_bits, unsigned pos) {
  uint64_t set_mask = (1ull << set_bits) - 1;
  if (index == TLB_INDEX_MODULO || set_bits == bank_bits) return tag & set_mask;
  unsigned chunk = set_bits - bank_bits;
  uint64_t bank = tag >> pos & ((1ull << bank_bits) - 1), s = 0;
  uint64_t rest = (tag & ((1ull << pos) - 1)) | (tag >> (pos + bank_bits)) << pos; /* the tag without its bank bits */
  for (; rest; rest >>= chunk) s ^= rest;
  return (s & ((1ull << chunk) - 1)) << bank_bits | bank;
}

static inline uint64_t set_of(const tlb *t, uint64_t tag, unsigned size_index) {
  return fold_set(tag, t->g.index, t->set_bits, t->g.bank_bits, t->bank_pos[size_index]);
}

uint64_t tlb_set_index(const tlb_geometry *g, uint64_t va, unsigned page_shift) {
  uint64_t sets = g->entries / g->ways;
  uint64_t tag = (va >> page_shift) >> log2_u64(g->sector_pages ? g->sector_pages : 1);
  return fold_set(tag, g->index, log2_u64(sets), g->bank_bits, bank_pos(g, page_shift));
}

static inline uint64_t meta_of(uint32_t asid, unsigned page_shift) {
  return (uint64_t)asid << 8 | page_shift;
}

#define BRANCHLESS_WAYS 8

static inline size_t widx_home(const tlb *t, uint64_t tag, uint64_t meta) {
  return (size_t)(((tag * 0x9e3779b97f4a7c15ull) ^ (meta * 0xc2b2ae3d27d4eb4full)) >> 17) & t->widx_mask;
}

static int64_t widx_find(const tlb *t, uint64_t tag, uint64_t meta) {
  for (size_t i = widx_home(t, tag, meta);; i = (i + 1) & t->widx_mask) {
    uint32_t v = t->widx[i];
    if (!v) return -1;
    const tlb_key *k = &t->key[v - 1];
    if (k->tag == tag && k->meta == meta) return (int64_t)(v - 1);
  }
}

/* Removes slot's key from the index, shifting later probes back so no
 * tombstones are needed. */
static void widx_remove(tlb *t, size_t slot) {
  const tlb_key *k = &t->key[slot];
  size_t i = widx_home(t, k->tag, k->meta);
  while (t->widx[i] != slot + 1) i = (i + 1) & t->widx_mask;
  for (size_t j = i;;) {
    t->widx[i] = 0;
    for (;;) {
      j = (j + 1) & t->widx_mask;
      if (!t->widx[j]) return;
      const tlb_key *kj = &t->key[t->widx[j] - 1];
      size_t home = widx_home(t, kj->tag, kj->meta);
      /* Move j back to i unless its home lies cyclically in (i, j]. */
      if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) break;
    }
    t->widx[i] = t->widx[j];
    i = j;
  }
}

/* Every change of a slot's key goes through here to keep the index right. */
static void set_key(tlb *t, size_t slot, uint64_t tag, uint64_t meta) {
  if (t->in_use) t->in_use[set_of_slot(t, slot)] += (uint32_t)(tag != NO_TAG) - (uint32_t)(t->key[slot].tag != NO_TAG);
  if (t->widx && t->key[slot].tag != NO_TAG) widx_remove(t, slot);
  t->key[slot] = (tlb_key){tag, meta};
  if (t->widx && tag != NO_TAG) {
    size_t i = widx_home(t, tag, meta);
    while (t->widx[i]) i = (i + 1) & t->widx_mask;
    t->widx[i] = (uint32_t)(slot + 1);
  }
}

/* The way of the set at `base` holding (tag, meta), or -1. Small sets are
 * scanned without branches: which way hits is what a predictor can't guess. */
static inline int64_t find_way(const tlb *t, size_t base, uint64_t tag, uint64_t meta) {
  if (t->widx) {
    int64_t slot = widx_find(t, tag, meta);
    return slot < 0 ? -1 : slot - (int64_t)base; /* a key lives only in its own set */
  }
  const tlb_key *k = t->key + base;
  if (t->ways <= BRANCHLESS_WAYS) {
    int64_t found = -1;
    for (uint32_t w = 0; w < t->ways; w++)
      found = ((k[w].tag == tag) & (k[w].meta == meta)) ? (int64_t)w : found;
    return found;
  }
  for (uint32_t w = 0; w < t->ways; w++)
    if (k[w].tag == tag && k[w].meta == meta) return (int64_t)w;
  return -1;
}

/* A tag's hint: its low bits folded with the next ones, so that pages
 * 2^8 apart (a stack's top page and a heap's, at round addresses) do not
 * keep taking each other's hint. */
static inline uint32_t hint_of(uint64_t tag) { return (uint32_t)(tag ^ tag >> 8) & (TLB_HINTS - 1); }

/* The hinted slot when it translates va with its page valid (a
 * first-page-size entry), or -1. */
static inline int64_t find_hinted(const tlb *t, uint64_t va, uint32_t asid, unsigned *page, unsigned *shift) {
  unsigned s0 = t->g.page_shift[0];
  uint64_t vpn0 = va >> s0;
  uint64_t tag0 = vpn0 >> t->sector_log2;
  uint32_t hinted = t->hint[hint_of(tag0)];
  const tlb_key *k = &t->key[hinted];
  unsigned p0 = (unsigned)(vpn0 & t->sector_mask);
  if (k->tag != tag0 || k->meta != meta_of(asid, s0) || !(t->e[hinted].valid >> p0 & 1)) return -1;
  *page = p0;
  *shift = s0;
  return hinted;
}

/* Finds the entry translating va with its page valid by hashing and
 * scanning every page size's set: slot index or -1. Out of line, so the
 * hinted path sets up no frame for it. */
__attribute__((noinline)) static int64_t find_scan(const tlb *t, uint64_t va, uint32_t asid, unsigned *page,
                                                   unsigned *shift) {
  for (unsigned i = 0; i < t->g.npage_shifts; i++) {
    unsigned s = t->g.page_shift[i];
    uint64_t vpn = va >> s;
    uint64_t tag = vpn >> t->sector_log2;
    size_t base = (size_t)set_of(t, tag, i) * t->ways;
    int64_t w = find_way(t, base, tag, meta_of(asid, s));
    if (w >= 0) {
      size_t slot = base + (size_t)w;
      unsigned p = (unsigned)(vpn & t->sector_mask);
      if (t->e[slot].valid >> p & 1) {
        *page = p;
        *shift = s;
        return (int64_t)slot;
      }
    }
  }
  return -1;
}

/* Finds the entry translating va with its page valid: slot index or -1. */
static inline int64_t find(const tlb *t, uint64_t va, uint32_t asid, unsigned *page, unsigned *shift) {
  int64_t slot = find_hinted(t, va, asid, page, shift);
  return slot >= 0 ? slot : find_scan(t, va, asid, page, shift);
}

/* Points the hint of slot's tag (a first-page-size key) at slot. */
static inline void note_hint(tlb *t, size_t slot) {
  t->hint[hint_of(t->key[slot].tag)] = (uint32_t)slot;
}

static void plru_touch(tlb *t, size_t slot) {
  uint64_t *bits = t->plru + (slot >> t->way_bits) * t->plru_words;
  uint32_t way = (uint32_t)(slot & (t->ways - 1));
  unsigned n = 1;
  for (unsigned d = t->way_bits; d-- > 0;) {
    unsigned dir = way >> d & 1;
    if (dir) bits[n >> 6] &= ~(1ull << (n & 63));
    else bits[n >> 6] |= 1ull << (n & 63);
    n = 2 * n + dir;
  }
}

static uint32_t plru_victim(const tlb *t, size_t base) {
  const uint64_t *bits = t->plru + (base >> t->way_bits) * t->plru_words;
  uint32_t way = 0;
  unsigned n = 1;
  for (unsigned d = 0; d < t->way_bits; d++) {
    unsigned dir = bits[n >> 6] >> (n & 63) & 1;
    way = way << 1 | dir;
    n = 2 * n + dir;
  }
  return way;
}

/* Replacement state for a use of slot (hit or fill). */
static inline void touch(tlb *t, size_t slot) {
  if (t->g.policy == TLB_LRU) {
    if (t->newest) list_touch(t, slot); /* the list is their order: no stamps */
    else t->e[slot].stamp = ++t->clock;
  }
  else if (t->g.policy == TLB_PLRU) plru_touch(t, slot);
}

static void fill_hit(const tlb *t, size_t slot, uint64_t va, unsigned page, unsigned shift,
                     tlb_hit *out) {
  const tlb_entry *e = &t->e[slot];
  uint64_t base = t->spa ? t->spa[slot * t->g.sector_pages + page] : e->pa;
  out->pa = base | (va & ((1ull << shift) - 1));
  out->page_shift = (uint8_t)shift;
  out->prot = e->prot;
}

/* tlb_lookup past its hinted path: the hint missed, or the array is one
 * whose hits do more than restamp (see plain_hits). */
__attribute__((noinline)) static bool lookup_slow(tlb *t, uint64_t va, uint32_t asid, tlb_hit *out) {
  unsigned page, shift;
  int64_t slot = find_hinted(t, va, asid, &page, &shift);
  if (slot < 0) {
    slot = find_scan(t, va, asid, &page, &shift);
    if (slot < 0) return false;
    if (shift == t->g.page_shift[0]) note_hint(t, (size_t)slot);
  }
  touch(t, (size_t)slot);
  if (out) fill_hit(t, (size_t)slot, va, page, shift, out);
  return true;
}

/* The hinted hit of an array with plain_hits is find_hinted, touch and
 * fill_hit written out with nothing else to keep: no stack frame, no call,
 * on the look-up most translations end with. Anything else is lookup_slow's. */
bool tlb_lookup(tlb *t, uint64_t va, uint32_t asid, tlb_hit *out) {
  unsigned s0 = t->g.page_shift[0];
  uint64_t tag0 = va >> s0; /* unsectored: the page number */
  uint32_t slot = t->hint[hint_of(tag0)];
  const tlb_key *k = &t->key[slot];
  tlb_entry *e = &t->e[slot];
  if (!t->plain_hits || !out || k->tag != tag0 || k->meta != meta_of(asid, s0) || !e->valid)
    return lookup_slow(t, va, asid, out);
  if (t->g.policy == TLB_LRU) e->stamp = ++t->clock;
  out->pa = e->pa | (va & ((1ull << s0) - 1));
  out->page_shift = (uint8_t)s0;
  out->prot = e->prot;
  return true;
}

bool tlb_probe(const tlb *t, uint64_t va, uint32_t asid, tlb_hit *out) {
  unsigned page, shift;
  int64_t slot = find(t, va, asid, &page, &shift);
  if (slot < 0) return false;
  if (out) fill_hit(t, (size_t)slot, va, page, shift, out);
  return true;
}

/* The way a new entry takes in the set at `base`. */
static uint32_t victim_way(tlb *t, size_t base) {
  uint32_t set = set_of_slot(t, base);
  if (t->in_use && t->in_use[set] == t->ways) return (uint32_t)(t->oldest[set] - base); /* the smallest stamp */
  for (uint32_t w = 0; w < t->ways; w++)
    if (t->key[base + w].tag == NO_TAG) return w;
  switch (t->g.policy) {
  case TLB_RANDOM: return (uint32_t)rng_below(&t->rng, t->ways);
  case TLB_PLRU: return plru_victim(t, base);
  case TLB_LRU:
  case TLB_FIFO: break;
  }
  uint32_t best = 0;
  uint64_t oldest = t->e[base].stamp;
  for (uint32_t w = 1; w < t->ways; w++) {
    uint64_t stamp = t->e[base + w].stamp;
    best = stamp < oldest ? w : best;
    oldest = stamp < oldest ? stamp : oldest;
  }
  return best;
}

/* Shared by both fills: page_pa gives each sector page's base, or NULL for
 * pages contiguous with pa. */
static void note_victim(const tlb *t, size_t slot, tlb_victim *v) {
  const tlb_key *k = &t->key[slot];
  v->evicted = k->tag != NO_TAG;
  if (!v->evicted) return;
  v->page_shift = (uint8_t)(k->meta & 0xff);
  v->asid = (uint32_t)(k->meta >> 8);
  v->va = (k->tag << t->sector_log2) << v->page_shift;
  v->pages = t->e[slot].valid;
}

static bool fill(tlb *t, uint64_t va, uint32_t asid, unsigned shift, uint64_t pa,
                 const uint64_t *page_pa, unsigned prot, uint64_t mask, tlb_victim *victim) {
  if (victim) victim->evicted = false;
  int size = size_index(t, shift);
  if (size < 0) return false;
  uint64_t vpn = va >> shift;
  uint64_t tag = vpn >> t->sector_log2;
  unsigned page = (unsigned)(vpn & t->sector_mask);
  uint64_t meta = meta_of(asid, shift);
  uint64_t page_mask = (1ull << shift) - 1;
  mask = (mask & t->all_pages) | 1ull << page;
  size_t base = (size_t)set_of(t, tag, (unsigned)size) * t->ways;
  int64_t w = find_way(t, base, tag, meta);
  size_t slot;
  if (w >= 0) {
    slot = base + (size_t)w;
    if (t->e[slot].prot != prot) t->e[slot].valid = 0; /* pages of one entry share prot */
  } else {
    slot = base + victim_way(t, base);
    if (victim) note_victim(t, slot, victim);
    set_key(t, slot, tag, meta);
    t->e[slot] = (tlb_entry){.stamp = ++t->clock};
  }
  tlb_entry *e = &t->e[slot];
  e->prot = (uint8_t)prot;
  if (t->spa) {
    uint64_t *spa = t->spa + slot * t->g.sector_pages;
    uint64_t first = (pa & ~page_mask) - ((uint64_t)page << shift);
    for (uint64_t m = mask; m; m &= m - 1) {
      unsigned i = (unsigned)__builtin_ctzll(m);
      spa[i] = (page_pa ? page_pa[i] : first + ((uint64_t)i << shift)) & ~page_mask;
    }
  } else {
    e->pa = pa & ~page_mask;
  }
  e->valid |= mask;
  touch(t, slot);
  if (shift == t->g.page_shift[0]) note_hint(t, slot);
  return true;
}

bool tlb_fill(tlb *t, uint64_t va, uint32_t asid, unsigned page_shift, uint64_t pa,
              unsigned prot, uint64_t valid_mask, tlb_victim *victim) {
  return fill(t, va, asid, page_shift, pa, NULL, prot, valid_mask, victim);
}

bool tlb_fill_sector(tlb *t, uint64_t va, uint32_t asid, unsigned page_shift,
                     const uint64_t page_pa[], unsigned prot, uint64_t valid_mask, tlb_victim *victim) {
  unsigned page = (unsigned)((va >> page_shift) & t->sector_mask);
  return fill(t, va, asid, page_shift, page_pa[page], page_pa, prot, valid_mask, victim);
}

static inline bool asid_matches(uint64_t meta, uint32_t asid) {
  return asid == TLB_ANY_ASID || (uint32_t)(meta >> 8) == asid;
}

static inline uint64_t bit_range(unsigned lo, unsigned hi) {
  return ((2ull << hi) - 1) & ~((1ull << lo) - 1);
}

/* Clears the bits of slot's pages within page numbers [first, last];
 * returns entries (or sector bits) dropped. */
static unsigned drop_pages(tlb *t, size_t slot, uint64_t first, uint64_t last) {
  tlb_entry *e = &t->e[slot];
  uint64_t lo_page = t->key[slot].tag << t->sector_log2;
  uint64_t hi_page = lo_page | t->sector_mask;
  uint64_t a = first > lo_page ? first : lo_page;
  uint64_t b = last < hi_page ? last : hi_page;
  uint64_t gone = e->valid & bit_range((unsigned)(a - lo_page), (unsigned)(b - lo_page));
  if (!gone) return 0;
  e->valid &= ~gone;
  if (!e->valid) set_key(t, slot, NO_TAG, 0);
  return t->spa ? (unsigned)__builtin_popcountll(gone) : 1;
}

static unsigned invalidate_way(tlb *t, size_t slot, uint64_t tag_lo, uint64_t tag_hi,
                               unsigned shift, uint32_t asid, uint64_t first, uint64_t last) {
  uint64_t k = t->key[slot].tag;
  if (k == NO_TAG || k < tag_lo || k > tag_hi) return 0;
  uint64_t meta = t->key[slot].meta;
  if ((meta & 0xff) != shift || !asid_matches(meta, asid)) return 0;
  return drop_pages(t, slot, first, last);
}

unsigned tlb_invalidate(tlb *t, uint64_t va, unsigned page_shift, uint32_t asid) {
  uint64_t span_mask = page_shift >= 64 ? UINT64_MAX : (1ull << page_shift) - 1;
  uint64_t lo = va & ~span_mask, hi = va | span_mask;
  unsigned dropped = 0;
  for (unsigned i = 0; i < t->g.npage_shifts; i++) {
    unsigned s = t->g.page_shift[i];
    uint64_t first = lo >> s, last = hi >> s;
    uint64_t tag_lo = first >> t->sector_log2, tag_hi = last >> t->sector_log2;
    if (tag_hi - tag_lo < t->sets) {
      /* Few tags: probe their sets rather than scan the array. */
      for (uint64_t tag = tag_lo;; tag++) {
        size_t base = (size_t)set_of(t, tag, i) * t->ways;
        for (uint32_t w = 0; w < t->ways; w++)
          dropped += invalidate_way(t, base + w, tag, tag, s, asid, first, last);
        if (tag == tag_hi) break;
      }
    } else {
      for (size_t slot = 0; slot < t->g.entries; slot++)
        dropped += invalidate_way(t, slot, tag_lo, tag_hi, s, asid, first, last);
    }
  }
  return dropped;
}

unsigned tlb_flush(tlb *t, uint32_t asid) {
  unsigned dropped = 0;
  for (size_t slot = 0; slot < t->g.entries; slot++)
    if (t->key[slot].tag != NO_TAG && asid_matches(t->key[slot].meta, asid)) {
      set_key(t, slot, NO_TAG, 0);
      t->e[slot].valid = 0;
      dropped++;
    }
  return dropped;
}

unsigned tlb_occupancy(const tlb *t) {
  unsigned n = 0;
  for (size_t slot = 0; slot < t->g.entries; slot++) n += t->key[slot].tag != NO_TAG;
  return n;
}
