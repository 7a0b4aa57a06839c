/* gpu_csv.h — the CSV files tlbsim-gpu writes, and the statistics in them.
 *
 * gpu_chase_row  one chase measurement in the chase CSV schema of
 *                ../shared/DESIGN.md: the eight shared columns first, then
 *                the GPU extras (see GPU_CHASE_HEADER). Also used by the
 *                TLB-sharing probe (pattern "share") with its own extras.
 * gpu_summary    median/min/max of a few repeats.
 * gpu_gather_row one gather point (the gather CSV schema of
 *                ../shared/DESIGN.md, GPU_GATHER_HEADER).
 * gpu_chasers_row several one-thread chasers at once (GPU_CHASERS_HEADER).
 * gpu_bufset_row a chase and a gather over the first lines of a set of
 *                buffers (`smallbufs`, `churn-gather`; GPU_BUFSET_HEADER),
 *                and the layout rows of such a set (GPU_LAYOUT_HEADER).
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
  /* How the region's pages became resident (gpu_population_name; "" when
   * not managed), and which region of the run the row chased: rows with the
   * same region ran in file order over one allocation. */
  const char *population;
  unsigned region;
} gpu_chase_row;

#define GPU_CHASE_HEADER                                                                          \
  "pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,"       \
  "ns_per_access,load,sm_clock_khz,device,repeats,spread,seed,nodes,warmup,lanes,sm,chunk_bytes," \
  "skew_bytes,va_base,cycles_min,cycles_max,base_cycles,base_min,base_max,base_samples,disruptor_sm,"  \
  "disruptor_footprint_bytes,disruptor_stride_bytes,population,region"

int gpu_csv_chase_header(FILE *f, diag *d);
int gpu_csv_chase_row(FILE *f, const gpu_chase_row *r, diag *d);

typedef struct gpu_gather_row {
  const char *pattern;          /* "gather" */
  uint64_t footprint_bytes, stride_bytes;
  uint32_t nodes;
  uint64_t threads;             /* work threads in all */
  uint32_t loads_per_thread;
  gpu_mapping mapping;
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

#define GPU_GATHER_HEADER                                                                                  \
  "pattern,footprint_bytes,stride_bytes,nodes,threads,loads_per_thread,mapping,loads_per_ns,page_bytes,"   \
  "sms_used,threads_per_sm,block_threads,blocks,kernel_cycles,ns_per_launch,launches,repeats,sm_clock_khz," \
  "device,seed,va_base,chunk_bytes,skew_bytes,sm_set,max_blocks_per_sm,loads_per_ns_min,loads_per_ns_max,"  \
  "span_ns,loads_per_ns_span,block_cycles,hash,batch,load"

int gpu_csv_gather_header(FILE *f, diag *d);
int gpu_csv_gather_row(FILE *f, const gpu_gather_row *r, diag *d);

typedef struct gpu_chasers_row {
  gpu_order order;
  gpu_mapping mapping;
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

#define GPU_CHASERS_HEADER                                                                                   \
  "pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,ns_per_access,load," \
  "sm_clock_khz,device,repeats,spread,seed,nodes,warmup,chasers,per_sm,sms_used,sm_set,cycles_min,"           \
  "cycles_max,cycles_mean,cycles_first,loads_per_ns,va_base"

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

#define GPU_BUFSET_HEADER                                                                                     \
  "pattern,case,source,buffers,size_bytes,live_bytes,va_span_bytes,regions_2m,regions_32m,line_regions_2m,"   \
  "line_regions_32m,va_first,chase_cycles,chase_ns,chase_spread,chase_steps,chase_repeats,chase_warmup,"       \
  "chase_sm,sm_clock_khz,threads,threads_per_sm,loads_per_thread,loads_per_ns,loads_per_ns_min,"               \
  "loads_per_ns_max,ns_per_launch,launches,seed,hash,pool_align,device"

int gpu_csv_bufset_header(FILE *f, diag *d);
int gpu_csv_bufset_row(FILE *f, const gpu_bufset_row *r, diag *d);

#define GPU_LAYOUT_HEADER "source,case,index,id,size_bytes,offset_bytes"

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

#define GPU_BLOCKS_HEADER "pattern,grid,block_threads,repeat,spin_ns,block,sm,start_ns,end_ns,sms,device"

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

#define GPU_EMBED_HEADER                                                                                        \
  "pattern,kernel,grid,block,warp_instructions,memory_instructions,ns,lookups_per_ns,lookups_per_ns_min,"       \
  "lookups_per_ns_max,first_ns,table_bytes,row_bytes,ids_per_bag,bags,lookups,alpha,seed,rows,distinct_rows,"   \
  "gbps,regs,page_bytes,load,table_va,ids_va,out_va,table_alloc_bytes,repeats,device"

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

#define GPU_STREAM_HEADER                                                                                   \
  "pattern,kind,size_bytes,footprint_bytes,bytes_per_launch,passes,gbps,gbps_min,gbps_max,ns_per_launch,"   \
  "repeats,blocks,block_threads,load,va_base,device"

int gpu_csv_stream_header(FILE *f, diag *d);
int gpu_csv_stream_row(FILE *f, const gpu_stream_row *r, diag *d);

/* One managed-memory point (`uvm`), exactly the columns of issue #24; a
 * negative value is written as an empty field (not measured: no prefetch). */
typedef struct gpu_uvm_row {
  const char *init, *first;
  uint64_t size;
  double prefetch_ms, cold_ms, stream_ms, stream_gbps, gather_lpns, gather2_lpns;
} gpu_uvm_row;

#define GPU_UVM_HEADER "init,first,size,prefetch_ms,cold_ms,stream_ms,stream_gbps,gather_lpns,gather2_lpns"

int gpu_csv_uvm_header(FILE *f, diag *d);
int gpu_csv_uvm_row(FILE *f, const gpu_uvm_row *r, diag *d);

/* Writes s as one CSV field (quoted only when needed). */
int gpu_csv_field(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif
