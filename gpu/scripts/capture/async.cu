// async.cu — a program tlbsim-capture records: cudaMallocAsync from the
// default pool and from a pool of its own (with a trim), managed memory with
// prefetches, advice and host touches, and the driver's VMM calls
// (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess and back),
// each with a kernel touching what it made.
// Build: nvcc -arch=sm_90 -o async async.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)
#define CD(x)                                                             \
  do {                                                                    \
    CUresult r_ = (x);                                                    \
    if (r_ != CUDA_SUCCESS) {                                             \
      fprintf(stderr, "%s:%d: %s: CUresult %d\n", __FILE__, __LINE__, #x, (int)r_); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

__global__ void touch(char *p, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (char)i;
}

int main() {
  CK(cudaSetDevice(0));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  // cudaMallocAsync from the device's default pool, sizes varying
  void *a[16];
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < 16; i++) {
      size_t n = ((size_t)(i % 5) + 1) << (16 + round);
      CK(cudaMallocAsync(&a[i], n, s));
      touch<<<64, 256, 0, s>>>((char *)a[i], n);
    }
    for (int i = 0; i < 16; i += 2) CK(cudaFreeAsync(a[i], s));
    for (int i = 1; i < 16; i += 2) CK(cudaFreeAsync(a[i], s));
  }
  // a pool of its own, trimmed
  cudaMemPool_t pool;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  CK(cudaMemPoolCreate(&pool, &props));
  for (int i = 0; i < 8; i++) CK(cudaMallocFromPoolAsync(&a[i], (size_t)(i + 1) << 20, pool, s));
  for (int i = 0; i < 8; i++) CK(cudaFreeAsync(a[i], s));
  CK(cudaStreamSynchronize(s));
  CK(cudaMemPoolTrimTo(pool, 0));
  CK(cudaMemPoolDestroy(pool));
  // cudaMalloc, pinned host memory
  void *d, *h;
  CK(cudaMalloc(&d, 64 << 20));
  CK(cudaMallocHost(&h, 4 << 20));
  // managed: prefetch, advice, a host touch
  char *m;
  size_t mn = 32 << 20;
  CK(cudaMallocManaged(&m, mn));
  cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
  CK(cudaMemAdvise(m, mn, cudaMemAdviseSetReadMostly, gpu));
  CK(cudaMemAdvise(m, mn / 2, cudaMemAdviseSetPreferredLocation, host));
  CK(cudaMemAdvise(m, mn, cudaMemAdviseSetAccessedBy, gpu));
  CK(cudaMemPrefetchAsync(m, mn, gpu, 0, s));
  touch<<<128, 256, 0, s>>>(m, mn);
  CK(cudaMemPrefetchAsync(m, mn, host, 0, s));
  CK(cudaStreamSynchronize(s));
  for (size_t i = 0; i < mn; i += 4096) m[i]++;
  CK(cudaFree(m));
  // VMM: reserve, create, map, set access, use, and back
  CUdevice dev;
  CD(cuDeviceGet(&dev, 0));
  CUmemAllocationProp p = {};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = dev;
  size_t gran;
  CD(cuMemGetAllocationGranularity(&gran, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CUdeviceptr va;
  size_t vn = 16 * gran;
  CD(cuMemAddressReserve(&va, 4 * vn, 0, 0, 0));
  CUmemGenericAllocationHandle hd[2];
  CUmemAccessDesc acc = {};
  acc.location = p.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  for (int i = 0; i < 2; i++) {
    CD(cuMemCreate(&hd[i], vn, &p, 0));
    CD(cuMemMap(va + i * vn, vn, 0, hd[i], 0));
    CD(cuMemSetAccess(va + i * vn, vn, &acc, 1));
  }
  touch<<<128, 256, 0, s>>>((char *)va, 2 * vn);
  CK(cudaStreamSynchronize(s));
  for (int i = 0; i < 2; i++) {
    CD(cuMemUnmap(va + i * vn, vn));
    CD(cuMemRelease(hd[i]));
  }
  CD(cuMemAddressFree(va, 4 * vn));
  CK(cudaFree(d));
  CK(cudaFreeHost(h));
  CK(cudaStreamDestroy(s));
  printf("async: done\n");
  return 0;
}
