/* Managed memory (`tlbsim-gpu uvm`, issue #24): for each size (ascending),
 * init and first kernel (gpu_uvm.h), in this order:
 *   1. allocate (cudaMalloc or cudaMallocManaged) and populate as init says;
 *      host_prefetch and advise time their cudaMemPrefetchAsync (prefetch_ms)
 *   2. the first kernel, event-timed (cold_ms)
 *   3. the gather, median of `repeats` (gather_lpns: the state the first
 *      kernel left)
 *   4. one stream pass (untimed: the dense pass that brings in what the
 *      first kernel did not touch), then the stream, median of `repeats`
 *      (stream_ms, stream_gbps)
 *   5. the gather again, median of `repeats` (gather2_lpns)
 * A size more than half the device's free memory (cudaMemGetInfo, read
 * before each allocation) or, for the host inits, more than the host's
 * available memory less 8 GiB is skipped: managed memory is never
 * oversubscribed. Rows are written as they complete. */
#include <string.h>

#include <algorithm>
#include <vector>

#include "gpu_cuda.h"
#include "gpu_kern.cuh"

#define UVM_GATHER_BLOCK 256u
#define UVM_MAGIC 0x5eedf00d5eedf00dull

__device__ __forceinline__ uint64_t uvm_ld(uint64_t p) {
  uint64_t v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

__global__ void __launch_bounds__(UVM_GATHER_BLOCK) uvm_gather_kernel(uint64_t base, uint32_t lines, uint64_t seed,
                                                                      uint64_t *sink) {
  uint64_t t = (uint64_t)blockIdx.x * UVM_GATHER_BLOCK + threadIdx.x, sum = 0;
#pragma unroll 1
  for (uint32_t j0 = 0; j0 < GPU_UVM_GATHER_LOADS; j0 += GPU_GATHER_BATCH) {
    uint64_t a[GPU_GATHER_BATCH];
#pragma unroll
    for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) a[u] = base + 128ull * gpu_gather_node(seed, t, j0 + u, lines);
#pragma unroll
    for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) a[u] = uvm_ld(a[u]);
#pragma unroll
    for (unsigned u = 0; u < GPU_GATHER_BATCH; u++) sum += a[u];
  }
  if (sum == UVM_MAGIC) *sink = sum;
}

struct uvm_run {
  const gpu_ctx *c;
  uint64_t base, size, seed;
  uint64_t *sink;
  cudaEvent_t e0, e1;
};

/* Milliseconds of whatever `launch` puts on the default stream. */
template <class F>
static double timed_ms(uvm_run *u, F launch) {
  CK(cudaEventRecord(u->e0));
  launch();
  CK(cudaEventRecord(u->e1));
  CK(cudaGetLastError());
  CK(cudaEventSynchronize(u->e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, u->e0, u->e1));
  return ms;
}

static uint64_t gather_threads(const gpu_ctx *c) { return (uint64_t)c->prop.multiProcessorCount * GPU_UVM_GATHER_TPS; }

static void gather_launch(uvm_run *u) {
  unsigned blocks = (unsigned)(gather_threads(u->c) / UVM_GATHER_BLOCK);
  uvm_gather_kernel<<<blocks, UVM_GATHER_BLOCK>>>(u->base, (uint32_t)(u->size / 128), u->seed, u->sink);
}

static void stream_launch(uvm_run *u) { gpu_stream_read_launch(u->c, u->base, u->size & ~15ull, 1, (unsigned *)u->sink); }

template <class F>
static double median_ms(uvm_run *u, unsigned repeats, F launch) {
  std::vector<double> v(repeats);
  for (unsigned r = 0; r < repeats; r++) v[r] = timed_ms(u, launch);
  return gpu_summarize(v.data(), repeats).median;
}

static void uvm_point(const gpu_ctx *c, const gpu_opts *o, gpu_uvm_init init, gpu_uvm_first first, uint64_t size,
                      uvm_run *u, gpu_uvm_row *row) {
  void *p = nullptr;
  if (init == GPU_UVM_MALLOC) CK(cudaMalloc(&p, size));
  else CK(cudaMallocManaged(&p, size, cudaMemAttachGlobal));
  u->base = (uint64_t)(uintptr_t)p;
  u->size = size;
  if (gpu_uvm_host_written(init)) gpu_host_fill(u->base, size);
  row->prefetch_ms = -1;
  if (init == GPU_UVM_ADVISE) CK(cudaMemAdvise(p, size, cudaMemAdviseSetPreferredLocation, gpu_device_location(c)));
  if (init == GPU_UVM_HOST_PREFETCH || init == GPU_UVM_ADVISE)
    row->prefetch_ms = timed_ms(u, [&]() { CK(cudaMemPrefetchAsync(p, size, gpu_device_location(c), 0, 0)); });
  row->cold_ms = first == GPU_UVM_STREAM ? timed_ms(u, [&]() { stream_launch(u); })
                                         : timed_ms(u, [&]() { gather_launch(u); });
  double loads = (double)gather_threads(c) * GPU_UVM_GATHER_LOADS;
  row->gather_lpns = loads / (median_ms(u, o->repeats, [&]() { gather_launch(u); }) * 1e6);
  timed_ms(u, [&]() { stream_launch(u); });
  row->stream_ms = median_ms(u, o->repeats, [&]() { stream_launch(u); });
  row->stream_gbps = (double)size / (row->stream_ms * 1e6);
  row->gather2_lpns = loads / (median_ms(u, o->repeats, [&]() { gather_launch(u); }) * 1e6);
  CK(cudaFree(p));
}

int gpu_cmd_uvm(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_uvm_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  uvm_run u = {c, 0, 0, o->seed, nullptr, nullptr, nullptr};
  CK(cudaMalloc(&u.sink, sizeof(uint64_t)));
  CK(cudaEventCreate(&u.e0));
  CK(cudaEventCreate(&u.e1));
  std::vector<uint64_t> sizes(o->sizes, o->sizes + o->nsizes);
  std::sort(sizes.begin(), sizes.end());
  double t0 = gpu_now_s();
  int rc = 0;
  for (uint64_t size : sizes)
    for (int i = 0; i < GPU_UVM_INIT_COUNT && !rc; i++) {
      if (!(o->uvm_inits >> i & 1)) continue;
      for (int f = 0; f < GPU_UVM_FIRST_COUNT && !rc; f++) {
        if (!(o->uvm_firsts >> f & 1)) continue;
        size_t fr = 0, tot = 0;
        CK(cudaMemGetInfo(&fr, &tot));
        uint64_t host = o->host_mem ? o->host_mem : gpu_host_available();
        const char *why = gpu_uvm_refusal((gpu_uvm_init)i, size, fr, host);
        if (why) {
          gpu_progress("uvm %s/%s %.3g GiB skipped: %s (device free %.1f GiB, host %.1f GiB)", gpu_uvm_init_names[i],
                       gpu_uvm_first_names[f], (double)size / (1ull << 30), why, (double)fr / (1ull << 30),
                       (double)host / (1ull << 30));
          continue;
        }
        gpu_uvm_row row;
        memset(&row, 0, sizeof row);
        row.init = gpu_uvm_init_names[i];
        row.first = gpu_uvm_first_names[f];
        row.size = size;
        uvm_point(c, o, (gpu_uvm_init)i, (gpu_uvm_first)f, size, &u, &row);
        if (gpu_csv_uvm_row(csv, &row, &d)) {
          fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
          rc = -1;
        }
        gpu_progress("uvm %s/%s %.3g GiB: cold %.2f ms, %.1f s", row.init, row.first, (double)size / (1ull << 30),
                     row.cold_ms, gpu_now_s() - t0);
      }
    }
  CK(cudaEventDestroy(u.e0));
  CK(cudaEventDestroy(u.e1));
  CK(cudaFree(u.sink));
  return rc ? GPU_EXIT_FAIL : 0;
}
