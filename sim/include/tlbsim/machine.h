/* tlbsim/machine.h — one simulated machine: the pieces wired together and
 * driven by trace records.
 *
 * machine_spec  everything a machine is built from, as plain data: the
 *           page-table format, memory, demand paging, the allocator policy
 *           with every one of its parameters, and the MMU (mmu_config).
 *           machine_spec_read fills it from a cfg, reading each key once and
 *           marking it used, so one spec can build many machines (a sweep,
 *           chase points, explain) without touching the configuration again.
 * machine   the operating system's side: owns the address spaces (a pt, page
 *           table of the configured format, and a vas, allocator policy for
 *           `alloc` records, each), a phys (frames), the live allocations by
 *           id, and a system (system.h: the agents, one per CPU, with their
 *           TLBs, the walker and the memory system). Records carry their
 *           agent as the trace's thread: a thread switch (REC_THREAD t,
 *           which blocks hold in place) moves the records after it to agent
 *           t, a CPU of its own with the TLB levels the configuration gives
 *           it privately (shared_by shares them).
 * machine_stats  what the trace did beyond the MMU's own counters: accesses,
 *           page faults of demand paging, straddling accesses, and per TLB
 *           level the accesses (not translations) that missed there.
 *
 * machine_agent_stats  one agent's share of the machine's counters, for
 *           traces with thread ids; its MMU has its TLB counters. [machine]
 *           address_spaces says whether threads share an address space or
 *           each has its own; each agent has its own current one either way
 *           (a ctx record switches the agent that runs it).
 *
 * machine_phase  the counters at each `mark` record, so reports can show
 *           what every phase of a trace did (at most MACHINE_MAX_PHASES).
 *
 * Managed memory (uvm.h): an allocation's memory is device (cudaMalloc:
 * the allocator policy's, mapped at once), managed (cudaMallocManaged: VA
 * from [uvm] va_base..va_size, mapped by the GPU as the uvm model keeps its
 * residency: 64 KiB pages, or 2 MiB ones for blocks wholly on the GPU),
 * host (pageable malloc memory: the GPU maps none of it) or pinned
 * (cudaMallocHost: the GPU maps it where it is, in the format's smallest
 * pages onto host memory at UVM_HOST_PA + va; not measured). Each address space keeps a
 * uvm_space of its managed ranges, changed through uvm_ops over its own
 * page table, device frames and shootdowns. A GPU access to an unmapped
 * managed page, or a write to a read-duplicated one, is a GPU fault the
 * uvm services (then the access is translated again); host accesses,
 * prefetches and advice go to it through the functions below. Any record
 * but a GPU access ends the open fault batch (the kernel has ended).
 *
 * Demand paging: [machine] demand_paging = auto (default) maps the page of a
 * first touch, counting a page fault, while the trace has had no alloc or
 * map record; on: always; off: an unmapped access is a fault.
 */
#ifndef TLBSIM_MACHINE_H
#define TLBSIM_MACHINE_H

#include "tlbsim/alloctime.h"
#include "tlbsim/config.h"
#include "tlbsim/gpu.h"
#include "tlbsim/phys.h"
#include "tlbsim/pt.h"
#include "tlbsim/system.h"
#include "tlbsim/trace.h"
#include "tlbsim/uvm.h"
#include "tlbsim/vas.h"

typedef enum { DEMAND_AUTO, DEMAND_ON, DEMAND_OFF } machine_demand;

#define MACHINE_POLICY_MAX 32
/* Pages (of the format's smallest size) one record may touch: an access,
 * map, unmap or protect beyond this is an error naming its line, never
 * billions of steps from one short line. 2^24 pages is 64 GiB of 4 KiB
 * pages, about a second of translation. */
#define MACHINE_MAX_RECORD_PAGES (UINT64_C(1) << 24)

typedef struct machine_spec {
  pt_format format;              /* [machine] format: a built-in one or a [format.NAME], by value so
                                    every machine built from the spec owns its copy */
  uint64_t page_size;            /* [machine] page_size: demand paging, map and alloc default */
  uint64_t phys_memory;          /* [machine] phys_memory */
  phys_order frame_order;        /* [machine] frame_order: which free frame a mapping takes */
  bool tables_in_memory;         /* [machine] tables_in_memory: page-table nodes take frames of
                                    phys_memory (else they live outside it, at PT_TABLE_PA_BASE) */
  machine_demand demand;         /* [machine] demand_paging */
  bool thread_spaces;            /* [machine] address_spaces = per-thread: each thread of the trace runs in
                                    the address space of its id (a REC_THREAD t is also a switch to ASID t);
                                    shared (false, the default): threads share the current one */
  uint64_t seed;                 /* [machine] seed: allocator and random replacement */
  char vas_policy[MACHINE_POLICY_MAX]; /* [vas] policy */
  vas_config vas;                /* [vas] every allocator parameter (vas_param_*); capacity = phys_memory */
  system_spec sys;               /* [latency] [mmu] [ptcache] [tlb.*] [pwc.*]: the MMU every agent has,
                                    the memory system below */
  gpu_config gpu;                /* [gpu]: the concurrency model's device (sms 0 without one) */
  uvm_config uvm;                /* [uvm]: managed memory (alloc kind=managed; the driver's rules, the costs);
                                    va_base/va_size filled in from the format when 0 */
  alloctime_config driver;       /* [driver]: what the driver's allocation calls cost (tlbsim alloc) */
  uint64_t max_record_pages;     /* pages one record may touch: MACHINE_MAX_RECORD_PAGES, or
                                    fewer (a harness keeps each input quick); 0 is the default */
} machine_spec;

/* What managed memory did (uvm_counts, the time in whole ns): summed over
 * address spaces, so a phase's and an agent's share are differences. */
typedef struct machine_uvm_stats {
  uint64_t faults;          /* GPU faults serviced */
  uint64_t batches;         /* fault batches */
  uint64_t populated_bytes; /* zero-filled on the GPU (first touches, prefetches of untouched pages) */
  uint64_t to_gpu_bytes;    /* migrated host to GPU by faults */
  uint64_t prefetched_bytes; /* migrated host to GPU by prefetches */
  uint64_t to_host_bytes;   /* migrated GPU to host: host touches, prefetches to the host, evictions */
  uint64_t evicted_bytes;   /* of those, by eviction (device memory full; not measured) */
  uint64_t host_faults;     /* host touches of pages only the GPU held */
  uint64_t remote_maps;     /* big pages the GPU mapped on the host */
  uint64_t fault_ns;        /* the fault path's cost: GPU and host faults, evictions */
  uint64_t prefetch_ns;     /* cudaMemPrefetchAsync calls */
} machine_uvm_stats;

/* Each counter of machine_uvm_stats by its reported name ("faults", ...),
 * in report order, ending with a NULL name: the one list the run report's
 * columns (stats.h: "uvm.NAME") and its phases are written from. */
typedef struct machine_uvm_field {
  const char *name;
  size_t offset; /* into machine_uvm_stats */
} machine_uvm_field;
extern const machine_uvm_field machine_uvm_fields[];

typedef struct machine_stats {
  uint64_t records;
  uint64_t accesses;          /* access records (a straddling one counts once) */
  uint64_t accesses_by_kind[3];
  uint64_t straddles;         /* accesses that touched more than one page */
  uint64_t page_faults;       /* demand-paging faults (pages mapped on first touch) */
  uint64_t faults;            /* accesses that faulted (unmapped or forbidden) */
  uint64_t access_misses[MMU_MAX_LEVELS]; /* accesses with a miss at that level */
  uint64_t kind_misses[3][MMU_MAX_LEVELS]; /* the same by access kind (acc_kind): read, write, fetch */
  uint64_t allocs, frees, maps, unmaps, protects, context_switches, marks;
  uint64_t oom;               /* alloc or map records that found no memory (and GPU faults that found no
                                 device memory, nothing managed left to evict) */
  uint64_t host_accesses;     /* accesses by the host (machine_host_access): not translated by the MMU */
  uint64_t prefetches, advices;
  machine_uvm_stats uvm;
} machine_stats;

/* Counters as they stood when a phase ended (cumulative from the start). */
typedef struct machine_phase {
  char label[TRACE_LABEL_MAX]; /* the mark that opened the phase; "start" for the first */
  uint64_t accesses, walks, faults, page_faults, cycles;
  uint64_t misses[MMU_MAX_LEVELS];
  uint64_t allocs, frees, maps, unmaps; /* a phase of allocations only is not an idle one */
  uint64_t shootdowns;
  uint64_t host_accesses;
  machine_uvm_stats uvm;
} machine_phase;

#define MACHINE_MAX_PHASES 4096

typedef struct machine machine;

/* Reads sections machine, format.NAME (the one [machine] format names),
 * latency, mmu, ptcache, vas, tlb.* and pwc.* into
 * *s. Keys it does not know are left unused for cfg_check_unused. */
int machine_spec_read(cfg *c, machine_spec *s, diag *d);
/* The key tables of [machine] and [vas] (the allocator's parameters are the
 * vas module's: vas_param_at), i = 0, 1, ... until NULL. */
const cfg_keys *machine_spec_keys(size_t i);
machine *machine_create(const machine_spec *s, diag *d);
void machine_destroy(machine *m);
/* Applies one record; `file` names the trace in errors. */
int machine_apply(machine *m, const trace_record *r, const char *file, diag *d);
/* Applies a block's records in order: the replay's hot path. */
int machine_run_block(machine *m, const trace_block *b, const char *file, diag *d);
/* Replays the rest of r through m, block by block, calling each_block (when
 * given) after every block; 0 at the trace's end, -1 on an error (d), 1
 * when each_block returned non-zero (the caller stops the replay there: an
 * interrupt). */
int machine_replay(machine *m, trace_reader *r, int (*each_block)(void *ctx), void *ctx, diag *d);

/* Where a record goes: machine_apply, or a wrapper of it (the per-access
 * log applies each record and prints what it did). 0, -1 (d), or 1: the
 * record was applied and the replay stops there (an interrupt). */
typedef int (*machine_record_fn)(void *ctx, const trace_record *r, const char *file, diag *d);
/* Replays n traces as CPUs 0..n-1 (n at most TRACE_THREAD_MAX): they take
 * turns, one access each (with the records before it), each turn after a
 * switch to its CPU, until all have ended. Each record goes to apply(ctx,
 * ...), or with apply NULL to machine_apply(m, ...). A thread id inside
 * one of the traces is an error. 0, -1 (d), or 1 when apply stopped it. */
int machine_replay_cpus(machine *m, trace_reader **r, unsigned n, machine_record_fn apply, void *ctx, diag *d);

/* The records of managed memory, for any caller (machine_apply's records
 * come here too); `file` and `line` name the record in errors. Each is 0,
 * or -1 (d) for what a program could not have done: a range that wraps or
 * lies beyond the format's addresses; a prefetch or advice of memory that
 * is not (or no longer) managed; a host access to device memory.
 *
 * machine_alloc_memory  alloc record r as memory `kind` (machine_apply's
 *   alloc: its kind=). A managed, host or pinned one with va= (a captured
 *   program's: where the driver put it) is placed there, which for a
 *   managed one must be a multiple of [uvm] va_block. A managed or pinned one larger
 *   than the [uvm] VA range is an error; one finding no room left there
 *   an OOM, as a device one finding no memory.
 * machine_host_access  the host reads or writes [va, va + size): managed
 *   pages move back (uvm_host_access); pinned and host memory only count.
 * machine_prefetch  cudaMemPrefetchAsync of managed [va, va + size) to `to`.
 * machine_advise  cudaMemAdvise of managed [va, va + size). */
int machine_alloc_memory(machine *m, const trace_record *r, trace_mem_kind kind, const char *file, diag *d);
int machine_host_access(machine *m, uint64_t va, uint64_t size, bool write, const char *file, unsigned long line,
                        diag *d);
int machine_prefetch(machine *m, uint64_t va, uint64_t size, uvm_side to, const char *file, unsigned long line,
                     diag *d);
int machine_advise(machine *m, uint64_t va, uint64_t size, uvm_advice a, const char *file, unsigned long line,
                   diag *d);
/* What the GPU maps of the managed block holding va in the current
 * address space (uvm_block_get): 0, or -1 when va is not managed. */
int machine_uvm_block(const machine *m, uint64_t va, uvm_block_state *out);

/* A live allocation: what an `alloc` record got and where. */
typedef struct machine_alloc {
  uint64_t id, va, size;
  uint64_t seq; /* allocation order */
  trace_mem_kind mem;  /* what memory it is (trace.h: alloc kind=) */
} machine_alloc;

/* The live allocations of the current address space (not those that hit
 * OOM), in the order they were allocated: returns how many there are;
 * fills out (in order) when they fit in max. */
size_t machine_live_allocs(const machine *m, machine_alloc *out, size_t max);
/* The live allocation id (any address space): 0, or -1 when it is not
 * live or found no memory. */
int machine_alloc_find(const machine *m, uint64_t id, machine_alloc *out);

/* Zeroes every count (the machine's, each agent's, each MMU's and TLB
 * level's; the phases closed so far) and keeps every state (TLB and
 * walk-cache contents, page tables, allocations) and every level (tables
 * and memory in use, their peaks): what follows a warm-up is counted as
 * if the replay started there. */
void machine_reset_counters(machine *m);
const machine_stats *machine_get_stats(const machine *m);
/* The agents (the trace's threads) that made accesses, bit a for agent a;
 * 0 for a trace that named no thread. */
uint64_t machine_agents(const machine *m);
/* Agent a's share of the machine's counters so far (its TLB counters are
 * its MMU's: system_agent_mmu). */
void machine_agent_stats(const machine *m, unsigned a, machine_stats *out);
const machine_spec *machine_get_spec(const machine *m);
/* The phases of a replay that had marks (none otherwise): each mark
 * closes one, and the last is open, running to now. Pure reads: a report
 * taken mid-replay changes nothing, and the replay goes on. */
size_t machine_phase_count(const machine *m);
/* Phase i (< machine_phase_count) into out; the last one as it stands now. */
void machine_phase_get(const machine *m, size_t i, machine_phase *out);
const hwsystem *machine_get_system(const machine *m);
/* Events of every agent's MMU go to o (copied) from now on; NULL: none
 * (mmu_set_observer). The per-access log watches a replay through it. */
void machine_set_observer(machine *m, const mmu_observer *o);
const pt *machine_get_pt(const machine *m);
const phys *machine_get_phys(const machine *m);
const vas *machine_get_vas(const machine *m);
uint64_t machine_default_page_size(const machine *m);
/* Page-table usage summed over every address space. */
pt_level_usage machine_pt_usage(const machine *m, unsigned level);
uint64_t machine_pt_bytes(const machine *m);

#endif
