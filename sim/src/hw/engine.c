/* engine.c — events, stages and slots (see tlbsim/engine.h). */
#include "tlbsim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A bucket's events in scheduling order, in a list of these (a pool, so
 * that the memory follows the events waiting, not the buckets' peaks). */
#define CHUNK_EVENTS 15
struct engine_chunk {
  uint32_t next, n; /* next: 1-based, 0 ends the list */
  engine_event e[CHUNK_EVENTS];
};

struct engine_far {
  engine_event ev;
  uint64_t seq;
};

/* Times past this stay in the heap until they are the earliest, and
 * times before its negative are the current cycle's (their cycles would
 * not fit an int64_t). */
#define FAR_TIME 0x1p62

void engine_init(engine *e) { *e = (engine){0}; }

void engine_free(engine *e) {
  free(e->now);
  free(e->scratch);
  free(e->first);
  free(e->last);
  free(e->chunk);
  free(e->far);
  *e = (engine){0};
}

static int64_t cycle_of(double t) {
  if (!(t < FAR_TIME)) return INT64_MAX; /* (and NaN) */
  return t > -FAR_TIME ? (int64_t)floor(t) : INT64_MIN;
}

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t cap2 = *cap ? *cap : 256;
  while (cap2 < need) cap2 *= 2;
  void *grown = realloc(*p, cap2 * size);
  if (!grown) return -1;
  *p = grown;
  *cap = cap2;
  return 0;
}

/* The order of events at equal times: a hash of who and when, so that no
 * SM, warp or request goes first at every tie (the GPU's arbiters favour
 * none; an order by id, or by when each was scheduled, keeps the same SMs
 * first cycle after cycle and their requests first at DRAM's banks:
 * bench/README.md, round 13), and a model run twice sees the same order. */
static inline uint64_t tie_key(const engine_event *e) {
  uint64_t t;
  memcpy(&t, &e->t, sizeof t);
  uint64_t h = ((uint64_t)e->id << 32 | e->kind) ^ (t * 0x9e3779b97f4a7c15u);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9u;
  return h ^ h >> 29;
}

static inline bool before(const engine_event *a, const engine_event *b) {
  return a->t < b->t || (a->t == b->t && tie_key(a) < tie_key(b));
}

bool engine_before(const engine_event *a, const engine_event *b) { return before(a, b); }

/* (Of events with equal keys, the one scheduled first comes first: the
 * sort is stable and the heap asks seq.) */
static bool far_before(const engine_far *a, const engine_far *b) {
  return before(&a->ev, &b->ev) || (!before(&b->ev, &a->ev) && a->seq < b->seq);
}

static int far_push(engine *e, engine_event ev) {
  if (grow((void **)&e->far, &e->cap_far, e->nfar + 1, sizeof *e->far)) return -1;
  engine_far f = {ev, e->seq};
  size_t i = e->nfar++;
  while (i && far_before(&f, &e->far[(i - 1) / 2])) {
    e->far[i] = e->far[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  e->far[i] = f;
  return 0;
}

static engine_event far_pop(engine *e) {
  engine_event top = e->far[0].ev;
  engine_far last = e->far[--e->nfar];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= e->nfar) break;
    if (c + 1 < e->nfar && far_before(&e->far[c + 1], &e->far[c])) c++;
    if (!far_before(&e->far[c], &last)) break;
    e->far[i] = e->far[c];
    i = c;
  }
  if (e->nfar) e->far[i] = last;
  return top;
}

/* Appends ev to its cycle's bucket (within the ring ahead of now). */
static int bucket_put(engine *e, int64_t cycle, engine_event ev) {
  uint32_t b = (uint32_t)cycle & (ENGINE_RING - 1), tail = e->last[b];
  if (!tail || e->chunk[tail - 1].n == CHUNK_EVENTS) {
    uint32_t c = e->free_chunk;
    if (c) e->free_chunk = e->chunk[c - 1].next;
    else {
      size_t cap = e->cap_chunk;
      if (e->nchunk == UINT32_MAX || grow((void **)&e->chunk, &cap, (size_t)e->nchunk + 1, sizeof *e->chunk)) return -1;
      e->cap_chunk = (uint32_t)(cap < UINT32_MAX ? cap : UINT32_MAX);
      c = ++e->nchunk;
    }
    e->chunk[c - 1].next = 0;
    e->chunk[c - 1].n = 0;
    if (tail) e->chunk[tail - 1].next = c;
    else e->first[b] = c;
    e->last[b] = tail = c;
  }
  engine_chunk *k = &e->chunk[tail - 1];
  k->e[k->n++] = ev;
  e->ahead++;
  return 0;
}

/* Puts ev among the current cycle's, after those not after it. */
static int now_put(engine *e, engine_event ev) {
  size_t lo = e->head, hi = e->end;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (!before(&ev, &e->now[mid])) lo = mid + 1;
    else hi = mid;
  }
  if (lo - e->head < e->end - lo && e->head) { /* the shorter side moves */
    memmove(e->now + e->head - 1, e->now + e->head, (lo - e->head) * sizeof *e->now);
    e->head--;
    e->now[lo - 1] = ev;
    return 0;
  }
  if (grow((void **)&e->now, &e->cap_now, e->end + 1, sizeof *e->now)) return -1;
  memmove(e->now + lo + 1, e->now + lo, (e->end - lo) * sizeof *e->now);
  e->now[lo] = ev;
  e->end++;
  return 0;
}

int engine_schedule(engine *e, double t, uint32_t id, uint32_t kind) {
  if (!e->first && (!(e->first = calloc(ENGINE_RING, sizeof *e->first)) || !(e->last = calloc(ENGINE_RING, sizeof *e->last))))
    return -1;
  engine_event ev = {t, id, kind};
  int64_t c = cycle_of(t);
  int rc = c <= e->cycle ? now_put(e, ev) : c - e->cycle < (int64_t)ENGINE_RING ? bucket_put(e, c, ev) : far_push(e, ev);
  if (rc) return -1;
  e->seq++;
  e->n++;
  return 0;
}

/* A stable sort by engine_before: a bucket's events come in scheduling order. */
static void sort_by_time(engine_event *a, engine_event *tmp, size_t n) {
  size_t i = 1;
  while (i < n && !before(&a[i], &a[i - 1])) i++;
  if (i >= n) return;
  if (n <= 24) {
    for (; i < n; i++) {
      engine_event x = a[i];
      size_t j = i;
      for (; j && before(&x, &a[j - 1]); j--) a[j] = a[j - 1];
      a[j] = x;
    }
    return;
  }
  size_t h = n / 2, l = 0, r = h, k = 0;
  sort_by_time(a, tmp, h);
  sort_by_time(a + h, tmp, n - h);
  while (l < h && r < n) tmp[k++] = before(&a[r], &a[l]) ? a[r++] : a[l++];
  while (l < h) tmp[k++] = a[l++];
  memcpy(a, tmp, k * sizeof *a); /* the right half's rest is in place */
}

/* Room in now for n more events after its end, the events before head
 * given back first when they are most of it. */
static int now_room(engine *e, size_t n) {
  size_t live = e->end - e->head;
  if (e->head > ENGINE_SLACK && e->head - ENGINE_SLACK >= live) {
    memmove(e->now + ENGINE_SLACK, e->now + e->head, live * sizeof *e->now);
    e->head = ENGINE_SLACK;
    e->end = ENGINE_SLACK + live;
  }
  if (!e->now) e->head = e->end = ENGINE_SLACK;
  return grow((void **)&e->now, &e->cap_now, e->end + n, sizeof *e->now);
}

/* Bucket b's events, sorted, after now's (all earlier: their cycles are). */
static int take(engine *e, uint32_t b) {
  size_t n = 0;
  for (uint32_t c = e->first[b]; c; c = e->chunk[c - 1].next) n += e->chunk[c - 1].n;
  if (now_room(e, n) || grow((void **)&e->scratch, &e->cap_scratch, n, sizeof *e->scratch)) return -1;
  engine_event *from = e->now + e->end;
  for (uint32_t c = e->first[b], next; c; c = next) {
    engine_chunk *k = &e->chunk[c - 1];
    memcpy(e->now + e->end, k->e, k->n * sizeof *k->e);
    e->end += k->n;
    next = k->next;
    k->next = e->free_chunk;
    e->free_chunk = c;
  }
  e->first[b] = e->last[b] = 0;
  e->ahead -= n;
  sort_by_time(from, e->scratch, n);
  return 0;
}

/* Every event left in the ring and the heap is too far off for a cycle:
 * the heap's, in its order, after now's; now from then on takes whatever
 * comes (in order, as now_put keeps it). */
static int take_far(engine *e) {
  if (now_room(e, e->nfar)) return -1;
  while (e->nfar) e->now[e->end++] = far_pop(e);
  e->cycle = INT64_MAX;
  return 0;
}

/* The next cycle with events joins now; the heap's events that come
 * within the ring's reach move to their buckets on the way, in their
 * order, before anything else is scheduled there. */
static int advance(engine *e) {
  while (e->cycle != INT64_MAX && (e->ahead || e->nfar)) {
    if (!e->ahead) {
      if (!(e->far[0].ev.t < FAR_TIME)) return take_far(e);
      int64_t c = cycle_of(e->far[0].ev.t);
      if (c - 1 > e->cycle) e->cycle = c - 1;
    }
    e->cycle++;
    while (e->nfar && cycle_of(e->far[0].ev.t) - e->cycle < (int64_t)ENGINE_RING) {
      engine_event ev = e->far[0].ev;
      if (bucket_put(e, cycle_of(ev.t), ev)) return -1;
      far_pop(e);
    }
    uint32_t b = (uint32_t)e->cycle & (ENGINE_RING - 1);
    if (e->first[b]) return take(e, b);
  }
  return 0;
}

/* now holds at least ENGINE_SOON events, or all there are. */
static int top_up(engine *e) {
  while (e->end - e->head < ENGINE_SOON && e->end - e->head < e->n)
    if (advance(e)) return -1;
  return 0;
}

int engine_next(engine *e, engine_event *out) {
  if (!e->n) return 0;
  if (top_up(e)) return -1;
  *out = e->now[e->head++];
  e->n--;
  return top_up(e) ? -1 : 1; /* so that engine_soon sees past this cycle's end */
}

int engine_peek(engine *e, double *t) {
  if (!e->n) return 0;
  if (top_up(e)) return -1;
  *t = e->now[e->head].t;
  return 1;
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
