/* sim/cli/alloc_live.h — what `tlbsim alloc` writes of the allocations
 * alive at one point of a replay (tlbsim/allocreplay.h's allocreplay_buf):
 * tlbsim-gpu's layout file of those alive at the end (gpu/README.md, "An
 * allocation history"), and a policy's address-space map (--map, and
 * every Nth event's with --map-every: the browser page's allocator map).
 */
#ifndef TLBSIM_CLI_ALLOC_LIVE_H
#define TLBSIM_CLI_ALLOC_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tlbsim/allocreplay.h"

/* CSV header and one policy's rows, b in allocation order:
 * source,case,index,id,size_bytes,offset_bytes with case the policy and
 * offsets from the first buffer, the schema of gpu/results/h200/layout_*. */
void live_layout_header(FILE *f);
void live_layout_rows(FILE *f, const char *source, const char *policy, const allocreplay_buf *b, size_t n);

/* A policy's address space at one event of the replay (`tlbsim alloc
 * --map`): its live blocks as the policy sized them, the rest of the window
 * free, and the request that failed there, if one did. The window is the
 * policy's managed VA range when that is its memory (the generic heaps),
 * else the span of its live blocks (a GPU policy's range is 128 TiB). */
typedef struct live_map {
  const char *policy;
  uint64_t event;               /* the event it stands after */
  uint64_t time_us;             /* ... and its time */
  uint64_t window_base, window_size;
  bool buddy_free;              /* free space is kept as aligned power-of-two blocks (buddy):
                                   a gap is listed as the blocks it is made of */
  allocreplay_buf *used;               /* sorted by address (owned) */
  size_t nused;
  bool failed;                  /* the event was a request this policy could not serve: */
  uint64_t request;             /* ... its size */
  const char *reason;           /* ... vas_oom_reason_name */
  uint64_t free_bytes, largest; /* ... and what was free then */
  uint64_t range;               /* ... the longest run of it (vas_stats.largest_free_range) */
  vas_stats stats;              /* the policy's counts after the event */
  allocreplay_live live;        /* the 2 MiB and 32 MiB regions its live buffers touch */
} live_map;

/* Sorts b (n blocks) into m->used (a copy) and sets the window from the
 * managed range [range_base, +range_size) or, when that is larger than
 * capacity, from the blocks; -1 when out of memory. */
int live_map_fill(live_map *m, const allocreplay_buf *b, size_t n, uint64_t range_base, uint64_t range_size,
                  uint64_t capacity);
void live_map_free(live_map *m);
/* The map as text: a bar of the window (# used, . free, + both), then its
 * used and free extents (the first 48), then the failed request. */
void live_map_text(FILE *f, const live_map *m);
/* CSV for plots/alloc_map.gp: policy,row,event,kind,offset_bytes,size_bytes,id
 * with kind used, free or failed (the request, at offset 0) and offsets
 * from the window's base. */
void live_map_csv_header(FILE *f);
void live_map_csv_rows(FILE *f, const live_map *m, unsigned row);
/* The map as one line of JSON (--map-json; keys in docs/ALLOC.md):
 * policy, event, time_us, window_base, window_size, the policy's bytes and
 * fragmentation, the live buffers' regions_2m, regions_32m and
 * va_span_bytes, used [[offset, size, id], ...] and free [[offset, size],
 * ...] with offsets from the window's base, failed (null or the request).
 * -1 when out of memory. */
int live_map_json(FILE *f, const live_map *m);

#endif
