/* tlbsim/kstream.h — the bandwidth kernel of `tlbsim-gpu stream`
 * (gpu/src/gpu_stream.cu) as a source of thread blocks for the kernel model
 * (tlbsim/kmodel.h), made in memory: its grid-stride loop, warp by warp,
 * with every lane's address, as a trace of it would hold the kernel. What
 * `tlbsim validate` predicts a stream row with.
 *
 * The kernel: blocks x block_threads threads, nt of them; thread t makes
 * `passes` passes over n = bytes / 16 elements of 16 bytes; each pass
 * loops i = t, t + 4 nt, ... while i < n, loading the elements i + u nt
 * (u < 4, those below n) with 16-byte ld.global.cg, then consuming them:
 * read XORs them into one register, copy stores each to the same element
 * of the second buffer. The instruction stream is the kernel's machine code
 * (gpu/results/h200/stream_pass/gpu_stream.sass, cuobjdump of gpu_stream.cu
 * with tlbsim-gpu's flags), as the Accel-Sim tracer would show a warp
 * running it: the read re-reads SR_TID.X (S2R) and SR_CTAID.X (S2UR)
 * every pass, both the constant bank (LDC of `passes`, ULDC of the grid's
 * size, an LDC.64 of the pointer before each load and, for copy, each
 * store), compare 64-bit
 * indices (ISETP.GE.U32 and .EX), loads with LDG.E.128.STRONG.GPU
 * (ld.global.cg: L2 only), under a BSSY/BSYNC pair. A guarded instruction
 * runs on the lanes its predicate passes: a load, store or XOR of element u
 * on the lanes whose element is below n, so one no lane needs is in the
 * stream with an empty mask (the machine code predicates, it does not
 * branch); lanes with no element branch past the loop.
 * tests/cli/kstream_sass.sh checks the tables against the listing.
 *
 * kstream_spec  one launch: read or copy, the buffers' addresses, bytes,
 *               passes, the launch geometry, and `trips`: 0 for the whole
 *               loop, else at most that many trips of it per warp and pass
 *               (what validate runs a long stream's steady state with).
 * kstream       the kernel's header and opcodes; blocks in grid order.
 */
#ifndef TLBSIM_KSTREAM_H
#define TLBSIM_KSTREAM_H

#include "tlbsim/ktrace.h"

typedef struct kstream_spec {
  bool copy;
  uint64_t src_va, dst_va;  /* dst: copy only */
  uint64_t bytes;           /* read from src each pass: a multiple of 16 */
  uint32_t passes, blocks, block_threads;
  uint64_t trips;           /* 0: every trip of the loop; else at most this many per warp and pass */
} kstream_spec;

typedef struct kstream kstream;

/* NULL with d set for an impossible launch (no blocks, threads not whole warps, ...). */
kstream *kstream_create(const kstream_spec *s, diag *d);
void kstream_destroy(kstream *k);
const ktrace_kernel *kstream_kernel(const kstream *k);
/* Trips of the loop a warp with any element makes per pass, in the whole kernel. */
uint64_t kstream_trips(const kstream_spec *s);
/* The next block (a kmodel_next_fn: ctx is the kstream). */
int kstream_next(void *ctx, ktrace_tb *tb, diag *d);
/* From the first block again (ctx is the kstream). */
void kstream_rewind(void *ctx);

#endif
