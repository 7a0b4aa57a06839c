/* tlbsim/chase.h — the GPU suite's pointer chase, simulated.
 *
 * chase_spec    one measured point as tlbsim-gpu defines it (gpu/README.md):
 *               a region of `footprint` bytes mapped with `page_size` pages
 *               in `chunk`-sized pieces as tlbsim-gpu maps it (region.h:
 *               contiguous, shuffled, cudamalloc, aliased beyond memory,
 *               managed), nodes at i*stride visited in seq or seeded
 *               random order (tlbsim/gpu_chain.h builds the very same
 *               chain), `warmup` untimed loads, then `repeats` passes of
 *               `steps` loads.
 * chase_result  the median pass's cycles per load and where the loads'
 *               translations were served (per TLB level, walks).
 *
 * A fresh page table and MMU are built per point, so points are independent
 * and can be re-simulated one CSV row at a time (tlbsim validate).
 */
#ifndef TLBSIM_CHASE_H
#define TLBSIM_CHASE_H

#include "tlbsim/system.h"
#include "tlbsim/region.h"

typedef enum { CHASE_SEQ, CHASE_RANDOM } chase_order;

/* Names by chase_order, NULL-terminated. */
extern const char *const chase_order_names[];
int chase_order_parse(const char *s, chase_order *out);
const char *chase_order_name(chase_order o);

typedef struct chase_spec {
  uint64_t footprint;  /* nodes * stride when nodes is 0 */
  uint64_t stride;
  uint32_t nodes;      /* 0: footprint / stride */
  uint64_t page_size;
  uint64_t chunk;      /* physical pieces the mapping is made of (2 MiB VMM chunks) */
  region_mapping mapping;
  chase_order order;
  uint64_t seed;       /* chain order and chunk shuffle */
  uint64_t va_base;    /* where the region starts; 0: aligned to its size as tlbsim-gpu reserves,
                          or as far as the format's VA space allows (chase_run) */
  uint64_t warmup;     /* at least one full pass is enforced, as on the GPU */
  uint64_t steps;      /* loads per timed pass */
  unsigned repeats;
  const region_history *history; /* managed: what the allocation saw before (region.h); NULL: nothing */
} chase_spec;

typedef struct chase_result {
  double cycles_per_access;            /* median over the timed passes */
  uint32_t nodes;
  uint64_t loads;                      /* timed loads */
  mmu_level_stats level[MMU_MAX_LEVELS]; /* over the timed passes */
  uint64_t walks, walk_refs;
  uint64_t line_hits;                  /* walk reads the page-table line cache served */
} chase_result;

/* The work one point may take, so that no CSV row or option runs for hours
 * or allocates gigabytes: loads (the warm-up, at least one pass, plus the
 * timed passes; a few minutes at worst) and nodes (8 bytes of chain each). */
#define CHASE_MAX_LOADS (UINT64_C(1) << 30)
#define CHASE_MAX_NODES (UINT32_C(1) << 27)
/* Pages the point's region maps (region.h), as many as one trace record may
 * touch (machine.h): 4 KiB pages over terabytes were billions of writes. */
#define CHASE_MAX_PAGES (UINT64_C(1) << 24)

/* Whether chase_run accepts s: 0, or -1 with what is wrong (no location:
 * the caller knows the row or option). */
int chase_spec_check(const chase_spec *s, diag *d);
/* One thread's chase over nodes at the addresses va[], visited in that
 * order round a cycle, in an existing page table (a layout an allocator
 * built): max(warmup, nodes) untimed loads, then `repeats` passes of
 * `steps`. */
int chase_run_nodes(const system_spec *sp, const pt *t, const uint64_t *va, uint32_t nodes, uint64_t warmup,
                    uint64_t steps, unsigned repeats, chase_result *out, diag *d);

/* Simulates one point with a format and a system's configuration (one
 * agent: the one thread's SM). */
int chase_run(const pt_format *f, const system_spec *sp, const chase_spec *s, chase_result *out, diag *d);

#endif
