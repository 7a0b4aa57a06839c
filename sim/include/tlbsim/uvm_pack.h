/* tlbsim/uvm_pack.h — where the CUDA runtime puts managed allocations
 * smaller than a VA block: packed together inside 2 MiB blocks it makes
 * managed ranges of its own, so the driver (tlbsim/uvm.h) keeps residency
 * per block for several allocations at once. Measured on an H200
 * (gpu/results/h200/managed_pack.csv, managed_pack_empty.csv; the rules in
 * gpu/results/h200/README.md):
 *  - a request below one block takes its size rounded up to `grain` (512)
 *    bytes at the lowest offset with room, first fit over the blocks in
 *    address order;
 *  - a new block is taken when none has room (its VA is the caller's: the
 *    machine's [uvm] heap, or a capture's va=);
 *  - a block goes back to the driver with its last allocation.
 *
 * uvm_pack       one address space's packed blocks, in address order, each
 *                with its live allocations in offset order. Owns only that
 *                bookkeeping: the managed ranges and their VA stay the
 *                caller's (it adds a block's range when a block is new and
 *                removes it when uvm_pack_remove empties one).
 * uvm_pack_block a block as uvm_pack_remove hands it back: its VA and
 *                whether the caller took it from its heap (`owned`: the
 *                caller gives the VA back) or a capture placed it.
 */
#ifndef TLBSIM_UVM_PACK_H
#define TLBSIM_UVM_PACK_H

#include "tlbsim/base.h"

typedef struct uvm_pack uvm_pack;

typedef struct uvm_pack_block {
  uint64_t va;
  bool owned;
} uvm_pack_block;

/* Blocks of `block` bytes (a power of two), allocations in granules of
 * `grain` (a power of two, at most block). NULL when out of memory. */
uvm_pack *uvm_pack_create(uint64_t block, uint64_t grain);
void uvm_pack_destroy(uvm_pack *p);

/* Whether a request of size bytes is packed (smaller than a block). */
bool uvm_pack_takes(const uvm_pack *p, uint64_t size);

/* Where the runtime puts size bytes (uvm_pack_takes): true with *va, the
 * lowest room in the first block that has it; false when no block has
 * room (the caller takes a new block, and its start is the place). */
bool uvm_pack_find(const uvm_pack *p, uint64_t size, uint64_t *va);

/* size bytes at va are live (found, or where a capture recorded them), in
 * the block round va; *fresh when that block held none (it is new: owned
 * says whose its VA is). 0, or -1 (d, no location) when they cross the
 * block's end or overlap a live allocation, or out of memory. */
int uvm_pack_add(uvm_pack *p, uint64_t va, uint64_t size, bool owned, bool *fresh, diag *d);

/* The allocation at va is freed; when it was its block's last, *emptied
 * and *block say so (the block is gone). 0, or -1 (d) when no live packed
 * allocation starts at va. */
int uvm_pack_remove(uvm_pack *p, uint64_t va, bool *emptied, uvm_pack_block *block, diag *d);

#endif
