/* gpu.c — a [gpu] section's values checked (see tlbsim/gpu.h). */
#include "tlbsim/gpu.h"

#include <stddef.h>
#include <string.h>

#include "tlbsim/num.h"

#define REAL(key, field, unit, doc) {key, CFG_KEY_REAL, offsetof(gpu_config, field), 0, 0, 0, 0, 0, 1e12, unit, "0", doc}

/* [gpu]: read by table but for sms (required) and group (a list). */
static const cfg_key gpu_table[] = {
    {"sms", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "count", "required",
     "the device's SMs (a [gpu] section makes a GPU preset for tlbsim gather)"},
    {"group", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "list", "none",
     "the SMs known to share SM 0's L2 TLB (how many share one: [tlb.NAME] shared_by of that level)"},
    {"l1_miss_slots", CFG_KEY_U32, offsetof(gpu_config, l1_miss_slots), 1u << 20, 1, 1u << 20, 0, 0, 0, "count",
     "1048576", "per SM: L1-TLB misses in flight at once"},
    {"l2_miss_slots", CFG_KEY_U32, offsetof(gpu_config, l2_miss_slots), 1u << 20, 1, 1u << 20, 0, 0, 0, "count",
     "1048576", "per L2-TLB group: misses to the third level in flight at once"},
    REAL("clock_ghz", clock_ghz, "GHz", "SM clock"),
    REAL("warp_group_cycles", warp_group_cycles, "cycles", "a warp's own work per group of loads (hashing, addresses, the sum)"),
    REAL("issue_interval", issue_interval, "cycles", "per SM: between line requests entering translation"),
    REAL("l1_miss_interval", l1_miss_interval, "cycles", "per SM: between L1-TLB misses it can send on"),
    REAL("l2_interval", l2_interval, "cycles", "per L2-TLB group: between look-ups"),
    REAL("l3_interval", l3_interval, "cycles", "GPU-wide: between third-level look-ups, pages physically contiguous"),
    REAL("l3_scattered_interval", l3_scattered_interval, "cycles",
         "GPU-wide: the same when each page of the entry is a physical run of its own"),
    REAL("walk_interval", walk_interval, "cycles", "GPU-wide: between walks the walker starts"),
    REAL("data_interval", data_interval, "cycles", "GPU-wide: between line requests the L2 cache serves"),
    REAL("data_spread_cycles", data_spread_cycles, "cycles", "the data latency's range over L2 slices, around data_cycles"),
    REAL("l1_hit_cycles", l1_hit_cycles, "cycles", "a load the SM's L1 data cache serves (the table mode's offsets)"),
    REAL("launch_gap_ns", launch_gap_ns, "ns", "between two back-to-back kernel launches"),
    {"max_threads_per_sm", CFG_KEY_U32, offsetof(gpu_config, max_threads_per_sm), 2048, 32, 1u << 16, 0, 0, 0,
     "count", "2048", "resident threads an SM holds (how many blocks of a launch it takes at once)"},
    {"max_blocks_per_sm", CFG_KEY_U32, offsetof(gpu_config, max_blocks_per_sm), 32, 1, 1024, 0, 0, 0, "count", "32",
     "resident blocks an SM holds"},
    {"block_order", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "list", "0, 1, 2, ...",
     "the SMs in the order the block scheduler fills them: SM numbers, and 'even' or 'odd' for every SM of that "
     "parity not named yet, ascending; every SM once (a launch that fits at once puts block k on entry k mod sms)"},
    {"wave_lead", CFG_KEY_U32, offsetof(gpu_config, wave_lead), 0, 0, GPU_MAX_SMS - 1, 0, 0, 0, "count", "0",
     "a launch of two or more blocks per SM: the first this many entries of block_order take their blocks in "
     "runs (wave_gaps); 0: block k on entry k mod sms"},
    {"wave_gaps", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "list", "none",
     "with wave_lead: blocks to the other entries between two runs of the lead entries, the gaps after the "
     "first repeated"},
    {"l2_bytes", CFG_KEY_SIZE, offsetof(gpu_config, l2_bytes), 0, 0, UINT64_C(1) << 40, 0, 0, 0, "bytes", "0",
     "the L2 cache: the share of a gather's random lines it holds is l2_bytes / footprint (tlbsim uvm)"},
    REAL("dram_cycles", dram_cycles, "cycles", "a line from DRAM, translation hitting (tlbsim uvm)"),
    REAL("dram_interval", dram_interval, "cycles", "GPU-wide: between random line requests DRAM serves (tlbsim uvm)"),
    REAL("stream_gbps", stream_gbps, "GB/s", "a streaming read of a buffer larger than the L2 cache (tlbsim uvm)"),
    REAL("stream_launch_ns", stream_launch_ns, "ns", "a streaming launch's time beyond its bytes at stream_gbps"),
    {"l1_bytes", CFG_KEY_SIZE, offsetof(gpu_config, l1_bytes), 0, 0, UINT64_C(1) << 32, 0, 0, 0, "bytes", "0",
     "per SM: the L1 data cache loads pass (tlbsim kernel; 0: none)"},
    {"l1_ways", CFG_KEY_U32, offsetof(gpu_config, l1_ways), 4, 1, 1024, 0, 0, 0, "count", "4",
     "the L1 data cache's ways (tlbsim kernel)"},
    REAL("l1_bytes_per_cycle", l1_bytes_per_cycle, "bytes",
         "per SM: bytes the L1 data path moves a cycle; a line takes max(issue_interval, its bytes / this) "
         "(tlbsim kernel; 0: issue_interval only)"),
    {"l2_ways", CFG_KEY_U32, offsetof(gpu_config, l2_ways), 16, 0, 1024, 0, 0, 0, "count", "16",
     "the L2 cache's ways (tlbsim kernel; 0: fully associative)"},
    {"l2_partition", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "list", "none",
     "the SMs on the L2's first partition (SM numbers and ranges A-B), the others on its second: each partition "
     "holds half the L2 as copies of what its SMs read, a read it misses costs l2_far_cycles more when the rest "
     "of the L2 holds it (tlbsim kernel; unset: one partition)"},
    {"l2_write_back", CFG_KEY_BOOL, offsetof(gpu_config, l2_write_back), 0, 0, 1, 0, 0, 0, "bool", "false",
     "stores stay in the L2, their sectors written to DRAM when the line is evicted (tlbsim kernel; false: "
     "written through to DRAM as they come)"},
    REAL("l2_far_cycles", l2_far_cycles, "cycles",
         "a read its SM's L2 partition misses and the rest of the L2 holds: cycles beyond [latency] data_cycles "
         "(tlbsim kernel)"),
    {"dram_banks", CFG_KEY_U32, offsetof(gpu_config, dram_banks), 1024, 1, 1u << 20, 0, 0, 0, "count", "1024",
     "DRAM banks of the device, one open row each (tlbsim kernel)"},
    {"dram_row_bytes", CFG_KEY_SIZE, offsetof(gpu_config, dram_row_bytes), 1024, 128, UINT64_C(1) << 20, 0, 0, 0,
     "bytes", "1024", "a DRAM row (page): requests to an open one need no activation (tlbsim kernel)"},
    REAL("dram_row_interval", dram_row_interval, "cycles",
         "GPU-wide: the DRAM time a request to a row not open costs beyond its sectors (tlbsim kernel)"),
    REAL("dram_sector_interval", dram_sector_interval, "cycles",
         "GPU-wide: the DRAM time per 32-byte sector moved (tlbsim kernel)"),
    REAL("dram_write_sector_interval", dram_write_sector_interval, "cycles",
         "GPU-wide: the DRAM time per 32-byte sector written (tlbsim kernel; 0: dram_sector_interval)"),
    REAL("l2_sector_interval", l2_sector_interval, "cycles",
         "GPU-wide: the L2's time per 32-byte sector of a line request; a request takes the longer of "
         "data_interval and its sectors' (tlbsim kernel; 0: data_interval only)"),
    REAL("alu_cycles", alu_cycles, "cycles",
         "a non-memory instruction's result: cycles until a dependent instruction issues (tlbsim kernel)"),
    REAL("int_issue_cycles", int_issue_cycles, "cycles",
         "per scheduler: cycles a warp's integer-pipe instruction (IADD3, ISETP, LEA, LOP3, ...) holds that "
         "pipe, its 32 lanes over the pipe's units; the scheduler issues other instructions meanwhile "
         "(tlbsim kernel; 0: 1)"),
    {"schedulers", CFG_KEY_U32, offsetof(gpu_config, schedulers), 4, 1, 64, 0, 0, 0, "count", "4",
     "per SM: warp schedulers, each issuing one warp instruction a cycle (tlbsim kernel)"},
};
static const cfg_keys gpu_keys = {"gpu", gpu_table, sizeof gpu_table / sizeof gpu_table[0]};

const cfg_keys *gpu_config_keys(void) { return &gpu_keys; }

/* An item of block_order: an SM, or "even"/"odd" (every SM of that parity
 * not placed yet, ascending). */
typedef struct order_ctx {
  gpu_config *g;
  uint32_t n;
  bool placed[GPU_MAX_SMS];
} order_ctx;

static int order_item(void *ctx, const char *item, diag *why) {
  order_ctx *o = ctx;
  uint32_t sms = o->g->sms;
  int parity = !strcmp(item, "even") ? 0 : !strcmp(item, "odd") ? 1 : -1;
  if (parity >= 0) {
    for (uint32_t s = (uint32_t)parity; s < sms; s += 2)
      if (!o->placed[s]) o->placed[s] = true, o->g->block_order[o->n++] = (uint16_t)s;
    return 0;
  }
  uint64_t sm;
  if (num_parse_whole(item, &sm) || sm >= sms)
    return diag_set(why, NULL, 0, "'%s' is not an SM (0 to %u), even or odd", item, sms - 1);
  if (o->placed[sm]) return diag_set(why, NULL, 0, "SM %llu is named twice", (unsigned long long)sm);
  o->placed[sm] = true;
  o->g->block_order[o->n++] = (uint16_t)sm;
  return 0;
}

/* [gpu] block_order: every SM once, in the scheduler's order (default
 * ascending). */
static int read_block_order(cfg *c, gpu_config *g, diag *d) {
  order_ctx o = {.g = g};
  if (!cfg_has(c, "gpu", "block_order")) {
    for (uint32_t s = 0; s < g->sms; s++) g->block_order[s] = (uint16_t)s;
    return 0;
  }
  if (cfg_get_list(c, "gpu", "block_order", order_item, &o, NULL, d)) return -1;
  if (o.n != g->sms) return cfg_error(c, "gpu", "block_order", d, "names %u of the %u SMs", o.n, g->sms);
  return 0;
}

/* An item of l2_partition: an SM or a range A-B of them, on the first partition. */
static int part_item(void *ctx, const char *item, diag *why) {
  gpu_config *g = ctx;
  const char *dash = strchr(item, '-');
  uint64_t lo, hi;
  if (dash ? num_span_whole(item, dash, &lo) || num_parse_whole(dash + 1, &hi) : num_parse_whole(item, &lo))
    return diag_set(why, NULL, 0, "'%s' is not an SM or a range A-B of SMs", item);
  if (!dash) hi = lo;
  if (lo > hi || hi >= g->sms) return diag_set(why, NULL, 0, "'%s': the SMs are 0 to %u", item, g->sms - 1);
  for (uint64_t s = lo; s <= hi; s++) g->l2_part[s] = 0;
  return 0;
}

/* [gpu] l2_partition: every SM on the second partition but those named. */
static int read_partitions(cfg *c, gpu_config *g, diag *d) {
  g->l2_parts = 1;
  if (!cfg_has(c, "gpu", "l2_partition")) return 0;
  g->l2_parts = 2;
  for (uint32_t s = 0; s < g->sms; s++) g->l2_part[s] = 1;
  return cfg_get_list(c, "gpu", "l2_partition", part_item, g, NULL, d);
}

int gpu_config_read(cfg *c, gpu_config *g, diag *d) {
  *g = (gpu_config){0};
  if (!cfg_has_section(c, "gpu")) return 0;
  uint64_t group[GPU_MAX_GROUP_SMS], gaps[GPU_MAX_WAVE_GAPS];
  size_t n, ngaps;
  if (cfg_get_u32(c, "gpu", "sms", 0, 1, GPU_MAX_SMS, &g->sms, d) || cfg_read_keys(c, "gpu", &gpu_keys, g, d) ||
      cfg_get_size_list(c, "gpu", "group", 0, GPU_MAX_SMS - 1, group, GPU_MAX_GROUP_SMS, &n, d) ||
      cfg_get_size_list(c, "gpu", "wave_gaps", 0, 1u << 20, gaps, GPU_MAX_WAVE_GAPS, &ngaps, d))
    return -1;
  for (size_t i = 0; i < ngaps; i++) g->wave_gaps[i] = (uint32_t)gaps[i];
  g->nwave_gaps = (uint32_t)ngaps;
  if (!cfg_has(c, "gpu", "sms")) return cfg_section_error(c, "gpu", d, "missing key 'sms'");
  for (size_t i = 0; i < n; i++) g->group[i] = (uint32_t)group[i];
  g->ngroup = (uint32_t)n;
  if (read_block_order(c, g, d) || read_partitions(c, g, d)) return -1;
  diag why;
  return gpu_config_check(g, &why) ? cfg_section_error(c, "gpu", d, "%s", why.msg) : 0;
}

int gpu_config_check(const gpu_config *g, diag *d) {
  if (!g->sms) return 0;
  if (g->sms > GPU_MAX_SMS) return diag_set(d, NULL, 0, "sms %u: at most %d", g->sms, GPU_MAX_SMS);
  if (!(g->clock_ghz > 0)) return diag_set(d, NULL, 0, "clock_ghz must be positive");
  if (!g->l1_miss_slots || !g->l2_miss_slots) return diag_set(d, NULL, 0, "miss slots must be at least 1");
  if (g->wave_lead && (g->wave_lead >= g->sms || !g->nwave_gaps))
    return diag_set(d, NULL, 0, "wave_lead %u: fewer than the %u SMs, and wave_gaps with it", g->wave_lead, g->sms);
  return 0;
}
