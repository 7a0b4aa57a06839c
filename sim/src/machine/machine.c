/* The machine: trace records in, page-table and MMU operations out. */
#include "machine_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- live allocations: open-addressed hash by id ------------------------ */

static size_t slot_of(uint64_t id, size_t cap) { return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 7) & (cap - 1); }

static live_alloc *alloc_find(const machine *m, uint64_t id) {
  if (!m->alloc_cap) return NULL;
  for (size_t i = slot_of(id, m->alloc_cap);; i = (i + 1) & (m->alloc_cap - 1)) {
    live_alloc *a = &m->allocs[i];
    if (!a->used && !a->tomb) return NULL;
    if (a->used && a->id == id) return a;
  }
}

/* The first slot a probe for id can take: empty, or a tombstone when the
 * table may hold them. */
static live_alloc *free_slot(live_alloc *table, size_t cap, uint64_t id) {
  size_t i = slot_of(id, cap);
  while (table[i].used) i = (i + 1) & (cap - 1);
  return &table[i];
}

/* Rehashes without tombstones, doubling when live entries need the room. */
static int alloc_rehash(machine *m) {
  size_t cap = m->alloc_cap ? m->alloc_cap : 1024;
  while ((m->alloc_used + 1) * 4 > cap) cap *= 2;
  live_alloc *old = m->allocs, *fresh = calloc(cap, sizeof *fresh);
  if (!fresh) return -1;
  for (size_t i = 0; i < m->alloc_cap; i++)
    if (old[i].used) *free_slot(fresh, cap, old[i].id) = old[i];
  free(old);
  m->allocs = fresh;
  m->alloc_cap = cap;
  m->alloc_filled = m->alloc_used;
  return 0;
}

static live_alloc *alloc_insert(machine *m, uint64_t id) {
  if ((m->alloc_filled + 1) * 2 > m->alloc_cap && alloc_rehash(m)) return NULL;
  live_alloc *a = free_slot(m->allocs, m->alloc_cap, id);
  if (!a->tomb) m->alloc_filled++;
  m->alloc_used++;
  *a = (live_alloc){.id = id, .used = true};
  return a;
}

/* --- mapping pages -------------------------------------------------------- */


static void unmap_pages(machine *m, uint64_t va, uint64_t size) {
  uint64_t end = va + size;
  while (va < end) {
    pt_mapping old;
    if (pt_unmap(cur_table(m), va, &old)) {
      va = (va | (m->min_page - 1)) + 1;
      continue;
    }
    system_shootdown(m->sys, old.va, old.page_shift, m->ctx[cur_space(m)].asid);
    phys_free(m->frames, old.pa, old.page_shift);
    va = old.va + (1ull << old.page_shift);
  }
}

#define HOST_OOM "out of host memory for the page tables and frames it needs"

/* The host had no memory for a map: never a simulated event. */
static int host_oom(machine *m, diag *d) {
  m->host_oom = true;
  return diag_set(d, NULL, 0, HOST_OOM);
}

/* What a pt_map that returned rc means: with tables in memory, no frame
 * left for a table node is running out of physical memory, an OOM like a
 * page's; no host memory is host_oom; else the error pt_map gave. */
int machine_map_failed(machine *m, int rc, diag *d) {
  if (rc == PT_MAP_NO_HOST_MEMORY) return host_oom(m, d);
  if (rc == PT_MAP_NO_TABLE_MEMORY && m->spec.tables_in_memory) return diag_set(d, NULL, 0, "out of physical memory");
  return -1;
}

/* Maps [va, va+size) in pages of 2^shift; all or nothing. Frames handed
 * out highest first are taken for the last page first, so that one call's
 * pages still ascend physically. */
static int map_pages(machine *m, uint64_t va, uint64_t size, unsigned shift, unsigned prot, diag *d) {
  uint64_t page = 1ull << shift;
  bool down = m->spec.frame_order == PHYS_HIGHEST_FIRST;
  for (uint64_t i = 0; i < size; i += page) {
    uint64_t off = down ? size - page - i : i, pa;
    /* the pages mapped so far, to give back when one fails */
    uint64_t done_va = down ? va + off + page : va, done = i;
    int got = phys_alloc(m->frames, shift, &pa);
    if (got) {
      unmap_pages(m, done_va, done);
      return got == PHYS_NO_HOST_MEMORY ? host_oom(m, d) : diag_set(d, NULL, 0, "out of physical memory");
    }
    int rc = pt_map(cur_table(m), va + off, pa, shift, prot, d);
    if (rc) {
      phys_free(m->frames, pa, shift);
      unmap_pages(m, done_va, done);
      return machine_map_failed(m, rc, d);
    }
  }
  return 0;
}

/* Why frame pa (of a 2^shift page) cannot be taken, for a map with frame=. */
static int frame_error(machine *m, int status, uint64_t pa, unsigned shift, diag *d) {
  char cap[32];
  unsigned long long frame = (unsigned long long)(pa >> shift);
  if (status == PHYS_AT_IN_USE)
    return diag_set(d, NULL, 0, "frame %#llx (pa %#llx) is already in use", frame, (unsigned long long)pa);
  if (status == PHYS_AT_NO_HOST_MEMORY) return host_oom(m, d);
  return diag_set(d, NULL, 0, "frame %#llx (pa %#llx) is beyond the %s of physical memory", frame,
                  (unsigned long long)pa, num_format_size(phys_capacity(m->frames), cap, sizeof cap));
}

/* Maps [va, va+size) in pages of 2^shift onto consecutive frames from
 * `frame` (in pages of that size) up, as a map record's frame= chooses;
 * all or nothing. */
static int map_pages_at(machine *m, uint64_t va, uint64_t size, unsigned shift, unsigned prot, uint64_t frame,
                        diag *d) {
  uint64_t page = 1ull << shift;
  if (frame > (phys_capacity(m->frames) >> shift)) /* also keeps frame << shift from wrapping */
    return frame_error(m, PHYS_AT_BEYOND, frame << shift, shift, d);
  uint64_t first_pa = frame << shift;
  for (uint64_t i = 0; i < size; i += page) {
    int st = phys_alloc_at(m->frames, first_pa + i, shift);
    if (st != PHYS_AT_OK) {
      unmap_pages(m, va, i);
      return frame_error(m, st, first_pa + i, shift, d);
    }
    int rc = pt_map(cur_table(m), va + i, first_pa + i, shift, prot, d);
    if (rc) {
      phys_free(m->frames, first_pa + i, shift);
      unmap_pages(m, va, i);
      return machine_map_failed(m, rc, d);
    }
  }
  return 0;
}

static int vas_map_hook(void *ctx, uint64_t va, uint64_t size, unsigned page_shift, diag *d) {
  machine *m = ctx;
  /* Past the record limit the refusal is not an OOM: do_alloc reports it. */
  if (size >> page_shift > m->max_pages) {
    m->hook_pages = size >> page_shift;
    return -1;
  }
  /* A failing map is the allocator's OOM; it gets no location. */
  return map_pages(m, va, size, page_shift, PT_R | PT_W, d);
}

static void vas_unmap_hook(void *ctx, uint64_t va, uint64_t size, unsigned page_shift) {
  (void)page_shift;
  unmap_pages(ctx, va, size);
}

/* The MMU found va unmapped: a managed page's GPU fault, or demand paging
 * maps its page if allowed. */
static bool demand_fault(void *ctx, uint64_t va, acc_kind kind) {
  machine *m = ctx;
  bool handled, mapped = machine_managed_fault(m, va, kind, &handled);
  if (handled) return mapped;
  bool on = m->demand == DEMAND_ON || (m->demand == DEMAND_AUTO && !m->saw_layout);
  if (!on) return false;
  uint64_t base = va & ~((1ull << m->page_shift) - 1);
  if (map_pages(m, base, 1ull << m->page_shift, m->page_shift, PT_RWX, NULL)) return false;
  m->stats.page_faults++;
  return true;
}

/* --- construction --------------------------------------------------------- */

/* [machine] tables_in_memory: a table node takes whole frames (one frame
 * when smaller, as an OS gives a table a page), from the same allocator as
 * the pages it maps. */
static unsigned table_shift(const machine *m, uint64_t bytes) {
  unsigned shift = log2_u64(bytes);
  return shift < m->min_shift ? m->min_shift : shift;
}

static int take_table(void *ctx, uint64_t bytes, uint64_t *pa) {
  machine *m = ctx;
  int rc = phys_alloc(m->frames, table_shift(m, bytes), pa);
  return rc == PHYS_NO_HOST_MEMORY ? PT_TAKE_NO_HOST_MEMORY : rc;
}

static void give_table(void *ctx, uint64_t pa, uint64_t bytes) {
  machine *m = ctx;
  phys_free(m->frames, pa, table_shift(m, bytes));
}

/* A new address space: its own page table and heap. */
static int add_context(machine *m, uint32_t asid, diag *d) {
  context *x = &m->ctx[m->nctx];
  vas_hooks hooks = {.ctx = m, .map = vas_map_hook, .unmap = vas_unmap_hook};
  pt_table_frames frames = {.ctx = m, .take = take_table, .give = give_table};
  *x = (context){.asid = asid, .owner = m, .table = pt_create_in(m->format, m->spec.tables_in_memory ? &frames : NULL)};
  if (!x->table)
    return diag_set(d, NULL, 0, m->spec.tables_in_memory ? "no physical memory left for a root page table"
                                                          : "out of memory");
  x->heap = vas_create(m->spec.vas_policy, &m->spec.vas, &hooks, d);
  if (!x->heap) {
    pt_destroy(x->table);
    return -1;
  }
  m->nctx++;
  return 0;
}

machine *machine_create(const machine_spec *s, diag *d) {
  machine *m = calloc(1, sizeof *m);
  if (!m) return diag_set(d, NULL, 0, "out of memory"), NULL;
  m->spec = *s;
  m->format = &m->spec.format; /* the machine's own copy: its tables point to it */
  m->max_pages = s->max_record_pages && s->max_record_pages < MACHINE_MAX_RECORD_PAGES ? s->max_record_pages
                                                                                     : MACHINE_MAX_RECORD_PAGES;
  m->demand = s->demand;
  m->page_shift = log2_u64(s->page_size);
  unsigned min_shift = 63;
  for (unsigned i = 0; i < m->format->nleaves; i++)
    if (m->format->leaf[i].page_shift < min_shift) min_shift = m->format->leaf[i].page_shift;
  m->min_shift = min_shift;
  m->min_page = 1ull << min_shift;
  if (!(m->frames = phys_create(s->phys_memory, min_shift, s->frame_order))) {
    diag_set(d, NULL, 0, "out of memory for %llu bytes of physical memory", (unsigned long long)s->phys_memory);
    goto fail;
  }
  m->spec.vas.phys_capacity = phys_capacity(m->frames);
  if (add_context(m, 0, d) || !(m->sys = system_create(&s->sys, m->ctx[0].table, NULL, d))) goto fail;
  m->fresh = true;
  system_set_fault_handler(m->sys, demand_fault, m);
  if (!(m->cpu = system_agent(m->sys, 0, d))) goto fail;
  for (int k = ACC_READ; k <= ACC_EXEC; k++) m->serves[k] = mmu_serves(m->cpu, (acc_kind)k);
  return m;
fail:
  machine_destroy(m);
  return NULL;
}

void machine_destroy(machine *m) {
  if (!m) return;
  for (unsigned i = 0; i < m->nctx; i++) {
    m->space[m->agent] = (uint8_t)i;
    uvm_destroy(m->ctx[i].uvm); /* its frames go back; the table goes with its mappings */
    uvm_pack_destroy(m->ctx[i].pack);
    vas_destroy(m->ctx[i].host_heap);
    vas_destroy(m->ctx[i].heap); /* may unmap through hooks: before the table goes */
    pt_destroy(m->ctx[i].table);
  }
  system_destroy(m->sys);
  phys_destroy(m->frames);
  free(m->allocs);
  free(m->phases);
  free(m);
}

/* --- records ---------------------------------------------------------------- */

/* The live allocation a record names, in the current address space. */
static live_alloc *named_alloc(machine *m, const trace_record *r, const char *file, diag *d) {
  live_alloc *a = alloc_find(m, r->alloc_id);
  if (!a) return diag_set(d, file, r->line, "allocation %llu is not live", (unsigned long long)r->alloc_id), NULL;
  if (a->ctx != cur_space(m))
    return diag_set(d, file, r->line, "allocation %llu belongs to address space %u, not the current %u",
                    (unsigned long long)r->alloc_id, m->ctx[a->ctx].asid, m->ctx[cur_space(m)].asid), NULL;
  return a;
}

_Static_assert((int)ACC_READ == (int)TRACE_READ && (int)ACC_WRITE == (int)TRACE_WRITE &&
                   (int)ACC_EXEC == (int)TRACE_EXEC,
               "trace and MMU access kinds share their numbers");


int machine_width_error(const machine *m, uint64_t va, uint64_t size, const char *file, unsigned long line, diag *d) {
  const pt_format *f = m->format;
  if (!pt_format_va_ok(f, va) && f->sign_extend)
    return diag_set(d, file, line, "address %#llx is beyond the %u-bit address space of format %s (not canonical: "
                    "bits 63..%u must equal bit %u)", (unsigned long long)va, f->va_bits, f->name, f->va_bits,
                    f->va_bits - 1u);
  if (!pt_format_va_ok(f, va))
    return diag_set(d, file, line, "address %#llx is beyond the %u-bit address space of format %s",
                    (unsigned long long)va, f->va_bits, f->name);
  return diag_set(d, file, line, "access %#llx+%#llx runs past the %u-bit address space of format %s",
                  (unsigned long long)va, (unsigned long long)size, f->va_bits, f->name);
}

/* The record limit (max_pages) on [va, va + size), counted
 * in the format's smallest pages: 0, or -1 with the line named. */
static int check_pages(const machine *m, const char *what, uint64_t va, uint64_t size, const char *file,
                       unsigned long line, diag *d) {
  uint64_t first, pages = size ? trace_pages(va, size, m->min_shift, &first) : 0;
  if (pages <= m->max_pages) return 0;
  return diag_set(d, file, line, "%s of %#llx+%#llx touches %llu pages, more than the %llu one record may",
                  what, (unsigned long long)va, (unsigned long long)size, (unsigned long long)pages,
                  (unsigned long long)m->max_pages);
}


/* Translates every page [va, va + size) touches. Pages are found at the
 * smallest page size; a mapping of a larger page is translated once. An
 * access touching more than max_pages is refused (-1) before anything is
 * counted; one whose demand fault found no host memory is -2 (the fault
 * it counted stands for nothing: the replay ends). */
static void translate_pages(machine *m, acc_kind kind, uint64_t va, uint64_t size);

/* An access of kind missed at the levels of bit set `missed`. */
static void count_misses(machine *m, acc_kind kind, uint32_t missed) {
  for (; missed; missed &= missed - 1) {
    unsigned l = (unsigned)__builtin_ctz(missed);
    m->stats.access_misses[l]++;
    m->stats.kind_misses[kind][l]++;
  }
}

/* translate_access's one-page access that did not hit the entry level's
 * first array at once: the whole translation. Out of line, so the hit path
 * sets up no frame for it. */
__attribute__((noinline)) static int translate_one(machine *m, acc_kind kind, uint64_t va) {
  mmu_outcome o;
  mmu_translate(m->cpu, va, kind, &o);
  if (o.status == MMU_FAULT_PROT) machine_retry_managed(m, va, kind, &o);
  if (o.status != MMU_OK) m->stats.faults++;
  if (o.missed) count_misses(m, kind, o.missed);
  if (o.status == MMU_OK || !m->host_oom) return 0;
  m->host_oom = false; /* reported once; what failed was undone */
  return -2;
}

/* An access over several pages (translate_access). */
__attribute__((noinline)) static int translate_span(machine *m, acc_kind kind, uint64_t va, uint64_t size) {
  uint64_t first, pages = trace_pages(va, size, m->min_shift, &first);
  if (pages > m->max_pages) return -1;
  m->stats.accesses++;
  m->stats.accesses_by_kind[kind]++;
  translate_pages(m, kind, va, size);
  if (!m->host_oom) return 0;
  m->host_oom = false;
  return -2;
}

/* One access: 0, or what access_error reads. A one-page access (within
 * max_pages, which is at least 1) asks mmu_translate_hit first: most
 * accesses the repeat window does not take end there. */
static inline int translate_access(machine *m, acc_kind kind, uint64_t va, uint64_t size) {
  if ((va ^ (va + (size - 1))) >> m->min_shift) return translate_span(m, kind, va, size);
  m->stats.accesses++;
  m->stats.accesses_by_kind[kind]++;
  return mmu_translate_hit(m->cpu, va, kind) ? 0 : translate_one(m, kind, va);
}

/* What translate_access's rc (not 0) says about the access at line. */
static int access_error(const machine *m, int rc, uint64_t va, uint64_t size, const char *file, unsigned long line,
                        diag *d) {
  if (rc == -2) return diag_set(d, file, line, "access %#llx: " HOST_OOM, (unsigned long long)va);
  return check_pages(m, "access", va, size, file, line, d);
}

/* An access over several pages: out of line, so the one-page path above
 * sets up no stack frame for its loop. */
__attribute__((noinline)) static void translate_pages(machine *m, acc_kind kind, uint64_t va, uint64_t size) {
  mmu_outcome o;
  uint64_t end = va + (size - 1);
  uint32_t missed = 0;
  bool faulted = false;
  bool straddled = false;
  for (;; straddled = true) {
    mmu_translate(m->cpu, va, kind, &o);
    if (o.status == MMU_FAULT_PROT) machine_retry_managed(m, va, kind, &o);
    missed |= o.missed;
    faulted |= o.status != MMU_OK;
    pt_mapping map;
    uint64_t next = pt_lookup(cur_table(m), va, &map) ? map.va + (1ull << map.page_shift)
                                                       : (va | (m->min_page - 1)) + 1;
    if (next == 0 || next > end) break;
    va = next;
  }
  if (straddled) m->stats.straddles++; /* a larger page may hold it all */
  if (faulted) m->stats.faults++;
  count_misses(m, kind, missed);
}

static int do_access(machine *m, const trace_record *r, const char *file, diag *d) {
  acc_kind kind = (acc_kind)r->access;
  uint64_t va = r->addr, size = r->size ? r->size : 1;
  if (r->relative) {
    live_alloc *a = named_alloc(m, r, file, d);
    if (!a) return -1;
    if (a->failed) { /* it got no memory: the device's access faults */
      m->stats.accesses += r->cap.op != UVM_HOST;
      m->stats.faults += r->cap.op != UVM_HOST;
      m->stats.host_accesses += r->cap.op == UVM_HOST;
      return 0;
    }
    if (__builtin_add_overflow(a->va, r->addr, &va))
      return diag_set(d, file, r->line, "offset %#llx into allocation %llu runs past the top of memory",
                      (unsigned long long)r->addr, (unsigned long long)r->alloc_id);
  }
  /* The host's touch (side=host) does not go through the GPU's MMU: it
   * counts as neither a hit nor a miss; managed pages it touches move. */
  if (r->cap.op == UVM_HOST) return machine_host_access(m, va, size, kind == ACC_WRITE, file, r->line, d);
  if (!m->serves[kind]) return 0; /* fetches with no level serving instructions */
  if (check_wrap("access", va, size, file, r->line, d)) return -1;
  if (beyond_va_bits(m, va, size)) return machine_width_error(m, va, size, file, r->line, d);
  int rc = translate_access(m, kind, va, size);
  return rc ? access_error(m, rc, va, size, file, r->line, d) : 0;
}

int machine_alloc_memory(machine *m, const trace_record *r, trace_mem_kind kind, const char *file, diag *d) {
  m->saw_layout = true;
  m->stats.allocs++;
  if ((unsigned)kind > TRACE_MEM_PINNED) return diag_set(d, file, r->line, "memory kind %u is unknown", kind);
  if (alloc_find(m, r->alloc_id))
    return diag_set(d, file, r->line, "allocation %llu is already live", (unsigned long long)r->alloc_id);
  if (kind != TRACE_MEM_DEVICE && !r->size)
    return diag_set(d, file, r->line, "%s alloc of 0 bytes", trace_mem_kind_names[kind]);
  live_alloc *a = alloc_insert(m, r->alloc_id);
  if (!a) return diag_set(d, file, r->line, "out of memory");
  a->size = r->size;
  a->seq = m->stats.allocs;
  a->ctx = cur_space(m);
  a->mem = kind;
  diag why;
  m->hook_pages = 0;
  uint64_t want = r->cap.attrs & TRACE_HAS_VA ? r->cap.va : 0; /* a capture's address, for --policy recorded */
  int rc = kind == TRACE_MEM_DEVICE ? vas_alloc_at(m->ctx[cur_space(m)].heap, r->size, r->align, r->stream, want, &a->va, &why)
                                      : machine_alloc_uvm_va(m, a, r, &why);
  if (m->host_oom) { /* the allocator saw its map fail: not the simulated OOM it counts */
    m->host_oom = false;
    return diag_set(d, file, r->line, "alloc of %llu bytes: " HOST_OOM, (unsigned long long)r->size);
  }
  if (m->hook_pages)
    return diag_set(d, file, r->line, "alloc of %llu bytes maps %llu pages, more than the %llu one record may",
                    (unsigned long long)r->size, (unsigned long long)m->hook_pages, (unsigned long long)m->max_pages);
  if (rc == VAS_ERR) return diag_set(d, file, r->line, "%s", why.msg);
  if (rc == VAS_OOM) {
    a->failed = true;
    m->stats.oom++;
  }
  return 0;
}

static int do_alloc(machine *m, const trace_record *r, const char *file, diag *d) {
  return machine_alloc_memory(m, r, (trace_mem_kind)r->cap.mem, file, d);
}

static int do_free(machine *m, const trace_record *r, const char *file, diag *d) {
  live_alloc *a = named_alloc(m, r, file, d);
  if (!a) return -1;
  m->stats.frees++;
  diag why;
  if (!a->failed && (a->mem == TRACE_MEM_DEVICE ? vas_free(m->ctx[cur_space(m)].heap, a->va, &why)
                                                   : machine_free_uvm_va(m, a, &why)))
    return diag_set(d, file, r->line, "%s", why.msg);
  a->used = false;
  a->tomb = true;
  m->alloc_used--;
  return 0;
}

static int do_map(machine *m, const trace_record *r, const char *file, diag *d) {
  m->saw_layout = true;
  m->stats.maps++;
  uint64_t page = r->page_size ? r->page_size : 1ull << m->page_shift;
  if (!is_pow2(page) || pt_format_leaf_level(m->format, log2_u64(page)) < 0)
    return diag_set(d, file, r->line, "page size %llu is not a page size of format %s", (unsigned long long)page,
                    m->format->name);
  if ((r->addr | r->size) & (page - 1) || !r->size)
    return diag_set(d, file, r->line, "map of %#llx+%#llx is not a whole number of %llu-byte pages",
                    (unsigned long long)r->addr, (unsigned long long)r->size, (unsigned long long)page);
  if (check_wrap("map", r->addr, r->size, file, r->line, d)) return -1;
  if (r->size / page > m->max_pages)
    return diag_set(d, file, r->line, "map of %#llx+%#llx is %llu pages, more than the %llu one record may",
                    (unsigned long long)r->addr, (unsigned long long)r->size, (unsigned long long)(r->size / page),
                    (unsigned long long)m->max_pages);
  diag why;
  unsigned shift = log2_u64(page);
  if (r->has_frame ? map_pages_at(m, r->addr, r->size, shift, r->prot, r->frame, &why)
                   : map_pages(m, r->addr, r->size, shift, r->prot, &why)) {
    m->host_oom = false; /* why says so */
    if (strcmp(why.msg, "out of physical memory")) return diag_set(d, file, r->line, "%s", why.msg);
    m->stats.oom++;
  }
  return 0;
}

/* unmap and protect take whole pages of the mapping they start in. */
static int check_range(machine *m, const trace_record *r, const char *what, const char *file, diag *d) {
  if (check_wrap(what, r->addr, r->size, file, r->line, d) ||
      check_pages(m, what, r->addr, r->size, file, r->line, d))
    return -1;
  pt_mapping first;
  if (!pt_lookup(cur_table(m), r->addr, &first))
    return diag_set(d, file, r->line, "%s: nothing is mapped at %#llx", what, (unsigned long long)r->addr);
  uint64_t page = 1ull << first.page_shift;
  if (r->addr != first.va || r->size % page)
    return diag_set(d, file, r->line, "%s of %#llx+%#llx does not cover whole %llu-byte pages", what,
                    (unsigned long long)r->addr, (unsigned long long)r->size, (unsigned long long)page);
  return 0;
}

static int do_unmap(machine *m, const trace_record *r, const char *file, diag *d) {
  if (check_range(m, r, "unmap", file, d)) return -1;
  m->stats.unmaps++;
  unmap_pages(m, r->addr, r->size);
  return 0;
}

static int do_protect(machine *m, const trace_record *r, const char *file, diag *d) {
  if (check_range(m, r, "protect", file, d)) return -1;
  m->stats.protects++;
  uint64_t va = r->addr, end = r->addr + r->size;
  while (va < end) {
    pt_mapping map;
    if (!pt_lookup(cur_table(m), va, &map))
      return diag_set(d, file, r->line, "nothing is mapped at %#llx", (unsigned long long)va);
    pt_protect(cur_table(m), va, r->prot);
    system_shootdown(m->sys, map.va, map.page_shift, m->ctx[cur_space(m)].asid);
    va = map.va + (1ull << map.page_shift);
  }
  return 0;
}

/* The counters as they stand now, as phase `label` would end with them. */
static void phase_now(const machine *m, const char *label, machine_phase *p) {
  mmu_stats ms;
  system_stats(m->sys, &ms);
  *p = (machine_phase){.accesses = m->stats.accesses, .walks = ms.walks, .faults = m->stats.faults,
                       .page_faults = m->stats.page_faults, .cycles = ms.cycles, .allocs = m->stats.allocs,
                       .frees = m->stats.frees, .maps = m->stats.maps, .unmaps = m->stats.unmaps,
                       .shootdowns = ms.shootdowns, .host_accesses = m->stats.host_accesses, .uvm = m->stats.uvm};
  snprintf(p->label, sizeof p->label, "%s", label[0] ? label : "start");
  for (unsigned i = 0; i < m->spec.sys.mmu.nlevels; i++) p->misses[i] = system_level_stats(m->sys, i).misses;
}

/* Closes the open phase with the counters as they stand now. */
static int close_phase(machine *m) {
  if (m->nphases == MACHINE_MAX_PHASES) return -1;
  if (!m->phases && !(m->phases = calloc(MACHINE_MAX_PHASES, sizeof *m->phases))) return -1;
  phase_now(m, m->open_label, &m->phases[m->nphases++]);
  return 0;
}

/* Whether anything happened before the first mark. */
static bool started(const machine *m) {
  const machine_stats *s = &m->stats;
  return s->accesses || s->allocs || s->frees || s->maps || s->unmaps || s->protects || s->host_accesses ||
         s->prefetches || s->advices;
}

static int do_mark(machine *m, const trace_record *r, const char *file, diag *d) {
  /* A captured kernel launch (grid=) is an event, not a phase: a program
   * launches far more kernels than a report has phases. */
  if (r->cap.attrs & TRACE_HAS_GRID) return 0;
  m->stats.marks++;
  /* Records before the first mark form a phase "start"; none, no phase. */
  if ((m->open_label[0] || started(m)) && close_phase(m))
    return diag_set(d, file, r->line, "more than %d marks", MACHINE_MAX_PHASES - 1);
  snprintf(m->open_label, sizeof m->open_label, "%s", r->label);
  return 0;
}

size_t machine_phase_count(const machine *m) { return m->nphases + (m->stats.marks != 0); }

void machine_phase_get(const machine *m, size_t i, machine_phase *out) {
  if (i < m->nphases) *out = m->phases[i];
  else phase_now(m, m->open_label, out); /* the open phase runs to now */
}

/* Makes address space asid (created on first use) the current agent's. */
static int switch_space(machine *m, uint32_t asid, const char *file, unsigned long line, diag *d) {
  unsigned i = 0;
  while (i < m->nctx && m->ctx[i].asid != asid) i++;
  if (i == m->nctx && m->fresh) {
    m->ctx[0].asid = asid; /* the first address space is the first one the trace names */
    i = 0;
  } else if (i == m->nctx) {
    if (m->nctx == MACHINE_MAX_CONTEXTS)
      return diag_set(d, file, line, "more than %d address spaces", MACHINE_MAX_CONTEXTS);
    diag why;
    if (add_context(m, asid, &why)) return diag_set(d, file, line, "%s", why.msg);
  }
  m->space[m->agent] = (uint8_t)i;
  return system_set_context(m->sys, m->agent, asid, m->ctx[i].table, d);
}

static int do_ctx(machine *m, const trace_record *r, const char *file, diag *d) {
  m->stats.context_switches++;
  int rc = switch_space(m, r->asid, file, r->line, d);
  m->fresh = false; /* the space it names is in use */
  return rc;
}

/* a = a + b - c over every counter of machine_stats. */
static void add_since(machine_stats *a, const machine_stats *b, const machine_stats *c) {
  _Static_assert(sizeof(machine_stats) % sizeof(uint64_t) == 0, "counters are uint64_t only");
  uint64_t *x = (uint64_t *)(void *)a;
  const uint64_t *y = (const uint64_t *)(const void *)b, *z = (const uint64_t *)(const void *)c;
  for (size_t i = 0; i < sizeof *a / sizeof(uint64_t); i++) x[i] += y[i] - z[i];
}

/* The current agent's counters as they would stand after a switch now. */
static machine_stats current_agent(const machine *m) {
  machine_stats t = m->agent_stats[m->agent];
  add_since(&t, &m->stats, &m->switched);
  return t;
}

/* Thread t of the trace runs on agent t (a CPU of its own) from now on. */
static int switch_agent(machine *m, unsigned t, const char *file, unsigned long line, diag *d) {
  if (m->stats.accesses != m->switched.accesses) m->agents_seen |= UINT64_C(1) << m->agent;
  m->agent_stats[m->agent] = current_agent(m);
  m->switched = m->stats;
  diag why;
  mmu *cpu = system_agent(m->sys, t, &why);
  if (!cpu) return diag_set(d, file, line, "%s", why.msg);
  m->agent = t;
  m->cpu = cpu;
  return 0;
}

static int do_thread(machine *m, const trace_record *r, const char *file, diag *d) {
  if (r->thread >= TRACE_THREAD_MAX)
    return diag_set(d, file, r->line, "thread %u: thread ids go up to %d", r->thread, TRACE_THREAD_MAX - 1);
  if (switch_agent(m, r->thread, file, r->line, d)) return -1;
  m->threaded = true;
  if (!m->spec.thread_spaces) return 0;
  int rc = switch_space(m, r->thread, file, r->line, d);
  m->fresh = false;
  return rc;
}

uint64_t machine_agents(const machine *m) {
  if (!m->threaded) return 0;
  return m->agents_seen | (uint64_t)(m->stats.accesses != m->switched.accesses) << m->agent;
}

void machine_agent_stats(const machine *m, unsigned a, machine_stats *out) {
  *out = a == m->agent ? current_agent(m) : a < TRACE_THREAD_MAX ? m->agent_stats[a] : (machine_stats){0};
}

/* Whether a translates as a repeat of the last translation (mmu_window):
 * its kind takes that path and all its bytes lie in the window's page. A
 * TRACE_ACC_OTHER entry never does (its kind's bit is never set). */
static inline bool in_window(const mmu_window *w, const trace_acc *a) {
  uint64_t ends = (a->addr - w->lo) | (a->addr + (a->size - 1) - w->lo); /* both <= span, a page's mask */
  return (w->kinds >> a->kind & 1) && !(ends & ~w->span);
}

/* Counts the run of n accesses the window took (their kinds are counted
 * as they come): what n one-page first-level hits add up to. */
static void count_run(machine *m, uint64_t *n) {
  if (!*n) return;
  mmu_repeat_count(m->cpu, *n);
  m->stats.records += *n;
  m->stats.accesses += *n;
  *n = 0;
}

int machine_run_block(machine *m, const trace_block *b, const char *file, diag *d) {
  /* What the configuration refuses or skips, checked once for the block. */
  unsigned plain_bits = m->format->va_bits - m->format->sign_extend; /* below these, every address is fine */
  bool wide = plain_bits < 64 && b->last_byte_or >> plain_bits;
  bool skip_fetches = (b->kinds & 1u << TRACE_EXEC) && !m->serves[ACC_EXEC];
  size_t other = 0;
  const mmu_window *win = mmu_repeat_window(m->cpu);
  mmu_window w = *win; /* a copy the counters' stores cannot alias: renewed after every call that may change it */
  uint64_t run = 0;    /* accesses the window took, not counted yet */
  for (size_t i = 0; i < b->n; i++) {
    const trace_acc *a = &b->acc[i];
    if (in_window(&w, a)) { /* most of a trace: one page's accesses in a row */
      m->stats.accesses_by_kind[a->kind]++;
      run++;
      continue;
    }
    count_run(m, &run);
    if (a->kind == TRACE_ACC_OTHER) {
      if (machine_apply(m, &b->other[other++], file, d)) return -1;
      win = mmu_repeat_window(m->cpu); /* a thread switch changes the agent */
      w = *win;
    } else {
      m->stats.records++;
      m->fresh = false;
      if (skip_fetches && a->kind == TRACE_EXEC) continue;
      if (wide && beyond_va_bits(m, a->addr, a->size)) return machine_width_error(m, a->addr, a->size, file, b->line[i], d);
      int rc = translate_access(m, (acc_kind)a->kind, a->addr, a->size);
      if (rc) return access_error(m, rc, a->addr, a->size, file, b->line[i], d);
      w = *win;
    }
  }
  count_run(m, &run);
  return 0;
}

int machine_replay(machine *m, trace_reader *r, int (*each_block)(void *ctx), void *ctx, diag *d) {
  trace_block *b = malloc(sizeof *b);
  if (!b) return diag_set(d, trace_get_path(r), 0, "out of memory");
  int rc;
  while ((rc = trace_take_block(r, &b, d)) == 1) {
    if (machine_run_block(m, b, trace_get_path(r), d)) {
      rc = -1;
      break;
    }
    if (each_block && each_block(ctx)) break; /* rc stays 1: stopped */
  }
  free(b);
  return rc;
}

/* CPU cpu's turn: its trace's records up to and including its next access,
 * after a switch to its thread when another ran last. 1: done; 0: the
 * trace has ended; -1: an error; 2: apply stopped the replay. */
static int take_turn(machine *m, trace_reader *r, uint32_t cpu, uint32_t *running, machine_record_fn apply, void *ctx,
                     diag *d) {
  const char *file = trace_get_path(r);
  trace_record rec;
  int rc;
  while ((rc = trace_next(r, &rec, d)) == 1) {
    if (rec.kind == REC_THREAD)
      return diag_set(d, file, rec.line, "a thread id in a trace replayed as one of several: this trace is CPU %u", cpu);
    if (*running != cpu) {
      trace_record sw = {.kind = REC_THREAD, .thread = cpu, .line = rec.line};
      if (apply ? apply(ctx, &sw, file, d) < 0 : machine_apply(m, &sw, file, d)) return -1;
      *running = cpu;
    }
    int got = apply ? apply(ctx, &rec, file, d) : machine_apply(m, &rec, file, d);
    if (got) return got < 0 ? -1 : 2;
    if (rec.kind == REC_ACCESS) return 1;
  }
  return rc;
}

int machine_replay_cpus(machine *m, trace_reader **r, unsigned n, machine_record_fn apply, void *ctx, diag *d) {
  if (n > TRACE_THREAD_MAX) return diag_set(d, NULL, 0, "%u traces: at most %d CPUs", n, TRACE_THREAD_MAX);
  bool ended[TRACE_THREAD_MAX] = {false};
  uint32_t running = UINT32_MAX; /* the first turn switches to CPU 0: per-CPU counts from the start */
  for (unsigned left = n; left;)
    for (unsigned i = 0; i < n; i++) {
      if (ended[i]) continue;
      int rc = take_turn(m, r[i], i, &running, apply, ctx, d);
      if (rc < 0) return -1;
      if (rc == 2) return 1; /* apply stopped the replay */
      if (rc == 0) {
        ended[i] = true;
        left--;
      }
    }
  return 0;
}

int machine_apply(machine *m, const trace_record *r, const char *file, diag *d) {
  m->stats.records++;
  if (r->kind != REC_MARK && r->kind != REC_THREAD && r->kind != REC_CTX) m->fresh = false;
  if (r->kind != REC_ACCESS && r->kind != REC_THREAD) machine_uvm_sync_all(m); /* the kernel has ended */
  switch (r->kind) {
  case REC_ACCESS: return do_access(m, r, file, d);
  case REC_ALLOC: return do_alloc(m, r, file, d);
  case REC_FREE: return do_free(m, r, file, d);
  case REC_MAP: return do_map(m, r, file, d);
  case REC_UNMAP: return do_unmap(m, r, file, d);
  case REC_PROTECT: return do_protect(m, r, file, d);
  case REC_CTX: return do_ctx(m, r, file, d);
  case REC_MARK: return do_mark(m, r, file, d);
  case REC_THREAD: return do_thread(m, r, file, d);
  /* A capture's pools, reservations, handles and memory samples are the
   * driver's bookkeeping: mappings reach the page table through map
   * records. */
  case REC_POOL:
  case REC_RESERVE:
  case REC_UNRESERVE:
  case REC_HANDLE:
  case REC_RELEASE:
  case REC_MEMINFO: return 0;
  case REC_PREFETCH: return machine_prefetch(m, r->addr, r->size, (uvm_side)r->cap.op, file, r->line, d);
  case REC_ADVISE: return machine_advise(m, r->addr, r->size, (uvm_advice)r->cap.op, file, r->line, d);
  }
  return diag_set(d, file, r->line, "unknown record kind");
}

void machine_reset_counters(machine *m) {
  m->stats = (machine_stats){0};
  m->switched = (machine_stats){0};
  for (unsigned a = 0; a < TRACE_THREAD_MAX; a++) m->agent_stats[a] = (machine_stats){0};
  m->agents_seen = 0;
  m->nphases = 0; /* the open phase goes on, from zero */
  system_reset_stats(m->sys);
}

const machine_stats *machine_get_stats(const machine *m) { return &m->stats; }
const machine_spec *machine_get_spec(const machine *m) { return &m->spec; }
const hwsystem *machine_get_system(const machine *m) { return m->sys; }
void machine_set_observer(machine *m, const mmu_observer *o) { system_set_observer(m->sys, o); }
const pt *machine_get_pt(const machine *m) { return m->ctx[cur_space(m)].table; }
const phys *machine_get_phys(const machine *m) { return m->frames; }
const vas *machine_get_vas(const machine *m) { return m->ctx[cur_space(m)].heap; }
uint64_t machine_default_page_size(const machine *m) { return 1ull << m->page_shift; }

pt_level_usage machine_pt_usage(const machine *m, unsigned level) {
  pt_level_usage sum = {0};
  for (unsigned i = 0; i < m->nctx; i++) {
    pt_level_usage u = pt_usage(m->ctx[i].table, level);
    sum.tables += u.tables;
    sum.bytes += u.bytes;
    sum.tables_peak += u.tables_peak;
    sum.bytes_peak += u.bytes_peak;
  }
  return sum;
}

uint64_t machine_pt_bytes(const machine *m) {
  uint64_t sum = 0;
  for (unsigned i = 0; i < m->nctx; i++) sum += pt_total_bytes(m->ctx[i].table);
  return sum;
}

static int by_seq(const void *a, const void *b) {
  uint64_t x = ((const machine_alloc *)a)->seq, y = ((const machine_alloc *)b)->seq;
  return (x > y) - (x < y);
}

size_t machine_live_allocs(const machine *m, machine_alloc *out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < m->alloc_cap; i++) {
    const live_alloc *a = &m->allocs[i];
    if (!a->used || a->failed || a->ctx != cur_space(m)) continue;
    if (n < max) out[n] = (machine_alloc){.id = a->id, .va = a->va, .size = a->size, .seq = a->seq, .mem = a->mem};
    n++;
  }
  if (n && n <= max) qsort(out, n, sizeof *out, by_seq); /* out may be NULL when max is 0 */
  return n;
}

int machine_alloc_find(const machine *m, uint64_t id, machine_alloc *out) {
  const live_alloc *a = alloc_find(m, id);
  if (!a || a->failed) return -1;
  *out = (machine_alloc){.id = a->id, .va = a->va, .size = a->size, .seq = a->seq, .mem = a->mem};
  return 0;
}
