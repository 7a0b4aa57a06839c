/* tlbsim chase — simulate tlbsim-gpu's pointer chase over a footprint sweep. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/chase.h"
#include "tlbsim/machine.h"
#include "tlbsim/report.h"

#define MAX_FOOTPRINTS 4096

static const char chase_help[] =
    "usage: tlbsim chase [--preset NAME | --config FILE] [--set S.K=V]... --footprint LIST\n"
    "                    --stride SIZE [--order seq|random] [--mapping contiguous|shuffled|cudamalloc|aliased]\n"
    "                    [--page-size SIZE] [--chunk SIZE] [--per-octave N] [--steps N]\n"
    "                    [--warmup N] [--repeats N] [--seed S] [--format csv|text|json]\n"
    "\n"
    "Simulates the GPU suite's pointer chase: nodes at i*stride over each footprint, visited in\n"
    "sequential or seeded random order, warm-up then timed passes. One CSV row per footprint, in\n"
    "the chase schema tlbsim-gpu writes, with per-TLB-level hit rates and walks added.\n"
    "  --footprint LIST   comma-separated sizes or ranges LO..HI (e.g. 1M..128G)\n"
    "  --per-octave N     footprints per doubling inside ranges (default 1); a footprint that\n"
    "                     rounds to the previous one's node count is simulated once\n"
    "  --stride SIZE      bytes between nodes (a multiple of 8)\n"
    "  --order            seq (default) or random\n"
    "  --mapping          contiguous (default), shuffled (chunks in a seeded physical order),\n"
    "                     cudamalloc (as contiguous), aliased (one physical chunk per 16384 nodes,\n"
    "                     only chunks holding a node mapped: footprints beyond memory)\n"
    "  --page-size SIZE   default: the preset's [machine] page_size\n"
    "  --chunk SIZE       physical pieces of the mapping (default 2M, the VMM granularity)\n"
    "  --steps N          loads per timed pass (default 4096); --repeats N passes (default 5)\n"
    "  --warmup N         untimed loads first, at least one pass over the chain (default 1024)\n"
    "  --seed S           random order and chunk shuffle (default 1)\n"
    "  --preset NAME      default h200\n";

typedef struct chase_opts {
  cli_config conf;
  const char *footprints;
  unsigned per_octave;
  chase_spec spec;
  const char *page_text;
  report_format format;
} chase_opts;

/* Expands "1M,4M..64M" into sizes; ranges step 2^(1/per_octave). */
static int parse_footprints(const char *text, unsigned per_octave, uint64_t *out, size_t *n) {
  char buf[128];
  *n = 0;
  for (const char *p = text; *p;) {
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    p += len + (p[len] == ',');
    char *dots = strstr(buf, "..");
    uint64_t lo, hi;
    if (!dots) {
      if (num_parse_size(buf, &lo) || *n == MAX_FOOTPRINTS) return -1;
      out[(*n)++] = lo;
      continue;
    }
    *dots = '\0';
    if (num_parse_size(buf, &lo) || num_parse_size(dots + 2, &hi) || lo == 0 || lo > hi) return -1;
    for (unsigned k = 0;; k++) {
      double f = (double)lo * pow(2.0, (double)k / per_octave);
      if (f > (double)hi * (1 + 1e-9)) break;
      if (*n == MAX_FOOTPRINTS) return -1;
      out[(*n)++] = (uint64_t)llround(f);
    }
  }
  return *n ? 0 : -1;
}

static int parse_chase(int argc, char **argv, chase_opts *o) {
  static const struct option longopts[] = {
      CLI_CONFIG_OPTIONS, {"footprint", required_argument, NULL, 'F'},
      {"stride", required_argument, NULL, 'S'},   {"order", required_argument, NULL, 'o'},
      {"mapping", required_argument, NULL, 'm'},  {"page-size", required_argument, NULL, 'P'},
      {"chunk", required_argument, NULL, 'C'},    {"per-octave", required_argument, NULL, 'O'},
      {"steps", required_argument, NULL, 'n'},    {"warmup", required_argument, NULL, 'w'},
      {"repeats", required_argument, NULL, 'r'},  {"seed", required_argument, NULL, 'e'},
      {"format", required_argument, NULL, 'f'},   {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int ch;
  uint64_t v;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    const char *name = argv[optind - 1];
    int taken = cli_config_option(&o->conf, ch, optarg);
    if (taken > 0) return taken;
    if (taken == 0) continue;
    switch (ch) {
    case 'F': o->footprints = optarg; break;
    case 'P': o->page_text = optarg; break;
    case 'S':
      if (num_parse_size(optarg, &o->spec.stride) || !o->spec.stride || o->spec.stride % 8)
        return cli_usage_error("chase", "--stride: '%s' is not a positive multiple of 8 bytes", optarg);
      break;
    case 'C':
      if (num_parse_size(optarg, &o->spec.chunk) || !is_pow2(o->spec.chunk))
        return cli_usage_error("chase", "--chunk: '%s' is not a power-of-two size", optarg);
      break;
    case 'o':
      if (chase_order_parse(optarg, &o->spec.order)) return cli_usage_error("chase", "--order: '%s' is not seq or random", optarg);
      break;
    case 'm':
      if (chase_mapping_parse(optarg, &o->spec.mapping))
        return cli_usage_error("chase", "--mapping: '%s' is not contiguous, shuffled, cudamalloc or aliased", optarg);
      break;
    case 'f':
      if (report_format_parse(optarg, &o->format)) return cli_usage_error("chase", "--format: '%s' is not text, json or csv", optarg);
      break;
    case 'O': case 'n': case 'w': case 'r': case 'e':
      if (num_parse_whole(optarg, &v) || ((ch == 'O' || ch == 'n' || ch == 'r') && (v == 0 || v > UINT32_MAX)))
        return cli_usage_error("chase", "--%s: '%s' is not a valid count",
                               ch == 'O' ? "per-octave" : ch == 'n' ? "steps" : ch == 'w' ? "warmup" : ch == 'r' ? "repeats" : "seed",
                               optarg);
      if (ch == 'O') o->per_octave = (unsigned)v;
      else if (ch == 'n') o->spec.steps = v;
      else if (ch == 'w') o->spec.warmup = v;
      else if (ch == 'r') o->spec.repeats = (unsigned)v;
      else o->spec.seed = v;
      break;
    case 'h': fputs(chase_help, stdout); return -1;
    default: return cli_usage_error("chase", "unknown or incomplete option '%s' (see --help)", name);
    }
  }
  if (optind != argc) return cli_usage_error("chase", "unexpected argument '%s'", argv[optind]);
  if (!o->footprints) return cli_usage_error("chase", "--footprint is required");
  if (!o->spec.stride) return cli_usage_error("chase", "--stride is required");
  return 0;
}

static void add_levels(json_object *row, const mmu_config *mc, const chase_result *r) {
  for (unsigned i = 0; i < mc->nlevels; i++) {
    char key[MMU_NAME_MAX + 16];
    snprintf(key, sizeof key, "%s_hit_rate", mc->level[i].name);
    double rate = r->level[i].accesses ? (double)r->level[i].hits / (double)r->level[i].accesses : 0.0;
    json_object_object_add(row, key, json_object_new_double(rate));
  }
  json_object_object_add(row, "walks_per_access", json_object_new_double((double)r->walks / (double)r->loads));
  json_object_object_add(row, "walk_refs_per_access",
                         json_object_new_double((double)r->walk_refs / (double)r->loads));
}

static json_object *row_json(const chase_spec *s, const mmu_config *mc, const chase_result *r) {
  json_object *row = json_object_new_object();
  json_object_object_add(row, "pattern", json_object_new_string("chase"));
  json_object_object_add(row, "order", json_object_new_string(chase_order_name(s->order)));
  json_object_object_add(row, "mapping", json_object_new_string(chase_mapping_name(s->mapping)));
  json_object_object_add(row, "page_bytes", json_object_new_uint64(s->page_size));
  json_object_object_add(row, "stride_bytes", json_object_new_uint64(s->stride));
  json_object_object_add(row, "footprint_bytes", json_object_new_uint64((uint64_t)r->nodes * s->stride));
  json_object_object_add(row, "steps", json_object_new_uint64(s->steps));
  json_object_object_add(row, "cycles_per_access", json_object_new_double(r->cycles_per_access));
  json_object_object_add(row, "seed", json_object_new_uint64(s->seed));
  json_object_object_add(row, "nodes", json_object_new_uint64(r->nodes));
  json_object_object_add(row, "repeats", json_object_new_uint64(s->repeats));
  add_levels(row, mc, r);
  return row;
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

int cmd_chase(int argc, char **argv) {
  chase_opts o = {.per_octave = 1,
                  .format = REPORT_CSV,
                  .spec = {.chunk = 2u << 20, .seed = 1, .warmup = 1024, .steps = 4096, .repeats = 5}};
  int rc = parse_chase(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  uint64_t *footprints = malloc(MAX_FOOTPRINTS * sizeof *footprints);
  size_t nfp;
  if (!footprints || parse_footprints(o.footprints, o.per_octave, footprints, &nfp)) {
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
  const pt_format *f = spec.format;
  o.spec.page_size = spec.page_size;
  if (o.page_text && (num_parse_size(o.page_text, &o.spec.page_size) || !is_pow2(o.spec.page_size) ||
                      pt_format_leaf_level(f, log2_u64(o.spec.page_size)) < 0))
    rc = cli_usage_error("chase", "--page-size: '%s' is not a page size of %s", o.page_text, f->name);
  json_object *rows = json_object_new_array();
  uint32_t last_nodes = 0;
  for (size_t i = 0; rc == EXIT_OK && i < nfp; i++) {
    o.spec.footprint = footprints[i];
    double nodes = round((double)footprints[i] / (double)o.spec.stride);
    if (nodes < 1 || nodes > UINT32_MAX) {
      char fp[32], st[32];
      rc = cli_usage_error("chase", "--footprint: %s holds %s at a %s stride", num_format_size(footprints[i], fp, sizeof fp),
                           nodes < 1 ? "no node" : "more than 2^32 nodes", num_format_size(o.spec.stride, st, sizeof st));
      break;
    }
    o.spec.nodes = (uint32_t)nodes;
    if (o.spec.nodes == last_nodes) continue; /* as tlbsim-gpu plans points */
    last_nodes = o.spec.nodes;
    chase_result r;
    if (chase_run(f, &spec.mmu, &o.spec, &r, &d)) rc = cli_input_error(&d);
    else json_object_array_add(rows, row_json(&o.spec, &spec.mmu, &r));
  }
  if (rc == EXIT_OK) print_rows(rows, o.format);
  json_object_put(rows);
  cfg_destroy(c);
  free(footprints);
  return rc;
}
