/* mmu.c — TLB levels, the latency model, and the walker's caller (see
 * tlbsim/mmu.h for the contract; walks themselves are walker.c's).
 *
 * A translation runs down the chain of levels from the entry level of its
 * kind, remembering the levels that missed; a hit or a walk then fills those
 * (inclusive fill). Everything that depends only on the configuration (entry
 * levels, which array of a level holds which page size) is worked out once
 * in mmu_create so the hit path is a few loads and one tlb_lookup.
 */
#include "tlbsim/mmu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/num.h"

#define NO_ARRAY (-1)

typedef struct mmu_level {
  tlb *arr[MMU_MAX_ARRAYS];
  uint8_t narrays;
  bool owned;                /* false: the arrays are another MMU's (mmu_share) */
  bool shared;               /* the arrays are used by more than one MMU: no repeat (below) */
  int8_t array_of_shift[64]; /* which array a fill of 2^shift goes to, or NO_ARRAY */
  int next;
  uint32_t latency;
  bool contiguous;           /* sector_needs_contiguous_pa */
  uint8_t enters;            /* bit (1 << acc_kind) for each kind whose translation starts here */
  mmu_level_stats st;
} mmu_level;

/* The page of the latest translation when it hit its entry level with the
 * rights it needed. Translating that page again from that level, before
 * anything else is translated, filled or dropped, hits the same entry, and
 * a look-up of the entry used last changes no replacement order (LRU's is
 * newest already, PLRU's bits point away from it already, FIFO and random
 * keep none): the repeat only counts. It is the fast path for the runs of
 * accesses to one page that most of a trace is. Not kept for levels whose
 * arrays other MMUs use too (mmu_share), nor while an observer watches. */
typedef struct mmu_repeat {
  mmu_window win;     /* the page, and the kinds that repeat (none: 0, nothing to repeat) */
  uint8_t array;      /* the entry level's array that hit */
  uint8_t page_shift;
  int level;          /* the entry level */
  uint64_t pa_base;   /* the page's physical base */
} mmu_repeat;

struct mmu {
  mmu_config cfg;
  const pt *table;
  const pt_format *fmt;
  mmu_level lv[MMU_MAX_LEVELS];
  int entry[2];                 /* first level for data, instructions; -1 none */
  walker *walker;
  bool owns_walker;
  uint32_t asid;
  mmu_fault_fn on_fault;
  void *fault_ctx;
  const mmu_observer *obs;      /* &obs_copy when set, else NULL: the one branch per event */
  mmu_observer obs_copy;
  memsys *mem;                  /* where the data of a translated access goes */
  uint32_t data_cycles;         /* what every data access costs, when mem says they all cost the same */
  bool data_fixed;              /* ... and whether it does (else each asks mem: no repeats) */
  mmu_stats st;
  uint64_t unheld_shifts;       /* bit s: a translation of 2^s-byte pages no level on its path holds */
  mmu_repeat rep;
};

/* The prot bit an access kind needs: bit (1 << kind), so a prot is also
 * the set of kinds it allows. */
static const uint8_t kind_prot[3] = {[ACC_READ] = PT_R, [ACC_WRITE] = PT_W, [ACC_EXEC] = PT_X};
_Static_assert(PT_R == 1u << ACC_READ && PT_W == 1u << ACC_WRITE && PT_X == 1u << ACC_EXEC,
               "a prot bit is its access kind's bit");
static const char *const serves_name[] = {[SERVES_DATA] = "data", [SERVES_INST] = "instructions"};

/* --- configuration -------------------------------------------------------- */

static bool is_next_of_any(const mmu_config *c, unsigned l) {
  for (unsigned j = 0; j < c->nlevels; j++)
    if (c->level[j].next == (int)l) return true;
  return false;
}

/* The level an access served by `serves` enters at; -1 none, -2 several
 * (first and second found go to *a, *b). */
static int entry_level(const mmu_config *c, unsigned serves, int *a, int *b) {
  int found = -1;
  for (unsigned l = 0; l < c->nlevels; l++) {
    if (!(c->level[l].serves & serves) || is_next_of_any(c, l)) continue;
    if (found >= 0) {
      *a = found;
      *b = (int)l;
      return -2;
    }
    found = (int)l;
  }
  return found;
}

static int check_level(const mmu_config *c, unsigned l, diag *d) {
  const mmu_level_config *lc = &c->level[l];
  if (!memchr(lc->name, 0, MMU_NAME_MAX) || !lc->name[0])
    return diag_set(d, NULL, 0, "level %u has no name (or one of %d characters or more)", l,
                    MMU_NAME_MAX);
  for (unsigned j = 0; j < l; j++)
    if (!strcmp(c->level[j].name, lc->name))
      return diag_set(d, NULL, 0, "two levels are named '%s'", lc->name);
  if (lc->serves < SERVES_DATA || lc->serves > SERVES_BOTH)
    return diag_set(d, NULL, 0, "level '%s' serves neither data nor instructions", lc->name);
  if (lc->next != MMU_NEXT_WALK && (lc->next < 0 || lc->next >= (int)c->nlevels))
    return diag_set(d, NULL, 0, "level '%s': next is %d, not a level (0..%u) or the walk",
                    lc->name, lc->next, c->nlevels - 1u);
  if (lc->narrays < 1 || lc->narrays > MMU_MAX_ARRAYS)
    return diag_set(d, NULL, 0, "level '%s' has %u arrays (1..%d allowed)", lc->name,
                    lc->narrays, MMU_MAX_ARRAYS);
  for (unsigned a = 0; a < lc->narrays; a++) {
    diag why;
    if (tlb_geometry_check(&lc->array[a], &why))
      return lc->narrays == 1
                 ? diag_set(d, NULL, 0, "level '%s': %s", lc->name, why.msg)
                 : diag_set(d, NULL, 0, "level '%s' array %u: %s", lc->name, a, why.msg);
    for (unsigned b = 0; b < a; b++)
      for (unsigned i = 0; i < lc->array[a].npage_shifts; i++)
        for (unsigned k = 0; k < lc->array[b].npage_shifts; k++)
          if (lc->array[a].page_shift[i] == lc->array[b].page_shift[k])
            return diag_set(d, NULL, 0, "level '%s': arrays %u and %u both hold page size 2^%u",
                            lc->name, b, a, lc->array[a].page_shift[i]);
  }
  return 0;
}

/* Follows next from every level: more steps than levels is a cycle. */
static int check_cycles(const mmu_config *c, diag *d) {
  for (unsigned l = 0; l < c->nlevels; l++) {
    int at = (int)l;
    for (unsigned steps = 0; at != MMU_NEXT_WALK; steps++, at = c->level[at].next)
      if (steps > c->nlevels)
        return diag_set(d, NULL, 0, "next links form a cycle through level '%s'",
                        c->level[at].name);
  }
  return 0;
}

/* One entry level per kind, and every level after it serves that kind. */
static int check_paths(const mmu_config *c, diag *d) {
  static const unsigned kinds[2] = {SERVES_DATA, SERVES_INST};
  for (unsigned k = 0; k < 2; k++) {
    int a = 0, b = 0;
    int e = entry_level(c, kinds[k], &a, &b);
    if (e == -2)
      return diag_set(d, NULL, 0, "levels '%s' and '%s' are both first levels for %s",
                      c->level[a].name, c->level[b].name, serves_name[kinds[k]]);
    if (e == -1 && kinds[k] == SERVES_DATA)
      return diag_set(d, NULL, 0, "no first level serves data (one that serves data and is no "
                                  "level's next)");
    for (int l = e; l >= 0 && c->level[l].next != MMU_NEXT_WALK; l = c->level[l].next) {
      const mmu_level_config *n = &c->level[c->level[l].next];
      if (!(n->serves & kinds[k]))
        return diag_set(d, NULL, 0, "level '%s' is next after '%s' but does not serve %s",
                        n->name, c->level[l].name, serves_name[kinds[k]]);
    }
  }
  return 0;
}

int mmu_config_check(const mmu_config *c, diag *d) {
  if (c->nlevels < 1 || c->nlevels > MMU_MAX_LEVELS)
    return diag_set(d, NULL, 0, "%u TLB levels (1..%d allowed)", c->nlevels, MMU_MAX_LEVELS);
  for (unsigned l = 0; l < c->nlevels; l++)
    if (check_level(c, l, d)) return -1;
  if (check_cycles(c, d) || check_paths(c, d)) return -1;
  return walker_config_check(&c->walker, NULL, d);
}

/* A level borrowed from another MMU must look the same there. */
static int check_shared_level(const mmu_config *c, unsigned l, const mmu *from, diag *d) {
  const mmu_level_config *mine = &c->level[l];
  if (l >= from->cfg.nlevels) return diag_set(d, NULL, 0, "level '%s': the lender has no level %u", mine->name, l);
  const mmu_level_config *theirs = &from->cfg.level[l];
  if (mine->narrays != theirs->narrays)
    return diag_set(d, NULL, 0, "level '%s': shared arrays differ from the lender's", mine->name);
  for (unsigned a = 0; a < mine->narrays; a++)
    if (memcmp(&mine->array[a], &theirs->array[a], sizeof mine->array[a]))
      return diag_set(d, NULL, 0, "level '%s': shared arrays differ from the lender's", mine->name);
  return 0;
}

/* --- construction --------------------------------------------------------- */

static void index_arrays(mmu_level *lv, const mmu_level_config *lc) {
  memset(lv->array_of_shift, NO_ARRAY, sizeof lv->array_of_shift);
  lv->narrays = lc->narrays;
  lv->next = lc->next;
  lv->latency = lc->latency;
  lv->contiguous = lc->sector_needs_contiguous_pa;
  for (unsigned a = 0; a < lc->narrays; a++)
    for (unsigned i = 0; i < lc->array[a].npage_shifts; i++)
      lv->array_of_shift[lc->array[a].page_shift[i]] = (int8_t)a;
}

static int build_level(mmu_level *lv, const mmu_level_config *lc, mmu *from, unsigned l, diag *d) {
  index_arrays(lv, lc);
  if (from) {
    for (unsigned a = 0; a < lc->narrays; a++) lv->arr[a] = from->lv[l].arr[a];
    lv->shared = from->lv[l].shared = true;
    from->rep.win.kinds = 0;
    return 0;
  }
  lv->owned = true;
  for (unsigned a = 0; a < lc->narrays; a++) {
    diag why;
    if (!(lv->arr[a] = tlb_create(&lc->array[a], &why)))
      return diag_set(d, NULL, 0, "level '%s': %s", lc->name, why.msg);
  }
  return 0;
}

mmu *mmu_create(const mmu_config *c, const pt *table, memsys *mem, const mmu_share *share, diag *d) {
  const pt_format *f = pt_get_format(table);
  if (mmu_config_check(c, d) || walker_config_check(&c->walker, f, d)) return NULL;
  for (unsigned l = 0; share && l < c->nlevels; l++)
    if (share->level_from[l] && check_shared_level(c, l, share->level_from[l], d)) return NULL;
  mmu *m = calloc(1, sizeof *m);
  if (!m) return diag_set(d, NULL, 0, "out of memory"), NULL;
  m->cfg = *c;
  m->table = table;
  m->fmt = f;
  m->mem = mem;
  m->data_fixed = memsys_fixed(mem, MEMSYS_DATA, &m->data_cycles);
  int a, b;
  m->entry[0] = entry_level(c, SERVES_DATA, &a, &b);
  m->entry[1] = entry_level(c, SERVES_INST, &a, &b);
  for (unsigned l = 0; l < c->nlevels; l++)
    if (build_level(&m->lv[l], &c->level[l], share ? share->level_from[l] : NULL, l, d)) goto fail;
  for (unsigned k = ACC_READ; k <= ACC_EXEC; k++)
    if (m->entry[k == ACC_EXEC] >= 0) m->lv[m->entry[k == ACC_EXEC]].enters |= (uint8_t)(1u << k);
  m->walker = share ? share->walker : NULL;
  m->asid = share ? share->asid : 0;
  if (!m->walker) {
    if (!(m->walker = walker_create(&c->walker, f, mem, d))) goto fail;
    m->owns_walker = true;
  }
  return m;
fail:
  mmu_destroy(m);
  return NULL;
}

void mmu_destroy(mmu *m) {
  if (!m) return;
  for (unsigned l = 0; l < m->cfg.nlevels; l++)
    if (m->lv[l].owned)
      for (unsigned a = 0; a < m->lv[l].narrays; a++) tlb_destroy(m->lv[l].arr[a]);
  if (m->owns_walker) walker_destroy(m->walker);
  free(m);
}

walker *mmu_get_walker(mmu *m) { return m->walker; }

/* A page size as a configuration section writes it: "4K", "2M", "256B". */
static const char *section_size(unsigned shift, char *buf, size_t len) {
  num_format_size(UINT64_C(1) << shift, buf, len);
  size_t n = strlen(buf);
  if (n > 3 && !strcmp(buf + n - 2, "iB")) buf[n - 2] = '\0';
  return buf;
}

const char *mmu_array_name(const mmu_level_config *lc, unsigned a, char *buf, size_t len) {
  const tlb_geometry *g = &lc->array[a];
  size_t at = (size_t)snprintf(buf, len, "%s", lc->name);
  char size[16];
  for (unsigned i = 0; lc->narrays > 1 && i < g->npage_shifts && at < len; i++)
    at += (size_t)snprintf(buf + at, len - at, "%c%s", i ? '+' : ':', section_size(g->page_shift[i], size, sizeof size));
  return buf;
}

/* --- translation ---------------------------------------------------------- */

/* The array of level l that holds va, or -1; the arrays before `from`
 * are known to miss already. */
static inline int level_lookup(mmu *m, unsigned l, unsigned from, uint64_t va, tlb_hit *h) {
  mmu_level *lv = &m->lv[l];
  for (unsigned a = from; a < lv->narrays; a++) {
    bool hit = tlb_lookup(lv->arr[a], va, m->asid, h);
    if (m->obs && m->obs->lookup) {
      const tlb_geometry *g = tlb_get_geometry(lv->arr[a]);
      unsigned shift = hit ? h->page_shift : g->page_shift[0];
      mmu_lookup_event e = {va, l, a, tlb_set_index(g, va, shift), hit};
      m->obs->lookup(m->obs->ctx, &e);
    }
    if (hit) {
      lv->st.array[a].hits++;
      return (int)a;
    }
  }
  return -1;
}

/* Sector valid bits for the n-page sector around page mp: bit i for each
 * page mapped like mp (same size and prot; same pa - va if contiguous). */
static uint64_t sector_mask(const mmu *m, const pt_mapping *mp, unsigned n, bool contiguous,
                            uint64_t *page_pa) {
  unsigned shift = mp->page_shift;
  uint64_t first = mp->va & ~(((uint64_t)n << shift) - 1);
  uint64_t delta = mp->pa - mp->va;
  uint64_t mask = 0;
  for (unsigned i = 0; i < n; i++) {
    uint64_t va = first + ((uint64_t)i << shift);
    pt_mapping nb;
    if (va == mp->va) nb = *mp;
    else if (!pt_lookup(m->table, va, &nb) || nb.page_shift != shift || nb.prot != mp->prot ||
             (contiguous && nb.pa - nb.va != delta))
      continue;
    mask |= 1ull << i;
    page_pa[i] = nb.pa;
  }
  return mask;
}

/* Of an n-page sector around mp, the pages whose leaf entries lie in the
 * same fill_bytes block of the leaf table as mp's: bit i per page. */
static uint64_t fetched_pages(const mmu *m, const pt_mapping *mp, unsigned n) {
  if (!m->cfg.fill_bytes) return UINT64_MAX;
  int level = pt_format_leaf_level(m->fmt, mp->page_shift);
  uint64_t span = m->cfg.fill_bytes / m->fmt->level[level].entry_bytes; /* pages per fetch */
  if (span >= n) return UINT64_MAX;
  if (span == 0) span = 1;
  unsigned page = (unsigned)((mp->va >> mp->page_shift) & (n - 1));
  unsigned first = page / (unsigned)span * (unsigned)span;
  return ((span >= 64 ? UINT64_MAX : (1ull << span) - 1)) << first;
}

static void note_fill(const mmu *m, unsigned l, unsigned a, const tlb *t, const pt_mapping *mp,
                      const tlb_victim *v) {
  mmu_fill_event e = {mp->va, l, a, tlb_set_index(tlb_get_geometry(t), mp->va, mp->page_shift), mp->page_shift, *v};
  m->obs->fill(m->obs->ctx, &e);
}

/* Inclusive fill of the levels that missed. */
static void fill_levels(mmu *m, const int *path, unsigned npath, const pt_mapping *mp) {
  bool observed = m->obs && m->obs->fill;
  tlb_victim victim; /* always asked for: evictions are counted per level */
  bool held = false;
  for (unsigned i = 0; i < npath; i++) {
    mmu_level *lv = &m->lv[path[i]];
    int a = lv->array_of_shift[mp->page_shift];
    if (a == NO_ARRAY) continue;
    held = true;
    tlb *t = lv->arr[a];
    unsigned n = tlb_get_geometry(t)->sector_pages;
    if (n == 1) {
      tlb_fill(t, mp->va, m->asid, mp->page_shift, mp->pa, mp->prot, 1, &victim);
    } else {
      uint64_t page_pa[TLB_MAX_SECTOR];
      uint64_t mask = sector_mask(m, mp, n, lv->contiguous, page_pa) & fetched_pages(m, mp, n);
      tlb_fill_sector(t, mp->va, m->asid, mp->page_shift, page_pa, mp->prot, mask, &victim);
    }
    lv->st.evictions += victim.evicted;
    lv->st.array[a].fills++;
    lv->st.array[a].evictions += victim.evicted;
    if (observed) note_fill(m, (unsigned)path[i], (unsigned)a, t, mp, &victim);
  }
  if (!held && npath) m->unheld_shifts |= 1ull << mp->page_shift;
}

uint64_t mmu_unheld_page_shifts(const mmu *m) { return m->unheld_shifts; }

/* One walk through the walker, counted as this MMU's. */
static void walk(mmu *m, uint64_t va, walker_result *w) {
  walker_walk(m->walker, m->table, va, m->asid, w);
  m->st.walks++;
  m->st.walk_refs += w->refs;
  m->st.line_hits += w->line_hits;
  for (uint32_t probed = w->pwc_probed; probed; probed &= probed - 1)
    m->st.pwc_lookups[__builtin_ctz(probed)]++;
  if (w->pwc_hit >= 0) m->st.pwc_hits[w->pwc_hit]++;
  if (m->obs && m->obs->walk) m->obs->walk(m->obs->ctx, va, w);
}

/* The data access once translated (at pa; a faulting access is charged
 * as if it went to memory, as the hardware's replay does). */
static inline uint32_t data_cost(mmu *m, uint64_t pa) {
  if (m->data_fixed) return m->data_cycles;
  memsys_request r = {.pa = pa, .bytes = 1, .kind = MEMSYS_DATA};
  return memsys_access(m->mem, &r);
}

/* Ends a full translation: the data access, the cycles' sum. */
static void finish(mmu *m, uint64_t va, mmu_outcome *out, mmu_status status) {
  out->status = status;
  out->data_cycles = data_cost(m, out->pa);
  out->cycles = out->data_cycles + out->tlb_cycles + out->walk_cycles;
  m->st.cycles += out->cycles;
  if (status == MMU_FAULT_PROT) m->st.faults_prot++;
  if (m->obs) {
    if (status != MMU_OK && m->obs->fault) m->obs->fault(m->obs->ctx, va, status);
    if (m->obs->translated) m->obs->translated(m->obs->ctx, va, out);
  }
}

/* The latest translation's page again from the same entry level: counts
 * the hit and fills *out as the full look-up would (mmu_repeat). */
static inline bool repeat(mmu *m, uint64_t va, acc_kind kind, mmu_outcome *out) {
  const mmu_repeat *r = &m->rep;
  if (!(r->win.kinds >> kind & 1) || va - r->win.lo > r->win.span) return false;
  mmu_level *lv = &m->lv[r->level];
  m->st.translations++;
  lv->st.accesses++;
  lv->st.hits++;
  lv->st.array[r->array].hits++;
  uint64_t cycles = m->data_cycles + lv->latency;
  m->st.cycles += cycles;
  *out = (mmu_outcome){.status = MMU_OK, .pa = r->pa_base | (va - r->win.lo), .hit_level = r->level,
                       .page_shift = r->page_shift, .cycles = cycles, .data_cycles = m->data_cycles,
                       .tlb_cycles = lv->latency};
  return true;
}

const mmu_window *mmu_repeat_window(const mmu *m) { return &m->rep.win; }

void mmu_repeat_count(mmu *m, uint64_t n) {
  const mmu_repeat *r = &m->rep;
  mmu_level *lv = &m->lv[r->level];
  m->st.translations += n;
  lv->st.accesses += n;
  lv->st.hits += n;
  lv->st.array[r->array].hits += n;
  m->st.cycles += n * (m->data_cycles + lv->latency);
}

/* Keeps the latest translation, a hit of array `array` of entry level
 * `level`, for repeat: the kinds that enter at that level and the page's
 * protection allows. */
static void remember(mmu *m, int level, int array, uint64_t va, const tlb_hit *h) {
  if (m->obs || m->lv[level].shared || !m->data_fixed) return;
  uint64_t span = (1ull << h->page_shift) - 1;
  unsigned kinds = m->lv[level].enters & h->prot; /* kind_prot */
  m->rep = (mmu_repeat){.win = {.lo = va & ~span, .span = span, .kinds = kinds}, .array = (uint8_t)array,
                        .page_shift = h->page_shift, .level = level, .pa_base = h->pa & ~span};
}

/* The look-up down the levels, and the walk when they all miss; the
 * entry level's first `missed` arrays missed already (mmu_translate). Kept
 * out of line so the hit paths set up no stack frame for it. */
__attribute__((noinline)) static void translate_full(mmu *m, uint64_t va, acc_kind kind, unsigned missed,
                                                     mmu_outcome *out) {
  m->rep.win.kinds = 0;
  m->st.translations++;
  out->tlb_cycles = out->walk_cycles = 0;
  int path[MMU_MAX_LEVELS];
  unsigned npath = 0;
  tlb_hit h;
  out->missed = 0;
  for (int l = m->entry[kind == ACC_EXEC]; l >= 0; l = m->lv[l].next) {
    mmu_level *lv = &m->lv[l];
    lv->st.accesses++;
    out->tlb_cycles += lv->latency;
    int a = level_lookup(m, (unsigned)l, missed, va, &h);
    missed = 0;
    if (a >= 0) {
      lv->st.hits++;
      out->hit_level = l;
      out->walk_refs = 0;
      out->pa = h.pa;
      out->page_shift = h.page_shift;
      if (!(h.prot & kind_prot[kind])) {
        finish(m, va, out, MMU_FAULT_PROT);
        return;
      }
      if (npath) {
        uint64_t off = va & ((1ull << h.page_shift) - 1);
        pt_mapping mp = {va - off, h.pa - off, h.page_shift, h.prot};
        fill_levels(m, path, npath, &mp);
      } else {
        remember(m, l, a, va, &h);
      }
      finish(m, va, out, MMU_OK);
      return;
    }
    lv->st.misses++;
    out->missed |= 1u << l;
    path[npath++] = l;
  }
  out->hit_level = -1;
  out->walk_refs = 0;
  out->pa = 0;
  out->page_shift = 0;
  walker_result w;
  for (int attempt = 0;; attempt++) {
    walk(m, va, &w);
    out->walk_refs += w.refs;
    out->walk_cycles += w.cycles;
    if (w.walk.mapped) break;
    m->st.faults_unmapped++;
    if (attempt || !m->on_fault || !m->on_fault(m->fault_ctx, va, kind)) break;
  }
  if (!w.walk.mapped) {
    finish(m, va, out, MMU_FAULT_UNMAPPED);
    return;
  }
  out->pa = w.walk.map.pa + (va - w.walk.map.va);
  out->page_shift = w.walk.map.page_shift;
  if (!(w.walk.map.prot & kind_prot[kind])) {
    finish(m, va, out, MMU_FAULT_PROT);
    return;
  }
  fill_levels(m, path, npath, &w.walk.map);
  finish(m, va, out, MMU_OK);
}

/* A hit with the rights needed in the first array of the entry level
 * (h): the whole translation, counted as translate_full counts it. */
static void first_hit(mmu *m, int l, uint64_t va, const tlb_hit *h, mmu_outcome *out) {
  mmu_level *lv = &m->lv[l];
  m->st.translations++;
  lv->st.accesses++;
  lv->st.hits++;
  lv->st.array[0].hits++;
  uint32_t data = data_cost(m, h->pa);
  uint64_t cycles = data + lv->latency;
  m->st.cycles += cycles;
  remember(m, l, 0, va, h);
  *out = (mmu_outcome){.status = MMU_OK, .pa = h->pa, .hit_level = l, .page_shift = h->page_shift, .cycles = cycles,
                       .data_cycles = data, .tlb_cycles = lv->latency};
}

/* A repeat; else the entry level's first array, which is all of it on a
 * hit with the rights needed (the common case once repeats are taken
 * out); else the full way. A hit without the rights is looked up again
 * there, which changes no replacement order (a look-up of the entry used
 * last: see mmu_repeat); a miss changed nothing and is not. An observer
 * sees every look-up, so it gets the full way from the start. */
void mmu_translate(mmu *m, uint64_t va, acc_kind kind, mmu_outcome *out) {
  if (repeat(m, va, kind, out)) return;
  int l = m->entry[kind == ACC_EXEC];
  unsigned missed = 0;
  if (l >= 0 && !m->obs) {
    tlb_hit h;
    bool hit = tlb_lookup(m->lv[l].arr[0], va, m->asid, &h);
    if (hit && (h.prot & kind_prot[kind])) {
      first_hit(m, l, va, &h, out);
      return;
    }
    missed = !hit;
  }
  translate_full(m, va, kind, missed, out);
}

bool mmu_translate_hit(mmu *m, uint64_t va, acc_kind kind) {
  int l = m->entry[kind == ACC_EXEC];
  if (l < 0 || m->obs || !m->data_fixed) return false;
  mmu_level *lv = &m->lv[l];
  tlb_hit h;
  if (!tlb_lookup(lv->arr[0], va, m->asid, &h) || !(h.prot & kind_prot[kind])) return false;
  m->st.translations++;
  lv->st.accesses++;
  lv->st.hits++;
  lv->st.array[0].hits++;
  m->st.cycles += m->data_cycles + lv->latency;
  if (!lv->shared) { /* remember's, with its other tests passed above */
    uint64_t span = (1ull << h.page_shift) - 1;
    m->rep = (mmu_repeat){.win = {.lo = va & ~span, .span = span, .kinds = lv->enters & h.prot}, .array = 0,
                          .page_shift = h.page_shift, .level = l, .pa_base = h.pa & ~span};
  }
  return true;
}

bool mmu_serves(const mmu *m, acc_kind kind) { return m->entry[kind == ACC_EXEC] >= 0; }

void mmu_set_fault_handler(mmu *m, mmu_fault_fn fn, void *ctx) {
  m->on_fault = fn;
  m->fault_ctx = ctx;
}

/* --- invalidation and context --------------------------------------------- */

/* Drops entries of asid (TLB_ANY_ASID: all) overlapping the page; or, with
 * page_shift 64, everything of asid. Returns entries dropped. */
static unsigned drop(mmu *m, uint64_t va, unsigned page_shift, uint32_t asid) {
  unsigned n = 0;
  m->rep.win.kinds = 0;
  for (unsigned l = 0; l < m->cfg.nlevels; l++)
    for (unsigned a = 0; a < m->lv[l].narrays; a++)
      n += page_shift < 64 ? tlb_invalidate(m->lv[l].arr[a], va, page_shift, asid)
                           : tlb_flush(m->lv[l].arr[a], asid);
  return n + walker_invalidate(m->walker, va, page_shift, asid);
}

void mmu_shootdown(mmu *m, uint64_t va, unsigned page_shift, uint32_t asid) {
  unsigned dropped = drop(m, va, page_shift, asid);
  m->st.shootdowns++;
  m->st.entries_invalidated += dropped;
  if (m->obs && m->obs->shootdown) m->obs->shootdown(m->obs->ctx, va, page_shift, dropped);
}

void mmu_set_observer(mmu *m, const mmu_observer *o) {
  m->rep.win.kinds = 0;
  if (o) m->obs_copy = *o;
  m->obs = o ? &m->obs_copy : NULL;
}

void mmu_flush(mmu *m) { drop(m, 0, 64, TLB_ANY_ASID); }

void mmu_set_context(mmu *m, uint32_t asid, const pt *table) {
  if (asid == m->asid && table == m->table) return;
  m->st.context_switches++;
  m->rep.win.kinds = 0;
  if (!m->cfg.asid_tagged) drop(m, 0, 64, TLB_ANY_ASID);
  else if (asid == m->asid) drop(m, 0, 64, asid); /* same tag, other table: stale */
  m->asid = asid;
  m->table = table;
}

void mmu_set_asid(mmu *m, uint32_t asid) { mmu_set_context(m, asid, m->table); }

/* --- statistics ----------------------------------------------------------- */

const mmu_stats *mmu_get_stats(const mmu *m) { return &m->st; }

void mmu_reset_stats(mmu *m) {
  m->st = (mmu_stats){0};
  for (unsigned l = 0; l < m->cfg.nlevels; l++) m->lv[l].st = (mmu_level_stats){0};
}

const mmu_config *mmu_get_config(const mmu *m) { return &m->cfg; }

mmu_level_stats mmu_level_get_stats(const mmu *m, unsigned level) {
  return level < m->cfg.nlevels ? m->lv[level].st : (mmu_level_stats){0};
}

int mmu_level_find(const mmu *m, const char *name) {
  for (unsigned l = 0; l < m->cfg.nlevels; l++)
    if (!strcmp(m->cfg.level[l].name, name)) return (int)l;
  return -1;
}
