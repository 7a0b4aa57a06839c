/* Tests for managed memory in the machine (tlbsim/machine.h): managed,
 * host and pinned allocations, GPU faults serviced through the machine's
 * MMU and page table, host touches, prefetches, advice, fault batches per
 * kernel, the counters per phase, what the TLBs see after each history,
 * and the errors for what a program could not have done. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/csv.h"
#include "tlbsim/machine.h"

#define MIB (UINT64_C(1) << 20)
#define KIB64 (UINT64_C(64) << 10)

/* A small GPU: the hopper format, 64 MiB of device memory, a 16-entry
 * first-level TLB of 64 KiB and 2 MiB pages; the fault path's costs round
 * (a migrated or populated byte a ns, a prefetched one half a ns); managed
 * VA where the h200 preset puts it. */
static const char ini[] =
    "[machine]\nformat = hopper\npage_size = 2M\nphys_memory = 64M\n"
    "[latency]\ndata_cycles = 1\nwalk_ref_cycles = 10\n"
    "[tlb.l1d]\nentries = 16\npage_size = 64K,2M\n"
    "[uvm]\npopulate_gbps = 1\nmigrate_gbps = 1\nprefetch_gbps = 2\nfault_us = 1\nmigrate_fault_us = 0\n"
    "batch_us = 0\nblock_us = 0\nhost_fault_us = 0\nto_host_gbps = 1\nva_base = 0x7e0000000000\n"
    "va_size = 0x10000000000\n";

/* The machine of ini, with more [uvm] keys after it. */
static machine *make_with(const char *more_uvm) {
  char text[sizeof ini + 256];
  snprintf(text, sizeof text, "%s%s", ini, more_uvm);
  cfg *c = cfg_create();
  diag d;
  CU_ASSERT_EQUAL_FATAL(cfg_load_text(c, "uvm_test.ini", text, &d), 0);
  machine_spec spec;
  if (machine_spec_read(c, &spec, &d)) fprintf(stderr, "%s\n", d.msg);
  CU_ASSERT_EQUAL_FATAL(cfg_check_unused(c, &d), 0);
  machine *m = machine_create(&spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  cfg_destroy(c);
  return m;
}

static machine *make(void) { return make_with(""); }

static int rec(machine *m, trace_record r, diag *d) {
  r.line = 42;
  return machine_apply(m, &r, "t.trace", d);
}

/* Allocation id of `size` bytes of memory kind: its VA. */
static uint64_t alloc(machine *m, uint64_t id, uint64_t size, trace_mem_kind kind) {
  trace_record r = {.kind = REC_ALLOC, .alloc_id = id, .size = size, .line = 7};
  diag d;
  if (machine_alloc_memory(m, &r, kind, "t.trace", &d)) fprintf(stderr, "%s\n", d.msg);
  machine_alloc a;
  CU_ASSERT_EQUAL_FATAL(machine_alloc_find(m, id, &a), 0);
  CU_ASSERT_EQUAL(a.mem, kind);
  return a.va;
}

/* A GPU read (or write) of one byte at va. */
static void gpu(machine *m, uint64_t va, bool write) {
  diag d;
  CU_ASSERT_EQUAL(rec(m, (trace_record){.kind = REC_ACCESS, .access = write ? TRACE_WRITE : TRACE_READ, .addr = va,
                                        .size = 1}, &d), 0);
}

/* The GPU reads every 64 KiB page of [va, va + size) once. */
static void gpu_pass(machine *m, uint64_t va, uint64_t size) {
  for (uint64_t off = 0; off < size; off += KIB64) gpu(m, va + off, false);
}

static void host(machine *m, uint64_t va, uint64_t size, bool write) {
  diag d;
  CU_ASSERT_EQUAL(machine_host_access(m, va, size, write, "t.trace", 9, &d), 0);
}

static void mark(machine *m, const char *label) {
  trace_record r = {.kind = REC_MARK};
  snprintf(r.label, sizeof r.label, "%s", label);
  diag d;
  CU_ASSERT_EQUAL(rec(m, r, &d), 0);
}

static unsigned mapped_shift(const machine *m, uint64_t va) {
  pt_mapping p;
  return pt_lookup(machine_get_pt(m), va, &p) ? p.page_shift : 0;
}

static const machine_uvm_stats *uvm(const machine *m) { return &machine_get_stats(m)->uvm; }

static uint64_t l1_misses(const machine *m) { return system_level_stats(machine_get_system(m), 0).misses; }

/* A GPU first touch populates the big page it faulted on, mapped as a
 * 64 KiB page; touching the whole block brings it all (the prefetch tree
 * takes some pages before they fault) and it becomes one 2 MiB page. */
static void test_first_touch(void) {
  machine *m = make();
  uint64_t va = alloc(m, 1, 4 * MIB, TRACE_MEM_MANAGED);
  CU_ASSERT_EQUAL(va % (2 * MIB), 0);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 0);
  gpu(m, va + 100, false);
  CU_ASSERT_EQUAL(uvm(m)->faults, 1);
  CU_ASSERT_EQUAL(uvm(m)->populated_bytes, KIB64);
  CU_ASSERT_EQUAL(uvm(m)->to_gpu_bytes, 0);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 16);
  CU_ASSERT_EQUAL(machine_get_stats(m)->faults, 0); /* serviced: the access went on */
  CU_ASSERT_EQUAL(machine_get_stats(m)->page_faults, 0);
  gpu(m, va + 200, true);
  CU_ASSERT_EQUAL(uvm(m)->faults, 1);
  gpu_pass(m, va, 2 * MIB);
  CU_ASSERT_TRUE(uvm(m)->faults > 1 && uvm(m)->faults < 32);
  CU_ASSERT_EQUAL(uvm(m)->populated_bytes, 2 * MIB);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 21);
  CU_ASSERT_EQUAL(mapped_shift(m, va + 2 * MIB), 0); /* the second block untouched */
  uvm_block_state b;
  CU_ASSERT_EQUAL(machine_uvm_block(m, va, &b), 0);
  CU_ASSERT_TRUE(b.big2m);
  /* every fault of the one kernel in one batch; the cost: 1 us a fault, 1 ns a byte */
  CU_ASSERT_EQUAL(uvm(m)->batches, 1);
  CU_ASSERT_EQUAL(uvm(m)->fault_ns, uvm(m)->faults * 1000 + 2 * MIB);
  machine_destroy(m);
}

/* Host-written memory migrates when the GPU faults on it; a host touch of
 * GPU-resident memory brings its big page back and splits the 2 MiB page. */
static void test_host_then_gpu(void) {
  machine *m = make();
  uint64_t va = alloc(m, 1, 2 * MIB, TRACE_MEM_MANAGED);
  host(m, va, 2 * MIB, true);
  CU_ASSERT_EQUAL(machine_get_stats(m)->host_accesses, 1);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 0);
  gpu_pass(m, va, 2 * MIB);
  CU_ASSERT_EQUAL(uvm(m)->populated_bytes, 0);
  CU_ASSERT_EQUAL(uvm(m)->to_gpu_bytes, 2 * MIB);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 21);
  host(m, va + 5 * KIB64 + 3, 8, false);
  CU_ASSERT_EQUAL(uvm(m)->host_faults, 1);
  CU_ASSERT_EQUAL(uvm(m)->to_host_bytes, KIB64);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 16);          /* the rest stays, in 64 KiB pages */
  CU_ASSERT_EQUAL(mapped_shift(m, va + 5 * KIB64), 0); /* the page the host took back */
  uint64_t faults = uvm(m)->faults;
  gpu(m, va + 5 * KIB64, false);
  CU_ASSERT_EQUAL(uvm(m)->faults, faults + 1);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 21); /* whole on the GPU again */
  machine_destroy(m);
}

/* A prefetch brings host-written memory at prefetch_gbps, mapped in 2 MiB
 * pages: the kernel after it faults not at all. */
static void test_prefetch(void) {
  machine *m = make();
  uint64_t va = alloc(m, 1, 4 * MIB, TRACE_MEM_MANAGED);
  host(m, va, 4 * MIB, true);
  diag d;
  CU_ASSERT_EQUAL(machine_prefetch(m, va, 4 * MIB, UVM_GPU, "t.trace", 3, &d), 0);
  CU_ASSERT_EQUAL(uvm(m)->prefetched_bytes, 4 * MIB);
  CU_ASSERT_EQUAL(uvm(m)->prefetch_ns, 2 * MIB); /* 2 bytes a ns */
  CU_ASSERT_EQUAL(machine_get_stats(m)->prefetches, 1);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 21);
  CU_ASSERT_EQUAL(mapped_shift(m, va + 2 * MIB), 21);
  gpu_pass(m, va, 4 * MIB);
  CU_ASSERT_EQUAL(uvm(m)->faults, 0);
  CU_ASSERT_EQUAL(uvm(m)->fault_ns, 0);
  /* and back to the host: unmapped on the GPU, its frames free again */
  uint64_t used = phys_used(machine_get_phys(m));
  CU_ASSERT_EQUAL(machine_prefetch(m, va, 4 * MIB, UVM_HOST, "t.trace", 4, &d), 0);
  CU_ASSERT_EQUAL(uvm(m)->to_host_bytes, 4 * MIB);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 0);
  CU_ASSERT_TRUE(phys_used(machine_get_phys(m)) <= used - 4 * MIB);
  machine_destroy(m);
}

/* What the TLB sees follows the history: the GPU first touching every
 * other 64 KiB page (half of every subtree: the prefetch tree brings
 * nothing) leaves 64 KiB pages, and a kernel over those 32 pages misses at
 * every access of a 16-entry TLB; after a prefetch the same kernel runs
 * on two 2 MiB pages and misses twice. */
static void test_tlb_follows_residency(void) {
  uint64_t misses[2];
  for (int prefetched = 0; prefetched < 2; prefetched++) {
    machine *m = make();
    uint64_t va = alloc(m, 1, 4 * MIB, TRACE_MEM_MANAGED);
    diag d;
    if (prefetched) CU_ASSERT_EQUAL(machine_prefetch(m, va, 4 * MIB, UVM_GPU, "t.trace", 3, &d), 0);
    for (uint64_t off = 0; off < 4 * MIB; off += 2 * KIB64) gpu(m, va + off, false);
    CU_ASSERT_EQUAL(uvm(m)->faults, prefetched ? 0 : 32);
    CU_ASSERT_EQUAL(mapped_shift(m, va), prefetched ? 21 : 16);
    CU_ASSERT_EQUAL(mapped_shift(m, va + KIB64), prefetched ? 21 : 0);
    mark(m, "warm");
    uint64_t before = l1_misses(m);
    for (int rep = 0; rep < 4; rep++)
      for (uint64_t off = 0; off < 4 * MIB; off += 2 * KIB64) gpu(m, va + off, false);
    misses[prefetched] = l1_misses(m) - before;
    machine_destroy(m);
  }
  CU_ASSERT_EQUAL(misses[0], 4 * 32);
  CU_ASSERT_EQUAL(misses[1], 0); /* the two 2 MiB entries stayed from the cold pass */
}

/* A block kept partly on the host (preferred there) keeps 64 KiB pages on
 * the GPU: the warm kernel misses on every page. */
static void test_tlb_partial_residency(void) {
  machine *m = make();
  uint64_t va = alloc(m, 1, 4 * MIB, TRACE_MEM_MANAGED);
  diag d;
  /* one big page of each block stays on the host: the blocks never become 2 MiB pages */
  for (uint64_t b = 0; b < 2; b++) {
    host(m, va + b * 2 * MIB, KIB64, true);
    CU_ASSERT_EQUAL(machine_advise(m, va + b * 2 * MIB, KIB64, UVM_PREFERRED_HOST, "t.trace", 5, &d), 0);
  }
  gpu_pass(m, va, 4 * MIB);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 16);
  CU_ASSERT_EQUAL(mapped_shift(m, va + KIB64), 16);
  CU_ASSERT_EQUAL(uvm(m)->remote_maps, 2);
  CU_ASSERT_EQUAL(uvm(m)->to_gpu_bytes, 0); /* preferred on the host: mapped there, not moved */
  pt_mapping p;
  CU_ASSERT_TRUE(pt_lookup(machine_get_pt(m), va, &p) && p.pa >= UVM_HOST_PA);
  uint64_t before = l1_misses(m);
  for (int rep = 0; rep < 4; rep++) gpu_pass(m, va, 4 * MIB);
  CU_ASSERT_EQUAL(l1_misses(m) - before, 4 * 64); /* 64 pages, 16 entries: every access misses */
  machine_destroy(m);
}

/* Read-mostly: a GPU read copies the page and the host keeps its copy; a
 * GPU write to the copy (mapped read-only) is a fault that makes it the
 * only one, after which the write goes through. */
static void test_read_mostly(void) {
  machine *m = make();
  uint64_t va = alloc(m, 1, 2 * MIB, TRACE_MEM_MANAGED);
  diag d;
  CU_ASSERT_EQUAL(machine_advise(m, va, 2 * MIB, UVM_READ_MOSTLY, "t.trace", 5, &d), 0);
  host(m, va, 2 * MIB, true);
  gpu(m, va, false);
  uvm_block_state b;
  CU_ASSERT_EQUAL(machine_uvm_block(m, va, &b), 0);
  CU_ASSERT_EQUAL(b.gpu & b.host & 1, 1); /* duplicated */
  uint64_t faults = uvm(m)->faults;
  gpu(m, va + 8, true);
  CU_ASSERT_EQUAL(uvm(m)->faults, faults + 1);
  CU_ASSERT_EQUAL(machine_get_stats(m)->faults, 0); /* the write went through after the fault */
  CU_ASSERT_EQUAL(machine_uvm_block(m, va, &b), 0);
  CU_ASSERT_EQUAL(b.host & 1, 0);
  machine_destroy(m);
}

/* A record that is not a GPU access ends the kernel and its fault batch;
 * each phase reports its own faults, bytes and time. */
static void test_batches_and_phases(void) {
  machine *m = make();
  uint64_t va = alloc(m, 1, 4 * MIB, TRACE_MEM_MANAGED);
  mark(m, "cold");
  gpu(m, va, false);
  gpu(m, va + 2 * MIB, false);
  mark(m, "again");
  gpu(m, va + 1 * MIB, false);
  gpu(m, va, false);
  CU_ASSERT_EQUAL(uvm(m)->faults, 3);
  CU_ASSERT_EQUAL(uvm(m)->batches, 2);
  CU_ASSERT_EQUAL(machine_phase_count(m), 3);
  machine_phase p[3];
  for (size_t i = 0; i < 3; i++) machine_phase_get(m, i, &p[i]);
  CU_ASSERT_STRING_EQUAL(p[1].label, "cold");
  CU_ASSERT_EQUAL(p[0].uvm.faults, 0);
  CU_ASSERT_EQUAL(p[1].uvm.faults, 2);
  CU_ASSERT_EQUAL(p[2].uvm.faults - p[1].uvm.faults, 1);
  CU_ASSERT_EQUAL(p[2].uvm.batches - p[1].uvm.batches, 1);
  CU_ASSERT_EQUAL(p[1].uvm.populated_bytes, 2 * KIB64);
  CU_ASSERT_EQUAL(p[1].uvm.fault_ns, 2 * 1000 + 2 * KIB64);
  machine_destroy(m);
}

/* Pinned memory is mapped for the GPU where it is (no faults); pageable
 * host memory is not mapped at all (a GPU access faults); freeing managed
 * memory unmaps it and gives its device frames back. */
static void test_host_pinned_and_free(void) {
  machine *m = make();
  uint64_t used = phys_used(machine_get_phys(m));
  uint64_t pin = alloc(m, 1, 256 << 10, TRACE_MEM_PINNED), hostmem = alloc(m, 2, 4096, TRACE_MEM_HOST);
  gpu(m, pin + 100, false);
  CU_ASSERT_EQUAL(machine_get_stats(m)->faults, 0);
  CU_ASSERT_EQUAL(uvm(m)->faults, 0);
  CU_ASSERT_EQUAL(mapped_shift(m, pin + 3 * KIB64), 12); /* the format's smallest pages */
  host(m, pin, 64, true);
  host(m, hostmem, 64, true);
  gpu(m, hostmem, false);
  CU_ASSERT_EQUAL(machine_get_stats(m)->faults, 1);
  uint64_t va = alloc(m, 3, 2 * MIB, TRACE_MEM_MANAGED);
  gpu_pass(m, va, 2 * MIB);
  CU_ASSERT_TRUE(phys_used(machine_get_phys(m)) > used);
  diag d;
  for (uint64_t id = 1; id <= 3; id++) CU_ASSERT_EQUAL(rec(m, (trace_record){.kind = REC_FREE, .alloc_id = id}, &d), 0);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 0);
  CU_ASSERT_EQUAL(mapped_shift(m, pin), 0);
  CU_ASSERT_EQUAL(phys_used(machine_get_phys(m)), used);
  machine_destroy(m);
}

/* What a program could not have done: each an error naming its line. */
static void test_errors(void) {
  machine *m = make();
  diag d;
  uint64_t va = alloc(m, 1, 2 * MIB, TRACE_MEM_MANAGED);
  uint64_t hostmem = alloc(m, 2, 4096, TRACE_MEM_HOST);
  trace_record dev = {.kind = REC_ALLOC, .alloc_id = 3, .size = 2 * MIB};
  CU_ASSERT_EQUAL(rec(m, dev, &d), 0);
  machine_alloc a;
  CU_ASSERT_EQUAL(machine_alloc_find(m, 3, &a), 0);
  CU_ASSERT_EQUAL(rec(m, (trace_record){.kind = REC_FREE, .alloc_id = 1}, &d), 0);

  CU_ASSERT_EQUAL(machine_prefetch(m, va, 2 * MIB, UVM_GPU, "t.trace", 11, &d), -1); /* freed */
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:11: prefetch of 0x7e0000000000+0x200000: 0x7e0000000000 is not managed "
                                "memory (no live kind=managed allocation holds it)");
  CU_ASSERT_EQUAL(machine_prefetch(m, a.va, 4096, UVM_GPU, "t.trace", 12, &d), -1); /* device memory */
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:12: prefetch of "));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "is not managed memory"));
  CU_ASSERT_EQUAL(machine_advise(m, hostmem, 4096, UVM_READ_MOSTLY, "t.trace", 13, &d), -1); /* a host pointer */
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:13: advise of "));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "is not managed memory"));
  CU_ASSERT_EQUAL(machine_prefetch(m, hostmem, UINT64_MAX, UVM_GPU, "t.trace", 14, &d), -1); /* near 2^64 */
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:14: prefetch of "));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "wraps past the top of memory"));
  CU_ASSERT_EQUAL(machine_advise(m, hostmem, 0, UVM_READ_MOSTLY, "t.trace", 15, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:15: advise of 0x7e0000200000: the size is 0");
  CU_ASSERT_EQUAL(machine_host_access(m, a.va, 8, false, "t.trace", 16, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:16: host access to "));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "device memory"));
  CU_ASSERT_EQUAL(machine_host_access(m, UINT64_MAX - 3, 8, false, "t.trace", 17, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:17: host access of "));

  /* pinned memory placed over device memory: refused, the device mapping left as it was */
  unsigned dev_shift = mapped_shift(m, a.va + 0x3000);
  trace_record over = {.kind = REC_ALLOC, .alloc_id = 8, .size = 64 << 10, .line = 19,
                       .cap = {.attrs = TRACE_HAS_VA, .va = a.va - 0x2000}};
  CU_ASSERT_EQUAL(machine_alloc_memory(m, &over, TRACE_MEM_PINNED, "t.trace", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:19: "));
  CU_ASSERT_NOT_EQUAL(dev_shift, 0);
  CU_ASSERT_EQUAL(mapped_shift(m, a.va + 0x3000), dev_shift);
  CU_ASSERT_EQUAL(mapped_shift(m, a.va - 0x2000), 0); /* the pages it had mapped before the clash, gone again */

  trace_record huge = {.kind = REC_ALLOC, .alloc_id = 9, .size = UINT64_MAX - 4095, .line = 18};
  CU_ASSERT_EQUAL(machine_alloc_memory(m, &huge, TRACE_MEM_MANAGED, "t.trace", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:18: managed alloc of 18446744073709547520 bytes is larger than the [uvm] "
                                "VA range (va_size 0x10000000000)");
  huge.alloc_id = 10, huge.size = 0;
  CU_ASSERT_EQUAL(machine_alloc_memory(m, &huge, TRACE_MEM_PINNED, "t.trace", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:18: pinned alloc of 0 bytes");
  machine_destroy(m);
}

/* A format without 64 KiB pages has no managed memory: the alloc says so. */
static void test_format_without_big_pages(void) {
  cfg *c = cfg_create();
  diag d;
  CU_ASSERT_EQUAL_FATAL(cfg_load_text(c, "x.ini", "[machine]\nformat = x86-64-4\nphys_memory = 64M\n"
                                        "[tlb.l1d]\nentries = 16\n", &d), 0);
  machine_spec spec;
  CU_ASSERT_EQUAL_FATAL(machine_spec_read(c, &spec, &d), 0);
  machine *m = machine_create(&spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  trace_record r = {.kind = REC_ALLOC, .alloc_id = 1, .size = 4096, .line = 3};
  CU_ASSERT_EQUAL(machine_alloc_memory(m, &r, TRACE_MEM_MANAGED, "t.trace", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:3: format x86-64-4 has no 65536-byte or 2097152-byte page for managed "
                                "memory ([uvm] big_page, va_block)");
  machine_destroy(m);
  cfg_destroy(c);
}

/* More managed memory than device memory (not measured; the driver's
 * rule): a block that finds no free chunk evicts the one filled least
 * recently, which the GPU then faults in again. */
static void test_oversubscription(void) {
  machine *m = make();
  uint64_t va = alloc(m, 1, 96 * MIB, TRACE_MEM_MANAGED);
  gpu_pass(m, va, 96 * MIB);
  CU_ASSERT_TRUE(uvm(m)->evicted_bytes >= 32 * MIB);
  CU_ASSERT_EQUAL(uvm(m)->to_host_bytes, uvm(m)->evicted_bytes);
  CU_ASSERT_EQUAL(mapped_shift(m, va), 0); /* the first block went back to the host */
  CU_ASSERT_EQUAL(mapped_shift(m, va + 94 * MIB), 21);
  uint64_t faults = uvm(m)->faults;
  gpu(m, va, false);
  CU_ASSERT_EQUAL(uvm(m)->faults, faults + 1);
  CU_ASSERT_TRUE(uvm(m)->to_gpu_bytes >= KIB64); /* it migrates back */
  CU_ASSERT_EQUAL(machine_get_stats(m)->faults, 0);
  machine_destroy(m);
}

/* Replays native trace text through a fresh machine: 0, or -1 (d). */
static int replay(machine *m, const char *text, diag *d) {
  trace_reader *r = trace_open_memory("cap.trace", text, strlen(text), TRACE_NATIVE, d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  int rc = machine_replay(m, r, NULL, NULL, d);
  trace_close(r);
  return rc;
}

/* A captured program's records drive the same model: alloc kind=managed
 * at its va=, the host's writes (side=host), a kernel launch (a mark with
 * grid=: an event that ends the batch, no phase), a prefetch, advice. */
static void test_records(void) {
  machine *m = make();
  diag d;
  int rc = replay(m, "#tlbsim-trace 1\n"
                     "alloc 1 4M kind=managed va=0x7f3000000000\n"
                     "alloc 2 64K kind=pinned va=0x7f4000000000\n"
                     "w @1+0 2M side=host\n"
                     "mark cold\n"
                     "mark k grid=132 block=512\n"
                     "r 0x7f3000000000 8\n"
                     "r 0x7f3000200000 8\n"
                     "mark k grid=132 block=512\n"
                     "r 0x7f3000010000 8\n"
                     "r @2+0x100 8\n"
                     "mark warm\n"
                     "prefetch 0x7f3000000000 4M to=gpu\n"
                     "advise 0x7f3000000000 2M advice=read_mostly\n"
                     "r 0x7f3000020000 8\n"
                     "r @1+0x30000 8 side=host\n", &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  const machine_stats *st = machine_get_stats(m);
  CU_ASSERT_EQUAL(st->host_accesses, 2);
  CU_ASSERT_EQUAL(st->prefetches, 1);
  CU_ASSERT_EQUAL(st->advices, 1);
  CU_ASSERT_EQUAL(st->faults, 0);
  CU_ASSERT_EQUAL(machine_phase_count(m), 3); /* start, cold, warm: launches are no phases */
  machine_phase p[3];
  for (size_t i = 0; i < 3; i++) machine_phase_get(m, i, &p[i]);
  /* cold: a migration (host-written block 0), a first touch (block 1), then another migration */
  CU_ASSERT_EQUAL(p[1].uvm.faults, 3);
  CU_ASSERT_EQUAL(p[1].uvm.batches, 2);
  CU_ASSERT_EQUAL(p[1].uvm.to_gpu_bytes, 2 * KIB64);
  CU_ASSERT_EQUAL(p[1].uvm.populated_bytes, KIB64);
  /* warm: the prefetch moves the rest (2 MiB - 128 KiB written by the host, 2 MiB - 64 KiB untouched) */
  CU_ASSERT_EQUAL(p[2].uvm.faults - p[1].uvm.faults, 0);
  CU_ASSERT_EQUAL(p[2].uvm.prefetched_bytes, 2 * MIB - 2 * KIB64);
  CU_ASSERT_EQUAL(p[2].uvm.populated_bytes - p[1].uvm.populated_bytes, 2 * MIB - KIB64);
  /* read-mostly: the host's read copies the page back and the GPU keeps its copy */
  CU_ASSERT_EQUAL(p[2].uvm.to_host_bytes, KIB64);
  uvm_block_state b;
  CU_ASSERT_EQUAL(machine_uvm_block(m, 0x7f3000000000, &b), 0);
  CU_ASSERT_EQUAL(b.gpu >> 3 & b.host >> 3 & 1, 1);
  machine_destroy(m);
}

/* The runtime's packing of small managed allocations ([uvm] pack_grain, as
 * the h200 preset has it) against what an H200 did: every call of
 * gpu/results/h200/managed_pack.csv and managed_pack_empty.csv made in
 * order, each allocation where the H200 put it relative to the first one
 * (the blocks of 2 MiB and more placed first fit by the [uvm] heap, as the
 * runtime placed them within its first 32 MiB of VA), and in the same
 * place within its 2 MiB block everywhere (the "kept" scenario's 4 MiB
 * allocation came from VA the runtime reserved elsewhere). A block freed
 * with its last allocation is made anew (nothing resident: the H200 read
 * 0); one that stays keeps its pages (the H200 read 42). */
static void replay_pack_csv(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/gpu/results/h200/%s", TLBSIM_SOURCE_DIR, name);
  static const char *const names[] = {"scenario", "op", "size", "va", "offset_in_2m", "value"};
  static const bool required[] = {true, true, true, true, true, true};
  int col[6];
  diag d;
  csv_table *t = csv_table_open(path, names, required, col, 6, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  machine *m = make_with("pack_grain = 512\n");
  char **f;
  unsigned long line;
  uint64_t first_model = 0, first_gpu = 0, id = 0, ids[128] = {0}, gpu_va[128] = {0};
  int rc;
  while ((rc = csv_table_next(t, &f, &line, &d)) == 1) {
    const char *op = csv_table_get(t, col[1]);
    uint64_t va = strtoull(csv_table_get(t, col[3]), NULL, 16), size = strtoull(csv_table_get(t, col[2]), NULL, 10);
    if (!strcmp(op, "alloc")) {
      CU_ASSERT_FATAL(id < 128);
      uint64_t got = alloc(m, ++id, size, TRACE_MEM_MANAGED);
      if (id == 1) first_model = got, first_gpu = va;
      bool same_region = strcmp(csv_table_get(t, col[0]), "kept") || size < 2 * MIB;
      if (same_region) CU_ASSERT_EQUAL(got - first_model, va - first_gpu);
      CU_ASSERT_EQUAL(got % (2 * MIB), strtoull(csv_table_get(t, col[4]), NULL, 10));
      if (got % (2 * MIB) != strtoull(csv_table_get(t, col[4]), NULL, 10) ||
          (same_region && got - first_model != va - first_gpu))
        fprintf(stderr, "\n  %s:%lu: placed at +%#llx (offset %#llx), measured +%#llx\n", name, line,
                (unsigned long long)(got - first_model), (unsigned long long)(got % (2 * MIB)),
                (unsigned long long)(va - first_gpu));
      ids[id - 1] = id, gpu_va[id - 1] = va;
    } else if (!strcmp(op, "free")) {
      size_t k = 0;
      while (k < id && !(gpu_va[k] == va && ids[k])) k++;
      CU_ASSERT_FATAL(k < id);
      machine_alloc a;
      CU_ASSERT_EQUAL_FATAL(machine_alloc_find(m, ids[k], &a), 0);
      bool wrote = !strcmp(csv_table_get(t, col[0]), "kept") || !strcmp(csv_table_get(t, col[0]), "empty");
      if (wrote) gpu(m, a.va, true); /* the H200 wrote 42 into each allocation these scenarios free */
      trace_record r = {.kind = REC_FREE, .alloc_id = ids[k], .line = line};
      CU_ASSERT_EQUAL(machine_apply(m, &r, name, &d), 0);
      ids[k] = 0;
    } else if (!strcmp(op, "read")) {
      machine_alloc a;
      CU_ASSERT_EQUAL_FATAL(machine_alloc_find(m, id, &a), 0);
      uvm_block_state b;
      CU_ASSERT_EQUAL_FATAL(machine_uvm_block(m, a.va, &b), 0);
      bool resident = b.gpu >> (a.va % (2 * MIB) / KIB64) & 1;
      CU_ASSERT_EQUAL(resident, strtoull(csv_table_get(t, col[5]), NULL, 10) == 42);
    }
  }
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT(id >= 3);
  csv_table_close(t);
  machine_destroy(m);
}

static void test_packing(void) {
  replay_pack_csv("managed_pack.csv");
  replay_pack_csv("managed_pack_empty.csv");
}

/* A capture's packed allocations at their va=: one managed range per
 * block, the block gone with its last allocation; what cannot be. */
static void test_packed_records(void) {
  machine *m = make_with("pack_grain = 512\n");
  diag d;
  int rc = replay(m, "#tlbsim-trace 1\n"
                     "alloc 1 4096 kind=managed va=0x7f3000000000\n"
                     "alloc 2 100000 kind=managed va=0x7f3000001000\n"
                     "r 0x7f3000001000 8\n"
                     "free 1\n", &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  uvm_block_state b;
  CU_ASSERT_EQUAL(machine_uvm_block(m, 0x7f3000000000, &b), 0); /* the block lives on with allocation 2 */
  CU_ASSERT_EQUAL(b.pages, 32);
  CU_ASSERT_EQUAL(uvm(m)->faults, 1);
  CU_ASSERT_EQUAL(replay(m, "#tlbsim-trace 1\nfree 2\n", &d), 0);
  CU_ASSERT_EQUAL(machine_uvm_block(m, 0x7f3000000000, &b), -1); /* gone with its last */
  static const struct {
    const char *text, *msg;
  } bad[] = { /* no header: the first record is line 1 */
      {"alloc 1 4096 kind=managed va=0x7f30001ff800\n",
       "cap.trace:1: managed alloc at va=0x7f30001ff800+0x1000 crosses the end of its 2097152-byte block (the runtime "
       "packs allocations only within one)"},
      {"alloc 1 4096 kind=managed va=0x7f3000000000\nalloc 2 512 kind=managed va=0x7f3000000800\n",
       "cap.trace:2: managed alloc at va=0x7f3000000800+0x200 overlaps a live one"},
      {"alloc 1 4M kind=managed va=0x7f3000000000\nalloc 2 512 kind=managed va=0x7f3000200000\n",
       "cap.trace:2: managed range 0x7f3000200000+0x200000 overlaps a live one"},
      {"alloc 1 4M kind=managed va=0x7f3000001000\n",
       "cap.trace:1: managed alloc at va=0x7f3000001000: not a multiple of the 2097152-byte VA block residency is "
       "kept by ([uvm] va_block; allocations smaller than one are packed only with [uvm] pack_grain)"},
  };
  machine_destroy(m);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    m = make_with("pack_grain = 512\n");
    CU_ASSERT_EQUAL(replay(m, bad[i].text, &d), -1);
    CU_ASSERT_STRING_EQUAL(d.msg, bad[i].msg);
    machine_destroy(m);
  }
}

/* Bad records name their line. */
static void test_record_errors(void) {
  static const struct {
    const char *text, *msg;
  } cases[] = {
      {"alloc 1 2M kind=managed\nfree 1\nprefetch 0x7e0000000000 2M to=gpu\n",
       "cap.trace:4: prefetch of 0x7e0000000000+0x200000: 0x7e0000000000 is not managed memory (no live "
       "kind=managed allocation holds it)"},
      {"alloc 1 4K kind=host va=0x7f0000000000\nadvise 0x7f0000000000 4K advice=preferred_gpu\n",
       "cap.trace:3: advise of 0x7f0000000000+0x1000: 0x7f0000000000 is not managed memory (no live kind=managed "
       "allocation holds it)"},
      {"alloc 1 2M\nprefetch 0x100000000 2M to=gpu\n",
       "cap.trace:3: prefetch of 0x100000000+0x200000: 0x100000000 is not managed memory (no kind=managed "
       "allocation was made)"},
      {"alloc 1 2M kind=managed\nprefetch 0x7e0000000000 4M to=host\n",
       "cap.trace:3: prefetch of 0x7e0000000000+0x400000: 0x7e0000000000+0x400000 runs past the end of its "
       "managed allocation (0x7e0000000000+0x200000)"},
      {"alloc 1 0xfffffffffff00000 kind=managed\n",
       "cap.trace:2: managed alloc of 18446744073708503040 bytes is larger than the [uvm] VA range (va_size "
       "0x10000000000)"},
      {"alloc 1 4K kind=managed va=0x7f0000001000\n",
       "cap.trace:2: managed alloc at va=0x7f0000001000: not a multiple of the 2097152-byte VA block residency is "
       "kept by ([uvm] va_block; allocations smaller than one are packed only with [uvm] pack_grain)"},
      {"alloc 1 2M kind=managed va=0xfffffffffff00000\n",
       "cap.trace:2: managed alloc at va=0xfffffffffff00000: not a multiple of the 2097152-byte VA block residency "
       "is kept by ([uvm] va_block; allocations smaller than one are packed only with [uvm] pack_grain)"},
      {"alloc 1 2M kind=pinned va=0xffffffffffe00000\n",
       "cap.trace:2: pinned alloc at va=0xffffffffffe00000+0x200000 lies beyond the 57-bit addresses of format "
       "hopper"},
      {"alloc 1 2M\nr @1+0 8 side=host\n",
       "cap.trace:3: host access to 0x80000000000000: it is device memory, which the host cannot touch"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    machine *m = make();
    diag d;
    char text[512];
    snprintf(text, sizeof text, "#tlbsim-trace 1\n%s", cases[i].text); /* the header is line 1 */
    CU_ASSERT_EQUAL(replay(m, text, &d), -1);
    CU_ASSERT_STRING_EQUAL(d.msg, cases[i].msg);
    machine_destroy(m);
  }
}

int main(void) {
  static const test_case cases[] = {{"first touch", test_first_touch},
                                    {"host-written, then the GPU", test_host_then_gpu},
                                    {"prefetch", test_prefetch},
                                    {"the TLB follows residency", test_tlb_follows_residency},
                                    {"partial residency keeps 64 KiB pages", test_tlb_partial_residency},
                                    {"read-mostly", test_read_mostly},
                                    {"batches and phases", test_batches_and_phases},
                                    {"host, pinned and free", test_host_pinned_and_free},
                                    {"errors", test_errors},
                                    {"a format without big pages", test_format_without_big_pages},
                                    {"oversubscription", test_oversubscription},
                                    {"captured records", test_records},
                                    {"bad records", test_record_errors},
                                    {"small allocations packed as on an H200", test_packing},
                                    {"packed allocations from a capture", test_packed_records},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"machine_uvm", cases}, {NULL, NULL}};
  return harness_run(suites);
}
