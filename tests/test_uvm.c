/* Tests for managed memory (tlbsim/uvm.h): the prefetch tree, which pages
 * the GPU maps for each history (first touch, host-written then faulted,
 * prefetched, touched again on the host), fault batches and costs, advice,
 * eviction, and the errors for memory that is not managed. */
#include <string.h>

#include "harness.h"
#include "tlbsim/uvm.h"

#define MIB (UINT64_C(1) << 20)
#define KIB64 (UINT64_C(64) << 10)
#define BASE (UINT64_C(1) << 40)

typedef struct fixture {
  uvm_table t;
  uvm_space *s;
  uvm_config cfg;
  uvm_counts c;
} fixture;

/* A space over a hopper page table and `phys_mib` MiB of device memory,
 * with a range of `mib` MiB at BASE. */
static void setup(fixture *f, uint64_t mib, uint64_t phys_mib) {
  memset(f, 0, sizeof *f);
  f->t.table = pt_create(pt_format_find("hopper"));
  f->t.frames = phys_create(phys_mib * MIB, 12, PHYS_LOWEST_FIRST);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f->t.table);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f->t.frames);
  uvm_config_default(&f->cfg);
  f->cfg.batch_us = 10, f->cfg.block_us = 2, f->cfg.fault_us = 1, f->cfg.migrate_fault_us = 3;
  f->cfg.populate_gbps = 64, f->cfg.migrate_gbps = 16, f->cfg.prefetch_gbps = 32, f->cfg.prefetch_us = 5;
  uvm_ops ops = uvm_table_ops(&f->t);
  f->s = uvm_create(&f->cfg, &ops);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f->s);
  diag d;
  CU_ASSERT_EQUAL_FATAL(uvm_range_add(f->s, BASE, mib * MIB, &d), 0);
}

static void teardown(fixture *f) {
  uvm_destroy(f->s);
  pt_destroy(f->t.table);
  phys_destroy(f->t.frames);
}

static int gpu(fixture *f, uint64_t va, bool write) {
  diag d;
  return uvm_gpu_fault(f->s, va, write, &f->c, &d);
}

static uvm_block_state block_at(fixture *f, uint64_t va) {
  uvm_block_state b;
  CU_ASSERT_EQUAL_FATAL(uvm_block_get(f->s, va, &b), 0);
  return b;
}

static unsigned mapped_shift(fixture *f, uint64_t va) {
  pt_mapping m;
  return pt_lookup(f->t.table, va, &m) ? m.page_shift : 0;
}

/* uvm_perf_prefetch.c: a subtree is brought once MORE than 51 % of it is
 * present, so half never is; the largest qualifying subtree wins. */
static void test_tree(void) {
  CU_ASSERT_EQUAL(uvm_prefetch_region(1, 0, 32, 51), 1);         /* the page alone */
  CU_ASSERT_EQUAL(uvm_prefetch_region(0x3, 0, 32, 51), 0x3);     /* a full pair */
  CU_ASSERT_EQUAL(uvm_prefetch_region(0x7, 2, 32, 51), 0xf);     /* 3 of 4: the 4th comes */
  CU_ASSERT_EQUAL(uvm_prefetch_region(0x55555555, 0, 32, 51), 1); /* every other page: 50 % everywhere */
  CU_ASSERT_EQUAL(uvm_prefetch_region(0x1ffff, 16, 32, 51), 0xffffffff); /* 17 of 32: the block */
  CU_ASSERT_EQUAL(uvm_prefetch_region(0xffff, 15, 32, 51), 0xffff);      /* 16 of 32: half of it */
  CU_ASSERT_EQUAL(uvm_prefetch_region(0x3, 1, 3, 51), 0x7);      /* a short block: 2 of its 3 pages */
  CU_ASSERT_EQUAL(uvm_prefetch_region(0xffffffff, 3, 32, 100), 0); /* threshold 100: never (the fault alone) */
}

/* The GPU touches every big page of a block in order: after 17 the tree
 * brings the rest, and the block is one 2 MiB page (chase_pop.csv gpu:1). */
static void test_gpu_first_touch(void) {
  fixture f;
  setup(&f, 4, 64);
  for (unsigned p = 0; p < 32; p++) CU_ASSERT_EQUAL(gpu(&f, BASE + p * KIB64, true), 1);
  uvm_block_state b = block_at(&f, BASE);
  CU_ASSERT_EQUAL(b.gpu, 0xffffffffu);
  CU_ASSERT_TRUE(b.big2m);
  CU_ASSERT_EQUAL(mapped_shift(&f, BASE + 5 * KIB64), 21);
  CU_ASSERT_EQUAL(f.c.faults, 6); /* pages 0, 1, 2 (brings 3), 4 (5-7), 8 (9-15), 16 (the rest) */
  CU_ASSERT_EQUAL(f.c.populated_bytes, 2 * MIB);
  CU_ASSERT_EQUAL(f.c.to_gpu_bytes, 0);
  CU_ASSERT_EQUAL(f.c.batches, 1);
  CU_ASSERT_EQUAL(f.c.block_services, 1);
  /* 10 us batch + 2 us block + 6 faults of 1 us + 2 MiB at 64 GB/s */
  CU_ASSERT_DOUBLE_EQUAL(f.c.fault_ns, 10e3 + 2e3 + 6e3 + 2.0 * MIB / 64, 1e-6);
  teardown(&f);
}

/* Every other big page (gpu:2): half of every subtree, so no prefetch and
 * a 64 KiB page each. */
static void test_half_stays_small(void) {
  fixture f;
  setup(&f, 2, 64);
  for (unsigned p = 0; p < 32; p += 2) CU_ASSERT_EQUAL(gpu(&f, BASE + p * KIB64, false), 1);
  uvm_block_state b = block_at(&f, BASE);
  CU_ASSERT_EQUAL(b.gpu, 0x55555555u);
  CU_ASSERT_FALSE(b.big2m);
  CU_ASSERT_EQUAL(mapped_shift(&f, BASE), 16);
  CU_ASSERT_EQUAL(mapped_shift(&f, BASE + KIB64), 0);
  CU_ASSERT_EQUAL(f.c.faults, 16);
  teardown(&f);
}

/* Host-written, then the GPU faults one page per block (host:1): it
 * migrates, the tree counts only GPU-resident pages, 64 KiB pages. */
static void test_host_then_gpu(void) {
  fixture f;
  setup(&f, 8, 64);
  diag d;
  CU_ASSERT_EQUAL(uvm_host_access(f.s, BASE, 8 * MIB, true, &f.c, &d), 0);
  for (unsigned blk = 0; blk < 4; blk++) CU_ASSERT_EQUAL(gpu(&f, BASE + blk * 2 * MIB, false), 1);
  uvm_block_state b = block_at(&f, BASE + 2 * MIB);
  CU_ASSERT_EQUAL(b.gpu, 1);
  CU_ASSERT_EQUAL(b.host, 0xfffffffeu);
  CU_ASSERT_EQUAL(mapped_shift(&f, BASE + 2 * MIB), 16);
  CU_ASSERT_EQUAL(f.c.to_gpu_bytes, 4 * KIB64);
  CU_ASSERT_EQUAL(f.c.populated_bytes, 0);
  CU_ASSERT_EQUAL(f.c.faults, 4);
  CU_ASSERT_EQUAL(f.c.block_services, 4);
  CU_ASSERT_DOUBLE_EQUAL(f.c.fault_ns, 10e3 + 4 * (2e3 + 1e3 + 3e3 + KIB64 / 16.0), 1e-6);
  teardown(&f);
}

/* A prefetch moves everything and maps whole blocks as 2 MiB pages; a host
 * touch then takes one big page back and splits its block. */
static void test_prefetch_then_host(void) {
  fixture f;
  setup(&f, 4, 64);
  diag d;
  CU_ASSERT_EQUAL(uvm_host_access(f.s, BASE, 4 * MIB, true, &f.c, &d), 0);
  CU_ASSERT_EQUAL(uvm_prefetch(f.s, BASE, 4 * MIB, UVM_GPU, &f.c, &d), 0);
  CU_ASSERT_TRUE(block_at(&f, BASE).big2m);
  CU_ASSERT_TRUE(block_at(&f, BASE + 2 * MIB).big2m);
  CU_ASSERT_EQUAL(f.c.prefetched_bytes, 4 * MIB);
  CU_ASSERT_DOUBLE_EQUAL(f.c.prefetch_ns, 5e3 + 4.0 * MIB / 32, 1e-6);
  CU_ASSERT_EQUAL(f.c.faults, 0);
  CU_ASSERT_EQUAL(uvm_host_access(f.s, BASE + 3 * KIB64 + 8, 8, false, &f.c, &d), 0);
  uvm_block_state b = block_at(&f, BASE);
  CU_ASSERT_FALSE(b.big2m);
  CU_ASSERT_EQUAL(b.gpu, 0xfffffff7u);
  CU_ASSERT_EQUAL(f.c.host_faults, 1);
  CU_ASSERT_EQUAL(f.c.to_host_bytes, KIB64);
  CU_ASSERT_EQUAL(mapped_shift(&f, BASE), 16);
  CU_ASSERT_EQUAL(mapped_shift(&f, BASE + 3 * KIB64), 0);
  CU_ASSERT_TRUE(block_at(&f, BASE + 2 * MIB).big2m); /* the other block keeps its page */
  /* the GPU faults it back: the block is whole again */
  CU_ASSERT_EQUAL(gpu(&f, BASE + 3 * KIB64, false), 1);
  CU_ASSERT_TRUE(block_at(&f, BASE).big2m);
  CU_ASSERT_EQUAL(f.c.to_gpu_bytes, KIB64);
  teardown(&f);
}

/* 256 faults a batch; a sync ends the open one. */
static void test_batches(void) {
  fixture f;
  setup(&f, 1024, 2048);
  for (unsigned i = 0; i < 300; i++) CU_ASSERT_EQUAL(gpu(&f, BASE + (uint64_t)i * 2 * MIB, false), 1);
  CU_ASSERT_EQUAL(f.c.faults, 300);
  CU_ASSERT_EQUAL(f.c.batches, 2);
  CU_ASSERT_EQUAL(f.c.block_services, 300);
  uvm_sync(f.s);
  CU_ASSERT_EQUAL(gpu(&f, BASE + 301 * 2 * MIB, false), 1);
  CU_ASSERT_EQUAL(f.c.batches, 3);
  /* one block faulted twice in a batch is serviced once */
  CU_ASSERT_EQUAL(gpu(&f, BASE + 301 * 2 * MIB + 4 * KIB64, false), 1);
  CU_ASSERT_EQUAL(f.c.block_services, 301);
  CU_ASSERT_EQUAL(uvm_get_counts(f.s)->faults, 302);
  teardown(&f);
}

/* Preferred on the host: mapped remotely, not moved; accessed-by: mapped
 * without a fault; read-mostly: a read copies, a write collapses. */
static void test_advice(void) {
  fixture f;
  setup(&f, 6, 64);
  diag d;
  uint64_t b0 = BASE, b1 = BASE + 2 * MIB, b2 = BASE + 4 * MIB;
  CU_ASSERT_EQUAL(uvm_host_access(f.s, BASE, 6 * MIB, true, &f.c, &d), 0);
  CU_ASSERT_EQUAL(uvm_advise(f.s, b0, 2 * MIB, UVM_PREFERRED_HOST, &f.c, &d), 0);
  CU_ASSERT_EQUAL(gpu(&f, b0, false), 1);
  pt_mapping m;
  CU_ASSERT_TRUE(pt_lookup(f.t.table, b0, &m));
  CU_ASSERT_TRUE(m.pa >= UVM_HOST_PA);
  CU_ASSERT_EQUAL(block_at(&f, b0).gpu, 0);
  CU_ASSERT_EQUAL(f.c.faults, 1);
  CU_ASSERT_EQUAL(f.c.remote_maps, 1);
  CU_ASSERT_EQUAL(f.c.to_gpu_bytes, 0);

  CU_ASSERT_EQUAL(uvm_advise(f.s, b1, 2 * MIB, UVM_ACCESSED_BY_GPU, &f.c, &d), 0);
  CU_ASSERT_EQUAL(f.c.remote_maps, 33); /* all 32 pages, mapped at once */
  CU_ASSERT_EQUAL(block_at(&f, b1).remote, 0xffffffffu);
  CU_ASSERT_EQUAL(f.c.faults, 1);

  CU_ASSERT_EQUAL(uvm_advise(f.s, b2, 2 * MIB, UVM_READ_MOSTLY, &f.c, &d), 0);
  CU_ASSERT_EQUAL(gpu(&f, b2, false), 1);
  uvm_block_state s = block_at(&f, b2);
  CU_ASSERT_EQUAL(s.gpu & 1, 1);
  CU_ASSERT_EQUAL(s.host & 1, 1); /* both copies */
  CU_ASSERT_TRUE(pt_lookup(f.t.table, b2, &m));
  CU_ASSERT_EQUAL(m.prot, PT_R);
  CU_ASSERT_EQUAL(gpu(&f, b2, true), 1); /* a GPU write collapses to the GPU copy */
  s = block_at(&f, b2);
  CU_ASSERT_EQUAL(s.host & 1, 0);
  CU_ASSERT_TRUE(pt_lookup(f.t.table, b2, &m));
  CU_ASSERT_EQUAL(m.prot, PT_R | PT_W);
  teardown(&f);
}

/* Device memory of two blocks: the third block's fault evicts the least
 * recently filled one back to the host. */
static void test_eviction(void) {
  fixture f;
  setup(&f, 6, 4);
  for (unsigned blk = 0; blk < 3; blk++)
    for (unsigned p = 0; p < 32; p++) CU_ASSERT_EQUAL(gpu(&f, BASE + blk * 2 * MIB + p * KIB64, true), 1);
  CU_ASSERT_EQUAL(block_at(&f, BASE).gpu, 0);
  CU_ASSERT_EQUAL(block_at(&f, BASE).host, 0xffffffffu);
  CU_ASSERT_EQUAL(mapped_shift(&f, BASE), 0);
  CU_ASSERT_TRUE(block_at(&f, BASE + 4 * MIB).big2m);
  CU_ASSERT_EQUAL(f.c.evicted_bytes, 2 * MIB);
  CU_ASSERT_EQUAL(f.c.to_host_bytes, 2 * MIB);
  teardown(&f);
}

static void test_errors(void) {
  fixture f;
  setup(&f, 2, 64);
  diag d;
  CU_ASSERT_EQUAL(uvm_prefetch(f.s, BASE + 4 * MIB, 4096, UVM_GPU, &f.c, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "0x10000400000 is not managed memory (no live kind=managed allocation holds it)");
  CU_ASSERT_EQUAL(uvm_advise(f.s, BASE, 3 * MIB, UVM_READ_MOSTLY, &f.c, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "0x10000000000+0x300000 runs past the end of its managed allocation "
                                "(0x10000000000+0x200000)");
  CU_ASSERT_EQUAL(uvm_range_add(f.s, BASE + MIB, MIB, &d), -1);
  CU_ASSERT_EQUAL(uvm_range_add(f.s, BASE, MIB, &d), -1); /* overlaps */
  CU_ASSERT_EQUAL(uvm_range_add(f.s, UINT64_MAX - 2 * MIB + 1, 4 * MIB, &d), -1);
  CU_ASSERT_EQUAL(gpu(&f, BASE + 2 * MIB, false), 0); /* not managed: the caller's fault */
  CU_ASSERT_EQUAL(uvm_range_remove(f.s, BASE, &d), 0);
  CU_ASSERT_EQUAL(uvm_prefetch(f.s, BASE, 4096, UVM_GPU, &f.c, &d), -1); /* freed */
  CU_ASSERT_EQUAL(uvm_range_remove(f.s, BASE, &d), -1);
  teardown(&f);
}

int main(void) {
  static const test_case cases[] = {
      {"prefetch tree", test_tree},
      {"gpu first touch maps 2 MiB", test_gpu_first_touch},
      {"every other page stays 64 KiB", test_half_stays_small},
      {"host-written then faulted", test_host_then_gpu},
      {"prefetch, then a host touch", test_prefetch_then_host},
      {"fault batches", test_batches},
      {"advice", test_advice},
      {"eviction", test_eviction},
      {"errors", test_errors},
      {NULL, NULL},
  };
  static const test_suite suites[] = {{"uvm", cases}, {NULL, NULL}};
  return harness_run(suites);
}
