/* tlbsim kernel — GPU kernel traces (Accel-Sim's kernelslist.g and
 * kernel-N.traceg, or their binary form). --stats summarizes each kernel:
 * its launch, warp instructions, memory instructions and bytes by class,
 * and the distinct 128-byte lines and 2 MiB pages it touches. */
#include <stdio.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/ktrace.h"
#include "tlbsim/report_ktrace.h"

typedef struct kernel_opts {
  bool stats, quiet;
  int format; /* report_format */
  const char *trace;
} kernel_opts;

static int parse_kernel(int argc, char **argv, kernel_opts *o) {
  const cli_opt opts[] = {
      {.name = "stats", .kind = OPT_FLAG, .dest = &o->stats,
       .help = "one row per kernel: grid, block, thread blocks, warps, warp instructions,\n"
               "memory instructions and bytes by class, distinct 128-byte lines and 2 MiB\n"
               "pages of its global and local accesses"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "text (default), json or csv"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "kernel", .usage = "--stats [--format F] [--quiet] TRACE|-", .operands = "TRACE", .min_operands = 1,
      .max_operands = 1,
      .about = "Reads a GPU kernel trace: an Accel-Sim kernelslist.g (its kernel files and MemcpyHtoD\n"
               "lines), one kernel-N.traceg, or tlbsim's binary form of them (tlbsim convert); plain,\n"
               "gzip, zstd or xz. traces/FORMAT.md, \"Kernel traces\", says what is read and checked.",
      .notes = "Classes follow Accel-Sim's trace_driven.cc: a generic LD/ST counts as the space its\n"
               "first active address falls in. Lines and pages count global and local accesses (what\n"
               "a TLB translates). Predicting a kernel's time (--preset) is issue #23's next step.\n",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->trace = argv[first];
  if (!o->stats) return cli_usage_error("kernel", "give --stats: it is the only mode until the timing model (issue #23) exists");
  return 0;
}

/* One kernel's blocks counted and its row written: 0, or -1 with d set.
 * The progress line names the kernel (number n) and its blocks so far,
 * and is erased before the row. */
static int kernel_row(ktrace_reader *r, const ktrace_kernel *k, uint64_t n, ktrace_tb *tb, ktrace_summary *s,
                      report_ktrace *out, cli_progress *line, diag *d) {
  int got;
  uint64_t blocks = 0;
  ktrace_summary_reset(s);
  while ((got = ktrace_next_tb(r, tb, d)) == 1) {
    if (ktrace_summary_add(s, tb)) return diag_set(d, k->file, 0, "out of memory counting distinct lines");
    cli_progress_show(line, "kernel %llu (%s), %llu thread blocks", (unsigned long long)n, k->file,
                      (unsigned long long)++blocks);
  }
  cli_progress_end(line);
  if (got < 0) return -1;
  ktrace_counts c;
  ktrace_summary_get(s, &c);
  report_ktrace_add(out, report_ktrace_row(k, &c));
  return 0;
}

int cmd_kernel(int argc, char **argv) {
  kernel_opts o = {.format = REPORT_TEXT};
  int rc = parse_kernel(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  ktrace_reader *r = ktrace_open(o.trace, &d);
  if (!r) return cli_input_error(&d);
  ktrace_tb *tb = ktrace_tb_new();
  ktrace_summary *s = ktrace_summary_new();
  if (!tb || !s) {
    diag_set(&d, o.trace, 0, "out of memory");
    rc = -1;
  }
  report_ktrace out;
  report_ktrace_begin(&out, stdout, (report_format)o.format);
  ktrace_item it;
  int got = 0;
  uint64_t kernels = 0;
  cli_progress line;
  cli_progress_start(&line, "kernel", o.quiet);
  while (!rc && (got = ktrace_next(r, &it, &d)) == 1) {
    if (it.kind == KTRACE_ITEM_KERNEL) rc = kernel_row(r, it.kernel, ++kernels, tb, s, &out, &line, &d);
  }
  cli_progress_end(&line);
  if (got < 0) rc = -1;
  report_ktrace_end(&out);
  ktrace_summary_free(s);
  ktrace_tb_free(tb);
  ktrace_close(r);
  return rc ? cli_input_error(&d) : EXIT_OK;
}
