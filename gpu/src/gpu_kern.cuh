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

/* %globaltimer (ns) read after `after` arrived, like gpu_clock_after. */
__device__ __forceinline__ uint64_t gpu_gtimer_after(uint64_t after) {
  uint64_t t;
  asm volatile(
      "{\n\t.reg .pred z;\n\tsetp.eq.u64 z, %1, 0;\n\t@z mov.u64 %0, 0;\n\t@!z mov.u64 %0, %%globaltimer;\n\t}"
      : "=l"(t)
      : "l"(after)
      : "memory");
  return t;
}

__device__ __forceinline__ uint64_t gpu_gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* The SM's cycle counter, read once `after` (a load's result) has
 * arrived: the read is predicated on a test of it, so neither the compiler
 * nor the hardware can move it before that load completes. Bracketing a
 * pass of dependent loads with reads after the warm-up's last load and
 * after the pass's last load makes the interval exactly `steps` load
 * latencies, even in fully unrolled code. */
__device__ __forceinline__ uint64_t gpu_clock_after(uint64_t after) {
  uint64_t t;
  asm volatile(
      "{\n\t.reg .pred z;\n\tsetp.eq.u64 z, %1, 0;\n\t@z mov.u64 %0, 0;\n\t@!z mov.u64 %0, %%clock64;\n\t}"
      : "=l"(t)
      : "l"(after)
      : "memory");
  return t;
}

#endif
