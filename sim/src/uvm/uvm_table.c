/* uvm_table.c — uvm_ops over a bare page table and frames (see tlbsim/uvm.h). */
#include "tlbsim/uvm.h"

static int table_map(void *ctx, uint64_t va, uint64_t pa, unsigned shift, bool writable, diag *d) {
  uvm_table *t = ctx;
  return pt_map(t->table, va, pa, shift, writable ? PT_R | PT_W : PT_R, d) ? -1 : 0;
}

static void table_unmap(void *ctx, uint64_t va, unsigned shift) {
  uvm_table *t = ctx;
  (void)shift;
  pt_unmap(t->table, va, NULL);
}

static int table_frame_alloc(void *ctx, unsigned shift, uint64_t *pa) {
  uvm_table *t = ctx;
  return phys_alloc(t->frames, shift, pa);
}

static void table_frame_free(void *ctx, uint64_t pa, unsigned shift) {
  uvm_table *t = ctx;
  phys_free(t->frames, pa, shift);
}

uvm_ops uvm_table_ops(uvm_table *t) {
  return (uvm_ops){.ctx = t, .map = table_map, .unmap = table_unmap, .frame_alloc = table_frame_alloc,
                   .frame_free = table_frame_free};
}
