#include "tlbsim/gpu_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cudaMallocManaged memory was observed with 64 KiB GPU pages
 * (../shared/REFERENCE.md); the driver maps the rest in 2 MiB pages. */
#define GPU_MANAGED_PAGE (64u << 10)

uint64_t gpu_mapping_page_bytes(region_mapping m, uint64_t granularity) {
  return m == REGION_MANAGED ? GPU_MANAGED_PAGE : granularity;
}

static const char *const pop_names[] = {"chain", "gpu", "host", "host_prefetch", "advise"};

int gpu_population_parse(const char *text, gpu_population *out) {
  const char *colon = strchr(text, ':');
  size_t len = colon ? (size_t)(colon - text) : strlen(text);
  for (int k = 0; k <= GPU_POP_ADVISE; k++) {
    if (strlen(pop_names[k]) != len || strncmp(text, pop_names[k], len)) continue;
    bool every = k == GPU_POP_GPU || k == GPU_POP_HOST;
    uint64_t x = 0;
    if (every != (colon != NULL) || (every && (num_parse_whole(colon + 1, &x) || !x || x > (1u << 20)))) return -1;
    out->kind = (gpu_pop_kind)k;
    out->every = (uint32_t)x;
    return 0;
  }
  return -1;
}

const char *gpu_population_name(const gpu_population *p, char *buf, size_t len) {
  const char *n = p->kind <= GPU_POP_ADVISE ? pop_names[p->kind] : "?";
  if (p->kind == GPU_POP_GPU || p->kind == GPU_POP_HOST) snprintf(buf, len, "%s:%u", n, p->every);
  else snprintf(buf, len, "%s", n);
  return buf;
}

static int check_sweep(const gpu_sweep *s, diag *d) {
  if (s->mapping >= REGION_MAPPING_COUNT) return diag_set(d, NULL, 0, "sweep: unknown mapping");
  if (!s->orders || s->orders >> GPU_ORDER_COUNT) return diag_set(d, NULL, 0, "sweep: no order chosen");
  if (!s->nstrides || s->nstrides > GPU_MAX_LIST) return diag_set(d, NULL, 0, "sweep: no strides");
  if (s->nfootprints > GPU_MAX_LIST) return diag_set(d, NULL, 0, "sweep: too many footprints");
  for (size_t i = 0; i < s->nstrides; i++)
    if (!s->strides[i] || s->strides[i] % 8)
      return diag_set(d, NULL, 0, "sweep: stride %llu is not a positive multiple of 8",
                      (unsigned long long)s->strides[i]);
  if (!s->nfootprints) {
    if (!s->fmin || s->fmin > s->fmax)
      return diag_set(d, NULL, 0, "sweep: footprint range %llu..%llu is empty", (unsigned long long)s->fmin,
                      (unsigned long long)s->fmax);
    if (s->per_octave < 1 || s->per_octave > 64)
      return diag_set(d, NULL, 0, "sweep: %u points per octave is outside 1..64", s->per_octave);
  }
  if (s->max_nodes < 1 || s->max_nodes > UINT32_MAX)
    return diag_set(d, NULL, 0, "sweep: node cap %llu is outside 1..2^32-1", (unsigned long long)s->max_nodes);
  return 0;
}

static int push(gpu_point_list *l, size_t *cap, gpu_point p, diag *d) {
  if (l->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 64;
    gpu_point *v = realloc(l->v, ncap * sizeof *v);
    if (!v) return diag_set(d, NULL, 0, "sweep: out of memory");
    l->v = v;
    *cap = ncap;
  }
  l->v[l->n++] = p;
  return 0;
}

/* Adds the point for one wanted footprint at one stride, unless it rounds to
 * no node, to the node count just added, or past the caps. */
static int add_footprint(const gpu_sweep *s, uint64_t stride, double want, uint64_t *last_nodes,
                         gpu_point_list *l, size_t *cap, diag *d) {
  double exact = want / (double)stride;
  uint64_t nodes = (uint64_t)llround(exact);
  uint64_t limit = s->nfootprints ? UINT64_MAX : s->fmax / stride;
  if (nodes > limit) nodes = limit;
  if (nodes == 0 || nodes == *last_nodes) return 0;
  *last_nodes = nodes;
  if (nodes > s->max_nodes) {
    l->skipped_nodes++;
    return 0;
  }
  gpu_point p = {stride, nodes * stride, (uint32_t)nodes};
  return push(l, cap, p, d);
}

int gpu_sweep_points(const gpu_sweep *s, gpu_point_list *out, diag *d) {
  memset(out, 0, sizeof *out);
  if (check_sweep(s, d)) return -1;
  size_t cap = 0;
  for (size_t i = 0; i < s->nstrides; i++) {
    uint64_t stride = s->strides[i], last = 0;
    if (s->nfootprints) {
      for (size_t k = 0; k < s->nfootprints; k++)
        if (add_footprint(s, stride, (double)s->footprints[k], &last, out, &cap, d)) goto fail;
      continue;
    }
    for (unsigned k = 0;; k++) {
      double want = (double)s->fmin * exp2((double)k / s->per_octave);
      if (want > (double)s->fmax * (1 + 1e-9)) break;
      if (add_footprint(s, stride, want, &last, out, &cap, d)) goto fail;
    }
  }
  return 0;
fail:
  gpu_point_list_free(out);
  return -1;
}

void gpu_point_list_free(gpu_point_list *l) {
  free(l->v);
  memset(l, 0, sizeof *l);
}

uint64_t gpu_point_list_max_footprint(const gpu_point_list *l) {
  uint64_t m = 0;
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i].footprint > m) m = l->v[i].footprint;
  return m;
}

/* Strides of the main sweeps: 4 KiB (many nodes per 2 MiB page) and every
 * power of two from 64 KiB to 1 GiB, so each knee is seen moving with the
 * stride. */
static size_t pow2_strides(uint64_t *v, uint64_t lo, uint64_t hi) {
  size_t n = 0;
  for (uint64_t s = lo; s <= hi; s <<= 1) v[n++] = s;
  return n;
}

static gpu_sweep base_sweep(region_mapping m, uint64_t fmax, uint64_t max_nodes) {
  gpu_sweep s;
  memset(&s, 0, sizeof s);
  s.mapping = m;
  s.orders = (1u << GPU_ORDER_SEQ) | (1u << GPU_ORDER_RANDOM);
  s.fmin = 1u << 20;
  s.fmax = fmax;
  s.per_octave = 4;
  s.max_nodes = max_nodes;
  return s;
}

size_t gpu_full_sweeps(gpu_sweep *out, size_t max, uint64_t fmax, uint64_t max_nodes) {
  const uint64_t K = 1u << 10, M = K << 10, G = M << 10;
  gpu_sweep t[6];
  size_t n = 0;
  for (int m = REGION_CONTIGUOUS; m <= REGION_SHUFFLED; m++) {
    t[n] = base_sweep((region_mapping)m, fmax, max_nodes);
    t[n].strides[0] = 4 * K;
    t[n].nstrides = 1 + pow2_strides(t[n].strides + 1, 64 * K, G);
    n++;
  }
  t[n] = base_sweep(REGION_CUDAMALLOC, fmax, max_nodes);
  t[n].strides[0] = 64 * K, t[n].strides[1] = 2 * M, t[n].strides[2] = 32 * M;
  t[n++].nstrides = 3;
  t[n] = base_sweep(REGION_MANAGED, fmax < 16 * G ? fmax : 16 * G, max_nodes);
  t[n].strides[0] = 64 * K, t[n].strides[1] = 2 * M;
  t[n++].nstrides = 2;
  /* Aliasing needs no memory: its reach goes to 4 TiB of VA. */
  t[n] = base_sweep(REGION_ALIASED, 4 * K * G, max_nodes);
  t[n].nstrides = 0;
  for (uint64_t s = 2 * M; s <= G; s *= 4) t[n].strides[t[n].nstrides++] = s; /* 2M 8M 32M 128M 512M */
  t[n].strides[t[n].nstrides++] = G;
  n++;
  /* Strides of 3 and 5 L3 entries (32 MiB each) fill the third level's
   * hashed sets unevenly and use both of its banks (VA bit 25), unlike the
   * powers of two: what settled its organisation (results/h200/chase_banks.csv). */
  t[n] = base_sweep(REGION_ALIASED, 4 * K * G, max_nodes);
  t[n].strides[0] = 48 * M, t[n].strides[1] = 96 * M, t[n].strides[2] = 160 * M;
  t[n].nstrides = 3;
  t[n].fmin = 128 * G;
  t[n++].per_octave = 8;
  size_t k = n < max ? n : max;
  memcpy(out, t, k * sizeof *t);
  return k;
}
