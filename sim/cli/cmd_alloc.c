/* tlbsim alloc — replay allocation requests through allocator policies and
 * compare what each reserves, maps, tears down and fragments. Every policy
 * sees the same events in lockstep, so one timeline row holds them all. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_live.h"
#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/alloctrace.h"
#include "tlbsim/csv.h"
#include "tlbsim/report.h"
#include "tlbsim/vas.h"

#define MAX_POLICIES 16
#define MAX_PARAMS 64
#define FAILED_VA UINT64_MAX /* the allocation hit OOM in this policy */
#define DEFAULT_PRESET "h200"  /* whose machine.phys_memory is the default capacity */

typedef struct replay {
  vas *heap;
  uint64_t *va; /* by trace id */
  bool any_oom;
  /* the first OOM: where, what was asked, and what was free then */
  uint64_t first_oom, oom_request, oom_free, oom_largest;
} replay;

typedef struct opts {
  const char *policy[MAX_POLICIES];
  unsigned npolicies;
  const char *param[MAX_PARAMS];
  unsigned nparams;
  int format;            /* report_format */
  uint64_t capacity;     /* 0: from a preset or the snapshot */
  const char *preset, *timeline, *emit_rmm, *layout, *trace, *synthetic;
  uint64_t every;
  int input;             /* alloctrace_format */
  uint64_t device;       /* NO_DEVICE: the snapshot's one device with events */
} opts;

#define NO_DEVICE UINT64_MAX

static int add_policy(void *dest, const char *arg, char *why, size_t len) {
  opts *o = dest;
  if (o->npolicies == MAX_POLICIES) return snprintf(why, len, "one more: at most %d policies", MAX_POLICIES), -1;
  o->policy[o->npolicies++] = arg;
  return 0;
}

static int add_param(void *dest, const char *arg, char *why, size_t len) {
  opts *o = dest;
  if (!strchr(arg, '=')) return snprintf(why, len, "KEY=VALUE"), -1;
  if (o->nparams == MAX_PARAMS) return snprintf(why, len, "one more: at most %d --set options", MAX_PARAMS), -1;
  o->param[o->nparams++] = arg;
  return 0;
}

static void list_policies_and_params(FILE *out) {
  fprintf(out, "\npolicies:\n");
  for (size_t i = 0; i < vas_policy_count(); i++) fprintf(out, "  %-11s %s\n", vas_policy_at(i), vas_policy_summary(i));
  fprintf(out, "\nparameters (--set):\n");
  for (size_t i = 0; i < vas_param_count(); i++) {
    const char *doc, *name = vas_param_at(i, &doc);
    fprintf(out, "  %-17s %s\n", name, doc);
  }
}

static int parse_opts(int argc, char **argv, opts *o) {
  *o = (opts){.every = 1, .device = NO_DEVICE};
  const cli_opt opt[] = {
      {.name = "policy", .kind = OPT_CALL, .dest = o, .arg = "NAME", .call = add_policy,
       .help = "policy to run (repeatable; default: cuda, caching, expandable)"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &o->format, .arg = "F", .choices = report_format_names,
       .help = "summary format: text (default), json or csv"},
      {.name = "capacity", .kind = OPT_SIZE, .dest = &o->capacity, .arg = "SIZE", .lo = 1, .hi = VAS_MAX_CAPACITY,
       .help = "physical memory (default: --preset's machine.phys_memory, else the\n"
               "device a snapshot was captured on, else preset " DEFAULT_PRESET "'s)"},
      {.name = "preset", .kind = OPT_TEXT, .dest = &o->preset, .arg = "NAME",
       .help = "preset whose machine.phys_memory is the capacity"},
      {.name = "set", .kind = OPT_CALL, .dest = o, .arg = "KEY=VALUE", .call = add_param,
       .help = "allocator parameter (list below; vas.KEY=VALUE too, as in a\n"
               "configuration's [vas] section)"},
      {.name = "timeline", .kind = OPT_TEXT, .dest = &o->timeline, .arg = "FILE.csv",
       .help = "one row per event: every policy's memory and fragmentation"},
      {.name = "timeline-every", .kind = OPT_WHOLE, .dest = &o->every, .arg = "N", .lo = 1,
       .help = "write every Nth event only (default 1)"},
      {.name = "input-format", .kind = OPT_CHOICE, .dest = &o->input, .arg = "F", .choices = alloctrace_input_names,
       .help = "auto (default), snapshot, rmm or native"},
      {.name = "device", .kind = OPT_WHOLE, .dest = &o->device, .arg = "N", .hi = 1024,
       .help = "which of a snapshot's device_traces (default: the one with events)"},
      {.name = "synthetic", .kind = OPT_TEXT_OPTIONAL, .dest = &o->synthetic, .arg = "SPEC",
       .help = "generate the operator workload instead of reading TRACE;\n"
               "SPEC keys: seed requests temps temp_min temp_max keep_min\n"
               "keep_max keep_for (docs/ALLOC.md)"},
      {.name = "emit-rmm", .kind = OPT_TEXT, .dest = &o->emit_rmm, .arg = "FILE.csv",
       .help = "also write the requests read as an RMM log"},
      {.name = "layout", .kind = OPT_TEXT, .dest = &o->layout, .arg = "FILE.csv",
       .help = "the allocations alive at the end, each policy's: offset from\n"
               "the first, in allocation order (tlbsim-gpu's layout files)"},
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
  if (!o->npolicies) {
    o->policy[o->npolicies++] = "cuda";
    o->policy[o->npolicies++] = "caching";
    o->policy[o->npolicies++] = "expandable";
  }
  return 0;
}

/* --- setup ------------------------------------------------------------------ */

static int preset_capacity(const char *name, uint64_t *out, diag *d) {
  cli_config cc = {.preset = name};
  const char *label;
  cfg *c = cli_load_config(&cc, name, &label, d);
  if (!c) return -1;
  int rc = cfg_get_size(c, "machine", "phys_memory", 0, 0, VAS_MAX_CAPACITY, out, d);
  if (!rc && !*out) rc = diag_set(d, cfg_file(c), 0, "no machine.phys_memory");
  cfg_destroy(c);
  return rc;
}

static int build_config(const opts *o, const alloctrace *t, vas_config *vc, diag *d) {
  const alloctrace_info *info = alloctrace_get_info(t);
  *vc = (vas_config){0};
  if (o->capacity) vc->phys_capacity = o->capacity;
  else if (o->preset || !info->device_total) {
    if (preset_capacity(o->preset ? o->preset : DEFAULT_PRESET, &vc->phys_capacity, d)) return -1;
  } else if (info->device_total > VAS_MAX_CAPACITY) {
    char range[64];
    return diag_set(d, alloctrace_path(t), 0, "capture.device_total_memory: '%llu' is out of range (%s)",
                    (unsigned long long)info->device_total,
                    num_range_text(NUM_SIZE, 1, VAS_MAX_CAPACITY, range, sizeof range));
  } else {
    vc->phys_capacity = info->device_total;
  }
  /* Replaying a snapshot: the allocator settings it was recorded with. */
  vc->max_split_size = info->max_split_size;
  for (unsigned i = 0; i < o->nparams; i++) {
    char key[64];
    const char *eq = strchr(o->param[i], '='), *name = o->param[i];
    if (!strncmp(name, "vas.", 4)) name += 4; /* the configuration's spelling works too */
    size_t n = (size_t)(eq - name);
    if (n >= sizeof key) return diag_set(d, "--set", i + 1, "key too long");
    memcpy(key, name, n);
    key[n] = '\0';
    diag why;
    if (vas_config_set(vc, key, eq + 1, &why)) return diag_set(d, "--set", i + 1, "%s", why.msg);
  }
  return 0;
}

static int grow_ids(replay *r, unsigned n, uint64_t *have, uint64_t need) {
  if (need <= *have) return 0;
  uint64_t cap = *have ? *have : 1024;
  while (cap < need) cap *= 2;
  for (unsigned i = 0; i < n; i++) {
    uint64_t *grown = realloc(r[i].va, cap * sizeof *grown);
    if (!grown) return -1;
    r[i].va = grown;
  }
  *have = cap;
  return 0;
}

/* --- the timeline ------------------------------------------------------------- */

static const char *const timeline_cols[] = {"allocated_bytes", "reserved_bytes", "free_bytes", "largest_free_extent",
                                            "free_extents", "external_fragmentation", "driver_allocs",
                                            "driver_frees", "ooms"};
#define NTCOLS (sizeof timeline_cols / sizeof timeline_cols[0])

static void timeline_header(FILE *f, const replay *r, unsigned n, bool recorded) {
  fprintf(f, "event,time_us,requested_bytes");
  if (recorded) fprintf(f, ",recorded.reserved_bytes");
  for (unsigned i = 0; i < n; i++)
    for (size_t c = 0; c < NTCOLS; c++) {
      char name[96];
      snprintf(name, sizeof name, "%s.%s", vas_policy_name(r[i].heap), timeline_cols[c]);
      fputc(',', f);
      csv_write_field(f, name);
    }
  fputc('\n', f);
}

static void timeline_row(FILE *f, const alloctrace_event *ev, uint64_t requested, uint64_t rec_reserved, bool recorded,
                         const replay *r, unsigned n) {
  fprintf(f, "%llu,%llu,%llu", (unsigned long long)ev->index, (unsigned long long)ev->time_us,
          (unsigned long long)requested);
  if (recorded) fprintf(f, ",%llu", (unsigned long long)rec_reserved);
  for (unsigned i = 0; i < n; i++) {
    const vas_stats *s = vas_get_stats(r[i].heap);
    fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%.6f,%llu,%llu,%llu", (unsigned long long)s->allocated_bytes,
            (unsigned long long)s->reserved_bytes, (unsigned long long)s->free_bytes,
            (unsigned long long)s->largest_free_extent, (unsigned long long)s->free_extents,
            s->external_fragmentation, (unsigned long long)s->driver_allocs, (unsigned long long)s->driver_frees,
            (unsigned long long)s->ooms);
  }
  fputc('\n', f);
}

/* --- results ------------------------------------------------------------------ */

static void add_u64(json_object *o, const char *k, uint64_t v) { json_object_object_add(o, k, json_object_new_uint64(v)); }

/* (sim - rec) / rec; null when there is nothing to compare with (rec 0). */
static void add_error(json_object *o, const char *k, uint64_t sim, uint64_t rec) {
  json_object_object_add(o, k, rec ? json_object_new_double(((double)sim - (double)rec) / (double)rec) : NULL);
}

static json_object *policy_json(const replay *r, const alloctrace *t, uint64_t requested_peak, const live_stats *live) {
  const vas_stats *s = vas_get_stats(r->heap);
  const alloctrace_info *in = alloctrace_get_info(t);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "policy", json_object_new_string(vas_policy_name(r->heap)));
  json_object_object_add(o, "trace", json_object_new_string(alloctrace_path(t)));
  add_u64(o, "capacity_bytes", vas_get_config(r->heap)->phys_capacity);
  add_u64(o, "peak_reserved_bytes", s->reserved_peak);
  add_u64(o, "peak_allocated_bytes", s->allocated_peak);
  add_u64(o, "peak_requested_bytes", requested_peak);
  add_u64(o, "internal_fragmentation_at_peak_bytes", s->internal_frag_at_peak);
  add_u64(o, "reserved_bytes_end", s->reserved_bytes);
  add_u64(o, "allocated_bytes_end", s->allocated_bytes);
  add_u64(o, "allocs", s->allocs);
  add_u64(o, "frees", s->frees);
  add_u64(o, "driver_allocs", s->driver_allocs);
  add_u64(o, "driver_frees", s->driver_frees);
  add_u64(o, "maps", s->maps);
  add_u64(o, "unmaps", s->unmaps);
  add_u64(o, "pte_writes", s->pte_writes);
  add_u64(o, "tlb_shootdowns", s->shootdowns);
  add_u64(o, "ooms", s->ooms);
  add_u64(o, "ooms_fragmented", s->ooms_fragmented);
  json_object_object_add(o, "first_oom_event", r->any_oom ? json_object_new_uint64(r->first_oom) : NULL);
  json_object_object_add(o, "first_oom_request_bytes", r->any_oom ? json_object_new_uint64(r->oom_request) : NULL);
  json_object_object_add(o, "first_oom_free_bytes", r->any_oom ? json_object_new_uint64(r->oom_free) : NULL);
  json_object_object_add(o, "first_oom_largest_free_extent", r->any_oom ? json_object_new_uint64(r->oom_largest) : NULL);
  json_object_object_add(o, "external_fragmentation_max", json_object_new_double(s->external_fragmentation_max));
  json_object_object_add(o, "external_fragmentation_end", json_object_new_double(s->external_fragmentation));
  add_u64(o, "free_extents_end", s->free_extents);
  add_u64(o, "live_buffers_end", live->buffers);
  add_u64(o, "live_va_span_bytes_end", live->va_span);
  add_u64(o, "live_regions_2m_end", live->regions_2m);
  add_u64(o, "live_regions_32m_end", live->regions_32m);
  if (in->has_segments) {
    json_object *rec = json_object_new_object();
    add_u64(rec, "peak_reserved_bytes", in->reserved_peak);
    add_u64(rec, "reserved_bytes_end", in->reserved_end);
    add_u64(rec, "driver_allocs", in->segment_allocs);
    add_u64(rec, "driver_frees", in->segment_frees);
    add_u64(rec, "ooms", in->recorded_ooms);
    json_object_object_add(rec, "expandable_segments", json_object_new_boolean(in->expandable_segments));
    json_object_object_add(rec, "unmodelled_settings", json_object_new_string(in->unmodelled));
    /* The recording is of PyTorch's allocator: only its model is compared
     * with it; another policy's difference is not an error of that model. */
    const char *recorder = in->expandable_segments ? "expandable" : "caching";
    json_object_object_add(rec, "model", json_object_new_string(recorder));
    json_object_object_add(o, "recorded", rec);
    bool compared = !strcmp(vas_policy_name(r->heap), recorder);
    add_error(o, "peak_reserved_error", s->reserved_peak, compared ? in->reserved_peak : 0);
    add_error(o, "driver_allocs_error", s->driver_allocs, compared ? in->segment_allocs : 0);
  }
  add_u64(o, "unmatched_frees", in->unmatched_frees);
  return o;
}

/* 1234567 → "1,234,567": byte counts stay readable in the table. */
static const char *grouped(json_object *v, char *buf, size_t len) {
  if (!v) return "-";
  if (!json_object_is_type(v, json_type_int)) {
    if (json_object_is_type(v, json_type_double)) snprintf(buf, len, "%.4f", json_object_get_double(v));
    else snprintf(buf, len, "%s", json_object_get_string(v));
    return buf;
  }
  char raw[32];
  snprintf(raw, sizeof raw, "%llu", (unsigned long long)json_object_get_uint64(v));
  size_t n = strlen(raw), o = 0;
  for (size_t i = 0; i < n && o + 2 < len; i++) {
    if (i && (n - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = raw[i];
  }
  buf[o] = '\0';
  return buf;
}

static void write_text(FILE *f, json_object *arr, const alloctrace *t) {
  const alloctrace_info *in = alloctrace_get_info(t);
  size_t n = json_object_array_length(arr);
  json_object *first = json_object_array_get_idx(arr, 0), *rec = NULL;
  json_object_object_get_ex(first, "recorded", &rec);
  fprintf(f, "trace %s (%s): %llu allocs, %llu frees", alloctrace_path(t), alloctrace_format_name(in->format),
          (unsigned long long)in->allocs, (unsigned long long)in->frees);
  if (in->has_settings) fprintf(f, "; recorded with expandable_segments %s", in->expandable_segments ? "True" : "False");
  if (*in->unmodelled) fprintf(f, "; it used %s, which the models ignore", in->unmodelled);
  if (in->unmatched_frees) fprintf(f, "; %llu frees of allocations made before recording began were skipped",
                                   (unsigned long long)in->unmatched_frees);
  fprintf(f, "\n\n%-38s", "");
  for (size_t i = 0; i < n; i++) {
    json_object *p;
    json_object_object_get_ex(json_object_array_get_idx(arr, i), "policy", &p);
    fprintf(f, " %18s", json_object_get_string(p));
  }
  if (rec) fprintf(f, " %18s", "recorded");
  fputc('\n', f);
  json_object_object_foreach(first, key, val) {
    (void)val;
    if (!strcmp(key, "policy") || !strcmp(key, "trace") || !strcmp(key, "recorded")) continue;
    fprintf(f, "%-38s", key);
    for (size_t i = 0; i < n; i++) {
      json_object *v = NULL;
      char buf[48];
      json_object_object_get_ex(json_object_array_get_idx(arr, i), key, &v);
      fprintf(f, " %18s", grouped(v, buf, sizeof buf));
    }
    json_object *rv = NULL;
    char buf[48];
    if (rec && json_object_object_get_ex(rec, key, &rv)) fprintf(f, " %18s", grouped(rv, buf, sizeof buf));
    fputc('\n', f);
  }
}

static void write_results(FILE *f, report_format fmt, json_object *arr, const alloctrace *t) {
  if (fmt == REPORT_TEXT) {
    write_text(f, arr, t);
  } else if (fmt == REPORT_JSON) {
    json_object *doc = json_object_array_length(arr) == 1 ? json_object_array_get_idx(arr, 0) : arr;
    fprintf(f, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  } else {
    for (size_t i = 0; i < json_object_array_length(arr); i++)
      report_write_csv_row(f, json_object_array_get_idx(arr, i), i == 0);
  }
}

/* --- the replay ---------------------------------------------------------------- */

typedef struct run {
  opts o;
  alloctrace *t;
  replay r[MAX_POLICIES];
  unsigned n;
  uint64_t ids, *sizes; /* requested size by id */
  uint64_t *order;      /* by id: 1 + its place among all allocations while live, else 0 */
  uint64_t *names;      /* by id: the input's name for it */
  uint64_t allocations;
  cli_out timeline_out, emit_out, layout_out; /* written whole or not at all */
  FILE *timeline, *emit, *layout;             /* their files while open */
  uint64_t requested, requested_peak, rec_reserved;
} run;

/* "FILE:LINE: msg" for line formats, "FILE: event N: msg" for the others. */
static int event_error(const run *x, const alloctrace_event *ev, const char *msg) {
  const alloctrace_info *in = alloctrace_get_info(x->t);
  if (in->format == ALLOCTRACE_RMM || in->format == ALLOCTRACE_NATIVE)
    fprintf(stderr, "%s:%llu: %s\n", alloctrace_path(x->t), (unsigned long long)ev->index, msg);
  else
    fprintf(stderr, "%s: event %llu: %s\n", alloctrace_path(x->t), (unsigned long long)ev->index, msg);
  return EXIT_INPUT;
}

/* One RMM log row; the id (+1: RMM reads 0 as a null pointer) stands for
 * the pointer, time in seconds as RMM's epoch timestamps are. */
static void emit_rmm(FILE *f, const alloctrace_event *ev, const char *action, uint64_t size) {
  fprintf(f, "0,%llu.%06llu,%s,0x%llx,%llu,%u\n", (unsigned long long)(ev->time_us / 1000000),
          (unsigned long long)(ev->time_us % 1000000), action, (unsigned long long)ev->id + 1,
          (unsigned long long)size, ev->stream);
}

static int apply(run *x, const alloctrace_event *ev) {
  diag d;
  if (ev->kind == AT_SEGMENT) {
    x->rec_reserved = ev->release ? x->rec_reserved - (ev->size < x->rec_reserved ? ev->size : x->rec_reserved)
                                  : x->rec_reserved + ev->size;
    return 0;
  }
  if (ev->kind == AT_OOM) return 0;
  uint64_t limit = alloctrace_id_limit(x->t);
  if (limit > x->ids) {
    uint64_t have = x->ids;
    if (grow_ids(x->r, x->n, &have, limit)) return event_error(x, ev, "out of host memory");
    uint64_t *grown = realloc(x->sizes, have * sizeof *grown);
    if (!grown) return event_error(x, ev, "out of host memory");
    x->sizes = grown;
    if (!(grown = realloc(x->order, have * sizeof *grown))) return event_error(x, ev, "out of host memory");
    x->order = grown;
    if (!(grown = realloc(x->names, have * sizeof *grown))) return event_error(x, ev, "out of host memory");
    x->names = grown;
    x->ids = have;
  }
  if (ev->kind == AT_ALLOC) {
    x->sizes[ev->id] = ev->size;
    x->order[ev->id] = ++x->allocations;
    x->names[ev->id] = ev->name;
    x->requested += ev->size;
    if (x->requested > x->requested_peak) x->requested_peak = x->requested;
    if (x->emit) emit_rmm(x->emit, ev, "allocate", ev->size);
    for (unsigned i = 0; i < x->n; i++) {
      replay *r = &x->r[i];
      int rc = vas_alloc(r->heap, ev->size, ev->align, ev->stream, &r->va[ev->id], &d);
      if (rc == VAS_ERR) return event_error(x, ev, d.msg);
      if (rc == VAS_OOM) {
        r->va[ev->id] = FAILED_VA;
        if (!r->any_oom) {
          const vas_stats *s = vas_get_stats(r->heap);
          r->first_oom = ev->index;
          r->oom_request = ev->size;
          r->oom_free = s->free_bytes;
          r->oom_largest = s->largest_free_extent;
        }
        r->any_oom = true;
      }
    }
  } else {
    x->order[ev->id] = 0;
    x->requested -= x->sizes[ev->id];
    if (x->emit) emit_rmm(x->emit, ev, "free", x->sizes[ev->id]);
    for (unsigned i = 0; i < x->n; i++) {
      replay *r = &x->r[i];
      if (r->va[ev->id] != FAILED_VA && vas_free(r->heap, r->va[ev->id], &d) != VAS_OK)
        return event_error(x, ev, d.msg);
    }
  }
  return 0;
}

typedef struct ranked {
  uint64_t order, id;
} ranked;

static int by_order(const void *a, const void *b) {
  uint64_t x = ((const ranked *)a)->order, y = ((const ranked *)b)->order;
  return (x > y) - (x < y);
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Each policy's allocations alive at the end, in allocation order: written
 * to the layout file, then measured into stats[policy]. */
static int finish_live(const run *x, live_stats *stats) {
  uint64_t limit = alloctrace_id_limit(x->t);
  size_t n = 0;
  for (uint64_t id = 0; id < limit; id++) n += x->order[id] != 0;
  ranked *rank = malloc((n ? n : 1) * sizeof *rank);
  live_buf *b = malloc((n ? n : 1) * sizeof *b);
  if (!rank || !b) {
    free(rank);
    free(b);
    fprintf(stderr, "tlbsim alloc: out of host memory\n");
    return EXIT_INPUT;
  }
  n = 0;
  for (uint64_t id = 0; id < limit; id++)
    if (x->order[id]) rank[n++] = (ranked){x->order[id], id};
  qsort(rank, n, sizeof *rank, by_order);
  for (unsigned i = 0; i < x->n; i++) {
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
      uint64_t id = rank[j].id, va = x->r[i].va[id];
      if (va != FAILED_VA) b[k++] = (live_buf){va, x->sizes[id], x->names[id]};
    }
    if (x->layout) live_layout_rows(x->layout, base_name(alloctrace_path(x->t)), vas_policy_name(x->r[i].heap), b, k);
    live_measure(b, k, &stats[i]);
  }
  free(rank);
  free(b);
  return EXIT_OK;
}

static int replay_all(run *x) {
  diag d;
  const alloctrace_info *in = alloctrace_get_info(x->t);
  vas_config vc;
  if (build_config(&x->o, x->t, &vc, &d)) return cli_input_error(&d);
  for (unsigned i = 0; i < x->o.npolicies; i++) {
    if (!(x->r[i].heap = vas_create(x->o.policy[i], &vc, NULL, &d))) {
      fprintf(stderr, "tlbsim alloc: %s\n", d.msg);
      return strncmp(d.msg, "unknown allocator policy", 24) ? EXIT_INPUT : EXIT_USAGE;
    }
    x->n++;
  }
  const char *inputs[] = {x->o.trace, NULL};
  if (x->o.timeline) {
    if (cli_out_open(&x->timeline_out, x->o.timeline, false, inputs, &d)) return cli_input_error(&d);
    x->timeline = x->timeline_out.f;
  }
  if (x->o.emit_rmm) {
    if (cli_out_open(&x->emit_out, x->o.emit_rmm, false, inputs, &d)) return cli_input_error(&d);
    x->emit = x->emit_out.f;
    fprintf(x->emit, "Thread,Time,Action,Pointer,Size,Stream\n");
  }
  if (x->o.layout) {
    if (cli_out_open(&x->layout_out, x->o.layout, false, inputs, &d)) return cli_input_error(&d);
    x->layout = x->layout_out.f;
    live_layout_header(x->layout);
  }
  bool header = false;
  alloctrace_event ev;
  uint64_t count = 0;
  int got;
  while ((got = alloctrace_next(x->t, &ev, &d)) == 1) {
    int rc = apply(x, &ev);
    if (rc) return rc;
    if (!x->timeline || count++ % x->o.every) continue;
    if (!header) timeline_header(x->timeline, x->r, x->n, in->has_segments);
    header = true;
    timeline_row(x->timeline, &ev, x->requested, x->rec_reserved, in->has_segments, x->r, x->n);
  }
  if (got < 0) return cli_input_error(&d);
  live_stats live[MAX_POLICIES];
  int rc = finish_live(x, live);
  if (rc) return rc;
  json_object *arr = json_object_new_array();
  for (unsigned i = 0; i < x->n; i++)
    json_object_array_add(arr, policy_json(&x->r[i], x->t, x->requested_peak, &live[i]));
  write_results(stdout, (report_format)x->o.format, arr, x->t);
  json_object_put(arr);
  return EXIT_OK;
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
    x.t = alloctrace_open(x.o.trace, (alloctrace_format)x.o.input, x.o.device == NO_DEVICE ? -1 : (int)x.o.device, &d);
  }
  if (!x.t) return cli_input_error(&d);
  rc = replay_all(&x);
  if (rc == EXIT_OK && x.timeline && cli_out_commit(&x.timeline_out, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && x.emit && cli_out_commit(&x.emit_out, &d)) rc = cli_input_error(&d);
  if (rc == EXIT_OK && x.layout && cli_out_commit(&x.layout_out, &d)) rc = cli_input_error(&d);
  cli_out_discard(&x.timeline_out);
  cli_out_discard(&x.emit_out);
  cli_out_discard(&x.layout_out);
  for (unsigned i = 0; i < x.n; i++) {
    vas_destroy(x.r[i].heap);
    free(x.r[i].va);
  }
  free(x.sizes);
  free(x.order);
  free(x.names);
  alloctrace_close(x.t);
  return rc;
}
