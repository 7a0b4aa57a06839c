/* sim/cli/cli_common.h — what several subcommands share: building a cfg
 * from --preset/--config/--set, reporting errors the one way, and writing
 * output files whole or not at all.
 *
 * cli_out  an output file (--out, --plot, --timeline, --emit-rmm) written
 *          under a temporary name beside it and renamed over its path only
 *          once complete: a failed or interrupted run never leaves part of a
 *          result where a good one was, and no output is written over a file
 *          the command reads. */
#ifndef TLBSIM_CLI_COMMON_H
#define TLBSIM_CLI_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "tlbsim/config.h"
#include "cli_opts.h"
#include "tlbsim/machine.h"

#define CLI_MAX_SETS 256

typedef struct cli_config {
  const char *preset;          /* --preset NAME */
  const char *config;          /* --config FILE */
  const char *sets[CLI_MAX_SETS];
  unsigned nsets;
} cli_config;

/* --preset, --config and --set as cli_opt entries (cli_opts.h) that fill c. */
#define CLI_CONFIG_OPTS(c)                                                                                    \
  {.name = "preset", .kind = OPT_TEXT, .dest = &(c)->preset, .arg = "NAME",                                  \
   .help = "a preset by name (tlbsim formats lists them)"},            \
      {.name = "config", .kind = OPT_TEXT, .dest = &(c)->config, .arg = "FILE", .help = "an INI file instead of a preset; with --preset, laid over it\n" \
               "(a machine file of tlbsim calibrate: its keys replace the preset's)"}, \
      {.name = "set", .kind = OPT_CALL, .dest = (c), .arg = "S.K=V", .call = cli_add_set,                   \
       .help = "override key K of section S, e.g. tlb.l1d.entries=64 (repeatable)"}

/* --jobs N as a cli_opt entry filling the uint64_t at jobs: the threads a
 * multi-block xz trace is decoded on, and with more than one the trace
 * parsed on a thread of its own (trace_open_jobs; 0, not given: the cores
 * available). Every command that reads a trace takes it. */
#define CLI_JOBS_MAX 1024
#define CLI_JOBS_OPT(jobs)                                                                                    \
  {.name = "jobs", .kind = OPT_WHOLE, .dest = (jobs), .arg = "N", .lo = 1, .hi = CLI_JOBS_MAX,               \
   .help = "threads a multi-block xz trace is decoded on, and with 2 or more a trace file\n"                \
           "parsed on a thread of its own (default: the cores available; 1: all in one\n"              \
           "thread); the results do not depend on it"}

/* The TLB geometry of a configuration, level by level ("tlb l1d serves
 * data, next stlb, latency 1: [64 entries, 4-way, lru, 4KiB] ..."), then
 * its walk caches, line cache and latencies: what run --verbose and
 * formats --preset print. */
void cli_print_machine(FILE *f, const machine_spec *ms);

/* --quiet as a cli_opt entry: no progress line (cli_progress.h). */
#define CLI_QUIET_OPT(q)                                                                                      \
  {.name = "quiet", .kind = OPT_FLAG, .dest = (q),                                                          \
   .help = "no progress line on stderr (there is one only when stderr is a terminal)"}

/* Records a --set (an OPT_CALL of cli_opts.h). */
int cli_add_set(void *config, const char *assignment, char *why, size_t len);
/* The loader's (loader.h) for --preset, --config and --set (default preset
 * `fallback`; a --config named with --preset is laid over it: a machine
 * file); *label gets the name reported as "config". */
cfg *cli_load_config(const cli_config *c, const char *fallback, const char **label, diag *d);
cfg *cli_load_spec(const cli_config *c, const char *fallback, const char **label, machine_spec *spec, diag *d);
/* cli_load_spec of a GPU's configuration (default preset h200) for command
 * cmd: EXIT_OK, or the exit status after its error line (no [gpu] section
 * is one). */
int cli_load_gpu_spec(const cli_config *c, const char *cmd, const char **label, machine_spec *spec);
machine *cli_load_machine(const cli_config *c, const char *fallback, const char **label, diag *d);

typedef struct cli_out {
  FILE *f;          /* write here (the temporary) */
  const char *path; /* the name it gets when complete */
  char tmp[4096];   /* the temporary's name; "" once committed or discarded */
  bool no_clobber;  /* an existing path is an error, at open and at commit */
} cli_out;

/* Creates the temporary. Refused with "PATH: ...": a path naming one of
 * `inputs` (NULL-terminated; the same file under any name), and with
 * no_clobber a path that exists. */
int cli_out_open(cli_out *o, const char *path, bool no_clobber, const char *const *inputs, diag *d);
/* Closes the temporary, checking every write, and gives it its name (with
 * no_clobber through link(), which never replaces a file that appeared
 * meanwhile). On failure the temporary is removed. */
int cli_out_commit(cli_out *o, diag *d);
/* Closes and removes the temporary; nothing happens after a commit. */
void cli_out_discard(cli_out *o);

/* Expands "1M,4M..64M" into at most max sizes: ranges LO..HI step
 * 2^(1/per_octave). -1 on a bad item, an empty list or too many. */
int cli_parse_footprints(const char *text, unsigned per_octave, uint64_t *out, size_t max, size_t *n);

/* After a whole replay of r: -1 with "FILE: an empty trace (no records)"
 * when it held none, an error (docs/OUTPUT.md): an empty input is far
 * likelier a producer that failed than a trace, and a report of zeros
 * would hide that. */
int cli_check_nonempty(const trace_reader *r, diag *d);

/* Prints "tlbsim: MESSAGE" for a usage error and returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the diag's one line and returns EXIT_INPUT. */
int cli_input_error(const diag *d);

#endif
