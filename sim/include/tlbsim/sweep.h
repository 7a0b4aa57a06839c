/* tlbsim/sweep.h — many configurations over one read of a trace.
 *
 * sweep_grid     the --vary axes: per axis a key as --set names it
 *                ("tlb.l1d.entries") and its values; the configurations are
 *                every combination (the cartesian product), numbered with
 *                the last axis varying fastest. Plain data, no allocation.
 * sweep_window   which accesses count: the first `skip` are not replayed
 *                (the records between them that are not accesses still
 *                are), statistics restart after `warmup` more, and the
 *                replay stops after `max` accesses past the skipped ones
 *                (warm-up included; 0: no limit). With `interval` N > 0,
 *                on_interval is called every N counted accesses (from the
 *                end of the warm-up) with each configuration's statistics
 *                of those N accesses, and once more at the end for the
 *                accesses and records since the last call (when there are
 *                any): the calls' counts add up to the whole replay's.
 * sweep_columns  the union of the statistics schemas (stats.h) of every
 *                configuration, in report order: the one column set every
 *                row is written with, a field left empty where a
 *                configuration has no such column (a TLB level or walk
 *                cache it lacks).
 * sweep_row      one result: the trace, the varied values, the machine_spec
 *                and the statistics (a stats_snapshot) of one configuration.
 *
 * sweep_trace reads a trace once, in blocks, and hands every block to every
 * configuration's machine; with jobs > 1 the machines are split in
 * contiguous groups over that many threads (the caller's thread runs the
 * first), each thread owning its machines. The results do not depend on
 * jobs: every machine sees the same records in the same order, and an error
 * is that of the lowest-numbered configuration that failed. Memory is
 * constant in the trace's length.
 */
#ifndef TLBSIM_SWEEP_H
#define TLBSIM_SWEEP_H

#include <stdio.h>

#include "tlbsim/machine.h"
#include "tlbsim/report.h"
#include "tlbsim/stats.h"

#define SWEEP_MAX_AXES 16
#define SWEEP_MAX_VALUES 256
#define SWEEP_MAX_CONFIGS 4096
#define SWEEP_MAX_JOBS 64
#define SWEEP_AXIS_TEXT 1024
#define SWEEP_MAX_COLUMNS (4 * STATS_MAX_COLUMNS)

typedef struct sweep_axis {
  char text[SWEEP_AXIS_TEXT]; /* the argument, split in place: key, then values */
  const char *key;
  const char *value[SWEEP_MAX_VALUES];
  size_t nvalues;
} sweep_axis;

typedef struct sweep_grid {
  size_t naxes;
  sweep_axis axis[SWEEP_MAX_AXES];
} sweep_grid;

/* Adds "SECTION.KEY=V1,V2,...": 0, or -1 with what the argument is not in
 * why (to follow "'ARG' is not "): an empty key or value, a key varied
 * before, a value given twice, too many axes, values or configurations. */
int sweep_grid_add(sweep_grid *g, const char *arg, char *why, size_t len);
/* The number of configurations: the product of the axes' value counts (1
 * with no axis). */
size_t sweep_grid_count(const sweep_grid *g);
/* The values of configuration i (< sweep_grid_count), one per axis. */
void sweep_grid_values(const sweep_grid *g, size_t i, const char **values);

/* One interval of a replay: its index (from 0), how many accesses of the
 * trace had been read at its end (skipped and warm-up ones included), and
 * the statistics of each configuration over it (n of them). */
typedef struct sweep_interval {
  uint64_t index, accesses_end;
  const stats_snapshot *snap;
  size_t n;
} sweep_interval;

typedef struct sweep_window {
  uint64_t skip, warmup, max;
  uint64_t interval; /* 0: none */
  void (*on_interval)(void *ctx, const sweep_interval *iv);
  void *ctx;
  /* Called after each block read (when set) with the accesses read so
   * far: non-zero stops the replay there (an interrupt). */
  int (*each_block)(void *block_ctx, uint64_t accesses);
  void *block_ctx;
} sweep_window;

/* Builds one machine per spec, replays r through all of them and leaves
 * each one's statistics (counted from the end of the warm-up) in out[i].
 * 0; 1 when each_block stopped the replay (out holds what was read);
 * -1 with d as "FILE:LINE: ..." on a bad record or configuration. */
int sweep_trace(const machine_spec *specs, size_t n, trace_reader *r, const sweep_window *w, unsigned jobs,
                stats_snapshot *out, diag *d);

/* The same window over one machine the caller built and keeps (`run
 * --skip/--warmup/--max`), on the caller's thread: at the warm-up's end the
 * machine's counters restart (machine_reset_counters), so every report of
 * it, phases and CPUs too, counts from there as a sweep's row does. No
 * intervals (w->interval 0). 0; 1 when each_block stopped it; -1 (d). */
int sweep_replay_window(machine *m, trace_reader *r, const sweep_window *w, diag *d);

typedef struct sweep_columns {
  bool intervals; /* rows carry `interval` and `accesses_end` after the axes */
  bool partial;   /* rows end with `partial`: an interrupted sweep (sweep_row.partial) */
  size_t n;
  stats_column col[SWEEP_MAX_COLUMNS];
} sweep_columns;

/* The union of the specs' schemas, without the group markers and the trace
 * label (each row names its trace first). -1 with d when it exceeds
 * SWEEP_MAX_COLUMNS. */
int sweep_columns_build(const machine_spec *specs, size_t n, sweep_columns *out, diag *d);

typedef struct sweep_row {
  const char *trace, *trace_format;
  const char *config; /* the base configuration (preset or file), as run's `config` */
  const char *const *values; /* one per axis */
  const machine_spec *spec;
  const stats_snapshot *snap;
  uint64_t interval, accesses_end; /* when cols->intervals */
  bool partial; /* of a trace not read to its end (an interrupt); a column when cols->partial */
} sweep_row;

/* Writes the rows: CSV (header `trace`, the axes' keys, then the columns),
 * (with cols->intervals, `interval` and `accesses_end` after the axes),
 * a text table of the same columns, or a JSON array of one object per row
 * keyed by the same names. */
void sweep_write(FILE *f, report_format fmt, const sweep_grid *g, const sweep_columns *cols, const sweep_row *rows,
                 size_t nrows);
/* The CSV in parts, for rows written as they come (--interval): the
 * header line, then any number of rows. */
void sweep_write_csv_header(FILE *f, const sweep_grid *g, const sweep_columns *cols);
void sweep_write_csv_rows(FILE *f, const sweep_grid *g, const sweep_columns *cols, const sweep_row *rows,
                          size_t nrows);
/* One interval's rows as they come, in format fmt: CSV rows (after
 * sweep_write_csv_header), JSON lines (one compact object per row, keyed as
 * sweep_write's) or the text table followed by a blank line. */
void sweep_write_interval(FILE *f, report_format fmt, const sweep_grid *g, const sweep_columns *cols,
                          const sweep_row *rows, size_t nrows);

#endif
