/* tlbsim/kmodel.h — a GPU kernel's time from its address stream: the
 * model behind `tlbsim kernel --preset`.
 *
 * kmodel_spec    what one kernel runs on: the system (every SM's MMU, the
 *                L2-TLB groups, the third level and walker, hw/system.h),
 *                the [gpu] section (stage rates, memory, issue), the page
 *                table its buffers are mapped in, and how many L2-TLB
 *                groups of SMs are simulated (0: every SM).
 * kmodel_source  where thread blocks come from, in the grid's order: a
 *                kernel trace's reader (ktrace_next_tb), or a generator.
 * kmodel_result  the predicted time and where it went.
 *
 * Threads (jobs): the warps issue in the caller's thread and their memory
 * instructions go through the memory path, the L1s, TLBs, L2 and DRAM, in
 * the order they issued, on a thread of its own where one runs; the model
 * waits only for a load's time before its events could reach it, so every
 * count and time is one thread's (sim/src/kernel/kpipe.h).
 *
 * The mechanism (one event flow on hw/engine.h): blocks are placed on SMs
 * as launch.h's measured rule places the first wave, each later block on
 * the SM where a block finished. A warp issues its instructions in order,
 * one a cycle on its SM's scheduler (warp w on scheduler w mod
 * [gpu] schedulers); an instruction waits until its source registers are
 * ready (the scoreboard: a load's destination registers are pending until
 * its data is back; an ALU result is ready alu_cycles after issue), so a
 * warp has as many loads in flight as it issues before their first
 * consumer. A global memory instruction's 32 lanes are coalesced into
 * 128-byte lines of 32-byte sectors (kmem.h); each line passes the SM's
 * load path (issue_interval) and its L1 data cache (looked up by virtual
 * address: l1_hit_cycles on a hit; a load the L1 does not hold, an
 * ld.global.cg or volatile one: ktrace_op's l2_only, goes past it). Lines that miss are translated — once
 * per page the instruction touches, by the SM's own MMU (system_translate:
 * the real TLB levels, exact) and then timed through the stages the
 * serving level needs: the SM's L1-TLB miss path, its group's L2-TLB
 * look-ups, the GPU's third-level look-ups, the GPU's walker, each adding
 * its level's latencies from the outcome. Then each line goes to the L2
 * cache (GPU-wide: data_interval a request, or its sectors at
 * l2_sector_interval each when longer; the L2 itself functional, sectored,
 * by physical address, with the partitions of kmem.h's kmem_l2: the SM's
 * own, [gpu] l2_partition): a hit in the SM's partition returns after
 * data_cycles, one elsewhere in the L2 l2_far_cycles later, a miss goes to
 * DRAM and returns after dram_cycles. DRAM is two GPU-wide resources: a request
 * to a row no bank has open takes an activation (dram_row_interval: how
 * fast the device opens rows, HBM's activation-window limits), then every
 * request its sectors' transfer (dram_sector_interval each: the bus, what
 * a stream reaches; dram_write_sector_interval a sector written), so random small rows are bound by activations and
 * long rows and streams by the bus. Stores pass the L2 and DRAM (or, with
 * l2_write_back, stay in the L2 until evicted), nobody waits on them. A
 * launch's time is its last warp's end, or the L2's or DRAM's work when
 * that is longer (the stores' too: back-to-back launches absorb it), plus
 * [gpu] stream_launch_ns (what a launch costs beyond its work when timed
 * by events: the stream sweep's intercept). A kernel is run twice: once without timing (warm-up: the TLBs and
 * caches hold what the previous launch left, as a measured kernel's warm
 * launches see), then timed.
 *
 * Sampling (groups > 0): only the SMs of that many L2-TLB groups run
 * (their blocks: each block of the grid belongs to the SM the measured
 * rule gives it, one wave's worth at a time); every GPU-wide stage then
 * runs at the simulated SMs' share of its rate and the L2 cache holds
 * that share of its bytes (each partition's copies the share of its own
 * SMs simulated), so each sees what the whole GPU would at that scale. The time is the sample's.
 */
#ifndef TLBSIM_KMODEL_H
#define TLBSIM_KMODEL_H

#include "tlbsim/gdev.h"
#include "tlbsim/ktrace.h"
#include "tlbsim/system.h"

typedef struct kmodel_spec {
  const system_spec *sys;
  const gpu_config *gpu;
  const pt *table;       /* the kernel's buffers mapped (an address outside them is an error) */
  uint32_t groups;       /* L2-TLB groups of SMs simulated; 0: every SM */
  unsigned jobs;         /* threads: 1 all in the caller's; 2 or more the memory path on one of its own; 0
                            as 2 where two cores are online. The results do not depend on it */
  mmu_fault_fn fault;    /* NULL, or maps a page touched outside every mapping (demand paging) */
  void *fault_ctx;
} kmodel_spec;

/* The next thread block into tb: 1, 0 after the last, -1 with d set. */
typedef int (*kmodel_next_fn)(void *ctx, ktrace_tb *tb, diag *d);

typedef struct kmodel_source {
  kmodel_next_fn next;
  void (*rewind)(void *ctx); /* NULL, or called before the timed pass (one source for both passes) */
  void *ctx;
  const ktrace_kernel *kernel; /* its header: grid, block, the file errors name */
} kmodel_source;

typedef struct kmodel_result {
  double ns;                       /* predicted kernel time */
  double cycles;
  uint64_t kernel_blocks, kernel_warp_instructions, kernel_memory_instructions; /* the whole kernel's */
  uint64_t blocks, warps, warp_instructions, memory_instructions; /* simulated */
  uint64_t lines, sectors;         /* global line requests and their sectors */
  uint64_t l1_hits, l2_hits, l2_lines; /* lines the L1 served; L2 look-ups and hits */
  uint64_t dram_sectors, dram_rows; /* sectors DRAM moved; activations */
  uint64_t translations;           /* page translations of L1 misses */
  uint64_t served[GDEV_WHERE];     /* by where: the SM's TLB, its group's, the GPU's, a walk (GDEV_AT_*) */
  uint64_t walk_reads, walk_reads_dram; /* page-table entries walks read past the line cache, and those the
                                           L2 missed (their sectors count in dram_sectors; the L2's look-ups
                                           and hits above are the kernel's own lines) */
  double translation_cycles;       /* summed over lines: from the L1 miss until translated */
  double stall_cycles;             /* summed over warps: waiting on a register a load writes */
  double busy[GDEV_STAGES];        /* utilisation of (gdev_stage_names): issue (the busiest SM), L2-TLB group (the busiest),
                                      L3 TLB, walker, L2, DRAM activations, DRAM transfers */
  uint32_t sms;                    /* simulated */
  double share;                    /* of the GPU simulated */
} kmodel_result;


/* Runs the kernel: warm-up from `warm` (a source of the same blocks, read
 * without timing; .next NULL: none), then timed from `timed`. 0, or -1
 * with d set ("FILE:LINE: ..." for an address outside every mapping). */
int kmodel_run(const kmodel_spec *s, const kmodel_source *warm, const kmodel_source *timed, kmodel_result *out,
               diag *d);
/* The stage busiest over the kernel (an index of gdev_stage_names). */
unsigned kmodel_limit(const kmodel_result *r);

#endif
