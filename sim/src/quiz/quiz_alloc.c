/* Allocator exercises, replayed through the vas policies as `tlbsim alloc`
 * replays them: which request fails first under first-fit, best-fit and
 * buddy and why, and what cudaMalloc costs against PyTorch's caching
 * allocator on a training loop. */
#include <stdio.h>
#include <string.h>

#include "quiz_impl.h"

#define QUIZ_MAX_EVENTS 48
#define FIT_CAPACITY (UINT64_C(64) << 10)
#define POOL_CAPACITY (UINT64_C(1) << 30)
#define FAILED UINT64_MAX
#define KIB(n) ((uint64_t)(n) << 10)
#define MIB(n) ((uint64_t)(n) << 20)

typedef struct request {
  bool is_free;
  uint64_t id, size;
} request;

typedef struct stream {
  unsigned n;
  request ev[QUIZ_MAX_EVENTS];
} stream;

static void push(stream *s, bool is_free, uint64_t id, uint64_t size) {
  if (s->n < QUIZ_MAX_EVENTS) s->ev[s->n++] = (request){is_free, id, size};
}

/* What one policy did with a stream: its counters, and its first OOM (the
 * event's 1-based line in the trace, 0 for none) with the memory it saw. */
typedef struct outcome {
  vas_stats stats;
  unsigned oom_line;
  uint64_t oom_size, oom_free, oom_largest, oom_range;
  vas_oom_reason reason;
} outcome;

static int replay(const char *policy, uint64_t capacity, const stream *s, outcome *out, diag *d) {
  vas_config c = {.phys_capacity = capacity};
  vas *v = vas_create(policy, &c, NULL, d);
  if (!v) return -1;
  uint64_t va[QUIZ_MAX_EVENTS + 1];
  *out = (outcome){0};
  int rc = 0;
  for (unsigned i = 0; i < s->n && !rc; i++) {
    const request *e = &s->ev[i];
    if (e->is_free) {
      if (va[e->id] != FAILED) rc = vas_free(v, va[e->id], d);
      continue;
    }
    int got = vas_alloc(v, e->size, 0, 0, &va[e->id], d);
    if (got == VAS_ERR) rc = -1;
    if (got != VAS_OOM) continue;
    va[e->id] = FAILED;
    if (out->oom_line) continue;
    const vas_stats *st = vas_get_stats(v);
    *out = (outcome){.oom_line = i + 1, .oom_size = e->size, .oom_free = st->free_bytes,
                     .oom_largest = st->largest_free_extent, .oom_range = st->largest_free_range,
                     .reason = st->last_oom_reason};
  }
  out->stats = *vas_get_stats(v);
  vas_destroy(v);
  return rc;
}

static int write_stream(quiz_exercise *x, const stream *s, diag *d) {
  for (unsigned i = 0; i < s->n; i++) {
    const request *e = &s->ev[i];
    trace_record r = {.kind = e->is_free ? REC_FREE : REC_ALLOC, .alloc_id = e->id, .size = e->size};
    if (quiz_record(x, NULL, &r, d)) return -1;
  }
  return 0;
}

/* --- alloc: which request fails first -------------------------------------------- */

static const char *const fit_policies[] = {"first-fit", "best-fit", "buddy"};
#define NFIT (sizeof fit_policies / sizeof fit_policies[0])

/* Fill most of the 64 KiB, free a random half, then ask for larger blocks. */
static void fit_stream(stream *s, rng *r) {
  *s = (stream){0};
  uint64_t id = 0, used = 0;
  while (used < KIB(48)) {
    uint64_t size = KIB(4) * (1 + rng_below(r, 3));
    push(s, false, ++id, size);
    used += size;
  }
  uint64_t filled = id;
  for (uint64_t i = 1; i <= filled; i++)
    if (rng_below(r, 2)) push(s, true, i, 0);
  for (unsigned i = 0; i < 3; i++) push(s, false, ++id, KIB(4) * (2 + rng_below(r, 5)));
}

/* The policy's reason for the first OOM, in words: the free memory in all,
 * then the longest run of it (contiguous free memory: buddy's free blocks
 * side by side make one), which holds the bytes or not. */
static void oom_words(const outcome *o, char *buf, size_t len) {
  char a[32], b[32], c[32];
  num_format_size(o->oom_size, a, sizeof a);
  num_format_size(o->oom_free, b, sizeof b);
  num_format_size(o->oom_range, c, sizeof c);
  if (o->reason == VAS_OOM_EXHAUSTED) snprintf(buf, len, "only %s free in all for %s", b, a);
  else if (o->reason == VAS_OOM_FRAGMENTATION)
    snprintf(buf, len, "%s free in all, but the longest free range is %s < %s", b, c, a);
  else snprintf(buf, len, "%s free in all; a free range of %s holds %s, but not the block the policy rounds it up to", b,
                c, a);
}

static void fit_key(quiz_question *q, const outcome *o) {
  q->answer = json_object_new_object();
  if (!o->oom_line) {
    snprintf(q->key, sizeof q->key, "no request fails");
    json_object_object_add(q->answer, "first_oom_event", NULL);
    return;
  }
  char why[192], size[32];
  const char *reason = vas_oom_reason_name(o->reason);
  oom_words(o, why, sizeof why);
  snprintf(q->key, sizeof q->key, "line %u (alloc of %s) fails first: %s: %s", o->oom_line,
           num_format_size(o->oom_size, size, sizeof size), reason, why);
  json_object_object_add(q->answer, "first_oom_event", json_object_new_uint64(o->oom_line));
  json_object_object_add(q->answer, "first_oom_free_bytes", json_object_new_uint64(o->oom_free));
  json_object_object_add(q->answer, "first_oom_largest_free_extent", json_object_new_uint64(o->oom_largest));
  json_object_object_add(q->answer, "reason", json_object_new_string(reason));
}

/* Streams are drawn until the three policies disagree (a few tries). */
int quiz_alloc(quiz_exercise *x, rng *r, diag *d) {
  stream s;
  outcome o[NFIT];
  for (unsigned attempt = 0; attempt < 16; attempt++) {
    fit_stream(&s, r);
    for (unsigned p = 0; p < NFIT; p++)
      if (replay(fit_policies[p], FIT_CAPACITY, &s, &o[p], d)) return -1;
    if (o[0].oom_line != o[1].oom_line || o[1].oom_line != o[2].oom_line) break;
  }
  if (write_stream(x, &s, d)) return -1;
  snprintf(x->title, sizeof x->title, "which allocation fails first: first-fit, best-fit, buddy");
  snprintf(x->prompt, sizeof x->prompt,
           "64 KiB of memory, handed out in 4 KiB granules. The trace below (line N is event N)\n"
           "allocates, frees and allocates again. Under each policy (docs/ALLOC.md), which line\n"
           "fails first, and why: too little memory in all (exhausted), enough in all but no\n"
           "run of free memory as long as the request (fragmentation), or a run that holds\n"
           "its bytes but not the block the policy rounds them up to (granularity)?");
  snprintf(x->command, sizeof x->command,
           "tlbsim alloc --capacity 64K --policy first-fit --policy best-fit --policy buddy TRACE");
  for (unsigned p = 0; p < NFIT; p++) fit_key(quiz_ask(x, "%s: the first request that fails?", fit_policies[p]), &o[p]);
  return 0;
}

/* --- pool: cudaMalloc against the caching allocator ----------------------------- */

/* Weights kept throughout, then a few iterations that allocate their
 * activations and free them all, as a training step does. */
static void pool_stream(stream *s, rng *r, unsigned *iterations) {
  static const uint64_t sizes[] = {KIB(512), MIB(1), MIB(3), MIB(6), MIB(24)};
  *s = (stream){0};
  push(s, false, 1, MIB(20));
  uint64_t tensors = 2 + rng_below(r, 3), size[4];
  for (uint64_t t = 0; t < tensors; t++) size[t] = sizes[rng_below(r, sizeof sizes / sizeof sizes[0])];
  *iterations = 2 + (unsigned)rng_below(r, 2);
  for (unsigned it = 0; it < *iterations; it++) {
    uint64_t base = 2 + it * tensors;
    for (uint64_t t = 0; t < tensors; t++) push(s, false, base + t, size[t]);
    for (uint64_t t = 0; t < tensors; t++) push(s, true, base + t, 0);
  }
}

static void pool_key(quiz_question *q, const vas_stats *s) {
  snprintf(q->key, sizeof q->key, "%llu driver allocations, %llu driver frees, %llu TLB shootdowns, %llu PTE writes",
           (unsigned long long)s->driver_allocs, (unsigned long long)s->driver_frees,
           (unsigned long long)s->shootdowns, (unsigned long long)s->pte_writes);
  q->answer = json_object_new_object();
  json_object_object_add(q->answer, "driver_allocs", json_object_new_uint64(s->driver_allocs));
  json_object_object_add(q->answer, "driver_frees", json_object_new_uint64(s->driver_frees));
  json_object_object_add(q->answer, "shootdowns", json_object_new_uint64(s->shootdowns));
  json_object_object_add(q->answer, "pte_writes", json_object_new_uint64(s->pte_writes));
}

int quiz_pool(quiz_exercise *x, rng *r, diag *d) {
  static const char *const policies[] = {"cuda", "caching"};
  stream s;
  unsigned iterations;
  pool_stream(&s, r, &iterations);
  outcome o[2];
  for (unsigned p = 0; p < 2; p++)
    if (replay(policies[p], POOL_CAPACITY, &s, &o[p], d)) return -1;
  if (write_stream(x, &s, d)) return -1;
  snprintf(x->title, sizeof x->title, "driver calls, shootdowns and PTE writes: cudaMalloc vs a pool");
  snprintf(x->prompt, sizeof x->prompt,
           "1 GiB of GPU memory. Allocation 1 (the weights) stays; then %u iterations each\n"
           "allocate their activations and free them all. Under cuda (every request a\n"
           "cudaMalloc, every free a cudaFree) and caching (PyTorch's pool), how many driver\n"
           "allocations and frees, TLB shootdowns and PTE writes (written plus cleared)? The\n"
           "models' rules are in docs/ALLOC.md.",
           iterations);
  snprintf(x->command, sizeof x->command, "tlbsim alloc --capacity 1G --policy cuda --policy caching TRACE");
  for (unsigned p = 0; p < 2; p++) pool_key(quiz_ask(x, "%s: driver allocs, frees, shootdowns, PTE writes?", policies[p]), &o[p].stats);
  return 0;
}
