/* The statistics schema: the columns a configuration reports, from tables
 * of where each value lives in a stats_snapshot. */
#include "tlbsim/stats.h"

#include <stddef.h>
#include <stdio.h>

#define SNAP(field) (uint32_t)offsetof(stats_snapshot, field)
#define NONE 0

/* How a column's offsets move with the index of its group (the TLB level,
 * walk-cache level or page-table level it belongs to). */
typedef enum { STEP_NONE, STEP_LEVEL, STEP_ARRAY, STEP_TABLE, STEP_U64 } column_step;

typedef struct column_def {
  const char *name;
  stats_kind kind;
  uint32_t at, over;
  column_step step;
  bool machine_wide; /* a count of the OS side or the memory, no agent's own (stats_column.agent) */
} column_def;

static const uint32_t step_bytes[] = {
    [STEP_NONE] = 0,
    [STEP_LEVEL] = sizeof(mmu_level_stats),
    [STEP_ARRAY] = sizeof(mmu_array_stats),
    [STEP_TABLE] = sizeof(pt_level_usage),
    [STEP_U64] = sizeof(uint64_t),
};

static const column_def labels[] = {
    {"trace", STATS_LABEL, STATS_TRACE, NONE, STEP_NONE, false},
    {"trace_format", STATS_LABEL, STATS_TRACE_FORMAT, NONE, STEP_NONE, false},
    {"config", STATS_LABEL, STATS_CONFIG, NONE, STEP_NONE, false},
    {"page_table_format", STATS_LABEL, STATS_PAGE_TABLE_FORMAT, NONE, STEP_NONE, false},
};

static const column_def accesses[] = {
    {"accesses", STATS_COUNT, SNAP(machine.accesses), NONE, STEP_NONE, false},
    {"reads", STATS_COUNT, SNAP(machine.accesses_by_kind[ACC_READ]), NONE, STEP_NONE, false},
    {"writes", STATS_COUNT, SNAP(machine.accesses_by_kind[ACC_WRITE]), NONE, STEP_NONE, false},
    {"fetches", STATS_COUNT, SNAP(machine.accesses_by_kind[ACC_EXEC]), NONE, STEP_NONE, false},
    {"translations", STATS_COUNT, SNAP(mmu.translations), NONE, STEP_NONE, false},
    {"straddles", STATS_COUNT, SNAP(machine.straddles), NONE, STEP_NONE, false},
};

static const column_def walks[] = {
    {"walks", STATS_COUNT, SNAP(mmu.walks), NONE, STEP_NONE, false},
    {"walk_refs", STATS_COUNT, SNAP(mmu.walk_refs), NONE, STEP_NONE, false},
};

static const column_def faults[] = {
    {"page_faults", STATS_COUNT, SNAP(machine.page_faults), NONE, STEP_NONE, false},
    {"faults", STATS_COUNT, SNAP(machine.faults), NONE, STEP_NONE, false},
    {"faults_unmapped", STATS_COUNT, SNAP(mmu.faults_unmapped), NONE, STEP_NONE, false},
    {"faults_protection", STATS_COUNT, SNAP(mmu.faults_prot), NONE, STEP_NONE, false},
    {"shootdowns", STATS_COUNT, SNAP(mmu.shootdowns), NONE, STEP_NONE, false},
    {"entries_invalidated", STATS_COUNT, SNAP(mmu.entries_invalidated), NONE, STEP_NONE, false},
    {"page_table_bytes", STATS_COUNT, SNAP(table_bytes), NONE, STEP_NONE, true},
};

static const column_def memory[] = {
    {"phys_used_bytes", STATS_COUNT, SNAP(phys_used), NONE, STEP_NONE, true},
    {"phys_used_peak_bytes", STATS_COUNT, SNAP(phys_used_peak), NONE, STEP_NONE, true},
    {"allocs", STATS_COUNT, SNAP(machine.allocs), NONE, STEP_NONE, true},
    {"frees", STATS_COUNT, SNAP(machine.frees), NONE, STEP_NONE, true},
    {"maps", STATS_COUNT, SNAP(machine.maps), NONE, STEP_NONE, true},
    {"unmaps", STATS_COUNT, SNAP(machine.unmaps), NONE, STEP_NONE, true},
    {"context_switches", STATS_COUNT, SNAP(machine.context_switches), NONE, STEP_NONE, true},
    {"ooms", STATS_COUNT, SNAP(machine.oom), NONE, STEP_NONE, true},
    {"cycles", STATS_COUNT, SNAP(mmu.cycles), NONE, STEP_NONE, false},
    {"cycles_per_access", STATS_RATIO, SNAP(mmu.cycles), SNAP(machine.accesses), STEP_NONE, false},
};

/* Per TLB level l: offsets from level[0], access_misses[0] and each
 * kind_misses[k][0], moved by l. The three by kind (accesses of that kind
 * with a miss at the level, as Dinero's and cachegrind's read and write
 * misses) add up to access_misses. */
static const column_def per_level[] = {
    {"accesses", STATS_COUNT, SNAP(level[0].accesses), NONE, STEP_LEVEL, false},
    {"hits", STATS_COUNT, SNAP(level[0].hits), NONE, STEP_LEVEL, false},
    {"misses", STATS_COUNT, SNAP(level[0].misses), NONE, STEP_LEVEL, false},
    {"miss_ratio", STATS_RATIO, SNAP(level[0].misses), SNAP(level[0].accesses), STEP_LEVEL, false},
    {"access_misses", STATS_COUNT, SNAP(machine.access_misses[0]), NONE, STEP_U64, false},
    {"read_misses", STATS_COUNT, SNAP(machine.kind_misses[ACC_READ][0]), NONE, STEP_U64, false},
    {"write_misses", STATS_COUNT, SNAP(machine.kind_misses[ACC_WRITE][0]), NONE, STEP_U64, false},
    {"fetch_misses", STATS_COUNT, SNAP(machine.kind_misses[ACC_EXEC][0]), NONE, STEP_U64, false},
    {"evictions", STATS_COUNT, SNAP(level[0].evictions), NONE, STEP_LEVEL, false},
};

/* Per array a of TLB level 0 (moved to level l by add_array_group). */
static const column_def per_array[] = {
    {"hits", STATS_COUNT, SNAP(level[0].array[0].hits), NONE, STEP_ARRAY, false},
    {"fills", STATS_COUNT, SNAP(level[0].array[0].fills), NONE, STEP_ARRAY, false},
    {"evictions", STATS_COUNT, SNAP(level[0].array[0].evictions), NONE, STEP_ARRAY, false},
};

static const column_def per_walk_cache[] = {
    {"lookups", STATS_COUNT, SNAP(mmu.pwc_lookups[0]), NONE, STEP_U64, false},
    {"hits", STATS_COUNT, SNAP(mmu.pwc_hits[0]), NONE, STEP_U64, false},
};

static const column_def per_table_level[] = {
    {"tables", STATS_COUNT, SNAP(table[0].tables), NONE, STEP_TABLE, true},
    {"bytes", STATS_COUNT, SNAP(table[0].bytes), NONE, STEP_TABLE, true},
    {"tables_peak", STATS_COUNT, SNAP(table[0].tables_peak), NONE, STEP_TABLE, true},
    {"bytes_peak", STATS_COUNT, SNAP(table[0].bytes_peak), NONE, STEP_TABLE, true},
};

#define COUNT_OF(defs) (sizeof defs / sizeof defs[0])

/* Appends defs as the columns of group `index`, named "prefix.name" (or
 * just "name" without a prefix). */
static void add_group(stats_schema *sc, const char *prefix, const column_def *defs, size_t n, unsigned index) {
  for (size_t i = 0; i < n; i++) {
    stats_column *c = &sc->col[sc->n++];
    uint32_t move = step_bytes[defs[i].step] * index;
    *c = (stats_column){.kind = defs[i].kind, .at = defs[i].at + move, .over = defs[i].over ? defs[i].over + move : 0,
                        .agent = defs[i].kind != STATS_LABEL && !defs[i].machine_wide};
    snprintf(c->name, sizeof c->name, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", defs[i].name);
  }
}

/* The columns of array a of level l, prefixed "tlb." and the array's name. */
static void add_array_group(stats_schema *sc, const mmu_level_config *lc, unsigned l, unsigned a) {
  char prefix[MMU_ARRAY_NAME_MAX + 8];
  char name[MMU_ARRAY_NAME_MAX];
  snprintf(prefix, sizeof prefix, "tlb.%s", mmu_array_name(lc, a, name, sizeof name));
  size_t first = sc->n;
  add_group(sc, prefix, per_array, COUNT_OF(per_array), a);
  for (size_t c = first; c < sc->n; c++) sc->col[c].at += (uint32_t)(l * sizeof(mmu_level_stats));
}

void stats_schema_build(const machine_spec *s, stats_schema *out) {
  const mmu_config *mc = &s->sys.mmu;
  const pt_format *f = &s->format;
  char prefix[MMU_NAME_MAX + 12]; /* "page_table." or "tlb." and a name */
  out->n = 0;
  add_group(out, NULL, labels, COUNT_OF(labels), 0);
  add_group(out, NULL, accesses, COUNT_OF(accesses), 0);
  for (unsigned l = 0; l < mc->nlevels; l++) {
    snprintf(prefix, sizeof prefix, "tlb.%s", mc->level[l].name);
    add_group(out, prefix, per_level, COUNT_OF(per_level), l);
    for (unsigned a = 0; mc->level[l].narrays > 1 && a < mc->level[l].narrays; a++)
      add_array_group(out, &mc->level[l], l, a);
  }
  add_group(out, NULL, walks, COUNT_OF(walks), 0);
  out->col[out->n++] = (stats_column){.name = "pwc", .kind = STATS_GROUP, .agent = true};
  for (unsigned l = 0; l < f->nlevels; l++) {
    if (!mc->walker.pwc[l].entries) continue;
    snprintf(prefix, sizeof prefix, "pwc.%s", f->level[l].name);
    add_group(out, prefix, per_walk_cache, COUNT_OF(per_walk_cache), l);
  }
  add_group(out, NULL, faults, COUNT_OF(faults), 0);
  for (unsigned l = 0; l < f->nlevels; l++) {
    snprintf(prefix, sizeof prefix, "page_table.%s", f->level[l].name);
    add_group(out, prefix, per_table_level, COUNT_OF(per_table_level), l);
  }
  add_group(out, NULL, memory, COUNT_OF(memory), 0);
}

void stats_snapshot_take(const machine *m, stats_snapshot *out) {
  const hwsystem *sys = machine_get_system(m);
  out->machine = *machine_get_stats(m);
  system_stats(sys, &out->mmu);
  for (unsigned l = 0; l < MMU_MAX_LEVELS; l++) out->level[l] = system_level_stats(sys, l);
  const pt_format *f = pt_get_format(machine_get_pt(m));
  for (unsigned l = 0; l < PT_MAX_LEVELS; l++) out->table[l] = l < f->nlevels ? machine_pt_usage(m, l) : (pt_level_usage){0};
  out->table_bytes = machine_pt_bytes(m);
  out->phys_used = phys_used(machine_get_phys(m));
  out->phys_used_peak = phys_used_peak(machine_get_phys(m));
}

void stats_snapshot_agent(const machine *m, unsigned a, stats_snapshot *out) {
  *out = (stats_snapshot){0};
  machine_agent_stats(m, a, &out->machine);
  const mmu *u = system_agent_mmu(machine_get_system(m), a);
  if (!u) return;
  out->mmu = *mmu_get_stats(u);
  for (unsigned l = 0; l < MMU_MAX_LEVELS; l++) out->level[l] = mmu_level_get_stats(u, l);
}

/* a -= b over n counters. */
static void subtract(uint64_t *a, const uint64_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) a[i] -= b[i];
}

void stats_snapshot_since(stats_snapshot *now, const stats_snapshot *base) {
  _Static_assert(sizeof(machine_stats) % sizeof(uint64_t) == 0 && sizeof(mmu_stats) % sizeof(uint64_t) == 0 &&
                     sizeof(mmu_level_stats) % sizeof(uint64_t) == 0,
                 "counters are uint64_t only");
  subtract((uint64_t *)(void *)&now->machine, (const uint64_t *)(const void *)&base->machine,
           sizeof now->machine / sizeof(uint64_t));
  subtract((uint64_t *)(void *)&now->mmu, (const uint64_t *)(const void *)&base->mmu, sizeof now->mmu / sizeof(uint64_t));
  subtract((uint64_t *)(void *)now->level, (const uint64_t *)(const void *)base->level,
           sizeof now->level / (sizeof(uint64_t)));
}
