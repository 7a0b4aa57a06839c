/* cap_cupti.c — libtlbsim-capture.so, a CUPTI injection library: loaded by
 * the CUDA driver into an unmodified program (CUDA_INJECTION64_PATH), it
 * hands what the program asks of the driver to cap_log, which writes
 * TLBSIM_CAPTURE as a native trace (traces/FORMAT.md, "Captured programs").
 *
 * Sources of events:
 *  - activity MEMORY2 (every allocation and release the runtime or driver
 *    makes: device, managed, pinned, static; real address, stream, pool),
 *    MEMORY_POOL (cudaMallocAsync pools: create, trim, destroy) and
 *    CONCURRENT_KERNEL (name, geometry, stream, start and end), delivered
 *    in buffers, late;
 *  - driver-API callbacks for what activity records miss: the VMM calls
 *    (cuMemAddressReserve/Free, cuMemCreate/Release, cuMemMap/Unmap,
 *    cuMemSetAccess), cuMemPrefetchAsync and cuMemAdvise, timed from entry
 *    to exit, recorded when they succeed;
 *  - cuMemGetInfo after allocations and frees (runtime and driver API), at
 *    most one sample per TLBSIM_CAPTURE_MEMINFO_US (default 1000 us).
 *
 * Never harms the program: an error is one line on stderr and the capture
 * stops (its partial file removed); the program goes on. Buffers are
 * flushed at exit and on cudaDeviceReset.
 *
 * The one piece of global state: CUPTI's buffer callbacks take no user
 * pointer, so the capture they write to is this library's `the`.
 */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"
#include "tlbsim/pt.h"
#include "tlbsim/uvm.h"

#define BUF_BYTES (1u << 20) /* ~10000 records: delivered soon, so little out of order */

/* What the driver calls once it loaded this library (CUDA_INJECTION64_PATH). */
__attribute__((visibility("default"))) int InitializeInjection(void);

typedef struct capture {
  pthread_mutex_t lock;
  cap_log *log; /* NULL once stopped */
  CUpti_SubscriberHandle sub;
  uint64_t meminfo_gap_ns;
  cap_rate meminfo; /* asked without the lock: every allocation call asks */
  CUresult (*mem_get_info)(size_t *, size_t *); /* the driver's, found in the process that loaded it */
  uint64_t dropped;
  uint64_t statics; /* __device__ and __managed__ variables: the loader's, not allocations */
} capture;

static capture the = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- the log, under the lock; an error stops the capture ------------------ */

static void stop(capture *c, const char *why) {
  fprintf(stderr, "tlbsim-capture: %s; capture stopped, the program goes on\n", why);
  cap_log_abandon(c->log);
  c->log = NULL;
}

static void add(capture *c, const cap_event *e) {
  pthread_mutex_lock(&c->lock);
  diag d;
  if (c->log && cap_log_add(c->log, e, &d)) stop(c, d.msg);
  pthread_mutex_unlock(&c->lock);
}

static void cupti_failed(capture *c, const char *what, CUptiResult r) {
  const char *s = NULL;
  cuptiGetResultString(r, &s);
  char why[256];
  snprintf(why, sizeof why, "%s: %s", what, s ? s : "CUPTI error");
  pthread_mutex_lock(&c->lock);
  if (c->log) stop(c, why);
  pthread_mutex_unlock(&c->lock);
}

/* ---- activity records ------------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records) {
  *buf = aligned_alloc(8, BUF_BYTES);
  *size = *buf ? BUF_BYTES : 0;
  *max_records = 0;
}

static uint16_t mem_kind(CUpti_ActivityMemoryKind k) {
  switch (k) {
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return TRACE_MEM_MANAGED;
  case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return TRACE_MEM_PINNED;
  case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return TRACE_MEM_HOST;
  default: return TRACE_MEM_DEVICE;
  }
}

static uint32_t stream_of(uint32_t id) { return id == CUPTI_INVALID_STREAM_ID ? 0 : id; }

static void memory_record(capture *c, const CUpti_ActivityMemory4 *m) {
  cap_event e = {.t_ns = m->timestamp, .device = m->deviceId, .va = m->address};
  if (m->memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC ||
      m->memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC) {
    pthread_mutex_lock(&c->lock);
    c->statics++;
    pthread_mutex_unlock(&c->lock);
    return;
  }
  if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION) {
    e.kind = CAP_ALLOC, e.size = m->bytes, e.mem = mem_kind(m->memoryKind), e.stream = stream_of(m->streamId);
    if (m->isAsync) e.pool = m->memoryPoolConfig.address;
  } else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
    e.kind = CAP_FREE;
  } else {
    return;
  }
  add(c, &e);
}

static void pool_record(capture *c, const CUpti_ActivityMemoryPool3 *p) {
  cap_event e = {.kind = CAP_POOL, .t_ns = p->timestamp, .device = p->deviceId, .pool = p->address};
  switch (p->memoryPoolOperationType) {
  case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED: e.op = TRACE_POOL_CREATE; break;
  case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED: e.op = TRACE_POOL_DESTROY; break;
  case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED: e.op = TRACE_POOL_TRIM, e.size = p->minBytesToKeep; break;
  default: return;
  }
  add(c, &e);
}

static void kernel_record(capture *c, const CUpti_ActivityKernel10 *k) {
  cap_event e = {.kind = CAP_KERNEL, .t_ns = k->start, .dur_ns = k->end > k->start ? k->end - k->start : 0,
                 .device = k->deviceId, .stream = k->streamId, .name = k->name,
                 .grid = {(uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ},
                 .block = {(uint32_t)k->blockX, (uint32_t)k->blockY, (uint32_t)k->blockZ}};
  add(c, &e);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
  (void)size;
  capture *c = &the;
  CUpti_Activity *rec = NULL;
  for (;;) {
    CUptiResult r = cuptiActivityGetNextRecord(buf, valid, &rec);
    if (r != CUPTI_SUCCESS) {
      if (r != CUPTI_ERROR_MAX_LIMIT_REACHED) cupti_failed(c, "reading an activity buffer", r);
      break;
    }
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_MEMORY2: memory_record(c, (const CUpti_ActivityMemory4 *)rec); break;
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL: pool_record(c, (const CUpti_ActivityMemoryPool3 *)rec); break;
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: kernel_record(c, (const CUpti_ActivityKernel10 *)rec); break;
    default: break;
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
    pthread_mutex_lock(&c->lock);
    c->dropped += dropped;
    pthread_mutex_unlock(&c->lock);
  }
  free(buf);
}

/* ---- driver and runtime callbacks --------------------------------------- */

static uint32_t device_of(CUcontext ctx) {
  uint32_t dev = 0;
  if (ctx) cuptiGetDeviceId(ctx, &dev);
  return dev;
}

static uint32_t stream_id(CUcontext ctx, CUstream s) {
  uint32_t id = 0;
  if (s && cuptiGetStreamIdEx(ctx, s, 0, &id) != CUPTI_SUCCESS) id = 0;
  return id;
}

static bool host_location(CUmemLocationType t) {
  return t == CU_MEM_LOCATION_TYPE_HOST || t == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
         t == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

/* cudaMemAdvise's advice in the uvm model's names; -1 for one it lacks. */
static int advice_of(CUmem_advise a, bool host) {
  switch (a) {
  case CU_MEM_ADVISE_SET_READ_MOSTLY: return UVM_READ_MOSTLY;
  case CU_MEM_ADVISE_UNSET_READ_MOSTLY: return UVM_UNSET_READ_MOSTLY;
  case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: return host ? UVM_PREFERRED_HOST : UVM_PREFERRED_GPU;
  case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: return UVM_UNSET_PREFERRED;
  case CU_MEM_ADVISE_SET_ACCESSED_BY: return host ? UVM_ACCESSED_BY_HOST : UVM_ACCESSED_BY_GPU;
  case CU_MEM_ADVISE_UNSET_ACCESSED_BY: return host ? UVM_UNSET_ACCESSED_BY_HOST : UVM_UNSET_ACCESSED_BY_GPU;
  default: return -1;
  }
}

static uint8_t prot_of(const CUmemAccessDesc *desc, size_t count) {
  uint8_t prot = 0;
  for (size_t i = 0; desc && i < count; i++) {
    if (desc[i].flags & CU_MEM_ACCESS_FLAGS_PROT_READ) prot |= PT_R;
    if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE) prot |= PT_W;
  }
  return prot;
}

/* The event a succeeded driver call is; false for one that is none. */
static bool driver_event(CUpti_CallbackId id, const CUpti_CallbackData *cd, cap_event *e) {
  const void *p = cd->functionParams;
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve: {
    const cuMemAddressReserve_params *a = p;
    e->kind = CAP_RESERVE, e->va = *a->ptr, e->size = a->size, e->align = a->alignment;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree: {
    const cuMemAddressFree_params *a = p;
    e->kind = CAP_UNRESERVE, e->va = a->ptr, e->size = a->size;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
    const cuMemCreate_params *a = p;
    e->kind = CAP_HANDLE, e->handle = *a->handle, e->size = a->size;
    if (a->prop && a->prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE) e->device = (uint32_t)a->prop->location.id;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemRelease: e->kind = CAP_RELEASE, e->handle = ((const cuMemRelease_params *)p)->handle; return true;
  case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
    const cuMemMap_params *a = p;
    e->kind = CAP_MAP, e->va = a->ptr, e->size = a->size, e->offset = a->offset, e->handle = a->handle;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
    const cuMemUnmap_params *a = p;
    e->kind = CAP_UNMAP, e->va = a->ptr, e->size = a->size;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess: {
    const cuMemSetAccess_params *a = p;
    e->kind = CAP_PROTECT, e->va = a->ptr, e->size = a->size, e->prot = prot_of(a->desc, a->count);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_ptsz: {
    const cuMemPrefetchAsync_params *a = p;
    e->kind = CAP_PREFETCH, e->va = a->devPtr, e->size = a->count;
    e->op = a->dstDevice == CU_DEVICE_CPU ? UVM_HOST : UVM_GPU, e->stream = stream_id(cd->context, a->hStream);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2_ptsz: {
    const cuMemPrefetchAsync_v2_params *a = p;
    e->kind = CAP_PREFETCH, e->va = a->devPtr, e->size = a->count;
    e->op = host_location(a->location.type) ? UVM_HOST : UVM_GPU, e->stream = stream_id(cd->context, a->hStream);
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemAdvise:
  case CUPTI_DRIVER_TRACE_CBID_cuMemAdvise_v2: {
    bool v2 = id == CUPTI_DRIVER_TRACE_CBID_cuMemAdvise_v2;
    const cuMemAdvise_params *a1 = p;
    const cuMemAdvise_v2_params *a2 = p;
    int adv = v2 ? advice_of(a2->advice, host_location(a2->location.type)) : advice_of(a1->advice, a1->device == CU_DEVICE_CPU);
    if (adv < 0) return false;
    e->kind = CAP_ADVISE, e->va = v2 ? a2->devPtr : a1->devPtr, e->size = v2 ? a2->count : a1->count;
    e->op = (uint16_t)adv;
    return true;
  }
  default: return false;
  }
}

/* The calls after which the driver's free memory may have changed. */
static const CUpti_CallbackId driver_allocs[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,       CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,  CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,     CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,       CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2};
static const CUpti_CallbackId driver_events[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve, CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree,
    CUPTI_DRIVER_TRACE_CBID_cuMemCreate,         CUPTI_DRIVER_TRACE_CBID_cuMemRelease,
    CUPTI_DRIVER_TRACE_CBID_cuMemMap,            CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess,      CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemAdvise,
    CUPTI_DRIVER_TRACE_CBID_cuMemAdvise_v2};
static const CUpti_CallbackId runtime_allocs[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,     CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,  CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020};
#define COUNT(a) (sizeof a / sizeof a[0])

static bool is_alloc_call(CUpti_CallbackDomain dom, CUpti_CallbackId id) {
  const CUpti_CallbackId *ids = dom == CUPTI_CB_DOMAIN_DRIVER_API ? driver_allocs : runtime_allocs;
  size_t n = dom == CUPTI_CB_DOMAIN_DRIVER_API ? COUNT(driver_allocs) : COUNT(runtime_allocs);
  for (size_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

static void sample_meminfo(capture *c, CUcontext ctx) {
  uint64_t t;
  if (!ctx || cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return;
  size_t free_b, total_b;
  if (!c->mem_get_info || !cap_rate_due(&c->meminfo, t, c->meminfo_gap_ns) ||
      c->mem_get_info(&free_b, &total_b) != CUDA_SUCCESS)
    return;
  cap_event e = {.kind = CAP_MEMINFO, .t_ns = t, .device = device_of(ctx), .size = free_b, .total = total_b};
  add(c, &e);
}

static void flush_all(capture *c);

static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data) {
  capture *c = user;
  const CUpti_CallbackData *cd = data;
  if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && id == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
    if (cd->callbackSite == CUPTI_API_ENTER) flush_all(c);
    return;
  }
  if (cd->callbackSite == CUPTI_API_ENTER) {
    cuptiGetTimestamp(cd->correlationData); /* the call's start, for its dur= */
    return;
  }
  if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (*(const int *)cd->functionReturnValue == 0) sample_meminfo(c, cd->context);
    return;
  }
  if (*(const CUresult *)cd->functionReturnValue != CUDA_SUCCESS) return;
  uint64_t end = 0;
  cuptiGetTimestamp(&end);
  cap_event e = {.t_ns = *cd->correlationData, .device = device_of(cd->context)};
  e.dur_ns = end > e.t_ns ? end - e.t_ns : 0;
  if (driver_event(id, cd, &e)) add(c, &e);
  if (is_alloc_call(dom, id)) sample_meminfo(c, cd->context);
}

/* ---- start and end ---------------------------------------------------------- */

/* CUPTI's finished records into the log, then the log to its file. */
static void flush_all(capture *c) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  pthread_mutex_lock(&c->lock);
  diag d;
  if (c->log && cap_log_flush(c->log, &d)) stop(c, d.msg);
  pthread_mutex_unlock(&c->lock);
}

static void at_exit(void) {
  capture *c = &the;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  pthread_mutex_lock(&c->lock);
  if (c->log) {
    cap_counts n;
    diag d;
    cap_log *l = c->log;
    c->log = NULL;
    if (cap_log_close(l, &n, &d)) fprintf(stderr, "tlbsim-capture: %s; nothing written\n", d.msg);
    else if (getenv("TLBSIM_CAPTURE_QUIET") == NULL)
      fprintf(stderr,
              "tlbsim-capture: %llu records (%llu late, %llu frees of nothing live, %llu replaced, %llu VMM ranges "
              "as maps, %llu static variables left out, %llu dropped by CUPTI)\n",
              (unsigned long long)n.records, (unsigned long long)n.late, (unsigned long long)n.unknown_frees,
              (unsigned long long)n.replaced, (unsigned long long)n.vmm_allocs, (unsigned long long)c->statics,
              (unsigned long long)c->dropped);
  }
  pthread_mutex_unlock(&c->lock);
}

static int enable(capture *c, CUpti_CallbackDomain dom, const CUpti_CallbackId *ids, size_t n) {
  for (size_t i = 0; i < n; i++) {
    CUptiResult r = cuptiEnableCallback(1, c->sub, dom, ids[i]);
    if (r != CUPTI_SUCCESS) {
      cupti_failed(c, "cuptiEnableCallback", r);
      return -1;
    }
  }
  return 0;
}

static int start(capture *c) {
  static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL,
                                             CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
  const char *k = getenv("TLBSIM_CAPTURE_KERNELS");
  size_t nkinds = k && !strcmp(k, "0") ? 2 : 3;
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  for (size_t i = 0; r == CUPTI_SUCCESS && i < nkinds; i++) r = cuptiActivityEnable(kinds[i]);
  if (r == CUPTI_SUCCESS) r = cuptiSubscribe(&c->sub, on_callback, c);
  if (r != CUPTI_SUCCESS) {
    cupti_failed(c, "starting CUPTI", r);
    return -1;
  }
  static const CUpti_CallbackId reset[] = {CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020};
  return enable(c, CUPTI_CB_DOMAIN_DRIVER_API, driver_events, COUNT(driver_events)) ||
                 enable(c, CUPTI_CB_DOMAIN_DRIVER_API, driver_allocs, COUNT(driver_allocs)) ||
                 enable(c, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_allocs, COUNT(runtime_allocs)) ||
                 enable(c, CUPTI_CB_DOMAIN_RUNTIME_API, reset, 1)
             ? -1
             : 0;
}

int InitializeInjection(void) {
  capture *c = &the;
  const char *path = getenv("TLBSIM_CAPTURE");
  if (!path || !*path) {
    fprintf(stderr, "tlbsim-capture: TLBSIM_CAPTURE (the trace to write) is not set; nothing captured\n");
    return 1;
  }
  /* The driver that loads this library is in the process already: no link
   * to libcuda (a package need not depend on the driver). */
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (cuda) *(void **)&c->mem_get_info = dlsym(cuda, "cuMemGetInfo_v2");
  if (!c->mem_get_info) fprintf(stderr, "tlbsim-capture: cuMemGetInfo_v2 not found: no memory samples\n");
  const char *gap = getenv("TLBSIM_CAPTURE_MEMINFO_US");
  c->meminfo_gap_ns = (gap && *gap ? strtoull(gap, NULL, 10) : 1000) * 1000;
  uint64_t t0 = 0;
  cuptiGetTimestamp(&t0);
  diag d;
  pthread_mutex_lock(&c->lock);
  c->log = cap_log_open(path, t0, &d);
  pthread_mutex_unlock(&c->lock);
  if (!c->log) {
    fprintf(stderr, "tlbsim-capture: %s; nothing captured, the program goes on\n", d.msg);
    return 1;
  }
  if (start(c)) return 1;
  atexit(at_exit);
  return 1;
}
