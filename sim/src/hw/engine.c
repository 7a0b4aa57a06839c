/* engine.c — events, stages and slots (see tlbsim/engine.h). */
#include "tlbsim/engine.h"

#include <stdlib.h>

void engine_init(engine *e) { *e = (engine){0}; }

void engine_free(engine *e) {
  free(e->e);
  *e = (engine){0};
}

int engine_schedule(engine *e, double t, uint32_t id, uint32_t kind) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? 2 * e->cap : 4096;
    engine_event *grown = realloc(e->e, cap * sizeof *grown);
    if (!grown) return -1;
    e->e = grown;
    e->cap = cap;
  }
  size_t i = e->n++;
  while (i && e->e[(i - 1) / 2].t > t) {
    e->e[i] = e->e[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  e->e[i] = (engine_event){t, id, kind};
  return 0;
}

bool engine_next(engine *e, engine_event *out) {
  if (!e->n) return false;
  engine_event top = e->e[0], last = e->e[--e->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= e->n) break;
    c += (c + 1 < e->n) & (e->e[c + 1].t < e->e[c].t); /* no branch: the pick is a coin's toss */
    if (e->e[c].t >= last.t) break;
    e->e[i] = e->e[c];
    i = c;
  }
  if (e->n) e->e[i] = last;
  *out = top;
  return true;
}

double engine_stage_pass(engine_stage *s, double now, double interval) {
  double start = now > s->free ? now : s->free;
  s->free = start + interval;
  s->busy += interval;
  return start + s->latency;
}

void engine_slots_init(engine_slots *s, uint32_t n) { *s = (engine_slots){.n = n}; }

void engine_slots_free(engine_slots *s) {
  free(s->wait);
  s->wait = NULL;
}

int engine_slots_acquire(engine_slots *s, uint32_t id) {
  if (s->used < s->n) {
    s->used++;
    return 1;
  }
  if (s->count == s->cap) { /* grow the ring, its waiters in order from 0 */
    uint32_t cap = s->cap ? 2 * s->cap : 64, *grown = malloc(cap * sizeof *grown);
    if (!grown) return -1;
    for (uint32_t i = 0; i < s->count; i++) grown[i] = s->wait[(s->head + i) % s->cap];
    free(s->wait);
    s->wait = grown;
    s->cap = cap;
    s->head = 0;
  }
  s->wait[(s->head + s->count++) % s->cap] = id;
  return 0;
}

uint32_t engine_slots_release(engine_slots *s) {
  if (!s->count) {
    s->used--;
    return ENGINE_NONE;
  }
  uint32_t id = s->wait[s->head];
  s->head = (s->head + 1) % s->cap;
  s->count--;
  return id;
}

int engine_band_init(engine_band *b, double width, uint32_t nbins) {
  uint32_t n = 1;
  while (n < nbins) n <<= 1;
  *b = (engine_band){.width = width, .nbins = n, .used = calloc(n, sizeof *b->used), .tag = malloc(n * sizeof *b->tag)};
  if (!b->used || !b->tag) {
    engine_band_free(b);
    return -1;
  }
  for (uint32_t i = 0; i < n; i++) b->tag[i] = -1;
  return 0;
}

void engine_band_free(engine_band *b) {
  free(b->used);
  free(b->tag);
  b->used = NULL;
  b->tag = NULL;
}

/* Bin k's slot, emptied when it held an older bin; NULL when it holds a
 * newer one (k is beyond the ring's reach behind). */
static double *band_bin(engine_band *b, int64_t k) {
  uint32_t i = (uint32_t)k & (b->nbins - 1);
  if (b->tag[i] > k) return NULL;
  if (b->tag[i] < k) b->tag[i] = k, b->used[i] = 0;
  return &b->used[i];
}

double engine_band_take(engine_band *b, double now, double interval) {
  b->busy += interval;
  if (now < 0) now = 0;
  int64_t k = (int64_t)(now / b->width);
  double *u;
  for (;; k++) {
    if (!(u = band_bin(b, k))) return now; /* so long ago that nothing is booked there any more */
    double from = now - (double)k * b->width; /* the arrival within the bin (0 after it) */
    if (from < 0) from = 0;
    if (*u < from) *u = from;
    if (*u < b->width) break;
  }
  double start = (double)k * b->width + *u, left = interval;
  for (;;) { /* the service fills this bin's room, then the next bins' */
    double room = b->width - *u, take = left < room ? left : room;
    *u += take;
    left -= take;
    if (left <= 0 || !(u = band_bin(b, ++k))) break;
  }
  return start;
}
