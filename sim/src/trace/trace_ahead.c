/* trace_ahead.c — blocks filled on a thread ahead of the consumer, for the
 * native build (trace_ahead.h).
 *
 * Slot i % TRACE_AHEAD_SLOTS holds the i-th block; `filled` and `taken`
 * count blocks, under `lock`. The thread waits while the ring is full, the
 * consumer while it is empty; a take copies the block's used part out
 * (24 bytes per access) so the caller keeps its own block, or swaps the
 * caller's block into the slot for the filled one (no copy: what a replay
 * does, trace_take_block). The thread ends after a fill that returned 0 or -1, or when stop is set while it waits for a slot: the
 * input is a regular file (trace.c), so a fill never waits on a writer and
 * stop is seen within a block.
 */
#include "trace_ahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct slot {
  trace_block *b;
  int rc;
  diag d;
  uint64_t bytes;
} slot;

struct trace_ahead {
  trace_fill_fn *fill;
  void *ctx;
  slot s[TRACE_AHEAD_SLOTS];
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t changed; /* filled, taken or stop changed */
  uint64_t filled, taken; /* under lock */
  bool stop;              /* under lock: stop wants the thread gone */
  bool ended;             /* the consumer took the last result: it repeats */
  slot last;              /* that result (rc and d) */
};

bool trace_ahead_wanted(unsigned jobs) {
  if (jobs == 1) return false;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return jobs > 1 || cores > 1;
}

static void *fill_ring(void *arg) {
  trace_ahead *a = arg;
  for (uint64_t i = 0;; i++) {
    pthread_mutex_lock(&a->lock);
    while (i - a->taken == TRACE_AHEAD_SLOTS && !a->stop) pthread_cond_wait(&a->changed, &a->lock);
    bool stop = a->stop;
    pthread_mutex_unlock(&a->lock);
    if (stop) return NULL;
    slot *s = &a->s[i % TRACE_AHEAD_SLOTS];
    s->rc = a->fill(a->ctx, s->b, &s->d, &s->bytes);
    pthread_mutex_lock(&a->lock);
    a->filled = i + 1;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
    if (s->rc <= 0) return NULL;
  }
}

static void free_ahead(trace_ahead *a) {
  for (int i = 0; i < TRACE_AHEAD_SLOTS; i++) free(a->s[i].b);
  free(a);
}

trace_ahead *trace_ahead_start(trace_fill_fn *fill, void *ctx) {
  trace_ahead *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->fill = fill;
  a->ctx = ctx;
  for (int i = 0; i < TRACE_AHEAD_SLOTS; i++)
    if (!(a->s[i].b = malloc(sizeof *a->s[i].b))) {
      free_ahead(a);
      return NULL;
    }
  pthread_mutex_init(&a->lock, NULL);
  pthread_cond_init(&a->changed, NULL);
  if (pthread_create(&a->thread, NULL, fill_ring, a)) {
    pthread_cond_destroy(&a->changed);
    pthread_mutex_destroy(&a->lock);
    free_ahead(a);
    return NULL;
  }
  return a;
}

static void empty_block(trace_block *b) {
  b->n = b->nother = 0;
  b->last_byte_or = 0;
  b->kinds = 0;
}

/* The used part of from into to. */
static void copy_block(trace_block *to, const trace_block *from) {
  to->n = from->n;
  to->nother = from->nother;
  to->last_byte_or = from->last_byte_or;
  to->kinds = from->kinds;
  memcpy(to->acc, from->acc, from->n * sizeof from->acc[0]);
  memcpy(to->line, from->line, from->n * sizeof from->line[0]);
  memcpy(to->other, from->other, from->nother * sizeof from->other[0]);
}

int trace_ahead_take(trace_ahead *a, trace_block **b, bool swap, diag *d, uint64_t *bytes) {
  if (a->ended) {
    if (a->last.rc < 0 && d) *d = a->last.d;
    *bytes = a->last.bytes;
    empty_block(*b);
    return a->last.rc;
  }
  pthread_mutex_lock(&a->lock);
  while (a->filled == a->taken) pthread_cond_wait(&a->changed, &a->lock);
  pthread_mutex_unlock(&a->lock);
  slot *s = &a->s[a->taken % TRACE_AHEAD_SLOTS];
  int rc = s->rc;
  *bytes = s->bytes;
  if (rc > 0 && swap) {
    trace_block *filled = s->b;
    s->b = *b;
    *b = filled;
  } else if (rc > 0) {
    copy_block(*b, s->b);
  } else {
    a->ended = true;
    a->last = (slot){.rc = rc, .d = s->d, .bytes = s->bytes};
    if (rc < 0 && d) *d = s->d;
    empty_block(*b);
  }
  pthread_mutex_lock(&a->lock);
  a->taken++;
  pthread_cond_broadcast(&a->changed);
  pthread_mutex_unlock(&a->lock);
  return rc;
}

void trace_ahead_stop(trace_ahead *a) {
  if (!a) return;
  pthread_mutex_lock(&a->lock);
  a->stop = true;
  pthread_cond_broadcast(&a->changed);
  pthread_mutex_unlock(&a->lock);
  pthread_join(a->thread, NULL);
  pthread_cond_destroy(&a->changed);
  pthread_mutex_destroy(&a->lock);
  free_ahead(a);
}
