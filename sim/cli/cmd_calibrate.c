/* tlbsim calibrate — fit a preset's latencies to a measured chase CSV.
 *
 * Which level serves each load, how many walks and page-table reads it
 * takes, does not depend on the latencies; the cycles do, linearly. So one
 * simulation per row gives, per load, the count that multiplies each
 * latency, and a least-squares solve of measured = data + sum(count *
 * latency) gives them all. Latencies no row exercises, or whose counts
 * repeat an earlier one's exactly, keep their preset value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chase_rows.h"
#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"

#define MAX_PARAMS SYSTEM_MAX_COST_TERMS

typedef struct param {
  system_cost_term term; /* its section and key */
  double preset, value; /* value: the fit (the preset's while not fitted) */
  bool wanted; /* a candidate: every latency, or those --fit names */
  bool fitted;
  bool held; /* the unconstrained fit wanted it below zero: held at 0 */
  int same_as; /* >= 0: paid on exactly the rows and loads of that parameter, kept at the preset */
} param;

typedef struct calibrate_opts {
  cli_config conf;
  chase_row_filter filter;
  int data_latency; /* 1: the preset's data_cycles, fitted, for every row */
  const char *out, *machine_out, *fit, *csv;
  bool quiet;
} calibrate_opts;

static int parse_calibrate(int argc, char **argv, calibrate_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      CHASE_ROW_OPTS(&o->filter, &o->data_latency),
      {.name = "out", .kind = OPT_TEXT, .dest = &o->out, .arg = "FILE.ini",
       .help = "write the preset's file with the fitted values (never over an existing file)"},
      {.name = "machine-file", .kind = OPT_TEXT, .dest = &o->machine_out, .arg = "FILE.ini",
       .help = "write a machine file: only the fitted keys, each with a comment naming\n"
               "MEASURED.csv, to lay over the preset (--preset NAME --config FILE.ini);\n"
               "never over an existing file"},
      {.name = "fit", .kind = OPT_TEXT, .dest = &o->fit, .arg = "LIST",
       .help = "fit only these keys (SECTION.KEY, comma-separated, e.g.\n"
               "tlb.l3.latency,latency.walk_cycles); the rest keep their configured values"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "calibrate", .usage = "[OPTIONS] MEASURED.csv", .operands = "MEASURED.csv", .min_operands = 1,
      .max_operands = 1,
      .about = "Fits the latency parameters of a preset (default h200) to a measured chase CSV by least\n"
               "squares: [latency] data_cycles (only with --data-latency preset, or when the CSV has no\n"
               "base_cycles), each [tlb.NAME] latency, [latency] walk_cycles and walk_ref_cycles, [ptcache]\n"
               "hit_cycles. The TLB structure (entries, sectors, policies) stays as configured. No latency\n"
               "goes below 0 (one the fit wants negative is held at 0 and the rest refitted); one paid on\n"
               "exactly the same loads as another (L2 when no load hits L1) keeps its preset value. Prints\n"
               "the fitted values and the fit's error. A short probe of one machine (gpu/README.md, \"The\n"
               "probe\") fitted with --fit and --machine-file gives that machine's file.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->csv = argv[first];
  return 0;
}

/* The parameters: the latency model's terms (system_cost_terms), in order. */
static unsigned list_params(const system_spec *sys, param *p) {
  system_cost_term t[SYSTEM_MAX_COST_TERMS];
  unsigned n = system_cost_terms(sys, t);
  for (unsigned j = 0; j < n; j++) {
    p[j] = (param){.term = t[j], .preset = t[j].cycles, .value = t[j].cycles, .same_as = -1, .wanted = true};
  }
  return n;
}

/* Per-load counts of row r, in list_params' order. */
static void features(const system_spec *sys, const chase_result *r, double *x) {
  mmu_stats st = {.translations = r->loads, .walks = r->walks, .walk_refs = r->walk_refs, .line_hits = r->line_hits};
  unsigned n = system_cost_counts(sys, &st, r->level, x);
  for (unsigned j = 0; j < n; j++) x[j] /= (double)r->loads;
}

/* Solves the k x k system a * t = b in place (partial pivoting); -1 when singular. */
static int solve(double *a, double *b, unsigned k) {
  for (unsigned c = 0; c < k; c++) {
    unsigned piv = c;
    for (unsigned r = c + 1; r < k; r++)
      if (fabs(a[r * k + c]) > fabs(a[piv * k + c])) piv = r;
    if (fabs(a[piv * k + c]) < 1e-12) return -1;
    for (unsigned j = 0; j < k; j++) {
      double t = a[c * k + j];
      a[c * k + j] = a[piv * k + j];
      a[piv * k + j] = t;
    }
    double t = b[c];
    b[c] = b[piv];
    b[piv] = t;
    for (unsigned r = 0; r < k; r++) {
      if (r == c) continue;
      double f = a[r * k + c] / a[c * k + c];
      for (unsigned j = c; j < k; j++) a[r * k + j] -= f * a[c * k + j];
      b[r] -= f * b[c];
    }
  }
  for (unsigned c = 0; c < k; c++) b[c] /= a[c * k + c];
  return 0;
}

/* --fit LIST: only the named parameters are candidates; a name that is not
 * one of them is a usage error listing those there are. */
static int select_fit(const char *list, param *p, unsigned np) {
  for (unsigned j = 0; j < np; j++) p[j].wanted = false;
  const char *item = list;
  while (*item) {
    size_t len = strcspn(item, ","), sec = len;
    while (sec > 0 && item[sec - 1] != '.') sec--; /* SECTION.KEY: the section ends at the last dot */
    bool found = false;
    for (unsigned j = 0; j < np && !found && sec > 1; j++)
      if (strlen(p[j].term.section) == sec - 1 && !strncmp(p[j].term.section, item, sec - 1) &&
          strlen(p[j].term.key) == len - sec && !strncmp(p[j].term.key, item + sec, len - sec))
        found = p[j].wanted = true;
    if (!found) {
      char known[1024] = "";
      for (unsigned j = 0, at = 0; j < np; j++) {
        int w = snprintf(known + at, sizeof known - at, "%s%s.%s", j ? ", " : "", p[j].term.section, p[j].term.key);
        if (w < 0 || (size_t)w >= sizeof known - at) break;
        at += (unsigned)w;
      }
      return cli_usage_error("calibrate", "--fit: '%.*s' is not one of %s", (int)len, item, known);
    }
    item += len + (item[len] == ',');
  }
  return 0;
}

/* Columns worth fitting: exercised by some row, not a copy of an earlier one
 * (a copy keeps its preset value; the earlier one absorbs any difference). */
static unsigned choose(const double *x, size_t n, unsigned np, bool fit_data, param *p, unsigned *cols) {
  unsigned k = 0;
  for (unsigned j = fit_data ? 0 : 1; j < np; j++) {
    if (!p[j].wanted) continue;
    bool used = false, copy = false;
    for (size_t i = 0; i < n; i++) used |= x[i * np + j] > 1e-12;
    for (unsigned c = 0; used && c < k && !copy; c++) {
      bool same = true;
      for (size_t i = 0; i < n && same; i++) same = fabs(x[i * np + j] - x[i * np + cols[c]]) < 1e-12;
      copy = same;
      if (copy) p[j].same_as = (int)cols[c];
    }
    if (used && !copy) {
      cols[k++] = j;
      p[j].fitted = true;
    }
  }
  return k;
}

/* Least squares over the chosen columns; y has the fixed terms removed. */
static int fit(const double *x, const double *y, size_t n, unsigned np, const unsigned *cols, unsigned k, param *p) {
  double a[MAX_PARAMS * MAX_PARAMS] = {0}, b[MAX_PARAMS] = {0};
  for (size_t i = 0; i < n; i++)
    for (unsigned r = 0; r < k; r++) {
      b[r] += x[i * np + cols[r]] * y[i];
      for (unsigned c = 0; c < k; c++) a[r * k + c] += x[i * np + cols[r]] * x[i * np + cols[c]];
    }
  if (solve(a, b, k)) return -1;
  for (unsigned r = 0; r < k; r++) p[cols[r]].value = b[r];
  return 0;
}

/* Least squares with every latency >= 0: while the fit wants one below
 * zero, the most negative is held at 0 and the rest refitted (a cycle count
 * cannot be negative; a negative one only absorbs other terms' error). */
static int fit_nonnegative(const double *x, const double *y, size_t n, unsigned np, const unsigned *cols, unsigned k,
                           param *p) {
  unsigned free_cols[MAX_PARAMS];
  memcpy(free_cols, cols, k * sizeof *cols);
  while (k) {
    if (fit(x, y, n, np, free_cols, k, p)) return -1;
    unsigned worst = k;
    for (unsigned r = 0; r < k; r++)
      if (p[free_cols[r]].value < 0 && (worst == k || p[free_cols[r]].value < p[free_cols[worst]].value)) worst = r;
    if (worst == k) return 0;
    p[free_cols[worst]].value = 0;
    p[free_cols[worst]].held = true;
    free_cols[worst] = free_cols[--k];
  }
  return 0;
}

/* Only what the configuration reads back: a whole number of cycles in a
 * latency's range (an ill-conditioned fit can give any double). */
static bool check_fit_range(const char *out, const param *p, unsigned np, diag *d) {
  for (unsigned j = 0; j < np; j++)
    if (p[j].fitted && !(p[j].value >= 0 && round(p[j].value) <= (double)NUM_U32_MAX)) {
      diag_set(d, out, 0, "%s.%s: the fit gives %g cycles, out of range (0..4294967295): not written", p[j].term.section,
               p[j].term.key, p[j].value);
      return false;
    }
  return true;
}

/* Copies the preset file to out with the fitted keys' values replaced
 * (or added under their section, or in a new section at the end). The
 * file appears whole or not at all, and never over an existing one. */
static int write_preset(const cfg *c, const char *out, const char *csv, const param *p, unsigned np, diag *d) {
  const char *src = cfg_file(c), *text = cfg_text(c); /* a preset compiled in is text */
  if (!check_fit_range(out, p, np, d)) return -1;
  const char *inputs[] = {csv, text ? NULL : src, NULL};
  cli_out written;
  if (cli_out_open(&written, out, true, inputs, d)) return -1;
  FILE *in = text ? fmemopen((void *)(uintptr_t)text, strlen(text), "r") : fopen(src, "r"), *o = written.f;
  if (!in) {
    cli_out_discard(&written);
    return diag_set(d, src, 0, "cannot read");
  }
  bool done[MAX_PARAMS] = {0};
  char line[1024], section[128] = "";
  fprintf(o, "; calibrated by tlbsim calibrate against %s\n", csv);
  while (fgets(line, sizeof line, in)) {
    char key[64];
    if (line[0] == '[' && sscanf(line, "[%127[^]]]", section) == 1) {
      fputs(line, o);
      continue;
    }
    bool replaced = false;
    if (sscanf(line, " %63[A-Za-z0-9_] =", key) == 1)
      for (unsigned j = 0; j < np; j++)
        if (p[j].fitted && !done[j] && !strcmp(section, p[j].term.section) && !strcmp(key, p[j].term.key)) {
          fprintf(o, "%s = %.0f\n", key, round(p[j].value));
          done[j] = replaced = true;
        }
    if (!replaced) fputs(line, o);
  }
  for (unsigned j = 0; j < np; j++)
    if (p[j].fitted && !done[j]) fprintf(o, "\n[%s]\n%s = %.0f\n", p[j].term.section, p[j].term.key, round(p[j].value));
  bool bad = ferror(in);
  fclose(in);
  if (bad) {
    cli_out_discard(&written);
    return diag_set(d, src, 0, "read error");
  }
  return cli_out_commit(&written, d);
}

/* The machine file: the fitted keys alone, by section, each with the probe
 * it was fitted to, to lay over the preset with --config. Whole or not at
 * all, and never over an existing file. */
static int write_machine_file(const char *out, const char *label, const char *preset_file, const char *csv,
                              size_t rows, const param *p, unsigned np, diag *d) {
  if (!check_fit_range(out, p, np, d)) return -1;
  const char *inputs[] = {csv, preset_file, NULL};
  cli_out written;
  if (cli_out_open(&written, out, true, inputs, d)) return -1;
  FILE *o = written.f;
  fprintf(o, "; Machine file: what tlbsim calibrate fitted to %s (%zu rows) over preset %s.\n"
             "; Every other key is the preset's. Use: tlbsim validate --preset %s --config %s ...\n",
          csv, rows, label, label, out);
  bool done[MAX_PARAMS] = {0};
  for (unsigned s = 0; s < np; s++) { /* a section once, its keys together */
    if (!p[s].fitted || done[s]) continue;
    fprintf(o, "\n[%s]\n", p[s].term.section);
    for (unsigned j = s; j < np; j++) {
      if (!p[j].fitted || strcmp(p[j].term.section, p[s].term.section)) continue;
      fprintf(o, "; fitted to %s: %.1f cycles (preset %.0f)%s\n%s = %.0f\n", csv, p[j].value, p[j].preset,
              p[j].held ? "; held at 0: the fit wanted it negative" : "", p[j].term.key, round(p[j].value));
      done[j] = true;
    }
  }
  return cli_out_commit(&written, d);
}

static void report(const param *p, unsigned np, const double *x, const double *base, const chase_row *rows, size_t n) {
  printf("%-22s %-16s %10s %10s\n", "section", "key", "preset", "fitted");
  for (unsigned j = 0; j < np; j++)
    if (p[j].fitted)
      printf("%-22s %-16s %10.0f %10.1f%s\n", p[j].term.section, p[j].term.key, p[j].preset, p[j].value,
             p[j].held ? "  (held at 0: the fit wanted it negative)" : "");
    else if (p[j].same_as >= 0)
      printf("%-22s %-16s %10.0f %10s  (kept: paid exactly when %s %s is)\n", p[j].term.section, p[j].term.key, p[j].preset,
              "-", p[p[j].same_as].term.section, p[p[j].same_as].term.key);
  double sum = 0, worst = 0;
  for (size_t i = 0; i < n; i++) {
    double pred = base[i];
    for (unsigned j = 0; j < np; j++) pred += (base[i] > 0 && j == 0 ? 0 : x[i * np + j] * p[j].value);
    double err = fabs(pred - rows[i].measured);
    sum += 100 * err / rows[i].measured;
    if (err > worst) worst = err;
  }
  printf("\n%zu rows; the linear fit's mean absolute error %.3f%%, worst %.1f cycles (per-pass medians\n"
         "can differ slightly: check with tlbsim validate)\n", n, n ? sum / (double)n : 0, worst);
}

int cmd_calibrate(int argc, char **argv) {
  calibrate_opts o = {0};
  int rc = parse_calibrate(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine_spec spec;
  cfg *c = cli_load_spec(&o.conf, "h200", &label, &spec, &d);
  if (!c) return cli_input_error(&d);
  chase_row *rows = NULL;
  size_t n = 0, skipped;
  param p[MAX_PARAMS];
  const system_spec *sys = &spec.sys;
  unsigned np = list_params(sys, p), cols[MAX_PARAMS];
  double *x = NULL, *y = NULL, *base = NULL;
  if (o.out && o.conf.preset && o.conf.config) {
    cfg_destroy(c);
    return cli_usage_error("calibrate", "--out copies one preset file: with --config over --preset, "
                                        "write a machine file (--machine-file)");
  }
  if (o.machine_out && o.conf.config) { /* its keys alone would drop the --config file's */
    cfg_destroy(c);
    return cli_usage_error("calibrate", "--machine-file is laid over a preset: fit with --preset alone");
  }
  if (o.fit && (rc = select_fit(o.fit, p, np))) {
    cfg_destroy(c);
    return rc;
  }
  rc = EXIT_INPUT;
  /* --out is checked before the fit, which takes minutes on a full CSV; the
     write checks again (no_clobber: a file that appeared meanwhile stays). */
  struct stat st;
  if (o.out && !cfg_file(c)) {
    diag_set(&d, "--out", 0, "no preset file to start from");
    goto out;
  }
  const char *outputs[] = {o.out, o.machine_out};
  for (size_t i = 0; i < 2; i++)
    if (outputs[i] && !stat(outputs[i], &st)) {
      diag_set(&d, outputs[i], 0, "exists; it is never overwritten (nothing was fitted)");
      goto out;
    }
  if (chase_rows_load(o.csv, &o.filter, &rows, &n, &skipped, &d)) goto out;
  x = malloc((n + 1) * np * sizeof *x);
  y = malloc((n + 1) * sizeof *y);
  base = malloc((n + 1) * sizeof *base);
  if (!x || !y || !base) {
    diag_set(&d, o.csv, 0, "out of memory");
    goto out;
  }
  bool fit_data = o.data_latency == 1;
  cli_progress line;
  cli_progress_start(&line, "calibrate", o.quiet);
  for (size_t i = 0; i < n; i++) {
    cli_progress_count(&line, i, n, "rows simulated");
    chase_result r;
    if (chase_run(&spec.format, sys, &rows[i].spec, &r, &d)) { /* the row it came from, as validate says */
      char why[DIAG_MSG_MAX];
      snprintf(why, sizeof why, "%s", d.msg);
      diag_set(&d, o.csv, rows[i].line, "%s", why);
      cli_progress_end(&line);
      goto out;
    }
    features(sys, &r, &x[i * np]);
    fit_data |= rows[i].base <= 0;
  }
  cli_progress_end(&line);
  if (o.fit && np && p[0].wanted && !fit_data) { /* p[0]: latency.data_cycles */
    rc = cli_usage_error("calibrate", "--fit: latency.data_cycles is fitted only with --data-latency preset "
                                      "(each row's base_cycles stands for it otherwise)");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    base[i] = fit_data ? 0 : rows[i].base;
    y[i] = rows[i].measured - base[i];
  }
  unsigned k = choose(x, n, np, fit_data, p, cols);
  /* What the parameters left at the preset cost is not the fit's to explain. */
  for (size_t i = 0; i < n; i++)
    for (unsigned j = fit_data ? 0 : 1; j < np; j++)
      if (!p[j].fitted) y[i] -= x[i * np + j] * p[j].value;
  if (n == 0 || k == 0 || fit_nonnegative(x, y, n, np, cols, k, p)) {
    diag_set(&d, o.csv, 0, "%s", n == 0 ? "no chase rows to fit" : "the rows do not determine the latencies");
    goto out;
  }
  report(p, np, x, base, rows, n);
  if (o.out && write_preset(c, o.out, o.csv, p, np, &d)) goto out;
  if (o.machine_out && write_machine_file(o.machine_out, label, cfg_text(c) ? NULL : cfg_file(c), o.csv, n, p, np, &d)) goto out;
  rc = EXIT_OK;
out:
  if (rc) cli_input_error(&d);
done:
  chase_rows_free(rows, n);
  free(x);
  free(y);
  free(base);
  cfg_destroy(c);
  return rc;
}
