/* Physical frames as a binary buddy allocator: one free bitmap per order,
 * per-order search hints so the lowest (or highest) free block is found
 * without rescanning the whole map.
 *
 * Bitmaps are allocated in chunks on first use, so host memory follows the
 * frames a replay touches, not the capacity configured (256 TiB of 4 KiB
 * frames would need 16 GiB of flat bitmaps). Only a split can need a new
 * chunk: a block and its buddy share a bitmap word, and every block handed
 * out came from a word already present, so a free never allocates. */
#include "tlbsim/phys.h"

#include <stdlib.h>

#define PHYS_MAX_ORDERS 48
#define CHUNK_WORDS 4096 /* 32 KiB of bitmap: 2^18 blocks */
#define CHUNK_SHIFT 12

typedef struct order_map {
  uint64_t **chunk; /* [nchunks]; NULL: no block of the chunk was ever free */
  uint64_t nchunks;
  uint64_t nblocks;
  uint64_t nfree; /* set bits: lets an empty order answer without a scan */
  uint64_t hint;  /* no free block below word `hint` */
  uint64_t hint_hi; /* ... nor above word `hint_hi` */
} order_map;

struct phys {
  phys_order order_pref;
  unsigned min_shift;
  unsigned norders; /* orders 0..norders-1; order k = 2^(min_shift+k) bytes */
  uint64_t capacity, used, used_peak;
  order_map order[PHYS_MAX_ORDERS];
};

static uint64_t *word_of(const order_map *m, uint64_t i) {
  uint64_t *c = m->chunk[i >> 6 >> CHUNK_SHIFT];
  return c ? &c[(i >> 6) & (CHUNK_WORDS - 1)] : NULL;
}

/* The chunk holding block i, allocated if need be; -1: no host memory. */
static int ensure_chunk(order_map *m, uint64_t i) {
  uint64_t **c = &m->chunk[i >> 6 >> CHUNK_SHIFT];
  if (!*c) *c = calloc(CHUNK_WORDS, sizeof **c);
  return *c ? 0 : -1;
}

static bool bit_get(const order_map *m, uint64_t i) {
  const uint64_t *w = word_of(m, i);
  return w && (*w >> (i & 63)) & 1;
}
/* Block i's chunk must exist (ensure_chunk, or a block of its word was free). */
static void bit_set(order_map *m, uint64_t i) {
  *word_of(m, i) |= 1ull << (i & 63);
  m->nfree++;
  if ((i >> 6) < m->hint) m->hint = i >> 6;
  if ((i >> 6) > m->hint_hi) m->hint_hi = i >> 6;
}
static void bit_clear(order_map *m, uint64_t i) {
  *word_of(m, i) &= ~(1ull << (i & 63));
  m->nfree--;
}

/* Lowest free block of an order, or UINT64_MAX. */
static uint64_t lowest_free(order_map *m) {
  if (!m->nfree) return UINT64_MAX;
  uint64_t words = (m->nblocks + 63) >> 6;
  for (uint64_t w = m->hint; w < words; w++) {
    const uint64_t *c = m->chunk[w >> CHUNK_SHIFT];
    if (!c) { /* a whole chunk with nothing free: skip it */
      w |= CHUNK_WORDS - 1;
      continue;
    }
    uint64_t bits = c[w & (CHUNK_WORDS - 1)];
    if (bits) {
      m->hint = w;
      return (w << 6) + (uint64_t)__builtin_ctzll(bits);
    }
  }
  m->hint = words;
  return UINT64_MAX;
}

/* Highest free block of an order, or UINT64_MAX. */
static uint64_t highest_free(order_map *m) {
  if (!m->nfree) return UINT64_MAX;
  for (uint64_t w = m->hint_hi + 1; w-- > 0;) {
    const uint64_t *c = m->chunk[w >> CHUNK_SHIFT];
    if (!c) { /* a whole chunk with nothing free: skip to the one below */
      w &= ~(uint64_t)(CHUNK_WORDS - 1);
      continue;
    }
    uint64_t bits = c[w & (CHUNK_WORDS - 1)];
    if (bits) {
      m->hint_hi = w;
      return (w << 6) + 63 - (uint64_t)__builtin_clzll(bits);
    }
  }
  m->hint_hi = 0;
  return UINT64_MAX;
}

const char *const phys_order_names[] = {"lowest-first", "highest-first", NULL};

phys *phys_create(uint64_t capacity_bytes, unsigned min_shift, phys_order order) {
  if (min_shift >= 63) return NULL;
  uint64_t frames = capacity_bytes >> min_shift;
  if (frames == 0) return NULL;
  phys *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->order_pref = order;
  p->min_shift = min_shift;
  p->capacity = frames << min_shift;
  p->norders = log2_u64(frames) + 1;
  if (p->norders > PHYS_MAX_ORDERS) p->norders = PHYS_MAX_ORDERS;
  for (unsigned k = 0; k < p->norders; k++) {
    order_map *m = &p->order[k];
    m->nblocks = frames >> k;
    m->nchunks = (((m->nblocks + 63) >> 6) + CHUNK_WORDS - 1) >> CHUNK_SHIFT;
    if (!(m->chunk = calloc(m->nchunks, sizeof *m->chunk))) goto fail;
  }
  /* Cover the capacity with the largest aligned blocks, low to high. */
  uint64_t frame = 0;
  for (int k = (int)p->norders - 1; k >= 0; k--)
    while (frame + (1ull << k) <= frames && (frame & ((1ull << k) - 1)) == 0) {
      if (ensure_chunk(&p->order[k], frame >> k)) goto fail;
      bit_set(&p->order[k], frame >> k);
      frame += 1ull << k;
    }
  return p;
fail:
  phys_destroy(p);
  return NULL;
}

void phys_destroy(phys *p) {
  if (!p) return;
  for (unsigned k = 0; k < p->norders; k++) {
    order_map *m = &p->order[k];
    for (uint64_t c = 0; m->chunk && c < m->nchunks; c++) free(m->chunk[c]);
    free(m->chunk);
  }
  free(p);
}

/* Takes a free block of order k into *b, splitting a larger one when
 * needed: the lowest (highest) one, its upper (lower) half staying free.
 * 0, -1 (none free) or PHYS_NO_HOST_MEMORY (nothing taken). */
static int take_block(phys *p, unsigned k, uint64_t *b) {
  if (k >= p->norders) return -1;
  bool high = p->order_pref == PHYS_HIGHEST_FIRST;
  *b = high ? highest_free(&p->order[k]) : lowest_free(&p->order[k]);
  if (*b != UINT64_MAX) {
    bit_clear(&p->order[k], *b);
    return 0;
  }
  uint64_t parent;
  int rc = take_block(p, k + 1, &parent);
  if (rc) return rc;
  if (ensure_chunk(&p->order[k], parent * 2)) { /* no host memory for the halves' bitmap */
    bit_set(&p->order[k + 1], parent);
    return PHYS_NO_HOST_MEMORY;
  }
  bit_set(&p->order[k], parent * 2 + !high);
  *b = parent * 2 + high;
  return 0;
}

int phys_alloc(phys *p, unsigned page_shift, uint64_t *pa) {
  if (page_shift < p->min_shift) return -1;
  unsigned k = page_shift - p->min_shift;
  uint64_t b;
  int rc = take_block(p, k, &b);
  if (rc) return rc;
  *pa = b << page_shift;
  p->used += 1ull << page_shift;
  if (p->used > p->used_peak) p->used_peak = p->used;
  return 0;
}

/* The order (>= k) of the free block that holds block b of order k, or -1. */
static int free_holder(const phys *p, unsigned k, uint64_t b) {
  for (unsigned j = k; j < p->norders; j++, b >>= 1)
    if (b < p->order[j].nblocks && bit_get(&p->order[j], b)) return (int)j;
  return -1;
}

int phys_alloc_at(phys *p, uint64_t pa, unsigned page_shift) {
  if (page_shift < p->min_shift || page_shift >= 64 || pa & ((1ull << page_shift) - 1)) return PHYS_AT_MISALIGNED;
  if (pa >= p->capacity || p->capacity - pa < 1ull << page_shift) return PHYS_AT_BEYOND;
  unsigned k = page_shift - p->min_shift;
  uint64_t b = pa >> page_shift;
  int holder = free_holder(p, k, b);
  if (holder < 0) return PHYS_AT_IN_USE;
  /* Split the holder down to order k, each time freeing the half without
   * b; the bitmaps those halves need come first, so nothing is half done. */
  for (unsigned j = k; j < (unsigned)holder; j++)
    if (ensure_chunk(&p->order[j], (b >> (j - k)) ^ 1)) return PHYS_AT_NO_HOST_MEMORY;
  bit_clear(&p->order[holder], b >> (holder - (int)k));
  for (unsigned j = k; j < (unsigned)holder; j++) bit_set(&p->order[j], (b >> (j - k)) ^ 1);
  p->used += 1ull << page_shift;
  if (p->used > p->used_peak) p->used_peak = p->used;
  return PHYS_AT_OK;
}

void phys_free(phys *p, uint64_t pa, unsigned page_shift) {
  unsigned k = page_shift - p->min_shift;
  uint64_t b = pa >> page_shift;
  p->used -= 1ull << page_shift;
  /* Merge with the buddy while it is free too. */
  while (k + 1 < p->norders && (b ^ 1) < p->order[k].nblocks && bit_get(&p->order[k], b ^ 1)) {
    bit_clear(&p->order[k], b ^ 1);
    b >>= 1;
    k++;
  }
  bit_set(&p->order[k], b);
}

uint64_t phys_capacity(const phys *p) { return p->capacity; }
uint64_t phys_used(const phys *p) { return p->used; }
uint64_t phys_used_peak(const phys *p) { return p->used_peak; }
