/* gpu_trace.h — an allocation history for `tlbsim-gpu churn-gather`, which
 * replays it with real cudaMalloc/cudaFree.
 *
 * The input is a native tlbsim trace (traces/FORMAT.md), read by the
 * simulator's trace reader (tlbsim/trace.h): the one grammar (ids and sizes
 * in every form num.h reads, comments, the version line, CRLF) and the one
 * set of codecs (gzip, zstd and xz where the build has them: the GPU
 * machine's plain build reads gzip, and names zstd and xz as unreadable).
 * What churn adds is its own: which records it can replay and the plan.
 * Everything else is an error "FILE:LINE: what is wrong": a record other
 * than alloc and free (accesses, map, ctx, ...), an alloc option (cudaMalloc
 * takes no alignment, stream, kind or pool; a capture's t=, dur=, va= and
 * dev= are refused too, as it is not replayed as captured), an alloc of a
 * live ID, a free of an ID that is not live.
 *
 * gpu_trace  the replay plan: each op names a slot (a buffer index that
 *            is reused once freed, so slots = the most buffers alive at
 *            once), and the allocations alive at the end in the order they
 *            were made.
 */
#ifndef TLBSIM_GPU_TRACE_H
#define TLBSIM_GPU_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#include "tlbsim/base.h"
#include "tlbsim/trace.h"

typedef enum gpu_trace_kind { GPU_TRACE_ALLOC, GPU_TRACE_FREE } gpu_trace_kind;

typedef struct gpu_trace_op {
  gpu_trace_kind kind;
  uint64_t id;
  uint64_t size;       /* alloc only */
  uint32_t slot;       /* set by gpu_trace_read */
  unsigned long line;
} gpu_trace_op;

typedef struct gpu_trace_live {
  uint64_t id, size;
  uint32_t slot;
  unsigned long line;  /* of its alloc record */
} gpu_trace_live;

typedef struct gpu_trace {
  gpu_trace_op *ops;
  size_t nops;
  uint32_t slots;           /* the most allocations alive at once */
  gpu_trace_live *live;     /* alive at the end, in allocation order */
  size_t nlive;
  uint64_t allocs, frees;
  uint64_t peak_live_bytes;
} gpu_trace;

/* Reads the rest of r (opened TRACE_NATIVE or TRACE_AUTO; the caller closes
 * it) and builds the plan. -1 with a diag on the first bad line or
 * impossible record. */
int gpu_trace_read(trace_reader *r, gpu_trace *t, diag *d);
/* gpu_trace_read of the trace at path ("-": stdin). */
int gpu_trace_load(const char *path, gpu_trace *t, diag *d);
void gpu_trace_free(gpu_trace *t);

#ifdef __cplusplus
}
#endif
#endif
