/* An allocation history's live set as the GPU suite's kernels see it (see
 * tlbsim/layout.h). */
#include "tlbsim/layout.h"

#include <stdlib.h>
#include <string.h>

#include "tlbsim/gpu_chain.h"

#define LINE 128u             /* the kernels load each buffer's first 128-byte line */
#define POOL_ALIGN 512u       /* tlbsim-gpu carves the pool in 512-byte steps (pool_align) */
#define CHASE_PASSES 3u       /* tlbsim-gpu's churn and smallbufs chase */
#define CHASE_STEPS 4096u
#define CHASE_WARMUP 1024u

const char *const layout_case_names[] = {[LAYOUT_CHURNED] = "churned", [LAYOUT_FRESH] = "fresh",
                                         [LAYOUT_POOL] = "pool", NULL};

static int apply_alloc(machine *m, uint64_t id, uint64_t size, const char *file, diag *d) {
  trace_record r = {.kind = REC_ALLOC, .alloc_id = id, .size = size, .line = 0};
  return machine_apply(m, &r, file, d);
}

/* Replays the trace's records through m. */
static int replay(machine *m, const char *path, diag *d) {
  trace_reader *r = trace_open(path, TRACE_NATIVE, d);
  int rc = r ? machine_replay(m, r, NULL, NULL, d) : -1;
  trace_close(r);
  return rc;
}

/* The live set's allocations, in order (caller frees). */
static machine_alloc *live_set(const machine *m, size_t *n, diag *d) {
  *n = machine_live_allocs(m, NULL, 0);
  machine_alloc *a = malloc((*n ? *n : 1) * sizeof *a);
  if (!a) return diag_set(d, NULL, 0, "out of memory"), NULL;
  machine_live_allocs(m, a, *n);
  return a;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Distinct regions of 2^shift bytes that the ranges [va, va + len) touch. */
static uint64_t distinct_regions(const machine_alloc *a, size_t n, uint64_t len_cap, unsigned shift) {
  size_t cap = 0, k = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t len = len_cap < a[i].size ? len_cap : a[i].size;
    cap += (size_t)(((a[i].va + len - 1) >> shift) - (a[i].va >> shift) + 1);
  }
  uint64_t *r = malloc((cap ? cap : 1) * sizeof *r);
  if (!r) return 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t len = len_cap < a[i].size ? len_cap : a[i].size;
    for (uint64_t x = a[i].va >> shift; x <= (a[i].va + len - 1) >> shift; x++) r[k++] = x;
  }
  qsort(r, k, sizeof *r, cmp_u64);
  uint64_t distinct = 0;
  for (size_t i = 0; i < k; i++) distinct += i == 0 || r[i] != r[i - 1];
  free(r);
  return distinct;
}

/* -1 when host memory ran out. */
static int measure_regions(const machine_alloc *a, size_t n, layout_regions *out) {
  uint64_t lo = UINT64_MAX, hi = 0;
  *out = (layout_regions){.buffers = n};
  for (size_t i = 0; i < n; i++) {
    out->live_bytes += a[i].size;
    if (a[i].va < lo) lo = a[i].va;
    if (a[i].va + a[i].size > hi) hi = a[i].va + a[i].size;
  }
  out->va_span = n ? hi - lo : 0;
  out->regions_2m = distinct_regions(a, n, UINT64_MAX, 21);
  out->regions_32m = distinct_regions(a, n, UINT64_MAX, 25);
  out->line_regions_2m = distinct_regions(a, n, LINE, 21);
  out->line_regions_32m = distinct_regions(a, n, LINE, 25);
  return out->regions_2m && out->regions_32m && out->line_regions_2m && out->line_regions_32m ? 0 : -1;
}

/* Allocates the sizes in order on a fresh machine of spec. */
static machine *allocate_in_order(const machine_spec *spec, const machine_alloc *a, size_t n, const char *file,
                                  diag *d) {
  machine *m = machine_create(spec, d);
  for (size_t i = 0; m && i < n; i++)
    if (apply_alloc(m, a[i].id, a[i].size, file, d)) {
      machine_destroy(m);
      return NULL;
    }
  return m;
}

/* The requests of a count x size source, as a live set of ids 1.. in order. */
static machine_alloc *requests(const layout_source *src, size_t *n, diag *d) {
  *n = (size_t)src->count;
  machine_alloc *a = malloc((*n ? *n : 1) * sizeof *a);
  if (!a) return diag_set(d, NULL, 0, "out of memory"), NULL;
  for (size_t i = 0; i < *n; i++) a[i] = (machine_alloc){.id = i + 1, .size = src->size, .seq = i};
  return a;
}

/* The pool: one allocation of the sizes rounded to POOL_ALIGN, carved in
 * order; the buffers' addresses become theirs. */
static int carve(machine *m, machine_alloc *a, size_t n, const char *file, diag *d) {
  uint64_t total = 0, id = 0;
  for (size_t i = 0; i < n; i++) {
    total += (a[i].size + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
    id = a[i].id > id ? a[i].id : id;
  }
  machine_alloc pool;
  if (apply_alloc(m, id + 1, total, file, d)) return -1;
  if (machine_alloc_find(m, id + 1, &pool))
    return diag_set(d, file, 0, "a pool of %llu bytes found no memory", (unsigned long long)total);
  for (size_t i = 0, off = 0; i < n; i++) {
    a[i].va = pool.va + off;
    off += (a[i].size + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
  }
  return 0;
}

int layout_build(const machine_spec *spec, const layout_source *src, layout_case c, layout *out, diag *d) {
  *out = (layout){0};
  const char *file = src->trace ? src->trace : "<requests>";
  size_t n = 0;
  machine_alloc *live = NULL;
  machine *m = NULL;
  if (src->trace) { /* the history, through the spec's own policy */
    if (!(m = machine_create(spec, d)) || replay(m, src->trace, d) || !(live = live_set(m, &n, d))) goto fail;
  } else if (!(live = requests(src, &n, d))) {
    goto fail;
  }
  if (n == 0) {
    diag_set(d, file, 0, "no allocation is alive %s: no buffers to measure",
             src->trace ? "at the end of the trace" : "(0 requests)");
    goto fail;
  }
  if (c == LAYOUT_FRESH || (c == LAYOUT_CHURNED && !src->trace)) {
    machine_destroy(m);
    if (!(m = allocate_in_order(spec, live, n, file, d))) goto fail;
    free(live);
    if (!(live = live_set(m, &n, d))) goto fail;
  } else if (c == LAYOUT_POOL) {
    machine_destroy(m);
    if (!(m = machine_create(spec, d)) || carve(m, live, n, file, d)) goto fail;
  }
  if (n == 0 || n > UINT32_MAX) { /* 0: every allocation of the fresh replay found no memory */
    diag_set(d, file, 0, "%zu buffers alive at the end: nothing to measure", n);
    goto fail;
  }
  uint64_t table_id = 1; /* past every id, and the pool's (one more than the live ids) */
  for (size_t i = 0; i < n; i++) table_id = live[i].id + 1 > table_id ? live[i].id + 1 : table_id;
  machine_alloc table;
  if (apply_alloc(m, table_id + 1, 4 * (uint64_t)n, file, d)) goto fail;
  if (machine_alloc_find(m, table_id + 1, &table)) {
    diag_set(d, file, 0, "the table of %zu offsets found no memory", n);
    goto fail;
  }
  if (!(out->node_va = malloc(n * sizeof *out->node_va))) {
    diag_set(d, NULL, 0, "out of memory");
    goto fail;
  }
  for (size_t i = 0; i < n; i++) out->node_va[i] = live[i].va;
  out->nodes = (uint32_t)n;
  out->offsets_va = table.va;
  out->m = m;
  out->buf = live;
  return 0;
fail:
  free(live);
  machine_destroy(m);
  free(out->node_va);
  out->node_va = NULL;
  return -1;
}

void layout_free(layout *l) {
  machine_destroy(l->m);
  free(l->buf);
  free(l->node_va);
  *l = (layout){0};
}

int layout_regions_of(const layout *l, uint32_t n, layout_regions *out) {
  return measure_regions(l->buf, n < l->nodes ? n : l->nodes, out);
}

int layout_chase(const machine_spec *spec, const layout *l, uint32_t n, uint64_t seed, chase_result *out, diag *d) {
  if (n > l->nodes || !n) return diag_set(d, NULL, 0, "chase: %u of %u buffers", n, l->nodes);
  uint32_t *perm = malloc(n * sizeof *perm);
  uint64_t *va = malloc(n * sizeof *va);
  int rc = -1;
  if (!perm || !va) {
    diag_set(d, NULL, 0, "out of memory");
  } else {
    gpu_permute(perm, n, seed);
    for (uint32_t k = 0; k < n; k++) va[k] = l->node_va[perm[k]];
    uint64_t warmup = 2ull * n > CHASE_WARMUP ? 2ull * n : CHASE_WARMUP;
    uint64_t steps = (uint64_t)n * ((CHASE_STEPS + n - 1) / n);
    rc = chase_run_nodes(&spec->sys, machine_get_pt(l->m), va, n, warmup, steps, CHASE_PASSES, out, d);
  }
  free(perm);
  free(va);
  return rc;
}

int layout_gather(const machine_spec *spec, const layout *l, uint32_t n, uint32_t threads_per_sm,
                  uint32_t loads_per_thread, uint64_t seed, gather_result *out, diag *d) {
  if (n > l->nodes || !n) return diag_set(d, NULL, 0, "gather: %u of %u buffers", n, l->nodes);
  gather_spec s = {.region = {.nodes = n, .page_size = spec->page_size, .chunk = spec->page_size},
                   .node_va = l->node_va, .table = machine_get_pt(l->m), .offsets_va = l->offsets_va,
                   .threads_per_sm = threads_per_sm, .loads_per_thread = loads_per_thread, .batch = 8,
                   .block_threads = threads_per_sm < 256 ? threads_per_sm : 256, .seed = seed,
                   .sms_used = spec->gpu.sms};
  return gather_run(&spec->format, &spec->sys, &spec->gpu, &s, out, d);
}
