/* Launch geometry: where the hardware's block scheduler puts the blocks of
 * a launch. Thread 0 of every block reads %globaltimer and %smid at its
 * start; every thread of the block then spins on %globaltimer until spin_ns
 * have passed (so the block keeps all its warps, as a kernel of that block
 * size would), and thread 0 records the end. One row per block. */
#include <string.h>

#include <algorithm>
#include <vector>

#include "gpu_cuda.h"
#include "gpu_kern.cuh"

struct blocks_args {
  uint64_t spin_ns;
  unsigned long long *rec; /* per block: sm, start, end */
};

__global__ void blocks_kernel(blocks_args a) {
  __shared__ unsigned long long start;
  if (threadIdx.x == 0) start = gpu_gtimer();
  __syncthreads();
  uint64_t t0 = start, t = t0;
  while (t - t0 < a.spin_ns) t = gpu_gtimer();
  __syncthreads();
  if (threadIdx.x) return;
  unsigned long long *r = a.rec + 3 * (size_t)blockIdx.x;
  r[0] = gpu_smid(), r[1] = t0, r[2] = gpu_gtimer();
}

static int blocks_launch(const gpu_ctx *c, const gpu_opts *o, uint32_t grid, uint32_t threads, unsigned repeat,
                         unsigned long long *rec_dev, FILE *csv) {
  blocks_args a = {o->spin_ns, rec_dev};
  CK(cudaMemset(rec_dev, 0xff, 3 * (size_t)grid * sizeof(unsigned long long)));
  blocks_kernel<<<grid, threads>>>(a);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> rec(3 * (size_t)grid);
  CK(cudaMemcpy(rec.data(), rec_dev, rec.size() * sizeof rec[0], cudaMemcpyDeviceToHost));
  unsigned long long t0 = ~0ull;
  for (uint32_t b = 0; b < grid; b++) {
    if (rec[3 * b] == ~0ull) {
      fprintf(stderr, "tlbsim-gpu: blocks: block %u of %u did not run\n", b, grid);
      return -1;
    }
    t0 = std::min(t0, rec[3 * b + 1]);
  }
  diag d;
  for (uint32_t b = 0; b < grid; b++) {
    gpu_blocks_row r = {grid, threads, repeat, o->spin_ns, b, (unsigned)rec[3 * b], rec[3 * b + 1] - t0,
                        rec[3 * b + 2] - t0, (unsigned)c->prop.multiProcessorCount, c->prop.name};
    if (gpu_csv_blocks_row(csv, &r, &d)) {
      fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
      return -1;
    }
  }
  return fflush(csv) ? -1 : 0;
}

int gpu_cmd_blocks(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_blocks_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  uint64_t most = *std::max_element(o->grids, o->grids + o->ngrids);
  unsigned long long *rec = nullptr;
  CK(cudaMalloc(&rec, 3 * most * sizeof(unsigned long long)));
  /* One launch first, so module loading stays out of the placement. */
  blocks_args warm = {0, rec};
  blocks_kernel<<<1, 32>>>(warm);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int rc = 0;
  for (size_t t = 0; t < o->nblock_threads && !rc; t++)
    for (size_t g = 0; g < o->ngrids && !rc; g++)
      for (unsigned r = 0; r < o->repeats && !rc; r++)
        rc = blocks_launch(c, o, (uint32_t)o->grids[g], (uint32_t)o->block_threads[t], r, rec, csv);
  CK(cudaFree(rec));
  gpu_progress("blocks: %zu grids x %zu block sizes x %u repeats", o->ngrids, o->nblock_threads, o->repeats);
  return rc ? GPU_EXIT_FAIL : 0;
}
