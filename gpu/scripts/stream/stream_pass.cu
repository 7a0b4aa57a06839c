// stream_pass.cu — where a small stream's time goes (issue #23: tlbsim-gpu
// stream's reads below 16 MiB take ~800 cycles a pass more than the kernel
// model's pass). The kernel is gpu/src/gpu_stream.cu's read loop, verbatim,
// with one addition when RECORD is set: lane 0 of every warp writes its SM
// (%smid), clock64 and %globaltimer before the first pass and after the last.
// Build and run (gpu/results/h200/stream_pass/):
//   nvcc -O2 -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -I gpu/scripts -o stream_pass stream_pass.cu
//   ./stream_pass > stream_pass.csv          (one row per launch configuration)
//   ./stream_pass warps 1048576 > warps.csv  (one row per warp of the recorded 1 MiB launch)
// Per configuration: the launch time by cudaEvents (median of 5 after a
// warm-up, as tlbsim-gpu stream times it), and from the recording: the warps
// that loaded anything ("working": thread index < size / 16), the SMs they
// ran on, the most working warps on one SM, the median working warp's cycles
// per pass (clock64 end - start over passes), the span of the launch by
// %globaltimer (first warp start to last warp end) against the event time.
// Variants: "stream" is the measured launch (132 SMs x 8 blocks of 512
// threads); "working" launches only the blocks that hold working threads
// (ceil(size / 16 / 512)); "record" and "stream" differ only in the
// recording, so their event times say what it costs; "per_sm" launches 1-4
// blocks of 512 on every SM with every thread k = 1-4 loads a pass; "one_sm"
// one block of 128-512 threads (the rest of the GPU idle), k = 1-4;
// "one_sm_8b" the same with 8-byte loads (as many loads, half the lines);
// "one_sm_u8", "one_sm_8b_u8" one block of 128 with the loop unrolled 8
// times, k = 1-8 loads in flight a pass.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define STANDALONE_NAME "stream_pass"
#include "standalone.cuh" /* CK (gpu/scripts) */

#define STREAM_UNROLL 4
#define STREAM_THREADS 512u
#define STREAM_BLOCKS_PER_SM 8u
#define STREAM_MIN_BYTES (256ull << 20)
#define STREAM_MAGIC 0x5eedf00du

struct warp_rec {
  unsigned sm;
  unsigned long long c0, c1, t0, t1;
};

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }
__device__ __forceinline__ unsigned fold(uint2 v) { return v.x ^ v.y; }

/* V = uint4 is the measured kernel; V = uint2 the same loop over 8-byte
 * loads (half the lines a load), to tell a limit in loads from one in lines. */
template <bool RECORD, typename V, unsigned UNROLL = STREAM_UNROLL>
__global__ void __launch_bounds__(STREAM_THREADS) stream_read(const V *src, uint64_t n16, unsigned passes,
                                                             unsigned *sink, warp_rec *rec) {
  const uint64_t nt = (uint64_t)gridDim.x * blockDim.x, t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long c0 = 0, t0 = 0;
  if (RECORD && (threadIdx.x & 31) == 0) {
    t0 = gtimer();
    c0 = clock64();
  }
  unsigned x = 0;
  for (unsigned p = 0; p < passes; p++)
    for (uint64_t i = t; i < n16; i += UNROLL * nt) {
      V v[UNROLL];
#pragma unroll
      for (unsigned u = 0; u < UNROLL; u++)
        if (i + u * nt < n16) v[u] = __ldcg(src + i + u * nt);
#pragma unroll
      for (unsigned u = 0; u < UNROLL; u++)
        if (i + u * nt < n16) x ^= fold(v[u]);
    }
  if (x == STREAM_MAGIC) *sink = x;
  if (RECORD && (threadIdx.x & 31) == 0) {
    unsigned long long c1 = clock64(), t1 = gtimer();
    warp_rec *r = rec + t / 32;
    r->sm = smid();
    r->c0 = c0;
    r->c1 = c1;
    r->t0 = t0;
    r->t1 = t1;
  }
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct config {
  const char *variant;
  unsigned grid;
  bool record;
};

int main(int argc, char **argv) {
  bool dump = argc > 1 && !strcmp(argv[1], "warps");
  uint64_t dump_size = dump && argc > 2 ? strtoull(argv[2], nullptr, 0) : 0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const unsigned sms = (unsigned)prop.multiProcessorCount, full_grid = sms * STREAM_BLOCKS_PER_SM;
  const uint64_t max_bytes = 64ull << 20;
  uint4 *src;
  unsigned *sink;
  warp_rec *rec;
  const size_t nwarps = (size_t)full_grid * STREAM_THREADS / 32;
  CK(cudaMalloc(&src, max_bytes));
  CK(cudaMemset(src, 0x5a, max_bytes));
  CK(cudaMalloc(&sink, sizeof *sink));
  CK(cudaMalloc(&rec, nwarps * sizeof *rec));
  std::vector<warp_rec> host(nwarps);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  struct point {
    const char *variant;
    uint64_t size;
    unsigned grid, block;
    bool record;
    bool narrow; /* 8-byte loads */
    bool wide;   /* 8 loads a trip */
  };
  std::vector<point> pts;
  const uint64_t sizes[] = {1ull << 20, 2ull << 20, 4ull << 20, 8ull << 20, 16ull << 20, 32ull << 20};
  for (uint64_t size : sizes) {
    const unsigned working = (unsigned)std::min<uint64_t>((size / 16 + STREAM_THREADS - 1) / STREAM_THREADS, full_grid);
    pts.push_back({"stream", size, full_grid, STREAM_THREADS, false});
    pts.push_back({"record", size, full_grid, STREAM_THREADS, true});
    pts.push_back({"working", size, working, STREAM_THREADS, true});
  }
  /* Every thread k = 1-4 16-byte loads a pass (k = size / 16 / threads:
   * one trip of the unrolled loop): blocks per SM 1-4 on all SMs (a launch
   * that fits at once, block k on SM entry k mod SMs), and one SM alone. */
  for (unsigned m = 1; m <= 4; m++)
    for (unsigned k = 1; k <= 4; k++)
      pts.push_back({"per_sm", (uint64_t)k * m * sms * STREAM_THREADS * 16, m * sms, STREAM_THREADS, true});
  for (unsigned b = 128; b <= STREAM_THREADS; b *= 2)
    for (unsigned k = 1; k <= 4; k++) {
      pts.push_back({"one_sm", (uint64_t)k * b * 16, 1, b, true, false});
      pts.push_back({"one_sm_8b", (uint64_t)k * b * 16, 1, b, true, true});
    }
  for (unsigned k = 1; k <= 8; k++) {
    pts.push_back({"one_sm_u8", (uint64_t)k * 128 * 16, 1, 128, true, false, true});
    pts.push_back({"one_sm_8b_u8", (uint64_t)k * 128 * 16, 1, 128, true, true, true});
  }
  if (!dump)
    printf("variant,size_bytes,passes,grid,block,ns_per_launch,ns_per_pass,gbps,working_warps,working_sms,"
           "max_working_warps_per_sm,cycles_per_pass_median,cycles_per_pass_max,span_ns,device,sm_clock_khz_max\n");
  else printf("warp,sm,working,cycles,ns\n");
  for (const point &pt : pts) {
    if (dump && (pt.size != dump_size || strcmp(pt.variant, "record"))) continue;
    const uint64_t n16 = pt.size / 16;
    const unsigned passes = (unsigned)std::max<uint64_t>(1, (STREAM_MIN_BYTES + pt.size - 1) / pt.size);
    auto launch = [&]() {
      if (pt.wide && pt.narrow)
        stream_read<true, uint2, 8><<<pt.grid, pt.block>>>((const uint2 *)src, n16, passes, sink, rec);
      else if (pt.wide) stream_read<true, uint4, 8><<<pt.grid, pt.block>>>(src, n16, passes, sink, rec);
      else if (pt.narrow) stream_read<true, uint2><<<pt.grid, pt.block>>>((const uint2 *)src, n16, passes, sink, rec);
      else if (pt.record) stream_read<true, uint4><<<pt.grid, pt.block>>>(src, n16, passes, sink, rec);
      else stream_read<false, uint4><<<pt.grid, pt.block>>>(src, n16, passes, sink, rec);
    };
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<double> ns;
    for (int r = 0; r < 5; r++) {
      CK(cudaEventRecord(e0));
      launch();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      ns.push_back(ms * 1e6);
    }
    double med = median(ns);
    const size_t w = (size_t)pt.grid * pt.block / 32;
    std::vector<double> cyc;
    std::vector<unsigned> per_sm(1024, 0);
    unsigned working = 0, nsm = 0;
    double cmax = 0, span = 0;
    if (pt.record) {
      CK(cudaMemcpy(host.data(), rec, w * sizeof host[0], cudaMemcpyDeviceToHost));
      unsigned long long tmin = ~0ull, tmax = 0;
      for (size_t k = 0; k < w; k++) {
        const warp_rec &r = host[k];
        tmin = std::min(tmin, r.t0);
        tmax = std::max(tmax, r.t1);
        bool works = (uint64_t)k * 32 < n16;
        double c = (double)(r.c1 - r.c0) / passes;
        if (dump) printf("%zu,%u,%d,%.1f,%llu\n", k, r.sm, works, c, r.t1 - r.t0);
        if (!works) continue;
        working++;
        cyc.push_back(c);
        cmax = std::max(cmax, c);
        if (r.sm < per_sm.size() && per_sm[r.sm]++ == 0) nsm++;
      }
      span = (double)(tmax - tmin);
    }
    if (dump) continue;
    unsigned most = *std::max_element(per_sm.begin(), per_sm.end());
    printf("%s,%llu,%u,%u,%u,%.1f,%.2f,%.2f,%u,%u,%u,%.1f,%.1f,%.1f,%s,%d\n", pt.variant,
           (unsigned long long)pt.size, passes, pt.grid, pt.block, med, med / passes, (double)pt.size * passes / med,
           working, nsm, most, cyc.empty() ? 0.0 : median(cyc), cmax, span, prop.name, khz);
    fflush(stdout);
  }
  return 0;
}
