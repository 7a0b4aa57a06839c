/* libtlbsim's facade (tlbsim/tlbsim.h) over the machine, trace, report,
 * mrc, chase, allocation-replay, ptview, tlblog, quiz and sweep modules:
 * each call builds what the CLI builds for the same command and turns
 * every diag into the caller's error string. */
#include "tlbsim/tlbsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/chase.h"
#include "tlbsim/config.h"
#include "tlbsim/loader.h"
#include "tlbsim/machine.h"
#include "tlbsim/mrc.h"
#include "tlbsim/ptview.h"
#include "tlbsim/quiz.h"
#include "tlbsim/report.h"
#include "tlbsim/report_alloc.h"
#include "tlbsim/stats.h"
#include "tlbsim/sweep.h"
#include "tlbsim/tlblog.h"

#define API_MRC_MAX_ENTRIES 65536u /* tlbsim mrc's defaults */
#define API_MRC_SETS_MAX 65536u
#define API_ALLOC_PRESET "h200" /* tlbsim alloc's: its machine.phys_memory is the default capacity */

struct tlbsim_machine {
  machine *m;
  char config[256];       /* the preset or file it was built from: the report's "config" */
  char trace[4096];       /* the last trace replayed (or "tlbsim_access"): the report's "trace" */
  char trace_format[16 * TRACE_THREAD_MAX]; /* each trace's, space-separated */
  unsigned long accesses; /* tlbsim_access calls: the LINE of their errors */
};

/* The error string a diag becomes; -1 for `return fail(...)`. */
static int fail(char *err, const diag *d) {
  if (err) snprintf(err, TLBSIM_ERROR_MAX, "%s", d->msg);
  return -1;
}

static int fail_msg(char *err, const char *what, const char *msg) {
  diag d;
  diag_set(&d, what, 0, "%s", msg);
  return fail(err, &d);
}

/* --- arguments: each call checks every one of its own first --------------
 * A NULL where a value is needed, a NULL inside an array with a count, or a
 * count or length no caller could mean fails the call with its one line,
 * "tlbsim_CALL: ARG is NULL", before anything is read or allocated. */
#define API_MAX_ITEMS 65536u           /* sets, policies: far more than any configuration has */
#define API_FEED_MAX (UINT64_C(1) << 40) /* trace text held in memory: 1 TiB (longer is a file's) */

/* -1 with "fn: what is NULL" when p is NULL. */
static int need(char *err, const char *fn, const void *p, const char *what) {
  if (p) return 0;
  char msg[64];
  snprintf(msg, sizeof msg, "%s is NULL", what);
  return fail_msg(err, fn, msg);
}

/* n strings at items: the array there when n > 0, each one not NULL. */
static int need_items(char *err, const char *fn, const char *const *items, size_t n, const char *what) {
  char msg[96];
  if (n > API_MAX_ITEMS) snprintf(msg, sizeof msg, "%zu %s: at most %u", n, what, API_MAX_ITEMS);
  else if (n && !items) snprintf(msg, sizeof msg, "%s is NULL with a count of %zu", what, n);
  else {
    for (size_t i = 0; i < n; i++)
      if (!items[i]) {
        snprintf(msg, sizeof msg, "%s[%zu] is NULL", what, i);
        return fail_msg(err, fn, msg);
      }
    return 0;
  }
  return fail_msg(err, fn, msg);
}

const char *tlbsim_version(void) { return TLBSIM_VERSION; }

void tlbsim_free(void *p) { free(p); }

int tlbsim_size(const char *text, uint64_t *out, char *err) {
  if (need(err, "tlbsim_size", text, "text") || need(err, "tlbsim_size", out, "out")) return -1;
  char why[128];
  num_status st = num_size_in(text, 0, UINT64_MAX, out);
  if (st == NUM_OK) return 0;
  return fail_msg(err, "tlbsim_size", num_complaint(st, NUM_SIZE, text, 0, UINT64_MAX, why, sizeof why));
}

tlbsim_machine *tlbsim_machine_create(const char *preset, const char *config_file, const char *const *sets,
                                      size_t nsets, char *err) {
  if (need_items(err, "tlbsim_machine_create", sets, nsets, "sets")) return NULL;
  if (preset && config_file) return fail_msg(err, "tlbsim_machine_create", "a preset or a config file, not both"), NULL;
  if (!preset && !config_file) preset = "x86-64";
  tlbsim_machine *t = calloc(1, sizeof *t);
  if (!t) return fail_msg(err, "tlbsim_machine_create", "out of memory"), NULL;
  diag d;
  const char *label;
  loader_request q = {.preset = preset, .config = config_file, .sets = sets, .nsets = nsets,
                      .set_origin = "tlbsim_machine_create"};
  if (!(t->m = loader_machine(&q, &label, &d))) {
    free(t);
    return fail(err, &d), NULL;
  }
  snprintf(t->config, sizeof t->config, "%s", preset ? preset : config_file);
  strcpy(t->trace, "tlbsim_access");
  strcpy(t->trace_format, "native");
  return t;
}

void tlbsim_machine_destroy(tlbsim_machine *m) {
  if (!m) return;
  machine_destroy(m->m);
  free(m);
}

int tlbsim_access(tlbsim_machine *m, char kind, uint64_t addr, uint64_t size, char *err) {
  if (need(err, "tlbsim_access", m, "the machine")) return -1;
  static const char kinds[] = "RWX"; /* by trace_access */
  const char *k = kind ? strchr(kinds, kind) : NULL;
  diag d;
  m->accesses++;
  if (!k) return diag_set(&d, "tlbsim_access", m->accesses, "kind '%c' is not R, W or X", kind), fail(err, &d);
  if (size == 0 || addr + (size - 1) < addr)
    return diag_set(&d, "tlbsim_access", m->accesses, "size %llu at 0x%llx is not a range of the address space",
                    (unsigned long long)size, (unsigned long long)addr),
           fail(err, &d);
  trace_record r = {.kind = REC_ACCESS, .access = (trace_access)(k - kinds), .addr = addr, .size = size,
                    .line = m->accesses};
  return machine_apply(m->m, &r, "tlbsim_access", &d) ? fail(err, &d) : 0;
}

/* The trace format a caller named: NULL is auto. */
static int trace_format_of(const char *name, const char *format, trace_format *f, diag *d) {
  *f = TRACE_AUTO;
  if (format && trace_format_parse(format, f)) return diag_set(d, name, 0, "trace format '%s' is not known", format);
  return 0;
}

static int open_trace(const char *path, const char *format, trace_reader **out, diag *d) {
  trace_format f;
  if (trace_format_of(path, format, &f, d)) return -1;
  return (*out = trace_open(path, f, d)) ? 0 : -1;
}

/* Replays r (then closed) into m, which remembers the trace for its report. */
static int replay_into(tlbsim_machine *m, trace_reader *r, char *err) {
  diag d;
  int rc = machine_replay(m->m, r, NULL, NULL, &d);
  snprintf(m->trace, sizeof m->trace, "%s", trace_get_path(r));
  snprintf(m->trace_format, sizeof m->trace_format, "%s", trace_format_name(trace_get_format(r)));
  trace_close(r);
  return rc ? fail(err, &d) : 0;
}

int tlbsim_run_trace(tlbsim_machine *m, const char *path, const char *format, char *err) {
  if (need(err, "tlbsim_run_trace", m, "the machine") || need(err, "tlbsim_run_trace", path, "path")) return -1;
  diag d;
  trace_reader *r = NULL;
  return open_trace(path, format, &r, &d) ? fail(err, &d) : replay_into(m, r, err);
}

int tlbsim_run_cpus(tlbsim_machine *m, const char *const *paths, size_t n, const char *format, char *err) {
  diag d;
  if (need(err, "tlbsim_run_cpus", m, "the machine") || need_items(err, "tlbsim_run_cpus", paths, n, "paths")) return -1;
  if (!n || n > TRACE_THREAD_MAX)
    return diag_set(&d, "tlbsim_run_cpus", 0, "%zu traces: from 1 to %d", n, TRACE_THREAD_MAX), fail(err, &d);
  trace_reader *r[TRACE_THREAD_MAX];
  size_t opened = 0;
  while (opened < n && open_trace(paths[opened], format, &r[opened], &d) == 0) opened++;
  int rc = opened == n ? machine_replay_cpus(m->m, r, (unsigned)n, NULL, NULL, &d) : -1;
  if (opened == n) { /* the report's "trace" and "trace_format": each, space-separated, as the CLI's */
    size_t at = 0, fat = 0;
    for (size_t i = 0; i < n; i++) {
      at += (size_t)snprintf(m->trace + at, at < sizeof m->trace ? sizeof m->trace - at : 0, "%s%s", i ? " " : "",
                             trace_get_path(r[i]));
      fat += (size_t)snprintf(m->trace_format + fat, fat < sizeof m->trace_format ? sizeof m->trace_format - fat : 0,
                              "%s%s", i ? " " : "", trace_format_name(trace_get_format(r[i])));
    }
  }
  for (size_t i = 0; i < opened; i++) trace_close(r[i]);
  return rc ? fail(err, &d) : 0;
}

int tlbsim_feed(tlbsim_machine *m, const char *text, size_t len, const char *format, char *err) {
  if (need(err, "tlbsim_feed", m, "the machine") || (len && need(err, "tlbsim_feed", text, "text"))) return -1;
  if ((uint64_t)len > API_FEED_MAX) {
    char msg[128];
    snprintf(msg, sizeof msg, "len %zu is more than the %llu bytes fed at once (replay a file instead)", len,
             (unsigned long long)API_FEED_MAX);
    return fail_msg(err, "tlbsim_feed", msg);
  }
  diag d;
  trace_format f;
  trace_reader *r = NULL;
  if (trace_format_of("tlbsim_feed", format, &f, &d) || !(r = trace_open_memory("tlbsim_feed", text, len, f, &d)))
    return fail(err, &d);
  return replay_into(m, r, err);
}

static json_object *report_json(tlbsim_machine *m) {
  return report_run_json(m->m, m->trace, m->trace_format, m->config);
}

/* One column of the report read from the machine's counters as they
 * stand: the stats schema names it, no report is built. */
int tlbsim_stat(tlbsim_machine *m, const char *column, double *out, char *err) {
  if (need(err, "tlbsim_stat", m, "the machine") || need(err, "tlbsim_stat", column, "column") ||
      need(err, "tlbsim_stat", out, "out"))
    return -1;
  stats_schema sc;
  stats_schema_build(machine_get_spec(m->m), &sc);
  for (size_t i = 0; i < sc.n; i++) {
    const stats_column *c = &sc.col[i];
    if (strcmp(c->name, column) || (c->kind != STATS_COUNT && c->kind != STATS_RATIO)) continue;
    stats_snapshot snap;
    stats_snapshot_take(m->m, &snap);
    *out = c->kind == STATS_COUNT ? (double)stats_count(&snap, c) : stats_ratio(&snap, c);
    return 0;
  }
  diag d;
  diag_set(&d, "tlbsim_stat", 0, "'%s' is not a numeric column of the report", column);
  return fail(err, &d);
}

/* What write(f, ctx) writes, as a string the caller frees; NULL when out
 * of memory. */
static char *write_string(void (*write)(FILE *f, void *ctx), void *ctx) {
  char *text = NULL;
  size_t len;
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  write(f, ctx);
  if (fclose(f)) {
    free(text);
    return NULL;
  }
  return text;
}

typedef struct report_job {
  report_format format;
  json_object *doc;
} report_job;

static void write_report(FILE *f, void *ctx) {
  report_job *j = ctx;
  report_write(f, j->format, j->doc);
}

char *tlbsim_report(tlbsim_machine *m, const char *format, char *err) {
  if (need(err, "tlbsim_report", m, "the machine")) return NULL;
  report_job j;
  if (!format || report_format_parse(format, &j.format))
    return fail_msg(err, "tlbsim_report", "the format is not json, csv or text"), NULL;
  j.doc = report_json(m);
  char *text = write_string(write_report, &j);
  json_object_put(j.doc);
  if (!text) fail_msg(err, "tlbsim_report", "out of memory");
  return text;
}

/* tlbsim mrc's defaults: every power of two up to max_entries fully
 * associative; 1, 2, 4, 8, 16 ways at every set count that fits. */
static int mrc_plan(const char *page_sizes, uint32_t max_entries, mrc_spec *s, diag *d) {
  *s = (mrc_spec){.max_entries = max_entries ? max_entries : API_MRC_MAX_ENTRIES, .max_ways = 16, .sample_rate = 1};
  if (s->max_entries > MRC_MAX_ENTRIES)
    return diag_set(d, "tlbsim_mrc", 0, "max_entries %u exceeds %u", s->max_entries, MRC_MAX_ENTRIES);
  const char *list = page_sizes ? page_sizes : "4K";
  if (mrc_spec_page_sizes(s, list))
    return diag_set(d, "tlbsim_mrc", 0, "page sizes '%s': not a list of at most %u distinct powers of two", list,
                    MRC_MAX_PAGE_SIZES);
  for (s->max_sets = 1; s->max_sets * 2 <= s->max_entries && s->max_sets * 2 <= API_MRC_SETS_MAX;) s->max_sets *= 2;
  return mrc_spec_check(s, d);
}

static void write_rows(FILE *f, void *rows) {
  size_t n = json_object_array_length(rows);
  for (size_t i = 0; i < n; i++) report_write_csv_row(f, json_object_array_get_idx(rows, i), i == 0);
}

char *tlbsim_mrc(const char *trace, const char *format, const char *page_sizes, uint32_t max_entries,
                 char *err) {
  static const uint64_t ways[] = {1, 2, 4, 8, 16};
  uint64_t entries[32];
  mrc_spec s;
  diag d;
  if (need(err, "tlbsim_mrc", trace, "trace")) return NULL;
  if (mrc_plan(page_sizes, max_entries, &s, &d)) return fail(err, &d), NULL;
  unsigned nentries = 0;
  for (uint64_t e = 1; e <= s.max_entries; e *= 2) entries[nentries++] = e;
  trace_reader *r = NULL;
  mrc *m = mrc_create(&s, &d);
  char *text = NULL;
  if (m && open_trace(trace, format, &r, &d) == 0 && mrc_replay(m, r, NULL, NULL, &d) == 0) {
    json_object *rows = report_mrc_rows(m, &s, entries, nentries, ways, sizeof ways / sizeof ways[0]);
    if (!(text = write_string(write_rows, rows))) diag_set(&d, "tlbsim_mrc", 0, "out of memory");
    json_object_put(rows);
  }
  if (r) trace_close(r);
  mrc_destroy(m);
  if (!text) fail(err, &d);
  return text;
}

/* tlbsim chase's point: its defaults, and nodes rounded as tlbsim-gpu
 * plans them. */
static int chase_plan(const machine_spec *ms, uint64_t footprint, uint64_t stride, uint64_t page_size,
                      const char *order, const char *mapping, chase_spec *s, diag *d) {
  *s = (chase_spec){.footprint = footprint, .stride = stride, .page_size = page_size ? page_size : ms->page_size,
                    .chunk = 2u << 20, .seed = 1, .warmup = 1024, .steps = 4096, .repeats = 5};
  if (order && chase_order_parse(order, &s->order))
    return diag_set(d, "tlbsim_chase", 0, "order '%s' is not seq or random", order);
  if (mapping && region_mapping_parse(mapping, &s->mapping))
    return diag_set(d, "tlbsim_chase", 0, "mapping '%s' is not known", mapping);
  if (stride < 8 || stride % 8)
    return diag_set(d, "tlbsim_chase", 0, "stride %llu is not a multiple of 8 bytes", (unsigned long long)stride);
  if (!is_pow2(s->page_size) || pt_format_leaf_level(&ms->format, log2_u64(s->page_size)) < 0)
    return diag_set(d, "tlbsim_chase", 0, "%llu is not a page size of %s", (unsigned long long)s->page_size,
                    ms->format.name);
  double nodes = round((double)footprint / (double)stride);
  if (nodes < 1 || nodes > CHASE_MAX_NODES)
    return diag_set(d, "tlbsim_chase", 0, "footprint %llu at stride %llu: %s", (unsigned long long)footprint,
                    (unsigned long long)stride, nodes < 1 ? "no node" : "more nodes than a point may have");
  s->nodes = (uint32_t)nodes;
  return chase_spec_check(s, d);
}

int tlbsim_chase(const tlbsim_machine *m, uint64_t footprint, uint64_t stride, uint64_t page_size, const char *order,
                 const char *mapping, tlbsim_chase_result *out, char *err) {
  if (need(err, "tlbsim_chase", m, "the machine") || need(err, "tlbsim_chase", out, "out")) return -1;
  const machine_spec *ms = machine_get_spec(m->m);
  chase_spec s;
  chase_result r;
  diag d;
  if (chase_plan(ms, footprint, stride, page_size, order, mapping, &s, &d) ||
      chase_run(&ms->format, &ms->sys, &s, &r, &d))
    return fail(err, &d);
  const mmu_level_stats *first = &r.level[0];
  *out = (tlbsim_chase_result){
      .nodes = r.nodes,
      .footprint_bytes = (uint64_t)r.nodes * stride,
      .cycles_per_access = r.cycles_per_access,
      .walks_per_access = (double)r.walks / (double)r.loads,
      .first_miss_ratio = first->accesses ? (double)first->misses / (double)first->accesses : NAN,
  };
  return 0;
}

char *tlbsim_chase_rows(const tlbsim_machine *m, const uint64_t *footprints, size_t n, uint64_t stride,
                        uint64_t page_size, const char *order, const char *mapping, char *err) {
  const machine_spec *ms = machine_get_spec(m->m);
  json_object *rows = json_object_new_array();
  diag d;
  int rc = n ? 0 : diag_set(&d, "tlbsim_chase_rows", 0, "no footprint");
  uint32_t last_nodes = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    chase_spec s;
    chase_result r;
    if (chase_plan(ms, footprints[i], stride, page_size, order, mapping, &s, &d)) {
      rc = -1;
      break;
    }
    if (s.nodes == last_nodes) continue; /* as tlbsim chase plans points */
    if (chase_run(&ms->format, &ms->sys, &s, &r, &d)) {
      rc = -1;
      break;
    }
    json_object_array_add(rows, report_chase_row(&s, &ms->sys.mmu, &r));
    last_nodes = s.nodes;
  }
  char *text = rc ? NULL : write_string(write_rows, rows);
  if (!rc && !text) diag_set(&d, "tlbsim_chase_rows", 0, "out of memory");
  json_object_put(rows);
  if (!text) fail(err, &d);
  return text;
}

/* tlbsim alloc's input: a file in `format`, or with "synthetic" the
 * generated workload `trace` specifies. */
static alloctrace *open_alloctrace(const char *trace, const char *format, diag *d) {
  if (format && !strcmp(format, "synthetic")) {
    alloctrace_synth s;
    alloctrace_synth_default(&s);
    diag why;
    if (alloctrace_synth_parse(&s, trace ? trace : "", &why))
      return diag_set(d, "tlbsim_alloc", 0, "synthetic: %s", why.msg), NULL;
    return alloctrace_open_synth(&s, d);
  }
  alloctrace_format f = ALLOCTRACE_AUTO;
  if (!trace) return diag_set(d, "tlbsim_alloc", 0, "no trace (NULL)"), NULL;
  if (format && alloctrace_format_parse(format, &f))
    return diag_set(d, trace, 0, "allocation input format '%s' is not known", format), NULL;
  return alloctrace_open(trace, f, -1, d);
}

/* tlbsim alloc's capacity: *capacity when set, else the preset's
 * machine.phys_memory when one is named or t has no device size (that
 * then is the capacity: allocreplay_config); and the preset's [driver]
 * section, what the driver calls cost. */
static int alloc_preset(const char *preset, const alloctrace *t, uint64_t *capacity, alloctime_config *driver,
                        diag *d) {
  bool want = !*capacity && (preset || !alloctrace_get_info(t)->device_total);
  cfg *c = cfg_create();
  if (!c) return diag_set(d, "tlbsim_alloc", 0, "out of memory");
  int rc = loader_load_preset(c, preset ? preset : API_ALLOC_PRESET, d);
  if (!rc && want) rc = cfg_get_size(c, "machine", "phys_memory", 0, 0, VAS_MAX_CAPACITY, capacity, d);
  if (!rc && want && !*capacity) rc = diag_set(d, cfg_file(c), 0, "no machine.phys_memory");
  if (!rc) rc = alloctime_config_read(c, driver, d);
  cfg_destroy(c);
  return rc;
}

static int replay_to_end(allocreplay *r, diag *d) {
  alloctrace_event ev;
  int got;
  do got = allocreplay_next(r, &ev, d);
  while (got == 1);
  return got;
}

typedef struct alloc_job {
  const allocreplay *r;
  int rc;
} alloc_job;

static void write_alloc(FILE *f, void *ctx) {
  alloc_job *j = ctx;
  j->rc = report_alloc_write(f, REPORT_JSON, j->r, false);
}

/* The replay's policies, or tlbsim alloc's defaults. */
static allocreplay *create_replay(alloctrace *t, const char *const *policies, size_t npolicies, const vas_config *vc,
                                  diag *d) {
  static const char *const defaults[] = {"cuda", "caching", "expandable"};
  diag why;
  allocreplay *r = npolicies ? allocreplay_create(t, policies, (unsigned)npolicies, vc, &why)
                             : allocreplay_create(t, defaults, sizeof defaults / sizeof *defaults, vc, &why);
  if (!r) diag_set(d, "tlbsim_alloc", 0, "%s", why.msg);
  return r;
}

char *tlbsim_alloc(const char *trace, const char *input_format, const char *const *policies, size_t npolicies,
                   const char *preset, uint64_t capacity, const char *const *sets, size_t nsets, char *err) {
  if (need_items(err, "tlbsim_alloc", policies, npolicies, "policies") ||
      need_items(err, "tlbsim_alloc", sets, nsets, "sets"))
    return NULL;
  diag d;
  if (capacity > VAS_MAX_CAPACITY)
    return diag_set(&d, "tlbsim_alloc", 0, "capacity %llu is out of range (0: the default, else 1..%llu)",
                    (unsigned long long)capacity, (unsigned long long)VAS_MAX_CAPACITY),
           fail(err, &d), NULL;
  if (npolicies > ALLOCREPLAY_MAX_POLICIES)
    return diag_set(&d, "tlbsim_alloc", 0, "%zu policies: at most %d", npolicies, ALLOCREPLAY_MAX_POLICIES),
           fail(err, &d), NULL;
  alloctrace *t = open_alloctrace(trace, input_format, &d);
  if (!t) return fail(err, &d), NULL;
  vas_config vc;
  alloctime_config driver = {0};
  allocreplay *r = NULL;
  alloc_job j = {.rc = -1};
  char *text = NULL;
  if (!alloc_preset(preset, t, &capacity, &driver, &d) &&
      !allocreplay_config(&vc, t, capacity, sets, nsets, "tlbsim_alloc", &d) &&
      (r = create_replay(t, policies, npolicies, &vc, &d)) &&
      !(driver.given && allocreplay_time(r, &driver, NULL, NULL, &d)) && !replay_to_end(r, &d)) {
    j.r = r;
    text = write_string(write_alloc, &j);
    if (text && j.rc) {
      free(text);
      text = NULL;
    }
    if (!text) diag_set(&d, "tlbsim_alloc", 0, "out of memory");
  }
  allocreplay_destroy(r);
  alloctrace_close(t);
  if (!text) fail(err, &d);
  return text;
}

/* --- the views of explain, dump, run --log, the quiz and sweep ------------------- */

/* Whether format is NULL ("text") or one of "text", "json": *json. */
static int text_or_json(const char *call, const char *format, bool *json, diag *d) {
  *json = format && !strcmp(format, "json");
  if (format && !*json && strcmp(format, "text")) return diag_set(d, call, 0, "format '%s' is not text or json", format);
  return 0;
}

/* A view written into a string: write(f, ctx, d) returning 0 or -1 (d). */
typedef struct view_job {
  int (*write)(FILE *f, void *ctx, diag *d);
  void *ctx;
  diag *d;
  int rc;
} view_job;

static void write_view(FILE *f, void *ctx) {
  view_job *j = ctx;
  j->rc = j->write(f, j->ctx, j->d);
}

/* The view's text, or NULL with err set (its own error, or out of memory). */
static char *view_text(const char *call, int (*write)(FILE *f, void *ctx, diag *d), void *ctx, char *err) {
  diag d;
  view_job j = {.write = write, .ctx = ctx, .d = &d, .rc = -1};
  char *text = write_string(write_view, &j);
  if (text && j.rc) {
    free(text);
    return fail(err, &d), NULL;
  }
  if (!text) fail_msg(err, call, "out of memory");
  return text;
}

typedef struct explain_job {
  const machine_spec *ms;
  const uint64_t *va;
  size_t n;
  unsigned shift;
  bool json;
} explain_job;

static int write_explain(FILE *f, void *ctx, diag *d) {
  const explain_job *j = ctx;
  return ptview_explain(f, j->ms, j->shift, j->va, j->n, j->json, true, d);
}

char *tlbsim_explain(const tlbsim_machine *m, const uint64_t *addresses, size_t n, uint64_t page_size,
                     const char *format, char *err) {
  const machine_spec *ms = machine_get_spec(m->m);
  explain_job j = {.ms = ms, .va = addresses, .n = n};
  diag d;
  uint64_t page = page_size ? page_size : ms->page_size;
  if (text_or_json("tlbsim_explain", format, &j.json, &d)) return fail(err, &d), NULL;
  if (!n) return fail_msg(err, "tlbsim_explain", "no address"), NULL;
  if (!is_pow2(page) || pt_format_leaf_level(&ms->format, log2_u64(page)) < 0)
    return diag_set(&d, "tlbsim_explain", 0, "%llu is not a page size of %s", (unsigned long long)page,
                    ms->format.name), fail(err, &d), NULL;
  for (size_t i = 0; i < n; i++)
    if (!pt_format_va_ok(&ms->format, addresses[i]))
      return diag_set(&d, "tlbsim_explain", 0, "%#llx is beyond the %u-bit address space of %s",
                      (unsigned long long)addresses[i], ms->format.va_bits, ms->format.name), fail(err, &d), NULL;
  j.shift = log2_u64(page);
  return view_text("tlbsim_explain", write_explain, &j, err);
}

typedef struct dump_job {
  const machine *m;
  bool json;
} dump_job;

static int write_dump(FILE *f, void *ctx, diag *d) {
  const dump_job *j = ctx;
  if (!j->json) return ptview_dump_text(f, j->m) ? diag_set(d, "tlbsim_dump", 0, "out of memory") : 0;
  json_object *doc = ptview_dump_json(j->m, NULL, 0);
  if (!doc) return diag_set(d, "tlbsim_dump", 0, "out of memory");
  fprintf(f, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(doc);
  return 0;
}

char *tlbsim_dump(const tlbsim_machine *m, const char *format, char *err) {
  dump_job j = {.m = m->m};
  diag d;
  if (text_or_json("tlbsim_dump", format, &j.json, &d)) return fail(err, &d), NULL;
  return view_text("tlbsim_dump", write_dump, &j, err);
}

typedef struct log_job {
  tlbsim_machine *m;
  trace_reader *r;
  bool json;
} log_job;

/* Every record of the reader through the log, as run --log applies them. */
static int write_log(FILE *f, void *ctx, diag *d) {
  log_job *j = ctx;
  tlblog *log = tlblog_create(j->m->m, f, j->json ? TLBLOG_JSON : TLBLOG_TEXT, d);
  if (!log) return -1;
  trace_record rec;
  int rc;
  while ((rc = trace_next(j->r, &rec, d)) == 1)
    if (tlblog_apply(log, &rec, trace_get_path(j->r), d)) {
      rc = -1;
      break;
    }
  tlblog_destroy(log);
  return rc;
}

char *tlbsim_log(tlbsim_machine *m, const char *trace, const char *text, size_t len, const char *input_format,
                 const char *format, char *err) {
  log_job j = {.m = m};
  diag d;
  trace_format f;
  if (text_or_json("tlbsim_log", format, &j.json, &d) || trace_format_of("tlbsim_log", input_format, &f, &d))
    return fail(err, &d), NULL;
  j.r = trace ? trace_open(trace, f, &d) : trace_open_memory("tlbsim_log", text ? text : "", text ? len : 0, f, &d);
  if (!j.r) return fail(err, &d), NULL;
  char *out = view_text("tlbsim_log", write_log, &j, err);
  snprintf(m->trace, sizeof m->trace, "%s", trace_get_path(j.r));
  snprintf(m->trace_format, sizeof m->trace_format, "%s", trace_format_name(trace_get_format(j.r)));
  trace_close(j.r);
  return out;
}

/* The quiz builds machines and prints tables as `tlbsim quiz` does. */
static machine *quiz_build(void *ctx, const char *preset, const char *const *sets, size_t nsets, diag *d) {
  (void)ctx;
  const char *label;
  loader_request q = {.preset = preset, .sets = sets, .nsets = nsets, .set_origin = "tlbsim_quiz"};
  return loader_machine(&q, &label, d);
}

static int quiz_show_pt(void *ctx, FILE *out, const machine *m) {
  (void)ctx;
  return ptview_dump_text(out, m);
}

static int write_quiz(FILE *f, void *ctx, diag *d) {
  const quiz_env env = {.build = quiz_build, .show_pt = quiz_show_pt};
  return quiz_write(f, ctx, &env, d);
}

char *tlbsim_quiz(uint64_t seed, const char *kinds, int answers, const char *format, char *err) {
  quiz_options o = {.seed = seed, .answers = answers != 0};
  diag d;
  bool json;
  if (text_or_json("tlbsim_quiz", format, &json, &d)) return fail(err, &d), NULL;
  o.format = json ? QUIZ_JSON : QUIZ_TEXT;
  for (const char *p = kinds; p && *p; p += *p == ',') { /* "translate,tlb" */
    size_t len = strcspn(p, ",");
    int k = 0;
    while (quiz_kind_names[k] && (strlen(quiz_kind_names[k]) != len || strncmp(quiz_kind_names[k], p, len))) k++;
    if (!quiz_kind_names[k])
      return diag_set(&d, "tlbsim_quiz", 0, "'%.*s' is not a kind (translate, tlb, pt-size, alloc, pool)", (int)len, p),
             fail(err, &d), NULL;
    o.kinds |= 1u << k;
    p += len;
  }
  return view_text("tlbsim_quiz", write_quiz, &o, err);
}

/* tlbsim sweep over one trace: the grid's specs (base, sets, then each
 * configuration's --vary values as more sets), one read, the rows as CSV. */
typedef struct sweep_job {
  const char *trace, *input_format, *preset, *config;
  const char *const *sets;
  size_t nsets;
  sweep_grid *grid;
} sweep_job;

/* Configuration i's spec; *label the base configuration's name. */
static int grid_spec(const sweep_job *j, size_t i, machine_spec *spec, const char **label, diag *d) {
  const char *values[SWEEP_MAX_AXES];
  sweep_grid_values(j->grid, i, values);
  size_t n = j->nsets + j->grid->naxes;
  char (*assign)[SWEEP_AXIS_TEXT + 64] = malloc((j->grid->naxes ? j->grid->naxes : 1) * sizeof *assign);
  const char **sets = malloc((n ? n : 1) * sizeof *sets);
  int rc = assign && sets ? 0 : diag_set(d, "tlbsim_sweep", 0, "out of memory");
  for (size_t k = 0; !rc && k < n; k++) {
    if (k < j->nsets) {
      sets[k] = j->sets[k];
      continue;
    }
    size_t a = k - j->nsets;
    snprintf(assign[a], sizeof assign[a], "%s=%s", j->grid->axis[a].key, values[a]);
    sets[k] = assign[a];
  }
  loader_request q = {.preset = j->preset, .config = j->config, .fallback = "x86-64", .sets = sets, .nsets = n,
                      .set_origin = "tlbsim_sweep"};
  cfg *c = rc ? NULL : loader_spec(&q, label, spec, d);
  if (!rc && !c) rc = -1;
  cfg_destroy(c);
  free(assign);
  free(sets);
  return rc;
}

static int write_sweep(FILE *f, void *ctx, diag *d) {
  const sweep_job *j = ctx;
  size_t n = sweep_grid_count(j->grid);
  machine_spec *specs = calloc(n, sizeof *specs);
  stats_snapshot *snaps = calloc(n, sizeof *snaps);
  const char **values = calloc(n * (j->grid->naxes ? j->grid->naxes : 1), sizeof *values);
  sweep_row *rows = calloc(n, sizeof *rows);
  sweep_columns *cols = malloc(sizeof *cols);
  const char *label = NULL;
  trace_reader *r = NULL;
  int rc = specs && snaps && values && rows && cols ? 0 : diag_set(d, "tlbsim_sweep", 0, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    rc = grid_spec(j, i, &specs[i], &label, d);
    sweep_grid_values(j->grid, i, &values[i * j->grid->naxes]);
  }
  if (!rc) rc = sweep_columns_build(specs, n, cols, d) || open_trace(j->trace, j->input_format, &r, d);
  sweep_window w = {0};
  if (!rc) rc = sweep_trace(specs, n, r, &w, 1, snaps, d) ? -1 : 0;
  if (!rc && !trace_records_read(r)) rc = diag_set(d, trace_get_path(r), 0, "an empty trace (no records)");
  if (!rc) {
    for (size_t i = 0; i < n; i++)
      rows[i] = (sweep_row){.trace = trace_get_path(r), .trace_format = trace_format_name(trace_get_format(r)),
                            .config = label, .values = &values[i * j->grid->naxes], .spec = &specs[i],
                            .snap = &snaps[i]};
    sweep_write(f, REPORT_CSV, j->grid, cols, rows, n);
  }
  if (r) trace_close(r);
  free(specs);
  free(snaps);
  free(values);
  free(rows);
  free(cols);
  return rc;
}

char *tlbsim_sweep(const char *trace, const char *input_format, const char *preset, const char *config,
                   const char *const *sets, size_t nsets, const char *const *vary, size_t nvary, char *err) {
  diag d;
  if (preset && config) return fail_msg(err, "tlbsim_sweep", "a preset or a config file, not both"), NULL;
  sweep_grid *grid = calloc(1, sizeof *grid);
  if (!grid) return fail_msg(err, "tlbsim_sweep", "out of memory"), NULL;
  for (size_t i = 0; i < nvary; i++) {
    char why[CFG_ITEM_MAX * 4], q[48];
    if (sweep_grid_add(grid, vary[i], why, sizeof why)) {
      free(grid);
      return diag_set(&d, "tlbsim_sweep", i + 1, "'%s' is not %s", num_quote(vary[i], q, sizeof q), why),
             fail(err, &d), NULL;
    }
  }
  sweep_job j = {.trace = trace, .input_format = input_format, .preset = preset, .config = config, .sets = sets,
                 .nsets = nsets, .grid = grid};
  char *text = view_text("tlbsim_sweep", write_sweep, &j, err);
  free(grid);
  return text;
}
