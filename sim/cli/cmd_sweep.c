/* tlbsim sweep — every combination of --vary values over traces, each trace
 * read once and fed to every configuration's machine (sweep.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "sweep_cluster.h"
#include "tlbsim/sweep.h"

#define SWEEP_MAX_TRACES 4096
#define ASSIGN_MAX (SWEEP_AXIS_TEXT + 2)

typedef struct sweep_opts {
  cli_config conf;
  sweep_grid grid;
  uint64_t jobs; /* 0: not given (configurations on one thread, decoding on every core) */
  sweep_window window;
  int format, trace_fmt; /* report_format, trace_format */
  bool quiet;
  const char *const *traces;
  size_t ntraces;
  int emit;           /* --emit: 0 slurm, -1 none */
  const char *emit_dir, *merge_dir, *configs;
  uint64_t slices;
  size_t first, count; /* --configs: the configurations run */
} sweep_opts;

static const char *const emit_names[] = {"slurm", NULL};

static int add_vary(void *grid, const char *arg, char *why, size_t len) { return sweep_grid_add(grid, arg, why, len); }

static int parse_sweep(int argc, char **argv, sweep_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      {.name = "vary", .kind = OPT_CALL, .dest = &o->grid, .arg = "S.K=V1,V2,...", .call = add_vary,
       .help = "the values of a key --set accepts, one configuration each (repeatable:\n"
               "every combination of the keys' values)"},
      {.name = "jobs", .kind = OPT_WHOLE, .dest = &o->jobs, .arg = "N", .lo = 1, .hi = SWEEP_MAX_JOBS,
       .help = "threads the configurations are split over (default 1), and a multi-block\n"
               "xz trace is decoded on (default: the cores available)"},
      {.name = "skip", .kind = OPT_WHOLE, .dest = &o->window.skip, .arg = "N",
       .help = "do not replay the first N accesses (other records still apply)"},
      {.name = "warmup", .kind = OPT_WHOLE, .dest = &o->window.warmup, .arg = "N",
       .help = "count statistics from the access after the first N replayed"},
      {.name = "max", .kind = OPT_WHOLE, .dest = &o->window.max, .arg = "N", .lo = 1,
       .help = "stop after N replayed accesses (warm-up included)"},
      {.name = "interval", .kind = OPT_WHOLE, .dest = &o->window.interval, .arg = "N", .lo = 1,
       .help = "a row per configuration every N counted accesses (and one for the rest),\n"
               "with the statistics of those accesses only; written as they come (JSON:\n"
               "one object per line, text: a table per interval)"},
      {.name = "trace-format", .kind = OPT_CHOICE, .dest = &o->trace_fmt, .arg = "F", .choices = trace_format_names,
       .help = "auto (default: from the first bytes), native, lackey, din, binary, champsim or pinatrace"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "csv (default), text or json"},
      CLI_QUIET_OPT(&o->quiet),
      {.name = "emit", .kind = OPT_CHOICE, .dest = &o->emit, .arg = "slurm", .choices = emit_names,
       .help = "run nothing: the first operand is a directory DIR that gets a Slurm job\n"
               "array (DIR/sweep.sbatch) and its manifest (DIR/manifest.tsv), a task per\n"
               "TRACE and slice of the configurations, each writing DIR/out/TASK.csv"},
      {.name = "slices", .kind = OPT_WHOLE, .dest = &o->slices, .arg = "K", .lo = 1, .hi = SWEEP_MAX_CONFIGS,
       .help = "--emit: the configurations of each trace in K tasks (default 1)"},
      {.name = "merge", .kind = OPT_TEXT, .dest = &o->merge_dir, .arg = "DIR",
       .help = "join the CSVs of the tasks of DIR/manifest.tsv, in its order, checking\n"
               "that none is missing, extra or cut short (no TRACE)"},
      {.name = "configs", .kind = OPT_TEXT, .dest = &o->configs, .arg = "FIRST-LAST",
       .help = "only configurations FIRST to LAST (from 0, in grid order), with the\n"
               "columns of the whole grid: a task of --emit"},
  };
  const cli_spec spec = {
      .cmd = "sweep",
      .usage = "[OPTIONS] --vary S.K=V1,V2,... [--vary ...] TRACE...\n"
               "       tlbsim sweep [OPTIONS] --emit slurm DIR TRACE...  |  tlbsim sweep --merge DIR",
      .operands = "TRACE", .min_operands = 0, .max_operands = SWEEP_MAX_TRACES + 1,
      .one_stdin = true,
      .about = "Replays each TRACE once through one machine per combination of the --vary values\n"
               "(default preset x86-64) and writes one row per trace and combination: trace, one\n"
               "column per varied key, then every column of tlbsim run. The columns are the\n"
               "same for every row (the union over the configurations; empty where one lacks a\n"
               "TLB level or walk cache).",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0],
      .notes = "A value of --vary is one value: a key whose value is itself a list (a TLB's page_size)\n"
               "cannot be varied. Results do not depend on --jobs. -j N is --jobs N.\n"};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  if (o->window.max && o->window.warmup >= o->window.max)
    return cli_usage_error("sweep", "--warmup (%llu) leaves nothing of --max (%llu) to count",
                           (unsigned long long)o->window.warmup, (unsigned long long)o->window.max);
  int nops = argc - first;
  if (o->merge_dir) {
    if (nops) return cli_usage_error("sweep", "--merge DIR takes no TRACE");
    return 0;
  }
  if (o->emit >= 0) {
    if (nops < 2) return cli_usage_error("sweep", "--emit slurm takes a directory, then at least one TRACE (see --help)");
    if (o->format != REPORT_CSV) return cli_usage_error("sweep", "--emit: the tasks write CSV (not --format %s)",
                                                         report_format_names[o->format]);
    if (o->configs) return cli_usage_error("sweep", "--emit chooses the --configs of each task itself");
    o->emit_dir = argv[first++];
    nops--;
    for (int i = first; i < argc; i++)
      if (!strcmp(argv[i], "-") || strpbrk(argv[i], "\t\n"))
        return cli_usage_error("sweep", "--emit: '%s' is not a file a task can read (stdin, a tab or a newline)",
                               argv[i]);
  } else if (o->slices != 1)
    return cli_usage_error("sweep", "--slices is for --emit");
  if (nops < 1) return cli_usage_error("sweep", "expected at least one TRACE (see --help)");
  if (nops > SWEEP_MAX_TRACES) return cli_usage_error("sweep", "at most %d TRACEs", SWEEP_MAX_TRACES);
  size_t n = sweep_grid_count(&o->grid);
  o->first = 0;
  o->count = n;
  if (o->configs) {
    unsigned long long a, b;
    int used = 0;
    if (sscanf(o->configs, "%llu-%llu%n", &a, &b, &used) != 2 || o->configs[used] || o->configs[0] == '-' ||
        a > b || b >= n)
      return cli_usage_error("sweep", "--configs: '%s' is not FIRST-LAST within 0-%zu", o->configs, n - 1);
    o->first = (size_t)a;
    o->count = (size_t)(b - a + 1);
  }
  o->traces = (const char *const *)argv + first;
  o->ntraces = (size_t)(argc - first);
  return 0;
}

/* argv with -j N and -jN spelt --jobs N: the option tables take long
 * options only. NULL when out of memory. */
static char **long_jobs(int argc, char **argv, int *out_argc) {
  char **v = calloc((size_t)argc * 2 + 1, sizeof *v);
  if (!v) return NULL;
  int n = 0;
  bool operands = false; /* after "--" */
  for (int i = 0; i < argc; i++) {
    operands = operands || !strcmp(argv[i], "--");
    if (i && !operands && !strncmp(argv[i], "-j", 2)) {
      v[n++] = "--jobs";
      if (argv[i][2]) v[n++] = argv[i] + 2;
      continue;
    }
    v[n++] = argv[i];
  }
  *out_argc = n;
  return v;
}

/* The spec of configuration i: the preset or file, the --sets, then its
 * --vary values, each named "--vary:K" (K the axis) in errors. *label:
 * the base configuration's name. */
static int read_spec(const sweep_opts *o, size_t i, machine_spec *spec, const char **label, diag *d) {
  const char *values[SWEEP_MAX_AXES];
  cfg *conf = cli_load_config(&o->conf, "x86-64", label, d);
  if (!conf) return -1;
  sweep_grid_values(&o->grid, i, values);
  int rc = 0;
  for (size_t k = 0; k < o->grid.naxes && !rc; k++) {
    char assign[ASSIGN_MAX];
    snprintf(assign, sizeof assign, "%s=%s", o->grid.axis[k].key, values[k]);
    rc = cfg_set(conf, assign, "--vary", k + 1, d);
  }
  machine *m = NULL;
  if (!rc && (machine_spec_read(conf, spec, d) || !(m = machine_create(spec, d)) || cfg_check_unused(conf, d)))
    rc = -1;
  machine_destroy(m);
  cfg_destroy(conf);
  return rc;
}

typedef struct sweep_results {
  const char *config;             /* the base configuration's name, as run's `config` */
  size_t nconfigs;                /* specs and values: every configuration */
  size_t first, count;            /* snaps and rows: configurations first .. first + count - 1 */
  machine_spec *specs;
  stats_snapshot *snaps;          /* ntraces × count, by trace */
  const char **values;            /* nconfigs × naxes */
  char (*format_name)[16];        /* per trace */
  sweep_row *rows;
} sweep_results;

static void results_free(sweep_results *r) {
  free(r->specs);
  free(r->snaps);
  free(r->values);
  free(r->format_name);
  free(r->rows);
}

static int results_alloc(sweep_results *r, size_t nconfigs, size_t first, size_t count, size_t ntraces,
                         size_t naxes) {
  *r = (sweep_results){.nconfigs = nconfigs, .first = first, .count = count};
  r->specs = calloc(nconfigs, sizeof *r->specs);
  r->snaps = calloc(count * ntraces, sizeof *r->snaps);
  r->values = calloc(nconfigs * (naxes ? naxes : 1), sizeof *r->values);
  r->format_name = calloc(ntraces, sizeof *r->format_name);
  r->rows = calloc(count * ntraces, sizeof *r->rows);
  return r->specs && r->snaps && r->values && r->format_name && r->rows ? 0 : -1;
}

/* --interval: the rows of one trace's intervals, written as they come. */
typedef struct interval_out {
  const sweep_opts *o;
  const sweep_columns *cols;
  sweep_results *res;
  size_t trace;
} interval_out;

static void fill_rows(const sweep_opts *o, sweep_results *res, size_t t, const stats_snapshot *snaps) {
  size_t n = res->count;
  const char *name = strcmp(o->traces[t], "-") ? o->traces[t] : "<stdin>";
  for (size_t i = 0; i < n; i++) {
    size_t c = res->first + i;
    res->rows[t * n + i] = (sweep_row){.trace = name, .trace_format = res->format_name[t], .config = res->config,
                                       .values = &res->values[c * o->grid.naxes], .spec = &res->specs[c],
                                       .snap = &snaps[i]};
  }
}

static void write_interval(void *ctx, const sweep_interval *iv) {
  interval_out *io = ctx;
  size_t n = io->res->count;
  sweep_row *rows = &io->res->rows[io->trace * n];
  fill_rows(io->o, io->res, io->trace, iv->snap);
  for (size_t i = 0; i < n; i++) rows[i].interval = iv->index, rows[i].accesses_end = iv->accesses_end;
  sweep_write_interval(stdout, (report_format)io->o->format, &io->o->grid, io->cols, rows, n);
}

/* The progress line and ^C, after each block. */
static int each_block(void *ctx, uint64_t accesses) { return cli_trace_watch_tick(ctx, accesses); }

/* Every trace through the configurations: 0, 1 when ^C stopped it (the
 * rows of the trace it stopped in are partial; later traces have none),
 * -1 (d). *nrows: the rows filled. */
static int run_traces(const sweep_opts *o, const sweep_columns *cols, sweep_results *res, size_t *nrows, diag *d) {
  size_t n = res->count;
  interval_out io = {.o = o, .cols = cols, .res = res};
  cli_trace_watch wt;
  sweep_window w = o->window;
  w.each_block = each_block;
  w.block_ctx = &wt;
  /* Interval rows go to stdout as they come: no progress line among them on a terminal. */
  bool quiet = o->quiet || (w.interval && isatty(STDOUT_FILENO));
  if (w.interval) {
    w.on_interval = write_interval;
    w.ctx = &io;
    if (o->format == REPORT_CSV) sweep_write_csv_header(stdout, &o->grid, cols);
  }
  int rc = 0;
  *nrows = 0;
  for (size_t t = 0; t < o->ntraces && rc == 0; t++) {
    trace_reader *r = trace_open_jobs(o->traces[t], (trace_format)o->trace_fmt, (unsigned)o->jobs, d);
    if (!r) {
      rc = -1;
      break;
    }
    snprintf(res->format_name[t], sizeof res->format_name[t], "%s", trace_format_name(trace_get_format(r)));
    io.trace = t;
    cli_trace_watch_start(&wt, "sweep", quiet, r, o->traces[t], "accesses");
    snprintf(wt.prefix, sizeof wt.prefix, "trace %zu of %zu, ", t + 1, o->ntraces);
    rc = sweep_trace(res->specs + res->first, n, r, &w, (unsigned)o->jobs, &res->snaps[t * n], d);
    if (rc == 0 && cli_check_nonempty(r, d)) rc = -1;
    if (rc >= 0) fill_rows(o, res, t, &res->snaps[t * n]);
    for (size_t i = 0; rc > 0 && i < n; i++) res->rows[t * n + i].partial = true;
    if (rc >= 0) *nrows += n;
    trace_close(r);
    cli_progress_end(&wt.line);
  }
  if (rc > 0) cli_interrupted_note("sweep", wt.stopped_at);
  return rc;
}

/* The options every task of --emit repeats, rebuilt from what was parsed
 * (in `text`, words pointing into it and into o). */
#define WORDS_MAX (8 + 2 * CLI_MAX_SETS + 2 * SWEEP_MAX_AXES + 16)
typedef struct task_words {
  const char *w[WORDS_MAX];
  size_t n;
  char vary[SWEEP_MAX_AXES][ASSIGN_MAX];
  char num[5][24];
} task_words;

static void task_words_build(const sweep_opts *o, task_words *t) {
  t->n = 0;
  if (o->conf.preset) t->w[t->n++] = "--preset", t->w[t->n++] = o->conf.preset;
  if (o->conf.config) t->w[t->n++] = "--config", t->w[t->n++] = o->conf.config;
  for (unsigned i = 0; i < o->conf.nsets; i++) t->w[t->n++] = "--set", t->w[t->n++] = o->conf.sets[i];
  for (size_t k = 0; k < o->grid.naxes; k++) {
    const sweep_axis *a = &o->grid.axis[k];
    int at = snprintf(t->vary[k], sizeof t->vary[k], "%s=", a->key);
    for (size_t v = 0; v < a->nvalues; v++)
      at += snprintf(t->vary[k] + at, sizeof t->vary[k] - (size_t)at, "%s%s", v ? "," : "", a->value[v]);
    t->w[t->n++] = "--vary", t->w[t->n++] = t->vary[k];
  }
  static const char *const names[] = {"--jobs", "--skip", "--warmup", "--max", "--interval"};
  const uint64_t values[] = {o->jobs, o->window.skip, o->window.warmup, o->window.max, o->window.interval};
  for (int i = 0; i < 5; i++) {
    if (!values[i]) continue;
    snprintf(t->num[i], sizeof t->num[i], "%llu", (unsigned long long)values[i]);
    t->w[t->n++] = names[i], t->w[t->n++] = t->num[i];
  }
  if (o->trace_fmt != TRACE_AUTO) t->w[t->n++] = "--trace-format", t->w[t->n++] = trace_format_names[o->trace_fmt];
}

static int emit_main(const sweep_opts *o) {
  diag d;
  /* Every configuration is read once here, so that a bad --set or --vary
     stops the emit rather than every task. */
  size_t n = sweep_grid_count(&o->grid);
  machine_spec *spec = malloc(sizeof *spec);
  task_words *w = malloc(sizeof *w);
  int rc = EXIT_INPUT;
  if (!spec || !w) diag_set(&d, NULL, 0, "tlbsim sweep: out of memory");
  else {
    size_t i = 0;
    const char *label;
    while (i < n && !read_spec(o, i, spec, &label, &d)) i++;
    task_words_build(o, w);
    sweep_emit e = {.dir = o->emit_dir, .words = w->w, .nwords = w->n, .traces = o->traces, .ntraces = o->ntraces,
                    .nconfigs = n, .slices = o->slices < n ? o->slices : n, .jobs = o->jobs ? (unsigned)o->jobs : 1,
                    .rows_known = !o->window.interval};
    if (i == n && !sweep_emit_slurm(&e, &d)) rc = EXIT_OK;
  }
  if (rc) cli_input_error(&d);
  free(spec);
  free(w);
  return rc;
}

static int sweep_main(const sweep_opts *o) {
  size_t n = sweep_grid_count(&o->grid);
  sweep_results res;
  diag d;
  int rc = EXIT_INPUT;
  if (results_alloc(&res, n, o->first, o->count, o->ntraces, o->grid.naxes)) {
    diag_set(&d, NULL, 0, "tlbsim sweep: out of memory");
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    if (read_spec(o, i, &res.specs[i], &res.config, &d)) goto out;
    sweep_grid_values(&o->grid, i, &res.values[i * o->grid.naxes]);
  }
  sweep_columns *cols = malloc(sizeof *cols);
  if (!cols) {
    diag_set(&d, NULL, 0, "tlbsim sweep: out of memory");
    goto out;
  }
  if (!sweep_columns_build(res.specs, n, cols, &d)) {
    cols->intervals = o->window.interval > 0;
    size_t nrows;
    int replayed = run_traces(o, cols, &res, &nrows, &d);
    if (replayed >= 0) {
      cols->partial = replayed > 0 && !o->window.interval; /* interval rows are out already */
      if (!o->window.interval) sweep_write(stdout, (report_format)o->format, &o->grid, cols, res.rows, nrows);
      rc = replayed ? CLI_EXIT_INTERRUPTED : EXIT_OK;
    }
  }
  free(cols);
out:
  if (rc) cli_input_error(&d);
  results_free(&res);
  return rc;
}

int cmd_sweep(int argc, char **argv) {
  sweep_opts *o = calloc(1, sizeof *o);
  int n;
  char **args = long_jobs(argc, argv, &n);
  if (!o || !args) {
    free(o);
    free(args);
    fprintf(stderr, "tlbsim sweep: out of memory\n");
    return EXIT_INPUT;
  }
  o->slices = 1;
  o->emit = -1;
  o->format = REPORT_CSV;
  o->trace_fmt = TRACE_AUTO;
  int rc = parse_sweep(n, args, o);
  if (rc == 0) rc = o->merge_dir ? sweep_merge(o->merge_dir, stdout) : o->emit >= 0 ? emit_main(o) : sweep_main(o);
  else if (rc < 0) rc = EXIT_OK;
  free(args);
  free(o);
  return rc;
}
