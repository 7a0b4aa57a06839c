/* Physical frames as a binary buddy allocator: one free bitmap per order,
 * a per-order search hint so the lowest free block is found without
 * rescanning the whole map. */
#include "tlbsim/phys.h"

#include <stdlib.h>

#define PHYS_MAX_ORDERS 48

typedef struct order_map {
  uint64_t *bits; /* bit i set: block i of this order is free */
  uint64_t nblocks;
  uint64_t nfree; /* set bits: lets an empty order answer without a scan */
  uint64_t hint;  /* no free block below word `hint` */
} order_map;

struct phys {
  unsigned min_shift;
  unsigned norders; /* orders 0..norders-1; order k = 2^(min_shift+k) bytes */
  uint64_t capacity, used, used_peak;
  order_map order[PHYS_MAX_ORDERS];
};

static bool bit_get(const order_map *m, uint64_t i) { return (m->bits[i >> 6] >> (i & 63)) & 1; }
static void bit_set(order_map *m, uint64_t i) {
  m->bits[i >> 6] |= 1ull << (i & 63);
  m->nfree++;
  if ((i >> 6) < m->hint) m->hint = i >> 6;
}
static void bit_clear(order_map *m, uint64_t i) {
  m->bits[i >> 6] &= ~(1ull << (i & 63));
  m->nfree--;
}

/* Lowest free block of an order, or UINT64_MAX. */
static uint64_t lowest_free(order_map *m) {
  if (!m->nfree) return UINT64_MAX;
  uint64_t words = (m->nblocks + 63) >> 6;
  for (uint64_t w = m->hint; w < words; w++)
    if (m->bits[w]) {
      m->hint = w;
      return (w << 6) + (uint64_t)__builtin_ctzll(m->bits[w]);
    }
  m->hint = words;
  return UINT64_MAX;
}

phys *phys_create(uint64_t capacity_bytes, unsigned min_shift) {
  uint64_t frames = capacity_bytes >> min_shift;
  if (min_shift >= 63 || frames == 0) return NULL;
  phys *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->min_shift = min_shift;
  p->capacity = frames << min_shift;
  p->norders = log2_u64(frames) + 1;
  if (p->norders > PHYS_MAX_ORDERS) p->norders = PHYS_MAX_ORDERS;
  for (unsigned k = 0; k < p->norders; k++) {
    order_map *m = &p->order[k];
    m->nblocks = frames >> k;
    m->bits = calloc((m->nblocks + 63) >> 6, sizeof *m->bits);
    if (!m->bits) {
      phys_destroy(p);
      return NULL;
    }
  }
  /* Cover the capacity with the largest aligned blocks, low to high. */
  uint64_t frame = 0;
  for (int k = (int)p->norders - 1; k >= 0; k--)
    while (frame + (1ull << k) <= frames && (frame & ((1ull << k) - 1)) == 0) {
      bit_set(&p->order[k], frame >> k);
      frame += 1ull << k;
    }
  return p;
}

void phys_destroy(phys *p) {
  if (!p) return;
  for (unsigned k = 0; k < p->norders; k++) free(p->order[k].bits);
  free(p);
}

/* Takes a free block of order k, splitting a larger one when needed. */
static uint64_t take_block(phys *p, unsigned k) {
  if (k >= p->norders) return UINT64_MAX;
  uint64_t b = lowest_free(&p->order[k]);
  if (b != UINT64_MAX) {
    bit_clear(&p->order[k], b);
    return b;
  }
  uint64_t parent = take_block(p, k + 1);
  if (parent == UINT64_MAX) return UINT64_MAX;
  bit_set(&p->order[k], parent * 2 + 1); /* the upper half stays free */
  return parent * 2;
}

int phys_alloc(phys *p, unsigned page_shift, uint64_t *pa) {
  if (page_shift < p->min_shift) return -1;
  unsigned k = page_shift - p->min_shift;
  uint64_t b = take_block(p, k);
  if (b == UINT64_MAX) return -1;
  *pa = b << page_shift;
  p->used += 1ull << page_shift;
  if (p->used > p->used_peak) p->used_peak = p->used;
  return 0;
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
