/* Allocation churn: one seeded plan of random-size temporary buffers
 * replayed through cudaMalloc/cudaFree, a cudaMallocAsync memory pool and
 * the user-level pool of gpu_pool.c. Each allocator runs the plan twice:
 * timed (time per request), then with cudaMemGetInfo after every
 * allocation (peak device memory in use). */
#include <stdlib.h>
#include <string.h>

#include "gpu_cuda.h"
#include "tlbsim/csv.h"

enum churn_alloc { CHURN_CUDAMALLOC, CHURN_ASYNC_POOL, CHURN_USER_POOL, CHURN_COUNT };
static const char *const churn_names[CHURN_COUNT] = {"cudaMalloc", "cudaMallocAsync_pool", "user_pool"};

static int pool_backend_alloc(void *, uint64_t bytes, uint64_t *addr) {
  void *p = NULL;
  if (cudaMalloc(&p, bytes) != cudaSuccess) return -1;
  *addr = (uint64_t)(uintptr_t)p;
  return 0;
}

static int pool_backend_free(void *, uint64_t addr) {
  return cudaFree((void *)(uintptr_t)addr) == cudaSuccess ? 0 : -1;
}

struct churn_stats {
  double seconds;
  uint64_t peak_requested, peak_used, peak_reserved;
  long long driver_allocs, driver_frees; /* -1: not observable */
};

static uint64_t used_bytes(uint64_t free0) {
  size_t f, t;
  CK(cudaMemGetInfo(&f, &t));
  return free0 > f ? free0 - f : 0;
}

/* Replays the plan through one allocator. `account` samples device memory
 * after each allocation (slow: for the untimed pass only). */
static int churn_replay(const gpu_ctx *, churn_alloc kind, const gpu_churn_op *ops, size_t n, uint32_t live,
                        bool account, cudaStream_t st, cudaMemPool_t mp, churn_stats *out) {
  std::vector<uint64_t> addr(live, 0), size(live, 0);
  diag d;
  gpu_pool *up = kind == CHURN_USER_POOL ? gpu_pool_new(pool_backend_alloc, pool_backend_free, NULL, &d) : NULL;
  if (kind == CHURN_USER_POOL && !up) return -1;
  size_t f0, tot;
  CK(cudaDeviceSynchronize());
  CK(cudaMemGetInfo(&f0, &tot));
  if (kind == CHURN_ASYNC_POOL) {
    uint64_t zero = 0;
    CK(cudaMemPoolSetAttribute(mp, cudaMemPoolAttrReservedMemHigh, &zero));
  }
  uint64_t requested = 0;
  int bad = 0;
  memset(out, 0, sizeof *out);
  double t0 = gpu_now_s();
  for (size_t i = 0; i < n; i++) {
    const gpu_churn_op *op = &ops[i];
    void *p = NULL;
    if (op->kind == GPU_CHURN_FREE) {
      p = (void *)(uintptr_t)addr[op->slot];
      if (kind == CHURN_CUDAMALLOC) CK(cudaFree(p));
      else if (kind == CHURN_ASYNC_POOL) CK(cudaFreeAsync(p, st));
      else if ((bad = gpu_pool_put(up, addr[op->slot], size[op->slot], &d))) break;
      requested -= size[op->slot];
      continue;
    }
    if (kind == CHURN_CUDAMALLOC) CK(cudaMalloc(&p, op->size));
    else if (kind == CHURN_ASYNC_POOL) CK(cudaMallocFromPoolAsync(&p, op->size, mp, st));
    else {
      uint64_t a;
      if ((bad = gpu_pool_get(up, op->size, &a, &d))) break;
      p = (void *)(uintptr_t)a;
    }
    addr[op->slot] = (uint64_t)(uintptr_t)p;
    size[op->slot] = op->size;
    requested += op->size;
    if (requested > out->peak_requested) out->peak_requested = requested;
    if (account) {
      uint64_t u = used_bytes(f0);
      if (u > out->peak_used) out->peak_used = u;
    }
  }
  CK(cudaStreamSynchronize(st));
  out->seconds = gpu_now_s() - t0;
  out->driver_allocs = out->driver_frees = -1;
  if (kind == CHURN_CUDAMALLOC) {
    out->driver_allocs = out->driver_frees = (long long)(n / 2);
    out->peak_reserved = out->peak_used;
  } else if (kind == CHURN_ASYNC_POOL) {
    uint64_t high = 0;
    CK(cudaMemPoolGetAttribute(mp, cudaMemPoolAttrReservedMemHigh, &high));
    out->peak_reserved = high;
    CK(cudaMemPoolTrimTo(mp, 0));
  } else {
    bad = bad || gpu_pool_release(up, &d);
    gpu_pool_stats ps = gpu_pool_get_stats(up);
    gpu_pool_free(up);
    if (bad) {
      fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
      return -1;
    }
    out->peak_reserved = ps.peak_reserved_bytes;
    out->driver_allocs = (long long)ps.backend_allocs;
    out->driver_frees = (long long)ps.backend_frees;
  }
  return 0;
}

int gpu_cmd_alloc_churn(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  gpu_churn_spec spec = {o->seed, o->requests, o->live, o->min_size, o->max_size};
  gpu_churn_op *ops = NULL;
  size_t n = 0;
  diag d;
  if (gpu_churn_plan(&spec, &ops, &n, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  cudaMemPool_t mp;
  cudaMemPoolProps pp = {};
  pp.allocType = cudaMemAllocationTypePinned;
  pp.location.type = cudaMemLocationTypeDevice;
  pp.location.id = c->device;
  CK(cudaMemPoolCreate(&mp, &pp));
  uint64_t keep = UINT64_MAX; /* a pool that keeps what it has mapped */
  CK(cudaMemPoolSetAttribute(mp, cudaMemPoolAttrReleaseThreshold, &keep));
  fputs("allocator,requests,live,seed,min_bytes,max_bytes,us_per_request,total_ms,peak_requested_bytes,"
        "peak_reserved_bytes,peak_device_used_bytes,driver_allocs,driver_frees,device\n",
        csv);
  int rc = 0;
  for (int k = 0; k < CHURN_COUNT && !rc; k++) {
    churn_stats timed, acc;
    if (churn_replay(c, (churn_alloc)k, ops, n, o->live, false, st, mp, &timed) ||
        churn_replay(c, (churn_alloc)k, ops, n, o->live, true, st, mp, &acc)) {
      rc = GPU_EXIT_FAIL;
      break;
    }
    fprintf(csv, "%s,%u,%u,%llu,%llu,%llu,%.3f,%.3f,%llu,%llu,%llu,%lld,%lld,", churn_names[k], o->requests, o->live,
            (unsigned long long)o->seed, (unsigned long long)o->min_size, (unsigned long long)o->max_size,
            timed.seconds * 1e6 / o->requests, timed.seconds * 1e3, (unsigned long long)timed.peak_requested,
            (unsigned long long)(k == CHURN_CUDAMALLOC ? acc.peak_used : timed.peak_reserved),
            (unsigned long long)acc.peak_used, timed.driver_allocs, timed.driver_frees);
    csv_write_field(csv, c->prop.name);
    fputc('\n', csv);
    fflush(csv);
    gpu_progress("alloc-churn: %s %.2f us/request", churn_names[k], timed.seconds * 1e6 / o->requests);
  }
  CK(cudaMemPoolDestroy(mp));
  CK(cudaStreamDestroy(st));
  free(ops);
  return rc;
}
