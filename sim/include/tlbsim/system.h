/* tlbsim/system.h — the hardware below the operating system: agents that
 * translate (CPU cores, GPU SMs), the TLB levels each has or shares, one
 * walker and one memory system.
 *
 * system_spec  plain data a system is built from: the MMU every agent has
 *              (mmu_config; each level's shared_by says which agents share
 *              its arrays) and the memory system below (memsys_config).
 *              One spec builds any number of systems (a sweep's
 *              configurations, chase points, gather kernels).
 * system       owns one MMU per agent, built the first time the agent is
 *              used (a one-CPU trace builds one, however many a GPU has),
 *              the walker every agent's misses go to (walk caches and
 *              page-table line cache: a GPU's GMMU walks for every SM) and
 *              the memory system data loads and page-table reads are sent
 *              to. Reads, never owns or changes, the page tables it
 *              translates through: each agent's current one is its own
 *              (system_set_context), so CPUs run different address spaces.
 * agent        a number below SYSTEM_MAX_AGENTS. A level with shared_by = k
 *              (k > 1) is one array for agents a with the same group: a / k
 *              by default, or what a layout's group function says (a GPU's
 *              L2-TLB groups are not runs of SM numbers); MMU_SHARED_BY_ALL
 *              is one for every agent; 0 or 1 private.
 *
 * Functional translation stays each agent's mmu_translate, exact and pure;
 * a timing model (hw/engine.h) replays its outcome's steps as requests.
 * Statistics are per agent (each MMU counts its own translations, on
 * shared arrays too) and summed for the system; shootdowns go to every
 * agent built, as an OS's TLB shootdown reaches every CPU.
 */
#ifndef TLBSIM_SYSTEM_H
#define TLBSIM_SYSTEM_H

#include "tlbsim/memsys.h"
#include "tlbsim/mmu.h"

#define SYSTEM_MAX_AGENTS MMU_MAX_AGENTS /* a GPU's SMs (the H200 has 132), a trace's CPUs (64 threads) */

typedef struct system_spec {
  mmu_config mmu;    /* every agent's; level[l].shared_by: who shares it */
  memsys_config mem; /* [latency] data_cycles, walk_ref_cycles */
} system_spec;

/* Which group of level `level` agent `agent` belongs to (agents of one
 * group share the level's arrays); NULL in a layout: agent / shared_by. */
typedef uint32_t (*system_group_fn)(const void *ctx, unsigned level, unsigned agent);

typedef struct system_layout {
  system_group_fn group;
  const void *ctx;
} system_layout;

typedef struct system hwsystem; /* not `system`: stdlib.h has a function of that name */

/* A system whose agents start in address space asid 0 of `table`.
 * layout may be NULL (groups by shared_by); it is copied. */
hwsystem *system_create(const system_spec *s, const pt *table, const system_layout *layout, diag *d);
void system_destroy(hwsystem *s);
const system_spec *system_get_spec(const hwsystem *s);

/* Agent a's MMU, built on first use (in the context system_set_context
 * last gave it, else the system's first); NULL (d) when out of memory or
 * a is not below SYSTEM_MAX_AGENTS. */
mmu *system_agent(hwsystem *s, unsigned a, diag *d);
/* Agent a's MMU when it has been built, else NULL. */
const mmu *system_agent_mmu(const hwsystem *s, unsigned a);
/* One more than the highest agent built (0 before any). */
unsigned system_agent_span(const hwsystem *s);

/* Agent a (built) translates one page's worth of access. */
void system_translate(hwsystem *s, unsigned a, uint64_t va, acc_kind kind, mmu_outcome *out);
/* Agent a runs address space asid of table from now on (built or not). */
int system_set_context(hwsystem *s, unsigned a, uint32_t asid, const pt *table, diag *d);
/* Drops the page of 2^page_shift at va of address space asid from every
 * agent's TLBs and the walk caches: one request, reaching every agent. */
void system_shootdown(hwsystem *s, uint64_t va, unsigned page_shift, uint32_t asid);
/* Demand paging and observers, for every agent, built now or later. */
void system_set_fault_handler(hwsystem *s, mmu_fault_fn fn, void *ctx);
void system_set_observer(hwsystem *s, const mmu_observer *o);

/* The counters summed over the agents: translations, walks, cycles ...,
 * and each TLB level's (shootdowns: requests, not deliveries). */
void system_stats(const hwsystem *s, mmu_stats *out);
mmu_level_stats system_level_stats(const hwsystem *s, unsigned level);
/* Page sizes some agent translated that no level on its path holds. */
uint64_t system_unheld_page_shifts(const hwsystem *s);
void system_reset_stats(hwsystem *s);

/* The latency model as one linear sum: a run's cycles are, over the terms,
 * the times it paid each term by that term's cycles (with the constant
 * memory system; tests/test_system.c checks the sum on real replays). The
 * terms, in order: the data access ([latency] data_cycles), each TLB
 * level's look-up ([tlb.NAME] latency), a walk's start ([latency]
 * walk_cycles), a page-table read from memory ([latency] walk_ref_cycles)
 * and one the line cache serves ([ptcache] hit_cycles). calibrate fits
 * them; timing models read the same outcome split (mmu_outcome). */
#define SYSTEM_MAX_COST_TERMS (MMU_MAX_LEVELS + 4)
typedef struct system_cost_term {
  char section[MMU_NAME_MAX + 8];
  const char *key;
  uint32_t cycles;
} system_cost_term;
unsigned system_cost_terms(const system_spec *s, system_cost_term out[SYSTEM_MAX_COST_TERMS]);
/* Term j of system_cost_terms' order costs `cycles` in s from now on. */
void system_cost_set(system_spec *s, unsigned j, uint32_t cycles);
/* How many times translations with these counters paid each term; returns
 * the number of terms. */
unsigned system_cost_counts(const system_spec *s, const mmu_stats *st, const mmu_level_stats *level,
                            double count[SYSTEM_MAX_COST_TERMS]);

#endif
