/* What allocations cost in time: the [driver] section's tables and the
 * two-timeline replay (tlbsim/alloctime.h says the model; docs/ALLOC.md
 * gives its sources and its check). Times are kept in ns as doubles. */
#include "tlbsim/alloctime.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/num.h"

#define CODE_KEY(key, doc) {key, CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "SIZE:US,...", "none (costs nothing)", doc}
#define REAL(key, field, doc) \
  {key, CFG_KEY_REAL, offsetof(alloctime_config, field), 0, 0, 0, 0, 0, 1e9, "us", "0", doc}

static const cfg_key driver_key_table[] = {
    CODE_KEY("malloc_map_us", "a cudaMalloc that maps SIZE bytes (a new region or a large request), by SIZE"),
    CODE_KEY("malloc_us", "a cudaMalloc served inside memory already mapped, by the bytes asked"),
    CODE_KEY("free_unmap_us", "a cudaFree that unmaps SIZE bytes, by SIZE (after its wait for the device)"),
    CODE_KEY("free_us", "a cudaFree that unmaps nothing, by the bytes freed"),
    CODE_KEY("vmm_map_us", "one piece of SIZE bytes mapped by the VMM calls (cuMemCreate, cuMemMap, cuMemSetAccess)"),
    CODE_KEY("vmm_unmap_us", "one piece of SIZE bytes unmapped (cuMemUnmap, cuMemRelease; after a wait)"),
    REAL("sync_us", sync_us, "a call that waits for the device returns this long after its last kernel ends"),
    REAL("launch_us", launch_us, "a kernel launched on an idle device starts this long after the host launched it"),
    REAL("queue_us", queue_us, "a kernel that starts within this of the previous one's end was queued behind it"),
    REAL("hidden_us", hidden_us, "the host's work before a record where the recording hides it behind a wait"),
    REAL("capture_us", capture_us, "the capture library's own host time per alloc and free record (taken out)"),
};
static const cfg_keys driver_keys = {"driver", driver_key_table, sizeof driver_key_table / sizeof driver_key_table[0]};

const cfg_keys *alloctime_config_keys(void) { return &driver_keys; }

/* One "SIZE:US" point, sizes increasing. */
static int add_point(void *ctx, const char *item, diag *why) {
  alloctime_table *t = ctx;
  const char *colon = strchr(item, ':');
  uint64_t size;
  double us;
  if (!colon || num_span_size(item, colon, &size) || !size || num_parse_real(colon + 1, &us) || !(us >= 0) ||
      us > 1e9)
    return diag_set(why, NULL, 0, "'%s' is not SIZE:US (a size, then a latency in us)", item);
  if (t->n == ALLOCTIME_POINTS) return diag_set(why, NULL, 0, "more than %d points", ALLOCTIME_POINTS);
  if (t->n && size <= t->size[t->n - 1]) return diag_set(why, NULL, 0, "'%s': sizes must increase", item);
  t->size[t->n] = size, t->us[t->n] = us, t->n++;
  return 0;
}

int alloctime_config_read(cfg *c, alloctime_config *out, diag *d) {
  memset(out, 0, sizeof *out);
  if (cfg_read_keys(c, "driver", &driver_keys, out, d)) return -1;
  struct {
    const char *key;
    alloctime_table *t;
  } tables[] = {{"malloc_map_us", &out->malloc_map}, {"malloc_us", &out->malloc_small},
                {"free_unmap_us", &out->free_unmap}, {"free_us", &out->free_small},
                {"vmm_map_us", &out->vmm_map},       {"vmm_unmap_us", &out->vmm_unmap}};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    if (cfg_get_list(c, "driver", tables[i].key, add_point, tables[i].t, NULL, d)) return -1;
    out->given |= tables[i].t->n > 0;
  }
  return 0;
}

double alloctime_table_us(const alloctime_table *t, uint64_t size) {
  if (!t->n) return 0;
  if (size <= t->size[0]) return t->us[0];
  for (size_t i = 1; i < t->n; i++)
    if (size <= t->size[i]) {
      double a = log2((double)t->size[i - 1]), b = log2((double)t->size[i]), x = log2((double)size);
      return t->us[i - 1] + (t->us[i] - t->us[i - 1]) * (x - a) / (b - a);
    }
  return t->us[t->n - 1];
}

/* n calls costed at size total / n each (0 calls: nothing). */
static double per_call(const alloctime_table *t, uint32_t n, uint64_t total) {
  return n ? n * alloctime_table_us(t, total / n ? total / n : 1) : 0;
}

/* A cudaMalloc maps at most one range (a region, a large request, a
 * segment), a cudaFree unmaps at most one, however many pages a policy
 * counts in it (the recorded policy counts 2 MiB pages). */
double alloctime_work_us(const alloctime_config *c, const alloctime_work *w) {
  if (w->vmm) return per_call(&c->vmm_map, w->maps, w->mapped) + per_call(&c->vmm_unmap, w->unmaps, w->unmapped);
  uint32_t maps = w->maps && w->mapped ? (w->maps < w->allocs ? w->maps : w->allocs) : 0;
  uint32_t unmaps = w->unmaps && w->unmapped ? (w->unmaps < w->frees ? w->unmaps : w->frees) : 0;
  return per_call(&c->malloc_map, maps, w->mapped) + (w->allocs - maps) * alloctime_table_us(&c->malloc_small, w->request) +
         per_call(&c->free_unmap, unmaps, w->unmapped) + (w->frees - unmaps) * alloctime_table_us(&c->free_small, w->request);
}

bool alloctime_work_waits(const alloctime_work *w) { return w->vmm ? w->unmaps > 0 : w->frees > 0; }

/* ---- the two timelines ------------------------------------------------------ */

typedef struct clock2 {
  double host, dev;       /* ns: the host's last call returned, the device's last kernel ends */
  double driver, wait;    /* ns in the window */
  double end;             /* ns: the window's end, once it has ended */
} clock2;

struct alloctime {
  alloctime_config c;
  unsigned n;
  clock2 rec;             /* the recording's, as the capture shows it */
  clock2 p[ALLOCTIME_MAX_POLICIES];
  char begin[64], end[64];
  bool windowed, in, began, ended, any;
  double t0;              /* the window's first record */
};

alloctime *alloctime_create(const alloctime_config *c, unsigned npolicies) {
  if (npolicies > ALLOCTIME_MAX_POLICIES) return NULL;
  alloctime *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->c = *c, a->n = npolicies;
  a->in = true; /* no window: all of it */
  return a;
}

void alloctime_destroy(alloctime *a) { free(a); }

void alloctime_window(alloctime *a, const char *begin, const char *end) {
  snprintf(a->begin, sizeof a->begin, "%s", begin);
  snprintf(a->end, sizeof a->end, "%s", end);
  a->windowed = true, a->in = false;
}

bool alloctime_window_seen(const alloctime *a, bool *ended) {
  *ended = !a->windowed || a->ended;
  return !a->windowed || a->began;
}

/* The first timed record (or the window's first) at t: every policy's
 * clocks start from the recording's, the sums from 0. */
static void start_window(alloctime *a, double t) {
  a->t0 = t, a->any = true;
  for (unsigned i = 0; i < a->n; i++) a->p[i] = (clock2){.host = a->rec.host, .dev = a->rec.dev};
}

static void end_window(alloctime *a) {
  for (unsigned i = 0; i < a->n; i++) a->p[i].end = a->p[i].host > a->p[i].dev ? a->p[i].host : a->p[i].dev;
  a->in = false, a->ended = true;
}

/* A mark's label opens or closes the window (before the record: the
 * window holds its begin mark's record and its end mark's). */
static void window_label(alloctime *a, const char *label, double t, bool before) {
  if (!a->windowed || !label) return;
  if (before && !a->began && !strcmp(label, a->begin)) {
    a->began = a->in = true;
    a->rec.host = a->rec.host > t ? a->rec.host : t;
    start_window(a, t);
  } else if (!before && a->in && a->began && !strcmp(label, a->end)) {
    end_window(a);
  }
}

static double max2(double x, double y) { return x > y ? x : y; }

void alloctime_kernel(alloctime *a, const char *label, uint64_t t_ns, uint64_t dur_ns) {
  double t = (double)t_ns, dur = (double)dur_ns, launch = a->c.launch_us * 1e3;
  window_label(a, label, t, true);
  if (!a->any && a->in) start_window(a, t);
  /* Queued behind the kernel before: the host launched it earlier, at a
   * time the recording does not show. Else it started as launched. */
  bool queued = t - a->rec.dev <= a->c.queue_us * 1e3;
  double work = max2(0, t - launch - a->rec.host), gap = queued ? max2(0, t - a->rec.dev) : 0;
  if (queued && work > a->c.hidden_us * 1e3) work = a->c.hidden_us * 1e3;
  a->rec.host += work;
  a->rec.dev = max2(a->rec.dev, t + dur);
  for (unsigned i = 0; i < a->n; i++) {
    clock2 *p = &a->p[i];
    p->host += work;
    p->dev = max2(p->host + launch, p->dev + gap) + dur;
  }
  window_label(a, label, t, false);
}

void alloctime_mark(alloctime *a, const char *label, uint64_t t_ns) {
  double t = (double)t_ns;
  window_label(a, label, t, true);
  if (!a->any && a->in) start_window(a, t);
  double work = max2(0, t - a->rec.host);
  a->rec.host += work;
  for (unsigned i = 0; i < a->n; i++) a->p[i].host += work;
  window_label(a, label, t, false);
}

/* The host's work before a call at t, as the recording shows it: an
 * allocation's t is its end (the call's own cost is in the gap), a free's
 * is after its wait (its work is hidden when it waited). */
static double recorded_work(alloctime *a, double t, bool release, const alloctime_work *rec) {
  double cost = alloctime_work_us(&a->c, rec) * 1e3, cap = a->c.capture_us * 1e3;
  if (!release) {
    double w = max2(0, t - a->rec.host - cost - cap);
    a->rec.host = t;
    return w;
  }
  bool waited = alloctime_work_waits(rec) && t - a->rec.dev <= (a->c.sync_us + a->c.queue_us) * 1e3;
  double w = waited ? max2(0, a->rec.dev - a->rec.host) : max2(0, t - a->rec.host - cap);
  if (waited && w > a->c.hidden_us * 1e3) w = a->c.hidden_us * 1e3;
  a->rec.host = t + cost;
  return w;
}

void alloctime_call(alloctime *a, bool timed, uint64_t t_ns, bool release, const alloctime_work *rec,
                    const alloctime_work *p) {
  double t = (double)t_ns;
  if (timed && !a->any && a->in) start_window(a, t);
  double work = timed ? recorded_work(a, t, release, rec) : 0;
  for (unsigned i = 0; i < a->n; i++) {
    clock2 *c = &a->p[i];
    double cost = alloctime_work_us(&a->c, &p[i]) * 1e3, at = c->host + work;
    double waited = timed && alloctime_work_waits(&p[i]) ? max2(0, c->dev + a->c.sync_us * 1e3 - at) : 0;
    c->host = at + waited + cost;
    if (a->in) c->driver += waited + cost, c->wait += waited;
  }
}

alloctime_sum alloctime_get(const alloctime *a, unsigned policy) {
  const clock2 *c = &a->p[policy];
  bool timed = a->any && (!a->windowed || a->began);
  double end = a->ended ? c->end : max2(c->host, c->dev);
  return (alloctime_sum){.timed = timed, .wall_s = timed ? (end - a->t0) / 1e9 : 0, .driver_s = c->driver / 1e9,
                         .wait_s = c->wait / 1e9};
}
