/* gpu_uvm.h — the managed-memory experiment of `tlbsim-gpu uvm`: how a
 * buffer is populated (init), which kernel touches it first (first), and
 * which sizes may run at all. Plain C, shared with the simulator's
 * `tlbsim uvm`, which writes the same schema predicted.
 *
 * init   malloc         plain cudaMalloc (the baseline)
 *        gpu            cudaMallocManaged, first touched by the GPU (the first kernel)
 *        host           managed, every byte written by the host, then faulted in by the GPU
 *        host_prefetch  host-written, then cudaMemPrefetchAsync to the GPU (prefetch_ms)
 *        advise         host-written, cudaMemAdviseSetPreferredLocation(GPU), then prefetched
 * first  stream         grid-stride 16-byte ld.global.cg over the whole buffer, SMs x 8 blocks of 512
 *        gather         SMs x 2048 threads in blocks of 256, 64 independent 8-byte ld.global.cg each,
 *                       at the first word of line gpu_gather_node(seed, thread, load, size / 128)
 *
 * Sizes: never more than half the device's free memory (no oversubscription:
 * managed memory beyond it can hang a shared GPU), and for the host inits
 * never more than the host's available memory less 8 GiB.
 */
#ifndef TLBSIM_GPU_UVM_H
#define TLBSIM_GPU_UVM_H

#ifdef __cplusplus
extern "C" {
#endif

#include "tlbsim/base.h"

typedef enum gpu_uvm_init {
  GPU_UVM_MALLOC, GPU_UVM_GPU, GPU_UVM_HOST, GPU_UVM_HOST_PREFETCH, GPU_UVM_ADVISE, GPU_UVM_INIT_COUNT
} gpu_uvm_init;
typedef enum gpu_uvm_first { GPU_UVM_STREAM, GPU_UVM_GATHER, GPU_UVM_FIRST_COUNT } gpu_uvm_first;

extern const char *const gpu_uvm_init_names[GPU_UVM_INIT_COUNT + 1]; /* NULL-terminated: cli_opts choices */
extern const char *const gpu_uvm_first_names[GPU_UVM_FIRST_COUNT + 1];

#define GPU_UVM_GATHER_TPS 2048u    /* threads per SM */
#define GPU_UVM_GATHER_LOADS 64u    /* loads per thread */
#define GPU_UVM_STREAM_BLOCKS 8u    /* blocks per SM */
#define GPU_UVM_STREAM_THREADS 512u /* threads per block */
#define GPU_UVM_HOST_MARGIN (8ull << 30)

/* Whether the init writes the buffer on the host first. */
bool gpu_uvm_host_written(gpu_uvm_init i);
/* NULL when `size` may run now; else why not (a constant string). */
const char *gpu_uvm_refusal(gpu_uvm_init i, uint64_t size, uint64_t dev_free, uint64_t host_avail);
/* MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read. */
uint64_t gpu_host_available(void);

#ifdef __cplusplus
}
#endif
#endif
