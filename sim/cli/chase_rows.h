/* sim/cli/chase_rows.h — the rows of a measured chase CSV (tlbsim-gpu's
 * schema) that the simulator can re-run: what validate and calibrate read.
 *
 * chase_row         one measurement as a chase_spec, its measured cycles per
 *                   access and, when the CSV has it, the same lines' measured
 *                   data latency (base_cycles; translation always hitting).
 * chase_row_filter  which rows to keep; rows of other patterns, of several
 *                   lanes, of L1-caching loads or of unmodelled mappings
 *                   (managed) are skipped and counted.
 */
#ifndef TLBSIM_CLI_CHASE_ROWS_H
#define TLBSIM_CLI_CHASE_ROWS_H

#include "tlbsim/chase.h"

typedef struct chase_row {
  chase_spec spec;
  double measured;    /* cycles per access */
  double base;        /* base_cycles, or -1 */
  unsigned long line; /* in the CSV */
} chase_row;

typedef struct chase_row_filter {
  uint64_t min_footprint, min_nodes;
  unsigned mappings; /* bit per chase_mapping; 0: every modelled mapping */
  unsigned orders;   /* bit per chase_order; 0: both */
} chase_row_filter;

/* Reads path; *rows (caller frees) gets the kept rows. Errors: "FILE:LINE: ...". */
int chase_rows_load(const char *path, const chase_row_filter *f, chase_row **rows, size_t *n, size_t *skipped,
                    diag *d);
/* The getopt_long entries that choose rows and their data latency. */
#define CHASE_ROW_OPTIONS                                                                           \
  {"min-footprint", required_argument, NULL, 'F'}, {"min-nodes", required_argument, NULL, 'N'},    \
      {"mapping", required_argument, NULL, 'm'}, {"order", required_argument, NULL, 'R'},           \
      {"data-latency", required_argument, NULL, 'D'}

/* Takes option ch if it is one of those: 0 taken, EXIT_USAGE taken but bad
 * (the message printed for command cmd), -1 not one of them. */
int chase_rows_option(chase_row_filter *f, bool *preset_latency, const char *cmd, int ch, const char *arg);

#endif
