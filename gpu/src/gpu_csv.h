/* gpu_csv.h — the CSV files tlbsim-gpu writes, and the statistics in them.
 *
 * gpu_chase_row  one chase measurement in the chase CSV schema of
 *                ../shared/DESIGN.md: the eight shared columns first, then
 *                the GPU extras (tlbsim/rows.h, ROWS_CHASE). Also used by the
 *                TLB-sharing probe (pattern "share") with its own extras.
 * gpu_summary    median/min/max of a few repeats.
 * gpu_gather_row one gather point (the gather CSV schema of
 *                ../shared/DESIGN.md, ROWS_GATHER).
 * gpu_chasers_row several one-thread chasers at once (tlbsim/rows.h).
 * gpu_bufset_row a chase and a gather over the first lines of a set of
 *                buffers (`smallbufs`, `churn-gather`; ROWS_BUFSET),
 *                and the layout rows of such a set (tlbsim/rows.h).
 *
 * The columns of every kind are declared once, in tlbsim/rows.h (the
 * simulator's readers name them from there too); these writers fill them.
 * Writers return -1 with a diag when the stream fails; fields go through
 * csv.h (quoted when they hold a comma, quote or line end).
 */
#ifndef TLBSIM_GPU_CSV_H
#define TLBSIM_GPU_CSV_H

#include <stdio.h>

#include "tlbsim/gpu_plan.h"

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
  region_mapping mapping;
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
  /* How the region's pages became resident (gpu_population_name; "" when
   * not managed), and which region of the run the row chased: rows with the
   * same region ran in file order over one allocation. */
  const char *population;
  unsigned region;
} gpu_chase_row;


int gpu_csv_chase_header(FILE *f, diag *d);
int gpu_csv_chase_row(FILE *f, const gpu_chase_row *r, diag *d);

typedef struct gpu_gather_row {
  const char *pattern;          /* "gather" */
  uint64_t footprint_bytes, stride_bytes;
  uint32_t nodes;
  uint64_t threads;             /* work threads in all */
  uint32_t loads_per_thread;
  region_mapping mapping;
  gpu_summary loads_per_ns;     /* over the timed repeats (cudaEvent) */
  uint64_t page_bytes;
  unsigned sms_used;            /* distinct SMs the work blocks ran on */
  double threads_per_sm;        /* threads / SMs of the set */
  uint32_t block_threads, blocks;
  unsigned max_blocks_per_sm;
  double kernel_cycles;         /* span_ns * sm clock */
  double ns_per_launch;         /* median repeat: elapsed / launches */
  unsigned launches, repeats;
  double sm_clock_khz;
  const char *device;
  uint64_t seed, va_base, chunk_bytes, skew_bytes;
  const char *sm_set;           /* gpu_sm_set_name */
  double span_ns;               /* last launch: last block end - first block start (%globaltimer) */
  double block_cycles;          /* median over work blocks of their clock64 duration */
} gpu_gather_row;


int gpu_csv_gather_header(FILE *f, diag *d);
int gpu_csv_gather_row(FILE *f, const gpu_gather_row *r, diag *d);

typedef struct gpu_chasers_row {
  gpu_order order;
  region_mapping mapping;
  uint64_t page_bytes, stride_bytes, footprint_bytes;
  uint64_t steps;               /* accesses per timed pass */
  gpu_summary cycles;           /* over chasers: each chaser's median cycles per access */
  double cycles_mean;
  double cycles_first;          /* chaser 0 (first SM of the set) */
  double ns_per_access;         /* median over chasers */
  double loads_per_ns;          /* sum over chasers of 1 / ns per access */
  double sm_clock_khz;
  const char *device;
  unsigned repeats;
  uint64_t seed;
  uint32_t nodes;
  uint64_t warmup;
  unsigned chasers, per_sm, sms_used;
  const char *sm_set;
  uint64_t va_base;
} gpu_chasers_row;


int gpu_csv_chasers_header(FILE *f, diag *d);
int gpu_csv_chasers_row(FILE *f, const gpu_chasers_row *r, diag *d);

typedef struct gpu_bufset_row {
  const char *pattern;          /* "smallbufs" or "churn-gather" */
  const char *set;              /* case: bufs, pool, churned, fresh */
  const char *source;           /* trace file, or "20000x65536" */
  uint64_t buffers, size_bytes; /* size_bytes: 0 when sizes differ */
  uint64_t live_bytes, va_span, regions_2m, regions_32m, line_regions_2m, line_regions_32m;
  uint64_t va_first;
  gpu_summary chase_cycles;     /* over the timed passes, cycles per access */
  double chase_ns;
  uint64_t chase_steps, chase_warmup;
  unsigned chase_repeats;
  int chase_sm;
  double sm_clock_khz;
  uint64_t threads;
  uint32_t threads_per_sm, loads_per_thread;
  gpu_summary loads_per_ns;
  double ns_per_launch;
  unsigned launches;
  uint64_t seed;
  unsigned pool_align;
  const char *device;
} gpu_bufset_row;


int gpu_csv_bufset_header(FILE *f, diag *d);
int gpu_csv_bufset_row(FILE *f, const gpu_bufset_row *r, diag *d);


/* One buffer of a set: offset = va - first (signed; the set's first VA is
 * the va_first column of its bufset row). */
int gpu_csv_layout_row(FILE *f, const char *source, const char *set, uint64_t index, uint64_t id, uint64_t size,
                       uint64_t va, uint64_t first, diag *d);

/* One block of a launch (`blocks`): the SM it ran on and its start and end
 * (%globaltimer, ns from the launch's first block start). */
typedef struct gpu_blocks_row {
  uint32_t grid, block_threads;
  unsigned repeat;
  uint64_t spin_ns;
  uint32_t block;
  unsigned sm;
  uint64_t start_ns, end_ns;
  unsigned sms;                 /* the device's SM count */
  const char *device;
} gpu_blocks_row;


int gpu_csv_blocks_header(FILE *f, diag *d);
int gpu_csv_blocks_row(FILE *f, const gpu_blocks_row *r, diag *d);

/* One embedding-bag point (`embed`): the kernel's shape, its measured time
 * and what it looked up. */
typedef struct gpu_embed_row {
  const char *kernel;           /* mangled name */
  uint32_t grid, block;
  uint64_t warp_instructions, memory_instructions; /* from its SASS; 0 when not known */
  gpu_summary ns;               /* per launch, over the timed launches */
  double first_ns;              /* the warm-up launch */
  uint64_t table_bytes;
  uint32_t row_bytes, ids_per_bag;
  uint64_t bags;
  double alpha;
  uint64_t seed, rows, distinct_rows;
  unsigned regs;
  uint64_t table_va, ids_va, out_va, table_alloc;
  unsigned repeats;
  const char *device;
} gpu_embed_row;


int gpu_csv_embed_header(FILE *f, diag *d);
int gpu_csv_embed_row(FILE *f, const gpu_embed_row *r, diag *d);

/* One bandwidth point (`stream`): kind read or copy over size_bytes (copy:
 * size_bytes read and written), passes over the buffer per launch. */
typedef struct gpu_stream_row {
  const char *kind;
  uint64_t size_bytes, footprint_bytes, bytes_per_launch;
  unsigned passes;
  gpu_summary gbps;             /* over the timed launches */
  double ns_per_launch;         /* median */
  unsigned repeats, blocks, block_threads;
  uint64_t va_base;
  const char *device;
} gpu_stream_row;


int gpu_csv_stream_header(FILE *f, diag *d);
int gpu_csv_stream_row(FILE *f, const gpu_stream_row *r, diag *d);

/* One managed-memory point (`uvm`), exactly the columns of issue #24; a
 * negative value is written as an empty field (not measured: no prefetch). */
typedef struct gpu_uvm_row {
  const char *init, *first;
  uint64_t size;
  double prefetch_ms, cold_ms, stream_ms, stream_gbps, gather_lpns, gather2_lpns;
} gpu_uvm_row;


int gpu_csv_uvm_header(FILE *f, diag *d);
int gpu_csv_uvm_row(FILE *f, const gpu_uvm_row *r, diag *d);


#ifdef __cplusplus
}
#endif
#endif
