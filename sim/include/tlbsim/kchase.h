/* tlbsim/kchase.h — the memory-latency chases of `tlbsim-gpu dram-chase`
 * and `l2-chase` (gpu/src/gpu_memlat.cu, gpu_chase.cu's chase_kernel) as a
 * source of thread blocks for the kernel model (tlbsim/kmodel.h): one
 * block, one warp, one lane walking the chain with dependent 8-byte
 * ld.global.cg (LDG.E.64.STRONG.GPU: L2 only), the loop's add, compare and
 * branch after every fourth load (its unrolled body; they wait on nothing).
 *
 * The chain is the one the GPU built, from the same code and seed:
 *   dram  `nodes` nodes on distinct random 128-byte lines of the footprint,
 *         node k at line gpu_rowperm_at(k) of footprint / 128, visited in
 *         index order (never revisited within warm-up and timed steps);
 *   l2    every line of the footprint in one seeded random cycle
 *         (gpu_chain_build at a 128-byte stride).
 * The walk starts at visit position 0; a kchase covers the loads
 * [first, first + loads) of it, so one source is the warm-up (the row's
 * warmup loads) and another the timed steps after it, as the kernel's clock
 * reads split them.
 */
#ifndef TLBSIM_KCHASE_H
#define TLBSIM_KCHASE_H

#include "tlbsim/ktrace.h"

typedef enum { KCHASE_DRAM, KCHASE_L2 } kchase_kind;

typedef struct kchase_spec {
  kchase_kind kind;
  uint64_t va_base, footprint; /* the region the nodes lie in */
  uint64_t nodes, seed;
  uint64_t first, loads;       /* the loads of the walk this source issues */
} kchase_spec;

typedef struct kchase kchase;

/* NULL with d set when the chain cannot be built (more nodes than lines, ...). */
kchase *kchase_create(const kchase_spec *s, diag *d);
void kchase_destroy(kchase *k);
const ktrace_kernel *kchase_kernel(const kchase *k);
/* The one block (a kmodel_next_fn: ctx is the kchase). */
int kchase_next(void *ctx, ktrace_tb *tb, diag *d);
void kchase_rewind(void *ctx);

#endif
