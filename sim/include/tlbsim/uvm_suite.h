/* tlbsim/uvm_suite.h — the GPU suite's managed-memory experiment
 * (`tlbsim-gpu uvm`, gpu/README.md "Managed memory"), simulated: what
 * `tlbsim uvm` predicts and `tlbsim validate` compares with uvm rows.
 *
 * uvm_suite_spec    one row: how the buffer is populated (init: malloc,
 *                   gpu, host, host_prefetch, advise; tlbsim/gpu_uvm.h),
 *                   which kernel touches it first (stream or gather), its
 *                   size.
 * uvm_suite_result  the row's columns (prefetch_ms, cold_ms, stream_ms,
 *                   stream_gbps, gather_lpns, gather2_lpns) and what the
 *                   managed-memory model did on the way: the prefetch's and
 *                   the first kernel's counts (faults, batches, bytes), the
 *                   GPU's pages when the first kernel ended.
 *
 * The run, as the GPU does it: a fresh page table and device memory; the
 * buffer mapped with 2 MiB pages (malloc) or made a managed range
 * (tlbsim/uvm.h) written by the host (host, host_prefetch, advise), advised
 * to prefer the GPU (advise) and prefetched (host_prefetch, advise). Then
 * the first kernel's touches in the order it makes them — the stream's
 * big pages in VA order, the gather's 64 loads of each of SMs x 2048
 * threads at gpu_gather_node's lines, a group of 8 of every thread at a
 * time — each a GPU fault when its page is not mapped: cold_ms is their
 * cost plus the kernel's own time. Warm kernels on the state left: the
 * stream at [gpu] stream_gbps (plus stream_launch_ns), the gather through
 * the gather model (tlbsim/gather.h) over the pages the GPU maps, its data
 * served by the L2 cache for a share l2_bytes / size of its lines and by
 * DRAM (dram_interval, dram_cycles) for the rest; the gather again after a
 * stream pass that faults in whatever the first kernel left.
 */
#ifndef TLBSIM_UVM_SUITE_H
#define TLBSIM_UVM_SUITE_H

#include "tlbsim/gpu_uvm.h"
#include "tlbsim/machine.h"

typedef struct uvm_suite_spec {
  gpu_uvm_init init;
  gpu_uvm_first first;
  uint64_t size;    /* bytes, a positive multiple of 128 */
  uint64_t seed;    /* the gather's hash (tlbsim-gpu's --seed, 1) */
  uint64_t va_base; /* where the buffer lies; 0: aligned to its size rounded up to a power of two */
} uvm_suite_spec;

typedef struct uvm_suite_result {
  double prefetch_ms; /* < 0: no prefetch */
  double cold_ms, stream_ms, stream_gbps, gather_lpns, gather2_lpns;
  uvm_counts prefetch, cold; /* the prefetch's, the first kernel's */
  uint64_t pages_2m, pages_64k; /* the GPU's pages of the buffer when the first kernel ended */
} uvm_suite_result;

/* The largest buffer one row may simulate: the gather's hash takes 32-bit
 * line numbers (gpu_uvm_refusal). */
#define UVM_SUITE_MAX_SIZE (UINT64_C(128) << 32)

/* Simulates one row on a GPU preset's machine spec ([gpu] and [uvm]). */
int uvm_suite_run(const machine_spec *m, const uvm_suite_spec *s, uvm_suite_result *out, diag *d);

#endif
