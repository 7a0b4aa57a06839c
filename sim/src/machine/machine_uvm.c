/* machine_uvm.c — managed, host and pinned memory in the machine (see
 * tlbsim/machine.h): each address space's uvm_space and its heap of [uvm]
 * VA, the uvm_ops over the space's page table, frames and shootdowns, the
 * GPU's faults on managed pages, host touches, prefetches and advice. */
#include "machine_impl.h"

#include <stddef.h>

#define UVM_FIELD(f) {#f, offsetof(machine_uvm_stats, f)}
const machine_uvm_field machine_uvm_fields[] = {
    UVM_FIELD(faults),        UVM_FIELD(batches),       UVM_FIELD(populated_bytes), UVM_FIELD(to_gpu_bytes),
    UVM_FIELD(prefetched_bytes), UVM_FIELD(to_host_bytes), UVM_FIELD(evicted_bytes), UVM_FIELD(host_faults),
    UVM_FIELD(remote_maps),   UVM_FIELD(fault_ns),      UVM_FIELD(prefetch_ns),     {NULL, 0}};

/* uvm_ops over one address space: its page table, the device's frames,
 * shootdowns on every agent. */
static int uvm_map_op(void *ctx, uint64_t va, uint64_t pa, unsigned shift, bool writable, diag *d) {
  context *x = ctx;
  int rc = pt_map(x->table, va, pa, shift, writable ? PT_R | PT_W : PT_R, d);
  return rc ? machine_map_failed(x->owner, rc, d) : 0;
}

static void uvm_unmap_op(void *ctx, uint64_t va, unsigned shift) {
  context *x = ctx;
  if (!pt_unmap(x->table, va, NULL)) system_shootdown(x->owner->sys, va, shift, x->asid);
}

static int uvm_frame_op(void *ctx, unsigned shift, uint64_t *pa) {
  context *x = ctx;
  int rc = phys_alloc(x->owner->frames, shift, pa);
  if (rc == PHYS_NO_HOST_MEMORY) x->owner->host_oom = true;
  return rc;
}

static void uvm_free_op(void *ctx, uint64_t pa, unsigned shift) {
  context *x = ctx;
  phys_free(x->owner->frames, pa, shift);
}

/* The VA of managed, host and pinned allocations is only reserved: the uvm
 * maps managed pages as they become resident, pinned ones are mapped by
 * map_pinned. */
static int reserve_only(void *ctx, uint64_t va, uint64_t size, unsigned page_shift, diag *d) {
  (void)ctx, (void)va, (void)size, (void)page_shift, (void)d;
  return 0;
}

static void release_only(void *ctx, uint64_t va, uint64_t size, unsigned page_shift) {
  (void)ctx, (void)va, (void)size, (void)page_shift;
}

/* Address space x's heap of [uvm] VA and its uvm, made on first use: the
 * format must have pages of the big-page and VA-block sizes. */
static int uvm_setup(machine *m, context *x, diag *d) {
  if (x->uvm) return 0;
  const uvm_config *u = &m->spec.uvm;
  if (!u->va_size) return diag_set(d, NULL, 0, "format %s has no room for a [uvm] VA range", m->format->name);
  if (pt_format_leaf_level(m->format, log2_u64(u->big_page)) < 0 ||
      pt_format_leaf_level(m->format, log2_u64(u->va_block)) < 0)
    return diag_set(d, NULL, 0, "format %s has no %llu-byte or %llu-byte page for managed memory ([uvm] big_page, "
                    "va_block)", m->format->name, (unsigned long long)u->big_page, (unsigned long long)u->va_block);
  vas_config vc = {.va_base = u->va_base, .va_size = u->va_size, .page_size = u->va_block,
                   .phys_capacity = u->va_size < VAS_MAX_CAPACITY ? u->va_size : VAS_MAX_CAPACITY};
  vas_hooks hooks = {.ctx = x, .map = reserve_only, .unmap = release_only};
  uvm_ops ops = {.ctx = x, .map = uvm_map_op, .unmap = uvm_unmap_op, .frame_alloc = uvm_frame_op,
                 .frame_free = uvm_free_op};
  if (!(x->host_heap = vas_create("first-fit", &vc, &hooks, d))) return -1;
  x->uvm = uvm_create(u, &ops);
  x->pack = u->pack_grain ? uvm_pack_create(u->va_block, u->pack_grain) : NULL;
  if (!x->uvm || (u->pack_grain && !x->pack)) {
    uvm_destroy(x->uvm);
    vas_destroy(x->host_heap);
    x->uvm = NULL, x->host_heap = NULL;
    return diag_set(d, NULL, 0, "out of memory");
  }
  return 0;
}

/* What one uvm operation did, into the machine's counts. */
static void note_uvm(machine *m, const uvm_counts *c) {
  uvm_counts_add(&m->uvm_total, c);
  const uvm_counts *t = &m->uvm_total;
  m->stats.uvm = (machine_uvm_stats){.faults = t->faults, .batches = t->batches,
                                     .populated_bytes = t->populated_bytes, .to_gpu_bytes = t->to_gpu_bytes,
                                     .prefetched_bytes = t->prefetched_bytes, .to_host_bytes = t->to_host_bytes,
                                     .evicted_bytes = t->evicted_bytes,
                                     .host_faults = t->host_faults, .remote_maps = t->remote_maps,
                                     .fault_ns = (uint64_t)(t->fault_ns + 0.5),
                                     .prefetch_ns = (uint64_t)(t->prefetch_ns + 0.5)};
}

/* The current address space's uvm when va is managed memory, else NULL. */
static uvm_space *managed_at(machine *m, uint64_t va) {
  uvm_space *u = m->ctx[cur_space(m)].uvm;
  return u && uvm_contains(u, va) ? u : NULL;
}

/* A GPU access found va unmapped (or, writing, read-only): when va is
 * managed (*handled), the uvm services the fault. true when va is mapped
 * for the access now; false when no device memory is left (an OOM) or the
 * host had none (host_oom). */
bool machine_managed_fault(machine *m, uint64_t va, acc_kind kind, bool *handled) {
  uvm_space *u = managed_at(m, va);
  *handled = u != NULL;
  if (!u) return false;
  uvm_counts c = {0};
  diag why;
  int rc = uvm_gpu_fault(u, va, kind == ACC_WRITE, &c, &why);
  note_uvm(m, &c);
  if (rc < 0 && !m->host_oom) m->stats.oom++;
  return rc > 0;
}

/* A protection fault of a write to a read-duplicated managed page: the
 * uvm makes it writable, and the access is translated again. */
void machine_retry_managed(machine *m, uint64_t va, acc_kind kind, mmu_outcome *o) {
  bool handled;
  if (kind == ACC_WRITE && machine_managed_fault(m, va, kind, &handled)) mmu_translate(m->cpu, va, kind, o);
}

/* Ends the open fault batch of every address space: a record that is not
 * a GPU access ends the kernel. */
void machine_uvm_sync_all(machine *m) {
  for (unsigned i = 0; i < m->nctx; i++)
    if (m->ctx[i].uvm) uvm_sync(m->ctx[i].uvm);
}

static void unmap_pinned(machine *m, uint64_t va, uint64_t size) {
  uint64_t first, pages = trace_pages(va, size, m->min_shift, &first);
  for (uint64_t i = 0; i < pages; i++)
    if (!pt_unmap(cur_table(m), (first + i) << m->min_shift, NULL))
      system_shootdown(m->sys, (first + i) << m->min_shift, m->min_shift, m->ctx[cur_space(m)].asid);
}

/* Pinned [va, va + size) for the GPU, where it is (host memory at
 * UVM_HOST_PA + va), in the format's smallest pages: host memory is
 * pinned page by page, contiguous no further (not measured). All or
 * nothing. */
static int map_pinned(machine *m, uint64_t va, uint64_t size, diag *d) {
  uint64_t first, pages = trace_pages(va, size, m->min_shift, &first);
  if (pages > m->max_pages)
    return diag_set(d, NULL, 0, "pinned alloc of %llu bytes maps %llu pages, more than the %llu one record may",
                    (unsigned long long)size, (unsigned long long)pages, (unsigned long long)m->max_pages);
  for (uint64_t i = 0; i < pages; i++) {
    uint64_t pva = (first + i) << m->min_shift;
    int rc = pt_map(cur_table(m), pva, UVM_HOST_PA + (pva & (UVM_HOST_PA - 1)), m->min_shift, PT_R | PT_W, d);
    if (rc) {
      if (i) unmap_pinned(m, first << m->min_shift, i << m->min_shift); /* the pages mapped so far */
      return machine_map_failed(m, rc, d);
    }
  }
  return 0;
}

/* Whether a is a small managed allocation the runtime packs into a block. */
static bool packed(const context *x, const live_alloc *a) {
  return a->mem == TRACE_MEM_MANAGED && x->pack && uvm_pack_takes(x->pack, a->size);
}

/* A packed allocation's VA (the first room in a block, a new block from
 * the [uvm] heap, or the record's va=) and, for a new block, its managed
 * range: the block, as the runtime hands the driver whole blocks. */
static int alloc_packed(machine *m, context *x, live_alloc *a, diag *d) {
  uint64_t block = m->spec.uvm.va_block;
  bool owned = !a->placed && !uvm_pack_find(x->pack, a->size, &a->va), fresh;
  if (owned) {
    int rc = vas_alloc(x->host_heap, block, 0, 0, &a->va, d);
    if (rc) return rc;
  }
  if (uvm_pack_add(x->pack, a->va, a->size, owned, &fresh, d)) {
    if (owned) vas_free(x->host_heap, a->va, NULL);
    return -1;
  }
  if (fresh && uvm_range_add(x->uvm, a->va & ~(block - 1), block, d)) {
    uvm_pack_block gone;
    bool emptied;
    uvm_pack_remove(x->pack, a->va, &emptied, &gone, NULL);
    if (owned) vas_free(x->host_heap, gone.va, NULL);
    return -1;
  }
  return 0;
}

/* Frees a packed allocation; the last of its block takes the block (its
 * managed range, and its VA when the heap gave it). */
static int free_packed(context *x, live_alloc *a, diag *d) {
  uvm_pack_block gone;
  bool emptied;
  if (uvm_pack_remove(x->pack, a->va, &emptied, &gone, d)) return -1;
  if (!emptied) return 0;
  if (uvm_range_remove(x->uvm, gone.va, d)) return -1;
  return gone.owned ? vas_free(x->host_heap, gone.va, d) : 0;
}

/* A managed, host or pinned allocation's VA (from the [uvm] heap, or the
 * record's va=) and its managed range or GPU mapping: 0, VAS_OOM when the
 * heap has no room, or -1 (d). */
int machine_alloc_uvm_va(machine *m, live_alloc *a, const trace_record *r, diag *d) {
  context *x = &m->ctx[cur_space(m)];
  const uvm_config *u = &m->spec.uvm;
  if (uvm_setup(m, x, d)) return -1;
  uint64_t rounded;
  if (!num_round_up(a->size, u->va_block, &rounded) || rounded > u->va_size)
    return diag_set(d, NULL, 0, "%s alloc of %llu bytes is larger than the [uvm] VA range (va_size %#llx)",
                    trace_mem_kind_names[a->mem], (unsigned long long)a->size, (unsigned long long)u->va_size);
  a->placed = r->cap.attrs & TRACE_HAS_VA;
  int rc = 0;
  if (a->placed) {
    a->va = r->cap.va;
    if (a->mem == TRACE_MEM_MANAGED && a->va % u->va_block && !packed(x, a))
      return diag_set(d, NULL, 0, "managed alloc at va=%#llx: not a multiple of the %llu-byte VA block residency "
                      "is kept by ([uvm] va_block; allocations smaller than one are packed only with [uvm] "
                      "pack_grain)", (unsigned long long)a->va, (unsigned long long)u->va_block);
    if (a->va + (rounded - 1) < a->va || beyond_va_bits(m, a->va, rounded))
      return diag_set(d, NULL, 0, "%s alloc at va=%#llx+%#llx lies beyond the %u-bit addresses of format %s",
                      trace_mem_kind_names[a->mem], (unsigned long long)a->va, (unsigned long long)rounded,
                      m->format->va_bits, m->format->name);
  }
  if (packed(x, a)) return alloc_packed(m, x, a, d);
  if (!a->placed) rc = vas_alloc(x->host_heap, a->size, r->align, 0, &a->va, d);
  if (rc) return rc;
  if (a->mem == TRACE_MEM_MANAGED) rc = uvm_range_add(x->uvm, a->va, a->size, d);
  if (a->mem == TRACE_MEM_PINNED) rc = map_pinned(m, a->va, a->size, d);
  if (rc && !a->placed) vas_free(x->host_heap, a->va, NULL);
  return rc;
}

/* Frees what machine_alloc_uvm_va made. */
int machine_free_uvm_va(machine *m, live_alloc *a, diag *d) {
  context *x = &m->ctx[a->ctx];
  if (packed(x, a)) return free_packed(x, a, d);
  if (a->mem == TRACE_MEM_MANAGED && uvm_range_remove(x->uvm, a->va, d)) return -1;
  if (a->mem == TRACE_MEM_PINNED) unmap_pinned(m, a->va, a->size);
  return a->placed ? 0 : vas_free(x->host_heap, a->va, d);
}

int machine_uvm_block(const machine *m, uint64_t va, uvm_block_state *out) {
  const uvm_space *u = m->ctx[cur_space(m)].uvm;
  return u ? uvm_block_get(u, va, out) : -1;
}

/* A managed range's record ([va, va + size) not wrapping, within the
 * format): its uvm, or NULL (d) naming what. */
static uvm_space *managed_range(machine *m, const char *what, uint64_t va, uint64_t size, const char *file,
                                unsigned long line, diag *d) {
  if (!size) return diag_set(d, file, line, "%s of %#llx: the size is 0", what, (unsigned long long)va), NULL;
  if (check_wrap(what, va, size, file, line, d)) return NULL;
  if (beyond_va_bits(m, va, size)) return machine_width_error(m, va, size, file, line, d), NULL;
  uvm_space *u = m->ctx[cur_space(m)].uvm;
  diag why;
  if (!u) return diag_set(d, file, line, "%s of %#llx+%#llx: %#llx is not managed memory (no kind=managed allocation "
                          "was made)", what, (unsigned long long)va, (unsigned long long)size,
                          (unsigned long long)va), NULL;
  if (uvm_check_range(u, va, size, &why))
    return diag_set(d, file, line, "%s of %#llx+%#llx: %s", what, (unsigned long long)va, (unsigned long long)size,
                    why.msg), NULL;
  return u;
}

/* What one uvm operation on [va, va + size) did goes into the counts;
 * its error (why) is named by the record. */
static int uvm_result(machine *m, const uvm_counts *c, int rc, const diag *why, const char *what, uint64_t va,
                      uint64_t size, const char *file, unsigned long line, diag *d) {
  note_uvm(m, c);
  return rc ? diag_set(d, file, line, "%s of %#llx+%#llx: %s", what, (unsigned long long)va, (unsigned long long)size,
                       why->msg) : 0;
}

int machine_prefetch(machine *m, uint64_t va, uint64_t size, uvm_side to, const char *file, unsigned long line,
                     diag *d) {
  uvm_space *u = managed_range(m, "prefetch", va, size, file, line, d);
  if (!u) return -1;
  m->stats.prefetches++;
  uvm_counts c = {0};
  diag why;
  int rc = uvm_prefetch(u, va, size, to, &c, &why);
  return uvm_result(m, &c, rc, &why, "prefetch", va, size, file, line, d);
}

int machine_advise(machine *m, uint64_t va, uint64_t size, uvm_advice a, const char *file, unsigned long line,
                   diag *d) {
  if ((unsigned)a >= UVM_ADVICE_COUNT) return diag_set(d, file, line, "advice %u is not one of cudaMemAdvise's", a);
  uvm_space *u = managed_range(m, "advise", va, size, file, line, d);
  if (!u) return -1;
  m->stats.advices++;
  uvm_counts c = {0};
  diag why;
  int rc = uvm_advise(u, va, size, a, &c, &why);
  return uvm_result(m, &c, rc, &why, "advise", va, size, file, line, d);
}

int machine_host_access(machine *m, uint64_t va, uint64_t size, bool write, const char *file, unsigned long line,
                        diag *d) {
  if (!size) size = 1;
  if (check_wrap("host access", va, size, file, line, d)) return -1;
  if (beyond_va_bits(m, va, size)) return machine_width_error(m, va, size, file, line, d);
  m->stats.host_accesses++;
  uvm_space *u = managed_at(m, va);
  pt_mapping map;
  if (!u) { /* host or pinned memory, or memory the trace never allocated: the host's own */
    if (pt_lookup(cur_table(m), va, &map) && map.pa < UVM_HOST_PA)
      return diag_set(d, file, line, "host access to %#llx: it is device memory, which the host cannot touch",
                      (unsigned long long)va);
    return 0;
  }
  uvm_counts c = {0};
  diag why;
  int rc = uvm_host_access(u, va, size, write, &c, &why);
  return uvm_result(m, &c, rc, &why, "host access", va, size, file, line, d);
}

