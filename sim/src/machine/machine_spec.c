/* Configuration → machine_spec: every key a machine reads, read once.
 * Section names:
 *   [machine]         format, page_size, phys_memory, frame_order, demand_paging, seed, tables_in_memory,
 *                     address_spaces
 *   [format.NAME]     a page-table format: va_bits, levels, leaves, sign_extend, description
 *   [vas]             policy and every allocator parameter (vas_param_*)
 *   [latency] [mmu]   latency model, ASID tagging, walker fetch span
 *   [ptcache]         the cache of page-table lines walks read through
 *   [tlb.NAME]        a TLB level (its first array)
 *   [tlb.NAME:SIZE]   a further array of that level, holding SIZE pages
 *   [pwc.LEVEL]       a page-walk cache for page-table level LEVEL (by name)
 * Every number is read with the range of the field it is stored in. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tlbsim/machine.h"

#define TLB_PREFIX "tlb."
#define PWC_PREFIX "pwc."
#define FORMAT_PREFIX "format."
#define U32 NUM_U32_MAX

static bool has_prefix(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static int add_level(void *f, const char *item, diag *why) { return pt_format_add_level(f, item, why); }
static int add_leaf(void *f, const char *item, diag *why) { return pt_format_add_leaf(f, item, why); }

/* [format.NAME]: va_bits, levels, leaves, sign_extend, description; checked
 * as a built-in format is, a fault reported at the key it lies in. */
static int read_format_section(cfg *c, const char *sec, pt_format *f, diag *d) {
  const char *name = sec + strlen(FORMAT_PREFIX), *text;
  if (!*name || strlen(name) >= PT_NAME_MAX || pt_format_find(name))
    return cfg_section_error(c, sec, d, "a format's name is 1 to %d characters, not a built-in format's",
                             PT_NAME_MAX - 1);
  uint32_t va_bits;
  *f = (pt_format){0};
  snprintf(f->name, sizeof f->name, "%s", name);
  static const char *const need[] = {"va_bits", "levels", "leaves"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!cfg_has(c, sec, need[i])) return cfg_section_error(c, sec, d, "missing key '%s'", need[i]);
  if (cfg_get_u32(c, sec, "va_bits", 0, 5, 64, &va_bits, d) ||
      cfg_get_bool(c, sec, "sign_extend", false, &f->sign_extend, d))
    return -1;
  f->va_bits = (uint8_t)va_bits;
  cfg_get_str(c, sec, "description", "defined in the configuration", &text);
  snprintf(f->description, sizeof f->description, "%s", text);
  if (cfg_get_list(c, sec, "levels", add_level, f, NULL, d) || cfg_get_list(c, sec, "leaves", add_leaf, f, NULL, d))
    return -1;
  diag why;
  int fault = pt_format_check(f, &why);
  if (fault == PT_FORMAT_OK) return 0;
  /* Levels that do not span va_bits: either key may be the slip, the one set last is named. */
  const char *key = fault == PT_FORMAT_BAD_LEAVES ? "leaves"
                    : fault == PT_FORMAT_BAD_SPAN ? cfg_latest(c, sec, "levels", "va_bits")
                                                  : "levels";
  return cfg_error(c, sec, key, d, "%s", why.msg);
}

/* [machine] format: a [format.NAME] of the configuration, else a built-in
 * one. Every [format.NAME] is read and checked, named or not, so that one
 * file can hold the formats a sweep varies. */
static int read_format(cfg *c, pt_format *out, diag *d) {
  const char *name;
  cfg_get_str(c, "machine", "format", "x86-64-4", &name);
  bool found = false;
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    pt_format f;
    if (!has_prefix(sec, FORMAT_PREFIX)) continue;
    if (read_format_section(c, sec, &f, d)) return -1;
    if (strcmp(f.name, name)) continue;
    *out = f;
    found = true;
  }
  if (found) return 0;
  const pt_format *builtin = pt_format_find(name);
  if (builtin) {
    *out = *builtin;
    return 0;
  }
  char known[256] = "";
  for (size_t i = 0; i < pt_format_count(); i++) {
    if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, pt_format_at(i)->name, sizeof known - strlen(known) - 1);
  }
  return cfg_error(c, "machine", "format", d, "unknown page-table format '%s' (known: %s, or a [format.NAME])", name,
                   known);
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
  if (read_format(c, &s->format, d)) return -1;
  const pt_format *f = &s->format;
  uint64_t smallest = UINT64_MAX;
  for (unsigned i = 0; i < f->nleaves; i++)
    if ((1ull << f->leaf[i].page_shift) < smallest) smallest = 1ull << f->leaf[i].page_shift;
  if (cfg_get_size(c, "machine", "page_size", 1ull << f->leaf[0].page_shift, 1, UINT64_MAX, &s->page_size, d) ||
      cfg_get_size(c, "machine", "phys_memory", 16ull << 30, smallest, PT_TABLE_PA_BASE, &s->phys_memory, d) ||
      cfg_get_u64(c, "machine", "seed", 1, 0, UINT64_MAX, &s->seed, d) || read_demand(c, &s->demand, d) ||
      cfg_get_bool(c, "machine", "tables_in_memory", false, &s->tables_in_memory, d) ||
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

/* Adds an array's or cache's entries (each sector page counted: it has its
 * own slot) to those the configuration holds so far, *held: host memory
 * grows with them, so the total is capped, and the key that passes the cap
 * is the one named. */
static int hold(cfg *c, const char *sec, uint64_t entries, uint64_t *held, diag *d) {
  *held += entries;
  if (*held <= MACHINE_MAX_TLB_ENTRIES) return 0;
  return cfg_error(c, sec, "entries", d,
                   "brings the TLB arrays and caches to %llu entries in all, more than the %u a configuration "
                   "may hold",
                   (unsigned long long)*held, MACHINE_MAX_TLB_ENTRIES);
}

/* Reads the keys every array has: entries, ways, policy, index, bank_bits, bank_va_bit, sector. */
static int read_array(cfg *c, const char *sec, uint64_t seed, tlb_geometry *g, uint64_t *held, diag *d) {
  uint32_t entries, ways, sector;
  uint64_t bank_bits, bank_va_bit, s;
  const char *policy, *index;
  if (!cfg_has(c, sec, "entries")) return cfg_section_error(c, sec, d, "missing key 'entries'");
  if (cfg_get_u32(c, sec, "entries", 0, 1, TLB_MAX_ENTRIES, &entries, d) ||
      cfg_get_u32(c, sec, "ways", entries, 1, entries, &ways, d) ||
      cfg_get_u32(c, sec, "sector", 1, 1, TLB_MAX_SECTOR, &sector, d) ||
      cfg_get_u64(c, sec, "seed", seed, 0, UINT64_MAX, &s, d) ||
      cfg_get_u64(c, sec, "bank_bits", 0, 0, 63, &bank_bits, d) ||
      cfg_get_u64(c, sec, "bank_va_bit", 0, 0, 63, &bank_va_bit, d) || hold(c, sec, (uint64_t)entries * sector, held, d))
    return -1;
  uint32_t sets = entries % ways == 0 ? entries / ways : 0;
  if (sets && is_pow2(sets) && bank_bits > log2_u64(sets))
    return cfg_error(c, sec, "bank_bits", d, "%llu bank bits do not fit the %u sets' index",
                     (unsigned long long)bank_bits, sets);
  cfg_get_str(c, sec, "policy", "lru", &policy);
  cfg_get_str(c, sec, "index", "modulo", &index);
  *g = (tlb_geometry){.entries = entries, .ways = ways, .sector_pages = sector, .bank_bits = (uint8_t)bank_bits,
                      .bank_va_bit = (uint8_t)bank_va_bit, .seed = s};
  if (tlb_policy_parse(policy, &g->policy))
    return cfg_error(c, sec, "policy", d, "unknown policy '%s' (lru, fifo, random, plru)", policy);
  if (tlb_index_parse(index, &g->index))
    return cfg_error(c, sec, "index", d, "unknown index '%s' (modulo, xor)", index);
  return 0;
}

/* Page sizes of an array; the geometry check's complaint about its shape
 * goes to whichever of `entries` and `ways` was set last, one about its
 * page sizes to `page_size`. */
static int set_page_sizes(cfg *c, const char *sec, const uint64_t *sizes, size_t n, tlb_geometry *g, diag *d) {
  g->npage_shifts = (uint8_t)n;
  for (size_t i = 0; i < n; i++) g->page_shift[i] = (uint8_t)log2_u64(sizes[i]);
  diag why;
  if (!tlb_geometry_check(g, &why)) return 0;
  bool shape = g->entries % g->ways || !is_pow2(g->entries / g->ways) || (g->policy == TLB_PLRU && !is_pow2(g->ways));
  const char *key = shape ? cfg_latest(c, sec, "entries", "ways") : cfg_has(c, sec, "page_size") ? "page_size" : "entries";
  return cfg_error(c, sec, key, d, "%s", why.msg);
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

/* shared_by: 1 (the default: each agent its own), all, or a number of
 * agents per group. */
static int read_shared_by(cfg *c, const char *sec, uint32_t *out, diag *d) {
  const char *s;
  cfg_get_str(c, sec, "shared_by", "1", &s);
  if (!strcmp(s, "all")) return *out = MMU_SHARED_BY_ALL, 0;
  return cfg_get_u32(c, sec, "shared_by", 1, 1, SYSTEM_MAX_AGENTS, out, d);
}

static int read_level(cfg *c, const char *sec, uint64_t default_page, uint64_t seed, mmu_level_config *lv,
                      uint64_t *held, diag *d) {
  const char *serves;
  if (read_array(c, sec, seed, &lv->array[0], held, d) || read_page_sizes(c, sec, default_page, &lv->array[0], d) ||
      cfg_get_u32(c, sec, "latency", 0, 0, U32, &lv->latency, d) ||
      cfg_get_bool(c, sec, "sector_contiguous", true, &lv->sector_needs_contiguous_pa, d) ||
      read_shared_by(c, sec, &lv->shared_by, d))
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
static int read_extra_array(cfg *c, const char *sec, mmu_config *mc, uint64_t seed, uint64_t *held, diag *d) {
  const char *colon = strchr(sec, ':');
  char name[MMU_NAME_MAX];
  size_t len = (size_t)(colon - sec) - strlen(TLB_PREFIX);
  snprintf(name, sizeof name, "%.*s", (int)len, sec + strlen(TLB_PREFIX));
  uint64_t size;
  if (num_parse_size(colon + 1, &size) || !is_pow2(size) || size < 2)
    return cfg_section_error(c, sec, d, "'%s' after ':' is not a page size", colon + 1);
  for (unsigned i = 0; i < mc->nlevels; i++) {
    mmu_level_config *lv = &mc->level[i];
    if (strcmp(lv->name, name)) continue;
    if (lv->narrays == MMU_MAX_ARRAYS)
      return cfg_section_error(c, sec, d, "more than %d arrays in level %s", MMU_MAX_ARRAYS, name);
    tlb_geometry *g = &lv->array[lv->narrays];
    if (read_array(c, sec, seed, g, held, d) || set_page_sizes(c, sec, &size, 1, g, d)) return -1;
    lv->narrays++;
    return 0;
  }
  return cfg_section_error(c, sec, d, "no level [tlb.%s] before it", name);
}

static void level_section(const mmu_level_config *lv, char *sec, size_t len) {
  snprintf(sec, len, TLB_PREFIX "%s", lv->name);
}

/* Following `next` from any level must reach the walk. A cycle is reported
 * at the `next` key of a level on it (mmu_config_check finds it too, but
 * cannot say where it was configured). */
static int check_cycle(cfg *c, const mmu_config *mc, diag *d) {
  for (unsigned l = 0; l < mc->nlevels; l++) {
    int at = (int)l;
    for (unsigned steps = 0; at != MMU_NEXT_WALK; steps++, at = mc->level[at].next) {
      if (steps <= mc->nlevels) continue;
      char sec[MMU_NAME_MAX + 8];
      level_section(&mc->level[at], sec, sizeof sec);
      return cfg_error(c, sec, "next", d, "'%s' closes a cycle of next links (they must end at 'walk')",
                       mc->level[mc->level[at].next].name);
    }
  }
  return 0;
}

static int resolve_next(cfg *c, mmu_config *mc, diag *d) {
  for (unsigned i = 0; i < mc->nlevels; i++) {
    char sec[MMU_NAME_MAX + 8];
    level_section(&mc->level[i], sec, sizeof sec);
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
  if (check_cycle(c, mc, d)) return -1;
  diag why;
  if (!mmu_config_check(mc, &why)) return 0;
  char first[MMU_NAME_MAX + 8];
  level_section(&mc->level[0], first, sizeof first);
  return cfg_section_error(c, first, d, "TLB hierarchy: %s", why.msg);
}

/* Whether [pwc.TEXT] names a level: its name in any case, brackets left
 * out (an INI section cannot hold Sv39's "VPN[2]": [pwc.VPN2] names it). */
static bool is_bracket(char ch) { return ch == '[' || ch == ']'; }

static bool names_level(const char *level, const char *text) {
  for (;; level++, text++) {
    while (is_bracket(*level)) level++;
    while (is_bracket(*text)) text++;
    if (tolower((unsigned char)*level) != tolower((unsigned char)*text)) return false;
    if (!*level) return true;
  }
}

static int read_pwc(cfg *c, const char *sec, const pt_format *f, mmu_config *mc, uint64_t *held, diag *d) {
  const char *level = sec + strlen(PWC_PREFIX);
  for (unsigned i = 0; i < f->nlevels; i++) {
    if (!names_level(f->level[i].name, level)) continue;
    if (i + 1 == f->nlevels) return cfg_section_error(c, sec, d, "the last level holds only leaves");
    walker_pwc_config *p = &mc->walker.pwc[i];
    const char *policy;
    if (cfg_get_u32(c, sec, "entries", 0, 0, TLB_MAX_ENTRIES, &p->entries, d) ||
        cfg_get_u32(c, sec, "ways", p->entries, p->entries ? 1 : 0, p->entries ? p->entries : U32, &p->ways, d) ||
        hold(c, sec, p->entries, held, d))
      return -1;
    cfg_get_str(c, sec, "policy", "lru", &policy);
    if (tlb_policy_parse(policy, &p->policy)) return cfg_error(c, sec, "policy", d, "unknown policy '%s'", policy);
    /* The walker's own check, on this cache alone, while its keys can be named. */
    walker_config alone = {0};
    alone.pwc[i] = *p;
    diag why;
    if (walker_config_check(&alone, f, &why))
      return cfg_error(c, sec, cfg_latest(c, sec, "entries", "ways"), d, "%s", why.msg);
    return 0;
  }
  return cfg_section_error(c, sec, d, "format %s has no level named '%s'", f->name, level);
}

static int read_walker(cfg *c, system_spec *sys, uint64_t *held, diag *d) {
  mmu_config *mc = &sys->mmu;
  walker_line_cache_config *lc = &mc->walker.line_cache;
  uint64_t fill;
  if (cfg_get_u32(c, "latency", "data_cycles", 0, 0, U32, &sys->mem.data_cycles, d) ||
      cfg_get_u32(c, "latency", "walk_cycles", 0, 0, U32, &mc->walker.walk_cycles, d) ||
      cfg_get_u32(c, "latency", "walk_ref_cycles", 0, 0, U32, &sys->mem.table_cycles, d) ||
      cfg_get_bool(c, "mmu", "asid_tagged", true, &mc->asid_tagged, d) ||
      cfg_get_size(c, "mmu", "fill_bytes", 0, 0, 1u << 30, &fill, d) ||
      cfg_get_u32(c, "ptcache", "entries", 0, 0, TLB_MAX_ENTRIES, &lc->entries, d) ||
      cfg_get_u32(c, "ptcache", "ways", lc->entries, lc->entries ? 1 : 0, lc->entries ? lc->entries : U32, &lc->ways, d) ||
      cfg_get_u32(c, "ptcache", "hit_cycles", 0, 0, U32, &lc->hit_cycles, d) || hold(c, "ptcache", lc->entries, held, d))
    return -1;
  uint64_t line;
  if (cfg_get_size(c, "ptcache", "line_bytes", 128, 8, 1u << 30, &line, d)) return -1;
  if (fill && !is_pow2(fill)) return cfg_error(c, "mmu", "fill_bytes", d, "not a power of two");
  if (!is_pow2(line)) return cfg_error(c, "ptcache", "line_bytes", d, "not a power of two");
  mc->fill_bytes = (uint32_t)fill;
  lc->line_bytes = (uint32_t)line;
  /* The geometry the walker gives its line cache (walker.c), checked here
   * so that a bad one is reported at its key. */
  tlb_geometry g = {.entries = lc->entries, .ways = lc->ways, .policy = TLB_LRU, .sector_pages = 1,
                    .npage_shifts = 1, .page_shift = {(uint8_t)log2_u64(line)}};
  diag why;
  if (lc->entries && tlb_geometry_check(&g, &why))
    return cfg_error(c, "ptcache", cfg_latest(c, "ptcache", "entries", "ways"), d, "%s", why.msg);
  return 0;
}

static int read_mmu(cfg *c, machine_spec *s, diag *d) {
  mmu_config *mc = &s->sys.mmu;
  *mc = (mmu_config){.walker.seed = s->seed};
  uint64_t held = 0;
  if (read_walker(c, &s->sys, &held, d)) return -1;
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (!has_prefix(sec, TLB_PREFIX) || strchr(sec, ':')) continue;
    const char *name = sec + strlen(TLB_PREFIX);
    if (!*name || strlen(name) >= MMU_NAME_MAX)
      return cfg_section_error(c, sec, d, "a level name is 1 to %d characters", MMU_NAME_MAX - 1);
    if (mc->nlevels == MMU_MAX_LEVELS) return cfg_section_error(c, sec, d, "more than %d TLB levels", MMU_MAX_LEVELS);
    mmu_level_config *lv = &mc->level[mc->nlevels];
    snprintf(lv->name, sizeof lv->name, "%s", name);
    if (read_level(c, sec, s->page_size, s->seed + mc->nlevels, lv, &held, d)) return -1;
    mc->nlevels++;
  }
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (has_prefix(sec, TLB_PREFIX) && strchr(sec, ':') &&
        read_extra_array(c, sec, mc, s->seed + 100 + i, &held, d))
      return -1;
    if (has_prefix(sec, PWC_PREFIX) && read_pwc(c, sec, &s->format, mc, &held, d)) return -1;
  }
  if (mc->nlevels == 0)
    return diag_set(d, cfg_file(c), 0, "no TLB level configured (a [tlb.l1d] section is needed)");
  return resolve_next(c, mc, d);
}

/* [gpu]: the device the concurrency model (gather.h) runs on. */
static int read_gpu(cfg *c, gpu_config *g, diag *d) {
  static const struct {
    const char *key;
    size_t offset;
  } reals[] = {
      {"clock_ghz", offsetof(gpu_config, clock_ghz)},
      {"warp_group_cycles", offsetof(gpu_config, warp_group_cycles)},
      {"issue_interval", offsetof(gpu_config, issue_interval)},
      {"l1_miss_interval", offsetof(gpu_config, l1_miss_interval)},
      {"l2_interval", offsetof(gpu_config, l2_interval)},
      {"l3_interval", offsetof(gpu_config, l3_interval)},
      {"l3_scattered_interval", offsetof(gpu_config, l3_scattered_interval)},
      {"walk_interval", offsetof(gpu_config, walk_interval)},
      {"data_interval", offsetof(gpu_config, data_interval)},
      {"data_spread_cycles", offsetof(gpu_config, data_spread_cycles)},
      {"l1_hit_cycles", offsetof(gpu_config, l1_hit_cycles)},
      {"launch_gap_ns", offsetof(gpu_config, launch_gap_ns)},
  };
  *g = (gpu_config){0};
  if (!cfg_has_section(c, "gpu")) return 0;
  uint64_t group[GPU_MAX_GROUP_SMS];
  size_t n;
  if (cfg_get_u32(c, "gpu", "sms", 0, 1, GPU_MAX_SMS, &g->sms, d) ||
      cfg_get_u32(c, "gpu", "l1_miss_slots", 1u << 20, 1, 1u << 20, &g->l1_miss_slots, d) ||
      cfg_get_u32(c, "gpu", "l2_miss_slots", 1u << 20, 1, 1u << 20, &g->l2_miss_slots, d) ||
      cfg_get_size_list(c, "gpu", "group", 0, GPU_MAX_SMS - 1, group, GPU_MAX_GROUP_SMS, &n, d))
    return -1;
  if (!cfg_has(c, "gpu", "sms")) return cfg_section_error(c, "gpu", d, "missing key 'sms'");
  for (size_t i = 0; i < n; i++) g->group[i] = (uint32_t)group[i];
  g->ngroup = (uint32_t)n;
  for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
    if (cfg_get_real(c, "gpu", reals[i].key, 0, 0, 1e12, (double *)(void *)((char *)g + reals[i].offset), d))
      return -1;
  diag why;
  return gpu_config_check(g, &why) ? cfg_section_error(c, "gpu", d, "%s", why.msg) : 0;
}

int machine_spec_read(cfg *c, machine_spec *s, diag *d) {
  *s = (machine_spec){0};
  return read_machine(c, s, d) || read_vas(c, s, d) || read_mmu(c, s, d) || read_gpu(c, &s->gpu, d) ? -1 : 0;
}
