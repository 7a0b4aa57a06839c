/* Memory latency for a kernel model: one thread on SM --sm chasing
 * ld.global.cg loads (chase schema rows, gpu/README.md "Memory latency").
 *
 * dram-chase  n nodes on distinct random 128-byte lines of the footprint F
 *             (node i at line gpu_rowperm_at(i) of F/128, seeded), visited
 *             in index order. After the chain is written, a stream read of a
 *             separate 512 MiB buffer evicts it from the L2; the warm-up
 *             (--warmup, 1024) refills the TLBs, and warm-up plus the timed
 *             passes never come back to a node, so every timed load misses
 *             the L2. One region of the largest F (one cudaMalloc, 32 MiB
 *             aligned); F <= 256 MiB lies in 16 aligned 16 MiB regions, what
 *             the L1 TLB holds, so there translation always hits the first
 *             level. base_cycles: the same lines' L2-hit latency (one-node
 *             cycles, taken after the chase), translation hitting too.
 * l2-chase    every line of F in one seeded random cycle (the chase chain at
 *             a 128-byte stride), warmed by a full pass: where the cycles
 *             rise from the L2-hit to the DRAM latency is the L2's capacity
 *             for one SM's reads. */
#include <string.h>

#include <algorithm>
#include <vector>

#include "gpu_cuda.h"
#include "tlbsim/gpu_embed.h"

#define MEMLAT_FLUSH_BYTES (512ull << 20)
#define MEMLAT_LINE 128u

static gpu_chase_row lat_row(const gpu_ctx *c, const gpu_opts *o, const char *pattern, uint64_t footprint,
                             uint32_t nodes, uint64_t warmup, uint64_t base, const gpu_chase_out *r) {
  gpu_chase_row row;
  memset(&row, 0, sizeof row);
  row.pattern = pattern;
  row.order = GPU_ORDER_RANDOM;
  row.mapping = REGION_CUDAMALLOC;
  row.page_bytes = c->granularity;
  row.stride_bytes = MEMLAT_LINE;
  row.footprint_bytes = footprint;
  row.steps = o->steps;
  row.cycles = r->cycles;
  row.ns = r->ns;
  row.sm_clock_khz = r->khz;
  row.device = c->prop.name;
  row.repeats = o->repeats;
  row.seed = o->seed;
  row.nodes = nodes;
  row.warmup = warmup;
  row.lanes = 1;
  row.sm = r->sm;
  row.va_base = base;
  row.base_mean = r->base_mean;
  row.base = r->base;
  row.base_samples = r->base_samples;
  row.disruptor_sm = -1;
  row.population = "";
  return row;
}

static int lat_sweep(const gpu_ctx *c, const gpu_opts *o, bool cold, FILE *csv) {
  diag d;
  if (gpu_csv_chase_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  std::vector<uint64_t> f(o->sweep.footprints, o->sweep.footprints + o->sweep.nfootprints);
  std::sort(f.begin(), f.end());
  uint64_t flush = cold ? MEMLAT_FLUSH_BYTES : 0, cap = gpu_free_bytes();
  cap = cap > flush ? cap - flush : 0;
  while (!f.empty() && f.back() > cap) {
    gpu_progress("%s: %.3g GiB skipped: more than may be allocated now", cold ? "dram-chase" : "l2-chase",
                 (double)f.back() / (1ull << 30));
    f.pop_back();
  }
  if (f.empty()) return 0;
  void *region = nullptr, *fbuf = nullptr;
  CK(cudaMalloc(&region, f.back()));
  if (cold) CK(cudaMalloc(&fbuf, flush));
  uint64_t base = (uint64_t)(uintptr_t)region;
  int rc = 0;
  double t0 = gpu_now_s();
  for (size_t i = 0; i < f.size() && !rc; i++) {
    uint64_t lines = f[i] / MEMLAT_LINE;
    uint64_t n = cold ? o->nodes[0] : lines;
    if (!lines || n > lines || n > UINT32_MAX) {
      gpu_progress("%s: %llu-byte footprint skipped: it holds %llu lines, %llu nodes wanted",
                   cold ? "dram-chase" : "l2-chase", (unsigned long long)f[i], (unsigned long long)lines,
                   (unsigned long long)n);
      continue;
    }
    std::vector<uint64_t> visit(n);
    if (cold) {
      gpu_rowperm p;
      gpu_rowperm_init(&p, lines, o->seed);
      for (uint64_t k = 0; k < n; k++) visit[k] = base + MEMLAT_LINE * gpu_rowperm_at(&p, k);
    } else {
      gpu_chain_spec spec = {(uint32_t)n, MEMLAT_LINE, GPU_ORDER_RANDOM, o->seed, 0, 0};
      if (gpu_chain_build(&spec, visit.data(), &d)) {
        fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
        rc = -1;
        break;
      }
      for (uint64_t &v : visit) v += base;
    }
    uint64_t warmup = cold ? o->warmup : std::max<uint64_t>(o->warmup, n);
    gpu_chase_visit_cfg vc = {&visit, warmup, o->steps, o->repeats, o->sm, (uint64_t)(uintptr_t)fbuf, flush, true};
    gpu_chase_out r;
    if (gpu_chase_visit(c, &vc, &r)) {
      rc = -1;
      break;
    }
    gpu_chase_row row = lat_row(c, o, cold ? "dram-chase" : "l2-chase", f[i], (uint32_t)n, warmup, base, &r);
    if (gpu_csv_chase_row(csv, &row, &d)) {
      fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
      rc = -1;
    }
    gpu_progress("%s: %.3g MiB: %.1f cycles (L2 hit %.1f), %.1f s", cold ? "dram-chase" : "l2-chase",
                 (double)f[i] / (1 << 20), r.cycles.median, r.base_mean, gpu_now_s() - t0);
  }
  CK(cudaFree(region));
  if (fbuf) CK(cudaFree(fbuf));
  return rc ? GPU_EXIT_FAIL : 0;
}

int gpu_cmd_dram_chase(const gpu_ctx *c, const gpu_opts *o, FILE *csv) { return lat_sweep(c, o, true, csv); }
int gpu_cmd_l2_chase(const gpu_ctx *c, const gpu_opts *o, FILE *csv) { return lat_sweep(c, o, false, csv); }
