/* Buffer sets: many separate cudaMallocs against the same sizes carved from
 * one allocation, measured over the first 128-byte line of every buffer.
 *
 * smallbufs     N buffers of one size (default 20000 x 64 KiB) through
 *               cudaMalloc, then one cudaMalloc carved in order (the pool);
 *               for each, the first n buffers, n = 8, 16, ... and N: a warm
 *               chase and a gather. Where the chase's knees fall in n tells
 *               how much VA one TLB entry covers for those buffers, and so
 *               which page size the driver gave them.
 * churn-gather  replays a trace's alloc/free records through cudaMalloc and
 *               cudaFree; then the set alive at the end (churned), the same
 *               sizes allocated fresh in order (fresh), and carved in order
 *               from one allocation (pool).
 *
 * Per set: the chase is one cycle through the buffers' first lines in a
 * seeded random order (gpu_permute), warmed by two whole passes, timed over
 * `repeats` passes of whole cycles (at least 4096 loads); the gather is
 * gpu_gather_measure in table mode (node i = buffer i's first line). */
#include <errno.h>
#include <string.h>

#include <algorithm>

#include "gpu_cuda.h"
#include "gpu_trace.h"

struct bufset_ref {
  const char *pattern, *set, *source;
  const uint64_t *va, *size;
  size_t n;
  uint64_t size_bytes; /* 0 when sizes differ */
};

/* --steps, or whole passes of the cycle, at least 4096 loads. */
static uint64_t chase_steps(const gpu_opts *o, size_t n) {
  if (gpu_opts_given(o, "steps")) return o->steps;
  return (4096 + n - 1) / n * n;
}

static int measure_set(const gpu_ctx *c, const gpu_opts *o, const bufset_ref *b, FILE *csv) {
  diag d;
  gpu_bufset_stats st;
  if (gpu_bufset_stats_of(b->va, b->size, b->n, &st, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return -1;
  }
  gpu_bufset_row row;
  memset(&row, 0, sizeof row);
  row.pattern = b->pattern, row.set = b->set, row.source = b->source;
  row.buffers = st.buffers, row.size_bytes = b->size_bytes, row.live_bytes = st.live_bytes, row.va_span = st.va_span;
  row.regions_2m = st.regions_2m, row.regions_32m = st.regions_32m;
  row.line_regions_2m = st.line_regions_2m, row.line_regions_32m = st.line_regions_32m;
  row.va_first = b->va[0];
  row.seed = o->seed;
  row.pool_align = GPU_POOL_CARVE_ALIGN;
  row.device = c->prop.name;
  /* The chase: a seeded random cycle through the first lines. */
  std::vector<uint32_t> perm(b->n);
  gpu_permute(perm.data(), (uint32_t)b->n, o->seed);
  std::vector<uint64_t> visit(b->n);
  for (size_t k = 0; k < b->n; k++) visit[k] = b->va[perm[k]];
  gpu_chase_out ch;
  row.chase_steps = chase_steps(o, b->n);
  row.chase_warmup = std::max<uint64_t>(2 * (uint64_t)b->n, o->warmup);
  row.chase_repeats = o->repeats;
  gpu_chase_visit_cfg vc = {&visit, row.chase_warmup, row.chase_steps, o->repeats, o->sm, 0, 0, false};
  if (gpu_chase_visit(c, &vc, &ch)) return -1;
  row.chase_cycles = ch.cycles;
  row.chase_ns = ch.ns.median;
  row.chase_sm = ch.sm;
  row.sm_clock_khz = ch.khz;
  /* The gather over the same lines (the fill overwrites the chain's links):
   * node i = buffer i, addressed through a table of line offsets from the
   * lowest buffer. */
  std::vector<uint32_t> lines(b->n);
  for (size_t i = 0; i < b->n; i++) {
    uint64_t off = b->va[i] - st.va_min;
    if (off % GPU_GATHER_LINE || off / GPU_GATHER_LINE > UINT32_MAX) {
      fprintf(stderr, "tlbsim-gpu: buffer %zu at 0x%llx: not line-aligned or beyond 512 GiB of the first\n", i,
              (unsigned long long)b->va[i]);
      return -1;
    }
    lines[i] = (uint32_t)(off / GPU_GATHER_LINE);
  }
  uint32_t *table = nullptr;
  CK(cudaMalloc(&table, b->n * sizeof(uint32_t)));
  CK(cudaMemcpy(table, lines.data(), b->n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  gpu_gather_cfg g;
  g.base = st.va_min;
  g.table = table;
  g.nodes = (uint32_t)b->n;
  g.loads = o->loads;
  g.seed = o->seed;
  g.repeats = o->repeats;
  g.launch_ms = o->launch_ms;
  g.set.kind = GPU_SMS_GRID;
  gpu_gather_fill(&g);
  int rc = 0;
  for (size_t k = 0; k < o->ntps && !rc; k++) {
    if (gpu_gather_shape_per_sm((uint32_t)o->tps[k], (uint32_t)c->prop.multiProcessorCount, &g.shape, &d)) {
      fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
      rc = -1;
      break;
    }
    gpu_gather_result res;
    if ((rc = gpu_gather_measure(c, &g, &res))) break;
    row.threads = g.shape.threads;
    row.threads_per_sm = (uint32_t)o->tps[k];
    row.loads_per_thread = g.loads;
    row.loads_per_ns = res.loads_per_ns;
    row.ns_per_launch = res.ns_per_launch;
    row.launches = res.launches;
    if (gpu_csv_bufset_row(csv, &row, &d)) {
      fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
      rc = -1;
    }
  }
  CK(cudaFree(table));
  return rc;
}

static int write_layout(FILE *lay, const char *source, const char *set, const std::vector<uint64_t> &id,
                        const std::vector<uint64_t> &size, const std::vector<uint64_t> &va) {
  if (!lay) return 0;
  diag d;
  for (size_t i = 0; i < va.size(); i++)
    if (gpu_csv_layout_row(lay, source, set, i, id[i], size[i], va[i], va[0], &d)) {
      fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
      return -1;
    }
  return fflush(lay) ? -1 : 0;
}

/* The same sizes carved in order from one cudaMalloc; base receives it. */
static int carve_pool(const std::vector<uint64_t> &size, std::vector<uint64_t> &va, void **base) {
  diag d;
  std::vector<uint64_t> off(size.size());
  uint64_t total = 0;
  if (gpu_pool_carve(size.data(), size.size(), GPU_POOL_CARVE_ALIGN, off.data(), &total, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return -1;
  }
  if (total > gpu_free_bytes()) {
    fprintf(stderr, "tlbsim-gpu: a pool of %llu bytes does not fit in the free memory\n", (unsigned long long)total);
    return -1;
  }
  CK(cudaMalloc(base, total));
  va.resize(size.size());
  for (size_t i = 0; i < size.size(); i++) va[i] = (uint64_t)(uintptr_t)*base + off[i];
  return 0;
}

static void free_all(const std::vector<uint64_t> &va) {
  for (uint64_t p : va) CK(cudaFree((void *)(uintptr_t)p));
}

/* ---- smallbufs ----------------------------------------------------------- */

/* The set and then every doubling prefix of it from 8 buffers. */
static int measure_prefixes(const gpu_ctx *c, const gpu_opts *o, bufset_ref b, FILE *csv) {
  size_t all = b.n;
  for (size_t n = 8;; n *= 2) {
    b.n = std::min(n, all);
    if (measure_set(c, o, &b, csv)) return -1;
    if (b.n == all) return 0;
  }
}

static FILE *open_layout(const gpu_opts *o) {
  if (!o->layout) return NULL;
  FILE *f = fopen(o->layout, "w");
  if (!f) fprintf(stderr, "tlbsim-gpu: %s: %s\n", o->layout, strerror(errno));
  else rows_header(f, ROWS_LAYOUT, NULL); /* a failed write shows at close */
  return f;
}

static int close_layout(FILE *f, const gpu_opts *o) {
  if (f && fclose(f)) {
    fprintf(stderr, "tlbsim-gpu: %s: %s\n", o->layout, strerror(errno));
    return -1;
  }
  return 0;
}

int gpu_cmd_smallbufs(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_bufset_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  FILE *lay = open_layout(o);
  if (o->layout && !lay) return GPU_EXIT_FAIL;
  int rc = 0;
  for (size_t k = 0; k < o->nsizes && !rc; k++) {
    uint64_t size = o->sizes[k];
    size_t n = o->buffers;
    /* Both sets live at once at most while switching: keep a margin. */
    if (size * n > gpu_free_bytes() / 2) {
      gpu_progress("smallbufs: %zu x %llu bytes skipped: more than half the free memory", n, (unsigned long long)size);
      continue;
    }
    char source[64];
    snprintf(source, sizeof source, "%zux%llu", n, (unsigned long long)size);
    std::vector<uint64_t> va(n), sizes(n, size), id(n);
    double t0 = gpu_now_s();
    for (size_t i = 0; i < n; i++) {
      void *p = NULL;
      CK(cudaMalloc(&p, size));
      va[i] = (uint64_t)(uintptr_t)p, id[i] = i;
    }
    gpu_progress("smallbufs: %s: %zu cudaMallocs in %.2f s", source, n, gpu_now_s() - t0);
    rc = write_layout(lay, source, "bufs", id, sizes, va);
    if (!rc) rc = measure_prefixes(c, o, {"smallbufs", "bufs", source, va.data(), sizes.data(), n, size}, csv);
    free_all(va);
    void *base = NULL;
    if (!rc) rc = carve_pool(sizes, va, &base);
    if (!rc) rc = write_layout(lay, source, "pool", id, sizes, va);
    if (!rc) rc = measure_prefixes(c, o, {"smallbufs", "pool", source, va.data(), sizes.data(), n, size}, csv);
    if (base) CK(cudaFree(base));
    gpu_progress("smallbufs: %s done, %.1f s", source, gpu_now_s() - t0);
  }
  int rc2 = close_layout(lay, o);
  return rc || rc2 ? GPU_EXIT_FAIL : 0;
}

/* ---- churn-gather -------------------------------------------------------- */

/* Replays the plan; slot_va receives the buffers alive at the end. */
static int replay(const gpu_trace *t, const char *name, std::vector<uint64_t> &slot_va) {
  slot_va.assign(t->slots, 0);
  for (size_t i = 0; i < t->nops; i++) {
    const gpu_trace_op *op = &t->ops[i];
    if (op->kind == GPU_TRACE_FREE) {
      CK(cudaFree((void *)(uintptr_t)slot_va[op->slot]));
      slot_va[op->slot] = 0;
      continue;
    }
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, op->size);
    if (e != cudaSuccess) {
      fprintf(stderr, "tlbsim-gpu: %s:%lu: cudaMalloc of %llu bytes failed: %s\n", name, op->line,
              (unsigned long long)op->size, cudaGetErrorString(e));
      return -1;
    }
    slot_va[op->slot] = (uint64_t)(uintptr_t)p;
  }
  return 0;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

int gpu_cmd_churn_gather(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  gpu_trace t;
  diag d;
  if (gpu_trace_load(o->trace, &t, &d)) {
    fprintf(stderr, "%s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  if (!t.nlive) {
    fprintf(stderr, "tlbsim-gpu: %s: no allocation is alive at the end\n", o->trace);
    gpu_trace_free(&t);
    return GPU_EXIT_FAIL;
  }
  if (gpu_csv_bufset_header(csv, &d)) {
    gpu_trace_free(&t);
    return GPU_EXIT_FAIL;
  }
  const char *source = base_name(o->trace);
  std::vector<uint64_t> slot_va, va(t.nlive), size(t.nlive), id(t.nlive);
  double t0 = gpu_now_s();
  int rc = replay(&t, o->trace, slot_va);
  uint64_t live = 0;
  for (size_t i = 0; i < t.nlive; i++) {
    va[i] = slot_va[t.live[i].slot], size[i] = t.live[i].size, id[i] = t.live[i].id;
    live += size[i];
  }
  gpu_progress("churn-gather: %s: %llu allocs, %llu frees, %zu alive (%.2f GiB; peak %.2f GiB) replayed in %.2f s",
               source, (unsigned long long)t.allocs, (unsigned long long)t.frees, t.nlive,
               (double)live / (1ull << 30), (double)t.peak_live_bytes / (1ull << 30), gpu_now_s() - t0);
  FILE *lay = open_layout(o);
  if (o->layout && !lay) rc = -1;
  bufset_ref b = {"churn-gather", "churned", source, va.data(), size.data(), t.nlive, 0};
  if (!rc) rc = write_layout(lay, source, "churned", id, size, va);
  if (!rc) rc = measure_set(c, o, &b, csv);
  for (uint64_t p : slot_va)
    if (p) CK(cudaFree((void *)(uintptr_t)p));
  /* The same sizes, fresh, in allocation order. */
  if (!rc) {
    for (size_t i = 0; i < t.nlive; i++) {
      void *p = NULL;
      CK(cudaMalloc(&p, size[i]));
      va[i] = (uint64_t)(uintptr_t)p;
    }
    b.set = "fresh";
    rc = write_layout(lay, source, "fresh", id, size, va);
    if (!rc) rc = measure_set(c, o, &b, csv);
    free_all(va);
  }
  /* And carved in order from one allocation. */
  void *base = NULL;
  if (!rc) rc = carve_pool(size, va, &base);
  if (!rc) {
    b.set = "pool";
    b.va = va.data();
    rc = write_layout(lay, source, "pool", id, size, va);
    if (!rc) rc = measure_set(c, o, &b, csv);
  }
  if (base) CK(cudaFree(base));
  gpu_progress("churn-gather: %s done, %.1f s", source, gpu_now_s() - t0);
  int rc2 = close_layout(lay, o);
  gpu_trace_free(&t);
  return rc || rc2 ? GPU_EXIT_FAIL : 0;
}
