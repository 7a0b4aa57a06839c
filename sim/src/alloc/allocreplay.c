/* Allocation requests through several allocator policies in lockstep:
 * per policy a heap and, by dense trace id, where it put each allocation. */
#include "tlbsim/allocreplay.h"

#include <stdlib.h>
#include <string.h>

#include "tlbsim/num.h"

#define FAILED_VA UINT64_MAX /* the allocation hit OOM in this policy */

/* The regions tlbsim-gpu counts: a 2 MiB page, and the 32 MiB one entry
 * of the H200's TLB covers with 2 MiB pages (gpu/README.md). */
#define SHIFT_2M 21
#define SHIFT_32M 25

typedef struct policy_heap {
  vas *heap;
  uint64_t *va;    /* by id; FAILED_VA when this policy could not serve it */
  uint64_t *block; /* by id: the bytes the policy set aside (its allocated bytes grew by them) */
  allocreplay_oom oom;
  uint64_t requested, requested_peak; /* bytes of the requests it served that are live; their most */
} policy_heap;

struct allocreplay {
  alloctrace *t;
  policy_heap p[ALLOCREPLAY_MAX_POLICIES];
  unsigned n;
  alloctime *time;      /* allocreplay_time: the driver-time model, else NULL */
  policy_heap rec;      /* with it: the recording's own calls, each a cudaMalloc/cudaFree (the cuda model's) */
  bool vmm[ALLOCREPLAY_MAX_POLICIES]; /* the policy maps with the VMM calls */
  uint64_t ids;         /* entries of the arrays by id */
  uint64_t *size;       /* by id: bytes requested */
  uint64_t *order;      /* by id: 1 + its place among all allocations while live, else 0 */
  uint64_t *name;       /* by id: the input's name for it */
  uint64_t allocations; /* so far */
  allocreplay_sum sum;
};

int allocreplay_config(vas_config *vc, const alloctrace *t, uint64_t capacity, const char *const *params,
                       size_t nparams, const char *what, diag *d) {
  const alloctrace_info *info = alloctrace_get_info(t);
  *vc = (vas_config){.phys_capacity = capacity};
  if (!capacity && info->device_total > VAS_MAX_CAPACITY) {
    char range[64];
    return diag_set(d, alloctrace_path(t), 0, "capture.device_total_memory: '%llu' is out of range (%s)",
                    (unsigned long long)info->device_total,
                    num_range_text(NUM_SIZE, 1, VAS_MAX_CAPACITY, range, sizeof range));
  }
  if (!capacity) vc->phys_capacity = info->device_total;
  /* Replaying a snapshot: the allocator settings it was recorded with. */
  vc->max_split_size = info->max_split_size;
  for (size_t i = 0; i < nparams; i++) {
    char key[64];
    const char *eq = strchr(params[i], '='), *name = params[i];
    if (!eq) return diag_set(d, what, i + 1, "'%s' is not KEY=VALUE", params[i]);
    if (!strncmp(name, "vas.", 4)) name += 4; /* the configuration's spelling works too */
    size_t n = (size_t)(eq - name);
    if (n >= sizeof key) return diag_set(d, what, i + 1, "key too long");
    memcpy(key, name, n);
    key[n] = '\0';
    diag why;
    if (vas_config_set(vc, key, eq + 1, &why)) return diag_set(d, what, i + 1, "%s", why.msg);
  }
  return 0;
}

allocreplay *allocreplay_create(alloctrace *t, const char *const *policies, unsigned npolicies,
                                const vas_config *vc, diag *d) {
  if (!npolicies || npolicies > ALLOCREPLAY_MAX_POLICIES)
    return diag_set(d, NULL, 0, "%u policies: from 1 to %d", npolicies, ALLOCREPLAY_MAX_POLICIES), NULL;
  allocreplay *r = calloc(1, sizeof *r);
  if (!r) return diag_set(d, NULL, 0, "out of host memory"), NULL;
  r->t = t;
  for (; r->n < npolicies; r->n++)
    if (!(r->p[r->n].heap = vas_create(policies[r->n], vc, NULL, d))) {
      allocreplay_destroy(r);
      return NULL;
    }
  return r;
}

int allocreplay_time(allocreplay *r, const alloctime_config *c, const char *begin, const char *end, diag *d) {
  vas_config vc = *vas_get_config(r->p[0].heap);
  vc.phys_capacity = VAS_MAX_CAPACITY; /* the recording's calls all succeeded */
  if (!(r->time = alloctime_create(c, r->n)) || !(r->rec.heap = vas_create("cuda", &vc, NULL, d)))
    return diag_set(d, NULL, 0, "out of host memory");
  if (begin && end) alloctime_window(r->time, begin, end);
  for (unsigned i = 0; i < r->n; i++) r->vmm[i] = !strcmp(vas_policy_name(r->p[i].heap), "expandable");
  alloctrace_want_marks(r->t);
  return 0;
}

static void heap_free(policy_heap *p) {
  vas_destroy(p->heap);
  free(p->va);
  free(p->block);
}

void allocreplay_destroy(allocreplay *r) {
  if (!r) return;
  for (unsigned i = 0; i < r->n; i++) heap_free(&r->p[i]);
  if (r->rec.heap) heap_free(&r->rec);
  alloctime_destroy(r->time);
  free(r->size);
  free(r->order);
  free(r->name);
  free(r);
}

/* "FILE:LINE: msg" for line formats, "FILE: event N: msg" for the others. */
static int event_error(const allocreplay *r, const alloctrace_event *ev, const char *msg, diag *d) {
  alloctrace_format f = alloctrace_get_info(r->t)->format;
  if (f == ALLOCTRACE_RMM || f == ALLOCTRACE_NATIVE) return diag_set(d, alloctrace_path(r->t), ev->index, "%s", msg);
  return diag_set(d, alloctrace_path(r->t), 0, "event %llu: %s", (unsigned long long)ev->index, msg);
}

static int grow(uint64_t **a, uint64_t n) {
  uint64_t *grown = realloc(*a, n * sizeof *grown);
  if (!grown) return -1;
  *a = grown;
  return 0;
}

/* Every array by id holds the trace's ids so far. */
static int grow_ids(allocreplay *r) {
  uint64_t need = alloctrace_id_limit(r->t), cap = r->ids ? r->ids : 1024;
  if (need <= r->ids) return 0;
  while (cap < need) cap *= 2;
  for (unsigned i = 0; i < r->n; i++)
    if (grow(&r->p[i].va, cap) || grow(&r->p[i].block, cap)) return -1;
  if (r->rec.heap && (grow(&r->rec.va, cap) || grow(&r->rec.block, cap))) return -1;
  if (grow(&r->size, cap) || grow(&r->order, cap) || grow(&r->name, cap)) return -1;
  r->ids = cap;
  return 0;
}

static int alloc_one(allocreplay *r, policy_heap *p, const alloctrace_event *ev, diag *d) {
  diag why;
  uint64_t before = vas_get_stats(p->heap)->allocated_bytes;
  int rc = vas_alloc_at(p->heap, ev->size, ev->align, ev->stream, ev->va, &p->va[ev->id], &why);
  if (rc == VAS_ERR) return event_error(r, ev, why.msg, d);
  if (rc == VAS_OK) {
    p->block[ev->id] = vas_get_stats(p->heap)->allocated_bytes - before;
    p->requested += ev->size;
    if (p->requested > p->requested_peak) p->requested_peak = p->requested;
    return 0;
  }
  p->va[ev->id] = FAILED_VA;
  if (p->oom.any) return 0;
  const vas_stats *s = vas_get_stats(p->heap);
  p->oom = (allocreplay_oom){.any = true, .event = ev->index, .request = ev->size, .free_bytes = s->free_bytes,
                             .largest = s->largest_free_extent, .range = s->largest_free_range,
                             .reason = s->last_oom_reason};
  return 0;
}

/* What heap p did since *before: its driver calls and mappings. */
static alloctime_work work_of(const vas_stats *before, const vas *heap, uint64_t request, bool vmm) {
  const vas_stats *s = vas_get_stats(heap);
  alloctime_work w = {.request = request, .vmm = vmm, .allocs = (uint32_t)(s->driver_allocs - before->driver_allocs),
                      .frees = (uint32_t)(s->driver_frees - before->driver_frees),
                      .maps = (uint32_t)(s->maps - before->maps), .unmaps = (uint32_t)(s->unmaps - before->unmaps)};
  if (s->reserved_bytes > before->reserved_bytes) w.mapped = s->reserved_bytes - before->reserved_bytes;
  else w.unmapped = before->reserved_bytes - s->reserved_bytes;
  return w;
}

static int free_one(const allocreplay *r, policy_heap *p, const alloctrace_event *ev, diag *d) {
  diag why;
  if (p->va[ev->id] == FAILED_VA) return 0; /* it never held it */
  if (vas_free(p->heap, p->va[ev->id], &why) != VAS_OK) return event_error(r, ev, why.msg, d);
  p->requested -= r->size[ev->id];
  return 0;
}

/* The recording's own call for ev, in the cuda model: what it costs is
 * all the driver-time model asks of it, so a request the model refuses
 * (an alignment it has no rule for) costs nothing. */
static void recorded_call(allocreplay *r, const alloctrace_event *ev) {
  policy_heap *p = &r->rec;
  diag why;
  if (ev->kind == AT_ALLOC && vas_alloc_at(p->heap, ev->size, ev->align, ev->stream, 0, &p->va[ev->id], &why) != VAS_OK)
    p->va[ev->id] = FAILED_VA;
  if (ev->kind == AT_FREE && p->va[ev->id] != FAILED_VA) vas_free(p->heap, p->va[ev->id], &why);
}

/* One request or free through every heap (and the recording's, timed). */
static int apply_request(allocreplay *r, const alloctrace_event *ev, diag *d) {
  bool alloc = ev->kind == AT_ALLOC;
  vas_stats before[ALLOCREPLAY_MAX_POLICIES], rec_before = {0};
  if (r->time) {
    for (unsigned i = 0; i < r->n; i++) before[i] = *vas_get_stats(r->p[i].heap);
    rec_before = *vas_get_stats(r->rec.heap);
  }
  if (alloc) {
    r->size[ev->id] = ev->size;
    r->order[ev->id] = ++r->allocations;
    r->name[ev->id] = ev->name;
  } else {
    r->order[ev->id] = 0;
  }
  for (unsigned i = 0; i < r->n; i++)
    if (alloc ? alloc_one(r, &r->p[i], ev, d) : free_one(r, &r->p[i], ev, d)) return -1;
  if (!r->time) return 0;
  recorded_call(r, ev);
  alloctime_work w[ALLOCREPLAY_MAX_POLICIES];
  uint64_t request = r->size[ev->id];
  for (unsigned i = 0; i < r->n; i++) w[i] = work_of(&before[i], r->p[i].heap, request, r->vmm[i]);
  alloctime_work rec = work_of(&rec_before, r->rec.heap, request, false);
  alloctime_call(r->time, ev->timed, ev->time_ns, !alloc, &rec, w);
  return 0;
}

static void meminfo(allocreplay *r, const alloctrace_event *ev) {
  allocreplay_sum *s = &r->sum;
  if (!s->meminfo_samples || ev->size < s->driver_free_min) s->driver_free_min = ev->size;
  s->driver_total = ev->total;
  s->meminfo_samples++;
}

static int apply(allocreplay *r, const alloctrace_event *ev, diag *d) {
  if (ev->kind == AT_SEGMENT) {
    uint64_t *rec = &r->sum.recorded_reserved;
    *rec = ev->release ? *rec - (ev->size < *rec ? ev->size : *rec) : *rec + ev->size;
    return 0;
  }
  if (ev->kind == AT_MEMINFO) return meminfo(r, ev), 0;
  if (ev->kind == AT_MARK) {
    if (r->time && ev->timed && ev->kernel) alloctime_kernel(r->time, ev->label, ev->time_ns, ev->dur_ns);
    else if (r->time && ev->timed) alloctime_mark(r->time, ev->label, ev->time_ns);
    return 0;
  }
  if (ev->kind == AT_OOM) return 0;
  if (grow_ids(r)) return event_error(r, ev, "out of host memory", d);
  return apply_request(r, ev, d);
}

int allocreplay_next(allocreplay *r, alloctrace_event *ev, diag *d) {
  int got = alloctrace_next(r->t, ev, d);
  return got == 1 && apply(r, ev, d) ? -1 : got;
}

const alloctrace *allocreplay_trace(const allocreplay *r) { return r->t; }
unsigned allocreplay_count(const allocreplay *r) { return r->n; }
const vas *allocreplay_heap(const allocreplay *r, unsigned policy) { return r->p[policy].heap; }
const allocreplay_oom *allocreplay_first_oom(const allocreplay *r, unsigned policy) { return &r->p[policy].oom; }
const allocreplay_sum *allocreplay_get_sum(const allocreplay *r) { return &r->sum; }

bool allocreplay_timing(const allocreplay *r, unsigned policy, alloctime_sum *out) {
  if (!r->time) return false;
  *out = alloctime_get(r->time, policy);
  return true;
}

bool allocreplay_window_seen(const allocreplay *r, bool *ended) {
  *ended = true;
  return !r->time || alloctime_window_seen(r->time, ended);
}

uint64_t allocreplay_requested(const allocreplay *r, unsigned policy, uint64_t *peak) {
  if (peak) *peak = r->p[policy].requested_peak;
  return r->p[policy].requested;
}
uint64_t allocreplay_size(const allocreplay *r, uint64_t id) { return r->size[id]; }
bool allocreplay_served(const allocreplay *r, unsigned policy, uint64_t id) { return r->p[policy].va[id] != FAILED_VA; }
uint64_t allocreplay_va(const allocreplay *r, unsigned policy, uint64_t id) { return r->p[policy].va[id]; }

/* Every id the arrays hold (none before the first request). */
static uint64_t id_end(const allocreplay *r) {
  uint64_t limit = alloctrace_id_limit(r->t);
  return limit < r->ids ? limit : r->ids;
}

/* Room for as many buffers as ids are live now (*live). */
static allocreplay_buf *live_room(const allocreplay *r, size_t *live) {
  *live = 0;
  for (uint64_t id = 0; id < id_end(r); id++) *live += r->order[id] != 0;
  return malloc((*live ? *live : 1) * sizeof(allocreplay_buf));
}

allocreplay_buf *allocreplay_blocks(const allocreplay *r, unsigned policy, size_t *n) {
  size_t live;
  allocreplay_buf *b = live_room(r, &live);
  if (!b) return NULL;
  const policy_heap *p = &r->p[policy];
  *n = 0;
  for (uint64_t id = 0; id < id_end(r); id++)
    if (r->order[id] && p->va[id] != FAILED_VA) b[(*n)++] = (allocreplay_buf){p->va[id], p->block[id], r->name[id]};
  return b;
}

typedef struct ranked {
  uint64_t order, id;
} ranked;

static int by_order(const void *a, const void *b) {
  uint64_t x = ((const ranked *)a)->order, y = ((const ranked *)b)->order;
  return (x > y) - (x < y);
}

allocreplay_buf *allocreplay_buffers(const allocreplay *r, unsigned policy, size_t *n) {
  size_t live;
  allocreplay_buf *b = live_room(r, &live);
  ranked *rank = malloc((live ? live : 1) * sizeof *rank);
  if (!b || !rank) {
    free(b);
    free(rank);
    return NULL;
  }
  size_t k = 0;
  for (uint64_t id = 0; id < id_end(r); id++)
    if (r->order[id]) rank[k++] = (ranked){r->order[id], id};
  qsort(rank, live, sizeof *rank, by_order);
  const policy_heap *p = &r->p[policy];
  *n = 0;
  for (size_t j = 0; j < live; j++) {
    uint64_t id = rank[j].id;
    if (p->va[id] != FAILED_VA) b[(*n)++] = (allocreplay_buf){p->va[id], r->size[id], r->name[id]};
  }
  free(rank);
  return b;
}

static int by_va(const void *a, const void *b) {
  uint64_t x = ((const allocreplay_buf *)a)->va, y = ((const allocreplay_buf *)b)->va;
  return (x > y) - (x < y);
}

/* Distinct 2^shift regions of buffers sorted by address: the ranges they
 * cover only move upwards, so each adds the regions past the last one. */
static uint64_t regions(const allocreplay_buf *b, size_t n, unsigned shift) {
  uint64_t count = 0, last = 0;
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    if (!b[i].size) continue;
    uint64_t lo = b[i].va >> shift, hi = (b[i].va + b[i].size - 1) >> shift;
    if (any && lo <= last) lo = last + 1;
    if (any && hi <= last) continue;
    count += hi - lo + 1;
    last = hi;
    any = true;
  }
  return count;
}

void allocreplay_measure(allocreplay_buf *b, size_t n, allocreplay_live *out) {
  *out = (allocreplay_live){.buffers = n};
  if (!n) return;
  qsort(b, n, sizeof *b, by_va);
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++)
    if (b[i].va + b[i].size > end) end = b[i].va + b[i].size;
  out->va_span = end - b[0].va;
  out->regions_2m = regions(b, n, SHIFT_2M);
  out->regions_32m = regions(b, n, SHIFT_32M);
}
