/* tlbsim run — replay a trace through a configured machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/report.h"
#include "tlbsim/tlblog.h"

typedef struct run_opts {
  cli_config conf;
  int format, trace_fmt; /* report_format, trace_format */
  bool verbose, log, dump_pt;
  uint64_t thread; /* the thread (CPU) of records that name none */
  uint64_t jobs;   /* --jobs: decode threads, 0 the cores available */
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
      {.name = "verbose", .kind = OPT_FLAG, .dest = &o->verbose, .help = "print the configuration's TLB levels first"},
      {.name = "log", .kind = OPT_FLAG, .dest = &o->log,
       .help = "one line per record before the report (JSON lines with --format json): for short traces"},
      {.name = "dump-pt", .kind = OPT_FLAG, .dest = &o->dump_pt,
       .help = "print the page table after the replay, before the report (as tlbsim dump)"},
  };
  const cli_spec spec = {
      .cmd = "run", .usage = "[OPTIONS] TRACE|- [TRACE...]", .operands = "TRACE", .min_operands = 1,
      .max_operands = TRACE_THREAD_MAX, .one_stdin = true,
      .about = "Replays TRACE (a file, plain or gzip, zstd or xz, or - for stdin) through a machine (default preset\n"
               "x86-64) and reports TLB hits and misses, page walks, faults, page-table size and\n"
               "predicted cycles per access. Several traces run as CPUs: trace i is thread i, and they\n"
               "take turns, one access each ([machine] address_spaces: shared or per-thread); at most\n"
               "64 traces, and - (stdin) at most once.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->trace = argv + first;
  o->ntraces = (unsigned)(argc - first);
  if (o->ntraces > 1 && o->thread)
    return cli_usage_error("run", "--thread names one trace's CPU; several traces are CPUs 0, 1, ... in order");
  if (o->log && o->format == REPORT_CSV) return cli_usage_error("run", "--log writes text or JSON lines, not CSV");
  if (o->dump_pt && o->format != REPORT_TEXT) return cli_usage_error("run", "--dump-pt goes with the text report only");
  return 0;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A progress line on a terminal only, at most a few times a second. */
typedef struct progress {
  bool on;
  uint64_t total_bytes;
  double last;
  uint64_t blocks;      /* replayed so far */
  const machine *m;     /* what the replay runs: the records count */
  const trace_reader *r; /* and the bytes read */
} progress;

static void progress_tick(progress *p, const trace_reader *r, uint64_t records) {
  double t = now_seconds();
  if (t - p->last < 0.25) return;
  p->last = t;
  uint64_t done = trace_bytes_read(r);
  if (p->total_bytes)
    fprintf(stderr, "\r%llu records, %.1f%% of input", (unsigned long long)records,
            100.0 * (double)done / (double)p->total_bytes);
  else
    fprintf(stderr, "\r%llu records, %.1f MB read", (unsigned long long)records, (double)done / 1e6);
}

static void print_levels(const machine *m) {
  const mmu_config *mc = &machine_get_spec(m)->sys.mmu;
  for (unsigned i = 0; i < mc->nlevels; i++) {
    const mmu_level_config *lv = &mc->level[i];
    fprintf(stderr, "tlb %-8s serves %s, next %s, latency %u:", lv->name,
            lv->serves == SERVES_DATA ? "data" : lv->serves == SERVES_INST ? "inst" : "both",
            lv->next < 0 ? "walk" : mc->level[lv->next].name, lv->latency);
    for (unsigned a = 0; a < lv->narrays; a++) {
      const tlb_geometry *g = &lv->array[a];
      fprintf(stderr, " [%u entries, %u-way, %s", g->entries, g->ways, tlb_policy_name(g->policy));
      for (unsigned k = 0; k < g->npage_shifts; k++) {
        char buf[32];
        fprintf(stderr, "%s%s", k ? "/" : ", ", num_format_size(1ull << g->page_shift[k], buf, sizeof buf));
      }
      fprintf(stderr, "]");
    }
    fputc('\n', stderr);
  }
}

/* A logged replay: record by record, each through the log. */
static int replay_logged(machine *m, trace_reader *r, tlblog_format f, diag *d) {
  tlblog *log = tlblog_create(m, stdout, f, d);
  if (!log) return -1;
  trace_record rec;
  int rc;
  while ((rc = trace_next(r, &rec, d)) == 1)
    if (tlblog_apply(log, &rec, trace_get_path(r), d)) {
      rc = -1;
      break;
    }
  tlblog_destroy(log);
  return rc;
}

static int apply_logged(void *ctx, const trace_record *rec, const char *file, diag *d) {
  return tlblog_apply(ctx, rec, file, d);
}

/* After each block: every 256th updates the progress line. */
static void each_block(void *ctx) {
  progress *p = ctx;
  if ((++p->blocks & 0xff) == 0) progress_tick(p, p->r, machine_get_stats(p->m)->records);
}

static int replay(machine *m, trace_reader *r, progress *p, diag *d) {
  p->m = m;
  p->r = r;
  int rc = machine_replay(m, r, p->on ? each_block : NULL, p, d);
  if (p->on) fprintf(stderr, "\r%*s\r", 60, "");
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

/* The one trace replayed, or several as CPUs; logged or not. */
static int replay_traces(machine *m, trace_reader **r, const run_opts *o, diag *d) {
  tlblog_format lf = o->format == REPORT_JSON ? TLBLOG_JSON : TLBLOG_TEXT;
  if (o->ntraces == 1) {
    trace_set_thread(r[0], (uint32_t)o->thread);
    if (o->log) return replay_logged(m, r[0], lf, d);
    struct stat st;
    progress p = {.on = isatty(STDERR_FILENO) != 0, .last = now_seconds()};
    if (strcmp(o->trace[0], "-") && stat(o->trace[0], &st) == 0) p.total_bytes = (uint64_t)st.st_size;
    return replay(m, r[0], &p, d);
  }
  if (!o->log) return machine_replay_cpus(m, r, o->ntraces, NULL, NULL, d);
  tlblog *log = tlblog_create(m, stdout, lf, d);
  if (!log) return -1;
  int rc = machine_replay_cpus(m, r, o->ntraces, apply_logged, log, d);
  tlblog_destroy(log);
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

static int report(machine *m, trace_reader **r, const run_opts *o, const char *label, diag *d) {
  char *paths = join_names(r, o->ntraces, false), *formats = join_names(r, o->ntraces, true);
  int rc = paths && formats ? 0 : diag_set(d, NULL, 0, "out of memory");
  if (!rc) {
    json_object *doc = report_run_json(m, paths, formats, label);
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
  if (o.verbose) print_levels(m);
  trace_reader *r[TRACE_THREAD_MAX];
  unsigned opened = 0;
  while (opened < o.ntraces && (r[opened] = trace_open_jobs(o.trace[opened], (trace_format)o.trace_fmt, (unsigned)o.jobs, &d))) opened++;
  rc = EXIT_INPUT;
  if (opened == o.ntraces && replay_traces(m, r, &o, &d) == 0 &&
      (!o.dump_pt || dump_pt(stdout, m) == 0 || diag_set(&d, NULL, 0, "out of memory") == 0)) {
    if (o.dump_pt) putchar('\n');
    if (report(m, r, &o, label, &d) == 0) rc = EXIT_OK;
  }
  for (unsigned i = 0; i < opened; i++) trace_close(r[i]);
  if (rc) cli_input_error(&d);
  machine_destroy(m);
  return rc;
}
