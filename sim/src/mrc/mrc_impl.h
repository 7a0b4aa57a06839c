/* mrc_impl.h — the parts of one mrc lane (internal; see tlbsim/mrc.h).
 *
 * A lane keeps the MRC_RECENT most recently used pages in a short list,
 * most recent first (mrc.c). Nearly every reference finds its page there,
 * at a depth that is its stack distance, and the pages above it are all the
 * newer pages: that is enough for every curve, with no hashing.
 *
 * mrc_outside  the pages that fell off the list. Every page on the list is
 *              newer than every page off it, so a page falling off is the
 *              newest of those off it: it gets the next "fall time", and
 *              times only grow. A page found off the list has distance
 *              MRC_RECENT + the pages that fell after it: a Fenwick tree
 *              over a bitmap of the times still held counts them in
 *              O(log n). Times are renumbered when they run out (those
 *              held are kept in order), so memory follows the distinct
 *              pages, not the trace's length. With sampling only the
 *              sampled pages enter it (mrc.c scales what it counts).
 * mrc_sets     for each set count 2^k (k = 1..levels) the LRU stack of
 *              every set, cut at the ways tracked there, and a histogram of
 *              the position at which each reference found its page.
 * mrc_opt      Belady's OPT (spec.opt): OPT needs each page's next use, so
 *              the references are logged (a dense id per page, 4 bytes per
 *              reference) and the OPT stack runs over the log at the end
 *              (mrc_opt.c), into a histogram of depths.
 */
#ifndef TLBSIM_MRC_IMPL_H
#define TLBSIM_MRC_IMPL_H

#include "tlbsim/mrc.h"

#define MRC_RECENT MRC_RECENT_EXACT /* the recent list: distances below it are exact */
#define MRC_NO_PAGE UINT64_MAX /* page numbers are va >> shift, shift >= 1 */
#define MRC_NO_TIME UINT32_MAX

typedef struct mrc_slot {
  uint64_t page; /* MRC_NO_PAGE: empty */
  uint32_t time; /* fall time while off the list, else MRC_NO_TIME */
} mrc_slot;

typedef struct mrc_outside {
  mrc_slot *slot;    /* open addressing, linear probing; never deleted: a page
                        that fell off once keeps its slot */
  size_t slot_mask;  /* slots - 1; held at most half full */
  size_t used;       /* slots with a page */
  uint64_t *bits;    /* bit t set: the page that fell at time t is still off */
  uint32_t *tree;    /* Fenwick tree of the words' set-bit counts, 1-based */
  uint64_t *owner;   /* the page that fell at time t, to renumber it */
  uint32_t cap;      /* times before a renumbering; a multiple of 64 */
  uint32_t next;     /* the next fall time */
  uint32_t held;     /* bits set */
  uint32_t compact_at;
} mrc_outside;

int outside_init(mrc_outside *o, uint32_t compact_at);
void outside_free(mrc_outside *o);
/* Page falls off the recent list. -1 when host memory runs out. */
int outside_push(mrc_outside *o, uint64_t page);
/* If page is off the list, takes it back (it goes to the list's front) and
 * returns true with the number of pages that fell after it in *newer;
 * false for a page never seen. */
bool outside_take(mrc_outside *o, uint64_t page, uint64_t *newer);

typedef struct mrc_level {
  uint64_t *stack; /* [sets][depth] page numbers, most recent first; MRC_NO_PAGE pads */
  uint64_t *hist;  /* [depth + 1]: hist[p] references found at position p >= 1;
                      hist[depth] also those not held. Position 0 is a hit for
                      every associativity, so it is not counted. */
  uint64_t set_mask;
  uint32_t depth;  /* the largest ways asked for at this set count */
} mrc_level;

typedef struct mrc_sets {
  unsigned levels;                         /* set counts 2^1 .. 2^levels */
  mrc_level level[MRC_MAX_SET_BITS + 1];   /* [k]: 2^k sets; [0] unused (that is the
                                              fully associative curve) */
} mrc_sets;

/* Levels for set counts up to max_sets, each tracking min(max_ways,
 * max_entries / sets) ways. */
int sets_init(mrc_sets *s, uint32_t max_sets, uint32_t max_ways, uint32_t max_entries);
void sets_free(mrc_sets *s);
/* A reference to page found at depth n >= 1 of the recent list, below
 * newer[0..n-1]. */
void sets_recent(mrc_sets *s, uint64_t page, const uint64_t *newer, unsigned n);
/* A reference to a page that is not on the recent list. */
void sets_deep(mrc_sets *s, uint64_t page);
/* Misses of 2^k sets x ways (ways <= the level's depth). */
uint64_t sets_misses(const mrc_sets *s, unsigned k, uint32_t ways);

typedef struct mrc_opt {
  uint32_t *ref;     /* [nref]: the page id of each reference, until opt_finish */
  size_t nref, cap;
  uint64_t *key;     /* page-to-id table, open addressing; MRC_NO_PAGE: empty */
  uint32_t *id;
  size_t slot_mask;  /* held at most half full */
  uint32_t npages;   /* ids given */
  uint64_t *hist;    /* after opt_finish, [max_entries + 1]: references at OPT depth d
                        (0: the top); [max_entries] those held by no size */
} mrc_opt;

int opt_init(mrc_opt *o);
void opt_free(mrc_opt *o);
/* Logs a reference: 0, -1 when host memory runs out, -2 when the log is
 * full (2^32 - 1 references). */
int opt_reference(mrc_opt *o, uint64_t page);
/* Runs the OPT stack over the log (then freed). -1 when memory runs out. */
int opt_finish(mrc_opt *o, uint32_t max_entries);
/* Misses of an OPT array of `entries` (<= max_entries) after opt_finish. */
uint64_t opt_misses(const mrc_opt *o, uint32_t entries, uint32_t max_entries);

#endif
