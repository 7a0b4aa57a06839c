/* tlbsim/walker.h — the page-table walker: page-walk caches, the cache of
 * page-table lines it reads through, and what a walk costs.
 *
 * walker_config  plain data: one optional walk cache per page-table level,
 *                the line cache, the walk's fixed cycles.
 * walker         owns its walk caches and line cache; reads (never owns or
 *                changes) the pt it walks, which each walk names, so one
 *                walker can serve several MMUs and address spaces (a GPU's
 *                GMMU walks for every SM). It keeps no statistics: each
 *                walk's walker_result says what it did, and the MMU that
 *                asked counts it.
 * walker_result  one walk: every entry on the path (pt_walk), which were
 *                read from memory and which the line cache served, the walk
 *                cache that hit, the cycles.
 *
 * A walk probes the walk caches deepest level first and stops at the first
 * hit; it reads only the entries below that level, each through the line
 * cache (a hit costs line hit_cycles; a miss is a request to the memory
 * system, memsys.h, and brings the line in), and fills the walk caches of
 * the non-leaf entries it read. Its cycles are walk_cycles plus those
 * reads. Walk caches are keyed by
 * va >> (the level's index shift) and tagged with the asid; the line cache
 * by the entry's physical address (one address space of tables).
 */
#ifndef TLBSIM_WALKER_H
#define TLBSIM_WALKER_H

#include "tlbsim/memsys.h"
#include "tlbsim/pt.h"
#include "tlbsim/tlb.h"

typedef struct walker_pwc_config {
  uint32_t entries; /* 0: no cache for this page-table level */
  uint32_t ways;
  tlb_policy policy;
} walker_pwc_config;

/* A cache of page-table memory lines the walker reads through (a GPU's
 * GMMU keeps page-table lines near it; a CPU's walker reads through L1/L2):
 * walks along neighbouring entries get cheaper. */
typedef struct walker_line_cache_config {
  uint32_t entries;    /* lines; 0: no line cache */
  uint32_t ways;
  uint32_t line_bytes; /* a power of two, at least one 8-byte entry */
  uint32_t hit_cycles;
} walker_line_cache_config;

typedef struct walker_config {
  walker_pwc_config pwc[PT_MAX_LEVELS]; /* indexed by page-table level */
  walker_line_cache_config line_cache;
  uint32_t walk_cycles;     /* fixed cost of starting a walk */
  uint64_t seed;            /* seeds random walk caches */
} walker_config;

/* Checks the walk caches' geometry and, with a format, that each caches a
 * level holding non-leaf entries (not the last). */
int walker_config_check(const walker_config *c, const pt_format *f, diag *d);

/* One entry on a walk's path. */
typedef struct walker_step {
  pt_step entry;
  bool read;      /* read by this walk (false: known from the walk cache) */
  bool line_hit;  /* the read was served by the line cache */
  uint32_t cycles;
} walker_step;

typedef struct walker_result {
  pt_walk walk;            /* the table's own view: steps, mapped, map */
  walker_step step[PT_MAX_LEVELS];
  int pwc_hit;             /* page-table level whose walk cache hit, -1 none */
  uint32_t pwc_probed;     /* bit per page-table level whose walk cache was looked up */
  uint32_t refs;           /* entries read from memory or the line cache */
  uint32_t line_hits;
  uint64_t cycles;         /* walk_cycles + the reads */
} walker_result;

typedef struct walker walker;

/* The walker reads page-table entries through mem (borrowed: it outlives
 * the walker). */
walker *walker_create(const walker_config *c, const pt_format *f, memsys *mem, diag *d);
void walker_destroy(walker *w);
const walker_config *walker_get_config(const walker *w);
/* Walks va in table (whose format the walker was made for) for asid. */
void walker_walk(walker *w, const pt *table, uint64_t va, uint32_t asid, walker_result *out);
/* Drops walk-cache entries of asid (TLB_ANY_ASID: all) covering the page of
 * 2^page_shift at va, or with page_shift 64 every entry of asid. Returns
 * how many. The line cache is left alone: table memory did not change
 * where a walk would read it. */
unsigned walker_invalidate(walker *w, uint64_t va, unsigned page_shift, uint32_t asid);

#endif
