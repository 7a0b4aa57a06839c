/* Tests for the hardware layer: a system's agents (private and shared
 * levels, agents built on first use, each in its own context, shootdowns
 * that reach them all), the latency model as one linear sum (checked on
 * real replays: x86-64, h200 and the teaching machine), and the
 * timing engine's events, stages and slots. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/engine.h"
#include "tlbsim/machine.h"

#define DEMO TLBSIM_SOURCE_DIR "/traces/samples/demo.trace"
#define STRIDE TLBSIM_SOURCE_DIR "/traces/samples/stride.lackey"

static tlb_geometry fa(uint32_t entries) {
  return (tlb_geometry){.entries = entries, .ways = entries, .policy = TLB_LRU, .sector_pages = 1,
                        .npage_shifts = 1, .page_shift = {12}};
}

/* A private 2-entry l1d, an 8-entry l2 shared by pairs of agents, a
 * 64-entry l3 shared by all; data 100 cycles, table reads 10. */
static system_spec three_levels(void) {
  system_spec s = {.mmu = {.nlevels = 3, .asid_tagged = true, .walker.walk_cycles = 5},
                   .mem = {.data_cycles = 100, .table_cycles = 10}};
  const char *names[] = {"l1d", "l2", "l3"};
  const uint32_t entries[] = {2, 8, 64}, latency[] = {1, 10, 50}, shared_by[] = {1, 2, MMU_SHARED_BY_ALL};
  for (unsigned l = 0; l < 3; l++) {
    mmu_level_config *lv = &s.mmu.level[l];
    snprintf(lv->name, sizeof lv->name, "%s", names[l]);
    lv->narrays = 1;
    lv->array[0] = fa(entries[l]);
    lv->next = l < 2 ? (int)l + 1 : MMU_NEXT_WALK;
    lv->serves = SERVES_DATA;
    lv->latency = latency[l];
    lv->shared_by = shared_by[l];
  }
  return s;
}

static pt *table_with(uint64_t pages) {
  pt *t = pt_create(pt_format_find("x86-64-4"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  diag d;
  for (uint64_t p = 0; p < pages; p++) CU_ASSERT_EQUAL_FATAL(pt_map(t, 0x10000 + p * 4096, p * 4096, 12, PT_RWX, &d), 0);
  return t;
}

static mmu_outcome tr(hwsystem *s, unsigned a, uint64_t va) {
  diag d;
  CU_ASSERT_PTR_NOT_NULL_FATAL(system_agent(s, a, &d));
  mmu_outcome o;
  system_translate(s, a, va, ACC_READ, &o);
  return o;
}

/* Agent 0 fills all three levels; agent 1 (its pair) misses its own l1d
 * and hits the l2 they share; agent 2 (another pair) hits only the l3. */
static void test_sharing(void) {
  system_spec sp = three_levels();
  pt *t = table_with(4);
  diag d;
  hwsystem *s = system_create(&sp, t, NULL, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(system_agent_span(s), 0); /* no agent built before it is used */
  CU_ASSERT_EQUAL(tr(s, 0, 0x10000).hit_level, -1);
  CU_ASSERT_EQUAL(tr(s, 0, 0x10000).hit_level, 0);
  mmu_outcome o = tr(s, 1, 0x10000);
  CU_ASSERT_EQUAL(o.hit_level, 1);
  CU_ASSERT_EQUAL(o.missed, 1u);
  CU_ASSERT_EQUAL(o.cycles, 100 + 1 + 10);
  CU_ASSERT_EQUAL(o.data_cycles, 100);
  CU_ASSERT_EQUAL(o.tlb_cycles, 11);
  CU_ASSERT_EQUAL(o.walk_cycles, 0);
  CU_ASSERT_EQUAL(tr(s, 2, 0x10000).hit_level, 2);
  CU_ASSERT_EQUAL(system_agent_span(s), 3);
  CU_ASSERT_PTR_NULL(system_agent_mmu(s, 3));
  /* Each agent counts its own look-ups; the system sums them. */
  CU_ASSERT_EQUAL(mmu_level_get_stats(system_agent_mmu(s, 1), 1).hits, 1);
  CU_ASSERT_EQUAL(mmu_level_get_stats(system_agent_mmu(s, 0), 1).hits, 0);
  CU_ASSERT_EQUAL(system_level_stats(s, 0).accesses, 4);
  mmu_stats st;
  system_stats(s, &st);
  CU_ASSERT_EQUAL(st.walks, 1);
  CU_ASSERT_EQUAL(st.translations, 4);
  /* A walk: data, three look-ups, the walk's start and its 4 reads. */
  o = tr(s, 3, 0x11000);
  CU_ASSERT_EQUAL(o.walk_cycles, 5 + 4 * 10);
  CU_ASSERT_EQUAL(o.cycles, 100 + 61 + 45);
  /* One shootdown reaches every agent: page 0x10000 is gone everywhere. */
  system_shootdown(s, 0x10000, 12, 0);
  system_stats(s, &st);
  CU_ASSERT_EQUAL(st.shootdowns, 1);
  /* agent 0: its l1d, the pair's l2, the l3; agent 1: its l1d; agent 2: its l1d and its pair's l2 */
  CU_ASSERT_EQUAL(st.entries_invalidated, 3 + 1 + 2);
  for (unsigned a = 0; a < 3; a++) CU_ASSERT_EQUAL(tr(s, a, 0x10000).hit_level, a == 0 ? -1 : a == 1 ? 1 : 2);
  system_destroy(s);
  pt_destroy(t);
}

/* Each agent runs its own address space; one given before the agent is
 * built is where it starts, with no context switch counted. */
static void test_contexts(void) {
  system_spec sp = three_levels();
  for (unsigned l = 0; l < 3; l++) sp.mmu.level[l].shared_by = MMU_SHARED_BY_ALL;
  pt *t0 = table_with(1), *t5 = pt_create(pt_format_find("x86-64-4"));
  diag d;
  CU_ASSERT_EQUAL_FATAL(pt_map(t5, 0x10000, 0x70000, 12, PT_RWX, &d), 0);
  hwsystem *s = system_create(&sp, t0, NULL, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(system_set_context(s, 1, 5, t5, &d), 0);
  CU_ASSERT_EQUAL(tr(s, 0, 0x10000).pa, 0);
  mmu_outcome o = tr(s, 1, 0x10000); /* shared levels, another asid: its own entry */
  CU_ASSERT_EQUAL(o.pa, 0x70000);
  CU_ASSERT_EQUAL(o.hit_level, -1);
  CU_ASSERT_EQUAL(mmu_get_stats(system_agent_mmu(s, 1))->context_switches, 0);
  system_shootdown(s, 0x10000, 12, 5); /* asid 5's page only */
  CU_ASSERT_EQUAL(tr(s, 0, 0x10000).hit_level, 0);
  CU_ASSERT_EQUAL(tr(s, 1, 0x10000).hit_level, -1);
  CU_ASSERT_EQUAL(system_set_context(s, SYSTEM_MAX_AGENTS, 0, t0, &d), -1);
  CU_ASSERT_PTR_NULL(system_agent(s, SYSTEM_MAX_AGENTS, &d));
  system_destroy(s);
  pt_destroy(t0);
  pt_destroy(t5);
}

/* Replays path through preset and checks that its cycles are the latency
 * model's sum: each term's count (system_cost_counts) by its cycles. */
static void check_cost_sum(const char *preset, const char *path) {
  char ini[512];
  snprintf(ini, sizeof ini, "%s/sim/presets/%s.ini", TLBSIM_SOURCE_DIR, preset);
  cfg *c = cfg_create();
  diag d;
  machine_spec spec;
  machine *m = NULL;
  trace_reader *r = NULL;
  if (cfg_load_file(c, ini, &d) || machine_spec_read(c, &spec, &d) || !(m = machine_create(&spec, &d)) ||
      !(r = trace_open(path, TRACE_AUTO, &d)) || machine_replay(m, r, NULL, NULL, &d))
    fprintf(stderr, "\n%s: %s\n", preset, d.msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  mmu_stats st;
  mmu_level_stats lv[MMU_MAX_LEVELS];
  system_stats(machine_get_system(m), &st);
  for (unsigned l = 0; l < MMU_MAX_LEVELS; l++) lv[l] = system_level_stats(machine_get_system(m), l);
  system_cost_term term[SYSTEM_MAX_COST_TERMS];
  double count[SYSTEM_MAX_COST_TERMS], sum = 0;
  unsigned n = system_cost_terms(&spec.sys, term);
  CU_ASSERT_EQUAL(system_cost_counts(&spec.sys, &st, lv, count), n);
  for (unsigned j = 0; j < n; j++) sum += count[j] * term[j].cycles;
  if (sum != (double)st.cycles) fprintf(stderr, "\n%s: %.0f by the terms, %llu replayed\n", preset, sum,
                                        (unsigned long long)st.cycles);
  CU_ASSERT_TRUE(st.cycles > 0 && sum == (double)st.cycles);
  trace_close(r);
  machine_destroy(m);
  cfg_destroy(c);
}

static void test_cost_sum(void) {
  check_cost_sum("x86-64", DEMO);
  check_cost_sum("x86-64", STRIDE);
  check_cost_sum("h200", STRIDE);
  check_cost_sum("teaching", TLBSIM_SOURCE_DIR "/traces/samples/teaching.trace");
}

/* The terms name the keys a configuration sets, and setting one changes
 * the spec where the configuration would. */
static void test_cost_terms(void) {
  system_spec sp = three_levels();
  system_cost_term t[SYSTEM_MAX_COST_TERMS];
  CU_ASSERT_EQUAL_FATAL(system_cost_terms(&sp, t), 3 + 4);
  CU_ASSERT_STRING_EQUAL(t[0].section, "latency");
  CU_ASSERT_STRING_EQUAL(t[0].key, "data_cycles");
  CU_ASSERT_STRING_EQUAL(t[2].section, "tlb.l2");
  CU_ASSERT_EQUAL(t[2].cycles, 10);
  CU_ASSERT_STRING_EQUAL(t[5].key, "walk_ref_cycles");
  CU_ASSERT_STRING_EQUAL(t[6].section, "ptcache");
  system_cost_set(&sp, 2, 33);
  system_cost_set(&sp, 5, 44);
  CU_ASSERT_EQUAL(sp.mmu.level[1].latency, 33);
  CU_ASSERT_EQUAL(sp.mem.table_cycles, 44);
}

/* Events come out by time; a stage takes one request per interval; slots
 * hand themselves to waiters first come, first served. */
static void test_engine(void) {
  engine e = {0};
  const double t[] = {5, 1, 3, 1, 9, 0.5};
  for (uint32_t i = 0; i < 6; i++) CU_ASSERT_EQUAL(engine_schedule(&e, t[i], i, 7), 0);
  engine_event ev;
  double last = -1;
  unsigned got = 0;
  while (engine_next(&e, &ev) > 0) {
    CU_ASSERT(ev.t >= last);
    CU_ASSERT_EQUAL(ev.kind, 7);
    CU_ASSERT_EQUAL(ev.t, t[ev.id]);
    last = ev.t;
    got++;
  }
  CU_ASSERT_EQUAL(got, 6);
  engine_free(&e);

  engine_stage s = {.interval = 2, .latency = 10};
  CU_ASSERT_EQUAL(engine_stage_pass(&s, 0, s.interval), 10);
  CU_ASSERT_EQUAL(engine_stage_pass(&s, 0, s.interval), 12); /* waits for the first's interval */
  CU_ASSERT_EQUAL(engine_stage_pass(&s, 7, s.interval), 17);
  CU_ASSERT_EQUAL(s.busy, 6);

  engine_slots sl;
  engine_slots_init(&sl, 2);
  CU_ASSERT_EQUAL(engine_slots_acquire(&sl, 10), 1);
  CU_ASSERT_EQUAL(engine_slots_acquire(&sl, 11), 1);
  for (uint32_t id = 12; id < 200; id++) CU_ASSERT_EQUAL(engine_slots_acquire(&sl, id), 0); /* the ring grows */
  for (uint32_t id = 12; id < 200; id++) CU_ASSERT_EQUAL(engine_slots_release(&sl), id);
  CU_ASSERT_EQUAL(engine_slots_release(&sl), ENGINE_NONE);
  CU_ASSERT_EQUAL(engine_slots_release(&sl), ENGINE_NONE);
  CU_ASSERT_EQUAL(sl.used, 0);
  engine_slots_free(&sl);
}

/* The calendar against the order it promises (engine_before, then
 * scheduling order), found by a scan of the events waiting: events
 * scheduled while others come out, at the current time and before it,
 * ties, fractions, past the ring (and back within it as time goes on),
 * and, last, too far for a cycle; engine_peek gives the first one's time
 * without taking it. */
enum { ORDER_EVENTS = 30000 };
typedef struct pending {
  engine_event ev;
  uint32_t seq;
} pending;

static double order_time(rng *r, double now) {
  switch (rng_below(r, 8)) {
  case 0: return now;                                         /* a tie with what comes now */
  case 1: return now - (double)rng_below(r, 3);               /* before now: first */
  case 2: return now + (double)rng_below(r, 4 * ENGINE_RING); /* within the ring or past it */
  case 3: return rng_below(r, 50) ? now + 0.25 * (double)rng_below(r, 8) : 0x1p70 * (double)(1 + rng_below(r, 2));
  default: return floor(now) + (double)rng_below(r, 40); /* ties a few cycles on */
  }
}

static void test_engine_order(void) {
  engine e = {0};
  rng r;
  rng_seed(&r, 29);
  pending *wait = calloc(ORDER_EVENTS, sizeof *wait);
  CU_ASSERT_FATAL(wait != NULL);
  uint32_t scheduled = 0, nwait = 0, out = 0;
  double now = 0;
  engine_event ev;
  while (out < ORDER_EVENTS) {
    uint64_t burst = scheduled < 3000 ? 3000 : rng_below(&r, 3);
    for (; burst-- && scheduled < ORDER_EVENTS; scheduled++) {
      /* ids repeat so that some events are equal in all but scheduling order */
      wait[nwait] = (pending){{order_time(&r, now), (uint32_t)rng_below(&r, 5000), 3}, scheduled};
      CU_ASSERT_EQUAL_FATAL(engine_schedule(&e, wait[nwait].ev.t, wait[nwait].ev.id, 3), 0);
      nwait++;
    }
    if (!nwait) continue;
    uint32_t best = 0; /* the first to come, the first scheduled of equals */
    for (uint32_t i = 1; i < nwait; i++)
      if (engine_before(&wait[i].ev, &wait[best].ev) ||
          (!engine_before(&wait[best].ev, &wait[i].ev) && wait[i].seq < wait[best].seq))
        best = i;
    size_t n;
    const engine_event *soon = engine_soon(&e, 1, &n);
    if (n) CU_ASSERT(soon[0].id == wait[best].ev.id && soon[0].t == wait[best].ev.t); /* what is in now comes first */
    double peek = -1;
    CU_ASSERT_EQUAL_FATAL(engine_peek(&e, &peek), 1); /* the earliest time, left in place */
    CU_ASSERT_EQUAL_FATAL(peek, wait[best].ev.t);
    CU_ASSERT_EQUAL_FATAL(engine_next(&e, &ev), 1);
    CU_ASSERT_EQUAL_FATAL(ev.id, wait[best].ev.id);
    CU_ASSERT_EQUAL_FATAL(ev.t, wait[best].ev.t);
    CU_ASSERT_EQUAL(ev.kind, 3);
    wait[best] = wait[--nwait];
    out++;
    if (ev.t < 0x1p62 && ev.t > now) now = ev.t;
  }
  CU_ASSERT_EQUAL(engine_next(&e, &ev), 0);
  double peek = -1;
  CU_ASSERT(engine_peek(&e, &peek) == 0 && peek == -1);
  CU_ASSERT_EQUAL(scheduled, ORDER_EVENTS);
  CU_ASSERT_EQUAL(engine_schedule(&e, 1.5, 7, 1), 0); /* and on after it emptied */
  CU_ASSERT_EQUAL(engine_schedule(&e, 0.5, 8, 1), 0);
  CU_ASSERT_EQUAL(engine_schedule(&e, -0x1p80, 9, 1), 0); /* long before now: first */
  CU_ASSERT(engine_next(&e, &ev) == 1 && ev.id == 9);
  CU_ASSERT(engine_next(&e, &ev) == 1 && ev.id == 8);
  CU_ASSERT(engine_next(&e, &ev) == 1 && ev.id == 7);
  engine_free(&e);
  free(wait);
}

/* Ties favour no one: 64 events at one time come out in the same order
 * whichever order they were scheduled in, and over eight times, not
 * always with the same one first. */
static void test_engine_ties(void) {
  uint32_t first[8];
  for (unsigned time = 0; time < 8; time++) {
    uint32_t out[2][64];
    for (unsigned run = 0; run < 2; run++) {
      engine e = {0};
      for (uint32_t k = 0; k < 64; k++) CU_ASSERT_EQUAL(engine_schedule(&e, 100 + time, run ? 63 - k : k, 0), 0);
      engine_event ev;
      for (unsigned k = 0; k < 64; k++) {
        CU_ASSERT_EQUAL_FATAL(engine_next(&e, &ev), 1);
        out[run][k] = ev.id;
      }
      engine_free(&e);
    }
    CU_ASSERT_EQUAL(memcmp(out[0], out[1], sizeof out[0]), 0);
    first[time] = out[0][0];
  }
  unsigned same = 0;
  for (unsigned time = 1; time < 8; time++) same += first[time] == first[0];
  CU_ASSERT(same < 7);
}

int main(void) {
  static const test_case cases[] = {{"sharing", test_sharing},     {"contexts", test_contexts},
                                    {"cost sum", test_cost_sum},   {"cost terms", test_cost_terms},
                                    {"engine", test_engine},       {"engine order", test_engine_order},
                                    {"engine ties", test_engine_ties},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"system", cases}, {NULL, NULL}};
  return harness_run(suites);
}
