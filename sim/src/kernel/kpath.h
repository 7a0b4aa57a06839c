/* kpath.h — the kernel model's memory path: what one warp instruction's
 * lines meet below its SM's issue. Private to the kernel model (kmodel.c
 * issues the instructions; kpipe.h carries them here, on a thread of
 * their own where one runs).
 *
 * kpath      every SM's load path (its LSU stage, L1 data cache, MMU and
 *            L1-TLB miss path), the L2-TLB groups' and the GPU's
 *            translation stages, the walker, the L2 cache and its data
 *            stage, DRAM's banks, rows and bus: the state and the stage
 *            times of tlbsim/kmodel.h's mechanism below issue, and the
 *            counts they make (kmodel_result's lines to walk_reads_dram).
 * kpath_req  one memory instruction as its warp issued it: its SM, when,
 *            and its lines (coalesced: kmem_coalesce), read or store.
 *
 * kpath_access is a function of the path's state and the requests before
 * it, in the order they came: so the same requests in the same order give
 * the same times and counts whichever thread makes the calls. An access's
 * time is never less than its issue plus kpath_lead: what lets the model
 * go on with its warps while the path works (kpipe.h).
 */
#ifndef TLBSIM_KPATH_H
#define TLBSIM_KPATH_H

#include "tlbsim/kmem.h"
#include "tlbsim/kmodel.h"

typedef struct kpath kpath;

typedef struct kpath_req {
  double t;          /* issue; < 0: the warm-up (state only, nothing timed or counted) */
  uint64_t src_line; /* the trace line that gave it, for an error */
  uint32_t sm;       /* a simulated SM's index */
  uint8_t n;         /* lines, at most KMEM_LINES_MAX */
  bool store;        /* a store or an atomic: stays in the L2 or goes on to DRAM; nobody waits */
  bool l2_only;      /* a load past the L1 (ld.global.cg, volatile: ktrace_op's l2_only) */
} kpath_req;

/* The path for spec's kernel on the SMs of spec->groups L2-TLB groups
 * (0: every SM); NULL with d set. file names the trace for errors. */
kpath *kpath_new(const kmodel_spec *spec, const char *file, diag *d);
void kpath_free(kpath *p);
/* SMs simulated, and their share of the GPU's. */
uint32_t kpath_sms(const kpath *p);
double kpath_share(const kpath *p);
/* The least any timed access takes from its issue to *done (a load's
 * data back; a store's *done is its issue): at least 0. */
double kpath_lead(const kpath *p);

/* r's lines[0 .. r->n - 1] through the path: *done when its data is back
 * (a store: its issue; the warm-up: state only). 0, or -1 with d set
 * ("FILE:LINE: address ... is outside every mapping"). */
int kpath_access(kpath *p, const kpath_req *r, const kmem_line *lines, double *done, diag *d);
/* Asks the host for the state a later access of lines will read first
 * (each line's L1 set): nothing else changes. */
void kpath_prefetch(const kpath *p, const kpath_req *r, const kmem_line *lines);
/* The timed pass begins: the TLBs' counts start again. */
void kpath_reset_stats(kpath *p);
/* The last time the L2 or DRAM is busy: a launch lasts at least that
 * (what no warp waits for, the stores, still takes their time). */
double kpath_memory_end(const kpath *p);
/* The path's counts added to r, and its stages' utilisation over `span`
 * cycles into r->busy. */
void kpath_report(const kpath *p, double span, kmodel_result *r);

#endif
