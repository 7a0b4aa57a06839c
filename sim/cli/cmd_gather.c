/* tlbsim gather — the predicted throughput of tlbsim-gpu's many-thread
 * gather, through the concurrency model of a preset's [gpu] section. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/gpu_gather.h"
#include "tlbsim/launch.h"
#include "tlbsim/gather.h"
#include "tlbsim/layout.h"
#include "tlbsim/report.h"

#define MAX_POINTS 1024
#define WARP_THREADS 32u

typedef struct gather_opts {
  cli_config conf;
  const char *footprints, *tps_list, *threads_list, *launch_list, *from_alloc, *policy;
  uint64_t nodes, loads, seed, page_size, chunk, groups, per_octave, requests, request_size;
  int mapping, format, layout_case;
  bool quiet;
} gather_opts;

/* A comma-separated list of whole numbers (thread counts), each in [lo, hi]. */
static int parse_counts(const char *text, uint64_t lo, uint64_t hi, uint64_t *out, size_t *n) {
  *n = 0;
  for (const char *p = text;; p++) {
    size_t len = strcspn(p, ",");
    uint64_t v;
    if (*n == MAX_POINTS || num_span_whole(p, p + len, &v) || v < lo || v > hi) return -1;
    out[(*n)++] = v;
    p += len;
    if (!*p) return 0;
  }
}

static int parse_gather(int argc, char **argv, gather_opts *o) {
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&o->conf),
      {.name = "footprint", .kind = OPT_TEXT, .dest = &o->footprints, .arg = "LIST",
       .help = "comma-separated sizes or ranges LO..HI (e.g. 256M..128G); required"},
      {.name = "per-octave", .kind = OPT_WHOLE, .dest = &o->per_octave, .arg = "N", .lo = 1, .hi = 64,
       .help = "footprints per doubling inside ranges (default 1)"},
      {.name = "threads-per-sm", .kind = OPT_TEXT, .dest = &o->tps_list, .arg = "LIST",
       .help = "threads on every SM (multiples of 32, up to 2048; default 2048)"},
      {.name = "threads", .kind = OPT_TEXT, .dest = &o->threads_list, .arg = "LIST",
       .help = "or: threads in all, T/256 blocks of 256 (T a multiple of 256), placed as --launch places them"},
      {.name = "launch", .kind = OPT_TEXT, .dest = &o->launch_list, .arg = "LIST",
       .help = "or: launches GRIDxBLOCK (e.g. 16x256,264x256), the blocks on the SMs the block scheduler\n"
               "gives them ([gpu] block_order); every SM used must hold as many blocks"},
      {.name = "nodes", .kind = OPT_WHOLE, .dest = &o->nodes, .arg = "N", .lo = 1, .hi = NUM_U32_MAX,
       .help = "128-byte lines spread over the footprint (default 65536)"},
      {.name = "loads-per-thread", .kind = OPT_WHOLE, .dest = &o->loads, .arg = "K", .lo = GPU_GATHER_BATCH,
       .hi = 1u << 20, .help = "independent loads per thread, a multiple of 8 (default 256)"},
      {.name = "mapping", .kind = OPT_CHOICE, .dest = &o->mapping, .arg = "MAPPING", .choices = region_mapping_names,
       .help = "cudamalloc (default), contiguous, shuffled, aliased or managed (gpu/README.md)"},
      {.name = "page-size", .kind = OPT_SIZE, .dest = &o->page_size, .arg = "SIZE", .lo = 1,
       .help = "default: the configuration's [machine] page_size"},
      {.name = "chunk", .kind = OPT_SIZE, .dest = &o->chunk, .arg = "SIZE", .lo = 1,
       .help = "physical pieces of VMM mappings (default 2M)"},
      {.name = "seed", .kind = OPT_WHOLE, .dest = &o->seed, .arg = "S", .help = "the load hash's seed (default 1)"},
      {.name = "groups", .kind = OPT_WHOLE, .dest = &o->groups, .arg = "G", .lo = 2, .hi = 16,
       .help = "groups of loads per warp simulated before extrapolating (default 4)"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "csv (default), text or json"},
      {.name = "from-alloc", .kind = OPT_TEXT, .dest = &o->from_alloc, .arg = "TRACE",
       .help = "instead of a footprint: the buffers alive at the end of TRACE's alloc/free\n"
               "records (native format), each read at its first line through a table of\n"
               "offsets, as tlbsim-gpu churn-gather does; also predicts its one-thread chase"},
      {.name = "requests", .kind = OPT_WHOLE, .dest = &o->requests, .arg = "N", .lo = 1, .hi = 1u << 24,
       .help = "or: N requests of --size bytes in a row (tlbsim-gpu smallbufs)"},
      {.name = "size", .kind = OPT_SIZE, .dest = &o->request_size, .arg = "SIZE", .lo = 1, .hi = 1ull << 40,
       .help = "the size of each of those requests"},
      {.name = "policy", .kind = OPT_TEXT, .dest = &o->policy, .arg = "NAME",
       .help = "the allocator policy the history goes through (default: the preset's [vas] policy)"},
      {.name = "case", .kind = OPT_CHOICE, .dest = &o->layout_case, .arg = "CASE", .choices = layout_case_names,
       .help = "churned (default): the live set as the history leaves it; fresh: its sizes\n"
               "allocated again in order; pool: carved in order from one allocation"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "gather", .usage = "[OPTIONS] --footprint LIST | --from-alloc TRACE | --requests N --size SIZE",
      .max_operands = 0,
      .about = "Predicts the loads per ns of tlbsim-gpu's gather (independent ld.global.cg loads of every\n"
               "thread at hashed nodes, 8 in flight per thread) on the preset's GPU (default h200): one CSV\n"
               "row per footprint and thread count, in the schema tlbsim-gpu gather writes, with the model's\n"
               "kernel cycles, mean load latency, where translations were served and how busy each\n"
               "shared stage was.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  int sources = !!o->footprints + !!o->from_alloc + !!o->requests;
  if (sources != 1) return cli_usage_error("gather", "give one of --footprint, --from-alloc or --requests");
  if (!!o->requests != !!o->request_size) return cli_usage_error("gather", "--requests and --size go together");
  if (o->loads % GPU_GATHER_BATCH) return cli_usage_error("gather", "--loads-per-thread: %llu is not a multiple of %u",
                                                          (unsigned long long)o->loads, GPU_GATHER_BATCH);
  return 0;
}

static json_object *row_json(const gather_spec *s, const gather_result *r, const mmu_config *mc) {
  json_object *row = json_object_new_object();
  const region *rg = &s->region;
  uint64_t threads = (uint64_t)s->threads_per_sm * s->sms_used;
#define U64(k, v) json_object_object_add(row, k, json_object_new_uint64(v))
#define DBL(k, v) json_object_object_add(row, k, report_real(v))
  json_object_object_add(row, "pattern", json_object_new_string("gather"));
  U64("footprint_bytes", (uint64_t)rg->nodes * rg->stride);
  U64("stride_bytes", rg->stride);
  U64("nodes", rg->nodes);
  U64("threads", threads);
  U64("loads_per_thread", s->loads_per_thread);
  json_object_object_add(row, "mapping", json_object_new_string(region_mapping_names[rg->mapping]));
  DBL("loads_per_ns", r->loads_per_ns);
  U64("page_bytes", rg->page_size);
  U64("sms_used", s->sms_used);
  U64("threads_per_sm", s->threads_per_sm);
  U64("block_threads", s->block_threads);
  U64("seed", s->seed);
  DBL("kernel_cycles", r->kernel_cycles);
  DBL("latency_cycles", r->latency_cycles);
  double loads = r->loads ? (double)r->loads : 1;
  for (unsigned l = 0; l < mc->nlevels; l++) {
    char key[MMU_NAME_MAX + 16];
    snprintf(key, sizeof key, "%s_served", mc->level[l].name);
    DBL(key, (double)r->served[l] / loads);
  }
  DBL("walk_served", (double)r->served[mc->nlevels] / loads);
  DBL("merged", (double)r->merged / loads);
  DBL("busy_l2", r->busy_l2);
  DBL("busy_l3", r->busy_l3);
  DBL("busy_walk", r->busy_walk);
  DBL("busy_data", r->busy_data);
#undef U64
#undef DBL
  return row;
}

static void print_text(json_object *rows) {
  printf("%10s %7s %-10s %12s %10s %9s\n", "footprint", "thr/SM", "mapping", "loads/ns", "latency", "walks");
  for (size_t i = 0; i < json_object_array_length(rows); i++) {
    json_object *row = json_object_array_get_idx(rows, i), *v;
    char fp[32];
    json_object_object_get_ex(row, "footprint_bytes", &v);
    printf("%10s", num_format_size(json_object_get_uint64(v), fp, sizeof fp));
    json_object_object_get_ex(row, "threads_per_sm", &v);
    printf(" %7llu", (unsigned long long)json_object_get_uint64(v));
    json_object_object_get_ex(row, "mapping", &v);
    printf(" %-10s", json_object_get_string(v));
    json_object_object_get_ex(row, "loads_per_ns", &v);
    printf(" %12.3f", json_object_get_double(v));
    json_object_object_get_ex(row, "latency_cycles", &v);
    printf(" %10.0f", json_object_get_double(v));
    json_object_object_get_ex(row, "walk_served", &v);
    printf(" %9.4f\n", json_object_get_double(v));
  }
}

static void print_rows(json_object *rows, report_format f) {
  if (f == REPORT_JSON) puts(json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY));
  else if (f == REPORT_TEXT) print_text(rows);
  else
    for (size_t i = 0; i < json_object_array_length(rows); i++)
      report_write_csv_row(stdout, json_object_array_get_idx(rows, i), i == 0);
}

/* How one point's kernel runs: threads on each SM used, in blocks of
 * block threads, on every SM or a set of them (pinned: those the launch's
 * blocks land on, placed with SM 0's known L2-TLB group). */
typedef struct shape {
  uint32_t threads_per_sm, block, sms_used, pinned_in_group;
  bool pinned;
} shape;

/* The shape of launch l on g: its first wave, one that fits at once and
 * puts as many blocks on every SM it uses. */
static int launch_shape(const gpu_config *g, const launch_geometry *l, const char *text, shape *out) {
  diag d;
  launch_plan p;
  uint32_t per_sm;
  if (launch_place(g, l, &p, &d)) return cli_usage_error("gather", "--launch %s: %s", text, d.msg + strlen("launch: "));
  if (p.waves > 1)
    return cli_usage_error("gather", "--launch %s: %llu waves; the model runs launches whose blocks fit at once (%u x %u)",
                           text, (unsigned long long)p.waves, p.resident, g->sms);
  if (!launch_even(&p, g, &per_sm))
    return cli_usage_error("gather", "--launch %s: its blocks land unevenly on %u SMs; the model runs launches whose SMs "
                           "all hold as many blocks", text, p.sms_used);
  *out = (shape){.threads_per_sm = per_sm * l->block, .block = l->block, .sms_used = p.sms_used};
  if (p.sms_used == g->sms || p.sms_used > 2 * GPU_MAX_GROUP_SMS) return 0;
  out->pinned = true;
  for (uint32_t i = 0; i < g->ngroup; i++) out->pinned_in_group += p.blocks[g->group[i]] != 0;
  return 0;
}

/* The shapes --threads-per-sm, --threads or --launch ask for. */
static int shapes(const gather_opts *o, const gpu_config *g, shape *out, size_t *n) {
  if (!!o->threads_list + !!o->tps_list + !!o->launch_list > 1)
    return cli_usage_error("gather", "use one of --threads-per-sm, --threads and --launch");
  *n = 0;
  if (o->threads_list || o->launch_list) {
    const char *list = o->threads_list ? o->threads_list : o->launch_list;
    char item[64], why[160];
    for (const char *p = list; *p && *n < MAX_POINTS; p += *p == ',') {
      size_t len = strcspn(p, ",");
      snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
      p += len;
      launch_geometry l;
      uint64_t t;
      if (o->threads_list) {
        if (num_parse_whole(item, &t) || !t || t % 256)
          return cli_usage_error("gather", "--threads: '%s' is not a count of threads in blocks of 256", item);
        l = (launch_geometry){.grid = t / 256, .block = 256};
      } else if (launch_parse(item, &l, why, sizeof why)) {
        return cli_usage_error("gather", "--launch: %s", why);
      }
      int rc = launch_shape(g, &l, item, &out[(*n)++]);
      if (rc) return rc;
    }
    return *n ? 0 : cli_usage_error("gather", "--%s: an empty list", o->threads_list ? "threads" : "launch");
  }
  uint64_t tps[MAX_POINTS];
  if (parse_counts(o->tps_list ? o->tps_list : "2048", WARP_THREADS, GPU_GATHER_MAX_TPS, tps, n))
    return cli_usage_error("gather", "--threads-per-sm: '%s' is not a list of 32 .. 2048", o->tps_list);
  for (size_t i = 0; i < *n; i++) {
    if (tps[i] % WARP_THREADS || (tps[i] > 256 && tps[i] % 256))
      return cli_usage_error("gather", "%llu threads per SM: a multiple of 32 up to 256, of 256 above",
                             (unsigned long long)tps[i]);
    out[i] = (shape){.threads_per_sm = (uint32_t)tps[i], .block = tps[i] < 256 ? (uint32_t)tps[i] : 256,
                     .sms_used = g->sms};
  }
  return 0;
}

/* One row per thread count for an allocation history's live set: its
 * regions, the chase and the gather (tlbsim-gpu's churn and smallbufs CSV
 * columns where they exist). */
static int from_layout(const gather_opts *o, machine_spec *spec, const shape *sh, size_t ntps) {
  diag d;
  for (size_t k = 0; k < ntps; k++)
    if (sh[k].sms_used != spec->gpu.sms)
      return cli_usage_error("gather", "--from-alloc and --requests run on every SM: --threads-per-sm, or a launch that "
                             "fills every SM");
  if (o->policy) {
    if (strlen(o->policy) >= sizeof spec->vas_policy)
      return cli_usage_error("gather", "--policy: '%s' is not a policy", o->policy);
    strcpy(spec->vas_policy, o->policy);
  }
  layout_source src = {.trace = o->from_alloc, .count = o->requests, .size = o->request_size};
  layout l;
  layout_regions reg;
  chase_result c;
  if (layout_build(spec, &src, (layout_case)o->layout_case, &l, &d)) return cli_input_error(&d);
  int bad = layout_regions_of(&l, l.nodes, &reg) ? diag_set(&d, NULL, 0, "out of memory")
                                                  : layout_chase(spec, &l, l.nodes, o->seed, &c, &d);
  if (bad) {
    layout_free(&l);
    return cli_input_error(&d);
  }
  json_object *rows = json_object_new_array();
  int rc = EXIT_OK;
  cli_progress line;
  cli_progress_start(&line, "gather", o->quiet);
  for (size_t k = 0; k < ntps && rc == EXIT_OK; k++) {
    gather_result r;
    cli_progress_count(&line, k, ntps, "points");
    if (layout_gather(spec, &l, l.nodes, sh[k].threads_per_sm, (uint32_t)o->loads, o->seed, &r, &d)) {
      cli_progress_end(&line);
      rc = cli_input_error(&d);
      break;
    }
    json_object *row = json_object_new_object();
#define U64(key, v) json_object_object_add(row, key, json_object_new_uint64(v))
#define DBL(key, v) json_object_object_add(row, key, report_real(v))
    json_object_object_add(row, "pattern", json_object_new_string(o->from_alloc ? "churn-gather" : "smallbufs"));
    json_object_object_add(row, "case", json_object_new_string(layout_case_names[o->layout_case]));
    json_object_object_add(row, "source", json_object_new_string(o->from_alloc ? o->from_alloc : "requests"));
    json_object_object_add(row, "policy", json_object_new_string(spec->vas_policy));
    U64("buffers", reg.buffers);
    U64("live_bytes", reg.live_bytes);
    U64("va_span_bytes", reg.va_span);
    U64("regions_2m", reg.regions_2m);
    U64("regions_32m", reg.regions_32m);
    U64("line_regions_2m", reg.line_regions_2m);
    U64("line_regions_32m", reg.line_regions_32m);
    DBL("chase_cycles", c.cycles_per_access);
    U64("threads", (uint64_t)sh[k].threads_per_sm * spec->gpu.sms);
    U64("threads_per_sm", sh[k].threads_per_sm);
    U64("loads_per_thread", o->loads);
    DBL("loads_per_ns", r.loads_per_ns);
    DBL("kernel_cycles", r.kernel_cycles);
#undef U64
#undef DBL
    json_object_array_add(rows, row);
  }
  cli_progress_end(&line);
  if (rc == EXIT_OK) {
    if (o->format == REPORT_JSON) puts(json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY));
    else
      for (size_t i = 0; i < json_object_array_length(rows); i++)
        report_write_csv_row(stdout, json_object_array_get_idx(rows, i), i == 0);
  }
  json_object_put(rows);
  layout_free(&l);
  return rc;
}

int cmd_gather(int argc, char **argv) {
  gather_opts o = {.nodes = 65536, .loads = 256, .seed = 1, .chunk = 2u << 20, .groups = 4, .per_octave = 1,
                   .mapping = REGION_CUDAMALLOC, .format = REPORT_CSV};
  int rc = parse_gather(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine_spec spec;
  if ((rc = cli_load_gpu_spec(&o.conf, "gather", &label, &spec))) return rc;
  uint64_t fp[MAX_POINTS];
  shape sh[MAX_POINTS];
  size_t nfp, ntps = 0;
  if ((rc = shapes(&o, &spec.gpu, sh, &ntps))) return rc;
  if (!o.footprints) return from_layout(&o, &spec, sh, ntps);
  if (cli_parse_footprints(o.footprints, (unsigned)o.per_octave, fp, MAX_POINTS, &nfp))
    return cli_usage_error("gather", "--footprint: '%s' is not a list of sizes or LO..HI ranges", o.footprints);
  uint64_t page = o.page_size ? o.page_size : spec.page_size, largest = 0;
  for (size_t i = 0; i < nfp; i++) largest = fp[i] > largest ? fp[i] : largest;
  region_mapping m = (region_mapping)o.mapping;
  json_object *rows = json_object_new_array();
  rc = EXIT_OK;
  cli_progress line;
  cli_progress_start(&line, "gather", o.quiet);
  for (size_t i = 0; rc == EXIT_OK && i < nfp; i++) {
    uint64_t align = m == REGION_ALIASED ? o.chunk : GPU_GATHER_LINE;
    uint64_t stride = gpu_gather_stride(fp[i], (uint32_t)o.nodes, align);
    if (!stride) {
      cli_progress_end(&line);
      rc = cli_usage_error("gather", "--footprint: %llu bytes hold no %llu nodes at a %llu-byte granule",
                           (unsigned long long)fp[i], (unsigned long long)o.nodes, (unsigned long long)align);
      break;
    }
    for (size_t k = 0; rc == EXIT_OK && k < ntps; k++) {
      gather_spec s = {.region = {.base = region_default_base(largest), .stride = stride, .nodes = (uint32_t)o.nodes,
                                  .page_size = page, .chunk = o.chunk, .mapping = m, .seed = o.seed},
                       .threads_per_sm = sh[k].threads_per_sm, .loads_per_thread = (uint32_t)o.loads,
                       .batch = GPU_GATHER_BATCH, .block_threads = sh[k].block, .seed = o.seed,
                       .sms_used = sh[k].sms_used, .pinned = sh[k].pinned, .pinned_in_group = sh[k].pinned_in_group,
                       .groups = (uint32_t)o.groups};
      gather_result r;
      cli_progress_count(&line, i * ntps + k, nfp * ntps, "points");
      if (gather_run(&spec.format, &spec.sys, &spec.gpu, &s, &r, &d)) rc = EXIT_INPUT;
      else json_object_array_add(rows, row_json(&s, &r, &spec.sys.mmu));
    }
  }
  cli_progress_end(&line);
  if (rc == EXIT_INPUT) cli_input_error(&d);
  if (rc == EXIT_OK) print_rows(rows, (report_format)o.format);
  json_object_put(rows);
  return rc;
}
