/* tlbsim/mmu.h — the translation hierarchy: named TLB levels, a walker and
 * the latency model.
 *
 * mmu_config        plain data the configuration layer fills: levels with
 *                   their arrays (tlb_geometry), where misses go, which
 *                   accesses they serve, latencies; the walker's config.
 * mmu               one translation context (a CPU core, a GPU SM): its
 *                   levels, each holding tlb arrays it owns or shares with
 *                   other MMUs (mmu_share: an L2 TLB shared by the SMs of a
 *                   group), and a walker it owns or shares. Reads (never owns
 *                   or changes) the pt it translates through. Counts what
 *                   its own translations did, on shared arrays too.
 * mmu_outcome       what one translation did: where it hit, walk refs,
 *                   cycles, fault.
 * mmu_observer      optional callbacks for each look-up, fill (with its
 *                   victim), walk step, fault, shootdown and finished
 *                   translation (its outcome): what the
 *                   per-access log and `explain` show. Off by default; the
 *                   translation pays one branch per event site.
 *
 * mmu_translate is a pure function of the MMU's state and its arguments: it
 * knows nothing of time, queues or other MMUs' requests in flight, which the
 * concurrency model (gather) adds around it.
 *
 * Lookup path: an access enters at the one level that serves its kind and is
 * no other level's `next`; each miss goes to `next` until a hit or the walk.
 * A hit or a walk fills every level it passed on the way (inclusive fill).
 * The walk (walker.h) starts below the deepest page-walk-cache hit; each
 * entry read below that is one memory reference.
 *
 * Cycles per translated access = the data access (a request to the memory
 * system below, memsys.h) + the `latency` of every level looked up + (on a
 * walk) the walk's cycles (walk_cycles + its reads, themselves requests to
 * the memory system unless the walker's line cache serves them). The
 * outcome keeps the three parts apart, so a timing model replays each as a
 * step of its own and nobody recovers one by subtraction. A faulting access
 * costs the same; a walk repeated after the fault handler mapped the page
 * adds its cycles again.
 *
 * Arrays of a level: a look-up probes every array of the level; a fill goes
 * to the array holding the page's size, and a size no array of the level
 * holds bypasses that level on fill. Sector arrays are filled with a valid
 * bit for each page of the sector mapped like the filled one (same size and
 * prot; with sector_needs_contiguous_pa also pa - va equal), found by free
 * pt_lookup calls.
 *
 * An access kind no level serves goes straight to the walk (mmu_serves says
 * whether one does).
 *
 * Shootdowns drop every entry of the current asid overlapping the page, in
 * all levels and walk caches. Entries are tagged with the current asid; with
 * asid_tagged false a context switch flushes everything instead.
 */
#ifndef TLBSIM_MMU_H
#define TLBSIM_MMU_H

#include "tlbsim/config.h"
#include "tlbsim/memsys.h"
#include "tlbsim/pt.h"
#include "tlbsim/tlb.h"
#include "tlbsim/walker.h"

#define MMU_MAX_LEVELS 8
#define MMU_MAX_ARRAYS TLB_MAX_PAGE_SIZES
#define MMU_NAME_MAX 32
#define MMU_NEXT_WALK (-1)
#define MMU_SHARED_BY_ALL UINT32_MAX
/* The agents a level may be shared by (a system's: system.h). */
#define MMU_MAX_AGENTS 256
/* Entries of every TLB array, walk cache and the page-table line cache of
 * one configuration together (a sector entry counts once per page it
 * holds): host memory grows with them, so a configuration holds at most
 * what one largest array may (about 1 GiB of host memory). */
#define MMU_MAX_CONFIG_ENTRIES TLB_MAX_ENTRIES

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
  uint32_t shared_by;                   /* agents of a system sharing its arrays (system.h): 0 or 1 each
                                           its own, MMU_SHARED_BY_ALL one for all, else groups of this many */
} mmu_level_config;

typedef struct mmu_config {
  uint8_t nlevels;
  mmu_level_config level[MMU_MAX_LEVELS];
  walker_config walker;
  bool asid_tagged;         /* false: a context switch flushes every TLB */
  uint32_t fill_bytes;      /* a sector fill takes only the pages whose leaf entries share
                               this aligned block of the leaf table with the page filled
                               (what one walker fetch brings); 0: every mapped page */
} mmu_config;

/* Reads [latency] walk_cycles, [mmu], [ptcache], every [tlb.NAME],
 * [tlb.NAME:SIZE] and [pwc.LEVEL] of c into *out (for format f; levels
 * hold page_size pages unless they say; seeds derived from seed), each key
 * marked used; errors at the key ("FILE:LINE: section.key: ..."). */
int mmu_config_read(cfg *c, const pt_format *f, uint64_t page_size, uint64_t seed, mmu_config *out, diag *d);
/* The key tables of what mmu_config_read reads, i = 0, 1, ... until NULL. */
const cfg_keys *mmu_config_keys(size_t i);

/* Validates structure: unique names, next indices in range, no cycle, exactly
 * one entry level for data, at most one for instructions; the walker's
 * config without a format. */
int mmu_config_check(const mmu_config *c, diag *d);

/* The name of array a of level lc as reports show it: the level's name
 * alone when it has one array, else followed by the sizes the array holds
 * as its configuration section writes them ("l1d:2M", "stlb:4K+2M").
 * Needs MMU_ARRAY_NAME_MAX bytes. */
#define MMU_ARRAY_NAME_MAX (MMU_NAME_MAX + 8 * TLB_MAX_PAGE_SIZES)
const char *mmu_array_name(const mmu_level_config *lc, unsigned a, char *buf, size_t len);

typedef enum { MMU_OK, MMU_FAULT_UNMAPPED, MMU_FAULT_PROT } mmu_status;

typedef struct mmu_outcome {
  mmu_status status;
  uint64_t pa;
  int hit_level;      /* level index that hit, or -1 when a walk ran */
  uint32_t missed;    /* bit per level index looked up that missed */
  uint32_t walk_refs; /* memory references of the walk (0 if none) */
  uint8_t page_shift; /* the page translated (0 when unmapped) */
  uint64_t cycles;    /* data_cycles + tlb_cycles + walk_cycles */
  uint32_t data_cycles; /* the data access itself (memsys) */
  uint64_t tlb_cycles;  /* the latencies of the levels looked up */
  uint64_t walk_cycles; /* the walks (none: 0) */
} mmu_outcome;

/* One array of a level split by page size ([tlb.l1d:2M]): which of the
 * level's hits, fills and evictions were its own, so a split level's page
 * sizes can be compared (their sums are the level's hits and evictions). */
typedef struct mmu_array_stats {
  uint64_t hits, fills, evictions;
} mmu_array_stats;

typedef struct mmu_level_stats {
  uint64_t accesses, hits, misses;
  uint64_t evictions; /* fills that replaced a valid entry of another page */
  mmu_array_stats array[MMU_MAX_ARRAYS];
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

/* Events, for observers. `set` is the set a look-up probed (of the array's
 * first page size on a miss) or a fill used. */
typedef struct mmu_lookup_event {
  uint64_t va;
  unsigned level, array;
  uint64_t set;
  bool hit;
} mmu_lookup_event;

typedef struct mmu_fill_event {
  uint64_t va;
  unsigned level, array;
  uint64_t set;
  unsigned page_shift;
  tlb_victim victim;
} mmu_fill_event;

typedef struct mmu_observer {
  void *ctx;
  void (*lookup)(void *ctx, const mmu_lookup_event *e);
  void (*fill)(void *ctx, const mmu_fill_event *e);
  /* One walk, its steps read or known from a walk cache (walker_result). */
  void (*walk)(void *ctx, uint64_t va, const walker_result *w);
  void (*fault)(void *ctx, uint64_t va, mmu_status status);
  void (*shootdown)(void *ctx, uint64_t va, unsigned page_shift, unsigned dropped);
  /* The end of one mmu_translate: its outcome (after the events above). */
  void (*translated)(void *ctx, uint64_t va, const mmu_outcome *o);
} mmu_observer;

/* What a new MMU takes from others instead of building its own: per level,
 * the MMU whose same-indexed level's arrays it uses (same geometry), and a
 * walker; and the address space it starts in. Lenders outlive borrowers. */
typedef struct mmu_share {
  mmu *level_from[MMU_MAX_LEVELS];
  walker *walker;
  uint32_t asid;
} mmu_share;

/* Also checks c against the table's format (walk caches only on levels that
 * have non-leaf entries). Starts in asid 0 (or share's). Data accesses (and, through
 * the walker it builds, page-table reads) go to mem, which outlives the
 * MMU. share may be NULL. */
mmu *mmu_create(const mmu_config *c, const pt *table, memsys *mem, const mmu_share *share, diag *d);
void mmu_destroy(mmu *m);
/* Translates one page's worth of access (callers split straddling ones). */
void mmu_translate(mmu *m, uint64_t va, acc_kind kind, mmu_outcome *out);
/* mmu_translate's common case alone, for a replay that needs no outcome
 * when it is the usual one: true when va hits the entry level's first
 * array with the rights kind needs (and the data's cost is fixed, no
 * observer watches), counted as mmu_translate counts it (its outcome: OK,
 * nothing missed). False: nothing is counted and no replacement order
 * changed (a miss changes none; a hit without the rights was of the entry
 * used last), and mmu_translate gives the outcome. */
bool mmu_translate_hit(mmu *m, uint64_t va, acc_kind kind);
/* The addresses whose translation now would repeat the last one for
 * free: a first-level hit on the same entry, which only counts (the
 * entry is the newest already). [lo, lo + span] is that page (span is
 * its offset mask, one less than a power of two); kinds has
 * bit (1 << acc_kind) for each kind that takes that path (the level it
 * enters at, and the page's protection allows it); 0 when none does.
 * A replay's loop tests its accesses against the window and counts a run
 * of them with mmu_repeat_count instead of translating each. The window
 * returned is the MMU's own, kept up to date by every call that changes
 * it: one look-up of it serves for the MMU's life. */
typedef struct mmu_window {
  uint64_t lo, span;
  unsigned kinds;
} mmu_window;
const mmu_window *mmu_repeat_window(const mmu *m);
/* Counts n translations of addresses inside the window, exactly as n
 * mmu_translate calls would (translations, the level's hits, cycles). */
void mmu_repeat_count(mmu *m, uint64_t n);
/* Whether some TLB level serves this kind of access. */
bool mmu_serves(const mmu *m, acc_kind kind);
/* Demand paging: called when a walk finds va unmapped. Returning true says
 * the page is mapped now; the walk runs once more. */
typedef bool (*mmu_fault_fn)(void *ctx, uint64_t va, acc_kind kind);
void mmu_set_fault_handler(mmu *m, mmu_fault_fn fn, void *ctx);
/* Events go to o (copied) from now on; NULL turns them off. */
void mmu_set_observer(mmu *m, const mmu_observer *o);
/* Invalidates the page at va of address space asid in every level and walk
 * cache (a shootdown). */
void mmu_shootdown(mmu *m, uint64_t va, unsigned page_shift, uint32_t asid);
/* A context switch to asid (counted when asid changes), same table. */
void mmu_set_asid(mmu *m, uint32_t asid);
/* A context switch to asid translating through table (same format) from
 * now on. */
void mmu_set_context(mmu *m, uint32_t asid, const pt *table);
/* Forgets all cached translations without counting a shootdown. */
void mmu_flush(mmu *m);
walker *mmu_get_walker(mmu *m);

const mmu_stats *mmu_get_stats(const mmu *m);
/* Bit s set: pages of 2^s bytes were translated that no TLB level on their
 * path holds (no array of that page size), so every access to them walked. */
uint64_t mmu_unheld_page_shifts(const mmu *m);
void mmu_reset_stats(mmu *m);
const mmu_config *mmu_get_config(const mmu *m);
mmu_level_stats mmu_level_get_stats(const mmu *m, unsigned level);
/* Level index by name, or -1. */
int mmu_level_find(const mmu *m, const char *name);

#endif
