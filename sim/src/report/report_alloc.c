/* The summary of an allocation replay: one JSON object per policy, built
 * once and written as JSON, CSV or a text table. */
#include "tlbsim/report_alloc.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/num.h"

static void add_u64(json_object *o, const char *k, uint64_t v) { json_object_object_add(o, k, json_object_new_uint64(v)); }

/* (sim - rec) / rec; null when there is nothing to compare with (rec 0). */
static void add_error(json_object *o, const char *k, uint64_t sim, uint64_t rec) {
  json_object_object_add(o, k, rec ? report_real(((double)sim - (double)rec) / (double)rec) : NULL);
}

/* The driver-time model's sums (null without a model; wall and wait null
 * for an input without times: no kernels to wait for). */
static void add_time(json_object *o, const allocreplay *r, unsigned policy) {
  alloctime_sum t;
  bool on = allocreplay_timing(r, policy, &t);
  json_object_object_add(o, "driver_time_s", on ? report_real(t.driver_s) : NULL);
  json_object_object_add(o, "driver_wait_s", on && t.timed ? report_real(t.wait_s) : NULL);
  json_object_object_add(o, "wall_time_s", on && t.timed ? report_real(t.wall_s) : NULL);
}

/* A capture's cuMemGetInfo samples: the driver's least free memory and its
 * total under recorded (and what was in use then), beside the least each
 * policy leaves free of the same total: the total less its peak reserved. */
static void add_meminfo(json_object *o, const allocreplay *r, const vas *heap) {
  const allocreplay_sum *m = allocreplay_get_sum(r);
  if (!m->meminfo_samples) return;
  uint64_t peak = vas_get_stats(heap)->reserved_peak;
  json_object *rec;
  if (!json_object_object_get_ex(o, "recorded", &rec)) {
    rec = json_object_new_object();
    json_object_object_add(o, "recorded", rec);
  }
  add_u64(rec, "meminfo_samples", m->meminfo_samples);
  add_u64(rec, "total_bytes", m->driver_total);
  add_u64(rec, "free_bytes_min", m->driver_free_min);
  add_u64(rec, "used_bytes_peak", m->driver_total > m->driver_free_min ? m->driver_total - m->driver_free_min : 0);
  add_u64(o, "free_bytes_min", peak < m->driver_total ? m->driver_total - peak : 0);
}

static json_object *policy_json(const allocreplay *r, unsigned policy, const allocreplay_live *live) {
  const vas *heap = allocreplay_heap(r, policy);
  const vas_stats *s = vas_get_stats(heap);
  const allocreplay_oom *oom = allocreplay_first_oom(r, policy);
  const alloctrace *t = allocreplay_trace(r);
  const alloctrace_info *in = alloctrace_get_info(t);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "policy", json_object_new_string(vas_policy_name(heap)));
  json_object_object_add(o, "trace", json_object_new_string(alloctrace_path(t)));
  add_u64(o, "capacity_bytes", vas_get_config(heap)->phys_capacity);
  add_u64(o, "peak_reserved_bytes", s->reserved_peak);
  add_u64(o, "peak_allocated_bytes", s->allocated_peak);
  uint64_t requested_peak;
  allocreplay_requested(r, policy, &requested_peak);
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
  add_u64(o, "shootdowns", s->shootdowns);
  add_u64(o, "ooms", s->ooms);
  add_u64(o, "ooms_enough_free", s->ooms_enough_free);
  json_object_object_add(o, "first_oom_event", oom->any ? json_object_new_uint64(oom->event) : NULL);
  json_object_object_add(o, "first_oom_request_bytes", oom->any ? json_object_new_uint64(oom->request) : NULL);
  json_object_object_add(o, "first_oom_free_bytes", oom->any ? json_object_new_uint64(oom->free_bytes) : NULL);
  json_object_object_add(o, "first_oom_largest_free_extent", oom->any ? json_object_new_uint64(oom->largest) : NULL);
  json_object_object_add(o, "first_oom_largest_free_range", oom->any ? json_object_new_uint64(oom->range) : NULL);
  json_object_object_add(o, "first_oom_reason",
                         oom->any ? json_object_new_string(vas_oom_reason_name(oom->reason)) : NULL);
  for (int k = VAS_OOM_EXHAUSTED; k < VAS_OOM_NREASONS; k++) {
    char key[48];
    snprintf(key, sizeof key, "ooms_%s", vas_oom_reason_name((vas_oom_reason)k));
    add_u64(o, key, s->ooms_by_reason[k]);
  }
  json_object_object_add(o, "external_fragmentation_max", report_real(s->external_fragmentation_max));
  json_object_object_add(o, "external_fragmentation_end", report_real(s->external_fragmentation));
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
    bool compared = !strcmp(vas_policy_name(heap), recorder);
    add_error(o, "peak_reserved_error", s->reserved_peak, compared ? in->reserved_peak : 0);
    add_error(o, "driver_allocs_error", s->driver_allocs, compared ? in->segment_allocs : 0);
  }
  add_u64(o, "unmatched_frees", in->unmatched_frees);
  add_time(o, r, policy);
  add_meminfo(o, r, heap);
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
  fprintf(f, "trace %s (%s): %llu %s, %llu %s", alloctrace_path(t), alloctrace_format_name(in->format),
          (unsigned long long)in->allocs, num_noun(in->allocs, "alloc", "allocs"), (unsigned long long)in->frees,
          num_noun(in->frees, "free", "frees"));
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
  if (json_object_object_get_ex(first, "partial", NULL))
    fprintf(f, "partial: interrupted, the counts are of the events read before it\n");
  json_object_object_foreach(first, key, val) {
    (void)val;
    if (!strcmp(key, "policy") || !strcmp(key, "trace") || !strcmp(key, "recorded") || !strcmp(key, "partial"))
      continue;
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

static void write_doc(FILE *f, report_format fmt, json_object *arr, const alloctrace *t) {
  if (fmt == REPORT_TEXT) {
    write_text(f, arr, t);
  } else if (fmt == REPORT_JSON) { /* a list whatever the number of policies: one shape to read */
    fprintf(f, "%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  } else {
    for (size_t i = 0; i < json_object_array_length(arr); i++)
      report_write_csv_row(f, json_object_array_get_idx(arr, i), i == 0);
  }
}

/* Each policy's object, its live set measured now; NULL when out of memory. */
static json_object *summary(const allocreplay *r) {
  json_object *arr = json_object_new_array();
  for (unsigned i = 0; arr && i < allocreplay_count(r); i++) {
    size_t n;
    allocreplay_buf *b = allocreplay_buffers(r, i, &n);
    allocreplay_live live;
    if (!b) {
      json_object_put(arr);
      return NULL;
    }
    allocreplay_measure(b, n, &live);
    free(b);
    json_object_array_add(arr, policy_json(r, i, &live));
  }
  return arr;
}

int report_alloc_write(FILE *out, report_format f, const allocreplay *r, bool partial) {
  json_object *arr = summary(r);
  if (!arr) return -1;
  for (size_t i = 0; partial && i < json_object_array_length(arr); i++)
    report_mark_partial(json_object_array_get_idx(arr, i));
  write_doc(out, f, arr, allocreplay_trace(r));
  json_object_put(arr);
  return 0;
}
