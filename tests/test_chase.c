/* Tests for the simulated pointer chase: chain and mapping as tlbsim-gpu
 * builds them, warm-up, hand-worked hit/miss counts, sector entries. */
#include <stdio.h>
#include <string.h>

#include "tlbsim/gpu_chain.h"
#include "harness.h"
#include "tlbsim/chase.h"

/* One FA LRU level of `entries` 2 MiB entries (sector pages each), hopper. */
static system_spec one_level(uint32_t entries, uint32_t sector) {
  system_spec mc = {.mmu = {.nlevels = 1, .walker.walk_cycles = 50, .asid_tagged = true}, .mem.data_cycles = 100};
  mmu_level_config *l = &mc.mmu.level[0];
  strcpy(l->name, "l1d");
  l->narrays = 1;
  l->next = MMU_NEXT_WALK;
  l->serves = SERVES_DATA;
  l->array[0] = (tlb_geometry){.entries = entries, .ways = entries, .policy = TLB_LRU, .sector_pages = sector,
                               .npage_shifts = 1, .page_shift = {21}};
  return mc;
}

static chase_spec spec(uint64_t footprint, uint64_t stride, chase_order order) {
  return (chase_spec){.footprint = footprint, .stride = stride, .page_size = 2u << 20, .chunk = 2u << 20,
                      .mapping = REGION_CONTIGUOUS, .order = order, .seed = 1, .warmup = 1024, .steps = 4096,
                      .repeats = 3};
}

static void test_reach_and_miss_cost(void) {
  const pt_format *f = pt_format_find("hopper");
  system_spec mc = one_level(8, 1);
  chase_result r;
  diag d;
  /* 8 pages fit: every timed load hits after the warm-up. */
  chase_spec s = spec(16u << 20, 2u << 20, CHASE_SEQ);
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.nodes, 8);
  CU_ASSERT_DOUBLE_EQUAL(r.cycles_per_access, 100.0, 1e-9);
  CU_ASSERT_EQUAL(r.walks, 0);
  /* 9 pages cycled under LRU: every load misses, walks 5 entries (2 MiB leaf at PD0). */
  s = spec(18u << 20, 2u << 20, CHASE_SEQ);
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.walks, r.loads);
  CU_ASSERT_EQUAL(r.walk_refs, 5 * r.loads);
  CU_ASSERT_DOUBLE_EQUAL(r.cycles_per_access, 150.0, 1e-9);
  /* Random order over the same 9 pages is the same cycle each pass: all miss too. */
  s.order = CHASE_RANDOM;
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_DOUBLE_EQUAL(r.cycles_per_access, 150.0, 1e-9);
}

static void test_sector_entries_span_pages(void) {
  const pt_format *f = pt_format_find("hopper");
  system_spec mc = one_level(4, 8); /* 4 entries of 16 MiB: 64 MiB reach */
  chase_result r;
  diag d;
  chase_spec s = spec(64u << 20, 2u << 20, CHASE_RANDOM);
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.nodes, 32);
  CU_ASSERT_EQUAL(r.walks, 0);
  /* Shuffled chunks: sectors need no physical contiguity here. */
  mc.mmu.level[0].sector_needs_contiguous_pa = false;
  s.mapping = REGION_SHUFFLED;
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.walks, 0);
  /* With contiguity required a walk fills only its own page, but later
   * fills merge into the sector's entry: once warm, everything hits. */
  mc.mmu.level[0].sector_needs_contiguous_pa = true;
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.walks, 0);
  /* Five sectors through four entries, cycled: every sector is evicted
   * before its next use, so each first touch of a sector misses. */
  mc.mmu.level[0].sector_needs_contiguous_pa = false;
  s = spec(80u << 20, 16u << 20, CHASE_SEQ);
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.walks, r.loads);
  /* Sequential at a 2 MiB stride over 128 MiB: one miss per 16 MiB sector. */
  mc.mmu.level[0].sector_needs_contiguous_pa = false;
  s = spec(128u << 20, 2u << 20, CHASE_SEQ);
  s.steps = 64;
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.walks, r.loads / 8);
}

/* Aliased: a 1 TiB footprint at a 1 GiB stride maps only the 1024 chunks
 * holding a node; with 8 entries every load of the cycle misses. */
static void test_aliased_beyond_memory(void) {
  const pt_format *f = pt_format_find("hopper");
  system_spec mc = one_level(8, 1);
  chase_result r;
  diag d;
  chase_spec s = spec(1ull << 40, 1u << 30, CHASE_SEQ);
  s.mapping = REGION_ALIASED;
  int rc = chase_run(f, &mc, &s, &r, &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_EQUAL(r.nodes, 1024);
  CU_ASSERT_EQUAL(r.walks, r.loads);
  s = spec(8ull << 30, 1u << 30, CHASE_RANDOM);
  s.mapping = REGION_ALIASED;
  CU_ASSERT_EQUAL_FATAL(chase_run(f, &mc, &s, &r, &d), 0);
  CU_ASSERT_EQUAL(r.walks, 0); /* 8 chunks fit */
}

static void test_same_chain_as_gpu(void) {
  /* The random order is gpu_permute's: node k of the chain is perm[k]. */
  uint32_t perm[16];
  gpu_permute(perm, 16, 7);
  gpu_chain_spec cs = {.nodes = 16, .stride = 4096, .order = GPU_ORDER_RANDOM, .seed = 7};
  uint64_t off[16];
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_chain_build(&cs, off, &d), 0);
  for (int k = 0; k < 16; k++) CU_ASSERT_EQUAL(off[k], (uint64_t)perm[k] * 4096);
  bool seen[16] = {0};
  for (int k = 0; k < 16; k++) seen[perm[k]] = true;
  for (int k = 0; k < 16; k++) CU_ASSERT_TRUE(seen[k]);
}

static void test_bad_specs(void) {
  const pt_format *f = pt_format_find("hopper");
  system_spec mc = one_level(4, 1);
  chase_result r;
  diag d;
  chase_spec s = spec(1u << 20, 12, CHASE_SEQ);
  CU_ASSERT_EQUAL(chase_run(f, &mc, &s, &r, &d), -1);
  s = spec(1u << 10, 4096, CHASE_SEQ);
  CU_ASSERT_EQUAL(chase_run(f, &mc, &s, &r, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "holds no node"));
  s = spec(1u << 20, 4096, CHASE_SEQ);
  s.va_base = 4096;
  CU_ASSERT_EQUAL(chase_run(f, &mc, &s, &r, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "not page aligned"));
  s = spec(64u << 20, 3u << 20, CHASE_SEQ);
  s.mapping = REGION_ALIASED;
  CU_ASSERT_EQUAL(chase_run(f, &mc, &s, &r, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "multiple of the chunk"));
  region_mapping m;
  CU_ASSERT_EQUAL(region_mapping_parse("managed", &m), 0);
  CU_ASSERT_EQUAL(region_mapping_parse("pinned", &m), -1);
  CU_ASSERT_EQUAL(region_mapping_parse("shuffled", &m), 0);
  CU_ASSERT_EQUAL(m, REGION_SHUFFLED);
}

int main(void) {
  static const test_case cases[] = {{"reach and miss cost", test_reach_and_miss_cost},
                                    {"sector entries span pages", test_sector_entries_span_pages},
                                    {"same chain as tlbsim-gpu", test_same_chain_as_gpu},
                                    {"aliased beyond memory", test_aliased_beyond_memory},
                                    {"bad specs", test_bad_specs},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"chase", cases}, {NULL, NULL}};
  return harness_run(suites);
}
