/* ktrace_summary.c — a kernel's counts (tlbsim/ktrace.h, ktrace_counts):
 * instructions and bytes by class, and the distinct 128-byte lines and
 * 2 MiB pages its global and local accesses touch, each counted exactly in
 * a set of its own (open addressing, grown at half full).
 */
#include "ktrace_fmt.h"

#include <stdlib.h>
#include <string.h>

/* Keys are stored plus one: 0 marks an empty slot. */
typedef struct key_set {
  uint64_t *slot;
  size_t cap, n;  /* cap: a power of two */
  uint64_t last;  /* the key added last, plus one: most accesses repeat it */
} key_set;

struct ktrace_summary {
  ktrace_counts c;
  key_set lines, pages;
};

static size_t slot_of(uint64_t key, size_t cap) { return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1); }

static int set_grow(key_set *s) {
  size_t cap = s->cap ? 2 * s->cap : 1024;
  uint64_t *slot = calloc(cap, sizeof *slot);
  if (!slot) return -1;
  for (size_t i = 0; i < s->cap; i++) {
    uint64_t k = s->slot[i];
    if (!k) continue;
    size_t j = slot_of(k, cap);
    while (slot[j]) j = (j + 1) & (cap - 1);
    slot[j] = k;
  }
  free(s->slot);
  s->slot = slot;
  s->cap = cap;
  return 0;
}

static int set_add(key_set *s, uint64_t key) {
  uint64_t k = key + 1; /* keys are line or page numbers: below 2^57 */
  if (k == s->last) return 0;
  s->last = k;
  if (2 * (s->n + 1) > s->cap && set_grow(s)) return -1;
  size_t j = slot_of(k, s->cap);
  while (s->slot[j] && s->slot[j] != k) j = (j + 1) & (s->cap - 1);
  if (!s->slot[j]) s->slot[j] = k, s->n++;
  return 0;
}

static void set_clear(key_set *s) {
  if (s->slot) memset(s->slot, 0, s->cap * sizeof *s->slot);
  s->n = 0;
  s->last = 0;
}

ktrace_summary *ktrace_summary_new(void) { return calloc(1, sizeof(ktrace_summary)); }

/* The lines and pages [a, a + width) touches. */
static int touch(ktrace_summary *s, uint64_t a, unsigned width) {
  uint64_t last = a + (width - 1);
  for (uint64_t l = a / KTRACE_LINE_BYTES; l <= last / KTRACE_LINE_BYTES; l++)
    if (set_add(&s->lines, l)) return -1;
  for (uint64_t p = a / KTRACE_PAGE_BYTES; p <= last / KTRACE_PAGE_BYTES; p++)
    if (set_add(&s->pages, p)) return -1;
  return 0;
}

int ktrace_summary_add(ktrace_summary *s, const ktrace_tb *tb) {
  ktrace_counts *c = &s->c;
  c->thread_blocks++;
  c->warps += tb->nwarps;
  c->warp_instructions += tb->ninst;
  for (uint32_t i = 0; i < tb->ninst; i++) {
    unsigned cls = tb->cls[i], width = tb->ops[tb->op[i]].width;
    uint32_t at = tb->addr_at[i], n = tb->addr_at[i + 1] - at;
    c->insts[cls]++;
    c->bytes[cls] += (uint64_t)n * width;
    if (!ktrace_class_is_translated(cls)) continue;
    for (uint32_t k = 0; k < n; k++)
      if (touch(s, tb->addr[at + k], width)) return -1;
  }
  c->memory_instructions = c->warp_instructions - c->insts[KTRACE_NONE];
  return 0;
}

void ktrace_summary_get(const ktrace_summary *s, ktrace_counts *out) {
  *out = s->c;
  out->lines = s->lines.n;
  out->pages = s->pages.n;
}

void ktrace_summary_reset(ktrace_summary *s) {
  s->c = (ktrace_counts){0};
  set_clear(&s->lines);
  set_clear(&s->pages);
}

void ktrace_summary_free(ktrace_summary *s) {
  if (!s) return;
  free(s->lines.slot);
  free(s->pages.slot);
  free(s);
}
