/* Allocation experiments: how long cudaMalloc/cudaFree and the VMM calls
 * take against size, and where successive cudaMalloc calls land. */
#include <string.h>

#include "gpu_cuda.h"
#include "tlbsim/csv.h"

/* ---- latency ---------------------------------------------------------- */

static void latency_row(FILE *csv, const gpu_ctx *c, const char *api, uint64_t size, std::vector<double> &us) {
  gpu_summary s = gpu_summarize(us.data(), us.size());
  fprintf(csv, "%s,%llu,%zu,%.3f,%.3f,%.3f,", api, (unsigned long long)size, us.size(), s.median, s.min, s.max);
  csv_write_field(csv, c->prop.name);
  fputc('\n', csv);
  fflush(csv);
}

/* Times f() `repeats` times (the device idle before each), in microseconds. */
template <class F>
static void time_calls(unsigned repeats, std::vector<double> &us, F f) {
  us.clear();
  for (unsigned r = 0; r < repeats; r++) {
    CK(cudaDeviceSynchronize());
    double t0 = gpu_now_s();
    f();
    us.push_back((gpu_now_s() - t0) * 1e6);
  }
}

int gpu_cmd_alloc_latency(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  fputs("api,size_bytes,calls,median_us,min_us,max_us,device\n", csv);
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  cudaMemPool_t pool;
  cudaMemPoolProps pp = {};
  pp.allocType = cudaMemAllocationTypePinned;
  pp.location.type = cudaMemLocationTypeDevice;
  pp.location.id = c->device;
  CK(cudaMemPoolCreate(&pool, &pp));
  uint64_t keep = UINT64_MAX;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  CUmemAllocationProp prop = gpu_vmm_prop(c);
  std::vector<double> a, b, x, y, z;
  double t0 = gpu_now_s();
  for (uint64_t size = o->min_size; size <= o->max_size && size <= (1ull << 62); size *= 2) {
    if (size > gpu_free_bytes() / 2) break;
    unsigned reps = size >= (1ull << 30) ? (o->repeats < 3 ? o->repeats : 3) : o->repeats;
    std::vector<void *> ptrs(reps);
    unsigned i = 0;
    time_calls(reps, a, [&] { CK(cudaMalloc(&ptrs[i++], size)); });
    i = 0;
    time_calls(reps, b, [&] { CK(cudaFree(ptrs[i++])); });
    latency_row(csv, c, "cudaMalloc", size, a);
    latency_row(csv, c, "cudaFree", size, b);
    /* Stream-ordered: from a pool trimmed empty (the driver maps memory),
     * then from a pool that still holds a freed block of this size. */
    void *p = NULL;
    time_calls(reps, a, [&] {
      CK(cudaMemPoolTrimTo(pool, 0));
      CK(cudaMallocFromPoolAsync(&p, size, pool, st));
      CK(cudaStreamSynchronize(st));
      CK(cudaFreeAsync(p, st));
      CK(cudaStreamSynchronize(st));
    });
    time_calls(reps, b, [&] {
      CK(cudaMallocFromPoolAsync(&p, size, pool, st));
      CK(cudaStreamSynchronize(st));
      CK(cudaFreeAsync(p, st));
      CK(cudaStreamSynchronize(st));
    });
    latency_row(csv, c, "cudaMallocAsync_cold+free", size, a);
    latency_row(csv, c, "cudaMallocAsync_warm+free", size, b);
    CK(cudaMemPoolTrimTo(pool, 0));
    /* VMM, for sizes in whole granules: the steps of a mapping. */
    uint64_t vs = size;
    if (size % c->granularity) continue;
    std::vector<double> create, reserve, map, access, unmap, release, vfree;
    for (unsigned r = 0; r < reps; r++) {
      CUmemGenericAllocationHandle h;
      CUdeviceptr va;
      CUmemAccessDesc acc = {};
      acc.location = prop.location;
      acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      double s0 = gpu_now_s();
      CKD(c, c->drv.create(&h, vs, &prop, 0));
      double s1 = gpu_now_s();
      CKD(c, c->drv.reserve(&va, vs, 0, 0, 0));
      double s2 = gpu_now_s();
      CKD(c, c->drv.map(va, vs, 0, h, 0));
      double s3 = gpu_now_s();
      CKD(c, c->drv.set_access(va, vs, &acc, 1));
      double s4 = gpu_now_s();
      CKD(c, c->drv.unmap(va, vs));
      double s5 = gpu_now_s();
      CKD(c, c->drv.release(h));
      double s6 = gpu_now_s();
      CKD(c, c->drv.address_free(va, vs));
      double s7 = gpu_now_s();
      create.push_back((s1 - s0) * 1e6), reserve.push_back((s2 - s1) * 1e6), map.push_back((s3 - s2) * 1e6);
      access.push_back((s4 - s3) * 1e6), unmap.push_back((s5 - s4) * 1e6), release.push_back((s6 - s5) * 1e6);
      vfree.push_back((s7 - s6) * 1e6);
    }
    latency_row(csv, c, "cuMemCreate", vs, create);
    latency_row(csv, c, "cuMemAddressReserve", vs, reserve);
    latency_row(csv, c, "cuMemMap", vs, map);
    latency_row(csv, c, "cuMemSetAccess", vs, access);
    latency_row(csv, c, "cuMemUnmap", vs, unmap);
    latency_row(csv, c, "cuMemRelease", vs, release);
    latency_row(csv, c, "cuMemAddressFree", vs, vfree);
  }
  CK(cudaMemPoolDestroy(pool));
  CK(cudaStreamDestroy(st));
  gpu_progress("alloc-latency: %.1f s", gpu_now_s() - t0);
  return 0;
}

/* ---- layout ----------------------------------------------------------- */

struct layout_state {
  const gpu_ctx *c;
  FILE *csv;
  const char *experiment;
  unsigned index;
  uint64_t prev; /* previous address in this experiment, 0: none */
};

static uint64_t low_bit(uint64_t a) { return a ? a & (~a + 1) : 0; }

/* cudaMalloc(size), one row: address, alignment, distance from the
 * previous, 2 MiB region, the range the driver reports, free-memory drop. */
static void *layout_alloc(layout_state *s, uint64_t size) {
  size_t f0, f1, tot;
  void *p = NULL;
  CK(cudaMemGetInfo(&f0, &tot));
  CK(cudaMalloc(&p, size));
  CK(cudaMemGetInfo(&f1, &tot));
  uint64_t a = (uint64_t)(uintptr_t)p;
  CUdeviceptr rb = 0;
  size_t rs = 0;
  CKD(s->c, s->c->drv.address_range(&rb, &rs, (CUdeviceptr)a));
  long long delta = s->prev ? (long long)(a - s->prev) : 0;
  fprintf(s->csv, "%s,%u,%llu,0x%llx,%llu,%lld,0x%llx,%d,0x%llx,%llu,%lld\n", s->experiment, s->index++,
          (unsigned long long)size, (unsigned long long)a, (unsigned long long)low_bit(a), delta,
          (unsigned long long)(a >> 21), s->prev && (a >> 21) == (s->prev >> 21), (unsigned long long)rb,
          (unsigned long long)rs, (long long)f0 - (long long)f1);
  s->prev = a;
  return p;
}

static void layout_begin(layout_state *s, const char *experiment) {
  s->experiment = experiment;
  s->index = 0;
  s->prev = 0;
}

int gpu_cmd_alloc_layout(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  fputs("experiment,index,size_bytes,addr,align_bytes,delta_bytes,region_2m,same_2m_as_prev,range_base,"
        "range_bytes,free_drop_bytes\n",
        csv);
  const uint64_t K = 1024, M = K * K;
  const uint64_t sizes[] = {1,       256,       512,   513,        4 * K,  64 * K,      1 * M,  2 * M - 512,
                            2 * M,   2 * M + 1, 3 * M, 4 * M,      10 * M, 64 * M,      1024 * M};
  layout_state s = {c, csv, "", 0, 0};
  char name[64];
  std::vector<void *> live;
  /* Runs of 8 equal sizes: rounding, alignment, sharing of 2 MiB regions. */
  for (uint64_t size : sizes) {
    snprintf(name, sizeof name, "run_%llu", (unsigned long long)size);
    layout_begin(&s, name);
    for (int i = 0; i < 8; i++) live.push_back(layout_alloc(&s, size));
    for (void *p : live) CK(cudaFree(p));
    live.clear();
  }
  /* 64 mixed sizes, log-uniform 1 B .. 16 MiB, all alive together. */
  layout_begin(&s, "mixed");
  rng r;
  rng_seed(&r, o->seed);
  for (int i = 0; i < 64; i++) {
    uint64_t size = 1 + rng_below(&r, 1u << (1 + rng_below(&r, 24)));
    live.push_back(layout_alloc(&s, size));
  }
  for (void *p : live) CK(cudaFree(p));
  live.clear();
  /* Free then allocate again: is an address reused at once? */
  const uint64_t reuse[] = {512, 1 * M, 2 * M, 64 * M};
  for (uint64_t size : reuse) {
    snprintf(name, sizeof name, "reuse_%llu", (unsigned long long)size);
    layout_begin(&s, name);
    void *p = layout_alloc(&s, size);
    void *q = layout_alloc(&s, size); /* a neighbour keeps the region busy */
    CK(cudaFree(p));
    p = layout_alloc(&s, size);
    CK(cudaFree(p));
    CK(cudaFree(q));
  }
  fflush(csv);
  return 0;
}
