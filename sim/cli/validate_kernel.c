/* validate on embed rows: each row's kernel predicted (see validate_kernel.h). */
#include "validate_kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/csv.h"
#include "tlbsim/kembed.h"
#include "tlbsim/kmodel.h"
#include "tlbsim/rows.h"
#include "validate_tally.h"

bool validate_kernel_sniff(const char *path) {
  static const char *const names[3] = {"pattern", "row_bytes", "ids_per_bag"};
  static const bool required[3] = {true, true, true};
  int col[3];
  diag d;
  csv_table *t = csv_table_open(path, names, required, col, 3, &d);
  bool yes = t && col[0] == 0;
  csv_table_close(t);
  return yes;
}

/* A whole number (decimal or 0x hex) of column c. */
static int whole(char **field, const int *col, int c, const char *file, unsigned long ln, uint64_t *out, diag *d) {
  const char *v = field[col[c]];
  if (num_parse_whole(v, out)) return diag_set(d, file, ln, "'%s' is not a whole number", v);
  return 0;
}

static int read_row(char **field, const int *col, const char *file, unsigned long ln, kembed_spec *s,
                    double *lpns, diag *d) {
  uint64_t r, l;
  *s = (kembed_spec){0};
  if (whole(field, col, ROWS_EMBED_ROW_BYTES, file, ln, &r, d) ||
      whole(field, col, ROWS_EMBED_IDS_PER_BAG, file, ln, &l, d) ||
      whole(field, col, ROWS_EMBED_BAGS, file, ln, &s->bags, d) ||
      whole(field, col, ROWS_EMBED_TABLE, file, ln, &s->table_bytes, d) ||
      whole(field, col, ROWS_EMBED_SEED, file, ln, &s->seed, d) ||
      whole(field, col, ROWS_EMBED_TABLE_VA, file, ln, &s->table_va, d) ||
      whole(field, col, ROWS_EMBED_IDS_VA, file, ln, &s->ids_va, d) ||
      whole(field, col, ROWS_EMBED_OUT_VA, file, ln, &s->out_va, d) ||
      whole(field, col, ROWS_EMBED_TABLE_ALLOC, file, ln, &s->table_alloc, d))
    return -1;
  if (r > UINT32_MAX || l > UINT32_MAX) return diag_set(d, file, ln, "row_bytes or ids_per_bag out of range");
  s->row_bytes = (uint32_t)r;
  s->ids_per_bag = (uint32_t)l;
  const char *a = field[col[ROWS_EMBED_ALPHA]], *v = field[col[ROWS_EMBED_LPNS]];
  if (num_real_in(a, 0, 10, &s->alpha) != NUM_OK) return diag_set(d, file, ln, "alpha '%s' is not from 0 to 10", a);
  if (num_real_in(v, 1e-9, 1e9, lpns) != NUM_OK) return diag_set(d, file, ln, "lookups_per_ns '%s' is not positive", v);
  const uint64_t two_mib = 2u << 20;
  s->ids_alloc = (s->bags * s->ids_per_bag * 8 + two_mib - 1) / two_mib * two_mib;
  s->out_alloc = (s->bags * s->row_bytes + two_mib - 1) / two_mib * two_mib;
  return 0;
}

/* The row's buffers mapped with 2 MiB pages, as cudaMalloc maps them. */
static machine *map_buffers(const machine_spec *spec, const kembed_spec *s, diag *d) {
  machine *m = machine_create(spec, d);
  const uint64_t va[3] = {s->table_va, s->ids_va, s->out_va}, size[3] = {s->table_alloc, s->ids_alloc, s->out_alloc};
  for (int i = 0; m && i < 3; i++) {
    trace_record r = {.kind = REC_MAP, .addr = va[i], .size = size[i], .page_size = 2u << 20, .prot = PT_R | PT_W};
    if (machine_apply(m, &r, "embed buffers", d)) {
      machine_destroy(m);
      return NULL;
    }
  }
  return m;
}

/* Row s predicted: lookups per ns into *lpns, the limiting stage into *limit. */
static int predict(const machine_spec *spec, const kembed_spec *s, uint32_t groups, double *lpns, kmodel_result *out,
                   diag *d) {
  kembed *k = kembed_create(s, d);
  machine *m = k ? map_buffers(spec, s, d) : NULL;
  int rc = -1;
  if (m) {
    kmodel_spec ms = {.sys = &spec->sys, .gpu = &spec->gpu, .table = machine_get_pt(m), .groups = groups};
    kmodel_source src = {.next = kembed_next, .rewind = kembed_rewind, .ctx = k, .kernel = kembed_kernel(k)};
    kmodel_result r;
    rc = kmodel_run(&ms, &src, &src, &r, d);
    if (!rc) {
      /* the sample's time is the whole kernel's */
      *lpns = (double)s->bags * s->ids_per_bag / r.ns;
      *out = r;
    }
  }
  machine_destroy(m);
  kembed_destroy(k);
  return rc;
}

static json_object *kernel_point(unsigned long line, const kembed_spec *s, double measured, double predicted,
                                 const kmodel_result *r) {
  unsigned limit = kmodel_limit(r);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "line", json_object_new_uint64(line));
  json_object_object_add(o, "table_bytes", json_object_new_uint64(s->table_bytes));
  json_object_object_add(o, "row_bytes", json_object_new_uint64(s->row_bytes));
  json_object_object_add(o, "alpha", report_real(s->alpha));
  json_object_object_add(o, "measured_lookups_per_ns", report_real(measured));
  json_object_object_add(o, "predicted_lookups_per_ns", report_real(predicted));
  json_object_object_add(o, "l1_hit_ratio", report_ratio(r->l1_hits, r->lines));
  json_object_object_add(o, "l2_hit_ratio", report_ratio(r->l2_hits, r->l2_lines));
  json_object_object_add(o, "tlb_l1_ratio", report_ratio(r->served[0], r->translations));
  json_object_object_add(o, "walks", json_object_new_uint64(r->served[3]));
  json_object_object_add(o, "walk_reads", json_object_new_uint64(r->walk_reads));
  json_object_object_add(o, "walk_reads_l2_hit_ratio", report_ratio(r->walk_reads - r->walk_reads_dram, r->walk_reads));
  json_object_object_add(o, "limit", json_object_new_string(gdev_stage_names[limit]));
  json_object_object_add(o, "limit_busy", report_real(r->busy[limit]));
  return o;
}

static void print_row(const kembed_spec *s, double measured, double p, const kmodel_result *r) {
  char size[32];
  unsigned limit = kmodel_limit(r);
  double tr = r->translations ? (double)r->translations : 1;
  printf("%9s %5u %5g %10.3f %10.3f %+7.2f%% %6.3f %6.3f %6.3f  %s (%.2f)\n",
         num_format_size(s->table_bytes, size, sizeof size), s->row_bytes, s->alpha, measured, p,
         100.0 * (p - measured) / measured, r->lines ? (double)r->l1_hits / (double)r->lines : 0,
         r->l2_lines ? (double)r->l2_hits / (double)r->l2_lines : 0, (double)r->served[0] / tr,
         gdev_stage_names[limit], r->busy[limit]);
  fflush(stdout);
}

int validate_kernel(const machine_spec *spec, const validate_kernel_opts *o) {
  diag d;
  if (!spec->gpu.sms) return fprintf(stderr, "%s: preset %s has no [gpu] section\n", o->csv, o->label), EXIT_INPUT;
  size_t ncols;
  const char *const *names = rows_columns(ROWS_EMBED, &ncols);
  int col[ROWS_EMBED_COLUMNS];
  bool required[ROWS_EMBED_COLUMNS];
  for (int i = 0; i < ROWS_EMBED_COLUMNS; i++) required[i] = true;
  csv_table *t = csv_table_open(o->csv, names, required, col, ROWS_EMBED_COLUMNS, &d);
  if (!t) return cli_input_error(&d);
  bool text = o->format == REPORT_TEXT;
  if (text)
    printf("%9s %5s %5s %10s %10s %8s %6s %6s %6s  %s\n", "table", "row", "alpha", "measured", "predicted", "error",
           "l1_hit", "l2_hit", "tlb_l1", "limit (busy)");
  char **field;
  unsigned long ln;
  int got;
  uint64_t seen = 0;
  validate_tally e;
  validate_tally_start(&e, o->format);
  while ((got = csv_table_next(t, &field, &ln, &d)) == 1) {
    kembed_spec s;
    double measured, p;
    kmodel_result r;
    if (read_row(field, col, o->csv, ln, &s, &measured, &d)) {
      got = -1;
      break;
    }
    if (seen++ % (o->every ? o->every : 1)) continue;
    if (predict(spec, &s, o->groups, &p, &r, &d)) {
      char why[DIAG_MSG_MAX];
      snprintf(why, sizeof why, "%s", d.msg);
      diag_set(&d, o->csv, ln, "%s", why);
      got = -1;
      break;
    }
    if (text) print_row(&s, measured, p, &r);
    validate_tally_add(&e, 100.0 * (p - measured) / measured, ln,
                       o->format == REPORT_JSON ? kernel_point(ln, &s, measured, p, &r) : NULL);
  }
  csv_table_close(t);
  if (got < 0) {
    validate_tally_free(&e);
    return cli_input_error(&d);
  }
  return validate_tally_finish(&e, o->csv, o->label, "kernel", "lookups per ns", o->max_mean, o->max_pct);
}
