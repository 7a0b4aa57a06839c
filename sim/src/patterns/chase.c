/* The pointer chase: map a region like tlbsim-gpu does, build the same
 * chain, replay warm-up and timed passes through the MMU. */
#include "tlbsim/chase.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_chain.h"

const char *const chase_mapping_names[] = {[CHASE_CONTIGUOUS] = "contiguous", [CHASE_SHUFFLED] = "shuffled",
                                           [CHASE_CUDAMALLOC] = "cudamalloc", [CHASE_ALIASED] = "aliased", NULL};

/* tlbsim-gpu's per-node skew under the aliased mapping (GPU_ALIAS_LINE). */
#define ALIAS_LINE 128u
const char *const chase_order_names[] = {[CHASE_SEQ] = "seq", [CHASE_RANDOM] = "random", NULL};

int chase_mapping_parse(const char *s, chase_mapping *out) {
  for (int i = 0; chase_mapping_names[i]; i++)
    if (!strcmp(s, chase_mapping_names[i])) return *out = (chase_mapping)i, 0;
  return -1;
}

const char *chase_mapping_name(chase_mapping m) { return chase_mapping_names[m]; }

int chase_order_parse(const char *s, chase_order *out) {
  for (int i = 0; chase_order_names[i]; i++)
    if (!strcmp(s, chase_order_names[i])) return *out = (chase_order)i, 0;
  return -1;
}

const char *chase_order_name(chase_order o) { return chase_order_names[o]; }

/* The region starts at a VA aligned to its size rounded up to a power of
 * two, as tlbsim-gpu reserves it, so set-index bits see i*stride unchanged. */
static uint64_t region_base(uint64_t size) {
  uint64_t a = 1ull << 21;
  while (a < size && a < (1ull << 40)) a <<= 1;
  return a < (1ull << 40) ? a : 1ull << 40;
}

/* Maps the region: VA chunk v is backed by physical chunk perm[v]. */
static int map_region(pt *t, uint64_t base, uint64_t size, const chase_spec *s, diag *d) {
  uint64_t chunk = s->chunk > s->page_size ? s->chunk : s->page_size;
  uint64_t nchunks = (size + chunk - 1) / chunk;
  if (nchunks > UINT32_MAX) return diag_set(d, NULL, 0, "chase: region of %llu chunks is too large", (unsigned long long)nchunks);
  uint32_t *perm = malloc(nchunks * sizeof *perm);
  if (!perm) return diag_set(d, NULL, 0, "chase: out of memory");
  if (s->mapping == CHASE_SHUFFLED) gpu_permute(perm, (uint32_t)nchunks, s->seed);
  else
    for (uint32_t i = 0; i < nchunks; i++) perm[i] = i;
  unsigned shift = log2_u64(s->page_size);
  int rc = 0;
  for (uint64_t v = 0; v < nchunks && !rc; v++)
    for (uint64_t off = 0; off < chunk && !rc; off += s->page_size)
      rc = pt_map(t, base + v * chunk + off, (uint64_t)perm[v] * chunk + off, shift, PT_R | PT_W, d);
  free(perm);
  return rc;
}

/* Aliased: the chunk holding node i (by index) is physical chunk
 * i / (chunk / ALIAS_LINE); chunks without a node stay unmapped. */
static int map_aliased(pt *t, uint64_t base, uint32_t nodes, const chase_spec *s, diag *d) {
  uint64_t chunk = s->chunk, per_chunk = chunk / ALIAS_LINE;
  unsigned shift = log2_u64(s->page_size);
  for (uint32_t i = 0; i < nodes; i++) {
    uint64_t va = base + (uint64_t)i * s->stride / chunk * chunk;
    pt_mapping old;
    if (pt_lookup(t, va, &old)) continue;
    for (uint64_t off = 0; off < chunk; off += s->page_size)
      if (pt_map(t, va + off, i / per_chunk * chunk + off, shift, PT_R | PT_W, d)) return -1;
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Walks the chain from position *pos for n loads; returns their cycles. */
static uint64_t walk_chain(mmu *m, uint64_t base, const uint64_t *off, uint32_t nodes, uint32_t *pos, uint64_t n) {
  uint64_t before = mmu_get_stats(m)->cycles;
  uint32_t p = *pos;
  for (uint64_t k = 0; k < n; k++) {
    mmu_outcome o;
    mmu_translate(m, base + off[p], ACC_READ, &o);
    if (++p == nodes) p = 0;
  }
  *pos = p;
  return mmu_get_stats(m)->cycles - before;
}

static int check_spec(const chase_spec *s, uint32_t *nodes, diag *d) {
  if (!s->stride || s->stride % 8) return diag_set(d, NULL, 0, "chase: stride must be a positive multiple of 8");
  if (!is_pow2(s->page_size)) return diag_set(d, NULL, 0, "chase: page size must be a power of two");
  if (s->chunk && (!is_pow2(s->chunk) || s->chunk < s->page_size))
    return diag_set(d, NULL, 0, "chase: chunk must be a power of two of at least one page");
  uint64_t n = s->nodes ? s->nodes : s->footprint / s->stride;
  if (n == 0) return diag_set(d, NULL, 0, "chase: footprint %llu holds no node at stride %llu",
                              (unsigned long long)s->footprint, (unsigned long long)s->stride);
  if (n > UINT32_MAX) return diag_set(d, NULL, 0, "chase: too many nodes");
  if (!s->steps || !s->repeats) return diag_set(d, NULL, 0, "chase: steps and repeats must be positive");
  *nodes = (uint32_t)n;
  return 0;
}

int chase_run(const pt_format *f, const mmu_config *mc, const chase_spec *s, chase_result *out, diag *d) {
  uint32_t nodes = 0;
  if (check_spec(s, &nodes, d)) return -1;
  uint64_t size = (uint64_t)nodes * s->stride, base = s->va_base ? s->va_base : region_base(size);
  if (base % s->page_size) return diag_set(d, NULL, 0, "chase: region base %#llx is not page aligned", (unsigned long long)base);
  uint64_t *off = malloc((size_t)nodes * sizeof *off);
  double *pass = malloc(s->repeats * sizeof *pass);
  pt *t = pt_create(f);
  mmu *m = NULL;
  int rc = -1;
  if (!off || !pass || !t) {
    diag_set(d, NULL, 0, "chase: out of memory");
    goto done;
  }
  gpu_chain_spec cs = {.nodes = nodes, .stride = s->stride, .seed = s->seed,
                       .order = s->order == CHASE_RANDOM ? GPU_ORDER_RANDOM : GPU_ORDER_SEQ};
  bool aliased = s->mapping == CHASE_ALIASED;
  if (aliased) {
    if (s->stride % s->chunk || s->chunk < s->page_size) {
      diag_set(d, NULL, 0, "chase: the aliased mapping needs a stride that is a multiple of the chunk");
      goto done;
    }
    cs.skew_line = ALIAS_LINE;
    cs.skew_period = s->chunk / ALIAS_LINE;
  }
  if (gpu_chain_build(&cs, off, d) ||
      (aliased ? map_aliased(t, base, nodes, s, d) : map_region(t, base, size, s, d)) ||
      !(m = mmu_create(mc, t, NULL, d)))
    goto done;
  uint32_t pos = 0;
  walk_chain(m, base, off, nodes, &pos, s->warmup > nodes ? s->warmup : nodes);
  mmu_reset_stats(m);
  for (unsigned r = 0; r < s->repeats; r++)
    pass[r] = (double)walk_chain(m, base, off, nodes, &pos, s->steps) / (double)s->steps;
  qsort(pass, s->repeats, sizeof *pass, cmp_double);
  *out = (chase_result){.nodes = nodes, .loads = (uint64_t)s->repeats * s->steps,
                        .walks = mmu_get_stats(m)->walks, .walk_refs = mmu_get_stats(m)->walk_refs,
                        .line_hits = mmu_get_stats(m)->line_hits};
  out->cycles_per_access = s->repeats % 2 ? pass[s->repeats / 2]
                                          : (pass[s->repeats / 2 - 1] + pass[s->repeats / 2]) / 2;
  for (unsigned i = 0; i < mc->nlevels; i++) out->level[i] = mmu_level_get_stats(m, i);
  rc = 0;
done:
  mmu_destroy(m);
  pt_destroy(t);
  free(pass);
  free(off);
  return rc;
}
