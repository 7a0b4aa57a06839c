/* tlbsim/tlb.h — one set-associative translation array.
 *
 * tlb   entries/ways sets of tagged entries with a replacement policy. An
 *       array holds one or more page sizes; a lookup probes each size it holds
 *       (hardware does so in parallel). A named TLB level of the hierarchy
 *       (mmu.h) is one array, or one array per page size when split.
 *       Page-walk caches reuse this type: their "page" is the VA span one
 *       directory entry covers.
 *
 * Sector entries: with sector_pages = N > 1, one entry's tag covers N
 * contiguous virtual pages of one size and keeps a valid bit and a page base
 * per page (so pages need not be physically contiguous). A fill sets the bits
 * the caller passes (the walker knows which neighbours are mapped
 * compatibly); a lookup hits only if the page's bit is set.
 *
 * Set index: modulo takes the low bits of the tag; xor folds all tag bits in
 * chunks of log2(sets) (the hashed indexing measured on NVIDIA GPUs). With
 * bank_bits = b > 0 the low b tag bits (or, with bank_va_bit, the b tag
 * bits from that VA bit up, for every page size the array holds) pick a bank
 * directly and the rest are folded in chunks of log2(sets) - b to pick the
 * set within it (the H200's third level: VA bit 25 halves it for 2 MiB and
 * for 64 KiB pages, gpu/results/h200/chase_banks.csv, chase_64k.csv). The
 * tag is va >> (page_shift + log2 sector_pages); an entry also matches on
 * its page size and ASID.
 *
 * Replacement: a fill first reuses the entry already holding its tag (a
 * sector merge), else the lowest-numbered invalid way of the set, else the
 * policy's victim: LRU the least recently looked-up or filled, FIFO the
 * oldest allocation, random a uniform way (seeded, per array), tree-PLRU the
 * way the tree bits point to (each access points the bits on its path away
 * from it; bit 0 = left).
 */
#ifndef TLBSIM_TLB_H
#define TLBSIM_TLB_H

#include "tlbsim/base.h"

#define TLB_MAX_PAGE_SIZES 4
#define TLB_MAX_SECTOR 64 /* valid bits per entry fit one uint64_t */
#define TLB_MAX_ENTRIES (1u << 24)

typedef enum { TLB_LRU, TLB_FIFO, TLB_RANDOM, TLB_PLRU } tlb_policy;
typedef enum { TLB_INDEX_MODULO, TLB_INDEX_XOR } tlb_index;

typedef struct tlb_geometry {
  uint32_t entries;
  uint32_t ways;         /* == entries: fully associative */
  tlb_policy policy;
  tlb_index index;
  uint8_t bank_bits;     /* xor index: tag bits that select a bank unhashed; <= log2(sets) */
  uint8_t bank_va_bit;   /* the VA bit the bank bits start at, whatever the page size; 0: the tag's low bits */
  uint32_t sector_pages; /* 1: one page per entry; else a power of two <= TLB_MAX_SECTOR */
  uint8_t npage_shifts;  /* sizes held; lookups probe them in this order */
  uint8_t page_shift[TLB_MAX_PAGE_SIZES]; /* distinct, >= 1 */
  uint64_t seed;         /* for TLB_RANDOM */
} tlb_geometry;

/* Parses "lru", "fifo", "random", "plru" (also "tree-plru"). */
int tlb_policy_parse(const char *s, tlb_policy *out);
const char *tlb_policy_name(tlb_policy p);
int tlb_index_parse(const char *s, tlb_index *out); /* "modulo" | "xor" */
/* Checks a geometry; fills d (no location) with what is impossible. */
int tlb_geometry_check(const tlb_geometry *g, diag *d);
/* The set a page of 2^page_shift at va falls in, for a checked geometry:
 * what `explain` shows and what lookups use. */
uint64_t tlb_set_index(const tlb_geometry *g, uint64_t va, unsigned page_shift);

/* A translation as a TLB returns it. */
typedef struct tlb_hit {
  uint64_t pa;        /* physical address for the looked-up va */
  uint8_t page_shift;
  uint8_t prot;
} tlb_hit;

typedef struct tlb tlb;

tlb *tlb_create(const tlb_geometry *g, diag *d);
void tlb_destroy(tlb *t);
const tlb_geometry *tlb_get_geometry(const tlb *t);
bool tlb_holds_size(const tlb *t, unsigned page_shift);

/* Looks va up for address-space tag asid; on a hit updates replacement
 * state and fills *out (may be NULL). */
bool tlb_lookup(tlb *t, uint64_t va, uint32_t asid, tlb_hit *out);
/* The same look-up without touching replacement state (explain, tests). */
bool tlb_probe(const tlb *t, uint64_t va, uint32_t asid, tlb_hit *out);
/* What a fill replaced: the per-access log and `explain` show it. */
typedef struct tlb_victim {
  bool evicted;       /* a valid entry of another tag was replaced */
  uint64_t va;        /* the first page the entry covered */
  uint8_t page_shift;
  uint32_t asid;
  uint64_t pages;     /* its valid bit per sector page (1 unsectored) */
} tlb_victim;

/* Installs the translation of the page at va (page base pa). For sector
 * entries, valid_mask has bit i set for each page i of the sector that is
 * valid (the page of va is always included); ignored otherwise. Pages in
 * a sector share the entry's prot; their pa is base + i pages, base being
 * pa minus the page's own offset in the sector. A fill into an entry
 * already holding the sector ORs its bits in; a different prot replaces
 * the old bits instead. Returns false (nothing filled) when the array does
 * not hold page_shift. victim (may be NULL) says what was evicted. */
bool tlb_fill(tlb *t, uint64_t va, uint32_t asid, unsigned page_shift, uint64_t pa,
              unsigned prot, uint64_t valid_mask, tlb_victim *victim);
/* tlb_fill for sector pages that need not be physically contiguous:
 * page_pa[i] is the page base of sector page i, read for each bit set. */
bool tlb_fill_sector(tlb *t, uint64_t va, uint32_t asid, unsigned page_shift,
                     const uint64_t page_pa[], unsigned prot, uint64_t valid_mask, tlb_victim *victim);
/* Drops every entry (or sector page) of asid (any asid when asid ==
 * TLB_ANY_ASID) whose page overlaps the page of 2^page_shift at va, of any
 * size the array holds: a walk cache drops the directory entry covering it.
 * Returns entries (or sector bits) dropped. */
#define TLB_ANY_ASID UINT32_MAX
unsigned tlb_invalidate(tlb *t, uint64_t va, unsigned page_shift, uint32_t asid);
/* Drops every entry (of asid, or all with TLB_ANY_ASID); returns how many. */
unsigned tlb_flush(tlb *t, uint32_t asid);
/* Valid entries held now. */
unsigned tlb_occupancy(const tlb *t);

#endif
