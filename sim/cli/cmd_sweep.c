/* tlbsim sweep — every combination of --vary values over traces, each trace
 * read once and fed to every configuration's machine (sweep.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/sweep.h"

#define SWEEP_MAX_TRACES 4096
#define ASSIGN_MAX (SWEEP_AXIS_TEXT + 2)

typedef struct sweep_opts {
  cli_config conf;
  sweep_grid grid;
  uint64_t jobs;
  sweep_window window;
  int format, trace_fmt; /* report_format, trace_format */
  const char *const *traces;
  size_t ntraces;
} sweep_opts;

static int add_vary(void *grid, const char *arg, char *why, size_t len) { return sweep_grid_add(grid, arg, why, len); }

static int parse_sweep(int argc, char **argv, sweep_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      {.name = "vary", .kind = OPT_CALL, .dest = &o->grid, .arg = "S.K=V1,V2,...", .call = add_vary,
       .help = "the values of a key --set accepts, one configuration each (repeatable:\n"
               "every combination of the keys' values)"},
      {.name = "jobs", .kind = OPT_WHOLE, .dest = &o->jobs, .arg = "N", .lo = 1, .hi = SWEEP_MAX_JOBS,
       .help = "threads the configurations are split over (default 1)"},
      {.name = "skip", .kind = OPT_WHOLE, .dest = &o->window.skip, .arg = "N",
       .help = "do not replay the first N accesses (other records still apply)"},
      {.name = "warmup", .kind = OPT_WHOLE, .dest = &o->window.warmup, .arg = "N",
       .help = "count statistics from the access after the first N replayed"},
      {.name = "max", .kind = OPT_WHOLE, .dest = &o->window.max, .arg = "N", .lo = 1,
       .help = "stop after N replayed accesses (warm-up included)"},
      {.name = "trace-format", .kind = OPT_CHOICE, .dest = &o->trace_fmt, .arg = "F", .choices = trace_format_names,
       .help = "auto (default), native, lackey or din"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "csv (default), text or json"},
  };
  const cli_spec spec = {
      .cmd = "sweep", .usage = "[OPTIONS] --vary S.K=V1,V2,... [--vary ...] TRACE...", .operands = "TRACE",
      .min_operands = 1, .max_operands = SWEEP_MAX_TRACES,
      .about = "Replays each TRACE once through one machine per combination of the --vary values\n"
               "(default preset x86-64) and writes one row per trace and combination: trace, one\n"
               "column per varied key, then every statistic of `tlbsim run`. The columns are the\n"
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
 * --vary values, each named "--vary:K" (K the axis) in errors. */
static int read_spec(const sweep_opts *o, size_t i, machine_spec *spec, diag *d) {
  const char *label, *values[SWEEP_MAX_AXES];
  cfg *conf = cli_load_config(&o->conf, "x86-64", &label, d);
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
  size_t nconfigs;
  machine_spec *specs;
  stats_snapshot *snaps;          /* ntraces × nconfigs, by trace */
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

static int results_alloc(sweep_results *r, size_t nconfigs, size_t ntraces, size_t naxes) {
  *r = (sweep_results){.nconfigs = nconfigs};
  r->specs = calloc(nconfigs, sizeof *r->specs);
  r->snaps = calloc(nconfigs * ntraces, sizeof *r->snaps);
  r->values = calloc(nconfigs * (naxes ? naxes : 1), sizeof *r->values);
  r->format_name = calloc(ntraces, sizeof *r->format_name);
  r->rows = calloc(nconfigs * ntraces, sizeof *r->rows);
  return r->specs && r->snaps && r->values && r->format_name && r->rows ? 0 : -1;
}

static int run_traces(const sweep_opts *o, sweep_results *res, diag *d) {
  size_t n = res->nconfigs;
  for (size_t t = 0; t < o->ntraces; t++) {
    trace_reader *r = trace_open(o->traces[t], (trace_format)o->trace_fmt, d);
    if (!r) return -1;
    snprintf(res->format_name[t], sizeof res->format_name[t], "%s", trace_format_name(trace_get_format(r)));
    int rc = sweep_trace(res->specs, n, r, &o->window, (unsigned)o->jobs, &res->snaps[t * n], d);
    const char *name = strcmp(o->traces[t], "-") ? o->traces[t] : "<stdin>";
    for (size_t i = 0; i < n && !rc; i++)
      res->rows[t * n + i] = (sweep_row){.trace = name, .trace_format = res->format_name[t],
                                         .values = &res->values[i * o->grid.naxes], .spec = &res->specs[i],
                                         .snap = &res->snaps[t * n + i]};
    trace_close(r);
    if (rc) return -1;
  }
  return 0;
}

static int sweep_main(const sweep_opts *o) {
  size_t n = sweep_grid_count(&o->grid);
  sweep_results res;
  diag d;
  int rc = EXIT_INPUT;
  if (results_alloc(&res, n, o->ntraces, o->grid.naxes)) {
    diag_set(&d, NULL, 0, "tlbsim sweep: out of memory");
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    if (read_spec(o, i, &res.specs[i], &d)) goto out;
    sweep_grid_values(&o->grid, i, &res.values[i * o->grid.naxes]);
  }
  sweep_columns *cols = malloc(sizeof *cols);
  if (!cols) {
    diag_set(&d, NULL, 0, "tlbsim sweep: out of memory");
    goto out;
  }
  if (!sweep_columns_build(res.specs, n, cols, &d) && !run_traces(o, &res, &d)) {
    sweep_write(stdout, (report_format)o->format, &o->grid, cols, res.rows, n * o->ntraces);
    rc = EXIT_OK;
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
  o->jobs = 1;
  o->format = REPORT_CSV;
  o->trace_fmt = TRACE_AUTO;
  int rc = parse_sweep(n, args, o);
  if (rc == 0) rc = sweep_main(o);
  else if (rc < 0) rc = EXIT_OK;
  free(args);
  free(o);
  return rc;
}
