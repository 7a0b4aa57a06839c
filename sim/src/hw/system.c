/* system.c — agents, their MMUs and what they share (see tlbsim/system.h).
 *
 * An agent's MMU is built the first time the agent is used. Each level it
 * shares is borrowed (mmu_share) from the first agent of its group that
 * was built, which lends it for the system's life: MMUs are destroyed in
 * the reverse order of their building, borrowers first. */
#include "tlbsim/system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct agent_context {
  uint32_t asid;
  const pt *table;
} agent_context;

struct system {
  system_spec spec;
  system_layout layout;
  memsys *mem;
  walker *walker;                       /* the first agent's, every other one borrows it */
  mmu *agent[SYSTEM_MAX_AGENTS];
  agent_context ctx[SYSTEM_MAX_AGENTS]; /* each agent's current address space */
  uint16_t built_order[SYSTEM_MAX_AGENTS];
  unsigned nbuilt, span;
  mmu_fault_fn on_fault;
  void *fault_ctx;
  bool observed;
  mmu_observer obs;
  uint64_t shootdowns; /* requests (each reaches every agent) */
};

#define NOBODY UINT16_MAX

static uint32_t group_of(const hwsystem *s, unsigned level, unsigned a) {
  if (s->layout.group) return s->layout.group(s->layout.ctx, level, a);
  uint32_t k = s->spec.mmu.level[level].shared_by;
  return k == MMU_SHARED_BY_ALL ? 0 : k > 1 ? a / k : a;
}

hwsystem *system_create(const system_spec *sp, const pt *table, const system_layout *layout, diag *d) {
  if (mmu_config_check(&sp->mmu, d)) return NULL;
  hwsystem *s = calloc(1, sizeof *s);
  if (!s) return diag_set(d, NULL, 0, "out of memory"), NULL;
  s->spec = *sp;
  if (layout) s->layout = *layout;
  for (unsigned a = 0; a < SYSTEM_MAX_AGENTS; a++) s->ctx[a] = (agent_context){0, table};
  if (!(s->mem = memsys_create(&sp->mem, d))) {
    free(s);
    return NULL;
  }
  return s;
}

void system_destroy(hwsystem *s) {
  if (!s) return;
  for (unsigned i = s->nbuilt; i-- > 0;) mmu_destroy(s->agent[s->built_order[i]]);
  memsys_destroy(s->mem);
  free(s);
}

const system_spec *system_get_spec(const hwsystem *s) { return &s->spec; }

/* The agent built first in a's group of level l, or NOBODY. */
static unsigned lender(const hwsystem *s, unsigned l, unsigned a) {
  uint32_t g = group_of(s, l, a);
  for (unsigned i = 0; i < s->nbuilt; i++) {
    unsigned b = s->built_order[i];
    if (group_of(s, l, b) == g) return b;
  }
  return NOBODY;
}

static int build(hwsystem *s, unsigned a, diag *d) {
  const mmu_config *mc = &s->spec.mmu;
  mmu_share share = {.walker = s->walker, .asid = s->ctx[a].asid};
  for (unsigned l = 0; l < mc->nlevels; l++) {
    if (mc->level[l].shared_by <= 1) continue;
    unsigned from = lender(s, l, a);
    if (from != NOBODY) share.level_from[l] = s->agent[from];
  }
  mmu *m = mmu_create(mc, s->ctx[a].table, s->mem, &share, d);
  if (!m) return -1;
  if (!s->walker) s->walker = mmu_get_walker(m);
  if (s->on_fault) mmu_set_fault_handler(m, s->on_fault, s->fault_ctx);
  if (s->observed) mmu_set_observer(m, &s->obs);
  s->agent[a] = m;
  s->built_order[s->nbuilt++] = (uint16_t)a;
  if (a >= s->span) s->span = a + 1;
  return 0;
}

mmu *system_agent(hwsystem *s, unsigned a, diag *d) {
  if (a >= SYSTEM_MAX_AGENTS) return diag_set(d, NULL, 0, "agent %u: at most %d", a, SYSTEM_MAX_AGENTS), NULL;
  if (!s->agent[a] && build(s, a, d)) return NULL;
  return s->agent[a];
}

const mmu *system_agent_mmu(const hwsystem *s, unsigned a) { return a < SYSTEM_MAX_AGENTS ? s->agent[a] : NULL; }

unsigned system_agent_span(const hwsystem *s) { return s->span; }

void system_translate(hwsystem *s, unsigned a, uint64_t va, acc_kind kind, mmu_outcome *out) {
  mmu_translate(s->agent[a], va, kind, out);
}

int system_set_context(hwsystem *s, unsigned a, uint32_t asid, const pt *table, diag *d) {
  if (a >= SYSTEM_MAX_AGENTS) return diag_set(d, NULL, 0, "agent %u: at most %d", a, SYSTEM_MAX_AGENTS);
  s->ctx[a] = (agent_context){asid, table};
  if (s->agent[a]) mmu_set_context(s->agent[a], asid, table);
  return 0;
}

void system_shootdown(hwsystem *s, uint64_t va, unsigned page_shift, uint32_t asid) {
  s->shootdowns++;
  for (unsigned i = 0; i < s->nbuilt; i++) mmu_shootdown(s->agent[s->built_order[i]], va, page_shift, asid);
}

void system_set_fault_handler(hwsystem *s, mmu_fault_fn fn, void *ctx) {
  s->on_fault = fn;
  s->fault_ctx = ctx;
  for (unsigned i = 0; i < s->nbuilt; i++) mmu_set_fault_handler(s->agent[s->built_order[i]], fn, ctx);
}

void system_set_observer(hwsystem *s, const mmu_observer *o) {
  s->observed = o != NULL;
  if (o) s->obs = *o;
  for (unsigned i = 0; i < s->nbuilt; i++) mmu_set_observer(s->agent[s->built_order[i]], o);
}

/* a += b over n counters. */
static void add_counts(uint64_t *a, const uint64_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) a[i] += b[i];
}

void system_stats(const hwsystem *s, mmu_stats *out) {
  _Static_assert(sizeof(mmu_stats) % sizeof(uint64_t) == 0, "counters are uint64_t only");
  *out = (mmu_stats){0};
  for (unsigned i = 0; i < s->nbuilt; i++)
    add_counts((uint64_t *)(void *)out, (const uint64_t *)(const void *)mmu_get_stats(s->agent[s->built_order[i]]),
               sizeof *out / sizeof(uint64_t));
  out->shootdowns = s->shootdowns;
}

mmu_level_stats system_level_stats(const hwsystem *s, unsigned level) {
  _Static_assert(sizeof(mmu_level_stats) % sizeof(uint64_t) == 0, "counters are uint64_t only");
  mmu_level_stats sum = {0};
  for (unsigned i = 0; i < s->nbuilt; i++) {
    mmu_level_stats one = mmu_level_get_stats(s->agent[s->built_order[i]], level);
    add_counts((uint64_t *)(void *)&sum, (const uint64_t *)(const void *)&one, sizeof sum / sizeof(uint64_t));
  }
  return sum;
}

uint64_t system_unheld_page_shifts(const hwsystem *s) {
  uint64_t shifts = 0;
  for (unsigned i = 0; i < s->nbuilt; i++) shifts |= mmu_unheld_page_shifts(s->agent[s->built_order[i]]);
  return shifts;
}

void system_reset_stats(hwsystem *s) {
  s->shootdowns = 0;
  for (unsigned i = 0; i < s->nbuilt; i++) mmu_reset_stats(s->agent[s->built_order[i]]);
}

/* --- the latency model's terms ------------------------------------------ */

/* Term j's field in s, in system_cost_terms' order. */
static uint32_t *cost_field(system_spec *s, unsigned j) {
  unsigned nl = s->mmu.nlevels;
  if (j == 0) return &s->mem.data_cycles;
  if (j <= nl) return &s->mmu.level[j - 1].latency;
  if (j == nl + 1) return &s->mmu.walker.walk_cycles;
  if (j == nl + 2) return &s->mem.table_cycles;
  return &s->mmu.walker.line_cache.hit_cycles;
}

static system_cost_term cost_term(const char *section, const char *key, uint32_t cycles) {
  system_cost_term t = {.key = key, .cycles = cycles};
  snprintf(t.section, sizeof t.section, "%s", section);
  return t;
}

unsigned system_cost_terms(const system_spec *s, system_cost_term out[SYSTEM_MAX_COST_TERMS]) {
  unsigned n = 0;
  out[n++] = cost_term("latency", "data_cycles", s->mem.data_cycles);
  for (unsigned l = 0; l < s->mmu.nlevels; l++) {
    char section[MMU_NAME_MAX + 8];
    snprintf(section, sizeof section, "tlb.%s", s->mmu.level[l].name);
    out[n++] = cost_term(section, "latency", s->mmu.level[l].latency);
  }
  out[n++] = cost_term("latency", "walk_cycles", s->mmu.walker.walk_cycles);
  out[n++] = cost_term("latency", "walk_ref_cycles", s->mem.table_cycles);
  out[n++] = cost_term("ptcache", "hit_cycles", s->mmu.walker.line_cache.hit_cycles);
  return n;
}

void system_cost_set(system_spec *s, unsigned j, uint32_t cycles) { *cost_field(s, j) = cycles; }

unsigned system_cost_counts(const system_spec *s, const mmu_stats *st, const mmu_level_stats *level,
                            double count[SYSTEM_MAX_COST_TERMS]) {
  unsigned n = 0;
  count[n++] = (double)st->translations;
  for (unsigned l = 0; l < s->mmu.nlevels; l++) count[n++] = (double)level[l].accesses;
  count[n++] = (double)st->walks;
  count[n++] = (double)(st->walk_refs - st->line_hits);
  count[n++] = (double)st->line_hits;
  return n;
}
