/* mrc_opt.c — Belady's OPT for every fully associative size in one pass
 * over the references, once the whole trace has been read (see mrc_impl.h).
 *
 * OPT evicts the page whose next use is furthest away. It is a stack
 * algorithm (Mattson et al. 1970): the pages an OPT array of C entries
 * holds are the top C of one priority stack, so one pass gives every C.
 * The stack is updated per reference to x found at depth d (or not held):
 * x goes on top; the page pushed off the top competes with the page at
 * each depth below, down to d: the one used sooner stays, the other is
 * carried down (it is what the array of that size evicts). Cut at
 * max_entries, a page carried past the bottom is dropped: sizes up to the
 * cut only ever look at the stack above them, so they stay exact.
 *
 * Next uses need the future, hence the log of references and a backward
 * pass. The cost is the depth of each reference; references at the top
 * (the same page again) cost one comparison.
 */
#include "mrc_impl.h"

#include <stdlib.h>

#define NO_POS UINT32_MAX
#define NEVER UINT32_MAX /* next use of a page that is not used again */
#define MAX_REFS (UINT32_MAX - 1u)

int opt_init(mrc_opt *o) {
  *o = (mrc_opt){.slot_mask = 1023};
  o->key = malloc((o->slot_mask + 1) * sizeof *o->key);
  o->id = malloc((o->slot_mask + 1) * sizeof *o->id);
  if (!o->key || !o->id) return -1;
  for (size_t i = 0; i <= o->slot_mask; i++) o->key[i] = MRC_NO_PAGE;
  return 0;
}

void opt_free(mrc_opt *o) {
  free(o->key);
  free(o->id);
  free(o->ref);
  free(o->hist);
  *o = (mrc_opt){0};
}

static inline size_t slot_of(uint64_t page, size_t mask) {
  return (size_t)((page * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

/* Doubles the page-to-id table. */
static int grow_ids(mrc_opt *o) {
  size_t mask = o->slot_mask * 2 + 1;
  uint64_t *key = malloc((mask + 1) * sizeof *key);
  uint32_t *id = malloc((mask + 1) * sizeof *id);
  if (!key || !id) {
    free(key);
    free(id);
    return -1;
  }
  for (size_t i = 0; i <= mask; i++) key[i] = MRC_NO_PAGE;
  for (size_t i = 0; i <= o->slot_mask; i++) {
    if (o->key[i] == MRC_NO_PAGE) continue;
    size_t s = slot_of(o->key[i], mask);
    while (key[s] != MRC_NO_PAGE) s = (s + 1) & mask;
    key[s] = o->key[i];
    id[s] = o->id[i];
  }
  free(o->key);
  free(o->id);
  o->key = key;
  o->id = id;
  o->slot_mask = mask;
  return 0;
}

/* The dense id of page, given it a new one when first seen; NO_POS when
 * host memory runs out. */
static uint32_t page_id(mrc_opt *o, uint64_t page) {
  size_t s = slot_of(page, o->slot_mask);
  while (o->key[s] != MRC_NO_PAGE) {
    if (o->key[s] == page) return o->id[s];
    s = (s + 1) & o->slot_mask;
  }
  if (2 * (o->npages + 1) > o->slot_mask + 1) {
    if (grow_ids(o)) return NO_POS;
    return page_id(o, page);
  }
  o->key[s] = page;
  o->id[s] = o->npages;
  return o->npages++;
}

int opt_reference(mrc_opt *o, uint64_t page) {
  if (o->nref == MAX_REFS) return -2;
  if (o->nref == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 4096;
    if (cap > MAX_REFS) cap = MAX_REFS;
    uint32_t *ref = realloc(o->ref, cap * sizeof *ref);
    if (!ref) return -1;
    o->ref = ref;
    o->cap = cap;
  }
  uint32_t id = page_id(o, page);
  if (id == NO_POS) return -1;
  o->ref[o->nref++] = id;
  return 0;
}

/* next[t]: the time of the next reference to ref[t]'s page, or NEVER. */
static uint32_t *next_uses(const mrc_opt *o) {
  uint32_t *next = malloc((o->nref ? o->nref : 1) * sizeof *next);
  uint32_t *last = malloc((o->npages ? o->npages : 1) * sizeof *last);
  if (next && last) {
    for (uint32_t p = 0; p < o->npages; p++) last[p] = NEVER;
    for (size_t t = o->nref; t-- > 0;) {
      next[t] = last[o->ref[t]];
      last[o->ref[t]] = (uint32_t)t;
    }
  }
  free(last);
  if (!last) {
    free(next);
    return NULL;
  }
  return next;
}

/* The priority stack: pages by id, their depth, when each is next used. */
typedef struct opt_stack {
  uint32_t *page, *pos, *next_use;
  uint32_t len, cap;
} opt_stack;

/* x (next used at nx) goes on top; the pages above depth d (or the whole
 * stack, when x is not in it) are re-sorted by the carry rule. */
static void push_top(opt_stack *s, uint32_t x, uint32_t nx, uint32_t d) {
  uint32_t carry = s->page[0], end = d == NO_POS ? s->len : d;
  s->page[0] = x;
  s->pos[x] = 0;
  s->next_use[x] = nx;
  for (uint32_t i = 1; i < end; i++) {
    uint32_t z = s->page[i];
    if (s->next_use[z] < s->next_use[carry]) continue; /* z is used sooner: it stays */
    s->page[i] = carry;
    s->pos[carry] = i;
    carry = z;
  }
  if (d != NO_POS) {
    s->page[d] = carry;
    s->pos[carry] = d;
  } else if (s->len < s->cap) {
    s->page[s->len] = carry;
    s->pos[carry] = s->len++;
  } else {
    s->pos[carry] = NO_POS; /* past the largest size: every array evicted it */
  }
}

static void run_stack(mrc_opt *o, opt_stack *s, const uint32_t *next) {
  for (size_t t = 0; t < o->nref; t++) {
    uint32_t x = o->ref[t], d = s->pos[x];
    o->hist[d == NO_POS ? s->cap : d]++;
    if (d == 0) {
      s->next_use[x] = next[t];
    } else if (s->len == 0) {
      s->page[0] = x, s->pos[x] = 0, s->next_use[x] = next[t], s->len = 1;
    } else {
      push_top(s, x, next[t], d);
    }
  }
}

int opt_finish(mrc_opt *o, uint32_t max_entries) {
  o->hist = calloc((size_t)max_entries + 1, sizeof *o->hist);
  uint32_t *next = next_uses(o);
  size_t np = o->npages ? o->npages : 1;
  opt_stack s = {.page = malloc((size_t)max_entries * sizeof *s.page), .pos = malloc(np * sizeof *s.pos),
                 .next_use = malloc(np * sizeof *s.next_use), .cap = max_entries};
  int rc = -1;
  if (o->hist && next && s.page && s.pos && s.next_use) {
    for (uint32_t p = 0; p < o->npages; p++) s.pos[p] = NO_POS;
    run_stack(o, &s, next);
    rc = 0;
  }
  free(next);
  free(s.page);
  free(s.pos);
  free(s.next_use);
  free(o->ref);
  o->ref = NULL;
  o->nref = o->cap = 0;
  return rc;
}

uint64_t opt_misses(const mrc_opt *o, uint32_t entries, uint32_t max_entries) {
  uint64_t misses = 0;
  for (uint32_t d = entries; d <= max_entries; d++) misses += o->hist[d];
  return misses;
}
