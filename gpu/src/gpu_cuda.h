/* gpu_cuda.h — what the CUDA parts of tlbsim-gpu share (C++ only).
 *
 * gpu_ctx     the device, its properties and the driver-API entry points.
 *             The driver API is reached through cudaGetDriverEntryPoint,
 *             not by linking libcuda, so the program starts (and exits 2)
 *             on a machine with no driver at all.
 * gpu_region  the memory a sweep chases through, backed by one mapping.
 * CK / CKD    check a runtime / driver (through ctx) call; on failure print
 *             "tlbsim-gpu: FILE:LINE: CALL: ERROR" and exit 1.
 */
#ifndef TLBSIM_GPU_CUDA_H
#define TLBSIM_GPU_CUDA_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdio.h>

#include <vector>

#include "gpu_bufset.h"
#include "gpu_csv.h"
#include "tlbsim/gpu_gather.h"
#include "gpu_opts.h"
#include "tlbsim/gpu_plan.h"
#include "gpu_pool.h"

#define GPU_EXIT_FAIL 1
/* No CUDA device: 77, the skip status of ctest (SKIP_RETURN_CODE) and automake, distinct from a usage error (2) */
#define GPU_EXIT_NO_DEVICE 77

[[noreturn]] void gpu_fail(const char *file, int line, const char *call, const char *err);
struct gpu_ctx;
const char *gpu_cu_error(const gpu_ctx *c, CUresult r);

#define CK(call)                                                                    \
  do {                                                                              \
    cudaError_t ck_e_ = (call);                                                     \
    if (ck_e_ != cudaSuccess) gpu_fail(__FILE__, __LINE__, #call, cudaGetErrorString(ck_e_)); \
  } while (0)
#define CKD(ctx, call)                                                                  \
  do {                                                                                  \
    CUresult ck_r_ = (call);                                                            \
    if (ck_r_ != CUDA_SUCCESS) gpu_fail(__FILE__, __LINE__, #call, gpu_cu_error(ctx, ck_r_)); \
  } while (0)

struct gpu_drv {
  PFN_cuMemAddressReserve_v10020 reserve;
  PFN_cuMemAddressFree_v10020 address_free;
  PFN_cuMemCreate_v10020 create;
  PFN_cuMemRelease_v10020 release;
  PFN_cuMemMap_v10020 map;
  PFN_cuMemUnmap_v10020 unmap;
  PFN_cuMemSetAccess_v10020 set_access;
  PFN_cuMemGetAllocationGranularity_v10020 granularity;
  PFN_cuMemGetAddressRange_v3020 address_range;
  PFN_cuGetErrorString_v6000 error_string;
};

struct gpu_ctx {
  int device;
  cudaDeviceProp prop;
  gpu_drv drv;
  uint64_t granularity;  /* cuMemGetAllocationGranularity, minimum */
  int driver_version, runtime_version;
};

/* Returns 0, or GPU_EXIT_NO_DEVICE after printing why. */
int gpu_ctx_init(gpu_ctx *c);
CUmemAllocationProp gpu_vmm_prop(const gpu_ctx *c);
double gpu_now_s(void);
/* Prints one progress line to stderr. */
void gpu_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct gpu_region {
  region_mapping mapping;
  uint64_t base = 0, size = 0, chunk = 0; /* chunk: VMM chunk bytes */
  uint64_t reserved = 0;                  /* VMM: VA bytes reserved */
  std::vector<CUmemGenericAllocationHandle> handles;
  std::vector<uint64_t> mapped;           /* aliased: VAs of mapped chunks */
};

/* Backs `size` bytes with the mapping; shuffled orders chunks by seed.
 * Aliased reserves VA only (see gpu_region_alias). */
void gpu_region_create(const gpu_ctx *c, gpu_region *r, region_mapping m, uint64_t size, uint64_t chunk,
                       uint64_t seed, uint32_t alias_nodes);
/* Aliased: maps the chunk of each node i < nodes at this stride to the
 * physical chunk i / (chunk / GPU_ALIAS_LINE). */
void gpu_region_alias(const gpu_ctx *c, gpu_region *r, uint64_t stride, uint32_t nodes);
void gpu_region_unalias(const gpu_ctx *c, gpu_region *r);
void gpu_region_destroy(const gpu_ctx *c, gpu_region *r);
/* Bytes that may be allocated now, leaving a margin for the context. */
uint64_t gpu_free_bytes(void);

#define GPU_ALIAS_LINE 128u

/* Experiments (one file each). */
int gpu_cmd_chase(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_share(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_alloc_latency(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_alloc_layout(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_alloc_churn(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_gather(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_chasers(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_smallbufs(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_churn_gather(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_blocks(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_embed(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_stream(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_dram_chase(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_l2_chase(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
int gpu_cmd_uvm(const gpu_ctx *c, const gpu_opts *o, FILE *csv);
/* embed --dry-run: the traces without a device. */
int gpu_embed_dry_run(const gpu_opts *o);
/* Builds the chain of spec on the host and writes it at base on the
 * device; off receives the node offsets in visiting order. */
int gpu_chain_write_dev(uint64_t base, const gpu_chain_spec *spec, std::vector<uint64_t> &off);
/* A one-thread chase (ld.global.cg) on SM `sm` over nodes at the given
 * addresses, visited in this order as one cycle: the links are written into
 * the nodes' first words; then, with flush_bytes, a stream read of
 * [flush_base, +flush_bytes) evicts them from L2; warmup untimed loads,
 * repeats timed passes of steps loads; with base, the data-latency baseline
 * (one-node cycles) on up to 64 nodes after the chase (gpu_chase.cu). */
struct gpu_chase_visit_cfg {
  const std::vector<uint64_t> *visit;
  uint64_t warmup, steps;
  unsigned repeats;
  int sm;
  uint64_t flush_base, flush_bytes;
  bool base;
};
struct gpu_chase_out {
  gpu_summary cycles, ns; /* per access, over the passes */
  double khz;
  int sm;
  gpu_summary base;       /* baseline, when asked */
  double base_mean;
  unsigned base_samples;
};
int gpu_chase_visit(const gpu_ctx *c, const gpu_chase_visit_cfg *v, gpu_chase_out *out);

/* Grid-stride 16-byte ld.global.cg reads of [base, base + bytes), `passes`
 * times, SMs x GPU_UVM_STREAM_BLOCKS blocks of GPU_UVM_STREAM_THREADS
 * (gpu_stream.cu); launched on the default stream, not waited for. bytes a
 * multiple of 16; sink (4 bytes of device memory) is written only when the
 * loaded words xor to a magic value (so the loads cannot be elided). */
void gpu_stream_read_launch(const gpu_ctx *c, uint64_t base, uint64_t bytes, unsigned passes, unsigned *sink);

/* One gather point (gpu_gather.cu): node i lies at base + i*stride +
 * (i & skew_mask) * skew_line, or, when table is set, at
 * base + table[i] * GPU_GATHER_LINE (a set of buffers: 4 bytes per node
 * keep the table mostly in the L1 cache). */
struct gpu_gather_cfg {
  uint64_t base = 0, stride = 0, skew_line = 0, skew_mask = 0;
  const uint32_t *table = nullptr; /* device array: node offsets from base in lines */
  uint32_t nodes = 0, loads = 0;
  uint64_t seed = 0;
  gpu_gather_shape shape = {};
  gpu_sm_set set = {};             /* GPU_SMS_GRID: an ordinary launch */
  unsigned repeats = 3;
  uint64_t launch_ms = 2;
};
struct gpu_gather_result {
  gpu_summary loads_per_ns;        /* over the repeats, cudaEvent time */
  double ns_per_launch;            /* median repeat */
  unsigned launches;               /* per repeat */
  double khz, span_ns, kernel_cycles, block_cycles;
  unsigned sms_used, max_blocks_per_sm;
};
/* Stores i in the first word of node i (the values the self-check sums). */
void gpu_gather_fill(const gpu_gather_cfg *g);
/* Warm-up launch, then repeats x launches back to back; checks that every
 * work block ran and that sampled threads summed what the host's hash
 * predicts. -1 after a message on a failed check. */
int gpu_gather_measure(const gpu_ctx *c, const gpu_gather_cfg *g, gpu_gather_result *r);
/* The region a sweep of this mapping may use now (gpu_chase.cu). */
uint64_t gpu_region_cap(region_mapping m);

/* One sweep of chase points into csv (the header already written); region
 * numbers the sweep's allocation in the run (the rows' region column). */
int gpu_run_sweep(const gpu_ctx *c, const gpu_opts *o, const gpu_sweep *s, unsigned region, FILE *csv);
/* Managed regions: make pages resident as p says (gpu_plan.h), before the
 * chain (gpu_region.cu). */
void gpu_region_populate(const gpu_ctx *c, const gpu_region *r, const gpu_population *p);
/* The host writes every 8-byte word of [base, base + bytes) (its index),
 * on up to 16 threads. */
void gpu_host_fill(uint64_t base, uint64_t bytes);
cudaMemLocation gpu_device_location(const gpu_ctx *c);

#endif
