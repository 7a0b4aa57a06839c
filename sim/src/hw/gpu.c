/* gpu.c — a [gpu] section's values checked (see tlbsim/gpu.h). */
#include "tlbsim/gpu.h"

int gpu_config_check(const gpu_config *g, diag *d) {
  if (!g->sms) return 0;
  if (g->sms > GPU_MAX_SMS) return diag_set(d, NULL, 0, "sms %u: at most %d", g->sms, GPU_MAX_SMS);
  if (!(g->clock_ghz > 0)) return diag_set(d, NULL, 0, "clock_ghz must be positive");
  if (!g->l1_miss_slots || !g->l2_miss_slots) return diag_set(d, NULL, 0, "miss slots must be at least 1");
  return 0;
}
