/* cap_log.h — what a CUDA program asked of the driver, as a tlbsim native
 * trace (traces/FORMAT.md, "Captured programs"): the plain-C half of
 * libtlbsim-capture (the CUPTI half, cap_cupti.c, only hands events in), so
 * it builds and is unit-tested where CUPTI is absent.
 *
 * cap_event   one driver event as CUPTI reports it: raw addresses, the
 *             driver's handle values and pool base addresses, CUPTI's own
 *             nanosecond timestamps. Activity records (allocations, pools,
 *             kernels) come late and in batches, callbacks (VMM calls,
 *             prefetch, advice, memory samples) at once, from any thread.
 * cap_log     the events held until they can go out in time order, and
 *             what names them in the trace: allocation IDs by live address,
 *             handle and pool numbers by the driver's values. Events wait
 *             in a buffer of CAP_PENDING_MAX; when it fills the older half
 *             goes out sorted by time (the newer half waits for records
 *             still to come from other threads' buffers), and when the
 *             caller flushes (after CUPTI delivered every finished record)
 *             all of it. An event older than one
 *             already written (a kernel still running at a flush) goes out
 *             at the last written time and is counted as late. Memory: the
 *             buffer, plus one map entry per live allocation, handle and
 *             pool: bounded however many allocations a program makes.
 *             An allocation inside a live reservation (CUPTI's MEMORY2 also
 *             reports each mapped VMM range as one, seen with CUDA 13 and
 *             driver 580) is left out: the map records stand for it.
 *
 * Why sorting: the trace's reader checks t= never goes back, and a free
 * can only name an allocation made before it.
 */
#ifndef TLBSIM_CAP_LOG_H
#define TLBSIM_CAP_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/base.h"
#include "tlbsim/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CAP_PENDING_MAX 65536
#define CAP_RESERVED_MAX 1024 /* reservations tracked at once (more: their allocations are written) */

typedef enum {
  CAP_ALLOC,     /* va, size, mem (trace_mem_kind), stream, pool (a pool's base address; 0: none) */
  CAP_FREE,      /* va */
  CAP_POOL,      /* pool (base address), op (trace_pool_op), size (trim: bytes to keep) */
  CAP_RESERVE,   /* va, size, align */
  CAP_UNRESERVE, /* va, size */
  CAP_HANDLE,    /* handle (the driver's value), size */
  CAP_RELEASE,   /* handle */
  CAP_MAP,       /* va, size, handle, offset */
  CAP_UNMAP,     /* va, size */
  CAP_PROTECT,   /* va, size, prot (PT_R|PT_W) */
  CAP_PREFETCH,  /* va, size, op (uvm_side), stream */
  CAP_ADVISE,    /* va, size, op (uvm_advice) */
  CAP_MEMINFO,   /* size = free bytes, total */
  CAP_KERNEL     /* name, grid, block, stream, t = start, dur = end - start */
} cap_kind;

typedef struct cap_event {
  cap_kind kind;
  uint64_t t_ns;   /* CUPTI's timestamp */
  uint64_t dur_ns; /* 0: unknown (not written) */
  uint32_t device;
  uint32_t stream;
  uint64_t va, size, align, offset, total;
  uint64_t handle, pool;
  uint16_t op, mem;
  uint8_t prot;
  uint32_t grid[3], block[3];
  const char *name; /* CAP_KERNEL: copied (cut to a label) at cap_log_add */
} cap_event;

/* What a capture saw that it could not write as it was. */
typedef struct cap_counts {
  uint64_t records;        /* written */
  uint64_t late;           /* events older than one written: written at its time */
  uint64_t unknown_frees;  /* a free (or release, unmap of a pool) of nothing live: skipped */
  uint64_t replaced;       /* an allocation at a live address: the old one freed first */
  uint64_t pending_peak;   /* the most events held at once */
  uint64_t vmm_allocs;     /* allocations inside a reserved range: the map records stand for them */
} cap_counts;

typedef struct cap_log cap_log;

/* A capture into path (refused when path exists: nothing a user has is
 * overwritten), written as path.part and renamed at cap_log_close. t0: the
 * timestamp t=0 stands for. NULL with d set on failure. */
cap_log *cap_log_open(const char *path, uint64_t t0, diag *d);
/* Holds e (copying its name). 0, or -1 with d set (a write failed: the
 * capture should stop). */
int cap_log_add(cap_log *l, const cap_event *e, diag *d);
/* Writes every event held, in time order. 0 or -1 with d set. */
int cap_log_flush(cap_log *l, diag *d);
/* A rate bound any thread may ask without a lock (the memory samples: at
 * most one per gap). Zeroed: the first ask is due. */
typedef struct cap_rate {
  _Atomic uint64_t next; /* the earliest time the next one is due */
} cap_rate;
/* Whether one is due at t (then the next is due gap later); of threads
 * asking at once, one gets it. */
bool cap_rate_due(cap_rate *r, uint64_t t, uint64_t gap);
/* Flushes, finishes the trace and renames it into place: 0, or -1 with d
 * set (the partial file removed). Frees l either way; *c (if not NULL)
 * gets the counts. */
int cap_log_close(cap_log *l, cap_counts *c, diag *d);
/* Frees l and removes its partial file, writing nothing more. */
void cap_log_abandon(cap_log *l);
const cap_counts *cap_log_counts(const cap_log *l);

/* A kernel name as a trace label: bytes the label grammar refuses become
 * '_', cut to TRACE_LABEL_MAX - 1; "?" for an empty one. */
void cap_label(const char *name, char out[TRACE_LABEL_MAX]);

#ifdef __cplusplus
}
#endif

#endif
