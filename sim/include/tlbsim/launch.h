/* tlbsim/launch.h — a kernel's launch geometry and where its blocks run.
 *
 * launch_geometry  GRIDxBLOCK: blocks in the grid (x·y·z) and threads in a
 *                  block, as `--launch 16x256` writes it.
 * launch_plan      where the hardware's block scheduler puts the first wave
 *                  of a launch: blocks per SM, how many SMs hold any, how
 *                  many waves the grid takes.
 *
 * The placement is the measured rule of gpu/README.md "Launch geometry"
 * (gpu/results/h200/run4/blocks.csv): the SMs in the order of [gpu]
 * block_order, a launch whose blocks all fit at once putting block k on
 * entry k mod sms of that list; an SM holds min(max_blocks_per_sm,
 * max_threads_per_sm / block) blocks at once. A first wave of two or more
 * blocks per SM, a whole number of them (run4/blocks.csv's launches of
 * 264, 396, 528, 1056 and 2112 blocks, every block size, and
 * stream_pass/warps_1m.csv.gz; its 265-block launches hold as many blocks
 * per SM as k mod sms gives, in another order) is dealt differently:
 * the first [gpu] wave_lead entries (the H200's SMs 124-131) take their
 * blocks in runs of wave_lead — blocks 0-7, 84-91, 190-197, 288-295, ... —
 * the other entries one block each in turn between the runs (76 blocks
 * before the second run, then 98, 90, 92, 92, repeated: [gpu] wave_gaps),
 * the lead entries at most as many runs as the wave has blocks per SM. So
 * a launch whose first blocks alone do work (a small stream of 1056
 * blocks) has two of them on each lead SM. Later waves are placed as
 * blocks finish, which the measurements show differs between runs: a plan
 * gives only the count of waves and the first wave's placement.
 */
#ifndef TLBSIM_LAUNCH_H
#define TLBSIM_LAUNCH_H

#include "tlbsim/gpu.h"

typedef struct launch_geometry {
  uint64_t grid;  /* blocks */
  uint32_t block; /* threads per block */
} launch_geometry;

typedef struct launch_plan {
  uint64_t grid;                    /* blocks of the launch */
  uint32_t resident;                /* blocks one SM holds at once */
  uint64_t waves;                   /* waves of a full device the grid takes (the last maybe partial) */
  uint32_t sms_used;                /* SMs holding a block of the first wave */
  uint16_t blocks[GPU_MAX_SMS];     /* the first wave's blocks on each SM, by SM number */
} launch_plan;

/* "GRIDxBLOCK" ("16x256"): 0, or -1 with what is wrong in why. */
int launch_parse(const char *text, launch_geometry *out, char *why, size_t len);
/* Where the launch's first wave runs on g: 0, or -1 (d) when the geometry
 * is not one the device runs (no blocks; a block of no thread, of more
 * than the SM holds, or not whole warps). */
int launch_place(const gpu_config *g, const launch_geometry *l, launch_plan *out, diag *d);
/* The entry of [gpu] block_order block b of the launch planned by p runs
 * on in the first wave (b past it: the entry of b mod the wave, the share
 * a sample of SMs keeps). */
uint32_t launch_entry(const launch_plan *p, const gpu_config *g, uint64_t b);
/* Whether every SM the first wave uses holds the same number of blocks;
 * *per_sm gets it. */
bool launch_even(const launch_plan *p, const gpu_config *g, uint32_t *per_sm);

#endif
