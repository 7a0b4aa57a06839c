/* Tests for mmu.c on the x86-64-4 format (levels PML4 0, PDPT 1, PD 2, PT 3).
 * Expected walk refs and cycles are worked by hand in the comments. */
#include "harness.h"
#include "tlbsim/mmu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define K4 0x1000ull
#define M2 0x200000ull

static tlb_geometry arr(uint32_t entries, uint32_t ways, unsigned shift) {
  return (tlb_geometry){.entries = entries, .ways = ways, .policy = TLB_LRU,
                        .index = TLB_INDEX_MODULO, .sector_pages = 1, .npage_shifts = 1,
                        .page_shift = {(uint8_t)shift}, .seed = 1};
}

static mmu_level_config lvl(const char *name, tlb_geometry g, int next, uint8_t serves,
                            uint32_t latency) {
  mmu_level_config c = {.narrays = 1, .array = {g}, .next = next, .serves = serves,
                        .latency = latency, .sector_needs_contiguous_pa = true};
  snprintf(c.name, sizeof c.name, "%s", name);
  return c;
}

/* l1d (0) and l1i (1), 1 entry each, in front of a 16-entry 4-way stlb (2). */
static mmu_config split_config(void) {
  mmu_config c = {.nlevels = 3, .walker = {.walk_cycles = 10, .seed = 7}, .asid_tagged = true};
  c.level[0] = lvl("l1d", arr(1, 1, 12), 2, SERVES_DATA, 1);
  c.level[1] = lvl("l1i", arr(1, 1, 12), 2, SERVES_INST, 2);
  c.level[2] = lvl("stlb", arr(16, 4, 12), MMU_NEXT_WALK, SERVES_BOTH, 5);
  return c;
}

static pt *new_table(void) {
  pt *t = pt_create(pt_format_find("x86-64-4"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  return t;
}

static void map(pt *t, uint64_t va, uint64_t pa, unsigned shift, unsigned prot) {
  diag d;
  int rc = pt_map(t, va, pa, shift, prot, &d);
  if (rc) fprintf(stderr, "\npt_map: %s\n", d.msg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* The memory below every MMU of these tests: data 100 cycles, a table
 * read 50 (made once, for the program's life). */
static memsys *test_mem(void) {
  static memsys *mem;
  diag d;
  if (!mem) mem = memsys_create(&(memsys_config){.data_cycles = 100, .table_cycles = 50}, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
  return mem;
}

static mmu *new_mmu(const mmu_config *c, const pt *t) {
  diag d;
  mmu *m = mmu_create(c, t, test_mem(), NULL, &d);
  if (!m) fprintf(stderr, "\nmmu_create: %s\n", d.msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  return m;
}

static mmu_outcome tr(mmu *m, uint64_t va, acc_kind k) {
  mmu_outcome o;
  memset(&o, 0xa5, sizeof o);
  mmu_translate(m, va, k, &o);
  return o;
}

static void test_hierarchy_flow(void) {
  pt *t = new_table();
  map(t, 0x1000, 0x50000, 12, PT_RWX);
  map(t, 0x2000, 0x60000, 12, PT_RWX);
  mmu_config c = split_config();
  mmu *m = new_mmu(&c, t);
  /* Cold: l1d miss, stlb miss, 4 refs: 100 + 1 + 5 + 10 + 4 * 50 = 316. */
  mmu_outcome o = tr(m, 0x1234, ACC_READ);
  CU_ASSERT_EQUAL(o.status, MMU_OK);
  CU_ASSERT_EQUAL(o.pa, 0x50234);
  CU_ASSERT_EQUAL(o.hit_level, -1);
  CU_ASSERT_EQUAL(o.walk_refs, 4);
  CU_ASSERT_EQUAL(o.cycles, 316);
  /* Filled both levels: an l1d hit costs 100 + 1. */
  o = tr(m, 0x1ff8, ACC_WRITE);
  CU_ASSERT_EQUAL(o.hit_level, 0);
  CU_ASSERT_EQUAL(o.walk_refs, 0);
  CU_ASSERT_EQUAL(o.cycles, 101);
  CU_ASSERT_EQUAL(o.pa, 0x50ff8);
  /* B evicts A from the 1-entry l1d; A then hits the stlb (106) and is
   * filled back into l1d (101). */
  o = tr(m, 0x2000, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, -1);
  o = tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, 2);
  CU_ASSERT_EQUAL(o.cycles, 106);
  CU_ASSERT_EQUAL(o.pa, 0x50000);
  o = tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, 0);
  /* Instruction fetch of A: l1i miss, stlb hit (100 + 2 + 5); then l1i. */
  o = tr(m, 0x1010, ACC_EXEC);
  CU_ASSERT_EQUAL(o.hit_level, 2);
  CU_ASSERT_EQUAL(o.cycles, 107);
  o = tr(m, 0x1010, ACC_EXEC);
  CU_ASSERT_EQUAL(o.hit_level, 1);
  CU_ASSERT_EQUAL(o.cycles, 102);
  /* Data still hits l1d: the first levels are separate. */
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, 0);

  const mmu_stats *s = mmu_get_stats(m);
  CU_ASSERT_EQUAL(s->translations, 8);
  CU_ASSERT_EQUAL(s->walks, 2);
  CU_ASSERT_EQUAL(s->walk_refs, 8);
  CU_ASSERT_EQUAL(s->cycles, 316 + 101 + 316 + 106 + 101 + 107 + 102 + 101);
  mmu_level_stats l1d = mmu_level_get_stats(m, 0), l1i = mmu_level_get_stats(m, 1),
                  stlb = mmu_level_get_stats(m, 2);
  CU_ASSERT(l1d.accesses == 6 && l1d.hits == 3 && l1d.misses == 3);
  CU_ASSERT(l1i.accesses == 2 && l1i.hits == 1 && l1i.misses == 1);
  CU_ASSERT(stlb.accesses == 4 && stlb.hits == 2 && stlb.misses == 2);
  CU_ASSERT_EQUAL(mmu_level_find(m, "stlb"), 2);
  CU_ASSERT_EQUAL(mmu_level_find(m, "l2"), -1);
  CU_ASSERT(mmu_serves(m, ACC_EXEC) && mmu_serves(m, ACC_WRITE));
  CU_ASSERT_STRING_EQUAL(mmu_get_config(m)->level[1].name, "l1i");
  mmu_reset_stats(m);
  CU_ASSERT_EQUAL(mmu_get_stats(m)->translations, 0);
  CU_ASSERT_EQUAL(mmu_level_get_stats(m, 0).accesses, 0);
  mmu_destroy(m);
  pt_destroy(t);
}

static void test_walk_caches(void) {
  pt *t = new_table();
  map(t, 0x1000, 0x10000, 12, (PT_R | PT_W));
  map(t, 0x2000, 0x20000, 12, (PT_R | PT_W));
  map(t, M2 + 0x1000, 0x30000, 12, (PT_R | PT_W)); /* PD index 1: another PT */
  map(t, 2 * M2, 0x400000, 21, (PT_R | PT_W));     /* a 2 MiB leaf in PD index 2 */
  mmu_config c = split_config();
  c.walker.pwc[2] = (walker_pwc_config){4, 4, TLB_LRU}; /* PD entries */
  c.walker.pwc[1] = (walker_pwc_config){2, 2, TLB_LRU}; /* PDPT entries */
  mmu *m = new_mmu(&c, t);
  const mmu_stats *s = mmu_get_stats(m);
  /* Cold walk: PD cache miss, PDPT cache miss, 4 refs. */
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).walk_refs, 4);
  CU_ASSERT(s->pwc_lookups[2] == 1 && s->pwc_hits[2] == 0);
  CU_ASSERT(s->pwc_lookups[1] == 1 && s->pwc_hits[1] == 0);
  /* Neighbour in the same PT: PD cache hit, only the PTE is read:
   * 100 + 1 + 5 + 10 + 1 * 50 = 166. */
  mmu_outcome o = tr(m, 0x2000, ACC_READ);
  CU_ASSERT_EQUAL(o.walk_refs, 1);
  CU_ASSERT_EQUAL(o.cycles, 166);
  CU_ASSERT_EQUAL(o.pa, 0x20000);
  CU_ASSERT(s->pwc_lookups[2] == 2 && s->pwc_hits[2] == 1);
  CU_ASSERT_EQUAL(s->pwc_lookups[1], 1); /* the deeper hit stopped the probe */
  /* Next 2 MiB region: PD cache misses (key 1), PDPT hits: PD + PT = 2. */
  CU_ASSERT_EQUAL(tr(m, M2 + 0x1000, ACC_READ).walk_refs, 2);
  CU_ASSERT(s->pwc_lookups[1] == 2 && s->pwc_hits[1] == 1);
  /* The 2 MiB page: PDPT hit, then the PD leaf alone: 1 ref. A leaf fills
   * no walk cache, so a second 2 MiB walk (after l1d and stlb lose it: they
   * hold only 4 KiB) is again 1 ref through the PDPT cache. */
  o = tr(m, 2 * M2 + 0x1234, ACC_READ);
  CU_ASSERT_EQUAL(o.walk_refs, 1);
  CU_ASSERT_EQUAL(o.pa, 0x401234);
  CU_ASSERT_EQUAL(tr(m, 2 * M2, ACC_READ).walk_refs, 1);
  CU_ASSERT_EQUAL(s->walks, 5);
  CU_ASSERT_EQUAL(s->walk_refs, 4 + 1 + 2 + 1 + 1);
  CU_ASSERT_EQUAL(s->pwc_hits[2], 1);
  mmu_destroy(m);

  /* Without walk caches every walk reads all its levels. */
  c = split_config();
  m = new_mmu(&c, t);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).walk_refs, 4);
  CU_ASSERT_EQUAL(tr(m, 0x2000, ACC_READ).walk_refs, 4);
  CU_ASSERT_EQUAL(tr(m, 2 * M2, ACC_READ).walk_refs, 3);
  CU_ASSERT_EQUAL(mmu_get_stats(m)->pwc_lookups[2], 0);
  mmu_destroy(m);
  pt_destroy(t);
}

static void test_split_by_page_size(void) {
  /* l1d: a 2-entry 4 KiB array and a 2-entry 2 MiB array; the stlb holds
   * only 4 KiB pages, so 2 MiB pages bypass it. */
  pt *t = new_table();
  map(t, 0x1000, 0x10000, 12, (PT_R | PT_W));
  for (uint64_t i = 1; i <= 3; i++) map(t, i * M2, i * 0x10000000, 21, (PT_R | PT_W));
  mmu_config c = split_config();
  c.level[0].narrays = 2;
  c.level[0].array[0] = arr(2, 2, 12);
  c.level[0].array[1] = arr(2, 2, 21);
  mmu *m = new_mmu(&c, t);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, -1);
  CU_ASSERT_EQUAL(tr(m, M2, ACC_READ).hit_level, -1);
  mmu_outcome o = tr(m, M2 + 0x1ffff, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, 0);
  CU_ASSERT_EQUAL(o.pa, 0x1001ffff);
  /* Two more 2 MiB pages evict the first from the 2 MiB array only. */
  tr(m, 2 * M2, ACC_READ);
  tr(m, 3 * M2, ACC_READ);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, 0);
  o = tr(m, M2, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, -1); /* not in the stlb either */
  CU_ASSERT_EQUAL(o.walk_refs, 3);
  CU_ASSERT_EQUAL(mmu_level_get_stats(m, 2).hits, 0);
  /* Each array's share: the 4 KiB array filled once and hit once; the 2 MiB
   * array took four fills, the last two evicting, and one hit. */
  mmu_level_stats l1 = mmu_level_get_stats(m, 0);
  CU_ASSERT_EQUAL(l1.array[0].hits, 1);
  CU_ASSERT_EQUAL(l1.array[0].fills, 1);
  CU_ASSERT_EQUAL(l1.array[0].evictions, 0);
  CU_ASSERT_EQUAL(l1.array[1].hits, 1);
  CU_ASSERT_EQUAL(l1.array[1].fills, 4);
  CU_ASSERT_EQUAL(l1.array[1].evictions, 2);
  CU_ASSERT_EQUAL(l1.hits, l1.array[0].hits + l1.array[1].hits);
  CU_ASSERT_EQUAL(l1.evictions, l1.array[0].evictions + l1.array[1].evictions);
  char name[MMU_ARRAY_NAME_MAX];
  CU_ASSERT_STRING_EQUAL(mmu_array_name(&c.level[0], 1, name, sizeof name), "l1d:2M");
  CU_ASSERT_STRING_EQUAL(mmu_array_name(&c.level[2], 0, name, sizeof name), "stlb");
  mmu_destroy(m);
  pt_destroy(t);
}

/* A 4-entry l1d with 4-page sectors over the pages at 0x10000..0x13000. */
static mmu *sector_mmu(const pt *t, bool contiguous) {
  mmu_config c = split_config();
  c.level[0].array[0] = arr(4, 4, 12);
  c.level[0].array[0].sector_pages = 4;
  c.level[0].sector_needs_contiguous_pa = contiguous;
  return new_mmu(&c, t);
}

static unsigned walks_over_sector(mmu *m, const uint64_t *pa) {
  uint64_t before = mmu_get_stats(m)->walks;
  for (uint64_t i = 0; i < 4; i++) {
    mmu_outcome o = tr(m, 0x10000 + i * K4 + 8, ACC_READ);
    CU_ASSERT_EQUAL(o.status, MMU_OK);
    CU_ASSERT_EQUAL(o.pa, pa[i] + 8);
  }
  return (unsigned)(mmu_get_stats(m)->walks - before);
}

static void test_sector_fill(void) {
  pt *flat = new_table(), *shuffled = new_table(), *pairs = new_table(), *mixed = new_table();
  const uint64_t pa_flat[4] = {0x100000, 0x101000, 0x102000, 0x103000};
  const uint64_t pa_shuf[4] = {0x202000, 0x200000, 0x203000, 0x201000};
  const uint64_t pa_pair[4] = {0x300000, 0x301000, 0x303000, 0x302000};
  for (uint64_t i = 0; i < 4; i++) {
    map(flat, 0x10000 + i * K4, pa_flat[i], 12, (PT_R | PT_W));
    map(shuffled, 0x10000 + i * K4, pa_shuf[i], 12, (PT_R | PT_W));
    map(pairs, 0x10000 + i * K4, pa_pair[i], 12, (PT_R | PT_W));
    map(mixed, 0x10000 + i * K4, pa_flat[i], 12, i == 3 ? PT_R : (PT_R | PT_W));
  }
  /* Contiguous pas: the first walk validates all four pages. */
  mmu *m = sector_mmu(flat, true);
  CU_ASSERT_EQUAL(walks_over_sector(m, pa_flat), 1);
  mmu_destroy(m);
  /* Shuffled pas: no neighbour is contiguous, every page walks ... */
  m = sector_mmu(shuffled, true);
  CU_ASSERT_EQUAL(walks_over_sector(m, pa_shuf), 4);
  CU_ASSERT_EQUAL(mmu_level_get_stats(m, 0).misses, 4);
  mmu_destroy(m);
  /* ... unless the level does not need contiguity: one walk, each page at
   * its own pa. */
  m = sector_mmu(shuffled, false);
  CU_ASSERT_EQUAL(walks_over_sector(m, pa_shuf), 1);
  mmu_destroy(m);
  /* Pages 0-1 contiguous, 2 and 3 swapped: page 0 validates 0 and 1;
   * page 2 walks and merges alone (its pa - va differs by +4 KiB); page 3
   * (-4 KiB) too: 3 walks. */
  m = sector_mmu(pairs, true);
  CU_ASSERT_EQUAL(walks_over_sector(m, pa_pair), 3);
  CU_ASSERT_EQUAL(tr(m, 0x10000, ACC_READ).hit_level, 0); /* one merged entry kept all */
  mmu_destroy(m);
  /* Page 3 is read-only: a different prot keeps it out of page 0's fill. */
  m = sector_mmu(mixed, true);
  CU_ASSERT_EQUAL(walks_over_sector(m, pa_flat), 2);
  mmu_destroy(m);
  /* A walk that fetches 16 bytes of PTEs (2 entries of 8 B) validates only
   * the pair holding the page: pages 0-1, then 2-3: 2 walks. */
  mmu_config c = split_config();
  c.level[0].array[0] = arr(4, 4, 12);
  c.level[0].array[0].sector_pages = 4;
  c.fill_bytes = 16;
  m = new_mmu(&c, flat);
  CU_ASSERT_EQUAL(walks_over_sector(m, pa_flat), 2);
  mmu_destroy(m);
  pt_destroy(flat);
  pt_destroy(shuffled);
  pt_destroy(pairs);
  pt_destroy(mixed);
}

static void test_shootdown(void) {
  pt *t = new_table();
  map(t, 0x1000, 0x10000, 12, (PT_R | PT_W));
  map(t, 0x2000, 0x20000, 12, (PT_R | PT_W));
  mmu_config c = split_config();
  c.walker.pwc[2] = (walker_pwc_config){4, 4, TLB_LRU};
  mmu *m = new_mmu(&c, t);
  tr(m, 0x1000, ACC_READ);
  tr(m, 0x2000, ACC_READ); /* l1d now holds 0x2000 only */
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, 2);
  pt_mapping old;
  CU_ASSERT_EQUAL(pt_unmap(t, 0x1000, &old), 0);
  mmu_shootdown(m, old.va, old.page_shift, 0);
  /* l1d, stlb, and the PD walk-cache entry covering the page: 3. */
  const mmu_stats *s = mmu_get_stats(m);
  CU_ASSERT_EQUAL(s->shootdowns, 1);
  CU_ASSERT_EQUAL(s->entries_invalidated, 3);
  mmu_outcome o = tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(o.status, MMU_FAULT_UNMAPPED);
  CU_ASSERT_EQUAL(o.walk_refs, 4); /* the PD cache entry went too */
  CU_ASSERT_EQUAL(s->faults_unmapped, 1);
  /* 0x2000 is still cached in the stlb. */
  CU_ASSERT_EQUAL(tr(m, 0x2000, ACC_READ).hit_level, 2);
  /* Remapped elsewhere, the new pa is seen. */
  map(t, 0x1000, 0x90000, 12, (PT_R | PT_W));
  o = tr(m, 0x1004, ACC_READ);
  CU_ASSERT_EQUAL(o.status, MMU_OK);
  CU_ASSERT_EQUAL(o.pa, 0x90004);
  CU_ASSERT_EQUAL(o.walk_refs, 1); /* the fault's walk refilled the PD cache */
  /* mmu_flush drops everything without counting a shootdown. */
  mmu_flush(m);
  CU_ASSERT_EQUAL(tr(m, 0x2000, ACC_READ).walk_refs, 4);
  CU_ASSERT_EQUAL(s->shootdowns, 1);
  mmu_destroy(m);
  pt_destroy(t);
}

static void test_protection(void) {
  pt *t = new_table();
  map(t, 0x1000, 0x10000, 12, PT_R);
  map(t, 0x2000, 0x20000, 12, (PT_R | PT_W));
  mmu_config c = split_config();
  mmu *m = new_mmu(&c, t);
  const mmu_stats *s = mmu_get_stats(m);
  /* A write to a read-only page walks, faults, fills nothing. */
  mmu_outcome o = tr(m, 0x1000, ACC_WRITE);
  CU_ASSERT_EQUAL(o.status, MMU_FAULT_PROT);
  CU_ASSERT_EQUAL(o.hit_level, -1);
  CU_ASSERT_EQUAL(o.walk_refs, 4);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, -1); /* nothing was filled */
  /* Now cached: the write faults on the l1d hit. */
  o = tr(m, 0x1000, ACC_WRITE);
  CU_ASSERT_EQUAL(o.status, MMU_FAULT_PROT);
  CU_ASSERT_EQUAL(o.hit_level, 0);
  /* Executing a page without X faults too. */
  CU_ASSERT_EQUAL(tr(m, 0x2000, ACC_EXEC).status, MMU_FAULT_PROT);
  CU_ASSERT_EQUAL(tr(m, 0x2000, ACC_WRITE).status, MMU_OK);
  CU_ASSERT_EQUAL(s->faults_prot, 3);
  CU_ASSERT_EQUAL(s->faults_unmapped, 0);
  mmu_destroy(m);
  pt_destroy(t);
}

static void test_asid(void) {
  pt *t = new_table(), *t2 = new_table();
  map(t, 0x1000, 0x10000, 12, (PT_R | PT_W));
  map(t2, 0x1000, 0x70000, 12, (PT_R | PT_W));
  mmu_config c = split_config();
  mmu *m = new_mmu(&c, t);
  const mmu_stats *s = mmu_get_stats(m);
  tr(m, 0x1000, ACC_READ);
  mmu_set_asid(m, 1);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, -1); /* other tag */
  mmu_set_asid(m, 0);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, 2); /* kept; l1d had asid 1's */
  mmu_set_asid(m, 0);
  CU_ASSERT_EQUAL(s->context_switches, 2);
  CU_ASSERT_EQUAL(s->walks, 2);
  /* Another table under asid 5: its own pa; back to asid 0, the old one. */
  mmu_set_context(m, 5, t2);
  mmu_outcome o = tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, -1);
  CU_ASSERT_EQUAL(o.pa, 0x70000);
  mmu_set_context(m, 0, t);
  o = tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, 2);
  CU_ASSERT_EQUAL(o.pa, 0x10000);
  /* Shootdowns drop only the named asid's entries. */
  mmu_shootdown(m, 0x1000, 12, 0);
  CU_ASSERT_EQUAL(mmu_get_stats(m)->entries_invalidated, 2); /* l1d and stlb, asid 0 */
  mmu_set_context(m, 5, t2);
  o = tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(o.hit_level, 2);
  CU_ASSERT_EQUAL(o.pa, 0x70000);
  mmu_destroy(m);

  /* Untagged: every switch flushes. */
  c.asid_tagged = false;
  m = new_mmu(&c, t);
  tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, 0);
  mmu_set_asid(m, 1);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, -1);
  mmu_set_asid(m, 0);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, -1);
  mmu_set_asid(m, 0); /* no switch, no flush */
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).hit_level, 0);
  CU_ASSERT_EQUAL(mmu_get_stats(m)->context_switches, 2);
  mmu_destroy(m);
  pt_destroy(t);
  pt_destroy(t2);
}

/* Demand paging: maps the page on the first fault. */
typedef struct demand {
  pt *t;
  unsigned calls;
  bool map;
} demand;

static bool on_fault(void *ctx, uint64_t va, acc_kind kind) {
  demand *dm = ctx;
  (void)kind;
  dm->calls++;
  if (!dm->map) return false;
  diag d;
  return pt_map(dm->t, va & ~(K4 - 1), 0x80000, 12, (PT_R | PT_W), &d) == 0;
}

static void test_fault_handler_and_latency(void) {
  pt *t = new_table();
  demand dm = {t, 0, true};
  mmu_config c = split_config();
  mmu *m = new_mmu(&c, t);
  mmu_set_fault_handler(m, on_fault, &dm);
  /* Empty table: the walk reads the root entry (1 ref), faults, the handler
   * maps, the walk runs again (4 refs): 100 + 1 + 5 + 2 * 10 + 5 * 50. */
  mmu_outcome o = tr(m, 0x5008, ACC_WRITE);
  CU_ASSERT_EQUAL(o.status, MMU_OK);
  CU_ASSERT_EQUAL(o.pa, 0x80008);
  CU_ASSERT_EQUAL(o.walk_refs, 5);
  CU_ASSERT_EQUAL(o.cycles, 376);
  CU_ASSERT_EQUAL(dm.calls, 1);
  CU_ASSERT_EQUAL(tr(m, 0x5000, ACC_READ).hit_level, 0);
  const mmu_stats *s = mmu_get_stats(m);
  CU_ASSERT(s->walks == 2 && s->walk_refs == 5 && s->faults_unmapped == 1);
  /* A refused fault: PML4 entry present, PDPT entry not: 2 refs,
   * 100 + 1 + 5 + 10 + 2 * 50 = 216. */
  dm.map = false;
  o = tr(m, 0x40000000, ACC_READ);
  CU_ASSERT_EQUAL(o.status, MMU_FAULT_UNMAPPED);
  CU_ASSERT_EQUAL(o.walk_refs, 2);
  CU_ASSERT_EQUAL(o.cycles, 216);
  CU_ASSERT_EQUAL(dm.calls, 2);
  CU_ASSERT_EQUAL(s->cycles, 376 + 101 + 216);
  mmu_destroy(m);
  pt_destroy(t);
}

/* mmu_translate_hit is mmu_translate's common case alone: over a seeded
 * mix of reads, writes and fetches (some to read-only pages, some beyond
 * the TLBs' reach), an MMU asked it first (mmu_translate when it says
 * false) counts and predicts exactly what one asked mmu_translate only
 * does, and it says true just where the outcome is an OK first-level hit. */
static void test_translate_hit(void) {
  pt *t = new_table();
  for (uint64_t p = 0; p < 24; p++) map(t, 0x400000 + p * K4, 0x800000 + p * K4, 12, p % 5 ? PT_R | PT_W | PT_X : PT_R);
  mmu_config c = split_config();
  c.level[0] = lvl("l1d", arr(4, 2, 12), 2, SERVES_DATA, 1);
  mmu *a = new_mmu(&c, t), *b = new_mmu(&c, t);
  uint64_t x = 12345, hits = 0, others = 0;
  for (int i = 0; i < 4000; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t va = 0x400000 + (x >> 33) % (i % 3 ? 6 : 24) * K4 + (x >> 20 & 0xff8);
    acc_kind k = (x >> 60) % 4 == 3 ? ACC_EXEC : (x >> 58) % 3 == 0 ? ACC_WRITE : ACC_READ;
    mmu_outcome oa = tr(a, va, k);
    bool first = oa.status == MMU_OK && oa.hit_level == (k == ACC_EXEC ? 1 : 0) && !oa.missed;
    if (mmu_translate_hit(b, va, k)) {
      hits++;
      CU_ASSERT_TRUE(first);
    } else {
      others++;
      mmu_outcome ob = tr(b, va, k);
      CU_ASSERT_TRUE(ob.status == oa.status && ob.pa == oa.pa && ob.hit_level == oa.hit_level &&
                     ob.missed == oa.missed && ob.cycles == oa.cycles);
    }
  }
  CU_ASSERT_TRUE(hits > 100 && others > 100);
  CU_ASSERT_EQUAL(memcmp(mmu_get_stats(a), mmu_get_stats(b), sizeof(mmu_stats)), 0);
  for (unsigned l = 0; l < c.nlevels; l++) {
    mmu_level_stats sa = mmu_level_get_stats(a, l), sb = mmu_level_get_stats(b, l);
    CU_ASSERT_EQUAL(memcmp(&sa, &sb, sizeof sa), 0);
  }
  mmu_destroy(a);
  mmu_destroy(b);
  pt_destroy(t);
}

static void test_no_inst_level(void) {
  /* Only l1d: instruction fetches go straight to the walk. */
  pt *t = new_table();
  map(t, 0x1000, 0x10000, 12, PT_RWX);
  mmu_config c = {.nlevels = 1, .asid_tagged = true};
  c.level[0] = lvl("l1d", arr(4, 4, 12), MMU_NEXT_WALK, SERVES_DATA, 1);
  mmu *m = new_mmu(&c, t);
  CU_ASSERT(mmu_serves(m, ACC_READ) && !mmu_serves(m, ACC_EXEC));
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_EXEC).walk_refs, 4);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_EXEC).hit_level, -1);
  CU_ASSERT_EQUAL(mmu_level_get_stats(m, 0).accesses, 0);
  mmu_destroy(m);
  pt_destroy(t);
}

static void expect_bad(const mmu_config *c, const char *words) {
  diag d = {""};
  CU_ASSERT_EQUAL(mmu_config_check(c, &d), -1);
  if (!strstr(d.msg, words)) fprintf(stderr, "\nmessage '%s' lacks '%s'\n", d.msg, words);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, words));
}

static void test_config_errors(void) {
  mmu_config c = split_config();
  diag d;
  CU_ASSERT_EQUAL(mmu_config_check(&c, &d), 0);
  c.level[2].next = 0; /* stlb -> l1d -> stlb */
  expect_bad(&c, "next links form a cycle");
  c = split_config();
  c.level[2].next = 2;
  expect_bad(&c, "cycle through level 'stlb'");
  c = split_config();
  c.level[1].serves = SERVES_DATA; /* l1d and l1i both data first levels */
  expect_bad(&c, "levels 'l1d' and 'l1i' are both first levels for data");
  c = split_config();
  c.level[0].next = 7;
  expect_bad(&c, "level 'l1d': next is 7, not a level (0..2) or the walk");
  c = split_config();
  snprintf(c.level[1].name, MMU_NAME_MAX, "l1d");
  expect_bad(&c, "two levels are named 'l1d'");
  c = split_config();
  c.level[2].serves = SERVES_INST;
  expect_bad(&c, "level 'stlb' is next after 'l1d' but does not serve data");
  c = split_config();
  c.level[0].serves = SERVES_INST;
  c.level[1].serves = SERVES_DATA | SERVES_INST;
  expect_bad(&c, "both first levels for instructions");
  c = split_config();
  c.level[1].serves = 0;
  expect_bad(&c, "level 'l1i' serves neither");
  c = split_config();
  c.level[0].array[0].ways = 3;
  c.level[0].array[0].entries = 8;
  expect_bad(&c, "level 'l1d': ways (3) does not divide entries (8)");
  c = split_config();
  c.level[2].narrays = 2;
  c.level[2].array[1] = arr(4, 4, 12);
  expect_bad(&c, "level 'stlb': arrays 0 and 1 both hold page size 2^12");
  c.level[2].narrays = 0;
  expect_bad(&c, "level 'stlb' has 0 arrays");
  c = split_config();
  c.nlevels = 0;
  expect_bad(&c, "0 TLB levels");
  c = split_config();
  c.level[0].serves = SERVES_INST;
  c.level[2].serves = SERVES_INST;
  expect_bad(&c, "no first level serves data");
  c = split_config();
  c.walker.pwc[2] = (walker_pwc_config){6, 4, TLB_LRU};
  expect_bad(&c, "page-walk cache of page-table level 2: ways (4) does not divide entries (6)");

  /* Checks against the format happen in mmu_create. */
  pt *t = new_table();
  c = split_config();
  c.walker.pwc[3] = (walker_pwc_config){4, 4, TLB_LRU};
  d.msg[0] = 0;
  CU_ASSERT_PTR_NULL(mmu_create(&c, t, test_mem(), NULL, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "level PT: the last level holds only leaves"));
  c.walker.pwc[3].entries = 0;
  c.walker.pwc[5] = (walker_pwc_config){4, 4, TLB_LRU};
  CU_ASSERT_PTR_NULL(mmu_create(&c, t, test_mem(), NULL, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "format x86-64-4 has 4 levels"));
  c.walker.pwc[5].entries = 0;
  c.level[1].next = 5;
  CU_ASSERT_PTR_NULL(mmu_create(&c, t, test_mem(), NULL, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "next is 5"));
  pt_destroy(t);
}

/* The page-table line cache: the second walk re-reads the PML4, PDPT and PD
 * entries (same lines) and a PTE 8 bytes after the first one (same 64-byte
 * line), so all four of its reads hit: 100 + 1 + 5 + 10 + 4 * 3 = 128 against
 * the cold walk's 100 + 1 + 5 + 10 + 4 * 50 = 316. A PTE 64 pages on lies in
 * another line: 3 hits and one miss. */
static void test_line_cache(void) {
  pt *t = new_table();
  map(t, 0x1000, 0x10000, 12, PT_R);
  map(t, 0x2000, 0x20000, 12, PT_R);
  map(t, 0x41000, 0x30000, 12, PT_R);
  mmu_config c = split_config();
  c.walker.line_cache = (walker_line_cache_config){.entries = 8, .ways = 8, .line_bytes = 64, .hit_cycles = 3};
  mmu *m = new_mmu(&c, t);
  CU_ASSERT_EQUAL(tr(m, 0x1000, ACC_READ).cycles, 316);
  mmu_outcome o = tr(m, 0x2000, ACC_READ);
  CU_ASSERT_EQUAL(o.walk_refs, 4);
  CU_ASSERT_EQUAL(o.cycles, 128);
  CU_ASSERT_EQUAL(tr(m, 0x41000, ACC_READ).cycles, 100 + 1 + 5 + 10 + 3 * 3 + 50);
  CU_ASSERT_EQUAL(mmu_get_stats(m)->line_hits, 4 + 3);
  mmu_destroy(m);
  c.walker.line_cache.line_bytes = 12;
  diag d;
  CU_ASSERT_PTR_NULL(mmu_create(&c, t, test_mem(), NULL, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "line_bytes 12"));
  pt_destroy(t);
}

/* Two MMUs (two SMs) with private l1d and l1i arrays share the stlb arrays
 * and one walker: a page one filled into the stlb is an stlb hit for the
 * other, and a walk cache filled by one saves the other's upper reads. */
static void test_shared_levels_and_walker(void) {
  pt *t = new_table();
  map(t, 0x1000, 0x50000, 12, PT_RWX);
  map(t, 0x2000, 0x60000, 12, PT_RWX);
  mmu_config c = split_config();
  c.walker.pwc[2] = (walker_pwc_config){4, 4, TLB_LRU};
  mmu *a = new_mmu(&c, t);
  diag d;
  mmu_share share = {.level_from = {[2] = a}, .walker = mmu_get_walker(a)};
  mmu *b = mmu_create(&c, t, test_mem(), &share, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(tr(a, 0x1000, ACC_READ).hit_level, -1);
  mmu_outcome o = tr(b, 0x1000, ACC_READ); /* b's own l1d misses, the shared stlb hits */
  CU_ASSERT_EQUAL(o.hit_level, 2);
  CU_ASSERT_EQUAL(o.missed, 1u);
  CU_ASSERT_EQUAL(mmu_level_get_stats(b, 2).hits, 1); /* each counts its own look-ups */
  CU_ASSERT_EQUAL(mmu_level_get_stats(a, 2).hits, 0);
  o = tr(b, 0x2000, ACC_READ); /* a walk: the PD entry is in the shared walk cache */
  CU_ASSERT_EQUAL(o.walk_refs, 1);
  CU_ASSERT_EQUAL(mmu_get_stats(b)->pwc_hits[2], 1);
  /* A shootdown through either reaches the shared arrays. */
  mmu_shootdown(a, 0x2000, 12, 0);
  CU_ASSERT_EQUAL(tr(b, 0x2000, ACC_READ).hit_level, 0); /* b's private l1d still holds it */
  CU_ASSERT_EQUAL(tr(b, 0x1000, ACC_READ).hit_level, 2);
  /* The lender's level must look the same. */
  mmu_config other = c;
  other.level[2].array[0].ways = 16;
  CU_ASSERT_PTR_NULL(mmu_create(&other, t, test_mem(), &share, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "shared arrays differ"));
  mmu_destroy(b); /* borrowers go first */
  mmu_destroy(a);
  pt_destroy(t);
}

typedef struct event_log {
  char text[2048];
  size_t len;
} event_log;

static void note(event_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(event_log *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  l->len += (size_t)vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
  va_end(ap);
}

static void obs_lookup(void *ctx, const mmu_lookup_event *e) {
  note(ctx, "L%u set %llu %s; ", e->level, (unsigned long long)e->set, e->hit ? "hit" : "miss");
}

static void obs_fill(void *ctx, const mmu_fill_event *e) {
  note(ctx, "F%u set %llu victim %#llx; ", e->level, (unsigned long long)e->set,
       (unsigned long long)(e->victim.evicted ? e->victim.va : 0));
}

static void obs_walk(void *ctx, uint64_t va, const walker_result *w) {
  note(ctx, "W%#llx refs %u cycles %llu; ", (unsigned long long)va, w->refs, (unsigned long long)w->cycles);
}

static void obs_fault(void *ctx, uint64_t va, mmu_status st) { note(ctx, "X%#llx %d; ", (unsigned long long)va, (int)st); }

static void obs_shootdown(void *ctx, uint64_t va, unsigned shift, unsigned dropped) {
  note(ctx, "S%#llx %u %u; ", (unsigned long long)va, shift, dropped);
}

static void obs_translated(void *ctx, uint64_t va, const mmu_outcome *o) {
  note(ctx, "T%#llx pa %#llx cycles %llu; ", (unsigned long long)va, (unsigned long long)o->pa,
       (unsigned long long)o->cycles);
}

/* Lookups name their set and hit, fills their victim, walks their refs and
 * cycles; faults and shootdowns are reported; no observer, no events. */
/* A wide LRU set (64 ways: its recency list, tlb.c) evicts exactly what a
 * plain LRU model does, through hits, invalidated ways and refills: a
 * pseudo-random stream of 200 pages, some dropped on the way. */
static void test_wide_lru(void) {
  tlb_geometry g = arr(64, 64, 12);
  diag d;
  tlb *t = tlb_create(&g, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  uint64_t model[64]; /* pages, least recently used first */
  unsigned held = 0, misses = 0, evictions = 0;
  uint64_t x = 12345;
  for (unsigned i = 0; i < 20000; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t page = (x >> 33) % 200;
    unsigned at = 0;
    while (at < held && model[at] != page) at++;
    bool hit = tlb_lookup(t, page << 12, 0, NULL);
    CU_ASSERT_EQUAL(hit, at < held);
    if (i % 97 == 0 && at < held) { /* drop it instead: a hole in the set */
      CU_ASSERT_EQUAL(tlb_invalidate(t, page << 12, 12, 0), 1);
      memmove(&model[at], &model[at + 1], (held - at - 1) * sizeof *model);
      held--;
      continue;
    }
    if (at < held) {
      memmove(&model[at], &model[at + 1], (held - at - 1) * sizeof *model);
      model[held - 1] = page;
      continue;
    }
    misses++;
    tlb_victim v;
    CU_ASSERT_TRUE(tlb_fill(t, page << 12, 0, 12, page << 20, PT_R, 0, &v));
    CU_ASSERT_EQUAL(v.evicted, held == 64);
    if (held == 64) {
      evictions++;
      CU_ASSERT_EQUAL(v.va, model[0] << 12);
      memmove(&model[0], &model[1], 63 * sizeof *model);
      held--;
    }
    model[held++] = page;
  }
  CU_ASSERT_EQUAL(tlb_occupancy(t), held);
  CU_ASSERT_TRUE(misses > 5000 && evictions > 4000); /* the stream exercised the victim path */
  tlb_destroy(t);
}

static void test_observer(void) {
  pt *t = new_table();
  map(t, 0x1000, 0x50000, 12, PT_R);
  map(t, 0x2000, 0x60000, 12, PT_R);
  mmu_config c = split_config();
  mmu *m = new_mmu(&c, t);
  event_log log = {{0}, 0};
  mmu_observer obs = {&log, obs_lookup, obs_fill, obs_walk, obs_fault, obs_shootdown, obs_translated};
  tr(m, 0x1000, ACC_READ); /* unobserved: fills l1d with page 1 */
  mmu_set_observer(m, &obs);
  tr(m, 0x2000, ACC_READ); /* l1d (1 entry) misses, stlb misses, walk, fills evict page 1 from l1d */
  CU_ASSERT_STRING_EQUAL(log.text, "L0 set 0 miss; L2 set 2 miss; W0x2000 refs 4 cycles 210; "
                                   "F0 set 0 victim 0x1000; F2 set 2 victim 0; T0x2000 pa 0x60000 cycles 316; ");
  /* evictions are counted per level, observed or not: page 2 evicted page 1 from l1d */
  CU_ASSERT_EQUAL(mmu_level_get_stats(m, 0).evictions, 1);
  CU_ASSERT_EQUAL(mmu_level_get_stats(m, 2).evictions, 0);
  log.len = 0;
  tr(m, 0x2000, ACC_WRITE); /* protection fault on an l1d hit */
  mmu_shootdown(m, 0x2000, 12, 0);
  CU_ASSERT_STRING_EQUAL(log.text, "L0 set 0 hit; X0x2000 2; T0x2000 pa 0x60000 cycles 101; S0x2000 12 2; ");
  mmu_set_observer(m, NULL);
  log.len = 0;
  log.text[0] = '\0';
  tr(m, 0x1000, ACC_READ);
  CU_ASSERT_EQUAL(log.len, 0);
  mmu_destroy(m);
  pt_destroy(t);
}

int main(void) {
  static const test_case flow[] = {{"hierarchy_flow", test_hierarchy_flow},
                                   {"walk_caches", test_walk_caches},
                                   {"line_cache", test_line_cache},
                                   {"split_by_page_size", test_split_by_page_size},
                                   {"sector_fill", test_sector_fill},
                                   {"no_inst_level", test_no_inst_level},
                                   {"translate_hit", test_translate_hit},
                                   {NULL, NULL}};
  static const test_case events[] = {{"shootdown", test_shootdown},
                                     {"protection", test_protection},
                                     {"asid", test_asid},
                                     {"fault_handler_and_latency", test_fault_handler_and_latency},
                                     {"shared_levels_and_walker", test_shared_levels_and_walker},
                                     {"observer", test_observer},
                                     {"wide_lru", test_wide_lru},
                                     {NULL, NULL}};
  static const test_case config[] = {{"config_errors", test_config_errors}, {NULL, NULL}};
  static const test_suite suites[] = {
      {"mmu_flow", flow}, {"mmu_events", events}, {"mmu_config", config}, {NULL, NULL}};
  return harness_run(suites);
}
