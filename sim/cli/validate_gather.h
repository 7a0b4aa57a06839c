/* sim/cli/validate_gather.h — `tlbsim validate` on a measured gather CSV:
 * each row re-run through the concurrency model (gather.h), measured
 * against predicted loads per ns. */
#ifndef TLBSIM_CLI_VALIDATE_GATHER_H
#define TLBSIM_CLI_VALIDATE_GATHER_H

#include "gather_rows.h"
#include "tlbsim/machine.h"

typedef struct validate_gather_opts {
  const char *csv, *label, *plot;
  int format; /* report_format: text (every row, the summary), json (the summary and the rows), csv (the summary) */
  gather_row_filter filter;
  double max_mean, max_pct; /* < 0: no target */
  bool quiet;               /* no progress line */
} validate_gather_opts;

/* Prints the comparison; the process exit status. */
int validate_gather(const machine_spec *spec, const validate_gather_opts *o);

#endif
