/* tlbsim/mrc.h — miss-ratio curves: the misses of many LRU TLB geometries
 * from one pass over a trace.
 *
 * mrc_spec  what one pass measures, as plain data: the page sizes (each an
 *           independent analysis), the largest fully associative size, the
 *           largest set count and the ways tracked for set-associative
 *           arrays, whether instruction fetches count, a sampling rate.
 * mrc       the pass. Per page size it owns a lane: a list of the most
 *           recently used pages, the stack-distance counter of the pages
 *           that fell off that list, one bounded LRU stack per set for
 *           every power-of-two set count, and the histograms of distances
 *           and set positions from which every geometry's misses are read.
 *
 * What is counted is what tlbsim's TLB (tlb.h) counts for one array with
 * LRU replacement and the modulo set index: each page an access touches is
 * one reference (a straddling access of pages p and p+1 refers to p, then
 * p+1), and a reference misses when its page is not held. A fully
 * associative array of C entries misses exactly the references whose
 * stack distance (distinct pages used since the page's last use) is at
 * least C, or that are first uses (Mattson et al. 1970); an array of 2^k
 * sets misses those whose distance counted among the pages of the same set
 * (the same low k bits of the page number) is at least its ways (Hill &
 * Smith 1989). docs/MRC.md describes the algorithms and their costs.
 *
 * OPT (spec.opt): Belady's optimal replacement for every fully associative
 * size up to max_entries, the bound no policy beats. It needs each page's
 * next use, so the pass logs every reference (4 bytes each per page size,
 * plus 8 at mrc_finish: memory grows with the trace, unlike the rest) and
 * mrc_finish runs OPT's priority stack over the log (Mattson et al. 1970;
 * Sugumar & Abraham 1993). Not with sampling.
 *
 * Sampling (SHARDS, Waldspurger et al., FAST 2015): with rate R < 1 only
 * pages whose hash falls below R * 2^64 enter the part of the analysis
 * whose memory grows with the trace's distinct pages (distances beyond a
 * short list of the most recent pages), and the pages counted there stand
 * for 1/R as many. Fully associative arrays larger than that list
 * (MRC_RECENT_EXACT entries) get estimates; smaller ones and every
 * set-associative array stay exact.
 */
#ifndef TLBSIM_MRC_H
#define TLBSIM_MRC_H

#include "tlbsim/base.h"
#include "tlbsim/trace.h"

#define MRC_MAX_PAGE_SIZES 8u
#define MRC_MAX_SET_BITS 20u
#define MRC_MAX_ENTRIES (1u << MRC_MAX_SET_BITS) /* also bounds sets: a set holds an entry */
#define MRC_RECENT_EXACT 32u /* fully associative sizes up to this are exact at any sample rate */
/* The lowest SHARDS rate: one page in a million. Below it a trace of
 * fewer than millions of pages samples none, and a rate below 2^-64
 * (denormals) samples none of any trace; a pass that sampled none of its
 * deep references is an error at mrc_finish in any case. */
#define MRC_SAMPLE_MIN 1e-6

typedef struct mrc_spec {
  unsigned npage_shifts;
  uint8_t page_shift[MRC_MAX_PAGE_SIZES]; /* distinct, 1..63 */
  uint32_t max_entries; /* fully associative sizes 1..max_entries; <= MRC_MAX_ENTRIES */
  uint32_t max_sets;    /* set counts 2, 4, ... max_sets (a power of two); 1: none */
  uint32_t max_ways;    /* ways tracked at each set count, cut to max_entries / sets */
  double sample_rate;   /* SHARDS rate in [MRC_SAMPLE_MIN, 1]; 1 analyses every page, exactly */
  bool inst;            /* instruction fetches are references too (a unified TLB) */
  bool opt;             /* also Belady's OPT, fully associative (mrc_finish) */
  uint32_t compact_at;  /* fall-off times held before the first renumbering; 0: the
                           default. Only tests set it, to exercise compaction. */
} mrc_spec;

/* Sets s's page sizes from a comma list of distinct power-of-two sizes
 * ("4K,2M"); -1 (s's list then unspecified) when it is not one, or longer
 * than MRC_MAX_PAGE_SIZES. */
int mrc_spec_page_sizes(mrc_spec *s, const char *list);
/* Checks a spec; fills d (no location) with what is impossible. */
int mrc_spec_check(const mrc_spec *s, diag *d);

typedef struct mrc mrc;

mrc *mrc_create(const mrc_spec *s, diag *d);
void mrc_destroy(mrc *m);

/* One block of trace records (trace.h), in order. Accesses at absolute
 * addresses are references (fetches only with spec.inst); an access
 * relative to an allocation (@ID) and a switch to an address space other
 * than 0 are errors, since an mrc models no allocator and one address
 * space; layout records (alloc, free, map, unmap, protect) and marks are
 * skipped: an mrc shoots nothing down. -1 with d as "FILE:LINE: ..." on
 * error. */
int mrc_run_block(mrc *m, const trace_block *b, const char *file, diag *d);
/* One access of `size` bytes at va (0 counts as 1): a reference to each
 * page it touches (trace_pages), at every page size. -1 when host memory
 * runs out or OPT's log is full. */
int mrc_access(mrc *m, uint64_t va, uint64_t size);

/* References (translations) at page size index i, sampled or not. */
uint64_t mrc_references(const mrc *m, unsigned i);
/* Whether the pass measured an LRU array of sets x ways (sets 1: fully
 * associative, of `ways` entries). */
bool mrc_measures(const mrc *m, uint32_t sets, uint32_t ways);
/* The misses of that array at page size index i (a measured geometry):
 * exact, or the SHARDS estimate for a sampled fully associative array of
 * more than MRC_RECENT_EXACT entries. */
uint64_t mrc_misses(const mrc *m, unsigned i, uint32_t sets, uint32_t ways);
/* Every block of r through mrc_run_block, calling each_block(ctx) (when
 * given) after each, then mrc_finish: 0, 1 when each_block returned
 * non-zero (the curves are of the blocks read so far: an interrupt), -1
 * with d as "FILE:LINE: ..." on a bad record, or when host memory runs out. */
int mrc_replay(mrc *m, trace_reader *r, int (*each_block)(void *ctx), void *ctx, diag *d);
/* After the last block: what needs the whole trace (OPT). -1 with d when
 * host memory runs out, or when a sampled pass sampled none of the
 * references past the MRC_RECENT_EXACT most recent pages (its estimate of
 * every larger array would be 0 misses, below the trace's first uses). */
int mrc_finish(mrc *m, diag *d);
/* With spec.opt, after mrc_finish: the misses of an OPT fully associative
 * array of `entries` (1..max_entries) at page size index i. */
uint64_t mrc_opt_misses(const mrc *m, unsigned i, uint32_t entries);

#endif
