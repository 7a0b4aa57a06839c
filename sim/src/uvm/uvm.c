/* uvm.c — managed ranges, their VA blocks and what faults, host touches,
 * prefetches and advice do to them (see tlbsim/uvm.h). */
#include "tlbsim/uvm.h"

#include <stdlib.h>
#include <string.h>

#define NO_FRAME UINT64_MAX

/* Advice kept per big page, one bitmap each. */
enum { ADV_READ_MOSTLY, ADV_PREF_GPU, ADV_PREF_HOST, ADV_BY_GPU, ADV_BY_HOST, ADV_KINDS };

/* A page's thrashing history (kept once a block's page went back and forth). */
typedef struct thrash {
  uint8_t count[UVM_MAX_BIG_PAGES];
  double last_ns[UVM_MAX_BIG_PAGES];
  double pinned_until[UVM_MAX_BIG_PAGES];
} thrash;

typedef struct block {
  uint64_t gpu, host;   /* resident there (both: read-duplicated) */
  uint64_t mapped;      /* 64 KiB GPU pages mapped now (none while big2m) */
  uint64_t remote;      /* of those, onto host memory */
  uint64_t readonly;    /* of those, read-only (read-duplicated copies) */
  uint64_t adv[ADV_KINDS];
  uint64_t frame;       /* its GPU chunk, or NO_FRAME */
  bool big2m;           /* mapped as one page of the block's size */
  uint32_t batch;       /* the last batch that serviced it */
  struct block *older, *newer; /* eviction order of blocks holding a frame: least recently filled first */
  thrash *th;
} block;

typedef struct range {
  uint64_t va, size;
  uint64_t nblocks;
  unsigned last_pages; /* big pages of the last block */
  block *b;
} range;

struct uvm_space {
  uvm_config cfg;
  uvm_ops ops;
  unsigned block_shift, big_shift, per_block;
  range *r; /* by va */
  size_t nr, cap;
  block *oldest, *newest; /* the eviction order */
  uint32_t batch;         /* the open batch's number (0: none open) */
  uint32_t batch_faults, batches;
  uvm_counts total;
  double clock_ns;        /* the cost of everything so far */
};

void uvm_counts_add(uvm_counts *a, const uvm_counts *b) {
  a->faults += b->faults;
  a->batches += b->batches;
  a->block_services += b->block_services;
  a->populated_bytes += b->populated_bytes;
  a->to_gpu_bytes += b->to_gpu_bytes;
  a->prefetched_bytes += b->prefetched_bytes;
  a->to_host_bytes += b->to_host_bytes;
  a->evicted_bytes += b->evicted_bytes;
  a->host_faults += b->host_faults;
  a->remote_maps += b->remote_maps;
  a->thrashing_pins += b->thrashing_pins;
  a->fault_ns += b->fault_ns;
  a->prefetch_ns += b->prefetch_ns;
}

/* ns to move `bytes` at `gbps` (0: not modelled, free). */
static double at_rate(uint64_t bytes, double gbps) { return gbps > 0 ? (double)bytes / gbps : 0; }

uvm_space *uvm_create(const uvm_config *c, const uvm_ops *ops) {
  uvm_space *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->cfg = *c;
  s->ops = *ops;
  s->block_shift = log2_u64(c->va_block);
  s->big_shift = log2_u64(c->big_page);
  s->per_block = (unsigned)(c->va_block / c->big_page);
  return s;
}

static void free_range(uvm_space *s, range *r) {
  for (uint64_t i = 0; i < r->nblocks; i++) {
    if (r->b[i].frame != NO_FRAME) s->ops.frame_free(s->ops.ctx, r->b[i].frame, s->block_shift);
    free(r->b[i].th);
  }
  free(r->b);
}

void uvm_destroy(uvm_space *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nr; i++) free_range(s, &s->r[i]);
  free(s->r);
  free(s);
}

const uvm_config *uvm_get_config(const uvm_space *s) { return &s->cfg; }
const uvm_counts *uvm_get_counts(const uvm_space *s) { return &s->total; }

/* --- ranges ----------------------------------------------------------------- */

/* The range holding va, or NULL. */
static range *find(const uvm_space *s, uint64_t va) {
  size_t lo = 0, hi = s->nr;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (va < s->r[mid].va) hi = mid;
    else if (va - s->r[mid].va >= s->r[mid].size) lo = mid + 1;
    else return &s->r[mid];
  }
  return NULL;
}

bool uvm_contains(const uvm_space *s, uint64_t va) { return find(s, va) != NULL; }

int uvm_check_range(const uvm_space *s, uint64_t va, uint64_t size, diag *d) {
  const range *r = find(s, va);
  if (!r) return diag_set(d, NULL, 0, "%#llx is not managed memory (no live kind=managed allocation holds it)",
                          (unsigned long long)va);
  if (size && va + (size - 1) - r->va >= r->size)
    return diag_set(d, NULL, 0, "%#llx+%#llx runs past the end of its managed allocation (%#llx+%#llx)",
                    (unsigned long long)va, (unsigned long long)size, (unsigned long long)r->va,
                    (unsigned long long)r->size);
  return 0;
}

int uvm_range_add(uvm_space *s, uint64_t va, uint64_t size, diag *d) {
  if (!size || va % s->cfg.va_block || va + (size - 1) < va)
    return diag_set(d, NULL, 0, "managed range %#llx+%#llx is empty, wraps or is not VA-block aligned",
                    (unsigned long long)va, (unsigned long long)size);
  size_t at = 0;
  while (at < s->nr && s->r[at].va < va) at++;
  if ((at < s->nr && va + (size - 1) >= s->r[at].va) || (at && s->r[at - 1].va + s->r[at - 1].size > va))
    return diag_set(d, NULL, 0, "managed range %#llx+%#llx overlaps a live one", (unsigned long long)va,
                    (unsigned long long)size);
  if (s->nr == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    range *grown = realloc(s->r, cap * sizeof *grown);
    if (!grown) return diag_set(d, NULL, 0, "out of memory");
    s->r = grown;
    s->cap = cap;
  }
  uint64_t pages = (size + s->cfg.big_page - 1) >> s->big_shift;
  range r = {.va = va, .size = size, .nblocks = (pages + s->per_block - 1) / s->per_block};
  r.last_pages = (unsigned)(pages - (r.nblocks - 1) * s->per_block);
  if (!(r.b = calloc(r.nblocks, sizeof *r.b))) return diag_set(d, NULL, 0, "out of memory");
  for (uint64_t i = 0; i < r.nblocks; i++) r.b[i].frame = NO_FRAME;
  memmove(&s->r[at + 1], &s->r[at], (s->nr - at) * sizeof *s->r);
  s->r[at] = r;
  s->nr++;
  return 0;
}

/* --- one block ---------------------------------------------------------------- */

static unsigned block_pages(const range *r, uint64_t i, unsigned per_block) {
  return i + 1 == r->nblocks ? r->last_pages : per_block;
}

static uint64_t all_pages(unsigned n) { return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1; }

static uint64_t block_va(const uvm_space *s, const range *r, const block *b) {
  return r->va + ((uint64_t)(b - r->b) << s->block_shift);
}

/* Whether the block can be one page of its size: whole, wholly on the GPU
 * in its own chunk, nothing of it mapped read-only. */
static bool wants_2m(const uvm_space *s, const range *r, const block *b) {
  uint64_t i = (uint64_t)(b - r->b);
  return block_pages(r, i, s->per_block) == s->per_block && b->gpu == all_pages(s->per_block) && !b->readonly &&
         b->frame != NO_FRAME;
}

static void unlink_lru(uvm_space *s, block *b) {
  if (b->older) b->older->newer = b->newer;
  else if (s->oldest == b) s->oldest = b->newer;
  if (b->newer) b->newer->older = b->older;
  else if (s->newest == b) s->newest = b->older;
  b->older = b->newer = NULL;
}

/* The block was just filled: the newest in the eviction order. */
static void touch_lru(uvm_space *s, block *b) {
  unlink_lru(s, b);
  b->older = s->newest;
  if (s->newest) s->newest->newer = b;
  else s->oldest = b;
  s->newest = b;
}

/* Brings the GPU's mappings of block b to what its state wants: one page
 * of the block's size, or a 64 KiB page per big page resident on the GPU
 * (read-only when duplicated) or mapped remotely. want_remote: the big
 * pages to map onto host memory. */
static int remap(uvm_space *s, range *r, block *b, uint64_t want_remote, diag *d) {
  uint64_t va = block_va(s, r, b);
  const uvm_ops *o = &s->ops;
  bool big = wants_2m(s, r, b);
  if (b->big2m && !big) {
    o->unmap(o->ctx, va, s->block_shift);
    b->big2m = false;
  }
  uint64_t want = big ? 0 : b->gpu | want_remote;
  for (uint64_t gone = b->mapped & ~want; gone; gone &= gone - 1)
    o->unmap(o->ctx, va + ((uint64_t)__builtin_ctzll(gone) << s->big_shift), s->big_shift);
  /* pages whose kind of mapping changes (remote to local, read-only to writable) are mapped anew */
  uint64_t ro = b->gpu & b->host & b->adv[ADV_READ_MOSTLY];
  uint64_t changed = b->mapped & want & ((b->remote ^ (want_remote & ~b->gpu)) | (b->readonly ^ ro));
  for (uint64_t m = changed; m; m &= m - 1)
    o->unmap(o->ctx, va + ((uint64_t)__builtin_ctzll(m) << s->big_shift), s->big_shift);
  b->mapped &= want & ~changed;
  if (big && !b->big2m) {
    if (o->map(o->ctx, va, b->frame, s->block_shift, true, d)) return -1;
    b->big2m = true;
  }
  for (uint64_t add = want & ~b->mapped; add; add &= add - 1) {
    unsigned p = (unsigned)__builtin_ctzll(add);
    uint64_t pva = va + ((uint64_t)p << s->big_shift);
    bool local = b->gpu >> p & 1;
    uint64_t pa = local ? b->frame + ((uint64_t)p << s->big_shift) : UVM_HOST_PA + (pva & (UVM_HOST_PA - 1));
    if (o->map(o->ctx, pva, pa, s->big_shift, !(ro >> p & 1), d)) return -1;
    b->mapped |= UINT64_C(1) << p;
  }
  b->remote = b->mapped & ~b->gpu;
  b->readonly = b->mapped & ro;
  return 0;
}

/* The fault path's cost: counted, and the uvm's clock moves on. */
static void add_cost(uvm_space *s, uvm_counts *c, double ns) {
  c->fault_ns += ns;
  s->clock_ns += ns;
}

/* Gives the block's chunk back once nothing of it is on the GPU. */
static void drop_frame(uvm_space *s, block *b) {
  if (b->gpu || b->frame == NO_FRAME) return;
  s->ops.frame_free(s->ops.ctx, b->frame, s->block_shift);
  b->frame = NO_FRAME;
  unlink_lru(s, b);
}

/* The range and block whose eviction-order entry is b. */
static range *range_of(uvm_space *s, const block *b) {
  for (size_t i = 0; i < s->nr; i++)
    if (b >= s->r[i].b && b < s->r[i].b + s->r[i].nblocks) return &s->r[i];
  return NULL;
}

/* Moves block b's GPU-resident pages to the host (eviction). */
static int evict(uvm_space *s, block *b, uvm_counts *c, diag *d) {
  range *r = range_of(s, b);
  uint64_t moved = (uint64_t)__builtin_popcountll(b->gpu & ~b->host) << s->big_shift;
  b->host |= b->gpu;
  b->gpu = 0;
  c->to_host_bytes += moved;
  c->evicted_bytes += moved;
  add_cost(s, c, at_rate(moved, s->cfg.to_host_gbps));
  if (remap(s, r, b, b->host & b->adv[ADV_BY_GPU], d)) return -1;
  drop_frame(s, b);
  return 0;
}

/* Block b gets a chunk (evicting the least recently filled blocks while
 * device memory is full); it is the most recently filled from now on. */
static int ensure_frame(uvm_space *s, block *b, uvm_counts *c, diag *d) {
  if (b->frame == NO_FRAME) {
    uint64_t pa;
    while (s->ops.frame_alloc(s->ops.ctx, s->block_shift, &pa)) {
      block *victim = s->oldest == b ? b->newer : s->oldest;
      if (!victim) return diag_set(d, NULL, 0, "device memory is full and no managed memory is left to evict");
      if (evict(s, victim, c, d)) return -1;
    }
    b->frame = pa;
  }
  touch_lru(s, b);
  return 0;
}

/* --- thrashing (uvm_perf_thrashing.c; not measured) --------------------------- */

/* Page p of b migrated now: one more thrashing event when the last was
 * within the lapse. */
static void note_migration(uvm_space *s, block *b, unsigned p) {
  if (!s->cfg.thrashing_threshold) return;
  if (!b->th && !(b->th = calloc(1, sizeof *b->th))) return; /* out of memory: no detection for it */
  thrash *t = b->th;
  bool close = t->count[p] && s->clock_ns - t->last_ns[p] <= s->cfg.thrashing_lapse_us * 1e3;
  t->count[p] = close ? (uint8_t)(t->count[p] < 255 ? t->count[p] + 1 : 255) : 1;
  t->last_ns[p] = s->clock_ns;
}

/* Whether page p stays on the host, mapped remotely, as a thrashing page:
 * pinned now, or pinned from now on. */
static bool pinned(uvm_space *s, block *b, unsigned p, uvm_counts *c) {
  thrash *t = b->th;
  if (!t || !s->cfg.thrashing_threshold) return false;
  if (t->pinned_until[p] > s->clock_ns) return true;
  if (t->count[p] <= s->cfg.thrashing_threshold) return false;
  t->pinned_until[p] = s->clock_ns + s->cfg.thrashing_pin_ms * 1e6;
  t->count[p] = 0;
  c->thrashing_pins++;
  return true;
}

/* --- the GPU's faults ----------------------------------------------------------- */

/* The fault joins the open batch (opening one when none is, or the last is
 * full) and the batch services its block. */
static void batch_fault(uvm_space *s, block *b, uvm_counts *c) {
  if (!s->batch || s->batch_faults == s->cfg.fault_batch) {
    s->batch = ++s->batches;
    s->batch_faults = 0;
    c->batches++;
    add_cost(s, c, s->cfg.batch_us * 1e3);
  }
  s->batch_faults++;
  c->faults++;
  if (b->batch != s->batch) {
    b->batch = s->batch;
    c->block_services++;
    add_cost(s, c, s->cfg.block_us * 1e3);
  }
}

void uvm_sync(uvm_space *s) { s->batch = 0; }

/* Brings big pages `want` of b to the GPU: migrated from the host (kept
 * there too when read-mostly and only read), populated when untouched.
 * Returns the bytes migrated and populated into *moved, *filled. */
static void bring(uvm_space *s, block *b, uint64_t want, bool write, uint64_t *moved, uint64_t *filled) {
  want &= ~b->gpu;
  uint64_t from_host = want & b->host, dup = from_host & b->adv[ADV_READ_MOSTLY] & (write ? 0 : ~UINT64_C(0));
  *moved = (uint64_t)__builtin_popcountll(from_host) << s->big_shift;
  *filled = (uint64_t)__builtin_popcountll(want & ~b->host) << s->big_shift;
  for (uint64_t m = from_host; m; m &= m - 1) note_migration(s, b, (unsigned)__builtin_ctzll(m));
  b->host &= ~(from_host & ~dup);
  b->gpu |= want;
}

static int gpu_fault(uvm_space *s, uint64_t va, bool write, uvm_counts *c, diag *d) {
  range *r = find(s, va);
  if (!r) return 0;
  uint64_t off = va - r->va, bi = off >> s->block_shift;
  block *b = &r->b[bi];
  unsigned p = (unsigned)((off >> s->big_shift) & (s->per_block - 1)), pages = block_pages(r, bi, s->per_block);
  uint64_t bit = UINT64_C(1) << p;
  bool on_host = (b->host & ~b->gpu) >> p & 1;
  if (b->big2m || ((b->mapped & bit) && !(write && (b->readonly & bit)))) return 1; /* mapped as it needs */
  if (on_host && (b->adv[ADV_BY_GPU] & bit)) { /* mapped where it is, no fault */
    c->remote_maps++;
    return remap(s, r, b, b->remote | bit, d) ? -1 : 1;
  }
  batch_fault(s, b, c);
  double ns = s->cfg.fault_us * 1e3;
  if (write && (b->readonly & bit)) { /* a write to a read-duplicated page: the host's copy goes */
    b->host &= ~bit;
    add_cost(s, c, ns);
    return remap(s, r, b, b->remote, d) ? -1 : 1;
  }
  if ((b->adv[ADV_PREF_HOST] & bit) || (on_host && pinned(s, b, p, c))) {
    /* mapped remotely where it is (an untouched page is populated at its
     * preferred location, the host), not moved */
    b->host |= bit;
    c->remote_maps++;
    add_cost(s, c, ns);
    return remap(s, r, b, b->remote | bit, d) ? -1 : 1;
  }
  /* The prefetch tree; it never moves a page away from the host when the
   * host is where it prefers to be (should_apply_prefetch_logic). */
  uint64_t want = (bit | uvm_prefetch_region(b->gpu | bit, p, pages, s->cfg.prefetch_threshold)) &
                  ~b->adv[ADV_PREF_HOST];
  if (ensure_frame(s, b, c, d)) return -1;
  uint64_t moved, filled;
  bring(s, b, want, write, &moved, &filled);
  c->to_gpu_bytes += moved;
  c->populated_bytes += filled;
  if (moved) ns += s->cfg.migrate_fault_us * 1e3;
  add_cost(s, c, ns + at_rate(moved, s->cfg.migrate_gbps) + at_rate(filled, s->cfg.populate_gbps));
  return remap(s, r, b, b->remote & ~b->gpu, d) ? -1 : 1;
}

/* --- whole ranges: host touches, prefetches, advice ----------------------------- */

/* Calls fn on each block [va, va + size) overlaps with the mask of its big
 * pages inside the range; [va, va + size) lies in one range. */
typedef int (*each_fn)(uvm_space *s, range *r, block *b, uint64_t pages, void *arg, uvm_counts *c, diag *d);

static int each_block(uvm_space *s, uint64_t va, uint64_t size, each_fn fn, void *arg, uvm_counts *c, diag *d) {
  if (uvm_check_range(s, va, size, d)) return -1;
  range *r = find(s, va);
  uint64_t first = (va - r->va) >> s->big_shift, last = (va - r->va + (size - 1)) >> s->big_shift;
  for (uint64_t bi = first / s->per_block; bi <= last / s->per_block; bi++) {
    uint64_t lo = bi * s->per_block, n = block_pages(r, bi, s->per_block);
    uint64_t from = first > lo ? first - lo : 0, to = last - lo < n - 1 ? last - lo : n - 1;
    uint64_t mask = all_pages((unsigned)(to + 1)) & ~all_pages((unsigned)from);
    if (fn(s, r, &r->b[bi], mask, arg, c, d)) return -1;
  }
  return 0;
}

static int host_touch(uvm_space *s, range *r, block *b, uint64_t pages, void *arg, uvm_counts *c, diag *d) {
  bool write = *(const bool *)arg;
  uint64_t only_gpu = pages & b->gpu & ~b->host;
  uint64_t dup = write ? 0 : only_gpu & b->adv[ADV_READ_MOSTLY]; /* copied: the GPU keeps its copy */
  uint64_t drop = (write ? pages & b->gpu & b->host : 0) | (only_gpu & ~dup); /* GPU copies that go */
  b->host |= pages; /* an untouched page is populated on the host (its cost is the OS's, not modelled) */
  if (!only_gpu && !drop) return 0;
  uint64_t faults = (uint64_t)__builtin_popcountll(only_gpu), moved = faults << s->big_shift;
  for (uint64_t m = only_gpu & ~dup; m; m &= m - 1) note_migration(s, b, (unsigned)__builtin_ctzll(m));
  b->gpu &= ~drop;
  c->host_faults += faults;
  c->to_host_bytes += moved;
  add_cost(s, c, (double)faults * s->cfg.host_fault_us * 1e3 + at_rate(moved, s->cfg.to_host_gbps));
  /* what the GPU still maps remotely: what it did before, and accessed-by pages that left it */
  if (remap(s, r, b, (b->remote | (drop & b->adv[ADV_BY_GPU])) & ~b->gpu, d)) return -1;
  drop_frame(s, b);
  return 0;
}

/* What one public operation did goes to the caller's counts and the space's. */
static int counted(uvm_space *s, int rc, const uvm_counts *mine, uvm_counts *c) {
  uvm_counts_add(c, mine);
  uvm_counts_add(&s->total, mine);
  return rc;
}

int uvm_gpu_fault(uvm_space *s, uint64_t va, bool write, uvm_counts *c, diag *d) {
  uvm_counts mine = {0};
  return counted(s, gpu_fault(s, va, write, &mine, d), &mine, c);
}

int uvm_host_access(uvm_space *s, uint64_t va, uint64_t size, bool write, uvm_counts *c, diag *d) {
  uvm_sync(s);
  uvm_counts mine = {0};
  return counted(s, each_block(s, va, size ? size : 1, host_touch, &write, &mine, d), &mine, c);
}

static int prefetch_block(uvm_space *s, range *r, block *b, uint64_t pages, void *arg, uvm_counts *c, diag *d) {
  uvm_side to = *(const uvm_side *)arg;
  if (to == UVM_HOST) {
    uint64_t moved = (uint64_t)__builtin_popcountll(pages & b->gpu & ~b->host) << s->big_shift;
    uint64_t drop = pages & b->gpu;
    if (!drop) return 0;
    b->host |= drop;
    b->gpu &= ~drop;
    c->to_host_bytes += moved;
    c->prefetch_ns += at_rate(moved, s->cfg.prefetch_gbps);
    if (remap(s, r, b, (b->remote | (drop & b->adv[ADV_BY_GPU])) & ~b->gpu, d)) return -1;
    drop_frame(s, b);
    return 0;
  }
  if (!(pages & ~b->gpu)) return 0;
  if (ensure_frame(s, b, c, d)) return -1;
  uint64_t moved, filled;
  bring(s, b, pages, false, &moved, &filled);
  c->prefetched_bytes += moved;
  c->populated_bytes += filled;
  c->prefetch_ns += at_rate(moved, s->cfg.prefetch_gbps) + at_rate(filled, s->cfg.populate_gbps);
  return remap(s, r, b, b->remote & ~b->gpu, d);
}

int uvm_prefetch(uvm_space *s, uint64_t va, uint64_t size, uvm_side to, uvm_counts *c, diag *d) {
  uvm_sync(s);
  uvm_counts mine = {0};
  mine.prefetch_ns = s->cfg.prefetch_us * 1e3;
  int rc = each_block(s, va, size, prefetch_block, &to, &mine, d);
  s->clock_ns += mine.prefetch_ns; /* evictions on the way moved it already */
  return counted(s, rc, &mine, c);
}

static int advise_block(uvm_space *s, range *r, block *b, uint64_t pages, void *arg, uvm_counts *c, diag *d) {
  uvm_advice a = *(const uvm_advice *)arg;
  switch (a) {
  case UVM_READ_MOSTLY: b->adv[ADV_READ_MOSTLY] |= pages; return 0;
  case UVM_UNSET_READ_MOSTLY: /* duplicates collapse onto the GPU's copy */
    b->adv[ADV_READ_MOSTLY] &= ~pages;
    b->host &= ~(pages & b->gpu);
    return remap(s, r, b, b->remote, d);
  case UVM_PREFERRED_GPU: b->adv[ADV_PREF_GPU] |= pages, b->adv[ADV_PREF_HOST] &= ~pages; return 0;
  case UVM_PREFERRED_HOST: b->adv[ADV_PREF_HOST] |= pages, b->adv[ADV_PREF_GPU] &= ~pages; return 0;
  case UVM_UNSET_PREFERRED: b->adv[ADV_PREF_GPU] &= ~pages, b->adv[ADV_PREF_HOST] &= ~pages; return 0;
  case UVM_ACCESSED_BY_GPU: { /* the GPU maps the host-resident ones now */
    b->adv[ADV_BY_GPU] |= pages;
    uint64_t add = pages & b->host & ~b->gpu & ~b->mapped;
    c->remote_maps += (uint64_t)__builtin_popcountll(add);
    return remap(s, r, b, b->remote | add, d);
  }
  case UVM_UNSET_ACCESSED_BY_GPU:
    b->adv[ADV_BY_GPU] &= ~pages;
    return remap(s, r, b, b->remote & ~pages, d);
  /* the host cannot map device memory on a PCIe system: kept, no effect */
  case UVM_ACCESSED_BY_HOST: b->adv[ADV_BY_HOST] |= pages; return 0;
  case UVM_UNSET_ACCESSED_BY_HOST: b->adv[ADV_BY_HOST] &= ~pages; return 0;
  case UVM_ADVICE_COUNT: break;
  }
  return diag_set(d, NULL, 0, "unknown advice");
}

int uvm_advise(uvm_space *s, uint64_t va, uint64_t size, uvm_advice a, uvm_counts *c, diag *d) {
  uvm_sync(s);
  uvm_counts mine = {0};
  return counted(s, each_block(s, va, size, advise_block, &a, &mine, d), &mine, c);
}

int uvm_range_remove(uvm_space *s, uint64_t va, diag *d) {
  uvm_sync(s);
  range *r = find(s, va);
  if (!r || r->va != va) return diag_set(d, NULL, 0, "%#llx starts no managed range", (unsigned long long)va);
  for (uint64_t i = 0; i < r->nblocks; i++) {
    block *b = &r->b[i];
    uint64_t bva = block_va(s, r, b);
    if (b->big2m) s->ops.unmap(s->ops.ctx, bva, s->block_shift);
    for (uint64_t m = b->mapped; m; m &= m - 1)
      s->ops.unmap(s->ops.ctx, bva + ((uint64_t)__builtin_ctzll(m) << s->big_shift), s->big_shift);
    unlink_lru(s, b);
  }
  free_range(s, r);
  size_t at = (size_t)(r - s->r);
  memmove(&s->r[at], &s->r[at + 1], (s->nr - at - 1) * sizeof *s->r);
  s->nr--;
  return 0;
}

int uvm_block_get(const uvm_space *s, uint64_t va, uvm_block_state *out) {
  const range *r = find(s, va);
  if (!r) return -1;
  uint64_t bi = (va - r->va) >> s->block_shift;
  const block *b = &r->b[bi];
  *out = (uvm_block_state){.gpu = b->gpu, .host = b->host, .remote = b->remote, .big2m = b->big2m,
                           .pages = block_pages(r, bi, s->per_block)};
  return 0;
}
