/* gpu_trace.h — the `alloc`/`free` subset of tlbsim's native trace format
 * (traces/FORMAT.md), read for `tlbsim-gpu churn-gather`, which replays it
 * with real cudaMalloc/cudaFree.
 *
 * Accepted: `alloc ID SIZE` and `free ID` (ID decimal or 0x hex, SIZE also
 * with a unit: 64K, 2MiB), blank lines, `#` comments (a `#` that starts a
 * field), a `#tlbsim-trace 1` version line, CRLF line ends. Everything else
 * is an error "FILE:LINE: what is wrong": the other records (accesses,
 * map, ctx, ...), alloc options (cudaMalloc takes no alignment or stream),
 * an alloc of a live ID, a free of an ID that is not live.
 *
 * gpu_trace  the replay plan: each op names a slot (a buffer index that
 *            is reused once freed, so slots = the most buffers alive at
 *            once), and the allocations alive at the end in the order they
 *            were made.
 */
#ifndef TLBSIM_GPU_TRACE_H
#define TLBSIM_GPU_TRACE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "tlbsim/base.h"

#define GPU_TRACE_LINE_MAX 65536

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

/* One line (without its newline). Returns 1 with op's kind, id and size
 * set, 0 for a line with no record, -1 with a diag "name:line: ...". */
int gpu_trace_parse_line(const char *text, const char *name, unsigned long line, gpu_trace_op *op, diag *d);

/* Reads a whole trace and builds the plan. -1 with a diag on the first
 * bad line or impossible record. */
int gpu_trace_read(FILE *f, const char *name, gpu_trace *t, diag *d);
void gpu_trace_free(gpu_trace *t);

#ifdef __cplusplus
}
#endif
#endif
