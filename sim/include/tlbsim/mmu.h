/* tlbsim/mmu.h — the translation hierarchy: named TLB levels, page-walk
 * caches, the walker and the latency model.
 *
 * mmu_config        plain data the configuration layer fills: levels with
 *                   their arrays (tlb_geometry), where misses go, which
 *                   accesses they serve, latencies; one optional page-walk
 *                   cache per page-table level.
 * mmu               owns its tlb arrays and walk caches; reads (never owns
 *                   or changes) the pt it translates through.
 * mmu_outcome       what one translation did: where it hit, walk refs,
 *                   cycles, fault.
 *
 * Lookup path: an access enters at the one level that serves its kind and is
 * no other level's `next`; each miss goes to `next` until a hit or the walk.
 * A hit or a walk fills every level it passed on the way (inclusive fill).
 * The walk starts below the deepest page-walk-cache hit; each entry read
 * below that is one memory reference.
 *
 * Cycles per translated access = data_cycles + the `latency` of every level
 * looked up + (on a walk) walk_cycles + walk_refs * walk_ref_cycles, where
 * a reference whose page-table line is in the line cache costs hit_cycles. A
 * faulting access costs the same; a walk repeated after the fault handler
 * mapped the page adds its walk_cycles and refs again.
 *
 * Arrays of a level: a look-up probes every array of the level; a fill goes
 * to the array holding the page's size, and a size no array of the level
 * holds bypasses that level on fill. Sector arrays are filled with a valid
 * bit for each page of the sector mapped like the filled one (same size and
 * prot; with sector_needs_contiguous_pa also pa - va equal), found by free
 * pt_lookup calls.
 *
 * Page-walk caches: pwc[L] caches present non-leaf entries of page-table
 * level L, keyed by va >> (the level's index shift). A walk probes them
 * deepest level first and stops at the first hit; it reads only the entries
 * below that level and fills the caches of the non-leaf entries it read.
 * An access kind no level serves goes straight to the walk (mmu_serves says
 * whether one does).
 *
 * Shootdowns drop every entry of the current asid overlapping the page, in
 * all levels and walk caches. Entries are tagged with the current asid; with
 * asid_tagged false a context switch flushes everything instead.
 */
#ifndef TLBSIM_MMU_H
#define TLBSIM_MMU_H

#include "tlbsim/pt.h"
#include "tlbsim/tlb.h"

#define MMU_MAX_LEVELS 8
#define MMU_MAX_ARRAYS TLB_MAX_PAGE_SIZES
#define MMU_NAME_MAX 32
#define MMU_NEXT_WALK (-1)

typedef enum { ACC_READ, ACC_WRITE, ACC_EXEC } acc_kind;
enum { SERVES_DATA = 1, SERVES_INST = 2, SERVES_BOTH = 3 };

typedef struct mmu_level_config {
  char name[MMU_NAME_MAX];
  uint8_t narrays;                      /* 1: unified; >1: one array per page size */
  tlb_geometry array[MMU_MAX_ARRAYS];
  int next;                             /* index of the level misses go to, or MMU_NEXT_WALK */
  uint8_t serves;                       /* SERVES_* */
  uint32_t latency;                     /* cycles added when an access looks this level up */
  bool sector_needs_contiguous_pa;      /* sector bits only for physically contiguous pages */
} mmu_level_config;

typedef struct mmu_pwc_config {
  uint32_t entries; /* 0: no cache for this page-table level */
  uint32_t ways;
  tlb_policy policy;
} mmu_pwc_config;

/* A cache of page-table memory lines the walker reads through (a GPU's
 * GMMU keeps page-table lines near it; a CPU's walker reads through L1/L2).
 * A walk reference whose line is cached costs hit_cycles instead of
 * walk_ref_cycles: walks along neighbouring entries get cheaper. */
typedef struct mmu_line_cache_config {
  uint32_t entries;    /* lines; 0: no line cache */
  uint32_t ways;
  uint32_t line_bytes; /* a power of two */
  uint32_t hit_cycles;
} mmu_line_cache_config;

typedef struct mmu_config {
  uint8_t nlevels;
  mmu_level_config level[MMU_MAX_LEVELS];
  mmu_pwc_config pwc[PT_MAX_LEVELS]; /* indexed by page-table level; caches that level's entries */
  uint32_t data_cycles;     /* the access itself once translated */
  uint32_t walk_cycles;     /* fixed cost of starting a walk */
  uint32_t walk_ref_cycles; /* per page-table entry read (a line-cache miss) */
  mmu_line_cache_config line_cache;
  bool asid_tagged;         /* false: a context switch flushes every TLB */
  uint32_t fill_bytes;      /* a sector fill takes only the pages whose leaf entries share
                               this aligned block of the leaf table with the page filled
                               (what one walker fetch brings); 0: every mapped page */
  uint64_t seed;            /* seeds random walk caches (level arrays have their own) */
} mmu_config;

/* Validates structure: unique names, next indices in range, no cycle, exactly
 * one entry level for data, at most one for instructions. */
int mmu_config_check(const mmu_config *c, diag *d);

typedef enum { MMU_OK, MMU_FAULT_UNMAPPED, MMU_FAULT_PROT } mmu_status;

typedef struct mmu_outcome {
  mmu_status status;
  uint64_t pa;
  int hit_level;      /* level index that hit, or -1 when a walk ran */
  uint32_t missed;    /* bit per level index looked up that missed */
  uint32_t walk_refs; /* memory references of the walk (0 if none) */
  uint64_t cycles;
} mmu_outcome;

typedef struct mmu_level_stats {
  uint64_t accesses, hits, misses;
} mmu_level_stats;

typedef struct mmu_stats {
  uint64_t translations;  /* one per page touched */
  uint64_t walks, walk_refs;
  uint64_t pwc_hits[PT_MAX_LEVELS], pwc_lookups[PT_MAX_LEVELS];
  uint64_t line_hits;     /* walk references served by the line cache */
  uint64_t faults_unmapped, faults_prot; /* unmapped: walks that found no page, demand-paged ones too */
  uint64_t shootdowns;    /* invalidation requests */
  uint64_t entries_invalidated;
  uint64_t context_switches;
  uint64_t cycles;        /* sum of outcome cycles */
} mmu_stats;

typedef struct mmu mmu;

/* Also checks c against the table's format (walk caches only on levels that
 * have non-leaf entries). Starts in asid 0. */
mmu *mmu_create(const mmu_config *c, const pt *table, diag *d);
void mmu_destroy(mmu *m);
/* Translates one page's worth of access (callers split straddling ones). */
void mmu_translate(mmu *m, uint64_t va, acc_kind kind, mmu_outcome *out);
/* Whether some TLB level serves this kind of access. */
bool mmu_serves(const mmu *m, acc_kind kind);
/* Demand paging: called when a walk finds va unmapped. Returning true says
 * the page is mapped now; the walk runs once more. */
typedef bool (*mmu_fault_fn)(void *ctx, uint64_t va, acc_kind kind);
void mmu_set_fault_handler(mmu *m, mmu_fault_fn fn, void *ctx);
/* Invalidates the page at va in every level and walk cache (a shootdown). */
void mmu_shootdown(mmu *m, uint64_t va, unsigned page_shift);
/* A context switch to asid (counted when asid changes), same table. */
void mmu_set_asid(mmu *m, uint32_t asid);
/* A context switch to asid translating through table (same format) from
 * now on. */
void mmu_set_context(mmu *m, uint32_t asid, const pt *table);
/* Forgets all cached translations without counting a shootdown. */
void mmu_flush(mmu *m);

const mmu_stats *mmu_get_stats(const mmu *m);
void mmu_reset_stats(mmu *m);
const mmu_config *mmu_get_config(const mmu *m);
mmu_level_stats mmu_level_get_stats(const mmu *m, unsigned level);
/* Level index by name, or -1. */
int mmu_level_find(const mmu *m, const char *name);

#endif
