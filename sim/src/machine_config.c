/* Configuration → mmu_config and page-table format. Section names:
 *   [tlb.NAME]        a TLB level (its first array)
 *   [tlb.NAME:SIZE]   a further array of that level, holding SIZE pages
 *   [pwc.LEVEL]       a page-walk cache for page-table level LEVEL (by name)
 *   [latency] [mmu]   latency model, ASID tagging
 *   [ptcache]         the cache of page-table lines walks read through */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tlbsim/machine.h"

#define TLB_PREFIX "tlb."
#define PWC_PREFIX "pwc."

int machine_pt_format(cfg *c, const pt_format **out, diag *d) {
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

static bool has_prefix(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* Reads the keys every array has: entries, ways, policy, index, bank_bits, sector. */
static int read_array(cfg *c, const char *sec, uint64_t seed, tlb_geometry *g, diag *d) {
  uint64_t entries, ways, sector, s, bank_bits;
  const char *policy, *index;
  if (cfg_get_u64(c, sec, "entries", 0, &entries, d) || cfg_get_u64(c, sec, "ways", entries, &ways, d) ||
      cfg_get_u64(c, sec, "sector", 1, &sector, d) || cfg_get_u64(c, sec, "seed", seed, &s, d) ||
      cfg_get_u64(c, sec, "bank_bits", 0, &bank_bits, d))
    return -1;
  if (!cfg_has(c, sec, "entries")) return diag_set(d, NULL, 0, "[%s]: missing key 'entries'", sec);
  if (entries > UINT32_MAX || ways > UINT32_MAX || sector > UINT32_MAX)
    return cfg_error(c, sec, "entries", d, "too large");
  uint64_t sets = ways && entries % ways == 0 ? entries / ways : 0;
  if (sets && is_pow2(sets) && bank_bits > log2_u64(sets))
    return cfg_error(c, sec, "bank_bits", d, "%llu bank bits do not fit the %llu sets' index",
                     (unsigned long long)bank_bits, (unsigned long long)sets);
  cfg_get_str(c, sec, "policy", "lru", &policy);
  cfg_get_str(c, sec, "index", "modulo", &index);
  *g = (tlb_geometry){.entries = (uint32_t)entries, .ways = (uint32_t)ways, .sector_pages = (uint32_t)sector,
                      .bank_bits = (uint8_t)bank_bits, .seed = s};
  if (tlb_policy_parse(policy, &g->policy))
    return cfg_error(c, sec, "policy", d, "unknown policy '%s' (lru, fifo, random, plru)", policy);
  if (tlb_index_parse(index, &g->index))
    return cfg_error(c, sec, "index", d, "unknown index '%s' (modulo, xor)", index);
  return 0;
}

static int set_page_sizes(cfg *c, const char *sec, const char *key, const uint64_t *sizes, size_t n,
                          tlb_geometry *g, diag *d) {
  for (size_t i = 0; i < n; i++)
    if (!is_pow2(sizes[i])) return cfg_error(c, sec, key, d, "page size %llu is not a power of two",
                                             (unsigned long long)sizes[i]);
  g->npage_shifts = (uint8_t)n;
  for (size_t i = 0; i < n; i++) g->page_shift[i] = (uint8_t)log2_u64(sizes[i]);
  diag why;
  if (tlb_geometry_check(g, &why)) return cfg_error(c, sec, "entries", d, "%s", why.msg);
  return 0;
}

static int read_level(cfg *c, const char *sec, uint64_t default_page, uint64_t seed, mmu_level_config *lv,
                      diag *d) {
  uint64_t sizes[TLB_MAX_PAGE_SIZES], latency;
  size_t n;
  const char *serves;
  bool contiguous;
  if (read_array(c, sec, seed, &lv->array[0], d) ||
      cfg_get_size_list(c, sec, "page_size", sizes, TLB_MAX_PAGE_SIZES, &n, d) ||
      cfg_get_u64(c, sec, "latency", 0, &latency, d) ||
      cfg_get_bool(c, sec, "sector_contiguous", true, &contiguous, d))
    return -1;
  if (n == 0) sizes[n++] = default_page;
  if (set_page_sizes(c, sec, "page_size", sizes, n, &lv->array[0], d)) return -1;
  lv->narrays = 1;
  lv->latency = (uint32_t)latency;
  lv->sector_needs_contiguous_pa = contiguous;
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
  if (size_parse(colon + 1, &size) || !is_pow2(size))
    return diag_set(d, NULL, 0, "[%s]: '%s' after ':' is not a page size", sec, colon + 1);
  for (unsigned i = 0; i < mc->nlevels; i++) {
    mmu_level_config *lv = &mc->level[i];
    if (strcmp(lv->name, name)) continue;
    if (lv->narrays == MMU_MAX_ARRAYS) return diag_set(d, NULL, 0, "[%s]: too many arrays in level %s", sec, name);
    tlb_geometry *g = &lv->array[lv->narrays];
    if (read_array(c, sec, seed, g, d) || set_page_sizes(c, sec, "entries", &size, 1, g, d)) return -1;
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
    uint64_t entries, ways;
    const char *policy;
    if (cfg_get_u64(c, sec, "entries", 0, &entries, d) || cfg_get_u64(c, sec, "ways", entries, &ways, d))
      return -1;
    cfg_get_str(c, sec, "policy", "lru", &policy);
    mmu_pwc_config *p = &mc->pwc[i];
    p->entries = (uint32_t)entries;
    p->ways = (uint32_t)ways;
    if (tlb_policy_parse(policy, &p->policy)) return cfg_error(c, sec, "policy", d, "unknown policy '%s'", policy);
    if (i + 1 == f->nlevels) return diag_set(d, NULL, 0, "[%s]: the last level holds only leaves", sec);
    return 0;
  }
  return diag_set(d, NULL, 0, "[%s]: format %s has no level named '%s'", sec, f->name, level);
}

int machine_mmu_config(cfg *c, const pt_format *f, mmu_config *mc, diag *d) {
  uint64_t seed, default_page, data, walk, ref;
  *mc = (mmu_config){0};
  if (cfg_get_u64(c, "machine", "seed", 1, &seed, d) ||
      cfg_get_size(c, "machine", "page_size", 1ull << f->leaf[0].page_shift, &default_page, d) ||
      cfg_get_u64(c, "latency", "data_cycles", 0, &data, d) || cfg_get_u64(c, "latency", "walk_cycles", 0, &walk, d) ||
      cfg_get_u64(c, "latency", "walk_ref_cycles", 0, &ref, d) ||
      cfg_get_bool(c, "mmu", "asid_tagged", true, &mc->asid_tagged, d))
    return -1;
  uint64_t lines, line_ways, line_bytes, line_hit, fill;
  if (cfg_get_size(c, "mmu", "fill_bytes", 0, &fill, d)) return -1;
  if (fill > UINT32_MAX || (fill && !is_pow2(fill))) return cfg_error(c, "mmu", "fill_bytes", d, "not a power of two");
  mc->fill_bytes = (uint32_t)fill;
  if (cfg_get_u64(c, "ptcache", "entries", 0, &lines, d) || cfg_get_u64(c, "ptcache", "ways", lines, &line_ways, d) ||
      cfg_get_size(c, "ptcache", "line_bytes", 128, &line_bytes, d) ||
      cfg_get_u64(c, "ptcache", "hit_cycles", 0, &line_hit, d))
    return -1;
  if (lines > UINT32_MAX || line_ways > UINT32_MAX || line_bytes > UINT32_MAX || line_hit > UINT32_MAX)
    return cfg_error(c, "ptcache", "entries", d, "too large");
  mc->line_cache = (mmu_line_cache_config){(uint32_t)lines, (uint32_t)line_ways, (uint32_t)line_bytes, (uint32_t)line_hit};
  mc->seed = seed;
  mc->data_cycles = (uint32_t)data;
  mc->walk_cycles = (uint32_t)walk;
  mc->walk_ref_cycles = (uint32_t)ref;
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (!has_prefix(sec, TLB_PREFIX) || strchr(sec, ':')) continue;
    if (mc->nlevels == MMU_MAX_LEVELS) return diag_set(d, NULL, 0, "[%s]: more than %d TLB levels", sec, MMU_MAX_LEVELS);
    mmu_level_config *lv = &mc->level[mc->nlevels];
    const char *name = sec + strlen(TLB_PREFIX);
    if (!*name || strlen(name) >= MMU_NAME_MAX) return diag_set(d, NULL, 0, "[%s]: bad level name", sec);
    snprintf(lv->name, sizeof lv->name, "%s", name);
    if (read_level(c, sec, default_page, seed + mc->nlevels, lv, d)) return -1;
    mc->nlevels++;
  }
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (has_prefix(sec, TLB_PREFIX) && strchr(sec, ':') && read_extra_array(c, sec, mc, seed + 100 + i, d)) return -1;
    if (has_prefix(sec, PWC_PREFIX) && read_pwc(c, sec, f, mc, d)) return -1;
  }
  if (mc->nlevels == 0) return diag_set(d, NULL, 0, "no TLB level configured (a [tlb.l1d] section is needed)");
  return resolve_next(c, mc, d);
}
