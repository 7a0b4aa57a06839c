/* sim/cli/validate_kernel.h — `tlbsim validate` on measured kernel rows
 * (tlbsim-gpu embed's CSV): each row's kernel rebuilt in memory
 * (tlbsim/kembed.h) over its buffers at the row's addresses, predicted by
 * the kernel model (tlbsim/kmodel.h), lookups per ns against measured. */
#ifndef TLBSIM_CLI_VALIDATE_KERNEL_H
#define TLBSIM_CLI_VALIDATE_KERNEL_H

#include "tlbsim/machine.h"

typedef struct validate_kernel_opts {
  const char *csv, *label;
  uint64_t every;    /* every Nth row (0, 1: all) */
  uint32_t groups;   /* L2-TLB groups simulated (0: every SM) */
  double max_mean, max_pct; /* < 0: no target */
  int format;               /* report_format: text (every row, the summary), json (the summary and the rows), csv (the summary) */
} validate_kernel_opts;

/* Whether path's header is the embed schema (pattern, kernel, ... row_bytes). */
bool validate_kernel_sniff(const char *path);
/* Prints the comparison; the process exit status. */
int validate_kernel(const machine_spec *spec, const validate_kernel_opts *o);

#endif
