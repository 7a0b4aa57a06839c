/* tests/test_gpu_host.c — tlbsim-gpu's host logic on the CPU: chain
 * construction and permutation (against an independent Python model of
 * xoshiro256** and splitmix64), sweep planning, CSV, churn plan, user pool,
 * options; the gather hash (against a Python model), gather plans, launch
 * shapes and SM sets; buffer-set statistics and pool carving; the
 * alloc/free trace reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_bufset.h"
#include "gpu_capture.h"
#include "gpu_csv.h"
#include "tlbsim/gpu_gather.h"
#include "gpu_opts.h"
#include "tlbsim/gpu_plan.h"
#include "gpu_pool.h"
#include "gpu_trace.h"
#include "harness.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* ---- chain ---- */

static void test_permute_matches_model(void) {
  /* Expected values from a separate Python implementation of splitmix64,
   * xoshiro256**, Lemire's bounded draw and Fisher–Yates from the top. */
  static const uint32_t s1[8] = {4, 7, 0, 2, 1, 6, 3, 5}, s42[8] = {7, 1, 6, 3, 5, 4, 2, 0}, s7[5] = {0, 4, 2, 1, 3};
  uint32_t p[8];
  gpu_permute(p, 8, 1);
  CU_ASSERT_EQUAL(memcmp(p, s1, sizeof s1), 0);
  gpu_permute(p, 8, 42);
  CU_ASSERT_EQUAL(memcmp(p, s42, sizeof s42), 0);
  gpu_permute(p, 5, 7);
  CU_ASSERT_EQUAL(memcmp(p, s7, sizeof s7), 0);
  gpu_permute(p, 1, 9);
  CU_ASSERT_EQUAL(p[0], 0);
}

static void test_chain_seq_and_random(void) {
  gpu_chain_spec s = {4, 2 * MiB, GPU_ORDER_SEQ, 1, 0, 0};
  uint64_t off[8];
  diag d;
  CU_ASSERT_EQUAL(gpu_chain_build(&s, off, &d), 0);
  CU_ASSERT_EQUAL(off[0], 0);
  CU_ASSERT_EQUAL(off[1], 2 * MiB);
  CU_ASSERT_EQUAL(off[3], 6 * MiB);
  s.nodes = 8;
  s.stride = 64 << 10;
  s.order = GPU_ORDER_RANDOM;
  CU_ASSERT_EQUAL(gpu_chain_build(&s, off, &d), 0);
  /* Visit order = the seed-1 permutation {4,7,0,2,1,6,3,5}. */
  CU_ASSERT_EQUAL(off[0], 4 * 65536);
  CU_ASSERT_EQUAL(off[1], 7 * 65536);
  CU_ASSERT_EQUAL(off[2], 0);
  CU_ASSERT_EQUAL(off[7], 5 * 65536);
}

static void test_chain_skew_and_errors(void) {
  gpu_chain_spec s = {20000, 32 * MiB, GPU_ORDER_SEQ, 1, 128, 16384};
  CU_ASSERT_EQUAL(gpu_chain_node_offset(&s, 3), 3 * 32 * MiB + 3 * 128);
  CU_ASSERT_EQUAL(gpu_chain_node_offset(&s, 16385), 16385ull * 32 * MiB + 128);
  uint64_t off[4];
  diag d;
  gpu_chain_spec bad = {4, 1 * MiB, GPU_ORDER_SEQ, 1, 128, 16384}; /* skew spans 2 MiB > stride */
  CU_ASSERT_EQUAL(gpu_chain_build(&bad, off, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "leaves the 1048576-byte stride"));
  bad = (gpu_chain_spec){0, 4096, GPU_ORDER_SEQ, 1, 0, 0};
  CU_ASSERT_EQUAL(gpu_chain_build(&bad, off, &d), -1);
  bad = (gpu_chain_spec){4, 12, GPU_ORDER_SEQ, 1, 0, 0};
  CU_ASSERT_EQUAL(gpu_chain_build(&bad, off, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "chain: stride 12 is not a positive multiple of 8");
}

static void test_chain_positions(void) {
  CU_ASSERT_EQUAL(gpu_chain_lane_start(10, 5, 32), 1);  /* 5*10/32 */
  CU_ASSERT_EQUAL(gpu_chain_lane_start(64, 31, 32), 62);
  CU_ASSERT_EQUAL(gpu_chain_advance(10, 7, 25), 2);
  CU_ASSERT_EQUAL(gpu_chain_advance(5, 2, 1024 + 5 * 4096), 1); /* (2 + 21504 % 5) % 5 */
}

/* ---- plan ---- */

static gpu_sweep sweep_of(uint64_t stride, uint64_t fmin, uint64_t fmax, unsigned per_octave) {
  gpu_sweep s;
  memset(&s, 0, sizeof s);
  s.mapping = REGION_CONTIGUOUS;
  s.orders = 1u << GPU_ORDER_SEQ;
  s.strides[0] = stride;
  s.nstrides = 1;
  s.fmin = fmin;
  s.fmax = fmax;
  s.per_octave = per_octave;
  s.max_nodes = 65536;
  return s;
}

static void test_plan_quarter_octaves(void) {
  /* 2 MiB stride, 1..16 MiB at 4/octave: wanted/stride rounds to
   * 1,1,1,1,1,1,1,2,2,2,3,3,4,5,6,7,8 -> nodes 1..8, duplicates dropped. */
  gpu_sweep s = sweep_of(2 * MiB, MiB, 16 * MiB, 4);
  gpu_point_list l;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_sweep_points(&s, &l, &d), 0);
  CU_ASSERT_EQUAL_FATAL(l.n, 8);
  for (size_t i = 0; i < 8; i++) {
    CU_ASSERT_EQUAL(l.v[i].nodes, i + 1);
    CU_ASSERT_EQUAL(l.v[i].footprint, (i + 1) * 2 * MiB);
  }
  CU_ASSERT_EQUAL(gpu_point_list_max_footprint(&l), 16 * MiB);
  gpu_point_list_free(&l);
}

static void test_plan_half_octaves_and_cap(void) {
  /* 64 KiB stride, 1..4 MiB at 2/octave: 16, 22.6->23, 32, 45.25->45, 64. */
  gpu_sweep s = sweep_of(64 << 10, MiB, 4 * MiB, 2);
  gpu_point_list l;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_sweep_points(&s, &l, &d), 0);
  CU_ASSERT_EQUAL_FATAL(l.n, 5);
  CU_ASSERT_EQUAL(l.v[1].nodes, 23);
  CU_ASSERT_EQUAL(l.v[1].footprint, 23 * 65536);
  CU_ASSERT_EQUAL(l.v[3].nodes, 45);
  CU_ASSERT_EQUAL(l.skipped_nodes, 0);
  gpu_point_list_free(&l);
  s.max_nodes = 40;
  CU_ASSERT_EQUAL_FATAL(gpu_sweep_points(&s, &l, &d), 0);
  CU_ASSERT_EQUAL(l.n, 3);
  CU_ASSERT_EQUAL(l.skipped_nodes, 2);
  gpu_point_list_free(&l);
}

static void test_plan_explicit_and_fmax(void) {
  gpu_sweep s = sweep_of(2 * MiB, MiB, 5 * MiB, 1);
  gpu_point_list l;
  diag d;
  /* 1M->1 node, 2M->1 (dup), 4M->2, 8M > fmax. */
  CU_ASSERT_EQUAL_FATAL(gpu_sweep_points(&s, &l, &d), 0);
  CU_ASSERT_EQUAL(l.n, 2);
  CU_ASSERT_EQUAL(l.v[1].footprint, 4 * MiB);
  gpu_point_list_free(&l);
  s.footprints[0] = 3 * MiB; /* 1.5 -> 2 nodes */
  s.footprints[1] = 10 * MiB;
  s.nfootprints = 2;
  s.strides[1] = 4 * MiB;
  s.nstrides = 2;
  CU_ASSERT_EQUAL_FATAL(gpu_sweep_points(&s, &l, &d), 0);
  CU_ASSERT_EQUAL_FATAL(l.n, 4);
  CU_ASSERT_EQUAL(l.v[0].footprint, 4 * MiB);
  CU_ASSERT_EQUAL(l.v[1].footprint, 10 * MiB);
  CU_ASSERT_EQUAL(l.v[2].stride, 4 * MiB);
  CU_ASSERT_EQUAL(l.v[2].nodes, 1); /* 0.75 -> 1 */
  CU_ASSERT_EQUAL(l.v[3].nodes, 3); /* 2.5 -> 3 */
  gpu_point_list_free(&l);
}

static void test_plan_errors(void) {
  gpu_point_list l;
  diag d;
  gpu_sweep s = sweep_of(2 * MiB, 4 * MiB, MiB, 4);
  CU_ASSERT_EQUAL(gpu_sweep_points(&s, &l, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "sweep: footprint range 4194304..1048576 is empty");
  s = sweep_of(0, MiB, 4 * MiB, 4);
  CU_ASSERT_EQUAL(gpu_sweep_points(&s, &l, &d), -1);
  s = sweep_of(2 * MiB, MiB, 4 * MiB, 0);
  CU_ASSERT_EQUAL(gpu_sweep_points(&s, &l, &d), -1);
  s = sweep_of(2 * MiB, MiB, 4 * MiB, 4);
  s.orders = 0;
  CU_ASSERT_EQUAL(gpu_sweep_points(&s, &l, &d), -1);
}

static void test_full_sweeps(void) {
  gpu_sweep s[8];
  size_t n = gpu_full_sweeps(s, 8, 128 * GiB, 65536);
  CU_ASSERT_EQUAL_FATAL(n, 6);
  CU_ASSERT_EQUAL(s[0].mapping, REGION_CONTIGUOUS);
  CU_ASSERT_EQUAL(s[1].mapping, REGION_SHUFFLED);
  CU_ASSERT_EQUAL(s[0].nstrides, 16); /* 4K, then 64K..1G */
  CU_ASSERT_EQUAL(s[0].strides[0], 4096);
  CU_ASSERT_EQUAL(s[0].strides[1], 65536);
  CU_ASSERT_EQUAL(s[0].strides[15], GiB);
  CU_ASSERT_EQUAL(s[2].mapping, REGION_CUDAMALLOC);
  CU_ASSERT_EQUAL(s[2].strides[1], 2 * MiB);
  CU_ASSERT_EQUAL(s[3].mapping, REGION_MANAGED);
  CU_ASSERT_EQUAL(s[3].fmax, 16 * GiB);
  CU_ASSERT_EQUAL(s[4].mapping, REGION_ALIASED);
  CU_ASSERT_EQUAL(s[4].fmax, 4096 * GiB);
  CU_ASSERT_EQUAL(s[4].nstrides, 6); /* 2M 8M 32M 128M 512M 1G */
  CU_ASSERT_EQUAL(s[4].strides[4], 512 * MiB);
  CU_ASSERT_EQUAL(s[4].strides[5], GiB);
  CU_ASSERT_EQUAL(s[5].mapping, REGION_ALIASED);
  CU_ASSERT_EQUAL(s[5].nstrides, 3); /* 48M 96M 160M: the third level's banks and sets */
  CU_ASSERT_EQUAL(s[5].strides[1], 96 * MiB);
  CU_ASSERT_EQUAL(s[5].fmin, 128 * GiB);
  /* 2 MiB stride of the 128 GiB sweep ends at exactly 128 GiB (65536 nodes). */
  gpu_sweep one = s[0];
  one.strides[0] = 2 * MiB;
  one.nstrides = 1;
  gpu_point_list l;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_sweep_points(&one, &l, &d), 0);
  CU_ASSERT_EQUAL(gpu_point_list_max_footprint(&l), 128 * GiB);
  CU_ASSERT_EQUAL(l.v[l.n - 1].nodes, 65536);
  gpu_point_list_free(&l);
  CU_ASSERT_EQUAL(gpu_full_sweeps(s, 2, 128 * GiB, 65536), 2);
}

static void test_mapping_names(void) {
  region_mapping m;
  CU_ASSERT_EQUAL(region_mapping_parse("shuffled", &m), 0);
  CU_ASSERT_EQUAL(m, REGION_SHUFFLED);
  CU_ASSERT_EQUAL(region_mapping_parse("Shuffled", &m), -1);
  CU_ASSERT_STRING_EQUAL(region_mapping_names[REGION_CUDAMALLOC], "cudamalloc");
  CU_ASSERT_EQUAL(gpu_mapping_page_bytes(REGION_MANAGED, 2 * MiB), 65536);
  CU_ASSERT_EQUAL(gpu_mapping_page_bytes(REGION_SHUFFLED, 2 * MiB), 2 * MiB);
}

/* ---- csv ---- */

static void test_summarize(void) {
  double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2};
  gpu_summary s = gpu_summarize(a, 3);
  CU_ASSERT_DOUBLE_EQUAL(s.median, 2, 0);
  CU_ASSERT_DOUBLE_EQUAL(s.min, 1, 0);
  CU_ASSERT_DOUBLE_EQUAL(s.max, 3, 0);
  s = gpu_summarize(b, 4);
  CU_ASSERT_DOUBLE_EQUAL(s.median, 2.5, 0);
}

static char *slurp(FILE *f) {
  static char buf[4096];
  rewind(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  return buf;
}

static void test_csv_row(void) {
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  gpu_chase_row r;
  memset(&r, 0, sizeof r);
  r.pattern = "chase";
  r.order = GPU_ORDER_RANDOM;
  r.mapping = REGION_SHUFFLED;
  r.page_bytes = r.stride_bytes = r.chunk_bytes = 2 * MiB;
  r.footprint_bytes = 8 * MiB;
  r.steps = 4096;
  r.cycles = (gpu_summary){500.5, 499, 510.25};
  r.ns = (gpu_summary){250.25, 250, 251};
  r.sm_clock_khz = 1980000;
  r.device = "NVIDIA H200";
  r.repeats = 5;
  r.seed = 1;
  r.nodes = 4;
  r.warmup = 1024;
  r.lanes = 1;
  r.va_base = 0x7f0000000000ull;
  r.disruptor_sm = -1;
  diag d;
  CU_ASSERT_EQUAL(gpu_csv_chase_header(f, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_chase_row(f, &r, &d), 0);
  r.pattern = "share";
  r.device = "GPU, \"x\"";
  r.disruptor_sm = 7;
  r.base_mean = 261.5;
  r.base = (gpu_summary){260, 255, 270};
  r.base_samples = 4;
  r.disruptor_footprint = 64 * GiB;
  r.disruptor_stride = 2 * MiB;
  r.population = "gpu:4";
  r.region = 3;
  CU_ASSERT_EQUAL(gpu_csv_chase_row(f, &r, &d), 0);
  const char *want =
      "pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,ns_per_access,load,"
      "sm_clock_khz,device,repeats,spread,seed,nodes,warmup,lanes,sm,chunk_bytes,skew_bytes,va_base,cycles_min,"
      "cycles_max,base_cycles,base_min,base_max,base_samples,disruptor_sm,disruptor_footprint_bytes,"
      "disruptor_stride_bytes,population,region\n"
      "chase,random,shuffled,2097152,2097152,8388608,4096,500.500,250.250,cg,1980000,NVIDIA H200,5,11.250,1,4,"
      "1024,1,0,2097152,0,0x7f0000000000,499.000,510.250,,,,,,,,,0\n"
      "share,random,shuffled,2097152,2097152,8388608,4096,500.500,250.250,cg,1980000,\"GPU, \"\"x\"\"\",5,11.250,"
      "1,4,1024,1,0,2097152,0,0x7f0000000000,499.000,510.250,261.500,255.000,270.000,4,7,68719476736,2097152,gpu:4,3\n";
  CU_ASSERT_STRING_EQUAL(slurp(f), want);
  fclose(f);
}


static void test_csv_gather_rows(void) {
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  gpu_gather_row r;
  memset(&r, 0, sizeof r);
  r.pattern = "gather";
  r.footprint_bytes = 128 * GiB;
  r.stride_bytes = 2 * MiB;
  r.nodes = 65536;
  r.threads = 270336;
  r.loads_per_thread = 256;
  r.mapping = REGION_CUDAMALLOC;
  r.loads_per_ns = (gpu_summary){6.08, 6.07, 6.09};
  r.page_bytes = 2 * MiB;
  r.sms_used = 132;
  r.threads_per_sm = 2048;
  r.block_threads = 256;
  r.blocks = 1056;
  r.max_blocks_per_sm = 8;
  r.kernel_cycles = 22449272;
  r.ns_per_launch = 11371167.5;
  r.launches = 3;
  r.repeats = 3;
  r.sm_clock_khz = 1976781;
  r.device = "NVIDIA H200";
  r.seed = 1;
  r.va_base = 0x7f3760000000ull;
  r.sm_set = "grid";
  r.span_ns = 11356480;
  r.block_cycles = 19258061;
  diag d;
  CU_ASSERT_EQUAL(gpu_csv_gather_header(f, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_gather_row(f, &r, &d), 0);
  const char *want =
      "pattern,footprint_bytes,stride_bytes,nodes,threads,loads_per_thread,mapping,loads_per_ns,page_bytes,"
      "sms_used,threads_per_sm,block_threads,blocks,kernel_cycles,ns_per_launch,launches,repeats,sm_clock_khz,"
      "device,seed,va_base,chunk_bytes,skew_bytes,sm_set,max_blocks_per_sm,loads_per_ns_min,loads_per_ns_max,"
      "span_ns,loads_per_ns_span,block_cycles,hash,batch,load\n"
      "gather,137438953472,2097152,65536,270336,256,cudamalloc,6.0800,2097152,132,2048,256,1056,22449272,"
      "11371167.5,3,3,1976781,NVIDIA H200,1,0x7f3760000000,0,0,grid,8,6.0700,6.0900,11356480,6.0940,19258061,"
      "splitmix64-v1,8,cg\n";
  CU_ASSERT_STRING_EQUAL(slurp(f), want);
  fclose(f);
}

static void test_csv_chasers_bufset_layout(void) {
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  gpu_chasers_row c;
  memset(&c, 0, sizeof c);
  c.order = GPU_ORDER_RANDOM;
  c.mapping = REGION_CUDAMALLOC;
  c.page_bytes = c.stride_bytes = 2 * MiB;
  c.footprint_bytes = 96 * GiB;
  c.steps = 4096;
  c.cycles = (gpu_summary){325.0, 293.25, 433.5};
  c.cycles_mean = 330.125;
  c.cycles_first = 304.5;
  c.ns_per_access = 164.25;
  c.loads_per_ns = 0.3986;
  c.sm_clock_khz = 1979000;
  c.device = "NVIDIA H200";
  c.repeats = 3;
  c.seed = 1;
  c.nodes = 49152;
  c.warmup = 1490;
  c.chasers = 66;
  c.per_sm = 1;
  c.sms_used = 66;
  c.sm_set = "0;1";
  c.va_base = 0x7f0000000000ull;
  diag d;
  CU_ASSERT_EQUAL(gpu_csv_chasers_header(f, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_chasers_row(f, &c, &d), 0);
  gpu_bufset_row b;
  memset(&b, 0, sizeof b);
  b.pattern = "churn-gather";
  b.set = "churned";
  b.source = "churn_near.trace";
  b.buffers = 32000;
  b.live_bytes = 55275180032ull;
  b.va_span = 73763545088ull;
  b.regions_2m = 31590;
  b.regions_32m = 2185;
  b.line_regions_2m = 15844;
  b.line_regions_32m = 2185;
  b.va_first = 0x7f0000000000ull;
  b.chase_cycles = (gpu_summary){296.875, 296.75, 297.0};
  b.chase_ns = 150.5;
  b.chase_steps = 32000;
  b.chase_warmup = 64000;
  b.chase_repeats = 3;
  b.sm_clock_khz = 1975000;
  b.seed = 1;
  b.pool_align = 512;
  b.device = "NVIDIA H200";
  CU_ASSERT_EQUAL(gpu_csv_bufset_header(f, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_bufset_row(f, &b, &d), 0); /* no gather: its columns empty */
  b.threads = 270336;
  b.threads_per_sm = 2048;
  b.loads_per_thread = 256;
  b.loads_per_ns = (gpu_summary){35.5, 35.25, 35.75};
  b.ns_per_launch = 1948000.5;
  b.launches = 3;
  CU_ASSERT_EQUAL(gpu_csv_bufset_row(f, &b, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_layout_row(f, "t", "fresh", 2, 9, 4096, 0x1000, 0x3000, &d), 0);
  const char *want =
      "pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,ns_per_access,load,"
      "sm_clock_khz,device,repeats,spread,seed,nodes,warmup,chasers,per_sm,sms_used,sm_set,cycles_min,"
      "cycles_max,cycles_mean,cycles_first,loads_per_ns,va_base\n"
      "chasers,random,cudamalloc,2097152,2097152,103079215104,4096,325.000,164.250,cg,1979000,NVIDIA H200,3,"
      "140.250,1,49152,1490,66,1,66,0;1,293.250,433.500,330.125,304.500,0.3986,0x7f0000000000\n"
      "pattern,case,source,buffers,size_bytes,live_bytes,va_span_bytes,regions_2m,regions_32m,line_regions_2m,"
      "line_regions_32m,va_first,chase_cycles,chase_ns,chase_spread,chase_steps,chase_repeats,chase_warmup,"
      "chase_sm,sm_clock_khz,threads,threads_per_sm,loads_per_thread,loads_per_ns,loads_per_ns_min,"
      "loads_per_ns_max,ns_per_launch,launches,seed,hash,pool_align,device\n"
      "churn-gather,churned,churn_near.trace,32000,0,55275180032,73763545088,31590,2185,15844,2185,"
      "0x7f0000000000,296.875,150.500,0.250,32000,3,64000,0,1975000,,,,,,,,,1,splitmix64-v1,512,NVIDIA H200\n"
      "churn-gather,churned,churn_near.trace,32000,0,55275180032,73763545088,31590,2185,15844,2185,"
      "0x7f0000000000,296.875,150.500,0.250,32000,3,64000,0,1975000,270336,2048,256,35.5000,35.2500,35.7500,"
      "1948000.5,3,1,splitmix64-v1,512,NVIDIA H200\n"
      "t,fresh,2,9,4096,-8192\n";
  CU_ASSERT_STRING_EQUAL(slurp(f), want);
  fclose(f);
}

/* ---- churn plan ---- */

static void test_churn_small_plan(void) {
  gpu_churn_spec s = {5, 3, 2, 1024, 4096};
  gpu_churn_op *ops;
  size_t n;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_churn_plan(&s, &ops, &n, &d), 0);
  /* alloc 0, alloc 1, free j, alloc j, free 0, free 1 */
  CU_ASSERT_EQUAL_FATAL(n, 6);
  CU_ASSERT(ops[0].kind == GPU_CHURN_ALLOC && ops[0].slot == 0);
  CU_ASSERT(ops[1].kind == GPU_CHURN_ALLOC && ops[1].slot == 1);
  CU_ASSERT(ops[2].kind == GPU_CHURN_FREE && ops[2].slot < 2);
  CU_ASSERT(ops[3].kind == GPU_CHURN_ALLOC && ops[3].slot == ops[2].slot);
  CU_ASSERT(ops[4].kind == GPU_CHURN_FREE && ops[4].slot == 0);
  CU_ASSERT(ops[5].kind == GPU_CHURN_FREE && ops[5].slot == 1);
  free(ops);
}

static void test_churn_invariants(void) {
  gpu_churn_spec s = {11, 2000, 16, 1000, 1000000};
  gpu_churn_op *a, *b;
  size_t na, nb;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_churn_plan(&s, &a, &na, &d), 0);
  CU_ASSERT_EQUAL(na, 4000);
  unsigned char used[16] = {0};
  size_t allocs = 0, frees = 0, small = 0;
  int ok = 1;
  for (size_t i = 0; i < na; i++) {
    if (a[i].slot >= 16) ok = 0;
    else if (a[i].kind == GPU_CHURN_ALLOC) {
      ok &= !used[a[i].slot] && a[i].size >= 1000 && a[i].size <= 1000000;
      small += a[i].size < 31623; /* below the geometric middle */
      used[a[i].slot] = 1;
      allocs++;
    } else {
      ok &= used[a[i].slot];
      used[a[i].slot] = 0;
      frees++;
    }
  }
  CU_ASSERT(ok);
  CU_ASSERT_EQUAL(allocs, 2000);
  CU_ASSERT_EQUAL(frees, 2000);
  CU_ASSERT(small > 900 && small < 1100); /* log-uniform: half below sqrt(lo*hi) */
  CU_ASSERT_EQUAL_FATAL(gpu_churn_plan(&s, &b, &nb, &d), 0);
  CU_ASSERT_EQUAL(memcmp(a, b, na * sizeof *a), 0);
  free(b);
  s.seed = 12;
  CU_ASSERT_EQUAL_FATAL(gpu_churn_plan(&s, &b, &nb, &d), 0);
  CU_ASSERT_NOT_EQUAL(memcmp(a, b, na * sizeof *a), 0);
  free(a);
  free(b);
  s.live = 0;
  CU_ASSERT_EQUAL(gpu_churn_plan(&s, &a, &na, &d), -1);
  s = (gpu_churn_spec){1, 10, 4, 100, 10};
  CU_ASSERT_EQUAL(gpu_churn_plan(&s, &a, &na, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "churn: size range 100..10 is empty");
}

/* ---- user pool ---- */

typedef struct fake_backend {
  uint64_t next;
  int allocs, frees, fail;
} fake_backend;

static int fake_alloc(void *ctx, uint64_t bytes, uint64_t *addr) {
  fake_backend *f = ctx;
  if (f->fail) return -1;
  *addr = f->next;
  f->next += bytes;
  f->allocs++;
  return 0;
}

static int fake_free(void *ctx, uint64_t addr) {
  (void)addr;
  ((fake_backend *)ctx)->frees++;
  return 0;
}

static void test_pool_classes(void) {
  CU_ASSERT_EQUAL(gpu_pool_class_bytes(1), 512);
  CU_ASSERT_EQUAL(gpu_pool_class_bytes(512), 512);
  CU_ASSERT_EQUAL(gpu_pool_class_bytes(513), 1024);
  CU_ASSERT_EQUAL(gpu_pool_class_bytes(4096), 4096);
  CU_ASSERT_EQUAL(gpu_pool_class_bytes(4097), 8192);
}

static void test_pool_reuse(void) {
  fake_backend fb = {0x1000, 0, 0, 0};
  diag d;
  gpu_pool *p = gpu_pool_new(fake_alloc, fake_free, &fb, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  uint64_t a, b, c;
  CU_ASSERT_EQUAL(gpu_pool_get(p, 1000, &a, &d), 0); /* class 1024 from the backend */
  CU_ASSERT_EQUAL(a, 0x1000);
  CU_ASSERT_EQUAL(gpu_pool_put(p, a, 1000, &d), 0);
  CU_ASSERT_EQUAL(gpu_pool_get(p, 600, &b, &d), 0); /* same class: reused */
  CU_ASSERT_EQUAL(b, 0x1000);
  CU_ASSERT_EQUAL(gpu_pool_get(p, 2000, &c, &d), 0); /* class 2048: new */
  CU_ASSERT_EQUAL(c, 0x1400);
  gpu_pool_stats s = gpu_pool_get_stats(p);
  CU_ASSERT_EQUAL(s.backend_allocs, 2);
  CU_ASSERT_EQUAL(s.hits, 1);
  CU_ASSERT_EQUAL(s.reserved_bytes, 3072);
  CU_ASSERT_EQUAL(s.peak_reserved_bytes, 3072);
  CU_ASSERT_EQUAL(gpu_pool_put(p, b, 600, &d), 0);
  CU_ASSERT_EQUAL(gpu_pool_put(p, c, 2000, &d), 0);
  CU_ASSERT_EQUAL(gpu_pool_release(p, &d), 0);
  s = gpu_pool_get_stats(p);
  CU_ASSERT_EQUAL(s.backend_frees, 2);
  CU_ASSERT_EQUAL(s.reserved_bytes, 0);
  CU_ASSERT_EQUAL(s.peak_reserved_bytes, 3072);
  CU_ASSERT_EQUAL(fb.frees, 2);
  fb.fail = 1;
  CU_ASSERT_EQUAL(gpu_pool_get(p, 100, &a, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "pool: backend failed to allocate 512 bytes");
  gpu_pool_free(p);
}


/* ---- gather ---- */

static void test_gather_hash_matches_model(void) {
  /* From a separate Python implementation of the formula in gpu_gather.h. */
  static const uint32_t t0[4] = {28280, 48875, 49096, 45894}, t12345[4] = {88, 387, 358, 886};
  for (uint32_t j = 0; j < 4; j++) {
    CU_ASSERT_EQUAL(gpu_gather_node(1, 0, j, 65536), t0[j]);
    CU_ASSERT_EQUAL(gpu_gather_node(1, 12345, j, 1000), t12345[j]);
  }
  CU_ASSERT_EQUAL(gpu_gather_node(7, 270335, 255, 65536), 55532);
  CU_ASSERT_EQUAL(gpu_gather_node(0, 0, 0, 1), 0);
  CU_ASSERT_EQUAL(gpu_gather_node(UINT64_MAX, 5, 3, UINT32_MAX), 2602630076u);
  CU_ASSERT_EQUAL(gpu_gather_thread_sum(1, 77, 256, 65536), 8322649);
  /* Every node index is in range, and a different seed moves the loads. */
  int moved = 0;
  for (uint32_t j = 0; j < 1000; j++) {
    CU_ASSERT(gpu_gather_node(3, j, j, 17) < 17);
    moved += gpu_gather_node(1, 9, j, 65536) != gpu_gather_node(2, 9, j, 65536);
  }
  CU_ASSERT(moved > 990);
}

static void test_gather_points(void) {
  const uint64_t fp[] = {256 * MiB, 128 * GiB, 128 * GiB + 1}, nodes[] = {65536, 262144};
  gpu_gather_plan p = {fp, 3, nodes, 2, 0, 128};
  gpu_gather_point_list l;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_gather_points(&p, &l, &d), 0);
  CU_ASSERT_EQUAL_FATAL(l.n, 4); /* the third footprint repeats the second's strides */
  CU_ASSERT_EQUAL(l.v[0].stride, 4096);
  CU_ASSERT_EQUAL(l.v[0].footprint, 256 * MiB);
  CU_ASSERT_EQUAL(l.v[1].stride, 1024);
  CU_ASSERT_EQUAL(l.v[2].stride, 2 * MiB);
  CU_ASSERT_EQUAL(l.v[3].nodes, 262144);
  gpu_gather_point_list_free(&l);
  /* Rounded down to the line: 1000 nodes over 1 MiB -> 1048 -> 1024 bytes. */
  CU_ASSERT_EQUAL(gpu_gather_stride(1 * MiB, 1000, 128), 1024);
  CU_ASSERT_EQUAL(gpu_gather_stride(64 * MiB, 65536, 2 * MiB), 0);
  /* Aliased: strides below the chunk are skipped and counted. */
  p.align = 2 * MiB;
  CU_ASSERT_EQUAL_FATAL(gpu_gather_points(&p, &l, &d), 0);
  CU_ASSERT_EQUAL(l.n, 1);
  CU_ASSERT_EQUAL(l.skipped, 4);
  gpu_gather_point_list_free(&l);
  /* A fixed stride ignores the footprints. */
  gpu_gather_plan q = {NULL, 0, nodes, 1, 8192, 128};
  CU_ASSERT_EQUAL_FATAL(gpu_gather_points(&q, &l, &d), 0);
  CU_ASSERT_EQUAL(l.n, 1);
  CU_ASSERT_EQUAL(l.v[0].footprint, 65536ull * 8192);
  gpu_gather_point_list_free(&l);
  q.stride = 1000;
  CU_ASSERT_EQUAL(gpu_gather_points(&q, &l, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "gather: stride 1000 is not a multiple of 128");
  q.nnodes = 0;
  CU_ASSERT_EQUAL(gpu_gather_points(&q, &l, &d), -1);
  uint64_t v[64];
  CU_ASSERT_EQUAL(gpu_footprint_range(256 * MiB, 128 * GiB, 2, v, 64), 19);
  CU_ASSERT_EQUAL(v[1], 379625062); /* 256 MiB * sqrt 2, rounded */
  CU_ASSERT_EQUAL(v[18], 128 * GiB);
}

static void test_gather_shapes(void) {
  gpu_gather_shape s;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_gather_shape_per_sm(32, 132, &s, &d), 0);
  CU_ASSERT_EQUAL(s.block_threads, 32);
  CU_ASSERT_EQUAL(s.blocks, 132);
  CU_ASSERT_EQUAL(s.threads, 4224);
  CU_ASSERT_EQUAL_FATAL(gpu_gather_shape_per_sm(2048, 6, &s, &d), 0);
  CU_ASSERT_EQUAL(s.block_threads, 256);
  CU_ASSERT_EQUAL(s.per_sm, 8);
  CU_ASSERT_EQUAL(s.blocks, 48);
  CU_ASSERT_EQUAL(gpu_gather_shape_per_sm(384, 1, &s, &d), -1); /* above 256: multiples of 256 */
  CU_ASSERT_EQUAL(gpu_gather_shape_per_sm(48, 1, &s, &d), -1);
  CU_ASSERT_EQUAL(gpu_gather_shape_per_sm(4096, 1, &s, &d), -1);
  CU_ASSERT_EQUAL_FATAL(gpu_gather_shape_total(270336, &s, &d), 0);
  CU_ASSERT_EQUAL(s.blocks, 1056);
  CU_ASSERT_EQUAL(gpu_gather_shape_total(4224, &s, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "gather: 4224 threads is not a positive multiple of 256");
}

static void test_sm_sets(void) {
  gpu_sm_set sets[GPU_MAX_SM_SETS];
  size_t n;
  char buf[256];
  CU_ASSERT_EQUAL_FATAL(gpu_sm_sets_parse("grid/0,1,48-49,128/all", sets, GPU_MAX_SM_SETS, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT_EQUAL(sets[0].kind, GPU_SMS_GRID);
  CU_ASSERT_EQUAL(sets[1].kind, GPU_SMS_LIST);
  CU_ASSERT_EQUAL(gpu_sm_set_count(&sets[1], 132), 5);
  CU_ASSERT_EQUAL(gpu_sm_set_count(&sets[1], 100), 4); /* SM 128 is not on such a device */
  CU_ASSERT(gpu_sm_set_has(&sets[1], 49) && !gpu_sm_set_has(&sets[1], 50));
  CU_ASSERT_STRING_EQUAL(gpu_sm_set_name(&sets[1], buf, sizeof buf), "0;1;48;49;128");
  CU_ASSERT_STRING_EQUAL(gpu_sm_set_name(&sets[2], buf, sizeof buf), "all");
  CU_ASSERT_EQUAL(gpu_sm_set_count(&sets[2], 132), 132);
  CU_ASSERT_EQUAL(gpu_sm_sets_parse("3-1", sets, GPU_MAX_SM_SETS, &n), -1);
  CU_ASSERT_EQUAL(gpu_sm_sets_parse("0,256", sets, GPU_MAX_SM_SETS, &n), -1);
  CU_ASSERT_EQUAL(gpu_sm_sets_parse("0//1", sets, GPU_MAX_SM_SETS, &n), 0); /* empty sets are skipped */
  CU_ASSERT_EQUAL(gpu_sm_sets_parse("x", sets, GPU_MAX_SM_SETS, &n), -1);
  CU_ASSERT_EQUAL(gpu_sm_sets_parse("0/1/2", sets, 2, &n), -1);
}

/* ---- buffer sets ---- */

static void test_bufset_stats(void) {
  /* Two buffers in one 2 MiB region, one spanning three, one far away. */
  const uint64_t base = 0x7f0000000000ull;
  const uint64_t va[] = {base + 4096, base, base + 2 * MiB - 512, base + 40 * MiB};
  const uint64_t size[] = {64 << 10, 512, 3 * MiB, 1};
  gpu_bufset_stats st;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_bufset_stats_of(va, size, 4, &st, &d), 0);
  CU_ASSERT_EQUAL(st.buffers, 4);
  CU_ASSERT_EQUAL(st.live_bytes, (64 << 10) + 512 + 3 * MiB + 1);
  CU_ASSERT_EQUAL(st.va_min, base);
  CU_ASSERT_EQUAL(st.va_span, 40 * MiB + 1);
  CU_ASSERT_EQUAL(st.regions_2m, 4);      /* [0,2M) [2M,4M) [4M,6M) [40M,42M) */
  CU_ASSERT_EQUAL(st.regions_32m, 2);
  CU_ASSERT_EQUAL(st.line_regions_2m, 2); /* first lines: region 0 thrice, region 20 */
  CU_ASSERT_EQUAL(st.line_regions_32m, 2);
  const uint64_t wrap_va[] = {UINT64_MAX - 10}, wrap_size[] = {100};
  CU_ASSERT_EQUAL(gpu_bufset_stats_of(wrap_va, wrap_size, 1, &st, &d), -1);
  CU_ASSERT_EQUAL(gpu_bufset_stats_of(va, size, 0, &st, &d), -1);
}

static void test_pool_carve(void) {
  const uint64_t size[] = {1, 512, 513, 64 << 10};
  uint64_t off[4], total;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_pool_carve(size, 4, GPU_POOL_CARVE_ALIGN, off, &total, &d), 0);
  CU_ASSERT_EQUAL(off[0], 0);
  CU_ASSERT_EQUAL(off[1], 512);
  CU_ASSERT_EQUAL(off[2], 1024);
  CU_ASSERT_EQUAL(off[3], 2048);
  CU_ASSERT_EQUAL(total, 2048 + (64 << 10));
  CU_ASSERT_EQUAL(gpu_pool_carve(size, 4, 384, off, &total, &d), -1);
  const uint64_t huge[] = {UINT64_MAX - 100, 4096};
  CU_ASSERT_EQUAL(gpu_pool_carve(huge, 2, 512, off, &total, &d), -1);
}

/* ---- alloc/free traces ---- */

static int read_text(const char *text, gpu_trace *t, diag *d) {
  trace_reader *r = trace_open_memory("t.trace", text, strlen(text), TRACE_NATIVE, d);
  if (!r) return -2;
  int rc = gpu_trace_read(r, t, d);
  trace_close(r);
  return rc;
}

/* One line's record (the trace module's grammar) as churn takes it. */
static void test_trace_lines(void) {
  gpu_trace t;
  diag d;
  static const struct {
    const char *text;
    uint64_t id, size;
  } good[] = {
      {"alloc 7 64K", 7, 64 << 10},
      {" \talloc 0x10 4096  # done", 16, 4096},
      {"#tlbsim-trace 1\r\n   # a comment\n\nalloc 1 2MiB\r\n", 1, 2 * MiB},
      {"alloc 1 0x1000", 1, 4096},
      {"alloc 1 1G stream=0 kind=device", 1, 1ull << 30}, /* the defaults: what cudaMalloc does */
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    CU_ASSERT_EQUAL_FATAL(read_text(good[i].text, &t, &d), 0);
    CU_ASSERT_EQUAL_FATAL(t.nops, 1);
    CU_ASSERT(t.ops[0].kind == GPU_TRACE_ALLOC && t.ops[0].id == good[i].id && t.ops[0].size == good[i].size);
    gpu_trace_free(&t);
  }
  CU_ASSERT_EQUAL_FATAL(read_text("\n\n\nalloc 7 64K\nfree 7 # gone\n", &t, &d), 0);
  CU_ASSERT(t.nops == 2 && t.ops[1].kind == GPU_TRACE_FREE && t.ops[1].id == 7 && t.ops[1].line == 5);
  CU_ASSERT_EQUAL(t.ops[0].line, 4);
  gpu_trace_free(&t);
  static const struct {
    const char *line, *msg;
  } bad[] = {
      {"#tlbsim-trace 2", "t.trace:1: unsupported trace version '2' (tlbsim reads 1)"},
      {"r @1+8 8", "t.trace:1: record 'r' is not supported here (churn-gather replays alloc and free only)"},
      {"w 0x10 8", "t.trace:1: record 'w' is not supported here (churn-gather replays alloc and free only)"},
      {"map 0x1000 4K", "t.trace:1: record 'map' is not supported here (churn-gather replays alloc and free only)"},
      {"ctx 1", "t.trace:1: record 'ctx' is not supported here (churn-gather replays alloc and free only)"},
      {"alloc 1 4K align=4K", "t.trace:1: option 'align=' is not supported here (churn-gather replays plain cudaMalloc and cudaFree)"},
      {"alloc 1 4K stream=2", "t.trace:1: option 'stream=' is not supported here (churn-gather replays plain cudaMalloc and cudaFree)"},
      {"alloc 1 4K kind=managed", "t.trace:1: option 'kind=' is not supported here (churn-gather replays plain cudaMalloc and cudaFree)"},
      {"alloc 1 4K t=5", "t.trace:1: option 't=' is not supported here (churn-gather replays plain cudaMalloc and cudaFree)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CU_ASSERT_EQUAL(read_text(bad[i].line, &t, &d), -1);
    CU_ASSERT_STRING_EQUAL(d.msg, bad[i].msg);
  }
  /* The grammar's own errors are the reader's, at their line. */
  static const char *const grammar[] = {"malloc 1 4K", "alloc 1", "alloc", "alloc x 4K", "alloc 1 4Q", "alloc 1 0",
                                        "free 1 2"};
  for (size_t i = 0; i < sizeof grammar / sizeof grammar[0]; i++) {
    CU_ASSERT_EQUAL(read_text(grammar[i], &t, &d), -1);
    CU_ASSERT_EQUAL(strncmp(d.msg, "t.trace:1: ", 11), 0);
  }
}

/* The committed churn trace, gzip-compressed, read as it is: the numbers
 * traces/churn/README.md gives (8 000 alive of 24 000 allocated), the live
 * bytes and order counted from the trace by hand (zcat | awk). */
static void test_trace_gzip(void) {
  gpu_trace t;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_trace_load(TLBSIM_SOURCE_DIR "/traces/churn/churn_below.trace.gz", &t, &d), 0);
  CU_ASSERT_EQUAL(t.nops, 40000);
  CU_ASSERT_EQUAL(t.allocs, 24000);
  CU_ASSERT_EQUAL(t.frees, 16000);
  CU_ASSERT_EQUAL(t.slots, 8000);
  CU_ASSERT_EQUAL(t.peak_live_bytes, 13781671936ull);
  CU_ASSERT_EQUAL_FATAL(t.nlive, 8000);
  uint64_t live = 0;
  for (size_t i = 0; i < t.nlive; i++) live += t.live[i].size;
  CU_ASSERT_EQUAL(live, 13621120000ull);
  CU_ASSERT(t.live[0].id == 9 && t.live[0].size == 262144);
  CU_ASSERT(t.live[7999].id == 24000 && t.live[7999].size == 5208064);
  gpu_trace_free(&t);
  CU_ASSERT_EQUAL(gpu_trace_load("no/such.trace", &t, &d), -1);
  CU_ASSERT_EQUAL(strncmp(d.msg, "no/such.trace", 13), 0);
}

static void test_trace_plan(void) {
  gpu_trace t;
  diag d;
  const char *text = "#tlbsim-trace 1\r\n"
                     "alloc 10 64K\n"
                     "alloc 11 1M\n"
                     "alloc 12 4K\n"
                     "free 11\n"
                     "alloc 13 2M   # takes 11's slot\n"
                     "free 10\n"
                     "alloc 10 8K\n"; /* an ID may come back once freed */
  CU_ASSERT_EQUAL_FATAL(read_text(text, &t, &d), 0);
  CU_ASSERT_EQUAL(t.nops, 7);
  CU_ASSERT_EQUAL(t.allocs, 5);
  CU_ASSERT_EQUAL(t.frees, 2);
  CU_ASSERT_EQUAL(t.slots, 3);
  CU_ASSERT_EQUAL(t.peak_live_bytes, (64 << 10) + 4096 + 2 * MiB); /* after alloc 13 */
  CU_ASSERT_EQUAL(t.ops[4].slot, t.ops[1].slot);
  CU_ASSERT_EQUAL(t.ops[3].slot, t.ops[1].slot);
  CU_ASSERT_EQUAL_FATAL(t.nlive, 3);
  /* In allocation order: 12 (line 4), 13 (line 6), 10 (line 8). */
  CU_ASSERT(t.live[0].id == 12 && t.live[0].size == 4096 && t.live[0].line == 4);
  CU_ASSERT(t.live[1].id == 13 && t.live[1].size == 2 * MiB);
  CU_ASSERT(t.live[2].id == 10 && t.live[2].size == 8192 && t.live[2].line == 8);
  gpu_trace_free(&t);
  CU_ASSERT_EQUAL(read_text("alloc 1 4K\nalloc 2 4K\nalloc 1 8K\n", &t, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:3: alloc of ID 1, which is live (allocated at line 1)");
  CU_ASSERT_EQUAL(read_text("alloc 1 4K\n\nfree 2\n", &t, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "t.trace:3: free of ID 2, which is not live");
  CU_ASSERT_EQUAL(read_text("alloc 1 4K\nw 0x10 8\n", &t, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.trace:2: record 'w'"));
  CU_ASSERT_EQUAL(read_text("", &t, &d), 0);
  CU_ASSERT_EQUAL(t.nlive, 0);
  gpu_trace_free(&t);
}

static void test_trace_many_ids(void) {
  /* Enough IDs to grow the ID table several times, freed in an order that
   * exercises deletion in the middle of probe runs. */
  size_t cap = 1 << 20, used = 0;
  char *text = malloc(cap);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  for (unsigned i = 0; i < 5000; i++) used += (size_t)snprintf(text + used, cap - used, "alloc %u 4K\n", i * 7919u);
  for (unsigned i = 0; i < 5000; i += 2) used += (size_t)snprintf(text + used, cap - used, "free %u\n", i * 7919u);
  gpu_trace t;
  diag d;
  CU_ASSERT_EQUAL_FATAL(read_text(text, &t, &d), 0);
  CU_ASSERT_EQUAL(t.nlive, 2500);
  CU_ASSERT_EQUAL(t.slots, 5000);
  CU_ASSERT_EQUAL(t.live[0].id, 7919u);
  CU_ASSERT_EQUAL(t.live[2499].id, 4999u * 7919u);
  gpu_trace_free(&t);
  free(text);
}

/* ---- options ---- */

static int parse(gpu_opts *o, diag *d, int argc, const char **argv) { return gpu_opts_parse(argc, (char **)argv, o, d); }

static void test_opts_chase(void) {
  gpu_opts o;
  diag d;
  const char *a[] = {"tlbsim-gpu", "chase", "--stride", "64K..1M", "--order", "random", "--mapping",
                     "shuffled,contiguous", "--fmax=4G", "--lanes", "32", "--load", "ca"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 13, a), 0);
  CU_ASSERT_EQUAL(o.cmd, GPU_CMD_CHASE);
  CU_ASSERT_EQUAL(o.sweep.nstrides, 5);
  CU_ASSERT_EQUAL(o.sweep.strides[4], MiB);
  CU_ASSERT_EQUAL(o.sweep.orders, 1u << GPU_ORDER_RANDOM);
  CU_ASSERT_EQUAL(o.mappings, (1u << REGION_SHUFFLED) | (1u << REGION_CONTIGUOUS));
  CU_ASSERT_EQUAL(o.sweep.fmax, 4 * GiB);
  CU_ASSERT_EQUAL(o.lanes, 32);
  CU_ASSERT_EQUAL(o.load_ca, 1);
  CU_ASSERT_EQUAL(o.repeats, 7);
  CU_ASSERT_EQUAL(o.steps, 8192);
  CU_ASSERT_EQUAL(o.sweep.max_nodes, 65536);
}

static void test_opts_errors(void) {
  gpu_opts o;
  diag d;
  const char *a[] = {"tlbsim-gpu", "chase", "--stride", "x"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, a), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: --stride: bad size list 'x'");
  const char *b[] = {"tlbsim-gpu", "alloc-churn", "--stride", "2M"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, b), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: alloc-churn: option --stride does not apply");
  const char *c[] = {"tlbsim-gpu", "chase", "--lanes", "3"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, c), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: --lanes: bad lane count '3'");
  const char *e[] = {"tlbsim-gpu", "chase", "--steps"};
  CU_ASSERT_EQUAL(parse(&o, &d, 3, e), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: --steps: missing value");
  const char *f[] = {"tlbsim-gpu", "full"};
  CU_ASSERT_EQUAL(parse(&o, &d, 2, f), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: full: --outdir is required");
  const char *g[] = {"tlbsim-gpu", "frobnicate"};
  CU_ASSERT_EQUAL(parse(&o, &d, 2, g), -1);
  const char *h[] = {"tlbsim-gpu", "chase", "--order", "seq,sideways"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, h), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: --order: bad order list 'seq,sideways'");
  const char *i[] = {"tlbsim-gpu", "chase", "--bogus", "1"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, i), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: unknown option '--bogus'");
}

static void test_opts_command_defaults(void) {
  gpu_opts o;
  diag d;
  const char *a[] = {"tlbsim-gpu", "--smoke"};
  CU_ASSERT_EQUAL(parse(&o, &d, 2, a), 0);
  CU_ASSERT_EQUAL(o.cmd, GPU_CMD_SMOKE);
  const char *b[] = {"tlbsim-gpu", "share", "--sms", "0,1,66"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 4, b), 0);
  CU_ASSERT_EQUAL(o.nsms, 3);
  CU_ASSERT_EQUAL(o.sms[2], 66);
  CU_ASSERT_EQUAL(o.repeats, 3);
  CU_ASSERT_EQUAL(o.sweep.nfootprints, 7);
  CU_ASSERT_EQUAL(o.sweep.footprints[0], 8 * MiB);
  gpu_opts_defaults(&o, GPU_CMD_ALLOC_LATENCY);
  CU_ASSERT_EQUAL(o.repeats, 20);
  CU_ASSERT_EQUAL(o.max_size, 16 * GiB);
  gpu_opts_defaults(&o, GPU_CMD_ALLOC_CHURN);
  CU_ASSERT_EQUAL(o.min_size, 1024);
  CU_ASSERT_EQUAL(o.max_size, 32 * MiB);
  CU_ASSERT_EQUAL(o.requests, 10000);
  const char *c[] = {"tlbsim-gpu", "chase", "--help"};
  CU_ASSERT_EQUAL(parse(&o, &d, 3, c), 0);
  CU_ASSERT_EQUAL(o.cmd, GPU_CMD_HELP);
  CU_ASSERT_PTR_NOT_NULL(strstr(gpu_usage, "shuffled"));
}


static void test_opts_gather(void) {
  gpu_opts o;
  diag d;
  const char *a[] = {"tlbsim-gpu", "gather", "--mapping", "cudamalloc,aliased", "--threads-per-sm", "32..2048",
                     "--sm-sets", "grid/0,1", "--loads-per-thread", "64"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 10, a), 0);
  CU_ASSERT_EQUAL(o.cmd, GPU_CMD_GATHER);
  CU_ASSERT_EQUAL(o.ntps, 7);
  CU_ASSERT_EQUAL(o.tps[6], 2048);
  CU_ASSERT_EQUAL(o.nsm_sets, 2);
  CU_ASSERT_EQUAL(o.loads, 64);
  CU_ASSERT_EQUAL(o.nnodes, 1);
  CU_ASSERT_EQUAL(o.nodes[0], 65536);
  CU_ASSERT_EQUAL(o.sweep.fmin, 256 * MiB);
  CU_ASSERT_EQUAL(o.sweep.per_octave, 2);
  CU_ASSERT_EQUAL(o.repeats, 3);
  CU_ASSERT_EQUAL(o.gather_stride, 0);
  CU_ASSERT(gpu_opts_given(&o, "loads-per-thread") && !gpu_opts_given(&o, "steps"));
  const char *b[] = {"tlbsim-gpu", "gather", "--stride", "8K", "--nodes", "4096,16384"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 6, b), 0);
  CU_ASSERT_EQUAL(o.gather_stride, 8192);
  CU_ASSERT_EQUAL(o.nnodes, 2);
  CU_ASSERT_EQUAL(o.ntps, 1);
  CU_ASSERT_EQUAL(o.tps[0], 2048);
  CU_ASSERT_EQUAL(o.sm_sets[0].kind, GPU_SMS_GRID);
  static const struct {
    int argc;
    const char *argv[6];
    const char *msg;
  } bad[] = {
      {4, {"tlbsim-gpu", "gather", "--loads-per-thread", "12"},
       "tlbsim-gpu: --loads-per-thread: bad number (a multiple of 8 up to 2^20) '12'"},
      {6, {"tlbsim-gpu", "gather", "--stride", "8K", "--footprint", "1G"},
       "tlbsim-gpu: gather: --stride fixes the footprint (nodes * stride); drop --footprint"},
      {6, {"tlbsim-gpu", "gather", "--threads", "4096", "--sm-sets", "0"},
       "tlbsim-gpu: gather: --threads needs the grid SM set; use --threads-per-sm"},
      {4, {"tlbsim-gpu", "gather", "--sm-sets", "0-300"}, "tlbsim-gpu: --sm-sets: bad SM set list '0-300'"},
      {4, {"tlbsim-gpu", "gather", "--threads-per-sm", "4096"}, "tlbsim-gpu: --threads-per-sm: bad number list '4096'"},
      {4, {"tlbsim-gpu", "gather", "--lanes", "32"}, "tlbsim-gpu: gather: option --lanes does not apply"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CU_ASSERT_EQUAL(parse(&o, &d, bad[i].argc, (const char **)bad[i].argv), -1);
    CU_ASSERT_STRING_EQUAL(d.msg, bad[i].msg);
  }
}

static void test_opts_chasers_bufs(void) {
  gpu_opts o;
  diag d;
  const char *a[] = {"tlbsim-gpu", "chasers", "--sm-sets", "0/all", "--per-sm", "1,4,16,32"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 6, a), 0);
  CU_ASSERT_EQUAL(o.nper_sm, 4);
  CU_ASSERT_EQUAL(o.sweep.orders, 1u << GPU_ORDER_RANDOM);
  CU_ASSERT_EQUAL(o.sweep.nfootprints, 4);
  CU_ASSERT_EQUAL(o.sweep.footprints[2], 96 * GiB);
  const char *b[] = {"tlbsim-gpu", "chasers", "--sm-sets", "grid"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, b), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: chasers: name the SMs (a list or all), not grid");
  const char *c[] = {"tlbsim-gpu", "chasers"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 2, c), 0);
  CU_ASSERT_EQUAL(o.nsm_sets, 1);
  CU_ASSERT_EQUAL(gpu_sm_set_count(&o.sm_sets[0], 132), 1); /* SM 0 */
  const char *e[] = {"tlbsim-gpu", "smallbufs", "--sizes", "4K,64K", "--buffers", "100", "--layout", "l.csv"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 8, e), 0);
  CU_ASSERT_EQUAL(o.nsizes, 2);
  CU_ASSERT_EQUAL(o.buffers, 100);
  CU_ASSERT_STRING_EQUAL(o.layout, "l.csv");
  const char *f[] = {"tlbsim-gpu", "churn-gather", "--threads-per-sm", "256", "x.trace", "--out", "o.csv"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 7, f), 0);
  CU_ASSERT_STRING_EQUAL(o.trace, "x.trace");
  CU_ASSERT_EQUAL(o.tps[0], 256);
  const char *g[] = {"tlbsim-gpu", "churn-gather"};
  CU_ASSERT_EQUAL(parse(&o, &d, 2, g), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: churn-gather: no TRACE given");
  const char *h[] = {"tlbsim-gpu", "churn-gather", "a.trace", "b.trace"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, h), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: unexpected argument 'b.trace'");
}

static void test_size_list(void) {
  uint64_t v[8];
  size_t n;
  CU_ASSERT_EQUAL(gpu_size_list_parse("4K,2M,64K..256K", v, 8, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 5);
  CU_ASSERT_EQUAL(v[0], 4096);
  CU_ASSERT_EQUAL(v[1], 2 * MiB);
  CU_ASSERT_EQUAL(v[4], 256 << 10);
  CU_ASSERT_EQUAL(gpu_size_list_parse("1M..64K", v, 8, &n), -1);
  CU_ASSERT_EQUAL(gpu_size_list_parse("4K..1G", v, 8, &n), -1); /* 19 entries > 8 */
  CU_ASSERT_EQUAL(gpu_size_list_parse(",", v, 8, &n), -1);
}

/* tlbsim-gpu capture's command line: the trace required and never
 * overwritten, made absolute; the library found or named; the program after --. */
static void test_capture_parse(void) {
  gpu_capture_plan p;
  diag d;
  char *none[] = {"capture", "--", "prog", NULL};
  CU_ASSERT_EQUAL(gpu_capture_parse(3, none, NULL, &p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "capture: -o OUT.trace is required");
  char *noprog[] = {"capture", "-o", "x.trace", "--", NULL};
  CU_ASSERT_EQUAL(gpu_capture_parse(4, noprog, NULL, &p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "capture: no program: put it after --");
  char *odd[] = {"capture", "-o", "x.trace", "prog", NULL};
  CU_ASSERT_EQUAL(gpu_capture_parse(4, odd, NULL, &p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "capture: unknown option 'prog' (the program goes after --)");
  char *exists[] = {"capture", "-o", "/", "--lib", "/bin/sh", "--", "prog", NULL};
  CU_ASSERT_EQUAL(gpu_capture_parse(7, exists, NULL, &p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "capture: / exists: a capture does not overwrite a file");
  char *nolib[] = {"capture", "-o", "tlbsim-no-such.trace", "--lib", "/no/such.so", "--", "prog", NULL};
  CU_ASSERT_EQUAL(gpu_capture_parse(7, nolib, NULL, &p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "capture: /no/such.so: No such file or directory");
  char *unfound[] = {"capture", "-o", "tlbsim-no-such.trace", "--", "prog", NULL};
  unsetenv("TLBSIM_CAPTURE_LIB");
  CU_ASSERT_EQUAL(gpu_capture_parse(5, unfound, "/no/where/tlbsim-gpu", &p, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "give --lib"));
  char *good[] = {"capture", "-o", "tlbsim-no-such.trace", "--lib", "/bin/sh", "--", "prog", "-x", NULL};
  CU_ASSERT_EQUAL_FATAL(gpu_capture_parse(8, good, NULL, &p, &d), 0);
  CU_ASSERT_EQUAL(p.out[0], '/');
  CU_ASSERT_PTR_NOT_NULL(strstr(p.out, "/tlbsim-no-such.trace"));
  CU_ASSERT_STRING_EQUAL(p.lib, "/bin/sh");
  CU_ASSERT_STRING_EQUAL(p.argv[0], "prog");
  CU_ASSERT_STRING_EQUAL(p.argv[1], "-x");
  CU_ASSERT_PTR_NULL(p.argv[2]);
}

int main(void) {
  static const test_case chain[] = {{"permute matches model", test_permute_matches_model},
                                    {"seq and random chains", test_chain_seq_and_random},
                                    {"skew and errors", test_chain_skew_and_errors},
                                    {"positions", test_chain_positions},
                                    {NULL, NULL}};
  static const test_case plan[] = {{"quarter octaves", test_plan_quarter_octaves},
                                   {"half octaves and node cap", test_plan_half_octaves_and_cap},
                                   {"explicit footprints and fmax", test_plan_explicit_and_fmax},
                                   {"errors", test_plan_errors},
                                   {"full sweep table", test_full_sweeps},
                                   {"mapping names", test_mapping_names},
                                   {NULL, NULL}};
  static const test_case csv[] = {{"summarize", test_summarize},
                                  {"chase rows", test_csv_row},
                                  {"gather rows", test_csv_gather_rows},
                                  {"chasers, bufset and layout rows", test_csv_chasers_bufset_layout},
                                  {NULL, NULL}};
  static const test_case churn[] = {{"small plan", test_churn_small_plan},
                                    {"invariants", test_churn_invariants},
                                    {"pool classes", test_pool_classes},
                                    {"pool reuse", test_pool_reuse},
                                    {NULL, NULL}};
  static const test_case opts[] = {{"chase options", test_opts_chase},
                                   {"errors", test_opts_errors},
                                   {"command defaults", test_opts_command_defaults},
                                   {"size lists", test_size_list},
                                   {"gather options", test_opts_gather},
                                   {"chasers and buffer-set options", test_opts_chasers_bufs},
                                   {NULL, NULL}};
  static const test_case gather[] = {{"hash matches model", test_gather_hash_matches_model},
                                     {"points", test_gather_points},
                                     {"launch shapes", test_gather_shapes},
                                     {"SM sets", test_sm_sets},
                                     {NULL, NULL}};
  static const test_case bufs[] = {{"set statistics", test_bufset_stats},
                                   {"pool carve", test_pool_carve},
                                   {"trace lines", test_trace_lines},
                                   {"trace plan", test_trace_plan},
                                   {"trace gzip", test_trace_gzip},
                                   {"many IDs", test_trace_many_ids},
                                   {"capture command line", test_capture_parse},
                                   {NULL, NULL}};
  static const test_suite suites[] = {{"gpu_chain", chain}, {"gpu_plan", plan}, {"gpu_csv", csv},
                                      {"gpu_churn_pool", churn}, {"gpu_opts", opts},
                                      {"gpu_gather", gather},   {"gpu_bufset_trace", bufs},
                                      {NULL, NULL}};
  return harness_run(suites);
}
