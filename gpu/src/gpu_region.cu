/* The chased memory under each mapping: VMM chunks (in order, shuffled or
 * aliased), one cudaMalloc, or one cudaMallocManaged region. */
#include <stdlib.h>

#include <algorithm>
#include <thread>

#include "gpu_cuda.h"

/* Alignment of a VMM reservation: the region's size rounded up to a power
 * of two, so node VAs carry the bits of i*stride unchanged (set indexing
 * sees the pattern the simulator models), at most 1 TiB. */
static uint64_t reserve_align(uint64_t size, uint64_t chunk) {
  uint64_t a = chunk;
  while (a < size && a < (1ull << 40)) a <<= 1;
  return a;
}

static void vmm_reserve(const gpu_ctx *c, gpu_region *r, uint64_t size) {
  CUdeviceptr p = 0;
  CUresult e = c->drv.reserve(&p, size, reserve_align(size, r->chunk), 0, 0);
  if (e != CUDA_SUCCESS) {
    gpu_progress("aligned reservation of %llu bytes refused (%s); taking chunk alignment",
                 (unsigned long long)size, gpu_cu_error(c, e));
    CKD(c, c->drv.reserve(&p, size, r->chunk, 0, 0));
  }
  r->base = p;
  r->reserved = size;
}

static CUmemAccessDesc rw_access(const gpu_ctx *c) {
  CUmemAccessDesc a = {};
  a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  a.location.id = c->device;
  a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return a;
}

static void set_access(const gpu_ctx *c, uint64_t va, uint64_t size) {
  CUmemAccessDesc a = rw_access(c);
  CKD(c, c->drv.set_access(va, size, &a, 1));
}

/* Grants access to (or unmaps) a range of many chunks in one call, or chunk
 * by chunk where the driver wants each mapping separately. */
static void set_access_chunks(const gpu_ctx *c, const gpu_region *r) {
  CUmemAccessDesc a = rw_access(c);
  if (c->drv.set_access(r->base, r->size, &a, 1) == CUDA_SUCCESS) return;
  for (uint64_t off = 0; off < r->size; off += r->chunk) set_access(c, r->base + off, r->chunk);
}

static void unmap_chunks(const gpu_ctx *c, const gpu_region *r) {
  if (c->drv.unmap(r->base, r->size) == CUDA_SUCCESS) return;
  for (uint64_t off = 0; off < r->size; off += r->chunk) CKD(c, c->drv.unmap(r->base + off, r->chunk));
}

static void create_chunks(const gpu_ctx *c, gpu_region *r, size_t n) {
  CUmemAllocationProp prop = gpu_vmm_prop(c);
  r->handles.resize(n);
  for (size_t i = 0; i < n; i++) CKD(c, c->drv.create(&r->handles[i], r->chunk, &prop, 0));
}

void gpu_region_create(const gpu_ctx *c, gpu_region *r, region_mapping m, uint64_t size, uint64_t chunk,
                       uint64_t seed, uint32_t alias_nodes) {
  double t0 = gpu_now_s();
  r->mapping = m;
  r->chunk = chunk ? chunk : c->granularity;
  if (r->chunk % c->granularity) {
    fprintf(stderr, "tlbsim-gpu: --chunk %llu is not a multiple of the granularity %llu\n",
            (unsigned long long)r->chunk, (unsigned long long)c->granularity);
    exit(GPU_EXIT_FAIL);
  }
  r->size = (size + r->chunk - 1) / r->chunk * r->chunk;
  if (m == REGION_CUDAMALLOC) {
    void *p = NULL;
    CK(cudaMalloc(&p, r->size));
    r->base = (uint64_t)(uintptr_t)p;
    r->chunk = 0;
  } else if (m == REGION_MANAGED) {
    void *p = NULL;
    CK(cudaMallocManaged(&p, r->size, cudaMemAttachGlobal));
    r->base = (uint64_t)(uintptr_t)p;
    r->chunk = 0;
  } else if (m == REGION_ALIASED) {
    /* Enough physical chunks that every node owns a distinct line. */
    uint64_t per_chunk = r->chunk / GPU_ALIAS_LINE;
    create_chunks(c, r, (size_t)((alias_nodes + per_chunk - 1) / per_chunk));
    vmm_reserve(c, r, r->size);
  } else {
    size_t n = (size_t)(r->size / r->chunk);
    create_chunks(c, r, n);
    vmm_reserve(c, r, r->size);
    std::vector<uint32_t> perm(n);
    if (m == REGION_SHUFFLED) gpu_permute(perm.data(), (uint32_t)n, seed);
    else
      for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
    /* VA chunk v is backed by the chunk created perm[v]-th. */
    for (size_t v = 0; v < n; v++) CKD(c, c->drv.map(r->base + v * r->chunk, r->chunk, 0, r->handles[perm[v]], 0));
    set_access_chunks(c, r);
  }
  gpu_progress("%s region: %.2f GiB at 0x%llx in %.2f s", region_mapping_names[m], (double)r->size / (1ull << 30),
               (unsigned long long)r->base, gpu_now_s() - t0);
}

void gpu_region_alias(const gpu_ctx *c, gpu_region *r, uint64_t stride, uint32_t nodes) {
  uint64_t per_chunk = r->chunk / GPU_ALIAS_LINE;
  r->mapped.clear();
  for (uint32_t i = 0; i < nodes; i++) {
    uint64_t va = r->base + (uint64_t)i * stride / r->chunk * r->chunk;
    CKD(c, c->drv.map(va, r->chunk, 0, r->handles[i / per_chunk], 0));
    r->mapped.push_back(va);
    set_access(c, va, r->chunk);
  }
}

void gpu_region_unalias(const gpu_ctx *c, gpu_region *r) {
  for (uint64_t va : r->mapped) CKD(c, c->drv.unmap(va, r->chunk));
  r->mapped.clear();
}

void gpu_region_destroy(const gpu_ctx *c, gpu_region *r) {
  CK(cudaDeviceSynchronize());
  if (r->mapping == REGION_CUDAMALLOC || r->mapping == REGION_MANAGED) {
    CK(cudaFree((void *)(uintptr_t)r->base));
  } else {
    if (r->mapping == REGION_ALIASED) gpu_region_unalias(c, r);
    else
      unmap_chunks(c, r);
    CKD(c, c->drv.address_free(r->base, r->reserved));
    for (CUmemGenericAllocationHandle h : r->handles) CKD(c, c->drv.release(h));
  }
  r->handles.clear();
  r->base = r->size = 0;
}

/* ---- managed populations ---- */

__global__ void populate_kernel(uint64_t base, uint64_t count, uint64_t step) {
  for (uint64_t q = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; q < count; q += (uint64_t)gridDim.x * blockDim.x)
    *(volatile uint64_t *)(uintptr_t)(base + q * step) = q;
}

void gpu_host_fill(uint64_t base, uint64_t bytes) {
  unsigned nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  uint64_t words = bytes / 8, per = (words + nt - 1) / nt;
  std::vector<std::thread> th;
  for (unsigned t = 0; t < nt; t++)
    th.emplace_back([=]() {
      uint64_t *w = (uint64_t *)(uintptr_t)base;
      for (uint64_t i = t * per; i < std::min(words, (t + 1) * per); i++) w[i] = i;
    });
  for (std::thread &x : th) x.join();
}

cudaMemLocation gpu_device_location(const gpu_ctx *c) {
  cudaMemLocation l = {};
  l.type = cudaMemLocationTypeDevice;
  l.id = c->device;
  return l;
}

void gpu_region_populate(const gpu_ctx *c, const gpu_region *r, const gpu_population *p) {
  uint64_t pages = r->size / GPU_POP_PAGE, step = (uint64_t)p->every * GPU_POP_PAGE;
  double t0 = gpu_now_s();
  switch (p->kind) {
  case GPU_POP_CHAIN: return;
  case GPU_POP_GPU:
    populate_kernel<<<(unsigned)c->prop.multiProcessorCount * 8, 256>>>(r->base, (pages + p->every - 1) / p->every,
                                                                      step);
    CK(cudaGetLastError());
    break;
  case GPU_POP_HOST:
    for (uint64_t q = 0; q * p->every < pages; q++) *(volatile uint64_t *)(uintptr_t)(r->base + q * step) = q;
    break;
  case GPU_POP_HOST_PREFETCH:
  case GPU_POP_ADVISE:
    gpu_host_fill(r->base, r->size);
    if (p->kind == GPU_POP_ADVISE)
      CK(cudaMemAdvise((void *)(uintptr_t)r->base, r->size, cudaMemAdviseSetPreferredLocation, gpu_device_location(c)));
    CK(cudaMemPrefetchAsync((void *)(uintptr_t)r->base, r->size, gpu_device_location(c), 0, 0));
    break;
  }
  CK(cudaDeviceSynchronize());
  char name[64];
  gpu_progress("managed region populated (%s) in %.2f s", gpu_population_name(p, name, sizeof name), gpu_now_s() - t0);
}
