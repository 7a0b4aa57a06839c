/* tlbsim validate of a capture: the requests replayed at their recorded
 * addresses (the recorded policy) and through the cuda, caching and
 * expandable models in lockstep; per model, each allocation's offset from
 * the model's first against the recorded offset from the driver's first,
 * and its step from the allocation before against the driver's step,
 * the 2 MiB and 32 MiB regions the allocations touched over the run and
 * those the live ones touch at the end. */
#include "validate_capture.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/allocreplay.h"
#include "tlbsim/report.h"
#include "tlbsim/trace.h"

#define NPOL 4 /* recorded first: the others are compared with it */
static const char *const policies[NPOL] = {"recorded", "cuda", "caching", "expandable"};

/* One policy's tally over the run. */
typedef struct tally {
  bool any;
  uint64_t first, prev;     /* its first allocation's address, the last one's */
  uint64_t compared, exact; /* allocations it served, of them at the recorded offset */
  uint64_t steps, same_step; /* allocations after its first; of them as far from the one before as recorded */
  double abs_error;         /* sum of |offset - recorded offset|, bytes */
  uint64_t max_error;
  allocreplay_buf *touched; /* every allocation it served, as it placed it: the regions they touched */
  size_t ntouched, cap;
} tally;

static int touch(tally *t, uint64_t va, uint64_t size) {
  if (t->ntouched == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 1024;
    allocreplay_buf *g = realloc(t->touched, cap * sizeof *g);
    if (!g) return -1;
    t->touched = g, t->cap = cap;
  }
  t->touched[t->ntouched++] = (allocreplay_buf){.va = va, .size = size};
  return 0;
}

/* A native trace by its first record's keyword (the trace reader's own
 * sniff), so that a capture whose first record is bad is validated, and
 * that record reported, rather than read as a CSV without its columns. */
bool validate_capture_sniff(const char *path) {
  diag d;
  trace_reader *r = trace_open(path, TRACE_AUTO, &d);
  bool native = r && trace_get_format(r) == TRACE_NATIVE;
  trace_close(r);
  return native;
}

/* Allocation ev as each policy placed it. */
static int count_alloc(const allocreplay *r, const alloctrace_event *ev, tally *t) {
  uint64_t rec = allocreplay_va(r, 0, ev->id), rec_prev = t[0].prev;
  for (unsigned p = 0; p < NPOL; p++) {
    if (!allocreplay_served(r, p, ev->id)) continue;
    uint64_t va = allocreplay_va(r, p, ev->id);
    if (t[p].any) t[p].steps++, t[p].same_step += va - t[p].prev == rec - rec_prev;
    if (!t[p].any) t[p].any = true, t[p].first = va;
    t[p].prev = va;
    int64_t want = (int64_t)(rec - t[0].first), got = (int64_t)(va - t[p].first);
    uint64_t err = got > want ? (uint64_t)(got - want) : (uint64_t)(want - got);
    t[p].compared++, t[p].exact += !err, t[p].abs_error += (double)err;
    if (err > t[p].max_error) t[p].max_error = err;
    if (touch(&t[p], va, ev->size)) return -1;
  }
  return 0;
}

static json_object *policy_doc(const allocreplay *r, unsigned p, tally *t, const char *path) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "policy", json_object_new_string(policies[p]));
  json_object_object_add(o, "capture", json_object_new_string(path));
  json_object_object_add(o, "allocations", json_object_new_uint64(t->compared));
  json_object_object_add(o, "placed_exactly", json_object_new_uint64(t->exact));
  json_object_object_add(o, "placed_exactly_ratio", report_ratio(t->exact, t->compared));
  json_object_object_add(o, "mean_offset_error_bytes",
                         t->compared ? report_real(t->abs_error / (double)t->compared) : NULL);
  json_object_object_add(o, "max_offset_error_bytes", json_object_new_uint64(t->max_error));
  json_object_object_add(o, "same_step", json_object_new_uint64(t->same_step));
  json_object_object_add(o, "same_step_ratio", report_ratio(t->same_step, t->steps));
  allocreplay_live all;
  allocreplay_measure(t->touched, t->ntouched, &all); /* every allocation over the run, live or not */
  json_object_object_add(o, "regions_2m_touched", json_object_new_uint64(all.regions_2m));
  json_object_object_add(o, "regions_32m_touched", json_object_new_uint64(all.regions_32m));
  size_t n;
  allocreplay_buf *b = allocreplay_buffers(r, p, &n);
  allocreplay_live live = {0};
  if (b) allocreplay_measure(b, n, &live);
  free(b);
  json_object_object_add(o, "live_buffers_end", json_object_new_uint64(live.buffers));
  json_object_object_add(o, "live_regions_2m_end", json_object_new_uint64(live.regions_2m));
  json_object_object_add(o, "live_regions_32m_end", json_object_new_uint64(live.regions_32m));
  json_object_object_add(o, "live_va_span_bytes_end", json_object_new_uint64(live.va_span));
  return o;
}

static void write_text(json_object *arr, const char *label) {
  json_object *first = json_object_array_get_idx(arr, 0);
  printf("capture %s against the allocator models (preset %s): each allocation's offset from the\n"
         "policy's first against the driver's offset from its first\n\n%-26s",
         json_object_get_string(json_object_object_get(first, "capture")), label, "");
  for (size_t i = 0; i < json_object_array_length(arr); i++)
    printf(" %16s", json_object_get_string(json_object_object_get(json_object_array_get_idx(arr, i), "policy")));
  putchar('\n');
  json_object_object_foreach(first, key, val) {
    (void)val;
    if (!strcmp(key, "capture") || !strcmp(key, "policy")) continue;
    printf("%-26s", key);
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
      json_object *v = json_object_object_get(json_object_array_get_idx(arr, i), key);
      if (!v) printf(" %16s", "-");
      else if (json_object_is_type(v, json_type_double)) printf(" %16.4f", json_object_get_double(v));
      else printf(" %16s", json_object_get_string(v));
    }
    putchar('\n');
  }
}

static int report(const allocreplay *r, tally *t, const validate_capture_opts *o) {
  json_object *arr = json_object_new_array();
  for (unsigned p = 0; p < NPOL; p++) json_object_array_add(arr, policy_doc(r, p, &t[p], o->path));
  if (o->format == REPORT_TEXT) write_text(arr, o->label);
  else if (o->format == REPORT_JSON)
    printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  else
    for (size_t i = 0; i < json_object_array_length(arr); i++)
      report_write_csv_row(stdout, json_object_array_get_idx(arr, i), i == 0);
  json_object_put(arr);
  return EXIT_OK;
}

int validate_capture(const machine_spec *spec, const validate_capture_opts *o) {
  diag d;
  alloctrace *t = alloctrace_open(o->path, ALLOCTRACE_AUTO, -1, &d);
  if (!t) return cli_input_error(&d);
  vas_config vc;
  allocreplay *r = NULL;
  tally tl[NPOL] = {0};
  int rc = EXIT_INPUT, got = -1;
  if (!allocreplay_config(&vc, t, spec->phys_memory, NULL, 0, "validate", &d) &&
      (r = allocreplay_create(t, policies, NPOL, &vc, &d))) {
    alloctrace_event ev;
    while ((got = allocreplay_next(r, &ev, &d)) == 1)
      if (ev.kind == AT_ALLOC && count_alloc(r, &ev, tl)) {
        got = diag_set(&d, o->path, ev.index, "out of host memory");
        break;
      }
  }
  if (got < 0) rc = cli_input_error(&d);
  else if (!tl[0].compared) rc = (diag_set(&d, o->path, 0, "no device allocations to compare"), cli_input_error(&d));
  else rc = report(r, tl, o);
  for (unsigned p = 0; p < NPOL; p++) free(tl[p].touched);
  allocreplay_destroy(r);
  alloctrace_close(t);
  return rc;
}
