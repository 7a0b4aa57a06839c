/* The many-thread gather: every thread issues `loads` independent 8-byte
 * ld.global.cg loads at nodes chosen by gpu_gather_node (a hash of the
 * thread and the load index, never of loaded data), in groups of
 * GPU_GATHER_BATCH whose values are summed after the group. The sums go to
 * a sink, one word per thread, which the host checks against its own hash.
 *
 * Launch: an ordinary grid (one work block per launched block, the
 * hardware places them), or pinned to a set of SMs: every SM gets as many
 * blocks as it can hold; thread 0 of a block reads %smid and, on an SM of
 * the set, claims one of that SM's `per_sm` work blocks with an atomicAdd on
 * a per-SM counter (reset before each launch); the others exit at once.
 *
 * Timing: one warm-up launch (data into L2, TLBs in steady state), then
 * `repeats` times `launches` launches back to back between two cudaEvents;
 * launches are chosen so one repeat lasts about launch_ms. Each work block
 * also records clock64 and %globaltimer at its start and end (thread 0),
 * which give the SM clock, the kernel's span and per-block cycles. */
#include <math.h>
#include <string.h>

#include <algorithm>

#include "gpu_cuda.h"
#include "gpu_kern.cuh"

#define GATHER_MAX_LAUNCHES 5000u
#define GATHER_CHECK_THREADS 64u
#define GATHER_MAX_BLOCKS_PER_SM 32u /* the hardware's resident-block limit */

struct gather_args {
  uint64_t base, stride, skew_line, skew_mask;
  const uint32_t *table;        /* table mode: node i at base + table[i] * GPU_GATHER_LINE */
  uint64_t seed;
  uint64_t zero;                /* always 0: a value the compiler cannot see through (gather_group) */
  uint32_t nodes, loads;
  const int *sm_index;          /* pinned: SM -> its position in the set, -1 outside */
  unsigned per_sm;
  unsigned *claim;              /* pinned: per-SM claim counters */
  unsigned *done;               /* work blocks finished, all launches */
  uint64_t *sink;               /* one sum per work thread */
  unsigned long long *btime;    /* per work block: clock start, end, globaltimer start, end */
  unsigned *bsm;                /* per work block: its SM */
};

/* A load whose result is consumed later: volatile keeps the loads in
 * program order, no memory clobber lets the additions wait for them. */
__device__ __forceinline__ uint64_t gather_ld(uint64_t p) {
  uint64_t v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

template <bool TABLE>
__device__ __forceinline__ uint64_t node_addr(const gather_args &a, uint32_t i) {
  if (TABLE) return a.base + (uint64_t)__ldg(a.table + i) * GPU_GATHER_LINE;
  return a.base + (uint64_t)i * a.stride + (uint64_t)(i & a.skew_mask) * a.skew_line;
}

/* The xor of v[0..n), and-ed with a run-time zero: 0, but only once every
 * v is known. Adding it to each address makes every load of a group wait
 * for all of the group's addresses. */
template <class T>
__device__ __forceinline__ uint64_t join(const T *v, uint64_t zero) {
  uint64_t x = 0;
#pragma unroll
  for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) x ^= v[u];
  return x & zero;
}

/* One group of GPU_GATHER_BATCH loads of thread t, in phases: every node
 * index; then (table mode) every table load; then every load; then the sum.
 * Without the joins the compiler, held to 32 registers by the launch
 * bounds, interleaves the hashing with the loads and waits for the first
 * loads to free registers (2 or 3 in flight, then the rest); with them all
 * of a group's loads are in flight together, which
 * gpu/scripts/sass_inflight.py checks on the machine code. */
template <bool TABLE>
__device__ __forceinline__ uint64_t gather_group(const gather_args &a, uint64_t t, uint32_t j0) {
  uint32_t idx[GPU_GATHER_BATCH];
  uint64_t v[GPU_GATHER_BATCH];
#pragma unroll
  for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) idx[u] = gpu_gather_node(a.seed, t, j0 + u, a.nodes);
  uint64_t z = join(idx, a.zero);
  if (TABLE) {
#pragma unroll
    for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) idx[u] = __ldg(a.table + (idx[u] + z));
    z = join(idx, a.zero);
#pragma unroll
    for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) v[u] = a.base + (uint64_t)idx[u] * GPU_GATHER_LINE + z;
  } else {
#pragma unroll
    for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) v[u] = node_addr<false>(a, idx[u]) + z;
  }
#pragma unroll
  for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) v[u] = gather_ld(v[u]);
  uint64_t sum = 0;
#pragma unroll
  for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) sum += v[u];
  return sum;
}

/* Which work block this block runs, or -1. */
template <bool PINNED>
__device__ __forceinline__ int claim_work(const gather_args &a) {
  if (!PINNED) return (int)blockIdx.x;
  unsigned sm = gpu_smid();
  int pos = sm < GPU_MAX_SMS ? a.sm_index[sm] : -1;
  if (pos < 0) return -1;
  unsigned s = atomicAdd(&a.claim[sm], 1u);
  return s < a.per_sm ? pos * (int)a.per_sm + (int)s : -1;
}

template <bool TABLE, bool PINNED>
__global__ void __launch_bounds__(GPU_GATHER_BLOCK, GPU_GATHER_MAX_TPS / GPU_GATHER_BLOCK) gather_kernel(gather_args a) {
  __shared__ int work;
  if (threadIdx.x == 0) work = claim_work<PINNED>(a);
  __syncthreads();
  int w = work;
  if (w < 0) return;
  unsigned long long c0 = 0, g0 = 0;
  if (threadIdx.x == 0) c0 = clock64(), g0 = gpu_gtimer();
  uint64_t t = (uint64_t)w * blockDim.x + threadIdx.x, sum = 0;
#pragma unroll 1
  for (uint32_t j0 = 0; j0 < a.loads; j0 += GPU_GATHER_BATCH) sum += gather_group<TABLE>(a, t, j0);
  a.sink[t] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long *bt = a.btime + 4 * (size_t)w;
    bt[0] = c0, bt[1] = clock64(), bt[2] = g0, bt[3] = gpu_gtimer();
    a.bsm[w] = gpu_smid();
    atomicAdd(a.done, 1u);
  }
}

template <bool TABLE>
__global__ void fill_kernel(gather_args a) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.nodes; i += gridDim.x * blockDim.x)
    *(volatile uint64_t *)(uintptr_t)node_addr<TABLE>(a, i) = i;
}

static gather_args args_of(const gpu_gather_cfg *g) {
  gather_args a;
  memset(&a, 0, sizeof a);
  a.base = g->base, a.stride = g->stride, a.skew_line = g->skew_line, a.skew_mask = g->skew_mask;
  a.table = g->table;
  a.seed = g->seed;
  a.nodes = g->nodes, a.loads = g->loads;
  return a;
}

void gpu_gather_fill(const gpu_gather_cfg *g) {
  gather_args a = args_of(g);
  unsigned blocks = (g->nodes + 255) / 256;
  if (blocks > 1024) blocks = 1024;
  if (g->table) fill_kernel<true><<<blocks, 256>>>(a);
  else fill_kernel<false><<<blocks, 256>>>(a);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

/* Device buffers of one measurement. */
struct gather_dev {
  uint64_t *sink = nullptr;
  unsigned long long *btime = nullptr;
  unsigned *bsm = nullptr, *claim = nullptr, *done = nullptr;
  int *sm_index = nullptr;
};

static void dev_alloc(gather_dev *d, const gpu_gather_shape *s) {
  CK(cudaMalloc(&d->sink, s->threads * sizeof(uint64_t)));
  CK(cudaMalloc(&d->btime, 4 * (size_t)s->blocks * sizeof(unsigned long long)));
  CK(cudaMalloc(&d->bsm, (size_t)s->blocks * sizeof(unsigned)));
  CK(cudaMalloc(&d->claim, GPU_MAX_SMS * sizeof(unsigned)));
  CK(cudaMalloc(&d->done, sizeof(unsigned)));
  CK(cudaMalloc(&d->sm_index, GPU_MAX_SMS * sizeof(int)));
  CK(cudaMemset(d->done, 0, sizeof(unsigned)));
}

static void dev_free(gather_dev *d) {
  void *v[] = {d->sink, d->btime, d->bsm, d->claim, d->done, d->sm_index};
  for (void *p : v) CK(cudaFree(p));
}

/* Pinned launch: positions of the set's SMs; returns how many there are. */
static unsigned sm_positions(const gpu_ctx *c, const gpu_sm_set *set, int *index) {
  unsigned n = 0;
  for (int k = 0; k < GPU_MAX_SMS; k++)
    index[k] = k < c->prop.multiProcessorCount && gpu_sm_set_has(set, (uint32_t)k) ? (int)n++ : -1;
  return n;
}

/* What the per-block records of the last launch say. */
static void block_stats(const gpu_gather_shape *s, const gather_dev *d, gpu_gather_result *r) {
  std::vector<unsigned long long> bt(4 * (size_t)s->blocks);
  std::vector<unsigned> bsm(s->blocks);
  CK(cudaMemcpy(bt.data(), d->btime, bt.size() * sizeof bt[0], cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(bsm.data(), d->bsm, bsm.size() * sizeof bsm[0], cudaMemcpyDeviceToHost));
  std::vector<double> cyc(s->blocks);
  std::vector<unsigned> per_sm(GPU_MAX_SMS, 0);
  unsigned long long g0 = ~0ull, g1 = 0;
  double sc = 0, sn = 0;
  for (uint32_t b = 0; b < s->blocks; b++) {
    const unsigned long long *x = &bt[4 * (size_t)b];
    cyc[b] = (double)(x[1] - x[0]);
    sc += (double)(x[1] - x[0]);
    sn += (double)(x[3] - x[2]);
    g0 = std::min(g0, x[2]);
    g1 = std::max(g1, x[3]);
    if (bsm[b] < GPU_MAX_SMS) per_sm[bsm[b]]++;
  }
  r->sms_used = r->max_blocks_per_sm = 0;
  for (unsigned k : per_sm) {
    r->sms_used += k > 0;
    r->max_blocks_per_sm = std::max(r->max_blocks_per_sm, k);
  }
  r->khz = sn > 0 ? sc / sn * 1e6 : 0;
  r->span_ns = (double)(g1 - g0);
  r->kernel_cycles = r->span_ns * r->khz / 1e6;
  r->block_cycles = gpu_summarize(cyc.data(), cyc.size()).median;
}

/* Sampled threads' sums against the host's hash: proves the device walked
 * exactly the nodes gpu_gather_node names. */
static int check_sums(const gpu_gather_cfg *g, const gather_dev *d) {
  uint64_t T = g->shape.threads;
  unsigned n = T < GATHER_CHECK_THREADS ? (unsigned)T : GATHER_CHECK_THREADS;
  for (unsigned k = 0; k < n; k++) {
    uint64_t t = k * T / n, got = 0;
    CK(cudaMemcpy(&got, d->sink + t, sizeof got, cudaMemcpyDeviceToHost));
    uint64_t want = gpu_gather_thread_sum(g->seed, t, g->loads, g->nodes);
    if (got != want) {
      fprintf(stderr, "tlbsim-gpu: gather: thread %llu summed %llu, the host's hash says %llu\n",
              (unsigned long long)t, (unsigned long long)got, (unsigned long long)want);
      return -1;
    }
  }
  return 0;
}

int gpu_gather_measure(const gpu_ctx *c, const gpu_gather_cfg *g, gpu_gather_result *r) {
  memset(r, 0, sizeof *r);
  const gpu_gather_shape *s = &g->shape;
  bool pinned = g->set.kind != GPU_SMS_GRID;
  gather_dev d;
  dev_alloc(&d, s);
  gather_args a = args_of(g);
  a.claim = d.claim, a.done = d.done, a.sink = d.sink, a.btime = d.btime, a.bsm = d.bsm;
  a.sm_index = d.sm_index;
  a.per_sm = s->per_sm;
  unsigned grid = s->blocks;
  if (pinned) {
    int index[GPU_MAX_SMS];
    unsigned n = sm_positions(c, &g->set, index);
    if (!n || (uint64_t)n * s->per_sm != s->blocks) {
      fprintf(stderr, "tlbsim-gpu: gather: %u work blocks do not fill %u SMs of the set\n", s->blocks, n);
      dev_free(&d);
      return -1;
    }
    CK(cudaMemcpy(d.sm_index, index, sizeof index, cudaMemcpyHostToDevice));
    /* Every SM gets as many blocks as it can hold, so each SM of the set
     * has its per_sm blocks to claim. */
    grid = (unsigned)c->prop.multiProcessorCount * std::min(GATHER_MAX_BLOCKS_PER_SM, GPU_GATHER_MAX_TPS / s->block_threads);
  }
  auto launch = [&]() {
    if (pinned) CK(cudaMemsetAsync(d.claim, 0, GPU_MAX_SMS * sizeof(unsigned)));
    if (g->table && pinned) gather_kernel<true, true><<<grid, s->block_threads>>>(a);
    else if (g->table) gather_kernel<true, false><<<grid, s->block_threads>>>(a);
    else if (pinned) gather_kernel<false, true><<<grid, s->block_threads>>>(a);
    else gather_kernel<false, false><<<grid, s->block_threads>>>(a);
  };
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  launch();
  CK(cudaEventRecord(e1));
  CK(cudaGetLastError());
  CK(cudaEventSynchronize(e1));
  float warm_ms = 0;
  CK(cudaEventElapsedTime(&warm_ms, e0, e1));
  unsigned launches = warm_ms > 0 ? (unsigned)ceil((double)g->launch_ms / warm_ms) : GATHER_MAX_LAUNCHES;
  launches = std::max(3u, std::min(GATHER_MAX_LAUNCHES, launches));
  std::vector<double> rate(g->repeats), ns(g->repeats);
  double loads = (double)s->threads * g->loads;
  for (unsigned k = 0; k < g->repeats; k++) {
    CK(cudaEventRecord(e0));
    for (unsigned l = 0; l < launches; l++) launch();
    CK(cudaEventRecord(e1));
    CK(cudaGetLastError());
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ns[k] = (double)ms * 1e6 / launches;
    rate[k] = loads / ns[k];
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  unsigned done = 0;
  CK(cudaMemcpy(&done, d.done, sizeof done, cudaMemcpyDeviceToHost));
  uint64_t want = (uint64_t)s->blocks * (1 + (uint64_t)launches * g->repeats);
  int rc = 0;
  if (done != want) {
    fprintf(stderr, "tlbsim-gpu: gather: %u work blocks ran, %llu expected (an SM of the set got too few blocks)\n",
            done, (unsigned long long)want);
    rc = -1;
  }
  if (!rc) rc = check_sums(g, &d);
  if (!rc) {
    block_stats(s, &d, r);
    r->loads_per_ns = gpu_summarize(rate.data(), rate.size());
    r->ns_per_launch = gpu_summarize(ns.data(), ns.size()).median;
    r->launches = launches;
  }
  dev_free(&d);
  return rc;
}

/* ---- the gather command ------------------------------------------------- */

static void row_common(const gpu_ctx *c, const gpu_opts *o, region_mapping m, const gpu_gather_cfg *g,
                       const gpu_gather_result *res, const char *set_name, uint32_t set_sms, gpu_gather_row *row) {
  memset(row, 0, sizeof *row);
  row->pattern = "gather";
  row->nodes = g->nodes;
  row->threads = g->shape.threads;
  row->loads_per_thread = g->loads;
  row->mapping = m;
  row->loads_per_ns = res->loads_per_ns;
  row->page_bytes = gpu_mapping_page_bytes(m, c->granularity);
  row->sms_used = res->sms_used;
  row->threads_per_sm = (double)g->shape.threads / set_sms;
  row->block_threads = g->shape.block_threads;
  row->blocks = g->shape.blocks;
  row->max_blocks_per_sm = res->max_blocks_per_sm;
  row->kernel_cycles = res->kernel_cycles;
  row->ns_per_launch = res->ns_per_launch;
  row->launches = res->launches;
  row->repeats = g->repeats;
  row->sm_clock_khz = res->khz;
  row->device = c->prop.name;
  row->seed = o->seed;
  row->sm_set = set_name;
  row->span_ns = res->span_ns;
  row->block_cycles = res->block_cycles;
}

/* Every (SM set, thread count) of the options at one point. */
static int gather_configs(const gpu_ctx *c, const gpu_opts *o, region_mapping m, gpu_gather_cfg g,
                          const gpu_gather_point *p, const gpu_region *reg, FILE *csv) {
  uint32_t nsm = (uint32_t)c->prop.multiProcessorCount;
  diag d;
  for (size_t si = 0; si < o->nsm_sets; si++) {
    g.set = o->sm_sets[si];
    uint32_t set_sms = gpu_sm_set_count(&g.set, nsm);
    char name[1024];
    gpu_sm_set_name(&g.set, name, sizeof name);
    if (!set_sms) {
      fprintf(stderr, "tlbsim-gpu: gather: SM set %s has no SM on this device\n", name);
      return -1;
    }
    size_t nconf = o->ntps + o->nthreads;
    for (size_t k = 0; k < nconf; k++) {
      int bad = k < o->ntps ? gpu_gather_shape_per_sm((uint32_t)o->tps[k], set_sms, &g.shape, &d)
                            : gpu_gather_shape_total(o->threads[k - o->ntps], &g.shape, &d);
      if (bad) {
        fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
        return -1;
      }
      if (g.set.kind == GPU_SMS_GRID) g.shape.per_sm = 0;
      gpu_gather_result res;
      if (gpu_gather_measure(c, &g, &res)) return -1;
      gpu_gather_row row;
      row_common(c, o, m, &g, &res, name, set_sms, &row);
      row.footprint_bytes = p->footprint;
      row.stride_bytes = p->stride;
      row.va_base = reg->base;
      row.chunk_bytes = reg->chunk;
      row.skew_bytes = g.skew_line;
      if (gpu_csv_gather_row(csv, &row, &d)) {
        fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
        return -1;
      }
    }
  }
  return 0;
}

/* The points of one mapping: footprints (or a fixed stride) x node counts. */
static int plan_points(const gpu_ctx *c, const gpu_opts *o, region_mapping m, gpu_gather_point_list *pts) {
  uint64_t fp[GPU_MAX_LIST * 4];
  size_t nf = o->sweep.nfootprints;
  if (nf) memcpy(fp, o->sweep.footprints, nf * sizeof fp[0]);
  else nf = gpu_footprint_range(o->sweep.fmin, o->sweep.fmax, o->sweep.per_octave, fp, sizeof fp / sizeof fp[0]);
  uint64_t chunk = o->chunk ? o->chunk : c->granularity;
  gpu_gather_plan plan = {fp, nf, o->nodes, o->nnodes, o->gather_stride,
                          m == REGION_ALIASED ? chunk : GPU_GATHER_LINE};
  diag d;
  if (gpu_gather_points(&plan, pts, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return -1;
  }
  if (pts->skipped)
    gpu_progress("gather %s: skipped %zu points whose stride would be below %llu bytes", region_mapping_names[m],
                 pts->skipped, (unsigned long long)plan.align);
  /* Memory-backed mappings: only what fits now. */
  uint64_t cap = gpu_region_cap(m);
  size_t k = 0;
  for (size_t i = 0; i < pts->n; i++)
    if (pts->v[i].footprint <= cap) pts->v[k++] = pts->v[i];
    else
      gpu_progress("gather %s: %.1f GiB skipped: more than the %.1f GiB that may be allocated now",
                   region_mapping_names[m], (double)pts->v[i].footprint / (1ull << 30), (double)cap / (1ull << 30));
  pts->n = k;
  return 0;
}

static int gather_mapping(const gpu_ctx *c, const gpu_opts *o, region_mapping m, FILE *csv) {
  gpu_gather_point_list pts;
  if (plan_points(c, o, m, &pts)) return -1;
  uint64_t maxfp = 0;
  uint32_t maxnodes = 0;
  for (size_t i = 0; i < pts.n; i++) maxfp = std::max(maxfp, pts.v[i].footprint), maxnodes = std::max(maxnodes, pts.v[i].nodes);
  /* Managed memory gets a fresh region per point: pages are populated (and
   * their size chosen) by the first touch, so a shared region would carry
   * one point's page sizes into the next. */
  bool per_point = m == REGION_MANAGED;
  gpu_region reg;
  if (pts.n && !per_point) gpu_region_create(c, &reg, m, maxfp, o->chunk, o->seed, maxnodes);
  int rc = 0;
  double t0 = gpu_now_s();
  for (size_t i = 0; i < pts.n && !rc; i++) {
    const gpu_gather_point *p = &pts.v[i];
    if (per_point) gpu_region_create(c, &reg, m, p->footprint, o->chunk, o->seed, p->nodes);
    gpu_gather_cfg g;
    g.base = reg.base;
    g.stride = p->stride;
    g.nodes = p->nodes;
    g.loads = o->loads;
    g.seed = o->seed;
    g.repeats = o->repeats;
    g.launch_ms = o->launch_ms;
    if (m == REGION_ALIASED) {
      gpu_region_unalias(c, &reg);
      gpu_region_alias(c, &reg, p->stride, p->nodes);
      g.skew_line = GPU_ALIAS_LINE;
      g.skew_mask = reg.chunk / GPU_ALIAS_LINE - 1;
    }
    gpu_gather_fill(&g);
    rc = gather_configs(c, o, m, g, p, &reg, csv);
    if (per_point) gpu_region_destroy(c, &reg);
    gpu_progress("gather %s: %.3g GiB, %u nodes: done (%zu/%zu), %.1f s", region_mapping_names[m],
                 (double)p->footprint / (1ull << 30), p->nodes, i + 1, pts.n, gpu_now_s() - t0);
  }
  if (pts.n && !per_point) gpu_region_destroy(c, &reg);
  gpu_gather_point_list_free(&pts);
  return rc;
}

int gpu_cmd_gather(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_gather_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  for (int m = 0; m < REGION_MAPPING_COUNT; m++)
    if ((o->mappings >> m & 1) && gather_mapping(c, o, (region_mapping)m, csv)) return GPU_EXIT_FAIL;
  return 0;
}
