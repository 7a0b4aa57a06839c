/* standalone.cuh — what the standalone probes under gpu/scripts share (the
 * suite's gpu_cuda.h checks through gpu_fail, which lives in tlbsim-gpu's
 * own objects): a CUDA call's failure ends the probe with its name, the
 * call and CUDA's reason. Define STANDALONE_NAME before including. */
#ifndef TLBSIM_GPU_STANDALONE_CUH
#define TLBSIM_GPU_STANDALONE_CUH

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CK(x)                                                                                                  \
  do {                                                                                                         \
    cudaError_t e_ = (x);                                                                                      \
    if (e_ != cudaSuccess) {                                                                                   \
      fprintf(stderr, STANDALONE_NAME ": %s: %s\n", #x, cudaGetErrorString(e_));                               \
      exit(1);                                                                                                 \
    }                                                                                                          \
  } while (0)

#endif
