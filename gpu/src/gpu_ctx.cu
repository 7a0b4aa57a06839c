/* The device context: find the GPU, load the driver-API entry points. */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "gpu_cuda.h"

void gpu_fail(const char *file, int line, const char *call, const char *err) {
  fprintf(stderr, "tlbsim-gpu: %s:%d: %s: %s\n", file, line, call, err);
  exit(GPU_EXIT_FAIL);
}

const char *gpu_cu_error(const gpu_ctx *c, CUresult r) {
  const char *s = NULL;
  if (c && c->drv.error_string && c->drv.error_string(r, &s) == CUDA_SUCCESS && s) return s;
  return "driver error";
}

double gpu_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void gpu_progress(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tlbsim-gpu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* Resolves one driver symbol at the ABI of CUDA 12.0 (the _v2 / v3020
 * variants of the calls used here). */
static int entry(const char *name, void **fn) {
  cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q);
#else
  cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fn) {
    fprintf(stderr, "tlbsim-gpu: driver entry point %s not found\n", name);
    return -1;
  }
  return 0;
}

int gpu_ctx_init(gpu_ctx *c) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    fprintf(stderr, "tlbsim-gpu: no CUDA device: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return GPU_EXIT_NO_DEVICE;
  }
  c->device = 0;
  CK(cudaSetDevice(c->device));
  CK(cudaGetDeviceProperties(&c->prop, c->device));
  CK(cudaDriverGetVersion(&c->driver_version));
  CK(cudaRuntimeGetVersion(&c->runtime_version));
  struct {
    const char *name;
    void **fn;
  } t[] = {
      {"cuMemAddressReserve", (void **)&c->drv.reserve},
      {"cuMemAddressFree", (void **)&c->drv.address_free},
      {"cuMemCreate", (void **)&c->drv.create},
      {"cuMemRelease", (void **)&c->drv.release},
      {"cuMemMap", (void **)&c->drv.map},
      {"cuMemUnmap", (void **)&c->drv.unmap},
      {"cuMemSetAccess", (void **)&c->drv.set_access},
      {"cuMemGetAllocationGranularity", (void **)&c->drv.granularity},
      {"cuMemGetAddressRange", (void **)&c->drv.address_range},
      {"cuGetErrorString", (void **)&c->drv.error_string},
  };
  for (auto &x : t)
    if (entry(x.name, x.fn)) return GPU_EXIT_FAIL;
  CUmemAllocationProp prop = gpu_vmm_prop(c);
  size_t g = 0;
  CKD(c, c->drv.granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  c->granularity = g;
  size_t fr = 0, tot = 0;
  CK(cudaMemGetInfo(&fr, &tot));
  gpu_progress("device %s, %d SMs, L2 %d KiB, cc %d.%d, driver %d, runtime %d, VMM granularity %llu KiB, "
               "free %.1f of %.1f GiB",
               c->prop.name, c->prop.multiProcessorCount, c->prop.l2CacheSize >> 10, c->prop.major,
               c->prop.minor, c->driver_version, c->runtime_version, (unsigned long long)(g >> 10),
               (double)fr / (1 << 30), (double)tot / (1 << 30));
  return 0;
}

CUmemAllocationProp gpu_vmm_prop(const gpu_ctx *c) {
  CUmemAllocationProp p = {};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = c->device;
  return p;
}

uint64_t gpu_free_bytes(void) {
  size_t fr = 0, tot = 0;
  CK(cudaMemGetInfo(&fr, &tot));
  const uint64_t margin = 1ull << 30; /* context, chains, results */
  return fr > margin ? fr - margin : 0;
}
