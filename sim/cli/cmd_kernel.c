/* tlbsim kernel — GPU kernel traces (Accel-Sim's kernelslist.g and
 * kernel-N.traceg, or their binary form). --stats summarizes each kernel:
 * its launch, warp instructions, memory instructions and bytes by class,
 * and the distinct 128-byte lines and 2 MiB pages it touches. --preset (or
 * --config) predicts each kernel's time with the kernel model
 * (tlbsim/kmodel.h) on the buffers --alloc maps. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/kmodel.h"
#include "tlbsim/ktrace.h"
#include "tlbsim/ktrace_ahead.h"
#include "tlbsim/launch.h"
#include "tlbsim/report_ktrace.h"
#include "tlbsim/trace.h"

typedef struct kernel_opts {
  bool stats, quiet;
  int format; /* report_format */
  const char *trace, *alloc, *launch;
  uint64_t groups;
  uint64_t jobs; /* --jobs: 1 all in the model's thread; 0 (not given): threads where 2 cores exist */
  cli_config conf;
} kernel_opts;

static int parse_kernel(int argc, char **argv, kernel_opts *o) {
  const cli_opt opts[] = {
      {.name = "stats", .kind = OPT_FLAG, .dest = &o->stats,
       .help = "one row per kernel: grid, block, thread blocks, warps, warp instructions,\n"
               "memory instructions and bytes by class, distinct 128-byte lines and 2 MiB\n"
               "pages of its global and local accesses"},
      CLI_CONFIG_OPTS(&o->conf),
      {.name = "alloc", .kind = OPT_TEXT, .dest = &o->alloc, .arg = "FILE",
       .help = "a native trace whose map/alloc records lay out the kernel's buffers first; an\n"
               "address outside them is an error (without it each 2 MiB page is mapped when touched)"},
      {.name = "launch", .kind = OPT_TEXT, .dest = &o->launch, .arg = "GRIDxBLOCK",
       .help = "the launch geometry instead of the header's grid and block dim (e.g. 8192x256)"},
      {.name = "groups", .kind = OPT_WHOLE, .dest = &o->groups, .arg = "N", .lo = 0, .hi = 64,
       .help = "simulate the SMs of N L2-TLB groups, the GPU-wide stages at their share\n"
               "(default 0: every SM)"},
      {.name = "jobs", .kind = OPT_WHOLE, .dest = &o->jobs, .arg = "N", .lo = 1, .hi = CLI_JOBS_MAX,
       .help = "with --preset, 2 or more: each reading of the trace runs on a thread of its\n"
               "own, ahead of the model, and the memory path (L1s, TLBs, L2, DRAM) on another\n"
               "(default: where 2 cores are available; 1: all in one thread); the results do\n"
               "not depend on it"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "text (default), json or csv"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "kernel",
      .usage = "(--stats | --preset NAME [--alloc FILE] [--launch GRIDxBLOCK] [--jobs N]) [--format F] [--quiet] TRACE|-",
      .operands = "TRACE", .min_operands = 1, .max_operands = 1,
      .about = "Reads a GPU kernel trace: an Accel-Sim kernelslist.g (its kernel files and MemcpyHtoD\n"
               "lines), one kernel-N.traceg, or tlbsim's binary form of them (tlbsim convert); plain,\n"
               "gzip, zstd or xz. traces/FORMAT.md, \"Kernel traces\", says what is read and checked.\n"
               "With --stats, counts each kernel. With --preset or --config (a preset with a [gpu]\n"
               "section, e.g. h200), predicts each kernel's time: warps on the SMs as the block scheduler\n"
               "places blocks, a scoreboard on registers, coalescing into 32-byte sectors of 128-byte\n"
               "lines, each SM's L1, the L2, DRAM's rows and bandwidth, and every translation through\n"
               "the preset's TLBs and walker (docs/KERNEL.md).",
      .notes = "Classes follow Accel-Sim's trace_driven.cc: a generic LD/ST counts as the space its\n"
               "first active address falls in. Lines and pages count global and local accesses (what\n"
               "a TLB translates). A prediction reads the trace twice (the first time untimed: the\n"
               "TLBs and caches then hold what a previous launch left, as in a warm measurement), so\n"
               "TRACE may not be - with --preset. Its row: predicted_ns, hit rates, DRAM bytes and\n"
               "GB/s, translations by where they were served, stalls, each stage's busy share and the\n"
               "limit (the busiest stage).\n",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->trace = argv[first];
  bool predict = o->conf.preset || o->conf.config;
  if (o->stats == predict) return cli_usage_error("kernel", "give --stats or --preset/--config (one of them)");
  if (!predict && (o->alloc || o->launch || o->groups || o->jobs))
    return cli_usage_error("kernel", "--alloc, --launch, --groups and --jobs need --preset or --config");
  if (predict && !strcmp(o->trace, "-")) return cli_usage_error("kernel", "--preset reads TRACE twice: not from stdin");
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

static int stats(const kernel_opts *o) {
  diag d;
  ktrace_reader *r = ktrace_open(o->trace, &d);
  if (!r) return cli_input_error(&d);
  ktrace_tb *tb = ktrace_tb_new();
  ktrace_summary *s = ktrace_summary_new();
  int rc = 0;
  if (!tb || !s) rc = diag_set(&d, o->trace, 0, "out of memory");
  report_ktrace out;
  report_ktrace_begin(&out, stdout, (report_format)o->format);
  ktrace_item it;
  int got = 0;
  uint64_t kernels = 0;
  cli_progress line;
  cli_progress_start(&line, "kernel", o->quiet);
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

/* ---- prediction ---------------------------------------------------------- */

typedef struct predictor {
  machine *m;
  diag *d;
  bool failed;
} predictor;

/* Without --alloc: the 2 MiB page a kernel touches is mapped then. */
static bool demand_map(void *ctx, uint64_t va, acc_kind kind) {
  (void)kind;
  predictor *p = ctx;
  const uint64_t page = 2u << 20;
  trace_record rec = {.kind = REC_MAP, .addr = va & ~(page - 1), .size = page, .page_size = page, .prot = PT_R | PT_W};
  diag d;
  return !machine_apply(p->m, &rec, "demand paging", &d);
}

static int next_tb(void *ctx, ktrace_tb *tb, diag *d) { return ktrace_ahead_next_tb(ctx, tb, d); }

/* One reading of the trace: its reader and the thread reading its blocks
 * ahead (ktrace_ahead.h). */
typedef struct reading {
  ktrace_reader *r;
  ktrace_ahead *ahead;
} reading;

static int open_reading(reading *x, const char *path, unsigned jobs, diag *d) {
  if (!(x->r = ktrace_open(path, d))) return -1;
  return (x->ahead = ktrace_ahead_new(x->r, jobs)) ? 0 : diag_set(d, path, 0, "out of memory");
}

static void close_reading(reading *x) {
  ktrace_ahead_free(x->ahead);
  ktrace_close(x->r);
}

/* The next kernel of x into *k (its strings the reader's until its next
 * kernel), its blocks then read ahead. */
static int next_kernel_of(reading *x, ktrace_kernel *k, diag *d) {
  ktrace_item it;
  int got;
  ktrace_ahead_end(x->ahead);
  while ((got = ktrace_next(x->r, &it, d)) == 1 && it.kind != KTRACE_ITEM_KERNEL) {}
  if (got != 1) return got;
  *k = *it.kernel;
  ktrace_ahead_begin(x->ahead);
  return 1;
}

/* The next kernel of both readings (the warm-up's and the timed one's),
 * the timed one's into *k: its blocks are read while the warm-up runs. */
static int next_kernel(reading *warm, reading *timed, ktrace_kernel *k, diag *d) {
  ktrace_kernel w;
  int got = next_kernel_of(timed, k, d);
  if (got != 1) return got;
  got = next_kernel_of(warm, &w, d);
  return got == 1 ? 1 : got < 0 ? -1 : diag_set(d, ktrace_path(timed->r), 0, "the trace changed while it was read");
}

static int replay_alloc(machine *m, const char *path, diag *d) {
  trace_reader *r = trace_open(path, TRACE_NATIVE, d);
  if (!r) return -1;
  int rc = machine_replay(m, r, NULL, NULL, d);
  trace_close(r);
  return rc;
}

static int predict_kernels(const kernel_opts *o, machine *m, const machine_spec *spec, report_ktrace *out, diag *d) {
  predictor p = {.m = m, .d = d};
  reading warm = {0}, timed = {0};
  int rc = open_reading(&warm, o->trace, (unsigned)o->jobs, d) || open_reading(&timed, o->trace, (unsigned)o->jobs, d)
               ? -1
               : 0;
  launch_geometry lg = {0};
  char why[160];
  if (!rc && o->launch && launch_parse(o->launch, &lg, why, sizeof why))
    rc = diag_set(d, "--launch", 0, "%s", why);
  ktrace_kernel k;
  int got = 0;
  while (!rc && (got = next_kernel(&warm, &timed, &k, d)) == 1) {
    if (o->launch) {
      k.grid[0] = (uint32_t)lg.grid, k.grid[1] = k.grid[2] = 1, k.blocks = lg.grid;
      k.block[0] = lg.block, k.block[1] = k.block[2] = 1, k.warps_per_block = (lg.block + 31) / 32;
    }
    kmodel_spec ms = {.sys = &spec->sys, .gpu = &spec->gpu, .table = machine_get_pt(m), .groups = (uint32_t)o->groups,
                      .jobs = (unsigned)o->jobs, .fault = o->alloc ? NULL : demand_map, .fault_ctx = &p};
    kmodel_source ws = {.next = next_tb, .ctx = warm.ahead, .kernel = &k},
                  ts = {.next = next_tb, .ctx = timed.ahead, .kernel = &k};
    kmodel_result r;
    if ((rc = kmodel_run(&ms, &ws, &ts, &r, d))) break;
    report_ktrace_add(out, report_kmodel_row(&k, &r));
  }
  if (got < 0) rc = -1;
  close_reading(&warm);
  close_reading(&timed);
  return rc;
}

static int predict(const kernel_opts *o) {
  diag d;
  const char *label;
  machine_spec spec;
  int rc = cli_load_gpu_spec(&o->conf, "kernel", &label, &spec);
  if (rc) return rc;
  machine *m = machine_create(&spec, &d);
  rc = m ? 0 : -1;
  if (!rc && o->alloc) rc = replay_alloc(m, o->alloc, &d);
  report_ktrace out;
  report_ktrace_begin(&out, stdout, (report_format)o->format);
  if (!rc) rc = predict_kernels(o, m, &spec, &out, &d);
  report_ktrace_end(&out);
  machine_destroy(m);
  return rc ? cli_input_error(&d) : EXIT_OK;
}

int cmd_kernel(int argc, char **argv) {
  kernel_opts o = {.format = REPORT_TEXT};
  int rc = parse_kernel(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  return o.stats ? stats(&o) : predict(&o);
}
