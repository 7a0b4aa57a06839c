/* tlbsim/stats.h — the statistics a replay reports, declared once.
 *
 * stats_snapshot  every counter of a machine at one moment, flat: the
 *                 machine's, its MMU's, each TLB level's, each page-table
 *                 level's usage, physical memory. Plain data, so a sweep
 *                 or an interval report can keep many of them.
 * stats_column    one reported value: its dotted name ("tlb.l1d.misses"),
 *                 its kind, and where it lives in a snapshot (byte offsets:
 *                 a count, a ratio of two counts) or which label it is.
 * stats_schema    the columns of one configuration in report order: the
 *                 labels, the machine-wide counts, then per TLB level, per
 *                 walk cache and per page-table level. Built from the
 *                 machine_spec, never from the data: every run of a
 *                 configuration writes the same columns, even when a walk
 *                 cache was never looked up, so CSV rows of several runs
 *                 line up and a sweep's union of columns is well defined.
 *
 * The JSON, CSV and text reports (report.h) are all written from a schema
 * and a snapshot.
 */
#ifndef TLBSIM_STATS_H
#define TLBSIM_STATS_H

#include <math.h>

#include "tlbsim/machine.h"

#define STATS_NAME_MAX 96 /* "tlb." + a level name + its array's sizes + ".evictions" */
/* Labels, counts and ratios of the machine, 9 per TLB level and 3 per array
 * of a level split by page size, 2 per walk cache, 4 per page-table level:
 * room for the largest configuration. */
#define STATS_MAX_COLUMNS (48 + (9 + 3 * MMU_MAX_ARRAYS) * MMU_MAX_LEVELS + 6 * PT_MAX_LEVELS + 4)

typedef struct stats_snapshot {
  machine_stats machine;
  mmu_stats mmu;
  mmu_level_stats level[MMU_MAX_LEVELS];
  pt_level_usage table[PT_MAX_LEVELS];
  uint64_t table_bytes, phys_used, phys_used_peak;
} stats_snapshot;

/* GROUP names an object of the JSON document that holds the columns after
 * it, written even when none follow (no walk cache configured: "pwc": {}). */
typedef enum { STATS_LABEL, STATS_COUNT, STATS_RATIO, STATS_GROUP } stats_kind;

/* What a run is, written beside its numbers. */
typedef enum { STATS_TRACE, STATS_TRACE_FORMAT, STATS_CONFIG, STATS_PAGE_TABLE_FORMAT, STATS_NLABELS } stats_label;

typedef struct stats_column {
  char name[STATS_NAME_MAX];
  stats_kind kind;
  uint32_t at;    /* LABEL: a stats_label; COUNT, RATIO: offset of the count (the numerator) */
  uint32_t over;  /* RATIO: offset of the denominator (0 when it is 0) */
  bool agent;     /* also a count of each agent (CPU) alone: the report's per-CPU objects have it */
} stats_column;

typedef struct stats_schema {
  size_t n;
  stats_column col[STATS_MAX_COLUMNS];
} stats_schema;

void stats_schema_build(const machine_spec *s, stats_schema *out);
void stats_snapshot_take(const machine *m, stats_snapshot *out);
/* Agent a's own counters (the agent columns; the rest 0). */
void stats_snapshot_agent(const machine *m, unsigned a, stats_snapshot *out);
/* The counts since `base` was taken of the same machine (a warm-up's end):
 * the machine's, the MMU's and each TLB level's counters less base's; the
 * page-table and memory usage (levels, not counts) stay as they are now. */
void stats_snapshot_since(stats_snapshot *now, const stats_snapshot *base);

static inline uint64_t stats_count(const stats_snapshot *s, const stats_column *c) {
  return *(const uint64_t *)(const void *)((const char *)s + c->at);
}

/* A RATIO column's denominator (its numerator is stats_count). */
static inline uint64_t stats_denominator(const stats_snapshot *s, const stats_column *c) {
  return *(const uint64_t *)(const void *)((const char *)s + c->over);
}

/* A RATIO column's value; NaN when its denominator is 0 (a ratio of
 * nothing, which the reports write as null, or an empty field). */
static inline double stats_ratio(const stats_snapshot *s, const stats_column *c) {
  uint64_t den = stats_denominator(s, c);
  return den ? (double)stats_count(s, c) / (double)den : (double)NAN;
}

#endif
