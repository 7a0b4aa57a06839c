/* sim/cli/sweep_cluster.h — a sweep cut into tasks for a cluster, and the
 * tasks' CSVs joined again (tlbsim sweep --emit slurm, --merge).
 *
 * A task is one trace and one slice of the configurations (FIRST-LAST in
 * grid order): `tlbsim sweep OPTIONS --configs FIRST-LAST -- TRACE`, which
 * writes the rows of those configurations with the columns of the whole
 * grid, so that every task's CSV has the same header. The tasks are listed
 * trace by trace, slices in order: their rows, joined in manifest order,
 * are the rows of the plain sweep in its order.
 *
 * DIR/manifest.tsv   "task trace configs rows output", tab-separated, a
 *                    header line, then one line per task (rows: the data
 *                    rows its CSV must have, "-" when not known: --interval)
 * DIR/sweep.sbatch   a Slurm job array over the tasks; `bash sweep.sbatch
 *                    TASK` runs one task without Slurm (GNU parallel too)
 * DIR/out/TASK.csv   what task TASK wrote (renamed into place when complete)
 * DIR/log/           the tasks' Slurm output
 */
#ifndef TLBSIM_SWEEP_CLUSTER_H
#define TLBSIM_SWEEP_CLUSTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tlbsim/base.h"

typedef struct sweep_emit {
  const char *dir;
  const char *const *words; /* the options every task repeats */
  size_t nwords;
  const char *const *traces;
  size_t ntraces;
  size_t nconfigs, slices;
  unsigned jobs;        /* --cpus-per-task */
  bool rows_known;      /* each configuration writes one row per trace */
} sweep_emit;

/* Writes DIR/manifest.tsv and DIR/sweep.sbatch and makes DIR/out and
 * DIR/log. -1 with d ("PATH: ...") when DIR already holds a manifest or a
 * file cannot be written. */
int sweep_emit_slurm(const sweep_emit *e, diag *d);

/* Checks every task of DIR/manifest.tsv against its CSV (present, the
 * header of the others, its number of rows; no task twice, no CSV in
 * DIR/out that no task names) and writes the joined CSV to out. Every
 * problem is printed to stderr as "FILE[:LINE]: ..."; returns EXIT_OK, or
 * EXIT_INPUT with nothing written to out. */
int sweep_merge(const char *dir, FILE *out);

#endif
