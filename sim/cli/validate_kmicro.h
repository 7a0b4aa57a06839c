/* sim/cli/validate_kmicro.h — `tlbsim validate` on the GPU suite's memory
 * microbenchmarks run as kernels: stream rows (tlbsim-gpu stream: GB/s)
 * and latency-chase rows (dram-chase, l2-chase: cycles per access). Each
 * row's kernel is made in memory as its trace would hold it
 * (tlbsim/kstream.h, tlbsim/kchase.h) over its buffer at the row's address
 * and predicted by the kernel model (tlbsim/kmodel.h).
 *
 * A stream whose loop makes more than KMICRO_TRIPS trips per warp and pass
 * is run at KMICRO_TRIPS / 2 and KMICRO_TRIPS trips and extrapolated
 * linearly in its trip count: the model's own time per trip of the loop
 * in its steady state, so a 64 GiB stream costs what a 2 GiB one does. A
 * chase's warm-up and the repeats before the median one run untimed
 * (state only), the median repeat timed: cycles per access = the kernel's
 * cycles / steps, what the GPU's two clock reads around the steps measure. Chases run on every SM's share
 * (the L2 whole); streams on --groups. */
#ifndef TLBSIM_CLI_VALIDATE_KMICRO_H
#define TLBSIM_CLI_VALIDATE_KMICRO_H

#include "tlbsim/machine.h"

#define KMICRO_TRIPS 32

typedef enum { KMICRO_NONE, KMICRO_STREAM, KMICRO_CHASE } kmicro_kind;

typedef struct validate_kmicro_opts {
  const char *csv, *label;
  uint64_t every;           /* every Nth row kept (0, 1: all) */
  uint64_t min_footprint;   /* keep rows of at least this footprint (a stream's size_bytes) */
  uint32_t groups;          /* stream rows: L2-TLB groups simulated (0: every SM) */
  double max_mean, max_pct; /* < 0: no target */
  int format;               /* report_format: text (every row, the summary), json (the summary and the rows), csv (the summary) */
} validate_kmicro_opts;

/* Whether path holds stream rows, latency-chase rows (its first row's
 * pattern dram-chase or l2-chase), or neither. */
kmicro_kind validate_kmicro_sniff(const char *path);
/* Prints the comparison; the process exit status. */
int validate_kmicro(const machine_spec *spec, kmicro_kind kind, const validate_kmicro_opts *o);

#endif
