/* gpu_opts.h — tlbsim-gpu's command line: one command, then options.
 *
 * gpu_cmd   what to run (chase sweep, TLB-sharing probe, the three
 *           allocation experiments, the full sweep, the smoke test).
 * gpu_opts  everything the commands read, with their defaults filled in by
 *           gpu_opts_parse. Sizes take the suffixes of size_parse; size
 *           lists are comma-separated and may hold doubling ranges
 *           "64K..1G" (64K,128K,...,1G).
 *
 * Errors are one line "tlbsim-gpu: --stride: bad size 'x'" in the diag and
 * exit status 2 (usage) from the caller.
 */
#ifndef TLBSIM_GPU_OPTS_H
#define TLBSIM_GPU_OPTS_H

#include "tlbsim/gpu_gather.h"
#include "tlbsim/gpu_plan.h"
#include "tlbsim/gpu_uvm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpu_cmd {
  GPU_CMD_CHASE,
  GPU_CMD_SHARE,
  GPU_CMD_ALLOC_LATENCY,
  GPU_CMD_ALLOC_LAYOUT,
  GPU_CMD_ALLOC_CHURN,
  GPU_CMD_GATHER,
  GPU_CMD_CHASERS,
  GPU_CMD_SMALLBUFS,
  GPU_CMD_CHURN_GATHER,
  GPU_CMD_BLOCKS,
  GPU_CMD_EMBED,
  GPU_CMD_STREAM,
  GPU_CMD_DRAM_CHASE,
  GPU_CMD_L2_CHASE,
  GPU_CMD_UVM,
  GPU_CMD_FULL,
  GPU_CMD_SMOKE,
  GPU_CMD_HELP,
  GPU_CMD_COUNT
} gpu_cmd;

const char *gpu_cmd_name(gpu_cmd c);

typedef struct gpu_opts {
  gpu_cmd cmd;
  unsigned mappings;          /* bit (1u << region_mapping) per mapping */
  gpu_sweep sweep;            /* orders, strides, footprints, node cap; mapping set per run */
  uint64_t steps;             /* accesses per timed pass */
  uint64_t warmup;            /* untimed accesses: max(this, nodes) */
  unsigned repeats;           /* timed passes (chase) or calls per size (alloc) */
  uint64_t seed;
  int load_ca;                /* --load ca */
  unsigned lanes;             /* 1 or 32 */
  int sm;                     /* SM the chase or prober block is pinned to */
  uint64_t chunk;             /* VMM chunk bytes; 0: the reported granularity */
  /* share */
  int sms[GPU_MAX_LIST * 4];  /* disruptor SMs; nsms == 0: every SM */
  size_t nsms;
  uint64_t disruptor_footprint, disruptor_stride;
  /* alloc experiments */
  uint64_t min_size, max_size;
  uint32_t requests, live;
  /* gather, chasers, smallbufs, churn-gather */
  uint64_t nodes[GPU_MAX_LIST];   /* gather: node counts */
  uint64_t gather_stride;         /* gather: --stride given (footprint = nodes * stride), else 0 */
  size_t nnodes;
  uint64_t threads[GPU_MAX_LIST]; /* gather: total threads (blocks of 256) */
  size_t nthreads;
  uint64_t tps[GPU_MAX_LIST];     /* threads per SM */
  size_t ntps;
  uint32_t loads;                 /* loads per thread, a multiple of GPU_GATHER_BATCH */
  gpu_sm_set sm_sets[GPU_MAX_SM_SETS];
  size_t nsm_sets;
  uint64_t per_sm[GPU_MAX_LIST];  /* chasers per SM */
  size_t nper_sm;
  uint64_t sizes[GPU_MAX_LIST];   /* smallbufs: buffer sizes */
  size_t nsizes;
  uint32_t buffers;               /* smallbufs: buffers per size */
  uint64_t launch_ms;             /* gather: target ms per timed repeat */
  const char *trace;              /* churn-gather: the allocation trace */
  const char *layout;             /* smallbufs, churn-gather: layout CSV */
  /* blocks */
  uint64_t grids[GPU_MAX_LIST];   /* blocks per launch */
  size_t ngrids;
  uint64_t block_threads[GPU_MAX_LIST];
  size_t nblock_threads;
  uint64_t spin_ns;               /* each block stays resident this long */
  /* embed */
  uint64_t row_bytes[GPU_MAX_LIST];
  size_t nrow_bytes;
  uint32_t ids_per_bag;
  uint64_t bags;
  double alphas[GPU_MAX_LIST];
  size_t nalphas;
  const char *trace_dir;          /* --trace DIR: Accel-Sim and native traces */
  int dry_run;                    /* embed: no device; trace with a synthetic address map */
  uint64_t embed_va[GPU_MAX_LIST];  /* --va: the table, ids and out VAs of a device run to re-trace */
  size_t nembed_va;
  /* stream */
  unsigned stream_kinds;          /* bit 0 read, bit 1 copy */
  /* uvm */
  unsigned uvm_inits, uvm_firsts; /* bit per gpu_uvm_init / gpu_uvm_first */
  uint64_t host_mem;              /* host memory the uvm host inits may use; 0: MemAvailable */
  /* chase: managed populations, one sweep each */
  gpu_population pops[GPU_MAX_LIST];
  size_t npops;
  const char *out;            /* CSV file; NULL: stdout */
  const char *outdir;         /* full: directory for all CSVs */
  uint64_t given;             /* bit per option given on the command line */
} gpu_opts;

/* Parses argv (argv[0] the program). Returns 0, or -1 with a diag holding
 * the whole message line. */
int gpu_opts_parse(int argc, char **argv, gpu_opts *o, diag *d);

/* The defaults of one command, as if it were given no options (full
 * needs no --outdir here). */
void gpu_opts_defaults(gpu_opts *o, gpu_cmd cmd);

/* Parses "4K,2M,64K..1G" into v (at most max entries). */
int gpu_size_list_parse(const char *text, uint64_t *v, size_t max, size_t *n);
/* The same for whole numbers without units: "32,64..2048". */
int gpu_whole_list_parse(const char *text, uint64_t *v, size_t max, size_t *n);

/* Whether option --name was given on the command line. */
int gpu_opts_given(const gpu_opts *o, const char *name);

/* Parses "0,0.5,1.2" (reals from lo to hi) into v. */
int gpu_real_list_parse(const char *text, double lo, double hi, double *v, size_t max, size_t *n);

/* The --help text. */
extern const char gpu_usage[];

#ifdef __cplusplus
}
#endif
#endif
