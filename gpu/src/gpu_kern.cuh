/* gpu_kern.cuh — device helpers shared by the chase and sharing kernels. */
#ifndef TLBSIM_GPU_KERN_CUH
#define TLBSIM_GPU_KERN_CUH

#include <stdint.h>

/* One dependent load. cg caches in L2 only, so every access reaches the
 * L2 (and its translation) and the L1 data cache never hides it; ca allows
 * L1 caching. */
template <bool CA>
__device__ __forceinline__ uint64_t gpu_ld(uint64_t p) {
  uint64_t v;
  if (CA) asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  else asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ unsigned gpu_smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ __forceinline__ uint64_t gpu_gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint64_t gpu_clock() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}

#endif
