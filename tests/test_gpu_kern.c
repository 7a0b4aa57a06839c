/* tests/test_gpu_kern.c — the host logic of tlbsim-gpu's kernel experiments
 * on the CPU: the embedding-bag ids (Zipf sampler, row permutation, groups),
 * lane addresses and expected sums; the Accel-Sim trace writer (widths,
 * address formats, whole files) and the generated SASS table; the uvm size
 * checks; the new rows and options. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tlbsim/gpu_accel.h"
#include "gpu_csv.h"
#include "tlbsim/gpu_embed.h"
#include "gpu_opts.h"
#include "tlbsim/gpu_uvm.h"
#include "harness.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* ---- ids ---- */

static void test_zipf_matches_law(void) {
  gpu_zipf z;
  CU_ASSERT_EQUAL_FATAL(gpu_zipf_init(&z, 100, 1.0, NULL), 0);
  rng r;
  rng_seed(&r, 7);
  enum { N = 400000 };
  unsigned count[101] = {0};
  for (int i = 0; i < N; i++) {
    uint64_t k = gpu_zipf_draw(&z, &r);
    CU_ASSERT_FATAL(k >= 1 && k <= 100);
    count[k]++;
  }
  double h = 0;
  for (int k = 1; k <= 100; k++) h += 1.0 / k;
  /* Ranks 1, 2, 10, 100 within 5 standard deviations of the law. */
  const int ranks[] = {1, 2, 10, 100};
  for (size_t i = 0; i < 4; i++) {
    double p = 1.0 / ranks[i] / h, sd = sqrt(N * p * (1 - p));
    CU_ASSERT(fabs(count[ranks[i]] - N * p) < 5 * sd);
  }
  /* alpha 0: uniform, every rank reachable. */
  CU_ASSERT_EQUAL_FATAL(gpu_zipf_init(&z, 4, 0, NULL), 0);
  unsigned u[5] = {0};
  for (int i = 0; i < 4000; i++) u[gpu_zipf_draw(&z, &r)]++;
  CU_ASSERT(u[0] == 0 && u[1] > 900 && u[2] > 900 && u[3] > 900 && u[4] > 900);
  diag d;
  CU_ASSERT_EQUAL(gpu_zipf_init(&z, 0, 1, &d), -1);
  CU_ASSERT_EQUAL(gpu_zipf_init(&z, 10, -0.5, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "zipf: alpha -0.5 is outside 0..10");
}

static void test_rowperm_bijection(void) {
  const uint64_t ns[] = {1, 2, 3, 7, 1000, 4096, 5000};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    gpu_rowperm p;
    gpu_rowperm_init(&p, ns[t], 42);
    char *seen = calloc(ns[t], 1);
    for (uint64_t r = 0; r < ns[t]; r++) {
      uint64_t x = gpu_rowperm_at(&p, r);
      CU_ASSERT_FATAL(x < ns[t]);
      CU_ASSERT(!seen[x]);
      seen[x] = 1;
    }
    free(seen);
  }
  gpu_rowperm a, b;
  gpu_rowperm_init(&a, 1u << 20, 1);
  gpu_rowperm_init(&b, 1u << 20, 2);
  unsigned same = 0;
  for (uint64_t r = 0; r < 100; r++) same += gpu_rowperm_at(&a, r) == gpu_rowperm_at(&b, r);
  CU_ASSERT(same < 5);
  CU_ASSERT_EQUAL(gpu_rowperm_at(&a, 5), gpu_rowperm_at(&a, 5));
}

static void test_embed_geometry(void) {
  gpu_embed_geom g;
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_embed_geom_init(&g, 64, 32, 16, &d), 0);
  CU_ASSERT_EQUAL(g.lanes_per_row, 8);
  CU_ASSERT_EQUAL(g.rows_per_step, 4);
  CU_ASSERT_EQUAL(g.parts, 1);
  CU_ASSERT_EQUAL(g.steps, 8);
  /* Lane 9 of bag 2, step 3: id 2*32 + 3*4 + 1, word 1 of its row. */
  CU_ASSERT_EQUAL(gpu_embed_id_index(&g, 2, 3, 9), 77);
  CU_ASSERT_EQUAL(gpu_embed_row_offset(&g, 1000, 0, 9), 1000 * 64 + 8);
  CU_ASSERT_EQUAL(gpu_embed_out_offset(&g, 2, 0, 31), 2 * 64 + 56);
  CU_ASSERT_EQUAL_FATAL(gpu_embed_geom_init(&g, 256, 32, 8, &d), 0);
  CU_ASSERT_EQUAL(g.rows_per_step, 1);
  CU_ASSERT_EQUAL(g.steps, 32);
  CU_ASSERT_EQUAL(gpu_embed_id_index(&g, 1, 5, 31), 37);
  CU_ASSERT_EQUAL(gpu_embed_row_offset(&g, 3, 0, 31), 3 * 256 + 248);
  CU_ASSERT_EQUAL_FATAL(gpu_embed_geom_init(&g, 512, 32, 8, &d), 0);
  CU_ASSERT_EQUAL(g.parts, 2);
  CU_ASSERT_EQUAL(gpu_embed_row_offset(&g, 1, 1, 0), 512 + 256);
  CU_ASSERT_EQUAL(gpu_embed_geom_init(&g, 48, 32, 8, &d), -1);
  CU_ASSERT_EQUAL(gpu_embed_geom_init(&g, 64, 30, 8, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "embed: 30 ids per bag: L must be a positive multiple of 4 for 64-byte rows");
  CU_ASSERT_EQUAL(gpu_embed_geom_init(&g, 64, 32, 12, &d), -1);
}

static void test_embed_ids_groups(void) {
  gpu_embed_geom g;
  CU_ASSERT_EQUAL_FATAL(gpu_embed_geom_init(&g, 256, 32, 3 * GPU_EMBED_GROUP_BAGS + 8, NULL), 0);
  gpu_embed_ids_spec s = {64 * MiB, 0.9, 5};
  uint64_t n = g.bags * g.ids_per_bag, groups;
  uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  CU_ASSERT_EQUAL_FATAL(gpu_embed_ids(&g, &s, a, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(gpu_embed_ids_check(&g, &s, &groups, NULL), 0);
  CU_ASSERT_EQUAL(groups, 4);
  for (uint64_t q = groups; q-- > 0;) gpu_embed_ids_group(&g, &s, q, b); /* any order */
  CU_ASSERT_EQUAL(memcmp(a, b, n * sizeof *a), 0);
  uint64_t rows = s.table_bytes / 256, bad = 0;
  for (uint64_t i = 0; i < n; i++) bad += a[i] >= rows;
  CU_ASSERT_EQUAL(bad, 0);
  /* Skewed: far fewer distinct rows than lookups, and a hot row. */
  uint64_t *scratch = malloc(gpu_embed_distinct_scratch(n) * sizeof *scratch);
  uint64_t k = gpu_embed_distinct(a, n, scratch);
  CU_ASSERT(k > 1000 && k < n / 2);
  const uint64_t small[] = {5, 5, 0, 7, 0};
  CU_ASSERT_EQUAL(gpu_embed_distinct(small, 5, scratch), 3);
  /* Bag 1's output word 3: the sum of row*32 + 3 over its ids. */
  uint64_t want = 0;
  for (int i = 0; i < 32; i++) want += a[32 + i] * 32 + 3;
  CU_ASSERT_EQUAL(gpu_embed_expect(&g, a + 32, 3), want);
  diag d;
  gpu_embed_ids_spec none = {100, 0, 1};
  CU_ASSERT_EQUAL(gpu_embed_ids_check(&g, &none, &groups, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "embed: a 100-byte table holds no 256-byte row");
  free(a), free(b), free(scratch);
}

/* ---- trace writer ---- */

static void test_accel_width(void) {
  CU_ASSERT_EQUAL(gpu_accel_width("LDG.E.64.CONSTANT"), 8);
  CU_ASSERT_EQUAL(gpu_accel_width("STG.E.128"), 16);
  CU_ASSERT_EQUAL(gpu_accel_width("LDG.E"), 4);
  CU_ASSERT_EQUAL(gpu_accel_width("LDG.E.U8"), 1);
  CU_ASSERT_EQUAL(gpu_accel_width("LDS.U.128"), 16);
  CU_ASSERT_EQUAL(gpu_accel_width("ATOM.E.ADD.64.STRONG.GPU"), 8);
}

static void test_accel_addr_formats(void) {
  uint64_t a[32];
  char out[1024];
  for (int l = 0; l < 32; l++) a[l] = 0x7f0000000000ull + 8 * l;
  out[gpu_accel_addr_text(a, 0xffffffffu, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "1 0x7f0000000000 8 ");
  for (int l = 0; l < 32; l++) a[l] = 0x1000;
  out[gpu_accel_addr_text(a, 0xffffffffu, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "1 0x1000 0 ");
  /* A gap in the mask: base + deltas over the active lanes. */
  for (int l = 0; l < 32; l++) a[l] = 0x1000 + 16 * l;
  out[gpu_accel_addr_text(a, 0x0000000du, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "2 0x1000 32 16 ");
  /* Lanes 1-3 contiguous: stride format from lane 1. */
  out[gpu_accel_addr_text(a, 0x0000000eu, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "1 0x1010 16 ");
  /* One lane: the tracer's stride check fails, so base + no deltas. */
  out[gpu_accel_addr_text(a, 0x00000004u, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "2 0x1020 ");
  /* No lane: the tracer prints base 0, stride 0. */
  out[gpu_accel_addr_text(a, 0, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "1 0x0 0 ");
  /* A stride of 2^32 does not fit the tracer's int; a negative one does. */
  a[0] = 0, a[1] = 1ull << 32, a[2] = 2ull << 32;
  out[gpu_accel_addr_text(a, 7, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "2 0x0 4294967296 4294967296 ");
  a[0] = 300, a[1] = 200, a[2] = 100;
  out[gpu_accel_addr_text(a, 7, out)] = '\0';
  CU_ASSERT_STRING_EQUAL(out, "1 0x12c -100 ");
}

/* A made-up straight-line kernel for R = 256, L = 1: id load, row load, store. */
static const gpu_sass_inst tiny_inst[] = {
    {0x0000, "S2R", 0, 0, {0}, 0, GPU_SASS_ALU, 0, 0},
    {0x0010, "LDG.E.64.CONSTANT", 2, 1, {4}, 0, GPU_SASS_ID, 0, 0},
    {0x0020, "LOP3.LUT", 2, 2, {2, 255}, -256, GPU_SASS_ALU, 0, 0},
    {0x0030, "LDG.E.64.CONSTANT", 6, 1, {2}, 0, GPU_SASS_ROW, 0, 0},
    {0x0040, "STG.E.64", -1, 2, {8, 6}, 0, GPU_SASS_OUT, 0, 0},
    {0x0050, "EXIT", -1, 0, {0}, 0, GPU_SASS_ALU, 0, 0},
};
static const gpu_sass_kernel tiny = {"_Z4tinyv", 256, 1, 12, 6, tiny_inst};

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  s[fread(s, 1, (size_t)n, f)] = '\0';
  fclose(f);
  return s;
}

static void test_embed_trace_files(void) {
  gpu_embed_geom g;
  CU_ASSERT_EQUAL_FATAL(gpu_embed_geom_init(&g, 256, 1, 16, NULL), 0);
  uint64_t ids[16];
  for (int i = 0; i < 16; i++) ids[i] = 100 + i;
  char dir[] = "/tmp/test_gpu_kern_XXXXXX";
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  gpu_embed_trace t = {&g, &tiny, ids, 0, 0, 0, 0, 0, 0, 4 * MiB, dir};
  gpu_embed_allocs al = gpu_embed_allocs_for(4 * MiB, 256, 1, 16);
  gpu_embed_dry_map(&t, &al);
  CU_ASSERT_EQUAL(t.table_va, GPU_EMBED_DRY_TABLE_VA);
  CU_ASSERT_EQUAL(t.ids_va, GPU_EMBED_DRY_TABLE_VA + 6 * MiB);
  CU_ASSERT_EQUAL(t.out_va, GPU_EMBED_DRY_TABLE_VA + 10 * MiB);
  diag d;
  CU_ASSERT_EQUAL_FATAL(gpu_embed_trace_write(&t, &d), 0);
  char path[256];
  snprintf(path, sizeof path, "%s/kernelslist.g", dir);
  char *list = read_all(path);
  CU_ASSERT_STRING_EQUAL(list, "MemcpyHtoD,0x00007f0000600000,128\nkernel-1.traceg\n");
  snprintf(path, sizeof path, "%s/buffers.trace", dir);
  char *buf = read_all(path);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "map 0x7f0000000000 4194304 page=2M  # table"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "map 0x7f0000600000 2097152 page=2M  # ids"));
  snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
  char *k = read_all(path);
  CU_ASSERT_PTR_NOT_NULL(strstr(k, "-kernel name = _Z4tinyv\n-kernel id = 1\n-grid dim = (2,1,1)\n"
                                   "-block dim = (256,1,1)\n-shmem = 0\n-nregs = 12\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(k, "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n#traces format"));
  /* Block 1, warp 2 is bag 10: id at ids + 80, row 110, out at out + 2560. */
  const char *want =
      "\n#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 6\n";
  CU_ASSERT_PTR_NOT_NULL(strstr(k, want));
  const char *w10 =
      "\nwarp = 2\ninsts = 6\n"
      "0000 ffffffff 1 R0 S2R 0 0 0 \n"
      "0010 ffffffff 1 R2 LDG.E.64.CONSTANT 1 R4 8 1 0x7f0000600050 0 0 \n"
      "0020 ffffffff 1 R2 LOP3.LUT 2 R2 R255 0 -256 \n"
      "0030 ffffffff 1 R6 LDG.E.64.CONSTANT 1 R2 8 1 0x7f0000006e00 8 0 \n"
      "0040 ffffffff 0 STG.E.64 2 R8 R6 8 1 0x7f0000a00a00 8 0 \n"
      "0050 ffffffff 0 EXIT 0 0 0 \n";
  char *at = strstr(k, "thread block = 1,0,0");
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  CU_ASSERT_PTR_NOT_NULL(strstr(at, w10));
  /* 2 blocks x 8 warps x 6 lines, and the file ends the last block. */
  unsigned lines = 0;
  for (const char *p = k; (p = strstr(p, "ffffffff ")); p++) lines++;
  CU_ASSERT_EQUAL(lines, 96);
  size_t n = strlen(k);
  CU_ASSERT(n > 8 && !strcmp(k + n - 9, "\n#END_TB\n"));
  FILE *f = tmpfile();
  CU_ASSERT_EQUAL(gpu_embed_trace_warp(f, &t, 10), 0);
  rewind(f);
  char one[1024];
  size_t m = fread(one, 1, sizeof one - 1, f);
  one[m] = '\0';
  CU_ASSERT_STRING_EQUAL(one, strstr(w10, "0000"));
  fclose(f);
  free(list), free(buf), free(k);
  const char *names[] = {"kernelslist.g", "buffers.trace", "kernel-1.traceg"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
  gpu_embed_trace bad = t;
  bad.dir = "/nonexistent/dir";
  CU_ASSERT_EQUAL(gpu_embed_trace_write(&bad, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "/nonexistent/dir/kernelslist.g: "));
}

/* The generated table: the compiled kernels and what a warp executes. */
static void test_embed_sass_table(void) {
  const gpu_sass_kernel *k64 = gpu_embed_sass_find(64, 32), *k256 = gpu_embed_sass_find(256, 32);
  CU_ASSERT_PTR_NOT_NULL_FATAL(k64);
  CU_ASSERT_PTR_NOT_NULL_FATAL(k256);
  CU_ASSERT_PTR_NULL(gpu_embed_sass_find(128, 32));
  CU_ASSERT_EQUAL(gpu_sass_memory_count(k64), 8 + 8 + 1);
  CU_ASSERT_EQUAL(gpu_sass_memory_count(k256), 32 + 32 + 1);
  const gpu_sass_kernel *ks[] = {k64, k256};
  for (int i = 0; i < 2; i++) {
    CU_ASSERT_STRING_EQUAL(ks[i]->inst[ks[i]->ninst - 1].opcode, "EXIT");
    CU_ASSERT_EQUAL(ks[i]->inst[0].pc, 0);
    for (unsigned j = 1; j < ks[i]->ninst; j++) CU_ASSERT_EQUAL(ks[i]->inst[j].pc, ks[i]->inst[j - 1].pc + 16);
  }
}

/* ---- uvm, rows, options ---- */

static void test_uvm_refusal(void) {
  CU_ASSERT_PTR_NULL(gpu_uvm_refusal(GPU_UVM_GPU, 64 * GiB, 139 * GiB, 0));
  CU_ASSERT_STRING_EQUAL(gpu_uvm_refusal(GPU_UVM_GPU, 64 * GiB, 120 * GiB, 0),
                         "more than half the device's free memory");
  CU_ASSERT_PTR_NULL(gpu_uvm_refusal(GPU_UVM_HOST, 64 * GiB, 139 * GiB, 125 * GiB));
  CU_ASSERT_STRING_EQUAL(gpu_uvm_refusal(GPU_UVM_ADVISE, 64 * GiB, 139 * GiB, 70 * GiB),
                         "more than the host's available memory less 8 GiB");
  CU_ASSERT_PTR_NOT_NULL(gpu_uvm_refusal(GPU_UVM_HOST_PREFETCH, 1 * GiB, 139 * GiB, 4 * GiB));
  CU_ASSERT_PTR_NOT_NULL(gpu_uvm_refusal(GPU_UVM_MALLOC, 100, 139 * GiB, 0));
  CU_ASSERT(gpu_uvm_host_written(GPU_UVM_HOST) && !gpu_uvm_host_written(GPU_UVM_GPU));
}

static char *slurp(FILE *f) {
  static char buf[4096];
  rewind(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  return buf;
}

static void test_kern_rows(void) {
  FILE *f = tmpfile();
  diag d;
  gpu_blocks_row b = {16, 256, 2, 20000, 3, 124, 32, 20064, 132, "NVIDIA H200"};
  CU_ASSERT_EQUAL(gpu_csv_blocks_header(f, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_blocks_row(f, &b, &d), 0);
  CU_ASSERT_STRING_EQUAL(slurp(f), "pattern,grid,block_threads,repeat,spin_ns,block,sm,start_ns,end_ns,sms,device\nblocks,16,256,2,20000,3,124,32,20064,132,NVIDIA H200\n");
  fclose(f);
  f = tmpfile();
  gpu_uvm_row u = {"host_prefetch", "gather", 256 * MiB, 5.606, 0.3608, 0.06624, 4052.4, 51.67, 52.04};
  gpu_uvm_row v = {"gpu", "stream", 256 * MiB, -1, 16.35, 0.06582, 4078.1, 51.68, 51.84};
  CU_ASSERT_EQUAL(gpu_csv_uvm_header(f, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_uvm_row(f, &u, &d), 0);
  CU_ASSERT_EQUAL(gpu_csv_uvm_row(f, &v, &d), 0);
  CU_ASSERT_STRING_EQUAL(slurp(f), "init,first,size,prefetch_ms,cold_ms,stream_ms,stream_gbps,gather_lpns,gather2_lpns\n"
                                   "host_prefetch,gather,268435456,5.606,0.3608,0.06624,4052,51.67,52.04\n"
                                   "gpu,stream,268435456,,16.35,0.06582,4078,51.68,51.84\n");
  fclose(f);
  f = tmpfile();
  gpu_stream_row s;
  memset(&s, 0, sizeof s);
  s.kind = "read", s.size_bytes = s.footprint_bytes = s.bytes_per_launch = 4 * GiB, s.passes = 1;
  s.gbps = (gpu_summary){4530.71, 4524.45, 4539.14};
  s.ns_per_launch = 953536, s.repeats = 3, s.blocks = 1056, s.block_threads = 512, s.va_base = 0x7fd9ea000000ull;
  s.device = "NVIDIA H200";
  CU_ASSERT_EQUAL(gpu_csv_stream_row(f, &s, &d), 0);
  CU_ASSERT_STRING_EQUAL(slurp(f), "stream,read,4294967296,4294967296,4294967296,1,4530.71,4524.45,4539.14,953536.0,3,"
                                   "1056,512,cg,0x7fd9ea000000,NVIDIA H200\n");
  fclose(f);
  f = tmpfile();
  gpu_embed_row e;
  memset(&e, 0, sizeof e);
  e.kernel = "_Z12embed_kernelILj64ELj32EEv10embed_args", e.grid = 8192, e.block = 256;
  e.warp_instructions = 6422528, e.memory_instructions = 1114112, e.ns = (gpu_summary){63584, 63000, 64000};
  e.first_ns = 77696, e.table_bytes = 64 * GiB, e.row_bytes = 64, e.ids_per_bag = 32, e.bags = 65536;
  e.alpha = 0.8, e.seed = 1, e.rows = GiB, e.distinct_rows = 2095029, e.regs = 26;
  e.table_va = 0x7e0000000000ull, e.ids_va = 0x7f0000000000ull, e.out_va = 0x7f0001000000ull;
  e.table_alloc = 128 * GiB, e.repeats = 5, e.device = "NVIDIA H200";
  CU_ASSERT_EQUAL(gpu_csv_embed_row(f, &e, &d), 0);
  CU_ASSERT_STRING_EQUAL(slurp(f), "embed,_Z12embed_kernelILj64ELj32EEv10embed_args,8192,256,6422528,1114112,63584.0,"
                                   "32.9824,32.7680,33.2881,77696.0,68719476736,64,32,65536,2097152,0.8,1,1073741824,"
                                   "2095029,2110.87,26,2097152,nc,0x7e0000000000,0x7f0000000000,0x7f0001000000,"
                                   "137438953472,5,NVIDIA H200\n");
  fclose(f);
}

static int parse(gpu_opts *o, diag *d, int argc, const char **argv) { return gpu_opts_parse(argc, (char **)argv, o, d); }

static void test_kern_opts(void) {
  gpu_opts o;
  diag d;
  const char *a[] = {"tlbsim-gpu", "embed", "--footprint", "64G,128G", "--row-bytes", "64", "--alpha", "0,0.5,1.2",
                     "--dry-run", "--trace", "/tmp/x", "--va", "0x7f0000000000,0x7f2000000000,0x7f2100000000"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 13, a), 0);
  CU_ASSERT_EQUAL(o.cmd, GPU_CMD_EMBED);
  CU_ASSERT_EQUAL(o.sweep.nfootprints, 2);
  CU_ASSERT_EQUAL(o.nalphas, 3);
  CU_ASSERT_DOUBLE_EQUAL(o.alphas[1], 0.5, 1e-12);
  CU_ASSERT_EQUAL(o.dry_run, 1);
  CU_ASSERT_EQUAL(o.nembed_va, 3);
  CU_ASSERT_EQUAL(o.embed_va[2], 0x7f2100000000ull);
  CU_ASSERT_EQUAL(o.bags, 65536);
  CU_ASSERT_EQUAL(o.ids_per_bag, 32);
  CU_ASSERT_EQUAL(o.repeats, 5);
  const char *b[] = {"tlbsim-gpu", "embed", "--dry-run"};
  CU_ASSERT_EQUAL(parse(&o, &d, 3, b), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: embed: --dry-run writes a trace: give --trace DIR");
  const char *c[] = {"tlbsim-gpu", "embed", "--dry-run=1"};
  CU_ASSERT_EQUAL(parse(&o, &d, 3, c), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: --dry-run takes no value");
  const char *e[] = {"tlbsim-gpu", "embed", "--alpha", "11"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, e), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "tlbsim-gpu: --alpha: bad list of reals (0..10) '11'");
  const char *g[] = {"tlbsim-gpu", "blocks", "--grid", "16,132", "--block", "100"};
  CU_ASSERT_EQUAL(parse(&o, &d, 6, g), -1);
  const char *h[] = {"tlbsim-gpu", "blocks"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 2, h), 0);
  CU_ASSERT_EQUAL(o.ngrids, 15);
  CU_ASSERT_EQUAL(o.nblock_threads, 4);
  CU_ASSERT_EQUAL(o.spin_ns, 20000);
  CU_ASSERT_EQUAL(o.repeats, 3);
  const char *i[] = {"tlbsim-gpu", "uvm", "--init", "host,advise", "--first", "gather", "--size", "1G..4G"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 8, i), 0);
  CU_ASSERT_EQUAL(o.uvm_inits, (1u << GPU_UVM_HOST) | (1u << GPU_UVM_ADVISE));
  CU_ASSERT_EQUAL(o.uvm_firsts, 1u << GPU_UVM_GATHER);
  CU_ASSERT_EQUAL(o.nsizes, 3);
  const char *j[] = {"tlbsim-gpu", "dram-chase", "--steps", "16384"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, j), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "exceeds the 65536 nodes"));
  const char *k[] = {"tlbsim-gpu", "chase", "--population", "gpu:4,host_prefetch"};
  CU_ASSERT_EQUAL(parse(&o, &d, 4, k), -1);
  CU_ASSERT_STRING_EQUAL(d.msg,
                         "tlbsim-gpu: chase: --population other than chain needs --mapping managed alone");
  const char *l[] = {"tlbsim-gpu", "chase", "--mapping", "managed", "--population", "gpu:4,host_prefetch,chain"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 6, l), 0);
  CU_ASSERT_EQUAL(o.npops, 3);
  char name[32];
  CU_ASSERT_STRING_EQUAL(gpu_population_name(&o.pops[0], name, sizeof name), "gpu:4");
  CU_ASSERT_STRING_EQUAL(gpu_population_name(&o.pops[1], name, sizeof name), "host_prefetch");
  const char *m[] = {"tlbsim-gpu", "chase", "--mapping", "managed", "--population", "gpu"};
  CU_ASSERT_EQUAL(parse(&o, &d, 6, m), -1);
  const char *n[] = {"tlbsim-gpu", "stream", "--kind", "copy"};
  CU_ASSERT_EQUAL_FATAL(parse(&o, &d, 4, n), 0);
  CU_ASSERT_EQUAL(o.stream_kinds, 2);
  CU_ASSERT_EQUAL(o.sweep.fmax, 64 * GiB);
}

int main(void) {
  static const test_case ids[] = {{"zipf law", test_zipf_matches_law},
                                  {"row permutation", test_rowperm_bijection},
                                  {"geometry and lane addresses", test_embed_geometry},
                                  {"ids in groups, distinct, expected sums", test_embed_ids_groups},
                                  {NULL, NULL}};
  static const test_case trace[] = {{"widths", test_accel_width},
                                    {"address formats", test_accel_addr_formats},
                                    {"trace files", test_embed_trace_files},
                                    {"SASS table", test_embed_sass_table},
                                    {NULL, NULL}};
  static const test_case misc[] = {{"uvm sizes", test_uvm_refusal},
                                   {"rows", test_kern_rows},
                                   {"options", test_kern_opts},
                                   {NULL, NULL}};
  static const test_suite suites[] = {{"gpu_embed", ids}, {"gpu_accel", trace}, {"gpu_kern", misc}, {NULL, NULL}};
  return harness_run(suites);
}
