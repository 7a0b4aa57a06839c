/* sim/cli/validate_layout.h — `tlbsim validate` on tlbsim-gpu's allocation
 * experiments (churn-gather and smallbufs CSVs): each (source, case) layout
 * rebuilt from its allocation history (layout.h), its regions, one-thread
 * chase and gather compared with the measurement. */
#ifndef TLBSIM_CLI_VALIDATE_LAYOUT_H
#define TLBSIM_CLI_VALIDATE_LAYOUT_H

#include "tlbsim/machine.h"

typedef struct validate_layout_opts {
  const char *csv, *label;
  const char *traces;            /* where a churn row's source trace is (DIR/SOURCE, .gz too) */
  int format;                    /* report_format, as validate_gather_opts' */
  double max_regions, max_chase, max_gather, max_gather_mean; /* % targets (worst, worst, worst, mean); < 0: none */
  uint64_t min_nodes;            /* only rows over at least this many buffers */
  uint64_t every;
  bool quiet;                    /* no progress line */
} validate_layout_opts;

/* Whether path holds churn-gather or smallbufs rows. */
bool validate_layout_sniff(const char *path);
/* Prints the comparison; the process exit status. */
int validate_layout(const machine_spec *spec, const validate_layout_opts *o);

#endif
