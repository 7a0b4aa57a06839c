/* Pointer-chase sweeps: build the chain on the device, pin one block to an
 * SM, time warm-up-then-repeats of dependent loads.
 *
 * Pinning: the kernel is launched with GPU_PIN_BLOCKS_PER_SM blocks per SM
 * of one warp each; lane 0 of every block reads %smid and only the first
 * block on the wanted SM to win an atomicCAS on a claim word runs the
 * chase; all others exit at once. If no block reached that SM the launch
 * is repeated.
 *
 * Data-latency baseline: the latency of a chase mixes translation with the
 * L2 distance of each node's line (a single line costs 257..311 cycles
 * depending on where it lives). For each point, base_kernel takes up to
 * GPU_BASE_SAMPLES nodes (all when fewer), makes each a one-node cycle in
 * turn (it stores the node's own address in it, chases it, restores the
 * link) and reports the mean: the chase's cost with translation always
 * hitting one page, on the same lines. The chase that follows checks that
 * every link was restored. */
#include <stdlib.h>
#include <string.h>

#include "gpu_cuda.h"
#include "gpu_kern.cuh"

#define GPU_PIN_BLOCKS_PER_SM 4
#define GPU_PIN_TRIES 8

struct chase_args {
  const uint64_t *lane_start; /* lanes entries: start node address */
  uint64_t warmup, steps;
  unsigned repeats, lanes;
  int sm;                     /* -1: any SM */
  unsigned *claim;
  unsigned long long *times;  /* [2*r]: cycles, [2*r+1]: ns of timed pass r */
  uint64_t *final;            /* lanes entries: node address after the walk */
  unsigned *smid;
};

template <bool CA>
__global__ void __launch_bounds__(32) chase_kernel(chase_args a) {
  unsigned lane = threadIdx.x;
  int mine = 0;
  if (lane == 0) {
    unsigned sm = gpu_smid();
    mine = (a.sm < 0 || sm == (unsigned)a.sm) && atomicCAS(a.claim, 0u, 1u) == 0u;
    if (mine) *a.smid = sm;
  }
  mine = __shfl_sync(0xffffffffu, mine, 0);
  if (!mine || lane >= a.lanes) return;
  uint64_t p = a.lane_start[lane];
  for (uint64_t k = 0; k < a.warmup; k++) p = gpu_ld<CA>(p);
  for (unsigned r = 0; r < a.repeats; r++) {
    uint64_t c0 = gpu_clock_after(p), g0 = gpu_gtimer_after(p);
    for (uint64_t k = 0; k < a.steps; k++) p = gpu_ld<CA>(p);
    uint64_t c1 = gpu_clock_after(p), g1 = gpu_gtimer_after(p);
    if (lane == 0) {
      a.times[2 * r] = c1 - c0;
      a.times[2 * r + 1] = g1 - g0;
    }
  }
  a.final[lane] = p;
}

#define GPU_BASE_SAMPLES 64
#define GPU_BASE_WARM 16
#define GPU_BASE_STEPS 256

struct base_args {
  const uint64_t *node;       /* n addresses of sampled nodes */
  unsigned n;
  int sm;
  unsigned *claim;
  unsigned long long *cycles; /* n: cycles of GPU_BASE_STEPS self-loop loads */
};

template <bool CA>
__global__ void __launch_bounds__(32) base_kernel(base_args a) {
  if (threadIdx.x) return;
  unsigned sm = gpu_smid();
  if ((a.sm >= 0 && sm != (unsigned)a.sm) || atomicCAS(a.claim, 0u, 1u) != 0u) return;
  for (unsigned j = 0; j < a.n; j++) {
    volatile uint64_t *q = (volatile uint64_t *)(uintptr_t)a.node[j];
    uint64_t link = *q;
    *q = a.node[j];
    __threadfence();
    uint64_t p = a.node[j];
    for (int k = 0; k < GPU_BASE_WARM; k++) p = gpu_ld<CA>(p);
    uint64_t c0 = gpu_clock_after(p);
    for (int k = 0; k < GPU_BASE_STEPS; k++) p = gpu_ld<CA>(p);
    uint64_t c1 = gpu_clock_after(p);
    a.cycles[j] = c1 - c0;
    *q = link;
    __threadfence();
  }
}

__global__ void chain_write_kernel(uint64_t base, const uint64_t *off, uint32_t n) {
  for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    *(uint64_t *)(uintptr_t)(base + off[k]) = base + off[k + 1 == n ? 0 : k + 1];
}

/* Device scratch for one point: offsets, lane starts, results. Grown on
 * demand and kept for the whole sweep. */
struct chase_scratch {
  uint64_t *off = nullptr;
  size_t off_cap = 0;
  uint64_t *lane_start = nullptr, *final = nullptr;
  unsigned long long *times = nullptr;
  unsigned *claim = nullptr, *smid = nullptr;
  unsigned times_cap = 0;
  uint64_t *base_node = nullptr;
  unsigned long long *base_cycles = nullptr;
};

static void scratch_reserve(chase_scratch *s, uint32_t nodes, unsigned repeats) {
  if (nodes > s->off_cap) {
    if (s->off) CK(cudaFree(s->off));
    CK(cudaMalloc(&s->off, (size_t)nodes * sizeof(uint64_t)));
    s->off_cap = nodes;
  }
  if (!s->lane_start) {
    CK(cudaMalloc(&s->lane_start, 32 * sizeof(uint64_t)));
    CK(cudaMalloc(&s->final, 32 * sizeof(uint64_t)));
    CK(cudaMalloc(&s->claim, 2 * sizeof(unsigned)));
    CK(cudaMalloc(&s->smid, sizeof(unsigned)));
    CK(cudaMalloc(&s->base_node, GPU_BASE_SAMPLES * sizeof(uint64_t)));
    CK(cudaMalloc(&s->base_cycles, GPU_BASE_SAMPLES * sizeof(unsigned long long)));
  }
  if (repeats > s->times_cap) {
    if (s->times) CK(cudaFree(s->times));
    CK(cudaMalloc(&s->times, 2 * (size_t)repeats * sizeof(unsigned long long)));
    s->times_cap = repeats;
  }
}

static void scratch_free(chase_scratch *s) {
  void *v[] = {s->off, s->lane_start, s->final, s->times, s->claim, s->smid, s->base_node, s->base_cycles};
  for (void *p : v)
    if (p) CK(cudaFree(p));
  *s = chase_scratch();
}

/* Builds the chain on the host, writes it into the region on the device.
 * off receives the node offsets in visiting order. */
static int write_chain(uint64_t base, const gpu_chain_spec *spec, std::vector<uint64_t> &off, chase_scratch *s) {
  diag d;
  off.resize(spec->nodes);
  if (gpu_chain_build(spec, off.data(), &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return -1;
  }
  CK(cudaMemcpy(s->off, off.data(), off.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  unsigned blocks = (spec->nodes + 255) / 256;
  chain_write_kernel<<<blocks < 1024 ? blocks : 1024, 256>>>(base, s->off, spec->nodes);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  return 0;
}

struct chase_result {
  gpu_summary cycles, ns, base;
  double khz, base_mean;
  unsigned base_samples;
  int sm;
};

/* Launches a pinned kernel (see the top of this file) until a block on the
 * wanted SM claimed the work. */
template <class L>
static int launch_pinned(const gpu_ctx *c, int sm, unsigned *claim_dev, L launch) {
  unsigned claim = 0;
  for (int t = 0; t < GPU_PIN_TRIES && !claim; t++) {
    CK(cudaMemset(claim_dev, 0, sizeof(unsigned)));
    launch((unsigned)c->prop.multiProcessorCount * GPU_PIN_BLOCKS_PER_SM << (t / 2));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&claim, claim_dev, sizeof claim, cudaMemcpyDeviceToHost));
  }
  if (!claim) fprintf(stderr, "tlbsim-gpu: no block reached SM %d in %d launches\n", sm, GPU_PIN_TRIES);
  return claim ? 0 : -1;
}

/* The data-latency baseline over up to GPU_BASE_SAMPLES nodes (addresses). */
static int chase_base_nodes(const gpu_ctx *c, int sm, int load_ca, const uint64_t *node, unsigned n, chase_scratch *s,
                            chase_result *res) {
  CK(cudaMemcpy(s->base_node, node, n * sizeof(uint64_t), cudaMemcpyHostToDevice));
  base_args a = {s->base_node, n, sm, s->claim, s->base_cycles};
  if (launch_pinned(c, sm, s->claim, [&](unsigned grid) {
        if (load_ca) base_kernel<true><<<grid, 32>>>(a);
        else base_kernel<false><<<grid, 32>>>(a);
      }))
    return -1;
  unsigned long long cyc[GPU_BASE_SAMPLES];
  CK(cudaMemcpy(cyc, s->base_cycles, n * sizeof cyc[0], cudaMemcpyDeviceToHost));
  double v[GPU_BASE_SAMPLES], sum = 0;
  for (unsigned k = 0; k < n; k++) sum += v[k] = (double)cyc[k] / GPU_BASE_STEPS;
  res->base = gpu_summarize(v, n);
  res->base_mean = sum / n;
  res->base_samples = n;
  return 0;
}

/* The data-latency baseline of a chain: node indices k*n/S for S samples. */
static int chase_base(const gpu_ctx *c, const gpu_opts *o, uint64_t base, const gpu_chain_spec *spec,
                      chase_scratch *s, chase_result *res) {
  unsigned n = spec->nodes < GPU_BASE_SAMPLES ? spec->nodes : GPU_BASE_SAMPLES;
  uint64_t node[GPU_BASE_SAMPLES];
  for (unsigned k = 0; k < n; k++)
    node[k] = base + gpu_chain_node_offset(spec, (uint32_t)((uint64_t)k * spec->nodes / n));
  return chase_base_nodes(c, o->sm, o->load_ca, node, n, s, res);
}

/* Runs the walk of one chain already written; checks where every lane
 * ended against the host's model of the chain. */
static int chase_run(const gpu_ctx *c, const gpu_opts *o, uint64_t base, const std::vector<uint64_t> &off,
                     uint64_t warmup, chase_scratch *s, chase_result *res) {
  uint32_t n = (uint32_t)off.size();
  uint64_t starts[32];
  uint32_t pos[32];
  for (unsigned l = 0; l < o->lanes; l++) {
    pos[l] = gpu_chain_lane_start(n, l, o->lanes);
    starts[l] = base + off[pos[l]];
  }
  CK(cudaMemcpy(s->lane_start, starts, o->lanes * sizeof(uint64_t), cudaMemcpyHostToDevice));
  chase_args a = {s->lane_start, warmup, o->steps, o->repeats, o->lanes, o->sm, s->claim, s->times, s->final, s->smid};
  if (launch_pinned(c, o->sm, s->claim, [&](unsigned grid) {
        if (o->load_ca) chase_kernel<true><<<grid, 32>>>(a);
        else chase_kernel<false><<<grid, 32>>>(a);
      }))
    return -1;
  std::vector<unsigned long long> times(2 * (size_t)o->repeats);
  uint64_t final[32];
  unsigned sm = 0;
  CK(cudaMemcpy(times.data(), s->times, times.size() * sizeof times[0], cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(final, s->final, o->lanes * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&sm, s->smid, sizeof sm, cudaMemcpyDeviceToHost));
  uint64_t total = warmup + (uint64_t)o->repeats * o->steps;
  for (unsigned l = 0; l < o->lanes; l++)
    if (final[l] != base + off[gpu_chain_advance(n, pos[l], total)]) {
      fprintf(stderr, "tlbsim-gpu: lane %u ended at 0x%llx, not where the chain model says\n", l,
              (unsigned long long)final[l]);
      return -1;
    }
  std::vector<double> cyc(o->repeats), ns(o->repeats);
  double sc = 0, sn = 0;
  for (unsigned r = 0; r < o->repeats; r++) {
    cyc[r] = (double)times[2 * r] / (double)o->steps;
    ns[r] = (double)times[2 * r + 1] / (double)o->steps;
    sc += (double)times[2 * r];
    sn += (double)times[2 * r + 1];
  }
  res->cycles = gpu_summarize(cyc.data(), cyc.size());
  res->ns = gpu_summarize(ns.data(), ns.size());
  res->khz = sn > 0 ? sc / sn * 1e6 : 0;
  res->sm = (int)sm;
  return 0;
}

static gpu_chase_row base_row(const gpu_ctx *c, const gpu_opts *o, region_mapping m) {
  gpu_chase_row r;
  memset(&r, 0, sizeof r);
  r.pattern = "chase";
  r.mapping = m;
  r.page_bytes = gpu_mapping_page_bytes(m, c->granularity);
  r.steps = o->steps;
  r.load_ca = o->load_ca;
  r.device = c->prop.name;
  r.repeats = o->repeats;
  r.seed = o->seed;
  r.lanes = o->lanes;
  r.disruptor_sm = -1;
  return r;
}

/* The region a sweep needs: its largest footprint, capped by what can be
 * allocated now (aliased needs VA only; managed stays well inside free). */
uint64_t gpu_region_cap(region_mapping m) {
  uint64_t fr = gpu_free_bytes();
  if (m == REGION_ALIASED) return UINT64_MAX;
  if (m == REGION_MANAGED) return fr > (4ull << 30) ? fr - (4ull << 30) : 0;
  return fr;
}

int gpu_run_sweep(const gpu_ctx *c, const gpu_opts *o, const gpu_sweep *sw, unsigned region, FILE *csv) {
  gpu_sweep s = *sw;
  uint64_t cap = gpu_region_cap(s.mapping);
  if (s.fmax > cap) {
    gpu_progress("%s: footprints capped at %.1f GiB by free memory", region_mapping_names[s.mapping],
                 (double)cap / (1ull << 30));
    s.fmax = cap;
    for (size_t i = 0; i < s.nfootprints; i++)
      if (s.footprints[i] > cap) s.footprints[i] = cap;
  }
  uint64_t chunk = o->chunk ? o->chunk : c->granularity;
  if (s.mapping == REGION_ALIASED)
    for (size_t i = 0; i < s.nstrides; i++)
      if (s.strides[i] % chunk) {
        fprintf(stderr, "tlbsim-gpu: aliased: stride %llu is not a multiple of the %llu-byte chunk\n",
                (unsigned long long)s.strides[i], (unsigned long long)chunk);
        return -1;
      }
  diag d;
  gpu_point_list pts;
  if (gpu_sweep_points(&s, &pts, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return -1;
  }
  if (pts.skipped_nodes)
    gpu_progress("%s: skipped %zu points needing more than %llu nodes (they would not stay in L2)",
                 region_mapping_names[s.mapping], pts.skipped_nodes, (unsigned long long)s.max_nodes);
  uint32_t max_nodes = 0;
  for (size_t i = 0; i < pts.n; i++)
    if (pts.v[i].nodes > max_nodes) max_nodes = pts.v[i].nodes;
  int rc = 0;
  if (pts.n) {
    gpu_region reg;
    gpu_region_create(c, &reg, s.mapping, gpu_point_list_max_footprint(&pts), o->chunk, o->seed, max_nodes);
    char pop[64] = "";
    if (s.mapping == REGION_MANAGED) {
      gpu_region_populate(c, &reg, &s.population);
      gpu_population_name(&s.population, pop, sizeof pop);
    }
    chase_scratch scr;
    scratch_reserve(&scr, max_nodes, o->repeats);
    std::vector<uint64_t> off;
    double t0 = gpu_now_s();
    uint64_t aliased_stride = 0;
    for (size_t i = 0; i < pts.n && !rc; i++) {
      const gpu_point *p = &pts.v[i];
      gpu_chain_spec spec = {p->nodes, p->stride, GPU_ORDER_SEQ, o->seed, 0, 0};
      if (s.mapping == REGION_ALIASED) {
        spec.skew_line = GPU_ALIAS_LINE;
        spec.skew_period = reg.chunk / GPU_ALIAS_LINE;
        if (p->stride != aliased_stride) {
          uint32_t most = 0; /* nodes of the largest point at this stride */
          for (size_t j = i; j < pts.n && pts.v[j].stride == p->stride; j++)
            if (pts.v[j].nodes > most) most = pts.v[j].nodes;
          gpu_region_unalias(c, &reg);
          gpu_region_alias(c, &reg, p->stride, most);
          aliased_stride = p->stride;
        }
      }
      chase_result res;
      memset(&res, 0, sizeof res);
      bool have_base = false;
      for (int ord = 0; ord < GPU_ORDER_COUNT && !rc; ord++) {
        if (!(s.orders & (1u << ord))) continue;
        spec.order = (gpu_order)ord;
        uint64_t warmup = o->warmup > p->nodes ? o->warmup : p->nodes;
        /* The baseline does not depend on the order: taken once per point. */
        bool need_base = o->lanes == 1 && !have_base;
        if (write_chain(reg.base, &spec, off, &scr) || (need_base && chase_base(c, o, reg.base, &spec, &scr, &res)) ||
            chase_run(c, o, reg.base, off, warmup, &scr, &res)) {
          rc = -1;
          break;
        }
        have_base = true;
        gpu_chase_row row = base_row(c, o, s.mapping);
        row.order = spec.order;
        row.stride_bytes = p->stride;
        row.footprint_bytes = p->footprint;
        row.cycles = res.cycles;
        row.ns = res.ns;
        row.sm_clock_khz = res.khz;
        row.nodes = p->nodes;
        row.warmup = warmup;
        row.sm = res.sm;
        row.chunk_bytes = reg.chunk;
        row.skew_bytes = spec.skew_line;
        row.va_base = reg.base;
        row.base_mean = res.base_mean;
        row.base = res.base;
        row.base_samples = res.base_samples;
        row.population = pop;
        row.region = region;
        if (gpu_csv_chase_row(csv, &row, &d)) {
          fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
          rc = -1;
        }
      }
      if (i + 1 == pts.n || pts.v[i + 1].stride != p->stride)
        gpu_progress("%s stride %llu KiB: done, %zu/%zu points, %.1f s", region_mapping_names[s.mapping],
                     (unsigned long long)(p->stride >> 10), i + 1, pts.n, gpu_now_s() - t0);
    }
    scratch_free(&scr);
    gpu_region_destroy(c, &reg);
  }
  gpu_point_list_free(&pts);
  return rc;
}

int gpu_cmd_chase(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_chase_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  unsigned region = 0;
  for (int m = 0; m < REGION_MAPPING_COUNT; m++) {
    if (!(o->mappings & (1u << m))) continue;
    for (size_t p = 0; p < o->npops; p++) {
      gpu_sweep s = o->sweep;
      s.mapping = (region_mapping)m;
      s.population = o->pops[p];
      if (gpu_run_sweep(c, o, &s, region++, csv)) return GPU_EXIT_FAIL;
    }
  }
  return 0;
}

/* Shared with the sharing probe. */
int gpu_chain_write_dev(uint64_t base, const gpu_chain_spec *spec, std::vector<uint64_t> &off) {
  chase_scratch s;
  scratch_reserve(&s, spec->nodes, 1);
  int rc = write_chain(base, spec, off, &s);
  scratch_free(&s);
  return rc;
}

int gpu_chase_visit(const gpu_ctx *c, const gpu_chase_visit_cfg *v, gpu_chase_out *out) {
  const std::vector<uint64_t> &visit = *v->visit;
  uint32_t n = (uint32_t)visit.size();
  chase_scratch s;
  scratch_reserve(&s, n, v->repeats);
  /* Absolute addresses as offsets from 0: the chain-writing kernel links
   * visit[k] to visit[k+1]. */
  CK(cudaMemcpy(s.off, visit.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
  unsigned blocks = (n + 255) / 256;
  chain_write_kernel<<<blocks < 1024 ? blocks : 1024, 256>>>(0, s.off, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  if (v->flush_bytes) {
    unsigned *sink = nullptr;
    CK(cudaMalloc(&sink, sizeof *sink));
    gpu_stream_read_launch(c, v->flush_base, v->flush_bytes, 1, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(sink));
  }
  gpu_opts o;
  gpu_opts_defaults(&o, GPU_CMD_CHASE);
  o.steps = v->steps;
  o.repeats = v->repeats;
  o.sm = v->sm;
  chase_result res;
  memset(&res, 0, sizeof res);
  int rc = chase_run(c, &o, 0, visit, v->warmup, &s, &res);
  if (!rc && v->base) {
    unsigned k = n < GPU_BASE_SAMPLES ? n : GPU_BASE_SAMPLES;
    uint64_t node[GPU_BASE_SAMPLES];
    for (unsigned i = 0; i < k; i++) node[i] = visit[(uint64_t)i * n / k];
    rc = chase_base_nodes(c, v->sm, 0, node, k, &s, &res);
  }
  scratch_free(&s);
  memset(out, 0, sizeof *out);
  out->cycles = res.cycles;
  out->ns = res.ns;
  out->khz = res.khz;
  out->sm = res.sm;
  out->base = res.base;
  out->base_mean = res.base_mean;
  out->base_samples = res.base_samples;
  return rc;
}
