/* uvm_pack.c — the CUDA runtime's packing of small managed allocations
 * into 2 MiB blocks (see tlbsim/uvm_pack.h). Blocks in a sorted array,
 * each block's allocations in a sorted array: a search is a binary search,
 * a placement a scan of the gaps, first block first. */
#include "tlbsim/uvm_pack.h"

#include <stdlib.h>
#include <string.h>

typedef struct piece {
  uint64_t offset, size; /* within its block; size as recorded (the gap scan rounds it up to a grain) */
} piece;

typedef struct block {
  uint64_t va;
  bool owned;
  piece *pieces; /* by offset, never overlapping */
  size_t n, cap;
} block;

struct uvm_pack {
  uint64_t block_size, grain;
  block *blocks; /* by va */
  size_t n, cap;
};

uvm_pack *uvm_pack_create(uint64_t block_size, uint64_t grain) {
  uvm_pack *p = calloc(1, sizeof *p);
  if (p) p->block_size = block_size, p->grain = grain;
  return p;
}

void uvm_pack_destroy(uvm_pack *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n; i++) free(p->blocks[i].pieces);
  free(p->blocks);
  free(p);
}

bool uvm_pack_takes(const uvm_pack *p, uint64_t size) { return size && size < p->block_size; }

static uint64_t granules(const uvm_pack *p, uint64_t bytes) { return (bytes + p->grain - 1) & ~(p->grain - 1); }

/* The first block at or after va. */
static size_t block_index(const uvm_pack *p, uint64_t va) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->blocks[mid].va < va) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The first of b's allocations at or after offset. */
static size_t piece_index(const block *b, uint64_t offset) {
  size_t lo = 0, hi = b->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->pieces[mid].offset < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The lowest offset of block b where size bytes fit, or block_size. */
static uint64_t room_in(const uvm_pack *p, const block *b, uint64_t size) {
  uint64_t at = 0, want = granules(p, size);
  for (size_t i = 0; i < b->n; i++) {
    if (b->pieces[i].offset >= at && b->pieces[i].offset - at >= want) return at;
    at = granules(p, b->pieces[i].offset + b->pieces[i].size);
  }
  return at <= p->block_size && p->block_size - at >= want ? at : p->block_size;
}

bool uvm_pack_find(const uvm_pack *p, uint64_t size, uint64_t *va) {
  for (size_t i = 0; i < p->n; i++) {
    uint64_t at = room_in(p, &p->blocks[i], size);
    if (at < p->block_size) {
      *va = p->blocks[i].va + at;
      return true;
    }
  }
  return false;
}

/* Room for one more element in an array of cap elements of `each` bytes. */
static int grow(void **arr, size_t n, size_t *cap, size_t each) {
  if (n < *cap) return 0;
  size_t more = *cap ? 2 * *cap : 8;
  void *a = realloc(*arr, more * each);
  if (!a) return -1;
  *arr = a;
  *cap = more;
  return 0;
}

/* The block starting at va: its index, made (empty) when absent. */
static int block_at(uvm_pack *p, uint64_t va, bool owned, size_t *at, bool *fresh) {
  size_t i = block_index(p, va);
  *fresh = i == p->n || p->blocks[i].va != va;
  if (*fresh) {
    if (grow((void **)&p->blocks, p->n, &p->cap, sizeof *p->blocks)) return -1;
    memmove(&p->blocks[i + 1], &p->blocks[i], (p->n - i) * sizeof *p->blocks);
    p->blocks[i] = (block){.va = va, .owned = owned};
    p->n++;
  }
  *at = i;
  return 0;
}

static void drop_block(uvm_pack *p, size_t i) {
  free(p->blocks[i].pieces);
  memmove(&p->blocks[i], &p->blocks[i + 1], (p->n - i - 1) * sizeof *p->blocks);
  p->n--;
}

int uvm_pack_add(uvm_pack *p, uint64_t va, uint64_t size, bool owned, bool *fresh, diag *d) {
  uint64_t base = va & ~(p->block_size - 1), offset = va - base;
  if (!uvm_pack_takes(p, size) || size > p->block_size - offset)
    return diag_set(d, NULL, 0, "managed alloc at va=%#llx+%#llx crosses the end of its %llu-byte block (the runtime "
                    "packs allocations only within one)", (unsigned long long)va, (unsigned long long)size,
                    (unsigned long long)p->block_size);
  size_t bi;
  if (block_at(p, base, owned, &bi, fresh)) return diag_set(d, NULL, 0, "out of memory");
  block *b = &p->blocks[bi];
  size_t i = piece_index(b, offset);
  bool after_prev = !i || b->pieces[i - 1].offset + b->pieces[i - 1].size <= offset;
  bool before_next = i == b->n || offset + size <= b->pieces[i].offset;
  if (!after_prev || !before_next || grow((void **)&b->pieces, b->n, &b->cap, sizeof *b->pieces)) {
    if (*fresh) drop_block(p, bi);
    return after_prev && before_next ? diag_set(d, NULL, 0, "out of memory")
                                     : diag_set(d, NULL, 0, "managed alloc at va=%#llx+%#llx overlaps a live one",
                                                (unsigned long long)va, (unsigned long long)size);
  }
  memmove(&b->pieces[i + 1], &b->pieces[i], (b->n - i) * sizeof *b->pieces);
  b->pieces[i] = (piece){offset, size};
  b->n++;
  return 0;
}

int uvm_pack_remove(uvm_pack *p, uint64_t va, bool *emptied, uvm_pack_block *out, diag *d) {
  uint64_t base = va & ~(p->block_size - 1), offset = va - base;
  size_t bi = block_index(p, base);
  block *b = bi < p->n && p->blocks[bi].va == base ? &p->blocks[bi] : NULL;
  size_t i = b ? piece_index(b, offset) : 0;
  if (!b || i == b->n || b->pieces[i].offset != offset)
    return diag_set(d, NULL, 0, "%#llx starts no packed managed allocation", (unsigned long long)va);
  memmove(&b->pieces[i], &b->pieces[i + 1], (b->n - i - 1) * sizeof *b->pieces);
  *emptied = --b->n == 0;
  if (*emptied) {
    *out = (uvm_pack_block){.va = b->va, .owned = b->owned};
    drop_block(p, bi);
  }
  return 0;
}
