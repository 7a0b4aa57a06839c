/* A kernel's predicted row (tlbsim/report_ktrace.h, report_kmodel_row),
 * written by the same CSV, JSON and text writers as --stats rows. */
#include "tlbsim/report_ktrace.h"

#include <json-c/json.h>
#include <stdio.h>

static void add_u64(json_object *o, const char *k, uint64_t v) { json_object_object_add(o, k, json_object_new_uint64(v)); }
static void add_real(json_object *o, const char *k, double v) { json_object_object_add(o, k, json_object_new_double(v)); }
static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

static void add_dim(json_object *o, const char *k, const uint32_t d[3]) {
  char buf[48];
  snprintf(buf, sizeof buf, "%ux%ux%u", d[0], d[1], d[2]);
  json_object_object_add(o, k, json_object_new_string(buf));
}

json_object *report_kmodel_row(const ktrace_kernel *k, const kmodel_result *r) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "kernel", json_object_new_string(k->name));
  add_u64(o, "kernel_id", k->id);
  add_dim(o, "grid", k->grid);
  add_dim(o, "block", k->block);
  add_u64(o, "warp_instructions", r->kernel_warp_instructions);
  add_u64(o, "memory_instructions", r->kernel_memory_instructions);
  add_real(o, "predicted_ns", r->ns);
  add_u64(o, "thread_blocks", r->blocks);
  add_u64(o, "warps", r->warps);
  add_u64(o, "lines", r->lines);
  add_u64(o, "sectors", r->sectors);
  add_real(o, "l1_hit_rate", ratio((double)r->l1_hits, (double)r->lines));
  add_real(o, "l2_hit_rate", ratio((double)r->l2_hits, (double)r->l2_lines));
  add_u64(o, "dram_bytes", r->dram_sectors * 32);
  add_real(o, "dram_gbps", ratio((double)r->dram_sectors * 32 / r->share, r->ns));
  add_u64(o, "translations", r->translations);
  static const char *const where[4] = {"tlb_sm_share", "tlb_group_share", "tlb_gpu_share", "walk_share"};
  for (int i = 0; i < 4; i++) add_real(o, where[i], ratio((double)r->served[i], (double)r->translations));
  add_u64(o, "walks", r->served[3]);
  add_u64(o, "walk_reads", r->walk_reads);
  add_u64(o, "walk_reads_dram", r->walk_reads_dram);
  add_real(o, "translation_stall_cycles", ratio(r->translation_cycles, (double)(r->lines - r->l1_hits)));
  add_real(o, "scoreboard_stall_cycles", ratio(r->stall_cycles, (double)r->warps));
  for (int i = 0; i < GDEV_STAGES; i++) {
    char key[32];
    snprintf(key, sizeof key, "busy_%s", gdev_stage_names[i]);
    add_real(o, key, r->busy[i]);
  }
  json_object_object_add(o, "limit", json_object_new_string(gdev_stage_names[kmodel_limit(r)]));
  add_u64(o, "sms_simulated", r->sms);
  json_object_object_add(o, "trace", json_object_new_string(k->file));
  return o;
}
