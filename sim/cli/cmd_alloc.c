/* tlbsim alloc — replay allocation requests through allocator policies and
 * compare what each reserves, maps, tears down and fragments. Every policy
 * sees the same events in lockstep, so one timeline row holds them all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_live.h"
#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/allocreplay.h"
#include "tlbsim/csv.h"
#include "tlbsim/report_alloc.h"

#define MAX_PARAMS 64
#define PROGRESS_EVENTS 4096 /* events between looks at the clock and ^C */
#define DEFAULT_PRESET "h200"  /* whose machine.phys_memory is the default capacity */

typedef struct opts {
  const char *policy[ALLOCREPLAY_MAX_POLICIES];
  unsigned npolicies;
  char names[1024]; /* the policy names of --policy, each NUL-terminated */
  size_t names_used;
  const char *param[MAX_PARAMS];
  unsigned nparams;
  int format;            /* report_format */
  uint64_t capacity;     /* 0: from a preset or the snapshot */
  const char *preset, *timeline, *emit_rmm, *layout, *trace, *synthetic, *map, *map_csv, *map_json, *between;
  char begin[64], end[64]; /* --between BEGIN,END */
  uint64_t map_at;       /* --map=EVENT; 0: each policy's first OOM */
  uint64_t map_every;    /* --map-every N: every policy's map after every Nth event; 0: none */
  uint64_t every;
  bool quiet;
  int input;             /* alloctrace_format */
  uint64_t device;       /* NO_DEVICE: the snapshot's one device with events */
  uint64_t jobs;         /* --jobs: a native trace's decode threads, 0 the cores available */
} opts;

#define NO_DEVICE UINT64_MAX

/* --policy A,B (repeatable): each name in turn, copied into o->names. */
static int add_policy(void *dest, const char *arg, char *why, size_t len) {
  opts *o = dest;
  for (const char *p = arg;; p++) {
    size_t n = strcspn(p, ",");
    if (!n) return snprintf(why, len, "a comma-separated list of policy names"), -1;
    if (o->npolicies == ALLOCREPLAY_MAX_POLICIES || o->names_used + n + 1 > sizeof o->names)
      return snprintf(why, len, "one more: at most %d policies", ALLOCREPLAY_MAX_POLICIES), -1;
    char *name = o->names + o->names_used;
    memcpy(name, p, n);
    name[n] = '\0';
    o->names_used += n + 1;
    o->policy[o->npolicies++] = name;
    p += n;
    if (!*p) return 0;
  }
}

static int add_param(void *dest, const char *arg, char *why, size_t len) {
  opts *o = dest;
  const char *eq = strchr(arg, '='), *dot = memchr(arg, '.', eq ? (size_t)(eq - arg) : 0);
  if (!eq) return snprintf(why, len, "vas.KEY=VALUE"), -1;
  if (dot && strncmp(arg, "vas.", 4)) return snprintf(why, len, "vas.KEY=VALUE: alloc reads [vas] only"), -1;
  if (o->nparams == MAX_PARAMS) return snprintf(why, len, "one more: at most %d --set options", MAX_PARAMS), -1;
  o->param[o->nparams++] = arg;
  return 0;
}

static void list_policies_and_params(FILE *out) {
  fprintf(out, "\npolicies:\n");
  for (size_t i = 0; i < vas_policy_count(); i++) fprintf(out, "  %-11s %s\n", vas_policy_at(i), vas_policy_summary(i));
  fprintf(out, "\nparameters (--set vas.KEY=VALUE):\n");
  for (size_t i = 0; i < vas_param_count(); i++) {
    const char *doc, *name = vas_param_at(i, &doc);
    fprintf(out, "  %-17s %s\n", name, doc);
  }
}

static int parse_opts(int argc, char **argv, opts *o) {
  *o = (opts){.every = 1, .device = NO_DEVICE};
  const cli_opt opt[] = {
      {.name = "policy", .kind = OPT_CALL, .dest = o, .arg = "LIST", .call = add_policy,
       .help = "policies to run, a comma list (repeatable; default: cuda,caching,expandable)"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "summary format: text (default), json or csv"},
      {.name = "capacity", .kind = OPT_SIZE, .dest = &o->capacity, .arg = "SIZE", .lo = 1, .hi = VAS_MAX_CAPACITY,
       .help = "physical memory (default: --preset's machine.phys_memory, else the\n"
               "device a snapshot was captured on, else preset " DEFAULT_PRESET "'s)"},
      {.name = "preset", .kind = OPT_TEXT, .dest = &o->preset, .arg = "NAME",
       .help = "preset whose machine.phys_memory is the capacity"},
      {.name = "set", .kind = OPT_CALL, .dest = o, .arg = "vas.K=V", .call = add_param,
       .help = "allocator parameter K of the configuration's [vas] section (list\n"
               "below), as run --set vas.K=V; K=V alone is the older spelling"},
      {.name = "timeline", .kind = OPT_TEXT, .dest = &o->timeline, .arg = "FILE.csv",
       .help = "one row per event: every policy's memory and fragmentation"},
      {.name = "timeline-every", .kind = OPT_WHOLE, .dest = &o->every, .arg = "N", .lo = 1,
       .help = "write every Nth event only (default 1)"},
      {.name = "trace-format", .alias = "input-format", .kind = OPT_CHOICE, .dest = &o->input, .arg = "F",
       .choices = alloctrace_input_names, .help = "auto (default), snapshot, rmm or native"},
      {.name = "device", .kind = OPT_WHOLE, .dest = &o->device, .arg = "N", .hi = 1024,
       .help = "which of a snapshot's device_traces (default: the one with events)"},
      CLI_JOBS_OPT(&o->jobs),
      {.name = "synthetic", .kind = OPT_TEXT_OPTIONAL, .dest = &o->synthetic, .arg = "SPEC",
       .help = "generate the operator workload instead of reading TRACE;\n"
               "SPEC keys: seed requests temps temp_min temp_max keep_min\n"
               "keep_max keep_for (docs/ALLOC.md)"},
      {.name = "emit-rmm", .kind = OPT_TEXT, .dest = &o->emit_rmm, .arg = "FILE.csv",
       .help = "also write the requests read as an RMM log"},
      {.name = "map", .kind = OPT_TEXT_OPTIONAL, .dest = &o->map, .arg = "EVENT",
       .help = "after the summary, each policy's address space at its first OOM (or\n"
               "after EVENT, a line of a native trace): used and free extents, the\n"
               "failed request and its reason (text format)"},
      {.name = "map-csv", .kind = OPT_TEXT, .dest = &o->map_csv, .arg = "FILE.csv",
       .help = "the same map as CSV, for plots/alloc_map.gp"},
      {.name = "map-json", .kind = OPT_TEXT, .dest = &o->map_json, .arg = "FILE.jsonl",
       .help = "the same map as JSON lines, with the window, each policy's memory then and\n"
               "the 2 MiB and 32 MiB regions its live buffers touch (docs/ALLOC.md)"},
      {.name = "map-every", .kind = OPT_WHOLE, .dest = &o->map_every, .arg = "N", .lo = 1,
       .help = "maps after every Nth event instead, each policy's, into --map-csv\n"
               "and --map-json (the browser page's allocator map)"},
      {.name = "between", .kind = OPT_TEXT, .dest = &o->between, .arg = "BEGIN,END",
       .help = "driver and wall time over a capture's records from the mark labelled\n"
               "BEGIN to the first labelled END after it (default: all of it)"},
      {.name = "layout", .kind = OPT_TEXT, .dest = &o->layout, .arg = "FILE.csv",
       .help = "the allocations alive at the end, each policy's: offset from\n"
               "the first, in allocation order (tlbsim-gpu's layout files)"},
      CLI_QUIET_OPT(&o->quiet),
  };
  const cli_spec spec = {
      .cmd = "alloc", .usage = "[OPTIONS] TRACE|-\n       tlbsim alloc [OPTIONS] --synthetic[=KEY=VALUE,...]",
      .operands = "TRACE (or --synthetic)", .max_operands = 1,
      .about = "Replays allocation requests (PyTorch memory snapshot JSON, RMM log CSV, native\n"
               "trace alloc/free records; gzip or not) through allocator policies side by side.",
      .more_help = list_policies_and_params, .opt = opt, .nopt = sizeof opt / sizeof opt[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  if (o->synthetic && first != argc) return cli_usage_error("alloc", "--synthetic takes no TRACE");
  if (!o->synthetic && first + 1 != argc) return cli_usage_error("alloc", "expected one TRACE (or --synthetic); see --help");
  if (!o->synthetic) o->trace = argv[first];
  if (o->map && o->format != REPORT_TEXT) return cli_usage_error("alloc", "--map is text; use --map-csv for data");
  if (o->map && *o->map && (num_parse_whole(o->map, &o->map_at) || !o->map_at))
    return cli_usage_error("alloc", "--map: '%s' is not an event number (1 or more)", o->map);
  if (o->map_every && (o->map || (!o->map_csv && !o->map_json)))
    return cli_usage_error("alloc", "--map-every writes its maps to --map-csv or --map-json, not with --map");
  if (!o->map_every && (o->map_csv || o->map_json) && !o->map) o->map = ""; /* the files alone: at the first OOM */
  if (o->between) {
    const char *comma = strchr(o->between, ',');
    size_t n = comma ? (size_t)(comma - o->between) : 0;
    if (!n || !comma[1] || strchr(comma + 1, ',') || n >= sizeof o->begin || strlen(comma + 1) >= sizeof o->end)
      return cli_usage_error("alloc", "--between: '%s' is not BEGIN,END (two mark labels)", o->between);
    memcpy(o->begin, o->between, n);
    o->begin[n] = '\0';
    snprintf(o->end, sizeof o->end, "%s", comma + 1);
  }
  if (!o->npolicies) {
    o->policy[o->npolicies++] = "cuda";
    o->policy[o->npolicies++] = "caching";
    o->policy[o->npolicies++] = "expandable";
  }
  return 0;
}

/* --- setup ------------------------------------------------------------------ */

/* The preset's machine.phys_memory (capacity, when asked for) and its
 * [driver] section: what the driver calls cost. */
static int read_preset(const char *name, uint64_t *capacity, alloctime_config *driver, diag *d) {
  cli_config cc = {.preset = name};
  const char *label;
  cfg *c = cli_load_config(&cc, name, &label, d);
  if (!c) return -1;
  int rc = capacity ? cfg_get_size(c, "machine", "phys_memory", 0, 0, VAS_MAX_CAPACITY, capacity, d) : 0;
  if (!rc && capacity && !*capacity) rc = diag_set(d, cfg_file(c), 0, "no machine.phys_memory");
  if (!rc) rc = alloctime_config_read(c, driver, d);
  cfg_destroy(c);
  return rc;
}

static int build_config(const opts *o, const alloctrace *t, vas_config *vc, alloctime_config *driver, diag *d) {
  uint64_t capacity = o->capacity;
  bool want = !capacity && (o->preset || !alloctrace_get_info(t)->device_total);
  if (read_preset(o->preset ? o->preset : DEFAULT_PRESET, want ? &capacity : NULL, driver, d)) return -1;
  return allocreplay_config(vc, t, capacity, o->param, o->nparams, "--set", d);
}

/* --- the timeline ------------------------------------------------------------- */

static const char *const timeline_cols[] = {"requested_bytes", "allocated_bytes", "reserved_bytes", "free_bytes",
                                            "largest_free_extent",
                                            "free_extents", "external_fragmentation", "driver_allocs",
                                            "driver_frees", "ooms"};
#define NTCOLS (sizeof timeline_cols / sizeof timeline_cols[0])

static void timeline_header(FILE *f, const allocreplay *r, bool recorded) {
  fprintf(f, "event,time_us");
  if (recorded) fprintf(f, ",recorded.reserved_bytes");
  for (unsigned i = 0; i < allocreplay_count(r); i++)
    for (size_t c = 0; c < NTCOLS; c++) {
      char name[96];
      snprintf(name, sizeof name, "%s.%s", vas_policy_name(allocreplay_heap(r, i)), timeline_cols[c]);
      fputc(',', f);
      csv_write_field(f, name);
    }
  fputc('\n', f);
}

static void timeline_row(FILE *f, const alloctrace_event *ev, bool recorded, const allocreplay *r) {
  fprintf(f, "%llu,%llu", (unsigned long long)ev->index, (unsigned long long)ev->time_us);
  if (recorded) fprintf(f, ",%llu", (unsigned long long)allocreplay_get_sum(r)->recorded_reserved);
  for (unsigned i = 0; i < allocreplay_count(r); i++) {
    const vas_stats *s = vas_get_stats(allocreplay_heap(r, i));
    char frag[NUM_REAL_MAX];
    fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%s,%llu,%llu,%llu",
            (unsigned long long)allocreplay_requested(r, i, NULL), (unsigned long long)s->allocated_bytes,
            (unsigned long long)s->reserved_bytes, (unsigned long long)s->free_bytes,
            (unsigned long long)s->largest_free_extent, (unsigned long long)s->free_extents,
            num_format_real(s->external_fragmentation, frag, sizeof frag), (unsigned long long)s->driver_allocs,
            (unsigned long long)s->driver_frees, (unsigned long long)s->ooms);
  }
  fputc('\n', f);
}

/* --- the replay ---------------------------------------------------------------- */

typedef struct run {
  opts o;
  alloctrace *t;
  allocreplay *r;
  live_map map[ALLOCREPLAY_MAX_POLICIES]; /* --map: each policy's address space at the chosen event */
  bool mapped[ALLOCREPLAY_MAX_POLICIES];
  cli_out timeline_out, emit_out, layout_out, map_out, map_json_out; /* written whole or not at all */
  FILE *timeline, *emit, *layout, *map_csv, *map_json;               /* their files while open */
} run;

static int out_of_memory(void) {
  fprintf(stderr, "tlbsim alloc: out of host memory\n");
  return EXIT_INPUT;
}

/* One RMM log row; the id (+1: RMM reads 0 as a null pointer) stands for
 * the pointer, time in seconds as RMM's epoch timestamps are. */
static void emit_rmm(FILE *f, const alloctrace_event *ev, const char *action, uint64_t size) {
  fprintf(f, "0,%llu.%06llu,%s,0x%llx,%llu,%u\n", (unsigned long long)(ev->time_us / 1000000),
          (unsigned long long)(ev->time_us % 1000000), action, (unsigned long long)ev->id + 1,
          (unsigned long long)size, ev->stream);
}

/* --map: policy p's live blocks after event ev into *m, the request that
 * failed there if it did, and its counts and regions then. */
static int capture(const run *x, unsigned p, const alloctrace_event *ev, live_map *m) {
  size_t n;
  allocreplay_buf *b = allocreplay_buffers(x->r, p, &n);
  if (!b) return -1;
  allocreplay_live live;
  allocreplay_measure(b, n, &live);
  free(b);
  if (!(b = allocreplay_blocks(x->r, p, &n))) return -1;
  const vas *heap = allocreplay_heap(x->r, p);
  const vas_stats *s = vas_get_stats(heap);
  const vas_config *c = vas_get_config(heap);
  *m = (live_map){.policy = vas_policy_name(heap), .event = ev->index, .time_us = ev->time_us,
                  .failed = ev->kind == AT_ALLOC && !allocreplay_served(x->r, p, ev->id),
                  .buddy_free = !strcmp(vas_policy_name(heap), "buddy"), .stats = *s, .live = live};
  if (m->failed) {
    m->request = ev->size;
    m->reason = vas_oom_reason_name(s->last_oom_reason);
    m->free_bytes = s->free_bytes;
    m->largest = s->largest_free_extent;
    m->range = s->largest_free_range;
  }
  int rc = live_map_fill(m, b, n, c->va_base, c->va_size, c->phys_capacity);
  free(b);
  return rc;
}

/* One map into the files: CSV rows (row: the policy's place) and a JSON line. */
static int map_out(const run *x, const live_map *m, unsigned row) {
  if (x->map_csv) live_map_csv_rows(x->map_csv, m, row);
  return x->map_json ? live_map_json(x->map_json, m) : 0;
}

/* --map-every: every policy's map after this event, written at once. */
static int maps_every(const run *x, const alloctrace_event *ev) {
  for (unsigned i = 0; i < allocreplay_count(x->r); i++) {
    live_map m = {0};
    int rc = capture(x, i, ev, &m) || map_out(x, &m, i) ? -1 : 0;
    live_map_free(&m);
    if (rc) return -1;
  }
  return 0;
}

/* --map: each policy's map at its first OOM, or every policy's after
 * event --map=EVENT. */
static int maps_after(run *x, const alloctrace_event *ev) {
  for (unsigned i = 0; i < allocreplay_count(x->r); i++) {
    const allocreplay_oom *oom = allocreplay_first_oom(x->r, i);
    bool due = x->o.map_at ? x->o.map_at == ev->index : oom->any && oom->event == ev->index;
    if (due && !x->mapped[i]) {
      if (capture(x, i, ev, &x->map[i])) return -1;
      x->mapped[i] = true;
    }
  }
  return 0;
}

/* The maps after the summary (text) and in the files. */
static int write_maps(const run *x) {
  for (unsigned i = 0; i < allocreplay_count(x->r); i++) {
    const char *policy = vas_policy_name(allocreplay_heap(x->r, i));
    if (x->mapped[i] && map_out(x, &x->map[i], i)) return -1;
    if (x->o.format != REPORT_TEXT) continue;
    if (x->mapped[i]) live_map_text(stdout, &x->map[i]);
    else printf("\n%s: no request failed (no map)\n", policy);
  }
  return 0;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* --layout: each policy's allocations alive at the end, in allocation order. */
static int write_layout(const run *x) {
  for (unsigned i = 0; i < allocreplay_count(x->r); i++) {
    size_t n;
    allocreplay_buf *b = allocreplay_buffers(x->r, i, &n);
    if (!b) return -1;
    live_layout_rows(x->layout, base_name(alloctrace_path(x->t)), vas_policy_name(allocreplay_heap(x->r, i)), b, n);
    free(b);
  }
  return 0;
}

static int open_outputs(run *x, diag *d) {
  const char *inputs[] = {x->o.trace, NULL};
  if (x->o.timeline) {
    if (cli_out_open(&x->timeline_out, x->o.timeline, false, inputs, d)) return -1;
    x->timeline = x->timeline_out.f;
  }
  if (x->o.emit_rmm) {
    if (cli_out_open(&x->emit_out, x->o.emit_rmm, false, inputs, d)) return -1;
    x->emit = x->emit_out.f;
    fprintf(x->emit, "Thread,Time,Action,Pointer,Size,Stream\n");
  }
  if (x->o.map_csv) {
    if (cli_out_open(&x->map_out, x->o.map_csv, false, inputs, d)) return -1;
    x->map_csv = x->map_out.f;
    live_map_csv_header(x->map_csv);
  }
  if (x->o.map_json) {
    if (cli_out_open(&x->map_json_out, x->o.map_json, false, inputs, d)) return -1;
    x->map_json = x->map_json_out.f;
  }
  if (x->o.layout) {
    if (cli_out_open(&x->layout_out, x->o.layout, false, inputs, d)) return -1;
    x->layout = x->layout_out.f;
    live_layout_header(x->layout);
  }
  return 0;
}

/* What one event adds to the side outputs (--emit-rmm, --map, --timeline). */
static int after_event(run *x, const alloctrace_event *ev, uint64_t count, bool *header) {
  if (x->emit && (ev->kind == AT_ALLOC || ev->kind == AT_FREE))
    emit_rmm(x->emit, ev, ev->kind == AT_ALLOC ? "allocate" : "free", allocreplay_size(x->r, ev->id));
  if (x->o.map && maps_after(x, ev)) return -1;
  if (x->o.map_every && (count + 1) % x->o.map_every == 0 && maps_every(x, ev)) return -1;
  if (!x->timeline || count % x->o.every) return 0;
  bool recorded = alloctrace_get_info(x->t)->has_segments;
  if (!*header) timeline_header(x->timeline, x->r, recorded);
  *header = true;
  timeline_row(x->timeline, ev, recorded, x->r);
  return 0;
}

/* --between: both marks were read, else the error naming the one missing. */
static int window_check(const run *x, diag *d) {
  bool ended;
  bool began = allocreplay_window_seen(x->r, &ended);
  if (!x->o.between || (began && ended)) return 0;
  if (began) return diag_set(d, alloctrace_path(x->t), 0, "--between: no mark '%s' after '%s'", x->o.end, x->o.begin);
  return diag_set(d, alloctrace_path(x->t), 0, "--between: no mark '%s' in the trace", x->o.begin);
}

static int replay_all(run *x) {
  diag d;
  vas_config vc;
  alloctime_config driver = {0};
  if (build_config(&x->o, x->t, &vc, &driver, &d)) return cli_input_error(&d);
  if (!(x->r = allocreplay_create(x->t, x->o.policy, x->o.npolicies, &vc, &d))) {
    fprintf(stderr, "tlbsim alloc: %s\n", d.msg);
    return strncmp(d.msg, "unknown allocator policy", 24) ? EXIT_INPUT : EXIT_USAGE;
  }
  if (x->o.between && !driver.given) {
    diag_set(&d, x->o.preset ? x->o.preset : DEFAULT_PRESET, 0, "--between: the preset has no [driver] section to time with");
    return cli_input_error(&d);
  }
  if (driver.given && allocreplay_time(x->r, &driver, x->o.between ? x->o.begin : NULL, x->o.end, &d))
    return out_of_memory();
  if (open_outputs(x, &d)) return cli_input_error(&d);
  bool header = false;
  alloctrace_event ev;
  int got;
  cli_progress line;
  cli_progress_start(&line, "alloc", x->o.quiet);
  cli_interrupt_catch();
  uint64_t count = 0, last = 0; /* last: the last event's index; --map=EVENT names one up to it */
  for (; (got = allocreplay_next(x->r, &ev, &d)) == 1; last = ev.index) {
    if (ev.kind == AT_MARK || ev.kind == AT_MEMINFO) continue; /* the driver-time model's: no event of the heaps */
    if (after_event(x, &ev, count, &header)) return cli_progress_end(&line), out_of_memory();
    if (count++ % PROGRESS_EVENTS) continue;
    if (cli_interrupted()) break;
    cli_progress_show(&line, "%llu events", (unsigned long long)count);
  }
  cli_progress_end(&line);
  if (got < 0) return cli_input_error(&d);
  if (got == 0 && count == 0) /* as an empty trace is to run: no report of zeros */
    return diag_set(&d, alloctrace_path(x->t), 0, "no allocation events (an empty input)"), cli_input_error(&d);
  bool partial = got == 1;
  if (!partial && window_check(x, &d)) return cli_input_error(&d);
  if (!partial && x->o.map_at && !x->mapped[0]) { /* every policy is mapped at EVENT, or none */
    diag_set(&d, alloctrace_path(x->t), 0, "--map=%llu: the trace has no event %llu (its last is %llu)",
             (unsigned long long)x->o.map_at, (unsigned long long)x->o.map_at, (unsigned long long)last);
    return cli_input_error(&d);
  }
  if ((x->layout && write_layout(x)) || report_alloc_write(stdout, (report_format)x->o.format, x->r, partial))
    return out_of_memory();
  if (x->o.map && write_maps(x)) return out_of_memory();
  if (!partial) return EXIT_OK;
  char read[48];
  snprintf(read, sizeof read, "%llu events", (unsigned long long)count);
  cli_interrupted_note("alloc", read);
  return CLI_EXIT_INTERRUPTED;
}

int cmd_alloc(int argc, char **argv) {
  run x = {0};
  int rc = parse_opts(argc, argv, &x.o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  if (x.o.synthetic) {
    alloctrace_synth s;
    alloctrace_synth_default(&s);
    if (alloctrace_synth_parse(&s, x.o.synthetic, &d)) {
      fprintf(stderr, "tlbsim alloc: --synthetic: %s\n", d.msg);
      return EXIT_USAGE;
    }
    x.t = alloctrace_open_synth(&s, &d);
  } else {
    x.t = alloctrace_open_jobs(x.o.trace, (alloctrace_format)x.o.input, x.o.device == NO_DEVICE ? -1 : (int)x.o.device,
                              (unsigned)x.o.jobs, &d);
  }
  if (!x.t) return cli_input_error(&d);
  rc = replay_all(&x);
  if (rc == EXIT_OK && x.timeline && cli_out_commit(&x.timeline_out, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && x.emit && cli_out_commit(&x.emit_out, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && x.layout && cli_out_commit(&x.layout_out, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && x.map_csv && cli_out_commit(&x.map_out, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && x.map_json && cli_out_commit(&x.map_json_out, &d)) rc = cli_input_error(&d);
  cli_out_discard(&x.timeline_out);
  cli_out_discard(&x.emit_out);
  cli_out_discard(&x.layout_out);
  cli_out_discard(&x.map_out);
  cli_out_discard(&x.map_json_out);
  for (unsigned i = 0; i < ALLOCREPLAY_MAX_POLICIES; i++) live_map_free(&x.map[i]);
  allocreplay_destroy(x.r);
  alloctrace_close(x.t);
  return rc;
}
