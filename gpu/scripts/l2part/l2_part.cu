// l2_part.cu — which SMs share an L2 partition (issue #23: the kernel model's
// `[gpu] l2_partition` was assumed). One SM (A) reads every line of a buffer
// of F bytes once (a one-thread ld.global.cg chase over a seeded random cycle
// of its 128-byte lines); then another SM (B) chases the same cycle once more,
// timed. A line the L2 holds for A's partition is near for B when B is of the
// same partition (the L2-hit latency, ~285 cycles: chase.csv's base_cycles)
// and farther when it is not (run4/l2_chase.csv: a read its SM's partition
// misses and the rest of the L2 holds costs ~530). Before each pair a 512 MiB
// stream read of another buffer empties the L2 of the chain's lines.
// Build and run (gpu/results/h200/l2_part/):
//   nvcc -O2 -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -I gpu/src -I gpu/scripts -o l2_part l2_part.cu
//   ./l2_part [F_MiB [hist]] > l2_part.csv
// Rows: warm_sm (A), chase_sm (B), footprint_bytes, loads, cycles_per_load (and
// with `hist` each load's cycles in 64 bins of 16: hist_16_cycle_bins, space-
// separated counts; each bin's update adds to the load it times); for
// every B: A = 0, A = 66 (an SM of the other half if SMs 0-63 are one) and
// A = B (the line's own SM: every load near, the control).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define STANDALONE_NAME "l2_part"
#include "standalone.cuh" /* CK (gpu/scripts) */

#include "gpu_kern.cuh" /* gpu_smid, gpu_ld, gpu_clock_after (gpu/src: device code only) */

#define LINE 128u
#define FLUSH_BYTES (512ull << 20)

struct result {
  unsigned claimed, sm;
  unsigned long long cycles, last;
};

#define HIST_BINS 64u
#define HIST_WIDTH 16u /* cycles a bin: 0-1023 */

// Thread 0 of the first block to start on SM `sm` chases `steps` loads from
// `start`; every other block returns at once.
// With hist, each load's cycles, from the one before's arrival to its own
// (gpu_clock_after: the clock read waits for the load; the bin's update in
// shared memory between them included), are counted in HIST_BINS bins.
__global__ void pinned_chase(const uint64_t *start, uint64_t steps, unsigned sm, result *r, unsigned *hist) {
  __shared__ unsigned h[HIST_BINS];
  if (threadIdx.x || gpu_smid() != sm || atomicCAS(&r->claimed, 0u, 1u)) return;
  for (unsigned i = 0; i < HIST_BINS; i++) h[i] = 0;
  uint64_t p = (uint64_t)(uintptr_t)start;
  long long t0 = clock64();
  if (hist) {
    uint64_t before = gpu_clock_after(p);
    for (uint64_t i = 0; i < steps; i++) {
      p = gpu_ld<false>(p);
      uint64_t now = gpu_clock_after(p);
      unsigned bin = (unsigned)((now - before) / HIST_WIDTH);
      h[bin < HIST_BINS ? bin : HIST_BINS - 1]++;
      before = now;
    }
    for (unsigned i = 0; i < HIST_BINS; i++) hist[i] = h[i];
  } else {
    for (uint64_t i = 0; i < steps; i++) p = gpu_ld<false>(p);
  }
  long long t1 = clock64();
  r->cycles = (unsigned long long)(t1 - t0);
  r->last = (unsigned long long)p;
  r->sm = gpu_smid();
}

__global__ void flush(const uint4 *b, uint64_t n, unsigned *sink) {
  unsigned x = 0;
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(b + i));
    x ^= v.x ^ v.w;
  }
  if (x == 0x5eedf00du) *sink = x;
}

// steps loads on SM sm from start; its cycles (the chase must run on sm).
static unsigned long long chase_on(unsigned sm, const uint64_t *start, uint64_t steps, unsigned blocks, result *r,
                                   unsigned *hist) {
  CK(cudaMemset(r, 0, sizeof *r));
  pinned_chase<<<blocks, 32>>>(start, steps, sm, r, hist);
  CK(cudaGetLastError());
  result h;
  CK(cudaMemcpy(&h, r, sizeof h, cudaMemcpyDeviceToHost));
  if (!h.claimed || h.sm != sm) {
    fprintf(stderr, "l2_part: no block ran on SM %u\n", sm);
    exit(1);
  }
  return h.cycles;
}

int main(int argc, char **argv) {
  char *end = nullptr;
  uint64_t fmib = argc > 1 ? strtoull(argv[1], &end, 10) : 16;
  if ((argc > 1 && (*end || end == argv[1])) || fmib == 0 || fmib > (1u << 16) ||
      (argc > 2 && strcmp(argv[2], "hist")) || argc > 3) {
    fprintf(stderr, "usage: l2_part [F_MiB (1-65536) [hist]]\n");
    return 2;
  }
  uint64_t bytes = fmib << 20, n = bytes / LINE;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  unsigned sms = (unsigned)prop.multiProcessorCount, blocks = 8 * sms; // every SM gets blocks
  uint64_t *chain, *fbuf;
  unsigned *sink;
  result *r;
  CK(cudaMalloc(&chain, bytes));
  CK(cudaMalloc(&fbuf, FLUSH_BYTES));
  CK(cudaMalloc(&sink, sizeof *sink));
  CK(cudaMalloc(&r, sizeof *r));
  CK(cudaMemset(fbuf, 0, FLUSH_BYTES));
  // a random cycle over the lines (seeded xorshift, Fisher-Yates)
  std::vector<uint64_t> perm(n), words(bytes / 8, 0);
  for (uint64_t i = 0; i < n; i++) perm[i] = i;
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = n - 1; i > 0; i--) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    uint64_t j = s % (i + 1), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  uint64_t base = (uint64_t)(uintptr_t)chain;
  for (uint64_t k = 0; k < n; k++) words[perm[k] * (LINE / 8)] = base + LINE * perm[(k + 1) % n];
  CK(cudaMemcpy(chain, words.data(), bytes, cudaMemcpyHostToDevice));
  const uint64_t *start = (const uint64_t *)(base + LINE * perm[0]);
  bool histo = argc > 2;
  unsigned *hist = nullptr, hh[HIST_BINS];
  if (histo) CK(cudaMalloc(&hist, HIST_BINS * sizeof *hist));
  printf("warm_sm,chase_sm,footprint_bytes,loads,cycles_per_load,device%s\n",
         histo ? ",hist_16_cycle_bins" : "");
  for (unsigned b = 0; b < sms; b++) {
    unsigned warm[3] = {0, 66 % sms, b};
    for (unsigned w : warm) {
      flush<<<sms * 4, 512>>>((const uint4 *)fbuf, FLUSH_BYTES / 16, sink);
      CK(cudaGetLastError());
      chase_on(w, start, n, blocks, r, nullptr);
      unsigned long long c = chase_on(b, start, n, blocks, r, hist);
      printf("%u,%u,%llu,%llu,%.2f,%s", w, b, (unsigned long long)bytes, (unsigned long long)n, (double)c / n, prop.name);
      if (histo) {
        CK(cudaMemcpy(hh, hist, sizeof hh, cudaMemcpyDeviceToHost));
        printf(",");
        for (unsigned i = 0; i < HIST_BINS; i++) printf("%s%u", i ? " " : "", hh[i]);
      }
      printf("\n");
      fflush(stdout);
    }
  }
  return 0;
}
