/* The pointer chase: map a region like tlbsim-gpu does, build the same
 * chain, replay warm-up and timed passes through the MMU. */
#include "tlbsim/chase.h"

#include <stdlib.h>
#include <string.h>

#include "tlbsim/gpu_chain.h"

const char *const chase_order_names[] = {[CHASE_SEQ] = "seq", [CHASE_RANDOM] = "random", NULL};

int chase_order_parse(const char *s, chase_order *out) {
  for (int i = 0; chase_order_names[i]; i++)
    if (!strcmp(s, chase_order_names[i])) return *out = (chase_order)i, 0;
  return -1;
}

const char *chase_order_name(chase_order o) { return chase_order_names[o]; }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Walks the cycle va[] from position *pos for n loads; returns their cycles. */
static uint64_t walk_chain(mmu *m, const uint64_t *va, uint32_t nodes, uint32_t *pos, uint64_t n) {
  uint64_t before = mmu_get_stats(m)->cycles;
  uint32_t p = *pos;
  for (uint64_t k = 0; k < n; k++) {
    mmu_outcome o;
    mmu_translate(m, va[p], ACC_READ, &o);
    if (++p == nodes) p = 0;
  }
  *pos = p;
  return mmu_get_stats(m)->cycles - before;
}

/* What every chase shares once its table and cycle exist: warm-up loads
 * (at least one pass), then `repeats` timed passes of `steps` loads; the
 * median pass's cycles per load. */
static int run_passes(const system_spec *sp, const pt *t, const uint64_t *va, uint32_t nodes, uint64_t warmup,
                      uint64_t steps, unsigned repeats, chase_result *out, diag *d) {
  double *pass = malloc(repeats * sizeof *pass);
  hwsystem *sys = NULL;
  mmu *m = NULL; /* the one thread's SM: agent 0 */
  if (!pass || !(sys = system_create(sp, t, NULL, d)) || !(m = system_agent(sys, 0, d))) {
    if (!pass) diag_set(d, NULL, 0, "chase: out of memory");
    system_destroy(sys);
    free(pass);
    return -1;
  }
  const mmu_config *mc = &sp->mmu;
  uint32_t pos = 0;
  walk_chain(m, va, nodes, &pos, warmup > nodes ? warmup : nodes);
  mmu_reset_stats(m);
  for (unsigned r = 0; r < repeats; r++) pass[r] = (double)walk_chain(m, va, nodes, &pos, steps) / (double)steps;
  qsort(pass, repeats, sizeof *pass, cmp_double);
  *out = (chase_result){.nodes = nodes, .loads = (uint64_t)repeats * steps, .walks = mmu_get_stats(m)->walks,
                        .walk_refs = mmu_get_stats(m)->walk_refs, .line_hits = mmu_get_stats(m)->line_hits};
  out->cycles_per_access = repeats % 2 ? pass[repeats / 2] : (pass[repeats / 2 - 1] + pass[repeats / 2]) / 2;
  for (unsigned i = 0; i < mc->nlevels; i++) out->level[i] = mmu_level_get_stats(m, i);
  system_destroy(sys);
  free(pass);
  return 0;
}

int chase_run_nodes(const system_spec *sp, const pt *t, const uint64_t *va, uint32_t nodes, uint64_t warmup,
                    uint64_t steps, unsigned repeats, chase_result *out, diag *d) {
  if (!nodes || !steps || !repeats) return diag_set(d, NULL, 0, "chase: nodes, steps and repeats must be positive");
  return run_passes(sp, t, va, nodes, warmup, steps, repeats, out, d);
}

/* An upper bound on the pages region_map builds for n nodes (region.c):
 * aliased maps one chunk per node, managed at most one small page per node,
 * the others every chunk of the region. */
static uint64_t region_pages(const chase_spec *s, uint64_t n, uint64_t size) {
  uint64_t chunk = s->chunk > s->page_size ? s->chunk : s->page_size;
  if (s->mapping == REGION_ALIASED) return n * (chunk / s->page_size);
  if (s->mapping == REGION_MANAGED && s->history) { /* every big page of the allocation, at most */
    region r = {.nodes = (uint32_t)n, .stride = s->stride, .history = s->history};
    uint64_t bytes = region_managed_bytes(&r);
    return n > bytes / REGION_MANAGED_SMALL ? n : bytes / REGION_MANAGED_SMALL + 1;
  }
  if (s->mapping == REGION_MANAGED) return n;
  return (size / chunk + (size % chunk != 0)) * (chunk / s->page_size);
}

/* The point's node count, once its spec is one chase_run accepts. */
static int check_spec(const chase_spec *s, uint32_t *nodes, diag *d) {
  if (!s->stride || s->stride % 8) return diag_set(d, NULL, 0, "chase: stride must be a positive multiple of 8");
  if (!is_pow2(s->page_size)) return diag_set(d, NULL, 0, "chase: page size must be a power of two");
  if (s->chunk && (!is_pow2(s->chunk) || s->chunk < s->page_size))
    return diag_set(d, NULL, 0, "chase: chunk must be a power of two of at least one page");
  uint64_t n = s->nodes ? s->nodes : s->footprint / s->stride;
  if (n == 0) return diag_set(d, NULL, 0, "chase: footprint %llu holds no node at stride %llu",
                              (unsigned long long)s->footprint, (unsigned long long)s->stride);
  if (n > CHASE_MAX_NODES)
    return diag_set(d, NULL, 0, "chase: %llu nodes, more than the %u a point may have", (unsigned long long)n,
                    CHASE_MAX_NODES);
  if (!s->steps || !s->repeats) return diag_set(d, NULL, 0, "chase: steps and repeats must be positive");
  uint64_t warm = s->warmup > n ? s->warmup : n, timed;
  if (__builtin_mul_overflow(s->steps, (uint64_t)s->repeats, &timed) || num_add_sat(warm, timed) > CHASE_MAX_LOADS)
    return diag_set(d, NULL, 0, "chase: warmup %llu, %u repeats of %llu steps: more than the %llu loads a point may take",
                    (unsigned long long)s->warmup, s->repeats, (unsigned long long)s->steps,
                    (unsigned long long)CHASE_MAX_LOADS);
  uint64_t size;
  if (__builtin_mul_overflow(n, s->stride, &size) || num_add_sat(s->va_base, size) == UINT64_MAX)
    return diag_set(d, NULL, 0, "chase: %llu nodes at a %llu-byte stride run past the top of memory",
                    (unsigned long long)n, (unsigned long long)s->stride);
  uint64_t pages = region_pages(s, n, size);
  if (pages > CHASE_MAX_PAGES)
    return diag_set(d, NULL, 0, "chase: the region maps %llu pages, more than the %llu a point may",
                    (unsigned long long)pages, (unsigned long long)CHASE_MAX_PAGES);
  *nodes = (uint32_t)n;
  return 0;
}

int chase_spec_check(const chase_spec *s, diag *d) {
  uint32_t nodes;
  return check_spec(s, &nodes, d);
}

/* A machine whose whole VA space is no larger than a chunk (teaching16's
 * 64 KiB against 2 MiB VMM chunks) maps the region as one piece of its own
 * size (a power of two, at least a page) instead. */
static uint64_t fitting_chunk(const pt_format *f, const chase_spec *s, uint64_t size) {
  if (f->va_bits >= 64 || s->chunk < (UINT64_C(1) << f->va_bits)) return s->chunk;
  uint64_t chunk = s->page_size;
  while (chunk < size) chunk <<= 1;
  return chunk;
}

/* Where the region starts when the spec leaves it: aligned to its size as
 * tlbsim-gpu reserves it (region_default_base), or, where the format's VA
 * space is too small for that, the largest power of two (a multiple of the
 * page and chunk) that still fits the region below 2^va_bits, else 0. */
static uint64_t fitting_base(const pt_format *f, uint64_t page_size, uint64_t chunk, uint64_t size) {
  uint64_t top = f->va_bits >= 64 ? UINT64_MAX : UINT64_C(1) << f->va_bits;
  uint64_t align = chunk > page_size ? chunk : page_size;
  uint64_t base = region_default_base(size);
  while (base && (base > top || size > top - base)) base >>= 1;
  return base % align ? 0 : base;
}

int chase_run(const pt_format *f, const system_spec *sp, const chase_spec *s, chase_result *out, diag *d) {
  uint32_t nodes = 0;
  if (check_spec(s, &nodes, d)) return -1;
  uint64_t size = (uint64_t)nodes * s->stride, chunk = fitting_chunk(f, s, size);
  region rg = {.base = s->va_base ? s->va_base : fitting_base(f, s->page_size, chunk, size),
               .stride = s->stride, .nodes = nodes, .page_size = s->page_size, .chunk = chunk,
               .mapping = s->mapping, .seed = s->seed, .history = s->history};
  uint64_t *va = malloc((size_t)nodes * sizeof *va);
  pt *t = pt_create(f);
  int rc = -1;
  if (!va || !t) {
    diag_set(d, NULL, 0, "chase: out of memory");
    goto done;
  }
  gpu_chain_spec cs = {.nodes = nodes, .stride = s->stride, .seed = s->seed,
                       .order = s->order == CHASE_RANDOM ? GPU_ORDER_RANDOM : GPU_ORDER_SEQ};
  if (s->mapping == REGION_ALIASED) { /* region.h's skew, in the chain's offsets too */
    cs.skew_line = REGION_ALIAS_LINE;
    cs.skew_period = s->chunk / REGION_ALIAS_LINE;
  }
  if (gpu_chain_build(&cs, va, d) || region_map(t, &rg, d)) goto done;
  for (uint32_t i = 0; i < nodes; i++) va[i] += rg.base; /* the chain's offsets, as addresses */
  rc = run_passes(sp, t, va, nodes, s->warmup, s->steps, s->repeats, out, d);
done:
  pt_destroy(t);
  free(va);
  return rc;
}
