/* walker.c — page walks through walk caches and a line cache (see
 * tlbsim/walker.h). Both caches are tlb arrays: a walk cache's "page" is the
 * VA span one directory entry covers, the line cache's a page-table line. */
#include "tlbsim/walker.h"

#include <stdlib.h>

struct walker {
  walker_config cfg;
  const pt_format *fmt;
  tlb *pwc[PT_MAX_LEVELS];          /* by page-table level, NULL when none */
  uint8_t pwc_order[PT_MAX_LEVELS]; /* levels with a walk cache, deepest first */
  uint8_t npwc;
  tlb *lines;                       /* NULL when no line cache */
  unsigned line_shift;
  memsys *mem;                      /* where a line-cache miss is read from */
  uint32_t table_cycles;            /* what each read costs, when mem says they all cost the same */
  bool table_fixed;                 /* ... and whether it does (else each asks mem) */
};

static tlb_geometry pwc_geometry(const walker_config *c, unsigned level, unsigned shift) {
  const walker_pwc_config *p = &c->pwc[level];
  return (tlb_geometry){.entries = p->entries,
                        .ways = p->ways,
                        .policy = p->policy,
                        .index = TLB_INDEX_MODULO,
                        .sector_pages = 1,
                        .npage_shifts = 1,
                        .page_shift = {(uint8_t)shift},
                        .seed = c->seed ^ (0x9e3779b97f4a7c15ull * (level + 1))};
}

int walker_config_check(const walker_config *c, const pt_format *f, diag *d) {
  for (unsigned l = 0; l < PT_MAX_LEVELS; l++) {
    if (!c->pwc[l].entries) continue;
    tlb_geometry g = pwc_geometry(c, l, 12);
    diag why;
    if (tlb_geometry_check(&g, &why))
      return diag_set(d, NULL, 0, "page-walk cache of page-table level %u: %s", l, why.msg);
    if (!f) continue;
    if (l >= f->nlevels)
      return diag_set(d, NULL, 0, "page-walk cache for level %u: format %s has %u levels", l, f->name, f->nlevels);
    if (l + 1 == f->nlevels)
      return diag_set(d, NULL, 0, "page-walk cache for level %s: the last level holds only leaves", f->level[l].name);
  }
  const walker_line_cache_config *lc = &c->line_cache;
  if (lc->entries && (!is_pow2(lc->line_bytes) || lc->line_bytes < 8))
    return diag_set(d, NULL, 0, "page-table line cache: line_bytes %u is not a power of two >= 8", lc->line_bytes);
  return 0;
}

static int build_pwcs(walker *w, diag *d) {
  for (unsigned l = w->fmt->nlevels; l-- > 0;) {
    if (!w->cfg.pwc[l].entries) continue;
    tlb_geometry g = pwc_geometry(&w->cfg, l, w->fmt->level[l].shift);
    diag why;
    if (!(w->pwc[l] = tlb_create(&g, &why)))
      return diag_set(d, NULL, 0, "page-walk cache for level %s: %s", w->fmt->level[l].name, why.msg);
    w->pwc_order[w->npwc++] = (uint8_t)l;
  }
  return 0;
}

/* The line cache holds lines of one address space (page-table memory). */
static int build_line_cache(walker *w, diag *d) {
  const walker_line_cache_config *lc = &w->cfg.line_cache;
  if (!lc->entries) return 0;
  w->line_shift = log2_u64(lc->line_bytes);
  tlb_geometry g = {.entries = lc->entries, .ways = lc->ways ? lc->ways : lc->entries, .policy = TLB_LRU,
                    .sector_pages = 1, .npage_shifts = 1, .page_shift = {(uint8_t)w->line_shift}};
  diag why;
  if (!(w->lines = tlb_create(&g, &why))) return diag_set(d, NULL, 0, "page-table line cache: %s", why.msg);
  return 0;
}

walker *walker_create(const walker_config *c, const pt_format *f, memsys *mem, diag *d) {
  if (walker_config_check(c, f, d)) return NULL;
  walker *w = calloc(1, sizeof *w);
  if (!w) return diag_set(d, NULL, 0, "out of memory"), NULL;
  w->cfg = *c;
  w->fmt = f;
  w->mem = mem;
  w->table_fixed = memsys_fixed(mem, MEMSYS_TABLE, &w->table_cycles);
  if (build_pwcs(w, d) || build_line_cache(w, d)) {
    walker_destroy(w);
    return NULL;
  }
  return w;
}

void walker_destroy(walker *w) {
  if (!w) return;
  for (unsigned l = 0; l < PT_MAX_LEVELS; l++) tlb_destroy(w->pwc[l]);
  tlb_destroy(w->lines);
  free(w);
}

const walker_config *walker_get_config(const walker *w) { return &w->cfg; }

/* The deepest level a walk cache knows va's entry at, or -1. */
static int probe_pwcs(walker *w, uint64_t va, uint32_t asid, walker_result *out) {
  for (unsigned i = 0; i < w->npwc; i++) {
    unsigned l = w->pwc_order[i];
    out->pwc_probed |= 1u << l;
    if (tlb_lookup(w->pwc[l], va, asid, NULL)) return (int)l;
  }
  return -1;
}

/* One entry read: a line-cache hit, or a request to the memory system
 * that brings the line in. */
static void read_entry(walker *w, walker_step *s) {
  s->read = true;
  if (w->lines && tlb_lookup(w->lines, s->entry.entry_pa, 0, NULL)) {
    s->line_hit = true;
    s->cycles = w->cfg.line_cache.hit_cycles;
    return;
  }
  if (w->lines) tlb_fill(w->lines, s->entry.entry_pa, 0, w->line_shift, s->entry.entry_pa, PT_R, 1, NULL);
  if (w->table_fixed) {
    s->cycles = w->table_cycles;
    return;
  }
  memsys_request r = {.pa = s->entry.entry_pa, .bytes = w->fmt->level[s->entry.level].entry_bytes,
                      .kind = MEMSYS_TABLE};
  s->cycles = memsys_access(w->mem, &r);
}

void walker_walk(walker *w, const pt *table, uint64_t va, uint32_t asid, walker_result *out) {
  out->pwc_probed = 0;
  out->pwc_hit = probe_pwcs(w, va, asid, out);
  pt_walk_va(table, va, &out->walk);
  out->refs = out->line_hits = 0;
  out->cycles = w->cfg.walk_cycles;
  for (unsigned i = 0; i < out->walk.nsteps; i++) {
    walker_step *s = &out->step[i];
    *s = (walker_step){.entry = out->walk.step[i]};
    if ((int)s->entry.level <= out->pwc_hit) continue;
    read_entry(w, s);
    out->refs++;
    out->line_hits += s->line_hit;
    out->cycles += s->cycles;
    tlb *c = w->pwc[s->entry.level];
    if (c && s->entry.present && !s->entry.leaf) /* only the hit matters: no pa kept */
      tlb_fill(c, va, asid, w->fmt->level[s->entry.level].shift, 0, PT_R, 1, NULL);
  }
}

unsigned walker_invalidate(walker *w, uint64_t va, unsigned page_shift, uint32_t asid) {
  unsigned n = 0;
  for (unsigned l = 0; l < PT_MAX_LEVELS; l++)
    if (w->pwc[l]) n += page_shift < 64 ? tlb_invalidate(w->pwc[l], va, page_shift, asid) : tlb_flush(w->pwc[l], asid);
  return n;
}
