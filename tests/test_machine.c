/* Tests for the machine: how trace records drive the page table and MMU
 * (demand paging, straddles, allocations, mappings, shootdowns, protection,
 * address spaces, phases) and the errors a replay reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/machine.h"

/* A small x86-64 machine: 8-entry FA l1d before a 32-entry 4-way stlb. */
static const char base_ini[] =
    "[machine]\nformat = x86-64-4\npage_size = 4K\nphys_memory = 64M\n"
    "[latency]\ndata_cycles = 1\nwalk_ref_cycles = 10\n"
    "[tlb.l1d]\nentries = 8\nnext = stlb\n"
    "[tlb.stlb]\nentries = 32\nways = 4\npage_size = 4K,2M\nlatency = 3\nserves = both\n";

/* A machine the way the CLI builds one: the spec read once, then built. */
static machine *from_cfg(cfg *c, diag *d) {
  machine_spec spec;
  return machine_spec_read(c, &spec, d) ? NULL : machine_create(&spec, d);
}

static machine *make(const char *extra, cfg **out_cfg) {
  FILE *f = fopen("machine_test.ini", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(base_ini, f);
  fputs(extra, f);
  fclose(f);
  cfg *c = cfg_create();
  diag d;
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "machine_test.ini", &d), 0);
  machine *m = from_cfg(c, &d);
  if (!m) fprintf(stderr, "%s\n", d.msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(cfg_check_unused(c, &d), 0);
  *out_cfg = c;
  return m;
}

/* Agent a's MMU counters. */
static const mmu *agent_mmu(const machine *m, unsigned a) {
  const mmu *u = system_agent_mmu(machine_get_system(m), a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  return u;
}

static uint64_t agent_accesses(const machine *m, unsigned a) {
  machine_stats st;
  machine_agent_stats(m, a, &st);
  return st.accesses;
}

static int apply(machine *m, trace_record r, diag *d) {
  r.line = 42;
  return machine_apply(m, &r, "t.trace", d);
}

static trace_record acc(trace_access k, uint64_t addr, uint64_t size) {
  return (trace_record){.kind = REC_ACCESS, .access = k, .addr = addr, .size = size};
}

static void test_demand_paging_and_straddles(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x1000, 8), &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x1008, 8), &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_WRITE, 0x1ffc, 8), &d), 0); /* straddles 0x1000 and 0x2000 */
  const machine_stats *s = machine_get_stats(m);
  CU_ASSERT_EQUAL(s->accesses, 3);
  CU_ASSERT_EQUAL(s->straddles, 1);
  CU_ASSERT_EQUAL(s->page_faults, 2); /* pages 0x1000 and 0x2000 */
  CU_ASSERT_EQUAL(s->faults, 0);
  CU_ASSERT_EQUAL(mmu_get_stats(agent_mmu(m, 0))->translations, 4);
  mmu_level_stats l1 = mmu_level_get_stats(agent_mmu(m, 0), 0);
  CU_ASSERT_EQUAL(l1.accesses, 4);
  CU_ASSERT_EQUAL(l1.misses, 2);
  CU_ASSERT_EQUAL(s->access_misses[0], 2); /* the first access and the straddling one */
  CU_ASSERT_EQUAL(pt_mapped_pages(machine_get_pt(m)), 2);
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_demand_off_faults(void) {
  cfg *c;
  machine *m = make("[vas]\npolicy = first-fit\n", &c);
  diag d;
  /* Once the trace has laid memory out, unmapped accesses fault (auto). */
  trace_record map = {.kind = REC_MAP, .addr = 0x200000, .size = 0x200000, .page_size = 0x200000, .prot = PT_R | PT_W};
  CU_ASSERT_EQUAL(apply(m, map, &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x200040, 4), &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x400040, 4), &d), 0);
  const machine_stats *s = machine_get_stats(m);
  CU_ASSERT_EQUAL(s->faults, 1);
  CU_ASSERT_EQUAL(s->page_faults, 0);
  CU_ASSERT_EQUAL(pt_usage(machine_get_pt(m), 3).tables, 0); /* a 2 MiB leaf needs no PT */
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_allocations_and_shootdown(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_ALLOC, .alloc_id = 1, .size = 16384}, &d), 0);
  trace_record r = acc(TRACE_READ, 0, 8);
  r.relative = true;
  r.alloc_id = 1;
  for (uint64_t off = 0; off < 16384; off += 4096) {
    r.addr = off;
    CU_ASSERT_EQUAL(apply(m, r, &d), 0);
  }
  for (uint64_t off = 0; off < 16384; off += 4096) {
    r.addr = off;
    CU_ASSERT_EQUAL(apply(m, r, &d), 0);
  }
  mmu_level_stats l1 = mmu_level_get_stats(agent_mmu(m, 0), 0);
  CU_ASSERT_EQUAL(l1.misses, 4);
  CU_ASSERT_EQUAL(l1.hits, 4);
  const mmu_stats *ms = mmu_get_stats(agent_mmu(m, 0));
  uint64_t shoot_before = ms->shootdowns;
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_FREE, .alloc_id = 1}, &d), 0);
  CU_ASSERT_TRUE(ms->shootdowns >= shoot_before + 4); /* every page torn down is shot down */
  CU_ASSERT_EQUAL(pt_mapped_pages(machine_get_pt(m)), 0);
  /* The freed id is unknown now: an error at the record's line. */
  r.addr = 0;
  CU_ASSERT_EQUAL(apply(m, r, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:42: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "allocation 1 is not live"));
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_ALLOC, .alloc_id = 2, .size = 100}, &d), 0);
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_ALLOC, .alloc_id = 2, .size = 100}, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "allocation 2 is already live"));
  machine_destroy(m);
  cfg_destroy(c);
}

/* Thousands of short-lived ids beside long-lived ones: freed slots must not
 * fill the id table (a lookup of a new id once never ended). */
static void test_allocation_churn(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  for (uint64_t id = 0; id < 600; id++)
    CU_ASSERT_EQUAL_FATAL(apply(m, (trace_record){.kind = REC_ALLOC, .alloc_id = id, .size = 64}, &d), 0);
  for (uint64_t id = 1000; id < 6000; id++) {
    CU_ASSERT_EQUAL_FATAL(apply(m, (trace_record){.kind = REC_ALLOC, .alloc_id = id, .size = 64}, &d), 0);
    CU_ASSERT_EQUAL_FATAL(apply(m, (trace_record){.kind = REC_FREE, .alloc_id = id}, &d), 0);
  }
  trace_record r = acc(TRACE_READ, 8, 8);
  r.relative = true;
  for (uint64_t id = 0; id < 600; id++) {
    r.alloc_id = id;
    CU_ASSERT_EQUAL(apply(m, r, &d), 0); /* every long-lived id is still found */
  }
  r.alloc_id = 1500;
  CU_ASSERT_EQUAL(apply(m, r, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "allocation 1500 is not live"));
  CU_ASSERT_EQUAL(machine_get_stats(m)->faults, 0);
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_unmap_and_protect(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  trace_record map = {.kind = REC_MAP, .addr = 0x10000, .size = 0x2000, .page_size = 4096, .prot = PT_R | PT_W};
  CU_ASSERT_EQUAL(apply(m, map, &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_WRITE, 0x10000, 8), &d), 0);
  trace_record prot = {.kind = REC_PROTECT, .addr = 0x10000, .size = 0x1000, .prot = PT_R};
  CU_ASSERT_EQUAL(apply(m, prot, &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_WRITE, 0x10000, 8), &d), 0); /* the stale writable entry is gone */
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x10000, 8), &d), 0);
  CU_ASSERT_EQUAL(mmu_get_stats(agent_mmu(m, 0))->faults_prot, 1);
  trace_record unmap = {.kind = REC_UNMAP, .addr = 0x11000, .size = 0x1000};
  CU_ASSERT_EQUAL(apply(m, unmap, &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x11000, 8), &d), 0);
  CU_ASSERT_EQUAL(machine_get_stats(m)->faults, 2);
  CU_ASSERT_EQUAL(apply(m, unmap, &d), -1); /* nothing there any more */
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "unmap: nothing is mapped at 0x11000"));
  trace_record part = {.kind = REC_UNMAP, .addr = 0x10000, .size = 0x800};
  CU_ASSERT_EQUAL(apply(m, part, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "does not cover whole 4096-byte pages"));
  trace_record over = {.kind = REC_MAP, .addr = 0x10000, .size = 0x1000, .page_size = 4096, .prot = PT_R};
  CU_ASSERT_EQUAL(apply(m, over, &d), -1); /* overlaps a mapping */
  trace_record odd = {.kind = REC_MAP, .addr = 0x10000, .size = 0x1000, .page_size = 65536, .prot = PT_R};
  CU_ASSERT_EQUAL(apply(m, odd, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "not a page size of format x86-64-4"));
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_address_spaces(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0);
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_CTX, .asid = 7}, &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0); /* same VA, another space: a miss */
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_CTX, .asid = 0}, &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0); /* tagged: still cached */
  mmu_level_stats l1 = mmu_level_get_stats(agent_mmu(m, 0), 0);
  CU_ASSERT_EQUAL(l1.misses, 2);
  CU_ASSERT_EQUAL(l1.hits, 1);
  CU_ASSERT_EQUAL(machine_get_stats(m)->page_faults, 2); /* each space maps its own page */
  CU_ASSERT_EQUAL(machine_pt_usage(m, 0).tables, 2);
  machine_destroy(m);
  cfg_destroy(c);
}

/* A trace that opens with `ctx 7` has one address space, not the unused
 * ASID 0 beside it: one root table (issue #27), as a trace with no ctx. */
static void test_first_ctx_takes_the_first_space(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  uint64_t root = machine_pt_bytes(m); /* the one root table */
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_MARK, .label = "start"}, &d), 0);
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_CTX, .asid = 7}, &d), 0);
  CU_ASSERT_EQUAL(machine_pt_bytes(m), root);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0);
  uint64_t one = machine_pt_bytes(m);
  CU_ASSERT_EQUAL(machine_pt_usage(m, 0).tables, 1);
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_CTX, .asid = 0}, &d), 0); /* ASID 0 is another space now */
  CU_ASSERT_EQUAL(machine_pt_usage(m, 0).tables, 2);
  CU_ASSERT_EQUAL(machine_pt_bytes(m), one + root);
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_untagged_switch_flushes(void) {
  cfg *c;
  machine *m = make("[mmu]\nasid_tagged = false\n", &c);
  diag d;
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0);
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_CTX, .asid = 7}, &d), 0);
  CU_ASSERT_EQUAL(apply(m, (trace_record){.kind = REC_CTX, .asid = 0}, &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0);
  CU_ASSERT_EQUAL(mmu_level_get_stats(agent_mmu(m, 0), 0).misses, 2);
  machine_destroy(m);
  cfg_destroy(c);
}

static trace_record thread(uint32_t t) { return (trace_record){.kind = REC_THREAD, .thread = t}; }

/* Thread 0 reads 0x5000, thread 1 reads 0x5000 and 0x6000, thread 0 reads
 * 0x5000 again, thread 2 switches in and reads nothing: each thread runs
 * on a CPU of its own (agent), whose TLBs are its own unless shared_by
 * shares them; the threads share an address space or each has its own. */
static void check_threads(const char *extra, uint64_t t1_misses, uint64_t t1_walks, uint64_t page_faults) {
  cfg *c;
  machine *m = make(extra, &c);
  diag d;
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0);
  CU_ASSERT_EQUAL(machine_agents(m), 0); /* no thread named yet */
  CU_ASSERT_EQUAL(apply(m, thread(1), &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x6000, 1), &d), 0);
  CU_ASSERT_EQUAL(apply(m, thread(0), &d), 0);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x5000, 1), &d), 0);
  CU_ASSERT_EQUAL(apply(m, thread(2), &d), 0);
  CU_ASSERT_EQUAL(machine_agents(m), 3); /* threads 0 and 1 made accesses */
  CU_ASSERT_EQUAL(agent_accesses(m, 0), 2);
  CU_ASSERT_EQUAL(mmu_level_get_stats(agent_mmu(m, 0), 0).misses, 1); /* its second read hits its own l1d */
  CU_ASSERT_EQUAL(mmu_level_get_stats(agent_mmu(m, 0), 1).misses, 1);
  CU_ASSERT_EQUAL(mmu_get_stats(agent_mmu(m, 0))->walks, 2); /* demand paging: the walk that faults, then the one that maps */
  CU_ASSERT_EQUAL(agent_accesses(m, 1), 2);
  CU_ASSERT_EQUAL(mmu_level_get_stats(agent_mmu(m, 1), 0).misses, t1_misses);
  CU_ASSERT_EQUAL(mmu_level_get_stats(agent_mmu(m, 1), 1).misses, t1_misses);
  CU_ASSERT_EQUAL(mmu_get_stats(agent_mmu(m, 1))->walks, t1_walks);
  CU_ASSERT_EQUAL(agent_accesses(m, 2), 0);
  mmu_stats all;
  system_stats(machine_get_system(m), &all);
  CU_ASSERT_EQUAL(all.walks, 2 + t1_walks);
  CU_ASSERT_EQUAL(machine_get_stats(m)->page_faults, page_faults);
  CU_ASSERT_EQUAL(apply(m, thread(TRACE_THREAD_MAX), &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:42: thread 64: thread ids go up to 63");
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_threads(void) {
  /* Each CPU its own TLBs: thread 1 misses 0x5000 (mapped: one walk) and 0x6000 (fault, map: two). */
  check_threads("", 2, 3, 2);
  check_threads("[machine]\naddress_spaces = per-thread\n", 2, 4, 3); /* thread 1 maps its own 0x5000 */
  /* Every level shared by all CPUs: thread 0's 0x5000 is cached for thread 1. */
  check_threads("[tlb.l1d]\nshared_by = all\n[tlb.stlb]\nshared_by = all\n", 1, 2, 2);
  FILE *f = fopen("machine_bad.ini", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("[machine]\naddress_spaces = private\n[tlb.l1d]\nentries = 4\n", f);
  fclose(f);
  cfg *c = cfg_create();
  diag d;
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "machine_bad.ini", &d), 0);
  CU_ASSERT_PTR_NULL(from_cfg(c, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "'private' is not shared or per-thread"));
  cfg_destroy(c);
}

static void test_fetch_without_inst_tlb_ignored(void) {
  FILE *f = fopen("machine_noinst.ini", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n", f);
  fclose(f);
  cfg *c = cfg_create();
  diag d;
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "machine_noinst.ini", &d), 0);
  machine *m = from_cfg(c, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_EXEC, 0x400000, 4), &d), 0);
  CU_ASSERT_EQUAL(machine_get_stats(m)->accesses, 0);
  CU_ASSERT_EQUAL(mmu_get_stats(agent_mmu(m, 0))->translations, 0);
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_phases(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  trace_record mark = {.kind = REC_MARK};
  strcpy(mark.label, "cold");
  CU_ASSERT_EQUAL(apply(m, mark, &d), 0);
  for (uint64_t p = 0; p < 4; p++) CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x10000 + p * 4096, 1), &d), 0);
  strcpy(mark.label, "warm");
  CU_ASSERT_EQUAL(apply(m, mark, &d), 0);
  for (uint64_t p = 0; p < 4; p++) CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x10000 + p * 4096, 1), &d), 0);
  CU_ASSERT_EQUAL_FATAL(machine_phase_count(m), 2);
  machine_phase ph[3];
  for (size_t i = 0; i < 2; i++) machine_phase_get(m, i, &ph[i]);
  CU_ASSERT_STRING_EQUAL(ph[0].label, "cold");
  CU_ASSERT_EQUAL(ph[0].accesses, 4);
  CU_ASSERT_EQUAL(ph[0].misses[0], 4);
  CU_ASSERT_STRING_EQUAL(ph[1].label, "warm");
  CU_ASSERT_EQUAL(ph[1].accesses, 8);  /* cumulative */
  CU_ASSERT_EQUAL(ph[1].misses[0], 4); /* no new misses */
  /* Reading the phases closed nothing: the open one goes on. */
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x90000, 1), &d), 0);
  strcpy(mark.label, "hot");
  CU_ASSERT_EQUAL(apply(m, mark, &d), 0);
  CU_ASSERT_EQUAL_FATAL(machine_phase_count(m), 3);
  for (size_t i = 0; i < 3; i++) machine_phase_get(m, i, &ph[i]);
  CU_ASSERT_STRING_EQUAL(ph[1].label, "warm");
  CU_ASSERT_EQUAL(ph[1].accesses, 9);
  CU_ASSERT_EQUAL(ph[1].misses[0], 5);
  CU_ASSERT_STRING_EQUAL(ph[2].label, "hot");
  CU_ASSERT_EQUAL(ph[2].accesses, 9);
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_config_errors(void) {
  static const struct {
    const char *ini, *expect;
  } cases[] = {
      {"[machine]\nformat = sparc\n", "unknown page-table format 'sparc'"},
      {"[machine]\nformat = x86-64-4\npage_size = 64K\n[tlb.l1d]\nentries = 4\n", "not a page size of format x86-64-4"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 6\nways = 4\n", "bad.ini:5: tlb.l1d.ways"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\npolicy = mru\n", "unknown policy 'mru'"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\nnext = l9\n", "no TLB level named 'l9'"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\nnext = l2\n[tlb.l2]\nentries = 8\nnext = l1d\n",
       "bad.ini:8: tlb.l2.next: 'l1d' closes a cycle of next links"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n[pwc.PQ]\nentries = 4\n", "no level named 'PQ'"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n[vas]\npolicy = magic\n", "bad.ini:6:"},
      {"[machine]\nformat = x86-64-4\n", "no TLB level configured"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nways = 4\n", "missing key 'entries'"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n[ptcache]\nentries = 4\nline_bytes = 12\n",
       "bad.ini:7: ptcache.line_bytes: not a power of two"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n[mmu]\nfill_bytes = 24\n", "bad.ini:6: mmu.fill_bytes"},
      /* Values past their field's range are errors, not truncated: the walk
       * cache was silently off, the latency silently 1. */
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n[pwc.PD]\nentries = 4294967296\n",
       "bad.ini:6: pwc.PD.entries: '4294967296' is out of range (0..16777216)"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\nlatency = 4294967297\n",
       "bad.ini:5: tlb.l1d.latency: '4294967297' is out of range (0..4294967295)"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n[latency]\nwalk_cycles = 99999999999\n",
       "bad.ini:6: latency.walk_cycles"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\n[vas]\ncuda_small_max = 1Q\n",
       "bad.ini:6: vas.cuda_small_max: '1Q' is not a size"},
      {"[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 4\nways = 3\n", "bad.ini:5: tlb.l1d.ways"},
      /* Errors about a section as a whole name where it is (they had no
       * location at all). */
      {"[machine]\nformat = x86-64-4\n[tlb.]\nentries = 4\n", "bad.ini:3: [tlb.]: a level name is 1 to 31 characters"},
      {"[tlb.a]\nentries=1\nnext=b\n[tlb.b]\nentries=1\nnext=c\n[tlb.c]\nentries=1\nnext=d\n[tlb.d]\nentries=1\n"
       "next=e\n[tlb.e]\nentries=1\nnext=f\n[tlb.f]\nentries=1\nnext=g\n[tlb.g]\nentries=1\nnext=h\n[tlb.h]\n"
       "entries=1\nnext=i\n[tlb.i]\nentries=1\n",
       "bad.ini:25: [tlb.i]: more than 8 TLB levels"},
      {"[tlb.l1d]\nentries = 4\n[tlb.l1d:3K]\nentries = 4\n", "bad.ini:3: [tlb.l1d:3K]: '3K' after ':' is not a page size"},
      {"[tlb.l1d]\nentries = 4\n[tlb.l2:2M]\nentries = 4\n", "bad.ini:3: [tlb.l2:2M]: no level [tlb.l2] before it"},
      {"[tlb.l1d]\nentries = 4\n[pwc.PT]\nentries = 4\n", "bad.ini:3: [pwc.PT]: the last level holds only leaves"},
      {"[tlb.l1d]\nentries = 4\n[tlb.l2]\nentries = 4\n", "bad.ini:1: [tlb.l1d]: TLB hierarchy: levels"},
      /* The walker's caches are checked where they are configured (a bad
       * one failed later, with no location). */
      {"[tlb.l1d]\nentries = 4\n[ptcache]\nentries = 12\nways = 5\n", "bad.ini:5: ptcache.ways: ways (5) does not divide"},
      {"[tlb.l1d]\nentries = 4\n[pwc.PD]\nways = 5\nentries = 12\n", "bad.ini:5: pwc.PD.entries: page-walk cache"},
      /* A total on TLB storage: 8 levels of 16M entries allocated gigabytes
       * before failing. */
      {"[tlb.l1d]\nentries = 16777216\nnext = l2\n[tlb.l2]\nentries = 1\n",
       "bad.ini:5: tlb.l2.entries: brings the TLB arrays and caches to 16777217 entries in all, more than the "
       "16777216 a configuration may hold"},
      {"[tlb.l1d]\nentries = 1048576\nsector = 16\n[ptcache]\nentries = 4\n",
       "bad.ini:2: tlb.l1d.entries: brings the TLB arrays and caches to 16777220 entries"},
      {"[machine]\nphys_memory = 512T\n[tlb.l1d]\nentries = 4\n",
       "bad.ini:2: machine.phys_memory: '512T' is out of range (4KiB..256TiB)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    FILE *f = fopen("bad.ini", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(cases[i].ini, f);
    fclose(f);
    cfg *c = cfg_create();
    diag d = {{0}};
    CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "bad.ini", &d), 0);
    machine *m = from_cfg(c, &d);
    CU_ASSERT_PTR_NULL(m);
    if (!strstr(d.msg, cases[i].expect)) fprintf(stderr, "case %zu: got '%s'\n", i, d.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, cases[i].expect));
    machine_destroy(m);
    cfg_destroy(c);
  }
}

/* The allocator is configured through the one parameter table in a
 * machine too ([vas] cuda_small_max used to be an unknown key there), and
 * an alloc record's stream reaches the policy (the caching allocator used
 * to reuse another stream's memory under `run` but not under `alloc`). */
static void test_allocator_config_and_streams(void) {
  cfg *c;
  machine *m = make("[vas]\npolicy = caching\nmax_split_size = none\n", &c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  diag d;
  trace_record a = {.kind = REC_ALLOC, .alloc_id = 1, .size = 4096};
  CU_ASSERT_EQUAL(apply(m, a, &d), 0);
  trace_record fr = {.kind = REC_FREE, .alloc_id = 1};
  CU_ASSERT_EQUAL(apply(m, fr, &d), 0);
  a.alloc_id = 2;
  a.stream = 1;
  CU_ASSERT_EQUAL(apply(m, a, &d), 0); /* another stream: a segment of its own */
  CU_ASSERT_EQUAL(vas_get_stats(machine_get_vas(m))->driver_allocs, 2);
  a.alloc_id = 3;
  a.stream = 0;
  CU_ASSERT_EQUAL(apply(m, a, &d), 0); /* stream 0 reuses its cached block */
  CU_ASSERT_EQUAL(vas_get_stats(machine_get_vas(m))->driver_allocs, 2);
  machine_destroy(m);
  cfg_destroy(c);

  m = make("[vas]\npolicy = cuda\ncuda_small_max = 1M\n", &c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(vas_get_config(machine_get_vas(m))->cuda_small_max, 1u << 20);
  machine_destroy(m);
  cfg_destroy(c);
}

/* Bounded work per record: an access or mapping of billions of pages from
 * one short line is an error naming the line, not hours of translation;
 * arithmetic on addresses does not wrap. */
static void test_record_limits(void) {
  cfg *c;
  machine *m = make("", &c);
  diag d;
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0, UINT64_C(100000000000000)), &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:42: access of 0+0x5af3107a4000 touches 24414062500 pages, more than the "
                                "16777216 one record may");
  CU_ASSERT_EQUAL(machine_get_stats(m)->accesses, 0); /* refused before anything is counted */
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, 0x7ffffffff000, 0x2000), &d), -1); /* the top of the lower half */
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:42: access 0x7ffffffff000+0x2000 runs past the 48-bit address space of "
                                "format x86-64-4");
  CU_ASSERT_EQUAL(apply(m, acc(TRACE_READ, UINT64_MAX, 2), &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "wraps past the top of memory"));
  trace_record map = {.kind = REC_MAP, .addr = 0, .size = UINT64_C(1) << 46, .page_size = 4096, .prot = PT_R};
  CU_ASSERT_EQUAL(apply(m, map, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:42: map of 0+0x400000000000 is 17179869184 pages, more than the 16777216 "
                                "one record may");
  map.size = 0x2000;
  CU_ASSERT_EQUAL(apply(m, map, &d), 0);
  trace_record unmap = {.kind = REC_UNMAP, .addr = 0, .size = UINT64_C(1) << 46};
  CU_ASSERT_EQUAL(apply(m, unmap, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "unmap of 0+0x400000000000 touches 17179869184 pages"));
  trace_record protect = {.kind = REC_PROTECT, .addr = 0, .size = UINT64_C(1) << 46, .prot = PT_R};
  CU_ASSERT_EQUAL(apply(m, protect, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "protect of 0+0x400000000000 touches"));
  /* An offset into an allocation that runs past 2^64. */
  trace_record alloc = {.kind = REC_ALLOC, .alloc_id = 1, .size = 4096};
  CU_ASSERT_EQUAL(apply(m, alloc, &d), 0);
  trace_record rel = {.kind = REC_ACCESS, .relative = true, .alloc_id = 1, .addr = UINT64_MAX - 8, .size = 1};
  CU_ASSERT_EQUAL(apply(m, rel, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "offset 0xfffffffffffffff7 into allocation 1 runs past the top of memory"));
  machine_destroy(m);
  cfg_destroy(c);
}

/* An allocation that would map more pages than a record may is an error, not
 * an OOM; one larger than memory is an OOM, counted, whatever its size (a
 * size near 2^64 wrapped to a small one in the round-up). */
static void test_alloc_limits(void) {
  cfg *c;
  machine *m = make("[vas]\nva_size = 128T\n", &c);
  diag d;
  trace_record big = {.kind = REC_ALLOC, .alloc_id = 1, .size = UINT64_MAX - 100};
  CU_ASSERT_EQUAL(apply(m, big, &d), 0);
  CU_ASSERT_EQUAL(machine_get_stats(m)->oom, 1);
  machine_destroy(m);
  cfg_destroy(c);
  FILE *f = fopen("limits.ini", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "%s[vas]\npolicy = first-fit\n", base_ini);
  fclose(f);
  c = cfg_create();
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "limits.ini", &d), 0);
  machine_spec spec;
  CU_ASSERT_EQUAL_FATAL(machine_spec_read(c, &spec, &d), 0);
  spec.max_record_pages = 1024;
  m = machine_create(&spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  trace_record alloc = {.kind = REC_ALLOC, .alloc_id = 2, .size = 8u << 20, .line = 7};
  CU_ASSERT_EQUAL(machine_apply(m, &alloc, "t.trace", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:7: alloc of 8388608 bytes maps 2048 pages, more than the 1024 one record may");
  machine_destroy(m);
  cfg_destroy(c);
}

/* Physical memory's bitmaps follow the frames used, not the capacity: the
 * largest machine is built and used without gigabytes of bitmaps. */
static void test_large_phys(void) {
  cfg *c = cfg_create();
  diag d;
  FILE *f = fopen("large.ini", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("[machine]\nphys_memory = 256T\n[tlb.l1d]\nentries = 64\n", f);
  fclose(f);
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "large.ini", &d), 0);
  machine *m = from_cfg(c, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(phys_capacity(machine_get_phys(m)), UINT64_C(1) << 48);
  for (uint64_t va = 0; va < (64u << 20); va += 4096) CU_ASSERT_EQUAL_FATAL(apply(m, acc(TRACE_READ, va, 8), &d), 0);
  CU_ASSERT_EQUAL(machine_get_stats(m)->page_faults, 16384);
  CU_ASSERT_EQUAL(phys_used(machine_get_phys(m)), 64u << 20);
  machine_destroy(m);
  cfg_destroy(c);
}

/* A replay by blocks (the CLI's path) and one record at a time agree on
 * every counter, on each bundled sample. */
static void test_blocks_equal_records(void) {
  static const char *const samples[] = {"demo.trace", "stride.lackey", "stride.din", "teaching.trace"};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/traces/samples/%s", TLBSIM_SOURCE_DIR, samples[i]);
    cfg *c1, *c2;
    machine *by_block = make("", &c1), *by_record = make("", &c2);
    diag d;
    trace_reader *r = trace_open(path, TRACE_AUTO, &d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    trace_block *b = malloc(sizeof *b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    while (trace_read_block(r, b, &d) == 1) CU_ASSERT_EQUAL(machine_run_block(by_block, b, path, &d), 0);
    trace_close(r);
    free(b);
    r = trace_open(path, TRACE_AUTO, &d);
    trace_record rec;
    while (trace_next(r, &rec, &d) == 1) CU_ASSERT_EQUAL(machine_apply(by_record, &rec, path, &d), 0);
    trace_close(r);
    CU_ASSERT_EQUAL(memcmp(machine_get_stats(by_block), machine_get_stats(by_record), sizeof(machine_stats)), 0);
    CU_ASSERT_EQUAL(memcmp(mmu_get_stats(agent_mmu(by_block, 0)), mmu_get_stats(agent_mmu(by_record, 0)),
                           sizeof(mmu_stats)), 0);
    CU_ASSERT_TRUE(machine_get_stats(by_block)->accesses > 0);
    machine_destroy(by_block);
    machine_destroy(by_record);
    cfg_destroy(c1);
    cfg_destroy(c2);
  }
}

int main(void) {
  static const test_case cases[] = {{"demand paging and straddles", test_demand_paging_and_straddles},
                                    {"laid-out traces fault", test_demand_off_faults},
                                    {"allocations and shootdowns", test_allocations_and_shootdown},
                                    {"allocation churn", test_allocation_churn},
                                    {"unmap and protect", test_unmap_and_protect},
                                    {"address spaces", test_address_spaces},
                                    {"the first ctx takes the first space", test_first_ctx_takes_the_first_space},
                                    {"untagged switch flushes", test_untagged_switch_flushes},
                                    {"threads", test_threads},
                                    {"fetches without an instruction TLB", test_fetch_without_inst_tlb_ignored},
                                    {"phases", test_phases},
                                    {"configuration errors", test_config_errors},
                                    {"allocator configuration and streams", test_allocator_config_and_streams},
                                    {"blocks equal records", test_blocks_equal_records},
                                    {"record limits", test_record_limits},
                                    {"allocation limits", test_alloc_limits},
                                    {"large physical memory", test_large_phys},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"machine", cases}, {NULL, NULL}};
  return harness_run(suites);
}
