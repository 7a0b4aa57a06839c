/* Several one-thread pointer chases at once: queueing in latency terms.
 *
 * C = (SMs in the set) x per_sm chasers all walk the same chain (one cycle
 * through every node, gpu_chain.h), chaser c starting at visit position
 * gpu_chain_lane_start(n, c, C), so they are spread evenly around the cycle.
 * Each runs warmup untimed loads, then `repeats` timed passes of `steps`
 * dependent ld.global.cg loads, like the single chase (gpu_chase.cu).
 *
 * Placement: every SM gets 32 one-warp blocks (the resident maximum); lane 0
 * of each reads %smid and, on an SM of the set, claims one of that SM's
 * per_sm chaser slots (atomicAdd on a per-SM counter); the rest exit at once.
 * Chaser id = (position of its SM in the set) * per_sm + slot. A launch in
 * which some slot went unclaimed is repeated with a larger grid. */
#include <string.h>

#include <algorithm>

#include "gpu_cuda.h"
#include "gpu_kern.cuh"

#define CHASERS_BLOCKS_PER_SM 32u
#define CHASERS_TRIES 4

struct chasers_args {
  const uint64_t *start;       /* per chaser: its first node's address */
  uint64_t warmup, steps;
  unsigned repeats;
  const int *sm_index;         /* SM -> position in the set, -1 outside */
  unsigned per_sm;
  unsigned *claim;             /* per-SM claim counters */
  unsigned *claimed;           /* chasers that ran */
  unsigned long long *times;   /* per chaser: [2r] cycles, [2r+1] ns of pass r */
  uint64_t *final;             /* per chaser: node address after the walk */
  unsigned *csm;               /* per chaser: its SM */
};

__global__ void __launch_bounds__(32) chasers_kernel(chasers_args a) {
  if (threadIdx.x) return;
  unsigned sm = gpu_smid();
  int pos = sm < GPU_MAX_SMS ? a.sm_index[sm] : -1;
  if (pos < 0) return;
  unsigned slot = atomicAdd(&a.claim[sm], 1u);
  if (slot >= a.per_sm) return;
  unsigned id = (unsigned)pos * a.per_sm + slot;
  atomicAdd(a.claimed, 1u);
  uint64_t p = a.start[id];
  for (uint64_t k = 0; k < a.warmup; k++) p = gpu_ld<false>(p);
  unsigned long long *t = a.times + 2 * (size_t)id * a.repeats;
  for (unsigned r = 0; r < a.repeats; r++) {
    uint64_t c0 = gpu_clock_after(p), g0 = gpu_gtimer_after(p);
    for (uint64_t k = 0; k < a.steps; k++) p = gpu_ld<false>(p);
    uint64_t c1 = gpu_clock_after(p), g1 = gpu_gtimer_after(p);
    t[2 * r] = c1 - c0;
    t[2 * r + 1] = g1 - g0;
  }
  a.final[id] = p;
  a.csm[id] = sm;
}

struct chasers_dev {
  uint64_t *start = nullptr, *final = nullptr;
  unsigned long long *times = nullptr;
  unsigned *claim = nullptr, *claimed = nullptr, *csm = nullptr;
  int *sm_index = nullptr;
};

static void dev_alloc(chasers_dev *d, unsigned chasers, unsigned repeats) {
  CK(cudaMalloc(&d->start, chasers * sizeof(uint64_t)));
  CK(cudaMalloc(&d->final, chasers * sizeof(uint64_t)));
  CK(cudaMalloc(&d->times, 2 * (size_t)chasers * repeats * sizeof(unsigned long long)));
  CK(cudaMalloc(&d->claim, GPU_MAX_SMS * sizeof(unsigned)));
  CK(cudaMalloc(&d->claimed, sizeof(unsigned)));
  CK(cudaMalloc(&d->csm, chasers * sizeof(unsigned)));
  CK(cudaMalloc(&d->sm_index, GPU_MAX_SMS * sizeof(int)));
}

static void dev_free(chasers_dev *d) {
  void *v[] = {d->start, d->final, d->times, d->claim, d->claimed, d->csm, d->sm_index};
  for (void *p : v) CK(cudaFree(p));
}

struct chasers_point {
  uint64_t base;
  const std::vector<uint64_t> *off; /* node offsets in visiting order */
  gpu_sm_set set;
  unsigned per_sm;
};

/* Runs one configuration; fills the row's timing fields. */
static int chasers_run(const gpu_ctx *c, const gpu_opts *o, const chasers_point *pt, gpu_chasers_row *row) {
  int index[GPU_MAX_SMS];
  unsigned nset = 0;
  for (int k = 0; k < GPU_MAX_SMS; k++)
    index[k] = k < c->prop.multiProcessorCount && gpu_sm_set_has(&pt->set, (uint32_t)k) ? (int)nset++ : -1;
  unsigned C = nset * pt->per_sm;
  uint32_t n = (uint32_t)pt->off->size();
  uint64_t warmup = std::max<uint64_t>(o->warmup, 2 * (((uint64_t)n + C - 1) / C));
  std::vector<uint64_t> start(C);
  std::vector<uint32_t> pos(C);
  for (unsigned k = 0; k < C; k++) {
    pos[k] = gpu_chain_lane_start(n, k, C);
    start[k] = pt->base + (*pt->off)[pos[k]];
  }
  chasers_dev d;
  dev_alloc(&d, C, o->repeats);
  CK(cudaMemcpy(d.start, start.data(), C * sizeof(uint64_t), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.sm_index, index, sizeof index, cudaMemcpyHostToDevice));
  chasers_args a = {d.start, warmup, o->steps, o->repeats, d.sm_index, pt->per_sm, d.claim, d.claimed, d.times,
                    d.final, d.csm};
  unsigned claimed = 0;
  for (int t = 0; t < CHASERS_TRIES && claimed != C; t++) {
    CK(cudaMemset(d.claim, 0, GPU_MAX_SMS * sizeof(unsigned)));
    CK(cudaMemset(d.claimed, 0, sizeof(unsigned)));
    chasers_kernel<<<(unsigned)c->prop.multiProcessorCount * CHASERS_BLOCKS_PER_SM << t, 32>>>(a);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&claimed, d.claimed, sizeof claimed, cudaMemcpyDeviceToHost));
  }
  int rc = 0;
  if (claimed != C) {
    fprintf(stderr, "tlbsim-gpu: chasers: %u of %u chasers found a block on their SM\n", claimed, C);
    rc = -1;
  }
  std::vector<unsigned long long> times(2 * (size_t)C * o->repeats);
  std::vector<uint64_t> final(C);
  if (!rc) {
    CK(cudaMemcpy(times.data(), d.times, times.size() * sizeof times[0], cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(final.data(), d.final, C * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  }
  dev_free(&d);
  uint64_t total = warmup + (uint64_t)o->repeats * o->steps;
  for (unsigned k = 0; k < C && !rc; k++)
    if (final[k] != pt->base + (*pt->off)[gpu_chain_advance(n, pos[k], total)]) {
      fprintf(stderr, "tlbsim-gpu: chasers: chaser %u ended where the chain model says it cannot\n", k);
      rc = -1;
    }
  if (rc) return rc;
  /* Each chaser: its median pass; then across chasers. */
  std::vector<double> cyc(C), ns(C), pass_c(o->repeats), pass_n(o->repeats);
  double sc = 0, sn = 0, mean = 0, rate = 0;
  for (unsigned k = 0; k < C; k++) {
    for (unsigned r = 0; r < o->repeats; r++) {
      const unsigned long long *x = &times[2 * ((size_t)k * o->repeats + r)];
      pass_c[r] = (double)x[0] / (double)o->steps;
      pass_n[r] = (double)x[1] / (double)o->steps;
      sc += (double)x[0];
      sn += (double)x[1];
    }
    cyc[k] = gpu_summarize(pass_c.data(), pass_c.size()).median;
    ns[k] = gpu_summarize(pass_n.data(), pass_n.size()).median;
    mean += cyc[k] / C;
    if (ns[k] > 0) rate += 1.0 / ns[k];
  }
  row->cycles_first = cyc[0];
  row->cycles = gpu_summarize(cyc.data(), cyc.size());
  row->cycles_mean = mean;
  row->ns_per_access = gpu_summarize(ns.data(), ns.size()).median;
  row->loads_per_ns = rate;
  row->sm_clock_khz = sn > 0 ? sc / sn * 1e6 : 0;
  row->warmup = warmup;
  row->chasers = C;
  row->sms_used = nset;
  return 0;
}

static int chasers_mapping(const gpu_ctx *c, const gpu_opts *o, region_mapping m, FILE *csv) {
  if (m == REGION_ALIASED) {
    fprintf(stderr, "tlbsim-gpu: chasers: the aliased mapping is not supported here\n");
    return -1;
  }
  uint64_t stride = o->sweep.strides[0], maxfp = 0, cap = gpu_region_cap(m);
  std::vector<uint64_t> fps;
  for (size_t i = 0; i < o->sweep.nfootprints; i++) {
    uint64_t n = o->sweep.footprints[i] / stride;
    if (!n || n > UINT32_MAX || n * stride > cap) {
      gpu_progress("chasers: footprint %llu skipped (%llu nodes; %.1f GiB may be allocated now)",
                   (unsigned long long)o->sweep.footprints[i], (unsigned long long)n, (double)cap / (1ull << 30));
      continue;
    }
    fps.push_back(n * stride);
    maxfp = std::max(maxfp, n * stride);
  }
  if (fps.empty()) return 0;
  gpu_region reg;
  gpu_region_create(c, &reg, m, maxfp, o->chunk, o->seed, 0);
  std::vector<uint64_t> off;
  diag d;
  int rc = 0;
  double t0 = gpu_now_s();
  for (size_t f = 0; f < fps.size() && !rc; f++)
    for (int ord = 0; ord < GPU_ORDER_COUNT && !rc; ord++) {
      if (!(o->sweep.orders >> ord & 1)) continue;
      gpu_chain_spec spec = {(uint32_t)(fps[f] / stride), stride, (gpu_order)ord, o->seed, 0, 0};
      if (gpu_chain_write_dev(reg.base, &spec, off)) {
        rc = -1;
        break;
      }
      for (size_t si = 0; si < o->nsm_sets && !rc; si++)
        for (size_t k = 0; k < o->nper_sm && !rc; k++) {
          chasers_point pt = {reg.base, &off, o->sm_sets[si], (unsigned)o->per_sm[k]};
          gpu_chasers_row row;
          memset(&row, 0, sizeof row);
          char name[1024];
          row.order = spec.order;
          row.mapping = m;
          row.page_bytes = gpu_mapping_page_bytes(m, c->granularity);
          row.stride_bytes = stride;
          row.footprint_bytes = fps[f];
          row.steps = o->steps;
          row.device = c->prop.name;
          row.repeats = o->repeats;
          row.seed = o->seed;
          row.nodes = spec.nodes;
          row.per_sm = pt.per_sm;
          row.sm_set = gpu_sm_set_name(&pt.set, name, sizeof name);
          row.va_base = reg.base;
          rc = chasers_run(c, o, &pt, &row);
          if (!rc && gpu_csv_chasers_row(csv, &row, &d)) {
            fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
            rc = -1;
          }
        }
      gpu_progress("chasers: %.3g GiB %s done, %.1f s", (double)fps[f] / (1ull << 30), gpu_order_name(spec.order),
                   gpu_now_s() - t0);
    }
  gpu_region_destroy(c, &reg);
  return rc;
}

int gpu_cmd_chasers(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_chasers_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  for (int m = 0; m < REGION_MAPPING_COUNT; m++)
    if ((o->mappings >> m & 1) && chasers_mapping(c, o, (region_mapping)m, csv)) return GPU_EXIT_FAIL;
  return 0;
}
