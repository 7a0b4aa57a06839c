/* The chapter's scenario as a seeded workload: an operator serving a stream
 * of requests. Each request runs a chain of `temps` steps; step i allocates
 * a temporary and frees the one of step i-1 (each step consumes the
 * previous step's result). At a random step the request also allocates its
 * output, which lives for the next `keep_for` requests. Sizes are drawn
 * octave-uniform: a power-of-two octave uniformly between those of min and
 * max, then a size uniformly inside it (integers only, so every platform
 * generates the same bytes). The long-lived outputs land between the
 * temporaries: that is what breaks a single free range into pieces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloctrace_impl.h"

typedef struct pending {
  bool alloc;
  uint64_t name, size;
} pending;

typedef struct synth {
  alloctrace_synth p;
  rng r;
  uint64_t request, next_name, index;
  uint64_t *outputs; /* ring of keep_for live outputs' names; 0: empty */
  pending *queue;    /* one request's events */
  size_t head, tail;
  bool drained;
} synth;

void alloctrace_synth_default(alloctrace_synth *s) {
  *s = (alloctrace_synth){.seed = 1,
                          .requests = 1000,
                          .temps = 6,
                          .temp_min = 2 << 20,
                          .temp_max = 256 << 20,
                          .keep_min = 4 << 10,
                          .keep_max = 256 << 10,
                          .keep_for = 256};
}

/* Bounds: the workload's length (allocations) and what it holds in memory
 * (a ring of keep_for outputs, a queue of one request's events) stay
 * bounded, so no specification runs for hours or allocates gigabytes. */
#define MAX_ALLOCATIONS UINT64_C(100000000)
#define MAX_TEMPS UINT64_C(1000000)
#define MAX_KEEP_FOR UINT64_C(1000000)

static int validate(const alloctrace_synth *s, diag *d) {
  if (!s->temp_min || s->temp_min > s->temp_max || !s->keep_min || s->keep_min > s->keep_max)
    return diag_set(d, NULL, 0, "size ranges must be non-empty (min <= max, min > 0)");
  if (!s->keep_for || s->keep_for > MAX_KEEP_FOR || s->temps > MAX_TEMPS)
    return diag_set(d, NULL, 0, "keep_for from 1 to %llu, temps at most %llu", (unsigned long long)MAX_KEEP_FOR,
                    (unsigned long long)MAX_TEMPS);
  /* Each request allocates its temps and one output. */
  if (s->requests > MAX_ALLOCATIONS / (s->temps + 1))
    return diag_set(d, NULL, 0, "requests=%llu with temps=%llu is more than %llu allocations",
                    (unsigned long long)s->requests, (unsigned long long)s->temps,
                    (unsigned long long)MAX_ALLOCATIONS);
  return 0;
}

int alloctrace_synth_parse(alloctrace_synth *s, const char *spec, diag *d) {
  static const struct {
    const char *name;
    size_t off;
    num_kind kind;
    uint64_t lo, hi;
  } keys[] = {
      {"seed", offsetof(alloctrace_synth, seed), NUM_WHOLE, 0, UINT64_MAX},
      {"requests", offsetof(alloctrace_synth, requests), NUM_WHOLE, 0, MAX_ALLOCATIONS},
      {"temps", offsetof(alloctrace_synth, temps), NUM_WHOLE, 0, MAX_TEMPS},
      {"temp_min", offsetof(alloctrace_synth, temp_min), NUM_SIZE, 1, UINT64_MAX},
      {"temp_max", offsetof(alloctrace_synth, temp_max), NUM_SIZE, 1, UINT64_MAX},
      {"keep_min", offsetof(alloctrace_synth, keep_min), NUM_SIZE, 1, UINT64_MAX},
      {"keep_max", offsetof(alloctrace_synth, keep_max), NUM_SIZE, 1, UINT64_MAX},
      {"keep_for", offsetof(alloctrace_synth, keep_for), NUM_WHOLE, 1, MAX_KEEP_FOR},
  };
  char buf[512];
  if (strlen(spec) >= sizeof buf) return diag_set(d, NULL, 0, "specification too long");
  strcpy(buf, spec);
  char *save = NULL;
  for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    if (!eq) return diag_set(d, NULL, 0, "'%s' is not KEY=VALUE", item);
    *eq = '\0';
    size_t k = 0;
    while (k < sizeof keys / sizeof keys[0] && strcmp(keys[k].name, item)) k++;
    if (k == sizeof keys / sizeof keys[0])
      return diag_set(d, NULL, 0,
                      "unknown key '%s' (seed, requests, temps, temp_min, temp_max, keep_min, keep_max, "
                      "keep_for)",
                      item);
    uint64_t *field = (uint64_t *)(void *)((char *)s + keys[k].off);
    num_status st = keys[k].kind == NUM_SIZE ? num_size_in(eq + 1, keys[k].lo, keys[k].hi, field)
                                             : num_whole_in(eq + 1, keys[k].lo, keys[k].hi, field);
    char why[160];
    if (st != NUM_OK)
      return diag_set(d, NULL, 0, "%s: %s", item, num_complaint(st, keys[k].kind, eq + 1, keys[k].lo, keys[k].hi, why, sizeof why));
  }
  return validate(s, d);
}

static uint64_t octave_uniform(rng *r, uint64_t lo, uint64_t hi) {
  unsigned a = log2_u64(lo), b = log2_u64(hi);
  unsigned k = a + (unsigned)rng_below(r, b - a + 1);
  uint64_t from = 1ull << k, to = k == 63 ? UINT64_MAX : (2ull << k) - 1;
  if (from < lo) from = lo;
  if (to > hi) to = hi;
  return from + rng_below(r, to - from + 1);
}

static void push(synth *s, bool alloc, uint64_t name, uint64_t size) {
  s->queue[s->tail++] = (pending){alloc, name, size};
}

/* Queues one request's events. */
static void plan_request(synth *s) {
  const alloctrace_synth *p = &s->p;
  uint64_t *slot = &s->outputs[s->request % p->keep_for];
  if (*slot) push(s, false, *slot, 0); /* the output of request - keep_for */
  uint64_t out_at = p->temps ? rng_below(&s->r, p->temps) : 0, prev = 0;
  for (uint64_t i = 0; i < p->temps; i++) {
    uint64_t t = ++s->next_name;
    push(s, true, t, octave_uniform(&s->r, p->temp_min, p->temp_max));
    if (i == out_at) {
      *slot = ++s->next_name;
      push(s, true, *slot, octave_uniform(&s->r, p->keep_min, p->keep_max));
    }
    if (prev) push(s, false, prev, 0);
    prev = t;
  }
  if (prev) push(s, false, prev, 0);
  if (!p->temps) {
    *slot = ++s->next_name;
    push(s, true, *slot, octave_uniform(&s->r, p->keep_min, p->keep_max));
  }
}

/* After the last request: free the outputs still alive, oldest first. */
static void plan_drain(synth *s) {
  for (uint64_t i = 0; i < s->p.keep_for; i++) {
    uint64_t *slot = &s->outputs[(s->request + i) % s->p.keep_for];
    if (*slot) push(s, false, *slot, 0);
    *slot = 0;
  }
  s->drained = true;
}

static int synth_next(alloctrace *t, alloctrace_event *ev, diag *d) {
  synth *s = t->impl;
  if (s->head == s->tail) {
    s->head = s->tail = 0;
    if (s->request < s->p.requests) {
      plan_request(s);
      s->request++;
    } else if (!s->drained) {
      plan_drain(s);
    }
    if (s->head == s->tail) return 0;
  }
  pending *q = &s->queue[s->head++];
  *ev = (alloctrace_event){.size = q->size, .time_us = s->index, .index = s->index};
  s->index++;
  if (q->alloc) {
    ev->kind = AT_ALLOC;
    return at_name_alloc(t, q->name, &ev->id, d) ? -1 : 1;
  }
  ev->kind = AT_FREE;
  at_name_free(t, q->name, &ev->id);
  return 1;
}

static void synth_close(alloctrace *t) {
  synth *s = t->impl;
  if (!s) return;
  free(s->outputs);
  free(s->queue);
  free(s);
}

static const at_source synth_source = {synth_next, synth_close};

int at_open_synth(alloctrace *t, const alloctrace_synth *p, diag *d) {
  if (validate(p, d)) return -1;
  synth *s = calloc(1, sizeof *s);
  if (!s) return diag_set(d, NULL, 0, "out of host memory");
  s->p = *p;
  t->impl = s;
  t->src = &synth_source;
  size_t qlen = (size_t)(2 * p->temps + 2 > p->keep_for ? 2 * p->temps + 2 : p->keep_for);
  s->outputs = calloc((size_t)p->keep_for, sizeof *s->outputs);
  s->queue = calloc(qlen, sizeof *s->queue);
  if (!s->outputs || !s->queue) return diag_set(d, NULL, 0, "out of host memory");
  rng_seed(&s->r, p->seed);
  return 0;
}
