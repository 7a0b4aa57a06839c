/* tlbsim/gather.h — many threads' independent loads on a GPU: the
 * concurrency model behind `tlbsim gather`.
 *
 * gather_spec    one point as `tlbsim-gpu gather` measures it (gpu/README.md):
 *                nodes of 128-byte lines in a region (region.h), threads on
 *                a set of SMs, loads in groups of `batch` per thread at the
 *                nodes gpu_gather_node names.
 * gather_result  predicted loads per ns for the whole GPU, the kernel's
 *                cycles, where the loads' translations were served, and how
 *                busy each shared stage was.
 *
 * The model is a discrete-event simulation of the SMs of one L2-TLB group
 * (or of every SM of a small pinned set): each warp computes the addresses of
 * a group of loads (warp_group_cycles), issues its 32 x batch line requests
 * through its SM's load path (issue_interval), and waits for all of them
 * before the next group. A request is translated by the SM's MMU — real TLB
 * levels: a private L1, the L2 shared by the group (mmu_share), the third
 * level and the walker shared by all — at the moment it issues; then it
 * passes the stages its translation needs, each a FIFO that accepts one
 * request per interval and returns it after the level's latency: the SM's
 * L1-TLB miss path, the group's L2-TLB lookups, the GPU's third-level
 * lookups (slower when the entry's pages are not physically contiguous),
 * the GPU's walker; then the L2 cache (data_interval, the data latency). In
 * table mode (tlbsim-gpu's buffers and churn experiments) each group first
 * loads its nodes' offsets, two bursts of 4 instructions served by the L1
 * data cache (l1_hit_cycles), then the nodes. A
 * request that misses on a region whose miss is already in flight waits for
 * it instead (at the SM for an L1 entry, in the group for an L2 entry): the
 * merging of misses to one page. Stages the whole GPU shares run at the
 * simulated SMs' share of their rate. The kernel's time is extrapolated from
 * `groups` simulated groups per warp; a launch adds launch_gap_ns.
 */
#ifndef TLBSIM_GATHER_H
#define TLBSIM_GATHER_H

#include "tlbsim/gpu.h"
#include "tlbsim/system.h"
#include "tlbsim/region.h"

typedef struct gather_spec {
  region region;               /* nodes, stride, mapping, pages (the nodes' count in layout mode) */
  const uint64_t *node_va;     /* layout mode: each node's address (an allocation's first line); NULL: the region's */
  const pt *table;             /* layout mode: the page table they are mapped in; NULL: the region is mapped anew */
  uint64_t offsets_va;         /* table mode: node i is found through a load of its 4-byte offset at
                                  offsets_va + 4 i first (mapped in the table); 0: none */
  uint32_t threads_per_sm;     /* resident threads on each SM of the set */
  uint32_t loads_per_thread;   /* a multiple of batch */
  uint32_t batch;              /* loads a thread has in flight (the kernel's group) */
  uint32_t block_threads;      /* threads per block: which thread ids an SM runs */
  uint64_t seed;               /* gpu_gather_node's */
  uint32_t sms_used;           /* SMs running the kernel */
  bool pinned;                 /* a chosen set of SMs, not an ordinary launch */
  uint32_t pinned_in_group;    /* of a pinned set, the SMs in gpu_config's known group (one L2 TLB);
                                  the others each have an L2 TLB of their own */
  uint32_t groups;             /* groups of loads per warp simulated (0: the default) */
} gather_spec;

typedef struct gather_result {
  double loads_per_ns;         /* the whole GPU, launch gaps included */
  double kernel_cycles;        /* one launch */
  double latency_cycles;       /* mean from issue to data */
  uint64_t loads;              /* simulated */
  uint64_t served[MMU_MAX_LEVELS + 1]; /* by TLB level, then [nlevels] walks */
  uint64_t merged;             /* requests that waited for another's miss */
  double busy_l2, busy_l3, busy_walk, busy_data; /* utilisation of the shared stages */
} gather_result;

/* Simulates one point on a system's configuration (its SMs the agents). */
int gather_run(const pt_format *f, const system_spec *sys, const gpu_config *g, const gather_spec *s,
               gather_result *out, diag *d);

#endif
