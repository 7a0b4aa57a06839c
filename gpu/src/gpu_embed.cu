/* The embedding-bag kernel (`tlbsim-gpu embed`): one warp per bag, each
 * lane loading 8 B of a row (gpu_embed.h says which), ids Zipf-distributed
 * and hashed over a table that is the first F bytes of one cudaMalloc.
 *
 * The kernel is one template per (R, L), fully unrolled: every id load of
 * the bag first, then every row load, then the sums, the butterfly between
 * lanes that hold the same word of different rows, and the store. Its
 * machine code is straight-line (no branch, no predicate), so a warp's
 * instruction sequence is the function's SASS from PC 0 to EXIT: what the
 * trace writer (gpu_accel.c, from gpu_embed_sass.c) reproduces. Loads are
 * ld.global.nc (LDG.E.64.CONSTANT: through the L1, as __ldg and a const
 * __restrict__ table give).
 *
 * Timing: the ids of a point are copied, one warm-up launch (first_ns), then
 * `repeats` launches each between two cudaEvents; ns is their median. After
 * the timed launches the host checks the outputs of 64 sampled bags against
 * gpu_embed_expect (word j of the table holds j). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "tlbsim/gpu_accel.h"
#include "gpu_cuda.h"
#include "tlbsim/gpu_embed.h"

struct embed_args {
  const uint64_t *table;
  const uint64_t *ids;
  uint64_t *out;
};

__device__ __forceinline__ uint64_t embed_ld(const void *p) {
  uint64_t v;
  asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

template <unsigned R, unsigned L>
__global__ void __launch_bounds__(GPU_EMBED_BLOCK, GPU_EMBED_MIN_BLOCKS) embed_kernel(embed_args a) {
  constexpr unsigned LPR = R / 8 < 32 ? R / 8 : 32, RPS = 32 / LPR, PARTS = R > 256 ? R / 256 : 1;
  constexpr unsigned STEPS = L / RPS;
  static_assert(L % RPS == 0, "L must be a multiple of the rows a warp loads at once");
  const unsigned lane = threadIdx.x % 32;
  const uint64_t bag = ((uint64_t)blockIdx.x * GPU_EMBED_BLOCK + threadIdx.x) / 32;
  const uint64_t *ids = a.ids + bag * L + lane / LPR;
  uint64_t id[STEPS];
#pragma unroll
  for (unsigned k = 0; k < STEPS; k++) id[k] = embed_ld(ids + k * RPS);
  const char *row0 = (const char *)a.table + (lane % LPR) * 8;
  uint64_t v[STEPS][PARTS];
#pragma unroll
  for (unsigned k = 0; k < STEPS; k++)
#pragma unroll
    for (unsigned p = 0; p < PARTS; p++) v[k][p] = embed_ld(row0 + id[k] * R + p * 256);
  uint64_t *out = a.out + bag * (R / 8) + lane % LPR;
#pragma unroll
  for (unsigned p = 0; p < PARTS; p++) {
    uint64_t acc = 0;
#pragma unroll
    for (unsigned k = 0; k < STEPS; k++) acc += v[k][p];
#pragma unroll
    for (unsigned m = LPR; m < 32; m *= 2) acc += __shfl_xor_sync(0xffffffffu, acc, m);
    out[p * 32] = acc;
  }
}

__global__ void embed_fill_kernel(uint64_t *t, uint64_t words) {
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x)
    t[i] = i;
}

typedef void (*embed_fn)(embed_args);

static const struct embed_instance {
  unsigned row_bytes, ids_per_bag;
  embed_fn fn;
} instances[] = {
    {64, 32, embed_kernel<64, 32>},
    {256, 32, embed_kernel<256, 32>},
};

static const embed_instance *find_instance(unsigned r, unsigned l) {
  for (const embed_instance &i : instances)
    if (i.row_bytes == r && i.ids_per_bag == l) return &i;
  return nullptr;
}

static int no_instance(uint64_t r, uint32_t l) {
  fprintf(stderr, "tlbsim-gpu: embed: no kernel compiled for %llu-byte rows and %u ids per bag (compiled:",
          (unsigned long long)r, l);
  for (const embed_instance &i : instances) fprintf(stderr, " R=%u L=%u", i.row_bytes, i.ids_per_bag);
  fprintf(stderr, ")\n");
  return -1;
}

/* The ids of a point, drawn group by group on the host's cores. */
static void draw_ids(const gpu_embed_geom *g, const gpu_embed_ids_spec *s, uint64_t groups, uint64_t *ids) {
  unsigned nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> th;
  for (unsigned t = 0; t < nt; t++)
    th.emplace_back([=]() {
      for (uint64_t q = t; q < groups; q += nt) gpu_embed_ids_group(g, s, q, ids);
    });
  for (std::thread &x : th) x.join();
}

static int make_dir(const char *dir) {
  if (mkdir(dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "tlbsim-gpu: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  return 0;
}

/* DIR itself for a single point, else DIR/r<R>_f<F>_a<alpha>. */
static int point_dir(const gpu_opts *o, uint32_t r, uint64_t f, double alpha, char *buf, size_t len) {
  if (make_dir(o->trace_dir)) return -1;
  bool single = o->nrow_bytes == 1 && o->sweep.nfootprints == 1 && o->nalphas == 1;
  int n = single ? snprintf(buf, len, "%s", o->trace_dir)
                 : snprintf(buf, len, "%s/r%u_f%llu_a%g", o->trace_dir, r, (unsigned long long)f, alpha);
  if (n >= (int)len) return -1;
  return single ? 0 : make_dir(buf);
}

static int write_trace(const gpu_opts *o, gpu_embed_trace *t, double alpha) {
  if (!t->k) {
    fprintf(stderr, "tlbsim-gpu: embed: no SASS table for R=%u L=%u (gpu_embed_sass.c: %s); no trace written\n",
            t->g->row_bytes, t->g->ids_per_bag, gpu_embed_sass_origin);
    return -1;
  }
  char dir[4096];
  if (point_dir(o, t->g->row_bytes, t->table_bytes, alpha, dir, sizeof dir)) return -1;
  t->dir = dir;
  diag d;
  double t0 = gpu_now_s();
  if (gpu_embed_trace_write(t, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return -1;
  }
  gpu_progress("embed: trace of %llu warps in %s (%.1f s)", (unsigned long long)t->g->bags, dir, gpu_now_s() - t0);
  return 0;
}

/* Sampled bags' outputs against the host's sums. */
static int check_out(const gpu_embed_geom *g, const uint64_t *ids, const uint64_t *out_dev) {
  unsigned n = g->bags < 64 ? (unsigned)g->bags : 64, words = g->row_bytes / 8;
  std::vector<uint64_t> got(words);
  for (unsigned s = 0; s < n; s++) {
    uint64_t b = s * g->bags / n;
    CK(cudaMemcpy(got.data(), out_dev + b * words, words * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    for (unsigned w = 0; w < words; w++) {
      uint64_t want = gpu_embed_expect(g, ids + b * g->ids_per_bag, w);
      if (got[w] != want) {
        fprintf(stderr, "tlbsim-gpu: embed: bag %llu word %u is %llu, the host's sum is %llu\n",
                (unsigned long long)b, w, (unsigned long long)got[w], (unsigned long long)want);
        return -1;
      }
    }
  }
  return 0;
}

struct embed_bufs {
  uint64_t *table = nullptr, *ids = nullptr, *out = nullptr;
  uint64_t table_alloc = 0, ids_alloc = 0, out_alloc = 0;
};

/* One measured point: returns -1 after a message. */
static int embed_point(const gpu_ctx *c, const gpu_opts *o, const embed_instance *inst, const gpu_embed_geom *g,
                       const gpu_embed_ids_spec *s, const embed_bufs *b, std::vector<uint64_t> &ids,
                       std::vector<uint64_t> &scratch, FILE *csv) {
  uint64_t n = g->bags * g->ids_per_bag;
  CK(cudaMemcpy(b->ids, ids.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
  embed_args a = {b->table, b->ids, b->out};
  unsigned grid = (unsigned)(g->bags / GPU_EMBED_BAGS_PER_BLOCK);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> ns(o->repeats + 1);
  for (unsigned r = 0; r <= o->repeats; r++) {
    CK(cudaEventRecord(e0));
    inst->fn<<<grid, GPU_EMBED_BLOCK>>>(a);
    CK(cudaEventRecord(e1));
    CK(cudaGetLastError());
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ns[r] = ms * 1e6;
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  if (check_out(g, ids.data(), b->out)) return -1;
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, (const void *)inst->fn));
  const char *name = "embed_kernel";
  CK(cudaFuncGetName(&name, (const void *)inst->fn));
  const gpu_sass_kernel *k = gpu_embed_sass_find(g->row_bytes, g->ids_per_bag);
  gpu_embed_row row;
  memset(&row, 0, sizeof row);
  row.kernel = name;
  row.grid = grid;
  row.block = GPU_EMBED_BLOCK;
  uint64_t warps = g->bags;
  row.warp_instructions = k ? warps * k->ninst : 0;
  row.memory_instructions = k ? warps * gpu_sass_memory_count(k) : 0;
  row.first_ns = ns[0];
  row.ns = gpu_summarize(ns.data() + 1, o->repeats);
  row.table_bytes = s->table_bytes;
  row.row_bytes = g->row_bytes;
  row.ids_per_bag = g->ids_per_bag;
  row.bags = g->bags;
  row.alpha = s->alpha;
  row.seed = s->seed;
  row.rows = s->table_bytes / g->row_bytes;
  row.distinct_rows = gpu_embed_distinct(ids.data(), n, scratch.data());
  row.regs = (unsigned)fa.numRegs;
  row.table_va = (uint64_t)(uintptr_t)b->table;
  row.ids_va = (uint64_t)(uintptr_t)b->ids;
  row.out_va = (uint64_t)(uintptr_t)b->out;
  row.table_alloc = b->table_alloc;
  row.repeats = o->repeats;
  row.device = c->prop.name;
  diag d;
  if (gpu_csv_embed_row(csv, &row, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return -1;
  }
  if (o->trace_dir) {
    gpu_embed_trace t = {g, k, ids.data(), row.table_va, b->table_alloc, row.ids_va, b->ids_alloc,
                         row.out_va, b->out_alloc, s->table_bytes, nullptr};
    if (write_trace(o, &t, s->alpha)) return -1;
  }
  return 0;
}

static uint64_t max_of(const uint64_t *v, size_t n) { return *std::max_element(v, v + n); }

/* Every (R, F, alpha) of the options; measure is false for --dry-run. */
static int embed_sweep(const gpu_ctx *c, const gpu_opts *o, const embed_bufs *b, FILE *csv) {
  uint64_t fmax = max_of(o->sweep.footprints, o->sweep.nfootprints);
  std::vector<uint64_t> f(o->sweep.footprints, o->sweep.footprints + o->sweep.nfootprints);
  std::sort(f.begin(), f.end());
  std::vector<uint64_t> ids, scratch;
  diag d;
  double t0 = gpu_now_s();
  for (size_t ri = 0; ri < o->nrow_bytes; ri++) {
    gpu_embed_geom g;
    if (o->row_bytes[ri] > UINT32_MAX ||
        gpu_embed_geom_init(&g, (uint32_t)o->row_bytes[ri], o->ids_per_bag, o->bags, &d)) {
      fprintf(stderr, "tlbsim-gpu: %s\n", o->row_bytes[ri] > UINT32_MAX ? "embed: row too large" : d.msg);
      return -1;
    }
    const embed_instance *inst = find_instance(g.row_bytes, g.ids_per_bag);
    if (!inst) return no_instance(g.row_bytes, g.ids_per_bag);
    uint64_t n = g.bags * g.ids_per_bag;
    ids.resize(n);
    scratch.resize(gpu_embed_distinct_scratch(n));
    for (uint64_t fb : f)
      for (size_t ai = 0; ai < o->nalphas; ai++) {
        gpu_embed_ids_spec s = {fb, o->alphas[ai], o->seed};
        uint64_t groups;
        if (gpu_embed_ids_check(&g, &s, &groups, &d)) {
          fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
          return -1;
        }
        draw_ids(&g, &s, groups, ids.data());
        if (b) {
          if (embed_point(c, o, inst, &g, &s, b, ids, scratch, csv)) return -1;
        } else {
          gpu_embed_trace t = {&g, gpu_embed_sass_find(g.row_bytes, g.ids_per_bag), ids.data(), 0, 0, 0, 0, 0, 0,
                               fb, nullptr};
          gpu_embed_allocs al = gpu_embed_allocs_for(fmax, max_of(o->row_bytes, o->nrow_bytes), o->ids_per_bag, o->bags);
          gpu_embed_dry_map(&t, &al);
          if (o->nembed_va) t.table_va = o->embed_va[0], t.ids_va = o->embed_va[1], t.out_va = o->embed_va[2];
          if (write_trace(o, &t, s.alpha)) return -1;
        }
        gpu_progress("embed: R=%u F=%.3g GiB alpha=%g: done, %.1f s", g.row_bytes, (double)fb / (1ull << 30),
                     s.alpha, gpu_now_s() - t0);
      }
  }
  return 0;
}

int gpu_embed_dry_run(const gpu_opts *o) { return embed_sweep(nullptr, o, nullptr, nullptr) ? GPU_EXIT_FAIL : 0; }

int gpu_cmd_embed(const gpu_ctx *c, const gpu_opts *o, FILE *csv) {
  diag d;
  if (gpu_csv_embed_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  uint64_t fmax = max_of(o->sweep.footprints, o->sweep.nfootprints), rmax = max_of(o->row_bytes, o->nrow_bytes);
  embed_bufs b;
  gpu_embed_allocs al = gpu_embed_allocs_for(fmax, rmax, o->ids_per_bag, o->bags);
  b.table_alloc = al.table, b.ids_alloc = al.ids, b.out_alloc = al.out;
  uint64_t need = b.table_alloc + b.ids_alloc + b.out_alloc, fr = gpu_free_bytes();
  if (need > fr) {
    fprintf(stderr, "tlbsim-gpu: embed: %.1f GiB needed, %.1f GiB may be allocated now\n",
            (double)need / (1ull << 30), (double)fr / (1ull << 30));
    return GPU_EXIT_FAIL;
  }
  double t0 = gpu_now_s();
  CK(cudaMalloc(&b.table, b.table_alloc));
  CK(cudaMalloc(&b.ids, b.ids_alloc));
  CK(cudaMalloc(&b.out, b.out_alloc));
  embed_fill_kernel<<<(unsigned)c->prop.multiProcessorCount * 8, 512>>>(b.table, b.table_alloc / 8);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  gpu_progress("embed: table %.2f GiB at 0x%llx filled in %.2f s", (double)b.table_alloc / (1ull << 30),
               (unsigned long long)(uintptr_t)b.table, gpu_now_s() - t0);
  int rc = embed_sweep(c, o, &b, csv);
  CK(cudaFree(b.table));
  CK(cudaFree(b.ids));
  CK(cudaFree(b.out));
  return rc ? GPU_EXIT_FAIL : 0;
}
