/* tlbsim validate — re-simulate every row of a measured chase CSV and
 * report the model's error per row and overall. */
#include <getopt.h>
#include <stdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/chase.h"
#include "tlbsim/machine.h"

#define MAX_COLS 64
#define LINE_MAX_LEN 4096

static const char validate_help[] =
    "usage: tlbsim validate [--preset NAME | --config FILE] [--set S.K=V]... [--plot FILE.png]\n"
    "                       [--min-footprint SIZE] [--min-nodes N] [--mapping LIST] [--max-mean-error PCT]\n"
    "                       [--max-error-cycles C] [--data-latency measured|preset] MEASURED.csv\n"
    "\n"
    "Re-simulates each chase row of MEASURED.csv (tlbsim-gpu's schema) with the preset (default\n"
    "h200) and prints measured vs predicted cycles per access, the error in cycles and %, then the\n"
    "mean absolute % error and the worst point. Rows of mappings the simulator does not model\n"
    "(managed) and rows outside the filters are skipped and counted.\n"
    "  --plot FILE.png        gnuplot overlay: measured points, predicted lines, per mapping/order\n"
    "  --min-footprint SIZE   only rows with at least this footprint\n"
    "  --min-nodes N          only rows with at least N nodes\n"
    "  --mapping LIST         only these mappings (comma-separated)\n"
    "  --max-mean-error PCT   exit 1 when the mean absolute error exceeds PCT\n"
    "  --max-error-cycles C   exit 1 when any row is off by more than C cycles\n"
    "  --data-latency KIND    measured (default): a row's base_cycles column (the same lines'\n"
    "                         L2-hit latency, measured with translation hitting) stands for the\n"
    "                         preset's data_cycles; preset: use data_cycles for every row\n"
    "Rows of several lanes or of L1-caching loads (load != cg) are skipped: the model is one\n"
    "thread's ld.global.cg chase.\n";

typedef struct csv_line {
  char buf[LINE_MAX_LEN];
  char *field[MAX_COLS];
  int n;
} csv_line;

/* Splits one CSV line in place (RFC 4180 quotes). -1 when malformed. */
static int csv_split(csv_line *l) {
  char *p = l->buf, *w;
  l->n = 0;
  for (;;) {
    if (l->n == MAX_COLS) return -1;
    l->field[l->n++] = w = p;
    if (*p == '"') {
      for (p++;; p++) {
        if (!*p) return -1;
        if (*p == '"' && p[1] == '"') *w++ = *p++;
        else if (*p == '"') break;
        else *w++ = *p;
      }
      p++;
      if (*p && *p != ',') return -1;
    } else {
      while (*p && *p != ',') *w++ = *p++;
    }
    bool more = *p == ',';
    *w = '\0';
    if (!more) return 0;
    p++;
  }
}

static bool read_line(FILE *f, csv_line *l, unsigned long *lineno, bool *too_long) {
  if (!fgets(l->buf, sizeof l->buf, f)) return false;
  (*lineno)++;
  size_t len = strlen(l->buf);
  *too_long = len == sizeof l->buf - 1 && l->buf[len - 1] != '\n';
  while (len && (l->buf[len - 1] == '\n' || l->buf[len - 1] == '\r')) l->buf[--len] = '\0';
  return true;
}

enum { C_PATTERN, C_ORDER, C_MAPPING, C_PAGE, C_STRIDE, C_FOOTPRINT, C_STEPS, C_CYCLES, C_SEED, C_NODES,
       C_WARMUP, C_REPEATS, C_CHUNK, C_VA_BASE, C_BASE_CYCLES, C_LANES, C_LOAD, NCOLS };
static const char *const col_names[NCOLS] = {"pattern", "order", "mapping", "page_bytes", "stride_bytes",
                                             "footprint_bytes", "steps", "cycles_per_access", "seed", "nodes",
                                             "warmup", "repeats", "chunk_bytes", "va_base", "base_cycles",
                                             "lanes", "load"};
static const bool col_required[NCOLS] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};

typedef struct row_result {
  chase_spec spec;
  double measured, predicted;
  double base; /* measured data latency of the same lines, or -1 */
  unsigned long line;
} row_result;

typedef struct validate_opts {
  cli_config conf;
  bool preset_data_latency; /* ignore the measured base_cycles column */
  const char *plot, *csv;
  uint64_t min_footprint, min_nodes;
  unsigned mappings; /* bit per chase_mapping to compare; 0: all */
  double max_mean, max_cycles;
} validate_opts;

static int parse_validate(int argc, char **argv, validate_opts *o) {
  static const struct option longopts[] = {
      {"preset", required_argument, NULL, 'p'},        {"config", required_argument, NULL, 'c'},
      {"set", required_argument, NULL, 's'},           {"plot", required_argument, NULL, 'P'},
      {"min-footprint", required_argument, NULL, 'F'}, {"min-nodes", required_argument, NULL, 'N'},
      {"max-mean-error", required_argument, NULL, 'M'}, {"max-error-cycles", required_argument, NULL, 'C'},
      {"data-latency", required_argument, NULL, 'D'}, {"mapping", required_argument, NULL, 'm'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int ch;
  char *end;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    const char *name = argv[optind - 1];
    switch (ch) {
    case 'p': o->conf.preset = optarg; break;
    case 'c': o->conf.config = optarg; break;
    case 's':
      if (cli_add_set(&o->conf, optarg)) return EXIT_USAGE;
      break;
    case 'P': o->plot = optarg; break;
    case 'F':
      if (size_parse(optarg, &o->min_footprint)) return cli_usage_error("validate", "%s: '%s' is not a size", name, optarg);
      break;
    case 'N':
      if (u64_parse(optarg, &o->min_nodes)) return cli_usage_error("validate", "%s: '%s' is not a count", name, optarg);
      break;
    case 'M': case 'C': {
      double v = strtod(optarg, &end);
      if (end == optarg || *end || !(v >= 0)) return cli_usage_error("validate", "%s: '%s' is not a number", name, optarg);
      if (ch == 'M') o->max_mean = v;
      else o->max_cycles = v;
      break;
    }
    case 'm': {
      char buf[256];
      snprintf(buf, sizeof buf, "%s", optarg);
      char *save = NULL;
      for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        chase_mapping m;
        if (chase_mapping_parse(tok, &m))
          return cli_usage_error("validate", "--mapping: '%s' is not contiguous, shuffled, cudamalloc or aliased", tok);
        o->mappings |= 1u << m;
      }
      break;
    }
    case 'D':
      if (strcmp(optarg, "measured") && strcmp(optarg, "preset"))
        return cli_usage_error("validate", "--data-latency: '%s' is not measured or preset", optarg);
      o->preset_data_latency = !strcmp(optarg, "preset");
      break;
    case 'h': fputs(validate_help, stdout); return -1;
    default: return cli_usage_error("validate", "unknown or incomplete option '%s' (see --help)", name);
    }
  }
  if (optind != argc - 1) return cli_usage_error("validate", "expected one MEASURED.csv (see --help)");
  o->csv = argv[optind];
  return 0;
}

static int find_columns(const csv_line *h, int *col, const char *file, diag *d) {
  for (int c = 0; c < NCOLS; c++) {
    col[c] = -1;
    for (int i = 0; i < h->n; i++)
      if (!strcmp(h->field[i], col_names[c])) col[c] = i;
    if (col[c] < 0 && col_required[c]) return diag_set(d, file, 1, "missing column '%s'", col_names[c]);
  }
  return 0;
}

static int field_u64(const csv_line *l, int col, uint64_t def, uint64_t *out) {
  if (col < 0 || col >= l->n || !*l->field[col]) return *out = def, 0;
  return u64_parse(l->field[col], out);
}

/* Fills spec and measured from one row; 1 when the row is simulated, 0 when
 * skipped, -1 on bad input. */
static int row_spec(const csv_line *l, const int *col, const char *file, unsigned long ln, row_result *r, diag *d) {
  for (int c = 0; c < NCOLS; c++)
    if (col[c] >= l->n) return diag_set(d, file, ln, "%d fields, the header has more", l->n);
  if (strcmp(l->field[col[C_PATTERN]], "chase")) return 0;
  /* One thread and L1-bypassing loads: what the simulator models. */
  if (col[C_LANES] >= 0 && *l->field[col[C_LANES]] && strcmp(l->field[col[C_LANES]], "1")) return 0;
  if (col[C_LOAD] >= 0 && *l->field[col[C_LOAD]] && strcmp(l->field[col[C_LOAD]], "cg")) return 0;
  chase_spec *s = &r->spec;
  *s = (chase_spec){0};
  if (chase_mapping_parse(l->field[col[C_MAPPING]], &s->mapping)) return 0; /* aliased, managed */
  if (chase_order_parse(l->field[col[C_ORDER]], &s->order))
    return diag_set(d, file, ln, "order '%s' is not seq or random", l->field[col[C_ORDER]]);
  uint64_t nodes, repeats;
  char *end;
  r->measured = strtod(l->field[col[C_CYCLES]], &end);
  if (end == l->field[col[C_CYCLES]] || *end) return diag_set(d, file, ln, "cycles_per_access '%s' is not a number", l->field[col[C_CYCLES]]);
  if (field_u64(l, col[C_PAGE], 0, &s->page_size) || field_u64(l, col[C_STRIDE], 0, &s->stride) ||
      field_u64(l, col[C_FOOTPRINT], 0, &s->footprint) || field_u64(l, col[C_STEPS], 0, &s->steps) ||
      field_u64(l, col[C_SEED], 1, &s->seed) || field_u64(l, col[C_NODES], 0, &nodes) ||
      field_u64(l, col[C_WARMUP], 0, &s->warmup) || field_u64(l, col[C_REPEATS], 1, &repeats) ||
      field_u64(l, col[C_CHUNK], 2u << 20, &s->chunk) || field_u64(l, col[C_VA_BASE], 0, &s->va_base))
    return diag_set(d, file, ln, "a numeric field is not a whole number");
  if (!s->chunk) s->chunk = s->page_size; /* cudamalloc rows: no VMM chunks */
  r->base = -1;
  if (col[C_BASE_CYCLES] >= 0 && *l->field[col[C_BASE_CYCLES]]) {
    r->base = strtod(l->field[col[C_BASE_CYCLES]], &end);
    if (*end || !(r->base > 0)) return diag_set(d, file, ln, "base_cycles '%s' is not a positive number", l->field[col[C_BASE_CYCLES]]);
  }
  r->line = ln;
  if (!s->stride || !s->page_size || !is_pow2(s->page_size) || !s->steps || !repeats || nodes > UINT32_MAX)
    return diag_set(d, file, ln, "stride, page_bytes, steps and repeats must be positive");
  s->nodes = (uint32_t)(nodes ? nodes : s->footprint / s->stride);
  s->repeats = (unsigned)repeats;
  return 1;
}

static void print_row(const row_result *r) {
  char fp[32], st[32];
  double err = r->predicted - r->measured;
  printf("%10s %8s %6s %-10s %7u %9.1f %9.1f %+8.1f %+7.2f%%\n", size_format(r->spec.footprint, fp, sizeof fp),
         size_format(r->spec.stride, st, sizeof st), chase_order_name(r->spec.order),
         chase_mapping_name(r->spec.mapping), r->spec.nodes, r->measured, r->predicted, err,
         100.0 * err / r->measured);
}

static int write_plot(const char *png, const char *csv_name, const row_result *rows, size_t n, diag *d);

int cmd_validate(int argc, char **argv) {
  validate_opts o = {.max_mean = -1, .max_cycles = -1};
  int rc = parse_validate(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  cfg *c = cli_load_config(&o.conf, "h200", &label, &d);
  if (!c) return cli_input_error(&d);
  const pt_format *f;
  mmu_config mc;
  machine *whole = machine_create(c, &d);
  if (!whole || cfg_check_unused(c, &d) || machine_pt_format(c, &f, &d) || machine_mmu_config(c, f, &mc, &d)) {
    machine_destroy(whole);
    cfg_destroy(c);
    return cli_input_error(&d);
  }
  machine_destroy(whole);
  FILE *in = fopen(o.csv, "r");
  if (!in) {
    cfg_destroy(c);
    fprintf(stderr, "%s: cannot open\n", o.csv);
    return EXIT_INPUT;
  }
  csv_line *line = malloc(sizeof *line);
  row_result *rows = NULL;
  size_t n = 0, cap = 0, skipped = 0;
  unsigned long ln = 0;
  bool too_long;
  int col[NCOLS];
  rc = EXIT_OK;
  if (!line || !read_line(in, line, &ln, &too_long) || too_long || csv_split(line) ||
      find_columns(line, col, o.csv, &d)) {
    if (!d.msg[0] || !line) diag_set(&d, o.csv, 1, "expected a chase CSV header");
    rc = EXIT_INPUT;
  }
  while (rc == EXIT_OK && read_line(in, line, &ln, &too_long)) {
    if (!line->buf[0]) continue;
    if (too_long || csv_split(line)) {
      rc = EXIT_INPUT, diag_set(&d, o.csv, ln, "malformed CSV line");
      break;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      row_result *grown = realloc(rows, cap * sizeof *rows);
      if (!grown) { rc = EXIT_INPUT, diag_set(&d, o.csv, ln, "out of memory"); break; }
      rows = grown;
    }
    int use = row_spec(line, col, o.csv, ln, &rows[n], &d);
    if (use < 0) rc = EXIT_INPUT;
    else if (!use || rows[n].spec.footprint < o.min_footprint || rows[n].spec.nodes < o.min_nodes ||
             (o.mappings && !(o.mappings >> rows[n].spec.mapping & 1)))
      skipped++;
    else {
      chase_result r;
      if (chase_run(f, &mc, &rows[n].spec, &r, &d)) {
        char where[DIAG_MSG_MAX];
        snprintf(where, sizeof where, "%s", d.msg);
        diag_set(&d, o.csv, ln, "%s", where);
        rc = EXIT_INPUT;
      } else {
        /* The model predicts translation; the row's own data latency, when
         * measured, replaces the preset's single figure for it. */
        bool measured = rows[n].base > 0 && !o.preset_data_latency;
        rows[n].predicted = r.cycles_per_access - (measured ? mc.data_cycles - rows[n].base : 0);
        n++;
      }
    }
  }
  fclose(in);
  free(line);
  if (rc != EXIT_OK) {
    free(rows);
    cfg_destroy(c);
    return cli_input_error(&d);
  }
  printf("%10s %8s %6s %-10s %7s %9s %9s %8s %8s\n", "footprint", "stride", "order", "mapping", "nodes",
         "measured", "predicted", "cycles", "error");
  double sum_pct = 0, worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < n; i++) {
    print_row(&rows[i]);
    double err = fabs(rows[i].predicted - rows[i].measured);
    sum_pct += 100.0 * err / rows[i].measured;
    if (err >= worst) worst = err, worst_i = i;
  }
  double mean = n ? sum_pct / (double)n : 0;
  printf("\n%zu rows compared with preset %s (%zu skipped); mean absolute error %.3f%%; worst point %.1f cycles",
         n, label, skipped, mean, worst);
  if (n) {
    char fp[32], st[32];
    printf(" (%s, stride %s, %s, %s)", size_format(rows[worst_i].spec.footprint, fp, sizeof fp),
           size_format(rows[worst_i].spec.stride, st, sizeof st), chase_order_name(rows[worst_i].spec.order),
           chase_mapping_name(rows[worst_i].spec.mapping));
  }
  printf("\n");
  if (o.plot && write_plot(o.plot, o.csv, rows, n, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && n == 0) rc = EXIT_INPUT, fprintf(stderr, "%s: no chase rows to compare\n", o.csv);
  if (rc == EXIT_OK && ((o.max_mean >= 0 && mean > o.max_mean) || (o.max_cycles >= 0 && worst > o.max_cycles))) {
    fprintf(stderr, "%s: model error above the target (mean %.3f%%, worst %.1f cycles)\n", o.csv, mean, worst);
    rc = EXIT_INPUT;
  }
  free(rows);
  cfg_destroy(c);
  return rc;
}

/* Measured points and predicted lines for the VMM mappings: one panel per
 * mapping/order, one colour per stride, x = footprint (log), y = cycles. */
static int write_plot(const char *png, const char *csv_name, const row_result *rows, size_t n, diag *d) {
  /* The points go to a temporary file, removed afterwards. */
  const char *tmp = getenv("TMPDIR");
  char data[4096];
  snprintf(data, sizeof data, "%s/tlbsim-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(data);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    return diag_set(d, data, 0, "cannot write a temporary file");
  }
  /* Block k holds one mapping/order; a blank line between strides breaks
   * the predicted line there. Rows come stride-major from tlbsim-gpu. */
  for (int k = 0; k < 4; k++) {
    uint64_t last_stride = 0;
    for (size_t i = 0; i < n; i++) {
      const chase_spec *s = &rows[i].spec;
      int key = (s->mapping == CHASE_SHUFFLED) * 2 + (s->order == CHASE_RANDOM);
      if (key != k || (s->mapping != CHASE_CONTIGUOUS && s->mapping != CHASE_SHUFFLED)) continue;
      if (last_stride && s->stride != last_stride) fputc('\n', f);
      last_stride = s->stride;
      fprintf(f, "%llu %llu %.3f %.3f\n", (unsigned long long)s->footprint, (unsigned long long)s->stride,
              rows[i].measured, rows[i].predicted);
    }
    fprintf(f, "%s\n\n", last_stride ? "" : "0 0 NaN NaN");
  }
  fclose(f);
  /* A 2x2 grid, one panel per mapping/order; colour = stride. The script
   * goes to gnuplot's stdin: no shell quoting. */
  FILE *gp = popen("gnuplot", "w");
  if (!gp) {
    unlink(data);
    return diag_set(d, png, 0, "cannot run gnuplot");
  }
  fprintf(gp,
          "set terminal pngcairo size 1400,1000 font ',10'\n"
          "set output '%s'\n"
          "set multiplot layout 2,2 title 'measured (points) vs predicted (lines), colour = stride: %s'\n"
          "set logscale x 2\n"
          "set xtics ('1M' 2**20, '32M' 2**25, '1G' 2**30, '32G' 2**35, '1T' 2**40)\n"
          "set xlabel 'footprint'; set ylabel 'cycles per access'; set key off; set grid\n"
          "names = 'contiguous/seq contiguous/random shuffled/seq shuffled/random'\n"
          "colour(s) = int(log(s) / log(2)) %% 8 + 1\n"
          "do for [k=0:3] {\n"
          "  set title word(names, k + 1)\n"
          "  plot '%s' index k using 1:3:(colour(column(2))) with points pt 7 ps 0.6 lc variable, \\\n"
          "       '' index k using 1:4:(colour(column(2))) with lines lc variable\n"
          "}\n"
          "unset multiplot\n",
          png, csv_name, data);
  int status = pclose(gp);
  unlink(data);
  if (status != 0) return diag_set(d, png, 0, "gnuplot failed");
  return 0;
}
