/* gpu_embed.h — the embedding-bag kernel of `tlbsim-gpu embed`: which rows
 * each bag looks up and which bytes every lane loads. Plain C shared with
 * the Accel-Sim trace writer (gpu_accel.h) and the simulator, so the
 * addresses of a trace are the kernel's exactly.
 *
 * gpu_zipf        a sampler of ranks 1..n with P(r) ~ r^-alpha (alpha 0:
 *                 uniform): Hörmann and Derflinger's rejection-inversion,
 *                 exact, O(1) per draw for any n.
 * gpu_rowperm     a seeded bijection of 0..n-1 (a mixing bijection on the
 *                 next power of two, cycle-walked into range): rank r (0 the
 *                 most popular) is row gpu_rowperm_at(r), so popular rows are
 *                 spread over the whole table. Also places the DRAM chase's
 *                 nodes on distinct random lines.
 * gpu_embed_geom  B bags of L ids, rows of R bytes, one warp per bag: how
 *                 the 32 lanes share a row (lanes_per_row = min(32, R/8)),
 *                 how many rows a warp loads at once (rows_per_step =
 *                 32 / lanes_per_row), how many 8-byte loads a lane makes
 *                 per row (parts = max(1, R/256)), steps = L / rows_per_step.
 *
 * Lane l of bag b at step k loads id index  i = b*L + k*rows_per_step +
 * l / lanes_per_row  (8 bytes at ids + 8i), then, for part p, the 8 bytes at
 * table + ids[i]*R + p*256 + (l % lanes_per_row)*8; it adds them up; lanes
 * that hold the same word of different rows add theirs (butterfly
 * shuffles), and every lane stores its word's sum at
 * out + b*R + p*256 + (l % lanes_per_row)*8 (for R < 256 several lanes
 * store the same value at one address). The table's 8-byte word j holds j,
 * so the host can predict every output word (gpu_embed_expect).
 */
#ifndef TLBSIM_GPU_EMBED_H
#define TLBSIM_GPU_EMBED_H

#ifdef __cplusplus
extern "C" {
#endif

#include "tlbsim/base.h"

typedef struct gpu_zipf {
  uint64_t n;
  double alpha;
  double h_x1, h_n, s; /* H(1.5) - 1, H(n + 0.5), the acceptance shortcut */
} gpu_zipf;

/* n >= 1, 0 <= alpha <= 10; -1 with a diag otherwise. */
int gpu_zipf_init(gpu_zipf *z, uint64_t n, double alpha, diag *d);
/* One rank in 1..n. */
uint64_t gpu_zipf_draw(const gpu_zipf *z, rng *r);

typedef struct gpu_rowperm {
  uint64_t n, mask;       /* mask + 1: the power of two >= n */
  unsigned half;          /* shift of the xorshift steps */
  uint64_t add, mul1, mul2;
} gpu_rowperm;

void gpu_rowperm_init(gpu_rowperm *p, uint64_t n, uint64_t seed);
uint64_t gpu_rowperm_at(const gpu_rowperm *p, uint64_t r);

typedef struct gpu_embed_geom {
  uint32_t row_bytes;      /* R: a multiple of 8 dividing 256, or a multiple of 256 */
  uint32_t ids_per_bag;    /* L: a multiple of rows_per_step */
  uint64_t bags;           /* B: a multiple of bags_per_block */
  uint32_t lanes_per_row, rows_per_step, parts, steps;
} gpu_embed_geom;

#define GPU_EMBED_BLOCK 256u  /* threads per block: 8 warps, 8 bags */
/* The kernels' __launch_bounds__ minimum of resident blocks: at the default
 * (no minimum) ptxas gave the 256-byte kernel 32 registers and a spill to
 * local memory, which a trace would have to carry; at 6 it keeps every value
 * in registers (40 per thread, 48 warps per SM). */
#define GPU_EMBED_MIN_BLOCKS 6
#define GPU_EMBED_BAGS_PER_BLOCK (GPU_EMBED_BLOCK / 32u)

/* Fills the derived fields; -1 with a diag on an impossible shape. */
int gpu_embed_geom_init(gpu_embed_geom *g, uint32_t row_bytes, uint32_t ids_per_bag, uint64_t bags, diag *d);
/* Byte offsets from the three buffers' starts of what lane `lane` of bag b
 * loads at step k (part p) and stores (part p); rows[] the bag's ids. */
uint64_t gpu_embed_id_index(const gpu_embed_geom *g, uint64_t bag, uint32_t k, uint32_t lane);
uint64_t gpu_embed_row_offset(const gpu_embed_geom *g, uint64_t row, uint32_t p, uint32_t lane);
uint64_t gpu_embed_out_offset(const gpu_embed_geom *g, uint64_t bag, uint32_t p, uint32_t lane);

/* What one point of the sweep looks up: B*L ids, bag-major, each row
 * gpu_rowperm_at(zipf rank - 1, seeded with seed) of rows = table_bytes / R.
 * The bags come in groups of GPU_EMBED_GROUP_BAGS, group q drawn in order
 * from rng_seed(seed + q * 0x9E3779B97F4A7C15), so groups can be drawn in
 * parallel and the ids do not depend on how. */
#define GPU_EMBED_GROUP_BAGS 4096u

typedef struct gpu_embed_ids_spec {
  uint64_t table_bytes;    /* F: the first F bytes of the table allocation */
  double alpha;
  uint64_t seed;
} gpu_embed_ids_spec;

/* Checks the spec (-1 with a diag when the table holds no row, or alpha is
 * outside 0..10) and returns the number of groups. */
int gpu_embed_ids_check(const gpu_embed_geom *g, const gpu_embed_ids_spec *s, uint64_t *groups, diag *d);
/* The ids of group q (a checked spec) into ids (all B*L of them). */
void gpu_embed_ids_group(const gpu_embed_geom *g, const gpu_embed_ids_spec *s, uint64_t q, uint64_t *ids);
/* All groups in order. */
int gpu_embed_ids(const gpu_embed_geom *g, const gpu_embed_ids_spec *s, uint64_t *ids, diag *d);
/* Distinct values among the n ids (the working set's rows), with
 * gpu_embed_distinct_scratch(n) words of scratch. */
uint64_t gpu_embed_distinct_scratch(uint64_t n);
uint64_t gpu_embed_distinct(const uint64_t *ids, uint64_t n, uint64_t *scratch);
/* Output word w (0 <= w < R/8) of bag b: the sum over the bag's rows of
 * row*R/8 + w (mod 2^64). */
uint64_t gpu_embed_expect(const gpu_embed_geom *g, const uint64_t *bag_ids, uint32_t w);

#ifdef __cplusplus
}
#endif
#endif
