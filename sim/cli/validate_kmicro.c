/* validate on stream and latency-chase rows: each row's kernel made in
 * memory and predicted by the kernel model (see validate_kmicro.h). */
#include "validate_kmicro.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/csv.h"
#include "tlbsim/kchase.h"
#include "tlbsim/kmodel.h"
#include "tlbsim/kstream.h"
#include "tlbsim/num.h"
#include "tlbsim/rows.h"
#include "validate_tally.h"

#define TWO_MIB (UINT64_C(2) << 20)
/* What a row may ask of the model (bad input ends in an error, not a hang):
 * a stream's warps times passes (run4/stream.csv's most: 1056 x 16 x 256,
 * 2^22) and a chase's loads (l2_chase.csv's most: 2^20 + 3 x 8192). */
#define KMICRO_WARP_PASSES (1u << 24)
#define KMICRO_LOADS (1u << 21)

typedef struct krow {
  unsigned long line;
  bool copy, l2;          /* stream: copy; chase: l2-chase */
  uint64_t size, passes, blocks, threads, moved; /* stream */
  uint64_t footprint, nodes, seed, warmup, steps, repeats; /* chase */
  uint64_t va;
  double measured;        /* GB/s or cycles per access */
} krow;

/* The columns read, by the rows module's schema (tlbsim/rows.h): its
 * stream and chase kinds, every stream column and these chase ones required. */
#define KCOLS ((int)ROWS_STREAM_COLUMNS > (int)ROWS_CHASE_COLUMNS ? (int)ROWS_STREAM_COLUMNS : (int)ROWS_CHASE_COLUMNS)
static const int chase_used[] = {ROWS_CHASE_PATTERN, ROWS_CHASE_FOOTPRINT, ROWS_CHASE_STEPS, ROWS_CHASE_CYCLES,
                                 ROWS_CHASE_SEED, ROWS_CHASE_NODES, ROWS_CHASE_WARMUP, ROWS_CHASE_LANES,
                                 ROWS_CHASE_VA_BASE, ROWS_CHASE_LOAD, ROWS_CHASE_REPEATS};

static csv_table *open_table(const char *path, kmicro_kind k, int *col, diag *d) {
  size_t n;
  const char *const *names = rows_columns(k == KMICRO_STREAM ? ROWS_STREAM : ROWS_CHASE, &n);
  bool required[KCOLS] = {false};
  for (size_t i = 0; i < n; i++) required[i] = k == KMICRO_STREAM;
  for (size_t i = 0; k != KMICRO_STREAM && i < sizeof chase_used / sizeof chase_used[0]; i++)
    required[chase_used[i]] = true;
  return csv_table_open(path, names, required, col, n, d);
}

static bool latency_pattern(const char *p) { return !strcmp(p, "dram-chase") || !strcmp(p, "l2-chase"); }

kmicro_kind validate_kmicro_sniff(const char *path) {
  int col[KCOLS];
  diag d;
  csv_table *t = open_table(path, KMICRO_STREAM, col, &d);
  if (t) {
    csv_table_close(t);
    return KMICRO_STREAM;
  }
  kmicro_kind k = KMICRO_NONE;
  char **field;
  unsigned long ln;
  if ((t = open_table(path, KMICRO_CHASE, col, &d)) && csv_table_next(t, &field, &ln, &d) == 1 &&
      latency_pattern(field[col[ROWS_CHASE_PATTERN]]))
    k = KMICRO_CHASE;
  csv_table_close(t);
  return k;
}

/* The whole numbers (decimal or 0x hex) of n columns into their fields. */
typedef struct wcol {
  int col;
  uint64_t *out;
} wcol;

static int wholes(char **field, const int *col, const wcol *w, size_t n, const char *file, unsigned long ln, diag *d) {
  for (size_t i = 0; i < n; i++) {
    const char *v = field[col[w[i].col]];
    if (num_parse_whole(v, w[i].out)) return diag_set(d, file, ln, "'%s' is not a whole number", v);
  }
  return 0;
}

static int read_row(char **field, const int *col, kmicro_kind k, const char *file, unsigned long ln, krow *r,
                    diag *d) {
  *r = (krow){.line = ln};
  const char *load = field[col[k == KMICRO_STREAM ? ROWS_STREAM_LOAD : ROWS_CHASE_LOAD]];
  if (strcmp(load, "cg")) return diag_set(d, file, ln, "load '%s': the kernels are ld.global.cg (load cg)", load);
  if (k == KMICRO_STREAM) {
    const char *kind = field[col[ROWS_STREAM_KIND]];
    if (strcmp(kind, "read") && strcmp(kind, "copy"))
      return diag_set(d, file, ln, "stream kind '%s' is not read or copy", kind);
    r->copy = !strcmp(kind, "copy");
    const wcol w[] = {{ROWS_STREAM_SIZE, &r->size},     {ROWS_STREAM_BYTES_PER_LAUNCH, &r->moved},
                      {ROWS_STREAM_PASSES, &r->passes}, {ROWS_STREAM_BLOCKS, &r->blocks},
                      {ROWS_STREAM_BLOCK_THREADS, &r->threads}, {ROWS_STREAM_VA_BASE, &r->va}};
    if (wholes(field, col, w, sizeof w / sizeof w[0], file, ln, d)) return -1;
    if (!r->size || r->size % 16 || !r->passes || r->passes > UINT32_MAX || !r->blocks || r->blocks > UINT32_MAX ||
        !r->threads || r->threads % 32 || r->threads > 1024)
      return diag_set(d, file, ln, "size_bytes, passes, blocks or block_threads is not a launch of the stream kernel");
    uint64_t warp_passes = r->blocks * (r->threads / 32) * r->passes; /* each below 2^32, 2^5, 2^32: checked next */
    if (r->blocks > KMICRO_WARP_PASSES || r->passes > KMICRO_WARP_PASSES || warp_passes > KMICRO_WARP_PASSES)
      return diag_set(d, file, ln, "%llu blocks of %llu threads, %llu passes: more than the %u warp passes a row "
                      "may have", (unsigned long long)r->blocks, (unsigned long long)r->threads,
                      (unsigned long long)r->passes, KMICRO_WARP_PASSES);
    const char *v = field[col[ROWS_STREAM_GBPS]];
    if (num_real_in(v, 1e-6, 1e9, &r->measured) != NUM_OK) return diag_set(d, file, ln, "gbps '%s' is not positive", v);
    return 0;
  }
  const char *p = field[col[ROWS_CHASE_PATTERN]];
  if (!latency_pattern(p)) return diag_set(d, file, ln, "pattern '%s' is not dram-chase or l2-chase", p);
  r->l2 = !strcmp(p, "l2-chase");
  uint64_t lanes;
  const wcol w[] = {{ROWS_CHASE_FOOTPRINT, &r->footprint}, {ROWS_CHASE_STEPS, &r->steps},
                    {ROWS_CHASE_SEED, &r->seed},           {ROWS_CHASE_NODES, &r->nodes},
                    {ROWS_CHASE_WARMUP, &r->warmup},       {ROWS_CHASE_LANES, &lanes},
                    {ROWS_CHASE_VA_BASE, &r->va},          {ROWS_CHASE_REPEATS, &r->repeats}};
  if (wholes(field, col, w, sizeof w / sizeof w[0], file, ln, d)) return -1;
  if (!r->repeats) return diag_set(d, file, ln, "repeats 0: nothing was timed");
  if (lanes != 1) return diag_set(d, file, ln, "lanes %llu: the latency chases are one lane", (unsigned long long)lanes);
  if (!r->steps) return diag_set(d, file, ln, "steps 0: nothing was timed");
  if (r->nodes > KMICRO_LOADS || r->steps > KMICRO_LOADS || r->warmup > KMICRO_LOADS || r->repeats > KMICRO_LOADS ||
      r->warmup + ((r->repeats - 1) / 2 + 1) * r->steps > KMICRO_LOADS)
    return diag_set(d, file, ln, "%llu nodes, warmup %llu, %llu repeats of %llu steps: more than the %u loads a "
                    "row may have", (unsigned long long)r->nodes, (unsigned long long)r->warmup,
                    (unsigned long long)r->repeats, (unsigned long long)r->steps, KMICRO_LOADS);
  const char *v = field[col[ROWS_CHASE_CYCLES]];
  if (num_real_in(v, 1e-6, 1e9, &r->measured) != NUM_OK)
    return diag_set(d, file, ln, "cycles_per_access '%s' is not positive", v);
  return 0;
}

static int load_rows(const char *csv, kmicro_kind k, uint64_t min_footprint, krow **rows, size_t *n, diag *d) {
  int col[KCOLS];
  csv_table *t = open_table(csv, k, col, d);
  if (!t) return -1;
  size_t cap = 0;
  *rows = NULL;
  *n = 0;
  char **field;
  unsigned long ln;
  int got;
  while ((got = csv_table_next(t, &field, &ln, d)) == 1) {
    if (*n == cap) {
      krow *grown = realloc(*rows, (cap = cap ? 2 * cap : 64) * sizeof *grown);
      if (!grown) {
        got = diag_set(d, csv, ln, "out of memory");
        break;
      }
      *rows = grown;
    }
    krow *r = &(*rows)[*n];
    if (read_row(field, col, k, csv, ln, r, d)) {
      got = -1;
      break;
    }
    (*n) += (k == KMICRO_STREAM ? r->size : r->footprint) >= min_footprint;
  }
  csv_table_close(t);
  return got < 0 ? -1 : 0;
}

/* The one buffer the suite allocated: stream read uses its first S bytes,
 * copy [0, S) into [half, half + S) (gpu_stream.cu); a chase's region is
 * one cudaMalloc of the largest footprint (gpu_memlat.cu). */
static void buffer_of(const krow *rows, size_t n, kmicro_kind k, uint64_t *bytes, uint64_t *half) {
  uint64_t want = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t w = k == KMICRO_STREAM ? (rows[i].copy ? 2 * rows[i].size : rows[i].size) : rows[i].footprint;
    if (w > want) want = w;
  }
  uint64_t have = k == KMICRO_STREAM ? want & ~(TWO_MIB - 1) : (want + TWO_MIB - 1) & ~(TWO_MIB - 1);
  *half = have / 2 & ~(TWO_MIB - 1);
  *bytes = have > TWO_MIB ? have : TWO_MIB;
}

/* A machine with [va, va + bytes) mapped in 2 MiB pages, as cudaMalloc maps it. */
static machine *map_buffer(const machine_spec *spec, uint64_t va, uint64_t bytes, diag *d) {
  machine *m = machine_create(spec, d);
  trace_record r = {.kind = REC_MAP, .addr = va, .size = bytes, .page_size = TWO_MIB, .prot = PT_R | PT_W};
  if (m && machine_apply(m, &r, "the suite's buffer", d)) {
    machine_destroy(m);
    return NULL;
  }
  return m;
}

static int run_stream(const machine_spec *spec, const pt *table, uint32_t groups, const kstream_spec *ks, double *ns,
                      kmodel_result *out, diag *d) {
  kstream *k = kstream_create(ks, d);
  if (!k) return -1;
  kmodel_spec ms = {.sys = &spec->sys, .gpu = &spec->gpu, .table = table, .groups = groups};
  kmodel_source src = {.next = kstream_next, .rewind = kstream_rewind, .ctx = k, .kernel = kstream_kernel(k)};
  int rc = kmodel_run(&ms, &src, &src, out, d);
  *ns = out->ns;
  kstream_destroy(k);
  return rc;
}

/* Row r's GB/s, the last run's result in *out. */
static int predict_stream(const machine_spec *spec, const pt *table, uint32_t groups, const krow *r, uint64_t half,
                          double *gbps, kmodel_result *out, diag *d) {
  kstream_spec ks = {.copy = r->copy, .src_va = r->va, .dst_va = r->va + half, .bytes = r->size,
                     .passes = (uint32_t)r->passes, .blocks = (uint32_t)r->blocks, .block_threads = (uint32_t)r->threads};
  uint64_t trips = kstream_trips(&ks);
  double ns;
  if (trips <= KMICRO_TRIPS) {
    if (run_stream(spec, table, groups, &ks, &ns, out, d)) return -1;
  } else {
    double ns1;
    ks.trips = KMICRO_TRIPS / 2;
    if (run_stream(spec, table, groups, &ks, &ns1, out, d)) return -1;
    ks.trips = KMICRO_TRIPS;
    if (run_stream(spec, table, groups, &ks, &ns, out, d)) return -1;
    ns += (double)(trips - KMICRO_TRIPS) * (ns - ns1) / (KMICRO_TRIPS / 2.0);
  }
  *gbps = (double)r->moved / ns;
  return 0;
}

/* Row r's cycles per access: of its median repeat (the GPU times `repeats`
 * passes of `steps` after the warm-up and reports their median), the
 * warm-up and the repeats before it untimed. */
static int predict_chase(const machine_spec *spec, const pt *table, const krow *r, double *cycles, kmodel_result *out,
                         diag *d) {
  uint64_t before = r->warmup + (r->repeats - 1) / 2 * r->steps;
  kchase_spec cs = {.kind = r->l2 ? KCHASE_L2 : KCHASE_DRAM, .va_base = r->va, .footprint = r->footprint,
                    .nodes = r->nodes, .seed = r->seed, .first = 0, .loads = before};
  kchase *warm = kchase_create(&cs, d);
  cs.first = before;
  cs.loads = r->steps;
  kchase *timed = warm ? kchase_create(&cs, d) : NULL;
  int rc = -1;
  if (timed) {
    kmodel_spec ms = {.sys = &spec->sys, .gpu = &spec->gpu, .table = table, .groups = 0};
    kmodel_source w = {.next = kchase_next, .ctx = warm, .kernel = kchase_kernel(warm)};
    kmodel_source t = {.next = kchase_next, .ctx = timed, .kernel = kchase_kernel(timed)};
    rc = kmodel_run(&ms, before ? &w : NULL, &t, out, d);
    *cycles = out->cycles / (double)r->steps;
  }
  kchase_destroy(warm);
  kchase_destroy(timed);
  return rc;
}

static void print_row(kmicro_kind k, const krow *r, double p, const kmodel_result *x) {
  char size[32];
  double err = 100.0 * (p - r->measured) / r->measured;
  unsigned limit = kmodel_limit(x);
  if (k == KMICRO_STREAM)
    printf("%5s %9s %6llu %10.1f %10.1f %+7.2f%% %6.3f  %s (%.2f)\n", r->copy ? "copy" : "read",
           num_format_size(r->size, size, sizeof size), (unsigned long long)r->passes, r->measured, p, err,
           x->l2_lines ? (double)x->l2_hits / (double)x->l2_lines : 0, gdev_stage_names[limit], x->busy[limit]);
  else
    printf("%10s %9s %8llu %10.1f %10.1f %+7.2f%% %6.3f %6.3f\n", r->l2 ? "l2-chase" : "dram-chase",
           num_format_size(r->footprint, size, sizeof size), (unsigned long long)r->nodes, r->measured, p, err,
           x->l2_lines ? (double)x->l2_hits / (double)x->l2_lines : 0,
           x->translations ? (double)x->served[0] / (double)x->translations : 1);
  fflush(stdout);
}

static json_object *kmicro_point(kmicro_kind k, const krow *r, double p, const kmodel_result *x) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "line", json_object_new_uint64(r->line));
  if (k == KMICRO_STREAM) {
    unsigned limit = kmodel_limit(x);
    json_object_object_add(o, "kind", json_object_new_string(r->copy ? "copy" : "read"));
    json_object_object_add(o, "size_bytes", json_object_new_uint64(r->size));
    json_object_object_add(o, "passes", json_object_new_uint64(r->passes));
    json_object_object_add(o, "measured_gbps", report_real(r->measured));
    json_object_object_add(o, "predicted_gbps", report_real(p));
    json_object_object_add(o, "l2_hit_ratio", report_ratio(x->l2_hits, x->l2_lines));
    json_object_object_add(o, "limit", json_object_new_string(gdev_stage_names[limit]));
    json_object_object_add(o, "limit_busy", report_real(x->busy[limit]));
  } else {
    json_object_object_add(o, "pattern", json_object_new_string(r->l2 ? "l2-chase" : "dram-chase"));
    json_object_object_add(o, "footprint_bytes", json_object_new_uint64(r->footprint));
    json_object_object_add(o, "nodes", json_object_new_uint64(r->nodes));
    json_object_object_add(o, "measured_cycles", report_real(r->measured));
    json_object_object_add(o, "predicted_cycles", report_real(p));
    json_object_object_add(o, "l2_hit_ratio", report_ratio(x->l2_hits, x->l2_lines));
    json_object_object_add(o, "tlb_l1_ratio", report_ratio(x->served[0], x->translations));
  }
  return o;
}

int validate_kmicro(const machine_spec *spec, kmicro_kind k, const validate_kmicro_opts *o) {
  diag d;
  if (!spec->gpu.sms) return fprintf(stderr, "%s: preset %s has no [gpu] section\n", o->csv, o->label), EXIT_INPUT;
  krow *rows = NULL, *all = NULL;
  size_t n, nall;
  if (load_rows(o->csv, k, 0, &all, &nall, &d) || load_rows(o->csv, k, o->min_footprint, &rows, &n, &d)) {
    free(all);
    free(rows);
    return cli_input_error(&d);
  }
  uint64_t bytes, half; /* of every row: the filters keep the buffer the suite allocated */
  buffer_of(all, nall, k, &bytes, &half);
  free(all);
  size_t skipped = nall - n;
  bool text = o->format == REPORT_TEXT;
  if (text && k == KMICRO_STREAM)
    printf("%5s %9s %6s %10s %10s %8s %6s  %s\n", "kind", "size", "passes", "GB/s", "predicted", "error", "l2_hit",
           "limit (busy)");
  else if (text)
    printf("%10s %9s %8s %10s %10s %8s %6s %6s\n", "pattern", "footprint", "nodes", "cycles", "predicted", "error",
           "l2_hit", "tlb_l1");
  validate_tally e;
  validate_tally_start(&e, o->format);
  e.skipped = skipped;
  int rc = EXIT_OK;
  for (size_t i = 0; i < n; i += o->every ? o->every : 1) {
    const krow *r = &rows[i];
    machine *m = map_buffer(spec, r->va, bytes, &d);
    double p = 0;
    kmodel_result x;
    int bad = !m || (k == KMICRO_STREAM ? predict_stream(spec, machine_get_pt(m), o->groups, r, half, &p, &x, &d)
                                        : predict_chase(spec, machine_get_pt(m), r, &p, &x, &d));
    machine_destroy(m);
    if (bad) {
      char why[DIAG_MSG_MAX];
      snprintf(why, sizeof why, "%s", d.msg);
      diag_set(&d, o->csv, r->line, "%s", why);
      rc = cli_input_error(&d);
      break;
    }
    if (text) print_row(k, r, p, &x);
    validate_tally_add(&e, 100.0 * (p - r->measured) / r->measured, r->line,
                       o->format == REPORT_JSON ? kmicro_point(k, r, p, &x) : NULL);
  }
  free(rows);
  if (rc != EXIT_OK) {
    validate_tally_free(&e);
    return rc;
  }
  return validate_tally_finish(&e, o->csv, o->label, k == KMICRO_STREAM ? "stream" : "latency-chase",
                               k == KMICRO_STREAM ? "GB/s" : "cycles per access", o->max_mean, o->max_pct);
}
