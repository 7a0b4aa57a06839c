/* gpu_csv.h — the CSV files tlbsim-gpu writes, and the statistics in them.
 *
 * gpu_chase_row  one chase measurement in the chase CSV schema of
 *                ../shared/DESIGN.md: the eight shared columns first, then
 *                the GPU extras (see GPU_CHASE_HEADER). Also used by the
 *                TLB-sharing probe (pattern "share") with its own extras.
 * gpu_summary    median/min/max of a few repeats.
 *
 * Writers return -1 with a diag when the stream fails; strings are quoted
 * when they hold a comma, quote or newline.
 */
#ifndef TLBSIM_GPU_CSV_H
#define TLBSIM_GPU_CSV_H

#include <stdio.h>

#include "gpu_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_summary {
  double median, min, max;
} gpu_summary;

/* Sorts v in place; n >= 1. The median of an even count is the mean of the
 * two middle values. */
gpu_summary gpu_summarize(double *v, size_t n);

typedef struct gpu_chase_row {
  const char *pattern;          /* "chase" or "share" */
  gpu_order order;
  gpu_mapping mapping;
  uint64_t page_bytes, stride_bytes, footprint_bytes;
  uint64_t steps;               /* accesses per timed pass */
  gpu_summary cycles;           /* cycles per access over the repeats */
  gpu_summary ns;               /* ns per access (%globaltimer) */
  int load_ca;                  /* 0: ld.global.cg, 1: ld.global.ca */
  double sm_clock_khz;          /* measured: cycles / ns over the timed passes */
  const char *device;
  unsigned repeats;
  uint64_t seed;
  uint32_t nodes;
  uint64_t warmup;              /* untimed accesses before the first pass */
  unsigned lanes;               /* threads chasing (1 or a warp) */
  int sm;                       /* SM the chasing block ran on */
  uint64_t chunk_bytes;         /* VMM chunk size, 0 when not VMM */
  uint64_t skew_bytes;          /* per-node skew line (aliased), else 0 */
  uint64_t va_base;             /* VA of offset 0: node VAs are va_base + offset */
  /* Data-latency baseline: cycles per access of one-node cycles on sampled
   * nodes of the chain (translation hits one page); 0 samples: not taken. */
  double base_mean;
  gpu_summary base;
  unsigned base_samples;
  /* share only: */
  int disruptor_sm;             /* -1: prober alone */
  uint64_t disruptor_footprint, disruptor_stride;
} gpu_chase_row;

#define GPU_CHASE_HEADER                                                                          \
  "pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,"       \
  "ns_per_access,load,sm_clock_khz,device,repeats,spread,seed,nodes,warmup,lanes,sm,chunk_bytes," \
  "skew_bytes,va_base,cycles_min,cycles_max,base_cycles,base_min,base_max,base_samples,disruptor_sm,"  \
  "disruptor_footprint_bytes,disruptor_stride_bytes"

int gpu_csv_chase_header(FILE *f, diag *d);
int gpu_csv_chase_row(FILE *f, const gpu_chase_row *r, diag *d);

/* Writes s as one CSV field (quoted only when needed). */
int gpu_csv_field(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif
