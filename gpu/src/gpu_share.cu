/* TLB-sharing probe: a prober chases a chain that fits one TLB level on
 * SM `--sm` while a disruptor on SM k chases a chain far larger than every
 * level. If the prober slows down, the two SMs share the level its chain
 * lives in; sweeping k over all SMs and the prober's footprint over the
 * levels maps which SMs share which level.
 *
 * Both roles are claimed like the chase's pinned block (%smid + atomicCAS;
 * see gpu_chase.cu). The prober waits for the disruptor to be running
 * before its warm-up, and tells it to stop when done; both give up after
 * a timeout so a block that never got its SM cannot hang the GPU. */
#include <string.h>

#include "gpu_cuda.h"
#include "gpu_kern.cuh"

#define SHARE_TIMEOUT_NS 2000000000ull
#define SHARE_TRIES 8

struct share_args {
  uint64_t prober_start, disruptor_start;
  uint64_t warmup, steps;
  unsigned repeats;
  int prober_sm, disruptor_sm; /* disruptor_sm < 0: prober alone */
  unsigned *claim;             /* [0] prober taken, [1] disruptor taken */
  volatile unsigned *flag;     /* [0] disruptor running, [1] prober done */
  unsigned long long *times;   /* [2r] cycles, [2r+1] ns of timed pass r */
  uint64_t *final;             /* [0] prober's last node, [1] disruptor's */
  unsigned *status;            /* 1: the disruptor never started */
};

template <bool CA>
__global__ void __launch_bounds__(32) share_kernel(share_args a) {
  if (threadIdx.x) return;
  unsigned sm = gpu_smid();
  bool prober = sm == (unsigned)a.prober_sm && atomicCAS(&a.claim[0], 0u, 1u) == 0u;
  bool disruptor = !prober && a.disruptor_sm >= 0 && sm == (unsigned)a.disruptor_sm &&
                   atomicCAS(&a.claim[1], 0u, 1u) == 0u;
  if (disruptor) {
    a.flag[0] = 1;
    __threadfence();
    uint64_t p = a.disruptor_start, t0 = gpu_gtimer();
    while (!a.flag[1] && gpu_gtimer() - t0 < SHARE_TIMEOUT_NS)
      for (int k = 0; k < 64; k++) p = gpu_ld<CA>(p);
    a.final[1] = p;
    return;
  }
  if (!prober) return;
  if (a.disruptor_sm >= 0)
    for (uint64_t t0 = gpu_gtimer(); !a.flag[0];)
      if (gpu_gtimer() - t0 > SHARE_TIMEOUT_NS) {
        a.status[0] = 1;
        a.flag[1] = 1;
        return;
      }
  uint64_t p = a.prober_start;
  for (uint64_t k = 0; k < a.warmup; k++) p = gpu_ld<CA>(p);
  for (unsigned r = 0; r < a.repeats; r++) {
    uint64_t c0 = gpu_clock_after(p), g0 = gpu_gtimer_after(p);
    for (uint64_t k = 0; k < a.steps; k++) p = gpu_ld<CA>(p);
    uint64_t c1 = gpu_clock_after(p), g1 = gpu_gtimer_after(p);
    a.times[2 * r] = c1 - c0;
    a.times[2 * r + 1] = g1 - g0;
  }
  a.final[0] = p;
  __threadfence();
  a.flag[1] = 1;
}

struct share_dev {
  unsigned *claim, *flag, *status;
  unsigned long long *times;
  uint64_t *final;
};

/* One launch pair: returns 0 and fills cyc/ns, or -1 when the roles never
 * met after SHARE_TRIES launches (the caller skips that SM). */
static int share_once(const gpu_ctx *c, const gpu_opts *o, share_args a, const share_dev *dv, double *cyc,
                      double *ns, double *khz) {
  for (int t = 0; t < SHARE_TRIES; t++) {
    CK(cudaMemset(dv->claim, 0, 2 * sizeof(unsigned)));
    CK(cudaMemset(dv->flag, 0, 2 * sizeof(unsigned)));
    CK(cudaMemset(dv->status, 0, sizeof(unsigned)));
    unsigned grid = (unsigned)c->prop.multiProcessorCount * 4u << (t / 2);
    if (o->load_ca) share_kernel<true><<<grid, 32>>>(a);
    else share_kernel<false><<<grid, 32>>>(a);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned claim[2], status = 0;
    CK(cudaMemcpy(claim, dv->claim, sizeof claim, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&status, dv->status, sizeof status, cudaMemcpyDeviceToHost));
    if (!claim[0] || status) continue;
    std::vector<unsigned long long> times(2 * (size_t)a.repeats);
    CK(cudaMemcpy(times.data(), dv->times, times.size() * sizeof times[0], cudaMemcpyDeviceToHost));
    double sc = 0, sn = 0;
    for (unsigned r = 0; r < a.repeats; r++) {
      cyc[r] = (double)times[2 * r] / (double)a.steps;
      ns[r] = (double)times[2 * r + 1] / (double)a.steps;
      sc += (double)times[2 * r];
      sn += (double)times[2 * r + 1];
    }
    *khz = sn > 0 ? sc / sn * 1e6 : 0;
    return 0;
  }
  return -1;
}

int gpu_cmd_share(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_chase_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  region_mapping m = REGION_CONTIGUOUS;
  while (!(o->mappings & (1u << m))) m = (region_mapping)(m + 1);
  if (m == REGION_ALIASED) {
    fprintf(stderr, "tlbsim-gpu: share: the aliased mapping is not supported here\n");
    return GPU_EXIT_FAIL;
  }
  gpu_order order = o->sweep.orders & (1u << GPU_ORDER_RANDOM) ? GPU_ORDER_RANDOM : GPU_ORDER_SEQ;
  uint64_t pstride = o->sweep.strides[0], pmax = 0;
  for (size_t i = 0; i < o->sweep.nfootprints; i++)
    if (o->sweep.footprints[i] > pmax) pmax = o->sweep.footprints[i];
  /* Prober chains in [0, dis_off), the disruptor's after, 1 GiB apart. */
  uint64_t dis_off = (pmax + (1ull << 30)) & ~((1ull << 30) - 1);
  uint64_t dnodes = o->disruptor_footprint / o->disruptor_stride;
  if (!dnodes || dnodes > o->sweep.max_nodes || pstride % 8 || o->disruptor_stride % 8) {
    fprintf(stderr, "tlbsim-gpu: share: disruptor of %llu nodes is outside 1..--max-nodes\n",
            (unsigned long long)dnodes);
    return GPU_EXIT_FAIL;
  }
  uint64_t need = dis_off + dnodes * o->disruptor_stride;
  if (need > gpu_free_bytes()) {
    fprintf(stderr, "tlbsim-gpu: share: needs %.1f GiB, more than is free\n", (double)need / (1ull << 30));
    return GPU_EXIT_FAIL;
  }
  gpu_region reg;
  gpu_region_create(c, &reg, m, need, o->chunk, o->seed, 0);
  std::vector<uint64_t> doff, poff;
  gpu_chain_spec dspec = {(uint32_t)dnodes, o->disruptor_stride, GPU_ORDER_RANDOM, o->seed + 1, 0, 0};
  if (gpu_chain_write_dev(reg.base + dis_off, &dspec, doff)) return GPU_EXIT_FAIL;
  share_dev dv;
  CK(cudaMalloc(&dv.claim, 2 * sizeof(unsigned)));
  CK(cudaMalloc(&dv.flag, 2 * sizeof(unsigned)));
  CK(cudaMalloc(&dv.status, sizeof(unsigned)));
  CK(cudaMalloc(&dv.times, 2 * (size_t)o->repeats * sizeof(unsigned long long)));
  CK(cudaMalloc(&dv.final, 2 * sizeof(uint64_t)));
  std::vector<int> sms(o->sms, o->sms + o->nsms);
  if (sms.empty())
    for (int k = 0; k < c->prop.multiProcessorCount; k++) sms.push_back(k);
  std::vector<double> cyc(o->repeats), ns(o->repeats);
  int rc = 0;
  double t0 = gpu_now_s();
  for (size_t f = 0; f < o->sweep.nfootprints && !rc; f++) {
    uint64_t pn = o->sweep.footprints[f] / pstride;
    if (!pn || pn > o->sweep.max_nodes) {
      gpu_progress("share: prober footprint %llu skipped (%llu nodes)", (unsigned long long)o->sweep.footprints[f],
                   (unsigned long long)pn);
      continue;
    }
    gpu_chain_spec pspec = {(uint32_t)pn, pstride, order, o->seed, 0, 0};
    if (gpu_chain_write_dev(reg.base, &pspec, poff)) {
      rc = -1;
      break;
    }
    share_args a = {reg.base + poff[0], reg.base + dis_off + doff[0], o->warmup > pn ? o->warmup : pn,
                    o->steps, o->repeats, o->sm, -1, dv.claim, dv.flag, dv.times, dv.final, dv.status};
    for (size_t k = 0; k <= sms.size() && !rc; k++) {
      a.disruptor_sm = k == 0 ? -1 : sms[k - 1]; /* first: the prober alone */
      double khz = 0;
      if (share_once(c, o, a, &dv, cyc.data(), ns.data(), &khz)) {
        gpu_progress("share: SM %d: prober and disruptor never ran together; skipped", a.disruptor_sm);
        continue;
      }
      gpu_chase_row row;
      memset(&row, 0, sizeof row);
      row.pattern = "share";
      row.order = order;
      row.mapping = m;
      row.page_bytes = gpu_mapping_page_bytes(m, c->granularity);
      row.stride_bytes = pstride;
      row.footprint_bytes = pn * pstride;
      row.steps = o->steps;
      row.cycles = gpu_summarize(cyc.data(), cyc.size());
      row.ns = gpu_summarize(ns.data(), ns.size());
      row.load_ca = o->load_ca;
      row.sm_clock_khz = khz;
      row.device = c->prop.name;
      row.repeats = o->repeats;
      row.seed = o->seed;
      row.nodes = (uint32_t)pn;
      row.warmup = a.warmup;
      row.lanes = 1;
      row.sm = o->sm;
      row.chunk_bytes = reg.chunk;
      row.va_base = reg.base;
      row.disruptor_sm = a.disruptor_sm;
      row.disruptor_footprint = dnodes * o->disruptor_stride;
      row.disruptor_stride = o->disruptor_stride;
      if (gpu_csv_chase_row(csv, &row, &d)) {
        fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
        rc = -1;
      }
    }
    gpu_progress("share: prober footprint %llu MiB done, %.1f s", (unsigned long long)(pn * pstride >> 20),
                 gpu_now_s() - t0);
  }
  void *v[] = {dv.claim, (void *)dv.flag, dv.status, dv.times, dv.final};
  for (void *p : v) CK(cudaFree(p));
  gpu_region_destroy(c, &reg);
  return rc ? GPU_EXIT_FAIL : 0;
}
