/* launch.c — launch geometry and block placement (see tlbsim/launch.h). */
#include "tlbsim/launch.h"

#include <stdio.h>
#include <string.h>

#include "tlbsim/num.h"

#define WARP 32u

int launch_parse(const char *text, launch_geometry *out, char *why, size_t len) {
  const char *x = strchr(text, 'x');
  uint64_t grid, block;
  if (!x || num_span_whole(text, x, &grid) || num_parse_whole(x + 1, &block) || !grid || !block ||
      block > NUM_U32_MAX)
    return snprintf(why, len, "'%s' is not GRIDxBLOCK (blocks x threads per block, e.g. 16x256)", text), -1;
  *out = (launch_geometry){.grid = grid, .block = (uint32_t)block};
  return 0;
}

int launch_place(const gpu_config *g, const launch_geometry *l, launch_plan *out, diag *d) {
  if (!g->sms) return diag_set(d, NULL, 0, "launch: the configuration has no [gpu] section");
  if (!l->grid || !l->block || l->block % WARP || l->block > g->max_threads_per_sm)
    return diag_set(d, NULL, 0, "launch %llux%u: a block is 32 to %u threads, whole warps",
                    (unsigned long long)l->grid, l->block, g->max_threads_per_sm);
  *out = (launch_plan){.grid = l->grid, .resident = g->max_threads_per_sm / l->block};
  if (out->resident > g->max_blocks_per_sm) out->resident = g->max_blocks_per_sm;
  uint64_t wave = (uint64_t)out->resident * g->sms;
  out->waves = (l->grid + wave - 1) / wave;
  uint64_t first = l->grid < wave ? l->grid : wave;
  for (uint64_t k = 0; k < first; k++) out->blocks[g->block_order[launch_entry(out, g, k)]]++;
  for (uint32_t s = 0; s < g->sms; s++) out->sms_used += out->blocks[s] != 0;
  return 0;
}

uint32_t launch_entry(const launch_plan *p, const gpu_config *g, uint64_t b) {
  uint64_t wave = (uint64_t)p->resident * g->sms, first = p->grid < wave ? p->grid : wave, q = b % wave;
  uint64_t runs = first / g->sms, lead = g->wave_lead;
  if (!lead || runs < 2 || first % g->sms) return (uint32_t)(b % g->sms); /* 265 blocks: as many as k mod sms */
  if (runs > p->resident) runs = p->resident;
  uint64_t at = 0, before = 0; /* where the lead's run j starts; runs started before q */
  for (uint64_t j = 0; j < runs && at <= q; j++) {
    if (q < at + lead) return (uint32_t)(q - at);
    before++;
    unsigned gi = j == 0 || g->nwave_gaps == 1 ? 0 : 1 + (unsigned)((j - 1) % (g->nwave_gaps - 1));
    at += lead + g->wave_gaps[gi];
  }
  return (uint32_t)(lead + (q - lead * before) % (g->sms - lead));
}

bool launch_even(const launch_plan *p, const gpu_config *g, uint32_t *per_sm) {
  *per_sm = 0;
  for (uint32_t s = 0; s < g->sms; s++) {
    if (!p->blocks[s]) continue;
    if (*per_sm && p->blocks[s] != *per_sm) return false;
    *per_sm = p->blocks[s];
  }
  return true;
}
