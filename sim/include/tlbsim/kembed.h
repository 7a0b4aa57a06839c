/* tlbsim/kembed.h — the embedding-bag kernel of `tlbsim-gpu embed` as a
 * source of thread blocks for the kernel model (tlbsim/kmodel.h), made in
 * memory: the same blocks its Accel-Sim trace holds (the kernel's SASS,
 * sim/src/exp/gpu_embed_sass.c; the ids of gpu_embed.h, so each lane's address
 * is the kernel's), without writing or parsing a gigabyte of text. What
 * `tlbsim validate` predicts an embed row with.
 *
 * kembed_spec  one measured point: row bytes, ids per bag, bags, the part
 *              of the table indexed, alpha, seed, and the buffers'
 *              addresses and allocation sizes (the row's table_va ... ).
 * kembed       the ids drawn, the header, the opcode table; blocks in
 *              grid order, from the first again after kembed_rewind.
 */
#ifndef TLBSIM_KEMBED_H
#define TLBSIM_KEMBED_H

#include "tlbsim/ktrace.h"

typedef struct kembed_spec {
  uint32_t row_bytes, ids_per_bag;
  uint64_t bags, table_bytes;
  double alpha;
  uint64_t seed;
  uint64_t table_va, table_alloc, ids_va, ids_alloc, out_va, out_alloc;
} kembed_spec;

typedef struct kembed kembed;

/* NULL with d set when no SASS of that shape is compiled in, or the shape
 * or ids are impossible. */
kembed *kembed_create(const kembed_spec *s, diag *d);
void kembed_destroy(kembed *k);
const ktrace_kernel *kembed_kernel(const kembed *k);
/* The next block (a kmodel_next_fn: ctx is the kembed). */
int kembed_next(void *ctx, ktrace_tb *tb, diag *d);
/* From the first block again (a kmodel_source's rewind: ctx is the kembed). */
void kembed_rewind(void *ctx);

#endif
