/* tlbsim/layout.h — an allocation history's live set, as a kernel that
 * reads it sees it: the chapter's question (churn → layout → slowdown) end
 * to end, the way `tlbsim-gpu churn-gather` and `smallbufs` measure it.
 *
 * layout_source  where the requests come from: a native trace's alloc and
 *                free records (traces/churn/), or `count` requests of
 *                `size` bytes in a row (smallbufs).
 * layout_case    churned: the live set the history leaves; fresh: the live
 *                sizes allocated again, in order, in a new address space;
 *                pool: the same sizes carved in order from one allocation
 *                (rounded to 512 bytes, gpu/README.md) — the history is
 *                replayed through the machine's allocator policy in the
 *                first two, through a first-fit heap in the third.
 * layout         the machine that holds the live set (its page table), the
 *                first line of every live buffer in allocation order (what
 *                the kernels load), the table of their offsets the gather
 *                reads them through, and how the buffers spread over VA
 *                (the 2 MiB and 32 MiB regions a TLB must cover).
 */
#ifndef TLBSIM_LAYOUT_H
#define TLBSIM_LAYOUT_H

#include "tlbsim/chase.h"
#include "tlbsim/gather.h"
#include "tlbsim/machine.h"

typedef enum { LAYOUT_CHURNED, LAYOUT_FRESH, LAYOUT_POOL } layout_case;

/* "churned", "fresh", "pool" by layout_case, NULL-terminated. */
extern const char *const layout_case_names[];

typedef struct layout_source {
  const char *trace;  /* a native trace of alloc/free records; NULL: the requests below */
  uint64_t count, size;
} layout_source;

typedef struct layout_regions {
  uint64_t buffers, live_bytes, va_span;
  uint64_t regions_2m, regions_32m;      /* distinct regions any byte of a buffer lies in */
  uint64_t line_regions_2m, line_regions_32m; /* the same for their first lines */
} layout_regions;

typedef struct layout {
  machine *m;
  machine_alloc *buf; /* the live buffers, allocation order */
  uint64_t *node_va;  /* the first line of each */
  uint32_t nodes;
  uint64_t offsets_va; /* the table of node offsets (one more allocation) */
} layout;

/* Builds the live set of `src` for case c on a machine of spec (its [vas]
 * policy for churned and fresh). Errors name the trace's line. */
int layout_build(const machine_spec *spec, const layout_source *src, layout_case c, layout *out, diag *d);
void layout_free(layout *l);

/* How the first n buffers spread over VA. -1 when host memory runs out. */
int layout_regions_of(const layout *l, uint32_t n, layout_regions *out);
/* tlbsim-gpu's one-thread chase over the first lines of the first n
 * buffers: one random cycle (gpu_permute(n, seed)), max(2n, 1024) warm-up
 * loads, 3 passes of n * ceil(4096 / n) loads. */
int layout_chase(const machine_spec *spec, const layout *l, uint32_t n, uint64_t seed, chase_result *out, diag *d);
/* The gather over the first lines of the first n buffers in table mode,
 * on every SM. */
int layout_gather(const machine_spec *spec, const layout *l, uint32_t n, uint32_t threads_per_sm,
                  uint32_t loads_per_thread, uint64_t seed, gather_result *out, diag *d);

#endif
