#include "tlbsim/gpu_embed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Zipf: rejection-inversion (Hörmann & Derflinger, ACM TOMACS 6(3),
 * 1996), for h(x) = x^-s on the ranks, with H an antiderivative of h:
 *   H(x) = ((x^(1-s)) - 1) / (1-s)      (log x when s = 1)
 * written through expm1/log1p so that s near 1 loses no precision. */

/* (e^t - 1) / t, and log(1 + t) / t, both 1 at t = 0. */
static double expm1_over(double t) { return fabs(t) > 1e-8 ? expm1(t) / t : 1 + t / 2 + t * t / 6; }
static double log1p_over(double t) { return fabs(t) > 1e-8 ? log1p(t) / t : 1 - t / 2 + t * t / 3; }

static double zh(double s, double x) { return exp(-s * log(x)); }
static double zH(double s, double x) {
  double lx = log(x);
  return expm1_over((1 - s) * lx) * lx;
}
static double zH_inv(double s, double y) { return exp(log1p_over((1 - s) * y) * y); }

int gpu_zipf_init(gpu_zipf *z, uint64_t n, double alpha, diag *d) {
  if (!n) return diag_set(d, NULL, 0, "zipf: no ranks");
  if (!(alpha >= 0 && alpha <= 10)) return diag_set(d, NULL, 0, "zipf: alpha %g is outside 0..10", alpha);
  z->n = n;
  z->alpha = alpha;
  if (alpha == 0) return 0;
  z->h_x1 = zH(alpha, 1.5) - 1;
  z->h_n = zH(alpha, (double)n + 0.5);
  z->s = 2 - zH_inv(alpha, zH(alpha, 2.5) - zh(alpha, 2));
  return 0;
}

static double unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }

uint64_t gpu_zipf_draw(const gpu_zipf *z, rng *r) {
  if (z->alpha == 0) return 1 + rng_below(r, z->n);
  for (;;) {
    double u = z->h_n + unit(r) * (z->h_x1 - z->h_n);
    double x = zH_inv(z->alpha, u);
    double kd = floor(x + 0.5);
    uint64_t k = kd < 1 ? 1 : kd > (double)z->n ? z->n : (uint64_t)kd;
    if ((double)k - x <= z->s || u >= zH(z->alpha, (double)k + 0.5) - zh(z->alpha, (double)k)) return k;
  }
}

/* ---- row permutation ---- */

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void gpu_rowperm_init(gpu_rowperm *p, uint64_t n, uint64_t seed) {
  unsigned k = 0;
  while (k < 64 && (1ull << k) < n) k++;
  p->n = n;
  p->mask = k >= 64 ? ~0ull : (1ull << k) - 1;
  p->half = (k + 1) / 2 ? (k + 1) / 2 : 1;
  uint64_t x = seed;
  p->add = splitmix(&x);
  p->mul1 = splitmix(&x) | 1;
  p->mul2 = splitmix(&x) | 1;
}

/* A bijection of 0..mask: an addition, odd multiplications and xorshifts,
 * each invertible modulo a power of two. */
static uint64_t mix(const gpu_rowperm *p, uint64_t x) {
  x = (x + p->add) & p->mask;
  x = (x * p->mul1) & p->mask;
  x ^= x >> p->half;
  x = (x * p->mul2) & p->mask;
  x ^= x >> p->half;
  return x;
}

uint64_t gpu_rowperm_at(const gpu_rowperm *p, uint64_t r) {
  if (p->n <= 1) return 0;
  uint64_t x = r;
  do x = mix(p, x);
  while (x >= p->n); /* cycle-walking: r's cycle under mix returns into 0..n-1 */
  return x;
}

/* ---- geometry ---- */

int gpu_embed_geom_init(gpu_embed_geom *g, uint32_t row_bytes, uint32_t ids_per_bag, uint64_t bags, diag *d) {
  memset(g, 0, sizeof *g);
  if (!row_bytes || row_bytes % 8 || (row_bytes < 256 && 256 % row_bytes) || (row_bytes > 256 && row_bytes % 256))
    return diag_set(d, NULL, 0, "embed: row of %u bytes: R must divide 256 or be a multiple of 256 (and of 8)",
                    row_bytes);
  g->row_bytes = row_bytes;
  g->lanes_per_row = row_bytes / 8 < 32 ? row_bytes / 8 : 32;
  g->rows_per_step = 32 / g->lanes_per_row;
  g->parts = row_bytes > 256 ? row_bytes / 256 : 1;
  if (!ids_per_bag || ids_per_bag % g->rows_per_step)
    return diag_set(d, NULL, 0, "embed: %u ids per bag: L must be a positive multiple of %u for %u-byte rows",
                    ids_per_bag, g->rows_per_step, row_bytes);
  g->ids_per_bag = ids_per_bag;
  g->steps = ids_per_bag / g->rows_per_step;
  if (!bags || bags % GPU_EMBED_BAGS_PER_BLOCK || bags > (1ull << 32))
    return diag_set(d, NULL, 0, "embed: %llu bags: B must be a multiple of %u up to 2^32", (unsigned long long)bags,
                    GPU_EMBED_BAGS_PER_BLOCK);
  g->bags = bags;
  return 0;
}

uint64_t gpu_embed_id_index(const gpu_embed_geom *g, uint64_t bag, uint32_t k, uint32_t lane) {
  return bag * g->ids_per_bag + (uint64_t)k * g->rows_per_step + lane / g->lanes_per_row;
}

uint64_t gpu_embed_row_offset(const gpu_embed_geom *g, uint64_t row, uint32_t p, uint32_t lane) {
  return row * g->row_bytes + (uint64_t)p * 256 + (uint64_t)(lane % g->lanes_per_row) * 8;
}

uint64_t gpu_embed_out_offset(const gpu_embed_geom *g, uint64_t bag, uint32_t p, uint32_t lane) {
  return bag * g->row_bytes + (uint64_t)p * 256 + (uint64_t)(lane % g->lanes_per_row) * 8;
}

int gpu_embed_ids_check(const gpu_embed_geom *g, const gpu_embed_ids_spec *s, uint64_t *groups, diag *d) {
  uint64_t rows = s->table_bytes / g->row_bytes;
  if (!rows) return diag_set(d, NULL, 0, "embed: a %llu-byte table holds no %u-byte row",
                             (unsigned long long)s->table_bytes, g->row_bytes);
  gpu_zipf z;
  if (gpu_zipf_init(&z, rows, s->alpha, d)) return -1;
  *groups = (g->bags + GPU_EMBED_GROUP_BAGS - 1) / GPU_EMBED_GROUP_BAGS;
  return 0;
}

void gpu_embed_ids_group(const gpu_embed_geom *g, const gpu_embed_ids_spec *s, uint64_t q, uint64_t *ids) {
  uint64_t rows = s->table_bytes / g->row_bytes;
  gpu_zipf z;
  gpu_zipf_init(&z, rows, s->alpha, NULL);
  gpu_rowperm p;
  gpu_rowperm_init(&p, rows, s->seed);
  rng r;
  rng_seed(&r, s->seed + q * 0x9E3779B97F4A7C15ull);
  uint64_t b0 = q * GPU_EMBED_GROUP_BAGS, b1 = b0 + GPU_EMBED_GROUP_BAGS < g->bags ? b0 + GPU_EMBED_GROUP_BAGS : g->bags;
  for (uint64_t i = b0 * g->ids_per_bag; i < b1 * g->ids_per_bag; i++)
    ids[i] = gpu_rowperm_at(&p, gpu_zipf_draw(&z, &r) - 1);
}

int gpu_embed_ids(const gpu_embed_geom *g, const gpu_embed_ids_spec *s, uint64_t *ids, diag *d) {
  uint64_t groups;
  if (gpu_embed_ids_check(g, s, &groups, d)) return -1;
  for (uint64_t q = 0; q < groups; q++) gpu_embed_ids_group(g, s, q, ids);
  return 0;
}

uint64_t gpu_embed_distinct_scratch(uint64_t n) {
  uint64_t m = 16;
  while (m < 2 * n) m <<= 1;
  return m;
}

/* Open addressing, value + 1 stored (0: empty). */
uint64_t gpu_embed_distinct(const uint64_t *ids, uint64_t n, uint64_t *scratch) {
  uint64_t m = gpu_embed_distinct_scratch(n), k = 0;
  memset(scratch, 0, m * sizeof *scratch);
  for (uint64_t i = 0; i < n; i++) {
    uint64_t key = ids[i] + 1, h = (key * 0x9E3779B97F4A7C15ull) & (m - 1);
    while (scratch[h] && scratch[h] != key) h = (h + 1) & (m - 1);
    if (!scratch[h]) scratch[h] = key, k++;
  }
  return k;
}

uint64_t gpu_embed_expect(const gpu_embed_geom *g, const uint64_t *bag_ids, uint32_t w) {
  uint64_t sum = 0, words = g->row_bytes / 8;
  for (uint32_t i = 0; i < g->ids_per_bag; i++) sum += bag_ids[i] * words + w;
  return sum;
}
