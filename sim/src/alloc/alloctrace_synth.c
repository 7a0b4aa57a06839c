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

static int validate(const alloctrace_synth *s, diag *d) {
  if (!s->temp_min || s->temp_min > s->temp_max || !s->keep_min || s->keep_min > s->keep_max)
    return diag_set(d, NULL, 0, "size ranges must be non-empty (min <= max, min > 0)");
  if (!s->keep_for) return diag_set(d, NULL, 0, "keep_for must be at least 1");
  if (s->temps > 1000000 || s->keep_for > 100000000)
    return diag_set(d, NULL, 0, "temps at most 1000000, keep_for at most 100000000");
  return 0;
}

int alloctrace_synth_parse(alloctrace_synth *s, const char *spec, diag *d) {
  static const struct {
    const char *name;
    size_t off;
    bool size;
  } keys[] = {
      {"seed", offsetof(alloctrace_synth, seed), false},
      {"requests", offsetof(alloctrace_synth, requests), false},
      {"temps", offsetof(alloctrace_synth, temps), false},
      {"temp_min", offsetof(alloctrace_synth, temp_min), true},
      {"temp_max", offsetof(alloctrace_synth, temp_max), true},
      {"keep_min", offsetof(alloctrace_synth, keep_min), true},
      {"keep_max", offsetof(alloctrace_synth, keep_max), true},
      {"keep_for", offsetof(alloctrace_synth, keep_for), false},
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
    if (keys[k].size ? num_parse_size(eq + 1, field) : num_parse_whole(eq + 1, field))
      return diag_set(d, NULL, 0, "%s: '%s' is not a %s", item, eq + 1, keys[k].size ? "size" : "number");
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
