/* cap_log.c — driver events into a time-ordered native trace (cap_log.h). */
#include "cap_log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_idmap.h"
#include "tlbsim/pt.h"

/* ---- the maps (gpu_idmap) ------------------------------------------------- */

static bool map_get(const gpu_idmap *m, uint64_t k, uint64_t *v) {
  size_t i = gpu_idmap_find(m, k);
  if (i == SIZE_MAX) return false;
  *v = m->val[i];
  return true;
}

static void map_del(gpu_idmap *m, uint64_t k) {
  size_t i = gpu_idmap_find(m, k);
  if (i != SIZE_MAX) gpu_idmap_erase(m, i);
}

/* ---- the log --------------------------------------------------------------- */

typedef struct held {
  cap_event e;
  uint64_t seq; /* arrival order: ties in time keep it */
  char label[TRACE_LABEL_MAX];
} held;

struct cap_log {
  FILE *f;
  trace_writer *w;
  char *path, *part;
  uint64_t t0, last_t, seq;
  bool any_written;
  held *pending;
  size_t npending;
  gpu_idmap live;    /* address -> allocation ID */
  gpu_idmap handles; /* driver handle -> handle number */
  gpu_idmap pools;   /* pool base -> pool number */
  gpu_idmap vmm;     /* the addresses of allocations left out (inside a reservation) */
  uint64_t rsv_va[CAP_RESERVED_MAX], rsv_size[CAP_RESERVED_MAX];
  size_t nrsv;
  uint64_t next_id, next_handle, next_pool;
  cap_counts counts;
};

void cap_label(const char *name, char out[TRACE_LABEL_MAX]) {
  size_t n = 0;
  for (; name && name[n] && n < TRACE_LABEL_MAX - 1; n++) {
    unsigned char c = (unsigned char)name[n];
    out[n] = c < 0x21 || c > 0x7e || c == '=' || (n == 0 && c == '#') ? '_' : (char)c;
  }
  if (!n) out[n++] = '?';
  out[n] = '\0';
}

cap_log *cap_log_open(const char *path, uint64_t t0, diag *d) {
  if (!access(path, F_OK)) {
    diag_set(d, path, 0, "exists: a capture does not overwrite a file (remove it first)");
    return NULL;
  }
  cap_log *l = calloc(1, sizeof *l);
  size_t n = strlen(path);
  if (l) l->path = strdup(path), l->part = malloc(n + 6), l->pending = malloc(CAP_PENDING_MAX * sizeof *l->pending);
  if (!l || !l->path || !l->part || !l->pending) {
    diag_set(d, path, 0, "out of memory");
    goto fail;
  }
  snprintf(l->part, n + 6, "%s.part", path);
  l->t0 = t0;
  l->next_id = l->next_handle = l->next_pool = 1;
  if (!(l->f = fopen(l->part, "w"))) {
    diag_set(d, l->part, 0, "cannot create");
    goto fail;
  }
  if (!(l->w = trace_writer_open(l->f, path, TRACE_NATIVE, TRACE_PLAIN, d))) goto fail;
  return l;
fail:
  cap_log_abandon(l);
  return NULL;
}

static int write_oldest(cap_log *l, size_t n, diag *d);

int cap_log_add(cap_log *l, const cap_event *e, diag *d) {
  if (l->npending == CAP_PENDING_MAX && write_oldest(l, CAP_PENDING_MAX / 2, d)) return -1;
  held *h = &l->pending[l->npending++];
  h->e = *e;
  h->seq = l->seq++;
  if (e->kind == CAP_KERNEL) cap_label(e->name, h->label);
  h->e.name = NULL;
  if (l->npending > l->counts.pending_peak) l->counts.pending_peak = l->npending;
  return 0;
}

bool cap_rate_due(cap_rate *r, uint64_t t, uint64_t gap) {
  uint64_t next = atomic_load(&r->next);
  return t >= next && atomic_compare_exchange_strong(&r->next, &next, t + gap);
}

static int by_time(const void *a, const void *b) {
  const held *x = a, *y = b;
  if (x->e.t_ns != y->e.t_ns) return x->e.t_ns < y->e.t_ns ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The record's time, device and duration (kinds that take dur= only). */
static void stamp(const cap_log *l, const cap_event *e, uint64_t t, trace_record *r) {
  r->cap.attrs |= TRACE_HAS_TIME | TRACE_HAS_DEV;
  r->cap.time_ns = t > l->t0 ? t - l->t0 : 0;
  r->cap.device = e->device;
  if (e->dur_ns && r->kind != REC_POOL && r->kind != REC_MEMINFO) {
    r->cap.attrs |= TRACE_HAS_DUR;
    r->cap.dur_ns = e->dur_ns;
  }
}

static int put(cap_log *l, trace_record *r, diag *d) {
  r->line = ++l->counts.records;
  return trace_write(l->w, r, l->path, d);
}

static int out_of_memory(const cap_log *l, diag *d) { return diag_set(d, l->path, 0, "out of memory"); }

/* The pool numbered for base, created (a `pool create`) when first seen. */
static int pool_number(cap_log *l, const cap_event *e, uint64_t t, uint64_t base, uint64_t *id, diag *d) {
  if (map_get(&l->pools, base, id)) return 0;
  *id = l->next_pool++;
  if (gpu_idmap_put(&l->pools, base, *id)) return out_of_memory(l, d);
  trace_record r = {.kind = REC_POOL, .cap = {.pool = *id, .op = TRACE_POOL_CREATE, .va = base}};
  r.cap.attrs = base ? TRACE_HAS_VA : 0;
  stamp(l, e, t, &r);
  return put(l, &r, d);
}

static int free_id(cap_log *l, const cap_event *e, uint64_t t, uint64_t id, diag *d) {
  trace_record r = {.kind = REC_FREE, .alloc_id = id};
  stamp(l, e, t, &r);
  r.cap.attrs &= ~(uint64_t)TRACE_HAS_DUR; /* the duration was the new allocation's */
  return put(l, &r, d);
}

static bool reserved(const cap_log *l, uint64_t va) {
  for (size_t i = 0; i < l->nrsv; i++)
    if (va >= l->rsv_va[i] && va - l->rsv_va[i] < l->rsv_size[i]) return true;
  return false;
}

static void track_reservation(cap_log *l, const cap_event *e) {
  if (e->kind == CAP_RESERVE && l->nrsv < CAP_RESERVED_MAX) {
    l->rsv_va[l->nrsv] = e->va, l->rsv_size[l->nrsv++] = e->size;
    return;
  }
  for (size_t i = 0; e->kind == CAP_UNRESERVE && i < l->nrsv; i++)
    if (l->rsv_va[i] == e->va) {
      l->rsv_va[i] = l->rsv_va[--l->nrsv], l->rsv_size[i] = l->rsv_size[l->nrsv];
      return;
    }
}

static int write_alloc(cap_log *l, const cap_event *e, uint64_t t, diag *d) {
  uint64_t old, pool = 0;
  if (reserved(l, e->va)) {
    l->counts.vmm_allocs++;
    return gpu_idmap_put(&l->vmm, e->va, 1) ? out_of_memory(l, d) : 0;
  }
  if (map_get(&l->live, e->va, &old)) {
    l->counts.replaced++;
    if (free_id(l, e, t, old, d)) return -1;
  }
  if (e->pool && pool_number(l, e, t, e->pool, &pool, d)) return -1;
  uint64_t id = l->next_id++;
  if (gpu_idmap_put(&l->live, e->va, id)) return out_of_memory(l, d);
  trace_record r = {.kind = REC_ALLOC, .alloc_id = id, .size = e->size, .stream = e->stream,
                    .cap = {.attrs = TRACE_HAS_VA, .va = e->va, .mem = e->mem}};
  if (pool) r.cap.attrs |= TRACE_HAS_POOL, r.cap.pool = pool;
  stamp(l, e, t, &r);
  return put(l, &r, d);
}

/* The number the map gave key, forgotten; false (counted) for none. */
static bool take(cap_log *l, gpu_idmap *m, uint64_t key, uint64_t *id) {
  if (!map_get(m, key, id)) {
    l->counts.unknown_frees++;
    return false;
  }
  map_del(m, key);
  return true;
}

static int write_pool(cap_log *l, const cap_event *e, uint64_t t, diag *d) {
  uint64_t id;
  if (e->op == TRACE_POOL_CREATE) {
    if (map_get(&l->pools, e->pool, &id)) return 0; /* seen already (an allocation from it came first) */
    return pool_number(l, e, t, e->pool, &id, d);
  }
  if (e->op == TRACE_POOL_DESTROY) {
    if (!take(l, &l->pools, e->pool, &id)) return 0;
  } else if (pool_number(l, e, t, e->pool, &id, d)) { /* a trim */
    return -1;
  }
  trace_record r = {.kind = REC_POOL, .cap = {.pool = id, .op = e->op}};
  if (e->op == TRACE_POOL_TRIM) r.cap.attrs = TRACE_HAS_KEEP, r.size = e->size;
  stamp(l, e, t, &r);
  return put(l, &r, d);
}

/* The record a VMM, managed-memory, sample or kernel event is. */
static int write_other(cap_log *l, const held *h, uint64_t t, diag *d) {
  const cap_event *e = &h->e;
  trace_record r = {.addr = e->va, .size = e->size};
  uint64_t id;
  switch (e->kind) {
  case CAP_RESERVE:
    r.kind = REC_RESERVE;
    r.align = is_pow2(e->align) ? e->align : 0;
    break;
  case CAP_UNRESERVE: r.kind = REC_UNRESERVE; break;
  case CAP_HANDLE:
    r.kind = REC_HANDLE;
    r.cap.handle = l->next_handle++;
    if (gpu_idmap_put(&l->handles, e->handle, r.cap.handle)) return out_of_memory(l, d);
    break;
  case CAP_RELEASE:
    if (!take(l, &l->handles, e->handle, &id)) return 0;
    r.kind = REC_RELEASE, r.cap.handle = id;
    break;
  case CAP_MAP:
    r.kind = REC_MAP;
    if (map_get(&l->handles, e->handle, &id))
      r.cap.attrs = TRACE_HAS_HANDLE | TRACE_HAS_OFFSET, r.cap.handle = id, r.cap.offset = e->offset;
    break;
  case CAP_UNMAP: r.kind = REC_UNMAP; break;
  case CAP_PROTECT: r.kind = REC_PROTECT, r.prot = e->prot; break;
  case CAP_PREFETCH:
    r.kind = REC_PREFETCH, r.cap.op = e->op;
    if (e->stream) r.cap.attrs = TRACE_HAS_STREAM, r.stream = e->stream;
    break;
  case CAP_ADVISE: r.kind = REC_ADVISE, r.cap.op = e->op; break;
  case CAP_MEMINFO:
    if (!e->total || e->size > e->total) return 0; /* not a sample the driver gives */
    r.kind = REC_MEMINFO, r.cap.total = e->total;
    break;
  case CAP_KERNEL:
    r = (trace_record){.kind = REC_MARK, .stream = e->stream, .cap.attrs = TRACE_HAS_GRID | TRACE_HAS_BLOCK | TRACE_HAS_STREAM};
    memcpy(r.label, h->label, sizeof r.label);
    for (int i = 0; i < 3; i++) {
      r.cap.grid[i] = e->grid[i] ? e->grid[i] : 1;
      r.cap.block[i] = e->block[i] ? e->block[i] : 1;
    }
    break;
  default: return diag_set(d, l->path, 0, "an event of an unknown kind");
  }
  bool sized = r.kind == REC_MARK || r.kind == REC_RELEASE || r.kind == REC_MEMINFO;
  if (!sized && (!r.size || r.addr + (r.size - 1) < r.addr)) return 0; /* the driver refused such a call */
  stamp(l, e, t, &r);
  return put(l, &r, d);
}

static int write_one(cap_log *l, const held *h, diag *d) {
  uint64_t t = h->e.t_ns;
  if (l->any_written && t < l->last_t) {
    l->counts.late++;
    t = l->last_t;
  }
  l->any_written = true;
  l->last_t = t;
  const cap_event *e = &h->e;
  uint64_t id;
  switch (e->kind) {
  case CAP_ALLOC: return e->size ? write_alloc(l, e, t, d) : 0;
  case CAP_FREE:
    if (map_get(&l->vmm, e->va, &id)) {
      map_del(&l->vmm, e->va);
      return 0;
    }
    return take(l, &l->live, e->va, &id) ? free_id(l, e, t, id, d) : 0;
  case CAP_POOL: return write_pool(l, e, t, d);
  default: track_reservation(l, e); return write_other(l, h, t, d);
  }
}

/* The n oldest events held written, in time order; the rest kept. */
static int write_oldest(cap_log *l, size_t n, diag *d) {
  qsort(l->pending, l->npending, sizeof *l->pending, by_time);
  if (n > l->npending) n = l->npending;
  for (size_t i = 0; i < n; i++)
    if (write_one(l, &l->pending[i], d)) return -1;
  memmove(l->pending, l->pending + n, (l->npending - n) * sizeof *l->pending);
  l->npending -= n;
  return 0;
}

int cap_log_flush(cap_log *l, diag *d) { return write_oldest(l, l->npending, d); }

const cap_counts *cap_log_counts(const cap_log *l) { return &l->counts; }

void cap_log_abandon(cap_log *l) {
  if (!l) return;
  if (l->w) trace_writer_free(l->w);
  if (l->f) {
    fclose(l->f);
    remove(l->part);
  }
  gpu_idmap_free(&l->live), gpu_idmap_free(&l->handles), gpu_idmap_free(&l->pools), gpu_idmap_free(&l->vmm);
  free(l->pending), free(l->path), free(l->part), free(l);
}

int cap_log_close(cap_log *l, cap_counts *c, diag *d) {
  int rc = cap_log_flush(l, d);
  if (c) *c = l->counts;
  if (!rc) {
    rc = trace_writer_finish(l->w, d);
    l->w = NULL;
  }
  if (!rc) {
    int bad = fclose(l->f);
    l->f = NULL;
    if (bad) rc = diag_set(d, l->part, 0, "cannot write");
  }
  if (!rc && rename(l->part, l->path)) rc = diag_set(d, l->path, 0, "cannot rename %s into place", l->part);
  if (rc) remove(l->part);
  cap_log_abandon(l);
  return rc;
}
