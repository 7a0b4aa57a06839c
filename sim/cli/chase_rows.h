/* sim/cli/chase_rows.h — the rows of a measured chase CSV (tlbsim-gpu's
 * schema) that the simulator can re-run: what validate and calibrate read.
 *
 * chase_row         one measurement as a chase_spec, its measured cycles per
 *                   access and, when the CSV has it, the same lines' measured
 *                   data latency (base_cycles; translation always hitting).
 *                   A managed row also carries its allocation's history
 *                   (region_history): rows with one `region` number ran, in
 *                   file order, over one allocation populated as `population`
 *                   says, each point's chain written after the earlier ones'
 *                   (a file without those columns: one allocation per
 *                   mapping, populated by the chains alone, as tlbsim-gpu's
 *                   sweeps always ran). Every managed row of the file counts,
 *                   kept by the filters or not.
 * chase_row_filter  which rows to keep; rows of other patterns, of several
 *                   lanes, of L1-caching loads or of mappings region.h does
 *                   not know are skipped and counted.
 */
#ifndef TLBSIM_CLI_CHASE_ROWS_H
#define TLBSIM_CLI_CHASE_ROWS_H

#include "cli_opts.h"
#include "tlbsim/chase.h"

typedef struct chase_row {
  chase_spec spec;
  double measured;    /* cycles per access */
  double base;        /* base_cycles, or -1 */
  unsigned long line; /* in the CSV */
  region_history history; /* managed rows: spec.history points here */
  bool owns_history;  /* this row frees history.earlier (chase_rows_free) */
} chase_row;

typedef struct chase_row_filter {
  uint64_t min_footprint, min_nodes;
  unsigned mappings; /* bit per region_mapping; 0: every modelled mapping */
  unsigned orders;   /* bit per chase_order; 0: both */
  uint64_t every;     /* keep every Nth row that passes the rest (0, 1: all) */
} chase_row_filter;

/* Reads path; *rows (chase_rows_free) gets the kept rows. Errors: "FILE:LINE: ...". */
int chase_rows_load(const char *path, const chase_row_filter *f, chase_row **rows, size_t *n, size_t *skipped,
                    diag *d);
void chase_rows_free(chase_row *rows, size_t n);
/* The options that choose rows and their data latency, as cli_opt entries
 * (cli_opts.h) filling filter f and int data_latency (an index of
 * chase_data_latency_names: 0 the row's measured base_cycles, 1 the
 * preset's data_cycles). */
extern const char *const chase_data_latency_names[];
#define CHASE_ROW_OPTS(f, data_latency)                                                                     \
  {.name = "min-footprint", .kind = OPT_SIZE, .dest = &(f)->min_footprint, .arg = "SIZE",                   \
   .help = "only rows with at least this footprint (stream rows: size_bytes)"},                                                     \
      {.name = "min-nodes", .kind = OPT_WHOLE, .dest = &(f)->min_nodes, .arg = "N",                         \
       .help = "only rows with at least N nodes"},                                                         \
      {.name = "mapping", .kind = OPT_CHOICES, .dest = &(f)->mappings, .arg = "LIST",                       \
       .choices = region_mapping_names, .help = "only these mappings (comma-separated)"},                   \
      {.name = "order", .kind = OPT_CHOICES, .dest = &(f)->orders, .arg = "LIST", .choices = chase_order_names, \
       .help = "only these orders (seq, random; comma-separated)"},                                         \
      {.name = "data-latency", .kind = OPT_CHOICE, .dest = (data_latency), .arg = "KIND",                   \
       .choices = chase_data_latency_names,                                                                 \
       .help = "measured (default): a row's base_cycles column (the same lines'\n"                          \
               "L2-hit latency, measured with translation hitting) stands for the\n"                       \
               "preset's data_cycles; preset: use data_cycles for every row"}

#endif
