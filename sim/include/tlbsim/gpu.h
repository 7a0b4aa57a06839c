/* tlbsim/gpu.h — a GPU as the timing models see it.
 *
 * gpu_config  the [gpu] section: the device's SMs, which SMs are known to
 *             share SM 0's L2 TLB (how many share one is the L2 level's
 *             shared_by: the system's business, system.h), its clock, and how fast each stage a load passes
 *             through accepts requests (an interval in SM cycles between
 *             two requests it can take; the latencies are the MMU's own).
 *             Plain data inside machine_spec; the SMs are the agents of a
 *             system (system.h).
 */
#ifndef TLBSIM_GPU_H
#define TLBSIM_GPU_H

#include "tlbsim/config.h"
#include "tlbsim/rows.h"

#define GPU_MAX_WAVE_GAPS 16
#define GPU_MAX_GROUP_SMS 16 /* GPU_MAX_SMS: tlbsim/rows.h (the SM numbers rows may name) */

typedef struct gpu_config {
  uint32_t sms;                 /* 0: no [gpu] section (not a GPU preset) */
  uint32_t group[GPU_MAX_GROUP_SMS]; /* the SMs known to share SM 0's (a pinned set is placed with it) */
  uint32_t ngroup;
  double clock_ghz;
  double warp_group_cycles;     /* a warp's own work per group of loads (hashing, addresses, the sum) */
  double issue_interval;        /* per SM: cycles between line requests entering translation */
  double l1_miss_interval;      /* per SM: between L1-TLB misses it can send on */
  uint32_t l1_miss_slots;       /* per SM: L1-TLB misses in flight at once (miss-status slots) */
  double l2_interval;           /* per L2-TLB group: between lookups */
  uint32_t l2_miss_slots;       /* per L2-TLB group: misses to the third level in flight at once */
  double l3_interval;           /* GPU-wide: between third-level lookups, pages physically contiguous */
  double l3_scattered_interval; /* ... and when each of the entry's pages is a physical run of its own
                                   (in between: by the runs beyond the first) */
  double walk_interval;         /* GPU-wide: between walks the walker starts */
  double data_interval;         /* GPU-wide: between line requests the L2 cache serves */
  double data_spread_cycles;    /* the data latency's range over L2 slices, around data_cycles */
  double l1_hit_cycles;         /* a load the SM's L1 data cache serves (the table mode's offsets) */
  double launch_gap_ns;         /* between two back-to-back launches */
  uint32_t max_threads_per_sm;  /* resident threads an SM holds (blocks it takes at once: launch.h) */
  uint32_t max_blocks_per_sm;   /* resident blocks an SM holds */
  uint16_t block_order[GPU_MAX_SMS]; /* the SMs in the order the block scheduler fills them (launch.h) */
  /* A launch of two or more blocks per SM (launch.h): the first wave_lead
   * entries of block_order take their blocks in runs of wave_lead, the
   * next run after wave_gaps[i] blocks to the other entries (the gaps
   * after the first repeated); 0: block k on entry k mod sms throughout. */
  uint32_t wave_lead;
  uint32_t wave_gaps[GPU_MAX_WAVE_GAPS], nwave_gaps;
  /* The memory behind the L2 cache, for kernels over buffers larger than it
   * (the managed-memory experiment's stream and gather: tlbsim/uvm_suite.h). */
  uint64_t l2_bytes;            /* the L2 cache: a gather's lines hit it with share l2_bytes / footprint */
  double dram_cycles;           /* a line from DRAM (the L2 misses), translation hitting */
  double dram_interval;         /* GPU-wide: between line requests DRAM serves, lines at random */
  double stream_gbps;           /* what a streaming read of a large buffer reaches */
  double stream_launch_ns;      /* and a streaming launch's time beyond its bytes at that rate */
  /* The kernel model's memory and issue (tlbsim/kmodel.h, tlbsim/kmem.h). */
  uint64_t l1_bytes;            /* per SM: the L1 data cache (loads through it: LDG, its .CONSTANT form) */
  uint32_t l1_ways, l2_ways;    /* their associativity (the L2's 0: fully associative) */
  uint32_t l2_parts;            /* the L2's partitions: 2 when l2_partition names the first's SMs, else 1 */
  uint8_t l2_part[GPU_MAX_SMS]; /* each SM's partition (by SM number) */
  bool l2_write_back;           /* stores stay in the L2 until evicted (else written through to DRAM) */
  double l2_far_cycles;         /* a read its SM's partition misses and the rest of the L2 holds: the extra cycles */
  double l1_bytes_per_cycle;    /* per SM: what the L1's data path moves a cycle (a line's sectors take their share) */
  uint32_t dram_banks;          /* DRAM banks of the device, one row open in each */
  uint64_t dram_row_bytes;      /* a DRAM row (page) */
  double dram_row_interval;     /* GPU-wide: the DRAM time a request to a row not open costs (activation) */
  double dram_sector_interval;  /* GPU-wide: the DRAM time per 32-byte sector moved */
  double dram_write_sector_interval; /* GPU-wide: per 32-byte sector written (0: dram_sector_interval) */
  double l2_sector_interval;    /* GPU-wide: the L2's time per sector of a line request (the longer of this
                                   and data_interval) */
  double alu_cycles;            /* a non-memory instruction's result: cycles until a consumer may issue */
  double int_issue_cycles;      /* per scheduler: cycles an integer-pipe instruction holds its pipe (0: 1) */
  uint32_t schedulers;          /* per SM: warp schedulers, each issuing one instruction a cycle */
} gpu_config;

/* Reads [gpu] into *g (all 0 without one: not a GPU preset). */
int gpu_config_read(cfg *c, gpu_config *g, diag *d);
const cfg_keys *gpu_config_keys(void);
/* Checks a [gpu] section's values (a GPU preset has one). */
int gpu_config_check(const gpu_config *g, diag *d);

#endif
