/* tlbsim/allocreplay.h — allocation requests replayed through several
 * allocator policies in lockstep (`tlbsim alloc`, libtlbsim's
 * tlbsim_alloc): every policy sees the same events, so after each one they
 * can be compared side by side.
 *
 * allocreplay       one heap (vas) per policy over one alloctrace: where
 *                   each policy put every live allocation, the bytes of
 *                   the requests it served, and each policy's first OOM.
 * allocreplay_oom   a policy's first failed request: where, what was asked,
 *                   what was free then and why it failed.
 * allocreplay_sum   what the input recorded of its own allocator (no policy's).
 * allocreplay_buf   one live allocation: its address in a policy, its
 *                   bytes, the input's own name for it.
 * allocreplay_live  what tlbsim-gpu's churn-gather measures of a live set
 *                   (gpu/README.md, "An allocation history").
 *
 * With allocreplay_time, each request also goes through the driver-time
 * model (alloctime.h): each policy's driver calls as its counters changed,
 * the recording's own calls as the cuda model makes them (a capture's
 * every alloc record is a cudaMalloc), a capture's kernels and meminfo
 * samples read too.
 *
 * A request one policy cannot serve (VAS_OOM) is counted and skipped for
 * that policy only; its later free is skipped too.
 */
#ifndef TLBSIM_ALLOCREPLAY_H
#define TLBSIM_ALLOCREPLAY_H

#include "tlbsim/alloctime.h"
#include "tlbsim/alloctrace.h"
#include "tlbsim/vas.h"

#define ALLOCREPLAY_MAX_POLICIES 16

typedef struct allocreplay allocreplay;

typedef struct allocreplay_oom {
  bool any;             /* a request failed; the rest is about the first */
  uint64_t event;       /* its alloctrace_event index */
  uint64_t request;     /* bytes asked */
  uint64_t free_bytes;  /* free in all then */
  uint64_t largest;     /* the largest free extent then */
  uint64_t range;       /* the longest run of free memory then (vas_stats.largest_free_range) */
  vas_oom_reason reason;
} allocreplay_oom;

typedef struct allocreplay_sum {
  uint64_t recorded_reserved; /* the input's own allocator's reserved bytes (SEGMENT events) */
  uint64_t meminfo_samples;   /* a capture's cuMemGetInfo samples (MEMINFO events, when timed) */
  uint64_t driver_free_min;   /* the least free memory the driver reported */
  uint64_t driver_total;      /* the device's total memory, as the driver reports it */
} allocreplay_sum;

typedef struct allocreplay_buf {
  uint64_t va, size, name;
} allocreplay_buf;

/* The GPU suite's regions_2m, regions_32m and va_span_bytes columns:
 * distinct 2 MiB and 32 MiB VA regions any byte of a buffer lies in, and
 * lowest to highest byte. */
typedef struct allocreplay_live {
  uint64_t buffers, va_span, regions_2m, regions_32m;
} allocreplay_live;

/* The heaps' configuration for trace t: capacity (0: the device the
 * snapshot was captured on; the caller resolves a preset's), the
 * allocator settings the input was recorded with, then the `nparams`
 * "KEY=VALUE" settings (vas_config_set keys, "vas.KEY" too); a bad one is
 * "WHAT:N: ..." with N from 1. */
int allocreplay_config(vas_config *vc, const alloctrace *t, uint64_t capacity, const char *const *params,
                       size_t nparams, const char *what, diag *d);

/* One heap per policy name (1 to ALLOCREPLAY_MAX_POLICIES) over t, which
 * the replay reads but does not own. An unknown policy's error is
 * vas_create's ("unknown allocator policy ..."). */
allocreplay *allocreplay_create(alloctrace *t, const char *const *policies, unsigned npolicies,
                                const vas_config *vc, diag *d);
void allocreplay_destroy(allocreplay *r);
/* Before the first event: model the driver calls' time with c, over the
 * window from the mark labelled begin to the one labelled end (begin
 * NULL: all of the input). -1 when host memory ran out. */
int allocreplay_time(allocreplay *r, const alloctime_config *c, const char *begin, const char *end, diag *d);
/* The model's sums for policy (false: not timed). */
bool allocreplay_timing(const allocreplay *r, unsigned policy, alloctime_sum *out);
/* Whether the window's begin mark was read (and in *ended its end's). */
bool allocreplay_window_seen(const allocreplay *r, bool *ended);

/* Reads the next event into *ev and applies it to every heap: 1, 0 at the
 * end, -1 on an error "FILE:LINE: ..." (line formats) or "FILE: event N:
 * ..." in d. */
int allocreplay_next(allocreplay *r, alloctrace_event *ev, diag *d);

const alloctrace *allocreplay_trace(const allocreplay *r);
unsigned allocreplay_count(const allocreplay *r);
const vas *allocreplay_heap(const allocreplay *r, unsigned policy);
const allocreplay_oom *allocreplay_first_oom(const allocreplay *r, unsigned policy);
const allocreplay_sum *allocreplay_get_sum(const allocreplay *r);
/* The bytes of the requests `policy` served that are live now (a request
 * it could not serve is no live allocation of it), and in *peak (may be
 * NULL) the most of them at once: at most what it allocated. */
uint64_t allocreplay_requested(const allocreplay *r, unsigned policy, uint64_t *peak);
/* The bytes requested for dense id `id` (still known after its free). */
uint64_t allocreplay_size(const allocreplay *r, uint64_t id);
/* Whether `policy` placed allocation `id` (false: it hit OOM there). */
bool allocreplay_served(const allocreplay *r, unsigned policy, uint64_t id);
/* Where `policy` placed live allocation `id` (when served). */
uint64_t allocreplay_va(const allocreplay *r, unsigned policy, uint64_t id);

/* The allocations live in `policy` now, as a malloc'd array of *n (NULL:
 * out of memory). blocks: in id order, each as large as the policy set it
 * aside (its allocated bytes grew by that); buffers: in allocation order,
 * each the bytes requested. */
allocreplay_buf *allocreplay_blocks(const allocreplay *r, unsigned policy, size_t *n);
allocreplay_buf *allocreplay_buffers(const allocreplay *r, unsigned policy, size_t *n);

/* Measures n buffers (sorts them by address; zero-byte ones touch no
 * region). */
void allocreplay_measure(allocreplay_buf *b, size_t n, allocreplay_live *out);

#endif
