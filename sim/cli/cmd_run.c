/* tlbsim run — replay a trace through a configured machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/ptview.h"
#include "tlbsim/report.h"
#include "tlbsim/sweep.h"
#include "tlbsim/tlblog.h"

typedef struct run_opts {
  cli_config conf;
  int format, trace_fmt; /* report_format, trace_format */
  bool verbose, log, dump_pt, quiet;
  uint64_t thread; /* the thread (CPU) of records that name none */
  uint64_t jobs;   /* --jobs: decode threads, 0 the cores available */
  sweep_window window; /* --skip, --warmup, --max (as sweep's) */
  char **trace;    /* ntraces operands: several are CPUs 0, 1, ... taking turns */
  unsigned ntraces;
} run_opts;

static int parse_run(int argc, char **argv, run_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "text (default), json or csv"},
      {.name = "trace-format", .kind = OPT_CHOICE, .dest = &o->trace_fmt, .arg = "F", .choices = trace_format_names,
       .help = "auto (default: from the first bytes), native, lackey, din, binary, champsim or pinatrace"},
      {.name = "thread", .kind = OPT_WHOLE, .dest = &o->thread, .arg = "N", .hi = TRACE_THREAD_MAX - 1,
       .help = "the thread (CPU) of the records that name none (default 0): a ChampSim trace is one\n"
               "CPU's; with it the report has per-thread counts ([machine] address_spaces)"},
      CLI_JOBS_OPT(&o->jobs),
      {.name = "verbose", .kind = OPT_FLAG, .dest = &o->verbose,
       .help = "print the configuration's TLB levels, walk caches and latencies first\n"
               "(on stderr; tlbsim formats --preset prints them too)"},
      {.name = "log", .kind = OPT_FLAG, .dest = &o->log,
       .help = "one line per record before the report (JSON lines with --format json): for short traces"},
      {.name = "dump-pt", .kind = OPT_FLAG, .dest = &o->dump_pt,
       .help = "print the page table after the replay, before the report (as tlbsim dump)"},
      {.name = "skip", .kind = OPT_WHOLE, .dest = &o->window.skip, .arg = "N",
       .help = "do not replay the first N accesses (other records still apply), as sweep"},
      {.name = "warmup", .kind = OPT_WHOLE, .dest = &o->window.warmup, .arg = "N",
       .help = "count from the access after the first N replayed (the TLBs warm, the\n"
               "counts restart: phases and CPUs too), as sweep"},
      {.name = "max", .kind = OPT_WHOLE, .dest = &o->window.max, .arg = "N", .lo = 1,
       .help = "stop after N replayed accesses (warm-up included), as sweep"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "run", .usage = "[OPTIONS] TRACE|- [TRACE...]", .operands = "TRACE", .min_operands = 1,
      .max_operands = TRACE_THREAD_MAX, .one_stdin = true,
      .about = "Replays TRACE (a file, plain or gzip, zstd or xz, or - for stdin) through a machine (default preset\n"
               "x86-64) and reports TLB hits and misses, page walks, faults, page-table size and\n"
               "predicted cycles per access. Several traces run as CPUs: trace i is thread i, and they\n"
               "take turns, one access each ([machine] address_spaces: shared or per-thread); at most\n"
               "64 traces, and - (stdin) at most once. Managed memory (alloc kind=managed, prefetch,\n"
               "advise, side=host; a GPU preset such as h200) adds its GPU faults, batches, bytes\n"
               "migrated and fault time (uvm.*), in all and per phase.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->trace = argv + first;
  o->ntraces = (unsigned)(argc - first);
  if (o->ntraces > 1 && o->thread)
    return cli_usage_error("run", "--thread names one trace's CPU; several traces are CPUs 0, 1, ... in order");
  if (o->log && o->format == REPORT_CSV) return cli_usage_error("run", "--log writes text or JSON lines, not CSV");
  const sweep_window *w = &o->window;
  if (w->skip || w->warmup || w->max) {
    if (o->ntraces > 1) return cli_usage_error("run", "--skip, --warmup and --max window one trace, not several CPUs");
    if (o->log) return cli_usage_error("run", "--skip, --warmup and --max replay by block: not with --log");
  }
  if (w->max && w->warmup >= w->max)
    return cli_usage_error("run", "--warmup (%llu) leaves nothing of --max (%llu) to count",
                           (unsigned long long)w->warmup, (unsigned long long)w->max);
  if (o->dump_pt && o->format != REPORT_TEXT) return cli_usage_error("run", "--dump-pt goes with the text report only");
  return 0;
}

/* The progress line of a replay (on a terminal only) and ^C: after
 * every block, or every PROGRESS_RECORDS records replayed one by one. */
#define PROGRESS_RECORDS 4096

typedef struct progress {
  cli_trace_watch w;
  const machine *m; /* what the replay runs: the records count */
  bool stopped;     /* ^C stopped the replay */
} progress;

/* After each block: 1 stops the replay on ^C. */
static int each_block(void *ctx) {
  progress *p = ctx;
  return p->stopped = cli_trace_watch_tick(&p->w, machine_get_stats(p->m)->records);
}

/* The same for a windowed replay (sweep.h), which counts accesses read. */
static int each_window_block(void *ctx, uint64_t accesses) {
  progress *p = ctx;
  return p->stopped = cli_trace_watch_tick(&p->w, accesses);
}

/* Where records replayed one by one go: the log (when logging) or the
 * machine, with the progress line and ^C every PROGRESS_RECORDS. */
typedef struct one_by_one {
  machine *m;
  tlblog *log; /* NULL: not logged */
  progress *p;
  uint64_t records;
} one_by_one;

static int apply_one(void *ctx, const trace_record *rec, const char *file, diag *d) {
  one_by_one *x = ctx;
  if (x->log ? tlblog_apply(x->log, rec, file, d) : machine_apply(x->m, rec, file, d)) return -1;
  return ++x->records % PROGRESS_RECORDS ? 0 : each_block(x->p);
}

/* A logged replay: record by record, each through the log. */
static int replay_logged(one_by_one *x, trace_reader *r, diag *d) {
  trace_record rec;
  int rc;
  while ((rc = trace_next(r, &rec, d)) == 1)
    if ((rc = apply_one(x, &rec, trace_get_path(r), d))) return rc;
  return rc;
}

/* Once per run: page sizes no TLB level holds walk on every access, which
 * a total alone does not show. */
static void warn_unheld(machine *m) {
  uint64_t shifts = system_unheld_page_shifts(machine_get_system(m));
  for (unsigned s = 0; s < 64; s++)
    if (shifts >> s & 1) {
      char size[32];
      fprintf(stderr, "tlbsim run: warning: no TLB level holds %s pages: every access to them walked\n",
              num_format_size(1ull << s, size, sizeof size));
    }
}

/* The one trace replayed, or several as CPUs; logged or not. 0 at the
 * end, 1 when ^C stopped it, -1 on an error (d). */
static int replay_traces(machine *m, trace_reader **r, const run_opts *o, progress *p, diag *d) {
  *p = (progress){.m = m};
  /* The log's lines go to stdout as they come: no progress line among them. */
  cli_trace_watch_start(&p->w, "run", o->quiet || o->log, o->ntraces == 1 ? r[0] : NULL, o->trace[0], "records");
  one_by_one x = {.m = m, .p = p};
  if (o->log && !(x.log = tlblog_create(m, stdout, o->format == REPORT_JSON ? TLBLOG_JSON : TLBLOG_TEXT, d)))
    return -1;
  int rc;
  sweep_window w = o->window;
  w.each_block = each_window_block;
  w.block_ctx = p;
  if (o->ntraces == 1) {
    trace_set_thread(r[0], (uint32_t)o->thread);
    rc = o->log                               ? replay_logged(&x, r[0], d)
         : w.skip || w.warmup || w.max       ? sweep_replay_window(m, r[0], &w, d)
                                              : machine_replay(m, r[0], each_block, p, d);
  } else {
    rc = machine_replay_cpus(m, r, o->ntraces, apply_one, &x, d);
  }
  if (rc > 0 && !p->stopped) rc = 0; /* the trace's end */
  for (unsigned i = 0; rc == 0 && i < o->ntraces; i++) rc = cli_check_nonempty(r[i], d);
  tlblog_destroy(x.log);
  cli_progress_end(&p->w.line);
  return rc;
}

/* The traces' paths (or formats) joined by spaces, for the report; NULL
 * when out of memory. */
static char *join_names(trace_reader **r, unsigned n, bool formats) {
  size_t len = 1;
  for (unsigned i = 0; i < n; i++)
    len += strlen(formats ? trace_format_name(trace_get_format(r[i])) : trace_get_path(r[i])) + 1;
  char *s = malloc(len);
  if (!s) return NULL;
  s[0] = 0;
  for (unsigned i = 0; i < n; i++) {
    if (i) strcat(s, " ");
    strcat(s, formats ? trace_format_name(trace_get_format(r[i])) : trace_get_path(r[i]));
  }
  return s;
}

static int report(machine *m, trace_reader **r, const run_opts *o, const char *label, bool partial, diag *d) {
  char *paths = join_names(r, o->ntraces, false), *formats = join_names(r, o->ntraces, true);
  int rc = paths && formats ? 0 : diag_set(d, NULL, 0, "out of memory");
  if (!rc) {
    json_object *doc = report_run_json(m, paths, formats, label);
    if (partial) report_mark_partial(doc);
    report_write(stdout, (report_format)o->format, doc);
    json_object_put(doc);
    warn_unheld(m);
  }
  free(paths);
  free(formats);
  return rc;
}

int cmd_run(int argc, char **argv) {
  run_opts o = {.format = REPORT_TEXT, .trace_fmt = TRACE_AUTO};
  int rc = parse_run(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine *m = cli_load_machine(&o.conf, "x86-64", &label, &d);
  if (!m) return cli_input_error(&d);
  if (o.verbose) cli_print_machine(stderr, machine_get_spec(m));
  trace_reader *r[TRACE_THREAD_MAX];
  unsigned opened = 0;
  while (opened < o.ntraces && (r[opened] = trace_open_jobs(o.trace[opened], (trace_format)o.trace_fmt, (unsigned)o.jobs, &d))) opened++;
  rc = EXIT_INPUT;
  progress p;
  int replayed = opened == o.ntraces ? replay_traces(m, r, &o, &p, &d) : -1;
  if (replayed >= 0 && (!o.dump_pt || ptview_dump_text(stdout, m) == 0 || diag_set(&d, NULL, 0, "out of memory") == 0)) {
    if (o.dump_pt) putchar('\n');
    if (report(m, r, &o, label, replayed == 1, &d) == 0) rc = replayed ? CLI_EXIT_INTERRUPTED : EXIT_OK;
  }
  for (unsigned i = 0; i < opened; i++) trace_close(r[i]);
  if (rc == CLI_EXIT_INTERRUPTED) cli_interrupted_note("run", p.w.stopped_at);
  else if (rc) cli_input_error(&d);
  machine_destroy(m);
  return rc;
}
