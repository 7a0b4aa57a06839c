// lat_probe.cu — the latencies the kernel model gives constants it has no
// measurement for (issue #23, docs/KERNEL.md "What is missing": one warp of
// the stream kernel runs a pass in 513 model cycles where the H200 takes 603;
// the pass waits on LDC.64 of a kernel parameter before each 16-byte load,
// and the model gives an LDC the L1-hit latency, l1_hit_cycles = 32, and an
// S2R the ALU's, alu_cycles = 4). One thread, dependent chains, each timed
// with gpu_clock_after around STEPS links (the clock read waits for the last):
//   ldc_N         idx = c[idx] over a seeded random cycle of N 4-byte entries
//                 of a __constant__ array (LDC R, c[0x3][R]): the constant
//                 cache's hit latency (N = 64: 256 bytes; N = 4096: 16 KiB);
//   ldc_imm_link  a constant load at an immediate address predicated on a
//                 test of x, added into x (the stream's @!P0 LDC.64 form);
//   alu_link      the same with a move of x: the link's ALU part, so that
//                 ldc_imm_link - alu_link is the LDC's latency beyond a move;
//   ldg8, ldg16   ld.global.cg of 8 and 16 bytes chasing a seeded random
//                 cycle of 128-byte lines of a 4 MiB buffer (L2 hits after
//                 the warm-up pass): whether a 16-byte load costs more.
// Build and run (gpu/results/h200/lat_probe/):
//   nvcc -O2 -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -I gpu/src -I gpu/scripts -o lat_probe lat_probe.cu
//   ./lat_probe > lat_probe.csv
// Rows: probe,steps,cycles,cycles_per_step (each probe run 5 times: every run a row).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define STANDALONE_NAME "lat_probe"
#include "standalone.cuh" /* CK (gpu/scripts) */

#include "gpu_kern.cuh" /* gpu_clock_after (gpu/src: device code only) */

#define STEPS 4096u
#define CONST_MAX 4096u
#define LINE 128u
#define BUF_BYTES (4u << 20)
#define RUNS 5

__constant__ uint32_t cnext[CONST_MAX];

/* The constant-cache chase: STEPS dependent LDCs from entry threadIdx.x
 * (0: a per-thread index, so ptxas cannot use the uniform ULDC). */
__global__ void chase_const(unsigned long long *out) {
  uint32_t idx = threadIdx.x;
  for (unsigned i = 0; i < STEPS; i++) idx = cnext[idx]; /* warm */
  uint64_t t0 = gpu_clock_after(idx + 1ull);
#pragma unroll 16
  for (unsigned i = 0; i < STEPS; i++) idx = cnext[idx];
  uint64_t t1 = gpu_clock_after(idx + 1ull);
  out[0] = t1 - t0;
  out[1] = idx;
}

/* One link of a chain through an instruction with a fixed operand, the
 * stream's form (@!P0 LDC.64 R24, c[0x0][0x210]): predicated on a test of
 * x, so it cannot issue before x is there, its result added into x. KIND 0:
 * a constant load at an immediate address (cnext[0] is 0); 1: a move of x
 * itself (the ALU's link, to subtract). x starts from threadIdx.x, so it
 * is per-thread and the load is an LDC, not the uniform datapath's ULDC.
 * (An S2R cannot be chained so: ptxas reads %tid.x once for the loop; the
 * stream kernel's one S2R is before its loop, outside a pass.) */
template <int KIND>
__device__ __forceinline__ uint32_t link(uint32_t x) {
  uint32_t v;
  if (KIND == 0)
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 12345;\n\t@p ld.const.u32 %0, [cnext];\n\t"
                 "@!p mov.u32 %0, 0;\n\t}"
                 : "=r"(v)
                 : "r"(x));
  else
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 12345;\n\t@p mov.u32 %0, 0;\n\t"
                 "@!p mov.u32 %0, %1;\n\t}"
                 : "=r"(v)
                 : "r"(x));
  return x + v;
}

template <int KIND>
__global__ void chase_link(unsigned long long *out) {
  uint32_t x = threadIdx.x + 1;
  uint64_t t0 = gpu_clock_after(x);
#pragma unroll 16
  for (unsigned i = 0; i < STEPS; i++) x = link<KIND>(x);
  uint64_t t1 = gpu_clock_after(x);
  out[0] = t1 - t0;
  out[1] = x;
}

/* A chase of 8- or 16-byte ld.global.cg over the buffer's cycle (a node's
 * second word is 0: the 16-byte load's both halves make the next). */
template <bool WIDE>
__global__ void chase_global(const uint64_t *start, unsigned long long *out) {
  uint64_t p = (uint64_t)(uintptr_t)start;
  for (unsigned i = 0; i < BUF_BYTES / LINE; i++) p = gpu_ld<false>(p); /* one pass: L2-resident */
  uint64_t t0 = gpu_clock_after(p);
#pragma unroll 16
  for (unsigned i = 0; i < STEPS; i++) {
    if (WIDE) {
      uint64_t a, b;
      asm volatile("ld.global.cg.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
      p = a ^ b;
    } else {
      p = gpu_ld<false>(p);
    }
  }
  uint64_t t1 = gpu_clock_after(p);
  out[0] = t1 - t0;
  out[1] = p;
}

/* A seeded random cycle of n entries (xorshift; Sattolo's shuffle). */
static std::vector<uint32_t> cycle(uint32_t n, uint64_t seed) {
  std::vector<uint32_t> order(n), next(n);
  for (uint32_t i = 0; i < n; i++) order[i] = i;
  for (uint32_t i = n - 1; i > 0; i--) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    uint32_t j = (uint32_t)(seed % i);
    uint32_t t = order[i];
    order[i] = order[j], order[j] = t;
  }
  for (uint32_t i = 0; i < n; i++) next[order[i]] = order[(i + 1) % n];
  return next;
}

static void row(const char *probe, unsigned long long *d_out) {
  unsigned long long h[2];
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
  printf("%s,%u,%llu,%.2f\n", probe, STEPS, h[0], (double)h[0] / STEPS);
}

int main(int argc, char **argv) {
  if (argc != 1) {
    fprintf(stderr, "usage: lat_probe > lat_probe.csv\n");
    return 2;
  }
  unsigned long long *d_out;
  CK(cudaMalloc(&d_out, 2 * sizeof *d_out));
  uint64_t *buf;
  CK(cudaMalloc(&buf, BUF_BYTES));
  std::vector<uint32_t> lines = cycle(BUF_BYTES / LINE, 7);
  std::vector<uint64_t> host(BUF_BYTES / 8, 0);
  for (uint32_t i = 0; i < lines.size(); i++) host[i * (LINE / 8)] = (uint64_t)(uintptr_t)buf + (uint64_t)lines[i] * LINE;
  CK(cudaMemcpy(buf, host.data(), BUF_BYTES, cudaMemcpyHostToDevice));
  printf("probe,steps,cycles,cycles_per_step\n");
  for (unsigned n : {64u, 4096u}) {
    std::vector<uint32_t> c = cycle(n, 11);
    c.resize(CONST_MAX, 0);
    CK(cudaMemcpyToSymbol(cnext, c.data(), CONST_MAX * sizeof(uint32_t)));
    char name[32];
    snprintf(name, sizeof name, "ldc_%u", n);
    for (int r = 0; r < RUNS; r++) chase_const<<<1, 1>>>(d_out), row(name, d_out);
  }
  CK(cudaMemset(d_out, 0, 2 * sizeof *d_out));
  std::vector<uint32_t> zero(CONST_MAX, 0);
  CK(cudaMemcpyToSymbol(cnext, zero.data(), CONST_MAX * sizeof(uint32_t)));
  for (int r = 0; r < RUNS; r++) chase_link<0><<<1, 1>>>(d_out), row("ldc_imm_link", d_out);
  for (int r = 0; r < RUNS; r++) chase_link<1><<<1, 1>>>(d_out), row("alu_link", d_out);
  for (int r = 0; r < RUNS; r++) chase_global<false><<<1, 1>>>(buf, d_out), row("ldg8", d_out);
  for (int r = 0; r < RUNS; r++) chase_global<true><<<1, 1>>>(buf, d_out), row("ldg16", d_out);
  CK(cudaFree(buf));
  CK(cudaFree(d_out));
  return 0;
}
