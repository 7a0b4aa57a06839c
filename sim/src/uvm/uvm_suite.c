/* uvm_suite.c — the managed-memory experiment of the GPU suite, simulated
 * (see tlbsim/uvm_suite.h). */
#include "tlbsim/uvm_suite.h"

#include <stdlib.h>
#include <string.h>

#include "tlbsim/gpu_gather.h"
#include "tlbsim/gather.h"
#include "tlbsim/region.h"

#define LINE 128u
/* Lines the warm gather's model spreads over the buffer (its loads go to
 * hashed ones; translation sees only their pages, so a sample as dense as
 * 4 per 64 KiB page up to 16 GiB and 1 per 16 KiB beyond stands for all). */
#define MODEL_NODES (UINT32_C(1) << 22)

typedef struct run {
  const machine_spec *m;
  const uvm_suite_spec *s;
  uvm_table tab;
  uvm_space *space;
  uint64_t base;
} run;

/* The buffer as cudaMalloc maps it: 2 MiB pages, one physical run. */
static int map_malloc(run *r, diag *d) {
  uint64_t page = r->m->uvm.va_block, pages = (r->s->size + page - 1) / page;
  unsigned shift = log2_u64(page);
  bool down = r->m->frame_order == PHYS_HIGHEST_FIRST; /* the last page first, so that they ascend */
  for (uint64_t i = 0; i < pages; i++) {
    uint64_t k = down ? pages - 1 - i : i, pa;
    if (phys_alloc(r->tab.frames, shift, &pa)) return diag_set(d, NULL, 0, "uvm: the buffer does not fit device memory");
    if (pt_map(r->tab.table, r->base + k * page, pa, shift, PT_R | PT_W, d)) return -1;
  }
  return 0;
}

static int fault(run *r, uint64_t va, uvm_counts *c, diag *d) {
  int rc = uvm_gpu_fault(r->space, va, false, c, d);
  return rc < 0 ? -1 : 0;
}

/* The first kernel's (or the dense pass's) touches, in the order it makes them. */
static int touch_stream(run *r, uvm_counts *c, diag *d) {
  uint64_t step = r->m->uvm.big_page;
  for (uint64_t off = 0; off < r->s->size; off += step)
    if (fault(r, r->base + off, c, d)) return -1;
  return 0;
}

static int touch_gather(run *r, uvm_counts *c, diag *d) {
  uint64_t threads = (uint64_t)r->m->gpu.sms * GPU_UVM_GATHER_TPS;
  uint32_t lines = (uint32_t)(r->s->size / LINE);
  for (uint32_t g = 0; g < GPU_UVM_GATHER_LOADS; g += GPU_GATHER_BATCH)
    for (uint64_t t = 0; t < threads; t++)
      for (uint32_t u = 0; u < GPU_GATHER_BATCH; u++)
        if (fault(r, r->base + (uint64_t)LINE * gpu_gather_node(r->s->seed, t, g + u, lines), c, d)) return -1;
  return 0;
}

static double stream_ms(const run *r) {
  const gpu_config *g = &r->m->gpu;
  return ((g->stream_gbps > 0 ? (double)r->s->size / g->stream_gbps : 0) + g->stream_launch_ns) / 1e6;
}

/* The warm gather over the pages mapped now, its data from the L2 cache
 * for a share l2_bytes / size of its lines and from DRAM for the rest. */
static int gather_lpns(const run *r, double *lpns, diag *d) {
  const machine_spec *m = r->m;
  uint64_t lines = r->s->size / LINE;
  uint32_t nodes = lines < MODEL_NODES ? (uint32_t)lines : MODEL_NODES;
  uint64_t *va = malloc(nodes * sizeof *va);
  if (!va) return diag_set(d, NULL, 0, "uvm: out of memory");
  for (uint32_t i = 0; i < nodes; i++) va[i] = r->base + (uint64_t)i * (lines / nodes) * LINE;
  double hit = m->gpu.l2_bytes >= r->s->size ? 1 : (double)m->gpu.l2_bytes / (double)r->s->size;
  gpu_config g = m->gpu;
  system_spec sys = m->sys;
  g.data_interval = hit * m->gpu.data_interval + (1 - hit) * m->gpu.dram_interval;
  sys.mem.data_cycles = (uint32_t)(hit * m->sys.mem.data_cycles + (1 - hit) * m->gpu.dram_cycles + 0.5);
  gather_spec sp = {.region = {.nodes = nodes, .page_size = m->uvm.va_block, .chunk = m->uvm.va_block},
                    .node_va = va, .table = r->tab.table, .threads_per_sm = GPU_UVM_GATHER_TPS,
                    .loads_per_thread = GPU_UVM_GATHER_LOADS, .batch = GPU_GATHER_BATCH, .block_threads = 256,
                    .seed = r->s->seed, .sms_used = m->gpu.sms, .groups = 2};
  gather_result res;
  int rc = gather_run(&m->format, &sys, &g, &sp, &res, d);
  free(va);
  *lpns = res.loads_per_ns;
  return rc;
}

static void count_pages(const run *r, uvm_suite_result *out) {
  out->pages_2m = out->pages_64k = 0;
  for (uint64_t off = 0; off < r->s->size; off += r->m->uvm.va_block) {
    uvm_block_state b;
    if (uvm_block_get(r->space, r->base + off, &b)) continue;
    if (b.big2m) out->pages_2m++;
    else out->pages_64k += (uint64_t)__builtin_popcountll(b.gpu | b.remote);
  }
}

/* The buffer made and populated as init says. */
static int populate(run *r, uvm_suite_result *out, diag *d) {
  gpu_uvm_init init = r->s->init;
  if (init == GPU_UVM_MALLOC) {
    out->pages_2m = (r->s->size + r->m->uvm.va_block - 1) / r->m->uvm.va_block;
    return map_malloc(r, d);
  }
  uvm_ops ops = uvm_table_ops(&r->tab);
  if (!(r->space = uvm_create(&r->m->uvm, &ops))) return diag_set(d, NULL, 0, "uvm: out of memory");
  if (uvm_range_add(r->space, r->base, r->s->size, d)) return -1;
  uvm_counts none = {0};
  if (gpu_uvm_host_written(init) && uvm_host_access(r->space, r->base, r->s->size, true, &none, d)) return -1;
  if (init == GPU_UVM_ADVISE && uvm_advise(r->space, r->base, r->s->size, UVM_PREFERRED_GPU, &none, d)) return -1;
  if ((init == GPU_UVM_HOST_PREFETCH || init == GPU_UVM_ADVISE) &&
      uvm_prefetch(r->space, r->base, r->s->size, UVM_GPU, &out->prefetch, d))
    return -1;
  if (out->prefetch.prefetch_ns > 0 || init == GPU_UVM_HOST_PREFETCH || init == GPU_UVM_ADVISE)
    out->prefetch_ms = out->prefetch.prefetch_ns / 1e6;
  return 0;
}

static int check(const machine_spec *m, const uvm_suite_spec *s, diag *d) {
  if (!m->gpu.sms) return diag_set(d, NULL, 0, "uvm: the configuration has no [gpu] section (not a GPU preset)");
  if (!s->size || s->size % LINE || s->size > UVM_SUITE_MAX_SIZE)
    return diag_set(d, NULL, 0, "uvm: size %llu is not a positive multiple of 128 bytes up to 512 GiB",
                    (unsigned long long)s->size);
  if (s->init >= GPU_UVM_INIT_COUNT || s->first >= GPU_UVM_FIRST_COUNT) return diag_set(d, NULL, 0, "uvm: no such row");
  if (pt_format_leaf_level(&m->format, log2_u64(m->uvm.va_block)) < 0 ||
      pt_format_leaf_level(&m->format, log2_u64(m->uvm.big_page)) < 0)
    return diag_set(d, NULL, 0, "uvm: format %s has no leaf for [uvm] va_block or big_page", m->format.name);
  return 0;
}

int uvm_suite_run(const machine_spec *m, const uvm_suite_spec *s, uvm_suite_result *out, diag *d) {
  *out = (uvm_suite_result){.prefetch_ms = -1};
  if (check(m, s, d)) return -1;
  run r = {.m = m, .s = s, .base = s->va_base ? s->va_base : region_default_base(s->size)};
  unsigned min_shift = 63;
  for (unsigned i = 0; i < m->format.nleaves; i++)
    if (m->format.leaf[i].page_shift < min_shift) min_shift = m->format.leaf[i].page_shift;
  r.tab.table = pt_create(&m->format);
  r.tab.frames = phys_create(m->phys_memory, min_shift, m->frame_order);
  int rc = -1;
  if (!r.tab.table || !r.tab.frames) {
    diag_set(d, NULL, 0, "uvm: out of memory");
    goto out;
  }
  if (populate(&r, out, d)) goto out;
  if (r.space && (s->first == GPU_UVM_STREAM ? touch_stream(&r, &out->cold, d) : touch_gather(&r, &out->cold, d)))
    goto out;
  if (r.space) {
    uvm_sync(r.space);
    count_pages(&r, out);
  }
  if (gather_lpns(&r, &out->gather_lpns, d)) goto out;
  uvm_counts dense = {0};
  if (r.space && (touch_stream(&r, &dense, d) || (uvm_sync(r.space), 0))) goto out;
  out->stream_ms = stream_ms(&r);
  out->stream_gbps = (double)s->size / (out->stream_ms * 1e6);
  if (dense.faults ? gather_lpns(&r, &out->gather2_lpns, d) : (out->gather2_lpns = out->gather_lpns, 0)) goto out;
  double loads = (double)m->gpu.sms * GPU_UVM_GATHER_TPS * GPU_UVM_GATHER_LOADS;
  double kernel_ms = s->first == GPU_UVM_STREAM ? out->stream_ms : loads / out->gather_lpns / 1e6;
  out->cold_ms = out->cold.fault_ns / 1e6 + kernel_ms;
  rc = 0;
out:
  uvm_destroy(r.space);
  pt_destroy(r.tab.table);
  phys_destroy(r.tab.frames);
  return rc;
}
