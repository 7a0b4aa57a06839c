/* mmu_config.c — the MMU's configuration read (mmu_config_read, see
 * tlbsim/mmu.h): [latency] walk_cycles, [mmu], [ptcache], every [tlb.NAME]
 * and [tlb.NAME:SIZE] and [pwc.LEVEL], each number with the range of the
 * field it goes to. The simple keys are declared in the tables below
 * (mmu_config_keys: the man page is written from them); the rest, whose
 * defaults, ranges or meaning follow from other keys, are read here by
 * code and documented in the same tables. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tlbsim/mmu.h"

#define TLB_PREFIX "tlb."
#define PWC_PREFIX "pwc."
#define U32 NUM_U32_MAX

static bool has_prefix(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* --- the keys ------------------------------------------------------------- */

#define U32_KEY(st, field, key, deflt, low, high, unit, dtext, doc)                                            \
  {key, CFG_KEY_U32, offsetof(st, field), deflt, low, high, 0, 0, 0, unit, dtext, doc}
#define U64_KEY(st, field, key, deflt, low, high, unit, dtext, doc)                                            \
  {key, CFG_KEY_U64, offsetof(st, field), deflt, low, high, 0, 0, 0, unit, dtext, doc}
#define SIZE_KEY(st, field, key, deflt, low, high, dtext, doc)                                                 \
  {key, CFG_KEY_SIZE, offsetof(st, field), deflt, low, high, 0, 0, 0, "bytes", dtext, doc}
#define BOOL_KEY(st, field, key, deflt, dtext, doc) {key, CFG_KEY_BOOL, offsetof(st, field), deflt, 0, 1, 0, 0, 0, "bool", dtext, doc}
#define CODE_KEY(key, unit, dtext, doc) {key, CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, unit, dtext, doc}
#define KEYS(sec, table) {sec, table, sizeof table / sizeof table[0]}

/* What the tables of [mmu] and of an array read into. */
typedef struct mmu_values {
  bool asid_tagged;
  uint64_t fill_bytes;
} mmu_values;

typedef struct array_values {
  uint32_t entries, sector;
  uint64_t bank_bits, bank_va_bit;
} array_values;

static const cfg_key walker_latency_table[] = {
    U32_KEY(walker_config, walk_cycles, "walk_cycles", 0, 0, U32, "cycles", "0", "a page walk's fixed cost"),
};

static const cfg_key mmu_table[] = {
    BOOL_KEY(mmu_values, asid_tagged, "asid_tagged", 1, "true",
             "TLB entries carry an address-space id (a ctx record flushes nothing); false: a context switch flushes every TLB"),
    SIZE_KEY(mmu_values, fill_bytes, "fill_bytes", 0, 0, 1u << 30, "0",
             "a sector fill takes only the pages whose leaf entries share this aligned block of the leaf table with the "
             "page filled (what one walker fetch brings); 0: every mapped page (a power of two)"),
};

static const cfg_key ptcache_table[] = {
    U32_KEY(walker_line_cache_config, entries, "entries", 0, 0, TLB_MAX_ENTRIES, "count", "0",
            "lines of the cache of page-table lines walks read through (0: none)"),
    CODE_KEY("ways", "count", "entries", "its associativity"),
    U32_KEY(walker_line_cache_config, hit_cycles, "hit_cycles", 0, 0, U32, "cycles", "0", "a page-table read it serves"),
    CODE_KEY("line_bytes", "bytes", "128", "its line size, a power of two"),
};

/* The array keys a [tlb.NAME] and a [tlb.NAME:SIZE] have alike. */
#define ARRAY_KEYS(what)                                                                                        \
  CODE_KEY("entries", "count", "required", what),                                                           \
      CODE_KEY("ways", "count", "entries", "associativity (= entries: fully associative); entries / ways sets, a power of two"), \
      CODE_KEY("policy", "name", "lru", "replacement: lru, fifo, random or plru"),                          \
      CODE_KEY("index", "name", "modulo", "set index: modulo or xor"),                                      \
      U32_KEY(array_values, sector, "sector", 1, 1, TLB_MAX_SECTOR, "pages", "1",                             \
              "pages one entry holds (a sectored TLB, at most 64)"),                                           \
      U64_KEY(array_values, bank_bits, "bank_bits", 0, 0, 63, "bits", "0",                                     \
              "sets are split in 2^bank_bits banks by VA bits from bank_va_bit"),                              \
      U64_KEY(array_values, bank_va_bit, "bank_va_bit", 0, 0, 63, "bit", "0", "lowest VA bit of the bank number")

static const cfg_key level_table[] = {
    ARRAY_KEYS("entries of the level's first array (every preset names its first-level data TLB l1d)"),
    CODE_KEY("seed", "number", "[machine] seed + level", "random replacement's seed"),
    CODE_KEY("page_size", "list of bytes", "[machine] page_size", "the page sizes the array holds (at most 4)"),
    CODE_KEY("next", "name", "walk", "the level its misses go to, or walk"),
    CODE_KEY("serves", "name", "data", "data, inst or both"),
    CODE_KEY("shared_by", "count or all", "1",
             "CPUs (a trace's threads) or GPU SMs that share the level's arrays: 1, each its own; all, one for every "
             "one; N, one per group of N (agent / N)"),
};

/* The level's own keys beyond its first array's. */
static const cfg_key level_only_table[] = {
    U32_KEY(mmu_level_config, latency, "latency", 0, 0, U32, "cycles", "0", "a look-up that reaches this level"),
    BOOL_KEY(mmu_level_config, sector_needs_contiguous_pa, "sector_contiguous", 1, "true",
             "a sector holds only pages physically contiguous with each other"),
};

static const cfg_key extra_array_table[] = {
    ARRAY_KEYS("a further array of level NAME holding SIZE pages (keys as [tlb.NAME] has for its array)"),
    CODE_KEY("seed", "number", "[machine] seed + 100 + section", "random replacement's seed"),
};

static const cfg_key pwc_table[] = {
    U32_KEY(walker_pwc_config, entries, "entries", 0, 0, TLB_MAX_ENTRIES, "count", "0",
            "a page-walk cache of the entries of page-table level LEVEL (by its name, any case, brackets left out: "
            "[pwc.VPN2])"),
    CODE_KEY("ways", "count", "entries", "its associativity"),
    CODE_KEY("policy", "name", "lru", "its replacement"),
};

static const cfg_keys walker_latency_keys = KEYS("latency", walker_latency_table);
static const cfg_keys mmu_keys = KEYS("mmu", mmu_table);
static const cfg_keys ptcache_keys = KEYS("ptcache", ptcache_table);
/* The array tables read only the array_values keys; the level's others
 * (latency, sector_contiguous) from level_only_keys into the level. */
static const cfg_keys level_keys = KEYS("tlb.NAME", level_table);
static const cfg_keys level_only_keys = KEYS("tlb.NAME", level_only_table);
static const cfg_keys extra_array_keys = KEYS("tlb.NAME:SIZE", extra_array_table);
static const cfg_keys pwc_keys = KEYS("pwc.LEVEL", pwc_table);

static const cfg_keys *const all_keys[] = {&walker_latency_keys, &mmu_keys, &ptcache_keys, &level_keys,
                                           &level_only_keys, &extra_array_keys, &pwc_keys};

const cfg_keys *mmu_config_keys(size_t i) { return i < sizeof all_keys / sizeof all_keys[0] ? all_keys[i] : NULL; }

/* --- reading -------------------------------------------------------------- */

/* Adds an array's or cache's entries (each sector page counted: it has its
 * own slot) to those the configuration holds so far, *held: host memory
 * grows with them, so the total is capped, and the key that passes the cap
 * is the one named. */
static int hold(cfg *c, const char *sec, uint64_t entries, uint64_t *held, diag *d) {
  *held += entries;
  if (*held <= MMU_MAX_CONFIG_ENTRIES) return 0;
  return cfg_error(c, sec, "entries", d,
                   "brings the TLB arrays and caches to %llu entries in all, more than the %u a configuration "
                   "may hold",
                   (unsigned long long)*held, MMU_MAX_CONFIG_ENTRIES);
}

/* Reads the keys every array has (array_keys, then ways, seed, policy and
 * index, whose defaults and ranges follow from them). */
static int read_array(cfg *c, const char *sec, const cfg_keys *keys, uint64_t seed, tlb_geometry *g, uint64_t *held,
                      diag *d) {
  array_values v;
  uint32_t ways;
  uint64_t s;
  const char *policy, *index;
  if (!cfg_has(c, sec, "entries")) return cfg_section_error(c, sec, d, "missing key 'entries'");
  if (cfg_get_u32(c, sec, "entries", 0, 1, TLB_MAX_ENTRIES, &v.entries, d) ||
      cfg_get_u32(c, sec, "ways", v.entries, 1, v.entries, &ways, d) || cfg_read_keys(c, sec, keys, &v, d) ||
      cfg_get_u64(c, sec, "seed", seed, 0, UINT64_MAX, &s, d) || hold(c, sec, (uint64_t)v.entries * v.sector, held, d))
    return -1;
  uint32_t entries = v.entries, sector = v.sector;
  uint64_t bank_bits = v.bank_bits, bank_va_bit = v.bank_va_bit;
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
  return cfg_get_u32(c, sec, "shared_by", 1, 1, MMU_MAX_AGENTS, out, d);
}

static int read_level(cfg *c, const char *sec, uint64_t default_page, uint64_t seed, mmu_level_config *lv,
                      uint64_t *held, diag *d) {
  const char *serves;
  if (read_array(c, sec, &level_keys, seed, &lv->array[0], held, d) ||
      read_page_sizes(c, sec, default_page, &lv->array[0], d) || cfg_read_keys(c, sec, &level_only_keys, lv, d) ||
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
    if (read_array(c, sec, &extra_array_keys, seed, g, held, d) || set_page_sizes(c, sec, &size, 1, g, d)) return -1;
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

/* Level l came from overrides alone and the hierarchy fails: most likely
 * a misspelt level ("tlb.l1.entries" for tlb.l1d), so the error names the
 * --set and the levels there are. */
static int new_level_error(const cfg *c, const mmu_config *mc, unsigned l, const char *why, diag *d) {
  char levels[MMU_MAX_LEVELS * (MMU_NAME_MAX + 2)] = "", sec[MMU_NAME_MAX + 8];
  for (unsigned i = 0; i < mc->nlevels; i++) {
    level_section(&mc->level[i], sec, sizeof sec);
    if (cfg_section_is_new(c, sec)) continue;
    size_t at = strlen(levels);
    snprintf(levels + at, sizeof levels - at, "%s%s", at ? ", " : "", mc->level[i].name);
  }
  level_section(&mc->level[l], sec, sizeof sec);
  return cfg_section_error(c, sec, d, "no TLB level '%s' in the configuration (its levels: %s); as a new level: %s",
                           mc->level[l].name, levels, why);
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
  char sec[MMU_NAME_MAX + 8];
  for (unsigned i = 0; i < mc->nlevels; i++) { /* a level only an override made: a --set naming one not there */
    level_section(&mc->level[i], sec, sizeof sec);
    if (cfg_section_is_new(c, sec)) return new_level_error(c, mc, i, why.msg, d);
  }
  level_section(&mc->level[0], sec, sizeof sec);
  return cfg_section_error(c, sec, d, "TLB hierarchy: %s", why.msg);
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
    if (cfg_read_keys(c, sec, &pwc_keys, p, d) ||
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

/* [latency] walk_cycles, [mmu], [ptcache]: the walker's and the MMU's
 * own keys. */
static int read_walker(cfg *c, mmu_config *mc, uint64_t *held, diag *d) {
  walker_line_cache_config *lc = &mc->walker.line_cache;
  mmu_values mv;
  uint64_t fill;
  if (cfg_read_keys(c, "latency", &walker_latency_keys, &mc->walker, d) || cfg_read_keys(c, "mmu", &mmu_keys, &mv, d) ||
      cfg_read_keys(c, "ptcache", &ptcache_keys, lc, d) ||
      cfg_get_u32(c, "ptcache", "ways", lc->entries, lc->entries ? 1 : 0, lc->entries ? lc->entries : U32, &lc->ways, d) ||
      hold(c, "ptcache", lc->entries, held, d))
    return -1;
  mc->asid_tagged = mv.asid_tagged;
  fill = mv.fill_bytes;
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

int mmu_config_read(cfg *c, const pt_format *f, uint64_t page_size, uint64_t seed, mmu_config *mc, diag *d) {
  *mc = (mmu_config){.walker.seed = seed};
  uint64_t held = 0;
  if (read_walker(c, mc, &held, d)) return -1;
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (!has_prefix(sec, TLB_PREFIX) || strchr(sec, ':')) continue;
    const char *name = sec + strlen(TLB_PREFIX);
    if (!*name || strlen(name) >= MMU_NAME_MAX)
      return cfg_section_error(c, sec, d, "a level name is 1 to %d characters", MMU_NAME_MAX - 1);
    if (mc->nlevels == MMU_MAX_LEVELS) return cfg_section_error(c, sec, d, "more than %d TLB levels", MMU_MAX_LEVELS);
    mmu_level_config *lv = &mc->level[mc->nlevels];
    snprintf(lv->name, sizeof lv->name, "%s", name);
    if (read_level(c, sec, page_size, seed + mc->nlevels, lv, &held, d)) return -1;
    mc->nlevels++;
  }
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    if (has_prefix(sec, TLB_PREFIX) && strchr(sec, ':') &&
        read_extra_array(c, sec, mc, seed + 100 + i, &held, d))
      return -1;
    if (has_prefix(sec, PWC_PREFIX) && read_pwc(c, sec, f, mc, &held, d)) return -1;
  }
  if (mc->nlevels == 0)
    return diag_set(d, cfg_file(c), 0, "no TLB level configured (a [tlb.l1d] section is needed)");
  return resolve_next(c, mc, d);
}

