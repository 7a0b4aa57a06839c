/* The TLB exercise: predict each access's hit or miss in a small first
 * level, and the page a miss evicts, for a geometry and policy given. */
#include <stdio.h>

#include "quiz_impl.h"

#define TLB_ACCESSES 10
#define TEACHING_PAGE_SHIFT 8 /* the teaching preset's 256-byte pages */

typedef struct tlb_setup {
  unsigned entries, ways;
  const char *policy;
} tlb_setup;

static tlb_setup pick_setup(rng *r) {
  static const char *const policies[] = {"lru", "fifo"};
  tlb_setup s = {.entries = rng_below(r, 2) ? 4 : 2, .policy = policies[rng_below(r, 2)]};
  const unsigned ways[] = {1, 2, s.entries};
  s.ways = ways[rng_below(r, 3)];
  return s;
}

static void tlb_key(quiz_question *q, const quiz_seen *s) {
  if (s->hit) snprintf(q->key, sizeof q->key, "hit");
  else if (s->evicted) snprintf(q->key, sizeof q->key, "miss, evicts vpn %#llx", (unsigned long long)s->victim_vpn);
  else snprintf(q->key, sizeof q->key, "miss (fills a free way)");
  q->answer = json_object_new_object();
  json_object_object_add(q->answer, "hit", json_object_new_boolean(s->hit));
  json_object_object_add(q->answer, "victim", s->evicted ? json_object_new_uint64(s->victim_vpn) : NULL);
}

int quiz_tlb(quiz_exercise *x, rng *r, const quiz_env *env, diag *d) {
  tlb_setup t = pick_setup(r);
  char sets[3][48];
  snprintf(sets[0], sizeof sets[0], "tlb.l1d.entries=%u", t.entries);
  snprintf(sets[1], sizeof sets[1], "tlb.l1d.ways=%u", t.ways);
  snprintf(sets[2], sizeof sets[2], "tlb.l1d.policy=%s", t.policy);
  const char *const set_list[] = {sets[0], sets[1], sets[2]};
  machine *m = env->build(env->ctx, "teaching", set_list, 3, d);
  if (!m) return -1;
  /* a few more pages than entries, so that some accesses evict */
  uint64_t vpn[6];
  unsigned npages = t.entries + 2;
  for (unsigned i = 0; i < npages; i++) vpn[i] = rng_below(r, 32);
  int rc = 0;
  for (unsigned i = 0; i < TLB_ACCESSES && !rc; i++) {
    uint64_t va = (vpn[rng_below(r, npages)] << TEACHING_PAGE_SHIFT) | rng_below(r, 1u << TEACHING_PAGE_SHIFT);
    quiz_seen s;
    quiz_question *q = quiz_ask(x, "r %#llx", (unsigned long long)va);
    rc = quiz_access(x, m, TRACE_READ, va, &s, d);
    if (!rc) tlb_key(q, &s);
  }
  unsigned nsets = t.entries / t.ways;
  snprintf(x->title, sizeof x->title, "hits, misses and evictions of a %u-entry %s TLB", t.entries, t.policy);
  snprintf(x->prompt, sizeof x->prompt,
           "Machine: preset teaching (256-byte pages: vpn = VA >> 8) with its first-level data\n"
           "TLB l1d made %u %s, %u way%s (%u set%s: set = vpn mod %u), replacement %s, empty at\n"
           "the start. For each read below: a hit or a miss in l1d, and which vpn a miss evicts.",
           t.entries, num_noun(t.entries, "entry", "entries"), t.ways, t.ways == 1 ? "" : "s", nsets,
           nsets == 1 ? "" : "s", nsets, t.policy);
  snprintf(x->command, sizeof x->command, "tlbsim run --preset teaching --set %s --set %s --set %s --log TRACE",
           sets[0], sets[1], sets[2]);
  machine_destroy(m);
  return rc;
}
