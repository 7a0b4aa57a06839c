/* tlbsim/gdev.h — the GPU as one component: every request a GPU-side model
 * makes (a kernel trace's warps, the suite's chases, streams and embedding
 * lookups) goes through one device built once from the preset.
 *
 * gdev_spec    what a device is built from: the system (every SM's MMU, the
 *              TLB levels by shared_by, the walker and its caches:
 *              hw/system.h), the [gpu] section (stage rates, caches, DRAM),
 *              the page table the kernel's buffers are mapped in, how many
 *              L2-TLB groups of SMs are simulated (0: every SM) and the
 *              demand-paging handler. Borrowed: they outlive the device.
 * gdev         owns, per simulated SM: its load path (an LSU stage), its L1
 *              data cache (kmem.h, built on the SM's first L1 look-up) and
 *              its MMU (an agent of the device's system: the L1 TLB, the
 *              group's L2 TLB and the GPU's third level, as shared_by says)
 *              with its L1-TLB miss stage; per L2-TLB group its look-up
 *              band; GPU-wide the third level's and the walker's bands, the
 *              L2 (partitions, kmem_l2) with its data band, DRAM's banks
 *              and open rows (kmem_dram) with its activation and transfer
 *              bands; and the counts the timed requests made (gdev_counts).
 * gdev_levels  where the TLB levels sit on an SM's path: its own, its
 *              group's, the GPU's (a level index each, -1 for none).
 * gdev_req     one warp instruction's memory request: its SM, its issue
 *              time and its lines (coalesced: kmem_coalesce), read or store.
 *
 * The device's calls, each a function of its state and the requests before
 * it in the order they came (so the same requests in the same order give
 * the same times whichever thread makes them: kernel/kpipe.h):
 *   gdev_translate  one page for an SM: the MMU's exact outcome, then its
 *                   time through the stages the serving level needs; a walk's
 *                   entries are requests through the same L2 and DRAM as
 *                   data (gdev_line), one after the other.
 *   gdev_line       one physical line from the L2 on: its partition, the rest
 *                   of the L2, DRAM.
 *   gdev_access     one instruction: each line through the SM's load path and
 *                   L1, the lines the L1 misses translated once per page
 *                   (gdev_translate) and sent to gdev_line.
 * Times are SM cycles (t < 0: the warm-up, state only: nothing timed or
 * counted). Functional state (TLBs, walk caches, L1s, L2, DRAM rows)
 * changes in request order, exactly; timing is booked through the engine's
 * bands (hw/engine.h), so a request booked later may be served earlier.
 * Sampling (groups > 0): the GPU-wide bands run at the simulated SMs'
 * share of their rate and the L2 holds that share of its bytes (each
 * partition's near copies the share of its own SMs simulated).
 */
#ifndef TLBSIM_GDEV_H
#define TLBSIM_GDEV_H

#include "tlbsim/gpu.h"
#include "tlbsim/kmem.h"
#include "tlbsim/system.h"

typedef struct gdev_spec {
  const system_spec *sys;
  const gpu_config *gpu;
  const pt *table;    /* the buffers mapped (an address outside them is an error) */
  uint32_t groups;    /* L2-TLB groups of SMs simulated; 0: every SM */
  mmu_fault_fn fault; /* NULL, or maps a page touched outside every mapping (demand paging) */
  void *fault_ctx;
} gdev_spec;

typedef struct gdev_levels {
  int level[3];       /* the SM's own, its L2-TLB group's, the GPU's: level indices, -1 none */
  uint32_t group_sms; /* SMs an L2-TLB group has (the group level's shared_by) */
} gdev_levels;

/* The path of mc's data accesses: 0, or -1 (d) when its levels are not
 * shared as a GPU's are (shared_by: 1, a group of at most
 * GPU_MAX_GROUP_SMS, all). */
int gdev_path(const mmu_config *mc, gdev_levels *out, diag *d);

/* Where a translation was served on the path: the SM's TLB, its group's,
 * the GPU's, a walk. */
enum { GDEV_AT_SM, GDEV_AT_GROUP, GDEV_AT_GPU, GDEV_AT_WALK, GDEV_WHERE };

/* The device's stages whose utilisation gdev_counts reports. */
#define GDEV_STAGES 7
/* Their names, in gdev_counts.busy's order. */
extern const char *const gdev_stage_names[GDEV_STAGES];

typedef struct gdev_counts { /* the timed requests' */
  uint64_t lines, sectors;          /* line requests and their sectors */
  uint64_t l1_hits, l2_hits, l2_lines; /* lines the L1 served; the L2's look-ups of lines and its hits */
  uint64_t dram_sectors, dram_rows; /* sectors DRAM moved; activations */
  uint64_t translations;            /* page translations of L1 misses */
  uint64_t served[GDEV_WHERE];      /* by where (GDEV_AT_*) */
  uint64_t walk_reads, walk_reads_dram; /* page-table entries walks read past the line cache, and those the
                                           L2 missed (their sectors count in dram_sectors) */
  double translation_cycles;        /* summed over lines: from the L1 miss until translated */
  double busy[GDEV_STAGES];         /* utilisation of: issue (the busiest SM), L2-TLB group (the busiest),
                                       L3 TLB, walker, L2, DRAM activations, DRAM transfers */
} gdev_counts;

typedef struct gdev gdev;

typedef struct gdev_req {
  double t;          /* issue; < 0: the warm-up */
  uint64_t src_line; /* the trace line that gave it, for an error */
  uint32_t sm;       /* a simulated SM's index */
  uint8_t n;         /* lines, at most KMEM_LINES_MAX */
  bool store;        /* a store or an atomic: stays in the L2 or goes on to DRAM; nobody waits */
  bool l2_only;      /* a load past the L1 (ld.global.cg, volatile: ktrace_op's l2_only) */
} gdev_req;

/* What gdev_translate found for one page. */
typedef struct gdev_page {
  mmu_outcome o;
  unsigned where;   /* GDEV_AT_* */
} gdev_page;

/* The device for s (borrowed: it must outlive the device); NULL with d
 * set. file names the trace for errors. */
gdev *gdev_new(const gdev_spec *s, const char *file, diag *d);
void gdev_free(gdev *g);
/* SMs simulated, and their share of the GPU's. */
uint32_t gdev_sms(const gdev *g);
double gdev_share(const gdev *g);
/* The least any timed access takes from its issue to its data (a load's;
 * a store's is its issue): at least 0. */
double gdev_lead(const gdev *g);

/* SM sm's translation of va for kind from t: its outcome into *out (status
 * not MMU_OK: outside every mapping, nothing timed) and when it is done
 * (t < 0: state only, the walk's reads passing the L2). */
double gdev_translate(gdev *g, uint32_t sm, double t, uint64_t va, acc_kind kind, gdev_page *out);
/* Physical line pa_line's sectors from the L2 on for SM sm (a load or a
 * store) from t: when its data is back (a store: when the L2 or DRAM took
 * it); *hit: whether the L2 served it (a store always is). */
double gdev_line(gdev *g, uint32_t sm, double t, uint64_t pa_line, uint8_t sectors, bool store, bool *hit);
/* r's lines[0 .. r->n - 1] through the device: *done when its data is back
 * (a store: its issue; the warm-up: state only). 0, or -1 with d set
 * ("FILE:LINE: address ... is outside every mapping"). */
int gdev_access(gdev *g, const gdev_req *r, const kmem_line *lines, double *done, diag *d);
/* Asks the host for the state a later access of lines will read first
 * (each line's L1 set): nothing else changes. */
void gdev_prefetch(const gdev *g, const gdev_req *r, const kmem_line *lines);
/* The timed pass begins: the TLBs' counts start again. */
void gdev_reset_stats(gdev *g);
/* The last time the L2 or DRAM is busy: a launch lasts at least that
 * (what no warp waits for, the stores, still takes their time). */
double gdev_memory_end(const gdev *g);
/* The timed requests' counts, and the stages' utilisation over `span`
 * cycles. */
void gdev_report(const gdev *g, double span, gdev_counts *out);
/* The device's system: each SM's MMU and its counters (SM i is agent i). */
const hwsystem *gdev_system(const gdev *g);

#endif
