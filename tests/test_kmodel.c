/* Tests for the kernel model's parts and the model: coalescing into lines
 * and sectors, the sectored cache (LRU), DRAM rows, the engine's band
 * (booking out of time order), and the model on small traces written
 * here: a scoreboard that lets independent loads overlap and serializes a
 * dependent chain, DRAM and L2 latencies as the preset gives them, and an
 * address outside every mapping named by FILE:LINE, with the memory path
 * on a thread of its own or not (the same results either way); the suite's stream and
 * chase kernels made in memory (kstream, kchase): every element read (and
 * stored) once a pass, the chain the GPU walks, ld.global.cg past the L1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tlbsim/engine.h"
#include "tlbsim/gdev.h"
#include "tlbsim/gpu_embed.h"
#include "tlbsim/kchase.h"
#include "tlbsim/kmem.h"
#include "tlbsim/kmodel.h"
#include "tlbsim/kstream.h"
#include "tlbsim/loader.h"

static void test_coalesce(void) {
  uint64_t a[32];
  kmem_line l[KMEM_LINES_MAX];
  for (unsigned i = 0; i < 32; i++) a[i] = 0x1000 + 8 * i; /* 256 contiguous bytes: 2 full lines */
  CU_ASSERT_EQUAL(kmem_coalesce(a, 32, 8, l), 2);
  CU_ASSERT_TRUE(l[0].line == 0x1000 >> 7 && l[0].sectors == 0xf && l[1].sectors == 0xf);
  for (unsigned i = 0; i < 32; i++) a[i] = 0x1000 + 64 * i; /* 8 bytes every 64: 16 lines, sectors 0 and 2 */
  CU_ASSERT_EQUAL(kmem_coalesce(a, 32, 8, l), 16);
  CU_ASSERT_EQUAL(l[5].sectors, 0x5);
  for (unsigned i = 0; i < 32; i++) a[i] = 0x2040; /* one word for all: one sector */
  CU_ASSERT_EQUAL(kmem_coalesce(a, 32, 8, l), 1);
  CU_ASSERT_EQUAL(l[0].sectors, 0x4);
  a[0] = 0x107c; /* 8 bytes across a line boundary: the last sector of one, the first of the next */
  CU_ASSERT_EQUAL(kmem_coalesce(a, 1, 8, l), 2);
  CU_ASSERT_TRUE(l[0].sectors == 0x8 && l[1].sectors == 0x1 && l[1].line == l[0].line + 1);
  for (unsigned i = 0; i < 32; i++) a[i] = 0x3000 + 128 * (i % 3 ? 2 - i % 3 : 2) + 32 * (i / 3 % 4);
  /* lanes back and forth over 3 lines (2, 1, 0, 2, ...): each once, in the order first seen, every lane's sector */
  CU_ASSERT_EQUAL(kmem_coalesce(a, 32, 8, l), 3);
  CU_ASSERT_TRUE(l[0].line == (0x3000 >> 7) + 2 && l[1].line == (0x3000 >> 7) + 1 && l[2].line == 0x3000 >> 7);
  CU_ASSERT_TRUE(l[0].sectors == 0xf && l[1].sectors == 0xf && l[2].sectors == 0xf);
  CU_ASSERT_EQUAL(kmem_sectors(0xb), 3);
}

static void test_cache(void) {
  diag d;
  kmem_cache *c = kmem_cache_create(256, 2, &d); /* one set of 2 lines */
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_EQUAL(kmem_cache_lines(c), 2);
  CU_ASSERT_EQUAL(kmem_cache_access(c, 10, 0x1, false, NULL), 0);   /* miss: fetched */
  CU_ASSERT_EQUAL(kmem_cache_access(c, 10, 0x3, false, NULL), 0x1); /* sector 0 held, 1 not */
  CU_ASSERT_EQUAL(kmem_cache_access(c, 10, 0x3, false, NULL), 0x3);
  CU_ASSERT_EQUAL(kmem_cache_access(c, 11, 0xf, false, NULL), 0);
  CU_ASSERT_EQUAL(kmem_cache_access(c, 10, 0x1, false, NULL), 0x1); /* 10 most recent: 11 goes next */
  CU_ASSERT_EQUAL(kmem_cache_access(c, 12, 0xf, false, NULL), 0);
  CU_ASSERT_EQUAL(kmem_cache_access(c, 10, 0x1, false, NULL), 0x1);
  CU_ASSERT_EQUAL(kmem_cache_access(c, 11, 0x1, false, NULL), 0);   /* evicted */
  kmem_cache_destroy(c);
  CU_ASSERT_PTR_NULL(kmem_cache_create(128, 2, &d)); /* no whole set */
}

/* Fully associative: the least recently used of every line goes, over
 * enough lines and evictions to move entries of the look-up table's runs
 * (its deletion); a dirty line evicted names its written sectors. */
static void test_cache_full(void) {
  diag d;
  enum { N = 1000 };
  kmem_cache *c = kmem_cache_create(N * 128, 0, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_EQUAL(kmem_cache_lines(c), N);
  unsigned bad = 0;
  kmem_evict e;
  for (uint64_t l = 0; l < 5 * N; l++) /* a cycle over 1.25 N lines misses every time; the last N stay */
    bad += kmem_cache_access(c, (l % (N + N / 4)) * 7919, 0x1, false, NULL) != 0;
  CU_ASSERT_EQUAL(bad, 0);
  for (uint64_t l = 5 * N - N; l < 5 * N; l++) bad += kmem_cache_access(c, (l % (N + N / 4)) * 7919, 0x1, false, NULL) != 1;
  CU_ASSERT_EQUAL(bad, 0); /* the last N lines, all held */
  kmem_cache_destroy(c);
  c = kmem_cache_create(256, 0, &d); /* 2 lines */
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  kmem_cache_access(c, 1, 0x3, true, &e);
  CU_ASSERT_EQUAL(e.dirty, 0);
  kmem_cache_access(c, 2, 0x1, false, &e);
  kmem_cache_access(c, 1, 0x4, false, &e); /* 1 most recent: 2 goes next, clean */
  kmem_cache_access(c, 3, 0x1, false, &e);
  CU_ASSERT_EQUAL(e.dirty, 0);
  kmem_cache_access(c, 4, 0x1, false, &e); /* 1 goes: sectors 0 and 1 written */
  CU_ASSERT_TRUE(e.line == 1 && e.dirty == 0x3);
  kmem_cache_destroy(c);
  CU_ASSERT_PTR_NULL(kmem_cache_create(64, 0, &d)); /* not a line */
}

/* Fully associative, a cache of N lines, against a list kept in recency
 * order by hand: hits and misses over `lines` lines (more than it holds),
 * for `steps` accesses; every access holds what the list says (exact LRU).
 * Returns the accesses that did not. */
enum { LRU_N_MAX = 64 };
static unsigned full_lru_misfits(unsigned N, unsigned lines, unsigned steps) {
  CU_ASSERT_FATAL(N <= LRU_N_MAX);
  diag d;
  kmem_cache *c = kmem_cache_create(N * 128ull, 0, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  uint64_t list[LRU_N_MAX] = {0}, x = 12345; /* list[0] most recent, the first n in use */
  unsigned n = 0, bad = 0;
  for (unsigned k = 0; k < steps; k++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t line = (x >> 33) % (k % 1000 < 500 ? N / 2 : lines); /* spells of hits, spells of misses */
    unsigned at = 0;
    while (at < n && list[at] != line) at++;
    bool held = at < n;
    if (!held && n < N) n++;
    for (unsigned j = held ? at : n - 1; j > 0; j--) list[j] = list[j - 1];
    list[0] = line;
    bad += kmem_cache_access(c, line, 0x1, false, NULL) != (held ? 1 : 0);
  }
  kmem_cache_destroy(c);
  return bad;
}

/* 64 lines: long enough that the queue of uses is compacted many times;
 * 16 lines, ten times as long: the table is also rebuilt from its
 * tombstones (49 times; a cache this small buries few of them). */
static void test_cache_full_lru(void) {
  CU_ASSERT_EQUAL(full_lru_misfits(LRU_N_MAX, 96, 20000), 0);
  CU_ASSERT_EQUAL(full_lru_misfits(16, 128, 200000), 0);
}

/* The L2's partitions: a line one partition read is near there, far from
 * the other, from DRAM when the whole L2 lost it; a store stays dirty in
 * the whole L2 until evicted. */
static void test_l2(void) {
  diag d;
  const uint64_t near[2] = {256, 256}; /* 2 lines each */
  kmem_l2 *l = kmem_l2_create(512, 0, 2, near, &d); /* 4 lines whole */
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  kmem_l2_got g;
  kmem_l2_read(l, 0, 10, 0x3, &g);
  CU_ASSERT_TRUE(g.near == 0 && g.far == 0); /* from DRAM */
  kmem_l2_read(l, 0, 10, 0x3, &g);
  CU_ASSERT_EQUAL(g.near, 0x3);
  kmem_l2_read(l, 1, 10, 0x7, &g); /* the other partition: sectors 0-1 far, 2 from DRAM */
  CU_ASSERT_TRUE(g.near == 0 && g.far == 0x3);
  kmem_l2_read(l, 0, 11, 0x1, &g);
  kmem_l2_read(l, 0, 12, 0x1, &g); /* partition 0's copies: 11, 12 (10 gone); the whole L2 holds 10-12 */
  kmem_l2_read(l, 0, 10, 0x1, &g);
  CU_ASSERT_TRUE(g.near == 0 && g.far == 0x1);
  kmem_evict e;
  kmem_l2_write(l, 20, 0xf, true, &e);
  CU_ASSERT_EQUAL(e.dirty, 0);
  for (uint64_t x = 30; x < 33; x++) kmem_l2_read(l, 1, x, 0x1, &g); /* push 11, 12, 10 out of the whole L2 */
  kmem_l2_read(l, 1, 33, 0x1, &g);
  CU_ASSERT_TRUE(g.evict.line == 20 && g.evict.dirty == 0xf);
  kmem_l2_destroy(l);
  CU_ASSERT_PTR_NULL(kmem_l2_create(512, 0, 3, near, &d));
}

static void test_dram(void) {
  diag d;
  kmem_dram *m = kmem_dram_create(1, 10, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_FALSE(kmem_dram_access(m, 0x400)); /* opens row 1 */
  CU_ASSERT_TRUE(kmem_dram_access(m, 0x480));  /* the same 1 KiB row */
  CU_ASSERT_FALSE(kmem_dram_access(m, 0x800)); /* another row in the one bank */
  CU_ASSERT_FALSE(kmem_dram_access(m, 0x400));
  kmem_dram_destroy(m);
  CU_ASSERT_PTR_NULL(kmem_dram_create(0, 10, &d));
}

static void test_band(void) {
  engine_band b;
  CU_ASSERT_EQUAL_FATAL(engine_band_init(&b, 16, 1000), 0);
  CU_ASSERT_EQUAL(b.nbins, 1024);
  double last = 0;
  for (int i = 0; i < 100; i++) last = engine_band_take(&b, 0, 1); /* one a cycle */
  CU_ASSERT_DOUBLE_EQUAL(last, 99, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(engine_band_take(&b, 1000, 1), 1000, 1e-9);
  /* booked later, arriving earlier: served in the idle time, not after 1000 */
  CU_ASSERT_DOUBLE_EQUAL(engine_band_take(&b, 500, 1), 500, 1e-9);
  /* a request longer than a bin fills the bins after it */
  CU_ASSERT_DOUBLE_EQUAL(engine_band_take(&b, 2000, 40), 2000, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(engine_band_take(&b, 2000, 1), 2040, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(b.busy, 143, 1e-9);
  engine_band_free(&b);
}

/* ---- the model on written traces ---------------------------------------- */

#define BASE 0x7f0000000000ull

/* A one-warp kernel of n loads of 8 bytes a lane, 256 contiguous bytes
 * each, 1 MiB apart from base (each from DRAM), each load's address
 * register the one before's destination when `chain`; then a use. */
static void write_trace(const char *path, unsigned n, bool chain, uint64_t base) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 64\n"
             "-binary version = 90\n-cuda stream id = 0\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
             "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = %u\n", n + 2);
  for (unsigned i = 0; i < n; i++)
    fprintf(f, "%04x ffffffff 1 R%u LDG.E.64 1 R%u 8 1 0x%llx 8\n", 16 * i, 2 * i + 2, chain ? 2 * i : 0,
            (unsigned long long)(base + (uint64_t)i * (1u << 20)));
  fprintf(f, "%04x ffffffff 1 R100 IADD3 1 R%u 0\n%04x ffffffff 0 EXIT 0 0\n#END_TB\n", 16 * n, 2 * n, 16 * n + 16);
  CU_ASSERT_EQUAL(fclose(f), 0);
}

static int next_tb(void *ctx, ktrace_tb *tb, diag *d) { return ktrace_next_tb(ctx, tb, d); }

typedef struct model_env {
  machine_spec spec;
  machine *m;
} model_env;

static void env_init(model_env *e, uint64_t map_bytes) {
  loader_request q = {.preset = "h200"};
  const char *label;
  diag d;
  cfg *c = loader_spec(&q, &label, &e->spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  cfg_destroy(c);
  e->m = machine_create(&e->spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(e->m);
  trace_record r = {.kind = REC_MAP, .addr = BASE, .size = map_bytes, .page_size = 2u << 20, .prot = PT_R | PT_W};
  CU_ASSERT_EQUAL_FATAL(machine_apply(e->m, &r, "test", &d), 0);
}

/* Predicts the trace at path cold (no warm-up): 0 with *r, or -1 with d. */
static int run_jobs(model_env *e, const char *path, unsigned jobs, kmodel_result *r, diag *d) {
  ktrace_reader *rd = ktrace_open(path, d);
  if (!rd) return -1;
  ktrace_item it;
  int rc = ktrace_next(rd, &it, d) == 1 ? 0 : -1;
  if (!rc) {
    kmodel_spec s = {.sys = &e->spec.sys, .gpu = &e->spec.gpu, .table = machine_get_pt(e->m), .jobs = jobs};
    kmodel_source src = {.next = next_tb, .ctx = rd, .kernel = it.kernel};
    rc = kmodel_run(&s, NULL, &src, r, d);
  }
  ktrace_close(rd);
  return rc;
}

static int run(model_env *e, const char *path, kmodel_result *r, diag *d) { return run_jobs(e, path, 0, r, d); }

static void test_scoreboard(void) {
  model_env e;
  env_init(&e, 64u << 20);
  char path[] = "/tmp/tlbsim_kmodel_XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_TRUE_FATAL(fd >= 0);
  close(fd);
  diag d;
  kmodel_result ind, dep;
  write_trace(path, 8, false, BASE);
  CU_ASSERT_EQUAL_FATAL(run(&e, path, &ind, &d), 0);
  write_trace(path, 8, true, BASE);
  CU_ASSERT_EQUAL_FATAL(run(&e, path, &dep, &d), 0);
  const gpu_config *g = &e.spec.gpu;
  /* one cold walk (its four pages share a TLB sector): the five levels' entries, each from DRAM (a cold
     page table is not in the L2), one after the other */
  CU_ASSERT_EQUAL(ind.served[3], 1);
  CU_ASSERT_EQUAL(ind.walk_reads, 5);
  CU_ASSERT_EQUAL(ind.walk_reads_dram, 5);
  /* independent: the eight overlap, about one DRAM latency after the walk (4573 cycles) */
  CU_ASSERT_TRUE(ind.cycles > 6 * g->dram_cycles && ind.cycles < 7 * g->dram_cycles);
  /* dependent: each waits for the one before (the scoreboard): 9410 cycles */
  CU_ASSERT_TRUE(dep.cycles > ind.cycles + 6 * g->dram_cycles);
  CU_ASSERT_TRUE(dep.stall_cycles > 7 * g->dram_cycles);
  CU_ASSERT_EQUAL(ind.memory_instructions, 8);
  CU_ASSERT_EQUAL(ind.warp_instructions, 10);
  CU_ASSERT_EQUAL(ind.dram_sectors, 64 + 5); /* 2 lines of 4 sectors a load, a sector each entry read */
  CU_ASSERT_DOUBLE_EQUAL(ind.ns, ind.cycles / g->clock_ghz + g->stream_launch_ns, 1e-6);
  /* outside the mapping: the instruction's file and line, the memory path in the model's thread or its own */
  write_trace(path, 2, false, BASE + (64u << 20));
  char want[128];
  snprintf(want, sizeof want, "%s:16: address 0x%llx is outside every mapping", path,
           (unsigned long long)(BASE + (64u << 20)));
  for (unsigned jobs = 1; jobs <= 2; jobs++) {
    CU_ASSERT_EQUAL(run_jobs(&e, path, jobs, &ind, &d), -1);
    CU_ASSERT_STRING_EQUAL(d.msg, want);
  }
  unlink(path);
  machine_destroy(e.m);
}

/* A walk's reads go to the L2: with no page-table line cache and a TLB
 * fill of one page (its 16-byte PD0 entry), the second page walks again,
 * its walk caches hit down to PD1, and its PD0 entry shares a line with
 * the first page's, which the first walk brought into the L2: one read,
 * an L2 hit, walk_ref_cycles (the chase's) after the walk's fixed part. */
static void test_walk_l2(void) {
  model_env e;
  env_init(&e, 64u << 20);
  e.spec.sys.mmu.walker.line_cache.entries = 0;
  e.spec.sys.mmu.fill_bytes = 16;
  char path[] = "/tmp/tlbsim_kmodel_XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_TRUE_FATAL(fd >= 0);
  close(fd);
  diag d;
  kmodel_result r[2];
  write_trace(path, 2, true, BASE); /* pages 0 and 0 */
  CU_ASSERT_EQUAL_FATAL(run(&e, path, &r[0], &d), 0);
  write_trace(path, 3, true, BASE); /* pages 0, 0 and 1 */
  CU_ASSERT_EQUAL_FATAL(run(&e, path, &r[1], &d), 0);
  CU_ASSERT_EQUAL(r[0].served[3], 1);
  CU_ASSERT_EQUAL(r[1].served[3], 2);
  CU_ASSERT_EQUAL(r[1].walk_reads, 6);
  CU_ASSERT_EQUAL(r[1].walk_reads_dram, 5);
  const gpu_config *g = &e.spec.gpu;
  const memsys_config *mem = &e.spec.sys.mem;
  /* the third load: the L2 and L3 TLBs' latencies, a walk of the fixed part and one L2-served read, then
     its line from DRAM (the issue of one more instruction within a cycle) */
  const mmu_config *mc = &e.spec.sys.mmu;
  double third = r[1].cycles - r[0].cycles,
         walk = mc->level[1].latency + mc->level[2].latency + mc->walker.walk_cycles + mem->table_cycles;
  CU_ASSERT_DOUBLE_EQUAL(third, walk + g->dram_cycles, 1.5);
  unlink(path);
  machine_destroy(e.m);
}

/* A copy that fits the L2, run warm: written through, DRAM takes its
 * stores' sectors (the reads all hit); write-back, nothing reaches DRAM,
 * and the launch lasts at least DRAM's work (nobody waits on a store). */
static void test_write_back(void) {
  model_env e;
  env_init(&e, 64u << 20);
  kstream_spec s = {.copy = true, .src_va = BASE, .dst_va = BASE + (32u << 20), .bytes = 4u << 20, .passes = 2,
                    .blocks = 132, .block_threads = 512}; /* 4 elements a thread: DRAM-bound written through */
  diag d;
  kstream *k = kstream_create(&s, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(k);
  kmodel_source src = {.next = kstream_next, .rewind = kstream_rewind, .ctx = k, .kernel = kstream_kernel(k)};
  kmodel_result r[2];
  for (int back = 0; back < 2; back++) {
    e.spec.gpu.l2_write_back = back;
    kmodel_spec ms = {.sys = &e.spec.sys, .gpu = &e.spec.gpu, .table = machine_get_pt(e.m), .groups = 1};
    CU_ASSERT_EQUAL_FATAL(kmodel_run(&ms, &src, &src, &r[back], &d), 0);
    kstream_rewind(k);
  }
  /* 6 SMs' share of 2 passes of 4 MiB stored: about 6/132 x 2 x 131072 sectors */
  CU_ASSERT_TRUE(r[0].dram_sectors > 10000 && r[0].dram_sectors < 14000);
  CU_ASSERT_EQUAL(r[1].dram_sectors, 0);
  CU_ASSERT_TRUE(r[0].busy[6] <= 1.0 + 1e-9 && r[0].cycles > r[1].cycles);
  kstream_destroy(k);
  machine_destroy(e.m);
}

/* Whether two results are the same, field by field (doubles exactly). */
static bool same_result(const kmodel_result *a, const kmodel_result *b) {
  bool same = a->ns == b->ns && a->cycles == b->cycles && a->kernel_blocks == b->kernel_blocks &&
              a->kernel_warp_instructions == b->kernel_warp_instructions &&
              a->kernel_memory_instructions == b->kernel_memory_instructions && a->blocks == b->blocks &&
              a->warps == b->warps && a->warp_instructions == b->warp_instructions &&
              a->memory_instructions == b->memory_instructions && a->lines == b->lines && a->sectors == b->sectors &&
              a->l1_hits == b->l1_hits && a->l2_hits == b->l2_hits && a->l2_lines == b->l2_lines &&
              a->dram_sectors == b->dram_sectors && a->dram_rows == b->dram_rows && a->translations == b->translations &&
              a->walk_reads == b->walk_reads && a->walk_reads_dram == b->walk_reads_dram &&
              a->translation_cycles == b->translation_cycles && a->stall_cycles == b->stall_cycles &&
              a->sms == b->sms && a->share == b->share;
  for (unsigned i = 0; i < 4; i++) same &= a->served[i] == b->served[i];
  for (unsigned i = 0; i < GDEV_STAGES; i++) same &= a->busy[i] == b->busy[i];
  return same;
}

/* A stream's blocks, with an error in place of block `fail` from the
 * timed pass's first reading on (the warm-up reads it whole once). */
typedef struct failing {
  kstream *k;
  uint64_t block, fail;
  unsigned reads;
} failing;

static int failing_next(void *ctx, ktrace_tb *tb, diag *d) {
  failing *f = ctx;
  if (f->reads > 0 && f->block == f->fail) return diag_set(d, "stream", 7, "block %llu is bad", (unsigned long long)f->block);
  int got = kstream_next(f->k, tb, d);
  f->block += got == 1;
  return got;
}

static void failing_rewind(void *ctx) {
  failing *f = ctx;
  kstream_rewind(f->k);
  f->block = 0;
  f->reads++;
}

/* The memory path on a thread of its own (jobs 2) gives what it gives in
 * the model's thread (jobs 1), count for count and time for time: a
 * stream copy on every SM, 400 blocks of 32 warps (264 in the first
 * wave, the rest as slots free), with four loads each in flight at once (more than the pipe's 4,096 requests: the
 * model asks for some loads' times before they are due), its warm-up more
 * requests than the ring holds, and its L2 written back so that stores
 * evict. A source that fails at a block after the first wave stops both
 * with that error. */
static void test_memory_thread(void) {
  model_env e;
  env_init(&e, 64u << 20);
  e.spec.gpu.l2_write_back = 1;
  kstream_spec s = {.copy = true, .src_va = BASE, .dst_va = BASE + (32u << 20), .bytes = 32u << 20, .passes = 1,
                    .blocks = 400, .block_threads = 1024};
  diag d;
  failing f = {.k = kstream_create(&s, &d), .fail = UINT64_MAX};
  CU_ASSERT_PTR_NOT_NULL_FATAL(f.k);
  kmodel_source src = {.next = failing_next, .rewind = failing_rewind, .ctx = &f, .kernel = kstream_kernel(f.k)};
  kmodel_result r[2];
  for (unsigned jobs = 1; jobs <= 2; jobs++) {
    kmodel_spec ms = {.sys = &e.spec.sys, .gpu = &e.spec.gpu, .table = machine_get_pt(e.m), .jobs = jobs};
    CU_ASSERT_EQUAL_FATAL(kmodel_run(&ms, &src, &src, &r[jobs - 1], &d), 0);
    failing_rewind(&f);
    f.reads = 0;
  }
  CU_ASSERT_EQUAL(r[0].blocks, 400);
  CU_ASSERT_EQUAL(r[0].lines, 2 * (32u << 20) / 128); /* each line read once and written once */
  CU_ASSERT_TRUE(r[0].dram_sectors > 0);             /* the dirty lines the L2 evicted */
  CU_ASSERT_TRUE(same_result(&r[0], &r[1]));
  f.fail = 300;
  for (unsigned jobs = 1; jobs <= 2; jobs++) {
    kmodel_spec ms = {.sys = &e.spec.sys, .gpu = &e.spec.gpu, .table = machine_get_pt(e.m), .jobs = jobs};
    CU_ASSERT_EQUAL(kmodel_run(&ms, &src, &src, &r[0], &d), -1);
    CU_ASSERT_STRING_EQUAL(d.msg, "stream:7: block 300 is bad");
    failing_rewind(&f);
    f.reads = 0;
  }
  kstream_destroy(f.k);
  machine_destroy(e.m);
}

/* Every element of a small stream is loaded once a pass (and stored once by
 * copy), lanes past the end inactive; trips bounds a warp's loop. */
static void test_stream_source(void) {
  enum { N = 600, PASSES = 2 };
  for (int copy = 0; copy < 2; copy++) {
    kstream_spec s = {.copy = copy, .src_va = BASE, .dst_va = BASE + (1u << 20), .bytes = 16 * N, .passes = PASSES,
                      .blocks = 2, .block_threads = 64};
    diag d;
    kstream *k = kstream_create(&s, &d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_EQUAL(kstream_trips(&s), 2); /* 600 elements, 4 x 128 threads a trip */
    ktrace_tb *tb = ktrace_tb_new();
    unsigned loads[N] = {0}, stores[N] = {0}, bad = 0;
    while (kstream_next(k, tb, &d) == 1)
      for (uint32_t i = 0; i < tb->ninst; i++)
        for (uint32_t a = tb->addr_at[i]; a < tb->addr_at[i + 1]; a++) {
          bool st = tb->cls[i] == KTRACE_GLOBAL_STORE;
          uint64_t e = (tb->addr[a] - (st ? s.dst_va : s.src_va)) / 16;
          CU_ASSERT_TRUE(tb->ops[tb->op[i]].l2_only != st); /* ld.global.cg: L2 only */
          if (e >= N) bad++;
          else (st ? stores : loads)[e]++;
        }
    CU_ASSERT_EQUAL(bad, 0);
    for (unsigned e = 0; e < N; e++) CU_ASSERT_TRUE(loads[e] == PASSES && stores[e] == (copy ? PASSES : 0u));
    kstream_rewind(k);
    CU_ASSERT_EQUAL(kstream_next(k, tb, &d), 1);
    CU_ASSERT_EQUAL(tb->x, 0);
    kstream_destroy(k);
    s.trips = 1; /* one trip a pass: warp 0 loads its elements 0 + 128u, u < 4, not 512 + 128u */
    k = kstream_create(&s, &d);
    CU_ASSERT_EQUAL_FATAL(kstream_next(k, tb, &d), 1);
    unsigned ldg = 0;
    for (uint32_t i = tb->first[0]; i < tb->first[0] + tb->count[0]; i++) ldg += tb->cls[i] == KTRACE_GLOBAL_LOAD;
    CU_ASSERT_EQUAL(ldg, 4 * PASSES);
    /* the listing's instructions (gpu_stream.sass): the read 8 before the passes, 76 a pass of one trip
       (its S2R, LDCs, compares, four loads, XORs, BSSY/BSYNC), 2 after; the copy 12, 67, 1 */
    CU_ASSERT_EQUAL(tb->count[0], copy ? 12 + 67 * PASSES + 1 : 8 + 76 * PASSES + 2);
    kstream_destroy(k);
    ktrace_tb_free(tb);
  }
  diag d;
  kstream_spec bad_launch = {.bytes = 17, .passes = 1, .blocks = 1, .block_threads = 32};
  CU_ASSERT_PTR_NULL(kstream_create(&bad_launch, &d));
}

/* The DRAM chase walks the GPU's nodes in index order from position
 * `first`; the L2 chase's cycle revisits lines, which ld.global.cg takes
 * past the L1 (no L1 hits) to the L2. */
static void test_chase_source(void) {
  diag d;
  kchase_spec s = {.kind = KCHASE_DRAM, .va_base = BASE, .footprint = 1u << 20, .nodes = 64, .seed = 1,
                   .first = 60, .loads = 8};
  kchase *k = kchase_create(&s, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(k);
  ktrace_tb *tb = ktrace_tb_new();
  CU_ASSERT_EQUAL_FATAL(kchase_next(k, tb, &d), 1);
  CU_ASSERT_EQUAL(kchase_next(k, tb, &d), 0);
  gpu_rowperm p;
  gpu_rowperm_init(&p, (1u << 20) / 128, 1);
  unsigned j = 0;
  for (uint32_t i = 0; i < tb->ninst; i++)
    if (tb->cls[i] == KTRACE_GLOBAL_LOAD) {
      CU_ASSERT_EQUAL(tb->addr_at[i + 1] - tb->addr_at[i], 1);
      CU_ASSERT_EQUAL(tb->addr[tb->addr_at[i]], BASE + 128 * gpu_rowperm_at(&p, (60 + j++) % 64));
    }
  CU_ASSERT_EQUAL(j, 8);
  kchase_destroy(k);
  s.nodes = 1u << 14; /* more nodes than lines */
  CU_ASSERT_PTR_NULL(kchase_create(&s, &d));
  model_env e;
  env_init(&e, 64u << 20);
  kchase_spec l2 = {.kind = KCHASE_L2, .va_base = BASE, .footprint = 512, .nodes = 4, .seed = 1, .loads = 16};
  k = kchase_create(&l2, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(k);
  kmodel_spec ms = {.sys = &e.spec.sys, .gpu = &e.spec.gpu, .table = machine_get_pt(e.m)};
  kmodel_source src = {.next = kchase_next, .ctx = k, .kernel = kchase_kernel(k)};
  kmodel_result r;
  CU_ASSERT_EQUAL_FATAL(kmodel_run(&ms, NULL, &src, &r, &d), 0);
  CU_ASSERT_EQUAL(r.l1_hits, 0);
  CU_ASSERT_EQUAL(r.l2_lines, 16);
  CU_ASSERT_EQUAL(r.l2_hits, 12); /* 4 lines, each from DRAM once */
  kchase_destroy(k);
  ktrace_tb_free(tb);
  machine_destroy(e.m);
}

/* The device's two calls on the h200 preset: a page's first translation
 * walks (its reads through the L2, from DRAM the first time), the same
 * page again hits the SM's TLB in no time, a page the group's other SM
 * walked hits the group's L2 TLB; a line from DRAM, then from the SM's
 * L2 partition; an address outside every mapping times nothing. */
static void test_device(void) {
  model_env e;
  env_init(&e, 64u << 20);
  diag d;
  gdev_spec s = {.sys = &e.spec.sys, .gpu = &e.spec.gpu, .table = machine_get_pt(e.m), .groups = 1};
  gdev *g = gdev_new(&s, "test", &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  CU_ASSERT_EQUAL(gdev_sms(g), 6); /* one L2-TLB group of the preset's */
  gdev_page pg;
  double t = gdev_translate(g, 0, 100, BASE, ACC_READ, &pg);
  CU_ASSERT_EQUAL(pg.o.status, MMU_OK);
  CU_ASSERT_EQUAL(pg.where, GDEV_AT_WALK);
  /* at least the TLBs' latencies, the walk's fixed part and one read from DRAM */
  CU_ASSERT_TRUE(t >= 100 + e.spec.gpu.dram_cycles + e.spec.sys.mem.data_cycles);
  CU_ASSERT_EQUAL(gdev_translate(g, 0, 5000, BASE + 4096, ACC_READ, &pg), 5000);
  CU_ASSERT_EQUAL(pg.where, GDEV_AT_SM);
  double l2 = gdev_translate(g, 1, 6000, BASE, ACC_READ, &pg); /* SM 1 shares SM 0's L2 TLB */
  CU_ASSERT_EQUAL(pg.where, GDEV_AT_GROUP);
  CU_ASSERT_TRUE(l2 > 6000 && l2 < 6000 + e.spec.sys.mem.data_cycles);
  bool hit;
  double back = gdev_line(g, 0, 7000, pg.o.pa >> KMEM_LINE_SHIFT, 0x1, false, &hit);
  CU_ASSERT_FALSE(hit);
  CU_ASSERT_TRUE(back >= 7000 + e.spec.gpu.dram_cycles);
  back = gdev_line(g, 0, 9000, pg.o.pa >> KMEM_LINE_SHIFT, 0x1, false, &hit);
  CU_ASSERT_TRUE(hit);
  CU_ASSERT_DOUBLE_EQUAL(back, 9000 + e.spec.sys.mem.data_cycles, 1);
  CU_ASSERT_EQUAL(gdev_translate(g, 0, 10000, BASE + (1ull << 40), ACC_READ, &pg), 10000);
  CU_ASSERT_NOT_EQUAL(pg.o.status, MMU_OK);
  gdev_counts c;
  gdev_report(g, 10000, &c);
  CU_ASSERT_EQUAL(c.translations, 3);
  CU_ASSERT_EQUAL(c.served[GDEV_AT_WALK] + c.served[GDEV_AT_SM] + c.served[GDEV_AT_GROUP], 3);
  CU_ASSERT_TRUE(c.walk_reads >= 1 && c.walk_reads_dram >= 1);
  CU_ASSERT_EQUAL(mmu_get_stats(system_agent_mmu(gdev_system(g), 0))->walks, 2); /* BASE, and the unmapped one */
  gdev_free(g);
  machine_destroy(e.m);
}

int main(void) {
  static const test_case parts[] = {{"coalesce", test_coalesce}, {"cache", test_cache}, {"cache_full", test_cache_full},
                                    {"cache_full_lru", test_cache_full_lru},
                                    {"l2", test_l2}, {"dram", test_dram},
                                    {"band", test_band}, {NULL, NULL}};
  static const test_case model[] = {{"scoreboard", test_scoreboard}, {"walk reads the L2", test_walk_l2},
                                    {"write-back", test_write_back}, {"memory thread", test_memory_thread},
                                    {"stream source", test_stream_source},
                                    {"chase source", test_chase_source}, {"device", test_device}, {NULL, NULL}};
  static const test_suite suites[] = {{"kmem", parts}, {"kmodel", model}, {NULL, NULL}};
  return harness_run(suites);
}
