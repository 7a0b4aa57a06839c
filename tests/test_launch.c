/* Tests for launch geometry: GRIDxBLOCK parsed, and the h200 preset's
 * block placement against every launch of the measured sweep that fits at
 * once (gpu/results/h200/run4/blocks.csv.gz: which SMs ran its blocks, how
 * many each), the sizes the issue names (16, 66, 264 blocks of 256) by
 * hand, the first wave of a launch of more (the 1 MiB stream's, from
 * stream_pass/warps_1m.csv.gz), and the errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "tlbsim/launch.h"
#include "tlbsim/loader.h"

#define BLOCKS TLBSIM_SOURCE_DIR "/gpu/results/h200/run4/blocks.csv.gz"
#define WARPS_1M TLBSIM_SOURCE_DIR "/gpu/results/h200/stream_pass/warps_1m.csv.gz"

static gpu_config h200(void) {
  loader_request q = {.preset = "h200"};
  machine_spec spec;
  const char *label;
  diag d;
  cfg *c = loader_spec(&q, &label, &spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  cfg_destroy(c);
  return spec.gpu;
}

static launch_plan place(const gpu_config *g, uint64_t grid, uint32_t block) {
  launch_plan p;
  diag d;
  launch_geometry l = {grid, block};
  CU_ASSERT_EQUAL_FATAL(launch_place(g, &l, &p, &d), 0);
  return p;
}

static void test_rule(void) {
  gpu_config g = h200();
  launch_plan p = place(&g, 16, 256);
  static const int first16[] = {124, 126, 128, 130, 125, 127, 129, 131, 0, 2, 4, 6, 8, 10, 12, 14};
  CU_ASSERT_EQUAL(p.sms_used, 16);
  for (size_t i = 0; i < 16; i++) CU_ASSERT_EQUAL(p.blocks[first16[i]], 1);
  CU_ASSERT_EQUAL(p.blocks[1], 0);
  p = place(&g, 66, 256); /* 8, then 58 even SMs: no TPC holds two blocks after the first eight */
  CU_ASSERT_EQUAL(p.sms_used, 66);
  CU_ASSERT_EQUAL(p.blocks[114], 1);
  CU_ASSERT_EQUAL(p.blocks[116], 0);
  CU_ASSERT_EQUAL(p.blocks[1], 0);
  p = place(&g, 264, 256);
  uint32_t per;
  CU_ASSERT_TRUE(launch_even(&p, &g, &per));
  CU_ASSERT_EQUAL(per, 2);
  CU_ASSERT_EQUAL(p.waves, 1);
  p = place(&g, 2112, 1024); /* two a SM at once: 8 waves */
  CU_ASSERT_EQUAL(p.resident, 2);
  CU_ASSERT_EQUAL(p.waves, 8);
  CU_ASSERT_FALSE(launch_even(&(launch_plan){.blocks = {[0] = 2, [1] = 1}}, &g, &per));
}

/* Every launch of the measured sweep whose blocks fit at once: the plan
 * has exactly the blocks each SM ran, in every repeat. */
static void test_measured(void) {
  gpu_config g = h200();
  gzFile f = gzopen(BLOCKS, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char line[512];
  CU_ASSERT_PTR_NOT_NULL_FATAL(gzgets(f, line, sizeof line)); /* pattern,grid,block_threads,repeat,spin_ns,block,sm,... */
  unsigned long grid = 0, block = 0, repeat = 0, launches = 0, checked = 0;
  uint32_t ran[GPU_MAX_SMS] = {0};
  bool more = true;
  while (more) {
    unsigned long g2, b2, r2, spin, k, sm;
    more = gzgets(f, line, sizeof line) != NULL;
    bool parsed = more && sscanf(line, "blocks,%lu,%lu,%lu,%lu,%lu,%lu", &g2, &b2, &r2, &spin, &k, &sm) == 6;
    CU_ASSERT_TRUE(parsed || !more);
    if (launches && (!more || g2 != grid || b2 != block || r2 != repeat)) { /* a launch ends */
      launch_plan p = place(&g, grid, (uint32_t)block);
      if (p.waves == 1) {
        bool same = true;
        for (uint32_t s = 0; s < g.sms; s++) same &= ran[s] == p.blocks[s];
        if (!same) fprintf(stderr, "\n%lux%lu repeat %lu: placed otherwise\n", grid, block, repeat);
        CU_ASSERT_TRUE(same);
        checked++;
      }
      memset(ran, 0, sizeof ran);
    }
    if (!more) break;
    if (!launches || g2 != grid || b2 != block || r2 != repeat) launches++;
    grid = g2, block = b2, repeat = r2;
    CU_ASSERT_FATAL(sm < GPU_MAX_SMS);
    ran[sm]++;
  }
  gzclose(f);
  CU_ASSERT_EQUAL(checked, 80 * 3); /* 80 (grid, block) cases fit at once (of 22 x 4), 3 repeats each */
}

/* The 1056 x 512 launch of the 1 MiB read (4 blocks a SM at once, two
 * waves): SMs 124-131 take blocks 0-7 and 84-91, so its first 128 blocks
 * (those with elements) put two on each of them and one on 112 others, as
 * the recorded launch ran them; the first 256, three. */
static void test_wave(void) {
  gpu_config g = h200();
  launch_plan p = place(&g, 1056, 512);
  CU_ASSERT_EQUAL(p.waves, 2);
  CU_ASSERT_EQUAL(g.block_order[launch_entry(&p, &g, 84)], 124);
  CU_ASSERT_EQUAL(g.block_order[launch_entry(&p, &g, 91)], 131);
  CU_ASSERT_TRUE(launch_entry(&p, &g, 92) >= 8);
  uint32_t per;
  CU_ASSERT_TRUE(launch_even(&p, &g, &per));
  CU_ASSERT_EQUAL(per, 4);
  gzFile f = gzopen(WARPS_1M, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char line[256];
  CU_ASSERT_PTR_NOT_NULL_FATAL(gzgets(f, line, sizeof line)); /* warp,sm,working,cycles,ns */
  static uint32_t sm_of[1056];
  unsigned long w, sm, rows = 0;
  while (gzgets(f, line, sizeof line) && sscanf(line, "%lu,%lu", &w, &sm) == 2 && w / 16 < 1056 && sm < GPU_MAX_SMS)
    sm_of[w / 16] = (uint32_t)sm, rows++;
  gzclose(f);
  CU_ASSERT_EQUAL_FATAL(rows, 1056 * 16);
  for (uint64_t working = 128; working <= 256; working *= 2) {
    uint32_t ran[GPU_MAX_SMS] = {0}, rule[GPU_MAX_SMS] = {0}, most = 0, used = 0, most_rule = 0, used_rule = 0;
    for (uint64_t b = 0; b < working; b++) ran[sm_of[b]]++, rule[g.block_order[launch_entry(&p, &g, b)]]++;
    for (uint32_t s = 0; s < g.sms; s++) {
      used += ran[s] > 0, used_rule += rule[s] > 0;
      most = ran[s] > most ? ran[s] : most, most_rule = rule[s] > most_rule ? rule[s] : most_rule;
      if (s >= 124) CU_ASSERT_EQUAL(rule[s], ran[s]);
    }
    CU_ASSERT_EQUAL(most_rule, most);
    CU_ASSERT_EQUAL(used_rule, used);
    CU_ASSERT_EQUAL(most, working == 128 ? 2u : 3u);
  }
}

static void test_errors(void) {
  gpu_config g = h200();
  launch_geometry l;
  char why[160];
  CU_ASSERT_EQUAL(launch_parse("16x256", &l, why, sizeof why), 0);
  CU_ASSERT_TRUE(l.grid == 16 && l.block == 256);
  CU_ASSERT_EQUAL(launch_parse("16", &l, why, sizeof why), -1);
  CU_ASSERT_EQUAL(launch_parse("0x256", &l, why, sizeof why), -1);
  CU_ASSERT_EQUAL(launch_parse("16x", &l, why, sizeof why), -1);
  CU_ASSERT_EQUAL(launch_parse("16x99999999999", &l, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "is not GRIDxBLOCK"));
  launch_plan p;
  diag d;
  CU_ASSERT_EQUAL(launch_place(&g, &(launch_geometry){4, 100}, &p, &d), -1); /* not whole warps */
  CU_ASSERT_EQUAL(launch_place(&g, &(launch_geometry){4, 4096}, &p, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "32 to 2048 threads"));
  gpu_config lead = g;
  lead.wave_lead = g.sms; /* the lead entries are fewer than the SMs, and have gaps */
  CU_ASSERT_EQUAL(gpu_config_check(&lead, &d), -1);
  lead.wave_lead = 8, lead.nwave_gaps = 0;
  CU_ASSERT_EQUAL(gpu_config_check(&lead, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "wave_lead 8"));
  gpu_config none = {0};
  CU_ASSERT_EQUAL(launch_place(&none, &(launch_geometry){4, 256}, &p, &d), -1);
}

int main(void) {
  static const test_case cases[] = {{"rule", test_rule}, {"measured", test_measured}, {"wave", test_wave},
                                     {"errors", test_errors}, {NULL, NULL}};
  static const test_suite suites[] = {{"launch", cases}, {NULL, NULL}};
  return harness_run(suites);
}
