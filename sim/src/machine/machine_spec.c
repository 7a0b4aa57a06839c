/* Configuration → machine_spec: the machine's own [machine] and the
 * allocator's [vas] read here, every other section by the module it
 * configures, each through its key table:
 *   [machine]         format (pt_format_read), page_size, phys_memory, frame_order, demand_paging, seed,
 *                     tables_in_memory, address_spaces
 *   [format.NAME]     pt_format_read (mem/pt_config.c)
 *   [vas]             policy and every allocator parameter (vas_param_*)
 *   [latency]         memsys_config_read (data_cycles, walk_ref_cycles) and mmu_config_read (walk_cycles)
 *   [mmu] [ptcache] [tlb.NAME] [tlb.NAME:SIZE] [pwc.LEVEL]   mmu_config_read (mmu/mmu_config.c)
 *   [gpu]             gpu_config_read (hw/gpu.c)
 *   [uvm]             uvm_config_read (uvm/uvm_config.c)
 *   [driver]          alloctime_config_read (alloc/alloctime.c): what tlbsim alloc's driver calls cost
 * Every number is read with the range of the field it is stored in. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tlbsim/machine.h"

#define CODE_KEY(key, unit, dtext, doc) {key, CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, unit, dtext, doc}

/* [machine]: its simple keys by table, the rest (defaults from the format,
 * names) by code below. */
static const cfg_key machine_table[] = {
    CODE_KEY("format", "name", "x86-64-4",
             "the page-table format: a built-in one (tlbsim formats lists them) or a [format.NAME] of the file"),
    CODE_KEY("page_size", "bytes", "the format's smallest page",
             "page size of demand paging, and of map and alloc records that name none; a page size of the format"),
    CODE_KEY("phys_memory", "bytes", "16G",
             "physical memory: frames mappings and, with tables_in_memory, page-table nodes take"),
    CODE_KEY("frame_order", "name", "lowest-first", "which free frame a mapping takes: lowest-first or highest-first"),
    CODE_KEY("demand_paging", "name", "auto",
             "auto: the first touch of an unmapped page maps it (a page fault) while the trace has had no alloc or "
             "map record; on: always; off: an unmapped access is a fault"),
    {"seed", CFG_KEY_U64, offsetof(machine_spec, seed), 1, 0, UINT64_MAX, 0, 0, 0, "number", "1",
     "seeds the allocator, random replacement and every array's own seed"},
    {"tables_in_memory", CFG_KEY_BOOL, offsetof(machine_spec, tables_in_memory), 0, 0, 1, 0, 0, 0, "bool", "false",
     "page-table nodes take frames of phys_memory (else they live outside it)"},
    CODE_KEY("address_spaces", "name", "shared",
             "threads of a trace (thread= records), each on a CPU of its own: shared, one address space for all; "
             "per-thread, each its own (ASID = thread id)"),
};
static const cfg_keys machine_keys = {"machine", machine_table, sizeof machine_table / sizeof machine_table[0]};

static const cfg_key vas_table[] = {
    CODE_KEY("policy", "name", "first-fit", "the allocator policy alloc records go through (tlbsim formats lists them)"),
};
static const cfg_keys vas_keys = {"vas", vas_table, 1};

const cfg_keys *machine_spec_keys(size_t i) {
  static const cfg_keys *const own[] = {&machine_keys, &vas_keys};
  return i < 2 ? own[i] : NULL;
}

static bool is_leaf_size(const pt_format *f, uint64_t size) {
  return is_pow2(size) && pt_format_leaf_level(f, log2_u64(size)) >= 0;
}

static int read_demand(cfg *c, machine_demand *out, diag *d) {
  const char *s;
  cfg_get_str(c, "machine", "demand_paging", "auto", &s);
  if (!strcmp(s, "auto")) *out = DEMAND_AUTO;
  else if (!strcmp(s, "on") || !strcmp(s, "true")) *out = DEMAND_ON;
  else if (!strcmp(s, "off") || !strcmp(s, "false")) *out = DEMAND_OFF;
  else return cfg_error(c, "machine", "demand_paging", d, "'%s' is not auto, on or off", s);
  return 0;
}

static int read_address_spaces(cfg *c, bool *per_thread, diag *d) {
  const char *s;
  cfg_get_str(c, "machine", "address_spaces", "shared", &s);
  *per_thread = !strcmp(s, "per-thread");
  if (!*per_thread && strcmp(s, "shared"))
    return cfg_error(c, "machine", "address_spaces", d, "'%s' is not shared or per-thread", s);
  return 0;
}

static int read_frame_order(cfg *c, phys_order *out, diag *d) {
  const char *s;
  cfg_get_str(c, "machine", "frame_order", phys_order_names[PHYS_LOWEST_FIRST], &s);
  for (int i = 0; phys_order_names[i]; i++)
    if (!strcmp(s, phys_order_names[i])) {
      *out = (phys_order)i;
      return 0;
    }
  return cfg_error(c, "machine", "frame_order", d, "'%s' is not lowest-first or highest-first", s);
}

static int read_machine(cfg *c, machine_spec *s, diag *d) {
  if (pt_format_read(c, "machine", "format", &s->format, d)) return -1;
  const pt_format *f = &s->format;
  uint64_t smallest = UINT64_MAX;
  for (unsigned i = 0; i < f->nleaves; i++)
    if ((1ull << f->leaf[i].page_shift) < smallest) smallest = 1ull << f->leaf[i].page_shift;
  if (cfg_get_size(c, "machine", "page_size", 1ull << f->leaf[0].page_shift, 1, UINT64_MAX, &s->page_size, d) ||
      cfg_get_size(c, "machine", "phys_memory", 16ull << 30, smallest, PT_TABLE_PA_BASE, &s->phys_memory, d) ||
      cfg_read_keys(c, "machine", &machine_keys, s, d) || read_demand(c, &s->demand, d) ||
      read_frame_order(c, &s->frame_order, d) || read_address_spaces(c, &s->thread_spaces, d))
    return -1;
  if (!is_leaf_size(f, s->page_size))
    return cfg_error(c, "machine", "page_size", d, "not a page size of format %s", f->name);
  return 0;
}

/* [vas]: the policy, the machine's defaults, then every allocator
 * parameter through the vas module's one table. */
static int read_vas(cfg *c, machine_spec *s, diag *d) {
  const char *policy;
  cfg_get_str(c, "vas", "policy", "first-fit", &policy);
  if (strlen(policy) >= sizeof s->vas_policy) return cfg_error(c, "vas", "policy", d, "unknown policy");
  strcpy(s->vas_policy, policy);
  uint64_t quarter = 1ull << (s->format.va_bits - 2);
  s->vas = (vas_config){.va_base = quarter, .va_size = quarter, .page_size = s->page_size, .alignment = 256,
                        .max_split_size = UINT64_MAX, .seed = s->seed};
  for (size_t i = 0; i < vas_param_count(); i++) {
    const char *name = vas_param_at(i, NULL), *value;
    if (!strcmp(name, "capacity")) continue; /* it is [machine] phys_memory */
    cfg_get_str(c, "vas", name, NULL, &value);
    diag why;
    if (value && vas_param_set(&s->vas, i, value, &why)) return cfg_error(c, "vas", name, d, "%s", why.msg);
  }
  s->vas.phys_capacity = s->phys_memory;
  if (num_add_sat(s->vas.va_base, s->vas.va_size) == UINT64_MAX)
    return cfg_error(c, "vas", cfg_latest(c, "vas", "va_base", "va_size"), d,
                     "va_base %#llx + va_size %#llx passes the top of memory", (unsigned long long)s->vas.va_base,
                     (unsigned long long)s->vas.va_size);
  if (!is_leaf_size(&s->format, s->vas.page_size))
    return cfg_error(c, "vas", "page_size", d, "not a page size of format %s", s->format.name);
  /* The policy checks its parameters as it starts: try it now, while the
   * configuration can still say where a bad value came from. */
  diag why;
  vas *probe = vas_create(s->vas_policy, &s->vas, NULL, &why);
  vas_destroy(probe);
  return probe ? 0 : cfg_error(c, "vas", "policy", d, "%s", why.msg);
}

/* [uvm]: where managed memory's VA lies when the section does not say: the
 * eighth of the format's (lower half's) VA space below the allocator's
 * default range (a quarter up, [vas] va_base). */
static int read_uvm(cfg *c, machine_spec *s, diag *d) {
  if (uvm_config_read(c, &s->uvm, d)) return -1;
  bool given = cfg_has(c, "uvm", "va_base") || cfg_has(c, "uvm", "va_size");
  unsigned bits = s->format.va_bits - s->format.sign_extend;
  uint64_t eighth = bits >= 3 ? 1ull << (bits - 3) : 0;
  if (!s->uvm.va_base && !num_round_up(eighth, s->uvm.va_block, &s->uvm.va_base)) s->uvm.va_base = 0;
  if (!s->uvm.va_size) s->uvm.va_size = eighth;
  bool fits = s->uvm.va_size && pt_format_va_ok(&s->format, s->uvm.va_base) &&
              pt_format_va_ok(&s->format, s->uvm.va_base + (s->uvm.va_size - 1));
  if (!fits && given)
    return cfg_error(c, "uvm", cfg_latest(c, "uvm", "va_base", "va_size"), d,
                     "va_base %#llx + va_size %#llx is not a range of format %s's addresses",
                     (unsigned long long)s->uvm.va_base, (unsigned long long)s->uvm.va_size, s->format.name);
  if (!fits) s->uvm.va_size = 0; /* a VA space too small for a VA block: no managed memory */
  return 0;
}

int machine_spec_read(cfg *c, machine_spec *s, diag *d) {
  *s = (machine_spec){0};
  return read_machine(c, s, d) || read_vas(c, s, d) || memsys_config_read(c, &s->sys.mem, d) ||
                 mmu_config_read(c, &s->format, s->page_size, s->seed, &s->sys.mmu, d) ||
                 gpu_config_read(c, &s->gpu, d) || read_uvm(c, s, d) ||
                 alloctime_config_read(c, &s->driver, d)
             ? -1
             : 0;
}
