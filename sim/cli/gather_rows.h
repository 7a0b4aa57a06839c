/* sim/cli/gather_rows.h — the rows of a measured gather CSV (tlbsim-gpu
 * gather's schema) that the model can re-run: what validate reads.
 *
 * gather_row         one measurement as a gather_spec and its measured loads
 *                    per ns.
 * gather_row_filter  which rows to keep. Rows of other patterns, of loads
 *                    other than ld.global.cg, of another hash, or of SM sets
 *                    the model cannot place (gpu_config: SMs outside the
 *                    known L2-TLB group are each put in a group of their own,
 *                    so a set needing more groups than the device has is
 *                    skipped) are skipped and counted.
 */
#ifndef TLBSIM_CLI_GATHER_ROWS_H
#define TLBSIM_CLI_GATHER_ROWS_H

#include "cli_opts.h"
#include "tlbsim/gather.h"

typedef struct gather_row {
  gather_spec spec;
  double measured;    /* loads per ns */
  unsigned long line; /* in the CSV */
  char sm_set[64];    /* as the CSV names it, shortened */
} gather_row;

typedef struct gather_row_filter {
  uint64_t min_threads_per_sm;
  unsigned mappings; /* bit per region_mapping; 0: every one */
  uint64_t every;     /* keep every Nth row that passes the rest (0, 1: all) */
} gather_row_filter;

/* Reads path; *rows (caller frees) gets the kept rows: not a pinned set
 * of more L2-TLB groups (of group_sms SMs: gdev_path) than g has.
 * Errors "FILE:LINE: ...". */
int gather_rows_load(const char *path, const gather_row_filter *f, const gpu_config *g, uint32_t group_sms,
                     gather_row **rows, size_t *n, size_t *skipped, diag *d);
/* Whether path's first data rows are gather rows (else chase rows). */
bool gather_rows_sniff(const char *path);

#endif
