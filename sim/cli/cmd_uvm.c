/* tlbsim uvm — the GPU suite's managed-memory experiment (tlbsim-gpu uvm),
 * predicted: one row per size, init and first kernel, in its schema. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/report.h"
#include "tlbsim/rows.h"
#include "tlbsim/uvm_suite.h"

#define MAX_SIZES 256

typedef struct uvm_opts {
  cli_config conf;
  unsigned inits, firsts;
  const char *sizes;
  uint64_t seed, va_base;
  int format;
  bool quiet;
} uvm_opts;

static int parse_uvm(int argc, char **argv, uvm_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      {.name = "init", .kind = OPT_CHOICES, .dest = &o->inits, .arg = "LIST", .choices = gpu_uvm_init_names,
       .help = "malloc, gpu, host, host_prefetch or advise (default all): how the buffer is populated"},
      {.name = "first", .kind = OPT_CHOICES, .dest = &o->firsts, .arg = "LIST", .choices = gpu_uvm_first_names,
       .help = "stream or gather (default both): the kernel that touches it first"},
      {.name = "size", .kind = OPT_TEXT, .dest = &o->sizes, .arg = "LIST",
       .help = "buffer sizes or ranges LO..HI, one per octave (default 256M..64G)"},
      {.name = "seed", .kind = OPT_WHOLE, .dest = &o->seed, .arg = "S", .help = "the gather's hash seed (default 1)"},
      {.name = "va-base", .kind = OPT_SIZE, .dest = &o->va_base, .arg = "VA",
       .help = "where the buffer lies (default: aligned to its size rounded up to a power of two)"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "csv (default: tlbsim-gpu uvm's columns), text or json (with the model's counts)"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "uvm", .usage = "[OPTIONS]", .max_operands = 0,
      .about = "Predicts tlbsim-gpu uvm on the preset's GPU (default h200): for each size, init and first\n"
               "kernel, the prefetch (prefetch_ms), the first kernel with its page faults and migrations\n"
               "(cold_ms), the warm stream (stream_ms, stream_gbps) and gather (gather_lpns), and the gather\n"
               "after a stream pass (gather2_lpns), through the managed-memory model ([uvm]) and the\n"
               "gather model ([gpu]). Sizes ascend, each init in the order listed above.",
      .notes = "csv writes exactly the suite's columns (init, first, size, prefetch_ms, cold_ms, stream_ms,\n"
               "stream_gbps, gather_lpns, gather2_lpns), so tlbsim validate reads a measured file and this\n"
               "one alike; json adds what the model did: faults, batches, bytes and the GPU's pages.\n",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  if (!o->inits) o->inits = (1u << GPU_UVM_INIT_COUNT) - 1;
  if (!o->firsts) o->firsts = (1u << GPU_UVM_FIRST_COUNT) - 1;
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static json_object *counts_json(const uvm_counts *c) {
  json_object *o = json_object_new_object();
#define U64(k) json_object_object_add(o, #k, json_object_new_uint64(c->k))
  U64(faults);
  U64(batches);
  U64(block_services);
  U64(populated_bytes);
  U64(to_gpu_bytes);
  U64(prefetched_bytes);
  U64(to_host_bytes);
  U64(evicted_bytes);
#undef U64
  json_object_object_add(o, "fault_ms", report_real(c->fault_ns / 1e6));
  json_object_object_add(o, "prefetch_ms", report_real(c->prefetch_ns / 1e6));
  return o;
}

static json_object *row_json(const uvm_suite_spec *s, const uvm_suite_result *r) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "init", json_object_new_string(gpu_uvm_init_names[s->init]));
  json_object_object_add(o, "first", json_object_new_string(gpu_uvm_first_names[s->first]));
  json_object_object_add(o, "size", json_object_new_uint64(s->size));
  if (r->prefetch_ms >= 0) json_object_object_add(o, "prefetch_ms", report_real(r->prefetch_ms));
  json_object_object_add(o, "cold_ms", report_real(r->cold_ms));
  json_object_object_add(o, "stream_ms", report_real(r->stream_ms));
  json_object_object_add(o, "stream_gbps", report_real(r->stream_gbps));
  json_object_object_add(o, "gather_lpns", report_real(r->gather_lpns));
  json_object_object_add(o, "gather2_lpns", report_real(r->gather2_lpns));
  json_object_object_add(o, "pages_2m", json_object_new_uint64(r->pages_2m));
  json_object_object_add(o, "pages_64k", json_object_new_uint64(r->pages_64k));
  json_object_object_add(o, "first_kernel", counts_json(&r->cold));
  if (r->prefetch_ms >= 0) json_object_object_add(o, "prefetch", counts_json(&r->prefetch));
  return o;
}

static int write_csv(const uvm_suite_spec *s, const uvm_suite_result *r, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_UVM);
  rows_text(&l, ROWS_UVM_INIT, gpu_uvm_init_names[s->init]);
  rows_text(&l, ROWS_UVM_FIRST, gpu_uvm_first_names[s->first]);
  rows_u64(&l, ROWS_UVM_SIZE, s->size);
  if (r->prefetch_ms >= 0) rows_real(&l, ROWS_UVM_PREFETCH_MS, "%.4g", r->prefetch_ms);
  rows_real(&l, ROWS_UVM_COLD_MS, "%.4g", r->cold_ms);
  rows_real(&l, ROWS_UVM_STREAM_MS, "%.4g", r->stream_ms);
  rows_real(&l, ROWS_UVM_STREAM_GBPS, "%.4g", r->stream_gbps);
  rows_real(&l, ROWS_UVM_GATHER_LPNS, "%.4g", r->gather_lpns);
  rows_real(&l, ROWS_UVM_GATHER2_LPNS, "%.4g", r->gather2_lpns);
  return rows_write(stdout, &l, true, d);
}

static void write_text_row(const uvm_suite_spec *s, const uvm_suite_result *r) {
  char size[32], pf[32] = "";
  if (r->prefetch_ms >= 0) snprintf(pf, sizeof pf, "%.3f", r->prefetch_ms);
  printf("%-14s %-7s %9s %10s %11.3f %10.1f %9.2f %8llu %8llu %10llu %10llu\n", gpu_uvm_init_names[s->init],
         gpu_uvm_first_names[s->first], num_format_size(s->size, size, sizeof size), pf, r->cold_ms, r->stream_gbps,
         r->gather_lpns, (unsigned long long)r->cold.faults, (unsigned long long)r->cold.batches,
         (unsigned long long)r->pages_2m, (unsigned long long)r->pages_64k);
}

int cmd_uvm(int argc, char **argv) {
  uvm_opts o = {.seed = 1, .format = REPORT_CSV};
  int rc = parse_uvm(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  uint64_t sizes[MAX_SIZES];
  size_t n;
  if (cli_parse_footprints(o.sizes ? o.sizes : "256M..64G", 1, sizes, MAX_SIZES, &n))
    return cli_usage_error("uvm", "--size: '%s' is not a list of sizes or LO..HI ranges", o.sizes);
  qsort(sizes, n, sizeof *sizes, cmp_u64);
  for (size_t i = 0; i < n; i++)
    if (sizes[i] % 128 || sizes[i] > UVM_SUITE_MAX_SIZE)
      return cli_usage_error("uvm", "--size: %llu is not a multiple of 128 bytes up to 512 GiB",
                             (unsigned long long)sizes[i]);
  diag d;
  const char *label;
  machine_spec spec;
  if ((rc = cli_load_gpu_spec(&o.conf, "uvm", &label, &spec))) return rc;
  json_object *rows = o.format == REPORT_JSON ? json_object_new_array() : NULL;
  if (o.format == REPORT_CSV && rows_header(stdout, ROWS_UVM, &d)) return cli_input_error(&d);
  if (o.format == REPORT_TEXT)
    printf("%-14s %-7s %9s %10s %11s %10s %9s %8s %8s %10s %10s\n", "init", "first", "size", "prefetch", "cold ms",
           "GB/s", "loads/ns", "faults", "batches", "2M pages", "64K pages");
  rc = EXIT_OK;
  unsigned points = (unsigned)__builtin_popcount(o.inits) * (unsigned)__builtin_popcount(o.firsts), done = 0;
  cli_progress line;
  cli_progress_start(&line, "uvm", o.quiet);
  for (size_t i = 0; i < n && rc == EXIT_OK; i++)
    for (int init = 0; init < GPU_UVM_INIT_COUNT && rc == EXIT_OK; init++)
      for (int first = 0; first < GPU_UVM_FIRST_COUNT && rc == EXIT_OK; first++) {
        if (!(o.inits >> init & 1) || !(o.firsts >> first & 1)) continue;
        uvm_suite_spec s = {.init = (gpu_uvm_init)init, .first = (gpu_uvm_first)first, .size = sizes[i],
                            .seed = o.seed, .va_base = o.va_base};
        uvm_suite_result r;
        cli_progress_count(&line, done++, n * points, "points");
        int failed = uvm_suite_run(&spec, &s, &r, &d);
        cli_progress_end(&line); /* before a row or an error: stdout and stderr may share the terminal */
        if (!failed && rows) json_object_array_add(rows, row_json(&s, &r));
        else if (!failed && o.format == REPORT_TEXT) write_text_row(&s, &r);
        else if (failed || write_csv(&s, &r, &d)) rc = cli_input_error(&d);
      }
  if (rows && rc == EXIT_OK)
    puts(json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(rows);
  return rc;
}
