/* Bandwidth (`tlbsim-gpu stream`): grid-stride 16-byte ld.global.cg over a
 * buffer, SMs x 8 blocks of 512 threads, each thread with 4 loads in flight
 * per iteration; read sums what it loads (written only if the sum is a magic
 * value, so nothing is elided), copy stores each 16 bytes to a second
 * buffer. A launch makes `passes` passes, enough that it moves at least
 * 256 MiB (L2-resident sizes then measure the L2, not the launch). One
 * warm-up launch, then `repeats` launches each between two cudaEvents. */
#include <string.h>

#include <algorithm>
#include <vector>

#include "gpu_cuda.h"

#define STREAM_UNROLL 4
#define STREAM_MIN_BYTES (256ull << 20)
#define STREAM_MAGIC 0x5eedf00du

template <bool COPY>
__global__ void __launch_bounds__(GPU_UVM_STREAM_THREADS) stream_kernel(const uint4 *src, uint4 *dst, uint64_t n16,
                                                                       unsigned passes, unsigned *sink) {
  const uint64_t nt = (uint64_t)gridDim.x * blockDim.x, t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = 0;
  for (unsigned p = 0; p < passes; p++)
    for (uint64_t i = t; i < n16; i += STREAM_UNROLL * nt) {
      uint4 v[STREAM_UNROLL];
#pragma unroll
      for (unsigned u = 0; u < STREAM_UNROLL; u++)
        if (i + u * nt < n16) v[u] = __ldcg(src + i + u * nt);
#pragma unroll
      for (unsigned u = 0; u < STREAM_UNROLL; u++)
        if (i + u * nt < n16) {
          if (COPY) dst[i + u * nt] = v[u];
          else x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
        }
    }
  if (!COPY && x == STREAM_MAGIC) *sink = x;
}

static unsigned stream_grid(const gpu_ctx *c) { return (unsigned)c->prop.multiProcessorCount * GPU_UVM_STREAM_BLOCKS; }

void gpu_stream_read_launch(const gpu_ctx *c, uint64_t base, uint64_t bytes, unsigned passes, unsigned *sink) {
  stream_kernel<false><<<stream_grid(c), GPU_UVM_STREAM_THREADS>>>((const uint4 *)(uintptr_t)base, nullptr,
                                                                   bytes / 16, passes, sink);
}

/* One point: median, min and max GB/s over the timed launches. */
static void stream_time(const gpu_ctx *c, bool copy, uint64_t src, uint64_t dst, uint64_t size, unsigned passes,
                        unsigned repeats, unsigned *sink, gpu_stream_row *row) {
  auto launch = [&]() {
    if (copy)
      stream_kernel<true><<<stream_grid(c), GPU_UVM_STREAM_THREADS>>>((const uint4 *)(uintptr_t)src,
                                                                      (uint4 *)(uintptr_t)dst, size / 16, passes,
                                                                      nullptr);
    else gpu_stream_read_launch(c, src, size, passes, sink);
  };
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  double moved = (double)size * passes * (copy ? 2 : 1);
  std::vector<double> gbps(repeats), ns(repeats);
  for (unsigned r = 0; r < repeats; r++) {
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaGetLastError());
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ns[r] = ms * 1e6;
    gbps[r] = moved / ns[r];
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  row->gbps = gpu_summarize(gbps.data(), repeats);
  row->ns_per_launch = gpu_summarize(ns.data(), repeats).median;
  row->bytes_per_launch = (uint64_t)moved;
}

int gpu_cmd_stream(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_stream_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  uint64_t fp[GPU_MAX_LIST * 4];
  size_t nf = o->sweep.nfootprints;
  if (nf) memcpy(fp, o->sweep.footprints, nf * sizeof fp[0]);
  else nf = gpu_footprint_range(o->sweep.fmin, o->sweep.fmax, o->sweep.per_octave, fp, sizeof fp / sizeof fp[0]);
  for (size_t i = 0; i < nf; i++) fp[i] &= ~15ull;
  bool copy = o->stream_kinds >> 1 & 1, read = o->stream_kinds & 1;
  /* One buffer: read uses its first S bytes, copy [0, S) into [half, half + S). */
  uint64_t want = 0;
  for (size_t i = 0; i < nf; i++) want = std::max(want, std::max(read ? fp[i] : 0, copy ? 2 * fp[i] : 0));
  uint64_t fr = gpu_free_bytes(), have = std::min(want, fr) & ~((2ull << 20) - 1);
  if (!have) {
    fprintf(stderr, "tlbsim-gpu: stream: no memory to stream through\n");
    return GPU_EXIT_FAIL;
  }
  void *buf = nullptr;
  unsigned *sink = nullptr;
  CK(cudaMalloc(&sink, sizeof *sink));
  CK(cudaMalloc(&buf, have));
  CK(cudaMemset(buf, 0x5a, have));
  uint64_t base = (uint64_t)(uintptr_t)buf, half = have / 2 & ~((2ull << 20) - 1);
  int rc = 0;
  for (int k = 0; k < 2 && !rc; k++) {
    if (!(o->stream_kinds >> k & 1)) continue;
    for (size_t i = 0; i < nf && !rc; i++) {
      uint64_t size = fp[i];
      if (!size || (k ? size > half : size > have)) {
        gpu_progress("stream %s: %.3g GiB skipped: it does not fit the %.1f GiB allocated", k ? "copy" : "read",
                     (double)size / (1ull << 30), (double)have / (1ull << 30));
        continue;
      }
      uint64_t per_pass = size * (k ? 2 : 1);
      unsigned passes = (unsigned)std::max<uint64_t>(1, (STREAM_MIN_BYTES + per_pass - 1) / per_pass);
      gpu_stream_row row;
      memset(&row, 0, sizeof row);
      row.kind = k ? "copy" : "read";
      row.size_bytes = size;
      row.footprint_bytes = per_pass;
      row.passes = passes;
      row.repeats = o->repeats;
      row.blocks = stream_grid(c);
      row.block_threads = GPU_UVM_STREAM_THREADS;
      row.va_base = base;
      row.device = c->prop.name;
      stream_time(c, k == 1, base, base + half, size, passes, o->repeats, sink, &row);
      if (gpu_csv_stream_row(csv, &row, &d)) {
        fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
        rc = -1;
      }
    }
  }
  CK(cudaFree(buf));
  CK(cudaFree(sink));
  return rc ? GPU_EXIT_FAIL : 0;
}
