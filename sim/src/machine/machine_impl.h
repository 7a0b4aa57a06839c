/* machine_impl.h — the machine's own structs and what its two files share
 * (machine.c: the OS side and records; machine_uvm.c: managed memory).
 * Private to sim/src/machine/. */
#ifndef TLBSIM_MACHINE_IMPL_H
#define TLBSIM_MACHINE_IMPL_H

#include "tlbsim/machine.h"
#include "tlbsim/uvm_pack.h"

#define MACHINE_MAX_CONTEXTS 64

typedef struct live_alloc {
  uint64_t id, va, size;
  uint64_t seq; /* its place among the machine's allocations, for listing them in order */
  unsigned ctx; /* address space it lives in */
  trace_mem_kind mem;
  bool placed; /* at its record's va= (not the [uvm] heap's choice) */
  bool failed; /* the allocation hit OOM: accesses to it fault */
  bool used;   /* slot in use (open addressing) */
  bool tomb;   /* slot freed; keeps probe chains intact */
} live_alloc;

typedef struct machine_ctx context;

/* One address space: its page table and its allocator; from its first
 * managed, host or pinned allocation on, a heap of [uvm] VA for them and
 * the uvm's record of its managed ranges (uvm_ops over this context). */
struct machine_ctx {
  uint32_t asid;
  pt *table;
  vas *heap;
  vas *host_heap;
  uvm_space *uvm;
  uvm_pack *pack; /* the runtime's blocks of small managed allocations ([uvm] pack_grain; else NULL) */
  machine *owner;
};

struct machine {
  machine_spec spec;
  uint64_t max_pages;  /* pages one record may touch */
  uint64_t hook_pages; /* a map hook refused a mapping of this many pages: past max_pages */
  const pt_format *format;
  phys *frames;
  hwsystem *sys;      /* the agents (CPUs) and what they share */
  mmu *cpu;         /* the current agent's MMU: what accesses translate through */
  unsigned agent;   /* the current agent: the trace's current thread */
  context ctx[MACHINE_MAX_CONTEXTS];
  unsigned nctx;
  uint8_t space[TRACE_THREAD_MAX]; /* each agent's current address space (index into ctx) */
  machine_demand demand;
  bool saw_layout;  /* an alloc or map record was seen (ends auto demand paging) */
  unsigned page_shift;
  unsigned min_shift;
  uint64_t min_page;
  bool serves[3];   /* by acc_kind: some TLB level serves it (else it is not simulated) */
  machine_phase *phases; /* the closed phases (the open one is the counters now) */
  size_t nphases;
  char open_label[TRACE_LABEL_MAX];
  live_alloc *allocs; /* hash table by id */
  size_t alloc_cap, alloc_used; /* live entries */
  size_t alloc_filled;          /* live entries and tombstones: what keeps probes finite */
  machine_stats stats;
  machine_stats agent_stats[TRACE_THREAD_MAX]; /* each agent's counters up to its last switch away */
  machine_stats switched;                      /* the machine's counters at the last switch */
  uint64_t agents_seen;                        /* bit a: agent a made accesses before a switch */
  bool threaded;                               /* the trace named a thread */
  bool fresh; /* the address space the machine starts in (ASID 0) has seen no record: a trace that
                 opens with `ctx N` takes it as N's, so no unused root table counts in any report */
  uvm_counts uvm_total;  /* every address space's uvm operations (stats.uvm: their counts, ns rounded) */
  bool host_oom; /* a map found no host memory inside a simulated event (a demand fault, an allocator's
                    map): the record is an error, not a fault or an OOM of the simulated machine */
};

/* The current agent's address space (index into ctx) and its page table. */
static inline unsigned cur_space(const machine *m) { return m->space[m->agent]; }
static inline pt *cur_table(machine *m) { return m->ctx[cur_space(m)].table; }

/* Whether [va, va + size) holds an address the format does not have (with
 * sign extension, a range may not cross from the low half to the high). */
static inline bool beyond_va_bits(const machine *m, uint64_t va, uint64_t size) {
  return !pt_format_va_ok(m->format, va) || !pt_format_va_ok(m->format, va + (size - 1)); /* readers refuse wraps */
}

/* [va, va + size) must not wrap past 2^64: the readers refuse such ranges;
 * machine_apply takes records from any caller. */
static inline int check_wrap(const char *what, uint64_t va, uint64_t size, const char *file, unsigned long line,
                             diag *d) {
  if (!size || va + (size - 1) >= va) return 0;
  return diag_set(d, file, line, "%s of %#llx+%#llx wraps past the top of memory", what, (unsigned long long)va,
                  (unsigned long long)size);
}

/* machine.c */
/* What a pt_map that returned rc means (an OOM of the simulated machine,
 * the host's, or pt_map's own error): -1 with d set. */
int machine_map_failed(machine *m, int rc, diag *d);
/* [va, va + size) lies beyond the format's addresses: -1, d naming why. */
int machine_width_error(const machine *m, uint64_t va, uint64_t size, const char *file, unsigned long line, diag *d);

/* machine_uvm.c */
/* A GPU access found va unmapped (or, writing, read-only): when va is
 * managed (*handled), the uvm services the fault; true when va is mapped
 * for the access now. */
bool machine_managed_fault(machine *m, uint64_t va, acc_kind kind, bool *handled);
/* A protection fault of a write to a read-duplicated managed page: the
 * uvm makes it writable, and *o is the access translated again. */
void machine_retry_managed(machine *m, uint64_t va, acc_kind kind, mmu_outcome *o);
/* Ends the open fault batch of every address space. */
void machine_uvm_sync_all(machine *m);
/* A managed, host or pinned allocation's VA and its range or mapping: 0,
 * VAS_OOM, or -1 (d); and what frees them. */
int machine_alloc_uvm_va(machine *m, live_alloc *a, const trace_record *r, diag *d);
int machine_free_uvm_va(machine *m, live_alloc *a, diag *d);

#endif
