/* tests/test_gpu_host.c — tlbsim-gpu's host logic on the CPU: chain
 * construction and permutation (against an independent Python model of
 * xoshiro256** and splitmix64), sweep planning, CSV, churn plan, user pool,
 * options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_csv.h"
#include "gpu_opts.h"
#include "gpu_plan.h"
#include "gpu_pool.h"
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
  s.mapping = GPU_MAP_CONTIGUOUS;
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
  CU_ASSERT_EQUAL(s[0].mapping, GPU_MAP_CONTIGUOUS);
  CU_ASSERT_EQUAL(s[1].mapping, GPU_MAP_SHUFFLED);
  CU_ASSERT_EQUAL(s[0].nstrides, 16); /* 4K, then 64K..1G */
  CU_ASSERT_EQUAL(s[0].strides[0], 4096);
  CU_ASSERT_EQUAL(s[0].strides[1], 65536);
  CU_ASSERT_EQUAL(s[0].strides[15], GiB);
  CU_ASSERT_EQUAL(s[2].mapping, GPU_MAP_CUDAMALLOC);
  CU_ASSERT_EQUAL(s[2].strides[1], 2 * MiB);
  CU_ASSERT_EQUAL(s[3].mapping, GPU_MAP_MANAGED);
  CU_ASSERT_EQUAL(s[3].fmax, 16 * GiB);
  CU_ASSERT_EQUAL(s[4].mapping, GPU_MAP_ALIASED);
  CU_ASSERT_EQUAL(s[4].fmax, 4096 * GiB);
  CU_ASSERT_EQUAL(s[4].nstrides, 6); /* 2M 8M 32M 128M 512M 1G */
  CU_ASSERT_EQUAL(s[4].strides[4], 512 * MiB);
  CU_ASSERT_EQUAL(s[4].strides[5], GiB);
  CU_ASSERT_EQUAL(s[5].mapping, GPU_MAP_ALIASED);
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
  gpu_mapping m;
  CU_ASSERT_EQUAL(gpu_mapping_parse("shuffled", &m), 0);
  CU_ASSERT_EQUAL(m, GPU_MAP_SHUFFLED);
  CU_ASSERT_EQUAL(gpu_mapping_parse("Shuffled", &m), -1);
  CU_ASSERT_STRING_EQUAL(gpu_mapping_name(GPU_MAP_CUDAMALLOC), "cudamalloc");
  CU_ASSERT_EQUAL(gpu_mapping_page_bytes(GPU_MAP_MANAGED, 2 * MiB), 65536);
  CU_ASSERT_EQUAL(gpu_mapping_page_bytes(GPU_MAP_SHUFFLED, 2 * MiB), 2 * MiB);
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
  r.mapping = GPU_MAP_SHUFFLED;
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
  CU_ASSERT_EQUAL(gpu_csv_chase_row(f, &r, &d), 0);
  const char *want =
      "pattern,order,mapping,page_bytes,stride_bytes,footprint_bytes,steps,cycles_per_access,ns_per_access,load,"
      "sm_clock_khz,device,repeats,spread,seed,nodes,warmup,lanes,sm,chunk_bytes,skew_bytes,va_base,cycles_min,"
      "cycles_max,base_cycles,base_min,base_max,base_samples,disruptor_sm,disruptor_footprint_bytes,"
      "disruptor_stride_bytes\n"
      "chase,random,shuffled,2097152,2097152,8388608,4096,500.500,250.250,cg,1980000,NVIDIA H200,5,11.250,1,4,"
      "1024,1,0,2097152,0,0x7f0000000000,499.000,510.250,,,,,,,\n"
      "share,random,shuffled,2097152,2097152,8388608,4096,500.500,250.250,cg,1980000,\"GPU, \"\"x\"\"\",5,11.250,"
      "1,4,1024,1,0,2097152,0,0x7f0000000000,499.000,510.250,261.500,255.000,270.000,4,7,68719476736,2097152\n";
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
  CU_ASSERT_EQUAL(o.mappings, (1u << GPU_MAP_SHUFFLED) | (1u << GPU_MAP_CONTIGUOUS));
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
  static const test_case csv[] = {{"summarize", test_summarize}, {"chase rows", test_csv_row}, {NULL, NULL}};
  static const test_case churn[] = {{"small plan", test_churn_small_plan},
                                    {"invariants", test_churn_invariants},
                                    {"pool classes", test_pool_classes},
                                    {"pool reuse", test_pool_reuse},
                                    {NULL, NULL}};
  static const test_case opts[] = {{"chase options", test_opts_chase},
                                   {"errors", test_opts_errors},
                                   {"command defaults", test_opts_command_defaults},
                                   {"size lists", test_size_list},
                                   {NULL, NULL}};
  static const test_suite suites[] = {{"gpu_chain", chain}, {"gpu_plan", plan}, {"gpu_csv", csv},
                                      {"gpu_churn_pool", churn}, {"gpu_opts", opts}, {NULL, NULL}};
  return harness_run(suites);
}
