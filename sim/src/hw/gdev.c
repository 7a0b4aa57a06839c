/* gdev.c — the GPU device (tlbsim/gdev.h): one instruction's lines
 * through its SM's load path and L1, translation, the L2 and DRAM, each
 * request's path booked through the bands when it issues. */
#include "tlbsim/gdev.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tlbsim/engine.h"
#include "tlbsim/pt.h"

const char *const gdev_stage_names[GDEV_STAGES] = {"issue", "l2_tlb", "l3_tlb", "walk", "l2", "dram_rows", "dram"};

#define BAND_WIDTH 16.0
#define BAND_BINS (1u << 16)

/* What one page's walk read past the walker's line cache (its observer
 * copies it from the walker_result): each entry's physical address, to be
 * replayed as a request to the L2 and, where the L2 misses, DRAM. `fixed`
 * is the rest of the walk's cycles (walk_cycles, line-cache hits). A walk
 * repeated after the fault handler mapped the page reads again, so room
 * for two. */
typedef struct kwalk {
  uint8_t n;
  uint64_t fixed;
  uint64_t pa[2 * PT_MAX_LEVELS];
} kwalk;

typedef struct ksm {
  mmu *mmu;
  uint32_t group;
  unsigned part; /* its L2 partition */
  engine_stage lsu, l1_miss;
  kmem_cache *l1;
} ksm;

struct gdev {
  gdev_spec spec;
  const gpu_config *g;
  const char *file;
  gdev_levels levels;
  int where[MMU_MAX_LEVELS]; /* per TLB level: whose it is (0 the SM's, 1 its group's, 2 the GPU's) */
  hwsystem *sys;
  uint32_t nsms, ngroups;
  double share;
  ksm *sm;
  engine_band *grp_l2; /* per group */
  engine_band l3, walk, l2data, dram_rows, dram;
  kmem_l2 *l2;
  kmem_dram *banks;
  kwalk *walk_into; /* where the observer puts the walk of the page being translated */
  double gmmu_cycles; /* a page-table read's cost beyond its L2 hit (walk_ref_cycles - data_cycles) */
  gdev_counts count; /* the timed accesses' */
};

/* --- the path ------------------------------------------------------- */

/* The data entry level, and each one after it. */
static int path_next(const mmu_config *mc, int l) {
  if (l >= 0) return mc->level[l].next;
  for (unsigned k = 0; k < mc->nlevels; k++) {
    bool is_next = false;
    for (unsigned j = 0; j < mc->nlevels; j++) is_next |= mc->level[j].next == (int)k;
    if ((mc->level[k].serves & SERVES_DATA) && !is_next) return (int)k;
  }
  return MMU_NEXT_WALK;
}

int gdev_path(const mmu_config *mc, gdev_levels *out, diag *d) {
  *out = (gdev_levels){.level = {-1, -1, -1}, .group_sms = 1};
  int l = MMU_NEXT_WALK;
  for (unsigned i = 0; i < 4; i++) {
    if ((l = path_next(mc, l)) == MMU_NEXT_WALK) break;
    if (i == 3)
      return diag_set(d, NULL, 0, "GPU: level '%s': the model has three TLB levels before the walk",
                      mc->level[l].name);
    uint32_t by = mc->level[l].shared_by;
    bool fits = i == 0 ? by <= 1 : i == 1 ? by <= GPU_MAX_GROUP_SMS : by == MMU_SHARED_BY_ALL;
    if (!fits)
      return diag_set(d, NULL, 0, "GPU: level '%s' must be %s", mc->level[l].name,
                      i == 0   ? "each SM's own (shared_by 1)"
                      : i == 1 ? "shared by an L2-TLB group (shared_by 1 to 16)"
                               : "shared by the whole GPU (shared_by = all)");
    out->level[i] = l;
    if (i == 1 && by > 1) out->group_sms = by;
  }
  if (out->level[0] < 0) return diag_set(d, NULL, 0, "GPU: no TLB level serves data");
  return 0;
}

/* --- set-up ----------------------------------------------------------- */

static uint32_t sm_group(const void *ctx, unsigned level, unsigned agent) {
  const gdev *p = ctx;
  return (int)level == p->levels.level[1] ? p->sm[agent].group : 0;
}

/* The observer's walk event: the entries read from memory go to
 * walk_into, the walk's other cycles to its fixed part. */
static void walk_seen(void *ctx, uint64_t va, const walker_result *w) {
  (void)va;
  kwalk *k = ((gdev *)ctx)->walk_into;
  if (!k) return;
  uint64_t reads = 0;
  for (unsigned i = 0; i < w->walk.nsteps; i++) {
    const walker_step *s = &w->step[i];
    if (!s->read || s->line_hit || k->n == sizeof k->pa / sizeof k->pa[0]) continue;
    k->pa[k->n++] = s->entry.entry_pa;
    reads += s->cycles;
  }
  k->fixed += w->cycles - reads;
}

/* A cache of the share `frac` of `bytes`, at least one set. */
static uint64_t cache_bytes(uint64_t bytes, double frac, uint32_t ways) {
  uint64_t b = (uint64_t)((double)bytes * frac), least = (uint64_t)(ways ? ways : 1) << KMEM_LINE_SHIFT;
  return b > least ? b : least;
}

/* The L2 at the simulated SMs' share, and each partition's near copies at
 * the share of its own SMs simulated (so a sample's SMs each see what they
 * would on the whole GPU). */
static int make_l2(gdev *p, diag *d) {
  const gpu_config *g = p->g;
  unsigned parts = g->l2_parts > 1 ? g->l2_parts : 0;
  uint32_t on[KMEM_L2_PARTS] = {0}, sim[KMEM_L2_PARTS] = {0};
  for (uint32_t s = 0; parts && s < g->sms; s++) on[g->l2_part[s] % parts]++;
  for (uint32_t i = 0; i < p->nsms; i++) {
    p->sm[i].part = parts ? g->l2_part[g->block_order[i]] % parts : 0;
    sim[p->sm[i].part]++;
  }
  uint64_t near[KMEM_L2_PARTS];
  for (unsigned k = 0; k < parts; k++)
    near[k] = cache_bytes(g->l2_bytes / parts, on[k] ? (double)sim[k] / on[k] : 0, g->l2_ways);
  p->l2 = kmem_l2_create(cache_bytes(g->l2_bytes, p->share, g->l2_ways), g->l2_ways, parts, near, d);
  return p->l2 ? 0 : -1;
}

static int oom(diag *d) { return diag_set(d, NULL, 0, "GPU device: out of memory"); }

static int bands(gdev *p, diag *d) {
  if (!(p->grp_l2 = calloc(p->ngroups, sizeof *p->grp_l2))) return oom(d);
  for (uint32_t i = 0; i < p->ngroups; i++)
    if (engine_band_init(&p->grp_l2[i], BAND_WIDTH, BAND_BINS)) return oom(d);
  engine_band *gpu[] = {&p->l3, &p->walk, &p->l2data, &p->dram_rows, &p->dram};
  for (unsigned i = 0; i < sizeof gpu / sizeof gpu[0]; i++)
    if (engine_band_init(gpu[i], BAND_WIDTH, BAND_BINS)) return oom(d);
  return 0;
}

static int build(gdev *p, diag *d) {
  const gpu_config *g = p->g;
  if (gdev_path(&p->spec.sys->mmu, &p->levels, d)) return -1;
  for (unsigned l = 0; l < MMU_MAX_LEVELS; l++) p->where[l] = 3;
  for (unsigned i = 0; i < 3; i++)
    if (p->levels.level[i] >= 0) p->where[p->levels.level[i]] = (int)i;
  uint32_t gs = p->levels.group_sms ? p->levels.group_sms : 1, all = (g->sms + gs - 1) / gs;
  p->ngroups = p->spec.groups && p->spec.groups < all ? p->spec.groups : all;
  p->nsms = p->ngroups * gs < g->sms ? p->ngroups * gs : g->sms;
  p->share = (double)p->nsms / g->sms;
  if (!(p->sm = calloc(p->nsms, sizeof *p->sm))) return oom(d);
  for (uint32_t i = 0; i < p->nsms; i++) p->sm[i].group = i / gs;
  if (bands(p, d) || make_l2(p, d)) return -1;
  unsigned row_shift = log2_u64(g->dram_row_bytes ? g->dram_row_bytes : 1024);
  uint32_t banks = (uint32_t)ceil(g->dram_banks * p->share);
  if (!(p->banks = kmem_dram_create(banks ? banks : 1, row_shift, d))) return -1;
  system_layout layout = {.group = sm_group, .ctx = p};
  if (!(p->sys = system_create(p->spec.sys, p->spec.table, &layout, d))) return -1;
  if (p->spec.fault) system_set_fault_handler(p->sys, p->spec.fault, p->spec.fault_ctx);
  mmu_observer watch = {.ctx = p, .walk = walk_seen};
  for (uint32_t i = 0; i < p->nsms; i++) {
    if (!(p->sm[i].mmu = system_agent(p->sys, i, d))) return -1;
    mmu_set_observer(p->sm[i].mmu, &watch);
  }
  /* walk_ref_cycles is what a read cost the one-thread chase (chase.csv past 256 GiB: 340), less than
   * DRAM's 689: its lines were in the L2, and the GMMU adds this much to an L2 hit */
  const memsys_config *mem = &p->spec.sys->mem;
  p->gmmu_cycles = mem->table_cycles > mem->data_cycles ? (double)(mem->table_cycles - mem->data_cycles) : 0;
  return 0;
}

gdev *gdev_new(const gdev_spec *spec, const char *file, diag *d) {
  gdev *p = malloc(sizeof *p);
  if (!p) return oom(d), NULL;
  *p = (gdev){.spec = *spec, .g = spec->gpu, .file = file};
  if (build(p, d)) {
    gdev_free(p);
    return NULL;
  }
  return p;
}

void gdev_free(gdev *p) {
  if (!p) return;
  system_destroy(p->sys);
  for (uint32_t i = 0; p->sm && i < p->nsms; i++) kmem_cache_destroy(p->sm[i].l1);
  for (uint32_t i = 0; p->grp_l2 && i < p->ngroups; i++) engine_band_free(&p->grp_l2[i]);
  engine_band *gpu[] = {&p->l3, &p->walk, &p->l2data, &p->dram_rows, &p->dram};
  for (unsigned i = 0; i < sizeof gpu / sizeof gpu[0]; i++) engine_band_free(gpu[i]);
  kmem_l2_destroy(p->l2);
  kmem_dram_destroy(p->banks);
  free(p->sm);
  free(p->grp_l2);
  free(p);
}

uint32_t gdev_sms(const gdev *p) { return p->nsms; }
double gdev_share(const gdev *p) { return p->share; }

double gdev_lead(const gdev *p) {
  const gpu_config *g = p->g;
  /* a load's data: an L1 hit's l1_hit_cycles after its line passes the load path, or the L2's data_cycles
   * (and l2_far_cycles) or DRAM's dram_cycles after its last stage; every stage before starts no earlier
   * than it is asked */
  double lead = fmin((double)p->spec.sys->mem.data_cycles + fmin(g->l2_far_cycles, 0), g->dram_cycles);
  if (g->l1_bytes) lead = fmin(lead, g->l1_hit_cycles);
  return lead > 0 ? lead : 0;
}

/* --- one instruction's memory ------------------------------------------ */

static double l2_line(gdev *p, unsigned part, double t, uint64_t pa_line, uint8_t sectors, bool store, bool *hit);

/* A walk's entries read one after the other from t (each needs the one
 * before: it names the next table), as the GMMU's requests to the L2 and
 * DRAM below it: when the last is back. */
static double walk_reads(gdev *p, double t, const kwalk *w) {
  gdev_counts *r = &p->count;
  bool timed = t >= 0;
  if (timed) t += (double)w->fixed;
  for (unsigned i = 0; i < w->n; i++) {
    uint64_t pa = w->pa[i];
    bool hit;
    double back = l2_line(p, KMEM_L2_HOME, t, pa >> KMEM_LINE_SHIFT,
                          (uint8_t)(1u << ((pa >> KMEM_SECTOR_SHIFT) & 3)), false, &hit);
    if (!timed) continue;
    r->walk_reads++;
    r->walk_reads_dram += !hit;
    t = back + p->gmmu_cycles;
  }
  return t;
}

/* A page's translation booked from t (its outcome o, its walk w) through
 * the stages of `where` (GDEV_AT_*): when it is done. */
static double translate_time(gdev *p, uint32_t smi, double t, const mmu_outcome *o, unsigned where,
                             const kwalk *w) {
  ksm *sm = &p->sm[smi];
  const gpu_config *g = p->g;
  p->count.served[where]++;
  if (where >= GDEV_AT_GROUP) {
    t = engine_stage_pass(&sm->l1_miss, t, g->l1_miss_interval);
    t = engine_band_take(&p->grp_l2[sm->group], t, g->l2_interval);
  }
  if (where >= GDEV_AT_GPU) t = engine_band_take(&p->l3, t, g->l3_interval / p->share);
  if (where < GDEV_AT_WALK) return t + (double)o->tlb_cycles;
  t = engine_band_take(&p->walk, t, g->walk_interval / p->share);
  return walk_reads(p, t + (double)o->tlb_cycles, w);
}

/* DRAM's time per sector written. */
static double write_interval(const gpu_config *g) {
  return g->dram_write_sector_interval > 0 ? g->dram_write_sector_interval : g->dram_sector_interval;
}

/* A dirty line the L2 evicted at t goes to DRAM (no one waits for it). */
static void write_back(gdev *p, double t, const kmem_evict *e) {
  if (!e->dirty) return;
  bool row_hit = kmem_dram_access(p->banks, e->line << KMEM_LINE_SHIFT);
  if (t < 0) return;
  const gpu_config *g = p->g;
  unsigned n = kmem_sectors(e->dirty);
  p->count.dram_sectors += n;
  p->count.dram_rows += !row_hit;
  if (!row_hit) t = engine_band_take(&p->dram_rows, t, g->dram_row_interval / p->share);
  engine_band_take(&p->dram, t, n * write_interval(g) / p->share);
}

/* A line from the L2 on, for a request of L2 partition `part`: when its
 * data is back (timed), or only the state changes (t < 0: the warm-up);
 * *hit: whether the L2 served it (a store always is). A read is served by
 * the partition, the rest of the L2 (l2_far_cycles later) or DRAM; a
 * store, which nobody waits for, stays in the L2 (l2_write_back: DRAM
 * takes its sectors when the line is evicted) or passes on to DRAM. */
static double l2_line(gdev *p, unsigned part, double t, uint64_t pa_line, uint8_t sectors, bool store, bool *hit) {
  const gpu_config *g = p->g;
  kmem_l2_got got = {0};
  if (store) kmem_l2_write(p->l2, pa_line, sectors, g->l2_write_back, &got.evict);
  else kmem_l2_read(p->l2, part, pa_line, sectors, &got);
  uint8_t miss = store ? (g->l2_write_back ? 0 : sectors) : (uint8_t)(sectors & ~(got.near | got.far));
  *hit = !miss || store;
  bool row_hit = !miss || kmem_dram_access(p->banks, pa_line << KMEM_LINE_SHIFT);
  double back = t;
  if (t >= 0) {
    gdev_counts *r = &p->count;
    double bytes = kmem_sectors(sectors) * g->l2_sector_interval;
    t = engine_band_take(&p->l2data, t, (bytes > g->data_interval ? bytes : g->data_interval) / p->share);
    back = t + p->spec.sys->mem.data_cycles + (got.near == sectors ? 0 : g->l2_far_cycles);
    if (miss) {
      unsigned n = kmem_sectors(miss);
      r->dram_sectors += n;
      r->dram_rows += !row_hit;
      if (!row_hit) t = engine_band_take(&p->dram_rows, t, g->dram_row_interval / p->share);
      double per = store ? write_interval(g) : g->dram_sector_interval;
      back = engine_band_take(&p->dram, t, n * per / p->share) + g->dram_cycles;
    }
  }
  write_back(p, t, &got.evict);
  return back;
}

/* A line's time in the SM's load path: one request, or its bytes at the
 * L1 data path's width when that is longer. */
static double lsu_cycles(const gpu_config *g, uint8_t sectors) {
  double bytes = (double)(kmem_sectors(sectors) << KMEM_SECTOR_SHIFT);
  double data = g->l1_bytes_per_cycle > 0 ? bytes / g->l1_bytes_per_cycle : 0;
  return data > g->issue_interval ? data : g->issue_interval;
}

/* The L1 data cache of SM smi, built on its first look-up (a kernel of
 * one warp has one SM's, not 132 of 256 KiB); NULL with d set when out
 * of memory. */
static kmem_cache *l1_of(gdev *p, uint32_t smi, diag *d) {
  ksm *sm = &p->sm[smi];
  if (!sm->l1 && !(sm->l1 = kmem_cache_create(p->g->l1_bytes, p->g->l1_ways, d))) return NULL;
  return sm->l1;
}

static bool uses_l1(const gdev *p, const gdev_req *r) { return !r->store && !r->l2_only && p->g->l1_bytes; }

void gdev_prefetch(const gdev *p, const gdev_req *r, const kmem_line *lines) {
  const kmem_cache *l1 = p->sm[r->sm].l1;
  if (!uses_l1(p, r) || !l1) return;
  for (unsigned j = 0; j < r->n; j++) kmem_cache_prefetch(l1, lines[j].line);
}

/* Where the outcome o was served (GDEV_AT_*). */
static unsigned served_at(const gdev *p, const mmu_outcome *o) {
  return o->hit_level < 0 ? GDEV_AT_WALK : (unsigned)p->where[o->hit_level];
}

/* SM smi's MMU translates va (functional: the TLBs, walk caches and line
 * cache change now), the walk's reads past the line cache into *w. */
static void lookup(gdev *p, uint32_t smi, uint64_t va, acc_kind kind, gdev_page *out, kwalk *w) {
  w->n = 0, w->fixed = 0;
  p->walk_into = w;
  mmu_translate(p->sm[smi].mmu, va, kind, &out->o);
  p->walk_into = NULL;
  out->where = served_at(p, &out->o);
}

/* The page's time from t at `where` (the warm-up: its walk's reads still
 * pass the L2). */
static double page_time(gdev *p, uint32_t smi, double t, const gdev_page *pg, unsigned where, const kwalk *w) {
  if (t >= 0) {
    p->count.translations++;
    return translate_time(p, smi, t, &pg->o, where, w);
  }
  if (pg->where == GDEV_AT_WALK) walk_reads(p, -1, w);
  return t;
}

double gdev_translate(gdev *p, uint32_t sm, double t, uint64_t va, acc_kind kind, gdev_page *out) {
  kwalk w;
  lookup(p, sm, va, kind, out, &w);
  return out->o.status == MMU_OK ? page_time(p, sm, t, out, out->where, &w) : t;
}

double gdev_line(gdev *p, uint32_t sm, double t, uint64_t pa_line, uint8_t sectors, bool store, bool *hit) {
  return l2_line(p, p->sm[sm].part, t, pa_line, sectors, store, hit);
}

/* Its lines pass the load path and the L1 one by one; those the L1 misses
 * are translated, once per page. When any page misses its L1 TLB the
 * instruction goes on whole: every page it needs is looked up in the L2
 * TLB, hits included (gather.csv: the cost follows the distinct entries of
 * a missing instruction, tlbsim/gather.h). */
int gdev_access(gdev *p, const gdev_req *r, const kmem_line *line, double *done, diag *d) {
  double t = r->t;
  bool store = r->store;
  unsigned nl = r->n;
  ksm *sm = &p->sm[r->sm];
  gdev_counts *c = &p->count;
  bool timed = t >= 0, any_miss = false;
  double end = t, line_t[KMEM_LINES_MAX], page_t[KMEM_LINES_MAX];
  uint64_t page_va[KMEM_LINES_MAX];
  gdev_page page[KMEM_LINES_MAX];
  kwalk page_w[KMEM_LINES_MAX];
  unsigned npages = 0, page_of[KMEM_LINES_MAX], nmiss = 0, miss[KMEM_LINES_MAX];
  uint64_t pa_of[KMEM_LINES_MAX];
  kmem_cache *l1 = NULL;
  if (uses_l1(p, r) && !(l1 = l1_of(p, r->sm, d))) return -1;
  gdev_prefetch(p, r, line); /* the look-ups overlap */
  for (unsigned j = 0; j < nl; j++) {
    line_t[j] = timed ? engine_stage_pass(&sm->lsu, t, lsu_cycles(p->g, line[j].sectors)) : -1;
    if (timed) c->lines++, c->sectors += kmem_sectors(line[j].sectors);
    uint8_t held = l1 ? kmem_cache_access(l1, line[j].line, line[j].sectors, false, NULL) : 0;
    bool l1hit = held == line[j].sectors;
    if (l1hit && timed) {
      c->l1_hits++;
      if (line_t[j] + p->g->l1_hit_cycles > end) end = line_t[j] + p->g->l1_hit_cycles;
    }
    if (l1hit) continue;
    uint64_t va = line[j].line << KMEM_LINE_SHIFT;
    unsigned k = 0;
    while (k < npages && (va >> page[k].o.page_shift) != (page_va[k] >> page[k].o.page_shift)) k++;
    if (k == npages) {
      lookup(p, r->sm, va, store ? ACC_WRITE : ACC_READ, &page[k], &page_w[k]);
      if (page[k].o.status != MMU_OK)
        return diag_set(d, p->file, r->src_line, "address 0x%llx is outside every mapping", (unsigned long long)va);
      page_va[k] = va;
      page_t[k] = line_t[j];
      any_miss |= page[k].where > GDEV_AT_SM;
      npages++;
    }
    uint64_t off = va & ((1ull << page[k].o.page_shift) - 1);
    pa_of[nmiss] = ((page[k].o.pa & ~((1ull << page[k].o.page_shift) - 1)) + off) >> KMEM_LINE_SHIFT;
    if (!store) kmem_l2_prefetch(p->l2, sm->part, pa_of[nmiss]); /* before the first L2 look-up */
    page_of[nmiss] = k;
    miss[nmiss++] = j;
  }
  for (unsigned k = 0; k < npages; k++) {
    unsigned where = any_miss && page[k].where == GDEV_AT_SM ? GDEV_AT_GROUP : page[k].where;
    page_t[k] = page_time(p, r->sm, page_t[k], &page[k], where, &page_w[k]);
  }
  /* miss, page_of and pa_of are written for each k < nmiss and line_t for each j < nl above; cppcheck
   * (2.x) loses the count across the loop and reports them uninitialised. */
  for (unsigned k = 0; k < nmiss; k++) {
    // cppcheck-suppress uninitvar
    unsigned j = miss[k], pg = page_of[k];
    // cppcheck-suppress uninitvar
    uint64_t pa_line = pa_of[k];
    // cppcheck-suppress uninitvar
    double ready = timed ? (page_t[pg] > line_t[j] ? page_t[pg] : line_t[j]) : -1;
    if (timed) c->translation_cycles += ready - line_t[j];
    bool hit;
    double back = l2_line(p, sm->part, ready, pa_line, line[j].sectors, store, &hit);
    if (timed) {
      c->l2_lines++;
      c->l2_hits += hit;
    }
    if (timed && !store && back > end) end = back;
  }
  *done = end;
  return 0;
}

void gdev_reset_stats(gdev *p) { system_reset_stats(p->sys); }

double gdev_memory_end(const gdev *p) {
  const engine_band *mem[] = {&p->l2data, &p->dram_rows, &p->dram};
  double end = 0;
  for (unsigned i = 0; i < sizeof mem / sizeof mem[0]; i++)
    if (mem[i]->busy > end) end = mem[i]->busy;
  return end;
}

void gdev_report(const gdev *p, double span, gdev_counts *out) {
  *out = p->count;
  double issue = 0, grp = 0;
  for (uint32_t i = 0; i < p->nsms; i++)
    if (p->sm[i].lsu.busy / span > issue) issue = p->sm[i].lsu.busy / span;
  for (uint32_t i = 0; i < p->ngroups; i++)
    if (p->grp_l2[i].busy / span > grp) grp = p->grp_l2[i].busy / span;
  const engine_band *gpu[] = {&p->l3, &p->walk, &p->l2data, &p->dram_rows, &p->dram};
  out->busy[0] = issue;
  out->busy[1] = grp;
  for (unsigned i = 0; i < sizeof gpu / sizeof gpu[0]; i++) out->busy[2 + i] = gpu[i]->busy / span;
}

const hwsystem *gdev_system(const gdev *p) { return p->sys; }
