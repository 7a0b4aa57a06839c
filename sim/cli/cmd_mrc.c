/* tlbsim mrc — miss-ratio curves of LRU TLBs from one pass over a trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/mrc.h"
#include "tlbsim/report.h"

#define DEFAULT_MAX_ENTRIES 65536u
#define DEFAULT_SETS_MAX 65536u
#define ALL_WAYS 16u
#define MAX_LIST 64u

typedef struct count_list {
  uint64_t v[MAX_LIST];
  unsigned n;
} count_list;

typedef struct mrc_opts {
  mrc_spec spec;
  uint64_t max_entries, sets_max; /* sets_max 0: not given */
  count_list entries;             /* fully associative rows; n 0: not given */
  count_list ways;                /* set-associative rows; n 0: not given */
  bool all_ways, quiet;
  int format, trace_fmt;          /* report_format, trace_format */
  uint64_t jobs;                  /* --jobs: decode threads, 0 the cores available */
  const char *trace;
} mrc_opts;

/* --entries and --ways: a comma list of whole numbers up to MRC_MAX_ENTRIES
 * (an OPT_CALL of cli_opts.h). */
static int take_counts(void *dest, const char *arg, char *why, size_t len) {
  count_list *l = dest;
  char buf[32];
  l->n = 0;
  for (const char *p = arg;; p++) {
    size_t n = strcspn(p, ",");
    if (n >= sizeof buf || l->n == MAX_LIST) break;
    memcpy(buf, p, n);
    buf[n] = 0;
    if (num_whole_in(buf, 1, MRC_MAX_ENTRIES, &l->v[l->n++]) != NUM_OK) break;
    p += n;
    if (!*p) return 0;
  }
  snprintf(why, len, "a list of at most %u whole numbers from 1 to %u", MAX_LIST, MRC_MAX_ENTRIES);
  return -1;
}

/* --page-size: a comma list of distinct power-of-two sizes, into the spec. */
static int take_page_sizes(void *dest, const char *arg, char *why, size_t len) {
  if (!mrc_spec_page_sizes(dest, arg)) return 0;
  snprintf(why, len, "a list of at most %u distinct power-of-two sizes", MRC_MAX_PAGE_SIZES);
  return -1;
}

static int parse_mrc(int argc, char **argv, mrc_opts *o) {
  char max_help[64], all_help[64], sets_help[160], sample_help[320];
  snprintf(max_help, sizeof max_help, "largest TLB in entries (default %u)", DEFAULT_MAX_ENTRIES);
  snprintf(all_help, sizeof all_help, "every associativity from 1 to %u", ALL_WAYS);
  snprintf(sets_help, sizeof sets_help,
           "largest set count, a power of two (default: what --max-entries allows\n"
           "the smallest ways, at most %u); 1: fully associative only", DEFAULT_SETS_MAX);
  snprintf(sample_help, sizeof sample_help,
           "SHARDS sampling at rate R (%g to 1) of the pages whose stack distance\n"
           "exceeds %u: fully associative rows above %u entries become estimates, in\n"
           "about R of the memory; the rest stays exact (a rate that samples none of\n"
           "those pages is an error)", MRC_SAMPLE_MIN, MRC_RECENT_EXACT, MRC_RECENT_EXACT);
  const cli_opt opts[] = {
      {.name = "page-size", .kind = OPT_CALL, .dest = &o->spec, .arg = "LIST", .call = take_page_sizes,
       .help = "page sizes, e.g. 4K,2M (default 4K): one analysis each, in one pass"},
      {.name = "max-entries", .kind = OPT_WHOLE, .dest = &o->max_entries, .arg = "N", .lo = 1, .hi = MRC_MAX_ENTRIES,
       .help = max_help},
      {.name = "entries", .kind = OPT_CALL, .dest = &o->entries, .arg = "LIST", .call = take_counts,
       .help = "the fully associative sizes to print (default every power of two\nup to --max-entries)"},
      {.name = "ways", .kind = OPT_CALL, .dest = &o->ways, .arg = "LIST", .call = take_counts,
       .help = "associativities of the set-associative rows (default 1,2,4,8,16), each\n"
               "with every power-of-two set count from 2 up to --sets-max whose\n"
               "entries (sets x ways) fit --max-entries"},
      {.name = "all-ways", .kind = OPT_FLAG, .dest = &o->all_ways, .help = all_help},
      {.name = "sets-max", .kind = OPT_WHOLE, .dest = &o->sets_max, .arg = "N", .lo = 1, .hi = MRC_MAX_ENTRIES,
       .help = sets_help},
      {.name = "sample", .kind = OPT_REAL, .dest = &o->spec.sample_rate, .arg = "R", .rlo = MRC_SAMPLE_MIN, .rhi = 1,
       .help = sample_help},
      {.name = "opt", .kind = OPT_FLAG, .dest = &o->spec.opt,
       .help = "also Belady's OPT, the bound: columns opt_misses and opt_miss_ratio on\n"
               "fully associative rows (empty on the others); holds every reference\n"
               "in memory (4 bytes each per page size, 12 at the end); not with --sample"},
      {.name = "inst", .kind = OPT_FLAG, .dest = &o->spec.inst,
       .help = "count instruction fetches too (default: data only, an L1 DTLB)"},
      {.name = "trace-format", .kind = OPT_CHOICE, .dest = &o->trace_fmt, .arg = "F", .choices = trace_format_names,
       .help = "auto (default: from the first bytes), native, lackey, din, binary, champsim or pinatrace"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "csv (default), text or json"},
      CLI_JOBS_OPT(&o->jobs),
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "mrc", .usage = "[OPTIONS] TRACE|-", .operands = "TRACE", .min_operands = 1, .max_operands = 1,
      .about = "Reads TRACE once and prints the misses of LRU TLBs of many geometries, as tlbsim's own\n"
               "TLB model counts them (one reference per page an access touches; modulo set index),\n"
               "one row per page size and geometry:\n"
               "  page_bytes,sets,ways,entries,accesses,misses,miss_ratio\n"
               "Fully associative rows have sets 1 and ways = entries. docs/MRC.md explains how.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->trace = argv[first];
  o->spec.max_entries = (uint32_t)o->max_entries; /* <= MRC_MAX_ENTRIES */
  if (o->all_ways && o->ways.n) return cli_usage_error("mrc", "--ways and --all-ways: give one");
  if (o->sets_max && !is_pow2(o->sets_max))
    return cli_usage_error("mrc", "--sets-max: %llu is not a power of two", (unsigned long long)o->sets_max);
  if (o->spec.opt && o->spec.sample_rate < 1) return cli_usage_error("mrc", "--opt needs every reference: not with --sample");
  for (unsigned i = 0; i < o->entries.n; i++)
    if (o->entries.v[i] > o->max_entries)
      return cli_usage_error("mrc", "--entries: %llu exceeds --max-entries (%llu)",
                             (unsigned long long)o->entries.v[i], (unsigned long long)o->max_entries);
  if (!o->entries.n)
    for (uint64_t e = 1; e <= o->max_entries; e *= 2) o->entries.v[o->entries.n++] = e;
  if (o->all_ways)
    for (o->ways.n = 0; o->ways.n < ALL_WAYS; o->ways.n++) o->ways.v[o->ways.n] = o->ways.n + 1;
  if (!o->ways.n) return o->ways = (count_list){.v = {1, 2, 4, 8, 16}, .n = 5}, 0;
  /* Ways asked for that no set-associative row can have (two sets at least): refused, not dropped. */
  for (unsigned i = 0; !o->all_ways && i < o->ways.n; i++) {
    if (o->sets_max == 1)
      return cli_usage_error("mrc", "--ways: --sets-max 1 leaves fully associative rows only");
    if (o->ways.v[i] * 2 > o->max_entries)
      return cli_usage_error("mrc", "--ways: %llu ways need at least %llu entries (2 sets), more than --max-entries (%llu)",
                             (unsigned long long)o->ways.v[i], (unsigned long long)o->ways.v[i] * 2,
                             (unsigned long long)o->max_entries);
  }
  return 0;
}

/* The largest power of two sets that the smallest ways fits in max_entries. */
static uint32_t default_sets_max(const mrc_opts *o) {
  uint64_t least = o->ways.v[0];
  for (unsigned i = 1; i < o->ways.n; i++)
    if (o->ways.v[i] < least) least = o->ways.v[i];
  uint64_t fit = o->max_entries / least, sets = 1;
  while (sets * 2 <= fit && sets * 2 <= DEFAULT_SETS_MAX) sets *= 2;
  return (uint32_t)sets;
}

static uint64_t get_u64(json_object *row, const char *key) {
  json_object *v;
  return json_object_object_get_ex(row, key, &v) ? json_object_get_uint64(v) : 0;
}

/* The OPT columns of a text row: blank on set-associative rows. */
static void print_opt_text(json_object *row, uint64_t accesses) {
  json_object *v;
  if (!json_object_object_get_ex(row, "opt_misses", &v) || !v) return;
  uint64_t miss = json_object_get_uint64(v);
  printf(" %14llu %10.6f", (unsigned long long)miss, accesses ? (double)miss / (double)accesses : 0.0);
}

/* CSV (the header once), a JSON array, or an aligned table. */
static void print_rows(json_object *rows, report_format f) {
  size_t n = json_object_array_length(rows);
  if (f == REPORT_JSON) {
    puts(json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY));
    return;
  }
  bool opt = n && json_object_object_get_ex(json_object_array_get_idx(rows, 0), "opt_misses", NULL);
  if (f == REPORT_TEXT)
    printf("%8s %7s %5s %8s %14s %14s %10s%s\n", "page", "sets", "ways", "entries", "accesses", "misses", "miss ratio",
           opt ? "     OPT misses  OPT ratio" : "");
  for (size_t i = 0; i < n; i++) {
    json_object *row = json_object_array_get_idx(rows, i);
    if (f == REPORT_CSV) {
      report_write_csv_row(stdout, row, i == 0);
      continue;
    }
    char page[32];
    uint64_t acc = get_u64(row, "accesses"), miss = get_u64(row, "misses");
    printf("%8s %7llu %5llu %8llu %14llu %14llu %10.6f", num_format_size(get_u64(row, "page_bytes"), page, sizeof page),
           (unsigned long long)get_u64(row, "sets"), (unsigned long long)get_u64(row, "ways"),
           (unsigned long long)get_u64(row, "entries"), (unsigned long long)acc, (unsigned long long)miss,
           acc ? (double)miss / (double)acc : 0.0);
    if (opt) print_opt_text(row, acc);
    putchar('\n');
  }
  if (f == REPORT_TEXT && n && json_object_object_get_ex(json_object_array_get_idx(rows, 0), "partial", NULL))
    printf("partial: interrupted, the counts are of the records read before it\n");
}

/* The progress line and ^C, after each block. */
static int each_block(void *ctx) { return cli_trace_watch_tick(ctx, 0); }

/* An interrupted pass's rows: each "partial": true (the curves are of the
 * records read before ^C). */
static void mark_partial(json_object *rows) {
  for (size_t i = 0; i < json_object_array_length(rows); i++) report_mark_partial(json_object_array_get_idx(rows, i));
}

int cmd_mrc(int argc, char **argv) {
  mrc_opts o = {.spec = {.npage_shifts = 1, .page_shift = {12}, .sample_rate = 1},
                .max_entries = DEFAULT_MAX_ENTRIES,
                .format = REPORT_CSV,
                .trace_fmt = TRACE_AUTO};
  int rc = parse_mrc(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  o.spec.max_sets = o.sets_max ? (uint32_t)o.sets_max : default_sets_max(&o);
  for (unsigned w = 0; w < o.ways.n; w++)
    if (o.ways.v[w] > o.spec.max_ways) o.spec.max_ways = (uint32_t)o.ways.v[w];
  diag d;
  if (mrc_spec_check(&o.spec, &d)) return cli_usage_error("mrc", "%s", d.msg);
  mrc *m = mrc_create(&o.spec, &d);
  if (!m) return cli_input_error(&d);
  trace_reader *r = trace_open_jobs(o.trace, (trace_format)o.trace_fmt, (unsigned)o.jobs, &d);
  cli_trace_watch w;
  cli_trace_watch_start(&w, "mrc", o.quiet, r, o.trace, NULL);
  int replayed = r ? mrc_replay(m, r, each_block, &w, &d) : -1;
  if (replayed == 0 && cli_check_nonempty(r, &d)) replayed = -1;
  cli_progress_end(&w.line);
  rc = replayed < 0 ? cli_input_error(&d) : replayed ? CLI_EXIT_INTERRUPTED : EXIT_OK;
  if (replayed >= 0) {
    json_object *rows = report_mrc_rows(m, &o.spec, o.entries.v, o.entries.n, o.ways.v, o.ways.n);
    if (replayed) mark_partial(rows);
    print_rows(rows, (report_format)o.format);
    json_object_put(rows);
    if (replayed) cli_interrupted_note("mrc", w.stopped_at);
  }
  trace_close(r);
  mrc_destroy(m);
  return rc;
}
