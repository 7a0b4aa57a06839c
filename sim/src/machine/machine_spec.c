/* Configuration → machine_spec: every key a machine reads, read once.
 * Section names:
 *   [machine]         format, page_size, phys_memory, demand_paging, seed
 *   [vas]             policy and every allocator parameter (vas_param_*)
 *   [latency] [mmu]   latency model, ASID tagging, walker fetch span
 *   [ptcache]         the cache of page-table lines walks read through
 *   [tlb.NAME]        a TLB level (its first array)
 *   [tlb.NAME:SIZE]   a further array of that level, holding SIZE pages
 *   [pwc.LEVEL]       a page-walk cache for page-table level LEVEL (by name)
 * Every number is read with the range of the field it is stored in. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tlbsim/machine.h"

#define TLB_PREFIX "tlb."
#define PWC_PREFIX "pwc."
#define U32 NUM_U32_MAX

static int read_format(cfg *c, const pt_format **out, diag *d) {
  const char *name;
  cfg_get_str(c, "machine", "format", "x86-64-4", &name);
  *out = pt_format_find(name);
  if (*out) return 0;
  char known[256] = "";
  for (size_t i = 0; i < pt_format_count(); i++) {
    if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, pt_format_at(i)->name, sizeof known - strlen(known) - 1);
  }
  return cfg_error(c, "machine", "format", d, "unknown page-table format '%s' (known: %s)", name, known);
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

static int read_machine(cfg *c, machine_spec *s, diag *d) {
  if (read_format(c, &s->format, d)) return -1;
  const pt_format *f = s->format;
  uint64_t smallest = UINT64_MAX;
  for (unsigned i = 0; i < f->nleaves; i++)
    if ((1ull << f->leaf[i].page_shift) < smallest) smallest = 1ull << f->leaf[i].page_shift;
  if (cfg_get_size(c, "machine", "page_size", 1ull << f->leaf[0].page_shift, 1, UINT64_MAX, &s->page_size, d) ||
      cfg_get_size(c, "machine", "phys_memory", 16ull << 30, smallest, PT_TABLE_PA_BASE, &s->phys_memory, d) ||
      cfg_get_u64(c, "machine", "seed", 1, 0, UINT64_MAX, &s->seed, d) || read_demand(c, &s->demand, d))
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
  uint64_t quarter = 1ull << (s->format->va_bits - 2);
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
  if (!is_leaf_size(s->format, s->vas.page_size))
    return cfg_error(c, "vas", "page_size", d, "not a page size of format %s", s->format->name);
  /* The policy checks its parameters as it starts: try it now, while the
   * configuration can still say where a bad value came from. */
  diag why;
  vas *probe = vas_create(s->vas_policy, &s->vas, NULL, &why);
  vas_destroy(probe);
  return probe ? 0 : cfg_error(c, "vas", "policy", d, "%s", why.msg);
}

static bool has_prefix(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* Reads the keys every array has: entries, ways, policy, index, bank_bits, sector. */
static int read_array(cfg *c, const char *sec, uint64_t seed, tlb_geometry *g, diag *d) {
  uint32_t entries, ways, sector;
  uint64_t bank_bits, s;
  const char *policy, *index;
  if (!cfg_has(c, sec, "entries")) return diag_set(d, NULL, 0, "[%s]: missing key 'entries'", sec);
  if (cfg_get_u32(c, sec, "entries", 0, 1, TLB_MAX_ENTRIES, &entries, d) ||
      cfg_get_u32(c, sec, "ways", entries, 1, entries, &ways, d) ||
      cfg_get_u32(c, sec, "sector", 1, 1, TLB_MAX_SECTOR, &sector, d) ||
      cfg_get_u64(c, sec, "seed", seed, 0, UINT64_MAX, &s, d) ||
      cfg_get_u64(c, sec, "bank_bits", 0, 0, 63, &bank_bits, d))
    return -1;
  uint32_t sets = entries % ways == 0 ? entries / ways : 0;
  if (sets && is_pow2(sets) && bank_bits > log2_u64(sets))
    return cfg_error(c, sec, "bank_bits", d, "%llu bank bits do not fit the %u sets' index",
                     (unsigned long long)bank_bits, sets);
  cfg_get_str(c, sec, "policy", "lru", &policy);
  cfg_get_str(c, sec, "index", "modulo", &index);
  *g = (tlb_geometry){.entries = entries, .ways = ways, .sector_pages = sector, .bank_bits = (uint8_t)bank_bits,
                      .seed = s};
  if (tlb_policy_parse(policy, &g->policy))
    return cfg_error(c, sec, "policy", d, "unknown policy '%s' (lru, fifo, random, plru)", policy);
  if (tlb_index_parse(index, &g->index))
    return cfg_error(c, sec, "index", d, "unknown index '%s' (modulo, xor)", index);
  return 0;
}

/* Page sizes of an array; the geometry check's complaint goes to `ways`
 * when the ways are what is wrong, else to `entries`. */
static int set_page_sizes(cfg *c, const char *sec, const uint64_t *sizes, size_t n, tlb_geometry *g, diag *d) {
  g->npage_shifts = (uint8_t)n;
  for (size_t i = 0; i < n; i++) g->page_shift[i] = (uint8_t)log2_u64(sizes[i]);
  diag why;
  if (!tlb_geometry_check(g, &why)) return 0;
  bool ways_wrong = g->entries % g->ways || (g->policy == TLB_PLRU && !is_pow2(g->ways));
  return cfg_error(c, sec, ways_wrong && cfg_has(c, sec, "ways") ? "ways" : "entries", d, "%s", why.msg);
}

static int read_page_sizes(cfg *c, const char *sec, uint64_t default_page, tlb_geometry *g, diag *d) {
  uint64_t sizes[TLB_MAX_PAGE_SIZES];
  size_t n;
  if (cfg_get_size_list(c, sec, "page_size", 2, 1ull << 62, sizes, TLB_MAX_PAGE_SIZES, &n, d)) return -1;
  if (n == 0) sizes[n++] = default_page;
  for (size_t i = 0; i < n; i++)
    if (!is_pow2(sizes[i]))
      return cfg_error(c, sec, "page_size", d, "page size %llu is not a power of two", (unsigned long long)sizes[i]);
  return set_page_sizes(c, sec, sizes, n, g, d);
}

static int read_level(cfg *c, const char *sec, uint64_t default_page, uint64_t seed, mmu_level_config *lv,
                      diag *d) {
  const char *serves;
  if (read_array(c, sec, seed, &lv->array[0], d) || read_page_sizes(c, sec, default_page, &lv->array[0], d) ||
      cfg_get_u32(c, sec, "latency", 0, 0, U32, &lv->latency, d) ||
      cfg_get_bool(c, sec, "sector_contiguous", true, &lv->sector_needs_contiguous_pa, d))
    return -1;
  lv->narrays = 1;
  cfg_get_str(c, sec, "serves", "data", &serves);
  if (!strcmp(serves, "data")) lv->serves = SERVES_DATA;
  else if (!strcmp(serves, "inst")) lv->serves = SERVES_INST;
  else if (!strcmp(serves, "both")) lv->serves = SERVES_BOTH;
  else return cfg_error(c, sec, "serves", d, "'%s' is not data, inst or both", serves);
  return 0;
}

/* [tlb.NAME:SIZE]: one more array of level NAME. */
static int read_extra_array(cfg *c, const char *sec, mmu_config *mc, uint64_t seed, diag *d) {
  const char *colon = strchr(sec, ':');
  char name[MMU_NAME_MAX];
  size_t len = (size_t)(colon - sec) - strlen(TLB_PREFIX);
  snprintf(name, sizeof name, "%.*s", (int)len, sec + strlen(TLB_PREFIX));
  uint64_t size;
  if (num_parse_size(colon + 1, &size) || !is_pow2(size) || size < 2)
    return diag_set(d, NULL, 0, "[%s]: '%s' after ':' is not a page size", sec, colon + 1);
  for (unsigned i = 0; i < mc->nlevels; i++) {
    mmu_level_config *lv = &mc->level[i];
    if (strcmp(lv->name, name)) continue;
    if (lv->narrays == MMU_MAX_ARRAYS) return diag_set(d, NULL, 0, "[%s]: too many arrays in level %s", sec, name);
    tlb_geometry *g = &lv->array[lv->narrays];
    if (read_array(c, sec, seed, g, d) || set_page_sizes(c, sec, &size, 1, g, d)) return -1;
    lv->narrays++;
    return 0;
  }
  return diag_set(d, NULL, 0, "[%s]: no level [tlb.%s] before it", sec, name);
}

static int resolve_next(cfg *c, mmu_config *mc, diag *d) {
  for (unsigned i = 0; i < mc->nlevels; i++) {
    char sec[MMU_NAME_MAX + 8];
    snprintf(sec, sizeof sec, TLB_PREFIX "%s", mc->level[i].name);
    const char *next;
    cfg_get_str(c, sec, "next", "walk", &next);
    mc->level[i].next = MMU_NEXT_WALK;
    if (!strcmp(next, "walk")) continue;
    int found = -1;
    for (unsigned j = 0; j < mc->nlevels; j++)
      if (!strcmp(mc->level[j].name, next)) found = (int)j;
    if (found < 0) return cfg_error(c, sec, "next", d, "no TLB level named '%s' (or 'walk')", next);
    mc->level[i].next = found;
  }
  diag why;
  if (mmu_config_check(mc, &why)) return diag_set(d, NULL, 0, "TLB hierarchy: %s", why.msg);
  return 0;
}

static int read_pwc(cfg *c, const char *sec, const pt_format *f, mmu_config *mc, diag *d) {
  const char *level = sec + strlen(PWC_PREFIX);
  for (unsigned i = 0; i < f->nlevels; i++) {
    if (strcasecmp(f->level[i].name, level)) continue;
    if (i + 1 == f->nlevels) return diag_set(d, NULL, 0, "[%s]: the last level holds only leaves", sec);
    walker_pwc_config *p = &mc->walker.pwc[i];
    const char *policy;
    if (cfg_get_u32(c, sec, "entries", 0, 0, TLB_MAX_ENTRIES, &p->entries, d) ||
        cfg_get_u32(c, sec, "ways", p->entries, p->entries ? 1 : 0, p->entries ? p->entries : U32, &p->ways, d))
      return -1;
    cfg_get_str(c, sec, "policy", "lru", &policy);
    if (tlb_policy_parse(policy, &p->policy)) return cfg_error(c, sec, "policy", d, "unknown policy '%s'", policy);
    return 0;
  }
  return diag_set(d, NULL, 0, "[%s]: format %s has no level named '%s'", sec, f->name, level);
}

static int read_walker(cfg *c, mmu_config *mc, diag *d) {
  walker_line_cache_config *lc = &mc->walker.line_cache;
  uint64_t fill;
  if (cfg_get_u32(c, "latency", "data_cycles", 0, 0, U32, &mc->data_cycles, d) ||
      cfg_get_u32(c, "latency", "walk_cycles", 0, 0, U32, &mc->walker.walk_cycles, d) ||
      cfg_get_u32(c, "latency", "walk_ref_cycles", 0, 0, U32, &mc->walker.walk_ref_cycles, d) ||
      cfg_get_bool(c, "mmu", "asid_tagged", true, &mc->asid_tagged, d) ||
      cfg_get_size(c, "mmu", "fill_bytes", 0, 0, 1u << 30, &fill, d) ||
      cfg_get_u32(c, "ptcache", "entries", 0, 0, TLB_MAX_ENTRIES, &lc->entries, d) ||
      cfg_get_u32(c, "ptcache", "ways", lc->entries, lc->entries ? 1 : 0, lc->entries ? lc->entries : U32, &lc->ways, d) ||
      cfg_get_u32(c, "ptcache", "hit_cycles", 0, 0, U32, &lc->hit_cycles, d))
    return -1;
  uint64_t line;
  if (cfg_get_size(c, "ptcache", "line_bytes", 128, 8, 1u << 30, &line, d)) return -1;
  if (fill && !is_pow2(fill)) return cfg_error(c, "mmu", "fill_bytes", d, "not a power of two");
  if (!is_pow2(line)) return cfg_error(c, "ptcache", "line_bytes", d, "not a power of two");
  mc->fill_bytes = (uint32_t)fill;
  lc->line_bytes = (uint32_t)line;
  return 0;
}

static int read_mmu(cfg *c, machine_spec *s, diag *d) {
  mmu_config *mc = &s->mmu;
  *mc = (mmu_config){.walker.seed = s->seed};
  if (read_walker(c, mc, d)) return -1;
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (!has_prefix(sec, TLB_PREFIX) || strchr(sec, ':')) continue;
    const char *name = sec + strlen(TLB_PREFIX);
    if (!*name || strlen(name) >= MMU_NAME_MAX)
      return diag_set(d, NULL, 0, "[%s]: a level name is 1 to %d characters", sec, MMU_NAME_MAX - 1);
    if (mc->nlevels == MMU_MAX_LEVELS) return diag_set(d, NULL, 0, "[%s]: more than %d TLB levels", sec, MMU_MAX_LEVELS);
    mmu_level_config *lv = &mc->level[mc->nlevels];
    snprintf(lv->name, sizeof lv->name, "%s", name);
    if (read_level(c, sec, s->page_size, s->seed + mc->nlevels, lv, d)) return -1;
    mc->nlevels++;
  }
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (has_prefix(sec, TLB_PREFIX) && strchr(sec, ':') && read_extra_array(c, sec, mc, s->seed + 100 + i, d))
      return -1;
    if (has_prefix(sec, PWC_PREFIX) && read_pwc(c, sec, s->format, mc, d)) return -1;
  }
  if (mc->nlevels == 0) return diag_set(d, NULL, 0, "no TLB level configured (a [tlb.l1d] section is needed)");
  return resolve_next(c, mc, d);
}

int machine_spec_read(cfg *c, machine_spec *s, diag *d) {
  *s = (machine_spec){0};
  return read_machine(c, s, d) || read_vas(c, s, d) || read_mmu(c, s, d) ? -1 : 0;
}
