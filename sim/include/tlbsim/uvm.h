/* tlbsim/uvm.h — managed memory (cudaMallocManaged) as NVIDIA's UVM driver
 * keeps it: where each page of a managed range lives, what a GPU fault, a
 * host touch, a prefetch or an advice does to it, which pages the GPU maps
 * for each state, and what all of it costs. Owned by the OS side (the
 * machine; chase and `tlbsim uvm` over a bare page table): the page table
 * and the frames stay the owner's, changed through uvm_ops.
 *
 * uvm_config   [uvm]: the driver's own rules (kernel-open/nvidia-uvm/ of
 *              NVIDIA's open GPU kernel modules: VA block and big-page size,
 *              fault batch, prefetch threshold, thrashing detection) and the
 *              costs measured by the GPU suite (gpu/results/h200/run4/uvm.csv),
 *              each key's source in sim/presets/h200.ini.
 * uvm_space    one address space's managed ranges. Per VA block (2 MiB,
 *              UVM_VA_BLOCK_BITS 21) bitmaps of its big pages (64 KiB,
 *              UVM_BIG_PAGE_SIZE): resident on the GPU, on the host (both:
 *              read-duplicated), mapped by the GPU, mapped remotely (the GPU
 *              maps host memory); the advice given to each big page; the
 *              block's GPU chunk (a 2 MiB frame of device memory, taken at
 *              the block's first GPU residency, as the driver allocates one
 *              chunk per whole block); its place in the eviction order.
 * uvm_ops      what the owner does for it: map and unmap one GPU page (the
 *              unmap a shootdown too), take and give back device frames.
 * uvm_counts   what operations did: GPU faults, the batches they were
 *              serviced in, bytes populated (zero-filled on first touch),
 *              migrated each way, prefetched, evicted; host faults; and the
 *              time they cost (ns), summed by whoever reports them.
 *
 * The rules, each the driver's (file and constant in the preset):
 *  - A GPU fault on a big page not resident there brings the whole big page
 *    (uvm_perf_prefetch.c grow_fault_granularity: faults grow to big pages),
 *    then the prefetch tree: over the block's big pages, the largest aligned
 *    subtree round the faulting page whose resident-or-faulted share exceeds
 *    prefetch_threshold percent (UVM_PREFETCH_THRESHOLD_DEFAULT 51) is
 *    brought too — not when the pages would leave their preferred location.
 *    A page never touched is populated (zero-filled) on the GPU, one
 *    resident on the host migrates.
 *  - The GPU maps a block with one 2 MiB page when every big page of it is
 *    resident on the GPU in the block's own 2 MiB chunk
 *    (uvm_va_block.c: a 2M PTE needs the block fully resident in a 2M
 *    chunk), else each resident big page with a 64 KiB page.
 *  - Faults are serviced in batches of fault_batch
 *    (UVM_PERF_FAULT_BATCH_COUNT_DEFAULT 256): a batch costs batch_us, each
 *    block it services block_us, each fault fault_us (more when it
 *    migrates: migrate_fault_us), and the bytes their rates. Here a fault is
 *    serviced as it comes (the access that faulted goes on translated) and a
 *    batch closes after fault_batch faults or at uvm_sync (any record that
 *    is not a GPU access: the kernel has ended).
 *  - A host touch of a GPU-resident big page moves it back (a host fault),
 *    splitting a 2 MiB mapping into the 64 KiB pages that stay.
 *  - cudaMemPrefetchAsync moves a range at prefetch_gbps; whole blocks end
 *    mapped as 2 MiB pages.
 *  - Advice (cudaMemAdvise): preferred location (a GPU fault on a page
 *    preferred on the host maps it remotely instead of migrating it; the
 *    prefetch tree never moves pages away from it), accessed-by (the GPU
 *    maps host-resident pages remotely without a fault), read-mostly (a GPU
 *    read copies the page and leaves the host's copy; a write by either
 *    side invalidates the other's).
 *  - Not measured, modelled from the driver's sources and marked so:
 *    thrashing (a page migrated thrashing_threshold times, each within
 *    thrashing_lapse_us of the last, is pinned on the host and mapped
 *    remotely for thrashing_pin_ms), eviction when device memory is full
 *    (the block whose chunk was least recently filled goes back to the
 *    host: uvm_pmm_gpu.c pick_root_chunk_to_evict), the host-side costs.
 * Time is the uvm's own clock: the cost of its operations so far.
 */
#ifndef TLBSIM_UVM_H
#define TLBSIM_UVM_H

#include "tlbsim/config.h"
#include "tlbsim/phys.h"
#include "tlbsim/pt.h"

/* Where a page is or goes. */
typedef enum { UVM_GPU, UVM_HOST } uvm_side;
extern const char *const uvm_side_names[]; /* "gpu", "host", NULL */

/* cudaMemAdvise's advice, by the trace's names (uvm_advice_names). */
typedef enum {
  UVM_READ_MOSTLY, UVM_UNSET_READ_MOSTLY, UVM_PREFERRED_GPU, UVM_PREFERRED_HOST, UVM_UNSET_PREFERRED,
  UVM_ACCESSED_BY_GPU, UVM_ACCESSED_BY_HOST, UVM_UNSET_ACCESSED_BY_GPU, UVM_UNSET_ACCESSED_BY_HOST, UVM_ADVICE_COUNT
} uvm_advice;
extern const char *const uvm_advice_names[]; /* NULL-terminated */

/* The most big pages a block may have (its bitmaps are 64-bit words). */
#define UVM_MAX_BIG_PAGES 64

typedef struct uvm_config {
  uint64_t va_block;          /* 2 MiB: UVM_VA_BLOCK_BITS 21 */
  uint64_t big_page;          /* 64 KiB: UVM_BIG_PAGE_SIZE */
  uint32_t prefetch_threshold; /* percent */
  uint32_t fault_batch;       /* faults per batch */
  uint32_t thrashing_threshold;
  double thrashing_lapse_us, thrashing_pin_ms;
  double batch_us, block_us, fault_us, migrate_fault_us; /* the fault path */
  double populate_gbps, migrate_gbps;                    /* bytes a fault zero-fills, migrates to the GPU */
  double prefetch_us, prefetch_gbps;                     /* cudaMemPrefetchAsync: per call, host to GPU */
  double host_fault_us, to_host_gbps;                    /* a host touch of a GPU page; bytes back to the host */
  uint64_t pack_grain;        /* small managed allocations packed into blocks in these granules (0: not) */
  uint64_t va_base, va_size;  /* where managed (and host) allocations get their VA */
} uvm_config;

/* Reads [uvm] into *out (its defaults without one: the driver's rules,
 * no costs). */
int uvm_config_read(cfg *c, uvm_config *out, diag *d);
const cfg_keys *uvm_config_keys(void);
/* The defaults, as uvm_config_read gives them for no [uvm] section. */
void uvm_config_default(uvm_config *out);

typedef struct uvm_counts {
  uint64_t faults;          /* GPU faults serviced */
  uint64_t batches;         /* fault batches opened */
  uint64_t block_services;  /* (batch, block) pairs: what the driver locks and services */
  uint64_t populated_bytes; /* zero-filled on the GPU: first touches and prefetches of untouched pages */
  uint64_t to_gpu_bytes;    /* migrated host to GPU by faults */
  uint64_t prefetched_bytes; /* migrated host to GPU by prefetches */
  uint64_t to_host_bytes;   /* migrated GPU to host: host touches, prefetches to the host, evictions */
  uint64_t evicted_bytes;   /* of those, by eviction */
  uint64_t host_faults;     /* host touches of pages resident on the GPU only */
  uint64_t remote_maps;     /* big pages the GPU mapped where they are, on the host */
  uint64_t thrashing_pins;
  double fault_ns;          /* the fault path's cost: GPU and host faults, evictions */
  double prefetch_ns;       /* cudaMemPrefetchAsync calls */
} uvm_counts;

/* a += b. */
void uvm_counts_add(uvm_counts *a, const uvm_counts *b);

typedef struct uvm_ops {
  void *ctx;
  /* Maps one GPU page of 2^shift bytes at va onto pa, writable or not;
   * 0, or -1 (d). */
  int (*map)(void *ctx, uint64_t va, uint64_t pa, unsigned shift, bool writable, diag *d);
  /* Unmaps the GPU page of 2^shift bytes at va (and shoots it down). */
  void (*unmap)(void *ctx, uint64_t va, unsigned shift);
  /* A frame of 2^shift bytes of device memory: 0, or -1 when none is free. */
  int (*frame_alloc)(void *ctx, unsigned shift, uint64_t *pa);
  void (*frame_free)(void *ctx, uint64_t pa, unsigned shift);
} uvm_ops;

/* uvm_ops over a bare page table and frames (chase points, `tlbsim uvm`,
 * tests): no TLBs to shoot down. The struct outlives the space. */
typedef struct uvm_table {
  pt *table;
  phys *frames;
} uvm_table;
uvm_ops uvm_table_ops(uvm_table *t);

/* Host memory the GPU maps remotely sits at physical addresses from here
 * (the host's, not device frames): pa = UVM_HOST_PA + the page's VA. */
#define UVM_HOST_PA (UINT64_C(1) << 52)

typedef struct uvm_space uvm_space;

/* A space with no ranges; ops copied. NULL when out of memory. */
uvm_space *uvm_create(const uvm_config *c, const uvm_ops *ops);
/* Gives every GPU frame back (through ops), without unmapping. */
void uvm_destroy(uvm_space *s);
const uvm_config *uvm_get_config(const uvm_space *s);

/* [va, va + size) becomes managed, resident nowhere (va a multiple of
 * va_block; no overlap with a live range). 0, or -1 (d, no location). */
int uvm_range_add(uvm_space *s, uint64_t va, uint64_t size, diag *d);
/* Frees the range at va: its GPU pages unmapped, its frames given back. */
int uvm_range_remove(uvm_space *s, uint64_t va, diag *d);
/* Whether va lies in a live range; [va, va + size) wholly in one: 0, else
 * -1 (d: "... is not managed memory"). */
bool uvm_contains(const uvm_space *s, uint64_t va);
int uvm_check_range(const uvm_space *s, uint64_t va, uint64_t size, diag *d);

/* The GPU touched va, unmapped there (read or write), or wrote a page it
 * maps read-only (read-duplicated): services it into *c. 1 when va is
 * mapped for the access now; 0 when va is not managed (the caller's
 * fault); -1 (d) when device memory is full and nothing can be evicted. */
int uvm_gpu_fault(uvm_space *s, uint64_t va, bool write, uvm_counts *c, diag *d);
/* The host read or wrote [va, va + size) (managed). 0, or -1 (d). */
int uvm_host_access(uvm_space *s, uint64_t va, uint64_t size, bool write, uvm_counts *c, diag *d);
/* cudaMemPrefetchAsync of [va, va + size) (managed) to `to`. */
int uvm_prefetch(uvm_space *s, uint64_t va, uint64_t size, uvm_side to, uvm_counts *c, diag *d);
/* cudaMemAdvise of [va, va + size) (managed). */
int uvm_advise(uvm_space *s, uint64_t va, uint64_t size, uvm_advice a, uvm_counts *c, diag *d);
/* The open fault batch ends (the kernel ended: another record came). */
void uvm_sync(uvm_space *s);
/* Everything since the space was made. */
const uvm_counts *uvm_get_counts(const uvm_space *s);

/* What the GPU maps of the block holding va, for tests and reports:
 * bitmaps of its big pages (bit p: page p) resident on the GPU, on the host,
 * mapped by the GPU remotely; *big2m whether it is one 2 MiB page. -1 when
 * va is not managed. */
typedef struct uvm_block_state {
  uint64_t gpu, host, remote;
  bool big2m;
  unsigned pages; /* big pages the block has (fewer at a range's end) */
} uvm_block_state;
int uvm_block_get(const uvm_space *s, uint64_t va, uvm_block_state *out);

/* The prefetch tree alone (uvm_perf_prefetch.c compute_prefetch_region):
 * of `pages` big pages (a power of two at most UVM_MAX_BIG_PAGES, or fewer
 * at a range's end: the rest count as absent), `present` those resident or
 * faulted, `page` the faulting one: the pages of the largest aligned
 * subtree round it whose share of present pages exceeds threshold percent. */
uint64_t uvm_prefetch_region(uint64_t present, unsigned page, unsigned pages, uint32_t threshold);

#endif
