/* tlbsim chase — simulate tlbsim-gpu's pointer chase over a footprint sweep. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/chase.h"
#include "tlbsim/machine.h"
#include "tlbsim/report.h"

#define MAX_FOOTPRINTS 4096

typedef struct chase_opts {
  cli_config conf;
  const char *footprints;
  uint64_t per_octave, repeats, chunk, page_size; /* page_size 0: the configuration's */
  int order, mapping, format;
  bool quiet;
  chase_spec spec;
} chase_opts;

static int parse_chase(int argc, char **argv, chase_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      {.name = "footprint", .kind = OPT_TEXT, .dest = &o->footprints, .arg = "LIST",
       .help = "comma-separated sizes or ranges LO..HI (e.g. 1M..128G); required"},
      {.name = "per-octave", .kind = OPT_WHOLE, .dest = &o->per_octave, .arg = "N", .lo = 1, .hi = 64,
       .help = "footprints per doubling inside ranges (default 1); a footprint that\n"
               "rounds to the previous one's node count is simulated once"},
      {.name = "stride", .kind = OPT_SIZE, .dest = &o->spec.stride, .arg = "SIZE", .lo = 8,
       .help = "bytes between nodes, a multiple of 8; required"},
      {.name = "order", .kind = OPT_CHOICE, .dest = &o->order, .arg = "ORDER", .choices = chase_order_names,
       .help = "seq (default) or random"},
      {.name = "mapping", .kind = OPT_CHOICE, .dest = &o->mapping, .arg = "MAPPING", .choices = region_mapping_names,
       .help = "contiguous (default), shuffled (chunks in a seeded physical order),\n"
               "cudamalloc (as contiguous), aliased (one physical chunk per 16384 nodes,\n"
               "only chunks holding a node mapped: footprints beyond memory)"},
      {.name = "page-size", .kind = OPT_SIZE, .dest = &o->page_size, .arg = "SIZE", .lo = 1,
       .help = "default: the configuration's [machine] page_size"},
      {.name = "chunk", .kind = OPT_SIZE, .dest = &o->chunk, .arg = "SIZE", .lo = 1,
       .help = "physical pieces of the mapping, a power of two (default 2M, the VMM granularity)"},
      {.name = "steps", .kind = OPT_WHOLE, .dest = &o->spec.steps, .arg = "N", .lo = 1, .hi = NUM_U32_MAX,
       .help = "loads per timed pass (default 4096)"},
      {.name = "repeats", .kind = OPT_WHOLE, .dest = &o->repeats, .arg = "N", .lo = 1, .hi = 1000,
       .help = "timed passes (default 5); the median is reported"},
      {.name = "warmup", .kind = OPT_WHOLE, .dest = &o->spec.warmup, .arg = "N", .hi = NUM_U32_MAX,
       .help = "untimed loads first, at least one pass over the chain (default 1024)"},
      {.name = "seed", .kind = OPT_WHOLE, .dest = &o->spec.seed, .arg = "S",
       .help = "random order and chunk shuffle (default 1)"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "csv (default), text or json"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "chase", .usage = "[OPTIONS] --footprint LIST --stride SIZE", .max_operands = 0,
      .about = "Simulates the GPU suite's pointer chase (default preset h200): nodes at i*stride over each\n"
               "footprint, visited in sequential or seeded random order, warm-up then timed passes. One\n"
               "CSV row per footprint, in the chase schema tlbsim-gpu writes, with each TLB level's\n"
               "look-ups, hits, misses and miss ratio (tlb.NAME.*, as run's) and walks per access added.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  if (!o->footprints) return cli_usage_error("chase", "--footprint is required");
  if (!o->spec.stride) return cli_usage_error("chase", "--stride is required");
  if (o->spec.stride % 8) return cli_usage_error("chase", "--stride: %llu is not a multiple of 8 bytes",
                                                 (unsigned long long)o->spec.stride);
  if (!is_pow2(o->chunk)) return cli_usage_error("chase", "--chunk: %llu is not a power of two",
                                                 (unsigned long long)o->chunk);
  o->spec.order = (chase_order)o->order;
  o->spec.mapping = (region_mapping)o->mapping;
  o->spec.repeats = (unsigned)o->repeats;
  o->spec.chunk = o->chunk;
  return 0;
}

/* Prints rows: CSV (header once), JSON array, or an aligned table. */
static void print_rows(json_object *rows, report_format f) {
  size_t n = json_object_array_length(rows);
  if (f == REPORT_JSON) {
    puts(json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY));
    return;
  }
  for (size_t i = 0; i < n; i++) {
    json_object *row = json_object_array_get_idx(rows, i);
    if (f == REPORT_CSV) {
      report_write_csv_row(stdout, row, i == 0);
      continue;
    }
    if (i == 0) printf("%14s %7s %9s %10s %12s\n", "footprint", "nodes", "cycles", "walks/acc", "order/map");
    json_object *v;
    char buf[32];
    json_object_object_get_ex(row, "footprint_bytes", &v);
    uint64_t fp = json_object_get_uint64(v);
    json_object_object_get_ex(row, "nodes", &v);
    uint64_t nodes = json_object_get_uint64(v);
    json_object_object_get_ex(row, "cycles_per_access", &v);
    double cyc = json_object_get_double(v);
    json_object_object_get_ex(row, "walks_per_access", &v);
    double walks = json_object_get_double(v);
    json_object *order, *mapping;
    json_object_object_get_ex(row, "order", &order);
    json_object_object_get_ex(row, "mapping", &mapping);
    printf("%14s %7llu %9.1f %10.3f %s/%s\n", num_format_size(fp, buf, sizeof buf), (unsigned long long)nodes, cyc, walks,
           json_object_get_string(order), json_object_get_string(mapping));
  }
}

/* The point at footprint fp: nodes at the stride, rounded as tlbsim-gpu
 * does. EXIT_OK, or EXIT_USAGE after saying which option is at fault. */
static int plan_point(chase_spec *s, uint64_t fp) {
  char f[32], st[32];
  s->footprint = fp;
  double nodes = round((double)fp / (double)s->stride);
  if (nodes < 1 || nodes > CHASE_MAX_NODES)
    return cli_usage_error("chase", "--footprint: %s holds %s at a %s stride", num_format_size(fp, f, sizeof f),
                           nodes < 1 ? "no node" : "more nodes than a point may have (134217728)",
                           num_format_size(s->stride, st, sizeof st));
  s->nodes = (uint32_t)nodes;
  diag why;
  if (!chase_spec_check(s, &why)) return EXIT_OK;
  const char *msg = strncmp(why.msg, "chase: ", 7) ? why.msg : why.msg + 7;
  return cli_usage_error("chase", "--footprint %s, --stride %s: %s", num_format_size(fp, f, sizeof f),
                         num_format_size(s->stride, st, sizeof st), msg);
}

int cmd_chase(int argc, char **argv) {
  chase_opts o = {.per_octave = 1, .repeats = 5, .chunk = 2u << 20, .format = REPORT_CSV,
                  .spec = {.seed = 1, .warmup = 1024, .steps = 4096}};
  int rc = parse_chase(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  uint64_t *footprints = malloc(MAX_FOOTPRINTS * sizeof *footprints);
  size_t nfp;
  if (!footprints || cli_parse_footprints(o.footprints, (unsigned)o.per_octave, footprints, MAX_FOOTPRINTS, &nfp)) {
    free(footprints);
    return cli_usage_error("chase", "--footprint: '%s' is not a list of sizes or LO..HI ranges", o.footprints);
  }
  diag d;
  const char *label;
  machine_spec spec;
  cfg *c = cli_load_spec(&o.conf, "h200", &label, &spec, &d);
  if (!c) {
    free(footprints);
    return cli_input_error(&d);
  }
  rc = EXIT_OK;
  const pt_format *f = &spec.format;
  o.spec.page_size = o.page_size ? o.page_size : spec.page_size;
  if (!is_pow2(o.spec.page_size) || pt_format_leaf_level(f, log2_u64(o.spec.page_size)) < 0)
    rc = cli_usage_error("chase", "--page-size: %llu is not a page size of %s", (unsigned long long)o.spec.page_size,
                         f->name);
  /* Every point is checked before any runs: a point past the work a
   * point may take is said at once, not after the others' minutes. */
  for (size_t i = 0; rc == EXIT_OK && i < nfp; i++) rc = plan_point(&o.spec, footprints[i]);
  json_object *rows = json_object_new_array();
  uint32_t last_nodes = 0;
  cli_progress line;
  cli_progress_start(&line, "chase", o.quiet);
  for (size_t i = 0; rc == EXIT_OK && i < nfp; i++) {
    cli_progress_count(&line, i, nfp, "footprints");
    plan_point(&o.spec, footprints[i]);
    if (o.spec.nodes == last_nodes) continue; /* as tlbsim-gpu plans points */
    last_nodes = o.spec.nodes;
    chase_result r;
    if (chase_run(f, &spec.sys, &o.spec, &r, &d)) rc = EXIT_INPUT;
    else json_object_array_add(rows, report_chase_row(&o.spec, &spec.sys.mmu, &r));
  }
  cli_progress_end(&line);
  if (rc == EXIT_INPUT) cli_input_error(&d);
  if (rc == EXIT_OK) print_rows(rows, (report_format)o.format);
  json_object_put(rows);
  cfg_destroy(c);
  free(footprints);
  return rc;
}
