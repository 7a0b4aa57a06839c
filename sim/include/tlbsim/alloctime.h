/* tlbsim/alloctime.h — what allocations cost in time (`tlbsim alloc`'s
 * driver_time_s): a replay of a capture on two timelines, the host's and
 * the device's, once per allocator policy.
 *
 * alloctime_table   one driver call's measured latency against size, read
 *                   between its points linearly in log2(size), constant past
 *                   the ends.
 * alloctime_config  the [driver] section: the tables (cudaMalloc and
 *                   cudaFree that map or unmap memory, and those that do
 *                   not; the VMM calls a piece of expandable memory costs)
 *                   and the constants of the two timelines (the wait a
 *                   synchronizing call ends with, the launch latency, when a
 *                   kernel was queued, the capture's own cost per record).
 * alloctime_work    what one event made one policy ask of the driver: calls,
 *                   mappings and their bytes (the policy's counters' change).
 * alloctime         the clocks: the recording's host and device as the
 *                   capture shows them, and per policy the replayed host and
 *                   device; the sums inside the window (--between).
 * alloctime_sum     per policy: the window's wall time, the host's time in
 *                   driver calls and, of it, waiting for the device.
 *
 * The model (docs/ALLOC.md, "What the allocations cost in time"): the host
 * issues the records in order, doing between two of them the work the
 * recording shows (its gap, less the recorded call's own cost, the wait it
 * had and the capture's overhead); a kernel starts when both the host has
 * launched it and the device has finished the one before; a call that
 * frees memory (cudaFree, an unmap) first waits for the device to finish
 * every kernel launched before it; a policy that serves a request from its
 * own cache makes no call and does not wait.
 */
#ifndef TLBSIM_ALLOCTIME_H
#define TLBSIM_ALLOCTIME_H

#include "tlbsim/base.h"
#include "tlbsim/config.h"

#define ALLOCTIME_POINTS 48
#define ALLOCTIME_MAX_POLICIES 16

typedef struct alloctime_table {
  size_t n;                         /* 0: the call costs nothing (the table is not given) */
  uint64_t size[ALLOCTIME_POINTS];  /* increasing */
  double us[ALLOCTIME_POINTS];
} alloctime_table;

typedef struct alloctime_config {
  alloctime_table malloc_map, malloc_small, free_unmap, free_small, vmm_map, vmm_unmap;
  double sync_us;    /* a waiting call returns this long after the device's last kernel ends */
  double launch_us;  /* a launch on an idle device starts this long after the host issued it */
  double queue_us;   /* a kernel that starts within this of the previous one's end was queued */
  double hidden_us;  /* the host's work before a record where the recording hides it (a wait) */
  double capture_us; /* the capture library's own host time per alloc and free record */
  bool given;        /* the section has a table: time is modelled */
} alloctime_config;

const cfg_keys *alloctime_config_keys(void);
/* [driver] of c (absent: given false, every cost 0). */
int alloctime_config_read(cfg *c, alloctime_config *out, diag *d);
/* t's latency at size, in us (0 for an empty table). */
double alloctime_table_us(const alloctime_table *t, uint64_t size);

typedef struct alloctime_work {
  uint64_t request;          /* bytes asked: a call that maps nothing is costed by it */
  uint32_t allocs, frees;    /* driver calls: cudaMalloc / cudaFree (vmm: map / unmap calls) */
  uint32_t maps, unmaps;     /* mappings built / torn down (vmm: pieces) */
  uint64_t mapped, unmapped; /* their bytes */
  bool vmm;                  /* the policy maps with the VMM calls (expandable) */
} alloctime_work;

/* The host's time the work costs (us; no wait), and whether it waits for
 * the device first (it frees or unmaps memory). */
double alloctime_work_us(const alloctime_config *c, const alloctime_work *w);
bool alloctime_work_waits(const alloctime_work *w);

typedef struct alloctime_sum {
  bool timed;      /* the input had times (a capture): wall and wait are known */
  double wall_s;   /* the window: from its first record to its last, host and device done */
  double driver_s; /* the host's time in driver calls, waits included */
  double wait_s;   /* of it, waiting for the device */
} alloctime_sum;

typedef struct alloctime alloctime;

alloctime *alloctime_create(const alloctime_config *c, unsigned npolicies);
void alloctime_destroy(alloctime *a);
/* The window: from the first record of the mark labelled begin to the
 * first labelled end after it (NULL, NULL: the whole input). */
void alloctime_window(alloctime *a, const char *begin, const char *end);
/* A kernel the recording started at t_ns on the device, for dur_ns. */
void alloctime_kernel(alloctime *a, const char *label, uint64_t t_ns, uint64_t dur_ns);
/* A mark that is not a kernel (a phase boundary) at host time t_ns. */
void alloctime_mark(alloctime *a, const char *label, uint64_t t_ns);
/* An allocation (release false) or free at t_ns (timed: the input has
 * times): rec is what the recording's own call did, p[i] what policy i did. */
void alloctime_call(alloctime *a, bool timed, uint64_t t_ns, bool release, const alloctime_work *rec,
                    const alloctime_work *p);
/* Whether the window began and ended (--between names marks the input has). */
bool alloctime_window_seen(const alloctime *a, bool *ended);
alloctime_sum alloctime_get(const alloctime *a, unsigned policy);

#endif
